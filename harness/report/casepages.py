"""One view per case id the report names: its parameters, the model's
reasoning, and the outcome in every flavor and setting."""

from model import cases as caseids
from . import doc
from model import rule as model
from .doc import Code, Mark, cell
from model.flavors import FLAVORS
from .pictures import pipeline
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


def case_view(analysis, cid, labels):
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
            row.append(cell([base.content.text, " \u00b7 ", rule], base.css))
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
    return doc.Details([Code(cid)], blocks, anchor=doc.case_anchor(cid),
                       open=True)


def _valid(cid):
    try:
        caseids.split_id(cid)
    except caseids.CaseIdError:
        return False
    return True


def case_views(analysis, ids):
    section = doc.Section("Case views", "cases", page="cases")
    section.add(doc.Para([
        "One view per case id named above. Each cell: the outcome ",
        Mark("observed"), ", then the rule that decided it and at which"
        " link (@1 = the first link followed) ", Mark("inferred"),
        ". The model takes, per link, the steps of ",
        doc.Link("the rule in one picture", "rule"), ": ",
        " \u2192 ".join(t for t, _, _ in pipeline(list(analysis.files))),
        "."]))
    labels = labels_of(analysis)
    for cid in sorted(ids):
        section.add(case_view(analysis, cid, labels))
    return section
