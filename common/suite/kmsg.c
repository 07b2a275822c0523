/* Log tests: what /dev/kmsg says around one denial, a burst of 100 and the
 * ratelimit's report of what it suppressed. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "guest.h"

#define MAXMSG 128
/* DEFAULT_RATELIMIT_INTERVAL is 5 s: the probes' denials must fit in it with room,
 * and the release come after it. */
#define RATELIMIT_WINDOW_MS 4000
#define RATELIMIT_RELEASE_MS 5500

struct msgs {
	int n;
	char text[MAXMSG][256];
};

static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Replaces the value that follows `key` in p, up to end, with `with`. */
static void blank_value(char *p, const char *key, char end, char with)
{
	char *a = strstr(p, key), *e;

	if (!a)
		return;
	a += strlen(key);
	e = strchr(a, end);
	if (!e || e == a)
		return;
	memmove(a + 1, e, strlen(e) + 1);
	*a = with;
}

/*
 * An audit record's stamp is wall-clock time, and the pids depend on how
 * many kernel threads started first: "audit(1733218000.123:45): ...
 * ppid=1 pid=27" -> "audit(T): ... ppid=1 pid=P", so records compare.
 */
static void audit_stamp_out(char *p)
{
	if (strncmp(p, "audit: ", 7))
		return;
	blank_value(p, "audit(", ')', 'T');
	blank_value(p, " ppid=", ' ', 'P');
	blank_value(p, " pid=", ' ', 'P');
}

/* Appends what /dev/kmsg holds now to m. */
static void kmsg_drain(int fd, struct msgs *m)
{
	char b[8192];
	for (;;) {
		ssize_t r = read(fd, b, sizeof b - 1);
		if (r < 0) {
			if (errno == EPIPE || errno == EINTR)
				continue;
			break;
		}
		if (r == 0)
			break;
		b[r] = 0;
		char *p = strchr(b, ';');
		p = p ? p + 1 : b;
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		audit_stamp_out(p);
		if (m->n < MAXMSG)
			xfmt(m->text[m->n], sizeof m->text[0], "%s", p);
		m->n++;
	}
}

static int is_audit(const char *s)
{
	return !strncmp(s, "audit: ", 7);
}

static int is_suppressed(const char *s)
{
	const char *p = strstr(s, " callbacks suppressed");

	return p && !p[strlen(" callbacks suppressed")];
}

/* The first AUDIT_ANOM_LINK record of a follow refused to comm, or NULL. */
static const char *anom_link(const struct msgs *m, const char *comm)
{
	char want[64];

	xfmt(want, sizeof(want), "comm=\"%s\"", comm);
	for (int i = 0; i < m->n && i < MAXMSG; i++)
		if (strstr(m->text[i], "type=1702 ") && strstr(m->text[i], want))
			return m->text[i];
	return NULL;
}

/* kauditd prints asynchronously: give a record up to 300 ms to arrive. */
static void kmsg_wait(int fd, struct msgs *m, const char *needle, const char *comm)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	for (int i = 0; i < 30; i++) {
		kmsg_drain(fd, m);
		for (int k = 0; k < m->n && k < MAXMSG; k++)
			if (strstr(m->text[k], needle) && (!comm || strstr(m->text[k], comm)))
				return;
		nanosleep(&tick, NULL);
	}
}

/* the number after "fsuid" in a message, or -1 */
static long fsuid_in(const char *s)
{
	const char *p = strstr(s, "fsuid");
	if (!p)
		return -1;
	p += 5;
	while (*p && !isdigit((unsigned char)*p))
		p++;
	return *p ? strtol(p, NULL, 10) : -1;
}

/* N of the ratelimit's report before the first message naming comm: 0
 * without one, -1 when it does not parse */
static int suppressed_n(const struct msgs *m, const char *comm)
{
	for (int i = 0; i < m->n && i < MAXMSG; i++) {
		char *end;
		const char *p;
		long n;

		if (!strstr(m->text[i], comm) || is_audit(m->text[i]))
			continue;
		if (!i || !is_suppressed(m->text[i - 1]))
			return 0;
		p = strstr(m->text[i - 1], ": ");
		if (!p)
			return -1;
		n = strtol(p + 2, &end, 10);
		return end == p + 2 || n <= 0 || n > 1000000 ? -1 : (int)n;
	}
	return 0;
}

/* Writes the probe's record; returns the messages naming comm. */
static int emit(const char *kind, const char *setting, const char *comm, struct msgs *m, int denials,
		int ret, int err, int completed)
{
	static struct jb j;
	char eb[32];
	int received = 0;
	long fsuid = -1;
	const char *named = NULL;
	for (int i = 0; i < m->n && i < MAXMSG; i++)
		if (strstr(m->text[i], comm) && !is_audit(m->text[i])) {
			received++;
			if (!named) {
				named = comm;
				fsuid = fsuid_in(m->text[i]);
			}
		}
	jb_begin(&j);
	jb_str(&j, "type", "log");
	jb_str(&j, "kind", kind);
	jb_str(&j, "setting", setting);
	/*
	 * Only the probe's own lines: the wait for kauditd lets unrelated boot
	 * messages (clocksource, input) in, and audit lines are kept apart.
	 */
	jb_arr(&j, "messages");
	for (int i = 0; i < m->n && i < MAXMSG; i++)
		if (strstr(m->text[i], comm) && !is_audit(m->text[i]))
			jb_str(&j, NULL, m->text[i]);
	jb_close_arr(&j);
	/* ___ratelimit() reports right before the message it lets through */
	jb_arr(&j, "suppressed");
	for (int i = 1; i < m->n && i < MAXMSG; i++)
		if (strstr(m->text[i], comm) && !is_audit(m->text[i]) &&
		    is_suppressed(m->text[i - 1]))
			jb_str(&j, NULL, m->text[i - 1]);
	jb_close_arr(&j);
	jb_str(&j, "comm", named);
	if (fsuid >= 0)
		jb_int(&j, "fsuid", fsuid);
	else
		jb_null(&j, "fsuid");
	jb_int(&j, "denials", denials);
	jb_int(&j, "received", received);
	if (anom_link(m, comm))
		jb_str(&j, "audit_record", anom_link(m, comm));
	else
		jb_null(&j, "audit_record");
	jb_int(&j, "ret", ret);
	jb_str(&j, "errno", errno_name(err, eb, sizeof eb));
	jb_bool(&j, "completed", completed);
	jb_end(&j);
	out_json(&j);
	return received;
}

/*
 * A count against the host's prediction (the log line of expect.txt):
 * 0, or 1 after an error record naming what differs.
 */
static int judge(const struct expect_set *ex, int want, int got)
{
	if (!ex->version || ex->log[want] < 0) {
		out_error("log", "%s: no expectation (expect.txt has no log line for it)",
			  log_want_names[want]);
		return 1;
	}
	if (got == ex->log[want])
		return 0;
	out_error("log", "%s: %d, expected %d", log_want_names[want], got, ex->log[want]);
	return 1;
}

/* A probe's messages, and no ratelimit report (the interval is fresh). */
static int judge_probe(const struct expect_set *ex, int want, const char *comm, struct msgs *m,
		       int got)
{
	int n = suppressed_n(m, comm);

	if (n) {
		out_error("log", "%s: a ratelimit report (%d) inside the interval", log_want_names[want],
			  n);
		return 1 + judge(ex, want, got);
	}
	return judge(ex, want, got);
}

/*
 * The probe's follower: fsuid B, but real uid 1002 (no one else's) and
 * effective uid 0, so a message or an audit record that printed the uid
 * or the euid instead of the fsuid, or the follower's uid instead of the
 * link owner's (A), shows it.
 */
#define PROBE_RUID 1002
#define PROBE_EUID 0

/* One probe: `count` denials to a follower named `comm`, and what /dev/kmsg got. */
struct probe {
	const char *comm;
	int count;
	int fd;			/* /dev/kmsg, positioned before the first denial */
	int done;		/* the opens made */
	int ret, err;		/* the last open's */
	double ms;		/* the opens took */
	struct msgs m;
};

/*
 * Opens the link at path p->count times as the probe's follower (fsuid B),
 * named p->comm; /dev/kmsg is read later, by probe_collect(), so that
 * probes made one after another fall close together in the ratelimit's
 * interval. Returns 0, or -1 when /dev/kmsg cannot be opened or root's
 * identity cannot be restored; *errs counts an identity switch that failed.
 */
static int probe_run(struct probe *p, const char *path, int *errs)
{
	char why[512];
	double t0;

	p->done = 0;
	p->fd = kmsg_open();
	if (p->fd < 0) {
		out_error("log", "open /dev/kmsg: %s", strerror(errno));
		return -1;
	}
	prctl(PR_SET_NAME, p->comm);
	t0 = now_ms();
	if (ident_ids(PROBE_RUID, PROBE_EUID, 0, owner_ids[OWN_B], why, sizeof why) == 0) {
		for (; p->done < p->count; p->done++)
			p->ret = do_op(OP_OPEN_RDONLY, path, NULL, 0, &p->err);
	} else {
		out_error("log", "%s", why);
		(*errs)++;
	}
	p->ms = now_ms() - t0;
	prctl(PR_SET_NAME, "sticky-suite");
	if (ident_restore(why, sizeof why)) {
		out_error("log", "%s", why);
		close(p->fd);
		p->fd = -1;
		return -1;
	}
	return 0;
}

static void probe_drop(struct probe *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* What /dev/kmsg got from the probe's first denial on, its audit record awaited. */
static void probe_collect(struct probe *p)
{
	p->m.n = 0;
	if (p->fd < 0)
		return;
	if (p->err == EACCES)
		kmsg_wait(p->fd, &p->m, "type=1702 ", p->comm);
	else
		kmsg_drain(p->fd, &p->m);
	probe_drop(p);
}

static int probe_emit(struct probe *p, const char *kind, const char *setting)
{
	return emit(kind, setting, p->comm, &p->m, p->done, p->ret, p->err, p->done == p->count);
}

/*
 * printk_ratelimited() lets 10 messages through in the 5 s from the
 * single probe's denial on. The first denial after those 5 s prints
 * "<function>: N callbacks suppressed", then its own message: N is what
 * the host predicts from the denials above. All of them must fall in
 * one interval, or N says nothing; and nothing else may go through the
 * rule's printk_ratelimited() until the release, or N says something else.
 */
static int ratelimit_report(const struct expect_set *ex, struct log_run *r)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	static struct probe release = { .comm = "stickyrelease", .count = 1, .fd = -1 };
	char why[512];
	int errs = 0;
	double t0 = now_ms();

	while (now_ms() - r->first < RATELIMIT_RELEASE_MS)
		nanosleep(&tick, NULL);
	out_timing("log interval left idle", now_ms() - t0, 1);
	if (apply_setting(&r->s, why, sizeof why)) {
		out_error("log", "%s", why);
		return 1;
	}
	if (probe_run(&release, r->L.path, &errs) < 0)
		return errs + 1;
	probe_collect(&release);
	errs += judge(ex, LOG_RELEASE, probe_emit(&release, "release", r->s.label));
	return errs + judge(ex, LOG_SUPPRESSED, suppressed_n(&release.m, release.comm));
}

/*
 * The denials of log_probes(), back to back: the single one, the burst and,
 * with a revision, the one under both protections. Returns 0, or -1 after
 * an error record; *last is when the last denial returned.
 */
static int probes_run(struct log_run *r, struct probe *p, int np, int *errs, double *last)
{
	struct setting both = { "ps1-own1", 1, 1, 0 };
	char why[512];

	r->first = now_ms();
	for (int i = 0; i < np; i++) {
		/*
		 * Both protections on: on a trailing link mainline's
		 * may_follow_link() refuses first and must write its
		 * AUDIT_ANOM_LINK record; a revision that ran first would
		 * suppress it.
		 */
		if (i == LOG_BOTH && apply_setting(&both, why, sizeof why)) {
			out_error("log", "%s", why);
			return -1;
		}
		if (probe_run(&p[i], r->L.path, errs) < 0)
			return -1;
	}
	*last = now_ms();
	return 0;
}

/*
 * ps/own: the setting to run under; ex: the host's prediction of each
 * probe's messages; r: zeroed. The denials that the ratelimit counts;
 * r->release says whether log_release_audited() has a report to take
 * after the interval.
 * Returns the number of errors.
 */
static int log_probes(struct log_run *r, int ps, int own, const struct expect_set *ex)
{
	static const char *const kind[] = { "single", "burst", "both" };
	static struct probe p[] = {
		[LOG_SINGLE] = { .comm = "stickyprobe", .count = 1 },
		[LOG_BURST] = { .comm = "stickyburst", .count = 100 },
		[LOG_BOTH] = { .comm = "stickyboth", .count = 1 },
	};
	struct case_spec c = { G_MATRIX, 0, OWN_ROOT, OWN_A, T_FILE_ROOT, F_B, P_TRAIL, OP_OPEN_RDONLY, M_SA };
	struct setting *s = &r->s;
	char why[512];
	/* without a revision there is no message to limit: no probe under both */
	int np = own_kind < 0 ? LOG_BOTH : LOG_BOTH + 1;
	int errs = 0, got[LOG_BOTH + 1], failed;
	double last = 0, took;

	s->ps = ps;
	s->own = own;
	if (own_kind < 0)
		snprintf(s->label, sizeof s->label, "ps%d-own-", ps);
	else
		snprintf(s->label, sizeof s->label, "ps%d-own%d", ps, own);
	layout_case(&c, &r->L);
	if (apply_setting(s, why, sizeof why) || ensure_link(&r->L.mk[0], why, sizeof why)) {
		out_error("log", "%s", why);
		return 1;
	}
	for (int i = 0; i < np; i++)
		p[i].fd = -1;
	failed = probes_run(r, p, np, &errs, &last);
	for (int i = 0; i < np; i++) {
		if (failed) {
			probe_drop(&p[i]);
			continue;
		}
		probe_collect(&p[i]);
		got[i] = probe_emit(&p[i], kind[i], i == LOG_BOTH ? "ps1-own1" : s->label);
		errs += judge_probe(ex, i, p[i].comm, &p[i].m, got[i]);
	}
	if (failed)
		return errs + 1;
	took = last - r->first;
	out_console("# log: single %d message(s) of its own; burst of %d took %.1f ms, %d of its own; the probes' denials took %.0f ms\n",
		    got[LOG_SINGLE], p[LOG_BURST].done, p[LOG_BURST].ms, got[LOG_BURST], took);
	if (own_kind < 0)
		return errs;
	if (took > RATELIMIT_WINDOW_MS) {
		out_error("log", "the probes' denials took %.0f ms, more than %d ms of the ratelimit's 5 s",
			  took, RATELIMIT_WINDOW_MS);
		return errs + 1;
	}
	r->release = 1;
	return errs;
}

/* An audit rule for the length of a part of the log test (see audit.c). */
static int audited_begin(void)
{
	char why[512];

	if (audit_enabled_now() != 1) {
		out_error("log", "audit is not enabled (boot with audit=1)");
		return 1;
	}
	if (audit_rule(1, why, sizeof why)) {
		out_error("log", "%s", why);
		return 1;
	}
	return 0;
}

static int audited_end(void)
{
	char why[512];

	if (audit_rule(0, why, sizeof why)) {
		out_error("log", "%s", why);
		return 1;
	}
	return 0;
}

/*
 * The probes, under an audit rule. Until log_release_audited(), only what
 * makes no call through the revision's printk_ratelimited() may run:
 * settings with the revision's knob off. Returns the number of errors.
 */
int log_probes_audited(struct log_run *r, int ps, int own, const struct expect_set *ex)
{
	int errs;

	memset(r, 0, sizeof *r);
	if (audited_begin())
		return 1;
	errs = log_probes(r, ps, own, ex);
	return errs + audited_end();
}

/* The release, once the interval is over (at once when there is none to take). */
int log_release_audited(struct log_run *r, const struct expect_set *ex)
{
	int errs;

	if (!r->release)
		return 0;
	r->release = 0;
	if (audited_begin())
		return 1;
	errs = ratelimit_report(ex, r);
	return errs + audited_end();
}
