"""Unit tests of harness/experiments/beyond.py: coverage rules, attack and namespace
verdicts, bench statistics and the markdown section (no QEMU)."""

import os
import sys
import unittest

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)

from experiments import beyond  # noqa: E402
import flavors  # noqa: E402

FLAVORS = flavors.load()
BASE, V1, NOSEC, V3, V3Y = (FLAVORS[n] for n in
                            ('base', 'v1', 'v1-nosec', 'v3', 'v3y'))
KEY = {'v1': 'weak_sticky_symlinks', 'v1-nosec': 'weak_sticky_symlinks',
       'v3': 'protected_sticky_symlinks', 'v3y': 'protected_sticky_symlinks'}


def attack_rec(flavor, setting, variant, successes, tries=100):
    ps = int(setting[2])
    own = None if setting.endswith('-') else int(setting[-1])
    knobs = {'protected_symlinks': ps, 'protected_hardlinks': 1,
             'weak_sticky_symlinks': None, 'protected_sticky_symlinks': None}
    if own is not None:
        knobs[KEY[flavor.name]] = beyond.own_value(flavor, own)
    return {'setting': setting, 'ps': ps, 'own': own, 'knobs': knobs,
            'variant': variant, 'tries': tries, 'successes': successes}


def truthful(flavor, race=50, tries=100):
    """Records a correct kernel would give: covered -> 0, planted -> all."""
    recs = []
    for setting in beyond.settings_of(flavor):
        for v in beyond.VARIANTS:
            r = attack_rec(flavor, setting, v, 0, tries)
            if not beyond.covered(flavor, r['ps'], r['own'],
                                  beyond.LINK_OF[v]):
                r['successes'] = race if v == 'race' else tries
            recs.append(r)
    return recs


def failures(checks):
    return [c['line'] for c in checks if not c['ok']]


class Coverage(unittest.TestCase):
    def test_own_effective(self):
        self.assertFalse(beyond.own_effective(BASE))
        self.assertTrue(beyond.own_effective(V1))
        self.assertFalse(beyond.own_effective(NOSEC))
        self.assertTrue(beyond.own_effective(V3))
        self.assertTrue(beyond.own_effective(V3Y))

    def test_mainline_covers_trailing_only(self):
        self.assertTrue(beyond.covered(BASE, 1, None, 'trailing'))
        self.assertFalse(beyond.covered(BASE, 1, None, 'intermediate'))
        self.assertFalse(beyond.covered(BASE, 0, None, 'trailing'))

    def test_own_knob_covers_every_link(self):
        for f in (V1, V3, V3Y):
            self.assertTrue(beyond.covered(f, 0, 1, 'intermediate'))
            self.assertFalse(beyond.covered(f, 0, 0, 'intermediate'))
        self.assertFalse(beyond.covered(NOSEC, 0, 1, 'trailing'))
        self.assertTrue(beyond.covered(NOSEC, 1, 1, 'trailing'))

    def test_settings_and_values(self):
        self.assertEqual(beyond.settings_of(BASE), ['ps0-own-', 'ps1-own-'])
        self.assertEqual(len(beyond.settings_of(V3)), 4)
        self.assertEqual(beyond.own_value(V1, 1), 0)
        self.assertEqual(beyond.own_value(V3, 1), 1)


class Attack(unittest.TestCase):
    def test_truthful_kernels_pass(self):
        for f in (BASE, V1, NOSEC, V3, V3Y):
            checks = beyond.judge_attacks(f, truthful(f))
            self.assertEqual(failures(checks), [], f.name)

    def test_success_where_covered_fails(self):
        recs = truthful(V3)
        for r in recs:
            if r['setting'] == 'ps0-own1' and r['variant'] == 'race':
                r['successes'] = 1
        bad = failures(beyond.judge_attacks(V3, recs))
        self.assertEqual(len(bad), 1)
        self.assertIn('ps0-own1 race', bad[0])

    def test_race_never_won_proves_nothing(self):
        bad = failures(beyond.judge_attacks(BASE, truthful(BASE, race=0)))
        self.assertEqual(len(bad), 1)
        self.assertIn('proves nothing', bad[0])

    def test_planted_unprotected_must_always_succeed(self):
        recs = truthful(NOSEC)
        recs[1]['successes'] -= 1          # ps0-own0 planted
        bad = failures(beyond.judge_attacks(NOSEC, recs))
        self.assertEqual(len(bad), 1)
        self.assertIn('nothing races', bad[0])

    def test_knob_that_did_not_take(self):
        recs = truthful(V1)
        recs[3]['knobs']['weak_sticky_symlinks'] = 1   # ps0-own1 wants 0
        bad = failures(beyond.judge_attacks(V1, recs))
        self.assertTrue(any('did not take' in b for b in bad), bad)

    def test_missing_setting(self):
        recs = [r for r in truthful(V3Y) if r['setting'] != 'ps1-own1']
        bad = failures(beyond.judge_attacks(V3Y, recs))
        self.assertEqual(len(bad), 3)
        self.assertTrue(all('no record' in b for b in bad))

    def test_split_records(self):
        extra = [{'type': 'attack', 'variant': 'race'},
                 {'type': 'namespace', 'test': 'unshare'},
                 {'type': 'bench', 'path': 'trail'},
                 {'type': 'stress', 'x': 1}]
        got = beyond.split_records(extra)
        self.assertEqual(got['attack'], [{'variant': 'race'}])
        self.assertEqual(got['namespace'], [{'test': 'unshare'}])
        self.assertEqual(got['bench'], [{'path': 'trail'}])


def ok(errno='0'):
    return {'ret': 0 if errno == '0' else -1, 'errno': errno}


def ns_records(private_successes=0, root_stat='ENOENT', b_private='ENOENT'):
    recs = [{'test': 'unshare', 'root_newns': ok(), 'user_newns': ok('EPERM'),
             'user_newuser': ok('EPERM')}]
    for v, tries in (('race', 100), ('planted', 10)):
        recs.append({'test': 'attack', 'tmp': 'shared', 'variant': v,
                     'tries': tries, 'successes': tries // 2})
        recs.append({'test': 'attack', 'tmp': 'private', 'variant': v,
                     'tries': tries, 'successes': private_successes})
    recs.append({'test': 'admin-view', 'create': ok(),
                 'root_stat': ok(root_stat), 'root_readdir_lists': False,
                 'root_via_proc_root': ok()})
    recs.append({'test': 'shared-file',
                 'shared': {'a_write': ok(), 'b_read': ok()},
                 'private': {'a_write': ok(), 'b_read': ok(b_private)}})
    return recs


class Namespace(unittest.TestCase):
    def test_expected(self):
        checks = beyond.judge_namespace(ns_records())
        self.assertEqual(failures(checks), [])
        self.assertEqual(len(checks), 7)

    def test_private_tmp_leaks(self):
        bad = failures(beyond.judge_namespace(ns_records(1)))
        self.assertEqual(len(bad), 2)

    def test_isolation_not_in_force(self):
        bad = failures(beyond.judge_namespace(
            ns_records(root_stat='0', b_private='0')))
        self.assertEqual(len(bad), 2)

    def test_no_records(self):
        self.assertEqual(len(failures(beyond.judge_namespace([]))), 1)


def bench_rec(setting, path, op, mins, meds, clock=100):
    return {'setting': setting, 'path': path, 'op': op, 'scale': 10,
            'clock_ns': clock, 'min_ns': mins, 'median_ns': meds}


def small_table():
    recs = {'base': [bench_rec(s, 'trail', 'stat', [40100], [40100])
                     for s in ('ps0-own-', 'ps1-own-')],
            'v3': [bench_rec('ps0-own0', 'trail', 'stat', [40100], [40100]),
                   bench_rec('ps0-own1', 'trail', 'stat', [40500],
                             [40900, 40500, 40500])]}
    return beyond.bench_table(recs)


class Bench(unittest.TestCase):
    def test_table_subtracts_clock_and_takes_min_and_median(self):
        t = beyond.bench_table({'base': [
            bench_rec('ps0-own-', 'trail', 'stat', [40100, 40010, 40500],
                      [41000, 42000, 50000])]})
        cell = t['base']['ps0-own-']['trail/stat']
        self.assertEqual(cell['min'], 3991.0)
        self.assertEqual(cell['fast'], 4000.0)
        self.assertEqual(cell['median'], 4190.0)

    def test_ratios_and_overheads(self):
        ratios, over = beyond.bench_ratios(small_table(), [BASE, V3])
        r = {(x['flavor'], x['setting']): x for x in ratios}
        self.assertEqual(r[('base', 'ps0-own-')]['ratio_min'], 1.0)
        self.assertEqual(r[('v3', 'ps0-own1')]['ratio_min'], 1.01)
        self.assertEqual(r[('v3', 'ps0-own1')]['ratio_fast'], 1.01)
        self.assertEqual(r[('v3', 'ps0-own1')]['ratio_median'], 1.01)
        o = {x['flavor']: x for x in over}
        self.assertEqual(o['base']['pct_min'], 0.0)
        self.assertEqual(o['v3']['pct_min'], 1.0)
        self.assertEqual(o['v3']['pct_fast'], 1.0)
        self.assertEqual(o['v3']['pct_median'], 1.0)

    def test_judge_bench_target(self):
        _, over = beyond.bench_ratios(small_table(), [BASE, V3])
        self.assertEqual(failures(beyond.judge_bench(over)), [])
        bad = failures(beyond.judge_bench(over, target=0.5))
        self.assertEqual(len(bad), 1)
        self.assertIn('v3', bad[0])

    def test_judge_bench_skips_the_no_link_control(self):
        over = [{'flavor': 'v3', 'knob': 'k', 'case': 'nolink/open_close',
                 'pct_fast': 1.07, 'pct_min': 0.0, 'pct_median': 0.0},
                {'flavor': 'v3', 'knob': 'k', 'case': 'trail/stat',
                 'pct_fast': 1.2, 'pct_min': 1.2, 'pct_median': 1.2}]
        bad = failures(beyond.judge_bench(over))
        self.assertEqual(len(bad), 1)
        self.assertIn('trail/stat', bad[0])

    def test_base_setting(self):
        self.assertEqual(beyond.base_setting('ps1-own0'), 'ps1-own-')


class Markdown(unittest.TestCase):
    def test_sections(self):
        store = {'flavors': {
            'base': {'attack': truthful(BASE), 'namespace': ns_records()},
            'v1-nosec': {'attack': truthful(NOSEC), 'namespace': []}}}
        table = small_table()
        ratios, over = beyond.bench_ratios(table, [BASE, V3])
        bench = {'params': {'icount': 'shift=0', 'iters': 10, 'repeats': 2},
                 'table': table, 'ratios': ratios, 'overheads': over}
        md = beyond.markdown(store, bench, [BASE, V1, NOSEC, V3])
        self.assertIn('## The /tmp symlink attack', md)
        self.assertIn('| base | ps1-own- | **0/100 (0.0%)** |', md)
        self.assertIn('| v1-nosec | ps0-own1 | 50/100 (50.0%) |', md)
        self.assertIn('| race | 50/100 (50.0%) | 0/100 (0.0%) |', md)
        self.assertIn('B reads ENOENT: it breaks', md)
        self.assertIn('| v3 | fs.protected-sticky-symlinks (ps0) | - | - | - | '
                      '+1.00% (+1.00%) | - | - | +1.00% |', md)
        self.assertIn('v3 fs.protected-sticky-symlinks (ps0): 4000 -> 4040', md)
        self.assertNotIn('| v1 |', md)     # no data: no rows
        self.assertTrue(md.endswith('\n') and not md.endswith('\n\n'))

    def test_findings(self):
        store = {'flavors': {'base': {'attack': truthful(BASE)},
                             'v1-nosec': {'attack': truthful(NOSEC)},
                             'v3': {'attack': truthful(V3)}}}
        got = beyond.attack_findings(store, [BASE, NOSEC, V3])
        self.assertEqual(len(got), 2)
        self.assertIn('v1-nosec: `fs.weak-sticky-symlinks` set to protect',
                      got[0])
        self.assertIn('race 50/100, planted 100/100', got[0])
        self.assertIn('base ps1-own- 100/100, v1-nosec ps1-own0 100/100, '
                      'v3 ps1-own0 100/100;', got[1])

    def test_not_run(self):
        md = beyond.markdown({}, {}, [BASE])
        self.assertEqual(md.count('(not run)'), 2)


if __name__ == '__main__':
    unittest.main()
