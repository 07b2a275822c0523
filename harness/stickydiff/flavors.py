"""Static facts about the five kernel flavors.

Everything here comes from the brief and the two seed patches, never from
observations: which sticky-symlink rule a flavor carries, where it sits in
6.1's pick_link(), how its knob is spelled and documented, and what it logs.
"""

from dataclasses import dataclass
from typing import Optional

# The guest's three identities (docs/result-format.md, "The guest").
UIDS = {"root": 0, "A": 1000, "B": 1001}

# Where the flavor's own rule runs, relative to the steps of 6.1's
# pick_link().  Ordered from earliest to latest.
# v3 and v1 (with its preparatory patch) run after may_follow_link() and
# before the nosymfollow test and touch_atime(), as the hook did in 2010.
STAGE_VFS = "before-mainline"       # first, before may_follow_link()
STAGE_AFTER_MAINLINE = "after-mainline"
STAGE_LSM_2010 = STAGE_AFTER_MAINLINE
STAGE_LSM_61 = "lsm-6.1"            # security_inode_follow_link() in 6.1

V1_LOG = ("non-matching-uid symlink following attempted in sticky-directory"
          " by {comm} (fsuid {fsuid})")
V3_LOG = ("non-matching-uid symlink following attempted in sticky"
          " world-writable directory by {comm} (fsuid {fsuid})")

MAINLINE_KNOB = "protected_symlinks"
KNOB_NAMES = ("protected_symlinks", "protected_hardlinks",
              "weak_sticky_symlinks", "protected_sticky_symlinks")


@dataclass(frozen=True)
class Flavor:
    """One kernel flavor's sticky-symlink rule and interface."""

    name: str
    own: Optional[str]          # "v1", "v3" or None (no own rule)
    stage: Optional[str]        # STAGE_* of the own rule
    compiled: bool              # is the own rule reachable at all?
    knob: Optional[str]         # key in the result files' knob objects
    path: Optional[str]         # the sysctl file
    protect_value: Optional[int]  # knob value meaning "protected"
    boot_default: Optional[int]   # expected boot value of the own knob
    polarity: str
    doc: str
    kconfig: str
    log_text: Optional[str]     # format of the own rule's message

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


_V1_COMMON = dict(
    own="v1", knob="weak_sticky_symlinks",
    path="/proc/sys/fs/weak-sticky-symlinks", protect_value=0,
    boot_default=0, polarity="weak: 0 = protected, 1 = weak",
    doc="Documentation/admin-guide/sysctl/kernel.rst (file is in fs/)",
    log_text=V1_LOG)

_V3_COMMON = dict(
    own="v3", stage=STAGE_AFTER_MAINLINE, compiled=True,
    knob="protected_sticky_symlinks",
    path="/proc/sys/fs/protected-sticky-symlinks", protect_value=1,
    polarity="protected: 1 = protected, 0 = off",
    doc="Documentation/admin-guide/sysctl/fs.rst",
    log_text=V3_LOG)

FLAVORS = {
    "base": Flavor(
        name="base", own=None, stage=None, compiled=False, knob=None,
        path=None, protect_value=None, boot_default=None,
        polarity="-", doc="-", kconfig="-", log_text=None),
    "v1": Flavor(name="v1", compiled=True, kconfig="CONFIG_SECURITY=y",
                 stage=STAGE_AFTER_MAINLINE, **_V1_COMMON),
    "v1-nosec": Flavor(name="v1-nosec", compiled=False,
                       kconfig="CONFIG_SECURITY=n (hook compiled out)",
                       stage=STAGE_AFTER_MAINLINE, **_V1_COMMON),
    "v1-hook61": Flavor(name="v1-hook61", compiled=True,
                        kconfig="CONFIG_SECURITY=y, hook where 6.1 calls it",
                        stage=STAGE_LSM_61, **_V1_COMMON),
    "v3": Flavor(name="v3", boot_default=0,
                 kconfig="CONFIG_PROTECTED_STICKY_SYMLINKS=n",
                 **_V3_COMMON),
    "v3y": Flavor(name="v3y", boot_default=1,
                  kconfig="CONFIG_PROTECTED_STICKY_SYMLINKS=y",
                  **_V3_COMMON),
}

FLAVOR_ORDER = ("base", "v1", "v1-nosec", "v3", "v3y", "v1-hook61")

# Boot values every flavor should report (Debian's tree defaults both
# mainline link protections to 1).
MAINLINE_BOOT = {"protected_symlinks": 1, "protected_hardlinks": 1}


def expected_boot_knobs(flavor):
    """The knob object a flavor's `facts` record should hold."""
    knobs = dict(MAINLINE_BOOT)
    for name in ("weak_sticky_symlinks", "protected_sticky_symlinks"):
        knobs[name] = flavor.boot_default if flavor.knob == name else None
    return knobs
