"""sticky.py repro: a suite case as a script a reader runs as root
(harness/model/repro.py, docs/repro.md), and the check that such scripts
reproduce what the suite recorded.

  sticky.py repro CASEID [--setting LABEL] [--flavor F]
      prints the script of CASEID under LABEL, with the outcome recorded
      in F's results (build/results/F.json, else results/expected/F.json)
      and what every flavor with results returned.
  sticky.py repro --check [FLAVOR...] [--flip CASEID]
      boots each flavor (default v3 v1) once with the scripts of
      repro.check_selection()'s cases, runs each with busybox and
      util-linux's setpriv (copied in from the host, with its libraries)
      and compares each printed outcome with the flavor's results.
      --flip inverts the recorded result of one case: that case must then
      be reported as not reproduced.
"""

import json
import os
import re
import shutil
import subprocess
import time

import flavors as flv
from boot import guest
from boot import run as boot_run
from boot.lock import BuildLock
from model import cases as model_cases
from model import repro
from model.flavors import DEFAULT_FLAVORS, FLAVOR_ORDER
from stages import HarnessError, log

CHECK_FLAVORS = ('v3', 'v1')
GUEST_DIR = '/etc/sticky/repro'
DRIVER = GUEST_DIR + '/run.sh'
SETPRIV = '/usr/local/bin/setpriv'      # util-linux's, by its path
# The job: busybox's applets as commands, util-linux's setpriv by its
# path (busybox sh runs its own applet for a bare "setpriv"), the console
# quiet, each script's output prefixed.
DRIVER_TEXT = r'''#!/bin/sh
/bin/busybox mkdir -p /usr/bin /usr/sbin
/bin/busybox --install -s
echo 1 >/proc/sys/kernel/printk
export PATH=/bin:/sbin:/usr/bin:/usr/sbin SETPRIV=%s
$SETPRIV --help 2>&1 | grep -q -- --reuid || echo "repro: no util-linux setpriv"
for f in %s/case-*.sh; do
	n=${f##*/case-}
	n=${n%%.sh}
	sh "$f" >/tmp/repro.out 2>&1
	st=$?
	sed "s/^/repro $n: /" /tmp/repro.out
	echo "repro $n: exit $st"
done
''' % (SETPRIV, GUEST_DIR)
LINE = re.compile(r'^repro (\d+): (.*)$')


def result_file(build_dir, flavor):
    """build/results/<flavor>.json when present, else the committed one."""
    for path in (os.path.join(build_dir, 'results', f'{flavor}.json'),
                 os.path.join(flv.TOP, 'results', 'expected',
                              f'{flavor}.json')):
        if os.path.isfile(path):
            return path
    return None


def load(build_dir, flavor):
    """(path, {id: {setting: outcome}}, {setting: knobs}) of a flavor's
    results, compact (results/expected) or whole (build/results)."""
    path = result_file(build_dir, flavor)
    if path is None:
        raise HarnessError(f'no results of {flavor}: neither build/results/'
                           f'{flavor}.json nor results/expected/{flavor}.'
                           f'json; run `sticky.py suite {flavor}`')
    with open(path, encoding='utf-8') as f:
        data = json.load(f)
    cases = data.get('cases')
    if isinstance(cases, dict):
        outcomes = cases
    else:
        outcomes = {}
        for case in cases or ():
            outcomes.setdefault(case['id'], {})[case['setting']] = \
                repro.outcome_of(case)
    return path, outcomes, data.get('settings') or {}


def label_in(label, settings):
    """label, or base's ps<P>-own- for a ps<P>-own<O> it lacks."""
    if label in settings:
        return label
    alt = re.sub(r'own[01]$', 'own-', label)
    return alt if alt in settings else None


def case_record(cid, label, outcomes, knobs):
    """A case record as script() takes it, the setting's knobs included."""
    case = model_cases.expand_case(cid, label, outcomes[cid][label])
    if knobs.get(label):
        case = dict(case, knobs=knobs[label])
    return case


def every_outcome(build_dir, cid, label):
    """{flavor (and its label when it differs): outcome} of every flavor
    with results."""
    out = {}
    for name in FLAVOR_ORDER:
        if result_file(build_dir, name) is None:
            continue
        _, outcomes, settings = load(build_dir, name)
        own = label_in(label, settings or outcomes.get(cid, {}))
        if own and cid in outcomes and own in outcomes[cid]:
            key = name if own == label else f'{name} ({own})'
            out[key] = outcomes[cid][own]
    return out


def unknown_id(cid, why):
    return HarnessError(
        f'{cid!r} is not a case id of the suite ({why}); list them with '
        f'`make -C common test` then `build/host/sticky-unit --list`, or '
        f'python3 -c "import sys; sys.path.insert(0, \'harness\'); from '
        f'model.cases import case_ids; print(*case_ids(), sep=chr(10))"')


def cmd_print(args):
    if len(args.words) != 1:
        raise HarnessError('name one case id: sticky.py repro CASEID '
                           '[--setting LABEL] [--flavor F]')
    cid = args.words[0]
    try:
        model_cases.split_id(cid)
    except model_cases.CaseIdError as e:
        raise unknown_id(cid, str(e)) from None
    if cid not in set(model_cases.case_ids()):
        raise unknown_id(cid, 'its axes exist, but the matrix has no such '
                         'combination')
    flavor = args.flavor or CHECK_FLAVORS[0]
    path, outcomes, knobs = load(args.build_dir, flavor)
    labels = list(outcomes.get(cid, {}))
    if not labels:
        raise HarnessError(f'{path} has no case {cid}')
    label = args.setting or next(
        (s for s in ('ps0-own1', 'ps0-own-') if s in labels), labels[0])
    if label not in labels:
        raise HarnessError(f'{flavor} has no setting {label!r} (its '
                           f'settings: {", ".join(labels)})')
    case = case_record(cid, label, outcomes, knobs)
    print(repro.script(case, every_outcome(args.build_dir, cid, label)),
          end='')
    return 0


def setpriv_files():
    """util-linux's setpriv and the libraries it loads, {guest: bytes}."""
    path = shutil.which('setpriv')
    if not path:
        raise HarnessError('setpriv not found: install util-linux')
    res = subprocess.run([path, '--help'], capture_output=True, text=True)
    if '--reuid' not in res.stdout:
        raise HarnessError(f'{path} has no --reuid: the check needs '
                           f"util-linux's setpriv")
    res = subprocess.run(['ldd', path], capture_output=True, text=True)
    files = {SETPRIV: _read(path)}
    for line in res.stdout.splitlines():
        m = re.search(r'(/\S+) \(0x', line)
        if m:
            lib = m.group(1)
            files[lib] = _read(lib)
    return files


def _read(path):
    with open(path, 'rb') as f:
        return f.read()


def selection(outcomes, flip):
    chosen = repro.check_selection(outcomes)
    if flip:
        if flip not in outcomes:
            raise unknown_id(flip, 'not in the results')
        if flip not in [c for c, _ in chosen]:
            labels = [s for s in outcomes[flip] if s != 'boot']
            chosen.append((flip, labels[0]))
    return chosen


def flipped(text):
    """The outcome with its result inverted: ok <-> EACCES."""
    res, rest = text.split(' ', 1)
    return ('EACCES' if res == 'ok' else 'ok') + ' ' + rest


def check_one(args, spec, extra):
    path, outcomes, knobs = load(args.build_dir, spec.name)
    chosen = selection(outcomes, args.flip)
    files = dict(extra)
    files[DRIVER] = DRIVER_TEXT.encode()
    for n, (cid, label) in enumerate(chosen):
        case = case_record(cid, label, outcomes, knobs)
        files[f'{GUEST_DIR}/case-{n:03d}.sh'] = repro.script(case).encode()
    d = os.path.join(args.build_dir, spec.name)
    os.makedirs(d, exist_ok=True)
    initrd = guest.initrd_with(args.build_dir, files,
                               os.path.join(d, 'initramfs-repro.cpio.gz'))
    out = boot_run.boot(args, spec, ['/bin/sh', DRIVER], 'repro',
                        args.timeout, initrd=initrd,
                        echo=print if args.console else None)
    boot_run.report_outcome(spec.name, out)
    if out.verdict != 'passed':
        log(f'not ok {spec.name}: the guest did not run the scripts')
        return False
    printed = {}
    with open(out.console, encoding='utf-8', errors='replace') as f:
        text = f.read().replace('\r', '')
    if 'repro: no util-linux setpriv' in text:
        log(f'not ok {spec.name}: the guest has no util-linux setpriv')
        return False
    for line in text.splitlines():
        m = LINE.match(line)
        if m and m.group(2).startswith('outcome: '):
            printed[int(m.group(1))] = m.group(2)[len('outcome: '):]
    bad = 0
    for n, (cid, label) in enumerate(chosen):
        want = outcomes[cid][label]
        why = ''
        if cid == args.flip:
            want, why = flipped(want), ' (inverted by --flip)'
        got = printed.get(n)
        if got != want:
            bad += 1
            log(f'  not reproduced: {cid} ({label}) in {spec.name}: the '
                f'script printed {got or "no outcome"}, the results say '
                f'{want}{why} (script {n:03d}: {out.console})')
    log(f'{"ok" if not bad else "not ok"} {spec.name}: {len(chosen) - bad} '
        f'of {len(chosen)} scripts reproduced their case ({path}), '
        f'{out.seconds:.1f}s')
    return not bad


def cmd_check(args):
    names = args.words or list(CHECK_FLAVORS)
    for name in names:
        if name not in DEFAULT_FLAVORS and name not in FLAVOR_ORDER:
            raise HarnessError(f'{name} is not a modelled flavor')
    chosen = flv.pick(names, args.flavors_file or flv.INI)
    t0 = time.monotonic()
    with BuildLock(args.build_dir, wait=not args.no_wait):
        guest.build_program(args.build_dir, 'sticky-suite',
                            'common/suite/single.c')
        extra = setpriv_files()
        failed = boot_run.failures(chosen,
                                   lambda f: check_one(args, f, extra))
    log(f'repro: {len(chosen)} flavor(s) in {time.monotonic() - t0:.1f}s')
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def cmd_repro(args):
    if args.check:
        return cmd_check(args)
    if args.flip:
        raise HarnessError('--flip goes with --check')
    return cmd_print(args)


def add(sub):
    p = sub.add_parser('repro', help='a suite case as a script to run as '
                       'root (docs/repro.md); --check runs such scripts in '
                       'guests and compares them with the results')
    p.add_argument('words', nargs='*', metavar='CASEID|FLAVOR',
                   help='the case id; with --check, the flavors (default: '
                   + ' '.join(CHECK_FLAVORS) + ')')
    p.add_argument('--setting', help='the setting label (default ps0-own1, '
                   'or ps0-own- on a flavor without a knob)')
    p.add_argument('--flavor', help='whose results hold the case (default '
                   + CHECK_FLAVORS[0] + ')')
    p.add_argument('--check', action='store_true',
                   help='run the scripts of a selection of cases in each '
                   'flavor and compare them with its results')
    p.add_argument('--flip', metavar='CASEID',
                   help='with --check: invert the recorded result of this '
                   'case, which must then be reported as not reproduced')
    boot_run.add_boot_opts(p, 120)
    p.set_defaults(func=cmd_repro)
