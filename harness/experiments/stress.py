"""sticky.py stress and static-check: the reliability checks (issue 7).

stress boots each flavor with -smp 2 and runs common/programs/stress.c in it:
followers open and stat through trailing and intermediate links in a sticky
directory as uids 0, 1000 and 1001 while other processes rename the links
and the directory, chmod it between 1777 and 0755, lchown the links and
flip the flavor's knob and fs.protected_symlinks. A flavor passes when the
console holds no splat of any kind (qemu.SPLATS), the boot ends within its
timeout, and the guest saw only the results stress.c documents as
legitimate. Its stress record goes to build/results/<flavor>.stress.json.

Follows through the guarded directory (root's 1777 B/p, whose links A
renames into A's own directory and back) that succeed while a check
covering them stayed on are bypasses: the check judged the link's
d_parent, not the directory the walk found it in. They fail a flavor
whose rule judges the walk's directory (or that has no rule: mainline's
check judges it); a rule that judges d_parent (revision.ini `directory =
parent`) predicts them, so they are counted there, not failed. With
--window-ms (a flavor with harness/fixtures/race-window) the follows
through B/p are held in the window, and a `parent` rule must then show a
bypass: the proof that the oracle sees one.
"""

import json
import os

import flavors as flv
from boot import run as boot_run
from boot.lock import BuildLock
from experiments import racecases
from experiments import sanitizers
from kernel import staticcheck
from stages import HarnessError, log
from suite import results

LOCKDEP = 'CONFIG_PROVE_LOCKING=y'
KCSAN = 'CONFIG_KCSAN=y'
PLANTED = '/proc/sys/fs/sticky-planted-defect'
# What --plant runs before the stress program: one write of the defect's
# number, or (3, the data race) two shells writing it at once.
PLANT = {1: f'echo 1 > {PLANTED}', 2: f'echo 2 > {PLANTED}',
         3: ' '.join(['for w in 1 2; do (n=0; while [ $n -lt 300 ]; do',
                      f'echo 3 > {PLANTED}; n=$((n+1)); done) & done;',
                      'wait'])}


def check_record(recs, directory='walk', window=False):
    """Returns (the stress record, a list of problems). `directory` is
    the flavor's rule's (racecases.Rule.directory; '' for none): a
    `parent` rule predicts bypasses, and with the window on must show
    one."""
    found = [r for r in recs if r.get('type') == 'stress']
    if len(found) != 1:
        return None, [f'{len(found)} stress records in the stream, '
                      f'expected 1']
    rec = found[0]
    bad = []
    for key in ('follow_ops', 'ops_per_s', 'results', 'bad', 'stuck'):
        if key not in rec:
            bad.append(f'the stress record has no {key}')
    if bad:
        return rec, bad
    if rec['stuck']:
        bad.append(f'{rec["stuck"]} worker(s) did not stop within 30 s')
    if rec.get('failed_workers'):
        bad.append(f'{rec["failed_workers"]} worker(s) failed (see the '
                   f'console)')
    if rec['bad']:
        bad.append(f'{rec["bad"]} illegitimate result(s), e.g. '
                   + '; '.join(rec.get('bad_examples', [])[:4]))
    if not rec['follow_ops']:
        bad.append('the followers did not follow a single link')
    bad += guarded_problems(rec.get('guarded'), directory, window)
    idle = [k for k, n in rec.get('mutator_ops', {}).items() if not n]
    if idle:
        bad.append(f'mutator(s) that made no call: {", ".join(idle)}')
    return rec, bad


def guarded_problems(guarded, directory, window):
    """The oracle of the follows through B/p."""
    if not isinstance(guarded, dict):
        return ['the stress record has no guarded follows']
    if not guarded.get('judged'):
        return ['no follow through B/p was judged under a check that '
                'stayed on: the oracle saw nothing']
    n, judged = guarded.get('bypasses', 0), guarded['judged']
    examples = '; '.join(guarded.get('examples', [])[:3])
    if n and directory != 'parent':
        return [f'{n} bypass(es) in {judged} guarded follows, where the '
                f'checks judge the walk\'s directory: {examples}']
    if window and directory == 'parent' and not n:
        return [f'0 bypasses in {judged} guarded follows held in the '
                f'window, where the rule judges d_parent: the oracle '
                f'missed them']
    return []


def job(args, flavor):
    """The guest's command: the flavor's own knob passed as data."""
    cmd = ['/bin/stress', '-t', f'{args.seconds:g}', '-f',
           str(args.followers)]
    if flavor.rule and flavor.compiled:
        cmd += ['-k', f'{flavor.rule.knob_path}={flavor.rule.protect}:'
                f'{flavor.rule.links}']
    if args.window_ms:
        cmd += ['-w', str(args.window_ms)]
    if args.plant:
        return ['/bin/sh', '-c', f'{PLANT[args.plant]}; exec '
                + ' '.join(cmd)]
    return cmd


def kcsan_reference(path):
    """The KCSAN flavor with no series (mainline alone), or None."""
    refs = [f.name for f in flv.load(path).values()
            if KCSAN in f.config and not f.series]
    return refs[0] if refs else None


def known_races(flavor, outdir, path, found):
    """(the reference's data races, a problem or None) for a KCSAN
    flavor; (None, None) for any other. The reference knows its own."""
    if KCSAN not in flavor.config:
        return None, None
    ref = kcsan_reference(path)
    if ref == flavor.name:
        return (previous_races(outdir, ref) or set()) | set(
            sanitizers.kcsan_races(found)), None
    races = previous_races(outdir, ref) if ref else None
    if races is None:
        return set(), (f'no KCSAN reference under this load: run `sticky.py '
                       f'stress {ref or "<a KCSAN flavor with no series>"}`'
                       f' first')
    return races, None


def previous_races(outdir, name):
    """The data races a flavor's earlier stress runs recorded (None if it
    has no record): the reference's accumulate, run after run."""
    try:
        with open(os.path.join(outdir, f'{name}.stress.json'),
                  encoding='utf-8') as f:
            return set(json.load(f).get('kcsan_races', []))
    except (OSError, ValueError):
        return None


def stress_one(args, flavor, outdir):
    """Boots one flavor; returns True if it passed."""
    job_cmd = job(args, flavor)
    directory = racecases.rule_of(flavor, args.directory).directory
    timeout = args.timeout or args.seconds + 150
    out = boot_run.boot(args, flavor, job_cmd, 'stress', timeout,
                        echo=print if args.console else None, smp=args.smp)
    boot_run.report_outcome(flavor.name, out)
    with open(out.console, encoding='utf-8', errors='replace') as f:
        found = sanitizers.reports(f.read())
    path = args.flavors_file or flv.INI
    known, missing = known_races(flavor, outdir, path, found)
    touched = sanitizers.touched_functions(flv.flavor_patches(flavor))
    splats, notes = sanitizers.problems(found, known, touched)
    splats += [missing] if missing else []
    for note in notes:
        log(f'  {flavor.name}: {note}')
    recs, why = results.boot_records(out)
    if recs is None and out.verdict == 'splat':
        # a report is judged above; the stream is still the run's
        try:
            recs, why = results.parse_stream(out.results), None
        except HarnessError as e:
            why = str(e)
    if recs is None:
        log(f'not ok {flavor.name}: ' + '; '.join(splats + [why]))
        return False
    rec, bad = check_record(recs, directory, bool(args.window_ms))
    bad = splats + bad
    if out.verdict not in ('passed', 'splat') and not bad:
        bad.append(f'stress exited with status {out.status}')
    races = sanitizers.kcsan_races(found)
    if rec is not None:
        obj = {'flavor': flavor.name, 'uname': recs[0].get('uname'),
               'smp': args.smp, 'ok': not bad, 'problems': bad,
               'directory': directory, 'job': job_cmd,
               'seconds_boot': round(out.seconds, 1), 'stress': rec,
               'kcsan_notes': notes,
               # the reference's known races already hold this run's
               'kcsan_races': sorted(
                   known if flavor.name == kcsan_reference(path) else
                   races)}
        path = os.path.join(outdir, f'{flavor.name}.stress.json')
        results.write_json(obj, path)
    if bad:
        log(f'not ok {flavor.name}: ' + '; '.join(bad))
        return False
    res = rec['results']
    log(f'ok {flavor.name}: {rec["follow_ops_per_s"]:.0f} follows/s, '
        f'{rec["ops_per_s"]:.0f} ops/s in all over {rec["seconds"]:.0f}s '
        f'(ok {res["ok"]}, EACCES {res["EACCES"]}, ENOENT '
        f'{res["ENOENT"]}; knobs flipped: {", ".join(rec["knobs"])}; '
        f'guarded follows judged {rec["guarded"]["judged"]}, bypasses '
        f'{rec["guarded"]["bypasses"]}'
        f'{" (predicted: the rule judges d_parent)" if directory == "parent" else ""})'
        + (f'; KCSAN: {len(races)} data race(s), {len(races) - len(notes)}'
           f' shown by the reference too, {len(notes)} between functions '
           f'no patch touches' if KCSAN in flavor.config else ''))
    return True


def cmd_stress(args):
    path = args.flavors_file or flv.INI
    chosen = flv.pick(args.flavors or [
        f.name for f in flv.load(path).values() if LOCKDEP in f.config
        and not f.also], path)
    ref = kcsan_reference(path)
    chosen.sort(key=lambda f: f.name != ref)   # the reference first
    outdir = os.path.join(args.build_dir, 'results')
    with BuildLock(args.build_dir, wait=not args.no_wait):
        failed = boot_run.failures(chosen,
                                   lambda f: stress_one(args, f, outdir))
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def add_stress_commands(sub):
    p = sub.add_parser('stress', help='concurrent follow/rename/chmod/'
                       'chown/knob stress, -smp 2 (default: the flavors '
                       'built with ' + LOCKDEP + ')')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--seconds', type=float, default=20.0,
                   help='how long the stress runs in the guest (default 20)')
    p.add_argument('--followers', type=int, default=1,
                   help='follower processes per uid (default 1, at most 8)')
    p.add_argument('--smp', type=int, default=2)
    p.add_argument('--timeout', type=float, default=None,
                   help='hard limit per boot (default: seconds + 150)')
    p.add_argument('--kvm', action='store_true',
                   help='use KVM (after a probe boot); TCG otherwise')
    p.add_argument('--console', action='store_true',
                   help='echo the whole guest console')
    p.add_argument('--window-ms', type=int, default=0,
                   help='hold the follows through the guarded directory '
                   'in the race window this long (flavors with '
                   'harness/fixtures/race-window)')
    p.add_argument('--plant', type=int, choices=sorted(PLANT), default=0,
                   help='first run a defect planted for the sanitizers '
                   '(flavors with harness/fixtures/sanitizer-planted): 1 '
                   'KASAN, 2 UBSAN, 3 KCSAN; the run must fail on it')
    p.add_argument('--directory', choices=('walk', 'parent'), default=None,
                   help="judge bypasses as if the flavor's rule judged "
                   'this directory (to see the oracle fail)')
    p.set_defaults(func=cmd_stress)
    staticcheck.add_commands(sub)
