"""What a flavor's unexplained cases share, as one sentence."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from differ.characterise import characterise, sentence  # noqa: E402
from differ.check import Mismatch  # noqa: E402


def cases():
    """Every combination of three followers, two ops, two positions and
    two settings."""
    return [(s, {"follower": f, "op": o, "position": p, "fs": "tmpfs"})
            for s in ("ps0-own1", "ps1-own1") for f in ("root", "A", "B")
            for o in ("open", "stat") for p in ("trail", "inter")]


def bad(select):
    return [Mismatch("v3", s, "id", (0, "0"), "x", p)
            for s, p in cases() if select(s, p)]


class CharacteriseTest(unittest.TestCase):
    def test_one_value_explains_a_regression(self):
        wrong = bad(lambda s, p: p["follower"] == "root")
        values, matching, shared = characterise(cases(), wrong)
        self.assertEqual(values, [("follower", "root")])
        self.assertEqual((matching, shared), (8, 8))
        self.assertEqual(
            sentence("v3", cases(), wrong),
            "v3: 8 unexplained case(s) share follower=root (all 8; 8 of "
            "the flavor's 24 cases have these values)")

    def test_two_values_when_one_is_not_enough(self):
        wrong = bad(lambda s, p: p["follower"] == "root"
                    and p["position"] == "inter")
        values, matching, _ = characterise(cases(), wrong)
        self.assertEqual(sorted(values), [("follower", "root"),
                                          ("position", "inter")])
        self.assertEqual(matching, 4)

    def test_values_every_case_has_are_not_named(self):
        wrong = bad(lambda s, p: p["op"] == "stat")
        values, _, _ = characterise(cases(), wrong)
        self.assertNotIn(("fs", "tmpfs"), values)
        self.assertEqual(values, [("op", "stat")])

    def test_most_when_none_is_shared_by_all(self):
        wrong = bad(lambda s, p: p["follower"] == "root")
        wrong += bad(lambda s, p: p["follower"] == "A" and p["op"] == "open"
                     and p["position"] == "trail" and s == "ps0-own1")
        values, _, shared = characterise(cases(), wrong)
        self.assertEqual(values, [("follower", "root")])
        self.assertEqual(shared, 8)
        self.assertIn("(8 of 9;", sentence("v3", cases(), wrong))

    def test_nothing_to_say(self):
        self.assertEqual(characterise(cases(), []), ([], 0, 0))
        wrong = bad(lambda s, p: True)
        self.assertIn("share no parameter value that sets them apart",
                      sentence("v3", cases(), wrong))


if __name__ == '__main__':
    unittest.main()
