"""A result file the differ cannot read is named on the terminal, and the
verdict says why it is FAIL."""

import os
import tempfile
import unittest

import support
from differ.analysis import analyse
from differ.summary import summary
from model.flavors import DEFAULT_FLAVORS


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
        absent = len(DEFAULT_FLAVORS) - 3       # base, v1, v3 were written
        self.assertEqual(lines[-1], 'verdict: FAIL (0 unexplained case(s), '
                         '1 unreadable result file(s), %d flavor(s) without '
                         'results)' % absent)

    def test_readable_files_name_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, flavors=('base', 'v1'))
            text = summary(analyse(tmp, full=False))
        self.assertNotIn('unreadable', text)


class PartialRunTest(unittest.TestCase):
    """A partial rerun is never OK: a default flavor without results, or
    results older than their flavor's kernel, are named and fail."""

    def test_every_missing_default_flavor_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, flavors=('base', 'v3'))
            analysis = analyse(tmp, full=False)
            lines = summary(analysis).splitlines()
        missing = [line for line in lines
                   if line.startswith('missing result file: ')]
        self.assertEqual(len(missing), len(analysis.missing))
        self.assertTrue(any(os.path.join(tmp, 'v1.json') in line and
                            'sticky.py suite v1' in line for line in missing),
                        missing)
        self.assertTrue(lines[-1].startswith('verdict: FAIL'), lines[-1])
        self.assertIn('flavor(s) without results', lines[-1])

    def test_results_older_than_their_kernel_are_stale(self):
        with tempfile.TemporaryDirectory() as tmp:
            results = support.write_results(os.path.join(tmp, 'results'))
            os.makedirs(os.path.join(tmp, 'v3'))
            image = os.path.join(tmp, 'v3', 'bzImage')
            with open(image, 'w', encoding='utf-8') as f:
                f.write('kernel')
            made = os.path.getmtime(os.path.join(results, 'v3.json'))
            os.utime(image, (made + 60, made + 60))
            analysis = analyse(results, full=False)
            self.assertEqual(analysis.stale, ['v3'])
            lines = summary(analysis).splitlines()
            self.assertIn('stale results: v3 ran before its kernel was '
                          'last built; run `python3 harness/sticky.py suite '
                          'v3` again', lines)
            self.assertIn('stale: v3', lines[-1])
            os.utime(image, (made - 60, made - 60))
            self.assertEqual(analyse(results, full=False).stale, [])


class RegressionViewTest(unittest.TestCase):
    """The report says which cases changed since the blessed results."""

    def run_report(self, tmp, mutate=None):
        import io
        from stickydiff import cli
        from differ import regress
        expected = os.path.join(tmp, 'expected')
        support.write_results(os.path.join(tmp, 'blessed'))
        regress.bless(os.path.join(tmp, 'blessed'), expected)
        results = support.write_results(os.path.join(tmp, 'results'),
                                        mutate=mutate)
        out = io.StringIO()
        cli.main(['report', '--results', results, '--expected', expected,
                  '--out', os.path.join(tmp, 'out')], out)
        with open(os.path.join(tmp, 'out', 'report.md'),
                  encoding='utf-8') as f:
            return out.getvalue(), f.read()

    def test_unchanged_results_say_so(self):
        with tempfile.TemporaryDirectory() as tmp:
            text, md = self.run_report(tmp)
        self.assertIn('expected: no change', text)
        self.assertIn('No case changed its outcome', md)

    def test_a_changed_outcome_is_listed(self):
        def flip(flavor, data):
            if flavor == 'v3':
                case = data['cases'][0]
                case['ret'], case['errno'] = (0, '0') if case['ret'] else \
                    (-1, 'EACCES')
        with tempfile.TemporaryDirectory() as tmp:
            text, md = self.run_report(tmp, flip)
        self.assertIn('changes: v3 1', text)
        section = md.split('## Changed since')[1].split('\n## ')[0]
        self.assertIn('| v3 | 1 |', section)
        self.assertRegex(section, r'case \S+ \S+: \S+ .* -> ')


if __name__ == '__main__':
    unittest.main()
