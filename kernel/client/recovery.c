// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: failure detection and reconnect.
 *
 * A live device probes queue pair 0 with an RDMA READ every keepalive_ms:
 * of the server's status entry (16 bytes, its pool's free memory) in wire
 * version 4, of 8 bytes of the first chunk in version 3.  When the
 * connection breaks (a failed probe or I/O, a disconnect, a request
 * timeout), the device tears its queue pairs down
 * (outstanding requests are requeued, not failed, up to RMEM_MAX_RETRIES
 * times each; failfast ones fail) and reconnects with RMEM_WIRE_RECONNECT,
 * with backoff, until loss_timeout_ms.  Meanwhile ->queue_rq() sees the
 * device not live and hands requests back (BLK_STS_RESOURCE), or fails
 * failfast ones at once.
 * The server must still hold the same session (same pool identity and
 * generation): otherwise, or once the time is over, the device is dead and
 * every request fails.  Memory that is gone never reads as zeros.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include <rdma/ib_verbs.h>

#include "client.h"
#include "trace.h"

/* Reconnect backoff: first retry, longest wait between attempts. */
#define RMEM_RECONNECT_MIN	(HZ / 4)
#define RMEM_RECONNECT_MAX	(2 * HZ)
/* How long the loss deadline waits for an attempt that got READY. */
#define RMEM_DEADLINE_GRACE	(10 * HZ)

/*
 * Where a reconnect spends its time (sess->stage), for the loss deadline's
 * message: a device that dies with no attempt made says what held it up.
 */
#define RMEM_STAGE_QUEUED	"the reconnect work had not started"
#define RMEM_STAGE_BARRIER	"waiting for request submission to stop"
#define RMEM_STAGE_KA		"stopping the connection probe"
#define RMEM_STAGE_TEARDOWN	"tearing queue pairs down"
#define RMEM_STAGE_RELEASE	"releasing the removed RDMA device"
#define RMEM_STAGE_ATTEMPT	"an attempt was connecting"
#define RMEM_STAGE_BACKOFF	"waiting for the next attempt"

/* What a session gone dead means for its device, for its message. */
static const char *rmem_sess_dead_what(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;

	if (rmem_dev_nr_sess(dev) == 1)
		return "the device is dead, I/O fails";
	if (dev->cfg.replicas == 1)
		return "the device is dead, I/O to this server's extents fails";
	return "this server is dead, its copies are not read (the other copies serve)";
}

static void rmem_sess_stage(struct rmem_sess *sess, const char *stage)
{
	WRITE_ONCE(sess->stage, stage);
}

/*
 * The barrier after a session stopped being live: every ->queue_rq()
 * from here on sees that and leaves its queue pairs alone.  Requests the
 * block layer left in one of its batches, unposted, go back to wait
 * (wr.c); the other sessions' batches go out.  The queue is not left
 * quiesced (held requests cycle through ->queue_rq()).
 */
static void rmem_sess_queue_barrier(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;
	unsigned int i, k;

	if (!dev->disk)
		return;
	/*
	 * One barrier at a time: another session's teardown waits for the
	 * posts to its queue pairs here (its own barrier comes first).
	 */
	mutex_lock(&dev->barrier_lock);
	blk_mq_quiesce_queue(dev->disk->queue);
	for (k = 0; k < rmem_dev_nr_sess(dev); k++) {
		for (i = 0; i < dev->nr_queues; i++) {
			struct rmem_queue *queue = &dev->sessions[k]->queues[i];

			if (dev->sessions[k] == sess)
				rmem_flush_batch(queue);
			else
				rmem_commit_batch(queue);
		}
	}
	blk_mq_unquiesce_queue(dev->disk->queue);
	mutex_unlock(&dev->barrier_lock);
}

/*
 * The lost connection's queue pairs go: the barrier, then no probe, then
 * the teardown, each step named for the loss deadline's message.
 */
static void rmem_sess_tear_down(struct rmem_sess *sess)
{
	rmem_sess_stage(sess, RMEM_STAGE_BARRIER);
	rmem_sess_queue_barrier(sess);
	rmem_sess_stage(sess, RMEM_STAGE_KA);
	cancel_delayed_work_sync(&sess->ka_work);
	/* a control message under way ends within a tenth of a second */
	rmem_sess_ext_quiesce(sess);
	rmem_sess_stage(sess, RMEM_STAGE_TEARDOWN);
	rmem_sess_destroy_queues(sess);
}

/**
 * rmem_sess_abort_queues() - disconnect and drain every queue pair
 * @sess: a session nothing reconnects any more: dead, or being deleted
 *
 * Outstanding requests complete (flushed), partly posted ones too: after
 * the barrier no ->queue_rq() still posts to a queue pair drained here.
 */
void rmem_sess_abort_queues(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;
	unsigned int i;

	rmem_sess_queue_barrier(sess);
	mutex_lock(&sess->qlock);
	rmem_sess_disconnect(sess);
	for (i = 0; i < dev->nr_queues; i++) {
		struct rmem_queue *queue = &sess->queues[i];

		if (!queue->cm_id || !queue->cm_id->qp)
			continue;
		ib_drain_qp(queue->cm_id->qp);
		rmem_blk_drained(queue);
	}
	mutex_unlock(&sess->qlock);
}

static void rmem_sess_abort_work(struct work_struct *work)
{
	rmem_sess_abort_queues(container_of(work, struct rmem_sess,
					    abort_work));
}

/**
 * rmem_sess_abort() - flush the queue pairs of a dead or deleted session
 * @sess: the session
 *
 * Context: any (request timeout); the work runs on rmem_wq.
 */
void rmem_sess_abort(struct rmem_sess *sess)
{
	queue_work(rmem_wq, &sess->abort_work);
}

/*
 * Queue a reconnect attempt now, unless the RDMA device removal is tearing the
 * session down: it queues the attempt itself when it is done, and nothing
 * may start one (and make the device live again) under it.
 */
static void rmem_sess_queue_reconnect(struct rmem_sess *sess)
{
	spin_lock(&sess->recovery_lock);
	if (!sess->ib_removing)
		queue_delayed_work(rmem_wq, &sess->reconnect_work, 0);
	spin_unlock(&sess->recovery_lock);
}

/*
 * The connection is lost: a live device goes reconnecting (with a loss
 * timeout and its disk registered; @reconnect queues the first attempt)
 * or dead.  Return: the state it was in (only a live one changes).
 */
static unsigned int rmem_sess_lose(struct rmem_sess *sess, bool reconnect)
{
	struct rmem_dev *dev = sess->dev;

	if (dev->cfg.loss_timeout_ms && READ_ONCE(dev->registered)) {
		if (cmpxchg(&sess->state, RMEM_DEV_STATE_LIVE,
			    RMEM_DEV_STATE_RECONNECTING) != RMEM_DEV_STATE_LIVE)
			return READ_ONCE(sess->state);
		sess->lost_at = jiffies;
		WRITE_ONCE(sess->attempts, 0);
		sess->deadline_defers = 0;
		rmem_sess_stage(sess, RMEM_STAGE_QUEUED);
		pr_warn("%s: lost the connection to %pISpc; reconnecting, I/O waits up to %u ms\n",
			dev->name, &sess->peer, dev->cfg.loss_timeout_ms);
		mod_delayed_work(rmem_deadline_wq, &sess->deadline_work,
				 msecs_to_jiffies(dev->cfg.loss_timeout_ms));
		if (reconnect)
			rmem_sess_queue_reconnect(sess);
		rmem_dev_announce(dev);
		return RMEM_DEV_STATE_LIVE;
	}
	/* only from live: never undo a dev del's "deleting" */
	if (cmpxchg(&sess->state, RMEM_DEV_STATE_LIVE, RMEM_DEV_STATE_DEAD) !=
	    RMEM_DEV_STATE_LIVE)
		return READ_ONCE(sess->state);
	/* fail outstanding I/O first; the announcement allocates */
	rmem_sess_abort_queues(sess);
	rmem_emap_kick(dev);
	pr_err("%s: lost the connection to %pISpc; %s\n",
	       dev->name, &sess->peer, rmem_sess_dead_what(sess));
	rmem_dev_announce(dev);
	return RMEM_DEV_STATE_LIVE;
}

static void rmem_sess_fail_work(struct work_struct *work)
{
	rmem_sess_lose(container_of(work, struct rmem_sess, fail_work), true);
}

static void rmem_sess_ka_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_sess *sess = container_of(wc->wr_cqe, struct rmem_sess,
					      ka.cqe);
	struct rmem_dev *dev = sess->dev;

	if (wc->status == IB_WC_SUCCESS && sess->wire_version >= 4) {
		const struct rmem_wire_pool *st = sess->ka_buf;

		/* read before rmem_probe_done() lets the next probe post */
		ib_dma_sync_single_for_cpu(dev->ibdev, sess->ka_dma,
					   sizeof(*st), DMA_FROM_DEVICE);
		WRITE_ONCE(sess->server_free, le64_to_cpu(st->free));
		ib_dma_sync_single_for_device(dev->ibdev, sess->ka_dma,
					      sizeof(*st), DMA_FROM_DEVICE);
	}
	rmem_probe_done(&sess->ka);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			trace_rmem_probe_miss(dev->name, 0, wc->status);
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_warn_ratelimited("%s: connection probe failed: %s\n",
					    dev->name,
					    ib_wc_status_msg(wc->status));
		/* queue pair 0 is in the error state: it takes no request */
		WRITE_ONCE(sess->queues[0].connected, false);
		rmem_sess_fail(sess);
	}
}

/* Whether any queue of the session completed a request since @since. */
static bool rmem_sess_progress(struct rmem_sess *sess, unsigned long since)
{
	unsigned int i;

	for (i = 0; i < sess->dev->nr_queues; i++)
		if (time_after(READ_ONCE(sess->queues[i].io->last_done), since))
			return true;
	return false;
}

/*
 * Probes go on queue pair 0 (probe.c).  A late probe is a lost connection
 * only if no request completed for as long as a probe may be late: a
 * probe merely queued behind a deep queue of I/O that still completes is
 * not.  Not "since the probe was sent": requests that completed between
 * the probe and a loss would hide the loss until their own timeout.
 */
static void rmem_sess_ka_work(struct work_struct *work)
{
	struct rmem_sess *sess = container_of(to_delayed_work(work),
					      struct rmem_sess, ka_work);
	struct rmem_dev *dev = sess->dev;
	struct rmem_queue *queue = &sess->queues[0];
	unsigned long window = RMEM_KA_MISSES *
			       msecs_to_jiffies(dev->cfg.keepalive_ms);
	struct ib_qp *qp = NULL;

	if (READ_ONCE(sess->state) != RMEM_DEV_STATE_LIVE)
		return;
	if (READ_ONCE(queue->connected))
		qp = queue->cm_id->qp;
	if (rmem_probe_tick(&sess->ka, qp, dev->cfg.keepalive_ms) ==
	    RMEM_PROBE_LATE && !rmem_sess_progress(sess, jiffies - window)) {
		trace_rmem_probe_miss(dev->name,
				      jiffies_to_msecs(jiffies - sess->ka.sent),
				      -1);
		pr_warn("%s: connection probe unanswered for %u ms\n",
			dev->name, jiffies_to_msecs(jiffies - sess->ka.sent));
		rmem_sess_fail(sess);
		return;
	}
	queue_delayed_work(rmem_wq, &sess->ka_work,
			   msecs_to_jiffies(dev->cfg.keepalive_ms));
}

/**
 * rmem_sess_start_ka() - start probing the connection
 * @sess: a live session
 */
void rmem_sess_start_ka(struct rmem_sess *sess)
{
	unsigned int ms = sess->dev->cfg.keepalive_ms;

	rmem_probe_done(&sess->ka);
	if (ms)
		queue_delayed_work(rmem_wq, &sess->ka_work,
				   msecs_to_jiffies(ms));
}

/**
 * rmem_sess_fail() - the connection broke: reconnect, or go dead
 * @sess: the session
 *
 * Context: any; the work runs on rmem_wq.
 */
void rmem_sess_fail(struct rmem_sess *sess)
{
	if (READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE)
		queue_work(rmem_wq, &sess->fail_work);
}

/**
 * rmem_sess_check_queues() - the session just went live: recheck its queues
 * @sess: the session
 *
 * A queue pair that disconnected while the session was still connecting
 * the others had its event ignored (the session was not live); its
 * requests would wait for ever.  Treat it as a lost connection now.
 */
void rmem_sess_check_queues(struct rmem_sess *sess)
{
	unsigned int i;

	for (i = 0; i < sess->dev->nr_queues; i++) {
		if (!READ_ONCE(sess->queues[i].connected)) {
			pr_warn("%s: queue pair %u disconnected while connecting\n",
				sess->dev->name, i);
			rmem_sess_fail(sess);
			return;
		}
	}
}

/**
 * rmem_dev_resume_io() - let requests held for a reconnect go
 * @dev: the device: live again (they go out), or dead or deleting (they fail)
 */
void rmem_dev_resume_io(struct rmem_dev *dev)
{
	if (!dev->disk)
		return;
	blk_mq_kick_requeue_list(dev->disk->queue);
	blk_mq_run_hw_queues(dev->disk->queue, true);
	/* and those waiting for an extent or a server: go, or fail */
	rmem_emap_resume(dev);
}

/*
 * rmem_dev_ib_removed()'s first part for one session: lost, no attempt
 * queued or under way, its queue pairs torn down; ib_removing stays set.
 */
static void rmem_sess_ib_removed(struct rmem_sess *sess)
{
	unsigned int state;

	/*
	 * From here no loss queues an attempt (rmem_sess_queue_reconnect()):
	 * once the one under way is waited for, nothing makes the device
	 * live again, and nothing tears down beside this.
	 */
	spin_lock(&sess->recovery_lock);
	sess->ib_removing = true;
	spin_unlock(&sess->recovery_lock);
	do {
		rmem_sess_lose(sess, false);
		/*
		 * An attempt queued before the flag (by a loss being handled)
		 * is cancelled, or waited for if under way: it may have made
		 * the device live again (repeat), and a loss it found may be
		 * in fail_work, which queues nothing now: wait for that too,
		 * so that nothing of the old loss runs past the loop.
		 */
		cancel_delayed_work_sync(&sess->reconnect_work);
		cancel_work_sync(&sess->fail_work);
		state = READ_ONCE(sess->state);
	} while (state == RMEM_DEV_STATE_LIVE);
	rmem_sess_tear_down(sess);
	rmem_sess_stage(sess, RMEM_STAGE_RELEASE);
}

/* The second part: attempts may go again (on another RDMA device). */
static void rmem_sess_ib_resume(struct rmem_sess *sess)
{
	spin_lock(&sess->recovery_lock);
	sess->ib_removing = false;
	/* not if the deadline made it dead meanwhile */
	if (READ_ONCE(sess->state) == RMEM_DEV_STATE_RECONNECTING) {
		sess->torn_down = true;
		rmem_sess_stage(sess, RMEM_STAGE_QUEUED);
		queue_delayed_work(rmem_wq, &sess->reconnect_work,
				   RMEM_RECONNECT_MIN);
	}
	spin_unlock(&sess->recovery_lock);
}

/**
 * rmem_dev_ib_removed() - the device's RDMA device is going away
 * @dev: a registered device
 * @ibdev: the RDMA device being removed, which no reconnect attempt can
 *	take any more (rmem_client_ibdev_usable())
 *
 * Ends what uses @ibdev, now: every session's connection is lost
 * (reconnect, maybe over another device, or dead, by the usual rules),
 * every session's queue pairs are torn down, then the PD, DMA mappings
 * and device reference are given back (unless a server is being added:
 * that add lets go of them once it fails, rmem_peer_add_drop()), and
 * only then may the sessions' attempts go again.  Waits for reconnect attempts under way (which
 * cannot take @ibdev again: at most one more round).
 *
 * Context: rmem_devs_lock held (the ib_client remove callback).
 */
void rmem_dev_ib_removed(struct rmem_dev *dev, struct ib_device *ibdev)
{
	/* other devices' held I/O (swap) may wait for this teardown */
	unsigned int noio = memalloc_noio_save();
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		rmem_sess_ib_removed(dev->sessions[i]);
	/*
	 * A peer add's session, connecting, is not the device's yet: the
	 * removal's event ends its connect (rdma_cm's removal comes after
	 * this callback), and the add, failing, lets go of the RDMA device
	 * (rmem_dev_drop_removed_ib()) once its ids are gone.
	 */
	if (dev->ibdev == ibdev && !dev->adding)
		rmem_dev_release_ib(dev);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		rmem_sess_ib_resume(dev->sessions[i]);
	memalloc_noio_restore(noio);
}

/*
 * One attempt: queue pair 0 with RECONNECT, READY, then the others.
 * Return: 0, -ESHUTDOWN if the session stopped reconnecting meanwhile, or
 * the error of the step that failed.
 */
static int rmem_sess_reconnect_once(struct rmem_sess *sess)
{
	unsigned int i;
	int ret;

	rmem_ctl_arm(sess);
	for (i = 0; i < sess->dev->nr_queues; i++) {
		struct rmem_queue *queue = &sess->queues[i];

		/*
		 * Dead (the deadline's grace ran out) or being deleted: no
		 * use in joining more, and a dev del waits for this attempt.
		 */
		if (READ_ONCE(sess->state) != RMEM_DEV_STATE_RECONNECTING)
			return -ESHUTDOWN;
		queue->closing = false;
		ret = rmem_queue_connect(queue, NULL);
		if (ret)
			return ret;
		if (i == 0) {
			ret = rmem_sess_ready(sess, NULL);
			if (ret)
				return ret;
			/* the server has us back: let the attempt finish */
			WRITE_ONCE(sess->attempt_ready, true);
		}
	}
	return 0;
}

/* A reconnect refusal that no retry can cure: the memory is gone. */
static const char *rmem_reconnect_fatal(int err)
{
	switch (err) {
	case -ESTALE:
		return "the server's memory is another one now (new pool or generation)";
	case -ENOENT:
		return "the server does not know the session any more";
	case -ECONNREFUSED:
		/* the server keeps its listener while it holds sessions */
		return "no rmem server listens at the peer any more: the memory is gone";
	case -EPROTONOSUPPORT:
	case -EPROTO:
		return "the server speaks another protocol now";
	case -EREMOTEIO:
		return "the server grants no RDMA READ";
	case -EACCES:
		return "the server no longer allows this client's address";
	case -EINVAL:
		return "the server refused the reconnect as malformed";
	case -EKEYREJECTED:
		return "the server refused the session's signature";
	case -ENOKEY:
		return "the server requires keys now, and this session was made without one";
	default:
		return NULL;
	}
}

/*
 * An attempt that got READY after the device went dead (the deadline's
 * grace ran out while its queue pairs joined) or while it is being
 * deleted, and then succeeded or stopped joining: the server has the
 * session back, live, and would hold its memory until the device is
 * deleted, then for its hold time.  The server was just reachable: tell
 * it the session is over (rmem_dev_destroy() sends no LEAVE for a device
 * that was not live).
 */
static void rmem_sess_reconnected_late(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;

	pr_info("%s: the server took the session back while the device was %s: ending the session\n",
		dev->name,
		READ_ONCE(sess->state) == RMEM_DEV_STATE_DEAD ? "dead" :
		"being deleted");
	/* noio: the reconnect work's (other devices' I/O may wait for it) */
	rmem_sess_leave(sess);
	rmem_sess_destroy_queues(sess);
	rmem_dev_drop_removed_ib(dev);
	sess->torn_down = true;
}

/* The reconnect work, under noio: tear down, one attempt, what next. */
static void rmem_sess_reconnect(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;
	unsigned long deadline = sess->lost_at +
				 msecs_to_jiffies(dev->cfg.loss_timeout_ms);
	const char *why;
	unsigned long delay, t0;
	unsigned int noreclaim;
	bool dead;
	int ret;

	if (!sess->torn_down) {
		/*
		 * A barrier: every ->queue_rq() after it sees the device not
		 * live and leaves the queue pairs alone; then tear them down.
		 * The queue is not left quiesced: held requests cycle through
		 * ->queue_rq() (BLK_STS_RESOURCE) and failfast ones fail.
		 */
		rmem_sess_tear_down(sess);
		rmem_sess_stage(sess, RMEM_STAGE_RELEASE);
		rmem_dev_drop_removed_ib(dev);
		WRITE_ONCE(sess->torn_down, true);
		/*
		 * The attempt reads the state after this: the loss deadline
		 * sees the queue pairs torn down, or the attempt sees the
		 * device dead and connects nothing.  Pairs with the cmpxchg
		 * in rmem_sess_deadline_work().
		 */
		smp_mb();
	}
	if (!sess->attempts)
		sess->first_attempt_at = jiffies;
	WRITE_ONCE(sess->attempts, sess->attempts + 1);
	rmem_sess_stage(sess, RMEM_STAGE_ATTEMPT);
	trace_rmem_reconnect(dev->name, sess->attempts,
			     jiffies_to_msecs(jiffies - sess->lost_at));
	/*
	 * The attempt's few allocations may use the reserve below the min
	 * watermark, as swap writeback itself does (noreclaim sets
	 * PF_MEMALLOC; with the reserve empty they fail at once and the
	 * attempt is retried).
	 */
	noreclaim = memalloc_noreclaim_save();
	t0 = jiffies;
	ret = rmem_sess_reconnect_once(sess);
	memalloc_noreclaim_restore(noreclaim);
	if (!ret) {
		/* read now: once live, a new loss resets them */
		unsigned int took = jiffies_to_msecs(jiffies - sess->lost_at);
		unsigned int first = jiffies_to_msecs(sess->first_attempt_at -
						      sess->lost_at);
		unsigned int attempts = sess->attempts;

		/*
		 * The deadline goes before the device is live: a loss right
		 * after must find its own deadline armed, not cancelled.  It
		 * defers while attempt_ready is set, so that stays set until
		 * the deadline is gone.
		 */
		cancel_delayed_work_sync(&sess->deadline_work);
		WRITE_ONCE(sess->attempt_ready, false);
		if (cmpxchg(&sess->state, RMEM_DEV_STATE_RECONNECTING,
			    RMEM_DEV_STATE_LIVE) != RMEM_DEV_STATE_RECONNECTING) {
			rmem_sess_reconnected_late(sess);
			return;
		}
		/* before a loss that check_queues may find logs its own */
		pr_info("%s: reconnected to %pISpc after %u ms (%u attempts, the first after %u ms)\n",
			dev->name, &sess->peer, took, attempts, first);
		sess->torn_down = false;
		WRITE_ONCE(sess->reconnects, sess->reconnects + 1);
		rmem_sess_start_ka(sess);
		rmem_dev_resume_io(dev);
		rmem_sess_check_queues(sess);
		rmem_dev_announce(dev);
		return;
	}
	/*
	 * Dead or being deleted meanwhile (-ESHUTDOWN, or the step that
	 * failed came after that): nothing to retry, and after READY the
	 * server holds the session live again.
	 */
	dead = READ_ONCE(sess->state) != RMEM_DEV_STATE_RECONNECTING;
	if (dead && READ_ONCE(sess->attempt_ready)) {
		WRITE_ONCE(sess->attempt_ready, false);
		rmem_sess_reconnected_late(sess);
		return;
	}
	WRITE_ONCE(sess->attempt_ready, false);
	rmem_sess_stage(sess, RMEM_STAGE_TEARDOWN);
	rmem_sess_destroy_queues(sess);
	rmem_sess_stage(sess, RMEM_STAGE_RELEASE);
	rmem_dev_drop_removed_ib(dev);
	if (dead)
		return;
	/* where reconnects spend their time, for a loss that outlasts them */
	pr_info("%s: reconnect attempt %u failed after %u ms: %d\n", dev->name,
		sess->attempts, jiffies_to_msecs(jiffies - t0), ret);
	why = rmem_reconnect_fatal(ret);
	if (!why && time_before(jiffies, deadline)) {
		/*
		 * EAGAIN: the server is dropping the old queue pairs right
		 * now (it noticed the loss with our RECONNECT): back soon.
		 */
		delay = ret == -EAGAIN ? RMEM_RECONNECT_MIN :
			min_t(unsigned long, RMEM_RECONNECT_MAX,
			      RMEM_RECONNECT_MIN << min(sess->attempts - 1, 5U));
		delay = min(delay, deadline - jiffies);
		rmem_sess_stage(sess, RMEM_STAGE_BACKOFF);
		queue_delayed_work(rmem_wq, &sess->reconnect_work, delay);
		return;
	}
	if (cmpxchg(&sess->state, RMEM_DEV_STATE_RECONNECTING,
		    RMEM_DEV_STATE_DEAD) != RMEM_DEV_STATE_RECONNECTING)
		return;
	if (why)
		pr_err("%s: %s; %s\n", dev->name, why,
		       rmem_sess_dead_what(sess));
	else
		pr_err("%s: no reconnect within the loss timeout (%u attempts; the last failed: %d); %s\n",
		       dev->name, sess->attempts, ret,
		       rmem_sess_dead_what(sess));
	rmem_dev_resume_io(dev);
	rmem_dev_announce(dev);
}

static void rmem_sess_reconnect_work(struct work_struct *work)
{
	struct rmem_sess *sess = container_of(to_delayed_work(work),
					      struct rmem_sess, reconnect_work);
	unsigned int noio, delay = READ_ONCE(rmem_fault_reconnect_delay_ms);

	/*
	 * Testing only: the first run after a loss starts late, as if queued
	 * behind others; a delete or a dead device ends the wait.
	 */
	if (unlikely(delay) && !sess->attempts) {
		unsigned long end = jiffies +
				    msecs_to_jiffies(min(delay, 60000U));

		while (time_before(jiffies, end) &&
		       READ_ONCE(sess->state) == RMEM_DEV_STATE_RECONNECTING &&
		       !READ_ONCE(sess->ib_removing))
			msleep(100);
	}
	if (READ_ONCE(sess->state) != RMEM_DEV_STATE_RECONNECTING)
		return;
	/*
	 * Swap may be on this device, and its writeback waits for this
	 * reconnect: reclaim must not wait for it, in the teardown (a
	 * driver's destroy commands may allocate) as in the attempt.
	 */
	noio = memalloc_noio_save();
	rmem_sess_reconnect(sess);
	memalloc_noio_restore(noio);
}

/*
 * The loss timeout, on its own: an attempt may be stuck for long (a
 * GFP_NOIO allocation under memory pressure neither fails nor calls the
 * OOM killer), so the held I/O must not wait for it to return.
 */
static void rmem_sess_deadline_work(struct work_struct *work)
{
	struct rmem_sess *sess = container_of(to_delayed_work(work),
					      struct rmem_sess, deadline_work);
	struct rmem_dev *dev = sess->dev;
	unsigned int noio;

	/*
	 * An attempt that got READY has the server's session back: throwing
	 * it away now would leave the server holding it for nothing.  It
	 * ends soon (its connects have timeouts): look again, for at most
	 * RMEM_DEADLINE_GRACE, so that held I/O does not wait much longer
	 * than the loss timeout.
	 */
	if (READ_ONCE(sess->attempt_ready) &&
	    READ_ONCE(sess->state) == RMEM_DEV_STATE_RECONNECTING &&
	    sess->deadline_defers < RMEM_DEADLINE_GRACE / (HZ / 2)) {
		sess->deadline_defers++;
		queue_delayed_work(rmem_deadline_wq, &sess->deadline_work,
				   HZ / 2);
		return;
	}
	if (cmpxchg(&sess->state, RMEM_DEV_STATE_RECONNECTING,
		    RMEM_DEV_STATE_DEAD) != RMEM_DEV_STATE_RECONNECTING)
		return;
	/*
	 * Say where the reconnect was: with no attempt made, what held it up
	 * (in a lab run that passed, a guest stalled under memory pressure
	 * kept the queue barrier 8 s).
	 */
	pr_err("%s: no reconnect within the loss timeout%s (%u attempts; %s); %s\n",
	       dev->name,
	       READ_ONCE(sess->attempt_ready) ? " and its grace" : "",
	       READ_ONCE(sess->attempts), READ_ONCE(sess->stage),
	       rmem_sess_dead_what(sess));
	/*
	 * The reconnect work tears the lost queue pairs down, and finding
	 * the device dead it does nothing more: if it has not got that far
	 * (queued behind others, or still in the barrier), requests in
	 * flight on them (rxe holds them while its link is down; hardware
	 * retries for long) would wait for their timeout.  Flush them now;
	 * qlock orders this with that teardown, and a second drain finds
	 * nothing.
	 */
	rmem_dev_resume_io(dev);
	if (!READ_ONCE(sess->torn_down)) {
		noio = memalloc_noio_save();
		rmem_sess_abort_queues(sess);
		memalloc_noio_restore(noio);
		/* what the drain requeued fails now too */
		rmem_dev_resume_io(dev);
	}
	rmem_dev_announce(dev);
}

/**
 * rmem_sess_recovery_init() - set up failure handling of a new session
 * @sess: the session
 */
void rmem_sess_recovery_init(struct rmem_sess *sess)
{
	INIT_WORK(&sess->fail_work, rmem_sess_fail_work);
	spin_lock_init(&sess->recovery_lock);
	INIT_WORK(&sess->abort_work, rmem_sess_abort_work);
	mutex_init(&sess->qlock);
	INIT_DELAYED_WORK(&sess->reconnect_work, rmem_sess_reconnect_work);
	INIT_DELAYED_WORK(&sess->deadline_work, rmem_sess_deadline_work);
	INIT_DELAYED_WORK(&sess->ka_work, rmem_sess_ka_work);
	rmem_probe_init(&sess->ka, rmem_sess_ka_done);
}

/**
 * rmem_sess_recovery_stop() - stop failure handling, probes and reconnects
 * @sess: the session, no longer live or reconnecting (deleting, or freed)
 *
 * Waits for a running reconnect attempt to end.
 */
void rmem_sess_recovery_stop(struct rmem_sess *sess)
{
	/* the probe first: it may queue a loss */
	cancel_delayed_work_sync(&sess->ka_work);
	cancel_work_sync(&sess->fail_work);
	cancel_work_sync(&sess->abort_work);
	cancel_delayed_work_sync(&sess->reconnect_work);
	cancel_delayed_work_sync(&sess->deadline_work);
	/* and last: a reconnect that succeeded just now restarted it */
	cancel_delayed_work_sync(&sess->ka_work);
}
