"""The flavor by flavor grid (differ/grid.py): a cell counts what the
pair section of the same two flavors counts, one flipped case moves the
cells of its flavor by one and no other, and both renderers show the
cells themselves."""

import os
import re
import tempfile
import unittest
from unittest import mock

import support
from differ import analysis
from differ import fork
from differ import grid
from differ.tasks import Tasks
from report import render_html
from report import render_md
from report import build as report
from differ.analysis import analyse
from model.flavors import FLAVOR_ORDER


def counts(directory, known=False):
    """{(a, b): differing} of the grid of one results directory, computed
    afresh (known=False) or reusing the pair sections."""
    analysis = analyse(directory)
    table = grid.build(analysis.files, analysis.diffs if known else (),
                       analysis.checks)
    return {key: c.differing for key, c in table.cells.items()}


class GridTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = support.write_results(os.path.join(cls.tmp.name, "r"))
        cls.analysis = analyse(cls.dir)
        cls.fresh = grid.build(cls.analysis.files, (), cls.analysis.checks)
        cls.reused = grid.build(cls.analysis.files, cls.analysis.diffs,
                                cls.analysis.checks)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_two_flavors_once(self):
        flavors = tuple(f for f in FLAVOR_ORDER if f in support.FLAVORS)
        self.assertEqual(self.fresh.flavors, flavors)
        self.assertEqual(len(self.fresh.cells),
                         len(flavors) * (len(flavors) - 1) // 2)
        for a in flavors:
            self.assertIsNone(self.fresh.cell(a, a))
            for b in flavors:
                if a != b:
                    self.assertIs(self.fresh.cell(a, b),
                                  self.fresh.cell(b, a))

    def test_cell_counts_what_the_pair_section_counts(self):
        whole = [d for d in self.analysis.diffs
                 if d.pair.settings is None and d.pair.at_defaults is None
                 and not d.missing]
        self.assertGreater(len(whole), 5)
        self.assertGreater(sum(d.differing for d in whole), 20)
        for pair_diff in whole:
            title = pair_diff.pair.title
            fresh = self.fresh.cell(pair_diff.pair.a, pair_diff.pair.b)
            self.assertIsNone(fresh.pair, title)        # computed afresh
            self.assertEqual(fresh.differing, pair_diff.differing, title)
            self.assertEqual(fresh.joined, pair_diff.joined, title)
            self.assertEqual(dict(fresh.causes), pair_diff.cause_counts(),
                             title)
            reused = self.reused.cell(pair_diff.pair.a, pair_diff.pair.b)
            self.assertEqual(reused.pair, pair_diff.pair)
            self.assertEqual(reused.differing, pair_diff.differing)

    def test_pairs_over_some_settings_are_related_not_reused(self):
        cell = self.reused.cell("v1", "v3")
        self.assertIsNone(cell.pair)
        self.assertEqual({p.title for p in cell.related},
                         {d.pair.title for d in self.analysis.diffs
                          if {d.pair.a, d.pair.b} == {"v1", "v3"}})
        # v1 protects at boot, v3 does not: the boot pair's cases.
        boot = next(d for d in self.analysis.diffs
                    if d.pair.settings == ("boot",))
        self.assertEqual(cell.differing, boot.differing)
        self.assertGreater(cell.differing, 0)
        self.assertEqual(cell.causes, (("default value", boot.differing),))

    def test_tasks_split_anywhere_give_the_analysis_built_in_place(self):
        """differ/tasks.py: the work after the check, split at any point
        between the child (the front) and the caller (the back), gives
        the grid, matrices and pair sections computed in one process."""
        files, checks = self.analysis.files, self.analysis.checks
        tasks = Tasks(files, checks)
        n = len(tasks.listed)
        self.assertEqual({kind for kind, _ in tasks.listed},
                         {"cell", "matrices", "pair"})
        for cut in (0, 1, n // 2, n - 1, n):
            done = tasks.complete({**Tasks(files, checks).run(range(cut)),
                                   **tasks.run(range(cut, n))})
            self.assertEqual(grid.build(files, tasks.diffs(done)[0], checks,
                                        fresh=tasks.cells(done)),
                             self.reused)
            self.assertEqual(tasks.diffs(done),
                             support.every_pair(files, checks))
            self.assertEqual(tasks.matrices(done), self.analysis.matrices)
        self.assertEqual(self.analysis.grid, self.reused)
        self.assertTrue(any(c.related for c in self.reused.cells.values()))

    def test_the_childs_values_are_used_when_its_files_are_these(self):
        """The child loads the files again: values it computed from other
        bytes (a file rewritten between the two loads), or none at all
        (it failed after taking its tasks), leave them to be computed in
        place."""
        wrong = {("cell", key): grid.Cell(*key, differing=10 ** 6)
                 for key, cell in self.reused.cells.items() if not cell.pair}
        read = analysis._part(self.dir, fork.Ends())[0][0]

        def takes(digests, fails=False):
            def part(_directory, ends):
                taken = list(ends.front(len(wrong)))   # the cells: first
                if fails or len(taken) != len(wrong):
                    raise RuntimeError("the child failed")
                return (digests, wrong), None
            return part
        for answer in (takes({}), takes(read, fails=True)):
            with mock.patch.object(analysis, "_part", answer):
                self.assertEqual(analyse(self.dir).grid, self.reused)
        with mock.patch.object(analysis, "_part", takes(read)):
            self.assertEqual(analyse(self.dir).grid.cell(
                *next(iter(wrong))[1]).differing, 10 ** 6)

    def test_one_flipped_case_moves_its_flavor_by_one(self):
        def flip(flavor, data):
            if flavor == "v3":      # every flavor allows core-A
                case = support.find_case(data, "ps1-own1", "core-A")
                case["ret"], case["errno"] = -1, "EACCES"
                case["atime_changed"] = False
        with tempfile.TemporaryDirectory() as tmp:
            after = counts(support.write_results(tmp, mutate=flip))
        before = {k: c.differing for k, c in self.fresh.cells.items()}
        self.assertEqual(set(after), set(before))
        for key in before:
            self.assertEqual(after[key] - before[key],
                             1 if "v3" in key else 0, key)


class GridRenderTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        with tempfile.TemporaryDirectory() as tmp:
            analysis = analyse(support.write_results(tmp))
            document = report.build(analysis)
        cls.md = render_md.render(document)
        cls.html = render_html.render(document)
        cls.cases = render_html.pages(document)["report-cases.html"]
        cls.section = re.search(r'<section id="grid">(.*?)</section>',
                                cls.html, re.S).group(1)
        cls.md_section = cls.md.split('## Flavor by flavor <a id="grid">'
                                      '</a>')[1].split("\n## ")[0]

    def test_markdown_cells(self):
        # A declared pair refers to its section, in both triangles.
        self.assertIn("| [9](#pair-v1_vs_v1-nosec): config dependence 9 |",
                      self.md_section)
        self.assertIn("| **v1-nosec** | [0](#pair-v1-nosec_vs_base) |"
                      " [9](#pair-v1_vs_v1-nosec) | - |", self.md_section)
        # Two flavors no pair compares: the number refers to its cases.
        self.assertIn("| [7](#grid-v1-nosec-vs-v3): config dependence 7 |",
                      self.md_section)
        self.assertIn('<details id="grid-v1-nosec-vs-v3"><summary>'
                      'v1-nosec vs v3: 7 of 65 joined cases differ',
                      self.md_section)
        self.assertIn("(report-cases.md#case-m.d1777-root.lA.tfile-root.fB."
                      "trail.open_rdonly)", self.md_section)

    def test_html_cells(self):
        self.assertIn('<table class="grid">', self.section)
        self.assertIn('<td><a href="#pair-v1_vs_v1-nosec">9</a>: config'
                      ' dependence 9</td>', self.section)
        self.assertIn('<td><a href="#grid-v1-nosec-vs-v3">7</a>: config'
                      ' dependence 7</td>', self.section)
        self.assertIn('<td><a href="#grid-v1-vs-v3">2</a>: default value'
                      ' 2</td>', self.section)
        self.assertIn('<td class="none">-</td>', self.section)
        drill = re.search(r'<details id="grid-v1-nosec-vs-v3">(.*?)'
                          r'</details>', self.section, re.S).group(1)
        self.assertIn('href="report-cases.html#case-m.d1777-root.lA.'
                      'tfile-root.fB.trail.open_rdonly"', drill)
        self.assertIn('id="case-m.d1777-root.lA.tfile-root.fB.trail.'
                      'open_rdonly"', self.cases)

    def test_drilled_cases_have_views_without_pair_sections(self):
        with tempfile.TemporaryDirectory() as tmp:
            analysis = analyse(support.write_results(tmp))
        analysis.diffs = []             # every cell computed by the grid
        pages = render_html.pages(report.build(analysis))
        section = re.search(r'<section id="grid">(.*?)</section>',
                            pages["report.html"], re.S).group(1)
        cases = set(re.findall(r'href="report-cases.html#(case-[^"]+)"',
                               section))
        self.assertGreater(len(cases), 2)
        self.assertEqual(cases - set(re.findall(
            r'id="([^"]+)"', pages["report-cases.html"])), set())


if __name__ == "__main__":
    unittest.main()
