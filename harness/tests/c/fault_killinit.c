// SPDX-License-Identifier: GPL-2.0
/*
 * fault_killinit: make pid 1 die, so the kernel panics ("Attempted to kill
 * init!"). A fixture of harness/tests/test_faults.py: init ignores every
 * signal sent from user space, so this seizes it with ptrace, stops it with
 * PTRACE_INTERRUPT and resumes it at address 0; the fault's SIGSEGV is one
 * init cannot ignore.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	struct user_regs_struct regs;
	int status;

	if (ptrace(PTRACE_SEIZE, 1, NULL, NULL) ||
	    ptrace(PTRACE_INTERRUPT, 1, NULL, NULL) ||
	    waitpid(1, &status, __WALL) != 1 ||
	    ptrace(PTRACE_GETREGS, 1, NULL, &regs)) {
		fprintf(stderr, "fault_killinit: ptrace pid 1: %s\n",
			strerror(errno));
		return 1;
	}
	regs.rip = 0;
	if (ptrace(PTRACE_SETREGS, 1, NULL, &regs) ||
	    ptrace(PTRACE_DETACH, 1, NULL, NULL)) {
		fprintf(stderr, "fault_killinit: ptrace pid 1: %s\n",
			strerror(errno));
		return 1;
	}
	fprintf(stderr, "fault_killinit: pid 1 resumed at address 0\n");
	pause();
	return 0;
}
