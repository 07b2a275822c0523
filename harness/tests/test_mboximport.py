"""sticky.py import-mbox: a revision from an mbox, or a refusal that leaves
nothing behind.

Each test makes a tiny "pristine" git repository (TREE, committed on
branch `pristine` with fixed dates) and imports the fixture mboxes of
harness/fixtures/mbox/, which were made with git against that tree:

  cover.mbox           git format-patch --stdout --notes --cover-letter:
                       0/2 with a written subject and blurb, 1/2, 2/2
                       (PATCH v2) with version notes
  out-of-order.mbox    b4-style separators: 2/2, a reply carrying a diff
                       of its own, then 1/2; no cover letter
  does-not-apply.mbox  1/2 as in cover.mbox; 2/2 with a context line of
                       fs/namei.c that the tree does not have
  missing-file.mbox    one [PATCH v2] to fs/open.c, which the tree lacks
  no-patch.mbox        a cover letter saved without its patches, and a
                       reply
"""

import configparser
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

# harness/ on sys.path, also when run as
# `python3 -m unittest harness/tests/test_mboximport.py`.
HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)

from kernel import coverletter  # noqa: E402
from kernel import mboximport  # noqa: E402
from kernel import tree  # noqa: E402
from stages import HarnessError  # noqa: E402

FIXTURES = os.path.join(HARNESS, 'fixtures', 'mbox')
STICKY = [sys.executable, os.path.join(HARNESS, 'sticky.py')]
ENV = dict(os.environ, GIT_AUTHOR_NAME='Tiny Tree',
           GIT_AUTHOR_EMAIL='tiny@localhost', GIT_COMMITTER_NAME='Tiny Tree',
           GIT_COMMITTER_EMAIL='tiny@localhost',
           GIT_AUTHOR_DATE='Thu, 27 May 2010 12:00:00 +0000',
           GIT_COMMITTER_DATE='Thu, 27 May 2010 12:00:00 +0000')

NAMEI = """\
/* fs/namei.c of the tiny tree of harness/tests/test_mboximport.py */
int sysctl_protected_symlinks = 1;
int sysctl_protected_hardlinks = 1;

static int may_follow_link(int fsuid, int owner)
{
\tif (!sysctl_protected_symlinks || fsuid == owner)
\t\treturn 0;
\treturn -13;
}

int pick_link(int fsuid, int owner)
{
\tint error = may_follow_link(fsuid, owner);

\tif (error)
\t\treturn error;
\treturn 0;
}
"""

TREE = {
    'Makefile': 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n',
    'README': 'The tiny pristine tree of the import-mbox tests.\n',
    'fs/namei.c': NAMEI,
}

# fs/namei.c once cover.mbox's two patches are applied.
NAMEI_PATCHED = NAMEI.replace(
    'hardlinks = 1;\n',
    'hardlinks = 1;\nint sysctl_protected_sticky_symlinks;\n').replace(
    '\tif (error)\n\t\treturn error;\n\treturn 0;',
    '\tif (error)\n\t\treturn error;\n'
    '\tif (sysctl_protected_sticky_symlinks && fsuid != owner)\n'
    '\t\treturn -13;\n\treturn 0;')

COVER_SUBJECT = 'fs: protected sticky symlinks for the tiny tree'
# Patch 2's version notes, between its `---` line and its diffstat.
NOTES = ('---\n\nNotes:\n    v2:\n     - refuse only when the knob is set.'
         '\n    \n    v1:\n     - first version.\n\n Documentation/')
PATCH1 = 'fs: add the protected_sticky_symlinks knob'
PATCH2 = 'fs: refuse cross-uid links when the knob is set'


def make_pristine(path):
    """The tiny tree, committed on branch `pristine`."""
    for name, text in TREE.items():
        full = os.path.join(path, name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8') as f:
            f.write(text)
    for args in (['init', '-q', '-b', 'pristine'], ['add', '-A'],
                 ['commit', '-q', '-m', 'tiny pristine tree']):
        subprocess.run(['git', '-C', path, *args], check=True, env=ENV,
                       capture_output=True)


def git(repo, *args):
    return tree.git(repo, *args).stdout


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


class ImportMboxTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.pristine = os.path.join(self.tmp, 'pristine')
        make_pristine(self.pristine)
        self.top = os.path.join(self.tmp, 'top')
        self.scratch = os.path.join(self.tmp, 'scratch')
        os.makedirs(self.top)
        os.makedirs(self.scratch)
        self.dest = os.path.join(self.top, 'v9')

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_import(self, fixture, dest=None):
        return mboximport.import_mbox(os.path.join(FIXTURES, fixture),
                                      dest or self.dest, self.pristine,
                                      scratch_dir=self.scratch)

    def refused(self, fixture):
        """The HarnessError message of a refused import, after checking
        that it left nothing behind."""
        before = sorted(os.listdir(self.top))
        with self.assertRaises(HarnessError) as cm:
            self.run_import(fixture)
        self.assertNothingLeft(before)
        return str(cm.exception)

    def assertNothingLeft(self, top_before):
        self.assertEqual(sorted(os.listdir(self.top)), top_before)
        self.assertEqual(os.listdir(self.scratch), [])
        worktrees = git(self.pristine, 'worktree', 'list', '--porcelain')
        self.assertEqual(worktrees.count('worktree '), 1, worktrees)
        self.assertEqual(git(self.pristine, 'for-each-ref',
                             '--format=%(refname)').split(),
                         ['refs/heads/pristine'])
        self.assertEqual(git(self.pristine, 'status', '--porcelain'), '')

    def series(self):
        return read(os.path.join(self.dest, 'series')).split()

    def subjects(self):
        out = []
        for name in self.series():
            for line in read(os.path.join(self.dest, name)).splitlines():
                if line.startswith('Subject: '):
                    out.append(line[len('Subject: '):])
                    break
        return out

    def applied(self, rev):
        """fs/namei.c after `git am` of the revision's series in a fresh
        clone of the tiny tree."""
        clone = os.path.join(self.tmp, 'clone')
        subprocess.run(['git', 'clone', '-q', self.pristine, clone],
                       check=True, capture_output=True)
        git(clone, 'am', '-q', *[os.path.join(rev, n)
                                 for n in read(os.path.join(rev, 'series'))
                                 .split()])
        return read(os.path.join(clone, 'fs', 'namei.c'))

    def test_series_with_cover_letter(self):
        res = self.run_import('cover.mbox')
        self.assertEqual(res.dest, self.dest)
        self.assertEqual(self.series(), [
            '0001-fs-add-the-protected_sticky_symlinks-knob.patch',
            '0002-fs-refuse-cross-uid-links-when-the-knob-is-set.patch'])
        self.assertEqual(self.subjects(), [f'[PATCH v2 1/2] {PATCH1}',
                                           f'[PATCH v2 2/2] {PATCH2}'])
        self.assertEqual(sorted(os.listdir(self.dest)), sorted(
            self.series() + ['series', 'cover.txt', 'revision.ini',
                             coverletter.NAME]))
        # The authors and dates of the mbox, not the porter's.
        first = read(os.path.join(self.dest, self.series()[0]))
        self.assertIn('From: "A. Porter" <porter@example.org>\n', first)
        self.assertIn('Date: Tue, 1 Jun 2010 11:52:48 -0700\n', first)
        # The version notes, which git am drops, are kept.
        self.assertIn(NOTES, read(os.path.join(self.dest,
                                               self.series()[1])))
        self.assertNotIn('Notes', first)
        # cover.txt: the cover letter's subject and blurb, without its
        # shortlog, diffstat and signature.
        cover = read(os.path.join(self.dest, 'cover.txt'))
        self.assertTrue(cover.startswith(COVER_SUBJECT + '\n\nTwo patches '),
                        cover)
        self.assertTrue(cover.endswith('patch 2 the check.\n'), cover)
        letter = read(os.path.join(self.dest, coverletter.NAME))
        self.assertIn(f'Subject: [PATCH v2 0/2] {COVER_SUBJECT}\n', letter)
        self.assertEqual(letter.count(' (2):\n'), 1, letter)
        self.assertIsNone(coverletter.check(self.dest, self.pristine,
                                            os.path.join(self.tmp, 'b')))
        self.assertEqual(self.applied(self.dest), NAMEI_PATCHED)
        ini = configparser.ConfigParser(interpolation=None)
        ini.read(os.path.join(self.dest, 'revision.ini'))
        rev = dict(ini['revision'])
        self.assertEqual(rev.pop('describe'), f'v9: {COVER_SUBJECT}')
        self.assertEqual(rev, dict.fromkeys(mboximport.REVISION_KEYS,
                                            'FILL-IN'))
        umask = os.umask(0)
        os.umask(umask)
        self.assertEqual(os.stat(self.dest).st_mode & 0o777, 0o777 & ~umask)
        self.assertNothingLeft(['v9'])

    def test_out_of_order_patches_are_sorted(self):
        res = self.run_import('out-of-order.mbox')
        self.assertEqual(res.patches, self.series())
        self.assertEqual(self.subjects(), [f'[PATCH v2 1/2] {PATCH1}',
                                           f'[PATCH v2 2/2] {PATCH2}'])
        self.assertEqual(self.applied(self.dest), NAMEI_PATCHED)
        # No cover letter: a stub from patch 1's subject.
        self.assertFalse(res.from_cover)
        self.assertEqual(read(os.path.join(self.dest, 'cover.txt')),
                         f'{PATCH1}\n\n{mboximport.STUB_BLURB}\n')
        self.assertIn(f'Subject: [PATCH v2 0/2] {PATCH1}\n',
                      read(os.path.join(self.dest, coverletter.NAME)))
        self.assertNothingLeft(['v9'])

    def test_patch_that_does_not_apply(self):
        msg = self.refused('does-not-apply.mbox')
        self.assertIn('patch 2/2', msg)
        self.assertIn(PATCH2, msg)
        self.assertIn('in fs/namei.c', msg)
        self.assertNotIn('\n', msg)

    def test_patch_to_a_missing_file(self):
        msg = self.refused('missing-file.mbox')
        self.assertIn('patch 1/1 (fs: open: say which file)', msg)
        self.assertIn('in fs/open.c', msg)

    def test_late_failure_leaves_no_partial_revision(self):
        """A failure once the patches are written (here: the cover
        letter) leaves no half-made revision beside DIR."""
        def broken(rev_dir, *args):
            self.assertTrue(os.listdir(rev_dir))
            raise HarnessError('cover letter failed')
        with mock.patch.object(coverletter, 'write', broken):
            self.assertEqual(self.refused('cover.mbox'),
                             'cover letter failed')

    def test_existing_directory_is_untouched(self):
        os.makedirs(self.dest)
        keep = os.path.join(self.dest, 'notes.txt')
        with open(keep, 'w', encoding='utf-8') as f:
            f.write('mine\n')
        msg = self.refused('cover.mbox')
        self.assertIn('already exists', msg)
        self.assertEqual(os.listdir(self.dest), ['notes.txt'])
        self.assertEqual(read(keep), 'mine\n')

    def test_mbox_without_patches(self):
        self.assertIn('holds no patches', self.refused('no-patch.mbox'))

    def test_missing_and_non_mbox_files(self):
        self.assertIn('cannot read the mbox', self.refused('nonexistent'))
        with open(os.path.join(self.tmp, 'plain.txt'), 'w',
                  encoding='utf-8') as f:
            f.write('not a mail\n')
        self.assertIn('holds no patches',
                      self.refused(os.path.join(self.tmp, 'plain.txt')))

    def test_missing_pristine_tree(self):
        self.pristine = os.path.join(self.tmp, 'nowhere')
        with self.assertRaises(HarnessError) as cm:
            self.run_import('cover.mbox')
        self.assertIn('make kernel FLAVOR=base', str(cm.exception))
        self.assertEqual(os.listdir(self.top), [])
        self.assertEqual(os.listdir(self.scratch), [])

    def test_interrupt_removes_the_worktree(self):
        real = tree.git

        def interrupted(repo, *args, **kw):
            if 'am' in args:
                raise KeyboardInterrupt
            return real(repo, *args, **kw)
        with mock.patch.object(tree, 'git', interrupted):
            with self.assertRaises(KeyboardInterrupt):
                self.run_import('cover.mbox')
        self.assertNothingLeft([])

    def test_command_line(self):
        """sticky.py import-mbox: DIR under --top, scratch under
        --build-dir, the flavors.ini stub and next steps printed."""
        build = os.path.join(self.tmp, 'build')
        os.makedirs(build)
        os.rename(self.pristine, os.path.join(build, 'pristine'))
        self.pristine = os.path.join(build, 'pristine')
        # Relative paths, from the current directory.
        shutil.copy(os.path.join(FIXTURES, 'cover.mbox'), self.tmp)
        cmd = STICKY + ['--build-dir', 'build', '--top', 'top',
                        'import-mbox', 'cover.mbox', 'v9']
        res = subprocess.run(cmd, capture_output=True, text=True,
                             cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('[v9]\nseries = v9\nconfig = FILL-IN\n', res.stdout)
        self.assertIn(f'describe = v9: {COVER_SUBJECT}\n', res.stdout)
        self.assertIn('make kernel FLAVOR=v9', res.stdout)
        self.assertEqual(self.series()[0][:5], '0001-')
        self.assertEqual(sorted(os.listdir(build)), ['pristine'])
        res = subprocess.run(cmd, capture_output=True, text=True,
                             cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertRegex(res.stderr, r'^error: .*v9 already exists: ')


class SelectTest(unittest.TestCase):
    """Which messages are the patches, without git am."""

    def mail(self, subject, text='diff --git a/f b/f\n'):
        return mboximport.Mail('', subject,
                               *mboximport.parse_subject(subject), text)

    def test_prefix_keeps_version_drops_rfc(self):
        m = self.mail('[RFC PATCH v4 3/12] fs: x')
        self.assertEqual((m.prefix, m.number, m.total, m.title),
                         ('PATCH v4', 3, 12, 'fs: x'))

    def test_a_missing_patch_is_named(self):
        with self.assertRaisesRegex(HarnessError, 'lacks patch 2/3'):
            mboximport.select([self.mail('[PATCH 1/3] a'),
                               self.mail('[PATCH 3/3] c')], 'm')

    def test_two_versions_are_refused(self):
        with self.assertRaisesRegex(HarnessError, 'more than one series'):
            mboximport.select([self.mail('[PATCH v1 1/1] a'),
                               self.mail('[PATCH v2 1/1] a')], 'm')


if __name__ == '__main__':
    unittest.main()
