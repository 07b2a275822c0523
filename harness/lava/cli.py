"""`sticky.py lava`: each flavor's kernel as a LAVA job, validated with
LAVA's own schema and run with LAVA's own dispatcher (lava-run, no
server), its recorded results compared with the project's own boot.

Writes build/lava/<flavor>/job.yaml (and device.yaml, lava.log), and
build/results/lava.json: per flavor the job's time, LAVA's counts, the
ratio to the project's own suite boot of the same kernel, and what
differed. Exits non-zero when a job is invalid, did not complete, or
recorded anything other than the project's own verdicts.
"""

import hashlib
import os
import shutil
import subprocess
import time

from boot.lock import BuildLock
from boot import initramfs
from boot.run import chosen_flavors
import flavors as flv
from lava import device, job, results
from stages import HarnessError, log
from suite import results as suite_results
from suite.cli import Expectations

LAVA_RUN = '/usr/bin/lava-run'
# lava-run and lava_common run on Debian's own Python, with its packages.
LAVA_PYTHON = '/usr/bin/python3'
VALIDATE = '''
import sys, yaml
from lava_common.schemas import validate
bad = 0
for path in sys.argv[1:]:
    try:
        with open(path) as f:
            validate(yaml.safe_load(f), strict=True)
    except Exception as exc:
        bad += 1
        print(f"{path}: {exc}")
sys.exit(1 if bad else 0)
'''
# A guest that dies mid-run: the suite is killed after a few seconds.
DIES = '''#!/bin/sh
/bin/sticky-suite.real "$@" &
pid=$!
sleep {seconds}
kill -9 $pid
wait $pid
'''


def _commit():
    res = subprocess.run(['git', '-C', flv.TOP, 'rev-parse', '--short=12',
                          'HEAD'], capture_output=True, text=True)
    return res.stdout.strip() or 'unknown'


def _sha(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def _initrd(args, flavor, outdir):
    """The ramdisk of the job: the flavor's suite initramfs (with the
    expectations it is judged against), or one whose suite dies."""
    exp = Expectations(args, flavor)
    if not args.die_after:
        return exp, exp.initrd
    with open(os.path.join(args.build_dir, 'guest', 'sticky-suite'),
              'rb') as f:
        real = f.read()
    files = {'/bin/sticky-suite.real': real,
             '/bin/sticky-suite': DIES.format(
                 seconds=args.die_after).encode()}
    return exp, initramfs.append(exp.initrd, files,
                                 os.path.join(outdir, 'initramfs-dies.cpio.gz'))


def write_jobs(args, chosen):
    """{flavor: (job path, device path, Expectations)}."""
    templates = device.templates(args.build_dir)
    commit = _commit()
    out = {}
    for f in chosen:
        kernel = os.path.join(args.build_dir, f.name, 'bzImage')
        if not os.path.isfile(kernel):
            raise HarnessError(f'{kernel} is missing: build it first '
                               f'(make kernel FLAVOR={f.name})')
        d = os.path.join(args.build_dir, 'lava', f.name)
        os.makedirs(d, exist_ok=True)
        exp, ramdisk = _initrd(args, f, d)
        meta = {'flavor': f.name, 'series': f.series or '(none)',
                'commit': commit, 'expectations': exp.label,
                'kernel.sha256': _sha(kernel)}
        if args.die_after:
            meta['dies_after_s'] = args.die_after
        definition = job.definition(
            f.name, job.url(args.base_url, kernel, args.build_dir),
            job.url(args.base_url, ramdisk, args.build_dir), meta,
            args.minutes, None if exp.own else exp.label)
        job_path = os.path.join(d, 'job.yaml')
        with open(job_path, 'w', encoding='utf-8') as fh:
            fh.write(job.to_yaml(definition) + '\n')
        dev_path = os.path.join(d, 'device.yaml')
        with open(dev_path, 'w', encoding='utf-8') as fh:
            fh.write(device.render(templates, definition['context']))
        out[f.name] = (job_path, dev_path, exp)
    return out


def validate(paths):
    """lava_common's strict validation of every job, in LAVA's Python."""
    if not os.path.isfile(LAVA_PYTHON):
        raise HarnessError(f'{LAVA_PYTHON} is missing')
    res = subprocess.run([LAVA_PYTHON, '-c', VALIDATE, *paths],
                         capture_output=True, text=True)
    if res.returncode and 'lava_common' in res.stderr:
        raise HarnessError('lava_common is not installed: run '
                           '`sh harness/deps.sh lava` (lava-dispatcher)')
    return res.returncode == 0, (res.stdout + res.stderr).strip()


def run_job(name, job_path, dev_path, job_id, timeout):
    """lava-run on one job: (Run, seconds, log path)."""
    outdir = os.path.join(os.path.dirname(job_path), 'out')
    shutil.rmtree(outdir, ignore_errors=True)
    log_path = os.path.join(os.path.dirname(job_path), 'lava.log')
    t0 = time.monotonic()
    with open(log_path, 'w', encoding='utf-8') as logf:
        try:
            subprocess.run([LAVA_RUN, '--device', dev_path, '--job-id',
                            str(job_id), '--output-dir', outdir, job_path],
                           stdout=logf, stderr=subprocess.STDOUT,
                           timeout=timeout)
        except subprocess.TimeoutExpired:
            logf.write(f'\nsticky: lava-run killed after {timeout} s\n')
    seconds = time.monotonic() - t0
    with open(log_path, encoding='utf-8', errors='replace') as f:
        run = results.parse_log(f.read())
    return run, seconds, log_path


def reference(build_dir, name):
    path = os.path.join(build_dir, 'logs', f'{name}-suite', 'ktap.txt')
    if not os.path.isfile(path):
        raise HarnessError(f'{path} is missing: the project\'s own suite '
                           f'boot comes first (sticky.py suite {name})')
    with open(path, encoding='utf-8', errors='replace') as f:
        return results.parse_ktap(f.read())


def cmd_lava(args):
    if not args.validate_only:
        if not os.path.isfile(LAVA_RUN):
            raise HarnessError(f'{LAVA_RUN} is missing: run `sh harness/'
                               'deps.sh lava` (lava-dispatcher)')
        if os.geteuid() != 0:
            raise HarnessError('lava-run runs only as root')
    chosen = chosen_flavors(args)
    with BuildLock(args.build_dir, wait=True):
        jobs = write_jobs(args, chosen)
    ok, why = validate([j for j, _, _ in jobs.values()])
    log(f'{len(jobs)} job(s) validated with lava_common (strict): '
        f'{"valid" if ok else "INVALID"}')
    if not ok:
        print(why)
        return 1
    if args.validate_only:
        return 0
    summary, failed = {}, 0
    for i, (name, (job_path, dev_path, exp)) in enumerate(jobs.items()):
        ref = reference(args.build_dir, name)
        run, seconds, log_path = run_job(name, job_path, dev_path, i + 1,
                                         args.minutes * 60 + 180)
        problems = results.compare(run, ref)
        own = suite_results.suite_seconds(args.build_dir, name)
        counts = results.count(run.verdicts)
        log(f'{name}: lava-run {seconds:.1f} s'
            + (f' ({seconds / own:.2f} x its own suite boot, {own:.1f} s)'
               if own else '')
            + f'; LAVA recorded {len(run.verdicts)} results: '
            f'{counts["pass"]} pass ({counts["xfail"]} XFAIL), '
            f'{counts["fail"]} fail; job {run.job_result or "incomplete"}')
        for p in problems:
            print(f'  {name}: {p}')
        print(f'{"ok" if not problems else "not ok"} - {name}: LAVA\'s '
              f'results {"equal" if not problems else "differ from"} the '
              f'project\'s own verdicts ({log_path})', flush=True)
        failed += bool(problems)
        summary[name] = {'seconds': round(seconds, 2), 'own_seconds': own,
                         'ratio': round(seconds / own, 3) if own else None,
                         'results': len(run.verdicts), 'counts': counts,
                         'job': run.job_result, 'expectations': exp.label,
                         'dies_after': args.die_after, 'problems': problems}
    if not args.die_after and not args.expect_flavor:
        suite_results.write_json(summary, os.path.join(
            args.build_dir, 'results', 'lava.json'))
    print(f'{len(jobs) - failed} passed, {failed} failed')
    return 1 if failed else 0


def add(sub):
    p = sub.add_parser(
        'lava', help='each flavor as a LAVA job: validated, run with '
        'lava-run, its results compared with the project\'s own boot')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--validate-only', action='store_true',
                   help='write and validate the jobs, run none')
    p.add_argument('--base-url', default='',
                   help='a lab\'s URL of the build directory (default: '
                   'file:// URLs, for lava-run here)')
    p.add_argument('--minutes', type=int, default=10,
                   help='the test action\'s timeout (the job adds 5)')
    p.add_argument('--expect-flavor', metavar='FLAVOR',
                   help='judge the cases against this flavor\'s model: '
                   'LAVA must record failures')
    p.add_argument('--die-after', type=int, default=0, metavar='S',
                   help='kill the guest\'s suite after S seconds: the job '
                   'must not complete')
    p.set_defaults(func=cmd_lava, expect_file=None)
