"""Interface model: boot knobs, sysctl files and log text per flavor.

Predictions come from flavors.py (the patches and the brief); the
functions here return human-readable mismatch strings, never raise on
odd records.
"""

import json
import re

from .flavors import (FLAVORS, KNOB_NAMES, MAINLINE_BOOT, UIDS,
                      expected_boot_knobs)
from .cases import LoadError
from .rule import MAINLINE, config_for, predict

# Every knob file is proc_dointvec_minmax over [0, 1], mode 0644.
KNOB_RANGE = (0, 1)
KNOB_MODE = 0o644
RATELIMIT_BURST = 10    # DEFAULT_RATELIMIT_BURST of printk_ratelimited()
_INT = re.compile(r"^-?\d+$")
_REPEAT = re.compile(r"^(.)x(\d+)$")
TMPBUFLEN = 22          # kernel/sysctl.c, longest number proc_get_long reads


def knob_present(flavor, knob):
    return knob in MAINLINE_BOOT or FLAVORS[flavor].knob == knob


def expand_input(label):
    """The bytes the suite writes for an input label ("1x4096" = 4096 1s)."""
    match = _REPEAT.match(label)
    if match:
        return match.group(1) * int(match.group(2))
    return label


def predict_write(label, before):
    """(ok, errno, value_after) of writing to a [0, 1] knob, as 6.1's
    proc_dointvec_minmax does: an empty write succeeds and changes
    nothing; a number of 21 or more characters, a non-number or a value
    out of range is EINVAL and leaves the value alone."""
    text = expand_input(label)
    if text == "":
        return True, "0", before
    body = text.strip()
    if (_INT.match(body) and len(body) < TMPBUFLEN - 1
            and KNOB_RANGE[0] <= int(body) <= KNOB_RANGE[1]):
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
        return ["%s: write %r -> errno %s value %r, predicted %s value %r"
                % (where, write.get("input"), write.get("errno"),
                   write.get("value_after"), errno, after)]
    return []


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
    # The suite restores the boot value after every write.
    for write in record.get("writes") or []:
        problems += _check_write(where, write, boot, True)
    nonroot = record.get("nonroot_write")
    for write in ([nonroot] if isinstance(nonroot, dict) else nonroot or []):
        problems += _check_write(where + " (non-root)", write, boot, False)
    return problems


def expected_message(flavor, comm, fsuid, owner):
    """The own rule's message from its revision's log_text, whose fields
    are {comm}, {fsuid} and {owner} (the link's owner)."""
    text = FLAVORS[flavor].log_text
    return None if text is None else text.format(comm=comm, fsuid=fsuid,
                                                 owner=owner)


# The suite's log probe (common/suite/kmsg.c): B's fsuid opens O_RDONLY a trailing
# link owned by A in a root-owned 1777 directory; the target (0666) is
# readable. Its real uid is 1002 and its euid 0, so a message that printed
# either instead of the fsuid (or the follower instead of the link's owner)
# is told apart.
LOG_PROBE = {
    "id": "log-probe", "control_ret": 0, "control_errno": "0",
    "params": {"dir_mode": "1777", "dir_owner": "root", "link_owner": "A",
               "target": "file-root", "follower": "B", "fsuid": 1001,
               "fsgid": 1001, "ruid": 1002, "euid": 0,
               "position": "trailing", "op": "open_rdonly",
               "mount": "strictatime", "follows": True, "search": [],
               "links": [{"dir_mode": "1777", "dir_owner": "root",
                          "dir_gid": 0, "owner": "A", "kind": "trailing"}]},
}


# The task name each log probe runs under (common/suite/kmsg.c).
LOG_COMMS = {"single": "stickyprobe", "burst": "stickyburst",
             "both": "stickyboth", "release": "stickyrelease"}


def own_messages(record):
    """A log record's messages that name its probe's comm."""
    comm = LOG_COMMS.get(record.get("kind"), "stickyprobe")
    return [m for m in record.get("messages") or [] if comm in m]


# What mainline's audit_log_path_denied() must write for the probe: each id
# where it belongs (uid 1002, euid 0, fsuid 1001).
AUDIT_FIELDS = ("type=1702 ", "op=follow_link", " uid=1002 ", " euid=0 ",
                " fsuid=1001 ", " res=0")


def _check_audit(where, record, prediction, comm):
    """Mainline's refusal writes an AUDIT_ANOM_LINK record (kauditd prints
    it: the guest boots with audit=1 and holds an audit rule); the
    revisions' own rules write none."""
    audit = record.get("audit_record")
    if prediction.decider == MAINLINE:
        want = AUDIT_FIELDS + ('comm="%s"' % comm,)
        if not audit:
            return ["%s: no AUDIT_ANOM_LINK record, predicted one (denied"
                    " by %s)" % (where, MAINLINE)]
        missing = [f.strip() for f in want if f not in audit]
        if missing:
            return ["%s: audit record %r lacks %s"
                    % (where, audit, ", ".join(missing))]
        return []
    if audit:
        return ["%s: audit record %r, predicted none (decided by %s)"
                % (where, audit, prediction.decider)]
    return []


def predict_log(flavor, knobs):
    """The model's prediction of the log probe under these knobs."""
    return predict(LOG_PROBE, config_for(flavor, knobs))


def check_log(flavor, record, knobs):
    """A log record against the probe's prediction under its setting."""
    where = "log %s %s" % (record.get("kind"), record.get("setting"))
    prediction = predict_log(flavor, knobs)
    problems = []
    observed = (record.get("ret"), record.get("errno"))
    if observed != (prediction.ret, prediction.errno):
        problems.append("%s: probe gave %s/%s, predicted %s/%s by %s"
                        % (where, observed[0], observed[1], prediction.ret,
                           prediction.errno, prediction.decider))
    comm = LOG_COMMS.get(record.get("kind"), "stickyprobe")
    ours = own_messages(record)
    denials = record.get("denials") or 0
    problems += _check_audit(where, record, prediction, comm)
    if prediction.log is None:
        if ours:
            problems.append("%s: %d message(s), predicted none (denied by"
                            " %s, which only audits): %r"
                            % (where, len(ours), prediction.decider, ours[0]))
        return problems
    wanted = expected_message(flavor, comm, LOG_PROBE["params"]["fsuid"],
                              UIDS[LOG_PROBE["params"]["link_owner"]])
    for message in ours:
        if message != wanted:
            problems.append("%s: message %r, predicted %r"
                            % (where, message, wanted))
            break
    # printk_ratelimited: at most 10 per 5 s per call site; the single
    # probe may already have used one of the burst's ten.
    low = 1 if denials else 0
    high = min(denials, RATELIMIT_BURST)
    if not low <= len(ours) <= high:
        problems.append("%s: %d message(s) for %d denial(s), predicted"
                        " %d..%d (printk_ratelimited)"
                        % (where, len(ours), denials, low, high))
    if record.get("received") != len(ours):
        problems.append("%s: received=%r but %d message(s) name %s"
                        % (where, record.get("received"), len(ours), comm))
    return problems


def check_interface(result):
    """All interface mismatches of one result file."""
    problems = check_facts(result.flavor, result.data)
    for record in result.data.get("sysctl") or []:
        problems += check_sysctl(result.flavor, record)
    for record in result.data.get("log") or []:
        try:
            knobs = result.knobs(record.get("setting") or "boot")
        except LoadError as err:
            problems.append(str(err))
            continue
        problems += check_log(result.flavor, record, knobs)
    return problems


def _accepted(record):
    return sorted({json.dumps(w.get("input", ""))
                   for w in record.get("writes") or []
                   if w.get("errno") == "0"})


def interface_rows(files):
    """Rows of the interface table: one per flavor (static + observed)."""
    rows = []
    for result in files.values():
        flavor = result.flavor
        spec = FLAVORS[flavor]
        record = next((r for r in result.data.get("sysctl") or []
                       if r.get("knob") == spec.knob), {})
        logs = [m for r in result.data.get("log") or []
                for m in r.get("messages") or [] if "symlink following" in m]
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
