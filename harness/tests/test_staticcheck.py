"""static-check's pure parts: touched objects, normalising, new findings."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from kernel import staticcheck  # noqa: E402


class TestStaticCheck(unittest.TestCase):
    def test_touched_objects_are_the_changed_c_files(self):
        with tempfile.NamedTemporaryFile('w', suffix='.patch') as f:
            f.write('diff --git a/include/linux/security.h b/include/linux/'
                    'security.h\n'
                    'diff --git a/security/commoncap.c b/security/'
                    'commoncap.c\n'
                    'diff --git a/Documentation/x.rst b/Documentation/'
                    'x.rst\n')
            f.flush()
            self.assertEqual(staticcheck.touched_objects([f.name, f.name]),
                             ['security/commoncap.o'])

    def test_normalise_drops_tree_and_line_numbers(self):
        out = ('/b/v3/src/fs/namei.c:1099:9: warning: context imbalance\n'
               '../fs/namei.c:12:3: note: declared here\n'
               '  1099 |   spin_lock(x);\n'
               'fs/namei.c:651: warning: Function parameter not described\n')
        self.assertEqual(staticcheck.normalise(out, '/b/v3/src'), [
            'fs/namei.c: warning: context imbalance | '
            'fs/namei.c: note: declared here',
            'fs/namei.c: warning: Function parameter not described'])

    def test_new_findings_are_a_multiset_difference(self):
        base = ['a: warning: x', 'a: warning: y']
        mine = ['a: warning: x', 'a: warning: x', 'a: warning: y',
                'a: warning: z']
        self.assertEqual(staticcheck.new_findings(mine, base),
                         ['a: warning: x', 'a: warning: z'])
        self.assertEqual(staticcheck.new_findings(base, mine), [])


if __name__ == '__main__':
    unittest.main()
