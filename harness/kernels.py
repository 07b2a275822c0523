"""Stages that turn flavors into build/<flavor>/bzImage."""

import os

import kbuild
import tree
from stages import log


def build_flavor(flavor, build, top, stages):
    src = tree.worktree(build, flavor, top, stages)
    fdir = os.path.join(build, flavor.name)
    obj = os.path.join(fdir, 'obj')
    with stages.stage('configure', f'Configuring {flavor.name}'):
        if not kbuild.configure(src, obj, flavor.config, build):
            log(f'{flavor.name}: .config inputs unchanged')
    with stages.stage('build', f'Building {flavor.name} in {obj}'):
        kbuild.build(src, obj, os.path.join(fdir, 'bzImage'), build,
                     os.path.join(fdir, 'build.log'))
    return os.path.join(fdir, 'bzImage')
