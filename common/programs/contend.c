/*
 * sticky-contend: follows per second while several processes follow one
 * root-owned link in a plain (not sticky) directory, as every unprivileged
 * follow of /bin -> usr/bin does.
 *
 *   sticky-contend [--procs N] [--ms T] [--rounds R]
 *
 * N processes (uid 1000, no capabilities) stat("/contend/l/f") in a loop,
 * where /contend (0755 root) holds the link l -> d. Every follow crosses
 * uids, so v3's check gets past its owner test; the posting then took the
 * link's d_lock, the port reads the directory the walk holds. Each round
 * counts the follows of all processes in T ms; one {"type":"contend"}
 * record per round. Run with -smp 2: the lock's cache line then moves
 * between the two vCPUs. Every stat must succeed: a failure is an error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "beyond.h"

#define MAXPROCS 16
#define FOLLOWER 1000

struct shared {
	volatile int go, stop;
	volatile long count[MAXPROCS];
	volatile int failed[MAXPROCS];
};

static int setup(void)
{
	int fd;

	if ((mkdir("/contend", 0755) && errno != EEXIST) ||
	    (mkdir("/contend/d", 0755) && errno != EEXIST))
		return -1;
	fd = open("/contend/d/f", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	if (symlink("d", "/contend/l") && errno != EEXIST)
		return -1;
	return chmod("/contend", 0755);
}

static void follower(struct shared *sh, int i)
{
	struct stat st;
	long n = 0;

	if (drop_to(FOLLOWER) || geteuid() != FOLLOWER) {
		sh->failed[i] = EPERM;
		_exit(1);
	}
	while (!sh->go)
		;
	while (!sh->stop) {
		if (stat("/contend/l/f", &st)) {
			sh->failed[i] = errno;
			break;
		}
		n++;
		if (!(n & 63))
			sh->count[i] = n;
	}
	sh->count[i] = n;
	_exit(0);
}

static int round_once(int procs, int ms, long *total)
{
	struct shared *sh = shared_page();
	const struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	pid_t pid[MAXPROCS];
	int bad = 0;

	if (!sh)
		return -1;
	memset((void *)sh, 0, sizeof(*sh));
	for (int i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			follower(sh, i);
		if (pid[i] < 0)
			return -1;
	}
	sh->go = 1;
	nanosleep(&t, NULL);
	sh->stop = 1;
	*total = 0;
	for (int i = 0; i < procs; i++) {
		int st;

		waitpid(pid[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) || sh->failed[i]) {
			out_error("contend", "follower %d: %s", i, strerror(sh->failed[i]));
			bad++;
		}
		*total += sh->count[i];
	}
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct jb j;
	int procs = 4, ms = 2000, rounds = 3;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--procs") && i + 1 < argc)
			procs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			ms = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: sticky-contend [--procs N] [--ms T] [--rounds R]\n");
			return 2;
		}
	}
	if (procs < 1 || procs > MAXPROCS || ms < 1 || rounds < 1)
		return 2;
	out_init();
	out_raw_tty();
	knobs_open();
	if (setup()) {
		out_error("contend", "setup failed: %s", strerror(errno));
		out_flush();
		return 1;
	}
	for (int r = 0; r < rounds; r++) {
		long total;

		if (round_once(procs, ms, &total)) {
			out_flush();
			return 1;
		}
		jb_begin(&j);
		jb_str(&j, "type", "contend");
		jb_int(&j, "round", r);
		jb_int(&j, "procs", procs);
		jb_int(&j, "ms", ms);
		jb_int(&j, "follows", total);
		knobs_json(&j, "knobs");
		jb_end(&j);
		out_json(&j);
		out_console("# contend round %d: %d procs, %ld follows in %d ms\n", r, procs,
			    total, ms);
	}
	out_flush();
	return n_errors ? 1 : 0;
}
