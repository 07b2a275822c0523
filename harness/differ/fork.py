"""One function run in a forked child while the caller goes on.

The report's analysis forks one child before it loads anything (a child
forked from the loaded heap made both processes copy the pages they
touched, which cost more than it saved); the child does its own load and
check and sends back what it computed, pickled.

Nothing is lost to the child: when fork is unavailable, STICKY_FORK=0 is
set, or the child ends without an answer (killed, out of memory), the
function runs in the caller at join(), so it must be safe to run twice.
"""

import os
import pickle
import sys
import traceback

ENV = "STICKY_FORK"


class _Serial:
    def __init__(self, function, args):
        self.function, self.args = function, args
        self.pid = None

    def join(self):
        return self.function(*self.args)


class _Child(_Serial):
    def __init__(self, function, args, pid, reader):
        super().__init__(function, args)
        self.pid, self._reader = pid, reader

    def join(self):
        with os.fdopen(self._reader, "rb") as stream:
            payload = stream.read()
        os.waitpid(self.pid, 0)
        try:
            ok, value = pickle.loads(payload)
        except Exception:       # no answer: killed, or died writing it
            return self.function(*self.args)
        if ok:
            return value
        raise value


def start(function, *args):
    """function(*args) in a forked child; the returned object's join()
    waits for it and returns its value or raises its exception."""
    if os.environ.get(ENV) == "0" or not hasattr(os, "fork"):
        return _Serial(function, args)
    sys.stdout.flush()
    sys.stderr.flush()
    reader, writer = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(reader)
        os.close(writer)
        return _Serial(function, args)
    if pid:
        os.close(writer)
        return _Child(function, args, pid, reader)
    os.close(reader)
    status = 0
    try:
        try:
            answer = (True, function(*args))
        except Exception as err:    # raised again in the caller
            err.__traceback__ = None
            answer = (False, err)
        try:
            payload = pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
        except Exception:
            payload = pickle.dumps((False, RuntimeError(
                "the forked child's answer could not be pickled:\n"
                + traceback.format_exc())))
        with os.fdopen(writer, "wb") as stream:
            stream.write(payload)
    except BaseException:
        status = 1
    finally:
        os._exit(status)
