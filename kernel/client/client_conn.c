// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: the connection to a server.
 *
 * The client's rdma_cm handler, queue pair and CQ creation, the connect
 * requests (RMEM_WIRE_NEW, _JOIN, _RECONNECT, _LEAVE) and their refusals,
 * and tearing queue pairs down (READY and the chunk table: ready.c).
 * client.c uses these to attach and detach, recovery.c to reconnect.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "client.h"

static void rmem_queue_cm_fail(struct rmem_queue *queue, int err,
			       enum rmem_cm_why why)
{
	queue->cm_error = err;
	queue->cm_why = why;
	complete(&queue->cm_done);
}

/**
 * rmem_ctl_arm() - ready @sess->ctl_done for the next control wait
 * @sess: the session, no control work request outstanding
 *
 * Clears the status too: rmem_ctl_done() keeps the first error of a wait.
 */
void rmem_ctl_arm(struct rmem_sess *sess)
{
	reinit_completion(&sess->ctl_done);
	WRITE_ONCE(sess->ctl_status, IB_WC_SUCCESS);
}

/**
 * rmem_ctl_done() - completion of a control work request on queue pair 0
 * @cq: the CQ
 * @wc: READY receive or chunk table READ
 */
void rmem_ctl_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_sess *sess = container_of(wc->wr_cqe, struct rmem_sess,
					      ctl_cqe);

	/*
	 * A flush behind a failed work request (the table READ's tail) does
	 * not hide that request's own error.
	 */
	if (wc->status != IB_WC_WR_FLUSH_ERR ||
	    READ_ONCE(sess->ctl_status) == IB_WC_SUCCESS)
		WRITE_ONCE(sess->ctl_status, wc->status);
	sess->ctl_len = wc->byte_len;
	complete(&sess->ctl_done);
}

/* Map @len bytes at @buf into *@dma (0 on failure).  Return: 0 or -EIO. */
static int rmem_dma_map(struct ib_device *ibdev, void *buf, size_t len,
			enum dma_data_direction dir, u64 *dma)
{
	*dma = ib_dma_map_single(ibdev, buf, len, dir);
	if (ib_dma_mapping_error(ibdev, *dma)) {
		*dma = 0;
		return -EIO;
	}
	return 0;
}

/* Unmap *@dma if it is mapped, and mark it unmapped. */
static void rmem_dma_unmap(struct ib_device *ibdev, u64 *dma, size_t len,
			   enum dma_data_direction dir)
{
	if (*dma)
		ib_dma_unmap_single(ibdev, *dma, len, dir);
	*dma = 0;
}

/* Unmap a session's buffers from the device's RDMA device. */
static void rmem_sess_unmap(struct rmem_sess *sess, struct ib_device *ibdev)
{
	rmem_dma_unmap(ibdev, &sess->table_dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	rmem_dma_unmap(ibdev, &sess->ready_dma, sizeof(*sess->ready),
		       DMA_FROM_DEVICE);
	rmem_dma_unmap(ibdev, &sess->auth_dma, sizeof(*sess->auth),
		       DMA_TO_DEVICE);
	rmem_dma_unmap(ibdev, &sess->ka_dma, sizeof(*sess->ka_buf),
		       DMA_FROM_DEVICE);
	rmem_sess_ext_unmap(sess, ibdev);
}

/* rmem_dev_release_ib() under ib_lock */
static void __rmem_dev_release_ib(struct rmem_dev *dev)
{
	struct ib_device *ibdev = dev->ibdev;
	unsigned int i;

	if (!ibdev)
		return;
	for (i = 0; i < rmem_dev_nr_slots(dev); i++)
		rmem_sess_unmap(dev->sessions[i], ibdev);
	rmem_dma_unmap(ibdev, &dev->zero_dma, RMEM_ZERO_BUF, DMA_TO_DEVICE);
	if (dev->pd)
		ib_dealloc_pd(dev->pd);
	dev->pd = NULL;
	dev->ibdev = NULL;
	ib_device_put(ibdev);
}

/**
 * rmem_dev_drop_removed_ib() - let go of an RDMA device going away
 * @dev: the device; one of its sessions just tore its queue pairs down
 *
 * Only once no session has an rdma_cm id (the removal's own callback
 * lets go after tearing every session down, rmem_dev_ib_removed(); this
 * covers a setup the callback did not see).
 */
void rmem_dev_drop_removed_ib(struct rmem_dev *dev)
{
	unsigned int i, k;

	mutex_lock(&dev->ib_lock);
	if (!dev->ibdev || rmem_client_ibdev_usable(dev->ibdev))
		goto out_unlock;
	for (k = 0; rmem_dev_nr_slots(dev) > 1 && k < rmem_dev_nr_slots(dev);
	     k++)
		for (i = 0; i < dev->nr_queues; i++)
			if (READ_ONCE(dev->sessions[k]->queues[i].cm_id))
				goto out_unlock;
	__rmem_dev_release_ib(dev);
out_unlock:
	mutex_unlock(&dev->ib_lock);
}

/**
 * rmem_dev_release_ib() - let go of the RDMA device
 * @dev: the device, with no queue pair left
 *
 * Unmaps the buffers, frees the PD and drops the device reference: what
 * a device being removed waits for.  The next connect sets them up again
 * on the device its route leads to.
 */
void rmem_dev_release_ib(struct rmem_dev *dev)
{
	mutex_lock(&dev->ib_lock);
	__rmem_dev_release_ib(dev);
	mutex_unlock(&dev->ib_lock);
}

/*
 * The device's limits: the first connect fixes queue pairs, queue depth
 * and SGEs.  Once the disk exists they are fixed: a reconnect over another
 * RDMA device (the first was removed) needs one that takes them.
 */
static int rmem_dev_ib_limits(struct rmem_dev *dev, struct ib_device *ibdev)
{
	const struct ib_device_attr *a = &ibdev->attrs;
	unsigned int qd, max_qd, max_qps, max_sge, per_rq;
	bool tail;

	/* a device that cannot read remote memory cannot serve a read */
	max_sge = min3(a->max_send_sge, a->max_sge_rd, RMEM_MAX_SGE);
	if (max_sge < 1 || !a->max_qp_init_rd_atom)
		return -EMEDIUMTYPE;
	/*
	 * send queue: rmem_blk_send_wrs() + 1 (drain); CQ: that + 3.  Only
	 * Soft-RoCE needs a READ's tail WR (rmem_build_read_tail()).
	 */
	tail = ibdev->ops.driver_id == RDMA_DRIVER_RXE;
	per_rq = rmem_wrs_per_rq(tail, dev->cfg.read_split);
	max_qd = min((a->max_qp_wr - 1 - rmem_ctl_wrs(dev)) / per_rq,
		     (a->max_cqe - 4 - rmem_ctl_wrs(dev)) / per_rq);
	if (dev->registered) {
		if (max_sge < dev->max_sge || max_qd < dev->cfg.queue_depth ||
		    a->max_qp < dev->nr_queues)
			return -EXDEV;
		WRITE_ONCE(dev->read_tail, tail);
		return 0;
	}
	WRITE_ONCE(dev->read_tail, tail);
	dev->max_sge = max_sge;
	qd = min(dev->cfg.queue_depth, max_qd);
	if (qd != dev->cfg.queue_depth)
		pr_info("%s: queue depth %u capped to %u by the device\n",
			dev->name, dev->cfg.queue_depth, qd);
	dev->cfg.queue_depth = qd;
	if (!dev->cfg.nr_qps)
		dev->cfg.nr_qps = clamp_t(unsigned int, num_online_cpus(), 1,
					  ibdev->num_comp_vectors);
	/* blk-mq never makes more hardware queues than CPU ids */
	max_qps = min_t(unsigned int, min_t(unsigned int, a->max_qp, nr_cpu_ids),
			RMEM_MAX_DEV_QPS);
	if (dev->cfg.nr_qps > max_qps) {
		pr_info("%s: %u queue pairs capped to %u (CPUs, device limit)\n",
			dev->name, dev->cfg.nr_qps, max_qps);
		dev->cfg.nr_qps = max_qps;
	}
	/* polled queue pairs come on top, within the same limits */
	max_qps = min_t(unsigned int, nr_cpu_ids,
			min_t(unsigned int, a->max_qp, RMEM_MAX_DEV_QPS) -
			dev->cfg.nr_qps);
	if (dev->cfg.nr_poll_qps > max_qps) {
		pr_info("%s: %u polled queue pairs capped to %u (CPUs, device limit)\n",
			dev->name, dev->cfg.nr_poll_qps, max_qps);
		dev->cfg.nr_poll_qps = max_qps;
	}
	dev->nr_poll = dev->cfg.nr_poll_qps;
	dev->nr_queues = dev->cfg.nr_qps + dev->nr_poll;
	return 0;
}

/* Map a session's buffers for the device's RDMA device. */
static int rmem_sess_map(struct rmem_sess *sess, struct ib_device *ibdev)
{
	if (rmem_dma_map(ibdev, sess->ready, sizeof(*sess->ready),
			 DMA_FROM_DEVICE, &sess->ready_dma) ||
	    rmem_dma_map(ibdev, sess->auth, sizeof(*sess->auth),
			 DMA_TO_DEVICE, &sess->auth_dma) ||
	    rmem_dma_map(ibdev, sess->ka_buf, sizeof(*sess->ka_buf),
			 DMA_FROM_DEVICE, &sess->ka_dma) ||
	    (sess->ext && rmem_sess_ext_map(sess, ibdev)))
		return -EIO;
	/* on another device than before: the probe reads with the new PD */
	rmem_sess_set_probe(sess);
	return 0;
}

/*
 * Sessions @dev->queue_io has room for: over several servers, as many
 * as a device may have (a peer add takes the next).
 */
static unsigned int rmem_dev_io_sessions(const struct rmem_dev *dev)
{
	return rmem_dev_nr_sess(dev) > 1 ? RMEM_MAX_PEERS : 1;
}

/* Point @sess's queues at their part of @dev->queue_io. */
static void rmem_sess_link_io(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;
	unsigned int i;

	for (i = 0; i < dev->nr_queues; i++)
		sess->queues[i].io =
			&dev->queue_io[sess->index * dev->nr_queues + i];
}

/*
 * What the hardware queues' I/O writes, near the RDMA device that
 * completes it: once, when the first connect has fixed their number.
 * Not later (with the tag set): the probes, which start before the disk
 * exists, read the queues' last_done.  Failing, it fails the attach.
 */
static int rmem_dev_alloc_queue_io(struct rmem_dev *dev,
				   struct ib_device *ibdev)
{
	unsigned int i, n = rmem_dev_io_sessions(dev) * dev->nr_queues;

	if (dev->queue_io)
		return 0;
	dev->queue_io = kvzalloc_node(array_size(n, sizeof(*dev->queue_io)),
				      GFP_KERNEL, ibdev_to_node(ibdev));
	if (!dev->queue_io)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		spin_lock_init(&dev->queue_io[i].batch_lock);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		rmem_sess_link_io(dev->sessions[i]);
	return 0;
}

/**
 * rmem_dev_slot_add() - give a session being added its place in a device
 * @dev: a registered device over several servers, with fewer than
 *	RMEM_MAX_PEERS sessions and none being added
 * @sess: the new session, at index @dev->nr_sess
 *
 * Its queues get their part of the queue arrays, and its buffers are
 * mapped for the device's RDMA device if it has one (else the connect
 * that sets one up maps them: the session is one of @dev's slots from
 * here, rmem_dev_nr_slots()).  Not counted in rmem_dev_nr_sess() yet.
 *
 * Context: rmem_devs_lock held.
 * Return: 0, or -EIO if a mapping failed.
 */
int rmem_dev_slot_add(struct rmem_dev *dev, struct rmem_sess *sess)
{
	int ret = 0;

	mutex_lock(&dev->ib_lock);
	rmem_sess_link_io(sess);
	if (dev->ibdev)
		ret = rmem_sess_map(sess, dev->ibdev);
	if (ret) {
		rmem_sess_unmap(sess, dev->ibdev);
	} else {
		dev->sessions[dev->nr_sess] = sess;
		dev->adding = true;
	}
	mutex_unlock(&dev->ib_lock);
	return ret;
}

/**
 * rmem_dev_slot_end() - count a session being added, or let go of it
 * @dev: the device
 * @publish: count it (it is connected); else unmap its buffers and take
 *	it out (its queue pairs are gone)
 *
 * Context: rmem_devs_lock held.
 */
void rmem_dev_slot_end(struct rmem_dev *dev, bool publish)
{
	unsigned int n = dev->nr_sess;

	mutex_lock(&dev->ib_lock);
	if (publish) {
		/* pairs with rmem_dev_nr_sess(): the I/O path may pick it */
		smp_store_release(&dev->nr_sess, n + 1);
	} else {
		if (dev->ibdev)
			rmem_sess_unmap(dev->sessions[n], dev->ibdev);
		dev->sessions[n] = NULL;
	}
	dev->adding = false;
	mutex_unlock(&dev->ib_lock);
}

/*
 * Route resolved, no RDMA device in use: take @id's device; limits, the
 * queues' I/O part, PD, DMA.
 */
static int rmem_dev_setup_ib(struct rmem_dev *dev, struct rdma_cm_id *id)
{
	struct ib_device *ibdev = id->device;
	unsigned int i;
	int ret;

	/*
	 * RDMA READ into memory registered for local access only (the
	 * local DMA lkey, the data path's) is invalid on iWARP.
	 */
	if (rdma_protocol_iwarp(ibdev, id->port_num))
		return -EOPNOTSUPP;
	if (!rmem_client_ibdev_usable(ibdev))
		return -ENODEV;
	ret = rmem_dev_ib_limits(dev, ibdev);
	if (!ret)
		ret = rmem_dev_alloc_queue_io(dev, ibdev);
	if (ret)
		return ret;
	/* rdma_cm ids alone do not keep the device: PD, CQs, DMA do */
	if (!ib_device_try_get(ibdev))
		return -ENODEV;
	dev->ibdev = ibdev;
	dev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(dev->pd)) {
		ret = PTR_ERR(dev->pd);
		dev->pd = NULL;
		goto out_release;
	}
	ret = rmem_dma_map(ibdev, dev->zero, RMEM_ZERO_BUF, DMA_TO_DEVICE,
			   &dev->zero_dma);
	if (ret)
		goto out_release;
	for (i = 0; i < rmem_dev_nr_slots(dev); i++) {
		ret = rmem_sess_map(dev->sessions[i], ibdev);
		if (ret)
			goto out_release;
	}
	return 0;

out_release:
	__rmem_dev_release_ib(dev);
	return ret;
}

/* The CQ and QP of @queue for the device's current queue depth. */
static int rmem_queue_create_qp_cq(struct rmem_queue *queue,
				   struct ib_device *ibdev)
{
	struct rmem_dev *dev = queue->dev;
	struct ib_qp_init_attr attr = {};
	unsigned int nwr = rmem_blk_send_wrs(dev);
	int ret;

	/* room for the drain work requests of ib_drain_qp() */
	queue->cq = ib_alloc_cq(ibdev, queue, nwr + 4,
				queue->index % ibdev->num_comp_vectors,
				queue->poll ? IB_POLL_DIRECT : IB_POLL_SOFTIRQ);
	if (IS_ERR(queue->cq)) {
		ret = PTR_ERR(queue->cq);
		queue->cq = NULL;
		return ret;
	}
	attr.event_handler = NULL;
	attr.send_cq = queue->cq;
	attr.recv_cq = queue->cq;
	attr.qp_type = IB_QPT_RC;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.cap.max_send_wr = nwr + 1;
	attr.cap.max_recv_wr = 2;
	attr.cap.max_send_sge = dev->max_sge;
	attr.cap.max_recv_sge = 1;
	ret = rdma_create_qp(queue->cm_id, dev->pd, &attr);
	if (ret) {
		ib_free_cq(queue->cq);
		queue->cq = NULL;
	}
	return ret;
}

static int rmem_queue_create_qp(struct rmem_queue *queue)
{
	struct rmem_dev *dev = queue->dev;
	struct ib_device *ibdev = queue->cm_id->device;
	unsigned int qd;
	int ret;

	/* the sessions of a device share its RDMA device: one sets it up */
	mutex_lock(&dev->ib_lock);
	if (!dev->ibdev)
		ret = rmem_dev_setup_ib(dev, queue->cm_id);
	else if (dev->ibdev != ibdev)
		ret = -EXDEV;
	else
		/* being removed: not until every session let go of it */
		ret = rmem_client_ibdev_usable(ibdev) ? 0 : -ENODEV;
	mutex_unlock(&dev->ib_lock);
	if (ret)
		return ret;
	queue->poll = queue->index >= dev->nr_queues - dev->nr_poll;
	/*
	 * max_qp_wr is not a promise for every shape of work request (mlx5
	 * counts 64-byte blocks, and a many-SGE WQE takes several): on the
	 * first queue pair of an attach, halve the depth until the device
	 * takes it.  Later queue pairs and reconnects keep that depth: the
	 * tag set is sized by it.
	 */
	for (;;) {
		ret = rmem_queue_create_qp_cq(queue, ibdev);
		qd = dev->cfg.queue_depth;
		if (!ret || queue->index || dev->registered || qd <= 16 ||
		    (ret != -ENOMEM && ret != -EINVAL))
			break;
		dev->cfg.queue_depth = qd / 2;
		pr_info("%s: the RDMA device refused a queue pair for queue depth %u (%d); trying %u\n",
			dev->name, qd, ret, dev->cfg.queue_depth);
	}
	if (!ret && queue->poll)
		rcu_assign_pointer(queue->poll_cq, queue->cq);
	return ret;
}

static int rmem_queue_post_ready_recv(struct rmem_queue *queue)
{
	struct rmem_sess *sess = queue->sess;
	struct rmem_dev *dev = queue->dev;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;

	sge.addr = sess->ready_dma;
	sge.length = sizeof(*sess->ready);
	sge.lkey = dev->pd->local_dma_lkey;
	/*
	 * Reposted on every reconnect, after the CPU read the last one:
	 * cleared, so a short READY cannot pass with the last one's fields.
	 */
	memset(sess->ready, 0, sizeof(*sess->ready));
	ib_dma_sync_single_for_device(dev->ibdev, sess->ready_dma,
				      sizeof(*sess->ready), DMA_FROM_DEVICE);
	wr.wr_cqe = &sess->ctl_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ib_post_recv(queue->cm_id->qp, &wr, NULL);
}

static int rmem_queue_connect_locked(struct rmem_queue *queue)
{
	struct rmem_sess *sess = queue->sess;
	struct rmem_dev *dev = queue->dev;
	const struct ib_device_attr *a = &queue->cm_id->device->attrs;
	struct rmem_wire_connect req = {
		.magic = cpu_to_le32(RMEM_WIRE_MAGIC),
		.version = cpu_to_le16(sess->wire_version),
		.qp_index = cpu_to_le16(queue->index),
	};
	struct rdma_conn_param p = {};
	int ret;

	if (queue->leave) {
		/* no queue pair: the server answers with a reject */
		req.op = RMEM_WIRE_LEAVE;
		ret = rmem_sess_sign(sess, &req, 0);
		if (ret)
			return ret;
		p.private_data = &req;
		p.private_data_len = sizeof(req);
		return rdma_connect_locked(queue->cm_id, &p);
	}
	/* the first queue pair fixes nr_queues from the device's limits */
	ret = rmem_queue_create_qp(queue);
	if (ret)
		return ret;
	req.nr_qps = cpu_to_le16(dev->nr_queues);
	if (queue->index == 0 && sess->has_session) {
		req.op = RMEM_WIRE_RECONNECT;
		ret = rmem_sess_sign(sess, &req, queue->cm_id->qp->qp_num);
		if (ret)
			return ret;
		sess->reconnect_counter = le64_to_cpu(req.ctl.counter);
		ret = rmem_queue_post_ready_recv(queue);
		if (ret)
			return ret;
	} else if (queue->index == 0) {
		req.op = RMEM_WIRE_NEW;
		get_random_bytes(sess->nonce, sizeof(sess->nonce));
		memcpy(req.new.nonce, sess->nonce, sizeof(req.new.nonce));
		sess->got_challenge = false;
		ret = rmem_queue_post_ready_recv(queue);
		if (ret)
			return ret;
	} else {
		req.op = RMEM_WIRE_JOIN;
		ret = rmem_sess_sign(sess, &req, queue->cm_id->qp->qp_num);
		if (ret)
			return ret;
	}
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	p.initiator_depth = min_t(u32, a->max_qp_init_rd_atom,
				  dev->cfg.read_depth);
	p.responder_resources = 0;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return rdma_connect_locked(queue->cm_id, &p);
}

/*
 * Nothing listens at the peer's address and port: the peer's connection
 * manager answers for the service (IB and RoCE), or the peer's TCP stack
 * refuses (iWARP).  An rmem server keeps its listener for as long as it
 * holds any session, so this means every session it had is gone.
 */
static bool rmem_no_listener(struct rdma_cm_id *id, int status)
{
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return status == -ECONNREFUSED;
	return status == IB_CM_REJ_INVALID_SERVICE_ID;
}

static void rmem_queue_rejected(struct rmem_queue *queue,
				struct rdma_cm_event *ev)
{
	const struct rmem_wire_reject *rej;
	enum rmem_cm_why why;
	u16 version;
	u8 len = 0;
	int err;

	rej = rdma_consumer_reject_data(queue->cm_id, ev, &len);
	if (rmem_no_listener(queue->cm_id, ev->status)) {
		rmem_queue_cm_fail(queue, -ECONNREFUSED, RMEM_CM_NO_LISTENER);
		return;
	}
	if (!rej || len < sizeof(*rej) ||
	    le32_to_cpu(rej->magic) != RMEM_WIRE_MAGIC) {
		/* the peer's connection manager, not an rmem server: retry */
		rmem_queue_cm_fail(queue, -ECONNRESET, RMEM_CM_PEER_CM);
		return;
	}
	version = le16_to_cpu(rej->version);
	/*
	 * An older server refuses our first NEW with the newest version it
	 * speaks: the attach asks again in it if we speak it too.
	 */
	if (queue->index == 0 && !queue->sess->has_session &&
	    le16_to_cpu(rej->status) == RMEM_WIRE_EVERSION &&
	    version >= RMEM_WIRE_VERSION_MIN &&
	    version < queue->sess->wire_version)
		queue->sess->version_refused = version;
	err = rmem_wire_status_err(version != queue->sess->wire_version ?
				   RMEM_WIRE_EVERSION :
				   le16_to_cpu(rej->status), &why);
	rmem_queue_cm_fail(queue, err, why);
}

/* Keep the source address of queue pair 0's connection, without its port. */
static void rmem_sess_keep_src(struct rmem_sess *sess, struct rdma_cm_id *id)
{
	struct sockaddr_storage *src = &sess->src;

	memcpy(src, &id->route.addr.src_addr, sizeof(*src));
	if (src->ss_family == AF_INET)
		((struct sockaddr_in *)src)->sin_port = 0;
	else if (src->ss_family == AF_INET6)
		((struct sockaddr_in6 *)src)->sin6_port = 0;
	else
		src->ss_family = AF_UNSPEC;
}

static int __rmem_client_cm_handler(struct rdma_cm_id *id,
				    struct rdma_cm_event *ev)
{
	struct rmem_queue *queue = id->context;
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rmem_set_ack_timeout(id);
		if (!ret)
			ret = rdma_resolve_route(id, rmem_connect_timeout_ms);
		if (ret)
			rmem_queue_cm_fail(queue, ret, RMEM_CM_ROUTE_RESOLUTION);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		/* a connect that timed out may be torn down already */
		ret = queue->closing ? -ECANCELED :
		      rmem_queue_connect_locked(queue);
		if (ret)
			rmem_queue_cm_fail(queue, ret,
					   ret == -EOPNOTSUPP ? RMEM_CM_IWARP :
					   ret == -EXDEV ? RMEM_CM_DEV_CHANGED :
					   ret == -ENODEV ? RMEM_CM_DEV_REMOVED :
					   ret == -EMEDIUMTYPE ? RMEM_CM_DEV_UNFIT :
					   RMEM_CM_QP_SETUP);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		/* late, on a queue pair being torn down: not connected */
		if (queue->closing)
			break;
		/*
		 * a server that grants no RDMA READ (remote input: responder
		 * resources 0) left this queue pair unable to read: refuse it
		 * now rather than by timeouts on every read
		 */
		if (!queue->leave && !ev->param.conn.initiator_depth) {
			rmem_queue_cm_fail(queue, -EREMOTEIO, RMEM_CM_NO_READS);
			break;
		}
		if (!queue->index && !queue->leave && !queue->sess->has_session)
			rmem_queue_challenge(queue, ev);
		if (!queue->index && !queue->leave) {
			WRITE_ONCE(queue->sess->read_depth,
				   ev->param.conn.initiator_depth);
			rmem_sess_keep_src(queue->sess, id);
		}
		WRITE_ONCE(queue->connected, true);
		rmem_queue_cm_fail(queue, 0, RMEM_CM_OK);
		break;
	case RDMA_CM_EVENT_REJECTED:
		/*
		 * after ESTABLISHED: the peer's CM rejected after our RTU
		 * went (the server ended the connection first): it is gone
		 */
		if (READ_ONCE(queue->connected)) {
			WRITE_ONCE(queue->connected, false);
			rmem_sess_fail(queue->sess);
			break;
		}
		rmem_queue_rejected(queue, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		rmem_queue_cm_fail(queue, -EHOSTUNREACH, RMEM_CM_ADDR);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		rmem_queue_cm_fail(queue, -ENETUNREACH, RMEM_CM_ROUTE);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rmem_queue_cm_fail(queue, -EHOSTUNREACH, RMEM_CM_UNREACHABLE);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * A queue pair of an attach still setting up its session,
		 * which the removal callback cannot see (the device is listed
		 * only once registered): into the error state, connected or
		 * not (a peer's disconnect leaves it as it was), so that the
		 * setup's waits for READY and the chunk table end with a
		 * flush now, not at their timeouts, and the attach lets go
		 * of this id.
		 */
		if (id->qp &&
		    READ_ONCE(queue->sess->state) == RMEM_DEV_STATE_CONNECTING)
			rdma_disconnect(id);
		/*
		 * rdma_cm waits until this id is destroyed.  rmem's own
		 * removal callback came first and let go of the device; an id
		 * bound to it since (address resolution) belongs to a connect
		 * under way, which ends now and destroys it.
		 */
		if (!READ_ONCE(queue->connected)) {
			rmem_queue_cm_fail(queue, -ENODEV, RMEM_CM_DEV_REMOVED);
			break;
		}
		fallthrough;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (READ_ONCE(queue->connected)) {
			WRITE_ONCE(queue->connected, false);
			rmem_sess_fail(queue->sess);
		}
		break;
	default:
		break;
	}
	return 0;
}

/*
 * Every event of our cm_ids: QP, CQ and MR creation, connect requests.  It
 * runs on rdma_cm's workqueue, where a GFP_KERNEL allocation may reclaim
 * by swapping out; with swap on this very device, which holds its I/O
 * while it reconnects, that would wait for ever (seen: a reconnect under
 * memory pressure blocked on the handler's mutex).  So no I/O from here,
 * and while the device reconnects, the same reserve as the reconnect work
 * (see rmem_sess_reconnect()).
 */
static int rmem_client_cm_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct rmem_queue *queue = id->context;
	bool reserve = READ_ONCE(queue->sess->state) ==
		       RMEM_DEV_STATE_RECONNECTING;
	unsigned int noio = memalloc_noio_save();
	unsigned int noreclaim = reserve ? memalloc_noreclaim_save() : 0;
	int ret = __rmem_client_cm_handler(id, ev);

	if (reserve)
		memalloc_noreclaim_restore(noreclaim);
	memalloc_noio_restore(noio);
	return ret;
}

/**
 * rmem_reject_attr() - which request attribute a server's refusal is about
 * @err: errno of the refusal
 *
 * Return: an RMEM_A_DEV_* attribute, or 0.
 */
int rmem_reject_attr(int err)
{
	switch (err) {
	case -ENOSPC:
	case -EDQUOT:
		return RMEM_A_DEV_SIZE;
	case -EBUSY:
	case -EINVAL:
	case -EPERM:
		return RMEM_A_DEV_VOLUME;
	case -EKEYREJECTED:
	case -ENOKEY:
		return RMEM_A_DEV_KEY;
	case -EUSERS:
		return RMEM_A_DEV_HOST_ID;
	default:
		return 0;
	}
}

/**
 * rmem_queue_connect() - connect one queue pair (or send LEAVE)
 * @queue: the queue; its index picks NEW/RECONNECT (0) or JOIN
 * @extack: error reporting, may be NULL
 *
 * Return: 0 once established, or a negative errno with a message.  The
 * rdma_cm id stays in @queue either way: rmem_sess_destroy_queues() ends it.
 */
int rmem_queue_connect(struct rmem_queue *queue,
		       struct netlink_ext_ack *extack)
{
	struct rmem_sess *sess = queue->sess;
	struct rmem_dev *dev = queue->dev;
	struct rdma_cm_id *id;
	int ret;

	init_completion(&queue->cm_done);
	WRITE_ONCE(queue->connected, false);
	queue->cm_error = -ETIMEDOUT;
	queue->cm_why = RMEM_CM_TIMEOUT;
	id = rdma_create_id(&init_net, rmem_client_cm_handler, queue,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		NL_SET_ERR_MSG(extack, "cannot create an rdma_cm id");
		return PTR_ERR(id);
	}
	queue->cm_id = id;
	/* LEAVE goes from the address the session last connected from */
	ret = rdma_resolve_addr(id, queue->leave && sess->src.ss_family ?
				(struct sockaddr *)&sess->src : NULL,
				(struct sockaddr *)&sess->peer,
				rmem_connect_timeout_ms);
	/*
	 * A route lookup that fails at once (a blackhole route: -EINVAL, a
	 * prohibit route: -EACCES) is this host's network, which may be
	 * back soon: not a refusal by the server, which a reconnect would
	 * take for good.
	 */
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot resolve the peer address");
		return ret == -ENOMEM ? ret : -EHOSTUNREACH;
	}
	/*
	 * Address, route and connect, each bounded by connect_timeout_ms.  A
	 * reconnect waits less: a connect request lost while the link was
	 * down would be resent only after rdma_cm's response timeout
	 * (about 4 s); a new attempt sends a new one sooner.
	 */
	if (!wait_for_completion_timeout(&queue->cm_done,
					 msecs_to_jiffies((dev->registered ? 2 : 3) *
							  rmem_connect_timeout_ms)))
		queue->cm_error = -ETIMEDOUT;
	if (queue->cm_error)
		rmem_cm_why_msg(extack, queue->cm_why);
	return queue->cm_error;
}

/**
 * rmem_sess_disconnect() - disconnect every queue pair of a session
 * @sess: the session
 *
 * Outstanding work requests are flushed.
 */
void rmem_sess_disconnect(struct rmem_sess *sess)
{
	unsigned int i;

	if (!sess->queues)
		return;
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		struct rmem_queue *queue = &sess->queues[i];

		if (!queue->cm_id)
			continue;
		WRITE_ONCE(queue->connected, false);
		rdma_disconnect(queue->cm_id);
	}
}

/**
 * rmem_sess_destroy_queues() - tear every queue pair of a session down
 * @sess: the session
 *
 * Disconnects, drains (flushed requests complete with an error status),
 * destroys QPs, CQs and rdma_cm ids.  The PD and DMA mappings stay.
 */
void rmem_sess_destroy_queues(struct rmem_sess *sess)
{
	unsigned int i;
	bool polled = false;

	if (!sess->queues)
		return;
	mutex_lock(&sess->qlock);
	/*
	 * First no handler may create a QP (or publish a polled CQ) any
	 * more: whether one exists is final.  Then disconnect, retire the
	 * polled CQs from rmem_poll() and the timeout handler, which run
	 * unsynchronised, and only then destroy.
	 */
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		struct rmem_queue *queue = &sess->queues[i];

		if (!queue->cm_id)
			continue;
		rdma_lock_handler(queue->cm_id);
		queue->closing = true;
		rdma_unlock_handler(queue->cm_id);
	}
	rmem_sess_disconnect(sess);
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		if (rcu_access_pointer(sess->queues[i].poll_cq)) {
			RCU_INIT_POINTER(sess->queues[i].poll_cq, NULL);
			polled = true;
		}
	}
	if (polled)
		synchronize_rcu();
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		struct rmem_queue *queue = &sess->queues[i];

		if (!queue->cm_id)
			continue;
		if (queue->cm_id->qp) {
			ib_drain_qp(queue->cm_id->qp);
			rmem_blk_drained(queue);
			rdma_destroy_qp(queue->cm_id);
		}
		/*
		 * the CQ before the id: rmem_dev_drop_removed_ib() lets go
		 * of the PD once no slot has an id
		 */
		if (queue->cq)
			ib_free_cq(queue->cq);
		queue->cq = NULL;
		rdma_destroy_id(queue->cm_id);
		WRITE_ONCE(queue->cm_id, NULL);
	}
	/* drained: no completion of an earlier control message is left */
	WRITE_ONCE(sess->ext_fenced, false);
	mutex_unlock(&sess->qlock);
}

/**
 * rmem_sess_leave() - tell the server the session is over
 * @sess: the session, detaching
 *
 * RMEM_WIRE_LEAVE has the server free the memory now instead of holding
 * it for a reconnect.  Best effort: a server that does not answer releases
 * it when the hold time is over.  Nothing to tell before READY (no
 * session), or with no loss timeout (the server holds nothing).
 */
void rmem_sess_leave(struct rmem_sess *sess)
{
	struct rmem_queue q = { .dev = sess->dev, .sess = sess, .leave = true };

	if (!sess->has_session || !sess->dev->cfg.loss_timeout_ms)
		return;
	rmem_queue_connect(&q, NULL);
	if (q.cm_id)
		rdma_destroy_id(q.cm_id);
}
