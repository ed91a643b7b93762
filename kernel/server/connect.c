// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: connect requests and rdma_cm events.
 *
 * rdma_cm events of the server's listener and of every accepted queue pair
 * arrive in rmem_server_cm_handler().  A connect request carries a
 * &struct rmem_wire_connect: RMEM_WIRE_NEW makes a session shell
 * (session.c) and answers with the handshake's challenge (handshake.c);
 * RMEM_WIRE_JOIN, _RECONNECT and _LEAVE must name an authenticated
 * session by its handle and be signed under its session key.  Every
 * refusal is a reject carrying a &struct rmem_wire_reject status.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "proto.h"
#include "rmem.h"
#include "server.h"

/* Work requests of queue pair 0: registration batches, READY, probe. */
#define RMEM_QP0_SEND_WRS	(RMEM_REG_BATCH + 2)

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
	attr.cap.max_send_wr = index ? 1 : RMEM_QP0_SEND_WRS;
	/* the AUTH receive, and room for ib_drain_rq()'s */
	attr.cap.max_recv_wr = 2;
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

/*
 * Accept a connect request; the REP carries @ch (RMEM_WIRE_NEW) or a
 * reject message with status OK (JOIN, RECONNECT).
 */
static int rmem_server_accept(struct rdma_cm_id *id,
			      const struct rdma_conn_param *req,
			      const struct rmem_wire_challenge *ch, u16 version)
{
	const struct ib_device_attr *a = &id->device->attrs;
	struct rmem_wire_reject rep = {
		.magic = cpu_to_le32(RMEM_WIRE_MAGIC),
		.version = cpu_to_le16(version),
	};
	struct rdma_conn_param p = {};

	p.private_data = ch ? (const void *)ch : &rep;
	p.private_data_len = ch ? sizeof(*ch) : sizeof(rep);
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

/**
 * rmem_server_allowed() - whether a client address may connect
 * @srv: the server
 * @peer: the client's address
 *
 * Return: true if an allow prefix matches, or there are none.
 */
bool rmem_server_allowed(struct rmem_server *srv, const struct sockaddr *peer)
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
	const struct sockaddr *peer = (struct sockaddr *)&id->route.addr.dst_addr;
	struct ib_device *ibdev = id->device;
	enum rmem_wire_status status;
	struct rmem_session *sess;
	unsigned int nr_qps = le16_to_cpu(req->nr_qps);

	if (le16_to_cpu(req->qp_index) || !nr_qps || nr_qps > RMEM_MAX_QPS)
		return RMEM_WIRE_EINVAL;
	if (!rmem_server_allowed(srv, peer))
		return RMEM_WIRE_EACCES;
	if (srv->ibdev != ibdev)
		return RMEM_WIRE_EINVAL;

	/* a bounded number of unauthenticated connections, before any cost */
	mutex_lock(&srv->lock);
	status = srv->dying ? RMEM_WIRE_ENOMEM : rmem_hs_admit(srv, peer);
	mutex_unlock(&srv->lock);
	if (status != RMEM_WIRE_OK)
		return status;
	sess = rmem_session_alloc(srv);
	if (!sess) {
		mutex_lock(&srv->lock);
		srv->nr_hs--;
		mutex_unlock(&srv->lock);
		return RMEM_WIRE_ENOMEM;
	}
	sess->nr_qps = nr_qps;
	sess->version = le16_to_cpu(req->version);
	sess->in_hs = true;
	memcpy(&sess->peer, peer, sizeof(sess->peer));

	/* a shell: what the handshake needs, nothing of the pool */
	status = RMEM_WIRE_ENOMEM;
	sess->ready = kzalloc(sizeof(*sess->ready), GFP_KERNEL);
	if (!sess->ready)
		goto out_end_hs;
	sess->ready_dma = ib_dma_map_single(ibdev, sess->ready,
					    sizeof(*sess->ready), DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, sess->ready_dma)) {
		sess->ready_dma = 0;
		goto out_end_hs;
	}
	sess->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(sess->pd)) {
		sess->pd = NULL;
		goto out_end_hs;
	}
	sess->cq = ib_alloc_cq(ibdev, sess, RMEM_QP0_SEND_WRS + 2 + 2 * nr_qps, 0,
			       IB_POLL_WORKQUEUE);
	if (IS_ERR(sess->cq)) {
		sess->cq = NULL;
		goto out_end_hs;
	}
	if (rmem_sconn_create(sess, id, 0))
		goto out_end_hs;
	if (rmem_hs_start(sess, req, param->qp_num))
		goto out_destroy_qp;

	mutex_lock(&srv->lock);
	list_add_tail(&sess->node, &srv->sessions);
	mutex_unlock(&srv->lock);
	if (rmem_server_accept(id, param, &sess->challenge, sess->version)) {
		mutex_lock(&srv->lock);
		rmem_session_kill(sess);
		mutex_unlock(&srv->lock);
	}
	return RMEM_WIRE_OK;

out_destroy_qp:
	/* rmem_hs_start() failed: nothing was posted on the queue pair */
	rdma_destroy_qp(id);
	id->context = srv;
	kfree(sess->conns[0]);
	sess->conns[0] = NULL;
out_end_hs:
	mutex_lock(&srv->lock);
	rmem_hs_end(sess);
	mutex_unlock(&srv->lock);
	rmem_session_free(sess);
	return status;
}

/*
 * The authenticated session @handle names, or NULL.  Context: srv->lock
 * held.
 */
static struct rmem_session *rmem_session_find(struct rmem_server *srv,
					      __le64 handle)
{
	struct rmem_session *sess;
	u64 h = le64_to_cpu(handle);

	list_for_each_entry(sess, &srv->sessions, node)
		if (sess->authed && sess->handle == h)
			return sess;
	return NULL;
}

/*
 * A signed request for @sess from @peer: the MAC and counter right, the
 * address still allowed, and a JOIN or LEAVE from the session's own
 * address (that of its last connect: a RECONNECT may come from a new one).
 * A session made without a key may only LEAVE once the server requires
 * keys: its session key went out in clear.  Only a request that passes
 * all of these uses its counter up.  Context: srv->lock held.
 */
static enum rmem_wire_status rmem_session_check_req(struct rmem_session *sess,
						    const struct rmem_wire_connect *req,
						    u32 qpn,
						    const struct sockaddr *peer)
{
	enum rmem_wire_status status;

	/* a session speaks the version it was made with */
	if (le16_to_cpu(req->version) != sess->version)
		return RMEM_WIRE_EVERSION;
	status = rmem_session_check_ctl(sess, req, qpn);
	if (status != RMEM_WIRE_OK) {
		pr_info_ratelimited("server %s: %pISp sent a %s for host %s's session: %s\n",
				    sess->srv->name, peer,
				    status == RMEM_WIRE_EREPLAY ? "replayed request" :
				    "request with a bad signature",
				    sess->host_id[0] ? sess->host_id : "(none)",
				    req->op == RMEM_WIRE_JOIN ? "JOIN" :
				    req->op == RMEM_WIRE_LEAVE ? "LEAVE" :
				    "RECONNECT");
		return status;
	}
	if (!rmem_server_allowed(sess->srv, peer))
		return RMEM_WIRE_EACCES;
	if (req->op != RMEM_WIRE_RECONNECT &&
	    !rmem_addr_same_host(&sess->peer, peer)) {
		pr_info_ratelimited("server %s: %pISp sent a %s for the session of %pISp: refused\n",
				    sess->srv->name, peer,
				    req->op == RMEM_WIRE_JOIN ? "JOIN" : "LEAVE",
				    &sess->peer);
		return RMEM_WIRE_EACCES;
	}
	if (req->op != RMEM_WIRE_LEAVE && !sess->proven &&
	    rmem_server_auth(sess->srv) == RMEM_AUTH_REQUIRED)
		return RMEM_WIRE_ENOKEY;
	/* accepted once at most, whatever the caller's later checks say */
	sess->counter = le64_to_cpu(req->ctl.counter);
	return RMEM_WIRE_OK;
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
	found = rmem_session_find(srv, req->ctl.handle);
	if (!found || found->dead)
		goto out_unlock;
	status = rmem_session_check_req(found, req, param->qp_num,
					(struct sockaddr *)&id->route.addr.dst_addr);
	if (status != RMEM_WIRE_OK)
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
	if (rmem_server_accept(id, param, NULL, found->version))
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
	const struct sockaddr *peer = (struct sockaddr *)&id->route.addr.dst_addr;
	struct rmem_session *sess;
	enum rmem_wire_status status = RMEM_WIRE_ENOSESSION;

	if (!rmem_server_allowed(srv, peer))
		return RMEM_WIRE_EACCES;
	mutex_lock(&srv->lock);
	sess = rmem_session_find(srv, req->ctl.handle);
	if (!sess || sess->dead || !sess->was_live || srv->dying)
		goto out_unlock;
	status = RMEM_WIRE_EINVAL;
	if (le16_to_cpu(req->qp_index) ||
	    le16_to_cpu(req->nr_qps) != sess->nr_qps ||
	    srv->ibdev != id->device)
		goto out_unlock;
	status = rmem_session_check_req(sess, req, param->qp_num, peer);
	if (status != RMEM_WIRE_OK)
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
	sess->conns[0]->reconnect = true;
	sess->ready_counter = le64_to_cpu(req->ctl.counter);
	sess->orphan = false;
	sess->conns_gone = false;
	/* no probe of the old queue pairs is pending any more (drained) */
	rmem_probe_done(&sess->ka);
	/* hold_work checks orphan under the lock: a late run does nothing */
	cancel_delayed_work(&sess->hold_work);
	memcpy(&sess->peer, peer, sizeof(sess->peer));
	pr_info("server %s: %pISp reconnected to its session\n", srv->name,
		&sess->peer);
	status = RMEM_WIRE_OK;
	if (rmem_server_accept(id, param, NULL, sess->version))
		rmem_session_lost(sess);
out_unlock:
	mutex_unlock(&srv->lock);
	return status;
}

/* RMEM_WIRE_LEAVE: the client detached; release its session now. */
static enum rmem_wire_status rmem_session_leave(struct rmem_server *srv,
						struct rdma_cm_id *id,
						const struct rmem_wire_connect *req,
						const struct rdma_conn_param *param)
{
	struct rmem_session *sess;
	enum rmem_wire_status status = RMEM_WIRE_ENOSESSION;

	mutex_lock(&srv->lock);
	sess = rmem_session_find(srv, req->ctl.handle);
	if (!sess || sess->dead)
		goto out_unlock;
	status = rmem_session_check_req(sess, req, param->qp_num,
					(struct sockaddr *)&id->route.addr.dst_addr);
	if (status == RMEM_WIRE_OK)
		rmem_session_kill(sess);
out_unlock:
	mutex_unlock(&srv->lock);
	return status;
}

/*
 * Flags and the bytes a request does not use must be zero: a later
 * version can then give them a meaning that this one refuses.
 */
static bool rmem_wire_connect_reserved_zero(const struct rmem_wire_connect *req)
{
	if (req->flags)
		return false;
	if (req->op == RMEM_WIRE_NEW)
		return !memchr_inv(req->new.reserved, 0,
				   sizeof(req->new.reserved));
	return true;
}

/* A well-formed request of a version we speak: what it asks for. */
static enum rmem_wire_status
rmem_server_dispatch(struct rmem_server *srv, struct rdma_cm_id *id,
		     const struct rmem_wire_connect *req,
		     const struct rdma_conn_param *param)
{
	if (!rmem_wire_connect_reserved_zero(req))
		return RMEM_WIRE_EINVAL;
	switch (req->op) {
	case RMEM_WIRE_NEW:
		return rmem_session_new(srv, id, req, param);
	case RMEM_WIRE_JOIN:
		return rmem_session_join(srv, id, req, param);
	case RMEM_WIRE_RECONNECT:
		return rmem_session_reconnect(srv, id, req, param);
	case RMEM_WIRE_LEAVE:
		return rmem_session_leave(srv, id, req, param);
	default:
		return RMEM_WIRE_EINVAL;
	}
}

/* A connect request on the listener: returns non-zero to destroy @id. */
static int rmem_server_connect_request(struct rmem_server *srv,
				       struct rdma_cm_id *id,
				       struct rdma_cm_event *ev)
{
	const struct rmem_wire_connect *req = ev->param.conn.private_data;
	struct rmem_wire_reject rej = {
		.magic = cpu_to_le32(RMEM_WIRE_MAGIC),
		/* what any client reads: it cannot tell which we are */
		.version = cpu_to_le16(RMEM_WIRE_VERSION_MIN),
	};
	enum rmem_wire_status status;
	u16 newest;

	if (!req || ev->param.conn.private_data_len < sizeof(*req) ||
	    le32_to_cpu(req->magic) != RMEM_WIRE_MAGIC) {
		status = RMEM_WIRE_EINVAL;
		goto out_refuse;
	}
	/* testing may cap what new sessions get, never existing ones */
	newest = req->op == RMEM_WIRE_NEW ? rmem_server_wire_version() :
		 RMEM_WIRE_VERSION;
	if (le16_to_cpu(req->version) < RMEM_WIRE_VERSION_MIN ||
	    le16_to_cpu(req->version) > newest) {
		rej.version = cpu_to_le16(newest);
		status = RMEM_WIRE_EVERSION;
	} else {
		/* a version we speak is answered in it: the client checks */
		rej.version = req->version;
		status = rmem_server_dispatch(srv, id, req, &ev->param.conn);
	}
	if (status == RMEM_WIRE_OK && req->op != RMEM_WIRE_LEAVE) {
		/* a NEW pauses the zeroing once it has authenticated */
		if (req->op != RMEM_WIRE_NEW)
			rmem_server_zero_pause(srv);
		return 0;
	}
	if (status == RMEM_WIRE_OK)
		goto out_reject;	/* a LEAVE done: not worth a log line */
out_refuse:
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
		 * Only the session's current queue pair 0 of a RECONNECT (a
		 * new session's setup starts with its AUTH message), and only
		 * while the session is neither lost nor ending: a late RTU on
		 * a queue pair being dropped (its setup work already
		 * cancelled) must not set up anything on a QP about to be
		 * destroyed.
		 */
		if (conn->reconnect && sess->conns[0] == conn && !sess->dead &&
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
