"""The expected outcome of every suite case, written before a boot.

The guest suite (common/suite/runner.c) judges each case it runs against this
file, so that its KTAP "ok" means "behaved as the rule says" and not only
"recorded without a self-check error". Every expectation comes from the
differ's rule model (harness/model/rule.py and control.py) applied to
the case's params rebuilt from its id (model/cases.py) and to the
knobs each setting writes, never from an observation of a run.

Format (common/lib/expect.c reads it; the initramfs holds it as
/etc/sticky/expect.txt):

    sticky-expect 1
    flavor <name>
    settings <label> ...
    xfail <tag> <text>            one per porting artifact the model names
    log <probe> <n> ...           the messages each log probe gets, and N
                                  of the ratelimit's report (stickydiff/
                                  ratelimit.py)
    cases <n>
    <case id> <token> ...         one token per setting, ids sorted

A token is <result>,<atime>,<control>[,<tags>]: result "ok" or the errno
name, atime 1/0 (- where the model has none), control "ok", the errno
name, or "-" where the suite runs no control, and the xfail tags of the
porting artifacts (model Prediction.artifacts) that shaped the outcome:
such a case is an expected outcome of its flavor, reported XFAIL. "?"
stands for a case the model cannot predict; the guest fails it. "=" is
the token of the setting before it (most cases behave alike in several
settings: about 310 KB for five settings, 17 KB in the gzipped initramfs).
"""

from model import cases as caseids
from model.table import TABLE
from model import ratelimit
from model.control import ControlError, predict_control
from model.flavors import (FLAVORS, MAINLINE_BOOT, MAINLINE_KNOB,
                                expected_boot_knobs)
from model.rule import (ARTIFACT_ATIME, ARTIFACT_ELOOP, ModelError,
                              config_for, predict)

FORMAT = 1
GUEST_PATH = '/etc/sticky/expect.txt'

# Tags of the artifacts the model knows; any other label gets a free one.
TAGS = {ARTIFACT_ATIME: 'A', ARTIFACT_ELOOP: 'E'}


class ExpectError(ValueError):
    """No expectations can be written for this flavor."""


def case_ids(quick=False):
    """Every case id of a suite run, in the suite's order (the case table,
    common/lib/cases.def, read by model/cases.py)."""
    return caseids.case_ids(quick)


def settings(flavor):
    """[(label, knobs)] the suite runs in this flavor, in its order: boot,
    then ps<P>-own<O> (ps<P>-own- without an own knob) with the knobs each
    writes (docs/result-format.md, "Settings")."""
    spec = _spec(flavor)
    boot = expected_boot_knobs(spec)
    out = [('boot', boot)]
    # the other mainline knobs keep their boot values, hardlinks is off
    pinned = {k: v for k, v in MAINLINE_BOOT.items() if k != MAINLINE_KNOB}
    pinned['protected_hardlinks'] = 0
    # common/lib/cases.def's SETTING rows, as common/suite/main.c runs them
    for ps, own in TABLE.settings:
        if spec.knob is None:
            if f'ps{ps}-own-' not in dict(out):
                out.append((f'ps{ps}-own-', {MAINLINE_KNOB: ps, **pinned}))
            continue
        out.append((f'ps{ps}-own{own}',
                    {MAINLINE_KNOB: ps, **pinned,
                     spec.knob: spec.protection_to_value(own)}))
    return out


def _spec(flavor):
    if flavor not in FLAVORS:
        raise ExpectError(f'flavor {flavor} has no rule model: its '
                          f'revision needs a revision.ini and its flavor a '
                          f'pick_link_order (modelled: '
                          f'{", ".join(FLAVORS)})')
    return FLAVORS[flavor]


def token(prediction, control, tags):
    """One setting's token of a case."""
    res = 'ok' if prediction.ret == 0 else prediction.errno
    atime = ('-' if prediction.atime is None
             else '1' if prediction.atime else '0')
    ctl = '-' if control is None else 'ok' if control[0] == 0 else control[1]
    tok = f'{res},{atime},{ctl}'
    marks = ''.join(tags[label] for label in prediction.artifacts)
    return f'{tok},{marks}' if marks else tok


def _tag_for(label, tags):
    if label not in tags:
        used = set(tags.values())
        tags[label] = TAGS.get(label) or next(
            c for c in 'BCDFGHIJKLMNOPQRSTUVWXYZ' if c not in used)
    return tags[label]


def predictions(flavor, ids=None):
    """{(setting, id): (Prediction or None, control)} for a flavor."""
    out = {}
    ids = sorted(set(case_ids() if ids is None else ids))
    for label, knobs in settings(flavor):
        config = config_for(flavor, knobs)
        for cid in ids:
            params = caseids.params_of(cid)
            try:
                control = predict_control(params)
                pred = predict({'params': params}, config)
            except (ModelError, ControlError):
                out[(label, cid)] = (None, None)
                continue
            out[(label, cid)] = (pred, control)
    return out


def log_line(flavor):
    """'log single 1 burst 9 ...': the messages the log probes get, and the
    release's ratelimit report (common/suite/kmsg.c judges them)."""
    knobs = dict(settings(flavor))
    want = ratelimit.plan(flavor, knobs.__getitem__,
                          _spec(flavor).knob is not None)
    return 'log ' + ' '.join(f'{k} {n}' for k, n in want.items())


def text(flavor, ids=None):
    """The expectation file of a flavor, as text."""
    labels = [label for label, _ in settings(flavor)]
    preds = predictions(flavor, ids)
    tags = {}
    for pred, _ in preds.values():
        for label in (pred.artifacts if pred else ()):
            _tag_for(label, tags)
    rows = {}
    for (label, cid), (pred, control) in preds.items():
        rows.setdefault(cid, {})[label] = ('?' if pred is None
                                           else token(pred, control, tags))
    lines = [f'# Expected outcome of every sticky-suite case in flavor '
             f'{flavor}: the rule model',
             '# (harness/model/rule.py) before the boot, written by '
             'harness/suite/expect.py.',
             '# <result>,<atime>,<control>[,<xfail tags>] per setting; '
             '"?": no prediction.',
             f'sticky-expect {FORMAT}', f'flavor {flavor}',
             'settings ' + ' '.join(labels)]
    for label, tag in sorted(tags.items(), key=lambda item: item[1]):
        lines.append(f'xfail {tag} {label.replace("artifact: ", "", 1)}')
    lines.append(log_line(flavor))
    lines.append(f'cases {len(rows)}')
    for cid in sorted(rows):
        tokens = [rows[cid][label] for label in labels]
        lines.append(cid + ' ' + ' '.join(
            '=' if i and tok == tokens[i - 1] else tok
            for i, tok in enumerate(tokens)))
    return '\n'.join(lines) + '\n'


def parse(body):
    """(flavor, settings, xfail tags, {id: [token]}) of a file's text; the
    host's reader, for tests and for showing what a boot was given."""
    flavor, labels, tags, rows, want = None, None, {}, {}, None
    for number, line in enumerate(body.splitlines(), 1):
        if not line or line.startswith('#'):
            continue
        words = line.split()
        if want is None:
            key, rest = words[0], words[1:]
            if key == 'sticky-expect' and rest == [str(FORMAT)]:
                continue
            if key == 'flavor' and len(rest) == 1:
                flavor = rest[0]
            elif key == 'settings' and rest:
                labels = rest
            elif key == 'xfail' and len(rest) >= 2 and len(rest[0]) == 1:
                tags[rest[0]] = ' '.join(rest[1:])
            elif key == 'log' and rest and len(rest) % 2 == 0:
                continue    # render() writes it again from the model
            elif key == 'cases' and len(rest) == 1 and rest[0].isdigit():
                want = int(rest[0])
            else:
                raise ExpectError(f'line {number}: {line[:60]!r}')
            continue
        if labels is None or len(words) != len(labels) + 1 or \
                words[1] == '=':
            raise ExpectError(f'line {number}: {len(words) - 1} tokens')
        tokens = words[1:]
        for i, tok in enumerate(tokens):
            if tok == '=':
                tokens[i] = tokens[i - 1]
        rows[words[0]] = tokens
    if flavor is None or labels is None or want != len(rows):
        raise ExpectError('incomplete file: header or case lines missing')
    return flavor, labels, tags, rows


def render(flavor, labels, tags, rows):
    """The text of parsed parts (parse() gives them back)."""
    lines = [f'sticky-expect {FORMAT}', f'flavor {flavor}',
             'settings ' + ' '.join(labels)]
    lines += [f'xfail {tag} {tags[tag]}' for tag in sorted(tags)]
    lines.append(log_line(flavor))
    lines.append(f'cases {len(rows)}')
    for cid in sorted(rows):
        tokens = rows[cid]
        lines.append(cid + ' ' + ' '.join(
            '=' if i and tok == tokens[i - 1] else tok
            for i, tok in enumerate(tokens)))
    return '\n'.join(lines) + '\n'


def mutate(body, setting, cid, new_token):
    """body with one case's token in one setting replaced (to show that
    the guest fails a case whose expectation is wrong)."""
    flavor, labels, tags, rows = parse(body)
    if cid not in rows or setting not in labels:
        raise ExpectError(f'no case {cid} in setting {setting}')
    rows[cid][labels.index(setting)] = new_token
    return render(flavor, labels, tags, rows)


def verdict(tok, res, atime, ctl):
    """'pass', 'xfail' or 'fail' of an observed outcome (result "ok" or
    the errno name, atime True/False/None, control "ok", the errno name or
    None) against a token: the host's mirror of common/lib/expect.c
    expect_judge(), for tests and for reading a run's records."""
    if tok == '?':
        return 'fail'
    want = tok.split(',')
    seen_atime = None if atime is None else ('1' if atime else '0')
    if want[0] != res or want[2] != (ctl or '-') or (
            want[1] != '-' and seen_atime is not None
            and want[1] != seen_atime):
        return 'fail'
    return 'xfail' if len(want) > 3 else 'pass'


def observed(case):
    """(res, atime, ctl) of a case record, as verdict() takes them."""
    res = 'ok' if case['ret'] == 0 else case['errno']
    ctl = case.get('control_ret')
    if ctl is not None:
        ctl = 'ok' if ctl == 0 else case['control_errno']
    return res, case.get('atime_changed'), ctl
