"""The report's front: the verdict, one line per pair, the flavor by
flavor grid, and a glossary of the settings and terms."""

from . import doc
from model import settings
from .doc import Code, Em, Link, Mark, Strong, cell, joined
from model.flavors import FLAVORS
from model.rule import config_for
from .pairs import cause_link, cause_links, pair_anchor, short_params

GRID_CAUSES = 2     # causes a grid cell names; the rest are counted

FOLLOWERS = (
    ("root", "uid 0 with its capabilities"),
    ("A", "uid 1000 (saved uid 0)"),
    ("B", "uid 1001 (saved uid 0)"),
    ("euid0-fsuidA", "euid 0 but fsuid 1000: a root daemon acting for A"),
    ("euidA-fsuid0", "euid 1000, fsuid 0"),
    ("setuid-fsuidA", "ruid 1000, euid 0, fsuid 1000: a setuid-root program"
     " that set its fsuid back to its caller (setfsuid(getuid()))"),
    ("setuid-exec", "ruid 1000, euid and fsuid 0: A executed a setuid-root"
     " program (a set-id root copy of the suite, the CVEs' shape); the"
     " kernel set these ids and capabilities at exec"),
)


def verdict(analysis, source):
    total = sum(c.cases for c in analysis.checks.values())
    per = ", ".join("%s %s" % (f, format(c.cases, ","))
                    for f, c in analysis.checks.items())
    word = analysis.verdict
    if word == "OK":
        why = ("every case of every flavor is predicted by the rule model,"
               " and every difference between two flavors has a named"
               " cause.")
    elif word == "FAIL":
        why = ("%d case(s) the model does not explain, %d pairwise"
               " difference(s) without a cause, %d file(s) that could not"
               " be read, %d flavor(s) with other problems; see"
               % (analysis.unexplained,
                  sum(d.unexplained for d in analysis.diffs),
                  len(analysis.load_errors),
                  sum(1 for c in analysis.checks.values()
                      if c.settings or c.interface or c.suite)))
    else:
        why = "no result files were found in %s." % analysis.results_dir
    lines = [doc.Para([Strong("Verdict: %s" % word), " \u2014 ", why]
                      + ([" ", Link("Model vs observation", "model")]
                         if word == "FAIL" else []))]
    if analysis.checks:
        lines.append(doc.Para([
            "%s cases (%s), %d unexplained. Results: " % (
                format(total, ","), per, analysis.unexplained),
            source, "."]))
    lines.append(doc.Para([
        "The suite runs every case in each flavor's kernel under each knob",
        " setting; the rule model predicts each case from its parameters",
        " alone. Outcomes are ", Mark("observed"), "; which rule refused is ",
        Mark("inferred"), " by the model; what the patches say is ",
        Mark("static"), "."]))
    if any(d.pair.at_defaults is not None for d in analysis.diffs):
        lines.append(doc.Para([
            "The pairs marked \u201cas posted in 2010\u201d compare each"
            " revision at its own default with fs.protected_symlinks off, as"
            " in 2010, when that knob did not exist; the others run under"
            " Debian's boot setting (fs.protected_symlinks=1), where"
            " mainline's check refuses every cross-uid trailing link first"
            " and masks that part of the revisions' rule."]))
    if analysis.files:
        lines.append(doc.Para([Strong("Flavors"), " (kernels built from"
                               " the same 6.1 tree): "] + joined(
            [[Code(f), " ", FLAVORS[f].describe or "-"]
             for f in analysis.files], "; ") + ["."]))
    if analysis.diffs:
        lines.append(doc.Para([
            Strong("Pair by pair"), ": a pair joins both flavors' cases by"
            " setting and case id (the joined cases) and counts those whose"
            " outcome differs, by cause."]))
        lines.append(doc.Bullets([headline(d) for d in analysis.diffs]))
    css = {"OK": "verdict ok", "FAIL": "verdict fail"}.get(word,
                                                           "verdict no")
    return doc.Callout(lines, css)


def pair_evidence(analysis, title):
    """The headline of the pair called `title`, or why there is none."""
    for pair_diff in analysis.diffs:
        if pair_diff.pair.title == title:
            return headline(pair_diff)
    return [Em(title), ": not compared (no results for both flavors)"]


def headline(pair_diff):
    """One line per pair: how many cases differ, and why."""
    pair = pair_diff.pair
    out = [Link(pair.title, doc.anchor_of("pair", pair.title)), ": "]
    if pair_diff.missing:
        return out + ["skipped (%s)" % pair_diff.missing]
    out.append("%s of %s cases differ" % (format(pair_diff.differing, ","),
                                          format(pair_diff.joined, ",")))
    counts = sorted(pair_diff.cause_counts().items(),
                    key=lambda x: (-x[1], x[0]))
    if counts:
        out.append(" \u2014 ")
        out += joined([[cause_link(label), " %s" % format(count, ",")]
                      for label, count in counts])
    same = sum(g.count for g in pair_diff.same_outcome.values())
    if same:
        out.append("; %s more with the same outcome but another deciding"
                   " rule or log" % format(same, ","))
    return out


def grid_anchor(grid_cell):
    return doc.anchor_of("grid", grid_cell.a, "vs", grid_cell.b)


def _grid_target(grid_cell):
    """Where a cell's number leads: its pair section, else its cases."""
    if grid_cell.pair is not None:
        return pair_anchor(grid_cell.pair)
    if grid_cell.differing or grid_cell.error:
        return grid_anchor(grid_cell)
    return None


def grid_text(grid_cell, full=True):
    """Inline content of one cell: "1,045: config dependence 1,045"."""
    target = _grid_target(grid_cell)
    if grid_cell.error:
        return [Link("join error", target)]
    number = format(grid_cell.differing, ",")
    out = [Link(number, target) if target else number]
    if full and grid_cell.causes:
        shown = grid_cell.causes[:GRID_CAUSES]
        out.append(": " + ", ".join("%s %s" % (label, format(count, ","))
                                    for label, count in shown))
        rest = len(grid_cell.causes) - len(shown)
        if rest:
            out.append(", +%d more" % rest)
    return out


def grid_table(table):
    """The N x N Table: full cells above the diagonal, the number below."""
    rows = []
    for i, a in enumerate(table.flavors):
        row = [Strong(a)]
        for j, b in enumerate(table.flavors):
            if i == j:
                row.append(cell("-", "none"))
            else:
                row.append(cell(grid_text(table.cell(a, b), i < j)))
        rows.append(row)
    return doc.Table([""] + list(table.flavors), rows, css="grid")


def _grid_rows(sample, shown):
    out = []
    for row in sample.rows:
        shown.add(row.case_id)
        out.append([Code(row.settings_text),
                    Link(row.case_id, doc.case_anchor(row.case_id)),
                    short_params(row.params), Code(row.side("a")),
                    Code(row.side("b"))])
    return out


def _grid_details(grid_cell, shown):
    """The cases behind a cell that no pair section shows."""
    blocks = []
    if grid_cell.related:
        blocks.append(doc.Para(["Pair sections over some of these"
                                " settings: "] + joined(
            [[Link(p.title, pair_anchor(p))] for p in grid_cell.related])
            + ["."]))
    if grid_cell.error:
        blocks.append(doc.Pre(grid_cell.error))
    header = ["setting", "case", "what", [grid_cell.a, " ",
                                          Mark("observed")],
              [grid_cell.b, " ", Mark("observed")]]
    for sample in grid_cell.samples:
        blocks.append(doc.Para([Strong(format(sample.count, ",")),
                                " case(s): "] + cause_links(sample.cause)
                               + [" \u2014 the most typical:"]))
        blocks.append(doc.Table(header, _grid_rows(sample, shown),
                                css="cases"))
    summary = ["%s vs %s: " % (grid_cell.a, grid_cell.b)] + (
        ["join error"] if grid_cell.error else
        ["%s of %s joined cases differ" % (format(grid_cell.differing, ","),
                                           format(grid_cell.joined, ","))])
    return doc.Details(summary, blocks, anchor=grid_anchor(grid_cell))


def grid_section(table, shown):
    """Every two flavors present: the cases whose outcome differs, by
    cause; `table` is a grid.Grid."""
    section = doc.Section("Flavor by flavor", "grid")
    section.add(doc.Para([
        "Each cell: how many joined cases (every setting of the two"
        " flavors, joined as in the pair sections) have a different"
        " outcome (", Mark("observed"), "), then the largest causes (",
        Mark("inferred"), "); below the diagonal the number alone. A number"
        " opens the pair's section, or, for two flavors no pair compares"
        " over every setting, a few of its cases below the grid."]))
    section.add(grid_table(table))
    for grid_cell in table.cells.values():      # in the flavors' order
        if _grid_target(grid_cell) == grid_anchor(grid_cell):
            section.add(_grid_details(grid_cell, shown))
    return section


def _rules_text(flavor, knobs):
    config = config_for(flavor, knobs)
    parts = []
    if config.mainline:
        parts.append("mainline")
    spec = FLAVORS[flavor]
    if spec.own:
        if config.own_on and not config.compiled:
            parts.append("(%s rule on, compiled out)" % spec.own)
        elif config.own_active:
            parts.append("%s rule" % spec.own)
    return " + ".join(parts) or "none"


def _label_meaning(label):
    parsed = settings.parse(label)
    if parsed is None:
        return "the knobs as the kernel booted (table below)"
    mainline, own = parsed
    text = "fs.protected_symlinks = %d; " % mainline
    if own is None:
        return text + "no own knob (base)"
    return text + "the flavor's own protection %s" % ("on" if own else "off")


def glossary(analysis):
    section = doc.Section("Settings and terms", "glossary")
    flavors = list(analysis.files)
    labels = sorted({label for r in analysis.files.values()
                     for label in list(r.settings) + ["boot"]},
                    key=lambda x: (x != "boot", x))
    rows = []
    for label in labels:
        row = [Code(label), _label_meaning(label)]
        for flavor in flavors:
            result = analysis.files[flavor]
            if label in result.settings or label == "boot":
                row.append(_rules_text(flavor, result.knobs(label)))
            else:
                row.append(cell("-", "none"))
        rows.append(row)
    section.add(doc.Para([
        "A setting names the knobs in force: ", Code("ps<P>-own<O>"),
        " = mainline's ", Code("fs.protected_symlinks"), " set to P, and the"
        " flavor's own knob set to protect (O = 1) or not (O = 0); ",
        Code("own-"), " where the flavor has no own knob. The cells say"
        " which sticky rules are in force (knobs read back by the suite, ",
        Mark("observed"), "; compiled out: ", Mark("static"), ")."]))
    section.add(doc.Table(["setting", "meaning"] + flavors, rows))
    knob_rows = []
    for flavor in flavors:
        spec = FLAVORS[flavor]
        facts = analysis.files[flavor].data.get("facts") or {}
        boot = facts.get("knobs") or {}
        knob_rows.append([flavor, Code(spec.path or "-"), spec.polarity,
                          ", ".join("%s=%s" % (k, v) for k, v in
                                    sorted(boot.items()) if v is not None)])
    section.add(doc.Table(["flavor", "own knob", "polarity",
                           ["as booted ", Mark("observed")]], knob_rows,
                          caption="Knobs (setting boot: these values, with"
                                  " protected_hardlinks=0)"))
    section.add(doc.Bullets([
        ["Followers: "] + joined([[Code(n), " (%s)" % t]
                                 for n, t in FOLLOWERS]) + ["."],
        ["Positions: ", Code("trailing"), " = the path's last component is"
         " the link; ", Code("intermediate"), " = the link is a directory"
         " component (", Code("D/L/f"), "); ", Code("chain*"), " = a link to"
         " a link; ", Code("dotdot"), ", ", Code("subdir-ns"), ", ",
         Code("trailing-rel"), " as in docs/result-format.md."],
        ["Case ids: ", Code("<group>/d<dir mode>-<dir owner>/l<link owner>"
                            "/t<target>/f<follower>/<position>/<op>"),
         "; group m = matrix, p = positions, o = ops, n = nosymfollow"
         " mount. Every id links to its case view."],
        ["Outcomes: ", Code("ok"), " or the errno; ", Code("+a"), " = the"
         " link's atime was touched; ", Code("!"), " = the model predicted"
         " otherwise."],
    ]))
    return section
