"""sticky.py static-check: sparse, W=1 and coccicheck on what a series
touches.

For each checked flavor (by default every default flavor with a series:
v1-nosec compiles v1's code with CONFIG_SECURITY off) the C files its patches
change name the objects (security/commoncap.o for v1, fs/namei.o for v3).
Each object is checked in the flavor's tree and, with the same .config
symbols, in the unpatched base tree:

  sparse  make C=2 <obj> (an up-to-date object is not rebuilt)
  W=1     make W=1 <obj>.s: the compiler's extra warnings without touching
          the object or its .cmd file (the .s and its .cmd are removed),
          and kernel-doc -none on the source, which W=1 runs for objects

  coccicheck  coccinelle's report-mode scripts on the source
              (harness/kernel/coccicheck.py, which keeps its own findings)

Findings are normalised (tree prefix and line:column dropped, notes kept
with their warning) and compared as multisets: a flavor passes when its
object has no finding the base object lacks.

A tree's findings for an object are kept in <obj>/.sticky-static/, a file
per object, with the key of what they depend on: the tree's content (its
HEAD tree, a tree with changes in place is never cached), its .config,
the compiler's and sparse's versions and this module and kbuild.py. A check
whose key is unchanged reuses them and says so (--no-cache runs them all).
"""

import collections
import hashlib
import json
import os
import re
import subprocess

import flavors as flv
from boot.lock import BuildLock
from kernel import coccicheck
from kernel import kbuild
from kernel import tree
from stages import HarnessError, Stages, log

FINDING = re.compile(r'^(?P<file>[^\s:][^:]*):(?P<line>\d+)(?::\d+)?: '
                     r'(?P<kind>warning|error|note|info): (?P<msg>.*)$')
GCC_TAG = re.compile(r'\[-W[^\]]*\]$')


def touched_objects(patches):
    """The .o of every .c file the patches change, in order."""
    objs = []
    for p in patches:
        with open(p, encoding='utf-8', errors='replace') as f:
            for line in f:
                m = re.match(r'diff --git a/(\S+)\.c b/', line)
                if m and m.group(1) + '.o' not in objs:
                    objs.append(m.group(1) + '.o')
    return objs


def normalise(output, src):
    """Findings as 'file: kind: message' strings; notes join the finding
    they belong to."""
    prefixes = [os.path.realpath(src) + '/', os.path.abspath(src) + '/',
                '../', './']
    found = []
    for line in output.splitlines():
        m = FINDING.match(line.strip())
        if not m:
            continue
        path = m.group('file')
        for pre in prefixes:
            if path.startswith(pre):
                path = path[len(pre):]
        text = f'{path}: {m.group("kind")}: {m.group("msg").strip()}'
        if m.group('kind') in ('note', 'info') and found:
            found[-1] += ' | ' + text
        else:
            found.append(text)
    return found


def _make(src, obj, build, *targets):
    cmd = kbuild.make_cmd(src, obj, *targets)
    res = subprocess.run(cmd, cwd=obj, env=kbuild.build_env(build),
                         capture_output=True, text=True)
    out = res.stdout + res.stderr
    if res.returncode:
        raise HarnessError(f"{' '.join(cmd)} failed:\n{out[-3000:]}")
    return out


def _mtime(path):
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return None


def check_tree(src, obj, build, target):
    """Returns {'sparse': [...], 'W=1': [...]} for one object of one tree."""
    if not os.path.isfile(os.path.join(obj, '.config')):
        raise HarnessError(f'{obj} has no .config: build that flavor first '
                           f'(`make kernels`)')
    # C=2 also brings the object up to date; if that compiles it, gcc's
    # own warnings (tagged [-W...]) are left to the W=1 pass, and the
    # object goes again: the next build compiles it, where the warning
    # gate (kbuild.refuse_warnings) reads its warnings in the build log.
    made = os.path.join(obj, target)
    before = _mtime(made)
    sparse = [f for f in normalise(_make(src, obj, build, 'C=2', target),
                                   src)
              if not GCC_TAG.search(f.split(' | ')[0])]
    if _mtime(made) not in (None, before):
        os.unlink(made)
    asm = target[:-2] + '.s'
    leftovers = [os.path.join(obj, asm), os.path.join(
        obj, os.path.dirname(asm), '.' + os.path.basename(asm) + '.cmd')]
    # prepare first, so that the W=1 output holds only this object's;
    # the next build without W=1 redoes it (asm-offsets, a few seconds).
    _make(src, obj, build, 'W=1', 'prepare')
    try:
        for path in leftovers:
            if os.path.exists(path):
                os.unlink(path)
        w1 = _make(src, obj, build, 'W=1', asm)
    finally:
        for path in leftovers:
            if os.path.exists(path):
                os.unlink(path)
    # W=1 also runs kernel-doc on the source (cmd_checkdoc), but only
    # for .o targets: run it as kbuild does.
    doc = subprocess.run(['perl', os.path.join('scripts', 'kernel-doc'),
                          '-none', target[:-2] + '.c'], cwd=src,
                         capture_output=True, text=True)
    return {'sparse': sparse,
            'W=1': normalise(w1, src) + normalise(doc.stderr, src)}


def _out(cmd, cwd=None):
    try:
        res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        return f'{cmd[0]}: {e}'
    return f'{res.returncode}\n{res.stdout}{res.stderr}'


def cache_key(src, obj, target):
    """The key of what one check's findings depend on (the object names
    the file the findings are kept in), or None when the tree has changes
    in place (nothing to name its content by)."""
    if _out(['git', 'status', '--porcelain', '--untracked-files=no'],
            src) != '0\n':
        return None
    h = hashlib.sha256()
    h.update(_out(['git', 'rev-parse', 'HEAD^{tree}'], src).encode())
    try:
        with open(os.path.join(obj, '.config'), 'rb') as f:
            h.update(f.read())
    except OSError:
        return None
    h.update(_out(['gcc', '--version']).encode())
    h.update(_out(['sparse', '--version']).encode())
    for mod in (__file__, kbuild.__file__):
        with open(mod, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def check_cached(src, obj, build, target, use_cache=True, check=None):
    """check_tree's findings, from <obj>/.sticky-static when its key is
    unchanged: (findings, cached)."""
    check = check or check_tree
    key = cache_key(src, obj, target) if use_cache else None
    path = os.path.join(obj, '.sticky-static',
                        target.replace('/', '_') + '.json')
    if key:
        try:
            with open(path, encoding='utf-8') as f:
                kept = json.load(f)
            if kept.get('key') == key:
                return kept['findings'], True
        except (OSError, ValueError, KeyError):
            pass
    findings = check(src, obj, build, target)
    if key:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + '.tmp', 'w', encoding='utf-8') as f:
            json.dump({'key': key, 'findings': findings}, f)
        os.replace(path + '.tmp', path)
    return findings, False


def new_findings(patched, base):
    left = collections.Counter(patched) - collections.Counter(base)
    return [f for f in dict.fromkeys(patched) if left[f]
            for _ in range(left[f])]


# the base's findings in a file it does not have
NOTHING_FOUND = {'sparse': [], 'W=1': []}


def default_flavors(all_flavors):
    """Every default flavor with a series: a config that switches code of
    the series off (v1-nosec) can warn where its sibling does not. Fixture
    series (mutants, the first v3 port) have only extra flavors."""
    return [f for f in all_flavors.values() if f.series and not f.extra]


def cmd_static_check(args):
    path = args.flavors_file or flv.INI
    every = flv.load(path)
    chosen = flv.pick(args.flavors, path) if args.flavors else \
        default_flavors(every)
    base = next((f for f in every.values() if not f.series), None)
    if base is None:
        raise HarnessError(f'{path} has no flavor without a series to '
                           f'compare with')
    stages = Stages()
    failed = 0
    with BuildLock(args.build_dir, wait=not args.no_wait):
        base_src = tree.worktree(args.build_dir, base, args.top, stages)
        base_obj = tree.obj_dir(args.build_dir, base.name)
        cache = {}
        trees = {f.name: (tree.worktree(args.build_dir, f, args.top, stages),
                          touched_objects(flv.flavor_patches(f, args.top)))
                 for f in chosen if f.series}
        # a file the series adds has no base to compare with: every
        # finding in it is new
        sources = {(t, o[:-2] + '.c') for src, objs in trees.values()
                   for o in objs for t in (src, base_src)
                   if os.path.exists(os.path.join(t, o[:-2] + '.c'))}
        with stages.stage('static', f'coccicheck on {len(sources)} '
                          f'file(s), the base tree\'s included'):
            cocci = coccicheck.findings(sorted(sources), args.build_dir,
                                        base_src)
        for f in chosen:
            if not f.series:
                continue
            src, objs = trees[f.name]
            obj = tree.obj_dir(args.build_dir, f.name)
            bad = 0
            for target in objs:
                with stages.stage('static', f'{f.name}: sparse and W=1 on '
                                  f'{target}, and on {base.name}\'s'):
                    mine, mine_kept = check_cached(src, obj, args.build_dir,
                                                   target, not args.no_cache)
                    if target not in cache:
                        cache[target] = check_cached(
                            base_src, base_obj, args.build_dir, target,
                            not args.no_cache) if os.path.exists(
                                os.path.join(base_src, target[:-2] + '.c')
                            ) else (NOTHING_FOUND, False)
                    theirs = cache[target][0]
                    kept = [n for n, k in ((f.name, mine_kept),
                                           (base.name, cache[target][1]))
                            if k]
                    if kept:
                        log(f'{target}: the findings in {" and ".join(kept)}'
                            f' kept from an earlier run (same tree, .config '
                            f'and tools)')
                c = target[:-2] + '.c'
                mine = dict(mine, coccicheck=cocci[(src, c)])
                theirs = dict(theirs,
                              coccicheck=cocci.get((base_src, c), []))
                for tool in ('sparse', 'W=1', 'coccicheck'):
                    new = new_findings(mine[tool], theirs[tool])
                    bad += len(new)
                    log(f'{"ok" if not new else "not ok"} {f.name} {tool} '
                        f'{target}: {len(mine[tool])} findings '
                        f'({len(theirs[tool])} in {base.name}), '
                        f'{len(new)} new')
                    for line in new:
                        print(f'    NEW {line}', flush=True)
            failed += bad > 0
    log(stages.summary())
    n = len([f for f in chosen if f.series])
    print(f'{n - failed} passed, {failed} failed', flush=True)
    return 1 if failed else 0


def add_commands(sub):
    p = sub.add_parser('static-check',
                       help='sparse, W=1 and coccicheck on what each series '
                       'touches: no finding the base tree lacks')
    p.add_argument('flavors', nargs='*',
                   help='default: every default flavor with a series')
    p.add_argument('--no-cache', action='store_true',
                   help='run every check, even one whose trees, .config '
                   'and tools are unchanged')
    p.set_defaults(func=cmd_static_check)
