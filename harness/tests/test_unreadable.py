"""A result file the differ cannot read is named on the terminal, and the
verdict says why it is FAIL."""

import os
import tempfile
import unittest

import support
from stickydiff.analysis import analyse
from stickydiff.summary import summary


class UnreadableResultTest(unittest.TestCase):
    def test_a_truncated_file_is_named_with_what_to_do(self):
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, flavors=('base', 'v1', 'v3'))
            path = os.path.join(tmp, 'v3.json')
            with open(path, encoding='utf-8') as f:
                text = f.read()
            with open(path, 'w', encoding='utf-8') as f:
                f.write(text[:len(text) // 2])
            lines = summary(analyse(tmp, full=False)).splitlines()
        named = [line for line in lines
                 if line.startswith('unreadable result file: ')]
        self.assertEqual(len(named), 1, lines)
        self.assertIn(path + ': not valid JSON (truncated?)', named[0])
        self.assertIn('sticky.py suite', named[0])
        self.assertEqual(lines[-1], 'verdict: FAIL (0 unexplained case(s), '
                         '1 unreadable result file(s))')

    def test_readable_files_name_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, flavors=('base', 'v1'))
            text = summary(analyse(tmp, full=False))
        self.assertNotIn('unreadable', text)


if __name__ == '__main__':
    unittest.main()
