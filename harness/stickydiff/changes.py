"""What changed between the two postings (v1, then v3) and on to
mainline, where in the patches.

Each Change names a line of each posting's series by a marker string,
found in the patch files at report time (so a reworked patch moves the
line number, and a vanished marker says so), and the causes whose case
counts it explains.  Which revisions the postings are is data: postings().
"""

import os
from dataclasses import dataclass
from typing import Tuple

from . import causes
from .flavors import FLAVORS


@dataclass(frozen=True)
class Change:
    what: str
    first: Tuple[str, ...]      # markers in the first posting (v1),
    second: Tuple[str, ...]     # in the second (v3); first found wins
    causes: Tuple[str, ...]     # whose cases this change explains
    decision: str
    note: str = ""


def postings(flavors=FLAVORS):
    """The revisions the flavors carry, in flavors.ini order (v1, v3, then
    later ones); CHANGES compares the first two."""
    return tuple(dict.fromkeys(f.own for f in flavors.values() if f.own))


HOOK = ("LSM_HOOK_INIT(inode_follow_link",)
HOOK_CALL = ("error = security_inode_follow_link(",)
STICKY_CALL = ("error = may_follow_sticky_link(", "may_follow_sticky_link(")
LOG = "non-matching-uid symlink following attempted"

CHANGES = (
    Change("where the rule runs: an LSM hook (v1) or the VFS path walk"
           " (v3)",
           HOOK, STICKY_CALL, (causes.PLACEMENT,),
           "design (v3: \"move into VFS core\")",
           "same outcome; which rule refuses, and so the log, differs"),
    Change("where 6.1 asks v1's LSM hook: after touch_atime() (a refused"
           " follow still touches the link's atime) or before it, as 2010"
           " did", HOOK_CALL + HOOK, (), (causes.ARTIFACT_ATIME_CAUSE,),
           "porting (docs/porting.md)"),
    Change("where 6.1 asks v1's LSM hook: after the nosymfollow /"
           " RESOLVE_NO_SYMLINKS test (ELOOP instead of EACCES) or before"
           " it, as 2010 did", HOOK_CALL + HOOK, (),
           (causes.ARTIFACT_ELOOP_CAUSE,), "porting (docs/porting.md)"),
    Change("default: protected at boot (v1) or off unless"
           " CONFIG_PROTECTED_STICKY_SYMLINKS=y (v3)",
           ("static int weak_sticky_symlinks;",),
           ("IS_ENABLED(CONFIG_PROTECTED_STICKY_SYMLINKS)",
            "= CONFIG_PROTECTED_STICKY_SYMLINKS;"),
           (causes.DEFAULT_VALUE,), "design (v3: \"add CONFIG entry for"
           " build-time default\")"),
    Change("the rule needs CONFIG_SECURITY=y (v1's hook is in"
           " capability_hooks[])",
           HOOK, STICKY_CALL, (causes.CONFIG_DEP,),
           "design (follows from the LSM placement)"),
    Change("knob name and polarity: weak-sticky-symlinks (0 = protected) vs"
           " protected-sticky-symlinks (1 = protected)",
           ('"weak-sticky-symlinks"',), ('"protected-sticky-symlinks"',),
           (causes.INTERFACE,), "design (v3: \"rename sysctl, invert"
           " logic\")", "interface only: no case changes"),
    Change("log text", (LOG,), (LOG,),
           (causes.LOG_TEXT,), "design (v3 says \"sticky world-writable"
           " directory\")"),
    Change("documentation: kernel.rst (v1, although the file is in"
           " /proc/sys/fs) vs fs.rst (v3)", ("+weak-sticky-symlinks",),
           ("+protected-sticky-symlinks",), (causes.INTERFACE,), "design",
           "interface only: no case changes"),
    Change("the redundant S_ISLNK() test (dropped in v2)",
           ("if (S_ISLNK(inode->i_mode) &&",), (), (), "design (v2)",
           "no behaviour change: `make reviewer-path` adds v2 as data and"
           " shows 0 outcome differences against v1"),
    Change("-> Yama (June 2010): v1's check in Kees Cook's own LSM, on by"
           " default (kernel.yama.protected_sticky_symlinks); flavor yama",
           (), (), (causes.LOG_TEXT,), "design (the LSM placement"
           " Biederman and Cox asked for)",
           "same outcomes as v1 (pair v1 vs yama); the log adds the link"
           " owner"),
    Change("-> mainline 3.6 fs.protected_symlinks (base): trailing links only",
           (), ("Unlike may_follow_link()", "if (flags & WALK_TRAILING) {"),
           (causes.INTERMEDIATE, causes.MAINLINE_OFF),
           "design (upstream: may_follow_link() for the last component"
           " only)", "mainline (base) carries no series; the v3 line says"
           " where it differs"),
)


def series_patches(top, series):
    """The patch files of a series directory, in `series` order."""
    directory = os.path.join(top, series)
    try:
        with open(os.path.join(directory, "series"), encoding="utf-8") as f:
            names = [n.strip() for n in f if n.strip()
                     and not n.startswith("#")]
    except FileNotFoundError:
        names = sorted(n for n in os.listdir(directory)
                       if n.endswith(".patch")) if os.path.isdir(
                           directory) else []
    return [os.path.join(series, n) for n in names]


def find_line(top, series, markers):
    """(path relative to top, line number, text) of the first line of the
    series that holds a marker (tried in order), preferring added lines;
    None if no marker is found."""
    for marker in markers:
        hit = _find(top, series, marker)
        if hit:
            return hit
    return None


def _find(top, series, marker):
    found = None
    for rel in series_patches(top, series):
        try:
            with open(os.path.join(top, rel), encoding="utf-8",
                      errors="replace") as stream:
                lines = stream.read().splitlines()
        except FileNotFoundError:
            continue
        for number, line in enumerate(lines, 1):
            if marker in line and line[:1] in "+ ":
                hit = (rel, number, line[1:].strip())
                if line.startswith("+"):
                    return hit
                found = found or hit
    return found
