// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl monitor: print the events of the "events" multicast group until
 * interrupted.
 *
 * SIGINT and SIGTERM are blocked except while waiting in ppoll(), so a
 * signal either interrupts the wait or is seen before the next one: the
 * monitor always ends cleanly with status 0.  Each event is flushed at
 * once for readers on a pipe.
 */
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/rmem.h>

#include "json_print.h"
#include "rmemctl.h"
#include "utils.h"

static volatile sig_atomic_t monitor_stop;

static void monitor_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl [ -j ] monitor\n"
		"       rmemctl monitor help\n"
		"Prints an event per line until interrupted:\n"
		"  a device changed state, \"rmem0: state live ...\"\n"
		"  a thin device's server had no room for an extent,\n"
		"  \"rmem0: ... nospc-extent N ...\"\n"
		"  a device with replicas started, went on with or ended a\n"
		"  resync, \"rmem0: ... resync running|idle N/M ...\"\n");
}

static void monitor_signal(int sig)
{
	monitor_stop = 1;
}

/* Print an event of the rmem family; anything else is ignored. */
static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nl *nl = data;
	const struct genlmsghdr *genl;

	if (nlh->nlmsg_type != nl->family ||
	    mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	genl = mnl_nlmsg_get_payload(nlh);

	switch (genl->cmd) {
	case RMEM_CMD_DEV_STATE_NTF:
	case RMEM_CMD_DEV_NOSPC_NTF:
	case RMEM_CMD_DEV_RESYNC_NTF:
		dev_print_msg(nlh, true);
		break;
	default:
		/* An event of a newer kernel. */
		return MNL_CB_OK;
	}
	fflush(stdout);
	return MNL_CB_OK;
}

/*
 * Catch SIGINT and SIGTERM and block them; @waitmask gets the mask to
 * wait with, where they are not blocked.
 */
static int monitor_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = monitor_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, waitmask) < 0) {
		pr_err("sigprocmask: %s", strerror(errno));
		return -1;
	}
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 ||
	    sigaction(SIGTERM, &sa, NULL) < 0) {
		pr_err("sigaction: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_monitor(struct rmemctl *ctl)
{
	const char *word = arg_next(ctl);
	struct pollfd pfd;
	sigset_t waitmask;
	struct nl *nl;

	if (word && arg_is_help(word)) {
		monitor_usage(stdout);
		return 0;
	}
	if (word)
		return arg_unknown(word, monitor_usage);

	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	if (!nl->events_group) {
		pr_err("the rmem module has no \"%s\" multicast group",
		       RMEM_MCGRP_EVENTS);
		return -1;
	}
	if (monitor_signals(&waitmask) < 0 ||
	    nl_join_group(nl, nl->events_group) < 0)
		return -1;

	pfd.fd = nl_fd(nl);
	pfd.events = POLLIN;
	while (!monitor_stop) {
		if (ppoll(&pfd, 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			pr_err("poll: %s", strerror(errno));
			return -1;
		}
		if (nl_recv_events(nl, monitor_cb, nl) == 0)
			continue;
		if (errno == ENOBUFS) {
			pr_err("warning: events lost (receive buffer overflow)");
			continue;
		}
		pr_err("netlink receive: %s", strerror(errno));
		return -1;
	}
	return 0;
}
