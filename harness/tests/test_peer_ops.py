"""The ops taken from the peer suites: LTP prot_hsymlinks' O_NONBLOCK |
O_DIRECTORY open, fstests generic/597 and vfstest's openat(dirfd,
"link"), and faccessat(AT_SYMLINK_NOFOLLOW), predicted from the case id."""

import unittest

import support
from model import cases as caseids
from model import rule as model
from model.control import has_control, predict_control
from suite import expect


def predicted(cid, flavor='v3y', setting='ps0-own1', **ids):
    return support.predict_id(cid, flavor, setting, **ids)


def ops_ids(op):
    return [c for c in expect.case_ids() if c.endswith('/' + op)]


class PeerOpsTest(unittest.TestCase):
    def test_each_op_has_the_ops_group_cross(self):
        for op in ('open_nonblock_directory', 'openat_dirfd',
                   'faccessat_nofollow', 'utimensat_nofollow',
                   'fchownat_nofollow', 'open_bindmount', 'openat2_cached',
                   'tmpfile_linkat'):
            self.assertEqual(len(ops_ids(op)), 4 * 3 * 7, op)

    def test_openat_dirfd_is_judged_like_open_rdonly(self):
        refused = 0
        for cid in ops_ids('openat_dirfd'):
            got = predicted(cid)
            want = predicted(cid.replace('openat_dirfd', 'open_rdonly'))
            self.assertEqual(got.verdict(), want.verdict(), cid)
            refused += got.decider == model.OWN
        # 1777-root: A's link for 4 of the 7 followers' fsuids, B's for
        # 6; 1777-A: root's link for 4, B's for 6; 0777 and 1770 are not
        # sticky and o+w
        self.assertEqual(refused, 4 + 6 + 4 + 6)

    def test_nonblock_directory_open(self):
        cid = 'o/d1777-root/lA/tdir/fA/trail/open_nonblock_directory'
        self.assertEqual(predicted(cid).outcome(), (0, '0', True))
        params = dict(caseids.params_of(cid), target='file-A')
        self.assertEqual(predict_control(params), (-1, 'ENOTDIR'))
        refused = predicted(cid.replace('/fA/', '/fB/'))
        self.assertEqual((refused.errno, refused.decider),
                         ('EACCES', model.OWN))

    def test_faccessat_nofollow_acts_on_the_link(self):
        cid = 'o/d1777-root/lB/tfile-A/fA/trail/faccessat_nofollow'
        params = caseids.params_of(cid)
        self.assertFalse(params['follows'])
        self.assertFalse(has_control(params))
        self.assertIsNone(predict_control(params))
        # the rule refuses A's follow of B's link; the op follows nothing
        got = predicted(cid)
        self.assertEqual((got.outcome(), got.decider),
                         ((0, '0', False), model.LINK_OP))
        follow = predicted(cid.replace('faccessat_nofollow', 'access'))
        self.assertEqual(follow.errno, 'EACCES')

    def test_faccessat_nofollow_searches_as_the_real_uid(self):
        cid = 'o/d1770-A/lB/tfile-A/fB/trail/faccessat_nofollow'
        self.assertEqual(predicted(cid).decider, model.DAC_SEARCH)
        self.assertEqual(predicted(cid, ruid=1000, rgid=1000).errno, '0')
        self.assertEqual(predicted(cid.replace('/fB/', '/fA/'), ruid=1001,
                                   rgid=1001).errno, 'EACCES')


class LinkSelfNofollowTest(unittest.TestCase):
    """utimensat and fchownat with AT_SYMLINK_NOFOLLOW: on the link, its
    owner's or CAP_FOWNER / CAP_CHOWN's (fsuid 0), never the rule's."""

    def test_the_owner_or_fsuid_0(self):
        for op in ('utimensat_nofollow', 'fchownat_nofollow'):
            ok = {'A': '0', 'root': '0', 'B': 'EPERM',
                  'euidA-fsuid0': '0', 'euid0-fsuidA': '0',
                  'setuid-exec': '0'}
            for follower, errno in ok.items():
                cid = f'o/d1777-root/lA/tfile-A/f{follower}/trail/{op}'
                got = predicted(cid)
                self.assertEqual((got.errno, got.decider),
                                 (errno, model.LINK_OP), cid)
                self.assertFalse(has_control(caseids.params_of(cid)))

    def test_chown_to_another_uid_needs_cap_chown(self):
        # runner.c chowns to the target's owner: A, for file-A
        cid = 'o/d1777-root/lB/tfile-A/fB/trail/{}'
        self.assertEqual(predicted(cid.format('utimensat_nofollow')).errno,
                         '0')
        self.assertEqual(predicted(cid.format('fchownat_nofollow')).errno,
                         'EPERM')

    def test_search_still_decides_first(self):
        cid = 'o/d1770-A/lB/tfile-A/fB/trail/fchownat_nofollow'
        self.assertEqual(predicted(cid).decider, model.DAC_SEARCH)


class BindMountAndCachedTest(unittest.TestCase):
    """open_bindmount and openat2_cached walk a noatime bind mount of the
    sticky dirs' tmpfs: no atime, and RESOLVE_CACHED's RCU-only walk."""

    def test_bind_mount_judged_like_open_rdonly_without_atime(self):
        for cid in ops_ids('open_bindmount'):
            got = predicted(cid)
            want = predicted(cid.replace('open_bindmount', 'open_rdonly'))
            self.assertEqual((got.ret, got.errno, got.decider),
                             (want.ret, want.errno, want.decider), cid)
            self.assertFalse(got.atime, cid)

    def test_a_refusal_in_rcu_walk_is_eagain_and_unlogged(self):
        cid = 'o/d1777-root/lA/tfile-A/fB/trail/openat2_cached'
        for flavor, setting in (('v3y', 'ps0-own1'), ('v1', 'ps0-own1'),
                                ('v1-hook61', 'ps0-own1'),
                                ('base', 'ps1-own-')):
            got = predicted(cid, flavor, setting)
            self.assertEqual((got.errno, got.log, got.atime, got.artifacts),
                             ('EAGAIN', None, False, ()), flavor)
        self.assertEqual(predicted(cid, 'base', 'ps0-own-').errno, '0')
        self.assertEqual(predicted(cid.replace('/fB/', '/fA/')).errno, '0')

    def test_dac_refuses_in_rcu_walk_itself(self):
        cid = 'o/d1770-A/lB/tfile-A/fB/trail/openat2_cached'
        got = predicted(cid)
        self.assertEqual((got.errno, got.decider), ('EACCES',
                                                    model.DAC_SEARCH))

    def test_every_rule_refusal_becomes_eagain(self):
        for cid in ops_ids('openat2_cached'):
            got = predicted(cid)
            want = predicted(cid.replace('openat2_cached', 'open_bindmount'))
            self.assertEqual(got.errno, 'EAGAIN' if want.decider in (
                model.OWN, model.MAINLINE) else want.errno, cid)


class TmpfileLinkatTest(unittest.TestCase):
    """O_TMPFILE in t/ww, then linkat() to <link>/tmpfile: the link is an
    intermediate one, which only the revisions check."""

    CID = 'o/d1777-root/lA/tdir-ww/fB/trail/tmpfile_linkat'

    def test_the_link_is_intermediate(self):
        params = caseids.params_of(self.CID)
        self.assertEqual([x['kind'] for x in params['links']],
                         ['intermediate'])
        self.assertEqual(predict_control(params), (0, '0'))

    def test_mainline_lets_it_through_the_revisions_refuse(self):
        self.assertEqual(predicted(self.CID, 'base', 'ps1-own-').errno, '0')
        for flavor in ('v1', 'v3y', 'yama'):
            got = predicted(self.CID, flavor, 'ps1-own1')
            self.assertEqual((got.errno, got.decider), ('EACCES', model.OWN),
                             flavor)
        self.assertEqual(predicted(self.CID.replace('/fB/', '/fA/'),
                                   'v3y', 'ps1-own1').errno, '0')


if __name__ == '__main__':
    unittest.main()
