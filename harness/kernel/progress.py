"""Runs a long command with all its output in a log file and a progress
line on the console every few seconds.

The progress counts the objects in kbuild's quiet output ("  CC      x.o"),
read as make writes it; the log receives every byte, as a plain
redirection would. If the caller is interrupted (Ctrl-C), the command is
stopped before the exception goes on.
"""

import os
import re
import select
import subprocess
import time
from typing import NamedTuple

# kbuild's quiet lines for the steps that make an object, an archive or a
# linked binary ("  CC      init/main.o", "  CC [M]  fs/m.o"). Tools
# (objtool) print the same way.
OBJECT_LINE = re.compile(r'  (?:CC|AS|LD|AR|HOSTCC|HOSTCXX|HOSTLD) +\S')
INTERVAL = 10.0
GRACE = 5.0


class Result(NamedTuple):
    returncode: int
    objects: int
    elapsed: float


def is_object_line(line):
    return OBJECT_LINE.match(line) is not None


def clock_text(secs):
    """0:42, 12:05, 1:02:03."""
    secs = int(secs)
    h, rest = divmod(secs, 3600)
    m, s = divmod(rest, 60)
    return f'{h}:{m:02d}:{s:02d}' if h else f'{m}:{s:02d}'


def _objects(n):
    return f'{n} object' + ('' if n == 1 else 's')


def _say(msg):
    print(msg, flush=True)


class _Counter:
    """Counts object lines in a byte stream cut at arbitrary points."""

    def __init__(self):
        self.count = 0
        self._partial = b''

    def feed(self, chunk):
        lines = (self._partial + chunk).split(b'\n')
        self._partial = lines.pop()
        for line in lines:
            self._line(line)

    def close(self):
        if self._partial:
            self._line(self._partial)
            self._partial = b''

    def _line(self, line):
        if is_object_line(line.decode('utf-8', 'replace')):
            self.count += 1


def _stop(proc, grace):
    """Ends the command: SIGTERM, then SIGKILL if it is still there."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_logged(cmd, logfile, label, *, interval=INTERVAL, say=None,
               grace=GRACE, **popen):
    """Runs cmd with stdout and stderr into logfile (truncated). While it
    runs, says "  <label>: N objects compiled, m:ss elapsed" every
    interval seconds; when it ends, one summary line. Returns a Result;
    the exit status is the command's. say prints a line (default: to
    stdout); popen goes to subprocess.Popen (cwd, env)."""
    say = say or _say
    counter = _Counter()
    start = time.monotonic()
    next_tick = start + interval
    with open(logfile, 'wb') as log_f:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, **popen)
        fd = proc.stdout.fileno()
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        reading = True
        try:
            while True:
                now = time.monotonic()
                if now >= next_tick:
                    say(f'  {label}: {_objects(counter.count)} compiled, '
                        f'{clock_text(now - start)} elapsed')
                    while next_tick <= now:
                        next_tick += interval
                wait = next_tick - now
                if reading:
                    if not poller.poll(wait * 1000):
                        continue
                    chunk = os.read(fd, 65536)
                    if chunk:
                        log_f.write(chunk)
                        log_f.flush()
                        counter.feed(chunk)
                    else:
                        reading = False
                        counter.close()
                else:
                    try:
                        proc.wait(timeout=wait)
                        break
                    except subprocess.TimeoutExpired:
                        pass
        except BaseException:
            _stop(proc, grace)
            raise
        finally:
            proc.stdout.close()
    elapsed = time.monotonic() - start
    done = f'{_objects(counter.count)} in {clock_text(elapsed)}'
    if proc.returncode:
        say(f'{label}: exit status {proc.returncode} after {done}')
    else:
        say(f'{label}: {done}')
    return Result(proc.returncode, counter.count, elapsed)


def log_tail(logfile, lines=25):
    """The last lines of a log, without the progress lines that counted
    objects: what is left is what make and the compiler said."""
    with open(logfile, encoding='utf-8', errors='replace') as f:
        kept = [x for x in f if not is_object_line(x)]
    return ''.join(kept[-lines:])
