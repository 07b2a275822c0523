"""The reports: HTML structure (html.parser), markdown, screenshot."""

import os
import shutil
import subprocess
import tempfile
import unittest
from html.parser import HTMLParser

import support
from stickydiff import report_html, report_md
from stickydiff.analysis import analyse

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"}
CHROMIUM = "/usr/bin/chromium"


class Structure(HTMLParser):
    """Checks nesting and collects what the test asserts on."""

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []
        self.tags, self.classes, self.h4 = {}, [], []
        self.external = []
        self._in_h4 = False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        attrs = dict(attrs)
        for name in ("src", "href"):
            if name in attrs:
                self.external.append((tag, attrs[name]))
        if tag in ("link", "script", "iframe", "img"):
            self.external.append((tag, attrs))
        if tag == "td" and attrs.get("class"):
            self.classes.append(attrs["class"])
        self._in_h4 = tag == "h4"
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s> with open %r"
                               % (tag, self.stack[-3:]))
            return
        self.stack.pop()
        self._in_h4 = False

    def handle_data(self, data):
        if self._in_h4:
            self.h4.append(data)


class ReportTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        results = support.write_results(os.path.join(cls.tmp.name, "r"))
        rdiff = os.path.join(cls.tmp.name, "range-diff.txt")
        with open(rdiff, "w", encoding="utf-8") as stream:
            stream.write("1:  abc ! 1:  def fs: <sticky> & symlinks\n")
        cls.analysis = analyse(results, rdiff)
        cls.html = report_html.render(cls.analysis)
        cls.md = report_md.render(cls.analysis)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def parsed(self):
        parser = Structure()
        parser.feed(self.html)
        parser.close()
        return parser

    def test_well_nested(self):
        parser = self.parsed()
        self.assertEqual(parser.errors, [])
        self.assertEqual(parser.stack, [])
        self.assertTrue(self.html.startswith("<!DOCTYPE html>"))

    def test_self_contained(self):
        self.assertEqual(self.parsed().external, [])
        self.assertEqual(self.parsed().tags.get("style"), 1)

    def test_one_matrix_per_flavor_and_setting(self):
        titles = set(self.parsed().h4)
        for flavor in support.FLAVORS:
            for setting in support.settings_of(flavor):
                self.assertIn("%s %s" % (flavor, setting), titles)

    def test_matrix_cells_coloured(self):
        classes = self.parsed().classes
        self.assertIn("allow", classes)
        self.assertIn("deny", classes)
        self.assertNotIn("deny bad", classes)

    def test_range_diff_escaped(self):
        self.assertIn("fs: &lt;sticky&gt; &amp; symlinks", self.html)
        self.assertIn("fs: <sticky> & symlinks", self.md)

    def test_diff_groups_present(self):
        for text in (self.html, self.md):
            self.assertIn("v1 vs v3 with both protections on", text)
            self.assertIn("porting artifact", text)
            self.assertIn("config dependence", text)

    def test_markdown_matrix(self):
        self.assertIn("**v1 ps0-own1** (target file-root)", self.md)
        self.assertIn("| 1777 | EACCES +a | ok +a | EACCES +a |", self.md)

    def test_range_diff_absent_noted(self):
        analysis = analyse(self.analysis.results_dir,
                           os.path.join(self.tmp.name, "nope.txt"))
        self.assertIn("static diff skipped", report_md.render(analysis))


@unittest.skipUnless(os.path.exists(CHROMIUM),
                     "no %s: headless screenshot not taken" % CHROMIUM)
class ScreenshotTest(unittest.TestCase):

    def test_screenshot(self):
        with tempfile.TemporaryDirectory() as tmp:
            results = support.write_results(os.path.join(tmp, "r"))
            page = os.path.join(tmp, "report.html")
            with open(page, "w", encoding="utf-8") as stream:
                stream.write(report_html.render(analyse(results)))
            shot = os.path.join(tmp, "shot.png")
            subprocess.run(
                [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--user-data-dir=" + os.path.join(tmp, "profile"),
                 "--window-size=1200,2000", "--screenshot=" + shot,
                 "file://" + page],
                check=True, timeout=120, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)
            with open(shot, "rb") as stream:
                self.assertEqual(stream.read(8), b"\x89PNG\r\n\x1a\n")
            keep = os.environ.get("STICKYDIFF_SCREENSHOT")
            if keep:
                shutil.copy(shot, keep)


if __name__ == "__main__":
    unittest.main()


class MdliteTest(unittest.TestCase):
    def test_tables_lists_headings_code(self):
        from stickydiff import mdlite
        html = mdlite.to_html("## Attack\n\n| a | b |\n|---|---|\n| 1 | <2> |"
                              "\n\n- one\n- two\n\n```\nx < y\n```\ntext")
        self.assertIn("<h3>Attack</h3>", html)
        self.assertIn("<tr><th>a</th><th>b</th></tr>", html)
        self.assertIn("<td>&lt;2&gt;</td>", html)
        self.assertNotIn("<td>---</td>", html)
        self.assertIn("<ul><li>one</li><li>two</li></ul>", html)
        self.assertIn("<pre>x &lt; y</pre>", html)
        self.assertIn("<p>text</p>", html)

    def test_inline_code_bold_emphasis(self):
        from stickydiff import mdlite
        self.assertEqual(mdlite.inline("`a<b` **0/20** *planted* x*y"),
                         "<code>a&lt;b</code> <b>0/20</b> <i>planted</i> x*y")
