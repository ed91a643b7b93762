// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: connection probes, shared by the client (recovery.c) and the server
 * (session.c).  A zero-length RDMA WRITE needs no memory key and no CPU at
 * the peer; the acknowledgment of the peer's NIC proves the path.  The
 * client, whose RDMA READs a retry may make the server's NIC answer again,
 * reads a few bytes of its own memory instead (rmem_probe_set_read()): a
 * zero-length operation between a READ and its retry makes Soft-RoCE
 * (rxe, Linux 6.12) answer the retry without a memory region (a WARNING and
 * a broken connection).  When the peer or the link is gone, the RC
 * retries fail it (ack_timeout, retry count 7).  Some paths never fail
 * it (rxe keeps a work request while its own link is down), so a probe
 * unanswered for RMEM_KA_MISSES intervals is reported late; the caller
 * decides whether that is a loss.
 */
#include <linux/jiffies.h>
#include "rmem.h"
#include "probe.h"

/**
 * rmem_probe_init() - prepare a probe
 * @probe: the probe
 * @done: completion handler; it must call rmem_probe_done()
 */
void rmem_probe_init(struct rmem_probe *probe,
		     void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	probe->cqe.done = done;
	probe->pending = false;
	probe->sent = 0;
	probe->sge.length = 0;
}

/**
 * rmem_probe_set_read() - probe with an RDMA READ, not a zero-length WRITE
 * @probe: the probe, not pending
 * @dma: DMA address of a buffer of @len bytes the probe reads into
 * @len: bytes to read (not 0)
 * @lkey: local key of @dma
 * @remote_addr: what to read at the peer
 * @rkey: the peer's memory key of @remote_addr
 */
void rmem_probe_set_read(struct rmem_probe *probe, u64 dma, u32 len, u32 lkey,
			 u64 remote_addr, u32 rkey)
{
	probe->sge.addr = dma;
	probe->sge.length = len;
	probe->sge.lkey = lkey;
	probe->remote_addr = remote_addr;
	probe->rkey = rkey;
}

/**
 * rmem_probe_tick() - one keep-alive interval passed
 * @probe: the probe
 * @qp: where to post a new probe; NULL: do not post one now
 * @interval_ms: the keep-alive interval
 *
 * Posts a probe unless one is pending.  The caller serialises ticks (one
 * delayed work per probe).
 *
 * Return: RMEM_PROBE_LATE if the pending probe is overdue, RMEM_PROBE_WAIT
 * if it is pending but not overdue, else RMEM_PROBE_SENT.
 */
enum rmem_probe_result rmem_probe_tick(struct rmem_probe *probe,
				       struct ib_qp *qp,
				       unsigned int interval_ms)
{
	struct ib_rdma_wr wr = {};

	/* pairs with rmem_probe_done(): its handler is done with the buffer */
	if (smp_load_acquire(&probe->pending)) {
		if (time_after(jiffies, probe->sent + RMEM_KA_MISSES *
			       msecs_to_jiffies(interval_ms)))
			return RMEM_PROBE_LATE;
		return RMEM_PROBE_WAIT;
	}
	if (!qp)
		return RMEM_PROBE_SENT;
	if (probe->sge.length) {
		wr.wr.opcode = IB_WR_RDMA_READ;
		wr.wr.sg_list = &probe->sge;
		wr.wr.num_sge = 1;
		wr.remote_addr = probe->remote_addr;
		wr.rkey = probe->rkey;
	} else {
		wr.wr.opcode = IB_WR_RDMA_WRITE;
	}
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.wr_cqe = &probe->cqe;
	probe->sent = jiffies;
	WRITE_ONCE(probe->pending, true);
	if (ib_post_send(qp, &wr.wr, NULL))
		WRITE_ONCE(probe->pending, false);
	return RMEM_PROBE_SENT;
}
