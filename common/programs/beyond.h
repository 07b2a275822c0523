/* Shared helpers of the "beyond the patch" guest programs (attack, per-user
 * /tmp, bench): knob settings, identities, result records. */
#ifndef STICKY_BEYOND_H
#define STICKY_BEYOND_H
#include "guest.h"

/* A knob setting in the suite's labelling: ps<P>-own<O> / ps<P>-own-. */
struct bsetting {
	char label[16];
	int ps;		/* fs.protected_symlinks */
	int own;	/* protection by the flavor's own knob, -1: no own knob */
};

/* The flavor's own knob (KN_WEAK, KN_PSS) or -1; fills up to 4 settings in
 * the suite's order and returns how many. */
int bsettings(struct bsetting *s);
/* Writes both knobs, reads them back; 0 or -1 with an error record. */
int bsetting_apply(const struct bsetting *s);
/* Restores the boot values of the knobs. */
void bsettings_restore(void);
int bown_kind(void);

/* Drops every id to uid (no capabilities, no groups); 0 or -errno. */
int drop_to(unsigned uid);
/* Atomically shared words between forked processes. */
void *shared_page(void);

void bsetting_json(struct jb *j, const struct bsetting *s);
#endif
