"""results/report.md from an Analysis."""

from .check import describe_params
from .diff import interface_cause
from .matrix import cell_text, followers
from .summary import cause_legend, check_lines

UNEXPLAINED_SHOWN = 100

ASSUMPTIONS = [
    "a params.search dir without `after_links` is searched just before the"
    " first followed link that lies in it (same mode and owner), else"
    " before every link; the contract does not say where it lies.",
    "`atime_changed` is the atime of params.links[0] (the suite's mk[0]).",
    "ops with `nofollow` in their name that follow no link give ELOOP, ops"
    " with `excl` give EEXIST; unlink/rename act in the directory of"
    " params.dir_mode/dir_owner, rename to a new name in that directory.",
    "log records are predicted from the suite's probe (B opens a trailing"
    " link of A in a root-owned 1777 dir) under the record's setting;"
    " a burst may print 1..10 messages (printk_ratelimited).",
]


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(
            ("-" if c is None else str(c)).replace("|", "\\|")
            for c in row) + " |")
    return lines


def _checks(analysis):
    lines = ["## Model vs observation", ""]
    rows = [(f, c.cases, c.explained, len(c.unexplained),
             len(c.interface) + len(c.settings) + len(c.suite),
             ", ".join("%s: %d" % a for a in sorted(c.artifacts.items()))
             or "-")
            for f, c in analysis.checks.items()]
    lines += _table(("flavor", "cases", "explained", "unexplained",
                     "other problems", "porting artifacts seen"), rows)
    lines.append("")
    for path in analysis.missing:
        lines.append("- absent: `%s`" % path)
    problems = check_lines(analysis, UNEXPLAINED_SHOWN)
    if problems:
        lines += ["", "### Unexplained and other problems", "", "```"]
        lines += problems + ["```"]
    return lines + [""]


def _row(pair, row):
    return (row.setting, describe_params(row.params),
            "%s: %s" % (pair.a, row.side("a")),
            "%s: %s" % (pair.b, row.side("b")))


def _pair(pair_diff):
    pair = pair_diff.pair
    lines = ["### %s" % pair.title, ""]
    if pair_diff.missing:
        return lines + ["Skipped: %s." % pair_diff.missing, ""]
    joined = ", ".join(a if a == b else "%s~%s" % (a, b)
                       for a, b in pair_diff.settings)
    lines.append("%d of %d joined cases differ (settings %s)."
                 % (pair_diff.differing, pair_diff.joined, joined))
    for title, groups in (("Different outcome", pair_diff.differ),
                          ("Same outcome, different deciding rule or log",
                           pair_diff.same_outcome)):
        if not groups:
            continue
        lines += ["", "**%s**" % title, ""]
        for group in sorted(groups.values(), key=lambda g: (-g.count,
                                                            g.cause)):
            lines += ["- %s: %d case(s)" % (group.cause, group.count), ""]
            lines += ["  " + line for line in _table(
                ("setting", "case", pair.a, pair.b),
                [_row(pair, r) for r in group.rows])]
            lines.append("")
    for title, fields in (("static", pair_diff.static),
                          ("observed", pair_diff.observed)):
        if fields:
            lines += ["", "**Interface and log text (%s)**" % title, ""]
            lines += _table(("field", "cause", pair.a, pair.b),
                            [(f, interface_cause(f), a, b)
                             for f, a, b in fields])
    return lines + [""]


def _interface(analysis):
    if not analysis.interface:
        return []
    header = list(analysis.interface[0])
    lines = ["## Interface", ""]
    lines += _table(header, [[r[h] for h in header]
                             for r in analysis.interface])
    return lines + [""]


def _matrices(analysis):
    lines = ["## Core matrix: trailing open_rdonly, link owner A in a"
             " root-owned directory", "",
             "`ok`/errno observed; `+a` link atime touched; `!` model"
             " disagrees.", ""]
    for flavor, grids in analysis.matrices.items():
        for grid in grids:
            cols = followers(grid)
            lines += ["**%s %s** (target %s)" % (flavor, grid.setting,
                                                 grid.target), ""]
            lines += _table(["dir mode"] + cols,
                            [[m] + [cell_text(grid.cells.get((m, f)))
                                    for f in cols] for m in grid.modes])
            lines.append("")
    return lines


def _range_diff(analysis):
    lines = ["## Static diff: git range-diff v1 vs v3", ""]
    if analysis.range_diff is None:
        return lines + ["Skipped: %s." % analysis.range_diff_note, ""]
    return lines + ["(%s)" % analysis.range_diff_note, "", "```diff",
                    analysis.range_diff.rstrip("\n"), "```", ""]


def render(analysis):
    lines = ["# Sticky symlinks: flavor differences", "",
             "Verdict: **%s**" % analysis.verdict, ""]
    lines += _checks(analysis)
    lines += _matrices(analysis)
    lines += ["## Pairwise diffs", ""]
    for pair_diff in analysis.diffs:
        lines += _pair(pair_diff)
    for error in analysis.join_errors:
        lines += ["- join error: %s" % error.replace("\n", "; ")]
    lines += _interface(analysis)
    lines += _range_diff(analysis)
    for _path, text in analysis.sections or []:
        lines += [text.rstrip("\n"), ""]
    lines += ["## Causes", ""] + ["- " + line for line in cause_legend()]
    lines += ["", "## Model assumptions", ""]
    lines += ["- " + a for a in ASSUMPTIONS]
    return "\n".join(lines) + "\n"
