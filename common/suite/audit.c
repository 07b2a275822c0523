/*
 * One audit rule for the length of the log test.
 *
 * Mainline's may_follow_link() writes its AUDIT_ANOM_LINK record through
 * audit_log_path_denied(), which stays silent unless audit is enabled
 * (audit=1 on the kernel command line) and the task's audit context is
 * not a dummy, that is, unless some syscall rule exists. The rule added
 * here never matches a syscall (empty mask, action "never"): it only
 * makes the contexts real. With no audit daemon, kauditd prints each
 * record to the kernel log as "audit: type=1702 ...".
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "guest.h"

struct rule_msg {
	struct nlmsghdr h;
	struct audit_rule_data r;
};

/* Sends req to the kernel and reads one reply; its length or -errno. */
static ssize_t audit_roundtrip(struct nlmsghdr *req, char *reply, size_t n)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t r;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -errno;
	req->nlmsg_flags |= NLM_F_REQUEST;
	r = sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel));
	if (r >= 0)
		r = recv(fd, reply, n, 0);
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

/* add != 0: add the rule, else delete it. 0, or -1 with why set. */
int audit_rule(int add, char *why, size_t n)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *reply = (struct nlmsghdr *)buf;
	struct rule_msg m;
	ssize_t r;
	int ret = -EPROTO;

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_len = sizeof(m);
	m.h.nlmsg_type = add ? AUDIT_ADD_RULE : AUDIT_DEL_RULE;
	m.h.nlmsg_flags = NLM_F_ACK;
	m.r.flags = AUDIT_FILTER_EXIT;
	m.r.action = AUDIT_NEVER;
	r = audit_roundtrip(&m.h, buf, sizeof(buf));
	if (r < 0)
		ret = (int)r;
	else if (r >= (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
		 reply->nlmsg_type == NLMSG_ERROR)
		ret = ((struct nlmsgerr *)NLMSG_DATA(reply))->error;
	if (ret) {
		xfmt(why, n, "audit %s rule: %s (is the kernel built with CONFIG_AUDIT=y?)",
		     add ? "add" : "delete", strerror(-ret));
		return -1;
	}
	return 0;
}

/* audit_enabled as the kernel reports it (AUDIT_GET), or -1. */
int audit_enabled_now(void)
{
	char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr req = { .nlmsg_len = NLMSG_LENGTH(0), .nlmsg_type = AUDIT_GET };
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	ssize_t r = audit_roundtrip(&req, buf, sizeof(buf));

	if (r < (ssize_t)NLMSG_LENGTH(sizeof(struct audit_status)) || h->nlmsg_type != AUDIT_GET)
		return -1;
	return (int)((struct audit_status *)NLMSG_DATA(h))->enabled;
}
