"""What changed in code from each step of the rule's lineage to the next
(harness/lineage.ini): the git range-diff of their two series, written by
`sticky.py range-diff` (harness/kernel/rangediff.py) and read from
build/range-diff/ or, in a fresh clone, results/range-diff/."""

from functools import lru_cache

import flavors as flv
from differ.diff import PAIRS
from kernel import rangediff

from . import doc
from .doc import Code
from .front import pair_evidence

ANCHOR = "code-steps"


@lru_cache(maxsize=None)
def _specs():
    return flv.load()


def lineage_steps(lineage=None):
    """Every two consecutive entries of the lineage ([(name, {columns})],
    as report.debate.lineage() reads it, or lineage.ini's) as a Step."""
    if lineage is None:
        entries = rangediff.read_lineage()
    else:
        entries = [(name, s["columns"].split()) for name, s in lineage]
    return rangediff.all_steps(entries, _specs())


def step_anchor(step):
    return doc.anchor_of(ANCHOR, step.flavor_a, step.flavor_b)


def step_title(step):
    return "%s -> %s" % (step.a, step.b)


def pair_of(a, b, pairs=PAIRS):
    """The first pair of harness/pairs.ini comparing flavors a and b, in
    either order, or None."""
    return next((p for p in pairs if {p.a, p.b} == {a, b}), None)


def _flavors_line(analysis, step):
    pair = pair_of(step.flavor_a, step.flavor_b)
    behaviour = (pair_evidence(analysis, pair.title) if pair else
                 ["no pair in harness/pairs.ini compares them"])
    return doc.Para(["Flavors ", Code(step.flavor_a), " (series ",
                     Code(step.flavor_a + "/"), ") and ",
                     Code(step.flavor_b), " (series ",
                     Code(step.flavor_b + "/"), "). In behaviour: "]
                    + behaviour + ["."])


def step_section(analysis, step):
    section = doc.Section(step_title(step), step_anchor(step), level=3)
    section.add(_flavors_line(analysis, step))
    text = (analysis.range_diffs or {}).get(step.file_name)
    if text is None:
        return section.add(doc.Para([
            "(", Code(step.file_name), " is absent from ",
            Code(analysis.range_diff_dir or "build/range-diff"),
            ": run ", Code("python3 harness/sticky.py range-diff"), ")"]))
    return section.add(doc.Details(
        ["git range-diff %s..%s (%d lines)" % (
            step.flavor_a, step.flavor_b, text.count("\n"))],
        [doc.Pre(text)]))


def section(analysis, steps=None):
    """One subsection per step with a code diff; a line for the others."""
    steps = lineage_steps() if steps is None else steps
    out = doc.Section("What changed in code, step by step", ANCHOR)
    out.add(doc.Para([
        "From each step of the lineage to the next whose two ends are"
        " ported as a series: ", Code("git range-diff"), " of the two"
        " series, each committed on the pristine 6.1 tree from its patch"
        " files (", Code("python3 harness/sticky.py range-diff"), "; ",
        Code("make bless"), " keeps a copy in ", Code("results/range-diff/"),
        "). Commit ids are shown as ", Code(rangediff.HASH_MARK),
        " (", analysis.range_diff_note, ")."]))
    skipped = [s for s in steps if s.why_not]
    if skipped:
        out.add(doc.Para(["No code diff for "] + doc.joined(
            [[step_title(s), ": %s" % s.why_not] for s in skipped], "; ")
            + ["."]))
    for step in steps:
        if not step.why_not:
            out.add(step_section(analysis, step))
    return out
