// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: the memory donor.
 *
 * A server owns a pool of RAM (pool.c), allocated at creation in chunks.
 * Each client session gets its own protection domain; the chunks handed to
 * it are registered as memory regions in that PD only, so no other
 * session's queue pairs can reach them, whatever rkey they try.  Chunks are
 * zeroed before a session first sees them.  After setup the server's CPU
 * takes no part in I/O.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "compat.h"
#include "proto.h"
#include "rmem.h"
#include "server.h"

static LIST_HEAD(rmem_servers);
static struct ib_client rmem_server_ib_client;
/* The client data of an RDMA device a server may use; NULL once it goes. */
static int rmem_server_ibdev_ok;
static DEFINE_MUTEX(rmem_servers_lock);

static struct rmem_server *rmem_server_find(const char *name)
{
	struct rmem_server *srv;

	list_for_each_entry(srv, &rmem_servers, node)
		if (!strcmp(srv->name, name))
			return srv;
	return NULL;
}

/*
 * What identifies a server across the calls of one dump: its place in
 * the order of creation, which is the list's.  Under rmem_servers_lock.
 */
static unsigned long rmem_servers_seq;

static unsigned long rmem_server_cookie(const struct rmem_server *srv)
{
	return srv->seq;
}

/* ---- server lifetime ---------------------------------------------------- */

/*
 * Work out the chunk geometry the device supports: blocks of the largest
 * page size the device can map (at most 2 MiB, at most what the page
 * allocator gives), and no more blocks per chunk than a fast-registration
 * page list holds.
 */
static int rmem_server_geometry(struct rmem_server *srv, u64 want,
				u64 pool_size, struct netlink_ext_ack *extack)
{
	const struct ib_device_attr *a = &srv->ibdev->attrs;
	unsigned int shift, max_pages = a->max_fast_reg_page_list_len;
	u64 size;

	if (!want)
		want = (u64)rmem_default_mr_size_mb << 20;
	/* a chunk larger than the pool would only waste memory */
	want = min_t(u64, want, rounddown_pow_of_two(pool_size));
	for (shift = min_t(unsigned int, 21, PAGE_SHIFT + MAX_PAGE_ORDER);
	     shift > PAGE_SHIFT; shift--)
		if ((a->page_size_cap & BIT_ULL(shift)) && BIT_ULL(shift) <= want)
			break;
	if (!(a->page_size_cap & BIT_ULL(shift)) || !max_pages) {
		NL_SET_ERR_MSG(extack,
			       "RDMA device cannot register memory with the kernel's page size");
		return -EOPNOTSUPP;
	}
	size = min_t(u64, want, (u64)max_pages << shift);
	size = rounddown_pow_of_two(size);
	srv->block_order = shift - PAGE_SHIFT;
	srv->chunk_size = size;
	srv->chunk_shift = ilog2(size);
	return 0;
}

/**
 * rmem_server_table_fits() - whether a session of @nr_chunks can be served
 * @srv: the server (geometry and device known)
 * @nr_chunks: chunks of the session
 * @thin: a thin session, which registers at most the pool's chunks
 *
 * One memory region per chunk plus the table's, and a chunk table the
 * device can register in one fast-registration page list and the page
 * allocator can give in one piece.
 *
 * Return: true if it fits.
 */
bool rmem_server_table_fits(struct rmem_server *srv, u64 nr_chunks, bool thin)
{
	const struct ib_device_attr *a = &srv->ibdev->attrs;
	u64 tlen = nr_chunks * sizeof(struct rmem_wire_chunk) +
		   sizeof(struct rmem_wire_pool);

	/* a thin session registers only what it takes, at most the pool */
	return (thin || nr_chunks < (u64)a->max_mr) &&
	       nr_chunks <= RMEM_WIRE_MAX_CHUNKS &&
	       PAGE_ALIGN(tlen) >> PAGE_SHIFT <= a->max_fast_reg_page_list_len &&
	       get_order(tlen) <= MAX_PAGE_ORDER;
}

/**
 * rmem_server_wire_version() - the newest wire protocol version served
 *
 * Return: RMEM_WIRE_VERSION, or less as fault_wire_version asks.
 */
u16 rmem_server_wire_version(void)
{
	unsigned int v = READ_ONCE(rmem_fault_wire_version);

	if (v >= RMEM_WIRE_VERSION_MIN && v < RMEM_WIRE_VERSION)
		return v;
	return RMEM_WIRE_VERSION;
}

static void rmem_server_free(struct rmem_server *srv)
{
	unsigned int i;

	if (srv->listen_id && !IS_ERR(srv->listen_id))
		rdma_destroy_id(srv->listen_id);
	if (srv->chunks)
		for (i = 0; i < srv->nr_chunks; i++)
			rmem_chunk_free(srv, &srv->chunks[i]);
	kvfree(srv->chunks);
	if (srv->ibdev)
		ib_device_put(srv->ibdev);
	rmem_hosts_free(srv);
	kfree(srv->allow);
	kfree(srv);
}

static int rmem_server_listen(struct rmem_server *srv,
			      struct netlink_ext_ack *extack)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, rmem_server_cm_handler, srv,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id)) {
		NL_SET_ERR_MSG(extack, "cannot create an rdma_cm id");
		return PTR_ERR(id);
	}
	srv->listen_id = id;
	ret = rdma_set_reuseaddr(id, 1);
	if (!ret)
		ret = rdma_bind_addr(id, (struct sockaddr *)&srv->addr);
	if (ret == -EADDRINUSE) {
		NL_SET_ERR_MSG(extack, "listen address and port already in use");
		return ret;
	}
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "cannot bind the listen address: is it an address of an RDMA-capable interface (rdma link)?");
		return ret;
	}
	if (!id->device) {
		NL_SET_ERR_MSG(extack,
			       "listen address must belong to one RDMA device (a wildcard address is not supported)");
		return -EADDRNOTAVAIL;
	}
	/*
	 * Clients RDMA READ into memory they registered only for local
	 * access (the local DMA lkey); iWARP needs remote write access there.
	 */
	if (rdma_protocol_iwarp(id->device, id->port_num)) {
		NL_SET_ERR_MSG(extack, "iWARP RDMA devices are not supported");
		return -EOPNOTSUPP;
	}
	if (ib_get_client_data(id->device, &rmem_server_ib_client) !=
	    &rmem_server_ibdev_ok || !ib_device_try_get(id->device)) {
		NL_SET_ERR_MSG(extack, "RDMA device is going away");
		return -ENODEV;
	}
	srv->ibdev = id->device;
	return 0;
}

/**
 * rmem_server_add() - create a memory server and start listening
 * @cfg: name, address, pool and chunk sizes, allowed clients
 * @bad_attr: set to the RMEM_A_SERVER_* attribute at fault on error, or 0
 * @extack: error reporting
 * @reply: if not NULL, the new server is described into it
 *
 * Allocates the whole pool up front, zeroed, and DMA maps it for the RDMA
 * device that owns the listen address.
 *
 * Return: 0 or a negative errno, with an extack message.
 */
int rmem_server_add(const struct rmem_server_cfg *cfg, int *bad_attr,
		    struct netlink_ext_ack *extack, struct sk_buff *reply)
{
	struct rmem_server *srv;
	unsigned int i;
	int ret;

	mutex_lock(&rmem_servers_lock);
	*bad_attr = RMEM_A_SERVER_NAME;
	if (rmem_server_find(cfg->name)) {
		NL_SET_ERR_MSG(extack, "a server with this name exists");
		ret = -EEXIST;
		goto out_unlock;
	}
	*bad_attr = 0;
	srv = kzalloc(sizeof(*srv), GFP_KERNEL);
	if (!srv) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	srv->ctx = RMEM_CTX_LISTENER;
	strscpy(srv->name, cfg->name, sizeof(srv->name));
	srv->addr = cfg->addr;
	mutex_init(&srv->lock);
	INIT_LIST_HEAD(&srv->free_chunks);
	INIT_LIST_HEAD(&srv->dirty_chunks);
	INIT_LIST_HEAD(&srv->sessions);
	INIT_LIST_HEAD(&srv->volumes);
	INIT_LIST_HEAD(&srv->hosts);
	srv->auth = cfg->auth;
	INIT_DELAYED_WORK(&srv->zero_work, rmem_server_zero_work);
	init_waitqueue_head(&srv->zero_wq);
	atomic_set(&srv->refs, 1);
	init_completion(&srv->sessions_done);
	get_random_bytes(srv->id, sizeof(srv->id));
	if (cfg->nr_allow) {
		srv->allow = kmemdup(cfg->allow,
				     cfg->nr_allow * sizeof(*cfg->allow),
				     GFP_KERNEL);
		if (!srv->allow) {
			ret = -ENOMEM;
			goto out_free_server;
		}
		srv->nr_allow = cfg->nr_allow;
	}

	*bad_attr = cfg->addr.ss_family == AF_INET6 ?
		    RMEM_A_SERVER_LISTEN_IPV6 : RMEM_A_SERVER_LISTEN_IPV4;
	ret = rmem_server_listen(srv, extack);
	if (ret)
		goto out_free_server;
	*bad_attr = cfg->mr_size ? RMEM_A_SERVER_MR_SIZE :
				   RMEM_A_SERVER_POOL_SIZE;
	ret = rmem_server_geometry(srv, cfg->mr_size, cfg->pool_size, extack);
	if (ret)
		goto out_free_server;
	/*
	 * One client may take the whole pool: its chunk table and memory
	 * regions must fit the device.  Checked before anything is sized
	 * by the chunk count.
	 */
	if (!rmem_server_table_fits(srv, DIV_ROUND_UP_ULL(cfg->pool_size,
							  srv->chunk_size), false)) {
		NL_SET_ERR_MSG(extack,
			       "too many chunks for the RDMA device (memory regions or chunk table): use a larger MR size or a smaller pool");
		ret = -EINVAL;
		goto out_free_server;
	}

	*bad_attr = RMEM_A_SERVER_POOL_SIZE;
	srv->nr_chunks = DIV_ROUND_UP_ULL(cfg->pool_size, srv->chunk_size);
	srv->chunks = kvcalloc(srv->nr_chunks, sizeof(*srv->chunks),
			       GFP_KERNEL | __GFP_NOWARN);
	if (!srv->chunks) {
		NL_SET_ERR_MSG(extack, "out of memory for the pool's chunk list");
		ret = -ENOMEM;
		goto out_free_server;
	}
	for (i = 0; i < srv->nr_chunks; i++) {
		srv->chunks[i].index = i;
		ret = rmem_chunk_alloc(srv, &srv->chunks[i]);
		if (ret) {
			NL_SET_ERR_MSG(extack,
				       "cannot allocate the pool: not enough free memory");
			goto out_free_server;
		}
		list_add_tail(&srv->chunks[i].node, &srv->free_chunks);
		cond_resched();
	}
	srv->nr_free = srv->nr_chunks;

	*bad_attr = RMEM_A_SERVER_LISTEN_PORT;
	ret = rdma_listen(srv->listen_id, 128);
	if (ret) {
		NL_SET_ERR_MSG(extack, "rdma_listen failed (address or port in use?)");
		goto out_free_server;
	}
	*bad_attr = 0;
	srv->seq = ++rmem_servers_seq;
	list_add_tail(&srv->node, &rmem_servers);
	pr_info("server %s: pool %llu MiB in %u chunks of %llu KiB (memory regions registered with %lu KiB pages, device %s)\n",
		srv->name, ((u64)srv->nr_chunks << srv->chunk_shift) >> 20,
		srv->nr_chunks, srv->chunk_size >> 10,
		(PAGE_SIZE << srv->block_order) >> 10,
		dev_name(&srv->ibdev->dev));
	if (reply)
		ret = rmem_server_put(reply, srv, NULL);
	mutex_unlock(&rmem_servers_lock);
	return ret;

out_free_server:
	rmem_server_free(srv);
out_unlock:
	mutex_unlock(&rmem_servers_lock);
	return ret;
}

/* Stop listening, end every session, free the pool.  rmem_servers_lock. */
static void rmem_server_destroy(struct rmem_server *srv)
{
	struct rmem_session *sess;
	struct rmem_volume *vol, *tmp;

	list_del(&srv->node);
	mutex_lock(&srv->lock);
	srv->dying = true;
	mutex_unlock(&srv->lock);
	/* no new connect requests after this */
	rdma_destroy_id(srv->listen_id);
	srv->listen_id = NULL;

	mutex_lock(&srv->lock);
	list_for_each_entry(sess, &srv->sessions, node)
		rmem_session_kill(sess);
	mutex_unlock(&srv->lock);
	/*
	 * Every session, listed or not (a NEW that failed, a release under
	 * way), holds a reference until it is freed; rdma_destroy_id() above
	 * waited for the connect handler that may have been making one.
	 */
	if (!atomic_dec_and_test(&srv->refs))
		wait_for_completion(&srv->sessions_done);
	/* dying: no chunk is queued for zeroing any more */
	cancel_delayed_work_sync(&srv->zero_work);

	list_for_each_entry_safe(vol, tmp, &srv->volumes, node)
		rmem_volume_free(srv, vol);
	pr_info("server %s: removed\n", srv->name);
	rmem_server_free(srv);
}

/**
 * rmem_server_del() - remove a server; its clients lose their memory
 * @name: server name
 * @extack: error reporting
 *
 * Return: 0, or -ENOENT with an extack message.
 */
int rmem_server_del(const char *name, struct netlink_ext_ack *extack)
{
	struct rmem_server *srv;

	mutex_lock(&rmem_servers_lock);
	srv = rmem_server_find(name);
	if (!srv) {
		mutex_unlock(&rmem_servers_lock);
		NL_SET_ERR_MSG(extack, "no such server");
		return -ENOENT;
	}
	rmem_server_destroy(srv);
	mutex_unlock(&rmem_servers_lock);
	return 0;
}

static int rmem_server_ib_add(struct ib_device *ibdev)
{
	ib_set_client_data(ibdev, &rmem_server_ib_client, &rmem_server_ibdev_ok);
	return 0;
}

/*
 * An RDMA device is being removed: every server on it goes, as with
 * server del (its clients lose their memory), before this returns; the
 * removal waits for the listener, the sessions' PDs and the pool's DMA
 * mappings.  Called before rdma_cm's own removal.
 */
static void rmem_server_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct rmem_server *srv, *tmp;

	/* first: no server add may bind to it any more */
	ib_set_client_data(ibdev, &rmem_server_ib_client, NULL);
	mutex_lock(&rmem_servers_lock);
	list_for_each_entry_safe(srv, tmp, &rmem_servers, node) {
		if (srv->ibdev != ibdev)
			continue;
		pr_warn("server %s: RDMA device %s is being removed; removing the server\n",
			srv->name, dev_name(&ibdev->dev));
		rmem_server_destroy(srv);
	}
	mutex_unlock(&rmem_servers_lock);
}

static struct ib_client rmem_server_ib_client = {
	.name = "rmem-server",
	.add = rmem_server_ib_add,
	.remove = rmem_server_ib_remove,
};

/**
 * rmem_server_exit() - remove every server (module unload)
 */
void rmem_server_exit(void)
{
	struct rmem_server *srv, *tmp;

	mutex_lock(&rmem_servers_lock);
	list_for_each_entry_safe(srv, tmp, &rmem_servers, node)
		rmem_server_destroy(srv);
	mutex_unlock(&rmem_servers_lock);
	ib_unregister_client(&rmem_server_ib_client);
}

/* ---- volumes over netlink ---------------------------------------------- */

/**
 * rmem_volume_del() - free a detached volume's memory
 * @server: server name
 * @volume: volume name
 * @bad_attr: set to the RMEM_A_VOLUME_* attribute at fault on error
 * @extack: error reporting
 *
 * Return: 0, -ENOENT for an unknown server or volume, -EBUSY if attached.
 */
int rmem_volume_del(const char *server, const char *volume, int *bad_attr,
		    struct netlink_ext_ack *extack)
{
	struct rmem_server *srv;
	struct rmem_volume *vol;
	int ret = 0;

	*bad_attr = RMEM_A_VOLUME_SERVER;
	mutex_lock(&rmem_servers_lock);
	srv = rmem_server_find(server);
	if (!srv) {
		NL_SET_ERR_MSG(extack, "no such server");
		ret = -ENOENT;
		goto out_unlock;
	}
	*bad_attr = RMEM_A_VOLUME_NAME;
	mutex_lock(&srv->lock);
	vol = rmem_volume_find(srv, volume);
	if (!vol) {
		NL_SET_ERR_MSG(extack, "no such volume");
		ret = -ENOENT;
	} else if (vol->owner) {
		NL_SET_ERR_MSG(extack, "volume is attached by a client");
		ret = -EBUSY;
	} else {
		rmem_volume_free(srv, vol);
	}
	mutex_unlock(&srv->lock);
out_unlock:
	mutex_unlock(&rmem_servers_lock);
	return ret;
}

/* ---- host entries over netlink ----------------------------------------- */

/**
 * rmem_host_add() - add a host entry to a server
 * @cfg: server, identity, key, limits
 * @bad_attr: set to the RMEM_A_HOST_* attribute at fault on error
 * @extack: error reporting
 *
 * Return: 0, -ENOENT for an unknown server, or what
 * rmem_server_host_add() returns.
 */
int rmem_host_add(const struct rmem_host_cfg *cfg, int *bad_attr,
		  struct netlink_ext_ack *extack)
{
	struct rmem_server *srv;
	int ret;

	*bad_attr = RMEM_A_HOST_SERVER;
	mutex_lock(&rmem_servers_lock);
	srv = rmem_server_find(cfg->server);
	if (!srv) {
		NL_SET_ERR_MSG(extack, "no such server");
		ret = -ENOENT;
	} else {
		ret = rmem_server_host_add(srv, cfg, bad_attr, extack);
	}
	mutex_unlock(&rmem_servers_lock);
	return ret;
}

/**
 * rmem_host_del() - remove a host entry from a server
 * @server: server name
 * @id: host identity
 * @force: also when the host has sessions, which end
 * @bad_attr: set to the RMEM_A_HOST_* attribute at fault on error
 * @extack: error reporting
 *
 * Return: 0, -ENOENT, or -EBUSY.
 */
int rmem_host_del(const char *server, const char *id, bool force,
		  int *bad_attr, struct netlink_ext_ack *extack)
{
	struct rmem_server *srv;
	int ret;

	*bad_attr = RMEM_A_HOST_SERVER;
	mutex_lock(&rmem_servers_lock);
	srv = rmem_server_find(server);
	if (!srv) {
		NL_SET_ERR_MSG(extack, "no such server");
		ret = -ENOENT;
	} else {
		*bad_attr = RMEM_A_HOST_ID;
		ret = rmem_server_host_del(srv, id, force, extack);
	}
	mutex_unlock(&rmem_servers_lock);
	return ret;
}

/* ---- netlink replies --------------------------------------------------- */

/*
 * Where a dump goes on: in the server @cookie names (@from set), or at
 * the first one created after it.  The list is in the order of creation,
 * so servers deleted since the last call, that one included, shift
 * nothing: a server that is gone is followed by its first successor,
 * which starts afresh.
 */
static void rmem_server_dump_resume(const char *name, unsigned long *pos,
				    unsigned long *from, unsigned long cookie)
{
	struct rmem_server *srv, *next = NULL;
	unsigned long k = 0;

	list_for_each_entry(srv, &rmem_servers, node) {
		if (name && strcmp(srv->name, name))
			continue;
		if (rmem_server_cookie(srv) > cookie ||
		    (*from && rmem_server_cookie(srv) == cookie)) {
			next = srv;
			break;
		}
		k++;
	}
	if (!next || rmem_server_cookie(next) != cookie)
		*from = 0;
	*pos = k;
}

/**
 * rmem_server_dump() - dump servers, several messages for a big one
 * @skb: the dump buffer
 * @m: message header values
 * @name: only this server, or NULL for all
 * @pos: in: servers done; out: servers done
 * @from: in: clients of the next server already dumped; out: the same;
 *	NULL: one message a server, with all its clients
 * @cookie: in and out: the identity of the server @from is about, or
 *	(@from 0) of the last server done; 0 at the start.  The dump resumes
 *	by it, not by @pos alone: a server deleted between two calls moves
 *	the others, and none may be skipped or shown twice
 * @extack: error reporting
 *
 * A server whose clients do not fit one message goes on in the next ones
 * (rmem_server_put_part()), so that a server with thousands of sessions
 * can be listed.
 *
 * Return: 0 when all is dumped, -EMSGSIZE to continue later, -ENOENT.
 */
int rmem_server_dump(struct sk_buff *skb, const struct rmem_msg *m,
		     const char *name, unsigned long *pos,
		     unsigned long *from, unsigned long *cookie,
		     struct netlink_ext_ack *extack)
{
	struct rmem_server *srv;
	unsigned long i = 0;
	void *hdr;
	int ret = 0;

	mutex_lock(&rmem_servers_lock);
	if (name && !rmem_server_find(name)) {
		NL_SET_ERR_MSG(extack, "no such server");
		ret = -ENOENT;
		goto out_unlock;
	}
	if (from && *cookie)
		rmem_server_dump_resume(name, pos, from, *cookie);
	list_for_each_entry(srv, &rmem_servers, node) {
		if (name && strcmp(srv->name, name))
			continue;
		if (i++ < *pos)
			continue;
		if (!from) {
			ret = rmem_server_put_msg(skb, m, srv);
			if (ret)
				break;
			(*pos)++;
			continue;
		}
		do {
			hdr = rmem_msg_put(skb, m);
			if (!hdr) {
				ret = -EMSGSIZE;
				goto out_unlock;
			}
			ret = rmem_server_put_part(skb, srv, from);
			if (ret == -EMSGSIZE || ret == -ENODATA) {
				genlmsg_cancel(skb, hdr);
				if (ret == -EMSGSIZE)
					goto out_unlock;
				break;
			}
			genlmsg_end(skb, hdr);
			*cookie = rmem_server_cookie(srv);
		} while (ret == -EAGAIN);
		ret = 0;
		*from = 0;
		*cookie = rmem_server_cookie(srv);
		(*pos)++;
	}
out_unlock:
	mutex_unlock(&rmem_servers_lock);
	return ret;
}

/**
 * rmem_server_fill() - servers into a netlink message, one message each
 * @skb: the dump or reply buffer
 * @m: message header values
 * @name: only this server, or NULL for all
 * @idx: in: servers to skip; out: servers written
 * @extack: error reporting
 *
 * Return: 0 when everything fitted, -EMSGSIZE to continue later, -ENOENT.
 */
int rmem_server_fill(struct sk_buff *skb, const struct rmem_msg *m,
		     const char *name, int *idx, struct netlink_ext_ack *extack)
{
	unsigned long pos = *idx;
	int ret;

	ret = rmem_server_dump(skb, m, name, &pos, NULL, NULL, extack);
	*idx = pos;
	return ret;
}

/**
 * rmem_volume_fill() - dump volumes into a netlink message
 * @skb: the dump buffer
 * @m: message header values
 * @server: only volumes of this server, or NULL
 * @idx: in: volumes to skip; out: volumes written
 *
 * Return: 0 when everything fitted, -EMSGSIZE to continue later.
 */
int rmem_volume_fill(struct sk_buff *skb, const struct rmem_msg *m,
		     const char *server, int *idx)
{
	struct rmem_server *srv;
	struct rmem_volume *vol;
	int i = 0, ret = 0;

	mutex_lock(&rmem_servers_lock);
	list_for_each_entry(srv, &rmem_servers, node) {
		if (server && strcmp(srv->name, server))
			continue;
		mutex_lock(&srv->lock);
		list_for_each_entry(vol, &srv->volumes, node) {
			if (i++ < *idx)
				continue;
			ret = rmem_volume_put_msg(skb, m, srv, vol);
			if (ret)
				break;
			(*idx)++;
		}
		mutex_unlock(&srv->lock);
		if (ret)
			break;
	}
	mutex_unlock(&rmem_servers_lock);
	return ret;
}

/**
 * rmem_server_init() - set up the server role
 *
 * Return: 0 or a negative errno.
 */
int rmem_server_init(void)
{
	rmem_pool_init();
	return ib_register_client(&rmem_server_ib_client);
}
