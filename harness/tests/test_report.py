"""The report: one Document, rendered to HTML (checked with html.parser)
and Markdown; story first; every claim drillable to its cases."""

import os
import re
import tempfile
import unittest
from html.parser import HTMLParser

import support
from differ import causes
from report import doc
from report import render_html
from report import pairs
from report import render_md
from report import build as report
from differ.analysis import analyse
from model.cases import CaseIdError, split_id

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"}
PAGE_LINK = re.compile(r"^(report(?:-[\w-]+)?\.html)#(.+)$")


class Structure(HTMLParser):
    """Checks nesting and collects what the tests assert on."""

    def __init__(self, page="report.html"):
        super().__init__()
        self.page = page
        self.stack, self.errors = [], []
        self.tags, self.ids, self.hrefs = {}, [], []
        self.links = []             # [(page, anchor)] of internal links
        self.external = []
        self.repository = []        # links to files of the repository
        self.order = []             # ids of sections and the verdict
        self.details = []           # [(summary text, [hrefs inside])]
        self.case_rows = []         # [[hrefs of one row of a cases table]]
        self._summary = None
        self._details = []
        self._table_css = []
        self._row = None

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.append(attrs["id"])
        href = attrs.get("href")
        other = PAGE_LINK.match(href or "")
        if other:
            href = "#" + other.group(2)
        if href is not None:
            if href.startswith("#"):
                self.hrefs.append(href[1:])
                self.links.append((other.group(1) if other else self.page,
                                   href[1:]))
                for frame in self._details:
                    frame.append(href[1:])
                if self._row is not None:
                    self._row.append(href[1:])
            elif "://" in href or href.startswith(("/", "//")):
                self.external.append((tag, href))
            else:
                self.repository.append(href)
        if tag in ("script", "iframe", "img", "link") or "src" in attrs:
            self.external.append((tag, attrs))
        if tag == "section" or "verdict" in attrs.get("class", ""):
            self.order.append(attrs.get("id") or attrs["class"])
        if tag == "details":
            self._details.append([])
        if tag == "summary":
            self._summary = ""
        if tag == "table":
            self._table_css.append(attrs.get("class", ""))
        if tag == "tr" and self._table_css and self._table_css[-1] == \
                "cases":
            self._row, self._data_row = [], False
        if tag == "td" and self._row is not None:
            self._data_row = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s> with open %r"
                               % (tag, self.stack[-3:]))
            return
        self.stack.pop()
        if tag == "summary":
            self._summary_done = self._summary
            self._summary = None
        if tag == "details":
            self.details.append((self._summary_done, self._details.pop()))
        if tag == "table":
            self._table_css.pop()
        if tag == "tr" and self._row is not None:
            if self._data_row:          # header rows have no case
                self.case_rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._summary is not None:
            self._summary += data


def parse_html(text, page="report.html"):
    parser = Structure(page)
    parser.feed(text)
    parser.close()
    return parser


class ReportTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        results = support.write_results(os.path.join(cls.tmp.name, "r"))
        rdiff = os.path.join(cls.tmp.name, "range-diff")
        os.mkdir(rdiff)
        with open(os.path.join(rdiff, "v1..v2.txt"), "w",
                  encoding="utf-8") as stream:
            stream.write("1:  abc ! 1:  def fs: <sticky> & symlinks\n")
        cls.analysis = analyse(results, rdiff)
        cls.analysis.sections = [("beyond.md", "<!-- generated -->\n"
                                  "## The attack\n\n| a | b |\n|---|---|\n"
                                  "| 1 | 2 |\n"),
                                 ("shapes.md", "## Shapes the suite's trees "
                                  "do not make: mount roots\n")]
        cls.document = report.build(cls.analysis)
        cls.pages = render_html.pages(cls.document)
        cls.html = cls.pages["report.html"]
        cls.md_pages = render_md.pages(cls.document)
        cls.md = cls.md_pages["report.md"]
        cls.parsed = parse_html(cls.html)
        cls.parsed_pages = {name: parse_html(text, name)
                            for name, text in cls.pages.items()}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def groups(self):
        for pair_diff in self.analysis.diffs:
            for group in (list(pair_diff.differ.values())
                          + list(pair_diff.same_outcome.values())):
                yield pair_diff, group

    def test_well_nested_and_self_contained(self):
        self.assertEqual(self.parsed.errors, [])
        self.assertEqual(self.parsed.stack, [])
        self.assertTrue(self.html.startswith("<!DOCTYPE html>"))
        self.assertEqual(self.parsed.external, [])
        self.assertEqual(self.parsed.tags.get("style"), 1)
        self.assertNotIn("script", self.parsed.tags)

    def test_story_first(self):
        order = self.parsed.order
        self.assertEqual(order[:2], ["story", "verdict ok"])
        expected = ["grid", "glossary", "rule", "changes", "causes",
                    "pairs", "model"]
        self.assertEqual([o for o in order if o in expected], expected)
        first_pair = min(i for i, o in enumerate(order)
                         if o.startswith("pair-"))
        self.assertGreater(first_pair, order.index("pairs"))
        self.assertLess(first_pair, order.index("model"))

    def test_pairs_point_at_the_shapes_that_differ_by_construction(self):
        anchor = "shapes-the-suites-trees-do-not-make-mount-roots"
        self.assertIn(anchor, self.parsed.hrefs)
        pairs = self.md.split("## Pairwise differences")[1][:1500]
        self.assertIn("[Shapes the suite's trees do not make: mount roots]"
                      "(#%s)" % anchor, pairs)

    def test_every_link_has_a_target(self):
        """On every page, each link to an anchor of any page."""
        ids = set()
        for name, parsed in self.parsed_pages.items():
            self.assertEqual(len(set(parsed.ids)), len(parsed.ids),
                             "duplicate ids in %s" % name)
            ids |= {(name, i) for i in parsed.ids}
        links = {link for p in self.parsed_pages.values()
                 for link in p.links}
        self.assertEqual(sorted(links - ids), [])
        self.assertIn(("report-cases.html", "case-m.d1777-root.lA.tfile-root"
                       ".fB.trail.open_rdonly"), links)

    def test_every_group_lists_all_its_cases(self):
        """The sample on the report's page, every case on the pairs'
        page, behind a link from the group."""
        every = self.pages["report-pairs.html"]
        seen = listed = shared = 0
        for pair_diff, group in self.groups():
            wanted = {doc.case_anchor(r.case_id) for r in group.members}
            if len(group.ordered) > len(group.rows):
                same = group in pair_diff.same_outcome.values()
                anchor = pairs.group_anchor(pair_diff.pair, group, same)
                self.assertIn(("report-pairs.html", anchor),
                              self.parsed.links)
                body = self.section_body(every, anchor)
                same_as = re.search(r'The same [\d,]+ cases, settings and'
                                    r' outcomes[^<]* as <a href="#(all-'
                                    r'[^"]+)"', body)
                if same_as:     # one table for two pairs observed alike
                    body = self.section_body(every, same_as.group(1))
                    self.assertNotIn("The same", body)
                    shared += 1
                self.assertLessEqual(wanted, set(re.findall(
                    r'href="report-cases.html#([^"]+)"', body)),
                                     group.cause)
                listed += 1
            else:
                self.assertLessEqual(wanted, set(self.parsed.hrefs))
            seen += 1
        self.assertGreater(seen, 5)
        self.assertGreater(listed, 0)
        self.assertGreater(shared, 0)   # the fixture has pairs alike

    @staticmethod
    def section_body(page, anchor):
        return re.search(r'<section id="%s">(.*?)</section>'
                         % re.escape(anchor), page, re.S).group(1)

    def test_the_report_page_is_light(self):
        """The case lists and views live on pages of their own."""
        self.assertNotIn('<details class="case"', self.html)
        self.assertIn('<details class="case"', self.pages[
            "report-cases.html"])
        self.assertEqual(set(self.pages), {"report.html", "report-cases.html",
                                           "report-pairs.html"})

    def test_every_case_row_has_a_case_id(self):
        self.assertGreater(len(self.parsed.case_rows), 20)
        for row in self.parsed.case_rows:
            self.assertTrue(row and row[0].startswith("case-"), row)

    def test_every_named_case_has_a_view_with_each_flavor(self):
        cases = self.parsed_pages["report-cases.html"]
        views = [i for i in cases.ids if i.startswith("case-")]
        named = {h for p in self.parsed_pages.values() for h in p.hrefs
                 if h.startswith("case-")}
        self.assertEqual(set(views), named)
        view = re.search(r'<details class="case" id="case-m.d1777-root'
                         r'.lA.tfile-root.fB.trail.open_rdonly" open>'
                         r'(.*?)</details>', self.pages["report-cases.html"],
                         re.S).group(1)
        for flavor in support.FLAVORS:
            self.assertIn("<td>%s</td>" % flavor, view)
        self.assertIn("v1 rule @1", view)       # inferred: decider, link
        self.assertIn('class="mark inferred"', view)
        self.assertIn('class="mark observed"', view)

    def test_every_case_view_reproduces_and_names_its_pairs(self):
        cases = self.pages["report-cases.html"]
        views = dict(re.findall(r'<details class="case" id="([^"]+)" open>'
                                r'(.*?)</details>', cases, re.S))
        self.assertTrue(views)
        naming = {}
        for pair_diff, group in self.groups():
            for row in group.members:
                naming.setdefault(doc.case_anchor(row.case_id), set()).add(
                    "#" + pairs.pair_anchor(pair_diff.pair))
        scripts = 0
        for anchor, view in views.items():
            cid = re.search(r"<summary><code>(.*?)</code>", view).group(1)
            name = "report-repro/%s.sh" % anchor
            try:
                split_id(cid)
            except CaseIdError:     # the fixtures' older ids: no script
                self.assertNotIn(name, self.document.files)
                continue
            self.assertIn('href="%s"' % name, view)
            script = self.document.files[name]
            self.assertTrue(script.startswith("#!/bin/sh"))
            self.assertIn("#   %s\n" % cid, script)
            self.assertIn("# What each flavor returned:", script)
            self.assertIn("sticky.py repro %s --setting" % cid, view)
            scripts += 1
            self.assertLessEqual(
                {"report.html" + h for h in naming.get(anchor, ())},
                set(re.findall(r'href="(report.html#pair-[^"]+)"', view)),
                cid)
        self.assertTrue(any("report.html#pair-" in v for v in
                            views.values()))
        self.assertGreater(scripts, 5)

    def test_every_cause_in_the_legend(self):
        ids = set(self.parsed.ids)
        for _pair_diff, group in self.groups():
            for label in group.causes:
                self.assertIn(label, causes.CAUSES)
                self.assertIn(doc.anchor_of("cause", label), ids)
        for name in causes.CAUSES:
            self.assertIn(doc.anchor_of("cause", name), ids)

    def test_core_matrix_covers_intermediate_links(self):
        table = re.search(r'<p class="caption">Core matrix.*?'
                          r'<table class="matrix">(.*?)</table>', self.html,
                          re.S).group(1)
        self.assertIn("inter. B", table)
        # v1 refuses B's intermediate follow at ps0-own1, base never.
        rows = re.findall(r"<tr><td>(\S+)</td><td><code>(\S+)</code></td>"
                          r"(.*?)</tr>", table)
        cells = {(f, s): re.findall(r'class="(\w+)', rest)
                 for f, s, rest in rows}
        self.assertEqual(cells[("v1", "ps0-own1")][-1], "deny")
        self.assertEqual(cells[("base", "ps1-own-")][-1], "allow")
        self.assertEqual(cells[("base", "ps1-own-")][2], "deny")

    def test_inline_svgs(self):
        """The rule, the heatmap and the attack's four panels."""
        self.assertEqual(self.parsed.tags.get("svg"), 6)
        self.assertIn("<title>Share of link follows refused", self.html)
        self.assertIn('aria-label="The /tmp race of 2010', self.html)

    def test_glossary_explains_every_setting(self):
        glossary = re.search(r'<section id="glossary">(.*?)</section>',
                             self.html, re.S).group(1)
        for flavor in support.FLAVORS:
            for setting in support.settings_of(flavor):
                self.assertIn("<code>%s</code>" % setting, glossary)

    def test_markdown_has_the_same_story(self):
        heads = [line for line in self.md.splitlines()
                 if line.startswith("## ")]
        titles = ["The 2010 story"] + [s.title for s in
                                       self.document.sections if not s.page]
        self.assertEqual([h[3:].split(" <a id=")[0] for h in heads],
                         titles)
        self.assertIn("\n> **Verdict: OK**", self.md)
        every = "".join(self.md_pages.values())
        for _pair_diff, group in self.groups():
            for row in group.members:
                self.assertIn("(report-cases.md#%s)"
                              % doc.case_anchor(row.case_id), every)
        self.assertIn("fs: <sticky> & symlinks", self.md)
        self.assertNotIn("<!-- generated -->", self.md)

    def test_range_diff_escaped_and_section_embedded(self):
        self.assertIn("fs: &lt;sticky&gt; &amp; symlinks", self.html)
        self.assertIn('<section id="the-attack"><h2>The attack</h2>',
                      self.html)
        self.assertNotIn("generated", self.html)

    def test_what_changed_names_patch_lines(self):
        changes = re.search(r'<section id="changes">(.*?)</section>',
                            self.html, re.S).group(1)
        # The postings come from the flavors' revisions, in their order.
        self.assertIn("<th>change</th><th>v1 (patch line)</th>"
                      "<th>v3 (patch line)</th>", changes)
        self.assertRegex(changes, r"v1/\S+\.patch:\d+")
        self.assertRegex(changes, r"v3/\S+\.patch:\d+")
        self.assertIn('href="#pair-v1_vs_v1-nosec"', changes)


class FailVerdictTest(unittest.TestCase):

    def test_fail_verdict_first(self):
        def flip(flavor, data):
            if flavor == "v3y":
                case = support.find_case(data, "boot", "inter-B")
                case["ret"], case["errno"] = 0, "0"
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, mutate=flip)
            html = render_html.render(report.build(analyse(tmp)))
        self.assertEqual(parse_html(html).order[:2],
                         ["story", "verdict fail"])
        self.assertIn("Verdict: FAIL", html)


class TableTest(unittest.TestCase):
    def test_a_row_of_the_wrong_width_is_refused(self):
        doc.Table(["a", "b"], [["1", "2"], ["3", "4"]])
        with self.assertRaises(ValueError) as cm:
            doc.Table(["a", "b", "c"], [["1", "2", "3"], ["4", "5"]])
        self.assertIn("row 1 has 2 cell(s), the header 3", str(cm.exception))


class BackEndTest(unittest.TestCase):
    """Both back ends render every node type."""

    DOC = doc.Document("T", [doc.Callout([doc.Para(["v"])], "verdict ok")],
                       [doc.Section("S", "s", [
                           doc.Para(["a ", doc.Code("c|d"), doc.Strong("b"),
                                     doc.Em("e"), doc.Link("l", "s"),
                                     doc.Mark("observed")]),
                           doc.Bullets([["x"], ["y"]]),
                           doc.Table(["h1", "h2"], [[doc.Cell("1", "deny",
                                                              "t1"), "2"]],
                                     caption="cap"),
                           doc.Figure("<svg></svg>", "fig",
                                      [doc.Para(["fallback"])]),
                           doc.Pre("x < y"),
                           doc.Markdown("## M\n\ntext"),
                           doc.Details(["more"], [doc.Para(["inner"])],
                                       "d1")])])

    def test_html(self):
        html = render_html.render(self.DOC)
        parsed = parse_html(html)
        self.assertEqual(parsed.errors, [])
        for piece in ('<td class="deny" id="t1">1</td>', "<svg></svg>",
                      "<pre>x &lt; y</pre>", '<a href="#s">l</a>',
                      '<span class="mark observed">observed</span>',
                      '<details id="d1"><summary>more</summary>',
                      "<h3>M</h3>", '<p class="caption">cap</p>'):
            self.assertIn(piece, html)

    def test_markdown(self):
        md = render_md.render(self.DOC)
        for piece in ("> v", "`c|d`**b***e*[l](#s)*(observed)*",
                      '| <a id="t1"></a>1 | 2 |', "fallback", "```\nx < y",
                      '<details id="d1"><summary>more</summary>',
                      "## M", "## S <a id=\"s\"></a>", "- x"):
            self.assertIn(piece, md)
        self.assertNotIn("<svg>", md)


if __name__ == "__main__":
    unittest.main()
