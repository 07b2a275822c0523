/* sticky-suite --op: one operation of the case table, as the suite does it
 * (do_op() of ops.c), for a reader reproducing a case by hand
 * (harness/model/repro.py writes the scripts that call it; docs/repro.md).
 *
 *   sticky-suite --op NAME [--ids RUID,EUID,SUID,FSUID] [--chown UID] PATH [AUX]
 *
 * With --ids, the ids are switched as the suite switches to a follower
 * (ident.c: no supplementary groups, gids the same numbers, file system
 * capabilities exactly while fsuid is 0), which no shell tool does when
 * fsuid differs from euid; without it the op runs with the ids the
 * program has (e.g. as a set-user-ID root copy executed by A, the
 * setuid-exec follower). AUX: the new name of rename and linkat_follow.
 * Prints one line, "ret=N errno=NAME ids=R/E/S/FS gids=R/E/S/FS", and
 * exits 0 when the op ran, whatever it returned; 1 when the ids could
 * not be set, 2 on a usage error. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "guest.h"

static int usage(void)
{
	fprintf(stderr, "usage: sticky-suite --op NAME [--ids RUID,EUID,SUID,FSUID] [--chown UID]"
		" PATH [AUX]\n       NAME: one of");
	for (int i = 0; i < N_OP; i++)
		fprintf(stderr, " %s", op_info[i].name);
	fprintf(stderr, "\n");
	return 2;
}

int single_op_main(int argc, char **argv)
{
	const char *path = NULL, *aux = "", *name = NULL;
	unsigned ids[4], chown_uid = 0;
	int have_ids = 0, op, ret, err;
	char why[256], e[32];
	struct ids_now now;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--op") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--ids") && i + 1 < argc) {
			if (parse_ids(argv[++i], ids, 4))
				return usage();
			have_ids = 1;
		} else if (!strcmp(argv[i], "--chown") && i + 1 < argc) {
			if (parse_ids(argv[++i], &chown_uid, 1))
				return usage();
		} else if (argv[i][0] == '-')
			return usage();
		else if (!path)
			path = argv[i];
		else if (!*aux)
			aux = argv[i];
		else
			return usage();
	}
	op = name ? op_by_name(name) : -1;
	if (op < 0 || !path)
		return usage();
	if (have_ids && (ident_init(why, sizeof why) ||
			 ident_ids(ids[0], ids[1], ids[2], ids[3], why, sizeof why))) {
		fprintf(stderr, "sticky-suite --op: %s\n", why);
		return 1;
	}
	ident_read(&now);
	ret = do_op(op, path, aux, chown_uid, &err);
	printf("ret=%d errno=%s ids=%u/%u/%u/%u gids=%u/%u/%u/%u\n", ret,
	       ret ? ename(err, e, sizeof e) : "0", now.r, now.e, now.s, now.fs, now.rg, now.eg,
	       now.sg, now.fsg);
	return fflush(stdout) ? 1 : 0;
}
