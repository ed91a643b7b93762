// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: what the server describes.  READY (checked against
 * what was asked, and on a reconnect against the session we had), the
 * chunk table read with one-sided RDMA READs on queue pair 0 (a thin
 * session's absent entries too), and the status entry the probe reads
 * in wire version 4.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/overflow.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "client.h"

#define RMEM_READY_TIMEOUT	(60 * HZ)
/* Waiting for READY on a reconnect: the server sends it at once. */
#define RMEM_REREADY_TIMEOUT	(10 * HZ)

/*
 * What the probe reads: the server's status entry in version 4 (after the
 * chunk table, under its key), else 8 bytes of the first chunk.  Context:
 * no probe pending.
 */
void rmem_sess_set_probe(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;

	if (sess->wire_version >= 4)
		rmem_probe_set_read(&sess->ka, sess->ka_dma,
				    sizeof(*sess->ka_buf),
				    dev->pd->local_dma_lkey,
				    sess->table_addr + (u64)sess->nr_chunks *
				    sizeof(struct rmem_wire_chunk),
				    sess->table_rkey);
	else if (sess->chunks)
		rmem_probe_set_read(&sess->ka, sess->ka_dma, sizeof(u64),
				    dev->pd->local_dma_lkey,
				    sess->chunks[0].addr, sess->chunks[0].rkey);
}

/**
 * rmem_sess_ready() - wait for READY on queue pair 0 and check it
 * @sess: the session
 * @extack: error reporting, may be NULL
 *
 * READY must be signed with the session key (rmem_sess_ready_auth()); on
 * a reconnect it must describe the very session we had: same handle, pool
 * and generation.
 *
 * Return: 0, -ESTALE for another session, or another negative errno.
 */
int rmem_sess_ready(struct rmem_sess *sess, struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev = sess->dev;
	const struct rmem_wire_ready *r = sess->ready;
	u64 chunk_size, size, total;
	enum rmem_cm_why why;
	u32 nr, tlen;
	int ret;

	if (!wait_for_completion_timeout(&sess->ctl_done, sess->has_session ?
					 RMEM_REREADY_TIMEOUT :
					 RMEM_READY_TIMEOUT)) {
		NL_SET_ERR_MSG(extack, "server did not complete the session setup in time");
		return -ETIMEDOUT;
	}
	if (sess->ctl_status != IB_WC_SUCCESS) {
		NL_SET_ERR_MSG(extack, "connection failed during session setup");
		return -ECONNRESET;
	}
	ib_dma_sync_single_for_cpu(dev->ibdev, sess->ready_dma, sizeof(*r),
				   DMA_FROM_DEVICE);
	if (sess->ctl_len != sizeof(*r) ||
	    le32_to_cpu(r->magic) != RMEM_WIRE_MAGIC ||
	    le16_to_cpu(r->version) != sess->wire_version) {
		NL_SET_ERR_MSG(extack,
			       "server sent a session description in another protocol version");
		return -EPROTO;
	}
	if (le16_to_cpu(r->status) != RMEM_WIRE_OK) {
		/* a refusal of the AUTH message or of the memory asked for */
		ret = rmem_wire_status_err(le16_to_cpu(r->status), &why);
		rmem_cm_why_msg(extack, why);
		return ret;
	}
	ret = rmem_sess_ready_auth(sess, extack);
	if (ret)
		return ret;
	if (!(le32_to_cpu(r->flags) & RMEM_WIRE_READY_THIN) != !dev->cfg.extent) {
		NL_SET_ERR_MSG(extack,
			       "server sent a session description of another kind (thin or not) than asked for");
		return -EPROTO;
	}
	chunk_size = le64_to_cpu(r->chunk_size);
	size = le64_to_cpu(r->size);
	nr = le32_to_cpu(r->nr_chunks);
	tlen = nr * sizeof(struct rmem_wire_chunk);
	if (sess->wire_version >= 4)
		tlen += sizeof(struct rmem_wire_pool);
	/* nr is size / chunk_size rounded up, and small: it sizes allocations */
	if (!is_power_of_2(chunk_size) || chunk_size < PAGE_SIZE ||
	    size != dev->cfg.size || !nr ||
	    nr > (sess->wire_version >= 4 ? RMEM_WIRE_MAX_CHUNKS :
		  RMEM_WIRE_MAX_CHUNKS_V3) ||
	    check_mul_overflow((u64)nr, chunk_size, &total) || total < size ||
	    total - size >= chunk_size || le32_to_cpu(r->table_len) != tlen) {
		NL_SET_ERR_MSG(extack, "server sent an inconsistent session description");
		return -EPROTO;
	}
	if (sess->has_session) {
		if (sess->handle != le64_to_cpu(r->handle) ||
		    memcmp(sess->server_id, r->pool_id, sizeof(sess->server_id)) ||
		    sess->generation != le64_to_cpu(r->generation) ||
		    sess->chunk_size != chunk_size || sess->nr_chunks != nr)
			return -ESTALE;
		return 0;
	}
	sess->handle = le64_to_cpu(r->handle);
	memcpy(sess->server_id, r->pool_id, sizeof(sess->server_id));
	sess->generation = le64_to_cpu(r->generation);
	sess->chunk_size = chunk_size;
	sess->chunk_shift = ilog2(chunk_size);
	sess->nr_chunks = nr;
	sess->table_addr = le64_to_cpu(r->table_addr);
	sess->table_rkey = le32_to_cpu(r->table_rkey);
	return 0;
}

/**
 * rmem_sess_post_table_read() - RDMA READ entries of the chunk table on
 *	queue pair 0
 * @sess: the session, after rmem_sess_ready()
 * @buf: where they land: @len bytes, DMA mapped both ways at @dma
 * @dma: DMA address of @buf
 * @first: the first entry
 * @len: bytes, whole entries, at most a page
 * @cqe: completion of the signalled work request
 *
 * The part, unsignalled, then its last entry again, signalled: the data
 * path's READ tail (rmem_build_read_tail()), so a READ that Soft-RoCE cuts
 * short flushes the tail with an error instead of completing.  @buf is
 * filled with 0xff first: a part that never arrives reads as nonzero
 * reserved fields.
 *
 * Return: what ib_post_send() returned.
 */
int rmem_sess_post_table_read(struct rmem_sess *sess, void *buf, u64 dma,
			      unsigned int first, u32 len, struct ib_cqe *cqe)
{
	struct rmem_dev *dev = sess->dev;
	u32 entry = sizeof(struct rmem_wire_chunk);
	u64 raddr = sess->table_addr + (u64)first * entry;
	struct ib_sge sge[2] = {
		{ .addr = dma, .length = len,
		  .lkey = dev->pd->local_dma_lkey },
		{ .addr = dma + len - entry, .length = entry,
		  .lkey = dev->pd->local_dma_lkey },
	};
	struct ib_rdma_wr wr[2] = {
		{ .wr.opcode = IB_WR_RDMA_READ,
		  .wr.wr_cqe = cqe,
		  .wr.sg_list = &sge[0],
		  .wr.num_sge = 1,
		  .wr.next = &wr[1].wr,
		  .remote_addr = raddr,
		  .rkey = sess->table_rkey },
		{ .wr.opcode = IB_WR_RDMA_READ,
		  .wr.send_flags = IB_SEND_SIGNALED,
		  .wr.wr_cqe = cqe,
		  .wr.sg_list = &sge[1],
		  .wr.num_sge = 1,
		  .remote_addr = raddr + len - entry,
		  .rkey = sess->table_rkey },
	};

	memset(buf, 0xff, len);
	/* the buffer is the device's again for this READ */
	ib_dma_sync_single_for_device(dev->ibdev, dma, len, DMA_BIDIRECTIONAL);
	return ib_post_send(sess->queues[0].cm_id->qp, &wr[0].wr, NULL);
}

/**
 * rmem_sess_read_table() - read the chunk table with RDMA READ on QP 0
 * @sess: the session, after rmem_sess_ready()
 * @extack: error reporting
 *
 * Return: 0 or a negative errno.
 */
int rmem_sess_read_table(struct rmem_sess *sess,
			 struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev = sess->dev;
	/* the chunks' entries only: the probe reads the status entry */
	u32 tlen = sess->nr_chunks * sizeof(struct rmem_wire_chunk), off;
	struct rmem_wire_chunk *buf;
	u64 dma;
	int ret = 0;

	sess->chunks = kvcalloc(sess->nr_chunks, sizeof(*sess->chunks),
				GFP_KERNEL | __GFP_NOWARN);
	if (dev->emap) {
		sess->absent = bitmap_zalloc(sess->nr_chunks, GFP_KERNEL);
		if (!sess->absent) {
			NL_SET_ERR_MSG(extack, "out of memory reading the chunk table");
			return -ENOMEM;
		}
	}
	/* freed with the device: a READ may be in flight after a timeout */
	sess->table_buf = (void *)__get_free_page(GFP_KERNEL);
	buf = sess->table_buf;
	if (!sess->chunks || !buf) {
		NL_SET_ERR_MSG(extack, "out of memory reading the chunk table");
		return -ENOMEM;
	}
	/* both ways: the 0xff fill must reach a bounce buffer too */
	dma = ib_dma_map_single(dev->ibdev, buf, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev->ibdev, dma)) {
		NL_SET_ERR_MSG(extack, "cannot DMA-map the chunk table buffer");
		return -EIO;
	}
	sess->table_dma = dma;
	for (off = 0; off < tlen; off += PAGE_SIZE) {
		u32 len = min_t(u32, tlen - off, PAGE_SIZE);
		unsigned int i, first = off / sizeof(*buf);

		rmem_ctl_arm(sess);
		ret = rmem_sess_post_table_read(sess, buf, dma, first, len,
						&sess->ctl_cqe);
		if (ret)
			break;
		if (!wait_for_completion_timeout(&sess->ctl_done,
						 RMEM_READY_TIMEOUT) ||
		    sess->ctl_status != IB_WC_SUCCESS) {
			ret = -EIO;
			break;
		}
		ib_dma_sync_single_for_cpu(dev->ibdev, dma, len,
					   DMA_BIDIRECTIONAL);
		for (i = 0; i < len / sizeof(*buf); i++) {
			/* only a thin session has chunks not taken */
			if (sess->absent && buf[i].reserved ==
			    cpu_to_le32(RMEM_WIRE_CHUNK_ABSENT)) {
				set_bit(first + i, sess->absent);
				continue;
			}
			if (buf[i].reserved) {
				ret = -EPROTO;
				break;
			}
			sess->chunks[first + i].addr = le64_to_cpu(buf[i].addr);
			sess->chunks[first + i].rkey = le32_to_cpu(buf[i].rkey);
		}
		if (ret)
			break;
	}
	if (ret) {
		/*
		 * Leave the mapping: a READ may still land.  The attach fails;
		 * rmem_dev_free() unmaps it once the queue pairs are drained.
		 */
		pr_err("%s: reading the chunk table failed: %d (%s)\n", dev->name,
		       ret, ib_wc_status_msg(sess->ctl_status));
		NL_SET_ERR_MSG(extack, "cannot read the server's chunk table");
		return ret;
	}
	ib_dma_unmap_single(dev->ibdev, dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	sess->table_dma = 0;
	if (dev->emap && !rmem_emap_table_ok(sess)) {
		NL_SET_ERR_MSG(extack,
			       "server's chunk table does not fit the extents (a slot taken in part, or chunks larger than an extent)");
		return -EPROTO;
	}
	/* the session's memory is the same for the device's life */
	rmem_sess_set_probe(sess);
	return 0;
}
