/*
 * sticky-attack: the /tmp symlink attack the sticky-symlink patch is about,
 * run for real, and Alan Cox's per-user /tmp alternative.
 *
 *   sticky-attack [--tries N] [--planted N] [--setting LABEL] [--namespace]
 *
 * Victim (root, like the vulnerable programs of the CVEs): lstat() checks
 * that /tmp/sticky-victim.tmp does not exist, then opens it
 * O_WRONLY|O_CREAT (no O_EXCL, no O_NOFOLLOW) and writes a marker.
 * Attacker (uid 1000, a separate process): plants that name as a symlink to
 * /etc/sticky-protected (root 0644) and removes it again, in a loop, while
 * the victim runs. A success is a try in which the victim wrote the
 * protected file (seen both by fstat of the victim's descriptor and by the
 * file's content).
 *
 * Variants, per knob setting (ps<P>-own<O>, as in the suite):
 *   race          the race above, --tries times;
 *   planted       link planted first, the victim opens without a check;
 *   planted-inter an intermediate link: /tmp/sticky-victim.d -> /etc/
 *                 sticky-pdir, the victim creates /tmp/sticky-victim.d/out.
 *
 * --namespace: instead, with protections off, the same attack against an
 * attacker whose /tmp is private (unshare(CLONE_NEWNS), / rprivate, tmpfs
 * on /tmp, as pam_namespace does at login), plus what per-user /tmp costs.
 *
 * Records on the result fd: {"type":"attack",...}, {"type":"namespace",...}.
 * Exit status: 0, 1 when a self-check failed, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "beyond.h"

#define LINK	"/tmp/sticky-victim.tmp"
#define LINKD	"/tmp/sticky-victim.d"
#define PROT	"/etc/sticky-protected"
#define PDIR	"/etc/sticky-pdir"
#define POUT	PDIR "/out"
#define ORIG	"ORIGINAL CONTENT OF A ROOT-OWNED FILE\n"
#define MARK	"VICTIM"
#define UID_A	1000
#define UID_B	1001
#define SPIN_LIMIT_MS 20000.0

enum cmd { CMD_NONE, CMD_RACE, CMD_PLANT, CMD_PLANT_INTER, CMD_DIRECT, CMD_QUIT };
enum outcome { O_THROUGH, O_CREATED, O_SAW_LINK, O_DENIED, O_OTHER, N_OUTCOME };
static const char *const outcome_names[N_OUTCOME] = {
	"through_link", "created_own_file", "check_saw_link", "denied", "other" };

struct ctl {
	int cmd, seq, started, done, stopped, result;
	long plants, plant_failures;
};

static struct ctl *ctl;
static pid_t attacker = -1;
static int failed_checks;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static void relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

/* Spins until *p == v; -1 after SPIN_LIMIT_MS (the other side died). */
static int wait_for(int *p, int v)
{
	double t0 = now_ms();
	for (unsigned long n = 1; LOAD(*p) != v; n++) {
		relax();
		if (!(n & 0xfffff) && now_ms() - t0 > SPIN_LIMIT_MS)
			return -1;
	}
	return 0;
}

static void attacker_loop(void)
{
	int last = 0;

	for (;;) {
		int s, cmd;
		while ((s = LOAD(ctl->seq)) == last)
			relax();
		last = s;
		cmd = LOAD(ctl->cmd);
		switch (cmd) {
		case CMD_QUIT:
			_exit(0);
		case CMD_RACE:
			STORE(ctl->started, s);
			while (LOAD(ctl->done) != s) {
				if (symlink(PROT, LINK) == 0)
					ctl->plants++;
				else
					ctl->plant_failures++;
				unlink(LINK);
			}
			break;
		case CMD_PLANT:
		case CMD_PLANT_INTER: {
			/* its own link of the last try: only a private /tmp keeps it */
			unlink(cmd == CMD_PLANT ? LINK : LINKD);
			int r = cmd == CMD_PLANT ? symlink(PROT, LINK) : symlink(PDIR, LINKD);
			ctl->result = r ? errno : 0;
			ctl->plants += !r;
			STORE(ctl->started, s);
			break;
		}
		case CMD_DIRECT: {
			int fd = open(PROT, O_WRONLY);
			ctl->result = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
			STORE(ctl->started, s);
			break;
		}
		}
		STORE(ctl->stopped, s);
	}
}

/* A private /tmp as pam_namespace would give it: own mount namespace,
 * nothing propagates back, a fresh sticky tmpfs on /tmp. */
static int private_tmp(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777"))
		return -errno;
	return 0;
}

static int start_attacker(int private)
{
	int p[2];
	int r = 0;

	memset(ctl, 0, sizeof *ctl);
	if (pipe(p))
		return -errno;
	attacker = fork();
	if (attacker < 0)
		return -errno;
	if (attacker == 0) {
		close(p[0]);
		if (private)
			r = private_tmp();
		if (!r)
			r = drop_to(UID_A);
		if (write(p[1], &r, sizeof r) != sizeof r)
			_exit(3);
		close(p[1]);
		if (r)
			_exit(3);
		attacker_loop();
	}
	close(p[1]);
	if (read(p[0], &r, sizeof r) != sizeof r)
		r = -EPIPE;
	close(p[0]);
	return r;
}

static int command(int cmd)
{
	int s = ctl->seq + 1;
	STORE(ctl->cmd, cmd);
	STORE(ctl->seq, s);
	return s;
}

static void stop_attacker(void)
{
	if (attacker <= 0)
		return;
	command(CMD_QUIT);
	waitpid(attacker, NULL, 0);
	attacker = -1;
}

static int write_file(const char *path, const char *data, unsigned mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode);
	ssize_t n;
	if (fd < 0)
		return -errno;
	n = write(fd, data, strlen(data));
	close(fd);
	return n == (ssize_t)strlen(data) ? 0 : -EIO;
}

static int prot_intact(void)
{
	char b[128];
	int fd = open(PROT, O_RDONLY | O_NOFOLLOW);
	ssize_t n;
	if (fd < 0)
		return 0;
	n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n < 0)
		return 0;
	b[n] = 0;
	return strcmp(b, ORIG) == 0;
}

static ino_t prot_ino;
static dev_t prot_dev;

static int setup_targets(void)
{
	struct stat st;
	mkdir("/etc", 0755);
	mkdir(PDIR, 0755);
	unlink(POUT);
	if (write_file(PROT, ORIG, 0644) || chmod(PROT, 0644) || chown(PROT, 0, 0) ||
	    chmod(PDIR, 0755) || chown(PDIR, 0, 0) || lstat(PROT, &st)) {
		out_error("", "cannot set up %s and %s: %s", PROT, PDIR, strerror(errno));
		return -1;
	}
	prot_ino = st.st_ino;
	prot_dev = st.st_dev;
	return 0;
}

static unsigned long rng = 88172645463325252UL;

static unsigned long xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct tally {
	long tries, n[N_OUTCOME];
	int errnos[8], nerr;	/* errno values seen for "denied"/"other", distinct */
	long errcount[8];
};

static void tally_errno(struct tally *t, int e)
{
	for (int i = 0; i < t->nerr; i++)
		if (t->errnos[i] == e) {
			t->errcount[i]++;
			return;
		}
	if (t->nerr < 8) {
		t->errnos[t->nerr] = e;
		t->errcount[t->nerr++] = 1;
	}
}

/* The victim's open and write; classifies the result. */
static int victim_open(const char *path, int inter, struct tally *t)
{
	struct stat st;
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	int o;
	if (fd < 0) {
		int e = errno;
		tally_errno(t, e);
		return e == EACCES ? O_DENIED : O_OTHER;
	}
	fstat(fd, &st);
	if (write(fd, MARK, strlen(MARK)) != (ssize_t)strlen(MARK))
		tally_errno(t, errno);
	close(fd);
	if (inter) {
		struct stat ps;
		o = lstat(POUT, &ps) == 0 && ps.st_ino == st.st_ino && ps.st_dev == st.st_dev ?
		    O_THROUGH : O_CREATED;
	} else {
		o = st.st_ino == prot_ino && st.st_dev == prot_dev ? O_THROUGH : O_CREATED;
	}
	return o;
}

/* After a try: the protected objects must say what the victim saw; restore. */
static int settle(const char *label, const char *variant, long i, int o)
{
	int wrote;
	struct stat st;
	if (!strcmp(variant, "planted-inter")) {
		wrote = lstat(POUT, &st) == 0;
		unlink(POUT);
		unlink(LINKD);
	} else {
		wrote = !prot_intact();
		if (wrote && write_file(PROT, ORIG, 0644)) {
			out_error(label, "cannot restore %s", PROT);
			return -1;
		}
	}
	if (wrote != (o == O_THROUGH)) {
		char id[64];
		snprintf(id, sizeof id, "%s/%s/%ld", label, variant, i);
		out_error(id, "victim saw %s but the protected object was %s",
			  outcome_names[o], wrote ? "written" : "intact");
		failed_checks++;
		return -1;
	}
	return 0;
}

static int run_variant(const char *label, const char *variant, long tries, struct tally *t)
{
	int race = !strcmp(variant, "race");
	int inter = !strcmp(variant, "planted-inter");
	memset(t, 0, sizeof *t);
	ctl->plants = ctl->plant_failures = 0;
	for (long i = 0; i < tries; i++) {
		int s, o;
		unlink(LINK);
		unlink(LINKD);
		unlink(POUT);
		if (race) {
			struct stat st;
			unsigned long spin = xorshift() % 512;
			s = command(CMD_RACE);
			if (wait_for(&ctl->started, s))
				goto dead;
			for (volatile unsigned long k = 0; k < spin; k++)
				;
			if (lstat(LINK, &st) == 0)
				o = O_SAW_LINK;
			else if (errno != ENOENT) {
				tally_errno(t, errno);
				o = O_OTHER;
			} else {
				o = victim_open(LINK, 0, t);
			}
			STORE(ctl->done, s);
			if (wait_for(&ctl->stopped, s))
				goto dead;
		} else {
			s = command(inter ? CMD_PLANT_INTER : CMD_PLANT);
			if (wait_for(&ctl->stopped, s))
				goto dead;
			if (ctl->result) {
				out_error(label, "%s: the attacker could not plant its link: %s",
					  variant, strerror(ctl->result));
				failed_checks++;
				return -1;
			}
			o = victim_open(inter ? LINKD "/out" : LINK, inter, t);
		}
		t->n[o]++;
		t->tries++;
		if (settle(label, variant, i, o))
			return -1;
	}
	unlink(LINK);
	unlink(LINKD);
	return 0;
dead:
	out_error(label, "%s: the attacker stopped answering", variant);
	failed_checks++;
	return -1;
}

static void tally_json(struct jb *j, const struct tally *t)
{
	char eb[32];
	jb_int(j, "tries", t->tries);
	jb_int(j, "successes", t->n[O_THROUGH]);
	jb_obj(j, "outcomes");
	for (int o = 0; o < N_OUTCOME; o++)
		jb_int(j, outcome_names[o], t->n[o]);
	jb_close_obj(j);
	jb_obj(j, "errnos");
	for (int i = 0; i < t->nerr; i++)
		jb_int(j, errno_name(t->errnos[i], eb, sizeof eb), t->errcount[i]);
	jb_close_obj(j);
	jb_int(j, "attacker_plants", ctl->plants);
}

static void console_line(const char *what, const char *label, const char *variant,
			 const struct tally *t, double ms)
{
	out_console("# %s %s %s: %ld/%ld through the link (saw %ld, own file %ld, "
		    "denied %ld, other %ld; %ld plants) %.0f ms\n", what, label, variant,
		    t->n[O_THROUGH], t->tries, t->n[O_SAW_LINK], t->n[O_CREATED],
		    t->n[O_DENIED], t->n[O_OTHER], ctl->plants, ms);
}

static const char *const variants[] = { "race", "planted", "planted-inter" };

static void attack_setting(const struct bsetting *s, long tries, long planted)
{
	static struct jb j;
	for (int v = 0; v < 3; v++) {
		struct tally t;
		long n = v ? planted : tries;
		double t0 = now_ms();
		if (n <= 0)
			continue;
		if (run_variant(s->label, variants[v], n, &t))
			return;
		console_line("attack", s->label, variants[v], &t, now_ms() - t0);
		jb_begin(&j);
		jb_str(&j, "type", "attack");
		bsetting_json(&j, s);
		jb_str(&j, "variant", variants[v]);
		jb_str(&j, "link", v == 2 ? "intermediate" : "trailing");
		jb_bool(&j, "victim_checks", v == 0);
		tally_json(&j, &t);
		jb_end(&j);
		out_json(&j);
		out_flush();
	}
}

/* The attacker may not write the protected file itself: the only way in is
 * through the victim. */
static int direct_write_denied(void)
{
	int s = command(CMD_DIRECT);
	if (wait_for(&ctl->stopped, s))
		return -1;
	return ctl->result;
}

/* ---- per-user /tmp ---- */

enum job { J_CREATE_SECRET, J_READ_SHARED, J_WRITE_SHARED };

/* Runs job as uid in a child, private /tmp or not; the child stays alive
 * (its namespace with it) until release() closes *hold. Returns the job's
 * result (0 or an errno) or -errno when the child could not be set up. */
static int spawn_user(unsigned uid, int private, int job, const char *path, pid_t *pid,
		      int *hold)
{
	int res[2], h[2];
	int r = 0;
	if (pipe(res) || pipe(h))
		return -errno;
	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0) {
		char b[64];
		close(res[0]);
		close(h[1]);
		if (private)
			r = private_tmp();
		if (!r)
			r = drop_to(uid);
		if (!r) {
			if (job == J_READ_SHARED) {
				int fd = open(path, O_RDONLY);
				ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);
				r = fd < 0 ? errno : (n > 0 && !strncmp(b, "shared\n", 7)) ? 0 : EIO;
				if (fd >= 0)
					close(fd);
			} else {
				r = write_file(path, job == J_CREATE_SECRET ? "secret\n" : "shared\n",
					       0644);
				r = -r;
			}
		}
		if (write(res[1], &r, sizeof r) != sizeof r)
			_exit(3);
		if (read(h[0], b, 1) < 0)
			_exit(3);
		_exit(0);
	}
	close(res[1]);
	close(h[0]);
	if (read(res[0], &r, sizeof r) != sizeof r)
		r = -EPIPE;
	close(res[0]);
	*hold = h[1];
	return r;
}

static void release(pid_t pid, int hold)
{
	close(hold);
	waitpid(pid, NULL, 0);
}

static int unshare_as(unsigned uid, int flags)
{
	int p[2], r = 0;
	pid_t pid;
	if (pipe(p))
		return errno;
	pid = fork();
	if (pid == 0) {
		r = uid ? drop_to(uid) : 0;
		if (!r)
			r = unshare(flags) ? errno : 0;
		else
			r = -r;
		if (write(p[1], &r, sizeof r) != sizeof r)
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &r, sizeof r) != sizeof r)
		r = EPIPE;
	close(p[0]);
	waitpid(pid, NULL, 0);
	return r;
}

static void ns_result(struct jb *j, const char *key, int e)
{
	char eb[32];
	jb_obj(j, key);
	jb_int(j, "ret", e ? -1 : 0);
	jb_str(j, "errno", errno_name(e < 0 ? -e : e, eb, sizeof eb));
	jb_close_obj(j);
}

static int namespace_tests(long tries, long planted)
{
	static struct jb j;
	struct bsetting off = { .ps = 0, .own = bown_kind() < 0 ? -1 : 0 };
	struct tally ctlt[2], priv[2];
	int r;
	char eb[32];

	snprintf(off.label, sizeof off.label, off.own < 0 ? "ps0-own-" : "ps0-own0");
	if (bsetting_apply(&off))
		return -1;

	/* 1. can mount namespaces be had in this kernel, and by whom */
	jb_begin(&j);
	jb_str(&j, "type", "namespace");
	jb_str(&j, "test", "unshare");
	r = unshare_as(0, CLONE_NEWNS);
	ns_result(&j, "root_newns", r);
	ns_result(&j, "user_newns", unshare_as(UID_A, CLONE_NEWNS));
	ns_result(&j, "user_newuser", unshare_as(UID_A, CLONE_NEWUSER));
	jb_end(&j);
	out_json(&j);
	out_console("# namespace unshare(CLONE_NEWNS) as root: %s\n",
		    r ? errno_name(r, eb, sizeof eb) : "ok");
	if (r) {
		out_error("namespace", "unshare(CLONE_NEWNS) fails as root: %s",
			  errno_name(r, eb, sizeof eb));
		return -1;
	}

	/* 2. the same attack, protections off: shared /tmp, then private /tmp */
	for (int private = 0; private <= 1; private++) {
		struct tally *t = private ? priv : ctlt;
		r = start_attacker(private);
		if (r) {
			out_error("namespace", "attacker setup (private=%d) failed: %s", private,
				  strerror(-r));
			stop_attacker();
			return -1;
		}
		for (int v = 0; v < 2; v++) {
			double t0 = now_ms();
			if (run_variant(off.label, variants[v], v ? planted : tries, &t[v])) {
				stop_attacker();
				return -1;
			}
			console_line(private ? "namespace private-tmp" : "namespace shared-tmp",
				     off.label, variants[v], &t[v], now_ms() - t0);
			jb_begin(&j);
			jb_str(&j, "type", "namespace");
			jb_str(&j, "test", "attack");
			jb_str(&j, "tmp", private ? "private" : "shared");
			bsetting_json(&j, &off);
			jb_str(&j, "variant", variants[v]);
			tally_json(&j, &t[v]);
			jb_end(&j);
			out_json(&j);
		}
		stop_attacker();
	}

	/* 3. the admin's view: root in the initial namespace looks for A's file */
	{
		pid_t pa;
		int hold;
		char via[96];
		struct stat st;
		int found_dir = 0;
		DIR *d;
		struct dirent *de;
		int cr = spawn_user(UID_A, 1, J_CREATE_SECRET, "/tmp/A-secret", &pa, &hold);
		int direct = stat("/tmp/A-secret", &st) ? errno : 0;
		snprintf(via, sizeof via, "/proc/%d/root/tmp/A-secret", (int)pa);
		int proc = stat(via, &st) ? errno : 0;
		d = opendir("/tmp");
		while (d && (de = readdir(d)))
			found_dir |= !strcmp(de->d_name, "A-secret");
		if (d)
			closedir(d);
		release(pa, hold);
		jb_begin(&j);
		jb_str(&j, "type", "namespace");
		jb_str(&j, "test", "admin-view");
		ns_result(&j, "create", cr);
		ns_result(&j, "root_stat", direct);
		jb_bool(&j, "root_readdir_lists", found_dir);
		ns_result(&j, "root_via_proc_root", proc);
		jb_end(&j);
		out_json(&j);
		out_console("# namespace admin-view: A created /tmp/A-secret: %s; root stat: %s; "
			    "root readdir lists it: %d; via /proc/PID/root: %s\n",
			    cr ? "failed" : "ok", direct ? errno_name(direct, eb, sizeof eb) : "found",
			    found_dir, proc ? "not found" : "found");
		if (cr) {
			out_error("namespace", "A could not create its file: %d", cr);
			return -1;
		}
	}

	/* 4. a program that shares /tmp between users: A writes, B reads */
	jb_begin(&j);
	jb_str(&j, "type", "namespace");
	jb_str(&j, "test", "shared-file");
	for (int private = 0; private <= 1; private++) {
		pid_t pa, pb;
		int ha, hb;
		const char *path = private ? "/tmp/shared" : "/tmp/shared-ctl";
		int w = spawn_user(UID_A, private, J_WRITE_SHARED, path, &pa, &ha);
		int rd = spawn_user(UID_B, private, J_READ_SHARED, path, &pb, &hb);
		release(pb, hb);
		release(pa, ha);
		unlink(path);
		jb_obj(&j, private ? "private" : "shared");
		ns_result(&j, "a_write", w);
		ns_result(&j, "b_read", rd);
		jb_close_obj(&j);
		out_console("# namespace shared-file (%s /tmp): A writes %s, B reads %s\n",
			    private ? "private" : "shared",
			    w ? errno_name(w < 0 ? -w : w, eb, sizeof eb) : "ok",
			    rd ? errno_name(rd < 0 ? -rd : rd, eb, sizeof eb) : "ok");
	}
	jb_end(&j);
	out_json(&j);
	out_flush();
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sticky-attack [--tries N] [--planted N] [--setting LABEL] "
		"[--namespace]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long tries = 2000, planted = 20;
	const char *only = NULL;
	int ns = 0;
	struct bsetting set[4];
	int nset;
	double t0 = now_ms();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tries") && i + 1 < argc)
			tries = atol(argv[++i]);
		else if (!strcmp(argv[i], "--planted") && i + 1 < argc)
			planted = atol(argv[++i]);
		else if (!strcmp(argv[i], "--setting") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--namespace"))
			ns = 1;
		else
			usage();
	}
	if (tries < 0 || planted < 0)
		usage();
	out_init();
	out_raw_tty();
	knobs_open();
	ctl = shared_page();
	rng ^= (unsigned long)getpid() << 20;
	if (!ctl || setup_targets())
		return 2;

	if (ns) {
		if (namespace_tests(tries, planted))
			failed_checks++;
	} else {
		nset = bsettings(set);
		int r = start_attacker(0);
		if (r) {
			out_error("", "cannot start the attacker: %s", strerror(-r));
			return 2;
		}
		r = direct_write_denied();
		out_console("# attack: the attacker opening %s O_WRONLY itself: %s\n", PROT,
			    r ? strerror(r) : "allowed");
		if (r != EACCES) {
			out_error("", "the attacker can write %s directly (%d): the test is void",
				  PROT, r);
			failed_checks++;
		}
		for (int i = 0; i < nset && !failed_checks; i++) {
			if (only && strcmp(only, set[i].label))
				continue;
			if (bsetting_apply(&set[i])) {
				failed_checks++;
				break;
			}
			attack_setting(&set[i], tries, planted);
		}
		stop_attacker();
	}
	bsettings_restore();
	unlink(LINK);
	unlink(LINKD);
	out_console("# timing attack: %.0f ms\n", now_ms() - t0);
	out_flush();
	return failed_checks || n_errors ? 1 : 0;
}
