"""The one-screen terminal summary and the readable check listing."""

import os

from .characterise import sentence
from .diff import interface_cause


def check_lines(analysis, limit=40):
    """Everything that makes `check` fail, readably."""
    lines = [str(e) for e in analysis.load_errors]
    for flavor, check in analysis.checks.items():
        problems = check.settings + check.interface + check.suite
        if check.unexplained or problems:
            lines.append("%s (%s): %d unexplained case(s), %d other"
                         " problem(s)" % (flavor, check.path,
                                          len(check.unexplained),
                                          len(problems)))
        lines += ["  " + p for p in problems]
        for mismatch in check.unexplained[:limit]:
            lines.append("  " + mismatch.describe().replace("\n", "\n  "))
        if len(check.unexplained) > limit:
            lines.append("  ... and %d more unexplained case(s) in %s"
                         % (len(check.unexplained) - limit, flavor))
    return lines


def flavor_lines(analysis):
    lines = []
    for flavor, check in analysis.checks.items():
        artifacts = ", ".join("%s: %d" % item
                              for item in sorted(check.artifacts.items()))
        lines.append("  %-9s %5d cases, %5d explained, %3d unexplained%s"
                     % (flavor, check.cases, check.explained,
                        len(check.unexplained),
                        "; " + artifacts if artifacts else ""))
    for path in analysis.missing:
        lines.append("  (absent: %s)" % path)
    lines += ["  " + line for line in unexplained_sentences(analysis)]
    return lines


def unexplained_sentences(analysis):
    """One sentence per flavor with unexplained cases: what they share."""
    out = []
    for flavor, check in analysis.checks.items():
        if check.unexplained and flavor in analysis.files:
            cases = [(s, c["params"]) for (s, _), c in
                     analysis.files[flavor].cases.items()]
            out.append(sentence(flavor, cases, check.unexplained))
    return out


def pair_lines(analysis):
    lines = []
    for pair_diff in analysis.diffs:
        title = pair_diff.pair.title
        if pair_diff.missing:
            lines.append("  %s: skipped, %s" % (title, pair_diff.missing))
            continue
        groups = ", ".join("%s %d" % (g.cause, g.count) for g in
                           sorted(pair_diff.differ.values(),
                                  key=lambda g: (-g.count, g.cause)))
        lines.append("  %s: %d/%d differ%s" % (
            title, pair_diff.differing, pair_diff.joined,
            " (" + groups + ")" if groups else ""))
        fields = pair_diff.static + pair_diff.observed
        kinds = sorted({interface_cause(f) for f, _, _ in fields})
        if kinds:
            lines.append("    also: %s (%d field(s), see report)"
                         % (", ".join(kinds), len(fields)))
        same = ", ".join("%s %d" % (g.cause, g.count) for g in
                         sorted(pair_diff.same_outcome.values(),
                                key=lambda g: (-g.count, g.cause)))
        if same:
            lines.append("    same outcome, other deciding rule/log: "
                         + same)
    lines += ["  join error: " + e.split("\n")[0] for e in
              analysis.join_errors]
    return lines


def summary(analysis, paths=()):
    lines = ["stickydiff: results from %s" % analysis.results_dir]
    lines.append("model vs observation:")
    lines += flavor_lines(analysis)
    lines.append("pairwise diffs (cases differing, by cause):")
    lines += pair_lines(analysis)
    lines.append("code steps: %s" % analysis.range_diff_note)
    lines += ["unreadable result file: %s; run the suite again (`python3 "
              "harness/sticky.py suite FLAVOR`) or restore the file"
              % str(err).split("\n")[0] for err in analysis.load_errors]
    lines += ["missing result file: %s; run the suite in that flavor "
              "(`python3 harness/sticky.py suite %s`) before the report"
              % (path, os.path.basename(path)[:-len(".json")])
              for path in analysis.missing]
    lines += ["stale results: %s ran before its kernel was last built; run "
              "`python3 harness/sticky.py suite %s` again" % (f, f)
              for f in analysis.stale]
    if analysis.regression is not None:
        changed = ", ".join("%s %d" % (f, len(c))
                            for f, c in analysis.regression.items())
        lines.append("since %s: %s" % (
            analysis.expected_dir, "changes: " + changed + " (`make "
            "regress` lists them; the report's section too)" if changed
            else "no change"))
    for path in paths:
        lines.append("report: %s" % path)
    verdict = analysis.verdict
    if verdict == "FAIL":
        why = ["%d unexplained case(s)" % analysis.unexplained]
        if analysis.load_errors:
            why.append("%d unreadable result file(s)"
                       % len(analysis.load_errors))
        if analysis.join_errors:
            why.append("%d join error(s)" % len(analysis.join_errors))
        if analysis.missing:
            why.append("%d flavor(s) without results" % len(analysis.missing))
        if analysis.stale:
            why.append("stale: %s" % ", ".join(analysis.stale))
        verdict += " (%s)" % ", ".join(why)
    lines.append("verdict: %s" % verdict)
    return "\n".join(lines)

