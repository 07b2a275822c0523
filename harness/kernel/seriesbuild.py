"""Every patch of every series builds (bisectability).

For each default flavor whose series has more than one patch, the tree at
each proper prefix of the series (patch 1, patches 1-2, ...) is built in
that flavor's configuration, as build/<flavor>@<k>. The full series is the
flavor itself, built by `make kernels`. ccache shares the objects, so a
prefix costs little more than the files its patches leave out.
"""

import dataclasses
import os

from flavors import flavor_patches, pick
from kernel import kernels
from stages import HarnessError, log


def prefixes(flavor, top):
    """[(name, flavor)] of the proper prefixes of the flavor's series."""
    names = [os.path.basename(p) for p in flavor_patches(flavor, top)]
    return [(f'{flavor.name}@{k}',
             dataclasses.replace(flavor, name=f'{flavor.name}@{k}',
                                 patches=tuple(names[:k])))
            for k in range(1, len(names))]


def run(build, top, stages, ini=None):
    """Builds every prefix; returns the number that failed."""
    failed = 0
    for flavor in pick([], ini) if ini else pick([]):
        for name, prefix in prefixes(flavor, top):
            try:
                kernels.build_flavor(prefix, build, top, stages)
                log(f'ok {name}: {", ".join(prefix.patches)} builds')
            except HarnessError as err:
                failed += 1
                log(f'not ok {name}: {err}')
    return failed
