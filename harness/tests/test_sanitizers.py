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
        bad, notes = sanitizers.problems(sanitizers.reports(CONSOLE))
        self.assertEqual(notes, [])
        self.assertEqual(len(bad), 4)
        self.assertIn('kasan report on the console: "BUG: KASAN: '
                      'use-after-free in sticky_planted_run', bad[0])
        self.assertIn('ubsan report', bad[1])

    def test_kcsan_fails_only_races_the_reference_did_not_show(self):
        found = sanitizers.reports(CONSOLE)
        bad, _ = sanitizers.problems(found, {'data-race in dput / step_into'})
        self.assertEqual(len(bad), 3)
        self.assertIn('KCSAN: a data race the reference did not show under '
                      'the same load: "data-race in sticky_planted_run / '
                      'sticky_planted_run"', bad[2])
        self.assertNotIn('dput', ' '.join(bad))

    def test_a_new_race_outside_the_patches_is_listed_not_failed(self):
        found = sanitizers.reports(CONSOLE)
        bad, notes = sanitizers.problems(found, set(),
                                         {'sticky_planted_run'})
        self.assertEqual(len(bad), 3)     # KASAN, UBSAN, the planted race
        self.assertIn('sticky_planted_run / sticky_planted_run', bad[2])
        self.assertEqual(len(notes), 1)
        self.assertIn('"data-race in dput / step_into"', notes[0])
        bad, notes = sanitizers.problems(found, set(), {'step_into'})
        self.assertIn('dput / step_into', bad[-1])

    def test_touched_functions_of_a_patch(self):
        import tempfile
        patch = '''@@ -1,3 +1,9 @@ static const char *pick_link(struct nameidata *nd,
+static inline int may_follow_sticky_link(struct nameidata *nd,
+					 struct inode *inode)
+{
+	pr_notice("x");
+	return 0;
+}
'''
        with tempfile.NamedTemporaryFile('w', suffix='.patch') as f:
            f.write(patch)
            f.flush()
            got = sanitizers.touched_functions([f.name])
        self.assertTrue({'pick_link', 'may_follow_sticky_link'} <= got, got)

    def test_a_clean_console_has_nothing(self):
        self.assertEqual(sanitizers.reports('[ 1.0] Run /init\nok 1 x\n'),
                         [])


if __name__ == '__main__':
    unittest.main()
