"""seriescheck.consistency(): numbering, one prefix, shared patches."""

import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from kernel import seriescheck

PATCH = '''From 0 Mon Sep 17 00:00:00 2001
From: A <a@localhost>
Date: Thu, 3 Dec 2026 12:00:00 +0000
Subject: [{prefix} {n}/{of}] {title}
 {fold}

body

---
 f | 1 +

diff --git a/f b/f
{change}
-- 
2.39.5
'''


class ConsistencyTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.top)

    def series(self, rev, patches, listing=None):
        d = os.path.join(self.top, rev)
        os.makedirs(d, exist_ok=True)
        names = []
        for i, (prefix, n, of, title, change) in enumerate(patches, 1):
            name = f'000{i}-p.patch'
            with open(os.path.join(d, name), 'w', encoding='utf-8') as f:
                f.write(PATCH.format(prefix=prefix, n=n, of=of, title=title,
                                     fold='folded', change=change))
            names.append(name)
        with open(os.path.join(d, 'series'), 'w', encoding='utf-8') as f:
            f.write('\n'.join(listing or names) + '\n')

    def test_consistent_series_pass(self):
        self.series('v1', [('PATCH v1', 1, 2, 'fs: a', '+a'),
                           ('PATCH v1', 2, 2, 'fs: b', '+b')])
        self.series('yama', [('PATCH yama', 1, 2, 'fs: a', '+a'),
                             ('PATCH yama', 2, 2, 'yama: c', '+c')])
        self.assertEqual(seriescheck.consistency(self.top), [])

    def test_wrong_number_fails(self):
        self.series('v1', [('PATCH v1', 1, 2, 'fs: a', '+a'),
                           ('PATCH v1', 1, 2, 'fs: b', '+b')])
        problems = seriescheck.consistency(self.top)
        self.assertEqual(len(problems), 1)
        self.assertIn('v1/0002-p.patch: numbered 1/2, but it is patch 2',
                      problems[0])

    def test_two_prefixes_fail(self):
        self.series('yama', [('PATCH v1', 1, 2, 'fs: a', '+a'),
                             ('PATCH yama', 2, 2, 'yama: c', '+c')])
        problems = seriescheck.consistency(self.top)
        self.assertEqual(len(problems), 1)
        self.assertIn('2 subject prefixes ([PATCH v1], [PATCH yama])',
                      problems[0])

    def test_shared_patch_that_drifted_fails(self):
        self.series('v1', [('PATCH v1', 1, 1, 'fs: a', '+a')])
        self.series('yama', [('PATCH yama', 1, 1, 'fs: a', '+a changed')])
        problems = seriescheck.consistency(self.top)
        self.assertEqual(len(problems), 1)
        self.assertIn('share the subject "fs: a folded" but not the change',
                      problems[0])

    def test_a_revision_may_change_the_posting_it_revises(self):
        self.series('v1', [('PATCH v1', 1, 1, 'fs: a', '+a')])
        self.series('v2', [('PATCH v2', 1, 1, 'fs: a', '+a changed')])
        problems = seriescheck.consistency(self.top)
        self.assertEqual(len(problems), 1)
        with open(os.path.join(os.path.dirname(support.HARNESS), 'v1',
                               'revision.ini'), encoding='utf-8') as f:
            ini = f.read()
        with open(os.path.join(self.top, 'v2', 'revision.ini'), 'w',
                  encoding='utf-8') as f:
            f.write(ini + 'revises = v1\n')
        self.assertEqual(seriescheck.consistency(self.top), [])

    def test_patch_from_another_directory_fails(self):
        self.series('v1', [('PATCH v1', 1, 1, 'fs: a', '+a')])
        self.series('yama', [('PATCH yama', 1, 2, 'yama: c', '+c')],
                    listing=['../v1/0001-p.patch', '0001-p.patch'])
        problems = seriescheck.consistency(self.top)
        self.assertTrue(any('outside yama/' in p for p in problems),
                        problems)


if __name__ == '__main__':
    unittest.main()
