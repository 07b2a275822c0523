"""The case table, common/lib/cases.def, as Python rows.

The C suite expands the same file as X-macros (common/lib/suite.h and
cases.c); this module parses its lines, so that the suite and the model
read one table: the axes of the matrix (groups, mounts, owners, directory
modes, representative directories, targets, followers, positions,
operations, the mounts group's cases) and every property of their rows.
The names of the C enums (OWN_A, T_DIR, OP_STAT...) resolve to the rows'
names here; flags become frozensets of their names without "AX_".
"""

import os
import re
from dataclasses import dataclass
from functools import lru_cache

DEF = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'common', 'lib', 'cases.def')

_ROW = re.compile(r'^([A-Z]+)\((.*)\)\s*$')
_ARG = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[^,]+)\s*(?:,|$)')


class TableError(ValueError):
    """cases.def has a row this module cannot read."""


@dataclass(frozen=True)
class Target:
    name: str
    file: str           # its name under sa/t
    node: str           # "file", "dir", "absent" or "script"
    mode: int
    owner: str
    chown_to: str       # the owner whose uid a chown op gives it
    flags: frozenset


@dataclass(frozen=True)
class Position:
    name: str
    short: str
    kind: str           # "trailing" or "intermediate"
    target: str         # the positions group's target
    dirs: tuple         # the links' directories: "here", "ns", "sub", "xdir"
    second_owner: str   # None: the case's link owner
    control_path: str   # "target", "under" or "dotdot"
    flags: frozenset


@dataclass(frozen=True)
class Op:
    name: str
    target: str         # the ops group's target
    on_link: str        # "follows", "eloop", "eexist", "stat", "read",
                        # "delete", "times", "chown"
    control: str        # the semantics control.py predicts ("none": no
                        # control), lower case without "CTL_"
    flags: frozenset

    @property
    def nofollow(self):
        return self.on_link != 'follows'


@dataclass(frozen=True)
class Follower:
    name: str
    ids: tuple          # ruid, euid, suid, fsuid; gids the same numbers
    flags: frozenset


@dataclass(frozen=True)
class Table:
    groups: tuple       # (name, short, mount)
    mounts: dict        # name -> directory under SCRATCH
    owners: dict        # name -> uid
    owner_flags: dict
    dir_modes: tuple    # ("1777", flags) ...
    rep_dirs: tuple     # ("1777", "root", flags) ...
    targets: dict       # name -> Target, in the table's order
    followers: dict     # name -> Follower
    positions: dict     # name -> Position
    ops: dict           # name -> Op
    mount_cases: tuple  # (position, op, target) names
    settings: tuple     # (protected_symlinks, own) after `boot`
    needs: tuple = ()   # (row name or None for every case, (major, minor,
                        # ...), why): the oldest Linux that runs its cases


def _args(text, where):
    args, pos = [], 0
    while pos < len(text):
        m = _ARG.match(text, pos)
        if not m or m.end() == pos:
            raise TableError('%s: cannot read %r' % (where, text[pos:]))
        args.append(m.group(1).strip())
        pos = m.end()
    return args


def _value(arg):
    if arg.startswith('"'):
        return arg[1:-1]
    if re.fullmatch(r'0[0-7]+', arg):
        return int(arg, 8)
    if re.fullmatch(r'-?\d+', arg):
        return int(arg)
    return arg


def _flags(arg):
    if arg == '0':
        return frozenset()
    names = [part.strip() for part in arg.split('|')]
    if not all(re.fullmatch(r'AX_[A-Z_]+', n) for n in names):
        raise TableError('flags %r are not AX_ names' % (arg,))
    return frozenset(n[3:].lower() for n in names)


def _version(text):
    if not isinstance(text, str) or not re.fullmatch(r'\d+(\.\d+)+', text):
        raise TableError('version %r is not "<major>.<minor>"' % (text,))
    return tuple(int(x) for x in text.split('.'))


def _word(arg, prefix):
    if not arg.startswith(prefix):
        raise TableError('%r should start with %s' % (arg, prefix))
    return arg[len(prefix):].lower()


ARITY = {'GROUP': 4, 'MOUNT': 3, 'OWNER': 4, 'DIRMODE': 2, 'REPDIR': 3,
         'TARGET': 8, 'FOLLOWER': 7, 'POSITION': 10, 'OP': 6,
         'MOUNTCASE': 3, 'SETTING': 2, 'NEEDS': 3}


def rows(text):
    """(macro, [raw args], line number) of every table row."""
    out, comment = [], False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if comment:
            comment = '*/' not in stripped
            continue
        if stripped.startswith('/*'):
            comment = '*/' not in stripped
            continue
        if not stripped or stripped.startswith('#'):
            continue
        m = _ROW.match(stripped)
        if not m or m.group(1) not in ARITY:
            raise TableError('%s:%d: not a table row: %r'
                             % (DEF, number, stripped))
        args = _args(m.group(2), '%s:%d' % (DEF, number))
        if len(args) != ARITY[m.group(1)]:
            raise TableError('%s:%d: %s takes %d arguments, not %d'
                             % (DEF, number, m.group(1), ARITY[m.group(1)],
                                len(args)))
        out.append((m.group(1), args, number))
    return out


def parse(text):
    """The Table of cases.def's text."""
    ids = {}                # C enum id -> row name
    got = {name: [] for name in ARITY}
    for macro, args, _ in rows(text):
        got[macro].append(args)
        if macro in ('GROUP', 'MOUNT', 'OWNER', 'TARGET', 'FOLLOWER',
                     'POSITION', 'OP'):
            ids[args[0]] = _value(args[1])

    def name(arg):
        if arg not in ids:
            raise TableError('%s names no row of the table' % (arg,))
        return ids[arg]

    groups = tuple((_value(a[1]), _value(a[2]), name(a[3]))
                   for a in got['GROUP'])
    mounts = {_value(a[1]): _value(a[2]) for a in got['MOUNT']}
    targets = {}
    for a in got['TARGET']:
        targets[_value(a[1])] = Target(
            _value(a[1]), _value(a[2]), _word(a[3], 'NODE_'), _value(a[4]),
            name(a[5]), name(a[6]), _flags(a[7]))
    followers = {_value(a[1]): Follower(
        _value(a[1]), tuple(_value(x) for x in a[2:6]), _flags(a[6]))
        for a in got['FOLLOWER']}
    positions = {}
    for a in got['POSITION']:
        dirs = tuple(_word(d, 'LD_') for d in a[5:7] if d != 'LD_NONE')
        positions[_value(a[1])] = Position(
            _value(a[1]), _value(a[2]),
            {'K_TRAILING': 'trailing', 'K_INTERMEDIATE': 'intermediate'}[
                a[3]], name(a[4]), dirs,
            None if a[7] == 'LO_CASE' else name(a[7]), _word(a[8], 'CP_'),
            _flags(a[9]))
    needs = tuple((None if a[0] == 'ALL' else name(a[0]),
                   _version(_value(a[1])), _value(a[2]))
                  for a in got['NEEDS'])
    ops = {_value(a[1]): Op(_value(a[1]), name(a[2]), _word(a[3], 'LK_'),
                            _word(a[4], 'CTL_'), _flags(a[5]))
           for a in got['OP']}
    return Table(
        groups=groups, mounts=mounts,
        owners={_value(a[1]): _value(a[2]) for a in got['OWNER']},
        owner_flags={_value(a[1]): _flags(a[3]) for a in got['OWNER']},
        dir_modes=tuple(('%04o' % _value(a[0]), _flags(a[1]))
                        for a in got['DIRMODE']),
        rep_dirs=tuple(('%04o' % _value(a[0]), name(a[1]), _flags(a[2]))
                       for a in got['REPDIR']),
        targets=targets, followers=followers, positions=positions, ops=ops,
        mount_cases=tuple((name(a[0]), name(a[1]), name(a[2]))
                          for a in got['MOUNTCASE']),
        settings=tuple((_value(a[0]), _value(a[1]))
                       for a in got['SETTING']),
        needs=needs)


@lru_cache(maxsize=None)
def load(path=DEF):
    with open(path, encoding='utf-8') as f:
        return parse(f.read())


TABLE = load()


def ops_with(flag):
    return frozenset(n for n, op in TABLE.ops.items() if flag in op.flags)


def core(rows_):
    """The name of the row flagged AX_CORE."""
    return next(n for n, row in rows_.items() if 'core' in row.flags)
