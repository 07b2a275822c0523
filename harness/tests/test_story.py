"""The story's data (harness/lineage.ini, harness/debate.ini): every
name it cites exists, and each position's evidence is drawn from the
analysis, not written down."""

import os
import re
import tempfile
import unittest

import support
from differ.analysis import analyse
from differ.diff import PAIRS
from model.cases import case_ids, split_id
from model.flavors import FLAVORS
from report import debate, doc
from report.build import build
from report.render_html import pages

TOP = os.path.dirname(support.HARNESS)
DISCUSSION = os.path.join(TOP, "docs", "lkml-discussion.md")
RESULTS = os.path.join(TOP, "results")


def headings(path):
    with open(path, encoding="utf-8") as stream:
        return {doc.slug(line.lstrip("#")) for line in stream
                if line.startswith("#")}


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(text)
    return path


class StoryDataTest(unittest.TestCase):

    def test_every_name_the_story_cites_exists(self):
        fragments = headings(DISCUSSION)
        embedded = set()
        for name in ("beyond.md", "race.md", "shapes.md"):
            embedded |= headings(os.path.join(RESULTS, name))
        titles = {p.title for p in PAIRS}
        ids = set(case_ids())
        for name, step in debate.lineage():
            self.assertIn(step["doc"], fragments, name)
            for flavor in step["columns"].split():
                self.assertIn(flavor, FLAVORS, name)
        for name, pos in debate.positions():
            self.assertIn(pos["doc"], fragments, name)
            for kind, words in pos["items"]:
                if kind == "pair":
                    self.assertIn(words, titles, name)
                elif kind == "case":
                    flavor, _setting, cid = words.split()
                    self.assertIn(flavor, FLAVORS, name)
                    split_id(cid)
                    self.assertIn(cid, ids, name)
                else:
                    self.assertIn(words.split()[0], embedded, name)

    def test_a_malformed_evidence_line_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = write(tmp, "debate.ini", "[X]\nsaid = s\nworry = w\n"
                         "meant = m\ndoc = d\nevidence =\n"
                         "    quote something\n")
            with self.assertRaises(debate.StoryError) as cm:
                debate.positions(path)
            self.assertIn("evidence 'quote something' is not one of pair,"
                          " case, see", str(cm.exception))
            path = write(tmp, "lineage.ini", "[v9]\nwhen = 2010\n")
            with self.assertRaises(debate.StoryError) as cm:
                debate.lineage(path)
            self.assertIn("[v9]: missing who", str(cm.exception))


class StoryEvidenceTest(unittest.TestCase):
    """The evidence cells come from the results: a flipped outcome shows
    in the story."""

    POSITION = [("P", {"said": "s", "worry": "w", "meant": "m", "doc": "d",
                       "items": [("case", "v1 ps0-own1 m/d1777-root/lA/"
                                  "tfile-root/fB/trail/open_rdonly"),
                                 ("pair", "v1 vs v1-nosec")]})]

    def evidence_text(self, mutate=None):
        with tempfile.TemporaryDirectory() as tmp:
            analysis = analyse(support.write_results(tmp, mutate=mutate))
        shown = set()
        table = debate.debate(analysis, shown, self.POSITION)
        return doc.plain(table.rows[0][2]), shown

    def test_outcome_and_counts_are_the_analysis(self):
        text, shown = self.evidence_text()
        self.assertIn("trail/open_rdonly: EACCES", text)
        self.assertRegex(text, r"v1 vs v1-nosec: \d+ of \d+ cases differ")
        self.assertIn("m/d1777-root/lA/tfile-root/fB/trail/open_rdonly",
                      shown)

        def flip(flavor, data):
            if flavor == "v1":
                case = support.find_case(data, "ps0-own1", "core-B")
                case["ret"], case["errno"] = 0, "0"
        flipped, _ = self.evidence_text(flip)
        self.assertIn("trail/open_rdonly: ok", flipped)

    def test_story_comes_before_the_verdict(self):
        with tempfile.TemporaryDirectory() as tmp:
            analysis = analyse(support.write_results(tmp))
        html = pages(build(analysis))["report.html"]
        story = html.index('<section id="story">')
        self.assertLess(story, html.index('class="verdict'))
        for words in ("Root is not exempt", "The rule", "The argument",
                      "lkml-discussion.md#4-biederman"):
            self.assertIn(words, html[story:html.index('class="verdict')])
        self.assertTrue(re.search(r"Eric Biederman.*Alan Cox.*Ted Ts&#x27;o",
                                  html, re.S))


if __name__ == "__main__":
    unittest.main()
