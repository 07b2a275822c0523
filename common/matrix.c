/* The case matrix: tables and a deterministic generator (pure). */
#include <stdio.h>
#include <string.h>
#include "suite.h"

const unsigned dir_modes[N_DIRMODE] = { 01777, 0777, 01755, 0755, 01733, 01770, 01707 };
const char *const owner_names[N_OWN] = { "root", "A", "B" };
const unsigned owner_ids[N_OWN] = { 0, 1000, 1001 };
const char *const target_names[N_TARGET] = { "file-root", "file-A", "file-B", "dir",
					     "dangling", "script-A", "dir-ww" };
const char *const follower_names[N_FOLLOWER] = { "root", "A", "B", "euid0-fsuidA",
						 "euidA-fsuid0", "setuid-fsuidA", "setuid-exec" };
const struct follower_ids follower_ids[N_FOLLOWER] = {
	{ 0, 0, 0, 0 }, { 1000, 1000, 0, 1000 }, { 1001, 1001, 0, 1001 },
	{ 0, 0, 0, 1000 }, { 1000, 1000, 0, 0 }, { 1000, 0, 0, 1000 },
	{ 1000, 0, 0, 0 },	/* set by the kernel: A execs a setuid-root copy */
};
const char *const position_names[N_POS] = { "trailing", "trailing-rel", "intermediate",
	"dotdot", "chain", "chain-2ns", "chain-1ns", "chain-inter", "subdir-ns", "chain-xdir",
	"trailing-byowner" };
const char *const position_short[N_POS] = { "trail", "rel", "inter", "dotdot", "chain",
	"chain2ns", "chain1ns", "chaininter", "sub", "chainx",
	"byowner" };
const char *const group_names[N_CASE_GROUP] = { "matrix", "positions", "ops", "mounts" };
const char *const group_short[N_CASE_GROUP] = { "m", "p", "o", "n" };
const char *const mount_names[N_MOUNT] = { "strictatime", "nosymfollow" };

const struct op_info op_info[N_OP] = {
	[OP_OPEN_RDONLY] = { .name = "open_rdonly", .target = T_FILE_A },
	[OP_OPEN_WRONLY] = { .name = "open_wronly", .target = T_FILE_A },
	[OP_OPEN_RDWR] = { .name = "open_rdwr", .target = T_FILE_A },
	[OP_OPEN_CREAT] = { .name = "open_creat", .target = T_DANGLING },
	[OP_OPEN_CREAT_EXCL] = { .name = "open_creat_excl", .nofollow = 1, .target = T_FILE_A },
	[OP_OPEN_NOFOLLOW] = { .name = "open_nofollow", .nofollow = 1, .target = T_FILE_A },
	[OP_OPEN_PATH] = { .name = "open_path", .target = T_FILE_A },
	[OP_OPEN_DIRECTORY] = { .name = "open_directory", .target = T_DIR },
	[OP_OPENAT2_NOSYM] = { .name = "openat2_no_symlinks", .target = T_FILE_A, .nosyms = 1 },
	[OP_STAT] = { .name = "stat", .target = T_FILE_A },
	[OP_LSTAT] = { .name = "lstat", .nofollow = 1, .target = T_FILE_A },
	[OP_ACCESS] = { .name = "access", .target = T_FILE_A },
	[OP_FACCESSAT_EACCESS] = { .name = "faccessat_eaccess", .target = T_FILE_A },
	[OP_CHDIR] = { .name = "chdir", .target = T_DIR },
	[OP_TRUNCATE] = { .name = "truncate", .target = T_FILE_A },
	[OP_CHMOD] = { .name = "chmod", .target = T_FILE_A },
	[OP_CHOWN] = { .name = "chown", .target = T_FILE_A },
	[OP_UTIMENSAT] = { .name = "utimensat", .target = T_FILE_A },
	[OP_READLINK] = { .name = "readlink", .nofollow = 1, .target = T_FILE_A },
	[OP_LINKAT_FOLLOW] = { .name = "linkat_follow", .target = T_FILE_A },
	[OP_EXECVE] = { .name = "execve", .target = T_SCRIPT_A },
	[OP_RENAME] = { .name = "rename", .nofollow = 1, .target = T_FILE_A },
	[OP_UNLINK] = { .name = "unlink", .nofollow = 1, .target = T_FILE_A },
	/* the peers' shapes: LTP prot_hsymlinks, fstests generic/597 and vfstest */
	[OP_OPEN_NONBLOCK_DIRECTORY] = { .name = "open_nonblock_directory", .target = T_DIR },
	[OP_OPENAT_DIRFD] = { .name = "openat_dirfd", .target = T_FILE_A },
	[OP_FACCESSAT_NOFOLLOW] = { .name = "faccessat_nofollow", .nofollow = 1, .target = T_FILE_A },
	/* on the link itself: its owner or CAP_FOWNER / CAP_CHOWN */
	[OP_UTIMENSAT_NOFOLLOW] = { .name = "utimensat_nofollow", .nofollow = 1, .target = T_FILE_A },
	[OP_FCHOWNAT_NOFOLLOW] = { .name = "fchownat_nofollow", .nofollow = 1, .target = T_FILE_A },
	/* through a noatime bind mount of the sticky dirs' file system: the
	 * RCU walk needs no atime update, so RESOLVE_CACHED hears the rule */
	[OP_OPEN_BINDMOUNT] = { .name = "open_bindmount", .target = T_FILE_A, .bind = 1 },
	[OP_OPENAT2_CACHED] = { .name = "openat2_cached", .target = T_FILE_A, .bind = 1 },
	/* O_TMPFILE in t/ww, then linkat() of it to <link>/tmpfile: the link is
	 * followed as an intermediate one, where mainline never checks */
	[OP_TMPFILE_LINKAT] = { .name = "tmpfile_linkat", .target = T_DIR_WW, .through = 1 },
};

/* representative dirs for the non-core axes: (mode index, owner) */
static const unsigned char rep_dirs[][2] = { { 0, OWN_ROOT }, { 0, OWN_A }, { 1, OWN_ROOT }, { 5, OWN_A } };
static const unsigned char rep_dirs_quick[][2] = { { 0, OWN_ROOT }, { 1, OWN_ROOT } };

struct gen {
	struct case_spec *out;
	int n, max;
};

static void add(struct gen *g, struct case_spec c)
{
	if (g->n < g->max && g->out)
		g->out[g->n] = c;
	g->n++;
}

int lookup_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* rep dirs x link owners x followers, for one (group, position, op, target, mount);
 * trailing-byowner leaves out 1770-A, where B cannot make a link */
static void cross_rep(struct gen *g, int quick, struct case_spec base, int nfollow)
{
	int nd = quick ? 2 : base.position == P_BYOWNER ? 3 : 4;
	for (int d = 0; d < nd; d++)
		for (int lo = 0; lo < N_OWN; lo++)
			for (int f = 0; f < nfollow; f++) {
				struct case_spec c = base;
				c.mode_idx = quick ? rep_dirs_quick[d][0] : rep_dirs[d][0];
				c.dir_owner = quick ? rep_dirs_quick[d][1] : rep_dirs[d][1];
				c.link_owner = lo;
				c.follower = f;
				add(g, c);
			}
}

int matrix_generate(struct case_spec *out, int max, int quick)
{
	struct gen g = { out, 0, max };
	struct case_spec c;
	int nfol = quick ? 3 : N_FOLLOWER;

	/* core: mode x dir owner x link owner x target x follower, trailing open_rdonly */
	for (int m = 0; m < N_DIRMODE; m++) {
		if (quick && m > 1)
			break;
		for (int d = 0; d < N_OWN; d++) {
			if (quick && d == OWN_B)
				continue;
			for (int lo = 0; lo < N_OWN; lo++)
				for (int t = 0; t <= T_DANGLING; t++)
					for (int f = 0; f < nfol; f++) {
						c = (struct case_spec){ G_MATRIX, m, d, lo, t, f,
									P_TRAIL, OP_OPEN_RDONLY, M_SA };
						add(&g, c);
					}
		}
	}
	/* positions x rep subset, open_rdonly (+ O_NOFOLLOW where a link is intermediate) */
	for (int p = P_TRAIL_REL; p < N_POS; p++) {
		int inter = p == P_INTER || p == P_DOTDOT || p == P_CHAIN_INTER;
		c = (struct case_spec){ G_POSITIONS, 0, 0, 0, inter ? T_DIR : T_FILE_ROOT, 0,
					p, OP_OPEN_RDONLY, M_SA };
		cross_rep(&g, quick, c, nfol);
		if (inter) {
			c.op = OP_OPEN_NOFOLLOW;
			cross_rep(&g, quick, c, nfol);
		}
	}
	/* operations x rep subset, trailing */
	for (int o = 0; o < N_OP; o++) {
		if (o == OP_OPEN_RDONLY)
			continue;
		c = (struct case_spec){ G_OPS, 0, 0, 0, op_info[o].target, 0, P_TRAIL, o, M_SA };
		cross_rep(&g, quick, c, o == OP_EXECVE ? 3 : nfol);
	}
	/* nosymfollow mount */
	{
		static const unsigned char mo[][3] = {
			{ P_TRAIL, OP_OPEN_RDONLY, T_FILE_ROOT }, { P_INTER, OP_OPEN_RDONLY, T_DIR },
			{ P_TRAIL, OP_STAT, T_FILE_ROOT }, { P_TRAIL, OP_READLINK, T_FILE_ROOT },
			{ P_TRAIL, OP_OPENAT2_NOSYM, T_FILE_ROOT },
		};
		for (unsigned i = 0; i < sizeof(mo) / sizeof(mo[0]); i++) {
			c = (struct case_spec){ G_MOUNTS, 0, 0, 0, mo[i][2], 0, mo[i][0], mo[i][1], M_NF };
			cross_rep(&g, quick, c, 3);
		}
	}
	return g.n;
}

int case_id(const struct case_spec *c, char *buf, size_t n)
{
	char m[8];
	mode_str(dir_modes[c->mode_idx], m, sizeof m);
	return snprintf(buf, n, "%s/d%s-%s/l%s/t%s/f%s/%s/%s", group_short[c->group], m,
			owner_names[c->dir_owner], owner_names[c->link_owner],
			target_names[c->target], follower_names[c->follower],
			position_short[c->position], op_info[c->op].name);
}
