/* Identity switching: setgroups once, then setresgid/setfsgid/setresuid/setfsuid with
 * saved uid 0, so that setresuid(0,0,0) brings root (and its capabilities) back. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "guest.h"

static struct __user_cap_data_struct root_caps[2];

static int capget_eff(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return (int)syscall(SYS_capget, &h, d);
}

/* 1 if CAP_DAC_OVERRIDE is effective, 0 if not, -1 if capget fails */
int ident_dac_override(void)
{
	struct __user_cap_data_struct d[2];

	if (capget_eff(d))
		return -1;
	return !!(d[0].effective & (1u << CAP_DAC_OVERRIDE));
}

void ident_read(struct ids_now *x)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;
	getresuid(&r, &e, &s);
	getresgid(&rg, &eg, &sg);
	x->r = r, x->e = e, x->s = s;
	x->rg = rg, x->eg = eg, x->sg = sg;
	x->fs = (unsigned)setfsuid((uid_t)-1);
	x->fsg = (unsigned)setfsgid((gid_t)-1);
}

int ident_init(char *why, size_t n)
{
	if (setgroups(0, NULL)) {
		snprintf(why, n, "setgroups(0): %s", strerror(errno));
		return -1;
	}
	if (capget_eff(root_caps)) {
		snprintf(why, n, "capget: %s", strerror(errno));
		return -1;
	}
	if (!(root_caps[0].effective & (1u << CAP_DAC_OVERRIDE))) {
		snprintf(why, n, "root lacks CAP_DAC_OVERRIDE");
		return -1;
	}
	return 0;
}

static int set_ids(unsigned r, unsigned e, unsigned s, unsigned fs, char *why, size_t n)
{
	struct ids_now x;
	struct __user_cap_data_struct d[2];
	int have_dac;

	if (setresgid(r, e, s) || (setfsgid(fs), 0) || setresuid(r, e, s) || (setfsuid(fs), 0)) {
		snprintf(why, n, "set ids %u/%u/%u/%u: %s", r, e, s, fs, strerror(errno));
		return -1;
	}
	ident_read(&x);
	if (x.r != r || x.e != e || x.s != s || x.fs != fs || x.rg != r || x.eg != e ||
	    x.sg != s || x.fsg != fs) {
		snprintf(why, n, "ids read back %u/%u/%u/%u gids %u/%u/%u/%u, wanted %u/%u/%u/%u",
			 x.r, x.e, x.s, x.fs, x.rg, x.eg, x.sg, x.fsg, r, e, s, fs);
		return -1;
	}
	if (capget_eff(d)) {
		snprintf(why, n, "capget: %s", strerror(errno));
		return -1;
	}
	/* file system capabilities exactly while fsuid is 0 */
	have_dac = !!(d[0].effective & (1u << CAP_DAC_OVERRIDE));
	if (have_dac != (fs == 0)) {
		snprintf(why, n, "CAP_DAC_OVERRIDE %s with fsuid %u", have_dac ? "held" : "missing", fs);
		return -1;
	}
	if (fs == 0 && e == 0 && memcmp(d, root_caps, sizeof d)) {
		snprintf(why, n, "root capabilities not restored");
		return -1;
	}
	return 0;
}

int ident_switch(int f, char *why, size_t n)
{
	const struct follower_ids *i = &follower_ids[f];
	return set_ids(i->ruid, i->euid, i->suid, i->fsuid, why, n);
}

int ident_ids(unsigned r, unsigned e, unsigned s, unsigned fs, char *why, size_t n)
{
	return set_ids(r, e, s, fs, why, n);
}

int ident_full(unsigned uid, char *why, size_t n)
{
	return set_ids(uid, uid, 0, uid, why, n);
}

int ident_restore(char *why, size_t n)
{
	/* fsuid first: only a setfsuid() transition to 0 raises the fs capabilities again
	 * (setresuid moves fsuid along with euid without touching them) */
	setfsuid(0);
	if (setresuid(0, 0, 0)) {
		snprintf(why, n, "setresuid(0,0,0): %s", strerror(errno));
		return -1;
	}
	return set_ids(0, 0, 0, 0, why, n);
}
