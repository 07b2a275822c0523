#!/usr/bin/env python3
"""sticky.py: build, boot and run the sticky-symlinks flavors.

  sticky.py build [FLAVOR...]        build kernels (all flavors by default)
  sticky.py run FLAVOR -- CMD...     boot FLAVOR and run CMD as the guest job
  sticky.py smoke [FLAVOR...]        boot each flavor, check its knobs at boot
  sticky.py suite [FLAVOR...]        run the shared suite, write results
  sticky.py posted-check             the posted initialiser must not build
                                     with its option unset
  sticky.py stress [FLAVOR...]       -smp 2 follow/rename/chmod/chown/knob
                                     stress (default: the lockdep flavors)
  sticky.py static-check [FLAVOR...] sparse and W=1 on the touched objects,
                                     no finding new against base
  sticky.py import-mbox MBOX DIR     revision DIR from a local mbox
"""

import argparse
import os
import signal
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


def split_job(argv):
    """Splits argv at the first '--': the words after it are the guest job,
    so `run FLAVOR --smp 2 -- CMD -t 8` keeps --smp for the harness and
    -t for CMD (argparse.REMAINDER took every word after FLAVOR)."""
    if '--' not in argv:
        return argv, None
    i = argv.index('--')
    return argv[:i], argv[i + 1:]


def _terminated(signum, frame):
    # SIGTERM unwinds like Ctrl-C, so QEMU (in its own session, which the
    # signal does not reach) is killed and no partial results are kept.
    raise KeyboardInterrupt


def main(argv=None):
    signal.signal(signal.SIGTERM, _terminated)
    # A shell without job control starts background commands with SIGINT
    # ignored, and Python then keeps it ignored: Ctrl-C (or CI's SIGINT)
    # would leave QEMU running. Always turn it into KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    argv, job = split_job(sys.argv[1:] if argv is None else list(argv))
    p = parser()
    args = p.parse_args(argv)
    if job is not None:
        if not hasattr(args, 'job'):
            p.error(f"'--' introduces a guest job, which `{args.cmd}` "
                    f"does not take")
        args.job = args.job + job
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
