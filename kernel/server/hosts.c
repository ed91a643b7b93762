// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: host entries.
 *
 * A host entry names a client host identity, holds its key and limits
 * what that host may take: sessions at once, and bytes in its sessions'
 * anonymous memory plus the volumes it created.  Limits are checked and
 * the memory taken in one step under srv->lock (rmem_host_admit() from
 * rmem_server_session_memory()), so handshakes in parallel cannot get
 * past them together.  Keys never leave the kernel: replies name the
 * identity, the limits and the use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <net/genetlink.h>

#include "auth.h"
#include "rmem.h"
#include "server.h"

/**
 * rmem_host_find() - a server's host entry by identity
 * @srv: the server
 * @id: the identity
 *
 * Context: srv->lock held.
 * Return: the entry, or NULL.
 */
struct rmem_host *rmem_host_find(struct rmem_server *srv, const char *id)
{
	struct rmem_host *h;

	list_for_each_entry(h, &srv->hosts, node)
		if (!strcmp(h->id, id))
			return h;
	return NULL;
}

/**
 * rmem_server_bytes() - what a session or volume of @size takes of a pool
 * @srv: the server
 * @size: bytes asked for
 *
 * Return: @size rounded up to whole chunks.
 */
u64 rmem_server_bytes(const struct rmem_server *srv, u64 size)
{
	return (u64)DIV_ROUND_UP_ULL(size, srv->chunk_size) << srv->chunk_shift;
}

/* What the host @id holds now, in whole chunks.  Context: srv->lock held. */
static void rmem_host_usage(struct rmem_server *srv, const char *id,
			    unsigned int *sessions, u64 *bytes)
{
	struct rmem_session *sess;
	struct rmem_volume *vol;

	*sessions = 0;
	*bytes = 0;
	/* only what proved the entry's key: not what claimed its name before */
	list_for_each_entry(sess, &srv->sessions, node) {
		if (!sess->authed || !sess->proven || sess->dead ||
		    strcmp(sess->host_id, id))
			continue;
		(*sessions)++;
		if (sess->thin)
			*bytes += (u64)sess->nr_held << srv->chunk_shift;
		else if (!sess->volume)
			*bytes += rmem_server_bytes(srv, sess->size);
	}
	list_for_each_entry(vol, &srv->volumes, node)
		if (vol->owner_proven && !strcmp(vol->owner_id, id))
			*bytes += rmem_server_bytes(srv, vol->size);
}

/**
 * rmem_host_admit() - whether a session's host may have it
 * @srv: the server
 * @sess: the new session, not yet counted (not authed), or a thin one
 *	taking more
 * @need: bytes it adds to what its host holds (0 for a volume the host
 *	has already); counted in whole chunks, as the pool gives them
 *
 * A session that proved a key must still have the very host entry whose
 * key it proved: one removed (or replaced) since the proof was checked
 * takes nothing.
 *
 * Context: srv->lock held; the caller takes the memory in the same hold.
 * Return: RMEM_WIRE_OK, ESESSIONS, EQUOTA or EAUTH.
 */
enum rmem_wire_status rmem_host_admit(struct rmem_server *srv,
				      struct rmem_session *sess, u64 need)
{
	struct rmem_host *h;
	unsigned int n;
	u64 bytes;

	if (!sess->proven)
		return RMEM_WIRE_OK;
	h = rmem_host_find(srv, sess->host_id);
	if (!h || h->gen != sess->host_gen)
		return RMEM_WIRE_EAUTH;
	need = rmem_server_bytes(srv, need);
	rmem_host_usage(srv, h->id, &n, &bytes);
	/* a thin session taking a slot is counted already */
	if (!sess->authed && h->max_sessions && n >= h->max_sessions)
		return RMEM_WIRE_ESESSIONS;
	if (h->size_limit && (need > h->size_limit ||
			      bytes > h->size_limit - need))
		return RMEM_WIRE_EQUOTA;
	return RMEM_WIRE_OK;
}

static void rmem_host_free(struct rmem_host *h)
{
	list_del(&h->node);
	kfree_sensitive(h);
}

/**
 * rmem_hosts_free() - free every host entry of a server being removed
 * @srv: the server
 */
void rmem_hosts_free(struct rmem_server *srv)
{
	struct rmem_host *h, *tmp;

	list_for_each_entry_safe(h, tmp, &srv->hosts, node)
		rmem_host_free(h);
	srv->nr_hosts = 0;
}

/**
 * rmem_server_host_add() - add a host entry to a server
 * @srv: the server
 * @cfg: identity, key and limits
 * @bad_attr: set to the RMEM_A_HOST_* attribute at fault on error
 * @extack: error reporting
 *
 * From the first key on, a server whose mode was not given requires keys
 * of every client, even once every entry is removed again.
 *
 * Return: 0, -EEXIST or -ENOSPC, or -ENOMEM.
 */
int rmem_server_host_add(struct rmem_server *srv,
			 const struct rmem_host_cfg *cfg, int *bad_attr,
			 struct netlink_ext_ack *extack)
{
	struct rmem_host *h;
	int ret = 0;

	*bad_attr = 0;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		NL_SET_ERR_MSG(extack, "out of memory adding the host entry");
		return -ENOMEM;
	}
	strscpy(h->id, cfg->id, sizeof(h->id));
	memcpy(h->key, cfg->key, sizeof(h->key));
	h->size_limit = cfg->size_limit;
	h->max_sessions = cfg->max_sessions;
	mutex_lock(&srv->lock);
	*bad_attr = RMEM_A_HOST_ID;
	if (rmem_host_find(srv, h->id)) {
		NL_SET_ERR_MSG(extack, "the server has an entry for this host");
		ret = -EEXIST;
	} else if (srv->nr_hosts >= RMEM_HOSTS_MAX) {
		NL_SET_ERR_MSG(extack, "the server has as many host entries as it may (64)");
		ret = -ENOSPC;
	} else {
		h->gen = ++srv->host_gen;
		list_add_tail(&h->node, &srv->hosts);
		srv->nr_hosts++;
		srv->keyed = true;
		h = NULL;
	}
	mutex_unlock(&srv->lock);
	kfree_sensitive(h);
	if (!ret)
		pr_info("server %s: host %s added\n", srv->name, cfg->id);
	return ret;
}

/**
 * rmem_server_host_del() - remove a host entry
 * @srv: the server
 * @id: the host identity
 * @force: also when the host has sessions: they end at once
 * @extack: error reporting
 *
 * The host's volumes stay (the admin deletes them with volume del); an
 * entry added again for the same identity may attach them.
 *
 * Return: 0, -ENOENT, or -EBUSY for a host with sessions and no @force.
 */
int rmem_server_host_del(struct rmem_server *srv, const char *id, bool force,
			 struct netlink_ext_ack *extack)
{
	struct rmem_session *sess;
	struct rmem_host *h;
	unsigned int n;
	u64 bytes;
	int ret = 0;

	mutex_lock(&srv->lock);
	h = rmem_host_find(srv, id);
	if (!h) {
		NL_SET_ERR_MSG(extack, "the server has no entry for this host");
		ret = -ENOENT;
		goto out_unlock;
	}
	rmem_host_usage(srv, id, &n, &bytes);
	if (n && !force) {
		NL_SET_ERR_MSG(extack,
			       "the host has sessions; use force to end them");
		ret = -EBUSY;
		goto out_unlock;
	}
	/* its sessions go: no reconnect under a key that is revoked */
	list_for_each_entry(sess, &srv->sessions, node)
		if (sess->authed && sess->proven && !strcmp(sess->host_id, id))
			rmem_session_kill(sess);
	rmem_host_free(h);
	srv->nr_hosts--;
	pr_info("server %s: host %s removed%s\n", srv->name, id,
		n ? ", its sessions ended" : "");
out_unlock:
	mutex_unlock(&srv->lock);
	return ret;
}

/**
 * rmem_server_put_host() - one host entry of a server, in a reply
 * @skb: message, inside the server's nest
 * @srv: the server
 * @h: the entry
 *
 * Context: srv->lock held.
 * Return: 0 or -EMSGSIZE.
 */
int rmem_server_put_host(struct sk_buff *skb, struct rmem_server *srv,
			 struct rmem_host *h)
{
	struct nlattr *nest;
	unsigned int n;
	u64 bytes;

	rmem_host_usage(srv, h->id, &n, &bytes);
	nest = nla_nest_start(skb, RMEM_A_SERVER_HOST);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, RMEM_A_HOST_ID, h->id) ||
	    nla_put_u64_64bit(skb, RMEM_A_HOST_SIZE_LIMIT, h->size_limit,
			      RMEM_A_HOST_PAD) ||
	    nla_put_u32(skb, RMEM_A_HOST_SESSIONS_MAX, h->max_sessions) ||
	    nla_put_u64_64bit(skb, RMEM_A_HOST_USED, bytes, RMEM_A_HOST_PAD) ||
	    nla_put_u32(skb, RMEM_A_HOST_SESSIONS, n)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}
