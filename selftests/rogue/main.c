// SPDX-License-Identifier: GPL-2.0
/*
 * rmem_rogue: the attacks (malformed connects, accesses outside a session,
 * another session's memory keys, a late RTU) and main().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "rogue.h"

struct sockaddr *server_addr;
unsigned int nr_refused, nr_failed;
/* accesses the server's NIC refused (sections 2 and 3) */
static unsigned int nr_nic_refused;
char why[512];

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
	req_new(b, 1, SESSION_SIZE);
	b[7] = 1;
	connect_attack("NEW with flags 1 (reserved)", b, sizeof(b), ST_EINVAL,
		       -1);
	req_token(b, OP_RECONNECT, 0, 1, token);
	b[40] = 1;
	connect_attack("RECONNECT with a non-zero byte after the token", b,
		       sizeof(b), ST_EINVAL, -1);
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
static int reconnect_held_rtu(struct peer *p, const struct session *s)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct answer a;
	int i;

	req_token(req, OP_RECONNECT, 0, 1, s->token);
	for (i = 0; i < 50; i++) {
		if (peer_open_raw(p))
			return -1;
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

/* LEAVE @s's session (it is held for HOLD_MS otherwise). */
static void leave(const struct session *s)
{
	uint8_t req[WIRE_CONNECT_LEN];
	struct answer a;
	struct peer p;

	req_token(req, OP_LEAVE, 0, 1, s->token);
	if (!peer_open(&p))
		peer_connect(&p, req, sizeof(req), &a);
	peer_destroy(&p);
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
		req_token(req, OP_RECONNECT, 0, 1, s.token);
		if (peer_open(&b) || peer_connect_start(&b, req, sizeof(req))) {
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
	printf("# rogue: %u attacks refused (%u by the server's NIC), %u failures\n",
	       nr_refused, nr_nic_refused, nr_failed);
	rdma_freeaddrinfo(ai);
	return nr_failed ? 1 : 0;
}
