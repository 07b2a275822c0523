"""make bench, kernel side: each figure beside its reference, as a ratio.

Every figure is measured in the same run as its reference and reported as
figure / reference against a target ratio (the speed issue):

  edit one patch of a revision (one line of C) -> its flavors rebuilt,
      the suite run in them, the report rewritten
                                          vs 20 s            <= 1.0
      (with --cold, also as a ratio to the reference's cold build)
  the suite in one flavor (all settings)  vs a bare boot of the same
      kernel to its verdict plus the 5.5 s the log test waits for
      printk_ratelimited()'s interval to expire (common/suite/kmsg.c
      RATELIMIT_RELEASE_MS): no suite can take less  <= 1.5
  no-op rebuild of the default flavors    vs 30 s            <= 1.0
  make check, warm (its last run, per-step times in
      build/results/check-timing.json)    vs 600 s           <= 1.0
  the report's figures (experiments/report_bench.py): make report from a
      fresh clone, report.html's size and its load in Chromium
  with --cold: the default flavors built in a fresh tree with an empty
      ccache (base from nothing, each other one from a copy of the
      closest built flavor's objects, kernel/seed.py)
                                          vs base alone, built the same way
                                                             <= 2.0
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import flavors as flv
from boot.lock import BuildLock
from experiments import report_bench
from experiments.figures import Figure, rows
from kernel import kernels
from stages import JOBS, Stages, log
from suite import results

EDIT_TARGET = 20.0
SUITE_TARGET = 1.5
RATELIMIT_RELEASE = 5.5  # seconds, common/suite/kmsg.c
CHECK_TARGET = 600.0
NOOP_TARGET = 30.0


def _timed_build(chosen, build, top, stages=None):
    """Seconds to build `chosen` as `sticky.py build` does (JOBS at a time
    where kernels.build_flavors() may); `stages` gathers each stage's
    seconds, summed over the flavors."""
    t0 = time.monotonic()
    with BuildLock(build):
        kernels.build_flavors(chosen, build, top, stages or Stages(),
                              jobs=JOBS)
    return time.monotonic() - t0


def split_note(parts):
    """'build 13.0 s, suite 15.7 s': where a figure's seconds went."""
    return ', '.join(f'{name} {secs:.1f} s' for name, secs in parts)


EDITED_LINE = '/* make bench: an edited line */'
_HUNK = re.compile(r'^@@ -(\d+(?:,\d+)?) \+(\d+)(?:,(\d+))? @@.*$', re.M)


def edit_patch(text):
    """The patch with one line of C added at the start of the last hunk of
    its last .c file, as a reviewer's edit of the code would: that file is
    compiled again and the kernel relinked."""
    starts = [(m.start(), m.group(1)) for m in
              re.finditer(r'^diff --git a/(\S+) ', text, re.M)]
    ends = [start for start, _ in starts[1:]] + [len(text)]
    sections = [(start, end) for (start, name), end in zip(starts, ends)
                if name.endswith('.c')]
    if not sections:
        raise ValueError('the patch changes no .c file')
    hunks = list(_HUNK.finditer(text, *sections[-1]))
    if not hunks:
        raise ValueError('the patch has no hunk in its last .c file')
    hunk = hunks[-1]
    count = int(hunk.group(3) or 1) + 1
    header = re.sub(r'\+\d+(?:,\d+)? @@', f'+{hunk.group(2)},{count} @@',
                    hunk.group(0), count=1)
    return (text[:hunk.start()] + header + '\n+' + EDITED_LINE
            + text[hunk.end():])


def _touched_top(top, series):
    """A copy of the revision directories with the series' last patch
    edited (edit_patch()): git am rewrites the files the series touches,
    and one of them changes."""
    tmp = tempfile.mkdtemp(prefix='sticky-bench-')
    for entry in os.listdir(top):
        if os.path.isfile(os.path.join(top, entry, 'series')):
            shutil.copytree(os.path.join(top, entry),
                            os.path.join(tmp, entry))
    patch = flv.series_patches(series, tmp)[-1]
    with open(patch, encoding='utf-8') as f:
        text = f.read()
    with open(patch, 'w', encoding='utf-8') as f:
        f.write(edit_patch(text))
    return tmp


def _run(cmd, top):
    log('+ ' + ' '.join(cmd))
    res = subprocess.run(cmd, cwd=top)
    if res.returncode:
        log(f'bench: {" ".join(cmd)} exited {res.returncode}')
    return res.returncode


def edit_to_report(build, top, series, users):
    """Seconds from an edited patch to a rewritten report: the series'
    flavors rebuilt from the edited copy, the suite run in each, the
    report made. After it, untimed, the flavors are rebuilt from the real
    series and their suite run again: the edited kernel's results would
    be stale beside the real one's image and fail the next report."""
    sticky = [sys.executable, os.path.join(top, 'harness', 'sticky.py'),
              '--build-dir', build]
    suite = sticky + ['suite', *(f.name for f in users)]
    touched = _touched_top(top, series)
    try:
        t0 = time.monotonic()
        _timed_build(users, build, touched)
        t1 = time.monotonic()
        bad = _run(suite, top)
        t2 = time.monotonic()
        bad |= _run(['make', '--no-print-directory', 'report'], top)
        t3 = time.monotonic()
    finally:
        shutil.rmtree(touched, ignore_errors=True)
        _timed_build(users, build, top)
        restored = _run(suite, top)
    return t3 - t0, bad | restored, split_note([
        ('patch and build', t1 - t0), ('suite', t2 - t1),
        ('report', t3 - t2)])


def cold(build, top, chosen, label):
    """Seconds to build `chosen` from nothing: fresh tree, empty ccache."""
    cdir = os.path.join(build, f'bench-cold-{label}')
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    old = os.environ.get('CCACHE_DIR')
    os.environ['CCACHE_DIR'] = os.path.join(cdir, 'ccache')
    stages = Stages()
    try:
        seconds = _timed_build(chosen, cdir, top, stages)
        return seconds, split_note(sorted(stages.elapsed.items()))
    finally:
        if old is None:
            del os.environ['CCACHE_DIR']
        else:
            os.environ['CCACHE_DIR'] = old
        shutil.rmtree(cdir, ignore_errors=True)


def check_seconds(build):
    """make check's total from its last run (check.sh writes it)."""
    path = os.path.join(build, 'results', 'check-timing.json')
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None, f'{path} absent: run make check first'
    slow = sorted(data.get('steps', {}).items(), key=lambda kv: -kv[1])[:3]
    disk = f"; build/ {data['build_mb']} MB" if data.get('build_mb') else ''
    return data.get('total'), 'slowest steps: ' + ', '.join(
        f'{k} {v}s' for k, v in slow) + disk


def _idle_note(build, name):
    """What the suite's console says the log interval left idle."""
    path = os.path.join(build, 'logs', f'{name}-suite', 'console.log')
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            found = re.search(r'^# timing log interval left idle: (\d+) ms',
                              f.read(), re.M)
    except OSError:
        return ''
    return (f'{int(found.group(1)) / 1000:.1f}s of it waiting out '
            f'printk_ratelimited()\'s interval' if found else '')


LAVA_TARGET = 1.5


def _lava_figure(build, top, name):
    """lava-run on one flavor against the project's own suite boot of the
    same kernel (just measured)."""
    title = f'lava-run in {name}'
    if not os.path.isfile('/usr/bin/lava-run') or os.geteuid():
        return Figure(title, None, 'own suite boot', None, LAVA_TARGET,
                      'needs root and `sh harness/deps.sh lava`')
    bad = _run([sys.executable, os.path.join(top, 'harness', 'sticky.py'),
                '--build-dir', build, 'lava', name], top)
    try:
        with open(os.path.join(build, 'results', 'lava.json'),
                  encoding='utf-8') as f:
            got = json.load(f)[name]
    except (OSError, ValueError, KeyError):
        got = {}
    return Figure(title, got.get('seconds'), 'own suite boot',
                  results.suite_seconds(build, name), LAVA_TARGET,
                  'LAVA\'s results differ from the own boot' if bad else
                  f'{got.get("results", 0)} results recorded, equal to the '
                  'own boot\'s')


def run(args, boot):
    """boot(flavor) -> qemu.Outcome. Returns the table and writes it."""
    build, top = args.build_dir, args.top
    started, commit = time.time(), _commit(top)   # as the run begins
    chosen = flv.pick([])
    figures = []
    if args.cold:       # first: the edit figures compare with its reference
        ref = [f for f in chosen if not f.series]
        base_s, _ = cold(build, top, ref, 'reference')
        all_s, all_split = cold(build, top, chosen, 'defaults')
    _timed_build(chosen, build, top)            # make sure all are built
    figures.append(Figure('no-op rebuild, default flavors',
                          _timed_build(chosen, build, top), 'target',
                          NOOP_TARGET, 1.0))
    for series in dict.fromkeys(f.series for f in chosen if f.series):
        users = [f for f in chosen if f.series == series]
        seconds, bad, split = edit_to_report(build, top, series, users)
        versus = (f'; {seconds / base_s:.2f} x a cold build of '
                  f'{ref[0].name} from nothing ({base_s:.0f}s)'
                  if args.cold and base_s else '')
        figures.append(Figure(
            f'edit a {series} patch -> report', seconds, 'target',
            EDIT_TARGET, 1.0, f'{len(users)} flavor(s) rebuilt and run'
            f': {split}' + versus + ('; a step failed' if bad else '')))
    boot(chosen[0])             # warm-up: QEMU and the page cache
    for f in chosen:
        if f.rule is None:
            continue
        bare = boot(f)
        # alone, so that no other QEMU shares the cores (suite --jobs 1)
        bad = _run([sys.executable, os.path.join(top, 'harness',
                                                 'sticky.py'),
                    '--build-dir', build, 'suite', '--jobs', '1', f.name],
                   top)
        figures.append(Figure(f'suite in {f.name}, all settings',
                              results.suite_seconds(build, f.name),
                              'bare boot + 5.5 s',
                              bare.seconds + RATELIMIT_RELEASE,
                              SUITE_TARGET,
                              'the suite failed' if bad
                              else _idle_note(build, f.name)))
        figures.append(_lava_figure(build, top, f.name))
        break
    total, note = check_seconds(build)
    figures.append(Figure('make check (last run)', total, 'target',
                          CHECK_TARGET, 1.0, note))
    if args.cold:
        figures.append(Figure('cold build, default flavors', all_s,
                              f'cold {ref[0].name}', base_s, 2.0,
                              'stages summed over the flavors, two at a '
                              f'time: {all_split}'))
    else:
        figures.append(Figure('cold build, default flavors', None,
                              'cold reference flavor', None, 2.0,
                              'bench --cold'))
    figures += report_bench.figures(top)
    table = rows(figures)
    results.write_json({'figures': [dict(f.__dict__, ratio=f.ratio)
                                    for f in figures],
                        'measured': time.strftime('%Y-%m-%d %H:%M UTC',
                                                  time.gmtime(started)),
                        'commit': commit, 'cold': bool(args.cold)},
                       os.path.join(build, 'results', 'bench-kernels.json'))
    return table


def _commit(top):
    """The commit measured, marked when the tree had other changes."""
    head = subprocess.run(['git', '-C', top, 'rev-parse', '--short=7',
                           'HEAD'], capture_output=True, text=True)
    dirty = subprocess.run(['git', '-C', top, 'status', '--porcelain',
                            '--untracked-files=no'], capture_output=True,
                           text=True)
    commit = head.stdout.strip() or 'unknown'
    return commit + (' with local changes' if dirty.stdout.strip() else '')
