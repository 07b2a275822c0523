"""The command line: exit codes and readable output."""

import io
import os
import tempfile
import unittest

import support
from stickydiff.cli import main


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

    def tearDown(self):
        self.tmp.cleanup()

    def test_no_results_is_not_a_failure(self):
        code, text = run("check", "--results", self.results)
        self.assertEqual(code, 0)
        self.assertIn("no result files", text)

    def test_report_without_results_says_so(self):
        code, text = run("report", "--results", self.results, "--out",
                         self.out)
        self.assertEqual(code, 0)
        self.assertIn("verdict: NO RESULTS", text)

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
        self.assertIn("v1 vs v1-nosec: 5/65 differ (config dependence 5)",
                      text)
        code, text = run("report", "--results", self.results, "--out",
                         self.out, "--range-diff",
                         os.path.join(self.tmp.name, "absent.txt"))
        self.assertEqual(code, 0)
        for name in ("report.md", "report.html"):
            self.assertIn(os.path.join(self.out, name), text)
            self.assertTrue(os.path.exists(os.path.join(self.out, name)))
        self.assertLess(len(text.splitlines()), 40)

    def test_compare_and_bless(self):
        support.write_results(self.results, flavors=("v3",))
        code, text = run("compare", "--results", self.results,
                         "--expected", self.expected)
        self.assertEqual(code, 1)
        self.assertIn("run bless", text)
        code, text = run("bless", "--results", self.results,
                         "--expected", self.expected)
        self.assertEqual(code, 0)
        self.assertIn("blessed v3", text)
        code, text = run("compare", "--results", self.results,
                         "--expected", self.expected)
        self.assertEqual(code, 0, text)


if __name__ == "__main__":
    unittest.main()
