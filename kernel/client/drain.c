// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: draining a server out of a running device
 * (RMEM_CMD_DEV_PEER_DEL; Documentation/multi-server.rst, step 5).
 *
 * A draining server takes no new extent, and its copies count for no
 * extent's redundancy (rmem_emap_kept()): the resync (resync.c) copies
 * each extent it holds onto another server, as it would a dead server's,
 * reading from a current copy (the draining one too: with replicas 1 it is
 * the only one).  When the copy makes the extent whole on servers that
 * take I/O, its copy on the draining server turns stale in the same
 * update (no more reads or writes go there); if a kept server was
 * reconnecting then, it stays current beside the new copy until the next
 * write leaves it out (rmem_emap_legs()).  Once no write issued before is
 * in flight the extent's replica word drops it.  When no extent names
 * the server and no FREE is pending there, the extent worker marks it
 * drained and the drain work below removes it: it waits for reads still
 * in flight there, disconnects, and sends LEAVE, so the server frees the
 * session's memory at once.  The session stays in the device's array
 * (replica words name sessions by index), removed: in no listing and no
 * device state.
 *
 * The first server may be drained too.  Its session stays as every
 * drained one does: its queue structs remain the hardware queues' handles
 * (hctx->driver_data: an index and the device; over several servers a
 * request's legs go to the sessions its extent names, and the batches of
 * a removed session stay empty), and dev show's device-level fields follow
 * the first server not removed (rmem_dev_first()).  A drain cannot be
 * called off; dev del ends it.
 */
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include "client.h"
#include "extent.h"

struct rmem_drain_busy {
	struct rmem_sess *sess;
	bool busy;
};

static bool rmem_drain_busy_one(struct request *rq, void *data)
{
	struct rmem_drain_busy *b = data;
	struct rmem_req *cmd = blk_mq_rq_to_pdu(rq);
	unsigned int i, n = min_t(unsigned int, READ_ONCE(cmd->nr_legs),
				  rmem_dev_max_legs(b->sess->dev));

	/* on the map's list: not issued */
	if (READ_ONCE(cmd->thin_wait))
		return true;
	for (i = 0; i < n; i++) {
		struct rmem_queue *q = READ_ONCE(rmem_req_leg(cmd, i)->queue);

		if (q && q->sess == b->sess) {
			b->busy = true;
			return false;
		}
	}
	return true;
}

/* Whether a started request has a leg on @sess. */
static bool rmem_drain_busy(struct rmem_sess *sess)
{
	struct rmem_drain_busy b = { .sess = sess };

	blk_mq_tagset_busy_iter(&sess->dev->tag_set, rmem_drain_busy_one, &b);
	return b.busy;
}

/* Remove a drained session, unless the device is being deleted. */
static void rmem_drain_remove(struct rmem_sess *sess)
{
	struct rmem_dev *dev = sess->dev;
	enum rmem_dev_state st;
	unsigned int t;

	/*
	 * No extent names it: only reads issued before its last replica
	 * went may still be in flight there (30 s at most: the probe fails
	 * a session that stops answering well before).  dev del does not
	 * wait for them here: it ends them itself (force aborts the queues,
	 * otherwise del_gendisk() waits for them).
	 */
	for (t = 0; t < 1500 && rmem_drain_busy(sess); t++) {
		if (READ_ONCE(sess->state) == RMEM_DEV_STATE_DELETING)
			return;
		msleep(20);
	}
	/* in no device state from here: a dead session is not a loss */
	WRITE_ONCE(sess->removed, true);
	do {
		st = READ_ONCE(sess->state);
		if (st == RMEM_DEV_STATE_DELETING) {
			/* dev del tears it down with the others */
			WRITE_ONCE(sess->removed, false);
			return;
		}
	} while (cmpxchg(&sess->state, st, RMEM_DEV_STATE_DEAD) != st);
	rmem_sess_recovery_stop(sess);
	rmem_sess_abort_queues(sess);
	/* the server frees its memory now (a lost one at its hold time) */
	if (st == RMEM_DEV_STATE_LIVE)
		rmem_sess_leave(sess);
	pr_info("%s: server %pISpc drained and removed from the device\n",
		dev->name, &sess->peer);
	rmem_dev_announce(dev);
}

/**
 * rmem_dev_drain_work() - remove the device's drained sessions
 * @work: the device's drain work
 *
 * Context: rmem_wq, queued by the extent worker; dev del cancels it
 * (after making every session deleting) before it frees the device.
 */
void rmem_dev_drain_work(struct work_struct *work)
{
	struct rmem_dev *dev = container_of(work, struct rmem_dev, drain_work);
	unsigned int noio = memalloc_noio_save();
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		if (READ_ONCE(sess->drained) && !READ_ONCE(sess->removed) &&
		    READ_ONCE(sess->state) != RMEM_DEV_STATE_DELETING)
			rmem_drain_remove(sess);
	}
	memalloc_noio_restore(noio);
}

/* Whether a server of @dev is draining and not removed yet. */
static bool rmem_drain_running(struct rmem_dev *dev)
{
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		if (READ_ONCE(dev->sessions[i]->draining) &&
		    !READ_ONCE(dev->sessions[i]->removed) &&
		    READ_ONCE(dev->sessions[i]->state) != RMEM_DEV_STATE_DEAD)
			return true;
	return false;
}

/* The session of @dev at @addr (any port if @any_port), or an error. */
static struct rmem_sess *rmem_drain_find(struct rmem_dev *dev,
					 const struct sockaddr_storage *addr,
					 bool any_port, const struct nlattr *attr,
					 struct netlink_ext_ack *extack)
{
	struct rmem_sess *found = NULL;
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		if (READ_ONCE(sess->removed) ||
		    !rmem_addr_same_host(&sess->peer,
					 (const struct sockaddr *)addr) ||
		    (!any_port &&
		     rmem_addr_port(&sess->peer) != rmem_addr_port(addr)))
			continue;
		if (found) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "several of the device's servers have that address: give the port too");
			return ERR_PTR(-EINVAL);
		}
		found = sess;
	}
	if (!found) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the device has no such server (peer)");
		return ERR_PTR(-ENOENT);
	}
	return found;
}

/*
 * Whether the device's other servers can take what @sess holds: enough
 * of them live and not draining for every replica, and, by their last
 * reports, the room.
 */
static int rmem_drain_room(struct rmem_dev *dev, struct rmem_sess *sess,
			   const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	u64 need = (u64)rmem_emap_held_by(dev, sess) << dev->emap->shift;
	u64 free = 0;
	unsigned int i, live = 0;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *o = dev->sessions[i];
		u64 f;

		if (o == sess || READ_ONCE(o->removed) ||
		    READ_ONCE(o->draining) ||
		    READ_ONCE(o->state) != RMEM_DEV_STATE_LIVE)
			continue;
		live++;
		f = READ_ONCE(o->server_free);
		/* not heard from yet (a server just added): none, with probes */
		if (f == U64_MAX && dev->cfg.keepalive_ms)
			continue;
		/* a remote report: saturate, never wrap */
		if (check_add_overflow(free, f, &free))
			free = U64_MAX;
	}
	if (live < dev->cfg.replicas) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "too few other servers, live and not draining, for the device's replicas");
		return -ENOSPC;
	}
	if (free < need) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the other servers lack room for what this one holds (by their last reports)");
		pr_info("%s: no drain of %pISpc: %llu MiB to move, %llu MiB free on the others\n",
			dev->name, &sess->peer, need >> 20, free >> 20);
		return -ENOSPC;
	}
	return 0;
}

/**
 * rmem_dev_peer_del() - start draining one server out of a device
 * @name: rmemN
 * @addr: the server's address
 * @any_port: no port given: the one server at @addr, whatever its port
 * @attr: the attribute that names it (for errors)
 * @extack: error reporting
 *
 * Return: 0 once the drain started (it goes on in the background, with
 * events), or -ENODEV, -ENOENT, -EINVAL, -EOPNOTSUPP (one server),
 * -EALREADY, -EAGAIN (not live), -ENOSPC (too few servers, no
 * room), -EBUSY (another server is draining) or -ENOMEM (no copy buffer
 * there).
 */
int rmem_dev_peer_del(const char *name, const struct sockaddr_storage *addr,
		      bool any_port, const struct nlattr *attr,
		      struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev;
	struct rmem_sess *sess;
	int ret;

	mutex_lock(&rmem_devs_lock);
	dev = rmem_dev_find(name);
	if (!dev) {
		NL_SET_ERR_MSG(extack, "no such device");
		ret = -ENODEV;
		goto out_unlock;
	}
	if (rmem_dev_nr_sess(dev) == 1) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the device has one server: nowhere to drain it to");
		ret = -EOPNOTSUPP;
		goto out_unlock;
	}
	sess = rmem_drain_find(dev, addr, any_port, attr, extack);
	if (IS_ERR(sess)) {
		ret = PTR_ERR(sess);
		goto out_unlock;
	}
	if (READ_ONCE(sess->draining)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "that server is draining already");
		ret = -EALREADY;
		goto out_unlock;
	}
	/*
	 * so no extent has more than one current replica beyond
	 * cfg.replicas, and that one draining (rmem_emap_legs())
	 */
	if (rmem_drain_running(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "another of the device's servers is draining: one at a time");
		ret = -EBUSY;
		goto out_unlock;
	}
	if (READ_ONCE(sess->state) != RMEM_DEV_STATE_LIVE) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "that server is not live (reconnecting or dead): a dead server's copies resync onto the others by themselves");
		ret = -EAGAIN;
		goto out_unlock;
	}
	if (!READ_ONCE(sess->sync_dma)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no copy buffer for that server (memory was short at attach)");
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = rmem_drain_room(dev, sess, attr, extack);
	if (ret)
		goto out_unlock;
	WRITE_ONCE(sess->draining, true);
	WRITE_ONCE(dev->draining, true);
	pr_info("%s: draining server %pISpc: %u extents to move\n", dev->name,
		&sess->peer, rmem_emap_held_by(dev, sess));
	rmem_dev_announce(dev);
	rmem_emap_kick(dev);
	ret = 0;
out_unlock:
	mutex_unlock(&rmem_devs_lock);
	return ret;
}
