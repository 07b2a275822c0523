"""Builds /init and the initramfs that every boot uses."""

import os
import subprocess

from boot import initramfs
import flavors
import revision
from stages import HarnessError

INIT_SRC = os.path.join(flavors.TOP, 'common', 'init', 'init.c')
CFLAGS = ['-static', '-O2', '-Wall', '-Wextra', '-Werror']


def build_init(build):
    out = os.path.join(build, 'init', 'init')
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.isfile(out) and \
            os.path.getmtime(out) >= os.path.getmtime(INIT_SRC):
        return out
    res = subprocess.run(['gcc', *CFLAGS, '-o', out, INIT_SRC],
                         capture_output=True, text=True)
    if res.returncode:
        raise HarnessError(f'building {INIT_SRC} failed:\n{res.stderr}')
    return out


def build_program(build, name, source):
    """Builds one guest program of common/ into <build>/guest/<name> (a
    no-op when fresh); `source` names it in the error."""
    out = os.path.join(build, 'guest')
    res = subprocess.run(['make', '--no-print-directory', '-C',
                          os.path.join(flavors.TOP, 'common'), f'OUT={out}',
                          os.path.join(out, name)],
                         capture_output=True, text=True)
    if res.returncode:
        raise HarnessError(f'building {source} failed:\n'
                           f'{res.stdout}{res.stderr}')


def guest_programs(build):
    """Every executable in build/guest/, installed as /bin/<name>."""
    d = os.path.join(build, 'guest')
    progs = {}
    if os.path.isdir(d):
        for name in sorted(os.listdir(d)):
            p = os.path.join(d, name)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                progs[f'/bin/{name}'] = p
    return progs


def initrd(build, extra=None):
    progs = guest_programs(build)
    progs.update(extra or {})
    data = {revision.GUEST_KNOBS: flavors.guest_knobs().encode()}
    return initramfs.build(build_init(build), progs,
                           os.path.join(build, 'initramfs.cpio.gz'), data)


def initrd_with(build, files, out):
    """The shared initramfs plus a second archive of data files
    ({guest path: bytes}), written to out (e.g. a flavor's own
    build/<flavor>/initramfs.cpio.gz with its expectations)."""
    return initramfs.append(initrd(build), files, out)
