"""Configures and builds one flavor's kernel out of tree in build/<flavor>/obj.

The .config is `make tinyconfig` + harness/config/common.config + the
flavor's own lines, so flavors differ only in their deliberate deltas.
Reconfiguration happens only when those inputs change, and bzImage is
copied to build/<flavor>/bzImage only when it changed, so a no-op build
leaves every stable path untouched.

A build that warns fails: every flavor builds without a warning, as the
pristine tree does in this configuration. The objects of the files that
warned are removed, so the next build compiles them again and warns
again until the patch is fixed (ccache replays a cached warning too).
"""

import filecmp
import hashlib
import os
import re
import shutil
import subprocess

from flavors import HARNESS
from kernel import progress
from stages import HarnessError, log, write_whole

COMMON = os.path.join(HARNESS, 'config', 'common.config')
ARCH = 'x86_64'


# Fixed so that uname -v, and with it the recorded facts, is the same in
# every build: a relink must not show up as a change in results/expected.
FIXED_ENV = {
    'KBUILD_BUILD_TIMESTAMP': '2010-06-01 00:00:00 UTC',
    'KBUILD_BUILD_USER': 'sticky',
    'KBUILD_BUILD_HOST': 'sticky',
    'KBUILD_BUILD_VERSION': '1',
    'ARCH': ARCH,
}


def build_env(build):
    env = dict(os.environ)
    env.update(FIXED_ENV)
    env.update({
        'CCACHE_BASEDIR': os.path.abspath(build),
        'CCACHE_NOHASHDIR': '1',
    })
    return env


def make_cmd(src, obj, *targets, jobs=None, silent=True):
    """silent=False keeps kbuild's one line per step ("  CC      x.o"),
    which the build's progress counts."""
    cmd = ['make'] + (['-s'] if silent else [])
    cmd += ['-C', src, f'O={obj}', f'ARCH={ARCH}']
    if shutil.which('ccache'):
        cmd.append('CC=ccache gcc')
    cmd.append(f'-j{jobs or os.cpu_count() or 1}')
    return cmd + list(targets)


def config_lines(extra):
    with open(COMMON, encoding='utf-8') as f:
        common = [x.rstrip('\n') for x in f]
    return common + list(extra)


def wanted_symbols(lines):
    """CONFIG_X -> 'y'/'n'/value for every assignment in the fragment."""
    want = {}
    for line in lines:
        m = re.match(r'(CONFIG_\w+)=(.*)', line)
        if m:
            want[m.group(1)] = m.group(2)
        m = re.match(r'# (CONFIG_\w+) is not set', line)
        if m:
            want[m.group(1)] = 'n'
    return want


KCONFIG_ENTRY = re.compile(r'^\+\s*(?:menu)?config\s+(\w+)\s*$', re.M)


def defined_symbols(patches):
    """The Kconfig symbols the patches add a `config` entry for (names
    without CONFIG_)."""
    out = set()
    for path in patches:
        with open(path, encoding='utf-8') as f:
            out |= set(KCONFIG_ENTRY.findall(f.read()))
    return out


def read_config(path):
    got = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = re.match(r'(CONFIG_\w+)=(.*)', line)
            if m:
                got[m.group(1)] = m.group(2)
    return got


def unheld(cfg, lines):
    """[(symbol, wanted value, value in the .config `cfg`)] of the
    assignments in `lines` that `cfg` does not hold."""
    got = read_config(cfg)
    return [(sym, val, got.get(sym, 'n'))
            for sym, val in wanted_symbols(lines).items()
            if got.get(sym, 'n') != val]


TINY = '.config.tiny'    # obj/.config as `make tinyconfig` left it


def _read(path):
    try:
        with open(path, encoding='utf-8') as f:
            return f.read()
    except OSError:
        return None


def configure(src, obj, extra, build, run=subprocess.run, alike=False):
    """Writes obj/.config unless its inputs are unchanged. Returns True if
    it (re)configured.

    `alike`: obj was seeded from a tree whose configuration this tree
    gives alike (seed.config_alike()).  Then the seed's .config is this
    one's when the fragments are equal, and else its tinyconfig output
    (obj/.config.tiny) is this one's: `make tinyconfig` alone took 8-10 s
    of each seeded flavor's 13-30 s to configure."""
    lines = config_lines(extra)
    text = '\n'.join(lines) + '\n'
    digest = hashlib.sha256(('\n'.join(lines) + src).encode()).hexdigest()
    stamp = os.path.join(obj, '.config.inputs')
    cfg = os.path.join(obj, '.config')
    tiny = os.path.join(obj, TINY)
    if os.path.isfile(cfg) and os.path.isfile(stamp):
        with open(stamp, encoding='utf-8') as f:
            if f.read().strip() == digest:
                return False
    os.makedirs(obj, exist_ok=True)
    env = build_env(build)
    frag = os.path.join(obj, 'sticky.config')
    # an attempt that did not finish left this: its .config is no seed's
    attempt = os.path.join(obj, '.config.attempt')
    alike = alike and not os.path.exists(attempt)
    same = alike and _read(frag) == text and os.path.isfile(cfg)
    with open(attempt, 'w', encoding='utf-8'):
        pass
    with open(frag, 'w', encoding='utf-8') as f:
        f.write(text)

    def step(cmd):
        res = run(cmd, cwd=obj, env=env, capture_output=True, text=True)
        if res.returncode:
            raise HarnessError(f"configure failed: {' '.join(cmd)}\n"
                               f'{res.stdout[-2000:]}{res.stderr[-2000:]}')

    if same:
        log(f'{obj}: the seed\'s .config (the same fragment, the same '
            f'Kconfig files)')
    else:
        if alike and os.path.isfile(tiny):
            shutil.copyfile(tiny, cfg)
            log(f'{obj}: the seed\'s tinyconfig output, merged with this '
                f'fragment')
        else:
            step(make_cmd(src, obj, 'tinyconfig'))
            shutil.copyfile(cfg, tiny)
        step([os.path.join(src, 'scripts', 'kconfig', 'merge_config.sh'),
              '-m', '-O', obj, cfg, frag])
        # olddefconfig's .config, and include/config/auto.conf written
        # now: the build's make then finds it newer than .config and does
        # not run Kconfig again (each run 3-4 s, mostly its toolchain
        # probes)
        step(make_cmd(src, obj, 'syncconfig'))
    wrong = [f'{sym}={val} (got {now})'
             for sym, val, now in unheld(cfg, lines)]
    if wrong:
        raise HarnessError('the .config in ' + obj + ' did not take: '
                           + ', '.join(wrong) + '; check the symbol names '
                           'and their dependencies in the fragment')
    with open(stamp, 'w', encoding='utf-8') as f:
        f.write(digest + '\n')
    os.unlink(attempt)
    return True


WARNING = re.compile(r'^(?P<file>[^\s:][^:]*?)(?::\d+){0,2}: warning: '
                     r'(?P<msg>.*)$|^WARNING: (?P<kbuild>.*)$')


def in_tree(path, src):
    """`path` as kbuild printed it (relative to the object tree, or
    absolute), made relative to src when some suffix of it is there."""
    parts = [p for p in os.path.normpath(path).split(os.sep)
             if p not in ('', '.', '..')]
    for i in range(len(parts)):
        rel = os.path.join(*parts[i:])
        if rel and os.path.exists(os.path.join(src, rel)):
            return rel
    return path


def warnings(logfile, src):
    """[(file or None, 'file: message')] of the compiler's, the linker's and
    kbuild's warnings in a build log, each once, in order."""
    found = []
    with open(logfile, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = WARNING.match(line.strip())
            if not m:
                continue
            if m.group('kbuild') is not None:
                item = (None, 'kbuild: ' + m.group('kbuild').strip())
            else:
                name = in_tree(m.group('file'), src)
                item = (name, f'{name}: {m.group("msg").strip()}')
            if item not in found:
                found.append(item)
    return found


def refuse_warnings(logfile, src, obj):
    """Raises when the build log holds a warning, after removing the
    objects of the C files that warned (so that they are compiled, and
    warn, again next time)."""
    found = warnings(logfile, src)
    if not found:
        return
    removed = []
    for name, _ in found:
        if name and name.endswith('.c'):
            o = os.path.join(obj, name[:-2] + '.o')
            if os.path.isfile(o):
                os.remove(o)
                removed.append(os.path.relpath(o, obj))
    lines = '\n'.join('  ' + text for _, text in found)
    again = (f'; removed {", ".join(removed)} so the next build compiles '
             f'it again' if removed else '')
    raise HarnessError(f'the build warned ({len(found)} warning(s), '
                       f'{logfile}); every flavor must build without '
                       f'warnings, as the pristine tree does:\n{lines}\n'
                       f'fix the patch and build again{again}')


def build(src, obj, out_image, build_dir, logfile, label=None,
          interval=progress.INTERVAL, say=None):
    """Runs make bzImage with its output in logfile and a progress line on
    the console every interval seconds; copies the image to out_image if
    it changed. label defaults to "build <flavor>", the flavor being the
    folder of out_image."""
    label = label or 'build ' + os.path.basename(
        os.path.dirname(os.path.abspath(out_image)))
    res = progress.run_logged(
        make_cmd(src, obj, 'bzImage', silent=False), logfile, label,
        interval=interval, say=say, cwd=obj, env=build_env(build_dir))
    if res.returncode:
        raise HarnessError(f'kernel build failed ({logfile}):\n'
                           + progress.log_tail(logfile))
    refuse_warnings(logfile, src, obj)
    return install_image(os.path.join(obj, 'arch', 'x86', 'boot',
                                      'bzImage'), out_image)


def install_image(image, out_image):
    """Copies a built image to out_image, whole or not at all (a full
    disk keeps the previous image and says so). Returns False when
    out_image already holds it."""
    if os.path.isfile(out_image) and filecmp.cmp(image, out_image,
                                                 shallow=False):
        return False
    write_whole(out_image, lambda tmp: shutil.copyfile(image, tmp),
                'build again: the objects are still there')
    log(f'New image: {out_image}')
    return True


def compile_object(src, obj, target, build_dir):
    """Builds one object (e.g. fs/namei.o); returns (returncode, output)."""
    res = subprocess.run(make_cmd(src, obj, target), cwd=obj,
                         env=build_env(build_dir), capture_output=True,
                         text=True)
    return res.returncode, res.stdout + res.stderr
