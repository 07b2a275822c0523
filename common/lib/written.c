/*
 * Which case records carry their params object (runner.c). The object is
 * the case's layout, which is its id's alone (layout_case()), and the ids
 * read back before its operation. It is written in a case's first record
 * of the run and again only when the ids read back otherwise; the host
 * gives a record without it the object of the last record of its id
 * (harness/suite/results.py). A record of a later setting is then a
 * third of the size: the guest's output halves, and so does its gzip's work.
 */
#include <string.h>
#include "suite.h"

/* 1 when the record must carry the object (w then holds ids), else 0 */
int params_due(struct written *w, const struct ids_now *ids)
{
	if (w->have && !memcmp(&w->ids, ids, sizeof *ids))
		return 0;
	w->have = 1;
	w->ids = *ids;
	return 1;
}
