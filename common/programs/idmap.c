// SPDX-License-Identifier: GPL-2.0
/*
 * idmap: symlink following in sticky directories through an idmapped
 * mount (issue 11).
 *
 *   idmap PLAN IMAGE
 *
 * IMAGE is a small ext4 image the host made (mkfs.ext4); PLAN is the
 * host's plan (harness/experiments/idmapcases.py): the idmapping, the fixtures, and
 * for every knob setting the knob values and the cases with their
 * predicted results. This program never predicts anything itself: it
 * lays the fixtures out, checks every precondition, runs each case and
 * compares the result with the plan's prediction.
 *
 * Plan lines (one per line, '#' starts a comment line):
 *   map INSIDE OUTSIDE COUNT            uid_map and gid_map of the userns
 *   target MOUNT UID                    owner stat() shows of t/f there
 *   fixture NAME MODE DIR_UID LINK_UID [SRC_MODE SRC_UID]
 *                                       dir NAME (MODE, owner DIR_UID)
 *                                       holding l -> ../t/f and m -> ../t
 *                                       (both owned by LINK_UID); with
 *                                       SRC_*, NAME/l and NAME/m are mount
 *                                       points, each holding the clone of
 *                                       the same link made in dir
 *                                       NAME.src (SRC_MODE, owner SRC_UID):
 *                                       the link followed is a mount root
 *   setting LABEL                       starts a knob setting
 *   knob FILE VALUE|absent              /proc/sys/FILE of the setting
 *   case ID MOUNT FIXTURE POS FSUID DIR_SEEN LINK_SEEN RET ERRNO
 *                                       POS: trail (open FIXTURE/l) or
 *                                       inter (open FIXTURE/m/f)
 *   limit ID FIXTURE RET RESULT         a shape 6.1 does not let anyone
 *                                       make, tried (after the cases):
 *     mount2-onto-symlink   mount(2) MS_BIND of FIXTURE/l onto itself;
 *                           RESULT says where the mount landed:
 *                           "target" (t/f) or "link"
 *     tmpfs-unmapped-owner  in a user namespace with the plan's map, a
 *                           tmpfs; the child, whose uid (0) the map does
 *                           not cover, makes a symlink in it: RESULT is
 *                           the errno
 *
 * Setup: the image is attached to a loop device (LOOP_CONFIGURE, else
 * LOOP_SET_FD) and mounted on /mnt/plain; t/ (root 0755) holds f (root
 * 0644); every fixture directory and its links are created by root and
 * chowned (lchown for the links), then read back. A child unshares a user
 * namespace, the parent writes its uid_map and gid_map and opens
 * /proc/<child>/ns/user; open_tree(OPEN_TREE_CLONE) of /mnt/plain,
 * mount_setattr(MOUNT_ATTR_IDMAP) and move_mount() put the idmapped view
 * on /mnt/idmap. A mount-root fixture's links are cloned with
 * open_tree(OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW) from NAME.src and put
 * on NAME/l and NAME/m with move_mount() (before the idmapped clone,
 * which does not recurse, so only /mnt/plain shows them); lstat() of each
 * mount point must show the source link's inode, before every case too.
 * Preconditions: mountinfo says "idmapped" for /mnt/idmap
 * and not for /mnt/plain; t/f shows the plan's owner through each mount.
 *
 * A case: the parent writes nothing but reads the knobs back (they must
 * hold the setting's values) and lstat()s the fixture through /mnt/plain
 * (mode and raw owners as planned). A child then takes the follower's
 * uids and gids (setgroups(0), setresgid, setresuid, then setfsuid() and a
 * second setfsuid(-1) to read the fsuid back; root stays root), lstat()s
 * the directory and both links through the case's mount (the owners shown
 * must be the plan's), opens MOUNT/FIXTURE/../t/f (the control, the same
 * walk without a link: it must succeed and read the target) and then
 * MOUNT/FIXTURE/l or MOUNT/FIXTURE/m/f, O_RDONLY. A failed precondition is a failure, never a
 * pass. KTAP goes to stdout, one JSON record per setting and per case to
 * fd 3 (docs/result-format.md); exit status 0 only if every case passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/loop.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_open_tree
#define SYS_open_tree		428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount		429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr	442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE		1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH	0x00000004
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP	0x00100000
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif

/* struct mount_attr of include/uapi/linux/mount.h (MOUNT_ATTR_SIZE_VER0) */
struct idmap_attr {
	unsigned long long attr_set;
	unsigned long long attr_clr;
	unsigned long long propagation;
	unsigned long long userns_fd;
};

/* An owner that is INVALID_UID on disk: the host lays such fixtures out
 * in the image with debugfs (chown cannot: -1 means "leave it"), and
 * stat() shows them as the overflow uid. */
#define INVALID_ID	4294967295u
#define OVERFLOW_ID	65534u

#define MNT		"/mnt"
#define TARGET_TEXT	"idmap target\n"
#define MAXFIX		16
#define MAXSET		8
#define MAXKNOB		8
#define MAXCASE		256
#define MAXLIMIT	4
#define WHY		200

struct fixture {
	char name[48];
	unsigned int mode, dir_uid, link_uid;
	int mounted;			/* l and m are mount roots */
	unsigned int src_mode, src_uid;	/* of NAME.src, if mounted */
};

struct knob {
	char name[48];
	char value[16];		/* "absent": the file must not exist */
};

struct setting {
	char label[24];
	struct knob knob[MAXKNOB];
	int nknob;
};

struct tcase {
	int set, fix;
	char id[96];
	char mount[8];
	char pos[8];		/* "trail" or "inter" */
	unsigned int fsuid, dir_seen, link_seen;
	int expect_ret;
	char expect_err[16];
};

struct limit {
	char id[32];
	int fix;
	int expect_ret;
	char expect[16];
};

/* What the follower saw, sent from the child to the parent. */
struct seen {
	int done;			/* the child got to the end */
	char why[WHY];			/* first failed precondition */
	unsigned int ruid, euid, suid, fsuid, fsgid;
	long dir_seen, link_seen;
	int control_ret, control_err;
	int ret, err;
};

static struct fixture fix[MAXFIX];
static struct setting set[MAXSET];
static struct tcase tc[MAXCASE];
static struct limit lim[MAXLIMIT];
static int nfix, nset, ncase, nlimit;
static unsigned int map_in, map_out, map_count;
static long target_plain = -1, target_idmap = -1;
static int idmapped[2];		/* mountinfo: plain, idmap */
static char setup_err[WHY];
static FILE *res;

static const char *errname(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "0";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ELOOP: return "ELOOP";
	case ECHILD: return "ECHILD";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case ENOTDIR: return "ENOTDIR";
	case EOVERFLOW: return "EOVERFLOW";
	case EXDEV: return "EXDEV";
	case EROFS: return "EROFS";
	case EBUSY: return "EBUSY";
	}
	snprintf(buf, sizeof(buf), "E%d", e);
	return buf;
}

static int setup_fail(const char *fmt, ...)
{
	va_list ap;
	int e = errno;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(setup_err, sizeof(setup_err), fmt, ap);
	va_end(ap);
	n = strlen(setup_err);
	if (e && n + 20 < sizeof(setup_err))
		snprintf(setup_err + n, sizeof(setup_err) - n, ": %s",
			 errname(e));
	return -1;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* ---- the plan ---- */

static int find_fixture(const char *name)
{
	int i;

	for (i = 0; i < nfix; i++)
		if (!strcmp(fix[i].name, name))
			return i;
	return -1;
}

static int parse_line(char *line, int n)
{
	char a[96], b[48], c[48];
	struct tcase *t;
	struct setting *s;
	unsigned int x, y, z, sm, su;
	int got;
	long v;

	if (!*line || *line == '#')
		return 0;
	if (sscanf(line, "map %u %u %u", &map_in, &map_out, &map_count) == 3)
		return 0;
	if (sscanf(line, "target %47s %ld", b, &v) == 2) {
		if (!strcmp(b, "plain"))
			target_plain = v;
		else if (!strcmp(b, "idmap"))
			target_idmap = v;
		else
			goto bad;
		return 0;
	}
	got = sscanf(line, "fixture %47s %o %u %u %o %u", b, &x, &y, &z, &sm,
		     &su);
	if (got == 4 || got == 6) {
		if (nfix == MAXFIX || find_fixture(b) >= 0)
			goto bad;
		snprintf(fix[nfix].name, sizeof(fix[nfix].name), "%s", b);
		fix[nfix].mode = x;
		fix[nfix].dir_uid = y;
		fix[nfix].link_uid = z;
		fix[nfix].mounted = got == 6;
		fix[nfix].src_mode = got == 6 ? sm : 0;
		fix[nfix].src_uid = got == 6 ? su : 0;
		nfix++;
		return 0;
	}
	if (sscanf(line, "setting %23s", b) == 1) {
		if (nset == MAXSET)
			goto bad;
		snprintf(set[nset++].label, sizeof(set[0].label), "%.23s", b);
		return 0;
	}
	if (sscanf(line, "knob %47s %15s", b, c) == 2) {
		if (!nset || set[nset - 1].nknob == MAXKNOB)
			goto bad;
		s = &set[nset - 1];
		snprintf(s->knob[s->nknob].name, sizeof(s->knob[0].name), "%s",
			 b);
		snprintf(s->knob[s->nknob].value, sizeof(s->knob[0].value),
			 "%.15s", c);
		s->nknob++;
		return 0;
	}
	if (!strncmp(line, "limit ", 6)) {
		struct limit *L = &lim[nlimit];

		if (nlimit == MAXLIMIT ||
		    sscanf(line, "limit %31s %47s %d %15s", L->id, b,
			   &L->expect_ret, L->expect) != 4)
			goto bad;
		L->fix = find_fixture(b);
		if (L->fix < 0 || (strcmp(L->id, "mount2-onto-symlink") &&
				   strcmp(L->id, "tmpfs-unmapped-owner")))
			goto bad;
		nlimit++;
		return 0;
	}
	if (!strncmp(line, "case ", 5)) {
		if (!nset || ncase == MAXCASE)
			goto bad;
		t = &tc[ncase];
		if (sscanf(line, "case %95s %7s %47s %7s %u %u %u %d %15s", a,
			   t->mount, b, t->pos, &t->fsuid, &t->dir_seen,
			   &t->link_seen, &t->expect_ret, t->expect_err) != 9)
			goto bad;
		snprintf(t->id, sizeof(t->id), "%s", a);
		t->fix = find_fixture(b);
		t->set = nset - 1;
		if (t->fix < 0 || (strcmp(t->mount, "plain") &&
				   strcmp(t->mount, "idmap")) ||
		    (strcmp(t->pos, "trail") && strcmp(t->pos, "inter")))
			goto bad;
		ncase++;
		return 0;
	}
bad:
	fprintf(stderr, "idmap: plan line %d not understood: %s\n", n, line);
	return -1;
}

static int read_plan(const char *path)
{
	static char buf[65536];
	char *line, *save = NULL;
	ssize_t len;
	int fd, n = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0 || len == sizeof(buf) - 1) {
		fprintf(stderr, "idmap: cannot read %s (or it is too long)\n",
			path);
		return -1;
	}
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (parse_line(line, ++n))
			return -1;
	if (!map_count || target_plain < 0 || target_idmap < 0 || !ncase) {
		fprintf(stderr, "idmap: the plan lacks map, target or cases\n");
		return -1;
	}
	return 0;
}

/* ---- setup ---- */

static int write_file(const char *path, const char *text)
{
	ssize_t n, len = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	if (close(fd) || n != len)
		return -1;
	return 0;
}

static int open_dev(const char *path, mode_t type, dev_t dev)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	/* No devtmpfs node: make one. */
	if (mknod(path, type | 0600, dev) && errno != EEXIST)
		return -1;
	return open(path, O_RDWR | O_CLOEXEC);
}

static int attach_loop(const char *img, char *dev, size_t n)
{
	struct loop_config cfg;
	int ctl, nr, lfd, ifd, ret;

	if (access("/dev/loop-control", F_OK) &&
	    mount("devtmpfs", "/dev", "devtmpfs", 0, NULL) && errno != EBUSY)
		return setup_fail("mount devtmpfs on /dev");
	ctl = open_dev("/dev/loop-control", S_IFCHR, makedev(10, 237));
	if (ctl < 0)
		return setup_fail("open /dev/loop-control");
	nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (nr < 0)
		return setup_fail("LOOP_CTL_GET_FREE");
	snprintf(dev, n, "/dev/loop%d", nr);
	lfd = open_dev(dev, S_IFBLK, makedev(7, nr));
	if (lfd < 0)
		return setup_fail("open %s", dev);
	ifd = open(img, O_RDWR | O_CLOEXEC);
	if (ifd < 0) {
		close(lfd);
		return setup_fail("open %s", img);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = ifd;
	ret = ioctl(lfd, LOOP_CONFIGURE, &cfg);
	if (ret && (errno == EINVAL || errno == ENOTTY))
		ret = ioctl(lfd, LOOP_SET_FD, ifd);
	close(ifd);
	close(lfd);
	if (ret)
		return setup_fail("attach %s to %s", img, dev);
	return 0;
}

static int check_owner(const char *path, unsigned int mode, unsigned int uid,
		       int is_link)
{
	struct stat st;

	if (lstat(path, &st))
		return setup_fail("lstat %s", path);
	errno = 0;
	if (is_link ? !S_ISLNK(st.st_mode) :
	    (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)))
		return setup_fail("%s has the wrong type", path);
	if (mode && (st.st_mode & 07777) != mode)
		return setup_fail("%s has mode %04o, not %04o", path,
				  st.st_mode & 07777, mode);
	if (st.st_uid != uid || st.st_gid != uid)
		return setup_fail("%s is owned by %u:%u, not %u:%u (chown did "
				  "not take)", path, st.st_uid, st.st_gid, uid,
				  uid);
	return 0;
}

static int make_target(void)
{
	int fd;
	ssize_t len = strlen(TARGET_TEXT);

	if ((chown(MNT "/plain", 0, 0) || chmod(MNT "/plain", 0755)))
		return setup_fail("chown/chmod the image's root");
	if (mkdir(MNT "/plain/t", 0755) && errno != EEXIST)
		return setup_fail("mkdir t");
	fd = open(MNT "/plain/t/f", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		  0644);
	if (fd < 0 || write(fd, TARGET_TEXT, len) != len || close(fd))
		return setup_fail("write t/f");
	if (chown(MNT "/plain/t", 0, 0) || chmod(MNT "/plain/t", 0755) ||
	    chown(MNT "/plain/t/f", 0, 0) || chmod(MNT "/plain/t/f", 0644))
		return setup_fail("chown/chmod t, t/f");
	if (check_owner(MNT "/plain/t", 0755, 0, 0) ||
	    check_owner(MNT "/plain/t/f", 0644, 0, 0))
		return -1;
	return 0;
}

/* The owner stat() shows for an owner on disk. */
static unsigned int on_stat(unsigned int uid)
{
	return uid == INVALID_ID ? OVERFLOW_ID : uid;
}

/* NAME.src with its own l and m, each cloned onto NAME/l and NAME/m. */
static int make_mount_roots(const struct fixture *f, const char *l,
			    const char *m)
{
	const char *point[2] = { l, m }, *target[2] = { "../t/f", "../t" };
	char d[128], src[160];
	int i, tree;

	snprintf(d, sizeof(d), MNT "/plain/%.43s.src", f->name);
	if (mkdir(d, 0700) || chmod(d, f->src_mode) ||
	    chown(d, f->src_uid, f->src_uid))
		return setup_fail("mkdir/chmod/chown %s", d);
	for (i = 0; i < 2; i++) {
		snprintf(src, sizeof(src), "%s/%c", d, "lm"[i]);
		if (symlink(target[i], src) ||
		    lchown(src, f->link_uid, f->link_uid))
			return setup_fail("symlink/lchown %s", src);
		tree = syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE |
			       AT_SYMLINK_NOFOLLOW | O_CLOEXEC);
		if (tree < 0)
			return setup_fail("open_tree(%s)", src);
		if (syscall(SYS_move_mount, tree, "", AT_FDCWD, point[i],
			    MOVE_MOUNT_F_EMPTY_PATH)) {
			close(tree);
			return setup_fail("move_mount onto %s", point[i]);
		}
		close(tree);
	}
	return check_owner(d, f->src_mode, f->src_uid, 0);
}

static int make_fixture(const struct fixture *f)
{
	char d[128], l[160], m[160];

	snprintf(d, sizeof(d), MNT "/plain/%.47s", f->name);
	snprintf(l, sizeof(l), "%s/l", d);
	snprintf(m, sizeof(m), "%s/m", d);
	if (f->dir_uid == INVALID_ID || f->link_uid == INVALID_ID)
		/* laid out by the host: only checked */
		return check_owner(d, f->mode, on_stat(f->dir_uid), 0) ||
		       check_owner(l, 0, on_stat(f->link_uid), 1) ||
		       check_owner(m, 0, on_stat(f->link_uid), 1) ? -1 : 0;
	if (mkdir(d, 0700))
		return setup_fail("mkdir %s", d);
	if (chmod(d, f->mode) || chown(d, f->dir_uid, f->dir_uid))
		return setup_fail("chmod/chown %s", d);
	if (symlink("../t/f", l) || symlink("../t", m))
		return setup_fail("symlink %s, %s", l, m);
	if (lchown(l, f->link_uid, f->link_uid) ||
	    lchown(m, f->link_uid, f->link_uid))
		return setup_fail("lchown %s, %s", l, m);
	if (check_owner(d, f->mode, f->dir_uid, 0) ||
	    check_owner(l, 0, f->link_uid, 1) ||
	    check_owner(m, 0, f->link_uid, 1))
		return -1;
	return f->mounted ? make_mount_roots(f, l, m) : 0;
}

/* Writes the plan's map to pid's uid_map and gid_map and reads each
 * back; on a failure returns -1 and says why. */
static int write_maps(pid_t pid, char *why, size_t n)
{
	const char *which[2] = { "uid_map", "gid_map" };
	char path[64], text[64], back[256];
	unsigned int a, b, c;
	int i, got;

	snprintf(text, sizeof(text), "%u %u %u\n", map_in, map_out,
		 map_count);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, which[i]);
		if (write_file(path, text)) {
			snprintf(why, n, "write %s: %s", path, errname(errno));
			return -1;
		}
		got = open(path, O_RDONLY | O_CLOEXEC);
		if (got < 0 || read(got, back, sizeof(back) - 1) <= 0 ||
		    sscanf(back, "%u %u %u", &a, &b, &c) != 3 ||
		    a != map_in || b != map_out || c != map_count) {
			if (got >= 0)
				close(got);
			snprintf(why, n, "%s does not read back as written",
				 path);
			return -1;
		}
		close(got);
	}
	return 0;
}

/* A user namespace with the plan's map: returns an fd of it. */
static int make_userns(void)
{
	char path[64], why[WHY];
	int ready[2], hold[2], fd;
	pid_t pid;
	char ch = 0;

	if (pipe2(ready, O_CLOEXEC) || pipe2(hold, O_CLOEXEC))
		return setup_fail("pipe");
	pid = fork();
	if (pid < 0)
		return setup_fail("fork");
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER))
			_exit(1);
		if (write(ready[1], &ch, 1) != 1)
			_exit(1);
		/* Until the parent holds the namespace and closes hold[1]. */
		while (read(hold[0], &ch, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	fd = -1;
	if (read(ready[0], &ch, 1) != 1) {
		setup_fail("the child could not unshare(CLONE_NEWUSER)");
		goto out;
	}
	if (write_maps(pid, why, sizeof(why))) {
		errno = 0;
		setup_fail("%s", why);
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		setup_fail("open %s", path);
out:
	close(hold[1]);
	close(ready[0]);
	waitpid(pid, NULL, 0);
	return fd;
}

static int make_idmapped(void)
{
	struct idmap_attr attr;
	int ns, tree;

	ns = make_userns();
	if (ns < 0)
		return -1;
	tree = syscall(SYS_open_tree, AT_FDCWD, MNT "/plain",
		       OPEN_TREE_CLONE | O_CLOEXEC);
	if (tree < 0) {
		close(ns);
		return setup_fail("open_tree(OPEN_TREE_CLONE) " MNT "/plain");
	}
	memset(&attr, 0, sizeof(attr));
	attr.attr_set = MOUNT_ATTR_IDMAP;
	attr.userns_fd = ns;
	if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr,
		    sizeof(attr))) {
		close(ns);
		close(tree);
		return setup_fail("mount_setattr(MOUNT_ATTR_IDMAP)");
	}
	close(ns);
	if (syscall(SYS_move_mount, tree, "", AT_FDCWD, MNT "/idmap",
		    MOVE_MOUNT_F_EMPTY_PATH)) {
		close(tree);
		return setup_fail("move_mount to " MNT "/idmap");
	}
	close(tree);
	return 0;
}

/* Does mountinfo list `dir` as a mount with the "idmapped" option? */
static int read_idmapped(const char *dir)
{
	char line[1024], mp[256], opts[256];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d %*d %*s %*s %255s %255s", mp, opts) == 2 &&
		    !strcmp(mp, dir))
			found = !!strstr(opts, "idmapped");
	fclose(f);
	return found;
}

static int check_target(const char *mount, long want)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), MNT "/%.7s/t/f", mount);
	if (stat(path, &st))
		return setup_fail("stat %s", path);
	errno = 0;
	if ((long)st.st_uid != want || (long)st.st_gid != want)
		return setup_fail("%s shows owner %u:%u, the plan says %ld",
				  path, st.st_uid, st.st_gid, want);
	return 0;
}

static int setup(const char *img)
{
	char dev[32];
	int i;

	umask(0);
	if ((mkdir(MNT "/plain", 0755) && errno != EEXIST) ||
	    (mkdir(MNT "/idmap", 0755) && errno != EEXIST))
		return setup_fail("mkdir " MNT "/plain, " MNT "/idmap");
	if (attach_loop(img, dev, sizeof(dev)))
		return -1;
	if (mount(dev, MNT "/plain", "ext4", 0, NULL))
		return setup_fail("mount %s (ext4) on " MNT "/plain", dev);
	printf("# idmap: %s mounted on " MNT "/plain\n", dev);
	if (make_target())
		return -1;
	for (i = 0; i < nfix; i++)
		if (make_fixture(&fix[i]))
			return -1;
	if (make_idmapped())
		return -1;
	idmapped[0] = read_idmapped(MNT "/plain");
	idmapped[1] = read_idmapped(MNT "/idmap");
	errno = 0;
	if (idmapped[0] != 0)
		return setup_fail("mountinfo: " MNT "/plain is %s",
				  idmapped[0] < 0 ? "not listed" : "idmapped");
	if (idmapped[1] != 1)
		return setup_fail("mountinfo: " MNT "/idmap is %s",
				  idmapped[1] < 0 ? "not listed" :
				  "not idmapped");
	if (check_target("plain", target_plain) ||
	    check_target("idmap", target_idmap))
		return -1;
	printf("# idmap: " MNT "/idmap idmapped with %u %u %u; %d fixtures\n",
	       map_in, map_out, map_count, nfix);
	return 0;
}

/* ---- knobs ---- */

static int read_knob(const char *name, long *val)
{
	char path[96], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/%.47s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -2;
	buf[n] = '\0';
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Writes (unless check_only) and reads back every knob of setting s. */
static int apply_knobs(const struct setting *s, int check_only, char *why,
		       size_t n)
{
	char path[96];
	long v;
	int i, r;

	for (i = 0; i < s->nknob; i++) {
		const struct knob *k = &s->knob[i];
		int absent = !strcmp(k->value, "absent");

		snprintf(path, sizeof(path), "/proc/sys/%.47s", k->name);
		if (!absent && !check_only && write_file(path, k->value)) {
			snprintf(why, n, "write %s to %s: %s", k->value, path,
				 errname(errno));
			return -1;
		}
		r = read_knob(k->name, &v);
		if (absent && r == -1 && errno == ENOENT)
			continue;
		if (absent) {
			snprintf(why, n, "%s exists, the plan says absent",
				 path);
			return -1;
		}
		if (r) {
			snprintf(why, n, "read %s back: %s", path,
				 errname(errno));
			return -1;
		}
		if (v != strtol(k->value, NULL, 10)) {
			snprintf(why, n, "%s reads back %ld, not %s", path, v,
				 k->value);
			return -1;
		}
	}
	return 0;
}

static void setting_record(const struct setting *s, int applied)
{
	int i, j;
	long v;

	if (!res)
		return;
	fputs("{\"type\":\"setting\",\"setting\":", res);
	json_str(res, s->label);
	fputs(",\"knobs\":{", res);
	for (i = 0; i < s->nknob; i++) {
		char name[48];

		/* the result key: fs/ dropped, '/' and '-' as '_' */
		snprintf(name, sizeof(name), "%s", s->knob[i].name +
			 (strncmp(s->knob[i].name, "fs/", 3) ? 0 : 3));
		for (j = 0; name[j]; j++)
			if (name[j] == '-' || name[j] == '/')
				name[j] = '_';
		fprintf(res, "%s\"%s\":", i ? "," : "", name);
		if (read_knob(s->knob[i].name, &v))
			fputs("null", res);
		else
			fprintf(res, "%ld", v);
	}
	fprintf(res, "},\"applied\":%s}\n", applied ? "true" : "false");
	fflush(res);
}

static void error_record(const char *id, const char *why)
{
	if (!res)
		return;
	fputs("{\"type\":\"error\",\"id\":", res);
	json_str(res, id);
	fputs(",\"reason\":", res);
	json_str(res, why);
	fputs("}\n", res);
	fflush(res);
}

/* ---- one case ---- */

static void child_fail(struct seen *s, const char *fmt, ...)
{
	va_list ap;

	if (s->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
}

static int read_target(int fd)
{
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n < 0)
		return 0;
	buf[n] = '\0';
	return !strcmp(buf, TARGET_TEXT);
}

static void follower(const struct tcase *t, struct seen *s)
{
	const struct fixture *f = &fix[t->fix];
	char dir[128], l[160], m[160], path[160], ctl[160];
	unsigned int u = t->fsuid, rg, eg, sg;
	struct stat st, sm;
	int fd;

	snprintf(dir, sizeof(dir), MNT "/%.7s/%.47s", t->mount, f->name);
	snprintf(l, sizeof(l), "%s/l", dir);
	snprintf(m, sizeof(m), "%s/m", dir);
	snprintf(path, sizeof(path), "%s/%s", dir,
		 strcmp(t->pos, "inter") ? "l" : "m/f");
	snprintf(ctl, sizeof(ctl), "%s/../t/f", dir);
	s->dir_seen = -1;
	s->link_seen = -1;
	if (u && (setgroups(0, NULL) || setresgid(u, u, u) ||
		  setresuid(u, u, u))) {
		child_fail(s, "setresuid/setresgid %u: %s", u, errname(errno));
		return;
	}
	/* setfsuid() returns the old fsuid: a second call reads it back. */
	setfsuid(u);
	setfsgid(u);
	s->fsuid = setfsuid(-1);
	s->fsgid = setfsgid(-1);
	if (getresuid(&s->ruid, &s->euid, &s->suid) ||
	    getresgid(&rg, &eg, &sg)) {
		child_fail(s, "getresuid: %s", errname(errno));
		return;
	}
	if (s->fsuid != u || s->fsgid != u || s->ruid != u || s->euid != u ||
	    s->suid != u || rg != u || eg != u || sg != u)
		child_fail(s, "identity did not take: uids %u/%u/%u gids "
			   "%u/%u/%u fsuid %u fsgid %u, wanted %u", s->ruid,
			   s->euid, s->suid, rg, eg, sg, s->fsuid, s->fsgid,
			   u);
	if (lstat(dir, &st))
		child_fail(s, "lstat %s: %s", dir, errname(errno));
	else
		s->dir_seen = st.st_uid;
	if (lstat(l, &st) || lstat(m, &sm))
		child_fail(s, "lstat %s, %s: %s", l, m, errname(errno));
	else if (st.st_uid != sm.st_uid)
		child_fail(s, "through %s l shows owner %u, m %u", t->mount,
			   st.st_uid, sm.st_uid);
	else
		s->link_seen = st.st_uid;
	if (s->dir_seen != t->dir_seen || s->link_seen != t->link_seen)
		child_fail(s, "through %s the dir shows owner %ld and the "
			   "link %ld, the plan says %u and %u", t->mount,
			   s->dir_seen, s->link_seen, t->dir_seen,
			   t->link_seen);
	fd = open(ctl, O_RDONLY | O_CLOEXEC);
	s->control_ret = fd < 0 ? -1 : 0;
	s->control_err = fd < 0 ? errno : 0;
	if (fd < 0)
		child_fail(s, "control open %s: %s", ctl,
			   errname(s->control_err));
	else if (!read_target(fd))
		child_fail(s, "control %s did not read the target", ctl);
	if (fd >= 0)
		close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	s->ret = fd < 0 ? -1 : 0;
	s->err = fd < 0 ? errno : 0;
	if (fd >= 0 && !read_target(fd))
		child_fail(s, "%s opened something else than the target",
			   path);
	if (fd >= 0)
		close(fd);
	s->done = 1;
}

/* Runs case t in a child; returns 0 and fills s unless the child broke. */
static int run_follower(const struct tcase *t, struct seen *s)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	memset(s, 0, sizeof(*s));
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		alarm(20);
		follower(t, s);
		n = write(p[1], s, sizeof(*s));
		_exit(n == sizeof(*s) ? 0 : 1);
	}
	close(p[1]);
	n = read(p[0], s, sizeof(*s));
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || n != sizeof(*s) || !s->done) {
		snprintf(s->why, sizeof(s->why), "the follower child broke "
			 "(status 0x%x)", status);
		return -1;
	}
	return 0;
}

/* lstat() of a fixture directory and of its links l and m. */
static int lstat_fixture(const char *dir, struct stat *d, struct stat *l,
			 struct stat *m, char *why, size_t n)
{
	char pl[160], pm[160];

	snprintf(pl, sizeof(pl), "%s/l", dir);
	snprintf(pm, sizeof(pm), "%s/m", dir);
	if (lstat(dir, d) || lstat(pl, l) || lstat(pm, m)) {
		snprintf(why, n, "lstat %s: %s", dir, errname(errno));
		return -1;
	}
	return 0;
}

/* A mount-root fixture: NAME/l and NAME/m show NAME.src's links. */
static int check_mounted(const struct fixture *f, const struct stat *sl,
			 const struct stat *sm, char *why, size_t n)
{
	char sd[128];
	struct stat st, srcl, srcm;

	snprintf(sd, sizeof(sd), MNT "/plain/%.43s.src", f->name);
	if (lstat_fixture(sd, &st, &srcl, &srcm, why, n))
		return -1;
	if ((st.st_mode & 07777) != f->src_mode || st.st_uid != f->src_uid ||
	    sl->st_ino != srcl.st_ino || sm->st_ino != srcm.st_ino ||
	    sl->st_dev != srcl.st_dev) {
		snprintf(why, n, "%s is %04o %u and its links inodes %lu, %lu; "
			 "the mount points show %lu, %lu: not mounted as "
			 "planned", sd, st.st_mode & 07777, st.st_uid,
			 (unsigned long)srcl.st_ino,
			 (unsigned long)srcm.st_ino,
			 (unsigned long)sl->st_ino, (unsigned long)sm->st_ino);
		return -1;
	}
	return 0;
}

/* Root's view through /mnt/plain: the fixture must be as laid out. */
static int check_fixture(const struct fixture *f, char *why, size_t n)
{
	char d[128];
	struct stat sd, sl, sm;

	snprintf(d, sizeof(d), MNT "/plain/%.47s", f->name);
	if (lstat_fixture(d, &sd, &sl, &sm, why, n))
		return -1;
	if ((sd.st_mode & 07777) != f->mode ||
	    sd.st_uid != on_stat(f->dir_uid) ||
	    sd.st_gid != on_stat(f->dir_uid) || !S_ISLNK(sl.st_mode) ||
	    sl.st_uid != on_stat(f->link_uid) ||
	    sl.st_gid != on_stat(f->link_uid) || !S_ISLNK(sm.st_mode) ||
	    sm.st_uid != on_stat(f->link_uid) ||
	    sm.st_gid != on_stat(f->link_uid)) {
		snprintf(why, n, "on disk %s is %04o %u:%u and its links "
			 "%u:%u, %u:%u, the plan says %04o %u and %u",
			 f->name, sd.st_mode & 07777, sd.st_uid, sd.st_gid,
			 sl.st_uid, sl.st_gid, sm.st_uid, sm.st_gid, f->mode,
			 f->dir_uid, f->link_uid);
		return -1;
	}
	return f->mounted ? check_mounted(f, &sl, &sm, why, n) : 0;
}

static void case_record(const struct tcase *t, const struct seen *s,
			int ok, const char *why)
{
	const struct fixture *f = &fix[t->fix];

	if (!res)
		return;
	fputs("{\"type\":\"case\",\"setting\":", res);
	json_str(res, set[t->set].label);
	fputs(",\"id\":", res);
	json_str(res, t->id);
	fprintf(res, ",\"group\":\"idmap\",\"params\":{\"mount\":\"%s\","
		"\"fixture\":\"%s\",\"dir_mode\":\"%04o\",\"dir_uid\":%u,"
		"\"link_uid\":%u,\"fsuid\":%u,\"position\":\"%s\","
		"\"op\":\"open_rdonly\",\"idmapped\":%s},", t->mount, f->name,
		f->mode, f->dir_uid, f->link_uid, t->fsuid, t->pos,
		idmapped[strcmp(t->mount, "plain") != 0] == 1 ? "true" :
		"false");
	fprintf(res, "\"read\":{\"ruid\":%u,\"euid\":%u,\"suid\":%u,"
		"\"fsuid\":%u,\"fsgid\":%u,\"dir_seen\":%ld,"
		"\"link_seen\":%ld},", s->ruid, s->euid, s->suid, s->fsuid,
		s->fsgid, s->dir_seen, s->link_seen);
	fprintf(res, "\"control_ret\":%d,\"control_errno\":\"%s\",",
		s->control_ret, errname(s->control_err));
	fprintf(res, "\"ret\":%d,\"errno\":\"%s\",", s->ret, errname(s->err));
	fprintf(res, "\"expect_ret\":%d,\"expect_errno\":\"%s\",\"ok\":%s,"
		"\"why\":", t->expect_ret, t->expect_err,
		ok ? "true" : "false");
	json_str(res, why);
	fputs("}\n", res);
	fflush(res);
}

/* Returns 1 if the case passed. */
static int run_case(int n, const struct tcase *t, int setting_ok,
		    const char *setting_why)
{
	char why[WHY * 2] = "";
	struct seen s;

	memset(&s, 0, sizeof(s));
	s.ret = -1;
	s.control_ret = -1;
	s.dir_seen = -1;
	s.link_seen = -1;
	if (setup_err[0])
		snprintf(why, sizeof(why), "setup failed: %s", setup_err);
	else if (!setting_ok)
		snprintf(why, sizeof(why), "setting not applied: %s",
			 setting_why);
	else if (apply_knobs(&set[t->set], 1, why, sizeof(why)) ||
		 check_fixture(&fix[t->fix], why, sizeof(why)))
		;
	else if (run_follower(t, &s) || s.why[0])
		snprintf(why, sizeof(why), "%s", s.why);
	else if (s.ret != t->expect_ret ||
		 strcmp(errname(s.err), t->expect_err))
		snprintf(why, sizeof(why), "expected %d %s, got %d %s",
			 t->expect_ret, t->expect_err, s.ret,
			 errname(s.err));
	if (why[0]) {
		printf("not ok %d %s/%s # %s\n", n, set[t->set].label, t->id,
		       why);
		if (!s.done)
			error_record(t->id, why);
	} else {
		printf("ok %d %s/%s\n", n, set[t->set].label, t->id);
	}
	if (s.done)
		case_record(t, &s, !why[0], why);
	fflush(stdout);
	return !why[0];
}

/* ---- the shapes 6.1 stops ---- */

/* Is `path` a mount point (mountinfo's fifth field)? */
static int is_mountpoint(const char *path)
{
	char line[1024], mp[256];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d %*d %*s %*s %255s", mp) == 1 &&
		    !strcmp(mp, path))
			found = 1;
	fclose(f);
	return found;
}

/* mount(2) looks its target up following links: a bind mount meant for
 * FIXTURE/l lands on t/f. */
static int limit_mount2(const struct limit *L, char *got, size_t n,
			char *why, size_t wn)
{
	char link[128];
	const char *target = MNT "/plain/t/f";
	int on_target, on_link;

	snprintf(link, sizeof(link), MNT "/plain/%.47s/l", fix[L->fix].name);
	if (is_mountpoint(target) || is_mountpoint(link)) {
		snprintf(why, wn, "%s or %s is a mount point already", target,
			 link);
		return -1;
	}
	if (mount(link, link, NULL, MS_BIND, NULL)) {
		snprintf(got, n, "%s", errname(errno));
		return -1;
	}
	on_target = is_mountpoint(target);
	on_link = is_mountpoint(link);
	snprintf(got, n, "%s", on_target == 1 && !on_link ? "target" :
		 on_link == 1 && !on_target ? "link" : "unknown");
	if (umount2(on_link == 1 ? link : target, UMOUNT_NOFOLLOW))
		snprintf(why, wn, "umount: %s", errname(errno));
	return 0;
}

/* A tmpfs whose user namespace maps no uid 0: the child's fsuid (kuid 0)
 * has no mapping there, and 6.1 refuses to create an inode it would own
 * (fsuidgid_has_mapping()). So no tmpfs inode has an unmappable owner. */
static int limit_tmpfs(char *got, size_t n, char *why, size_t wn)
{
	char ch = 0;
	int ready[2], go[2], out[2], err = -1, status;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC) ||
	    pipe2(out, O_CLOEXEC) || (mkdir(MNT "/uns", 0755) &&
				      errno != EEXIST)) {
		snprintf(why, wn, "pipe/mkdir: %s", errname(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(why, wn, "fork: %s", errname(errno));
		return -1;
	}
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) ||
		    write(ready[1], &ch, 1) != 1 || read(go[0], &ch, 1) != 1)
			_exit(1);
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("uns", MNT "/uns", "tmpfs", 0, "mode=0777"))
			_exit(2);
		err = symlink("../t/f", MNT "/uns/l") ? errno : 0;
		_exit(write(out[1], &err, sizeof(err)) == sizeof(err) ? 0 : 3);
	}
	close(ready[1]);
	close(go[0]);
	close(out[1]);
	if (read(ready[0], &ch, 1) != 1) {
		snprintf(why, wn, "the child could not unshare");
		goto out;
	}
	if (write_maps(pid, why, wn))
		goto out;
	if (write(go[1], &ch, 1) != 1 ||
	    read(out[0], &err, sizeof(err)) != sizeof(err))
		snprintf(why, wn, "the child did not mount or report");
	else
		snprintf(got, n, "%s", errname(err));
out:
	close(go[1]);
	waitpid(pid, &status, 0);
	close(ready[0]);
	close(out[0]);
	return err ? -1 : 0;
}

static int run_limit(int n, const struct limit *L)
{
	char got[16] = "not-run", why[WHY * 2] = "";
	int ret = -1;

	if (setup_err[0])
		snprintf(why, sizeof(why), "setup failed: %s", setup_err);
	else if (!strcmp(L->id, "mount2-onto-symlink"))
		ret = limit_mount2(L, got, sizeof(got), why, sizeof(why));
	else
		ret = limit_tmpfs(got, sizeof(got), why, sizeof(why));
	if (!why[0] && (ret != L->expect_ret || strcmp(got, L->expect)))
		snprintf(why, sizeof(why), "expected %d %s, got %d %s",
			 L->expect_ret, L->expect, ret, got);
	if (why[0])
		printf("not ok %d limit/%s # %s\n", n, L->id, why);
	else
		printf("ok %d limit/%s\n", n, L->id);
	if (res) {
		fprintf(res, "{\"type\":\"limit\",\"id\":\"%s\",\"ret\":%d,"
			"\"result\":", L->id, setup_err[0] ? 0 : ret);
		json_str(res, got);
		fprintf(res, ",\"expect_ret\":%d,\"expect\":", L->expect_ret);
		json_str(res, L->expect);
		fprintf(res, ",\"ok\":%s,\"why\":", why[0] ? "false" : "true");
		json_str(res, why);
		fputs("}\n", res);
		fflush(res);
	}
	fflush(stdout);
	return !why[0];
}

int main(int argc, char **argv)
{
	char why[WHY];
	int i, k, pass = 0, fail = 0, ok = 0, cur = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3) {
		fprintf(stderr, "usage: idmap PLAN IMAGE\n");
		return 2;
	}
	if (read_plan(argv[1]))
		return 2;
	res = fcntl(3, F_GETFD) >= 0 ? fdopen(3, "w") : NULL;
	/* Keep per-denial kernel messages off the console (kmsg has them). */
	klogctl(8, NULL, 4);
	printf("KTAP version 1\n1..%d\n", ncase + nlimit);
	if (setup(argv[2])) {
		printf("# idmap: setup failed: %s\n", setup_err);
		error_record("setup", setup_err);
	}
	for (i = 0; i < ncase; i++) {
		if (tc[i].set != cur) {
			cur = tc[i].set;
			why[0] = '\0';
			ok = !setup_err[0] &&
			     !apply_knobs(&set[cur], 0, why, sizeof(why));
			if (!setup_err[0])
				setting_record(&set[cur], ok);
			if (!setup_err[0] && !ok) {
				printf("# idmap: setting %s: %s\n",
				       set[cur].label, why);
				error_record("", why);
			}
		}
		k = run_case(i + 1, &tc[i], ok, why);
		pass += k;
		fail += !k;
	}
	for (i = 0; i < nlimit; i++) {
		k = run_limit(ncase + i + 1, &lim[i]);
		pass += k;
		fail += !k;
	}
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       pass, fail);
	if (res)
		fclose(res);
	return fail ? 1 : 0;
}
