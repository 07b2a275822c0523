"""sticky.py stress: judging the guest's stress record."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from experiments import stress  # noqa: E402


def record(**kw):
    rec = {'type': 'stress', 'seconds': 20.0, 'follow_ops': 100,
           'follow_ops_per_s': 5.0, 'ops': 500, 'ops_per_s': 25.0,
           'stuck': 0, 'failed_workers': 0,
           'results': {'ok': 60, 'EACCES': 20, 'ENOENT': 20},
           'mutator_ops': {'rename': 1, 'dir-rename': 1, 'chmod': 1,
                           'lchown': 1, 'knob': 1},
           'knobs': ['protected_symlinks'], 'bad': 0, 'bad_examples': [],
           'window_ms': 0, 'guarded': {'judged': 40, 'bypasses': 0,
                                       'examples': []}}
    rec.update(kw)
    return [{'type': 'facts'}, rec, {'type': 'end', 'status': 0}]


class TestCheckRecord(unittest.TestCase):
    def test_clean_record_passes(self):
        rec, bad = stress.check_record(record())
        self.assertEqual(bad, [])
        self.assertEqual(rec['ops_per_s'], 25.0)

    def test_each_fault_is_named(self):
        cases = [
            ({'bad': 1, 'bad_examples': ['uid 0 x: Interrupted']},
             'illegitimate result(s), e.g. uid 0 x: Interrupted'),
            ({'stuck': 2}, '2 worker(s) did not stop'),
            ({'failed_workers': 1}, '1 worker(s) failed'),
            ({'follow_ops': 0}, 'did not follow a single link'),
            ({'mutator_ops': {'rename': 0, 'knob': 3}},
             'made no call: rename'),
        ]
        for change, text in cases:
            with self.subTest(change=change):
                _, bad = stress.check_record(record(**change))
                self.assertTrue(any(text in b for b in bad), bad)

    def test_bypass_fails_a_walk_rule_and_no_rule(self):
        rec = record(guarded={'judged': 40, 'bypasses': 2, 'examples': [
            'uid 0 open-guarded-trailing /tmp/stress/p/p1 followed']})
        for directory in ('walk', ''):
            with self.subTest(directory=directory):
                _, bad = stress.check_record(rec, directory)
                self.assertTrue(any('2 bypass(es) in 40' in b and
                                    'p/p1' in b for b in bad), bad)
        _, bad = stress.check_record(rec, 'parent')
        self.assertEqual(bad, [])

    def test_window_must_show_a_parent_rule_bypassed(self):
        _, bad = stress.check_record(record(), 'parent', window=True)
        self.assertTrue(any('the oracle missed them' in b for b in bad), bad)
        _, bad = stress.check_record(record(), 'walk', window=True)
        self.assertEqual(bad, [])

    def test_an_oracle_that_judged_nothing_fails(self):
        for guarded in (None, {'judged': 0, 'bypasses': 0}):
            with self.subTest(guarded=guarded):
                _, bad = stress.check_record(record(guarded=guarded))
                self.assertTrue(any('guarded' in b or 'judged' in b
                                    for b in bad), bad)

    def test_job_passes_the_flavors_knob_as_data(self):
        class Rule:
            knob_path = '/proc/sys/fs/weak-sticky-symlinks'
            protect = 0
            links = 'every'

        class Flavor:
            rule, compiled = Rule(), True

        class Args:
            seconds, followers, window_ms, plant = 5.0, 1, 20, 0

        self.assertEqual(stress.job(Args(), Flavor())[-4:], [
            '-k', '/proc/sys/fs/weak-sticky-symlinks=0:every', '-w', '20'])
        Args.plant = 1
        sh = stress.job(Args(), Flavor())
        self.assertEqual(sh[:2], ['/bin/sh', '-c'])
        self.assertTrue(sh[2].startswith(
            'echo 1 > /proc/sys/fs/sticky-planted-defect; exec /bin/stress '),
            sh[2])

    def test_missing_or_doubled_record(self):
        _, bad = stress.check_record([{'type': 'facts'}])
        self.assertIn('0 stress records', bad[0])
        recs = record()
        _, bad = stress.check_record(recs + recs[1:2])
        self.assertIn('2 stress records', bad[0])


if __name__ == '__main__':
    unittest.main()
