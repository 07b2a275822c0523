"""The suite's KTAP: its verdict, and kunit.py parse against the differ.

The suite (common/suite/main.c, runner.c) writes KTAP version 1: the sysctl and
log tests, then one subtest per <setting>/<group> holding one result line
per case, judged in the guest against the host's expectations
(harness/suite/expect.py), and kselftest's totals line over the cases.
The whole document comes from the guest's KTAP channel (ktap.txt beside
the console log); the console, a slow serial port, has its top level and
the totals. `settle` makes a boot's verdict follow its KTAP; `check` runs
the kernel tree's own parser, tools/testing/kunit/kunit.py parse, on a
suite boot's document and requires it to count, case by case, what the
differ (make diff-check) counts explained and unexplained for the same
run.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

from stages import HarnessError

TOTALS = re.compile(r'^# Totals: pass:(\d+) fail:(\d+) xfail:(\d+) '
                    r'xpass:(\d+) skip:(\d+) error:(\d+)\s*$', re.M)
TOTAL_KEYS = ('pass', 'fail', 'xfail', 'xpass', 'skip', 'error')
SUMMARY = re.compile(r'Testing complete\. (Ran \d+ tests:.*)$', re.M)
KUNIT = os.path.join('tools', 'testing', 'kunit', 'kunit.py')


def totals(text):
    """The last kselftest totals line of a console, as a dict, or None."""
    found = TOTALS.findall(text)
    if not found:
        return None
    return dict(zip(TOTAL_KEYS, (int(x) for x in found[-1])))


def totals_line(t):
    return '# Totals: ' + ' '.join(f'{k}:{t[k]}' for k in TOTAL_KEYS)


def document(logdir):
    """A boot's whole KTAP: ktap.txt, else the console log (a job that had
    no KTAP channel), else None."""
    for name in ('ktap.txt', 'console.log'):
        path = os.path.join(logdir, name)
        if os.path.isfile(path):
            return path
    return None


def settle(out):
    """A suite boot's verdict from its exit status and its KTAP: a boot
    whose totals show a failure, an error or an unexpected pass, or that
    printed no totals line, failed, whatever its exit status."""
    if out.verdict not in ('passed', 'failed'):
        return out
    try:
        with open(out.ktap or out.console, encoding='utf-8',
                  errors='replace') as f:
            t = totals(f.read())
    except OSError:
        t = None
    if t is None:
        out.verdict = 'failed'
        out.reason = 'no KTAP "# Totals:" line'
    elif t['fail'] or t['error'] or t['xpass']:
        out.verdict = 'failed'
        out.reason = (f'KTAP fail:{t["fail"]} error:{t["error"]}'
                      f'{" xpass:%d" % t["xpass"] if t["xpass"] else ""}')
    elif out.verdict == 'failed':
        out.reason = f'exit status {out.status}, KTAP all ok'
    return out


def kunit_parse(kunit_py, console):
    """Runs `kunit.py parse` on a console log: (its summary line, the
    tree of results it read as JSON)."""
    if not os.path.isfile(kunit_py):
        raise HarnessError(f'{kunit_py} not found: extract the tree first '
                           f'(`make kernels`)')
    with tempfile.TemporaryDirectory(prefix='sticky-kunit-') as tmp:
        out_json = os.path.join(tmp, 'results.json')
        res = subprocess.run([sys.executable, kunit_py, 'parse',
                              f'--json={out_json}',
                              os.path.abspath(console)],
                             capture_output=True, text=True)
        summary = SUMMARY.search(res.stdout)
        if not summary or not os.path.isfile(out_json):
            raise HarnessError(f'kunit.py parse {console} gave no results '
                               f'(exit {res.returncode}):\n'
                               f'{res.stdout[-800:]}{res.stderr[-800:]}')
        with open(out_json, encoding='utf-8') as f:
            tree = json.load(f)
    return summary.group(1), tree


def kunit_counts(tree):
    """What kunit.py read: {'cases': {group: {status: [case ids]}},
    'other': {name: status}} (top-level tests that are not case groups:
    sysctl, log, and a group that did not run)."""
    cases, other = {}, {}
    for group in tree.get('sub_groups', []):
        per = cases.setdefault(group['name'], {})
        for case in group.get('test_cases', []):
            per.setdefault(case['status'], []).append(case['name'])
        for sub in group.get('sub_groups', []):
            per.setdefault('NESTED', []).append(sub['name'])
    for case in tree.get('test_cases', []):
        other[case['name']] = case['status']
    return {'cases': cases, 'other': other}


def differ_counts(result):
    """The differ's view of one result file: (cases explained per
    <setting>/<group>, {group: sorted ids not explained}) over every case
    the suite ran, counting a case whose self-check failed (an error
    record naming it) as not explained."""
    from model import cases as caseids
    from differ.check import check_file
    checked = check_file(result)

    def group_of(setting, cid):
        return f'{setting}/{caseids.split_id(cid)["group"]}'

    bad = {(m.setting, m.case_id) for m in checked.unexplained}
    bad |= {(m.setting, m.case_id) for m in checked.control_errors}
    explained = {}
    for key in result.cases:
        if key not in bad:
            g = group_of(*key)
            explained[g] = explained.get(g, 0) + 1
    failing = {}
    for setting, cid in bad:
        failing.setdefault(group_of(setting, cid), set()).add(cid)
    # A self-check error record names the case; its setting is the group
    # the suite was running, which the record does not carry: count it
    # under every setting the result file lacks the case in.
    for error in result.data.get('errors') or []:
        cid = error.get('id') or ''
        try:
            caseids.split_id(cid)
        except caseids.CaseIdError:
            continue
        for setting in result.settings:
            if (setting, cid) not in result.cases:
                failing.setdefault(group_of(setting, cid), set()).add(cid)
    return explained, {g: sorted(ids) for g, ids in failing.items()}, checked


def compare(kunit, explained, failing):
    """Problems where kunit.py's case results differ from the differ's."""
    problems = []
    groups = sorted(set(kunit['cases']) | set(explained) | set(failing))
    for g in groups:
        per = kunit['cases'].get(g, {})
        k_pass = len(per.get('PASS', []))
        k_fail = sorted(cid for status, ids in per.items()
                        if status != 'PASS' for cid in ids)
        d_pass = explained.get(g, 0)
        d_fail = failing.get(g, [])
        if k_pass != d_pass:
            problems.append(f'{g}: kunit.py passed {k_pass}, the differ '
                            f'explains {d_pass}')
        if k_fail != d_fail:
            text = (f'{g}: kunit.py failed {len(k_fail)}, the differ '
                    f'leaves {len(d_fail)} unexplained')
            only_k = sorted(set(k_fail) - set(d_fail))
            only_d = sorted(set(d_fail) - set(k_fail))
            if only_k:
                text += '; only kunit.py: ' + ', '.join(only_k[:3])
            if only_d:
                text += '; only the differ: ' + ', '.join(only_d[:3])
            problems.append(text)
    return problems


def check_flavor(kunit_py, console, result):
    """(one summary line, problems) for one flavor's suite boot."""
    summary, tree = kunit_parse(kunit_py, console)
    kunit = kunit_counts(tree)
    explained, failing, checked = differ_counts(result)
    problems = compare(kunit, explained, failing)
    k_pass = sum(len(per.get('PASS', [])) for per in kunit['cases'].values())
    k_fail = sum(len(ids) for per in kunit['cases'].values()
                 for status, ids in per.items() if status != 'PASS')
    d_pass = sum(explained.values())
    d_fail = sum(len(ids) for ids in failing.values())
    others = ', '.join(f'{name} {status}'
                       for name, status in kunit['other'].items())
    line = (f'kunit.py parse: {summary}; cases: passed {k_pass}, failed '
            f'{k_fail} | differ: {d_pass} explained, {d_fail} unexplained '
            f'| other tests: {others or "none"}')
    return line, problems
