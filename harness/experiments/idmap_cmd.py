"""sticky.py idmap: sticky symlinks through an idmapped mount (issue 11).

For each flavor: the host predicts every case from the flavor's rule
(idmapcases.py), makes a 4 MiB ext4 image (mkfs.ext4, no root needed), and
boots the flavor (TCG, hard timeout) with an initramfs of its own: the
usual one plus /etc/idmap.plan and /idmap.img. The guest (common/programs/idmap.c)
mounts the image plain and idmapped, runs the plan and prints KTAP; the
host re-judges its records (idmapjudge.py) and writes
build/results/<flavor>.idmap.json, then the report's section
build/results/shapes.md from every such file (`make bless` keeps it as
results/shapes.md).
"""

import datetime
import json
import os
import shutil
import subprocess
import time

import flavors as flv
from boot import guest
from boot import qemu
from boot import run as boot_run
from boot.lock import BuildLock
from experiments import idmapcases as ic
from experiments import idmapjudge
from experiments import shapes
from stages import HarnessError, log
from suite import results

PLAN = '/etc/idmap.plan'
IMAGE = '/idmap.img'
UUID = '6c0f3b4e-1d2a-4b8e-9c71-2f0e5a1d7b33'
MKFS_PATH = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin',
                             '/sbin'])


def make_image(path, size='4M', fixtures=()):
    """A small ext4 image, identical on every run (fixed UUID, hash seed
    and time), holding the fixtures the guest cannot lay out itself
    (ic.Fixture.premade: an owner that is INVALID_UID)."""
    mkfs = shutil.which('mkfs.ext4', path=MKFS_PATH)
    if not mkfs:
        raise HarnessError('mkfs.ext4 not found: install it with `apt-get '
                           'install e2fsprogs` (or `make deps`)')
    if os.path.exists(path):
        os.unlink(path)
    env = dict(os.environ, E2FSPROGS_FAKE_TIME='1')
    res = subprocess.run([mkfs, '-q', '-F', '-O', '^has_journal', '-b',
                          '1024', '-L', 'idmap', '-U', UUID, '-E',
                          f'root_owner=0:0,hash_seed={UUID}', path, size],
                         capture_output=True, text=True, env=env)
    if res.returncode:
        raise HarnessError(f'mkfs.ext4 {path} failed: {res.stderr.strip()}')
    cmds = debugfs_commands([f for f in fixtures if f.premade])
    if cmds:
        debugfs = shutil.which('debugfs', path=MKFS_PATH)
        if not debugfs:
            raise HarnessError('debugfs not found: install it with `apt-get '
                               'install e2fsprogs` (or `make deps`)')
        res = subprocess.run([debugfs, '-w', '-f', '-', path], input=cmds,
                             capture_output=True, text=True, env=env)
        bad = [x for x in (res.stdout + res.stderr).splitlines()
               if x and not x.startswith('debugfs')]
        if res.returncode or bad:
            raise HarnessError(f'debugfs on {path} failed: '
                               + '; '.join(bad[:5]))
    return path


def debugfs_commands(fixtures):
    """debugfs's commands laying out each fixture as common/programs/idmap.c would:
    the directory (mode, owner) holding l -> ../t/f and m -> ../t."""
    out = []
    for f in fixtures:
        out += [f'mkdir {f.name}', f'sif {f.name} mode 04{f.mode}',
                f'sif {f.name} uid {f.dir_uid}',
                f'sif {f.name} gid {f.dir_uid}']
        for link, target in (('l', '../t/f'), ('m', '../t')):
            out += [f'symlink {f.name}/{link} {target}',
                    f'sif {f.name}/{link} uid {f.link_uid}',
                    f'sif {f.name}/{link} gid {f.link_uid}']
    return '\n'.join(out) + '\n' if out else ''


def make_initrd(build, name, plan, image):
    """The shared initramfs (with the knob listing) and a second archive
    appended (the kernel unpacks concatenated archives): the plan and the
    image."""
    with open(image, 'rb') as f:
        files = {PLAN: plan.encode(), IMAGE: f.read()}
    return guest.initrd_with(build, files, os.path.join(
        build, 'idmap', f'{name}.initrd.gz'))


def own_knobs(path):
    return {f.knob_path for f in flv.load(path).values() if f.knob_path}


def run_one(args, flavor, outdir):
    """Boots one flavor; returns True if every case passed."""
    rule = args.as_rule or ic.rule_of(flavor)
    kernel = os.path.join(args.build_dir, flavor.name, 'bzImage')
    if not os.path.isfile(kernel):
        log(f'not ok {flavor.name}: {kernel} not found (make kernel '
            f'FLAVOR={flavor.name})')
        return False
    setting_list = ic.settings(flavor, own_knobs(args.flavors_file or
                                                 flv.INI))
    errno = ic.errno_of(flavor)
    plan = ic.plan_text(flavor.name, rule, setting_list, errno=errno)
    d = os.path.join(args.build_dir, 'idmap')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f'{flavor.name}.plan'), 'w',
              encoding='utf-8') as f:
        f.write(plan)
    image = make_image(os.path.join(d, 'ext4.img'), fixtures=ic.FIXTURES)
    initrd = make_initrd(args.build_dir, flavor.name, plan, image)
    b = qemu.Boot(kernel=kernel, initrd=initrd,
                  job=['/bin/idmap', PLAN, IMAGE],
                  logdir=os.path.join(args.build_dir, 'logs',
                                      f'{flavor.name}-idmap'),
                  timeout=args.timeout,
                  echo=print if args.console else None)
    out = qemu.run(b)
    log(f'{flavor.name}: {out.line()}')
    recs, why = results.boot_records(out)
    if recs is None:
        if out.excerpt:
            print(f'--- console excerpt ({out.console}) ---\n'
                  f'{out.excerpt}\n---', flush=True)
        log(f'not ok {flavor.name}: {why}')
        return False
    with open(out.console, encoding='utf-8', errors='replace') as f:
        console = f.read().replace('\r', '')
    rows, problems = idmapjudge.judge(rule, setting_list, recs, console,
                                      out.status, errno=errno)
    failed = [r for r in rows if not r['ok']]
    obj = {'flavor': flavor.name, 'rule': rule,
           'rule_from_flavor': ic.rule_of(flavor),
           'uname': recs[0].get('uname'), 'map': list(ic.MAP),
           'ok': not failed and not problems, 'problems': problems,
           'passed': len(rows) - len(failed), 'failed': len(failed),
           'seconds_boot': round(out.seconds, 1),
           'settings': {s.label: dict(s.knobs) for s in setting_list},
           'cases': rows}
    results.write_json(obj, os.path.join(outdir,
                                         f'{flavor.name}.idmap.json'))
    for r in failed[:12]:
        log(f'  not ok {r["setting"]}/{r["id"]}: '
            + '; '.join(r['problems']))
    for p in problems[:12]:
        log(f'  problem: {p}')
    verdict = 'ok' if obj['ok'] else 'not ok'
    log(f'{verdict} {flavor.name} (rule {rule}): {obj["passed"]} of '
        f'{len(rows)} cases as predicted, {len(problems)} other '
        f'problem(s), {out.seconds:.1f}s')
    return obj['ok']


def write_section(outdir, flavors_ini, what):
    """build/results/shapes.md from every <flavor>.idmap.json there,
    in flavors.ini's order."""
    objs = {}
    for name in flv.load(flavors_ini):
        path = os.path.join(outdir, f'{name}.idmap.json')
        if not os.path.isfile(path):
            continue
        with open(path, encoding='utf-8') as f:
            obj = json.load(f)
        if obj.get('rule') == obj.get('rule_from_flavor'):
            objs[name] = obj
    head = subprocess.run(['git', '-C', flv.TOP, 'rev-parse', '--short',
                           'HEAD'], capture_output=True, text=True)
    when = (f'Measured {datetime.date.today().isoformat()} at commit '
            f'{head.stdout.strip() or "unknown commit"} ({what}).')
    out = os.path.join(outdir, 'shapes.md')
    tmp = out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        f.write(shapes.section(objs, when))
    os.replace(tmp, out)
    log(f'wrote {out}')


def cmd_idmap(args):
    path = args.flavors_file or flv.INI
    chosen = flv.pick(args.flavors or [], path)
    outdir = os.path.join(args.build_dir, 'results')
    with BuildLock(args.build_dir, wait=not args.no_wait):
        t0 = time.monotonic()
        guest.build_program(args.build_dir, 'idmap', 'common/programs/idmap.c')
        failed = boot_run.failures(chosen,
                                   lambda f: run_one(args, f, outdir))
        if not args.as_rule:
            write_section(outdir, path, 'sticky.py idmap')
        log(f'idmap: {len(chosen)} flavor(s) in '
            f'{time.monotonic() - t0:.1f}s')
    print(f'{len(chosen) - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def add_idmap_commands(sub):
    p = sub.add_parser('idmap', help='sticky symlinks through an idmapped '
                       'ext4 mount (default: the default flavors)')
    p.add_argument('flavors', nargs='*')
    p.add_argument('--timeout', type=float, default=60.0,
                   help='hard limit per boot in seconds (default 60)')
    p.add_argument('--console', action='store_true',
                   help='echo the whole guest console')
    p.add_argument('--as-rule', choices=ic.RULES, default=None,
                   help='predict every flavor with this rule instead of '
                   'its own (to see the check fail)')
    p.set_defaults(func=cmd_idmap)
