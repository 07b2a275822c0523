"""config-sweep: its configurations as data, and its findings."""

import os
import shutil
import subprocess
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import flavors as flv
from kernel import staticcheck
from kernel import sweep
from kernel import tree
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

    def test_a_symbol_only_a_series_adds_is_swept_in_its_tree_alone(self):
        trees = [('v1', None, 'v1/src'), ('grsec', None, 'grsec/src'),
                 ('owlsm', None, 'owlsm/src')]
        added = {'v1': set(), 'grsec': {'GRKERNSEC_LINK'},
                 'owlsm': {'SECURITY_OWLSM'}}
        on = ('CONFIG_GRKERNSEC_LINK=y', 'CONFIG_PROC_SYSCTL=n')
        self.assertEqual(sweep.owning_trees('x', on, trees, added),
                         [trees[1]])
        off = ('CONFIG_GRKERNSEC_LINK=n', 'CONFIG_SECURITY_OWLSM=n')
        self.assertEqual(sweep.owning_trees('x', off, trees, added), trees)
        both = ('CONFIG_GRKERNSEC_LINK=y', 'CONFIG_SECURITY_OWLSM=y')
        with self.assertRaisesRegex(HarnessError, 'no one series adds'):
            sweep.owning_trees('x', both, trees, added)

    def test_the_committed_series_add_the_swept_symbols(self):
        top = os.path.dirname(flv.HARNESS)
        every = flv.load()
        for name, symbol in (('grsec', 'GRKERNSEC_LINK'),
                             ('owlsm', 'SECURITY_OWLSM')):
            added = sweep.kbuild.defined_symbols(
                flv.flavor_patches(every[name], top))
            self.assertIn(symbol, added)
            self.assertIn('%s-nosysctl' % name,
                          [v[0] for v in sweep.load() if v[3]])

    def test_one_source_path_holds_each_tree_in_turn(self):
        """checked_out(): build/sweep-src holds exactly a worktree's files
        (its series' commit), and a file no tree changes is not
        rewritten, so kbuild compiles again only what differs."""
        build = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, build)
        pristine = os.path.join(build, 'pristine')
        os.makedirs(pristine)
        for name, text in (('namei.c', 'int a;\n'), ('fs.h', 'int h;\n')):
            with open(os.path.join(pristine, name), 'w') as f:
                f.write(text)
        for args in (['init', '-q'], ['add', '.'],
                     ['commit', '-q', '-m', 'pristine'],
                     ['branch', 'pristine']):
            tree.git(pristine, *args)
        v1 = os.path.join(build, 'v1', 'src')
        tree.linked_worktree(pristine, v1)
        os.unlink(os.path.join(v1, 'namei.c'))  # a hard link: as git am
        with open(os.path.join(v1, 'namei.c'), 'w') as f:
            f.write('int a; /* v1 */\n')
        tree.git(v1, 'commit', '-q', '-am', 'v1')
        one = sweep.source_tree(build, None)
        header = os.path.join(one, 'fs.h')
        stamp = os.stat(header).st_mtime_ns
        for src, text in ((v1, 'int a; /* v1 */\n'),
                          (pristine, 'int a;\n'), (v1, 'int a; /* v1 */\n')):
            self.assertEqual(sweep.checked_out(one, src), one)
            with open(os.path.join(one, 'namei.c')) as f:
                self.assertEqual(f.read(), text)
            self.assertEqual(os.stat(header).st_mtime_ns, stamp)
        self.assertEqual(sweep.source_tree(build, None), one)
        with open(os.path.join(one, 'namei.c')) as f:   # kept, not remade
            self.assertEqual(f.read(), 'int a; /* v1 */\n')

    def test_a_config_that_lost_a_wanted_value_is_refused(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, '.config'), 'w', encoding='utf-8') as f:
            f.write('CONFIG_PROC_SYSCTL=y\n')
        lines = ('CONFIG_GRKERNSEC_LINK=y', 'CONFIG_PROC_SYSCTL=n')
        with self.assertRaisesRegex(HarnessError,
                                    'GRKERNSEC_LINK=y \\(now n\\)'):
            sweep.held('x', d, lines, 'pristine')
        with open(os.path.join(d, '.config'), 'w', encoding='utf-8') as f:
            f.write('CONFIG_GRKERNSEC_LINK=y\n# CONFIG_PROC_SYSCTL is not'
                    ' set\n')
        sweep.held('x', d, lines, 'grsec')

    def test_configure_refuses_a_config_that_did_not_take(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        obj = os.path.join(d, 'obj')

        def make(cmd, cwd, **_):
            with open(os.path.join(obj, '.config'), 'w',
                      encoding='utf-8') as f:
                f.write('CONFIG_GRKERNSEC_LINK=y\n')
            return subprocess.CompletedProcess(cmd, 0, '', '')
        with self.assertRaisesRegex(HarnessError, r'did not take: .*'
                                    r'CONFIG_SECURITY_OWLSM=y \(got n\)'):
            sweep.kbuild.configure(d, obj, ('CONFIG_SECURITY_OWLSM=y',), d,
                                   run=make)

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
