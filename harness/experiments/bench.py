"""make bench, kernel side: build and boot figures against the targets.

Targets (issue: kernels): cold build of all flavors <= 12 min, no-op
rebuild <= 30 s, rebuild after touching one patch of a revision <= 90 s
(each revision of the default flavors), boot to verdict <= 3 s under TCG. Each figure is reported with its ratio to the
target, all measured in one run.
"""

import json
import os
import shutil
import tempfile
import time

import flavors as flv
from kernel import kernels
from stages import Stages, log
from suite import results

TARGETS = {'cold build, all flavors': 720.0, 'no-op rebuild': 30.0,
           'rebuild after touching one patch': 90.0,
           'boot to verdict': 3.0}


def _timed_build(chosen, build, top):
    t0 = time.monotonic()
    stages = Stages()
    for f in chosen:
        kernels.build_flavor(f, build, top, stages)
    return time.monotonic() - t0


def _touched_top(top, series):
    """A copy of the revision directories with the series' last patch
    edited (its commit message gains a line), so git am rewrites the
    patched files."""
    tmp = tempfile.mkdtemp(prefix='sticky-bench-')
    for entry in os.listdir(top):
        if os.path.isfile(os.path.join(top, entry, 'series')):
            shutil.copytree(os.path.join(top, entry),
                            os.path.join(tmp, entry))
    patch = flv.series_patches(series, tmp)[-1]
    with open(patch, encoding='utf-8') as f:
        text = f.read()
    text = text.replace('\n---\n', '\nBench: touched.\n---\n', 1)
    with open(patch, 'w', encoding='utf-8') as f:
        f.write(text)
    return tmp


def cold(build, top):
    """All flavors from nothing: fresh tree, empty ccache."""
    cdir = os.path.join(build, 'bench-cold')
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    old = os.environ.get('CCACHE_DIR')
    os.environ['CCACHE_DIR'] = os.path.join(cdir, 'ccache')
    try:
        return _timed_build(flv.pick([]), cdir, top)
    finally:
        if old is None:
            del os.environ['CCACHE_DIR']
        else:
            os.environ['CCACHE_DIR'] = old
        shutil.rmtree(cdir, ignore_errors=True)


def run(args, boot):
    """boot(flavor) -> qemu.Outcome. Returns the figures and writes them."""
    build, top = args.build_dir, args.top
    chosen = flv.pick([])
    figures = {}
    _timed_build(chosen, build, top)            # make sure all are built
    figures['no-op rebuild'] = _timed_build(chosen, build, top)
    for series in dict.fromkeys(f.series for f in chosen if f.series):
        users = [f for f in chosen if f.series == series]
        touched = _touched_top(top, series)
        try:
            figures[f'rebuild after touching one patch of {series}'] = \
                _timed_build(users, build, touched)
        finally:
            shutil.rmtree(touched, ignore_errors=True)
            _timed_build(users, build, top)     # back to the real series
    boots = {}
    boot(chosen[0])             # warm-up: QEMU and the page cache
    for f in chosen:
        out = boot(f)
        boots[f.name] = round(out.seconds, 2)
        if out.verdict != 'passed':
            log(f'{f.name}: boot {out.line()}')
    figures['boot to verdict'] = max(boots.values())
    if args.cold:
        figures['cold build, all flavors'] = cold(build, top)
    rows = []
    touch = 'rebuild after touching one patch'
    for name, got in list(figures.items()) + [
            (n, None) for n in TARGETS if n not in figures and n != touch]:
        target = TARGETS.get(name) or TARGETS[touch]
        if got is None:
            rows.append(f'{name:40} {"not run (--cold)":>14} '
                        f'target {target:>6.0f}s')
            continue
        rows.append(f'{name:40} {got:>13.1f}s target {target:>6.0f}s '
                    f'ratio {got / target:.2f}')
    rows.append('boot to verdict per flavor: ' +
                ', '.join(f'{k} {v:.2f}s' for k, v in boots.items()))
    results.write_json({'figures': {k: round(v, 2) for k, v in
                                    figures.items()},
                        'boots': boots, 'targets': TARGETS},
                       os.path.join(build, 'results', 'bench-kernels.json'))
    return rows


def load(build):
    path = os.path.join(build, 'results', 'bench-kernels.json')
    if not os.path.isfile(path):
        return None
    with open(path, encoding='utf-8') as f:
        return json.load(f)
