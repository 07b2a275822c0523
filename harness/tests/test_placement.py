"""placement-check on synthetic pick_link() bodies."""

import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from kernel import placement

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


LSM = '''
static int yama_inode_follow_link(struct dentry *dentry, struct inode *inode,
				  bool rcu)
{
	rcu_read_lock();
	parent = d_inode_rcu(READ_ONCE(dentry->d_parent));
	rcu_read_unlock();
	return 0;
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

    def test_a_lock_named_in_a_comment_passes(self):
        text = SOURCE.replace('\tif (nd->flags & LOOKUP_RCU)',
                              '\t/* read without d_lock, as posted */\n'
                              '\tif (nd->flags & LOOKUP_RCU)')
        self.assertEqual(self.problems(text), [])

    def test_lockless_function_in_another_file(self):
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as src:
            for path, text in (('fs/namei.c', SOURCE),
                               ('security/yama/yama_lsm.c', LSM)):
                os.makedirs(os.path.join(src, os.path.dirname(path)),
                            exist_ok=True)
                with open(os.path.join(src, path), 'w') as f:
                    f.write(text)
            entry = 'security/yama/yama_lsm.c:yama_inode_follow_link'
            self.assertEqual(placement.check_tree(src, V3_ORDER, [entry]),
                             [])
            with open(os.path.join(src, 'security/yama/yama_lsm.c'),
                      'w') as f:
                f.write(LSM.replace('rcu_read_lock();',
                                    'spin_lock(&dentry->d_lock);'))
            self.assertIn('yama_inode_follow_link() takes d_lock',
                          placement.check_tree(src, V3_ORDER, [entry])[0])

    def test_a_call_is_not_a_definition(self):
        self.assertIn('return -ECHILD', placement.function_body(
            SOURCE, 'may_follow_sticky_link'))


if __name__ == '__main__':
    unittest.main()
