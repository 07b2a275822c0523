"""Rule model: predict one case record from the case alone.

The model walks the links a case follows (params.links, in the kernel's
order) through the steps of 6.1's pick_link() as each flavor arranges them:

    own rule, placed first      STAGE_BEFORE_MAINLINE (before mainline's check)
    mainline may_follow_link()  trailing links only, fs.protected_symlinks
    own rule, placed after it   STAGE_AFTER_MAINLINE (where 2.6.34 had the hook)
    nosymfollow / RESOLVE_NO_SYMLINKS -> ELOOP
    touch_atime()
    own rule, placed last       STAGE_LSM_61, where 6.1 calls the hook

(each revision's place comes from its flavor's pick_link_order, and the
links it checks, every link or the trailing one, from its revision.ini),

then DAC and the operation's result on the target, predicted from modes,
owners and ids by control.py (or, for operations on the link itself, DAC
and the sticky deletion rule); a recorded control is never read here.
A Prediction names the rule that decided it, the log message it implies
and the porting artifacts that shaped it, so that the differ can explain
why two flavors disagree.
"""

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Optional, Tuple

from .control import (CHOWN_UID, CHOWN_UID_DEFAULT, REAL_ID_OPS,
                      ControlError, predict_control)
from .flavors import (FLAVORS, MAINLINE_KNOB, STAGE_AFTER_MAINLINE, STAGE_LSM_61,
                      STAGE_BEFORE_MAINLINE, UIDS)
from revision import (DEFAULT_DIRECTORY_BITS, DEFAULT_ERRNO,
                      DIRECTORY_BITS)
from .table import TABLE, ops_with

S_ISVTX = 0o1000
S_IWOTH = 0o0002
# revision.ini's directory_bits: the mode bits a directory must all have
# for a rule to judge the links in it.
BITS = {"sticky world-writable": S_ISVTX | S_IWOTH,    # 2010, mainline
        "sticky": S_ISVTX}                             # OWLSM (2001)
assert set(BITS) == set(DIRECTORY_BITS)

# What an op does to the link its path names (cases.def OP: on the link):
# these act on the link in its directory; "eloop" and "eexist" answer so
# when they do not follow it.
LINK_SELF = ("stat", "read", "delete", "times", "chown")
LINK_SELF_OPS = frozenset(n for n, op in TABLE.ops.items()
                          if op.on_link in LINK_SELF)
NOT_FOLLOWED = {"eloop": ("ELOOP", "O_NOFOLLOW on the link"),
                "eexist": ("EEXIST", "O_CREAT|O_EXCL on the link")}

# Ops that walk a noatime bind mount of the sticky dirs' file system
# (common/lib/layout.c via_bind): following a link there touches no atime.
NOATIME_OPS = ops_with("bind")
# openat2(RESOLVE_CACHED): an RCU-only walk.  Every rule answers -ECHILD
# where it would refuse in RCU-walk mode (to log in ref-walk), and
# LOOKUP_CACHED turns the ref-walk retry into -EAGAIN (path_init()), so a
# refusal by a rule is EAGAIN, unlogged; DAC refuses in RCU-walk itself.
RCU_ONLY_OPS = ops_with("rcu_only")
# RESOLVE_NO_SYMLINKS: every link is ELOOP.
NOSYMS_OPS = ops_with("nosyms")

# Porting artifacts (6.1's LSM hook sits later than in 2010).
ARTIFACT_ELOOP = "artifact: ELOOP before LSM hook"
ARTIFACT_ATIME = "artifact: atime touched before LSM hook"

# Deciders: which rule produced the result.
OWN = "own rule"
MAINLINE = "mainline protected_symlinks"
DAC_SEARCH = "DAC search"
DAC_WRITE = "DAC write+search"
STICKY_DELETE = "sticky deletion rule"
ELOOP_RULE = "nosymfollow/RESOLVE_NO_SYMLINKS"
NOFOLLOW = NOT_FOLLOWED["eloop"][1]
EXCL = NOT_FOLLOWED["eexist"][1]
CONTROL = "control (target op)"
LINK_OP = "op on the link"


class ModelError(Exception):
    """The case lacks what the model needs to predict it."""


@dataclass(frozen=True)
class Config:
    """The rules in force for one flavor under one knob setting."""

    mainline: bool
    own: Optional[str] = None
    own_on: bool = False
    compiled: bool = False
    stage: Optional[str] = None
    links: str = "every"                 # which links the own rule checks
    # the own rule's variant (revision.ini directory_bits and errno)
    bits: str = DEFAULT_DIRECTORY_BITS
    errno: str = DEFAULT_ERRNO

    @property
    def own_active(self):
        return self.own is not None and self.compiled and self.own_on

    @cached_property
    def rules(self):
        """What predict() and followtest.judge() read: two Configs with
        equal rules predict every case alike.  An own rule that is not
        in force adds nothing (its probes in judge() compare outcomes,
        never the log's name)."""
        if not self.own_active:
            return (self.mainline, None, None, self.links)
        return (self.mainline, self.own, self.stage, self.links,
                self.bits, self.errno)

    @cached_property
    def probed(self):
        """What predict() and followtest.judge() read but the own rule's
        name, which only a Prediction's log carries."""
        if not self.own_active:
            return (self.mainline, False, None, self.links)
        return (self.mainline, True, self.stage, self.links, self.bits,
                self.errno)


@dataclass(frozen=True)
class Prediction:
    ret: int
    errno: str
    atime: Optional[bool]
    decider: str
    link: Optional[int] = None
    log: Optional[str] = None            # the revision that logs, or None
    artifacts: Tuple[str, ...] = field(default_factory=tuple)
    # Set by check.py (followtest.py): False when a refused follow would
    # look like the allowed one ("not a follow test"); None until judged.
    follow_test: Optional[bool] = None
    not_follow: Optional[str] = None     # why not, when follow_test is False

    def outcome(self):
        return (self.ret, self.errno, self.atime)

    def verdict(self):
        """Outcome plus what is only visible in the log."""
        return self.outcome() + (self.decider, self.log)

    # replace() of one or two fields, without its per-field walk: the
    # differ makes about 90,000 of these per report
    def judged(self, follow_test, not_follow):
        return Prediction(self.ret, self.errno, self.atime, self.decider,
                          self.link, self.log, self.artifacts, follow_test,
                          not_follow)

    def logged_by(self, log):
        return Prediction(self.ret, self.errno, self.atime, self.decider,
                          self.link, log, self.artifacts, self.follow_test,
                          self.not_follow)


def config_for(flavor_name, knobs):
    """Build the Config of a flavor from the knob values of a setting."""
    flavor = FLAVORS[flavor_name]
    return Config(mainline=knobs.get(MAINLINE_KNOB) == 1,
                  own=flavor.own, own_on=flavor.own_protects(knobs),
                  compiled=flavor.compiled, stage=flavor.stage,
                  links=flavor.links, bits=flavor.directory_bits,
                  errno=flavor.errno)


def uid_of(name):
    try:
        return UIDS[name]
    except KeyError:
        raise ModelError("unknown owner name %r" % (name,)) from None


def sticky_denies(link, fsuid, bits=DEFAULT_DIRECTORY_BITS):
    """The 2010 rule, shared by mainline and every revision that keeps
    revision.ini's default directory_bits: the link's owner is neither the
    follower's fsuid nor the directory's owner, in a sticky world-writable
    directory.  bits = "sticky" is OWLSM's rule (2001): a sticky directory,
    world-writable or not."""
    owner = uid_of(link["owner"])
    mode = int(link["dir_mode"], 8)
    need = BITS[bits]
    return (fsuid != owner and mode & need == need
            and uid_of(link["dir_owner"]) != owner)


def dac_allows(mode, owner_uid, gid, fsuid, fsgid, need):
    """Unix permission bits; fsuid 0 keeps its capabilities (contract)."""
    if fsuid == 0:
        return True
    if fsuid == owner_uid:
        bits = (mode >> 6) & 7
    elif fsgid == gid:
        bits = (mode >> 3) & 7
    else:
        bits = mode & 7
    return bits & need == need


def _search_denied(entry, fsuid, fsgid):
    return not dac_allows(int(entry["mode"], 8), uid_of(entry["owner"]),
                          entry["gid"], fsuid, fsgid, 1)


def _no_symlinks(params):
    if params.get("mount") == "nosymfollow":
        return True
    resolve = params.get("resolve") or ""
    if isinstance(resolve, list):
        resolve = " ".join(resolve)
    return ("no_symlinks" in str(resolve).lower()
            or params["op"] in NOSYMS_OPS)


class _Walk:
    """Mutable state of one predicted path walk."""

    def __init__(self, params, config):
        self.params = params
        self.config = config
        self.fsuid = params["fsuid"]
        self.fsgid = params.get("fsgid", self.fsuid)
        if params.get("op") in REAL_ID_OPS:
            # access(2) walks with fsuid/fsgid set to the real ids
            # (access_override_creds in fs/open.c), caps kept only by ruid 0.
            self.fsuid = params.get("ruid", self.fsuid)
            self.fsgid = params.get("rgid", self.fsgid)
        self.atime = False
        self.noatime = params.get("op") in NOATIME_OPS
        self.artifacts = []

    def result(self, errno, decider, link=None, log=None):
        return Prediction(ret=-1, errno=errno, atime=self.atime,
                          decider=decider, link=link, log=log,
                          artifacts=tuple(self.artifacts))

    def own_denies(self, link, stage):
        config = self.config
        return (config.own_active and config.stage == stage
                and (config.links == "every" or link["kind"] == "trailing")
                and sticky_denies(link, self.fsuid, config.bits))

    def follow(self, index, link, no_symlinks):
        """Steps of pick_link() for one link; a Prediction if it fails."""
        own_errno = self.config.errno
        if self.own_denies(link, STAGE_BEFORE_MAINLINE):
            return self.result(own_errno, OWN, index, self.config.own)
        if (self.config.mainline and link["kind"] == "trailing"
                and sticky_denies(link, self.fsuid)):
            return self.result("EACCES", MAINLINE, index)
        if self.own_denies(link, STAGE_AFTER_MAINLINE):
            return self.result(own_errno, OWN, index, self.config.own)
        if no_symlinks:
            if self.own_denies(link, STAGE_LSM_61):
                self.artifacts.append(ARTIFACT_ELOOP)
            return self.result("ELOOP", ELOOP_RULE, index)
        if index == 0 and not self.noatime:
            self.atime = True
        if self.own_denies(link, STAGE_LSM_61):
            if index == 0 and not self.noatime:
                self.artifacts.append(ARTIFACT_ATIME)
            return self.result(own_errno, OWN, index, self.config.own)
        return None

    def search(self, entries):
        for entry in entries:
            if _search_denied(entry, self.fsuid, self.fsgid):
                return self.result("EACCES", DAC_SEARCH)
        return None

    def walk(self):
        params = self.params
        links = params.get("links") or []
        search = params.get("search") or []
        no_symlinks = _no_symlinks(params)
        for index, link in enumerate(links):
            denied = self.search([e for e in search
                                  if search_position(e, links) == index])
            if denied:
                return denied
            denied = self.follow(index, link, no_symlinks)
            if denied:
                return denied
        return self.search([e for e in search
                            if search_position(e, links) >= len(links)])


def search_position(entry, links):
    """How many links the walk follows before it searches `entry`.

    An explicit `after_links` wins.  Otherwise the directory is searched
    just before the first link that lives in it (matched by mode and
    owner; in chain-1ns the sticky directory holds the second link), and
    before every link when none lives in it.
    """
    if "after_links" in entry:
        return entry["after_links"]
    for index, link in enumerate(links):
        if (link["dir_mode"], link["dir_owner"]) == (entry["mode"],
                                                     entry["owner"]):
            return index
    return 0


def _link_self(walk, params):
    """unlink/rename/readlink/lstat and the *_nofollow ops act on the link in
    its directory; a symlink's mode is 0777, so faccessat(R_OK,
    AT_SYMLINK_NOFOLLOW) grants everyone who can search the directory."""
    op = params["op"]
    on_link = TABLE.ops[op].on_link
    fsuid = walk.fsuid
    if on_link == "delete":
        mode = int(params["dir_mode"], 8)
        dir_uid = uid_of(params["dir_owner"])
        dir_gid = params.get("dir_gid", dir_uid)
        if not dac_allows(mode, dir_uid, dir_gid, fsuid, walk.fsgid, 3):
            return walk.result("EACCES", DAC_WRITE)
        if (mode & S_ISVTX and fsuid not in (0, dir_uid)
                and fsuid != uid_of(params["link_owner"])):
            return walk.result("EPERM", STICKY_DELETE)
        return Prediction(0, "0", walk.atime, LINK_OP,
                          artifacts=tuple(walk.artifacts))
    if on_link in ("times", "chown"):
        # an explicit mtime (the owner or CAP_FOWNER), a chown to the
        # uid that runner.c gives (the owner keeping its uid, or CAP_CHOWN)
        link_uid = uid_of(params["link_owner"])
        new_uid = CHOWN_UID.get(params["target"], CHOWN_UID_DEFAULT)
        owner_ok = fsuid == link_uid and (on_link == "times"
                                          or new_uid == link_uid)
        if not (owner_ok or fsuid == 0):
            return walk.result("EPERM", LINK_OP)
        return Prediction(0, "0", walk.atime, LINK_OP,
                          artifacts=tuple(walk.artifacts))
    atime = True if on_link == "read" else walk.atime
    return Prediction(0, "0", atime, LINK_OP, artifacts=tuple(walk.artifacts))


def predict(case, config):
    """Predict ret/errno/atime of a case record under a Config."""
    params = case["params"]
    walk = _Walk(params, config)
    denied = walk.walk()
    if denied:
        if params["op"] in RCU_ONLY_OPS and denied.decider in (OWN, MAINLINE):
            return replace(denied, errno="EAGAIN", log=None)
        return denied
    op = params["op"]
    if op in LINK_SELF_OPS:
        return _link_self(walk, params)
    if not params.get("follows", True) and op in TABLE.ops:
        answer = NOT_FOLLOWED.get(TABLE.ops[op].on_link)
        if answer:
            return walk.result(*answer)
    try:
        control = predict_control(params)
    except ControlError as err:
        raise ModelError(str(err)) from None
    if control is None:
        raise ModelError("op %r follows links but the suite runs no control"
                         " for it" % (op,))
    return Prediction(control[0], control[1], walk.atime,
                      CONTROL, artifacts=tuple(walk.artifacts))


def memo_get(memo, key, params):
    """The answer `memo` keeps under `key` as (params, answer), or None
    when there is none or it was made for other params (a case id whose
    record carries params other than those first seen)."""
    known = memo.get(key)
    if known is not None and (known[0] is params or known[0] == params):
        return known[1]
    return None


class Walks:
    """predict(), once per case id and Config.rules: the counterfactual
    steps of a diff ask the same Configs for the same cases in many
    pairs.  Configs that differ only in the own rule's name walk alike
    (Config.probed; the log is set afresh), and `known(case, config)`
    gives the predictions made elsewhere (the check's), or None.  A case
    whose params differ from those first seen under its id is predicted
    afresh."""

    def __init__(self, known=None):
        self._known = {}        # (id, rules) -> (params, Prediction)
        self._walked = {}       # (id, probed) -> (params, Prediction)
        self._elsewhere = known or (lambda case, config: None)

    def __call__(self, case, config):
        key = (case["id"], config.rules)
        params = case["params"]
        prediction = memo_get(self._known, key, params)
        if prediction is not None:
            return prediction
        walked = (case["id"], config.probed)
        prediction = (memo_get(self._walked, walked, params)
                      or self._elsewhere(case, config))
        if prediction is None:
            prediction = predict(case, config)
            self._walked[walked] = (params, prediction)
        if prediction.log is not None and prediction.log != config.own:
            prediction = prediction.logged_by(config.own)
        self._known[key] = (params, prediction)
        return prediction


def observed_outcome(case):
    return (case["ret"], case["errno"], case.get("atime_changed"))


def outcomes_agree(observed, predicted):
    """Compare (ret, errno, atime); an unmeasured atime (None) matches."""
    if observed[:2] != predicted[:2]:
        return False
    if observed[2] is None or predicted[2] is None:
        return True
    return observed[2] == predicted[2]
