// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_rogue: one rdma_cm connection, a session (NEW, READY, chunk table)
 * and the tests of what an access may do.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/random.h>

#include "../../user/crypto.h"
#include "rogue.h"

/* ---- one rdma_cm connection -------------------------------------------- */

void peer_destroy(struct peer *p)
{
	if (p->has_qp)
		rdma_destroy_qp(p->id);
	if (p->raw_qp)
		ibv_destroy_qp(p->raw_qp);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	if (p->id)
		rdma_destroy_id(p->id);
	if (p->ch)
		rdma_destroy_event_channel(p->ch);
	memset(p, 0, sizeof(*p));
}

/* A resolved rdma_cm id with its own PD and CQ (no QP yet). */
static int peer_resolve(struct peer *p)
{
	memset(p, 0, sizeof(*p));
	p->ch = rdma_create_event_channel();
	if (!p->ch)
		return why_errno("rdma_create_event_channel");
	if (fcntl(p->ch->fd, F_SETFL, fcntl(p->ch->fd, F_GETFL) | O_NONBLOCK))
		return why_errno("fcntl");
	if (rdma_create_id(p->ch, &p->id, NULL, RDMA_PS_TCP)) {
		p->id = NULL;
		return why_errno("rdma_create_id");
	}
	if (rdma_resolve_addr(p->id, peer_src, server_addr, RESOLVE_MS))
		return why_errno("rdma_resolve_addr");
	if (expect_event(p->ch, RDMA_CM_EVENT_ADDR_RESOLVED))
		return -1;
	if (rdma_resolve_route(p->id, RESOLVE_MS))
		return why_errno("rdma_resolve_route");
	if (expect_event(p->ch, RDMA_CM_EVENT_ROUTE_RESOLVED))
		return -1;
	p->pd = ibv_alloc_pd(p->id->verbs);
	if (!p->pd)
		return why_errno("ibv_alloc_pd");
	p->cq = ibv_create_cq(p->id->verbs, 8, NULL, NULL, 0);
	if (!p->cq)
		return why_errno("ibv_create_cq");
	return 0;
}

/*
 * A resolved rdma_cm id with its own PD, CQ and RC queue pair: rdma_cm's
 * (@raw false), or one it does not know (@raw: rdma_connect() sends its
 * number, and the RTU waits for rdma_establish(); the event is
 * RDMA_CM_EVENT_CONNECT_RESPONSE).
 */
static int peer_open_qp(struct peer *p, bool raw)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

	if (peer_resolve(p))
		return -1;
	qpa.send_cq = p->cq;
	qpa.recv_cq = p->cq;
	if (raw) {
		p->raw_qp = ibv_create_qp(p->pd, &qpa);
		if (!p->raw_qp)
			return why_errno("ibv_create_qp");
		return 0;
	}
	if (rdma_create_qp(p->id, p->pd, &qpa))
		return why_errno("rdma_create_qp");
	p->has_qp = true;
	return 0;
}

int peer_open(struct peer *p)
{
	return peer_open_qp(p, false);
}

int peer_open_raw(struct peer *p)
{
	return peer_open_qp(p, true);
}

/* A resolved id without a queue pair whose REQ claims queue pair @qpn. */
int peer_open_noqp(struct peer *p, uint32_t qpn)
{
	if (peer_resolve(p))
		return -1;
	p->qpn = qpn;
	return 0;
}

/* The queue pair number a REQ of @p carries. */
uint32_t peer_qpn(const struct peer *p)
{
	if (p->raw_qp)
		return p->raw_qp->qp_num;
	if (p->has_qp)
		return p->id->qp->qp_num;
	return p->qpn;
}

/*
 * Send a connect request with @len bytes of private data and wait for the
 * answer.  Like the kernel client: RDMA READs out (initiator depth 1),
 * none in.  Returns -1 only when there is no answer at all.
 */
int peer_connect(struct peer *p, const void *data, uint8_t len,
		 struct answer *a)
{
	if (peer_connect_start(p, data, len))
		return -1;
	return peer_connect_wait(p, a);
}

/* peer_connect() in two halves: send the request ... */
int peer_connect_start(struct peer *p, const void *data, uint8_t len)
{
	struct rdma_conn_param cp = {
		.private_data = data,
		.private_data_len = len,
		.initiator_depth = 1,
		.responder_resources = 0,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.qp_num = p->raw_qp ? p->raw_qp->qp_num : p->qpn,
	};

	if (rdma_connect(p->id, &cp))
		return why_errno("rdma_connect");
	return 0;
}

/* ... and wait for the answer. */
int peer_connect_wait(struct peer *p, struct answer *a)
{
	struct rdma_cm_event *ev;
	const uint8_t *rej;

	memset(a, 0, sizeof(*a));
	a->event = -1;
	a->wire_status = -1;
	a->wire_version = -1;
	if (get_event(p->ch, &ev, TIMEOUT_MS))
		return -1;
	a->event = ev->event;
	a->status = ev->status;
	rej = ev->param.conn.private_data;
	if ((ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	     ev->event == RDMA_CM_EVENT_CONNECT_RESPONSE) && rej) {
		a->rep_len = ev->param.conn.private_data_len < sizeof(a->rep) ?
			     ev->param.conn.private_data_len : sizeof(a->rep);
		memcpy(a->rep, rej, a->rep_len);
		a->qp_num = ev->param.conn.qp_num;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED && rej &&
	    ev->param.conn.private_data_len >= WIRE_REJECT_LEN &&
	    get32(rej) == WIRE_MAGIC) {
		a->wire_version = get16(rej + 4);
		a->wire_status = get16(rej + 6);
	}
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
		p->connected = true;
	rdma_ack_cm_event(ev);
	return 0;
}

const char *answer_str(const struct answer *a)
{
	static char buf[160];

	if (a->event == RDMA_CM_EVENT_REJECTED && a->wire_status >= 0)
		snprintf(buf, sizeof(buf),
			 "rejected, status %d (%s), server version %d, reason %d",
			 a->wire_status, status_name(a->wire_status),
			 a->wire_version, a->status);
	else if (a->event == RDMA_CM_EVENT_ESTABLISHED && a->wire_status > 0)
		snprintf(buf, sizeof(buf), "refused in READY, status %d (%s)",
			 a->wire_status, status_name(a->wire_status));
	else if (a->event == RDMA_CM_EVENT_REJECTED)
		snprintf(buf, sizeof(buf),
			 "rejected without rmem reject data, reason %d", a->status);
	else if (a->event >= 0)
		snprintf(buf, sizeof(buf), "%s (status %d)",
			 rdma_event_str(a->event), a->status);
	else
		snprintf(buf, sizeof(buf), "no answer");
	return buf;
}

/* Disconnect (bounded wait for DISCONNECTED); the QP flushes. */
void peer_disconnect(struct peer *p)
{
	struct rdma_cm_event *ev;
	bool done = false;

	if (!p->connected)
		return;
	p->connected = false;
	rdma_disconnect(p->id);
	while (!done && !get_event(p->ch, &ev, TIMEOUT_MS)) {
		done = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
	}
	if (!done)
		note("disconnect: %s", why);
}

/* ---- sessions ---------------------------------------------------------- */

void session_close(struct session *s)
{
	explicit_bzero(s->skey, sizeof(s->skey));
	peer_disconnect(&s->p);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->ready_mr)
		ibv_dereg_mr(s->ready_mr);
	peer_destroy(&s->p);
	free(s->buf);
	free(s->ready_buf);
	free(s->chunks);
	memset(s, 0, sizeof(*s));
}

/*
 * One signalled RDMA READ or WRITE of @len bytes between @local (in the
 * session's buffer) and @raddr/@rkey; *@st is its completion status.
 * Returns -1 when it could not be posted or did not complete in time.
 */
int session_rdma(struct session *s, enum ibv_wr_opcode op, void *local,
		 uint32_t len, uint64_t raddr, uint32_t rkey,
		 enum ibv_wc_status *st)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local,
		.length = len,
		.lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_RDMA,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = raddr,
		.wr.rdma.rkey = rkey,
	}, *bad;
	struct ibv_wc wc;
	int ret;

	ret = ibv_post_send(s->p.id->qp, &wr, &bad);
	if (ret) {
		errno = ret;
		return why_errno("ibv_post_send");
	}
	if (cq_wait(s->p.cq, &wc, WC_TIMEOUT_MS))
		return -1;
	if (wc.wr_id != WR_RDMA) {
		set_why("unexpected completion %" PRIu64 ": %s", wc.wr_id,
			ibv_wc_status_str(wc.status));
		return -1;
	}
	*st = wc.status;
	return 0;
}

/*
 * Check READY's proof under the session key, and that it describes memory
 * we can use.  Sets @s->ans.wire_status to READY's status.
 */
static int session_parse_ready(struct session *s, const uint8_t *r,
			       const struct cred *c)
{
	uint8_t msg[10 + 112 + 8], mac[SHA256_LEN];
	uint32_t flags;

	if (get32(r) != WIRE_MAGIC || get16(r + 4) != WIRE_VERSION) {
		set_why("READY with magic 0x%08x version %u", get32(r),
			get16(r + 4));
		return -1;
	}
	s->ans.wire_status = get16(r + 6);
	if (get16(r + 6) != ST_OK) {
		set_why("READY with status %u (%s)", get16(r + 6),
			status_name(get16(r + 6)));
		return -1;
	}
	flags = get32(r + 76);
	s->keyed = flags & WIRE_READY_KEYED;
	if (s->keyed != !!c->key) {
		set_why("READY %s keyed, our AUTH %s", s->keyed ? "is" : "is not",
			c->key ? "was" : "was not");
		return -1;
	}
	if (!s->keyed)
		memcpy(s->skey, r + 80, WIRE_KEY_LEN);
	memcpy(msg, "rmem-ready", 10);
	memcpy(msg + 10, r, 112);
	put64(msg + 122, 0);
	hmac_sha256(s->skey, WIRE_KEY_LEN, msg, sizeof(msg), mac);
	if (memcmp(mac, r + 112, WIRE_MAC_LEN)) {
		set_why("READY is not signed with the session key");
		return -1;
	}
	s->handle = get64(r + 8);
	/* pool_id at 16 */
	s->generation = get64(r + 32);
	s->size = get64(r + 40);
	s->chunk_size = get64(r + 48);
	s->nr_chunks = get32(r + 56);
	s->table_rkey = get32(r + 60);
	s->table_addr = get64(r + 64);
	s->table_len = get32(r + 72);
	if (!s->chunk_size || (s->chunk_size & (s->chunk_size - 1)) ||
	    s->chunk_size < IO_LEN || !s->nr_chunks ||
	    (uint64_t)s->nr_chunks * s->chunk_size < s->size ||
	    s->table_len != s->nr_chunks * WIRE_CHUNK_LEN ||
	    s->table_len > (1 << 24)) {
		set_why("READY makes no sense: size %" PRIu64 " chunk_size %" PRIu64
			" nr_chunks %u table_len %u", s->size, s->chunk_size,
			s->nr_chunks, s->table_len);
		return -1;
	}
	return 0;
}

/* Sign @req (op, indexes, our handle, the next counter) for queue pair @qpn. */
void session_sign(struct session *s, uint8_t *req, uint8_t op,
		  uint16_t qp_index, uint16_t nr_qps, uint32_t qpn)
{
	req_ctl(req, op, qp_index, nr_qps, s->handle, ++s->counter);
	req_sign(req, s->skey, qpn);
}

/*
 * Send AUTH from the upper half of ready_buf (or @replay_auth, captured
 * from another session) and wait for READY in the lower half.
 */
static int session_handshake(struct session *s, uint64_t size,
			     uint32_t hold_ms, const struct cred *c,
			     const uint8_t *replay_auth)
{
	uint8_t *a = s->ready_buf + 2048;
	struct ibv_sge sge = {
		.addr = (uintptr_t)a,
		.length = WIRE_AUTH_LEN,
		.lkey = s->ready_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_AUTH,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint32_t cqpn = s->p.id->qp->qp_num, sqpn = s->ans.qp_num;
	int auth_sent = 0;
	struct ibv_wc wc;

	if (s->ans.rep_len < WIRE_CHALLENGE_LEN ||
	    get32(s->ans.rep) != WIRE_MAGIC ||
	    get16(s->ans.rep + 4) != WIRE_VERSION) {
		set_why("NEW accepted without a valid challenge (%u bytes)",
			s->ans.rep_len);
		return -1;
	}
	if (replay_auth) {
		memcpy(a, replay_auth, WIRE_AUTH_LEN);
	} else {
		auth_msg(a, size, hold_ms, c);
		if (c->key) {
			auth_mac(c->key, "rmem-client", s->ans.rep, s->nonce,
				 cqpn, sqpn, a, a + 120);
			auth_mac(c->key, "rmem-session", s->ans.rep, s->nonce,
				 cqpn, sqpn, a, s->skey);
		}
	}
	memcpy(s->auth, a, WIRE_AUTH_LEN);
	if (ibv_post_send(s->p.id->qp, &wr, &bad))
		return why_errno("ibv_post_send AUTH");
	for (;;) {
		if (cq_wait(s->p.cq, &wc, READY_TIMEOUT_MS)) {
			set_why("no READY in %d s", READY_TIMEOUT_MS / 1000);
			return -1;
		}
		if (wc.wr_id != WR_AUTH || wc.status != IBV_WC_SUCCESS)
			break;
		auth_sent = 1;
	}
	if (wc.wr_id != WR_READY || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RECV || wc.byte_len != WIRE_READY_LEN) {
		set_why("READY receive: %s, %u bytes", ibv_wc_status_str(wc.status),
			wc.byte_len);
		return -1;
	}
	/*
	 * READY can be received before AUTH's send completes (its ACK comes
	 * later): take that completion here, or the next RDMA would meet it.
	 */
	if (!auth_sent) {
		if (cq_wait(s->p.cq, &wc, READY_TIMEOUT_MS)) {
			set_why("AUTH never completed");
			return -1;
		}
		if (wc.wr_id != WR_AUTH || wc.status != IBV_WC_SUCCESS) {
			set_why("AUTH send: %s", ibv_wc_status_str(wc.status));
			return -1;
		}
	}
	return session_parse_ready(s, s->ready_buf, c);
}

/*
 * Open a session: NEW on queue pair 0, the challenge, AUTH, READY, then
 * the chunk table read with an RDMA READ.  @replay_nonce and @replay_auth
 * (NULL for fresh ones) send a NEW nonce and an AUTH message captured
 * from another session.
 */
int session_open(struct session *s, uint64_t size, uint16_t nr_qps,
		 uint32_t hold_ms, const struct cred *c,
		 const uint8_t *replay_nonce, const uint8_t *replay_auth)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct ibv_recv_wr rwr = { .wr_id = WR_READY, .num_sge = 1 }, *rbad;
	struct ibv_sge sge;
	enum ibv_wc_status st;
	size_t tspace;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	if (peer_open(&s->p))
		return -1;
	s->ready_buf = aligned_alloc(4096, 4096);
	if (!s->ready_buf)
		return why_errno("aligned_alloc");
	memset(s->ready_buf, 0, 4096);
	s->ready_mr = ibv_reg_mr(s->p.pd, s->ready_buf, 4096,
				 IBV_ACCESS_LOCAL_WRITE);
	if (!s->ready_mr)
		return why_errno("ibv_reg_mr");
	sge.addr = (uintptr_t)s->ready_buf;
	sge.length = 2048;
	sge.lkey = s->ready_mr->lkey;
	rwr.sg_list = &sge;
	if (ibv_post_recv(s->p.id->qp, &rwr, &rbad))
		return why_errno("ibv_post_recv");

	if (replay_nonce)
		memcpy(s->nonce, replay_nonce, sizeof(s->nonce));
	else if (getrandom(s->nonce, sizeof(s->nonce), 0) != sizeof(s->nonce))
		return why_errno("getrandom");
	req_new(req, nr_qps, s->nonce);
	if (peer_connect(&s->p, req, sizeof(req), &s->ans))
		return -1;
	if (s->ans.event != RDMA_CM_EVENT_ESTABLISHED) {
		set_why("NEW not accepted: %s", answer_str(&s->ans));
		return -1;
	}
	if (session_handshake(s, size, hold_ms, c, replay_auth))
		return -1;

	tspace = (s->table_len + 4095) & ~(size_t)4095;
	s->buf = aligned_alloc(4096, tspace + IO_LEN);
	if (!s->buf)
		return why_errno("aligned_alloc");
	memset(s->buf, 0, tspace + IO_LEN);
	s->data = s->buf + tspace;
	s->mr = ibv_reg_mr(s->p.pd, s->buf, tspace + IO_LEN,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr)
		return why_errno("ibv_reg_mr");
	if (session_rdma(s, IBV_WR_RDMA_READ, s->buf, s->table_len,
			 s->table_addr, s->table_rkey, &st))
		return -1;
	if (st != IBV_WC_SUCCESS) {
		set_why("reading the chunk table: %s", ibv_wc_status_str(st));
		return -1;
	}
	s->chunks = calloc(s->nr_chunks, sizeof(*s->chunks));
	if (!s->chunks)
		return why_errno("calloc");
	for (i = 0; i < s->nr_chunks; i++) {
		s->chunks[i].addr = get64(s->buf + i * WIRE_CHUNK_LEN);
		s->chunks[i].rkey = get32(s->buf + i * WIRE_CHUNK_LEN + 8);
	}
	return 0;
}

/*
 * session_open() with retries while the server still frees the memory of
 * sessions we closed a moment ago.  Reports a failure when it gives up.
 */
int session_new(struct session *s, const char *what)
{
	return session_new_held(s, what, 0);
}

/* session_new() of a session the server holds @hold_ms for a reconnect. */
int session_new_held(struct session *s, const char *what, uint32_t hold_ms)
{
	char reason[sizeof(why)];
	int i, ws;

	for (i = 0; i < OPEN_TRIES; i++) {
		if (!session_open(s, SESSION_SIZE, 1, hold_ms, &my_cred, NULL,
				  NULL))
			return 0;
		ws = s->ans.wire_status;
		memcpy(reason, why, sizeof(reason));
		session_close(s);
		if (ws != ST_ENOSPC && ws != ST_EAGAIN && ws != ST_ENOMEM &&
		    ws != ST_EHANDSHAKES)
			break;
		usleep(500 * 1000);
	}
	fail("%s: could not open a session: %s", what, reason);
	return -1;
}

/* Bytes of chunk @i that belong to the session. */
uint64_t chunk_bytes(const struct session *s, uint32_t i)
{
	uint64_t off = (uint64_t)i * s->chunk_size;

	if (off < s->size && s->size - off < s->chunk_size)
		return s->size - off;
	return s->chunk_size;
}

/*
 * Whether the table says an access is one the session may make: inside a
 * chunk through that chunk's rkey, or a READ inside the table.  No attack
 * is run that this calls legal.
 */
bool legal(const struct session *s, bool write, uint64_t addr,
	   uint32_t len, uint32_t rkey)
{
	uint32_t i;

	for (i = 0; i < s->nr_chunks; i++)
		if (rkey == s->chunks[i].rkey && addr >= s->chunks[i].addr &&
		    addr + len <= s->chunks[i].addr + s->chunk_size)
			return true;
	return !write && rkey == s->table_rkey && addr >= s->table_addr &&
	       addr + len <= s->table_addr + s->table_len;
}

bool known_rkey(const struct session *s, uint32_t rkey)
{
	uint32_t i;

	if (rkey == s->table_rkey)
		return true;
	for (i = 0; i < s->nr_chunks; i++)
		if (rkey == s->chunks[i].rkey)
			return true;
	return false;
}

/*
 * A work completion that shows the remote NIC refused the access: a NAK
 * for a bad key or range (remote access error) or a malformed request
 * (invalid request).  Nothing else is a refusal: success is the attack
 * getting through, a flush or a local error means it never reached the
 * server, and a transport retry or a response timeout means the server
 * did not answer, which proves nothing about its checks.
 */
bool nic_refused(enum ibv_wc_status st)
{
	return st == IBV_WC_REM_ACCESS_ERR || st == IBV_WC_REM_INV_REQ_ERR;
}

bool all_bytes(const uint8_t *p, uint8_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}
