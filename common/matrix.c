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
	[OP_OPEN_RDONLY] = { "open_rdonly", 0, T_FILE_A, 0, 0 },
	[OP_OPEN_WRONLY] = { "open_wronly", 0, T_FILE_A, 0, 0 },
	[OP_OPEN_RDWR] = { "open_rdwr", 0, T_FILE_A, 0, 0 },
	[OP_OPEN_CREAT] = { "open_creat", 0, T_DANGLING, 0, 1 },
	[OP_OPEN_CREAT_EXCL] = { "open_creat_excl", 1, T_FILE_A, 0, 1 },
	[OP_OPEN_NOFOLLOW] = { "open_nofollow", 1, T_FILE_A, 0, 0 },
	[OP_OPEN_PATH] = { "open_path", 0, T_FILE_A, 0, 0 },
	[OP_OPEN_DIRECTORY] = { "open_directory", 0, T_DIR, 0, 0 },
	[OP_OPENAT2_NOSYM] = { "openat2_no_symlinks", 0, T_FILE_A, 1, 0 },
	[OP_STAT] = { "stat", 0, T_FILE_A, 0, 0 },
	[OP_LSTAT] = { "lstat", 1, T_FILE_A, 0, 0 },
	[OP_ACCESS] = { "access", 0, T_FILE_A, 0, 0 },
	[OP_FACCESSAT_EACCESS] = { "faccessat_eaccess", 0, T_FILE_A, 0, 0 },
	[OP_CHDIR] = { "chdir", 0, T_DIR, 0, 1 },
	[OP_TRUNCATE] = { "truncate", 0, T_FILE_A, 0, 0 },
	[OP_CHMOD] = { "chmod", 0, T_FILE_A, 0, 0 },
	[OP_CHOWN] = { "chown", 0, T_FILE_A, 0, 0 },
	[OP_UTIMENSAT] = { "utimensat", 0, T_FILE_A, 0, 0 },
	[OP_READLINK] = { "readlink", 1, T_FILE_A, 0, 0 },
	[OP_LINKAT_FOLLOW] = { "linkat_follow", 0, T_FILE_A, 0, 1 },
	[OP_EXECVE] = { "execve", 0, T_SCRIPT_A, 0, 0 },
	[OP_RENAME] = { "rename", 1, T_FILE_A, 0, 1 },
	[OP_UNLINK] = { "unlink", 1, T_FILE_A, 0, 1 },
	/* the peers' shapes: LTP prot_hsymlinks, fstests generic/597 and vfstest */
	[OP_OPEN_NONBLOCK_DIRECTORY] = { "open_nonblock_directory", 0, T_DIR, 0, 0 },
	[OP_OPENAT_DIRFD] = { "openat_dirfd", 0, T_FILE_A, 0, 0 },
	[OP_FACCESSAT_NOFOLLOW] = { "faccessat_nofollow", 1, T_FILE_A, 0, 0 },
	/* on the link itself: its owner or CAP_FOWNER / CAP_CHOWN */
	[OP_UTIMENSAT_NOFOLLOW] = { "utimensat_nofollow", 1, T_FILE_A, 0, 0 },
	[OP_FCHOWNAT_NOFOLLOW] = { "fchownat_nofollow", 1, T_FILE_A, 0, 1 },
	/* through a noatime bind mount of the sticky dirs' file system: the
	 * RCU walk needs no atime update, so RESOLVE_CACHED hears the rule */
	[OP_OPEN_BINDMOUNT] = { "open_bindmount", 0, T_FILE_A, 0, 0, 1 },
	[OP_OPENAT2_CACHED] = { "openat2_cached", 0, T_FILE_A, 0, 0, 1 },
	/* O_TMPFILE in t/ww, then linkat() of it to <link>/tmpfile: the link is
	 * followed as an intermediate one, where mainline never checks */
	[OP_TMPFILE_LINKAT] = { "tmpfile_linkat", 0, T_DIR_WW, 0, 1, 0, 1 },
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
