"""kbuild.refuse_warnings(): a flavor whose build warns fails, and the
objects of the files that warned are compiled again next time."""

import os
import shutil
import tempfile
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from kernel import kbuild
from stages import HarnessError

# What kbuild printed when v1-nosec built v1's patch 2 as first ported
# (the hook outside #ifdef CONFIG_SECURITY), around lines that are not
# warnings.
LOG = '''  CC      security/commoncap.o
../src/security/commoncap.c:370:12: warning: 'cap_inode_follow_link' defined but not used [-Wunused-function]
  370 | static int cap_inode_follow_link(struct dentry *dentry, struct inode *inode,
      |            ^~~~~~~~~~~~~~~~~~~~~
  CC      fs/namei.o
  LD      vmlinux.o
vmlinux.o: warning: objtool: foo+0x1: unreachable instruction
WARNING: modpost: vmlinux.o: section mismatch in reference
'''


class RefuseWarningsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.src = os.path.join(self.dir, 'src')
        self.obj = os.path.join(self.dir, 'obj')
        for d in (self.src, self.obj):
            os.makedirs(os.path.join(d, 'security'))
            os.makedirs(os.path.join(d, 'fs'))
        for name in ('security/commoncap.c', 'fs/namei.c'):
            open(os.path.join(self.src, name), 'w').close()
            open(os.path.join(self.obj, name[:-2] + '.o'), 'w').close()
        self.log = os.path.join(self.dir, 'build.log')

    def write(self, text):
        with open(self.log, 'w', encoding='utf-8') as f:
            f.write(text)

    def test_every_kind_of_warning_is_found_once(self):
        self.write(LOG + LOG)
        self.assertEqual(kbuild.warnings(self.log, self.src), [
            ('security/commoncap.c', "security/commoncap.c: "
             "'cap_inode_follow_link' defined but not used "
             "[-Wunused-function]"),
            ('vmlinux.o', 'vmlinux.o: objtool: foo+0x1: unreachable '
             'instruction'),
            (None, 'kbuild: modpost: vmlinux.o: section mismatch in '
             'reference'),
        ])

    def test_a_warning_fails_and_its_object_is_removed(self):
        self.write(LOG)
        with self.assertRaises(HarnessError) as cm:
            kbuild.refuse_warnings(self.log, self.src, self.obj)
        msg = str(cm.exception)
        self.assertIn('3 warning(s)', msg)
        self.assertIn("'cap_inode_follow_link' defined but not used", msg)
        self.assertIn('removed security/commoncap.o', msg)
        self.assertFalse(os.path.exists(
            os.path.join(self.obj, 'security', 'commoncap.o')))
        self.assertTrue(os.path.exists(
            os.path.join(self.obj, 'fs', 'namei.o')))

    def test_a_clean_log_passes(self):
        self.write('  CC      fs/namei.o\n  LD      vmlinux.o\n'
                   '  Kernel: arch/x86/boot/bzImage is ready  (#1)\n')
        kbuild.refuse_warnings(self.log, self.src, self.obj)
        self.assertTrue(os.path.exists(
            os.path.join(self.obj, 'fs', 'namei.o')))


if __name__ == '__main__':
    unittest.main()
