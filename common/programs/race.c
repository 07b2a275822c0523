// SPDX-License-Identifier: GPL-2.0
/*
 * sticky-race: the link's owner renames the link out of the sticky
 * directory while root follows it. Which directory does each check judge:
 * the one the walk looked the link up in, or the link's parent when the
 * check runs?
 *
 *   sticky-race -w MS -n N [-k PATH=VALUE]...     window mode
 *   sticky-race -f TRIES [-k PATH=VALUE]...       free-running mode
 *
 * Layout (on the guest's /tmp tmpfs; R = /tmp/race, root 0755):
 *   R/sticky  root 1777: the /tmp the victim trusts, holding
 *             l -> R/t/f and m -> R/t, both owned by A (uid 1000)
 *   R/own     A's own directory, 0755: not world-writable, not sticky
 *   R/t/f     the target, root 0644, "sticky-race target\n"
 * The follower is root (fsuid 0), named "stickyrace"; it opens R/sticky/l
 * (position "trail") or R/sticky/m/f ("inter"). The renamer runs as A and
 * moves the link to R/own/ and is the only other process.
 *
 * Window mode needs a kernel with harness/fixtures/race-window: the knob
 * /proc/sys/fs/sticky-race-window-ms holds a task named "stickyrace" for
 * MS milliseconds between the lookup of each symlink and every check on
 * it. For each position and each fs.protected_symlinks value (0, 1), N
 * "renamed" trials (A renames the link while the follower is inside the
 * window: seen in state D before and after the rename) and N "control"
 * trials (nothing renamed). One {"type":"race","mode":"window",...}
 * record per trial on the result channel (fd 3): what the open returned
 * and every precondition that did not hold ("problems": a trial with one
 * judges nothing, the host fails it).
 *
 * Free-running mode (an unmodified kernel, -smp 2): A renames the link
 * back and forth between R/sticky and R/own as fast as it can while the
 * follower opens it TRIES times per position and fs.protected_symlinks
 * value. A successful open of R/sticky/l found the link in R/sticky, so
 * with a rule on that judges R/sticky it is a bypass. One record per
 * position and value: {"type":"race","mode":"free",...} with the counts.
 *
 * Window mode also runs N "mountroot" trials per fs.protected_symlinks
 * value, no window needed: A's symlink R/own/r is cloned with open_tree()
 * (OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW) and mounted with move_mount()
 * onto A's symlink R/sticky/r, then root opens R/sticky/r. The link it
 * follows is a mount root: the clone shares R/own/r's dentry, whose
 * d_parent is R/own; the walk found it in R/sticky. Each trial checks that the mount is there (the
 * open's link has R/own/r's inode) and unmounts it (UMOUNT_NOFOLLOW).
 *
 * -k sets a knob (the revision's own, to its protecting value) before the
 * trials and checks it reads back. Exit status 0 when every record was
 * written; the judging is the host's (harness/experiments/racecases.py).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define R		"/tmp/race"
#define STICKY		R "/sticky"
#define OWN		R "/own"
#define TARGET		R "/t/f"
#define CONTENT		"sticky-race target\n"
#define WINDOW_KNOB	"/proc/sys/fs/sticky-race-window-ms"
#define PS_KNOB		"/proc/sys/fs/protected_symlinks"
#define OWNER		1000
#define MAXKNOBS	4
#define NPROB		8

static const char *const positions[] = { "trail", "inter" };
/* per position: the link's name, its target, the path the follower opens */
static const char *const link_name[] = { "l", "m" };
static const char *const link_target[] = { R "/t/f", R "/t" };
static const char *const follow_path[] = { STICKY "/l", STICKY "/m/f" };

#ifndef SYS_open_tree
#define SYS_open_tree		428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount		429
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE		1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH	0x00000004
#endif
#ifndef UMOUNT_NOFOLLOW
#define UMOUNT_NOFOLLOW		0x00000008
#endif

struct problems {
	int n;
	char text[NPROB][160];
};

static void problem(struct problems *p, const char *fmt, ...)
{
	va_list ap;

	if (p->n >= NPROB)
		return;
	va_start(ap, fmt);
	vsnprintf(p->text[p->n++], sizeof(p->text[0]), fmt, ap);
	va_end(ap);
}

static FILE *results;

static void die(const char *what)
{
	fprintf(stderr, "sticky-race: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int write_knob(const char *path, long val)
{
	char buf[32];
	int fd = open(path, O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%ld\n", val);

	if (fd < 0)
		return -1;
	if (write(fd, buf, n) != n) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int read_knob(const char *path, long *val)
{
	char buf[32];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*val = strtol(buf, NULL, 10);
	return 0;
}

/* Sets a knob and checks it reads back; a problem otherwise. */
static void set_knob(struct problems *p, const char *path, long val)
{
	long got = -1;

	if (write_knob(path, val))
		problem(p, "write %ld to %s: %s", val, path, strerror(errno));
	else if (read_knob(path, &got) || got != val)
		problem(p, "%s reads back %ld, not %ld", path, got, val);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static void become_owner(void)
{
	if (setgroups(0, NULL) || setresgid(OWNER, OWNER, OWNER) ||
	    setresuid(OWNER, OWNER, OWNER))
		die("setresuid to the link's owner");
}

/* Where the link of a position is: its place in R/sticky (in) or R/own. */
static void link_paths(int pos, char *in, char *out, size_t len)
{
	snprintf(in, len, STICKY "/%s", link_name[pos]);
	snprintf(out, len, OWN "/%s", link_name[pos]);
}

static void make_layout(void)
{
	int fd;

	mkdir(R, 0755);
	mkdir(R "/t", 0755);
	if (mkdir(STICKY, 01777) && errno != EEXIST)
		die("mkdir " STICKY);
	if (mkdir(OWN, 0755) && errno != EEXIST)
		die("mkdir " OWN);
	if (chmod(STICKY, 01777) || chown(STICKY, 0, 0) ||
	    chown(OWN, OWNER, OWNER) || chmod(OWN, 0755))
		die("chmod/chown the directories");
	fd = open(TARGET, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, CONTENT, strlen(CONTENT)) !=
	    (ssize_t)strlen(CONTENT) || close(fd))
		die("write " TARGET);
}

/* Puts the link of a position back in R/sticky, owned by A. */
static void reset_link(int pos)
{
	char in[64], out[64];

	link_paths(pos, in, out, sizeof(in));
	unlink(in);
	unlink(out);
	if (symlink(link_target[pos], in) || lchown(in, OWNER, OWNER))
		die("make the link");
}

/* The preconditions of a trial, before it runs. */
static void check_layout(struct problems *p, int pos)
{
	char in[64], out[64];
	struct stat st;

	link_paths(pos, in, out, sizeof(in));
	if (lstat(in, &st) || !S_ISLNK(st.st_mode) || st.st_uid != OWNER)
		problem(p, "%s is not a symlink owned by %d", in, OWNER);
	if (stat(STICKY, &st) || (st.st_mode & 07777) != 01777 || st.st_uid)
		problem(p, STICKY " is not root's and 1777");
	if (stat(OWN, &st) || (st.st_mode & 07777) != 0755 ||
	    st.st_uid != OWNER)
		problem(p, OWN " is not %d's and 0755", OWNER);
	if (geteuid() != 0)
		problem(p, "the follower is not root");
}

/* The state letter of a task in /proc/PID/stat, or 0. */
static char task_state(pid_t pid)
{
	char path[64], buf[512], *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	s = strrchr(buf, ')');
	return s && s[1] == ' ' ? s[2] : 0;
}

/* What the follower saw, sent to the parent through a pipe. */
struct follow {
	int err;		/* 0: opened and read CONTENT */
	double ms;		/* how long the open took */
};

/* The follower: named "stickyrace" (the window's name), waits for "go",
 * opens the path and reports. */
static void follower(int pos, int go, int report)
{
	struct follow f = { 0, 0 };
	char buf[64], c;
	double t0;
	ssize_t n;
	int fd;

	prctl(PR_SET_NAME, "stickyrace");
	if (read(go, &c, 1) != 1)
		_exit(3);
	t0 = now_ms();
	fd = open(follow_path[pos], O_RDONLY);
	f.ms = now_ms() - t0;
	if (fd < 0) {
		f.err = errno;
	} else {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		f.err = strcmp(buf, CONTENT) ? -1 : 0;
	}
	if (write(report, &f, sizeof(f)) != sizeof(f))
		_exit(4);
	_exit(0);
}

/* The renamer, as A: waits for the follower to sleep in the window, then
 * renames the link to R/own. Exit status: 0 renamed inside the window,
 * 1 the window had closed by the time the rename returned, 2 the
 * follower never slept, 3 the rename failed. */
static void renamer(int pos, pid_t fol, int window_ms)
{
	char in[64], out[64];
	double until = now_ms() + 2000 + 4.0 * window_ms;

	link_paths(pos, in, out, sizeof(in));
	become_owner();
	while (task_state(fol) != 'D') {
		if (now_ms() > until)
			_exit(2);
		sleep_us(200);
	}
	if (rename(in, out))
		_exit(3);
	_exit(task_state(fol) == 'D' ? 0 : 1);
}

static const char *result_name(int err)
{
	static char buf[32];

	if (err == 0)
		return "followed";
	if (err == -1)
		return "wrong-content";
	snprintf(buf, sizeof(buf), "%s", strerror(err));
	switch (err) {
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ELOOP: return "ELOOP";
	case EPERM: return "EPERM";
	case ECHILD: return "ECHILD";
	default: return buf;
	}
}

static void json_problems(const struct problems *p)
{
	int i;

	fputs("\"problems\":[", results);
	for (i = 0; i < p->n; i++) {
		const char *c;

		fputs(i ? ",\"" : "\"", results);
		for (c = p->text[i]; *c; c++)
			fprintf(results, *c == '"' || *c == '\\' ? "\\%c" :
				"%c", *c);
		fputc('"', results);
	}
	fputc(']', results);
}

static void window_trial(int pos, int ps, int renamed, int trial,
			 int window_ms, const struct problems *setup)
{
	struct problems p = *setup;
	int go[2], rep[2], status;
	pid_t fol, ren = -1;
	struct follow f = { -2, 0 };
	char in[64], out[64];
	struct stat st;
	int in_window = 0;

	reset_link(pos);
	check_layout(&p, pos);
	link_paths(pos, in, out, sizeof(in));
	if (pipe(go) || pipe(rep))
		die("pipe");
	fol = fork();
	if (fol < 0)
		die("fork");
	if (!fol) {
		close(go[1]);
		close(rep[0]);
		follower(pos, go[0], rep[1]);
	}
	close(go[0]);
	close(rep[1]);
	if (renamed) {
		ren = fork();
		if (ren < 0)
			die("fork");
		if (!ren)
			renamer(pos, fol, window_ms);
	}
	if (write(go[1], "g", 1) != 1)
		die("start the follower");
	if (read(rep[0], &f, sizeof(f)) != sizeof(f))
		problem(&p, "the follower reported nothing");
	close(go[1]);
	close(rep[0]);
	waitpid(fol, &status, 0);
	if (renamed) {
		waitpid(ren, &status, 0);
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 9;
		in_window = status == 0;
		if (status == 1)
			problem(&p, "the rename returned after the window");
		else if (status == 2)
			problem(&p, "the follower never slept in the window");
		else if (status)
			problem(&p, "the renamer failed (status %d)", status);
		if (!status && (lstat(out, &st) || !S_ISLNK(st.st_mode)))
			problem(&p, "the link is not in " OWN " after the rename");
	} else if (lstat(in, &st) || !S_ISLNK(st.st_mode)) {
		problem(&p, "the control's link left " STICKY);
	}
	if (f.ms < window_ms)
		problem(&p, "the open took %.1f ms, less than the %d ms "
			"window: the window did not hold it", f.ms, window_ms);
	fprintf(results, "{\"type\":\"race\",\"mode\":\"window\","
		"\"position\":\"%s\",\"protected_symlinks\":%d,"
		"\"renamed\":%s,\"trial\":%d,\"result\":\"%s\","
		"\"open_ms\":%.1f,\"in_window\":%s,",
		positions[pos], ps, renamed ? "true" : "false", trial,
		result_name(f.err), f.ms, in_window ? "true" : "false");
	json_problems(&p);
	fputs("}\n", results);
	fflush(results);
}

/* Root opens A's symlink R/sticky/r after A's R/own/r was mounted on it:
 * the link followed is a mount root. */
static void mountroot_trial(int ps, int trial, const struct problems *setup)
{
	const char *root = OWN "/r", *point = STICKY "/r";
	struct problems p = *setup;
	struct stat want, got;
	int tree, fd, err = -2, mounted = 0;

	unlink(root);
	unlink(point);
	if (symlink(TARGET, root) || lchown(root, OWNER, OWNER) ||
	    symlink(TARGET, point) || lchown(point, OWNER, OWNER))
		die("make the mount-root links");
	check_layout(&p, 0);
	tree = syscall(SYS_open_tree, AT_FDCWD, root,
		       OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW | O_CLOEXEC);
	if (tree < 0)
		problem(&p, "open_tree(%s): %s", root, strerror(errno));
	else if (syscall(SYS_move_mount, tree, "", AT_FDCWD, point,
			 MOVE_MOUNT_F_EMPTY_PATH))
		problem(&p, "move_mount onto %s: %s", point, strerror(errno));
	else
		mounted = 1;
	if (tree >= 0)
		close(tree);
	if (mounted) {
		if (lstat(root, &want) || lstat(point, &got) ||
		    !S_ISLNK(got.st_mode) || got.st_ino != want.st_ino ||
		    got.st_uid != OWNER)
			problem(&p, "%s is not the mounted %s", point, root);
		fd = open(point, O_RDONLY);
		if (fd < 0) {
			err = errno;
		} else {
			char buf[64];
			ssize_t n = read(fd, buf, sizeof(buf) - 1);

			close(fd);
			buf[n > 0 ? n : 0] = '\0';
			err = strcmp(buf, CONTENT) ? -1 : 0;
		}
	}
	if (mounted && umount2(point, UMOUNT_NOFOLLOW | MNT_DETACH))
		problem(&p, "umount %s: %s", point, strerror(errno));
	fprintf(results, "{\"type\":\"race\",\"mode\":\"window\","
		"\"position\":\"mountroot\",\"protected_symlinks\":%d,"
		"\"renamed\":false,\"trial\":%d,\"result\":\"%s\","
		"\"open_ms\":0,\"in_window\":false,",
		ps, trial, err == -2 ? "not-run" : result_name(err));
	json_problems(&p);
	fputs("}\n", results);
	fflush(results);
}

/* A renames the link back and forth until killed. */
static void free_renamer(int pos)
{
	char in[64], out[64];

	link_paths(pos, in, out, sizeof(in));
	become_owner();
	for (;;) {
		rename(in, out);
		rename(out, in);
	}
}

static void free_run(int pos, int ps, long tries,
		     const struct problems *setup)
{
	long counts[4] = { 0, 0, 0, 0 };	/* followed EACCES ENOENT other */
	struct problems p = *setup;
	char buf[64], other[64] = "";
	pid_t ren;
	long i;

	reset_link(pos);
	check_layout(&p, pos);
	prctl(PR_SET_NAME, "stickyfree");
	ren = fork();
	if (ren < 0)
		die("fork");
	if (!ren)
		free_renamer(pos);
	for (i = 0; i < tries; i++) {
		int fd = open(follow_path[pos], O_RDONLY);

		if (fd >= 0) {
			ssize_t n = read(fd, buf, sizeof(buf) - 1);

			close(fd);
			buf[n > 0 ? n : 0] = '\0';
			counts[strcmp(buf, CONTENT) ? 3 : 0]++;
		} else if (errno == EACCES) {
			counts[1]++;
		} else if (errno == ENOENT) {
			counts[2]++;
		} else {
			counts[3]++;
			snprintf(other, sizeof(other), "%s", strerror(errno));
		}
	}
	kill(ren, SIGKILL);
	waitpid(ren, NULL, 0);
	if (counts[1] + counts[2] + counts[0] == 0)
		problem(&p, "no open met the link");
	fprintf(results, "{\"type\":\"race\",\"mode\":\"free\","
		"\"position\":\"%s\",\"protected_symlinks\":%d,"
		"\"tries\":%ld,\"followed\":%ld,\"EACCES\":%ld,"
		"\"ENOENT\":%ld,\"other\":%ld,\"other_error\":\"%s\",",
		positions[pos], ps, tries, counts[0], counts[1], counts[2],
		counts[3], other);
	json_problems(&p);
	fputs("}\n", results);
	fflush(results);
}

int main(int argc, char **argv)
{
	char *knob_path[MAXKNOBS];
	long knob_val[MAXKNOBS];
	int nknobs = 0, window_ms = 0, n = 0, opt, pos, ps, t, i;
	long tries = 0;
	struct problems setup = { 0 };

	while ((opt = getopt(argc, argv, "w:n:f:k:")) != -1) {
		char *eq;

		switch (opt) {
		case 'w':
			window_ms = atoi(optarg);
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 'f':
			tries = atol(optarg);
			break;
		case 'k':
			eq = strchr(optarg, '=');
			if (!eq || nknobs == MAXKNOBS) {
				fprintf(stderr, "sticky-race: -k PATH=VALUE, "
					"at most %d\n", MAXKNOBS);
				return 2;
			}
			*eq = '\0';
			knob_path[nknobs] = optarg;
			knob_val[nknobs++] = atol(eq + 1);
			break;
		default:
			goto usage;
		}
	}
	if (!((window_ms > 0 && n > 0) ^ (tries > 0)))
		goto usage;
	results = fdopen(3, "w");
	if (!results)
		die("the result channel (fd 3)");
	make_layout();
	for (i = 0; i < nknobs; i++)
		set_knob(&setup, knob_path[i], knob_val[i]);
	if (window_ms)
		set_knob(&setup, WINDOW_KNOB, window_ms);
	for (pos = 0; pos < 2; pos++) {
		for (ps = 0; ps < 2; ps++) {
			struct problems s = setup;

			set_knob(&s, PS_KNOB, ps);
			if (tries) {
				free_run(pos, ps, tries, &s);
				continue;
			}
			for (t = 0; t < n; t++) {
				window_trial(pos, ps, 1, t, window_ms, &s);
				window_trial(pos, ps, 0, t, window_ms, &s);
				if (pos == 0)
					mountroot_trial(ps, t, &s);
			}
		}
	}
	if (window_ms)
		write_knob(WINDOW_KNOB, 0);
	return fclose(results) ? 2 : 0;
usage:
	fprintf(stderr, "usage: sticky-race -w MS -n N [-k PATH=VALUE]...\n"
		"       sticky-race -f TRIES [-k PATH=VALUE]...\n");
	return 2;
}
