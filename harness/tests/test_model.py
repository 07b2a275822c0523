"""The rule model against hand-written observations and single rules."""

import copy
import unittest

import support
from model import rule as model
from model.flavors import STAGE_AFTER_MAINLINE
from model.rule import Config, config_for, predict


def predicted(name, flavor, setting):
    config = config_for(flavor, support.knobs(flavor, setting))
    return predict(support.SCENARIOS[name], config)


class TruthTableTest(unittest.TestCase):
    """Every scenario, flavor and setting of the hand-written table."""

    def test_truth_table(self):
        for name in support.TRUTH:
            for flavor in support.FLAVORS:
                for setting in support.settings_of(flavor):
                    with self.subTest(case=name, flavor=flavor,
                                      setting=setting):
                        want = support.observed(name, flavor, setting)
                        got = predicted(name, flavor, setting).outcome()
                        self.assertTrue(model.outcomes_agree(want, got),
                                        "%r != %r" % (want, got))


class RuleTest(unittest.TestCase):

    def test_sticky_rule_needs_sticky_and_world_writable(self):
        for mode, denied in (("1777", True), ("1776", True),
                             ("0777", False), ("1775", False)):
            link = support.link(dir_mode=mode)
            self.assertEqual(model.sticky_denies(link, 1001), denied, mode)

    def test_sticky_rule_owner_and_dir_owner_exemptions(self):
        self.assertFalse(model.sticky_denies(support.link(owner="B"), 1001))
        self.assertFalse(model.sticky_denies(
            support.link(dir_owner="A", owner="A"), 1001))
        self.assertTrue(model.sticky_denies(support.link(), 0))

    def test_mainline_checks_trailing_only(self):
        self.assertEqual(predicted("inter-B", "base", "ps1-own-").errno, "0")
        self.assertEqual(predicted("core-B", "base", "ps1-own-").decider,
                         model.MAINLINE)

    def test_v1_runs_after_mainline(self):
        pred = predicted("core-B", "v1", "ps1-own1")
        self.assertEqual(pred.decider, model.MAINLINE)
        self.assertIsNone(pred.log)

    def test_v3_runs_after_mainline(self):
        # Mainline refuses the trailing link first and audits it.
        pred = predicted("core-B", "v3", "ps1-own1")
        self.assertEqual(pred.decider, model.MAINLINE)
        self.assertIsNone(pred.log)
        self.assertFalse(pred.atime)

    def test_v3_decides_intermediate_links_and_logs(self):
        pred = predicted("inter-B", "v3", "ps1-own1")
        self.assertEqual(pred.decider, model.OWN)
        self.assertEqual(pred.log, "v3")

    def test_v1_nosec_never_applies(self):
        for setting in support.OWN_SETTINGS:
            pred = predicted("inter-B", "v1-nosec", setting)
            self.assertEqual(pred.errno, "0", setting)

    def test_v3y_defaults_on_v3_off(self):
        self.assertEqual(predicted("inter-B", "v3y", "boot").errno, "EACCES")
        self.assertEqual(predicted("inter-B", "v3", "boot").errno, "0")

    def test_v1_polarity_weak_zero_protects(self):
        on = config_for("v1", {"protected_symlinks": 0,
                               "weak_sticky_symlinks": 0})
        off = config_for("v1", {"protected_symlinks": 0,
                                "weak_sticky_symlinks": 1})
        self.assertTrue(on.own_active)
        self.assertFalse(off.own_active)


class ArtifactTest(unittest.TestCase):

    def test_hook61_eloop_before_hook_is_labelled(self):
        pred = predicted("nsf-inter-B", "v1-hook61", "ps1-own1")
        self.assertEqual(pred.errno, "ELOOP")
        self.assertIn(model.ARTIFACT_ELOOP, pred.artifacts)

    def test_hook61_denied_follow_touches_atime_and_is_labelled(self):
        pred = predicted("core-B", "v1-hook61", "ps0-own1")
        self.assertEqual((pred.errno, pred.atime), ("EACCES", True))
        self.assertIn(model.ARTIFACT_ATIME, pred.artifacts)

    def test_v1_with_its_preparatory_patch_has_no_artifact(self):
        # Same outcomes as v3 whenever both protections are set alike.
        for name in ("core-B", "inter-B", "nsf-trail-B", "nsf-inter-B"):
            for setting in support.OWN_SETTINGS[1:]:
                pred = predicted(name, "v1", setting)
                self.assertEqual(pred.artifacts, (), (name, setting))
                self.assertEqual(pred.outcome(), predicted(
                    name, "v3", setting).outcome(), (name, setting))

    def test_2010_placement_has_no_artifact(self):
        config = Config(mainline=False, own="v1", own_on=True,
                        compiled=True, stage=STAGE_AFTER_MAINLINE)
        pred = predict(support.SCENARIOS["nsf-inter-B"], config)
        self.assertEqual((pred.errno, pred.atime), ("EACCES", False))
        self.assertEqual(pred.artifacts, ())

    def test_no_artifact_when_rule_would_allow(self):
        pred = predicted("core-A", "v1", "ps0-own1")
        self.assertEqual(pred.artifacts, ())

    def test_resolve_no_symlinks_like_nosymfollow(self):
        record = copy.deepcopy(support.SCENARIOS["inter-B"])
        record["params"]["op"] = "openat2_no_symlinks"
        config = config_for("v1-hook61", support.knobs("v1", "ps1-own1"))
        self.assertEqual(predict(record, config).errno, "ELOOP")
        for flavor in ("v1", "v3"):
            config = config_for(flavor, support.knobs(flavor, "ps1-own1"))
            self.assertEqual(predict(record, config).errno, "EACCES")


class DacTest(unittest.TestCase):

    def test_search_denied_before_link(self):
        pred = predicted("search-B", "v3", "ps1-own1")
        self.assertEqual((pred.errno, pred.decider, pred.atime),
                         ("EACCES", model.DAC_SEARCH, False))

    def test_root_bypasses_search(self):
        record = copy.deepcopy(support.SCENARIOS["search-B"])
        record["params"].update(fsuid=0, fsgid=0, follower="root")
        config = config_for("base", support.knobs("base", "ps1-own-"))
        self.assertEqual(predict(record, config).errno, "0")

    def test_search_after_link(self):
        record = copy.deepcopy(support.SCENARIOS["inter-B"])
        record["params"]["search"] = [{"mode": "0700", "owner": "A",
                                       "gid": 1000, "after_links": 1}]
        config = config_for("base", support.knobs("base", "ps1-own-"))
        pred = predict(record, config)
        self.assertEqual((pred.errno, pred.atime), ("EACCES", True))

    def test_search_dir_holding_second_link(self):
        # chain-1ns: the first link lies in a 0777 dir, the second in the
        # unsearchable sticky-axis dir, searched after the first is
        # followed (and its atime touched).
        record = support.case(
            dir_mode="1770", dir_owner="A", position="chain-1ns",
            links=[support.link("0777", "root", "A"),
                   support.link("1770", "A", "A")],
            search=[{"mode": "1770", "owner": "A", "gid": 1000}])
        config = config_for("v3", support.knobs("v3", "ps1-own1"))
        pred = predict(record, config)
        self.assertEqual((pred.errno, pred.decider, pred.atime),
                         ("EACCES", model.DAC_SEARCH, True))

    def test_sticky_deletion(self):
        record = support.SCENARIOS["unlink-B"]
        config = config_for("v3", support.knobs("v3", "boot"))
        self.assertEqual(predict(record, config).errno, "EPERM")
        for who in ("A", "root"):
            other = copy.deepcopy(record)
            other["params"]["fsuid"] = support.UID[who]
            other["params"]["fsgid"] = support.UID[who]
            self.assertEqual(predict(other, config).errno, "0", who)

    def test_unlink_needs_write(self):
        record = copy.deepcopy(support.SCENARIOS["unlink-B"])
        record["params"]["dir_mode"] = "1775"
        config = config_for("v3", support.knobs("v3", "boot"))
        self.assertEqual(predict(record, config).errno, "EACCES")

    def test_readlink_touches_atime(self):
        record = copy.deepcopy(support.SCENARIOS["unlink-B"])
        record["params"]["op"] = "readlink"
        config = config_for("v1", support.knobs("v1", "boot"))
        self.assertEqual(predict(record, config).outcome(), (0, "0", True))

    def test_control_failure_after_follow(self):
        pred = predicted("ctrl-A", "v3y", "boot")
        self.assertEqual(pred.outcome(), (-1, "EACCES", True))
        self.assertEqual(pred.decider, model.CONTROL)

    def test_missing_control_is_not_needed(self):
        # The model predicts the op on the target itself (control.py);
        # a record without its control is still predicted.
        record = copy.deepcopy(support.SCENARIOS["core-A"])
        record["control_ret"] = record["control_errno"] = None
        config = config_for("v3", support.knobs("v3", "boot"))
        self.assertEqual(predict(record, config).outcome(), (0, "0", True))

    def test_unmodelled_target_is_model_error(self):
        record = copy.deepcopy(support.SCENARIOS["core-A"])
        record["params"]["target"] = "fifo-A"
        config = config_for("v3", support.knobs("v3", "boot"))
        with self.assertRaises(model.ModelError):
            predict(record, config)


if __name__ == "__main__":
    unittest.main()


class RealIdTest(unittest.TestCase):
    """access(2) walks as the real uid; faccessat(AT_EACCESS) as fsuid."""

    def setting(self, op, ruid, fsuid):
        c = support.case(follower="A", op=op)
        c["params"].update(ruid=ruid, fsuid=fsuid, fsgid=fsuid)
        config = config_for("v3y", support.knobs("v3y", "ps0-own1"))
        return predict(c, config)

    def test_access_uses_real_uid(self):
        # Link owned by A in root's 1777 dir: fsuid A may follow, ruid 0 not.
        self.assertEqual(self.setting("access", 0, 1000).errno, "EACCES")
        self.assertEqual(self.setting("access", 1000, 0).errno, "0")

    def test_eaccess_uses_fsuid(self):
        self.assertEqual(self.setting("faccessat_eaccess", 0, 1000).errno,
                         "0")
        self.assertEqual(self.setting("faccessat_eaccess", 1000, 0).errno,
                         "EACCES")
