// SPDX-License-Identifier: GPL-2.0
/*
 * fault_knobflip: move fs.protected_symlinks while the suite runs its boot
 * matrix. A fixture of harness/tests/test_faults.py: the suite reads the
 * knobs around each block of cases, so the cases of the block the write
 * lands in must come out as self-check errors, never as verdicts.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KNOB "/proc/sys/fs/protected_symlinks"
#define FIXTURE_DONE "/tmp/sticky/sa/t/script-A"

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int main(void)
{
	struct stat st;
	char v;
	int fd, status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("fault_knobflip: fork");
		return 1;
	}
	if (pid == 0) {
		execl("/bin/sticky-suite", "sticky-suite", "--setting", "boot", "--only", "matrix",
		      (char *)NULL);
		perror("fault_knobflip: exec /bin/sticky-suite");
		_exit(127);
	}
	/* the matrix starts right after the fixture; it runs for seconds */
	for (int i = 0; i < 3000 && stat(FIXTURE_DONE, &st); i++)
		nap_ms(10);
	nap_ms(300);
	fd = open(KNOB, O_RDWR);
	if (fd < 0 || pread(fd, &v, 1, 0) != 1) {
		perror("fault_knobflip: " KNOB);
		return 1;
	}
	v = v == '0' ? '1' : '0';
	if (pwrite(fd, &v, 1, 0) != 1) {
		perror("fault_knobflip: write " KNOB);
		return 1;
	}
	printf("# fault_knobflip: wrote %c to " KNOB "\n", v);
	fflush(stdout);
	close(fd);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
