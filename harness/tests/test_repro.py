"""model/repro.py: a suite case as a script a reader runs as root.

On the host only: the scripts of cases of every group are valid sh, write
every knob of their setting, make each link as its owner (or by root and
hand it over where the owner may not create it), use sticky-suite's
single-op mode exactly where no shell tool does the op with the
follower's ids, and state the kernel each case needs; `sticky.py repro`
names a wrong id and how to list the ids. `sticky.py repro --check`
(make check's step repro) runs such scripts in guests.
"""

import os
import re
import shutil
import subprocess
import sys
import time
import unittest

import support
from model import cases as caseids
from model import repro
from model.table import TABLE

STICKY = os.path.join(support.HARNESS, 'sticky.py')
ALL_IDS = list(caseids.case_ids())


def record(cid, setting='ps0-own1', outcome='EACCES a0 c:ok'):
    return caseids.expand_case(cid, setting, outcome)


def first(pred):
    return next(c for c in ALL_IDS if pred(caseids.split_id(c)))


def ops_lines(text):
    """The lines that do the control and the op."""
    return [line for line in text.splitlines()
            if line.startswith(('ctl=$(', 'res=$('))]


# one case per group, position, op and follower
SAMPLE = sorted({*(first(lambda a, g=g: a['group'] == g)
                   for g, _, _ in TABLE.groups),
                 *(first(lambda a, p=p: a['position'] == p)
                   for p in TABLE.positions),
                 *(first(lambda a, o=o: a['op'] == o) for o in TABLE.ops),
                 *(first(lambda a, f=f: a['follower'] == f)
                   for f in TABLE.followers)})


class ScriptTest(unittest.TestCase):
    def test_every_group_position_op_and_follower_is_valid_sh(self):
        sh = shutil.which('dash') or shutil.which('sh')
        for cid in SAMPLE:
            for setting in ('boot', 'ps0-own1', 'ps1-own0', 'ps0-own-'):
                with self.subTest(cid=cid, setting=setting):
                    text = repro.script(record(cid, setting))
                    res = subprocess.run([sh, '-n'], input=text, text=True,
                                         capture_output=True)
                    self.assertEqual(res.returncode, 0, res.stderr)
                    self.assertTrue(text.startswith('#!/bin/sh\n'))
                    self.assertIn('#   ' + cid + '\n', text)
                    self.assertIn('echo "outcome: $res a$a c:$ctl"', text)

    def test_every_knob_is_written(self):
        cid = SAMPLE[0]
        text = repro.script(record(cid, 'ps1-own1'))
        self.assertIn('knob /proc/sys/fs/protected_symlinks 1\n', text)
        self.assertIn('knob /proc/sys/fs/protected_hardlinks 0\n', text)
        for path, value in (('fs/weak-sticky-symlinks', 0),
                            ('fs/protected-sticky-symlinks', 1),
                            ('kernel/yama/protected_sticky_symlinks', 1)):
            self.assertIn('then knob /proc/sys/%s %d;' % (path, value), text)
        text = repro.script(record(cid, 'ps0-own0'))
        self.assertIn('knob /proc/sys/fs/protected_symlinks 0\n', text)
        self.assertIn('then knob /proc/sys/fs/weak-sticky-symlinks 1;', text)
        self.assertIn('then knob /proc/sys/fs/protected-sticky-symlinks 0;',
                      text)
        self.assertIn("needs a kernel with a 2010 revision's knob", text)
        # boot: Debian's fs.protected_symlinks=1, the revision's knob as
        # booted unless the results' knobs are given
        text = repro.script(record(cid, 'boot'))
        self.assertIn('knob /proc/sys/fs/protected_symlinks 1\n', text)
        self.assertNotIn('then knob /proc/sys/fs/protected-sticky', text)
        knobs = {'protected_symlinks': 1, 'protected_hardlinks': 0,
                 'protected_fifos': 0, 'protected_regular': 0,
                 'protected_sticky_symlinks': 1, 'weak_sticky_symlinks': None,
                 'kernel_yama_protected_sticky_symlinks': None}
        text = repro.script(dict(record(cid, 'boot'), knobs=knobs))
        self.assertIn('then knob /proc/sys/fs/protected-sticky-symlinks 1;',
                      text)
        self.assertNotIn('weak-sticky', text)
        # base's settings write mainline's knob and no revision's
        text = repro.script(record(cid, 'ps1-own-'))
        self.assertIn('knob /proc/sys/fs/protected_symlinks 1\n', text)
        self.assertNotIn('then knob /proc/sys/fs/weak', text)

    def test_links_are_made_by_their_owner(self):
        cid = 'm/d1777-root/lA/tfile-root/fB/trail/open_rdonly'
        text = repro.script(record(cid))
        self.assertIn('"$SETPRIV" --reuid=1000 --regid=1000 --clear-groups '
                      'ln -s /tmp/sticky/sa/t/file-root /tmp/sticky/sa/'
                      'd1777-root/trail-lA-tfile-root\n', text)
        self.assertNotIn('chown -h', text)
        # B may not create in A's 0755 directory: root makes it, hands it
        cid = 'm/d0755-A/lB/tfile-root/fB/trail/open_rdonly'
        text = repro.script(record(cid))
        self.assertIn('ln -s /tmp/sticky/sa/t/file-root /tmp/sticky/sa/'
                      'd0755-A/trail-lB-tfile-root\nchown -h 1001:1001 ',
                      text)
        # both links of a chain, the second one first
        cid = first(lambda a: a['position'] == 'chain-xdir'
                    and a['link_owner'] == 'A')
        lay = repro.layout(cid)
        text = repro.script(record(cid))
        self.assertLess(text.index('ln -s %s %s' % (
                            lay['links'][1]['body'], lay['links'][1]['path'])),
                        text.index('ln -s %s %s' % (
                            lay['links'][0]['body'],
                            lay['links'][0]['path'])))
        self.assertIn('--reuid=1000 --regid=1000 --clear-groups ln -s %s'
                      % lay['links'][1]['path'], text)

    def test_layout_is_the_suites(self):
        """Paths as common/lib/layout.c makes them (the C unit test checks
        the C side; these are its shapes)."""
        lay = repro.layout('p/d1777-A/lB/tdir/fA/dotdot/open_rdonly')
        self.assertEqual(lay['path'], '/tmp/sticky/sa/d1777-A/'
                         'dotdot-lB-tdir/../f')
        self.assertEqual(lay['links'][0]['body'], '/tmp/sticky/sa/t/dir/sub')
        self.assertEqual(lay['ctl_target'], '/tmp/sticky/sa/t/dir/sub/../f')
        lay = repro.layout('p/d1777-root/lA/tfile-root/fB/chain1ns/'
                           'open_rdonly')
        self.assertEqual(lay['links'][0]['path'], '/tmp/sticky/sa/ns/'
                         'd1777-root-chain1ns-lA-tfile-root')
        self.assertEqual(lay['links'][0]['body'], lay['links'][1]['path'])
        lay = repro.layout('o/d1777-root/lA/tfile-A/fB/trail/openat2_cached')
        self.assertEqual(lay['path'], '/tmp/sticky/sb/d1777-root/'
                         'trail-lA-tfile-A')
        lay = repro.layout('o/d1777-root/lA/tdir-ww/fB/trail/tmpfile_linkat')
        self.assertTrue(lay['path'].endswith('/trail-lA-tdir-ww/tmpfile'))
        lay = repro.layout('n/d1777-root/lA/tdir/fB/inter/open_rdonly')
        self.assertEqual(lay['path'], '/tmp/sticky/nf/d1777-root/'
                         'inter-lA-tdir/f')

    def test_single_op_mode_exactly_where_needed(self):
        for cid in SAMPLE:
            ax = caseids.split_id(cid)
            plain = 'plain' in TABLE.followers[ax['follower']].flags
            want = not (plain and ax['op'] in repro.SHELL_OPS)
            text = repro.script(record(cid))
            with self.subTest(cid=cid):
                self.assertEqual(repro.single_op_needed(cid) is not None,
                                 want)
                for line in ops_lines(text):
                    self.assertEqual('--op %s' % ax['op'] in line, want,
                                     line)
                    if not want:
                        self.assertNotIn('$SUITE', line)
                self.assertEqual('[ -x "$SUITE" ]' in text, want)
        # ids no shell tool sets: the follower's four ids, as the table has
        text = repro.script(record(
            'm/d1777-root/lB/tfile-root/feuid0-fsuidA/trail/open_rdonly'))
        self.assertIn('res=$(single "$SUITE" --op open_rdonly --ids '
                      '0,0,0,1000 /tmp/sticky/sa/d1777-root/trail-lB-'
                      'tfile-root)', text)
        # setuid-exec: A executes a setuid-root copy of the suite
        text = repro.script(record(
            'm/d1777-root/lB/tfile-root/fsetuid-exec/trail/open_rdonly'))
        self.assertIn('chmod 6755 /tmp/sticky/sa/x/sticky-setuid', text)
        self.assertIn('res=$(single "$SETPRIV" --reuid=1000 --regid=1000 '
                      '--clear-groups /tmp/sticky/sa/x/sticky-setuid --op '
                      'open_rdonly ', text)
        # a chown op says to whom
        text = repro.script(record('o/d1777-root/lA/tfile-A/fB/trail/chown'))
        self.assertIn('--op chown --ids 1001,1001,0,1001 --chown 1000 ', text)
        # a shell tool as B
        text = repro.script(record('o/d1777-root/lA/tfile-A/fB/trail/stat'))
        self.assertIn('res=$(tool "$SETPRIV" --reuid=1001 --regid=1001 '
                      '--clear-groups stat -L -c %i /tmp/sticky/sa/', text)

    def test_needs_a_kernel_new_enough(self):
        for op, version in (('openat2_no_symlinks', '5.6'),
                            ('openat2_cached', '5.12'),
                            ('open_rdonly', '3.6')):
            cid = first(lambda a, op=op: a['op'] == op
                        and a['group'] != 'mounts')
            with self.subTest(op=op):
                self.assertIn('# Needs Linux >= %s: ' % version,
                              repro.script(record(cid)))
        cid = first(lambda a: a['group'] == 'mounts')
        self.assertEqual(repro.needs(cid)[0], (5, 10))
        self.assertIn('MS_NOSYMFOLLOW', repro.script(record(cid)))

    def test_outcomes_and_the_record(self):
        cid = SAMPLE[0]
        text = repro.script(record(cid, 'ps0-own1', 'ok a1 c:ok'),
                            {'v1': 'EACCES a0 c:ok', 'v3': 'ok a1 c:ok'})
        self.assertIn('# Recorded in the results: ok a1 c:ok\n', text)
        self.assertRegex(text, r'#   v1 +EACCES a0 c:ok\n#   v3 +ok a1')
        self.assertIn("= 'ok a1 c:ok' ]; then echo \"as recorded\"", text)
        self.assertEqual(repro.outcome_of(record(cid, 'boot', 'ok a- c:-')),
                         'ok a- c:-')

    def test_fast_enough_for_every_case_view(self):
        t0 = time.monotonic()
        for cid in ALL_IDS[:1200]:
            repro.script(record(cid))
        self.assertLess(time.monotonic() - t0, 5.0)

    def test_check_selection(self):
        outcomes = {}
        for cid in ALL_IDS:
            refused = ('lA' in cid and '/fB/' in cid and 'd1777' in cid)
            outcomes[cid] = {'boot': 'ok a1 c:ok', 'ps0-own0': 'ok a1 c:ok',
                             'ps0-own1': ('EACCES a0 c:ok' if refused
                                          else 'ok a1 c:ok')}
        chosen = repro.check_selection(outcomes)
        self.assertEqual(chosen, repro.check_selection(outcomes))
        self.assertGreaterEqual(len(chosen), 20)
        groups = {caseids.split_id(c)['group'] for c, _ in chosen}
        self.assertEqual(groups, {g for g, _, _ in TABLE.groups})
        results = {outcomes[c][s].split()[0] for c, s in chosen}
        self.assertEqual(results, {'ok', 'EACCES'})
        ops = {caseids.split_id(c)['op'] for c, _ in chosen}
        self.assertEqual(ops, set(TABLE.ops))
        self.assertTrue(any(s == 'boot' for _, s in chosen))


class CommandTest(unittest.TestCase):
    def run_repro(self, *words):
        return subprocess.run([sys.executable, STICKY, 'repro', *words],
                              capture_output=True, text=True, timeout=120)

    def test_wrong_id_is_named_with_how_to_list_ids(self):
        for cid in ('m/nosuch', 'm/d1777-root/lA/tfile-root/fB/trail/stat'):
            with self.subTest(cid=cid):
                res = self.run_repro(cid)
                self.assertEqual(res.returncode, 2)
                self.assertIn(repr(cid), res.stderr)
                self.assertIn('sticky-unit --list', res.stderr)
                self.assertIn('case_ids()', res.stderr)

    def test_prints_the_script(self):
        cid = 'm/d1777-root/lA/tfile-root/fB/trail/open_rdonly'
        res = self.run_repro(cid, '--setting', 'ps1-own1', '--flavor', 'v1')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(res.stdout.startswith('#!/bin/sh\n'))
        self.assertIn('under the setting ps1-own1', res.stdout)
        self.assertRegex(res.stdout, r'#   v3 +\S+ a')
        self.assertTrue(re.search(r'knob /proc/sys/fs/weak-sticky-symlinks 0',
                                  res.stdout))
        res = self.run_repro(cid, '--setting', 'ps9-own1')
        self.assertEqual(res.returncode, 2)
        self.assertIn('no setting', res.stderr)


if __name__ == '__main__':
    unittest.main()
