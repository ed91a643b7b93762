/* SPDX-License-Identifier: GPL-2.0 */
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
 *     must be unchanged;
 *  4. a held session, a RECONNECT whose RTU is held back, a second
 *     RECONNECT (which makes the server drop the queue pairs again), then
 *     the RTU: the server must ignore that late ESTABLISHED (it once set
 *     up READY on the queue pair it was destroying) and serve new
 *     sessions afterwards.
 *
 * A failed access leaves the queue pair in the error state, so every such
 * attempt gets a session of its own.  Every wait is bounded: a hang is
 * reported as a failure.  Exit status: 0 when every attack was refused
 * and every positive control passed, 1 otherwise, 2 on a usage error.
 *
 * Layouts are rebuilt here byte by byte (little endian) from kernel/proto.h
 * on purpose: this program is the protocol's outside view.
 */
#ifndef RMEM_ROGUE_H
#define RMEM_ROGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

extern struct sockaddr *server_addr;
extern unsigned int nr_refused, nr_failed;
extern char why[512];

struct peer {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *raw_qp;	/* not rdma_cm's: peer_open_raw() */
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

/* wire.c: reporting, little endian fields, requests, bounded waits */

void __printf(1, 2) set_why(const char *fmt, ...);
int why_errno(const char *what);
void __printf(2, 3) report(const char *tag, const char *fmt, ...);
const char *status_name(int status);
void put16(uint8_t *p, uint16_t v);
void put32(uint8_t *p, uint32_t v);
uint16_t get16(const uint8_t *p);
uint32_t get32(const uint8_t *p);
uint64_t get64(const uint8_t *p);
void req_new(uint8_t *b, uint16_t nr_qps, uint64_t size);
void req_token(uint8_t *b, uint8_t op, uint16_t qp_index,
	       uint16_t nr_qps, const uint8_t *token);
int get_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev,
	      int ms);
int expect_event(struct rdma_event_channel *ch,
		 enum rdma_cm_event_type want);
int cq_wait(struct ibv_cq *cq, struct ibv_wc *wc, int ms);

#define control_ok(...)	report("ok", __VA_ARGS__)
#define refused(...)	(nr_refused++, report("ok", __VA_ARGS__))
#define fail(...)	(nr_failed++, report("FAIL", __VA_ARGS__))
#define note(...)	report("rogue", __VA_ARGS__)

/* session.c: one rdma_cm connection, sessions, what an access may do */

void peer_destroy(struct peer *p);
int peer_open(struct peer *p);
int peer_open_raw(struct peer *p);
int peer_connect(struct peer *p, const void *data, uint8_t len,
		 struct answer *a);
int peer_connect_start(struct peer *p, const void *data, uint8_t len);
int peer_connect_wait(struct peer *p, struct answer *a);
const char *answer_str(const struct answer *a);
void peer_disconnect(struct peer *p);
void session_close(struct session *s);
int session_rdma(struct session *s, enum ibv_wr_opcode op, void *local,
		 uint32_t len, uint64_t raddr, uint32_t rkey,
		 enum ibv_wc_status *st);
int session_new(struct session *s, const char *what);
int session_new_held(struct session *s, const char *what, uint32_t hold_ms);
uint64_t chunk_bytes(const struct session *s, uint32_t i);
bool legal(const struct session *s, bool write, uint64_t addr,
	   uint32_t len, uint32_t rkey);
bool known_rkey(const struct session *s, uint32_t rkey);
bool nic_refused(enum ibv_wc_status st);
bool all_bytes(const uint8_t *p, uint8_t v, size_t n);

#endif /* RMEM_ROGUE_H */
