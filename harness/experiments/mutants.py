"""sticky.py mutants: deliberately broken kernels must be rejected.

Every flavor of flavors.ini with `mutant_of` is a broken copy of that
flavor (harness/fixtures/mutants: v3 with the owner test inverted, with the
check on trailing links only, with the sticky bit ignored). Each is built
(ccache: only fs/namei.o differs from its parent), booted with the suite,
and its record judged by the differ as the flavor it claims to be. A
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
from stickydiff.check import check_file
from stickydiff.load import parse

STICKY = os.path.join(flv.HARNESS, 'sticky.py')


def mutants(ini=None):
    return [f for f in flv.load(ini or flv.INI).values() if f.mutant_of]


def judge(record, parent):
    """The differ's CheckResult for a mutant's record taken as `parent`."""
    data = dict(record, flavor=parent)
    return check_file(parse(f'{parent}.json', json.dumps(data), parent))


def run_one(flavor, args):
    """(killed, what) for one mutant."""
    base = [sys.executable, STICKY, '--build-dir', args.build_dir]
    if args.flavors_file:
        base += ['--flavors-file', args.flavors_file]
    for step in (['build', flavor.name], ['suite', flavor.name]):
        res = subprocess.run(base + step, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        if step[0] == 'build' and res.returncode:
            return False, f'build failed:\n{res.stdout[-1500:]}'
    ktap_failed = res.returncode != 0
    path = os.path.join(args.build_dir, 'results', f'{flavor.name}.json')
    if not os.path.isfile(path):
        return False, f'no result file {path}:\n{res.stdout[-1500:]}'
    with open(path, encoding='utf-8') as f:
        result = judge(json.load(f), flavor.mutant_of)
    cases = sorted({m.case_id for m in result.unexplained})
    what = (f'{len(result.unexplained)} unexplained as {flavor.mutant_of} '
            f'({len(cases)} case ids, e.g. {", ".join(cases[:2]) or "-"}); '
            f'suite exit status {"non-zero" if ktap_failed else "0"}')
    return bool(result.unexplained) and ktap_failed, what


def cmd(args):
    chosen = [m for m in mutants(args.flavors_file)
              if not args.flavors or m.name in args.flavors]
    survived = 0
    for m in chosen:
        killed, what = run_one(m, args)
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
