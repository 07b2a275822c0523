"""differ/fork.py: the value comes back from a child, its exception is
raised in the caller, and a child that dies without an answer, or no
fork at all, still gives the answer (computed in the caller)."""

import os
import signal
import unittest
from unittest import mock

import support  # noqa: F401  (puts harness/ on the path)
from differ import fork


def where(value):
    return os.getpid(), value


def fails():
    raise ValueError("bad input: a")


def dies_in_child(parent):
    if os.getpid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    return os.getpid()


def unpicklable():
    return lambda: None


class ForkTest(unittest.TestCase):

    def test_value_comes_back_from_a_child(self):
        big = "x" * (1 << 20)     # more than a pipe holds
        child = fork.start(where, big)
        self.assertIsNotNone(child.pid)
        pid, value = child.join()
        self.assertNotEqual(pid, os.getpid())
        self.assertEqual(pid, child.pid)
        self.assertEqual(value, big)

    def test_exception_raised_in_the_caller(self):
        child = fork.start(fails)
        with self.assertRaisesRegex(ValueError, "bad input: a"):
            child.join()

    def test_a_child_killed_leaves_the_work_to_the_caller(self):
        child = fork.start(dies_in_child, os.getpid())
        self.assertIsNotNone(child.pid)
        self.assertEqual(child.join(), os.getpid())

    def test_unpicklable_answer_is_an_error_naming_it(self):
        with self.assertRaisesRegex(RuntimeError, "could not be pickled"):
            fork.start(unpicklable).join()

    def test_serial_when_asked(self):
        with mock.patch.dict(os.environ, {fork.ENV: "0"}):
            child = fork.start(where, 1)
        self.assertIsNone(child.pid)
        self.assertEqual(child.join(), (os.getpid(), 1))

    def test_serial_when_fork_fails(self):
        with mock.patch.object(os, "fork", side_effect=OSError(11, "EAGAIN")):
            child = fork.start(where, 2)
        self.assertIsNone(child.pid)
        self.assertEqual(child.join(), (os.getpid(), 2))


if __name__ == "__main__":
    unittest.main()
