/* The setuid-exec follower: a real exec of a setuid-root program by A.
 *
 * Switching ids in place cannot give this follower: the kernel itself sets
 * ruid A, euid = suid = fsuid 0 (gids the same numbers) and grants the full
 * capability set when A executes a set-user-ID, set-group-ID root binary.
 * The suite copies itself to SETUID_COPY (root:root 06755), starts one copy
 * as A and sends it every op of this follower over a pipe; the copy answers
 * with the op's result and the ids and capabilities it ran with. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sendfile.h>
#include <sys/wait.h>
#include <unistd.h>
#include "guest.h"

#define SETUID_DIR SCRATCH "/sa/x"
#define SETUID_COPY SETUID_DIR "/sticky-setuid"

struct request {
	int op;
	unsigned chown_uid;
	char path[PATHMAX], aux[PATHMAX];
};

struct reply {
	int ret, err, dac_override;
	struct ids_now ids;
};

static pid_t server = -1;
static int to_server = -1, from_server = -1;

static int full_io(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;

	while (len) {
		ssize_t r = wr ? write(fd, p, len) : read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* The copy's side: one reply per request until the pipe closes. */
int setuid_exec_serve(void)
{
	struct request q;
	struct reply a;
	/* the pipes move off 0 and 1, so that execve's script cannot touch them */
	int in = fcntl(0, F_DUPFD_CLOEXEC, 10), out = fcntl(1, F_DUPFD_CLOEXEC, 10);
	int null = open("/dev/null", O_RDWR);

	if (in < 0 || out < 0 || null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		return 1;
	while (full_io(in, &q, sizeof q, 0) == 0) {
		q.path[PATHMAX - 1] = q.aux[PATHMAX - 1] = '\0';
		memset(&a, 0, sizeof a);
		a.ret = do_op(q.op, q.path, q.aux, q.chown_uid, &a.err);
		ident_read(&a.ids);
		a.dac_override = ident_dac_override();
		if (full_io(out, &a, sizeof a, 1))
			return 1;
	}
	return 0;
}

#define FAIL(...) do { snprintf(why, n, __VA_ARGS__); return -1; } while (0)

static int copy_self(char *why, size_t n)
{
	struct stat st;
	int in, out;
	off_t off = 0;

	if (ensure_dir(SETUID_DIR, 0755, 0, why, n))
		return -1;
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st))
		FAIL("open /proc/self/exe: %s", strerror(errno));
	unlink(SETUID_COPY);
	out = open(SETUID_COPY, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		close(in);
		FAIL("create %s: %s", SETUID_COPY, strerror(errno));
	}
	while (off < st.st_size)
		if (sendfile(out, in, &off, (size_t)(st.st_size - off)) <= 0)
			break;
	close(in);
	if (close(out) || off != st.st_size)
		FAIL("copy to %s: short", SETUID_COPY);
	/* chown clears the set-id bits, so chmod comes after it */
	if (chown(SETUID_COPY, 0, 0) || chmod(SETUID_COPY, 06755) || stat(SETUID_COPY, &st))
		FAIL("chown/chmod %s: %s", SETUID_COPY, strerror(errno));
	if ((st.st_mode & 07777) != 06755 || st.st_uid || st.st_gid)
		FAIL("%s is %o %u:%u, wanted 6755 0:0", SETUID_COPY, st.st_mode, st.st_uid,
		     st.st_gid);
	return 0;
}

static int start(char *why, size_t n)
{
	const struct follower_ids *f = &follower_ids[F_SETUID_EXEC];
	int q[2], a[2];

	if (copy_self(why, n))
		return -1;
	if (pipe2(q, O_CLOEXEC) || pipe2(a, O_CLOEXEC))
		FAIL("pipe: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);
	server = fork();
	if (server < 0)
		FAIL("fork: %s", strerror(errno));
	if (server == 0) {
		char *const argv[] = { "sticky-setuid", "--setuid-exec-server", NULL };
		char *const envp[] = { NULL };

		/* A, with no saved root: only the exec can give root back */
		if (dup2(q[0], 0) < 0 || dup2(a[1], 1) < 0 ||
		    setresgid(f->ruid, f->ruid, f->ruid) || setresuid(f->ruid, f->ruid, f->ruid))
			_exit(126);
		execve(SETUID_COPY, argv, envp);
		_exit(127);
	}
	close(q[0]);
	close(a[1]);
	to_server = q[1];
	from_server = a[0];
	return 0;
}

void setuid_exec_stop(void)
{
	if (server <= 0)
		return;
	close(to_server);
	close(from_server);
	waitpid(server, NULL, 0);
	server = -1;
}

/* One op as the setuid-exec follower: 0, or -1 with why (not the op's
 * failure: that is *ret and *err). ids: the ids the op ran with. */
int setuid_exec_op(int op, const char *path, const char *aux, unsigned chown_uid, int *ret,
		   int *err, struct ids_now *ids, char *why, size_t n)
{
	const struct follower_ids *f = &follower_ids[F_SETUID_EXEC];
	struct request q;
	struct reply a;
	int st;

	if (server < 0 && start(why, n))
		return -1;
	memset(&q, 0, sizeof q);
	q.op = op;
	q.chown_uid = chown_uid;
	if (xfmt(q.path, sizeof q.path, "%s", path) < 0 || xfmt(q.aux, sizeof q.aux, "%s", aux) < 0)
		FAIL("path too long for the setuid-exec follower");
	if (full_io(to_server, &q, sizeof q, 1) || full_io(from_server, &a, sizeof a, 0)) {
		close(to_server);
		close(from_server);
		waitpid(server, &st, 0);
		server = -1;
		FAIL("setuid-exec follower gone (wait status %#x): exit 126 = could not become A,"
		     " 127 = could not exec %s", st, SETUID_COPY);
	}
	*ret = a.ret;
	*err = a.err;
	*ids = a.ids;
	if (a.ids.r != f->ruid || a.ids.e != f->euid || a.ids.s != f->suid ||
	    a.ids.fs != f->fsuid || a.ids.rg != f->ruid || a.ids.eg != f->euid ||
	    a.ids.sg != f->suid || a.ids.fsg != f->fsuid)
		FAIL("setuid-exec follower ran with ids %u/%u/%u/%u gids %u/%u/%u/%u, wanted"
		     " %u/%u/%u/%u", a.ids.r, a.ids.e, a.ids.s, a.ids.fs, a.ids.rg, a.ids.eg,
		     a.ids.sg, a.ids.fsg, f->ruid, f->euid, f->suid, f->fsuid);
	if (a.dac_override != 1)
		FAIL("setuid-exec follower %s CAP_DAC_OVERRIDE", a.dac_override ? "cannot read"
		     : "lacks");
	return 0;
}
