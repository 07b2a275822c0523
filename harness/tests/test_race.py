"""racecases: the rename race's predictions and judging.

TRUTH is written by hand from the code of each placement (docs/porting.md,
"The rename race"), not produced by racecases.predict()."""

import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import flavors as flv
from experiments import racecases as rc

F, R = rc.FOLLOWED, rc.REFUSED
# (position, protected_symlinks, renamed) -> outcome, per kind of rule:
# parent = v1, Yama, v3y-dlock; walk = v3y; none = base.
TRUTH = {
    'parent': {('trail', 0, True): F, ('trail', 0, False): R,
               ('trail', 1, True): R, ('trail', 1, False): R,
               ('inter', 0, True): F, ('inter', 0, False): R,
               ('inter', 1, True): F, ('inter', 1, False): R,
               ('mountroot', 0, False): F, ('mountroot', 1, False): R},
    'walk': {('trail', 0, True): R, ('trail', 0, False): R,
             ('trail', 1, True): R, ('trail', 1, False): R,
             ('inter', 0, True): R, ('inter', 0, False): R,
             ('inter', 1, True): R, ('inter', 1, False): R,
             ('mountroot', 0, False): R, ('mountroot', 1, False): R},
    '': {('trail', 0, True): F, ('trail', 0, False): F,
         ('trail', 1, True): R, ('trail', 1, False): R,
         ('inter', 0, True): F, ('inter', 0, False): F,
         ('inter', 1, True): F, ('inter', 1, False): F,
         ('mountroot', 0, False): F, ('mountroot', 1, False): R},
}


def records(rule, flip=None, problem=None, drop=None, n=2):
    """Window-mode records as the guest writes them, each with the
    outcome TRUTH gives; `flip` turns one group's outcome round."""
    out = []
    for key, want in TRUTH[rule.directory].items():
        if key == drop:
            continue
        for t in range(n):
            got = want
            if key == flip:
                got = F if want == R else R
            out.append({'type': 'race', 'mode': 'window',
                        'position': key[0], 'protected_symlinks': key[1],
                        'renamed': key[2], 'trial': t, 'result': got,
                        'problems': [problem] if problem and t == 0 and
                        key == ('inter', 0, True) else []})
    return out


class PredictTest(unittest.TestCase):
    def test_every_trial_as_the_truth_table(self):
        for d, table in TRUTH.items():
            rule = rc.Rule(d)
            for key, want in table.items():
                self.assertEqual(rc.predict(rule, *key)[0], want,
                                 f'directory {d!r}, {key}')

    def test_a_trailing_only_rule_leaves_intermediate_links(self):
        rule = rc.Rule('walk', 'trailing')
        self.assertEqual(rc.predict(rule, 'inter', 0, False),
                         (F, rc.UNCOVERED))
        self.assertEqual(rc.predict(rule, 'trail', 0, True)[0], R)

    def test_a_mount_root_is_judged_by_what_the_rule_reads(self):
        self.assertEqual(rc.predict(rc.Rule('parent'), 'mountroot', 0,
                                    False), (F, rc.ROOT_PARENT))
        self.assertEqual(rc.predict(rc.Rule('walk'), 'mountroot', 0,
                                    False), (R, rc.WALK))
        self.assertEqual(rc.predict(rc.Rule('walk', 'trailing'),
                                    'mountroot', 0, False)[0], R)

    def test_the_bypass_is_named_by_its_cause(self):
        self.assertEqual(rc.predict(rc.Rule('parent'), 'inter', 1, True),
                         (F, rc.BYPASS))
        self.assertEqual(rc.predict(rc.Rule('walk'), 'inter', 1, True),
                         (R, rc.WALK))


class FlavorDataTest(unittest.TestCase):
    def test_the_race_flavors_take_their_directory_from_data(self):
        fl = flv.load()
        want = {'race-base': '', 'race-v1': 'parent', 'race-yama': 'parent',
                'race-v3y': 'walk', 'race-v3y-dlock': 'parent'}
        self.assertEqual({n: rc.rule_of(fl[n]).directory for n in want},
                         want)

    def test_the_directory_can_be_overridden_to_see_a_failure(self):
        fl = flv.load()
        self.assertEqual(rc.rule_of(fl['race-v1'], 'walk').directory, 'walk')


class JudgeTest(unittest.TestCase):
    def test_outcomes_as_predicted_pass(self):
        for d in TRUTH:
            groups, problems = rc.judge(rc.Rule(d), records(rc.Rule(d)))
            self.assertEqual(problems, [], d)
            self.assertEqual(len(groups), 10)
            self.assertTrue(all(g['as_predicted'] == g['trials'] == 2
                                for g in groups))

    def test_a_flipped_outcome_fails(self):
        rule = rc.Rule('parent')
        _, problems = rc.judge(rule, records(rule, flip=('inter', 0, True)))
        self.assertEqual(len(problems), 2)
        self.assertIn('inter protected_symlinks=0 renamed trial 0: EACCES, '
                      'predicted followed', problems[0])

    def test_a_walk_kernel_judged_as_parent_fails(self):
        _, problems = rc.judge(rc.Rule('parent'), records(rc.Rule('walk')))
        self.assertEqual(len(problems), 2 * 4)

    def test_a_trial_with_a_precondition_problem_fails(self):
        rule = rc.Rule('walk')
        _, problems = rc.judge(rule, records(
            rule, problem='the follower never slept in the window'))
        self.assertEqual(len(problems), 1)
        self.assertIn('never slept', problems[0])

    def test_a_missing_group_fails(self):
        rule = rc.Rule('walk')
        _, problems = rc.judge(rule, records(rule, drop=('trail', 1, False)))
        self.assertEqual(problems,
                         ['no trial of trail protected_symlinks=1 control'])


class SectionTest(unittest.TestCase):
    def test_bypasses_are_bold_and_a_missing_group_says_so(self):
        rule = rc.Rule('parent')
        groups, _ = rc.judge(rule, records(rule, drop=('trail', 1, True)))
        text = rc.section([('race-v1', {'directory': 'parent',
                                        'groups': groups})], None,
                          'Measured today.')
        row = [line for line in text.splitlines()
               if line.startswith('| race-v1')][0]
        self.assertEqual(row, '| race-v1 | `d_parent` | **followed 2/2** | '
                         'not run | **followed 2/2** | **followed 2/2** | '
                         '**followed 2/2** | refused 2/2 | '
                         '8/8 as predicted |')
        self.assertIn('Measured today.', text)


class FreeTest(unittest.TestCase):
    def rec(self, pos, ps, followed):
        return {'type': 'race', 'mode': 'free', 'position': pos,
                'protected_symlinks': ps, 'tries': 100,
                'followed': followed, 'EACCES': 100 - followed,
                'ENOENT': 0, 'other': 0, 'problems': []}

    def test_a_follow_is_a_bypass_only_where_a_check_guards_the_link(self):
        rows, problems = rc.judge_free(rc.Rule(''), [
            self.rec('trail', 0, 7), self.rec('trail', 1, 3)])
        self.assertEqual(problems, [])
        self.assertEqual([r['bypasses'] for r in rows], [0, 3])
        rows, _ = rc.judge_free(rc.Rule('parent'), [self.rec('inter', 0, 2)])
        self.assertEqual(rows[0]['bypasses'], 2)


if __name__ == '__main__':
    unittest.main()
