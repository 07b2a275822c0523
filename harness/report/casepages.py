"""One view per case id the report names: its parameters, the model's
reasoning, and the outcome in every flavor and setting."""

from model import cases as caseids
from model import repro
from . import doc
from model import rule as model
from .doc import Code, FileLink, Link, Mark, cell
from model.flavors import FLAVORS
from .pictures import pipeline
from .pairs import pair_anchor
from .story import outcome_cell

DECIDERS = {
    model.MAINLINE: "mainline",
    model.DAC_SEARCH: "DAC search",
    model.DAC_WRITE: "DAC write",
    model.STICKY_DELETE: "sticky delete",
    model.ELOOP_RULE: "nosymfollow",
    model.NOFOLLOW: "O_NOFOLLOW",
    model.EXCL: "O_EXCL",
    model.CONTROL: "as control",
    model.LINK_OP: "op on link",
}


def decider(flavor, prediction):
    """Short name of the rule that decided a prediction."""
    if prediction.decider == model.OWN:
        name = "%s rule" % (FLAVORS[flavor].own or flavor)
    else:
        name = DECIDERS.get(prediction.decider, prediction.decider)
    if prediction.link is not None:
        name += " @%d" % (prediction.link + 1)
    if prediction.artifacts:
        name += " (artifact)"
    return name


def _ids_text(params):
    ids = "ruid %s, euid %s, fsuid %s" % (params.get("ruid"),
                                          params.get("euid"),
                                          params.get("fsuid"))
    return "%s (%s)" % (params.get("follower"), ids)


def _link_line(index, link, fsuid):
    holds = model.sticky_denies(link, fsuid)
    return ["link %d, %s, in a %s dir of %s, owned by %s: " % (
        index + 1, link["kind"], link["dir_mode"], link["dir_owner"],
        link["owner"]),
        "the sticky condition %s for fsuid %s " % (
            "holds" if holds else "does not hold", fsuid),
        Mark("inferred")]


def reasoning(params):
    """Lines of the model's reasoning that hold in every flavor."""
    fsuid = params.get("fsuid")
    if params.get("op") in model.REAL_ID_OPS:
        fsuid = params.get("ruid", fsuid)
    lines = [["%s, %s, target %s, mount %s; follower %s " % (
        params.get("op"), params.get("position"), params.get("target"),
        params.get("mount"), _ids_text(params)), Mark("static")]]
    links = params.get("links") or []
    if not links:
        lines.append(["no link is followed (the op acts on the link"
                      " itself or stops before it)"])
    lines += [_link_line(i, link, fsuid) for i, link in enumerate(links)]
    for entry in params.get("search") or []:
        lines.append(["the walk must search a %s dir of %s (not every"
                      " class may)" % (entry["mode"], entry["owner"])])
    return lines


def _controls(analysis, cid, labels):
    seen = {}
    for flavor, result in analysis.files.items():
        for setting in labels:
            case = result.cases.get((setting, cid))
            if case is None:
                continue
            ret = case.get("control_ret")
            text = ("none (no target op)" if ret is None else
                    "ok" if ret == 0 else case.get("control_errno"))
            seen.setdefault(text, []).append("%s %s" % (flavor, setting))
    return seen


def labels_of(analysis):
    return sorted({label for r in analysis.files.values()
                   for (label, _cid) in r.cases},
                  key=lambda x: (x != "boot", x[:3], x))


REPRO_DIR = "report-repro"
REPRO_SETTING = "ps0-own1"      # the 2010 world: the revision's rule alone
REPRO_FLAVOR = "v3"
SCRIPTS_APART = object()    # case_views(files=): link the scripts only


def repro_file(cid):
    return "%s/%s.sh" % (REPRO_DIR, doc.case_anchor(cid))


def repro_choice(analysis, cid, labels):
    """(setting, flavor, {flavor: case record}) of a case's script: the
    record of REPRO_FLAVOR (else the first flavor that ran it) under
    REPRO_SETTING (else its first setting); None when no flavor ran it."""
    label = REPRO_SETTING if REPRO_SETTING in labels else labels[0]
    found = {f: r.cases[(label, cid)] for f, r in analysis.files.items()
             if (label, cid) in r.cases}
    if not found:
        return None
    flavor = REPRO_FLAVOR if REPRO_FLAVOR in found else next(iter(found))
    return label, flavor, found


def repro_script(analysis, cid, labels):
    """The script of repro_choice()'s record, with what every flavor
    returned; (setting, flavor, text) or None."""
    chosen = repro_choice(analysis, cid, labels)
    if chosen is None:
        return None
    label, flavor, found = chosen
    return label, flavor, _script(found, flavor)


def _script(found, flavor):
    """The script of `flavor`'s record, with what every flavor in
    `found` ({flavor: record}) returned."""
    return repro.script(found[flavor], {f: repro.outcome_of(c)
                                        for f, c in found.items()})


def scripts(analysis, ids):
    """{file: text} of the scripts the case views of `ids` link to."""
    labels = labels_of(analysis)
    out = {}
    for cid in ids:
        made = repro_script(analysis, cid, labels) if _valid(cid) else None
        if made is not None:
            out[repro_file(cid)] = made[2]
    return out


def _reproduce(analysis, cid, labels, files):
    """How to run the case: its script, written beside the report (into
    `files`, unless it is SCRIPTS_APART: scripts() writes them), and the
    command that prints it for any setting."""
    chosen = repro_choice(analysis, cid, labels) if _valid(cid) else None
    if chosen is None:
        return None
    label, flavor, found = chosen
    if files is not SCRIPTS_APART:
        files[repro_file(cid)] = _script(found, flavor)
    version, _rows = repro.needs(cid)
    return doc.Para([
        "Reproduce (as root, Linux \u2265 %s): " % repro.version_text(
            version),
        FileLink("the script for %s" % label, repro_file(cid)),
        " (it says what each flavor returned and compares with %s's"
        " record); for another setting: " % flavor,
        Code("python3 harness/sticky.py repro %s --setting LABEL" % cid),
        " (", doc.Href("docs/repro.md", "docs/repro.md"), ")."])


def named_by(analysis):
    """{case id: [pairs whose groups name it]}."""
    out = {}
    for pair in dict.fromkeys(d.pair for d in analysis.diffs):
        named = {row.case_id for pair_diff in analysis.diffs
                 if pair_diff.pair == pair
                 for groups in (pair_diff.differ, pair_diff.same_outcome)
                 for group in groups.values() for row in group.members}
        for cid in named:
            out.setdefault(cid, []).append(pair)
    return out


def case_view(analysis, cid, labels, files=None, pairs=()):
    params = caseids.params_of(cid) if _valid(cid) else None
    rows = []
    for flavor, result in analysis.files.items():
        check = analysis.checks[flavor]
        bad = {(m.setting, m.case_id) for m in check.unexplained}
        row = [flavor]
        for label in labels:
            case = result.cases.get((label, cid))
            if case is None:
                row.append(cell("-", "none"))
                continue
            params = params or case["params"]
            base = outcome_cell(case, (label, cid) not in bad)
            prediction = check.predictions.get((label, cid))
            rule = decider(flavor, prediction) if prediction else "?"
            # one string: both renderers escape it as they would its
            # parts, and a repeated string is escaped once
            row.append(cell(base.content.text + " \u00b7 " + rule, base.css))
        rows.append(row)
    blocks = []
    if params:
        blocks.append(doc.Bullets(reasoning(params)))
    controls = _controls(analysis, cid, labels)
    if len(controls) == 1:
        blocks.append(doc.Para(["control (the same op on the target"
                                " without a link): %s in every run "
                                % next(iter(controls)), Mark("observed")]))
    else:
        blocks.append(doc.Para(["control: " + "; ".join(
            "%s in %s" % (k, ", ".join(v)) for k, v in controls.items()),
            " ", Mark("observed")]))
    blocks.append(doc.Table(["flavor"] + [Code(x) for x in labels], rows,
                            css="matrix"))
    if files is not None:
        blocks.append(_reproduce(analysis, cid, labels, files))
    if pairs:
        blocks.append(doc.Para(["Named by: "] + doc.joined(
            [[Link(p.title, pair_anchor(p))] for p in pairs]) + ["."]))
    blocks = [b for b in blocks if b is not None]
    return doc.Details([Code(cid)], blocks, anchor=doc.case_anchor(cid),
                       open=True)


def _valid(cid):
    try:
        caseids.split_id(cid)
    except caseids.CaseIdError:
        return False
    return True


PAGE = "cases"


def _section():
    return doc.Section("Case views", PAGE, page=PAGE)


class Placeholder(doc.Section):
    """The case views' section without its views, in a document whose
    case-view page is rendered apart (report/apart.py): the same title,
    page and anchors, so every other page links and lists it alike."""

    def __init__(self, ids):
        section = _section()
        super().__init__(section.title, section.anchor, page=section.page)
        self.ids = sorted(ids)
        self.blocks = [doc.Details([], [], anchor=doc.case_anchor(cid))
                       for cid in self.ids]


def case_views(analysis, ids, files=None, naming=None):
    """The page of case views; each case's script goes into `files`
    (None: no script, SCRIPTS_APART: scripts() gives them).  `naming`:
    named_by(analysis), when computed apart from it."""
    section = _section()
    section.add(doc.Para([
        "One view per case id named above. Each cell: the outcome ",
        Mark("observed"), ", then the rule that decided it and at which"
        " link (@1 = the first link followed) ", Mark("inferred"),
        ". The model takes, per link, the steps of ",
        doc.Link("the rule in one picture", "rule"), ": ",
        " \u2192 ".join(t for t, _, _ in pipeline(list(analysis.files))),
        "."]))
    labels = labels_of(analysis)
    if naming is None:
        naming = named_by(analysis)
    for cid in sorted(ids):
        section.add(case_view(analysis, cid, labels, files,
                              naming.get(cid, ())))
    return section
