// SPDX-License-Identifier: GPL-2.0
/*
 * fault_stream: a bad result stream, for harness/tests/test_faults.py. It
 * stands in for /bin/sticky-suite in a test's own build directory.
 *
 *   fault_stream garbled    a record cut mid-line and binary junk, then exit
 *                           0 (init's end record lands on the same line)
 *   fault_stream truncated  a record and half of another, then end the
 *                           machine at once through isa-debug-exit with
 *                           status 0, before init can end the stream
 *   fault_stream sleep      a record, then sleep forever (a boot to
 *                           interrupt)
 */
#include <stdio.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

#define REC "{\"type\":\"error\",\"id\":\"fault\",\"msg\":\"fixture\"}\n"
#define PART "{\"type\":\"case\",\"id\":\"cut-"

static void put(const char *s, size_t n)
{
	if (write(3, s, n) != (ssize_t)n)
		perror("fault_stream: write fd 3");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "garbled";

	put(REC, strlen(REC));
	if (!strcmp(mode, "garbled")) {
		put(PART, strlen(PART));
		put("\x01\xff junk", 7);
		return 0;
	}
	if (!strcmp(mode, "truncated")) {
		put(PART, strlen(PART));
		sync();
		if (ioperm(0xf4, 4, 1) == 0)
			outb(0, 0xf4);
		perror("fault_stream: isa-debug-exit");
		return 1;
	}
	fprintf(stderr, "fault_stream: sleeping\n");
	for (;;)
		pause();
}
