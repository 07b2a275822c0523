"""Where each flavor's check sits in 6.1's pick_link(), read from its
patched tree, and that checks run in RCU-walk mode take no lock.

harness/flavors.ini gives, per flavor, `pick_link_order`: the calls that
pick_link() must make in that order (for the revisions: may_follow_link(),
whose AUDIT_ANOM_LINK record must survive, then the revision's check, then
the nosymfollow / LOOKUP_NO_SYMLINKS test and touch_atime()), and
`lockless`: functions that must take no lock (v3's posting took the link's
d_lock on every follow).
"""

import os
import re

from stages import HarnessError

LOCKS = re.compile(r'\b(spin_lock\w*|read_lock\w*|write_lock\w*|'
                   r'mutex_lock\w*|d_lock|lock_rename|down_read|down_write)\b')


def function_body(text, name):
    """The source of the C function `name` (definition, not a call)."""
    m = re.search(r'^[^\n;]*\b' + re.escape(name) + r'\([^;{]*\)\s*\{',
                  text, re.M)
    if not m:
        raise HarnessError(f'no definition of {name}() found')
    depth, i = 0, m.end() - 1
    while i < len(text):
        depth += {'{': 1, '}': -1}.get(text[i], 0)
        if depth == 0:
            return text[m.start():i + 1]
        i += 1
    raise HarnessError(f'{name}() has unbalanced braces')


def order_problems(pick_link, marks):
    """Problems with the order of the calls in pick_link()."""
    where = [pick_link.find(m) for m in marks]
    missing = [m for m, at in zip(marks, where) if at < 0]
    if missing:
        return [f'pick_link() lacks {", ".join(missing)}']
    if where != sorted(where):
        got = [m for _, m in sorted(zip(where, marks))]
        return [f'pick_link() calls {" -> ".join(got)}; expected '
                f'{" -> ".join(marks)}']
    return []


COMMENTS = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def lock_problems(body, name):
    found = sorted(set(LOCKS.findall(COMMENTS.sub(' ', body))))
    return [f'{name}() takes {", ".join(found)} (on the RCU-walk path)'] \
        if found else []


def _source(src, path):
    with open(os.path.join(src, path), encoding='utf-8') as f:
        return f.read()


def check_tree(src, order, lockless=()):
    """Problems of one patched tree: pick_link() must meet the markers of
    `order` in that order, and the functions in `lockless` (in fs/namei.c,
    or `file:function` for another file) take no lock."""
    text = _source(src, os.path.join('fs', 'namei.c'))
    problems = order_problems(function_body(text, 'pick_link'), order)
    for entry in lockless:
        path, _, name = entry.rpartition(':')
        body = function_body(_source(src, path) if path else text, name)
        problems += lock_problems(body, name)
    return problems
