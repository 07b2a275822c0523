"""One harness run at a time per build directory."""

import fcntl
import os
import sys

from stages import log


class BuildLock:
    def __init__(self, build, wait=True):
        self.path = os.path.join(build, '.lock')
        self.wait = wait
        self.fd = None

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 64, 0).decode(errors='replace').strip()
            if not self.wait:
                os.close(self.fd)
                print(f'error: another run (pid {holder or "?"}) holds '
                      f'{self.path}; try again when it ends', file=sys.stderr)
                sys.exit(3)
            log(f'Waiting for another run (pid {holder or "?"}) holding '
                f'{self.path}')
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f'{os.getpid()}\n'.encode(), 0)
        return self

    def __exit__(self, *exc):
        os.ftruncate(self.fd, 0)
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        return False
