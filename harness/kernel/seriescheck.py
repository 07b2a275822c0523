"""checkpatch.pl --strict over every patch of every revision directory,
and the series' own consistency: each series numbered 1/N..N/N under one
subject prefix, its cover letter 0/N under the same, and a patch carried
by two series (the same subject) making the same change in both.
"""

import os
import re
import subprocess

import revision
from flavors import series_patches
from stages import HarnessError, log


def revisions(top):
    return sorted(e for e in os.listdir(top)
                  if os.path.isfile(os.path.join(top, e, 'series')))


def checkpatch(src, patch):
    """Returns (errors, warnings, checks, lines of findings)."""
    script = os.path.join(src, 'scripts', 'checkpatch.pl')
    if not os.path.isfile(script):
        raise HarnessError(f'{script} not found: build the pristine tree '
                           f'first (`make kernels`)')
    res = subprocess.run(['perl', script, '--no-tree', '--strict',
                          '--terse', patch], capture_output=True, text=True)
    out = res.stdout + res.stderr
    m = re.search(r'total: (\d+) errors, (\d+) warnings, (\d+) checks', out)
    if not m and res.returncode == 0 and not out.strip():
        return 0, 0, 0, []      # --terse prints nothing for a clean patch
    if not m:
        raise HarnessError(f'checkpatch gave no totals for {patch}:\n{out}')
    findings = [line for line in out.splitlines()
                if re.search(r': (ERROR|WARNING|CHECK):', line)]
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), findings


SUBJECT = re.compile(r'\[(?P<prefix>PATCH[^\]]*?)\s*(?P<n>\d+)/(?P<of>\d+)\]'
                     r'\s*(?P<title>.*)')


def _subject(patch):
    """The Subject: header, its folded lines joined."""
    lines = []
    with open(patch, encoding='utf-8', errors='replace') as f:
        for line in f:
            if lines and line[:1] in ' \t':
                lines.append(line.strip())
                continue
            if lines or not line.strip():
                break
            if line.startswith('Subject: '):
                lines.append(line[len('Subject: '):].strip())
    return ' '.join(lines)


def _change(patch):
    """The patch's diff, from its first "diff --git" line on, without the
    format-patch signature."""
    with open(patch, encoding='utf-8', errors='replace') as f:
        text = f.read()
    start = text.find('\ndiff --git ')
    return text[start + 1:].rsplit('\n-- \n', 1)[0] if start >= 0 else ''


def revises(top, rev):
    """The revision whose posting `rev` revises (revision.ini's optional
    `revises`), or None."""
    if not os.path.isfile(os.path.join(top, rev, revision.FILE)):
        return None
    return revision.load(rev, top).revises or None


def consistency(top):
    """Problems with the series' numbering, prefixes and shared patches,
    as sentences naming the file and the fix.  Two series' patches with
    one subject must carry one change, unless one series revises the
    other's posting (`revises` in its revision.ini)."""
    problems = []
    seen = {}
    for rev in revisions(top):
        parent = revises(top, rev)
        patches = series_patches(rev, top)
        cover = os.path.join(top, rev, '0000-cover-letter.patch')
        prefixes = set()
        for n, patch in enumerate(patches, 1):
            name = os.path.relpath(patch, top)
            if os.path.dirname(name) != rev:
                problems.append(f'{rev}/series names {name}, outside {rev}/: '
                                f'format the patch into {rev}/ with the '
                                f'series\' own --subject-prefix')
            m = SUBJECT.match(_subject(patch))
            if not m:
                problems.append(f'{name}: subject lacks "[PATCH ... n/m]": '
                                f'write the series with git format-patch -n')
                continue
            prefixes.add(m.group('prefix'))
            if (int(m.group('n')), int(m.group('of'))) != (n, len(patches)):
                problems.append(f'{name}: numbered {m.group("n")}/'
                                f'{m.group("of")}, but it is patch {n} of '
                                f'{len(patches)} in {rev}/series')
            key = m.group('title')
            other = seen.get(key)
            revised = (other is not None and parent is not None and
                       os.path.relpath(other, top).split(os.sep)[0] == parent)
            if other and not revised and _change(other) != _change(patch):
                problems.append(f'{name} and {os.path.relpath(seen[key], top)}'
                                f' share the subject "{key}" but not the '
                                f'change: format both from one commit')
            seen.setdefault(key, patch)
        if os.path.isfile(cover):
            m = SUBJECT.match(_subject(cover).replace(' 0/', ' 1/', 1))
            if m:
                prefixes.add(m.group('prefix'))
        if len(prefixes) > 1:
            problems.append(f'{rev}: its patches and cover letter use '
                            f'{len(prefixes)} subject prefixes ('
                            + ', '.join(f'[{p}]' for p in sorted(prefixes))
                            + '): format them with one --subject-prefix')
    return problems


def run(top, src):
    bad = 0
    for problem in consistency(top):
        log(f'not ok {problem}')
        bad += 1
    for rev in revisions(top):
        for patch in series_patches(rev, top):
            e, w, c, findings = checkpatch(src, patch)
            name = os.path.relpath(patch, top)
            log(f'{"ok" if e == 0 else "not ok"} {name}: {e} errors, '
                f'{w} warnings, {c} checks')
            for line in findings:
                print(f'    {line.split(":", 1)[-1].strip()}')
            bad += e > 0
    return bad == 0
