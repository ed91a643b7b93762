// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl: generic netlink plumbing on top of libmnl.
 *
 * One socket per run.  nl_open() resolves the rmem family through the
 * generic netlink controller, nl_msg() and the nl_put helpers build a
 * request in nl->tx, nl_run() sends it and hands every reply message to
 * a callback until the final ack (doit) or NLMSG_DONE (dump).  Every
 * request asks for an ack, so both kinds end the same way.  A monitor
 * instead joins a multicast group with nl_join_group() and reads events
 * with nl_recv_events().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rmem.h>

#include "nl.h"
#include "utils.h"

/* State of one nl_run(), passed to the libmnl callbacks. */
struct nl_run_ctx {
	struct nl *nl;
	mnl_cb_t cb;
	void *data;
	bool stopped;	/* cb asked to stop: drain the rest of the reply */
	bool failed;	/* cb failed and printed why */
};

static struct nlmsghdr *nl_msg_type(struct nl *nl, uint16_t type,
				    uint8_t cmd, uint8_t version,
				    uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->tx);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	nl->req = nlh;
	nl->overflow = false;
	return nlh;
}

struct nlmsghdr *nl_msg(struct nl *nl, uint8_t cmd, uint16_t flags)
{
	return nl_msg_type(nl, nl->family, cmd, RMEM_FAMILY_VERSION, flags);
}

struct nlattr *nl_nest_start(struct nl *nl, uint16_t type)
{
	struct nlattr *nest;

	nest = mnl_attr_nest_start_check(nl->req, NL_TX_SIZE, type);
	if (!nest)
		nl->overflow = true;
	return nest;
}

void nl_nest_end(struct nl *nl, struct nlattr *nest)
{
	if (nest)
		mnl_attr_nest_end(nl->req, nest);
}

void nl_put_strz(struct nl *nl, uint16_t type, const char *str)
{
	if (!mnl_attr_put_strz_check(nl->req, NL_TX_SIZE, type, str))
		nl->overflow = true;
}

void nl_put_flag(struct nl *nl, uint16_t type)
{
	if (!mnl_attr_put_check(nl->req, NL_TX_SIZE, type, 0, NULL))
		nl->overflow = true;
}

void nl_put_u8(struct nl *nl, uint16_t type, uint8_t val)
{
	if (!mnl_attr_put_u8_check(nl->req, NL_TX_SIZE, type, val))
		nl->overflow = true;
}

void nl_put_u16(struct nl *nl, uint16_t type, uint16_t val)
{
	if (!mnl_attr_put_u16_check(nl->req, NL_TX_SIZE, type, val))
		nl->overflow = true;
}

void nl_put_u32(struct nl *nl, uint16_t type, uint32_t val)
{
	if (!mnl_attr_put_u32_check(nl->req, NL_TX_SIZE, type, val))
		nl->overflow = true;
}

void nl_put_u64(struct nl *nl, uint16_t type, uint64_t val)
{
	if (!mnl_attr_put_u64_check(nl->req, NL_TX_SIZE, type, val))
		nl->overflow = true;
}

void nl_put_data(struct nl *nl, uint16_t type, const void *data, size_t len)
{
	if (!mnl_attr_put_check(nl->req, NL_TX_SIZE, type, len, data))
		nl->overflow = true;
}

void nl_put_addr(struct nl *nl, uint16_t type_v4, uint16_t type_v6,
		 uint16_t type_port, const struct inet_addr *a)
{
	nl_put_data(nl, a->family == AF_INET ? type_v4 : type_v6, a->addr,
		    inet_addr_len(a->family));
	if (type_port)
		nl_put_u16(nl, type_port, a->port);
}

int nl_get_addr(const struct nlattr *v4, const struct nlattr *v6,
		const struct nlattr *port, struct inet_addr *a)
{
	const struct nlattr *attr = v4 ? v4 : v6;

	memset(a, 0, sizeof(*a));
	if (!attr)
		return -1;
	a->family = v4 ? AF_INET : AF_INET6;
	if (mnl_attr_get_payload_len(attr) != inet_addr_len(a->family))
		return -1;
	memcpy(a->addr, mnl_attr_get_payload(attr), inet_addr_len(a->family));
	if (port)
		a->port = mnl_attr_get_u16(port);
	return 0;
}

static int nl_parse_one(const struct nlattr *attr, const struct nlattr **tb,
			uint16_t max, const enum mnl_attr_data_type *policy)
{
	uint16_t type = mnl_attr_get_type(attr);

	if (type > max)
		return 0;
	if (policy && policy[type] != MNL_TYPE_UNSPEC &&
	    mnl_attr_validate(attr, policy[type]) < 0) {
		pr_err("malformed attribute %u in a kernel reply", type);
		return -1;
	}
	tb[type] = attr;
	return 0;
}

int nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	     uint16_t max, const enum mnl_attr_data_type *policy)
{
	const struct nlattr *attr;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN) {
		pr_err("truncated kernel reply");
		return -1;
	}
	mnl_attr_for_each(attr, nlh, GENL_HDRLEN)
		if (nl_parse_one(attr, tb, max, policy) < 0)
			return -1;
	return 0;
}

int nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		    uint16_t max, const enum mnl_attr_data_type *policy)
{
	const struct nlattr *attr;

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_for_each_nested(attr, nest)
		if (nl_parse_one(attr, tb, max, policy) < 0)
			return -1;
	return 0;
}

/*
 * Type of the attribute of the last request found at the byte offset
 * that the extended ack attribute @ext holds, or -1.
 */
static int nl_req_attr_type(const struct nl *nl, const struct nlattr *ext)
{
	uint32_t off = mnl_attr_get_u32(ext);
	const struct nlattr *attr;

	if (off < mnl_nlmsg_size(GENL_HDRLEN) ||
	    off + sizeof(*attr) > nl->req->nlmsg_len)
		return -1;
	attr = (const struct nlattr *)((const char *)nl->req + off);
	return mnl_attr_get_type(attr);
}

/* Collect the extended ack TLVs found at payload offset @off. */
static void nl_parse_extack(struct nl *nl, const struct nlmsghdr *nlh,
			    size_t off)
{
	struct nl_err *err = &nl->err;
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    off > mnl_nlmsg_get_payload_len(nlh))
		return;

	mnl_attr_for_each(attr, nlh, off) {
		switch (mnl_attr_get_type(attr)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
				snprintf(err->msg, sizeof(err->msg), "%s",
					 mnl_attr_get_str(attr));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
				err->bad_type = nl_req_attr_type(nl, attr);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
				err->miss_type = mnl_attr_get_u32(attr);
			break;
		case NLMSGERR_ATTR_MISS_NEST:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
				err->miss_nest = nl_req_attr_type(nl, attr);
			break;
		}
	}
}

/* Record a kernel error (@error < 0) and its extended ack. */
static int nl_set_err(struct nl *nl, const struct nlmsghdr *nlh,
		      int error, size_t off)
{
	nl->err.error = error < 0 ? error : -error;
	nl_parse_extack(nl, nlh, off);
	errno = -nl->err.error;
	return MNL_CB_ERROR;
}

static int nl_data_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl_run_ctx *ctx = arg;
	int ret;

	/* After a stop or a failure, read on to the end of the reply. */
	if (ctx->stopped || !ctx->cb)
		return MNL_CB_OK;
	ret = ctx->cb(nlh, ctx->data);
	if (ret == MNL_CB_ERROR)
		ctx->failed = true;
	if (ret != MNL_CB_OK)
		ctx->stopped = true;
	return MNL_CB_OK;
}

/* NLMSG_ERROR: an ack (error 0) ends a doit request, else it failed. */
static int nl_error_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl_run_ctx *ctx = arg;
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	/* Unless capped, the whole request is echoed before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len > sizeof(e->msg))
		off += e->msg.nlmsg_len - sizeof(e->msg);

	if (e->error)
		return nl_set_err(ctx->nl, nlh, e->error, off);
	/* Success may still carry a warning. */
	nl_parse_extack(ctx->nl, nlh, off);
	if (ctx->nl->err.msg[0])
		pr_err("warning: %s", ctx->nl->err.msg);
	return MNL_CB_STOP;
}

/* NLMSG_DONE ends a dump; its payload is the dump's error code. */
static int nl_done_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl_run_ctx *ctx = arg;
	const int *error = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(*error) && *error)
		return nl_set_err(ctx->nl, nlh, *error, sizeof(*error));
	return MNL_CB_STOP;
}

/*
 * Send nl->req and run the receive loop.  Local failures and callback
 * failures are printed here; a kernel error is left in nl->err for the
 * caller to report.
 */
static int nl_exchange(struct nl *nl, mnl_cb_t cb, void *data)
{
	/* Not const: libmnl's prototype does not take a const array. */
	static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = nl_error_cb,
		[NLMSG_DONE] = nl_done_cb,
	};
	struct nl_run_ctx ctx = { .nl = nl, .cb = cb, .data = data };
	ssize_t len;
	int ret;

	memset(&nl->err, 0, sizeof(nl->err));
	nl->err.bad_type = -1;
	nl->err.miss_type = -1;
	nl->err.miss_nest = -1;

	if (nl->overflow) {
		pr_err("request too large");
		return -1;
	}
	if (mnl_socket_sendto(nl->sock, nl->req, nl->req->nlmsg_len) < 0) {
		pr_err("netlink send: %s", strerror(errno));
		return -1;
	}

	do {
		len = mnl_socket_recvfrom(nl->sock, nl->rx, NL_RX_SIZE);
		if (len < 0 && errno == ENOBUFS) {
			/* the kernel could not queue its answer: it may
			 * or may not have done what was asked */
			pr_err("netlink receive: %s: the kernel's answer was lost; the command may have taken effect (check with show)",
			       strerror(errno));
			return -1;
		}
		if (len < 0) {
			pr_err("netlink receive: %s", strerror(errno));
			return -1;
		}
		ret = mnl_cb_run2(nl->rx, len, nl->req->nlmsg_seq, nl->portid,
				  nl_data_cb, &ctx, ctl_cbs,
				  ARRAY_SIZE(ctl_cbs));
	} while (ret > MNL_CB_STOP);

	if (ret < 0) {
		if (nl->err.error)
			return -1;
		if (errno == EINTR)
			pr_err("dump interrupted by a concurrent change, try again");
		else
			pr_err("netlink: %s", strerror(errno));
		return -1;
	}
	return ctx.failed ? -1 : 0;
}

/*
 * The permission check of genetlink says nothing but EPERM; rmem's own
 * refusals with EPERM (a volume of another host) come with a message.
 */
static const char *nl_strerror(int error, bool has_msg)
{
	if (error == EPERM && !has_msg)
		return "Operation not permitted (are you root?)";
	return strerror(error);
}

/* @what: said before the error when the kernel gave nothing else, or NULL */
static void nl_perror(const struct nl *nl, const char *what)
{
	const struct nl_err *err = &nl->err;
	const char *str = nl_strerror(-err->error, err->msg[0]);

	if (err->msg[0])
		pr_err("%s: %s", err->msg, str);
	else if (err->miss_type >= 0 && err->miss_nest >= 0)
		pr_err("missing attribute %d in nest %d: %s",
		       err->miss_type, err->miss_nest, str);
	else if (err->miss_type >= 0)
		pr_err("missing attribute %d: %s", err->miss_type, str);
	else if (err->bad_type >= 0)
		pr_err("invalid attribute %d: %s", err->bad_type, str);
	else if (what)
		pr_err("%s: %s", what, str);
	else
		pr_err("%s", str);
}

int nl_run(struct nl *nl, mnl_cb_t cb, void *data)
{
	return nl_run_newer(nl, cb, data, NULL);
}

/*
 * A command the family does not have is refused by genetlink itself with
 * EOPNOTSUPP and no message; rmem's own refusals with it come with one.
 */
int nl_run_newer(struct nl *nl, mnl_cb_t cb, void *data, const char *unknown)
{
	int ret = nl_exchange(nl, cb, data);

	if (ret < 0 && nl->err.error) {
		if (unknown && nl->err.error == -EOPNOTSUPP && !nl->err.msg[0])
			pr_err("%s: %s", unknown, strerror(EOPNOTSUPP));
		else
			nl_perror(nl, NULL);
	}
	return ret;
}

int nl_join_group(struct nl *nl, uint32_t group)
{
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		pr_err("cannot join the \"%s\" multicast group: %s",
		       RMEM_MCGRP_EVENTS, strerror(errno));
		return -1;
	}
	return 0;
}

/* A bad event is reported by the callback and does not end the batch. */
static int nl_event_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct nl_run_ctx *ctx = arg;

	ctx->cb(nlh, ctx->data);
	return MNL_CB_OK;
}

int nl_recv_events(struct nl *nl, mnl_cb_t cb, void *data)
{
	struct nl_run_ctx ctx = { .nl = nl, .cb = cb, .data = data };
	ssize_t len;

	len = mnl_socket_recvfrom(nl->sock, nl->rx, NL_RX_SIZE);
	if (len < 0)
		return -1;
	/* Sequence number and port 0: multicast, nothing to match. */
	if (mnl_cb_run(nl->rx, len, 0, 0, nl_event_cb, &ctx) < 0)
		return -1;
	return 0;
}

int nl_fd(const struct nl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

static int nl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	static const enum mnl_attr_data_type policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = MNL_TYPE_U16,
		[CTRL_ATTR_VERSION] = MNL_TYPE_U32,
		[CTRL_ATTR_MCAST_GROUPS] = MNL_TYPE_NESTED,
	};
	static const enum mnl_attr_data_type
		grp_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
		[CTRL_ATTR_MCAST_GRP_NAME] = MNL_TYPE_NUL_STRING,
		[CTRL_ATTR_MCAST_GRP_ID] = MNL_TYPE_U32,
	};
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlattr *gtb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	const struct nlattr *grp;
	struct nl *nl = data;

	if (nl_parse(nlh, tb, CTRL_ATTR_MAX, policy) < 0)
		return MNL_CB_ERROR;
	if (!tb[CTRL_ATTR_FAMILY_ID]) {
		pr_err("no family id in the netlink controller's reply");
		return MNL_CB_ERROR;
	}
	nl->family = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		nl->version = mnl_attr_get_u32(tb[CTRL_ATTR_VERSION]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return MNL_CB_OK;

	mnl_attr_for_each_nested(grp, tb[CTRL_ATTR_MCAST_GROUPS]) {
		if (nl_parse_nested(grp, gtb, CTRL_ATTR_MCAST_GRP_MAX,
				    grp_policy) < 0)
			return MNL_CB_ERROR;
		if (gtb[CTRL_ATTR_MCAST_GRP_NAME] &&
		    gtb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(mnl_attr_get_str(gtb[CTRL_ATTR_MCAST_GRP_NAME]),
			    RMEM_MCGRP_EVENTS))
			nl->events_group =
				mnl_attr_get_u32(gtb[CTRL_ATTR_MCAST_GRP_ID]);
	}
	return MNL_CB_OK;
}

static int nl_resolve_family(struct nl *nl)
{
	nl_msg_type(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	nl_put_strz(nl, CTRL_ATTR_FAMILY_NAME, RMEM_FAMILY_NAME);

	if (nl_exchange(nl, nl_family_cb, nl) < 0) {
		if (nl->err.error == -ENOENT)
			pr_err("kernel module rmem is not loaded (generic netlink family \"%s\" not found)",
			       RMEM_FAMILY_NAME);
		else if (nl->err.error)
			/* e.g. a bare ENOBUFS: the controller had no memory */
			nl_perror(nl, "cannot look up generic netlink family \"" RMEM_FAMILY_NAME "\"");
		return -1;
	}
	if (!nl->family) {
		pr_err("the netlink controller did not return family \"%s\"",
		       RMEM_FAMILY_NAME);
		return -1;
	}
	return 0;
}

int nl_open(struct nl *nl)
{
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->tx = calloc(1, NL_TX_SIZE);
	nl->rx = calloc(1, NL_RX_SIZE);
	if (!nl->tx || !nl->rx) {
		pr_err("out of memory");
		goto err;
	}

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		pr_err("cannot open a generic netlink socket: %s",
		       strerror(errno));
		goto err;
	}
	/* Best effort: old kernels only lose the detailed error reports. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		pr_err("cannot bind the netlink socket: %s", strerror(errno));
		goto err;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);

	if (nl_resolve_family(nl) < 0)
		goto err;
	return 0;
err:
	nl_close(nl);
	return -1;
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl->tx);
	free(nl->rx);
	memset(nl, 0, sizeof(*nl));
}

void nl_wipe(struct nl *nl)
{
	explicit_bzero(nl->tx, NL_TX_SIZE);
}
