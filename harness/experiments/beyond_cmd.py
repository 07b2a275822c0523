"""sticky.py attack / beyond-bench / beyond-report: boots the issue-6 guest
programs and writes build/results/beyond.json, build/results/bench.json,
build/results/bench.txt and build/results/beyond.md (see beyond.py).
The committed results/beyond.md changes only through `make bless`."""

import datetime
import os
import subprocess

from boot import run as boot_run
from experiments import beyond
import flavors as flv
from boot.lock import BuildLock
from stages import HarnessError, log
from suite import results


def _paths(args):
    res = os.path.join(args.build_dir, 'results')
    return {'beyond': os.path.join(res, 'beyond.json'),
            'bench': os.path.join(res, 'bench.json'),
            'bench_txt': os.path.join(res, 'bench.txt'),
            'timing': os.path.join(res, 'beyond.timing.json'),
            'md': getattr(args, 'md', None) or
            os.path.join(res, 'beyond.md')}


def _need_prog(args, name):
    prog = os.path.join(args.build_dir, 'guest', name)
    if not os.path.isfile(prog):
        raise HarnessError(f'{prog} not found: build the guest programs '
                           f'with `make guest`')


def _boot(args, flavor, job, tag, smp=1, icount=''):
    """(records, outcome) of one boot, or (None, outcome/why) when it
    gave no usable stream."""
    try:
        boot_run.kernel_image(args, flavor.name)
    except HarnessError as e:
        return None, str(e)
    out = boot_run.boot(args, flavor, job, tag, args.timeout,
                        echo=print if args.console else None, smp=smp,
                        icount=icount)
    boot_run.report_outcome(flavor.name, out)
    recs, why = results.boot_records(out)
    if recs is None:
        return None, why
    try:
        obj = results.assemble(flavor.name, recs, out.status)
    except HarnessError as e:
        return None, str(e)
    return obj, out


COMMITTED = os.path.join(flv.TOP, 'results', 'beyond.md')


def _committed():
    """(text, when) of the committed results/beyond.md, the last
    measurement of what a run may not measure again."""
    try:
        with open(COMMITTED, encoding='utf-8') as f:
            text = f.read()
    except OSError:
        return None, ''
    res = subprocess.run(['git', '-C', flv.TOP, 'log', '-1',
                          '--format=%cs at commit %h', '--', COMMITTED],
                         capture_output=True, text=True)
    return text, (f'blessed {res.stdout.strip()} (results/beyond.md)'
                  if res.stdout.strip() else 'results/beyond.md')


def _measured():
    """When and on what a measurement ran: today's date and the commit
    checked out (with -dirty when the tree has changes)."""
    res = subprocess.run(['git', '-C', flv.TOP, 'describe', '--always',
                          '--dirty', '--abbrev=7'],
                         capture_output=True, text=True)
    return {'date': datetime.date.today().isoformat(),
            'commit': res.stdout.strip() or 'unknown'}


def _write_md(args, paths, flavors):
    previous, when = _committed()
    text = beyond.markdown(beyond.load_json(paths['beyond'], {}),
                           beyond.load_json(paths['bench'], {}), flavors,
                           previous, when)
    os.makedirs(os.path.dirname(paths['md']), exist_ok=True)
    with open(paths['md'], 'w', encoding='utf-8') as f:
        f.write(text)
    log(f'wrote {paths["md"]}')


def _all_flavors(args):
    return flv.pick([], args.flavors_file or flv.INI)


def cmd_attack(args):
    _need_prog(args, 'sticky-attack')
    chosen = boot_run.chosen_flavors(args)
    paths = _paths(args)
    store = beyond.load_json(paths['beyond'], {})
    store.setdefault('flavors', {})
    store['measured'] = _measured()
    timing = beyond.load_json(paths['timing'], {})
    passed = failed = 0
    job = ['/bin/sticky-attack', '--tries', str(args.tries), '--planted',
           str(args.planted)]
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for f in chosen:
            checks = []
            ent = {'attack': [], 'namespace': [], 'errors': [],
                   'tries': args.tries, 'planted': args.planted}
            boots = [('attack', job)]
            if not f.series and not args.no_namespace:
                boots.append(('namespace', job + ['--namespace']))
            for tag, j in boots:
                obj, out = _boot(args, f, j, tag, smp=2)
                if obj is None:
                    checks.append({'ok': False,
                                   'line': f'{f.name} {tag}: no result: '
                                   f'{out}'})
                    continue
                timing[f'{f.name}-{tag}'] = round(out.seconds, 1)
                got = beyond.split_records(obj['extra'])
                ent[tag] = got[tag]
                ent['errors'] += obj['errors']
                for e in obj['errors']:
                    checks.append({'ok': False, 'line': f'{f.name} {tag}: '
                                   f'guest error {e.get("id")}: '
                                   f'{e.get("reason")}'})
                if obj['status'] not in (0, 1) or (obj['status'] and
                                                   not obj['errors']):
                    checks.append({'ok': False, 'line': f'{f.name} {tag}: '
                                   f'guest exit status {obj["status"]}'})
                if tag == 'attack':
                    checks += beyond.judge_attacks(f, got['attack'])
                else:
                    checks += beyond.judge_namespace(got['namespace'])
            ent['checks'] = checks
            store['flavors'][f.name] = ent
            for c in checks:
                print(f'{"ok" if c["ok"] else "not ok"} {c["line"]}',
                      flush=True)
                passed += c['ok']
                failed += not c['ok']
    results.write_json(store, paths['beyond'])
    results.write_json(timing, paths['timing'])
    log(f'wrote {paths["beyond"]}')
    _write_md(args, paths, _all_flavors(args))
    print(f'{passed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def bench_text(bench):
    rows = ['protection on vs off, same boot (ns: fast path, clock '
            'subtracted)',
            'flavor    knob                              case            '
            '  off ns   on ns    fast     min  median']
    for o in bench.get('overheads', []):
        rows.append(f'{o["flavor"]:<9} {o["knob"]:<33} {o["case"]:<16} '
                    f'{o["off_ns"]:>6.0f} {o["on_ns"]:>7.0f} '
                    f'{o["pct_fast"]:>+6.2f}% {o["pct_min"]:>+6.2f}% '
                    f'{o["pct_median"]:>+6.2f}%')
    rows += ['', 'ratio to base, same ps',
             'flavor    setting   case             fast    min     median']
    for r in bench.get('ratios', []):
        if 'ratio_fast' in r:
            rows.append(f'{r["flavor"]:<9} {r["setting"]:<9} '
                        f'{r["case"]:<16} {r["ratio_fast"]:.4f}  '
                        f'{r["ratio_min"]:.4f}  {r["ratio_median"]:.4f}')
    return '\n'.join(rows) + '\n'


def cmd_bench(args):
    _need_prog(args, 'sticky-bench')
    chosen = boot_run.chosen_flavors(args)
    paths = _paths(args)
    bench = beyond.load_json(paths['bench'], {})
    records = bench.get('records', {})
    if bench.get('params', {}).get('icount') != args.icount:
        records = {}        # never mix clocks
    timing = beyond.load_json(paths['timing'], {})
    failed_boots = 0
    job = ['/bin/sticky-bench', '--iters', str(args.iters), '--repeats',
           str(args.repeats)]
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for f in chosen:
            obj, out = _boot(args, f, job, 'beyond-bench', smp=1,
                             icount=args.icount)
            if obj is None or obj['errors'] or obj['status']:
                why = out if obj is None else obj['errors'] or obj['status']
                print(f'not ok {f.name} bench: {why}', flush=True)
                failed_boots += 1
                continue
            timing[f'{f.name}-bench'] = round(out.seconds, 1)
            records[f.name] = beyond.split_records(obj['extra'])['bench']
    flavors = _all_flavors(args)
    bench = _bench_summary(paths, records, {
        'icount': args.icount, 'iters': args.iters,
        'repeats': args.repeats, 'smp': 1}, flavors, _measured())
    results.write_json(timing, paths['timing'])
    print(bench_text(bench), end='', flush=True)
    checks = beyond.judge_bench(bench['overheads'])
    for c in checks:
        print(f'{"ok" if c["ok"] else "not ok"} {c["line"]}', flush=True)
    missed = sum(not c['ok'] for c in checks)
    log(f'wrote {paths["bench"]}, {paths["bench_txt"]}')
    _write_md(args, paths, flavors)
    print(f'{len(checks) - missed} passed, {missed + failed_boots} failed',
          flush=True)
    if failed_boots or (missed and args.enforce):
        return 1
    return 0


def _bench_summary(paths, records, params, flavors, measured=None):
    """Computes the tables from the raw records; writes bench.json and
    bench.txt."""
    table = beyond.bench_table(records)
    ratios, overheads = beyond.bench_ratios(table, flavors)
    bench = {'params': params, 'records': records, 'table': table,
             'ratios': ratios, 'overheads': overheads}
    if measured:
        bench['measured'] = measured
    results.write_json(bench, paths['bench'])
    with open(paths['bench_txt'], 'w', encoding='utf-8') as f:
        f.write(bench_text(bench))
    return bench


def cmd_report(args):
    """Recomputes the bench tables from the stored records (no boot) and
    writes build/results/beyond.md."""
    paths = _paths(args)
    flavors = _all_flavors(args)
    bench = beyond.load_json(paths['bench'], {})
    if bench.get('records'):
        _bench_summary(paths, bench['records'], bench.get('params', {}),
                       flavors, bench.get('measured'))
    _write_md(args, paths, flavors)
    return 0


def add(sub):
    p = sub.add_parser('attack', help='the /tmp symlink attack in each '
                       'flavor (and per-user /tmp in base)')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--tries', type=int, default=2000,
                   help='race tries per setting (default 2000)')
    p.add_argument('--planted', type=int, default=20,
                   help='tries of each planted-link variant (default 20)')
    p.add_argument('--no-namespace', action='store_true',
                   help='skip the per-user /tmp boot in base')
    p.add_argument('--md', default=None,
                   help='where the Markdown section goes (default: '
                   'build/results/beyond.md; `make bless` copies it to '
                   'results/beyond.md, the report\'s section)')
    boot_run.add_boot_opts(p, 300)
    p.set_defaults(func=cmd_attack)
    p = sub.add_parser('beyond-bench', help='cost of the symlink checks '
                       'on allowed paths, each flavor vs base, under -icount')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--icount', default='shift=0',
                   help='QEMU -icount value (default shift=0)')
    p.add_argument('--iters', type=int, default=500,
                   help='single-op samples per repeat (default 500)')
    p.add_argument('--repeats', type=int, default=9,
                   help='repeats per setting (default 9)')
    p.add_argument('--enforce', action='store_true',
                   help='fail when an overhead misses the 1%% target')
    boot_run.add_boot_opts(p, 600)
    p.set_defaults(func=cmd_bench)
    p = sub.add_parser('beyond-report', help='recompute the bench tables and '
                       'write build/results/beyond.md from build/results/'
                       '{beyond,bench}.json (no boot)')
    p.set_defaults(func=cmd_report)
