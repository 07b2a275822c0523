"""Malformed input: each problem is a clear error naming file and case."""

import json
import os
import tempfile
import unittest

import support
from differ import diff
from differ import load
from differ.analysis import analyse
from differ.load import LoadError


class LoadTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, flavor, text):
        path = os.path.join(self.dir, flavor + ".json")
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text)
        return path

    def test_good_file_loads(self):
        path = self.write("v3", json.dumps(support.result("v3")))
        result = load.load(path, "v3")
        self.assertEqual(result.flavor, "v3")
        self.assertEqual(len(result.cases), 5 * len(support.SCENARIOS))

    def test_select_keeps_order_and_follows_the_cases(self):
        path = self.write("v3", json.dumps(support.result("v3")))
        result = load.load(path, "v3")

        def trailing(params):
            return params["position"] == "trailing"
        want = [(k, c) for k, c in result.cases.items()
                if c["params"]["position"] == "trailing"]
        self.assertTrue(0 < len(want) < len(result.cases))
        self.assertEqual(result.select(trailing), want)
        self.assertIs(result.select(trailing), result.select(trailing))
        key = next(k for k, _ in want)
        del result.cases[key]
        self.assertEqual(result.select(trailing), want[1:])

    def test_compact_files_expand_sorted_by_setting_then_id(self):
        from model import cases as caseids
        ids = sorted(list(caseids.case_ids(quick=True))[:40:8])
        data = {"cases": {cid: {"ps1": "ok a0 c:ok", "boot": "EACCES a0 c:ok"}
                          for cid in reversed(ids)}}
        got = [(c["setting"], c["id"]) for c in caseids.expand(data)["cases"]]
        self.assertEqual(got, [("boot", cid) for cid in ids]
                         + [("ps1", cid) for cid in ids])

    def test_truncated_json_names_file(self):
        text = json.dumps(support.result("v1"))
        path = self.write("v1", text[:len(text) // 2])
        with self.assertRaises(LoadError) as err:
            load.load(path, "v1")
        self.assertIn(path, str(err.exception))
        self.assertIn("truncated", str(err.exception))

    def test_missing_file_names_file(self):
        with self.assertRaises(LoadError) as err:
            load.load_flavor(self.dir, "v3y")
        self.assertIn(os.path.join(self.dir, "v3y.json"), str(err.exception))

    def test_case_without_errno_names_case(self):
        data = support.result("base")
        del support.find_case(data, "ps1-own-", "core-B")["errno"]
        path = self.write("base", json.dumps(data))
        with self.assertRaises(LoadError) as err:
            load.load(path, "base")
        message = str(err.exception)
        self.assertIn(path, message)
        self.assertIn("ps1-own- " + support.SCENARIOS["core-B"]["id"],
                      message)
        self.assertIn("errno", message)

    def test_bad_link_kind_names_case(self):
        data = support.result("v3")
        case = support.find_case(data, "boot", "inter-B")
        case["params"]["links"][0]["kind"] = "middle"
        path = self.write("v3", json.dumps(data))
        with self.assertRaisesRegex(LoadError, "links\\[0\\].kind"):
            load.load(path, "v3")

    def test_duplicate_case(self):
        data = support.result("v3")
        data["cases"].append(dict(data["cases"][0]))
        path = self.write("v3", json.dumps(data))
        with self.assertRaisesRegex(LoadError, "duplicate case"):
            load.load(path, "v3")

    def test_flavor_mismatch(self):
        path = self.write("v3", json.dumps(support.result("v3y")))
        with self.assertRaisesRegex(LoadError, "file says flavor 'v3y'"):
            load.load(path, "v3")

    def test_missing_flavor_skips_its_pairs(self):
        support.write_results(self.dir, flavors=("v1", "base"))
        analysis = analyse(self.dir)
        by_title = {d.pair.title: d for d in analysis.diffs}
        self.assertIn("v3", by_title["v1 vs v3 at boot defaults"].missing)
        self.assertIsNone(by_title["v1 vs base"].missing)
        self.assertIn(os.path.join(self.dir, "v3.json"), analysis.missing)

    def test_case_in_one_file_only(self):
        def drop(flavor, data):
            if flavor == "v3":
                data["cases"].remove(support.find_case(data, "boot",
                                                       "core-A"))
        support.write_results(self.dir, flavors=("v1", "v3"), mutate=drop)
        files, errors = load.load_all(self.dir)
        self.assertEqual(errors, [])
        with self.assertRaises(diff.JoinError) as err:
            diff.diff_pair(next(p for p in diff.PAIRS if p.title ==
                                "v1 vs v3 at boot defaults"), files)
        message = str(err.exception)
        self.assertIn(support.SCENARIOS["core-A"]["id"], message)
        self.assertIn(os.path.join(self.dir, "v1.json") + " only", message)
        # the analysis (its pairs shared with the report's child) names
        # the pair and says why, as diffing every pair in one process does
        analysis = analyse(self.dir)
        self.assertEqual(analysis.join_errors, support.every_pair(files)[1])
        self.assertIn("v1 vs v3 at boot defaults: " + message,
                      analysis.join_errors)
        self.assertEqual(analysis.verdict, "FAIL")


if __name__ == "__main__":
    unittest.main()
