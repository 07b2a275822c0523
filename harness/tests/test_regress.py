"""Regression mode: compare lists changed cases readably; bless rewrites."""

import json
import os
import tempfile
import unittest

import support
from differ import regress


class RegressTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.tmp.name, "results")
        self.expected = os.path.join(self.tmp.name, "expected")
        support.write_results(self.results, flavors=("base", "v3"))

    def tearDown(self):
        self.tmp.cleanup()

    def edit(self, flavor, change):
        path = os.path.join(self.results, flavor + ".json")
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
        change(data)
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(data, stream)

    def test_no_expected_means_bless_first(self):
        report = regress.compare(self.results, self.expected)
        self.assertEqual(sorted(report), ["base", "v3"])
        self.assertIn("run bless", report["v3"][0])

    def test_bless_then_compare_clean(self):
        blessed = regress.bless(self.results, self.expected)
        self.assertEqual(sorted(blessed), ["base", "v3"])
        self.assertIn("new expected file", blessed["v3"][0])
        self.assertEqual(regress.compare(self.results, self.expected), {})

    def test_compare_reads_the_files_already_loaded(self):
        """The report hands compare() its loaded files: their records are
        compared, and the file is not read again."""
        from differ.load import load_flavor
        regress.bless(self.results, self.expected)
        loaded = {f: load_flavor(self.results, f) for f in ("base", "v3")}
        loaded["v3"].data["cases"][0].update(ret=-1, errno="EPERM")
        os.unlink(os.path.join(self.results, "v3.json"))
        os.mkdir(os.path.join(self.results, "v3.json"))   # unreadable now
        report = regress.compare(self.results, self.expected, loaded)
        self.assertEqual(sorted(report), ["v3"])
        self.assertIn("-> EPERM", report["v3"][0])

    def test_an_interrupted_bless_leaves_the_blessed_files_whole(self):
        regress.bless(self.results, self.expected)
        path = os.path.join(self.expected, "v3.json")
        with open(path, encoding="utf-8") as stream:
            before = stream.read()
        self.edit("v3", lambda d: d["cases"][0].update(errno="EPERM"))

        def interrupted(fd):
            raise KeyboardInterrupt

        real = os.fsync
        os.fsync = interrupted
        try:
            with self.assertRaises(KeyboardInterrupt):
                regress.bless(self.results, self.expected)
        finally:
            os.fsync = real
        with open(path, encoding="utf-8") as stream:
            self.assertEqual(stream.read(), before)
        regress.bless(self.results, self.expected)     # the next run recovers
        self.assertEqual(regress.compare(self.results, self.expected), {})

    def test_blessed_file_is_canonical(self):
        regress.bless(self.results, self.expected)
        path = os.path.join(self.expected, "v3.json")
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        self.assertEqual(text, regress.canonical(json.loads(text)))

    def test_changed_case_listed_short(self):
        regress.bless(self.results, self.expected)

        def flip(data):
            case = support.find_case(data, "ps0-own1", "core-B")
            case["ret"], case["errno"] = 0, "0"
        self.edit("v3", flip)
        report = regress.compare(self.results, self.expected)
        self.assertEqual(list(report), ["v3"])
        [line] = report["v3"]
        cid = support.SCENARIOS["core-B"]["id"]
        self.assertEqual(line, "case ps0-own1 %s: EACCES a0 c:ok -> "
                               "ok a0 c:ok" % cid)
        text = regress.format_report(report)
        self.assertIn("v3: 1 change(s)", text)

    def test_removed_and_new_case(self):
        regress.bless(self.results, self.expected)

        def rename(data):
            case = support.find_case(data, "boot", "core-A")
            case["id"] += "-renamed"
        self.edit("base", rename)
        lines = regress.compare(self.results, self.expected)["base"]
        self.assertTrue(any(": removed (was ok a1 c:ok)" in line
                            for line in lines))
        self.assertTrue(any("-renamed: new" in line for line in lines))

    def test_non_case_sections_compared(self):
        regress.bless(self.results, self.expected)
        self.edit("v3", lambda d: d.update(status=1))
        self.assertEqual(regress.compare(self.results, self.expected),
                         {"v3": ["status value: 0 -> 1"]})

    def test_unknown_sections_compared_too(self):
        regress.bless(self.results, self.expected)
        self.edit("v3", lambda d: d.update(extra=[{"type": "bench"}]))
        self.assertEqual(regress.compare(self.results, self.expected),
                         {"v3": ["extra [0].type: (absent) -> bench"]})

    def test_missing_results_flavor(self):
        regress.bless(self.results, self.expected)
        os.remove(os.path.join(self.results, "base.json"))
        report = regress.compare(self.results, self.expected)
        self.assertIn("base.json missing", report["base"][0])

    def test_an_extra_flavor_not_run_is_no_change(self):
        """`make` runs only the default flavors: an extra one's missing
        result is said, not counted as a change."""
        support.write_results(self.results, flavors=("base", "v1-hook61"))
        regress.bless(self.results, self.expected)
        os.remove(os.path.join(self.results, "v1-hook61.json"))
        self.assertEqual(regress.compare(self.results, self.expected), {})
        self.assertEqual(regress.not_run(self.results, self.expected),
                         ["v1-hook61"])
        os.remove(os.path.join(self.results, "base.json"))
        self.assertEqual(list(regress.compare(self.results,
                                              self.expected)), ["base"])

    def test_bless_reports_changes(self):
        regress.bless(self.results, self.expected)
        self.edit("v3", lambda d: d.update(status=1))
        blessed = regress.bless(self.results, self.expected)
        self.assertEqual(blessed["v3"], ["status value: 0 -> 1"])
        self.assertEqual(blessed["base"], [])

    def test_truncated_expected_named(self):
        regress.bless(self.results, self.expected)
        path = os.path.join(self.expected, "v3.json")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write('{"flavor": "v3", "cases": [')
        report = regress.compare(self.results, self.expected)
        self.assertIn(path, report["v3"][0])

    def test_expected_form_is_compact(self):
        regress.bless(self.results, self.expected)
        with open(os.path.join(self.expected, "v3.json"),
                  encoding="utf-8") as stream:
            data = json.load(stream)
        cid = support.SCENARIOS["core-B"]["id"]
        self.assertEqual(data["cases"][cid]["ps0-own1"], "EACCES a0 c:ok")
        self.assertNotIn("params", json.dumps(data["cases"]))

    def test_deterministic(self):
        regress.bless(self.results, self.expected)
        self.edit("v3", lambda d: d["cases"].reverse())
        # Case order is not content: cases are keyed by (setting, id).
        self.assertEqual(regress.compare(self.results, self.expected), {})


if __name__ == "__main__":
    unittest.main()
