"""The direct control predicted from modes, owners and ids; the recorded
control as a self-check; which cases can see a follow at all.

The expected results below are written by hand from 6.1's permission
rules (generic_permission(), may_open(), notify_change(), vfs_truncate(),
do_linkat(), do_open_execat(), access_override_creds()) and the fixture
of common/suite/fixture.c, not produced by the predictor.
"""

import copy
import io
import json
import os
import tempfile
import unittest

import support
from differ import causes
from differ import diff
from model import followtest
from differ.check import check_file
from stickydiff.cli import main
from model.control import (ControlError, control_problem,
                                predict_control)
from differ.load import load_all, parse
from model.rule import (CONTROL, STICKY_DELETE, config_for, predict)

EXPECTED = os.path.join(os.path.dirname(support.HARNESS), "results",
                        "expected")

# follower -> (ruid, fsuid); gids are the same numbers (common/lib/matrix.c).
IDS = {"root": (0, 0), "A": (1000, 1000), "B": (1001, 1001),
       "euid0-fsuidA": (0, 1000), "euidA-fsuid0": (1000, 0),
       "setuid-fsuidA": (1000, 1000)}


def params(op, target="file-A", follower="B", position="trailing"):
    ruid, fsuid = IDS[follower]
    return {"op": op, "target": target, "follower": follower,
            "position": position, "ruid": ruid, "rgid": ruid,
            "fsuid": fsuid, "fsgid": fsuid}


def text(control):
    return "ok" if control == (0, "0") else control[1]


# (op, target, follower, position, expected control)
TABLE = (
    ("open_rdonly", "file-root", "B", "trailing", "ok"),
    ("open_rdonly", "file-root-0600", "A", "trailing", "EACCES"),
    ("open_rdonly", "file-root-0600", "root", "trailing", "ok"),
    ("open_rdonly", "file-A-0600", "A", "trailing", "ok"),
    # the owner class decides for the owner, though the group may read
    ("open_rdonly", "file-A-0060", "A", "trailing", "EACCES"),
    # capabilities follow fsuid, not euid
    ("open_rdonly", "file-root-0600", "euidA-fsuid0", "trailing", "ok"),
    ("open_rdonly", "file-root-0600", "setuid-fsuidA", "trailing", "EACCES"),
    ("open_rdonly", "file-root-0600", "euid0-fsuidA", "trailing", "EACCES"),
    ("open_rdonly", "dangling", "B", "trailing", "ENOENT"),
    ("open_rdonly", "dir", "B", "trailing", "ok"),
    ("open_wronly", "dir", "root", "trailing", "EISDIR"),
    ("open_wronly", "file-root-0644", "B", "trailing", "EACCES"),
    ("open_rdwr", "file-A", "B", "trailing", "ok"),
    ("open_rdwr", "file-A-0644", "root", "trailing", "ok"),
    ("open_creat", "dangling", "B", "trailing", "ok"),
    ("open_creat", "dir", "B", "trailing", "EISDIR"),
    ("open_creat", "file-A-0644", "B", "trailing", "EACCES"),
    ("open_creat_excl", "dir", "B", "intermediate", "EEXIST"),
    ("open_path", "file-root-0600", "B", "trailing", "ok"),
    ("open_path", "dangling", "B", "trailing", "ENOENT"),
    ("open_directory", "file-A", "B", "trailing", "ENOTDIR"),
    ("open_directory", "dir", "B", "trailing", "ok"),
    ("openat2_no_symlinks", "file-A", "B", "trailing", "ok"),
    ("stat", "file-root-0600", "B", "trailing", "ok"),
    ("stat", "dangling", "B", "trailing", "ENOENT"),
    # access(2): real ids, every capability only for real uid 0
    ("access", "file-root-0600", "euid0-fsuidA", "trailing", "ok"),
    ("faccessat_eaccess", "file-root-0600", "euid0-fsuidA", "trailing",
     "EACCES"),
    ("access", "file-root-0600", "euidA-fsuid0", "trailing", "EACCES"),
    ("faccessat_eaccess", "file-root-0600", "euidA-fsuid0", "trailing",
     "ok"),
    ("chdir", "dir", "B", "trailing", "ok"),
    ("chdir", "file-A", "B", "trailing", "ENOTDIR"),
    ("chdir", "dir-root-0700", "B", "trailing", "EACCES"),
    ("chdir", "dir-root-0700", "root", "trailing", "ok"),
    ("truncate", "file-A", "B", "trailing", "ok"),
    ("truncate", "file-A-0644", "B", "trailing", "EACCES"),
    ("truncate", "dir", "root", "trailing", "EISDIR"),
    # chmod: owner or CAP_FOWNER; write permission is not enough
    ("chmod", "file-A", "A", "trailing", "ok"),
    ("chmod", "file-A", "B", "trailing", "EPERM"),
    ("chmod", "file-A", "euidA-fsuid0", "trailing", "ok"),
    ("chmod", "file-B", "setuid-fsuidA", "trailing", "EPERM"),
    # chown to the target's own uid: its owner or CAP_CHOWN
    ("chown", "file-A", "A", "trailing", "ok"),
    ("chown", "file-A", "B", "trailing", "EPERM"),
    ("chown", "file-root", "A", "trailing", "EPERM"),
    ("chown", "file-B", "euidA-fsuid0", "trailing", "ok"),
    # utimensat(NULL): owner, CAP_FOWNER or write permission
    ("utimensat", "file-A", "B", "trailing", "ok"),
    ("utimensat", "file-A-0644", "B", "trailing", "EACCES"),
    ("utimensat", "file-A-0444", "A", "trailing", "ok"),
    ("linkat_follow", "file-A", "B", "trailing", "ok"),
    ("linkat_follow", "dir", "root", "trailing", "EPERM"),
    ("linkat_follow", "dangling", "B", "trailing", "ENOENT"),
    ("execve", "script-A", "B", "trailing", "ok"),
    ("execve", "file-root", "root", "trailing", "EACCES"),
    ("execve", "file-root-0755", "B", "trailing", "ENOEXEC"),
    ("execve", "dir", "root", "trailing", "EACCES"),
    # the path goes through the link into dir: the op acts on dir/f
    ("open_rdonly", "dir", "B", "intermediate", "ok"),
    ("open_wronly", "dir", "B", "chain-inter", "ok"),
    ("open_rdonly", "file-root", "B", "intermediate", "ENOTDIR"),
    ("open_rdonly", "dangling", "B", "intermediate", "ENOENT"),
    ("open_nofollow", "dir", "B", "intermediate", "ok"),
    ("open_rdonly", "file-A", "B", "dotdot", "ok"),
    ("chmod", "dir", "B", "dotdot", "EPERM"),
    ("chmod", "dir", "root", "dotdot", "ok"),
    ("readlink", "dir", "B", "intermediate", "EINVAL"),
)


class ControlPredictorTest(unittest.TestCase):

    def test_table(self):
        for op, target, follower, position, want in TABLE:
            with self.subTest(op=op, target=target, follower=follower,
                              position=position):
                got = predict_control(params(op, target, follower,
                                             position))
                self.assertEqual(text(got), want)

    def test_no_control_where_the_path_names_the_link(self):
        for op in ("unlink", "rename", "lstat", "readlink",
                   "open_nofollow", "open_creat_excl"):
            for position in ("trailing", "chain", "subdir-ns"):
                self.assertIsNone(predict_control(params(op, position=
                                                         position)), op)

    def test_protected_hardlinks(self):
        def link(target, follower):
            return text(predict_control(params("linkat_follow", target,
                                               follower),
                                        protected_hardlinks=1))
        self.assertEqual(link("file-A", "B"), "ok")        # safe source
        self.assertEqual(link("file-A-0644", "B"), "EPERM")
        self.assertEqual(link("file-A-0644", "A"), "ok")   # its owner
        self.assertEqual(link("file-root-4666", "B"), "EPERM")
        self.assertEqual(text(predict_control(params(
            "linkat_follow", "file-A-0644", "B"))), "ok")  # knob 0

    def test_unknown_target_is_an_error(self):
        with self.assertRaises(ControlError):
            predict_control(params("stat", "pipe-A"))


class IndependenceTest(unittest.TestCase):
    """The model predicts an allowed follow without the recorded
    control: no observation of the same run goes into a prediction."""

    def test_recorded_control_is_not_read(self):
        config = config_for("v3y", support.knobs("v3y", "boot"))
        for control in ((-1, "EACCES"), (0, "0"), None):
            record = copy.deepcopy(support.SCENARIOS["core-A"])
            record["control_ret"], record["control_errno"] = \
                control or (None, None)
            pred = predict(record, config)
            self.assertEqual(pred.outcome(), (0, "0", True), control)
            self.assertEqual(pred.decider, CONTROL)

    def test_denied_target_is_predicted_not_copied(self):
        record = copy.deepcopy(support.SCENARIOS["ctrl-A"])
        record["control_ret"], record["control_errno"] = 0, "0"
        config = config_for("v3", support.knobs("v3", "boot"))
        self.assertEqual(predict(record, config).outcome(),
                         (-1, "EACCES", True))


class LinkSelfTest(unittest.TestCase):
    """Sticky deletion: the link's owner, the directory's owner or
    CAP_FOWNER (fsuid 0) may remove a name from a sticky directory."""

    def outcome(self, op, dir_owner, link_owner, follower):
        record = support.case(dir_owner=dir_owner, link_owner=link_owner,
                              follower=follower, op=op, follows=False,
                              control=None)
        config = config_for("v3", support.knobs("v3", "ps0-own1"))
        return predict(record, config)

    def test_directory_owner_may_unlink_and_rename(self):
        for op in ("unlink", "rename"):
            self.assertEqual(self.outcome(op, "A", "B", "A").errno, "0", op)
            self.assertEqual(self.outcome(op, "A", "B", "B").errno, "0", op)
            self.assertEqual(self.outcome(op, "A", "B", "root").errno, "0",
                             op)
            pred = self.outcome(op, "A", "root", "B")
            self.assertEqual((pred.errno, pred.decider),
                             ("EPERM", STICKY_DELETE), op)


def checked(flavor, mutate=None, scenarios=None):
    data = support.result(flavor, scenarios)
    if mutate:
        mutate(data)
    return check_file(parse(flavor + ".json", json.dumps(data), flavor))


def set_case(data, setting, scenario, outcome=None, control=None):
    record = support.find_case(data, setting, scenario)
    if outcome is not None:
        record["ret"], record["errno"], record["atime_changed"] = outcome
    if control is not None:
        record["control_ret"], record["control_errno"] = control
    return record


class SelfCheckTest(unittest.TestCase):
    """A recorded control unlike the predicted one is an error."""

    def test_follower_refused_its_own_link_and_the_control(self):
        # v3y at boot: A follows its own link in root's 1777 dir, which
        # every rule allows; this kernel refuses the follow and the
        # control alike.  Before, the model copied the control and called
        # the atime-touched variant explained.
        for atime in (True, False):
            with self.subTest(atime=atime):
                result = checked("v3y", lambda d: set_case(
                    d, "boot", "core-A", (-1, "EACCES", atime),
                    (-1, "EACCES")))
                cid = support.SCENARIOS["core-A"]["id"]
                self.assertFalse(result.ok)
                self.assertIn(("boot", cid), [(m.setting, m.case_id)
                                              for m in result.unexplained])
                self.assertEqual([(e.setting, e.case_id)
                                  for e in result.control_errors],
                                 [("boot", cid)])
                self.assertIn("control observed EACCES, predicted ok",
                              result.control_errors[0].describe())
                self.assertEqual(result.explained, result.cases - 1)

    def test_control_error_is_never_explained(self):
        # The follow is refused as predicted, but the control was
        # refused too: the case is an error, not explained.
        result = checked("v3y", lambda d: set_case(
            d, "boot", "core-B", control=(-1, "EACCES")))
        self.assertFalse(result.ok)
        self.assertEqual(result.unexplained, [])
        self.assertEqual(len(result.control_errors), 1)
        self.assertEqual(result.explained, result.cases - 1)

    def test_missing_and_extra_controls(self):
        def mutate(data):
            set_case(data, "boot", "core-A")["control_ret"] = None
            set_case(data, "boot", "unlink-B", control=(0, "0"))
        result = checked("v3", mutate)
        problems = sorted(e.problem for e in result.control_errors)
        self.assertEqual(problems, [
            "control observed none (no control run), predicted ok",
            "control observed ok, predicted none (no control run)"])

    def test_fixtures_pass_the_self_check(self):
        for flavor in support.FLAVORS:
            result = checked(flavor)
            self.assertEqual(result.control_errors, [], flavor)
            self.assertTrue(result.ok, flavor)

    def test_check_command_fails_on_a_control_error_alone(self):
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, ("v3y",), lambda f, d: set_case(
                d, "boot", "core-B", control=(-1, "EACCES")))
            out = io.StringIO()
            code = main(["check", "--results", tmp], out)
        self.assertEqual(code, 1, out.getvalue())
        self.assertIn("1 control self-check error(s)", out.getvalue())
        self.assertIn("control observed EACCES, predicted ok",
                      out.getvalue())


class FollowTestTest(unittest.TestCase):

    def judge(self, record, flavor, setting):
        return followtest.judge(record, config_for(
            flavor, support.knobs(flavor, setting)))

    def scenario(self, name, flavor, setting):
        return self.judge(support.SCENARIOS[name], flavor, setting)

    def test_no_link_followed(self):
        self.assertEqual(self.scenario("unlink-B", "v3", "boot"),
                         (False, followtest.NO_LINK))

    def test_search_refused_before_the_link(self):
        self.assertEqual(self.scenario("search-B", "v3y", "ps0-own1"),
                         (False, followtest.SEARCH_FIRST))

    def test_search_after_the_first_link_still_tests_it(self):
        record = support.case(
            dir_mode="1770", dir_owner="A", position="chain-1ns",
            links=[support.link("0777", "root", "A"),
                   support.link("1770", "A", "A")],
            search=[{"mode": "1770", "owner": "A", "gid": 1000}])
        self.assertEqual(self.judge(record, "v3", "ps0-own1"), (True, None))

    def test_non_owner_chmod_shows_the_follow(self):
        # EPERM with or without the link only when the follow is
        # allowed; a refused follow fails the walk with EACCES first
        # (and keeps the link's atime).
        record = support.case(op="chmod", target="file-A", follower="B",
                              control=(-1, "EPERM"))
        self.assertEqual(self.judge(record, "v3y", "boot"), (True, None))
        config = config_for("v3y", support.knobs("v3y", "ps0-own1"))
        self.assertEqual(predict(record, config).outcome(),
                         (-1, "EACCES", False))
        config = config_for("v3y", support.knobs("v3y", "ps0-own0"))
        self.assertEqual(predict(record, config).outcome(),
                         (-1, "EPERM", True))

    def test_rule_after_atime_before_a_refused_target(self):
        # v1-hook61 refuses after touch_atime(): EACCES with the atime
        # touched either way when DAC refuses the target too.
        self.assertEqual(self.scenario("ctrl-A", "v1-hook61", "ps0-own1"),
                         (False, followtest.LOOKS_ALLOWED))
        # mainline's may_follow_link() refuses before touch_atime()
        self.assertEqual(self.scenario("ctrl-A", "v1-hook61", "ps1-own1"),
                         (True, None))
        self.assertEqual(self.scenario("ctrl-A", "v3", "ps0-own1"),
                         (True, None))

    def test_rule_after_the_nosymfollow_test(self):
        self.assertEqual(self.scenario("nsf-inter-B", "v1-hook61",
                                       "ps0-own1"),
                         (False, followtest.LOOKS_ALLOWED))
        self.assertEqual(self.scenario("nsf-inter-B", "v1", "ps0-own1"),
                         (True, None))

    def test_follow_tests_are_typical(self):
        for name in ("core-B", "core-A", "inter-B", "nsf-trail-B",
                     "dirown-B", "nosticky-root"):
            for flavor in ("base", "v3"):
                setting = support.settings_of(flavor)[1]
                self.assertEqual(self.scenario(name, flavor, setting),
                                 (True, None), (name, flavor))

    def test_check_counts_and_flags(self):
        result = checked("v1-hook61")
        not_follow = sum(result.not_follow.values())
        self.assertEqual(result.follow_tests + not_follow, result.cases)
        self.assertEqual(result.not_follow[(followtest.NO_LINK, "unlink")],
                         5)
        self.assertEqual(result.not_follow[(followtest.SEARCH_FIRST,
                                            "open_rdonly")], 5)
        # Where v1's hook is on (boot, ps0-own1, ps1-own1): nsf-inter-B
        # in all three; ctrl-A and nsf-trail-B only in ps0-own1, since
        # mainline refuses a trailing link before touch_atime() and the
        # nosymfollow test when fs.protected_symlinks is 1.
        self.assertEqual(result.not_follow[(followtest.LOOKS_ALLOWED,
                                            "open_rdonly")], 3 + 1 + 1)
        flags = {key: pred.follow_test
                 for key, pred in result.predictions.items()}
        self.assertFalse(flags[("boot", support.SCENARIOS["unlink-B"]["id"])])
        self.assertTrue(flags[("boot", support.SCENARIOS["core-B"]["id"])])


class ControlDiffersTest(unittest.TestCase):
    """Two runs whose controls differ: a difference of the runs."""

    def test_attribute_blames_the_recorded_controls(self):
        # inter-B at boot: v3y refuses the intermediate link, v3 not.
        case_a = copy.deepcopy(support.SCENARIOS["inter-B"])
        case_b = copy.deepcopy(case_a)
        case_b["control_ret"], case_b["control_errno"] = -1, "EACCES"
        config_a = config_for("v3", support.knobs("v3", "boot"))
        config_b = config_for("v3y", support.knobs("v3y", "boot"))
        outcome, _ = causes.attribute(case_a, config_a, case_b, config_b,
                                      True)
        self.assertEqual(outcome, [causes.DEFAULT_VALUE,
                                   causes.CONTROL_DIFFERS])
        same, _ = causes.attribute(case_a, config_a, copy.deepcopy(case_a),
                                   config_b, True)
        self.assertEqual(same, [causes.DEFAULT_VALUE])

    def test_diff_groups_a_control_difference(self):
        with tempfile.TemporaryDirectory() as tmp:
            support.write_results(tmp, ("v3", "v3y"), lambda f, d: (
                f == "v3y" and set_case(d, "boot", "inter-B",
                                        control=(-1, "EACCES"))))
            files, errors = load_all(tmp)
        self.assertEqual(errors, [])
        pair = next(p for p in diff.PAIRS if p.title == "v3y vs v3")
        groups = diff.diff_pair(pair, files).differ
        [group] = [g for g in groups.values()
                   if causes.CONTROL_DIFFERS in g.causes]
        self.assertEqual(group.cause, causes.JOIN.join(
            [causes.DEFAULT_VALUE, causes.CONTROL_DIFFERS]))
        self.assertEqual(group.count, 1)
        self.assertEqual(group.members[0].case_id,
                         support.SCENARIOS["inter-B"]["id"])


@unittest.skipUnless(os.path.isdir(EXPECTED), "no committed results")
class CommittedControlsTest(unittest.TestCase):
    """Every control of the committed run is the predicted one."""

    def test_every_committed_control_is_predicted(self):
        files, errors = load_all(EXPECTED)
        self.assertEqual(errors, [])
        self.assertTrue(files)
        for flavor, result in files.items():
            recorded = 0
            for key, case in result.cases.items():
                self.assertIsNone(control_problem(case), (flavor, key))
                recorded += case["control_ret"] is not None
            self.assertGreater(recorded, 0.8 * len(result.cases), flavor)


if __name__ == "__main__":
    unittest.main()
