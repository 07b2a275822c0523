"""Stages that turn flavors into build/<flavor>/bzImage."""

import hashlib
import os
import shutil
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from kernel import kbuild
from kernel import seed
from kernel import tree
from stages import log


def _inputs_key(src, obj):
    """What the image depends on: the applied series and the config inputs
    (both stamped by tree.py and kbuild.py). The trees are derived, never
    edited by hand, so equal stamps mean an equal image."""
    h = hashlib.sha256(repr(sorted(kbuild.FIXED_ENV.items())).encode())
    for path in (src + '.applied', os.path.join(obj, '.config.inputs')):
        with open(path, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()


def seed_objects(flavor, build, src, obj, stages):
    """A missing obj starts as a copy of the closest built flavor's."""
    if not os.path.exists(obj):
        with stages.stage('seed', f'Seeding {flavor.name}\'s objects'):
            seed.seed(build, flavor.name, src, obj,
                      kbuild.config_lines(flavor.config), _inputs_key)


# git am, worktree add and config on the one pristine repository go one
# at a time when build_flavors() builds flavors side by side.
_TREE_LOCK = threading.Lock()


def build_flavor(flavor, build, top, stages, force=False, seeded=True):
    """seeded=False: a first build starts from nothing instead of from a
    copy of the closest built flavor's objects (kernel/seed.py)."""
    with _TREE_LOCK:
        src = tree.worktree(build, flavor, top, stages)
    fdir = os.path.join(build, flavor.name)
    obj = tree.obj_dir(build, flavor.name)
    image = os.path.join(fdir, 'bzImage')
    old = os.path.join(fdir, 'obj')
    if os.path.isdir(old):
        log(f'{flavor.name}: removing {old}, the objects of the layout '
            f'before {obj}')
        shutil.rmtree(old)
    if seeded:
        seed_objects(flavor, build, src, obj, stages)
    with stages.stage('configure', f'Configuring {flavor.name}'):
        if not kbuild.configure(src, obj, flavor.config, build,
                                alike=seed.config_alike(obj)):
            log(f'{flavor.name}: .config inputs unchanged')
    stamp = os.path.join(fdir, 'built.stamp')
    key = _inputs_key(src, obj)
    if not force and os.path.isfile(image) and os.path.isfile(stamp):
        with open(stamp, encoding='utf-8') as f:
            if f.read().strip() == key:
                log(f'{flavor.name}: up to date ({image})')
                return image
    with stages.stage('build', f'Building {flavor.name} in {obj}'):
        kbuild.build(src, obj, image, build,
                     os.path.join(fdir, 'build.log'))
        seed.after_build(src, obj)
    with open(stamp, 'w', encoding='utf-8') as f:
        f.write(key + '\n')
    return image


def _wanted(flavor):
    return {k: v for k, v in kbuild.wanted_symbols(
        kbuild.config_lines(flavor.config)).items() if v != 'n'}


def built_distance(flavor, build):
    """Config symbols between `flavor` and the closest flavor built in
    `build` (what seed.choose() ranks first); None when none is built."""
    found = [seed._distance(_wanted(flavor), seed.symbols(
        os.path.join(obj, 'sticky.config')))
        for _, _, obj in seed.candidates(build, flavor.name, _inputs_key)]
    return min(found, default=None)


def _may_start(f, earlier, running, build):
    """A first build starts when a built flavor can seed it and no
    unfinished flavor before it would be a closer seed; with nothing built,
    the first one goes alone (it starts from nothing)."""
    have = built_distance(f, build)
    if have is None:
        return not running and not earlier
    return all(seed._distance(_wanted(f), _wanted(g)) >= have
               for g in earlier)


def build_flavors(chosen, build, top, stages, jobs=1, **how):
    """Builds `chosen`; returns their images in order, `jobs` at a time.
    Flavors whose objects exist go first (after an edit, mostly a relink:
    one core each). Then the first builds, each once a built flavor can
    seed it and no flavor before it, still unbuilt, would seed it better
    (_may_start)."""
    again = [f for f in chosen if os.path.isdir(tree.obj_dir(build, f.name))]
    images = {}
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        rebuilds = [(f.name, pool.submit(build_flavor, f, build, top,
                                         stages, **how)) for f in again]
    for name, future in rebuilds:
        images[name] = future.result()
    pending = [f for f in chosen if f.name not in images]
    running = {}
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        while pending or running:
            for f in list(pending):
                if len(running) >= max(1, jobs):
                    break
                earlier = [g for g in chosen if g.name in running
                           or (g in pending and pending.index(g)
                               < pending.index(f))]
                if _may_start(f, earlier, running, build):
                    pending.remove(f)
                    running[f.name] = pool.submit(build_flavor, f, build,
                                                  top, stages, **how)
            done, _ = wait(running.values(), return_when=FIRST_COMPLETED)
            for name, future in list(running.items()):
                if future in done:
                    del running[name]
                    images[name] = future.result()
    return [images[f.name] for f in chosen]
