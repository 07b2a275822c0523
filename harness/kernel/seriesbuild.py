"""Every patch of every series builds (bisectability).

For each default flavor whose series has more than one patch, the tree at
each proper prefix of the series (patch 1, patches 1-2, ...) is built in
that flavor's configuration, as build/<flavor>@<k>. The full series is the
flavor itself, built by `make kernels`. ccache shares the objects, so a
prefix costs little more than the files its patches leave out.
"""

import dataclasses
import os
import re

from flavors import flavor_patches, pick
from kernel import kernels
from kernel.kbuild import defined_symbols
from stages import HarnessError, log


def prefixes(flavor, top):
    """[(name, flavor)] of the proper prefixes of the flavor's series,
    each configured without the flavor's lines for the Kconfig symbols
    that only the patches left out define (OWLSM's SECURITY_OWLSM comes
    with its patch 2: patch 1 is built without it)."""
    paths = flavor_patches(flavor, top)
    names = [os.path.basename(p) for p in paths]
    return [(f'{flavor.name}@{k}',
             dataclasses.replace(flavor, name=f'{flavor.name}@{k}',
                                 patches=tuple(names[:k]),
                                 config=_without(flavor.config,
                                                 defined_symbols(
                                                     paths[k:]))))
            for k in range(1, len(names))]


def _without(lines, symbols):
    """Config lines less those that set one of `symbols`."""
    return tuple(line for line in lines
                 if not any(re.search(rf'\bCONFIG_{s}\b', line)
                            for s in symbols))


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
