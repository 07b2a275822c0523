"""The log probes as one printk_ratelimited() interval: the message count
of each probe and the release's "N callbacks suppressed", predicted from
the model and never from the counts observed (model/ratelimit.py)."""

import copy
import json
import unittest

import support
from model import ratelimit
from differ.check import check_file
from differ.load import parse


def problems(flavor, records, knobs_flavor=None):
    return ratelimit.check_ratelimit(
        flavor, records,
        lambda s: support.knobs(knobs_flavor or flavor, s))


def kind(records, name):
    return next(r for r in records if r["kind"] == name)


def changed(flavor, probe, **fields):
    """The hand-written records of a flavor with one probe's fields set."""
    records = copy.deepcopy(support.log_records(flavor))
    kind(records, probe).update(fields)
    return records


class RatelimitTest(unittest.TestCase):
    def test_hand_written_records_pass(self):
        for flavor in support.FLAVORS:
            with self.subTest(flavor=flavor):
                self.assertEqual(problems(flavor, support.log_records(flavor)),
                                 [])

    def test_101_denials_10_messages_91_suppressed(self):
        records = {r["kind"]: r for r in support.log_records("v3")}
        want, missed = ratelimit.expected(
            "v3", records, lambda s: support.knobs("v3", s))
        self.assertEqual(want, {"single": 1, "burst": 9, "both": 0})
        self.assertEqual(missed, 91)

    def test_a_rule_before_mainline_logs_both_and_suppresses_92(self):
        # v3's first port ran before may_follow_link(): 'both' reaches it
        records = {r["kind"]: r for r in support.log_records("v3")}
        want, missed = ratelimit.expected(
            "v3y-dlock", records, lambda s: support.knobs("v3y", s))
        self.assertEqual((want["both"], missed), (0, 92))

    def test_a_wrong_count_in_the_report_fails(self):
        found = problems("v1", changed("v1", "release", suppressed=[
            "cap_inode_follow_link: 90 callbacks suppressed"]))
        self.assertEqual(len(found), 1, found)
        self.assertIn("predicted '<function>: 91 callbacks suppressed'",
                      found[0])

    def test_no_report_fails(self):
        records = changed("yama", "release", suppressed=[])
        self.assertIn("ratelimit report []", problems("yama", records)[0])

    def test_a_second_report_fails(self):
        records = copy.deepcopy(support.log_records("v3"))
        kind(records, "release")["suppressed"].append(
            "kauditd_printk_skb: 3 callbacks suppressed")
        self.assertEqual(len(problems("v3", records)), 1)

    def test_no_release_record_fails(self):
        records = [r for r in support.log_records("v3")
                   if r["kind"] != "release"]
        self.assertIn("no release record", problems("v3", records)[0])

    def test_a_report_inside_the_interval_fails(self):
        found = problems("v3", changed("v3", "single", suppressed=[
            "may_follow_sticky_link: 4 callbacks suppressed"]))
        self.assertEqual(len(found), 1, found)
        self.assertIn("called before the single probe", found[0])

    def test_an_unlimited_burst_fails(self):
        # plain pr_notice(): 100 messages, no report
        records = changed("v3", "release", suppressed=[])
        burst = kind(records, "burst")
        burst["messages"] = burst["messages"][:1] + \
            [burst["messages"][1]] * 100
        found = problems("v3", records)
        self.assertEqual(len(found), 2, found)
        self.assertIn("log burst: 100 message(s), predicted 9", found[0])

    def test_a_lost_release_message_fails(self):
        records = changed("v3", "release",
                          messages=["random: crng init done"])
        self.assertIn("log release: 0 message(s)",
                      problems("v3", records)[0])

    def test_no_message_predicted_needs_no_release(self):
        for flavor in ("base", "v1-nosec"):
            with self.subTest(flavor=flavor):
                records = [r for r in support.log_records(flavor)
                           if r["kind"] != "release"]
                self.assertEqual(problems(flavor, records), [])

    def test_check_file_reports_it(self):
        data = support.result("v3")
        kind(data["log"], "release")["suppressed"] = []
        out = check_file(parse("v3.json", json.dumps(data), "v3"))
        self.assertTrue(any("ratelimit report" in p for p in out.interface),
                        out.interface)


if __name__ == "__main__":
    unittest.main()
