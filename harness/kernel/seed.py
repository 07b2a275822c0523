"""A flavor's first build starts from a copy of the closest built flavor's
objects, as if that flavor's tree had been switched to this one's series
and .config and `make` run again.

Kbuild makes that sound, given two things this module guarantees:
- The objects live in build/<flavor>/src/obj, so kbuild runs with
  srctree = ".." and every command line and dependency list it records is
  relative: the copied .cmd files hold the same commands this flavor would
  run and name this flavor's sources.
- Every file whose content differs between the two trees (changed by
  either series, not by both alike) is, in this flavor's tree, a file of
  its own (not a hard link to build/pristine) with a modification time
  newer than every copied object, so make rebuilds whatever depends on
  it. A file only the seed's series changed is pristine here, with the
  tarball's old date: without this it would keep the seed's object.

The one part of the kernel built with absolute paths is objtool
(tools/objtool, its own build system): its recorded commands name the
seed's tree, so they are rewritten to name this one; otherwise objtool is
rebuilt, and every object that objtool checks with it.

A changed .config is kbuild's own business: syncconfig (which
kbuild.configure() runs) touches include/config/<SYMBOL> for each changed
symbol, and fixdep made each object depend on the symbols it uses.

after_build() then checks the guarantee: every .c file that differed must
have an object newer than the seeding, or the build is refused.
"""

import os
import shutil
import subprocess
import time

from kernel import kbuild
from kernel import tree
from stages import HarnessError, log

STAMP = '.seeded-from'


def differing(src, other):
    """Paths whose content differs between two flavors' trees (worktrees
    of one repository: their commits are each other's)."""
    head = tree.git(other, 'rev-parse', 'HEAD').stdout.strip()
    return set(tree.git(src, 'diff', '--name-only', head, 'HEAD')
               .stdout.split())


def symbols(path):
    """The effective CONFIG_ assignments of a fragment file (absent: n)."""
    with open(path, encoding='utf-8') as f:
        want = kbuild.wanted_symbols(x.rstrip('\n') for x in f)
    return {k: v for k, v in want.items() if v != 'n'}


def _distance(a, b):
    return sum(a.get(k) != b.get(k) for k in set(a) | set(b))


def candidates(build, name, keys):
    """(flavor, src, obj) of every flavor in build/ whose image is up to
    date with its tree and .config (keys(src, obj) equals its built.stamp)."""
    found = []
    for other in sorted(os.listdir(build)):
        src = os.path.join(build, other, 'src')
        obj = tree.obj_dir(build, other)
        stamp = os.path.join(build, other, 'built.stamp')
        if other == name or not all(os.path.isfile(p) for p in (
                stamp, src + '.applied', os.path.join(obj, 'vmlinux'),
                os.path.join(obj, 'sticky.config'),
                os.path.join(obj, '.config.inputs'))):
            continue
        with open(stamp, encoding='utf-8') as f:
            if f.read().strip() != keys(src, obj):
                continue
        found.append((other, src, obj))
    return found


def choose(build, name, src, fragment, keys):
    """The closest candidate: fewest config symbols that differ, then
    fewest files that differ. Returns (flavor, obj, differing files) or
    None."""
    want = {k: v for k, v in kbuild.wanted_symbols(fragment).items()
            if v != 'n'}
    best = None
    for other, osrc, oobj in candidates(build, name, keys):
        differ = differing(src, osrc)
        score = (_distance(want, symbols(os.path.join(oobj,
                                                      'sticky.config'))),
                 len(differ), other)
        if best is None or score < best[0]:
            best = (score, other, oobj, differ)
    return best and best[1:]


def refresh(src, paths, now):
    """Each path that exists in src becomes a file of its own with mtime
    `now`: a hard link to pristine is replaced by a copy (git never writes
    through, and neither may we)."""
    for rel in sorted(paths):
        path = os.path.join(src, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        if os.stat(path).st_nlink > 1:
            tmp = path + '.seed.tmp'
            shutil.copy2(path, tmp)
            os.replace(tmp, path)
        os.utime(path, (now, now))


def relocate(top, old, new):
    """Rewrites `old` to `new` in the text files under top that hold it
    (objtool's .cmd and .d files); returns how many."""
    res = subprocess.run(['grep', '-rlIZF', '--', old, top],
                         capture_output=True, text=True)
    paths = [p for p in res.stdout.split('\0') if p]
    for path in paths:
        with open(path, encoding='utf-8', errors='surrogateescape') as f:
            text = f.read()
        with open(path, 'w', encoding='utf-8', errors='surrogateescape') as f:
            f.write(text.replace(old, new))
    return len(paths)


def seed(build, name, src, obj, fragment, keys):
    """Fills a missing obj from the closest built flavor. Returns the seed's
    name, or None when there is none (the build starts from nothing)."""
    if os.path.exists(obj):
        return None
    picked = choose(build, name, src, fragment, keys)
    if not picked:
        return None
    other, oobj, differ = picked
    tmp = obj + '.seed.tmp'
    shutil.rmtree(tmp, ignore_errors=True)
    res = subprocess.run(['cp', '-a', '--', oobj, tmp],
                         capture_output=True, text=True)
    if res.returncode:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessError(f'copying {oobj} to {tmp} failed: '
                           f'{res.stderr.strip()}')
    relocate(tmp, os.path.dirname(os.path.realpath(oobj)) + '/',
             os.path.realpath(src) + '/')
    for stale in ('.config.inputs', '.config.attempt', STAMP):
        if os.path.exists(os.path.join(tmp, stale)):
            os.unlink(os.path.join(tmp, stale))
    now = time.time()
    refresh(src, differ, now)
    with open(os.path.join(tmp, STAMP), 'w', encoding='utf-8') as f:
        f.write(f'{other} {now}\n' + ''.join(f'{p}\n' for p in
                                              sorted(differ)))
    os.rename(tmp, obj)
    files = (f'{len(differ)} file(s) differ: '
             f'{", ".join(sorted(differ)[:4])}'
             f'{" ..." if len(differ) > 4 else ""}') if differ else \
        'the trees are alike'
    log(f'{name}: objects seeded from {other} ({files})')
    return other


def _leaves_config(path):
    """Whether a file that differs between two trees leaves their
    configuration alike: C sources, headers and documentation outside
    scripts/ (Kconfig reads Kconfig files, scripts/ and the configs/
    fragments, never these)."""
    return (path == 'MAINTAINERS' or not path.startswith('scripts/')
            and path.endswith(('.c', '.h', '.rst', '.txt')))


def config_alike(obj):
    """Whether obj, seeded and not yet built, came from a tree whose
    configuration this one's gives alike (kbuild.configure(alike=))."""
    try:
        with open(os.path.join(obj, STAMP), encoding='utf-8') as f:
            _head, *paths = f.read().split('\n')
    except OSError:
        return False
    return all(_leaves_config(p) for p in paths if p)


def after_build(src, obj):
    """Refuses a seeded build that kept a stale object: each differing .c
    file whose object exists must have been compiled after the seeding.
    Runs once: the record goes when the check passes."""
    stamp = os.path.join(obj, STAMP)
    if not os.path.isfile(stamp):
        return
    with open(stamp, encoding='utf-8') as f:
        head, *paths = f.read().split('\n')
    other, when = head.split()
    stale = []
    for rel in paths:
        if not rel.endswith('.c') or not os.path.isfile(
                os.path.join(src, rel)):
            continue
        o = os.path.join(obj, rel[:-2] + '.o')
        if os.path.isfile(o) and os.stat(o).st_mtime < float(when):
            stale.append(rel[:-2] + '.o')
    if stale:
        raise HarnessError(
            f'{obj} was seeded from {other} but make kept its '
            f'{", ".join(stale)}: the copy is not trustworthy. Remove {obj} '
            f'and build again (it then starts from nothing).')
    os.unlink(stamp)
