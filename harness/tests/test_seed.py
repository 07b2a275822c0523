"""kernel/seed.py: a first build starts from the closest built flavor's
objects, and every file that differs between the two trees is made newer
than those objects (tiny git trees, no kernel)."""

import os
import tempfile
import threading
import time
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from kernel import kernels
from kernel import seed
from kernel import tree
from stages import HarnessError

OLD = 1_000_000_000         # the tarball's dates: older than any object


class SeedTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.build = self.tmp.name
        self.pristine = os.path.join(self.build, 'pristine')
        os.makedirs(os.path.join(self.pristine, 'fs'))
        for name in ('fs/namei.c', 'fs/open.c', 'Kconfig'):
            self.write(self.pristine, name, f'pristine {name}\n', OLD)
        tree.git(self.pristine, 'init', '-q', '-b', 'pristine')
        tree.git(self.pristine, 'add', '-A')
        tree.git(self.pristine, 'commit', '-q', '-m', 'pristine')

    def tearDown(self):
        self.tmp.cleanup()

    @staticmethod
    def write(top, rel, text, when=None):
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.exists(path):
            os.unlink(path)         # as git does: never through a link
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        if when:
            os.utime(path, (when, when))
        return path

    def flavor(self, name, changes=(), config=(), built=True, text=None):
        """build/<name>/src with `changes` committed (the same text in
        every flavor unless `text`); with built, an obj
        holding an object per .c file, stamped as kernels.py does."""
        src = os.path.join(self.build, name, 'src')
        tree.linked_worktree(self.pristine, src)
        for rel in changes:
            self.write(src, rel, f'{text or "patched"} {rel}\n')
        if changes:
            tree.git(src, 'commit', '-q', '-am', name)
        self.write(self.build, f'{name}/src.applied', name + '\n')
        if not built:
            return src
        obj = tree.obj_dir(self.build, name)
        self.write(obj, 'sticky.config', ''.join(
            line + '\n' for line in ('CONFIG_SECURITY=y', *config)))
        self.write(obj, '.config.inputs', name + '\n')
        self.write(obj, 'vmlinux', name)
        for rel in ('fs/namei.o', 'fs/open.o'):
            self.write(obj, rel, f'{name} {rel}\n', time.time() - 100)
        self.write(obj, 'tools/objtool/.check.o.cmd',
                   f'cmd := gcc -o {os.path.realpath(obj)}/tools/objtool/'
                   f'check.o {os.path.realpath(src)}/tools/objtool/check.c\n')
        self.write(self.build, f'{name}/built.stamp',
                   kernels._inputs_key(src, obj) + '\n')
        return src

    def seed(self, name, src, config=()):
        return seed.seed(self.build, name, src,
                         tree.obj_dir(self.build, name),
                         ['CONFIG_SECURITY=y', *config], kernels._inputs_key)

    def test_the_closest_config_then_the_fewest_files_win(self):
        self.flavor('base')
        self.flavor('lockdep', config=['CONFIG_LOCKDEP=y'])
        self.flavor('v1', changes=['fs/namei.c'])
        src = self.flavor('v3', changes=['fs/namei.c', 'Kconfig'],
                          config=['CONFIG_LOCKDEP=y'], built=False)
        self.assertEqual(self.seed('v3', src, ['CONFIG_LOCKDEP=y']),
                         'lockdep')
        src = self.flavor('v3y', changes=['fs/namei.c'], built=False)
        # both are as close in config; v1 changed fs/namei.c alike
        self.assertEqual(self.seed('v3y', src), 'v1')

    def test_a_stale_or_unbuilt_flavor_is_no_seed(self):
        self.flavor('base')
        os.unlink(os.path.join(tree.obj_dir(self.build, 'base'), 'vmlinux'))
        src = self.flavor('v1', changes=['fs/namei.c'], built=False)
        self.assertIsNone(self.seed('v1', src))
        self.assertFalse(os.path.exists(tree.obj_dir(self.build, 'v1')))
        self.flavor('v3', changes=['fs/open.c'])
        self.write(self.build, 'v3/src.applied', 'edited since\n')
        self.assertIsNone(self.seed('v1', src))

    def test_a_file_only_the_seed_changed_is_refreshed_not_written_through(
            self):
        self.flavor('v1', changes=['fs/open.c'])
        src = self.flavor('v1at1', changes=['fs/namei.c'], built=False)
        before = os.stat(os.path.join(self.pristine, 'fs/open.c'))
        self.assertGreater(before.st_nlink, 1)
        self.assertEqual(self.seed('v1at1', src), 'v1')
        obj = tree.obj_dir(self.build, 'v1at1')
        newest_object = max(os.stat(os.path.join(obj, rel)).st_mtime
                             for rel in ('fs/namei.o', 'fs/open.o'))
        for rel in ('fs/open.c', 'fs/namei.c'):
            mine = os.stat(os.path.join(src, rel))
            self.assertGreater(mine.st_mtime, newest_object, rel)
            self.assertEqual(mine.st_nlink, 1, rel)
        after = os.stat(os.path.join(self.pristine, 'fs/open.c'))
        self.assertEqual((after.st_ino, after.st_mtime),
                         (before.st_ino, before.st_mtime))
        with open(os.path.join(src, 'fs/open.c'), encoding='utf-8') as f:
            self.assertEqual(f.read(), 'pristine fs/open.c\n')
        self.assertFalse(os.path.exists(os.path.join(obj, '.config.inputs')))
        self.assertEqual(tree.git(src, 'status', '--porcelain',
                                  '--untracked-files=no').stdout, '')

    def test_objtools_absolute_paths_name_the_new_tree(self):
        self.flavor('base')
        src = self.flavor('v1', changes=['fs/namei.c'], built=False)
        self.seed('v1', src)
        obj = os.path.realpath(tree.obj_dir(self.build, 'v1'))
        with open(os.path.join(obj, 'tools/objtool/.check.o.cmd'),
                  encoding='utf-8') as f:
            self.assertEqual(f.read(), f'cmd := gcc -o {obj}/tools/objtool/'
                             f'check.o {os.path.realpath(src)}/tools/'
                             f'objtool/check.c\n')

    def test_an_object_make_kept_is_refused_then_a_rebuilt_one_passes(self):
        self.flavor('base')
        src = self.flavor('v1', changes=['fs/namei.c'], built=False)
        self.seed('v1', src)
        obj = tree.obj_dir(self.build, 'v1')
        with self.assertRaises(HarnessError) as cm:
            seed.after_build(src, obj)
        self.assertIn('fs/namei.o', str(cm.exception))
        self.assertIn('seeded from base', str(cm.exception))
        self.write(obj, 'fs/namei.o', 'rebuilt\n')
        seed.after_build(src, obj)
        self.assertFalse(os.path.exists(os.path.join(obj, seed.STAMP)))

    def test_an_existing_object_tree_is_never_replaced(self):
        self.flavor('base')
        src = self.flavor('v1', changes=['fs/namei.c'], built=False)
        obj = tree.obj_dir(self.build, 'v1')
        self.write(obj, 'fs/namei.o', 'mine\n')
        self.assertIsNone(self.seed('v1', src))
        with open(os.path.join(obj, 'fs/namei.o'), encoding='utf-8') as f:
            self.assertEqual(f.read(), 'mine\n')



class BuildFlavorsTest(unittest.TestCase):
    """kernels.build_flavors: built flavors side by side, then first builds
    side by side once a built flavor can seed each and no earlier one
    would seed it better (build_flavor and the config distances replaced
    by recorders)."""

    class Flavor:
        def __init__(self, name, want=None):
            self.name = name
            self.want = want or {}

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.events = []
        self.together = {}          # name -> the Barrier it must meet
        self.built = {}             # name -> wanted symbols, once built
        self.slow = set()           # builds that take a while
        for name, fake in (('build_flavor', self.fake),
                           ('built_distance', self.distance),
                           ('_wanted', lambda f: f.want)):
            self.addCleanup(setattr, kernels, name, getattr(kernels, name))
            setattr(kernels, name, fake)

    def fake(self, flavor, build, top, stages, **how):
        self.events.append(('start', flavor.name, how))
        if flavor.name in self.together:
            self.together[flavor.name].wait()
        if flavor.name in self.slow:
            time.sleep(0.3)         # time for another start, were one due
        if flavor.name == 'bad':
            raise HarnessError('bad build')
        self.built[flavor.name] = flavor.want
        self.events.append(('end', flavor.name, how))
        return f'{flavor.name}.img'

    def distance(self, flavor, build):
        return min((seed._distance(flavor.want, want) for name, want
                    in self.built.items() if name != flavor.name),
                   default=None)

    def flavors(self, built, new):
        for name, want in built:
            os.makedirs(tree.obj_dir(self.tmp.name, name))
            self.built[name] = want
        return [self.Flavor(n, w) for n, w in [*built, *new]]

    def meet(self, *names):
        barrier = threading.Barrier(len(names), timeout=3)
        self.together.update({n: barrier for n in names})

    def order(self, kind):
        return [e[1] for e in self.events if e[0] == kind]

    def test_built_flavors_run_together_then_first_builds_together(self):
        chosen = self.flavors([('v1', {}), ('v3', {})],
                              [('yama', {}), ('v3y', {})])
        chosen = [chosen[2], chosen[0], chosen[3], chosen[1]]
        self.meet('v1', 'v3')
        self.meet('yama', 'v3y')
        images = kernels.build_flavors(chosen, self.tmp.name, '/top', None,
                                       jobs=2, force=True)
        self.assertEqual(images, ['yama.img', 'v1.img', 'v3y.img', 'v3.img'])
        self.assertEqual(set(self.order('start')[:2]), {'v1', 'v3'})
        self.assertTrue(all(e[2] == {'force': True} for e in self.events))

    def test_with_nothing_built_the_first_goes_alone(self):
        chosen = self.flavors([], [('base', {}), ('v1', {'S': 'y'}),
                                   ('v3', {})])
        self.meet('v1', 'v3')
        self.slow.add('base')
        kernels.build_flavors(chosen, self.tmp.name, '/top', None, jobs=2)
        self.assertEqual(self.events[:2], [('start', 'base', {}),
                                           ('end', 'base', {})])

    def test_a_closer_unbuilt_flavor_is_waited_for(self):
        lockdep = {'S': 'y', 'L1': 'y', 'L2': 'y'}
        chosen = self.flavors([('v1', {'S': 'y'})],
                              [('v1-lockdep', lockdep),
                               ('v3-lockdep', dict(lockdep, S='n'))])[1:]
        self.slow.add('v1-lockdep')
        kernels.build_flavors(chosen, self.tmp.name, '/top', None, jobs=2)
        self.assertEqual(self.order('start'), ['v1-lockdep', 'v3-lockdep'])
        self.assertEqual(self.order('end'), ['v1-lockdep', 'v3-lockdep'])
        self.assertEqual([e[0] for e in self.events],
                         ['start', 'end', 'start', 'end'])

    def test_one_job_runs_one_at_a_time(self):
        chosen = self.flavors([('v1', {}), ('v3', {})], [])
        self.meet('v1', 'v3')
        with self.assertRaises(threading.BrokenBarrierError):
            kernels.build_flavors(chosen, self.tmp.name, '/top', None,
                                  jobs=1)

    def test_a_failed_build_is_raised_after_the_others_end(self):
        chosen = self.flavors([('bad', {}), ('v3', {})], [('yama', {})])
        with self.assertRaisesRegex(HarnessError, 'bad build'):
            kernels.build_flavors(chosen, self.tmp.name, '/top', None,
                                  jobs=2)
        self.assertEqual(set(self.order('start')), {'bad', 'v3'})
        self.assertEqual(self.order('end'), ['v3'])

if __name__ == '__main__':
    unittest.main()
