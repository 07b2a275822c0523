"""The setuid-exec follower: A executed a setuid-root program, so the
kernel set ruid 1000, euid = suid = fsuid 0 (common/suite/setuid_exec.c).
The model must judge it as root wherever the fsuid decides, and as A
where access(2) and faccessat() walk with the real ids."""

import unittest

import support
from model import cases as caseids
from model import rule as model
from suite import expect

REAL_ID_OPS = ('access', 'faccessat_nofollow')


def predicted(cid, flavor='v3y', setting='ps0-own1', **ids):
    return support.predict_id(cid, flavor, setting, **ids)


def exec_ids():
    return [c for c in expect.case_ids() if '/fsetuid-exec/' in c]


class SetuidExecTest(unittest.TestCase):
    def test_ids_are_the_execs(self):
        p = caseids.params_of(
            'm/d1777-root/lA/tfile-root/fsetuid-exec/trail/open_rdonly')
        self.assertEqual((p['ruid'], p['euid'], p['fsuid'], p['rgid'],
                          p['fsgid']), (1000, 0, 0, 1000, 0))

    def test_on_every_axis_but_execve_and_the_mounts(self):
        ids = exec_ids()
        # core 7 modes x 3 dir owners x 3 link owners x 5 targets, then
        # 9 positions (3 of them twice) and 29 ops (not execve) x 12, and
        # trailing-byowner x 9 (not in 1770-A)
        self.assertEqual(len(ids), 315 + (9 + 3) * 12 + 29 * 12 + 9)
        self.assertFalse([c for c in ids if c.endswith('/execve')
                          or c.startswith('n/')])

    def test_judged_as_root_except_with_the_real_ids(self):
        refused = 0
        for cid in exec_ids():
            op = cid.rsplit('/', 1)[1]
            twin = cid.replace('/fsetuid-exec/',
                               '/fA/' if op in REAL_ID_OPS else '/froot/')
            got, want = predicted(cid), predicted(twin)
            self.assertEqual(got.outcome(), want.outcome(), cid)
            refused += got.decider == model.OWN
        self.assertGreater(refused, 100)

    def test_the_cves_shape_is_refused(self):
        # a setuid-root program opens the attacker's link in /tmp
        got = predicted(
            'm/d1777-root/lB/tfile-root/fsetuid-exec/trail/open_rdonly')
        self.assertEqual((got.errno, got.decider), ('EACCES', model.OWN))
        base = predicted(
            'm/d1777-root/lB/tfile-root/fsetuid-exec/trail/open_rdonly',
            'base', 'ps0-own-')
        self.assertEqual(base.errno, '0')


if __name__ == '__main__':
    unittest.main()
