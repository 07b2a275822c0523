"""Rebuild a case's params from its id, and expand the compact form.

The committed results/expected/<flavor>.json keep one line per case id
(regress.expected_form); the params the model needs are fixed by the id,
because the suite derives them from it: common/lib/matrix.c (the axes and
case_id()), common/lib/layout.c (where each link lives, which links a
no-follow op still follows, which directory needs search permission) and
common/suite/runner.c (what it writes).  The axes and their rows are
common/lib/cases.def's (table.py); this module rebuilds a case from them as
those three do, so `make report` works from a fresh clone without a kernel.
tests/test_caseids.py checks it against the suite's own records.
"""

from functools import lru_cache

from .flavors import UIDS

from .table import TABLE, core, ops_with

GROUP_NAMES = {short: name for name, short, _ in TABLE.groups}
MOUNT_OF_GROUP = {short: mount for _, short, mount in TABLE.groups}
POSITIONS = {p.short: p.name for p in TABLE.positions.values()}
FOLLOWERS = {f.name: f.ids for f in TABLE.followers.values()}
NOFOLLOW_OPS = frozenset(n for n, op in TABLE.ops.items() if op.nofollow)
OPS = frozenset(TABLE.ops)
THROUGH_OPS = ops_with("through")
TARGETS = frozenset(TABLE.targets)
ON_LINK = frozenset(n for n, p in TABLE.positions.items()
                    if "on_link" in p.flags)
# The link directories other than the case's own (cases.def LD_*).
NS_DIR = ("0777", "root")          # the non-sticky 0777 root dir ns
XDIR = ("1777", "B")               # B's 1777 dir


class CaseIdError(ValueError):
    """An id that the suite cannot have written."""


class LoadError(Exception):
    """A result file that cannot be used; the message names file and case."""


def _strip(part, prefix, cid):
    if not part.startswith(prefix):
        raise CaseIdError("case id %r: %r should start with %r"
                          % (cid, part, prefix))
    return part[len(prefix):]


@lru_cache(maxsize=None)
def split_id(cid):
    """The axes of an id, as names (a shared dict: do not change it)."""
    parts = cid.split("/")
    if len(parts) != 7 or parts[0] not in GROUP_NAMES:
        raise CaseIdError("case id %r is not <g>/d<mode>-<owner>/l<owner>"
                          "/t<target>/f<follower>/<pos>/<op>" % (cid,))
    mode, _, dir_owner = _strip(parts[1], "d", cid).partition("-")
    axes = {"group": GROUP_NAMES[parts[0]], "dir_mode": mode,
            "dir_owner": dir_owner,
            "link_owner": _strip(parts[2], "l", cid),
            "target": _strip(parts[3], "t", cid),
            "follower": _strip(parts[4], "f", cid),
            "position": POSITIONS.get(parts[5]), "op": parts[6],
            "mount": MOUNT_OF_GROUP[parts[0]]}
    checks = (("position", axes["position"] is not None),
              ("dir mode", len(mode) == 4 and set(mode) <= set("01234567")),
              ("dir owner", dir_owner in UIDS),
              ("link owner", axes["link_owner"] in UIDS),
              ("target", axes["target"] in TARGETS),
              ("follower", axes["follower"] in FOLLOWERS),
              ("op", axes["op"] in OPS))
    for name, ok in checks:
        if not ok:
            raise CaseIdError("case id %r: unknown %s" % (cid, name))
    return axes


def _link(dir_mode, dir_owner, owner, kind):
    return {"dir_mode": dir_mode, "dir_owner": dir_owner,
            "dir_gid": UIDS[dir_owner], "owner": owner, "kind": kind}


def _links(axes):
    """layout.c: the links the walk follows, in order, before no-follow."""
    here = (axes["dir_mode"], axes["dir_owner"])
    row = TABLE.positions[axes["position"]]
    place = {"here": here, "ns": NS_DIR, "xdir": XDIR,
             "sub": ("0777", axes["dir_owner"])}
    dirs = [place[d] for d in row.dirs]
    owner = axes["link_owner"]
    owners = [owner, row.second_owner or owner]
    kind = ("intermediate" if row.kind == "intermediate"
            or axes["op"] in THROUGH_OPS else "trailing")
    links = [_link(mode, downer, link_owner, kind)
             for (mode, downer), link_owner in zip(dirs, owners)]
    if axes["op"] in NOFOLLOW_OPS:
        kept = []
        for item in links:
            if item["kind"] != "intermediate":
                break
            kept.append(item)
        links = kept
    return links


@lru_cache(maxsize=None)
def params_of(cid):
    """The params object the suite writes for this id (ids read back as
    the follower table sets them; no supplementary groups).  One shared
    object per id: callers must not change it."""
    axes = split_id(cid)
    ruid, euid, suid, fsuid = FOLLOWERS[axes["follower"]]
    links = _links(axes)
    params = {key: axes[key] for key in (
        "dir_mode", "dir_owner", "link_owner", "target", "follower")}
    params.update({"ruid": ruid, "euid": euid, "suid": suid,
                   "fsuid": fsuid, "rgid": ruid, "egid": euid,
                   "fsgid": fsuid, "position": axes["position"],
                   "op": axes["op"], "mount": axes["mount"],
                   "follows": bool(links), "links": links, "search": []})
    if int(axes["dir_mode"], 8) & 0o111 != 0o111:
        params["search"] = [{"mode": axes["dir_mode"],
                             "owner": axes["dir_owner"],
                             "gid": UIDS[axes["dir_owner"]]}]
    return params


def has_control(cid):
    """layout.c: a no-follow op on a path that names the link has none."""
    axes = split_id(cid)
    return not (axes["op"] in NOFOLLOW_OPS and axes["position"] in ON_LINK)


def _result(text):
    """(ret, errno) of "ok", an errno name or "-" (none); None if empty."""
    if text == "-":
        return None, None
    if not text:
        return None
    return (0, "0") if text == "ok" else (-1, text)


def case_outcome(case):
    """The observed part of a case record as one short string, the
    compact form's outcome (parse_outcome() reads it back)."""
    def res(ret, errno):
        if ret is None:
            return "-"
        return "ok" if ret == 0 else str(errno)
    atime = case.get("atime_changed")
    mark = "-" if atime is None else ("1" if atime else "0")
    return "%s a%s c:%s" % (res(case["ret"], case["errno"]), mark,
                            res(case.get("control_ret"),
                                case.get("control_errno")))


def parse_outcome(text, cid="?"):
    """(ret, errno, atime, control_ret, control_errno) of a compact
    "<errno or ok> a<1|0|-> c:<errno, ok or ->" string."""
    parsed = _parse_outcome(text)
    if isinstance(parsed, str):
        raise CaseIdError("case %s: %s" % (cid, parsed))
    return parsed


@lru_cache(maxsize=None)
def _parse_outcome(text):
    """parse_outcome()'s answer, or what is wrong with `text`: a few
    distinct strings make up every outcome of a run."""
    parts = text.split()
    if (len(parts) != 3 or not parts[1].startswith("a")
            or not parts[2].startswith("c:")
            or parts[1][1:] not in ("1", "0", "-")):
        return ("outcome %r is not '<errno|ok> a<1|0|->"
                " c:<errno|ok|->'" % (text,))
    result, control = _result(parts[0]), _result(parts[2][2:])
    if result is None or control is None:
        return "empty result"
    if result[0] is None:
        return "outcome %r has no result" % (text,)
    atime = {"1": True, "0": False, "-": None}[parts[1][1:]]
    return result + (atime,) + control


@lru_cache(maxsize=None)
def expand_case(cid, setting, text):
    """A full case record from an id, a setting and a compact outcome.
    One shared object per (id, setting, outcome): flavors that observed
    the same share it, so callers must not change it."""
    ret, errno, atime, cret, cerrno = parse_outcome(text, cid)
    return {"setting": setting, "id": cid,
            "group": split_id(cid)["group"], "params": params_of(cid),
            "control_ret": cret, "control_errno": cerrno,
            "ret": ret, "errno": errno, "atime_changed": atime}


def expand(data):
    """A compact expected file's data as a result file's data, its cases
    sorted by setting and id."""
    out = {key: value for key, value in data.items() if key != "cases"}
    settings = set()
    for cid, per_setting in data["cases"].items():
        if not isinstance(per_setting, dict):
            raise CaseIdError("case %s: not an object of setting ->"
                              " outcome" % cid)
        settings.update(per_setting)
    ordered = sorted(data["cases"].items())
    out["cases"] = [expand_case(cid, setting, per_setting[setting])
                    for setting in sorted(settings)
                    for cid, per_setting in ordered
                    if setting in per_setting]
    return out


def case_ids(quick=False):
    """Every case id of a suite run (`--quick` with quick), in the suite's
    order: common/lib/matrix.c matrix_generate() over cases.def's rows."""
    t = TABLE
    core_op, core_pos = core(t.ops), core(t.positions)
    short = {name: s for name, s, _ in t.groups}
    pshort = {n: p.short for n, p in t.positions.items()}

    def want(flags, need):
        return need <= flags

    fol = frozenset({"plain"}) if quick else frozenset()
    followers = [n for n, f in t.followers.items() if want(f.flags, fol)]
    plain = [n for n, f in t.followers.items() if "plain" in f.flags]

    def cid(group, mode, downer, lowner, target, follower, pos, op):
        return (f"{short[group]}/d{mode}-{downer}/l{lowner}/t{target}/"
                f"f{follower}/{pshort[pos]}/{op}")

    def cross(group, target, pos, op, fols):
        byowner = "byowner" in t.positions[pos].flags
        for mode, downer, flags in t.rep_dirs:
            if (quick and "quick" not in flags) or (
                    byowner and "byowner" not in flags):
                continue
            for lowner in t.owners:
                for follower in fols:
                    yield cid(group, mode, downer, lowner, target, follower,
                              pos, op)

    for mode, flags in t.dir_modes:
        if quick and "quick" not in flags:
            continue
        for downer in t.owners:
            if quick and "quick" not in t.owner_flags[downer]:
                continue
            for lowner in t.owners:
                for target, row in t.targets.items():
                    if "core" not in row.flags:
                        continue
                    for follower in followers:
                        yield cid("matrix", mode, downer, lowner, target,
                                  follower, core_pos, core_op)
    probes = [n for n, op in t.ops.items() if "inter_probe" in op.flags]
    for pos, row in t.positions.items():
        if pos == core_pos:
            continue
        yield from cross("positions", row.target, pos, core_op, followers)
        if row.kind == "intermediate":
            for op in probes:
                yield from cross("positions", row.target, pos, op,
                                 followers)
    for op, row in t.ops.items():
        if op == core_op:
            continue
        yield from cross("ops", row.target, core_pos, op,
                         plain if "plain_followers" in row.flags
                         else followers)
    for pos, op, target in t.mount_cases:
        yield from cross("mounts", target, pos, op, plain)
