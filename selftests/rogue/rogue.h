/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem_rogue: a hostile RDMA client for an rmem server.
 *
 *   rmem_rogue ADDR PORT [--host ID] [--key FILE] [--auth OTHER_ID OTHER_KEY]
 *		 [--flood N [--seconds S] [--max-accepted M] [--from ADDR,...]]
 *
 * Tries what a buggy or malicious client could do to the rmem server at
 * ADDR:PORT and reports each attempt as a KTAP diagnostic line, "# ok: ..."
 * or "# FAIL: ...".  Its own sessions claim host identity ID and prove the
 * key in FILE when given (the server's host entry for ID must hold it).
 * Without --auth or --flood:
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
 * --auth (the server requires keys; ID and FILE are a valid host entry,
 * OTHER_ID and OTHER_KEY another one): the handshake without a key, with a
 * wrong key, with another host's key, a replayed AUTH message, and forged
 * or replayed JOIN, RECONNECT and LEAVE requests of a valid session; each
 * must be refused with its status.
 *
 * --flood N [--seconds S] [--from ADDR,...]: N connect requests (and more
 * until S seconds passed) that never authenticate, many at once (from
 * those source addresses in turn); each must be accepted into a
 * handshake slot (at most M of them) or refused with EHANDSHAKES.
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

/* kernel/proto.h, version 3 */
#define WIRE_MAGIC		0x4d454d52
#define WIRE_VERSION		3
#define WIRE_VERSION_NEWEST	4	/* the server's */
#define WIRE_CONNECT_LEN	56
#define WIRE_REJECT_LEN		8
#define WIRE_CHALLENGE_LEN	96
#define WIRE_AUTH_LEN		152
#define WIRE_READY_LEN		144
#define WIRE_CHUNK_LEN		16
#define WIRE_NONCE_LEN		32
#define WIRE_MAC_LEN		32
#define WIRE_CTL_MAC_LEN	28
#define WIRE_KEY_LEN		32
#define WIRE_VOLUME_MAX		32
#define WIRE_HOST_MAX		64
#define WIRE_MAX_QPS		64
#define WIRE_AUTH_KEYED		1
#define WIRE_READY_KEYED	1

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
	ST_EAUTH,
	ST_ENOKEY,
	ST_ESESSIONS,
	ST_EQUOTA,
	ST_EHANDSHAKES,
	ST_EOWNER,
	ST_EREPLAY,
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
#define WR_AUTH			3

/* Who a session says it is: a host identity and, maybe, its key. */
struct cred {
	const char *host;	/* "" for none */
	const uint8_t *key;	/* NULL: no key */
};

extern struct sockaddr *server_addr;
extern struct sockaddr *peer_src;
extern unsigned int nr_refused, nr_failed;
extern char why[512];
extern struct cred my_cred;

struct peer {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *raw_qp;	/* not rdma_cm's: peer_open_raw() */
	uint32_t qpn;		/* what a REQ without a QP claims */
	bool has_qp;
	bool connected;
};

/* What the server answered a connect request with. */
struct answer {
	int event;		/* enum rdma_cm_event_type, -1 for none */
	int status;		/* the event's status (reject reason) */
	int wire_status;	/* from rmem reject data or READY, -1 without */
	int wire_version;
	uint8_t rep[WIRE_CHALLENGE_LEN];	/* accept's private data */
	uint8_t rep_len;
	uint32_t qp_num;	/* the server's queue pair, on accept */
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
	uint64_t handle;
	uint64_t counter;	/* of the last signed request */
	uint8_t skey[WIRE_KEY_LEN];	/* session key */
	bool keyed;
	uint8_t nonce[WIRE_NONCE_LEN];
	uint8_t auth[WIRE_AUTH_LEN];	/* the AUTH message sent */
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
void put64(uint8_t *p, uint64_t v);
void req_new(uint8_t *b, uint16_t nr_qps, const uint8_t *nonce);
void req_ctl(uint8_t *b, uint8_t op, uint16_t qp_index, uint16_t nr_qps,
	     uint64_t handle, uint64_t counter);
void req_sign(uint8_t *b, const uint8_t *skey, uint32_t qpn);
void auth_msg(uint8_t *a, uint64_t size, uint32_t hold_ms,
	      const struct cred *c);
void auth_mac(const uint8_t *key, const char *label, const uint8_t *ch,
	      const uint8_t *nonce, uint32_t client_qpn, uint32_t server_qpn,
	      const uint8_t *auth, uint8_t *out);
int key_file(const char *path, uint8_t *key);
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
int peer_open_noqp(struct peer *p, uint32_t qpn);
uint32_t peer_qpn(const struct peer *p);
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
int session_open(struct session *s, uint64_t size, uint16_t nr_qps,
		 uint32_t hold_ms, const struct cred *c,
		 const uint8_t *replay_nonce, const uint8_t *replay_auth);
void session_sign(struct session *s, uint8_t *req, uint8_t op,
		  uint16_t qp_index, uint16_t nr_qps, uint32_t qpn);
uint64_t chunk_bytes(const struct session *s, uint32_t i);
bool legal(const struct session *s, bool write, uint64_t addr,
	   uint32_t len, uint32_t rkey);
bool known_rkey(const struct session *s, uint32_t rkey);
bool nic_refused(enum ibv_wc_status st);
bool all_bytes(const uint8_t *p, uint8_t v, size_t n);

#endif /* RMEM_ROGUE_H */
