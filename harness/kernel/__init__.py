"""Kernel stage: the pristine tree, the series applied with git am, the
build, and the checks of the patches themselves (checkpatch, placement,
cover letters, the mbox import, range-diff)."""
