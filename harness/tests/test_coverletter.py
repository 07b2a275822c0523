"""Cover letters are generated: a stale one is caught (needs build/pristine,
which `make kernels` extracts)."""

import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from flavors import TOP
from kernel import coverletter

PRISTINE = os.path.join(TOP, 'build', 'pristine')


@unittest.skipUnless(os.path.isdir(os.path.join(PRISTINE, '.git')),
                     'no pristine tree: run make kernels first')
class CoverLetterTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.rev = os.path.join(self.tmp, 'v3')
        shutil.copytree(os.path.join(TOP, 'v3'), self.rev)
        self.build = os.path.join(self.tmp, 'build')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def check(self):
        return coverletter.check(self.rev, PRISTINE, self.build)

    def edit(self, name, old, new):
        path = os.path.join(self.rev, name)
        with open(path, encoding='utf-8') as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text.replace(old, new, 1))

    def test_committed_letter_is_current(self):
        self.assertIsNone(self.check())

    def test_stale_diffstat_is_caught(self):
        self.edit(coverletter.NAME, 'insertions(+)', 'insertions(+), 1 '
                  'deletion(-)')
        self.assertIn('is stale', self.check())

    def test_changed_patch_makes_the_letter_stale(self):
        patch = next(p for p in os.listdir(self.rev) if p.startswith('0001'))
        self.edit(patch, 'Subject: [PATCH v3 1/1] fs: allow',
                  'Subject: [PATCH v3 1/1] fs: permit')
        self.assertIn('is stale', self.check())

    def test_changed_blurb_makes_the_letter_stale(self):
        self.edit('cover.txt', 'ported to', 'carried to')
        self.assertIn('is stale', self.check())

    def test_regenerated_letter_is_current_again(self):
        self.edit('cover.txt', 'ported to', 'carried to')
        coverletter.write(self.rev, PRISTINE, self.build)
        self.assertIsNone(self.check())


if __name__ == '__main__':
    unittest.main()
