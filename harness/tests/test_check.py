"""check: cases, settings labels, interface and suite records."""

import copy
import json
import unittest

import support
from stickydiff import interface
from stickydiff.check import check_file
from stickydiff.load import parse


def checked(flavor, mutate=None):
    data = support.result(flavor)
    if mutate:
        mutate(data)
    return check_file(parse(flavor + ".json", json.dumps(data), flavor))


class CheckTest(unittest.TestCase):

    def test_all_fixtures_explained(self):
        for flavor in support.FLAVORS:
            result = checked(flavor)
            self.assertTrue(result.ok, (flavor, result.unexplained,
                                        result.interface, result.settings))

    def test_mismatch_is_unexplained_and_readable(self):
        def flip(data):
            case = support.find_case(data, "ps0-own1", "inter-B")
            case["ret"], case["errno"] = 0, "0"
        result = checked("v3", flip)
        self.assertFalse(result.ok)
        [mismatch] = result.unexplained
        text = mismatch.describe()
        self.assertIn("observed ok", text)
        self.assertIn("predicted EACCES (atime kept) by own rule", text)
        self.assertIn(support.SCENARIOS["inter-B"]["id"], text)

    def test_atime_mismatch_counts(self):
        def flip(data):
            case = support.find_case(data, "ps0-own1", "core-B")
            case["atime_changed"] = False
        result = checked("v1", flip)
        self.assertEqual(len(result.unexplained), 1)

    def test_unmeasured_atime_is_not_compared(self):
        def blank(data):
            support.find_case(data, "ps0-own1", "core-B")[
                "atime_changed"] = None
        self.assertTrue(checked("v1", blank).ok)

    def test_setting_label_vs_knobs(self):
        def wrong(data):
            data["settings"]["ps1-own1"]["weak_sticky_symlinks"] = 1
        result = checked("v1", wrong)
        self.assertTrue(any("ps1-own1" in p for p in result.settings))

    def test_suite_errors_fail(self):
        def err(data):
            data["errors"].append({"id": "x", "reason": "lstat failed"})
            data["status"] = 1
        result = checked("base", err)
        self.assertEqual(len(result.suite), 2)
        self.assertFalse(result.ok)

    def test_boot_facts(self):
        def wrong(data):
            data["facts"]["knobs"]["protected_sticky_symlinks"] = 1
        result = checked("v3", wrong)
        self.assertTrue(any("facts" in p for p in result.interface))


class InterfaceTest(unittest.TestCase):

    def test_predict_write(self):
        self.assertEqual(interface.predict_write("1\n", 0), (True, "0", 1))
        self.assertEqual(interface.predict_write("2", 0),
                         (False, "EINVAL", 0))
        self.assertEqual(interface.predict_write("-1", 1),
                         (False, "EINVAL", 1))
        self.assertEqual(interface.predict_write("yes", 1),
                         (False, "EINVAL", 1))

    def test_v1_knob_absent_in_v3(self):
        record = support.sysctl_records("v1")[1]
        problems = interface.check_sysctl("v3", record)
        self.assertIn("present=True, predicted False", problems[0])

    def test_v1_nosec_has_the_file(self):
        record = support.sysctl_records("v1-nosec")[1]
        self.assertEqual(interface.check_sysctl("v1-nosec", record), [])

    def test_log_text_of_other_revision(self):
        record = support.log_record("v1")
        problems = interface.check_log("v3", record)
        self.assertTrue(any("predicted 'non-matching-uid symlink following"
                            " attempted in sticky world-writable" in p
                            for p in problems), problems)

    def test_nosec_and_base_print_nothing(self):
        record = support.log_record("v1")
        self.assertTrue(interface.check_log("v1-nosec", record))
        self.assertTrue(interface.check_log("base", record))

    def test_ratelimit(self):
        record = copy.deepcopy(support.log_record("v3"))
        record.update(kind="burst", denials=50,
                      messages=record["messages"] * 11, received=11)
        self.assertTrue(any("ratelimited" in p
                            for p in interface.check_log("v3", record)))
        record.update(messages=record["messages"][:10], received=10)
        record["messages"].append("may_follow: 40 callbacks suppressed")
        self.assertEqual(interface.check_log("v3", record), [])


if __name__ == "__main__":
    unittest.main()
