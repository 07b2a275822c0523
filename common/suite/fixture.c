/* Scratch file systems, directories, targets and links (created as root). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guest.h"

#define FAIL(...) do { snprintf(why, n, __VA_ARGS__); return -1; } while (0)

int check_dir(const char *path, unsigned mode, unsigned uid, char *why, size_t n)
{
	struct stat st;
	if (lstat(path, &st))
		FAIL("lstat %s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode) || (st.st_mode & 07777) != mode || st.st_uid != uid || st.st_gid != uid)
		FAIL("dir %s is %o %u:%u, wanted %04o %u:%u", path, st.st_mode, st.st_uid, st.st_gid,
		     mode, uid, uid);
	return 0;
}

int ensure_dir(const char *path, unsigned mode, unsigned uid, char *why, size_t n)
{
	if (mkdir(path, 0700) == 0) {
		if (chown(path, uid, uid) || chmod(path, mode))
			FAIL("chown/chmod %s: %s", path, strerror(errno));
	} else if (errno != EEXIST) {
		FAIL("mkdir %s: %s", path, strerror(errno));
	}
	return check_dir(path, mode, uid, why, n);
}

static int mkfile(const char *path, unsigned mode, unsigned uid, const char *body, char *why, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		FAIL("create %s: %s", path, strerror(errno));
	if (body && write(fd, body, strlen(body)) != (ssize_t)strlen(body))
		FAIL("write %s", path);
	close(fd);
	if (chown(path, uid, uid) || chmod(path, mode))
		FAIL("chown/chmod %s: %s", path, strerror(errno));
	return 0;
}

/* by_owner: the link must be there already (link_as_owner made it) */
static int ensure_link_raw(const char *path, const char *body, unsigned uid, int by_owner,
			   char *why, size_t n)
{
	struct stat st;
	char b[PATHMAX];
	ssize_t len;
	if (lstat(path, &st)) {
		if (errno != ENOENT || by_owner)
			FAIL("lstat %s: %s", path, strerror(errno));
		if (symlink(body, path) || lchown(path, uid, uid))
			FAIL("symlink %s: %s", path, strerror(errno));
		len = readlink(path, b, sizeof b - 1);
		if (len < 0 || (b[len] = 0, strcmp(b, body)))
			FAIL("link %s body differs", path);
		if (lstat(path, &st))
			FAIL("lstat %s: %s", path, strerror(errno));
	}
	if (!S_ISLNK(st.st_mode) || st.st_uid != uid || st.st_gid != uid)
		FAIL("link %s is %o %u:%u, wanted a link %u:%u", path, st.st_mode, st.st_uid,
		     st.st_gid, uid, uid);
	return 0;
}

/* symlink() as the link's owner (ids and gids its uid), as LTP's users make theirs */
static int link_as_owner(const struct link_mk *k, char *why, size_t n)
{
	struct stat st;
	char w2[256];
	int r, e;

	if (lstat(k->path, &st) == 0 || errno != ENOENT)
		return 0;		/* ensure_link_raw checks what is there */
	if (ident_full(k->uid, why, n))
		return ident_restore(w2, sizeof w2), -1;
	r = symlink(k->body, k->path);
	e = errno;
	if (ident_restore(w2, sizeof w2))
		FAIL("%s", w2);
	if (r)
		FAIL("symlink %s as uid %u: %s", k->path, k->uid, strerror(e));
	return 0;
}

int ensure_link(const struct link_mk *k, char *why, size_t n)
{
	if (check_dir(k->dir, k->dir_mode, k->dir_uid, why, n))
		return -1;
	if (k->by_owner && link_as_owner(k, why, n))
		return -1;
	return ensure_link_raw(k->path, k->body, k->uid, k->by_owner, why, n);
}

int check_target(int t, char *why, size_t n)
{
	char p[PATHMAX];
	struct stat st;
	const struct target_row *r = &targets[t];
	unsigned uid = owner_ids[r->owner], mode = r->mode;

	snprintf(p, sizeof p, SCRATCH "/sa/t/%s", r->file);
	if (r->node == NODE_ABSENT) {
		if (lstat(p, &st) == 0 || errno != ENOENT)
			FAIL("dangling target %s exists", p);
		return 0;
	}
	if (r->node == NODE_DIR)
		return check_dir(p, mode, uid, why, n);
	if (lstat(p, &st))
		FAIL("lstat %s: %s", p, strerror(errno));
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != mode || st.st_uid != uid || st.st_gid != uid)
		FAIL("target %s is %o %u:%u", p, st.st_mode, st.st_uid, st.st_gid);
	return 0;
}

int fixture_setup(char *why, size_t n)
{
	char p[PATHMAX], b[PATHMAX];
	mkdir("/tmp", 01777);
	if (ensure_dir(SCRATCH, 0755, 0, why, n))
		return -1;
	for (int m = 0; m < N_MOUNT; m++) {
		snprintf(p, sizeof p, SCRATCH "/%s", mount_dirs[m]);
		mkdir(p, 0755);
		if (mount("sticky-scratch", p, "tmpfs",
			  MS_STRICTATIME | (m == M_NF ? MS_NOSYMFOLLOW : 0), "mode=0755"))
			FAIL("mount tmpfs %s: %s", p, strerror(errno));
		for (int d = 0; d < N_DIRMODE; d++)
			for (int o = 0; o < N_OWN; o++) {
				dir_path(b, sizeof b, m, d, o);
				if (ensure_dir(b, dir_modes[d], owner_ids[o], why, n))
					return -1;
			}
		xfmt(b, sizeof b, "%s/ns", p);
		if (ensure_dir(b, 0777, 0, why, n))
			return -1;
	}
	mkdir(SCRATCH "/sb", 0755);
	if (mount(SCRATCH "/sa", SCRATCH "/sb", NULL, MS_BIND, NULL) ||
	    mount(NULL, SCRATCH "/sb", NULL, MS_BIND | MS_REMOUNT | MS_NOATIME, NULL))
		FAIL("noatime bind mount of %s: %s", SCRATCH "/sa", strerror(errno));
	if (ensure_dir(SCRATCH "/sa/t", 0777, 0, why, n) || ensure_dir(SCRATCH "/sa/ctl", 0755, 0, why, n) ||
	    ensure_dir(SCRATCH "/sa/hl", 0777, 0, why, n))
		return -1;
	for (int t = 0; t < N_TARGET; t++) {
		const struct target_row *r = &targets[t];
		unsigned uid = owner_ids[r->owner];

		snprintf(b, sizeof b, SCRATCH "/sa/t/%s", r->file);
		if ((r->node == NODE_DIR && ensure_dir(b, r->mode, uid, why, n)) ||
		    (r->node == NODE_FILE && mkfile(b, r->mode, uid, NULL, why, n)) ||
		    (r->node == NODE_SCRIPT && mkfile(b, r->mode, uid, "#!/bin/sh\nexit 7\n", why, n)))
			return -1;
		snprintf(p, sizeof p, SCRATCH "/sa/ctl/%s", r->file);
		if (ensure_link_raw(p, b, 0, 0, why, n))
			return -1;
	}
	/* under t/dir: what the intermediate and dotdot positions reach */
	if (ensure_dir(SCRATCH "/sa/t/dir/sub", 0755, 0, why, n) ||
	    mkfile(SCRATCH "/sa/t/dir/f", 0666, 0, NULL, why, n))
		return -1;
	if (ensure_link_raw(SCRATCH "/sa/ctl/dir-sub", SCRATCH "/sa/t/dir/sub", 0, 0, why, n))
		return -1;
	return 0;
}

int fixture_teardown(void)
{
	int r = 0;
	if (umount2(SCRATCH "/sb", MNT_DETACH))
		r = -1;
	if (umount2(SCRATCH "/sa", MNT_DETACH))
		r = -1;
	if (umount2(SCRATCH "/nf", MNT_DETACH))
		r = -1;
	rmdir(SCRATCH "/sb");
	rmdir(SCRATCH "/sa");
	rmdir(SCRATCH "/nf");
	rmdir(SCRATCH);
	return r;
}
