// SPDX-License-Identifier: GPL-2.0
/*
 * Always compiles: a failure here means KDIR, the compiler or one of the
 * headers the other probes include is broken, and configure stops rather
 * than read that as "this kernel lacks the API".
 */
#include <linux/blk-mq.h>
#include <linux/module.h>
#include <net/genetlink.h>

static __maybe_unused int rmem_probe(void)
{
	return 0;
}
