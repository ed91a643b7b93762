/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem wire protocol (see Documentation/protocol.rst).
 *
 * All multi-byte fields are little endian.  A client opens queue pair 0 of a
 * session with an RMEM_WIRE_NEW connect request; the server creates the
 * session (its own protection domain and chunks), accepts, registers every
 * chunk as a memory region on that queue pair and then sends one
 * &struct rmem_wire_ready.  The client reads the chunk table with one-sided
 * RDMA READs and opens queue pairs 1..n-1 with RMEM_WIRE_JOIN and the
 * session token.  From then on I/O is one-sided RDMA READ/WRITE only.
 *
 * Both ends probe the connection with one-sided operations (no CPU at the
 * other end): the server with zero-length RDMA WRITEs, the client with
 * 8-byte RDMA READs of its own memory (probe.c says why).  A client that
 * loses its connection reopens queue pair 0 with RMEM_WIRE_RECONNECT and
 * the token; the server keeps an orphaned session for the hold time the
 * client asked for in RMEM_WIRE_NEW.  RMEM_WIRE_LEAVE ends a session at
 * once.
 */
#ifndef _RMEM_PROTO_H
#define _RMEM_PROTO_H

#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/rmem.h>

#define RMEM_WIRE_MAGIC		0x4d454d52	/* "RMEM" read as LE bytes */
#define RMEM_WIRE_VERSION	2
#define RMEM_WIRE_TOKEN_LEN	16

/**
 * enum rmem_wire_op - what a connect request asks for
 * @RMEM_WIRE_NEW: queue pair 0 of a new session
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
};

/**
 * struct rmem_wire_connect - connect request private data (client to server)
 * @magic: RMEM_WIRE_MAGIC
 * @version: RMEM_WIRE_VERSION
 * @op: &enum rmem_wire_op
 * @flags: zero
 * @qp_index: index of this queue pair in the session
 * @nr_qps: queue pairs the client will open
 * @new: RMEM_WIRE_NEW request
 * @new.size: bytes wanted
 * @new.volume: volume name, NUL padded; empty for anonymous memory
 * @new.hold_ms: how long the server keeps the session after losing its
 *	queue pairs, waiting for RMEM_WIRE_RECONNECT; 0 for not at all
 * @join: RMEM_WIRE_JOIN, RMEM_WIRE_RECONNECT and RMEM_WIRE_LEAVE requests
 * @join.token: the session token from &struct rmem_wire_ready
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
			__le64 size;
			char volume[RMEM_VOLUME_MAX];
			__le32 hold_ms;
		} __packed new;
		struct {
			u8 token[RMEM_WIRE_TOKEN_LEN];
		} join;
	};
} __packed;

/**
 * struct rmem_wire_reject - reject private data (server to client)
 * @magic: RMEM_WIRE_MAGIC
 * @version: the server's RMEM_WIRE_VERSION
 * @status: &enum rmem_wire_status
 */
struct rmem_wire_reject {
	__le32 magic;
	__le16 version;
	__le16 status;
} __packed;

/**
 * struct rmem_wire_ready - session description, SENT on queue pair 0
 * @magic: RMEM_WIRE_MAGIC
 * @version: RMEM_WIRE_VERSION
 * @status: &enum rmem_wire_status; on error the rest is undefined
 * @token: session token for JOIN requests
 * @pool_id: the server pool's identity
 * @generation: generation of the memory (volume or anonymous session)
 * @size: bytes of the session
 * @chunk_size: bytes per chunk, a power of two
 * @nr_chunks: chunks in the table
 * @table_rkey: rkey of the chunk table
 * @table_addr: address of the chunk table (array of &struct rmem_wire_chunk)
 * @table_len: bytes of the chunk table
 * @reserved: zero
 */
struct rmem_wire_ready {
	__le32 magic;
	__le16 version;
	__le16 status;
	u8 token[RMEM_WIRE_TOKEN_LEN];
	u8 pool_id[RMEM_ID_LEN];
	__le64 generation;
	__le64 size;
	__le64 chunk_size;
	__le32 nr_chunks;
	__le32 table_rkey;
	__le64 table_addr;
	__le32 table_len;
	__le32 reserved;
} __packed;

/**
 * struct rmem_wire_chunk - one chunk in the chunk table
 * @addr: remote address of the chunk's first byte
 * @rkey: remote key of the chunk's memory region
 * @reserved: zero
 */
struct rmem_wire_chunk {
	__le64 addr;
	__le32 rkey;
	__le32 reserved;
} __packed;

/*
 * The most chunks a session has: a chunk table of at most 4 MiB.  The
 * server never describes more; the client refuses a READY that does, so
 * a peer cannot size the client's allocations.
 */
#define RMEM_WIRE_MAX_CHUNKS	(SZ_4M / sizeof(struct rmem_wire_chunk))

static_assert(sizeof(struct rmem_wire_connect) == 56);
static_assert(sizeof(struct rmem_wire_ready) == 88);
static_assert(sizeof(struct rmem_wire_chunk) == 16);

#endif /* _RMEM_PROTO_H */
