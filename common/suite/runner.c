/* Settings and the per-case loop: self-checks, control, control link, the op, atime;
 * then each case's verdict against the host's expectation, as a KTAP subtest. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guest.h"


/* protected_hardlinks is pinned off; absent knobs must stay absent */
static void expected(const struct setting *s, int exp[MAX_KNOB])
{
	for (int k = 0; k < n_knob; k++)
		exp[k] = knob_boot[k];
	exp[KN_PH] = 0;
	if (s->boot)
		return;
	exp[KN_PS] = s->ps;
	if (own_kind >= 0)
		exp[own_kind] = own_value(own_kind, s->own);
}

int knobs_expected_ok(const struct setting *s, char *why, size_t n)
{
	int exp[MAX_KNOB];
	expected(s, exp);
	for (int k = 0; k < n_knob; k++) {
		int v = knob_read(k);
		if (v != exp[k]) {
			snprintf(why, n, "knob %s reads %d, wanted %d", knob_names[k], v, exp[k]);
			return -1;
		}
	}
	return 0;
}

int apply_setting(const struct setting *s, char *why, size_t n)
{
	int exp[MAX_KNOB];
	expected(s, exp);
	ctl_forget();
	for (int k = 0; k < n_knob; k++) {
		if (exp[k] == -1000)
			continue;
		int r = knob_write(k, exp[k]);
		if (r) {
			snprintf(why, n, "write %d to %s: %s", exp[k], knob_names[k], strerror(-r));
			return -1;
		}
	}
	return knobs_expected_ok(s, why, n);
}

static void link_json(struct jb *j, const struct link_mk *k, int kind)
{
	char m[8];
	mode_str(k->dir_mode, m, sizeof m);
	jb_obj(j, NULL);
	jb_str(j, "dir_mode", m);
	jb_str(j, "dir_owner", owner_name_of(k->dir_uid));
	jb_int(j, "dir_gid", k->dir_uid);
	jb_str(j, "owner", owner_name_of(k->uid));
	jb_str(j, "kind", kind == K_TRAILING ? "trailing" : "intermediate");
	jb_close_obj(j);
}

const char *ename(int e, char *b, size_t n)
{
	if (e >= STATUS_BASE) {
		snprintf(b, n, "STATUS%d", e - STATUS_BASE);
		return b;
	}
	return errno_name(e, b, n);
}

/* remove what an op created; as the current identity. 0 or -1 */
static int tidy(int op, const char *aux, const struct case_spec *c)
{
	const char *p = NULL;
	if (op == OP_OPEN_CREAT && c->target == T_DANGLING)
		p = SCRATCH "/sa/t/missing";
	else if (op == OP_LINKAT_FOLLOW)
		p = aux;
	else if (op == OP_TMPFILE_LINKAT)
		p = SCRATCH "/sa/t/ww/" TMPFILE_NAME;
	if (p && unlink(p) && errno != ENOENT)
		return -1;
	return 0;
}

/* The op as the case's follower: in this process (its ids already switched),
 * or in the setuid-exec follower's process. 0, or -1 and why. */
static int follower_op(int follower, int op, const char *path, const char *aux, unsigned cu,
		       int *ret, int *err, struct ids_now *ids, char *why, size_t n)
{
	if (follower == F_SETUID_EXEC)
		return setuid_exec_op(op, path, aux, cu, ret, err, ids, why, n);
	*ret = do_op(op, path, aux, cu, err);
	return 0;
}

/* Where the guest's time goes, per phase of a case ("# timing phase ..."). */
enum phase { PH_PREP, PH_SWITCH, PH_CONTROL, PH_OP, PH_RESTORE, PH_RECORD, PH_VERDICT, N_PHASE };
static const char *const phase_names[N_PHASE] = { "prep", "switch", "control", "op", "restore",
						   "record", "verdict" };
static double phase_ms[N_PHASE], phase_t;

static void phase_end(enum phase p)
{
	double t = now_ms();

	phase_ms[p] += t - phase_t;
	phase_t = t;
}

/* Control pairs run, and reused from an earlier case of the setting (ctlshare.c). */
static long ctl_count[2];

void runner_timing(long ncases)
{
	char what[32];

	for (int p = 0; p < N_PHASE; p++) {
		snprintf(what, sizeof what, "phase %s", phase_names[p]);
		out_timing(what, phase_ms[p], ncases);
	}
	out_console("# controls: %ld run, %ld shared with an earlier case of their setting\n",
		    ctl_count[0], ctl_count[1]);
}

/* What a recorded case showed, as the expectation file spells it. */
struct seen {
	char res[32], ctl[32];
	int atime, has_ctl;
};

/* Returns 0 = case recorded (*seen filled), -1 = error record written, -2 = fatal */
/* The case's params object: its axes, the ids read back, its layout. */
static void params_json(struct jb *j, const struct case_spec *c, const struct layout *L,
			const struct ids_now *ids)
{
	jb_obj(j, "params");
	{
		char m[8];
		mode_str(dir_modes[c->mode_idx], m, sizeof m);
		jb_str(j, "dir_mode", m);
	}
	jb_str(j, "dir_owner", owner_names[c->dir_owner]);
	jb_str(j, "link_owner", owner_names[c->link_owner]);
	jb_str(j, "target", target_names[c->target]);
	jb_str(j, "follower", follower_names[c->follower]);
	jb_int(j, "ruid", ids->r);
	jb_int(j, "euid", ids->e);
	jb_int(j, "suid", ids->s);
	jb_int(j, "fsuid", ids->fs);
	jb_int(j, "rgid", ids->rg);
	jb_int(j, "egid", ids->eg);
	jb_int(j, "fsgid", ids->fsg);
	jb_str(j, "position", position_names[c->position]);
	jb_str(j, "op", op_info[c->op].name);
	jb_str(j, "mount", mount_names[c->mount]);
	jb_bool(j, "follows", L->follows);
	jb_arr(j, "links");
	for (int i = 0; i < L->nlinks; i++)
		link_json(j, &L->mk[L->links[i].mk], L->links[i].kind);
	jb_close_arr(j);
	jb_arr(j, "search");
	for (int i = 0; i < L->nsearch; i++) {
		char m[8];
		mode_str(L->search[i].mode, m, sizeof m);
		jb_obj(j, NULL);
		jb_str(j, "mode", m);
		jb_str(j, "owner", owner_name_of(L->search[i].uid));
		jb_int(j, "gid", L->search[i].uid);
		jb_close_obj(j);
	}
	jb_close_arr(j);
	jb_close_obj(j);
}

static int run_one(const struct setting *s, const struct case_spec *c, struct jb *j,
		   struct seen *seen, struct written *w)
{
	struct layout L;
	char id[192], why[512], e1[32], e2[32];
	struct stat st0, st1;
	struct ids_now ids;
	int cret = 0, cerr = 0, ret, err, r2, e2n, atime_ok, shared = 0;
	unsigned chown_uid = owner_ids[targets[c->target].chown_to];
	struct ctl_key key = { c->follower, c->op, chown_uid, L.ctl_target, L.ctl_link };
	const char *hl0 = SCRATCH "/sa/hl/c0", *hl1 = SCRATCH "/sa/hl/c1", *hl2 = SCRATCH "/sa/hl/c2";
	const char *aux;

	int ft = fmt_truncated;
	case_id(c, id, sizeof id);
	layout_case(c, &L);
	aux = c->op == OP_RENAME ? L.aux : hl2;
	if (fmt_truncated != ft) {
		snprintf(why, sizeof why, "a path of the case does not fit");
		goto fail;
	}

	/* preconditions, as root */
	if (L.subdir[0] && ensure_dir(L.subdir, L.subdir_mode, L.subdir_uid, why, sizeof why))
		goto fail;
	for (int i = L.nmk - 1; i >= 0; i--)
		if (ensure_link(&L.mk[i], why, sizeof why))
			goto fail;
	if (check_target(c->target, why, sizeof why))
		goto fail;
	{
		struct timespec ts[2] = { { 1, 0 }, { 0, UTIME_OMIT } };
		if (utimensat(AT_FDCWD, L.mk[0].path, ts, AT_SYMLINK_NOFOLLOW) || lstat(L.mk[0].path, &st0) ||
		    st0.st_atim.tv_sec != 1) {
			snprintf(why, sizeof why, "cannot reset atime of %s", L.mk[0].path);
			goto fail;
		}
	}

	phase_end(PH_PREP);
	if (c->follower != F_SETUID_EXEC && ident_switch(c->follower, why, sizeof why))
		goto fail_restore;
	ident_read(&ids);
	phase_end(PH_SWITCH);
	if (L.has_control)
		shared = ctl_recall(&key, &cret, &cerr);
	if (L.has_control && !shared) {
		if (follower_op(c->follower, c->op, L.ctl_target, hl0, chown_uid, &cret, &cerr, &ids,
				why, sizeof why))
			goto fail_restore;
		if (tidy(c->op, hl0, c)) {
			snprintf(why, sizeof why, "cleanup after control: %s", strerror(errno));
			goto fail_restore;
		}
		if (follower_op(c->follower, c->op, L.ctl_link, hl1, chown_uid, &r2, &e2n, &ids,
				why, sizeof why))
			goto fail_restore;
		if (tidy(c->op, hl1, c)) {
			snprintf(why, sizeof why, "cleanup after control link: %s", strerror(errno));
			goto fail_restore;
		}
		if (OP_HAS(c->op, AX_NOSYMS) ? (r2 != -1 || e2n != ELOOP) : (r2 != cret || e2n != cerr)) {
			snprintf(why, sizeof why, "control link %s gave %s, target control %s", L.ctl_link,
				 ename(e2n, e1, sizeof e1), ename(cerr, e2, sizeof e2));
			goto fail_restore;
		}
		ctl_keep(&key, cret, cerr);
	}
	ctl_count[shared] += L.has_control;
	phase_end(PH_CONTROL);
	if (follower_op(c->follower, c->op, L.path, aux, chown_uid, &ret, &err, &ids, why,
			sizeof why))
		goto fail_restore;
	phase_end(PH_OP);
	if (ident_restore(why, sizeof why)) {
		out_error(id, "%s", why);
		return -2;	/* identity lost: fatal */
	}
	atime_ok = lstat(L.mk[0].path, &st1) == 0;

	/* cleanup, as root */
	tidy(c->op, aux, c);
	if (c->op == OP_RENAME && ret == 0)
		unlink(L.aux);
	if (c->op == OP_FCHOWNAT_NOFOLLOW && ret == 0 &&
	    lchown(L.mk[0].path, L.mk[0].uid, L.mk[0].uid)) {
		snprintf(why, sizeof why, "cannot give %s its owner back", L.mk[0].path);
		goto fail;
	}
	if ((c->op == OP_RENAME || c->op == OP_UNLINK || c->op == OP_FCHOWNAT_NOFOLLOW) &&
	    ret == 0 && ensure_link(&L.mk[0], why, sizeof why))
		goto fail;
	phase_end(PH_RESTORE);

	jb_begin(j);
	jb_str(j, "type", "case");
	jb_str(j, "setting", s->label);
	jb_str(j, "id", id);
	jb_str(j, "group", group_names[c->group]);
	if (!w || params_due(w, &ids))
		params_json(j, c, &L, &ids);
	if (L.has_control) {
		jb_int(j, "control_ret", cret);
		jb_str(j, "control_errno", ename(cerr, e1, sizeof e1));
		if (shared)
			jb_bool(j, "control_shared", 1);
	} else {
		jb_null(j, "control_ret");
		jb_null(j, "control_errno");
	}
	jb_int(j, "ret", ret);
	jb_str(j, "errno", ename(err, e2, sizeof e2));
	snprintf(seen->res, sizeof seen->res, "%s", ret == 0 ? "ok" : ename(err, e2, sizeof e2));
	seen->has_ctl = L.has_control;
	if (L.has_control)
		snprintf(seen->ctl, sizeof seen->ctl, "%s", cret == 0 ? "ok" : ename(cerr, e1, sizeof e1));
	seen->atime = -1;
	if (atime_ok && !((c->op == OP_RENAME || c->op == OP_UNLINK) && ret == 0)) {
		seen->atime = st1.st_atim.tv_sec != st0.st_atim.tv_sec ||
			      st1.st_atim.tv_nsec != st0.st_atim.tv_nsec;
		jb_bool(j, "atime_changed", seen->atime);
	} else {
		jb_null(j, "atime_changed");
	}
	jb_end(j);
	out_json(j);
	phase_end(PH_RECORD);
	return 0;

fail_restore:
	{
		char w2[256];
		if (ident_restore(w2, sizeof w2)) {
			out_error(id, "%s; then %s", why, w2);
			return -2;
		}
		tidy(c->op, aux, c);
		tidy(c->op, hl0, c);
		tidy(c->op, hl1, c);
	}
fail:
	out_error(id, "%s", why);
	return -1;
}

#define FAILED_SHOWN 20	/* "# failed:" lines per group */
#define BLOCK 32	/* cases judged between two reads of the knobs */

/* A case run but not yet reported: its verdict stands only once the knobs
 * read back as the setting wants after it. */
struct pending {
	int num, verdict;	/* a V_* or -1: self-check error */
	char id[192], diag[512];
};

static void case_line(int ok, int num, const char *id, const char *directive)
{
	char b[512];

	ktap_result_line(b, sizeof b, ok, num, id, directive);
	out_nested("  %s", b);
}

/* Reports a block: the knobs are read once after its cases (they were read
 * before them too), so a knob that moved turns every case of the block into
 * an error instead of a verdict taken under the wrong setting. */
static void flush_block(const struct setting *s, struct pending *p, int np,
			struct group_result *gr)
{
	char why[256], d2[560];
	int knobs_ok = knobs_expected_ok(s, why, sizeof why) == 0;

	for (int i = 0; i < np; i++) {
		if (!knobs_ok && p[i].verdict != -1) {
			out_error(p[i].id, "after its block: %s", why);
			p[i].verdict = -1;
		}
		switch (p[i].verdict) {
		case -1:
			gr->error++;
			case_line(0, p[i].num, p[i].id,
				  "ERROR self-check failed (its error record says why)");
			break;
		case V_PASS:
			gr->pass++;
			case_line(1, p[i].num, p[i].id, NULL);
			break;
		case V_XFAIL:
			gr->xfail++;
			snprintf(d2, sizeof d2, "XFAIL %s", p[i].diag);
			case_line(1, p[i].num, p[i].id, d2);
			break;
		default:
			if (++gr->fail <= FAILED_SHOWN) {
				out_nested("  # failed: %s\n", p[i].diag);
				out_console_only("# failed: %s\n", p[i].diag);
			}
			case_line(0, p[i].num, p[i].id, NULL);
		}
	}
}

/* Runs one group of one setting: a KTAP subtest with one result per case,
 * judged against the expectations. Returns -1 when the identity could not
 * be restored (the rest of the group is skipped), else 0. */
int run_cases(const struct setting *s, const struct case_spec *cases, int ncases, int group,
	      const char *name, const struct expect_set *ex, struct group_result *gr)
{
	static struct jb j;
	static struct pending pend[BLOCK];
	static struct written *written;		/* per case of `cases`; NULL: params always */
	static const struct case_spec *written_for;
	char why[256];
	int num = 0, total = 0, fatal = 0, np = 0;

	if (written_for != cases) {
		free(written);
		written = calloc(ncases, sizeof *written);
		written_for = cases;
	}
	memset(gr, 0, sizeof *gr);
	for (int i = 0; i < ncases; i++)
		total += cases[i].group == group;
	out_nested("  KTAP version 1\n  # Subtest: %s\n  1..%d\n", name, total);
	if (knobs_expected_ok(s, why, sizeof why)) {
		out_error(name, "before the group: %s", why);
		fatal = 1;
	}
	for (int i = 0; i < ncases; i++) {
		const struct case_spec *c = &cases[i];
		struct pending *p = &pend[np];
		struct seen seen;
		struct observed o;
		int r;

		if (c->group != group)
			continue;
		num++;
		if (fatal) {
			char id[192];

			case_id(c, id, sizeof id);
			gr->skip++;
			case_line(1, num, id, fatal == 1 ? "SKIP not run: the knobs are not the setting's"
				  : "SKIP not run: the identity could not be restored");
			continue;
		}
		phase_t = now_ms();
		p->num = num;
		case_id(c, p->id, sizeof p->id);
		r = run_one(s, c, &j, &seen, written ? &written[i] : NULL);
		if (r < 0) {
			p->verdict = -1;
			if (r == -2)
				fatal = 2;
		} else {
			o.res = seen.res;
			o.atime = seen.atime;
			o.ctl = seen.has_ctl ? seen.ctl : NULL;
			p->verdict = expect_judge(ex, s->label, p->id, &o, p->diag, sizeof p->diag);
		}
		if (++np == BLOCK || fatal) {
			flush_block(s, pend, np, gr);
			np = 0;
		}
		phase_end(PH_VERDICT);
	}
	flush_block(s, pend, np, gr);
	if (fatal == 1)
		gr->error++;	/* the group did not run: it fails */
	if (gr->fail > FAILED_SHOWN) {
		out_nested("  # failed: %d more in %s (their not ok lines above)\n",
			   gr->fail - FAILED_SHOWN, name);
		out_console_only("# failed: %d more in %s (their not ok lines: the KTAP document)\n",
				 gr->fail - FAILED_SHOWN, name);
	}
	out_nested("  # %s: pass:%d fail:%d xfail:%d skip:%d error:%d\n", name, gr->pass, gr->fail,
		   gr->xfail, gr->skip, gr->error);
	out_console_only("# %s: pass:%d fail:%d xfail:%d skip:%d error:%d\n", name, gr->pass,
			 gr->fail, gr->xfail, gr->skip, gr->error);
	return fatal == 2 ? -1 : 0;
}
