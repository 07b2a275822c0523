"""results/report.html: one self-contained page (inline CSS, no assets)."""

from html import escape

from . import mdlite
from .check import describe_params
from .diff import interface_cause
from .matrix import cell_text, followers
from .report_md import ASSUMPTIONS
from .summary import cause_legend, check_lines

CSS = """
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em}
td,th{border:1px solid #999;padding:.2em .5em;font-size:90%}
th{background:#eee}
td.allow{background:#b7e4b0}
td.deny{background:#f2a8a8}
td.other{background:#f7d58b}
td.none{background:#ddd}
td.bad{outline:3px solid #000;outline-offset:-3px}
.grids{display:flex;flex-wrap:wrap;gap:1em}
.grid{border:1px solid #ccc;padding:.2em .4em}
.grid h4{margin:.2em 0}
.grid td,.grid th{font-size:75%;padding:.1em .3em}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:85%}
.ok{color:#176b12}.fail{color:#a31010}
"""


def _text(value):
    return "-" if value is None else escape(str(value))


def _table(header, rows, classes=None):
    out = ["<table>", "<tr>" + "".join("<th>%s</th>" % escape(str(h))
                                       for h in header) + "</tr>"]
    for index, row in enumerate(rows):
        css = classes[index] if classes else [""] * len(row)
        out.append("<tr>" + "".join(
            '<td class="%s">%s</td>' % (c, _text(v)) if c else
            "<td>%s</td>" % _text(v) for v, c in zip(row, css))
            + "</tr>")
    out.append("</table>")
    return out


def _cell_class(cell):
    if cell is None:
        return "none"
    css = "allow" if cell.ret == 0 else (
        "deny" if cell.errno == "EACCES" else "other")
    return css if cell.agrees else css + " bad"


def _grid(flavor, grid):
    cols = followers(grid)
    rows, classes = [], []
    for mode in grid.modes:
        cells = [grid.cells.get((mode, f)) for f in cols]
        rows.append([mode] + [cell_text(c) for c in cells])
        classes.append(["", *(_cell_class(c) for c in cells)])
    return (['<div class="grid"><h4>%s %s</h4>'
             % (escape(flavor), escape(grid.setting))]
            + _table(["mode"] + cols, rows, classes)
            + ["<small>target %s</small></div>" % escape(grid.target or "-")])


def _matrices(analysis):
    out = ["<h2>Core matrix</h2>",
           "<p>Trailing link, open O_RDONLY, link owner A in a root-owned"
           " directory; rows: directory mode, columns: follower. Green"
           " allowed, red EACCES, amber other errno;"
           " <code>+a</code> link atime touched; a black frame and"
           " <code>!</code> mark a cell the model does not explain.</p>"]
    for flavor, grids in analysis.matrices.items():
        out.append("<h3>%s</h3>" % escape(flavor))
        out.append('<div class="grids">')
        for grid in grids:
            out += _grid(flavor, grid)
        out.append("</div>")
    return out


def _pair(pair_diff):
    pair = pair_diff.pair
    out = ["<h3>%s</h3>" % escape(pair.title)]
    if pair_diff.missing:
        return out + ["<p>Skipped: %s.</p>" % escape(pair_diff.missing)]
    out.append("<p>%d of %d joined cases differ.</p>"
               % (pair_diff.differing, pair_diff.joined))
    for title, groups in (("Different outcome", pair_diff.differ),
                          ("Same outcome, different deciding rule or log",
                           pair_diff.same_outcome)):
        if not groups:
            continue
        out.append("<h4>%s</h4>" % escape(title))
        for group in sorted(groups.values(),
                            key=lambda g: (-g.count, g.cause)):
            out.append("<p><b>%s</b>: %d case(s)</p>"
                       % (escape(group.cause), group.count))
            out += _table(("setting", "case", pair.a, pair.b),
                          [(r.setting, describe_params(r.params),
                            r.side("a"), r.side("b")) for r in group.rows])
    for title, fields in (("static", pair_diff.static),
                          ("observed", pair_diff.observed)):
        if fields:
            out.append("<h4>Interface and log text (%s)</h4>" % title)
            out += _table(("field", "cause", pair.a, pair.b),
                          [(f, interface_cause(f), a, b)
                           for f, a, b in fields])
    return out


def render(analysis):
    verdict = analysis.verdict
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>",
           '<meta charset="utf-8">',
           "<title>Sticky symlinks: flavor differences</title>",
           "<style>%s</style>" % CSS, "</head>", "<body>",
           "<h1>Sticky symlinks: flavor differences</h1>",
           '<p>Verdict: <b class="%s">%s</b></p>'
           % (verdict.split()[0].lower(), verdict),
           "<h2>Model vs observation</h2>"]
    out += _table(("flavor", "cases", "explained", "unexplained",
                   "artifacts"),
                  [(f, c.cases, c.explained, len(c.unexplained),
                    ", ".join("%s: %d" % a for a in
                              sorted(c.artifacts.items())) or "-")
                   for f, c in analysis.checks.items()])
    problems = check_lines(analysis, 100)
    if problems:
        out.append("<pre>%s</pre>" % escape("\n".join(problems)))
    out += _matrices(analysis)
    out.append("<h2>Pairwise diffs</h2>")
    for pair_diff in analysis.diffs:
        out += _pair(pair_diff)
    for error in analysis.join_errors:
        out.append("<pre>join error: %s</pre>" % escape(error))
    if analysis.interface:
        header = list(analysis.interface[0])
        out.append("<h2>Interface</h2>")
        out += _table(header, [[r[h] for h in header]
                               for r in analysis.interface])
    out.append("<h2>Static diff: git range-diff v1 vs v3</h2>")
    if analysis.range_diff is None:
        out.append("<p>Skipped: %s.</p>" % escape(analysis.range_diff_note))
    else:
        out.append("<p>%s</p><pre>%s</pre>"
                   % (escape(analysis.range_diff_note),
                      escape(analysis.range_diff)))
    for _path, text in analysis.sections or []:
        out.append(mdlite.to_html(text))
    out.append("<h2>Causes</h2><ul>%s</ul>" % "".join(
        "<li>%s</li>" % escape(line) for line in cause_legend()))
    out.append("<h2>Model assumptions</h2><ul>%s</ul>" % "".join(
        "<li>%s</li>" % escape(a) for a in ASSUMPTIONS))
    out += ["</body>", "</html>"]
    return "\n".join(out) + "\n"
