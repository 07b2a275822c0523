"""The code diff of each lineage step (kernel/rangediff.py) and its report
section (report/codesteps.py): series committed from their patch files on
a throwaway "pristine" repository, the steps read from a lineage.ini
fixture, and one subsection per step."""

import os
import subprocess
import tempfile
import unittest
from types import SimpleNamespace

import support
from differ.analysis import analyse
from differ.diff import PAIRS
from kernel import rangediff
from kernel.rangediff import Step
from model.flavors import FLAVORS
from report import codesteps, debate, doc
from report.pairs import pair_anchor
from stages import HarnessError

ORIGINAL = "int a;\nint first;\nint b;\n"


def git(repo, *args, env=None):
    return subprocess.run(
        ["git", "-C", repo, "-c", "user.name=T", "-c", "user.email=t@x",
         *args], check=True, capture_output=True, text=True,
        env=dict(os.environ, **(env or {}))).stdout


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(text)
    return path


def make_pristine(build):
    """build/pristine: one commit of f.c on branch `pristine`."""
    repo = os.path.join(build, "pristine")
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "pristine")
    write(os.path.join(repo, "f.c"), ORIGINAL)
    git(repo, "add", "f.c")
    git(repo, "commit", "-q", "-m", "pristine")
    return repo


def make_series(repo, top, name, line):
    """<top>/<name>/: a series of one patch turning `int first;` into
    `line`, as git format-patch writes it, with a cover letter."""
    git(repo, "checkout", "-q", "-b", name, "pristine")
    write(os.path.join(repo, "f.c"), ORIGINAL.replace("int first;", line))
    git(repo, "commit", "-q", "-am", "f: change the line (%s)" % name,
        env={"GIT_AUTHOR_DATE": "Thu, 27 May 2010 10:00:00 +0000"})
    out = os.path.join(top, name)
    git(repo, "format-patch", "-q", "--cover-letter", "-o", out,
        "pristine..%s" % name)
    git(repo, "checkout", "-q", "pristine")
    git(repo, "branch", "-q", "-D", name)
    patches = sorted(n for n in os.listdir(out) if n.endswith(".patch"))
    write(os.path.join(out, "series"),
          "".join(n + "\n" for n in patches if not n.startswith("0000-")))
    return out


def loose_objects(repo):
    return git(repo, "count-objects")


class CommitSeriesTest(unittest.TestCase):
    """Two toy series on a throwaway pristine repository."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.build = os.path.join(cls.tmp.name, "build")
        cls.top = os.path.join(cls.tmp.name, "top")
        cls.repo = make_pristine(cls.build)
        make_series(cls.repo, cls.top, "sa", "int second;")
        make_series(cls.repo, cls.top, "sb", "int changed;")
        cls.specs = {n: SimpleNamespace(series=n) for n in ("sa", "sb")}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def commit(self, committer, name):
        return committer.commit_series(
            rangediff._series(self.specs[name], self.top))

    def test_the_range_diff_shows_the_changed_line(self):
        committer = rangediff.Committer(self.repo)
        try:
            text = rangediff.normalise(committer.range_diff(
                self.commit(committer, "sa"), self.commit(committer, "sb")))
        finally:
            committer.close()
        self.assertIn("1:  xxxxxxx ! 1:  xxxxxxx f: change the line", text)
        self.assertIn("-+int second;", text)
        self.assertIn("++int changed;", text)

    def test_the_same_series_twice_is_equal(self):
        committer = rangediff.Committer(self.repo)
        try:
            tip = self.commit(committer, "sa")
            again = self.commit(committer, "sa")
            text = rangediff.normalise(committer.range_diff(tip, again))
        finally:
            committer.close()
        self.assertEqual(tip, again)
        self.assertEqual(text.splitlines(), [
            "1:  xxxxxxx = 1:  xxxxxxx f: change the line (sa)"])

    def test_commits_are_reproducible_and_the_repository_only_read(self):
        before = loose_objects(self.repo)
        tips = []
        for _ in range(2):
            committer = rangediff.Committer(self.repo)
            try:
                tips.append(self.commit(committer, "sb"))
                author = committer.git("log", "-1", "--format=%an <%ae> %ad"
                                       " %cn %cd", tips[-1]).stdout
            finally:
                committer.close()
        self.assertEqual(tips[0], tips[1])
        self.assertIn("T <t@x> Thu May 27 10:00:00 2010 +0000 T", author)
        self.assertEqual(loose_objects(self.repo), before)

    def test_write_steps_writes_a_header_and_the_text(self):
        paths = rangediff.write_steps(self.build, [("sa", "sb")], self.top,
                                      self.specs)
        self.assertEqual(paths, [os.path.join(self.build, "range-diff",
                                              "sa..sb.txt")])
        with open(paths[0], encoding="utf-8") as stream:
            lines = stream.read().splitlines()
        self.assertTrue(lines[0].startswith(
            "# python3 harness/sticky.py range-diff sa sb: git range-diff"
            " --no-color --creation-factor=100 pristine..sa pristine..sb"))
        self.assertIn("1:  xxxxxxx ! 1:  xxxxxxx f: change the line (sa)",
                      lines)

    def test_a_missing_pristine_tree_says_what_to_run(self):
        with self.assertRaises(HarnessError) as cm:
            rangediff.write_steps(os.path.join(self.tmp.name, "none"),
                                  [("sa", "sb")], self.top, self.specs)
        self.assertIn("make kernels", str(cm.exception))


class NormaliseTest(unittest.TestCase):

    def test_commit_ids_of_any_length_and_missing_sides(self):
        text = ("-:  --------- > 1:  b3d3072da fs: one\n"
                "2:  1a2b3c4 ! 1:  5d6e7f8 fs: two\n"
                "    @@ kept 1a2b3c4d as it is\n")
        self.assertEqual(rangediff.normalise(text),
                         "-:  ------- > 1:  xxxxxxx fs: one\n"
                         "2:  xxxxxxx ! 1:  xxxxxxx fs: two\n"
                         "    @@ kept 1a2b3c4d as it is\n")


LINEAGE = """\
[Old]
columns =
[A]
columns = fa fa-extra
[B]
columns = fb
[Mainline]
columns = base
[C]
columns = fc
[D]
columns = fd
"""


class StepsTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = write(os.path.join(self.tmp.name, "lineage.ini"),
                          LINEAGE)
        self.specs = {n: SimpleNamespace(series=n[1:] if n != "base" else "")
                      for n in ("fa", "fa-extra", "fb", "fc", "fd", "base")}

    def tearDown(self):
        self.tmp.cleanup()

    def test_steps_without_a_series_are_skipped_the_rest_in_order(self):
        entries = rangediff.read_lineage(self.path)
        got = rangediff.steps(entries, self.specs)
        self.assertEqual([(s.a, s.b, s.file_name) for s in got],
                         [("A", "B", "fa..fb.txt"), ("C", "D", "fc..fd.txt")])
        why = {(s.a, s.b): s.why_not
               for s in rangediff.all_steps(entries, self.specs)}
        self.assertIn("Old has no flavor", why[("Old", "A")])
        self.assertIn("Mainline is the pristine tree itself: base has no"
                      " series", why[("B", "Mainline")])
        self.assertIn("Mainline is the pristine tree itself",
                      why[("Mainline", "C")])

    def test_an_unknown_flavor_is_named(self):
        del self.specs["fc"]
        with self.assertRaises(HarnessError) as cm:
            rangediff.steps(rangediff.read_lineage(self.path), self.specs)
        self.assertIn("[C] names flavor fc", str(cm.exception))

    def test_the_project_lineage_has_its_five_steps(self):
        self.assertEqual([s.file_name for s in rangediff.steps()],
                         ["owlsm..grsec.txt", "grsec..v1.txt", "v1..v2.txt",
                          "v2..v3.txt", "v3..yama.txt"])


def walk(block):
    yield block
    for sub in getattr(block, "blocks", []) or []:
        yield from walk(sub)
    if isinstance(block, doc.Para):
        yield from block.content


class SectionTest(unittest.TestCase):
    """The report's section: one subsection per step, the pair linked,
    a note for an absent file."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        results = support.write_results(os.path.join(cls.tmp.name, "r"))
        rd = os.path.join(cls.tmp.name, "range-diff")
        write(os.path.join(rd, "v1..v2.txt"), "1:  xxxxxxx ! 1:  xxxxxxx"
              " fs: v1 to v2\n")
        write(os.path.join(rd, "owlsm..grsec.txt"), "owlsm to grsec\n")
        cls.analysis = analyse(results, rd)
        cls.steps = [Step("OWLSM", "grsecurity", "owlsm", "grsec"),
                     Step("v1", "v2", "v1", "v2"),
                     Step("v2", "v3", "v2", "v3"),
                     Step("Yama", "Linux 3.6", "yama", "base",
                          "Linux 3.6 is the pristine tree itself")]
        cls.section = codesteps.section(cls.analysis, cls.steps)
        cls.subs = [b for b in cls.section.blocks
                    if isinstance(b, doc.Section)]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_subsection_per_step_with_a_code_diff(self):
        self.assertEqual(self.section.anchor, "code-steps")
        self.assertEqual([s.title for s in self.subs],
                         ["OWLSM -> grsecurity", "v1 -> v2", "v2 -> v3"])
        anchors = [s.anchor for s in self.subs]
        self.assertEqual(len(set(anchors)), 3)
        self.assertEqual(anchors[1], "code-steps-v1-v2")
        text = doc.plain(self.section.blocks[1].content)
        self.assertIn("Yama -> Linux 3.6: Linux 3.6 is the pristine tree",
                      text)

    def test_the_text_is_collapsed_and_an_absent_file_noted(self):
        details = [[b for b in walk(s) if isinstance(b, doc.Details)]
                   for s in self.subs]
        self.assertEqual([len(d) for d in details], [1, 1, 0])
        self.assertEqual(details[1][0].blocks[0].text,
                         "1:  xxxxxxx ! 1:  xxxxxxx fs: v1 to v2\n")
        absent = doc.plain(self.subs[2].blocks[-1].content)
        self.assertIn("v2..v3.txt is absent from", absent)
        self.assertIn("python3 harness/sticky.py range-diff", absent)

    def test_the_pair_comparing_the_flavors_is_linked(self):
        pair = codesteps.pair_of("v1", "v2")
        self.assertEqual((pair.a, pair.b), ("v1", "v2"))
        self.assertEqual(codesteps.pair_of("v3", "yama").title,
                         next(p.title for p in PAIRS
                              if (p.a, p.b) == ("yama", "v3")))
        links = [b.anchor for b in walk(self.subs[1])
                 if isinstance(b, doc.Link)]
        self.assertIn(pair_anchor(pair), links)
        self.assertIn(pair_anchor(codesteps.pair_of("owlsm", "grsec")),
                      [b.anchor for b in walk(self.subs[0])
                       if isinstance(b, doc.Link)])

    def test_a_step_no_pair_compares_says_so(self):
        flavors = list(FLAVORS)
        a, b = next((a, b) for a in flavors for b in flavors
                    if a != b and codesteps.pair_of(a, b) is None)
        sub = codesteps.step_section(self.analysis, Step(a, b, a, b))
        self.assertIn("no pair in harness/pairs.ini compares them",
                      doc.plain(sub.blocks[0].content))

    def test_the_timeline_links_each_step_with_a_code_diff(self):
        table = debate.timeline()
        links = {}
        for row in table.rows:
            name = doc.plain(row[0]).split(" (")[0]
            links[name] = [b.anchor for b in row[0]
                           if isinstance(b, doc.Link)]
        self.assertEqual(links["grsecurity"], ["code-steps-owlsm-grsec"])
        self.assertEqual(links["Yama"], ["code-steps-v3-yama"])
        self.assertEqual(links["OWLSM"], [])
        self.assertEqual(links["Linux 3.6"], [])


if __name__ == "__main__":
    unittest.main()
