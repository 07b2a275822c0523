"""Setting labels (`boot`, `ps<P>-own<O>`, `ps<P>-own-`) and their knobs."""

import re

from .flavors import FLAVORS, MAINLINE_KNOB

_LABEL = re.compile(r"^ps([01])-own([01-])$")


def parse(label):
    """(P, O) of a label, O None for `own-`; None for `boot`."""
    if label == "boot":
        return None
    match = _LABEL.match(label)
    if not match:
        raise ValueError("unknown setting label %r" % (label,))
    own = match.group(2)
    return int(match.group(1)), (None if own == "-" else int(own))


def label_problems(flavor, label, knobs):
    """Does a setting's read-back knobs agree with its label?"""
    try:
        parsed = parse(label)
    except ValueError as err:
        return [str(err)]
    if parsed is None:
        return []
    mainline, own = parsed
    spec = FLAVORS[flavor]
    problems = []
    if knobs.get(MAINLINE_KNOB) != mainline:
        problems.append("setting %s: %s = %r" % (label, MAINLINE_KNOB,
                                                 knobs.get(MAINLINE_KNOB)))
    if (own is None) != (spec.knob is None):
        problems.append("setting %s: label does not fit flavor %s"
                        % (label, flavor))
    elif own is not None:
        value = spec.protection_to_value(own)
        if knobs.get(spec.knob) != value:
            problems.append("setting %s: %s = %r, label means %r"
                            % (label, spec.knob, knobs.get(spec.knob), value))
    return problems
