"""sticky.py bench: build and boot figures against their targets."""

from boot.lock import BuildLock
from boot.run import boot
from experiments import bench


def cmd_bench(args):
    def boot_one(f):
        return boot(args, f, ['/bin/busybox', 'true'], 'bench', 30)
    with BuildLock(args.build_dir, wait=not args.no_wait):
        rows = bench.run(args, boot_one)
    print('\n'.join(rows), flush=True)
    return 0


def add(sub):
    p = sub.add_parser('bench', help='build and boot figures vs targets')
    p.add_argument('--cold', action='store_true',
                   help='also build every flavor from nothing (fresh tree, '
                   'empty ccache; about 15 minutes on 2 cores)')
    p.set_defaults(func=cmd_bench)
