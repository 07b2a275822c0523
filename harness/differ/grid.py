"""The N x N summary: for every two flavors present, how many joined
cases have a different outcome, and which causes the differ names.

Each cell is one diff.diff_pair() over a Pair of both flavors' settings,
joined as the pair sections join them; a declared pair over the same two
flavors and every setting is reused, so a cell and its pair section count
the same cases.  Nothing here renders: front.grid_section() does.
"""

from dataclasses import dataclass, field, replace
from typing import Dict, Optional, Tuple

from .diff import JoinError, Pair, Row, diff_pair
from model.flavors import FLAVOR_ORDER


@dataclass(frozen=True)
class Sample:
    """One cause group of a cell: its size and a few typical rows."""
    cause: str                  # a group name, "a + b" for several
    count: int
    rows: Tuple[Row, ...]


@dataclass(frozen=True)
class Cell:
    a: str                      # the flavor first in FLAVOR_ORDER
    b: str
    differing: int = 0          # joined cases with a different outcome
    joined: int = 0
    causes: Tuple[Tuple[str, int], ...] = ()    # (label, cases), largest
    samples: Tuple[Sample, ...] = ()            # largest group first
    pair: Optional[Pair] = None     # the declared pair with these cases
    related: Tuple[Pair, ...] = ()  # declared pairs over some settings
    error: str = ""                 # why the two could not be joined


@dataclass
class Grid:
    flavors: Tuple[str, ...]
    cells: Dict[Tuple[str, str], Cell] = field(default_factory=dict)

    def cell(self, a, b):
        """The Cell of two flavors in either order; None on the diagonal."""
        return self.cells.get((a, b)) or self.cells.get((b, a))


def present(files):
    """The flavors of `files` in FLAVOR_ORDER, unknown ones last."""
    return tuple([f for f in FLAVOR_ORDER if f in files]
                 + sorted(set(files) - set(FLAVOR_ORDER)))


def _same(pair, a, b):
    return {pair.a, pair.b} == {a, b}


def _cell(pair_diff, a, b, declared, related):
    groups = sorted(pair_diff.differ.values(),
                    key=lambda g: (-g.count, g.cause))
    counts = sorted(pair_diff.cause_counts().items(),
                    key=lambda x: (-x[1], x[0]))
    return Cell(a, b, pair_diff.differing, pair_diff.joined, tuple(counts),
                tuple(Sample(g.cause, g.count, tuple(g.rows))
                      for g in groups), declared, related)


def _every_setting(pair):
    return pair.settings is None and pair.at_defaults is None


def build(files, known=(), checks=None, walks=None, fresh=None):
    """The Grid of every two flavors of `files` ({flavor: result}).

    `known`: PairDiffs already computed (the report's pair sections); one
    over the same two flavors and every setting is used as it is and its
    pair linked.  `checks`: {flavor: CheckResult} (their predictions).
    `fresh`: fresh_cell()s already computed (of undeclared())."""
    flavors = present(files)
    grid = Grid(flavors)
    fresh = fresh or {}
    for i, a in enumerate(flavors):
        for b in flavors[i + 1:]:
            whole = [d for d in known if _same(d.pair, a, b)
                     and _every_setting(d.pair) and not d.missing]
            related = tuple(d.pair for d in known if _same(d.pair, a, b)
                            and not _every_setting(d.pair))
            if whole:
                grid.cells[(a, b)] = _cell(whole[0], a, b, whole[0].pair,
                                           related)
            elif (a, b) in fresh:
                grid.cells[(a, b)] = replace(fresh[(a, b)], related=related)
            else:
                grid.cells[(a, b)] = fresh_cell(files, a, b, checks, walks,
                                                related)
    return grid


def undeclared(files, declared):
    """[(a, b)] of the two flavors of `files` that no pair of `declared`
    joins over every setting: the cells build() computes besides the pair
    sections (fresh_cell()), in its order."""
    flavors = present(files)
    return [(a, b) for i, a in enumerate(flavors) for b in flavors[i + 1:]
            if not any(_same(p, a, b) and _every_setting(p)
                       for p in declared)]


def fresh_cell(files, a, b, checks=None, walks=None, related=()):
    """The Cell of two flavors that no pair section gives."""
    pair = Pair("%s vs %s" % (a, b), a, b)
    try:
        pair_diff = diff_pair(pair, files, checks, walks)
    except JoinError as err:
        return Cell(a, b, related=related, error=str(err))
    return _cell(pair_diff, a, b, None, related)
