#!/usr/bin/env python3
"""sticky.py: build, boot and run the sticky-symlinks flavors.

  sticky.py build [FLAVOR...]        build kernels (all flavors by default)
  sticky.py run FLAVOR -- CMD...     boot FLAVOR and run CMD as the guest job
  sticky.py smoke [FLAVOR...]        boot each flavor, check its knobs at boot
  sticky.py suite [FLAVOR...]        run the shared suite, write results
  sticky.py posted-check             v3 as posted must not build with =n
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import commands  # noqa: E402
from flavors import TOP  # noqa: E402
from stages import HarnessError  # noqa: E402


def parser():
    p = argparse.ArgumentParser(prog='sticky.py', description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument('--build-dir', default=os.path.join(TOP, 'build'),
                   help='where trees, objects and results go (default: '
                   'build/)')
    p.add_argument('--top', default=TOP, help=argparse.SUPPRESS)
    p.add_argument('--flavors-file', default=None, help=argparse.SUPPRESS)
    p.add_argument('--no-wait', action='store_true',
                   help='refuse instead of waiting when another run holds '
                   'the build directory')
    sub = p.add_subparsers(dest='cmd', required=True)
    commands.add_all(sub)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except HarnessError as e:
        print(f'error: {e}', file=sys.stderr, flush=True)
        return 2
    except KeyboardInterrupt:
        print('error: interrupted; QEMU stopped, no results were kept',
              file=sys.stderr, flush=True)
        return 130


if __name__ == '__main__':
    sys.exit(main())
