"""Model versus observation for one flavor's result file."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from model import followtest
from model import interface
from model import ratelimit
from model import settings
from model.control import control_problem
from model.rule import (ModelError, config_for, memo_get,
                        observed_outcome, outcomes_agree, predict)


@dataclass
class Mismatch:
    flavor: str
    setting: str
    case_id: str
    observed: tuple
    predicted: object        # a Prediction, or the ModelError text
    params: dict

    def describe(self):
        obs = format_outcome(self.observed)
        if isinstance(self.predicted, str):
            pred = "no prediction: " + self.predicted
        else:
            pred = "%s by %s" % (format_outcome(self.predicted.outcome()),
                                 self.predicted.decider)
            if self.predicted.artifacts:
                pred += " [%s]" % "; ".join(self.predicted.artifacts)
        return "%s %s %s\n    observed %s, predicted %s\n    %s" % (
            self.flavor, self.setting, self.case_id, obs, pred,
            describe_params(self.params))


@dataclass
class ControlMismatch:
    """A recorded control that is not the predicted one: the suite's
    self-check failed, so the case is not explained, whatever its
    outcome."""

    flavor: str
    setting: str
    case_id: str
    problem: str
    params: dict

    def describe(self):
        return "%s %s %s\n    %s\n    %s" % (
            self.flavor, self.setting, self.case_id, self.problem,
            describe_params(self.params))


class BySetting(Mapping):
    """{(setting, id): value} kept as each setting's own {id: value}
    (a column's dict, shared with the settings observed alike: read
    only)."""

    def __init__(self):
        self.columns = {}

    def __getitem__(self, key):
        try:
            return self.columns[key[0]][key[1]]
        except (KeyError, TypeError, IndexError):
            raise KeyError(key) from None

    def __contains__(self, key):
        column = self.columns.get(key[0])
        return column is not None and key[1] in column

    def get(self, key, default=None):
        column = self.columns.get(key[0])
        return default if column is None else column.get(key[1], default)

    def __iter__(self):
        for setting, column in self.columns.items():
            for cid in column:
                yield setting, cid

    def __len__(self):
        return sum(map(len, self.columns.values()))


@dataclass
class CheckResult:
    flavor: str
    path: str
    cases: int = 0
    explained: int = 0
    unexplained: list = field(default_factory=list)
    interface: list = field(default_factory=list)
    settings: list = field(default_factory=list)
    suite: list = field(default_factory=list)
    artifacts: dict = field(default_factory=dict)  # label -> count
    predictions: BySetting = field(default_factory=BySetting)  # Prediction
    # setting -> {id: (observed, decider, log)} of the cases the
    # prediction explains (a dict shared with other settings: read only)
    settled: dict = field(default_factory=dict)
    controls: int = 0               # recorded controls that were predicted
    control_errors: list = field(default_factory=list)   # ControlMismatch
    follow_tests: int = 0
    follow_explained: int = 0
    not_follow: dict = field(default_factory=dict)  # (reason, op) -> count

    @property
    def ok(self):
        return not (self.unexplained or self.control_errors or self.interface
                    or self.settings or self.suite)


def format_outcome(outcome):
    ret, errno, atime = outcome[:3]
    text = "ok" if ret == 0 else errno
    if atime is not None:
        text += " (atime %s)" % ("touched" if atime else "kept")
    return text


def describe_params(params):
    links = params.get("links") or []
    chain = ",".join("%s:%s/%s>%s" % (link["kind"][:5], link["dir_mode"],
                                      link["dir_owner"], link["owner"])
                     for link in links) or "no link followed"
    return ("dir %s/%s link %s follower %s (fsuid %s) %s %s mount %s [%s]"
            % (params.get("dir_mode"), params.get("dir_owner"),
               params.get("link_owner"), params.get("follower"),
               params.get("fsuid"), params.get("op"),
               params.get("position"), params.get("mount"), chain))


class Predictions:
    """predict() and followtest.judge() of each case under the rules a
    Config puts in force, computed once per setting's column of cases
    (column()): flavors and settings whose cases were observed alike
    under the same rules share the answer, and rules that differ only in
    the own rule's name (its log) share the walk (Config.probed).  A case
    whose params differ from those first seen under its id is predicted
    afresh."""

    def __init__(self):
        self._probed = {}       # (id, probed) -> (params, Prediction)
        self._columns = {}      # (rules, observations) -> (params, _Column)
        self._follow = {}       # id -> (params, followtest.judge()'s memo)

    def __call__(self, case, config):
        params = case["params"]
        walked = (case["id"], config.probed)
        prediction = memo_get(self._probed, walked, params)
        if prediction is None:
            follow, reason = followtest.judge(case, config,
                                              self._follow_memo(case))
            prediction = predict(case, config).judged(follow, reason)
            self._probed[walked] = (params, prediction)
        elif prediction.log is not None and prediction.log != config.own:
            prediction = prediction.logged_by(config.own)
        return prediction

    def known(self, case, config):
        """The Prediction already made for a case under `config`'s
        probed rules (its log may name another revision), else None."""
        return memo_get(self._probed, (case["id"], config.probed),
                         case["params"])

    def _follow_memo(self, case):
        memo = memo_get(self._follow, case["id"], case["params"])
        if memo is None:
            memo = {}
            self._follow[case["id"]] = (case["params"], memo)
        return memo

    def judged(self, case, config):
        """(Prediction, control problem or None, does the observation
        agree?) of a case record."""
        prediction = self(case, config)
        return (prediction, control_problem(case),
                outcomes_agree(observed_outcome(case), prediction.outcome()))

    def column(self, cases, config):
        """The _Column of one setting's cases under `config`, computed
        once per rules and observations: settings and flavors observed
        alike under the same rules share it."""
        # a list, then a tuple: a third of the time of tuple(generator)
        key = (config.rules, tuple([
            (case["id"], case["ret"], case["errno"],
             case.get("atime_changed"), case.get("control_ret"),
             case.get("control_errno"), id(case["params"]))
            for case in cases]))
        known = self._columns.get(key)
        if known is not None:
            return known[1]
        column = _Column()
        for case in cases:
            try:
                prediction, problem, agrees = self.judged(case, config)
            except (ModelError, KeyError, ValueError) as err:
                column.unexplained_case(case, str(err))
                continue
            column.add(case, prediction, problem, agrees)
        # the params stay alive with the memo, so their id()s stay theirs
        self._columns[key] = ([case["params"] for case in cases], column)
        return column


def check_file(result, predictions=None):
    """Compare every case, the interface records and the settings.
    `predictions`: a Predictions shared with other files."""
    out = CheckResult(flavor=result.flavor, path=result.path)
    predictions = predictions or Predictions()
    for label, knobs in sorted(result.settings.items()):
        out.settings += ["%s: %s" % (result.path, p) for p in
                         settings.label_problems(result.flavor, label, knobs)]
    out.interface = ["%s: %s" % (result.path, p)
                     for p in interface.check_interface(result)
                     + ratelimit.check_ratelimit(
                         result.flavor, result.data.get("log") or [],
                         result.knobs)]
    for error in result.data.get("errors") or []:
        out.suite.append("%s: suite error %s: %s" % (
            result.path, error.get("id") or "(no case)", error.get("reason")))
    if result.data.get("status") != 0:
        out.suite.append("%s: suite exit status %r"
                         % (result.path, result.data.get("status")))
    for setting, cases in _columns(result):
        try:
            config = config_for(result.flavor, result.knobs(setting))
        except (ModelError, KeyError, ValueError) as err:
            column = _Column()
            for case in cases:
                column.unexplained_case(case, str(err))
        else:
            column = predictions.column(cases, config)
        column.merge_into(out, setting)
    return out


def _columns(result):
    """(setting, [case]) of a result file, settings and ids in order."""
    by_setting = {}
    for key in sorted(result.cases):
        by_setting.setdefault(key[0], []).append(result.cases[key])
    return by_setting.items()


class _Column:
    """What one setting's cases add to a CheckResult, keyed by case id:
    the same for every setting whose cases were observed alike and whose
    Config enforces the same rules."""

    def __init__(self):
        self.counts = dict.fromkeys(("cases", "explained", "controls",
                                     "follow_tests", "follow_explained"), 0)
        self.not_follow = {}
        self.artifacts = {}
        self.predictions = {}       # id -> Prediction
        self.settled = {}           # id -> (observed, decider, log)
        # (id, observed, Prediction or the model's error text, params)
        self.unexplained = []
        self.control_errors = []    # (id, problem, params)

    def _control(self, case, problem):
        if problem:
            self.control_errors.append((case["id"], problem,
                                        case["params"]))
        elif case.get("control_ret") is not None:
            self.counts["controls"] += 1

    def unexplained_case(self, case, why):
        """A case with no prediction: `why` is the model's error."""
        self.counts["cases"] += 1
        self._control(case, control_problem(case))
        self.unexplained.append((case["id"], observed_outcome(case), why,
                                 case["params"]))

    def add(self, case, prediction, problem, agrees):
        """Count one predicted case."""
        counts, cid = self.counts, case["id"]
        counts["cases"] += 1
        self._control(case, problem)
        self.predictions[cid] = prediction
        observed = observed_outcome(case)
        if agrees:
            self.settled[cid] = (observed, prediction.decider,
                                 prediction.log)
        if prediction.follow_test:
            counts["follow_tests"] += 1
            counts["follow_explained"] += agrees and not problem
        else:
            label = (prediction.not_follow, case["params"]["op"])
            self.not_follow[label] = self.not_follow.get(label, 0) + 1
        if not agrees:
            self.unexplained.append((cid, observed, prediction,
                                     case["params"]))
        elif not problem:
            counts["explained"] += 1
            for label in prediction.artifacts:
                self.artifacts[label] = self.artifacts.get(label, 0) + 1

    def merge_into(self, out, setting):
        """Add this column to `out` as the cases of `setting`."""
        for name, count in self.counts.items():
            setattr(out, name, getattr(out, name) + count)
        for target, source in ((out.not_follow, self.not_follow),
                               (out.artifacts, self.artifacts)):
            for label, count in source.items():
                target[label] = target.get(label, 0) + count
        out.predictions.columns[setting] = self.predictions
        out.settled[setting] = self.settled
        out.control_errors += [ControlMismatch(out.flavor, setting, cid,
                                               problem, params)
                               for cid, problem, params in
                               self.control_errors]
        out.unexplained += [Mismatch(out.flavor, setting, cid, observed,
                                     predicted, params)
                            for cid, observed, predicted, params in
                            self.unexplained]
