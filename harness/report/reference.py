"""The report's reference sections: model vs observation, the full core
matrices, interface, log lines, embedded sections and the
model's assumptions."""

import re

from . import doc
from .doc import Code, Link, Mark, cell
from differ.core_matrix import cell_text, followers
from differ.summary import check_lines, unexplained_sentences

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
    "results read from the compact committed form (results/expected) get"
    " their params from the case id (model/cases.py, the mirror of"
    " common/lib/matrix.c and common/lib/layout.c).",
]


def model_section(analysis):
    section = doc.Section("Model vs observation", "model")
    rows = [[f, format(c.cases, ","), format(c.explained, ","),
             cell(str(len(c.unexplained)), "num" if not c.unexplained
                  else "deny"),
             str(len(c.interface) + len(c.settings) + len(c.suite)),
             ", ".join("%s: %d" % a for a in sorted(c.artifacts.items()))
             or "-"] for f, c in analysis.checks.items()]
    section.add(doc.Table(["flavor", "cases", "explained", "unexplained",
                           "other problems", "porting artifacts seen"],
                          rows))
    if analysis.missing:
        section.add(doc.Bullets([["absent (the verdict fails until the "
                                  "suite runs in it): ", Code(p)]
                                 for p in analysis.missing]))
    if analysis.stale:
        section.add(doc.Bullets([["stale (run before its kernel was last "
                                  "built): ", Code(f)]
                                 for f in analysis.stale]))
    shared = unexplained_sentences(analysis)
    if shared:
        section.add(doc.Para(["What the unexplained cases share:"]),
                    doc.Bullets([[line] for line in shared]))
    problems = check_lines(analysis, UNEXPLAINED_SHOWN)
    if problems:
        section.add(doc.Para(["Unexplained cases and other problems:"]),
                    doc.Pre("\n".join(problems)))
    return section


def _grid_table(grid, shown):
    cols = followers(grid)
    rows = []
    for mode in grid.modes:
        row = [Code(mode)]
        for follower in cols:
            found = grid.cells.get((mode, follower))
            if found is None:
                row.append(cell("-", "none"))
                continue
            css = ("allow" if found.ret == 0 else
                   "deny" if found.errno == "EACCES" else "other")
            if not found.agrees:
                css += " bad"
            text = cell_text(found)
            if found.case_id:
                shown.add(found.case_id)
                text = Link(text, doc.case_anchor(found.case_id))
            row.append(cell(text, css))
        rows.append(row)
    return doc.Table(["dir mode"] + cols, rows, css="matrix",
                     caption=[Code(grid.setting), " (target %s)"
                              % (grid.target or "-")])


def matrices_section(analysis, shown):
    section = doc.Section("Trailing links by directory mode", "matrices")
    section.add(doc.Para([
        "Per flavor and setting: follower (columns) opens O_RDONLY through"
        " A's trailing link in a root-owned directory of each mode (rows) ",
        Mark("observed"), ". Only the sticky world-writable 1777 row"
        " changes between rules."]))
    for flavor, grids in analysis.matrices.items():
        section.add(doc.Details(["%s: %d settings" % (flavor, len(grids))],
                                [_grid_table(g, shown) for g in grids]))
    return section


STATIC_COLUMNS = ("polarity", "default (static)", "doc", "config",
                  "log text (static)", "knob")


def interface_section(analysis):
    section = doc.Section("Interface", "interface")
    if not analysis.interface:
        return section.add(doc.Para(["No result files."]))
    header = list(analysis.interface[0])
    marked = [h if h == "flavor" else [h, " ", Mark(
        "static" if h in STATIC_COLUMNS else "observed")] for h in header]
    section.add(doc.Table(marked, [[r[h] for h in header]
                                   for r in analysis.interface]))
    logs = []
    for flavor, result in analysis.files.items():
        for record in result.data.get("log") or []:
            ours = [m for m in record.get("messages") or []
                    if "symlink following" in m]
            report = record.get("suppressed")
            logs.append([flavor, record.get("kind"),
                         Code(record.get("setting") or "-"),
                         "%s of %s denial(s)" % (len(ours),
                                                 record.get("denials")),
                         Code(ours[0]) if ours else "none",
                         Code(report[0]) if report else "-"])
    if logs:
        section.add(doc.Table(
            ["flavor", "probe", "setting", "messages",
             ["first message ", Mark("observed")],
             ["ratelimit report ", Mark("observed")]], logs,
            caption="Kernel log of the suite's probe (B opens A's trailing"
                    " link in a root-owned 1777 dir)"))
    return section


_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")


def embedded_sections(analysis):
    """One section per level-2 heading of each embedded Markdown file,
    titled and anchored by its heading; the text before the first
    heading (and a file without one) under the file's name."""
    out = []
    for path, text in analysis.sections or []:
        section = None
        for line in text.splitlines():
            if _COMMENT.match(line):
                continue
            if line.startswith("## "):
                section = doc.Section(line[3:].strip(),
                                      doc.slug(line[3:]))
                out.append(section)
                continue
            if section is None:
                if not line.strip():
                    continue
                section = doc.Section("Measured beyond the suite (%s)"
                                      % path, doc.anchor_of("section", path))
                out.append(section)
            section.blocks.append(line)
    for section in out:
        section.blocks = [doc.Markdown("\n".join(section.blocks))]
    return out


def assumptions_section():
    return doc.Section("Model assumptions", "assumptions").add(
        doc.Bullets([[a] for a in ASSUMPTIONS]))


REGRESSION_SHOWN = 40


def regression_section(analysis):
    """Every case whose outcome changed since the blessed results, per
    flavor (regress.compare, as `make regress` prints it)."""
    section = doc.Section("Changed since %s" % (analysis.expected_dir or
                                                 "the expected results"),
                          "regression")
    if analysis.regression is None:
        return section.add(doc.Para([
            "Not compared: the report shows the committed results "
            "themselves."]))
    if not analysis.regression:
        return section.add(doc.Para([
            "No case changed its outcome, and no other field changed, in "
            "any flavor (", Code("make regress"), " says the same)."]))
    rows = [[f, str(len(lines))] for f, lines in analysis.regression.items()]
    section.add(doc.Para([
        "Each line is a case or a field whose value differs from the blessed "
        "one (", Code("make bless"), " accepts them after reading every "
        "line); the pairs and the model section above say why outcomes "
        "differ."]),
        doc.Table(["flavor", "changes"], rows))
    for flavor, lines in analysis.regression.items():
        shown = lines[:REGRESSION_SHOWN]
        more = len(lines) - len(shown)
        section.add(doc.Para([Code(flavor)]), doc.Pre("\n".join(
            shown + (["... and %d more" % more] if more > 0 else []))))
    return section
