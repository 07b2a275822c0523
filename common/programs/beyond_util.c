/* Knob settings, identity drops and shared memory for the beyond programs. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "beyond.h"

int bown_kind(void)
{
	return own_kind;
}

int bsettings(struct bsetting *s)
{
	int n = 0;
	int own = bown_kind();

	for (int ps = 0; ps <= 1; ps++) {
		if (own < 0) {
			s[n].ps = ps;
			s[n].own = -1;
			snprintf(s[n].label, sizeof s[n].label, "ps%d-own-", ps);
			n++;
			continue;
		}
		for (int o = 0; o <= 1; o++) {
			s[n].ps = ps;
			s[n].own = o;
			snprintf(s[n].label, sizeof s[n].label, "ps%d-own%d", ps, o);
			n++;
		}
	}
	return n;
}

int bsetting_apply(const struct bsetting *s)
{
	int kind = bown_kind();
	int r = knob_write(KN_PS, s->ps);
	int got;

	if (r) {
		out_error(s->label, "writing %s=%d failed: errno %d", knob_paths[KN_PS], s->ps, -r);
		return -1;
	}
	got = knob_read(KN_PS);
	if (got != s->ps) {
		out_error(s->label, "%s reads back %d after writing %d", knob_paths[KN_PS], got,
			  s->ps);
		return -1;
	}
	if (kind < 0)
		return 0;
	r = knob_write(kind, own_value(kind, s->own));
	if (r) {
		out_error(s->label, "writing %s=%d failed: errno %d", knob_paths[kind],
			  own_value(kind, s->own), -r);
		return -1;
	}
	got = knob_read(kind);
	if (got != own_value(kind, s->own)) {
		out_error(s->label, "%s reads back %d after writing %d", knob_paths[kind], got,
			  own_value(kind, s->own));
		return -1;
	}
	return 0;
}

void bsettings_restore(void)
{
	for (int k = 0; k < n_knob; k++)
		if (knob_boot[k] != -1000)
			knob_write(k, knob_boot[k]);
}

int drop_to(unsigned uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	return 0;
}

void *shared_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void bsetting_json(struct jb *j, const struct bsetting *s)
{
	jb_str(j, "setting", s->label);
	jb_int(j, "ps", s->ps);
	if (s->own < 0)
		jb_null(j, "own");
	else
		jb_int(j, "own", s->own);
	knobs_json(j, "knobs");
}
