"""The subcommands of sticky.py."""

import argparse
import json
import os

import bench
import coverletter
import expect
import flavors as flv
import guest
import kernels
import ktap
import mboximport
import mutants
import placement
import posted
import qemu
import rangediff
import results
import seriesbuild
import seriescheck
import tree
from lock import BuildLock
from stages import HarnessError, Stages, log
from stress import add_stress_commands
from idmap_cmd import add_idmap_commands


def _flavors(args):
    path = args.flavors_file or flv.INI
    return flv.pick(getattr(args, 'flavors', None) or [], path,
                    getattr(args, 'top', None))


def cmd_build(args):
    stages = Stages()
    chosen = _flavors(args)
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for f in chosen:
            img = kernels.build_flavor(f, args.build_dir, args.top, stages,
                                       force=args.force)
            log(f'{f.name}: {img}')
    log(stages.summary())
    return 0


def add_all(sub):
    p = sub.add_parser('build', help='build kernels')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--force', action='store_true',
                   help='run make even when the stamped inputs are unchanged')
    p.set_defaults(func=cmd_build)
    add_boot_commands(sub)
    add_check_commands(sub)
    add_bench_commands(sub)
    add_beyond_commands(sub)
    add_stress_commands(sub)
    mutants.add(sub)
    mboximport.add_parser(sub)
    add_idmap_commands(sub)


def _kernel(args, name):
    img = os.path.join(args.build_dir, name, 'bzImage')
    if not os.path.isfile(img):
        raise HarnessError(f'{img} not found: build it with `make kernel '
                           f'FLAVOR={name}`')
    return img


KVM_PROBE_TIMEOUT = 15


def use_kvm(args, flavor):
    """--kvm asks for KVM; it is used only if a probe boot under KVM ends
    with a verdict in time (guests have been seen to hang under KVM here).
    The answer is kept for the rest of the run."""
    if not getattr(args, 'kvm', False):
        return False
    if getattr(args, 'kvm_ok', None) is None:
        b = qemu.Boot(kernel=_kernel(args, flavor.name),
                      initrd=guest.initrd(args.build_dir),
                      job=['/bin/busybox', 'true'],
                      logdir=os.path.join(args.build_dir, 'logs',
                                          'kvm-probe'),
                      timeout=KVM_PROBE_TIMEOUT, kvm=True)
        if not os.access('/dev/kvm', os.R_OK | os.W_OK):
            args.kvm_ok, why = False, '/dev/kvm is not usable'
        else:
            out = qemu.run(b)
            args.kvm_ok, why = out.verdict == 'passed', out.line()
        log(f'KVM probe: {"ok" if args.kvm_ok else "failed"} ({why}); '
            f'using {"KVM" if args.kvm_ok else "TCG"}')
    return args.kvm_ok


def boot(args, flavor, job, tag, timeout, echo=None, smp=1, icount='',
         initrd=None):
    b = qemu.Boot(kernel=_kernel(args, flavor.name),
                  initrd=initrd or guest.initrd(args.build_dir), job=job,
                  logdir=os.path.join(args.build_dir, 'logs',
                                      f'{flavor.name}-{tag}'),
                  timeout=timeout, smp=smp, kvm=use_kvm(args, flavor),
                  icount=icount, echo=echo)
    return qemu.run(b)


def report_outcome(name, out):
    log(f'{name}: {out.line()}')
    if out.verdict not in ('passed', 'failed'):
        print(f'--- console excerpt ({out.console}) ---\n{out.excerpt}\n---',
              flush=True)


class Expectations:
    """What a suite boot of one flavor is judged against: the expectation
    file harness/expect.py writes from the rule model of `name` (or the
    file given), shipped in the flavor's own initramfs. `own`: they are
    the flavor's (its name, or the flavor a mutant claims to be); other
    expectations are a demonstration, whose results stay out of
    build/results."""

    def __init__(self, args, flavor):
        default = flavor.mutant_of or flavor.name
        path = getattr(args, 'expect_file', None)
        self.name = getattr(args, 'expect_flavor', None) or default
        if path:
            with open(path, encoding='utf-8') as f:
                self.text = f.read()
            self.label = 'file'
        else:
            try:
                self.text = expect.text(self.name)
            except expect.ExpectError as e:
                raise HarnessError(f'{flavor.name}: {e}; run it with '
                                   f'--expect-flavor <a modelled flavor>'
                                   ) from None
            self.label = self.name
        # A flavor without a model of its own (a fixture such as v2)
        # takes the one it is given as its own.
        modelled = default in expect.FLAVORS
        self.own = not path and (self.name == default or not modelled)
        suffix = '' if self.own else f'-expect-{self.label}'
        d = os.path.join(args.build_dir, flavor.name)
        os.makedirs(d, exist_ok=True)
        self.path = os.path.join(d, 'expect.txt' if self.own
                                 else f'expect-{self.label}.txt')
        with open(self.path, 'w', encoding='utf-8') as f:
            f.write(self.text)
        self.initrd = guest.initrd_with(
            args.build_dir, {expect.GUEST_PATH: self.text.encode()},
            os.path.join(d, f'initramfs{suffix}.cpio.gz'))
        self.tag = 'suite' + suffix


def cmd_run(args):
    flavor = _flavors(argparse.Namespace(flavors=[args.flavor],
                                         flavors_file=args.flavors_file))[0]
    job = args.job or ['/bin/sticky-suite']
    with BuildLock(args.build_dir, wait=not args.no_wait):
        initrd = None
        if job[0] == '/bin/sticky-suite' and \
                (flavor.mutant_of or flavor.name) in expect.FLAVORS:
            initrd = Expectations(args, flavor).initrd
        out = boot(args, flavor, job, 'run', args.timeout,
                   echo=print if args.console else None, smp=args.smp,
                   initrd=initrd)
    report_outcome(flavor.name, out)
    if args.json:
        print(json.dumps(out.__dict__, indent=1))
    return 0 if out.verdict == 'passed' else 1


def check_boot_knobs(flavor, facts):
    """Returns a list of mismatches between facts and flavor.boot_knobs."""
    bad = []
    knobs = facts.get('knobs', {})
    for knob, want in flavor.boot_knobs.items():
        got = knobs.get(knob)
        got_s = 'absent' if got is None else str(got)
        if got_s != want:
            bad.append(f'{knob}: expected {want}, read {got_s}')
    return bad


def cmd_smoke(args):
    chosen = _flavors(args)
    failed = 0
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for f in chosen:
            out = boot(args, f, ['/bin/busybox', 'true'], 'smoke',
                       args.timeout)
            report_outcome(f.name, out)
            if out.verdict != 'passed':
                failed += 1
                continue
            facts = results.parse_stream(out.results)[0]
            bad = check_boot_knobs(f, facts)
            shown = ' '.join(f'{k}={v}' for k, v in facts['knobs'].items())
            if bad:
                failed += 1
                log(f'not ok {f.name}: ' + '; '.join(bad))
            else:
                log(f'ok {f.name}: {facts["uname"]} {shown}')
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def cmd_suite(args):
    chosen = _flavors(args)
    failed = 0
    outdir = os.path.join(args.build_dir, 'results')
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for f in chosen:
            exp = Expectations(args, f)
            log(f'{f.name}: expectations of {exp.label} ({exp.path})')
            job = ['/bin/sticky-suite', *args.suite_args]
            out = boot(args, f, job, exp.tag, args.timeout,
                       echo=_ktap_echo if not args.console else print,
                       initrd=exp.initrd)
            ktap.settle(out)
            report_outcome(f.name, out)
            if out.verdict not in ('passed', 'failed'):
                failed += 1
                continue
            obj = results.assemble(f.name, results.parse_stream(out.results),
                                   out.status)
            where = outdir if exp.own else os.path.dirname(out.console)
            results.write_json(obj, os.path.join(where, f'{f.name}.json'))
            if exp.own:
                results.write_json({'seconds': round(out.seconds, 2)},
                                   os.path.join(outdir,
                                                f'{f.name}.timing.json'))
            log(f'{f.name}: {len(obj["cases"])} cases, '
                f'{len(obj["errors"])} self-check errors -> '
                f'{where}/{f.name}.json')
            if out.verdict != 'passed' or obj['errors']:
                failed += 1
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def _ktap_echo(line):
    """The top-level KTAP lines and the capped failure diagnostics of the
    nested ones (the console holds one line per case)."""
    if line.startswith(('KTAP', 'ok ', 'not ok ', '1..', '# ',
                        '  # failed:')):
        print(line, flush=True)


def cmd_ktap_check(args):
    """kunit.py parse on each flavor's suite console log, against the
    differ's counts for the same run."""
    kunit_py = os.path.join(args.build_dir, 'pristine', ktap.KUNIT)
    results_dir = os.path.join(args.build_dir, 'results')
    from stickydiff.load import LoadError, load_flavor, present_flavors
    names = args.flavors or present_flavors(results_dir)
    if not names:
        raise HarnessError(f'no result files in {results_dir}: run '
                           f'`sticky.py suite` first')
    bad = 0
    for name in names:
        console = os.path.join(args.build_dir, 'logs', f'{name}-suite',
                               'console.log')
        try:
            result = load_flavor(results_dir, name)
        except LoadError as e:
            raise HarnessError(str(e)) from None
        if not os.path.isfile(console):
            raise HarnessError(f'{console} not found: run `sticky.py '
                               f'suite {name}`')
        line, problems = ktap.check_flavor(kunit_py, console, result)
        log(f'{"ok" if not problems else "not ok"} {name}: {line}')
        for p in problems[:20]:
            log(f'  {p}')
        bad += bool(problems)
    print(f'{len(names) - bad} passed, {bad} failed', flush=True)
    return 1 if bad else 0


def _add_boot_opts(p, timeout):
    p.add_argument('--timeout', type=float, default=timeout,
                   help=f'hard limit per boot in seconds (default {timeout})')
    p.add_argument('--kvm', action='store_true',
                   help='use KVM (after a probe boot); TCG otherwise')
    p.add_argument('--console', action='store_true',
                   help='echo the whole guest console')


def add_boot_commands(sub):
    p = sub.add_parser('run', help='boot a flavor and run a job in it')
    p.add_argument('flavor')
    p.add_argument('job', nargs='*', help='the guest job, after --')
    p.add_argument('--smp', type=int, default=1)
    p.add_argument('--json', action='store_true')
    _add_boot_opts(p, 60)
    p.set_defaults(func=cmd_run)
    p = sub.add_parser('smoke', help='boot each flavor, check boot knobs')
    p.add_argument('flavors', nargs='*')
    _add_boot_opts(p, 30)
    p.set_defaults(func=cmd_smoke)
    p = sub.add_parser('suite', help='run the shared suite in each flavor')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--suite-args', nargs='*', default=[])
    p.add_argument('--expect-flavor', metavar='FLAVOR',
                   help="judge the cases against this flavor's rule model "
                   '(default: the flavor\'s own, or the one a mutant claims '
                   'to be); results then go to the log directory')
    p.add_argument('--expect-file', metavar='FILE',
                   help='ship this expectation file instead (see harness/'
                   'expect.py); results then go to the log directory')
    _add_boot_opts(p, 120)
    p.set_defaults(func=cmd_suite)
    p = sub.add_parser('ktap-check',
                       help="kunit.py parse of each suite boot's console "
                       'must count what the differ counts')
    p.add_argument('flavors', nargs='*')
    p.set_defaults(func=cmd_ktap_check)


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


def add_check_commands(sub):
    p = sub.add_parser('posted-check',
                       help='v3 patch 1 alone must fail to build with =n')
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
    p = sub.add_parser('range-diff',
                       help='git range-diff of the series of the first '
                       'pair in harness/pairs.ini')
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
    for f in _flavors(args):
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


def cmd_range_diff(args):
    a, b = rangediff.first_pair()
    out = rangediff.write(args.build_dir, a, b)
    log(f'range-diff {a}..{b} -> {out}')
    return 0


def cmd_bench(args):
    def boot_one(f):
        return boot(args, f, ['/bin/busybox', 'true'], 'bench', 30)
    with BuildLock(args.build_dir, wait=not args.no_wait):
        rows = bench.run(args, boot_one)
    print('\n'.join(rows), flush=True)
    return 0


def add_bench_commands(sub):
    p = sub.add_parser('bench', help='build and boot figures vs targets')
    p.add_argument('--cold', action='store_true',
                   help='also build every flavor from nothing (fresh tree, '
                   'empty ccache; about 15 minutes on 2 cores)')
    p.set_defaults(func=cmd_bench)


def add_beyond_commands(sub):
    """Issue 6 (harness/beyond_cmd.py): attack, beyond-bench,
    beyond-report."""
    import beyond_cmd  # noqa: E402 (imports this module)
    import contend  # noqa: E402 (imports beyond_cmd)
    beyond_cmd.add(sub)
    contend.add(sub)
