"""stickydiff: rule model, pairwise diffs, regression and reports for the
sticky-symlink flavors' results (docs/result-format.md)."""
