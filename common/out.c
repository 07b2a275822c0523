/* Output: KTAP/diagnostics on stdout, JSON lines on the result fd (env STICKY_RESULT_FD, default 3). */
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

static int res_fd = -1;
static char obuf[1 << 16];
static size_t olen;
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
	const char *e = getenv("STICKY_RESULT_FD");
	int fd = e ? atoi(e) : 3;
	if (fd >= 0 && fcntl(fd, F_GETFD) >= 0)
		res_fd = fd;
}

void out_flush(void)
{
	if (res_fd >= 0 && olen)
		write_all(res_fd, obuf, olen);
	olen = 0;
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

void out_console(const char *fmt, ...)
{
	char b[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof b, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof b - 1)
		n = sizeof b - 1;
	write_all(1, b, (size_t)n);
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
