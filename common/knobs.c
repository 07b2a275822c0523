/* The four knob files: read, write, read back. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "guest.h"

const char *const knob_names[N_KNOB] = { "protected_symlinks", "protected_hardlinks",
					 "weak_sticky_symlinks", "protected_sticky_symlinks" };
const char *const knob_paths[N_KNOB] = {
	"/proc/sys/fs/protected_symlinks", "/proc/sys/fs/protected_hardlinks",
	"/proc/sys/fs/weak-sticky-symlinks", "/proc/sys/fs/protected-sticky-symlinks" };
int knob_boot[N_KNOB];
static int knob_fd[N_KNOB] = { -1, -1, -1, -1 };

int knob_present(int k)
{
	return access(knob_paths[k], F_OK) == 0;
}

void knobs_open(void)
{
	for (int k = 0; k < N_KNOB; k++) {
		knob_fd[k] = open(knob_paths[k], O_RDWR | O_CLOEXEC);
		knob_boot[k] = knob_fd[k] >= 0 ? knob_read(k) : -1000;
	}
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
	for (int k = 0; k < N_KNOB; k++) {
		int v = knob_read(k);
		if (v == -1000)
			jb_null(j, knob_names[k]);
		else
			jb_int(j, knob_names[k], v);
	}
	jb_close_obj(j);
}
