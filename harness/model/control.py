"""Predict the direct control from modes, owners and ids alone.

The suite's control (common/suite/runner.c) is the case's operation, done by
the same follower, on the path of its target without any symlink
(layout.c ctl_target: /tmp/sticky/sa/t/<target>, plus "/f" where the
case's path goes through the link into `dir`, or t/dir/sub/../f for
dotdot).  This module predicts its result from the fixture (common/
fixture.c: the modes and owners of the targets and of the directories
on that path), the case's ids and the operation's semantics in 6.1
(common/suite/ops.c says which call each op makes).  It never reads a
recorded control: the model uses this prediction for every allowed
follow, and the recorded control is only compared with it as a
self-check (check.py).

Credentials as the suite arranges them (common/suite/ident.c): permission
checks use fsuid/fsgid, no supplementary groups, and the file system
capabilities (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER,
CAP_CHOWN) are held exactly while fsuid is 0.  access(2) checks with
the real uid/gid instead, with every capability kept when the real uid
is 0 and none otherwise (access_override_creds() in fs/open.c).
"""

import re
from dataclasses import dataclass
from functools import lru_cache
from .cases import NOFOLLOW_OPS, ON_LINK
from .flavors import UIDS
from .table import TABLE, ops_with

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


# common/suite/fixture.c fixture_setup(): the directories every control path
# searches (/tmp, /tmp/sticky, the scratch mount sa, sa/t) ...
CONTROL_DIRS = (Node(DIR, 0o1777, "root"), Node(DIR, 0o755, "root"),
                Node(DIR, 0o755, "root"), Node(DIR, 0o777, "root"))
T_DIR = CONTROL_DIRS[-1]
# ... the objects in sa/t (cases.def TARGET rows; dangling: an absent name) ...
TARGETS = {name: None if t.node == "absent" else
           Node(DIR if t.node == "dir" else FILE, t.mode, t.owner,
                script=t.node == "script")
           for name, t in TABLE.targets.items()}
# tmpfile_linkat's O_TMPFILE directory, sa/t/ww.
WW_DIR = TARGETS["dir-ww"]
# ... in sa/t/dir, and sa/hl where linkat_follow puts its new name.
DIR_F = Node(FILE, 0o666, "root")
DIR_SUB = Node(DIR, 0o755, "root")
HL_DIR = Node(DIR, 0o777, "root")

# A target name outside the fixture may spell its object, for hand-made
# cases: "file-<owner>-<mode>" or "dir-<owner>-<mode>" (e.g. file-root-0600).
_SPELLED = re.compile(r"^(file|dir)-(root|A|B)-([0-7]{3,4})$")

# common/suite/runner.c run_one(): a chown op gives the target the uid of
# its row's chown_to (its own owner's, or A's).
CHOWN_UID = {name: UIDS[t.chown_to] for name, t in TABLE.targets.items()}
CHOWN_UID_DEFAULT = UIDS["A"]

# Where a position's control path goes (cases.def: CP_UNDER, t/<target>/f;
# CP_DOTDOT, t/dir/sub/../f).
THROUGH_DIR = frozenset(n for n, p in TABLE.positions.items()
                        if p.control_path == "under")
DOTDOT = frozenset(n for n, p in TABLE.positions.items()
                   if p.control_path == "dotdot")

# Ops whose checks use the real uid/gid as fsuid/fsgid: faccessat()
# without AT_EACCESS (access_override_creds() in fs/open.c), caps kept
# only by ruid 0.
REAL_ID_OPS = ops_with("real_ids")


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
    if position in DOTDOT:
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


def _open(kind, node, parent, cred):
    """do_open()/may_open() for the open variants (the control kinds
    open_*)."""
    creat = kind in ("open_creat", "open_creat_excl")
    if node is None:
        if creat:
            return _result(permitted(parent, cred, MAY_WRITE | MAY_EXEC),
                           "EACCES")
        return (-1, "ENOENT")
    if kind == "open_creat_excl":
        return (-1, "EEXIST")
    if kind == "open_path":
        return OK
    if kind == "open_directory" and node.kind != DIR:
        return (-1, "ENOTDIR")
    mask = {"open_write": MAY_WRITE, "open_creat": MAY_WRITE,
            "open_rdwr": MAY_READ | MAY_WRITE}.get(kind, MAY_READ)
    if node.kind == DIR and (mask & MAY_WRITE or kind == "open_creat"):
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


def _attr(kind, node, cred, target):
    """chmod, chown, utimensat(NULL), truncate: notify_change() and
    vfs_truncate()."""
    if kind == "chmod":
        return _result(cred.owns(node) or cred.caps, "EPERM")
    if kind == "chown":
        new_uid = CHOWN_UID.get(target, CHOWN_UID_DEFAULT)
        return _result((cred.owns(node) and new_uid == node.uid)
                       or cred.caps, "EPERM")
    if kind == "utimes_now":
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
    kind = TABLE.ops[op].control if op in TABLE.ops else None
    if kind not in CONTROL_KINDS:
        raise ControlError("op %r: its control %r is not modelled"
                           % (op, kind))
    cred = cred_for(params)
    parent, node, errno = resolve(params, cred)
    if errno:
        return (-1, errno)
    return CONTROL_KINDS[kind](kind, node, parent, cred, params,
                               protected_hardlinks)


def _node_op(fn):
    """A control kind on an existing object: ENOENT without one."""
    def run(kind, node, parent, cred, params, protected_hardlinks):
        if node is None:
            return (-1, "ENOENT")
        return fn(kind, node, cred, params)
    return run


def _chdir(kind, node, cred, params):
    if node.kind != DIR:
        return (-1, "ENOTDIR")
    return _result(permitted(node, cred, MAY_EXEC), "EACCES")


# The semantics an op's row names (cases.def OP: control), each predicted
# from the object its control path names.  An op whose kind is absent
# here has no prediction: tests/test_table.py fails on it.
CONTROL_KINDS = {
    **{kind: (lambda kind, node, parent, cred, params, ph:
              _open(kind, node, parent, cred))
       for kind in ("open_read", "open_write", "open_rdwr", "open_creat",
                    "open_creat_excl", "open_path", "open_directory")},
    "execve": lambda kind, node, parent, cred, params, ph:
        _execve(node, cred),
    "linkat": lambda kind, node, parent, cred, params, ph:
        _linkat(node, cred, ph),
    "tmpfile_linkat": lambda kind, node, parent, cred, params, ph:
        _tmpfile_linkat(node, cred),
    "stat": _node_op(lambda kind, node, cred, params: OK),
    "access_read": _node_op(lambda kind, node, cred, params: _result(
        permitted(node, cred, MAY_READ), "EACCES")),
    "chdir": _node_op(_chdir),
    # the target is no link
    "readlink": _node_op(lambda kind, node, cred, params: (-1, "EINVAL")),
    **{kind: _node_op(lambda kind, node, cred, params: _attr(
        kind, node, cred, params["target"]))
       for kind in ("chmod", "chown", "utimes_now", "truncate")},
}


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
