"""The case table, common/lib/cases.def, as the model reads it.

Every row's declared semantics must have a prediction (an op whose
control or on-the-link kind the model does not know fails here, on the
host, not as "?" tokens in the guest); every case of every default flavor
must have an expectation; a malformed row is refused with its line.
"""

import unittest
import unittest.mock

import support  # noqa: F401 (sys.path)
from model import cases as caseids
from model import control
from model import rule as model
from model import table
from model.flavors import DEFAULT_FLAVORS
from suite import expect

T = table.TABLE


class SemanticsTest(unittest.TestCase):
    def test_every_control_kind_is_predicted(self):
        for name, op in T.ops.items():
            with self.subTest(op=name):
                self.assertTrue(op.control == 'none'
                                or op.control in control.CONTROL_KINDS,
                                f'{name}: control {op.control!r} has no '
                                f'prediction in control.CONTROL_KINDS')

    def test_every_on_link_kind_is_modelled(self):
        known = {'follows', *model.NOT_FOLLOWED, *model.LINK_SELF}
        for name, op in T.ops.items():
            with self.subTest(op=name):
                self.assertIn(op.on_link, known)

    def test_every_position_is_placed(self):
        for name, pos in T.positions.items():
            with self.subTest(position=name):
                self.assertLessEqual(set(pos.dirs),
                                     {'here', 'ns', 'sub', 'xdir'})
                self.assertIn(pos.control_path,
                              {'target', 'under', 'dotdot'})
                self.assertIn(pos.kind, {'trailing', 'intermediate'})

    def test_one_core_row_each(self):
        for rows in (T.ops, T.positions):
            self.assertEqual(
                sum('core' in row.flags for row in rows.values()), 1)

    def test_sets_come_from_the_rows(self):
        self.assertEqual(caseids.NOFOLLOW_OPS,
                         {n for n, op in T.ops.items()
                          if op.on_link != 'follows'})
        self.assertIn('access', control.REAL_ID_OPS)
        self.assertIn('openat2_cached', model.RCU_ONLY_OPS)
        self.assertEqual(control.CHOWN_UID['file-B'], 1001)


class EveryCaseExpectedTest(unittest.TestCase):
    def test_no_case_of_a_default_flavor_lacks_an_expectation(self):
        ids = list(expect.case_ids())
        for flavor in DEFAULT_FLAVORS:
            with self.subTest(flavor=flavor):
                preds = expect.predictions(flavor, ids)
                missing = sorted({cid for (_, cid), (pred, _) in
                                  preds.items() if pred is None})
                self.assertFalse(missing, f'{flavor}: {len(missing)} cases '
                                 f'have no expectation, e.g. {missing[:3]}')

    def test_an_op_without_a_control_prediction_fails(self):
        """Mutant: an op whose control the model does not know."""
        row = T.ops['stat']
        broken = dict(T.ops, stat=table.Op(row.name, row.target,
                                           row.on_link, 'stat_mutant',
                                           row.flags))
        mutant = table.Table(**{**T.__dict__, 'ops': broken})
        control._predict.cache_clear()
        try:
            with unittest.mock.patch.object(control, 'TABLE', mutant):
                cid = next(c for c in expect.case_ids()
                           if c.endswith('/stat'))
                preds = expect.predictions('v3', [cid])
                self.assertTrue(all(p is None for p, _ in preds.values()))
        finally:
            control._predict.cache_clear()


class ParseTest(unittest.TestCase):
    def test_rows_as_written(self):
        self.assertEqual(T.targets['dangling'].file, 'missing')
        self.assertEqual(T.targets['script-A'].node, 'script')
        self.assertEqual(T.followers['setuid-exec'].ids, (1000, 0, 0, 0))
        self.assertEqual(T.positions['chain-xdir'].second_owner, 'root')
        self.assertEqual(T.positions['chain-1ns'].dirs, ('ns', 'here'))
        self.assertEqual(T.rep_dirs[3], ('1770', 'A', frozenset()))
        self.assertEqual(T.groups[3], ('mounts', 'n', 'nosymfollow'))
        self.assertEqual(T.settings, ((0, 0), (0, 1), (1, 0), (1, 1)))
        self.assertEqual([label for label, _ in expect.settings('base')],
                         ['boot', 'ps0-own-', 'ps1-own-'])

    def test_bad_rows_are_refused_with_their_line(self):
        good = 'OWNER(OWN_A, "A", 1000, AX_QUICK)\n'
        for text, why in (
                (good + 'OWNER(OWN_B, "B")\n', 'takes 4 arguments'),
                (good + 'NOSUCH(1)\n', 'not a table row'),
                (good + 'OWNER(OWN_B, "B", 1001, QUICK)\n', 'AX_'),
                ('TARGET(T_X, "x", "x", NODE_FILE, 0666, OWN_Z, OWN_A, 0)\n',
                 'OWN_Z names no row')):
            with self.subTest(text=text):
                with self.assertRaises(table.TableError) as err:
                    table.parse(text)
                self.assertIn(why, str(err.exception))


if __name__ == '__main__':
    unittest.main()
