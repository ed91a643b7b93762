// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: remote RAM over RDMA as a block device.
 *
 * Module entry points.  One module holds both roles: the memory server
 * (donor) and the block device client; both are driven over the generic
 * netlink family "rmem".  Module parameters only set defaults.
 *
 * Unloading removes every device and every server.  While a device is
 * open (mounted, swap) the block layer holds a module reference, so the
 * unload is refused until it is closed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/module.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>

#include "rmem.h"

unsigned int rmem_default_queue_depth = 128;
module_param_named(queue_depth, rmem_default_queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth, "Default requests in flight per queue (1-1024)");

unsigned int rmem_default_mr_size_mb = 64;
module_param_named(mr_size_mb, rmem_default_mr_size_mb, uint, 0444);
MODULE_PARM_DESC(mr_size_mb, "Default server chunk (memory region) size in MiB");

unsigned int rmem_connect_timeout_ms = 3000;
module_param_named(connect_timeout_ms, rmem_connect_timeout_ms, uint, 0444);
MODULE_PARM_DESC(connect_timeout_ms, "Address and route resolution timeout");

/*
 * RoCE's default packet lifetime makes the RC ack timeout about 2 s per
 * lost packet; Soft-RoCE (rxe) over a lossy wire then crawls, and 14 (about
 * 67 ms, 0.5 s over its 7 retries) suits it.  A hardware fabric can pause
 * longer than that (PFC storms): rdma_cm's default there.  -1: that
 * choice; 0: rdma_cm's default everywhere; N: 4.096 us * 2^N everywhere.
 */
int rmem_ack_timeout = -1;
module_param_named(ack_timeout, rmem_ack_timeout, int, 0444);
MODULE_PARM_DESC(ack_timeout,
		 "RC ack timeout exponent (4.096 us * 2^N); 0: rdma_cm's; -1: 14 on Soft-RoCE, else rdma_cm's");

unsigned int rmem_fault_ready_delay_ms;
module_param_named(fault_ready_delay_ms, rmem_fault_ready_delay_ms, uint, 0644);
MODULE_PARM_DESC(fault_ready_delay_ms,
		 "Testing only: a server waits this long before it sends READY, or answers a thin session's control message (default: 0)");

unsigned int rmem_fault_release_delay_ms;
module_param_named(fault_release_delay_ms, rmem_fault_release_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(fault_release_delay_ms,
		 "Testing only: a server's session release waits this long (at most 60 s) between leaving the session list and freeing the session (default: 0)");

unsigned int rmem_fault_reconnect_delay_ms;
module_param_named(fault_reconnect_delay_ms, rmem_fault_reconnect_delay_ms,
		   uint, 0644);
MODULE_PARM_DESC(fault_reconnect_delay_ms,
		 "Testing only: a client's reconnect work starts this much later after a loss (at most 60 s, or until the device is dead or deleted), as if queued behind others (default: 0)");

bool rmem_fault_resync_hold;
module_param_named(fault_resync_hold, rmem_fault_resync_hold, bool, 0644);
MODULE_PARM_DESC(fault_resync_hold,
		 "Testing only: a client's resync starts no extent while this is set (looked at every 200 ms meanwhile) (default: off)");

unsigned int rmem_fault_resync_delay_ms;
module_param_named(fault_resync_delay_ms, rmem_fault_resync_delay_ms, uint,
		   0644);
MODULE_PARM_DESC(fault_resync_delay_ms,
		 "Testing only: a client's resync copy waits this long (at most 10 s) after each window, the window unlocked (default: 0)");

unsigned int rmem_fault_wire_version;
module_param_named(fault_wire_version, rmem_fault_wire_version, uint, 0644);
MODULE_PARM_DESC(fault_wire_version,
		 "Testing only: a server speaks wire protocol versions up to this one, as an older server would (default: 0, all it can)");

unsigned long long rmem_fault_sector = U64_MAX;
module_param_named(fault_sector, rmem_fault_sector, ullong, 0644);
MODULE_PARM_DESC(fault_sector,
		 "Testing only: client I/O touching this 512-byte sector fails at the server's NIC, every time (default: off)");

atomic_t rmem_fault_ext = ATOMIC_INIT(0);

static int rmem_fault_ext_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret = kstrtouint(val, 0, &n);

	if (ret)
		return ret;
	if (n > INT_MAX)
		return -EINVAL;
	atomic_set(&rmem_fault_ext, n);
	return 0;
}

static int rmem_fault_ext_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&rmem_fault_ext));
}

static const struct kernel_param_ops rmem_fault_ext_ops = {
	.set = rmem_fault_ext_set,
	.get = rmem_fault_ext_get,
};
module_param_cb(fault_ext, &rmem_fault_ext_ops, NULL, 0644);
MODULE_PARM_DESC(fault_ext,
		 "Testing only: the next N times a client request too large for its PDU takes room, it finds the mempool empty and is requeued (a requeued request may take several) (default: 0)");

unsigned int rmem_keepalive_ms = 1000;
module_param_named(keepalive_ms, rmem_keepalive_ms, uint, 0444);
MODULE_PARM_DESC(keepalive_ms,
		 "Connection probe interval of server sessions and default of new devices (ms, 0: none)");

unsigned int rmem_loss_timeout_ms = 30000;
module_param_named(loss_timeout_ms, rmem_loss_timeout_ms, uint, 0444);
MODULE_PARM_DESC(loss_timeout_ms,
		 "Default time a device keeps reconnecting, holding I/O, before it fails (ms)");

/*
 * Over a link that drops packets (RoCE without PFC, a congested fabric,
 * Soft-RoCE over a plain network) one lost packet costs the rest of its
 * RDMA READ and every READ behind it: bounded READs bound that.
 */
unsigned int rmem_read_split_kb = 128;
module_param_named(read_split_kb, rmem_read_split_kb, uint, 0444);
MODULE_PARM_DESC(read_split_kb,
		 "Default KiB one RDMA READ of a new device moves at most (64-1024, a power of two; 0: no limit)");

/*
 * The default read-depth of a new device: RDMA READs one of its queue pairs
 * keeps outstanding (its initiator depth), and so at most read-depth x
 * read-split bytes of READ responses in flight: a window the client opens,
 * which a lossy link needs small (performance.rst).  On Soft-RoCE a
 * request's tail READ and the probe take slots too, so a small depth also
 * holds small reads back.
 */
unsigned int rmem_read_depth = RMEM_MAX_READ_DEPTH;
module_param_named(read_depth, rmem_read_depth, uint, 0444);
MODULE_PARM_DESC(read_depth,
		 "Default RDMA READs a queue pair of a new device keeps outstanding at most (1-16, and at most what the RDMA device allows)");

struct workqueue_struct *rmem_wq;
/*
 * The client's loss deadlines only: with a rescuer of their own, so that
 * under memory pressure a deadline never waits behind a reconnect attempt
 * stuck in an allocation on rmem_wq's rescuer.
 */
struct workqueue_struct *rmem_deadline_wq;
/*
 * Thin devices' extent workers only: the reconnect work (on rmem_wq)
 * waits for them in its teardown, which on the same workqueue could wait
 * for ever under memory pressure (one rescuer, one work at a time).
 */
struct workqueue_struct *rmem_extent_wq;

/**
 * rmem_set_ack_timeout() - the RC ack timeout of a new connection
 * @id: its rdma_cm id, bound to a device
 *
 * Return: 0 or what rdma_set_ack_timeout() returned.
 */
int rmem_set_ack_timeout(struct rdma_cm_id *id)
{
	int t = rmem_ack_timeout;

	if (t < 0)
		t = id->device->ops.driver_id == RDMA_DRIVER_RXE ? 14 : 0;
	return t ? rdma_set_ack_timeout(id, t) : 0;
}

static int __init rmem_init(void)
{
	int ret;

	if (!rmem_default_queue_depth || rmem_default_queue_depth > 1024 ||
	    !rmem_default_mr_size_mb || !rmem_connect_timeout_ms ||
	    rmem_ack_timeout < -1 || rmem_ack_timeout > 31 ||
	    rmem_keepalive_ms > RMEM_MAX_KEEPALIVE_MS ||
	    (rmem_keepalive_ms && rmem_keepalive_ms < RMEM_MIN_KEEPALIVE_MS) ||
	    rmem_loss_timeout_ms > RMEM_MAX_LOSS_TIMEOUT_MS ||
	    !rmem_read_depth || rmem_read_depth > RMEM_MAX_READ_DEPTH ||
	    (rmem_read_split_kb &&
	     (!is_power_of_2(rmem_read_split_kb) ||
	      rmem_read_split_kb < RMEM_MIN_READ_SPLIT / SZ_1K ||
	      rmem_read_split_kb > RMEM_MAX_READ_SPLIT / SZ_1K))) {
		pr_err("invalid module parameter\n");
		return -EINVAL;
	}
	rmem_wq = alloc_workqueue("rmem", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!rmem_wq)
		return -ENOMEM;
	rmem_deadline_wq = alloc_workqueue("rmem_deadline",
					   WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!rmem_deadline_wq) {
		ret = -ENOMEM;
		goto out_destroy_wq;
	}
	rmem_extent_wq = alloc_workqueue("rmem_extent",
					 WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!rmem_extent_wq) {
		ret = -ENOMEM;
		goto out_destroy_deadline_wq;
	}
	ret = rmem_server_init();
	if (ret)
		goto out_destroy_extent_wq;
	ret = rmem_client_init();
	if (ret)
		goto out_server_exit;
	ret = rmem_nl_init();
	if (ret)
		goto out_client_exit;
	pr_info("loaded\n");
	return 0;

out_client_exit:
	rmem_client_exit();
out_server_exit:
	rmem_server_exit();
out_destroy_extent_wq:
	destroy_workqueue(rmem_extent_wq);
out_destroy_deadline_wq:
	destroy_workqueue(rmem_deadline_wq);
out_destroy_wq:
	destroy_workqueue(rmem_wq);
	return ret;
}

static void __exit rmem_exit(void)
{
	/* no new commands, then tear down what exists */
	rmem_nl_exit();
	rmem_client_exit();
	rmem_server_exit();
	destroy_workqueue(rmem_extent_wq);
	destroy_workqueue(rmem_deadline_wq);
	destroy_workqueue(rmem_wq);
	pr_info("unloaded\n");
}

module_init(rmem_init);
module_exit(rmem_exit);

MODULE_DESCRIPTION("Remote RAM over RDMA as a block device");
MODULE_SOFTDEP("pre: hmac sha256");
MODULE_LICENSE("GPL");
MODULE_VERSION(RMEM_VERSION);
#ifdef RMEM_BENCH_BARE
MODULE_INFO(variant, "bare: no latency histograms or request tracepoints (make bench only)");
#endif
