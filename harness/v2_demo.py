#!/usr/bin/env python3
"""v2_demo.py: add a revision the way a reviewer would, and show it is v1.

The fixture harness/tests/fixtures/v2 is v2 of the 2010 patch as v3's
changelog describes it ("dropped redundant S_ISLNK check; moved sysctl
extern into security.h"): the 6.1 port of v1 without the S_ISLNK() test
(the port has no extern to move). Dropping a redundant test must change
nothing observable, so this script

  1. builds v1 (harness/flavors.ini) and v2 (harness/tests/fixtures/
     flavors-v2.ini) with the real harness, v2 from a temporary --top that
     holds copies of v1/, v3/ and the fixture v2/;
  2. runs the shared suite in both, in a separate build directory
     (default build/v2-demo) whose kernels and guest programs are links
     to build/'s, so build/results/ never sees a v2.json or a second v1;
  3. asserts with the differ's loader and model (harness/stickydiff) that
     every v2 case equals the v1 case with the same (setting, id) in ret,
     errno and atime_changed, that the sysctl, log, settings, groups and
     error records match, and that v1's rule model explains every v2 case.

The last line is "N passed, N failed"; the exit status is 1 when a check
failed, 2 when a step before the comparison failed.

  python3 harness/v2_demo.py                  build, run, compare
  python3 harness/v2_demo.py --no-build       use the kernels already built
  python3 harness/v2_demo.py --compare A B    only compare two result files
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HARNESS = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HARNESS)
sys.path.insert(0, HARNESS)

from lock import BuildLock  # noqa: E402
from stickydiff import check as sd_check  # noqa: E402
from stickydiff import load as sd_load  # noqa: E402

FIXTURES = os.path.join(HARNESS, 'tests', 'fixtures')
FLAVORS_V2 = os.path.join(FIXTURES, 'flavors-v2.ini')
STICKY = os.path.join(HARNESS, 'sticky.py')
REVISIONS = ('v1', 'v3')         # copied from the top into the temporary top
CASE_FIELDS = ('ret', 'errno', 'atime_changed')
RECORDS = ('sysctl', 'settings', 'groups', 'errors', 'status', 'extra')
# printk_ratelimited() lets 1..10 of the burst's messages through depending
# on timing, so these fields of a burst record are compared by range.
BURST_COUNTS = ('messages', 'received', 'total_messages')
RATELIMIT_BURST = 10
SHOWN = 25


def step(title):
    print(f'=== {title}', flush=True)


def run(cmd):
    print('+ ' + ' '.join(cmd), flush=True)
    return subprocess.run(cmd, cwd=TOP).returncode


def make_top(tmp):
    """A --top holding v1/, v3/ and the fixture v2/."""
    for rev in REVISIONS:
        shutil.copytree(os.path.join(TOP, rev), os.path.join(tmp, rev))
    shutil.copytree(os.path.join(FIXTURES, 'v2'), os.path.join(tmp, 'v2'))
    return tmp


def build(build_dir, top):
    rc = run([sys.executable, STICKY, '--build-dir', build_dir, 'build',
              'v1'])
    if rc == 0:
        rc = run([sys.executable, STICKY, '--build-dir', build_dir,
                  '--top', top, '--flavors-file', FLAVORS_V2, 'build', 'v2'])
    return rc


def demo_dir(build_dir, out):
    """out/ with links to build/'s kernels and guest programs, no results."""
    os.makedirs(out, exist_ok=True)
    for name in ('v1', 'v2'):
        os.makedirs(os.path.join(out, name), exist_ok=True)
        _link(os.path.join(build_dir, name, 'bzImage'),
              os.path.join(out, name, 'bzImage'))
        stale = os.path.join(out, 'results', name + '.json')
        if os.path.exists(stale):
            os.unlink(stale)
    _link(os.path.join(build_dir, 'guest'), os.path.join(out, 'guest'))


def _link(target, path):
    if os.path.islink(path) or os.path.isfile(path):
        os.unlink(path)
    os.symlink(os.path.abspath(target), path)


def suites(build_dir, out):
    """Runs the suite in v1 and v2 with out/ as build dir, holding
    build_dir's lock so that no build replaces a kernel meanwhile."""
    with BuildLock(build_dir):
        for extra in ([], ['--flavors-file', FLAVORS_V2]):
            name = 'v2' if extra else 'v1'
            # v2 claims to be v1: the guest judges it by v1's rule model.
            expect = ['--expect-flavor', 'v1'] if extra else []
            run([sys.executable, STICKY, '--build-dir', out, *extra,
                 'suite', name, *expect])


def load_pair(path_v1, path_v2):
    """Both files through the differ's loader. stickydiff knows the five
    project flavors only; v2 is validated under v1's name, which is what
    it claims to be."""
    v1 = sd_load.load(path_v1, 'v1')
    try:
        with open(path_v2, encoding='utf-8') as stream:
            data = json.load(stream)
    except (OSError, json.JSONDecodeError) as err:
        raise sd_load.LoadError('%s: %s' % (path_v2, err)) from None
    if data.get('flavor') != 'v2':
        raise sd_load.LoadError('%s: file says flavor %r, expected v2'
                                % (path_v2, data.get('flavor')))
    v2 = sd_load.parse(path_v2, json.dumps(dict(data, flavor='v1')))
    return v1, v2


def _same_log(a, b):
    """Log records equal, the burst's counts within printk_ratelimited's
    range and its message texts the same."""
    if a.get('kind') != 'burst' or b.get('kind') != 'burst':
        return a == b
    rest = [k for k in set(a) | set(b) if k not in BURST_COUNTS]
    if any(a.get(k) != b.get(k) for k in rest):
        return False
    if set(a.get('messages') or []) != set(b.get('messages') or []):
        return False
    return all(1 <= (r.get('received') or 0) <= RATELIMIT_BURST
               for r in (a, b))


def compare(v1, v2):
    """[(kind, ok, text)]: every case and record of two ResultFiles."""
    out = []
    for key in sorted(set(v1.cases) | set(v2.cases)):
        a, b = v1.cases.get(key), v2.cases.get(key)
        where = '%s %s' % key
        if a is None or b is None:
            out.append(('case', False, '%s: only in %s' % (
                where, 'v2' if a is None else 'v1')))
            continue
        diff = ['%s v1 %r v2 %r' % (f, a.get(f), b.get(f))
                for f in CASE_FIELDS if a.get(f) != b.get(f)]
        out.append(('case', not diff,
                    '%s: %s' % (where, '; '.join(diff) or 'same')))
    logs_a, logs_b = v1.data.get('log') or [], v2.data.get('log') or []
    if len(logs_a) != len(logs_b):
        out.append(('record', False, 'log: %d records in v1, %d in v2'
                    % (len(logs_a), len(logs_b))))
    for a, b in zip(logs_a, logs_b):
        where = 'log %s %s' % (a.get('kind'), a.get('setting'))
        out.append(('record', _same_log(a, b), '%s: %s' % (
            where, 'same' if _same_log(a, b) else
            'v1 %s / v2 %s' % (json.dumps(a)[:200], json.dumps(b)[:200]))))
    for name in RECORDS:
        a, b = v1.data.get(name), v2.data.get(name)
        out.append(('record', a == b, '%s records: %s' % (
            name, 'same' if a == b else
            'v1 %s / v2 %s' % (json.dumps(a)[:200], json.dumps(b)[:200]))))
    knobs_a = v1.data['facts'].get('knobs')
    knobs_b = v2.data['facts'].get('knobs')
    out.append(('record', knobs_a == knobs_b, 'boot knobs: %s' % (
        'same' if knobs_a == knobs_b else
        'v1 %s / v2 %s' % (knobs_a, knobs_b))))
    model = sd_check.check_file(v2)
    out.append(('model', model.ok,
                "v1's rule model explains %d of %d v2 cases%s"
                % (model.explained, model.cases,
                   '' if model.ok else ' (%d unexplained, %d other problems)'
                   % (len(model.unexplained), len(model.interface)
                      + len(model.settings) + len(model.suite)))))
    return out


def report(checks):
    """Prints the verdicts; `checks` is [(kind, ok, text)]."""
    cases = [ok for kind, ok, _ in checks if kind == 'case']
    failed = [text for _, ok, text in checks if not ok]
    print('v2 vs v1: %d cases compared, %d equal' % (len(cases), sum(cases)))
    for kind, ok, text in checks:
        if ok and kind != 'case':
            print('  ok ' + text)
    for text in failed[:SHOWN]:
        print('  not ok ' + text)
    if len(failed) > SHOWN:
        print('  ... and %d more' % (len(failed) - SHOWN))
    print('%d passed, %d failed' % (len(checks) - len(failed), len(failed)),
          flush=True)
    return 1 if failed else 0


def tree_check(build_dir):
    """The v2 tree must really lack the test (the patch applied)."""
    path = os.path.join(build_dir, 'v2', 'src', 'security', 'commoncap.c')
    try:
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
    except OSError as err:
        return 'tree', False, 'v2 tree: %s' % err
    body = text.split('int cap_inode_follow_link(', 1)[-1].split('\n}\n')[0]
    ok = 'cap_inode_follow_link(' in text and 'S_ISLNK' not in body
    return 'tree', ok, 'v2 tree: cap_inode_follow_link() %s S_ISLNK' % (
        'without' if ok else 'still with (or missing)')


def main(argv=None):
    p = argparse.ArgumentParser(prog='v2_demo.py', description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument('--build-dir', default=os.path.join(TOP, 'build'))
    p.add_argument('--out', default=None,
                   help='build dir of the two suite runs (default '
                   'BUILD_DIR/v2-demo); results in OUT/results')
    p.add_argument('--no-build', action='store_true',
                   help='skip the kernel builds')
    p.add_argument('--compare', nargs=2, metavar=('V1_JSON', 'V2_JSON'),
                   help='only compare two result files')
    args = p.parse_args(argv)
    if args.compare:
        try:
            return report(compare(*load_pair(*args.compare)))
        except sd_load.LoadError as err:
            print('error: %s' % err, file=sys.stderr)
            return 2
    build_dir = os.path.abspath(args.build_dir)
    out = os.path.abspath(args.out or os.path.join(build_dir, 'v2-demo'))
    if not args.no_build:
        step('build v1 and v2')
        with tempfile.TemporaryDirectory(prefix='v2-demo-top.') as tmp:
            if build(build_dir, make_top(tmp)):
                print('error: kernel build failed', file=sys.stderr)
                return 2
    step('guest programs')
    if run(['make', '--no-print-directory', '-C', 'common']):
        print('error: building common/ failed', file=sys.stderr)
        return 2
    step(f'suite in v1 and v2 (results in {out}/results)')
    demo_dir(build_dir, out)
    suites(build_dir, out)
    step('compare v2 with v1')
    try:
        v1, v2 = load_pair(os.path.join(out, 'results', 'v1.json'),
                           os.path.join(out, 'results', 'v2.json'))
    except sd_load.LoadError as err:
        print('error: %s' % err, file=sys.stderr)
        return 2
    return report([tree_check(build_dir)] + compare(v1, v2))


if __name__ == '__main__':
    sys.exit(main())
