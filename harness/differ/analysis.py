"""Run everything the reports need over one results directory."""

import os
from dataclasses import dataclass, field

from . import fork
from . import grid
from .check import Predictions, check_file
from model.flavors import DEFAULT_FLAVORS
from model.interface import interface_rows
from model.rule import Walks
from .load import digests, load_all, result_path
from .tasks import Tasks


@dataclass
class Analysis:
    results_dir: str
    files: dict = field(default_factory=dict)
    load_errors: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    stale: list = field(default_factory=list)   # flavors run before their
    #                                             kernel was last built
    checks: dict = field(default_factory=dict)
    diffs: list = field(default_factory=list)
    grid: object = None            # grid.Grid of every two flavors
    join_errors: list = field(default_factory=list)
    interface: list = field(default_factory=list)
    matrices: dict = field(default_factory=dict)
    range_diffs: dict = field(default_factory=dict)   # {A..B.txt: text}
    range_diff_dir: str = ""       # where they were read from
    range_diff_note: str = ""
    sections: list = None      # [(path, markdown text)] embedded as is
    regression: dict = None    # {flavor: [change lines]} since the
    #                            expected results, when compared
    expected_dir: str = ""
    child: object = None       # fork.Child that loaded the same files,
    #                            waiting for elsewhere()

    def elsewhere(self, function, *args):
        """A Work of the generator function(analysis, *args): run by the
        child on its own Analysis of the same files when one waits (it
        has loaded and checked them), else here."""
        child, self.child = self.child, None
        if child is not None:
            try:
                child.send((function, args))
            except fork.Lost:
                child = None
        return Work(child, function, args, self)

    @property
    def unexplained(self):
        return sum(len(c.unexplained) for c in self.checks.values())

    @property
    def verdict(self):
        if not self.files and not self.load_errors:
            return "NO RESULTS"
        return "OK" if self.ok else "FAIL"

    @property
    def ok(self):
        return (not self.load_errors and not self.join_errors
                and not self.missing and not self.stale
                and all(c.ok for c in self.checks.values())
                and all(d.unexplained == 0 for d in self.diffs))


def _txt_files(directory):
    try:
        return sorted(n for n in os.listdir(directory) if n.endswith(".txt"))
    except OSError:
        return []


def read_range_diffs(directory, committed=None):
    """({file name: text}, directory read, note) of the lineage steps'
    range-diffs: `directory`'s (build/range-diff) when it holds any, else
    the committed ones (results/range-diff), as a fresh clone has."""
    for where in (directory, committed):
        names = _txt_files(where) if where else []
        if names:
            texts = {}
            for name in names:
                with open(os.path.join(where, name), encoding="utf-8",
                          errors="replace") as stream:
                    texts[name] = stream.read()
            return texts, where, "%d step(s) from %s" % (len(names), where)
    tried = " or ".join(d for d in (directory, committed) if d)
    return {}, "", ("no range-diff in %s (run `python3 harness/sticky.py"
                    " range-diff`); code steps skipped" % (tried or
                                                           "no directory"))


def stale_flavors(results_dir, files):
    """The flavors whose kernel image (<build>/<flavor>/bzImage, beside
    the results directory) is newer than their result file: the suite ran
    on an older kernel."""
    build = os.path.dirname(os.path.abspath(results_dir))
    out = []
    for flavor in files:
        image = os.path.join(build, flavor, "bzImage")
        try:
            if os.path.getmtime(image) > os.path.getmtime(
                    result_path(results_dir, flavor)):
                out.append(flavor)
        except OSError:
            continue
    return out


class Work:
    """The values of one elsewhere() call, in order: received from the
    child, or computed here when there is none or it was lost (then the
    values already received are computed again and skipped)."""

    def __init__(self, child, function, args, analysis):
        self._child, self._function, self._args = child, function, args
        self._analysis = analysis
        self._received = 0
        self._here = None

    def next(self):
        if self._child is not None:
            try:
                value = self._child.receive()
                self._received += 1
                return value
            except fork.Lost:
                self._child = None
        if self._here is None:
            self._here = self._function(self._analysis, *self._args)
            for _ in range(self._received):
                next(self._here)
        return next(self._here)

    def close(self):
        if self._child is not None:
            self._child.close()
            self._child = None


def _part(results_dir, ends):
    """(digests of the files read, {task: value} of the Tasks it took
    from the front of `ends`) of a results directory, from a load and
    check of its own; and that Analysis."""
    files = load_all(results_dir, keep=False)[0]
    predictions = Predictions()
    checks = {f: check_file(r, predictions) for f, r in files.items()}
    own = Analysis(results_dir, files=files, checks=checks)
    tasks = Tasks(files, checks, Walks(known=predictions.known))
    return (digests(files), tasks.run(ends.front(len(tasks.listed)))), own


def _child(results_dir, ends):
    """The report's child: _part(), then the values of the one function
    elsewhere() sends it, on its own Analysis."""
    part, own = _part(results_dir, ends)
    yield part
    request = yield fork.WAIT
    if request is not None:
        function, args = request
        yield from function(own, *args)


def analyse(results_dir, range_diff_dir=None, full=True,
            committed_range_diff=None, keep_child=False):
    """Load, check and (when `full`) diff and tabulate every flavor.
    `keep_child`: the child stays, loaded, for elsewhere()."""
    out = Analysis(results_dir)
    # The work after the check (differ/tasks.py) shared with a child that
    # loads and checks the files again: forked after the load, the pages
    # of the heap that both processes touched were copied, which cost
    # more than it saved.
    ends = fork.Ends() if full else None
    child = fork.start(_child, results_dir, ends) if full else None
    out.files, out.load_errors = load_all(results_dir)
    out.missing = [result_path(results_dir, f) for f in DEFAULT_FLAVORS
                   if not os.path.exists(result_path(results_dir, f))]
    out.stale = stale_flavors(results_dir, out.files)
    predictions = Predictions()
    for flavor, result in out.files.items():
        out.checks[flavor] = check_file(result, predictions)
    if not full:
        return out
    walks = Walks(known=predictions.known)
    tasks = Tasks(out.files, out.checks, walks)
    done, read, theirs = {}, None, None
    if child is not None:
        done = tasks.run(ends.back(len(tasks.listed)))
        try:
            read, theirs = child.receive()
        except Exception:   # computed below, or the error said there
            pass            # (receive() has reaped it)
    if read != digests(out.files):      # a file changed between the loads
        theirs = None
    if child is not None and theirs is not None and keep_child:
        out.child = child
    elif child is not None:
        child.close()
    done = tasks.complete({**(theirs or {}), **done})
    out.matrices = tasks.matrices(done)
    out.diffs, out.join_errors = tasks.diffs(done)
    out.grid = grid.build(out.files, out.diffs, out.checks, walks,
                          tasks.cells(done))
    out.interface = interface_rows(out.files)
    out.range_diffs, out.range_diff_dir, out.range_diff_note = \
        read_range_diffs(range_diff_dir, committed_range_diff)
    return out
