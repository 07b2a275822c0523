"""A revision's rule, read from <revision>/revision.ini.

Everything the harness, the guest and the differ know about a revision's
sticky-symlink rule is data beside its patches: where the check sits, which
links it checks, what compiles it out, its knob, polarity, documentation
and log text. docs/reviewing.md lists the keys.
"""

import configparser
import os
from dataclasses import dataclass

from stages import HarnessError

FILE = 'revision.ini'
HOOKS = ('lsm', 'vfs')          # an LSM hook (raw i_uid) or the VFS itself
LINKS = ('every', 'trailing')
# Which directory the rule judges: the one the walk looked the link up in
# (nd->inode, nd->dir_mode: only the VFS has it), or the link's d_parent
# when the check runs (all an LSM hook can read). Optional key `directory`;
# its default is the only one an LSM hook can have, and the walk's for the
# VFS.
DIRECTORIES = ('walk', 'parent')
# Which bits of that directory make the rule apply (optional key
# `directory_bits`): the 2010 rule's sticky and world-writable directory
# (S_ISVTX and S_IWOTH), or the sticky bit alone (OWLSM, 2001). And the
# errno a refusal answers (optional key `errno`): the 2010 rule's EACCES,
# or OWLSM's EPERM.
DIRECTORY_BITS = ('sticky world-writable', 'sticky')
ERRNOS = ('EACCES', 'EPERM')
DEFAULT_DIRECTORY_BITS = DIRECTORY_BITS[0]
DEFAULT_ERRNO = ERRNOS[0]
PLACEHOLDER = 'FILL-IN'
KEYS = ('describe', 'hook', 'call', 'links', 'needs', 'knob_path', 'protect',
        'polarity', 'doc', 'log_text')
SYSCTL = '/proc/sys/'
# Mainline's knobs, which every guest records and pins in every setting
# (name, path, boot value in this tree: Debian turns the first two on).
MAINLINE_KNOBS = (
    ('protected_symlinks', '/proc/sys/fs/protected_symlinks', 1),
    ('protected_hardlinks', '/proc/sys/fs/protected_hardlinks', 1),
    ('protected_fifos', '/proc/sys/fs/protected_fifos', 0),
    ('protected_regular', '/proc/sys/fs/protected_regular', 0),
)
GUEST_KNOBS = '/etc/sticky/knobs'     # common/lib/guest.h KNOBS_PATH


@dataclass(frozen=True)
class Revision:
    name: str
    describe: str
    hook: str           # HOOKS
    call: str           # how pick_link() reaches the rule, e.g. 'foo('
    links: str          # LINKS
    needs: tuple        # Kconfig options without which it is compiled out
    knob_path: str      # its sysctl file
    protect: int        # the knob value that turns the rule on
    polarity: str
    doc: str
    log_text: str       # format with {comm}, {fsuid}, {owner}; '' for none
    directory: str = 'walk'     # DIRECTORIES
    default: str = ''   # the knob at boot: on, off, or CONFIG_X (on when
    #                     the flavor sets X); '' says nothing
    revises: str = ''   # the revision whose posting this one revises
    directory_bits: str = DEFAULT_DIRECTORY_BITS   # DIRECTORY_BITS
    errno: str = DEFAULT_ERRNO                     # ERRNOS: a refusal's

    def boot_value(self, config_lines):
        """The knob's boot value its `default` says, or None."""
        if not self.default:
            return None
        on = (self.default == 'on' if self.default in ('on', 'off')
              else option_set(self.default, config_lines))
        return self.protect if on else 1 - self.protect

    @property
    def knob(self):
        return knob_key(self.knob_path)


def knob_key(path):
    """The key a knob has in result files: its path under /proc/sys, less
    a leading fs/, with '/' and '-' as '_' (fs/weak-sticky-symlinks ->
    weak_sticky_symlinks)."""
    rel = path[len(SYSCTL):]
    if rel.startswith('fs/'):
        rel = rel[3:]
    return rel.replace('/', '_').replace('-', '_')


def guest_listing(rules):
    """The guest's knob listing (GUEST_KNOBS): mainline's knobs, then each
    distinct revision knob, as `name path protect` lines."""
    lines = ['# name path protecting-value (- for mainline\'s)']
    lines += [f'{name} {path} -' for name, path, _ in MAINLINE_KNOBS]
    seen = set()
    for rule in rules:
        if rule.knob_path not in seen:
            seen.add(rule.knob_path)
            lines.append(f'{rule.knob} {rule.knob_path} {rule.protect}')
    return '\n'.join(lines) + '\n'


def path_of(name, top):
    return os.path.join(top, name, FILE)


def load(name, top):
    """The Revision of the revision directory `name` under `top`."""
    path = path_of(name, top)
    cp = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding='utf-8') as f:
            cp.read_file(f)
    except FileNotFoundError:
        raise HarnessError(f'{path} is missing: every revision directory '
                           f'describes its rule there (see an existing '
                           f'revision\'s {FILE} and '
                           f'docs/reviewing.md)') from None
    except configparser.Error as e:
        raise HarnessError(f'{path}: {e}') from None
    if 'revision' not in cp:
        raise HarnessError(f'{path}: no [revision] section')
    sec = cp['revision']
    missing = [k for k in KEYS if k not in sec]
    if missing:
        raise HarnessError(f'{path}: missing {", ".join(missing)}')
    unset = [k for k in KEYS if PLACEHOLDER in sec[k]]
    if unset:
        raise HarnessError(f'{path}: fill in {", ".join(unset)} '
                           f'(docs/reviewing.md says what each means)')
    vals = {k: sec[k].strip() for k in KEYS}
    for key, allowed in (('hook', HOOKS), ('links', LINKS)):
        if vals[key] not in allowed:
            raise HarnessError(f'{path}: {key} = {vals[key]!r}; one of '
                               f'{", ".join(allowed)}')
    if not vals['knob_path'].startswith(SYSCTL):
        raise HarnessError(f'{path}: knob_path {vals["knob_path"]!r} is not '
                           f'under {SYSCTL}')
    if vals['protect'] not in ('0', '1'):
        raise HarnessError(f'{path}: protect = {vals["protect"]!r}; 0 or 1')
    directory = sec.get('directory', '').strip() or (
        'parent' if vals['hook'] == 'lsm' else 'walk')
    if directory not in DIRECTORIES:
        raise HarnessError(f'{path}: directory = {directory!r}; one of '
                           f'{", ".join(DIRECTORIES)}')
    if vals['hook'] == 'lsm' and directory == 'walk':
        raise HarnessError(f'{path}: directory = walk, but an LSM hook gets '
                           f'no nameidata: it can judge only the link\'s '
                           f'd_parent (directory = parent)')
    default = sec.get('default', '').strip()
    if default and default not in ('on', 'off') and \
            not default.startswith('CONFIG_'):
        raise HarnessError(f'{path}: default = {default!r}; on, off, or the '
                           f'Kconfig option that turns it on (CONFIG_...)')
    directory_bits = ' '.join(sec.get('directory_bits', '').split()) or \
        DEFAULT_DIRECTORY_BITS
    if directory_bits not in DIRECTORY_BITS:
        raise HarnessError(f'{path}: directory_bits = {directory_bits!r}; '
                           f'one of {", ".join(DIRECTORY_BITS)}')
    errno = sec.get('errno', '').strip() or DEFAULT_ERRNO
    if errno not in ERRNOS:
        raise HarnessError(f'{path}: errno = {errno!r}; one of '
                           f'{", ".join(ERRNOS)}')
    if not vals['call'].endswith('('):
        raise HarnessError(f'{path}: call = {vals["call"]!r}; a function '
                           f'call as pick_link() spells it, e.g. foo(')
    return Revision(name=name, describe=vals['describe'], hook=vals['hook'],
                    call=vals['call'], links=vals['links'],
                    needs=tuple(vals['needs'].split()),
                    knob_path=vals['knob_path'],
                    protect=int(vals['protect']),
                    polarity=vals['polarity'], doc=vals['doc'],
                    log_text=vals['log_text'], directory=directory,
                    default=default,
                    revises=sec.get('revises', '').strip(),
                    directory_bits=directory_bits, errno=errno)


def option_set(option, config_lines):
    """Whether the Kconfig lines (later lines win) set `option` to y."""
    state = False
    for line in config_lines:
        line = line.strip()
        if line == f'# {option} is not set' or line == f'{option}=n':
            state = False
        elif line == f'{option}=y':
            state = True
    return state


def compiled(rev, config_lines):
    """Whether every option the rule needs is set in the config lines."""
    return all(option_set(o, config_lines) for o in rev.needs)
