"""harness/experiments/idmapjudge.py: the host re-judges the guest's idmap records.

The records are built here by hand in the shape common/programs/idmap.c writes;
each test spoils one thing the judge must catch.
"""

import copy
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import flavors as flv  # noqa: E402
from experiments import idmapcases as ic  # noqa: E402
from experiments import idmapjudge as ij  # noqa: E402

FLAVORS = flv.load()
OWNS = {f.knob_path for f in FLAVORS.values() if f.knob_path}
SETS = ic.settings(FLAVORS['v1'], OWNS)
RULE = ic.RULE_RAW


def knob_value(v):
    return None if v == 'absent' else int(v)


def good_records(rule=RULE):
    """What a correct guest writes for every case of SETS."""
    recs = [{'type': 'facts', 'uname': '6.1'}]
    for s in SETS:
        recs.append({'type': 'setting', 'setting': s.label,
                     'knobs': {ij.knob_key(k): knob_value(v)
                               for k, v in s.knobs}, 'applied': True})
        for c in ic.CASES:
            fx = c.fixture
            ret, err = ic.predict(rule, s.ps, s.own, c)
            u = c.fsuid
            recs.append({
                'type': 'case', 'setting': s.label, 'id': c.id,
                'group': 'idmap',
                'params': {'mount': c.mount, 'fixture': fx.name,
                           'dir_mode': fx.mode, 'dir_uid': fx.dir_uid,
                           'link_uid': fx.link_uid, 'fsuid': u,
                           'position': c.position, 'op': 'open_rdonly',
                           'idmapped': c.mount == 'idmap'},
                'read': {'ruid': u, 'euid': u, 'suid': u, 'fsuid': u,
                         'fsgid': u,
                         'dir_seen': ic.shown(fx.dir_uid, c.mount),
                         'link_seen': ic.shown(fx.link_uid, c.mount)},
                'control_ret': 0, 'control_errno': '0',
                'ret': ret, 'errno': err, 'expect_ret': ret,
                'expect_errno': err, 'ok': True, 'why': ''})
    for x in ic.LIMITS:
        recs.append({'type': 'limit', 'id': x.id, 'ret': x.expect[0],
                     'result': x.expect[1], 'expect_ret': x.expect[0],
                     'expect': x.expect[1], 'ok': True, 'why': ''})
    recs.append({'type': 'end', 'status': 0})
    return recs


N = len(SETS) * len(ic.CASES) + len(ic.LIMITS)
CONSOLE = (f'KTAP version 1\n1..{N}\n# Totals: pass:{N} fail:0 xfail:0 '
           f'xpass:0 skip:0 error:0\n')


def find(recs, setting, case_id):
    return next(r for r in recs if r.get('setting') == setting and
                r.get('id') == case_id)


class TestJudge(unittest.TestCase):
    def judge(self, recs, console=CONSOLE, status=0, rule=RULE):
        return ij.judge(rule, SETS, recs, console, status)

    def assertFlags(self, recs, text, **kw):
        rows, problems = self.judge(recs, **kw)
        found = [p for r in rows for p in r['problems']] + problems
        self.assertTrue(any(text in p for p in found), found)

    def test_clean_run_passes(self):
        rows, problems = self.judge(good_records())
        self.assertEqual(problems, [])
        self.assertEqual(len(rows), N)
        self.assertTrue(all(r['ok'] for r in rows))

    def test_wrong_rule_fails(self):
        # The guest ran v1; the host predicting v3 must not pass it.
        rows, _ = self.judge(good_records(), rule=ic.RULE_MAPPED)
        bad = {(r['setting'], r['id']) for r in rows if not r['ok']}
        self.assertIn(('ps0-own1', 'idmap/d1777-0-l1000/f11000/trail'), bad)
        self.assertIn(('ps0-own1', 'idmap/d1777-5000-l5000/f0/trail'), bad)

    def test_result_differs_even_if_the_guest_says_ok(self):
        recs = good_records()
        r = find(recs, 'ps0-own1', 'idmap/d1777-0-l1000/f11000/trail')
        r.update(ret=0, errno='0', expect_ret=0, expect_errno='0')
        self.assertFlags(recs, 'expected -1 EACCES, got 0 0')

    def test_each_precondition(self):
        spoil = [
            (('read', 'fsuid', 0), 'follower fsuid read back 0'),
            (('read', 'link_seen', 1000), 'link_seen 1000'),
            (('params', 'idmapped', False), 'idmap mount idmapped=False'),
            (('params', 'link_uid', 0), 'params.link_uid'),
            ((None, 'control_ret', -1), 'control (no link)'),
            ((None, 'expect_ret', 7), 'another prediction'),
        ]
        for (where, key, value), text in spoil:
            with self.subTest(key=key):
                recs = good_records()
                r = find(recs, 'ps1-own0', 'idmap/d1777-0-l1000/f11000/trail')
                (r[where] if where else r)[key] = value
                self.assertFlags(recs, text)

    def test_knobs_must_read_back(self):
        recs = good_records()
        s = next(r for r in recs if r.get('type') == 'setting' and
                 r['setting'] == 'ps0-own1')
        s['knobs']['weak_sticky_symlinks'] = 1
        self.assertFlags(recs, 'knob fs/weak-sticky-symlinks read back 1')
        s['knobs']['weak_sticky_symlinks'] = 0
        s['knobs']['protected_sticky_symlinks'] = 0
        self.assertFlags(recs, 'knob fs/protected-sticky-symlinks read back 0')
        s['knobs']['protected_sticky_symlinks'] = None
        s['applied'] = False
        self.assertFlags(recs, 'did not apply')

    def test_missing_stray_and_double_records(self):
        recs = good_records()
        recs.remove(find(recs, 'ps1-own1', 'plain/d1777-0-l1000/f0/trail'))
        self.assertFlags(recs, 'no case record')
        recs = good_records()
        extra = copy.deepcopy(find(recs, 'ps1-own1', 'plain/d1777-0-l1000/'
                                   'f0/trail'))
        recs.insert(-1, extra)
        self.assertFlags(recs, 'recorded twice')
        extra = copy.deepcopy(extra)
        extra['id'] = 'plain/elsewhere'
        recs.insert(-1, extra)
        self.assertFlags(recs, 'unplanned case')
        recs = good_records()
        recs.insert(-1, {'type': 'error', 'id': 'setup', 'reason': 'x'})
        self.assertFlags(recs, "guest error 'setup'")

    def test_limits_are_judged_by_the_host(self):
        recs = good_records()
        lim = find(recs, None, 'mount2-onto-symlink')
        lim['result'] = 'link'
        self.assertFlags(recs, 'expected 0 target, got 0 link')
        recs.remove(lim)
        self.assertFlags(recs, 'no limit record')
        recs = good_records()
        recs.insert(-1, dict(find(recs, None, 'tmpfs-unmapped-owner')))
        self.assertFlags(recs, 'limit tmpfs-unmapped-owner recorded twice')
        recs = good_records()
        find(recs, None, 'tmpfs-unmapped-owner')['expect'] = '0'
        self.assertFlags(recs, 'shipped another prediction')

    def test_totals_and_status(self):
        self.assertFlags(good_records(), '0 KTAP totals', console='')
        self.assertFlags(good_records(), 'console totals pass:1',
                         console=CONSOLE.replace(f'pass:{N}', 'pass:1'))
        self.assertFlags(good_records(), 'exit status 1 after a clean',
                         status=1)
        recs = good_records()
        find(recs, 'ps1-own1', 'plain/d1777-0-l1000/f0/trail')['ret'] = 0
        self.assertFlags(recs, 'exit status 0 after failures')


if __name__ == '__main__':
    unittest.main()
