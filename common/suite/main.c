/* sticky-suite: observe symlink following in sticky directories; KTAP on stdout,
 * JSON lines on fd 3 (docs/result-format.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guest.h"

void standalone_start(void);
void standalone_end(int status);

#define MAX_CASES 20000

static struct totals tot;	/* over cases; error: every error record */
static int testnum;
static struct expect_set ex;
static struct expect_row ex_rows[MAX_CASES];

/* One group record on the result channel and its KTAP result line. The
 * record keeps its shape: passed = cases that behaved as expected (pass
 * and xfail), failed = cases that did not, or whose self-check failed. */
static void group_line(const char *name, int passed, int failed, int skipped,
		       const char *directive)
{
	static struct jb j;
	char b[256];
	jb_begin(&j);
	jb_str(&j, "type", "group");
	jb_str(&j, "name", name);
	jb_int(&j, "passed", passed);
	jb_int(&j, "failed", failed);
	jb_int(&j, "skipped", skipped);
	jb_end(&j);
	out_json(&j);
	out_flush();
	if (!directive && !failed && skipped && !passed)
		directive = "SKIP";
	ktap_result_line(b, sizeof b, !failed, ++testnum, name, directive);
	out_console("%s", b);
}

/* Reads the host's expectations; on failure every case fails (no expectation). */
static void load_expectations(const char *path)
{
	char why[256];
	char *text = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20)) {
		snprintf(why, sizeof why, "%s", fd < 0 ? strerror(errno) : "empty or too large");
		goto fail;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		snprintf(why, sizeof why, "out of memory");
		goto fail;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, text + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(why, sizeof why, "read: %s", r ? strerror(errno) : "short");
			goto fail;
		}
		got += (size_t)r;
	}
	text[got] = '\0';
	close(fd);
	if (expect_parse(&ex, text, ex_rows, MAX_CASES, why, sizeof why))
		goto fail_parsed;
	out_console("# expectations: flavor %s, %d cases x %d settings, %d xfail tag(s), from %s\n",
		    ex.flavor, ex.nrows, ex.nsettings, ex.ntags, path);
	return;	/* text stays: the rows point into it */
fail:
	if (fd >= 0)
		close(fd);
fail_parsed:
	free(text);
	memset(&ex, 0, sizeof ex);
	out_console("# expectations: %s: %s; every case fails\n", path, why);
	out_error("", "expectations %s: %s", path, why);
}

/* One setting: its knobs applied and recorded, then its groups. Returns 1
 * when the identity could not be restored (nothing more can run), else 0. */
static int run_setting(struct setting *s, const struct case_spec *cases, int ncases,
		       const char *only)
{
	static struct jb j;
	char name[64], why[512];
	int setting_ok, fatal = 0, count = 0;
	double t0 = now_ms();

	setting_ok = apply_setting(s, why, sizeof why) == 0;
	if (!setting_ok)
		out_error("", "setting %s: %s", s->label, why);
	jb_begin(&j);
	jb_str(&j, "type", "setting");
	jb_str(&j, "setting", s->label);
	knobs_json(&j, "knobs");
	jb_bool(&j, "applied", setting_ok);
	jb_end(&j);
	out_json(&j);
	for (int g = 0; g < N_CASE_GROUP; g++) {
		struct group_result gr = { 0, 0, 0, 0, 0 };

		if (only && strcmp(only, group_names[g]))
			continue;
		xfmt(name, sizeof name, "%s/%s", s->label, group_names[g]);
		if (setting_ok && !fatal) {
			fatal = run_cases(s, cases, ncases, g, name, &ex, &gr) < 0;
			group_line(name, gr.pass + gr.xfail, gr.fail + gr.error, gr.skip, NULL);
		} else {
			/* a setting that cannot be applied fails its groups */
			for (int i = 0; i < ncases; i++)
				gr.skip += cases[i].group == g;
			group_line(name, 0, 1, gr.skip, fatal ? "ERROR not run: the identity was lost" :
				   "ERROR not run: the setting could not be applied");
		}
		tot.pass += gr.pass;
		tot.fail += gr.fail;
		tot.xfail += gr.xfail;
		tot.skip += gr.skip;
		count += gr.pass + gr.fail + gr.xfail + gr.error;
	}
	xfmt(name, sizeof name, "setting %s", s->label);
	out_timing(name, now_ms() - t0, count);
	return fatal;
}

/* Whether no case of the setting can call the revision's printk_ratelimited():
 * its own knob is off (at boot: reads off) or it has none. */
static int rule_off(const struct setting *s)
{
	if (own_kind < 0)
		return 1;
	if (s->boot)
		return knob_boot[own_kind] == own_value(own_kind, 0);
	return !s->own;
}

static void usage(void)
{
	out_console("usage: sticky-suite [--quick] [--only matrix|positions|ops|mounts|sysctl|log] [--setting LABEL]\n"
		    "                    [--expect FILE (default " EXPECT_PATH ")]\n"
		    "       sticky-suite --op NAME [--ids RUID,EUID,SUID,FSUID] [--chown UID] PATH [AUX]\n");
}

int main(int argc, char **argv)
{
	int quick = 0, pid1 = getpid() == 1;
	const char *only = NULL, *only_setting = NULL, *expect_path = EXPECT_PATH;
	char why[512];
	static struct case_spec cases[MAX_CASES];
	struct setting settings[1 + N_SETTING_ROW];
	int nset = 0, ncases, printk_level = -1, fatal = 0, log_errs = 0, waiting;
	struct log_run lr = { .release = 0 };
	double t_start;

	if (argc == 2 && !strcmp(argv[1], "--setuid-exec-server"))
		return setuid_exec_serve();
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--op"))
			return single_op_main(argc, argv);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else if (!strcmp(argv[i], "--setting") && i + 1 < argc)
			only_setting = argv[++i];
		else if (!strcmp(argv[i], "--expect") && i + 1 < argc)
			expect_path = argv[++i];
		else {
			usage();
			if (pid1)
				standalone_end(2);
			return 2;
		}
	}
	if (only && lookup_name(group_names, N_CASE_GROUP, only) < 0 && strcmp(only, "sysctl") &&
	    strcmp(only, "log")) {
		usage();
		if (pid1)
			standalone_end(2);
		return 2;
	}
	if (pid1)
		standalone_start();
	out_init();
	if (getenv("STICKY_TTY_COOKED") == NULL)
		out_raw_tty();
	t_start = now_ms();
	out_console("KTAP version 1\n");

	if (ident_init(why, sizeof why) || knobs_open_checked(why, sizeof why)) {
		out_console("# %s\n", why);
		out_error("", "%s", why);
		out_flush();
		if (pid1)
			standalone_end(1);
		return 1;
	}

	/* settings */
	memset(settings, 0, sizeof settings);
	snprintf(settings[nset].label, sizeof settings[0].label, "boot");
	settings[nset++].boot = 1;
	/* lib/cases.def's SETTING rows; without an own knob, one per mainline value */
	for (int r = 0; r < N_SETTING_ROW; r++) {
		int ps = (int)setting_rows[r].ps, own = (int)setting_rows[r].own, seen = 0;
		struct setting *s = &settings[nset];

		if (own_kind < 0)
			snprintf(s->label, sizeof s->label, "ps%d-own-", ps);
		else
			snprintf(s->label, sizeof s->label, "ps%d-own%d", ps, own);
		for (int k = 0; k < nset; k++)
			seen |= !strcmp(settings[k].label, s->label);
		if (seen) {
			memset(s, 0, sizeof *s);
			continue;
		}
		s->ps = ps, s->own = own_kind < 0 ? 0 : own;
		nset++;
	}

	ncases = matrix_generate(cases, (int)(sizeof cases / sizeof cases[0]), quick);
	if (ncases > (int)(sizeof cases / sizeof cases[0])) {
		out_console("# internal: too many cases\n");
		return 2;
	}
	int ngroups = 0, nrun_set = 0;
	for (int s = 0; s < nset; s++)
		if (!only_setting || !strcmp(only_setting, settings[s].label))
			nrun_set++;
	for (int g = 0; g < N_CASE_GROUP; g++)
		if (!only || !strcmp(only, group_names[g]))
			ngroups += nrun_set;
	int do_sysctl = !only || !strcmp(only, "sysctl"), do_log = !only || !strcmp(only, "log");
	out_console("1..%d\n", ngroups + do_sysctl + do_log);
	out_console("# knobs at boot: ps=%d ph=%d own %s=%d; %d cases per setting%s\n",
		    knob_boot[KN_PS], knob_boot[KN_PH], own_kind < 0 ? "-" : knob_paths[own_kind],
		    own_kind < 0 ? -1 : knob_boot[own_kind], ncases, quick ? " (quick)" : "");

	if (ngroups || do_log) {
		load_expectations(expect_path);
		for (int si = 0; si < nset; si++)
			if ((!only_setting || !strcmp(only_setting, settings[si].label)) &&
			    ex.nsettings && expect_setting(&ex, settings[si].label) < 0)
				out_console("# expectations: none for setting %s; its cases fail\n",
					    settings[si].label);
	}

	/* keep denial messages off the slow console; /dev/kmsg still has them */
	{
		FILE *f = fopen("/proc/sys/kernel/printk", "r");
		if (f) {
			if (fscanf(f, "%d", &printk_level) != 1)
				printk_level = -1;
			fclose(f);
		}
		if (printk_level > 4)
			klogctl(8, NULL, 4);
	}

	if (fixture_setup(why, sizeof why)) {
		out_error("", "fixture: %s", why);
		goto end;
	}
	if (do_sysctl) {
		int e = run_sysctl_tests();
		group_line("sysctl", e ? 0 : 1, e, 0, NULL);
	}
	if (do_log)
		log_errs = own_kind < 0 ? log_probes_audited(&lr, 1, 0, &ex) :
			   log_probes_audited(&lr, 0, 1, &ex);
	/* while the ratelimit's interval runs, the settings that make no call through it */
	waiting = lr.release;
	for (int quiet = 1; quiet >= 0; quiet--) {
		for (int si = 0; si < nset && !fatal; si++) {
			struct setting *s = &settings[si];

			if ((only_setting && strcmp(only_setting, s->label)) || !ngroups ||
			    (waiting && rule_off(s)) != quiet)
				continue;
			fatal = run_setting(s, cases, ncases, only);
		}
		if (quiet && do_log) {
			log_errs += log_release_audited(&lr, &ex);
			group_line("log", log_errs ? 0 : 1, log_errs, 0, NULL);
		}
	}
	if (fatal)
		out_console("# identity could not be restored; stopping\n");

	/* restore the boot values */
	for (int k = 0; k < n_knob; k++) {
		if (knob_boot[k] == -1000)
			continue;
		if (knob_read(k) != knob_boot[k])
			knob_write(k, knob_boot[k]);
		if (knob_read(k) != knob_boot[k])
			out_error("", "could not restore %s to %d", knob_names[k], knob_boot[k]);
	}
	setuid_exec_stop();
	if (fixture_teardown())
		out_error("", "teardown: %s", strerror(errno));
end:
	if (printk_level > 4)
		klogctl(8, NULL, printk_level);
	runner_timing(ncases);
	out_timing("suite", now_ms() - t_start, ncases);
	out_flush();
	{
		char b[160];
		tot.error = n_errors;
		ktap_totals(b, sizeof b, &tot);
		out_console("# %d error record(s); suite took %.0f ms\n", n_errors, now_ms() - t_start);
		out_console("%s", b);
	}
	int status = ktap_exit_status(&tot);
	if (pid1)
		standalone_end(status);
	return status;
}
