"""Rebuild a case's params from its id, and expand the compact form.

The committed results/expected/<flavor>.json keep one line per case id
(regress.expected_form); the params the model needs are fixed by the id,
because the suite derives them from it: common/matrix.c (the axes and
case_id()), common/layout.c (where each link lives, which links a
no-follow op still follows, which directory needs search permission) and
common/runner.c (what it writes).  This module is the Python mirror of
those three, so `make report` works from a fresh clone without a kernel.
tests/test_caseids.py checks it against the suite's own records.
"""

from functools import lru_cache

from .flavors import UIDS

MOUNT_OF_GROUP = {"m": "strictatime", "p": "strictatime",
                  "o": "strictatime", "n": "nosymfollow"}
GROUP_NAMES = {"m": "matrix", "p": "positions", "o": "ops", "n": "mounts"}
POSITIONS = {"trail": "trailing", "rel": "trailing-rel",
             "inter": "intermediate", "dotdot": "dotdot", "chain": "chain",
             "chain2ns": "chain-2ns", "chain1ns": "chain-1ns",
             "chaininter": "chain-inter", "sub": "subdir-ns",
             "chainx": "chain-xdir", "byowner": "trailing-byowner"}
# common/matrix.c follower_ids: ruid, euid, suid, fsuid; gids the same.
FOLLOWERS = {"root": (0, 0, 0, 0), "A": (1000, 1000, 0, 1000),
             "B": (1001, 1001, 0, 1001), "euid0-fsuidA": (0, 0, 0, 1000),
             "euidA-fsuid0": (1000, 1000, 0, 0),
             "setuid-fsuidA": (1000, 0, 0, 1000),
             "setuid-exec": (1000, 0, 0, 0)}
# op_info[].nofollow: the op does not follow the trailing link.
NOFOLLOW_OPS = frozenset({"open_creat_excl", "open_nofollow", "lstat",
                          "readlink", "rename", "unlink",
                          "faccessat_nofollow", "utimensat_nofollow",
                          "fchownat_nofollow"})
OPS = frozenset({
    "open_rdonly", "open_wronly", "open_rdwr", "open_creat",
    "open_creat_excl", "open_nofollow", "open_path", "open_directory",
    "openat2_no_symlinks", "stat", "lstat", "access", "faccessat_eaccess",
    "chdir", "truncate", "chmod", "chown", "utimensat", "readlink",
    "linkat_follow", "execve", "rename", "unlink",
    "open_nonblock_directory", "openat_dirfd", "faccessat_nofollow",
    "utimensat_nofollow", "fchownat_nofollow", "open_bindmount",
    "openat2_cached", "tmpfile_linkat"})
# op_info[].through: the op names a file under the link (TMPFILE_NAME), so
# the walk follows the link as an intermediate one.
THROUGH_OPS = frozenset({"tmpfile_linkat"})
TARGETS = frozenset({"file-root", "file-A", "file-B", "dir", "dangling",
                     "script-A", "dir-ww"})
# The non-sticky 0777 root dir `ns` of the chain positions.
NS_DIR = ("0777", "root")
# chain-xdir's second link: root's, in B's 1777 dir.
XDIR_LINK = ("1777", "B", "root")
# Positions whose path names the link itself (layout.c on_link).
ON_LINK = frozenset({"trailing", "trailing-rel", "chain", "chain-2ns",
                     "chain-1ns", "subdir-ns", "chain-xdir",
                     "trailing-byowner"})


class CaseIdError(ValueError):
    """An id that the suite cannot have written."""


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
    pos, owner = axes["position"], axes["link_owner"]
    dirs = {"trailing": [here], "trailing-rel": [here],
            "trailing-byowner": [here],
            "intermediate": [here], "dotdot": [here],
            "chain": [here, here], "chain-inter": [here, here],
            "chain-2ns": [here, NS_DIR], "chain-1ns": [NS_DIR, here],
            "subdir-ns": [("0777", axes["dir_owner"])],
            "chain-xdir": [here, XDIR_LINK[:2]]}[pos]
    owners = [owner, XDIR_LINK[2] if pos == "chain-xdir" else owner]
    kind = ("intermediate" if pos in ("intermediate", "dotdot",
                                      "chain-inter")
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


def _result(text, cid):
    if text == "-":
        return None, None
    if not text:
        raise CaseIdError("case %s: empty result" % cid)
    return (0, "0") if text == "ok" else (-1, text)


def parse_outcome(text, cid="?"):
    """(ret, errno, atime, control_ret, control_errno) of a compact
    "<errno or ok> a<1|0|-> c:<errno, ok or ->" string."""
    parts = text.split()
    if (len(parts) != 3 or not parts[1].startswith("a")
            or not parts[2].startswith("c:")
            or parts[1][1:] not in ("1", "0", "-")):
        raise CaseIdError("case %s: outcome %r is not '<errno|ok> a<1|0|->"
                          " c:<errno|ok|->'" % (cid, text))
    ret, errno = _result(parts[0], cid)
    if ret is None:
        raise CaseIdError("case %s: outcome %r has no result" % (cid, text))
    atime = {"1": True, "0": False, "-": None}[parts[1][1:]]
    control = _result(parts[2][2:], cid)
    return ret, errno, atime, control[0], control[1]


def expand_case(cid, setting, text):
    """A full case record from an id, a setting and a compact outcome."""
    ret, errno, atime, cret, cerrno = parse_outcome(text, cid)
    return {"setting": setting, "id": cid,
            "group": split_id(cid)["group"], "params": params_of(cid),
            "control_ret": cret, "control_errno": cerrno,
            "ret": ret, "errno": errno, "atime_changed": atime}


def expand(data):
    """A compact expected file's data as a result file's data."""
    out = {key: value for key, value in data.items() if key != "cases"}
    cases = []
    for cid, per_setting in data["cases"].items():
        if not isinstance(per_setting, dict):
            raise CaseIdError("case %s: not an object of setting ->"
                              " outcome" % cid)
        for setting, text in per_setting.items():
            cases.append(expand_case(cid, setting, text))
    cases.sort(key=lambda c: (c["setting"], c["id"]))
    out["cases"] = cases
    return out
