"""Interface model: boot knobs, sysctl files and log text per flavor.

Predictions come from flavors.py (the patches and the brief); the
functions here return human-readable mismatch strings, never raise on
odd records.
"""

import re

from .flavors import (FLAVORS, KNOB_NAMES, MAINLINE_BOOT,
                      expected_boot_knobs)

# Every knob file is proc_dointvec_minmax over [0, 1], mode 0644.
KNOB_RANGE = (0, 1)
KNOB_MODE = 0o644
RATELIMIT_BURST = 10    # DEFAULT_RATELIMIT_BURST of printk_ratelimited()
SUPPRESSED = re.compile(r"^\S+: \d+ callbacks suppressed$")
_INT = re.compile(r"^-?\d+$")


def knob_present(flavor, knob):
    return knob in MAINLINE_BOOT or FLAVORS[flavor].knob == knob


def predict_write(text, before):
    """(ok, errno, value_after) of writing `text` to a [0, 1] knob."""
    body = text.strip()
    if _INT.match(body) and KNOB_RANGE[0] <= int(body) <= KNOB_RANGE[1]:
        return True, "0", int(body)
    return False, "EINVAL", before


def check_facts(flavor, data):
    expected = expected_boot_knobs(FLAVORS[flavor])
    observed = data.get("facts", {}).get("knobs", {})
    problems = []
    for knob in KNOB_NAMES:
        if observed.get(knob) != expected[knob]:
            problems.append("facts: boot %s = %r, predicted %r"
                            % (knob, observed.get(knob), expected[knob]))
    return problems


def _check_write(where, write, before, as_root):
    ok_obs = write.get("errno") == "0" and write.get("ret", -1) >= 0
    if as_root:
        ok, errno, after = predict_write(write.get("input", ""), before)
    else:
        ok, errno, after = False, "EACCES", before
    observed = (ok_obs, write.get("errno"), write.get("value_after"))
    if observed != (ok, errno, after):
        return after, ["%s: write %r -> errno %s value %r, predicted %s"
                       " value %r" % (where, write.get("input"),
                                      write.get("errno"),
                                      write.get("value_after"), errno, after)]
    return after, []


def check_sysctl(flavor, record):
    knob = record.get("knob")
    where = "sysctl %s" % knob
    present = knob_present(flavor, knob)
    if bool(record.get("present")) != present:
        return ["%s: present=%r, predicted %r"
                % (where, record.get("present"), present)]
    if not present:
        return []
    problems = []
    mode = record.get("mode")
    if mode is None or int(str(mode), 8) & 0o7777 != KNOB_MODE:
        problems.append("%s: mode %r, predicted 0644" % (where, mode))
    boot = expected_boot_knobs(FLAVORS[flavor])[knob]
    if record.get("boot_value") != boot:
        problems.append("%s: boot value %r, predicted %r"
                        % (where, record.get("boot_value"), boot))
    value = record.get("boot_value")
    for write in record.get("writes") or []:
        value, found = _check_write(where, write, value, True)
        problems += found
    nonroot = record.get("nonroot_write")
    for write in ([nonroot] if isinstance(nonroot, dict) else nonroot or []):
        value, found = _check_write(where + " (non-root)", write, value,
                                    False)
        problems += found
    return problems


def expected_message(flavor, comm, fsuid):
    text = FLAVORS[flavor].log_text
    return None if text is None else text.format(comm=comm, fsuid=fsuid)


def logs_at_all(flavor):
    spec = FLAVORS[flavor]
    return spec.own is not None and spec.compiled


def check_log(flavor, record):
    where = "log %s" % record.get("kind")
    messages = record.get("messages") or []
    sticky = [m for m in messages if not SUPPRESSED.match(m)]
    problems = []
    wanted = expected_message(flavor, record.get("comm"), record.get("fsuid"))
    if not logs_at_all(flavor) and sticky:
        problems.append("%s: %d message(s), predicted none (no reachable"
                        " own rule; mainline only audits): %r"
                        % (where, len(sticky), sticky[0]))
    for message in sticky:
        if logs_at_all(flavor) and message != wanted:
            problems.append("%s: message %r, predicted %r"
                            % (where, message, wanted))
    received = record.get("received")
    if received != len(sticky):
        problems.append("%s: received=%r but %d sticky message(s) listed"
                        % (where, received, len(sticky)))
    denials = record.get("denials") or 0
    if len(sticky) > min(denials, RATELIMIT_BURST):
        problems.append("%s: %d messages for %d denials, predicted at most"
                        " %d (printk_ratelimited burst)"
                        % (where, len(sticky), denials,
                           min(denials, RATELIMIT_BURST)))
    return problems


def check_interface(result):
    """All interface mismatches of one result file."""
    problems = check_facts(result.flavor, result.data)
    for record in result.data.get("sysctl") or []:
        problems += check_sysctl(result.flavor, record)
    for record in result.data.get("log") or []:
        problems += check_log(result.flavor, record)
    return problems


def _accepted(record):
    return sorted({w.get("input", "").strip()
                   for w in record.get("writes") or []
                   if w.get("errno") == "0"})


def interface_rows(files):
    """Rows of the interface table: one per flavor (static + observed)."""
    rows = []
    for flavor, result in files.items():
        spec = FLAVORS[flavor]
        record = next((r for r in result.data.get("sysctl") or []
                       if r.get("knob") == spec.knob), {})
        logs = [m for r in result.data.get("log") or []
                for m in r.get("messages") or [] if not SUPPRESSED.match(m)]
        rows.append({
            "flavor": flavor,
            "knob": spec.path or "-",
            "present": record.get("present", "-") if spec.knob else "-",
            "mode": record.get("mode", "-"),
            "polarity": spec.polarity,
            "default (static)": spec.boot_default,
            "boot value (observed)": record.get("boot_value", "-"),
            "accepted": " ".join(_accepted(record)) or "-",
            "doc": spec.doc,
            "config": spec.kconfig,
            "log text (static)": spec.log_text or "none (audit only)",
            "log text (observed)": logs[0] if logs else "-",
        })
    return rows
