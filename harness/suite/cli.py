"""sticky.py run, smoke, suite and ktap-check."""

import argparse
import json
import os
from concurrent.futures import ThreadPoolExecutor

from boot import guest
from boot import qemu
from boot.lock import BuildLock
from boot.run import add_boot_opts, boot, chosen_flavors, report_outcome
from stages import JOBS, HarnessError, log
from suite import expect
from suite import ktap
from suite import results


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
    flavor = chosen_flavors(argparse.Namespace(flavors=[args.flavor],
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
    chosen = chosen_flavors(args)
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


def need_suite(build_dir):
    prog = os.path.join(build_dir, 'guest', 'sticky-suite')
    if not os.path.isfile(prog):
        raise HarnessError(f'{prog} not found: build the guest programs '
                           f'with `make guest`')


def cmd_suite(args):
    need_suite(args.build_dir)
    chosen = chosen_flavors(args)
    jobs = max(1, min(args.jobs, len(chosen)))
    failed = 0
    outdir = os.path.join(args.build_dir, 'results')
    with BuildLock(args.build_dir, wait=not args.no_wait):
        guest.initrd(args.build_dir)    # shared by every flavor's initramfs
        if jobs == 1:
            outcomes = (_suite_boot(args, f, '') for f in chosen)
            for f, (exp, out) in zip(chosen, outcomes):
                failed += not _suite_results(f, exp, out, outdir,
                                             args.suite_args)
        else:
            # One TCG QEMU per core; the results are read in the flavors'
            # order, each as soon as its boot and the ones before it ended.
            with ThreadPoolExecutor(jobs) as pool:
                futures = [pool.submit(_suite_boot, args, f, f'{f.name}: ')
                           for f in chosen]
                try:
                    for f, fut in zip(chosen, futures):
                        exp, out = fut.result()
                        failed += not _suite_results(
                            f, exp, out, outdir, args.suite_args)
                except BaseException:
                    for fut in futures:
                        fut.cancel()
                    qemu.stop_all()
                    raise
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def _suite_boot(args, f, prefix):
    exp = Expectations(args, f)
    log(f'{f.name}: expectations of {exp.label} ({exp.path})')
    job = ['/bin/sticky-suite', *args.suite_args]
    if args.console:
        echo = (lambda line: print(prefix + line, flush=True))
    else:
        echo = (lambda line: _ktap_echo(line, prefix))
    out = boot(args, f, job, exp.tag, args.timeout, echo=echo,
               initrd=exp.initrd)
    return exp, out


def _suite_results(f, exp, out, outdir, suite_args=()):
    """Settles one suite boot and writes its results; False: it failed."""
    ktap.settle(out)
    report_outcome(f.name, out)
    if out.verdict not in ('passed', 'failed'):
        return False
    obj = results.assemble(f.name, results.parse_stream(out.results),
                           out.status)
    # a case whose self-check failed has an error record, not a case one
    problem = not obj['errors'] and missing_cases(obj['cases'], suite_args)
    if problem:
        log(f'not ok {f.name}: {problem}')
        return False
    where = outdir if exp.own else os.path.dirname(out.console)
    results.write_json(obj, os.path.join(where, f'{f.name}.json'))
    if exp.own:
        results.write_json({'seconds': round(out.seconds, 2)},
                           os.path.join(outdir, f'{f.name}.timing.json'))
    log(f'{f.name}: {len(obj["cases"])} cases, '
        f'{len(obj["errors"])} self-check errors -> '
        f'{where}/{f.name}.json')
    return out.verdict == 'passed' and not obj['errors']


GROUP_PREFIX = {'matrix': 'm/', 'positions': 'p/', 'ops': 'o/',
                'mounts': 'n/'}


def missing_cases(cases, suite_args=()):
    """None when every setting ran exactly the matrix's ids (the host's
    mirror of common/lib/matrix.c; --quick's and --only's subsets too), else
    what differs: a guest binary older than its sources runs other cases
    than the ones judged here."""
    args = list(suite_args)
    only = args[args.index('--only') + 1] if '--only' in args[:-1] else None
    if only in ('sysctl', 'log'):
        return None
    want = {cid for cid in expect.case_ids('--quick' in args)
            if only is None or cid.startswith(GROUP_PREFIX.get(only, '?'))}
    ran = {}
    for case in cases:
        ran.setdefault(case.get('setting'), set()).add(case.get('id'))
    if not ran:
        return 'no case was recorded'
    for setting, ids in ran.items():
        if ids != want:
            return (f'setting {setting}: the guest ran {len(ids)} cases, '
                    f'the matrix has {len(want)} ({len(want - ids)} not '
                    f'run, {len(ids - want)} unknown): rebuild the guest '
                    f'programs with `make guest`')
    return None


def _ktap_echo(line, prefix=''):
    """The top-level KTAP lines and the capped failure diagnostics (a
    console without a KTAP channel holds one line per case too)."""
    if line.startswith(('KTAP', 'ok ', 'not ok ', '1..', '# ',
                        '  # failed:')):
        print(prefix + line, flush=True)


def cmd_ktap_check(args):
    """kunit.py parse on each flavor's suite KTAP document, against the
    differ's counts for the same run."""
    kunit_py = os.path.join(args.build_dir, 'pristine', ktap.KUNIT)
    results_dir = os.path.join(args.build_dir, 'results')
    from differ.load import LoadError, load_flavor, present_flavors
    names = args.flavors or present_flavors(results_dir)
    if not names:
        raise HarnessError(f'no result files in {results_dir}: run '
                           f'`sticky.py suite` first')
    bad = 0
    for name in names:
        logdir = os.path.join(args.build_dir, 'logs', f'{name}-suite')
        try:
            result = load_flavor(results_dir, name)
        except LoadError as e:
            raise HarnessError(str(e)) from None
        document = ktap.document(logdir)
        if not document:
            raise HarnessError(f'no KTAP in {logdir}: run `sticky.py '
                               f'suite {name}`')
        line, problems = ktap.check_flavor(kunit_py, document, result)
        log(f'{"ok" if not problems else "not ok"} {name}: {line}')
        for p in problems[:20]:
            log(f'  {p}')
        bad += bool(problems)
    print(f'{len(names) - bad} passed, {bad} failed', flush=True)
    return 1 if bad else 0


def add(sub):
    p = sub.add_parser('run', help='boot a flavor and run a job in it')
    p.add_argument('flavor')
    p.add_argument('job', nargs='*', help='the guest job, after --')
    p.add_argument('--smp', type=int, default=1)
    p.add_argument('--json', action='store_true')
    add_boot_opts(p, 60)
    p.set_defaults(func=cmd_run)
    p = sub.add_parser('smoke', help='boot each flavor, check boot knobs')
    p.add_argument('flavors', nargs='*')
    add_boot_opts(p, 30)
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
    p.add_argument('--jobs', '-j', type=int, default=JOBS,
                   help='flavors booted at once, one TCG QEMU each '
                   '(default: 2, or 1 on one core)')
    add_boot_opts(p, 120)
    p.set_defaults(func=cmd_suite)
    p = sub.add_parser('ktap-check',
                       help="kunit.py parse of each suite boot's console "
                       'must count what the differ counts')
    p.add_argument('flavors', nargs='*')
    p.set_defaults(func=cmd_ktap_check)
