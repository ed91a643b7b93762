// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink ABI test of the rmem generic netlink family (kselftest harness).
 *
 * Sends well-formed and malformed requests and checks the error code, the
 * extack message and the attribute the kernel blames.  Needs rmem.ko loaded.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rmem.h>

#include "kselftest_harness.h"

/* What the kernel answered to one request. */
struct reply {
	int error;		/* 0 or negative errno from NLMSG_ERROR */
	int nmsgs;		/* data messages received */
	char msg[256];		/* extack message, "" if none */
	int bad_type;		/* type of the attribute at NLMSGERR_ATTR_OFFS */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE, -1 if none */
	bool has_mcgrp_events;	/* CTRL replies: "events" group present */
	int family_version;
	uint16_t family_id;
};

struct req {
	char buf[16384];
	struct nlmsghdr *nlh;
};

static struct nlmsghdr *req_start(struct req *r, uint16_t type, uint8_t cmd,
				  uint16_t flags, uint8_t version)
{
	struct genlmsghdr *g;

	memset(r->buf, 0, sizeof(r->buf));
	r->nlh = mnl_nlmsg_put_header(r->buf);
	r->nlh->nlmsg_type = type;
	r->nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->nlh->nlmsg_seq = time(NULL);
	g = mnl_nlmsg_put_extra_header(r->nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return r->nlh;
}

/* Find which attribute an offset into our request points at. */
static int attr_type_at(const struct nlmsghdr *req, uint32_t offs)
{
	const struct nlattr *a;

	if (!req || offs < NLMSG_HDRLEN || offs >= req->nlmsg_len)
		return -1;
	a = (const struct nlattr *)((const char *)req + offs);
	return mnl_attr_get_type(a);
}

static void parse_ctrl(const struct nlmsghdr *nlh, struct reply *rep)
{
	const struct nlattr *a, *grp, *ga;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			rep->family_id = mnl_attr_get_u16(a);
			break;
		case CTRL_ATTR_VERSION:
			rep->family_version = mnl_attr_get_u32(a);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			mnl_attr_for_each_nested(grp, a)
				mnl_attr_for_each_nested(ga, grp)
					if (mnl_attr_get_type(ga) == CTRL_ATTR_MCAST_GRP_NAME &&
					    !strcmp(mnl_attr_get_str(ga), RMEM_MCGRP_EVENTS))
						rep->has_mcgrp_events = true;
			break;
		}
	}
}

/* Send @req, collect the whole answer into @rep.  Returns 0 or -errno. */
static int transact(struct mnl_socket *nl, const struct nlmsghdr *req,
		    struct reply *rep)
{
	char buf[16384];
	bool done = false;
	int len;

	memset(rep, 0, sizeof(*rep));
	rep->bad_type = -1;
	rep->miss_type = -1;
	if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
		return -errno;

	while (!done) {
		const struct nlmsghdr *nlh;

		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			return -errno;
		for (nlh = (void *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			const struct nlmsgerr *e;
			const struct nlattr *a;
			size_t off;

			/*
			 * A dump ends with NLMSG_DONE, whose payload is the
			 * dump's error code (then its extack): a failed dump
			 * must not read as an empty one.
			 */
			if (nlh->nlmsg_type == NLMSG_DONE) {
				done = true;
				if (mnl_nlmsg_get_payload_len(nlh) < sizeof(int)) {
					rep->error = -EBADMSG;
					break;
				}
				rep->error = *(int *)mnl_nlmsg_get_payload(nlh);
				off = sizeof(int);
			} else if (nlh->nlmsg_type != NLMSG_ERROR) {
				rep->nmsgs++;
				if (nlh->nlmsg_type == GENL_ID_CTRL)
					parse_ctrl(nlh, rep);
				continue;
			} else {
				e = mnl_nlmsg_get_payload(nlh);
				rep->error = e->error;
				done = true;
				off = sizeof(*e);
			}
			if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
				break;
			mnl_attr_for_each(a, nlh, off) {
				switch (mnl_attr_get_type(a)) {
				case NLMSGERR_ATTR_MSG:
					snprintf(rep->msg, sizeof(rep->msg), "%s",
						 mnl_attr_get_str(a));
					break;
				case NLMSGERR_ATTR_OFFS:
					rep->bad_type = attr_type_at(req,
								     mnl_attr_get_u32(a));
					break;
				case NLMSGERR_ATTR_MISS_TYPE:
					rep->miss_type = mnl_attr_get_u32(a);
					break;
				}
			}
			break;
		}
	}
	return 0;
}

FIXTURE(rmem) {
	struct mnl_socket *nl;
	uint16_t family;
	struct req req;
	struct reply rep;
};

FIXTURE_SETUP(rmem)
{
	struct nlmsghdr *nlh;
	int one = 1;

	self->nl = mnl_socket_open(NETLINK_GENERIC);
	ASSERT_NE(NULL, self->nl);
	ASSERT_EQ(0, mnl_socket_bind(self->nl, 0, MNL_SOCKET_AUTOPID));
	ASSERT_EQ(0, mnl_socket_setsockopt(self->nl, NETLINK_EXT_ACK, &one, sizeof(one)));
	ASSERT_EQ(0, mnl_socket_setsockopt(self->nl, NETLINK_CAP_ACK, &one, sizeof(one)));

	nlh = req_start(&self->req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, RMEM_FAMILY_NAME);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	ASSERT_EQ(0, self->rep.error) TH_LOG("family rmem not found: is rmem.ko loaded?");
	self->family = self->rep.family_id;
	ASSERT_NE(0, self->family);
}

FIXTURE_TEARDOWN(rmem)
{
	if (self->nl)
		mnl_socket_close(self->nl);
}

TEST_F(rmem, family_version_and_events_group)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, RMEM_FAMILY_NAME);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(RMEM_FAMILY_VERSION, self->rep.family_version);
	EXPECT_TRUE(self->rep.has_mcgrp_events);
}

TEST_F(rmem, dev_dump_is_empty)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, NLM_F_DUMP,
			RMEM_FAMILY_VERSION);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_EQ(0, self->rep.nmsgs);
}

TEST_F(rmem, server_dump_is_empty)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, self->family, RMEM_CMD_SERVER_GET,
			NLM_F_DUMP, RMEM_FAMILY_VERSION);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(0, self->rep.error);
	EXPECT_EQ(0, self->rep.nmsgs);
}

TEST_F(rmem, server_dump_of_unknown_name_fails)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = req_start(&self->req, self->family, RMEM_CMD_SERVER_GET,
			NLM_F_DUMP, RMEM_FAMILY_VERSION);
	nest = mnl_attr_nest_start(nlh, RMEM_A_SERVER);
	mnl_attr_put_strz(nlh, RMEM_A_SERVER_NAME, "nosuch");
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-ENOENT, self->rep.error);
	EXPECT_STREQ("no such server", self->rep.msg);
	EXPECT_EQ(0, self->rep.nmsgs);
}

TEST_F(rmem, dev_get_without_nest_is_rejected)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, 0,
			RMEM_FAMILY_VERSION);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing device attributes", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV, self->rep.miss_type);
}

TEST_F(rmem, dev_get_without_name_is_rejected)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, 0,
			RMEM_FAMILY_VERSION);
	nest = mnl_attr_nest_start(nlh, RMEM_A_DEV);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing device name", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.miss_type);
}

TEST_F(rmem, dev_get_overlong_name_fails_policy)
{
	char name[100];
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, 0,
			RMEM_FAMILY_VERSION);
	nest = mnl_attr_nest_start(nlh, RMEM_A_DEV);
	mnl_attr_put_strz(nlh, RMEM_A_DEV_NAME, name);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	/* the policy's length bound: no NUL within RMEM_NAME_MAX bytes */
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("Attribute failed policy validation", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.bad_type);
}

TEST_F(rmem, dev_get_name_without_nul_fails_policy)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, 0,
			RMEM_FAMILY_VERSION);
	nest = mnl_attr_nest_start(nlh, RMEM_A_DEV);
	mnl_attr_put_u32(nlh, RMEM_A_DEV_NAME, 0x6d656d72);
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("Attribute failed policy validation", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.bad_type);
}

TEST_F(rmem, unknown_attribute_is_rejected)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, 0,
			RMEM_FAMILY_VERSION);
	mnl_attr_put_u32(nlh, RMEM_A_MAX + 10, 1);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_NE(0, self->rep.msg[0]);
	EXPECT_EQ(RMEM_A_MAX + 10, self->rep.bad_type);
}

TEST_F(rmem, unknown_device_is_enodev)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = req_start(&self->req, self->family, RMEM_CMD_DEV_GET, 0,
			RMEM_FAMILY_VERSION);
	nest = mnl_attr_nest_start(nlh, RMEM_A_DEV);
	mnl_attr_put_strz(nlh, RMEM_A_DEV_NAME, "rmem99");
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-ENODEV, self->rep.error);
	EXPECT_STREQ("no such device", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.bad_type);
}

TEST_F(rmem, unknown_server_is_enoent)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = req_start(&self->req, self->family, RMEM_CMD_SERVER_GET, 0,
			RMEM_FAMILY_VERSION);
	nest = mnl_attr_nest_start(nlh, RMEM_A_SERVER);
	mnl_attr_put_strz(nlh, RMEM_A_SERVER_NAME, "nosuch");
	mnl_attr_nest_end(nlh, nest);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-ENOENT, self->rep.error);
	EXPECT_STREQ("no such server", self->rep.msg);
	EXPECT_EQ(RMEM_A_SERVER_NAME, self->rep.bad_type);
}

TEST_F(rmem, unknown_command_is_rejected)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, self->family, RMEM_CMD_MAX + 1, 0,
			RMEM_FAMILY_VERSION);
	ASSERT_EQ(0, transact(self->nl, nlh, &self->rep));
	EXPECT_EQ(-EOPNOTSUPP, self->rep.error);
}

/* Start a request for @cmd with the object nest @nest_type open. */
static struct nlattr *obj_start(struct __test_metadata *_metadata,
				FIXTURE_DATA(rmem) *self, uint8_t cmd,
				uint16_t nest_type)
{
	struct nlmsghdr *nlh;

	nlh = req_start(&self->req, self->family, cmd, 0, RMEM_FAMILY_VERSION);
	return mnl_attr_nest_start(nlh, nest_type);
}

static void put_ipv4(struct nlmsghdr *nlh, uint16_t type, const char *a)
{
	struct in_addr in;

	inet_pton(AF_INET, a, &in);
	mnl_attr_put(nlh, type, 4, &in);
}

static int run(FIXTURE_DATA(rmem) *self, struct nlattr *nest)
{
	mnl_attr_nest_end(self->req.nlh, nest);
	return transact(self->nl, self->req.nlh, &self->rep);
}

TEST_F(rmem, server_add_without_name)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_SERVER_ADD,
				     RMEM_A_SERVER);

	put_ipv4(self->req.nlh, RMEM_A_SERVER_LISTEN_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_SERVER_POOL_SIZE, 1 << 20);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing server name", self->rep.msg);
	EXPECT_EQ(RMEM_A_SERVER_NAME, self->rep.miss_type);
}

TEST_F(rmem, server_add_short_ipv4_fails_policy)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_SERVER_ADD,
				     RMEM_A_SERVER);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_SERVER_NAME, "s");
	mnl_attr_put(self->req.nlh, RMEM_A_SERVER_LISTEN_IPV4, 3, "abc");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_SERVER_POOL_SIZE, 1 << 20);
	ASSERT_EQ(0, run(self, n));
	/* NLA_POLICY_EXACT_LEN(4) */
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("binary attribute size out of range", self->rep.msg);
	EXPECT_EQ(RMEM_A_SERVER_LISTEN_IPV4, self->rep.bad_type);
}

TEST_F(rmem, server_add_tiny_pool)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_SERVER_ADD,
				     RMEM_A_SERVER);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_SERVER_NAME, "s");
	put_ipv4(self->req.nlh, RMEM_A_SERVER_LISTEN_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_SERVER_POOL_SIZE, 100);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("pool size must be between 4 KiB and 1 TiB", self->rep.msg);
	EXPECT_EQ(RMEM_A_SERVER_POOL_SIZE, self->rep.bad_type);
}

TEST_F(rmem, server_add_bad_mr_size)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_SERVER_ADD,
				     RMEM_A_SERVER);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_SERVER_NAME, "s");
	put_ipv4(self->req.nlh, RMEM_A_SERVER_LISTEN_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_SERVER_POOL_SIZE, 1 << 20);
	mnl_attr_put_u64(self->req.nlh, RMEM_A_SERVER_MR_SIZE, 12288);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("MR size must be a power of two between 4 KiB and 1 GiB",
		     self->rep.msg);
	EXPECT_EQ(RMEM_A_SERVER_MR_SIZE, self->rep.bad_type);
}

TEST_F(rmem, dev_add_zero_qps)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_QPS, 0);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("qps must be between 1 and 64", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_QPS, self->rep.bad_type);
}

TEST_F(rmem, dev_add_too_many_poll_qps)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_POLL_QPS, 64);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("poll-qps must be between 0 and 63", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_POLL_QPS, self->rep.bad_type);
}

TEST_F(rmem, dev_add_keepalive_too_short)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_KEEPALIVE_MS, 50);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("keep-alive interval must be 0 (off) or 100 ms to 60 s",
		     self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_KEEPALIVE_MS, self->rep.bad_type);
}

TEST_F(rmem, dev_add_loss_timeout_too_long)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_LOSS_TIMEOUT_MS, 3600001);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("loss timeout must be at most 1 hour", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_LOSS_TIMEOUT_MS, self->rep.bad_type);
}

TEST_F(rmem, dev_add_read_split_not_power_of_two)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_READ_SPLIT, 96 << 10);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("read split must be 0 (none) or a power of two from 64 KiB to 1 MiB",
		     self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_READ_SPLIT, self->rep.bad_type);
}

TEST_F(rmem, dev_add_read_depth_out_of_range)
{
	static const uint32_t bad[] = { 0, 17 };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
					     RMEM_A_DEV);

		put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
		mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
		mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_READ_DEPTH, bad[i]);
		ASSERT_EQ(0, run(self, n));
		EXPECT_EQ(-ERANGE, self->rep.error);
		EXPECT_STREQ("read depth must be between 1 and 16",
			     self->rep.msg);
		EXPECT_EQ(RMEM_A_DEV_READ_DEPTH, self->rep.bad_type);
	}
}

TEST_F(rmem, dev_add_two_address_families)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);
	static const uint8_t v6[16] = { [15] = 1 };

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put(self->req.nlh, RMEM_A_DEV_PEER_IPV6, sizeof(v6), v6);
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("give an IPv4 or an IPv6 address, not both", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_PEER_IPV6, self->rep.bad_type);
}

TEST_F(rmem, dev_add_without_size)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing device size", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_SIZE, self->rep.miss_type);
}

TEST_F(rmem, dev_add_size_of_wrong_type)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u32(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	ASSERT_EQ(0, run(self, n));
	EXPECT_NE(0, self->rep.error);
	EXPECT_NE(0, self->rep.msg[0]);
	EXPECT_EQ(RMEM_A_DEV_SIZE, self->rep.bad_type);
}

TEST_F(rmem, dev_add_unaligned_size)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 5000);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("device size must be a multiple of 4 KiB, at most 1 TiB",
		     self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_SIZE, self->rep.bad_type);
}

TEST_F(rmem, dev_del_without_name)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_DEL,
				     RMEM_A_DEV);

	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing device name", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.miss_type);
}

TEST_F(rmem, peer_del_without_peer)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_PEER_DEL,
				     RMEM_A_DEV);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_NAME, "rmem99");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing the server to drain (peer)", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_PEER, self->rep.miss_type);
}

TEST_F(rmem, peer_del_two_peers)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_PEER_DEL,
				     RMEM_A_DEV);
	struct nlattr *p;
	unsigned int i;

	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_NAME, "rmem99");
	for (i = 0; i < 2; i++) {
		p = mnl_attr_nest_start(self->req.nlh, RMEM_A_DEV_PEER);
		put_ipv4(self->req.nlh, RMEM_A_PEER_IPV4, "127.0.0.1");
		mnl_attr_nest_end(self->req.nlh, p);
	}
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("one server (peer) at a time", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_PEER, self->rep.bad_type);
}

TEST_F(rmem, peer_del_unknown_device)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_PEER_DEL,
				     RMEM_A_DEV);
	struct nlattr *p;

	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_NAME, "rmem99");
	p = mnl_attr_nest_start(self->req.nlh, RMEM_A_DEV_PEER);
	put_ipv4(self->req.nlh, RMEM_A_PEER_IPV4, "127.0.0.1");
	mnl_attr_nest_end(self->req.nlh, p);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ENODEV, self->rep.error);
	EXPECT_STREQ("no such device", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.bad_type);
}

TEST_F(rmem, peer_add_without_peer)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_PEER_ADD,
				     RMEM_A_DEV);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_NAME, "rmem99");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing the server to add (peer)", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_PEER, self->rep.miss_type);
}

TEST_F(rmem, peer_add_unknown_device)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_PEER_ADD,
				     RMEM_A_DEV);
	struct nlattr *p;

	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_NAME, "rmem99");
	p = mnl_attr_nest_start(self->req.nlh, RMEM_A_DEV_PEER);
	put_ipv4(self->req.nlh, RMEM_A_PEER_IPV4, "127.0.0.1");
	mnl_attr_nest_end(self->req.nlh, p);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ENODEV, self->rep.error);
	EXPECT_STREQ("no such device", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_NAME, self->rep.bad_type);
}

TEST_F(rmem, volume_del_without_volume)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_VOLUME_DEL,
				     RMEM_A_VOLUME);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_VOLUME_SERVER, "s");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing volume name", self->rep.msg);
	EXPECT_EQ(RMEM_A_VOLUME_NAME, self->rep.miss_type);
}

TEST_F(rmem, server_add_auth_out_of_range_fails_policy)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_SERVER_ADD,
				     RMEM_A_SERVER);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_SERVER_NAME, "s");
	put_ipv4(self->req.nlh, RMEM_A_SERVER_LISTEN_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_SERVER_POOL_SIZE, 1 << 20);
	mnl_attr_put_u32(self->req.nlh, RMEM_A_SERVER_AUTH,
			 RMEM_AUTH_REQUIRED + 1);
	ASSERT_EQ(0, run(self, n));
	/* NLA_POLICY_RANGE(NLA_U32, RMEM_AUTH_NONE, RMEM_AUTH_REQUIRED) */
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("integer out of range", self->rep.msg);
	EXPECT_EQ(RMEM_A_SERVER_AUTH, self->rep.bad_type);
}

TEST_F(rmem, host_add_without_key)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_HOST_ADD,
				     RMEM_A_HOST);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_SERVER, "s");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_ID, "h1");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("missing host key", self->rep.msg);
	EXPECT_EQ(RMEM_A_HOST_KEY, self->rep.miss_type);
}

TEST_F(rmem, host_add_identity_with_blank)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_HOST_ADD,
				     RMEM_A_HOST);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_SERVER, "s");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_ID, "h 1");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("host identity must be 1 to 63 printable characters, no blanks",
		     self->rep.msg);
	EXPECT_EQ(RMEM_A_HOST_ID, self->rep.bad_type);
}

TEST_F(rmem, host_add_all_zero_key)
{
	static const uint8_t zero[RMEM_KEY_LEN];
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_HOST_ADD,
				     RMEM_A_HOST);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_SERVER, "s");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_ID, "h1");
	mnl_attr_put(self->req.nlh, RMEM_A_HOST_KEY, sizeof(zero), zero);
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("an all-zero key is not a key", self->rep.msg);
	EXPECT_EQ(RMEM_A_HOST_KEY, self->rep.bad_type);
}

TEST_F(rmem, host_add_short_key_fails_policy)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_HOST_ADD,
				     RMEM_A_HOST);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_SERVER, "s");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_ID, "h1");
	mnl_attr_put(self->req.nlh, RMEM_A_HOST_KEY, 31,
		     "0123456789012345678901234567890");
	ASSERT_EQ(0, run(self, n));
	/* NLA_POLICY_EXACT_LEN(RMEM_KEY_LEN) */
	EXPECT_EQ(-ERANGE, self->rep.error);
	EXPECT_STREQ("binary attribute size out of range", self->rep.msg);
	EXPECT_EQ(RMEM_A_HOST_KEY, self->rep.bad_type);
}

TEST_F(rmem, host_add_unknown_server)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_HOST_ADD,
				     RMEM_A_HOST);

	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_SERVER, "no-such-server");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_HOST_ID, "h1");
	mnl_attr_put(self->req.nlh, RMEM_A_HOST_KEY, RMEM_KEY_LEN,
		     "0123456789abcdef0123456789abcdef");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ENOENT, self->rep.error);
	EXPECT_STREQ("no such server", self->rep.msg);
	EXPECT_EQ(RMEM_A_HOST_SERVER, self->rep.bad_type);
}

TEST_F(rmem, dev_add_key_without_identity)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put(self->req.nlh, RMEM_A_DEV_KEY, RMEM_KEY_LEN,
		     "0123456789abcdef0123456789abcdef");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("a key needs a host identity", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_HOST_ID, self->rep.miss_type);
}

TEST_F(rmem, dev_add_key_and_key_desc)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_HOST_ID, "h1");
	mnl_attr_put(self->req.nlh, RMEM_A_DEV_KEY, RMEM_KEY_LEN,
		     "0123456789abcdef0123456789abcdef");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_KEY_DESC, "rmem:x");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-EINVAL, self->rep.error);
	EXPECT_STREQ("give a key or a key description, not both", self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_KEY_DESC, self->rep.bad_type);
}

TEST_F(rmem, dev_add_key_desc_not_in_keyring)
{
	struct nlattr *n = obj_start(_metadata, self, RMEM_CMD_DEV_ADD,
				     RMEM_A_DEV);

	put_ipv4(self->req.nlh, RMEM_A_DEV_PEER_IPV4, "127.0.0.1");
	mnl_attr_put_u64(self->req.nlh, RMEM_A_DEV_SIZE, 1 << 20);
	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_HOST_ID, "h1");
	mnl_attr_put_strz(self->req.nlh, RMEM_A_DEV_KEY_DESC,
			  "rmem:no-such-key-anywhere");
	ASSERT_EQ(0, run(self, n));
	EXPECT_EQ(-ENOKEY, self->rep.error);
	EXPECT_STREQ("no usable \"logon\" key with this description in the caller's keyrings",
		     self->rep.msg);
	EXPECT_EQ(RMEM_A_DEV_KEY_DESC, self->rep.bad_type);
}

/* Every mutating command needs CAP_NET_ADMIN: try each as nobody. */
TEST_F(rmem, mutating_commands_need_admin)
{
	static const uint8_t cmds[] = {
		RMEM_CMD_SERVER_ADD, RMEM_CMD_SERVER_DEL, RMEM_CMD_DEV_ADD,
		RMEM_CMD_DEV_DEL, RMEM_CMD_VOLUME_DEL, RMEM_CMD_HOST_ADD,
		RMEM_CMD_HOST_DEL, RMEM_CMD_DEV_STATS_RESET,
		RMEM_CMD_DEV_PEER_DEL, RMEM_CMD_DEV_PEER_ADD,
	};
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		struct mnl_socket *nl;
		struct reply rep;
		struct req req;
		unsigned int i;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		/* a socket opened without privileges */
		nl = mnl_socket_open(NETLINK_GENERIC);
		if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID))
			_exit(11);
		for (i = 0; i < sizeof(cmds); i++) {
			req_start(&req, self->family, cmds[i], 0,
				  RMEM_FAMILY_VERSION);
			if (transact(nl, req.nlh, &rep) || rep.error != -EPERM)
				_exit(20 + i);
		}
		/* listing stays open to everyone */
		req_start(&req, self->family, RMEM_CMD_DEV_GET, NLM_F_DUMP,
			  RMEM_FAMILY_VERSION);
		if (transact(nl, req.nlh, &rep) || rep.error)
			_exit(30);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
