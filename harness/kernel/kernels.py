"""Stages that turn flavors into build/<flavor>/bzImage."""

import hashlib
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

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


def build_flavor(flavor, build, top, stages, force=False, seeded=True):
    """seeded=False: a first build starts from nothing instead of from a
    copy of the closest built flavor's objects (kernel/seed.py)."""
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
        if not kbuild.configure(src, obj, flavor.config, build):
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


def build_flavors(chosen, build, top, stages, jobs=1, **how):
    """Builds `chosen`; returns their images in order. Flavors whose
    objects exist are rebuilt `jobs` at a time (after an edit, mostly a
    relink: one core each). A first build waits for them and goes alone,
    so that it starts from a built flavor's objects (seed_objects)."""
    again = [f for f in chosen if os.path.isdir(tree.obj_dir(build, f.name))]
    images = {}
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        running = [(f.name, pool.submit(build_flavor, f, build, top, stages,
                                        **how)) for f in again]
    for name, future in running:
        images[name] = future.result()
    for f in chosen:
        if f.name not in images:
            images[f.name] = build_flavor(f, build, top, stages, **how)
    return [images[f.name] for f in chosen]
