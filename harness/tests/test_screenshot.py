"""The report as a browser shows it: headless Chromium screenshots at
desktop and phone width, read back with the standard library.

The first screen must show the verdict box whole (its green frame on both
sides), at either width.  Set STICKYDIFF_SCREENSHOT to a directory to keep
the pictures.  Skipped where /usr/bin/chromium is not installed.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

import pngread
import support
from report import render_html
from report import build as report
from differ.analysis import analyse

CHROMIUM = "/usr/bin/chromium"
TOP = os.path.dirname(support.HARNESS)
EXPECTED = os.path.join(TOP, "results", "expected")
FRAME = (0x17, 0x6b, 0x12)          # .verdict border (OK)
FILL = (0xe5, 0xf5, 0xe1)           # .verdict background (OK)
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def screenshot(page, width, height, directory):
    shot = os.path.join(directory, "shot-%d.png" % width)
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--hide-scrollbars",
         "--user-data-dir=" + os.path.join(directory, "profile-%d" % width),
         "--window-size=%d,%d" % (width, height), "--screenshot=" + shot,
         "file://" + page],
        check=True, timeout=180, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    return shot


def near(pixel, colour, slack=12):
    return all(abs(a - b) <= slack for a, b in zip(pixel, colour))


def verdict_rows(image):
    """Rows of the first screen where the verdict box's fill shows."""
    return [y for y in range(image.height)
            if sum(near(image.pixel(x, y), FILL)
                   for x in range(0, image.width, 4)) > image.width // 16]


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
        cls.page = os.path.join(cls.tmp.name, "report.html")
        with open(cls.page, "w", encoding="utf-8") as stream:
            stream.write(render_html.render(report.build(analyse(source))))

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
        rows = verdict_rows(image)
        self.assertTrue(rows, "%s: no verdict box on the first screen"
                        % name)
        self.assertLess(rows[0], height // 3, name)
        middle = rows[len(rows) // 2]
        frame = [x for x in range(width)
                 if near(image.pixel(x, middle), FRAME, 40)]
        self.assertTrue(frame and frame[0] < width // 8,
                        "%s: verdict box's left frame not on screen" % name)
        self.assertTrue(frame[-1] > width - width // 8,
                        "%s: verdict box's right frame not on screen"
                        % name)

    def test_desktop(self):
        self.check_first_screen("desktop")

    def test_phone(self):
        self.check_first_screen("phone")


if __name__ == "__main__":
    unittest.main()
