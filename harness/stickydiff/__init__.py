"""stickydiff: the command line over the model (model/), the differ
(differ/) and the report (report/): check, diff, report, compare, bless
(docs/result-format.md)."""
