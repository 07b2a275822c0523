/* Guest-side (syscall) parts of the suite. */
#ifndef STICKY_GUEST_H
#define STICKY_GUEST_H
#include <sys/types.h>
#include "suite.h"

/* out.c: KTAP on stdout, JSON lines on the result fd */
void out_init(void);
void out_json(struct jb *j);		/* appends j (a complete object) + '\n' */
void out_flush(void);
void out_raw_tty(void);
void out_console(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_nested(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_console_only(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_error(const char *id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void out_timing(const char *what, double ms, long count);
extern int n_errors;
double now_ms(void);

/* ident.c: switching identity (saved uid stays 0) */
int ident_init(char *why, size_t n);
int ident_switch(int follower, char *why, size_t n);
int ident_restore(char *why, size_t n);
int ident_full(unsigned uid, char *why, size_t n);	/* r/e/fs = uid, saved 0 */
int ident_ids(unsigned r, unsigned e, unsigned s, unsigned fs, char *why, size_t n);
void ident_read(struct ids_now *x);
int ident_dac_override(void);	/* 1 held, 0 not, -1 capget failed */

/* setuid_exec.c: the setuid-exec follower, a setuid-root copy of the suite run by A */
int setuid_exec_serve(void);	/* the copy's main loop */
int setuid_exec_op(int op, const char *path, const char *aux, unsigned chown_uid, int *ret,
		   int *err, struct ids_now *ids, char *why, size_t n);
void setuid_exec_stop(void);

/* knobs.c: mainline's knobs first, then every revision's (KNOBS_PATH) */
#define KNOBS_PATH "/etc/sticky/knobs"
#define MAX_KNOB 16
enum { KN_PS, KN_PH };
extern const char *knob_names[MAX_KNOB];
extern const char *knob_paths[MAX_KNOB];
extern int knob_protect[MAX_KNOB];	/* value that protects; -1 for mainline's */
extern int n_knob;
int knobs_load(const char *listing, char *why, size_t n);
int knob_present(int k);
int knob_read(int k);			/* value, or -1000 on error */
int knob_write(int k, int v);		/* 0 or -errno */
int knobs_open_checked(char *why, size_t n);	/* 0, or -1 and why */
void knobs_open(void);			/* exits 2 when the listing is bad */
int own_value(int k, int protection);	/* knob k's value for protection 0/1 */
void knobs_json(struct jb *j, const char *key);
extern int knob_boot[MAX_KNOB];		/* -1000 = absent */

/* ops.c */
#define STATUS_BASE 10000	/* err = STATUS_BASE + exit status: execve ran but the script did not exit 7 */
int do_op(int op, const char *path, const char *aux, unsigned chown_uid, int *err);

/* single.c: sticky-suite --op, one op of the table (docs/repro.md) */
int single_op_main(int argc, char **argv);

/* fixture.c */
int fixture_setup(char *why, size_t n);
int fixture_teardown(void);
int ensure_dir(const char *path, unsigned mode, unsigned uid, char *why, size_t n);
int ensure_link(const struct link_mk *k, char *why, size_t n);
int check_dir(const char *path, unsigned mode, unsigned uid, char *why, size_t n);
int check_target(int target, char *why, size_t n);

/* kmsg.c / iface.c / audit.c */
int audit_rule(int add, char *why, size_t n);
int audit_enabled_now(void);
int run_sysctl_tests(void);

/* runner.c */
struct setting { char label[32]; int ps, own; int boot; };
/* cases of one group: pass, fail and xfail judged against the expectations,
 * error: self-check failed (error record), skip: not run */
struct group_result { int pass, fail, xfail, skip, error; };
void runner_timing(long ncases);
int run_cases(const struct setting *s, const struct case_spec *cases, int ncases, int group,
	      const char *name, const struct expect_set *ex, struct group_result *gr);
int apply_setting(const struct setting *s, char *why, size_t n);
int knobs_expected_ok(const struct setting *s, char *why, size_t n);
extern int own_kind;	/* the revision knob this kernel has, or -1 */
const char *ename(int e, char *b, size_t n);	/* errno name, or STATUS<n> of an execve */

/* the log probes, split around the ratelimit's interval (kmsg.c) */
struct log_run {
	struct setting s;
	struct layout L;
	double first;		/* when the single probe began */
	int release;		/* a release is to be taken */
};
int log_probes_audited(struct log_run *r, int ps, int own, const struct expect_set *ex);
int log_release_audited(struct log_run *r, const struct expect_set *ex);
#endif
