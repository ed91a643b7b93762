// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: generic netlink family "rmem".
 *
 * Every command has its own policy, every mutating command needs
 * CAP_NET_ADMIN, and every rejection carries an extack message naming the
 * offending attribute.  Device state changes are multicast on "events".
 */
#include <linux/log2.h>
#include <linux/rwsem.h>
#include <net/genetlink.h>
#include <linux/rmem.h>

#include "auth.h"
#include "client/client.h"
#include "compat.h"
#include "rmem.h"
#include "server/server.h"

/*
 * Whether the family is registered, for events; an event is sent under
 * the read side, so rmem_nl_exit() never unregisters the family under a
 * multicast (unload tears devices down after the family is gone).
 */
static bool rmem_nl_registered;
static DECLARE_RWSEM(rmem_nl_events_sem);

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
	[RMEM_A_SERVER_AUTH] = NLA_POLICY_RANGE(NLA_U32, RMEM_AUTH_NONE,
						RMEM_AUTH_REQUIRED),
};

static const struct nla_policy rmem_host_policy[RMEM_A_HOST_MAX + 1] = {
	[RMEM_A_HOST_SERVER] = { .type = NLA_NUL_STRING, .len = RMEM_NAME_MAX - 1 },
	[RMEM_A_HOST_ID] = { .type = NLA_NUL_STRING, .len = RMEM_HOST_ID_MAX - 1 },
	[RMEM_A_HOST_KEY] = NLA_POLICY_EXACT_LEN(RMEM_KEY_LEN),
	[RMEM_A_HOST_KEY_DESC] = { .type = NLA_NUL_STRING, .len = 255 },
	[RMEM_A_HOST_SIZE_LIMIT] = { .type = NLA_U64 },
	[RMEM_A_HOST_SESSIONS_MAX] = { .type = NLA_U32 },
	[RMEM_A_HOST_FORCE] = { .type = NLA_FLAG },
};

static const struct nla_policy rmem_peer_policy[RMEM_A_PEER_MAX + 1] = {
	[RMEM_A_PEER_IPV4] = NLA_POLICY_EXACT_LEN(4),
	[RMEM_A_PEER_IPV6] = NLA_POLICY_EXACT_LEN(16),
	[RMEM_A_PEER_PORT] = { .type = NLA_U16 },
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
	[RMEM_A_DEV_POLL_QPS] = { .type = NLA_U32 },
	[RMEM_A_DEV_KEEPALIVE_MS] = { .type = NLA_U32 },
	[RMEM_A_DEV_LOSS_TIMEOUT_MS] = { .type = NLA_U32 },
	[RMEM_A_DEV_READ_SPLIT] = { .type = NLA_U32 },
	[RMEM_A_DEV_READ_DEPTH] = { .type = NLA_U32 },
	[RMEM_A_DEV_EXTENT] = { .type = NLA_U64 },
	[RMEM_A_DEV_FORCE] = { .type = NLA_FLAG },
	[RMEM_A_DEV_HOST_ID] = { .type = NLA_NUL_STRING, .len = RMEM_HOST_ID_MAX - 1 },
	[RMEM_A_DEV_KEY] = NLA_POLICY_EXACT_LEN(RMEM_KEY_LEN),
	[RMEM_A_DEV_KEY_DESC] = { .type = NLA_NUL_STRING, .len = 255 },
	[RMEM_A_DEV_PEER] = NLA_POLICY_NESTED(rmem_peer_policy),
	[RMEM_A_DEV_REPLICAS] = NLA_POLICY_RANGE(NLA_U8, 1, RMEM_MAX_REPLICAS),
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

static const struct nla_policy rmem_host_op_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_HOST] = NLA_POLICY_NESTED(rmem_host_policy),
};

/* ---- helpers ------------------------------------------------------------ */

/*
 * NL_SET_ERR_MSG() takes its text at the call site: the helpers below
 * return RMEM_NL_MISSING for an absent attribute and a macro around each
 * sets the caller's message.
 */
#define RMEM_NL_MISSING		1

#define rmem_nl_missing_msg(extack, ret, msg)				\
({									\
	int __ret = (ret);						\
									\
	if (__ret == RMEM_NL_MISSING) {					\
		NL_SET_ERR_MSG(extack, msg);				\
		__ret = -EINVAL;					\
	}								\
	__ret;								\
})

/* Parse the object nest @type of a request; an extack names what is wrong. */
static int __rmem_nl_nest(struct genl_info *info, int type, struct nlattr **tb,
			  int max, const struct nla_policy *policy)
{
	if (GENL_REQ_ATTR_CHECK(info, type))
		return RMEM_NL_MISSING;
	return nla_parse_nested(tb, max, info->attrs[type], policy,
				info->extack);
}

#define rmem_nl_nest(info, type, tb, max, policy, missing)		\
({									\
	struct genl_info *__info = (info);				\
									\
	rmem_nl_missing_msg(__info->extack,				\
			    __rmem_nl_nest(__info, type, tb, max, policy), \
			    missing);					\
})

static int __rmem_nl_require(struct genl_info *info, struct nlattr *nest,
			     struct nlattr **tb, int type)
{
	if (tb[type])
		return 0;
	NL_SET_ERR_ATTR_MISS(info->extack, nest, type);
	return RMEM_NL_MISSING;
}

#define rmem_nl_require(info, nest, tb, type, missing)			\
({									\
	struct genl_info *__info = (info);				\
									\
	rmem_nl_missing_msg(__info->extack,				\
			    __rmem_nl_require(__info, nest, tb, type),	\
			    missing);					\
})

/**
 * struct rmem_nl_obj - what differs between requests on servers and devices
 * @cmd: the GET command (replies)
 * @nest: object nest attribute
 * @max: highest attribute in the nest
 * @policy: nest policy
 * @name: name attribute in the nest
 * @fill: puts one named object, or dumps all from an index
 */
struct rmem_nl_obj {
	u8 cmd;
	int nest;
	int max;
	const struct nla_policy *policy;
	int name;
	int (*fill)(struct sk_buff *skb, const struct rmem_msg *m,
		    const char *name, int *idx, struct netlink_ext_ack *extack);
};

static const struct rmem_nl_obj rmem_nl_server_obj = {
	.cmd = RMEM_CMD_SERVER_GET,
	.nest = RMEM_A_SERVER,
	.max = RMEM_A_SERVER_MAX,
	.policy = rmem_server_policy,
	.name = RMEM_A_SERVER_NAME,
	.fill = rmem_server_fill,
};

static const struct rmem_nl_obj rmem_nl_dev_obj = {
	.cmd = RMEM_CMD_DEV_GET,
	.nest = RMEM_A_DEV,
	.max = RMEM_A_DEV_MAX,
	.policy = rmem_dev_policy,
	.name = RMEM_A_DEV_NAME,
	.fill = rmem_dev_fill,
};

/* Parse @o's nest of a request and require its name attribute. */
static int rmem_nl_obj_parse(const struct rmem_nl_obj *o,
			     struct genl_info *info, struct nlattr **tb)
{
	int ret;

	ret = __rmem_nl_nest(info, o->nest, tb, o->max, o->policy);
	if (ret == RMEM_NL_MISSING) {
		if (o->nest == RMEM_A_SERVER)
			NL_SET_ERR_MSG(info->extack, "missing server attributes");
		else
			NL_SET_ERR_MSG(info->extack, "missing device attributes");
		return -EINVAL;
	}
	if (ret)
		return ret;
	if (!__rmem_nl_require(info, info->attrs[o->nest], tb, o->name))
		return 0;
	if (o->nest == RMEM_A_SERVER)
		NL_SET_ERR_MSG(info->extack, "missing server name");
	else
		NL_SET_ERR_MSG(info->extack, "missing device name");
	return -EINVAL;
}

/* One of @v4/@v6 (exactly one) and an optional port make a sockaddr. */
static int __rmem_nl_get_addr(struct genl_info *info, struct nlattr *nest,
			      struct nlattr **tb, int v4, int v6, int port,
			      struct sockaddr_storage *ss)
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
	NL_SET_ERR_ATTR_MISS(info->extack, nest, v4);
	return RMEM_NL_MISSING;
}

#define rmem_nl_get_addr(info, nest, tb, v4, v6, port, ss, missing)	\
({									\
	struct genl_info *__info = (info);				\
									\
	rmem_nl_missing_msg(__info->extack,				\
			    __rmem_nl_get_addr(__info, nest, tb, v4, v6, \
					       port, ss), missing);	\
})

/* ---- servers ------------------------------------------------------------ */

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
		NL_SET_ERR_MSG_ATTR(info->extack, srv_nest,
				    "at most 64 allow prefixes");
		return -E2BIG;
	}
	cfg->allow = kcalloc(n, sizeof(*cfg->allow), GFP_KERNEL);
	if (!cfg->allow) {
		NL_SET_ERR_MSG(info->extack, "out of memory for the allow list");
		return -ENOMEM;
	}
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
	int ret, bad;

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
	if (tb[RMEM_A_SERVER_AUTH])
		cfg.auth = nla_get_u32(tb[RMEM_A_SERVER_AUTH]);
	ret = rmem_nl_parse_allow(info, nest, &cfg);
	if (ret)
		goto out_free_allow;

	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "out of memory for the reply");
		goto out_free_allow;
	}
	hdr = genlmsg_put_reply(msg, info, &rmem_nl_family, 0,
				RMEM_CMD_SERVER_ADD);
	if (!hdr) {
		NL_SET_ERR_MSG(info->extack, "no room for the reply's header");
		goto out_free_msg;
	}
	ret = rmem_server_add(&cfg, &bad, info->extack, msg);
	if (ret) {
		if (ret == -ENOMEM && !info->extack->_msg)
			NL_SET_ERR_MSG(info->extack, "out of memory adding the server");
		if (bad && tb[bad])
			NL_SET_BAD_ATTR(info->extack, tb[bad]);
		goto out_free_msg;
	}
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

	ret = rmem_nl_obj_parse(&rmem_nl_server_obj, info, tb);
	if (ret)
		return ret;
	ret = rmem_server_del(nla_data(tb[RMEM_A_SERVER_NAME]), info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_SERVER_NAME]);
	return ret;
}

/* ---- keys and host entries --------------------------------------------- */

/*
 * A key given as @key_attr (its bytes) or @desc_attr (a "logon" key in
 * the caller's keyrings); neither: -ENOKEY and no message.
 */
static int rmem_nl_get_key(struct genl_info *info, struct nlattr *key_attr,
			   struct nlattr *desc_attr, u8 *key)
{
	int ret;

	if (key_attr && desc_attr) {
		NL_SET_ERR_MSG_ATTR(info->extack, desc_attr,
				    "give a key or a key description, not both");
		return -EINVAL;
	}
	if (key_attr) {
		nla_memcpy(key, key_attr, RMEM_KEY_LEN);
	} else if (desc_attr) {
		ret = rmem_key_lookup(nla_data(desc_attr), key);
		if (ret == -EINVAL) {
			NL_SET_ERR_MSG_ATTR(info->extack, desc_attr,
					    "the key description must be \"rmem:\" and a name");
			return ret;
		}
		if (ret == -ENOMEM) {
			NL_SET_ERR_MSG_ATTR(info->extack, desc_attr,
					    "out of memory looking up the key");
			return ret;
		}
		if (ret == -EMSGSIZE) {
			NL_SET_ERR_MSG_ATTR(info->extack, desc_attr,
					    "the keyring key is not 32 bytes long: not an rmem key");
			return -EINVAL;
		}
		if (ret) {
			NL_SET_ERR_MSG_ATTR(info->extack, desc_attr,
					    "no usable \"logon\" key with this description in the caller's keyrings");
			return ret;
		}
	} else {
		return -ENOKEY;
	}
	if (!rmem_key_ok(key)) {
		memzero_explicit(key, RMEM_KEY_LEN);
		NL_SET_ERR_MSG_ATTR(info->extack, key_attr ?: desc_attr,
				    "an all-zero key is not a key");
		return -EINVAL;
	}
	return 0;
}

static int rmem_nl_host_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_HOST_MAX + 1];
	struct rmem_host_cfg cfg = {};
	struct nlattr *nest;
	int ret, bad = 0;

	ret = rmem_nl_nest(info, RMEM_A_HOST, tb, RMEM_A_HOST_MAX,
			   rmem_host_policy, "missing host attributes");
	if (ret)
		return ret;
	nest = info->attrs[RMEM_A_HOST];
	ret = rmem_nl_require(info, nest, tb, RMEM_A_HOST_SERVER,
			      "missing server name");
	if (!ret)
		ret = rmem_nl_require(info, nest, tb, RMEM_A_HOST_ID,
				      "missing host identity");
	if (ret)
		return ret;
	nla_strscpy(cfg.server, tb[RMEM_A_HOST_SERVER], sizeof(cfg.server));
	nla_strscpy(cfg.id, tb[RMEM_A_HOST_ID], sizeof(cfg.id));
	if (!rmem_host_id_ok(cfg.id, sizeof(cfg.id))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_HOST_ID],
				    "host identity must be 1 to 63 printable characters, no blanks");
		return -EINVAL;
	}
	ret = rmem_nl_get_key(info, tb[RMEM_A_HOST_KEY],
			      tb[RMEM_A_HOST_KEY_DESC], cfg.key);
	if (ret == -ENOKEY && !tb[RMEM_A_HOST_KEY_DESC]) {
		NL_SET_ERR_MSG(info->extack, "missing host key");
		NL_SET_ERR_ATTR_MISS(info->extack, nest, RMEM_A_HOST_KEY);
		return -EINVAL;
	}
	if (ret)
		return ret;
	if (tb[RMEM_A_HOST_SIZE_LIMIT])
		cfg.size_limit = nla_get_u64(tb[RMEM_A_HOST_SIZE_LIMIT]);
	if (tb[RMEM_A_HOST_SESSIONS_MAX])
		cfg.max_sessions = nla_get_u32(tb[RMEM_A_HOST_SESSIONS_MAX]);
	ret = rmem_host_add(&cfg, &bad, info->extack);
	memzero_explicit(cfg.key, sizeof(cfg.key));
	if (ret && bad && tb[bad])
		NL_SET_BAD_ATTR(info->extack, tb[bad]);
	return ret;
}

static int rmem_nl_host_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_HOST_MAX + 1];
	struct nlattr *nest;
	int ret, bad = 0;

	ret = rmem_nl_nest(info, RMEM_A_HOST, tb, RMEM_A_HOST_MAX,
			   rmem_host_policy, "missing host attributes");
	if (ret)
		return ret;
	nest = info->attrs[RMEM_A_HOST];
	ret = rmem_nl_require(info, nest, tb, RMEM_A_HOST_SERVER,
			      "missing server name");
	if (!ret)
		ret = rmem_nl_require(info, nest, tb, RMEM_A_HOST_ID,
				      "missing host identity");
	if (ret)
		return ret;
	ret = rmem_host_del(nla_data(tb[RMEM_A_HOST_SERVER]),
			    nla_data(tb[RMEM_A_HOST_ID]),
			    nla_get_flag(tb[RMEM_A_HOST_FORCE]), &bad,
			    info->extack);
	if (ret && bad && tb[bad])
		NL_SET_BAD_ATTR(info->extack, tb[bad]);
	return ret;
}

/* ---- volumes ------------------------------------------------------------ */

static int rmem_nl_volume_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	struct nlattr **attrs = genl_info_dump(cb)->attrs;
	struct nlattr *tb[RMEM_A_VOLUME_MAX + 1] = {};
	struct rmem_msg m = {
		.portid = NETLINK_CB(cb->skb).portid, .seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI, .cmd = RMEM_CMD_VOLUME_GET,
	};
	int idx = cb->args[0];
	int ret;

	if (attrs[RMEM_A_VOLUME]) {
		ret = nla_parse_nested(tb, RMEM_A_VOLUME_MAX, attrs[RMEM_A_VOLUME],
				       rmem_volume_policy, cb->extack);
		if (ret)
			return ret;
	}
	ret = rmem_volume_fill(skb, &m, tb[RMEM_A_VOLUME_SERVER] ?
			       nla_data(tb[RMEM_A_VOLUME_SERVER]) : NULL, &idx);
	cb->args[0] = idx;
	if (ret && (ret != -EMSGSIZE || !skb->len))
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
 * rmem_nl_notify_dev() - multicast a device event on "events"
 * @dev: the device
 * @cmd: RMEM_CMD_DEV_STATE_NTF (it changed state) or
 *	RMEM_CMD_DEV_NOSPC_NTF (its server had no room for an extent) or
 *	RMEM_CMD_DEV_RESYNC_NTF (a resync started, went a tenth further, or
 *	ended)
 * @gfp: how to allocate the message (an event may be dropped)
 *
 * The message carries the device as DEV_GET does.
 *
 * Context: process context.
 */
void rmem_nl_notify_dev(struct rmem_dev *dev, u8 cmd, gfp_t gfp)
{
	struct rmem_msg m = { .cmd = cmd };
	struct sk_buff *msg;

	down_read(&rmem_nl_events_sem);
	if (!rmem_nl_registered)
		goto out_unlock;
	msg = genlmsg_new(NLMSG_GOODSIZE, gfp);
	if (!msg)
		goto out_unlock;
	if (rmem_nl_put_dev_msg(msg, &m, dev)) {
		nlmsg_free(msg);
		goto out_unlock;
	}
	genlmsg_multicast(&rmem_nl_family, msg, 0, RMEM_MCGRP_EVENTS_IDX,
			  gfp);
out_unlock:
	up_read(&rmem_nl_events_sem);
}

/*
 * The host identity and key of DEV_ADD.  With an identity and no key, the
 * caller's keyrings are searched for "rmem:" and the peer address (a key
 * put there for this server); without one there either, the device
 * attaches unauthenticated.  A key there that cannot be used fails the
 * attach: silently going without it would be a downgrade.
 */
static int rmem_nl_dev_auth(struct genl_info *info, struct nlattr **tb,
			    struct rmem_dev_cfg *cfg)
{
	struct nlattr *nest = info->attrs[RMEM_A_DEV];
	char desc[64];
	int ret;

	if (tb[RMEM_A_DEV_HOST_ID]) {
		nla_strscpy(cfg->host_id, tb[RMEM_A_DEV_HOST_ID],
			    sizeof(cfg->host_id));
		if (!rmem_host_id_ok(cfg->host_id, sizeof(cfg->host_id))) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_HOST_ID],
					    "host identity must be 1 to 63 printable characters, no blanks");
			return -EINVAL;
		}
	}
	if (!cfg->host_id[0] && (tb[RMEM_A_DEV_KEY] || tb[RMEM_A_DEV_KEY_DESC])) {
		NL_SET_ERR_MSG(info->extack, "a key needs a host identity");
		NL_SET_ERR_ATTR_MISS(info->extack, nest, RMEM_A_DEV_HOST_ID);
		return -EINVAL;
	}
	ret = rmem_nl_get_key(info, tb[RMEM_A_DEV_KEY], tb[RMEM_A_DEV_KEY_DESC],
			      cfg->key);
	if (ret == -ENOKEY && !tb[RMEM_A_DEV_KEY_DESC]) {
		/* anonymous, or no key given: the keyring's for this peer */
		if (!cfg->host_id[0])
			return 0;
		snprintf(desc, sizeof(desc), "rmem:%pISc", &cfg->peers[0]);
		ret = rmem_key_lookup(desc, cfg->key);
		if (ret == -ENOKEY)
			return 0;
		if (!ret && !rmem_key_ok(cfg->key))
			ret = -EINVAL;
		if (ret) {
			memzero_explicit(cfg->key, sizeof(cfg->key));
			if (ret == -ENOMEM)
				NL_SET_ERR_MSG(info->extack,
					       "out of memory looking for the keyring's key for this peer");
			else
				NL_SET_ERR_MSG(info->extack,
					       "the keyring's key rmem:ADDR for this peer cannot be used (revoked, expired, all zero or not 32 bytes)");
			return ret;
		}
	}
	if (ret)
		return ret;
	cfg->has_key = true;
	return 0;
}

/*
 * The servers besides the first (RMEM_A_DEV_PEER nests): a thin device
 * over several.  Each address once.
 */
static int rmem_nl_dev_peers(struct genl_info *info, struct nlattr **tb,
			     struct rmem_dev_cfg *cfg)
{
	struct nlattr *ptb[RMEM_A_PEER_MAX + 1];
	struct nlattr *a;
	unsigned int i;
	int rem, ret;

	cfg->nr_peers = 1;
	nla_for_each_nested(a, info->attrs[RMEM_A_DEV], rem) {
		struct sockaddr_storage *ss = &cfg->peers[cfg->nr_peers];

		if (nla_type(a) != RMEM_A_DEV_PEER)
			continue;
		if (cfg->nr_peers == RMEM_MAX_PEERS) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "at most 8 servers (peer) per device");
			return -E2BIG;
		}
		ret = nla_parse_nested(ptb, RMEM_A_PEER_MAX, a,
				       rmem_peer_policy, info->extack);
		if (ret)
			return ret;
		ret = rmem_nl_get_addr(info, a, ptb, RMEM_A_PEER_IPV4,
				       RMEM_A_PEER_IPV6, RMEM_A_PEER_PORT, ss,
				       "missing peer address");
		if (ret)
			return ret;
		for (i = 0; i < cfg->nr_peers; i++) {
			if (rmem_addr_same_host(&cfg->peers[i],
						(struct sockaddr *)ss) &&
			    rmem_addr_port(&cfg->peers[i]) ==
			    rmem_addr_port(ss)) {
				NL_SET_ERR_MSG_ATTR(info->extack, a,
						    "the same server (address and port) is named twice");
				return -EINVAL;
			}
		}
		cfg->nr_peers++;
	}
	cfg->replicas = 1;
	if (tb[RMEM_A_DEV_REPLICAS])
		cfg->replicas = nla_get_u8(tb[RMEM_A_DEV_REPLICAS]);
	if (cfg->replicas > cfg->nr_peers) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_REPLICAS],
				    "more replicas than servers (peer): each replica needs a server of its own");
		return -EINVAL;
	}
	if (cfg->nr_peers == 1)
		return 0;
	if (!cfg->extent) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_PEER],
				    "a device over several servers is thin: give its extent");
		NL_SET_ERR_ATTR_MISS(info->extack, info->attrs[RMEM_A_DEV],
				     RMEM_A_DEV_EXTENT);
		return -EINVAL;
	}
	if (cfg->nr_poll_qps) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_POLL_QPS],
				    "a device over several servers has no polled queues (poll-qps)");
		return -EINVAL;
	}
	return 0;
}

static int rmem_nl_dev_cfg(struct genl_info *info, struct nlattr **tb,
			   struct rmem_dev_cfg *cfg)
{
	struct nlattr *nest = info->attrs[RMEM_A_DEV];
	int ret;

	ret = rmem_nl_get_addr(info, nest, tb, RMEM_A_DEV_PEER_IPV4,
			       RMEM_A_DEV_PEER_IPV6, RMEM_A_DEV_PEER_PORT,
			       &cfg->peers[0], "missing peer address");
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
	cfg->keepalive_ms = tb[RMEM_A_DEV_KEEPALIVE_MS] ?
		nla_get_u32(tb[RMEM_A_DEV_KEEPALIVE_MS]) : rmem_keepalive_ms;
	if (cfg->keepalive_ms && (cfg->keepalive_ms < RMEM_MIN_KEEPALIVE_MS ||
				  cfg->keepalive_ms > RMEM_MAX_KEEPALIVE_MS)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_KEEPALIVE_MS],
				    "keep-alive interval must be 0 (off) or 100 ms to 60 s");
		return -ERANGE;
	}
	cfg->loss_timeout_ms = tb[RMEM_A_DEV_LOSS_TIMEOUT_MS] ?
		nla_get_u32(tb[RMEM_A_DEV_LOSS_TIMEOUT_MS]) :
		rmem_loss_timeout_ms;
	if (cfg->loss_timeout_ms > RMEM_MAX_LOSS_TIMEOUT_MS) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_LOSS_TIMEOUT_MS],
				    "loss timeout must be at most 1 hour");
		return -ERANGE;
	}
	cfg->read_split = tb[RMEM_A_DEV_READ_SPLIT] ?
		nla_get_u32(tb[RMEM_A_DEV_READ_SPLIT]) :
		rmem_read_split_kb * SZ_1K;
	if (cfg->read_split && (!is_power_of_2(cfg->read_split) ||
				cfg->read_split < RMEM_MIN_READ_SPLIT ||
				cfg->read_split > RMEM_MAX_READ_SPLIT)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_READ_SPLIT],
				    "read split must be 0 (none) or a power of two from 64 KiB to 1 MiB");
		return -EINVAL;
	}
	cfg->read_depth = tb[RMEM_A_DEV_READ_DEPTH] ?
		nla_get_u32(tb[RMEM_A_DEV_READ_DEPTH]) : rmem_read_depth;
	if (!cfg->read_depth || cfg->read_depth > RMEM_MAX_READ_DEPTH) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_READ_DEPTH],
				    "read depth must be between 1 and 16");
		return -ERANGE;
	}
	if (tb[RMEM_A_DEV_POLL_QPS]) {
		cfg->nr_poll_qps = nla_get_u32(tb[RMEM_A_DEV_POLL_QPS]);
		if (cfg->nr_poll_qps > RMEM_MAX_DEV_QPS - 1) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_POLL_QPS],
					    "poll-qps must be between 0 and 63");
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
		if (!rmem_volume_name_ok(cfg->volume, sizeof(cfg->volume))) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_VOLUME],
					    "volume name must be printable ASCII");
			return -EINVAL;
		}
	}
	if (tb[RMEM_A_DEV_EXTENT]) {
		cfg->extent = nla_get_u64(tb[RMEM_A_DEV_EXTENT]);
		if (!is_power_of_2(cfg->extent) || cfg->extent < SZ_1M ||
		    cfg->extent > SZ_1T ||
		    !IS_ALIGNED(cfg->size, cfg->extent)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_EXTENT],
					    "extent must be a power of two from 1 MiB to 1 TiB that divides the device size");
			return -EINVAL;
		}
		if (cfg->size / cfg->extent > RMEM_MAX_EXTENTS) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_EXTENT],
					    "at most 65536 extents: use a larger extent");
			return -EINVAL;
		}
		if (cfg->volume[0]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_EXTENT],
					    "a thin device (extent) cannot be a volume");
			return -EINVAL;
		}
	}
	ret = rmem_nl_dev_peers(info, tb, cfg);
	if (ret)
		return ret;
	if (tb[RMEM_A_DEV_NAME])
		nla_strscpy(cfg->name, tb[RMEM_A_DEV_NAME], sizeof(cfg->name));
	return rmem_nl_dev_auth(info, tb, cfg);
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
	ret = -ENOMEM;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "out of memory for the reply");
		goto out_wipe_key;
	}
	hdr = genlmsg_put_reply(msg, info, &rmem_nl_family, 0, RMEM_CMD_DEV_ADD);
	if (!hdr) {
		NL_SET_ERR_MSG(info->extack, "no room for the reply's header");
		ret = -EMSGSIZE;
		goto out_free_msg;
	}
	ret = rmem_dev_add(&cfg, &bad, info->extack, msg);
	if (ret == -ENOKEY && !tb[RMEM_A_DEV_KEY]) {
		/* the server wants a key the request did not give */
		NL_SET_ERR_ATTR_MISS(info->extack, info->attrs[RMEM_A_DEV],
				     RMEM_A_DEV_KEY);
		goto out_free_msg;
	}
	if (ret) {
		/*
		 * Blame the peer address when nothing more precise is known,
		 * but running out of memory is no argument's fault.
		 */
		if (tb[bad] || ret != -ENOMEM)
			NL_SET_BAD_ATTR(info->extack, tb[bad] ?:
					tb[RMEM_A_DEV_PEER_IPV4] ?:
					tb[RMEM_A_DEV_PEER_IPV6]);
		if (ret == -ENOMEM && !info->extack->_msg)
			NL_SET_ERR_MSG(info->extack, "out of memory attaching the device");
		goto out_free_msg;
	}
	memzero_explicit(cfg.key, sizeof(cfg.key));
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free_msg:
	nlmsg_free(msg);
out_wipe_key:
	memzero_explicit(cfg.key, sizeof(cfg.key));
	return ret;
}

static int rmem_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	int ret;

	ret = rmem_nl_obj_parse(&rmem_nl_dev_obj, info, tb);
	if (ret)
		return ret;
	ret = rmem_dev_del(nla_data(tb[RMEM_A_DEV_NAME]),
			   nla_get_flag(tb[RMEM_A_DEV_FORCE]), info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_DEV_NAME]);
	return ret;
}

static int rmem_nl_dev_stats_reset_doit(struct sk_buff *skb,
					struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	int ret;

	ret = rmem_nl_obj_parse(&rmem_nl_dev_obj, info, tb);
	if (ret)
		return ret;
	ret = rmem_dev_stats_reset(nla_data(tb[RMEM_A_DEV_NAME]), info->extack);
	if (ret)
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_DEV_NAME]);
	return ret;
}

/*
 * The one RMEM_A_DEV_PEER nest of a peer add or del: its address in @ss,
 * its attributes in @ptb.  Return: 0 or a negative errno, with a message.
 */
static int rmem_nl_dev_peer(struct genl_info *info, struct nlattr **tb,
			    struct nlattr **ptb, struct sockaddr_storage *ss,
			    bool add)
{
	struct nlattr *a;
	int rem, n = 0, ret;

	ret = rmem_nl_obj_parse(&rmem_nl_dev_obj, info, tb);
	if (ret)
		return ret;
	nla_for_each_nested(a, info->attrs[RMEM_A_DEV], rem) {
		if (nla_type(a) == RMEM_A_DEV_PEER && n++) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "one server (peer) at a time");
			return -EINVAL;
		}
	}
	if (!tb[RMEM_A_DEV_PEER]) {
		if (add)
			NL_SET_ERR_MSG(info->extack, "missing the server to add (peer)");
		else
			NL_SET_ERR_MSG(info->extack, "missing the server to drain (peer)");
		NL_SET_ERR_ATTR_MISS(info->extack, info->attrs[RMEM_A_DEV],
				     RMEM_A_DEV_PEER);
		return -EINVAL;
	}
	ret = nla_parse_nested(ptb, RMEM_A_PEER_MAX, tb[RMEM_A_DEV_PEER],
			       rmem_peer_policy, info->extack);
	if (ret)
		return ret;
	return rmem_nl_get_addr(info, tb[RMEM_A_DEV_PEER], ptb,
				RMEM_A_PEER_IPV4, RMEM_A_PEER_IPV6,
				RMEM_A_PEER_PORT, ss, "missing peer address");
}

/*
 * Add one server (one RMEM_A_DEV_PEER nest) to a running device over
 * several (client/peer.c); the answer comes once it is live there.
 */
static int rmem_nl_dev_peer_add_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1], *ptb[RMEM_A_PEER_MAX + 1];
	struct rmem_peer_add_attrs at = {};
	struct sockaddr_storage ss;
	u8 key[RMEM_KEY_LEN];
	int ret;

	ret = rmem_nl_dev_peer(info, tb, ptb, &ss, true);
	if (ret)
		return ret;
	at.nest = info->attrs[RMEM_A_DEV];
	at.name = tb[RMEM_A_DEV_NAME];
	at.peer = tb[RMEM_A_DEV_PEER];
	at.key = tb[RMEM_A_DEV_KEY] ?: tb[RMEM_A_DEV_KEY_DESC];
	/* -ENOKEY: none given (a key-desc not found has its message) */
	ret = rmem_nl_get_key(info, tb[RMEM_A_DEV_KEY], tb[RMEM_A_DEV_KEY_DESC],
			      key);
	if (ret && (ret != -ENOKEY || at.key))
		goto out_wipe_key;
	ret = rmem_dev_peer_add(nla_data(tb[RMEM_A_DEV_NAME]), &ss,
				at.key ? key : NULL, &at, info->extack);
	/* the peer, where nothing more precise is known */
	if (ret && !info->extack->bad_attr && !info->extack->miss_type &&
	    ret != -ENOMEM)
		NL_SET_BAD_ATTR(info->extack, at.peer);
out_wipe_key:
	memzero_explicit(key, sizeof(key));
	return ret;
}

/*
 * Drain one server (one RMEM_A_DEV_PEER nest) out of a device: started
 * here, it goes on in the background (client/drain.c).
 */
static int rmem_nl_dev_peer_del_doit(struct sk_buff *skb,
				     struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1], *ptb[RMEM_A_PEER_MAX + 1];
	struct sockaddr_storage ss;
	int ret;

	ret = rmem_nl_dev_peer(info, tb, ptb, &ss, false);
	if (ret)
		return ret;
	ret = rmem_dev_peer_del(nla_data(tb[RMEM_A_DEV_NAME]), &ss,
				!ptb[RMEM_A_PEER_PORT], tb[RMEM_A_DEV_PEER],
				info->extack);
	if (ret == -ENODEV)
		NL_SET_BAD_ATTR(info->extack, tb[RMEM_A_DEV_NAME]);
	return ret;
}

/* ---- GET of servers and devices: one doit, one dumpit ------------------ */

static int rmem_nl_get_doit(const struct rmem_nl_obj *o, struct genl_info *info)
{
	struct nlattr *tb[MAX((int)RMEM_A_SERVER_MAX, (int)RMEM_A_DEV_MAX) + 1];
	struct rmem_msg m = {
		.portid = info->snd_portid, .seq = info->snd_seq, .cmd = o->cmd,
	};
	struct sk_buff *msg;
	int idx = 0, ret;

	ret = rmem_nl_obj_parse(o, info, tb);
	if (ret)
		return ret;
	/* a server lists its clients: leave room for a few hundred */
	msg = genlmsg_new(SZ_32K, GFP_KERNEL);
	if (!msg) {
		NL_SET_ERR_MSG(info->extack, "out of memory for the reply");
		return -ENOMEM;
	}
	ret = o->fill(msg, &m, nla_data(tb[o->name]), &idx, info->extack);
	if (ret == -EMSGSIZE)
		NL_SET_ERR_MSG(info->extack, "reply too large; use a dump");
	if (ret) {
		NL_SET_BAD_ATTR(info->extack, tb[o->name]);
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

static int rmem_nl_get_dumpit(const struct rmem_nl_obj *o, struct sk_buff *skb,
			      struct netlink_callback *cb)
{
	struct rmem_msg m = {
		.portid = NETLINK_CB(cb->skb).portid, .seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI, .cmd = o->cmd,
	};
	int idx = cb->args[0];
	int ret;

	ret = o->fill(skb, &m, NULL, &idx, NULL);
	cb->args[0] = idx;
	/* an object that does not fit even an empty message: fail, not end */
	if (ret && (ret != -EMSGSIZE || !skb->len))
		return ret;
	return skb->len;
}

static int rmem_nl_server_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rmem_nl_get_doit(&rmem_nl_server_obj, info);
}

/*
 * All servers, or the one an RMEM_A_SERVER nest names; a server with more
 * clients than a message holds takes several (rmem_server_dump()).
 */
static int rmem_nl_server_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	struct nlattr **attrs = genl_info_dump(cb)->attrs;
	struct nlattr *tb[RMEM_A_SERVER_MAX + 1] = {};
	struct rmem_msg m = {
		.portid = NETLINK_CB(cb->skb).portid, .seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI, .cmd = RMEM_CMD_SERVER_GET,
	};
	unsigned long pos = cb->args[0], from = cb->args[1];
	unsigned long cookie = cb->args[2];
	int ret;

	if (attrs[RMEM_A_SERVER]) {
		ret = nla_parse_nested(tb, RMEM_A_SERVER_MAX, attrs[RMEM_A_SERVER],
				       rmem_server_policy, cb->extack);
		if (ret)
			return ret;
	}
	ret = rmem_server_dump(skb, &m, tb[RMEM_A_SERVER_NAME] ?
			       nla_data(tb[RMEM_A_SERVER_NAME]) : NULL,
			       &pos, &from, &cookie, cb->extack);
	cb->args[0] = pos;
	cb->args[1] = from;
	cb->args[2] = cookie;
	if (ret == -ENOENT)
		NL_SET_BAD_ATTR(cb->extack, tb[RMEM_A_SERVER_NAME]);
	/* a piece that does not fit even an empty message: fail, not end */
	if (ret && (ret != -EMSGSIZE || !skb->len))
		return ret;
	return skb->len;
}

static int rmem_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return rmem_nl_get_doit(&rmem_nl_dev_obj, info);
}

static int rmem_nl_dev_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return rmem_nl_get_dumpit(&rmem_nl_dev_obj, skb, cb);
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
	{
		.cmd = RMEM_CMD_HOST_ADD,
		.doit = rmem_nl_host_add_doit,
		.policy = rmem_host_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_HOST_DEL,
		.doit = rmem_nl_host_del_doit,
		.policy = rmem_host_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_DEV_STATS_RESET,
		.doit = rmem_nl_dev_stats_reset_doit,
		.policy = rmem_dev_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_DEV_PEER_DEL,
		.doit = rmem_nl_dev_peer_del_doit,
		.policy = rmem_dev_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
	{
		.cmd = RMEM_CMD_DEV_PEER_ADD,
		.doit = rmem_nl_dev_peer_add_doit,
		.policy = rmem_dev_op_policy,
		.maxattr = RMEM_A_MAX,
		.flags = GENL_ADMIN_PERM,
	},
};

static const struct genl_multicast_group rmem_nl_mcgrps[] = {
	[RMEM_MCGRP_EVENTS_IDX] = { .name = RMEM_MCGRP_EVENTS },
};

struct genl_family rmem_nl_family __ro_after_init = {
	.name = RMEM_FAMILY_NAME,
	.version = RMEM_FAMILY_VERSION,
	.netnsok = false,
	/* commands can take seconds; our own locks serialise what must be */
	.parallel_ops = true,
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
	int ret = genl_register_family(&rmem_nl_family);

	down_write(&rmem_nl_events_sem);
	rmem_nl_registered = !ret;
	up_write(&rmem_nl_events_sem);
	return ret;
}

/**
 * rmem_nl_exit() - unregister the generic netlink family
 */
void rmem_nl_exit(void)
{
	down_write(&rmem_nl_events_sem);
	rmem_nl_registered = false;
	up_write(&rmem_nl_events_sem);
	genl_unregister_family(&rmem_nl_family);
}
