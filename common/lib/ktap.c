/* KTAP line and totals formatting (pure). */
#include <stdio.h>
#include "suite.h"

int ktap_result_line(char *buf, size_t n, int ok, int num, const char *name, const char *directive)
{
	if (directive && *directive)
		return snprintf(buf, n, "%sok %d - %s # %s\n", ok ? "" : "not ", num, name, directive);
	return snprintf(buf, n, "%sok %d - %s\n", ok ? "" : "not ", num, name);
}

/* kselftest's totals line (tools/testing/selftests/kselftest.h) */
int ktap_totals(char *buf, size_t n, const struct totals *t)
{
	return snprintf(buf, n, "# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d\n",
			t->pass, t->fail, t->xfail, t->xpass, t->skip, t->error);
}

/* kselftest's exit codes: 0 pass, 1 fail (an error or an unexpected pass
 * too), 4 skip (nothing ran but skips) */
int ktap_exit_status(const struct totals *t)
{
	if (t->fail || t->error || t->xpass)
		return 1;
	if (!t->pass && !t->xfail && t->skip)
		return 4;
	return 0;
}
