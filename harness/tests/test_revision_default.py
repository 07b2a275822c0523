"""revision.ini's `default`: the knob's boot value, checked against every
flavor's boot_knobs."""

import os
import sys
import unittest
from dataclasses import replace

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import flavors as flv  # noqa: E402
from stages import HarnessError  # noqa: E402


class DefaultTest(unittest.TestCase):
    def setUp(self):
        self.all = flv.load()

    def test_the_revisions_say_what_the_flavors_boot_with(self):
        v1, v3, yama = (self.all[n].rule for n in ('v1', 'v3', 'yama'))
        self.assertEqual(v1.boot_value([]), 0)       # weak=0: protected
        self.assertEqual(v3.boot_value([]), 0)
        self.assertEqual(v3.boot_value(['CONFIG_PROTECTED_STICKY_SYMLINKS=y']),
                         1)
        self.assertEqual(yama.boot_value([]), 1)

    def test_a_contradicting_flavor_is_refused(self):
        v3y = self.all['v3y']
        flv.check_default('flavors.ini', 'v3y', v3y.rule,
                          flv.common_config() + v3y.config, v3y.boot_knobs)
        with self.assertRaises(HarnessError) as cm:
            flv.check_default('flavors.ini', 'v3y', v3y.rule,
                              flv.common_config(), v3y.boot_knobs)
        self.assertIn('boot_knobs says protected_sticky_symlinks=1, but '
                      'v3/revision.ini says default = '
                      'CONFIG_PROTECTED_STICKY_SYMLINKS (boot value 0',
                      str(cm.exception))

    def test_no_default_says_nothing(self):
        rule = replace(self.all['v1'].rule, default='')
        self.assertIsNone(rule.boot_value([]))
        flv.check_default('f', 'v1', rule, [], {rule.knob: '1'})


if __name__ == '__main__':
    unittest.main()
