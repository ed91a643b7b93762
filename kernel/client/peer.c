// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: adding a server to a running device
 * (RMEM_CMD_DEV_PEER_ADD; Documentation/multi-server.rst, "Peer add").
 *
 * Only a device attached over several servers takes one more: its request
 * limits (a request within one extent, no write-zeroes, no polled queues)
 * and its queue arrays (room for RMEM_MAX_PEERS sessions) were made for
 * that at attach.  The new session takes the next index of the device's
 * session array: replica words name sessions by index, and a drained
 * session keeps its own, so a device has RMEM_MAX_PEERS servers in all,
 * drained ones included.
 *
 * The session connects as dev add's do, without rmem_devs_lock (a slow
 * or silent server holds up no other command, and no RDMA device
 * removal, whose own event ends the connect).  The device stays meanwhile:
 * dev del refuses while a server is being added (@adding), the removal
 * callback neither frees the device nor, while the add's ids may use it,
 * its PD, and module unload waits for the netlink call.  Until it is
 * live the session is not counted (rmem_dev_nr_sess()): no request,
 * placement, resync, drain or listing sees it, but the RDMA device's
 * setup and release map and unmap its buffers with the others'
 * (rmem_dev_nr_slots()).  Its own handlers may
 * run the loss path on it meanwhile (a lost queue pair, a probe); the
 * add then fails it.  Once live it is counted, with a release the
 * readers' acquire pairs with, and new extents and resyncs may go there
 * (placement prefers servers that have reported their free memory).
 */
#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/sched/mm.h>
#include "client.h"
#include "extent.h"
#include "auth.h"

/*
 * The host key for the new server of a device that authenticates (it was
 * attached with a key; each of its servers then wants one): the one given,
 * or the keyring's for its address, or else for the device's first
 * server's (dev add's, used for all its servers).  Not under
 * rmem_devs_lock: the keyring lookup may wait.  Return: 0 or a negative
 * errno.
 */
static int rmem_peer_add_key(const struct sockaddr_storage *addr,
			     const struct sockaddr_storage *first,
			     const u8 *key, u8 *out,
			     struct netlink_ext_ack *extack)
{
	char desc[64];
	int ret;

	if (key) {
		memcpy(out, key, RMEM_KEY_LEN);
		return 0;
	}
	snprintf(desc, sizeof(desc), "rmem:%pISc", addr);
	ret = rmem_key_lookup(desc, out);
	if (ret == -ENOKEY) {
		snprintf(desc, sizeof(desc), "rmem:%pISc", first);
		ret = rmem_key_lookup(desc, out);
	}
	if (!ret && !rmem_key_ok(out))
		ret = -EINVAL;
	if (ret) {
		memzero_explicit(out, RMEM_KEY_LEN);
		NL_SET_ERR_MSG(extack,
			       "the device authenticates to its servers: give the key (key-file, key-desc) or put a usable rmem:ADDR key in the keyring");
		return ret == -ENOMEM ? ret : -ENOKEY;
	}
	return 0;
}

/*
 * Which attribute a failed add's error is about, where the failure knows
 * (the key; a key the device's servers want and the request lacks).
 */
static void rmem_peer_add_blame(int ret, bool has_key, int bad_attr,
				const struct rmem_peer_add_attrs *at,
				struct netlink_ext_ack *extack)
{
	if (extack->bad_attr)
		return;
	if (ret == -ENOKEY && has_key && !at->key)
		NL_SET_ERR_ATTR_MISS(extack, at->nest, RMEM_A_DEV_KEY);
	else if ((bad_attr == RMEM_A_DEV_KEY || ret == -EKEYREJECTED) &&
		 at->key)
		NL_SET_BAD_ATTR(extack, at->key);
}

/* Whether @dev can take a server at @addr now. */
static int rmem_peer_add_check(struct rmem_dev *dev,
			       const struct sockaddr_storage *addr,
			       const struct rmem_peer_add_attrs *at,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *attr = at->peer;
	enum rmem_dev_state st = rmem_dev_state(dev);
	unsigned int i;

	if (!dev->emap || rmem_dev_nr_sess(dev) == 1) {
		NL_SET_ERR_MSG_ATTR(extack, at->name,
				    "only a device attached over several servers (peer given twice or more) takes another");
		return -EOPNOTSUPP;
	}
	if (st == RMEM_DEV_STATE_DEAD || st == RMEM_DEV_STATE_DELETING) {
		NL_SET_ERR_MSG_ATTR(extack, at->name,
				    "the device is dead or being deleted");
		return -ENODEV;
	}
	if (dev->adding) {
		NL_SET_ERR_MSG_ATTR(extack, at->name,
				    "a server is being added to the device already: one at a time");
		return -EBUSY;
	}
	if (at->key && !dev->cfg.has_key) {
		NL_SET_ERR_MSG_ATTR(extack, at->key,
				    "the device was attached without a key: its servers take none");
		return -EINVAL;
	}
	if (rmem_dev_nr_sess(dev) == RMEM_MAX_PEERS) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the device has had as many servers as it may (drained ones count)");
		return -ENOSPC;
	}
	for (i = 0; i < rmem_dev_nr_sess(dev); i++) {
		struct rmem_sess *sess = dev->sessions[i];

		if (!READ_ONCE(sess->removed) &&
		    rmem_addr_same_host(&sess->peer,
					(const struct sockaddr *)addr) &&
		    rmem_addr_port(&sess->peer) == rmem_addr_port(addr)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "the device has that server already");
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * The new session must take the device's requests as they are: a request
 * is at most the smallest chunk of the servers it was sized for, and may
 * cross one chunk boundary only (rmem_blk_limits()).
 */
static int rmem_peer_add_fits(struct rmem_dev *dev, struct rmem_sess *sess,
			      const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	u64 chunk = U64_MAX;
	unsigned int i;

	for (i = 0; i < rmem_dev_nr_sess(dev); i++)
		chunk = min(chunk, dev->sessions[i]->chunk_size);
	if (sess->chunk_size < chunk) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "the server's chunks (mr-size) are smaller than the device's other servers': it cannot take the device's requests");
		return -EINVAL;
	}
	return 0;
}

/*
 * Connect the session in the device's adding slot.  Return: 0 once it is
 * live, or a negative errno with an extack message.
 */
static int rmem_peer_add_connect(struct rmem_dev *dev, struct rmem_sess *sess,
				 const u8 *key, int *bad_attr,
				 const struct nlattr *attr,
				 struct netlink_ext_ack *extack)
{
	int ret;

	/* the handshake proves the key and wipes nothing: done below */
	memcpy(dev->cfg.key, key, RMEM_KEY_LEN);
	ret = rmem_sess_open(sess, bad_attr, extack);
	memzero_explicit(dev->cfg.key, sizeof(dev->cfg.key));
	if (!ret)
		ret = rmem_dev_distinct_pools(dev, sess->index, bad_attr,
					      extack);
	if (!ret)
		ret = rmem_peer_add_fits(dev, sess, attr, extack);
	return ret;
}

/*
 * Whether the session, connected, may join the device now.  Context:
 * rmem_devs_lock held.  Return: 0 or a negative errno, with a message.
 */
static int rmem_peer_add_still(struct rmem_dev *dev, struct rmem_sess *sess,
			       const struct nlattr *attr,
			       struct netlink_ext_ack *extack)
{
	bool usable;

	mutex_lock(&dev->ib_lock);
	usable = dev->ibdev && rmem_client_ibdev_usable(dev->ibdev);
	mutex_unlock(&dev->ib_lock);
	if (!usable) {
		NL_SET_ERR_MSG(extack,
			       "the RDMA device went away while adding the server");
		return -ENODEV;
	}
	if (READ_ONCE(sess->state) != RMEM_DEV_STATE_LIVE) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "lost the connection to the server while adding it");
		return -ECONNRESET;
	}
	return 0;
}

/*
 * Wait for the new server's first free-memory report (its probe's, one
 * keepalive interval after the connect; a few seconds at most), so that
 * placement and a drain's room check count it from the start.
 */
static void rmem_peer_add_first_report(struct rmem_sess *sess)
{
	unsigned int ms = min(RMEM_KA_MISSES * sess->dev->cfg.keepalive_ms,
			      5000U), t;

	for (t = 0; t < ms && READ_ONCE(sess->server_free) == U64_MAX &&
	     READ_ONCE(sess->state) == RMEM_DEV_STATE_LIVE; t += 20)
		msleep(20);
}

/*
 * A failed add: the session, not counted, is known only to this thread
 * and its own handlers and work.  Context: no lock held.
 */
static void rmem_peer_add_drop(struct rmem_dev *dev, struct rmem_sess *sess,
			       int ret)
{
	/* an RDMA device's removal may wait for this: no reclaim through I/O */
	unsigned int noio = memalloc_noio_save();

	pr_info("%s: adding server %pISpc failed: %d\n", dev->name,
		&sess->peer, ret);
	WRITE_ONCE(sess->state, RMEM_DEV_STATE_DEAD);
	rmem_sess_recovery_stop(sess);
	rmem_sess_destroy_queues(sess);
	/* no handler is left to queue a loss (as rmem_dev_free()) */
	cancel_work_sync(&sess->fail_work);
	mutex_lock(&rmem_devs_lock);
	rmem_dev_slot_end(dev, false);
	/* the RDMA device may be going away: the last of its ids is gone */
	rmem_dev_drop_removed_ib(dev);
	mutex_unlock(&rmem_devs_lock);
	/* if READY came, the server holds the session for a reconnect */
	rmem_sess_leave(sess);
	rmem_sess_free(sess);
	memalloc_noio_restore(noio);
}

/**
 * rmem_dev_peer_add() - add a server to a running device
 * @name: rmemN
 * @addr: the server's address and port
 * @key: the host key given for it, or NULL (the keyring's then, if the
 *	device authenticates)
 * @at: the request's attributes, for errors
 * @extack: error reporting
 *
 * Connects a new session to the server, as dev add does, and makes it one
 * of the device's: new extents may be placed there, and degraded ones
 * resync there, from then on.
 *
 * Context: process; takes rmem_devs_lock, but not for the connect nor for
 * a failed add's teardown (and its LEAVE).
 * Return: 0 once the server is live in the device, or -ENODEV, -EEXIST,
 * -EBUSY (an add under way), -EOPNOTSUPP (one server: not a device over
 * several), -ENOSPC (no index left), -EINVAL, -ENOKEY, -ENOMEM, -EPROTO,
 * or the connect's error, with an extack message.
 */
int rmem_dev_peer_add(const char *name, const struct sockaddr_storage *addr,
		      const u8 *key, const struct rmem_peer_add_attrs *at,
		      struct netlink_ext_ack *extack)
{
	struct sockaddr_storage first;
	u8 host_key[RMEM_KEY_LEN] = {};
	struct rmem_sess *sess;
	struct rmem_dev *dev;
	int bad_attr = 0, ret;
	bool has_key;

	mutex_lock(&rmem_devs_lock);
	dev = rmem_dev_find(name);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, at->name, "no such device");
		ret = -ENODEV;
		goto out_unlock;
	}
	ret = rmem_peer_add_check(dev, addr, at, extack);
	if (ret)
		goto out_unlock;
	has_key = dev->cfg.has_key;
	first = dev->cfg.peers[0];
	ret = -ENOMEM;
	sess = rmem_sess_alloc(dev, addr, dev->nr_sess);
	if (!sess)
		goto out_nomem;
	if (rmem_sess_ext_init(sess))
		goto out_free_sess;
	ret = rmem_dev_slot_add(dev, sess);
	if (ret) {
		NL_SET_ERR_MSG(extack, "cannot map the new session's buffers");
		goto out_free_sess;
	}
	mutex_unlock(&rmem_devs_lock);

	/* the device stays: see the head of this file */
	ret = has_key ? rmem_peer_add_key(addr, &first, key, host_key,
					  extack) : 0;
	if (!ret)
		ret = rmem_peer_add_connect(dev, sess, host_key, &bad_attr,
					    at->peer, extack);
	memzero_explicit(host_key, sizeof(host_key));
	if (!ret && dev->cfg.keepalive_ms)
		rmem_peer_add_first_report(sess);
	mutex_lock(&rmem_devs_lock);
	if (!ret)
		ret = rmem_peer_add_still(dev, sess, at->peer, extack);
	if (ret) {
		mutex_unlock(&rmem_devs_lock);
		rmem_peer_add_blame(ret, has_key, bad_attr, at, extack);
		rmem_peer_add_drop(dev, sess, ret);
		return ret;
	}
	rmem_dev_slot_end(dev, true);
	pr_info("%s: server %pISpc added, %llu KiB chunks, %s\n", dev->name,
		&sess->peer, sess->chunk_size >> 10,
		sess->proven ? "authenticated" : "not authenticated");
	rmem_dev_announce(dev);
	/* degraded extents may resync there now */
	rmem_emap_kick(dev);
	goto out_unlock;

out_free_sess:
	rmem_sess_free(sess);
out_nomem:
	if (ret == -ENOMEM && !extack->_msg)
		NL_SET_ERR_MSG(extack, "out of memory adding the server");
out_unlock:
	mutex_unlock(&rmem_devs_lock);
	return ret;
}
