// SPDX-License-Identifier: GPL-2.0
/* blk_rq_map_sg() takes the request alone, without its queue. */
#include <linux/blk-mq.h>

static __maybe_unused int rmem_probe(struct request *rq,
				     struct scatterlist *sgl)
{
	return blk_rq_map_sg(rq, sgl);
}
