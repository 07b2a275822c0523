/* Interface tests of the knob files: presence, mode, accepted and rejected writes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guest.h"

static void write_rec(struct jb *j, const char *key, int k, const char *label, const char *in, size_t len,
		      unsigned as_uid, int *errs)
{
	char eb[32], why[256];
	long ret;
	int err = 0;
	if (as_uid && ident_full(as_uid, why, sizeof why)) {
		out_error("sysctl", "%s", why);
		(*errs)++;
	}
	int fd = open(knob_paths[k], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -1;
		err = errno;
	} else {
		ret = write(fd, in, len);
		err = ret < 0 ? errno : 0;
		close(fd);
	}
	if (as_uid && ident_restore(why, sizeof why)) {
		out_error("sysctl", "%s", why);
		(*errs)++;
	}
	jb_obj(j, key);
	jb_str(j, "input", label);
	jb_int(j, "ret", ret);
	jb_str(j, "errno", errno_name(err, eb, sizeof eb));
	int v = knob_read(k);
	if (v == -1000)
		jb_null(j, "value_after");
	else
		jb_int(j, "value_after", v);
	jb_close_obj(j);
	/* back to the boot value for the next input */
	if (knob_boot[k] != -1000 && knob_read(k) != knob_boot[k])
		knob_write(k, knob_boot[k]);
}

int run_sysctl_tests(void)
{
	static const char *const inputs[] = { "0", "1", "2", "-1", "abc", "" };
	static char big[4096];
	static struct jb j;
	int errs = 0;
	memset(big, '1', sizeof big);
	/* every revision's knob (present or not), then protected_symlinks */
	for (int i = KN_PH + 1; i <= n_knob; i++) {
		int k = i == n_knob ? KN_PS : i;
		if (k != KN_PS && knob_protect[k] < 0)
			continue;
		struct stat st;
		char m[8];
		jb_begin(&j);
		jb_str(&j, "type", "sysctl");
		jb_str(&j, "knob", knob_names[k]);
		jb_str(&j, "path", knob_paths[k]);
		if (stat(knob_paths[k], &st)) {
			jb_bool(&j, "present", 0);
			jb_null(&j, "mode");
			jb_null(&j, "boot_value");
			jb_arr(&j, "writes");
			jb_close_arr(&j);
			jb_null(&j, "nonroot_write");
			jb_end(&j);
			out_json(&j);
			continue;
		}
		jb_bool(&j, "present", 1);
		mode_str(st.st_mode, m, sizeof m);
		jb_str(&j, "mode", m);
		if (knob_boot[k] == -1000)
			jb_null(&j, "boot_value");
		else
			jb_int(&j, "boot_value", knob_boot[k]);
		jb_arr(&j, "writes");
		for (unsigned w = 0; w < sizeof inputs / sizeof inputs[0]; w++)
			write_rec(&j, NULL, k, inputs[w], inputs[w], strlen(inputs[w]), 0, &errs);
		write_rec(&j, NULL, k, "1x4096", big, sizeof big, 0, &errs);
		jb_close_arr(&j);
		{
			const char *in = knob_boot[k] == 1 ? "0" : "1";
			write_rec(&j, "nonroot_write", k, in, in, 1, 1000, &errs);
		}
		jb_end(&j);
		out_json(&j);
		if (knob_boot[k] != -1000 && knob_read(k) != knob_boot[k]) {
			out_error("sysctl", "%s not restored to %d", knob_names[k], knob_boot[k]);
			errs++;
		}
	}
	return errs;
}
