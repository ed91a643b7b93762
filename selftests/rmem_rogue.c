// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_rogue: a hostile RDMA client for an rmem server.
 *
 *   rmem_rogue ADDR PORT
 *
 * Tries what a buggy or malicious client could do to the rmem server at
 * ADDR:PORT and reports each attempt as a KTAP diagnostic line, "# ok: ..."
 * or "# FAIL: ...":
 *
 *  1. malformed connect requests, each on a fresh rdma_cm id with a queue
 *     pair: every one must end in a reject carrying rmem reject data with
 *     the expected status, never in an established connection;
 *  2. one-sided accesses outside what a session was given: past the end of
 *     a chunk, beyond every chunk, a WRITE through the read-only chunk
 *     table, guessed memory keys; each must fail at the NIC (a work
 *     completion error).  An in-bounds READ and WRITE of the session's own
 *     memory are positive controls and must succeed;
 *  3. one session using another session's memory keys: a READ and a WRITE
 *     of its chunk and a READ of its chunk table must fail at the NIC (the
 *     sessions have different protection domains), and the victim's data
 *     must be unchanged.
 *
 * A failed access leaves the queue pair in the error state, so every such
 * attempt gets a session of its own.  Every wait is bounded: a hang is
 * reported as a failure.  Exit status: 0 when every attack was refused
 * and every positive control passed, 1 otherwise, 2 on a usage error.
 *
 * Layouts are rebuilt here byte by byte (little endian) from kernel/proto.h
 * on purpose: this program is the protocol's outside view.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* kernel/proto.h, version 2 */
#define WIRE_MAGIC		0x4d454d52
#define WIRE_VERSION		2
#define WIRE_CONNECT_LEN	56
#define WIRE_REJECT_LEN		8
#define WIRE_READY_LEN		88
#define WIRE_CHUNK_LEN		16
#define WIRE_TOKEN_LEN		16
#define WIRE_VOLUME_MAX		32
#define WIRE_MAX_QPS		64

enum wire_op {
	OP_NEW = 1,
	OP_JOIN = 2,
	OP_RECONNECT = 3,
	OP_LEAVE = 4,
};

enum wire_status {
	ST_OK,
	ST_EVERSION,
	ST_EINVAL,
	ST_EACCES,
	ST_ENOSPC,
	ST_EBUSY,
	ST_ESIZE,
	ST_ENOSESSION,
	ST_ENOMEM,
	ST_EREG,
	ST_EAGAIN,
};

static const char *const status_names[] = {
	"OK", "EVERSION", "EINVAL", "EACCES", "ENOSPC", "EBUSY", "ESIZE",
	"ENOSESSION", "ENOMEM", "EREG", "EAGAIN",
};

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)		__attribute__((format(printf, a, b)))

#define TIMEOUT_MS		10000	/* rdma_cm events */
#define READY_TIMEOUT_MS	30000	/* the server zeroes and registers */
#define WC_TIMEOUT_MS		30000	/* a full RC retry cycle fits */
#define RESOLVE_MS		2000
#define SESSION_SIZE		(8ULL << 20)
#define IO_LEN			4096
#define OPEN_TRIES		20	/* earlier sessions free asynchronously */

#define WR_READY		1
#define WR_RDMA			2

static struct sockaddr *server_addr;
static unsigned int nr_refused, nr_failed;
static char why[512];

/* ---- reporting --------------------------------------------------------- */

static void __printf(1, 2) set_why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

static int why_errno(const char *what)
{
	set_why("%s: %s", what, strerror(errno));
	return -1;
}

static void __printf(2, 3) report(const char *tag, const char *fmt, ...)
{
	va_list ap;

	printf("# %s: ", tag);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define control_ok(...)	report("ok", __VA_ARGS__)
#define refused(...)	(nr_refused++, report("ok", __VA_ARGS__))
#define fail(...)	(nr_failed++, report("FAIL", __VA_ARGS__))
#define note(...)	report("rogue", __VA_ARGS__)

static const char *status_name(int status)
{
	if (status >= 0 && status < (int)ARRAY_SIZE(status_names))
		return status_names[status];
	return "unknown";
}

/* ---- little endian fields ---------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* struct rmem_wire_connect: magic, version, op, flags, qp_index, nr_qps */
static void req_init(uint8_t *b, uint8_t op)
{
	memset(b, 0, WIRE_CONNECT_LEN);
	put32(b, WIRE_MAGIC);
	put16(b + 4, WIRE_VERSION);
	b[6] = op;
}

/* NEW: size at 12, volume[32] at 20, hold_ms at 52 */
static void req_new(uint8_t *b, uint16_t nr_qps, uint64_t size)
{
	req_init(b, OP_NEW);
	put16(b + 10, nr_qps);
	put64(b + 12, size);
}

/* JOIN, RECONNECT, LEAVE: token at 12 */
static void req_token(uint8_t *b, uint8_t op, uint16_t qp_index,
		      uint16_t nr_qps, const uint8_t *token)
{
	req_init(b, op);
	put16(b + 8, qp_index);
	put16(b + 10, nr_qps);
	memcpy(b + 12, token, WIRE_TOKEN_LEN);
}

/* ---- waiting, bounded -------------------------------------------------- */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next rdma_cm event of @ch (non-blocking fd), within @ms. */
static int get_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev,
		     int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	int64_t end = now_ms() + ms, left;

	for (;;) {
		if (!rdma_get_cm_event(ch, ev))
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return why_errno("rdma_get_cm_event");
		left = end - now_ms();
		if (left <= 0) {
			set_why("no rdma_cm event in %d s", ms / 1000);
			return -1;
		}
		poll(&pfd, 1, (int)left);
	}
}

static int expect_event(struct rdma_event_channel *ch,
			enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int ret = 0;

	if (get_event(ch, &ev, TIMEOUT_MS))
		return -1;
	if (ev->event != want) {
		set_why("%s instead of %s (status %d)", rdma_event_str(ev->event),
			rdma_event_str(want), ev->status);
		ret = -1;
	}
	rdma_ack_cm_event(ev);
	return ret;
}

/* One work completion of @cq within @ms. */
static int cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int64_t end = now_ms() + ms;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0) {
			set_why("ibv_poll_cq failed");
			return -1;
		}
		if (n)
			return 0;
		if (now_ms() >= end) {
			set_why("no work completion in %d s", ms / 1000);
			return -1;
		}
		usleep(200);
	}
}

/* ---- one rdma_cm connection -------------------------------------------- */

struct peer {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	bool has_qp;
	bool connected;
};

/* What the server answered a connect request with. */
struct answer {
	int event;		/* enum rdma_cm_event_type, -1 for none */
	int status;		/* the event's status (reject reason) */
	int wire_status;	/* from rmem reject data, -1 without it */
	int wire_version;
};

static void peer_destroy(struct peer *p)
{
	if (p->has_qp)
		rdma_destroy_qp(p->id);
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

/* A resolved rdma_cm id with its own PD, CQ and RC queue pair. */
static int peer_open(struct peer *p)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};

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
	if (rdma_resolve_addr(p->id, NULL, server_addr, RESOLVE_MS))
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
	qpa.send_cq = p->cq;
	qpa.recv_cq = p->cq;
	if (rdma_create_qp(p->id, p->pd, &qpa))
		return why_errno("rdma_create_qp");
	p->has_qp = true;
	return 0;
}

/*
 * Send a connect request with @len bytes of private data and wait for the
 * answer.  Like the kernel client: RDMA READs out (initiator depth 1),
 * none in.  Returns -1 only when there is no answer at all.
 */
static int peer_connect(struct peer *p, const void *data, uint8_t len,
			struct answer *a)
{
	struct rdma_conn_param cp = {
		.private_data = data,
		.private_data_len = len,
		.initiator_depth = 1,
		.responder_resources = 0,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;
	const uint8_t *rej;

	a->event = -1;
	a->status = 0;
	a->wire_status = -1;
	a->wire_version = -1;
	if (rdma_connect(p->id, &cp))
		return why_errno("rdma_connect");
	if (get_event(p->ch, &ev, TIMEOUT_MS))
		return -1;
	a->event = ev->event;
	a->status = ev->status;
	rej = ev->param.conn.private_data;
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

static const char *answer_str(const struct answer *a)
{
	static char buf[160];

	if (a->event == RDMA_CM_EVENT_REJECTED && a->wire_status >= 0)
		snprintf(buf, sizeof(buf),
			 "rejected, status %d (%s), server version %d, reason %d",
			 a->wire_status, status_name(a->wire_status),
			 a->wire_version, a->status);
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
static void peer_disconnect(struct peer *p)
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

struct chunk {
	uint64_t addr;
	uint32_t rkey;
};

struct session {
	struct peer p;
	struct answer ans;
	uint8_t *ready_buf;
	struct ibv_mr *ready_mr;
	uint8_t *buf;		/* chunk table copy, then data */
	struct ibv_mr *mr;
	uint8_t *data;		/* IO_LEN bytes in buf */
	uint8_t token[WIRE_TOKEN_LEN];
	uint64_t generation;
	uint64_t size;
	uint64_t chunk_size;
	uint32_t nr_chunks;
	uint32_t table_rkey;
	uint64_t table_addr;
	uint32_t table_len;
	struct chunk *chunks;
};

static void session_close(struct session *s)
{
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
static int session_rdma(struct session *s, enum ibv_wr_opcode op, void *local,
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

/* Parse READY and check it describes memory we can use. */
static int session_parse_ready(struct session *s, const uint8_t *r)
{
	if (get32(r) != WIRE_MAGIC || get16(r + 4) != WIRE_VERSION) {
		set_why("READY with magic 0x%08x version %u", get32(r),
			get16(r + 4));
		return -1;
	}
	if (get16(r + 6) != ST_OK) {
		set_why("READY with status %u (%s)", get16(r + 6),
			status_name(get16(r + 6)));
		return -1;
	}
	memcpy(s->token, r + 8, WIRE_TOKEN_LEN);
	/* pool_id at 24 */
	s->generation = get64(r + 40);
	s->size = get64(r + 48);
	s->chunk_size = get64(r + 56);
	s->nr_chunks = get32(r + 64);
	s->table_rkey = get32(r + 68);
	s->table_addr = get64(r + 72);
	s->table_len = get32(r + 80);
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

/*
 * Open a session: NEW on queue pair 0 (nr_qps 1, hold_ms 0), READY,
 * then the chunk table read with an RDMA READ.
 */
static int session_open(struct session *s, uint64_t size)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct ibv_recv_wr rwr = { .wr_id = WR_READY, .num_sge = 1 }, *rbad;
	struct ibv_sge sge;
	enum ibv_wc_status st;
	struct ibv_wc wc;
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
	sge.length = 4096;
	sge.lkey = s->ready_mr->lkey;
	rwr.sg_list = &sge;
	if (ibv_post_recv(s->p.id->qp, &rwr, &rbad))
		return why_errno("ibv_post_recv");

	req_new(req, 1, size);
	if (peer_connect(&s->p, req, sizeof(req), &s->ans))
		return -1;
	if (s->ans.event != RDMA_CM_EVENT_ESTABLISHED) {
		set_why("NEW not accepted: %s", answer_str(&s->ans));
		return -1;
	}
	if (cq_wait(s->p.cq, &wc, READY_TIMEOUT_MS)) {
		set_why("no READY in %d s", READY_TIMEOUT_MS / 1000);
		return -1;
	}
	if (wc.wr_id != WR_READY || wc.status != IBV_WC_SUCCESS ||
	    wc.opcode != IBV_WC_RECV || wc.byte_len != WIRE_READY_LEN) {
		set_why("READY receive: %s, %u bytes", ibv_wc_status_str(wc.status),
			wc.byte_len);
		return -1;
	}
	if (session_parse_ready(s, s->ready_buf))
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
static int session_new(struct session *s, const char *what)
{
	char reason[sizeof(why)];
	int i, ws;

	for (i = 0; i < OPEN_TRIES; i++) {
		if (!session_open(s, SESSION_SIZE))
			return 0;
		ws = s->ans.wire_status;
		memcpy(reason, why, sizeof(reason));
		session_close(s);
		if (ws != ST_ENOSPC && ws != ST_EAGAIN && ws != ST_ENOMEM)
			break;
		usleep(500 * 1000);
	}
	fail("%s: could not open a session: %s", what, reason);
	return -1;
}

/* Bytes of chunk @i that belong to the session. */
static uint64_t chunk_bytes(const struct session *s, uint32_t i)
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
static bool legal(const struct session *s, bool write, uint64_t addr,
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

static bool known_rkey(const struct session *s, uint32_t rkey)
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
 * A work completion that shows the remote NIC refused the access.  Success
 * is the attack getting through; a flush means the QP was broken before
 * the attempt; a local error means it never left this host.
 */
static bool nic_refused(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_SUCCESS:
	case IBV_WC_WR_FLUSH_ERR:
	case IBV_WC_LOC_LEN_ERR:
	case IBV_WC_LOC_QP_OP_ERR:
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_ACCESS_ERR:
		return false;
	default:
		return true;
	}
}

static bool all_bytes(const uint8_t *p, uint8_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* ---- 1. malformed connect requests ------------------------------------- */

/*
 * Send one connect request; it must be rejected with rmem reject data,
 * status @want or @want2 (-1: only @want), server version 2.
 */
static void connect_attack(const char *desc, const uint8_t *data, uint8_t len,
			   int want, int want2)
{
	struct answer a;
	struct peer p;

	if (peer_open(&p)) {
		fail("%s: setup: %s", desc, why);
		goto out;
	}
	if (peer_connect(&p, data, len, &a)) {
		fail("%s: %s", desc, why);
		goto out;
	}
	if (a.event == RDMA_CM_EVENT_REJECTED && a.wire_status >= 0 &&
	    (a.wire_status == want || a.wire_status == want2) &&
	    a.wire_version == WIRE_VERSION)
		refused("%s: %s", desc, answer_str(&a));
	else if (a.event == RDMA_CM_EVENT_ESTABLISHED)
		fail("%s: the server ACCEPTED it", desc);
	else
		fail("%s: %s; want status %s%s%s", desc, answer_str(&a),
		     status_name(want), want2 >= 0 ? " or " : "",
		     want2 >= 0 ? status_name(want2) : "");
out:
	peer_disconnect(&p);
	peer_destroy(&p);
}

static void malformed_requests(void)
{
	uint8_t token[WIRE_TOKEN_LEN], zero[WIRE_TOKEN_LEN] = { 0 };
	uint8_t b[WIRE_CONNECT_LEN];

	if (getrandom(token, sizeof(token), 0) != sizeof(token))
		memset(token, 0x6b, sizeof(token));

	connect_attack("no private data", NULL, 0, ST_EINVAL, -1);
	req_new(b, 1, SESSION_SIZE);
	connect_attack("8 bytes of private data (magic, version 2, NEW)", b, 8,
		       ST_EINVAL, -1);
	put32(b, WIRE_MAGIC ^ 0x20202020);
	connect_attack("NEW with a bad magic", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 1, SESSION_SIZE);
	put16(b + 4, 3);
	connect_attack("NEW of version 3", b, sizeof(b), ST_EVERSION, -1);
	put16(b + 4, 1);
	connect_attack("NEW of version 1", b, sizeof(b), ST_EVERSION, -1);
	req_new(b, 1, SESSION_SIZE);
	b[6] = 0;
	connect_attack("op 0", b, sizeof(b), ST_EINVAL, -1);
	b[6] = 99;
	connect_attack("op 99", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 0, SESSION_SIZE);
	connect_attack("NEW with nr_qps 0", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, WIRE_MAX_QPS + 1, SESSION_SIZE);
	connect_attack("NEW with nr_qps 65", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 2, SESSION_SIZE);
	put16(b + 8, 1);
	connect_attack("NEW with qp_index 1", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 1, 0);
	connect_attack("NEW with size 0", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 1, 1000);
	connect_attack("NEW with size 1000 (unaligned)", b, sizeof(b),
		       ST_EINVAL, -1);
	req_new(b, 1, 1ULL << 62);
	connect_attack("NEW with size 2^62", b, sizeof(b), ST_ENOSPC, ST_EINVAL);
	req_new(b, 1, ~0ULL << 12);
	connect_attack("NEW with size 2^64 - 4096", b, sizeof(b), ST_ENOSPC,
		       ST_EINVAL);
	req_new(b, 1, SESSION_SIZE);
	memset(b + 20, 'v', WIRE_VOLUME_MAX);
	connect_attack("NEW with a 32-byte volume name without NUL", b,
		       sizeof(b), ST_EINVAL, -1);
	req_token(b, OP_JOIN, 0, 1, token);
	connect_attack("JOIN with qp_index 0 and a random token", b, sizeof(b),
		       ST_ENOSESSION, ST_EINVAL);
	req_token(b, OP_JOIN, 1, 2, token);
	connect_attack("JOIN with a random token", b, sizeof(b),
		       ST_ENOSESSION, -1);
	req_token(b, OP_RECONNECT, 0, 1, token);
	connect_attack("RECONNECT with a random token", b, sizeof(b),
		       ST_ENOSESSION, -1);
	req_token(b, OP_LEAVE, 0, 1, token);
	connect_attack("LEAVE with a random token", b, sizeof(b),
		       ST_ENOSESSION, -1);
	req_token(b, OP_LEAVE, 0, 1, zero);
	connect_attack("LEAVE with an all-zero token", b, sizeof(b),
		       ST_ENOSESSION, -1);
}

/* ---- 2. one session: positive controls, then NIC attacks ---------------- */

/* A positive control: an RDMA op that must succeed; a failure otherwise. */
static int require(struct session *s, const char *desc, enum ibv_wr_opcode op,
		   uint64_t addr, uint32_t rkey)
{
	enum ibv_wc_status st;

	if (session_rdma(s, op, s->data, IO_LEN, addr, rkey, &st)) {
		fail("positive control: %s: %s", desc, why);
		return -1;
	}
	if (st != IBV_WC_SUCCESS) {
		fail("positive control: %s: %s", desc, ibv_wc_status_str(st));
		return -1;
	}
	return 0;
}

/* A new session reads zeros at the start of each of its chunks. */
static int check_zeros(struct session *s, const char *what)
{
	uint32_t i;

	for (i = 0; i < s->nr_chunks; i++) {
		memset(s->data, 0xff, IO_LEN);
		if (require(s, "READ of a new chunk", IBV_WR_RDMA_READ,
			    s->chunks[i].addr, s->chunks[i].rkey))
			return -1;
		if (!all_bytes(s->data, 0, IO_LEN)) {
			fail("%s: chunk %u of a new session is not zeroed (byte 0 is 0x%02x)",
			     what, i, s->data[0]);
			return -1;
		}
	}
	control_ok("%s: a new session reads zeros at the start of its %u chunks",
		   what, s->nr_chunks);
	return 0;
}

/* JOINs that the server must refuse although the token is real. */
static void join_attacks(const struct session *s)
{
	uint8_t b[WIRE_CONNECT_LEN], token[WIRE_TOKEN_LEN];

	req_token(b, OP_JOIN, 0, 1, s->token);
	connect_attack("JOIN with qp_index 0 and a live session's token", b,
		       sizeof(b), ST_EINVAL, -1);
	req_token(b, OP_JOIN, 1, 1, s->token);
	connect_attack("JOIN with qp_index 1 of a 1-QP session, real token", b,
		       sizeof(b), ST_EINVAL, -1);
	req_token(b, OP_JOIN, 0xffff, 1, s->token);
	connect_attack("JOIN with qp_index 65535, real token", b, sizeof(b),
		       ST_EINVAL, -1);
	memcpy(token, s->token, sizeof(token));
	token[WIRE_TOKEN_LEN - 1] ^= 1;
	req_token(b, OP_JOIN, 1, 1, token);
	connect_attack("JOIN with a live session's token, last bit flipped", b,
		       sizeof(b), ST_ENOSESSION, -1);
}

static int control_session(void)
{
	uint32_t last;
	uint64_t end;
	struct session s;
	int ret = -1;

	if (session_new(&s, "positive control"))
		return -1;
	note("session: size %" PRIu64 ", chunk_size %" PRIu64 ", %u chunks, table 0x%" PRIx64
	     " len %u rkey 0x%x, chunk 0 at 0x%" PRIx64 " rkey 0x%x, generation %" PRIu64,
	     s.size, s.chunk_size, s.nr_chunks, s.table_addr, s.table_len,
	     s.table_rkey, s.chunks[0].addr, s.chunks[0].rkey, s.generation);
	if (check_zeros(&s, "positive control"))
		goto out;

	memset(s.data, 0x3c, IO_LEN);
	if (require(&s, "WRITE to the start of chunk 0", IBV_WR_RDMA_WRITE,
		    s.chunks[0].addr, s.chunks[0].rkey))
		goto out;
	memset(s.data, 0, IO_LEN);
	if (require(&s, "READ of the start of chunk 0", IBV_WR_RDMA_READ,
		    s.chunks[0].addr, s.chunks[0].rkey))
		goto out;
	if (!all_bytes(s.data, 0x3c, IO_LEN)) {
		fail("positive control: READ of chunk 0 returned other data than written");
		goto out;
	}
	memset(s.data, 0xc5, IO_LEN);
	if (require(&s, "WRITE to the last 4 KiB of chunk 0", IBV_WR_RDMA_WRITE,
		    s.chunks[0].addr + chunk_bytes(&s, 0) - IO_LEN,
		    s.chunks[0].rkey))
		goto out;
	last = s.nr_chunks - 1;
	end = s.chunks[last].addr + chunk_bytes(&s, last);
	if (require(&s, "READ of the last 4 KiB of the last chunk",
		    IBV_WR_RDMA_READ, end - IO_LEN, s.chunks[last].rkey))
		goto out;
	control_ok("positive control: in-bounds RDMA WRITE and READ of own chunks succeed");

	join_attacks(&s);

	memset(s.data, 0, IO_LEN);
	if (require(&s, "READ of chunk 0 after the JOIN attempts",
		    IBV_WR_RDMA_READ, s.chunks[0].addr, s.chunks[0].rkey))
		goto out;
	if (!all_bytes(s.data, 0x3c, IO_LEN)) {
		fail("positive control: chunk 0 changed during the JOIN attempts");
		goto out;
	}
	control_ok("positive control: the session still works after the refused JOINs");
	ret = 0;
out:
	session_close(&s);
	return ret;
}

enum target {
	T_READ_CROSS_END,
	T_WRITE_CROSS_END,
	T_WRITE_TABLE,
	T_READ_PAST_TABLE,
	T_READ_GUESS_ADD,
	T_READ_GUESS_XOR,
	T_WRITE_GUESS_ADD,
	T_READ_BEYOND_ALL,
	T_WRITE_BEYOND_ALL,
	T_READ_RKEY0,
};

static const struct nic_attack {
	const char *desc;
	enum target target;
	bool write;
} nic_attacks[] = {
	{ "READ crossing the end of chunk 0", T_READ_CROSS_END, false },
	{ "WRITE crossing the end of chunk 0", T_WRITE_CROSS_END, true },
	{ "WRITE into the chunk table (remote read only)", T_WRITE_TABLE, true },
	{ "READ past the end of the chunk table", T_READ_PAST_TABLE, false },
	{ "READ with a guessed rkey (chunk 0's + 0x100)", T_READ_GUESS_ADD, false },
	{ "READ with a guessed rkey (chunk 0's ^ 0xff)", T_READ_GUESS_XOR, false },
	{ "WRITE with a guessed rkey (chunk 0's + 0x100)", T_WRITE_GUESS_ADD, true },
	{ "READ beyond every chunk with chunk 0's rkey", T_READ_BEYOND_ALL, false },
	{ "WRITE beyond every chunk with chunk 0's rkey", T_WRITE_BEYOND_ALL, true },
	{ "READ with rkey 0", T_READ_RKEY0, false },
};

static void nic_target(const struct session *s, enum target t, uint64_t *addr,
		       uint32_t *len, uint32_t *rkey)
{
	const struct chunk *c0 = &s->chunks[0];
	uint32_t x;

	*addr = c0->addr;
	*len = 8;
	*rkey = c0->rkey;
	switch (t) {
	case T_READ_CROSS_END:
	case T_WRITE_CROSS_END:
		*addr = c0->addr + s->chunk_size - 8;
		*len = IO_LEN;
		break;
	case T_WRITE_TABLE:
		*addr = s->table_addr;
		*len = s->table_len < IO_LEN ? s->table_len : IO_LEN;
		*rkey = s->table_rkey;
		break;
	case T_READ_PAST_TABLE:
		*addr = s->table_addr + s->table_len;
		*len = IO_LEN;
		*rkey = s->table_rkey;
		break;
	case T_READ_GUESS_ADD:
	case T_WRITE_GUESS_ADD:
		for (x = c0->rkey + 0x100; known_rkey(s, x); x += 0x100)
			;
		*rkey = x;
		break;
	case T_READ_GUESS_XOR:
		for (x = 0xff; x && known_rkey(s, c0->rkey ^ x); x--)
			;
		*rkey = c0->rkey ^ x;
		break;
	case T_READ_BEYOND_ALL:
	case T_WRITE_BEYOND_ALL:
		*addr = c0->addr + (uint64_t)s->nr_chunks * s->chunk_size;
		break;
	case T_READ_RKEY0:
		*rkey = 0;
		break;
	}
}

/* One access the server never granted, on a session of its own. */
static void nic_attack(const struct nic_attack *na)
{
	enum ibv_wr_opcode op = na->write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	enum ibv_wc_status st;
	struct session s;
	uint64_t addr;
	uint32_t len, rkey;

	if (session_new(&s, na->desc))
		return;
	nic_target(&s, na->target, &addr, &len, &rkey);
	if (legal(&s, na->write, addr, len, rkey)) {
		control_ok("%s: skipped, 0x%" PRIx64 "+%u rkey 0x%x is legal for this session",
			   na->desc, addr, len, rkey);
		goto out;
	}
	memset(s.data, 0xee, IO_LEN);
	if (session_rdma(&s, op, s.data, len, addr, rkey, &st))
		fail("%s: %s", na->desc, why);
	else if (nic_refused(st))
		refused("%s (0x%" PRIx64 "+%u rkey 0x%x): %s", na->desc, addr,
			len, rkey, ibv_wc_status_str(st));
	else if (st == IBV_WC_SUCCESS)
		fail("%s (0x%" PRIx64 "+%u rkey 0x%x): the NIC ALLOWED it",
		     na->desc, addr, len, rkey);
	else
		fail("%s (0x%" PRIx64 "+%u rkey 0x%x): %s, not a refusal by the server's NIC",
		     na->desc, addr, len, rkey, ibv_wc_status_str(st));
out:
	session_close(&s);
}

/* ---- 3. another session's memory key ----------------------------------- */

static void cross_session(void)
{
	enum ibv_wc_status st;
	struct session a, b;
	struct chunk ac;
	int i;

	if (session_new(&a, "session A"))
		return;
	ac = a.chunks[0];
	memset(a.data, 0x5a, IO_LEN);
	if (require(&a, "session A writes 0x5a to its chunk 0",
		    IBV_WR_RDMA_WRITE, ac.addr, ac.rkey))
		goto out;
	control_ok("positive control: session A wrote 0x5a * 4096 to its chunk 0 (0x%" PRIx64
		   " rkey 0x%x)", ac.addr, ac.rkey);

	/* each on a session B of its own: a refusal breaks B's queue pair */
	for (i = 0; i < 3; i++) {
		static const char *const what[] = {
			"READ of session A's chunk 0 with A's rkey",
			"WRITE to session A's chunk 0 with A's rkey",
			"READ of session A's chunk table with A's table rkey",
		};
		uint64_t addr = i < 2 ? ac.addr : a.table_addr;
		uint32_t rkey = i < 2 ? ac.rkey : a.table_rkey;
		uint32_t len = i < 2 ? IO_LEN : a.table_len;

		if (session_new(&b, "session B"))
			continue;
		if (legal(&b, i == 1, addr, len, rkey)) {
			fail("session B: %s: B's own table grants rkey 0x%x at 0x%" PRIx64,
			     what[i], rkey, addr);
			session_close(&b);
			continue;
		}
		memset(b.data, 0xa5, IO_LEN);
		if (session_rdma(&b, i == 1 ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
				 b.data, len, addr, rkey, &st))
			fail("session B: %s: %s", what[i], why);
		else if (nic_refused(st))
			refused("session B: %s (0x%" PRIx64 "+%u rkey 0x%x): %s",
				what[i], addr, len, rkey, ibv_wc_status_str(st));
		else if (st == IBV_WC_SUCCESS)
			fail("session B: %s: the NIC ALLOWED it (protection domains not isolated)",
			     what[i]);
		else
			fail("session B: %s: %s, not a refusal by the server's NIC",
			     what[i], ibv_wc_status_str(st));
		session_close(&b);
	}

	memset(a.data, 0, IO_LEN);
	if (require(&a, "session A reads its chunk 0 back", IBV_WR_RDMA_READ,
		    ac.addr, ac.rkey))
		goto out;
	if (all_bytes(a.data, 0x5a, IO_LEN))
		control_ok("session A's chunk 0 still holds 0x5a * 4096");
	else
		fail("session A's chunk 0 CHANGED (byte 0 is 0x%02x)", a.data[0]);
out:
	session_close(&a);
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	struct session s;
	size_t i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR PORT\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (rdma_getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		perror("rdma_getaddrinfo");
		return 2;
	}
	server_addr = ai->ai_dst_addr;
	note("attacking the rmem server at %s port %s", argv[1], argv[2]);

	note("1. malformed connect requests");
	malformed_requests();

	note("2. one session: positive controls, then accesses it was not given");
	if (control_session()) {
		fail("positive control failed: the NIC attacks would mean nothing; skipped");
	} else {
		for (i = 0; i < ARRAY_SIZE(nic_attacks); i++)
			nic_attack(&nic_attacks[i]);

		note("3. another session's memory key");
		cross_session();

		if (!session_new(&s, "after the attacks")) {
			check_zeros(&s, "after the attacks");
			session_close(&s);
		}
	}

	printf("# rogue: %u attacks refused, %u failures\n", nr_refused,
	       nr_failed);
	rdma_freeaddrinfo(ai);
	return nr_failed ? 1 : 0;
}
