"""Issue 6, beyond the patch: the /tmp symlink attack run for real, per-user
/tmp as the alternative, and the cost of the check.

The guest side is common/programs/attack.c and common/programs/bench.c; this
module boots them (boot/run.py), judges their records and writes
build/results/beyond.json, build/results/bench.json and build/results/beyond.md
(`make bless` copies it to results/beyond.md).
The judging and formatting functions are pure (harness/tests/test_beyond.py).
"""

import json
import os
import statistics

import flavors as flv
from stages import HarnessError

VARIANTS = ('race', 'planted', 'planted-inter')
LINK_OF = {'race': 'trailing', 'planted': 'trailing',
           'planted-inter': 'intermediate'}
PATHS = ('nolink', 'trail', 'inter')
OPS = ('open_close', 'stat')
OVERHEAD_TARGET = 1.0      # percent, protection on vs off on allowed paths
STATS = ('fast', 'min', 'median')


# ---- what protects what ----

def own_effective(flavor):
    """Whether the flavor's own knob reaches a check: a rule whose
    config options (revision.ini `needs`) are unset keeps its knob but is
    compiled out."""
    return bool(flavor.knob) and flavor.compiled


def sysctl_name(flavor):
    """The own knob as sysctl(8) spells it (fs.weak-sticky-symlinks)."""
    return flavor.knob_path[len('/proc/sys/'):].replace('/', '.')


def covered(flavor, ps, own, link):
    """Whether a protection in force covers a link the victim follows:
    fs.protected_symlinks checks trailing links only (may_follow_link
    under WALK_TRAILING); v1's hook and v3's check see every link."""
    if link == 'trailing' and ps == 1:
        return True
    return own == 1 and own_effective(flavor)


def settings_of(flavor):
    """The setting labels the guest programs run, in order."""
    if not flavor.knob:
        return ['ps0-own-', 'ps1-own-']
    return [f'ps{p}-own{o}' for p in (0, 1) for o in (0, 1)]


def own_value(flavor, own):
    """The own knob's file value for protection `own` (1 = on)."""
    return int(flavor.protect) if own else 1 - int(flavor.protect)


def knobs_ok(flavor, rec):
    """'' when the knobs read back in the record are the setting's, else
    why not."""
    knobs = rec.get('knobs') or {}
    if knobs.get('protected_symlinks') != rec.get('ps'):
        return (f'protected_symlinks reads {knobs.get("protected_symlinks")}'
                f', setting wants {rec.get("ps")}')
    if flavor.knob and rec.get('own') is not None:
        key = flavor.knob
        want = own_value(flavor, rec['own'])
        if knobs.get(key) != want:
            return f'{key} reads {knobs.get(key)}, setting wants {want}'
    return ''


# ---- judging ----

def _check(checks, ok, line):
    checks.append({'ok': bool(ok), 'line': line})


def rate(rec):
    tries = rec.get('tries') or 0
    return f'{rec.get("successes", 0)}/{tries}' + (
        f' ({100.0 * rec.get("successes", 0) / tries:.1f}%)' if tries else '')


def judge_attacks(flavor, records):
    """One check per attack record plus per-flavor checks; each check is
    {'ok': bool, 'line': str}."""
    checks = []
    seen = set()
    race_unprotected = []
    for rec in records:
        setting, variant = rec.get('setting'), rec.get('variant')
        seen.add((setting, variant))
        link = LINK_OF.get(variant, 'trailing')
        cov = covered(flavor, rec.get('ps'), rec.get('own'), link)
        what = f'{flavor.name} {setting} {variant}'
        bad = knobs_ok(flavor, rec)
        if bad:
            _check(checks, False, f'{what}: knobs did not take: {bad}')
            continue
        got = rec.get('successes', 0)
        tries = rec.get('tries', 0)
        if tries <= 0:
            _check(checks, False, f'{what}: no tries were made')
        elif cov:
            _check(checks, got == 0,
                   f'{what}: {rate(rec)} through the link, protected '
                   f'(expected 0)')
        elif variant == 'race':
            race_unprotected.append(rec)
            _check(checks, True,
                   f'{what}: {rate(rec)} through the link, unprotected')
        else:
            _check(checks, got == tries,
                   f'{what}: {rate(rec)} through the link, unprotected '
                   f'(expected every try: nothing races)')
    for setting in settings_of(flavor):
        for variant in VARIANTS:
            if (setting, variant) not in seen:
                _check(checks, False, f'{flavor.name} {setting} {variant}: '
                       f'no record (setting skipped or guest stopped)')
    if race_unprotected:
        won = sum(r.get('successes', 0) for r in race_unprotected)
        _check(checks, won > 0,
               f'{flavor.name}: the race was won {won} times over '
               f'{len(race_unprotected)} unprotected setting(s) '
               f'(must be > 0, else the exploit test proves nothing)')
    return checks


def _ns(records, test, **kw):
    for rec in records:
        if rec.get('test') == test and all(rec.get(k) == v
                                           for k, v in kw.items()):
            return rec
    return None


def judge_namespace(records):
    """Checks of the per-user /tmp records (base kernel, protections off)."""
    checks = []
    un = _ns(records, 'unshare')
    if un is None:
        return [{'ok': False, 'line': 'namespace: no records'}]
    _check(checks, un['root_newns']['ret'] == 0,
           f'namespace: unshare(CLONE_NEWNS) as root: '
           f'{un["root_newns"]["errno"]} (no config change needed)'
           if un['root_newns']['ret'] == 0 else
           f'namespace: unshare(CLONE_NEWNS) as root fails: '
           f'{un["root_newns"]["errno"]}')
    for variant in ('race', 'planted'):
        shared = _ns(records, 'attack', tmp='shared', variant=variant)
        private = _ns(records, 'attack', tmp='private', variant=variant)
        if shared is None or private is None:
            _check(checks, False, f'namespace {variant}: missing records')
            continue
        _check(checks, shared['successes'] > 0,
               f'namespace {variant}, shared /tmp (control): '
               f'{rate(shared)} through the link (must be > 0)')
        _check(checks, private['successes'] == 0,
               f'namespace {variant}, attacker with a private /tmp: '
               f'{rate(private)} through the link (expected 0)')
    view = _ns(records, 'admin-view')
    if view is None:
        _check(checks, False, 'namespace admin-view: no record')
    else:
        _check(checks, view['create']['ret'] == 0 and
               view['root_stat']['errno'] == 'ENOENT',
               f'namespace admin-view: root in the initial namespace stats '
               f'A\'s /tmp/A-secret: {view["root_stat"]["errno"]}; readdir '
               f'lists it: {view["root_readdir_lists"]}; via /proc/PID/root: '
               f'{_found(view["root_via_proc_root"])}')
    share = _ns(records, 'shared-file')
    if share is None:
        _check(checks, False, 'namespace shared-file: no record')
    else:
        s, p = share['shared'], share['private']
        _check(checks, s['b_read']['ret'] == 0 and p['a_write']['ret'] == 0
               and p['b_read']['ret'] != 0,
               f'namespace shared-file: B reads A\'s /tmp/shared: shared '
               f'/tmp {_found(s["b_read"])}, per-user /tmp '
               f'{_found(p["b_read"])}')
    return checks


def _found(res):
    return 'ok' if res.get('ret') == 0 else res.get('errno', '?')


# ---- bench ----

def _scaled(rec, key):
    scale = rec.get('scale', 1) or 1
    clock = rec.get('clock_ns', 0) / scale
    return [v / scale - clock for v in rec.get(key, [])]


def bench_table(by_flavor):
    """{flavor: [bench records]} -> {flavor: {setting: {path/op: cell}}},
    clock cost subtracted. Cell: 'fast', the median over repeats of the
    fastest sample (the fast path's instruction count under -icount: a few
    discrete levels, the median picks the usual one); 'min', the lowest of
    those; 'median', the median over repeats of the median sample."""
    out = {}
    for flavor, recs in by_flavor.items():
        for rec in recs:
            key = f'{rec["path"]}/{rec["op"]}'
            mins, meds = _scaled(rec, 'min_ns'), _scaled(rec, 'median_ns')
            if not mins or not meds:
                continue
            out.setdefault(flavor, {}).setdefault(rec['setting'], {})[key] = {
                'fast': round(statistics.median(mins), 1),
                'min': round(min(mins), 1),
                'median': round(statistics.median(meds), 1),
                'fast_spread_pct': round(_spread(mins), 2),
                'median_spread_pct': round(_spread(meds), 2)}
    return out


def _spread(vals):
    lo = min(vals)
    return 100.0 * (max(vals) - lo) / lo if lo > 0 else 0.0


def base_setting(setting):
    """The base kernel's setting with the same fs.protected_symlinks."""
    return setting[:3] + '-own-'


def protection_pairs(flavor):
    """(label, off setting, on setting) for the flavor's protection."""
    if not flavor.knob:
        return [('protected_symlinks', 'ps0-own-', 'ps1-own-')]
    return [(f'{sysctl_name(flavor)} (ps0)', 'ps0-own0', 'ps0-own1'),
            (f'{sysctl_name(flavor)} (ps1)', 'ps1-own0', 'ps1-own1')]


def bench_ratios(table, flavors):
    """Ratios to base (same ps) and protection overheads, per flavor."""
    base = table.get(flv.reference(flv.load()), {})
    ratios, overheads = [], []
    for f in flavors:
        sets = table.get(f.name, {})
        for setting in settings_of(f):
            row = sets.get(setting)
            ref = base.get(base_setting(setting))
            if row is None:
                continue
            for key, val in sorted(row.items()):
                r = {'flavor': f.name, 'setting': setting, 'case': key,
                     'fast_ns': val['fast'], 'median_ns': val['median']}
                if ref and key in ref:
                    for stat in STATS:
                        r[f'ratio_{stat}'] = round(
                            val[stat] / ref[key][stat], 4)
                ratios.append(r)
        for label, off, on in protection_pairs(f):
            if off not in sets or on not in sets:
                continue
            for key in sorted(sets[on]):
                a, b = sets[off].get(key), sets[on][key]
                if a is None:
                    continue
                o = {'flavor': f.name, 'knob': label, 'case': key,
                     'off_ns': a['fast'], 'on_ns': b['fast']}
                for stat in STATS:
                    o[f'pct_{stat}'] = round(
                        100.0 * (b[stat] / a[stat] - 1), 3)
                overheads.append(o)
    return ratios, overheads


def worst_pct(o):
    """The larger of the fast-path and median-sample overheads."""
    return max(o['pct_fast'], o['pct_median'])


def judge_bench(overheads, target=OVERHEAD_TARGET):
    """The protection's overhead on allowed paths through a link against
    the target: the larger of the usual fast path and the median sample
    (both are deterministic or nearly so under -icount shift=0). The
    no-link rows are the control and are shown, not judged."""
    checks = []
    for o in overheads:
        if o['case'].startswith('nolink'):
            # The control: no symlink is followed, so no check runs; what
            # it shows is the noise floor (the fast path's levels).
            continue
        _check(checks, worst_pct(o) <= target,
               f'{o["flavor"]} {o["knob"]} {o["case"]}: protection on costs '
               f'{o["pct_fast"]:+.2f}% (fast path; min {o["pct_min"]:+.2f}%,'
               f' median sample {o["pct_median"]:+.2f}%); target <= '
               f'{target:g}%')
    return checks


# ---- files ----

def load_json(path, default):
    if not os.path.isfile(path):
        return default
    try:
        with open(path, encoding='utf-8') as f:
            return json.load(f)
    except ValueError as e:
        raise HarnessError(f'{path} is not JSON ({e}): remove it and run '
                           f'again') from None


def split_records(records):
    """attack, namespace and bench records of an assembled result's
    'extra' list, by type, without their 'type' field."""
    out = {'attack': [], 'namespace': [], 'bench': []}
    for rec in records:
        kind = rec.get('type')
        if kind in out:
            out[kind].append({k: v for k, v in rec.items() if k != 'type'})
    return out


# ---- markdown ----

def _pct(a, b):
    return f'{a}/{b} ({100.0 * a / b:.1f}%)' if b else f'{a}/{b}'


def attack_markdown(beyond, flavors):
    lines = ['## The /tmp symlink attack, run for real', '',
             'A root victim written like the programs of the CVEs '
             '(`lstat()` says `/tmp/sticky-victim.tmp` does not exist, then '
             '`open(O_WRONLY|O_CREAT)` without `O_EXCL`, write) against an '
             'attacker with uid 1000 that keeps planting and removing that '
             'name as a symlink to a root-owned 0644 file in `/etc`, two '
             'processes on two vCPUs (QEMU `-smp 2`). *planted*: the link is '
             'there first and the victim opens without a check; '
             '*planted-inter*: an intermediate link `/tmp/sticky-victim.d -> '
             '/etc/sticky-pdir`, the victim creates `.../out`. Cells: tries '
             'in which the victim wrote through the link; **bold** where a '
             'protection in force covers the case (must be 0).', '',
             '| flavor | setting | race | planted | planted-inter |',
             '| --- | --- | --- | --- | --- |']
    for f in flavors:
        ent = beyond.get('flavors', {}).get(f.name)
        if not ent:
            continue
        by = {(r['setting'], r['variant']): r for r in ent['attack']}
        for setting in settings_of(f):
            cells = []
            for v in VARIANTS:
                r = by.get((setting, v))
                if r is None:
                    cells.append('-')
                    continue
                c = _pct(r['successes'], r['tries'])
                if covered(f, r['ps'], r['own'], LINK_OF[v]):
                    c = f'**{c}**'
                cells.append(c)
            lines.append(f'| {f.name} | {setting} | ' + ' | '.join(cells)
                         + ' |')
    lines += [''] + attack_findings(beyond, flavors)
    lines += ['', 'Setting labels as in the suite: `ps<P>` = '
              '`fs.protected_symlinks`, `own<O>` = the flavor\'s own '
              'protection on (1) or off (0).', '']
    return lines


def attack_findings(beyond, flavors):
    """Bullets drawn from the records: own knobs that protect nothing,
    and intermediate links that fs.protected_symlinks lets through."""
    out, inter = [], []
    for f in flavors:
        ent = beyond.get('flavors', {}).get(f.name)
        if not ent:
            continue
        dead = [r for r in ent['attack'] if r.get('own') == 1 and
                r.get('ps') == 0 and not own_effective(f) and
                r['successes'] > 0]
        if dead:
            out.append(f'- {f.name}: `{sysctl_name(f)}` set to protect (with '
                       f'`protected_symlinks=0`) stops nothing: ' +
                       ', '.join(f'{r["variant"]} '
                                 f'{r["successes"]}/{r["tries"]}'
                                 for r in dead) +
                       ' through the link; the knob exists but its check is '
                       'compiled out.')
        inter += [f'{f.name} {r["setting"]} {r["successes"]}/{r["tries"]}'
                  for r in ent['attack']
                  if r.get('variant') == 'planted-inter' and
                  r.get('ps') == 1 and r.get('own') in (0, None) and
                  r['successes'] > 0]
    if inter:
        out.append('- `protected_symlinks=1` alone lets the intermediate '
                   'link through (planted-inter, own protection off): ' +
                   ', '.join(inter) + '; mainline checks trailing links '
                   'only.')
    return out


def namespace_markdown(beyond):
    ent = beyond.get('flavors', {}).get(flv.reference(flv.load()), {})
    recs = ent.get('namespace') or []
    lines = ['## Per-user /tmp instead of a kernel patch', '']
    if not recs:
        return lines + [NOT_RUN, '']
    un = _ns(recs, 'unshare')
    lines += ['Alan Cox\'s alternative, in the base kernel with '
              '`fs.protected_symlinks=0`: the attacker\'s processes get a '
              'private `/tmp` the way pam_namespace gives one at login '
              '(`unshare(CLONE_NEWNS)`, `/` made rprivate, a tmpfs on '
              '`/tmp`), the root victim stays in the initial namespace.', '',
              f'- Mount namespaces need no config change: '
              f'`unshare(CLONE_NEWNS)` as root: '
              f'{_found(un["root_newns"])}; as uid 1000 without '
              f'capabilities: {_found(un["user_newns"])} '
              f'(`CONFIG_NAMESPACES` is off: no user namespace to get '
              f'the capability in, `CLONE_NEWUSER` gives '
              f'{_found(un["user_newuser"])}); '
              f'the private /tmp has to be set up by a privileged '
              f'login step.', '']
    lines += ['| attack | shared /tmp (control) | attacker\'s private /tmp |',
              '| --- | --- | --- |']
    for v in ('race', 'planted'):
        s = _ns(recs, 'attack', tmp='shared', variant=v)
        p = _ns(recs, 'attack', tmp='private', variant=v)
        if s and p:
            lines.append(f'| {v} | {_pct(s["successes"], s["tries"])} | '
                         f'{_pct(p["successes"], p["tries"])} |')
    view = _ns(recs, 'admin-view')
    share = _ns(recs, 'shared-file')
    lines += ['', 'What it costs:', '']
    if view:
        lines.append(
            f'- The admin\'s view (Ts\'o): A creates `/tmp/A-secret` in its '
            f'/tmp; root in the initial namespace: `stat` gives '
            f'{_found(view["root_stat"])}, `readdir` of /tmp lists it: '
            f'{"yes" if view["root_readdir_lists"] else "no"}; only through '
            f'`/proc/<pid>/root/tmp/` of a live process of A: '
            f'{_found(view["root_via_proc_root"])}. Files in a user\'s /tmp '
            f'are out of sight of root\'s tools.')
    if share:
        s, p = share['shared'], share['private']
        lines.append(
            f'- A program that shares /tmp between users (A writes '
            f'`/tmp/shared`, B reads it): shared /tmp: B reads '
            f'{_found(s["b_read"])}; per-user /tmp: B reads '
            f'{_found(p["b_read"])}: it breaks.')
    return lines + ['']


def bench_markdown(bench, flavors):
    lines = ['## What the check costs', '']
    if not bench.get('table'):
        return lines + [NOT_RUN, '']
    par = bench.get('params', {})
    lines += [f'Root opens/closes and stats through no link (`nolink`), an '
              f'allowed trailing link in the sticky /tmp (`trail`) and an '
              f'intermediate link there (`inter`), under QEMU '
              f'`-icount {par.get("icount", "?")}` (guest time = '
              f'instructions, 1 ns each), {par.get("iters", "?")} '
              f'single-op samples x {par.get("repeats", "?")} repeats per '
              f'setting, settings interleaved. *fast*: the median over '
              f'repeats of the fastest sample, the instruction count of the '
              f'fast path (it takes a few discrete values; *min* is the '
              f'lowest); *median*: the median over repeats of the median '
              f'sample (slab refills, RCU callbacks included). The cost of '
              f'reading the clock is subtracted. Why `-icount shift=0`: '
              f'without -icount this guest\'s clocksource is jiffies (4 ms) '
              f'and even 2000-op batches spread 50-200% between repeats; '
              f'with `shift=auto` the scale changes during the run (300% '
              f'spread); with `shift=0` a stat takes the same count in every '
              f'repeat and open/close takes one of a few levels.', '',
              'Protection on vs off in the same boot, the number the target '
              f'(<= {OVERHEAD_TARGET:g}%) is about: fast path (median '
              'sample in parentheses); *worst* is the larger of the cells '
              'through a link (`trail`, `inter`). The `nolink` cells are the '
              'control: no link is followed, no check runs, and what they '
              'show is the noise of the fast path\'s discrete levels:', '']
    keys = [f'{p}/{o}' for p in PATHS for o in OPS]
    lines += ['| flavor | protection | ' + ' | '.join(keys) + ' | worst |',
              '| --- | --- | ' + ' | '.join('---' for _ in keys)
              + ' | --- |']
    rows = {}
    for o in bench.get('overheads', []):
        rows.setdefault((o['flavor'], o['knob']), {})[o['case']] = o
    for (flavor, knob), row in rows.items():
        cells = ['-' if k not in row else
                 f'{row[k]["pct_fast"]:+.2f}% ({row[k]["pct_median"]:+.2f}%)'
                 for k in keys]
        worst = max(worst_pct(o) for k, o in row.items()
                    if not k.startswith('nolink'))
        lines.append(f'| {flavor} | {knob} | ' + ' | '.join(cells)
                     + f' | {worst:+.2f}% |')
    stat = [o for o in bench.get('overheads', [])
            if o['case'] == 'trail/stat']
    if stat:
        lines += ['', 'In instructions, `stat` through the allowed '
                  'trailing link: ' + '; '.join(
                      f'{o["flavor"]} {o["knob"]}: {o["off_ns"]:.0f} -> '
                      f'{o["on_ns"]:.0f}' for o in stat) + '.']
    lines += ['', 'Ratio to base with the same `fs.protected_symlinks` '
              '(fast path; median in parentheses):', '',
              '| flavor | setting | ' + ' | '.join(keys) + ' |',
              '| --- | --- | ' + ' | '.join('---' for _ in keys) + ' |']
    rows = {}
    for r in bench.get('ratios', []):
        rows.setdefault((r['flavor'], r['setting']), {})[r['case']] = r
    for f in flavors:
        for setting in settings_of(f):
            row = rows.get((f.name, setting))
            if not row:
                continue
            cells = []
            for k in keys:
                r = row.get(k)
                cells.append('-' if not r or 'ratio_fast' not in r else
                             f'{r["ratio_fast"]:.3f} '
                             f'({r["ratio_median"]:.3f})')
            lines.append(f'| {f.name} | {setting} | ' + ' | '.join(cells)
                         + ' |')
    return lines + ['']


NOT_RUN = '(not run)'


def sections_of(text):
    """{'## heading': [its lines, the heading included]} of a Markdown
    text, at the second level."""
    out, current = {}, None
    for line in text.splitlines():
        if line.startswith('## '):
            current = line
            out[current] = []
        if current:
            out[current].append(line)
    return out


def stamped(section, measured):
    """A measured section with its date and commit below its heading."""
    if NOT_RUN in section or not measured:
        return section
    return [section[0], '', f'*Measured {measured["date"]} at commit '
            f'{measured["commit"]}.*'] + section[1:]


def last_measured(section, previous, when):
    """A section this run did not measure: the same section of the
    previous text (the committed results/beyond.md), said to be from
    `when`; the section as it is when the previous text has none."""
    if NOT_RUN not in section:
        return section
    kept = sections_of(previous or '').get(section[0])
    if not kept or NOT_RUN in kept:
        return section
    return [kept[0], '', f'*Not measured in this run: the last '
            f'measurement, {when}.*'] + kept[1:] + ['']


def markdown(beyond, bench, flavors, previous=None, when=''):
    """build/results/beyond.md; a section this run did not measure comes
    from `previous` (the committed copy), marked with `when`."""
    lines = ['<!-- generated by `sticky.py attack` / `sticky.py '
             'beyond-bench` from build/results/beyond.json and '
             'build/results/bench.json -->', '']
    for section, store in ((attack_markdown(beyond, flavors), beyond),
                           (namespace_markdown(beyond), beyond),
                           (bench_markdown(bench, flavors), bench)):
        lines += last_measured(stamped(section, store.get('measured')),
                               previous, when)
    return '\n'.join(lines).rstrip('\n') + '\n'
