"""Booting a flavor for a command: its kernel, KVM or TCG, the log
directory, the outcome line; and the options every booting command takes."""

import os

import flavors as flv
from boot import guest
from boot import qemu
from stages import HarnessError, log


def chosen_flavors(args):
    path = args.flavors_file or flv.INI
    return flv.pick(getattr(args, 'flavors', None) or [], path,
                    getattr(args, 'top', None))


def kernel_image(args, name):
    img = os.path.join(args.build_dir, name, 'bzImage')
    if not os.path.isfile(img):
        raise HarnessError(f'{img} not found: build it with `make kernel '
                           f'FLAVOR={name}`')
    return img


KVM_PROBE_TIMEOUT = 15


def use_kvm(args, flavor):
    """--kvm asks for KVM; it is used only if a probe boot under KVM ends
    with a verdict in time (guests have been seen to hang under KVM here).
    The answer is kept for the rest of the run."""
    if not getattr(args, 'kvm', False):
        return False
    if getattr(args, 'kvm_ok', None) is None:
        b = qemu.Boot(kernel=kernel_image(args, flavor.name),
                      initrd=guest.initrd(args.build_dir),
                      job=['/bin/busybox', 'true'],
                      logdir=os.path.join(args.build_dir, 'logs',
                                          'kvm-probe'),
                      timeout=KVM_PROBE_TIMEOUT, kvm=True)
        if not os.access('/dev/kvm', os.R_OK | os.W_OK):
            args.kvm_ok, why = False, '/dev/kvm is not usable'
        else:
            out = qemu.run(b)
            args.kvm_ok, why = out.verdict == 'passed', out.line()
        log(f'KVM probe: {"ok" if args.kvm_ok else "failed"} ({why}); '
            f'using {"KVM" if args.kvm_ok else "TCG"}')
    return args.kvm_ok


def boot(args, flavor, job, tag, timeout, echo=None, smp=1, icount='',
         initrd=None):
    b = qemu.Boot(kernel=kernel_image(args, flavor.name),
                  initrd=initrd or guest.initrd(args.build_dir), job=job,
                  logdir=os.path.join(args.build_dir, 'logs',
                                      f'{flavor.name}-{tag}'),
                  timeout=timeout, smp=smp, kvm=use_kvm(args, flavor),
                  icount=icount, echo=echo)
    return qemu.run(b)


def failures(chosen, one):
    """Runs one(flavor) for each flavor, True when it passed; a
    HarnessError fails that flavor, named, and the next one runs. Returns
    how many failed."""
    failed = 0
    for f in chosen:
        try:
            ok = one(f)
        except HarnessError as e:
            log(f'not ok {f.name}: {e}')
            ok = False
        failed += not ok
    return failed


def report_outcome(name, out):
    log(f'{name}: {out.line()}')
    if out.verdict not in ('passed', 'failed'):
        print(f'--- console excerpt ({out.console}) ---\n{out.excerpt}\n---',
              flush=True)


def add_boot_opts(p, timeout):
    p.add_argument('--timeout', type=float, default=timeout,
                   help=f'hard limit per boot in seconds (default {timeout})')
    p.add_argument('--kvm', action='store_true',
                   help='use KVM (after a probe boot); TCG otherwise')
    p.add_argument('--console', action='store_true',
                   help='echo the whole guest console')
