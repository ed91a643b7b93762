// SPDX-License-Identifier: GPL-2.0
/* struct genl_dumpit_info holds a struct genl_info (before genl_info_dump()). */
#include <net/genetlink.h>

static __maybe_unused const struct genl_info *
rmem_probe(struct netlink_callback *cb)
{
	return &genl_dumpit_info(cb)->info;
}
