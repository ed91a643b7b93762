// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: generic netlink family "rmem".
 *
 * Every command has its own policy; every rejection carries an extack
 * message naming the offending attribute.
 */
#include <net/genetlink.h>
#include <linux/rmem.h>

#include "rmem.h"

static struct genl_family rmem_nl_family;

static const struct nla_policy rmem_server_policy[RMEM_A_SERVER_MAX + 1] = {
	[RMEM_A_SERVER_NAME] = { .type = NLA_NUL_STRING, .len = 31 },
};

static const struct nla_policy rmem_dev_policy[RMEM_A_DEV_MAX + 1] = {
	[RMEM_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 31 },
};

static const struct nla_policy rmem_server_get_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_SERVER] = NLA_POLICY_NESTED(rmem_server_policy),
};

static const struct nla_policy rmem_dev_get_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_DEV] = NLA_POLICY_NESTED(rmem_dev_policy),
};

/**
 * rmem_nl_server_get_doit() - look up one memory server by name
 * @skb: request
 * @info: request attributes and extack
 *
 * Return: 0 and a reply, or a negative errno with an extack message.
 */
static int rmem_nl_server_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_SERVER_MAX + 1];
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RMEM_A_SERVER)) {
		NL_SET_ERR_MSG(info->extack, "missing server attributes");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, RMEM_A_SERVER_MAX, info->attrs[RMEM_A_SERVER],
			       rmem_server_policy, info->extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[RMEM_A_SERVER], tb,
			      RMEM_A_SERVER_NAME)) {
		NL_SET_ERR_MSG(info->extack, "missing server name");
		return -EINVAL;
	}
	NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_SERVER_NAME],
			    "no such server");
	return -ENOENT;
}

/**
 * rmem_nl_server_get_dumpit() - list all memory servers
 * @skb: reply buffer
 * @cb: dump state
 *
 * Return: length of @skb, 0 when the dump is complete.
 */
static int rmem_nl_server_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	return 0;
}

/**
 * rmem_nl_dev_get_doit() - look up one client device by name
 * @skb: request
 * @info: request attributes and extack
 *
 * Return: 0 and a reply, or a negative errno with an extack message.
 */
static int rmem_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[RMEM_A_DEV_MAX + 1];
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, RMEM_A_DEV)) {
		NL_SET_ERR_MSG(info->extack, "missing device attributes");
		return -EINVAL;
	}
	ret = nla_parse_nested(tb, RMEM_A_DEV_MAX, info->attrs[RMEM_A_DEV],
			       rmem_dev_policy, info->extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, info->attrs[RMEM_A_DEV], tb,
			      RMEM_A_DEV_NAME)) {
		NL_SET_ERR_MSG(info->extack, "missing device name");
		return -EINVAL;
	}
	NL_SET_ERR_MSG_ATTR(info->extack, tb[RMEM_A_DEV_NAME],
			    "no such device");
	return -ENODEV;
}

/**
 * rmem_nl_dev_get_dumpit() - list all client devices
 * @skb: reply buffer
 * @cb: dump state
 *
 * Return: length of @skb, 0 when the dump is complete.
 */
static int rmem_nl_dev_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return 0;
}

static const struct genl_ops rmem_nl_ops[] = {
	{
		.cmd = RMEM_CMD_SERVER_GET,
		.doit = rmem_nl_server_get_doit,
		.dumpit = rmem_nl_server_get_dumpit,
		.policy = rmem_server_get_policy,
		.maxattr = RMEM_A_MAX,
	},
	{
		.cmd = RMEM_CMD_DEV_GET,
		.doit = rmem_nl_dev_get_doit,
		.dumpit = rmem_nl_dev_get_dumpit,
		.policy = rmem_dev_get_policy,
		.maxattr = RMEM_A_MAX,
	},
};

static const struct genl_multicast_group rmem_nl_mcgrps[] = {
	{ .name = RMEM_MCGRP_EVENTS },
};

static struct genl_family rmem_nl_family __ro_after_init = {
	.name = RMEM_FAMILY_NAME,
	.version = RMEM_FAMILY_VERSION,
	.netnsok = true,
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
