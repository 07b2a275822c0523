"""Cover letters generated from a revision's series, never edited by hand.

<rev>/cover.txt holds the subject (first line) and the blurb (after a blank
line). The shortlog and diffstat come from `git format-patch --cover-letter`
run over the series applied to the pristine tree, so a cover letter can
never disagree with its patches: `check` regenerates and compares.
"""

import email.utils
import os
import re
import shutil
import tempfile

from flavors import series_patches
from kernel import tree
from stages import HarnessError

NAME = '0000-cover-letter.patch'
ZERO_FROM = 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001'


def _blurb(rev_dir):
    path = os.path.join(rev_dir, 'cover.txt')
    if not os.path.isfile(path):
        raise HarnessError(f'{path} not found: write the cover letter\'s '
                           f'subject on its first line and the blurb after '
                           f'a blank line')
    with open(path, encoding='utf-8') as f:
        text = f.read()
    subject, _, blurb = text.partition('\n\n')
    if not subject.strip() or '\n' in subject.strip() or not blurb.strip():
        raise HarnessError(f'{path}: expected one subject line, a blank '
                           f'line, then the blurb')
    return subject.strip(), blurb.strip()


def _header(patch, key):
    with open(patch, encoding='utf-8') as f:
        for line in f:
            if line.startswith(key + ': '):
                return line[len(key) + 2:].rstrip('\n')
            if not line.strip():
                break
    raise HarnessError(f'{patch} has no {key}: header: is it git '
                       f'format-patch output?')


def _prefix(patch):
    m = re.match(r'\[(PATCH.*?)\s*\d+/\d+\]', _header(patch, 'Subject'))
    if not m:
        raise HarnessError(f'{patch}: subject lacks "[PATCH ... n/m]": '
                           f'write the series with git format-patch -n')
    return m.group(1)


def _commit_series(pristine, patches, scratch):
    """Commits the series on top of `pristine` without a work tree (a
    private index), so no 75,000-file checkout is needed; returns HEAD."""
    env = dict(os.environ, GIT_INDEX_FILE=os.path.join(scratch, 'index'))
    head = tree.git(pristine, 'rev-parse', 'pristine').stdout.strip()
    tree.git(pristine, 'read-tree', head, env=env)
    for patch in patches:
        msg, body = (os.path.join(scratch, n) for n in ('msg', 'body'))
        with open(patch, 'rb') as f:
            info = tree.git(pristine, 'mailinfo', msg, body, stdin=f,
                            text=False).stdout.decode()
        hdr = dict(line.split(': ', 1) for line in info.splitlines()
                   if ': ' in line)
        res = tree.git(pristine, 'apply', '--cached', body, env=env,
                       check=False)
        if res.returncode:
            raise HarnessError(f'{patch} does not apply to the pristine '
                               f'tree:\n{res.stderr.strip()}')
        with open(msg, encoding='utf-8') as f:
            text = hdr.get('Subject', '') + '\n\n' + f.read()
        cenv = dict(env, GIT_AUTHOR_NAME=hdr.get('Author', ''),
                    GIT_AUTHOR_EMAIL=hdr.get('Email', ''),
                    GIT_AUTHOR_DATE=hdr.get('Date', ''))
        sha = tree.git(pristine, 'write-tree', env=env).stdout.strip()
        head = tree.git(pristine, 'commit-tree', sha, '-p', head,
                        input=text, env=cenv).stdout.strip()
    return head


def _summary(pristine, patches, scratch):
    """Shortlog and diffstat exactly as git format-patch writes them."""
    head = _commit_series(pristine, patches, scratch)
    out = os.path.join(scratch, 'out')
    tree.git(pristine, 'format-patch', '-q', '--cover-letter', '-o', out,
             f'pristine..{head}')
    with open(os.path.join(out, NAME), encoding='utf-8') as f:
        generated = f.read()
    return generated.split('*** BLURB HERE ***\n', 1)[1].lstrip('\n')


def render(rev_dir, pristine, build):
    """The cover letter of the series in rev_dir, as text."""
    patches = series_patches(os.path.basename(rev_dir),
                             os.path.dirname(rev_dir))
    subject, blurb = _blurb(rev_dir)
    os.makedirs(build, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix='cover-', dir=build)
    try:
        summary = _summary(pristine, patches, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    # The newest patch's date keeps the letter reproducible.
    date = email.utils.format_datetime(max(
        email.utils.parsedate_to_datetime(_header(p, 'Date'))
        for p in patches))
    name, mail = (x.split('=', 1)[1] for x in tree.IDENT[1::2])
    who = f'{name} <{mail}>'
    return (f'{ZERO_FROM}\nFrom: {who}\nDate: {date}\n'
            f'Subject: [{_prefix(patches[-1])} 0/{len(patches)}] {subject}\n'
            f'\n{blurb}\n\n{summary}')


def write(rev_dir, pristine, build):
    path = os.path.join(rev_dir, NAME)
    text = render(rev_dir, pristine, build)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
    return path


def check(rev_dir, pristine, build):
    """None if the committed cover letter is current, else what differs."""
    path = os.path.join(rev_dir, NAME)
    want = render(rev_dir, pristine, build)
    if not os.path.isfile(path):
        return f'{path} is missing'
    with open(path, encoding='utf-8') as f:
        have = f.read()
    if have == want:
        return None
    diff = [f'- {a}\n+ {b}' for a, b in zip(have.splitlines(),
                                            want.splitlines()) if a != b]
    extra = '' if diff else '\n(lengths differ)'
    return (f'{path} is stale: regenerate it with `python3 harness/sticky.py'
            f' cover-letters`:\n' + '\n'.join(diff[:6]) + extra)
