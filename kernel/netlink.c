// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: generic netlink family "rmem".
 *
 * Every command has its own policy, every mutating command needs
 * CAP_NET_ADMIN, and every rejection carries an extack message naming the
 * offending attribute.  Device state changes are multicast on "events".
 */
#include <linux/log2.h>
#include <net/genetlink.h>
#include <linux/rmem.h>

#include "client.h"
#include "rmem.h"
#include "server.h"

static struct genl_family rmem_nl_family;

enum { RMEM_MCGRP_EVENTS_IDX };

#define RMEM_MIN_SIZE		SZ_4K

/* ---- policies ----------------------------------------------------------- */

static const struct nla_policy rmem_prefix_policy[RMEM_A_PREFIX_MAX + 1] = {
	[RMEM_A_PREFIX_IPV4] = NLA_POLICY_EXACT_LEN(4),
	[RMEM_A_PREFIX_IPV6] = NLA_POLICY_EXACT_LEN(16),
	[RMEM_A_PREFIX_LEN] = { .type = NLA_U8 },
};

static const struct nla_policy rmem_server_policy[RMEM_A_SERVER_MAX + 1] = {
	[RMEM_A_SERVER_NAME] = { .type = NLA_NUL_STRING, .len = RMEM_NAME_MAX - 1 },
	[RMEM_A_SERVER_LISTEN_IPV4] = NLA_POLICY_EXACT_LEN(4),
	[RMEM_A_SERVER_LISTEN_IPV6] = NLA_POLICY_EXACT_LEN(16),
	[RMEM_A_SERVER_LISTEN_PORT] = { .type = NLA_U16 },
	[RMEM_A_SERVER_POOL_SIZE] = { .type = NLA_U64 },
	[RMEM_A_SERVER_MR_SIZE] = { .type = NLA_U64 },
	[RMEM_A_SERVER_ALLOW] = NLA_POLICY_NESTED(rmem_prefix_policy),
};

static const struct nla_policy rmem_dev_policy[RMEM_A_DEV_MAX + 1] = {
	[RMEM_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = RMEM_NAME_MAX - 1 },
	[RMEM_A_DEV_PEER_IPV4] = NLA_POLICY_EXACT_LEN(4),
	[RMEM_A_DEV_PEER_IPV6] = NLA_POLICY_EXACT_LEN(16),
	[RMEM_A_DEV_PEER_PORT] = { .type = NLA_U16 },
	[RMEM_A_DEV_SIZE] = { .type = NLA_U64 },
	[RMEM_A_DEV_VOLUME] = { .type = NLA_NUL_STRING, .len = RMEM_VOLUME_MAX - 1 },
	[RMEM_A_DEV_QPS] = { .type = NLA_U32 },
	[RMEM_A_DEV_QUEUE_DEPTH] = { .type = NLA_U32 },
	[RMEM_A_DEV_FORCE] = { .type = NLA_FLAG },
};

static const struct nla_policy rmem_volume_policy[RMEM_A_VOLUME_MAX + 1] = {
	[RMEM_A_VOLUME_SERVER] = { .type = NLA_NUL_STRING, .len = RMEM_NAME_MAX - 1 },
	[RMEM_A_VOLUME_NAME] = { .type = NLA_NUL_STRING, .len = RMEM_VOLUME_MAX - 1 },
};

static const struct nla_policy rmem_server_op_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_SERVER] = NLA_POLICY_NESTED(rmem_server_policy),
};

static const struct nla_policy rmem_dev_op_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_DEV] = NLA_POLICY_NESTED(rmem_dev_policy),
};

static const struct nla_policy rmem_volume_op_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_VOLUME] = NLA_POLICY_NESTED(rmem_volume_policy),
};

/* ---- helpers ------------------------------------------------------------ */

static void *rmem_msg_put(struct sk_buff *skb, const struct rmem_msg *m)
{
	return genlmsg_put(skb, m->portid, m->seq, &rmem_nl_family, m->flags,
			   m->cmd);
}

/* Parse the object nest @type of a request; an extack names what is wrong. */
static int rmem_nl_nest(struct genl_info *info, int type, struct nlattr **tb,
			int max, const struct nla_policy *policy,
			const char *missing)
{
	if (GENL_REQ_ATTR_CHECK(info, type)) {
		rmem_set_err_msg(info->extack, missing);
		return -EINVAL;
	}
	return nla_parse_nested(tb, max, info->attrs[type], policy,
				info->extack);
}

static int rmem_nl_require(struct genl_info *info, struct nlattr *nest,
			   struct nlattr **tb, int type, const char *msg)
{
	if (tb[type])
		return 0;
	rmem_set_err_msg(info->extack, msg);
	NL_SET_ERR_ATTR_MISS(info->extack, nest, type);
	return -EINVAL;
}

/* One of @v4/@v6 (exactly one) and an optional port make a sockaddr. */
static int rmem_nl_get_addr(struct genl_info *info, struct nlattr *nest,
			    struct nlattr **tb, int v4, int v6, int port,
			    struct sockaddr_storage *ss, const char *what)
{
	u16 p = tb[port] ? nla_get_u16(tb[port]) : RMEM_DEFAULT_PORT;

	memset(ss, 0, sizeof(*ss));
	if (tb[v4] && tb[v6]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[v6],
				    "give an IPv4 or an IPv6 address, not both");
		return -EINVAL;
	}
	if (tb[port] && !p) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[port], "port must not be 0");
		return -EINVAL;
	}
	if (tb[v4]) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		sin->sin_addr.s_addr = nla_get_in_addr(tb[v4]);
		return 0;
	}
	if (tb[v6]) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		sin6->sin6_addr = nla_get_in6_addr(tb[v6]);
		return 0;
	}
	rmem_set_err_msg(info->extack, what);
	NL_SET_ERR_ATTR_MISS(info->extack, nest, v4);
	return -EINVAL;
}

/**
 * rmem_nl_put_addr() - put an address as an IPv4 or IPv6 attribute
 * @skb: message
 * @v4type: attribute type for IPv4
 * @v6type: attribute type for IPv6
 * @ss: the address
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_nl_put_addr(struct sk_buff *skb, int v4type, int v6type,
		     const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return nla_put_in_addr(skb, v4type,
				       ((struct sockaddr_in *)ss)->sin_addr.s_addr);
	if (ss->ss_family == AF_INET6)
		return nla_put_in6_addr(skb, v6type,
					&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

/* ---- servers ------------------------------------------------------------ */

static int rmem_server_put_clients(struct sk_buff *skb,
				   struct rmem_server *srv)
{
	struct rmem_session *sess;
	struct nlattr *nest;
	unsigned int i, qps;

	list_for_each_entry(sess, &srv->sessions, node) {
		if (sess->dead)
			continue;
		for (i = 0, qps = 0; i < sess->nr_qps; i++)
			qps += !!sess->conns[i];
		nest = nla_nest_start(skb, RMEM_A_SERVER_CLIENT);
		if (!nest ||
		    rmem_nl_put_addr(skb, RMEM_A_CLIENT_IPV4, RMEM_A_CLIENT_IPV6,
				     &sess->peer) ||
		    nla_put_u16(skb, RMEM_A_CLIENT_PORT,
				rmem_addr_port(&sess->peer)) ||
		    nla_put_u64_64bit(skb, RMEM_A_CLIENT_SIZE, sess->size,
				      RMEM_A_CLIENT_PAD) ||
		    (sess->volume_name[0] &&
		     nla_put_string(skb, RMEM_A_CLIENT_VOLUME, sess->volume_name)) ||
		    nla_put_u32(skb, RMEM_A_CLIENT_QPS, qps))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/**
 * rmem_server_put() - describe a server in an RMEM_A_SERVER nest
 * @skb: message
 * @srv: the server
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_server_put(struct sk_buff *skb, struct rmem_server *srv)
{
	struct nlattr *nest, *p;
	unsigned int i;
	int ret = -EMSGSIZE;

	nest = nla_nest_start(skb, RMEM_A_SERVER);
	if (!nest)
		return -EMSGSIZE;
	mutex_lock(&srv->lock);
	if (nla_put_string(skb, RMEM_A_SERVER_NAME, srv->name) ||
	    rmem_nl_put_addr(skb, RMEM_A_SERVER_LISTEN_IPV4,
			     RMEM_A_SERVER_LISTEN_IPV6, &srv->addr) ||
	    nla_put_u16(skb, RMEM_A_SERVER_LISTEN_PORT,
			rmem_addr_port(&srv->addr)) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_POOL_SIZE,
			      (u64)srv->nr_chunks << srv->chunk_shift,
			      RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_MR_SIZE, srv->chunk_size,
			      RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_MR_PAGE_SIZE,
			      PAGE_SIZE << srv->block_order, RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_USED,
			      (u64)(srv->nr_chunks - srv->nr_free) << srv->chunk_shift,
			      RMEM_A_SERVER_PAD) ||
	    nla_put(skb, RMEM_A_SERVER_ID, sizeof(srv->id), srv->id))
		goto out_unlock;
	for (i = 0; i < srv->nr_allow; i++) {
		p = nla_nest_start(skb, RMEM_A_SERVER_ALLOW);
		if (!p || rmem_nl_put_addr(skb, RMEM_A_PREFIX_IPV4,
					   RMEM_A_PREFIX_IPV6,
					   &srv->allow[i].addr) ||
		    nla_put_u8(skb, RMEM_A_PREFIX_LEN, srv->allow[i].len))
			goto out_unlock;
		nla_nest_end(skb, p);
	}
	if (rmem_server_put_clients(skb, srv))
		goto out_unlock;
	ret = 0;
	nla_nest_end(skb, nest);
out_unlock:
	mutex_unlock(&srv->lock);
	if (ret)
		nla_nest_cancel(skb, nest);
	return ret;
}

/**
 * rmem_server_put_msg() - a whole message describing a server
 * @skb: message buffer
 * @m: header values
 * @srv: the server
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_server_put_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_server *srv)
{
	void *hdr = rmem_msg_put(skb, m);

	if (!hdr)
		return -EMSGSIZE;
	if (rmem_server_put(skb, srv)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * rmem_volume_put_msg() - a whole message describing a volume
 * @skb: message buffer
 * @m: header values
 * @srv: its server
 * @vol: the volume
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_volume_put_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_server *srv, struct rmem_volume *vol)
{
	void *hdr = rmem_msg_put(skb, m);
	struct nlattr *nest;

	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, RMEM_A_VOLUME);
	if (!nest ||
	    nla_put_string(skb, RMEM_A_VOLUME_SERVER, srv->name) ||
	    nla_put_string(skb, RMEM_A_VOLUME_NAME, vol->name) ||
	    nla_put_u64_64bit(skb, RMEM_A_VOLUME_SIZE, vol->size,
			      RMEM_A_VOLUME_PAD) ||
	    nla_put_u8(skb, RMEM_A_VOLUME_BUSY, !!vol->owner) ||
	    nla_put_u64_64bit(skb, RMEM_A_VOLUME_GENERATION, vol->generation,
			      RMEM_A_VOLUME_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

static int rmem_nl_parse_allow(struct genl_info *info, struct nlattr *srv_nest,
			       struct rmem_server_cfg *cfg)
{
	struct nlattr *tb[RMEM_A_PREFIX_MAX + 1];
	struct nlattr *a;
	unsigned int n = 0;
	int rem, ret;

	nla_for_each_nested(a, srv_nest, rem)
		if (nla_type(a) == RMEM_A_SERVER_ALLOW)
			n++;
	if (!n)
		return 0;
	if (n > 64) {
		NL_SET_ERR_MSG(info->extack, "at most 64 allow prefixes");
		return -E2BIG;
	}
	cfg->allow = kcalloc(n, sizeof(*cfg->allow), GFP_KERNEL);
	if (!cfg->allow)
		return -ENOMEM;
	nla_for_each_nested(a, srv_nest, rem) {
		struct rmem_prefix *p = &cfg->allow[cfg->nr_allow];
		unsigned int max;

		if (nla_type(a) != RMEM_A_SERVER_ALLOW)
			continue;
		ret = nla_parse_nested(tb, RMEM_A_PREFIX_MAX, a,
				       rmem_prefix_policy, info->extack);
		if (ret)
			return ret;
		ret = rmem_nl_get_addr(info, a, tb, RMEM_A_PREFIX_IPV4,
				       RMEM_A_PREFIX_IPV6, 0, &p->addr,
				       "allow prefix without an address");
		if (ret)
			return ret;
		max = p->addr.ss_family == AF_INET ? 32 : 128;
		p->len = tb[RMEM_A_PREFIX_LEN] ?
			 nla_get_u8(tb[RMEM_A_PREFIX_LEN]) : max;
		if (p->len > max) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_PREFIX_LEN],
					    "prefix length too long for the address");
			return -EINVAL;
		}
		cfg->nr_allow++;
	}
	return 0;
}

static int rmem_nl_server_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_SERVER_MAX + 1];
	struct rmem_server_cfg cfg = {};
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = rmem_nl_nest(info, RMEM_A_SERVER, tb, RMEM_A_SERVER_MAX,
			   rmem_server_policy, "missing server attributes");
	if (ret)
		return ret;
	nest = info->attrs[RMEM_A_SERVER];
	ret = rmem_nl_require(info, nest, tb, RMEM_A_SERVER_NAME,
			      "missing server name");
	if (!ret)
		ret = rmem_nl_require(info, nest, tb, RMEM_A_SERVER_POOL_SIZE,
				      "missing pool size");
	if (!ret)
		ret = rmem_nl_get_addr(info, nest, tb, RMEM_A_SERVER_LISTEN_IPV4,
				       RMEM_A_SERVER_LISTEN_IPV6,
				       RMEM_A_SERVER_LISTEN_PORT, &cfg.addr,
				       "missing listen address");
	if (ret)
		return ret;
	nla_strscpy(cfg.name, tb[RMEM_A_SERVER_NAME], sizeof(cfg.name));
	if (!cfg.name[0]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_SERVER_NAME],
				    "server name must not be empty");
		return -EINVAL;
	}
	cfg.pool_size = nla_get_u64(tb[RMEM_A_SERVER_POOL_SIZE]);
	if (cfg.pool_size < RMEM_MIN_SIZE || cfg.pool_size > SZ_1T) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_SERVER_POOL_SIZE],
				    "pool size must be between 4 KiB and 1 TiB");
		return -ERANGE;
	}
	if (tb[RMEM_A_SERVER_MR_SIZE]) {
		cfg.mr_size = nla_get_u64(tb[RMEM_A_SERVER_MR_SIZE]);
		if (!is_power_of_2(cfg.mr_size) || cfg.mr_size < SZ_4K ||
		    cfg.mr_size > SZ_1G) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_SERVER_MR_SIZE],
					    "MR size must be a power of two between 4 KiB and 1 GiB");
			return -EINVAL;
		}
	}
	ret = rmem_nl_parse_allow(info, nest, &cfg);
	if (ret)
		goto out_free_allow;

	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto out_free_allow;
	hdr = genlmsg_put_reply(msg, info, &rmem_nl_family, 0,
				RMEM_CMD_SERVER_ADD);
	if (!hdr)
		goto out_free_msg;
	ret = rmem_server_add(&cfg, info->extack, msg);
	if (ret)
		goto out_free_msg;
	genlmsg_end(msg, hdr);
	kfree(cfg.allow);
	return genlmsg_reply(msg, info);

out_free_msg:
	nlmsg_free(msg);
out_free_allow:
	kfree(cfg.allow);
	return ret;
}

static int rmem_nl_server_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_SERVER_MAX + 1];
	int ret;

	ret = rmem_nl_nest(info, RMEM_A_SERVER, tb, RMEM_A_SERVER_MAX,
			   rmem_server_policy, "missing server attributes");
	if (!ret)
		ret = rmem_nl_require(info, info->attrs[RMEM_A_SERVER], tb,
				      RMEM_A_SERVER_NAME, "missing server name");
	if (ret)
		return ret;
	ret = rmem_server_del(nla_data(tb[RMEM_A_SERVER_NAME]), info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_SERVER_NAME]);
	return ret;
}

static int rmem_nl_server_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_SERVER_MAX + 1];
	struct rmem_msg m = {
		.portid = info->snd_portid, .seq = info->snd_seq,
		.cmd = RMEM_CMD_SERVER_GET,
	};
	struct sk_buff *msg;
	int idx = 0, ret;

	ret = rmem_nl_nest(info, RMEM_A_SERVER, tb, RMEM_A_SERVER_MAX,
			   rmem_server_policy, "missing server attributes");
	if (!ret)
		ret = rmem_nl_require(info, info->attrs[RMEM_A_SERVER], tb,
				      RMEM_A_SERVER_NAME, "missing server name");
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = rmem_server_fill(msg, &m, nla_data(tb[RMEM_A_SERVER_NAME]), &idx,
			       info->extack);
	if (ret) {
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_SERVER_NAME]);
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int rmem_nl_server_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	struct rmem_msg m = {
		.portid = NETLINK_CB(cb->skb).portid, .seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI, .cmd = RMEM_CMD_SERVER_GET,
	};
	int idx = cb->args[0];
	int ret;

	ret = rmem_server_fill(skb, &m, NULL, &idx, NULL);
	cb->args[0] = idx;
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

/* ---- volumes ------------------------------------------------------------ */

static int rmem_nl_volume_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *tb[RMEM_A_VOLUME_MAX + 1] = {};
	struct rmem_msg m = {
		.portid = NETLINK_CB(cb->skb).portid, .seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI, .cmd = RMEM_CMD_VOLUME_GET,
	};
	int idx = cb->args[0];
	int ret;

	if (info->attrs[RMEM_A_VOLUME]) {
		ret = nla_parse_nested(tb, RMEM_A_VOLUME_MAX,
				       info->attrs[RMEM_A_VOLUME],
				       rmem_volume_policy, cb->extack);
		if (ret)
			return ret;
	}
	ret = rmem_volume_fill(skb, &m, tb[RMEM_A_VOLUME_SERVER] ?
			       nla_data(tb[RMEM_A_VOLUME_SERVER]) : NULL, &idx);
	cb->args[0] = idx;
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

static int rmem_nl_volume_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_VOLUME_MAX + 1];
	struct nlattr *nest;
	int bad, ret;

	ret = rmem_nl_nest(info, RMEM_A_VOLUME, tb, RMEM_A_VOLUME_MAX,
			   rmem_volume_policy, "missing volume attributes");
	if (ret)
		return ret;
	nest = info->attrs[RMEM_A_VOLUME];
	ret = rmem_nl_require(info, nest, tb, RMEM_A_VOLUME_SERVER,
			      "missing server name");
	if (!ret)
		ret = rmem_nl_require(info, nest, tb, RMEM_A_VOLUME_NAME,
				      "missing volume name");
	if (ret)
		return ret;
	ret = rmem_volume_del(nla_data(tb[RMEM_A_VOLUME_SERVER]),
			      nla_data(tb[RMEM_A_VOLUME_NAME]), &bad,
			      info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[bad]);
	return ret;
}

/* ---- devices ------------------------------------------------------------ */

/**
 * rmem_nl_put_dev() - describe a device in an RMEM_A_DEV nest
 * @skb: message
 * @dev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_nl_put_dev(struct sk_buff *skb, struct rmem_dev *dev)
{
	struct rmem_stats st;
	struct nlattr *nest, *sn;

	rmem_dev_stats(dev, &st);
	nest = nla_nest_start(skb, RMEM_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, RMEM_A_DEV_NAME, dev->name) ||
	    rmem_nl_put_addr(skb, RMEM_A_DEV_PEER_IPV4, RMEM_A_DEV_PEER_IPV6,
			     &dev->cfg.peer) ||
	    nla_put_u16(skb, RMEM_A_DEV_PEER_PORT, rmem_addr_port(&dev->cfg.peer)) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_SIZE, dev->cfg.size,
			      RMEM_A_DEV_PAD) ||
	    (dev->cfg.volume[0] &&
	     nla_put_string(skb, RMEM_A_DEV_VOLUME, dev->cfg.volume)) ||
	    nla_put_u32(skb, RMEM_A_DEV_QPS, dev->nr_queues) ||
	    nla_put_u32(skb, RMEM_A_DEV_QUEUE_DEPTH, dev->cfg.queue_depth) ||
	    nla_put_u32(skb, RMEM_A_DEV_STATE, READ_ONCE(dev->state)) ||
	    nla_put(skb, RMEM_A_DEV_SERVER_ID, sizeof(dev->server_id),
		    dev->server_id) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_GENERATION, dev->generation,
			      RMEM_A_DEV_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_MR_SIZE, dev->chunk_size,
			      RMEM_A_DEV_PAD))
		goto out_cancel;
	sn = nla_nest_start(skb, RMEM_A_DEV_STATS);
	if (!sn ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_READS, st.reads, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_READ_BYTES, st.read_bytes,
			      RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_WRITES, st.writes, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_WRITE_BYTES, st.write_bytes,
			      RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_ZEROES, st.zeroes, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_ERRORS, st.errors, RMEM_A_STATS_PAD))
		goto out_cancel;
	nla_nest_end(skb, sn);
	nla_nest_end(skb, nest);
	return 0;

out_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * rmem_nl_put_dev_msg() - a whole message describing a device
 * @skb: message buffer
 * @m: header values
 * @dev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_nl_put_dev_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_dev *dev)
{
	void *hdr = rmem_msg_put(skb, m);

	if (!hdr)
		return -EMSGSIZE;
	if (rmem_nl_put_dev(skb, dev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * rmem_nl_notify_dev() - multicast a device's new state on "events"
 * @dev: the device
 *
 * Context: process context.
 */
void rmem_nl_notify_dev(struct rmem_dev *dev)
{
	struct rmem_msg m = { .cmd = RMEM_CMD_DEV_STATE_NTF };
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (rmem_nl_put_dev_msg(msg, &m, dev)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_multicast(&rmem_nl_family, msg, 0, RMEM_MCGRP_EVENTS_IDX,
			  GFP_KERNEL);
}

static int rmem_nl_dev_cfg(struct genl_info *info, struct nlattr **tb,
			   struct rmem_dev_cfg *cfg)
{
	struct nlattr *nest = info->attrs[RMEM_A_DEV];
	int ret;

	ret = rmem_nl_get_addr(info, nest, tb, RMEM_A_DEV_PEER_IPV4,
			       RMEM_A_DEV_PEER_IPV6, RMEM_A_DEV_PEER_PORT,
			       &cfg->peer, "missing peer address");
	if (!ret)
		ret = rmem_nl_require(info, nest, tb, RMEM_A_DEV_SIZE,
				      "missing device size");
	if (ret)
		return ret;
	cfg->size = nla_get_u64(tb[RMEM_A_DEV_SIZE]);
	if (cfg->size < RMEM_MIN_SIZE || !IS_ALIGNED(cfg->size, SZ_4K) ||
	    cfg->size > SZ_1T) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_SIZE],
				    "device size must be a multiple of 4 KiB, at most 1 TiB");
		return -EINVAL;
	}
	if (tb[RMEM_A_DEV_QPS]) {
		cfg->nr_qps = nla_get_u32(tb[RMEM_A_DEV_QPS]);
		if (!cfg->nr_qps || cfg->nr_qps > RMEM_MAX_DEV_QPS) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_QPS],
					    "qps must be between 1 and 64");
			return -ERANGE;
		}
	}
	if (tb[RMEM_A_DEV_QUEUE_DEPTH]) {
		cfg->queue_depth = nla_get_u32(tb[RMEM_A_DEV_QUEUE_DEPTH]);
		if (!cfg->queue_depth ||
		    cfg->queue_depth > RMEM_MAX_QUEUE_DEPTH) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[RMEM_A_DEV_QUEUE_DEPTH],
					    "queue depth must be between 1 and 1024");
			return -ERANGE;
		}
	}
	if (tb[RMEM_A_DEV_VOLUME]) {
		nla_strscpy(cfg->volume, tb[RMEM_A_DEV_VOLUME],
			    sizeof(cfg->volume));
		if (!cfg->volume[0]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_VOLUME],
					    "volume name must not be empty");
			return -EINVAL;
		}
	}
	if (tb[RMEM_A_DEV_NAME])
		nla_strscpy(cfg->name, tb[RMEM_A_DEV_NAME], sizeof(cfg->name));
	return 0;
}

static int rmem_nl_dev_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	struct rmem_dev_cfg cfg = {};
	struct sk_buff *msg;
	int bad = 0, ret;
	void *hdr;

	ret = rmem_nl_nest(info, RMEM_A_DEV, tb, RMEM_A_DEV_MAX,
			   rmem_dev_policy, "missing device attributes");
	if (!ret)
		ret = rmem_nl_dev_cfg(info, tb, &cfg);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &rmem_nl_family, 0, RMEM_CMD_DEV_ADD);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto out_free_msg;
	}
	ret = rmem_dev_add(&cfg, &bad, info->extack, msg);
	if (ret) {
		/* blame the peer address when nothing more precise is known */
		NL_SET_BAD_ATTR(info->extack, tb[bad] ?:
				tb[RMEM_A_DEV_PEER_IPV4] ?: tb[RMEM_A_DEV_PEER_IPV6]);
		goto out_free_msg;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free_msg:
	nlmsg_free(msg);
	return ret;
}

static int rmem_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	int ret;

	ret = rmem_nl_nest(info, RMEM_A_DEV, tb, RMEM_A_DEV_MAX,
			   rmem_dev_policy, "missing device attributes");
	if (!ret)
		ret = rmem_nl_require(info, info->attrs[RMEM_A_DEV], tb,
				      RMEM_A_DEV_NAME, "missing device name");
	if (ret)
		return ret;
	ret = rmem_dev_del(nla_data(tb[RMEM_A_DEV_NAME]),
			   nla_get_flag(tb[RMEM_A_DEV_FORCE]), info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_DEV_NAME]);
	return ret;
}

static int rmem_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	struct rmem_msg m = {
		.portid = info->snd_portid, .seq = info->snd_seq,
		.cmd = RMEM_CMD_DEV_GET,
	};
	struct sk_buff *msg;
	int idx = 0, ret;

	ret = rmem_nl_nest(info, RMEM_A_DEV, tb, RMEM_A_DEV_MAX,
			   rmem_dev_policy, "missing device attributes");
	if (!ret)
		ret = rmem_nl_require(info, info->attrs[RMEM_A_DEV], tb,
				      RMEM_A_DEV_NAME, "missing device name");
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	ret = rmem_dev_fill(msg, &m, nla_data(tb[RMEM_A_DEV_NAME]), &idx,
			    info->extack);
	if (ret) {
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_DEV_NAME]);
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int rmem_nl_dev_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct rmem_msg m = {
		.portid = NETLINK_CB(cb->skb).portid, .seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI, .cmd = RMEM_CMD_DEV_GET,
	};
	int idx = cb->args[0];
	int ret;

	ret = rmem_dev_fill(skb, &m, NULL, &idx, NULL);
	cb->args[0] = idx;
	if (ret && ret != -EMSGSIZE)
		return ret;
	return skb->len;
}

/* ---- family ------------------------------------------------------------- */

static const struct genl_ops rmem_nl_ops[] = {
	{
		.cmd = RMEM_CMD_SERVER_ADD,
		.doit = rmem_nl_server_add_doit,
		.policy = rmem_server_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_SERVER_DEL,
		.doit = rmem_nl_server_del_doit,
		.policy = rmem_server_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_SERVER_GET,
		.doit = rmem_nl_server_get_doit,
		.dumpit = rmem_nl_server_get_dumpit,
		.policy = rmem_server_op_policy,
		.maxattr = RMEM_A_MAX,
	},
	{
		.cmd = RMEM_CMD_DEV_ADD,
		.doit = rmem_nl_dev_add_doit,
		.policy = rmem_dev_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_DEV_DEL,
		.doit = rmem_nl_dev_del_doit,
		.policy = rmem_dev_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_DEV_GET,
		.doit = rmem_nl_dev_get_doit,
		.dumpit = rmem_nl_dev_get_dumpit,
		.policy = rmem_dev_op_policy,
		.maxattr = RMEM_A_MAX,
	},
	{
		.cmd = RMEM_CMD_VOLUME_GET,
		.dumpit = rmem_nl_volume_get_dumpit,
		.policy = rmem_volume_op_policy,
		.maxattr = RMEM_A_MAX,
	},
	{
		.cmd = RMEM_CMD_VOLUME_DEL,
		.doit = rmem_nl_volume_del_doit,
		.policy = rmem_volume_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group rmem_nl_mcgrps[] = {
	[RMEM_MCGRP_EVENTS_IDX] = { .name = RMEM_MCGRP_EVENTS },
};

static struct genl_family rmem_nl_family __ro_after_init = {
	.name = RMEM_FAMILY_NAME,
	.version = RMEM_FAMILY_VERSION,
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = rmem_nl_ops,
	.n_ops = ARRAY_SIZE(rmem_nl_ops),
	.mcgrps = rmem_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(rmem_nl_mcgrps),
};

/**
 * rmem_nl_init() - register the generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int rmem_nl_init(void)
{
	return genl_register_family(&rmem_nl_family);
}

/**
 * rmem_nl_exit() - unregister the generic netlink family
 */
void rmem_nl_exit(void)
{
	genl_unregister_family(&rmem_nl_family);
}
