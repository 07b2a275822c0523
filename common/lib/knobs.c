/* The knob files: mainline's and every revision's, as the harness lists
 * them in KNOBS_PATH (name, path, the value that protects); read, write,
 * read back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "guest.h"

const char *knob_names[MAX_KNOB];
const char *knob_paths[MAX_KNOB];
int knob_protect[MAX_KNOB];
int knob_boot[MAX_KNOB];
int n_knob;
int own_kind = -1;
static int knob_fd[MAX_KNOB];
static char knob_text[MAX_KNOB][2][96];

static void knob_add(const char *name, const char *path, int protect)
{
	snprintf(knob_text[n_knob][0], sizeof knob_text[0][0], "%s", name);
	snprintf(knob_text[n_knob][1], sizeof knob_text[0][1], "%s", path);
	knob_names[n_knob] = knob_text[n_knob][0];
	knob_paths[n_knob] = knob_text[n_knob][1];
	knob_protect[n_knob] = protect;
	knob_fd[n_knob] = -1;
	n_knob++;
}

/* Mainline's two come first (KN_PS, KN_PH), whatever the file says. */
int knobs_load(const char *listing, char *why, size_t n)
{
	char line[256], name[64], path[128], prot[8];
	FILE *f;

	n_knob = 0;
	knob_add("protected_symlinks", "/proc/sys/fs/protected_symlinks", -1);
	knob_add("protected_hardlinks", "/proc/sys/fs/protected_hardlinks", -1);
	f = fopen(listing, "r");
	if (!f) {
		snprintf(why, n, "%s: %s (the harness writes it into the initramfs)", listing,
			 strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63s %127s %7s", name, path, prot) != 3 ||
		    strncmp(path, "/proc/sys/", 10) ||
		    (strcmp(prot, "-") && strcmp(prot, "0") && strcmp(prot, "1"))) {
			snprintf(why, n, "%s: bad line '%.*s'", listing, (int)strcspn(line, "\n"),
				 line);
			fclose(f);
			return -1;
		}
		if (!strcmp(name, knob_names[KN_PS]) || !strcmp(name, knob_names[KN_PH]))
			continue;
		if (n_knob == MAX_KNOB) {
			snprintf(why, n, "%s: more than %d knobs", listing, MAX_KNOB);
			fclose(f);
			return -1;
		}
		knob_add(name, path, prot[0] == '-' ? -1 : prot[0] - '0');
	}
	fclose(f);
	return 0;
}

int knob_present(int k)
{
	return access(knob_paths[k], F_OK) == 0;
}

/* The one revision knob this kernel has, or -1 (two is an error). */
static int find_own(char *why, size_t n)
{
	int own = -1;

	for (int k = 0; k < n_knob; k++) {
		if (knob_protect[k] < 0 || knob_boot[k] == -1000)
			continue;
		if (own >= 0) {
			snprintf(why, n, "two revision knobs present: %s and %s", knob_paths[own],
				 knob_paths[k]);
			return -2;
		}
		own = k;
	}
	return own;
}

int knobs_open_checked(char *why, size_t n)
{
	if (knobs_load(KNOBS_PATH, why, n))
		return -1;
	for (int k = 0; k < n_knob; k++) {
		knob_fd[k] = open(knob_paths[k], O_RDWR | O_CLOEXEC);
		knob_boot[k] = knob_fd[k] >= 0 ? knob_read(k) : -1000;
	}
	own_kind = find_own(why, n);
	return own_kind == -2 ? -1 : 0;
}

void knobs_open(void)
{
	char why[256];

	if (knobs_open_checked(why, sizeof why)) {
		fprintf(stderr, "knobs: %s\n", why);
		exit(2);
	}
}

int own_value(int k, int protection)
{
	return knob_protect[k] == 1 ? protection : 1 - protection;
}

int knob_read(int k)
{
	char b[64];
	char *end;
	ssize_t n;
	long v;
	if (knob_fd[k] < 0)
		return -1000;
	n = pread(knob_fd[k], b, sizeof b - 1, 0);
	if (n <= 0)
		return -1000;
	b[n] = 0;
	v = strtol(b, &end, 10);
	if (end == b || (*end && *end != '\n'))
		return -1000;
	return (int)v;
}

int knob_write(int k, int v)
{
	char b[16];
	int n = snprintf(b, sizeof b, "%d", v);
	if (knob_fd[k] < 0)
		return -ENOENT;
	if (pwrite(knob_fd[k], b, (size_t)n, 0) != n)
		return -errno;
	return 0;
}

void knobs_json(struct jb *j, const char *key)
{
	jb_obj(j, key);
	for (int k = 0; k < n_knob; k++) {
		int v = knob_read(k);
		if (v == -1000)
			jb_null(j, knob_names[k]);
		else
			jb_int(j, knob_names[k], v);
	}
	jb_close_obj(j);
}
