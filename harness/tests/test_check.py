"""check: cases, settings labels, interface and suite records."""

import copy
import json
import os
import unittest
from dataclasses import replace

import support
from model import followtest, interface
from model.rule import config_for, predict
from differ.check import Predictions, check_file
from differ.load import load_all, parse

EXPECTED = os.path.join(os.path.dirname(support.HARNESS), "results",
                        "expected")


def checked(flavor, mutate=None):
    data = support.result(flavor)
    if mutate:
        mutate(data)
    return check_file(parse(flavor + ".json", json.dumps(data), flavor))


class SharedPredictionsTest(unittest.TestCase):
    """One Predictions over every flavor and setting answers each case as
    predict() and judge() do under that flavor's own Config."""

    def test_shared_answers_are_each_configs_own(self):
        files, errors = load_all(EXPECTED)
        self.assertFalse(errors)
        self.assertGreater(len(files), 3)
        shared, compared = Predictions(), 0
        for flavor, result in files.items():
            for (setting, cid), case in sorted(result.cases.items())[::13]:
                config = config_for(flavor, result.knobs(setting))
                follow, reason = followtest.judge(case, config)
                alone = replace(predict(case, config), follow_test=follow,
                                not_follow=reason)
                self.assertEqual(shared(case, config), alone,
                                 (flavor, setting, cid))
                compared += 1
        self.assertGreater(compared, 10000)


    def test_shared_columns_check_as_each_file_alone(self):
        """Columns computed for one file and reused for another (the
        same rules and observations) give each file its own answer."""
        files, _ = load_all(EXPECTED)
        # v1 observed otherwise in one case, checked after v1 itself
        v1 = files.pop("v1")
        key = next(k for k, c in sorted(v1.cases.items()) if c["ret"])
        flipped = replace(v1, cases=dict(v1.cases))
        flipped.cases[key] = dict(v1.cases[key], ret=0, errno="0")
        files = {"v1": v1, **files, "flipped": flipped}
        shared = Predictions()
        together = {f: check_file(r, shared) for f, r in files.items()}
        self.assertEqual([(m.setting, m.case_id)
                          for m in together["flipped"].unexplained], [key])
        self.assertLess(len(shared._columns),
                        sum(len(c.settled) for c in together.values()))
        for flavor, result in files.items():
            alone, joint = check_file(result), together[flavor]
            self.assertEqual(dict(alone.predictions), dict(joint.predictions))
            self.assertEqual(alone.settled, joint.settled)
            for name in ("cases", "explained", "controls", "follow_tests",
                         "follow_explained", "not_follow", "artifacts",
                         "unexplained", "control_errors"):
                self.assertEqual(getattr(alone, name), getattr(joint, name),
                                 (flavor, name))


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
        result = checked("v1-hook61", flip)
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


def knobs(flavor, setting):
    return support.knobs(flavor, setting)


class InterfaceTest(unittest.TestCase):

    def test_predict_write(self):
        self.assertEqual(interface.predict_write("1", 0), (True, "0", 1))
        self.assertEqual(interface.predict_write("0\n", 1), (True, "0", 0))
        self.assertEqual(interface.predict_write("2", 0),
                         (False, "EINVAL", 0))
        self.assertEqual(interface.predict_write("-1", 1),
                         (False, "EINVAL", 1))
        self.assertEqual(interface.predict_write("abc", 1),
                         (False, "EINVAL", 1))
        self.assertEqual(interface.predict_write("", 1), (True, "0", 1))
        self.assertEqual(interface.predict_write("1x4096", 0),
                         (False, "EINVAL", 0))

    def test_v1_knob_absent_in_v3(self):
        record = support.sysctl_records("v1")[0]
        problems = interface.check_sysctl("v3", record)
        self.assertIn("present=True, predicted False", problems[0])

    def test_v1_nosec_has_the_file(self):
        record = support.sysctl_records("v1-nosec")[0]
        self.assertEqual(interface.check_sysctl("v1-nosec", record), [])

    def test_write_mismatch(self):
        record = copy.deepcopy(support.sysctl_records("v3")[1])
        record["writes"][2].update(ret=1, errno="0", value_after=2)
        problems = interface.check_sysctl("v3", record)
        self.assertEqual(len(problems), 1)
        self.assertIn("write '2' -> errno 0 value 2, predicted EINVAL",
                      problems[0])

    def test_log_text_of_other_revision(self):
        record = support.log_records("v1")[0]
        problems = interface.check_log("v3", record, knobs("v3", "ps0-own1"))
        self.assertTrue(any("predicted 'non-matching-uid symlink following"
                            " attempted in sticky world-writable" in p
                            for p in problems), problems)

    def test_mainline_denial_is_silent(self):
        record = copy.deepcopy(support.log_records("v3")[0])
        record["setting"] = "ps1-own0"
        record["audit_record"] = support.AUDIT % "stickyprobe"
        problems = interface.check_log("v3", record, knobs("v3", "ps1-own0"))
        self.assertIn("predicted none (denied by mainline", problems[0])

    def test_mainline_denial_is_audited(self):
        record = copy.deepcopy(support.log_records("v3")[2])
        self.assertEqual(record["kind"], "both")
        both = knobs("v3", "ps1-own1")
        self.assertEqual(interface.check_log("v3", record, both), [])
        record["audit_record"] = None
        problems = interface.check_log("v3", record, both)
        self.assertIn("no AUDIT_ANOM_LINK record", problems[0])
        record["audit_record"] = support.AUDIT.replace(
            "fsuid=1001", "fsuid=0") % "stickyboth"
        problems = interface.check_log("v3", record, both)
        self.assertIn("lacks fsuid=1001", problems[0])

    def test_a_message_with_the_wrong_id_fails(self):
        """The probe's ids are all different (uid 1002, euid 0, fsuid 1001,
        link owner 1000): a message naming any but the right one fails."""
        for flavor, wrong in (("v3", "(fsuid 1002)"), ("v1", "(fsuid 0)"),
                              ("yama", "(fsuid 1001 != 1001)"),
                              ("yama", "(fsuid 1002 != 1000)")):
            with self.subTest(flavor=flavor, message=wrong):
                record = copy.deepcopy(support.log_records(flavor)[0])
                self.assertEqual(interface.check_log(
                    flavor, record, knobs(flavor, "ps0-own1")), [])
                text = record["messages"][-1]
                record["messages"][-1] = text[:text.rindex("(")] + wrong
                problems = interface.check_log(flavor, record,
                                               knobs(flavor, "ps0-own1"))
                self.assertIn("predicted", problems[0])

    def test_audit_record_with_the_wrong_uid_fails(self):
        record = copy.deepcopy(support.log_records("v3")[2])
        record["audit_record"] = support.AUDIT.replace(
            " uid=1002 ", " uid=1001 ") % "stickyboth"
        problems = interface.check_log("v3", record,
                                       knobs("v3", "ps1-own1"))
        self.assertIn("lacks uid=1002", problems[0])

    def test_revision_denial_is_not_audited(self):
        record = copy.deepcopy(support.log_records("v3")[0])
        record["audit_record"] = support.AUDIT % "stickyprobe"
        problems = interface.check_log("v3", record, knobs("v3", "ps0-own1"))
        self.assertIn("predicted none (decided by own rule)", problems[0])

    def test_nosec_not_denied(self):
        record = support.log_records("v1")[0]
        problems = interface.check_log("v1-nosec", record,
                                       knobs("v1-nosec", "ps0-own1"))
        self.assertIn("predicted 0/0", problems[0])

    def test_ratelimit(self):
        record = copy.deepcopy(support.log_records("v3")[1])
        text = record["messages"][-1]
        record.update(messages=[text] * 11, received=11)
        problems = interface.check_log("v3", record, knobs("v3", "ps0-own1"))
        self.assertTrue(any("printk_ratelimited" in p for p in problems))
        record.update(messages=[text] * 10, received=10)
        self.assertEqual(interface.check_log("v3", record,
                                             knobs("v3", "ps0-own1")), [])


if __name__ == "__main__":
    unittest.main()
