"""git range-diff of one revision's series against another's, same base."""

import os

import flavors as flv
import tree
from stages import HarnessError


def head_of(build, flavor):
    wt = os.path.join(build, flavor, 'src')
    if not os.path.isfile(wt + '.applied'):
        raise HarnessError(f'{wt} has no applied series: run `make kernels` '
                           f'first')
    return tree.git(wt, 'rev-parse', 'HEAD').stdout.strip()


def write(build, a='v1', b='v3', out=None):
    """Writes build/range-diff.txt (v1 series vs v3 series) and returns it."""
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
