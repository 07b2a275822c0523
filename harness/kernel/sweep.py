"""sticky.py config-sweep: the series' objects in the configs a bot tries.

The flavors build a few configurations; 0-day also builds the ones that
switch off what a series depends on, and random ones. For each
configuration of harness/config/sweep.ini (lines appended to tinyconfig and
harness/config/common.config, or a KCONFIG_SEED randconfig) one object
tree, build/sweep/<name>, is configured and prepared once from the
pristine tree. Then every tree in turn (pristine first, then one flavor's
tree per series) compiles, with W=1 and `make -k`, every object that some
series touches, in that one object tree: the trees differ only in those
.c files, never in a header, so the prepared tree serves them all. Every
tree is compiled from one source path, build/sweep-src, where its commit
is checked out in turn: git rewrites only the files that differ, while
compiling another path in the object tree made kbuild rebuild its tools
and re-read every makefile (15 s a tree here, against 3 s). A
configuration that turns on a symbol only some series add (grsecurity's,
OWLSM's) is prepared from, and swept in, those series' trees alone; every
tree's compile is followed by a check that the .config still holds.

Findings (compiler warnings and errors, kernel-doc's, notes joined to
theirs) are normalised as static-check does: the tree's prefix and the
line numbers dropped. A series passes a configuration when its tree has
no finding the pristine tree lacks there.
"""

import configparser
import os
import shutil
import subprocess
import time

import flavors as flv
from kernel import kbuild
from kernel import staticcheck
from kernel import tree
from stages import HarnessError, log

INI = os.path.join(flv.HARNESS, 'config', 'sweep.ini')


def load(path=INI):
    """[(name, config lines, seed or None, in make check)]."""
    cp = configparser.ConfigParser(interpolation=None)
    with open(path, encoding='utf-8') as f:
        cp.read_file(f)
    out = []
    for name in cp.sections():
        sec = cp[name]
        lines = tuple(x.strip() for x in sec.get('config', '').splitlines()
                      if x.strip())
        seed = sec.get('seed', '').strip() or None
        if bool(lines) == bool(seed):
            raise HarnessError(f'{path} [{name}]: give `config` lines or '
                               f'a randconfig `seed`, one of the two')
        out.append((name, lines, seed, sec.getboolean('check',
                                                      fallback=False)))
    return out


def turned_off(variants):
    """The Kconfig options some configuration turns off."""
    off = set()
    for _, lines, _, _ in variants:
        off |= {s for s, v in kbuild.wanted_symbols(lines).items()
                if v == 'n'}
    return off


def _run(cmd, cwd, build):
    return subprocess.run(cmd, cwd=cwd, env=kbuild.build_env(build),
                          capture_output=True, text=True)


def prepare(src, obj, lines, seed, build):
    """Configures and prepares one sweep object tree from `src`."""
    if seed:
        os.makedirs(obj, exist_ok=True)
        env = dict(kbuild.build_env(build), KCONFIG_SEED=seed)
        res = subprocess.run(kbuild.make_cmd(src, obj, 'randconfig'),
                             cwd=obj, env=env, capture_output=True,
                             text=True)
        if res.returncode:
            raise HarnessError(f'randconfig (seed {seed}) failed:\n'
                               f'{res.stdout[-1500:]}{res.stderr[-1500:]}')
    else:
        kbuild.configure(src, obj, lines, build)
    res = _run(kbuild.make_cmd(src, obj, 'prepare'), obj, build)
    if res.returncode:
        raise HarnessError(f'make prepare in {obj} failed:\n'
                           f'{(res.stdout + res.stderr)[-2000:]}')


def source_tree(build, stages):
    """build/sweep-src, a worktree of the pristine tree's repository (its
    files hard links to the pristine tree's until a checkout rewrites
    them)."""
    wt = os.path.join(build, 'sweep-src')
    if not os.path.exists(os.path.join(wt, '.git')):
        shutil.rmtree(wt, ignore_errors=True)
        tree.linked_worktree(tree.pristine(build, stages), wt)
    return wt


def checked_out(wt, src):
    """`wt` holding exactly the files of the worktree `src` (its series
    applied by tree.worktree(), a commit of the same repository)."""
    head = tree.git(src, 'rev-parse', 'HEAD').stdout.strip()
    tree.git(wt, 'checkout', '-q', '--force', '--detach', head)
    return wt


def findings(src, obj, targets, build):
    """Normalised W=1 findings of `targets` compiled from `src` in `obj`."""
    for t in targets:
        for path in (os.path.join(obj, t), os.path.join(
                obj, os.path.dirname(t), '.' + os.path.basename(t) + '.cmd')):
            if os.path.exists(path):
                os.unlink(path)
    res = _run(kbuild.make_cmd(src, obj, 'W=1', '-k', *targets), obj, build)
    return normalise(res.stdout + res.stderr, src)


def normalise(output, src):
    """Findings as 'file: kind: message', the file relative to src however
    kbuild printed it (the object tree is elsewhere), line numbers dropped;
    notes join the finding they belong to."""
    found = []
    for line in output.splitlines():
        m = staticcheck.FINDING.match(line.strip())
        if not m:
            continue
        text = (f'{kbuild.in_tree(m.group("file"), src)}: '
                f'{m.group("kind")}: {m.group("msg").strip()}')
        if m.group('kind') in ('note', 'info') and found:
            found[-1] += ' | ' + text
        else:
            found.append(text)
    return found


def series_trees(names=None, path=flv.INI):
    """[(series label, flavor)]: the named flavors, else the first default
    flavor of each series."""
    every = flv.load(path)
    if names:
        return [(f.series or f.name, f) for f in flv.pick(names, path)]
    picked = {}
    for f in every.values():
        if f.series and not f.extra and f.series not in picked:
            picked[f.series] = f
    return list(picked.items())


def held(name, obj, lines, label):
    """Refuses a sweep whose .config lost a wanted value while `label`'s
    tree compiled (kbuild re-read another tree's Kconfig)."""
    lost = [f'{sym}={val} (now {now})' for sym, val, now in
            kbuild.unheld(os.path.join(obj, '.config'), lines)]
    if lost:
        raise HarnessError(f'[{name}]: compiling {label} in {obj} changed '
                           f'its .config: {", ".join(lost)}')


def owning_trees(name, lines, trees, added):
    """The trees a configuration is swept in: all of them, unless it turns
    on a Kconfig symbol that only some series add (grsecurity's
    GRKERNSEC_LINK, OWLSM's SECURITY_OWLSM); then those series' trees
    alone, and the first prepares the configuration, since the pristine
    tree's Kconfig does not know the symbol."""
    on = {s[len('CONFIG_'):] for s, v in kbuild.wanted_symbols(lines).items()
          if v != 'n'}
    new = on & set().union(*added.values())
    if not new:
        return trees
    owners = [t for t in trees if new <= added[t[0]]]
    if not owners:
        raise HarnessError(f'{INI} [{name}] turns on {", ".join(sorted(new))}'
                           f', which no one series adds: sweep them in '
                           f'separate configurations')
    return owners


def run(build, top, stages, only=None, checked_only=False, names=None,
        path=None):
    """Returns (failures, a record of what ran)."""
    variants = [v for v in load()
                if (not only or v[0] in only) and (not checked_only or v[3])]
    if only and len(variants) != len(only):
        known = ', '.join(v[0] for v in load())
        raise HarnessError(f'unknown configuration in {", ".join(only)}; '
                           f'{INI} has: {known}')
    path = path or flv.INI
    base = next(f for f in flv.load(path).values() if not f.series)
    base_src = tree.worktree(build, base, top, stages)
    trees = [(label, f, tree.worktree(build, f, top, stages))
             for label, f in series_trees(names, path)]
    one = source_tree(build, stages)
    targets = []
    for _, f, _ in trees:
        for t in staticcheck.touched_objects(flv.flavor_patches(f, top)):
            if t not in targets:
                targets.append(t)
    added = {label: kbuild.defined_symbols(flv.flavor_patches(f, top))
             for label, f, _ in trees}
    failed = 0
    record = {'configs': [], 'objects': targets}
    for name, lines, seed, _ in variants:
        t0 = time.monotonic()
        obj = os.path.join(build, 'sweep', name)
        swept = owning_trees(name, lines, trees, added)
        owned = len(swept) < len(trees)
        prepare(checked_out(one, swept[0][2] if owned else base_src), obj,
                lines, seed, build)
        # kbuild re-reads Kconfig when another tree compiles in obj, and
        # the pristine tree's drops a symbol only a series adds: that
        # series compiles first, then the pristine tree (its findings
        # serve only as the baseline)
        mine = {}
        for label, f, src in (swept if owned else []):
            mine[label] = findings(checked_out(one, src), obj, targets, build)
            held(name, obj, lines, label)
        theirs = findings(checked_out(one, base_src), obj, targets, build)
        row = {'config': name, 'seed': seed, 'pristine': len(theirs),
               'prepared_from': swept[0][0] if owned else 'pristine',
               'series': {}}
        for label, f, src in swept:
            if label not in mine:
                mine[label] = findings(checked_out(one, src), obj, targets,
                                       build)
                held(name, obj, lines, label)
            new = staticcheck.new_findings(mine[label], theirs)
            row['series'][label] = {'findings': len(mine[label]),
                                    'new': new}
            failed += bool(new)
            log(f'{"not ok" if new else "ok"} {name} {label}: '
                f'{len(mine[label])} findings ({len(theirs)} in pristine), '
                f'{len(new)} new')
            for line in new:
                print(f'    NEW {line}', flush=True)
        row['seconds'] = round(time.monotonic() - t0, 1)
        record['configs'].append(row)
    return failed, record
