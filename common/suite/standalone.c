/* When the suite itself is PID 1 (booted with rdinit=/bin/sticky-suite, before the
 * harness init exists): mount the basics, open the result channel, power off after. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "guest.h"

void standalone_start(void)
{
	mkdir("/proc", 0755), mkdir("/dev", 0755), mkdir("/sys", 0755), mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", MS_STRICTATIME, "mode=1777");
	#ifdef RESULT_NULL
	int fd = open("/dev/null", O_WRONLY | O_NOCTTY);
#else
	int fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);
#endif
	if (fd >= 0 && fd != 3) {
		dup2(fd, 3);
		close(fd);
	}
	setenv("STICKY_RESULT_FD", "3", 1);
}

void standalone_end(int status)
{
	struct jb *j = malloc(sizeof *j);
	out_init();
	if (j) {
		jb_begin(j);
		jb_str(j, "type", "end");
		jb_int(j, "status", status);
		jb_end(j);
		out_json(j);
	}
	out_flush();
	sync();
	if (ioperm(0xf4, 4, 1) == 0)
		outb((unsigned char)status, 0xf4);
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
