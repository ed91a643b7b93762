// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: the block device and its data path.
 *
 * One blk-mq hardware queue per RC queue pair.  A read becomes RDMA READs
 * and a write RDMA WRITEs straight between the request's pages and the
 * server's chunk, one-sided.  Write-zeroes is RDMA WRITEs from a zeroed
 * buffer.  Discard and flush need nothing on the wire (a thin device's
 * extents that a discard covers whole go back to the server, extent.c):
 * a discard promises no data (the server zeroes memory a device lets go before another
 * client gets it), the memory is volatile and no write cache is
 * advertised.  A request's state (scatterlist, SGEs, work requests)
 * lives in its PDU, preallocated by blk-mq, when it is small (most are,
 * swap's always); a larger one takes room from the device's mempool,
 * whose reserve the data path can always wait for (wr.c): it never waits
 * for the page allocator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/mempool.h>
#include <rdma/ib_verbs.h>

#include "client.h"
#include "compat.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

static int rmem_major;

/**
 * rmem_blk_send_wrs() - send queue depth a queue pair needs
 * @dev: the device, its queue depth and RDMA device fixed
 *
 * Return: work requests: every request may post rmem_wrs_per_rq() (its
 * data, more where READs are split, and on Soft-RoCE a READ's tail); plus
 * rmem_ctl_wrs() for control messages.
 */
unsigned int rmem_blk_send_wrs(const struct rmem_dev *dev)
{
	return dev->cfg.queue_depth *
	       rmem_wrs_per_rq(dev->read_tail, dev->cfg.read_split) +
	       rmem_ctl_wrs(dev);
}

/* Whether a request may still fail of its own accord and be reissued. */
static bool rmem_rq_budget_left(const struct rmem_req *cmd)
{
	return cmd->retries < RMEM_MAX_RETRIES;
}

/*
 * Whether a failed request goes again once the device has reconnected:
 * it may wait (rmem_sess_holds_io()), and a failure of its own (not of the
 * connection) has not yet used up its retry budget.
 */
static bool rmem_rq_goes_again(struct request *rq)
{
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	struct rmem_dev *dev = cmd->leg.queue->dev;

	if (!cmd->status || cmd->final ||
	    (cmd->hard_error && !rmem_rq_budget_left(cmd)))
		return false;
	/*
	 * Over several servers the reissue reads the map again: it goes to
	 * a replica that takes I/O, waits for one that reconnects, or fails
	 * (final) when none is left.
	 */
	if (rmem_dev_nr_sess(dev) > 1)
		return dev->cfg.loss_timeout_ms && READ_ONCE(dev->registered) &&
		       !blk_noretry_request(rq);
	return rmem_sess_holds_io(cmd->leg.queue->sess, rq);
}

/*
 * A request completed successfully: count it, in its queue's CQ context
 * (or a poller's, for a polled queue: those counts may race).
 */
static void rmem_rq_account(struct rmem_queue *queue, struct request *rq,
			    u64 lat_ns)
{
	struct rmem_stats *st = &queue->io->stats;
	enum rmem_lat_dir d = RMEM_LAT_WRITE;
	u64 us = div_u64(lat_ns, NSEC_PER_USEC);
	unsigned int b;

	switch (req_op(rq)) {
	case REQ_OP_READ:
		st->reads++;
		st->read_bytes += blk_rq_bytes(rq);
		d = RMEM_LAT_READ;
		break;
	case REQ_OP_WRITE:
		st->writes++;
		st->write_bytes += blk_rq_bytes(rq);
		break;
	default:
		st->zeroes++;
		break;
	}
	if (!RMEM_LAT_STATS)
		return;
	b = us ? min_t(unsigned int, ilog2(us), RMEM_LAT_BUCKETS - 1) : 0;
	WRITE_ONCE(st->lat[d][b], st->lat[d][b] + 1);
	if (lat_ns > READ_ONCE(st->lat_max_ns[d]))
		WRITE_ONCE(st->lat_max_ns[d], lat_ns);
}

/*
 * A failed work request: its queue pair is in the error state, so the
 * queue takes no request until it is reconnected (->queue_rq() holds
 * them), and the device fails.  A failure that comes from the request
 * itself (a key, a range or an operation the server's NIC refuses), not
 * from the connection (flushed, retries exceeded), counts against the
 * request's retry budget.
 */
static void rmem_rdma_failed(struct rmem_leg *leg, enum ib_wc_status status)
{
	struct rmem_queue *queue = leg->queue;

	if (status != IB_WC_WR_FLUSH_ERR)
		pr_err_ratelimited("%s: RDMA %s failed: %s\n",
				   queue->dev->name,
				   rq_data_dir(blk_mq_rq_from_pdu(leg->cmd)) ?
				   "write" : "read",
				   ib_wc_status_msg(status));
	leg->status = BLK_STS_IOERR;
	switch (status) {
	case IB_WC_WR_FLUSH_ERR:
	case IB_WC_RETRY_EXC_ERR:
	case IB_WC_RNR_RETRY_EXC_ERR:
	case IB_WC_REM_ABORT_ERR:
	case IB_WC_FATAL_ERR:
		break;
	default:
		leg->hard_error = true;
		break;
	}
	/*
	 * Once per lost connection, flushes included: a driver may complete
	 * every work request of a broken queue pair as flushed, the one that
	 * broke it too (rxe does), and then this is all the log says.
	 */
	if (READ_ONCE(queue->connected)) {
		WRITE_ONCE(queue->connected, false);
		pr_warn_ratelimited("%s: queue %u: a work request failed: %s\n",
				    queue->dev->name, queue->index,
				    ib_wc_status_msg(status));
	}
	rmem_sess_fail(queue->sess);
}

/*
 * The completion batch of the poll running on this CPU (rmem_poll(), with
 * bottom halves off) and the task running it: on PREEMPT_RT bottom halves
 * off do not keep another task (a timeout handler's poll) off the CPU.
 */
struct rmem_poll_ctx {
	struct io_comp_batch *iob;
	struct task_struct *owner;
};

static DEFINE_PER_CPU(struct rmem_poll_ctx, rmem_poll_ctx);

static void rmem_complete_rq(struct request *rq);

static void rmem_complete_batch(struct io_comp_batch *iob)
{
	blk_mq_end_request_batch(iob);
}

/*
 * A write's legs have all ended: it succeeded if one replica took it and
 * the replicas that did not (a leg failed, or it skipped them at issue)
 * turned stale (while one that took it is still current); else it failed
 * (and goes again, if it may).  A leg to a resync's target counts for
 * neither: if it failed, or the write failed (the target may hold what
 * the current replicas do not), the copy may not make the target current.
 */
static void rmem_req_settle(struct rmem_req *cmd)
{
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct rmem_dev *dev = cmd->leg.queue->dev;
	unsigned int i, ok = 0, bad = cmd->skipped;
	bool hard = false, sync_bad = false;
	u32 sync = 0;

	for (i = 0; i < cmd->nr_legs; i++) {
		struct rmem_leg *leg = rmem_req_leg(cmd, i);

		if (leg->sync) {
			sync = leg->sync;
			sync_bad = leg->status;
		} else if (leg->status) {
			bad |= BIT(leg->replica);
			hard |= leg->hard_error;
		} else {
			ok |= BIT(leg->replica);
		}
	}
	/* (a later copy is not this leg's business) */
	if (sync && (sync_bad || !ok) &&
	    sync == READ_ONCE(dev->emap->sync_gen)) {
		atomic_inc(&dev->emap->sync_missed);
		/* seen once the copy finds this one ended */
		smp_mb__after_atomic();
	}
	if (bad && ok &&
	    rmem_emap_stale(dev, rmem_emap_rq_extent(dev, rq), bad, ok))
		bad = 0;
	cmd->status = bad ? BLK_STS_IOERR : BLK_STS_OK;
	cmd->hard_error = bad && hard;
	cmd->skipped = 0;
}

/*
 * Every leg of @cmd ended, @last the last one: the request's status, its
 * data unmapped, and it completes.  Counted on @last's queue, whose CQ
 * context this is (a write's legs end in several).
 */
static void rmem_req_end(struct rmem_req *cmd, struct rmem_leg *last)
{
	struct request *rq = blk_mq_rq_from_pdu(cmd);
	struct rmem_queue *queue = cmd->leg.queue;
	u64 lat_ns = rmem_lat_now() - cmd->start_ns;

	if (cmd->nr_legs == 1 && !cmd->skipped) {
		cmd->status = cmd->leg.status;
		cmd->hard_error = cmd->leg.hard_error;
	} else {
		rmem_req_settle(cmd);
	}
	if (cmd->reading) {
		atomic_dec(&queue->io->reads);
		cmd->reading = false;
	}
	rmem_unmap_data(queue->dev, cmd);
	/* a thin device's read: the part in an extent never written */
	if (unlikely(cmd->hole_len) && !cmd->status)
		rmem_emap_zero_hole(rq, cmd->hole_off, cmd->hole_len);
	if (!cmd->status)
		rmem_rq_account(last->queue, rq, lat_ns);
	trace_rmem_rq_done(queue->dev->name, queue->index, rq, lat_ns,
			   cmd->status);
	if (queue->poll) {
		/*
		 * raw: ib_drain_qp() on a polled CQ ends flushed requests here
		 * from a preemptible work item.  The owner test below holds
		 * only in rmem_poll(), which keeps its CPU (bottom halves off).
		 */
		struct rmem_poll_ctx *p = raw_cpu_ptr(&rmem_poll_ctx);

		/* complete (for the timeout handler) before it waits in a batch */
		if (blk_mq_complete_request_remote(rq))
			return;
		/* a polled success ends with the poller's batch */
		if (!cmd->status && p->owner == current &&
		    blk_mq_add_to_batch(rq, p->iob, 0, rmem_complete_batch))
			return;
		rmem_complete_rq(rq);
		return;
	}
	blk_mq_complete_request(rq);
}

/**
 * rmem_leg_end() - a leg of a request ended, done or not posted
 * @leg: the leg, none of its work requests live
 *
 * The request ends with its last leg.
 *
 * Context: its queue's CQ context, or where it was found unposted.
 */
void rmem_leg_end(struct rmem_leg *leg)
{
	struct rmem_req *cmd = leg->cmd;

	if (cmd->nr_legs > 1) {
		WRITE_ONCE(leg->ended, true);
		/* the last leg to end sees every leg's status: full barrier */
		if (!atomic_dec_and_test(&cmd->pending))
			return;
	}
	rmem_req_end(cmd, leg);
}

static void rmem_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_leg *leg = container_of(wc->wr_cqe, struct rmem_leg, cqe);

	if (unlikely(wc->status != IB_WC_SUCCESS))
		rmem_rdma_failed(leg, wc->status);
	WRITE_ONCE(leg->queue->io->last_done, jiffies);
	rmem_leg_end(leg);
}

/* Only failed (or flushed) unsignalled work requests complete here. */
static void rmem_rdma_err_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_leg *leg = container_of(wc->wr_cqe, struct rmem_leg,
					    err_cqe);

	if (wc->status != IB_WC_SUCCESS)
		rmem_rdma_failed(leg, wc->status);
}

/*
 * Post the batches of a hardware queue: its queue pair's in each session
 * (one batch per queue pair: one doorbell rings one queue pair).
 */
static void rmem_commit_all(struct rmem_queue *queue)
{
	struct rmem_dev *dev = queue->dev;
	unsigned int k;

	if (rmem_dev_nr_sess(dev) == 1) {
		rmem_commit_batch(queue);
		return;
	}
	for (k = 0; k < rmem_dev_nr_sess(dev); k++)
		rmem_commit_batch(&dev->sessions[k]->queues[queue->index]);
}

/* One request: into the queue's batch, or done with at once. */
static blk_status_t rmem_queue_one(struct rmem_queue *queue,
				   struct request *rq)
{
	struct rmem_dev *dev = queue->dev;
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	u64 pos = blk_rq_pos(rq) << SECTOR_SHIFT;
	u32 zero_len = 0;
	enum ib_wr_opcode op;
	blk_status_t ret;
	int err;

	/*
	 * A new request starts with its full retry budget; a reissue keeps
	 * what is left (RQF_DONTPREP: set here, cleared only when the
	 * request is freed, and it keeps a requeued request from merging).
	 */
	/* back from a thin device's extent wait, if it was there */
	WRITE_ONCE(cmd->thin_wait, false);
	if (!(rq->rq_flags & RQF_DONTPREP)) {
		cmd->retries = 0;
		cmd->start_ns = rmem_lat_now();
		rq->rq_flags |= RQF_DONTPREP;
	}
	/*
	 * Over several servers, the extent's server is known once the map
	 * is read (below), and a request held for it waits on the map's
	 * list, not here: a held request at the head of the dispatch list
	 * would hold up the other servers' requests behind it.
	 */
	if (rmem_dev_nr_sess(dev) == 1 &&
	    unlikely(READ_ONCE(queue->sess->state) != RMEM_DEV_STATE_LIVE ||
		     !READ_ONCE(queue->connected))) {
		/* a lost connection holds I/O until reconnected or dead */
		if (rmem_sess_holds_io(queue->sess, rq))
			return BLK_STS_RESOURCE;
		atomic64_inc(&dev->errors);
		return BLK_STS_IOERR;
	}
	/*
	 * Unmapped and given back whenever a request ends or is requeued;
	 * if not, undo it now (a leak would drain the reserve swap needs).
	 */
	if (WARN_ON_ONCE(cmd->ext || cmd->nr_sgl))
		rmem_unmap_data(dev, cmd);
	cmd->leg.queue = queue;
	cmd->leg.status = BLK_STS_OK;
	cmd->leg.hard_error = false;
	cmd->leg.partial = false;
	cmd->leg.ended = false;
	cmd->leg.replica = 0;
	cmd->leg.wr = cmd->iwr;
	cmd->leg.nr_wr = ARRAY_SIZE(cmd->iwr);
	cmd->nr_legs = 1;
	cmd->skipped = 0;
	cmd->status = BLK_STS_OK;
	cmd->hard_error = false;
	cmd->final = false;
	cmd->nents = 0;
	cmd->hole_len = 0;
	cmd->sgl = cmd->isgl;
	cmd->sge = cmd->isge;
	cmd->nr_sge = ARRAY_SIZE(cmd->isge);

	switch (req_op(rq)) {
	case REQ_OP_DISCARD:
		if (unlikely(pos + blk_rq_bytes(rq) > dev->cfg.size)) {
			atomic64_inc(&dev->errors);
			return BLK_STS_IOERR;
		}
		/* a thin device gives whole extents back (the worker does) */
		if (dev->emap)
			rmem_emap_discard(dev, rq);
		atomic64_inc(&dev->discards);
		atomic64_add(blk_rq_bytes(rq), &dev->discard_bytes);
		fallthrough;
	case REQ_OP_FLUSH:
		blk_mq_start_request(rq);
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	case REQ_OP_READ:
		op = IB_WR_RDMA_READ;
		break;
	case REQ_OP_WRITE:
		op = IB_WR_RDMA_WRITE;
		break;
	case REQ_OP_WRITE_ZEROES:
		op = IB_WR_RDMA_WRITE;
		zero_len = blk_rq_bytes(rq);
		break;
	default:
		atomic64_inc(&dev->errors);
		return BLK_STS_NOTSUPP;
	}
	if (unlikely(pos + blk_rq_bytes(rq) > dev->cfg.size ||
		     !blk_rq_bytes(rq))) {
		atomic64_inc(&dev->errors);
		return BLK_STS_IOERR;
	}
	blk_mq_start_request(rq);
	/* a thin device's extent without memory: zeros, or wait for it */
	if (dev->emap && rmem_emap_queue_rq(dev, rq))
		return BLK_STS_OK;
	if (rmem_dev_nr_sess(dev) > 1) {
		int n = rmem_emap_legs(dev, queue->index, rq, cmd);

		/*
		 * No replica's server takes I/O since the map was read, or
		 * none is left: through the completion path, held (the map's
		 * list, then) or failed.  A request across extents (none
		 * should be: chunk_sectors) fails after its retries.
		 */
		if (unlikely(n <= 0)) {
			cmd->final = n < 0;
			cmd->status = BLK_STS_IOERR;
			blk_mq_complete_request(rq);
			return BLK_STS_OK;
		}
		queue = cmd->leg.queue;
	}
	trace_rmem_rq_issue(dev->name, queue->index, rq);
	if (!zero_len) {
		ret = rmem_map_data(dev, rq, cmd);
		if (ret)
			goto out_unmap;
	}
	err = rmem_build_wrs(dev, cmd, op, pos, zero_len);
	if (err == -ENOSPC && !cmd->ext) {
		/* more pieces than the PDU holds: build them again in room */
		ret = rmem_get_ext(dev, cmd);
		if (ret)
			goto out_unmap;
		err = rmem_build_wrs(dev, cmd, op, pos, zero_len);
	}
	if (!err && cmd->nr_legs > 1)
		err = rmem_build_xlegs(cmd, pos);
	if (err) {
		ret = BLK_STS_IOERR;
		goto out_unmap;
	}
	/* a read of an extent with replicas: counted where it goes */
	if (dev->cfg.replicas > 1 && op == IB_WR_RDMA_READ) {
		atomic_inc(&queue->io->reads);
		cmd->reading = true;
	}
	/* from here it ends through the completion path, posted or not */
	if (cmd->nr_legs == 1) {
		rmem_queue_batch(queue, &cmd->leg);
	} else {
		unsigned int i, n = cmd->nr_legs;

		/* the last leg queued may end the request: no touch after */
		atomic_set(&cmd->pending, n);
		for (i = 0; i < n; i++) {
			struct rmem_leg *leg = rmem_req_leg(cmd, i);

			rmem_queue_batch(leg->queue, leg);
		}
	}
	return BLK_STS_OK;

out_unmap:
	rmem_unmap_data(dev, cmd);
	trace_rmem_rq_done(dev->name, queue->index, rq,
			   rmem_lat_now() - cmd->start_ns, ret);
	/* a requeue (BLK_STS_RESOURCE) is not a failed request */
	if (ret != BLK_STS_RESOURCE)
		atomic64_inc(&dev->errors);
	return ret;
}

/**
 * rmem_queue_rq() - blk-mq's ->queue_rq(): issue a request
 * @hctx: its hardware queue
 * @bd: the request, and whether the block layer has more for now
 *
 * Reads and writes become RDMA READs and WRITEs (wr.c), gathered in the
 * queue's batch and posted with one doorbell at the last request the
 * block layer has for now (@bd->last), when the batch is full, or in
 * ->commit_rqs().  A request that needs nothing on the wire (discard,
 * flush), waits (the connection is lost) or fails may be the last one
 * too: the batch is posted after it all the same.
 *
 * Return: BLK_STS_OK (the request is issued, or done), BLK_STS_RESOURCE
 * to be issued again later, or an error status.
 */
static blk_status_t rmem_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	struct rmem_queue *queue = hctx->driver_data;
	blk_status_t ret = rmem_queue_one(queue, bd->rq);

	if (bd->last)
		rmem_commit_all(queue);
	return ret;
}

static void rmem_complete_rq(struct request *rq)
{
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	struct rmem_dev *dev = cmd->leg.queue->dev;

	/*
	 * The connection broke under the request: reissue it once the
	 * device has reconnected (or fail it then, if it went dead).  Block
	 * I/O is idempotent, and nothing of it was completed upwards.  A
	 * request that failed RMEM_MAX_RETRIES times fails for good: an
	 * error the server gives every time must not loop for ever (each
	 * reconnect would also restart the loss timeout).  The kick makes
	 * sure a request requeued after the device's last kick still goes.
	 */
	if (rmem_rq_goes_again(rq)) {
		cmd->retries += cmd->hard_error;
		blk_mq_requeue_request(rq, true);
		return;
	}
	if (cmd->status) {
		/* decided once, here: a request that goes again is no error */
		atomic64_inc(&dev->errors);
		if (cmd->hard_error && !rmem_rq_budget_left(cmd))
			pr_err_ratelimited("%s: I/O error at sector %llu after %u retries\n",
					   dev->name,
					   (unsigned long long)blk_rq_pos(rq),
					   cmd->retries);
	}
	blk_mq_end_request(rq, cmd->status);
}

static bool rmem_blk_end_partial(struct request *rq, void *data)
{
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	unsigned int i;

	for (i = 0; i < cmd->nr_legs; i++) {
		struct rmem_leg *leg = rmem_req_leg(cmd, i);

		if (leg->queue == data && READ_ONCE(leg->partial)) {
			WRITE_ONCE(leg->partial, false);
			rmem_leg_end(leg);
			break;
		}
	}
	return true;
}

/**
 * rmem_blk_drained() - a queue pair was drained: end its partly posted
 *	requests
 * @queue: the queue whose QP no work request is live on any more
 *
 * A request posted only in part (rmem_post_batch()) has live work
 * requests but no signalled one: nothing completes it until its queue
 * pair is drained.
 */
void rmem_blk_drained(struct rmem_queue *queue)
{
	struct rmem_dev *dev = queue->dev;

	if (dev->disk)
		blk_mq_tagset_busy_iter(&dev->tag_set, rmem_blk_end_partial,
					queue);
}

/*
 * Reap at most @budget of a polled queue's completions, unless its queue
 * pair is being torn down.
 */
static int rmem_poll_cq(struct rmem_queue *queue, int budget)
{
	struct ib_cq *cq;
	int n = 0;

	rcu_read_lock();
	cq = rcu_dereference(queue->poll_cq);
	if (cq)
		n = ib_process_cq_direct(cq, budget);
	rcu_read_unlock();
	return n;
}

/*
 * A request the server never answered.  Live: fail the device (reconnect
 * or dead), which disconnects every queue pair; the flush completes the
 * request.  Dead or being deleted, with no reconnect to do that: flush
 * the queue pairs (abort work), or a plain dev del would wait in
 * del_gendisk() for ever.  Reconnecting: the reconnect drains the queue
 * pairs and requeues it.
 */
static enum blk_eh_timer_return rmem_timeout(struct request *rq)
{
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	struct rmem_queue *queue = cmd->leg.queue;
	struct rmem_dev *dev = queue->dev;
	unsigned int i;

	/*
	 * On a polled queue the completion may just be waiting for a poll;
	 * a request reaped there is no longer in flight (idle, or complete).
	 */
	if (queue->poll) {
		rmem_poll_cq(queue, -1);
		if (blk_mq_rq_state(rq) != MQ_RQ_IN_FLIGHT)
			return BLK_EH_DONE;
	}
	/* waiting for a thin device's extent: the extent worker ends it */
	if (READ_ONCE(cmd->thin_wait))
		return BLK_EH_RESET_TIMER;
	/*
	 * Completed meanwhile (the request is held, not reused, while this
	 * runs; it may be requeued and issued again): not ours to mark.
	 */
	if (blk_mq_rq_state(rq) != MQ_RQ_IN_FLIGHT)
		return BLK_EH_DONE;
	/* each leg's server: a write to replicas waits for all of them */
	for (i = 0; i < cmd->nr_legs; i++) {
		struct rmem_leg *leg = rmem_req_leg(cmd, i);

		if (READ_ONCE(leg->ended))
			continue;
		queue = leg->queue;
		switch (READ_ONCE(queue->sess->state)) {
		case RMEM_DEV_STATE_LIVE:
			pr_warn_ratelimited("%s: request timed out (server %pISpc)\n",
					    dev->name, &queue->sess->peer);
			/*
			 * Its flush completion reissues it after the
			 * reconnect; a request the server never answers
			 * counts against its retry budget like one it
			 * refuses.
			 */
			WRITE_ONCE(leg->hard_error, true);
			rmem_sess_fail(queue->sess);
			break;
		case RMEM_DEV_STATE_DEAD:
		case RMEM_DEV_STATE_DELETING:
			pr_warn_ratelimited("%s: request timed out; aborting the queue pairs\n",
					    dev->name);
			rmem_sess_abort(queue->sess);
			break;
		default:
			break;
		}
	}
	return BLK_EH_RESET_TIMER;
}

/**
 * rmem_poll() - reap completions of a polled queue
 * @hctx: a hardware queue of type HCTX_TYPE_POLL
 * @iob: completion batch of the poller, or NULL
 *
 * Called by the block layer for I/O submitted with REQ_POLLED (io_uring
 * IORING_SETUP_IOPOLL, preadv2/pwritev2 RWF_HIPRI).  Transport work still
 * pending on this CPU (a software RDMA device's tasklets) runs first.
 * Then at most RMEM_POLL_BUDGET completions are reaped, with bottom
 * halves off, so that rmem_rdma_done() finds @iob for this CPU and
 * successful requests end together (blk_mq_end_request_batch()).
 *
 * Return: the number of completions reaped.
 */
static int rmem_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct rmem_queue *queue = hctx->driver_data;
	struct rmem_poll_ctx *p;
	int n;

	local_bh_disable();
	local_bh_enable();
	local_bh_disable();
	p = this_cpu_ptr(&rmem_poll_ctx);
	p->iob = iob;
	p->owner = current;
	n = rmem_poll_cq(queue, RMEM_POLL_BUDGET);
	p->owner = NULL;
	p->iob = NULL;
	local_bh_enable();
	return n;
}

/**
 * rmem_map_queues() - map CPUs to hardware queues
 * @set: the device's tag set
 *
 * Interrupt-driven queues serve both the default and the read map; the
 * polled queues, if any, come after them.
 */
static void rmem_map_queues(struct blk_mq_tag_set *set)
{
	struct rmem_dev *dev = set->driver_data;
	struct blk_mq_queue_map *map = set->map;
	unsigned int nr_irq = dev->nr_queues - dev->nr_poll;

	map[HCTX_TYPE_DEFAULT].nr_queues = nr_irq;
	map[HCTX_TYPE_DEFAULT].queue_offset = 0;
	blk_mq_map_queues(&map[HCTX_TYPE_DEFAULT]);
	if (set->nr_maps <= HCTX_TYPE_POLL)
		return;
	map[HCTX_TYPE_READ].nr_queues = nr_irq;
	map[HCTX_TYPE_READ].queue_offset = 0;
	blk_mq_map_queues(&map[HCTX_TYPE_READ]);
	map[HCTX_TYPE_POLL].nr_queues = dev->nr_poll;
	map[HCTX_TYPE_POLL].queue_offset = nr_irq;
	blk_mq_map_queues(&map[HCTX_TYPE_POLL]);
}

static int rmem_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			  unsigned int index)
{
	struct rmem_dev *dev = data;

	hctx->driver_data = &dev->sess->queues[index];
	return 0;
}

static int rmem_init_request(struct blk_mq_tag_set *set, struct request *rq,
			     unsigned int hctx_idx, unsigned int numa_node)
{
	struct rmem_dev *dev = set->driver_data;
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	unsigned int i;

	for (i = 0; i < rmem_dev_max_legs(dev); i++) {
		struct rmem_leg *leg = rmem_req_leg(cmd, i);

		leg->cmd = cmd;
		leg->cqe.done = rmem_rdma_done;
		leg->err_cqe.done = rmem_rdma_err_done;
		if (i) {
			leg->wr = cmd->xleg[i - 1].iwr;
			leg->nr_wr = ARRAY_SIZE(cmd->xleg[i - 1].iwr);
		}
	}
	cmd->nr_legs = 1;
	cmd->sgl = cmd->isgl;
	cmd->ext = NULL;
	return 0;
}

/*
 * The block layer announced more requests (bd->last false) and then
 * stopped short: post what the batch holds.
 */
static void rmem_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	rmem_commit_all(hctx->driver_data);
}

static const struct blk_mq_ops rmem_mq_ops = {
	.queue_rq	= rmem_queue_rq,
	.commit_rqs	= rmem_commit_rqs,
	.complete	= rmem_complete_rq,
	.timeout	= rmem_timeout,
	.poll		= rmem_poll,
	.map_queues	= rmem_map_queues,
	.init_hctx	= rmem_init_hctx,
	.init_request	= rmem_init_request,
};

static const struct block_device_operations rmem_fops = {
	.owner		= THIS_MODULE,
};

/* ---- disk lifetime ------------------------------------------------------ */

static void rmem_blk_limits(struct rmem_dev *dev, struct queue_limits *lim)
{
	unsigned int segs = min_t(unsigned int, RMEM_MAX_SEGS,
				  dev->max_sge * RMEM_WRS_PER_RQ);
	/* one work request is kept spare for a chunk boundary */
	u64 zero_max = (u64)(RMEM_WRS_PER_RQ - 1) * dev->max_sge * RMEM_ZERO_BUF;
	u64 chunk = dev->sess->chunk_size;
	unsigned int k;

	/* the smallest chunk of its servers' */
	for (k = 1; k < rmem_dev_nr_sess(dev); k++)
		chunk = min(chunk, dev->sessions[k]->chunk_size);

	/*
	 * No larger than a chunk: it then crosses at most one boundary.  No
	 * larger than a data request either: the keep-alive counts a
	 * completion as proof of life (recovery.c), so no single request may
	 * take much longer than another on a slow link.
	 */
	zero_max = min_t(u64, min_t(u64, zero_max, SZ_1M), chunk);
	/*
	 * Kernels without limits at allocation get exactly these fields
	 * through their setters (compat.h): a field set here must be added
	 * there too.
	 */
	lim->logical_block_size = SECTOR_SIZE;
	lim->physical_block_size = PAGE_SIZE;
	lim->io_min = PAGE_SIZE;
	/*
	 * No chunk_sectors: a request up to a chunk long crosses at most one
	 * chunk boundary, which rmem_build_wrs() handles with one more work
	 * request.  Splitting at chunk boundaries instead would make the
	 * block layer refuse REQ_NOWAIT bios with -EAGAIN, and Linux 6.1's
	 * io_uring loses such polled (IOPOLL) requests at queue depth > 1.
	 */
	lim->max_hw_sectors = min_t(u64, SZ_1M, chunk) >> SECTOR_SHIFT;
	/*
	 * Over several servers a request stays in one extent: one server.
	 * That device has no polled queues (netlink.c), and no write-zeroes:
	 * Linux 6.1 splits those without regard to chunk_sectors (the block
	 * layer then writes pages of zeros, which it splits).
	 */
	if (rmem_dev_nr_sess(dev) > 1) {
		lim->chunk_sectors = dev->cfg.extent >> SECTOR_SHIFT;
		zero_max = 0;
	}
	lim->max_segments = segs;
	/* a discard sends nothing: any size costs the same */
	lim->max_hw_discard_sectors = UINT_MAX >> SECTOR_SHIFT;
	lim->max_write_zeroes_sectors = zero_max >> SECTOR_SHIFT;
	/*
	 * A thin device gives back only whole extents: long discards are
	 * split at extent boundaries, and fstrim skips smaller free ranges
	 * (its minimum length; the field holds up to 2 GiB as a power of 2).
	 */
	lim->discard_granularity = dev->emap && dev->cfg.extent <= SZ_2G ?
				   dev->cfg.extent : PAGE_SIZE;
	/*
	 * No features (BLK_FEAT_*): memory is not rotational, has no volatile
	 * write cache to flush, and its timing is no source of entropy.
	 */
}

/* A request's PDU: its own leg, and room for rmem_dev_max_legs(). */
static unsigned int rmem_cmd_size(const struct rmem_dev *dev)
{
	return struct_size_t(struct rmem_req, xleg, rmem_dev_max_legs(dev) - 1);
}

/*
 * Elements the mempool of larger requests keeps in reserve: enough for
 * every queue to have one in flight, twice over, so that one waiting
 * request per queue is the worst a memory shortage does.
 */
static unsigned int rmem_ext_reserve(const struct rmem_dev *dev)
{
	return max(4U, 2 * dev->nr_queues);
}

/**
 * rmem_dev_memory() - kernel memory a device holds
 * @dev: the device
 *
 * Its requests (blk-mq allocates each with its PDU, cmd_size, queue depth
 * times the hardware queues), the reserve of its mempool for larger
 * requests, its queue arrays, chunk table, zero buffer, itself and its
 * session; not the RDMA device's memory for its queue pairs and CQs,
 * which the driver allocates, nor an I/O scheduler's requests, nor the
 * mempool's elements beyond its reserve (taken while large requests are
 * in flight).
 *
 * Return: bytes.
 */
u64 rmem_dev_memory(const struct rmem_dev *dev)
{
	u64 rq = ALIGN(sizeof(struct request) + rmem_cmd_size(dev),
		       cache_line_size());

	return (u64)dev->nr_queues * dev->cfg.queue_depth * rq +
	       (u64)rmem_ext_reserve(dev) *
	       kmalloc_size_roundup(sizeof(struct rmem_req_ext)) +
	       rmem_dev_nr_sess(dev) * RMEM_MAX_DEV_QPS * sizeof(struct rmem_queue) +
	       kmalloc_size_roundup(array3_size(rmem_dev_nr_sess(dev) > 1 ?
						RMEM_MAX_PEERS : 1,
						dev->nr_queues,
						sizeof(struct rmem_queue_io))) +
	       (u64)rmem_dev_nr_sess(dev) * (dev->sess->nr_chunks *
				     sizeof(*dev->sess->chunks) +
				     sizeof(*dev->sess)) +
	       RMEM_ZERO_BUF + sizeof(*dev);
}

/**
 * rmem_blk_create() - create and announce /dev/rmemN
 * @dev: a connected device
 *
 * Return: 0 or a negative errno; if the disk could not be added, it is
 * left for rmem_blk_free().
 */
int rmem_blk_create(struct rmem_dev *dev)
{
	struct blk_mq_tag_set *set = &dev->tag_set;
	struct queue_limits lim = {};
	struct gendisk *disk;
	int node, ret;

	/*
	 * A PDU of at most 1 KiB: what does not fit goes to the mempool; a
	 * device with replicas adds a leg's room for each further one.
	 */
	BUILD_BUG_ON(sizeof(struct rmem_req) > SZ_1K);
	BUILD_BUG_ON(struct_size_t(struct rmem_req, xleg,
				   RMEM_MAX_REPLICAS - 1) > SZ_2K);
	node = ibdev_to_node(dev->ibdev);
	dev->ext_pool = mempool_create_node(rmem_ext_reserve(dev),
					    rmem_ext_alloc, mempool_kfree,
					    (void *)(uintptr_t)(node + 1),
					    GFP_KERNEL, node);
	if (!dev->ext_pool)
		return -ENOMEM;

	set->ops = &rmem_mq_ops;
	set->nr_hw_queues = dev->nr_queues;
	set->nr_maps = dev->nr_poll ? HCTX_MAX_TYPES : 1;
	set->queue_depth = dev->cfg.queue_depth;
	/* the requests' PDUs near the NIC that reads and writes them */
	set->numa_node = ibdev_to_node(dev->ibdev);
	set->cmd_size = rmem_cmd_size(dev);
	set->flags = RMEM_BLK_MQ_F_MERGE;
	set->driver_data = dev;
	set->timeout = 30 * HZ;
	ret = blk_mq_alloc_tag_set(set);
	if (ret)
		goto out_destroy_pool;

	rmem_blk_limits(dev, &lim);
	disk = blk_mq_alloc_disk(set, &lim, dev);
	if (IS_ERR(disk)) {
		ret = PTR_ERR(disk);
		goto out_free_tag_set;
	}
	disk->major = rmem_major;
	disk->first_minor = dev->index * RMEM_MINORS;
	disk->minors = RMEM_MINORS;
	disk->fops = &rmem_fops;
	disk->private_data = dev;
	strscpy(disk->disk_name, dev->name, DISK_NAME_LEN);
	set_capacity(disk, dev->cfg.size >> SECTOR_SHIFT);
	dev->disk = disk;

	/*
	 * On failure the disk stays for rmem_blk_free(): failure handling
	 * (started by the partition scan's I/O) may still use its queue
	 * until rmem_dev_free() has stopped it.
	 */
	return device_add_disk(NULL, disk, rmem_disk_groups);

out_free_tag_set:
	blk_mq_free_tag_set(set);
out_destroy_pool:
	mempool_destroy(dev->ext_pool);
	dev->ext_pool = NULL;
	return ret;
}

/**
 * rmem_blk_remove() - remove /dev/rmemN; waits for outstanding requests
 * @dev: the device
 */
void rmem_blk_remove(struct rmem_dev *dev)
{
	if (dev->disk)
		del_gendisk(dev->disk);
}

/**
 * rmem_blk_free() - free the disk and the tag set
 * @dev: the device, after rmem_blk_remove() and with all queues torn down
 */
void rmem_blk_free(struct rmem_dev *dev)
{
	if (!dev->disk)
		return;
	put_disk(dev->disk);
	dev->disk = NULL;
	blk_mq_free_tag_set(&dev->tag_set);
	mempool_destroy(dev->ext_pool);
	dev->ext_pool = NULL;
}

/**
 * rmem_blk_init() - register the block major
 *
 * Return: 0 or a negative errno.
 */
int rmem_blk_init(void)
{
	rmem_major = register_blkdev(0, "rmem");
	return rmem_major < 0 ? rmem_major : 0;
}

/**
 * rmem_blk_exit() - unregister the block major
 */
void rmem_blk_exit(void)
{
	unregister_blkdev(rmem_major, "rmem");
}
