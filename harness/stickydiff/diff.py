"""Pairwise diffs of two flavors' observations, grouped by cause."""

from dataclasses import dataclass, field
from typing import Optional, Tuple

from . import causes, interface, settings
from .check import describe_params, format_outcome
from .flavors import FLAVORS
from .model import ModelError, config_for, observed_outcome, outcomes_agree
from .model import predict

ROWS_PER_GROUP = 4
STATIC_FIELDS = ("path", "polarity", "boot_default", "doc", "kconfig",
                 "log_text")
OBSERVED_FIELDS = ("knob", "present", "mode", "boot value (observed)",
                   "accepted", "log text (observed)")


def interface_cause(field_name):
    return causes.LOG_TEXT if "log" in field_name else causes.INTERFACE


@dataclass(frozen=True)
class Pair:
    title: str
    a: str
    b: str
    settings: Optional[Tuple[str, ...]] = None   # A's labels; None = all


PAIRS = (
    Pair("v1 vs v3 at boot defaults", "v1", "v3", ("boot",)),
    Pair("v1 vs v3 with both protections on", "v1", "v3",
         ("ps0-own1", "ps1-own1")),
    Pair("v3y vs v3", "v3y", "v3"),
    Pair("v1 vs v1-nosec", "v1", "v1-nosec"),
    Pair("v1 vs base", "v1", "base"),
    Pair("v1-nosec vs base", "v1-nosec", "base"),
    Pair("v3 vs base", "v3", "base"),
    Pair("v3y vs base", "v3y", "base"),
)


class JoinError(Exception):
    """Two result files that cannot be joined case by case."""


@dataclass
class Row:
    setting: str
    case_id: str
    params: dict
    outcome_a: tuple
    outcome_b: tuple
    rule_a: str = ""
    rule_b: str = ""

    def side(self, which):
        outcome, rule = ((self.outcome_a, self.rule_a) if which == "a"
                         else (self.outcome_b, self.rule_b))
        text = format_outcome(outcome)
        return "%s by %s" % (text, rule) if rule else text

    def describe(self, pair):
        return "%s %s: %s -> %s %s vs %s %s" % (
            self.setting, self.case_id, describe_params(self.params),
            pair.a, self.side("a"), pair.b, self.side("b"))


def typicality(row):
    """Sort key: the core case (B follows A's trailing link in a
    root-owned 1777 dir with open O_RDONLY) first, then the id."""
    params = row.params
    return (params.get("dir_owner") != "root",
            params.get("link_owner") != "A",
            params.get("follower") != "B",
            params.get("dir_mode") != "1777",
            params.get("op") != "open_rdonly",
            params.get("position") != "trailing",
            params.get("target") != "file-root",
            row.setting, row.case_id)


@dataclass
class Group:
    cause: str
    count: int = 0
    members: list = field(default_factory=list)

    def add(self, row):
        self.count += 1
        self.members.append(row)

    @property
    def rows(self):
        """A few representative rows, of different shapes."""
        out, shapes = [], set()
        for row in sorted(self.members, key=typicality):
            shape = (row.params.get("position"), row.params.get("op"),
                     row.params.get("mount"), row.setting)
            if shape not in shapes:
                shapes.add(shape)
                out.append(row)
            if len(out) == ROWS_PER_GROUP:
                break
        return out


@dataclass
class PairDiff:
    pair: Pair
    joined: int = 0
    settings: list = field(default_factory=list)  # [(label A, label B)]
    differ: dict = field(default_factory=dict)    # cause -> Group
    same_outcome: dict = field(default_factory=dict)
    static: list = field(default_factory=list)    # [(field, a, b)]
    observed: list = field(default_factory=list)  # [(field, a, b)]
    missing: Optional[str] = None

    @property
    def differing(self):
        return sum(g.count for g in self.differ.values())

    @property
    def unexplained(self):
        group = self.differ.get(causes.UNEXPLAINED)
        return group.count if group else 0


def _group(groups, cause, row):
    groups.setdefault(cause, Group(cause)).add(row)


def _joined_settings(pair, file_a, file_b):
    labels = pair.settings or sorted(set(file_a.settings) | {"boot"})
    out = []
    for label in labels:
        if label not in file_a.settings and label != "boot":
            raise JoinError("%s: has no setting %s (needed for %s)"
                            % (file_a.path, label, pair.title))
        other = settings.counterpart(label, pair.b)
        if other not in file_b.settings and other != "boot":
            raise JoinError("%s: has no setting %s (joins %s %s)"
                            % (file_b.path, other, file_a.path, label))
        out.append((label, other))
    return out


def _ids(result, label):
    return {cid for (setting, cid) in result.cases if setting == label}


def join(pair, file_a, file_b):
    """[(label A, label B, case id)]; JoinError on one-sided cases."""
    rows = []
    problems = []
    for label_a, label_b in _joined_settings(pair, file_a, file_b):
        ids_a, ids_b = _ids(file_a, label_a), _ids(file_b, label_b)
        for cid in sorted(ids_a - ids_b):
            problems.append("case %s %s present in %s only (no %s %s in %s)"
                            % (label_a, cid, file_a.path, label_b, cid,
                               file_b.path))
        for cid in sorted(ids_b - ids_a):
            problems.append("case %s %s present in %s only (no %s %s in %s)"
                            % (label_b, cid, file_b.path, label_a, cid,
                               file_a.path))
        rows += [(label_a, label_b, cid) for cid in sorted(ids_a & ids_b)]
    if problems:
        raise JoinError("\n".join(problems))
    return rows


def static_differences(pair):
    spec_a, spec_b = FLAVORS[pair.a], FLAVORS[pair.b]
    return [(name, getattr(spec_a, name), getattr(spec_b, name))
            for name in STATIC_FIELDS
            if getattr(spec_a, name) != getattr(spec_b, name)]


def observed_differences(file_a, file_b):
    """Interface fields whose observed values differ between two files."""
    row_a, row_b = interface.interface_rows({"a": file_a, "b": file_b})
    return [(name, row_a[name], row_b[name]) for name in OBSERVED_FIELDS
            if row_a[name] != row_b[name]]


def _classify(out, label_a, label_b, cid, case_a, case_b, file_a, file_b):
    obs_a, obs_b = observed_outcome(case_a), observed_outcome(case_b)
    row = Row(label_a, cid, case_a["params"], obs_a, obs_b)
    try:
        config_a = config_for(file_a.flavor, file_a.knobs(label_a))
        config_b = config_for(file_b.flavor, file_b.knobs(label_b))
        pred_a, pred_b = predict(case_a, config_a), predict(case_b, config_b)
    except (ModelError, KeyError, ValueError):
        if not outcomes_agree(obs_a, obs_b):
            _group(out.differ, causes.UNEXPLAINED, row)
        return
    explained = (outcomes_agree(obs_a, pred_a.outcome())
                 and outcomes_agree(obs_b, pred_b.outcome()))
    observed_differ = not outcomes_agree(obs_a, obs_b)
    if observed_differ and not explained:
        _group(out.differ, causes.UNEXPLAINED, row)
        return
    if not explained:
        return      # same observation, but the check lists the mismatch
    outcome_causes, verdict_causes = causes.attribute(
        case_a, config_a, case_b, config_b, label_a == "boot")
    if observed_differ:
        _group(out.differ, " + ".join(outcome_causes) or causes.UNEXPLAINED,
               row)
    elif pred_a.verdict()[3:] != pred_b.verdict()[3:]:
        row.rule_a = _rule(pred_a)
        row.rule_b = _rule(pred_b)
        _group(out.same_outcome,
               " + ".join(verdict_causes + outcome_causes)
               or causes.UNEXPLAINED, row)


def _rule(prediction):
    if prediction.log:
        return "%s (%s log text)" % (prediction.decider, prediction.log)
    return prediction.decider


def diff_pair(pair, files):
    """PairDiff of one pair; `missing` set when a flavor has no results."""
    out = PairDiff(pair, static=static_differences(pair))
    absent = [f for f in (pair.a, pair.b) if f not in files]
    if absent:
        out.missing = "no results for %s" % " and ".join(absent)
        return out
    file_a, file_b = files[pair.a], files[pair.b]
    out.observed = observed_differences(file_a, file_b)
    rows = join(pair, file_a, file_b)
    out.settings = _joined_settings(pair, file_a, file_b)
    for label_a, label_b, cid in rows:
        out.joined += 1
        _classify(out, label_a, label_b, cid, file_a.cases[(label_a, cid)],
                  file_b.cases[(label_b, cid)], file_a, file_b)
    return out


def diff_all(files, pairs=PAIRS):
    """[PairDiff], [JoinError text]."""
    diffs, errors = [], []
    for pair in pairs:
        try:
            diffs.append(diff_pair(pair, files))
        except JoinError as err:
            errors.append("%s: %s" % (pair.title, err))
    return diffs, errors
