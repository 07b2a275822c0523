"""static-check's pure parts: touched objects, normalising, new findings,
and the cache of a tree's findings."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from kernel import staticcheck  # noqa: E402


class TestStaticCheck(unittest.TestCase):
    def test_touched_objects_are_the_changed_c_files(self):
        with tempfile.NamedTemporaryFile('w', suffix='.patch') as f:
            f.write('diff --git a/include/linux/security.h b/include/linux/'
                    'security.h\n'
                    'diff --git a/security/commoncap.c b/security/'
                    'commoncap.c\n'
                    'diff --git a/Documentation/x.rst b/Documentation/'
                    'x.rst\n')
            f.flush()
            self.assertEqual(staticcheck.touched_objects([f.name, f.name]),
                             ['security/commoncap.o'])

    def test_normalise_drops_tree_and_line_numbers(self):
        out = ('/b/v3/src/fs/namei.c:1099:9: warning: context imbalance\n'
               '../fs/namei.c:12:3: note: declared here\n'
               '  1099 |   spin_lock(x);\n'
               'fs/namei.c:651: warning: Function parameter not described\n')
        self.assertEqual(staticcheck.normalise(out, '/b/v3/src'), [
            'fs/namei.c: warning: context imbalance | '
            'fs/namei.c: note: declared here',
            'fs/namei.c: warning: Function parameter not described'])

    def test_new_findings_are_a_multiset_difference(self):
        base = ['a: warning: x', 'a: warning: y']
        mine = ['a: warning: x', 'a: warning: x', 'a: warning: y',
                'a: warning: z']
        self.assertEqual(staticcheck.new_findings(mine, base),
                         ['a: warning: x', 'a: warning: z'])
        self.assertEqual(staticcheck.new_findings(base, mine), [])



class TestFindingsCache(unittest.TestCase):
    """A tree's findings are reused only while its content, .config and
    object are the same; a tree with changes in place is always checked."""

    def setUp(self):
        self.src = tempfile.mkdtemp()
        self.addCleanup(subprocess.run, ['rm', '-rf', self.src])
        self.obj = os.path.join(self.src, 'obj')
        os.makedirs(self.obj)
        self.git('init', '-q')
        with open(os.path.join(self.src, '.git', 'info', 'exclude'), 'a',
                  encoding='utf-8') as f:
            f.write('/obj/\n')
        self.write('fs/namei.c', 'int x;\n')
        self.git('add', '.')
        self.git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit',
                 '-qm', 'one')
        self.write('obj/.config', 'CONFIG_A=y\n')
        self.runs = []

    def git(self, *args):
        subprocess.run(['git', *args], cwd=self.src, check=True,
                       capture_output=True)

    def write(self, rel, text):
        path = os.path.join(self.src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)

    def check(self, src, obj, build, target):
        self.runs.append(target)
        return {'sparse': [f'run {len(self.runs)}'], 'W=1': []}

    def cached(self, target='fs/namei.o', use_cache=True):
        return staticcheck.check_cached(self.src, self.obj, None, target,
                                        use_cache, self.check)

    def test_same_inputs_reuse_the_findings(self):
        first, kept = self.cached()
        self.assertFalse(kept)
        self.assertEqual(self.cached(), (first, True))
        self.assertEqual(len(self.runs), 1)

    def test_any_input_changed_runs_the_check(self):
        self.cached()
        self.cached('fs/other.o')
        self.assertEqual(len(self.runs), 2, 'another object')
        self.write('obj/.config', 'CONFIG_A=n\n')
        self.assertFalse(self.cached()[1], 'another .config')
        self.write('fs/namei.c', 'int y;\n')
        self.git('commit', '-qam', 'two')
        self.assertFalse(self.cached()[1], 'another tree')
        self.assertEqual(len(self.runs), 4)

    def test_other_tools_or_checker_run_the_check(self):
        real = staticcheck._out
        self.addCleanup(setattr, staticcheck, '_out', real)
        for tool in ('gcc', 'sparse'):
            staticcheck._out = real
            self.cached()
            self.assertTrue(self.cached()[1])
            staticcheck._out = lambda cmd, cwd=None, tool=tool: (
                f'{tool} 99\n' if cmd[0] == tool else real(cmd, cwd))
            self.assertFalse(self.cached()[1], f'another {tool}')
        staticcheck._out = real
        self.cached()
        self.assertTrue(self.cached()[1])
        module = os.path.join(self.src, 'checker.py')
        with open(module, 'w', encoding='utf-8') as f:
            f.write('# another checker\n')
        self.addCleanup(setattr, staticcheck, '__file__',
                        staticcheck.__file__)
        staticcheck.__file__ = module
        self.assertFalse(self.cached()[1], 'another checker')

    def test_changes_in_place_or_no_cache_always_run(self):
        self.cached()
        self.write('fs/namei.c', 'int z;\n')
        self.assertFalse(self.cached()[1])
        self.assertFalse(self.cached()[1])
        self.git('checkout', '--', 'fs/namei.c')
        self.assertTrue(self.cached()[1])
        self.assertFalse(self.cached(use_cache=False)[1])
        self.assertEqual(len(self.runs), 4)


if __name__ == '__main__':
    unittest.main()


class DefaultFlavorsTest(unittest.TestCase):
    def test_every_default_flavor_with_a_series_is_checked(self):
        import flavors as flv
        from kernel import staticcheck
        every = flv.load()
        names = [f.name for f in staticcheck.default_flavors(every)]
        # not mutants, fixtures nor extras: the default set with a series
        self.assertEqual(names, [f.name for f in flv.flavor_set('default')
                                 if f.series])
        self.assertIn('v3', names)
        self.assertNotIn('base', names)
        self.assertNotIn('v1-hook61', names)
