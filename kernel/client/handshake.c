// SPDX-License-Identifier: GPL-2.0
/*
 * rmem client role: authenticating to a server, and what a refusal says.
 *
 * RMEM_WIRE_NEW carries a fresh nonce; the server's accept carries its
 * challenge (rmem_queue_challenge()).  The client then SENDs its AUTH
 * message on queue pair 0 (rmem_sess_send_auth()): its host identity, what
 * it asks for and, with a host key, its proof over the whole exchange;
 * the session key is derived from the same transcript and the host key is
 * wiped.  READY must carry the server's proof under that session key
 * (rmem_sess_ready_auth()): a client with a key refuses a server that
 * cannot prove the same key.  JOIN, RECONNECT and LEAVE are signed under
 * the session key with a counter that only grows (rmem_sess_sign()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/algapi.h>
#include <linux/random.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "auth.h"
#include "client.h"

/**
 * rmem_wire_status_err() - the errno of a server's refusal
 * @status: &enum rmem_wire_status of a reject or READY
 * @why: set to what the refusal says, for rmem_cm_why_msg()
 *
 * Return: a negative errno; -ECONNRESET for a status this client does
 * not know.
 */
int rmem_wire_status_err(unsigned int status, enum rmem_cm_why *why)
{
	static const struct {
		int err;
		enum rmem_cm_why why;
	} map[] = {
		[RMEM_WIRE_EVERSION] = { -EPROTONOSUPPORT, RMEM_CM_EVERSION },
		[RMEM_WIRE_EINVAL] = { -EINVAL, RMEM_CM_EINVAL },
		[RMEM_WIRE_EACCES] = { -EACCES, RMEM_CM_EACCES },
		[RMEM_WIRE_ENOSPC] = { -ENOSPC, RMEM_CM_ENOSPC },
		[RMEM_WIRE_EBUSY] = { -EBUSY, RMEM_CM_EBUSY },
		[RMEM_WIRE_ESIZE] = { -EINVAL, RMEM_CM_ESIZE },
		[RMEM_WIRE_ENOSESSION] = { -ENOENT, RMEM_CM_ENOSESSION },
		[RMEM_WIRE_ENOMEM] = { -ENOMEM, RMEM_CM_ENOMEM },
		[RMEM_WIRE_EREG] = { -EIO, RMEM_CM_EREG },
		[RMEM_WIRE_EAGAIN] = { -EAGAIN, RMEM_CM_EAGAIN },
		[RMEM_WIRE_EAUTH] = { -EKEYREJECTED, RMEM_CM_EAUTH },
		[RMEM_WIRE_ENOKEY] = { -ENOKEY, RMEM_CM_ENOKEY },
		[RMEM_WIRE_ESESSIONS] = { -EUSERS, RMEM_CM_ESESSIONS },
		[RMEM_WIRE_EQUOTA] = { -EDQUOT, RMEM_CM_EQUOTA },
		[RMEM_WIRE_EHANDSHAKES] = { -EAGAIN, RMEM_CM_EHANDSHAKES },
		[RMEM_WIRE_EOWNER] = { -EPERM, RMEM_CM_EOWNER },
		/* retried: a connect request resent by the CM is a replay */
		[RMEM_WIRE_EREPLAY] = { -EALREADY, RMEM_CM_EREPLAY },
	};

	if (status >= ARRAY_SIZE(map) || !map[status].err) {
		*why = RMEM_CM_REFUSED;
		return -ECONNRESET;
	}
	*why = map[status].why;
	return map[status].err;
}

/**
 * rmem_cm_why_msg() - the extack message of a failed connect
 * @extack: error reporting, may be NULL
 * @why: what failed
 */
void rmem_cm_why_msg(struct netlink_ext_ack *extack, enum rmem_cm_why why)
{
	switch (why) {
	case RMEM_CM_TIMEOUT:
		NL_SET_ERR_MSG(extack, "timed out connecting to the peer");
		break;
	case RMEM_CM_ROUTE_RESOLUTION:
		NL_SET_ERR_MSG(extack, "route resolution failed");
		break;
	case RMEM_CM_QP_SETUP:
		NL_SET_ERR_MSG(extack, "cannot set up the queue pair on the RDMA device");
		break;
	case RMEM_CM_IWARP:
		NL_SET_ERR_MSG(extack, "iWARP RDMA devices are not supported");
		break;
	case RMEM_CM_DEV_REMOVED:
		NL_SET_ERR_MSG(extack, "the RDMA device was removed");
		break;
	case RMEM_CM_DEV_CHANGED:
		NL_SET_ERR_MSG(extack,
			       "the route to the peer now uses an RDMA device with other limits");
		break;
	case RMEM_CM_NO_LISTENER:
		NL_SET_ERR_MSG(extack,
			       "connection refused: no rmem server at that address and port");
		break;
	case RMEM_CM_PEER_CM:
		NL_SET_ERR_MSG(extack,
			       "the peer's RDMA connection manager refused the connection");
		break;
	case RMEM_CM_REFUSED:
		NL_SET_ERR_MSG(extack, "server refused the connection");
		break;
	case RMEM_CM_ADDR:
		NL_SET_ERR_MSG(extack,
			       "peer address unreachable (no RDMA route or no ARP answer)");
		break;
	case RMEM_CM_ROUTE:
		NL_SET_ERR_MSG(extack, "no route to the peer");
		break;
	case RMEM_CM_UNREACHABLE:
		NL_SET_ERR_MSG(extack, "no answer from the peer to the connect request");
		break;
	case RMEM_CM_EVERSION:
		NL_SET_ERR_MSG(extack, "server speaks another rmem protocol version");
		break;
	case RMEM_CM_EINVAL:
		NL_SET_ERR_MSG(extack, "server refused the request as malformed");
		break;
	case RMEM_CM_EACCES:
		NL_SET_ERR_MSG(extack, "server does not allow this client's address");
		break;
	case RMEM_CM_ENOSPC:
		NL_SET_ERR_MSG(extack, "not enough free memory in the server's pool");
		break;
	case RMEM_CM_EBUSY:
		NL_SET_ERR_MSG(extack, "volume is attached by another client");
		break;
	case RMEM_CM_ESIZE:
		NL_SET_ERR_MSG(extack,
			       "volume exists on the server with a different size");
		break;
	case RMEM_CM_ENOSESSION:
		NL_SET_ERR_MSG(extack, "server does not know the session any more");
		break;
	case RMEM_CM_ENOMEM:
		NL_SET_ERR_MSG(extack, "server is out of memory or resources");
		break;
	case RMEM_CM_EREG:
		NL_SET_ERR_MSG(extack, "server could not register memory");
		break;
	case RMEM_CM_EAGAIN:
		NL_SET_ERR_MSG(extack, "server is recovering the session: try again");
		break;
	case RMEM_CM_EAUTH:
		NL_SET_ERR_MSG(extack,
			       "authentication failed: the server has no entry for this host identity, or another key for it");
		break;
	case RMEM_CM_ENOKEY:
		NL_SET_ERR_MSG(extack,
			       "server requires authentication: give this host's key (key-file or key-desc)");
		break;
	case RMEM_CM_ESESSIONS:
		NL_SET_ERR_MSG(extack,
			       "this host has as many sessions on the server as its entry allows");
		break;
	case RMEM_CM_EQUOTA:
		NL_SET_ERR_MSG(extack,
			       "this host would hold more memory on the server than its size limit");
		break;
	case RMEM_CM_EHANDSHAKES:
		NL_SET_ERR_MSG(extack,
			       "server is busy authenticating other connections: try again");
		break;
	case RMEM_CM_EOWNER:
		NL_SET_ERR_MSG(extack,
			       "volume belongs to another host (or to this host with the other kind of authentication: with or without a key)");
		break;
	case RMEM_CM_EREPLAY:
		NL_SET_ERR_MSG(extack, "server refused a replayed request");
		break;
	case RMEM_CM_NO_READS:
		NL_SET_ERR_MSG(extack,
			       "server grants no RDMA READ (responder resources 0): it cannot serve reads");
		break;
	case RMEM_CM_DEV_UNFIT:
		NL_SET_ERR_MSG(extack,
			       "this host's RDMA device offers no RDMA READ (max_qp_init_rd_atom or max_sge_rd 0)");
		break;
	case RMEM_CM_OK:
		break;
	}
}

/**
 * rmem_queue_challenge() - keep the challenge of a RMEM_WIRE_NEW accept
 * @queue: queue pair 0, connecting with RMEM_WIRE_NEW
 * @ev: its ESTABLISHED event, carrying the REP's private data
 *
 * Context: the queue's rdma_cm handler.
 */
void rmem_queue_challenge(struct rmem_queue *queue, struct rdma_cm_event *ev)
{
	struct rmem_sess *sess = queue->sess;

	sess->got_challenge = ev->param.conn.private_data &&
			     ev->param.conn.private_data_len >=
			     sizeof(sess->challenge);
	if (!sess->got_challenge)
		return;
	memcpy(&sess->challenge, ev->param.conn.private_data,
	       sizeof(sess->challenge));
	sess->server_qpn = ev->param.conn.qp_num;
}

/**
 * rmem_sess_auth_sent() - completion of the AUTH send
 * @cq: the CQ
 * @wc: the work completion
 */
void rmem_sess_auth_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rmem_sess *sess = container_of(wc->wr_cqe, struct rmem_sess,
					      auth_cqe);

	/* READY does not come then: rmem_sess_ready() says so */
	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("%s: sending the AUTH message failed: %s\n",
				    sess->dev->name,
				    ib_wc_status_msg(wc->status));
}

/* Keep the server's name if it is printable; it is only shown. */
static void rmem_sess_keep_server_name(struct rmem_sess *sess)
{
	const char *n = sess->challenge.server;
	size_t i, len = strnlen(n, sizeof(sess->challenge.server));

	if (len == sizeof(sess->challenge.server))
		return;
	for (i = 0; i < len; i++)
		if (n[i] < 0x20 || n[i] > 0x7e)
			return;
	strscpy(sess->server_name, n, sizeof(sess->server_name));
}

/*
 * The proof and the session key of a keyed AUTH message, from the host
 * key, which is wiped after the last session's: the session key is all
 * the device needs from now.
 */
static int rmem_sess_prove(struct rmem_sess *sess, u32 client_qpn)
{
	struct rmem_dev *dev = sess->dev;
	struct rmem_wire_auth *a = sess->auth;
	u8 skey[RMEM_WIRE_MAC_LEN];
	struct crypto_shash *tfm;
	int ret;

	tfm = rmem_mac_alloc(dev->cfg.key, sizeof(dev->cfg.key));
	if (sess->index + 1 == rmem_dev_nr_sess(dev))
		memzero_explicit(dev->cfg.key, sizeof(dev->cfg.key));
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	ret = rmem_auth_mac(tfm, RMEM_MAC_CLIENT, &sess->challenge, sess->nonce,
			    client_qpn, sess->server_qpn, a, a->mac);
	if (!ret)
		ret = rmem_auth_mac(tfm, RMEM_MAC_SESSION, &sess->challenge,
				    sess->nonce, client_qpn, sess->server_qpn, a,
				    skey);
	rmem_mac_free(tfm);
	if (ret)
		goto out_wipe;
	sess->mac = rmem_mac_alloc(skey, sizeof(skey));
	if (IS_ERR(sess->mac)) {
		ret = PTR_ERR(sess->mac);
		sess->mac = NULL;
	}
out_wipe:
	memzero_explicit(skey, sizeof(skey));
	return ret;
}

/**
 * rmem_sess_send_auth() - answer the server's challenge
 * @sess: the session; queue pair 0 established with RMEM_WIRE_NEW
 * @extack: error reporting
 *
 * Return: 0 once the AUTH message is posted, or a negative errno.
 */
int rmem_sess_send_auth(struct rmem_sess *sess,
			struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev = sess->dev;
	const struct rmem_wire_challenge *ch = &sess->challenge;
	struct ib_qp *qp = sess->queues[0].cm_id->qp;
	struct rmem_wire_auth *a = sess->auth;
	struct ib_send_wr wr = {};
	struct ib_sge sge;
	int ret;

	if (!sess->got_challenge || le32_to_cpu(ch->magic) != RMEM_WIRE_MAGIC ||
	    le16_to_cpu(ch->version) != sess->wire_version ||
	    le16_to_cpu(ch->status) != RMEM_WIRE_OK) {
		memzero_explicit(dev->cfg.key, sizeof(dev->cfg.key));
		NL_SET_ERR_MSG(extack, "server accepted without a valid challenge");
		return -EPROTO;
	}
	rmem_sess_keep_server_name(sess);
	memset(a, 0, sizeof(*a));
	a->magic = cpu_to_le32(RMEM_WIRE_MAGIC);
	a->version = cpu_to_le16(sess->wire_version);
	a->size = cpu_to_le64(dev->cfg.size);
	if (dev->cfg.extent) {
		a->flags |= RMEM_WIRE_AUTH_THIN;
		a->reserved = ilog2(dev->cfg.extent);
	}
	if (dev->cfg.loss_timeout_ms)
		a->hold_ms = cpu_to_le32(dev->cfg.loss_timeout_ms +
					 RMEM_HOLD_SLACK_MS);
	strscpy_pad(a->volume, dev->cfg.volume, sizeof(a->volume));
	strscpy_pad(a->host, dev->cfg.host_id, sizeof(a->host));
	if (dev->cfg.has_key) {
		a->flags |= RMEM_WIRE_AUTH_KEYED;
		ret = rmem_sess_prove(sess, qp->qp_num);
		if (ret) {
			NL_SET_ERR_MSG(extack, "cannot compute the proof (HMAC-SHA256)");
			return ret;
		}
	}
	ib_dma_sync_single_for_device(dev->ibdev, sess->auth_dma, sizeof(*a),
				      DMA_TO_DEVICE);
	sge.addr = sess->auth_dma;
	sge.length = sizeof(*a);
	sge.lkey = dev->pd->local_dma_lkey;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	wr.wr_cqe = &sess->auth_cqe;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	ret = ib_post_send(qp, &wr, NULL);
	if (ret)
		NL_SET_ERR_MSG(extack, "cannot send the AUTH message");
	return ret;
}

/**
 * rmem_sess_ready_auth() - check the server's proof in READY
 * @sess: the session; READY received, synced for the CPU, status OK
 * @extack: error reporting, may be NULL
 *
 * A device that proved a key wants READY signed under the session key it
 * derived: a server without that key cannot.  An unauthenticated session
 * takes its session key from the first READY.
 *
 * Return: 0, -EKEYREJECTED or -EPROTO.
 */
int rmem_sess_ready_auth(struct rmem_sess *sess,
			 struct netlink_ext_ack *extack)
{
	struct rmem_dev *dev = sess->dev;
	struct rmem_wire_ready *r = sess->ready;
	u32 flags = le32_to_cpu(r->flags);
	bool keyed = flags & RMEM_WIRE_READY_KEYED;
	u8 mac[RMEM_WIRE_MAC_LEN];
	int ret = -EKEYREJECTED;

	/* THIN: a thin session's (rmem_sess_ready() checks it was asked for) */
	if (flags & ~(RMEM_WIRE_READY_KEYED | RMEM_WIRE_READY_THIN) ||
	    (keyed && memchr_inv(r->session_key, 0, sizeof(r->session_key)))) {
		NL_SET_ERR_MSG(extack, "server sent a malformed session description");
		ret = -EPROTO;
		goto out_wipe;
	}
	if (keyed != (sess->has_session ? sess->proven : dev->cfg.has_key)) {
		if (keyed)
			NL_SET_ERR_MSG(extack,
				       "server claims a key this host did not use");
		else
			NL_SET_ERR_MSG(extack,
				       "server could not prove it has this host's key");
		goto out_wipe;
	}
	if (!keyed && !sess->has_session) {
		sess->mac = rmem_mac_alloc(r->session_key, sizeof(r->session_key));
		if (IS_ERR(sess->mac)) {
			ret = PTR_ERR(sess->mac);
			sess->mac = NULL;
			NL_SET_ERR_MSG(extack, "cannot set up HMAC-SHA256");
			goto out_wipe;
		}
	}
	if (!sess->mac || rmem_ready_mac(sess->mac, r, sess->has_session ?
					sess->reconnect_counter : 0, mac) ||
	    crypto_memneq(mac, r->mac, sizeof(mac))) {
		NL_SET_ERR_MSG(extack,
			       "server's session description is not signed with the session key");
		goto out_wipe;
	}
	sess->proven = keyed;
	ret = 0;
out_wipe:
	memzero_explicit(r->session_key, sizeof(r->session_key));
	return ret;
}

/**
 * rmem_sess_sign() - sign a JOIN, RECONNECT or LEAVE request
 * @sess: the session, READY received once
 * @req: the request, its other fields set
 * @qpn: the number of the queue pair whose REQ carries it, 0 for none
 *
 * Context: the connects of attach, reconnect and detach (a connect that
 * timed out may still sign in its handler: the counter is atomic).
 * Return: 0 or a negative errno of the crypto API.
 */
int rmem_sess_sign(struct rmem_sess *sess, struct rmem_wire_connect *req,
		   u32 qpn)
{
	u8 mac[RMEM_WIRE_MAC_LEN];
	int ret;

	if (!sess->mac)
		return -ENOKEY;
	req->ctl.handle = cpu_to_le64(sess->handle);
	req->ctl.counter = cpu_to_le64(atomic64_inc_return(&sess->counter));
	ret = rmem_ctl_mac(sess->mac, req, qpn, mac);
	memcpy(req->ctl.mac, mac, sizeof(req->ctl.mac));
	return ret;
}
