/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem client role: what the extent map (extent.c) and the extent worker
 * (extent_work.c) share.
 */
#ifndef _RMEM_EXTENT_H
#define _RMEM_EXTENT_H

#include "client.h"

/*
 * An extent's replicas, in one word (&rmem_emap.rep): the session index
 * of replica k in bits 3k to 3k + 2, their number at RMEM_REP_N_SHIFT,
 * and a stale bit per replica from RMEM_REP_STALE_SHIFT: a replica that
 * missed a write (or may have) serves no I/O until a resync.  One word,
 * so that marking one stale while keeping another current is one cmpxchg.
 */
#define RMEM_REP_SESS_BITS	3
#define RMEM_REP_N_SHIFT	9
#define RMEM_REP_STALE_SHIFT	12

static inline unsigned int rmem_rep_n(u32 r)
{
	return (r >> RMEM_REP_N_SHIFT) & 3;
}

static inline unsigned int rmem_rep_sess(u32 r, unsigned int k)
{
	return (r >> (k * RMEM_REP_SESS_BITS)) & 7;
}

/* The replicas of @r that are current (not stale), as a mask. */
static inline unsigned int rmem_rep_current(u32 r)
{
	return ~(r >> RMEM_REP_STALE_SHIFT) & (BIT(rmem_rep_n(r)) - 1);
}

static inline u32 rmem_rep_add(u32 r, unsigned int sess)
{
	unsigned int n = rmem_rep_n(r);

	r &= ~(3U << RMEM_REP_N_SHIFT);
	return r | sess << (n * RMEM_REP_SESS_BITS) |
	       (n + 1) << RMEM_REP_N_SHIFT;
}

/* Whether a replica of @r (stale or current) is on session @sess. */
static inline bool rmem_rep_has(u32 r, unsigned int sess)
{
	unsigned int k;

	for (k = 0; k < rmem_rep_n(r); k++)
		if (rmem_rep_sess(r, k) == sess)
			return true;
	return false;
}

/* @r with replica @k on session @sess, stale or current. */
static inline u32 rmem_rep_set(u32 r, unsigned int k, unsigned int sess,
			       bool stale)
{
	r &= ~(7U << (k * RMEM_REP_SESS_BITS));
	r |= sess << (k * RMEM_REP_SESS_BITS);
	if (k >= rmem_rep_n(r)) {
		r &= ~(3U << RMEM_REP_N_SHIFT);
		r |= (k + 1) << RMEM_REP_N_SHIFT;
	}
	if (stale)
		r |= BIT(RMEM_REP_STALE_SHIFT + k);
	else
		r &= ~BIT(RMEM_REP_STALE_SHIFT + k);
	return r;
}

/* @r without replica @k: the later ones move down a place. */
static inline u32 rmem_rep_del(u32 r, unsigned int k)
{
	unsigned int n = rmem_rep_n(r), i;
	u32 out = 0;

	for (i = 0; i < n; i++)
		if (i != k)
			out = rmem_rep_set(out, rmem_rep_n(out),
					   rmem_rep_sess(r, i),
					   r & BIT(RMEM_REP_STALE_SHIFT + i));
	return out;
}

/*
 * &rmem_emap.sync_tgt while a resync's copy of extent @e takes writes:
 * they go to replica @dst too.  One word, so that a write reads the
 * extent and the replica together.
 */
#define RMEM_SYNC_WORD(e, dst)	((unsigned long)(e) << 3 | (dst) << 1 | 1)
#define RMEM_SYNC_UNLOCKED	ULONG_MAX

/* Whether sync word @t says a copy of extent @e takes writes. */
static inline bool rmem_sync_word_is(unsigned long t, unsigned int e)
{
	return (t & 1) && t >> 3 == e;
}

/* The target replica of sync word @t. */
static inline unsigned int rmem_sync_word_dst(unsigned long t)
{
	return (t >> 1) & 3;
}

/* Whether @rq touches bytes [@pos, @end) of the device. */
static inline bool rmem_rq_overlaps(struct request *rq, u64 pos, u64 end)
{
	u64 start = blk_rq_pos(rq) << SECTOR_SHIFT;

	return start < end && start + blk_rq_bytes(rq) > pos;
}

/* An extent's state (&rmem_emap.state): extent.c says what each means. */
enum {
	RMEM_EXTENT_UNWRITTEN,
	RMEM_EXTENT_PRESENT,
	RMEM_EXTENT_FREEING,
	RMEM_EXTENT_GIVING,
	RMEM_EXTENT_SENT,
	RMEM_EXTENT_SYNCING,
};

enum rmem_emap_verdict {
	RMEM_EMAP_ISSUE,	/* every extent has memory: issue it */
	RMEM_EMAP_ZEROS,	/* none has, and zeros are the answer */
	RMEM_EMAP_HOLE,		/* a read: one has, the other reads zeros */
	RMEM_EMAP_WAIT,		/* the worker must make or free one */
};

void rmem_emap_publish(struct rmem_emap *m, unsigned int e, u32 rep);
bool rmem_emap_rq_touches(const struct rmem_emap *m, struct request *rq,
			  unsigned int e);
enum rmem_emap_verdict rmem_emap_check(struct rmem_emap *m, struct request *rq,
				       unsigned int *need);
bool rmem_emap_busy(struct rmem_emap *m, unsigned int e, bool writes);
bool rmem_emap_busy_range(struct rmem_emap *m, u64 pos, u64 len);
void rmem_emap_requeue(struct rmem_emap *m);
struct rmem_sess *rmem_emap_place(struct rmem_emap *m, unsigned long tried);
int rmem_emap_alloc_on(struct rmem_emap *m, unsigned int e,
		       struct rmem_sess *sess);
unsigned long rmem_emap_alive(const struct rmem_dev *dev, u32 r);
unsigned long rmem_emap_draining(const struct rmem_dev *dev, u32 r);
unsigned long rmem_emap_kept(const struct rmem_dev *dev, u32 r);
unsigned long rmem_emap_kept_live(const struct rmem_dev *dev, u32 r);
int rmem_emap_resync(struct rmem_emap *m);
unsigned long rmem_emap_resync_hold(struct rmem_emap *m);
void rmem_emap_resync_stop(struct rmem_emap *m);

#endif /* _RMEM_EXTENT_H */
