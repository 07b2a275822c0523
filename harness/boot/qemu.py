"""Boots one kernel under QEMU and returns a classified verdict.

The console (ttyS0) is read live from QEMU's stdout and saved; the result
channel (ttyS1) goes to a file, and so does the job's KTAP document
(ttyS2, gzip'd in the guest; unpacked to ktap.txt when the job wrote one:
the console then has its top level only); the job's exit status comes back as QEMU's
exit status through isa-debug-exit: (status << 1) | 1. Every boot has a
hard timeout, and QEMU never outlives the call, Ctrl-C included.
"""

import os
import re
import selectors
import shutil
import signal
import subprocess
import threading
import time
import zlib
from dataclasses import dataclass, field

from stages import HarnessError

QEMU = 'qemu-system-x86_64'
QBOOT = '/usr/share/qemu/qboot.rom'

# Console lines that mean the kernel itself went wrong, whatever the job said.
SPLATS = [
    ('panic', re.compile(r'Kernel panic - not syncing')),
    ('oops', re.compile(r'\bOops\b|general protection fault')),
    ('kasan', re.compile(r'\bBUG: KASAN: ')),
    ('bug', re.compile(r'\bBUG: |kernel BUG at')),
    ('warning', re.compile(r'WARNING: (CPU: |at )|\[ cut here \]')),
    ('lockdep', re.compile(r'possible (recursive|circular) locking|'
                           r'inconsistent lock state|'
                           r'suspicious RCU usage|INFO: lockdep')),
    ('sleep-in-atomic', re.compile(r'sleeping function called from invalid '
                                   r'context|scheduling while atomic')),
    ('rcu-stall', re.compile(r'rcu: INFO: .*detected stalls|'
                             r'self-detected stall')),
    ('hung-task', re.compile(r'blocked for more than \d+ seconds')),
    ('ubsan', re.compile(r'\bUBSAN: ')),
]



@dataclass
class Boot:
    kernel: str
    initrd: str
    job: list
    logdir: str
    timeout: float = 60.0
    smp: int = 1
    memory: str = '256M'
    kvm: bool = False
    icount: str = ''
    append: str = ''
    echo: object = None          # callable(line) for live console lines


@dataclass
class Outcome:
    verdict: str
    status: int = None           # the job's exit status, when known
    qemu_rc: int = None
    seconds: float = 0.0
    console: str = ''
    results: str = ''
    ktap: str = ''               # the job's whole KTAP: ktap.txt or console
    splats: list = field(default_factory=list)
    excerpt: str = ''
    reason: str = ''

    def line(self):
        where = f'console: {self.console}'
        why = f' ({self.reason})' if self.reason else ''
        return f'{self.verdict}{why} in {self.seconds:.1f}s; {where}'


def job_words(job):
    """The job as kernel command line words. The kernel splits at blanks
    unless a word is in double quotes (it strips them before init sees
    the word), and ends init's arguments at a bare '--'."""
    words = []
    for w in job:
        if '"' in w or '\n' in w or w == '--' or not w:
            raise HarnessError(f'guest job word {w!r} cannot pass through '
                               f'the kernel command line (no double '
                               f'quotes, newlines, empty words or a bare '
                               f'--)')
        words.append(f'"{w}"' if any(c.isspace() for c in w) else w)
    return ' '.join(words)


def qemu_argv(b, console_pipe=True):
    if not shutil.which(QEMU):
        raise HarnessError(f'{QEMU} not found: install it with `apt-get '
                           f'install --no-install-recommends qemu-system-x86`'
                           f' (or `make deps`)')
    for path, what in ((b.kernel, 'kernel image'), (b.initrd, 'initramfs')):
        if not os.path.isfile(path):
            raise HarnessError(f'{what} {path} not found: build it first '
                               f'(`make kernels`)')
    results = os.path.join(b.logdir, 'results.jsonl')
    ktap_gz = os.path.join(b.logdir, 'ktap.gz')
    # audit=1: mainline's AUDIT_ANOM_LINK records reach the kernel log.
    append = ('console=ttyS0 panic=-1 loglevel=7 printk.devkmsg=on audit=1 '
              f'{b.append} -- {job_words(b.job)}').strip()
    argv = [QEMU, '-M', 'pc', '-m', b.memory, '-smp', str(b.smp),
            '-nodefaults', '-display', 'none', '-no-reboot',
            '-serial', 'stdio' if console_pipe else 'null',
            '-serial', f'file:{results}',
            '-serial', f'file:{ktap_gz}',
            '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
            '-kernel', b.kernel, '-initrd', b.initrd, '-append', append]
    if os.path.isfile(QBOOT):
        argv[3:3] = ['-bios', QBOOT]
    if b.kvm:
        argv += ['-accel', 'kvm']
    else:
        argv += ['-accel', 'tcg']
    if b.icount:
        argv += ['-icount', b.icount]
    return argv


# QEMUs started by run() and not yet reaped: several boots may run at once
# in threads (sticky.py suite --jobs), and the main thread stops them all.
_live = set()
_live_lock = threading.Lock()


def stop_all():
    """Kills every QEMU that run() started and has not reaped (the main
    thread's answer to Ctrl-C while boots run in other threads)."""
    with _live_lock:
        procs = list(_live)
    for proc in procs:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kill(proc):
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()


def classify(console_text, qemu_rc, timed_out, started):
    """Turns what a boot left behind into (verdict, status, splats)."""
    splats = sorted({name for name, rx in SPLATS
                     if rx.search(console_text)})
    status = None
    if qemu_rc is not None and qemu_rc > 0 and qemu_rc & 1:
        status = qemu_rc >> 1
    if not started and not timed_out:
        return 'qemu-failed', status, splats
    if 'panic' in splats:
        return 'panic', status, splats
    if timed_out:
        return 'hang', status, splats
    if splats:
        return 'splat', status, splats
    if status is None:
        return 'no-verdict', status, splats
    return ('passed' if status == 0 else 'failed'), status, splats


def excerpt(text, splats, lines=25):
    rows = text.splitlines()
    for name, rx in SPLATS:
        if name in splats:
            for i, row in enumerate(rows):
                if rx.search(row):
                    return '\n'.join(rows[max(0, i - 5):i + lines])
    return '\n'.join(rows[-lines:])


def unpack_ktap(logdir, console):
    """ktap.txt from the guest's gzip'd KTAP channel, as far as it goes (a
    guest that died mid-stream leaves a truncated one); its path, or the
    console's when the job wrote no KTAP there."""
    src, dst = (os.path.join(logdir, n) for n in ('ktap.gz', 'ktap.txt'))
    try:
        with open(src, 'rb') as f:
            raw = f.read()
    except OSError:
        return console
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        text = d.decompress(raw)
    except zlib.error:
        text = b''
    if not text:
        return console
    with open(dst, 'wb') as f:
        f.write(text)
    return dst


def run(b):
    os.makedirs(b.logdir, exist_ok=True)
    console = os.path.join(b.logdir, 'console.log')
    results = os.path.join(b.logdir, 'results.jsonl')
    for path in (console, results, os.path.join(b.logdir, 'ktap.gz'),
                 os.path.join(b.logdir, 'ktap.txt')):
        if os.path.exists(path):
            os.unlink(path)
    argv = qemu_argv(b)
    with open(os.path.join(b.logdir, 'qemu.cmd'), 'w',
              encoding='utf-8') as f:
        f.write(' '.join(argv) + '\n')
    t0 = time.monotonic()
    timed_out = False
    err = b''
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as e:
        return Outcome('qemu-failed', console=console, results=results,
                       reason=str(e))
    with _live_lock:
        _live.add(proc)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    pending = b''
    open_streams = 2
    ended = False
    try:
        with open(console, 'wb') as out:
            while open_streams:
                left = b.timeout - (time.monotonic() - t0)
                if left <= 0:
                    timed_out = True
                    break
                for key, _ in sel.select(timeout=min(left, 0.5)):
                    chunk = os.read(key.fileobj.fileno(), 65536)
                    if not chunk:
                        sel.unregister(key.fileobj)
                        open_streams -= 1
                        continue
                    if key.fileobj is proc.stderr:
                        err += chunk
                        continue
                    out.write(chunk)
                    out.flush()
                    if b.echo:
                        pending += chunk
                        *done, pending = pending.split(b'\n')
                        for row in done:
                            b.echo(row.decode(errors='replace').rstrip('\r'))
        ended = not timed_out
    finally:
        # Give QEMU time to exit by itself only when its output ended; on
        # Ctrl-C or any error kill it at once, and kill it even if a
        # second Ctrl-C cuts the wait short.
        try:
            if ended and proc.poll() is None:
                proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        finally:
            _kill(proc)
            sel.close()
            with _live_lock:
                _live.discard(proc)
    seconds = time.monotonic() - t0
    with open(console, encoding='utf-8', errors='replace') as f:
        text = f.read()
    # QEMU's own errors exit with 1, which isa-debug-exit also yields for
    # status 0: a real boot always prints something on the console.
    started = bool(text)
    verdict, status, splats = classify(text, None if timed_out else
                                       proc.returncode, timed_out, started)
    reason = ''
    if verdict == 'qemu-failed':
        reason = err.decode(errors='replace').strip() or \
            f'QEMU exited with {proc.returncode} before any console output'
    elif verdict == 'hang':
        reason = f'no end within the {b.timeout:.0f}s timeout' + \
            ('' if text else ', and no console output at all')
    elif verdict == 'no-verdict' and proc.returncode < 0:
        reason = (f'QEMU was killed by {signal.Signals(-proc.returncode).name}'
                  f' from outside the harness before the guest ended; the '
                  f'results of this boot are lost, earlier ones are kept: '
                  f'run the command again')
    elif verdict == 'no-verdict':
        reason = (f'QEMU exited with {proc.returncode} without an '
                  f'isa-debug-exit status')
    elif splats:
        reason = ', '.join(splats)
    return Outcome(verdict, status, None if timed_out else proc.returncode,
                   seconds, console, results, unpack_ktap(b.logdir, console),
                   splats, excerpt(text, splats), reason)
