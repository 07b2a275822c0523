"""A generator run in a forked child while the caller goes on.

The report forks one child before it loads anything (a child forked from
the loaded heap made both processes copy the pages they touched, which
cost more than it saved); the child does its own load and check.  It runs
a generator: every value the generator yields is sent to the caller,
pickled, and received in order with receive(); a `request = yield WAIT`
waits for the caller's send() instead.

Nothing is lost to the child: start() returns None when fork is
unavailable or STICKY_FORK=0 is set, and receive() raises Lost when the
child ended without sending the value (killed, out of memory), so the
caller computes it itself.  An exception raised in the generator is
raised again by receive().
"""

import mmap
import os
import pickle
import struct
import sys
import traceback

ENV = "STICKY_FORK"
WAIT = "differ.fork.WAIT"   # yielded: wait for the caller's next send()
_HEADER = struct.Struct("<Q")


_LIVE = set()       # the caller's ends of its open children's pipes


class Lost(Exception):
    """The child ended, or stopped listening, before the exchange did."""


class Ends:
    """The indices 0..n-1 of one list, taken from the front by the child
    (front()) and from the back by the caller (back()) until they meet,
    so the quicker process does more: the two vCPUs here have run at
    speeds 1.7 x apart.  Made before start(), in memory the fork shares.
    With no lock an index can be taken by both (computed twice), never by
    neither: each stops only where the other has taken."""

    _UNSET = 2 ** 31 - 1

    def __init__(self):
        self._map = mmap.mmap(-1, mmap.PAGESIZE)
        self._at = memoryview(self._map).cast("i")     # [front, back]
        self._at[1] = self._UNSET

    def front(self, n):
        """Generator: the next index of 0..n-1 that back() has not taken."""
        at = self._at
        while True:
            i = at[0]
            if i >= min(at[1], n):
                return
            at[0] = i + 1
            yield i

    def back(self, n):
        """Generator: the indices front() has not taken, from n-1 down."""
        at = self._at
        while True:
            j = min(at[1], n) - 1
            if j < at[0]:
                return
            at[1] = j
            yield j


def _write(stream, value):
    payload = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def _read(stream):
    """The next value, or Lost when the other side ended first."""
    header = stream.read(_HEADER.size)
    if len(header) == _HEADER.size:
        size, = _HEADER.unpack(header)
        payload = stream.read(size)
        if len(payload) == size:
            return pickle.loads(payload)
    raise Lost("the other process ended without sending a value")


class Child:
    """The caller's side of one forked child."""

    def __init__(self, pid, answers, requests):
        self.pid = pid
        self._answers = os.fdopen(answers, "rb")
        self._requests = os.fdopen(requests, "wb")
        self._fds = (answers, requests)
        _LIVE.update(self._fds)

    def receive(self):
        """The next value the child's generator yields."""
        try:
            ok, value = _read(self._answers)
        except Lost:
            self.close()
            raise
        except Exception as err:   # a truncated or corrupt pickle
            self.close()
            raise Lost("the child's answer could not be read: %s" % err)
        if ok:
            return value
        self.close()
        raise value

    def send(self, request):
        """Answer the child's `yield WAIT` with `request`."""
        if self.pid is None:
            raise Lost("the child was closed")
        try:
            _write(self._requests, request)
        except OSError as err:      # it ended: nothing reads the pipe
            self.close()
            raise Lost("the child is gone: %s" % err) from None

    def close(self):
        """Stop the child (it reads the end of its requests, or fails to
        write) and reap it."""
        if self.pid is None:
            return
        for stream in (self._requests, self._answers):
            try:
                stream.close()
            except OSError:
                pass
        _LIVE.difference_update(self._fds)
        os.waitpid(self.pid, 0)
        self.pid = None


def start(function, *args):
    """A Child running the generator function(*args), or None when the
    caller must do the work itself (no fork, or STICKY_FORK=0)."""
    if os.environ.get(ENV) == "0" or not hasattr(os, "fork"):
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    answers = os.pipe()
    requests = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in answers + requests:
            os.close(fd)
        return None
    if pid:
        os.close(answers[1])
        os.close(requests[0])
        return Child(pid, answers[0], requests[1])
    # another live child's pipes, inherited: holding its requests open
    # would keep it from reading their end when its caller closes them
    for fd in _LIVE | {answers[0], requests[1]}:
        os.close(fd)
    status = 0
    try:
        with os.fdopen(answers[1], "wb") as out, \
                os.fdopen(requests[0], "rb") as into:
            _serve(function(*args), out, into)
    except BaseException:   # the caller sees Lost
        status = 1
    finally:
        os._exit(status)


def _serve(generator, out, into):
    """Run the child's generator: send what it yields, answer its WAITs
    with the caller's requests; stop when the caller stops sending."""
    request = None
    while True:
        try:
            value = generator.send(request)
        except StopIteration:
            return
        except Exception as err:    # raised again in the caller
            err.__traceback__ = None
            _answer(out, (False, err))
            return
        request = None
        if value == WAIT:
            try:
                request = _read(into)
            except Lost:
                return
        else:
            _answer(out, (True, value))


def _answer(out, answer):
    try:
        _write(out, answer)
    except (pickle.PicklingError, TypeError, AttributeError):
        _write(out, (False, RuntimeError(
            "the forked child's answer could not be pickled:\n"
            + traceback.format_exc())))
