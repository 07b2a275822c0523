"""`check` lines for the control self-check and the follow counts."""


def _not_follow_text(not_follow):
    """"reason: n (op n, op n)" per reason, the largest first."""
    by_reason = {}
    for (reason, op), count in not_follow.items():
        by_reason.setdefault(reason, {})[op] = count
    parts = []
    for reason, ops in sorted(by_reason.items(),
                              key=lambda item: -sum(item[1].values())):
        listed = ", ".join("%s %d" % item for item in sorted(ops.items()))
        parts.append("%s: %d (%s)" % (reason, sum(ops.values()), listed))
    return parts


def control_lines(analysis):
    """Per flavor: recorded controls as predicted, follow tests, and the
    cases that are not follow tests, by reason and op."""
    lines = ["controls (predicted from modes, owners and ids) and follow"
             " tests:"]
    for flavor, check in analysis.checks.items():
        errors = len(check.control_errors)
        lines.append("  %-9s controls: %d recorded as predicted, %d absent"
                     " as predicted, %d self-check error(s); follow tests"
                     " %d (%d explained), not a follow test %d"
                     % (flavor, check.controls,
                        check.cases - check.controls - errors, errors,
                        check.follow_tests, check.follow_explained,
                        sum(check.not_follow.values())))
        lines += ["    not a follow test, " + text
                  for text in _not_follow_text(check.not_follow)]
    return lines


def control_error_lines(analysis, limit=40):
    """Every failed control self-check (a FAIL, apart from the
    unexplained cases)."""
    lines = []
    for flavor, check in analysis.checks.items():
        errors = check.control_errors
        if not errors:
            continue
        lines.append("%s (%s): %d control self-check error(s): the"
                     " recorded control is not the predicted one"
                     % (flavor, check.path, len(errors)))
        for error in errors[:limit]:
            lines.append("  " + error.describe().replace("\n", "\n  "))
        if len(errors) > limit:
            lines.append("  ... and %d more control error(s) in %s"
                         % (len(errors) - limit, flavor))
    return lines
