"""What changed between the two postings and on to mainline, where in
the patches.

The table is data: harness/changes.ini, one section per Change, read by
load_changes() into CHANGES.  Each Change names a line of each posting's
series by a marker string, found in the patch files at report time (so a
reworked patch moves the line number, and a vanished marker says so), and
the causes whose case counts it explains.  Which revisions the postings
are is data too: postings().
"""

import os
from dataclasses import dataclass
from typing import Tuple

from differ import causes
from . import inifile
from model.flavors import FLAVORS


@dataclass(frozen=True)
class Change:
    what: str
    first: Tuple[str, ...]      # markers in the first posting,
    second: Tuple[str, ...]     # in the second; first found wins
    causes: Tuple[str, ...]     # whose cases this change explains
    decision: str
    note: str = ""


def postings(flavors=FLAVORS):
    """The revisions the flavors carry, in flavors.ini order (the two
    postings, then later ones); CHANGES compares the first two.  A
    revision that revises another's posting (v2 of v1) is no posting of
    its own here: its pair with the one it revises says what it
    changed."""
    return tuple(dict.fromkeys(f.own for f in flavors.values()
                               if f.own and not f.revises))


CHANGES_INI = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "changes.ini")
# The keys of a section of changes.ini: Change's fields, `note` optional.
KEYS = ("what", "first", "second", "causes", "decision")
OPTIONAL = ("note",)


class ChangesError(ValueError):
    """changes.ini is missing or does not describe a table of Changes."""


def _text(value):
    """A text value: its lines joined with a space."""
    return " ".join(line.strip() for line in value.splitlines()
                    if line.strip())


def _lines(value):
    """A list value: one item a line, blank lines dropped."""
    return tuple(line.strip() for line in value.splitlines()
                 if line.strip())


def load_changes(path=CHANGES_INI, known=causes.CAUSES):
    """The Changes of `path` (harness/changes.ini), in section order;
    every cause must be a label of `known`."""
    out = []
    for name, section in inifile.sections(
            path, KEYS, OPTIONAL, ChangesError,
            "it holds the report's \"what changed\" table, one section"
            " per change"):
        where = "%s [%s]" % (path, name)
        for key in ("what", "decision"):
            if not _text(section[key]):
                raise ChangesError("%s: %s is empty" % (where, key))
        labels = _lines(section["causes"])
        for label in labels:
            if label not in known:
                raise ChangesError(
                    "%s: unknown cause %r; causes are the labels of"
                    " differ/causes.py: %s" % (
                        where, label, "; ".join(known)))
        out.append(Change(_text(section["what"]),
                          _lines(section["first"]),
                          _lines(section["second"]), labels,
                          _text(section["decision"]),
                          _text(section.get("note", ""))))
    return tuple(out)


CHANGES = load_changes()


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
