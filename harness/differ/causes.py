"""Why two flavors' predictions differ: counterfactual steps on Configs.

Starting from one flavor's Config, the attributes are changed one at a
time towards the other flavor's Config; each step carries a cause, and a
cause is blamed for a case when its step changes the model's prediction
for it.  The walk always starts from the flavor that comes first in
FLAVOR_ORDER, so a pair gives the same causes whichever side it names
first.

Every label a group can carry is in CAUSES, with the note the report's
legend prints; a group's name joins several labels with " + ".
"""

from functools import lru_cache
from dataclasses import dataclass, replace

from model.flavors import FLAVOR_ORDER, STAGE_AFTER_MAINLINE, STAGE_LSM_61, STAGE_BEFORE_MAINLINE
from model.rule import ARTIFACT_ATIME, ARTIFACT_ELOOP, OWN, S_IWOTH, predict

DEFAULT_VALUE = "default value"
KNOB_SETTING = "knob setting"
PLACEMENT = "placement LSM vs VFS"
MAINLINE_OFF = "mainline's knob off in this setting"
INTERMEDIATE = "intermediate link"
CONFIG_DEP = "config dependence"
INTERFACE = "interface"
LOG_TEXT = "log text"
RULE_BITS = "rule variant: sticky bit alone"
RULE_ERRNO = "rule variant: errno"
ARTIFACT_ATIME_CAUSE = "porting artifact: atime touched before LSM hook"
ARTIFACT_ELOOP_CAUSE = "porting artifact: ELOOP before LSM hook"
CONTROL_DIFFERS = "control result differs"
PARAMS_DIFFER = "case parameters differ"
UNEXPLAINED = "unexplained"
JOIN = " + "


@dataclass(frozen=True)
class Cause:
    name: str
    kind: str       # design, porting, configuration, setting, run, failure
    note: str


CAUSES = {c.name: c for c in (
    Cause(DEFAULT_VALUE, "design",
          "the knobs' boot values differ (setting `boot`, or each side at"
          " its own default): one rule"
          " is on by default, the other off (for instance unless built"
          " with its Kconfig default set)"),
    Cause(KNOB_SETTING, "setting",
          "the knobs in force differ in this joined setting"),
    Cause(PLACEMENT, "design",
          "where the revision's rule runs in pick_link() relative to"
          " mainline's may_follow_link() (and to the other revision's"
          " rule): where two rules would refuse, it decides which one"
          " refuses, and so what is logged"),
    Cause(MAINLINE_OFF, "setting",
          "against mainline (base): a trailing link that the revision"
          " refuses and mainline would refuse too, but"
          " fs.protected_symlinks is 0 in this setting"),
    Cause(INTERMEDIATE, "design",
          "against mainline (base): the link is intermediate (a directory"
          " component, or inside a link's body); the revisions check every"
          " link, mainline's may_follow_link() only the trailing one"),
    Cause(CONFIG_DEP, "configuration",
          "the rule is compiled out: an LSM hook needs CONFIG_SECURITY=y"
          " (revision.ini `needs`); without it the knob exists, accepts"
          " writes and does nothing"),
    Cause(INTERFACE, "design",
          "knob name, polarity, mode, accepted inputs, documentation or"
          " Kconfig differ"),
    Cause(LOG_TEXT, "design",
          "the two rules print different messages (mainline prints none)"),
    Cause(RULE_BITS, "design",
          "one rule judges links in every sticky directory (OWLSM, 2001:"
          " revision.ini directory_bits = sticky), the other only in"
          " sticky world-writable ones (the 2010 rule): they disagree in"
          " a directory such as 1755 or 1770"),
    Cause(RULE_ERRNO, "design",
          "the two rules refuse with different errnos (revision.ini"
          " errno: OWLSM's EPERM, the 2010 rule's EACCES)"),
    Cause(ARTIFACT_ATIME_CAUSE, "porting",
          "6.1 calls security_inode_follow_link() after touch_atime(), so a"
          " follow the hook refuses still updates the link's atime; in 2010"
          " the hook ran before"),
    Cause(ARTIFACT_ELOOP_CAUSE, "porting",
          "6.1 tests nosymfollow / RESOLVE_NO_SYMLINKS before calling"
          " security_inode_follow_link(), so the hook answers ELOOP where a"
          " rule that runs before that test answers EACCES; in 2010 the hook"
          " ran before"),
    Cause(CONTROL_DIFFERS, "run",
          "the same operation on the target, without any link, gave"
          " different results in the two kernels (observed), which no"
          " sticky rule explains; the model predicts the control from"
          " modes, owners and ids, so `check` reports a failed control"
          " self-check on at least one side"),
    Cause(PARAMS_DIFFER, "run",
          "the two records of this case id carry different parameters"
          " (ids read back, links, searched directories)"),
    Cause(UNEXPLAINED, "failure",
          "the model cannot account for the difference: a kernel bug, a"
          " porting bug or a gap in the model; must be zero"),
)}

ARTIFACT_CAUSES = {ARTIFACT_ATIME: ARTIFACT_ATIME_CAUSE,
                   ARTIFACT_ELOOP: ARTIFACT_ELOOP_CAUSE}

# Placeholder labels of steps that are named once their effect is known.
_STEP_ARTIFACT = "(stage: LSM 2010 vs 6.1)"
_STEP_RULE = "(own rule present vs absent)"

_STAGES = (STAGE_LSM_61, STAGE_AFTER_MAINLINE, STAGE_BEFORE_MAINLINE)


def parts(group_name):
    """The cause labels of a group name ("a + b" -> ["a", "b"])."""
    return group_name.split(JOIN)


def canonical_first(flavor_a, flavor_b):
    """True when flavor_a is where the attribution walk starts."""
    def rank(name):
        return (FLAVOR_ORDER.index(name) if name in FLAVOR_ORDER
                else len(FLAVOR_ORDER), name)
    return rank(flavor_a) <= rank(flavor_b)


def _stage_steps(current, target):
    steps = []
    if current.stage is None or target.stage is None:
        return steps
    here, there = _STAGES.index(current.stage), _STAGES.index(target.stage)
    step = 1 if there > here else -1
    while here != there:
        nxt = here + step
        label = _STEP_ARTIFACT if {here, nxt} == {0, 1} else PLACEMENT
        current = replace(current, stage=_STAGES[nxt])
        steps.append((label, current))
        here = nxt
    return steps


@lru_cache(maxsize=None)
def steps(config_a, config_b, boot):
    """((label, config), ...) leading from config_a to config_b; the
    labels _STEP_ARTIFACT and _STEP_RULE are named by attribute()."""
    knob_label = DEFAULT_VALUE if boot else KNOB_SETTING
    out = []
    current = config_a
    if (current.own is None) != (config_b.own is None):
        current = replace(current, own=config_b.own, own_on=config_b.own_on,
                          compiled=config_b.compiled, stage=config_b.stage,
                          bits=config_b.bits, errno=config_b.errno)
        out.append((_STEP_RULE, current))
    if current.compiled != config_b.compiled:
        current = replace(current, compiled=config_b.compiled)
        out.append((CONFIG_DEP, current))
    if current.own_on != config_b.own_on:
        current = replace(current, own_on=config_b.own_on)
        out.append((knob_label, current))
    for label, nxt in _stage_steps(current, config_b):
        current = nxt
        out.append((label, current))
    if current.bits != config_b.bits:
        current = replace(current, bits=config_b.bits)
        out.append((RULE_BITS, current))
    if current.errno != config_b.errno:
        current = replace(current, errno=config_b.errno)
        out.append((RULE_ERRNO, current))
    if current.own != config_b.own:
        current = replace(current, own=config_b.own)
        out.append((LOG_TEXT, current))
    if current.mainline != config_b.mainline:
        current = replace(current, mainline=config_b.mainline)
        out.append((knob_label, current))
    if current != config_b:
        raise AssertionError("cause steps missed %r -> %r"
                             % (current, config_b))
    return tuple(out)


def attribute(case_a, config_a, case_b, config_b, boot, predict=predict):
    """(outcome causes, verdict causes) for one joined case.

    Outcome causes changed ret/errno/atime; verdict causes changed only
    the deciding rule or its log message.  Call it with the side that
    canonical_first() names as A, so that a pair gives the same labels
    whichever side it names first.
    """
    previous = predict(case_a, config_a)
    outcome_causes, verdict_causes = [], []
    for label, config in steps(config_a, config_b, boot):
        current = predict(case_a, config)
        if _changes(previous, current):
            if label == _STEP_ARTIFACT:
                label = _artifact_label(previous, current)
            elif label == _STEP_RULE:
                label = _rule_label(case_a, config.mainline, previous,
                                    current)
            _blame(previous, current, label, outcome_causes,
                   verdict_causes)
        previous = current
    # The walk above used A's record; B's own record may carry other
    # params, which no sticky rule explains.
    last = predict(case_b, config_b)
    if _changes(previous, last):
        label = (PARAMS_DIFFER if case_a["params"] != case_b["params"]
                 else UNEXPLAINED)
        _blame(previous, last, label, outcome_causes, verdict_causes)
    # The predictions never read the recorded controls; two records whose
    # controls differ are a difference of the runs (observed).
    if _recorded_control(case_a) != _recorded_control(case_b):
        _add(outcome_causes, CONTROL_DIFFERS)
    return outcome_causes, verdict_causes


def _recorded_control(case):
    return case.get("control_ret"), case.get("control_errno")


def _changes(before, after):
    return after.verdict() != before.verdict()


def _artifact_label(before, after):
    """Which porting artifact the LSM 6.1 <-> 2010 step produced; a change
    the model names no single artifact for is not guessed at."""
    names = set(before.artifacts) | set(after.artifacts)
    labels = [ARTIFACT_CAUSES[n] for n in names if n in ARTIFACT_CAUSES]
    return labels[0] if len(labels) == 1 else UNEXPLAINED


def _rule_label(case, mainline_on, before, after):
    """Name the step that adds or removes the revision's own rule (one
    side is base): it decided at an intermediate link, at a trailing link
    in a sticky directory that is not world-writable (which mainline's
    rule never judges: the rule asks for the sticky bit alone), at a
    trailing link while mainline's knob is off, or at a trailing link
    that mainline refuses too (then only which rule refuses differs)."""
    own = next((p for p in (before, after) if p.decider == OWN), None)
    links = case["params"].get("links") or []
    if own is None or own.link is None or own.link >= len(links):
        return UNEXPLAINED
    if links[own.link]["kind"] == "intermediate":
        return INTERMEDIATE
    if not int(links[own.link]["dir_mode"], 8) & S_IWOTH:
        # a sticky directory that is not world-writable: only a rule that
        # asks for the sticky bit alone (OWLSM) refuses there, mainline's
        # may_follow_link() never
        return RULE_BITS
    return PLACEMENT if mainline_on else MAINLINE_OFF


def _blame(before, after, label, outcome_causes, verdict_causes):
    if after.outcome() != before.outcome():
        _add(outcome_causes, label)
    elif after.verdict() != before.verdict():
        _add(verdict_causes, label)


def _add(items, label):
    if label not in items:
        items.append(label)
