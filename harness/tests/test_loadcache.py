"""The load cache: a file loaded through it gives what a parse of it gives,
and a changed file, a changed entry or a cache that cannot be written
never changes a result."""

import json
import os
import tempfile
import unittest
from unittest import mock

import support  # noqa: F401  (puts harness/ on sys.path)

from differ import load, loadcache
from model import cases as caseids

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
EXPECTED = os.path.join(TOP, "results", "expected", "v1.json")


def full_form(count=400):
    """The committed v1 file's first cases written out as a run writes
    them: params in full, some with control_shared, one whose params are
    not its id's."""
    with open(EXPECTED, encoding="utf-8") as stream:
        data = caseids.expand(json.load(stream))
    cases = [dict(case, params=json.loads(json.dumps(case["params"])))
             for case in data["cases"][:count]]
    for case in cases[::7]:
        case["control_shared"] = True
    cases[5]["params"]["egid"] = 4242
    data["cases"] = cases
    return data


class LoadCacheTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.write(full_form())

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, data):
        with open(os.path.join(self.dir, "v1.json"), "w",
                  encoding="utf-8") as stream:
            json.dump(data, stream, indent=1, sort_keys=True)

    def entries(self):
        where = os.path.join(self.dir, loadcache.DIRECTORY)
        return sorted(os.listdir(where)) if os.path.isdir(where) else []

    def assert_same(self, got, want):
        self.assertEqual(got.data, want.data)
        self.assertEqual(list(got.cases), list(want.cases))
        self.assertEqual(got.cases, want.cases)

    def test_a_second_reader_reads_and_leaves_the_cache(self):
        """load_all(keep=False), the report's child: hits the entries
        there are, writes none and removes none."""
        files, _ = load.load_all(self.dir, keep=False)
        self.assertEqual(self.entries(), [])
        self.assertIsNone(files["v1"].cache_key)
        digest = files["v1"].digest
        self.assertTrue(digest)
        load.load_all(self.dir)
        self.assertEqual(self.entries(), [digest])
        stale = os.path.join(self.dir, loadcache.DIRECTORY, "old.json")
        with open(stale, "w", encoding="utf-8") as stream:
            stream.write("{}")
        with mock.patch.object(loadcache, "write") as write:
            again, _ = load.load_all(self.dir, keep=False)
        write.assert_not_called()
        self.assertEqual(self.entries(), sorted([digest, "old.json"]))
        self.assertEqual(again["v1"].cache_key, digest)
        self.assert_same(again["v1"], files["v1"])

    def test_a_hit_gives_what_a_parse_gives(self):
        parsed = load.load_flavor(self.dir, "v1")
        first = load.load_flavor(self.dir, "v1", self.dir)
        self.assertEqual(len(self.entries()), 1)
        with mock.patch.object(load, "_check_case",
                               side_effect=AssertionError("parsed again")):
            hit = load.load_flavor(self.dir, "v1", self.dir)
        self.assert_same(first, parsed)
        self.assert_same(hit, parsed)
        self.assertEqual(hit.cases[("boot", parsed.data["cases"][5]["id"])]
                         ["params"]["egid"], 4242)

    def test_records_the_id_does_not_give_are_kept_whole(self):
        data = load.load_flavor(self.dir, "v1").data
        entry = loadcache.compact(data)
        self.assertEqual(sorted(entry["whole"]), ["5"])
        self.assertIsNone(entry["rows"][5])
        self.assertEqual(entry["rows"][7][3], True)
        self.assertIsNone(entry["rows"][8][3])

    def test_a_changed_file_misses(self):
        load.load_flavor(self.dir, "v1", self.dir)
        data = full_form()
        data["cases"][3].update(ret=-1, errno="EPERM")
        self.write(data)
        got = load.load_flavor(self.dir, "v1", self.dir)
        self.assertEqual(got.data["cases"][3]["errno"], "EPERM")
        self.assert_same(got, load.load_flavor(self.dir, "v1"))

    def test_a_damaged_entry_is_a_miss(self):
        load.load_flavor(self.dir, "v1", self.dir)
        [name] = self.entries()
        path = os.path.join(self.dir, loadcache.DIRECTORY, name)
        for damage in ('{"rows": [["boot"]]', '{"data": {}, "rows": [["boot",'
                       ' "m/nonsense", "ok a- c:-", null]], "whole": {}}'):
            with open(path, "w", encoding="utf-8") as stream:
                stream.write(damage)
            self.assert_same(load.load_flavor(self.dir, "v1", self.dir),
                             load.load_flavor(self.dir, "v1"))

    def test_load_all_keeps_the_entries_of_the_files_as_they_are(self):
        load.load_all(self.dir)
        before = self.entries()
        data = full_form()
        data["cases"][3].update(ret=-1, errno="EPERM")
        self.write(data)
        load.load_all(self.dir)
        after = self.entries()
        self.assertEqual(len(before), 1)
        self.assertEqual(len(after), 1)
        self.assertNotEqual(before, after)

    def test_a_cache_that_cannot_be_written_loses_nothing(self):
        with open(os.path.join(self.dir, loadcache.DIRECTORY), "w",
                  encoding="utf-8") as stream:
            stream.write("a file where the directory would be\n")
        files, errors = load.load_all(self.dir)
        self.assertEqual(errors, [])
        self.assert_same(files["v1"], load.load_flavor(self.dir, "v1"))

    def test_the_key_covers_the_code_that_rebuilds(self):
        raw = b'{"flavor": "v1"}'
        name = loadcache.key(raw)
        with mock.patch.object(loadcache, "_code_digest", [b"other code"]):
            self.assertNotEqual(loadcache.key(raw), name)
        self.assertNotEqual(loadcache.key(raw + b" "), name)


if __name__ == "__main__":
    unittest.main()
