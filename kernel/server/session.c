// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: client sessions.
 *
 * rdma_cm events of the server's listener and of every accepted queue pair
 * arrive in rmem_server_cm_handler().  Queue pair 0 (RMEM_WIRE_NEW) creates
 * the session: its own PD, its chunks, a CQ.  Once it is established,
 * setup_work zeroes what needs zeroing, registers each chunk as a memory
 * region of that PD, registers the chunk table for remote reading and sends
 * READY.  Further queue pairs (RMEM_WIRE_JOIN) join with the session token.
 *
 * Once live, the session probes queue pair 0 with a zero-length RDMA WRITE
 * every keepalive_ms.  Any queue pair going away, or a failed probe,
 * orphans the session: its queue pairs are destroyed (no QP can reach the
 * memory any more), its memory and registrations stay for the hold time
 * the client asked for.  A client presenting the token with
 * RMEM_WIRE_RECONNECT adopts it again and gets READY anew; otherwise
 * hold_work releases it.  RMEM_WIRE_LEAVE, server removal and a session
 * without hold time end it at once (release_work).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "proto.h"
#include "rmem.h"
#include "server.h"

static void rmem_session_lost(struct rmem_session *sess);

/* Registration work requests posted between waits. */
#define RMEM_REG_BATCH		16
#define RMEM_SETUP_TIMEOUT	(30 * HZ)

static void rmem_session_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_session *sess = cq->cq_context;

	sess->reg_status = wc->status;
	complete(&sess->reg_done);
}

/*
 * Post a chain of work requests, the last one signalled, and wait for it.
 * *@posted (if not NULL) says whether the chain was posted.
 */
static int rmem_session_post_wait(struct rmem_session *sess,
				  struct ib_send_wr *first, struct ib_send_wr *last,
				  bool *posted)
{
	struct ib_qp *qp = sess->conns[0]->cm_id->qp;
	int ret;

	last->wr_cqe = &sess->reg_cqe;
	last->send_flags |= IB_SEND_SIGNALED;
	reinit_completion(&sess->reg_done);
	ret = ib_post_send(qp, first, NULL);
	if (ret)
		return ret;
	if (posted)
		*posted = true;
	if (!wait_for_completion_timeout(&sess->reg_done, RMEM_SETUP_TIMEOUT))
		return -ETIMEDOUT;
	return sess->reg_status == IB_WC_SUCCESS ? 0 : -EIO;
}

/*
 * The MR's iova is rebased to @iova, so clients see region offsets, never
 * the server's kernel or DMA addresses.
 */
static struct ib_mr *rmem_session_map(struct rmem_session *sess,
				      struct scatterlist *sgl, int nents,
				      unsigned int page_size, u32 npages,
				      u64 iova, struct ib_reg_wr *wr, int access)
{
	struct ib_mr *mr;
	int n;

	mr = ib_alloc_mr(sess->pd, IB_MR_TYPE_MEM_REG, npages);
	if (IS_ERR(mr))
		return mr;
	n = ib_map_mr_sg(mr, sgl, nents, NULL, page_size);
	if (n != nents) {
		ib_dereg_mr(mr);
		return ERR_PTR(n < 0 ? n : -EINVAL);
	}
	mr->iova = iova;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = IB_WR_REG_MR;
	wr->mr = mr;
	wr->key = mr->rkey;
	wr->access = access;
	return mr;
}

/* Register every chunk in the session's PD, in batches. */
static int rmem_session_reg_chunks(struct rmem_session *sess)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_WRITE;
	unsigned int psize = PAGE_SIZE << sess->srv->block_order;
	struct ib_reg_wr wrs[RMEM_REG_BATCH];
	unsigned int i, n = 0;
	int ret;

	for (i = 0; i < sess->nr_chunks; i++) {
		struct rmem_chunk *c = sess->chunks[i];
		struct ib_mr *mr;

		mr = rmem_session_map(sess, c->sgt.sgl, c->sgt.nents, psize,
				      sess->srv->chunk_size / psize,
				      (u64)i << sess->srv->chunk_shift, &wrs[n],
				      access);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		sess->mrs[i] = mr;
		sess->table[i].addr = cpu_to_le64(mr->iova);
		sess->table[i].rkey = cpu_to_le32(mr->rkey);
		if (n)
			wrs[n - 1].wr.next = &wrs[n].wr;
		if (++n == RMEM_REG_BATCH || i + 1 == sess->nr_chunks) {
			ret = rmem_session_post_wait(sess, &wrs[0].wr,
						     &wrs[n - 1].wr, NULL);
			if (ret)
				return ret;
			n = 0;
		}
	}
	return 0;
}

/*
 * Register the chunk table for remote reading and send READY.  *@sent
 * says whether READY was posted: only then may the client have it.
 */
static int rmem_session_send_ready(struct rmem_session *sess,
				   enum rmem_wire_status status, bool *sent)
{
	struct ib_device *ibdev = sess->srv->ibdev;
	struct rmem_wire_ready *r = sess->ready;
	struct scatterlist *sg = &sess->table_sg;
	struct ib_reg_wr reg;
	struct ib_send_wr send = {};
	struct ib_sge sge;
	int ret;

	*sent = false;
	r->magic = cpu_to_le32(RMEM_WIRE_MAGIC);
	r->version = cpu_to_le16(RMEM_WIRE_VERSION);
	r->status = cpu_to_le16(status);
	if (status == RMEM_WIRE_OK && !sess->table_mr) {
		sg_init_one(sg, sess->table, sess->table_len);
		if (ib_dma_map_sg(ibdev, sg, 1, DMA_TO_DEVICE) != 1) {
			sg->length = 0;
			return -EIO;
		}
		sess->table_mr = rmem_session_map(sess, sg, 1, PAGE_SIZE,
						  PAGE_ALIGN(sess->table_len) / PAGE_SIZE,
						  0, &reg, IB_ACCESS_REMOTE_READ);
		if (IS_ERR(sess->table_mr)) {
			ret = PTR_ERR(sess->table_mr);
			sess->table_mr = NULL;
			return ret;
		}
		ret = rmem_session_post_wait(sess, &reg.wr, &reg.wr, NULL);
		if (ret)
			return ret;
	}
	if (status == RMEM_WIRE_OK) {
		memcpy(r->token, sess->token, sizeof(r->token));
		memcpy(r->pool_id, sess->srv->id, sizeof(r->pool_id));
		r->generation = cpu_to_le64(sess->generation);
		r->size = cpu_to_le64(sess->size);
		r->chunk_size = cpu_to_le64(sess->srv->chunk_size);
		r->nr_chunks = cpu_to_le32(sess->nr_chunks);
		r->table_rkey = cpu_to_le32(sess->table_mr->rkey);
		r->table_addr = cpu_to_le64(sess->table_mr->iova);
		r->table_len = cpu_to_le32(sess->nr_chunks * sizeof(*sess->table));
	}

	sge.addr = sess->ready_dma;
	sge.length = sizeof(*r);
	sge.lkey = sess->pd->local_dma_lkey;
	send.opcode = IB_WR_SEND;
	send.sg_list = &sge;
	send.num_sge = 1;
	ib_dma_sync_single_for_device(ibdev, sess->ready_dma, sizeof(*r),
				      DMA_TO_DEVICE);
	return rmem_session_post_wait(sess, &send, &send, sent);
}

/* fault_ready_delay_ms: wait, but not for a session that is going */
static void rmem_session_fault_delay(struct rmem_session *sess)
{
	unsigned long end = jiffies +
			    msecs_to_jiffies(READ_ONCE(rmem_fault_ready_delay_ms));

	while (time_before(jiffies, end) && !READ_ONCE(sess->dead) &&
	       !READ_ONCE(sess->orphan))
		msleep(20);
}

static void rmem_session_setup_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(work, struct rmem_session,
						 setup_work);
	struct rmem_server *srv = sess->srv;
	enum rmem_wire_status status = RMEM_WIRE_OK;
	bool first, sent;
	int ret;

	/* queued by an ESTABLISHED that raced with a loss: nothing to set up */
	mutex_lock(&srv->lock);
	if (sess->dead || sess->orphan || !sess->conns[0]) {
		mutex_unlock(&srv->lock);
		return;
	}
	mutex_unlock(&srv->lock);
	/* a reconnect finds the memory zeroed and registered already */
	first = !sess->was_live;
	if (first) {
		rmem_server_zero_chunks(srv, sess);
		ret = rmem_session_reg_chunks(sess);
		if (ret) {
			pr_warn("server %s: registering memory failed: %d\n",
				srv->name, ret);
			status = RMEM_WIRE_EREG;
		}
	}
	/* live before READY goes out: the client JOINs as soon as it has it */
	mutex_lock(&srv->lock);
	if (status == RMEM_WIRE_OK && !sess->dead && !sess->orphan) {
		sess->live = true;
		sess->was_live = true;
	}
	mutex_unlock(&srv->lock);
	/* testing only: a window in which a link flap hits READY */
	rmem_session_fault_delay(sess);
	ret = rmem_session_send_ready(sess, status, &sent);
	if (ret || status != RMEM_WIRE_OK) {
		mutex_lock(&srv->lock);
		/*
		 * Registration failed, or a new session's READY never went
		 * out (no client has its token): nothing worth keeping.
		 * READY failed (a link flap, the client gone): the client
		 * may have it, and a session it has used is held for its
		 * reconnect, never released by a transient failure.
		 */
		if (status != RMEM_WIRE_OK || (first && !sent)) {
			/* a volume this attach created goes with it */
			if (first)
				sess->was_live = false;
			rmem_session_kill(sess);
		} else {
			rmem_session_lost(sess);
		}
		mutex_unlock(&srv->lock);
		return;
	}
	if (rmem_keepalive_ms)
		queue_delayed_work(rmem_wq, &sess->ka_work,
				   msecs_to_jiffies(rmem_keepalive_ms));
}

/**
 * rmem_session_lost() - a queue pair of the session failed or went away
 * @sess: the session
 *
 * A session the client can come back to is orphaned and held; any other
 * is released.
 *
 * Context: srv->lock held.
 */
static void rmem_session_lost(struct rmem_session *sess)
{
	if (sess->dead || sess->orphan)
		return;
	if (!sess->hold || !sess->was_live || sess->srv->dying) {
		rmem_session_kill(sess);
		return;
	}
	sess->orphan = true;
	sess->live = false;
	queue_work(rmem_wq, &sess->orphan_work);
	mod_delayed_work(rmem_wq, &sess->hold_work, sess->hold);
	pr_info("server %s: lost the connection of %pISp; holding its memory %u ms for a reconnect\n",
		sess->srv->name, &sess->peer, jiffies_to_msecs(sess->hold));
}

/* Disconnect and destroy every queue pair of the session. */
static void rmem_session_drop_conns(struct rmem_session *sess)
{
	struct rmem_server *srv = sess->srv;
	unsigned int i;

	/*
	 * Disconnect first: that flushes whatever setup_work waits for (a
	 * READY the client never takes, say), so it ends at once.
	 */
	for (i = 0; i < sess->nr_qps; i++)
		if (sess->conns[i])
			rdma_disconnect(sess->conns[i]->cm_id);
	cancel_work_sync(&sess->setup_work);
	cancel_delayed_work_sync(&sess->ka_work);
	for (i = 0; i < sess->nr_qps; i++) {
		struct rmem_sconn *conn = sess->conns[i];

		if (!conn)
			continue;
		/*
		 * Drain: a probe still posted on the old queue pair must
		 * complete (flushed) here, not in the shared CQ after a
		 * reconnect, where it would look like a loss of the new one.
		 */
		ib_drain_qp(conn->cm_id->qp);
		rdma_destroy_qp(conn->cm_id);
		rdma_destroy_id(conn->cm_id);
		mutex_lock(&srv->lock);
		sess->conns[i] = NULL;
		mutex_unlock(&srv->lock);
		kfree(conn);
	}
}

static void rmem_session_orphan_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(work, struct rmem_session,
						 orphan_work);

	rmem_session_drop_conns(sess);
	mutex_lock(&sess->srv->lock);
	if (sess->orphan)
		sess->conns_gone = true;
	mutex_unlock(&sess->srv->lock);
}

static void rmem_session_hold_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(to_delayed_work(work),
						 struct rmem_session, hold_work);

	mutex_lock(&sess->srv->lock);
	if (sess->orphan && !sess->dead) {
		pr_info("server %s: %pISp did not reconnect in %u ms; session released\n",
			sess->srv->name, &sess->peer, jiffies_to_msecs(sess->hold));
		rmem_session_kill(sess);
	}
	mutex_unlock(&sess->srv->lock);
}

static void rmem_session_ka_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_session *sess = cq->cq_context;

	rmem_probe_done(&sess->ka);
	if (wc->status == IB_WC_SUCCESS)
		return;
	mutex_lock(&sess->srv->lock);
	if (sess->live) {
		pr_info("server %s: connection probe of %pISp failed: %s\n",
			sess->srv->name, &sess->peer,
			ib_wc_status_msg(wc->status));
		rmem_session_lost(sess);
	}
	mutex_unlock(&sess->srv->lock);
}

/* Probes go on the session's first queue pair (probe.c); late = lost. */
static void rmem_session_ka_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(to_delayed_work(work),
						 struct rmem_session, ka_work);

	mutex_lock(&sess->srv->lock);
	if (!sess->live || !sess->conns[0]) {
		mutex_unlock(&sess->srv->lock);
		return;
	}
	if (rmem_probe_tick(&sess->ka, sess->conns[0]->cm_id->qp,
			    rmem_keepalive_ms) == RMEM_PROBE_LATE) {
		pr_info("server %s: connection probe of %pISp unanswered for %u ms\n",
			sess->srv->name, &sess->peer,
			jiffies_to_msecs(jiffies - sess->ka.sent));
		rmem_session_lost(sess);
		mutex_unlock(&sess->srv->lock);
		return;
	}
	mutex_unlock(&sess->srv->lock);
	queue_delayed_work(rmem_wq, &sess->ka_work,
			   msecs_to_jiffies(rmem_keepalive_ms));
}

/* Invalidate every memory region of the session; its QPs must be gone. */
static void rmem_session_dereg(struct rmem_session *sess)
{
	unsigned int i;

	if (sess->table_mr)
		ib_dereg_mr(sess->table_mr);
	sess->table_mr = NULL;
	if (sess->mrs)
		for (i = 0; i < sess->nr_chunks; i++)
			if (sess->mrs[i])
				ib_dereg_mr(sess->mrs[i]);
	kvfree(sess->mrs);
	sess->mrs = NULL;
}

static void rmem_session_free(struct rmem_session *sess)
{
	struct ib_device *ibdev = sess->srv->ibdev;

	rmem_session_dereg(sess);
	if (sess->table_sg.length)
		ib_dma_unmap_sg(ibdev, &sess->table_sg, 1, DMA_TO_DEVICE);
	if (sess->table)
		free_pages_exact(sess->table, PAGE_ALIGN(sess->table_len));
	if (sess->ready_dma)
		ib_dma_unmap_single(ibdev, sess->ready_dma, sizeof(*sess->ready),
				    DMA_TO_DEVICE);
	kfree(sess->ready);
	if (sess->cq)
		ib_free_cq(sess->cq);
	if (sess->pd)
		ib_dealloc_pd(sess->pd);
	kfree(sess);
}

static void rmem_session_release_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(work, struct rmem_session,
						 release_work);
	struct rmem_server *srv = sess->srv;
	bool last;

	/* no QP can join or reconnect any more: the session is dead */
	cancel_work_sync(&sess->orphan_work);
	cancel_delayed_work_sync(&sess->hold_work);
	rmem_session_drop_conns(sess);
	/* no queue pair can use the memory regions any more */
	rmem_session_dereg(sess);
	mutex_lock(&srv->lock);
	rmem_server_session_release_memory(srv, sess);
	list_del(&sess->node);
	srv->nr_sessions--;
	last = !srv->nr_sessions && srv->dying;
	mutex_unlock(&srv->lock);
	rmem_session_free(sess);
	/* the last touch of @srv: rmem_server_destroy() may free it now */
	if (last)
		complete(&srv->sessions_done);
}

/**
 * rmem_session_kill() - start tearing a session down (once)
 * @sess: the session
 *
 * Context: srv->lock held.
 */
void rmem_session_kill(struct rmem_session *sess)
{
	if (sess->dead)
		return;
	sess->dead = true;
	sess->live = false;
	queue_work(rmem_wq, &sess->release_work);
}

/* Create the QP of one connection in the session's PD. */
static int rmem_sconn_create(struct rmem_session *sess, struct rdma_cm_id *id,
			     unsigned int index)
{
	struct ib_qp_init_attr attr = {};
	struct rmem_sconn *conn;
	int ret;

	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	attr.send_cq = sess->cq;
	attr.recv_cq = sess->cq;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = index ? 1 : RMEM_REG_BATCH + 2;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(id, sess->pd, &attr);
	if (ret) {
		kfree(conn);
		return ret;
	}
	conn->ctx = RMEM_CTX_CONN;
	conn->cm_id = id;
	conn->sess = sess;
	conn->index = index;
	id->context = conn;
	sess->conns[index] = conn;
	return 0;
}

static int rmem_server_accept(struct rdma_cm_id *id,
			      const struct rdma_conn_param *req)
{
	const struct ib_device_attr *a = &id->device->attrs;
	struct rmem_wire_reject rep = {
		.magic = cpu_to_le32(RMEM_WIRE_MAGIC),
		.version = cpu_to_le16(RMEM_WIRE_VERSION),
	};
	struct rdma_conn_param p = {};

	p.private_data = &rep;
	p.private_data_len = sizeof(rep);
	/*
	 * The request's values are already from our side: responder_resources
	 * is the client's initiator depth (its RDMA READs we serve).
	 */
	p.responder_resources = min_t(u32, req->responder_resources,
				      a->max_qp_rd_atom);
	p.initiator_depth = min_t(u32, req->initiator_depth,
				  a->max_qp_init_rd_atom);
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	rmem_set_ack_timeout(id);
	return rdma_accept(id, &p);
}

static bool rmem_server_allowed(struct rmem_server *srv,
				const struct sockaddr *peer)
{
	unsigned int i;

	if (!srv->nr_allow)
		return true;
	for (i = 0; i < srv->nr_allow; i++)
		if (rmem_prefix_match(&srv->allow[i], peer))
			return true;
	return false;
}

static enum rmem_wire_status rmem_session_new(struct rmem_server *srv,
					      struct rdma_cm_id *id,
					      const struct rmem_wire_connect *req,
					      const struct rdma_conn_param *param)
{
	struct ib_device *ibdev = id->device;
	enum rmem_wire_status status;
	struct rmem_session *sess;
	unsigned int nr_qps = le16_to_cpu(req->nr_qps);
	u64 size = le64_to_cpu(req->new.size);
	size_t tlen;

	if (le16_to_cpu(req->qp_index) || !nr_qps || nr_qps > RMEM_MAX_QPS ||
	    !size || !IS_ALIGNED(size, SECTOR_SIZE * 8) ||
	    strnlen(req->new.volume, RMEM_VOLUME_MAX) == RMEM_VOLUME_MAX)
		return RMEM_WIRE_EINVAL;
	if (!rmem_server_allowed(srv, (struct sockaddr *)&id->route.addr.dst_addr))
		return RMEM_WIRE_EACCES;
	if (size > ((u64)srv->nr_chunks << srv->chunk_shift))
		return RMEM_WIRE_ENOSPC;
	/* server add checked the whole pool against these; check anyway */
	tlen = DIV_ROUND_UP_ULL(size, srv->chunk_size) * sizeof(*sess->table);
	if (!rmem_server_table_fits(srv, tlen / sizeof(*sess->table)))
		return RMEM_WIRE_ENOMEM;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return RMEM_WIRE_ENOMEM;
	sess->srv = srv;
	sess->size = size;
	sess->nr_qps = nr_qps;
	memcpy(&sess->peer, &id->route.addr.dst_addr, sizeof(sess->peer));
	strscpy(sess->volume_name, req->new.volume, sizeof(sess->volume_name));
	get_random_bytes(sess->token, sizeof(sess->token));
	INIT_WORK(&sess->setup_work, rmem_session_setup_work);
	INIT_WORK(&sess->release_work, rmem_session_release_work);
	INIT_WORK(&sess->orphan_work, rmem_session_orphan_work);
	INIT_DELAYED_WORK(&sess->hold_work, rmem_session_hold_work);
	INIT_DELAYED_WORK(&sess->ka_work, rmem_session_ka_work);
	init_completion(&sess->reg_done);
	sess->reg_cqe.done = rmem_session_reg_done;
	rmem_probe_init(&sess->ka, rmem_session_ka_done);
	sess->hold = msecs_to_jiffies(min_t(u32, le32_to_cpu(req->new.hold_ms),
					    RMEM_MAX_LOSS_TIMEOUT_MS));

	mutex_lock(&srv->lock);
	status = srv->dying ? RMEM_WIRE_ENOMEM :
		 rmem_server_session_memory(srv, sess);
	mutex_unlock(&srv->lock);
	if (status != RMEM_WIRE_OK)
		goto out_free_session;

	status = RMEM_WIRE_ENOMEM;
	tlen = sess->nr_chunks * sizeof(*sess->table);
	sess->table_len = tlen;
	sess->table = alloc_pages_exact(PAGE_ALIGN(tlen),
					GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	sess->mrs = kvcalloc(sess->nr_chunks, sizeof(*sess->mrs),
			     GFP_KERNEL | __GFP_NOWARN);
	sess->ready = kzalloc(sizeof(*sess->ready), GFP_KERNEL);
	if (!sess->table || !sess->mrs || !sess->ready)
		goto out_release_memory;
	sess->ready_dma = ib_dma_map_single(ibdev, sess->ready,
					    sizeof(*sess->ready), DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, sess->ready_dma)) {
		sess->ready_dma = 0;
		goto out_release_memory;
	}
	sess->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(sess->pd)) {
		sess->pd = NULL;
		goto out_release_memory;
	}
	sess->cq = ib_alloc_cq(ibdev, sess, RMEM_REG_BATCH + 2 + 2 * nr_qps, 0,
			       IB_POLL_WORKQUEUE);
	if (IS_ERR(sess->cq)) {
		sess->cq = NULL;
		goto out_release_memory;
	}
	if (rmem_sconn_create(sess, id, 0))
		goto out_release_memory;

	mutex_lock(&srv->lock);
	list_add_tail(&sess->node, &srv->sessions);
	srv->nr_sessions++;
	mutex_unlock(&srv->lock);
	if (rmem_server_accept(id, param)) {
		mutex_lock(&srv->lock);
		rmem_session_kill(sess);
		mutex_unlock(&srv->lock);
	}
	return RMEM_WIRE_OK;

out_release_memory:
	mutex_lock(&srv->lock);
	rmem_server_session_release_memory(srv, sess);
	mutex_unlock(&srv->lock);
out_free_session:
	rmem_session_free(sess);
	return status;
}

/* The session holding @token, or NULL.  Context: srv->lock held. */
static struct rmem_session *rmem_session_find(struct rmem_server *srv,
					      const u8 *token)
{
	struct rmem_session *sess;

	list_for_each_entry(sess, &srv->sessions, node)
		if (!crypto_memneq(sess->token, token, sizeof(sess->token)))
			return sess;
	return NULL;
}

static enum rmem_wire_status rmem_session_join(struct rmem_server *srv,
					       struct rdma_cm_id *id,
					       const struct rmem_wire_connect *req,
					       const struct rdma_conn_param *param)
{
	unsigned int index = le16_to_cpu(req->qp_index);
	struct rmem_session *found;
	enum rmem_wire_status status = RMEM_WIRE_ENOSESSION;

	mutex_lock(&srv->lock);
	found = rmem_session_find(srv, req->join.token);
	if (!found || found->dead)
		goto out_unlock;
	/* lost again while the client reconnects: it tries anew */
	status = RMEM_WIRE_EAGAIN;
	if (found->orphan)
		goto out_unlock;
	status = RMEM_WIRE_ENOSESSION;
	if (!found->live)
		goto out_unlock;
	status = RMEM_WIRE_EINVAL;
	if (!index || index >= found->nr_qps || found->conns[index] ||
	    found->srv->ibdev != id->device)
		goto out_unlock;
	status = RMEM_WIRE_ENOMEM;
	if (rmem_sconn_create(found, id, index))
		goto out_unlock;
	status = RMEM_WIRE_OK;
	/* a failed accept is a lost connection: held, not released */
	if (rmem_server_accept(id, param))
		rmem_session_lost(found);
out_unlock:
	mutex_unlock(&srv->lock);
	return status;
}

/*
 * RMEM_WIRE_RECONNECT: a client adopts its orphaned session again.  If we
 * had not noticed the loss yet, orphan the session now and have the client
 * come back once its old queue pairs are gone.
 */
static enum rmem_wire_status rmem_session_reconnect(struct rmem_server *srv,
						    struct rdma_cm_id *id,
						    const struct rmem_wire_connect *req,
						    const struct rdma_conn_param *param)
{
	struct rmem_session *sess;
	enum rmem_wire_status status = RMEM_WIRE_ENOSESSION;

	if (!rmem_server_allowed(srv, (struct sockaddr *)&id->route.addr.dst_addr))
		return RMEM_WIRE_EACCES;
	mutex_lock(&srv->lock);
	sess = rmem_session_find(srv, req->join.token);
	if (!sess || sess->dead || !sess->was_live || srv->dying)
		goto out_unlock;
	status = RMEM_WIRE_EINVAL;
	if (le16_to_cpu(req->qp_index) ||
	    le16_to_cpu(req->nr_qps) != sess->nr_qps ||
	    srv->ibdev != id->device)
		goto out_unlock;
	status = RMEM_WIRE_EAGAIN;
	if (!sess->orphan)
		rmem_session_lost(sess);
	if (sess->dead) {
		status = RMEM_WIRE_ENOSESSION;
		goto out_unlock;
	}
	if (!sess->conns_gone)
		goto out_unlock;
	status = RMEM_WIRE_ENOMEM;
	if (rmem_sconn_create(sess, id, 0))
		goto out_unlock;
	sess->orphan = false;
	sess->conns_gone = false;
	/* no probe of the old queue pairs is pending any more (drained) */
	rmem_probe_done(&sess->ka);
	/* hold_work checks orphan under the lock: a late run does nothing */
	cancel_delayed_work(&sess->hold_work);
	memcpy(&sess->peer, &id->route.addr.dst_addr, sizeof(sess->peer));
	pr_info("server %s: %pISp reconnected to its session\n", srv->name,
		&sess->peer);
	status = RMEM_WIRE_OK;
	if (rmem_server_accept(id, param))
		rmem_session_lost(sess);
out_unlock:
	mutex_unlock(&srv->lock);
	return status;
}

/* RMEM_WIRE_LEAVE: the client detached; release its session now. */
static enum rmem_wire_status rmem_session_leave(struct rmem_server *srv,
						const struct rmem_wire_connect *req)
{
	struct rmem_session *sess;
	enum rmem_wire_status status = RMEM_WIRE_ENOSESSION;

	mutex_lock(&srv->lock);
	sess = rmem_session_find(srv, req->join.token);
	if (sess && !sess->dead) {
		rmem_session_kill(sess);
		status = RMEM_WIRE_OK;
	}
	mutex_unlock(&srv->lock);
	return status;
}

/*
 * Flags and the bytes a request does not use must be zero: a later
 * version can then give them a meaning that this one refuses.
 */
static bool rmem_wire_connect_reserved_zero(const struct rmem_wire_connect *req)
{
	const u8 *tail = (const u8 *)&req->join + sizeof(req->join);

	if (req->flags)
		return false;
	if (req->op == RMEM_WIRE_NEW)
		return true;
	return !memchr_inv(tail, 0, (const u8 *)(req + 1) - tail);
}

/* A connect request on the listener: returns non-zero to destroy @id. */
static int rmem_server_connect_request(struct rmem_server *srv,
				       struct rdma_cm_id *id,
				       struct rdma_cm_event *ev)
{
	const struct rmem_wire_connect *req = ev->param.conn.private_data;
	struct rmem_wire_reject rej = {
		.magic = cpu_to_le32(RMEM_WIRE_MAGIC),
		.version = cpu_to_le16(RMEM_WIRE_VERSION),
	};
	enum rmem_wire_status status;

	if (!req || ev->param.conn.private_data_len < sizeof(*req) ||
	    le32_to_cpu(req->magic) != RMEM_WIRE_MAGIC)
		status = RMEM_WIRE_EINVAL;
	else if (le16_to_cpu(req->version) != RMEM_WIRE_VERSION)
		status = RMEM_WIRE_EVERSION;
	else if (!rmem_wire_connect_reserved_zero(req))
		status = RMEM_WIRE_EINVAL;
	else if (req->op == RMEM_WIRE_NEW)
		status = rmem_session_new(srv, id, req, &ev->param.conn);
	else if (req->op == RMEM_WIRE_JOIN)
		status = rmem_session_join(srv, id, req, &ev->param.conn);
	else if (req->op == RMEM_WIRE_RECONNECT)
		status = rmem_session_reconnect(srv, id, req, &ev->param.conn);
	else if (req->op == RMEM_WIRE_LEAVE)
		status = rmem_session_leave(srv, req);
	else
		status = RMEM_WIRE_EINVAL;
	if (status == RMEM_WIRE_OK && req->op != RMEM_WIRE_LEAVE) {
		rmem_server_zero_pause(srv);
		return 0;
	}
	if (status == RMEM_WIRE_OK)
		goto out_reject;	/* a LEAVE done: not worth a log line */

	pr_info_ratelimited("server %s: refused a connection from %pISp: status %d\n",
			    srv->name, &id->route.addr.dst_addr, status);
out_reject:
	rej.status = cpu_to_le16(status);
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	return 1;
}

/**
 * rmem_server_cm_handler() - rdma_cm events of a server
 * @id: the listener (connect requests) or an accepted connection
 * @ev: the event
 *
 * Return: non-zero to have rdma_cm destroy @id (refused requests only).
 */
int rmem_server_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	enum rmem_cm_ctx *ctx = id->context;
	struct rmem_session *sess;
	struct rmem_server *srv;
	struct rmem_sconn *conn;

	if (*ctx == RMEM_CTX_LISTENER) {
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			return rmem_server_connect_request(id->context, id, ev);
		return 0;
	}
	conn = id->context;
	srv = conn->sess->srv;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		/*
		 * Under srv->lock: kill sets dead under it before queueing the
		 * release, whose cancel_work_sync() then sees this work.
		 */
		mutex_lock(&srv->lock);
		sess = conn->sess;
		/*
		 * Only the session's current queue pair 0, and only while the
		 * session is neither lost nor ending: a late RTU on a queue
		 * pair being dropped (its setup work already cancelled) must
		 * not set up anything on a QP about to be destroyed.
		 */
		if (conn->index == 0 && sess->conns[0] == conn && !sess->dead &&
		    !sess->orphan)
			queue_work(rmem_wq, &sess->setup_work);
		mutex_unlock(&srv->lock);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		mutex_lock(&srv->lock);
		rmem_session_lost(conn->sess);
		mutex_unlock(&srv->lock);
		break;
	default:
		break;
	}
	return 0;
}
