"""Pairwise diffs: grouping by the cause the model names."""

import tempfile
import unittest

import support
from differ import causes
from differ import diff
from differ.load import load_all


def pair_named(title):
    return next(p for p in diff.PAIRS if p.title == title)


class DiffTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        support.write_results(cls.tmp.name)
        cls.files, errors = load_all(cls.tmp.name)
        assert not errors, errors

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def groups(self, title):
        result = diff.diff_pair(pair_named(title), self.files)
        return {c: g.count for c, g in result.differ.items()}, result

    def test_v1_v3_boot_is_default_value(self):
        groups, result = self.groups("v1 vs v3 at boot defaults")
        # protected_symlinks=1 at boot: only the intermediate links differ
        # (inter-B, nsf-inter-B), v1 on and v3 off.
        self.assertEqual(groups, {causes.DEFAULT_VALUE: 2})
        self.assertEqual(result.settings, [("boot", "boot")])

    def test_2010_pair_joins_each_side_at_its_own_default(self):
        title = ("v1 vs v3 as posted in 2010: each at its own default, no"
                 " fs.protected_symlinks")
        groups, result = self.groups(title)
        # v1 on (weak_sticky_symlinks=0), v3 off, mainline's knob 0: every
        # cross-uid follow v1 refuses differs, trailing ones too (core-B,
        # core-root, inter-B, nsf-trail-B, nsf-inter-B), for its default.
        self.assertEqual(result.settings, [("ps0-own1", "ps0-own0")])
        self.assertEqual(groups, {causes.DEFAULT_VALUE: 5})
        self.assertEqual(diff.default_label("base", 0), "ps0-own-")
        self.assertEqual(diff.default_label("v3y", 0), "ps0-own1")

    def test_at_defaults_must_be_ps0_or_ps1(self):
        with tempfile.NamedTemporaryFile("w", suffix=".ini") as f:
            f.write("[x]\na = v1\nb = v3\nat_defaults = 2010\n")
            f.flush()
            with self.assertRaisesRegex(ValueError, "at_defaults = '2010'"):
                diff.load_pairs(f.name)

    def test_v1_v3_both_on_differ_only_in_log_text(self):
        groups, result = self.groups("v1 vs v3 with both protections on")
        self.assertEqual(groups, {})
        same = {c: g.count for c, g in result.same_outcome.items()}
        # The own rule decides: ps0 core-B, core-root, inter-B,
        # nsf-trail-B, nsf-inter-B; ps1 inter-B, nsf-inter-B.
        self.assertEqual(same, {causes.LOG_TEXT: 7})

    def test_v1_hook61_is_porting_artifact(self):
        groups, result = self.groups(
            "v1 vs v1-hook61 (where 6.1 calls the hook)")
        # ps0: trailing and intermediate for B and root (strictatime: atime,
        # nosymfollow: ELOOP); ps1: intermediate only; boot: intermediate.
        self.assertEqual(groups, {causes.ARTIFACT_ATIME_CAUSE: 5,
                                  causes.ARTIFACT_ELOOP_CAUSE: 4})
        self.assertEqual(result.same_outcome, {})

    def test_v3y_v3_is_default_value(self):
        groups, _ = self.groups("v3y vs v3")
        self.assertEqual(groups, {causes.DEFAULT_VALUE: 2})

    def test_v1_nosec_is_config_dependence(self):
        groups, _ = self.groups("v1 vs v1-nosec")
        # boot and ps1-own1: inter-B, nsf-inter-B; ps0-own1: core-B,
        # core-root, inter-B, nsf-trail-B, nsf-inter-B.
        self.assertEqual(groups, {causes.CONFIG_DEP: 9})

    def test_revision_vs_base_separates_knob_off_from_intermediate(self):
        groups, result = self.groups("v3 vs base")
        # ps0-own1: core-B, core-root, nsf-trail-B (trailing, mainline's
        # knob off); inter-B and nsf-inter-B at ps0-own1 and ps1-own1:
        # intermediate (v3 is off at boot).
        self.assertEqual(groups, {causes.MAINLINE_OFF: 3,
                                  causes.INTERMEDIATE: 4})
        self.assertIn(("ps1-own1", "ps1-own-"), result.settings)
        ids = {r.case_id for r in result.differ[causes.MAINLINE_OFF].members}
        self.assertIn(support.SCENARIOS["core-B"]["id"], ids)
        self.assertNotIn(support.SCENARIOS["inter-B"]["id"], ids)
        # ps1-own1: mainline refuses core-B, core-root and nsf-trail-B
        # first in both kernels: nothing differs there.
        self.assertEqual(result.same_outcome, {})

    def test_v1_nosec_vs_base_no_difference(self):
        groups, _ = self.groups("v1-nosec vs base")
        self.assertEqual(groups, {})

    def test_representative_rows_are_few_and_varied(self):
        _, result = self.groups("v1 vs v1-hook61 (where 6.1 calls the hook)")
        group = result.differ[causes.ARTIFACT_ATIME_CAUSE]
        rows = group.rows
        self.assertLessEqual(len(rows), diff.ROWS_PER_GROUP)
        self.assertGreater(len({r.params["position"] for r in rows}), 1)
        # The core case comes first.
        self.assertEqual((rows[0].params["follower"],
                          rows[0].params["position"]), ("B", "trailing"))

    def test_observed_difference_model_cannot_explain(self):
        files = dict(self.files)
        broken = support.result("v3")
        case = support.find_case(broken, "boot", "core-A")
        case["ret"], case["errno"] = -1, "EPERM"
        from differ.load import parse
        import json
        files["v3"] = parse("v3.json", json.dumps(broken), "v3")
        result = diff.diff_pair(pair_named("v3y vs v3"), files)
        self.assertEqual(result.unexplained, 1)

    def test_static_interface_differences(self):
        static = dict((f, (a, b)) for f, a, b in
                      diff.static_differences(pair_named(
                          "v1 vs v3 at boot defaults")))
        self.assertIn("path", static)
        self.assertIn("log_text", static)
        self.assertIn("doc", static)
        self.assertEqual(set(dict(
            (f, 1) for f, _, _ in diff.static_differences(
                pair_named("v3y vs v3")))), {"boot_default", "kconfig"})

    def test_observed_interface_differences(self):
        _, result = self.groups("v1 vs v1-nosec")
        fields = {f: (a, b) for f, a, b in result.observed}
        self.assertEqual(set(fields), {"log text (observed)"})
        self.assertEqual(diff.interface_cause("log text (observed)"),
                         causes.LOG_TEXT)
        _, result = self.groups("v1 vs v3 at boot defaults")
        self.assertIn("knob", {f for f, _, _ in result.observed})


class SymmetryTest(unittest.TestCase):
    """A pair gives the same causes whichever flavor it names first."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        support.write_results(cls.tmp.name)
        cls.files, _ = load_all(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def shape(result, mirrored):
        out = {}
        for kind, groups in (("differ", result.differ),
                             ("same", result.same_outcome)):
            for cause, group in groups.items():
                for row in group.members:
                    labels = (row.setting, row.setting_b)
                    if mirrored:
                        labels = labels[::-1]
                    out[(kind, labels, row.case_id)] = cause
        return out

    def test_mirrored_pairs_agree(self):
        # Every two flavors, not just the report's pairs: v1-nosec vs v3
        # differs in three attributes at once, where the order of the
        # counterfactual steps would show.
        names = support.FLAVORS
        for index, first in enumerate(names):
            for second in names[index + 1:]:
                forward = diff.diff_pair(diff.Pair("f", first, second),
                                         self.files)
                backward = diff.diff_pair(diff.Pair("b", second, first),
                                          self.files)
                self.assertEqual(self.shape(forward, False),
                                 self.shape(backward, True),
                                 (first, second))
                self.assertEqual(forward.joined, backward.joined)

    def test_base_first_pair_works(self):
        result = diff.diff_pair(diff.Pair("base vs v1", "base", "v1"),
                                self.files)
        self.assertIn(("ps0-own-", "ps0-own1"), result.settings)
        self.assertEqual(set(result.differ), {causes.MAINLINE_OFF,
                                              causes.INTERMEDIATE})

    def test_every_label_is_in_the_legend(self):
        diffs, errors = support.every_pair(self.files)
        self.assertEqual(errors, [])
        for result in diffs:
            for group in (list(result.differ.values())
                          + list(result.same_outcome.values())):
                for label in group.causes:
                    self.assertIn(label, causes.CAUSES, result.pair.title)

    def test_extra_flavor_is_compared_with_base(self):
        pairs = diff.pairs_for(["base", "v1", "v1-hook61"])
        self.assertIn(diff.Pair("v1-hook61 vs base", "v1-hook61", "base"),
                      pairs)


class StepsTest(unittest.TestCase):

    def test_steps_reach_target(self):
        from model.rule import config_for
        for a in support.FLAVORS:
            for b in support.FLAVORS:
                ka = support.knobs(a, "boot")
                kb = support.knobs(b, "boot")
                steps = causes.steps(config_for(a, ka), config_for(b, kb),
                                     True)
                end = steps[-1][1] if steps else config_for(a, ka)
                self.assertEqual(end, config_for(b, kb), (a, b))

    def test_stage_steps(self):
        from dataclasses import replace
        from model.flavors import STAGE_BEFORE_MAINLINE
        from model.rule import config_for
        v1 = config_for("v1", support.knobs("v1", "ps0-own1"))
        v3 = config_for("v3", support.knobs("v3", "ps0-own1"))
        hook61 = config_for("v1-hook61", support.knobs("v1", "ps0-own1"))

        def labels(a, b):
            return [label for label, _ in causes.steps(a, b, False)]
        self.assertEqual(labels(v1, v3), [causes.LOG_TEXT])
        self.assertEqual(labels(hook61, v3), [causes._STEP_ARTIFACT,
                                              causes.LOG_TEXT])
        # The first v3 port ran before may_follow_link().
        self.assertEqual(labels(hook61, replace(v3, stage=STAGE_BEFORE_MAINLINE)),
                         [causes._STEP_ARTIFACT, causes.PLACEMENT,
                          causes.LOG_TEXT])


if __name__ == "__main__":
    unittest.main()
