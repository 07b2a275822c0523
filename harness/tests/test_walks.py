"""rule.Walks: the differ's memo of predict() across pairs."""

import unittest
from dataclasses import fields, replace
from unittest import mock

import support
from support import case
from model import rule
from model.rule import Prediction, Walks, config_for, predict

V1 = config_for("v1", support.knobs("v1", "ps0-own1"))
GRSEC = config_for("grsec", {"protected_symlinks": 0,
                             "kernel_grsecurity_linking_restrictions": 1})


class WalksTest(unittest.TestCase):
    def test_the_same_as_predict(self):
        walks = Walks()
        for config in (V1, GRSEC):
            for c in (case(), case(dir_mode="1755"), case(follower="A")):
                self.assertEqual(walks(c, config), predict(c, config))

    def test_rules_that_differ_in_name_only_walk_once(self):
        self.assertNotEqual(V1.rules, GRSEC.rules)
        self.assertEqual(V1.probed, GRSEC.probed)
        walks, c = Walks(), case()
        with mock.patch.object(rule, "predict", wraps=rule.predict) as spy:
            first, second = walks(c, V1), walks(c, GRSEC)
        self.assertEqual(spy.call_count, 1)
        self.assertEqual((first.log, second.log), ("v1", "grsec"))
        self.assertEqual(second.outcome(), first.outcome())

    def test_predictions_made_elsewhere_are_used(self):
        made = predict(case(), V1)
        walks = Walks(known=lambda c, config: made)
        with mock.patch.object(rule, "predict") as spy:
            got = walks(case(), GRSEC)
        spy.assert_not_called()
        self.assertEqual((got.decider, got.log), (made.decider, "grsec"))

    def test_other_params_under_one_id_are_predicted_afresh(self):
        walks, c = Walks(), case()
        walks(c, V1)
        moved = dict(case(dir_mode="1755"), id=c["id"])
        self.assertNotEqual(predict(moved, V1), predict(c, V1))
        self.assertEqual(walks(moved, V1), predict(moved, V1))


class PredictionCopyTest(unittest.TestCase):
    def test_copies_keep_every_other_field(self):
        every = Prediction(**{f.name: ("set", f.name)
                              for f in fields(Prediction)})
        self.assertEqual(every.judged(True, "why"),
                         replace(every, follow_test=True, not_follow="why"))
        self.assertEqual(every.logged_by("v3"), replace(every, log="v3"))


if __name__ == "__main__":
    unittest.main()
