/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem: the kernel API the module is written against, on older kernels.
 *
 * The code reads as today's kernel API: queue limits and features given at
 * disk allocation, merging without a tag set flag, blk_rq_map_sg() on the
 * request alone, a struct genl_info in dumps, MAX_PAGE_ORDER.  Where the
 * target kernel lacks one of these, a shim below stands in for it.
 *
 * Which shims apply is decided by feature tests, never by kernel version
 * numbers (a distribution kernel may carry a newer API under an older
 * version): a macro is tested with #ifdef; anything else (a function's
 * signature, an enum constant, a struct member) by a probe in
 * kernel/features/ that scripts/configure.sh compiles against the target
 * kernel, which writes the answers to rmem_config.h in the build directory.
 *
 * This header includes the headers it shims first, so it may come anywhere
 * among a file's includes.
 */
#ifndef _RMEM_COMPAT_H
#define _RMEM_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/log2.h>
#include <linux/mmzone.h>
#include <net/genetlink.h>

#include "rmem_config.h"

/* ---- memory ------------------------------------------------------------ */

/* The largest page allocation order, inclusive (MAX_ORDER - 1 before 6.4). */
#ifndef MAX_PAGE_ORDER
#define MAX_PAGE_ORDER ilog2(MAX_ORDER_NR_PAGES)
#endif

/* ---- generic netlink ----------------------------------------------------- */

/*
 * genl_info_dump(cb)->attrs: a dump's parsed request attributes.  The
 * oldest form has no struct genl_info for a dump, only ->attrs in struct
 * genl_dumpit_info, so callers use nothing but ->attrs of the result.
 */
#ifndef RMEM_HAVE_GENL_INFO_DUMP
#ifdef RMEM_HAVE_GENL_DUMPIT_INFO_INFO
#define genl_info_dump(cb) (&genl_dumpit_info(cb)->info)
#else
#define genl_info_dump(cb) genl_dumpit_info(cb)
#endif
#endif

/* ---- block ---------------------------------------------------------------- */

/* Tag set flags: merging was opt-in (BLK_MQ_F_SHOULD_MERGE) until 6.14. */
#ifdef RMEM_HAVE_BLK_MQ_F_SHOULD_MERGE
#define RMEM_BLK_MQ_F_MERGE	BLK_MQ_F_SHOULD_MERGE
#else
#define RMEM_BLK_MQ_F_MERGE	0
#endif

#ifndef RMEM_HAVE_BLK_RQ_MAP_SG_RQ
static inline int rmem_compat_blk_rq_map_sg(struct request *rq,
					    struct scatterlist *sgl)
{
	return blk_rq_map_sg(rq->q, rq, sgl);
}

#define blk_rq_map_sg(rq, sgl) rmem_compat_blk_rq_map_sg(rq, sgl)
#endif

/*
 * blk_mq_alloc_disk(set, lim, data) with struct queue_limits whose
 * features (BLK_FEAT_*) rmem leaves clear: not rotational, no volatile
 * write cache, no entropy.  Without features the queue flags say the same;
 * without limits at allocation the setters apply the limits rmem uses.
 */
#if !defined(RMEM_HAVE_BLK_MQ_ALLOC_DISK_LIM) || !defined(BLK_FEAT_ROTATIONAL)
static inline struct gendisk *
rmem_compat_disk_setup(struct gendisk *disk, const struct queue_limits *lim)
{
	struct request_queue *q;

	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
#ifndef RMEM_HAVE_BLK_MQ_ALLOC_DISK_LIM
	/* every field rmem_blk_limits() sets, and only those */
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_io_min(q, lim->io_min);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_chunk_sectors(q, lim->chunk_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	blk_queue_max_write_zeroes_sectors(q, lim->max_write_zeroes_sectors);
	q->limits.discard_granularity = lim->discard_granularity;
#endif
	blk_queue_write_cache(q, false, false);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_clear(QUEUE_FLAG_ADD_RANDOM, q);
	return disk;
}

#undef blk_mq_alloc_disk
#ifdef RMEM_HAVE_BLK_MQ_ALLOC_DISK_LIM
#define blk_mq_alloc_disk(set, lim, data)				\
({									\
	static struct lock_class_key __key;				\
	struct queue_limits *__lim = (lim);				\
									\
	rmem_compat_disk_setup(__blk_mq_alloc_disk(set, __lim, data,	\
						   &__key), __lim);	\
})
#else
#define blk_mq_alloc_disk(set, lim, data)				\
({									\
	static struct lock_class_key __key;				\
									\
	rmem_compat_disk_setup(__blk_mq_alloc_disk(set, data, &__key),	\
			       lim);					\
})
#endif
#endif

#endif /* _RMEM_COMPAT_H */
