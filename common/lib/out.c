/*
 * Output: KTAP/diagnostics on stdout, JSON lines on the result fd (env
 * STICKY_RESULT_FD, default 3). Given a KTAP fd too (env STICKY_KTAP_FD:
 * the init's second gzip stream), the whole KTAP document goes there and
 * stdout, the slow serial console, keeps its top level: the per-case
 * subtests go to the KTAP fd only (docs/result-format.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <termios.h>
#include <unistd.h>
#include "guest.h"

static int res_fd = -1, ktap_fd = -1;
static char obuf[1 << 16], kbuf[1 << 16];
static size_t olen, klen;
int n_errors;

double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

void out_init(void)
{
	const char *e = getenv("STICKY_RESULT_FD"), *k = getenv("STICKY_KTAP_FD");
	int fd = e ? atoi(e) : 3;
	if (fd >= 0 && fcntl(fd, F_GETFD) >= 0)
		res_fd = fd;
	fd = k ? atoi(k) : -1;
	if (fd >= 0 && fd != res_fd && fcntl(fd, F_GETFD) >= 0)
		ktap_fd = fd;
}

static void ktap_flush(void)
{
	if (ktap_fd >= 0 && klen)
		write_all(ktap_fd, kbuf, klen);
	klen = 0;
}

void out_flush(void)
{
	if (res_fd >= 0 && olen)
		write_all(res_fd, obuf, olen);
	olen = 0;
	ktap_flush();
}

static void ktap_add(const char *b, size_t n)
{
	if (klen + n > sizeof kbuf)
		ktap_flush();
	memcpy(kbuf + klen, b, n);
	klen += n;
}


void out_json(struct jb *j)
{
	if (j->overflow) {
		out_console("# internal: JSON record overflow\n");
		n_errors++;
		return;
	}
	if (olen + j->len + 1 > sizeof obuf)
		out_flush();
	memcpy(obuf + olen, j->buf, j->len);
	olen += j->len;
	obuf[olen++] = '\n';
}

enum { TO_CONSOLE = 1, TO_KTAP = 2 };

static void out_to(int where, const char *fmt, va_list ap)
{
	char b[1024];
	int n = vsnprintf(b, sizeof b, fmt, ap);

	if (n > (int)sizeof b - 1)
		n = sizeof b - 1;
	if (ktap_fd < 0) {
		write_all(1, b, (size_t)n);
		return;
	}
	if (where & TO_KTAP)
		ktap_add(b, (size_t)n);
	if (where & TO_CONSOLE) {
		ktap_flush();	/* what the console shows is in the document too */
		write_all(1, b, (size_t)n);
	}
}

/* A top-level line: the console and the KTAP document. */
void out_console(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_to(TO_CONSOLE | TO_KTAP, fmt, ap);
	va_end(ap);
}

/* A line of a nested subtest: the KTAP document only (the console without one). */
void out_nested(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_to(TO_KTAP, fmt, ap);
	va_end(ap);
}

/* The console only, when the KTAP document is elsewhere: a diagnostic it repeats. */
void out_console_only(const char *fmt, ...)
{
	va_list ap;

	if (ktap_fd < 0)
		return;
	va_start(ap, fmt);
	out_to(TO_CONSOLE, fmt, ap);
	va_end(ap);
}

void out_error(const char *id, const char *fmt, ...)
{
	static struct jb j;
	char b[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	n_errors++;
	jb_begin(&j);
	jb_str(&j, "type", "error");
	jb_str(&j, "id", id ? id : "");
	jb_str(&j, "reason", b);
	jb_end(&j);
	out_json(&j);
	if (n_errors <= 20)
		out_console("# error %s: %s\n", id && *id ? id : "-", b);
	else if (n_errors == 21)
		out_console("# (further errors only on the result channel)\n");
}

/* Durations go to the console only ("# timing WHAT: N ms, COUNT"): the result
 * file must not hold them (docs/result-format.md). */
void out_timing(const char *what, double ms, long count)
{
	out_console("# timing %s: %.0f ms, %ld\n", what, ms, count);
}

/* The result channel is a tty: make it raw (no output processing, no \r added). */
void out_raw_tty(void)
{
	struct termios t;
	if (res_fd >= 0 && tcgetattr(res_fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(res_fd, TCSANOW, &t);
	}
}
