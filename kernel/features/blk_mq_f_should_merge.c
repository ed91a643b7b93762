// SPDX-License-Identifier: GPL-2.0
/* Merging is opt-in with a tag set flag (an enum: #ifdef cannot see it). */
#include <linux/blk-mq.h>

static __maybe_unused unsigned int rmem_probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
