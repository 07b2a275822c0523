"""The command line: exit codes and readable output."""

import io
import os
import signal
import tempfile
import unittest
from unittest import mock

import support
from differ import fork
from report import apart
from stickydiff.cli import main
from differ.diff import pairs_for

COMMITTED = os.path.join(os.path.dirname(support.HARNESS), "results",
                         "expected")


PARENT = os.getpid()
VIEWS = apart.views


def _killed_at(count, analysis, args):
    """apart.views(), its child killed before its value number `count`:
    the caller computes that value and the rest itself (Work)."""
    for number, value in enumerate(VIEWS(analysis, *args)):
        if number == count and os.getpid() != PARENT:
            os.kill(os.getpid(), signal.SIGKILL)
        yield value


def views_killed(analysis, *args):
    yield from _killed_at(0, analysis, args)


def run(*argv):
    out = io.StringIO()
    code = main(list(argv), out)
    return code, out.getvalue()


class CliTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.tmp.name, "results")
        self.expected = os.path.join(self.tmp.name, "expected")
        self.out = os.path.join(self.tmp.name, "out")
        # bless writes the range-diffs: never into the repository's
        self.fresh_rd = os.path.join(self.tmp.name, "range-diff")
        self.committed_rd = os.path.join(self.tmp.name, "committed-rd")
        self.rd = ["--range-diff", self.fresh_rd,
                   "--committed-range-diff", self.committed_rd]

    def tearDown(self):
        self.tmp.cleanup()

    def test_no_results_is_not_a_failure(self):
        code, text = run("check", "--results", self.results)
        self.assertEqual(code, 0)
        self.assertIn("no result files", text)

    def test_report_without_results_says_so(self):
        code, text = run("report", "--results", self.results, "--expected",
                         self.expected, "--out", self.out)
        self.assertEqual(code, 0)
        self.assertIn("verdict: NO RESULTS", text)
        self.assertEqual(fork._LIVE, set(), "a child left unclosed")

    @unittest.skipUnless(os.path.exists(os.path.join(COMMITTED, "v1.json")),
                         "no committed results")
    def test_report_from_the_committed_form(self):
        """`make report` in a fresh clone: no run, the committed files."""
        fresh_clone = os.path.join(self.tmp.name, "no-run")
        code, text = run("report", "--results", fresh_clone, "--expected",
                         COMMITTED, "--out", self.out)
        self.assertEqual(code, 0, text)
        self.assertIn("results from %s" % COMMITTED, text)
        self.assertIn("verdict: OK", text)
        with open(os.path.join(self.out, "report.html"),
                  encoding="utf-8") as stream:
            html = stream.read()
        self.assertIn("the committed results; no run in", html)
        with open(os.path.join(self.out, "report-cases.html"),
                  encoding="utf-8") as stream:
            cases = stream.read()
        self.assertIn('id="case-m.d1777-root.lA.tfile-root.fB.trail.'
                      'open_rdonly"', cases)

    def test_report_fails_with_the_verdict(self):
        def flip(flavor, data):
            if flavor == "v3y":
                case = support.find_case(data, "boot", "inter-B")
                case["ret"], case["errno"] = 0, "0"
        support.write_results(self.results, mutate=flip)
        code, text = run("report", "--results", self.results, "--out",
                         self.out)
        self.assertEqual(code, 1)
        self.assertIn("verdict: FAIL", text)

    def test_bless_copies_the_run_section(self):
        support.write_results(self.results, flavors=("v3",))
        committed = os.path.join(self.tmp.name, "beyond.md")
        with open(committed, "w", encoding="utf-8") as stream:
            stream.write("## Attack\n\nold\n\n## What the check costs\n")
        with open(os.path.join(self.results, "beyond.md"), "w",
                  encoding="utf-8") as stream:
            stream.write("## Attack\n\nnew\n")
        code, text = run("bless", "--results", self.results, "--expected",
                         self.expected, "--section", committed, *self.rd)
        self.assertEqual(code, 0, text)
        self.assertIn("blessed %s from" % committed, text)
        self.assertIn("WARNING: section dropped: ## What the check costs",
                      text)
        with open(committed, encoding="utf-8") as stream:
            self.assertEqual(stream.read(), "## Attack\n\nnew\n")
        code, text = run("bless", "--results", self.results, "--expected",
                         self.expected, "--section", committed, *self.rd)
        self.assertIn("blessed %s: unchanged" % committed, text)

    def test_bless_copies_the_range_diffs(self):
        support.write_results(self.results, flavors=("v3",))
        os.mkdir(self.fresh_rd)
        os.mkdir(self.committed_rd)
        for where, name, text in ((self.fresh_rd, "v1..v2.txt", "new\n"),
                                  (self.committed_rd, "v1..v2.txt", "old\n"),
                                  (self.committed_rd, "v0..v1.txt", "x\n")):
            with open(os.path.join(where, name), "w",
                      encoding="utf-8") as stream:
                stream.write(text)
        code, text = run("bless", "--results", self.results, "--expected",
                         self.expected, *self.rd)
        self.assertEqual(code, 0, text)
        with open(os.path.join(self.committed_rd, "v1..v2.txt"),
                  encoding="utf-8") as stream:
            self.assertEqual(stream.read(), "new\n")
        self.assertIn("v0..v1.txt has no fresh copy", text)
        code, text = run("report", "--results", self.results, "--expected",
                         self.expected, "--out", self.out,
                         "--range-diff", os.path.join(self.tmp.name, "no"),
                         "--committed-range-diff", self.committed_rd)
        self.assertIn("code steps: 2 step(s) from %s" % self.committed_rd,
                      text)

    def test_check_ok(self):
        support.write_results(self.results)
        code, text = run("check", "--results", self.results)
        self.assertEqual(code, 0, text)
        self.assertIn("OK: every case explained", text)

    def test_check_fails_on_unexplained(self):
        def flip(flavor, data):
            if flavor == "v3y":
                case = support.find_case(data, "boot", "inter-B")
                case["ret"], case["errno"] = 0, "0"
        support.write_results(self.results, mutate=flip)
        code, text = run("check", "--results", self.results)
        self.assertEqual(code, 1)
        self.assertIn("v3y boot " + support.SCENARIOS["inter-B"]["id"], text)

    def test_check_fails_on_truncated_file(self):
        support.write_results(self.results, flavors=("v1",))
        path = os.path.join(self.results, "v1.json")
        with open(path, "r+", encoding="utf-8") as stream:
            stream.truncate(100)
        code, text = run("check", "--results", self.results)
        self.assertEqual(code, 1)
        self.assertIn(path, text)

    def test_diff_and_report(self):
        support.write_results(self.results)
        code, text = run("diff", "--results", self.results)
        self.assertEqual(code, 0, text)
        self.assertIn("v1 vs v1-nosec: 9/65 differ (config dependence 9)",
                      text)
        code, text = run("report", "--results", self.results, "--out",
                         self.out, "--range-diff",
                         os.path.join(self.tmp.name, "absent.txt"))
        self.assertEqual(code, 0)
        pages = [line for line in text.splitlines()
                 if line.startswith("report: ")]
        scripts = os.listdir(os.path.join(self.out, "report-repro"))
        self.assertTrue(scripts and all(s.endswith(".sh") for s in scripts))
        for name in ("report.md", "report.html", "report-cases.html",
                     "report-pairs.md"):
            self.assertIn("report: " + os.path.join(self.out, name), pages)
            self.assertTrue(os.path.exists(os.path.join(self.out, name)))
        # a terminal summary: a line per flavor and a few per pair (the
        # declared ones and each "<flavor> vs base"), not the report
        self.assertLess(len(text.splitlines()) - len(pages),
                        10 + len(support.FLAVORS)
                        + 3 * len(pairs_for(support.FLAVORS)))

    def test_report_forked_or_not_writes_the_same(self):
        """The report's child (the grid's cells, the case views' page)
        gives what one process gives."""
        support.write_results(self.results)
        args = ("report", "--results", self.results, "--out")
        serial = os.path.join(self.tmp.name, "serial")
        with mock.patch.dict(os.environ, {fork.ENV: "0"}):
            code, one = run(*args, serial)
        self.assertEqual(code, 0)
        code, two = run(*args, self.out)
        self.assertEqual(code, 0)
        self.assertEqual(one.replace(serial, self.out), two)
        self.assertSameFiles(serial, self.out)
        # a child killed before it wrote the case views' page
        out = os.path.join(self.tmp.name, "killed")
        with mock.patch.object(apart, "views", views_killed):
            code, three = run(*args, out)
        self.assertEqual((code, three.replace(out, self.out)), (0, two))
        self.assertSameFiles(serial, out)

    def assertSameFiles(self, serial, out):
        names = sorted(os.path.relpath(os.path.join(d, n), out)
                       for d, _, files in os.walk(out) for n in files)
        self.assertGreater(len(names), 10)
        self.assertEqual(names, sorted(
            os.path.relpath(os.path.join(d, n), serial)
            for d, _, files in os.walk(serial) for n in files))
        for name in names:
            with open(os.path.join(serial, name), encoding="utf-8") as a, \
                    open(os.path.join(out, name), encoding="utf-8") as b:
                self.assertEqual(a.read(), b.read(), name)

    def test_report_rewrites_only_what_changed(self):
        """A second report leaves its unchanged files alone, restores a
        changed one and removes a script that is no longer written."""
        support.write_results(self.results)
        args = ("report", "--results", self.results, "--out", self.out)
        self.assertEqual(run(*args)[0], 0)
        repro = os.path.join(self.out, "report-repro")
        kept = os.path.join(repro, sorted(os.listdir(repro))[0])
        stale = os.path.join(repro, "case-gone.sh")
        edited = os.path.join(self.out, "report.md")
        with open(stale, "w") as stream:
            stream.write("an old run's script\n")
        with open(edited) as stream:
            text = stream.read()
        with open(edited, "a") as stream:
            stream.write("edited\n")
        before = os.stat(kept)
        self.assertEqual(run(*args)[0], 0)
        self.assertFalse(os.path.exists(stale))
        with open(edited) as stream:
            self.assertEqual(stream.read(), text)
        after = os.stat(kept)
        self.assertEqual((after.st_ino, after.st_mtime_ns),
                         (before.st_ino, before.st_mtime_ns))
        self.assertEqual([n for n in os.listdir(self.out)
                          if n.endswith(".tmp")], [])

    def test_compare_and_bless(self):
        support.write_results(self.results, flavors=("v3",))
        code, text = run("compare", "--results", self.results,
                         "--expected", self.expected)
        self.assertEqual(code, 1)
        self.assertIn("run bless", text)
        code, text = run("bless", "--results", self.results,
                         "--expected", self.expected, *self.rd)
        self.assertEqual(code, 0)
        self.assertIn("blessed v3", text)
        code, text = run("compare", "--results", self.results,
                         "--expected", self.expected)
        self.assertEqual(code, 0, text)
        self.assertIn("verdict: OK", text)
        os.remove(os.path.join(self.results, "v3.json"))
        code, text = run("compare", "--results", self.results,
                         "--expected", self.expected)
        self.assertEqual(code, 1, text)
        self.assertIn("verdict: FAIL", text)


if __name__ == "__main__":
    unittest.main()
