/* Host unit tests of the suite's pure helpers. Ends with "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

static int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) passed++; \
	else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
} while (0)

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int unused(const int *used, int n)
{
	int miss = 0;

	for (int i = 0; i < n; i++)
		miss += !used[i];
	return miss;
}

/* every row of lib/cases.def reaches at least one case */
static void test_rows_used(const struct case_spec *c, int n)
{
	int used_op[N_OP] = { 0 }, used_pos[N_POS] = { 0 }, used_t[N_TARGET] = { 0 };
	int used_f[N_FOLLOWER] = { 0 }, used_m[N_DIRMODE] = { 0 }, used_g[N_CASE_GROUP] = { 0 };

	for (int i = 0; i < n; i++) {
		used_op[c[i].op]++, used_pos[c[i].position]++, used_t[c[i].target]++;
		used_f[c[i].follower]++, used_m[c[i].mode_idx]++, used_g[c[i].group]++;
	}
	int miss = unused(used_op, N_OP) + unused(used_pos, N_POS) + unused(used_t, N_TARGET) +
		   unused(used_f, N_FOLLOWER) + unused(used_m, N_DIRMODE) +
		   unused(used_g, N_CASE_GROUP);
	CHECK(miss == 0, "%d rows of lib/cases.def reach no case", miss);
}

static void test_matrix(void)
{
	static struct case_spec c[20000];
	int full = matrix_generate(c, 20000, 0);
	CHECK(full > 0 && full <= 20000, "full matrix has %d cases", full);
	test_rows_used(c, full);

	char **ids = malloc(sizeof(char *) * (size_t)full);
	int long_ids = 0;
	for (int i = 0; i < full; i++) {
		ids[i] = malloc(192);
		long_ids += case_id(&c[i], ids[i], 192) >= 192;
	}
	CHECK(long_ids == 0, "%d ids do not fit", long_ids);
	CHECK(!strcmp(ids[0], "m/d1777-root/lroot/tfile-root/froot/trail/open_rdonly"), "first id %s", ids[0]);
	CHECK(!strcmp(ids[1], "m/d1777-root/lroot/tfile-root/fA/trail/open_rdonly"), "second id %s", ids[1]);

	qsort(ids, (size_t)full, sizeof ids[0], cmpstr);
	int dups = 0;
	for (int i = 1; i < full; i++)
		dups += !strcmp(ids[i - 1], ids[i]);
	CHECK(dups == 0, "%d duplicate ids", dups);
	for (int i = 0; i < full; i++)
		free(ids[i]);
	free(ids);

	/* a second generation gives the same cases; quick is a strict subset */
	static struct case_spec c2[20000], q[20000];
	int full2 = matrix_generate(c2, 20000, 0);
	CHECK(full2 == full && !memcmp(c, c2, sizeof(c[0]) * (size_t)full), "generation not deterministic");
	int nq = matrix_generate(q, 20000, 1);
	CHECK(nq > 0 && nq < full / 3, "quick has %d cases", nq);
	int missing = 0;
	for (int i = 0; i < nq; i++) {
		int found = 0;
		for (int k = 0; k < full && !found; k++)
			found = !memcmp(&q[i], &c[k], sizeof q[i]);
		missing += !found;
	}
	CHECK(missing == 0, "%d quick cases not in the full matrix", missing);
	/* counting mode does not write */
	CHECK(matrix_generate(NULL, 0, 0) == full, "count-only generation");
	/* a follower row of lib/cases.def: its flags and ids as written */
	CHECK(follower_ids[F_SETUID_EXEC].fsuid == 0 && follower_ids[F_SETUID_EXEC].ruid == 1000 &&
	      !(follower_flags[F_SETUID_EXEC] & AX_PLAIN) && follower_flags[F_B] & AX_PLAIN,
	      "follower table");
	CHECK(op_info[OP_LSTAT].nofollow && !op_info[OP_STAT].nofollow && OP_HAS(OP_ACCESS, AX_REAL_IDS),
	      "op table");
}

/* --list [--quick]: every case id, in the suite's order (for the Python model's test) */
static int list_ids(int quick)
{
	static struct case_spec c[20000];
	char id[192];
	int n = matrix_generate(c, 20000, quick);

	if (n > 20000)
		return 1;
	for (int i = 0; i < n; i++) {
		case_id(&c[i], id, sizeof id);
		puts(id);
	}
	return 0;
}

static void test_layout(void)
{
	struct layout l;
	struct case_spec c = { G_MATRIX, 0, OWN_ROOT, OWN_A, T_FILE_ROOT, F_ROOT, P_TRAIL, OP_OPEN_RDONLY, M_SA };
	layout_case(&c, &l);
	CHECK(!strcmp(l.path, SCRATCH "/sa/d1777-root/trail-lA-tfile-root"), "path %s", l.path);
	CHECK(!strcmp(l.ctl_target, SCRATCH "/sa/t/file-root"), "ctl %s", l.ctl_target);
	CHECK(l.nlinks == 1 && l.links[0].kind == K_TRAILING && l.follows && l.has_control, "trailing links");
	CHECK(l.nsearch == 0, "1777 is searchable by all");

	c.position = P_INTER, c.target = T_DIR, c.mode_idx = 5; /* 1770 */
	layout_case(&c, &l);
	CHECK(!strcmp(l.path, SCRATCH "/sa/d1770-root/inter-lA-tdir/f"), "inter path %s", l.path);
	CHECK(l.nlinks == 1 && l.links[0].kind == K_INTERMEDIATE, "intermediate kind");
	CHECK(l.nsearch == 1 && l.search[0].mode == 01770, "1770 listed for search");

	c.op = OP_OPEN_NOFOLLOW;
	layout_case(&c, &l);
	CHECK(l.follows && l.has_control, "O_NOFOLLOW still follows an intermediate link");
	c.position = P_TRAIL, c.target = T_FILE_A;
	layout_case(&c, &l);
	CHECK(!l.follows && !l.has_control && l.nlinks == 0, "O_NOFOLLOW on a trailing link");

	c = (struct case_spec){ G_POSITIONS, 0, OWN_A, OWN_B, T_FILE_ROOT, F_A, P_CHAIN_1NS, OP_OPEN_RDONLY, M_SA };
	layout_case(&c, &l);
	CHECK(l.nlinks == 2 && l.mk[0].dir_mode == 0777 && l.mk[1].dir_mode == 01777 &&
	      !strcmp(l.mk[0].body, l.mk[1].path), "chain-1ns: first link non-sticky, pointing at the second");
	c.position = P_CHAIN_INTER, c.target = T_DIR;
	layout_case(&c, &l);
	CHECK(l.nlinks == 2 && l.links[0].kind == K_INTERMEDIATE && l.links[1].kind == K_INTERMEDIATE,
	      "chain through a directory component: both intermediate");
	c.position = P_DOTDOT;
	layout_case(&c, &l);
	CHECK(!strcmp(l.ctl_target, SCRATCH "/sa/t/dir/sub/../f") && !strcmp(l.ctl_link, SCRATCH "/sa/ctl/dir-sub/../f"),
	      "dotdot control %s %s", l.ctl_target, l.ctl_link);
	c.position = P_TRAIL_REL, c.target = T_FILE_B;
	layout_case(&c, &l);
	CHECK(!strcmp(l.mk[0].body, "../t/file-B"), "relative body %s", l.mk[0].body);
	c.position = P_SUBDIR;
	layout_case(&c, &l);
	CHECK(l.subdir[0] && l.mk[0].dir_mode == 0777 && l.mk[0].dir_uid == 1000, "subdir");

	c = (struct case_spec){ G_POSITIONS, 0, OWN_ROOT, OWN_A, T_FILE_ROOT, F_A, P_CHAIN_XDIR,
				OP_OPEN_RDONLY, M_SA };
	layout_case(&c, &l);
	CHECK(l.nlinks == 2 && l.mk[0].dir_uid == 0 && l.mk[0].uid == 1000 && l.mk[1].dir_mode == 01777 &&
	      l.mk[1].dir_uid == 1001 && l.mk[1].uid == 0 && !strcmp(l.mk[0].body, l.mk[1].path),
	      "chain-xdir: A's link in root's dir, then root's link in B's 1777 dir");
	c.position = P_BYOWNER;
	layout_case(&c, &l);
	CHECK(l.nlinks == 1 && l.mk[0].by_owner && l.mk[0].uid == 1000 && l.links[0].kind == K_TRAILING &&
	      !strcmp(l.path, SCRATCH "/sa/d1777-root/byowner-lA-tfile-root"),
	      "trailing-byowner: made by A itself, %s", l.path);
	c.position = P_TRAIL;
	layout_case(&c, &l);
	CHECK(!l.mk[0].by_owner, "trailing: made by root, then lchown'd");

	c = (struct case_spec){ G_OPS, 0, OWN_ROOT, OWN_A, T_FILE_A, F_A, P_TRAIL, OP_OPENAT2_CACHED, M_SA };
	layout_case(&c, &l);
	CHECK(!strcmp(l.path, SCRATCH "/sb/d1777-root/trail-lA-tfile-A") &&
	      !strcmp(l.mk[0].path, SCRATCH "/sa/d1777-root/trail-lA-tfile-A") &&
	      !strcmp(l.ctl_target, SCRATCH "/sb/t/file-A") && !strcmp(l.ctl_link, SCRATCH "/sb/ctl/file-A"),
	      "bind-mount op walks sb, the link is made in sa: %s %s", l.path, l.ctl_link);
}

static void test_json(void)
{
	char out[256];
	json_escape("a\"b\\c\nd\te\x01\xc3\xa9", 12, out, sizeof out);
	CHECK(!strcmp(out, "a\\\"b\\\\c\\nd\\te\\u0001\\u00c3\\u00a9"), "escape gave %s", out);
	size_t n = json_escape("\"\"\"\"", 4, out, 6);
	CHECK(n == 4 && !strcmp(out, "\\\"\\\""), "escape truncates at whole sequences: %s", out);

	static struct jb j;
	jb_begin(&j);
	jb_str(&j, "type", "case");
	jb_obj(&j, "params");
	jb_arr(&j, "links");
	jb_obj(&j, NULL);
	jb_int(&j, "a", -1);
	jb_close_obj(&j);
	jb_obj(&j, NULL);
	jb_bool(&j, "b", 1);
	jb_close_obj(&j);
	jb_close_arr(&j);
	jb_arr(&j, "search");
	jb_close_arr(&j);
	jb_close_obj(&j);
	jb_null(&j, "x");
	jb_str(&j, "s", NULL);
	jb_end(&j);
	CHECK(!strcmp(j.buf, "{\"type\":\"case\",\"params\":{\"links\":[{\"a\":-1},{\"b\":true}],\"search\":[]},\"x\":null,\"s\":null}"),
	      "builder gave %s", j.buf);
	CHECK(!j.overflow, "no overflow");
	jb_begin(&j);
	jb_arr(&j, "m");
	for (int i = 0; i < 200; i++)
		jb_str(&j, NULL, "0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789");
	CHECK(j.overflow, "overflow detected");
}

static void test_parse(void)
{
	unsigned m = 0, u = 7;
	CHECK(parse_mode("1777", &m) == 0 && m == 01777, "1777");
	CHECK(parse_mode("0755", &m) == 0 && m == 0755, "0755");
	CHECK(parse_mode("1707", &m) == 0 && m == 01707, "1707");
	CHECK(parse_mode("777", &m) < 0, "3 digits refused");
	CHECK(parse_mode("1787", &m) < 0, "8 refused");
	CHECK(parse_mode(NULL, &m) < 0, "NULL refused");
	char b[8];
	for (int i = 0; i < N_DIRMODE; i++) {
		mode_str(dir_modes[i], b, sizeof b);
		CHECK(parse_mode(b, &m) == 0 && m == dir_modes[i], "round trip %s", b);
	}
	mode_str(041777, b, sizeof b);
	CHECK(!strcmp(b, "1777"), "file type bits dropped: %s", b);
	CHECK(parse_owner("root", &u) == 0 && u == 0, "root");
	CHECK(parse_owner("A", &u) == 0 && u == 1000, "A");
	CHECK(parse_owner("B", &u) == 0 && u == 1001, "B");
	CHECK(parse_owner("C", &u) < 0 && parse_owner("a", &u) < 0, "unknown owners refused");
	CHECK(!strcmp(owner_name_of(1001), "B") && !strcmp(owner_name_of(5), "?"), "owner_name_of");
	char eb[16];
	CHECK(!strcmp(errno_name(0, eb, sizeof eb), "0") && !strcmp(errno_name(13, eb, sizeof eb), "EACCES") &&
	      !strcmp(errno_name(40, eb, sizeof eb), "ELOOP"), "errno names");
	char small[8];
	int t0 = fmt_truncated;
	CHECK(xfmt(small, sizeof small, "%s", "0123456789") < 0 && fmt_truncated == t0 + 1, "truncation counted");
}

static void test_ktap(void)
{
	struct totals t = { 3, 1, 2, 0, 4, 1 };
	char b[256];
	ktap_totals(b, sizeof b, &t);
	CHECK(!strcmp(b, "# Totals: pass:3 fail:1 xfail:2 xpass:0 skip:4 error:1\n"), "totals %s", b);
	CHECK(ktap_exit_status(&t) == 1, "a failure exits 1");
	t = (struct totals){ 3, 0, 2, 0, 4, 0 };
	CHECK(ktap_exit_status(&t) == 0, "pass, xfail and skip exit 0");
	t = (struct totals){ 0, 0, 0, 0, 4, 0 };
	CHECK(ktap_exit_status(&t) == 4, "only skips exit 4 (KSFT_SKIP)");
	t = (struct totals){ 5, 0, 0, 0, 0, 1 };
	CHECK(ktap_exit_status(&t) == 1, "a self-check error exits 1");
	t = (struct totals){ 0, 0, 1, 0, 0, 0 };
	CHECK(ktap_exit_status(&t) == 0, "xfail alone passes");
	ktap_result_line(b, sizeof b, 1, 3, "boot/matrix", NULL);
	CHECK(!strcmp(b, "ok 3 - boot/matrix\n"), "ok line %s", b);
	ktap_result_line(b, sizeof b, 0, 4, "ps1-own-/ops", NULL);
	CHECK(!strcmp(b, "not ok 4 - ps1-own-/ops\n"), "not ok line %s", b);
	ktap_result_line(b, sizeof b, 1, 5, "log", "SKIP");
	CHECK(!strcmp(b, "ok 5 - log # SKIP\n"), "skip line %s", b);
}

/* A small file as harness/suite/expect.py writes it (ids unsorted on purpose). */
static const char expect_text[] =
	"# comment\n"
	"sticky-expect 1\n"
	"flavor v1-hook61\n"
	"settings boot ps0-own0 ps1-own1\n"
	"xfail A atime touched before LSM hook\n"
	"xfail E ELOOP before LSM hook\n"
	"log single 1 burst 9 both 0 release 1 suppressed 91\n"
	"cases 4\n"
	"p/d1777-root/lA/tfile-root/fB/chain/open_rdonly EACCES,0,ok = ok,1,ok\n"
	"m/d1777-root/lA/tfile-root/fB/trail/open_rdonly EACCES,1,ok,A ok,1,ok =\n"
	"o/d1777-root/lA/tfile-A/fB/trail/unlink EPERM,0,- ok,0,- ?\n"
	"n/d1777-root/lA/tfile-root/fB/trail/stat EACCES,0,ok,E ELOOP,0,ok =\n";

static int judge(const struct expect_set *e, const char *setting, const char *id, const char *res,
		 int atime, const char *ctl, char *diag, size_t n)
{
	struct observed o = { res, atime, ctl };
	return expect_judge(e, setting, id, &o, diag, n);
}

static int parse_fails(const char *text, const char *why_part)
{
	static char buf[4096];
	struct expect_row rows[8];
	struct expect_set e;
	char why[256] = "";
	snprintf(buf, sizeof buf, "%s", text);
	int r = expect_parse(&e, buf, rows, 8, why, sizeof why);
	if (r == 0 || !strstr(why, why_part))
		printf("# parse of a bad file gave %d: %s\n", r, why);
	return r != 0 && strstr(why, why_part) != NULL;
}

static void test_expect(void)
{
	static char buf[sizeof expect_text];
	struct expect_row rows[8];
	struct expect_set e;
	struct expect_tok t;
	char why[256] = "", d[512];
	const char *m = "m/d1777-root/lA/tfile-root/fB/trail/open_rdonly";
	const char *p = "p/d1777-root/lA/tfile-root/fB/chain/open_rdonly";
	const char *o = "o/d1777-root/lA/tfile-A/fB/trail/unlink";

	memcpy(buf, expect_text, sizeof buf);
	CHECK(expect_parse(&e, buf, rows, 8, why, sizeof why) == 0, "parse: %s", why);
	CHECK(e.nrows == 4 && e.nsettings == 3 && e.ntags == 2 && !strcmp(e.flavor, "v1-hook61"),
	      "header: %d rows, %d settings, %d tags, flavor %s", e.nrows, e.nsettings, e.ntags, e.flavor);
	CHECK(expect_setting(&e, "ps1-own1") == 2 && expect_setting(&e, "ps0-own-") < 0, "settings");
	CHECK(expect_find(&e, m) && !expect_find(&e, "m/nosuch"), "lookup after sorting");
	CHECK(e.log[LOG_SINGLE] == 1 && e.log[LOG_BURST] == 9 && e.log[LOG_BOTH] == 0 &&
	      e.log[LOG_RELEASE] == 1 && e.log[LOG_SUPPRESSED] == 91, "log line");
	CHECK(!strcmp(expect_find(&e, p)->tok[1], "EACCES,0,ok"), "\"=\" repeats the token before it");

	CHECK(expect_token("EACCES,1,ok,AE", &t) == 0 && !strcmp(t.res, "EACCES") && t.atime == 1 &&
	      !strcmp(t.ctl, "ok") && !strcmp(t.tags, "AE"), "token with tags");
	CHECK(expect_token("ok,-,-", &t) == 0 && t.atime == -1 && !strcmp(t.ctl, "-"), "token without atime");
	CHECK(expect_token("?", &t) == 0 && t.none, "no prediction");
	CHECK(expect_token("ok,2,ok", &t) < 0 && expect_token("ok,1", &t) < 0 &&
	      expect_token("ok,1,ok,A,B", &t) < 0 && expect_token(",1,ok", &t) < 0 &&
	      expect_token("ok,1,o k", &t) < 0, "malformed tokens refused");

	/* pass, and the atime the suite cannot see (link gone) matches */
	CHECK(judge(&e, "boot", p, "EACCES", 0, "ok", d, sizeof d) == V_PASS, "pass: %s", d);
	CHECK(judge(&e, "ps0-own0", o, "ok", -1, NULL, d, sizeof d) == V_PASS, "unknown atime: %s", d);
	/* a different result, atime or control fails, naming expected and observed */
	CHECK(judge(&e, "ps1-own1", p, "EACCES", 1, "ok", d, sizeof d) == V_FAIL &&
	      !strcmp(d, "p/d1777-root/lA/tfile-root/fB/chain/open_rdonly expected ok a1 c:ok got EACCES a1 c:ok"),
	      "result differs: %s", d);
	CHECK(judge(&e, "boot", p, "EACCES", 1, "ok", d, sizeof d) == V_FAIL && strstr(d, "expected EACCES a0"),
	      "atime differs: %s", d);
	CHECK(judge(&e, "boot", p, "EACCES", 0, "ENOENT", d, sizeof d) == V_FAIL, "control differs: %s", d);
	CHECK(judge(&e, "boot", p, "EACCES", 0, NULL, d, sizeof d) == V_FAIL, "control missing: %s", d);
	CHECK(judge(&e, "boot", o, "EPERM", 0, "ok", d, sizeof d) == V_FAIL, "control not expected: %s", d);
	/* porting artifacts: xfail when they show, a failure when they do not */
	CHECK(judge(&e, "boot", m, "EACCES", 1, "ok", d, sizeof d) == V_XFAIL &&
	      !strcmp(d, "porting artifact: atime touched before LSM hook"), "xfail: %s", d);
	CHECK(judge(&e, "boot", m, "EACCES", 0, "ok", d, sizeof d) == V_FAIL && strstr(d, "did not show"),
	      "artifact gone: %s", d);
	CHECK(judge(&e, "ps1-own1", m, "ok", 1, "ok", d, sizeof d) == V_PASS, "no artifact there: %s", d);
	/* no expectation is a failure, never a pass */
	CHECK(judge(&e, "ps1-own1", o, "ok", 0, NULL, d, sizeof d) == V_FAIL &&
	      strstr(d, "no expectation for o/") && strstr(d, "no prediction"), "\"?\": %s", d);
	CHECK(judge(&e, "boot", "m/d0777-A/lA/tfile-root/fB/trail/open_rdonly", "ok", 1, "ok", d, sizeof d) ==
	      V_FAIL && strstr(d, "no expectation for m/d0777-A"), "unknown id: %s", d);
	CHECK(judge(&e, "ps0-own-", p, "EACCES", 0, "ok", d, sizeof d) == V_FAIL && strstr(d, "setting ps0-own-"),
	      "unknown setting: %s", d);
	memset(&e, 0, sizeof e);
	CHECK(judge(&e, "boot", p, "EACCES", 0, "ok", d, sizeof d) == V_FAIL &&
	      strstr(d, "no usable expectation file"), "no file: every case fails: %s", d);

	/* a cut or wrong file is refused, saying why */
	CHECK(parse_fails("flavor v1\n", "not a sticky-expect file"), "no magic");
	CHECK(parse_fails("sticky-expect 2\n", "format 2"), "newer format");
	CHECK(parse_fails("sticky-expect 1\ncases 1\n", "before flavor"), "cases before settings");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\ncases 2\nm/a ok,0,ok\n", "cut?"),
	      "fewer lines than announced");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot b2\ncases 1\nm/a ok,0,ok\n",
			  "1 tokens for 2"), "missing token");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\ncases 2\nm/a ok,0,ok\nm/a ok,0,ok\n",
			  "twice"), "duplicate id");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\ncases 9\n", "at most 8"), "too many");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\ncases 1\nm/a =\n", "first token"),
	      "\"=\" first");
	/* the log line: probes and counts in pairs, after the settings */
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nlog single 1\n", "before flavor"), "log first");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\nlog single\ncases 0\n", "pairs"),
	      "log count missing");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\nlog single x\ncases 0\n",
			  "no probe and count"), "log count not a number");
	CHECK(parse_fails("sticky-expect 1\nflavor v3\nsettings boot\nlog flood 1\ncases 0\n",
			  "no probe and count"), "log unknown probe");
	memcpy(buf, expect_text, sizeof buf);
	memcpy(strstr(buf, "log "), "#og", 3);
	CHECK(expect_parse(&e, buf, rows, 8, why, sizeof why) == 0 && e.log[LOG_SINGLE] == -1 &&
	      e.log[LOG_SUPPRESSED] == -1, "no log line: nothing predicted, not 0");
}

static void test_ctlshare(void)
{
	struct ctl_key k = { F_A, OP_OPEN_RDONLY, 1000, "/t/file-A", "/ctl/file-A" };
	struct ctl_key other[5];
	static char paths[2048][2][24];	/* k and 2047 more fill every slot */
	int ret = 7, err = 7, kept = 0, wrong = 0;

	ctl_forget();
	CHECK(!ctl_recall(&k, &ret, &err) && ret == 7, "nothing kept yet");
	ctl_keep(&k, -1, 13);
	CHECK(ctl_recall(&k, &ret, &err) && ret == -1 && err == 13, "kept: %d %d", ret, err);
	ctl_keep(&k, 0, 0);
	CHECK(ctl_recall(&k, &ret, &err) && ret == -1, "a kept key is not replaced");
	/* a full table: a lookup of a key not kept then walks past k's slot */
	for (int i = 0; i < 2048; i++) {
		struct ctl_key f = k;

		snprintf(paths[i][0], sizeof paths[i][0], "/t/%d", i);
		snprintf(paths[i][1], sizeof paths[i][1], "/ctl/%d", i);
		f.target = paths[i][0];
		f.link = paths[i][1];
		ctl_keep(&f, 0, i);
	}
	for (int i = 0; i < 2048; i++) {
		struct ctl_key f = k;

		f.target = paths[i][0];
		f.link = paths[i][1];
		if (ctl_recall(&f, &ret, &err)) {
			kept++;
			wrong += err != i;
		}
	}
	CHECK(!wrong, "%d keys recalled another key's outcome", wrong);
	CHECK(kept == 2047, "all but the last of 2048 keys kept: %d", kept);
	for (int i = 0; i < 5; i++)
		other[i] = k;
	other[0].follower = F_B;
	other[1].op = OP_STAT;
	other[2].cu = 1001;
	other[3].target = "/t/file-B";
	other[4].link = "/ctl/file-B";
	for (int i = 0; i < 5; i++)
		CHECK(!ctl_recall(&other[i], &ret, &err), "key field %d tells keys apart", i);
	CHECK(ctl_recall(&k, &ret, &err) && err == 13, "k is still kept");
	ctl_forget();
	CHECK(!ctl_recall(&k, &ret, &err), "a new setting keeps nothing");
	ctl_keep(&k, 0, 0);
	CHECK(ctl_recall(&k, &ret, &err) && ret == 0, "forgotten slots are reused");
}

/* a case record carries its params object first, then only when its ids change */
static void test_params_due(void)
{
	struct written w = { 0 };
	struct ids_now a = { 1000, 1000, 0, 1000, 1000, 1000, 0, 1000 }, b = a;

	CHECK(params_due(&w, &a), "a case's first record carries its params");
	CHECK(!params_due(&w, &a), "the same ids again: none");
	for (int i = 0; i < 8; i++) {
		b = a;
		((unsigned *)&b)[i] = 1001;
		CHECK(params_due(&w, &b), "id %d read back otherwise: params again", i);
		CHECK(!params_due(&w, &b), "id %d: its new ids again: none", i);
		CHECK(params_due(&w, &a), "id %d: the first ids back: params again", i);
	}
}

/* sticky-suite --op's arguments: every op row by its name, and the ids */
static void test_single_op_args(void)
{
	unsigned ids[4] = { 7, 7, 7, 7 }, one = 7;

	for (int i = 0; i < N_OP; i++)
		CHECK(op_by_name(op_info[i].name) == i, "op %s found by its name", op_info[i].name);
	CHECK(op_by_name("open") < 0 && op_by_name("") < 0, "an unknown op is refused");
	CHECK(!parse_ids("1000,0,0,1000", ids, 4) && ids[0] == 1000 && ids[1] == 0 &&
	      ids[3] == 1000, "four ids read: %u %u %u %u", ids[0], ids[1], ids[2], ids[3]);
	CHECK(!parse_ids("1001", &one, 1) && one == 1001, "one id read: %u", one);
	CHECK(parse_ids("1000,0,0", ids, 4) && parse_ids("1000,0,0,1,2", ids, 4) &&
	      parse_ids("1000,,0,0", ids, 4) && parse_ids("-1,0,0,0", ids, 4) &&
	      parse_ids("A,0,0,0", ids, 4) && parse_ids("4294967295,0,0,0", ids, 4) &&
	      parse_ids("1000,0,0,1000 ", ids, 4), "malformed ids refused");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--list"))
		return list_ids(argc > 2 && !strcmp(argv[2], "--quick"));
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--list [--quick]]\n", argv[0]);
		return 2;
	}
	test_matrix();
	test_layout();
	test_json();
	test_parse();
	test_ktap();
	test_expect();
	test_ctlshare();
	test_params_due();
	test_single_op_args();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
