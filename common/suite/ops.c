/* One operation on a path, as the current identity. Returns 0 or -1 with *err set. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "guest.h"


static int fd_op(int fd, int *err)
{
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	close(fd);
	*err = 0;
	return 0;
}

static int rc(int r, int *err)
{
	*err = r < 0 ? errno : 0;
	return r < 0 ? -1 : 0;
}

/* glibc 2.36 has no openat2() wrapper */
static int openat2_rdonly(const char *path, __u64 resolve, int *err)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC, .resolve = resolve };

	return fd_op((int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how)), err);
}

static int do_exec(const char *path, int *err)
{
	int p[2], st, e = 0;
	pid_t pid;
	if (pipe2(p, O_CLOEXEC))
		return rc(-1, err);
	pid = vfork();
	if (pid < 0) {
		close(p[0]), close(p[1]);
		return rc(-1, err);
	}
	if (pid == 0) {
		char *const argv[] = { (char *)path, NULL };
		char *const envp[] = { NULL };
		close(p[0]);
		execve(path, argv, envp);
		e = errno;
		if (write(p[1], &e, sizeof e) < 0)
			_exit(126);
		_exit(127);
	}
	close(p[1]);
	ssize_t n = read(p[0], &e, sizeof e);
	close(p[0]);
	if (waitpid(pid, &st, 0) < 0)
		return rc(-1, err);
	if (n == (ssize_t)sizeof e) {
		*err = e;
		return -1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 7) {
		*err = 0;
		return 0;
	}
	*err = STATUS_BASE + (WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return -1;
}

/* openat(dirfd, "name") with dirfd the path's directory, as fstests and vfstest do */
static int at_dirfd(const char *path, int *err)
{
	const char *slash = strrchr(path, '/');
	char dir[PATHMAX];
	int dfd, fd, e;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof dir) {
		*err = EINVAL;
		return -1;
	}
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return rc(-1, err);
	fd = openat(dfd, slash + 1, O_RDONLY | O_CLOEXEC);
	e = errno;
	close(dfd);
	errno = e;
	return fd_op(fd, err);
}

/* an unnamed file in t/ww (O_TMPFILE), then linked to path with linkat() */
static int tmpfile_linkat(const char *path, int *err)
{
	char proc[64];
	int fd = open(SCRATCH "/sa/t/ww", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600), r, e;

	if (fd < 0)
		return rc(-1, err);
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	r = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
	e = errno;
	close(fd);
	errno = e;
	return rc(r, err);
}

int do_op(int op, const char *path, const char *aux, unsigned chown_uid, int *err)
{
	struct stat st;
	char b[PATHMAX];
	switch (op) {
	case OP_OPEN_RDONLY: return fd_op(open(path, O_RDONLY | O_CLOEXEC), err);
	case OP_OPEN_WRONLY: return fd_op(open(path, O_WRONLY | O_CLOEXEC), err);
	case OP_OPEN_RDWR: return fd_op(open(path, O_RDWR | O_CLOEXEC), err);
	case OP_OPEN_CREAT: return fd_op(open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644), err);
	case OP_OPEN_CREAT_EXCL:
		return fd_op(open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644), err);
	case OP_OPEN_NOFOLLOW: return fd_op(open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), err);
	case OP_OPEN_PATH: return fd_op(open(path, O_PATH | O_CLOEXEC), err);
	case OP_OPEN_DIRECTORY: return fd_op(open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err);
	case OP_OPENAT2_NOSYM: return openat2_rdonly(path, RESOLVE_NO_SYMLINKS, err);
	case OP_STAT: return rc(stat(path, &st), err);
	case OP_LSTAT: return rc(lstat(path, &st), err);
	case OP_ACCESS: return rc(faccessat(AT_FDCWD, path, R_OK, 0), err);
	case OP_FACCESSAT_EACCESS: return rc(faccessat(AT_FDCWD, path, R_OK, AT_EACCESS), err);
	case OP_CHDIR: {
		int r = rc(chdir(path), err);
		if (chdir("/"))
			return -1;
		return r;
	}
	case OP_TRUNCATE: return rc(truncate(path, 0), err);
	case OP_CHMOD: return rc(chmod(path, 0666), err);
	case OP_CHOWN: return rc(chown(path, chown_uid, (gid_t)-1), err);
	case OP_UTIMENSAT: return rc(utimensat(AT_FDCWD, path, NULL, 0), err);
	case OP_READLINK: return rc(readlink(path, b, sizeof b) < 0 ? -1 : 0, err);
	case OP_LINKAT_FOLLOW: return rc(linkat(AT_FDCWD, path, AT_FDCWD, aux, AT_SYMLINK_FOLLOW), err);
	case OP_EXECVE: return do_exec(path, err);
	case OP_RENAME: return rc(rename(path, aux), err);
	case OP_UNLINK: return rc(unlink(path), err);
	case OP_OPEN_NONBLOCK_DIRECTORY:
		return fd_op(open(path, O_RDONLY | O_NONBLOCK | O_DIRECTORY | O_CLOEXEC), err);
	case OP_OPENAT_DIRFD: return at_dirfd(path, err);
	case OP_FACCESSAT_NOFOLLOW:
		return rc(faccessat(AT_FDCWD, path, R_OK, AT_SYMLINK_NOFOLLOW), err);
	case OP_UTIMENSAT_NOFOLLOW: {
		/* an explicit mtime: only the owner or CAP_FOWNER may set it */
		struct timespec ts[2] = { { 0, UTIME_OMIT }, { 2, 0 } };
		return rc(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), err);
	}
	case OP_OPEN_BINDMOUNT: return fd_op(open(path, O_RDONLY | O_CLOEXEC), err);
	case OP_OPENAT2_CACHED: return openat2_rdonly(path, RESOLVE_CACHED, err);
	case OP_TMPFILE_LINKAT: return tmpfile_linkat(path, err);
	case OP_FCHOWNAT_NOFOLLOW:
		return rc(fchownat(AT_FDCWD, path, chown_uid, (gid_t)-1, AT_SYMLINK_NOFOLLOW), err);
	}
	*err = EINVAL;
	return -1;
}
