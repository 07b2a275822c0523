"""harness/suite/expect.py: the expectations shipped to the guest before a boot.

The writer's case ids must be the suite's (the C generator's, listed by
the host unit test), its tokens must accept every case of the committed real
run (results/expected, which the model explains), mark v1-hook61's porting
artifacts as xfail, and reject the wrong flavor's and a mutated token.
"""

import gzip
import json
import os
import subprocess
import tempfile
import unittest
from unittest import mock

import support
from boot import initramfs
from model import cases as caseids
from model.rule import ModelError
from suite import cli, expect

TOP = os.path.dirname(support.HARNESS)
EXPECTED = os.path.join(TOP, 'results', 'expected')
M_ID = 'm/d1777-root/lA/tfile-root/fB/trail/open_rdonly'


def committed(flavor):
    path = os.path.join(EXPECTED, flavor + '.json')
    if not os.path.exists(path):
        raise unittest.SkipTest(f'{path} is absent')
    with open(path, encoding='utf-8') as f:
        return json.load(f)['cases']


def judge_committed(flavor, expectations_of):
    """{verdict: [(setting, id)]} of flavor's committed cases against the
    expectations of another (or the same) flavor."""
    _, labels, _, rows = expect.parse(expect.text(expectations_of))
    out = {}
    for cid, per in committed(flavor).items():
        for setting, outcome in per.items():
            ret, errno, atime, cret, cerrno = caseids.parse_outcome(outcome)
            res = 'ok' if ret == 0 else errno
            ctl = None if cret is None else 'ok' if cret == 0 else cerrno
            tok = (rows[cid][labels.index(setting)]
                   if cid in rows and setting in labels else '?')
            out.setdefault(expect.verdict(tok, res, atime, ctl),
                           []).append((setting, cid))
    return out


def c_ids(*args):
    """The case ids of the C suite's generator (common/lib/matrix.c), as
    the host unit test lists them."""
    out = os.path.join(TOP, 'build', 'host', 'sticky-unit')
    subprocess.run(['make', '-s', '--no-print-directory', '-C',
                    os.path.join(TOP, 'common'), out], check=True)
    return subprocess.run([out, '--list', *args], check=True,
                          capture_output=True, text=True).stdout.split()


class IdsTest(unittest.TestCase):
    """The model's ids are the suite's: both generators read
    common/lib/cases.def, and must agree id for id, in order."""

    def test_the_suites_ids_in_its_order(self):
        ids = list(expect.case_ids())
        self.assertEqual(ids, c_ids())
        self.assertEqual(len(set(ids)), len(ids))
        self.assertEqual(ids[:2], [
            'm/d1777-root/lroot/tfile-root/froot/trail/open_rdonly',
            'm/d1777-root/lroot/tfile-root/fA/trail/open_rdonly'])

    def test_the_quick_ids_in_their_order(self):
        ids = list(expect.case_ids(quick=True))
        self.assertEqual(ids, c_ids('--quick'))
        self.assertLess(set(ids), set(expect.case_ids()))

    def test_every_id_rebuilds_params(self):
        for cid in expect.case_ids():
            caseids.params_of(cid)

    def test_same_ids_as_the_committed_run(self):
        self.assertEqual(set(expect.case_ids()), set(committed('v3')))


class StaleGuestTest(unittest.TestCase):
    """A guest binary older than common/lib/matrix.c runs other cases."""

    def cases(self, ids, settings=('boot', 'ps0-own-')):
        return [{'setting': s, 'id': cid} for s in settings for cid in ids]

    def test_the_matrix_passes(self):
        self.assertIsNone(cli.missing_cases(self.cases(expect.case_ids())))

    def test_fewer_or_unknown_cases_fail(self):
        ids = list(expect.case_ids())
        old = [c for c in ids if not c.endswith('/openat_dirfd')]
        why = cli.missing_cases(self.cases(old))
        self.assertIn(f'the guest ran {len(old)} cases, the matrix has '
                      f'{len(ids)} ({len(ids) - len(old)} not run, 0 '
                      f'unknown)', why)
        self.assertIn('make guest', why)
        why = cli.missing_cases(self.cases(ids + ['o/x']))
        self.assertIn('(0 not run, 1 unknown)', why)
        self.assertEqual(cli.missing_cases([]), 'no case was recorded')

    def test_quick_and_only_runs_are_checked_too(self):
        quick = list(expect.case_ids(quick=True))
        self.assertIsNone(cli.missing_cases(self.cases(quick), ['--quick']))
        why = cli.missing_cases(self.cases(quick[1:]), ['--quick'])
        self.assertIn('(1 not run, 0 unknown)', why)
        self.assertIn(f'the guest ran {len(quick)} cases, the matrix has '
                      f'{len(list(expect.case_ids()))}',
                      cli.missing_cases(self.cases(quick), []) or '')
        ops = [c for c in expect.case_ids() if c.startswith('o/')]
        self.assertIsNone(cli.missing_cases(self.cases(ops),
                                            ['--only', 'ops']))
        self.assertIn('(1 not run', cli.missing_cases(
            self.cases(ops[:-1]), ['--only', 'ops']))
        self.assertIsNone(cli.missing_cases([], ['--only', 'log']))


class SettingsTest(unittest.TestCase):
    def test_labels_and_knobs(self):
        self.assertEqual([s for s, _ in expect.settings('base')],
                         ['boot', 'ps0-own-', 'ps1-own-'])
        v1 = dict(expect.settings('v1'))
        self.assertEqual(list(v1), ['boot', 'ps0-own0', 'ps0-own1',
                                    'ps1-own0', 'ps1-own1'])
        self.assertEqual(v1['ps0-own1']['weak_sticky_symlinks'], 0)
        self.assertEqual(v1['ps1-own0']['weak_sticky_symlinks'], 1)
        self.assertEqual(v1['ps1-own0']['protected_symlinks'], 1)
        self.assertEqual(dict(expect.settings('v3'))['ps0-own1']
                         ['protected_sticky_symlinks'], 1)
        self.assertEqual(dict(expect.settings('v3y'))['boot']
                         ['protected_sticky_symlinks'], 1)
        self.assertEqual(dict(expect.settings('v3'))['boot']
                         ['protected_sticky_symlinks'], 0)

    def test_unmodelled_flavor_refused(self):
        with self.assertRaises(expect.ExpectError) as err:
            expect.text('mutant-owner')
        self.assertIn('no rule model', str(err.exception))


class FormatTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = expect.text('v1-hook61')

    def test_header_and_round_trip(self):
        lines = self.text.splitlines()
        header = [x for x in lines if not x.startswith('#')][:7]
        self.assertEqual(header[:3], [
            'sticky-expect 1', 'flavor v1-hook61',
            'settings boot ps0-own0 ps0-own1 ps1-own0 ps1-own1'])
        self.assertEqual(header[3:], [
            'xfail A atime touched before LSM hook',
            'xfail E ELOOP before LSM hook',
            'log single 1 burst 9 both 0 release 1 suppressed 91',
            f'cases {len(list(expect.case_ids()))}'])
        parts = expect.parse(self.text)
        self.assertEqual(expect.parse(expect.render(*parts)), parts)
        self.assertLess(len(self.text), 500000)

    def test_equal_tokens_are_written_once(self):
        line = next(x for x in self.text.splitlines()
                    if x.startswith(M_ID + ' '))
        # with fs.protected_symlinks=1 (boot, ps1-*) mainline refuses
        # first; v1's hook alone (ps0-own1) refuses after touch_atime()
        self.assertEqual(line.split()[1:], [
            'EACCES,0,ok', 'ok,1,ok', 'EACCES,1,ok,A', 'EACCES,0,ok', '='])
        _, _, _, rows = expect.parse(self.text)
        self.assertEqual(rows[M_ID][4], 'EACCES,0,ok')

    def test_log_lines_follow_the_model(self):
        # no message without a rule (base) or with it compiled out
        self.assertEqual(expect.log_line('base'), 'log single 0 burst 0')
        self.assertEqual(expect.log_line('v1-nosec'),
                         'log single 0 burst 0 both 0 release 0 '
                         'suppressed 0')
        # a rule before may_follow_link() reaches 'both' too: 102 calls
        self.assertTrue(expect.log_line('v3y-dlock').endswith(
            'suppressed 92'))

    def test_no_prediction_is_a_question_mark(self):
        real = expect.predict

        def predict(case, config):
            if case['params']['op'] == 'chmod':
                raise ModelError('not modelled here')
            return real(case, config)
        with mock.patch.object(expect, 'predict', predict):
            _, _, _, rows = expect.parse(expect.text('v3'))
        chmod = [cid for cid in rows if cid.endswith('/chmod')]
        self.assertEqual(len(chmod), 84)
        self.assertTrue(all(rows[c] == ['?'] * 5 for c in chmod))
        self.assertEqual(expect.verdict('?', 'ok', False, 'ok'), 'fail')

    def test_bad_files_refused(self):
        for bad in ('flavor v3\n', 'sticky-expect 1\nflavor v3\n'
                    'settings boot\ncases 2\nm/a ok,0,ok\n',
                    'sticky-expect 1\nflavor v3\nsettings boot b\ncases 1\n'
                    'm/a = ok,0,ok\n'):
            with self.assertRaises(expect.ExpectError, msg=bad):
                expect.parse(bad)

    def test_mutate_changes_one_token(self):
        mutated = expect.mutate(self.text, 'ps0-own0', M_ID, 'EACCES,0,ok')
        before, after = expect.parse(self.text), expect.parse(mutated)
        changed = [(cid, i) for cid, toks in after[3].items()
                   for i, tok in enumerate(toks) if before[3][cid][i] != tok]
        self.assertEqual(changed, [(M_ID, 1)])
        with self.assertRaises(expect.ExpectError):
            expect.mutate(self.text, 'ps0-own-', M_ID, 'ok,1,ok')


class VerdictTest(unittest.TestCase):
    """The host's mirror of common/lib/expect.c expect_judge()."""

    def test_verdicts(self):
        v = expect.verdict
        self.assertEqual(v('EACCES,0,ok', 'EACCES', False, 'ok'), 'pass')
        self.assertEqual(v('EACCES,0,ok', 'EACCES', True, 'ok'), 'fail')
        self.assertEqual(v('EACCES,0,ok', 'ok', False, 'ok'), 'fail')
        self.assertEqual(v('EACCES,0,ok', 'EACCES', False, None), 'fail')
        self.assertEqual(v('ok,0,-', 'ok', None, None), 'pass')
        self.assertEqual(v('ok,0,-', 'ok', False, 'ok'), 'fail')
        self.assertEqual(v('EACCES,1,ok,A', 'EACCES', True, 'ok'), 'xfail')
        self.assertEqual(v('EACCES,1,ok,A', 'EACCES', False, 'ok'), 'fail')


class CommittedRunTest(unittest.TestCase):
    """results/expected holds a real run the model explains: its own
    expectations accept every case; another flavor's do not."""

    def test_every_flavor_accepts_its_committed_run(self):
        for flavor in support.FLAVORS:
            got = judge_committed(flavor, flavor)
            self.assertEqual(got.get('fail', [])[:3], [], flavor)
            xfail = len(got.get('xfail', []))
            # v1-hook61: 1,268 atime + 68 ELOOP artifact cases (README)
            self.assertEqual(xfail, 1336 if flavor == 'v1-hook61' else 0,
                             flavor)

    def test_wrong_flavor_fails(self):
        got = judge_committed('v3y', 'base')
        fail = set(got['fail'])
        # base has no ps0-own0 .. ps1-own1: none of those cases is passed
        self.assertEqual(len(fail), 4 * len(list(expect.case_ids())) + 148)
        self.assertIn(('boot', 'p/d1777-root/lA/tdir/fB/inter/open_rdonly'),
                      fail)
        got = judge_committed('v3y', 'v3')
        self.assertEqual({s for s, _ in got['fail']}, {'boot'})

    def test_v1_expectations_fail_v1_hook61_artifacts(self):
        got = judge_committed('v1-hook61', 'v1')
        self.assertEqual(len(got['fail']), 1336)
        self.assertNotIn('xfail', got)


class InitramfsTest(unittest.TestCase):
    def test_second_archive_holds_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            base = os.path.join(tmp, 'base.cpio.gz')
            c = initramfs.Cpio()
            c.dir('etc')
            with open(base, 'wb') as f:
                f.write(gzip.compress(c.finish(), mtime=0))
            out = os.path.join(tmp, 'v3', 'initramfs.cpio.gz')
            initramfs.append(base, {expect.GUEST_PATH: b'x\n'}, out)
            with open(out, 'rb') as f:
                data = f.read()
            with open(base, 'rb') as f:
                self.assertTrue(data.startswith(f.read()))
            cpio = gzip.decompress(data)
            self.assertIn(b'etc/sticky\0', cpio)
            self.assertIn(b'etc/sticky/expect.txt\0', cpio)
            self.assertEqual(cpio.count(b'TRAILER!!!'), 2)
            mtime = os.path.getmtime(out)
            initramfs.append(base, {expect.GUEST_PATH: b'x\n'}, out)
            self.assertEqual(os.path.getmtime(out), mtime,
                             'rewritten although unchanged')


if __name__ == '__main__':
    unittest.main()
