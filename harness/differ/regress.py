"""Regression mode: compare results with results/expected, or bless them.

Nothing is ignored; the result files hold no timestamps, so the comparison
is deterministic.  Changes are listed per case, not dumped.

An expected file keeps every section of a result file but the cases' params
(they are fixed by the suite's case ids): each case id has one line giving,
per setting, "<errno or ok> a<atime changed: 1, 0 or -> c:<control>".
That keeps results/expected small enough to commit and to read in a diff.
"""

import json
import os

from .load import LoadError, load, result_path
from model.flavors import DEFAULT_FLAVORS, FLAVOR_ORDER
from model.cases import case_outcome

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




def expected_form(data):
    """A result file's data in the committed, compact form."""
    out = {k: v for k, v in data.items() if k != "cases"}
    cases = {}
    for case in data["cases"]:
        cases.setdefault(case["id"], {})[case["setting"]] = \
            case_outcome(case)
    out["cases"] = cases
    return out


def _expected_cases(data):
    """(setting, id) -> outcome string, from either form."""
    cases = data.get("cases", {})
    if isinstance(cases, list):
        return {(c["setting"], c["id"]): case_outcome(c) for c in cases}
    return {(setting, cid): text for cid, per in cases.items()
            for setting, text in per.items()}


def compare_files(expected, actual):
    """Change lines between two loaded result data dicts."""
    changes = []
    sections = sorted((set(expected) | set(actual)) - {"cases"})
    for section in sections:
        for line in field_changes(expected.get(section, {}),
                                  actual.get(section, {})):
            changes.append("%s %s" % (section, line))
    want, have = _expected_cases(expected), _expected_cases(actual)
    for key in sorted(set(want) | set(have)):
        name = "case %s %s" % key
        if key not in have:
            changes.append("%s: removed (was %s)" % (name, want[key]))
        elif key not in want:
            changes.append("%s: new (%s)" % (name, have[key]))
        elif want[key] != have[key]:
            changes.append("%s: %s -> %s" % (name, want[key], have[key]))
    return changes


def flavors_on_either_side(results_dir, expected_dir):
    return _flavors(results_dir, expected_dir)


def _flavors(results_dir, expected_dir):
    names = set()
    for directory in (results_dir, expected_dir):
        if os.path.isdir(directory):
            names |= {n[:-5] for n in os.listdir(directory)
                      if n.endswith(".json") and n[:-5] in FLAVOR_ORDER}
    return [n for n in FLAVOR_ORDER if n in names]


def compare(results_dir, expected_dir, loaded=None):
    """{flavor: [change lines]} for every flavor on either side.
    `loaded`: {flavor: ResultFile} of `results_dir` already loaded (the
    report's analysis), read instead of loading their files again."""
    loaded = loaded or {}
    report = {}
    for flavor in _flavors(results_dir, expected_dir):
        want = result_path(expected_dir, flavor)
        have = result_path(results_dir, flavor)
        if not os.path.exists(want):
            report[flavor] = ["no expected file %s (run bless)" % want]
            continue
        if not os.path.exists(have):
            if flavor in DEFAULT_FLAVORS:
                report[flavor] = ["%s missing (expected %s exists)"
                                  % (have, want)]
            continue        # an extra flavor not run: not_run() says so
        try:
            result = loaded.get(flavor) or load(have, flavor)
            changes = compare_files(load_expected(want, flavor), result.data)
        except LoadError as err:
            changes = [str(err)]
        if changes:
            report[flavor] = changes
    return report


def not_run(results_dir, expected_dir):
    """The extra flavors (`make` runs only the default ones) with an
    expected file and no result: compare() leaves them out."""
    return [f for f in _flavors(results_dir, expected_dir)
            if f not in DEFAULT_FLAVORS
            and os.path.exists(result_path(expected_dir, f))
            and not os.path.exists(result_path(results_dir, f))]


def format_report(report, limit=SHOW_PER_FLAVOR):
    lines = []
    for flavor, changes in report.items():
        lines.append("%s: %d change(s)" % (flavor, len(changes)))
        lines += ["  " + c for c in changes[:limit]]
        if len(changes) > limit:
            lines.append("  ... and %d more" % (len(changes) - limit))
    return "\n".join(lines)


def canonical(data):
    """Sorted JSON with one line per case id, so diffs stay readable."""
    rest = {k: v for k, v in data.items() if k != "cases"}
    head = json.dumps(rest, indent=1, sort_keys=True)
    cases = data.get("cases", {})
    rows = ",\n".join("  %s: %s" % (json.dumps(cid),
                                    json.dumps(cases[cid], sort_keys=True))
                      for cid in sorted(cases))
    body = "{\n%s\n }" % rows if rows else "{}"
    if rest:
        return '%s,\n "cases": %s\n}\n' % (head[:-2], body)
    return '{\n "cases": %s\n}\n' % body


def load_expected(path, flavor):
    """An expected file: JSON with the sections of a result file."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except FileNotFoundError:
        raise LoadError("%s: missing" % path) from None
    except ValueError as err:
        raise LoadError("%s: not valid JSON (truncated?): %s" % (path, err)) \
            from None
    if not isinstance(data, dict) or data.get("flavor") != flavor or \
            not isinstance(data.get("cases"), dict):
        raise LoadError("%s: not an expected file for flavor %s (run bless)"
                        % (path, flavor))
    return data


def write_atomically(path, text):
    """Write to a temporary name beside `path`, fsync, rename: an
    interrupted or failed write leaves the previous file whole."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    except OSError as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise OSError(err.errno, err.strerror, path) from None


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
        write_atomically(target, canonical(expected_form(result.data)))
        blessed[flavor] = report.get(flavor, [])
    return blessed


def _headings(text):
    return [line for line in text.splitlines() if line.startswith("#")]


def bless_file(fresh, committed):
    """Copy a generated Markdown section (build/results/beyond.md) over
    its committed copy; lines saying what changed."""
    with open(fresh, encoding="utf-8") as stream:
        new = stream.read()
    try:
        with open(committed, encoding="utf-8") as stream:
            old = stream.read()
    except FileNotFoundError:
        old = None
    if old == new:
        return ["blessed %s: unchanged" % committed]
    write_atomically(committed, new)
    if old is None:
        return ["blessed %s: new, from %s" % (committed, fresh)]
    old_lines, new_lines = old.splitlines(), new.splitlines()
    gone = [h for h in _headings(old) if h not in _headings(new)]
    added = [h for h in _headings(new) if h not in _headings(old)]
    out = ["blessed %s from %s: %d line(s) removed, %d added"
           % (committed, fresh, len(set(old_lines) - set(new_lines)),
              len(set(new_lines) - set(old_lines)))]
    out += ["  WARNING: section dropped: %s (its run was not repeated)" % h
            for h in gone]
    out += ["  section added: %s" % h for h in added]
    return out


def bless_dir(fresh_dir, committed_dir, suffix):
    """bless_file() for each file of `fresh_dir` ending in `suffix` (the
    range-diffs of build/range-diff into results/range-diff)."""
    try:
        names = sorted(n for n in os.listdir(fresh_dir) if n.endswith(suffix))
    except OSError:
        return []
    if names:
        os.makedirs(committed_dir, exist_ok=True)
    out = []
    for name in names:
        out += bless_file(os.path.join(fresh_dir, name),
                          os.path.join(committed_dir, name))
    stale = sorted(set(n for n in os.listdir(committed_dir)
                       if n.endswith(suffix)) - set(names)) if names else []
    out += ["  WARNING: %s has no fresh copy in %s: remove it if its step"
            " is gone" % (os.path.join(committed_dir, n), fresh_dir)
            for n in stale]
    return out
