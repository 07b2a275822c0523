"""The v2 demonstration: its fixture and its comparison (no kernel needed)."""

import json
import os
import re
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import flavors
import v2_demo


def added_lines(path):
    with open(path, encoding="utf-8") as stream:
        return [line for line in stream if line.startswith("+")
                and not line.startswith("+++")]


class FixtureTest(unittest.TestCase):

    def test_v2_flavor_has_v1_configuration(self):
        v2 = flavors.load(v2_demo.FLAVORS_V2)["v2"]
        v1 = flavors.load()["v1"]
        self.assertEqual(v2.series, "v2")
        for name in ("config", "knob", "protect", "boot_knobs"):
            self.assertEqual(getattr(v2, name), getattr(v1, name), name)

    def test_series_names_v1s_patches(self):
        patches = flavors.series_patches("v2", v2_demo.FIXTURES)
        v1 = flavors.series_patches("v1", v2_demo.TOP)
        self.assertEqual([os.path.basename(p) for p in patches],
                         [os.path.basename(p) for p in v1])

    def test_patch_is_v1_without_the_s_islnk_test(self):
        v2 = flavors.series_patches("v2", v2_demo.FIXTURES)[-1]
        v1 = flavors.series_patches("v1", v2_demo.TOP)[-1]
        old, new = added_lines(v1), added_lines(v2)
        self.assertTrue(any("S_ISLNK" in line for line in old))
        self.assertFalse(any("S_ISLNK" in line for line in new))
        dropped = [line for line in old if line not in new]
        self.assertEqual(len(dropped), 2, dropped)   # the if line, reflowed
        with open(v2, encoding="utf-8") as stream:
            self.assertIn("Subject: [PATCH v2 2/2]", stream.read())

    def test_no_host_names_in_the_fixture(self):
        for name in os.listdir(os.path.join(v2_demo.FIXTURES, "v2")):
            with open(os.path.join(v2_demo.FIXTURES, "v2", name),
                      encoding="utf-8") as stream:
                text = stream.read()
            self.assertIsNone(re.search(r"https?://|www\.", text), name)


class CompareTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def pair(self, mutate=None):
        paths = []
        for name in ("v1", "v2"):
            data = support.result("v1")
            data["flavor"] = name
            if mutate and name == "v2":
                mutate(data)
            path = os.path.join(self.tmp.name, name + ".json")
            with open(path, "w", encoding="utf-8") as stream:
                json.dump(data, stream)
            paths.append(path)
        return v2_demo.compare(*v2_demo.load_pair(*paths))

    def failures(self, checks):
        return [text for _, ok, text in checks if not ok]

    def test_identical_files_pass(self):
        checks = self.pair()
        self.assertEqual(self.failures(checks), [])
        self.assertTrue(any(kind == "case" for kind, _, _ in checks))

    def test_a_changed_errno_names_the_case(self):
        def change(data):
            data["cases"][0]["errno"] = "EPERM"
            data["cases"][0]["ret"] = -1
        failed = self.failures(self.pair(change))
        self.assertEqual(len(failed), 2, failed)     # the case and the model
        self.assertIn("errno", failed[0])

    def test_burst_counts_within_the_ratelimit_are_equal(self):
        def change(data):
            burst = data["log"][1]
            burst["messages"].append(burst["messages"][-1])
            burst["received"] += 1
            burst["total_messages"] += 1
        self.assertEqual(self.failures(self.pair(change)), [])

    def test_a_changed_sysctl_record_fails(self):
        def change(data):
            data["sysctl"][0]["mode"] = "0600"
        failed = self.failures(self.pair(change))
        self.assertTrue(any(t.startswith("sysctl records") for t in failed))

    def test_a_missing_case_fails(self):
        def change(data):
            del data["cases"][-1]
        failed = self.failures(self.pair(change))
        self.assertTrue(any("only in v1" in t for t in failed), failed)


if __name__ == "__main__":
    unittest.main()
