"""One suite case as a POSIX sh script a reader runs as root (docs/repro.md).

script(case, outcomes) writes, from one case record of a result file (its
id, setting and recorded outcome; the params are fixed by the id, see
cases.py), a script that builds the case's objects on the suite's own
scratch paths (tmpfs on /tmp/sticky/sa, and nf or sb where the case walks
them), makes each link as its owner where the owner may create it there,
writes every knob of the setting and prints what it reads back, then does
the control and the operation as the follower and prints the outcome in
the results' words: "<ok|errno> a<1|0|-> c:<ok|errno|->".

The operation is a shell tool's where one does exactly the suite's
syscall with the follower's ids (SHELL_OPS, for the followers whose four
ids are one user's: util-linux `setpriv --reuid --regid --clear-groups`);
everything else is sticky-suite's single-op mode (`--op`, common/suite/
single.c: do_op() of ops.c after the suite's own id switch), and the
setuid-exec follower is a set-user-ID root copy of it executed by A. The
layout mirrors common/lib/layout.c; needs() reads cases.def's NEEDS rows.
No file is read per call: the report calls script() for every case view.
"""

import re
from functools import lru_cache

from .cases import has_control, split_id
from .flavors import FLAVORS, KNOBS, MAINLINE_BOOT, MAINLINE_KNOB, UIDS
from .settings import parse as parse_setting
from .table import TABLE

SCRATCH = "/tmp/sticky"
SETUID_COPY = SCRATCH + "/sa/x/sticky-setuid"    # setuid_exec.c's
TMPFILE_NAME = "tmpfile"                          # suite.h's
HL = SCRATCH + "/sa/hl"                           # linkat's new names

# Ops a shell tool does with exactly the suite's syscall (ops.c), as
# argv words after the follower's setpriv; "{p}" is the path. execve's
# result is its exit status (7: the script ran), the others' an errno.
SHELL_OPS = {
    "open_rdonly": ("sh", "-c", ': < "$1"', "sh", "{p}"),
    "stat": ("stat", "-L", "-c", "%i", "{p}"),
    # a format without %N: stat's default one reads the link (its atime)
    "lstat": ("stat", "-c", "%i", "{p}"),
    "readlink": ("readlink", "-v", "{p}"),
    "chdir": ("sh", "-c", 'cd "$1"', "sh", "{p}"),
    "unlink": ("unlink", "{p}"),
    "execve": ("{p}",),
}
GONE_OPS = frozenset(("unlink", "rename"))   # a success leaves no link
CHOWN_OPS = frozenset(n for n, op in TABLE.ops.items()
                      if op.control == "chown" or op.on_link == "chown")
AUX_OPS = frozenset(("rename", "linkat_follow"))
SETUID_EXEC = "setuid-exec"
OWNER_OF_UID = {uid: name for name, uid in UIDS.items()}

# The revision knobs, each with the value that protects and its revision.
REVISION_KNOBS = []
for _name, _path in KNOBS:
    _f = next((f for f in FLAVORS.values() if f.knob == _name), None)
    if _f is not None:
        REVISION_KNOBS.append((_name, _path, _f.protect_value, _f.own))
REVISION_KNOBS = tuple(REVISION_KNOBS)
MAINLINE_PATHS = tuple((n, p) for n, p in KNOBS
                       if n in MAINLINE_BOOT)
REQUIRED_MAINLINE = ("protected_symlinks", "protected_hardlinks")  # 3.6


_SAFE = re.compile(r"[\w/.,=:@%+-]+", re.ASCII)


def _q(word):
    """A word for sh: quoted only when it needs it."""
    if _SAFE.fullmatch(word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _cmd(words):
    return " ".join(_q(w) for w in words)


def setpriv(uid):
    """The argv words that run a command as uid (ruid = euid = suid =
    fsuid, the same gids, no supplementary groups); none for root."""
    if uid == 0:
        return ()
    return ("$SETPRIV", "--reuid=%d" % uid, "--regid=%d" % uid,
            "--clear-groups")


# ---------------------------------------------------------------- layout

def _mk(dir_, dir_mode, dir_owner, name, body, owner, by_owner=False):
    return {"dir": dir_, "dir_mode": dir_mode, "dir_owner": dir_owner,
            "path": dir_ + "/" + name, "body": body, "owner": owner,
            "by_owner": by_owner}


@lru_cache(maxsize=None)
def layout(cid):
    """common/lib/layout.c's layout_case() of an id: the links (mk[0] is
    the one the path names first), the paths and the directories."""
    ax = split_id(cid)
    mnt = TABLE.mounts[ax["mount"]]
    mode, downer, lowner = ax["dir_mode"], ax["dir_owner"], ax["link_owner"]
    d = "%s/%s/d%s-%s" % (SCRATCH, mnt, mode, downer)
    ns = "%s/%s/ns" % (SCRATCH, mnt)
    dbase = "d%s-%s" % (mode, downer)
    pos = TABLE.positions[ax["position"]]
    trow = TABLE.targets[ax["target"]]
    name = "%s-l%s-t%s" % (pos.short, lowner, ax["target"])
    name2 = "%s-%s.2" % (dbase, name)
    target = "%s/sa/t/%s" % (SCRATCH, trow.file)
    tgt, suffix, subdir, dirs = target, "", None, [(d, mode, downer)]
    p = pos.name
    if p in ("trailing", "trailing-byowner", "trailing-rel"):
        body = "../t/" + trow.file if p == "trailing-rel" else tgt
        mks = [_mk(d, mode, downer, name, body, lowner,
                   p == "trailing-byowner")]
    elif p in ("intermediate", "dotdot"):
        if p == "dotdot":
            tgt, suffix = SCRATCH + "/sa/t/dir/sub", "/../f"
        else:
            suffix = "/f"
        mks = [_mk(d, mode, downer, name, tgt, lowner)]
    elif p == "subdir-ns":
        subdir = d + "/sub"
        mks = [_mk(subdir, "0777", downer, name, tgt, lowner)]
    else:
        if p in ("chain", "chain-inter"):
            second = _mk(d, mode, downer, name2, tgt, lowner)
            if p == "chain-inter":
                suffix = "/f"
        elif p == "chain-2ns":
            second = _mk(ns, "0777", "root", name2, tgt, lowner)
            dirs.append((ns, "0777", "root"))
        elif p == "chain-xdir":
            xd = "%s/%s/d%s-B" % (SCRATCH, mnt, TABLE.dir_modes[0][0])
            second = _mk(xd, TABLE.dir_modes[0][0], "B", name2, tgt, "root")
            dirs.append((xd, TABLE.dir_modes[0][0], "B"))
        elif p == "chain-1ns":
            second = _mk(d, mode, downer, name, tgt, lowner)
            first = _mk(ns, "0777", "root", "%s-%s" % (dbase, name),
                        second["path"], lowner)
            dirs.insert(0, (ns, "0777", "root"))
        else:
            raise ValueError("case %s: position %r has no layout here"
                             % (cid, p))
        if p != "chain-1ns":
            first = _mk(d, mode, downer, name, second["path"], lowner)
        mks = [first, second]
    if p == "dotdot":
        ctl_target = SCRATCH + "/sa/t/dir/sub" + suffix
    else:
        ctl_target = target + suffix
    path = mks[0]["path"] + suffix
    op = TABLE.ops[ax["op"]]
    if "through" in op.flags:
        path = mks[0]["path"] + "/" + TMPFILE_NAME
        ctl_target = target + "/" + TMPFILE_NAME
    if "bind" in op.flags:
        sa = SCRATCH + "/sa/"
        path, ctl_target = (x.replace(sa, SCRATCH + "/sb/", 1)
                            if x.startswith(sa) else x
                            for x in (path, ctl_target))
    return {"axes": ax, "mnt": mnt, "dirs": dirs, "subdir": subdir,
            "links": mks, "path": path, "ctl_target": ctl_target,
            "target": target, "aux": mks[0]["path"] + ".ren",
            "has_control": has_control(cid)}


def _may_create(uid, mode, owner):
    """DAC write and search on a directory (gid = owner's uid)."""
    if uid == 0:
        return True
    mode = int(mode, 8)
    if uid == UIDS[owner]:
        bits = mode >> 6
    else:
        bits = mode     # no follower shares a group it does not own
    return bits & 3 == 3


# ---------------------------------------------------------------- needs

def needs(cid):
    """(version tuple, [(version, why)...]) of a case: cases.def's NEEDS
    rows for every case, its op and its mount; the greatest first."""
    ax = split_id(cid)
    rows = sorted(((v, why) for row, v, why in TABLE.needs
                   if row in (None, ax["op"], ax["mount"])),
                  key=lambda r: r[0], reverse=True)
    return (rows[0][0] if rows else (0,)), rows


def version_text(v):
    return ".".join(str(x) for x in v)


def single_op_needed(cid):
    """Why the case's operation needs sticky-suite --op, or None when a
    shell tool does it (the op in SHELL_OPS, by a follower whose ids are
    one user's)."""
    ax = split_id(cid)
    row = TABLE.followers[ax["follower"]]
    if ax["follower"] == SETUID_EXEC:
        return ("the setuid-exec follower: A executes a set-user-ID root "
                "copy of sticky-suite, which does the op")
    if "plain" not in row.flags:
        r, e, s, fs = row.ids
        return ("ids ruid %d euid %d fsuid %d: no shell tool sets an fsuid "
                "other than the euid" % (r, e, fs))
    if ax["op"] not in SHELL_OPS:
        return "no shell tool does %s exactly" % ax["op"]
    return None


# ---------------------------------------------------------------- script

PREAMBLE = r'''set -eu
export LC_ALL=C
SUITE=${SUITE:-$(command -v sticky-suite || echo /bin/sticky-suite)}
# util-linux's setpriv: busybox's has no --reuid, and a busybox sh runs its
# own applet for "setpriv", so name util-linux's by its path there
SETPRIV=${SETPRIV:-setpriv}
restore=
mounted=
cleanup() {
	for kv in $restore; do echo "${kv#*=}" >"${kv%%=*}" || true; done
	for m in $mounted; do umount "$m" || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# dir MODE UID PATH / file MODE UID PATH: made by root, owner UID:UID
dir() { mkdir "$3"; chown "$2:$2" "$3"; chmod "$1" "$3"; }
file() { touch "$3"; chown "$2:$2" "$3"; chmod "$1" "$3"; }
# tmpfs MOUNTPOINT OPTIONS: a scratch tmpfs, unmounted at the end
tmpfs() { mkdir -p "$1"; mount -t tmpfs -o "$2" sticky-repro "$1"; mounted="$1 $mounted"; }
# knob PATH VALUE: write a /proc/sys file, print what it reads back; its
# old value is written back at the end (a sysctl file gives its value in
# one read: sh's byte-wise read sees it end without a newline)
knob() {
	read -r old <"$1" || :
	echo "$2" >"$1"
	read -r now <"$1" || :
	echo "knob $1 = $now"
	restore="$1=$old $restore"
	[ "$now" = "$2" ] || { echo "error: $1 reads $now after writing $2" >&2; exit 2; }
}
# errname TEXT: the errno named by the strerror(3) text in a tool's message
errname() {
	case $1 in
	*"Permission denied"*) echo EACCES ;;
	*"Operation not permitted"*) echo EPERM ;;
	*"No such file or directory"*) echo ENOENT ;;
	*"Too many levels of symbolic links"*|*"Symbolic link loop"*) echo ELOOP ;;
	*"File exists"*) echo EEXIST ;;
	*"Resource temporarily unavailable"*) echo EAGAIN ;;
	*"Not a directory"*) echo ENOTDIR ;;
	*"Is a directory"*) echo EISDIR ;;
	*) echo "UNKNOWN" ;;
	esac
}
# tool CMD...: ok, or the errno its message names (a tool that is not
# there stops the script: its ENOENT is not the op's)
tool() {
	if out=$("$@" 2>&1 >/dev/null); then echo ok; return; fi
	echo "  $out" >&2
	case $out in *"failed to execute"*|*"not found"*)
		echo "error: a tool is missing: $out" >&2; exit 2 ;; esac
	errname "$out"
}
# execd CMD...: an execve as the suite counts it: the script exits 7 (ok),
# the exec fails (its errno) or the script exits with another status n
execd() {
	if out=$("$@" 2>&1 >/dev/null); then st=0; else st=$?; fi
	[ -z "$out" ] || echo "  $out" >&2
	if [ "$st" = 7 ]; then echo ok
	elif [ "$(errname "$out")" != UNKNOWN ]; then errname "$out"
	else echo "STATUS$st"; fi
}
# single CMD...: the result of sticky-suite --op (its "ret=N errno=NAME" line)
single() {
	line=$("$@") || { echo "error: $* failed" >&2; exit 2; }
	echo "  $line" >&2
	case $line in
	"ret=0 "*) echo ok ;;
	*) e=${line#*errno=}; echo "${e%% *}" ;;
	esac
}'''


def outcome_of(case):
    """The compact outcome of a case record: "<ok|errno> a<1|0|->
    c:<ok|errno|->", as results/expected keeps it."""
    res = "ok" if case.get("ret") == 0 else str(case.get("errno"))
    atime = {True: "1", False: "0", None: "-"}[case.get("atime_changed")]
    if case.get("control_ret") is None:
        ctl = "-"
    else:
        ctl = "ok" if case["control_ret"] == 0 else case["control_errno"]
    return "%s a%s c:%s" % (res, atime, ctl)


def _describe(ax):
    row = TABLE.followers[ax["follower"]]
    r, e, s, fs = row.ids
    return ("follower %s (ruid %d euid %d suid %d fsuid %d), op %s, %s "
            "link(s) owned by %s in a %s directory of %s, target %s, on "
            "the %s mount" % (ax["follower"], r, e, s, fs, ax["op"],
                              ax["position"], ax["link_owner"],
                              ax["dir_mode"], ax["dir_owner"], ax["target"],
                              ax["mount"]))


def _fixture(cid, lay):
    """The lines that build the case's objects, as root (and as each
    link's owner)."""
    ax = lay["axes"]
    op = TABLE.ops[ax["op"]]
    trow = TABLE.targets[ax["target"]]
    out = ["", "# The scratch file systems, as the suite mounts them "
           "(common/suite/fixture.c)",
           "tmpfs %s/sa mode=0755,strictatime" % SCRATCH]
    if lay["mnt"] != "sa":
        out.append("tmpfs %s/%s mode=0755,strictatime,nosymfollow"
                   % (SCRATCH, lay["mnt"]))
    if "bind" in op.flags:
        out += ["# sb: a noatime bind mount of sa, which the op walks",
                "mkdir -p %s/sb" % SCRATCH,
                "mount -o bind %s/sa %s/sb" % (SCRATCH, SCRATCH),
                'mounted="%s/sb $mounted"' % SCRATCH,
                "mount -o remount,bind,noatime %s/sb" % SCRATCH]
    out += ["# the target (its directory t: 0777 root)",
            "dir 0777 0 %s/sa/t" % SCRATCH]
    uid = UIDS[trow.owner]
    tpath = lay["target"]
    if trow.node == "dir":
        out.append("dir %04o %d %s" % (trow.mode, uid, tpath))
        if ax["target"] == "dir":
            out += ["dir 0755 0 %s/sub" % tpath, "file 0666 0 %s/f" % tpath]
    elif trow.node == "file":
        out.append("file %04o %d %s" % (trow.mode, uid, tpath))
    elif trow.node == "script":
        out += ["printf '#!/bin/sh\\nexit 7\\n' >%s" % tpath,
                "chown %d:%d %s" % (uid, uid, tpath),
                "chmod %04o %s" % (trow.mode, tpath)]
    else:
        out.append("# %s stays absent: the link dangles" % tpath)
    if ax["op"] == "linkat_follow":
        out += ["# hl: where linkat makes its new names",
                "dir 0777 0 %s" % HL]
    if ax["follower"] == SETUID_EXEC:
        out += ["# the setuid-exec follower: a set-user-ID, set-group-ID "
                "root copy of the suite",
                "dir 0755 0 %s/sa/x" % SCRATCH,
                'cp "$SUITE" %s' % SETUID_COPY,
                "chown 0:0 %s" % SETUID_COPY,
                "chmod 6755 %s" % SETUID_COPY]
    out.append("# the directories the links live in")
    for d, mode, owner in lay["dirs"]:
        out.append("dir %s %d %s" % (mode, UIDS[owner], d))
    if lay["subdir"]:
        out.append("dir 0777 %d %s" % (UIDS[ax["dir_owner"]], lay["subdir"]))
    out.append("# the links, each made by its owner where the owner may "
               "create it there")
    for mk in reversed(lay["links"]):
        luid = UIDS[mk["owner"]]
        may = _may_create(luid, mk["dir_mode"], mk["dir_owner"]) and (
            lay["subdir"] is None or mk["dir"] != lay["subdir"]
            or _may_search(luid, ax["dir_mode"], ax["dir_owner"]))
        if may:
            out.append(_words(setpriv(luid) + ("ln", "-s", mk["body"],
                                                mk["path"])))
        else:
            out += ["# %s may not create links in %s: root makes it and "
                    "hands it over, as the suite makes its links"
                    % (mk["owner"], mk["dir"]),
                    _cmd(("ln", "-s", mk["body"], mk["path"])),
                    "chown -h %d:%d %s" % (luid, luid, mk["path"])]
    shown = [d for d, _, _ in lay["dirs"]] + [m["path"] for m in
                                              reversed(lay["links"])]
    out.append(_cmd(("ls", "-ldn") + tuple(shown)))
    return out


def _owner_makes(cid):
    """Does every link of the case's owner make it itself?"""
    lay = layout(cid)
    return all(_may_create(UIDS[mk["owner"]], mk["dir_mode"],
                           mk["dir_owner"]) for mk in lay["links"])


def _may_search(uid, mode, owner):
    if uid == 0:
        return True
    mode = int(mode, 8)
    return bool((mode >> 6 if uid == UIDS[owner] else mode) & 1)


def _knobs(label, given):
    """The lines that write every knob of the setting."""
    out = ["", "# The setting %s: every knob written and read back "
           "(sysctl fs.protected_symlinks is" % label,
           "# /proc/sys/fs/protected_symlinks; Debian boots it at 1, which "
           "refuses every cross-uid",
           "# trailing link before any revision's rule sees it)"]
    parsed = parse_setting(label)
    for name, path in MAINLINE_PATHS:
        value = MAINLINE_BOOT[name]
        if name == MAINLINE_KNOB and parsed is not None:
            value = parsed[0]
        if name == "protected_hardlinks":
            value = 0       # pinned, so that linkat is not masked
        if given and given.get(name) is not None:
            value = given[name]
        line = "knob %s %d" % (path, value)
        out.append(line if name in REQUIRED_MAINLINE else
                   "if [ -e %s ]; then %s; fi" % (path, line))
    own = None if parsed is None else parsed[1]
    if given:
        for name, path, _, rev in REVISION_KNOBS:
            if given.get(name) is not None:
                out.append("if [ -e %s ]; then knob %s %d; fi   # %s"
                           % (path, path, given[name], rev))
        return out
    if own is None:
        out.append("# the revision knobs: %s" % (
            "as the kernel booted (the boot setting)" if parsed is None
            else "none in this setting (a kernel without one)"))
        for name, path, _, rev in REVISION_KNOBS:
            out.append("if [ -e %s ]; then read -r v <%s || :; echo \"knob %s "
                       "= $v\"; fi" % (path, path, path))
        return out
    out.append("# the revision's own knob at protection %d, whichever of "
               "them this kernel has" % own)
    out.append("own=")
    for name, path, protect, rev in REVISION_KNOBS:
        value = own if protect == 1 else 1 - own
        out.append("if [ -e %s ]; then knob %s %d; own=%s; fi   # %s: "
                   "%d protects" % (path, path, value, rev, rev, protect))
    out.append('[ -n "$own" ] || { echo "error: setting %s needs a kernel '
               'with a 2010 revision\'s knob (v1, v3 or Yama); this one has '
               'none" >&2; exit 2; }' % label)
    return out


def _op_words(cid, lay, path, aux):
    """(shell function, argv words) that do the case's op on path."""
    ax = lay["axes"]
    frow = TABLE.followers[ax["follower"]]
    if single_op_needed(cid) is None:
        words = tuple(w.replace("{p}", path) for w in SHELL_OPS[ax["op"]])
        fn = "execd" if ax["op"] == "execve" else "tool"
        return fn, setpriv(frow.ids[0]) + words
    extra = ()
    if ax["op"] in CHOWN_OPS:
        chown_to = TABLE.targets[ax["target"]].chown_to
        extra = ("--chown", str(UIDS[chown_to]))
    tail = ("--op", ax["op"]) + extra + (path,) + ((aux,) if aux else ())
    if ax["follower"] == SETUID_EXEC:
        return "single", setpriv(frow.ids[0]) + (SETUID_COPY,) + tail
    ids = ",".join(str(i) for i in frow.ids)
    return "single", ("$SUITE",) + tail[:2] + ("--ids", ids) + tail[2:]


def _tidy(ax, aux):
    """What the control left that the op must not find (runner.c tidy)."""
    if ax["op"] == "open_creat" and ax["target"] == "dangling":
        return "rm -f %s/sa/t/missing" % SCRATCH
    if ax["op"] == "linkat_follow":
        return "rm -f %s" % aux
    if ax["op"] == "tmpfile_linkat":
        return "rm -f %s/sa/t/ww/%s" % (SCRATCH, TMPFILE_NAME)
    return None


def _words(words):
    return " ".join('"%s"' % w if w in ("$SUITE", "$SETPRIV") else _q(w)
                    for w in words)


@lru_cache(maxsize=None)
def _body(cid):
    """Everything of the script that the id fixes (not the setting)."""
    lay = layout(cid)
    ax = lay["axes"]
    why_single = single_op_needed(cid)
    out = _fixture(cid, lay)
    out += ["", "# The operation (%s) by %s" % (ax["op"], ax["follower"])]
    if why_single:
        out.append("# with sticky-suite's single-op mode: %s" % why_single)
    else:
        out.append("# with a shell tool that does the suite's syscall")
    link0 = lay["links"][0]["path"]
    if lay["has_control"]:
        aux = HL + "/c0" if ax["op"] == "linkat_follow" else (
            lay["ctl_target"] + ".ren" if ax["op"] == "rename" else None)
        fn, words = _op_words(cid, lay, lay["ctl_target"], aux)
        out += ["# the control: the same op on the target, no link in the "
                "path",
                "ctl=$(%s %s)" % (fn, _words(words))]
        tidy = _tidy(ax, aux)
        if tidy:
            out.append(tidy)
    else:
        out += ["# no control: the op acts on the link itself", "ctl=-"]
    out += ["echo \"control: $ctl\"",
            "# the link's atime to 1 s after the epoch, to see whether "
            "the op touches it",
            "touch -h -a -d @1 %s" % link0]
    aux = (lay["aux"] if ax["op"] == "rename" else
           HL + "/c2" if ax["op"] == "linkat_follow" else None)
    fn, words = _op_words(cid, lay, lay["path"], aux)
    out += ["res=$(%s %s)" % (fn, _words(words)),
            "echo \"result: $res\""]
    gone = (' && [ "$res" != ok ]' if ax["op"] in GONE_OPS else "")
    out += ["if at=$(stat -c %%X %s 2>/dev/null)%s; then" % (link0, gone),
            '\t[ "$at" = 1 ] && a=0 || a=1',
            "else",
            "\ta=-   # the link is gone",
            "fi"]
    return "\n".join(out), why_single is not None


def script(case, outcomes=None):
    """A POSIX sh script that reproduces `case` (a case record of a result
    file: "id", "setting", its outcome; "knobs": the setting's knob
    values, optional), with a comment of what each flavor returned when
    `outcomes` ({flavor: outcome string}) is given."""
    cid = case["id"]
    label = case.get("setting") or "boot"
    ax = split_id(cid)
    version, rows = needs(cid)
    body, single = _body(cid)
    parsed = parse_setting(label)
    head = ["#!/bin/sh",
            "# Reproduces the sticky-symlink suite's case",
            "#   %s" % cid,
            "# under the setting %s: %s." % (label, _describe(ax)),
            "# Needs Linux >= %s: %s." % (version_text(version), "; ".join(
                "%s (%s)" % (why, version_text(v)) for v, why in rows))]
    if parsed is not None and parsed[1] is not None:
        head.append("# The setting's own%d needs a kernel with one of the "
                    "2010 revisions (this project's v1, v3, v3y or yama "
                    "builds)." % parsed[1])
    head.append("# Tools: sh, mount, umount, mkdir, ln, chown, chmod, touch, "
                "stat, ls, grep, cp (busybox or coreutils),")
    head.append("# util-linux setpriv (busybox's has no --reuid)%s." % (
        "; sticky-suite (common/, `make guest` builds build/guest/sticky-"
        "suite): SUITE=/path/to/sticky-suite" if single else ""))
    head += ["# Run it as root on a machine you can spare: it mounts tmpfs "
             "on %s/..., writes" % SCRATCH,
             "# the sysctls below and puts both back when it ends "
             "(docs/repro.md)."]
    if "ret" in case:
        head.append("# Recorded in the results: %s" % outcome_of(case))
    if outcomes:
        head.append("# What each flavor returned:")
        width = max(len(f) for f in outcomes)
        for flavor, text in outcomes.items():
            head.append("#   %-*s  %s" % (width, flavor, text))
    tail = ["", 'echo "outcome: $res a$a c:$ctl"']
    if "ret" in case:
        rec = outcome_of(case)
        tail += ['if [ "$res a$a c:$ctl" = %s ]; then echo "as recorded";'
                 % _q(rec),
                 'else echo "differs from the record: %s"; exit 1; fi' % rec]
    check = []
    if '"$SETPRIV"' in body:
        check.append('"$SETPRIV" --help 2>&1 | grep -q -- --reuid || { echo '
                     '"error: $SETPRIV has no --reuid: install util-linux, '
                     'and where sh is busybox run SETPRIV=/usr/bin/setpriv '
                     'sh $0" >&2; exit 2; }')
    if single:
        check = ['[ -x "$SUITE" ] || { echo "error: sticky-suite not found:'
                 ' build it with make guest (build/guest/sticky-suite) and '
                 'run SUITE=/path/to/sticky-suite sh $0" >&2; exit 2; }']
    return "\n".join(head + [PREAMBLE] + check + _knobs(
        label, case.get("knobs")) + [body] + tail) + "\n"


# ---------------------------------------------------------------- check

def check_selection(outcomes, per_group=1):
    """The (id, setting) pairs `sticky.py repro --check` runs in a flavor,
    from its outcomes ({id: {setting: outcome}}), deterministically: per
    group, the first `per_group` ids in the suite's order under the first
    setting after boot, and the first id whose result word differs
    between two settings, under both (an allowed and a refused follow);
    per follower that needs the single-op mode (in the matrix), per op
    of the ops and of the mounts group and per position of the positions
    group, the first case the settings decide, else its first, under the
    setting that refuses; a matrix case whose link root makes for its
    owner, and one that every setting refuses; one case under `boot`."""
    from .cases import case_ids
    ids = [c for c in case_ids() if c in outcomes]
    labels = list(next(iter(outcomes.values()))) if outcomes else []
    later = [s for s in labels if s != "boot"] or labels
    chosen = []

    def add(cid, label):
        if (cid, label) not in chosen:
            chosen.append((cid, label))

    def words(cid):
        return [(s, outcomes[cid][s].split()[0]) for s in later]

    def decided(cid):
        w = words(cid)
        return next(((a, b) for a, x in w for b, y in w
                     if x == "ok" and y != "ok"), None)

    def first(pred):
        return next((c for c in ids if pred(c)), None)

    for group, short, _ in TABLE.groups:
        mine = [c for c in ids if c.startswith(short + "/")]
        for cid in mine[:per_group]:
            add(cid, later[0])
        cid = next((c for c in mine if decided(c)), None)
        if cid:
            for label in decided(cid):
                add(cid, label)
    for fname, row in TABLE.followers.items():
        if "plain" in row.flags:
            continue
        pick = (first(lambda c: split_id(c)["follower"] == fname
                      and decided(c))
                or first(lambda c: split_id(c)["follower"] == fname))
        if pick:
            add(pick, (decided(pick) or (later[0],))[-1])
    # per op of the ops and mounts groups and per position of the
    # positions group, a follower that is not root
    for group, axis, names in (("ops", "op", TABLE.ops),
                               ("mounts", "op", TABLE.ops),
                               ("positions", "position", TABLE.positions)):
        for value in names:
            def mine(c, group=group, axis=axis, value=value):
                ax = split_id(c)
                return (ax["group"] == group and ax[axis] == value
                        and "plain" in TABLE.followers[ax["follower"]].flags
                        and ax["follower"] != "root")
            pick = first(lambda c: mine(c) and decided(c)) or first(mine)
            if pick:
                add(pick, (decided(pick) or (later[0],))[-1])
    # a link its owner may not make (root makes it and hands it over), and
    # a follow that every setting refuses (DAC: the control never walks
    # the case's directory), in the matrix
    pick = first(lambda c: c.startswith("m/") and not _owner_makes(c))
    if pick:
        add(pick, later[-1])
    pick = first(lambda c: c.startswith("m/") and all(
        outcomes[c][s].startswith("EACCES ") for s in later))
    if pick:
        add(pick, later[0])
    if "boot" in labels and chosen:
        add(chosen[0][0], "boot")
    return chosen
