// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: a thin session's control messages (wire version 4;
 * Documentation/protocol.rst, "Thin sessions").
 *
 * EXTENT_ALLOC and EXTENT_FREE go on queue pair 0 as a SEND, signed under
 * the session key, with the answer's RECV posted first; then, for ALLOC,
 * RDMA READs of the slot's chunk table entries.  One at a time (the
 * extent worker, extent.c), in preallocated, DMA-mapped buffers: swap
 * writes may wait for them, so nothing here allocates.  A wait ends
 * early when the device stops being live; a wait given up fences queue
 * pair 0 for control messages until the teardown has drained it.
 */
#include <crypto/algapi.h>
#include <rdma/ib_verbs.h>
#include "auth.h"
#include "client.h"

/* How long one control message or table read may take. */
#define RMEM_EXT_TIMEOUT	(15 * HZ)

/* A control message and its answer, DMA mapped (rmem_sess_ext_map()). */
struct rmem_sess_ext {
	struct rmem_wire_ext msg;
	struct rmem_wire_ext_reply reply;
};

static void rmem_ext_cqe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_sess *sess = container_of(wc->wr_cqe, struct rmem_sess,
					      ext_cqe);

	if (wc->status != IB_WC_WR_FLUSH_ERR ||
	    READ_ONCE(sess->ext_status) == IB_WC_SUCCESS)
		WRITE_ONCE(sess->ext_status, wc->status);
	complete(&sess->ext_done);
}

/*
 * The control message's SEND, signalled: its send queue slot is free
 * again only once it completed (a refused one is followed by no READ).
 */
static void rmem_ext_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_sess *sess = container_of(wc->wr_cqe, struct rmem_sess,
					      ext_send_cqe);

	if (wc->status != IB_WC_SUCCESS)
		WRITE_ONCE(sess->ext_status, wc->status);
	complete(&sess->ext_send_done);
}

/*
 * Wait for @done while the device stays live: a loss ends the wait at
 * once (the teardown waits for the worker), whether or not the lost
 * queue pair ever flushes what was posted.
 */
static int rmem_ext_wait(struct rmem_sess *sess, struct completion *done)
{
	unsigned long end = jiffies + RMEM_EXT_TIMEOUT;
	int ret = 0;

	while (!wait_for_completion_timeout(done, HZ / 10)) {
		if (READ_ONCE(sess->state) != RMEM_DEV_STATE_LIVE) {
			ret = -ECONNRESET;
			break;
		}
		if (time_after(jiffies, end)) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	if (!ret && READ_ONCE(sess->ext_status) != IB_WC_SUCCESS)
		ret = -EIO;
	/*
	 * Work requests may be outstanding, or the queue pair broken: none
	 * more until the teardown drained it (rmem_sess_destroy_queues()),
	 * or a late completion would end the next wait.
	 */
	if (ret)
		WRITE_ONCE(sess->ext_fenced, true);
	return ret;
}

/**
 * rmem_sess_ext_init() - a thin session's message buffers
 * @sess: the session of a thin device
 *
 * Return: 0 or -ENOMEM.
 */
int rmem_sess_ext_init(struct rmem_sess *sess)
{
	unsigned int len;

	sess->ext = kzalloc(sizeof(*sess->ext), GFP_KERNEL);
	sess->ext_page = (void *)__get_free_page(GFP_KERNEL);
	sess->pend_free = kvcalloc(BITS_TO_LONGS(sess->dev->emap->nr),
				   sizeof(long), GFP_KERNEL);
	if (!sess->ext || !sess->ext_page || !sess->pend_free)
		return -ENOMEM;
	/* a resync's window: contiguous, as large as it comes */
	for (len = RMEM_SYNC_WINDOW;
	     sess->dev->cfg.nr_peers > 1 && !sess->sync_buf; len /= 4) {
		sess->sync_buf = kzalloc(len, len > SZ_16K ?
					 GFP_KERNEL | __GFP_NORETRY |
					 __GFP_NOWARN : GFP_KERNEL);
		sess->sync_len = len;
		/* with replicas 1 it serves only a drain, refused without */
		if (!sess->sync_buf && len <= SZ_16K) {
			if (sess->dev->cfg.replicas == 1)
				break;
			return -ENOMEM;
		}
	}
	sess->ext_cqe.done = rmem_ext_cqe_done;
	sess->ext_send_cqe.done = rmem_ext_send_done;
	init_completion(&sess->ext_done);
	init_completion(&sess->ext_send_done);
	return 0;
}

/**
 * rmem_sess_ext_free() - free what rmem_sess_ext_init() made
 * @sess: the session, unmapped
 */
void rmem_sess_ext_free(struct rmem_sess *sess)
{
	kfree(sess->ext);
	free_page((unsigned long)sess->ext_page);
	kfree(sess->sync_buf);
	kvfree(sess->pend_free);
}

/**
 * rmem_sess_ext_map() - map the message buffers for an RDMA device
 * @sess: a thin session
 * @ibdev: the device
 *
 * Return: 0 or -EIO.
 */
int rmem_sess_ext_map(struct rmem_sess *sess, struct ib_device *ibdev)
{
	sess->ext_dma = ib_dma_map_single(ibdev, sess->ext, sizeof(*sess->ext),
					  DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, sess->ext_dma)) {
		sess->ext_dma = 0;
		return -EIO;
	}
	sess->ext_page_dma = ib_dma_map_single(ibdev, sess->ext_page, PAGE_SIZE,
					       DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, sess->ext_page_dma)) {
		sess->ext_page_dma = 0;
		return -EIO;
	}
	if (!sess->sync_buf)
		return 0;
	/* no resync from this server, rather than no device */
	sess->sync_dma = ib_dma_map_single(ibdev, sess->sync_buf,
					   sess->sync_len, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, sess->sync_dma)) {
		pr_warn_ratelimited("%s: no resync from server %pISpc: its buffer could not be mapped\n",
				    sess->dev->name, &sess->peer);
		sess->sync_dma = 0;
	}
	return 0;
}

/**
 * rmem_sess_ext_unmap() - undo rmem_sess_ext_map()
 * @sess: the session
 * @ibdev: the device it was mapped for
 */
void rmem_sess_ext_unmap(struct rmem_sess *sess, struct ib_device *ibdev)
{
	if (sess->ext_dma)
		ib_dma_unmap_single(ibdev, sess->ext_dma, sizeof(*sess->ext),
				    DMA_BIDIRECTIONAL);
	if (sess->ext_page_dma)
		ib_dma_unmap_single(ibdev, sess->ext_page_dma, PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (sess->sync_dma)
		ib_dma_unmap_single(ibdev, sess->sync_dma, sess->sync_len,
				    DMA_BIDIRECTIONAL);
	sess->ext_dma = 0;
	sess->ext_page_dma = 0;
	sess->sync_dma = 0;
}

/* rmem_sess_ext_op() under the session's ext_lock, the session ready. */
static int __rmem_sess_ext_op(struct rmem_sess *sess, u8 op,
			      unsigned int slot)
{
	struct rmem_dev *dev = sess->dev;
	struct ib_qp *qp = sess->queues[0].cm_id->qp;
	struct rmem_wire_ext *msg = &sess->ext->msg;
	const struct rmem_wire_ext_reply *r = &sess->ext->reply;
	u64 counter = atomic64_inc_return(&sess->counter);
	struct ib_sge rsge = {
		.addr = sess->ext_dma + offsetof(struct rmem_sess_ext, reply),
		.length = sizeof(*r),
		.lkey = dev->pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = sess->ext_dma + offsetof(struct rmem_sess_ext, msg),
		.length = sizeof(*msg),
		.lkey = dev->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = {
		.wr_cqe = &sess->ext_cqe,
		.sg_list = &rsge,
		.num_sge = 1,
	};
	struct ib_send_wr swr = {
		.wr_cqe = &sess->ext_send_cqe,
		.sg_list = &ssge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	u8 mac[RMEM_WIRE_MAC_LEN];
	int ret;

	memset(msg, 0, sizeof(*msg));
	msg->magic = cpu_to_le32(RMEM_WIRE_MAGIC);
	msg->version = cpu_to_le16(sess->wire_version);
	msg->op = op;
	msg->slot = cpu_to_le32(slot);
	msg->counter = cpu_to_le64(counter);
	ret = rmem_ext_mac(sess->mac, RMEM_MAC_EXT, msg,
			   offsetof(struct rmem_wire_ext, mac), msg->mac);
	if (ret)
		return ret;
	memset(&sess->ext->reply, 0, sizeof(sess->ext->reply));
	ib_dma_sync_single_for_device(dev->ibdev, sess->ext_dma,
				      sizeof(*sess->ext), DMA_BIDIRECTIONAL);
	reinit_completion(&sess->ext_done);
	reinit_completion(&sess->ext_send_done);
	WRITE_ONCE(sess->ext_status, IB_WC_SUCCESS);
	/* the answer's receive first: the server may answer at once */
	ret = ib_post_recv(qp, &rwr, NULL);
	if (ret)
		return ret;
	ret = ib_post_send(qp, &swr, NULL);
	if (ret)
		return -ECONNRESET;
	ret = rmem_ext_wait(sess, &sess->ext_send_done);
	if (!ret)
		ret = rmem_ext_wait(sess, &sess->ext_done);
	if (ret)
		return ret;
	ib_dma_sync_single_for_cpu(dev->ibdev, sess->ext_dma,
				   sizeof(*sess->ext), DMA_BIDIRECTIONAL);
	/* not this request's answer: out of step, the connection goes */
	if (le32_to_cpu(r->magic) != RMEM_WIRE_MAGIC ||
	    le16_to_cpu(r->version) != sess->wire_version ||
	    le64_to_cpu(r->counter) != counter ||
	    le32_to_cpu(r->slot) != slot ||
	    rmem_ext_mac(sess->mac, RMEM_MAC_EXT_REPLY, r,
			 offsetof(struct rmem_wire_ext_reply, mac), mac) ||
	    crypto_memneq(mac, r->mac, sizeof(mac))) {
		WRITE_ONCE(sess->ext_fenced, true);
		return -EBADMSG;
	}
	WRITE_ONCE(sess->server_free, le64_to_cpu(r->free));
	switch (le16_to_cpu(r->status)) {
	case RMEM_WIRE_OK:
		return 0;
	case RMEM_WIRE_ENOSPC:
		return -ENOSPC;
	case RMEM_WIRE_EQUOTA:
		return -EDQUOT;
	default:
		return -EREMOTEIO;
	}
}

/* rmem_sess_ext_read() under the session's ext_lock, the session ready. */
static int __rmem_sess_ext_read(struct rmem_sess *sess, unsigned int first,
				unsigned int n)
{
	const struct rmem_wire_chunk *buf = sess->ext_page;
	unsigned int per_page = PAGE_SIZE / sizeof(*buf), done = 0, i;
	int ret;

	while (done < n) {
		unsigned int cnt = min(n - done, per_page);
		u32 len = cnt * sizeof(*buf);

		reinit_completion(&sess->ext_done);
		WRITE_ONCE(sess->ext_status, IB_WC_SUCCESS);
		if (rmem_sess_post_table_read(sess, sess->ext_page,
					      sess->ext_page_dma, first + done,
					      len, &sess->ext_cqe))
			return -ECONNRESET;
		ret = rmem_ext_wait(sess, &sess->ext_done);
		if (ret)
			return ret;
		ib_dma_sync_single_for_cpu(sess->dev->ibdev, sess->ext_page_dma,
					   len, DMA_BIDIRECTIONAL);
		for (i = 0; i < cnt; i++)
			if (buf[i].reserved || !buf[i].rkey)
				return -EPROTO;
		for (i = 0; i < cnt; i++) {
			sess->chunks[first + done + i].addr =
				le64_to_cpu(buf[i].addr);
			sess->chunks[first + done + i].rkey =
				le32_to_cpu(buf[i].rkey);
		}
		done += cnt;
	}
	return 0;
}

/**
 * rmem_sess_ext_ready() - whether a session may send a control message now
 * @sess: a thin session
 *
 * Live, queue pair 0 not fenced.  Decisive only under @sess->ext_lock:
 * the teardown of its queue pairs takes it first
 * (rmem_sess_ext_quiesce()), and the session is not live then.
 *
 * Return: true if so.
 */
bool rmem_sess_ext_ready(struct rmem_sess *sess)
{
	return READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE &&
	       !READ_ONCE(sess->ext_fenced);
}

/**
 * rmem_sess_ext_op() - send one control message and wait for its answer
 * @sess: a live thin session, its queue pair 0 not fenced
 * @op: RMEM_WIRE_EXTENT_ALLOC or RMEM_WIRE_EXTENT_FREE
 * @slot: the extent
 *
 * Context: the extent worker (one message at a time), may sleep.
 *
 * Return: 0, -ENOSPC or -EDQUOT (no room), -EREMOTEIO (another refusal),
 * -ECONNRESET, -ETIMEDOUT or -EIO (the connection), -EBADMSG (an answer
 * that is not the server's to this one), or another errno.
 */
int rmem_sess_ext_op(struct rmem_sess *sess, u8 op, unsigned int slot)
{
	int ret = -ECONNRESET;

	mutex_lock(&sess->ext_lock);
	if (rmem_sess_ext_ready(sess))
		ret = __rmem_sess_ext_op(sess, op, slot);
	mutex_unlock(&sess->ext_lock);
	return ret;
}

/**
 * rmem_sess_ext_read() - read chunk table entries after an ALLOC
 * @sess: a live thin session
 * @first: the first chunk
 * @n: how many
 *
 * One page at a time, into the session's chunks, as
 * rmem_sess_read_table() does at attach.
 *
 * Context: the extent worker, may sleep.
 *
 * Return: 0, -EPROTO for an entry still absent, or the wait's error.
 */
int rmem_sess_ext_read(struct rmem_sess *sess, unsigned int first,
		       unsigned int n)
{
	int ret = -ECONNRESET;

	mutex_lock(&sess->ext_lock);
	if (rmem_sess_ext_ready(sess))
		ret = __rmem_sess_ext_read(sess, first, n);
	mutex_unlock(&sess->ext_lock);
	return ret;
}

/*
 * rmem_sess_ext_copy() under the session's ext_lock, the session ready.  A
 * READ is the data path's: unsignalled, then its last bytes again,
 * signalled (rmem_build_read_tail()), so a READ that Soft-RoCE cuts short
 * flushes the tail with an error instead of completing as a success with
 * part of the window.
 */
static int __rmem_sess_ext_copy(struct rmem_sess *sess, bool write,
				u64 remote, u32 rkey, u64 local, u32 len)
{
	u32 tail = min_t(u32, len, RMEM_READ_TAIL);
	struct ib_sge sge[2] = {
		{ .addr = local, .length = len,
		  .lkey = sess->dev->pd->local_dma_lkey },
		{ .addr = local + len - tail, .length = tail,
		  .lkey = sess->dev->pd->local_dma_lkey },
	};
	struct ib_rdma_wr wr[2] = {
		{ .wr.wr_cqe = &sess->ext_cqe,
		  .wr.sg_list = &sge[0],
		  .wr.num_sge = 1,
		  .wr.opcode = write ? IB_WR_RDMA_WRITE : IB_WR_RDMA_READ,
		  .wr.send_flags = write ? IB_SEND_SIGNALED : 0,
		  .wr.next = write ? NULL : &wr[1].wr,
		  .remote_addr = remote,
		  .rkey = rkey },
		{ .wr.wr_cqe = &sess->ext_cqe,
		  .wr.sg_list = &sge[1],
		  .wr.num_sge = 1,
		  .wr.opcode = IB_WR_RDMA_READ,
		  .wr.send_flags = IB_SEND_SIGNALED,
		  .remote_addr = remote + len - tail,
		  .rkey = rkey },
	};

	if (!local || !len)
		return -EINVAL;
	reinit_completion(&sess->ext_done);
	WRITE_ONCE(sess->ext_status, IB_WC_SUCCESS);
	if (ib_post_send(sess->queues[0].cm_id->qp, &wr[0].wr, NULL))
		return -ECONNRESET;
	return rmem_ext_wait(sess, &sess->ext_done);
}

/**
 * rmem_sess_ext_copy() - one RDMA READ or WRITE of a resync on queue pair 0
 * @sess: a live thin session
 * @write: RDMA WRITE (to the server) rather than READ (from it)
 * @remote: the server's address, within one of the session's chunks
 * @rkey: that chunk's key
 * @local: the DMA address of the source session's resync buffer
 * @len: bytes, at most the buffer's and within the chunk
 *
 * Serialised with the session's control messages (a WRITE is one work
 * request on queue pair 0, a READ two, within its reserve:
 * rmem_ctl_wrs()).
 *
 * Context: the extent worker, may sleep.
 *
 * Return: 0, -EINVAL with no buffer, or the wait's error (the connection).
 */
int rmem_sess_ext_copy(struct rmem_sess *sess, bool write, u64 remote,
		       u32 rkey, u64 local, u32 len)
{
	int ret = -ECONNRESET;

	mutex_lock(&sess->ext_lock);
	if (rmem_sess_ext_ready(sess))
		ret = __rmem_sess_ext_copy(sess, write, remote, rkey, local,
					   len);
	mutex_unlock(&sess->ext_lock);
	return ret;
}

/**
 * rmem_sess_ext_quiesce() - wait until no control message uses the
 *	session's queue pair 0
 * @sess: a session that is not live (its queue pairs are to be torn down)
 *
 * A message under way ends within a tenth of a second once the session
 * is not live (rmem_ext_wait()); none starts after this.  Only this
 * session's: the extent worker may go on with the others.
 */
void rmem_sess_ext_quiesce(struct rmem_sess *sess)
{
	if (!sess->ext)
		return;
	mutex_lock(&sess->ext_lock);
	mutex_unlock(&sess->ext_lock);
}
