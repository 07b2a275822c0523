"""Case params rebuilt from case ids (model/cases.py).

Checked three ways: against hand-written records from common/lib/layout.c,
against the committed results of a real run (the model must explain
every one of their cases with the rebuilt params, and compact -> full ->
compact must give the file back), and, where one is present, against a
full result file of a real run in build/results.
"""

import json
import os
import unittest

import support
from model import cases as caseids
from differ import regress
from differ.check import check_file
from differ.load import LoadError, parse

TOP = os.path.dirname(support.HARNESS)
EXPECTED = os.path.join(TOP, "results", "expected")
RUN = os.path.join(TOP, "build", "results")
FLAVORS = ("base", "v1", "v1-nosec", "v3", "v3y")


def link(mode, owner, link_owner, kind):
    return {"dir_mode": mode, "dir_owner": owner,
            "dir_gid": support.UID[owner], "owner": link_owner,
            "kind": kind}


class ByHandTest(unittest.TestCase):
    """Records written from common/lib/layout.c and runner.c by hand."""

    def test_documented_example(self):
        # docs/result-format.md, "Case record".
        params = caseids.params_of(
            "m/d1777-root/lA/tfile-root/fB/trail/open_rdonly")
        self.assertEqual(
            {k: params[k] for k in ("dir_mode", "dir_owner", "link_owner",
                                    "target", "follower", "ruid", "euid",
                                    "fsuid", "position", "op", "mount")},
            {"dir_mode": "1777", "dir_owner": "root", "link_owner": "A",
             "target": "file-root", "follower": "B", "ruid": 1001,
             "euid": 1001, "fsuid": 1001, "position": "trailing",
             "op": "open_rdonly", "mount": "strictatime"})
        self.assertEqual(params["links"],
                         [link("1777", "root", "A", "trailing")])
        self.assertEqual(params["search"], [])
        self.assertTrue(params["follows"])

    def test_chain_1ns_first_link_in_ns(self):
        params = caseids.params_of(
            "p/d1777-A/lB/tfile-root/froot/chain1ns/open_rdonly")
        self.assertEqual(params["links"], [
            link("0777", "root", "B", "trailing"),
            link("1777", "A", "B", "trailing")])

    def test_chain_2ns_second_link_in_ns(self):
        params = caseids.params_of(
            "p/d1777-A/lB/tfile-root/froot/chain2ns/open_rdonly")
        self.assertEqual([lk["dir_mode"] for lk in params["links"]],
                         ["1777", "0777"])

    def test_subdir_is_0777_of_the_dir_owner(self):
        params = caseids.params_of(
            "p/d1770-A/lroot/tfile-root/fB/sub/open_rdonly")
        self.assertEqual(params["links"], [link("0777", "A", "root",
                                                "trailing")])
        self.assertEqual(params["search"],
                         [{"mode": "1770", "owner": "A", "gid": 1000}])

    def test_nofollow_keeps_only_leading_intermediate_links(self):
        inter = caseids.params_of(
            "p/d1777-root/lA/tdir/fB/chaininter/open_nofollow")
        self.assertEqual([lk["kind"] for lk in inter["links"]],
                         ["intermediate", "intermediate"])
        trail = caseids.params_of("o/d1777-root/lA/tfile-A/fB/trail/unlink")
        self.assertEqual(trail["links"], [])
        self.assertFalse(trail["follows"])
        self.assertFalse(caseids.has_control(
            "o/d1777-root/lA/tfile-A/fB/trail/unlink"))
        self.assertTrue(caseids.has_control(
            "p/d1777-root/lA/tdir/fB/inter/open_nofollow"))

    def test_identities_and_mount(self):
        params = caseids.params_of(
            "n/d0777-root/lA/tfile-root/fsetuid-fsuidA/trail/stat")
        self.assertEqual((params["ruid"], params["euid"], params["suid"],
                          params["fsuid"], params["fsgid"]),
                         (1000, 0, 0, 1000, 1000))
        self.assertEqual(params["mount"], "nosymfollow")

    def test_outcome_strings(self):
        self.assertEqual(caseids.parse_outcome("EACCES a1 c:ok"),
                         (-1, "EACCES", True, 0, "0"))
        self.assertEqual(caseids.parse_outcome("ok a- c:-"),
                         (0, "0", None, None, None))
        self.assertEqual(caseids.parse_outcome("STATUS2 a0 c:ENOENT"),
                         (-1, "STATUS2", False, -1, "ENOENT"))

    def test_bad_ids_and_outcomes_refused(self):
        for bad in ("m/d1777-root/lA/tfile-root/fB/trail",
                    "x/d1777-root/lA/tfile-root/fB/trail/open_rdonly",
                    "m/d1777-root/lC/tfile-root/fB/trail/open_rdonly",
                    "m/d1777-root/lA/tfile-root/fB/sideways/open_rdonly",
                    "m/d1777-root/lA/tfile-root/fB/trail/open_sesame"):
            with self.assertRaises(caseids.CaseIdError, msg=bad):
                caseids.split_id(bad)
        with self.assertRaises(caseids.CaseIdError):
            caseids.parse_outcome("EACCES c:ok")

    def test_loader_names_the_file(self):
        text = json.dumps({"flavor": "v3", "facts": {}, "settings": {},
                           "cases": {"m/bad": {"boot": "ok a0 c:ok"}},
                           "sysctl": [], "log": [], "errors": [],
                           "status": 0})
        with self.assertRaises(LoadError) as err:
            parse("exp/v3.json", text, "v3")
        self.assertIn("exp/v3.json", str(err.exception))
        self.assertIn("m/bad", str(err.exception))


@unittest.skipUnless(all(os.path.exists(os.path.join(EXPECTED, f + ".json"))
                         for f in FLAVORS), "no committed results")
class CommittedRunTest(unittest.TestCase):
    """The committed results are a real run: with the rebuilt params the
    model must explain every case, and the compact form must survive the
    round trip."""

    @classmethod
    def setUpClass(cls):
        cls.data, cls.files = {}, {}
        for flavor in FLAVORS:
            path = os.path.join(EXPECTED, flavor + ".json")
            with open(path, encoding="utf-8") as stream:
                text = stream.read()
            cls.data[flavor] = json.loads(text)
            cls.files[flavor] = parse(path, text, flavor)

    def test_model_explains_every_committed_case(self):
        for flavor, result in self.files.items():
            check = check_file(result)
            self.assertGreater(check.cases, 0)
            self.assertEqual([m.describe() for m in check.unexplained[:3]],
                             [], flavor)

    def test_round_trip_gives_the_file_back(self):
        for flavor, result in self.files.items():
            self.assertEqual(regress.expected_form(result.data),
                             self.data[flavor], flavor)

    def test_control_presence_follows_the_layout(self):
        for flavor, result in self.files.items():
            for (_setting, cid), case in result.cases.items():
                self.assertEqual(case["control_ret"] is not None,
                                 caseids.has_control(cid), cid)


def _run_files():
    found = []
    for flavor in FLAVORS:
        path = os.path.join(RUN, flavor + ".json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as stream:
                data = json.load(stream)
            if isinstance(data.get("cases"), list):
                found.append((flavor, data))
    return found


@unittest.skipUnless(_run_files(), "no full result file in build/results"
                     " (run `make suite`): compared with the committed"
                     " run only")
class RealRunTest(unittest.TestCase):
    """Every params object the suite wrote equals the one rebuilt from
    its id (the suite's read-back ids included)."""

    def test_params_equal_the_suite_records(self):
        for flavor, data in _run_files():
            for case in data["cases"]:
                rebuilt = caseids.params_of(case["id"])
                self.assertEqual(rebuilt, case["params"],
                                 "%s %s %s" % (flavor, case["setting"],
                                               case["id"]))
                self.assertEqual(caseids.split_id(case["id"])["group"],
                                 case["group"])


if __name__ == "__main__":
    unittest.main()
