"""The report's inline SVG pictures without a browser: well-formed XML,
no text below pictures.MIN_FONT, and the sizes that follow the text
(test_screenshot measures them rendered)."""

import unittest
import xml.etree.ElementTree as ET

import support  # noqa: F401  (puts harness/ on sys.path)
from report import pictures

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
