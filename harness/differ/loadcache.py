"""A result file's cases kept in the compact form, keyed on its content.

A run's build/results/<flavor>.json writes every case's params out in full
(24 MB); parsing and validating one took 0.5 s, ten of them 4 s of every
`make report` in a built tree, though an edit changes one or two.  After a
full parse, load.py writes here each case as (setting, id, compact outcome,
control_shared) whenever the model's params_of(id) and expand_case() give
back a record equal to the parsed one, and the whole record otherwise; so
a file loaded through its entry gives records equal to a parse of it.

The key is a BLAKE2b hash of the file's bytes and of the code that rebuilds
the records (CODE below): a changed file or a changed rebuild misses, and
nothing is keyed on mtimes.  An entry that cannot be read is a miss, and
one that cannot be written is skipped: the cache never loses a result.
"""

import hashlib
import json
import os

from model import cases as caseids

DIRECTORY = ".load-cache"       # inside the results directory
HERE = os.path.dirname(os.path.abspath(__file__))
CODE = [os.path.join(HERE, name) for name in ("loadcache.py", "load.py")] + [
    os.path.join(HERE, "..", "model", name)
    for name in ("cases.py", "table.py", "flavors.py")] + [
    os.path.join(HERE, "..", "..", "common", "lib", "cases.def")]
_code_digest = []


def _code():
    if not _code_digest:
        digest = hashlib.blake2b()
        for path in CODE:
            try:
                with open(path, "rb") as stream:
                    digest.update(stream.read())
            except OSError:
                digest.update(b"absent " + path.encode())
        _code_digest.append(digest.digest())
    return _code_digest[0]


def key(raw):
    """The entry name of a file's bytes."""
    digest = hashlib.blake2b(_code(), digest_size=32)
    digest.update(raw)
    return digest.hexdigest() + ".json"


def _rebuilt(setting, cid, outcome, shared):
    record = caseids.expand_case(cid, setting, outcome)
    if shared is not None:
        record = dict(record, control_shared=shared)
    return record


def compact(data):
    """The entry of a parsed, validated file's data (its records' params
    already shared by load._share_params)."""
    rows, whole = [], {}
    for index, case in enumerate(data["cases"]):
        row = [case["setting"], case["id"], caseids.case_outcome(case),
               case.get("control_shared")]
        try:
            same = _rebuilt(*row) == case
        except (caseids.CaseIdError, KeyError, TypeError, ValueError):
            same = False
        if same:
            rows.append(row)
        else:
            rows.append(None)
            whole[str(index)] = case
    return {"data": {k: v for k, v in data.items() if k != "cases"},
            "rows": rows, "whole": whole}


def expand(entry):
    """The data that compact() was given, rebuilt."""
    data = dict(entry["data"])
    whole = entry["whole"]
    data["cases"] = [_rebuilt(*row) if row is not None else whole[str(i)]
                     for i, row in enumerate(entry["rows"])]
    return data


def read(results_dir, name):
    """The data of entry `name`, or None when it is absent or unreadable."""
    try:
        with open(os.path.join(results_dir, DIRECTORY, name),
                  encoding="utf-8") as stream:
            return expand(json.load(stream))
    except (OSError, ValueError, KeyError, TypeError, IndexError,
            caseids.CaseIdError):
        return None


def write(results_dir, name, data):
    """Keep compact(data) as entry `name`."""
    where = os.path.join(results_dir, DIRECTORY)
    tmp = os.path.join(where, name + ".tmp")
    try:
        os.makedirs(where, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as stream:
            json.dump(compact(data), stream, separators=(",", ":"))
        os.replace(tmp, os.path.join(where, name))
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def prune(results_dir, keep):
    """Remove the entries other than `keep` (names): those of contents
    the files no longer have."""
    where = os.path.join(results_dir, DIRECTORY)
    try:
        names = os.listdir(where)
    except OSError:
        return
    for name in names:
        if name not in keep:
            try:
                os.unlink(os.path.join(where, name))
            except OSError:
                pass
