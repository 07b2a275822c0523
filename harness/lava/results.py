"""LAVA's recorded results of a job, and their comparison with the
project's own verdicts.

lava-run without a server logs one JSON object a line ({"dt": ...,
"lvl": "results", "msg": {...}}) on its standard output; each result of the monitor is one
such line, in the order the console printed them, and the job's own
result ("definition: lava, case: job") is the last. The reference is
the KTAP document of the project's own suite boot of the same kernel
(build/logs/<flavor>-suite/ktap.txt), whose counts `sticky.py ktap-check`
holds equal to the differ's: the same lines matched by the same pattern.
"""

import json
import re
from dataclasses import dataclass, field

from lava.job import FIXUP, MONITOR_NAME, PATTERN

_LINE = re.compile(PATTERN)


@dataclass
class Verdict:
    """One KTAP line: its result (pass/fail), its name and directive."""

    result: str
    name: str
    directive: str = ''

    @classmethod
    def of(cls, result, text):
        name, _, directive = text.strip().partition(' # ')
        return cls(result, name.strip(), directive.split(' ')[0])


@dataclass
class Run:
    """What LAVA recorded for one job."""

    verdicts: list = field(default_factory=list)
    job_result: str = ''        # "pass" or "fail" (the job's own)
    error: str = ''             # the job's error message, if any
    monitor: str = ''           # "passed": the monitor saw the end line


def parse_log(text):
    """A Run from lava-run's log (its standard output: one JSON object a
    line, YAML's flow style; a server's log adds "- " before each)."""
    run = Run()
    for line in text.splitlines():
        if '"lvl": "results"' not in line:
            continue
        try:
            entry = json.loads(line[2:] if line.startswith('- ') else line)
        except ValueError:
            continue
        msg = entry.get('msg') if isinstance(entry, dict) else None
        if not isinstance(msg, dict):
            continue
        if msg.get('definition') == 'lava' and msg.get('case') == 'job':
            run.job_result = msg.get('result', '')
            run.error = msg.get('error_msg', '')
        elif msg.get('definition') == 'lava' and \
                msg.get('case') == 'lava-test-monitor':
            run.monitor = (msg.get('extra') or {}).get('status', '')
        elif msg.get('definition') == MONITOR_NAME:
            extra = msg.get('extra') or {}
            run.verdicts.append(Verdict.of(msg.get('result', ''),
                                           extra.get('test_case_id', '')))
    return run


def parse_ktap(text):
    """The verdicts of a KTAP document, line by line, as LAVA's monitor
    would record them."""
    out = []
    for line in text.splitlines():
        m = _LINE.search(line.rstrip('\r\n') + '\r')
        if m and line.lstrip().startswith(('ok ', 'not ok ')):
            out.append(Verdict.of(FIXUP[m.group('result')],
                                  m.group('test_case_id')))
    return out


def count(verdicts):
    c = {'pass': 0, 'fail': 0, 'xfail': 0}
    for v in verdicts:
        c[v.result] = c.get(v.result, 0) + 1
        if v.directive.upper() == 'XFAIL':
            c['xfail'] += 1
    return c


def compare(run, reference):
    """Problems (empty when LAVA recorded what the project's own boot
    did, line for line): the job's result, the number of results, each
    name, result and XFAIL."""
    problems = []
    if run.job_result != 'pass':
        problems.append(f'the LAVA job did not complete: {run.job_result or "no job result"}'
                        + (f' ({run.error})' if run.error else ''))
    if run.monitor != 'passed':
        problems.append('LAVA\'s monitor did not see the end line '
                        f'("# Totals:"): {run.monitor or "no monitor result"}')
    got, want = run.verdicts, reference
    if len(got) != len(want):
        problems.append(f'LAVA recorded {len(got)} results, the project\'s '
                        f'own boot {len(want)}')
    shown = 0
    for i, (a, b) in enumerate(zip(got, want)):
        if (a.result, a.name, a.directive.upper()) != \
                (b.result, b.name, b.directive.upper()):
            if shown < 5:
                problems.append(f'result {i + 1}: LAVA {a.result} {a.name}'
                                f'{" # " + a.directive if a.directive else ""}'
                                f', own {b.result} {b.name}'
                                f'{" # " + b.directive if b.directive else ""}')
            shown += 1
    if shown > 5:
        problems.append(f'... {shown - 5} more results differ')
    cg, cw = count(got), count(want)
    if cg != cw:
        problems.append(f'counts: LAVA {cg}, own {cw}')
    return problems
