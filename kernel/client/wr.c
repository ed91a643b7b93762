// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: a block request's RDMA work requests.
 *
 * A request's pages are mapped into its PDU's scatterlist, then turned
 * into RDMA READ or WRITE work requests against the server's chunks (one
 * per chunk, per max_sge pieces and, for READs, per read split), chained
 * and posted.  A small request's state lives in its PDU; a larger one
 * takes room from its device's mempool (rmem_get_ext()), whose reserve
 * keeps swap going when allocations fail.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/mempool.h>
#include <rdma/ib_verbs.h>

#include "client.h"
#include "compat.h"

/*
 * Testing only (module parameter fault_sector, off by default): a work
 * request touching that sector gets a wrong rkey, an error the server's
 * NIC gives every time, to test the retry budget.
 */
static bool rmem_fault_hit(u64 pos, u32 len)
{
	u64 s = READ_ONCE(rmem_fault_sector);

	return s != U64_MAX && pos <= s << SECTOR_SHIFT &&
	       (s << SECTOR_SHIFT) < pos + len;
}

/*
 * Soft-RoCE can complete an RDMA READ as successful when only part of its
 * response arrived: its completer (rxe_comp.c check_ack(), 6.1 and 6.12)
 * meets a response packet out of the expected sequence, ends the work
 * request in COMPST_ERROR without an error status ("WARNING ...
 * rxe_completer"), completes it with IB_WC_SUCCESS and moves the queue
 * pair to error.  So a READ request does not end on its data: its last
 * work request, after @last (the @nwr-th, with @nsge entries used in all),
 * reads the request's last bytes (RMEM_READ_TAIL at most) again, into the
 * same place.  A data READ cut short then completes unsignalled, and the
 * tail behind it is flushed with an error: the request fails over to the
 * device's error path (reissued while the device holds I/O, else EIO).
 * This rests on what rxe does, not on a verbs guarantee: it completes
 * send queue entries strictly in order, and its cut-short path moves the
 * queue pair to error before a later entry can complete, so every later
 * entry is flushed.  So if the tail itself is cut short, the READs before
 * it completed in full and the bytes it covers are already right.
 *
 * Return: the tail work request, or NULL if the request has no room.
 */
static struct ib_rdma_wr *rmem_build_read_tail(struct rmem_req *cmd,
					       struct ib_rdma_wr *last,
					       unsigned int nwr,
					       unsigned int nsge)
{
	struct ib_sge *data = &cmd->sge[nsge - 1];
	u32 t = min_t(u32, data->length, RMEM_READ_TAIL);
	struct ib_rdma_wr *wr;
	u32 last_len = 0;
	int i;

	if (nwr == cmd->leg.nr_wr || nsge == cmd->nr_sge)
		return NULL;
	for (i = 0; i < last->wr.num_sge; i++)
		last_len += last->wr.sg_list[i].length;
	wr = &cmd->leg.wr[nwr];
	memset(wr, 0, sizeof(*wr));
	last->wr.next = &wr->wr;
	wr->wr.opcode = IB_WR_RDMA_READ;
	wr->wr.sg_list = &cmd->sge[nsge];
	wr->wr.num_sge = 1;
	cmd->sge[nsge] = *data;
	cmd->sge[nsge].addr += data->length - t;
	cmd->sge[nsge].length = t;
	/* the last bytes of @last's range: same chunk, same rkey */
	wr->remote_addr = last->remote_addr + last_len - t;
	wr->rkey = last->rkey;
	return wr;
}

/**
 * rmem_build_wrs() - a request's work requests
 * @dev: its device
 * @cmd: the request, its legs' queues set and its scatterlist mapped
 *	(rmem_map_data())
 * @op: IB_WR_RDMA_READ or IB_WR_RDMA_WRITE
 * @pos: device offset in bytes, checked against the device's size
 * @zero_len: write-zeroes: bytes of the zero buffer to write, else 0
 *
 * The mapped pieces or, with @zero_len, @zero_len bytes of the zero
 * buffer become chained work requests at @pos: at most max_sge entries
 * each, a new one at every chunk boundary and, for a READ on a device
 * with a read split, at every multiple of the split.  Only the last is
 * signalled.  The part of a thin device's read in an extent never
 * written (@cmd's hole) gets none: it reads zeros at completion.  They go
 * in @cmd's first leg; a write with further legs (replicas) ends its work
 * requests where every leg's chunks allow (rmem_build_xlegs() copies
 * them).
 *
 * Return: 0; -ENOSPC if the request needs more work requests or entries
 * than @cmd has room for (its PDU's: rmem_get_ext() gives it more); -EIO
 * if it needs more than the send queue holds per request (never, within
 * the queue limits).
 */
int rmem_build_wrs(struct rmem_dev *dev, struct rmem_req *cmd,
		   enum ib_wr_opcode op, u64 pos, u32 zero_len)
{
	struct rmem_leg *leg = &cmd->leg;
	const struct rmem_sess *sess = leg->queue->sess;
	u64 mask = sess->chunk_size - 1;
	/* where a work request must end: chunks, or READ pieces within one */
	u64 wr_mask = mask;
	struct ib_rdma_wr *wr = NULL;
	struct scatterlist *sg = cmd->sgl;
	unsigned int max_wrs = min_t(unsigned int, RMEM_DATA_WRS_PER_RQ,
				     rmem_data_wrs_per_rq(dev->cfg.read_split));
	unsigned int nsge = 0, nwr = 0, in_wr = 0;
	int left = cmd->nents;
	/* a part of a thin device's read that is not read (zeros) */
	u64 hole = pos + cmd->hole_off, hole_end = hole + cmd->hole_len;

	unsigned int i;

	if (op == IB_WR_RDMA_READ && dev->cfg.read_split)
		wr_mask = min_t(u64, dev->cfg.read_split, sess->chunk_size) - 1;
	/* a write's legs end their work requests at the same places */
	for (i = 1; i < cmd->nr_legs; i++)
		wr_mask = min_t(u64, wr_mask,
				rmem_req_leg(cmd, i)->queue->sess->chunk_size - 1);
	while (zero_len || left) {
		u64 addr, len;

		if (zero_len) {
			addr = dev->zero_dma;
			len = min_t(u32, zero_len, RMEM_ZERO_BUF);
			zero_len -= len;
		} else {
			addr = sg_dma_address(sg);
			len = sg_dma_len(sg);
			sg = sg_next(sg);
			left--;
		}
		while (len) {
			u64 room = wr_mask + 1 - (pos & wr_mask);
			u32 l = min(len, room);
			struct ib_sge *sge;

			if (unlikely(cmd->hole_len)) {
				if (pos >= hole && pos < hole_end) {
					l = min_t(u64, len, hole_end - pos);
					addr += l;
					len -= l;
					pos += l;
					in_wr = 0;
					continue;
				}
				if (pos < hole)
					l = min_t(u64, l, hole - pos);
			}
			if (!in_wr) {
				const struct rmem_remote_chunk *c;

				/* the send queue holds this many (and a tail) */
				if (nwr == max_wrs)
					return -EIO;
				if (nwr == leg->nr_wr)
					return -ENOSPC;
				c = &sess->chunks[pos >> sess->chunk_shift];
				wr = &leg->wr[nwr];
				memset(wr, 0, sizeof(*wr));
				if (nwr)
					leg->wr[nwr - 1].wr.next = &wr->wr;
				nwr++;
				wr->wr.opcode = op;
				wr->wr.wr_cqe = &leg->err_cqe;
				wr->wr.sg_list = &cmd->sge[nsge];
				wr->remote_addr = c->addr + (pos & mask);
				wr->rkey = c->rkey;
				if (unlikely(rmem_fault_hit(pos, l)))
					wr->rkey = ~c->rkey;
			}
			if (nsge == cmd->nr_sge)
				return -ENOSPC;
			sge = &cmd->sge[nsge++];
			sge->addr = addr;
			sge->length = l;
			sge->lkey = dev->pd->local_dma_lkey;
			wr->wr.num_sge++;
			addr += l;
			len -= l;
			pos += l;
			if (++in_wr == dev->max_sge || !(pos & wr_mask))
				in_wr = 0;
		}
	}
	if (!wr)
		return -EIO;
	if (op == IB_WR_RDMA_READ && READ_ONCE(dev->read_tail)) {
		wr = rmem_build_read_tail(cmd, wr, nwr, nsge);
		if (!wr)
			return -ENOSPC;
	}
	wr->wr.wr_cqe = &leg->cqe;
	wr->wr.send_flags = IB_SEND_SIGNALED;
	leg->last_wr = &wr->wr;
	return 0;
}

/**
 * rmem_build_xlegs() - a write's work requests to its further replicas
 * @cmd: the write, its first leg built (rmem_build_wrs(), which ended its
 *	work requests where every leg's chunks allow)
 * @pos: its byte offset in the device
 *
 * Each further leg gets the first leg's work requests, with the same
 * local entries, each aimed at its own server's chunk.
 *
 * Return: 0, or -EIO if the first leg has more work requests than a
 * further leg holds (never: see &struct rmem_xleg).
 */
int rmem_build_xlegs(struct rmem_req *cmd, u64 pos)
{
	struct rmem_leg *l0 = &cmd->leg;
	unsigned int nwr = container_of(l0->last_wr, struct ib_rdma_wr, wr) -
			   l0->wr + 1;
	unsigned int i, j, k;
	u32 len;

	if (nwr > RMEM_INLINE_WRS)
		return -EIO;
	for (i = 1; i < cmd->nr_legs; i++) {
		struct rmem_leg *leg = rmem_req_leg(cmd, i);
		const struct rmem_sess *sess = leg->queue->sess;
		u64 p = pos;

		for (j = 0; j < nwr; j++) {
			const struct ib_rdma_wr *src = &l0->wr[j];
			struct ib_rdma_wr *wr = &leg->wr[j];
			const struct rmem_remote_chunk *c =
				&sess->chunks[p >> sess->chunk_shift];

			*wr = *src;
			wr->remote_addr = c->addr + (p & (sess->chunk_size - 1));
			wr->rkey = c->rkey;
			wr->wr.wr_cqe = &leg->err_cqe;
			for (k = 0, len = 0; k < src->wr.num_sge; k++)
				len += src->wr.sg_list[k].length;
			if (unlikely(rmem_fault_hit(p, len)))
				wr->rkey = ~c->rkey;
			wr->wr.next = j + 1 < nwr ? &leg->wr[j + 1].wr : NULL;
			p += len;
		}
		leg->wr[nwr - 1].wr.wr_cqe = &leg->cqe;
		leg->last_wr = &leg->wr[nwr - 1].wr;
	}
	return 0;
}

/*
 * Testing only (module parameter fault_ext): whether this attempt to take
 * room is refused, as one of the next fault_ext ones.
 */
static bool rmem_fault_ext_hit(void)
{
	int n = atomic_read(&rmem_fault_ext);

	while (unlikely(n > 0)) {
		if (atomic_try_cmpxchg(&rmem_fault_ext, &n, n - 1))
			return true;
	}
	return false;
}

/*
 * The mempool's allocator: kmalloc on the RDMA device's node (pool data:
 * the node, plus one so that node 0 is not NULL).
 */
void *rmem_ext_alloc(gfp_t gfp, void *data)
{
	return kmalloc_node(sizeof(struct rmem_req_ext), gfp,
			    (int)(uintptr_t)data - 1);
}

/**
 * rmem_get_ext() - room for a request too large for its PDU
 * @dev: its device
 * @cmd: the request, its data not yet mapped, or mapped into its PDU
 *
 * From now on the request's work requests and entries are built in a
 * struct rmem_req_ext, and, if its pages are not mapped yet, they go
 * there too.  ->queue_rq() may not sleep, and under memory pressure (swap
 * runs through here) kmalloc fails: the mempool's reserve, at least one
 * element per queue, is given back as requests end (rmem_unmap_data()).
 * With the reserve empty too, the request is requeued: the block layer
 * runs its queue again shortly (BLK_STS_RESOURCE), and sooner, when an
 * element is given back, if that comes first.  Not BLK_STS_DEV_RESOURCE:
 * the pool is the device's, and the queue whose request waits may have
 * nothing in flight to restart it.
 *
 * Return: BLK_STS_OK, or BLK_STS_RESOURCE if no room was found (also the
 * fault_ext test fault).
 */
blk_status_t rmem_get_ext(struct rmem_dev *dev, struct rmem_req *cmd)
{
	struct rmem_req_ext *ext = NULL;

	if (unlikely(rmem_fault_ext_hit()))
		pr_info_ratelimited("%s: fault_ext: a request found no room\n",
				    dev->name);
	else
		ext = mempool_alloc(dev->ext_pool, GFP_NOWAIT | __GFP_NOWARN);
	if (unlikely(!ext)) {
		/* a hint: a missed one costs the block layer's short delay */
		WRITE_ONCE(dev->ext_waiting, true);
		return BLK_STS_RESOURCE;
	}
	cmd->ext = ext;
	if (!cmd->nr_sgl)
		cmd->sgl = ext->sgl;
	cmd->sge = ext->sge;
	cmd->nr_sge = ARRAY_SIZE(ext->sge);
	cmd->leg.wr = ext->wr;
	cmd->leg.nr_wr = ARRAY_SIZE(ext->wr);
	return BLK_STS_OK;
}

/**
 * rmem_map_data() - map a request's pages for the RDMA device
 * @dev: its device
 * @rq: the request
 * @cmd: its PDU, whose scatterlist takes the pages
 *
 * Return: BLK_STS_OK, BLK_STS_RESOURCE if the DMA mapping failed (the
 * request is retried, as when it found no room: rmem_get_ext()), or
 * BLK_STS_IOERR if it has no data.
 */
blk_status_t rmem_map_data(struct rmem_dev *dev, struct request *rq,
			   struct rmem_req *cmd)
{
	unsigned int segs = blk_rq_nr_phys_segments(rq);
	blk_status_t ret;
	int n;

	if (segs > RMEM_INLINE_SEGS && !cmd->ext) {
		ret = rmem_get_ext(dev, cmd);
		if (ret)
			return ret;
	}
	sg_init_table(cmd->sgl, segs);
	n = blk_rq_map_sg(rq, cmd->sgl);
	if (WARN_ON_ONCE(n <= 0))
		return BLK_STS_IOERR;
	cmd->nents = ib_dma_map_sg(dev->ibdev, cmd->sgl, n, rq_dma_dir(rq));
	if (!cmd->nents)
		return BLK_STS_RESOURCE;
	cmd->nr_sgl = n;
	return BLK_STS_OK;
}

/**
 * rmem_unmap_data() - unmap a request's pages and give back its room
 * @dev: its device
 * @cmd: the request, none of its work requests live any more
 *
 * Whatever of rmem_map_data() and rmem_get_ext() it went through: both
 * are undone, and if a request found the mempool empty the hardware
 * queues run again now rather than after the block layer's delay.
 */
void rmem_unmap_data(struct rmem_dev *dev, struct rmem_req *cmd)
{
	struct request *rq = blk_mq_rq_from_pdu(cmd);

	if (cmd->nr_sgl) {
		ib_dma_unmap_sg(dev->ibdev, cmd->sgl, cmd->nr_sgl,
				rq_dma_dir(rq));
		cmd->nr_sgl = 0;
	}
	if (!cmd->ext)
		return;
	mempool_free(cmd->ext, dev->ext_pool);
	cmd->ext = NULL;
	if (unlikely(READ_ONCE(dev->ext_waiting))) {
		WRITE_ONCE(dev->ext_waiting, false);
		blk_mq_run_hw_queues(rq->q, true);
	}
}

/*
 * A leg of the batch whose work requests were not posted: nothing of it
 * is live.  It ends through the completion path like a flushed one: its
 * request is reissued once the device has reconnected, else an I/O error
 * (a write whose other legs went out: this replica turns stale).  With
 * @refused the device refused it (its first work request was the bad
 * one): that counts against the retry budget, so that a request refused
 * every time does not loop for ever; the legs behind it in the batch
 * were not tried.
 */
static void rmem_leg_unposted(struct rmem_leg *leg, bool refused)
{
	leg->status = BLK_STS_IOERR;
	leg->hard_error = refused;
	rmem_leg_end(leg);
}

/*
 * A leg of the batch some of whose work requests are live: it ends when
 * its queue pair has been drained (rmem_blk_drained()), never before; the
 * connection's failure drains it.
 */
static void rmem_leg_partial(struct rmem_leg *leg)
{
	leg->status = BLK_STS_IOERR;
	/* the device refused it: counts against the retry budget */
	leg->hard_error = true;
	WRITE_ONCE(leg->partial, true);
}

/* Where a request's work requests are, noted before the post. */
struct rmem_wr_span {
	const void *lo;
	const void *hi;
};

/* Whether @wr lies in @span (no access to its request). */
static bool rmem_span_has_wr(const struct rmem_wr_span *span,
			     const struct ib_send_wr *wr)
{
	return (const void *)wr >= span->lo && (const void *)wr < span->hi;
}

/*
 * Post @n requests (their work requests built) as one chain: one doorbell.
 * A software RDMA device (rxe) does the protocol work of a post in a
 * tasklet.  On a polled queue the submitter is going to spin for the
 * completion anyway: posting with bottom halves off lets
 * local_bh_enable() run that work at once, in the submitter's context,
 * rather than in ksoftirqd after two context switches.  On an
 * interrupt-driven queue the tasklets keep running on their own, where
 * they batch and pipeline across CPUs.  A hardware NIC does the work
 * itself and both ways cost the same.
 *
 * A batch found after the device stopped being live (the queue pair may
 * be going away) is not posted: its requests wait for the reconnect.
 * This runs inside the block layer's dispatch, so the barrier of the
 * recovery (rmem_sess_queue_barrier()) orders it before any teardown.
 *
 * Nothing may touch a request after a successful post: it may be complete
 * (and reused, its work requests elsewhere).  So a failed post is sorted
 * out from the driver's bad work request and where each request's work
 * requests were before the post: the requests before the one holding it
 * went out whole;
 * that one went out in part unless it is its first (then its queue pair
 * must be drained before it may end: rmem_blk_drained()); the requests
 * after it did not go out.  Either way the connection is lost.
 */
static void rmem_post_batch(struct rmem_queue *queue, struct rmem_leg **legs,
			    unsigned int n)
{
	struct rmem_wr_span span[RMEM_BATCH];
	const struct ib_send_wr *bad = NULL;
	struct rmem_dev *dev = queue->dev;
	unsigned int i;
	int err;

	if (unlikely(READ_ONCE(queue->sess->state) != RMEM_DEV_STATE_LIVE ||
		     !READ_ONCE(queue->connected))) {
		for (i = 0; i < n; i++)
			rmem_leg_unposted(legs[i], false);
		return;
	}
	for (i = 0; i < n; i++) {
		span[i].lo = legs[i]->wr;
		span[i].hi = legs[i]->wr + legs[i]->nr_wr;
		legs[i]->last_wr->next = i + 1 < n ? &legs[i + 1]->wr[0].wr :
						     NULL;
	}
	if (!queue->poll) {
		err = ib_post_send(queue->cm_id->qp, &legs[0]->wr[0].wr, &bad);
	} else {
		local_bh_disable();
		err = ib_post_send(queue->cm_id->qp, &legs[0]->wr[0].wr, &bad);
		local_bh_enable();
	}
	if (likely(!err))
		return;

	WRITE_ONCE(queue->connected, false);
	for (i = 0; i < n; i++)
		if (rmem_span_has_wr(&span[i], bad))
			break;
	/*
	 * A driver that fails a post says where it stopped.  One that does
	 * not leaves nothing safe to do with the requests (any may be
	 * complete, and reused): the drain completes those that went out;
	 * one that did not would wait for ever (a driver bug).
	 */
	if (WARN_ON_ONCE(i == n)) {
		rmem_sess_fail(queue->sess);
		return;
	}
	if ((const void *)bad != span[i].lo) {
		pr_err_ratelimited("%s: a request was posted only in part\n",
				   dev->name);
		rmem_leg_partial(legs[i++]);
	} else {
		rmem_leg_unposted(legs[i++], true);
	}
	rmem_sess_fail(queue->sess);
	for (; i < n; i++)
		rmem_leg_unposted(legs[i], false);
}

/*
 * Under the batch lock: add @leg (if any); then, if @all or the batch is
 * full, take every leg out of it into @legs.
 *
 * Return: how many were taken.
 */
static unsigned int rmem_take_batch(struct rmem_queue *queue,
				    struct rmem_leg *leg, bool all,
				    struct rmem_leg **legs)
{
	struct rmem_queue_io *io = queue->io;
	unsigned int n = 0;

	spin_lock(&io->batch_lock);
	if (leg)
		io->batch[io->batch_nr++] = leg;
	if (all || io->batch_nr == RMEM_BATCH) {
		n = io->batch_nr;
		memcpy(legs, io->batch, n * sizeof(legs[0]));
		io->batch_nr = 0;
	}
	spin_unlock(&io->batch_lock);
	return n;
}

/**
 * rmem_queue_batch() - add a request's leg to its queue's batch
 * @queue: the leg's queue
 * @leg: the leg, its work requests built (rmem_build_wrs(),
 *	rmem_build_xlegs())
 *
 * The batch is posted with one doorbell when it is full, or by
 * rmem_commit_batch() at the block layer's last request for now.
 * Several CPUs may dispatch to one hardware queue: whichever finds the
 * batch due posts every leg in it.  @leg ends through the completion path
 * from here on, posted or not.
 */
void rmem_queue_batch(struct rmem_queue *queue, struct rmem_leg *leg)
{
	struct rmem_leg *legs[RMEM_BATCH];
	unsigned int n = rmem_take_batch(queue, leg, false, legs);

	if (n)
		rmem_post_batch(queue, legs, n);
}

/**
 * rmem_commit_batch() - post what the queue's batch holds
 * @queue: the queue
 *
 * At the block layer's last request for now (bd->last), and for
 * ->commit_rqs(): it stopped short of a request it had announced.
 */
void rmem_commit_batch(struct rmem_queue *queue)
{
	struct rmem_leg *legs[RMEM_BATCH];
	unsigned int n = rmem_take_batch(queue, NULL, true, legs);

	if (n)
		rmem_post_batch(queue, legs, n);
}

/**
 * rmem_flush_batch() - end what the queue's batch holds, unposted
 * @queue: the queue, quiesced
 *
 * For the recovery's barrier: the block layer may leave requests in the
 * batch with no bd->last or ->commit_rqs() to follow (a direct issue that
 * found the queue quiesced inserts the rest of its list and returns).
 * They wait for the reconnect like any other request.
 */
void rmem_flush_batch(struct rmem_queue *queue)
{
	struct rmem_leg *legs[RMEM_BATCH];
	unsigned int i, n = rmem_take_batch(queue, NULL, true, legs);

	for (i = 0; i < n; i++)
		rmem_leg_unposted(legs[i], false);
}
