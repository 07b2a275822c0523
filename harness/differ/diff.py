"""Pairwise diffs of two flavors' observations, grouped by cause."""

import configparser
import os
from dataclasses import dataclass, field
from typing import Optional, Tuple

from . import causes
from model import interface
from model import settings
from .check import describe_params, format_outcome
from model.flavors import FLAVOR_ORDER, FLAVORS, REFERENCE
from model.rule import ModelError, config_for, observed_outcome, outcomes_agree
from model.rule import Walks, predict

ROWS_PER_GROUP = 4
STATIC_FIELDS = ("path", "polarity", "boot_default", "doc", "kconfig",
                 "log_text")
OBSERVED_FIELDS = ("knob", "present", "mode", "boot value (observed)",
                   "accepted", "log text (observed)")
BASE = REFERENCE


def interface_cause(field_name):
    return causes.LOG_TEXT if "log" in field_name else causes.INTERFACE


@dataclass(frozen=True)
class Pair:
    title: str
    a: str
    b: str
    settings: Optional[Tuple[str, ...]] = None   # A's labels; None = all
    # fs.protected_symlinks' value with each side's own knob at its own
    # boot default (2010: no such knob, so 0); None: join equal labels
    at_defaults: Optional[int] = None


PAIRS_INI = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "pairs.ini")


def load_pairs(path=PAIRS_INI):
    """The declared pairs (harness/pairs.ini), in order."""
    cp = configparser.ConfigParser(interpolation=None)
    with open(path, encoding="utf-8") as stream:
        cp.read_file(stream)
    out = []
    for title in cp.sections():
        sec = cp[title]
        labels = tuple(sec.get("settings", "").split()) or None
        ps = sec.get("at_defaults", "").strip()
        if ps not in ("", "ps0", "ps1"):
            raise ValueError("%s [%s]: at_defaults = %r, not ps0 or ps1"
                             % (path, title, ps))
        out.append(Pair(title, sec["a"].strip(), sec["b"].strip(), labels,
                        int(ps[2]) if ps else None))
    return tuple(out)


PAIRS = load_pairs()


def pairs_for(flavors, pairs=PAIRS):
    """The declared pairs, then "<flavor> vs base" for every other flavor
    present that no declared pair compares with base."""
    out = list(pairs)
    with_base = {p.a for p in pairs if p.b == BASE} | {
        p.b for p in pairs if p.a == BASE}
    for name in flavors:
        if name != BASE and name not in with_base:
            out.append(Pair("%s vs base" % name, name, BASE))
    return out


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
    setting_b: str = ""

    @property
    def settings_text(self):
        if not self.setting_b or self.setting_b == self.setting:
            return self.setting
        return "%s ~ %s" % (self.setting, self.setting_b)

    def side(self, which):
        outcome, rule = ((self.outcome_a, self.rule_a) if which == "a"
                         else (self.outcome_b, self.rule_b))
        text = format_outcome(outcome)
        return "%s by %s" % (text, rule) if rule else text

    def describe(self, pair):
        return "%s %s: %s -> %s %s vs %s %s" % (
            self.settings_text, self.case_id, describe_params(self.params),
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
    def causes(self):
        return causes.parts(self.cause)

    @property
    def ordered(self):
        """Every member, the most typical first (sorted once the group
        stops growing)."""
        if getattr(self, "_ordered", (None, -1))[1] != len(self.members):
            self._ordered = (sorted(self.members, key=typicality),
                             len(self.members))
        return self._ordered[0]

    @property
    def rows(self):
        """A few representative rows, of different shapes."""
        out, shapes = [], set()
        for row in self.ordered:
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
        return sum(g.count for g in list(self.differ.values())
                   + list(self.same_outcome.values())
                   if causes.UNEXPLAINED in g.causes)

    def cause_counts(self):
        """{cause label: cases whose different outcome it is part of}."""
        out = {}
        for group in self.differ.values():
            for label in group.causes:
                out[label] = out.get(label, 0) + group.count
        return out


def _group(groups, cause, row):
    groups.setdefault(cause, Group(cause)).add(row)


def _labels(result, wanted):
    labels = sorted(set(result.settings) | {"boot"})
    if wanted is None:
        return labels
    for label in wanted:
        if label not in labels:
            raise JoinError("%s: has no setting %s" % (result.path, label))
    return list(wanted)


def _joins(label_a, label_b):
    """Do two setting labels describe the same knobs in force?  `boot`
    joins `boot`; `psP-ownO` joins the same label, and base's `psP-own-`
    joins every `psP-own<O>`."""
    if "boot" in (label_a, label_b):
        return label_a == label_b
    (ps_a, own_a), (ps_b, own_b) = (settings.parse(label_a),
                                    settings.parse(label_b))
    return ps_a == ps_b and (own_a == own_b or None in (own_a, own_b))


def default_label(flavor, ps):
    """The label of a flavor's own knob at its boot default, with
    fs.protected_symlinks = ps."""
    spec = FLAVORS[flavor]
    if spec.knob is None:
        return "ps%d-own-" % ps
    on = spec.own_protects({spec.knob: spec.boot_default})
    return "ps%d-own%d" % (ps, int(on))


def _joined_settings(pair, file_a, file_b):
    """[(label A, label B)]: the pair's labels of A, each joined with
    every label of B that means the same knobs; either side may be base.
    A pair `at_defaults` joins each side's own default instead."""
    if pair.at_defaults is not None:
        labels = (default_label(pair.a, pair.at_defaults),
                  default_label(pair.b, pair.at_defaults))
        for result, label in zip((file_a, file_b), labels):
            if label not in result.settings:
                raise JoinError("%s: has no setting %s (needed for %s)"
                                % (result.path, label, pair.title))
        return [labels]
    out = []
    labels_b = _labels(file_b, None)
    for label in _labels(file_a, pair.settings):
        others = [other for other in labels_b if _joins(label, other)]
        if not others:
            raise JoinError("%s: has no setting that joins %s %s (needed"
                            " for %s)" % (file_b.path, file_a.path, label,
                                          pair.title))
        out += [(label, other) for other in others]
    return out


def join(pair, file_a, file_b):
    """[(label A, label B, [case id, in order])], one item per joined
    setting; JoinError on one-sided cases."""
    rows = []
    problems = []
    for label_a, label_b in _joined_settings(pair, file_a, file_b):
        ids_a, ids_b = file_a.ids(label_a), file_b.ids(label_b)
        for cid in sorted(ids_a - ids_b):
            problems.append("case %s %s present in %s only (no %s %s in %s)"
                            % (label_a, cid, file_a.path, label_b, cid,
                               file_b.path))
        for cid in sorted(ids_b - ids_a):
            problems.append("case %s %s present in %s only (no %s %s in %s)"
                            % (label_b, cid, file_b.path, label_a, cid,
                               file_a.path))
        rows.append((label_a, label_b, file_a.sorted_ids(label_a)
                     if ids_a == ids_b else sorted(ids_a & ids_b)))
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


class _Side:
    """One flavor of a pair: its file, configs and, from its CheckResult,
    the predictions and the cases the model explains."""

    def __init__(self, result, check=None):
        self.result = result
        self.predictions = check.predictions if check else {}
        self.settled = check.settled if check else {}
        self.configs = {}

    def config(self, label):
        if label not in self.configs:
            self.configs[label] = config_for(self.result.flavor,
                                             self.result.knobs(label))
        return self.configs[label]

    def predict(self, key, case):
        prediction = self.predictions.get(key)
        if prediction is not None:
            return prediction
        return predict(case, self.config(key[0]))

    def predictor(self, label):
        """predict() of one setting's cases, given (id, case)."""
        columns = getattr(self.predictions, "columns", None)
        if columns is None:
            return lambda cid, case: self.predict((label, cid), case)
        column = columns.get(label, {})

        def predicted(cid, case):
            prediction = column.get(cid)
            if prediction is not None:
                return prediction
            return predict(case, self.config(label))
        return predicted


def _classify(out, labels, cid, side_a, side_b, walks, predictors):
    label_a, label_b = labels
    case_a = side_a.result.cases[(label_a, cid)]
    case_b = side_b.result.cases[(label_b, cid)]
    obs_a, obs_b = observed_outcome(case_a), observed_outcome(case_b)
    observed_differ = not outcomes_agree(obs_a, obs_b)

    def row():
        return Row(label_a, cid, case_a["params"], obs_a, obs_b,
                   setting_b=label_b)
    try:
        pred_a = predictors[0](cid, case_a)
        pred_b = predictors[1](cid, case_b)
    except (ModelError, KeyError, ValueError):
        if observed_differ:
            _group(out.differ, causes.UNEXPLAINED, row())
        return
    explained = (outcomes_agree(obs_a, pred_a.outcome())
                 and outcomes_agree(obs_b, pred_b.outcome()))
    if observed_differ and not explained:
        _group(out.differ, causes.UNEXPLAINED, row())
        return
    if not explained:
        return      # same observation, but the check lists the mismatch
    if not observed_differ and pred_a.verdict()[3:] == pred_b.verdict()[3:]:
        return
    outcome_causes, verdict_causes = _attribute(
        (case_a, side_a.config(label_a)), (case_b, side_b.config(label_b)),
        side_a.result.flavor, side_b.result.flavor,
        label_a == "boot" or out.pair.at_defaults is not None, walks)
    if observed_differ:
        _group(out.differ, causes.JOIN.join(outcome_causes)
               or causes.UNEXPLAINED, row())
    else:
        found = row()
        found.rule_a = _rule(pred_a)
        found.rule_b = _rule(pred_b)
        _group(out.same_outcome, causes.JOIN.join(
            verdict_causes + outcome_causes) or causes.UNEXPLAINED, found)


def _attribute(side_a, side_b, flavor_a, flavor_b, boot, walks):
    """causes.attribute() walked from the canonical side."""
    if not causes.canonical_first(flavor_a, flavor_b):
        side_a, side_b = side_b, side_a
    return causes.attribute(side_a[0], side_a[1], side_b[0], side_b[1],
                            boot, walks)


def _rule(prediction):
    if prediction.log:
        return "%s (%s log text)" % (prediction.decider, prediction.log)
    return prediction.decider


def diff_pair(pair, files, checks=None, walks=None):
    """PairDiff of one pair; `missing` set when a flavor has no results.
    `checks`: {flavor: CheckResult} whose predictions are reused;
    `walks`: a rule.Walks shared with other pairs."""
    out = PairDiff(pair, static=static_differences(pair))
    absent = [f for f in (pair.a, pair.b) if f not in files]
    if absent:
        out.missing = "no results for %s" % " and ".join(absent)
        return out
    checks = checks or {}
    side_a = _Side(files[pair.a], checks.get(pair.a))
    side_b = _Side(files[pair.b], checks.get(pair.b))
    out.observed = observed_differences(side_a.result, side_b.result)
    rows = join(pair, side_a.result, side_b.result)
    out.settings = _joined_settings(pair, side_a.result, side_b.result)
    walks = walks or Walks()
    for label_a, label_b, ids in rows:
        out.joined += len(ids)
        settled_a = side_a.settled.get(label_a, {})
        settled_b = side_b.settled.get(label_b, {})
        if settled_a is settled_b:
            continue        # one column: both sides explain it alike
        predictors = side_a.predictor(label_a), side_b.predictor(label_b)
        # a row whose one outcome both sides explain alike says nothing
        get_a, get_b = settled_a.get, settled_b.get
        for cid in [cid for cid in ids
                    if (a := get_a(cid)) is None or a != get_b(cid)]:
            _classify(out, (label_a, label_b), cid, side_a, side_b, walks,
                      predictors)
    return out


def present_pairs(files):
    """pairs_for() the flavors of `files`, in FLAVOR_ORDER."""
    return pairs_for([f for f in FLAVOR_ORDER if f in files]
                     + sorted(set(files) - set(FLAVOR_ORDER)))


def diffs_and_errors(values):
    """[PairDiff], [JoinError text] of diff_or_error()'s values."""
    return ([v for v in values if not isinstance(v, str)],
            [v for v in values if isinstance(v, str)])


def diff_or_error(pair, files, checks=None, walks=None):
    """diff_pair(), or the text of its JoinError naming the pair."""
    try:
        return diff_pair(pair, files, checks, walks)
    except JoinError as err:
        return "%s: %s" % (pair.title, err)
