/* KTAP line and totals formatting (pure). */
#include <stdio.h>
#include "suite.h"

int ktap_result_line(char *buf, size_t n, int ok, int num, const char *name, const char *directive)
{
	if (directive && *directive)
		return snprintf(buf, n, "%sok %d - %s # %s\n", ok ? "" : "not ", num, name, directive);
	return snprintf(buf, n, "%sok %d - %s\n", ok ? "" : "not ", num, name);
}

int ktap_totals(char *buf, size_t n, const struct totals *t)
{
	return snprintf(buf, n, "# Totals: %d passed, %d failed, %d skipped\n%d passed, %d failed, %d skipped\n",
			t->passed, t->failed, t->skipped, t->passed, t->failed, t->skipped);
}

void totals_add(struct totals *t, int failed, int skipped)
{
	if (failed)
		t->failed++;
	else if (skipped)
		t->skipped++;
	else
		t->passed++;
}
