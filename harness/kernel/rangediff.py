"""git range-diff between the steps of the rule's lineage.

Each revision's series is committed on top of the pristine tree's commit
straight from its patch files (no worktree, no built kernel), in a
temporary object directory that borrows build/pristine's objects: the
pristine repository, which the kernel builds share, is only read.  The
steps are the consecutive entries of harness/lineage.ini whose first
column is a flavor with a series; each gives build/range-diff/<a>..<b>.txt.
"""

import configparser
import os
import re
import shutil
import tempfile
from dataclasses import dataclass

import flavors as flv
from kernel import tree
from stages import HarnessError

LINEAGE_INI = os.path.join(flv.HARNESS, 'lineage.ini')
OUT_DIR = 'range-diff'
BASE_REF = 'pristine'
# The revisions share little text; a high creation factor makes range-diff
# pair one revision's patch with the next one's and show how it changed.
RANGE_DIFF = ('range-diff', '--no-color', '--creation-factor=100')


@dataclass(frozen=True)
class Step:
    """Two consecutive lineage entries; `why_not` says why they have no
    code diff ('' when they have one)."""

    a: str          # lineage.ini section names
    b: str
    flavor_a: str   # their first column ('' for none)
    flavor_b: str
    why_not: str = ''

    @property
    def file_name(self):
        return f'{self.flavor_a}..{self.flavor_b}.txt'


def read_lineage(path=LINEAGE_INI):
    """[(step name, [column flavors])] of lineage.ini, oldest first."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding='utf-8') as stream:
            parser.read_file(stream)
    except FileNotFoundError:
        raise HarnessError(f'{path} is missing: the lineage steps come '
                           f'from it') from None
    return [(name, parser[name].get('columns', '').split())
            for name in parser.sections()]


def _why_no_series(name, columns, specs):
    if not columns:
        return f'{name} has no flavor: no column in lineage.ini'
    spec = specs.get(columns[0])
    if spec is None:
        raise HarnessError(f'lineage.ini [{name}] names flavor '
                           f'{columns[0]}, which flavors.ini lacks')
    if not spec.series:
        return (f'{name} is the pristine tree itself: {columns[0]} has no '
                f'series')
    return ''


def all_steps(entries, specs):
    """Every two consecutive lineage entries as a Step, in order.
    `entries` is read_lineage()'s list, `specs` flavors.ini's flavors."""
    out = []
    for (a, cols_a), (b, cols_b) in zip(entries, entries[1:]):
        why = [w for w in (_why_no_series(a, cols_a, specs),
                           _why_no_series(b, cols_b, specs)) if w]
        out.append(Step(a, b, cols_a[0] if cols_a else '',
                        cols_b[0] if cols_b else '', '; '.join(why)))
    return out


def steps(entries=None, specs=None):
    """The steps that have a code diff, oldest first."""
    entries = read_lineage() if entries is None else entries
    specs = flv.load() if specs is None else specs
    return [s for s in all_steps(entries, specs) if not s.why_not]


def _series(spec, top):
    """The patch files of a flavor's series, the cover letter left out."""
    return [p for p in flv.series_patches(spec.series, top)
            if not os.path.basename(p).startswith('0000-')]


class Committer:
    """Commits series on one base in a temporary object directory that
    borrows `repo`'s objects, so `repo` itself is only read."""

    def __init__(self, repo, base=BASE_REF):
        objects = os.path.join(repo, '.git', 'objects')
        if not os.path.isdir(objects):
            raise HarnessError(
                f'{repo} is not a git repository: the range-diffs commit '
                f'each series on the pristine tree; extract it with '
                f'`python3 harness/sticky.py checkpatch` (which extracts '
                f'it first) or `make kernels`')
        self.repo = repo
        self.tmp = tempfile.mkdtemp(prefix='range-diff.')
        os.mkdir(os.path.join(self.tmp, 'objects'))
        self.env = dict(os.environ,
                        GIT_OBJECT_DIRECTORY=os.path.join(self.tmp, 'objects'),
                        GIT_ALTERNATE_OBJECT_DIRECTORIES=objects,
                        GIT_INDEX_FILE=os.path.join(self.tmp, 'index'))
        res = self.git('rev-parse', '--verify', '-q', base + '^{commit}',
                       check=False)
        if res.returncode:
            self.close()
            raise HarnessError(f'{repo} has no ref {base}: extract the '
                               f'pristine tree again (remove {repo} and run '
                               f'`make kernels`)')
        self.base = res.stdout.strip()

    def git(self, *args, check=True, env=None, input=None):
        return tree.git(self.repo, *args, check=check,
                        env=dict(self.env, **(env or {})), input=input)

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def commit_patch(self, parent, patch):
        """The commit of `patch` on `parent`, its author, committer and
        dates those of the patch's From: and Date: headers."""
        self.git('read-tree', parent)
        res = self.git('apply', '--cached', patch, check=False)
        if res.returncode:
            raise HarnessError(f'{patch} does not apply on the pristine '
                               f'tree:\n{res.stderr.strip()}')
        tree_id = self.git('write-tree').stdout.strip()
        who, message = self.mail_info(patch)
        ident = {'GIT_AUTHOR_NAME': who['Author'],
                 'GIT_AUTHOR_EMAIL': who['Email'],
                 'GIT_AUTHOR_DATE': who['Date'],
                 'GIT_COMMITTER_NAME': who['Author'],
                 'GIT_COMMITTER_EMAIL': who['Email'],
                 'GIT_COMMITTER_DATE': who['Date']}
        return self.git('commit-tree', tree_id, '-p', parent, env=ident,
                        input=message).stdout.strip()

    def mail_info(self, patch):
        """({Author, Email, Subject, Date}, commit message) of a patch
        file, as `git am` reads them."""
        msg, diff = (os.path.join(self.tmp, n) for n in ('msg', 'patch'))
        with open(patch, encoding='utf-8') as stream:
            res = self.git('mailinfo', msg, diff, input=stream.read())
        info = dict(line.split(': ', 1) for line in res.stdout.splitlines()
                    if ': ' in line)
        missing = [k for k in ('Author', 'Email', 'Subject', 'Date')
                   if not info.get(k)]
        if missing:
            raise HarnessError(f"{patch} lacks {', '.join(missing)} in its "
                               f'mail headers: regenerate it with `git '
                               f'format-patch`')
        with open(msg, encoding='utf-8') as stream:
            body = stream.read().strip()
        return info, info['Subject'] + ('\n\n' + body if body else '') + '\n'

    def commit_series(self, patches):
        """The tip of the commits of `patches`, in order, on the base."""
        head = self.base
        for patch in patches:
            head = self.commit_patch(head, patch)
        return head

    def range_diff(self, tip_a, tip_b):
        return self.git(*RANGE_DIFF, f'{self.base}..{tip_a}',
                        f'{self.base}..{tip_b}').stdout


# The commit ids in range-diff's pair lines ("1:  1a2b3c4 ! 1:  5d6e7f8
# subject", "-:  ------- > 1:  5d6e7f8 subject") depend on the pristine
# commit, which is made when the tree is extracted (its date) from the
# Debian 6.1.x point release of the day, and their abbreviated length on
# the size of the repository: they would make the committed text differ
# from machine to machine with no change of code.  They are replaced by a
# fixed mark (a missing side's dashes by as many as the mark); the numbers
# still name the patches.
_PAIR_LINE = re.compile(r'^((?:\d+|-):\s+)(\S+)( [<>!=] (?:\d+|-):\s+)'
                        r'(\S+)( |$)', re.M)
HASH_MARK = 'xxxxxxx'


def _mark(commit):
    return '-' * len(HASH_MARK) if set(commit) == {'-'} else HASH_MARK


def normalise(text):
    return _PAIR_LINE.sub(
        lambda m: m.group(1) + _mark(m.group(2)) + m.group(3)
        + _mark(m.group(4)) + m.group(5), text)


def header(a, b):
    """The first line of a step's file: how a reader makes it again."""
    return (f'# python3 harness/sticky.py range-diff {a} {b}: git '
            f"{' '.join(RANGE_DIFF)} "
            f'pristine..{a} pristine..{b} ({a}/ and {b}/ committed on '
            f'the pristine tree; commit ids as {HASH_MARK})\n')


def step_text(committer, tips, a, b):
    return header(a, b) + '\n' + normalise(
        committer.range_diff(tips[a], tips[b]))


def write_steps(build, pairs, top=flv.TOP, specs=None):
    """Writes build/range-diff/<a>..<b>.txt for each (a, b) flavor pair;
    returns the paths."""
    specs = flv.load() if specs is None else specs
    for name in {n for pair in pairs for n in pair}:
        if name not in specs or not specs[name].series:
            raise HarnessError(f'{name} is not a flavor with a series in '
                               f'flavors.ini: no code to diff')
    committer = Committer(os.path.join(build, 'pristine'))
    out_dir = os.path.join(build, OUT_DIR)
    try:
        os.makedirs(out_dir, exist_ok=True)
        tips = {n: committer.commit_series(_series(specs[n], top))
                for n in sorted({n for pair in pairs for n in pair})}
        paths = []
        for a, b in pairs:
            path = os.path.join(out_dir, f'{a}..{b}.txt')
            with open(path, 'w', encoding='utf-8') as stream:
                stream.write(step_text(committer, tips, a, b))
            paths.append(path)
        return paths
    finally:
        committer.close()


def write(build, a=None, b=None, top=flv.TOP):
    """Writes every lineage step's range-diff, or only a..b's."""
    if (a is None) != (b is None):
        raise HarnessError('range-diff takes two flavors or none')
    if a is not None:
        return write_steps(build, [(a, b)], top)
    return write_steps(build, [(s.flavor_a, s.flavor_b) for s in steps()],
                       top)
