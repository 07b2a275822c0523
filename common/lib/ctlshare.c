/*
 * Control pairs kept for the cases of one setting (runner.c). A pair's two
 * ops name only the follower, the op, the chown uid and two paths: the
 * target and the control link to it. Every case checks its target before
 * its control, and the knobs stay the setting's, so a later case with the
 * same key would repeat the same syscalls on objects in the same state. A
 * pair that failed its self-check is never kept.
 */
#include <string.h>
#include "suite.h"

#define CTL_SLOTS 2048		/* a power of two; a full table keeps nothing more */

struct ctl_slot {
	unsigned gen;
	int follower, op;
	unsigned cu;
	char target[PATHMAX], link[PATHMAX];
	int cret, cerr;
};
static struct ctl_slot slots[CTL_SLOTS];
static unsigned gen = 1;	/* a slot of another generation is empty */

void ctl_forget(void)
{
	gen++;
}

static unsigned long mix(unsigned long h, const char *s)
{
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211UL;
	return h;
}

static int same(const struct ctl_slot *s, const struct ctl_key *k)
{
	return s->follower == k->follower && s->op == k->op && s->cu == k->cu &&
	       !strcmp(s->target, k->target) && !strcmp(s->link, k->link);
}

/* The slot holding k, or the empty slot where it would go; NULL when full. */
static struct ctl_slot *find(const struct ctl_key *k)
{
	unsigned long h = 14695981039346656037UL;

	h = mix(mix(h, k->target), k->link);
	h = (h ^ (unsigned)k->follower) * 1099511628211UL;
	h = (h ^ (unsigned)k->op) * 1099511628211UL;
	h = (h ^ k->cu) * 1099511628211UL;
	for (unsigned i = 0; i < CTL_SLOTS; i++) {
		struct ctl_slot *s = &slots[(h + i) & (CTL_SLOTS - 1)];

		if (s->gen != gen || same(s, k))
			return s;
	}
	return NULL;
}

int ctl_recall(const struct ctl_key *k, int *cret, int *cerr)
{
	struct ctl_slot *s = find(k);

	if (!s || s->gen != gen)
		return 0;
	*cret = s->cret;
	*cerr = s->cerr;
	return 1;
}

void ctl_keep(const struct ctl_key *k, int cret, int cerr)
{
	struct ctl_slot *s = find(k);

	if (!s || s->gen == gen || strlen(k->target) >= PATHMAX || strlen(k->link) >= PATHMAX)
		return;
	s->gen = gen;
	s->follower = k->follower;
	s->op = k->op;
	s->cu = k->cu;
	strcpy(s->target, k->target);
	strcpy(s->link, k->link);
	s->cret = cret;
	s->cerr = cerr;
}
