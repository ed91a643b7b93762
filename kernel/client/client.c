// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: connecting to a server and the life of /dev/rmemN.
 *
 * DEV_ADD connects queue pair 0 (RMEM_WIRE_NEW), waits for the server's
 * READY message, reads the chunk table with RDMA READ, connects the other
 * queue pairs (RMEM_WIRE_JOIN) and only then creates the disk.  Each step
 * either succeeds or fails the whole attach with a message saying why.
 * The connection itself is client_conn.c's business; losing and regaining
 * it is recovery.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/idr.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "auth.h"
#include "client.h"
#include "trace.h"

static LIST_HEAD(rmem_devs);
/* the device list; adds, deletes, drains and counter resets */
DEFINE_MUTEX(rmem_devs_lock);
static DEFINE_IDA(rmem_ida);

/**
 * rmem_dev_state() - the state of a device
 * @dev: the device
 *
 * That of its session; over several servers the first of deleting, dead,
 * reconnecting, connecting that one of them is in, else live.  With
 * replicas, a dead server makes the device dead only once an extent was
 * found with no current copy left elsewhere (@dev->lost, for good), or
 * every server is dead: its ``degraded`` count tells the rest.
 *
 * Return: the &enum rmem_dev_state.
 */
enum rmem_dev_state rmem_dev_state(const struct rmem_dev *dev)
{
	static const u8 rank[] = {
		[RMEM_DEV_STATE_LIVE] = 0,
		[RMEM_DEV_STATE_CONNECTING] = 1,
		[RMEM_DEV_STATE_RECONNECTING] = 2,
		[RMEM_DEV_STATE_DEAD] = 3,
		[RMEM_DEV_STATE_DELETING] = 4,
	};
	bool spare = dev->cfg.replicas > 1 && dev->emap;
	enum rmem_dev_state s = RMEM_DEV_STATE_LIVE, t;
	bool dead = false, other = false;
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		if (READ_ONCE(dev->sessions[i]->removed))
			continue;
		t = READ_ONCE(dev->sessions[i]->state);
		if (t == RMEM_DEV_STATE_DEAD && spare) {
			dead = true;
			continue;
		}
		other = true;
		if (rank[t] > rank[s])
			s = t;
	}
	if (dead && (!other || (s != RMEM_DEV_STATE_DELETING &&
				READ_ONCE(dev->lost))))
		s = RMEM_DEV_STATE_DEAD;
	return s;
}

/**
 * rmem_dev_announce() - a device changed state: trace it, tell "events"
 * @dev: the device, in its new state
 *
 * Context: process context.
 */
void rmem_dev_announce(struct rmem_dev *dev)
{
	/* I/O may be held for a reconnect: no reclaim that writes to us */
	unsigned int noio = memalloc_noio_save();

	trace_rmem_dev_state(dev->name, rmem_dev_state(dev));
	rmem_nl_notify_dev(dev, RMEM_CMD_DEV_STATE_NTF, GFP_KERNEL);
	memalloc_noio_restore(noio);
}

/* Free what a session holds; its queue pairs and the device's IB are gone. */
void rmem_sess_free(struct rmem_sess *sess)
{
	rmem_mac_free(sess->mac);
	kfree(sess->auth);
	rmem_sess_ext_free(sess);
	bitmap_free(sess->absent);
	kvfree(sess->chunks);
	free_page((unsigned long)sess->table_buf);
	kfree(sess->ready);
	kfree(sess->ka_buf);
	kvfree(sess->queues);
	kfree(sess);
}

static void rmem_dev_free(struct rmem_dev *dev)
{
	unsigned int i;

	/* no extent worker may look at the sessions from here */
	if (dev->emap)
		cancel_delayed_work_sync(&dev->emap->work);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		rmem_sess_recovery_stop(sess);
		rmem_sess_destroy_queues(sess);
		/*
		 * A handler that saw the session live just before it stopped
		 * being so may have queued a loss after recovery stopped; no
		 * handler is left.
		 */
		cancel_work_sync(&sess->fail_work);
	}
	rmem_blk_free(dev);
	/* also unmaps what a failed table read left mapped: all drained now */
	rmem_dev_release_ib(dev);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		rmem_sess_free(dev->sessions[i]);
	memzero_explicit(dev->cfg.key, sizeof(dev->cfg.key));
	kfree(dev->zero);
	kvfree(dev->queue_io);
	rmem_emap_free(dev);
	if (dev->index >= 0)
		ida_free(&rmem_ida, dev->index);
	kfree(dev);
}

/* The device named @name, or NULL.  Context: rmem_devs_lock held. */
struct rmem_dev *rmem_dev_find(const char *name)
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

/* A session with the server at @peer, connecting; no queue pair yet. */
struct rmem_sess *rmem_sess_alloc(struct rmem_dev *dev,
				  const struct sockaddr_storage *peer,
				  unsigned int index)
{
	struct rmem_sess *sess;
	unsigned int i;

	sess = kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return NULL;
	sess->dev = dev;
	sess->index = index;
	sess->peer = *peer;
	rmem_sess_recovery_init(sess);
	init_completion(&sess->ctl_done);
	mutex_init(&sess->ext_lock);
	sess->ctl_cqe.done = rmem_ctl_done;
	sess->auth_cqe.done = rmem_sess_auth_sent;
	sess->state = RMEM_DEV_STATE_CONNECTING;
	sess->wire_version = RMEM_WIRE_VERSION;
	sess->server_free = U64_MAX;
	sess->queues = kvcalloc(RMEM_MAX_DEV_QPS, sizeof(*sess->queues),
				GFP_KERNEL);
	sess->ready = kzalloc(sizeof(*sess->ready), GFP_KERNEL);
	sess->ka_buf = kzalloc(sizeof(*sess->ka_buf), GFP_KERNEL);
	sess->auth = kzalloc(sizeof(*sess->auth), GFP_KERNEL);
	if (!sess->queues || !sess->ready || !sess->ka_buf || !sess->auth) {
		rmem_sess_free(sess);
		return NULL;
	}
	for (i = 0; i < RMEM_MAX_DEV_QPS; i++) {
		sess->queues[i].dev = dev;
		sess->queues[i].sess = sess;
		sess->queues[i].index = i;
	}
	return sess;
}

static struct rmem_dev *rmem_dev_alloc(const struct rmem_dev_cfg *cfg,
				       struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev;
	unsigned int i;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->index = -1;
	dev->cfg = *cfg;
	mutex_init(&dev->ib_lock);
	mutex_init(&dev->barrier_lock);
	INIT_WORK(&dev->drain_work, rmem_dev_drain_work);
	if (!dev->cfg.queue_depth)
		dev->cfg.queue_depth = rmem_default_queue_depth;
	dev->cfg.replicas = clamp(dev->cfg.replicas, 1U, cfg->nr_peers);
	dev->zero = kzalloc(RMEM_ZERO_BUF, GFP_KERNEL);
	if (!dev->zero || (cfg->extent && rmem_emap_alloc(dev)))
		goto out_nomem;

	for (i = 0; i < cfg->nr_peers; i++) {
		struct rmem_sess *sess = rmem_sess_alloc(dev, &cfg->peers[i], i);

		if (!sess)
			goto out_nomem;
		dev->sessions[dev->nr_sess++] = sess;
		if (cfg->extent && rmem_sess_ext_init(sess))
			goto out_nomem;
	}
	dev->sess = dev->sessions[0];
	dev->index = rmem_dev_pick_index(cfg->name, extack);
	if (dev->index < 0) {
		int ret = dev->index;

		rmem_dev_free(dev);
		return ERR_PTR(ret);
	}
	snprintf(dev->name, sizeof(dev->name), "rmem%d", dev->index);
	return dev;

out_nomem:
	rmem_dev_free(dev);
	return ERR_PTR(-ENOMEM);
}

static void rmem_dev_destroy(struct rmem_dev *dev, bool force, bool leave);

/*
 * Open a session: queue pair 0 (RMEM_WIRE_NEW), the handshake, READY, the
 * chunk table, then the other queue pairs (RMEM_WIRE_JOIN).  On error
 * *@bad_attr names the attribute a refusal is about, or is 0.
 */
static int rmem_sess_connect(struct rmem_sess *sess, int *bad_attr,
			     struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	ret = rmem_queue_connect(&sess->queues[0], extack);
	*bad_attr = rmem_reject_attr(ret);
	if (ret)
		return ret;
	ret = rmem_sess_send_auth(sess, extack);
	if (!ret)
		ret = rmem_sess_ready(sess, extack);
	*bad_attr = rmem_reject_attr(ret);
	/* what a server refuses in a thin request is its extent */
	if (ret == -EINVAL && sess->dev->cfg.extent) {
		*bad_attr = RMEM_A_DEV_EXTENT;
		NL_SET_ERR_MSG(extack,
			       "server refused the thin device: the extent must be at least its chunk size (mr-size), and the size within what it may describe (at most 16 times its pool for all thin devices, and 4 MiB of chunk table each)");
	}
	if (ret)
		return ret;
	sess->has_session = true;
	*bad_attr = 0;
	ret = rmem_sess_read_table(sess, extack);
	if (ret)
		return ret;
	/*
	 * a server added to a running device holds none of it: an entry it
	 * says is taken would name memory no extent was given (remote input)
	 */
	if (sess->dev->emap && READ_ONCE(sess->dev->registered) &&
	    !bitmap_full(sess->absent, sess->nr_chunks)) {
		NL_SET_ERR_MSG(extack,
			       "the new server claims memory of the device it was never given");
		return -EPROTO;
	}
	if (sess->dev->emap && !READ_ONCE(sess->dev->registered))
		rmem_emap_load_table(sess);
	for (i = 1; i < sess->dev->nr_queues; i++) {
		ret = rmem_queue_connect(&sess->queues[i], extack);
		if (ret)
			return ret;
	}
	WRITE_ONCE(sess->state, RMEM_DEV_STATE_LIVE);
	/* probes from here: a silent link during the scan is found in time */
	rmem_sess_start_ka(sess);
	rmem_sess_check_queues(sess);
	return 0;
}

/*
 * Open a session, in the newest protocol version, or once more in an
 * older server's.  On error *@bad_attr names the attribute a refusal is
 * about, or is 0.
 */
int rmem_sess_open(struct rmem_sess *sess, int *bad_attr,
		   struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev = sess->dev;
	int ret;

	ret = rmem_sess_connect(sess, bad_attr, extack);
	if (ret == -EPROTONOSUPPORT && sess->version_refused &&
	    dev->cfg.extent) {
		NL_SET_ERR_MSG(extack,
			       "the server speaks rmem protocol version 3: a thin device (extent) needs version 4");
	} else if (ret == -EPROTONOSUPPORT && sess->version_refused) {
		/*
		 * An older server: once more, in the version it speaks, on
		 * the same RDMA device (its limits sized the queues).  The
		 * drain flushed the first READY receive into ctl_done.
		 */
		pr_info("%s: server %pISpc speaks protocol version %u; using it\n",
			dev->name, &sess->peer, sess->version_refused);
		rmem_sess_destroy_queues(sess);
		sess->queues[0].closing = false;
		sess->wire_version = sess->version_refused;
		sess->version_refused = 0;
		rmem_ctl_arm(sess);
		/* not the first attempt's "another protocol version" */
		extack->_msg = NULL;
		ret = rmem_sess_connect(sess, bad_attr, extack);
	}
	return ret;
}

/*
 * Copies of an extent must sit in distinct pools: with replicas, session
 * @i (just opened) must not reach the pool of an earlier one (one server
 * named by two of its addresses).  On error *@bad_attr names the
 * attribute.
 */
int rmem_dev_distinct_pools(struct rmem_dev *dev, unsigned int i,
			    int *bad_attr, struct netlink_ext_ack *extack)
{
	unsigned int k;

	if (dev->cfg.replicas == 1)
		return 0;
	for (k = 0; k < i; k++) {
		/* a drained server may come back (peer add) */
		if (READ_ONCE(dev->sessions[k]->removed))
			continue;
		if (!memcmp(dev->sessions[k]->server_id,
			    dev->sessions[i]->server_id,
			    sizeof(dev->sessions[i]->server_id))) {
			NL_SET_ERR_MSG(extack,
				       "two peers reach the same server (one pool): replicas need distinct servers");
			*bad_attr = RMEM_A_DEV_PEER;
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * rmem_dev_add() - attach remote memory as a new block device
 * @cfg: peer, size, volume, queue pairs, queue depth, name
 * @bad_attr: set to the RMEM_A_DEV_* attribute at fault on error, or 0
 * @extack: error reporting
 * @reply: if not NULL, the new device is described into it
 *
 * The connect and the disk's partition scan wait for the server, for up
 * to a minute (READY): they run without rmem_devs_lock, so that a slow or
 * silent server holds up no other device command and no RDMA device
 * removal.  The device's name is taken (rmem_ida) from the start; it is
 * on the device list, and so seen by commands and by the RDMA device
 * removal callback, only once its disk is registered.  An RDMA device
 * removed meanwhile ends the attach through its queue pairs' events.
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int rmem_dev_add(const struct rmem_dev_cfg *cfg, int *bad_attr,
		 struct netlink_ext_ack *extack, struct sk_buff *reply)
{
	struct rmem_dev *dev;
	bool lost = false;
	unsigned int i;
	int ret;

	*bad_attr = RMEM_A_DEV_NAME;
	dev = rmem_dev_alloc(cfg, extack);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		ret = rmem_sess_open(dev->sessions[i], bad_attr, extack);
		if (!ret)
			ret = rmem_dev_distinct_pools(dev, i, bad_attr, extack);
		if (ret) {
			/* which server, where nothing more precise is known */
			if (i && !*bad_attr && ret != -ENOMEM)
				*bad_attr = RMEM_A_DEV_PEER;
			if (rmem_dev_nr_sess(dev) > 1)
				pr_info("%s: attaching to server %pISpc failed: %d\n",
					dev->name, &dev->sessions[i]->peer, ret);
			goto out_free_dev;
		}
	}
	/* every session proved the host key: no use for it any more */
	memzero_explicit(dev->cfg.key, sizeof(dev->cfg.key));
	ret = rmem_blk_create(dev);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot create the block device");
		goto out_free_dev;
	}
	/*
	 * Reconnects (and I/O held for them) only from here: a loss while
	 * device_add_disk() scanned for partitions made the device dead and
	 * failed the scan's reads, and the attach fails, rather than hold
	 * the attach for a loss timeout.  A loss queued but not yet handled
	 * is taken back and fails the attach too; one being handled is
	 * waited for (dead, or reconnecting as after any attach).  So does
	 * the removal of the RDMA device before this point: its callback,
	 * which clears the device's client data before it takes
	 * rmem_devs_lock, did not see this device, and a dead device would
	 * keep its ids, and the removal waiting for them, until dev del.
	 * That check comes before registered is set: until then no loss
	 * queues a reconnect, whose teardown could let go of dev->ibdev.
	 */
	mutex_lock(&rmem_devs_lock);
	list_add_tail(&dev->node, &rmem_devs);
	if (!rmem_client_ibdev_usable(dev->ibdev)) {
		NL_SET_ERR_MSG(extack,
			       "the RDMA device went away while adding the disk");
		rmem_dev_destroy(dev, true, true);
		mutex_unlock(&rmem_devs_lock);
		return -ENODEV;
	}
	WRITE_ONCE(dev->registered, true);
	/* any server lost: one dead from the start is never back */
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		lost |= cancel_work_sync(&dev->sessions[i]->fail_work) ||
			READ_ONCE(dev->sessions[i]->state) ==
			RMEM_DEV_STATE_DEAD;
	if (lost) {
		NL_SET_ERR_MSG(extack,
			       "lost the connection to the server while adding the disk");
		/* the server holds the session for a reconnect: release it */
		rmem_dev_destroy(dev, true, true);
		mutex_unlock(&rmem_devs_lock);
		return -ECONNRESET;
	}
	for (i = 1; i < rmem_dev_nr_sess(dev); i++)
		pr_info("%s: also over %pISpc, %llu KiB chunks, %s\n",
			dev->name, &dev->sessions[i]->peer,
			dev->sessions[i]->chunk_size >> 10,
			dev->sessions[i]->proven ? "authenticated" :
						   "not authenticated");
	pr_info("%s: %llu MiB at %pISpc%s%s, %u queue pairs, queue depth %u, %llu KiB chunks, %s\n",
		dev->name, dev->cfg.size >> 20, &dev->sess->peer,
		dev->cfg.volume[0] ? ", volume " : "", dev->cfg.volume,
		dev->nr_queues, dev->cfg.queue_depth,
		dev->sess->chunk_size >> 10,
		dev->sess->proven ? "authenticated" : "not authenticated");
	rmem_dev_announce(dev);
	if (reply)
		ret = rmem_nl_put_dev(reply, dev);
	mutex_unlock(&rmem_devs_lock);
	return ret;

out_free_dev:
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		WRITE_ONCE(dev->sessions[i]->state, RMEM_DEV_STATE_DEAD);
	/*
	 * The ids and the RDMA device first: its removal may wait for them
	 * (LEAVE needs neither: no queue pair, signed by the CPU).
	 */
	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		rmem_sess_recovery_stop(dev->sessions[i]);
		rmem_sess_destroy_queues(dev->sessions[i]);
	}
	rmem_dev_release_ib(dev);
	/* if READY came, the server holds the session for a reconnect */
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		rmem_sess_leave(dev->sessions[i]);
	rmem_dev_free(dev);
	return ret;
}

/*
 * Detach: with @force, outstanding I/O fails rather than waits; with
 * @leave, the server is told the session is over even if the device is
 * not live (it may hold the session for a reconnect).
 */
static void rmem_dev_destroy(struct rmem_dev *dev, bool force, bool leave)
{
	unsigned long live = 0;
	unsigned int i;

	list_del(&dev->node);
	/*
	 * Live as this exchange found it: a reconnect that made the device
	 * live just before has the server's session back, and only LEAVE
	 * ends it before its hold time (one that finds the device deleting
	 * ends it itself, rmem_sess_reconnected_late()).
	 */
	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		if (xchg(&sess->state, RMEM_DEV_STATE_DELETING) ==
		    RMEM_DEV_STATE_LIVE)
			live |= BIT(i);
	}
	rmem_dev_announce(dev);
	/* a drain's removal ends (it finds the sessions deleting) */
	cancel_work_sync(&dev->drain_work);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		rmem_sess_recovery_stop(dev->sessions[i]);
	/* requests held for a reconnect, or for an extent, fail now */
	rmem_dev_resume_io(dev);
	rmem_emap_stop(dev);
	/* the extent worker, stopped, may have queued it again */
	cancel_work_sync(&dev->drain_work);
	/* with force, a dead peer must not hold del_gendisk up */
	if (force)
		for (i = 0; i < rmem_dev_nr_sess(dev); i++)
			rmem_sess_abort_queues(dev->sessions[i]);
	rmem_blk_remove(dev);
	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		if (((live & BIT(i)) || leave) && !dev->sessions[i]->removed)
			rmem_sess_leave(dev->sessions[i]);
	pr_info("%s: detached\n", dev->name);
	rmem_dev_free(dev);
}

/**
 * rmem_dev_del() - detach and remove a device
 * @name: rmemN
 * @force: remove even while open; outstanding I/O fails
 * @extack: error reporting
 *
 * Return: 0, -ENODEV, or -EBUSY if open and not @force, or while a server
 * is being added to it (rmem_dev_peer_add()).
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
	/* the add's connect uses the device, without rmem_devs_lock */
	if (dev->adding) {
		mutex_unlock(&rmem_devs_lock);
		NL_SET_ERR_MSG(extack,
			       "a server is being added to the device (peer add): delete it once that ends");
		return -EBUSY;
	}
	if (!force && disk_openers(dev->disk)) {
		mutex_unlock(&rmem_devs_lock);
		NL_SET_ERR_MSG(extack,
			       "device is in use (mounted or open); use force to remove it anyway");
		return -EBUSY;
	}
	rmem_dev_destroy(dev, force, false);
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
		rmem_dev_destroy(dev, true, false);
	mutex_unlock(&rmem_devs_lock);
}

/* The counters of all queues and the device, summed, since the attach. */
static void rmem_dev_stats_sum(struct rmem_dev *dev, struct rmem_stats *st)
{
	unsigned int i, d, b;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < rmem_dev_nr_sess(dev) * dev->nr_queues; i++) {
		const struct rmem_stats *q = &dev->queue_io[i].stats;

		st->reads += READ_ONCE(q->reads);
		st->read_bytes += READ_ONCE(q->read_bytes);
		st->writes += READ_ONCE(q->writes);
		st->write_bytes += READ_ONCE(q->write_bytes);
		st->zeroes += READ_ONCE(q->zeroes);
		for (d = 0; d < RMEM_LAT_DIRS; d++) {
			for (b = 0; b < RMEM_LAT_BUCKETS; b++)
				st->lat[d][b] += READ_ONCE(q->lat[d][b]);
			st->lat_max_ns[d] = max(st->lat_max_ns[d],
						READ_ONCE(q->lat_max_ns[d]));
		}
	}
	st->errors = atomic64_read(&dev->errors);
	st->discards = atomic64_read(&dev->discards);
	st->discard_bytes = atomic64_read(&dev->discard_bytes);
}

/* @v minus @base, 0 rather than wrapped (a reset seen half done) */
static void rmem_stat_sub(u64 *v, u64 base)
{
	*v = *v > base ? *v - base : 0;
}

/**
 * rmem_dev_stats() - the counters of a device since its last reset
 * @dev: the device
 * @st: filled in
 *
 * Without rmem_devs_lock (a state notification), a reset at the same
 * moment may show half done.
 */
void rmem_dev_stats(struct rmem_dev *dev, struct rmem_stats *st)
{
	const struct rmem_stats *base = &dev->stats_base;
	unsigned int d, b;

	rmem_dev_stats_sum(dev, st);
	rmem_stat_sub(&st->reads, base->reads);
	rmem_stat_sub(&st->read_bytes, base->read_bytes);
	rmem_stat_sub(&st->writes, base->writes);
	rmem_stat_sub(&st->write_bytes, base->write_bytes);
	rmem_stat_sub(&st->zeroes, base->zeroes);
	rmem_stat_sub(&st->errors, base->errors);
	rmem_stat_sub(&st->discards, base->discards);
	rmem_stat_sub(&st->discard_bytes, base->discard_bytes);
	for (d = 0; d < RMEM_LAT_DIRS; d++)
		for (b = 0; b < RMEM_LAT_BUCKETS; b++)
			rmem_stat_sub(&st->lat[d][b], base->lat[d][b]);
}

/**
 * rmem_dev_stats_reset() - start a device's counters from zero
 * @name: the device
 * @extack: error reporting
 *
 * The counters are never written here (their queues update them without
 * a lock): the sums now become the base later reports subtract.  The
 * longest latencies are cleared in place; one that a completion sets at
 * the same moment may survive the reset.
 *
 * Return: 0 or -ENODEV.
 */
int rmem_dev_stats_reset(const char *name, struct netlink_ext_ack *extack)
{
	struct rmem_stats base;
	struct rmem_dev *dev;
	unsigned int i, d;

	mutex_lock(&rmem_devs_lock);
	dev = rmem_dev_find(name);
	if (!dev) {
		mutex_unlock(&rmem_devs_lock);
		NL_SET_ERR_MSG(extack, "no such device");
		return -ENODEV;
	}
	/* the longest first: a request counted after it is kept whole */
	for (i = 0; i < rmem_dev_nr_sess(dev) * dev->nr_queues; i++)
		for (d = 0; d < RMEM_LAT_DIRS; d++)
			WRITE_ONCE(dev->queue_io[i].stats.lat_max_ns[d], 0);
	/* summed aside, then copied: a notification never sees it zeroed */
	rmem_dev_stats_sum(dev, &base);
	dev->stats_base = base;
	mutex_unlock(&rmem_devs_lock);
	return 0;
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

static struct ib_client rmem_ib_client;

/* The client data of an RDMA device rmem may use; NULL once it goes. */
static int rmem_ibdev_usable;

static int rmem_client_ib_add(struct ib_device *ibdev)
{
	ib_set_client_data(ibdev, &rmem_ib_client, &rmem_ibdev_usable);
	return 0;
}

/**
 * rmem_client_ibdev_usable() - whether a device may take an RDMA device
 * @ibdev: the RDMA device a route leads to
 *
 * Not one being removed: rdma_cm still routes over it until its own
 * removal, after rmem's, and a PD taken then would hold the removal up.
 *
 * Return: true if @ibdev is not going away.
 */
bool rmem_client_ibdev_usable(struct ib_device *ibdev)
{
	return ib_get_client_data(ibdev, &rmem_ib_client) == &rmem_ibdev_usable;
}

/*
 * An RDMA device is being removed (rdma link del, driver unbind, a NIC
 * reset): every device using it lets go of it before this returns, or
 * the removal would wait for ever.  Called before rdma_cm's own removal
 * (clients go in reverse order of registration).
 */
static void rmem_client_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct rmem_dev *dev;

	/* first: no reconnect attempt may take it again */
	ib_set_client_data(ibdev, &rmem_ib_client, NULL);
	mutex_lock(&rmem_devs_lock);
	list_for_each_entry(dev, &rmem_devs, node) {
		if (dev->ibdev != ibdev)
			continue;
		pr_warn("%s: RDMA device %s is being removed\n", dev->name,
			dev_name(&ibdev->dev));
		rmem_dev_ib_removed(dev, ibdev);
	}
	mutex_unlock(&rmem_devs_lock);
}

static struct ib_client rmem_ib_client = {
	.name = "rmem-client",
	.add = rmem_client_ib_add,
	.remove = rmem_client_ib_remove,
};

/**
 * rmem_client_init() - set up the client role
 *
 * Return: 0 or a negative errno.
 */
int rmem_client_init(void)
{
	int ret;

	ret = rmem_blk_init();
	if (ret)
		return ret;
	ret = ib_register_client(&rmem_ib_client);
	if (ret)
		rmem_blk_exit();
	return ret;
}

/**
 * rmem_client_exit() - remove every device and the block major
 */
void rmem_client_exit(void)
{
	rmem_dev_del_all();
	ib_unregister_client(&rmem_ib_client);
	rmem_blk_exit();
}
