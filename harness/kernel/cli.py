"""sticky.py build, checkpatch, series-build, placement-check,
cover-letters, range-diff and posted-check."""

import os

import flavors as flv
from boot.lock import BuildLock
from boot.run import chosen_flavors
from kernel import coverletter
from kernel import kernels
from kernel import placement
from kernel import posted
from kernel import rangediff
from kernel import seriesbuild
from kernel import seriescheck
from kernel import sweep
from kernel import tree
from suite import results
from stages import JOBS, HarnessError, Stages, log


def cmd_build(args):
    stages = Stages()
    chosen = chosen_flavors(args)
    with BuildLock(args.build_dir, wait=not args.no_wait):
        images = kernels.build_flavors(chosen, args.build_dir, args.top,
                                       stages, jobs=args.jobs,
                                       force=args.force,
                                       seeded=not args.no_seed)
    for f, img in zip(chosen, images):
        log(f'{f.name}: {img}')
    log(stages.summary())
    return 0


def cmd_posted(args):
    stages = Stages()
    chosen = [f for f in flv.load(args.flavors_file or flv.INI,
                                  args.top).values() if f.posted_fixture]
    if len(chosen) != 1:
        raise HarnessError('posted-check needs exactly one flavor with '
                           f'posted_fixture in flavors.ini, found '
                           f'{len(chosen)}')
    with BuildLock(args.build_dir, wait=not args.no_wait):
        ok = posted.run(args.build_dir, args.top, chosen[0], stages)
    log(stages.summary())
    print(f'{int(ok)} passed, {int(not ok)} failed', flush=True)
    return 0 if ok else 1


def add_checks(sub):
    p = sub.add_parser('posted-check',
                       help='the posting named by posted_fixture must fail '
                       'to build with its option unset')
    p.set_defaults(func=cmd_posted)
    p = sub.add_parser('checkpatch',
                       help='checkpatch.pl --strict on every series')
    p.set_defaults(func=cmd_checkpatch)
    p = sub.add_parser('series-build',
                       help='build every proper prefix of every series in '
                       'each flavor that applies it (bisectability)')
    p.set_defaults(func=cmd_series_build)
    p = sub.add_parser('placement-check',
                       help="the order of the checks in each flavor's "
                       'pick_link(), and no lock in the RCU-walk checks')
    p.add_argument('flavors', nargs='*')
    p.set_defaults(func=cmd_placement)
    p = sub.add_parser('cover-letters',
                       help='regenerate every cover letter (--check: '
                       'fail when one is stale)')
    p.add_argument('--check', action='store_true')
    p.set_defaults(func=cmd_cover_letters)
    p = sub.add_parser('config-sweep',
                       help='the objects every series touches, with W=1, '
                       'in the configurations of harness/config/'
                       'sweep.ini: no finding the pristine tree lacks')
    p.add_argument('flavors', nargs='*',
                   help='the trees to sweep (default: one default flavor '
                   'per series)')
    p.add_argument('--only', action='append', metavar='CONFIG',
                   help='this configuration of sweep.ini (repeatable)')
    p.add_argument('--check', action='store_true',
                   help='only the configurations marked check = yes')
    p.set_defaults(func=cmd_config_sweep)
    p = sub.add_parser('range-diff',
                       help='git range-diff of each step of '
                       'harness/lineage.ini (or of two flavors A B) into '
                       'build/range-diff/A..B.txt, from the series files')
    p.add_argument('pair', nargs='*', metavar='A B',
                   help='two flavors with a series (default: every step)')
    p.set_defaults(func=cmd_range_diff)


def cmd_checkpatch(args):
    src = os.path.join(args.build_dir, 'pristine')
    if not os.path.isfile(os.path.join(src, 'Makefile')):
        with BuildLock(args.build_dir, wait=not args.no_wait):
            src = tree.pristine(args.build_dir, Stages())
    ok = seriescheck.run(args.top, src)
    return 0 if ok else 1


def cmd_series_build(args):
    stages = Stages()
    with BuildLock(args.build_dir, wait=not args.no_wait):
        failed = seriesbuild.run(args.build_dir, args.top, stages,
                                 args.flavors_file)
    log(stages.summary())
    return 1 if failed else 0


def cmd_placement(args):
    bad = checked = 0
    for f in chosen_flavors(args):
        if not f.pick_link_order:
            continue
        src = os.path.join(args.build_dir, f.name, 'src')
        if not os.path.isfile(src + '.applied'):
            raise HarnessError(f'{src} has no applied series: build the '
                               f'flavor first (make kernel FLAVOR={f.name})')
        problems = placement.check_tree(src, f.pick_link_order, f.lockless)
        checked += 1
        bad += bool(problems)
        what = ' -> '.join(f.pick_link_order)
        log(f'{"not ok" if problems else "ok"} {f.name}: {what}'
            + (f"; no lock in {', '.join(f.lockless)}" if f.lockless else ''))
        for p in problems:
            print(f'    {p}')
    print(f'{checked - bad} passed, {bad} failed', flush=True)
    return 1 if bad or not checked else 0


def cmd_cover_letters(args):
    with BuildLock(args.build_dir, wait=not args.no_wait):
        src = tree.pristine(args.build_dir, Stages())
    bad = 0
    for rev in seriescheck.revisions(args.top):
        rev_dir = os.path.join(args.top, rev)
        if args.check:
            problem = coverletter.check(rev_dir, src, args.build_dir)
            log(f'{"not ok" if problem else "ok"} {rev}/'
                f'{coverletter.NAME}' + (f': {problem}' if problem else ''))
            bad += problem is not None
        else:
            log(f'wrote {coverletter.write(rev_dir, src, args.build_dir)}')
    return 1 if bad else 0


def cmd_config_sweep(args):
    stages = Stages()
    with BuildLock(args.build_dir, wait=not args.no_wait):
        failed, record = sweep.run(args.build_dir, args.top, stages,
                                   args.only, args.check, args.flavors,
                                   args.flavors_file)
    results.write_json(record, os.path.join(args.build_dir, 'results',
                                            'config-sweep.json'))
    n = sum(len(r['series']) for r in record['configs'])
    log(f'config-sweep: {len(record["configs"])} configuration(s), '
        f'{len(record["objects"])} object(s) in each tree: '
        + ', '.join(record['objects']))
    log(stages.summary())
    print(f'{n - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def cmd_range_diff(args):
    if len(args.pair) not in (0, 2):
        raise HarnessError('range-diff takes two flavors (A B) or none, '
                           f'not {len(args.pair)}')
    for path in rangediff.write(args.build_dir, *args.pair, top=args.top):
        log(f'range-diff -> {path}')
    return 0


def cmd_flavors(args):
    path = args.flavors_file or flv.INI
    print(' '.join(f.name for f in flv.flavor_set(args.set, path)))
    return 0


def add(sub):
    p = sub.add_parser('flavors', help='the flavors of a named set, on one '
                       'line (harness/flavors.ini, key `sets`)')
    p.add_argument('set', nargs='?', default=flv.DEFAULT_SET,
                   help='default (every flavor not extra), or a set a '
                   "flavor's `sets` key names")
    p.set_defaults(func=cmd_flavors)
    p = sub.add_parser('build', help='build kernels')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--force', action='store_true',
                   help='run make even when the stamped inputs are unchanged')
    p.add_argument('--no-seed', action='store_true',
                   help='a first build starts from nothing, not from a copy '
                   'of the closest built flavor\'s objects')
    p.add_argument('--jobs', '-j', type=int, default=JOBS,
                   help='flavors built at once (default: 2, or 1 on one '
                   'core); a first build waits for a flavor that can seed '
                   'it')
    p.set_defaults(func=cmd_build)
    add_checks(sub)
