"""sticky.py race: the rename race, judged per placement (issue 26).

Window mode (default): boots each race flavor (flavors.ini: a flavor plus
harness/fixtures/race-window) and runs common/programs/race.c in it: N
trials per link position, fs.protected_symlinks value and renamed or
control. Every trial is judged against racecases.predict() from the
flavor's data; the flavor passes when every trial came out as predicted
and met its preconditions. build/results/<flavor>.race.json keeps the
groups with their causes.

--free TRIES: the same race on unmodified kernels (default: the default
flavors with a rule, and base), -smp 2, no window: A renames the link back
and forth while root opens it TRIES times per position and
fs.protected_symlinks value; the bypasses are counted, not judged
(build/results/race-free.json, dated: `make bench` prints it).
"""

import datetime
import glob
import json
import os
import subprocess
import time

import flavors as flv
from boot import guest
from boot import run as boot_run
from boot.lock import BuildLock
from experiments import racecases as rc
from stages import HarnessError, log
from suite import results

WINDOW_SET = 'race'     # flavors.ini `sets`: the flavors with the window


def job(flavor, args):
    cmd = ['/bin/sticky-race']
    if args.free:
        cmd += ['-f', str(args.free)]
    else:
        cmd += ['-w', str(args.window_ms), '-n', str(args.trials)]
    if flavor.rule and flavor.compiled:
        cmd += ['-k', f'{flavor.rule.knob_path}={flavor.rule.protect}']
    return cmd


def boot_records(args, flavor, tag):
    timeout = args.timeout or (120 + (args.free // 200 if args.free else
                               args.trials * args.window_ms // 100))
    out = boot_run.boot(args, flavor, job(flavor, args), tag, timeout,
                        echo=print if args.console else None,
                        smp=2 if args.free else 1)
    boot_run.report_outcome(flavor.name, out)
    recs, why = results.boot_records(out)
    if recs is None:
        raise HarnessError(why)
    if out.verdict != 'passed':
        raise HarnessError(f'sticky-race exited with status {out.status}')
    return recs, out


def window_one(args, flavor, outdir):
    rule = rc.rule_of(flavor, args.directory)
    recs, out = boot_records(args, flavor, 'race')
    groups, problems = rc.judge(rule, recs)
    obj = {'flavor': flavor.name, 'uname': recs[0].get('uname'),
           'directory': rule.directory, 'links': rule.links,
           'directory_from_flavor': rc.rule_of(flavor).directory,
           'window_ms': args.window_ms, 'ok': not problems,
           'problems': problems, 'seconds_boot': round(out.seconds, 1),
           'groups': groups}
    if not args.directory:      # a rule the kernel lacks: judged, not kept
        results.write_json(obj, os.path.join(outdir,
                                             f'{flavor.name}.race.json'))
    for line in rc.bypass_summary(groups):
        log(f'  {flavor.name}: {line}')
    for p in problems[:12]:
        log(f'  not ok {flavor.name}: {p}')
    good = sum(g['as_predicted'] for g in groups)
    log(f'{"ok" if not problems else "not ok"} {flavor.name} (directory '
        f'{rule.directory or "none"}): {good} of '
        f'{sum(g["trials"] for g in groups)} trials as predicted, '
        f'{out.seconds:.1f}s')
    return not problems


def free_one(args, flavor):
    rule = rc.rule_of(flavor)
    recs, out = boot_records(args, flavor, 'race-free')
    rows, problems = rc.judge_free(rule, recs)
    for r in rows:
        log(f'  {flavor.name}: {r["position"]} protected_symlinks='
            f'{r["protected_symlinks"]}: {r["bypasses"]} bypass(es) in '
            f'{r["tries"]} tries' + ('' if r['guarded'] else
                                     ' (no check guards it)')
            + f'; EACCES {r["EACCES"]}, ENOENT {r["ENOENT"]}')
    for p in problems:
        log(f'  not ok {flavor.name}: {p}')
    return {'flavor': flavor.name, 'directory': rule.directory,
            'seconds_boot': round(out.seconds, 1), 'rows': rows,
            'problems': problems}, not problems


def _when(build, what):
    head = subprocess.run(['git', '-C', flv.TOP, 'rev-parse', '--short',
                           'HEAD'], capture_output=True, text=True)
    commit = head.stdout.strip() or 'unknown commit'
    return (f'Measured {datetime.date.today().isoformat()} at commit '
            f'{commit} ({what}).')


def write_section(outdir, what):
    """build/results/race.md from every race result there; `make bless`
    copies it to results/race.md, which the report includes."""
    window = []
    for path in glob.glob(os.path.join(outdir, '*.race.json')):
        with open(path, encoding='utf-8') as f:
            obj = json.load(f)
        window.append((obj['flavor'], obj))
    order = {f.name: i for i, f in enumerate(flv.flavor_set(WINDOW_SET))}
    window.sort(key=lambda w: (order.get(w[0], len(order)), w[0]))
    free = None
    path = os.path.join(outdir, 'race-free.json')
    if os.path.isfile(path):
        with open(path, encoding='utf-8') as f:
            free = json.load(f)
    out = os.path.join(outdir, 'race.md')
    tmp = out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(rc.section(window, free, _when(outdir, what)))
    os.replace(tmp, out)
    log(f'wrote {out}')


def default_free(path):
    return [f.name for f in flv.load(path).values()
            if not f.extra and (not f.series or (f.rule and f.compiled))]


def cmd_race(args):
    path = args.flavors_file or flv.INI
    names = args.flavors or (default_free(path) if args.free
                             else [f.name for f in
                                   flv.flavor_set(WINDOW_SET, path)])
    chosen = flv.pick(names, path)
    outdir = os.path.join(args.build_dir, 'results')
    free = []
    with BuildLock(args.build_dir, wait=not args.no_wait):
        t0 = time.monotonic()
        guest.build_program(args.build_dir, 'sticky-race',
                            'common/programs/race.c')
        def one(f):
            if not args.free:
                return window_one(args, f, outdir)
            obj, ok = free_one(args, f)
            free.append(obj)
            return ok
        failed = boot_run.failures(chosen, one)
        if args.free:
            results.write_json(
                {'date': datetime.date.today().isoformat(),
                 'tries': args.free, 'smp': 2, 'flavors': free},
                os.path.join(outdir, 'race-free.json'))
        if not args.directory:
            write_section(outdir, 'sticky.py race' + (
                f' --free {args.free}' if args.free else
                f' --trials {args.trials} --window-ms {args.window_ms}'))
        log(f'race: {len(chosen)} flavor(s) in '
            f'{time.monotonic() - t0:.1f}s')
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def add(sub):
    p = sub.add_parser('race', help='the link renamed out of the sticky '
                       'directory between its lookup and the checks '
                       '(default: the race flavors, window mode)')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--trials', type=int, default=5,
                   help='trials per position, protected_symlinks value '
                   'and renamed/control (default 5)')
    p.add_argument('--window-ms', type=int, default=100,
                   help='the window the fixture holds the follower in '
                   '(default 100)')
    p.add_argument('--free', type=int, default=0, metavar='TRIES',
                   help='free-running race on unmodified kernels, -smp 2, '
                   'TRIES opens per position and value; counts bypasses')
    p.add_argument('--directory', choices=('walk', 'parent'), default=None,
                   help='judge every flavor as if its rule judged this '
                   'directory (to see the judging fail)')
    boot_run.add_boot_opts(p, 0)
    p.set_defaults(func=cmd_race)
