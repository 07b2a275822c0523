"""The data keys that stack test patches on a flavor (`also`) and say which
directory a rule judges (`directory`, revision.ini or the flavor)."""

import os
import shutil
import tempfile
import unittest

import support
import flavors as flv
import revision as rev_mod
from stages import HarnessError



class RevisionDirectoryTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.top)
        os.makedirs(os.path.join(self.top, 'r'))

    def load(self, hook, extra=''):
        with open(os.path.join(self.top, 'r', 'revision.ini'), 'w',
                  encoding='utf-8') as f:
            f.write(support.REVISION_INI.format(hook=hook, extra=extra))
        return rev_mod.load('r', self.top)

    def test_defaults_follow_what_the_placement_can_read(self):
        self.assertEqual(self.load('lsm').directory, 'parent')
        self.assertEqual(self.load('vfs').directory, 'walk')
        self.assertEqual(self.load('vfs', 'directory = parent\n').directory,
                         'parent')

    def test_an_lsm_hook_judging_the_walk_is_refused(self):
        with self.assertRaisesRegex(HarnessError, 'no nameidata'):
            self.load('lsm', 'directory = walk\n')

    def test_an_unknown_directory_is_named(self):
        with self.assertRaisesRegex(HarnessError, "directory = 'dentry'"):
            self.load('vfs', 'directory = dentry\n')

    def test_the_revisions_say_what_their_code_reads(self):
        got = {r: rev_mod.load(r, flv.TOP).directory
               for r in ('v1', 'v3', 'yama')}
        self.assertEqual(got, {'v1': 'parent', 'v3': 'walk',
                               'yama': 'parent'})


class AlsoTest(unittest.TestCase):
    def test_also_patches_follow_the_series(self):
        fl = flv.load()
        names = [os.path.basename(p)
                 for p in flv.flavor_patches(fl['race-v1'])]
        self.assertEqual(names, [
            os.path.basename(p) for p in flv.flavor_patches(fl['v1'])]
            + [os.path.basename(fl['race-v1'].also[0])])
        self.assertEqual(len(flv.flavor_patches(fl['race-base'])), 1)

    def test_a_missing_also_patch_is_named(self):
        import dataclasses
        f = dataclasses.replace(flv.load()['race-v1'],
                                also=('harness/fixtures/nope.patch',))
        with self.assertRaisesRegex(HarnessError, 'nope.patch, which does '
                                    'not exist'):
            flv.flavor_patches(f)

    def test_a_flavor_overrides_its_revision_directory(self):
        fl = flv.load()
        self.assertEqual(fl['v3y-dlock'].rule.directory, 'walk')
        self.assertEqual(fl['v3y-dlock'].directory, 'parent')


if __name__ == '__main__':
    unittest.main()


class InheritsTest(unittest.TestCase):
    """`inherits`, `config_add` and `template` sections of flavors.ini."""

    INI = '''[a]
sets = suite
series =
config = CONFIG_A=y
pick_link_order = x( y(
describe = a
boot_knobs = protected_symlinks=1

[dbg]
template = yes
config_add = CONFIG_DEBUG=y

[b]
inherits = a dbg
config_add = CONFIG_B=y
extra = yes
describe = b
'''

    def load(self, text):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, 'flavors.ini')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return flv.load(path, d)

    def test_keys_and_config_come_down_the_chain(self):
        got = self.load(self.INI)
        self.assertEqual(sorted(got), ['a', 'b'])    # no template flavor
        b = got['b']
        self.assertEqual(b.config, ('CONFIG_A=y', 'CONFIG_DEBUG=y',
                                    'CONFIG_B=y'))
        self.assertEqual(b.pick_link_order, ('x(', 'y('))
        self.assertEqual(b.boot_knobs, {'protected_symlinks': '1'})
        self.assertEqual((b.sets, b.describe, b.extra), ((), 'b', True))
        self.assertEqual(got['a'].sets, ('suite',))

    def test_a_loop_and_an_unknown_parent_are_named(self):
        with self.assertRaisesRegex(HarnessError, r'\[c\]: inherits itself'):
            self.load(self.INI + '\n[c]\ninherits = c\n')
        with self.assertRaisesRegex(HarnessError, r'inherits \[nope\]'):
            self.load(self.INI + '\n[c]\ninherits = nope\n')

    def test_the_projects_file_spells_each_lockdep_flavor_once(self):
        every = flv.load()
        self.assertEqual(every['v3-lockdep'].config[0],
                         'CONFIG_PROTECTED_STICKY_SYMLINKS=y')
        self.assertIn('CONFIG_KASAN=y', every['san-planted'].config)
        self.assertEqual(every['race-v1'].pick_link_order,
                         every['v1'].pick_link_order)
        self.assertNotIn('debug-sanitizers', every)
