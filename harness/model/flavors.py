"""Static facts about the kernel flavors, for the model and the report.

Nothing here is written per flavor: every fact comes from harness/flavors.ini
and the revision.ini beside each revision's patches (harness/flavors.py and
harness/revision.py read them), never from observations: which rule a flavor
carries, where it sits in 6.1's pick_link(), which links it checks, how its
knob is spelled and documented, and what it logs.
"""

from dataclasses import dataclass
from typing import Optional

import flavors as _ini
import revision as _revision

# The guest's three identities (docs/result-format.md, "The guest").
UIDS = {"root": 0, "A": 1000, "B": 1001}

# Where the flavor's own rule runs, relative to the steps of 6.1's
# pick_link(), from the order its flavor declares (pick_link_order); the
# names are flavors.ini's words (before-mainline, after-mainline, lsm-6.1).
# v3 (the VFS check) and 2.6.34's LSM hook both ran after mainline's.
STAGE_BEFORE_MAINLINE = _ini.STAGE_BEFORE   # before may_follow_link()
STAGE_AFTER_MAINLINE = _ini.STAGE_AFTER     # after it, before touch_atime()
STAGE_LSM_61 = _ini.STAGE_LATE              # after touch_atime(), as 6.1

MAINLINE_KNOB = "protected_symlinks"
# Mainline knobs every guest records and pins (harness/revision.py), with
# their boot values; revision knobs follow.
MAINLINE_KNOBS = tuple((name, path) for name, path, _ in
                       _revision.MAINLINE_KNOBS)
MAINLINE_BOOT = {name: boot for name, _, boot in _revision.MAINLINE_KNOBS}


@dataclass(frozen=True)
class Flavor:
    """One kernel flavor's sticky-symlink rule and interface."""

    name: str
    own: Optional[str]          # its revision's name, None for no own rule
    stage: Optional[str]        # STAGE_* of the own rule
    links: str                  # "every" or "trailing"
    compiled: bool              # is the own rule reachable at all?
    knob: Optional[str]         # key in the result files' knob objects
    path: Optional[str]         # the sysctl file
    protect_value: Optional[int]  # knob value meaning "protected"
    boot_default: Optional[int]   # expected boot value of the own knob
    polarity: str
    doc: str
    kconfig: str
    log_text: Optional[str]     # format of the own rule's message
    extra: bool = False
    describe: str = ""          # flavors.ini's one line about it
    revises: str = ""           # the revision its own rule's posting revises
    # revision.ini's rule variant: the directory bits that make the rule
    # apply, and the errno of its refusal (the 2010 rule's by default)
    directory_bits: str = _revision.DEFAULT_DIRECTORY_BITS
    errno: str = _revision.DEFAULT_ERRNO

    def own_protects(self, knobs):
        """Is the own rule switched on by these knob values?"""
        if self.knob is None:
            return False
        return knobs.get(self.knob) == self.protect_value

    def protection_to_value(self, protection):
        """Knob value for protection 0/1 (the `own<O>` of a label)."""
        if self.protect_value == 1:
            return protection
        return 1 - protection


def _kconfig(ini):
    lines = [line[2:-len(" is not set")] + "=n"
             if line.startswith("# ") and line.endswith(" is not set")
             else line for line in ini.config]
    text = ", ".join(lines) or "-"
    if ini.rule and not ini.compiled:
        text += " (rule compiled out)"
    return text


def _boot_default(ini):
    value = ini.boot_knobs.get(ini.knob)
    return int(value) if value not in (None, "absent") else None


def from_ini(ini):
    """The model's Flavor of a harness/flavors.py FlavorSpec."""
    rule = ini.rule
    if rule is None:
        return Flavor(name=ini.name, own=None, stage=None, links="every",
                      compiled=False, knob=None, path=None,
                      protect_value=None, boot_default=None, polarity="-",
                      doc="-", kconfig=_kconfig(ini), log_text=None,
                      extra=ini.extra, describe=ini.describe)
    return Flavor(name=ini.name, own=rule.name, stage=ini.stage,
                  links=rule.links, compiled=ini.compiled, knob=rule.knob,
                  path=rule.knob_path, protect_value=rule.protect,
                  boot_default=_boot_default(ini), polarity=rule.polarity,
                  doc=rule.doc, kconfig=_kconfig(ini),
                  log_text=rule.log_text or None, extra=ini.extra,
                  describe=ini.describe, revises=rule.revises,
                  directory_bits=rule.directory_bits, errno=rule.errno)


def modelled(ini):
    """A flavor the model can judge: no patch, or a rule placed in
    pick_link(); mutants are judged as the flavor they break."""
    if ini.mutant_of:
        return False
    return not ini.series or (ini.rule is not None and ini.stage is not None)


def _load():
    every = _ini.load()
    chosen = [f for f in every.values() if modelled(f)]
    ordered = ([f for f in chosen if not f.extra]
               + [f for f in chosen if f.extra])
    knobs = list(MAINLINE_KNOBS)
    for f in every.values():
        if f.rule and (f.rule.knob, f.rule.knob_path) not in knobs:
            knobs.append((f.rule.knob, f.rule.knob_path))
    return {f.name: from_ini(f) for f in ordered}, tuple(knobs)


FLAVORS, KNOBS = _load()
FLAVOR_ORDER = tuple(FLAVORS)
DEFAULT_FLAVORS = tuple(n for n, f in FLAVORS.items() if not f.extra)
# The flavor every other is compared with: the first without an own rule.
REFERENCE = next((n for n, f in FLAVORS.items() if f.own is None), None)
KNOB_NAMES = tuple(name for name, _ in KNOBS)


def expected_boot_knobs(flavor):
    """The knob object a flavor's `facts` record should hold."""
    knobs = dict(MAINLINE_BOOT)
    for name in KNOB_NAMES:
        if name not in knobs:
            knobs[name] = flavor.boot_default if flavor.knob == name else None
    return knobs
