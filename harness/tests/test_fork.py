"""differ/fork.py and Analysis.elsewhere(): a child's generator sends its values in order and
answers its WAITs with the caller's requests; its exception is raised in
the caller, a child that ends without a value is Lost (the caller then
computes it), and no fork at all is said by start() returning None."""

import os
import signal
import tempfile
import threading
import time
import unittest
from unittest import mock

import support  # noqa: F401  (puts harness/ on the path)
from differ import fork
from differ.analysis import Analysis


def talks(big):
    """Two values, a request answered, and a value built from it."""
    yield os.getpid(), big
    yield "second"
    request = yield fork.WAIT
    yield "asked %s" % request


def fails_after_one():
    yield 1
    raise ValueError("bad input: a")


def dies_after_one(parent):
    yield 1
    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    yield 2


def unpicklable():
    yield lambda: None


def ends():
    return
    yield       # a generator that yields nothing


def waits(marker):
    yield fork.WAIT
    with open(marker, "w"):     # resumed though the caller sent nothing
        pass
    yield "never asked"


class ForkTest(unittest.TestCase):

    def test_values_in_order_and_a_request_answered(self):
        big = "x\u2265" * (1 << 20)     # more than a pipe holds
        child = fork.start(talks, big)
        self.assertIsNotNone(child)
        pid, value = child.receive()
        self.assertNotEqual(pid, os.getpid())
        self.assertEqual(pid, child.pid)
        self.assertEqual(value, big)
        self.assertEqual(child.receive(), "second")
        child.send(42)
        self.assertEqual(child.receive(), "asked 42")
        child.close()
        self.assertIsNone(child.pid)

    def test_exception_raised_in_the_caller(self):
        child = fork.start(fails_after_one)
        self.assertEqual(child.receive(), 1)
        with self.assertRaisesRegex(ValueError, "bad input: a"):
            child.receive()
        self.assertIsNone(child.pid)        # reaped

    def test_a_child_killed_is_lost(self):
        child = fork.start(dies_after_one, os.getpid())
        self.assertEqual(child.receive(), 1)
        with self.assertRaises(fork.Lost):
            child.receive()
        self.assertIsNone(child.pid)
        with self.assertRaises(fork.Lost):     # nothing reads requests
            child.send("anyone?")

    def test_unpicklable_value_is_an_error_naming_it(self):
        with self.assertRaisesRegex(RuntimeError, "could not be pickled"):
            fork.start(unpicklable).receive()

    def test_close_ends_a_child_waiting_for_a_request(self):
        with tempfile.TemporaryDirectory() as tmp:
            marker = os.path.join(tmp, "resumed")
            child = fork.start(waits, marker)
            pid = child.pid
            child.close()
            with self.assertRaises(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)     # reaped, not left running
            self.assertFalse(os.path.exists(marker))

    def test_close_is_not_held_up_by_a_younger_child(self):
        """A child forked while another lives does not keep the older
        one's requests open: closing the older one ends it."""
        with tempfile.TemporaryDirectory() as tmp:
            older = fork.start(waits, os.path.join(tmp, "older"))
            younger = fork.start(waits, os.path.join(tmp, "younger"))
            closing = threading.Thread(target=older.close)
            closing.start()
            closing.join(10)
            held = closing.is_alive()
            younger.close()         # which ends the older one if it held
            closing.join()
            self.assertFalse(held, "the younger child held the older's "
                             "requests open")
            self.assertEqual(os.listdir(tmp), [])

    def test_a_generator_that_ends_early_is_lost_not_hung(self):
        child = fork.start(ends)
        with self.assertRaises(fork.Lost):
            child.receive()

    def test_none_when_asked(self):
        with mock.patch.dict(os.environ, {fork.ENV: "0"}):
            self.assertIsNone(fork.start(talks, 1))

    def test_none_when_fork_fails(self):
        with mock.patch.object(os, "fork", side_effect=OSError(11, "EAGAIN")):
            self.assertIsNone(fork.start(talks, 2))


def front_of(ends, n, pause):
    """The indices the child took from the front, slowly."""
    taken = []
    for i in ends.front(n):
        taken.append(i)
        time.sleep(pause)
    yield taken


class EndsTest(unittest.TestCase):
    """fork.Ends: the child takes from the front, the caller from the
    back; every index is taken, the quicker side takes more, and an
    index is taken twice at most at the meeting point."""

    def test_in_one_process_each_index_once(self):
        ends = fork.Ends()
        front, back = ends.front(10), ends.back(10)
        order = [next(front), next(back), next(back), next(front)]
        order += list(back)
        self.assertEqual(order, [0, 9, 8, 1, 7, 6, 5, 4, 3, 2])
        self.assertEqual(list(front), [])

    def test_a_side_alone_takes_all(self):
        self.assertEqual(list(fork.Ends().front(5)), [0, 1, 2, 3, 4])
        self.assertEqual(list(fork.Ends().back(5)), [4, 3, 2, 1, 0])
        self.assertEqual(list(fork.Ends().back(0)), [])

    def test_two_processes_share_them(self):
        for pause_child, pause_here in ((0.002, 0.0), (0.0, 0.002)):
            ends, n = fork.Ends(), 400
            child = fork.start(front_of, ends, n, pause_child)
            mine = []
            for j in ends.back(n):
                mine.append(j)
                time.sleep(pause_here)
            theirs = child.receive()
            child.close()
            self.assertEqual(set(mine) | set(theirs), set(range(n)))
            self.assertLessEqual(len(set(mine) & set(theirs)), 1)
            quick, slow = (mine, theirs) if pause_child else (theirs, mine)
            self.assertGreater(len(quick), len(slow))


def serves():
    """The report's child as analysis._child() serves elsewhere()."""
    function, args = yield fork.WAIT
    yield from function(None, *args)


def counts(_analysis, parent):
    """1, 2, 3 ..., the child killed after its first value."""
    yield 1
    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    yield 2
    yield 3


class WorkTest(unittest.TestCase):
    """Analysis.elsewhere(): the values come from the child while it
    lives, then from the caller, in the same order."""

    def test_the_child_then_the_caller(self):
        analysis = Analysis("unused", child=fork.start(serves))
        child = analysis.child
        work = analysis.elsewhere(counts, os.getpid())
        self.assertIsNone(analysis.child)       # handed over once
        self.assertEqual([work.next() for _ in range(3)], [1, 2, 3])
        self.assertIsNone(child.pid)            # lost, and reaped

    def test_no_child(self):
        work = Analysis("unused").elsewhere(counts, os.getpid())
        self.assertEqual([work.next(), work.next()], [1, 2])


if __name__ == "__main__":
    unittest.main()
