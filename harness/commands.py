"""The subcommands of sticky.py."""

import os

import flavors as flv
import kernels
from lock import BuildLock
from stages import Stages, log


def _flavors(args):
    path = args.flavors_file or flv.INI
    return flv.pick(getattr(args, 'flavors', None) or [], path)


def cmd_build(args):
    stages = Stages()
    chosen = _flavors(args)
    with BuildLock(args.build_dir, wait=not args.no_wait):
        for f in chosen:
            img = kernels.build_flavor(f, args.build_dir, args.top, stages)
            log(f'{f.name}: {img}')
    log(stages.summary())
    return 0


def add_all(sub):
    p = sub.add_parser('build', help='build kernels')
    p.add_argument('flavors', nargs='*')
    p.set_defaults(func=cmd_build)
