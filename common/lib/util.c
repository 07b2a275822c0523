/* Mode/owner/errno helpers (pure). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"

/* "1777" -> 01777; exactly 4 octal digits */
int parse_mode(const char *s, unsigned *mode)
{
	unsigned m = 0;
	if (!s || strlen(s) != 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		if (s[i] < '0' || s[i] > '7')
			return -1;
		m = m * 8 + (unsigned)(s[i] - '0');
	}
	*mode = m;
	return 0;
}

void mode_str(unsigned mode, char *buf, size_t n)
{
	snprintf(buf, n, "%04o", mode & 07777);
}

int lookup_name(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

/* the op row named s, or -1 */
int op_by_name(const char *s)
{
	for (int i = 0; i < N_OP; i++)
		if (!strcmp(op_info[i].name, s))
			return i;
	return -1;
}

/* n comma-separated unsigned decimals ("1000,0,0,1000"): 0, or -1 */
int parse_ids(const char *s, unsigned *out, int n)
{
	for (int i = 0; i < n; i++) {
		char *end;
		unsigned long v;

		if (*s < '0' || *s > '9')
			return -1;
		v = strtoul(s, &end, 10);
		if (v > 0xfffffffeUL || (*end != (i + 1 < n ? ',' : '\0')))
			return -1;
		out[i] = (unsigned)v;
		s = end + 1;
	}
	return 0;
}

/* the index of a mode in the core matrix's dirs, or -1 */
int dir_mode_index(unsigned mode)
{
	for (int i = 0; i < N_DIRMODE; i++)
		if (dir_modes[i] == mode)
			return i;
	return -1;
}

int parse_owner(const char *s, unsigned *uid)
{
	int i = s ? lookup_name(owner_names, N_OWN, s) : -1;
	if (i < 0)
		return -1;
	*uid = owner_ids[i];
	return 0;
}

const char *owner_name_of(unsigned uid)
{
	for (int i = 0; i < N_OWN; i++)
		if (owner_ids[i] == uid)
			return owner_names[i];
	return "?";
}

const char *errno_name(int e, char *buf, size_t n)
{
	const char *s;
	if (e == 0)
		return "0";
	s = strerrorname_np(e);
	if (s)
		return s;
	snprintf(buf, n, "E%d", e);
	return buf;
}

int fmt_truncated;

/* snprintf that counts truncation instead of hiding it */
int xfmt(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= n) {
		fmt_truncated++;
		return -1;
	}
	return r;
}
