"""Writes the guest initramfs (cpio newc, gzip) without external tools.

Contents: /init (common/init/init.c), /bin/busybox and its /bin/sh link,
every program in build/guest/, and a /dev/console node for early output.
append() adds a second, small archive of data files (the kernel unpacks
concatenated archives), e.g. a flavor's expectations.
"""

import gzip
import io
import os
import stat

from stages import HarnessError

BUSYBOX = '/bin/busybox'


def _header(ino, mode, size, name, rdev=(0, 0), mtime=0):
    fields = [ino, mode, 0, 0, 1, mtime, size, 0, 0, rdev[0], rdev[1],
              len(name) + 1, 0]
    return ('070701' + ''.join(f'{x:08x}' for x in fields)).encode()


class Cpio:
    def __init__(self):
        self.buf = io.BytesIO()
        self.ino = 1

    def _entry(self, name, mode, data=b'', rdev=(0, 0)):
        hdr = _header(self.ino, mode, len(data), name, rdev)
        self.ino += 1
        out = hdr + name.encode() + b'\0'
        out += b'\0' * (-len(out) % 4)
        out += data + b'\0' * (-len(data) % 4)
        self.buf.write(out)

    def dir(self, name, perm=0o755):
        self._entry(name, stat.S_IFDIR | perm)

    def file(self, name, data, perm=0o755):
        self._entry(name, stat.S_IFREG | perm, data)

    def symlink(self, name, target):
        self._entry(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name, major, minor, perm=0o600):
        self._entry(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def finish(self):
        self._entry('TRAILER!!!', 0)
        return self.buf.getvalue()


def _static_check(path):
    with open(path, 'rb') as f:
        data = f.read()
    if not data.startswith(b'\x7fELF'):
        raise HarnessError(f'{path} is not an ELF program')
    if b'/lib64/ld-linux' in data[:4096]:
        raise HarnessError(f'{path} is dynamically linked; guest programs '
                           f'must be built with -static')
    return data


STANDARD_DIRS = ('bin', 'sbin', 'dev', 'proc', 'sys', 'tmp', 'etc', 'mnt')


def build(init, programs, out, data=None, busybox=BUSYBOX):
    """programs: {guest path: host path}; data: {guest path: bytes} of
    plain files (their directories must be made here or be standard).
    Writes out only if it changed."""
    if not os.path.isfile(busybox):
        raise HarnessError(f'{busybox} not found: install it with `apt-get '
                           f'install busybox-static` (or `make deps`)')
    c = Cpio()
    for d in STANDARD_DIRS:
        c.dir(d)
    c.chardev('dev/console', 5, 1)
    c.file('init', _static_check(init))
    c.file('bin/busybox', _static_check(busybox))
    c.symlink('bin/sh', 'busybox')
    for guest, host in sorted(programs.items()):
        c.file(guest.lstrip('/'), _static_check(host))
    _data_files(c, data or {}, set(STANDARD_DIRS))
    data = gzip.compress(c.finish(), compresslevel=6, mtime=0)
    return _write_if_changed(out, data)


def _data_files(c, files, made):
    """Adds files ({guest path: bytes}, mode 0644, or 0755 for a program:
    an ELF or a #! script) to c with the parent directories (0755) not in
    `made`."""
    for guest in sorted(files):
        parts = guest.strip('/').split('/')[:-1]
        for i in range(1, len(parts) + 1):
            d = '/'.join(parts[:i])
            if d not in made:
                made.add(d)
                c.dir(d)
        program = files[guest][:4] == b'\x7fELF' or files[guest][:2] == b'#!'
        c.file(guest.strip('/'), files[guest],
               perm=0o755 if program else 0o644)


def _write_if_changed(out, data):
    if os.path.isfile(out):
        with open(out, 'rb') as f:
            if f.read() == data:
                return out
    os.makedirs(os.path.dirname(out) or '.', exist_ok=True)
    tmp = out + '.tmp'
    with open(tmp, 'wb') as f:
        f.write(data)
    os.replace(tmp, out)
    return out


def append(base, files, out):
    """Writes out: the archive `base` followed by a second gzip'd archive
    of `files` ({guest path: bytes}, mode 0644 or 0755 for a program,
    parent directories 0755). Only if it changed."""
    c = Cpio()
    _data_files(c, files, set())
    with open(base, 'rb') as f:
        data = f.read()
    return _write_if_changed(out, data + gzip.compress(
        c.finish(), compresslevel=6, mtime=0))
