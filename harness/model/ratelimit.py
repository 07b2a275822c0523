"""The log probes as one ratelimit interval (common/suite/kmsg.c).

printk_ratelimited() keeps one state per call site: from its first call
on it lets RATELIMIT_BURST messages through in an interval of 5 s and
counts the rest; the first call after the interval prints
"<function>: N callbacks suppressed" before its own message. The suite
makes the single probe the first call through the revision's rule in
its boot, runs single, burst and both inside one interval (it fails
otherwise), and after it one more denial, "release".

From the model's prediction of each probe (which of them reach the
rule's message) this module predicts exactly how many messages each
probe gets and the N the release reports; nothing is taken from the
observed counts.
"""

import re

from .interface import RATELIMIT_BURST, own_messages, predict_log
from .cases import LoadError

WINDOW = ("single", "burst", "both")
RELEASE = "release"
REPORT = re.compile(r"^(\w+): (\d+) callbacks suppressed$")


def expected(flavor, records, knobs_of):
    """{kind: messages} for the window's probes, and the release's N."""
    left, calls, want = RATELIMIT_BURST, 0, {}
    for kind in WINDOW:
        record = records.get(kind)
        if record is None:
            continue
        logs = predict_log(flavor, knobs_of(record["setting"])).log
        n = (record.get("denials") or 0) if logs is not None else 0
        want[kind] = min(n, left)
        left -= want[kind]
        calls += n
    return want, calls - (RATELIMIT_BURST - left)


def plan(flavor, knobs_of, own_knob):
    """{probe: messages} the suite's log probes get in a flavor, and for a
    kernel with its own knob (the suite makes both and release only
    there) the release's and 'suppressed', its report's N: the log line
    of the guest's expectations (harness/suite/expect.py)."""
    setting = "ps0-own1" if own_knob else "ps1-own-"
    probes = {"single": {"setting": setting, "denials": 1},
              "burst": {"setting": setting, "denials": 100}}
    if own_knob:
        probes["both"] = {"setting": "ps1-own1", "denials": 1}
    want, missed = expected(flavor, probes, knobs_of)
    if own_knob:
        logs = predict_log(flavor, knobs_of(setting)).log is not None
        want.update(release=int(logs), suppressed=missed)
    return want


def check_ratelimit(flavor, log_records, knobs_of):
    """Problems of the probes' message counts and the release's report.
    knobs_of(setting) gives the knobs a setting read back."""
    records = {r.get("kind"): r for r in log_records}
    if not all(records.get(k, {}).get("setting") for k in WINDOW[:2]):
        return []   # check_log names a missing or broken probe
    try:
        want, missed = expected(flavor, records, knobs_of)
    except LoadError:
        return []   # check_log names the setting without knobs
    if not any(want.values()):
        return []   # no message to limit: the suite makes no release
    problems = []
    for kind, count in want.items():
        record = records[kind]
        got = len(own_messages(record))
        if got != count:
            problems.append("log %s: %d message(s), predicted %d (the %d"
                            " of one ratelimit interval, in probe order)"
                            % (kind, got, count, RATELIMIT_BURST))
        if record.get("suppressed"):
            problems.append("log %s: %r inside the interval: the rule was"
                            " called before the single probe"
                            % (kind, record["suppressed"][0]))
    release = records.get(RELEASE)
    if release is None:
        return problems + ["log: no release record: the ratelimit's report"
                           " of %d suppressed is untested" % missed]
    got = len(own_messages(release))
    if got != 1:
        problems.append("log release: %d message(s), predicted 1 (a new"
                        " interval)" % got)
    reports = release.get("suppressed") or []
    counts = [int(m.group(2)) for m in map(REPORT.match, reports) if m]
    if counts != ([missed] if missed else []) or len(counts) != len(reports):
        problems.append("log release: ratelimit report %r, predicted %s"
                        % (reports, "'<function>: %d callbacks suppressed'"
                           % missed if missed else "none"))
    return problems
