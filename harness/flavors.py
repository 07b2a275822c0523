"""Kernel flavors, read from harness/flavors.ini."""

import configparser
import os
from dataclasses import dataclass

from stages import HarnessError

HARNESS = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HARNESS)
INI = os.path.join(HARNESS, 'flavors.ini')


@dataclass(frozen=True)
class Flavor:
    name: str
    series: str          # '' for the pristine tree
    config: tuple        # Kconfig lines appended to the common fragment
    knob: str            # own sysctl name under /proc/sys/fs, '' for none
    protect: str         # value of `knob` that turns the protection on
    describe: str
    boot_knobs: dict     # knob -> expected boot value, 'absent' allowed
    extra: bool = False  # built only when named
    patches: tuple = ()  # which patches of the series (default: all)
    pick_link_order: tuple = ()  # calls pick_link() makes, in order
    lockless: tuple = ()  # functions that must take no lock
    mutant_of: str = ''  # a deliberately broken copy of this flavor


def load(path=INI):
    cp = configparser.ConfigParser(interpolation=None)
    with open(path, encoding='utf-8') as f:
        cp.read_file(f)
    flavors = {}
    for name in cp.sections():
        sec = cp[name]
        lines = tuple(x.strip() for x in sec.get('config', '').splitlines()
                      if x.strip())
        boot = dict(item.split('=', 1)
                    for item in sec.get('boot_knobs', '').split())
        flavors[name] = Flavor(name, sec.get('series', '').strip(), lines,
                               sec.get('knob', '').strip(),
                               sec.get('protect', '').strip(),
                               sec.get('describe', '').strip(), boot,
                               sec.getboolean('extra', fallback=False),
                               tuple(sec.get('patches', '').split()),
                               tuple(sec.get('pick_link_order', '').split()),
                               tuple(sec.get('lockless', '').split()),
                               sec.get('mutant_of', '').strip())
    return flavors


def pick(names, path=INI):
    """Returns the named flavors (all but the extra ones when `names` is
    empty)."""
    flavors = load(path)
    if not names:
        return [f for f in flavors.values() if not f.extra]
    unknown = [n for n in names if n not in flavors]
    if unknown:
        raise HarnessError(f"unknown flavor {', '.join(unknown)}; "
                           f"valid flavors: {', '.join(flavors)}")
    return [flavors[n] for n in names]


def series_dir(series, top=TOP):
    return os.path.join(top, series)


def flavor_patches(flavor, top=TOP):
    """The patch files a flavor applies: its series, or the subset named
    by its `patches` key (in the series' order)."""
    if not flavor.series:
        return []
    patches = series_patches(flavor.series, top)
    if not flavor.patches:
        return patches
    names = [os.path.basename(p) for p in patches]
    unknown = [p for p in flavor.patches if p not in names]
    if unknown:
        raise HarnessError(f"flavor {flavor.name}: patches {', '.join(unknown)}"
                           f" are not in {flavor.series}/series; it lists: "
                           f"{', '.join(names)}")
    return [p for p in patches if os.path.basename(p) in flavor.patches]


def series_patches(series, top=TOP):
    """The patch files listed in <series>/series, in order."""
    d = series_dir(series, top)
    listing = os.path.join(d, 'series')
    if not os.path.isfile(listing):
        revs = sorted(e for e in os.listdir(top)
                      if os.path.isfile(os.path.join(top, e, 'series')))
        raise HarnessError(f"revision directory '{series}' has no series file "
                           f"({listing}); valid revisions: {', '.join(revs)}")
    patches = []
    with open(listing, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            p = os.path.join(d, line)
            if not os.path.isfile(p):
                raise HarnessError(f'{listing} names {line}, which does not '
                                   f'exist in {d}')
            patches.append(p)
    if not patches:
        raise HarnessError(f'{listing} lists no patches')
    return patches


if __name__ == '__main__':
    print(' '.join(load()))
