"""Kernel flavors, read from harness/flavors.ini; each flavor's rule comes
from its revision's revision.ini (harness/revision.py)."""

import configparser
import os
from dataclasses import dataclass
from typing import Optional

import revision as rev_mod
from stages import HarnessError

HARNESS = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HARNESS)
INI = os.path.join(HARNESS, 'flavors.ini')
COMMON_CONFIG = os.path.join(HARNESS, 'config', 'common.config')
MOVED = ('knob', 'protect')     # revision data now (revision.ini)

# pick_link()'s own steps, which place a revision's call (see `stage`).
MAINLINE_CALL = 'may_follow_link('
ATIME_CALL = 'touch_atime('
STAGE_BEFORE = 'before-mainline'    # before may_follow_link()
STAGE_AFTER = 'after-mainline'      # after it, before touch_atime()
STAGE_LATE = 'lsm-6.1'              # after touch_atime(), as 6.1's hook


@dataclass(frozen=True)
class FlavorSpec:
    """A flavor as flavors.ini declares it: its series, config, boot knobs and
    its revision's rule (revision.ini); the model's Flavor
    (model/flavors.py) is what the rule model reads of it."""

    name: str
    series: str          # '' for the pristine tree
    config: tuple        # Kconfig lines appended to the common fragment
    describe: str
    boot_knobs: dict     # knob -> expected boot value, 'absent' allowed
    extra: bool = False  # built only when named
    patches: tuple = ()  # which patches of the series (default: all)
    pick_link_order: tuple = ()  # calls pick_link() makes, in order
    lockless: tuple = ()  # functions that must take no lock
    mutant_of: str = ''  # a deliberately broken copy of this flavor
    rule: Optional[rev_mod.Revision] = None  # its revision's rule
    compiled: bool = False  # is the rule built in (its `needs` set)?
    posted_fixture: str = ''  # the posting's own code, to compile-check
    also: tuple = ()     # test patches applied after the series
    directory: str = ''  # which directory the rule judges, if not the
    #                      revision's (`directory` in revision.ini)
    sets: tuple = ()     # named sets the flavor belongs to (`sets`)

    @property
    def knob(self):
        """The own knob's key in result files ('' for none)."""
        return self.rule.knob if self.rule else ''

    @property
    def knob_path(self):
        return self.rule.knob_path if self.rule else ''

    @property
    def protect(self):
        return str(self.rule.protect) if self.rule else ''

    @property
    def stage(self):
        """Where the rule runs in pick_link(), from pick_link_order: None
        without a rule or an order to place it in."""
        if not self.rule or self.rule.call not in self.pick_link_order:
            return None
        order = self.pick_link_order
        at = order.index(self.rule.call)
        if MAINLINE_CALL in order and at < order.index(MAINLINE_CALL):
            return STAGE_BEFORE
        if ATIME_CALL in order and at > order.index(ATIME_CALL):
            return STAGE_LATE
        return STAGE_AFTER


def common_config(path=COMMON_CONFIG):
    with open(path, encoding='utf-8') as f:
        return tuple(x.strip() for x in f if x.strip())


# Keys a section does not take from the sections it inherits.
OWN_KEYS = ('sets', 'describe', 'extra', 'mutant_of', 'template',
            'posted_fixture', 'inherits', 'config_add')
TRUE = ('1', 'yes', 'true', 'on')


def _resolve(raw, name, path, stack=()):
    """A section's keys with what it inherits: `inherits = A B` takes every
    key A (then B) sets that the section does not, but OWN_KEYS; the
    config is the first one's `config` with every `config_add` of the
    chain appended, the section's own last."""
    if name in stack:
        raise HarnessError(f'{path} [{name}]: inherits itself '
                           f'({" -> ".join(stack + (name,))})')
    own = dict(raw[name])
    keys, adds = {}, []
    for parent in own.get('inherits', '').split():
        if parent not in raw:
            raise HarnessError(f'{path} [{name}]: inherits [{parent}], '
                               f'which is no section of the file')
        got = _resolve(raw, parent, path, stack + (name,))
        adds.append(got.pop('config_add', ''))
        for key, value in got.items():
            if key not in OWN_KEYS:
                keys.setdefault(key, value)
    keys.update(own)
    adds.append(own.get('config_add', ''))
    keys['config_add'] = '\n'.join(a for a in adds if a.strip())
    return keys


def load(path=INI, top=None):
    """{name: FlavorSpec}; revision directories are read under `top` (default:
    the project). A section with `template = yes` is no flavor: others
    inherit it."""
    top = top or TOP
    cp = configparser.ConfigParser(interpolation=None)
    with open(path, encoding='utf-8') as f:
        cp.read_file(f)
    raw = {name: dict(cp[name]) for name in cp.sections()}
    base_config = common_config()
    flavors = {}
    for name in cp.sections():
        if raw[name].get('template', '').strip().lower() in TRUE:
            continue
        sec = _resolve(raw, name, path)
        moved = [k for k in MOVED if k in sec]
        if moved:
            raise HarnessError(f'{path} [{name}]: {", ".join(moved)} moved '
                               f'to the revision\'s {rev_mod.FILE} '
                               f'(docs/reviewing.md); delete the line')
        lines = tuple(x.strip() for x in (
            sec.get('config', '') + '\n' + sec['config_add']).splitlines()
            if x.strip())
        boot = dict(item.split('=', 1)
                    for item in sec.get('boot_knobs', '').split())
        series = sec.get('series', '').strip()
        # A series without revision.ini still builds; only the model, the
        # guest's knob listing and the differ need its rule.
        rev_name = sec.get('revision', '').strip()
        if not rev_name and series and os.path.isfile(
                rev_mod.path_of(series, top)):
            rev_name = series
        rule = rev_mod.load(rev_name, top) if rev_name else None
        check_default(path, name, rule, base_config + lines, boot)
        flavors[name] = FlavorSpec(
            name, series, lines, sec.get('describe', '').strip(), boot,
            sec.get('extra', '').strip().lower() in TRUE,
            tuple(sec.get('patches', '').split()),
            tuple(sec.get('pick_link_order', '').split()),
            tuple(sec.get('lockless', '').split()),
            sec.get('mutant_of', '').strip(), rule,
            bool(rule) and rev_mod.compiled(rule, base_config + lines),
            sec.get('posted_fixture', '').strip(),
            tuple(sec.get('also', '').split()),
            sec.get('directory', '').strip(),
            tuple(sec.get('sets', '').split()))
    return flavors


def check_default(path, name, rule, config_lines, boot):
    """A flavor's boot_knobs must agree with its revision's `default`."""
    if rule is None or boot.get(rule.knob, 'absent') == 'absent':
        return
    want = rule.boot_value(config_lines)
    if want is not None and boot[rule.knob] != str(want):
        raise HarnessError(
            f'{path} [{name}]: boot_knobs says {rule.knob}={boot[rule.knob]}'
            f', but {rule.name}/{rev_mod.FILE} says default = '
            f'{rule.default} (boot value {want} with this config)')


DEFAULT_SET = 'default'


def flavor_set(name, path=INI, top=None):
    """The flavors of a named set, in flavors.ini's order: `default` is
    every flavor that is not extra; any other set is named by the `sets`
    key of its flavors."""
    flavors = load(path, top)
    if name == DEFAULT_SET:
        return [f for f in flavors.values() if not f.extra]
    chosen = [f for f in flavors.values() if name in f.sets]
    if not chosen:
        known = sorted({s for f in flavors.values() for s in f.sets})
        raise HarnessError(f"no flavor of {path} is in the set '{name}'; "
                           f"sets: {', '.join([DEFAULT_SET] + known)}")
    return chosen


def guest_knobs(path=INI, top=None):
    """The guest's knob listing for every revision the flavors name."""
    return rev_mod.guest_listing(
        f.rule for f in load(path, top).values() if f.rule)


def reference(flavors):
    """The name of the flavor every other is measured against: the first
    with no series (mainline alone)."""
    return next((f.name for f in flavors.values() if not f.series), None)


def pick(names, path=INI, top=None):
    """Returns the named flavors (all but the extra ones when `names` is
    empty)."""
    flavors = load(path, top)
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
    by its `patches` key (in the series' order), then its `also`
    patches."""
    also = [os.path.join(top, p) for p in flavor.also]
    missing = [p for p in also if not os.path.isfile(p)]
    if missing:
        raise HarnessError(f"flavor {flavor.name}: `also` names "
                           f"{', '.join(missing)}, which does not exist")
    if not flavor.series:
        return also
    patches = series_patches(flavor.series, top)
    if not flavor.patches:
        return patches + also
    names = [os.path.basename(p) for p in patches]
    unknown = [p for p in flavor.patches if p not in names]
    if unknown:
        raise HarnessError(f"flavor {flavor.name}: patches {', '.join(unknown)}"
                           f" are not in {flavor.series}/series; it lists: "
                           f"{', '.join(names)}")
    return [p for p in patches
            if os.path.basename(p) in flavor.patches] + also


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
