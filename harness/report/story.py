"""The report's story: the rule as one picture (the rule, the core
matrix with trailing and intermediate links, the heatmap), and what
changed between the two postings and on to mainline, line by line (the
table of harness/changes.ini)."""

from . import changes
from . import doc
from . import pictures
from .doc import Code, Link, Mark, Strong, cell, joined
from .pairs import cause_link

CORE_FOLLOWERS = ("root", "A", "B")
# (position, target): the trailing link leads to a file; any target for
# the intermediate one (the suite's is the directory `dir`).
CORE_POSITIONS = (("trailing", "file-root"), ("intermediate", None))


def core_cases(result):
    """{(setting, position, follower): case}: A's link in a root-owned
    1777 directory, open O_RDONLY, trailing (to a file) and intermediate
    (a directory component)."""
    wanted = dict(CORE_POSITIONS)

    def core(params):
        position = params.get("position")
        return (position in wanted
                and wanted[position] in (None, params.get("target"))
                and params.get("dir_mode") == "1777"
                and params.get("dir_owner") == "root"
                and params.get("link_owner") == "A"
                and params.get("op") == "open_rdonly"
                and params.get("mount") == "strictatime"
                and params.get("follower") in CORE_FOLLOWERS)
    return {(setting, case["params"]["position"],
             case["params"]["follower"]): case
            for (setting, _cid), case in result.select(core)}


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
         " and followers of the suite (", Mark("observed"), ")."]
        + _other_refusals_text(analysis),
        [doc.Table(header, rows)]))
    return section


def _other_refusals_text(analysis):
    """Why a row with every protection off still shows refusals."""
    other = pictures.other_refusals(analysis.files, analysis.checks)
    if not other:
        return []
    parts = ", ".join("%d by %s" % (n, d) for d, n in sorted(other.items()))
    return [" Not every refusal is a symlink rule's: up to %s per row"
            " (the model's decider, " % parts, Mark("inferred"),
            "; DAC search: a directory on the path through the link that the"
            " follower may not search), which is why a row with every"
            " protection off is not white."]


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
    return joined(out, "; ") if out else ["0"]


def what_changed(analysis, top, pair_anchor):
    revisions = changes.postings()
    posted = revisions[:2]          # the two CHANGES names lines of
    section = doc.Section("%s (-> %s): what changed" % (
        " -> ".join(posted), ", ".join(revisions[2:] + ("mainline",))),
        "changes")
    rows = []
    for change in changes.CHANGES:
        counts = _counts(analysis, change.causes, pair_anchor)
        if change.note:
            counts = counts + [doc.Em(" \u2014 " + change.note)]
        rows.append([change.what] + [
            _where(top, series, markers) for series, markers in
            zip(posted, (change.first, change.second))] + [
            joined([[cause_link(c)] for c in change.causes]) or "-",
            counts, change.decision])
    section.add(doc.Para([
        "Each row: the change, the line of each series that makes it (",
        Mark("static"), "), the cause the differ blames for it, and how"
        " many joined cases of each pair it changes (", Mark("observed"),
        " outcomes, cause ", Mark("inferred"), ")."]))
    section.add(doc.Table(["change"] + ["%s (patch line)" % r
                                        for r in posted]
                          + ["cause", "cases that change", "decision"],
                          rows, css="changes"))
    return section
