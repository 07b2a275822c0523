"""The report as a browser shows it: headless Chromium screenshots at
desktop and phone width, read back with the standard library, and the
page's layout measured by a script in a copy of it.

The story comes first: the first screen shows the attack picture (the
attacker's panel, in pixels), whole on a desktop, where the thread's
positions end within the first two screens, before the verdict.  At
either width the page must not scroll
sideways (a wide table, pre or picture scrolls in its own box), no text in
a picture may render smaller than 11 px, and none may lie outside its
picture.  Set STICKYDIFF_SCREENSHOT to a directory to keep the pictures.
Skipped where /usr/bin/chromium is not installed.
"""

import html
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import pngread
import support
from report import doc
from report import pictures
from report import render_html
from report import build as report
from differ.analysis import analyse

CHROMIUM = "/usr/bin/chromium"
TOP = os.path.dirname(support.HARNESS)
EXPECTED = os.path.join(TOP, "results", "expected")
PLANTED = (0xf6, 0xe7, 0xc8)        # the attacker's panel of the attack
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
MIN_TEXT_PX = 11
SECTIONS = ("beyond.md", "race.md", "shapes.md")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


def chromium(directory, name, width, height, *args, stdout=None):
    return subprocess.run(
        [CHROMIUM] + FLAGS + [
            "--user-data-dir=" + os.path.join(directory, "profile-" + name),
            "--window-size=%d,%d" % (width, height)] + list(args),
        check=True, timeout=300, stdout=stdout or subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def screenshot(page, width, height, directory):
    shot = os.path.join(directory, "shot-%d.png" % width)
    chromium(directory, str(width), width, height, "--screenshot=" + shot,
             "file://" + page)
    return shot


# Run in a copy of a page once it has loaded; the report itself carries
# no script.  Finds: the document's scroll width, the outermost elements
# that stick out of the viewport with no scrolling box around them, and
# for every <text> of an <svg> its rendered size (font size times the
# scale of its screen transformation) and whether its box lies inside its
# picture's.  Headless Chromium lays a window out at least 500 px wide, so
# each copy runs in an <iframe> of the asked width and posts its findings
# to the page around it, which --dump-dom prints: one run for all pages.
MEASURE = """
addEventListener("load", function () {
  var root = document.documentElement, view = root.clientWidth, out = {
    name: %s, scrollWidth: root.scrollWidth, viewport: view, wide: [],
    texts: []};
  function name(el) {
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.getAttribute("class") ? "." + el.getAttribute("class") : "");
  }
  function walk(el) {
    for (var c = el.firstElementChild; c; c = c.nextElementSibling) {
      if (!c.getClientRects().length) continue;     // not rendered
      var r = c.getBoundingClientRect();
      if (r.width && (r.right > view + 0.5 || r.left < -0.5)) {
        out.wide.push({element: name(c), left: Math.round(r.left),
                       right: Math.round(r.right)});
        continue;
      }
      var o = getComputedStyle(c).overflowX;
      if (o !== "auto" && o !== "scroll" && o !== "hidden") walk(c);
    }
  }
  walk(document.body);
  out.marks = {};
  ["#story", ".panels", "table.debate", ".verdict"].forEach(function (s) {
    var el = document.querySelector(s);
    if (!el) return;
    var r = el.getBoundingClientRect();
    out.marks[s] = {top: Math.round(r.top + scrollY),
                    bottom: Math.round(r.bottom + scrollY)};
  });
  var texts = document.querySelectorAll("svg text");
  for (var j = 0; j < texts.length; j++) {
    var t = texts[j], svg = t.ownerSVGElement, m = t.getScreenCTM();
    while (svg.ownerSVGElement) svg = svg.ownerSVGElement;
    var b = t.getBoundingClientRect(), s = svg.getBoundingClientRect();
    var title = svg.querySelector("title");
    out.texts.push({text: t.textContent.trim().slice(0, 60),
      picture: (title ? title.textContent : "").trim().slice(0, 60),
      size: Math.round(parseFloat(getComputedStyle(t).fontSize) *
                       Math.sqrt(m.a * m.a + m.b * m.b) * 100) / 100,
      outside: b.left < s.left - 0.5 || b.right > s.right + 0.5 ||
        b.top < s.top - 0.5 || b.bottom > s.bottom + 0.5});
  }
  parent.postMessage(JSON.stringify(out), "*");
});
"""
IFRAME = ('<iframe src="%s" width="%d" height="%d"'
          ' style="border:0;display:block"></iframe>')
FRAME_PAGE = """<!DOCTYPE html><html><body style="margin:0">
%s
<script>
addEventListener("message", function (event) {
  var pre = document.createElement("pre");
  pre.className = "measured";
  pre.textContent = event.data;
  document.body.appendChild(pre);
});
</script></body></html>
"""


def measure_pages(pages, width, height, directory):
    """{name: what MEASURE finds} for pages ({name: HTML text}), each laid
    out width x height, in one Chromium run.  A finding is a dict of
    scrollWidth, viewport (the width the page was laid out in), wide
    (outermost elements out of the viewport with no scrolling box around
    them) and texts (size, outside, text, picture) of its SVG <text>."""
    frames = []
    for name, text in pages.items():
        copy = os.path.join(directory, "measure-%s-%d.html" % (name, width))
        at = text.rfind("</body>")
        at = len(text) if at < 0 else at
        with open(copy, "w", encoding="utf-8") as stream:
            stream.write(text[:at] + "<script>%s</script>\n"
                         % (MEASURE % json.dumps(name)) + text[at:])
        frames.append(IFRAME % (html.escape(os.path.basename(copy)),
                                width, height))
    frame = os.path.join(directory, "frame-%d.html" % width)
    with open(frame, "w", encoding="utf-8") as stream:
        stream.write(FRAME_PAGE % "\n".join(frames))
    done = chromium(directory, "measure-%d" % width, max(width, 500),
                    height, "--virtual-time-budget=20000", "--dump-dom",
                    "file://" + frame, stdout=subprocess.PIPE)
    found = {}
    for text in re.findall(r'<pre class="measured">(.*?)</pre>',
                           done.stdout.decode("utf-8", "replace"), re.S):
        one = json.loads(html.unescape(text))
        found[one["name"]] = one
    missing = set(pages) - set(found)
    if missing:
        raise AssertionError("at %d px the measuring script left no"
                             " findings for %s" % (width, sorted(missing)))
    return found


def too_small(found):
    return [t for t in found["texts"] if t["size"] < MIN_TEXT_PX]


def outside(found):
    return [t for t in found["texts"] if t["outside"]]


# Everything the measuring script must report, at phone width: a table
# 900 px wide outside any scrolling box, a 6-px text, a text shrunk below
# 11 px with its picture, and a label that runs out of its picture.
BAD_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>bad</title></head><body>
<table id="too-wide"><tr><td><div style="width:900px">900 px</div></td>
</tr></table>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">
<title>tiny</title><text x="4" y="20" font-size="6">six px</text></svg>
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 40"
 style="width:100%;height:auto"><title>shrunk</title>
<text x="4" y="20" font-size="12">shrinks with the page</text></svg>
<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40">
<title>cut</title>
<text x="60" y="20" font-size="12">a label cut at the edge</text></svg>
</body></html>
"""


def committed_sections():
    """[(path, text)] of the Markdown files `make report` embeds (diff.mk's
    STICKYDIFF_SECTIONS): their tables are part of the page too."""
    out = []
    for name in SECTIONS:
        path = os.path.join(TOP, "results", name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as stream:
                out.append((path, stream.read()))
    return out


def pictures_page():
    """The pictures the report may show that it does not yet."""
    document = doc.Document("Pictures")
    document.blocks.append(pictures.attack_figure())
    return render_html.render(document)


def near(pixel, colour, slack=12):
    return all(abs(a - b) <= slack for a, b in zip(pixel, colour))


def colour_rows(image, colour):
    """Rows of a screenshot where `colour` fills a visible share."""
    return [y for y in range(image.height)
            if sum(near(image.pixel(x, y), colour)
                   for x in range(0, image.width, 4)) > image.width // 64]


@unittest.skipUnless(os.path.exists(CHROMIUM),
                     "no %s (Debian package chromium): the report was not"
                     " looked at in a browser" % CHROMIUM)
class ScreenshotTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        source = (EXPECTED if os.path.exists(os.path.join(EXPECTED,
                                                          "v1.json"))
                  else support.write_results(os.path.join(cls.tmp.name,
                                                          "r")))
        analysis = analyse(source)
        analysis.sections = committed_sections()
        cls.pages = render_html.pages(report.build(analysis))
        cls.page = os.path.join(cls.tmp.name, "report.html")
        with open(cls.page, "w", encoding="utf-8") as stream:
            stream.write(cls.pages["report.html"])
        cls.found = {}

    def measured(self, name):
        """The findings of the report's pages, the pictures and (at phone
        width) the bad page, measured once per width."""
        if name not in self.found:
            width, height = SIZES[name]
            pages = dict(self.pages, pictures=pictures_page())
            if name == "phone":
                pages["bad"] = BAD_PAGE
            self.found[name] = measure_pages(pages, width, height,
                                             self.tmp.name)
        return self.found[name]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def check_first_screen(self, name):
        width, height = SIZES[name]
        shot = screenshot(self.page, width, height, self.tmp.name)
        keep = os.environ.get("STICKYDIFF_SCREENSHOT")
        if keep:
            os.makedirs(keep, exist_ok=True)
            shutil.copy(shot, os.path.join(keep, "report-%s.png" % name))
        image = pngread.read(shot)
        self.assertEqual((image.width, image.height), (width, height))
        self.assertTrue(colour_rows(image, PLANTED), "%s: the attacker's"
                        " panel is not on the first screen" % name)
        marks = self.measured(name)["report.html"]["marks"]
        self.assertLess(marks["#story"]["top"], height // 3, name)
        self.assertLess(marks[".panels"]["top"], height, name)
        self.assertLess(marks["table.debate"]["bottom"],
                        marks[".verdict"]["top"], "%s: the verdict before"
                        " the story's end" % name)
        if name == "desktop":
            self.assertLessEqual(marks[".panels"]["bottom"], height,
                                 "desktop: the attack not whole on the"
                                 " first screen: %s" % marks)
            self.assertLessEqual(marks["table.debate"]["bottom"], 2 * height,
                                 "desktop: the positions end below the"
                                 " second screen: %s" % marks)

    def test_desktop(self):
        self.check_first_screen("desktop")

    def test_phone(self):
        self.check_first_screen("phone")

    def check_no_sideways_scroll(self, name):
        width = SIZES[name][0]
        for page in list(self.pages) + ["pictures"]:
            found = self.measured(name)[page]
            self.assertEqual(found["viewport"], width,
                             "%s: %s not laid out %d px wide"
                             % (name, page, width))
            self.assertLessEqual(
                found["scrollWidth"], width,
                "%s: the %s is %d px wide; out of the viewport with no"
                " scrolling box: %s" % (name, page, found["scrollWidth"],
                                        found["wide"][:5]))
            if found["wide"]:
                self.fail("%s: out of the %s's viewport with no scrolling"
                          " box: %s" % (name, page, found["wide"][:5]))

    def check_picture_text(self, name):
        texts = 0
        for page in list(self.pages) + ["pictures"]:
            found = self.measured(name)[page]
            texts += len(found["texts"])
            small = too_small(found)
            if small:
                self.fail("%s: %d text(s) of the %s's pictures below %d px,"
                          " e.g. %s" % (name, len(small), page, MIN_TEXT_PX,
                                        small[:3]))
            out = outside(found)
            if out:
                self.fail("%s: %d label(s) of the %s's pictures outside"
                          " their picture: %s" % (name, len(out), page,
                                                  out[:3]))
        self.assertGreater(texts, len(self.measured(name)["pictures"]
                                      ["texts"]),
                           "%s: no SVG text in the report" % name)

    def test_desktop_no_sideways_scroll(self):
        self.check_no_sideways_scroll("desktop")

    def test_phone_no_sideways_scroll(self):
        self.check_no_sideways_scroll("phone")

    def test_desktop_picture_text(self):
        self.check_picture_text("desktop")

    def test_phone_picture_text(self):
        self.check_picture_text("phone")

    def test_the_measuring_finds_a_bad_page(self):
        """Each finding the tests above assert on can be made: the bad
        page has them all."""
        found = self.measured("phone")["bad"]
        self.assertEqual(found["viewport"], SIZES["phone"][0])
        self.assertGreater(found["scrollWidth"], 900)
        self.assertIn("table#too-wide", [w["element"]
                                         for w in found["wide"]])
        small = {t["text"]: t["size"] for t in too_small(found)}
        self.assertEqual(set(small), {"six px", "shrinks with the page"})
        self.assertAlmostEqual(small["six px"], 6, delta=0.1)
        self.assertEqual([(t["picture"], t["text"])
                          for t in outside(found)],
                         [("cut", "a label cut at the edge")])


if __name__ == "__main__":
    unittest.main()
