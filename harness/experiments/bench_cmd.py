"""sticky.py bench: build and boot figures against their targets."""

from boot.lock import BuildLock
from boot.run import boot
from experiments import bench


def cmd_bench(args):
    # Each step takes the build lock itself: the edit-to-report figure
    # runs the suite and make report as separate commands.
    def boot_one(f):
        with BuildLock(args.build_dir, wait=not args.no_wait):
            return boot(args, f, ['/bin/busybox', 'true'], 'bench', 30)
    rows = bench.run(args, boot_one)
    print('\n'.join(rows), flush=True)
    return 0


def add(sub):
    p = sub.add_parser('bench', help='build and boot figures vs targets')
    p.add_argument('--cold', action='store_true',
                   help='also build the reference flavor, then all the '
                   'default flavors, from nothing (fresh tree, empty '
                   'ccache; about 25 minutes on 2 cores)')
    p.set_defaults(func=cmd_bench)
