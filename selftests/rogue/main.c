// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_rogue: the attacks (malformed connects, accesses outside a session,
 * another session's memory keys, a late RTU; with --auth the handshake and
 * signed requests; with --flood many unauthenticated connects) and main().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rogue.h"

struct sockaddr *server_addr;
/* source address of new peers; NULL: the default route's */
struct sockaddr *peer_src;
unsigned int nr_refused, nr_failed;
struct cred my_cred = { .host = "" };
/* accesses the server's NIC refused (sections 2 and 3) */
static unsigned int nr_nic_refused;
char why[512];

/* ---- 1. malformed connect requests ------------------------------------- */

/*
 * Send one connect request from @p (opened); it must be rejected with
 * rmem reject data, status @want or @want2 (-1: only @want), in our
 * version (3: the server answers in the request's version, and in its
 * oldest when it cannot read one), or in the server's newest (4) for
 * EVERSION.
 */
static void connect_attack_on(struct peer *p, const char *desc,
			      const uint8_t *data, uint8_t len, int want,
			      int want2)
{
	struct answer a;

	if (peer_connect(p, data, len, &a)) {
		fail("%s: %s", desc, why);
		return;
	}
	if (a.event == RDMA_CM_EVENT_REJECTED && a.wire_status >= 0 &&
	    (a.wire_status == want || a.wire_status == want2) &&
	    a.wire_version == (want == ST_EVERSION ? WIRE_VERSION_NEWEST :
			       WIRE_VERSION))
		refused("%s: %s", desc, answer_str(&a));
	else if (a.event == RDMA_CM_EVENT_ESTABLISHED)
		fail("%s: the server ACCEPTED it", desc);
	else
		fail("%s: %s; want status %s%s%s", desc, answer_str(&a),
		     status_name(want), want2 >= 0 ? " or " : "",
		     want2 >= 0 ? status_name(want2) : "");
}

/* connect_attack_on() from a fresh peer with a queue pair of its own. */
static void connect_attack(const char *desc, const uint8_t *data, uint8_t len,
			   int want, int want2)
{
	struct peer p;

	if (peer_open(&p))
		fail("%s: setup: %s", desc, why);
	else
		connect_attack_on(&p, desc, data, len, want, want2);
	peer_disconnect(&p);
	peer_destroy(&p);
}

/* The same bytes again, claiming the same queue pair: a replay. */
static void replay_attack(const char *desc, const uint8_t *req, uint32_t qpn,
			  int want, int want2)
{
	struct peer p;

	if (peer_open_noqp(&p, qpn))
		fail("%s: setup: %s", desc, why);
	else
		connect_attack_on(&p, desc, req, WIRE_CONNECT_LEN, want, want2);
	peer_destroy(&p);
}

/* How a signed request is spoilt. */
struct ctl_attack {
	const char *desc;
	uint8_t op;
	uint16_t qp_index;
	uint16_t nr_qps;
	uint64_t handle_xor;	/* another session's handle */
	uint32_t qpn_delta;	/* signed for another queue pair */
	bool flip_mac;		/* a bit of the signature flipped */
	int want;
};

/*
 * A request of @s's session, signed with its key (then spoilt), from a
 * fresh peer; its bytes and queue pair number go to @sent and @sent_qpn,
 * for a replay.
 */
static void ctl_attack(struct session *s, const struct ctl_attack *ca,
		       uint8_t *sent, uint32_t *sent_qpn)
{
	uint8_t b[WIRE_CONNECT_LEN];
	struct peer p;
	uint32_t qpn;

	if (peer_open(&p)) {
		fail("%s: setup: %s", ca->desc, why);
		goto out;
	}
	qpn = peer_qpn(&p);
	req_ctl(b, ca->op, ca->qp_index, ca->nr_qps, s->handle ^ ca->handle_xor,
		++s->counter);
	req_sign(b, s->skey, qpn + ca->qpn_delta);
	if (ca->flip_mac)
		b[WIRE_CONNECT_LEN - 1] ^= 1;
	if (sent) {
		memcpy(sent, b, sizeof(b));
		*sent_qpn = qpn;
	}
	connect_attack_on(&p, ca->desc, b, sizeof(b), ca->want, -1);
out:
	peer_disconnect(&p);
	peer_destroy(&p);
}

static void malformed_requests(void)
{
	uint8_t nonce[WIRE_NONCE_LEN], b[WIRE_CONNECT_LEN];
	uint64_t handle;

	if (getrandom(nonce, sizeof(nonce), 0) != sizeof(nonce) ||
	    getrandom(&handle, sizeof(handle), 0) != sizeof(handle)) {
		memset(nonce, 0x6b, sizeof(nonce));
		handle = 0x6b6b6b6b6b6b6b6bULL;
	}

	connect_attack("no private data", NULL, 0, ST_EINVAL, -1);
	req_new(b, 1, nonce);
	connect_attack("8 bytes of private data (magic, version 3, NEW)", b, 8,
		       ST_EINVAL, -1);
	put32(b, WIRE_MAGIC ^ 0x20202020);
	connect_attack("NEW with a bad magic", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 1, nonce);
	put16(b + 4, 5);
	connect_attack("NEW of version 5", b, sizeof(b), ST_EVERSION, -1);
	put16(b + 4, 2);
	connect_attack("NEW of version 2", b, sizeof(b), ST_EVERSION, -1);
	req_new(b, 1, nonce);
	b[6] = 0;
	connect_attack("op 0", b, sizeof(b), ST_EINVAL, -1);
	b[6] = 99;
	connect_attack("op 99", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 0, nonce);
	connect_attack("NEW with nr_qps 0", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, WIRE_MAX_QPS + 1, nonce);
	connect_attack("NEW with nr_qps 65", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 2, nonce);
	put16(b + 8, 1);
	connect_attack("NEW with qp_index 1", b, sizeof(b), ST_EINVAL, -1);
	req_new(b, 1, nonce);
	b[7] = 1;
	connect_attack("NEW with flags 1 (reserved)", b, sizeof(b), ST_EINVAL,
		       -1);
	req_new(b, 1, nonce);
	b[WIRE_CONNECT_LEN - 1] = 1;
	connect_attack("NEW with a non-zero reserved byte", b, sizeof(b),
		       ST_EINVAL, -1);
	req_ctl(b, OP_JOIN, 0, 1, handle, 1);
	connect_attack("JOIN with qp_index 0 and a random handle", b, sizeof(b),
		       ST_ENOSESSION, ST_EINVAL);
	req_ctl(b, OP_JOIN, 1, 2, handle, 1);
	connect_attack("JOIN with a random handle", b, sizeof(b),
		       ST_ENOSESSION, -1);
	req_ctl(b, OP_RECONNECT, 0, 1, handle, 1);
	connect_attack("RECONNECT with a random handle", b, sizeof(b),
		       ST_ENOSESSION, -1);
	req_ctl(b, OP_LEAVE, 0, 1, handle, 1);
	connect_attack("LEAVE with a random handle", b, sizeof(b),
		       ST_ENOSESSION, -1);
	req_ctl(b, OP_LEAVE, 0, 1, 0, 1);
	connect_attack("LEAVE with handle 0", b, sizeof(b), ST_ENOSESSION, -1);
}

/*
 * An AUTH message that must be refused in READY with @want (or @want2),
 * nothing handed out.
 */
static void auth_msg_attack(const char *desc, const uint8_t *a, int want,
			    int want2)
{
	struct session s;

	if (!session_open(&s, SESSION_SIZE, 1, 0, &my_cred, NULL, a))
		fail("%s: the server ACCEPTED it", desc);
	else if (s.ans.wire_status == want || (want2 >= 0 &&
					       s.ans.wire_status == want2))
		refused("%s: %s", desc, answer_str(&s.ans));
	else
		fail("%s: %s (%s); want status %s", desc, answer_str(&s.ans),
		     why, status_name(want));
	session_close(&s);
}

/* Malformed AUTH messages (the server takes clients without a key). */
static void malformed_auth(void)
{
	struct cred anon = { .host = "" };
	uint8_t a[WIRE_AUTH_LEN];

	auth_msg(a, 0, 0, &anon);
	auth_msg_attack("AUTH asking for size 0", a, ST_EINVAL, -1);
	auth_msg(a, 1000, 0, &anon);
	auth_msg_attack("AUTH asking for size 1000 (unaligned)", a, ST_EINVAL,
			-1);
	auth_msg(a, 1ULL << 62, 0, &anon);
	auth_msg_attack("AUTH asking for size 2^62", a, ST_ENOSPC, ST_EINVAL);
	auth_msg(a, ~0ULL << 12, 0, &anon);
	auth_msg_attack("AUTH asking for size 2^64 - 4096", a, ST_ENOSPC,
			ST_EINVAL);
	auth_msg(a, SESSION_SIZE, 0, &anon);
	memset(a + 24, 'v', WIRE_VOLUME_MAX);
	auth_msg_attack("AUTH with a 32-byte volume name without NUL", a,
			ST_EINVAL, -1);
	auth_msg(a, SESSION_SIZE, 0, &anon);
	memcpy(a + 56, "bad host", 8);
	auth_msg_attack("AUTH with a blank in the host identity", a, ST_EINVAL,
			-1);
	auth_msg(a, SESSION_SIZE, 0, &anon);
	memset(a + 56, 'h', WIRE_HOST_MAX);
	auth_msg_attack("AUTH with a 64-byte host identity without NUL", a,
			ST_EINVAL, -1);
	auth_msg(a, SESSION_SIZE, 0, &anon);
	a[6] = 2;
	auth_msg_attack("AUTH with flags 2 (reserved)", a, ST_EINVAL, -1);
	auth_msg(a, SESSION_SIZE, 0, &anon);
	a[120] = 1;
	auth_msg_attack("AUTH with a proof but without the keyed flag", a,
			ST_EINVAL, -1);
	auth_msg(a, SESSION_SIZE, 0, &anon);
	put16(a + 4, 2);
	auth_msg_attack("AUTH of version 2", a, ST_EVERSION, -1);
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

/* JOINs that the server must refuse although the session is real. */
static void join_attacks(struct session *s)
{
	static const struct ctl_attack attacks[] = {
		{ "JOIN with qp_index 0, signed", OP_JOIN, 0, 1, 0, 0, false,
		  ST_EINVAL },
		{ "JOIN with qp_index 1 of a 1-QP session, signed", OP_JOIN, 1,
		  1, 0, 0, false, ST_EINVAL },
		{ "JOIN with qp_index 65535, signed", OP_JOIN, 0xffff, 1, 0, 0,
		  false, ST_EINVAL },
		{ "JOIN for a live session's handle with its last bit flipped",
		  OP_JOIN, 1, 1, 1, 0, false, ST_ENOSESSION },
		{ "JOIN with a bit of its signature flipped", OP_JOIN, 1, 1, 0,
		  0, true, ST_EAUTH },
		{ "JOIN signed for another queue pair", OP_JOIN, 1, 1, 0, 1,
		  false, ST_EAUTH },
	};
	uint8_t first[WIRE_CONNECT_LEN];
	uint32_t qpn = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attacks); i++)
		ctl_attack(s, &attacks[i], i ? NULL : first, i ? NULL : &qpn);
	/* the server checked the first one's signature and counter */
	replay_attack("the first JOIN again, same bytes, same queue pair", first,
		      qpn, ST_EREPLAY, -1);
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
		nr_nic_refused++, refused("%s (0x%" PRIx64 "+%u rkey 0x%x): %s",
					  na->desc, addr, len, rkey,
					  ibv_wc_status_str(st));
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
			nr_nic_refused++,
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

/* ---- 4. an RTU held back while a second RECONNECT orphans the session -- */

#define LATE_RTU_ROUNDS		10
#define HOLD_MS			30000

/*
 * RECONNECT @s's session on @p, whose queue pair is not rdma_cm's (so the
 * RTU waits for rdma_establish()).  Retries while the server still drops
 * the old queue pairs (EAGAIN).  0 once the server accepted (REP).
 */
static int reconnect_held_rtu(struct peer *p, struct session *s)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct answer a;
	int i;

	for (i = 0; i < 50; i++) {
		if (peer_open_raw(p))
			return -1;
		session_sign(s, req, OP_RECONNECT, 0, 1, peer_qpn(p));
		if (peer_connect(p, req, sizeof(req), &a))
			return -1;
		if (a.event == RDMA_CM_EVENT_CONNECT_RESPONSE)
			return 0;
		peer_destroy(p);
		if (a.wire_status != ST_EAGAIN) {
			set_why("RECONNECT: %s", answer_str(&a));
			return -1;
		}
		usleep(100 * 1000);
	}
	set_why("RECONNECT: still EAGAIN after 5 s");
	return -1;
}

/*
 * LEAVE @s's session (it is held for HOLD_MS otherwise).  Return: the
 * status the server answered with, -1 for none.
 */
static int leave(struct session *s)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct answer a = { .wire_status = -1 };
	struct peer p;

	if (!peer_open(&p)) {
		session_sign(s, req, OP_LEAVE, 0, 1, peer_qpn(&p));
		peer_connect(&p, req, sizeof(req), &a);
	}
	peer_destroy(&p);
	return a.wire_status;
}

/*
 * A session the server holds for a reconnect; RECONNECT #1 is accepted
 * but its RTU held back; RECONNECT #2 makes the server drop the queue
 * pairs again; then the RTU: an ESTABLISHED for a queue pair being
 * dropped, which must not set anything up on it.  The window is narrow
 * (the server's drop between cancelling its setup and destroying the
 * id): several rounds.  The server must stay up and serve new sessions.
 */
static void late_rtu(void)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct peer a, b;
	struct answer ans;
	struct session s;
	int round, ok = 0, rtu = 0;

	for (round = 0; round < LATE_RTU_ROUNDS; round++) {
		if (session_new_held(&s, "late RTU", HOLD_MS))
			return;
		/* the server loses queue pair 0 and holds the session */
		peer_disconnect(&s.p);
		if (reconnect_held_rtu(&a, &s)) {
			fail("late RTU, round %d: %s", round, why);
			session_close(&s);
			return;
		}
		/*
		 * RECONNECT #2, and right behind it the RTU of #1: an
		 * ESTABLISHED that reaches the server while it drops the
		 * queue pair #2 made it give up (or, when the server was
		 * quicker, an RTU for a connection it already refused).
		 */
		if (peer_open(&b) ||
		    (session_sign(&s, req, OP_RECONNECT, 0, 1, peer_qpn(&b)),
		     peer_connect_start(&b, req, sizeof(req)))) {
			fail("late RTU, round %d: second RECONNECT: %s", round,
			     why);
		} else {
			if (!rdma_establish(a.id))
				rtu++;
			if (peer_connect_wait(&b, &ans))
				fail("late RTU, round %d: second RECONNECT: %s",
				     round, why);
			else if (ans.event == RDMA_CM_EVENT_ESTABLISHED)
				fail("late RTU, round %d: the second RECONNECT was accepted while the first held the session",
				     round);
			else
				ok++;
		}
		usleep(200 * 1000);
		peer_destroy(&b);
		peer_destroy(&a);
		leave(&s);
		session_close(&s);
	}
	if (ok == LATE_RTU_ROUNDS)
		refused("%d rounds of a held-back RTU racing a second RECONNECT: each second RECONNECT refused, %d RTUs sent before the server refused theirs",
			ok, rtu);
	/* the server is up and serves a new session */
	if (session_new(&s, "after the late RTUs")) {
		fail("no session after the late RTUs: %s", why);
		return;
	}
	control_ok("positive control: a new session after the late RTUs");
	session_close(&s);
}

/* ---- 5. the handshake and signed requests (--auth) -------------------- */

/* A handshake the server must refuse in READY with @want. */
static void handshake_attack(const char *desc, const struct cred *c, int want)
{
	struct session s;

	if (!session_open(&s, SESSION_SIZE, 1, 0, c, NULL, NULL))
		fail("%s: the server ACCEPTED it", desc);
	else if (s.ans.wire_status == want)
		refused("%s: %s", desc, answer_str(&s.ans));
	else
		fail("%s: %s (%s); want status %s", desc, answer_str(&s.ans),
		     why, status_name(want));
	session_close(&s);
}

/* A signed request that must be accepted (ESTABLISHED, or LEAVE's OK). */
static int ctl_control(struct session *s, const char *desc, uint8_t op,
		       uint16_t qp_index, uint16_t nr_qps, uint8_t *sent,
		       uint32_t *sent_qpn)
{
	uint8_t b[WIRE_CONNECT_LEN];
	struct answer a;
	struct peer p;
	int ret = -1;

	if (peer_open(&p)) {
		fail("positive control: %s: setup: %s", desc, why);
		goto out;
	}
	session_sign(s, b, op, qp_index, nr_qps, peer_qpn(&p));
	memcpy(sent, b, sizeof(b));
	*sent_qpn = peer_qpn(&p);
	if (peer_connect(&p, b, sizeof(b), &a)) {
		fail("positive control: %s: %s", desc, why);
		goto out;
	}
	if (a.event == RDMA_CM_EVENT_ESTABLISHED ||
	    (a.event == RDMA_CM_EVENT_REJECTED && a.wire_status == ST_EAGAIN &&
	     op == OP_RECONNECT) ||
	    (a.event == RDMA_CM_EVENT_REJECTED && a.wire_status == ST_OK &&
	     op == OP_LEAVE)) {
		control_ok("positive control: %s: %s", desc, answer_str(&a));
		ret = 0;
	} else {
		fail("positive control: %s: %s", desc, answer_str(&a));
	}
out:
	peer_disconnect(&p);
	peer_destroy(&p);
	return ret;
}

static void auth_attacks(const char *other_host, const uint8_t *other_key,
			 struct sockaddr *other_addr)
{
	uint8_t wrong[WIRE_KEY_LEN], sent[WIRE_CONNECT_LEN], b[WIRE_CONNECT_LEN];
	struct cred none = { .host = my_cred.host };
	struct cred wrong_key = { .host = my_cred.host, .key = wrong };
	struct cred others_key = { .host = my_cred.host, .key = other_key };
	struct cred other_id = { .host = other_host, .key = my_cred.key };
	struct cred unknown = { .host = "no-such-host", .key = my_cred.key };
	const struct ctl_attack forged[] = {
		{ "JOIN with a bit of its signature flipped", OP_JOIN, 1, 2, 0,
		  0, true, ST_EAUTH },
		{ "RECONNECT with a bit of its signature flipped",
		  OP_RECONNECT, 0, 2, 0, 0, true, ST_EAUTH },
		{ "LEAVE with a bit of its signature flipped", OP_LEAVE, 0, 2, 0,
		  0, true, ST_EAUTH },
		{ "JOIN signed for another queue pair (a relay)", OP_JOIN, 1, 2,
		  0, 7, false, ST_EAUTH },
	};
	const struct ctl_attack moved[] = {
		{ "a signed JOIN from another address", OP_JOIN, 1, 2, 0, 0,
		  false, ST_EACCES },
		{ "a signed LEAVE from another address", OP_LEAVE, 0, 2, 0, 0,
		  false, ST_EACCES },
	};
	struct session s, r;
	uint32_t qpn;
	size_t i;
	int st;

	if (getrandom(wrong, sizeof(wrong), 0) != sizeof(wrong))
		memset(wrong, 0x5a, sizeof(wrong));
	handshake_attack("a handshake without a key", &none, ST_ENOKEY);
	handshake_attack("a handshake with a wrong key", &wrong_key, ST_EAUTH);
	handshake_attack("a handshake with another host's key under this host's identity",
			 &others_key, ST_EAUTH);
	handshake_attack("a handshake with this host's key under another host's identity",
			 &other_id, ST_EAUTH);
	handshake_attack("a handshake as a host the server has no entry for",
			 &unknown, ST_EAUTH);

	/* a keyed session of two queue pairs, held for a reconnect */
	if (session_open(&s, SESSION_SIZE, 2, HOLD_MS, &my_cred, NULL, NULL)) {
		fail("positive control: a keyed session: %s (%s)", why,
		     answer_str(&s.ans));
		session_close(&s);
		return;
	}
	control_ok("positive control: a keyed session, READY signed with the derived session key");
	if (session_open(&r, SESSION_SIZE, 2, HOLD_MS, &my_cred, s.nonce,
			 s.auth))
		(r.ans.wire_status == ST_EAUTH ? nr_refused++ : nr_failed++),
		report(r.ans.wire_status == ST_EAUTH ? "ok" : "FAIL",
		       "the session's NEW nonce and AUTH message again on a new connection: %s",
		       answer_str(&r.ans));
	else
		fail("the session's AUTH message again: the server ACCEPTED it");
	session_close(&r);

	for (i = 0; i < ARRAY_SIZE(forged); i++)
		ctl_attack(&s, &forged[i], NULL, NULL);
	if (!ctl_control(&s, "a signed JOIN of queue pair 1", OP_JOIN, 1, 2,
			 sent, &qpn))
		replay_attack("that JOIN again, same bytes, same queue pair",
			      sent, qpn, ST_EREPLAY, -1);
	if (!ctl_control(&s, "a signed RECONNECT while live", OP_RECONNECT, 0,
			 2, sent, &qpn))
		replay_attack("that RECONNECT again, same bytes, same queue pair",
			      sent, qpn, ST_EREPLAY, -1);
	if (other_addr) {
		/*
		 * Signed right, from another address of this host: JOIN and
		 * LEAVE come only from the session's own (RECONNECT may move).
		 */
		peer_src = other_addr;
		for (i = 0; i < ARRAY_SIZE(moved); i++)
			ctl_attack(&s, &moved[i], NULL, NULL);
		peer_src = NULL;
	}
	/* a LEAVE as signed before the requests the server took since */
	req_ctl(b, OP_LEAVE, 0, 2, s.handle, 1);
	req_sign(b, s.skey, 0);
	replay_attack("a LEAVE older than the session's last request", b, 0,
		      ST_EREPLAY, -1);
	st = leave(&s);
	if (st == ST_OK)
		control_ok("positive control: the session outlived the forged and replayed requests: a signed LEAVE ends it");
	else
		fail("a signed LEAVE at the end: status %d (%s), want OK", st,
		     status_name(st));
	session_close(&s);
}

/* ---- 6. a flood of connects that never authenticate (--flood N) -------- */

#define FLOOD_WINDOW		32
#define FLOOD_FROM_MAX		16

/* Source addresses to flood from, in turn (--from); none: the default. */
static struct sockaddr_storage flood_from[FLOOD_FROM_MAX];
static unsigned int nr_flood_from;

static int parse_from(char *list)
{
	char *a, *save = NULL;
	struct sockaddr_in *sin;

	for (a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
		if (nr_flood_from == FLOOD_FROM_MAX)
			return -1;
		sin = (struct sockaddr_in *)&flood_from[nr_flood_from++];
		sin->sin_family = AF_INET;
		if (inet_pton(AF_INET, a, &sin->sin_addr) != 1)
			return -1;
	}
	return nr_flood_from ? 0 : -1;
}

/* --seconds: the flood goes on for at least this long */
static unsigned int flood_seconds;
/*
 * --max-accepted M [--accepted-per-s R]: the most connects the server may
 * accept into slots, M plus R for every second the flood lasted (a slot
 * is given again only when its shell times out or is evicted: silent for
 * a second, or, with all 16 taken, for a host with fewer; a slower
 * machine floods for longer and sees more of that)
 */
static unsigned int flood_max_accepted = UINT32_MAX;
static unsigned int flood_accepted_per_s;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* a connect ended neither in a slot nor refused: say how (4 at most) */
static void other_event(const struct rdma_cm_event *ev)
{
	static unsigned int said;

	if (said++ < 4)
		note("flood: a connect ended with %s, status %d",
		     rdma_event_str(ev->event), ev->status);
}

static void flood(unsigned int n)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = {
		.initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7,
	};
	unsigned int started = 0, done = 0, accepted = 0, busy = 0, other = 0;
	unsigned int lost = 0, early = 0;
	static char held;
	const uint8_t *rej;
	uint64_t bound, elapsed_ms;
	char at_most[48] = "";
	uint8_t req[WIRE_CONNECT_LEN], nonce[WIRE_NONCE_LEN];
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id, *gone;
	struct rdma_cm_event *ev;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;

	int64_t end = mono_ms() + (int64_t)flood_seconds * 1000;

	ch = rdma_create_event_channel();
	if (!ch || fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK)) {
		fail("flood: setup: %s", strerror(errno));
		return;
	}
	memset(nonce, 0x42, sizeof(nonce));
	req_new(req, 1, nonce);
	cp.private_data = req;
	cp.private_data_len = sizeof(req);
	while (done < started || started < n || mono_ms() < end) {
		while (started - done < FLOOD_WINDOW &&
		       (started < n || mono_ms() < end)) {
			if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
			    rdma_resolve_addr(id, nr_flood_from ?
					      (struct sockaddr *)&flood_from[started % nr_flood_from] :
					      NULL, server_addr, RESOLVE_MS)) {
				fail("flood: connect %u: %s", started,
				     strerror(errno));
				return;
			}
			started++;
		}
		if (get_event(ch, &ev, 4 * TIMEOUT_MS)) {
			fail("flood: %u of %u answered: %s", done, started, why);
			break;
		}
		id = ev->id;
		gone = NULL;
		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (rdma_resolve_route(id, RESOLVE_MS))
				gone = id;
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			if (!pd) {
				pd = ibv_alloc_pd(id->verbs);
				cq = pd ? ibv_create_cq(id->verbs, 16, NULL,
							NULL, 0) : NULL;
			}
			qpa.send_cq = cq;
			qpa.recv_cq = cq;
			if (!cq || rdma_create_qp(id, pd, &qpa) ||
			    rdma_connect(id, &cp))
				gone = id;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			/* a handshake slot, held: no AUTH ever comes */
			accepted++;
			done++;
			id->context = &held;
			break;
		case RDMA_CM_EVENT_CONNECT_ERROR:
			/*
			 * the server's REP came (librdmacm reports this when
			 * its RTU fails), so it accepted; then it ended the
			 * shell before our RTU, for a host with fewer shells,
			 * and its CM's reject (swallowed) came first
			 */
			if (early++ < 4)
				note("flood: a connect ended with %s, status %d, after the server's REP: counted as accepted and ended",
				     rdma_event_str(ev->event), ev->status);
			accepted++;
			lost++;
			done++;
			gone = id;
			break;
		case RDMA_CM_EVENT_REJECTED:
			rej = ev->param.conn.private_data;
			if (id->context == &held) {
				/* ended by the server after our RTU went */
				lost++;
				gone = id;
				break;
			}
			if (ev->param.conn.private_data_len >= WIRE_REJECT_LEN &&
			    get32(rej) == WIRE_MAGIC &&
			    get16(rej + 6) == ST_EHANDSHAKES) {
				busy++;
			} else {
				other_event(ev);
				other++;
			}
			done++;
			gone = id;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			/* the server ended a held handshake */
			lost++;
			break;
		default:
			other_event(ev);
			other++;
			/* a held one was counted done when it was established */
			if (id->context != &held)
				done++;
			gone = id;
			break;
		}
		/* a step of ours failed: that connect ends here */
		if (gone && (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED ||
			     ev->event == RDMA_CM_EVENT_ROUTE_RESOLVED)) {
			other++;
			done++;
		}
		rdma_ack_cm_event(ev);
		if (gone) {
			if (gone->qp)
				rdma_destroy_qp(gone);
			rdma_destroy_id(gone);
		}
	}
	elapsed_ms = mono_ms() - end + (int64_t)flood_seconds * 1000;
	bound = flood_max_accepted;
	if (flood_max_accepted != UINT32_MAX) {
		bound += (elapsed_ms + 999) / 1000 * flood_accepted_per_s;
		snprintf(at_most, sizeof(at_most), ", at most %llu",
			 (unsigned long long)bound);
	}
	note("flood: %u connect requests from %u address(es) in %llu ms: %u accepted (never authenticated; %u of them ended by the server, %u before our RTU), %u refused with EHANDSHAKES, %u otherwise",
	     started, nr_flood_from ? nr_flood_from : 1,
	     (unsigned long long)elapsed_ms, accepted, lost, early, busy,
	     other);
	if (done == started && !other && busy + accepted == started && busy &&
	    accepted <= bound)
		refused("flood: every one of %u unauthenticated connects either held a handshake slot (%u%s) or was refused at once (%u)",
			started, accepted, at_most, busy);
	else
		fail("flood: want every connect accepted into a slot%s or refused with EHANDSHAKES",
		     at_most);
	/* the held ones, and the channel, go with the process */
}

static int usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s ADDR PORT [--host ID] [--key FILE] [--auth OTHER_ID OTHER_KEY [--other-addr ADDR]] [--flood N [--seconds S] [--max-accepted M [--accepted-per-s R]] [--from ADDR,...]]\n",
		prog);
	return 2;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	static uint8_t key[WIRE_KEY_LEN], other_key[WIRE_KEY_LEN];
	const char *other_host = NULL;
	unsigned int flood_n = 0;
	struct sockaddr_storage other = {};
	struct sockaddr *other_addr = NULL;
	struct session s;
	size_t i;
	int a;

	if (argc < 3)
		return usage(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (a = 3; a < argc; a++) {
		if (!strcmp(argv[a], "--host") && a + 1 < argc) {
			my_cred.host = argv[++a];
		} else if (!strcmp(argv[a], "--key") && a + 1 < argc) {
			if (key_file(argv[++a], key)) {
				fprintf(stderr, "%s\n", why);
				return 2;
			}
			my_cred.key = key;
		} else if (!strcmp(argv[a], "--auth") && a + 2 < argc) {
			other_host = argv[++a];
			if (key_file(argv[++a], other_key)) {
				fprintf(stderr, "%s\n", why);
				return 2;
			}
		} else if (!strcmp(argv[a], "--flood") && a + 1 < argc) {
			flood_n = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--max-accepted") && a + 1 < argc) {
			flood_max_accepted = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--accepted-per-s") && a + 1 < argc) {
			flood_accepted_per_s = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--seconds") && a + 1 < argc) {
			flood_seconds = strtoul(argv[++a], NULL, 0);
		} else if (!strcmp(argv[a], "--other-addr") && a + 1 < argc) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&other;

			sin->sin_family = AF_INET;
			if (inet_pton(AF_INET, argv[++a], &sin->sin_addr) != 1)
				return usage(argv[0]);
			other_addr = (struct sockaddr *)&other;
		} else if (!strcmp(argv[a], "--from") && a + 1 < argc) {
			if (parse_from(argv[++a]))
				return usage(argv[0]);
		} else {
			return usage(argv[0]);
		}
	}
	if (other_host && !my_cred.key)
		return usage(argv[0]);
	if (rdma_getaddrinfo(argv[1], argv[2], &hints, &ai)) {
		perror("rdma_getaddrinfo");
		return 2;
	}
	server_addr = ai->ai_dst_addr;
	note("attacking the rmem server at %s port %s as host '%s'%s", argv[1],
	     argv[2], my_cred.host, my_cred.key ? " with a key" : "");

	if (flood_n) {
		note("6. %u connect requests that never authenticate", flood_n);
		flood(flood_n);
		goto out;
	}
	if (other_host) {
		note("5. the handshake and signed requests");
		auth_attacks(other_host, other_key, other_addr);
		goto out;
	}

	note("1. malformed connect requests and AUTH messages");
	malformed_requests();
	malformed_auth();

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

		note("4. an RTU held back while a second RECONNECT orphans the session");
		late_rtu();
	}

	/*
	 * Every access attack must have reached the server's NIC and been
	 * refused there: one judged legal for its session (a random key that
	 * happened to be valid) may be skipped, no more.
	 */
	if (nr_nic_refused + 1 < ARRAY_SIZE(nic_attacks) + 3)
		fail("only %u of %zu access attacks were refused by the server's NIC",
		     nr_nic_refused, ARRAY_SIZE(nic_attacks) + 3);
out:
	printf("# rogue: %u attacks refused (%u by the server's NIC), %u failures\n",
	       nr_refused, nr_nic_refused, nr_failed);
	rdma_freeaddrinfo(ai);
	return nr_failed ? 1 : 0;
}
