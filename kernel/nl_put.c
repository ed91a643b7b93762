// SPDX-License-Identifier: GPL-2.0
/*
 * rmem: encoding servers, volumes and devices into netlink messages, for
 * GET replies, dumps, ADD replies and events.
 */
#include <net/genetlink.h>
#include <linux/rmem.h>

#include "client/client.h"
#include "rmem.h"
#include "server/server.h"

/**
 * rmem_msg_put() - start a message of the rmem family
 * @skb: message buffer
 * @m: header values
 *
 * Return: the user header, or NULL if @skb is full.
 */
void *rmem_msg_put(struct sk_buff *skb, const struct rmem_msg *m)
{
	return genlmsg_put(skb, m->portid, m->seq, &rmem_nl_family, m->flags,
			   m->cmd);
}

/**
 * rmem_nl_put_addr() - put an address as an IPv4 or IPv6 attribute
 * @skb: message
 * @v4type: attribute type for IPv4
 * @v6type: attribute type for IPv6
 * @ss: the address
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_nl_put_addr(struct sk_buff *skb, int v4type, int v6type,
		     const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return nla_put_in_addr(skb, v4type,
				       ((struct sockaddr_in *)ss)->sin_addr.s_addr);
	if (ss->ss_family == AF_INET6)
		return nla_put_in6_addr(skb, v6type,
					&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

/*
 * The host entries, then the clients (authenticated sessions) of @srv,
 * from the @*from-th on, as many as fit; @*from moves past them.  Return:
 * 0 when all are in, -EMSGSIZE when some are left for another message.
 * Called with srv->lock held.
 */
static int rmem_server_put_clients(struct sk_buff *skb,
				   struct rmem_server *srv, unsigned long *from)
{
	struct rmem_session *sess;
	struct rmem_host *h;
	struct nlattr *nest;
	unsigned int i, qps;
	unsigned long n = 0;

	list_for_each_entry(h, &srv->hosts, node) {
		if (n++ < *from)
			continue;
		if (rmem_server_put_host(skb, srv, h))
			return -EMSGSIZE;
		(*from)++;
	}
	list_for_each_entry(sess, &srv->sessions, node) {
		/* handshakes are not clients (RMEM_A_SERVER_HANDSHAKES) */
		if (sess->dead || !sess->authed)
			continue;
		if (n++ < *from)
			continue;
		for (i = 0, qps = 0; i < sess->nr_qps; i++)
			qps += !!sess->conns[i];
		nest = nla_nest_start(skb, RMEM_A_SERVER_CLIENT);
		if (!nest)
			return -EMSGSIZE;
		if (rmem_nl_put_addr(skb, RMEM_A_CLIENT_IPV4, RMEM_A_CLIENT_IPV6,
				     &sess->peer) ||
		    nla_put_u16(skb, RMEM_A_CLIENT_PORT,
				rmem_addr_port(&sess->peer)) ||
		    nla_put_u64_64bit(skb, RMEM_A_CLIENT_SIZE, sess->size,
				      RMEM_A_CLIENT_PAD) ||
		    (sess->volume_name[0] &&
		     nla_put_string(skb, RMEM_A_CLIENT_VOLUME, sess->volume_name)) ||
		    (sess->host_id[0] &&
		     nla_put_string(skb, RMEM_A_CLIENT_HOST_ID, sess->host_id)) ||
		    nla_put_u8(skb, RMEM_A_CLIENT_AUTH, sess->proven) ||
		    nla_put_u32(skb, RMEM_A_CLIENT_QPS, qps)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
		(*from)++;
	}
	return 0;
}

/**
 * rmem_server_put_part() - describe a server, or the rest of its clients
 * @skb: message
 * @srv: the server
 * @from: host entries and clients already described (0: none, describe
 *	the server too);
 *	moved past the clients this nest holds
 *
 * A server with many host entries and clients takes several messages:
 * the first nest has the server's attributes and the entries and clients
 * that fit, the next ones only its name and more of them.
 *
 * Return: 0 when the nest ends the server, -EAGAIN when clients are left
 * for another message, -EMSGSIZE when nothing fitted, -ENODATA when no
 * client is left to describe (sessions ended since: nothing was put).
 */
int rmem_server_put_part(struct sk_buff *skb, struct rmem_server *srv,
			 unsigned long *from)
{
	unsigned long start = *from;
	struct nlattr *nest;
	int ret;

	if (!start)
		return rmem_server_put(skb, srv, from);
	nest = nla_nest_start(skb, RMEM_A_SERVER);
	if (!nest)
		return -EMSGSIZE;
	mutex_lock(&srv->lock);
	if (nla_put_string(skb, RMEM_A_SERVER_NAME, srv->name)) {
		ret = -EMSGSIZE;
		goto out_unlock;
	}
	ret = rmem_server_put_clients(skb, srv, from);
	if (*from == start) {
		/* a nest with only a name would read as a server */
		ret = ret ?: -ENODATA;
		goto out_unlock;
	}
	nla_nest_end(skb, nest);
	ret = ret ? -EAGAIN : 0;
out_unlock:
	mutex_unlock(&srv->lock);
	if (ret == -EMSGSIZE || ret == -ENODATA)
		nla_nest_cancel(skb, nest);
	return ret;
}

/**
 * rmem_server_put() - describe a server in an RMEM_A_SERVER nest
 * @skb: message
 * @srv: the server
 * @from: if not NULL, the number of host entries and clients described
 *	is stored here and those that do not fit are left out (-EAGAIN); if
 *	NULL, all of them must fit
 *
 * Return: 0, -EAGAIN (see @from) or -EMSGSIZE.
 */
int rmem_server_put(struct sk_buff *skb, struct rmem_server *srv,
		    unsigned long *from)
{
	unsigned long n = 0;
	struct nlattr *nest, *p;
	unsigned int i;
	int ret = -EMSGSIZE;

	nest = nla_nest_start(skb, RMEM_A_SERVER);
	if (!nest)
		return -EMSGSIZE;
	mutex_lock(&srv->lock);
	if (nla_put_string(skb, RMEM_A_SERVER_NAME, srv->name) ||
	    rmem_nl_put_addr(skb, RMEM_A_SERVER_LISTEN_IPV4,
			     RMEM_A_SERVER_LISTEN_IPV6, &srv->addr) ||
	    nla_put_u16(skb, RMEM_A_SERVER_LISTEN_PORT,
			rmem_addr_port(&srv->addr)) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_POOL_SIZE,
			      (u64)srv->nr_chunks << srv->chunk_shift,
			      RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_MR_SIZE, srv->chunk_size,
			      RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_MR_PAGE_SIZE,
			      PAGE_SIZE << srv->block_order, RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_USED,
			      (u64)(srv->nr_chunks - srv->nr_free) << srv->chunk_shift,
			      RMEM_A_SERVER_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_SERVER_DIRTY,
			      (u64)srv->nr_dirty << srv->chunk_shift,
			      RMEM_A_SERVER_PAD) ||
	    nla_put(skb, RMEM_A_SERVER_ID, sizeof(srv->id), srv->id) ||
	    nla_put_u32(skb, RMEM_A_SERVER_AUTH, rmem_server_auth(srv)) ||
	    (!srv->auth && nla_put_flag(skb, RMEM_A_SERVER_AUTH_AUTO)) ||
	    nla_put_u32(skb, RMEM_A_SERVER_HANDSHAKES, srv->nr_hs))
		goto out_unlock;
	for (i = 0; i < srv->nr_allow; i++) {
		p = nla_nest_start(skb, RMEM_A_SERVER_ALLOW);
		if (!p || rmem_nl_put_addr(skb, RMEM_A_PREFIX_IPV4,
					   RMEM_A_PREFIX_IPV6,
					   &srv->allow[i].addr) ||
		    nla_put_u8(skb, RMEM_A_PREFIX_LEN, srv->allow[i].len))
			goto out_unlock;
		nla_nest_end(skb, p);
	}
	ret = rmem_server_put_clients(skb, srv, &n);
	if (ret && (!from || !n)) {
		ret = -EMSGSIZE;
		goto out_unlock;
	}
	if (from)
		*from = n;
	ret = ret ? -EAGAIN : 0;
	nla_nest_end(skb, nest);
out_unlock:
	mutex_unlock(&srv->lock);
	if (ret == -EMSGSIZE)
		nla_nest_cancel(skb, nest);
	return ret;
}

/**
 * rmem_server_put_msg() - a whole message describing a server
 * @skb: message buffer
 * @m: header values
 * @srv: the server
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_server_put_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_server *srv)
{
	void *hdr = rmem_msg_put(skb, m);

	if (!hdr)
		return -EMSGSIZE;
	if (rmem_server_put(skb, srv, NULL)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * rmem_volume_put_msg() - a whole message describing a volume
 * @skb: message buffer
 * @m: header values
 * @srv: its server
 * @vol: the volume
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_volume_put_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_server *srv, struct rmem_volume *vol)
{
	void *hdr = rmem_msg_put(skb, m);
	struct nlattr *nest;

	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, RMEM_A_VOLUME);
	if (!nest ||
	    nla_put_string(skb, RMEM_A_VOLUME_SERVER, srv->name) ||
	    nla_put_string(skb, RMEM_A_VOLUME_NAME, vol->name) ||
	    nla_put_u64_64bit(skb, RMEM_A_VOLUME_SIZE, vol->size,
			      RMEM_A_VOLUME_PAD) ||
	    nla_put_u8(skb, RMEM_A_VOLUME_BUSY, !!vol->owner) ||
	    nla_put_u64_64bit(skb, RMEM_A_VOLUME_GENERATION, vol->generation,
			      RMEM_A_VOLUME_PAD) ||
	    (vol->owner_id[0] &&
	     nla_put_string(skb, RMEM_A_VOLUME_OWNER, vol->owner_id)) ||
	    nla_put_u8(skb, RMEM_A_VOLUME_OWNER_AUTH, vol->owner_proven)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/* One latency histogram, a nest of &enum rmem_a_lat. */
static int rmem_nl_put_lat(struct sk_buff *skb, int type,
			   const struct rmem_stats *st, enum rmem_lat_dir d)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	unsigned int b;

	if (!nest)
		return -EMSGSIZE;
	for (b = 0; b < RMEM_LAT_BUCKETS; b++)
		if (nla_put_u64_64bit(skb, RMEM_A_LAT_BUCKET, st->lat[d][b],
				      RMEM_A_LAT_PAD))
			goto out_cancel;
	if (nla_put_u64_64bit(skb, RMEM_A_LAT_MAX_NS, st->lat_max_ns[d],
			      RMEM_A_LAT_PAD))
		goto out_cancel;
	nla_nest_end(skb, nest);
	return 0;

out_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* One server of a device over several: an RMEM_A_DEV_PEER nest. */
static int rmem_nl_put_peer(struct sk_buff *skb, struct rmem_dev *dev,
			    struct rmem_sess *sess)
{
	enum rmem_dev_state state = READ_ONCE(sess->state);
	/* only while live: a lost connection's last reading may be stale */
	u64 free = state == RMEM_DEV_STATE_LIVE ?
		   READ_ONCE(sess->server_free) : U64_MAX;
	struct nlattr *nest = nla_nest_start(skb, RMEM_A_DEV_PEER);

	if (!nest)
		return -EMSGSIZE;
	if (rmem_nl_put_addr(skb, RMEM_A_PEER_IPV4, RMEM_A_PEER_IPV6,
			     &sess->peer) ||
	    nla_put_u16(skb, RMEM_A_PEER_PORT, rmem_addr_port(&sess->peer)) ||
	    nla_put_u32(skb, RMEM_A_PEER_STATE, state) ||
	    (free != U64_MAX &&
	     nla_put_u64_64bit(skb, RMEM_A_PEER_SERVER_FREE, free,
			       RMEM_A_PEER_PAD)) ||
	    nla_put_u32(skb, RMEM_A_PEER_EXTENTS_HELD,
			rmem_emap_held_by(dev, sess)) ||
	    nla_put_u32(skb, RMEM_A_PEER_RECONNECTS,
			READ_ONCE(sess->reconnects)) ||
	    (READ_ONCE(sess->draining) &&
	     nla_put_flag(skb, RMEM_A_PEER_DRAINING)) ||
	    (sess->server_name[0] &&
	     nla_put_string(skb, RMEM_A_PEER_SERVER_NAME, sess->server_name))) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * rmem_nl_put_dev() - describe a device in an RMEM_A_DEV nest
 * @skb: message
 * @dev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_nl_put_dev(struct sk_buff *skb, struct rmem_dev *dev)
{
	/* the device-level server: the first one not drained away */
	struct rmem_sess *first = rmem_dev_first(dev);
	unsigned int granted = READ_ONCE(first->read_depth);
	/*
	 * only while that server is live: a lost connection's last
	 * reading may be stale (with replicas the device may be live
	 * while that server is dead)
	 */
	u64 server_free = READ_ONCE(first->state) == RMEM_DEV_STATE_LIVE ?
			  READ_ONCE(first->server_free) : U64_MAX;
	struct rmem_stats st;
	struct nlattr *nest, *sn;
	unsigned int i;

	rmem_dev_stats(dev, &st);
	nest = nla_nest_start(skb, RMEM_A_DEV);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, RMEM_A_DEV_NAME, dev->name) ||
	    rmem_nl_put_addr(skb, RMEM_A_DEV_PEER_IPV4, RMEM_A_DEV_PEER_IPV6,
			     &first->peer) ||
	    nla_put_u16(skb, RMEM_A_DEV_PEER_PORT,
			rmem_addr_port(&first->peer)) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_SIZE, dev->cfg.size,
			      RMEM_A_DEV_PAD) ||
	    (dev->cfg.volume[0] &&
	     nla_put_string(skb, RMEM_A_DEV_VOLUME, dev->cfg.volume)) ||
	    nla_put_u32(skb, RMEM_A_DEV_QPS, dev->nr_queues - dev->nr_poll) ||
	    nla_put_u32(skb, RMEM_A_DEV_POLL_QPS, dev->nr_poll) ||
	    nla_put_u32(skb, RMEM_A_DEV_KEEPALIVE_MS, dev->cfg.keepalive_ms) ||
	    nla_put_u32(skb, RMEM_A_DEV_LOSS_TIMEOUT_MS,
			dev->cfg.loss_timeout_ms) ||
	    nla_put_u32(skb, RMEM_A_DEV_RECONNECTS,
			READ_ONCE(first->reconnects)) ||
	    nla_put_u32(skb, RMEM_A_DEV_QUEUE_DEPTH, dev->cfg.queue_depth) ||
	    nla_put_u32(skb, RMEM_A_DEV_READ_SPLIT, dev->cfg.read_split) ||
	    nla_put_u32(skb, RMEM_A_DEV_READ_DEPTH, dev->cfg.read_depth) ||
	    (granted &&
	     nla_put_u32(skb, RMEM_A_DEV_READ_DEPTH_GRANTED, granted)) ||
	    nla_put_u32(skb, RMEM_A_DEV_WIRE_VERSION, first->wire_version) ||
	    (server_free != U64_MAX &&
	     nla_put_u64_64bit(skb, RMEM_A_DEV_SERVER_FREE, server_free,
			       RMEM_A_DEV_PAD)) ||
	    (dev->emap &&
	     (nla_put_u64_64bit(skb, RMEM_A_DEV_EXTENT, dev->cfg.extent,
				RMEM_A_DEV_PAD) ||
	      nla_put_u32(skb, RMEM_A_DEV_EXTENTS_HELD,
			  rmem_emap_held(dev)) ||
	      (READ_ONCE(dev->emap->nospc) &&
	       nla_put_u32(skb, RMEM_A_DEV_NOSPC_EXTENT,
			   READ_ONCE(dev->emap->nospc_extent))))) ||
	    nla_put_u32(skb, RMEM_A_DEV_STATE, rmem_dev_state(dev)) ||
	    nla_put(skb, RMEM_A_DEV_SERVER_ID, sizeof(first->server_id),
		    first->server_id) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_GENERATION, first->generation,
			      RMEM_A_DEV_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_MR_SIZE, first->chunk_size,
			      RMEM_A_DEV_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_DEV_MEMORY, rmem_dev_memory(dev),
			      RMEM_A_DEV_PAD) ||
	    (dev->cfg.host_id[0] &&
	     nla_put_string(skb, RMEM_A_DEV_HOST_ID, dev->cfg.host_id)) ||
	    nla_put_u8(skb, RMEM_A_DEV_AUTH, first->proven) ||
	    (first->server_name[0] &&
	     nla_put_string(skb, RMEM_A_DEV_SERVER_NAME,
			    first->server_name)))
		goto out_cancel;
	if (rmem_dev_nr_sess(dev) > 1 &&
	    (nla_put_u8(skb, RMEM_A_DEV_REPLICAS, dev->cfg.replicas) ||
	     nla_put_u32(skb, RMEM_A_DEV_EXTENTS_DEGRADED,
			 rmem_emap_degraded(dev))))
		goto out_cancel;
	/* with replicas 1, the resync runs only for a drain */
	if (dev->cfg.replicas > 1 || READ_ONCE(dev->draining)) {
		/* (the two may be of two runs: done is at most total) */
		u32 total = READ_ONCE(dev->emap->resync_total);
		u32 done = min(READ_ONCE(dev->emap->resync_done), total);

		if (nla_put_u8(skb, RMEM_A_DEV_RESYNCING,
			       READ_ONCE(dev->emap->resyncing)) ||
		    (total &&
		     (nla_put_u32(skb, RMEM_A_DEV_RESYNC_DONE, done) ||
		      nla_put_u32(skb, RMEM_A_DEV_RESYNC_TOTAL, total))))
			goto out_cancel;
	}
	/* a drained server, removed, is in no listing */
	for (i = 0; rmem_dev_nr_sess(dev) > 1 && i < rmem_dev_nr_sess(dev); i++)
		if (!READ_ONCE(dev->sessions[i]->removed) &&
		    rmem_nl_put_peer(skb, dev, dev->sessions[i]))
			goto out_cancel;
	sn = nla_nest_start(skb, RMEM_A_DEV_STATS);
	if (!sn ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_READS, st.reads, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_READ_BYTES, st.read_bytes,
			      RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_WRITES, st.writes, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_WRITE_BYTES, st.write_bytes,
			      RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_ZEROES, st.zeroes, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_ERRORS, st.errors, RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_DISCARDS, st.discards,
			      RMEM_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RMEM_A_STATS_DISCARD_BYTES, st.discard_bytes,
			      RMEM_A_STATS_PAD) ||
	    rmem_nl_put_lat(skb, RMEM_A_STATS_READ_LATENCY, &st, RMEM_LAT_READ) ||
	    rmem_nl_put_lat(skb, RMEM_A_STATS_WRITE_LATENCY, &st,
			    RMEM_LAT_WRITE))
		goto out_cancel;
	nla_nest_end(skb, sn);
	nla_nest_end(skb, nest);
	return 0;

out_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * rmem_nl_put_dev_msg() - a whole message describing a device
 * @skb: message buffer
 * @m: header values
 * @dev: the device
 *
 * Return: 0 or -EMSGSIZE.
 */
int rmem_nl_put_dev_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_dev *dev)
{
	void *hdr = rmem_msg_put(skb, m);

	if (!hdr)
		return -EMSGSIZE;
	if (rmem_nl_put_dev(skb, dev)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}
