// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: connecting to a server and the life of /dev/rmemN.
 *
 * DEV_ADD connects queue pair 0 (RMEM_WIRE_NEW), waits for the server's
 * READY message, reads the chunk table with RDMA READ, connects the other
 * queue pairs (RMEM_WIRE_JOIN) and only then creates the disk.  Each step
 * either succeeds or fails the whole attach with a message saying why.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/cpumask.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "client.h"

static LIST_HEAD(rmem_devs);
static DEFINE_MUTEX(rmem_devs_lock);
static DEFINE_IDA(rmem_ida);

#define RMEM_READY_TIMEOUT	(60 * HZ)

static void rmem_dev_set_state(struct rmem_dev *dev, enum rmem_dev_state s)
{
	if (xchg(&dev->state, s) != s)
		rmem_nl_notify_dev(dev);
}

static void rmem_dev_fail_work(struct work_struct *work)
{
	struct rmem_dev *dev = container_of(work, struct rmem_dev, fail_work);
	unsigned int i;

	/* only from live: never undo a dev del's "deleting" */
	if (cmpxchg(&dev->state, RMEM_DEV_STATE_LIVE, RMEM_DEV_STATE_DEAD) !=
	    RMEM_DEV_STATE_LIVE)
		return;
	/* fail outstanding I/O first; the announcement allocates */
	for (i = 0; i < dev->nr_queues; i++)
		if (dev->queues[i].cm_id)
			rdma_disconnect(dev->queues[i].cm_id);
	pr_err("%s: lost the connection to %pISpc; the device is dead, I/O fails\n",
	       dev->name, &dev->cfg.peer);
	rmem_nl_notify_dev(dev);
}

/**
 * rmem_dev_fail() - the connection broke: the device goes dead
 * @dev: the device
 *
 * Context: any; the work runs on rmem_wq.
 */
void rmem_dev_fail(struct rmem_dev *dev)
{
	if (READ_ONCE(dev->state) == RMEM_DEV_STATE_LIVE)
		queue_work(rmem_wq, &dev->fail_work);
}

static void rmem_queue_cm_fail(struct rmem_queue *queue, int err,
			       const char *msg)
{
	queue->cm_error = err;
	queue->cm_msg = msg;
	complete(&queue->cm_done);
}

static void rmem_ctl_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_dev *dev = container_of(wc->wr_cqe, struct rmem_dev,
					    ctl_cqe);

	dev->ctl_status = wc->status;
	complete(&dev->ctl_done);
}

/* First route resolved: the RDMA device is known; fix limits and the PD. */
static int rmem_dev_setup_ib(struct rmem_dev *dev, struct ib_device *ibdev)
{
	const struct ib_device_attr *a = &ibdev->attrs;
	unsigned int qd, max_qd, max_qps;

	/* rdma_cm ids alone do not keep the device: PD, CQs, DMA do */
	if (!ib_device_try_get(ibdev))
		return -ENODEV;
	dev->ibdev = ibdev;
	dev->max_sge = min3(a->max_send_sge, a->max_sge_rd, RMEM_MAX_SGE);
	if (dev->max_sge < 1)
		return -EOPNOTSUPP;
	/* send queue: rmem_blk_send_wrs() + 1 (drain); CQ: that + 3 */
	max_qd = min((a->max_qp_wr - 2) / (RMEM_WRS_PER_RQ + 1),
		     (a->max_cqe - 5) / (RMEM_WRS_PER_RQ + 1));
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

	dev->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(dev->pd)) {
		int ret = PTR_ERR(dev->pd);

		dev->pd = NULL;
		return ret;
	}
	dev->ready_dma = ib_dma_map_single(ibdev, dev->ready, sizeof(*dev->ready),
					   DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dev->ready_dma)) {
		dev->ready_dma = 0;
		return -EIO;
	}
	dev->zero_dma = ib_dma_map_single(ibdev, dev->zero, RMEM_ZERO_BUF,
					  DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, dev->zero_dma)) {
		dev->zero_dma = 0;
		return -EIO;
	}
	return 0;
}

static int rmem_queue_create_qp(struct rmem_queue *queue)
{
	struct rmem_dev *dev = queue->dev;
	struct ib_device *ibdev = queue->cm_id->device;
	struct ib_qp_init_attr attr = {};
	unsigned int nwr;
	int ret;

	if (!dev->ibdev) {
		ret = rmem_dev_setup_ib(dev, ibdev);
		if (ret)
			return ret;
	} else if (dev->ibdev != ibdev) {
		return -EXDEV;
	}
	/* only now: the first queue pair capped the queue depth */
	nwr = rmem_blk_send_wrs(dev->cfg.queue_depth);
	/* room for the drain work requests of ib_drain_qp() */
	queue->poll = queue->index >= dev->nr_queues - dev->nr_poll;
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
	return rdma_create_qp(queue->cm_id, dev->pd, &attr);
}

static int rmem_queue_post_ready_recv(struct rmem_queue *queue)
{
	struct rmem_dev *dev = queue->dev;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;

	sge.addr = dev->ready_dma;
	sge.length = sizeof(*dev->ready);
	sge.lkey = dev->pd->local_dma_lkey;
	wr.wr_cqe = &dev->ctl_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ib_post_recv(queue->cm_id->qp, &wr, NULL);
}

static int rmem_queue_connect_locked(struct rmem_queue *queue)
{
	struct rmem_dev *dev = queue->dev;
	const struct ib_device_attr *a = &queue->cm_id->device->attrs;
	struct rmem_wire_connect req = {
		.magic = cpu_to_le32(RMEM_WIRE_MAGIC),
		.version = cpu_to_le16(RMEM_WIRE_VERSION),
		.qp_index = cpu_to_le16(queue->index),
	};
	struct rdma_conn_param p = {};
	int ret;

	/* the first queue pair fixes nr_queues from the device's limits */
	ret = rmem_queue_create_qp(queue);
	if (ret)
		return ret;
	req.nr_qps = cpu_to_le16(dev->nr_queues);
	if (queue->index == 0) {
		req.op = RMEM_WIRE_NEW;
		req.new.size = cpu_to_le64(dev->cfg.size);
		strscpy(req.new.volume, dev->cfg.volume, sizeof(req.new.volume));
		ret = rmem_queue_post_ready_recv(queue);
		if (ret)
			return ret;
	} else {
		req.op = RMEM_WIRE_JOIN;
		memcpy(req.join.token, dev->token, sizeof(req.join.token));
	}
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	p.initiator_depth = min_t(u32, a->max_qp_init_rd_atom, 16);
	p.responder_resources = 0;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return rdma_connect_locked(queue->cm_id, &p);
}

static void rmem_queue_rejected(struct rmem_queue *queue,
				struct rdma_cm_event *ev)
{
	static const struct {
		int err;
		const char *msg;
	} why[] = {
		[RMEM_WIRE_EVERSION] = { -EPROTONOSUPPORT,
			"server speaks another rmem protocol version" },
		[RMEM_WIRE_EINVAL] = { -EINVAL,
			"server refused the request as malformed" },
		[RMEM_WIRE_EACCES] = { -EACCES,
			"server does not allow this client's address" },
		[RMEM_WIRE_ENOSPC] = { -ENOSPC,
			"not enough free memory in the server's pool" },
		[RMEM_WIRE_EBUSY] = { -EBUSY,
			"volume is attached by another client" },
		[RMEM_WIRE_ESIZE] = { -EINVAL,
			"volume exists on the server with a different size" },
		[RMEM_WIRE_ENOSESSION] = { -ECONNRESET,
			"server does not know the session any more" },
		[RMEM_WIRE_ENOMEM] = { -ENOMEM,
			"server is out of memory or resources" },
		[RMEM_WIRE_EREG] = { -EIO,
			"server could not register memory" },
	};
	const struct rmem_wire_reject *rej;
	u8 len = 0;
	unsigned int st;

	rej = rdma_consumer_reject_data(queue->cm_id, ev, &len);
	if (!rej || len < sizeof(*rej) ||
	    le32_to_cpu(rej->magic) != RMEM_WIRE_MAGIC) {
		rmem_queue_cm_fail(queue, -ECONNREFUSED,
				   "connection refused: no rmem server at that address and port");
		return;
	}
	st = le16_to_cpu(rej->status);
	if (le16_to_cpu(rej->version) != RMEM_WIRE_VERSION)
		st = RMEM_WIRE_EVERSION;
	if (st >= ARRAY_SIZE(why) || !why[st].msg)
		rmem_queue_cm_fail(queue, -ECONNREFUSED,
				   "server refused the connection");
	else
		rmem_queue_cm_fail(queue, why[st].err, why[st].msg);
}

static int rmem_client_cm_handler(struct rdma_cm_id *id,
				  struct rdma_cm_event *ev)
{
	struct rmem_queue *queue = id->context;
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = rmem_ack_timeout ? rdma_set_ack_timeout(id, rmem_ack_timeout) : 0;
		if (!ret)
			ret = rdma_resolve_route(id, rmem_connect_timeout_ms);
		if (ret)
			rmem_queue_cm_fail(queue, ret, "route resolution failed");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		/* a connect that timed out may be torn down already */
		ret = queue->closing ? -ECANCELED :
		      rmem_queue_connect_locked(queue);
		if (ret)
			rmem_queue_cm_fail(queue, ret,
					   "cannot set up the queue pair on the RDMA device");
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		WRITE_ONCE(queue->connected, true);
		rmem_queue_cm_fail(queue, 0, NULL);
		break;
	case RDMA_CM_EVENT_REJECTED:
		rmem_queue_rejected(queue, ev);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		rmem_queue_cm_fail(queue, -EHOSTUNREACH,
				   "peer address unreachable (no RDMA route or no ARP answer)");
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		rmem_queue_cm_fail(queue, -ENETUNREACH, "no route to the peer");
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rmem_queue_cm_fail(queue, -EHOSTUNREACH,
				   "no answer from the peer to the connect request");
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		if (READ_ONCE(queue->connected)) {
			WRITE_ONCE(queue->connected, false);
			rmem_dev_fail(queue->dev);
		}
		break;
	default:
		break;
	}
	return 0;
}

/* Which request attribute a refusal of the server is about. */
static int rmem_reject_attr(int err)
{
	switch (err) {
	case -ENOSPC:
		return RMEM_A_DEV_SIZE;
	case -EBUSY:
	case -EINVAL:
		return RMEM_A_DEV_VOLUME;
	default:
		return 0;
	}
}

static int rmem_queue_connect(struct rmem_queue *queue,
			      struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev = queue->dev;
	struct rdma_cm_id *id;
	int ret;

	init_completion(&queue->cm_done);
	queue->cm_error = -ETIMEDOUT;
	queue->cm_msg = "timed out connecting to the peer";
	id = rdma_create_id(&init_net, rmem_client_cm_handler, queue,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		NL_SET_ERR_MSG(extack, "cannot create an rdma_cm id");
		return PTR_ERR(id);
	}
	queue->cm_id = id;
	ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&dev->cfg.peer,
				rmem_connect_timeout_ms);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot resolve the peer address");
		return ret;
	}
	if (!wait_for_completion_timeout(&queue->cm_done,
					 msecs_to_jiffies(3 * rmem_connect_timeout_ms)))
		queue->cm_error = -ETIMEDOUT;
	if (queue->cm_error)
		rmem_set_err_msg(extack, queue->cm_msg);
	return queue->cm_error;
}

/* Wait for READY on queue pair 0 and check it. */
static int rmem_dev_ready(struct rmem_dev *dev, struct netlink_ext_ack *extack)
{
	const struct rmem_wire_ready *r = dev->ready;
	u64 chunk_size, size;
	u32 nr;

	if (!wait_for_completion_timeout(&dev->ctl_done, RMEM_READY_TIMEOUT)) {
		NL_SET_ERR_MSG(extack, "server did not complete the session setup in time");
		return -ETIMEDOUT;
	}
	if (dev->ctl_status != IB_WC_SUCCESS) {
		NL_SET_ERR_MSG(extack, "connection failed during session setup");
		return -ECONNRESET;
	}
	ib_dma_sync_single_for_cpu(dev->ibdev, dev->ready_dma, sizeof(*r),
				   DMA_FROM_DEVICE);
	if (le32_to_cpu(r->magic) != RMEM_WIRE_MAGIC ||
	    le16_to_cpu(r->version) != RMEM_WIRE_VERSION) {
		NL_SET_ERR_MSG(extack,
			       "server sent a session description in another protocol version");
		return -EPROTO;
	}
	if (le16_to_cpu(r->status) == RMEM_WIRE_EREG) {
		NL_SET_ERR_MSG(extack, "server could not register memory");
		return -EIO;
	}
	if (le16_to_cpu(r->status) != RMEM_WIRE_OK) {
		NL_SET_ERR_MSG(extack, "server failed the session setup");
		return -EIO;
	}
	chunk_size = le64_to_cpu(r->chunk_size);
	size = le64_to_cpu(r->size);
	nr = le32_to_cpu(r->nr_chunks);
	if (!is_power_of_2(chunk_size) || chunk_size < PAGE_SIZE ||
	    size != dev->cfg.size || !nr ||
	    (u64)nr * chunk_size < size ||
	    (u64)nr * chunk_size - size >= chunk_size ||
	    le32_to_cpu(r->table_len) != nr * sizeof(struct rmem_wire_chunk)) {
		NL_SET_ERR_MSG(extack, "server sent an inconsistent session description");
		return -EPROTO;
	}
	memcpy(dev->token, r->token, sizeof(dev->token));
	memcpy(dev->server_id, r->pool_id, sizeof(dev->server_id));
	dev->generation = le64_to_cpu(r->generation);
	dev->chunk_size = chunk_size;
	dev->chunk_shift = ilog2(chunk_size);
	dev->nr_chunks = nr;
	return 0;
}

/* Read the chunk table, a page at a time, with RDMA READ on queue pair 0. */
static int rmem_dev_read_table(struct rmem_dev *dev,
			       struct netlink_ext_ack *extack)
{
	const struct rmem_wire_ready *r = dev->ready;
	struct ib_qp *qp = dev->queues[0].cm_id->qp;
	u64 taddr = le64_to_cpu(r->table_addr);
	u32 trkey = le32_to_cpu(r->table_rkey);
	u32 tlen = le32_to_cpu(r->table_len), off;
	struct rmem_wire_chunk *buf;
	u64 dma;
	int ret = 0;

	dev->chunks = kvcalloc(dev->nr_chunks, sizeof(*dev->chunks), GFP_KERNEL);
	/* freed with the device: a READ may be in flight after a timeout */
	dev->table_buf = (void *)__get_free_page(GFP_KERNEL);
	buf = dev->table_buf;
	if (!dev->chunks || !buf) {
		NL_SET_ERR_MSG(extack, "out of memory reading the chunk table");
		return -ENOMEM;
	}
	dma = ib_dma_map_single(dev->ibdev, buf, PAGE_SIZE, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev->ibdev, dma)) {
		NL_SET_ERR_MSG(extack, "cannot DMA-map the chunk table buffer");
		return -EIO;
	}
	for (off = 0; off < tlen; off += PAGE_SIZE) {
		u32 len = min_t(u32, tlen - off, PAGE_SIZE);
		struct ib_sge sge = {
			.addr = dma, .length = len, .lkey = dev->pd->local_dma_lkey,
		};
		struct ib_rdma_wr wr = {
			.wr.opcode = IB_WR_RDMA_READ,
			.wr.send_flags = IB_SEND_SIGNALED,
			.wr.wr_cqe = &dev->ctl_cqe,
			.wr.sg_list = &sge,
			.wr.num_sge = 1,
			.remote_addr = taddr + off,
			.rkey = trkey,
		};
		unsigned int i, first = off / sizeof(*buf);

		reinit_completion(&dev->ctl_done);
		ret = ib_post_send(qp, &wr.wr, NULL);
		if (ret)
			break;
		if (!wait_for_completion_timeout(&dev->ctl_done,
						 RMEM_READY_TIMEOUT) ||
		    dev->ctl_status != IB_WC_SUCCESS) {
			ret = -EIO;
			break;
		}
		ib_dma_sync_single_for_cpu(dev->ibdev, dma, len,
					   DMA_FROM_DEVICE);
		for (i = 0; i < len / sizeof(*buf); i++) {
			dev->chunks[first + i].addr = le64_to_cpu(buf[i].addr);
			dev->chunks[first + i].rkey = le32_to_cpu(buf[i].rkey);
		}
	}
	if (ret) {
		/* leave the mapping: a READ may still land; rmem_dev_free() drains */
		pr_err("%s: reading the chunk table failed: %d (%s)\n", dev->name,
		       ret, ib_wc_status_msg(dev->ctl_status));
		NL_SET_ERR_MSG(extack, "cannot read the server's chunk table");
		return ret;
	}
	ib_dma_unmap_single(dev->ibdev, dma, PAGE_SIZE, DMA_FROM_DEVICE);
	return 0;
}

/* Tear down every queue pair; outstanding work requests are flushed. */
static void rmem_dev_disconnect(struct rmem_dev *dev)
{
	unsigned int i;

	if (!dev->queues)
		return;
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		struct rmem_queue *queue = &dev->queues[i];

		if (!queue->cm_id)
			continue;
		WRITE_ONCE(queue->connected, false);
		rdma_disconnect(queue->cm_id);
	}
}

static void rmem_dev_destroy_queues(struct rmem_dev *dev)
{
	unsigned int i;

	if (!dev->queues)
		return;
	rmem_dev_disconnect(dev);
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		struct rmem_queue *queue = &dev->queues[i];

		if (!queue->cm_id)
			continue;
		/* after this no handler creates a QP: whether one exists is final */
		rdma_lock_handler(queue->cm_id);
		queue->closing = true;
		rdma_unlock_handler(queue->cm_id);
		if (queue->cm_id->qp) {
			ib_drain_qp(queue->cm_id->qp);
			rdma_destroy_qp(queue->cm_id);
		}
		rdma_destroy_id(queue->cm_id);
		queue->cm_id = NULL;
		if (queue->cq)
			ib_free_cq(queue->cq);
		queue->cq = NULL;
	}
}

static void rmem_dev_free(struct rmem_dev *dev)
{
	cancel_work_sync(&dev->fail_work);
	rmem_dev_destroy_queues(dev);
	rmem_blk_free(dev);
	if (dev->zero_dma)
		ib_dma_unmap_single(dev->ibdev, dev->zero_dma, RMEM_ZERO_BUF,
				    DMA_TO_DEVICE);
	if (dev->ready_dma)
		ib_dma_unmap_single(dev->ibdev, dev->ready_dma,
				    sizeof(*dev->ready), DMA_FROM_DEVICE);
	if (dev->pd)
		ib_dealloc_pd(dev->pd);
	if (dev->ibdev)
		ib_device_put(dev->ibdev);
	kvfree(dev->chunks);
	free_page((unsigned long)dev->table_buf);
	kfree(dev->ready);
	kfree(dev->zero);
	kfree(dev->queues);
	if (dev->index >= 0)
		ida_free(&rmem_ida, dev->index);
	kfree(dev);
}

static struct rmem_dev *rmem_dev_find(const char *name)
{
	struct rmem_dev *dev;

	list_for_each_entry(dev, &rmem_devs, node)
		if (!strcmp(dev->name, name))
			return dev;
	return NULL;
}

static int rmem_dev_pick_index(const char *name, struct netlink_ext_ack *extack)
{
	unsigned int n;
	char end;
	int idx;

	if (!name[0]) {
		idx = ida_alloc_max(&rmem_ida, (MINORMASK + 1) / RMEM_MINORS - 1,
				    GFP_KERNEL);
		if (idx < 0)
			NL_SET_ERR_MSG(extack, "no free device number");
		return idx;
	}
	if (sscanf(name, "rmem%u%c", &n, &end) != 1 ||
	    n >= (MINORMASK + 1) / RMEM_MINORS || strcmp(name, "rmem0") < 0 ||
	    (n && name[4] == '0')) {
		NL_SET_ERR_MSG(extack, "device name must be rmemN");
		return -EINVAL;
	}
	idx = ida_alloc_range(&rmem_ida, n, n, GFP_KERNEL);
	if (idx == -ENOSPC) {
		NL_SET_ERR_MSG(extack, "a device with this name exists");
		return -EEXIST;
	}
	return idx;
}

static struct rmem_dev *rmem_dev_alloc(const struct rmem_dev_cfg *cfg,
				       struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->index = -1;
	dev->cfg = *cfg;
	if (!dev->cfg.queue_depth)
		dev->cfg.queue_depth = rmem_default_queue_depth;
	INIT_WORK(&dev->fail_work, rmem_dev_fail_work);
	init_completion(&dev->ctl_done);
	dev->ctl_cqe.done = rmem_ctl_done;
	dev->state = RMEM_DEV_STATE_CONNECTING;
	dev->queues = kcalloc(RMEM_MAX_DEV_QPS, sizeof(*dev->queues),
			      GFP_KERNEL);
	dev->ready = kzalloc(sizeof(*dev->ready), GFP_KERNEL);
	dev->zero = kzalloc(RMEM_ZERO_BUF, GFP_KERNEL);
	if (!dev->queues || !dev->ready || !dev->zero) {
		rmem_dev_free(dev);
		return ERR_PTR(-ENOMEM);
	}
	dev->index = rmem_dev_pick_index(cfg->name, extack);
	if (dev->index < 0) {
		int ret = dev->index;

		rmem_dev_free(dev);
		return ERR_PTR(ret);
	}
	snprintf(dev->name, sizeof(dev->name), "rmem%d", dev->index);
	return dev;
}

/**
 * rmem_dev_add() - attach remote memory as a new block device
 * @cfg: peer, size, volume, queue pairs, queue depth, name
 * @bad_attr: set to the RMEM_A_DEV_* attribute at fault on error, or 0
 * @extack: error reporting
 * @reply: if not NULL, the new device is described into it
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int rmem_dev_add(const struct rmem_dev_cfg *cfg, int *bad_attr,
		 struct netlink_ext_ack *extack, struct sk_buff *reply)
{
	struct rmem_dev *dev;
	unsigned int i;
	int ret;

	mutex_lock(&rmem_devs_lock);
	*bad_attr = RMEM_A_DEV_NAME;
	dev = rmem_dev_alloc(cfg, extack);
	if (IS_ERR(dev)) {
		ret = PTR_ERR(dev);
		goto out_unlock;
	}
	dev->queues[0].dev = dev;
	ret = rmem_queue_connect(&dev->queues[0], extack);
	*bad_attr = rmem_reject_attr(ret);
	if (ret)
		goto out_free_dev;
	*bad_attr = 0;
	ret = rmem_dev_ready(dev, extack);
	if (ret)
		goto out_free_dev;
	ret = rmem_dev_read_table(dev, extack);
	if (ret)
		goto out_free_dev;
	for (i = 1; i < dev->nr_queues; i++) {
		dev->queues[i].dev = dev;
		dev->queues[i].index = i;
		ret = rmem_queue_connect(&dev->queues[i], extack);
		if (ret)
			goto out_free_dev;
	}
	WRITE_ONCE(dev->state, RMEM_DEV_STATE_LIVE);
	ret = rmem_blk_create(dev);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot create the block device");
		goto out_free_dev;
	}
	list_add_tail(&dev->node, &rmem_devs);
	pr_info("%s: %llu MiB at %pISpc%s%s, %u queue pairs, queue depth %u, %llu KiB chunks\n",
		dev->name, dev->cfg.size >> 20, &dev->cfg.peer,
		dev->cfg.volume[0] ? ", volume " : "", dev->cfg.volume,
		dev->nr_queues, dev->cfg.queue_depth, dev->chunk_size >> 10);
	rmem_nl_notify_dev(dev);
	if (reply)
		ret = rmem_nl_put_dev(reply, dev);
	mutex_unlock(&rmem_devs_lock);
	return ret;

out_free_dev:
	WRITE_ONCE(dev->state, RMEM_DEV_STATE_DEAD);
	rmem_dev_free(dev);
out_unlock:
	mutex_unlock(&rmem_devs_lock);
	return ret;
}

static void rmem_dev_destroy(struct rmem_dev *dev, bool force)
{
	list_del(&dev->node);
	rmem_dev_set_state(dev, RMEM_DEV_STATE_DELETING);
	/* with force, a dead peer must not hold del_gendisk up */
	if (force)
		rmem_dev_disconnect(dev);
	rmem_blk_remove(dev);
	pr_info("%s: detached\n", dev->name);
	rmem_dev_free(dev);
}

/**
 * rmem_dev_del() - detach and remove a device
 * @name: rmemN
 * @force: remove even while open; outstanding I/O fails
 * @extack: error reporting
 *
 * Return: 0, -ENODEV, or -EBUSY if open and not @force.
 */
int rmem_dev_del(const char *name, bool force, struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev;

	mutex_lock(&rmem_devs_lock);
	dev = rmem_dev_find(name);
	if (!dev) {
		mutex_unlock(&rmem_devs_lock);
		NL_SET_ERR_MSG(extack, "no such device");
		return -ENODEV;
	}
	if (!force && disk_openers(dev->disk)) {
		mutex_unlock(&rmem_devs_lock);
		NL_SET_ERR_MSG(extack,
			       "device is in use (mounted or open); use force to remove it anyway");
		return -EBUSY;
	}
	rmem_dev_destroy(dev, force);
	mutex_unlock(&rmem_devs_lock);
	return 0;
}

/**
 * rmem_dev_del_all() - remove every device (module unload)
 */
void rmem_dev_del_all(void)
{
	struct rmem_dev *dev, *tmp;

	mutex_lock(&rmem_devs_lock);
	list_for_each_entry_safe(dev, tmp, &rmem_devs, node)
		rmem_dev_destroy(dev, true);
	mutex_unlock(&rmem_devs_lock);
}

/**
 * rmem_dev_stats() - sum the counters of all queues
 * @dev: the device
 * @st: filled in
 */
void rmem_dev_stats(struct rmem_dev *dev, struct rmem_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < dev->nr_queues; i++) {
		const struct rmem_stats *q = &dev->queues[i].stats;

		st->reads += READ_ONCE(q->reads);
		st->read_bytes += READ_ONCE(q->read_bytes);
		st->writes += READ_ONCE(q->writes);
		st->write_bytes += READ_ONCE(q->write_bytes);
		st->zeroes += READ_ONCE(q->zeroes);
		st->errors += READ_ONCE(q->errors);
	}
	st->errors += atomic64_read(&dev->submit_errors);
}

/**
 * rmem_dev_fill() - dump devices into a netlink message
 * @skb: the dump or reply buffer
 * @m: message header values
 * @name: only this device, or NULL for all
 * @idx: in: devices to skip; out: devices written
 * @extack: error reporting
 *
 * Return: 0 when everything fitted, -EMSGSIZE to continue later, -ENODEV.
 */
int rmem_dev_fill(struct sk_buff *skb, const struct rmem_msg *m,
		  const char *name, int *idx, struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev;
	int i = 0, ret = 0;

	mutex_lock(&rmem_devs_lock);
	if (name && !rmem_dev_find(name)) {
		NL_SET_ERR_MSG(extack, "no such device");
		ret = -ENODEV;
		goto out_unlock;
	}
	list_for_each_entry(dev, &rmem_devs, node) {
		if (name && strcmp(dev->name, name))
			continue;
		if (i++ < *idx)
			continue;
		ret = rmem_nl_put_dev_msg(skb, m, dev);
		if (ret)
			break;
		(*idx)++;
	}
out_unlock:
	mutex_unlock(&rmem_devs_lock);
	return ret;
}

/**
 * rmem_client_init() - set up the client role
 *
 * Return: 0 or a negative errno.
 */
int rmem_client_init(void)
{
	return rmem_blk_init();
}

/**
 * rmem_client_exit() - remove every device and the block major
 */
void rmem_client_exit(void)
{
	rmem_dev_del_all();
	rmem_blk_exit();
}
