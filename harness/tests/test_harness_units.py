"""Unit tests of the build/boot harness's pure parts (no QEMU, no kernel)."""

import gzip
import json
import os
import stat
import sys
import tempfile
import unittest

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)

from suite import cli as suite_cli  # noqa: E402
import flavors  # noqa: E402
from boot import initramfs  # noqa: E402
from boot import qemu  # noqa: E402
from kernel import kbuild  # noqa: E402
from kernel import tree  # noqa: E402
from stages import HarnessError  # noqa: E402
from suite import results  # noqa: E402


def read_newc(data):
    """Minimal newc reader: {name: (mode, rdev, data)}."""
    out, pos = {}, 0
    while True:
        hdr = data[pos:pos + 110]
        assert hdr[:6] == b'070701', hdr[:6]
        f = [int(hdr[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = f[1], f[6], f[11]
        pos += 110
        name = data[pos:pos + namesize - 1].decode()
        pos += namesize
        pos += -pos % 4
        body = data[pos:pos + size]
        pos += size
        pos += -pos % 4
        if name == 'TRAILER!!!':
            return out
        out[name] = (mode, (f[9], f[10]), body)


class TestFlavors(unittest.TestCase):
    def test_unknown_flavor_lists_valid_ones(self):
        with self.assertRaises(HarnessError) as cm:
            flavors.pick(['v9'])
        msg = str(cm.exception)
        self.assertIn('unknown flavor v9', msg)
        for name in ('base', 'v1', 'v1-nosec', 'v3', 'v3y'):
            self.assertIn(name, msg)

    def test_flavors_differ_only_by_their_deltas(self):
        fl = flavors.load()
        self.assertEqual(fl['base'].config, ())
        self.assertEqual(fl['v1'].series, fl['v1-nosec'].series)
        self.assertEqual(fl['v3'].series, fl['v3y'].series)
        self.assertEqual(kbuild.wanted_symbols(fl['v3y'].config),
                         {'CONFIG_PROTECTED_STICKY_SYMLINKS': 'y'})
        self.assertEqual(kbuild.wanted_symbols(fl['v1-nosec'].config),
                         {'CONFIG_SECURITY': 'n'})

    def test_missing_revision_directory_lists_valid_ones(self):
        with tempfile.TemporaryDirectory() as top:
            os.mkdir(os.path.join(top, 'v1'))
            with open(os.path.join(top, 'v1', 'series'), 'w') as f:
                f.write('a.patch\n')
            with self.assertRaises(HarnessError) as cm:
                flavors.series_patches('v9', top)
            self.assertIn("'v9' has no series file", str(cm.exception))
            self.assertIn('valid revisions: v1', str(cm.exception))
            with self.assertRaises(HarnessError) as cm:
                flavors.series_patches('v1', top)
            self.assertIn('names a.patch, which does not exist',
                          str(cm.exception))


class TestAmFailure(unittest.TestCase):
    def test_names_patch_and_file(self):
        out = ('error: patch failed: fs/namei.c:1028\n'
               'error: fs/namei.c: patch does not apply\n'
               'Patch failed at 0002 fs: something\n')
        which, where = tree._am_failure(out, ['/x/0001.patch',
                                              '/x/0002.patch'])
        self.assertEqual(which, '/x/0002.patch (fs: something)')
        self.assertEqual(where, ' in fs/namei.c')


class TestClassify(unittest.TestCase):
    def test_verdicts(self):
        c = qemu.classify
        self.assertEqual(c('boot\n', 1, False, True)[:2], ('passed', 0))
        self.assertEqual(c('boot\n', 3, False, True)[:2], ('failed', 1))
        self.assertEqual(c('', 1, False, False)[0], 'qemu-failed')
        self.assertEqual(c('boot\n', None, True, True)[0], 'hang')
        # Silent until the timeout (as under KVM here): a hang, not a
        # failure to start.
        self.assertEqual(c('', None, True, False)[0], 'hang')
        self.assertEqual(c('boot\n', 0, False, True)[0], 'no-verdict')
        panic = 'Kernel panic - not syncing: Attempted to kill init!\n'
        self.assertEqual(c(panic, 0, False, True)[0], 'panic')
        warn = 'WARNING: CPU: 0 PID: 1 at fs/namei.c:10 x\n'
        self.assertEqual(c(warn, 1, False, True)[:3],
                         ('splat', 0, ['warning']))
        lockdep = 'WARNING: possible recursive locking detected\n'
        self.assertIn('lockdep', c(lockdep, 1, False, True)[2])
        sleep = 'BUG: sleeping function called from invalid context\n'
        self.assertEqual(set(c(sleep, 1, False, True)[2]),
                         {'bug', 'sleep-in-atomic'})

    def test_excerpt_starts_near_the_splat(self):
        text = '\n'.join(f'line {i}' for i in range(100)) + \
            '\nKernel panic - not syncing: x\n' + 'tail\n' * 5
        ex = qemu.excerpt(text, ['panic'])
        self.assertIn('Kernel panic', ex)
        self.assertTrue(ex.startswith('line 95'))


class TestResults(unittest.TestCase):
    def write(self, text):
        fd, path = tempfile.mkstemp()
        os.write(fd, text.encode())
        os.close(fd)
        self.addCleanup(os.unlink, path)
        return path

    FACTS = '{"type":"facts","uname":"6.1","knobs":{}}\n'
    CASE = ('{"type":"case","setting":"boot","id":"x","params":{},'
            '"ret":0,"errno":"0"}\n')
    END = '{"type":"end","status":0}\n'

    def test_complete_stream(self):
        recs = results.parse_stream(self.write(self.FACTS + self.CASE +
                                               self.END))
        obj = results.assemble('base', recs, 0)
        self.assertEqual(len(obj['cases']), 1)
        self.assertNotIn('type', obj['cases'][0])

    def test_groups_in_the_documented_order(self):
        """The guest runs the own0 settings inside the log interval: the
        result file lists groups as the format documents them anyway."""
        ran = ['sysctl', 'ps0-own0/matrix', 'ps0-own0/mounts',
               'ps1-own0/matrix', 'log', 'boot/matrix', 'boot/ops',
               'ps0-own1/matrix', 'ps1-own1/positions']
        stream = self.FACTS + ''.join(
            f'{{"type":"group","name":"{n}","passed":1,"failed":0,'
            f'"skipped":0}}\n' for n in ran) + self.END
        obj = results.assemble('v3', results.parse_stream(
            self.write(stream)), 0)
        self.assertEqual([g['name'] for g in obj['groups']], [
            'sysctl', 'log', 'boot/matrix', 'boot/ops', 'ps0-own0/matrix',
            'ps0-own0/mounts', 'ps0-own1/matrix', 'ps1-own0/matrix',
            'ps1-own1/positions'])

    def test_params_from_the_last_record_of_the_id(self):
        """The suite writes a case's params object in its first record and
        again only when its ids change: a record without one gets the
        last one of its id, in the place the format documents."""
        def case(setting, cid, params=None):
            rec = {'type': 'case', 'setting': setting, 'id': cid,
                   'group': 'matrix'}
            if params is not None:
                rec['params'] = params
            rec.update({'ret': 0, 'errno': '0'})
            return json.dumps(rec) + '\n'
        first, other = {'fsuid': 1000}, {'fsuid': 1001}
        stream = (self.FACTS + case('boot', 'x', first) + case('boot', 'y',
                  other) + case('ps0-own0', 'x') + case('ps0-own1', 'x',
                  other) + case('ps1-own0', 'x') + case('ps1-own1', 'y')
                  + self.END)
        obj = results.assemble('v3', results.parse_stream(
            self.write(stream)), 0)
        got = {(c['setting'], c['id']): c for c in obj['cases']}
        self.assertEqual(got['ps0-own0', 'x']['params'], first)
        self.assertEqual(got['ps1-own0', 'x']['params'], other)
        self.assertEqual(got['ps1-own1', 'y']['params'], other)
        self.assertEqual(list(got['ps0-own0', 'x']),
                         ['setting', 'id', 'group', 'params', 'ret',
                          'errno'])
        orphan = self.FACTS + case('boot', 'x', first) + case(
            'ps0-own0', 'y') + self.END
        with self.assertRaises(HarnessError) as cm:
            results.assemble('v3', results.parse_stream(
                self.write(orphan)), 0)
        self.assertIn('case y in setting ps0-own0 has no params',
                      str(cm.exception))

    def test_truncated_stream_is_an_error(self):
        with self.assertRaises(HarnessError) as cm:
            results.parse_stream(self.write(self.FACTS + self.CASE))
        self.assertIn('truncated result stream', str(cm.exception))
        self.assertIn('no end record', str(cm.exception))

    def test_garbled_line_is_named(self):
        with self.assertRaises(HarnessError) as cm:
            results.parse_stream(self.write(self.FACTS + '{"type":"ca\n' +
                                            self.END))
        self.assertIn('garbled result stream', str(cm.exception))
        self.assertIn('line 2', str(cm.exception))

    def test_status_mismatch_and_duplicates(self):
        path = self.write(self.FACTS + self.CASE + self.END)
        with self.assertRaises(HarnessError):
            results.assemble('base', results.parse_stream(path), 1)
        path = self.write(self.FACTS + self.CASE + self.CASE + self.END)
        with self.assertRaises(HarnessError) as cm:
            results.assemble('base', results.parse_stream(path), 0)
        self.assertIn('appears twice', str(cm.exception))

    def test_boot_records(self):
        good = self.write(self.FACTS + self.CASE + self.END)
        for verdict in ('passed', 'failed'):
            recs, why = results.boot_records(
                qemu.Outcome(verdict, results=good))
            self.assertEqual((len(recs), why), (3, None))
        recs, why = results.boot_records(
            qemu.Outcome('hang', results=good, reason='no end'))
        self.assertEqual((recs, why), (None, 'hang: no end'))
        recs, why = results.boot_records(qemu.Outcome(
            'passed', results=self.write(self.FACTS + self.CASE)))
        self.assertIsNone(recs)
        self.assertIn('truncated result stream', why)

    def test_compressed_stream(self):
        data = gzip.compress((self.FACTS + self.CASE + self.END).encode())
        fd, path = tempfile.mkstemp()
        os.write(fd, data)
        os.close(fd)
        self.addCleanup(os.unlink, path)
        self.assertEqual(len(results.parse_stream(path)), 3)
        with open(path, 'wb') as f:
            f.write(data[:len(data) // 2])
        with self.assertRaises(HarnessError) as cm:
            results.parse_stream(path)
        self.assertIn('compressed stream is cut', str(cm.exception))

    def test_missing_stream(self):
        with self.assertRaises(HarnessError) as cm:
            results.parse_stream('/nonexistent/results.jsonl')
        self.assertIn('never wrote', str(cm.exception))


class TestInitramfs(unittest.TestCase):
    def test_layout(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'initrd.gz')
            initramfs.build('/bin/busybox', {'/bin/prog': '/bin/busybox'},
                            out)
            with open(out, 'rb') as f:
                entries = read_newc(gzip.decompress(f.read()))
        self.assertTrue(stat.S_ISCHR(entries['dev/console'][0]))
        self.assertEqual(entries['dev/console'][1], (5, 1))
        self.assertTrue(stat.S_ISLNK(entries['bin/sh'][0]))
        self.assertEqual(entries['bin/sh'][2], b'busybox')
        self.assertTrue(stat.S_ISREG(entries['init'][0]))
        self.assertIn('bin/prog', entries)
        self.assertTrue(entries['tmp'][0] & stat.S_IFDIR)

    def test_dynamic_program_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(HarnessError) as cm:
                initramfs.build('/bin/busybox', {'/bin/ls': '/bin/ls'},
                                os.path.join(d, 'x'))
        self.assertIn('dynamically linked', str(cm.exception))

    def test_missing_busybox_names_the_package(self):
        with self.assertRaises(HarnessError) as cm:
            initramfs.build('/bin/busybox', {}, '/tmp/x',
                            busybox='/nonexistent/busybox')
        self.assertIn('apt-get install busybox-static', str(cm.exception))


class TestBootKnobs(unittest.TestCase):
    def test_expected_knobs(self):
        fl = flavors.load()
        facts = {'knobs': {'protected_symlinks': 1,
                           'weak_sticky_symlinks': 0,
                           'protected_sticky_symlinks': None}}
        self.assertEqual(suite_cli.check_boot_knobs(fl['v1'], facts), [])
        self.assertEqual(suite_cli.check_boot_knobs(fl['v3'], facts),
                         ['weak_sticky_symlinks: expected absent, read 0',
                          'protected_sticky_symlinks: expected 0, read '
                          'absent'])


class TestTarball(unittest.TestCase):
    def test_missing_tarball_says_what_to_install(self):
        with self.assertRaises(HarnessError) as cm:
            tree.check_tarball('/nonexistent/linux-source-6.1.tar.xz')
        self.assertIn('apt-get install linux-source-6.1', str(cm.exception))


PATCH = """From: A Porter <porter@localhost>
Subject: [PATCH] change a

---
 a | 2 +-

diff --git a/a b/a
--- a/a
+++ b/a
@@ -1 +1 @@
-pristine a
+patched a
"""


class TestLinkedWorktree(unittest.TestCase):
    """A flavor's tree: hard links to the pristine tree, written only by
    git, which replaces a file rather than writing through the link."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.src = os.path.join(self.tmp.name, 'pristine')
        os.makedirs(os.path.join(self.src, 'sub'))
        for name in ('a', 'sub/b'):
            with open(os.path.join(self.src, name), 'w') as f:
                f.write(f'pristine {os.path.basename(name)}\n')
        tree.git(self.src, 'init', '-q', '-b', 'pristine')
        tree.git(self.src, 'add', '-A')
        tree.git(self.src, 'commit', '-q', '-m', 'pristine')
        self.wt = os.path.join(self.tmp.name, 'v1', 'src')

    def tearDown(self):
        self.tmp.cleanup()

    def ino(self, *parts):
        return os.stat(os.path.join(*parts)).st_ino

    def test_files_are_links_and_the_tree_is_clean(self):
        tree.linked_worktree(self.src, self.wt)
        self.assertEqual(self.ino(self.wt, 'sub/b'),
                         self.ino(self.src, 'sub/b'))
        self.assertEqual(tree.git(self.wt, 'status', '--porcelain').stdout,
                         '')

    def test_git_am_leaves_the_pristine_file_alone(self):
        tree.linked_worktree(self.src, self.wt)
        tree.git(self.wt, 'am', '-q', input=PATCH)
        with open(os.path.join(self.wt, 'a')) as f:
            self.assertEqual(f.read(), 'patched a\n')
        with open(os.path.join(self.src, 'a')) as f:
            self.assertEqual(f.read(), 'pristine a\n')
        tree.git(self.wt, 'reset', '-q', '--hard', 'pristine')
        self.assertEqual(tree.git(self.src, 'status', '--porcelain').stdout,
                         '')

    def test_a_pristine_file_changed_in_place_is_refused(self):
        with open(os.path.join(self.src, 'sub', 'b'), 'a') as f:
            f.write('an edit through a link\n')
        with self.assertRaises(HarnessError) as cm:
            tree.linked_worktree(self.src, self.wt)
        self.assertIn('sub/b', str(cm.exception))
        self.assertIn('checkout -f pristine', str(cm.exception))
        self.assertFalse(os.path.exists(self.wt))


if __name__ == '__main__':
    unittest.main()
