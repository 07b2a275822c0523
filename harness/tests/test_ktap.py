"""harness/suite/ktap.py: a suite boot's verdict follows its KTAP, and the kernel
tree's kunit.py parse counts what the differ counts.

The fixture console is written here in the shape common/suite/runner.c prints
(nested KTAP, one result per case, kernel lines in between) from the
committed run of v3 (results/expected), judged against v3's expectations
(harness/suite/expect.py) as the guest judges it. Where a real suite boot is in
build/, its console is checked too.
"""

import gzip
import json
import os
import shutil
import tempfile
import unittest

import support
from boot import qemu
from model import cases as caseids
from differ.load import load_flavor, parse
from suite import expect
from suite import ktap

TOP = os.path.dirname(support.HARNESS)
EXPECTED = os.path.join(TOP, 'results', 'expected')
BUILD = os.path.join(TOP, 'build')
KUNIT = os.path.join(BUILD, 'pristine', ktap.KUNIT)
GROUPS = ('matrix', 'positions', 'ops', 'mounts')


def committed(flavor, keep):
    """The committed result data of a flavor, only the case ids keep()
    accepts."""
    path = os.path.join(EXPECTED, flavor + '.json')
    if not os.path.exists(path):
        raise unittest.SkipTest(f'{path} is absent')
    with open(path, encoding='utf-8') as f:
        data = json.load(f)
    data['cases'] = {cid: per for cid, per in data['cases'].items()
                     if keep(cid)}
    return data


def console_of(result, flavor, flip=()):
    """The console the suite prints for these cases, judged against the
    flavor's expectations; cases in flip are reported the other way."""
    _, labels, _, rows = expect.parse(expect.text(flavor))
    settings = [s for s in labels if s in result.settings or s == 'boot']
    out = ['Linux version 6.1.192+ (fixture)', 'Run /init as init process',
           'KTAP version 1', f'1..{2 + 4 * len(settings)}',
           '# expectations: flavor v3, fixture', 'ok 1 - sysctl',
           'audit: type=1702 audit(T): op=follow_link (kernel noise)',
           'ok 2 - log']
    tot = {k: 0 for k in ktap.TOTAL_KEYS}
    num = 2
    for setting in settings:
        for group in GROUPS:
            ids = sorted(cid for (s, cid) in result.cases if s == setting
                         and caseids.split_id(cid)['group'] == group)
            name = f'{setting}/{group}'
            out += ['  KTAP version 1', f'  # Subtest: {name}',
                    f'  1..{len(ids)}']
            bad = 0
            for n, cid in enumerate(ids, 1):
                case = result.cases[(setting, cid)]
                v = expect.verdict(rows[cid][labels.index(setting)],
                                   *expect.observed(case))
                if (setting, cid) in flip:
                    v = 'pass' if v == 'fail' else 'fail'
                tot[v] += 1
                if v == 'fail':
                    bad += 1
                    out += [f'  # failed: {cid} expected X got Y',
                            f'  not ok {n} - {cid}']
                else:
                    out.append(f'  ok {n} - {cid}'
                               + (' # XFAIL porting artifact: x'
                                  if v == 'xfail' else ''))
            num += 1
            out.append(f'{"not " if bad else ""}ok {num} - {name}')
    out += [f'# timing suite: 1 ms, {len(result.cases)}',
            ktap.totals_line(tot), 'reboot: Restarting system']
    return '\r\n'.join(out) + '\r\n'


class TotalsTest(unittest.TestCase):
    def test_last_totals_line(self):
        text = ('# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0\r\n'
                'x\n# Totals: pass:5 fail:2 xfail:3 xpass:0 skip:1 '
                'error:1\r\n')
        self.assertEqual(ktap.totals(text), {
            'pass': 5, 'fail': 2, 'xfail': 3, 'xpass': 0, 'skip': 1,
            'error': 1})
        self.assertIsNone(ktap.totals('# Totals: 22 passed, 0 failed\n'))
        self.assertEqual(ktap.totals_line(ktap.totals(text)),
                         '# Totals: pass:5 fail:2 xfail:3 xpass:0 skip:1 '
                         'error:1')


class SettleTest(unittest.TestCase):
    def settle(self, console, verdict='passed', status=0):
        with tempfile.NamedTemporaryFile('w', suffix='.log',
                                         delete=False) as f:
            f.write(console)
        self.addCleanup(os.unlink, f.name)
        return ktap.settle(qemu.Outcome(verdict, status, console=f.name))

    def test_all_ok_passes(self):
        out = self.settle('# Totals: pass:9 fail:0 xfail:2 xpass:0 skip:0 '
                          'error:0\n')
        self.assertEqual((out.verdict, out.reason), ('passed', ''))

    def test_failures_fail_whatever_the_exit_status(self):
        out = self.settle('# Totals: pass:9 fail:1 xfail:0 xpass:0 skip:0 '
                          'error:0\n')
        self.assertEqual((out.verdict, out.reason),
                         ('failed', 'KTAP fail:1 error:0'))
        out = self.settle('# Totals: pass:9 fail:0 xfail:0 xpass:0 skip:0 '
                          'error:2\n', 'failed', 1)
        self.assertEqual(out.reason, 'KTAP fail:0 error:2')

    def test_no_totals_line_fails(self):
        out = self.settle('KTAP version 1\n1..22\n')
        self.assertEqual(out.verdict, 'failed')
        self.assertIn('no KTAP', out.reason)

    def test_other_verdicts_kept(self):
        out = self.settle('', 'panic', None)
        self.assertEqual(out.verdict, 'panic')

    def test_the_document_decides_when_there_is_one(self):
        """A KTAP document beside the console: its totals count."""
        with tempfile.TemporaryDirectory() as tmp:
            console = os.path.join(tmp, 'console.log')
            doc = os.path.join(tmp, 'ktap.txt')
            with open(console, 'w', encoding='utf-8') as f:
                f.write('# Totals: pass:9 fail:0 xfail:0 xpass:0 skip:0 '
                        'error:0\n')
            with open(doc, 'w', encoding='utf-8') as f:
                f.write('# Totals: pass:8 fail:1 xfail:0 xpass:0 skip:0 '
                        'error:0\n')
            self.assertEqual(ktap.document(tmp), doc)
            out = ktap.settle(qemu.Outcome('passed', 0, console=console,
                                           ktap=doc))
            self.assertEqual((out.verdict, out.reason),
                             ('failed', 'KTAP fail:1 error:0'))
            os.unlink(doc)
            self.assertEqual(ktap.document(tmp), console)
        self.assertIsNone(ktap.document(tmp))


class UnpackTest(unittest.TestCase):
    """qemu.unpack_ktap: the guest's gzip'd KTAP channel to ktap.txt."""

    def unpack(self, raw):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        console = os.path.join(tmp, 'console.log')
        if raw is not None:
            with open(os.path.join(tmp, 'ktap.gz'), 'wb') as f:
                f.write(raw)
        got = qemu.unpack_ktap(tmp, console)
        if got == console:
            return None
        with open(got, encoding='utf-8') as f:
            return f.read()

    def test_whole_stream(self):
        text = 'KTAP version 1\n1..1\nok 1 - x\n' * 50
        self.assertEqual(self.unpack(gzip.compress(text.encode())), text)

    def test_truncated_stream_keeps_what_arrived(self):
        text = ''.join(f'ok {i} - case{i}\n' for i in range(5000))
        raw = gzip.compress(text.encode(), compresslevel=1)
        got = self.unpack(raw[:len(raw) // 2])
        self.assertTrue(got and text.startswith(got), got and got[-80:])
        self.assertLess(len(got), len(text))

    def test_no_stream_or_an_empty_one_means_the_console(self):
        self.assertIsNone(self.unpack(None))
        self.assertIsNone(self.unpack(b''))
        self.assertIsNone(self.unpack(gzip.compress(b'')))
        self.assertIsNone(self.unpack(b'not gzip at all'))


@unittest.skipUnless(os.path.isfile(KUNIT), f'{KUNIT} is absent (make '
                     f'kernels extracts the tree)')
class KunitParseTest(unittest.TestCase):
    """kunit.py parse on a fixture console against the differ."""

    @classmethod
    def setUpClass(cls):
        # The mounts group and the first matrix cases: every setting,
        # both pass and fail verdicts, kept small.
        data = committed('v3', lambda cid: cid.startswith(
            ('n/', 'm/d1777-root/lA/', 'o/d1777-A/lB/')))
        cls.data = data
        cls.result = parse('v3.json', json.dumps(data), 'v3')

    def check(self, console, result=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'console.log')
            with open(path, 'w', encoding='utf-8') as f:
                f.write(console)
            return ktap.check_flavor(KUNIT, path, result or self.result)

    def test_counts_agree(self):
        line, problems = self.check(console_of(self.result, 'v3'))
        self.assertEqual(problems, [])
        n = len(self.result.cases)
        self.assertIn(f'Ran {n + 2} tests: passed: {n + 2}', line)
        self.assertIn(f'cases: passed {n}, failed 0 | differ: {n} '
                      f'explained, 0 unexplained', line)
        self.assertIn('other tests: sysctl PASS, log PASS', line)

    def test_a_console_that_disagrees_is_caught(self):
        key = ('ps0-own1', 'n/d1777-root/lA/tfile-root/fB/trail/stat')
        self.assertIn(key, self.result.cases)
        line, problems = self.check(console_of(self.result, 'v3', {key}))
        self.assertIn('failed: 1', line)
        self.assertEqual(problems, [
            'ps0-own1/mounts: kunit.py passed 179, the differ explains 180',
            'ps0-own1/mounts: kunit.py failed 1, the differ leaves 0 '
            'unexplained; only kunit.py: ' + key[1]])

    def test_an_unexplained_case_fails_both(self):
        cid = 'n/d1777-root/lA/tfile-root/fB/trail/stat'
        data = json.loads(json.dumps(self.data))
        data['cases'][cid]['ps0-own1'] = 'ok a1 c:ok'     # v3 refuses it
        result = parse('v3.json', json.dumps(data), 'v3')
        line, problems = self.check(console_of(result, 'v3'), result)
        self.assertEqual(problems, [])
        self.assertIn('cases: passed %d, failed 1 | differ: %d explained, '
                      '1 unexplained' % (len(result.cases) - 1,
                                         len(result.cases) - 1), line)


@unittest.skipUnless(os.path.isfile(KUNIT), f'{KUNIT} is absent')
class RealBootTest(unittest.TestCase):
    """The KTAP document of the first suite boot in build/logs that has
    the result file of the same run (`sticky.py ktap-check`, a step of
    make check, runs every flavor's)."""

    def test_real_consoles(self):
        found = 0
        for flavor in support.FLAVORS:
            document = ktap.document(os.path.join(BUILD, 'logs',
                                                  f'{flavor}-suite'))
            results = os.path.join(BUILD, 'results')
            if not (document and os.path.isfile(
                    os.path.join(results, flavor + '.json'))):
                continue
            with open(document, encoding='utf-8', errors='replace') as f:
                if ktap.totals(f.read()) is None:
                    continue        # a boot from before the expectations
            found += 1
            result = load_flavor(results, flavor)
            line, problems = ktap.check_flavor(KUNIT, document, result)
            self.assertEqual(problems, [], f'{flavor}: {line}')
            break   # one is the format's check; ktap-check runs them all
        if not found:
            self.skipTest('no suite boot with expectations in build/logs')


if __name__ == '__main__':
    unittest.main()
