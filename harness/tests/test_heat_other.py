"""The heatmap says which refusals are not a symlink rule's."""

import os
import sys
import unittest
from types import SimpleNamespace as NS

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from differ.load import ResultFile  # noqa: E402
from report import pictures  # noqa: E402


def case(ret):
    return {"params": {"op": "open_rdonly", "follows": True,
                       "mount": "strictatime", "position": "trailing"},
            "control_ret": 0, "ret": ret}


class OtherRefusalsTest(unittest.TestCase):
    def test_refusals_by_other_deciders_are_counted_per_row(self):
        cases = {("ps0-own-", "a"): case(-1), ("ps0-own-", "b"): case(-1),
                 ("ps0-own-", "c"): case(-1), ("ps1-own-", "a"): case(-1),
                 ("ps1-own-", "d"): case(0)}
        deciders = {("ps0-own-", "a"): "DAC search",
                    ("ps0-own-", "b"): "DAC search",
                    ("ps0-own-", "c"): "mainline protected_symlinks",
                    ("ps1-own-", "a"): "DAC search",
                    ("ps1-own-", "d"): "DAC search"}
        files = {"base": ResultFile("base.json", "base", {}, cases)}
        checks = {"base": NS(predictions={k: NS(decider=d)
                                          for k, d in deciders.items()})}
        self.assertEqual(pictures.other_refusals(files, checks),
                         {"DAC search": 2})

    def test_only_rule_refusals_give_nothing(self):
        files = {"v1": ResultFile("v1.json", "v1", {},
                                  {("s", "a"): case(-1)})}
        checks = {"v1": NS(predictions={("s", "a"): NS(decider="own rule")})}
        self.assertEqual(pictures.other_refusals(files, checks), {})


if __name__ == '__main__':
    unittest.main()
