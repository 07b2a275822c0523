"""The story the report tells first: the /tmp attack, the rule in one
sentence, the rule's lineage as a timeline (harness/lineage.ini) and the
2010 thread's positions, each with what the project measured
(harness/debate.ini)."""

import os

from . import codesteps
from . import doc
from . import inifile
from .doc import Code, Em, Href, Link, Strong
from .front import pair_evidence
from .story import outcome_cell

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINEAGE_INI = os.path.join(HARNESS, "lineage.ini")
DEBATE_INI = os.path.join(HARNESS, "debate.ini")
DISCUSSION = "docs/lkml-discussion.md"

LINEAGE_KEYS = ("when", "who", "where", "rule", "knob", "columns", "doc")
DEBATE_KEYS = ("said", "worry", "evidence", "meant", "doc")
EVIDENCE_KINDS = ("pair", "case", "see")


class StoryError(Exception):
    """lineage.ini or debate.ini is not as its header says."""


def _text(value):
    return " ".join(value.split())


def load_ini(path, keys, optional=()):
    return inifile.sections(path, keys, optional, StoryError,
                            "the report's story reads it")


def evidence_items(name, value):
    """[(kind, words)] of an evidence value, one item a line."""
    out = []
    for line in value.splitlines():
        kind, _, rest = line.strip().partition(" ")
        if not kind:
            continue
        if kind not in EVIDENCE_KINDS or not rest.strip():
            raise StoryError("%s [%s]: evidence %r is not one of %s"
                             " followed by what it names" % (
                                 DEBATE_INI, name, line.strip(),
                                 ", ".join(EVIDENCE_KINDS)))
        words = rest.split()
        if kind == "case" and len(words) != 3:
            raise StoryError("%s [%s]: evidence %r: a case is FLAVOR"
                             " SETTING ID" % (DEBATE_INI, name,
                                              line.strip()))
        out.append((kind, rest.strip()))
    return out


def lineage(path=LINEAGE_INI):
    return load_ini(path, LINEAGE_KEYS, ("note",))


def positions(path=DEBATE_INI):
    out = load_ini(path, DEBATE_KEYS)
    for name, section in out:
        section["items"] = evidence_items(name, section["evidence"])
    return out


def _doc_link(fragment, text):
    return Href(text, "%s#%s" % (DISCUSSION, fragment))


def _case_evidence(analysis, words, shown):
    flavor, setting, cid = words.split()
    result = analysis.files.get(flavor)
    case = result.cases.get((setting, cid)) if result else None
    if case is None:
        return ["%s %s " % (flavor, setting), Code(cid), ": not run"]
    shown.add(cid)
    return ["%s %s " % (flavor, setting),
            Link(Code(cid), doc.case_anchor(cid)), ": ",
            Strong(outcome_cell(case).content.text)]


def embedded_anchors(analysis):
    """The anchors of the embedded sections' level-2 headings."""
    return {doc.slug(line[3:]) for _path, text in analysis.sections or []
            for line in text.splitlines() if line.startswith("## ")}


def evidence(analysis, items, shown):
    """Inline content of each evidence item, from the analysis."""
    out = []
    sections = embedded_anchors(analysis)
    for kind, words in items:
        if kind == "pair":
            out.append(pair_evidence(analysis, words))
        elif kind == "case":
            out.append(_case_evidence(analysis, words, shown))
        else:
            anchor, _, text = words.partition(" ")
            out.append([Link(text or anchor, anchor)] if anchor in sections
                       else [text or anchor, " (not in this report)"])
    return out


def _columns(value):
    names = value.split()
    return doc.joined([[Code(n)] for n in names]) if names else None


def _code_link(code_step):
    """A link to what changed in code since the previous step, if any."""
    if code_step is None:
        return []
    return ["; ", Link("code diff", codesteps.step_anchor(code_step))]


def timeline(steps=None):
    steps = lineage() if steps is None else steps
    code = {s.b: s for s in codesteps.lineage_steps(steps) if not s.why_not}
    rows = []
    for name, step in steps:
        columns = _columns(step["columns"])
        rows.append([
            [_doc_link(step["doc"], name), " (%s, %s)" % (
                _text(step["when"]), _text(step["who"]))]
            + _code_link(code.get(name)),
            _text(step["where"]), _text(step["rule"]), _text(step["knob"]),
            columns or doc.cell(_text(step.get("note", "")), "none")])
    return doc.Table(
        ["step (when, who)", "where the check sits", "what it refuses",
         "switch", "flavors"], rows, css="timeline",
        caption=["The rule's lineage (\u201cthe same test\u201d: the rule"
                 " above). A flavor is a kernel the project builds from a"
                 " step (base: Debian's 6.1, with mainline's check); each"
                 " step links to its part of ",
                 Href(DISCUSSION, DISCUSSION), "; a ported step, to",
                 " its code diff."])


def debate(analysis, shown, found=None):
    """The positions as blocks: who said what, the worry, the measured
    evidence and what it meant."""
    found = positions() if found is None else found
    rows = []
    for who, pos in found:
        items = evidence(analysis, pos["items"], shown)
        rows.append([
            [Strong(who), ": \u201c", _text(pos["said"]), "\u201d ",
             _doc_link(pos["doc"], "(the argument)")],
            [Em("The worry: "), _text(pos["worry"]), ". ",
             Em("Measured: "), _text(pos["meant"]), "."],
            doc.joined(items, "; ")])
    return doc.Table(["who, and what they said", "what it meant in"
                      " behaviour", "evidence (counts and cases)"], rows,
                     css="debate")


def story_section(analysis, shown, attack_figure=None):
    section = doc.Section("The 2010 story", "story")
    section.add(doc.Para([
        "Every user may create names in ", Code("/tmp"), " (mode 1777:"
        " world-writable; the sticky bit only stops users deleting each"
        " other's files). A root program that writes a predictable name"
        " there follows the link another user planted under that name,"
        " and writes wherever it points."]))
    if attack_figure is not None:
        section.add(attack_figure)
    section.add(doc.Para([
        Strong("The rule"), " (Kees Cook, May 2010): in a directory that is"
        " both sticky and world-writable, a symlink is followed only if"
        " it belongs to the follower (its fsuid, the uid the kernel checks"
        " file access with) or to the directory's owner; otherwise the"
        " follow fails with EACCES. ", Strong("Root is not exempt"),
        ": no capability lets a process follow another user's link"
        " there."]))
    section.add(timeline())
    section.add(doc.Para([
        Strong("The argument"), " was less about the rule than about where"
        " it belongs and whether it is on by default. Each position with"
        " what the project measured; a ", Em("setting"), " ",
        Code("ps<P>-own<O>"), " is ", Code("fs.protected_symlinks"),
        " = P with the flavor's own switch on (O = 1) or off (O = 0)."]))
    section.add(debate(analysis, shown))
    return section
