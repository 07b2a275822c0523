// SPDX-License-Identifier: GPL-2.0
/*
 * /init of every test guest: set up the file systems, report the facts of
 * this kernel on the result channel, run the job given after "--" on the
 * kernel command line, and end the machine with the job's exit status
 * through isa-debug-exit. See docs/result-format.md.
 *
 * The result channel is a gzip stream: QEMU writes a serial port's output
 * to its file one byte per write(2), about 0.5 MB/s, so the suite's JSON
 * lines go through busybox gzip on their way to /dev/ttyS1. The KTAP
 * document, one line per case, goes the same way to /dev/ttyS2 (fd 4,
 * STICKY_KTAP_FD), when the machine has that port: the console keeps
 * the top level.
 *
 * In a lab (LAVA's QEMU device: one serial port, no isa-debug-exit), the
 * kernel command line says "sticky.lab=1": the result channel is
 * discarded, the whole KTAP document stays on the console for the lab's
 * monitor to read, and the machine ends with a reboot (QEMU's -no-reboot:
 * its exit).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define RESULT_FD	3
#define KTAP_FD		4
#define DEBUG_EXIT_PORT	0xf4

/* The knobs to record: mainline's and every revision's, listed by the
 * harness as "name path protecting-value" lines. */
#define KNOBS_PATH "/etc/sticky/knobs"

static void say(const char *msg)
{
	fprintf(stderr, "sticky-init: %s\n", msg);
}

static void must_mount(const char *src, const char *dir, const char *type,
		       unsigned long flags, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, flags, opts) && errno != EBUSY) {
		fprintf(stderr, "sticky-init: mount %s on %s: %s\n", type, dir,
			strerror(errno));
	}
}

/* Reads a small integer sysctl; returns 0 and sets *val, or -1 if absent. */
static int read_knob(const char *path, long *val)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	*val = strtol(buf, NULL, 10);
	return 0;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void write_facts(FILE *res)
{
	struct utsname u;
	char cmdline[1024] = "", line[256];
	FILE *listing;
	int i, fd = open("/proc/cmdline", O_RDONLY);

	if (fd >= 0) {
		ssize_t n = read(fd, cmdline, sizeof(cmdline) - 1);

		cmdline[n > 0 ? n : 0] = '\0';
		cmdline[strcspn(cmdline, "\n")] = '\0';
		close(fd);
	}
	uname(&u);
	fputs("{\"type\":\"facts\",\"uname\":", res);
	json_string(res, u.release);
	fputs(",\"version\":", res);
	json_string(res, u.version);
	fputs(",\"cmdline\":", res);
	json_string(res, cmdline);
	fputs(",\"knobs\":{", res);
	listing = fopen(KNOBS_PATH, "r");
	for (i = 0; listing && fgets(line, sizeof(line), listing);) {
		char name[64], path[128];
		long v;

		if (line[0] == '#' || sscanf(line, "%63s %127s", name, path) != 2)
			continue;
		fprintf(res, "%s\"%s\":", i++ ? "," : "", name);
		if (read_knob(path, &v))
			fputs("null", res);
		else
			fprintf(res, "%ld", v);
	}
	if (listing)
		fclose(listing);
	else
		say("no " KNOBS_PATH ": knobs not recorded");
	fputs("}}\n", res);
	fflush(res);
}

static int run_job(char **argv, int resfd, int ktapfd)
{
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		say("fork failed");
		return 125;
	}
	if (pid == 0) {
		/* above both targets first, so that neither overwrites the other */
		resfd = fcntl(resfd, F_DUPFD, 16);
		if (ktapfd >= 0)
			ktapfd = fcntl(ktapfd, F_DUPFD, 16);
		dup2(resfd, RESULT_FD);
		if (ktapfd >= 0) {
			dup2(ktapfd, KTAP_FD);
			setenv("STICKY_KTAP_FD", "4", 1);
		}
		for (int fd = ktapfd >= 0 ? KTAP_FD + 1 : RESULT_FD + 1; fd < 64; fd++)
			close(fd);
		setenv("STICKY_RESULT_FD", "3", 1);
		setenv("PATH", "/bin:/sbin", 1);
		execv(argv[0], argv);
		fprintf(stderr, "sticky-init: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	/* As pid 1 we also reap orphans until the job itself ends. */
	for (;;) {
		pid_t got = wait(&status);

		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return 125;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* A serial port opened for writing, raw: no \n -> \r\n translation on a
 * machine-readable channel. -1 if the machine lacks it. */
static int open_raw(const char *path)
{
	struct termios t;
	int fd = open(path, O_WRONLY | O_NOCTTY);

	if (fd >= 0 && tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* Starts busybox gzip writing to out; returns the pipe that feeds it. */
static int start_gzip(int out, pid_t *pid)
{
	int p[2];

	if (pipe(p))
		return -1;
	*pid = fork();
	if (*pid < 0)
		return -1;
	if (*pid == 0) {
		dup2(p[0], 0);
		dup2(out, 1);
		/* no other pipe's end: each gzip must see its own EOF */
		for (int fd = 3; fd < 64; fd++)
			close(fd);
		execl("/bin/busybox", "gzip", "-1", "-c", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	return p[1];
}

/* Ends every process the job left behind but the gzips, so the pipes close. */
static void kill_leftovers(pid_t keep, pid_t keep2)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid > 1 && pid != keep && pid != keep2)
			kill(pid, SIGKILL);
	}
	closedir(d);
}

static int lab;	/* "sticky.lab=1" on the kernel command line */

static int lab_mode(void)
{
	char cmdline[1024];
	ssize_t n;
	int fd = open("/proc/cmdline", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	cmdline[n > 0 ? n : 0] = '\0';
	for (char *w = strtok(cmdline, " \n"); w; w = strtok(NULL, " \n"))
		if (!strcmp(w, "sticky.lab=1"))
			return 1;
	return 0;
}

static void end_machine(int status)
{
	sync();
	if (lab) {
		/* The lab reads the console to its last line. The kernels
		 * have no ACPI, where a power-off only halts the CPU: a reboot
		 * ends the machine, which the job's -no-reboot turns into
		 * QEMU's exit (and a lab's console into end of file). */
		tcdrain(STDOUT_FILENO);
		tcdrain(STDERR_FILENO);
		reboot(RB_AUTOBOOT);
	}
	if (ioperm(DEBUG_EXIT_PORT, 4, 1) == 0)
		outb(status > 127 ? 127 : status, DEBUG_EXIT_PORT);
	say("isa-debug-exit did not end the machine; rebooting");
	reboot(RB_AUTOBOOT);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	static char *default_job[] = { "/bin/sticky-suite", NULL };
	char **job = default_job;
	int resfd, ttyfd, ktapfd = -1, ktaptty, status, i;
	pid_t gzip, gzip2 = -1;
	FILE *res;

	must_mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	must_mount("proc", "/proc", "proc", 0, NULL);
	must_mount("sysfs", "/sys", "sysfs", 0, NULL);
	must_mount("tmpfs", "/tmp", "tmpfs", MS_STRICTATIME, "mode=1777");

	/* The kernel hands init the words after "--" as its arguments. */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '/') {
			job = &argv[i];
			break;
		}
	}

	lab = lab_mode();
	ttyfd = lab ? open("/dev/null", O_WRONLY) : open_raw("/dev/ttyS1");
	if (ttyfd < 0) {
		say("cannot open /dev/ttyS1, the result channel");
		end_machine(126);
	}
	resfd = start_gzip(ttyfd, &gzip);
	if (resfd < 0) {
		say("cannot start busybox gzip for the result channel");
		end_machine(126);
	}
	/* a machine without a third port: the job's KTAP stays on the console */
	ktaptty = lab ? -1 : open_raw("/dev/ttyS2");
	if (ktaptty >= 0) {
		ktapfd = start_gzip(ktaptty, &gzip2);
		if (ktapfd < 0)
			say("cannot start busybox gzip for the KTAP channel; KTAP on the console");
	}
	res = fdopen(dup(resfd), "w");
	write_facts(res);

	status = run_job(job, resfd, ktapfd);

	kill_leftovers(gzip, gzip2);
	fprintf(res, "{\"type\":\"end\",\"status\":%d}\n", status);
	fclose(res);
	close(resfd);
	waitpid(gzip, NULL, 0);
	tcdrain(ttyfd);
	if (ktapfd >= 0) {
		close(ktapfd);
		waitpid(gzip2, NULL, 0);
		tcdrain(ktaptty);
	}
	end_machine(status);
	return 0;
}
