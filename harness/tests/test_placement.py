"""placement-check on synthetic pick_link() bodies."""

import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
import placement

V3_ORDER = ('may_follow_link(', 'may_follow_sticky_link(',
            'LOOKUP_NO_SYMLINKS', 'touch_atime(')

SOURCE = '''
static inline int may_follow_sticky_link(struct nameidata *nd,
					 const struct inode *inode)
{
	if (nd->flags & LOOKUP_RCU)
		return -ECHILD;
	return 0;
}

static const char *pick_link(struct nameidata *nd, struct path *link,
		     struct inode *inode, int flags)
{
	if (flags & WALK_TRAILING) {
		error = may_follow_link(nd, inode);
	}
	error = may_follow_sticky_link(nd, inode);
	if (unlikely(nd->flags & LOOKUP_NO_SYMLINKS))
		return ERR_PTR(-ELOOP);
	touch_atime(&last->link);
	return NULL;
}
'''


class PlacementTest(unittest.TestCase):

    def problems(self, text):
        pick = placement.function_body(text, 'pick_link')
        body = placement.function_body(text, 'may_follow_sticky_link')
        return (placement.order_problems(pick, V3_ORDER)
                + placement.lock_problems(body, 'may_follow_sticky_link'))

    def test_ported_order_passes(self):
        self.assertEqual(self.problems(SOURCE), [])

    def test_check_before_mainline_fails(self):
        text = SOURCE.replace(
            '\terror = may_follow_sticky_link(nd, inode);\n', '').replace(
            '\tif (flags & WALK_TRAILING) {',
            '\terror = may_follow_sticky_link(nd, inode);\n'
            '\tif (flags & WALK_TRAILING) {')
        self.assertIn('expected may_follow_link(', self.problems(text)[0])

    def test_missing_call_fails(self):
        text = SOURCE.replace('touch_atime(&last->link);', '')
        self.assertIn('lacks touch_atime(', self.problems(text)[0])

    def test_d_lock_fails(self):
        text = SOURCE.replace('\tif (nd->flags & LOOKUP_RCU)',
                              '\tspin_lock(&dentry->d_lock);\n'
                              '\tif (nd->flags & LOOKUP_RCU)')
        self.assertIn('takes d_lock, spin_lock', self.problems(text)[0])

    def test_a_call_is_not_a_definition(self):
        self.assertIn('return -ECHILD', placement.function_body(
            SOURCE, 'may_follow_sticky_link'))


if __name__ == '__main__':
    unittest.main()
