"""The sanitizers' reports on a console, judged."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from experiments import sanitizers  # noqa: E402

CONSOLE = """\
[    1.000000] Run /init as init process
[    2.100000] ==================================================================
[    2.100001] BUG: KASAN: use-after-free in sticky_planted_run+0x8b/0x120
[    2.100002] Read of size 4 at addr ffff888003a1c2e0 by task sh/71
[    3.000000] UBSAN: shift-out-of-bounds in fs/sticky_planted.c:36:10
[    4.000000] BUG: KCSAN: data-race in sticky_planted_run / sticky_planted_run
[    4.500000] BUG: KCSAN: data-race in dput / step_into
[    4.600000] BUG: KCSAN: data-race in dput / step_into
"""


class TestReports(unittest.TestCase):
    def test_each_report_once_with_its_kind(self):
        found = sanitizers.reports(CONSOLE)
        self.assertEqual([k for k, _ in found],
                         ['kasan', 'ubsan', 'kcsan', 'kcsan'])
        self.assertEqual(found[0][1], 'BUG: KASAN: use-after-free in '
                         'sticky_planted_run+0x8b/0x120')

    def test_races_are_titles(self):
        self.assertEqual(sanitizers.kcsan_races(sanitizers.reports(CONSOLE)),
                         ['data-race in dput / step_into',
                          'data-race in sticky_planted_run / '
                          'sticky_planted_run'])

    def test_without_kcsan_every_report_fails_quoted(self):
        bad = sanitizers.problems(sanitizers.reports(CONSOLE))
        self.assertEqual(len(bad), 4)
        self.assertIn('kasan report on the console: "BUG: KASAN: '
                      'use-after-free in sticky_planted_run', bad[0])
        self.assertIn('ubsan report', bad[1])

    def test_kcsan_fails_only_races_the_reference_did_not_show(self):
        found = sanitizers.reports(CONSOLE)
        bad = sanitizers.problems(found, {'data-race in dput / step_into'})
        self.assertEqual(len(bad), 3)
        self.assertIn('KCSAN: a data race the reference did not show under '
                      'the same load: "data-race in sticky_planted_run / '
                      'sticky_planted_run"', bad[2])
        self.assertNotIn('dput', ' '.join(bad))

    def test_a_clean_console_has_nothing(self):
        self.assertEqual(sanitizers.reports('[ 1.0] Run /init\nok 1 x\n'),
                         [])


if __name__ == '__main__':
    unittest.main()
