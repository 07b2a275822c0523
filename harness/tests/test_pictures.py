"""The report's inline SVG pictures without a browser: well-formed XML,
the attack picture's labels, no text below pictures.MIN_FONT, and the
sizes that follow the text (test_screenshot measures them rendered)."""

import re
import unittest
import xml.etree.ElementTree as ET

import support  # noqa: F401  (puts harness/ on sys.path)
from report import doc
from report import pictures
from report import render_html
from report import render_md

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg", root.tag
    return root


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def font_sizes(root):
    """The font size of every <text>, inherited from the <svg> when the
    text names none."""
    default = float(root.get("font-size"))
    return [float(t.get("font-size", default))
            for t in root.iter(SVG + "text")]


def size(root):
    return int(root.get("width")), int(root.get("height"))


class AttackFigureTest(unittest.TestCase):

    def setUp(self):
        self.figure = pictures.attack_figure()
        box = ET.fromstring(self.figure.svg)
        self.panels = [child for child in box]
        self.labels = [label for root in self.panels
                       for label in texts(root)]
        self.words = " ".join(self.labels)

    def test_a_complete_figure(self):
        self.assertIsInstance(self.figure, doc.Figure)
        self.assertTrue(self.figure.svg.startswith('<div class="panels"'))
        self.assertEqual([p.tag for p in self.panels],
                         [SVG + "svg"] * len(pictures.ATTACK_STEPS))
        self.assertIn("/tmp race", doc.plain(self.figure.caption))
        self.assertTrue(self.figure.fallback)

    def test_no_script_no_outside_reference(self):
        svg = self.figure.svg
        self.assertNotIn("<script", svg)
        self.assertNotRegex(svg, r"(href|src)=")
        for ref in re.findall(r"url\(#([\w-]+)\)", svg):
            self.assertIn('id="%s"' % ref, svg)

    def test_the_story_in_its_labels(self):
        for step, *_ in pictures.ATTACK_STEPS:
            self.assertIn(step, self.words)
        for word in ("/tmp/report.txt", "/etc/shadow", "uid 1000",
                     "ln -s /etc/shadow /tmp/report.txt", "O_WRONLY|O_CREAT",
                     "EACCES", "sticky", "world-writable", "Root is not"
                     " exempt", "points to", "root writes"):
            self.assertIn(word, self.words)

    def test_text_at_least_min_font(self):
        self.assertGreaterEqual(min(s for root in self.panels
                                    for s in font_sizes(root)),
                                pictures.MIN_FONT)

    def test_fits_a_phone_and_four_fit_the_page(self):
        """Each panel drawn at its own size, no wider than a 390-px
        phone's page; four side by side in the report's column (1,120
        px at 1280 px)."""
        widths = []
        for root in self.panels:
            width, _ = size(root)
            self.assertLessEqual(width, pictures.PHONE_WIDTH)
            self.assertEqual(root.get("viewBox"), "0 0 %d %d" % size(root))
            widths.append(width)
        self.assertLessEqual(sum(widths) + 8 * (len(widths) - 1), 1120)

    def test_lines_wrapped_to_the_picture(self):
        for root in self.panels:
            width, _ = size(root)
            for text in root.iter(SVG + "text"):
                mono = text.get("font-family") == "monospace"
                bold = text.get("font-weight") == "bold"
                if text.get("text-anchor") == "middle":
                    continue
                right = float(text.get("x")) + pictures.text_width(
                    "".join(text.itertext()), float(text.get("font-size")),
                    bold, mono)
                self.assertLessEqual(right, width,
                                     "".join(text.itertext()))

    def test_html_and_markdown(self):
        document = doc.Document("t", blocks=[self.figure])
        self.assertIn('<figure><div class="panels"',
                      render_html.render(document))
        markdown = render_md.render(document)
        self.assertNotIn("<svg", markdown)
        for word in ("EACCES", "/tmp/report.txt", "/etc/shadow",
                     "uid 1000", "Root is not exempt"):
            self.assertIn(word, markdown)


class TextLayoutTest(unittest.TestCase):

    def test_wrap_keeps_every_word_within_the_width(self):
        text = ("every link, own knob; after mainline's check, before"
                " nosymfollow and touch_atime(), where 2010's hook ran")
        for width in (120, 200, 340):
            lines = pictures.wrap(text, 12, width)
            self.assertEqual(" ".join(lines), text)
            for line in lines:
                self.assertLessEqual(pictures.text_width(line, 12), width)

    def test_a_word_longer_than_the_width_is_broken(self):
        lines = pictures.wrap("a" * 40, 12, 60)
        self.assertEqual("".join(lines), "a" * 40)
        self.assertGreater(len(lines), 1)

    def test_bold_and_wide_letters_are_wider(self):
        self.assertGreater(pictures.text_width("abc", 12, bold=True),
                           pictures.text_width("abc", 12))
        self.assertGreater(pictures.text_width("mmm", 12),
                           pictures.text_width("iii", 12))


class RuleAndHeatmapTest(unittest.TestCase):

    def heat(self, positions):
        data = pictures.Heat()
        data.rows = [("v1", "ps0-own1"), ("v1", "ps1-own1"),
                     ("v3", "ps0-own0")]
        data.positions = positions
        for row in data.rows:
            for position in positions:
                data.counts[(row, position)] = [1, 2]
        return data

    def test_rule_wraps_to_a_phone(self):
        root = parse(pictures.rule_svg(["v1", "v1-nosec", "v3", "v3y",
                                        "yama", "v1-hook61"]))
        self.assertLessEqual(size(root)[0], pictures.PHONE_WIDTH)
        self.assertGreaterEqual(min(font_sizes(root)), pictures.MIN_FONT)
        words = " ".join(texts(root))
        self.assertIn("2010's hook ran", words)
        self.assertIn("v1-hook61: the sticky rule", words)

    def test_heatmap_makes_room_for_its_labels(self):
        short = parse(pictures.heatmap_svg(self.heat(["a", "b"])))
        long = parse(pictures.heatmap_svg(self.heat(
            ["a", "a-much-longer-position-name"])))
        self.assertGreaterEqual(min(font_sizes(short)), pictures.MIN_FONT)
        self.assertGreater(size(long)[0], size(short)[0])
        self.assertGreater(size(long)[1], size(short)[1])
        self.assertIn("v1  ps0-own1", texts(short))
        self.assertIn("  ps1-own1", texts(short))
        self.assertIn("50%", texts(short))


if __name__ == "__main__":
    unittest.main()
