"""config-sweep: its configurations as data, and its findings."""

import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import flavors as flv
from kernel import staticcheck
from kernel import sweep
from stages import HarnessError

# kbuild's output with the object tree outside the source tree: paths
# relative to the object tree, a note after its warning.
OUT = '''  CC      security/commoncap.o
../../main/build/v1/src/security/commoncap.c:370:12: warning: 'f' defined but not used [-Wunused-function]
../../main/build/v1/src/security/commoncap.c:10:2: note: declared here
/work/main/build/v1/src/fs/namei.c:651: warning: Function parameter or member 'dentry' not described in 'path_connected'
make[1]: *** [scripts/Makefile.build:250: fs/namei.o] Error 1
'''


class SweepTest(unittest.TestCase):
    def test_every_needed_option_is_turned_off_somewhere(self):
        needs = {o for f in flv.load().values() if f.rule
                 for o in f.rule.needs}
        self.assertTrue(needs)
        self.assertEqual(needs - sweep.turned_off(sweep.load()), set())

    def test_a_check_subset_exists_and_randconfigs_stay_out_of_it(self):
        variants = sweep.load()
        checked = [v for v in variants if v[3]]
        self.assertTrue(checked)
        self.assertFalse(any(v[2] for v in checked))

    def test_a_configuration_needs_lines_or_a_seed(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, 'sweep.ini')
        for body in ('[x]\ncheck = yes\n',
                     '[x]\nconfig = CONFIG_AUDIT=n\nseed = 1\n'):
            with open(path, 'w', encoding='utf-8') as f:
                f.write(body)
            with self.assertRaisesRegex(HarnessError, 'one of the two'):
                sweep.load(path)

    def test_findings_name_the_file_in_the_tree_without_lines(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for name in ('security/commoncap.c', 'fs/namei.c'):
            os.makedirs(os.path.join(d, os.path.dirname(name)),
                        exist_ok=True)
            open(os.path.join(d, name), 'w').close()
        self.assertEqual(sweep.normalise(OUT, d), [
            "security/commoncap.c: warning: 'f' defined but not used "
            "[-Wunused-function] | security/commoncap.c: note: declared "
            "here",
            "fs/namei.c: warning: Function parameter or member 'dentry' "
            "not described in 'path_connected'"])

    def test_only_findings_the_pristine_tree_lacks_are_new(self):
        theirs = ['a: warning: x', 'b: warning: y']
        mine = ['a: warning: x', 'b: warning: y', 'b: warning: y',
                'c: warning: z']
        self.assertEqual(staticcheck.new_findings(mine, theirs),
                         ['b: warning: y', 'c: warning: z'])


if __name__ == '__main__':
    unittest.main()
