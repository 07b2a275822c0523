"""Reads the guest's result channel and writes build/results/<flavor>.json."""

import gzip
import json
import os
import zlib

from stages import HarnessError, write_whole

KNOWN_TYPES = {'facts', 'setting', 'case', 'sysctl', 'log', 'group', 'error',
               'end', 'attack', 'bench', 'stress', 'namespace', 'contend',
               'race', 'limit'}


def parse_stream(path):
    """Returns the records of a complete stream or raises naming the fault."""
    if not os.path.isfile(path):
        raise HarnessError(f'result stream {path} is missing: the guest '
                           f'never wrote to its result channel')
    records = []
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        # guest/init.c compresses the channel; a cut stream is truncated.
        try:
            raw = gzip.decompress(raw)
        except (EOFError, zlib.error, OSError) as e:
            raise HarnessError(f'truncated result stream {path}: the '
                               f'compressed stream is cut ({e})') from None
    text = raw.decode('utf-8', errors='replace').replace('\r', '')
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise HarnessError(f'garbled result stream {path}, line {n}: '
                               f'{e}: {line[:120]!r}') from None
        if not isinstance(rec, dict) or rec.get('type') not in KNOWN_TYPES:
            raise HarnessError(f'garbled result stream {path}, line {n}: '
                               f'not a known record: {line[:120]!r}')
        records.append(rec)
    if not records or records[0]['type'] != 'facts':
        raise HarnessError(f'truncated result stream {path}: no facts '
                           f'record at its start')
    if records[-1]['type'] != 'end':
        raise HarnessError(f'truncated result stream {path}: '
                           f'{len(records)} records and no end record (the '
                           f'guest stopped before its job finished)')
    return records


def boot_records(out):
    """(records, None) of a boot that left a usable result stream, else
    (None, why): it panicked, hung or failed to start, or the stream is
    garbled."""
    if out.verdict not in ('passed', 'failed'):
        return None, f'{out.verdict}: {out.reason}' if out.reason \
            else out.verdict
    try:
        return parse_stream(out.results), None
    except HarnessError as e:
        return None, str(e)


def assemble(flavor, records, status):
    """Builds the host-side JSON object (no timestamps: see the contract)."""
    end = records[-1]
    if status is not None and end.get('status') != status:
        raise HarnessError(f'result stream says status {end.get("status")} '
                           f'but the machine exited with {status}')
    out = {'flavor': flavor, 'facts': records[0], 'settings': {},
           'cases': [], 'sysctl': [], 'log': [], 'groups': [],
           'errors': [], 'extra': [], 'status': end.get('status')}
    seen = set()
    params = {}
    for rec in records[1:-1]:
        kind = rec.pop('type')
        if kind == 'setting':
            out['settings'][rec['setting']] = rec['knobs']
        elif kind == 'case':
            key = (rec.get('setting'), rec.get('id'))
            if key in seen:
                raise HarnessError(f'case {key[1]} appears twice in setting '
                                   f'{key[0]}')
            seen.add(key)
            out['cases'].append(with_params(rec, params))
        elif kind in ('sysctl', 'log', 'errors'):
            out[kind].append(rec)
        elif kind == 'group':
            out['groups'].append(rec)
        elif kind == 'error':
            out['errors'].append(rec)
        else:
            rec['type'] = kind
            out['extra'].append(rec)
    del out['facts']['type']
    out['cases'].sort(key=lambda c: (c.get('setting', ''), c.get('id', '')))
    out['groups'].sort(key=group_rank)
    return out


def with_params(rec, last):
    """The case record with its params object: the suite writes it in a
    case's first record of the run and again only when the ids it read back
    changed (common/suite/runner.c); a record without one has that of the
    last record of its id. `last` maps ids to those objects."""
    cid = rec.get('id')
    if 'params' in rec:
        last[cid] = rec['params']
        return rec
    if cid not in last:
        raise HarnessError(f'case {cid} in setting {rec.get("setting")} has '
                           f'no params and no earlier record of its id has '
                           f'them: the result stream is not the suite\'s')
    out = {}
    for name, value in rec.items():
        out[name] = value
        if name == 'group':
            out['params'] = last[cid]
    out.setdefault('params', last[cid])
    return out


SETTING_ORDER = ('boot', 'ps0-own0', 'ps0-own1', 'ps1-own0', 'ps1-own1',
                 'ps0-own-', 'ps1-own-')
GROUP_ORDER = ('matrix', 'positions', 'ops', 'mounts')


def group_rank(rec):
    """A group record's place in the result file: sysctl, log, then the
    settings and their groups in the documented order, whatever order the
    guest ran them in (settings with the revision's knob off run inside
    the log probes' ratelimit interval)."""
    name = rec.get('name', '')
    if name in ('sysctl', 'log'):
        return (0, name != 'sysctl', 0, name)
    setting, _, group = name.partition('/')
    return (1, SETTING_ORDER.index(setting) if setting in SETTING_ORDER
            else len(SETTING_ORDER),
            GROUP_ORDER.index(group) if group in GROUP_ORDER
            else len(GROUP_ORDER), name)


def suite_seconds(build_dir, name):
    """How long the flavor's last suite boot took (build/results/
    <name>.timing.json, written by sticky.py suite), or None."""
    path = os.path.join(build_dir, 'results', f'{name}.timing.json')
    try:
        with open(path, encoding='utf-8') as f:
            return float(json.load(f)['seconds'])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_json(obj, path):
    """Writes to a temporary name, fsyncs, renames: a full disk or an
    interrupt leaves the previous file whole, and a failed write says so."""
    os.makedirs(os.path.dirname(path), exist_ok=True)

    def write(tmp):
        with open(tmp, 'w', encoding='utf-8') as f:
            json.dump(obj, f, indent=1, sort_keys=True)
            f.write('\n')

    write_whole(path, write)
