// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: client sessions.
 *
 * A session begins as a shell (connect.c: RMEM_WIRE_NEW): its own PD, a
 * CQ, queue pair 0; no memory.  The client authenticates on it
 * (handshake.c); only then does setup_work take the
 * session's chunks, zero what needs zeroing, register each chunk as a
 * memory region of that PD, register the chunk table for remote reading
 * and send READY.  Further queue pairs (RMEM_WIRE_JOIN) join with a request
 * signed under the session key.
 *
 * Once live, the session probes queue pair 0 with a zero-length RDMA WRITE
 * every keepalive_ms.  Any queue pair going away, or a failed probe,
 * orphans the session: its queue pairs are destroyed (no QP can reach the
 * memory any more), its memory and registrations stay for the hold time
 * the client asked for.  A client with a signed RMEM_WIRE_RECONNECT adopts
 * it again and gets READY anew; otherwise hold_work releases it.
 * RMEM_WIRE_LEAVE, server removal and a session without hold time end it
 * at once (release_work).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/delay.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "auth.h"
#include "proto.h"
#include "rmem.h"
#include "server.h"

/*
 * A refusal READY gets this long: a peer that never posts a receive (RNR
 * for ever) must not keep its shell, queue pair and all, for long.
 */
#define RMEM_REFUSAL_TIMEOUT	(2 * HZ)

static void rmem_session_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_session *sess = cq->cq_context;

	sess->reg_status = wc->status;
	complete(&sess->reg_done);
}

/*
 * Post a chain of work requests, the last one signalled, and wait for it
 * at most @timeout.  *@posted (if not NULL) says whether the chain was
 * posted.
 */
int rmem_session_post_wait(struct rmem_session *sess,
			   struct ib_send_wr *first, struct ib_send_wr *last,
			   bool *posted, unsigned long timeout)
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
	if (!wait_for_completion_timeout(&sess->reg_done, timeout))
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

/*
 * Register the session's chunks from @first to @last (inclusive) in its
 * PD, in batches, and describe them in the table; a thin session's chunk
 * not taken is described absent.
 */
int rmem_session_reg_chunks(struct rmem_session *sess, unsigned int first,
			    unsigned int last)
{
	const int access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			   IB_ACCESS_REMOTE_WRITE;
	unsigned int psize = PAGE_SIZE << sess->srv->block_order;
	struct ib_reg_wr wrs[RMEM_REG_BATCH];
	unsigned int i, n = 0;
	int ret;

	for (i = first; i <= last; i++) {
		struct rmem_chunk *c = sess->chunks[i];
		struct ib_mr *mr;

		if (!c) {
			sess->table[i].addr = 0;
			sess->table[i].rkey = 0;
			sess->table[i].reserved =
				cpu_to_le32(RMEM_WIRE_CHUNK_ABSENT);
			goto post;
		}
		mr = rmem_session_map(sess, c->sgt.sgl, c->sgt.nents, psize,
				      sess->srv->chunk_size / psize,
				      (u64)i << sess->srv->chunk_shift, &wrs[n],
				      access);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		sess->mrs[i] = mr;
		sess->table[i].addr = cpu_to_le64(mr->iova);
		sess->table[i].rkey = cpu_to_le32(mr->rkey);
		sess->table[i].reserved = 0;
		if (n)
			wrs[n - 1].wr.next = &wrs[n].wr;
		n++;
post:
		if (n && (n == RMEM_REG_BATCH || i == last)) {
			ret = rmem_session_post_wait(sess, &wrs[0].wr,
						     &wrs[n - 1].wr, NULL,
						     RMEM_SETUP_TIMEOUT);
			if (ret)
				return ret;
			n = 0;
		}
	}
	return 0;
}

/**
 * rmem_session_put_status() - refresh the status entry after the chunk
 *	table (version 4), which the client's probe reads
 * @sess: the session
 *
 * Context: srv->lock held (the pool's counters).
 */
void rmem_session_put_status(struct rmem_session *sess)
{
	struct rmem_server *srv = sess->srv;
	struct rmem_wire_pool *st;
	size_t off = sess->nr_chunks * sizeof(*sess->table);

	lockdep_assert_held(&srv->lock);
	if (sess->version < 4 || !sess->table || sess->dead)
		return;
	st = (struct rmem_wire_pool *)((u8 *)sess->table + off);
	/* advisory: a READ racing this store may see the old value */
	WRITE_ONCE(st->free, cpu_to_le64((u64)srv->nr_free << srv->chunk_shift));
	WRITE_ONCE(st->seq, cpu_to_le32(le32_to_cpu(st->seq) + 1));
	rmem_session_sync_table(sess, off, sizeof(*st));
}

/**
 * rmem_server_put_status() - refresh every session's status entry
 * @srv: the server, whose pool just changed
 *
 * Context: srv->lock held.
 */
void rmem_server_put_status(struct rmem_server *srv)
{
	struct rmem_session *sess;

	lockdep_assert_held(&srv->lock);
	list_for_each_entry(sess, &srv->sessions, node)
		rmem_session_put_status(sess);
}

/**
 * rmem_session_sync_table() - hand bytes of the table the CPU wrote to
 *	the device
 * @sess: the session
 * @off: the first byte
 * @len: bytes
 *
 * Nothing before the table is mapped: the mapping hands it over whole.
 * Context: srv->lock held, or the session's only user of @table_dma.
 */
void rmem_session_sync_table(struct rmem_session *sess, size_t off,
			     size_t len)
{
	if (sess->table_dma)
		ib_dma_sync_single_for_device(sess->srv->ibdev,
					      sess->table_dma + off, len,
					      DMA_TO_DEVICE);
}

/* Register the chunk table for remote reading, once. */
static int rmem_session_reg_table(struct rmem_session *sess)
{
	struct ib_device *ibdev = sess->srv->ibdev;
	struct scatterlist *sg = &sess->table_sg;
	struct ib_reg_wr reg;
	u64 dma;
	int ret;

	if (sess->table_mr)
		return 0;
	/* one mapping, synced in parts as entries change */
	if (!sess->table_dma) {
		dma = ib_dma_map_single(ibdev, sess->table, sess->table_len,
					DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ibdev, dma))
			return -EIO;
		mutex_lock(&sess->srv->lock);
		sess->table_dma = dma;
		mutex_unlock(&sess->srv->lock);
	}
	sg_init_one(sg, sess->table, sess->table_len);
	sg_dma_address(sg) = sess->table_dma;
	sg_dma_len(sg) = sess->table_len;
	sess->table_mr = rmem_session_map(sess, sg, 1, PAGE_SIZE,
					  PAGE_ALIGN(sess->table_len) / PAGE_SIZE,
					  0, &reg, IB_ACCESS_REMOTE_READ);
	if (IS_ERR(sess->table_mr)) {
		ret = PTR_ERR(sess->table_mr);
		sess->table_mr = NULL;
		return ret;
	}
	return rmem_session_post_wait(sess, &reg.wr, &reg.wr, NULL,
				      RMEM_SETUP_TIMEOUT);
}

/**
 * rmem_session_send() - SEND a message on queue pair 0 and wait for it
 * @sess: the session
 * @dma: DMA address of the message, handed to the device here
 * @len: its bytes
 * @dir: the direction its mapping was made with
 * @sent: if not NULL, set when the SEND was posted
 * @timeout: how long its completion may take
 *
 * Context: the session's post_lock held, or its only user of @reg_done.
 * Return: 0 or a negative errno.
 */
int rmem_session_send(struct rmem_session *sess, u64 dma, u32 len,
		      enum dma_data_direction dir, bool *sent,
		      unsigned long timeout)
{
	struct ib_send_wr send = {};
	struct ib_sge sge;

	sge.addr = dma;
	sge.length = len;
	sge.lkey = sess->pd->local_dma_lkey;
	send.opcode = IB_WR_SEND;
	send.sg_list = &sge;
	send.num_sge = 1;
	ib_dma_sync_single_for_device(sess->srv->ibdev, dma, len, dir);
	return rmem_session_post_wait(sess, &send, &send, sent, timeout);
}

/*
 * Send READY: with @status RMEM_WIRE_OK the session description, signed
 * under the session key (after registering the chunk table), else only
 * the status.  *@sent says whether READY was posted: only then may the
 * client have it.
 */
static int rmem_session_send_ready(struct rmem_session *sess,
				   enum rmem_wire_status status, bool *sent)
{
	struct rmem_wire_ready *r = sess->ready;
	int ret;

	*sent = false;
	memset(r, 0, sizeof(*r));
	r->magic = cpu_to_le32(RMEM_WIRE_MAGIC);
	r->version = cpu_to_le16(sess->version);
	r->status = cpu_to_le16(status);
	if (status == RMEM_WIRE_OK) {
		ret = rmem_session_reg_table(sess);
		if (ret)
			return ret;
		mutex_lock(&sess->srv->lock);
		rmem_session_put_status(sess);
		mutex_unlock(&sess->srv->lock);
		r->handle = cpu_to_le64(sess->handle);
		memcpy(r->pool_id, sess->srv->id, sizeof(r->pool_id));
		r->generation = cpu_to_le64(sess->generation);
		r->size = cpu_to_le64(sess->size);
		r->chunk_size = cpu_to_le64(sess->srv->chunk_size);
		r->nr_chunks = cpu_to_le32(sess->nr_chunks);
		r->table_rkey = cpu_to_le32(sess->table_mr->rkey);
		r->table_addr = cpu_to_le64(sess->table_mr->iova);
		r->table_len = cpu_to_le32(sess->table_len);
		if (sess->thin)
			r->flags = cpu_to_le32(RMEM_WIRE_READY_THIN);
		if (sess->proven)
			r->flags |= cpu_to_le32(RMEM_WIRE_READY_KEYED);
		else
			memcpy(r->session_key, sess->session_key,
			       sizeof(r->session_key));
		ret = rmem_ready_mac(sess->mac, r, sess->ready_counter, r->mac);
		if (ret)
			return ret;
	}

	ret = rmem_session_send(sess, sess->ready_dma, sizeof(*r),
				DMA_TO_DEVICE, sent,
				status == RMEM_WIRE_OK ? RMEM_SETUP_TIMEOUT :
				RMEM_REFUSAL_TIMEOUT);
	memzero_explicit(r->session_key, sizeof(r->session_key));
	return ret;
}

/*
 * The client authenticated: take its memory (limits, volume ownership and
 * the pool checked in the same hold of srv->lock) and what describes it.
 * Return: RMEM_WIRE_OK or the status to refuse with.
 */
static enum rmem_wire_status rmem_session_admit(struct rmem_session *sess)
{
	struct rmem_server *srv = sess->srv;
	enum rmem_wire_status status;
	u64 nr;

	status = rmem_hs_authenticate(sess);
	if (status != RMEM_WIRE_OK)
		return status;
	nr = DIV_ROUND_UP_ULL(sess->size, srv->chunk_size);
	/* a thin session may be larger than the pool: it takes on demand */
	if (!sess->thin &&
	    sess->size > ((u64)srv->nr_chunks << srv->chunk_shift))
		return RMEM_WIRE_ENOSPC;
	/* server add checked the whole pool against these; check anyway */
	if (!rmem_server_table_fits(srv, nr, sess->thin))
		return sess->thin ? RMEM_WIRE_EINVAL : RMEM_WIRE_ENOMEM;

	mutex_lock(&srv->lock);
	status = srv->dying || sess->dead || sess->orphan ? RMEM_WIRE_ENOMEM :
		 rmem_server_session_memory(srv, sess);
	if (status == RMEM_WIRE_OK) {
		/* a session now: it counts against its host's limits */
		sess->authed = true;
		rmem_hs_end(sess);
	}
	mutex_unlock(&srv->lock);
	if (status != RMEM_WIRE_OK)
		return status;
	/* a client is coming: the background zeroing yields to its setup */
	rmem_server_zero_pause(srv);

	sess->table_len = sess->nr_chunks * sizeof(*sess->table);
	if (sess->version >= 4)
		sess->table_len += sizeof(struct rmem_wire_pool);
	sess->table = alloc_pages_exact(PAGE_ALIGN(sess->table_len),
					GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	sess->mrs = kvcalloc(sess->nr_chunks, sizeof(*sess->mrs),
			     GFP_KERNEL | __GFP_NOWARN);
	if (!sess->table || !sess->mrs)
		return RMEM_WIRE_ENOMEM;
	if (sess->thin && rmem_session_ext_init(sess))
		return RMEM_WIRE_ENOMEM;
	return RMEM_WIRE_OK;
}

/**
 * rmem_session_fault_delay() - fault_ready_delay_ms: wait, but not for a
 *	session that is going
 * @sess: the session
 */
void rmem_session_fault_delay(struct rmem_session *sess)
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
	/* the AUTH message of a new session came: check it, take memory */
	if (!sess->authed) {
		status = rmem_session_admit(sess);
		if (status != RMEM_WIRE_OK) {
			/*
			 * Say why, then end it: nothing was handed out.  It
			 * keeps its handshake slot until it is released (at
			 * most RMEM_REFUSAL_TIMEOUT from here, for a peer that
			 * takes no READY), but may be evicted meanwhile.
			 */
			mutex_lock(&srv->lock);
			sess->refusing = true;
			mutex_unlock(&srv->lock);
			/* authentication failures were logged already */
			if (status != RMEM_WIRE_EAUTH && status != RMEM_WIRE_ENOKEY)
				pr_info_ratelimited("server %s: refused %pISp%s%s: status %d\n",
						    srv->name, &sess->peer,
						    sess->host_id[0] ? ", host " : "",
						    sess->host_id, status);
			rmem_session_send_ready(sess, status, &sent);
			mutex_lock(&srv->lock);
			rmem_session_kill(sess);
			mutex_unlock(&srv->lock);
			return;
		}
	}
	/* a reconnect finds the memory zeroed and registered already */
	first = !sess->was_live;
	mutex_lock(&sess->post_lock);
	if (first) {
		rmem_server_zero_chunks(srv, sess, 0, sess->nr_chunks);
		ret = rmem_session_reg_chunks(sess, 0, sess->nr_chunks - 1);
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
	/* a thin session's client may ask for a slot as soon as it has READY */
	if (status == RMEM_WIRE_OK && sess->thin &&
	    rmem_session_ext_post_recv(sess))
		status = RMEM_WIRE_ENOMEM;
	ret = rmem_session_send_ready(sess, status, &sent);
	mutex_unlock(&sess->post_lock);
	if (ret || status != RMEM_WIRE_OK) {
		mutex_lock(&srv->lock);
		/*
		 * Registration failed, or a new session's READY never went
		 * out (no client has its handle): nothing worth keeping.
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

/* A client that never sent its AUTH message: end the shell. */
static void rmem_session_hs_timeout(struct work_struct *work)
{
	struct rmem_session *sess = container_of(to_delayed_work(work),
						 struct rmem_session, hs_work);

	mutex_lock(&sess->srv->lock);
	if (!sess->auth_received && !sess->dead) {
		pr_info_ratelimited("server %s: %pISp did not authenticate within %d s; connection closed\n",
				    sess->srv->name, &sess->peer,
				    (int)(RMEM_HS_TIMEOUT / HZ));
		rmem_session_kill(sess);
	}
	mutex_unlock(&sess->srv->lock);
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
void rmem_session_lost(struct rmem_session *sess)
{
	if (sess->dead || sess->orphan)
		return;
	if (!sess->hold || !sess->was_live || sess->srv->dying) {
		rmem_session_kill(sess);
		return;
	}
	sess->orphan = true;
	sess->orphan_at = jiffies;
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
	cancel_work_sync(&sess->ext_work);
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
		/* a message that arrived before the flush queued it again */
		if (!i)
			cancel_work_sync(&sess->ext_work);
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
		unsigned long end = sess->orphan_at + sess->hold;

		/*
		 * A run that waited for the lock while a RECONNECT took the
		 * session back, and a new loss orphaned it again, is not that
		 * loss's: its hold starts over.
		 */
		if (time_before(jiffies, end)) {
			mod_delayed_work(rmem_wq, &sess->hold_work,
					 end - jiffies);
		} else {
			pr_info("server %s: %pISp did not reconnect in %u ms; session released\n",
				sess->srv->name, &sess->peer,
				jiffies_to_msecs(sess->hold));
			rmem_session_kill(sess);
		}
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
	rmem_session_put_status(sess);
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

/**
 * rmem_session_free() - free a session's resources and the session
 * @sess: a session no queue pair uses and no work item runs for
 *
 * Drops the session's reference on its server as its last step.
 */
void rmem_session_free(struct rmem_session *sess)
{
	struct rmem_server *srv = sess->srv;
	struct ib_device *ibdev = srv->ibdev;

	rmem_session_dereg(sess);
	rmem_session_ext_free(sess);
	rmem_hs_stop(sess);
	if (sess->table_dma)
		ib_dma_unmap_single(ibdev, sess->table_dma, sess->table_len,
				    DMA_TO_DEVICE);
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
	rmem_server_unref(srv);
}

static void rmem_session_release_work(struct work_struct *work)
{
	struct rmem_session *sess = container_of(work, struct rmem_session,
						 release_work);
	struct rmem_server *srv = sess->srv;

	/* no QP can join or reconnect any more: the session is dead */
	cancel_work_sync(&sess->orphan_work);
	cancel_delayed_work_sync(&sess->hold_work);
	cancel_delayed_work_sync(&sess->hs_work);
	rmem_session_drop_conns(sess);
	/* no queue pair can use the memory regions any more */
	rmem_session_dereg(sess);
	mutex_lock(&srv->lock);
	rmem_server_session_release_memory(srv, sess);
	rmem_hs_end(sess);
	list_del(&sess->node);
	mutex_unlock(&srv->lock);
	/*
	 * Testing only: a server removal now finds no session listed, and
	 * must still wait for this one (023).
	 */
	if (READ_ONCE(rmem_fault_release_delay_ms))
		msleep(min(READ_ONCE(rmem_fault_release_delay_ms), 60000U));
	/* its last touch of @srv: rmem_server_destroy() may free it then */
	rmem_session_free(sess);
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

/**
 * rmem_session_alloc() - a new, empty session of a server
 * @srv: the server
 *
 * The session holds a reference on @srv until rmem_session_free().
 *
 * Return: the session, not yet on the server's list, or NULL.
 */
struct rmem_session *rmem_session_alloc(struct rmem_server *srv)
{
	struct rmem_session *sess;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return NULL;
	sess->srv = srv;
	atomic_inc(&srv->refs);
	INIT_WORK(&sess->setup_work, rmem_session_setup_work);
	INIT_WORK(&sess->release_work, rmem_session_release_work);
	INIT_WORK(&sess->orphan_work, rmem_session_orphan_work);
	INIT_WORK(&sess->ext_work, rmem_session_ext_work);
	mutex_init(&sess->post_lock);
	INIT_DELAYED_WORK(&sess->hold_work, rmem_session_hold_work);
	INIT_DELAYED_WORK(&sess->ka_work, rmem_session_ka_work);
	INIT_DELAYED_WORK(&sess->hs_work, rmem_session_hs_timeout);
	init_completion(&sess->reg_done);
	sess->reg_cqe.done = rmem_session_reg_done;
	rmem_probe_init(&sess->ka, rmem_session_ka_done);
	return sess;
}
