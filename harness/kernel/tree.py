"""The pristine linux-source-6.1 tree and one patched git worktree per flavor.

build/pristine is the tarball's tree committed once on branch `pristine`.
build/<flavor>/src is a worktree of it with the flavor's series applied by
`git am`, and build/<flavor>/src/obj holds its objects: an output directory
right inside the tree makes kbuild name the sources relatively (srctree
= ".."), so every flavor's compiler command lines are the same, ccache
shares their objects and one flavor's object tree is valid in another's
(kernel/seed.py).
Re-applying a changed series resets the worktree to pristine and runs
`git am` again; a file the series leaves as it was, byte for byte, gets
its old mtime back (keep_mtimes()), so make rebuilds only what the edit
changed, not every file the series touches.

A worktree's files are hard links to build/pristine's, not a checkout: a
flavor's tree costs its directories and the files its series changes, not
1.3 GB, and `make check` makes a dozen of them. Git never writes a file of
a work tree in place (it unlinks and creates), so `git am` and `git reset`
leave the shared files alone; an editor that rewrites in place would not,
so edit the series, never build/<flavor>/src.
"""

import glob
import hashlib
import os
import re
import shutil
import subprocess

from flavors import flavor_patches
from stages import HarnessError, log

# STICKY_LINUX_TARBALL overrides it (harness/tests/test_faults.py).
TARBALL = os.environ.get('STICKY_LINUX_TARBALL',
                         '/usr/src/linux-source-6.1.tar.xz')
WANT_VERSION = (6, 1)
IDENT = ['-c', 'user.name=Sticky Symlinks Porter',
         '-c', 'user.email=porter@localhost']


def git(repo, *args, check=True, env=None, stdin=None, input=None,
        text=True):
    res = subprocess.run(['git', '-C', repo, *IDENT, *args],
                         capture_output=True, text=text, env=env,
                         stdin=stdin, input=input)
    if check and res.returncode:
        raise HarnessError(f"git {' '.join(args)} in {repo} failed:\n"
                           f'{res.stderr.strip()}')
    return res


def tree_version(src):
    ver = {}
    with open(os.path.join(src, 'Makefile'), encoding='utf-8') as f:
        for line in f:
            m = re.match(r'(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)', line)
            if m:
                ver[m.group(1)] = int(m.group(2))
            if len(ver) == 3:
                break
    return ver.get('VERSION'), ver.get('PATCHLEVEL'), ver.get('SUBLEVEL')


def check_tarball(tarball=TARBALL):
    if os.path.isfile(tarball):
        return
    others = sorted(glob.glob('/usr/src/linux-source-*.tar.*'))
    hint = f" (found instead: {', '.join(others)})" if others else ''
    raise HarnessError(f'{tarball} not found{hint}: install it with '
                       f'`apt-get install linux-source-6.1` (or `make deps`)')


def pristine(build, stages, tarball=TARBALL):
    """Extracts and commits the pristine tree once; returns its path."""
    src = os.path.join(build, 'pristine')
    if os.path.isdir(os.path.join(src, '.git')) and \
            git(src, 'rev-parse', '--verify', '-q', 'pristine',
                check=False).returncode == 0:
        return src
    check_tarball(tarball)
    tmp = os.path.join(build, 'extract.tmp')
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    with stages.stage('extract', f'Extracting {tarball}'):
        subprocess.run(['tar', '-C', tmp, '-xf', tarball], check=True)
        tops = os.listdir(tmp)
        if len(tops) != 1:
            raise HarnessError(f'{tarball} does not hold one top directory')
        top = os.path.join(tmp, tops[0])
        ver = tree_version(top)
        if ver[:2] != WANT_VERSION:
            raise HarnessError(f'{tarball} holds Linux {ver}, expected '
                               f'6.1.x: install linux-source-6.1')
        # Debian's top .gitignore ignores everything: add with -f.
        subprocess.run(['git', 'init', '-q', '-b', 'pristine', top],
                       check=True)
        git(top, 'add', '-f', '-A', '.')
        git(top, 'commit', '-q', '-m',
            f'pristine {os.path.basename(tarball)} {ver[0]}.{ver[1]}.{ver[2]}')
        shutil.rmtree(src, ignore_errors=True)
        os.rename(top, src)
        shutil.rmtree(tmp)
    log(f'Pristine tree: {src} (Linux {".".join(map(str, ver))})')
    return src


def series_digest(patches):
    h = hashlib.sha256()
    for p in patches:
        h.update(os.path.basename(p).encode() + b'\0')
        with open(p, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def _am_failure(out, patches):
    """Names the patch and file a failed `git am` stopped at."""
    files = re.findall(r'error: (?:patch failed: |)([^:\s]+):\d+', out)
    files += re.findall(r'error: ([^:\s]+): (?:does not exist|'
                        r'patch does not apply)', out)
    m = re.search(r'Patch failed at (\d+) (.*)', out)
    which = m.group(0) if m else 'git am failed'
    if m:
        n = int(m.group(1))
        if 0 < n <= len(patches):
            which = f'{patches[n - 1]} ({m.group(2)})'
    where = f" in {', '.join(dict.fromkeys(files))}" if files else ''
    return which, where


def _exclude_objects(src):
    """Every worktree's obj/ is untracked output: git status of a patched
    tree shows the series' changes only (kbuild's obj/.gitignore says so
    too, once a build has run)."""
    path = os.path.join(src, '.git', 'info', 'exclude')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    text = ''
    if os.path.isfile(path):
        with open(path, encoding='utf-8') as f:
            text = f.read()
    if '/obj/\n' not in text.splitlines(True):
        with open(path, 'a', encoding='utf-8') as f:
            f.write(('' if not text or text.endswith('\n') else '\n')
                    + '/obj/\n')


def linked_worktree(src, wt):
    """Adds wt as a detached worktree of src at `pristine` whose files are
    hard links to src's, with a copy of src's index: stat data matches (the
    ctime a link changes is not trusted), so git hashes no file."""
    git(src, 'config', 'core.trustctime', 'false')
    _exclude_objects(src)
    changed = git(src, 'diff', '--name-only').stdout.split()
    if changed:
        raise HarnessError(
            f"{src} has files changed in place: {', '.join(changed[:5])}"
            f"{' ...' if len(changed) > 5 else ''} (an edit in some "
            f'build/<flavor>/src writes through the hard link). Restore '
            f'them with `git -C {src} checkout -f pristine`, then remove '
            f'every build/*/src and build/*/src.applied to re-link them.')
    os.makedirs(os.path.dirname(wt), exist_ok=True)
    git(src, 'worktree', 'prune')
    git(src, 'worktree', 'add', '-q', '-f', '--no-checkout', '--detach', wt,
        'pristine')
    entries = [os.path.join(src, e) for e in sorted(os.listdir(src))
               if e != '.git']
    res = subprocess.run(['cp', '-al', '--', *entries, wt],
                         capture_output=True, text=True)
    if res.returncode:
        git(src, 'worktree', 'remove', '--force', wt, check=False)
        raise HarnessError(f'linking {src} into {wt} failed: '
                           f'{res.stderr.strip()}')
    gitdir = git(wt, 'rev-parse', '--absolute-git-dir').stdout.strip()
    shutil.copy2(os.path.join(src, '.git', 'index'),
                 os.path.join(gitdir, 'index'))
    git(wt, 'update-index', '-q', '--refresh', check=False)


def obj_dir(build, name):
    """Where a flavor's objects go (see the top of this file)."""
    return os.path.join(build, name, 'src', 'obj')


def worktree(build, flavor, top, stages):
    """Returns build/<flavor>/src, patched with the flavor's current series
    (none for a flavor without one; the subset its `patches` key names)."""
    # A bad series is named before a first run spends minutes extracting.
    patches = flavor_patches(flavor, top)
    src = pristine(build, stages)
    digest = series_digest(patches)
    wt = os.path.join(build, flavor.name, 'src')
    stamp = wt + '.applied'
    series = flavor.series or 'no series'
    if os.path.isdir(wt) and os.path.isfile(stamp):
        with open(stamp, encoding='utf-8') as f:
            if f.read().strip() == digest:
                return wt
    with stages.stage('patch', f'Applying {series} '
                      f'({len(patches)} patches) to {wt}'):
        if os.path.exists(stamp):
            os.unlink(stamp)
        before = {}
        if not os.path.isdir(wt):
            # at pristine, nothing applied: no am to abort, no reset, no
            # series files to keep (each a pass over the tree's 75k files)
            linked_worktree(src, wt)
        else:
            git(wt, 'am', '--abort', check=False)
            before = series_files(wt)
            git(wt, 'reset', '-q', '--hard', 'pristine')
        res = git(wt, 'am', '-q', '--whitespace=nowarn', *patches,
                  check=False) if patches else None
        if res and res.returncode:
            out = res.stdout + res.stderr
            git(wt, 'am', '--abort', check=False)
            git(wt, 'reset', '-q', '--hard', 'pristine')
            which, where = _am_failure(out, patches)
            raise HarnessError(
                f'patch does not apply: {which}{where}.\n'
                f'{out.strip()}\n'
                f'The tree {wt} was reset to pristine; fix the patch and '
                f'run again.')
        kept = keep_mtimes(wt, before) if before else 0
        if kept:
            log(f'{flavor.name}: {kept} file(s) the series leaves as they'
                ' were keep their mtime')
        with open(stamp, 'w', encoding='utf-8') as f:
            f.write(digest + '\n')
    return wt


def _changed(wt):
    """The files of the worktree that differ from pristine (committed or
    not)."""
    res = git(wt, 'diff', '--name-only', '-z', 'pristine', check=False)
    return [name for name in res.stdout.split('\0') if name]


def series_files(wt):
    """{path: (bytes, atime_ns, mtime_ns)} of the files the worktree
    changes from pristine, before it is reset."""
    out = {}
    for name in _changed(wt):
        path = os.path.join(wt, name)
        try:
            with open(path, 'rb') as f:
                st = os.fstat(f.fileno())
                out[name] = (f.read(), st.st_atime_ns, st.st_mtime_ns)
        except OSError:
            pass        # deleted by the series: git recreates it
    return out


def keep_mtimes(wt, before):
    """Give each file the series now changes its mtime of `before` when
    its bytes are the same: make then rebuilds only what the new series
    changed. Returns how many files kept theirs."""
    kept = 0
    for name in _changed(wt):
        if name not in before:
            continue
        data, atime, mtime = before[name]
        path = os.path.join(wt, name)
        try:
            with open(path, 'rb') as f:
                if f.read() != data:
                    continue
            os.utime(path, ns=(atime, mtime))
        except OSError:
            continue
        kept += 1
    return kept
