"""The ops taken from the peer suites: LTP prot_hsymlinks' O_NONBLOCK |
O_DIRECTORY open, fstests generic/597 and vfstest's openat(dirfd,
"link"), and faccessat(AT_SYMLINK_NOFOLLOW), predicted from the case id."""

import unittest

import support  # noqa: F401  (sets the import path)
from stickydiff import caseids, model
from stickydiff.control import has_control, predict_control
from stickydiff.model import config_for, predict
from suite import expect


def predicted(cid, flavor='v3y', setting='ps0-own1', **ids):
    params = dict(caseids.params_of(cid))
    params.update(ids)
    knobs = dict(expect.settings(flavor))[setting]
    return predict({'params': params}, config_for(flavor, knobs))


def ops_ids(op):
    return [c for c in expect.case_ids() if c.endswith('/' + op)]


class PeerOpsTest(unittest.TestCase):
    def test_each_op_has_the_ops_group_cross(self):
        for op in ('open_nonblock_directory', 'openat_dirfd',
                   'faccessat_nofollow'):
            self.assertEqual(len(ops_ids(op)), 4 * 3 * 6, op)

    def test_openat_dirfd_is_judged_like_open_rdonly(self):
        refused = 0
        for cid in ops_ids('openat_dirfd'):
            got = predicted(cid)
            want = predicted(cid.replace('openat_dirfd', 'open_rdonly'))
            self.assertEqual(got.verdict(), want.verdict(), cid)
            refused += got.decider == model.OWN
        # 1777-root: A's link for 3 fsuids, B's for 5; 1777-A: root's
        # link for 4, B's for 5; 0777 and 1770 are not sticky and o+w
        self.assertEqual(refused, 3 + 5 + 4 + 5)

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


if __name__ == '__main__':
    unittest.main()
