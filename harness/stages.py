"""Timestamped stage lines and an elapsed-time split, as kunit.py prints."""

import os
import threading
import time
from contextlib import contextmanager


# Builds or QEMUs at once (sticky.py build and suite --jobs): one per core,
# at most two.
JOBS = min(2, os.cpu_count() or 1)


class HarnessError(Exception):
    """A failure the user can act on; the message says what and what to do."""


def log(msg):
    stamp = time.strftime('%H:%M:%S')
    print(f'[{stamp}] {msg}', flush=True)


class Stages:
    """Times named stages; the same stage name may run several times."""

    def __init__(self):
        self.elapsed = {}
        self.start = time.monotonic()
        self._lock = threading.Lock()      # kernels.build_flavors' threads

    @contextmanager
    def stage(self, name, what):
        log(what)
        t0 = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                self.elapsed[name] = (self.elapsed.get(name, 0.0)
                                      + time.monotonic() - t0)

    def summary(self):
        total = time.monotonic() - self.start
        parts = ', '.join(f'{secs:.1f}s {name}'
                          for name, secs in self.elapsed.items())
        head = f'Elapsed time: {total:.1f}s total'
        return head + (f', {parts}' if parts else '')


def write_whole(path, write, again='run the command again'):
    """Writes `path` through write(tmp_path) to a temporary name, fsyncs
    and renames it: a full disk or an interrupt leaves the previous file
    whole and no temporary one, and a failure says what is kept and what
    to do (`again`)."""
    tmp = path + '.tmp'
    try:
        write(tmp)
        with open(tmp, 'rb') as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        kept = ('the previous one is kept' if os.path.exists(path)
                else 'there was none before')
        raise HarnessError(f'could not write {path}: {e.strerror or e}; '
                           f'{kept}. Free space under '
                           f'{os.path.dirname(path) or "."} and {again}') \
            from None
