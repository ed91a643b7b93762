/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem: connection probes, shared by both roles.
 */
#ifndef _RMEM_PROBE_H
#define _RMEM_PROBE_H

#include <rdma/ib_verbs.h>

/**
 * struct rmem_probe - one outstanding probe at a time
 * @cqe: completion of the probe; @cqe.done is the owner's handler, which
 *	calls rmem_probe_done() first
 * @pending: a probe is in flight
 * @sent: jiffies when the pending probe was posted
 * @sge: with a length, each probe is an RDMA READ into it (from
 *	@remote_addr, @rkey; rmem_probe_set_read()); else a zero-length
 *	RDMA WRITE
 * @remote_addr: where the READ reads
 * @rkey: the memory key of @remote_addr
 */
struct rmem_probe {
	struct ib_cqe cqe;
	bool pending;
	unsigned long sent;
	struct ib_sge sge;
	u64 remote_addr;
	u32 rkey;
};

/**
 * enum rmem_probe_result - what rmem_probe_tick() found
 * @RMEM_PROBE_SENT: no probe was pending; one was posted (or could not be)
 * @RMEM_PROBE_WAIT: a probe is pending, not yet overdue
 * @RMEM_PROBE_LATE: a probe is pending for RMEM_KA_MISSES intervals
 */
enum rmem_probe_result {
	RMEM_PROBE_SENT,
	RMEM_PROBE_WAIT,
	RMEM_PROBE_LATE,
};

void rmem_probe_init(struct rmem_probe *probe,
		     void (*done)(struct ib_cq *cq, struct ib_wc *wc));
void rmem_probe_set_read(struct rmem_probe *probe, u64 dma, u32 len, u32 lkey,
			 u64 remote_addr, u32 rkey);
enum rmem_probe_result rmem_probe_tick(struct rmem_probe *probe,
				       struct ib_qp *qp,
				       unsigned int interval_ms);

/**
 * rmem_probe_done() - the probe completed (successfully or not)
 * @probe: the probe
 */
static inline void rmem_probe_done(struct rmem_probe *probe)
{
	/* what the completion read of the buffer comes before the next post */
	smp_store_release(&probe->pending, false);
}

#endif /* _RMEM_PROBE_H */
