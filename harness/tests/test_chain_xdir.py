"""chain-xdir: two sticky directories with different owners on one path.
The first link is the case's, in the case's directory; it names a second
link, root's, in B's 1777 directory (common/lib/layout.c).  Each link must be
judged against its own directory: judged against the first one, root's
second link would pass in every root-owned directory."""

import unittest

import support
from model import cases as caseids
from model import rule as model
from suite import expect


CID = 'p/d1777-root/lA/tfile-root/f{}/chainx/open_rdonly'


class ChainXdirTest(unittest.TestCase):
    def test_the_second_link_lives_in_bs_dir(self):
        links = caseids.params_of(CID.format('A'))['links']
        self.assertEqual([(x['dir_mode'], x['dir_owner'], x['owner'])
                          for x in links],
                         [('1777', 'root', 'A'), ('1777', 'B', 'root')])

    def test_the_second_link_refuses(self):
        # A follows A's own link, then root's link in B's directory
        for flavor, setting in (('v3y', 'ps0-own1'), ('v1', 'ps0-own1'),
                                ('yama', 'ps0-own1'),
                                ('base', 'ps1-own-')):
            got = support.predict_id(CID.format('A'), flavor, setting)
            self.assertEqual((got.errno, got.link), ('EACCES', 1), flavor)
            root = CID.format('root').replace('/lA/', '/lroot/')
            self.assertEqual(support.predict_id(root, flavor, setting).errno, '0',
                             flavor)

    def test_each_link_in_its_own_directory(self):
        # B's link in root's dir: the first link refuses A, not the second
        got = support.predict_id(CID.format('A').replace('/lA/', '/lB/'), 'v3y',
                        'ps0-own1')
        self.assertEqual((got.decider, got.link), (model.OWN, 0))
        ids = [c for c in expect.case_ids() if '/chainx/' in c]
        self.assertEqual(len(ids), 4 * 3 * 7)
        second = sum(support.predict_id(c, 'v3y', 'ps0-own1').link == 1 for c in ids)
        # the 4 followers with fsuid != 0, once past the first link:
        # 0777-root 4 x 3 link owners, 1770-A 3 x 3 (B cannot search it),
        # 1777-root 3 x 2 + 2 (root's link or their own), 1777-A 3 + 2
        self.assertEqual(second, 12 + 9 + 8 + 5)


class ByOwnerTest(unittest.TestCase):
    """trailing-byowner: the link made by its owner with symlink(), as LTP
    prot_hsymlinks' users make theirs; judged as a root-made one."""

    def test_judged_as_trailing(self):
        ids = [c for c in expect.case_ids() if '/byowner/' in c]
        self.assertEqual(len(ids), 3 * 3 * 7)
        self.assertFalse([c for c in ids if '/d1770-A/' in c])
        refused = 0
        for cid in ids:
            got = support.predict_id(cid, 'v3y', 'ps0-own1')
            twin = support.predict_id(cid.replace('/byowner/', '/trail/'), 'v3y',
                             'ps0-own1')
            self.assertEqual(got.verdict(), twin.verdict(), cid)
            refused += got.decider == model.OWN
        self.assertEqual(refused, 4 + 6 + 4 + 6)


if __name__ == '__main__':
    unittest.main()
