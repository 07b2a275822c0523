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

static unsigned long fnv(const char *s, unsigned long h)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211UL;
	return h;
}

static void test_matrix(void)
{
	static struct case_spec c[20000];
	int full = matrix_generate(c, 20000, 0);
	CHECK(full == 4410, "full matrix has %d cases", full);
	int core = 0;
	for (int i = 0; i < full; i++)
		core += c[i].group == G_MATRIX;
	CHECK(core == 7 * 3 * 3 * 5 * 6, "core matrix has %d cases", core);

	char **ids = malloc(sizeof(char *) * (size_t)full);
	unsigned long h = 14695981039346656037UL;
	for (int i = 0; i < full; i++) {
		ids[i] = malloc(192);
		case_id(&c[i], ids[i], 192);
		h = fnv(ids[i], h);
		h = fnv("\n", h);
	}
	/* stable: the first id, a known id and a digest of all ids in order */
	CHECK(!strcmp(ids[0], "m/d1777-root/lroot/tfile-root/froot/trail/open_rdonly"), "first id %s", ids[0]);
	CHECK(!strcmp(ids[1], "m/d1777-root/lroot/tfile-root/fA/trail/open_rdonly"), "second id %s", ids[1]);
	printf("# id digest %#lx\n", h);
	const unsigned long golden = 0x7575d7222aa11a07UL; /* change only when ids change on purpose */
	CHECK(h == golden, "id digest %#lx, golden %#lx (update GOLDEN_DIGEST only when ids change on purpose)", h, golden);

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
	struct totals t = { 0, 0, 0 };
	char b[256];
	totals_add(&t, 0, 0);
	totals_add(&t, 0, 0);
	totals_add(&t, 1, 0);
	totals_add(&t, 0, 1);
	totals_add(&t, 1, 1);
	ktap_totals(b, sizeof b, &t);
	CHECK(!strcmp(b, "# Totals: 2 passed, 2 failed, 1 skipped\n2 passed, 2 failed, 1 skipped\n"), "totals %s", b);
	ktap_result_line(b, sizeof b, 1, 3, "boot/matrix", NULL);
	CHECK(!strcmp(b, "ok 3 - boot/matrix\n"), "ok line %s", b);
	ktap_result_line(b, sizeof b, 0, 4, "ps1-own-/ops", NULL);
	CHECK(!strcmp(b, "not ok 4 - ps1-own-/ops\n"), "not ok line %s", b);
	ktap_result_line(b, sizeof b, 1, 5, "log", "SKIP");
	CHECK(!strcmp(b, "ok 5 - log # SKIP\n"), "skip line %s", b);
}

int main(void)
{
	test_matrix();
	test_layout();
	test_json();
	test_parse();
	test_ktap();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
