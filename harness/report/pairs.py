"""The cause legend and one section per pair of flavors, every group with
its full case list."""

from differ import causes
from . import doc
from differ.check import format_outcome
from differ.diff import interface_cause
from .doc import Code, Link, Mark, Strong, cell


def pair_anchor(pair):
    return doc.anchor_of("pair", pair.title)


def cause_anchor(label):
    return doc.anchor_of("cause", label)


def cause_link(label):
    return Link(label, cause_anchor(label))


def cause_links(group_name):
    out = []
    for index, label in enumerate(causes.parts(group_name)):
        if index:
            out.append(" + ")
        out.append(Link(label, cause_anchor(label)))
    return out


def short_params(params):
    """"B opens (open_rdonly) through A's trailing link in 1777/root"."""
    text = "%s %s through %s's %s link in %s/%s" % (
        params.get("follower"), params.get("op"), params.get("link_owner"),
        params.get("position"), params.get("dir_mode"),
        params.get("dir_owner"))
    if params.get("mount") != "strictatime":
        text += " (%s)" % params.get("mount")
    return text


def _outcome(outcome):
    return format_outcome(outcome).replace(" (atime touched)", " +a") \
        .replace(" (atime kept)", "")


def _case_link(row, shown):
    shown.add(row.case_id)
    return Link(row.case_id, doc.case_anchor(row.case_id))


def _rows(pair, rows, shown, full, same):
    out = []
    for row in rows:
        cells = [Code(row.settings_text), _case_link(row, shown)]
        if not full:
            cells.append(short_params(row.params))
        cells += [_outcome(row.outcome_a), _outcome(row.outcome_b)]
        if same:
            cells += [row.rule_a or "-", row.rule_b or "-"]
        out.append(cells)
    return out


def _header(pair, full, same):
    header = ["setting", "case"] + ([] if full else ["what"])
    header += [[pair.a, " ", Mark("observed")],
               [pair.b, " ", Mark("observed")]]
    if same:
        header += [["%s: deciding rule " % pair.a, Mark("inferred")],
                   ["%s: deciding rule " % pair.b, Mark("inferred")]]
    return header


def _groups(pair_diff):
    """(title, group, same outcome?) of a pair, in the report's order."""
    for title, groups, same in (
            ("Different outcome", pair_diff.differ, False),
            ("Same outcome, different deciding rule or log",
             pair_diff.same_outcome, True)):
        for group in sorted(groups.values(),
                            key=lambda g: (-g.count, g.cause)):
            yield title, group, same


def group_anchor(pair, group, same):
    return doc.anchor_of("all", pair.title, "same" if same else "differ",
                         group.cause)


def _group_blocks(pair, group, shown, same):
    blocks = [doc.Para([Strong(format(group.count, ",")), " case(s): "]
                       + cause_links(group.cause))]
    blocks.append(doc.Table(_header(pair, False, same),
                            _rows(pair, group.rows, shown, False, same),
                            css="cases"))
    if len(group.ordered) > len(group.rows):
        blocks.append(doc.Para([Link(
            "All %s cases of this group" % format(group.count, ","),
            group_anchor(pair, group, same))]))
    return blocks


def every_case(analysis, shown):
    """The page of every pair's full case lists, group by group."""
    section = doc.Section("Every case of every pair", "pair-cases",
                          page="pairs")
    section.add(doc.Para([
        "The full list of each group of ", Link("the pairs", "pairs"),
        ", with the settings joined and both outcomes ",
        Mark("observed"), "."]))
    # a list's rows -> (title, anchor, flavor a, flavor b) where it is
    # shown
    listed = {}
    for pair_diff in analysis.diffs:
        pair = pair_diff.pair
        for _title, group, same in _groups(pair_diff):
            if len(group.ordered) <= len(group.rows):
                continue
            title = "%s: %s (%s)" % (pair.title, group.cause,
                                     format(group.count, ","))
            anchor = group_anchor(pair, group, same)
            sub = doc.Section(title, anchor, level=3).add(
                doc.Para([Link("back to the pair", pair_anchor(pair))]))
            key = (same, tuple((r.settings_text, r.case_id, r.outcome_a,
                                r.outcome_b, r.rule_a, r.rule_b)
                               for r in group.ordered))
            if key in listed:
                # two pairs whose flavors observed alike list one table
                sub.add(doc.Para([
                    "The same %s cases, settings and outcomes%s as "
                    % (format(group.count, ","),
                       ", deciding rules" if same else ""),
                    Link(listed[key][0], listed[key][1]),
                    " (this pair's %s and %s in the places of %s and %s"
                    " there)." % (pair.a, pair.b, listed[key][2],
                                  listed[key][3])]))
            else:
                listed[key] = (title, anchor, pair.a, pair.b)
                sub.add(doc.Table(
                    _header(pair, True, same),
                    _rows(pair, group.ordered, shown, True, same),
                    css="cases"))
            section.add(sub)
    return section


def pair_section(pair_diff, shown):
    pair = pair_diff.pair
    section = doc.Section(pair.title, pair_anchor(pair), level=3)
    if pair_diff.missing:
        return section.add(doc.Para(["Skipped: %s." % pair_diff.missing]))
    joined = ", ".join(a if a == b else "%s~%s" % (a, b)
                       for a, b in pair_diff.settings)
    counts = pair_diff.cause_counts()
    summary = ["%s of %s joined cases have a different outcome" % (
        format(pair_diff.differing, ","), format(pair_diff.joined, ","))]
    if counts:
        summary.append(": ")
        for index, (label, count) in enumerate(
                sorted(counts.items(), key=lambda x: (-x[1], x[0]))):
            summary += ([", "] if index else []) + [
                Link(label, cause_anchor(label)), " %s" % format(count, ",")]
    summary.append(". Settings joined: %s." % joined)
    section.add(doc.Para(summary))
    shown_title = None
    for title, group, same in _groups(pair_diff):
        if title != shown_title:
            section.add(doc.Para([Strong(title)]))
            shown_title = title
        section.add(*_group_blocks(pair, group, shown, same))
    fields = [(f, a, b, "static") for f, a, b in pair_diff.static] + [
        (f, a, b, "observed") for f, a, b in pair_diff.observed]
    if fields:
        section.add(doc.Table(
            ["field", "cause", pair.a, pair.b, "known"],
            [[f, Link(interface_cause(f), cause_anchor(interface_cause(f))),
              str(a), str(b), Mark(kind)] for f, a, b, kind in fields],
            caption="Interface and log text"))
    return section


def pairs(analysis, shown):
    section = doc.Section("Pairwise differences", "pairs")
    section.add(doc.Para([
        "Each pair joins the two flavors' cases by setting and case id."
        " A group is named by the cause(s) whose counterfactual step"
        " changes the model's prediction (", Mark("inferred"), "); the"
        " attribution starts from the same side whichever flavor a pair"
        " names first. Each group shows its most typical cases, then all"
        " of them."]))
    beyond = section_links(analysis)
    if beyond:
        section.add(doc.Para(
            ["These pairs compare the suite's shapes: trees that stand still"
             " while a case runs, on tmpfs, with owners that exist. Where"
             " the placements differ by construction, each pair's"
             " differing cases and their causes are in "]
            + _joined(beyond) + ["."]))
    for pair_diff in analysis.diffs:
        section.add(pair_section(pair_diff, shown))
    for error in analysis.join_errors:
        section.add(doc.Pre("join error: " + error))
    return section


def section_links(analysis):
    """A link to each embedded section that compares pairs in shapes
    the suite does not make (its first `## ` heading, if it says so)."""
    out = []
    for path, text in analysis.sections or []:
        title = next((line[3:].strip() for line in text.splitlines()
                      if line.startswith("## ")), "")
        if "differ by construction" in title or "do not make" in title:
            out.append(doc.Link(title, doc.slug(title)))
    return out


def _joined(links):
    out = []
    for i, link in enumerate(links):
        out += ([" and "] if i and i == len(links) - 1 else
                [", "] if i else []) + [link]
    return out


def legend(analysis):
    used = {}
    for pair_diff in analysis.diffs:
        for group in (list(pair_diff.differ.values())
                      + list(pair_diff.same_outcome.values())):
            for label in group.causes:
                used.setdefault(label, []).append(
                    (pair_diff, group.count))
        for name, _, _ in pair_diff.static + pair_diff.observed:
            used.setdefault(interface_cause(name), [])
    rows = []
    for cause in causes.CAUSES.values():
        where = used.get(cause.name)
        seen = {}
        for pair_diff, count in where or []:
            seen[pair_diff.pair] = seen.get(pair_diff.pair, 0) + count
        text = []
        for index, (pair, count) in enumerate(seen.items()):
            text += ([", "] if index else []) + [
                Link(pair.title, pair_anchor(pair)),
                " %s" % format(count, ",")]
        if where is not None and not seen:
            text = ["interface fields only"]
        rows.append([cell(Strong(cause.name), anchor=cause_anchor(
            cause.name)), cause.kind, cause.note, text or "not seen"])
    section = doc.Section("Causes", "causes")
    section.add(doc.Para([
        "Every label a group can carry. Kinds: design (2010), porting"
        " (6.1), configuration, setting, run (the records differ), failure."
        " A group named \"a + b\" needed both steps."]))
    section.add(doc.Table(["cause", "kind", "meaning", "cases, by pair"],
                          rows))
    return section
