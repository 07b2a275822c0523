"""Predict the direct control from modes, owners and ids alone.

The suite's control (common/runner.c) is the case's operation, done by
the same follower, on the path of its target without any symlink
(layout.c ctl_target: /tmp/sticky/sa/t/<target>, plus "/f" where the
case's path goes through the link into `dir`, or t/dir/sub/../f for
dotdot).  This module predicts its result from the fixture (common/
fixture.c: the modes and owners of the targets and of the directories
on that path), the case's ids and the operation's semantics in 6.1
(common/ops.c says which call each op makes).  It never reads a
recorded control: the model uses this prediction for every allowed
follow, and the recorded control is only compared with it as a
self-check (check.py).

Credentials as the suite arranges them (common/ident.c): permission
checks use fsuid/fsgid, no supplementary groups, and the file system
capabilities (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER,
CAP_CHOWN) are held exactly while fsuid is 0.  access(2) checks with
the real uid/gid instead, with every capability kept when the real uid
is 0 and none otherwise (access_override_creds() in fs/open.c).
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from .caseids import NOFOLLOW_OPS, ON_LINK
from .flavors import UIDS

FILE, DIR = "file", "dir"
MAY_EXEC, MAY_WRITE, MAY_READ = 1, 2, 4
OK = (0, "0")


class ControlError(ValueError):
    """The control of a case this module does not model."""


@dataclass(frozen=True)
class Node:
    """One object of the fixture."""

    kind: str               # FILE or DIR
    mode: int               # permission bits (07777)
    owner: str              # "root", "A" or "B"; the gid is the same number
    script: bool = False    # "#!/bin/sh\nexit 7" (execve runs it)

    @property
    def uid(self):
        return UIDS[self.owner]

    @property
    def gid(self):
        return UIDS[self.owner]


# common/fixture.c fixture_setup(): the directories every control path
# searches (/tmp, /tmp/sticky, the scratch mount sa, sa/t) ...
CONTROL_DIRS = (Node(DIR, 0o1777, "root"), Node(DIR, 0o755, "root"),
                Node(DIR, 0o755, "root"), Node(DIR, 0o777, "root"))
T_DIR = CONTROL_DIRS[-1]
# ... the objects in sa/t (dangling: the absent name t/missing) ...
TARGETS = {
    "file-root": Node(FILE, 0o666, "root"),
    "file-A": Node(FILE, 0o666, "A"),
    "file-B": Node(FILE, 0o666, "B"),
    "dir": Node(DIR, 0o755, "root"),
    "dangling": None,
    "script-A": Node(FILE, 0o755, "A", script=True),
    "dir-ww": Node(DIR, 0o777, "root"),
}
# tmpfile_linkat's O_TMPFILE directory, sa/t/ww.
WW_DIR = TARGETS["dir-ww"]
# ... in sa/t/dir, and sa/hl where linkat_follow puts its new name.
DIR_F = Node(FILE, 0o666, "root")
DIR_SUB = Node(DIR, 0o755, "root")
HL_DIR = Node(DIR, 0o777, "root")

# A target name outside the fixture may spell its object, for hand-made
# cases: "file-<owner>-<mode>" or "dir-<owner>-<mode>" (e.g. file-root-0600).
_SPELLED = re.compile(r"^(file|dir)-(root|A|B)-([0-7]{3,4})$")

# common/runner.c run_one(): chown() gives the target its own uid back.
CHOWN_UID = {"file-B": 1001, "file-root": 0}
CHOWN_UID_DEFAULT = 1000

# Positions whose path continues through the link into `dir` ("/f").
THROUGH_DIR = frozenset({"intermediate", "chain-inter"})

# Ops that act on the name itself; the suite runs no control for them
# where the path names the link (layout.c has_control).
NO_CONTROL_OPS = frozenset({"unlink", "rename"})

# Ops whose checks use the real uid/gid as fsuid/fsgid: faccessat()
# without AT_EACCESS (access_override_creds() in fs/open.c), caps kept
# only by ruid 0.
REAL_ID_OPS = frozenset({"access", "faccessat_nofollow"})

# O_DIRECTORY opens: ENOTDIR on anything but a directory.
DIRECTORY_OPENS = frozenset({"open_directory", "open_nonblock_directory"})


@dataclass(frozen=True)
class Cred:
    """Who the permission checks see."""

    uid: int
    gid: int
    caps: bool      # the file system capabilities

    def owns(self, node):
        return self.uid == node.uid


def cred_for(params):
    """The credentials the control's permission checks use."""
    fsuid = params["fsuid"]
    fsgid = params.get("fsgid", fsuid)
    if params["op"] in REAL_ID_OPS:
        ruid = params.get("ruid", fsuid)
        return Cred(ruid, params.get("rgid", ruid), ruid == 0)
    return Cred(fsuid, fsgid, fsuid == 0)


def permitted(node, cred, mask):
    """generic_permission() without ACLs: the class's bits, then
    CAP_DAC_READ_SEARCH / CAP_DAC_OVERRIDE (exec of a non-directory
    needs at least one x bit even then)."""
    if cred.uid == node.uid:
        bits = node.mode >> 6
    elif cred.gid == node.gid:
        bits = node.mode >> 3
    else:
        bits = node.mode
    if bits & 7 & mask == mask:
        return True
    if not cred.caps:
        return False
    if node.kind == DIR:
        return True
    return not mask & MAY_EXEC or bool(node.mode & 0o111)


def target_node(name):
    """The fixture object of a target name (None: absent)."""
    if name in TARGETS:
        return TARGETS[name]
    spelled = _SPELLED.match(name or "")
    if spelled:
        kind, owner, mode = spelled.groups()
        return Node(kind, int(mode, 8), owner)
    raise ControlError("unknown target %r" % (name,))


def has_control(params):
    """layout.c: a no-follow op on a path that names the link has none."""
    return not (params["op"] in NOFOLLOW_OPS
                and params.get("position", "trailing") in ON_LINK)


def resolve(params, cred):
    """(parent, node, errno): the object the control's path names, its
    directory, and the errno of a walk that fails before it (else None).
    """
    for directory in CONTROL_DIRS:
        if not permitted(directory, cred, MAY_EXEC):
            return None, None, "EACCES"
    position = params.get("position", "trailing")
    node = target_node(params["target"])
    if position == "dotdot":
        # t/dir/sub/../f: searches dir and sub, then f in dir.
        walk = (TARGETS["dir"], DIR_SUB, TARGETS["dir"])
        for directory in walk:
            if not permitted(directory, cred, MAY_EXEC):
                return None, None, "EACCES"
        return TARGETS["dir"], DIR_F, None
    if position in THROUGH_DIR:
        if node is None:
            return None, None, "ENOENT"
        if node.kind != DIR:
            return None, None, "ENOTDIR"
        if not permitted(node, cred, MAY_EXEC):
            return None, None, "EACCES"
        if params["target"] != "dir":
            raise ControlError("no fixture object under %r"
                               % (params["target"],))
        return node, DIR_F, None
    return T_DIR, node, None


def _result(allowed, errno):
    return OK if allowed else (-1, errno)


def _open(node, parent, cred, op):
    """do_open()/may_open() for the open variants."""
    if node is None:
        if op in ("open_creat", "open_creat_excl"):
            return _result(permitted(parent, cred, MAY_WRITE | MAY_EXEC),
                           "EACCES")
        return (-1, "ENOENT")
    if op == "open_creat_excl":
        return (-1, "EEXIST")
    if op == "open_path":
        return OK
    if op in DIRECTORY_OPENS and node.kind != DIR:
        return (-1, "ENOTDIR")
    mask = {"open_wronly": MAY_WRITE, "open_creat": MAY_WRITE,
            "open_rdwr": MAY_READ | MAY_WRITE}.get(op, MAY_READ)
    if node.kind == DIR and (mask & MAY_WRITE or op == "open_creat"):
        return (-1, "EISDIR")
    return _result(permitted(node, cred, mask), "EACCES")


def _execve(node, cred):
    """do_open_execat(), then binfmt_script runs busybox sh on it."""
    if node is None:
        return (-1, "ENOENT")
    if node.kind != FILE or not permitted(node, cred, MAY_EXEC):
        return (-1, "EACCES")
    if not node.script:
        return (-1, "ENOEXEC")      # the fixture's files are empty
    if not permitted(node, cred, MAY_READ):
        raise ControlError("execve of a script its runner cannot read")
    return OK


def _linkat(node, cred, protected_hardlinks):
    """do_linkat(): the source, may_linkat(), then vfs_link() into hl."""
    if node is None:
        return (-1, "ENOENT")
    if protected_hardlinks and not (
            cred.owns(node) or cred.caps or (
                node.kind == FILE and not node.mode & 0o4000
                and node.mode & 0o2010 != 0o2010
                and permitted(node, cred, MAY_READ | MAY_WRITE))):
        return (-1, "EPERM")
    if not permitted(HL_DIR, cred, MAY_WRITE | MAY_EXEC):
        return (-1, "EACCES")
    return _result(node.kind != DIR, "EPERM")


def _attr(op, node, cred, params):
    """chmod, chown, utimensat(NULL), truncate: notify_change() and
    vfs_truncate()."""
    if op == "chmod":
        return _result(cred.owns(node) or cred.caps, "EPERM")
    if op == "chown":
        new_uid = CHOWN_UID.get(params["target"], CHOWN_UID_DEFAULT)
        return _result((cred.owns(node) and new_uid == node.uid)
                       or cred.caps, "EPERM")
    if op == "utimensat":
        return _result(cred.owns(node) or cred.caps
                       or permitted(node, cred, MAY_WRITE), "EACCES")
    if node.kind == DIR:                         # truncate
        return (-1, "EISDIR")
    return _result(permitted(node, cred, MAY_WRITE), "EACCES")


def _tmpfile_linkat(node, cred):
    """open(t/ww, O_TMPFILE), then linkat() of /proc/self/fd/N (the
    follower's own file: may_linkat() allows it) to <node>/tmpfile."""
    if not permitted(WW_DIR, cred, MAY_WRITE | MAY_EXEC):
        return (-1, "EACCES")
    if node is None:
        return (-1, "ENOENT")
    if node.kind != DIR:
        return (-1, "ENOTDIR")
    return _result(permitted(node, cred, MAY_WRITE | MAY_EXEC), "EACCES")


def predict_control(params, protected_hardlinks=0):
    """(ret, errno) of the case's op on its target without any link, or
    None where the suite runs no control.  `protected_hardlinks` is the
    knob in force; the suite keeps it at 0 in every setting."""
    fsuid = params["fsuid"]
    return _predict(params["op"], params.get("position", "trailing"),
                    params["target"], fsuid, params.get("fsgid", fsuid),
                    params.get("ruid", fsuid),
                    params.get("rgid", params.get("ruid", fsuid)),
                    bool(protected_hardlinks))


@lru_cache(maxsize=4096)
def _predict(op, position, target, fsuid, fsgid, ruid, rgid,
             protected_hardlinks):
    params = {"op": op, "position": position, "target": target,
              "fsuid": fsuid, "fsgid": fsgid, "ruid": ruid, "rgid": rgid}
    if not has_control(params):
        return None
    if op in NO_CONTROL_OPS:
        raise ControlError("the suite runs no control for %r" % (op,))
    cred = cred_for(params)
    parent, node, errno = resolve(params, cred)
    if errno:
        return (-1, errno)
    if op.startswith("open") and op != "openat2_no_symlinks":
        # openat_dirfd: open_rdonly's checks, the walk split at the dirfd
        return _open(node, parent, cred, op)
    if op == "openat2_no_symlinks":
        return _open(node, parent, cred, "open_rdonly")
    if op == "execve":
        return _execve(node, cred)
    if op == "linkat_follow":
        return _linkat(node, cred, protected_hardlinks)
    if op == "tmpfile_linkat":
        return _tmpfile_linkat(node, cred)
    if node is None:
        return (-1, "ENOENT")
    if op in ("stat", "lstat"):
        return OK
    if op in ("access", "faccessat_eaccess"):
        return _result(permitted(node, cred, MAY_READ), "EACCES")
    if op == "chdir":
        if node.kind != DIR:
            return (-1, "ENOTDIR")
        return _result(permitted(node, cred, MAY_EXEC), "EACCES")
    if op == "readlink":
        return (-1, "EINVAL")                    # the target is no link
    if op in ("chmod", "chown", "utimensat", "truncate"):
        return _attr(op, node, cred, params)
    raise ControlError("op %r is not modelled" % (op,))


def recorded_control(case):
    """(ret, errno) the suite recorded, or None."""
    if case.get("control_ret") is None:
        return None
    return (case["control_ret"], case.get("control_errno"))


def control_problem(case):
    """None when the recorded control is the predicted one, else why not
    (the self-check check.py reports)."""
    try:
        predicted = predict_control(case["params"])
    except (ControlError, KeyError) as err:
        return "no control prediction: %s" % (err,)
    recorded = recorded_control(case)
    if predicted == recorded:
        return None
    return "control observed %s, predicted %s" % (
        format_control(recorded), format_control(predicted))


def format_control(control):
    if control is None:
        return "none (no control run)"
    return "ok" if control[0] == 0 else control[1]
