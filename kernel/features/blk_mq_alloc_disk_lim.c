// SPDX-License-Identifier: GPL-2.0
/* Queue limits are passed at allocation: blk_mq_alloc_disk(set, lim, data). */
#include <linux/blk-mq.h>

static __maybe_unused struct gendisk *
rmem_probe(struct blk_mq_tag_set *set, struct queue_limits *lim)
{
	return blk_mq_alloc_disk(set, lim, NULL);
}
