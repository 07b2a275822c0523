"""Idmapped-mount cases (issue 11): the cases and what each rule predicts.

Everything here comes from the patch texts and 6.1's fs/namei.c, never
from an observation:

- mainline's may_follow_link() (fs.protected_symlinks, trailing links
  only) maps the link's owner and the directory's owner through the
  mount's idmapping (i_uid_into_mnt()) and lets an invalid (unmapped)
  directory owner match nothing;
- v3's may_follow_sticky_link() does the same (the porter's fix);
- v1's cap_inode_follow_link() is an LSM hook that gets no vfsmount: it
  compares the raw on-disk owners (inode->i_uid) with the fsuid;
- grsecurity's gr_handle_follow_link(), ported into the VFS, maps both
  owners through the link's mount, but judges the link's d_parent, as an
  LSM hook does, and, as grsecurity wrote it, has no uid_valid(): two
  owners the mount does not map compare equal.

- a link that is a mount root (a clone of a link made in another
  directory, put on the fixture's link with move_mount()): the VFS checks
  judge the directory the walk found it in, the fixture; an LSM hook
  judges the link's d_parent, the directory the clone came from. The
  clone's dentry is the source link's own, and d_parent is its
  directory, not the mount point's.

Every case opens (O_RDONLY) the file t/f of one ext4 image through a
symlink in a fixture directory, seen through the plain mount and through
an idmapped mount of the same image (MAP below): the trailing link
`<mount>/<fixture>/l` -> `../t/f`, or the intermediate link `m` -> `../t`
in `<mount>/<fixture>/m/f`. Mainline checks only the trailing one.

The rule a flavor carries is derived from its revision's revision.ini: an
LSM hook sees no vfsmount and compares raw owners, a VFS check maps them
through the mount as mainline does. No flavor name is spelled here.
"""

from dataclasses import dataclass

# The idmapping of the idmapped mount: uid_map/gid_map "0 10000 2000".
MAP = (0, 10000, 2000)
# What stat() shows for an owner the idmapping does not map.
OVERFLOW_UID = 65534
# An owner that is INVALID_UID in the raw inode, with no user namespace:
# (uid_t)-1 on disk. chown() cannot set it (-1 means "leave it"), so the
# host lays such fixtures out in the image (idmap_cmd.py, debugfs).
INVALID_UID = 4294967295

RULE_NONE = 'none'          # no own rule (or one compiled out)
RULE_RAW = 'raw-owners'      # raw on-disk owners vs the fsuid (an LSM hook)
RULE_MAPPED = 'mapped-owners'  # owners mapped through the mount, as mainline
# owners mapped through the link's mount, the link's d_parent, an unmapped
# owner no special case (a VFS check with `directory = parent`: grsec)
RULE_MAPPED_PARENT = 'mapped-owners-parent'
RULES = (RULE_NONE, RULE_RAW, RULE_MAPPED, RULE_MAPPED_PARENT)

# Where a revision's check sits (revision.ini `hook`, and for the VFS its
# `directory`) -> its rule.
HOOK_RULES = {('lsm', 'parent'): RULE_RAW, ('vfs', 'walk'): RULE_MAPPED,
              ('vfs', 'parent'): RULE_MAPPED_PARENT}


@dataclass(frozen=True)
class Fixture:
    """A directory on the image holding the symlinks `l` -> `../t/f` and
    `m` -> `../t`, both owned by link_uid. With src_mode, `l` and `m` are
    mount roots: clones of the same links made in the directory
    `<name>.src` (src_mode, owner src_uid)."""
    mode: str       # octal string, e.g. '1777'
    dir_uid: int    # on-disk owner of the directory (gid the same)
    link_uid: int   # on-disk owner of the symlink (gid the same)
    src_mode: str = ''
    src_uid: int = 0

    @property
    def name(self):
        base = f'd{self.mode}-{self.dir_uid}-l{self.link_uid}'
        if self.mounted:
            return f'{base}-from{self.src_mode}-{self.src_uid}'
        return base

    @property
    def mounted(self):
        """The links followed are mount roots."""
        return bool(self.src_mode)

    @property
    def parent(self):
        """(mode, owner) of the links' d_parent: for a mount root, the
        directory its clone came from."""
        if self.mounted:
            return self.src_mode, self.src_uid
        return self.mode, self.dir_uid

    @property
    def premade(self):
        """Laid out by the host in the image, not by the guest."""
        return INVALID_UID in (self.dir_uid, self.link_uid)

    @property
    def sticky_ww(self):
        return sticky_ww(self.mode)


def sticky_ww(mode):
    """Sticky and world-writable: the rules' protected directory."""
    return (int(mode, 8) & 0o1002) == 0o1002


@dataclass(frozen=True)
class Case:
    mount: str      # 'plain' or 'idmap'
    fixture: Fixture
    fsuid: int      # the follower's uids and gids (no groups)
    shows: str      # what the case shows (docs/idmapped-mounts.md)
    position: str = 'trail'     # 'trail' (l) or 'inter' (m/f)

    @property
    def id(self):
        return (f'{self.mount}/{self.fixture.name}/f{self.fsuid}/'
                f'{self.position}')


ROOT_DIR = Fixture('1777', 0, 1000)
UNMAPPED = Fixture('1777', 5000, 5000)
DIR_RAW_IS_LINK_MAPPED = Fixture('1777', 11000, 1000)
LINK_RAW_IS_DIR_MAPPED = Fixture('1777', 0, 10000)
SAME_OWNER = Fixture('1777', 1000, 1000)
NOT_STICKY = Fixture('0777', 5000, 1000)
INVALID_OWNERS = Fixture('1777', INVALID_UID, INVALID_UID)
ROOT_FROM_OWN = Fixture('1777', 0, 1000, '0755', 1000)
ROOT_FROM_STICKY = Fixture('1777', 0, 1000, '1777', 0)
FIXTURES = (ROOT_DIR, UNMAPPED, DIR_RAW_IS_LINK_MAPPED, LINK_RAW_IS_DIR_MAPPED,
            SAME_OWNER, NOT_STICKY, INVALID_OWNERS, ROOT_FROM_OWN,
            ROOT_FROM_STICKY)

CASES = (
    Case('idmap', ROOT_DIR, 11000,
         'the follower owns the link after mapping (1000 -> 11000)'),
    Case('idmap', UNMAPPED, 0,
         'link and directory owners are outside the map: the invalid '
         'directory owner matches nothing'),
    Case('idmap', ROOT_DIR, 1000,
         'the follower owns the link on disk, not after mapping'),
    Case('idmap', UNMAPPED, 5000,
         'the follower owns the unmapped link on disk'),
    Case('idmap', LINK_RAW_IS_DIR_MAPPED, 10000,
         'the follower owns the unmapped link on disk (10000)'),
    Case('idmap', DIR_RAW_IS_LINK_MAPPED, 0,
         "the directory's raw owner equals the link's mapped owner: a "
         'port mapping only the link would allow'),
    Case('idmap', LINK_RAW_IS_DIR_MAPPED, 0,
         "the link's raw owner equals the directory's mapped owner: a port "
         'mapping only the directory would allow'),
    Case('idmap', SAME_OWNER, 0,
         'directory and link have one owner, mapped or not'),
    Case('idmap', ROOT_DIR, 0, 'root follows a link nobody matches'),
    Case('idmap', NOT_STICKY, 0, 'not sticky: no rule applies'),
    Case('plain', ROOT_DIR, 11000, 'control: the classic rule refuses'),
    Case('plain', ROOT_DIR, 1000, 'control: the follower owns the link'),
    Case('plain', UNMAPPED, 0, 'control: directory owner owns the link'),
    Case('plain', UNMAPPED, 5000, 'control: the follower owns the link'),
    Case('plain', LINK_RAW_IS_DIR_MAPPED, 10000,
         'control: the follower owns the link'),
    Case('plain', DIR_RAW_IS_LINK_MAPPED, 0,
         'control: the classic rule refuses'),
    Case('plain', ROOT_DIR, 0, 'control: the classic rule refuses'),
    Case('plain', NOT_STICKY, 0, 'control: not sticky'),
    Case('idmap', ROOT_DIR, 11000, 'case 1 as an intermediate link: '
         'mainline does not check it', 'inter'),
    Case('idmap', UNMAPPED, 0, 'case 2 as an intermediate link: no '
         'mainline check behind an LSM hook', 'inter'),
    Case('idmap', ROOT_DIR, 1000, 'the raw owner follows an intermediate '
         'link', 'inter'),
    Case('plain', ROOT_DIR, 0, 'control: only the own rules check an '
         'intermediate link', 'inter'),
    Case('plain', UNMAPPED, 0, 'control: directory owner owns the link',
         'inter'),
    Case('plain', INVALID_OWNERS, 0,
         'link and directory owned by INVALID_UID on disk, no user '
         'namespace: raw owners are equal, a valid owner is none'),
    Case('plain', INVALID_OWNERS, 0, 'the INVALID_UID owners as an '
         'intermediate link: only the own rules check it', 'inter'),
    Case('plain', ROOT_FROM_OWN, 0,
         "the link is a mount root cloned from its owner's 0755 "
         "directory: d_parent is that directory, not the sticky one"),
    Case('plain', ROOT_FROM_OWN, 0, 'the mount root as an intermediate '
         'link', 'inter'),
    Case('plain', ROOT_FROM_STICKY, 0,
         "control: the mount root cloned from root's 1777 directory: "
         'd_parent is sticky too, every rule refuses'),
    Case('plain', ROOT_FROM_STICKY, 0, 'control: the same as an '
         'intermediate link', 'inter'),
)


@dataclass(frozen=True)
class Limit:
    """A shape 6.1 lets nobody make, tried once per boot: what 6.1's code
    answers (ret, result) and why (common/programs/idmap.c runs it)."""
    id: str
    fixture: Fixture
    expect: tuple
    answer: str     # what 6.1 answers, in words
    shows: str


LIMITS = (
    Limit('mount2-onto-symlink', SAME_OWNER, (0, 'target'),
          "mounted on the link's target",
          "mount(2) looks its target up following links: a bind mount "
          "meant for the fixture's link lands on t/f, so only open_tree() "
          "and move_mount() make a link a mount root (the link is one "
          "every rule lets root follow)"),
    Limit('tmpfs-unmapped-owner', ROOT_DIR, (-1, 'EOVERFLOW'),
          'symlink() fails with EOVERFLOW',
          'a tmpfs in a user namespace that maps no uid 0: root (kuid 0) '
          'cannot make a symlink it would own (fsuidgid_has_mapping()), so '
          'no tmpfs inode has an unmappable owner; ext4 images can'),
)


def mapped(uid, mount, idmap=MAP):
    """The owner as the VFS sees it through `mount` (i_uid_into_mnt()):
    None stands for INVALID_UID."""
    if uid == INVALID_UID:
        return None
    if mount == 'plain':
        return uid
    inside, outside, count = idmap
    if inside <= uid < inside + count:
        return outside + uid - inside
    return None


def shown(uid, mount, idmap=MAP):
    """The owner stat() shows through `mount`."""
    m = mapped(uid, mount, idmap)
    return OVERFLOW_UID if m is None else m


def mapped_refuses(case, idmap=MAP):
    """may_follow_link() and v3's may_follow_sticky_link()."""
    fx = case.fixture
    link = mapped(fx.link_uid, case.mount, idmap)
    if link is not None and case.fsuid == link:
        return False
    if not fx.sticky_ww:
        return False
    d = mapped(fx.dir_uid, case.mount, idmap)
    if d is not None and d == link:
        return False
    return True


def raw_refuses(case):
    """An LSM hook's rule (cap_inode_follow_link(), yama_inode_follow_link()):
    the link's d_parent (for a mount root, the directory it was cloned
    from), raw i_uid, no idmapping, and no uid_valid(): two INVALID_UID
    owners compare equal (uid_eq())."""
    fx = case.fixture
    mode, dir_uid = fx.parent
    return (sticky_ww(mode) and dir_uid != fx.link_uid and
            case.fsuid != fx.link_uid)


def mapped_parent_refuses(case, idmap=MAP):
    """grsecurity's gr_handle_follow_link() as ported: the link's d_parent
    (for a mount root, the directory it was cloned from), owners mapped
    through the link's mount, and, as grsecurity wrote it, no uid_valid():
    two unmapped owners compare equal (uid_eq() of INVALID_UID)."""
    fx = case.fixture
    mode, dir_uid = fx.parent
    link = mapped(fx.link_uid, case.mount, idmap)
    return (sticky_ww(mode) and mapped(dir_uid, case.mount, idmap) != link
            and case.fsuid != link)


OWN_REFUSES = {RULE_NONE: lambda case, idmap: False,
               RULE_RAW: lambda case, idmap: raw_refuses(case),
               RULE_MAPPED: mapped_refuses,
               RULE_MAPPED_PARENT: mapped_parent_refuses}


def predict(rule, ps, own, case, idmap=MAP, errno='EACCES'):
    """(ret, errno name) of open(O_RDONLY) through the case's link with
    fs.protected_symlinks = ps and the own rule on (own true) or off.
    Mainline's check applies to a trailing link only and comes first
    (EACCES); the own rules check every link followed and refuse with
    `errno` (the revision's: OWLSM's EPERM).  Every fixture directory is
    sticky and world-writable or not sticky at all, where a rule of the
    sticky bit alone (revision.ini directory_bits) judges alike."""
    if rule not in OWN_REFUSES:
        raise ValueError(f'unknown rule {rule!r}; rules: {", ".join(RULES)}')
    if ps and case.position == 'trail' and mapped_refuses(case, idmap):
        return (-1, 'EACCES')
    if own and OWN_REFUSES[rule](case, idmap):
        return (-1, errno)
    return (0, '0')


def errno_of(flavor):
    """The errno the flavor's own rule refuses with."""
    return flavor.rule.errno if flavor.rule is not None else 'EACCES'


def rule_of(flavor):
    """The rule a flavor (harness/flavors.py FlavorSpec) carries: none without
    a revision or with its rule compiled out, else by where it sits."""
    if flavor.rule is None or not flavor.compiled:
        return RULE_NONE
    return HOOK_RULES[flavor.rule.hook, flavor.rule.directory]


def knob_file(path):
    """A knob's file under /proc/sys, as the guest's plan names it."""
    return path[len('/proc/sys/'):]


@dataclass(frozen=True)
class Setting:
    label: str
    ps: int
    own: bool
    knobs: tuple    # (file under /proc/sys, value or 'absent')


def settings(flavor, own_knobs):
    """Every setting of a flavor, with every knob file written (or checked
    absent): own_knobs are the paths of all revision knobs the project
    knows."""
    out = []
    owns = (0, 1) if flavor.knob else (None,)
    for ps in (0, 1):
        for own in owns:
            knobs = [('fs/protected_symlinks', str(ps)),
                     ('fs/protected_hardlinks', '0')]
            for path in sorted(own_knobs):
                k = knob_file(path)
                if path != flavor.knob_path:
                    knobs.append((k, 'absent'))
                    continue
                protect = int(flavor.protect)
                knobs.append((k, str(protect if own else 1 - protect)))
            label = f'ps{ps}-own{"-" if own is None else own}'
            out.append(Setting(label, ps, bool(own), tuple(knobs)))
    return out


def expectations(rule, setting_list, cases=CASES, idmap=MAP,
                 errno='EACCES'):
    """{(setting label, case id): (ret, errno)}."""
    return {(s.label, c.id): predict(rule, s.ps, s.own, c, idmap, errno)
            for s in setting_list for c in cases}


def plan_text(flavor, rule, setting_list, cases=CASES, idmap=MAP,
              limits=LIMITS, errno='EACCES'):
    """The guest's plan (common/programs/idmap.c reads it)."""
    lines = [f'# {flavor}: rule {rule} (harness/experiments/idmapcases.py)',
             'map ' + ' '.join(str(x) for x in idmap)]
    for mount in ('plain', 'idmap'):
        lines.append(f'target {mount} {shown(0, mount, idmap)}')
    for fx in dict.fromkeys(c.fixture for c in cases):
        src = f' {fx.src_mode} {fx.src_uid}' if fx.mounted else ''
        lines.append(f'fixture {fx.name} {fx.mode} {fx.dir_uid} '
                     f'{fx.link_uid}{src}')
    for s in setting_list:
        lines.append(f'setting {s.label}')
        lines += [f'knob {k} {v}' for k, v in s.knobs]
        for c in cases:
            ret, err = predict(rule, s.ps, s.own, c, idmap, errno)
            fx = c.fixture
            lines.append(f'case {c.id} {c.mount} {fx.name} '
                         f'{c.position} {c.fsuid} '
                         f'{shown(fx.dir_uid, c.mount, idmap)} '
                         f'{shown(fx.link_uid, c.mount, idmap)} {ret} {err}')
    lines += [f'limit {x.id} {x.fixture.name} {x.expect[0]} {x.expect[1]}'
              for x in limits]
    return '\n'.join(lines) + '\n'
