"""A figure a run did not measure comes from the last measurement, dated,
never as '(not run)'."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from experiments import beyond  # noqa: E402

PREVIOUS = """<!-- generated -->

## The /tmp symlink attack, run for real

old attack table

## What the check costs

| op | ratio |
| --- | --- |
| stat | 1.02 |
"""


class LastMeasuredTest(unittest.TestCase):
    def test_a_section_not_run_comes_from_the_last_measurement(self):
        got = beyond.last_measured(['## What the check costs', '',
                                    beyond.NOT_RUN, ''], PREVIOUS,
                                   'blessed 2026-12-03')
        self.assertEqual(got[0], '## What the check costs')
        self.assertIn('*Not measured in this run: the last measurement, '
                      'blessed 2026-12-03.*', got)
        self.assertIn('| stat | 1.02 |', got)
        self.assertNotIn(beyond.NOT_RUN, got)

    def test_a_measured_section_stays_as_measured(self):
        fresh = ['## The /tmp symlink attack, run for real', '', 'new', '']
        self.assertEqual(beyond.last_measured(fresh, PREVIOUS, 'x'), fresh)

    def test_a_measured_section_says_when_and_on_what(self):
        fresh = ['## The /tmp symlink attack, run for real', '', 'new', '']
        got = beyond.stamped(fresh, {'date': '2026-12-06',
                                     'commit': 'abc1234'})
        self.assertEqual(got[:3], [fresh[0], '', '*Measured 2026-12-06 at'
                                   ' commit abc1234.*'])
        self.assertEqual(got[3:], fresh[1:])
        self.assertEqual(beyond.stamped(fresh, None), fresh)
        unmeasured = ['## What the check costs', '', beyond.NOT_RUN, '']
        self.assertEqual(beyond.stamped(unmeasured, {'date': 'd',
                                                     'commit': 'c'}),
                         unmeasured)

    def test_nothing_to_fall_back_on(self):
        section = ['## Per-user /tmp instead of a kernel patch', '',
                   beyond.NOT_RUN, '']
        self.assertEqual(beyond.last_measured(section, PREVIOUS, 'x'),
                         section)
        self.assertEqual(beyond.last_measured(section, None, 'x'), section)


if __name__ == '__main__':
    unittest.main()
