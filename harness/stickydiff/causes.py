"""Why two flavors' predictions differ: counterfactual steps on Configs.

Starting from flavor A's Config, the attributes are changed one at a time
towards flavor B's Config; each step carries a cause label, and a cause is
blamed for a case when its step changes the model's prediction for it.
"""

from dataclasses import replace

from .flavors import STAGE_LSM_2010, STAGE_LSM_61, STAGE_VFS
from .model import predict

DEFAULT_VALUE = "default value"
KNOB_SETTING = "knob setting"
PLACEMENT = "placement LSM vs VFS"
WHICH_LINKS = "which links are checked"
CONFIG_DEP = "config dependence"
INTERFACE = "interface"
LOG_TEXT = "log text"
ARTIFACT = "porting artifact"
UNEXPLAINED = "unexplained"
CONTROL_DIFFERS = "control result or params differ"

CAUSE_NOTES = {
    DEFAULT_VALUE: "the knobs' boot values differ",
    KNOB_SETTING: "the knobs in force differ",
    PLACEMENT: "own rule before (VFS) or after (LSM) mainline's check;"
               " decides which rule denies and so what is logged",
    WHICH_LINKS: "the set of links the sticky rule is applied to differs"
                 " (trailing only, every link, none)",
    CONFIG_DEP: "the LSM hook is compiled out with CONFIG_SECURITY=n",
    LOG_TEXT: "v1 and v3 print different messages",
    ARTIFACT: "6.1 calls security_inode_follow_link() after the ELOOP"
              " check and touch_atime(); in 2010 it ran before",
}

_STAGES = (STAGE_LSM_61, STAGE_LSM_2010, STAGE_VFS)


def _stage_steps(current, target):
    steps = []
    if current.stage is None or target.stage is None:
        return steps
    here, there = _STAGES.index(current.stage), _STAGES.index(target.stage)
    step = 1 if there > here else -1
    while here != there:
        nxt = here + step
        label = ARTIFACT if {here, nxt} == {0, 1} else PLACEMENT
        current = replace(current, stage=_STAGES[nxt])
        steps.append((label, current))
        here = nxt
    return steps


def steps(config_a, config_b, boot):
    """[(cause, config)] leading from config_a to config_b."""
    knob_label = DEFAULT_VALUE if boot else KNOB_SETTING
    out = []
    current = config_a
    if (current.own is None) != (config_b.own is None):
        current = replace(current, own=config_b.own, own_on=config_b.own_on,
                          compiled=config_b.compiled, stage=config_b.stage)
        out.append((WHICH_LINKS, current))
    if current.compiled != config_b.compiled:
        current = replace(current, compiled=config_b.compiled)
        out.append((CONFIG_DEP, current))
    if current.own_on != config_b.own_on:
        current = replace(current, own_on=config_b.own_on)
        out.append((knob_label, current))
    for label, nxt in _stage_steps(current, config_b):
        current = nxt
        out.append((label, current))
    if current.own != config_b.own:
        current = replace(current, own=config_b.own)
        out.append((LOG_TEXT, current))
    if current.mainline != config_b.mainline:
        current = replace(current, mainline=config_b.mainline)
        out.append((knob_label, current))
    if current != config_b:
        raise AssertionError("cause steps missed %r -> %r"
                             % (current, config_b))
    return out


def attribute(case_a, config_a, case_b, config_b, boot):
    """(outcome causes, verdict causes) for one joined case.

    Outcome causes changed ret/errno/atime; verdict causes changed only
    the deciding rule or its log message.
    """
    previous = predict(case_a, config_a)
    outcome_causes, verdict_causes = [], []
    for label, config in steps(config_a, config_b, boot):
        current = predict(case_a, config)
        if label == ARTIFACT:
            label = _artifact_label(previous, current)
        _blame(previous, current, label, outcome_causes, verdict_causes)
        previous = current
    # The walk above used A's record; B's own record may carry another
    # control result or other params, which no sticky rule explains.
    _blame(previous, predict(case_b, config_b), CONTROL_DIFFERS,
           outcome_causes, verdict_causes)
    return outcome_causes, verdict_causes


def _artifact_label(before, after):
    """Name the artifact: "porting artifact (ELOOP before LSM hook)"."""
    names = before.artifacts or after.artifacts
    if not names:
        return ARTIFACT
    details = [n.split(": ", 1)[-1] for n in names]
    return "%s (%s)" % (ARTIFACT, ", ".join(details))


def _blame(before, after, label, outcome_causes, verdict_causes):
    if after.outcome() != before.outcome():
        _add(outcome_causes, label)
    elif after.verdict() != before.verdict():
        _add(verdict_causes, label)


def _add(items, label):
    if label not in items:
        items.append(label)
