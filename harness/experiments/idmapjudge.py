"""Re-judges the guest's idmap records on the host (issue 11).

The guest (common/programs/idmap.c) already compares each case with the plan; the
host does it again from its own prediction (idmapcases.py), never
from the guest's `expect_*` fields, and checks every precondition the
record carries: the knobs read back as written, the follower's ids, the
owners shown through the mount, the mount's idmapped flag, and that the
control (the target opened without the link) succeeded.
"""

import re

from experiments import idmapcases as ic

TOTALS = re.compile(r'^# Totals: pass:(\d+) fail:(\d+) xfail:0 xpass:0 '
                    r'skip:0 error:0\s*$', re.M)


OBSERVED = ('params', 'read', 'control_ret', 'control_errno', 'why')


def knob_key(name):
    """The record's key of a knob file under /proc/sys (the guest's
    rule: fs/ dropped, '/' and '-' as '_')."""
    if name.startswith('fs/'):
        name = name[3:]
    return name.replace('/', '_').replace('-', '_')


def _setting_problems(s, rec):
    if rec is None:
        return [f'{s.label}: no setting record']
    bad = []
    if rec.get('applied') is not True:
        bad.append(f'{s.label}: the guest did not apply the setting')
    got = rec.get('knobs', {})
    for name, value in s.knobs:
        want = None if value == 'absent' else int(value)
        have = got.get(knob_key(name), 'missing')
        if have != want:
            bad.append(f'{s.label}: knob {name} read back {have}, '
                       f'expected {value}')
    return bad


def _case_problems(case, want, rec, idmap):
    """Problems of one case record against the host's prediction."""
    if rec is None:
        return ['no case record']
    fx = case.fixture
    p, read = rec.get('params', {}), rec.get('read', {})
    bad = []
    planned = {'mount': case.mount, 'fixture': fx.name,
               'dir_mode': fx.mode, 'dir_uid': fx.dir_uid,
               'link_uid': fx.link_uid, 'fsuid': case.fsuid,
               'position': case.position}
    for key, value in planned.items():
        if p.get(key) != value:
            bad.append(f'params.{key} is {p.get(key)!r}, planned {value!r}')
    if p.get('idmapped') is not (case.mount == 'idmap'):
        bad.append(f'{case.mount} mount idmapped={p.get("idmapped")}')
    for key in ('ruid', 'euid', 'suid', 'fsuid', 'fsgid'):
        if read.get(key) != case.fsuid:
            bad.append(f'follower {key} read back {read.get(key)}, '
                       f'wanted {case.fsuid}')
    for key, uid in (('dir_seen', fx.dir_uid), ('link_seen', fx.link_uid)):
        shown = ic.shown(uid, case.mount, idmap)
        if read.get(key) != shown:
            bad.append(f'{key} {read.get(key)}, through {case.mount} the '
                       f'owner {uid} shows as {shown}')
    if (rec.get('control_ret'), rec.get('control_errno')) != (0, '0'):
        bad.append(f'control (no link) gave {rec.get("control_ret")} '
                   f'{rec.get("control_errno")}: DAC, not the rule')
    got = (rec.get('ret'), rec.get('errno'))
    if got != want:
        bad.append(f'expected {want[0]} {want[1]}, got {got[0]} {got[1]}')
    if (rec.get('expect_ret'), rec.get('expect_errno')) != want:
        bad.append('the guest was shipped another prediction')
    if rec.get('ok') is not (not bad):
        bad.append(f'the guest judged ok={rec.get("ok")} '
                   f'({rec.get("why")!r})')
    return bad


LIMITS = 'limits'   # the rows' setting for 6.1's limits


def _limit_row(limit, rec):
    want = list(limit.expect)
    got = None if rec is None else [rec.get('ret'), rec.get('result')]
    bad = []
    if rec is None:
        bad.append('no limit record')
    else:
        if got != want:
            bad.append(f'expected {want[0]} {want[1]}, got {got[0]} '
                       f'{got[1]}')
        if [rec.get('expect_ret'), rec.get('expect')] != want:
            bad.append('the guest was shipped another prediction')
        if rec.get('ok') is not (not bad):
            bad.append(f'the guest judged ok={rec.get("ok")} '
                       f'({rec.get("why")!r})')
    return {'setting': LIMITS, 'id': limit.id, 'expect': want, 'got': got,
            'ok': not bad, 'problems': bad, 'shows': limit.shows,
            'observed': None if rec is None else {'why': rec.get('why')}}


def judge(rule, setting_list, records, console='', status=None,
          cases=ic.CASES, idmap=ic.MAP, limits=ic.LIMITS, errno='EACCES'):
    """Returns (rows, problems): one row per (setting, case) with the
    prediction, the observation and its problems, then one per limit;
    problems of the run as a whole (settings, errors, stray records,
    totals, status)."""
    problems = []
    set_recs, case_recs, limit_recs = {}, {}, {}
    for rec in records:
        kind = rec.get('type')
        if kind == 'setting':
            set_recs[rec.get('setting')] = rec
        elif kind == 'case':
            key = (rec.get('setting'), rec.get('id'))
            if key in case_recs:
                problems.append(f'case {key[0]}/{key[1]} recorded twice')
            case_recs[key] = rec
        elif kind == 'limit':
            if rec.get('id') in limit_recs:
                problems.append(f'limit {rec.get("id")} recorded twice')
            limit_recs[rec.get('id')] = rec
        elif kind == 'error':
            problems.append(f'guest error {rec.get("id")!r}: '
                            f'{rec.get("reason")}')
    for s in setting_list:
        problems += _setting_problems(s, set_recs.get(s.label))
    rows = []
    for s in setting_list:
        for c in cases:
            want = ic.predict(rule, s.ps, s.own, c, idmap, errno)
            rec = case_recs.pop((s.label, c.id), None)
            bad = _case_problems(c, want, rec, idmap)
            rows.append({'setting': s.label, 'id': c.id,
                         'expect': list(want),
                         'got': None if rec is None else
                         [rec.get('ret'), rec.get('errno')],
                         'ok': not bad, 'problems': bad,
                         'shows': c.shows,
                         'observed': None if rec is None else
                         {k: rec.get(k) for k in OBSERVED}})
    rows += [_limit_row(x, limit_recs.pop(x.id, None)) for x in limits]
    for key in sorted(case_recs):
        problems.append(f'unplanned case {key[0]}/{key[1]}')
    problems += [f'unplanned limit {k}' for k in sorted(limit_recs)]
    failed = sum(not r['ok'] for r in rows)
    m = TOTALS.findall(console)
    if len(m) != 1:
        problems.append(f'{len(m)} KTAP totals lines on the console, '
                        f'expected 1')
    elif (int(m[0][0]), int(m[0][1])) != (len(rows) - failed, failed):
        problems.append(f'console totals pass:{m[0][0]} fail:{m[0][1]}, '
                        f'the host counts pass:{len(rows) - failed} '
                        f'fail:{failed}')
    clean = not failed and not problems
    if (status == 0) != clean:
        problems.append(f'guest exit status {status} after '
                        f'{"a clean run" if clean else "failures"}')
    return rows, problems
