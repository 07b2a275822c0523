"""A full disk while results are written: the previous file is kept
whole, no temporary file is left, and the error says what to do."""

import errno
import json
import os
import shutil
import tempfile
import unittest

import support
from stages import HarnessError
from stickydiff import regress
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
                       '--out', self.dir], out)
        self.assertEqual(rc, 2)
        self.assertIn('error: could not write ' + expected, out.getvalue())
        self.assertIn('No space left on device', out.getvalue())
        self.assertIn('run the command again', out.getvalue())


if __name__ == '__main__':
    unittest.main()
