"""Model versus observation for one flavor's result file."""

from dataclasses import dataclass, field, replace

from model import followtest
from model import interface
from model import ratelimit
from model import settings
from model.control import control_problem
from model.rule import (ModelError, config_for, observed_outcome,
                    outcomes_agree, predict)


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
    predictions: dict = field(default_factory=dict)  # key -> Prediction
    # key -> (observed, decider, log) of the cases the prediction explains
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
    """predict() and followtest.judge() of each case, computed once per
    case id and per the rules a Config puts in force: flavors and
    settings that enforce the same rules share the answer, and rules
    that differ only in the own rule's name (its log) share the walk
    (Config.probed).  A case whose params differ from those first seen
    under its id is predicted afresh."""

    def __init__(self):
        self._known = {}        # (id, rules) -> (params, Prediction)
        self._probed = {}       # (id, probed) -> (params, Prediction)
        self._judged = {}       # (id, rules, record) -> (params, answer)

    @staticmethod
    def _get(memo, key, params):
        known = memo.get(key)
        if known is not None and (known[0] is params or known[0] == params):
            return known[1]
        return None

    def __call__(self, case, config):
        params = case["params"]
        key = (case["id"], config.rules)
        prediction = self._get(self._known, key, params)
        if prediction is not None:
            return prediction
        walked = (case["id"], config.probed)
        prediction = self._get(self._probed, walked, params)
        if prediction is None:
            follow, reason = followtest.judge(case, config)
            prediction = replace(predict(case, config), follow_test=follow,
                                 not_follow=reason)
            self._probed[walked] = (params, prediction)
        elif prediction.log is not None and prediction.log != config.own:
            prediction = replace(prediction, log=config.own)
        self._known[key] = (params, prediction)
        return prediction

    def judged(self, case, config):
        """(Prediction, control problem or None, does the observation
        agree?) of a case record: one answer per id, rules, observed
        outcome and recorded control."""
        key = (case["id"], config.rules, case["ret"], case["errno"],
               case.get("atime_changed"), case.get("control_ret"),
               case.get("control_errno"))
        known = self._judged.get(key)
        params = case["params"]
        if known is not None and (known[0] is params or known[0] == params):
            return known[1]
        prediction = self(case, config)
        answer = (prediction, control_problem(case),
                  outcomes_agree(observed_outcome(case),
                                 prediction.outcome()))
        self._judged[key] = (params, answer)
        return answer


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
    configs = {}            # setting -> Config
    for key in sorted(result.cases):
        _check_case(out, result, key, configs, predictions)
    return out


def _count_control(out, result, key, case, problem):
    if problem:
        out.control_errors.append(ControlMismatch(
            result.flavor, key[0], key[1], problem, case["params"]))
    elif case.get("control_ret") is not None:
        out.controls += 1


def _check_case(out, result, key, configs, predictions):
    """Predict one case, its control and whether it is a follow test."""
    case = result.cases[key]
    out.cases += 1
    observed = observed_outcome(case)
    try:
        config = configs.get(key[0])
        if config is None:
            config = configs[key[0]] = config_for(result.flavor,
                                                  result.knobs(key[0]))
        prediction, problem, agrees = predictions.judged(case, config)
    except (ModelError, KeyError, ValueError) as err:
        problem = control_problem(case)
        _count_control(out, result, key, case, problem)
        out.unexplained.append(Mismatch(result.flavor, key[0], key[1],
                                        observed, str(err),
                                        case["params"]))
        return
    _count_control(out, result, key, case, problem)
    out.predictions[key] = prediction
    if agrees:
        out.settled[key] = (observed, prediction.decider, prediction.log)
    if prediction.follow_test:
        out.follow_tests += 1
        out.follow_explained += agrees and not problem
    else:
        label = (prediction.not_follow, case["params"]["op"])
        out.not_follow[label] = out.not_follow.get(label, 0) + 1
    if not agrees:
        out.unexplained.append(Mismatch(result.flavor, key[0], key[1],
                                        observed, prediction,
                                        case["params"]))
    elif not problem:
        out.explained += 1
        for label in prediction.artifacts:
            out.artifacts[label] = out.artifacts.get(label, 0) + 1
