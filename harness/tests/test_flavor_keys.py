"""The data keys that stack test patches on a flavor (`also`) and say which
directory a rule judges (`directory`, revision.ini or the flavor)."""

import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import flavors as flv
import revision as rev_mod
from stages import HarnessError

REV = '''[revision]
describe = x
hook = {hook}
call = f(
links = every
needs =
knob_path = /proc/sys/fs/x
protect = 1
polarity = protected
doc = d
log_text =
{extra}'''


class RevisionDirectoryTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.top)
        os.makedirs(os.path.join(self.top, 'r'))

    def load(self, hook, extra=''):
        with open(os.path.join(self.top, 'r', 'revision.ini'), 'w',
                  encoding='utf-8') as f:
            f.write(REV.format(hook=hook, extra=extra))
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
