/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem wire protocol (see Documentation/protocol.rst).
 *
 * All multi-byte fields are little endian.  A client opens queue pair 0 of a
 * session with an RMEM_WIRE_NEW connect request carrying a fresh nonce; the
 * server makes a session shell (PD, CQ, queue pair; no memory) and accepts
 * with a &struct rmem_wire_challenge (its own nonce).  The client SENDs
 * &struct rmem_wire_auth: its host identity, what it asks for and, with a
 * host key, an HMAC-SHA256 proof over the whole exchange.  Only then does
 * the server take memory, register it in the session's PD and SEND
 * &struct rmem_wire_ready, which proves the server's knowledge of the key
 * in turn.  The client reads the chunk table with one-sided RDMA READs and
 * opens queue pairs 1..n-1 with RMEM_WIRE_JOIN.  From then on I/O is
 * one-sided RDMA READ/WRITE only.
 *
 * JOIN, RECONNECT and LEAVE name the session by its handle and carry a
 * counter that only grows and an HMAC under the session key that the
 * handshake derived (which never crosses the wire when a host key was
 * used): a captured request can be neither replayed nor altered.
 *
 * Both ends probe the connection with one-sided operations (no CPU at the
 * other end): the server with zero-length RDMA WRITEs, the client with
 * 8-byte RDMA READs of its own memory (probe.c says why).  A client that
 * loses its connection reopens queue pair 0 with RMEM_WIRE_RECONNECT; the
 * server keeps an orphaned session for the hold time the client asked for.
 * RMEM_WIRE_LEAVE ends a session at once.
 */
#ifndef _RMEM_PROTO_H
#define _RMEM_PROTO_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/rmem.h>

#define RMEM_WIRE_MAGIC		0x4d454d52	/* "RMEM" read as LE bytes */
#define RMEM_WIRE_VERSION	4	/* the newest this module speaks */
#define RMEM_WIRE_VERSION_MIN	3	/* the oldest it still speaks */
#define RMEM_WIRE_NONCE_LEN	32
#define RMEM_WIRE_MAC_LEN	32	/* HMAC-SHA256 */
#define RMEM_WIRE_CTL_MAC_LEN	28	/* truncated, in connect requests */
#define RMEM_WIRE_SERVER_MAX	32	/* server name in a challenge */

/**
 * enum rmem_wire_op - what a connect request asks for
 * @RMEM_WIRE_NEW: queue pair 0 of a new session; the handshake follows
 * @RMEM_WIRE_JOIN: a further queue pair of an existing session
 * @RMEM_WIRE_RECONNECT: queue pair 0 again, for a session whose queue pairs
 *	were lost; answered with READY like NEW
 * @RMEM_WIRE_LEAVE: end the session now; always answered with a reject,
 *	status RMEM_WIRE_OK when the session was released
 */
enum rmem_wire_op {
	RMEM_WIRE_NEW = 1,
	RMEM_WIRE_JOIN = 2,
	RMEM_WIRE_RECONNECT = 3,
	RMEM_WIRE_LEAVE = 4,
};

/**
 * enum rmem_wire_status - why a server refused, in reject and ready messages
 * @RMEM_WIRE_OK: success
 * @RMEM_WIRE_EVERSION: protocol version not supported
 * @RMEM_WIRE_EINVAL: malformed request
 * @RMEM_WIRE_EACCES: client address not allowed
 * @RMEM_WIRE_ENOSPC: not enough free memory in the pool
 * @RMEM_WIRE_EBUSY: volume attached by another client
 * @RMEM_WIRE_ESIZE: volume exists with another size
 * @RMEM_WIRE_ENOSESSION: join for an unknown session
 * @RMEM_WIRE_ENOMEM: server out of memory or resources
 * @RMEM_WIRE_EREG: memory registration failed on the server
 * @RMEM_WIRE_EAGAIN: the session still tears down its old queue pairs;
 *	reconnect again shortly
 * @RMEM_WIRE_EAUTH: the proof is wrong: another key, or a host identity
 *	the server has no entry for
 * @RMEM_WIRE_ENOKEY: the server requires a key and the client proved none
 * @RMEM_WIRE_ESESSIONS: the host has as many sessions as it may
 * @RMEM_WIRE_EQUOTA: the host would hold more memory than it may
 * @RMEM_WIRE_EHANDSHAKES: too many connections are authenticating now
 * @RMEM_WIRE_EOWNER: the volume belongs to another host identity
 * @RMEM_WIRE_EREPLAY: the request's counter was used before (a replay)
 */
enum rmem_wire_status {
	RMEM_WIRE_OK = 0,
	RMEM_WIRE_EVERSION,
	RMEM_WIRE_EINVAL,
	RMEM_WIRE_EACCES,
	RMEM_WIRE_ENOSPC,
	RMEM_WIRE_EBUSY,
	RMEM_WIRE_ESIZE,
	RMEM_WIRE_ENOSESSION,
	RMEM_WIRE_ENOMEM,
	RMEM_WIRE_EREG,
	RMEM_WIRE_EAGAIN,
	RMEM_WIRE_EAUTH,
	RMEM_WIRE_ENOKEY,
	RMEM_WIRE_ESESSIONS,
	RMEM_WIRE_EQUOTA,
	RMEM_WIRE_EHANDSHAKES,
	RMEM_WIRE_EOWNER,
	RMEM_WIRE_EREPLAY,
};

/**
 * struct rmem_wire_connect - connect request private data (client to server)
 * @magic: RMEM_WIRE_MAGIC
 * @version: the version the client speaks: the session's, for a
 *	RMEM_WIRE_NEW the newest it can (a version 3 server refuses 4 with
 *	RMEM_WIRE_EVERSION and version 3, and the client asks again in 3)
 * @op: &enum rmem_wire_op
 * @flags: zero
 * @qp_index: index of this queue pair in the session
 * @nr_qps: queue pairs the client will open
 * @new: RMEM_WIRE_NEW request
 * @new.nonce: fresh random bytes of the client
 * @new.reserved: zero
 * @ctl: RMEM_WIRE_JOIN, RMEM_WIRE_RECONNECT and RMEM_WIRE_LEAVE requests
 * @ctl.handle: the session's handle from &struct rmem_wire_ready
 * @ctl.counter: greater than that of any earlier request of the session
 * @ctl.mac: the first RMEM_WIRE_CTL_MAC_LEN bytes of HMAC-SHA256 under the
 *	session key of "rmem-ctl", the 28 bytes before @ctl.mac and the
 *	request's queue pair number (le32; 0 for LEAVE, which has none)
 *
 * At most 56 bytes: what rdma_cm carries in an InfiniBand/RoCE REQ.
 */
struct rmem_wire_connect {
	__le32 magic;
	__le16 version;
	u8 op;
	u8 flags;
	__le16 qp_index;
	__le16 nr_qps;
	union {
		struct {
			u8 nonce[RMEM_WIRE_NONCE_LEN];
			u8 reserved[12];
		} new;
		struct {
			__le64 handle;
			__le64 counter;
			u8 mac[RMEM_WIRE_CTL_MAC_LEN];
		} __packed ctl;
	};
} __packed;

/**
 * struct rmem_wire_reject - reject private data (server to client), and
 *	the accept (REP) of JOIN and RECONNECT
 * @magic: RMEM_WIRE_MAGIC
 * @version: the request's version if the server speaks it, else the
 *	newest the server speaks
 * @status: &enum rmem_wire_status
 */
struct rmem_wire_reject {
	__le32 magic;
	__le16 version;
	__le16 status;
} __packed;

/**
 * struct rmem_wire_challenge - accept (REP) private data of RMEM_WIRE_NEW
 * @magic: RMEM_WIRE_MAGIC
 * @version: the session's version (that of the connect request)
 * @status: RMEM_WIRE_OK
 * @auth: the server's &enum rmem_auth now
 * @reserved: zero
 * @nonce: fresh random bytes of the server
 * @pool_id: the server pool's identity
 * @server: the server's name, NUL padded
 *
 * Begins like &struct rmem_wire_reject.
 */
struct rmem_wire_challenge {
	__le32 magic;
	__le16 version;
	__le16 status;
	u8 auth;
	u8 reserved[7];
	u8 nonce[RMEM_WIRE_NONCE_LEN];
	u8 pool_id[RMEM_ID_LEN];
	char server[RMEM_WIRE_SERVER_MAX];
} __packed;

/* &struct rmem_wire_auth flags */
#define RMEM_WIRE_AUTH_KEYED	0x1	/* @mac proves a host key */
#define RMEM_WIRE_AUTH_THIN	0x2	/* version 4: memory on demand */

/* A thin session's extent: a power of two, at least the server's chunk */
#define RMEM_WIRE_EXTENT_SHIFT_MAX	40

/**
 * struct rmem_wire_auth - the client's request and proof, SENT on queue
 *	pair 0 once it is established after RMEM_WIRE_NEW
 * @magic: RMEM_WIRE_MAGIC
 * @version: the session's version
 * @flags: RMEM_WIRE_AUTH_KEYED, RMEM_WIRE_AUTH_THIN (version 4), or zero
 * @reserved: with RMEM_WIRE_AUTH_THIN, log2 of the extent (the unit the
 *	client takes memory in: a slot), at least the server's chunk size
 *	and at most RMEM_WIRE_EXTENT_SHIFT_MAX; else zero
 * @size: bytes wanted; with RMEM_WIRE_AUTH_THIN the most the session may
 *	ever hold, a whole number of extents (no volume: @volume empty), and
 *	nothing is taken before the client asks for a slot
 * @hold_ms: how long the server keeps the session after losing its
 *	queue pairs, waiting for RMEM_WIRE_RECONNECT; 0 for not at all
 * @reserved2: zero
 * @volume: volume name, NUL padded; empty for anonymous memory
 * @host: the client's host identity, NUL padded; empty for none
 * @mac: with RMEM_WIRE_AUTH_KEYED, HMAC-SHA256 under the host key of
 *	"rmem-client" and the transcript (protocol.rst); else zero
 */
struct rmem_wire_auth {
	__le32 magic;
	__le16 version;
	u8 flags;
	u8 reserved;
	__le64 size;
	__le32 hold_ms;
	__le32 reserved2;
	char volume[RMEM_VOLUME_MAX];
	char host[RMEM_HOST_ID_MAX];
	u8 mac[RMEM_WIRE_MAC_LEN];
} __packed;

/* &struct rmem_wire_ready flags */
#define RMEM_WIRE_READY_KEYED	0x1	/* the session key was derived */
#define RMEM_WIRE_READY_THIN	0x2	/* a thin session (its AUTH asked) */

/**
 * struct rmem_wire_ready - session description, SENT on queue pair 0
 * @magic: RMEM_WIRE_MAGIC
 * @version: the session's version
 * @status: &enum rmem_wire_status; on error the rest is zero
 * @handle: names the session in later connect requests
 * @pool_id: the server pool's identity
 * @generation: generation of the memory (volume or anonymous session)
 * @size: bytes of the session
 * @chunk_size: bytes per chunk, a power of two
 * @nr_chunks: chunks in the table
 * @table_rkey: rkey of the chunk table
 * @table_addr: address of the chunk table (array of &struct rmem_wire_chunk)
 * @table_len: bytes of the chunk table; in version 4 and later, followed
 *	by a &struct rmem_wire_pool that @table_len covers
 * @flags: RMEM_WIRE_READY_KEYED, RMEM_WIRE_READY_THIN, or zero
 * @session_key: without RMEM_WIRE_READY_KEYED, the session key (an
 *	unauthenticated session has no secret to derive it from); else zero
 * @mac: HMAC-SHA256 under the session key of "rmem-ready", the bytes
 *	before @mac and the counter of the request it answers (le64; 0 for
 *	NEW): the server's proof
 */
struct rmem_wire_ready {
	__le32 magic;
	__le16 version;
	__le16 status;
	__le64 handle;
	u8 pool_id[RMEM_ID_LEN];
	__le64 generation;
	__le64 size;
	__le64 chunk_size;
	__le32 nr_chunks;
	__le32 table_rkey;
	__le64 table_addr;
	__le32 table_len;
	__le32 flags;
	u8 session_key[RMEM_KEY_LEN];
	u8 mac[RMEM_WIRE_MAC_LEN];
} __packed;

/* &struct rmem_wire_chunk @reserved: no memory there (thin sessions) */
#define RMEM_WIRE_CHUNK_ABSENT	0x1

/**
 * struct rmem_wire_chunk - one chunk in the chunk table
 * @addr: remote address of the chunk's first byte
 * @rkey: remote key of the chunk's memory region
 * @reserved: zero; in a thin session RMEM_WIRE_CHUNK_ABSENT for a chunk
 *	not taken (@addr and @rkey zero)
 */
struct rmem_wire_chunk {
	__le64 addr;
	__le32 rkey;
	__le32 reserved;
} __packed;

/**
 * struct rmem_wire_pool - the server's state, after the chunk table
 *	(version 4): the client's probe reads it (one-sided, no server CPU)
 * @free: bytes of the pool not handed out (advisory: it may change at
 *	once); written with one aligned 64-bit store
 * @seq: counts the server's refreshes (every keep-alive interval, and
 *	before READY); a client may tell a refreshing server from one that
 *	stopped
 * @reserved: zero
 */
struct rmem_wire_pool {
	__le64 free;
	__le32 seq;
	__le32 reserved;
} __packed;

/**
 * enum rmem_wire_ext_op - control messages of a thin session (version 4)
 * @RMEM_WIRE_EXTENT_ALLOC: take zeroed memory for a slot, register it and
 *	describe it in the chunk table; a slot that has memory is left as
 *	it is (a retry after a lost answer)
 * @RMEM_WIRE_EXTENT_FREE: deregister a slot's memory first, describe it
 *	absent, give it back; a slot without memory is left as it is
 */
enum rmem_wire_ext_op {
	RMEM_WIRE_EXTENT_ALLOC = 1,
	RMEM_WIRE_EXTENT_FREE = 2,
};

/**
 * struct rmem_wire_ext - a control message of a thin session, SENT by the
 *	client on queue pair 0 once READY came; one outstanding at a time
 * @magic: RMEM_WIRE_MAGIC
 * @version: the session's version (4 or later)
 * @op: &enum rmem_wire_ext_op
 * @flags: zero
 * @slot: the slot: chunk table entries @slot x (extent / chunk size) on
 * @reserved: zero
 * @counter: greater than that of any earlier signed request of the
 *	session (connect requests included)
 * @mac: HMAC-SHA256 under the session key of "rmem-ext" and the bytes
 *	before @mac
 */
struct rmem_wire_ext {
	__le32 magic;
	__le16 version;
	u8 op;
	u8 flags;
	__le32 slot;
	__le32 reserved;
	__le64 counter;
	u8 mac[RMEM_WIRE_MAC_LEN];
} __packed;

/**
 * struct rmem_wire_ext_reply - the server's answer to a &struct
 *	rmem_wire_ext, SENT on queue pair 0
 * @magic: RMEM_WIRE_MAGIC
 * @version: the session's version
 * @status: &enum rmem_wire_status: OK, ENOSPC or EQUOTA (no room: nothing
 *	was taken), EINVAL (a slot outside the session), EREG, ENOMEM
 * @slot: the request's
 * @reserved: zero
 * @free: the pool's free bytes after the request
 * @counter: the request's
 * @mac: HMAC-SHA256 under the session key of "rmem-ext-reply" and the
 *	bytes before @mac
 */
struct rmem_wire_ext_reply {
	__le32 magic;
	__le16 version;
	__le16 status;
	__le32 slot;
	__le32 reserved;
	__le64 free;
	__le64 counter;
	u8 mac[RMEM_WIRE_MAC_LEN];
} __packed;

/*
 * The most chunks a session has: a chunk table, with its status entry, of
 * at most 4 MiB.  The server never describes more; the client refuses a
 * READY that does, so a peer cannot size the client's allocations.
 */
#define RMEM_WIRE_MAX_CHUNKS	(SZ_4M / sizeof(struct rmem_wire_chunk) - 1)
/* version 3: no status entry */
#define RMEM_WIRE_MAX_CHUNKS_V3	(SZ_4M / sizeof(struct rmem_wire_chunk))

static_assert(sizeof(struct rmem_wire_connect) == 56);
static_assert(sizeof(struct rmem_wire_challenge) == 96);
static_assert(sizeof(struct rmem_wire_auth) == 152);
static_assert(sizeof(struct rmem_wire_ready) == 144);
static_assert(sizeof(struct rmem_wire_chunk) == 16);
static_assert(sizeof(struct rmem_wire_pool) == 16);
static_assert(sizeof(struct rmem_wire_ext) == 56);
static_assert(sizeof(struct rmem_wire_ext_reply) == 64);
static_assert(offsetof(struct rmem_wire_connect, ctl.mac) ==
	      56 - RMEM_WIRE_CTL_MAC_LEN);

#endif /* _RMEM_PROTO_H */
