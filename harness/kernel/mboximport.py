"""sticky.py import-mbox: a new revision directory from a local mbox.

The mbox is what `git format-patch --stdout` or `b4 am` writes, or
format-patch files concatenated. Its patches are the messages with a diff
and a "[PATCH ... n/m]" subject (replies are skipped), taken in n order; a
0/m cover letter's subject and blurb become cover.txt, else cover.txt is a
stub made from patch 1's subject. The patches are applied with `git am` to
the pristine tree in a scratch detached worktree without a checkout (a
full 6.1 checkout is 75,000 files: git am checks out from the index only
the files it patches), and written out again with `git format-patch`:
the revision's patches are normalised and known to apply. What a patch
says between its `---` line and its diffstat (the version notes, which
git am drops) is kept as a git note and written back by `format-patch
--notes`, as v3/ has it. Then come `series`, the generated cover letter
(harness/kernel/coverletter.py) and a revision.ini stub in which whatever the
importer cannot know is FILL-IN.

Everything is written into a temporary sibling of the new directory,
renamed into place at the end; a refusal, an error or Ctrl-C leaves no
revision directory, no worktree and no branch or notes ref behind.
"""

import email
import email.policy
import os
import re
import shutil
import subprocess
import tempfile
import textwrap
from dataclasses import dataclass

from kernel import coverletter
from kernel import tree
from stages import HarnessError

FILL = 'FILL-IN'
# The keys of <rev>/revision.ini after `describe` (see v1/revision.ini).
REVISION_KEYS = ('hook', 'call', 'links', 'needs', 'knob_path', 'protect',
                 'polarity', 'doc', 'log_text')
STUB_BLURB = (f'{FILL}: the blurb of the cover letter: what this revision '
              f'is,\nwhere it was posted, what the port changed.')
# "[RFC PATCH v4 1/2] title": the prefix kept is the part from PATCH on,
# which harness/kernel/coverletter.py requires.
TAG = re.compile(r'\[[^\]]*?\b(PATCH\b[^\]]*?)\s*(?:(\d+)/(\d+))?\s*\]\s*(.*)',
                 re.I)
REPLY = re.compile(r'\s*(re|aw|fwd?)\s*:', re.I)
DIFF = re.compile(r'^(diff --git |--- \S.*\n\+\+\+ \S)', re.M)
SHORTLOG = re.compile(r'^\S[^\n]* \(\d+\):\n[ \t]+\S', re.M)
# Where a patch's notes end: its diffstat, or its diff.
NOTES_END = re.compile(r'^( \S.* \| +\d+| \d+ files? changed|diff --git )',
                       re.M)


@dataclass
class Mail:
    path: str       # the message, as git mailsplit wrote it
    subject: str
    prefix: str     # 'PATCH v4' ('' without a [PATCH] tag)
    number: int     # n of n/m, None when unnumbered
    total: int      # m of n/m, None when unnumbered
    title: str      # the subject without its tags
    text: str       # the decoded text parts

    @property
    def label(self):
        num = f' {self.number}/{self.total}' if self.number is not None \
            else ''
        return f'[{self.prefix or "PATCH"}{num}] "{self.title}"'


@dataclass
class Imported:
    dest: str
    mbox: str
    prefix: str
    subject: str
    from_cover: bool  # cover.txt came from a 0/m cover letter
    patches: list     # file names, in series order


def _text(msg):
    parts = []
    for part in msg.walk():
        if part.get_content_maintype() != 'text':
            continue
        try:
            parts.append(part.get_content())
        except (LookupError, ValueError):
            raw = part.get_payload(decode=True) or b''
            parts.append(raw.decode('utf-8', 'replace'))
    return '\n'.join(parts).replace('\r\n', '\n')


def parse_subject(subject):
    """(prefix, n, m, title); n and m are None when unnumbered, the prefix
    is '' without a [PATCH] tag."""
    m = TAG.search(subject)
    if not m:
        return '', None, None, subject
    return ('PATCH' + m.group(1)[5:],
            int(m.group(2)) if m.group(2) else None,
            int(m.group(3)) if m.group(3) else None, m.group(4).strip())


def _mail(path):
    with open(path, 'rb') as f:
        msg = email.message_from_binary_file(f, policy=email.policy.default)
    subject = ' '.join(str(msg.get('Subject', '')).split())
    return Mail(path, subject, *parse_subject(subject), _text(msg))


def read_mails(mbox, out):
    """Splits the mbox with git mailsplit (as git am does) into `out`."""
    try:
        with open(mbox, 'rb'):
            pass
    except OSError as e:
        raise HarnessError(f'cannot read the mbox {mbox}: {e.strerror}: give '
                           f'a local mbox (git format-patch --stdout, b4 am)')
    os.makedirs(out)
    res = subprocess.run(['git', 'mailsplit', f'-o{out}', mbox],
                         capture_output=True, text=True)
    names = sorted(os.listdir(out))
    if res.returncode or not names:
        why = (res.stderr.strip().splitlines() or ['empty'])[0]
        raise HarnessError(f'{mbox} holds no patches: it is not an mbox '
                           f'({why}); write one with git format-patch '
                           f'--stdout or b4 am')
    return [_mail(os.path.join(out, n)) for n in names]


def _refuse_numbering(patches, covers, mbox):
    totals = {p.total for p in patches + covers}
    prefixes = {p.prefix for p in patches + covers}
    if len(totals) > 1 or len(prefixes) > 1 or len(covers) > 1:
        raise HarnessError(f'{mbox} holds more than one series (' + ', '.join(
            sorted(p.label for p in covers + patches)) + '): keep one '
            'version of it (b4 am -v N) and import that')
    numbers = [p.number for p in patches]
    total = totals.pop()
    dup = sorted({n for n in numbers if numbers.count(n) > 1})
    if dup:
        raise HarnessError(f'{mbox} holds patch {dup[0]}/{total} twice: '
                           f'remove the copy that is not part of the series')
    missing = [n for n in range(1, total + 1) if n not in numbers]
    if missing or len(numbers) != total:
        what = (f'lacks patch {missing[0]}/{total}' if missing else
                f'numbers patches beyond {total}')
        raise HarnessError(f'{mbox} {what}: fetch the whole series '
                           f'(b4 am <message-id>) and import that')


def select(mails, mbox):
    """(cover letter or None, patches in series order)."""
    mails = [m for m in mails if not REPLY.match(m.subject)]
    covers = [m for m in mails if m.number == 0]
    patches = [m for m in mails if m.prefix and m.number != 0
               and DIFF.search(m.text)]
    if not patches:
        raise HarnessError(f'{mbox} holds no patches (no message with a diff '
                           f'and a [PATCH] subject): give the mbox of the '
                           f'series (git format-patch --stdout, b4 am)')
    empty = [m for m in mails if m.prefix and m.number != 0
             and m not in patches]
    if empty:
        raise HarnessError(f'{mbox}: {empty[0].label} holds no diff: give '
                           f'the mbox of the series as posted')
    numbered = [p for p in patches if p.number is not None]
    if numbered and len(numbered) != len(patches):
        raise HarnessError(f'{mbox} mixes numbered and unnumbered patches '
                           f'({patches[0].label}, ...): give one series')
    if numbered:
        _refuse_numbering(patches, covers, mbox)
        patches.sort(key=lambda p: p.number)
    return (covers[0] if covers else None), patches


def blurb(text):
    """A cover letter's blurb: no shortlog, diffstat or signature."""
    sig = text.rfind('\n-- \n')
    if sig >= 0:
        text = text[:sig]
    m = SHORTLOG.search(text)
    if m:
        text = text[:m.start()]
    lines = text.replace('*** BLURB HERE ***', '').rstrip().splitlines()
    while lines and lines[-1].strip() in ('', '---'):
        lines.pop()
    return '\n'.join(lines).strip('\n')


def notes(text):
    """The text between a patch's `---` line and its diffstat or diff,
    without format-patch's "Notes:" heading and indent; '' for none."""
    m = re.search(r'^---[ \t]*$', text, re.M)
    end = m and NOTES_END.search(text, m.end())
    if not end:
        return ''
    note = text[m.end():end.start()].strip('\n')
    head = re.match(r'Notes( \(.*\))?:\n', note)
    if head:
        note = textwrap.dedent(note[head.end():])
    return note.strip()


def cover_text(cover, first):
    """(subject, blurb, from_cover) for cover.txt."""
    subject = cover.title if cover else ''
    if not subject or '*** SUBJECT HERE ***' in subject:
        subject = first.title
    text = blurb(cover.text) if cover else ''
    return subject, text or STUB_BLURB, bool(cover and text)


def _check_pristine(pristine):
    if not os.path.isdir(os.path.join(pristine, '.git')) or tree.git(
            pristine, 'rev-parse', '--verify', '-q', 'pristine^{commit}',
            check=False).returncode:
        raise HarnessError(f'no pristine tree at {pristine}: run `make kernel '
                           f'FLAVOR=base` first (it creates build/pristine)')
    return tree.git(pristine, 'rev-parse', 'pristine^{commit}').stdout.strip()


def _apply(pristine, base, wt, patches):
    """git am in a detached worktree of `base` with its index but no
    checkout: git apply checks out from the index each file it patches."""
    tree.git(pristine, 'worktree', 'add', '-q', '--no-checkout', '--detach',
             wt, base)
    tree.git(wt, 'read-tree', base)
    # No automatic gc: a repack of the 6.1 tree is not for an import.
    res = tree.git(wt, '-c', 'gc.auto=0', '-c', 'maintenance.auto=false',
                   'am', '-q', '--whitespace=nowarn',
                   '--committer-date-is-author-date',
                   *[p.path for p in patches], check=False)
    if res.returncode:
        out = res.stdout + res.stderr
        labels = [f'patch {i}/{len(patches)}'
                  for i in range(1, len(patches) + 1)]
        which, where = tree._am_failure(out, labels)
        if not which.startswith('patch '):
            which = 'the series'
        said = next((x for x in out.splitlines() if x.startswith('error:')),
                    out.strip().splitlines()[0] if out.strip() else '')
        raise HarnessError(f'{which} does not apply to the pristine tree '
                           f'{pristine}{where} (git am: {said}): rebase the '
                           f'series onto it and export the mbox again; '
                           f'nothing was written')


def _export(wt, base, patches, staged, env):
    """format-patch of the applied series into `staged`, each commit
    carrying its patch's notes (in the notes ref env names); returns the
    file names."""
    commits = tree.git(wt, 'rev-list', '--reverse',
                       f'{base}..HEAD').stdout.split()
    if len(commits) != len(patches):
        raise HarnessError(f'git am made {len(commits)} commits of '
                           f'{len(patches)} patches: nothing was written')
    for commit, patch in zip(commits, patches):
        note = notes(patch.text)
        if note:
            tree.git(wt, 'notes', 'add', '-F', '-', commit, env=env,
                     input=note + '\n')
    prefix = patches[0].prefix or 'PATCH'
    tree.git(wt, 'format-patch', '-q', '-n', '--notes',
             f'--subject-prefix={prefix}', '-o', staged, f'{base}..HEAD',
             env=env)
    names = sorted(os.listdir(staged))
    # Notes not in refs/notes/commits are headed "Notes (<ref>):".
    ref = env['GIT_NOTES_REF'][len('refs/notes/'):]
    head = f'\nNotes ({ref}):\n'.encode()
    for name in names:
        path = os.path.join(staged, name)
        with open(path, 'rb') as f:
            text = f.read()
        if head in text:
            with open(path, 'wb') as f:
                f.write(text.replace(head, b'\nNotes:\n', 1))
    return names


def _remove_worktree(pristine, wt):
    res = tree.git(pristine, 'worktree', 'remove', '--force', wt,
                   check=False)
    if res.returncode:
        shutil.rmtree(wt, ignore_errors=True)
        tree.git(pristine, 'worktree', 'prune', check=False)


def _write(path, text):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)


def revision_ini(describe, mbox):
    keys = ''.join(f'{k} = {FILL}\n' for k in REVISION_KEYS)
    return ("# What the harness and the differ know about this revision's "
            "rule: data,\n# read by harness/revision.py. docs/reviewing.md "
            "lists every key.\n"
            f"# Imported from {os.path.basename(mbox)}: replace every {FILL}."
            f"\n[revision]\ndescribe = {describe}\n{keys}")


def _stage(staged, names, subject, text, describe, mbox):
    _write(os.path.join(staged, 'series'), ''.join(n + '\n' for n in names))
    _write(os.path.join(staged, 'cover.txt'), f'{subject}\n\n{text}\n')
    _write(os.path.join(staged, 'revision.ini'),
           revision_ini(describe, mbox))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staged, 0o777 & ~umask)  # mkdtemp made it 0700


def import_mbox(mbox_path, dest_dir, pristine_git_dir, scratch_dir=None):
    """Imports the series in mbox_path as the revision dest_dir (which must
    not exist); scratch_dir holds the worktree meanwhile (default: the
    system's temporary directory). Returns an Imported."""
    dest = os.path.abspath(dest_dir)
    # git -C takes relative paths from the repository, not from here.
    pristine_git_dir = os.path.abspath(pristine_git_dir)
    scratch_dir = scratch_dir and os.path.abspath(scratch_dir)
    name, parent = os.path.basename(dest), os.path.dirname(dest)
    if os.path.lexists(dest):
        raise HarnessError(f'{dest_dir} already exists: name a new revision '
                           f'directory (e.g. v4), or remove this one first')
    if not os.path.isdir(parent):
        raise HarnessError(f'{parent} does not exist: the revision directory '
                           f'goes at the top of the project (e.g. v4)')
    scratch = tempfile.mkdtemp(prefix='import-mbox-', dir=scratch_dir)
    wt = os.path.join(scratch, 'wt')
    # A notes ref of this import only (refs are shared by worktrees).
    ref = f'refs/notes/{os.path.basename(scratch)}'
    env = dict(os.environ, GIT_NOTES_REF=ref)
    staged = added = None
    try:
        cover, patches = select(read_mails(mbox_path,
                                           os.path.join(scratch, 'mail')),
                                mbox_path)
        base = _check_pristine(pristine_git_dir)
        added = True
        _apply(pristine_git_dir, base, wt, patches)
        staged = tempfile.mkdtemp(prefix=f'.{name}.import-', dir=parent)
        names = _export(wt, base, patches, staged, env)
        subject, text, from_cover = cover_text(cover, patches[0])
        _stage(staged, names, subject, text, f'{name}: {subject}', mbox_path)
        coverletter.write(staged, pristine_git_dir, scratch)
        if os.path.lexists(dest):
            raise HarnessError(f'{dest_dir} appeared while importing: '
                               f'nothing was written')
        os.rename(staged, dest)
        staged = None
    finally:
        if added:
            _remove_worktree(pristine_git_dir, wt)
            tree.git(pristine_git_dir, 'update-ref', '-d', ref, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
        if staged:
            shutil.rmtree(staged, ignore_errors=True)
    return Imported(dest, mbox_path, patches[0].prefix or 'PATCH', subject,
                    from_cover, names)


def flavor_stub(res, top):
    """The harness/flavors.ini section to paste, FILL-IN where unknown."""
    name = os.path.basename(res.dest)
    rel = os.path.relpath(res.dest, top)
    series = res.dest if rel.startswith('..') else rel
    return (f'# {name}: imported from {os.path.basename(res.mbox)}; replace '
            f'every {FILL} (docs/reviewing.md, section 1)\n'
            f'[{name}]\nseries = {series}\nconfig = {FILL}\n'
            f'pick_link_order = {FILL}\n'
            f'describe = {name}: {res.subject}\nboot_knobs = {FILL}\n'
            f'extra = yes\n')


def summary(res, top):
    """What was made and what to do next, for the user."""
    name = os.path.basename(res.dest)
    rel = os.path.relpath(res.dest, top)
    where = res.dest if rel.startswith('..') else rel
    files = ''.join(f'  {n}\n' for n in res.patches)
    cover = '' if res.from_cover else (
        f'  - {where}/cover.txt is a stub: write the blurb, then\n'
        f'    python3 harness/sticky.py cover-letters\n')
    return (f'Imported {len(res.patches)} patch(es) [{res.prefix}] into '
            f'{where}/ (cover.txt from '
            f'{"the cover letter" if res.from_cover else "patch 1"}):\n'
            f'{files}\nNext:\n'
            f'  - {where}/revision.ini: replace every {FILL} '
            f'(docs/reviewing.md); the\n'
            f'    harness refuses a revision.ini with one left\n'
            f'{cover}'
            f'  - paste this section into harness/flavors.ini, one per '
            f'configuration\n    to test, and replace its {FILL}s:\n\n'
            f'{flavor_stub(res, top)}\n'
            f'  - then:\n'
            f'    python3 harness/sticky.py checkpatch\n'
            f'    make kernel FLAVOR={name}\n'
            f'    python3 harness/sticky.py smoke {name}\n'
            f'    python3 harness/sticky.py suite {name}\n'
            f'    make diff-check report      (add a pair to '
            f'harness/pairs.ini to compare it\n'
            f'                                 with a revision of your '
            f'choice)')


def cmd(args):
    pristine = args.pristine or os.path.join(args.build_dir, 'pristine')
    scratch = args.build_dir if os.path.isdir(args.build_dir) else None
    res = import_mbox(args.mbox, os.path.join(args.top, args.directory),
                      pristine, scratch_dir=scratch)
    print(summary(res, args.top), flush=True)
    return 0


def add_parser(sub):
    p = sub.add_parser('import-mbox', help='a new revision directory from '
                       'a local mbox (git format-patch --stdout, b4 am)')
    p.add_argument('mbox', metavar='MBOX')
    p.add_argument('directory', metavar='DIR',
                   help='the new revision directory, relative to the '
                   'project top (e.g. v4)')
    p.add_argument('--pristine', default=None,
                   help='the pristine git repository (default: '
                   'BUILD_DIR/pristine)')
    p.set_defaults(func=cmd)
