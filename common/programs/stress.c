// SPDX-License-Identifier: GPL-2.0
/*
 * stress: symlink following in a sticky directory while other processes
 * rename the links and their directory, chmod the directory between 1777
 * and 0755, lchown the links and flip the knobs. Run it with -smp 2 in a
 * lockdep kernel: the kernel must not splat or hang, and every follow must
 * end in one of the results legitimate for its kind (see below).
 *
 *   stress [-t SECONDS] [-f FOLLOWERS_PER_UID] [-s SEED]
 *          [-k KNOB=ON:every|trailing] [-w WINDOW_MS]
 *
 * Layout (all on the guest's /tmp tmpfs; B = /tmp/stress, root 0755):
 *   B/d   the sticky directory S (root, 1777 or 0755, renamed to B/e and
 *         back), holding
 *         f<o><i>  moving links to B/t/file    (renamed S/x <-> S/x~,
 *         g<o><i>  moving links to B/t         and moved S <-> B/n)
 *         F<o>     a fixed link to B/t/file    (never renamed)
 *         G<o>     a fixed link to B/t         (never renamed)
 *         where <o> is the first owner (r=0, a=1000, b=1001); owners are
 *         then changed at random by lchown.
 *   B/n   a plain root 0755 directory the moving links visit.
 *   B/t   the targets: a 0755 directory holding a 0644 file.
 *   B/p   the guarded directory P (root, 1777, never changed), holding
 *         p<i>     links to B/t/file   owned by A (uid 1000), which A
 *         q<i>     links to B/t        renames between P and B/o
 *   B/o   A's own directory (1000, 0755): neither sticky nor writable
 *         by others.
 *   B/u   a churned sticky directory (root, 1777): created with a link
 *         u/l to B/t/file and a link u/m to B/t, owners rotating, then
 *         both links unlinked and u removed, over and over. In RCU-walk
 *         mode a follower can hold u/l while its directory goes
 *         negative under it: the checks must retry, never oops.
 *
 * Followers run as uid 0, 1000 and 1001 (setresuid, no groups), and each
 * holds a descriptor of S opened before the renames start. Legitimate
 * results, with why; anything else (ECHILD leaking out of an RCU-walk
 * retry, ENOTDIR, ELOOP, EPERM...) is a failure:
 *   0       following is allowed at that instant.
 *   EACCES  a protection refused: the flavor's own check (S is 1777 and
 *           the follower's fsuid owns neither the link nor is S's owner
 *           the link's owner), or fs.protected_symlinks for a trailing
 *           link. Every follower may see it, root included: CAP_DAC_
 *           OVERRIDE does not bypass either check. No DAC refusal is
 *           possible: every directory on the way stays searchable by all
 *           (S is 1777 or 0755) and the target file is 0644.
 *   ENOENT  only where a rename removed the name being looked up: for
 *           paths through the name /tmp/stress/d (S may be at B/e), and
 *           for moving links (they may be at S/x~ or B/n/x), and for
 *           paths through the churned B/u. Never for a fixed link
 *           reached through the held descriptor of S.
 * A follow through P found the link in P (the path names P), so every
 * check that judges the directory the walk looked the link up in refuses
 * it for uids 0 and 1001 while the check is on. Such a follow that
 * succeeds while a check covering it stayed on for the whole call (a
 * sequence count around every knob write says so) is a bypass: a check
 * that judged the link's d_parent after A moved it to B/o. Bypasses are
 * counted apart from the failures, with examples; the host judges them
 * against what the flavor's rule predicts (harness/experiments/stress.py).
 * The knobs: fs.protected_symlinks (on = 1, trailing links) and each -k
 * (the flavor's own: the value that turns it on, the links it covers).
 * -w MS turns on the test-only window of harness/fixtures/race-window
 * (fs.sticky-race-window-ms) for the follows through P: the follower
 * takes the comm "stickyrace" around each, and the knob mutator holds
 * each state 4 * MS so that a slowed follow sees one state (without -w,
 * every other state is held 20 ms, long enough for a follow in a KASAN
 * kernel).
 *
 * The mutators run as root (A's mover as A) and know where each object
 * is, so their own
 * calls must all succeed, except lchown of a moving link, which may race
 * the renamer and then meet ENOENT at every place it tries.
 *
 * One {"type":"stress",...} record goes to the result channel (fd 3) and
 * a summary to stderr; the exit status is 0 if there was no failure.
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define B	"/tmp/stress"
#define NMOVE	3		/* moving links per owner and kind */
#define NOWN	3
#define MAXFOL	8		/* followers per uid */
#define NBAD	8		/* failure examples kept per worker */
#define NGUARD	3		/* links of each kind in P */
#define MAXKNOB	4
#define A_UID	1000		/* owner of P's links and of B/o */
#define WINDOW	"/proc/sys/fs/sticky-race-window-ms"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static const unsigned owner_uid[NOWN] = { 0, 1000, 1001 };
static const char owner_ch[NOWN] = { 'r', 'a', 'b' };

/* What a follower does; allow: bit 0 EACCES, bit 1 ENOENT. */
#define A_EACCES 1
#define A_ENOENT 2
struct fop {
	const char *name;
	int allow;
};
enum { OP_OPEN_TRAIL, OP_STAT_TRAIL, OP_OPEN_INTER, OP_STAT_INTER,
       OP_AT_TRAIL_MOVING, OP_AT_FIXED_TRAIL, OP_AT_FIXED_INTER,
       OP_AT_FIXED_CREAT, OP_CHURN_TRAIL, OP_CHURN_INTER, OP_GUARD_TRAIL,
       OP_GUARD_INTER, N_FOP };
static const struct fop fops[N_FOP] = {
	[OP_OPEN_TRAIL] = { "open-path-trailing", A_EACCES | A_ENOENT },
	[OP_STAT_TRAIL] = { "stat-path-trailing", A_EACCES | A_ENOENT },
	[OP_OPEN_INTER] = { "open-path-intermediate", A_EACCES | A_ENOENT },
	[OP_STAT_INTER] = { "stat-path-intermediate", A_EACCES | A_ENOENT },
	[OP_AT_TRAIL_MOVING] = { "openat-moving-trailing", A_EACCES | A_ENOENT },
	[OP_AT_FIXED_TRAIL] = { "openat-fixed-trailing", A_EACCES },
	[OP_AT_FIXED_INTER] = { "statat-fixed-intermediate", A_EACCES },
	[OP_AT_FIXED_CREAT] = { "openat-fixed-creat", A_EACCES },
	[OP_CHURN_TRAIL] = { "open-churned-trailing", A_EACCES | A_ENOENT },
	[OP_CHURN_INTER] = { "stat-churned-intermediate", A_EACCES | A_ENOENT },
	[OP_GUARD_TRAIL] = { "open-guarded-trailing", A_EACCES | A_ENOENT },
	[OP_GUARD_INTER] = { "stat-guarded-intermediate", A_EACCES | A_ENOENT },
};

enum { M_RENAME, M_DIRRENAME, M_CHMOD, M_CHOWN, M_KNOB, M_CHURN, M_GUARD,
       N_MUT };
static const char *const mut_names[N_MUT] = {
	"rename", "dir-rename", "chmod", "lchown", "knob", "churn",
	"guarded-rename",
};

/* A knob the knob mutator flips: the value that turns its check on, and
 * whether the check covers intermediate links too. */
struct knob {
	char path[128];
	int on;
	int every;
};
static struct knob knobs[MAXKNOB] = {
	{ "/proc/sys/fs/protected_symlinks", 1, 0 },
};
static int n_knobs = 1;
static int window_ms;

struct worker {
	int kind;		/* -1 follower, else M_* */
	unsigned uid;
	long ops;
	long res[N_FOP][3];	/* ok, EACCES, ENOENT */
	long bad;
	char bad_what[NBAD][120];
	long judged;		/* follows through P under a check */
	long bypass;
	char bypass_what[NBAD][120];
};

struct shared {
	volatile int stop;
	int nworkers;
	/* odd while a knob is written; knob k's check is on iff kon[k] */
	unsigned long kseq;
	int kon[MAXKNOB];
	struct worker w[NOWN * MAXFOL + N_MUT];
};

static struct shared *sh;
static unsigned long rng;
/* Opened before any worker starts, while S is still at B/d. */
static int s_path, s_rdonly, n_path;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("stress: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(2);
}

static void note_bad(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->bad < NBAD) {
		va_start(ap, fmt);
		vsnprintf(w->bad_what[w->bad], sizeof(w->bad_what[0]), fmt, ap);
		va_end(ap);
	}
	w->bad++;
}

static void link_name(char *buf, size_t n, char kind, int o, int i)
{
	if (i < 0)
		snprintf(buf, n, "%c%c", kind, owner_ch[o]);
	else
		snprintf(buf, n, "%c%c%d", kind, owner_ch[o], i);
}

static void mklink(int dfd, const char *target, const char *name, unsigned uid)
{
	if (symlinkat(target, dfd, name))
		die("symlink %s", name);
	if (fchownat(dfd, name, uid, uid, AT_SYMLINK_NOFOLLOW))
		die("lchown %s", name);
}

static void setup(void)
{
	char name[16];
	int sfd, o, i, fd;

	/* Leftovers from an earlier run in the same boot: start afresh. */
	if (system("rm -rf " B) != 0)
		die("rm -rf " B);
	if (mkdir(B, 0755) || mkdir(B "/d", 0755) || mkdir(B "/n", 0755) ||
	    mkdir(B "/t", 0755))
		die("mkdir " B "/...");
	if (chmod(B "/d", 01777))
		die("chmod " B "/d");
	fd = open(B "/t/file", O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, "target\n", 7) != 7 || close(fd))
		die("create " B "/t/file");
	sfd = open(B "/d", O_RDONLY | O_DIRECTORY);
	if (sfd < 0)
		die("open " B "/d");
	for (o = 0; o < NOWN; o++) {
		for (i = -1; i < NMOVE; i++) {
			link_name(name, sizeof(name), i < 0 ? 'F' : 'f', o, i);
			mklink(sfd, B "/t/file", name, owner_uid[o]);
			link_name(name, sizeof(name), i < 0 ? 'G' : 'g', o, i);
			mklink(sfd, B "/t", name, owner_uid[o]);
		}
	}
	close(sfd);
	if (mkdir(B "/p", 0755) || chmod(B "/p", 01777) ||
	    mkdir(B "/o", 0755) || chown(B "/o", A_UID, A_UID))
		die("mkdir " B "/p, " B "/o");
	sfd = open(B "/p", O_PATH | O_DIRECTORY);
	if (sfd < 0)
		die("open " B "/p");
	for (i = 0; i < NGUARD; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		mklink(sfd, B "/t/file", name, A_UID);
		snprintf(name, sizeof(name), "q%d", i);
		mklink(sfd, B "/t", name, A_UID);
	}
	close(sfd);
}

static int allowed(int op, int err)
{
	return (err == EACCES && (fops[op].allow & A_EACCES)) ||
	       (err == ENOENT && (fops[op].allow & A_ENOENT));
}

/* Whether a check covering a link in P (trailing or not) is on now. */
static int guarded_now(int trailing)
{
	int k;

	for (k = 0; k < n_knobs; k++)
		if (sh->kon[k] && (trailing || knobs[k].every))
			return 1;
	return 0;
}

static void note_bypass(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->bypass < NBAD) {
		va_start(ap, fmt);
		vsnprintf(w->bypass_what[w->bypass],
			  sizeof(w->bypass_what[0]), fmt, ap);
		va_end(ap);
	}
	w->bypass++;
}

static void follower(struct worker *w, unsigned uid)
{
	char path[96], name[16];
	struct stat st;
	int sfd, op, o, i, rc, err, guard = 0;
	unsigned long n = 0, seq = 0;

	sfd = s_path;
	if (uid && (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid)))
		die("become uid %u", uid);
	while (!sh->stop) {
		op = (int)(n++ % N_FOP);
		o = (int)rnd(NOWN);
		i = (int)rnd(NMOVE);
		switch (op) {
		case OP_OPEN_TRAIL:
		case OP_STAT_TRAIL:
			link_name(name, sizeof(name), 'f', o, i);
			snprintf(path, sizeof(path), B "/d/%s", name);
			break;
		case OP_OPEN_INTER:
		case OP_STAT_INTER:
			link_name(name, sizeof(name), 'g', o, i);
			snprintf(path, sizeof(path), B "/d/%s/file", name);
			break;
		case OP_AT_TRAIL_MOVING:
			link_name(path, sizeof(path), 'f', o, i);
			break;
		case OP_AT_FIXED_TRAIL:
		case OP_AT_FIXED_CREAT:
			link_name(path, sizeof(path), 'F', o, -1);
			break;
		case OP_CHURN_TRAIL:
			snprintf(path, sizeof(path), B "/u/l");
			break;
		case OP_CHURN_INTER:
			snprintf(path, sizeof(path), B "/u/m/file");
			break;
		case OP_GUARD_TRAIL:
			snprintf(path, sizeof(path), B "/p/p%d", i);
			break;
		case OP_GUARD_INTER:
			snprintf(path, sizeof(path), B "/p/q%d/file", i);
			break;
		default:
			link_name(name, sizeof(name), 'G', o, -1);
			snprintf(path, sizeof(path), "%s/file", name);
			break;
		}
		if (op == OP_GUARD_TRAIL || op == OP_GUARD_INTER) {
			seq = __atomic_load_n(&sh->kseq, __ATOMIC_ACQUIRE);
			guard = !(seq & 1) && uid != A_UID &&
				guarded_now(op == OP_GUARD_TRAIL);
			if (window_ms)
				prctl(PR_SET_NAME, "stickyrace");
		}
		switch (op) {
		case OP_OPEN_TRAIL:
		case OP_OPEN_INTER:
		case OP_CHURN_TRAIL:
		case OP_GUARD_TRAIL:
			rc = open(path, O_RDONLY);
			break;
		case OP_STAT_TRAIL:
		case OP_STAT_INTER:
		case OP_CHURN_INTER:
		case OP_GUARD_INTER:
			rc = stat(path, &st);
			break;
		case OP_AT_TRAIL_MOVING:
		case OP_AT_FIXED_TRAIL:
			rc = openat(sfd, path, O_RDONLY);
			break;
		case OP_AT_FIXED_CREAT:
			rc = openat(sfd, path, O_RDONLY | O_CREAT, 0644);
			break;
		default:
			rc = fstatat(sfd, path, &st, 0);
			break;
		}
		err = rc < 0 ? errno : 0;
		if (rc > 0)
			close(rc);
		w->ops++;
		if (op == OP_GUARD_TRAIL || op == OP_GUARD_INTER) {
			if (window_ms)
				prctl(PR_SET_NAME, "stress");
			if (guard && seq == __atomic_load_n(&sh->kseq,
							    __ATOMIC_ACQUIRE)) {
				w->judged++;
				if (!err)
					note_bypass(w, "uid %u %s %s followed "
						    "with a check on", uid,
						    fops[op].name, path);
			}
			guard = 0;
		}
		if (!err)
			w->res[op][0]++;
		else if (allowed(op, err))
			w->res[op][err == EACCES ? 1 : 2]++;
		else
			note_bad(w, "uid %u %s %s: %s", uid, fops[op].name,
				 path, strerror(err));
	}
}

/* Where moving link k is: 0 = S/x, 1 = S/x~, 2 = B/n/x. */
static void mut_rename(struct worker *w)
{
	int where[2][NOWN][NMOVE] = { { { 0 } } };
	int sfd = s_path, nfd = n_path;
	char name[16], alt[24];

	while (!sh->stop) {
		int g = (int)rnd(2), o = (int)rnd(NOWN), i = (int)rnd(NMOVE);
		int *at = &where[g][o][i], to = (int)rnd(3);
		int fromfd, tofd;
		const char *from, *dest;

		if (to == *at)
			to = (to + 1) % 3;
		fromfd = *at == 2 ? nfd : sfd;
		tofd = to == 2 ? nfd : sfd;
		link_name(name, sizeof(name), g ? 'g' : 'f', o, i);
		snprintf(alt, sizeof(alt), "%s~", name);
		from = *at == 1 ? alt : name;
		dest = to == 1 ? alt : name;
		if (syscall(SYS_renameat2, fromfd, from, tofd, dest,
			    RENAME_NOREPLACE))
			note_bad(w, "rename %s -> %s: %s", from, dest,
				 strerror(errno));
		else
			*at = to;
		w->ops++;
	}
}

/* A moves P's links into A's own B/o and back. */
static void mut_guard(struct worker *w)
{
	int where[2][NGUARD] = { { 0 } };
	int pfd = open(B "/p", O_PATH | O_DIRECTORY);
	int ofd = open(B "/o", O_PATH | O_DIRECTORY);
	char name[16];

	if (pfd < 0 || ofd < 0)
		die("open " B "/p, " B "/o");
	if (setgroups(0, NULL) || setresgid(A_UID, A_UID, A_UID) ||
	    setresuid(A_UID, A_UID, A_UID))
		die("become uid %u", A_UID);
	while (!sh->stop) {
		int g = (int)rnd(2), i = (int)rnd(NGUARD);
		int *at = &where[g][i];

		snprintf(name, sizeof(name), "%c%d", g ? 'q' : 'p', i);
		if (syscall(SYS_renameat2, *at ? ofd : pfd, name,
			    *at ? pfd : ofd, name, RENAME_NOREPLACE))
			note_bad(w, "rename %s: %s", name, strerror(errno));
		else
			*at = !*at;
		w->ops++;
	}
}

/* B/u: created with two links, emptied and removed, over and over. */
static void mut_churn(struct worker *w)
{
	unsigned long n = 0;

	while (!sh->stop) {
		unsigned uid = owner_uid[n++ % NOWN];

		if (mkdir(B "/u", 0700) || chmod(B "/u", 01777) ||
		    symlink(B "/t/file", B "/u/l") ||
		    lchown(B "/u/l", uid, uid) ||
		    symlink(B "/t", B "/u/m") || lchown(B "/u/m", uid, uid) ||
		    unlink(B "/u/l") || unlink(B "/u/m") || rmdir(B "/u")) {
			note_bad(w, "churn " B "/u: %s", strerror(errno));
			break;
		}
		w->ops++;
	}
}

static void mut_dirrename(struct worker *w)
{
	int at_e = 0;

	while (!sh->stop) {
		if (rename(at_e ? B "/e" : B "/d", at_e ? B "/d" : B "/e"))
			note_bad(w, "rename S: %s", strerror(errno));
		else
			at_e = !at_e;
		w->ops++;
	}
	if (at_e && rename(B "/e", B "/d"))
		note_bad(w, "rename S back: %s", strerror(errno));
}

static void mut_chmod(struct worker *w)
{
	int sfd = s_rdonly;
	unsigned long n = 0;

	while (!sh->stop) {
		n++;
		if (fchmod(sfd, n & 1 ? 0755 : 01777))
			note_bad(w, "chmod S: %s", strerror(errno));
		/* now and then S changes owner too: the dir-owner rule */
		if (n % 16 == 0 && fchown(sfd, n & 16 ? 1000 : 0, 0))
			note_bad(w, "chown S: %s", strerror(errno));
		w->ops++;
	}
	if (fchmod(sfd, 01777) || fchown(sfd, 0, 0))
		note_bad(w, "restore S: %s", strerror(errno));
}

static void mut_chown(struct worker *w)
{
	int sfd = s_path, nfd = n_path;
	char name[16], alt[24];

	while (!sh->stop) {
		int kind = (int)rnd(4), o = (int)rnd(NOWN);
		int i = kind < 2 ? -1 : (int)rnd(NMOVE);
		unsigned uid = owner_uid[rnd(NOWN)];

		link_name(name, sizeof(name), "FGfg"[kind], o, i);
		snprintf(alt, sizeof(alt), "%s~", name);
		w->ops++;
		if (!fchownat(sfd, name, uid, uid, AT_SYMLINK_NOFOLLOW))
			continue;
		/* a moving link may be elsewhere, or moving right now */
		if (errno == ENOENT && i >= 0 &&
		    (!fchownat(sfd, alt, uid, uid, AT_SYMLINK_NOFOLLOW) ||
		     errno == ENOENT) &&
		    (!fchownat(nfd, name, uid, uid, AT_SYMLINK_NOFOLLOW) ||
		     errno == ENOENT))
			continue;
		note_bad(w, "lchown %s: %s", name, strerror(errno));
	}
}

static void mut_knob(struct worker *w)
{
	unsigned long n = 0;
	int k;

	while (!sh->stop) {
		n++;
		for (k = 0; k < n_knobs; k++) {
			int fd, v = (int)((n >> k) & 1);

			if ((n >> k) % 2 == ((n - 1) >> k) % 2)
				continue;
			__atomic_add_fetch(&sh->kseq, 1, __ATOMIC_SEQ_CST);
			fd = open(knobs[k].path, O_WRONLY);
			if (fd < 0 || write(fd, v ? "1\n" : "0\n", 2) != 2)
				note_bad(w, "write %s: %s", knobs[k].path,
					 strerror(errno));
			else
				sh->kon[k] = v == knobs[k].on;
			if (fd >= 0)
				close(fd);
			__atomic_add_fetch(&sh->kseq, 1, __ATOMIC_SEQ_CST);
		}
		w->ops++;
		/* hold some states, so that whole follows see one */
		if (window_ms)
			usleep(4000 * window_ms);
		else if (n % 2 == 0)
			usleep(20000);
	}
}

/* A knob's current value; exits if it cannot be read. */
static int read_knob(const char *path)
{
	char buf[16] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) <= 0)
		die("read %s", path);
	close(fd);
	return atoi(buf);
}

/* -k PATH=ON:every|trailing */
static void add_knob(const char *arg)
{
	struct knob *k = &knobs[n_knobs];
	const char *eq = strchr(arg, '='), *colon = strrchr(arg, ':');

	if (n_knobs == MAXKNOB || !eq || !colon || colon < eq ||
	    (size_t)(eq - arg) >= sizeof(k->path) ||
	    (strcmp(colon + 1, "every") && strcmp(colon + 1, "trailing"))) {
		fprintf(stderr, "stress: -k %s: want PATH=ON:every|trailing "
			"(at most %d)\n", arg, MAXKNOB - 1);
		exit(2);
	}
	memcpy(k->path, arg, (size_t)(eq - arg));
	k->path[eq - arg] = '\0';
	k->on = atoi(eq + 1);
	k->every = !strcmp(colon + 1, "every");
	n_knobs++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void report(FILE *f, double secs, int nfol, int stuck, int failed)
{
	long res[N_FOP][3] = { { 0 } }, mut[N_MUT] = { 0 }, fol = 0, bad = 0;
	long judged = 0, bypass = 0;
	long tot[3] = { 0 }, all;
	int i, k, first = 1;
	const char *sep = "";

	for (i = 0; i < sh->nworkers; i++) {
		struct worker *w = &sh->w[i];

		bad += w->bad;
		judged += w->judged;
		bypass += w->bypass;
		if (w->kind >= 0) {
			mut[w->kind] += w->ops;
			continue;
		}
		fol += w->ops;
		for (k = 0; k < N_FOP; k++) {
			res[k][0] += w->res[k][0];
			res[k][1] += w->res[k][1];
			res[k][2] += w->res[k][2];
		}
	}
	for (k = 0; k < N_FOP; k++)
		for (i = 0; i < 3; i++)
			tot[i] += res[k][i];
	all = fol;
	for (k = 0; k < N_MUT; k++)
		all += mut[k];
	fprintf(f, "{\"type\":\"stress\",\"seconds\":%.2f,\"followers\":%d,"
		"\"follow_ops\":%ld,\"follow_ops_per_s\":%.1f,"
		"\"ops\":%ld,\"ops_per_s\":%.1f,\"stuck\":%d,"
		"\"failed_workers\":%d,"
		"\"results\":{\"ok\":%ld,\"EACCES\":%ld,\"ENOENT\":%ld},"
		"\"by_op\":{", secs, nfol, fol, fol / secs, all, all / secs,
		stuck, failed, tot[0], tot[1], tot[2]);
	for (k = 0; k < N_FOP; k++)
		fprintf(f, "%s\"%s\":[%ld,%ld,%ld]", k ? "," : "",
			fops[k].name, res[k][0], res[k][1], res[k][2]);
	fputs("},\"mutator_ops\":{", f);
	for (k = 0; k < N_MUT; k++)
		fprintf(f, "%s\"%s\":%ld", k ? "," : "", mut_names[k], mut[k]);
	fputs("},\"knobs\":[", f);
	for (k = 0; k < n_knobs; k++) {
		fputs(sep, f);
		json_str(f, strrchr(knobs[k].path, '/') + 1);
		sep = ",";
	}
	fprintf(f, "],\"window_ms\":%d,\"guarded\":{\"judged\":%ld,"
		"\"bypasses\":%ld,\"examples\":[", window_ms, judged, bypass);
	for (i = 0; i < sh->nworkers; i++) {
		struct worker *w = &sh->w[i];

		for (k = 0; k < w->bypass && k < NBAD; k++) {
			fputs(first ? "" : ",", f);
			json_str(f, w->bypass_what[k]);
			first = 0;
		}
	}
	first = 1;
	fprintf(f, "]},\"bad\":%ld,\"bad_examples\":[", bad);
	for (i = 0; i < sh->nworkers; i++) {
		struct worker *w = &sh->w[i];

		for (k = 0; k < w->bad && k < NBAD; k++) {
			fputs(first ? "" : ",", f);
			json_str(f, w->bad_what[k]);
			first = 0;
		}
	}
	fputs("]}\n", f);
	fflush(f);
}

int main(int argc, char **argv)
{
	double secs = 20, t0, t1;
	int nfol = 1, c, i, k, stuck = 0, left, failed_workers = 0;
	long seed = 1;
	pid_t pids[NOWN * MAXFOL + N_MUT];
	FILE *res;

	while ((c = getopt(argc, argv, "t:f:s:k:w:")) != -1) {
		switch (c) {
		case 't':
			secs = atof(optarg);
			break;
		case 'f':
			nfol = atoi(optarg);
			break;
		case 's':
			seed = atol(optarg);
			break;
		case 'k':
			add_knob(optarg);
			break;
		case 'w':
			window_ms = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: stress [-t SECONDS] "
				"[-f FOLLOWERS_PER_UID] [-s SEED] "
				"[-k KNOB=ON:every|trailing] [-w WINDOW_MS]\n");
			return 2;
		}
	}
	if (secs <= 0 || nfol < 1 || nfol > MAXFOL || window_ms < 0 ||
	    window_ms > 1000) {
		fprintf(stderr, "stress: need -t > 0, 1 <= -f <= %d and "
			"0 <= -w <= 1000\n", MAXFOL);
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	for (k = 0; k < n_knobs; k++)
		sh->kon[k] = read_knob(knobs[k].path) == knobs[k].on;
	if (window_ms) {
		FILE *wf = fopen(WINDOW, "w");

		if (!wf || fprintf(wf, "%d\n", window_ms) < 0 || fclose(wf))
			die("write %s (a kernel with harness/fixtures/"
			    "race-window)", WINDOW);
	}
	setup();
	s_path = open(B "/d", O_PATH | O_DIRECTORY);
	s_rdonly = open(B "/d", O_RDONLY | O_DIRECTORY);
	n_path = open(B "/n", O_PATH | O_DIRECTORY);
	if (s_path < 0 || s_rdonly < 0 || n_path < 0)
		die("open " B "/d, " B "/n");
	fprintf(stderr, "stress: %.0fs, %d follower(s) per uid 0/1000/1001, "
		"%d mutators\n", secs, nfol, N_MUT);
	for (i = 0; i < NOWN * nfol + N_MUT; i++) {
		struct worker *w = &sh->w[i];
		int f = i < NOWN * nfol;

		w->kind = f ? -1 : i - NOWN * nfol;
		w->uid = f ? owner_uid[i % NOWN] : 0;
		sh->nworkers = i + 1;
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			rng = (unsigned long)(seed * 7919 + i * 104729 + 1);
			if (f)
				follower(w, w->uid);
			else if (w->kind == M_RENAME)
				mut_rename(w);
			else if (w->kind == M_DIRRENAME)
				mut_dirrename(w);
			else if (w->kind == M_CHMOD)
				mut_chmod(w);
			else if (w->kind == M_CHOWN)
				mut_chown(w);
			else if (w->kind == M_CHURN)
				mut_churn(w);
			else if (w->kind == M_GUARD)
				mut_guard(w);
			else
				mut_knob(w);
			_exit(0);
		}
	}
	t0 = now();
	while (now() - t0 < secs)
		usleep(100000);
	sh->stop = 1;
	t1 = now();
	/* Workers check `stop` between calls: 30 s is ample even in TCG. */
	left = sh->nworkers;
	while (left > 0 && now() - t1 < 30) {
		int status;
		pid_t p = waitpid(-1, &status, WNOHANG);

		if (p > 0) {
			left--;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				failed_workers++;
		}
		else if (p < 0 && errno == ECHILD)
			break;
		else
			usleep(50000);
	}
	if (left > 0) {
		stuck = left;
		for (i = 0; i < sh->nworkers; i++)
			kill(pids[i], SIGKILL);
	}
	res = fcntl(3, F_GETFD) >= 0 ? fdopen(3, "w") : NULL;
	if (res)
		report(res, t1 - t0, nfol * NOWN, stuck, failed_workers);
	report(stderr, t1 - t0, nfol * NOWN, stuck, failed_workers);
	for (i = 0, k = 0; i < sh->nworkers; i++)
		k += sh->w[i].bad > 0;
	if (stuck)
		fprintf(stderr, "stress: %d worker(s) did not stop\n", stuck);
	if (failed_workers)
		fprintf(stderr, "stress: %d worker(s) failed\n", failed_workers);
	return k || stuck || failed_workers ? 1 : 0;
}
