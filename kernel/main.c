// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: remote RAM over RDMA as a block device.
 *
 * Module entry points.  One module holds both roles: the memory server
 * (donor) and the block device client; both are driven over the generic
 * netlink family "rmem".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rmem.h"

static int __init rmem_init(void)
{
	int ret;

	ret = rmem_nl_init();
	if (ret)
		return ret;

	pr_info("loaded\n");
	return 0;
}

static void __exit rmem_exit(void)
{
	rmem_nl_exit();
	pr_info("unloaded\n");
}

module_init(rmem_init);
module_exit(rmem_exit);

MODULE_DESCRIPTION("Remote RAM over RDMA as a block device");
MODULE_LICENSE("GPL");
