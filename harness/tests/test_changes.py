"""The "what changed" table: data in harness/changes.ini, read by
report/changes.py, shown by the report as it is loaded."""

import os
import re
import tempfile
import types
import unittest

import support
from differ import causes
from report import changes
from report import doc
from report import pairs as pairs_doc
from report import render_md
from report import build as report
from report import story

SECTION = """[one]
what = a change that
    spans two lines
first =
    "quoted"
    +added
second =
causes =
    %s
decision = design
"""


class LoaderTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = os.path.join(self.tmp.name, "changes.ini")

    def load(self, text):
        with open(self.path, "w", encoding="utf-8") as stream:
            stream.write(text)
        return changes.load_changes(self.path)

    def test_reads_a_section(self):
        table = self.load(SECTION % causes.INTERFACE)
        self.assertEqual(table, (changes.Change(
            "a change that spans two lines", ('"quoted"', "+added"), (),
            (causes.INTERFACE,), "design"),))

    def test_refuses_an_unknown_cause(self):
        with self.assertRaisesRegex(changes.ChangesError,
                                    r"\[one\]: unknown cause 'no such'"):
            self.load(SECTION % "no such")

    def test_refuses_a_missing_key(self):
        text = (SECTION % causes.INTERFACE).replace("decision = design\n",
                                                    "")
        with self.assertRaisesRegex(changes.ChangesError,
                                    r"\[one\]: missing decision"):
            self.load(text)

    def test_refuses_an_unknown_key(self):
        with self.assertRaisesRegex(changes.ChangesError,
                                    r"\[one\]: unknown key seconds"):
            self.load(SECTION % causes.INTERFACE + "seconds =\n")

    def test_refuses_a_missing_file(self):
        with self.assertRaisesRegex(changes.ChangesError,
                                    r"changes\.ini is missing"):
            changes.load_changes(self.path)


class TableTest(unittest.TestCase):
    """The committed table, as the report shows it."""

    @classmethod
    def setUpClass(cls):
        # The rows and their patch lines do not depend on the results;
        # with no pair diffs every count is 0.
        analysis = types.SimpleNamespace(diffs=[])
        cls.section = story.what_changed(analysis, report.TOP,
                                         pairs_doc.pair_anchor)
        cls.table = next(b for b in cls.section.blocks
                         if isinstance(b, doc.Table))
        cls.posted = changes.postings()[:2]

    def test_one_row_per_section_in_order(self):
        self.assertEqual(changes.CHANGES_INI,
                         os.path.join(support.HARNESS, "changes.ini"))
        with open(changes.CHANGES_INI, encoding="utf-8") as stream:
            sections = re.findall(r"^\[[^\]]+\]$", stream.read(), re.M)
        self.assertEqual(len(changes.CHANGES), len(sections))
        self.assertEqual([row[0] for row in self.table.rows],
                         [c.what for c in changes.CHANGES])
        markdown = render_md.render(doc.Document("t",
                                                 sections=[self.section]))
        rows = [line for line in markdown.splitlines()
                if line.startswith("| ") and not line.startswith(
                    ("| change |", "| --- |"))]
        self.assertEqual(len(rows), len(changes.CHANGES))

    def test_markers_kept_as_written(self):
        knob = next(c for c in changes.CHANGES
                    if c.what.startswith("knob name"))
        self.assertEqual(knob.first, ('"weak-sticky-symlinks"',))
        self.assertEqual(knob.second, ('"protected-sticky-symlinks"',))
        self.assertEqual(knob.causes, (causes.INTERFACE,))
        documentation = next(c for c in changes.CHANGES
                             if c.what.startswith("documentation"))
        self.assertEqual(documentation.first, ("+weak-sticky-symlinks",))
        default = next(c for c in changes.CHANGES
                       if c.what.startswith("default"))
        self.assertEqual(default.second, (
            "IS_ENABLED(CONFIG_PROTECTED_STICKY_SYMLINKS)",
            "= CONFIG_PROTECTED_STICKY_SYMLINKS;"))

    def test_report_shows_each_marked_line(self):
        for change, row in zip(changes.CHANGES, self.table.rows):
            for series, markers, where in zip(
                    self.posted, (change.first, change.second), row[1:3]):
                with self.subTest(what=change.what, series=series):
                    if not markers:
                        self.assertEqual(where, "-")
                        continue
                    path, number, text = changes.find_line(
                        report.TOP, series, markers)
                    self.assertEqual(where, [
                        doc.Code("%s:%d" % (path, number)), " ",
                        doc.Code(text[:70])])
        knob = next(row for row in self.table.rows
                    if row[0].startswith("knob name"))
        self.assertIn('"weak-sticky-symlinks"', knob[1][2].text)
        self.assertIn('"protected-sticky-symlinks"', knob[2][2].text)

    def test_causes_are_labels(self):
        for change in changes.CHANGES:
            for label in change.causes:
                self.assertIn(label, causes.CAUSES)


if __name__ == "__main__":
    unittest.main()
