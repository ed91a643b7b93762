// SPDX-License-Identifier: GPL-2.0
/* A dump's request attributes come as a struct genl_info: genl_info_dump(). */
#include <net/genetlink.h>

static __maybe_unused const struct genl_info *
rmem_probe(struct netlink_callback *cb)
{
	return genl_info_dump(cb);
}
