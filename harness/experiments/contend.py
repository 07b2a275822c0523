"""sticky.py contend-bench: follows per second of non-root processes
following one root-owned link under -smp 2, each flavor against base.

v3 as posted took the link's d_lock on every follow whose fsuid differs
from the link owner (v3y-dlock, harness/fixtures/v3-dlock); the port reads
the directory the walk holds and takes no lock (v3y). Flavors are booted in
turn, twice, so drift hits all alike; the figure is the median round.
Writes build/results/contend.json.
"""

import json
import os
import statistics

from experiments import beyond_cmd
import flavors as flv
from boot.lock import BuildLock
from stages import log



def rates(obj):
    """Follows per second of every round in one boot's records."""
    return [r['follows'] * 1000.0 / r['ms'] for r in obj.get('extra') or []
            if r.get('type') == 'contend']


def summary(per_flavor, reference):
    """{flavor: {median, rounds, ratio}} with the ratio to the reference's
    median measured in the same run."""
    medians = {f: statistics.median(v) for f, v in per_flavor.items() if v}
    ref = medians.get(reference)
    return {f: {'median_follows_per_s': round(m), 'rounds': len(per_flavor[f]),
                'min': round(min(per_flavor[f])),
                'max': round(max(per_flavor[f])),
                'ratio_to_' + reference: round(m / ref, 3) if ref else None}
            for f, m in medians.items()}


def cmd(args):
    beyond_cmd._need_prog(args, 'sticky-contend')
    chosen = flv.pick(args.flavors, args.flavors_file or flv.INI)
    job = ['/bin/sticky-contend', '--procs', str(args.procs), '--ms',
           str(args.ms), '--rounds', str(args.rounds)]
    per = {f.name: [] for f in chosen}
    bad = 0
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for _ in range(2):
            for f in chosen:
                obj, out = beyond_cmd._boot(args, f, job, 'contend', smp=2)
                if obj is None or out.verdict != 'passed':
                    log(f'not ok {f.name}: {out if obj is None else out.reason}')
                    bad += 1
                    continue
                per[f.name] += rates(obj)
    result = {'procs': args.procs, 'ms': args.ms, 'smp': 2,
              'flavors': summary(per, chosen[0].name)}
    path = os.path.join(args.build_dir, 'results', 'contend.json')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(result, f, indent=1, sort_keys=True)
    for name, row in result['flavors'].items():
        log(f'{name}: {row["median_follows_per_s"]} follows/s (median of '
            f'{row["rounds"]} rounds, {row["min"]}..{row["max"]}), ratio to '
            f'base {row["ratio_to_base"]}')
    log(f'wrote {path}')
    return 1 if bad else 0


def add(sub):
    p = sub.add_parser('contend-bench',
                       help='follows/s of 4 non-root followers of one '
                       'root-owned link, -smp 2, each flavor vs base')
    p.add_argument('flavors', nargs='+',
                   help='the first is the reference the ratios are to')
    p.add_argument('--procs', type=int, default=4)
    p.add_argument('--ms', type=int, default=2000)
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--timeout', type=int, default=120)
    p.add_argument('--console', action='store_true')
    p.add_argument('--kvm', action='store_true')
    p.set_defaults(func=cmd)
