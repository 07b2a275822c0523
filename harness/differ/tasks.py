"""The analysis' work after the check: one list two processes share.

The report's child (analysis._child) loads and checks the same files as
the caller, then takes tasks from the front of the list while the caller
takes them from the back (fork.Ends), so whichever process runs on the
quicker CPU does more; the child sends what it computed.  A task's value
is the same in either process, so what the child did not send is
computed here.  The list starts with what is cheap to send (the grid's
cells, a few KB) and ends with what is not (a pair section, 300 KB), as
the caller takes the end.
"""

from . import grid
from .core_matrix import matrices
from .diff import diff_or_error, diffs_and_errors, present_pairs


class Tasks:
    """The tasks of one set of loaded and checked files."""

    def __init__(self, files, checks, walks=None):
        self.files, self.checks, self.walks = files, checks, walks
        self.pairs = present_pairs(files)
        self.listed = ([("cell", key)
                        for key in grid.undeclared(files, self.pairs)]
                       + [("matrices", flavor) for flavor in files]
                       + [("pair", i) for i in range(len(self.pairs))])

    def run(self, indices):
        """{task: value} of the tasks at `indices` (an iterable, read as
        each is done)."""
        return {self.listed[i]: self.value(self.listed[i]) for i in indices}

    def value(self, task):
        """A Cell, a flavor's [Matrix], a PairDiff or the text of the
        pair's JoinError."""
        kind, key = task
        if kind == "cell":
            return grid.fresh_cell(self.files, *key, self.checks, self.walks)
        if kind == "matrices":
            return matrices(self.files[key], self.checks[key])
        return diff_or_error(self.pairs[key], self.files, self.checks,
                             self.walks)

    def complete(self, done):
        """`done` with every task it lacks computed here."""
        return {task: done[task] if task in done else self.value(task)
                for task in self.listed}

    def matrices(self, done):
        return {flavor: done[("matrices", flavor)] for flavor in self.files}

    def diffs(self, done):
        """[PairDiff], [JoinError text] in the pairs' order."""
        return diffs_and_errors([done[("pair", i)]
                                 for i in range(len(self.pairs))])

    def cells(self, done):
        return {key: value for (kind, key), value in done.items()
                if kind == "cell"}
