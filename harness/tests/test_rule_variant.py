"""revision.ini's rule variant: `directory_bits` and `errno`.

The expectations are OWLSM's rule as its source says (muromec/linux-ezxdev,
security/owlsm.h at a873c22cd826, do_owlsm_follow_link()): a symlink whose
parent has S_ISVTX, whose owner is not the parent's owner and not the
follower's fsuid, is refused with -EPERM; the parent's S_IWOTH is never
read. The 2010 rule (the defaults) asks for S_ISVTX and S_IWOTH and
answers -EACCES. Nothing here is read from a run.
"""

import os
import shutil
import tempfile
import unittest
from dataclasses import replace

import support
from support import case, link
import flavors as flv
import revision as rev_mod
from stages import HarnessError
from differ import causes
from model import followtest
from model.flavors import FLAVORS, STAGE_AFTER_MAINLINE
from model.rule import OWN, MAINLINE, Config, config_for, predict, \
    sticky_denies


OWLSM = Config(mainline=False, own="owlsm", own_on=True, compiled=True,
               stage=STAGE_AFTER_MAINLINE, bits="sticky", errno="EPERM")
V1 = Config(mainline=False, own="v1", own_on=True, compiled=True,
            stage=STAGE_AFTER_MAINLINE)


class RevisionKeysTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.top)
        os.makedirs(os.path.join(self.top, 'r'))

    def load(self, extra=''):
        with open(os.path.join(self.top, 'r', 'revision.ini'), 'w',
                  encoding='utf-8') as f:
            f.write(support.REVISION_INI.format(hook="lsm", extra=extra))
        return rev_mod.load('r', self.top)

    def test_defaults_are_the_2010_rule(self):
        r = self.load()
        self.assertEqual((r.directory_bits, r.errno),
                         ('sticky world-writable', 'EACCES'))

    def test_owlsm_keys(self):
        r = self.load('directory_bits = sticky\nerrno = EPERM\n')
        self.assertEqual((r.directory_bits, r.errno), ('sticky', 'EPERM'))

    def test_bad_values_are_named(self):
        with self.assertRaisesRegex(HarnessError, "directory_bits = 'world'"):
            self.load('directory_bits = world\n')
        with self.assertRaisesRegex(HarnessError, "errno = 'ENOENT'"):
            self.load('errno = ENOENT\n')

    def test_the_revisions_say_their_variant(self):
        got = {r: (lambda x: (x.directory_bits, x.errno))(
            rev_mod.load(r, flv.TOP))
            for r in ('v1', 'v2', 'v3', 'yama', 'grsec', 'owlsm')}
        old = ('sticky world-writable', 'EACCES')
        self.assertEqual(got, {'v1': old, 'v2': old, 'v3': old, 'yama': old,
                               'grsec': old, 'owlsm': ('sticky', 'EPERM')})
        self.assertEqual((FLAVORS['owlsm'].directory_bits,
                          FLAVORS['owlsm'].errno), ('sticky', 'EPERM'))


class StickyDeniesTest(unittest.TestCase):
    def test_sticky_alone_judges_every_sticky_directory(self):
        # (dir mode, 2010 rule refuses, OWLSM refuses): B follows A's link
        # in root's directory
        for mode, old, owl in (("1777", True, True), ("1755", False, True),
                               ("1770", False, True), ("1750", False, True),
                               ("0777", False, False), ("0755", False, False)):
            with self.subTest(mode=mode):
                lk = link(dir_mode=mode)
                self.assertEqual(sticky_denies(lk, 1001), old)
                self.assertEqual(sticky_denies(lk, 1001, "sticky"), owl)

    def test_owners_as_owlsm_compares_them(self):
        # the link's owner is the follower, or the directory's owner: allowed
        self.assertFalse(sticky_denies(link(dir_mode="1755"), 1000, "sticky"))
        self.assertFalse(sticky_denies(link(dir_mode="1755", dir_owner="A"),
                                       1001, "sticky"))
        # root is not exempt
        self.assertTrue(sticky_denies(link(dir_mode="1755"), 0, "sticky"))


class PredictTest(unittest.TestCase):
    def test_owlsm_refuses_with_eperm(self):
        p = predict(case(dir_mode="1755"), OWLSM)
        self.assertEqual((p.ret, p.errno, p.decider, p.log),
                         (-1, "EPERM", OWN, "owlsm"))
        self.assertEqual(predict(case(dir_mode="1755"), V1).decider,
                         "control (target op)")
        self.assertEqual(predict(case(), V1).errno, "EACCES")
        self.assertEqual(predict(case(), OWLSM).errno, "EPERM")

    def test_mainline_keeps_the_2010_rule(self):
        both = replace(OWLSM, mainline=True)
        p = predict(case(), both)       # mainline refuses first, EACCES
        self.assertEqual((p.errno, p.decider), ("EACCES", MAINLINE))
        p = predict(case(dir_mode="1755"), both)
        self.assertEqual((p.errno, p.decider), ("EPERM", OWN))

    def test_config_carries_the_variant(self):
        self.assertNotEqual(OWLSM.rules, replace(OWLSM, bits=V1.bits).rules)
        self.assertNotEqual(OWLSM.probed,
                            replace(OWLSM, errno="EACCES").probed)
        off = replace(OWLSM, own_on=False)
        self.assertEqual(off.rules, replace(V1, own_on=False).rules)
        knobs = {"protected_symlinks": 0,
                 "kernel_owlsm_follow_link_restrictions": 1}
        c = config_for("owlsm", knobs)
        self.assertEqual((c.bits, c.errno, c.own_active),
                         ("sticky", "EPERM", True))
        v1 = config_for("v1", support.knobs("v1", "ps0-own1"))
        self.assertEqual((v1.bits, v1.errno),
                         ("sticky world-writable", "EACCES"))

    def test_follow_test_probes_refuse_as_each_rule_does(self):
        lk = link()
        both = replace(OWLSM, mainline=True)
        self.assertEqual(followtest.refusal_points(lk, both),
                         [(STAGE_AFTER_MAINLINE, "sticky", "EPERM"),
                          (followtest.MAINLINE_POINT,
                           "sticky world-writable", "EACCES")])
        # the probe refuses a link in a 1777 directory, which OWLSM's rule
        # refuses too, with its errno
        point = followtest.refusal_points(lk, OWLSM)[0]
        p = followtest._refused(case(dir_mode="1755"), 0, point, OWLSM)
        self.assertEqual((p.errno, p.decider), ("EPERM", OWN))


class CausesTest(unittest.TestCase):
    def labels(self, a, b, c):
        return causes.attribute(c, a, c, b, False)

    def test_the_variant_has_causes_of_its_own(self):
        self.assertIn(causes.RULE_BITS, causes.CAUSES)
        self.assertIn(causes.RULE_ERRNO, causes.CAUSES)
        out, _ = self.labels(V1, OWLSM, case(dir_mode="1755"))
        self.assertEqual(out, [causes.RULE_BITS, causes.RULE_ERRNO])
        out, _ = self.labels(V1, OWLSM, case())
        self.assertEqual(out, [causes.RULE_ERRNO])
        out, _ = self.labels(V1, OWLSM, case(dir_mode="0777"))
        self.assertEqual(out, [])

    def test_steps_reach_base_and_back(self):
        base = Config(mainline=True)
        for a, b in ((OWLSM, base), (base, OWLSM)):
            steps = causes.steps(a, b, False)
            self.assertEqual(steps[-1][1], b)


if __name__ == '__main__':
    unittest.main()
