/* Where a case's links, dirs and targets live, and what the walk meets (pure). */
#include <stdio.h>
#include <string.h>
#include "suite.h"

#define CAT(buf, ...) xfmt(buf, sizeof(buf), __VA_ARGS__)

void dir_path(char *buf, size_t n, int mount, int mode_idx, int owner)
{
	snprintf(buf, n, SCRATCH "/%s/d%04o-%s", mount_dirs[mount],
		 dir_modes[mode_idx], owner_names[owner]);
}

static void mk(struct link_mk *k, const char *dir, const char *name, const char *body,
	       unsigned uid, unsigned dmode, unsigned duid)
{
	snprintf(k->dir, sizeof k->dir, "%s", dir);
	xfmt(k->path, sizeof k->path, "%s/%s", dir, name);
	snprintf(k->body, sizeof k->body, "%s", body);
	k->uid = uid;
	k->dir_mode = dmode;
	k->dir_uid = duid;
}

/* SCRATCH/sa/... -> SCRATCH/sb/..., the same objects through the bind mount */
static void via_bind(char *p)
{
	static const char sa[] = SCRATCH "/sa/";

	if (!strncmp(p, sa, sizeof sa - 1))
		p[sizeof sa - 3] = 'b';
}

void layout_case(const struct case_spec *c, struct layout *l)
{
	char d[PATHMAX], ns[PATHMAX], name[96], name2[112], tgt[PATHMAX], dbase[32];
	const char *mnt = mount_dirs[c->mount];
	const char *suffix = "", *ctlname = targets[c->target].file;
	unsigned dmode = dir_modes[c->mode_idx], duid = owner_ids[c->dir_owner];
	unsigned luid = owner_ids[c->link_owner];
	int p = c->position;

	memset(l, 0, sizeof *l);
	dir_path(d, sizeof d, c->mount, c->mode_idx, c->dir_owner);
	CAT(ns, SCRATCH "/%s/ns", mnt);
	CAT(dbase, "d%04o-%s", dmode, owner_names[c->dir_owner]);
	CAT(name, "%s-l%s-t%s", position_short[p], owner_names[c->link_owner],
	    target_names[c->target]);
	CAT(name2, "%s-%s.2", dbase, name);
	CAT(l->target, SCRATCH "/sa/t/%s", targets[c->target].file);
	snprintf(tgt, sizeof tgt, "%s", l->target);

	switch (p) {
	case P_TRAIL:
	case P_BYOWNER:
	case P_TRAIL_REL: {
		char body[PATHMAX];
		if (p == P_TRAIL_REL)
			CAT(body, "../t/%s", targets[c->target].file);
		else
			CAT(body, "%s", tgt);
		mk(&l->mk[0], d, name, body, luid, dmode, duid);
		l->mk[0].by_owner = p == P_BYOWNER;
		l->nmk = 1;
		l->links[0].mk = 0, l->links[0].kind = K_TRAILING, l->nlinks = 1;
		break;
	}
	case P_INTER:
	case P_DOTDOT:
		if (p == P_DOTDOT) {
			CAT(tgt, SCRATCH "/sa/t/dir/sub");
			suffix = "/../f";
			ctlname = "dir-sub";
		} else {
			suffix = "/f";
		}
		mk(&l->mk[0], d, name, tgt, luid, dmode, duid);
		l->nmk = 1;
		l->links[0].mk = 0, l->links[0].kind = K_INTERMEDIATE, l->nlinks = 1;
		break;
	case P_CHAIN:
	case P_CHAIN_INTER:
		mk(&l->mk[1], d, name2, tgt, luid, dmode, duid);
		mk(&l->mk[0], d, name, l->mk[1].path, luid, dmode, duid);
		if (p == P_CHAIN_INTER)
			suffix = "/f";
		goto chain;
	case P_CHAIN_2NS:
		mk(&l->mk[1], ns, name2, tgt, luid, 0777, 0);
		mk(&l->mk[0], d, name, l->mk[1].path, luid, dmode, duid);
		goto chain;
	case P_CHAIN_XDIR: {
		/* the second link: root's, in B's sticky dir, so its own dir's
		 * owner (B) exempts no one and the first link's dir never decides it */
		char xd[PATHMAX];

		dir_path(xd, sizeof xd, c->mount, 0, OWN_B);
		mk(&l->mk[1], xd, name2, tgt, 0, dir_modes[0], owner_ids[OWN_B]);
		mk(&l->mk[0], d, name, l->mk[1].path, luid, dmode, duid);
		goto chain;
	}
	case P_CHAIN_1NS: {
		char n1[160];
		CAT(n1, "%s-%s", dbase, name);
		mk(&l->mk[1], d, name, tgt, luid, dmode, duid);
		mk(&l->mk[0], ns, n1, l->mk[1].path, luid, 0777, 0);
	}
	chain:
		l->nmk = 2;
		l->nlinks = 2;
		for (int i = 0; i < 2; i++) {
			l->links[i].mk = i;
			l->links[i].kind = p == P_CHAIN_INTER ? K_INTERMEDIATE : K_TRAILING;
		}
		break;
	case P_SUBDIR:
		CAT(l->subdir, "%s/sub", d);
		l->subdir_mode = 0777;
		l->subdir_uid = duid;
		mk(&l->mk[0], l->subdir, name, tgt, luid, 0777, duid);
		l->nmk = 1;
		l->links[0].mk = 0, l->links[0].kind = K_TRAILING, l->nlinks = 1;
		break;
	}
	if (p == P_DOTDOT)
		CAT(l->ctl_target, SCRATCH "/sa/t/dir/sub%s", suffix);
	else
		CAT(l->ctl_target, "%s%s", l->target, suffix);
	CAT(l->ctl_link, SCRATCH "/sa/ctl/%s%s", ctlname, suffix);
	CAT(l->path, "%s%s", l->mk[0].path, suffix);
	CAT(l->aux, "%s.ren", l->mk[0].path);
	if (OP_HAS(c->op, AX_THROUGH)) {
		for (int i = 0; i < l->nlinks; i++)
			l->links[i].kind = K_INTERMEDIATE;
		CAT(l->path, "%s/" TMPFILE_NAME, l->mk[0].path);
		CAT(l->ctl_target, "%s/" TMPFILE_NAME, l->target);
		CAT(l->ctl_link, SCRATCH "/sa/ctl/%s/" TMPFILE_NAME, ctlname);
	}
	if (OP_HAS(c->op, AX_BIND)) {
		via_bind(l->path);
		via_bind(l->ctl_target);
		via_bind(l->ctl_link);
	}

	/* a nofollow op follows only the links before the first trailing one */
	if (op_info[c->op].nofollow) {
		int k = 0;
		while (k < l->nlinks && l->links[k].kind == K_INTERMEDIATE)
			k++;
		l->nlinks = k;
		l->on_link = (positions[p].flags & AX_ON_LINK) != 0;
	}
	l->follows = l->nlinks > 0;
	l->has_control = !l->on_link;

	/* directories searched that not every class may search: the sticky-axis dir */
	if ((dmode & 0111) != 0111) {
		l->search[0].mode = dmode;
		l->search[0].uid = duid;
		l->nsearch = 1;
	}
}
