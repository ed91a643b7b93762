// SPDX-License-Identifier: GPL-2.0
/*
 * rmem server role: the handshake that authenticates a client before it
 * gets anything, and the check of signed connect requests.
 *
 * RMEM_WIRE_NEW from an allowed address makes a session shell: a PD, a CQ
 * and queue pair 0 with a receive posted for the client's AUTH message,
 * and no memory.  The server counts shells (RMEM_HS_MAX, RMEM_HS_PER_ADDR
 * per address) and refuses more before it allocates anything; a shell
 * whose client says nothing for RMEM_HS_TIMEOUT is ended.  The accept
 * carries the challenge (the server's nonce).  rmem_hs_authenticate()
 * checks the AUTH message: the host's proof under its key when it has
 * one, and derives the session key from the same transcript.  Only then
 * does session.c take memory for the client.
 *
 * JOIN, RECONNECT and LEAVE carry a MAC under the session key and a
 * counter that must grow (rmem_session_check_ctl()): one captured on the
 * wire can be neither replayed nor altered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "auth.h"
#include "rmem.h"
#include "server.h"

/* Can end to make room: no AUTH yet, or its attach being refused. */
static bool rmem_hs_evictable(const struct rmem_session *sess)
{
	return !sess->dead && (!sess->auth_received || sess->refusing);
}

/*
 * How many of @shells, @nr of them, are of @peer's host and not dead; with
 * @evictable, only those rmem_hs_evictable().
 */
static unsigned int rmem_hs_host_shells(struct rmem_session **shells,
					unsigned int nr,
					const struct sockaddr *peer,
					bool evictable)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++)
		if ((evictable ? rmem_hs_evictable(shells[i]) :
				 !shells[i]->dead) &&
		    rmem_addr_same_host(&shells[i]->peer, peer))
			n++;
	return n;
}

/*
 * With every slot taken, for a connect from @peer: end a shell whose AUTH
 * message has not come, or is being refused (a peer that takes no READY
 * holds it up to RMEM_REFUSAL_TIMEOUT), and give its slot back at once.
 *
 * First choice: a shell older than RMEM_HS_GRACE of a host holding at
 * least two more evictable shells than @peer's host has live ones, the
 * busiest such host's oldest; so a flood from a few addresses, which
 * takes every slot the moment it is RMEM_HS_EVICT_AGE old, cannot keep
 * out a host with no handshake of its own.  Failing that, the oldest
 * silent for RMEM_HS_EVICT_AGE.  (A flood from more addresses than there
 * are slots still can: then every host holds one.)
 *
 * Context: srv->lock held.  Return: whether a shell was ended.
 */
static bool rmem_hs_evict(struct rmem_server *srv, const struct sockaddr *peer)
{
	struct rmem_session *shells[RMEM_HS_MAX], *sess, *old = NULL;
	unsigned int i, nr = 0, n, m, old_m = 0;
	unsigned long now = jiffies;

	lockdep_assert_held(&srv->lock);
	/* the shells, one pass over every session: at most nr_hs of them */
	list_for_each_entry(sess, &srv->sessions, node) {
		if (!sess->in_hs)
			continue;
		if (WARN_ON_ONCE(nr == ARRAY_SIZE(shells)))
			break;
		shells[nr++] = sess;
	}
	n = rmem_hs_host_shells(shells, nr, peer, false);
	for (i = 0; i < nr; i++) {
		sess = shells[i];
		if (!rmem_hs_evictable(sess) ||
		    !time_after(now, sess->hs_start + RMEM_HS_GRACE))
			continue;
		m = rmem_hs_host_shells(shells, nr,
					(struct sockaddr *)&sess->peer, true);
		if (m < n + 2) {
			/* not a busier host: only a silent one may go */
			if (!time_after(now, sess->hs_start + RMEM_HS_EVICT_AGE))
				continue;
			m = 0;
		}
		if (!old || m > old_m ||
		    (m == old_m && time_before(sess->hs_start, old->hs_start))) {
			old = sess;
			old_m = m;
		}
	}
	if (!old)
		return false;
	if (old_m)
		pr_info_ratelimited("server %s: too many connections authenticating; ended one of the %u from %pIS (for a host with %u)\n",
				    srv->name, old_m, &old->peer, n);
	else
		pr_info_ratelimited("server %s: too many connections authenticating; ended the oldest silent one, from %pISp\n",
				    srv->name, &old->peer);
	rmem_session_kill(old);
	rmem_hs_end(old);
	return true;
}

/**
 * rmem_hs_admit() - take a handshake slot for a connect request
 * @srv: the server
 * @peer: the client's address
 *
 * At most RMEM_HS_PER_ADDR per address; at most RMEM_HS_MAX in all, where
 * a new request ends a shell of a busier host, or the oldest silent one,
 * rather than wait for it (rmem_hs_evict()).  A shell joins srv->sessions
 * (and counts here) only after this returns: rdma_cm runs one listener's
 * connect requests one at a time, so none comes in between.
 *
 * Context: srv->lock held.
 * Return: RMEM_WIRE_OK with a slot taken (srv->nr_hs; the caller marks
 * its session in_hs), or RMEM_WIRE_EHANDSHAKES.
 */
enum rmem_wire_status rmem_hs_admit(struct rmem_server *srv,
				    const struct sockaddr *peer)
{
	struct rmem_session *sess;
	unsigned int n = 0;

	lockdep_assert_held(&srv->lock);
	list_for_each_entry(sess, &srv->sessions, node)
		if (sess->in_hs && rmem_addr_same_host(&sess->peer, peer))
			n++;
	if (n >= RMEM_HS_PER_ADDR)
		return RMEM_WIRE_EHANDSHAKES;
	if (srv->nr_hs >= RMEM_HS_MAX && !rmem_hs_evict(srv, peer))
		return RMEM_WIRE_EHANDSHAKES;
	srv->nr_hs++;
	return RMEM_WIRE_OK;
}

/**
 * rmem_hs_end() - a session no longer counts as a handshake
 * @sess: authenticated, or ending
 *
 * Context: srv->lock held.
 */
void rmem_hs_end(struct rmem_session *sess)
{
	if (!sess->in_hs)
		return;
	sess->in_hs = false;
	sess->srv->nr_hs--;
}

static void rmem_hs_auth_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_session *sess = container_of(wc->wr_cqe,
						 struct rmem_session, auth_cqe);
	struct rmem_server *srv = sess->srv;

	sess->auth_status = wc->status;
	sess->auth_len = wc->byte_len;
	mutex_lock(&srv->lock);
	if (wc->status != IB_WC_SUCCESS) {
		/* too long a message, or the queue pair broke: give up */
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("server %s: receiving the AUTH message of %pISp failed: %s\n",
					    srv->name, &sess->peer,
					    ib_wc_status_msg(wc->status));
		rmem_session_lost(sess);
	} else if (!sess->dead && !sess->orphan && !sess->authed) {
		sess->auth_received = true;
		queue_work(rmem_wq, &sess->setup_work);
	}
	mutex_unlock(&srv->lock);
}

/* A handle no other session has, never 0.  Context: srv->lock held. */
static u64 rmem_hs_new_handle(struct rmem_server *srv)
{
	struct rmem_session *s;
	u64 h;

again:
	get_random_bytes(&h, sizeof(h));
	if (!h)
		goto again;
	list_for_each_entry(s, &srv->sessions, node)
		if (s->handle == h)
			goto again;
	return h;
}

/**
 * rmem_hs_start() - make a shell ready for its client's AUTH message
 * @sess: the session; queue pair 0 created, not yet accepted
 * @req: the client's RMEM_WIRE_NEW request
 * @client_qpn: the queue pair number of the client's REQ
 *
 * Fills the challenge the accept carries, posts the receive of the AUTH
 * message and starts the handshake timeout.
 *
 * Return: 0 or a negative errno.
 */
int rmem_hs_start(struct rmem_session *sess, const struct rmem_wire_connect *req,
		  u32 client_qpn)
{
	struct rmem_server *srv = sess->srv;
	struct rmem_wire_challenge *ch = &sess->challenge;
	struct ib_device *ibdev = srv->ibdev;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	int ret;

	memcpy(sess->nonce, req->new.nonce, sizeof(sess->nonce));
	sess->client_qpn = client_qpn;
	sess->hs_start = jiffies;
	ch->magic = cpu_to_le32(RMEM_WIRE_MAGIC);
	ch->version = cpu_to_le16(sess->version);
	ch->status = cpu_to_le16(RMEM_WIRE_OK);
	get_random_bytes(ch->nonce, sizeof(ch->nonce));
	memcpy(ch->pool_id, srv->id, sizeof(ch->pool_id));
	strscpy_pad(ch->server, srv->name, sizeof(ch->server));
	mutex_lock(&srv->lock);
	ch->auth = rmem_server_auth(srv);
	sess->handle = rmem_hs_new_handle(srv);
	mutex_unlock(&srv->lock);

	sess->auth = kzalloc(sizeof(*sess->auth), GFP_KERNEL);
	if (!sess->auth)
		return -ENOMEM;
	sess->auth_dma = ib_dma_map_single(ibdev, sess->auth,
					   sizeof(*sess->auth), DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, sess->auth_dma)) {
		sess->auth_dma = 0;
		return -EIO;
	}
	sess->auth_cqe.done = rmem_hs_auth_done;
	sess->auth_status = IB_WC_GENERAL_ERR;
	sge.addr = sess->auth_dma;
	sge.length = sizeof(*sess->auth);
	sge.lkey = sess->pd->local_dma_lkey;
	wr.wr_cqe = &sess->auth_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = ib_post_recv(sess->conns[0]->cm_id->qp, &wr, NULL);
	if (ret)
		return ret;
	queue_delayed_work(rmem_wq, &sess->hs_work, RMEM_HS_TIMEOUT);
	return 0;
}

/**
 * rmem_hs_stop() - free what the handshake used
 * @sess: the session, its queue pairs gone
 */
void rmem_hs_stop(struct rmem_session *sess)
{
	if (sess->auth_dma)
		ib_dma_unmap_single(sess->srv->ibdev, sess->auth_dma,
				    sizeof(*sess->auth), DMA_FROM_DEVICE);
	sess->auth_dma = 0;
	kfree(sess->auth);
	sess->auth = NULL;
	rmem_mac_free(sess->mac);
	sess->mac = NULL;
	memzero_explicit(sess->session_key, sizeof(sess->session_key));
}

/* The AUTH flags a session of @sess's version may use. */
static u8 rmem_hs_auth_flags(const struct rmem_session *sess)
{
	if (sess->version >= 4)
		return RMEM_WIRE_AUTH_KEYED | RMEM_WIRE_AUTH_THIN;
	return RMEM_WIRE_AUTH_KEYED;
}

/* The AUTH message is well formed: lengths, fields, reserved bytes. */
static enum rmem_wire_status rmem_hs_check_msg(const struct rmem_session *sess)
{
	const struct rmem_wire_auth *a = sess->auth;
	u64 size = le64_to_cpu(a->size);

	if (sess->auth_status != IB_WC_SUCCESS || sess->auth_len != sizeof(*a) ||
	    le32_to_cpu(a->magic) != RMEM_WIRE_MAGIC)
		return RMEM_WIRE_EINVAL;
	if (le16_to_cpu(a->version) != sess->version)
		return RMEM_WIRE_EVERSION;
	if ((a->flags & ~rmem_hs_auth_flags(sess)) || a->reserved2 ||
	    (a->reserved && !(a->flags & RMEM_WIRE_AUTH_THIN)) ||
	    (!(a->flags & RMEM_WIRE_AUTH_KEYED) &&
	     memchr_inv(a->mac, 0, sizeof(a->mac))))
		return RMEM_WIRE_EINVAL;
	/* thin: whole extents of whole chunks, and no volume (for now) */
	if ((a->flags & RMEM_WIRE_AUTH_THIN) &&
	    (a->reserved < sess->srv->chunk_shift ||
	     a->reserved > RMEM_WIRE_EXTENT_SHIFT_MAX ||
	     !IS_ALIGNED(size, BIT_ULL(a->reserved)) || a->volume[0]))
		return RMEM_WIRE_EINVAL;
	if (!size || !IS_ALIGNED(size, SZ_4K) ||
	    !rmem_volume_name_ok(a->volume, sizeof(a->volume)))
		return RMEM_WIRE_EINVAL;
	if (a->host[0] && !rmem_host_id_ok(a->host, sizeof(a->host)))
		return RMEM_WIRE_EINVAL;
	return RMEM_WIRE_OK;
}

/*
 * Check the client's proof under @key and set the session key derived
 * from the same transcript.  Return: RMEM_WIRE_OK, EAUTH or ENOMEM.
 */
static enum rmem_wire_status rmem_hs_prove(struct rmem_session *sess,
					   const u8 *key)
{
	const struct rmem_wire_auth *a = sess->auth;
	u32 server_qpn = sess->conns[0]->cm_id->qp->qp_num;
	u8 mac[RMEM_WIRE_MAC_LEN], skey[RMEM_WIRE_MAC_LEN];
	enum rmem_wire_status status = RMEM_WIRE_ENOMEM;
	struct crypto_shash *tfm;

	tfm = rmem_mac_alloc(key, RMEM_KEY_LEN);
	if (IS_ERR(tfm))
		return RMEM_WIRE_ENOMEM;
	if (rmem_auth_mac(tfm, RMEM_MAC_CLIENT, &sess->challenge, sess->nonce,
			  sess->client_qpn, server_qpn, a, mac))
		goto out_free;
	status = RMEM_WIRE_EAUTH;
	if (crypto_memneq(mac, a->mac, sizeof(mac)))
		goto out_free;
	status = RMEM_WIRE_ENOMEM;
	if (rmem_auth_mac(tfm, RMEM_MAC_SESSION, &sess->challenge, sess->nonce,
			  sess->client_qpn, server_qpn, a, skey))
		goto out_free;
	sess->mac = rmem_mac_alloc(skey, sizeof(skey));
	if (IS_ERR(sess->mac)) {
		sess->mac = NULL;
		goto out_free;
	}
	status = RMEM_WIRE_OK;
out_free:
	memzero_explicit(skey, sizeof(skey));
	memzero_explicit(mac, sizeof(mac));
	rmem_mac_free(tfm);
	return status;
}

/**
 * rmem_hs_authenticate() - check the client's AUTH message
 * @sess: a shell whose AUTH receive completed
 *
 * A client that proves a key must have a host entry with that key
 * (whatever the mode: it expects the server to prove the key in turn).
 * One that proves none is refused if the server requires keys, or (mode
 * optional) if its identity has a host entry; in mode none it is taken
 * unauthenticated (it gets none of a proven host's volumes or limits).
 * On success the session's size, volume, hold time, identity and session
 * key are set.  Allocates nothing the pool gives.
 *
 * Return: RMEM_WIRE_OK or the status to refuse with.
 */
enum rmem_wire_status rmem_hs_authenticate(struct rmem_session *sess)
{
	struct rmem_server *srv = sess->srv;
	const struct rmem_wire_auth *a = sess->auth;
	enum rmem_wire_status status;
	u8 key[RMEM_KEY_LEN];
	struct rmem_host *host;
	bool keyed, found;
	u8 mode;

	ib_dma_sync_single_for_cpu(srv->ibdev, sess->auth_dma, sizeof(*a),
				   DMA_FROM_DEVICE);
	status = rmem_hs_check_msg(sess);
	if (status != RMEM_WIRE_OK)
		return status;
	keyed = a->flags & RMEM_WIRE_AUTH_KEYED;
	mutex_lock(&srv->lock);
	mode = rmem_server_auth(srv);
	host = a->host[0] ? rmem_host_find(srv, a->host) : NULL;
	found = host;
	if (host) {
		memcpy(key, host->key, sizeof(key));
		/* admission checks the key proved is still this entry's */
		sess->host_gen = host->gen;
	}
	mutex_unlock(&srv->lock);

	if (keyed && found) {
		status = rmem_hs_prove(sess, key);
		sess->proven = status == RMEM_WIRE_OK;
	} else if (keyed) {
		status = RMEM_WIRE_EAUTH;
	} else if ((found && mode != RMEM_AUTH_NONE) ||
		   mode == RMEM_AUTH_REQUIRED) {
		status = RMEM_WIRE_ENOKEY;
	} else {
		get_random_bytes(sess->session_key, sizeof(sess->session_key));
		sess->mac = rmem_mac_alloc(sess->session_key,
					   sizeof(sess->session_key));
		status = RMEM_WIRE_OK;
		if (IS_ERR(sess->mac)) {
			sess->mac = NULL;
			status = RMEM_WIRE_ENOMEM;
		}
	}
	memzero_explicit(key, sizeof(key));
	if (status == RMEM_WIRE_EAUTH || status == RMEM_WIRE_ENOKEY)
		pr_info_ratelimited("server %s: %pISp failed to authenticate as host %s: %s\n",
				    srv->name, &sess->peer,
				    a->host[0] ? a->host : "(none)",
				    status == RMEM_WIRE_ENOKEY ? "no key proved" :
				    found ? "wrong key" : "unknown host");
	if (status != RMEM_WIRE_OK)
		return status;
	strscpy(sess->host_id, a->host, sizeof(sess->host_id));
	strscpy(sess->volume_name, a->volume, sizeof(sess->volume_name));
	sess->size = le64_to_cpu(a->size);
	sess->thin = a->flags & RMEM_WIRE_AUTH_THIN;
	sess->extent_shift = sess->thin ? a->reserved : 0;
	sess->hold = msecs_to_jiffies(min_t(u32, le32_to_cpu(a->hold_ms),
					    RMEM_MAX_LOSS_TIMEOUT_MS +
					    RMEM_HOLD_SLACK_MS));
	return RMEM_WIRE_OK;
}

/**
 * rmem_session_check_ctl() - check a JOIN, RECONNECT or LEAVE request
 * @sess: the session its handle names, authenticated
 * @req: the request
 * @qpn: the queue pair number its REQ carries
 *
 * The MAC must be right and the counter greater than any the session
 * accepted before.  The caller makes the counter the session's once the
 * request passes its other checks too (address), so that a request is
 * accepted once at most, and a copy refused elsewhere does not use up
 * the genuine request's counter.
 *
 * Context: srv->lock held.
 * Return: RMEM_WIRE_OK, EAUTH, EREPLAY or ENOMEM.
 */
enum rmem_wire_status rmem_session_check_ctl(struct rmem_session *sess,
					     const struct rmem_wire_connect *req,
					     u32 qpn)
{
	u8 mac[RMEM_WIRE_MAC_LEN];
	u64 counter = le64_to_cpu(req->ctl.counter);

	if (!sess->mac || rmem_ctl_mac(sess->mac, req, qpn, mac))
		return RMEM_WIRE_ENOMEM;
	if (crypto_memneq(mac, req->ctl.mac, RMEM_WIRE_CTL_MAC_LEN))
		return RMEM_WIRE_EAUTH;
	if (counter <= sess->counter)
		return RMEM_WIRE_EREPLAY;
	return RMEM_WIRE_OK;
}
