/*
 * sticky-bench: the cost of the symlink checks on paths they allow.
 *
 *   sticky-bench [--iters N] [--batch K] [--repeats R]
 *
 * Root follows root-owned links in the root-owned 1777 /tmp (allowed by
 * every rule, but every condition of the check is evaluated):
 *   nolink  /tmp/bench-f and /tmp/bench-d/f, no link at all;
 *   trail   /tmp/bench-lt -> /tmp/bench-f (trailing link);
 *   inter   /tmp/bench-li/f, /tmp/bench-li -> /tmp/bench-d (intermediate).
 * Ops: open(O_RDONLY)+close, stat. Each (setting, path, op) is timed N
 * times with CLOCK_MONOTONIC in batches of K ops (default 1000 x 1), R
 * times; settings are interleaved within each repeat so drift hits all of
 * them alike. Run under QEMU -icount shift=0 the clock counts guest
 * instructions (1 ns each), so the fastest batch is the instruction count
 * of the fast path, the same in every repeat. One {"type":"bench"} record
 * per (setting, path, op): per repeat the fastest and the median batch
 * (ns per op x scale), and clock_ns, the cost of an empty batch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "beyond.h"

#define MAXREP 64

enum { BP_NOLINK, BP_TRAIL, BP_INTER, N_PATH };
enum { B_OPEN, B_STAT, N_BOP };
static const char *const path_names[N_PATH] = { "nolink", "trail", "inter" };
static const char *const paths[N_PATH] = { "/tmp/bench-f", "/tmp/bench-lt", "/tmp/bench-li/f" };
static const char *const bop_names[N_BOP] = { "open_close", "stat" };

static double ns_per_op[4][N_PATH][N_BOP][MAXREP][2];

static int setup(void)
{
	int fd;
	mkdir("/tmp/bench-d", 0755);
	fd = open("/tmp/bench-f", O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	fd = open("/tmp/bench-d/f", O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	unlink("/tmp/bench-lt");
	unlink("/tmp/bench-li");
	if (symlink("/tmp/bench-f", "/tmp/bench-lt") || symlink("/tmp/bench-d", "/tmp/bench-li"))
		return -1;
	return 0;
}

static double samples[1 << 16];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Times iters/batch batches of `batch` ops (ns per op); out[0]: the fastest
 * batch, the instructions of the fast path under -icount; out[1]: the median
 * batch, which includes allocator refills and RCU callbacks. 0, or -1 when
 * an op failed: every path must be allowed in every setting. op -1 times
 * an empty batch: the cost of reading the clock. */
static int measure(int p, int op, long iters, long batch, double *out)
{
	struct stat st;
	const char *path = paths[p < 0 ? 0 : p];
	long n = 0;
	for (long done = 0; done < iters; done += batch) {
		double t0 = now_ms();
		for (long i = 0; i < batch; i++) {
			if (op == B_OPEN) {
				int fd = open(path, O_RDONLY);
				if (fd < 0)
					return -1;
				close(fd);
			} else if (op == B_STAT && stat(path, &st)) {
				return -1;
			}
		}
		samples[n++] = (now_ms() - t0) * 1e6 / (double)batch;
	}
	qsort(samples, (size_t)n, sizeof samples[0], cmp_double);
	out[0] = samples[0];
	out[1] = samples[n / 2];
	return 0;
}

int main(int argc, char **argv)
{
	static struct jb j;
	long iters = 1000, batch = 1;
	double clock_ns[2];
	int reps = 7;
	struct bsetting set[4];
	int nset;
	double t0 = now_ms();

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			batch = atol(argv[++i]);
		else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: sticky-bench [--iters N] [--batch K] [--repeats R]\n");
			return 2;
		}
	}
	if (iters <= 0 || batch <= 0 || iters / batch > (1 << 16) || reps <= 0 || reps > MAXREP)
		return 2;
	out_init();
	out_raw_tty();
	knobs_open();
	if (setup()) {
		out_error("bench", "setup failed: %s", strerror(errno));
		out_flush();
		return 1;
	}
	nset = bsettings(set);
	measure(-1, -1, iters, batch, clock_ns);
	for (int r = -1; r < reps; r++) {	/* r = -1: warm-up, not kept */
		for (int s = 0; s < nset; s++) {
			if (bsetting_apply(&set[s])) {
				out_flush();
				return 1;
			}
			for (int p = 0; p < N_PATH; p++)
				for (int op = 0; op < N_BOP; op++) {
					double v[2];
					if (measure(p, op, iters, batch, v)) {
						out_error("bench", "%s %s %s failed: %s",
							  set[s].label, path_names[p],
							  bop_names[op], strerror(errno));
						out_flush();
						return 1;
					}
					if (r >= 0)
						memcpy(ns_per_op[s][p][op][r], v, sizeof v);
				}
		}
	}
	for (int s = 0; s < nset; s++) {
		if (bsetting_apply(&set[s]))
			return 1;
		for (int p = 0; p < N_PATH; p++)
			for (int op = 0; op < N_BOP; op++) {
				jb_begin(&j);
				jb_str(&j, "type", "bench");
				bsetting_json(&j, &set[s]);
				jb_str(&j, "path", path_names[p]);
				jb_str(&j, "op", bop_names[op]);
				jb_int(&j, "iters", iters);
				jb_int(&j, "batch", batch);
				for (int k = 0; k < 2; k++) {
					jb_arr(&j, k ? "median_ns" : "min_ns");
					for (int r = 0; r < reps; r++)
						jb_int(&j, NULL,
						       (long)(ns_per_op[s][p][op][r][k] * 10 + 0.5));
					jb_close_arr(&j);
				}
				jb_int(&j, "clock_ns", (long)(clock_ns[0] * 10 + 0.5));
				jb_int(&j, "scale", 10);
				jb_end(&j);
				out_json(&j);
				out_console("# bench %s %s %s: %.1f ns/op fastest, %.1f median\n",
					    set[s].label, path_names[p], bop_names[op],
					    ns_per_op[s][p][op][0][0], ns_per_op[s][p][op][0][1]);
			}
	}
	bsettings_restore();
	out_console("# timing bench: %.0f ms\n", now_ms() - t0);
	out_flush();
	return n_errors ? 1 : 0;
}
