/* Shared definitions of the sticky-symlink suite (pure parts: no syscalls). */
#ifndef STICKY_SUITE_H
#define STICKY_SUITE_H
#include <stddef.h>

#define SCRATCH "/tmp/sticky"
#define PATHMAX 256

/* The axes: lib/cases.def, expanded here as enums and in cases.c as tables. */
#define OWNER(id, ...) id,
enum owner {
#include "cases.def"
	N_OWN };
#define TARGET(id, ...) id,
enum target {
#include "cases.def"
	N_TARGET };
#define FOLLOWER(id, ...) id,
enum follower {
#include "cases.def"
	N_FOLLOWER };
#define POSITION(id, ...) id,
enum position {
#include "cases.def"
	N_POS };
#define OP(id, ...) id,
enum op {
#include "cases.def"
	N_OP };
#define GROUP(id, ...) id,
enum case_group {
#include "cases.def"
	N_CASE_GROUP };
#define MOUNT(id, ...) id,
enum mountk {
#include "cases.def"
	N_MOUNT };
#define DIRMODE(...) +1
enum { N_DIRMODE = 0
#include "cases.def"
};
#define REPDIR(...) +1
enum { N_REPDIR = 0
#include "cases.def"
};
#define MOUNTCASE(...) +1
enum { N_MOUNTCASE = 0
#include "cases.def"
};
#define SETTING(...) +1
enum { N_SETTING_ROW = 0
#include "cases.def"
};
enum kind { K_TRAILING, K_INTERMEDIATE };
enum node { NODE_FILE, NODE_DIR, NODE_ABSENT, NODE_SCRIPT };
/* what an op does to a link its path names and it does not follow */
enum on_link { LK_FOLLOWS, LK_ELOOP, LK_EEXIST, LK_STAT, LK_READ, LK_DELETE, LK_TIMES, LK_CHOWN };
/* a position's link directories; LO_CASE: the case's link owner */
enum link_dir { LD_NONE, LD_HERE, LD_NS, LD_SUB, LD_XDIR };
#define LO_CASE (-1)
enum axis_flag {
	AX_QUICK = 1, AX_PLAIN = 2, AX_CORE = 4, AX_BYOWNER = 8, AX_ON_LINK = 16,
	AX_INTER_PROBE = 32, AX_NOSYMS = 64, AX_BIND = 128, AX_THROUGH = 256,
	AX_RCU_ONLY = 512, AX_REAL_IDS = 1024, AX_PLAIN_FOLLOWERS = 2048,
};

struct axis_row { const char *name; unsigned flags; };
struct dir_row { unsigned mode, owner, flags; };
struct target_row {
	const char *name, *file;
	unsigned node, mode, owner, chown_to, flags;
};
struct position_row {
	const char *name, *short_name;
	unsigned kind, target, dir1, dir2, flags;
	int owner2;
};
struct mount_case { unsigned position, op, target; };
struct setting_row { unsigned ps, own; };

extern const struct axis_row group_rows[N_CASE_GROUP];
extern const unsigned group_mount[N_CASE_GROUP];
extern const struct dir_row dir_rows[N_DIRMODE];
extern const struct dir_row rep_dirs[N_REPDIR];
extern const unsigned owner_flags[N_OWN];
extern const struct target_row targets[N_TARGET];
extern const unsigned follower_flags[N_FOLLOWER];
extern const struct position_row positions[N_POS];
extern const struct mount_case mount_cases[N_MOUNTCASE];
extern const struct setting_row setting_rows[N_SETTING_ROW];
extern const unsigned dir_modes[N_DIRMODE];
extern const char *const owner_names[N_OWN];
extern const unsigned owner_ids[N_OWN];
extern const char *const target_names[N_TARGET];
extern const char *const follower_names[N_FOLLOWER];
extern const char *const position_names[N_POS];
extern const char *const position_short[N_POS];
extern const char *const group_names[N_CASE_GROUP];
extern const char *const group_short[N_CASE_GROUP];
extern const char *const mount_names[N_MOUNT];
extern const char *const mount_dirs[N_MOUNT];

struct follower_ids { unsigned ruid, euid, suid, fsuid; }; /* gids: same numbers */
extern const struct follower_ids follower_ids[N_FOLLOWER];

struct op_info {
	const char *name;
	unsigned char target;	/* the ops group's target */
	unsigned char on_link;	/* enum on_link */
	unsigned char nofollow;	/* does not follow the trailing link (on_link != LK_FOLLOWS) */
	unsigned flags;		/* AX_* */
};
#define TMPFILE_NAME "tmpfile"
extern const struct op_info op_info[N_OP];
#define OP_HAS(op, flag) ((op_info[op].flags & (flag)) != 0)

struct case_spec {
	unsigned char group, mode_idx, dir_owner, link_owner, target, follower,
		position, op, mount;
};

/* matrix.c */
int matrix_generate(struct case_spec *out, int max, int quick);
int case_id(const struct case_spec *c, char *buf, size_t n);

/* layout.c: where a case's objects live and what the walk meets */
struct link_mk {
	char dir[PATHMAX], path[PATHMAX], body[PATHMAX];
	unsigned uid, dir_mode, dir_uid;
	int by_owner;			/* made by symlink() as its owner, not root + lchown */
};
struct layout {
	char path[PATHMAX];		/* path given to the syscall */
	char ctl_target[PATHMAX];	/* the same object without links */
	char ctl_link[PATHMAX];		/* via a root link in a 0755 root dir */
	char target[PATHMAX];		/* final target object (checked) */
	char aux[PATHMAX];		/* rename destination */
	char subdir[PATHMAX];		/* non-sticky subdir to ensure, or "" */
	unsigned subdir_mode, subdir_uid;
	int nmk;
	struct link_mk mk[2];		/* mk[0]: the link the path names first */
	int nlinks;
	struct { int mk, kind; } links[2];	/* followed, in order */
	int nsearch;
	struct { unsigned mode, uid; } search[2];
	int follows, has_control, on_link;
};
void layout_case(const struct case_spec *c, struct layout *l);
void dir_path(char *buf, size_t n, int mount, int mode_idx, int owner);

/* ctlshare.c: a control pair's outcome, kept for the cases of one setting */
struct ctl_key {
	int follower, op;
	unsigned cu;			/* the uid a chown op gives */
	const char *target, *link;	/* the control's two paths */
};
void ctl_forget(void);			/* the setting changes */
int ctl_recall(const struct ctl_key *k, int *cret, int *cerr);	/* 1: kept */
void ctl_keep(const struct ctl_key *k, int cret, int cerr);

/* written.c: whether a case record carries its params object */
struct ids_now { unsigned r, e, s, fs, rg, eg, sg, fsg; };	/* read back (ident.c) */
struct written {
	int have;
	struct ids_now ids;	/* those of the last params object written */
};
int params_due(struct written *w, const struct ids_now *ids);

/* util.c */
int lookup_name(const char *const *names, int n, const char *s);
int op_by_name(const char *s);			/* the op row named s, or -1 */
int parse_ids(const char *s, unsigned *out, int n);	/* "R,E,S,FS": 0, or -1 */
int dir_mode_index(unsigned mode);
int parse_mode(const char *s, unsigned *mode);
int xfmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
extern int fmt_truncated;	/* counts xfmt truncations; a truncated path is a self-check failure */
void mode_str(unsigned mode, char *buf, size_t n);
int parse_owner(const char *s, unsigned *uid);
const char *owner_name_of(unsigned uid);
const char *errno_name(int e, char *buf, size_t n);

/* json.c */
size_t json_escape(const char *s, size_t slen, char *dst, size_t n);
struct jb {
	char buf[65536];
	size_t len;
	int depth, overflow;
	unsigned char first[16];
};
void jb_begin(struct jb *j);
void jb_end(struct jb *j);	/* closes the top object */
void jb_key(struct jb *j, const char *key);
void jb_obj(struct jb *j, const char *key);
void jb_arr(struct jb *j, const char *key);
void jb_close_obj(struct jb *j);
void jb_close_arr(struct jb *j);
void jb_str(struct jb *j, const char *key, const char *val);
void jb_strn(struct jb *j, const char *key, const char *val, size_t len);
void jb_int(struct jb *j, const char *key, long v);
void jb_bool(struct jb *j, const char *key, int v);
void jb_null(struct jb *j, const char *key);

/* expect.c: the host's expected outcome of every case (harness/suite/expect.py) */
#define EXPECT_PATH "/etc/sticky/expect.txt"
#define EXPECT_MAX_SETTINGS 8
#define EXPECT_MAX_TAGS 8
#define EXPECT_WORD 24
struct expect_row {
	const char *id;
	const char *tok[EXPECT_MAX_SETTINGS];
};
/* the log probes (kmsg.c): messages each gets, and the release's report */
enum { LOG_SINGLE, LOG_BURST, LOG_BOTH, LOG_RELEASE, LOG_SUPPRESSED, N_LOG_WANT };
extern const char *const log_want_names[N_LOG_WANT];
struct expect_set {
	int version;
	int log[N_LOG_WANT];		/* -1: not predicted */
	char flavor[32];
	int nsettings;
	const char *settings[EXPECT_MAX_SETTINGS];
	int ntags;
	char tag[EXPECT_MAX_TAGS];
	const char *tag_text[EXPECT_MAX_TAGS];
	int nrows;
	struct expect_row *rows;	/* sorted by id */
};
struct expect_tok {
	int none;			/* "?": the model has no prediction */
	char res[EXPECT_WORD];		/* "ok" or an errno name */
	int atime;			/* 1, 0, or -1: not predicted */
	char ctl[EXPECT_WORD];		/* "ok", an errno name, or "-": no control */
	char tags[EXPECT_MAX_TAGS + 1];	/* xfail tags: porting artifacts */
};
/* what the suite observed; atime -1: unknown (the link is gone), ctl NULL: no control */
struct observed {
	const char *res;
	int atime;
	const char *ctl;
};
enum verdict { V_PASS, V_FAIL, V_XFAIL };
/* parses text in place; rows: room for max_rows. 0, or -1 and why */
int expect_parse(struct expect_set *e, char *text, struct expect_row *rows, int max_rows,
		 char *why, size_t n);
int expect_setting(const struct expect_set *e, const char *label);
const struct expect_row *expect_find(const struct expect_set *e, const char *id);
int expect_token(const char *s, struct expect_tok *t);
int expect_outcome_str(char *buf, size_t n, const char *res, int atime, const char *ctl);
/* V_PASS, V_XFAIL (diag: the artifacts) or V_FAIL (diag: why) */
int expect_judge(const struct expect_set *e, const char *setting, const char *id,
		 const struct observed *o, char *diag, size_t n);

/* ktap.c: kselftest's counts, over cases (self-check errors: error) */
struct totals { int pass, fail, xfail, xpass, skip, error; };
int ktap_result_line(char *buf, size_t n, int ok, int num, const char *name, const char *directive);
int ktap_totals(char *buf, size_t n, const struct totals *t);
int ktap_exit_status(const struct totals *t);
#endif
