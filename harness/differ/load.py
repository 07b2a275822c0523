"""Read and validate build/results/<flavor>.json (docs/result-format.md).

Every problem is a LoadError whose message names the file and, where there
is one, the case (setting and id).
"""

import json
import os
from dataclasses import dataclass, field

from model import cases as caseids
from model.cases import LoadError  # noqa: F401 (the differ raises it)
from model.flavors import FLAVOR_ORDER, FLAVORS

from . import loadcache

TOP_KEYS = ("flavor", "facts", "settings", "cases", "sysctl", "log",
            "errors", "status")
CASE_KEYS = ("setting", "id", "params", "ret", "errno")
PARAM_KEYS = ("dir_mode", "dir_owner", "link_owner", "follower", "fsuid",
              "position", "op", "mount")
LINK_KEYS = ("dir_mode", "dir_owner", "owner", "kind")


@dataclass
class ResultFile:
    path: str
    flavor: str
    data: dict
    cases: dict = field(default_factory=dict)   # (setting, id) -> case
    compact: bool = False       # read from the committed, compact form
    cache_key: str = None       # its loadcache entry, when it has one
    digest: str = None          # loadcache.key() of its bytes, when read
    # what is derived from the cases, forgotten when they change in number:
    # None -> their number, a setting -> its id set, ("sorted", setting),
    # ("select", wanted), ("params",) -> ResultFile._by_params()
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    def ids(self, setting):
        """The case ids of one setting (every pair that joins this file
        asks; recomputed when the cases changed in number)."""
        if self._memo.get(None) != len(self.cases):
            self._memo = {None: len(self.cases)}
            for label, cid in self.cases:
                self._memo.setdefault(label, set()).add(cid)
        return self._memo.get(setting, set())

    def sorted_ids(self, setting):
        """ids(setting) in order (a list kept with them: read only)."""
        ids = self.ids(setting)
        key = ("sorted", setting)
        if key not in self._memo:
            self._memo[key] = sorted(ids)
        return self._memo[key]

    def select(self, wanted):
        """[(key, case)] of the cases whose params `wanted` accepts, in
        order, asked once per params object (the records of one id share
        theirs); kept per `wanted` (read only) while the cases stay as
        many."""
        self.ids(None)                  # forgets all when cases changed
        key = ("select", wanted)
        if key not in self._memo:
            items, index, distinct = self._by_params()
            answers = [bool(wanted(params)) for params in distinct]
            self._memo[key] = [item for item, i in zip(items, index)
                               if answers[i]]
        return self._memo[key]

    def _by_params(self):
        """(the cases' items, each one's index into the distinct params,
        those params)."""
        if ("params",) not in self._memo:
            items = list(self.cases.items())
            where, distinct = {}, []
            index = []
            for _, case in items:
                params = case["params"]
                at = where.get(id(params))
                if at is None:
                    at = where[id(params)] = len(distinct)
                    distinct.append(params)
                index.append(at)
            self._memo[("params",)] = (items, index, distinct)
        return self._memo[("params",)]

    @property
    def settings(self):
        return self.data["settings"]

    def knobs(self, setting):
        if setting in self.settings:
            return self.settings[setting]
        if setting == "boot":
            return self.data["facts"].get("knobs", {})
        raise LoadError("%s: setting %r has no knob record"
                        % (self.path, setting))


def result_path(results_dir, flavor):
    return os.path.join(results_dir, flavor + ".json")


def _case_where(path, case, index):
    if isinstance(case, dict) and "id" in case:
        return "%s: case %s %s" % (path, case.get("setting"), case["id"])
    return "%s: case #%d" % (path, index)


def _check_case(path, case, index):
    where = _case_where(path, case, index)
    if not isinstance(case, dict):
        raise LoadError("%s: not a JSON object" % where)
    missing = [k for k in CASE_KEYS if k not in case]
    if missing:
        raise LoadError("%s: missing %s" % (where, ", ".join(missing)))
    params = case["params"]
    if not isinstance(params, dict):
        raise LoadError("%s: params is not an object" % where)
    missing = [k for k in PARAM_KEYS if k not in params]
    if missing:
        raise LoadError("%s: params lacks %s" % (where, ", ".join(missing)))
    for number, link in enumerate(params.get("links") or []):
        lacking = [k for k in LINK_KEYS if k not in link]
        if lacking:
            raise LoadError("%s: params.links[%d] lacks %s"
                            % (where, number, ", ".join(lacking)))
        if link["kind"] not in ("trailing", "intermediate"):
            raise LoadError("%s: params.links[%d].kind is %r"
                            % (where, number, link["kind"]))
    if case["ret"] not in (0, -1):
        raise LoadError("%s: ret %r is not 0 or -1" % (where, case["ret"]))


def parse(path, text, flavor=None, cached=None):
    """Parse the text of a result file; `flavor` is the file name's stem.
    `cached`: its data as loadcache rebuilt it (the text is not parsed)."""
    if cached is not None:
        data = cached
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise LoadError("%s: not valid JSON (truncated?): %s at line %d"
                            " column %d" % (path, err.msg, err.lineno,
                                            err.colno))
    if not isinstance(data, dict):
        raise LoadError("%s: top level is not a JSON object" % path)
    missing = [k for k in TOP_KEYS if k not in data]
    if missing:
        raise LoadError("%s: missing top-level %s"
                        % (path, ", ".join(missing)))
    name = data["flavor"]
    if flavor is not None and name != flavor:
        raise LoadError("%s: file says flavor %r" % (path, name))
    if name not in FLAVORS:
        raise LoadError("%s: unknown flavor %r (known: %s)"
                        % (path, name, ", ".join(FLAVOR_ORDER)))
    compact = isinstance(data["cases"], dict)
    if compact:
        # The compact committed form (results/expected): params from ids.
        try:
            data = caseids.expand(data)
        except caseids.CaseIdError as err:
            raise LoadError("%s: %s" % (path, err)) from None
    result = ResultFile(path=path, flavor=name, data=data, compact=compact)
    if compact or cached is not None:
        # expand() made one record per (setting, id), params shared; a
        # cache entry was validated when written, from these same bytes
        result.cases = {(case["setting"], case["id"]): case
                        for case in data["cases"]}
    else:
        for index, case in enumerate(data["cases"]):
            _check_case(path, case, index)
            key = (case["setting"], case["id"])
            if key in result.cases:
                raise LoadError("%s: duplicate case %s %s"
                                % (path, key[0], key[1]))
            _share_params(case)
            result.cases[key] = case
    undeclared = ({label for label, _ in result.cases}
                  - set(data["settings"]) - {"boot"})
    for index, case in enumerate(data["cases"]):
        if case["setting"] in undeclared:
            raise LoadError("%s: undeclared setting %r"
                            % (_case_where(path, case, index),
                               case["setting"]))
    return result


def _share_params(case):
    """Use the one params object of its id (cases.params_of) when the
    recorded params are those: the differ's memos then know the case by
    identity, as they know a committed file's."""
    try:
        shared = caseids.params_of(case["id"])
    except (caseids.CaseIdError, TypeError):
        return
    if case["params"] == shared:
        case["params"] = shared


def _decoded(path, raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise LoadError("%s: not UTF-8 (%s)" % (path, err)) from None


def load(path, flavor=None, cache=None, keep=True):
    """The ResultFile of `path`.  `cache`: the results directory whose
    loadcache entries keep a full-form file's cases in the compact form,
    keyed on the file's content; `keep`: False to read the entries only."""
    try:
        with open(path, "rb") as stream:
            raw = stream.read()
    except FileNotFoundError:
        raise LoadError("%s: missing" % path) from None
    if cache is None:
        return parse(path, _decoded(path, raw), flavor)
    name = loadcache.key(raw)
    cached = loadcache.read(cache, name)
    if cached is not None:
        result = parse(path, None, flavor, cached)
        result.cache_key = name
    else:
        result = parse(path, _decoded(path, raw), flavor)
        # a compact file parses fast already
        if keep and not result.compact:
            loadcache.write(cache, name, result.data)
            result.cache_key = name
    result.digest = name
    return result


def present_flavors(results_dir):
    """Flavors whose result file exists, in the canonical order."""
    return [name for name in FLAVOR_ORDER
            if os.path.exists(result_path(results_dir, name))]


def load_flavor(results_dir, flavor, cache=None, keep=True):
    return load(result_path(results_dir, flavor), flavor, cache, keep)


def load_all(results_dir, keep=True):
    """Load every present flavor; (files by flavor, list of LoadErrors).
    The full-form files go through a cache in `results_dir` (loadcache),
    which keeps only the entries of the files as they are now; `keep`:
    False to read the cache and leave it as it is (a second reader)."""
    files, errors = {}, []
    for name in present_flavors(results_dir):
        try:
            files[name] = load_flavor(results_dir, name, results_dir, keep)
        except LoadError as err:
            errors.append(err)
    if keep:
        loadcache.prune(results_dir, {result.cache_key for result in
                                      files.values()})
    return files, errors


def digests(files):
    """{flavor: the digest of its bytes} of loaded files."""
    return {flavor: result.digest for flavor, result in files.items()}
