"""harness/experiments/idmapcases.py: the idmapped-mount predictions (issue 11).

TRUTH is written by hand from the patch texts and 6.1's may_follow_link(),
not produced by the module: for each case, does the mapped rule (mainline,
v3) refuse, and does v1's raw-uid rule refuse? Break either rule in the
module (e.g. drop the uid_valid() test, or map in v1) and these fail.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

import flavors as flv  # noqa: E402
from experiments import idmapcases as ic  # noqa: E402

# case id -> (mapped rule refuses, raw rule refuses), map "0 10000 2000".
TRUTH = {
    # 1000 -> 11000 is the follower: mapped allows; raw 1000 != 11000
    # and the raw directory owner 0 != 1000: v1 refuses.
    'idmap/d1777-0-l1000/f11000/trail': (False, True),
    # 5000 is outside the map: invalid directory owner, never a match;
    # raw 5000 == 5000: v1 allows.
    'idmap/d1777-5000-l5000/f0/trail': (True, False),
    'idmap/d1777-0-l1000/f1000/trail': (True, False),
    'idmap/d1777-5000-l5000/f5000/trail': (True, False),
    'idmap/d1777-0-l10000/f10000/trail': (True, False),
    'idmap/d1777-11000-l1000/f0/trail': (True, True),
    'idmap/d1777-0-l10000/f0/trail': (True, True),
    'idmap/d1777-1000-l1000/f0/trail': (False, False),
    'idmap/d1777-0-l1000/f0/trail': (True, True),
    'idmap/d0777-5000-l1000/f0/trail': (False, False),
    'plain/d1777-0-l1000/f11000/trail': (True, True),
    'plain/d1777-0-l1000/f1000/trail': (False, False),
    'plain/d1777-5000-l5000/f0/trail': (False, False),
    'plain/d1777-5000-l5000/f5000/trail': (False, False),
    'plain/d1777-0-l10000/f10000/trail': (False, False),
    'plain/d1777-11000-l1000/f0/trail': (True, True),
    'plain/d1777-0-l1000/f0/trail': (True, True),
    'plain/d0777-5000-l1000/f0/trail': (False, False),
    # Intermediate links (m/f): the same owners, no mainline check.
    'idmap/d1777-0-l1000/f11000/inter': (False, True),
    'idmap/d1777-5000-l5000/f0/inter': (True, False),
    'idmap/d1777-0-l1000/f1000/inter': (True, False),
    'plain/d1777-0-l1000/f0/inter': (True, True),
    'plain/d1777-5000-l5000/f0/inter': (False, False),
    # INVALID_UID on disk, no user namespace: mainline and v3 let an
    # invalid directory owner match nothing (refuse); the hooks compare
    # INVALID_UID with INVALID_UID and find them equal (allow).
    'plain/d1777-4294967295-l4294967295/f0/trail': (True, False),
    'plain/d1777-4294967295-l4294967295/f0/inter': (True, False),
    # Mount roots: the VFS checks judge the directory the walk crossed
    # the mount in (1777, root's: refuse); a hook judges the clone's
    # d_parent, its source directory: the owner's 0755 one (allow), or
    # root's 1777 one (refuse, which shows it is not the link itself).
    'plain/d1777-0-l1000-from0755-1000/f0/trail': (True, False),
    'plain/d1777-0-l1000-from0755-1000/f0/inter': (True, False),
    'plain/d1777-0-l1000-from1777-0/f0/trail': (True, True),
    'plain/d1777-0-l1000-from1777-0/f0/inter': (True, True),
}

# grsec's gr_handle_follow_link() as ported: owners mapped through the
# mount as v3 maps them, but the link's d_parent and no uid_valid(). It
# refuses as the mapped rule does except where those two differ:
GRSEC_ALLOWS = {
    # both owners outside the map: INVALID_UID == INVALID_UID, a match
    'idmap/d1777-5000-l5000/f0/trail', 'idmap/d1777-5000-l5000/f0/inter',
    'idmap/d1777-5000-l5000/f5000/trail',
    # INVALID_UID on disk: the same
    'plain/d1777-4294967295-l4294967295/f0/trail',
    'plain/d1777-4294967295-l4294967295/f0/inter',
    # a mount root's d_parent is its owner's 0755 source directory
    'plain/d1777-0-l1000-from0755-1000/f0/trail',
    'plain/d1777-0-l1000-from0755-1000/f0/inter',
}

ALLOW, DENY = (0, '0'), (-1, 'EACCES')


def case(case_id):
    return next(c for c in ic.CASES if c.id == case_id)


class TestMapping(unittest.TestCase):
    def test_map_and_show(self):
        self.assertEqual(ic.mapped(0, 'idmap'), 10000)
        self.assertEqual(ic.mapped(1000, 'idmap'), 11000)
        self.assertEqual(ic.mapped(1999, 'idmap'), 11999)
        self.assertIsNone(ic.mapped(2000, 'idmap'))
        self.assertIsNone(ic.mapped(5000, 'idmap'))
        self.assertEqual(ic.mapped(5000, 'plain'), 5000)
        self.assertEqual(ic.shown(5000, 'idmap'), 65534)
        self.assertEqual(ic.shown(1000, 'idmap'), 11000)
        self.assertIsNone(ic.mapped(ic.INVALID_UID, 'plain'))
        self.assertEqual(ic.shown(ic.INVALID_UID, 'plain'), 65534)

    def test_invalid_owners_are_laid_out_by_the_host(self):
        from experiments import idmap_cmd
        self.assertEqual([f.name for f in ic.FIXTURES if f.premade],
                         ['d1777-4294967295-l4294967295'])
        cmds = idmap_cmd.debugfs_commands([ic.INVALID_OWNERS]).splitlines()
        self.assertIn('sif d1777-4294967295-l4294967295 mode 041777', cmds)
        self.assertIn('sif d1777-4294967295-l4294967295/l uid 4294967295',
                      cmds)
        self.assertIn('symlink d1777-4294967295-l4294967295/m ../t', cmds)
        self.assertEqual(idmap_cmd.debugfs_commands([]), '')


class TestPredict(unittest.TestCase):
    def test_truth_covers_every_case(self):
        self.assertEqual(sorted(TRUTH), sorted(c.id for c in ic.CASES))

    def test_mapped_and_raw_rules(self):
        for cid, (mapped, raw) in TRUTH.items():
            with self.subTest(case=cid):
                self.assertEqual(ic.mapped_refuses(case(cid)), mapped)
                self.assertEqual(ic.raw_refuses(case(cid)), raw)

    def test_grsec_rule(self):
        for cid, (mapped, _) in TRUTH.items():
            with self.subTest(case=cid):
                self.assertEqual(ic.mapped_parent_refuses(case(cid)),
                                 mapped and cid not in GRSEC_ALLOWS)
        self.assertTrue(all(TRUTH[cid][0] for cid in GRSEC_ALLOWS))

    def test_every_rule_and_setting(self):
        for cid, (mapped, raw) in TRUTH.items():
            c = case(cid)
            main = mapped and cid.endswith('/trail')
            for ps in (0, 1):
                for own in (False, True):
                    want = {
                        ic.RULE_NONE: ps and main,
                        ic.RULE_MAPPED: (ps and main) or (own and mapped),
                        ic.RULE_RAW: (ps and main) or (own and raw),
                    }
                    for rule, deny in want.items():
                        with self.subTest(case=cid, ps=ps, own=own,
                                          rule=rule):
                            self.assertEqual(ic.predict(rule, ps, own, c),
                                             DENY if deny else ALLOW)

    def test_the_two_headline_cases(self):
        one = case('idmap/d1777-0-l1000/f11000/trail')
        two = case('idmap/d1777-5000-l5000/f0/trail')
        # "own only": v3 and v1 disagree both ways.
        self.assertEqual(ic.predict(ic.RULE_MAPPED, 0, True, one), ALLOW)
        self.assertEqual(ic.predict(ic.RULE_RAW, 0, True, one), DENY)
        self.assertEqual(ic.predict(ic.RULE_MAPPED, 0, True, two), DENY)
        self.assertEqual(ic.predict(ic.RULE_RAW, 0, True, two), ALLOW)
        # "mainline only": every flavor is mainline.
        for rule in ic.RULES:
            self.assertEqual(ic.predict(rule, 1, False, one), ALLOW)
            self.assertEqual(ic.predict(rule, 1, False, two), DENY)

    def test_boot_defaults_intermediate(self):
        # Debian's protected_symlinks=1 with v1 on (its boot default) or
        # v3y: mainline does not look at an intermediate link, so v1's
        # raw compare is all that decides it.
        two = case('idmap/d1777-5000-l5000/f0/inter')
        self.assertEqual(ic.predict(ic.RULE_RAW, 1, True, two), ALLOW)
        self.assertEqual(ic.predict(ic.RULE_MAPPED, 1, True, two), DENY)
        self.assertEqual(ic.predict(ic.RULE_NONE, 1, True, two), ALLOW)

    def test_the_own_rules_errno(self):
        """OWLSM's rule refuses with EPERM; mainline's check, first on a
        trailing link, with EACCES."""
        one = case('idmap/d1777-0-l1000/f11000/trail')
        two = case('idmap/d1777-5000-l5000/f0/trail')
        self.assertEqual(ic.predict(ic.RULE_RAW, 0, True, one, errno='EPERM'),
                         (-1, 'EPERM'))
        self.assertEqual(ic.predict(ic.RULE_RAW, 1, True, two, errno='EPERM'),
                         DENY)
        self.assertEqual(ic.errno_of(flv.load()['owlsm']), 'EPERM')
        self.assertEqual(ic.errno_of(flv.load()['v1']), 'EACCES')

    def test_no_fixture_tells_the_directory_bits_apart(self):
        """Sticky and world-writable, or not sticky: a rule of the sticky
        bit alone judges every fixture as the 2010 rule does."""
        for fx in ic.FIXTURES:
            for mode in (fx.mode, fx.parent[0]):
                bits = int(mode, 8) & 0o1002
                self.assertIn(bits, (0o1002, 0, 0o0002), (fx, mode))

    def test_unknown_rule(self):
        with self.assertRaises(ValueError):
            ic.predict('v2', 1, True, ic.CASES[0])


class TestFlavors(unittest.TestCase):
    def setUp(self):
        self.flavors = flv.load()
        self.owns = {f.knob_path for f in self.flavors.values()
                     if f.knob_path}

    def test_rule_from_the_knob(self):
        want = {'base': ic.RULE_NONE, 'v1': ic.RULE_RAW,
                'v1-nosec': ic.RULE_NONE, 'v3': ic.RULE_MAPPED,
                'v3y': ic.RULE_MAPPED, 'yama': ic.RULE_RAW,
                'grsec': ic.RULE_MAPPED_PARENT, 'owlsm': ic.RULE_RAW}
        for name, rule in want.items():
            with self.subTest(flavor=name):
                self.assertEqual(ic.rule_of(self.flavors[name]), rule)

    def test_rule_agrees_with_the_differ(self):
        from model.flavors import FLAVORS
        for name, f in self.flavors.items():
            if name not in FLAVORS:
                continue
            d = FLAVORS[name]
            want = {None: ic.RULE_NONE, 'v1': ic.RULE_RAW, 'v2': ic.RULE_RAW,
                    'yama': ic.RULE_RAW, 'v3': ic.RULE_MAPPED,
                    'grsec': ic.RULE_MAPPED_PARENT,
                    # OWLSM's hook reads raw owners as v1's; its EPERM
                    # is errno_of()'s, its sticky-only test agrees with
                    # the 2010 rule on every fixture
                    'owlsm': ic.RULE_RAW,
                    }[d.own if d.compiled else None]
            with self.subTest(flavor=name):
                self.assertEqual(ic.rule_of(f), want)

    def test_settings_write_every_knob(self):
        by = {s.label: dict(s.knobs) for s in
              ic.settings(self.flavors['v1'], self.owns)}
        self.assertEqual(sorted(by), ['ps0-own0', 'ps0-own1', 'ps1-own0',
                                      'ps1-own1'])
        self.assertEqual(by['ps0-own1'], {
            'fs/protected_symlinks': '0', 'fs/protected_hardlinks': '0',
            'fs/weak-sticky-symlinks': '0',
            'fs/protected-sticky-symlinks': 'absent',
            'kernel/yama/protected_sticky_symlinks': 'absent',
            'kernel/grsecurity/linking_restrictions': 'absent',
            'kernel/owlsm/follow_link_restrictions': 'absent'})
        self.assertEqual(by['ps1-own0']['fs/weak-sticky-symlinks'], '1')
        v3 = {s.label: dict(s.knobs) for s in
              ic.settings(self.flavors['v3'], self.owns)}
        self.assertEqual(v3['ps0-own1']['fs/protected-sticky-symlinks'], '1')
        self.assertEqual(v3['ps1-own0']['fs/protected-sticky-symlinks'], '0')
        self.assertEqual(v3['ps1-own0']['fs/weak-sticky-symlinks'], 'absent')
        base = {s.label: dict(s.knobs) for s in
                ic.settings(self.flavors['base'], self.owns)}
        self.assertEqual(sorted(base), ['ps0-own-', 'ps1-own-'])
        self.assertEqual(base['ps1-own-'], {
            'fs/protected_symlinks': '1', 'fs/protected_hardlinks': '0',
            'fs/weak-sticky-symlinks': 'absent',
            'fs/protected-sticky-symlinks': 'absent',
            'kernel/yama/protected_sticky_symlinks': 'absent',
            'kernel/grsecurity/linking_restrictions': 'absent',
            'kernel/owlsm/follow_link_restrictions': 'absent'})

    def test_plan_lines(self):
        f = self.flavors['v3']
        sets = ic.settings(f, self.owns)
        text = ic.plan_text(f.name, ic.RULE_MAPPED, sets)
        lines = text.splitlines()
        self.assertIn('map 0 10000 2000', lines)
        self.assertIn('target idmap 10000', lines)
        self.assertIn('fixture d1777-5000-l5000 1777 5000 5000', lines)
        cases = [x for x in lines if x.startswith('case ')]
        self.assertEqual(len(cases), len(sets) * len(ic.CASES))
        i = lines.index('setting ps0-own1')
        self.assertIn('case idmap/d1777-5000-l5000/f0/trail idmap '
                      'd1777-5000-l5000 trail 0 65534 65534 -1 EACCES',
                      lines[i:i + 1 + 4 + len(ic.CASES)])


if __name__ == '__main__':
    unittest.main()
