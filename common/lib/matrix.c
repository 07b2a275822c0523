/* The case matrix: every case of lib/cases.def's rows, in a fixed order (pure). */
#include <stdio.h>
#include <string.h>
#include "suite.h"

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

static int has(unsigned flags, unsigned want)
{
	return (flags & want) == want;
}

/* representative dirs x link owners x followers, for one (group, position,
 * op, target); followers: the flags each must have */
static void cross_rep(struct gen *g, int quick, struct case_spec base, unsigned followers)
{
	for (int d = 0; d < N_REPDIR; d++) {
		unsigned dflags = rep_dirs[d].flags;

		if ((quick && !has(dflags, AX_QUICK)) ||
		    (positions[base.position].flags & AX_BYOWNER && !has(dflags, AX_BYOWNER)))
			continue;
		for (int lo = 0; lo < N_OWN; lo++)
			for (int f = 0; f < N_FOLLOWER; f++) {
				struct case_spec c = base;

				if (!has(follower_flags[f], followers))
					continue;
				c.mode_idx = (unsigned char)dir_mode_index(rep_dirs[d].mode);
				c.dir_owner = (unsigned char)rep_dirs[d].owner;
				c.link_owner = (unsigned char)lo;
				c.follower = (unsigned char)f;
				add(g, c);
			}
	}
}

static struct case_spec spec(int group, int target, int position, int op)
{
	return (struct case_spec){ .group = group, .target = target, .position = position,
				   .op = op, .mount = group_mount[group] };
}

static int core_op(void)
{
	for (int o = 0; o < N_OP; o++)
		if (OP_HAS(o, AX_CORE))
			return o;
	return 0;
}

static int core_position(void)
{
	for (int p = 0; p < N_POS; p++)
		if (positions[p].flags & AX_CORE)
			return p;
	return 0;
}

/* the rows of lib/cases.def, in their order: the core matrix, the positions,
 * the operations, the mounts */
int matrix_generate(struct case_spec *out, int max, int quick)
{
	struct gen g = { out, 0, max };
	unsigned fol = quick ? AX_PLAIN : 0;
	int core = core_op(), trail = core_position();

	for (int m = 0; m < N_DIRMODE; m++) {
		if (quick && !has(dir_rows[m].flags, AX_QUICK))
			continue;
		for (int d = 0; d < N_OWN; d++) {
			if (quick && !has(owner_flags[d], AX_QUICK))
				continue;
			for (int lo = 0; lo < N_OWN; lo++)
				for (int t = 0; t < N_TARGET; t++)
					for (int f = 0; f < N_FOLLOWER; f++) {
						struct case_spec c = spec(G_MATRIX, t, trail, core);

						if (!has(targets[t].flags, AX_CORE) ||
						    !has(follower_flags[f], fol))
							continue;
						c.mode_idx = (unsigned char)m;
						c.dir_owner = (unsigned char)d;
						c.link_owner = (unsigned char)lo;
						c.follower = (unsigned char)f;
						add(&g, c);
					}
		}
	}
	for (int p = 0; p < N_POS; p++) {
		if (p == trail)
			continue;
		cross_rep(&g, quick, spec(G_POSITIONS, positions[p].target, p, core), fol);
		if (positions[p].kind != K_INTERMEDIATE)
			continue;
		for (int o = 0; o < N_OP; o++)
			if (OP_HAS(o, AX_INTER_PROBE))
				cross_rep(&g, quick, spec(G_POSITIONS, positions[p].target, p, o), fol);
	}
	for (int o = 0; o < N_OP; o++) {
		if (o == core)
			continue;
		cross_rep(&g, quick, spec(G_OPS, op_info[o].target, trail, o),
			  OP_HAS(o, AX_PLAIN_FOLLOWERS) ? AX_PLAIN : fol);
	}
	for (int i = 0; i < N_MOUNTCASE; i++)
		cross_rep(&g, quick, spec(G_MOUNTS, mount_cases[i].target, mount_cases[i].position,
					  mount_cases[i].op), AX_PLAIN);
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
