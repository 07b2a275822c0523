"""Hand-made result files for the tests (docs/result-format.md shapes).

The observations in TRUTH are written by hand from the rules in the brief
and the patches, not produced by the model, so the model tests compare the
model with an independent statement of what each kernel should do.
"""

import copy
import json
import os
import sys

HARNESS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)


def every_pair(files, checks=None):
    """[PairDiff], [JoinError text] of every pair of `files`, one after
    the other in one process: what the analysis, its work shared with
    the report's child (differ/tasks.py), must give."""
    from differ.diff import diff_or_error, diffs_and_errors, present_pairs
    return diffs_and_errors([diff_or_error(pair, files, checks)
                             for pair in present_pairs(files)])


UID = {"root": 0, "A": 1000, "B": 1001}
FLAVORS = ("base", "v1", "v1-nosec", "v2", "v3", "v3y", "yama", "grsec",
           "owlsm", "v1-hook61")
OWN_SETTINGS = ("boot", "ps0-own0", "ps0-own1", "ps1-own0", "ps1-own1")
BASE_SETTINGS = ("boot", "ps0-own-", "ps1-own-")

# Knobs per flavor and setting (what the suite reads back): boot values of
# protected_symlinks, weak-sticky-symlinks (v1: 0 protects),
# protected-sticky-symlinks, kernel/yama/protected_sticky_symlinks,
# kernel/grsecurity/linking_restrictions and
# kernel/owlsm/follow_link_restrictions.
BOOT_KNOBS = ("protected_symlinks", "weak_sticky_symlinks",
              "protected_sticky_symlinks",
              "kernel_yama_protected_sticky_symlinks",
              "kernel_grsecurity_linking_restrictions",
              "kernel_owlsm_follow_link_restrictions")


def _boot():
    """{flavor: boot values of BOOT_KNOBS} for the suite's flavors, from
    flavors.ini (`sets`, `boot_knobs`)."""
    import flavors as flv
    out = {}
    for f in flv.flavor_set("suite"):
        values = [f.boot_knobs.get(k, "absent") for k in BOOT_KNOBS]
        out[f.name] = tuple(None if v == "absent" else int(v)
                            for v in values)
    return out


BOOT = _boot()


# A revision.ini with every required key; {hook} and {extra} to fill.
REVISION_INI = '''[revision]
describe = x
hook = {hook}
call = f(
links = every
needs =
knob_path = /proc/sys/fs/x
protect = 1
polarity = protected
doc = d
log_text =
{extra}'''


def predict_id(cid, flavor, setting, **ids):
    """The model's outcome for a suite case id (its parameters come from the
    id, `ids` overrides some), in a flavor and setting of the suite."""
    from model import cases as caseids
    from model.rule import config_for, predict
    from suite import expect
    params = dict(caseids.params_of(cid))
    params.update(ids)
    setting_knobs = dict(expect.settings(flavor))[setting]
    return predict({'params': params}, config_for(flavor, setting_knobs))


def knobs(flavor, setting):
    if setting == "boot":
        ps, weak, prot, yama, grsec, owlsm = BOOT[flavor]
    else:
        ps = int(setting[2])
        own = setting[-1]
        weak, prot, yama, grsec, owlsm = BOOT[flavor][1:]
        if own != "-":
            if weak is not None:
                weak = 1 - int(own)
            if prot is not None:
                prot = int(own)
            if yama is not None:
                yama = int(own)
            if grsec is not None:
                grsec = int(own)
            if owlsm is not None:
                owlsm = int(own)
    hard = 1 if setting == "boot" else 0
    return {"protected_symlinks": ps, "protected_hardlinks": hard,
            "protected_fifos": 0, "protected_regular": 0,
            "weak_sticky_symlinks": weak, "protected_sticky_symlinks": prot,
            "kernel_yama_protected_sticky_symlinks": yama,
            "kernel_grsecurity_linking_restrictions": grsec,
            "kernel_owlsm_follow_link_restrictions": owlsm}


def link(dir_mode="1777", dir_owner="root", owner="A", kind="trailing"):
    return {"dir_mode": dir_mode, "dir_owner": dir_owner,
            "dir_gid": UID[dir_owner], "owner": owner, "kind": kind}


def case(dir_mode="1777", dir_owner="root", link_owner="A", follower="B",
         position="trailing", op="open_rdonly", mount="strictatime",
         target="file-root", links=None, search=None, follows=True,
         control=(0, "0")):
    """A case record without the observation (ret/errno/atime)."""
    if links is None:
        links = [link(dir_mode, dir_owner, link_owner,
                      "trailing" if position == "trailing"
                      else "intermediate")] if follows else []
    pos = "trail" if position == "trailing" else "inter"
    cid = "m/d%s-%s/l%s/t%s/f%s/%s/%s" % (dir_mode, dir_owner, link_owner,
                                          target, follower, pos, op)
    if mount != "strictatime":
        cid += "/" + mount
    uid = UID[follower]
    return {
        "id": cid, "group": "matrix",
        "params": {"dir_mode": dir_mode, "dir_owner": dir_owner,
                   "link_owner": link_owner, "target": target,
                   "follower": follower, "ruid": uid, "euid": uid,
                   "fsuid": uid, "fsgid": uid, "position": position,
                   "op": op, "mount": mount, "follows": follows,
                   "links": links, "search": search or []},
        "control_ret": control[0] if control else None,
        "control_errno": control[1] if control else None,
    }


# Scenarios: name -> case record (no observation).
SCENARIOS = {
    "core-B": case(follower="B"),
    "core-A": case(follower="A"),
    "core-root": case(follower="root"),
    "dirown-B": case(dir_owner="A", follower="B"),
    "nosticky-B": case(dir_mode="0777", follower="B"),
    "nosticky-A": case(dir_mode="0777", follower="A"),
    "nosticky-root": case(dir_mode="0777", follower="root"),
    "inter-B": case(position="intermediate", target="dir"),
    "nsf-trail-B": case(mount="nosymfollow"),
    "nsf-inter-B": case(position="intermediate", mount="nosymfollow",
                        target="dir"),
    "unlink-B": case(op="unlink", follows=False, control=None),
    "search-B": case(dir_mode="1770", dir_owner="A",
                     search=[{"mode": "1770", "owner": "A", "gid": 1000}]),
    "ctrl-A": case(follower="A", target="file-root-0600",
                   control=(-1, "EACCES")),
}

# Observations written by hand.  Token: errno or "ok", then the link's
# atime: "+" touched, "-" kept, "." not measured.  Own-knob flavors list
# boot, ps0-own0, ps0-own1, ps1-own0, ps1-own1; base lists boot, ps0, ps1.
ALLOW = {f: "ok+ " * (3 if f == "base" else 5) for f in FLAVORS}
# v1-hook61 is v1 without its preparatory patch: its hook runs where 6.1
# calls it, after touch_atime() and the nosymfollow test.
TRUTH = {
    "core-B": {"base": "E- ok+ E-", "v1": "E- ok+ E- E- E-",
               "v1-nosec": "E- ok+ ok+ E- E-", "v3": "E- ok+ E- E- E-",
               "v3y": "E- ok+ E- E- E-", "v1-hook61": "E- ok+ E+ E- E-",
               "owlsm": "E- ok+ P- E- E-"},
    "core-A": ALLOW,
    "dirown-B": ALLOW,
    "nosticky-B": ALLOW,
    "nosticky-A": ALLOW,
    "nosticky-root": ALLOW,
    "inter-B": {"base": "ok+ ok+ ok+", "v1": "E- ok+ E- ok+ E-",
                "v1-nosec": "ok+ ok+ ok+ ok+ ok+",
                "v3": "ok+ ok+ E- ok+ E-", "v3y": "E- ok+ E- ok+ E-",
                "v1-hook61": "E+ ok+ E+ ok+ E+",
                "owlsm": "P- ok+ P- ok+ P-"},
    "nsf-trail-B": {"base": "E- L- E-", "v1": "E- L- E- E- E-",
                    "v1-nosec": "E- L- L- E- E-", "v3": "E- L- E- E- E-",
                    "v3y": "E- L- E- E- E-", "v1-hook61": "E- L- L- E- E-",
                    "owlsm": "E- L- P- E- E-"},
    "nsf-inter-B": {"base": "L- L- L-", "v1": "E- L- E- L- E-",
                    "v1-nosec": "L- L- L- L- L-", "v3": "L- L- E- L- E-",
                    "v3y": "E- L- E- L- E-", "v1-hook61": "L- L- L- L- L-",
                    "owlsm": "P- L- P- L- P-"},
    "unlink-B": {f: "P. " * (3 if f == "base" else 5) for f in FLAVORS},
    "search-B": {f: "E- " * (3 if f == "base" else 5) for f in FLAVORS},
    "ctrl-A": {f: "E+ " * (3 if f == "base" else 5) for f in FLAVORS},
}
TRUTH["core-root"] = TRUTH["core-B"]
ERRNO = {"E": "EACCES", "L": "ELOOP", "P": "EPERM", "ok": "0"}


def token_outcome(token):
    head, mark = token[:-1], token[-1]
    errno = ERRNO[head]
    atime = {"+": True, "-": False, ".": None}[mark]
    return (0 if errno == "0" else -1), errno, atime


def settings_of(flavor):
    return BASE_SETTINGS if flavor == "base" else OWN_SETTINGS


# Yama carries v1's rule at v1's place (the same hook, moved by the same
# patch), so its truth is v1's, setting by setting.
# grsec's rule is v1's test, called at the same place in pick_link().
SAME_TRUTH = {"yama": "v1", "v2": "v1", "grsec": "v1"}


def observed(name, flavor, setting):
    tokens = TRUTH[name][SAME_TRUTH.get(flavor, flavor)].split()
    return token_outcome(tokens[settings_of(flavor).index(setting)])


LOG_SETTING = {"base": "ps1-own-"}
LOG_TEXT = {
    "v1": "non-matching-uid symlink following attempted in"
          " sticky-directory by %s (fsuid 1001)",
    "v3": "non-matching-uid symlink following attempted in sticky"
          " world-writable directory by %s (fsuid 1001)",
    "yama": "non-matching-uid symlink following attempted in sticky"
            " world-writable directory by %s (fsuid 1001 != 1000)",
}
LOG_TEXT["v2"] = LOG_TEXT["v1"]     # v2 revises v1: the same message
LOG_TEXT["grsec"] = ("grsec: not following symlink owned by 1000 by %s"
                     " (fsuid 1001)")
LOG_TEXT["owlsm"] = ("Security: not followed symlink of 1000 by FSUID 1001,"
                     " process %s")


AUDIT = ('audit: type=1702 audit(T): op=follow_link ppid=P pid=P'
         ' auid=4294967295 uid=1002 gid=1002 euid=0 suid=0 fsuid=1001'
         ' egid=0 sgid=0 fsgid=1001 ses=4294967295 comm="%s"'
         ' exe="/bin/sticky-suite" res=0')


# The function around each revision's pr_notice_ratelimited(): its
# ratelimit report names it.
RATELIMITED_IN = {"v1": "cap_inode_follow_link",
                  "v2": "cap_inode_follow_link",
                  "v3": "may_follow_sticky_link",
                  "yama": "yama_inode_follow_link",
                  "grsec": "gr_handle_follow_link",
                  "owlsm": "owlsm_inode_follow_link"}


# The errno of a refusal by the own rule (revision.ini errno; EACCES
# unless named): OWLSM's is EPERM.
OWN_ERRNO = {"owlsm": "EPERM"}


def log_records(flavor):
    """The suite's log probes (common/suite/kmsg.c), by hand: single and burst
    under the log setting, 'both' (protected_symlinks=1 with the revision
    on: mainline refuses first and audits), and 'release' after the
    ratelimit's interval: 101 denials, 10 messages, 91 suppressed."""
    own = {"v1": "v1", "v2": "v2", "v3": "v3", "v3y": "v3",
           "yama": "yama", "grsec": "grsec", "owlsm": "owlsm",
           "v1-hook61": "v1"}.get(flavor)
    setting = LOG_SETTING.get(flavor, "ps0-own1")
    # v1-nosec: the rule is compiled out and mainline is off at ps0.
    allowed = flavor == "v1-nosec"
    probes = [("single", setting, "stickyprobe", 1, 1),
              ("burst", setting, "stickyburst", 100, 9)]
    if flavor != "base":
        probes.append(("both", "ps1-own1", "stickyboth", 1, 0))
        probes.append(("release", setting, "stickyrelease", 1, 1))
    out = []
    for kind, where, comm, denials, count in probes:
        mainline = where.startswith("ps1")
        messages = [LOG_TEXT[own] % comm] * count if own else []
        ok = allowed and not mainline
        out.append({"kind": kind, "setting": where,
                    "messages": ["random: crng init done"] + messages,
                    "suppressed": ["%s: 91 callbacks suppressed"
                                   % RATELIMITED_IN[own]]
                    if own and kind == "release" else [],
                    "total_messages": len(messages) + 1,
                    "comm": comm if messages else None,
                    "fsuid": 1001 if messages else None,
                    "denials": denials, "received": len(messages),
                    "audit_record": AUDIT % comm if mainline else None,
                    "ret": 0 if ok else -1,
                    "errno": "0" if ok else
                    OWN_ERRNO.get(own, "EACCES") if messages else "EACCES",
                    "completed": True})
    return out


INPUTS = (("0", True, 0), ("1", True, 1), ("2", False, None),
          ("-1", False, None), ("abc", False, None), ("", True, None),
          ("1x4096", False, None))


def sysctl_records(flavor):
    records = []
    paths = {"weak_sticky_symlinks": "/proc/sys/fs/weak-sticky-symlinks",
             "protected_sticky_symlinks":
             "/proc/sys/fs/protected-sticky-symlinks",
             "kernel_yama_protected_sticky_symlinks":
             "/proc/sys/kernel/yama/protected_sticky_symlinks",
             "kernel_grsecurity_linking_restrictions":
             "/proc/sys/kernel/grsecurity/linking_restrictions",
             "kernel_owlsm_follow_link_restrictions":
             "/proc/sys/kernel/owlsm/follow_link_restrictions",
             "protected_symlinks": "/proc/sys/fs/protected_symlinks"}
    for knob, path in paths.items():
        boot = 1 if knob == "protected_symlinks" else \
            knobs(flavor, "boot")[knob]
        if boot is None:
            records.append({"knob": knob, "path": path, "present": False,
                            "mode": None, "boot_value": None, "writes": [],
                            "nonroot_write": None})
            continue
        writes = []
        for text, ok, value in INPUTS:
            length = 4096 if text == "1x4096" else len(text)
            writes.append({"input": text, "ret": length if ok else -1,
                           "errno": "0" if ok else "EINVAL",
                           "value_after": boot if value is None else value})
        nonroot = "0" if boot == 1 else "1"
        records.append({"knob": knob, "path": path, "present": True,
                        "mode": "0644", "boot_value": boot,
                        "writes": writes,
                        "nonroot_write": {"input": nonroot, "ret": -1,
                                          "errno": "EACCES",
                                          "value_after": boot}})
    return records


def result(flavor, scenarios=None):
    """A complete, consistent result file for one flavor."""
    boot = knobs(flavor, "boot")
    cases = []
    for setting in settings_of(flavor):
        for name in scenarios or sorted(SCENARIOS):
            record = copy.deepcopy(SCENARIOS[name])
            record["setting"] = setting
            record["ret"], record["errno"], record["atime_changed"] = \
                observed(name, flavor, setting)
            cases.append(record)
    cases.sort(key=lambda c: (c["setting"], c["id"]))
    return {
        "flavor": flavor,
        "facts": {"uname": "6.1.0-%s" % flavor, "cmdline": "console=ttyS0",
                  "knobs": boot},
        "settings": {s: knobs(flavor, s) for s in settings_of(flavor)},
        "cases": cases, "sysctl": sysctl_records(flavor),
        "log": log_records(flavor), "errors": [], "status": 0,
    }


def write_results(directory, flavors=FLAVORS, mutate=None):
    """Write result files; mutate(flavor, data) may edit them first."""
    os.makedirs(directory, exist_ok=True)
    for flavor in flavors:
        data = result(flavor)
        if mutate:
            mutate(flavor, data)
        with open(os.path.join(directory, flavor + ".json"), "w",
                  encoding="utf-8") as stream:
            json.dump(data, stream, indent=1, sort_keys=True)
    return directory


def find_case(data, setting, scenario):
    cid = SCENARIOS[scenario]["id"]
    for record in data["cases"]:
        if record["setting"] == setting and record["id"] == cid:
            return record
    raise KeyError((setting, scenario))
