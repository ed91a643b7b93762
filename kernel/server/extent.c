// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: the slots of a thin session (wire version 4,
 * Documentation/protocol.rst, "Thin sessions").
 *
 * A thin session holds no memory at READY: its chunk table describes every
 * chunk absent.  The client takes memory one slot (extent) at a time with
 * RMEM_WIRE_EXTENT_ALLOC and gives it back with RMEM_WIRE_EXTENT_FREE:
 * two-sided messages on queue pair 0, one outstanding at a time, each
 * signed under the session key and answered signed.  They come only when
 * an extent is first written or discarded whole, never per I/O.
 *
 * ALLOC takes whole chunks (zeroed before anybody sees them), registers
 * them in the session's PD and describes them in the table, which the
 * client then reads again for that slot.  FREE deregisters first: a stray
 * access with the old key fails at the NIC and never reaches the next
 * owner's memory.  Both are idempotent, so a client that lost an answer
 * (a reconnect) asks again.
 */
#include <crypto/algapi.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "auth.h"
#include "rmem.h"
#include "server.h"

/* A message and its answer, DMA mapped; one per thin session. */
struct rmem_session_ext {
	struct rmem_wire_ext msg;
	struct rmem_wire_ext_reply reply;
};

static void rmem_ext_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_session *sess = cq->cq_context;

	/* a flush: the queue pair is going, and its session knows */
	if (wc->status != IB_WC_SUCCESS)
		return;
	sess->ext_len = wc->byte_len;
	queue_work(rmem_wq, &sess->ext_work);
}

/**
 * rmem_session_ext_init() - the message buffers of a thin session
 * @sess: the session, thin, being admitted
 *
 * Return: 0 or -ENOMEM.
 */
int rmem_session_ext_init(struct rmem_session *sess)
{
	struct ib_device *ibdev = sess->srv->ibdev;

	sess->ext = kzalloc(sizeof(*sess->ext), GFP_KERNEL);
	if (!sess->ext)
		return -ENOMEM;
	sess->ext_dma = ib_dma_map_single(ibdev, sess->ext, sizeof(*sess->ext),
					  DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(ibdev, sess->ext_dma)) {
		sess->ext_dma = 0;
		return -ENOMEM;
	}
	sess->ext_cqe.done = rmem_ext_recv_done;
	return 0;
}

/**
 * rmem_session_ext_free() - free what rmem_session_ext_init() made
 * @sess: the session; no queue pair left
 */
void rmem_session_ext_free(struct rmem_session *sess)
{
	if (sess->ext_dma)
		ib_dma_unmap_single(sess->srv->ibdev, sess->ext_dma,
				    sizeof(*sess->ext), DMA_BIDIRECTIONAL);
	kfree(sess->ext);
	sess->ext = NULL;
}

/**
 * rmem_session_ext_post_recv() - take the next control message
 * @sess: a thin session whose queue pair 0 is connected
 *
 * Context: before READY (the client may send at once), and by the work
 * that answered the last message, before its answer goes out.
 * Return: 0 or a negative errno of ib_post_recv().
 */
int rmem_session_ext_post_recv(struct rmem_session *sess)
{
	struct ib_recv_wr wr = {};
	struct ib_sge sge;

	sge.addr = sess->ext_dma + offsetof(struct rmem_session_ext, msg);
	sge.length = sizeof(sess->ext->msg);
	sge.lkey = sess->pd->local_dma_lkey;
	wr.wr_cqe = &sess->ext_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ib_dma_sync_single_for_device(sess->srv->ibdev, sge.addr, sge.length,
				      DMA_BIDIRECTIONAL);
	return ib_post_recv(sess->conns[0]->cm_id->qp, &wr, NULL);
}

/* Whether @m is well formed and signed, its counter new.  srv->lock held. */
static enum rmem_wire_status rmem_ext_check(struct rmem_session *sess,
					    const struct rmem_wire_ext *m)
{
	u8 mac[RMEM_WIRE_MAC_LEN];
	enum rmem_wire_status status = RMEM_WIRE_EINVAL;

	if (sess->ext_len != sizeof(*m) ||
	    le32_to_cpu(m->magic) != RMEM_WIRE_MAGIC)
		return RMEM_WIRE_EINVAL;
	if (le16_to_cpu(m->version) != sess->version)
		return RMEM_WIRE_EVERSION;
	if (!sess->mac ||
	    rmem_ext_mac(sess->mac, RMEM_MAC_EXT, m,
			 offsetof(struct rmem_wire_ext, mac), mac))
		return RMEM_WIRE_ENOMEM;
	if (crypto_memneq(mac, m->mac, sizeof(mac))) {
		status = RMEM_WIRE_EAUTH;
	} else if (le64_to_cpu(m->counter) <= sess->counter) {
		status = RMEM_WIRE_EREPLAY;
	} else {
		/* signed and new: used up, whatever the checks below say */
		sess->counter = le64_to_cpu(m->counter);
		if (!m->flags && !m->reserved &&
		    (m->op == RMEM_WIRE_EXTENT_ALLOC ||
		     m->op == RMEM_WIRE_EXTENT_FREE))
			status = RMEM_WIRE_OK;
	}
	memzero_explicit(mac, sizeof(mac));
	return status;
}

/* Undo the memory regions of chunks @first to @first + @n - 1. */
static void rmem_ext_dereg(struct rmem_session *sess, unsigned int first,
			   unsigned int n)
{
	unsigned int i;

	for (i = first; i < first + n; i++) {
		if (sess->mrs[i])
			ib_dereg_mr(sess->mrs[i]);
		sess->mrs[i] = NULL;
		sess->table[i].addr = 0;
		sess->table[i].rkey = 0;
		sess->table[i].reserved = cpu_to_le32(RMEM_WIRE_CHUNK_ABSENT);
	}
	rmem_session_sync_table(sess, first * sizeof(*sess->table),
				n * sizeof(*sess->table));
}

static enum rmem_wire_status rmem_ext_alloc(struct rmem_session *sess,
					    unsigned int first, unsigned int n)
{
	struct rmem_server *srv = sess->srv;
	enum rmem_wire_status status;
	int ret;

	/* a retry after a lost answer: the slot is there */
	if (sess->chunks[first])
		return RMEM_WIRE_OK;
	mutex_lock(&srv->lock);
	status = rmem_server_slot_memory(srv, sess, first, n);
	mutex_unlock(&srv->lock);
	if (status != RMEM_WIRE_OK)
		return status;
	rmem_server_zero_chunks(srv, sess, first, n);
	ret = rmem_session_reg_chunks(sess, first, first + n - 1);
	if (!ret) {
		rmem_session_sync_table(sess, first * sizeof(*sess->table),
					n * sizeof(*sess->table));
		return RMEM_WIRE_OK;
	}
	pr_warn("server %s: registering a slot of %pISp failed: %d\n",
		srv->name, &sess->peer, ret);
	rmem_ext_dereg(sess, first, n);
	mutex_lock(&srv->lock);
	rmem_server_slot_release(srv, sess, first, n);
	mutex_unlock(&srv->lock);
	return RMEM_WIRE_EREG;
}

static enum rmem_wire_status rmem_ext_free(struct rmem_session *sess,
					   unsigned int first, unsigned int n)
{
	struct rmem_server *srv = sess->srv;

	if (!sess->chunks[first])
		return RMEM_WIRE_OK;
	/* the keys first: nothing reaches the chunks once they are back */
	rmem_ext_dereg(sess, first, n);
	mutex_lock(&srv->lock);
	rmem_server_slot_release(srv, sess, first, n);
	mutex_unlock(&srv->lock);
	return RMEM_WIRE_OK;
}

/* Sign and send the answer; the next message's receive is posted first. */
static int rmem_ext_answer(struct rmem_session *sess,
			   const struct rmem_wire_ext *m,
			   enum rmem_wire_status status)
{
	struct rmem_wire_ext_reply *r = &sess->ext->reply;
	struct rmem_server *srv = sess->srv;
	int ret;

	memset(r, 0, sizeof(*r));
	r->magic = cpu_to_le32(RMEM_WIRE_MAGIC);
	r->version = cpu_to_le16(sess->version);
	r->status = cpu_to_le16(status);
	r->slot = m->slot;
	r->counter = m->counter;
	mutex_lock(&srv->lock);
	r->free = cpu_to_le64((u64)srv->nr_free << srv->chunk_shift);
	mutex_unlock(&srv->lock);
	ret = rmem_ext_mac(sess->mac, RMEM_MAC_EXT_REPLY, r,
			   offsetof(struct rmem_wire_ext_reply, mac), r->mac);
	if (ret)
		return ret;
	ret = rmem_session_ext_post_recv(sess);
	if (ret)
		return ret;
	return rmem_session_send(sess, sess->ext_dma +
				 offsetof(struct rmem_session_ext, reply),
				 sizeof(*r), DMA_BIDIRECTIONAL, NULL,
				 RMEM_SETUP_TIMEOUT);
}

/**
 * rmem_session_ext_work() - handle one control message of a thin session
 * @work: the session's ext_work
 *
 * Runs under the session's post_lock, as its setup does: both post on
 * queue pair 0 and wait for it.  A connection lost meanwhile flushes what
 * this waits for; the session's queue pair teardown waits for this.
 */
void rmem_session_ext_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(work, struct rmem_session,
						 ext_work);
	struct rmem_server *srv = sess->srv;
	const struct rmem_wire_ext *m = &sess->ext->msg;
	enum rmem_wire_status status;
	unsigned int per, first, slot;
	int ret;

	/* testing only: a window in which the connection goes meanwhile */
	rmem_session_fault_delay(sess);
	mutex_lock(&sess->post_lock);
	ib_dma_sync_single_for_cpu(srv->ibdev, sess->ext_dma, sizeof(*m),
				   DMA_BIDIRECTIONAL);
	mutex_lock(&srv->lock);
	if (!sess->live || !sess->conns[0]) {
		mutex_unlock(&srv->lock);
		goto out_unlock;
	}
	status = rmem_ext_check(sess, m);
	mutex_unlock(&srv->lock);
	if (status == RMEM_WIRE_EAUTH || status == RMEM_WIRE_EREPLAY)
		pr_info_ratelimited("server %s: %pISp sent a %s control message\n",
				    srv->name, &sess->peer,
				    status == RMEM_WIRE_EAUTH ? "badly signed" :
				    "replayed");
	per = 1U << (sess->extent_shift - srv->chunk_shift);
	slot = le32_to_cpu(m->slot);
	if (status == RMEM_WIRE_OK && slot >= sess->nr_chunks / per)
		status = RMEM_WIRE_EINVAL;
	first = slot * per;
	if (status == RMEM_WIRE_OK && m->op == RMEM_WIRE_EXTENT_ALLOC)
		status = rmem_ext_alloc(sess, first, per);
	else if (status == RMEM_WIRE_OK)
		status = rmem_ext_free(sess, first, per);
	ret = rmem_ext_answer(sess, m, status);
	if (ret) {
		/* the client waits for an answer: end the connection */
		mutex_lock(&srv->lock);
		rmem_session_lost(sess);
		mutex_unlock(&srv->lock);
	}
out_unlock:
	mutex_unlock(&sess->post_lock);
}
