"""The rename race: what each placement predicts, and the judging.

The layout and the trials are common/programs/race.c's: root follows a link
owned by A (uid 1000) in root's 1777 directory R/sticky, the trailing link
R/sticky/l or the intermediate link R/sticky/m in R/sticky/m/f, while A
renames the link into A's own 0755 directory R/own. In window mode the
kernel (harness/fixtures/race-window) holds the follower between the
link's lookup and every check, and the rename happens inside that window
("renamed" trials); "control" trials rename nothing.

Everything here comes from the flavor's data, never from an observation:

- mainline's may_follow_link() (fs.protected_symlinks, trailing links
  only) judges the directory the walk looked the link up in (nd->dir_mode,
  nd->dir_uid, recorded before the window): R/sticky;
- a revision's rule judges the directory its `directory` names
  (revision.ini, or the flavor's own key): `walk`, R/sticky as mainline,
  or `parent`, the link's d_parent when the check runs: R/own once the
  link was renamed, a directory that is neither sticky nor
  world-writable, and A's, so the follow is allowed;
- the rule covers every link or only the trailing one (`links`), and is
  on in every trial (the guest sets its knob to `protect`).
"""

from dataclasses import dataclass

POSITIONS = ('trail', 'inter')   # the renamed links; and the mount root:
MOUNTROOT = 'mountroot'          # a trailing link that is a mount root
PROTECTED_SYMLINKS = (0, 1)
REFUSED = 'EACCES'
FOLLOWED = 'followed'

BYPASS = "bypassed: judges the link's d_parent when it runs (R/own)"
WALK = "refused: judges the directory the walk found the link in (R/sticky)"
IN_PLACE = 'refused: the link stayed in R/sticky'
MAINLINE = ('refused by fs.protected_symlinks: trailing link, the walk\'s '
            'directory')
UNCOVERED = 'followed: no check covers this link here'
ROOT_PARENT = ("followed: a mount root's d_parent is the directory its "
               "clone came from (R/own), not the one it is mounted in")


@dataclass(frozen=True)
class Rule:
    """What the race needs of a flavor's rule."""
    directory: str      # 'walk' or 'parent'; '' for no rule of its own
    links: str = 'every'

    def covers(self, position):
        return bool(self.directory) and (self.links == 'every'
                                         or position != 'inter')


def rule_of(flavor, directory=None):
    """The flavor's race rule; `directory` overrides its data (to judge a
    kernel by a rule it does not have and watch the judging fail)."""
    rule = flavor.rule
    if rule is None or not flavor.compiled:
        return Rule('')
    return Rule(directory or flavor.directory or rule.directory, rule.links)


def predict(rule, position, ps, renamed):
    """(outcome, cause) of one trial: REFUSED or FOLLOWED. A mount root is
    a trailing link cloned from R/own: never renamed, but its d_parent is
    R/own, so a `parent` rule judges a directory that is not sticky."""
    if position != 'inter' and ps:
        return REFUSED, MAINLINE
    if not rule.covers(position):
        return FOLLOWED, UNCOVERED
    if position == MOUNTROOT:
        return ((FOLLOWED, ROOT_PARENT) if rule.directory == 'parent'
                else (REFUSED, WALK))
    if not renamed:
        return REFUSED, IN_PLACE
    if rule.directory == 'parent':
        return FOLLOWED, BYPASS
    return REFUSED, WALK


def guarded(rule, position, ps):
    """Whether some check (mainline's or the rule) refuses the link where
    it was looked up: every open of it through R/sticky that succeeds is
    then a bypass (free-running mode)."""
    return rule.covers(position) or (position != 'inter' and ps == 1)


def judge_free(rule, records):
    """The free-running records as rows with the bypasses counted: a
    follow through R/sticky that succeeded where a check guards it. A
    bypass is a measurement here, not a problem: problems are the trials
    that judge nothing (a precondition, an unexpected error)."""
    rows, problems = [], []
    for rec in records:
        if rec.get('mode') != 'free':
            continue
        guard = guarded(rule, rec['position'], rec['protected_symlinks'])
        rows.append({k: rec[k] for k in (
            'position', 'protected_symlinks', 'tries', 'followed',
            'EACCES', 'ENOENT', 'other')} | {
                'guarded': guard,
                'bypasses': rec['followed'] if guard else 0})
        where = (f'{rec["position"]} '
                 f'protected_symlinks={rec["protected_symlinks"]}')
        if rec.get('problems'):
            problems.append(f'{where}: ' + '; '.join(rec['problems']))
        if rec['other']:
            problems.append(f'{where}: {rec["other"]} open(s) failed with '
                            f'{rec.get("other_error") or "a wrong content"}')
    return rows, problems


def judge(rule, records, window=True):
    """Judges the guest's window-mode records. Returns (groups, problems):
    one group per (position, protected_symlinks, renamed) with the trials'
    count, how many came out as predicted, the prediction and its cause."""
    problems = []
    groups = {}
    for rec in records:
        if rec.get('mode') != 'window':
            continue
        key = (rec['position'], rec['protected_symlinks'], rec['renamed'])
        want, cause = predict(rule, *key)
        g = groups.setdefault(key, {
            'position': key[0], 'protected_symlinks': key[1],
            'renamed': key[2], 'expected': want, 'cause': cause,
            'trials': 0, 'as_predicted': 0, 'results': {}})
        g['trials'] += 1
        g['results'][rec['result']] = g['results'].get(rec['result'], 0) + 1
        where = (f'{key[0]} protected_symlinks={key[1]} {kind(key)} '
                 f'trial {rec.get("trial")}')
        if rec.get('problems'):
            problems.append(f'{where}: ' + '; '.join(rec['problems']))
        elif rec['result'] != want:
            problems.append(f'{where}: {rec["result"]}, predicted {want} '
                            f'({cause})')
        else:
            g['as_predicted'] += 1
    if window:
        missing = [k for k in expected_keys() if k not in groups]
        for k in missing:
            problems.append(f'no trial of {k[0]} protected_symlinks={k[1]} '
                            f'{kind(k)}')
    return [groups[k] for k in sorted(groups)], problems


def kind(key):
    """What a group's trials are: the link renamed in the window, a control
    (nothing renamed), or the mount root (nothing to rename)."""
    if key[0] == MOUNTROOT:
        return 'mounted'
    return 'renamed' if key[2] else 'control'


def expected_keys():
    return [(p, ps, r) for p in POSITIONS for ps in PROTECTED_SYMLINKS
            for r in (True, False)] + [(MOUNTROOT, ps, False)
                                       for ps in PROTECTED_SYMLINKS]


def shown(group):
    """The groups the summary and the section show: the renamed links and
    the mount root (the controls are counted apart)."""
    return group['renamed'] or group['position'] == MOUNTROOT


def bypass_summary(groups):
    """'bypassed N of N' / 'refused N of N' per renamed group, the lines
    the command prints."""
    lines = []
    for g in groups:
        if not shown(g):
            continue
        word = 'bypassed' if g['cause'] in (BYPASS, ROOT_PARENT) else (
            'refused' if g['expected'] == REFUSED else 'followed')
        lines.append(f'{g["position"]} protected_symlinks='
                     f'{g["protected_symlinks"]}: {word} '
                     f'{g["as_predicted"]} of {g["trials"]} ({g["cause"]})')
    return lines


GENERATED = ('<!-- generated by `sticky.py race` from '
             'build/results/race-*.race.json and race-free.json -->')


def _cell(group):
    if group is None:
        return 'not run'
    word = {REFUSED: 'refused', FOLLOWED: 'followed'}[group['expected']]
    text = f'{word} {group["as_predicted"]}/{group["trials"]}'
    return f'**{text}**' if group['cause'] in (BYPASS, ROOT_PARENT) else text


def section(window, free, when):
    """The report's Markdown section: `window` is [(flavor, its .race.json
    object)], `free` the race-free.json object or None, `when` the line
    saying when and at which commit it was measured."""
    out = [GENERATED, '',
           '## The rename race: where the placements differ by construction',
           '', when, '',
           'Root follows a link owned by uid 1000 in root\'s 1777 directory '
           '`/tmp/race/sticky` (trailing: `l`; intermediate: `m` in '
           '`m/f`) while uid 1000 renames the link into its own 0755 '
           'directory `/tmp/race/own` inside a test-only window between '
           'the link\'s lookup and every check '
           '(`harness/fixtures/race-window`, docs/porting.md). v1\'s and '
           'Yama\'s hooks get no nameidata and judge the link\'s '
           '`d_parent` when they run; v3 and mainline judge the directory '
           'the walk found the link in. A cell counts the renamed trials '
           'that came out as predicted (`harness/experiments/'
           'racecases.py`); **bold**: a bypass, a check that covers the '
           'link followed it. ps = fs.protected_symlinks.', '',
           'A second shape differs by construction without any race: the '
           'link is a mount root. A\'s symlink `/tmp/race/own/r` is cloned '
           'with `open_tree(OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW)` and '
           'mounted with `move_mount()` onto A\'s symlink '
           '`/tmp/race/sticky/r`, which root then opens: the clone is the '
           'same dentry as `/tmp/race/own/r`, so its `d_parent` is '
           '`/tmp/race/own`, not the sticky directory it is mounted in '
           '(results/shapes.md has the control that shows it).', '',
           '| flavor | judges | trail, ps=0 | trail, ps=1 | inter, ps=0 | '
           'inter, ps=1 | mount root, ps=0 | mount root, ps=1 | '
           'control trials |',
           '| --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for name, obj in window:
        by = {(g['position'], g['protected_symlinks'], g['renamed']): g
              for g in obj['groups']}
        ctl = [g for g in obj['groups'] if not shown(g)]
        judges = {'parent': '`d_parent`', 'walk': 'the walk\'s directory',
                  '': 'no own rule'}[obj['directory']]
        out.append(f'| {name} | {judges} | '
                   + ' | '.join(_cell(by.get((p, ps, True)))
                                for p in POSITIONS
                                for ps in PROTECTED_SYMLINKS)
                   + ' | ' + ' | '.join(_cell(by.get((MOUNTROOT, ps, False)))
                                        for ps in PROTECTED_SYMLINKS)
                   + f' | {sum(g["as_predicted"] for g in ctl)}/'
                   f'{sum(g["trials"] for g in ctl)} as predicted |')
    out += ['', 'Causes: ' + '; '.join(
        f'*{c}*' for c in (BYPASS, ROOT_PARENT, WALK, MAINLINE,
                           UNCOVERED)) + '.', '',
        'Group ids: `race/<flavor>/<trail|inter|mountroot>/ps<0|1>/'
        '<renamed|control>`'
        '. To reproduce one flavor: `python3 harness/sticky.py build '
        'race-v1 && python3 harness/sticky.py race race-v1`; in a guest '
        'booted from a kernel with the window patch, as root: '
        '`/bin/sticky-race -w 100 -n 5 -k '
        '/proc/sys/fs/weak-sticky-symlinks=0 3>&1` prints one JSON '
        'record per trial.']
    if free:
        out += ['', f'### Without the window, on the unmodified kernels '
                f'({free["date"]})', '',
                f'`sticky.py race --free {free["tries"]}` (`make bench`): '
                f'uid 1000 renames the link back and forth as fast as it can '
                f'while root opens it {free["tries"]} times per shape, '
                f'`-smp {free["smp"]}` under TCG. A successful open where a '
                f'check guards the link is a bypass.', '',
                '| flavor | shape | bypasses | EACCES | ENOENT |',
                '| --- | --- | --- | --- | --- |']
        for f in free['flavors']:
            for r in f['rows']:
                if not r['guarded']:
                    continue
                out.append(f'| {f["flavor"]} | {r["position"]}, ps='
                           f'{r["protected_symlinks"]} | {r["bypasses"]} '
                           f'of {r["tries"]} | {r["EACCES"]} | '
                           f'{r["ENOENT"]} |')
    return '\n'.join(out) + '\n'
