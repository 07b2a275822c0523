"""sticky.py mutants: deliberately broken kernels must be rejected.

Every flavor of flavors.ini with `mutant_of` is a broken copy of that
flavor (harness/fixtures/mutants: v3 with the owner test inverted, with the
check on trailing links only, with the sticky bit ignored). Each is built
(ccache: only fs/namei.o differs from its parent), then all are booted with
the suite in one `sticky.py suite` (two QEMUs at a time), and each record is
judged by the differ as the flavor it claims to be. A
mutant is killed when the guest, judging every case against that flavor's
expectations, exits non-zero (KTAP "not ok") and the differ reports
unexplained cases; one that passes either is a hole in the suite or the
model, and fails this check.
"""

import json
import os
import subprocess
import sys

import flavors as flv
from stages import log
from suite import ktap
from differ.characterise import sentence
from differ.check import check_file
from differ.load import parse

STICKY = os.path.join(flv.HARNESS, 'sticky.py')


def mutants(ini=None):
    return [f for f in flv.load(ini or flv.INI).values() if f.mutant_of]


def judge(record, parent):
    """The differ's CheckResult for a mutant's record taken as `parent`."""
    data = dict(record, flavor=parent)
    return check_file(parse(f'{parent}.json', json.dumps(data), parent))


def _sticky(args):
    base = [sys.executable, STICKY, '--build-dir', args.build_dir]
    if args.flavors_file:
        base += ['--flavors-file', args.flavors_file]
    return base


def _run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def verdict(flavor, args, suite_output):
    """(killed, what) for one mutant whose suite has run."""
    path = os.path.join(args.build_dir, 'results', f'{flavor.name}.json')
    if not os.path.isfile(path):
        return False, f'no result file {path}:\n{suite_output[-1500:]}'
    with open(path, encoding='utf-8') as f:
        record = json.load(f)
    document = ktap.document(os.path.join(args.build_dir, 'logs',
                                          f'{flavor.name}-suite'))
    t = None
    if document:
        with open(document, encoding='utf-8', errors='replace') as f:
            t = ktap.totals(f.read())
    ktap_failed = (record.get('status') != 0 and t is not None
                   and (t['fail'] or t['error']) > 0)
    result = judge(record, flavor.mutant_of)
    cases = sorted({m.case_id for m in result.unexplained})
    every = [(c['setting'], c['params']) for c in record.get('cases', [])]
    what = (f'{len(result.unexplained)} unexplained as {flavor.mutant_of} '
            f'({len(cases)} case ids, e.g. {", ".join(cases[:2]) or "-"}); '
            f'guest exit status {record.get("status")}, KTAP '
            f'{ktap.totals_line(t) if t else "without a totals line"}\n  '
            + sentence(flavor.name, every, result.unexplained))
    return bool(result.unexplained) and ktap_failed, what


def cmd(args):
    chosen = [m for m in mutants(args.flavors_file)
              if not args.flavors or m.name in args.flavors]
    outcomes, booted = {}, []
    for m in chosen:
        res = _run(_sticky(args) + ['build', m.name])
        if res.returncode:
            outcomes[m.name] = (False, f'build failed:\n{res.stdout[-1500:]}')
        else:
            booted.append(m)
    for m in booted:        # a record left by an earlier run must not count
        stale = os.path.join(args.build_dir, 'results', f'{m.name}.json')
        if os.path.exists(stale):
            os.unlink(stale)
    # every built mutant in one suite command: two QEMUs at a time
    suite = _run(_sticky(args) + ['suite', *(m.name for m in booted)])
    for m in booted:
        outcomes[m.name] = verdict(m, args, suite.stdout)
    survived = 0
    for m in chosen:
        killed, what = outcomes[m.name]
        survived += not killed
        log(f'{"ok" if killed else "not ok"} {m.name} '
            f'{"killed" if killed else "SURVIVED"}: {what}')
    print(f'{len(chosen) - survived} passed, {survived} failed', flush=True)
    return 1 if survived or not chosen else 0


def add(sub):
    p = sub.add_parser('mutants', help='deliberately broken kernels: the '
                       'suite and the differ must reject each')
    p.add_argument('flavors', nargs='*')
    p.set_defaults(func=cmd)
