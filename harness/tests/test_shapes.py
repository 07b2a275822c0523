"""The report's section on the shapes the suite's trees do not make."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from experiments import idmapcases as ic  # noqa: E402
from experiments import shapes  # noqa: E402
from differ.diff import Pair  # noqa: E402


class Flavor:
    def __init__(self, knob):
        self.knob, self.knob_path, self.protect = knob, '/proc/sys/k', '1'


def result(name, rule, observe=None):
    """An .idmap.json object as idmap_cmd writes it, each case observed
    as the model predicts unless `observe` {(label, id): got} says
    otherwise."""
    settings = ic.settings(Flavor('k' if rule != ic.RULE_NONE else ''),
                           {'/proc/sys/k'})
    rows = []
    for s in settings:
        for c in ic.CASES:
            want = list(ic.predict(rule, s.ps, s.own, c))
            got = (observe or {}).get((s.label, c.id), want)
            rows.append({'setting': s.label, 'id': c.id, 'expect': want,
                         'got': got, 'ok': got == want})
    failed = sum(not r['ok'] for r in rows)
    return {'flavor': name, 'rule': rule, 'rule_from_flavor': rule,
            'settings': {s.label: {} for s in settings}, 'cases': rows,
            'passed': len(rows) - failed, 'failed': failed}


def case(case_id):
    return next(c for c in ic.CASES if c.id == case_id)


MR = 'plain/d1777-0-l1000-from0755-1000/f0/trail'
INV = 'plain/d1777-4294967295-l4294967295/f0/inter'
IDM = 'idmap/d1777-5000-l5000/f0/trail'


class TestCause(unittest.TestCase):
    def test_each_shape_names_its_own_cause(self):
        raw, mapped = ic.RULE_RAW, ic.RULE_MAPPED
        self.assertEqual(shapes.cause(case(MR), raw, mapped, 'a', 'b', 0),
                         shapes.MOUNT_ROOT)
        self.assertEqual(shapes.cause(case(INV), raw, mapped, 'a', 'b', 0),
                         shapes.INVALID)
        self.assertEqual(shapes.cause(case(IDM), raw, mapped, 'a', 'b', 1),
                         shapes.IDMAPPED)

    def test_no_own_rule_is_mainline_for_a_trailing_link_with_ps1(self):
        none, raw = ic.RULE_NONE, ic.RULE_RAW
        self.assertEqual(shapes.cause(case(IDM), raw, none, 'v1', 'base', 1),
                         shapes.IDMAPPED)
        self.assertIn('only v1 has', shapes.cause(case(IDM), raw, none,
                                                  'v1', 'base', 0))
        self.assertIn('trailing links only', shapes.cause(
            case(INV), none, raw, 'base', 'v1', 1))

    def test_the_same_rule_explains_nothing(self):
        self.assertIsNone(shapes.cause(case(MR), ic.RULE_RAW, ic.RULE_RAW,
                                       'v1', 'yama', 0))


class TestSection(unittest.TestCase):
    pairs = (Pair('v1 vs v3', 'v1', 'v3'), Pair('v1 vs yama', 'v1', 'yama'))

    def objs(self, **observe):
        return {'v1': result('v1', ic.RULE_RAW),
                'v3': result('v3', ic.RULE_MAPPED),
                'yama': result('yama', ic.RULE_RAW, observe.get('yama')),
                'base': result('base', ic.RULE_NONE)}

    def test_predicted_differences_carry_causes(self):
        text = shapes.section(self.objs(), 'when', self.pairs)
        self.assertIn(f'| ps0 | `{MR}` | followed | EACCES | '
                      f'{shapes.MOUNT_ROOT} |', text)
        self.assertIn('No difference in', text.split('#### v1 vs yama')[1])
        self.assertIn('Unexplained differences: 0.', text)
        self.assertIn('| base | no own rule |', text)

    def test_an_observation_against_the_model_is_unexplained(self):
        flipped = {('ps0-own1', MR): [-1, 'EACCES']}
        text = shapes.section(self.objs(yama=flipped), 'when', self.pairs)
        yama = text.split('#### v1 vs yama')[1]
        self.assertIn(f'| ps0 | `{MR}` | followed | EACCES | '
                      '**unexplained** |', yama)
        self.assertIn('Unexplained differences: 2.', text)  # + yama vs base
        self.assertIn('| yama |', text)


if __name__ == '__main__':
    unittest.main()
