"""The report's first sections: verdict, glossary, the rule as a picture,
and what changed from v1 to v3 (and on to mainline)."""

from . import changes, doc, pictures, settings
from .doc import Code, Link, Mark, Strong, cell
from .flavors import FLAVORS
from .model import config_for

FOLLOWERS = (
    ("root", "uid 0 with its capabilities"),
    ("A", "uid 1000 (saved uid 0)"),
    ("B", "uid 1001 (saved uid 0)"),
    ("euid0-fsuidA", "euid 0 but fsuid 1000: a root daemon acting for A"),
    ("euidA-fsuid0", "euid 1000, fsuid 0"),
    ("setuid-root", "ruid 1000, euid 0, fsuid 1000"),
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
    if analysis.diffs:
        lines.append(doc.Para([Strong("Pair by pair")]))
        lines.append(doc.Bullets([headline(d) for d in analysis.diffs]))
    css = {"OK": "verdict ok", "FAIL": "verdict fail"}.get(word,
                                                           "verdict no")
    return doc.Callout(lines, css)


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
        out += _join([[cause_link(label), " %s" % format(count, ",")]
                      for label, count in counts])
    same = sum(g.count for g in pair_diff.same_outcome.values())
    if same:
        out.append("; %s more with the same outcome but another deciding"
                   " rule or log" % format(same, ","))
    return out


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
        ["Followers: "] + _join([[Code(n), " (%s)" % t]
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


def _join(parts, sep=", "):
    out = []
    for index, part in enumerate(parts):
        if index:
            out.append(sep)
        out += part
    return out


CORE_FOLLOWERS = ("root", "A", "B")
# (position, target): the trailing link leads to a file; any target for
# the intermediate one (the suite's is the directory `dir`).
CORE_POSITIONS = (("trailing", "file-root"), ("intermediate", None))


def core_cases(result):
    """{(setting, position, follower): case}: A's link in a root-owned
    1777 directory, open O_RDONLY, trailing (to a file) and intermediate
    (a directory component)."""
    out = {}
    wanted = dict(CORE_POSITIONS)
    for (setting, _cid), case in result.cases.items():
        params = case["params"]
        position = params.get("position")
        if (position in wanted
                and wanted[position] in (None, params.get("target"))
                and params.get("dir_mode") == "1777"
                and params.get("dir_owner") == "root"
                and params.get("link_owner") == "A"
                and params.get("op") == "open_rdonly"
                and params.get("mount") == "strictatime"
                and params.get("follower") in CORE_FOLLOWERS):
            out[(setting, position, params["follower"])] = case
    return out


def outcome_cell(case, agrees=True):
    """A coloured Cell of an observed outcome, linking to the case."""
    text = "ok" if case["ret"] == 0 else case["errno"]
    if case.get("atime_changed"):
        text += " +a"
    css = ("allow" if case["ret"] == 0 else
           "deny" if case["errno"] == "EACCES" else "other")
    if not agrees:
        text += " !"
        css += " bad"
    return cell(Link(text, doc.case_anchor(case["id"])), css)


def core_matrix(analysis, shown):
    header = ["flavor", "setting"] + ["%s %s" % (
        "trail." if p == "trailing" else "inter.", f)
        for p, _ in CORE_POSITIONS for f in CORE_FOLLOWERS]
    rows = []
    for flavor, result in analysis.files.items():
        check = analysis.checks[flavor]
        bad = {(m.setting, m.case_id) for m in check.unexplained}
        core = core_cases(result)
        for setting in sorted({k[0] for k in core},
                              key=lambda x: (x != "boot", x)):
            row = [flavor, Code(setting)]
            for position, _ in CORE_POSITIONS:
                for follower in CORE_FOLLOWERS:
                    case = core.get((setting, position, follower))
                    if case is None:
                        row.append(cell("-", "none"))
                        continue
                    shown.add(case["id"])
                    row.append(outcome_cell(
                        case, (setting, case["id"]) not in bad))
            rows.append(row)
    return doc.Table(header, rows, css="matrix", caption=[
        "Core matrix: follower root, A or B opens (O_RDONLY) through A's"
        " link in a root-owned sticky world-writable directory (1777, like"
        " /tmp): as the trailing component (",
        Code("D/L"), " -> a file) and as an intermediate one (",
        Code("D/L/f"), ", L -> a directory). Green allowed, red EACCES; ",
        Mark("observed"), "; each cell opens its case."])


def picture(analysis, shown):
    section = doc.Section("The rule in one picture", "rule")
    flavors = list(analysis.files)
    section.add(doc.Figure(
        pictures.rule_svg(flavors),
        ["The rule all three share, and where each flavor applies it while"
         " 6.1's pick_link() follows a symlink (from the patches, ",
         Mark("static"), ")."],
        [doc.Bullets([[Strong(t), ": ", d] for t, d, _ in
                      pictures.pipeline(flavors)])]))
    section.add(core_matrix(analysis, shown))
    data = pictures.heat(analysis.files)
    header, rows = pictures.heat_table(data)
    section.add(doc.Figure(
        pictures.heatmap_svg(data),
        ["Share of link follows refused, per flavor, setting and link"
         " position: every open O_RDONLY through a link whose control (the"
         " same open without the link) succeeded, all directories, owners"
         " and followers of the suite (", Mark("observed"), ")."],
        [doc.Table(header, rows)]))
    return section


def cause_link(label):
    return Link(label, doc.anchor_of("cause", label))


def _where(top, series, markers):
    if not markers:
        return "-"
    hit = changes.find_line(top, series, markers)
    if hit is None:
        return ["not found in ", Code(series + "/"), " (looked for ",
                Code(markers[0]), ")"]
    path, number, text = hit
    return [Code("%s:%d" % (path, number)), " ", Code(text[:70])]


def _counts(analysis, labels, pair_anchor):
    out = []
    for pair_diff in analysis.diffs:
        if pair_diff.missing:
            continue
        for title, groups in (("", pair_diff.differ),
                              (" (same outcome)", pair_diff.same_outcome)):
            total = sum(g.count for g in groups.values()
                        if set(g.causes) & set(labels))
            if total:
                out.append([Link(pair_diff.pair.title,
                                 pair_anchor(pair_diff.pair)),
                            ": %s%s" % (format(total, ","), title)])
    return _join(out, "; ") if out else ["0"]


def what_changed(analysis, top, pair_anchor):
    section = doc.Section("v1 -> v3 (-> Yama, mainline): what changed",
                          "changes")
    rows = []
    for change in changes.CHANGES:
        counts = _counts(analysis, change.causes, pair_anchor)
        if change.note:
            counts = counts + [doc.Em(" \u2014 " + change.note)]
        rows.append([change.what, _where(top, "v1", change.v1),
                     _where(top, "v3", change.v3),
                     _join([[cause_link(c)] for c in change.causes])
                     or "-",
                     counts, change.decision])
    section.add(doc.Para([
        "Each row: the change, the line of each series that makes it (",
        Mark("static"), "), the cause the differ blames for it, and how"
        " many joined cases of each pair it changes (", Mark("observed"),
        " outcomes, cause ", Mark("inferred"), ")."]))
    section.add(doc.Table(["change", "v1 (patch line)", "v3 (patch line)",
                           "cause", "cases that change", "decision"], rows,
                          css="changes"))
    return section
