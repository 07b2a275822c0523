"""git range-diff of one revision's series against another's, same base."""

import os

import flavors as flv
from kernel import tree
from stages import HarnessError


def head_of(build, flavor):
    wt = os.path.join(build, flavor, 'src')
    if not os.path.isfile(wt + '.applied'):
        raise HarnessError(f'{wt} has no applied series: run `make kernels` '
                           f'first')
    return tree.git(wt, 'rev-parse', 'HEAD').stdout.strip()


def first_pair():
    """The first pair the report declares (harness/pairs.ini): the two
    revisions the range-diff compares by default."""
    from differ.diff import PAIRS
    return PAIRS[0].a, PAIRS[0].b


def write(build, a=None, b=None, out=None):
    """Writes build/range-diff.txt (a's series vs b's) and returns it."""
    if a is None or b is None:
        a, b = first_pair()
    fl = flv.load()
    src = os.path.join(build, 'pristine')
    ha, hb = head_of(build, fl[a].name), head_of(build, fl[b].name)
    # The revisions share little text; a high creation factor makes
    # range-diff pair v1's patch with v3's first and show how it changed.
    res = tree.git(src, 'range-diff', '--no-color', '--creation-factor=100',
                   f'pristine..{ha}',
                   f'pristine..{hb}')
    out = out or os.path.join(build, 'range-diff.txt')
    with open(out, 'w', encoding='utf-8') as f:
        f.write(f'git range-diff pristine..{a} pristine..{b}\n\n')
        f.write(res.stdout)
    return out
