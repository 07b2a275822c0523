"""What the blessed runs (results/expected) must keep showing."""

import os
import unittest

import support  # noqa: F401  (puts harness/ on sys.path)
from differ import causes
from differ import diff
from differ.load import load

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
EXPECTED = os.path.join(TOP, "results", "expected")


def pair(title):
    return next(p for p in diff.PAIRS if p.title == title)


def run(title):
    chosen = pair(title)
    files = {name: load(os.path.join(EXPECTED, name + ".json"), name)
             for name in (chosen.a, chosen.b)}
    result = diff.diff_pair(chosen, files)
    return ({c: g.count for c, g in result.differ.items()},
            {c: g.count for c, g in result.same_outcome.items()})


class CommittedPairsTest(unittest.TestCase):

    def test_v1_and_v3_agree_with_both_protections_on(self):
        # v1's preparatory patch puts its hook where v3's check sits:
        # after may_follow_link(), before nosymfollow and touch_atime().
        differ, same = run("v1 vs v3 with both protections on")
        self.assertEqual(differ, {})
        self.assertEqual(list(same), [causes.LOG_TEXT])

    def test_hook_where_6_1_calls_it_shows_only_the_artifacts(self):
        differ, _ = run("v1 vs v1-hook61 (where 6.1 calls the hook)")
        self.assertEqual(set(differ), {causes.ARTIFACT_ATIME_CAUSE,
                                       causes.ARTIFACT_ELOOP_CAUSE})

    def test_owlsm_differs_from_v1_by_its_rule_variant_only(self):
        # OWLSM asks for the sticky bit alone and answers EPERM; v1 asks
        # for sticky and world-writable and answers EACCES, at one place.
        differ, _ = run("v1 vs owlsm (what Kees changed from OWLSM:"
                        " world-writable added, EACCES)")
        joined = causes.JOIN.join((causes.RULE_BITS, causes.RULE_ERRNO))
        self.assertEqual(set(differ), {causes.RULE_BITS, causes.RULE_ERRNO,
                                       joined})
        self.assertGreater(differ[causes.RULE_ERRNO], 0)


if __name__ == "__main__":
    unittest.main()
