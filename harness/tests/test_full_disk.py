"""A full disk while results are written: the previous file is kept
whole, no temporary file is left, and the error says what to do."""

import errno
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import support
from kernel import kbuild
from stages import HarnessError
from differ import regress
from suite import results


def no_space(fd):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class FullDiskTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        real = os.fsync
        self.addCleanup(setattr, os, 'fsync', real)

    def test_a_result_file_write_fails_and_keeps_the_previous(self):
        path = os.path.join(self.dir, 'results', 'v1.race.json')
        results.write_json({'run': 1}, path)
        os.fsync = no_space
        with self.assertRaises(HarnessError) as cm:
            results.write_json({'run': 2}, path)
        msg = str(cm.exception)
        self.assertIn(f'could not write {path}: No space left on device',
                      msg)
        self.assertIn('the previous one is kept', msg)
        self.assertIn('Free space under', msg)
        with open(path, encoding='utf-8') as f:
            self.assertEqual(json.load(f), {'run': 1})
        self.assertEqual(os.listdir(os.path.dirname(path)), ['v1.race.json'])

    def test_bless_on_a_full_disk_keeps_the_blessed_files(self):
        res = support.write_results(os.path.join(self.dir, 'res'),
                                    flavors=('base', 'v3'))
        expected = os.path.join(self.dir, 'expected')
        regress.bless(res, expected)
        path = os.path.join(expected, 'v3.json')
        with open(path, encoding='utf-8') as f:
            before = f.read()
        os.fsync = no_space
        with self.assertRaises(OSError) as cm:
            regress.bless(res, expected)
        self.assertEqual(cm.exception.errno, errno.ENOSPC)
        self.assertTrue(cm.exception.filename.startswith(expected))
        with open(path, encoding='utf-8') as f:
            self.assertEqual(f.read(), before)
        self.assertFalse([n for n in os.listdir(expected)
                          if n.endswith('.tmp')])

    def test_make_bless_says_what_happened_and_what_to_do(self):
        from stickydiff import cli
        import io
        res = support.write_results(os.path.join(self.dir, 'res'),
                                    flavors=('base', 'v3'))
        expected = os.path.join(self.dir, 'expected')
        os.fsync = no_space
        out = io.StringIO()
        rc = cli.main(['bless', '--results', res, '--expected', expected,
                       '--out', self.dir, '--range-diff',
                       os.path.join(self.dir, 'no-range-diff')], out)
        self.assertEqual(rc, 2)
        self.assertIn('error: could not write ' + expected, out.getvalue())
        self.assertIn('No space left on device', out.getvalue())
        self.assertIn('run the command again', out.getvalue())



class RealFullDiskTest(unittest.TestCase):
    """The same on a file system that really fills: a 512 KiB tmpfs
    mounted for the test (root only; elsewhere the test says why it
    skips)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        res = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=512k',
                              'stickyfull', self.dir],
                             capture_output=True, text=True)
        if res.returncode:
            self.skipTest(f'cannot mount a small tmpfs here: '
                          f'{res.stderr.strip()}')
        self.addCleanup(subprocess.run, ['umount', self.dir])
        self.filler = os.path.join(self.dir, 'filler')

    def fill(self):
        """Writes until the file system is full."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while True:
                os.write(fd, b'\0' * 4096)
        except OSError as e:
            self.assertEqual(e.errno, errno.ENOSPC)
        finally:
            os.close(fd)

    def contents(self):
        return sorted(os.listdir(self.dir))

    def test_a_result_file_and_its_recovery(self):
        path = os.path.join(self.dir, 'v1.stress.json')
        results.write_json({'run': 1}, path)
        self.fill()
        with self.assertRaises(HarnessError) as cm:
            results.write_json({'run': 2, 'pad': 'x' * 65536}, path)
        self.assertIn(f'could not write {path}: No space left on device',
                      str(cm.exception))
        with open(path, encoding='utf-8') as f:
            self.assertEqual(json.load(f), {'run': 1})
        self.assertEqual(self.contents(), ['filler', 'v1.stress.json'])
        os.unlink(self.filler)      # space freed: the next run recovers
        results.write_json({'run': 3}, path)
        with open(path, encoding='utf-8') as f:
            self.assertEqual(json.load(f), {'run': 3})

    def test_a_kernel_image_and_its_recovery(self):
        built = os.path.join(tempfile.mkdtemp(), 'bzImage')
        self.addCleanup(shutil.rmtree, os.path.dirname(built))
        out = os.path.join(self.dir, 'bzImage')
        with open(out, 'wb') as f:
            f.write(b'old' * 1000)
        with open(built, 'wb') as f:
            f.write(os.urandom(300 * 1024))
        self.fill()
        with self.assertRaises(HarnessError) as cm:
            kbuild.install_image(built, out)
        msg = str(cm.exception)
        self.assertIn(f'could not write {out}: No space left on device; '
                      'the previous one is kept', msg)
        self.assertIn('build again: the objects are still there', msg)
        with open(out, 'rb') as f:
            self.assertEqual(f.read(), b'old' * 1000)
        self.assertEqual(self.contents(), ['bzImage', 'filler'])
        os.unlink(self.filler)
        self.assertTrue(kbuild.install_image(built, out))
        self.assertFalse(kbuild.install_image(built, out))

    def test_bless_and_its_recovery(self):
        res = support.write_results(os.path.join(self.dir, 'res'),
                                    flavors=('base', 'v3'))
        expected = os.path.join(self.dir, 'expected')
        os.mkdir(expected)
        path = os.path.join(expected, 'v3.json')
        with open(path, 'w', encoding='utf-8') as f:
            f.write('{"old": true}')
        self.fill()
        with self.assertRaises(OSError) as cm:
            regress.bless(res, expected)
        self.assertEqual(cm.exception.errno, errno.ENOSPC)
        with open(path, encoding='utf-8') as f:
            self.assertEqual(f.read(), '{"old": true}')
        self.assertFalse([n for n in os.listdir(expected)
                          if n.endswith('.tmp')])
        os.unlink(self.filler)
        regress.bless(res, expected)
        self.assertEqual(sorted(os.listdir(expected)),
                         ['base.json', 'v3.json'])


if __name__ == '__main__':
    unittest.main()
