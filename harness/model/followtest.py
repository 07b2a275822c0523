"""Can a case see whether its links were followed?

A case is a *follow test* when its observable outcome (ret, errno, the
first link's atime) would differ between every link it reaches being
followed and one of them being refused where a rule in force refuses
it: the flavor's own rule at its stage when it is on, mainline's
may_follow_link() for trailing links when fs.protected_symlinks is 1,
and, where no rule is in force, a refusal where mainline's would come
(before the nosymfollow test and touch_atime()).  Otherwise the case is
"not a follow test": nothing is followed (an op on the link itself,
O_NOFOLLOW or O_CREAT|O_EXCL on it), DAC refuses the walk before the
first link, or a refusal would look exactly like the allowed follow
(e.g. a rule that runs after touch_atime() in front of a target the
follower may not open, or after the nosymfollow test).

Both outcomes come from model.predict() on Configs and probe cases, so
this module only arranges which link a probe rule refuses.
"""

from .flavors import STAGE_BEFORE_MAINLINE, UIDS
from .rule import (DAC_SEARCH, DEFAULT_DIRECTORY_BITS, DEFAULT_ERRNO,
                    REAL_ID_OPS, Config, predict, search_position, uid_of)

NO_LINK = "follows no link"
SEARCH_FIRST = "DAC refuses the walk before the first link"
LOOKS_ALLOWED = "a refusal would look like the allowed follow"

# Where mainline's may_follow_link() refuses: before the nosymfollow
# test and touch_atime(), like the earliest own stage.
MAINLINE_POINT = STAGE_BEFORE_MAINLINE


def _walk_fsuid(params):
    if params["op"] in REAL_ID_OPS:
        return params.get("ruid", params["fsuid"])
    return params["fsuid"]


def _refusing_owner(link, fsuid):
    """An owner name the 2010 rule refuses for `fsuid` in this dir (and
    OWLSM's: both ask the same of the owners)."""
    for name, uid in sorted(UIDS.items()):
        if uid != fsuid and uid != uid_of(link["dir_owner"]):
            return name
    raise AssertionError("no refusable owner for fsuid %r" % (fsuid,))


def probe_case(case, index):
    """A copy of `case` in which the 2010 rule refuses link `index` and
    no other link; the directories are searched where they were.  The
    refused link's directory is sticky and world-writable (1777), the
    others are neither (0777), so a rule that asks for the sticky bit
    alone (directory_bits = sticky) refuses the same link."""
    params = dict(case["params"])
    links = params.get("links") or []
    params["search"] = [dict(entry, after_links=search_position(entry,
                                                                links))
                        for entry in params.get("search") or []]
    fsuid = _walk_fsuid(params)
    params["links"] = [
        dict(link, dir_mode="1777", owner=_refusing_owner(link, fsuid))
        if number == index else dict(link, dir_mode="0777")
        for number, link in enumerate(links)]
    return dict(case, params=params)


def refusal_points(link, config):
    """The stages at which a rule in force would refuse this link, each
    with that rule's variant (directory bits, errno): the own rule's from
    its revision.ini, mainline's the 2010 rule's."""
    mainline = (MAINLINE_POINT, DEFAULT_DIRECTORY_BITS, DEFAULT_ERRNO)
    points = []
    if config.own_active:
        points.append((config.stage, config.bits, config.errno))
    if config.mainline and link["kind"] == "trailing":
        points.append(mainline)
    return points or [mainline]


def _refused(case, index, point, config):
    stage, bits, errno = point
    probe = Config(mainline=False, own=config.own or "probe", own_on=True,
                   compiled=True, stage=stage, links=config.links,
                   bits=bits, errno=errno)
    return predict(probe_case(case, index), probe)


def judge(case, config, memo=None):
    """(follow test?, reason when not) for one case under a Config.
    `memo`: a dict kept for one case (its id and params) across Configs,
    for the predictions that do not depend on the Config's knobs."""
    links = case["params"].get("links") or []
    if not links:
        return False, NO_LINK
    memo = {} if memo is None else memo
    allowed = memo.get("allowed")
    if allowed is None:
        allowed = memo["allowed"] = predict(case, Config(mainline=False))
    for index, link in enumerate(links):
        for point in refusal_points(link, config):
            key = (index, point, config.links)
            refused = memo.get(key)
            if refused is None:
                # the probe's outcome, which its rule's name never changes
                refused = memo[key] = _refused(case, index, point,
                                               config).outcome()
            if refused != allowed.outcome():
                return True, None
    if allowed.decider == DAC_SEARCH and not allowed.atime:
        return False, SEARCH_FIRST
    return False, LOOKS_ALLOWED
