"""Regression mode: compare results with results/expected, or bless them.

Nothing is ignored; the result files hold no timestamps, so the comparison
is deterministic.  Changes are listed per case and field, not dumped.
"""

import json
import os

from .load import LoadError, load, result_path
from .flavors import FLAVOR_ORDER

SHOW_PER_FLAVOR = 25


def flatten(value, prefix=""):
    """{"a.b[0].c": leaf} of a JSON value."""
    if isinstance(value, dict):
        out = {}
        for key in sorted(value):
            out.update(flatten(value[key], "%s.%s" % (prefix, key)
                               if prefix else str(key)))
        return out
    if isinstance(value, list):
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, "%s[%d]" % (prefix, index)))
        if not value:
            out[prefix] = []
        return out
    return {prefix: value}


def field_changes(old, new):
    """["path: old -> new"] between two JSON values."""
    flat_old, flat_new = flatten(old), flatten(new)
    out = []
    for key in sorted(set(flat_old) | set(flat_new)):
        before = flat_old.get(key, "(absent)")
        after = flat_new.get(key, "(absent)")
        if before != after:
            out.append("%s: %s -> %s" % (key or "value", _short(before),
                                         _short(after)))
    return out


def _short(value):
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def compare_files(expected, actual):
    """Change lines between two loaded ResultFiles."""
    changes = []
    sections = sorted((set(expected.data) | set(actual.data)) - {"cases"})
    for section in sections:
        for line in field_changes(expected.data.get(section, {}),
                                  actual.data.get(section, {})):
            changes.append("%s %s" % (section, line))
    for key in sorted(set(expected.cases) | set(actual.cases)):
        name = "case %s %s" % key
        if key not in actual.cases:
            changes.append("%s: removed (was %s)" % (
                name, _outcome(expected.cases[key])))
        elif key not in expected.cases:
            changes.append("%s: new (%s)" % (name,
                                             _outcome(actual.cases[key])))
        else:
            lines = field_changes(expected.cases[key], actual.cases[key])
            if lines:
                changes.append("%s: %s" % (name, "; ".join(lines)))
    return changes


def _outcome(case):
    return "%s atime %s" % ("ok" if case["ret"] == 0 else case["errno"],
                            case.get("atime_changed"))


def flavors_on_either_side(results_dir, expected_dir):
    return _flavors(results_dir, expected_dir)


def _flavors(results_dir, expected_dir):
    names = set()
    for directory in (results_dir, expected_dir):
        if os.path.isdir(directory):
            names |= {n[:-5] for n in os.listdir(directory)
                      if n.endswith(".json") and n[:-5] in FLAVOR_ORDER}
    return [n for n in FLAVOR_ORDER if n in names]


def compare(results_dir, expected_dir):
    """{flavor: [change lines]} for every flavor on either side."""
    report = {}
    for flavor in _flavors(results_dir, expected_dir):
        want = result_path(expected_dir, flavor)
        have = result_path(results_dir, flavor)
        if not os.path.exists(want):
            report[flavor] = ["no expected file %s (run bless)" % want]
            continue
        if not os.path.exists(have):
            report[flavor] = ["%s missing (expected %s exists)"
                              % (have, want)]
            continue
        try:
            changes = compare_files(load(want, flavor), load(have, flavor))
        except LoadError as err:
            changes = [str(err)]
        if changes:
            report[flavor] = changes
    return report


def format_report(report, limit=SHOW_PER_FLAVOR):
    lines = []
    for flavor, changes in report.items():
        lines.append("%s: %d change(s)" % (flavor, len(changes)))
        lines += ["  " + c for c in changes[:limit]]
        if len(changes) > limit:
            lines.append("  ... and %d more" % (len(changes) - limit))
    return "\n".join(lines)


def canonical(data):
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def bless(results_dir, expected_dir):
    """Copy every loadable result file to expected; return the changes."""
    os.makedirs(expected_dir, exist_ok=True)
    report = compare(results_dir, expected_dir)
    blessed = {}
    for flavor in _flavors(results_dir, expected_dir):
        have = result_path(results_dir, flavor)
        if not os.path.exists(have):
            continue
        result = load(have, flavor)     # refuse to bless a broken file
        target = result_path(expected_dir, flavor)
        if not os.path.exists(target):
            report[flavor] = ["new expected file %s" % target]
        with open(target, "w",
                  encoding="utf-8") as stream:
            stream.write(canonical(result.data))
        blessed[flavor] = report.get(flavor, [])
    return blessed
