/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem client role: structures shared by client.c (connections, device
 * lifetime) and blk.c (the blk-mq data path).
 */
#ifndef _RMEM_CLIENT_H
#define _RMEM_CLIENT_H

#include <linux/blk-mq.h>
#include <linux/mempool.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "probe.h"
#include "proto.h"
#include "rmem.h"

struct crypto_shash;
struct rmem_leg;

#define RMEM_MAX_DEV_QPS	64
/* Requests posted with one doorbell at most (wr.c). */
#define RMEM_BATCH		16
/* Completions one ->poll() reaps at most (blk.c). */
#define RMEM_POLL_BUDGET	32
#define RMEM_MAX_QUEUE_DEPTH	1024
/* Scatter/gather entries per work request we use at most. */
#define RMEM_MAX_SGE		32
/* RDMA work requests the data of one block request may need at most. */
#define RMEM_WRS_PER_RQ		4
#define RMEM_MAX_SEGS		(RMEM_MAX_SGE * RMEM_WRS_PER_RQ)
/*
 * ... and one more for every boundary inside it where a work request must
 * end: a chunk's, or with a READ split (@split bytes, a power of two) a
 * multiple of @split.  A request of at most 1 MiB and at most a chunk
 * (a power of two too) has b <= 1 MiB / @split of those (chunk
 * boundaries are among them where the split is smaller), else b <= 1.
 * Its k = b + 1 pieces take k + (nents - 1) / max_sge <= b + 4 work
 * requests, nents <= 4 * max_sge being its segments.
 */
static inline unsigned int rmem_data_wrs_per_rq(unsigned int split)
{
	return RMEM_WRS_PER_RQ + (split ? SZ_1M / split : 1);
}

#define RMEM_DATA_WRS_PER_RQ	(RMEM_WRS_PER_RQ + SZ_1M / RMEM_MIN_READ_SPLIT)
/* Work requests one block request posts at most: its data, a READ's tail. */
#define RMEM_MAX_WRS_PER_RQ	(RMEM_DATA_WRS_PER_RQ + 1)

/*
 * Send queue slots one request takes: its data (READs split in pieces of
 * @split bytes, 0: not split), and on Soft-RoCE (@read_tail) a READ's
 * tail (rmem_build_read_tail()).
 */
static inline unsigned int rmem_wrs_per_rq(bool read_tail, unsigned int split)
{
	return rmem_data_wrs_per_rq(split) + read_tail;
}

/*
 * What a request's PDU holds inline (struct rmem_req): enough for a
 * request of up to RMEM_INLINE_SEGS segments (8 scattered pages: swap's
 * page-cluster readahead) whose work requests fit in RMEM_INLINE_WRS and
 * RMEM_INLINE_SGES entries.  A larger one takes a struct rmem_req_ext
 * from its device's mempool (rmem_get_ext()).
 */
#define RMEM_INLINE_SEGS	8
#define RMEM_INLINE_SGES	16
#define RMEM_INLINE_WRS		5

/* Bytes a READ's tail reads again. */
#define RMEM_READ_TAIL		8
/* Zeroed buffer used as the source of discard and write-zeroes. */
#define RMEM_ZERO_BUF		SZ_64K
/*
 * Bytes a resync copies at a time (resync.c); a mapping of this size
 * goes through swiotlb's bounce buffers too.
 */
#define RMEM_SYNC_WINDOW	SZ_256K
#define RMEM_MINORS		16
/*
 * Reissues (each after a reconnect) of a request whose own work requests
 * the server's NIC refused, before EIO.
 */
#define RMEM_MAX_RETRIES	5
/* Why connecting a queue pair failed: each has its extack message. */
enum rmem_cm_why {
	RMEM_CM_OK,
	RMEM_CM_TIMEOUT,
	RMEM_CM_ROUTE_RESOLUTION,
	RMEM_CM_QP_SETUP,
	RMEM_CM_IWARP,
	RMEM_CM_DEV_CHANGED,
	RMEM_CM_DEV_REMOVED,
	RMEM_CM_NO_LISTENER,
	RMEM_CM_PEER_CM,
	RMEM_CM_REFUSED,
	RMEM_CM_ADDR,
	RMEM_CM_ROUTE,
	RMEM_CM_UNREACHABLE,
	RMEM_CM_EVERSION,
	RMEM_CM_EINVAL,
	RMEM_CM_EACCES,
	RMEM_CM_ENOSPC,
	RMEM_CM_EBUSY,
	RMEM_CM_ESIZE,
	RMEM_CM_ENOSESSION,
	RMEM_CM_ENOMEM,
	RMEM_CM_EREG,
	RMEM_CM_EAGAIN,
	RMEM_CM_EAUTH,
	RMEM_CM_ENOKEY,
	RMEM_CM_ESESSIONS,
	RMEM_CM_EQUOTA,
	RMEM_CM_EHANDSHAKES,
	RMEM_CM_EOWNER,
	RMEM_CM_EREPLAY,
	RMEM_CM_NO_READS,
	RMEM_CM_DEV_UNFIT,
};

/* the two latency histograms of a device: reads, and writes with zeroes */
enum rmem_lat_dir {
	RMEM_LAT_READ,
	RMEM_LAT_WRITE,
	RMEM_LAT_DIRS
};

/**
 * struct rmem_stats - I/O counters of one queue (updated in its CQ context)
 * @reads: read requests completed
 * @read_bytes: bytes read
 * @writes: write requests completed
 * @write_bytes: bytes written
 * @zeroes: write-zeroes requests completed
 * @errors: requests failed (only in a device's sum: counted in
 *	&rmem_dev.errors)
 * @discards: discard requests completed (only in a device's sum: counted
 *	in &rmem_dev.discards)
 * @discard_bytes: bytes discarded (likewise)
 * @lat: latency histograms, reads and writes (&enum rmem_lat_dir), in
 *	RMEM_LAT_BUCKETS log2 buckets of microseconds (uapi rmem.h)
 * @lat_max_ns: the longest latency of each, in nanoseconds
 */
struct rmem_stats {
	u64 reads;
	u64 read_bytes;
	u64 writes;
	u64 write_bytes;
	u64 zeroes;
	u64 errors;
	u64 discards;
	u64 discard_bytes;
	u64 lat[RMEM_LAT_DIRS][RMEM_LAT_BUCKETS];
	u64 lat_max_ns[RMEM_LAT_DIRS];
};

/**
 * struct rmem_queue_io - what the I/O of one hardware queue writes
 * @batch_lock: protects @batch and @batch_nr
 * @batch_nr: requests in @batch
 * @batch: legs of requests built, to be posted with one doorbell (wr.c)
 * @reads: reads in flight on it, of a device with replicas (a read goes to
 *	the replica whose queue pair has fewer)
 * @last_done: jiffies of the last request completion
 * @stats: counters
 *
 * One per hardware queue, in an array on the RDMA device's NUMA node
 * (rmem_dev_setup_ib()).  What submission writes and what completion
 * writes sit on cache lines of their own.
 */
struct rmem_queue_io {
	/* submission (->queue_rq()) */
	spinlock_t batch_lock ____cacheline_aligned_in_smp; /* @batch, @batch_nr */
	unsigned int batch_nr;
	struct rmem_leg *batch[RMEM_BATCH];
	atomic_t reads;
	/* completion (the CQ's context) */
	unsigned long last_done ____cacheline_aligned_in_smp;
	struct rmem_stats stats;
};

/**
 * struct rmem_queue - one queue pair of a session: one RC queue pair, one
 *	CQ, serving the hardware queue of the same index
 * @dev: the device
 * @sess: the session it belongs to
 * @index: queue (and queue pair) index
 * @cm_id: rdma_cm id owning the QP
 * @cq: completion queue of the QP
 * @cm_done: signalled when connecting ends, either way
 * @cm_error: 0 or why connecting failed
 * @cm_why: what failed, for the extack message
 * @connected: established and not yet disconnected
 * @closing: being torn down; the handler must not create a QP any more
 * @poll: completions are reaped by rmem_poll(), not by interrupt
 * @leave: not a queue pair: a RMEM_WIRE_LEAVE request at detach
 * @poll_cq: @cq of a polled queue while pollers may use it (RCU)
 * @io: what its I/O writes (&rmem_dev.queue_io), from the first connect of
 *	queue pair 0 on
 *
 * Allocated with the session, before the RDMA device, and so its NUMA
 * node, is known; the I/O path only reads it, but for @connected when a
 * work request fails.
 */
struct rmem_queue {
	struct rmem_dev *dev;
	struct rmem_sess *sess;
	unsigned int index;
	struct rdma_cm_id *cm_id;
	struct ib_cq *cq;
	struct completion cm_done;
	int cm_error;
	enum rmem_cm_why cm_why;
	bool connected;
	bool closing;
	bool poll;
	bool leave;
	struct ib_cq __rcu *poll_cq;
	struct rmem_queue_io *io;
};

/**
 * struct rmem_remote_chunk - where a chunk of the device lives
 * @addr: remote address
 * @rkey: remote key
 */
struct rmem_remote_chunk {
	u64 addr;
	u32 rkey;
};

/**
 * struct rmem_emap - the extent map of a thin device (extent.c)
 * @dev: the device
 * @shift: log2 of the extent size
 * @nr: extents
 * @state: per extent, unwritten, present, freeing, giving or sent
 *	(release/acquire)
 * @rep: per extent with memory, its replicas: the sessions whose servers
 *	hold it, and which of them are stale (extent.c's RMEM_REP_*; the
 *	sessions written before @state publishes them, the stale bits only
 *	ever set, with cmpxchg, until the extent is given back)
 * @held: extents present
 * @lock: protects @waiting
 * @waiting: started requests waiting for an extent (rq->queuelist)
 * @work: takes memory for what waits, gives back what discards freed
 *	(rmem_emap_work())
 * @proto_errors: answers in a row that made no sense (worker only)
 * @free_errors: failed tries in a row to give an extent back (worker only)
 * @free_cursor: where the search for an extent to give back goes on
 * @busy_tries: looks in a row that found requests in flight on the extent
 *	being given back (the next look waits longer)
 * @nospc: the server had no room for the last extent asked for (worker
 *	writes; cleared when an extent is taken or given back)
 * @nospc_extent: that extent
 * @pend_e: an extent whose ALLOC may have taken memory on @pend_sess's
 *	server without the answer or the table read getting back (a retry
 *	asks that server again: ALLOC is idempotent), or @nr for none
 * @pend_sess: that session's index
 * @sync_cursor: where the search for an extent to resync goes on
 * @sync_e: the extent being resynced (syncing), or @nr
 * @sync_pos: bytes of it copied so far
 * @sync_rep: its replicas when the copy started (a change stops it)
 * @sync_src: the replica copied from
 * @sync_dst: the replica copied to
 * @sync_tgt: while the copy takes writes, the extent and @sync_dst in one
 *	word (RMEM_SYNC_WORD(), release/acquire), else 0: writes to it then
 *	go to its target too (rmem_emap_legs())
 * @sync_lock: the window of it being copied (its index), where writes
 *	wait, or RMEM_SYNC_UNLOCKED
 * @sync_win: bytes of a window (set before @sync_tgt)
 * @sync_missed: writes that should have reached the target and did not:
 *	a change stops the copy from making it current
 * @sync_gen: the copy's number, never 0 (a leg to an earlier copy's
 *	target that fails is not counted in @sync_missed)
 * @resync_total: extents a resync run found degraded when it started
 * @resync_done: extents it made whole since
 * @resync_tenth: the tenth of @resync_total last reported (progress)
 * @resyncing: a resync run is under way (its start was reported)
 * @sync_strikes: refusals (1 each) and connection errors (4 each) since
 *	an extent was last made whole; at RMEM_RESYNC_STRIKES the run holds
 * @sync_holding: the run holds until @sync_hold_until (jiffies)
 * @sync_hold_until: see @sync_holding
 */
struct rmem_emap {
	struct rmem_dev *dev;
	unsigned int shift;
	unsigned int nr;
	u32 *state;
	u32 *rep;
	atomic_t held;
	spinlock_t lock;	/* @waiting */
	struct list_head waiting;
	struct delayed_work work;
	unsigned int proto_errors;
	unsigned int free_errors;
	unsigned int free_cursor;
	unsigned int busy_tries;
	bool nospc;
	u32 nospc_extent;
	unsigned int pend_e;
	unsigned int pend_sess;
	unsigned int sync_cursor;
	unsigned int sync_e;
	u64 sync_pos;
	u32 sync_rep;
	unsigned int sync_src;
	unsigned int sync_dst;
	unsigned long sync_tgt;
	unsigned long sync_lock;
	u32 sync_win;
	atomic_t sync_missed;
	u32 sync_gen;
	unsigned int resync_total;
	unsigned int resync_done;
	unsigned int resync_tenth;
	bool resyncing;
	unsigned int sync_strikes;
	bool sync_holding;
	unsigned long sync_hold_until;
};

struct rmem_sess_ext;

/**
 * struct rmem_sess - a device's session with one server: the connection
 *	(client_conn.c), its handshake (handshake.c) and its loss and
 *	reconnect (recovery.c)
 * @dev: the device
 * @index: its place in the device's sessions
 * @peer: the server's address and port
 * @src: this host's address of queue pair 0's last connection, port 0: the
 *	server takes LEAVE only from the session's address
 * @queues: its queue pairs, one per hardware queue of the device
 * @state: &enum rmem_dev_state of the connection
 * @handle: names the session in signed connect requests
 * @counter: counter of the last signed connect request
 * @reconnect_counter: counter of the RECONNECT whose READY is awaited
 * @mac: HMAC transform keyed with the session key
 * @proven: both ends proved the host key at attach
 * @server_name: the name the server gave in its challenge
 * @nonce: our nonce of the last RMEM_WIRE_NEW
 * @challenge: the server's challenge (accept of RMEM_WIRE_NEW)
 * @got_challenge: @challenge holds what the server sent
 * @server_qpn: the server's queue pair number from that accept
 * @auth: the AUTH message buffer (queue pair 0 send)
 * @auth_dma: DMA address of @auth
 * @auth_cqe: completion of the AUTH send
 * @server_id: the server pool's identity
 * @generation: generation of the memory
 * @chunk_size: bytes per remote chunk
 * @chunk_shift: log2(@chunk_size)
 * @nr_chunks: entries in @chunks
 * @chunks: the chunk table
 * @ready: READY message buffer (queue pair 0 receive)
 * @ready_dma: DMA address of @ready
 * @ctl_cqe: completion of control work requests on queue pair 0
 * @ctl_done: signalled by @ctl_cqe
 * @ctl_status: status of the last control completion
 * @ctl_len: bytes received by the last control completion (a receive)
 * @table_buf: page the chunk table is read into
 * @table_dma: DMA address of @table_buf while mapped, else 0
 * @ka_buf: what the probe reads: the server's status entry (version 4),
 *	or 8 bytes of the first chunk (version 3)
 * @ka_dma: DMA address of @ka_buf
 * @fail_work: reacts to a broken connection: reconnecting, or dead
 * @reconnect_work: reconnect attempts, with backoff
 * @deadline_work: ends reconnecting at the loss timeout, even while an
 *	attempt is stuck (in an allocation under memory pressure)
 * @ka_work: probes queue pair 0 with an 8-byte RDMA READ (probe.c)
 * @ka: the probe in flight (probe.c)
 * @wire_version: the protocol version the session speaks: the newest
 *	until a version 3 server refuses it at the first connect
 * @version_refused: that server's refusal named an older version we speak
 * @server_free: the pool's free bytes as the last probe read them, or
 *	U64_MAX before a probe read them (or in version 3)
 * @table_addr: the chunk table's address (from READY); in version 4 the
 *	status entry follows its @nr_chunks entries
 * @table_rkey: its memory key
 * @absent: a thin session's chunks the attach's table read found absent
 *	(a bitmap of @nr_chunks), or NULL
 * @ext: a thin session's control message and answer (extent.c)
 * @ext_dma: their DMA address
 * @ext_page: where a slot's table entries are read into
 * @ext_page_dma: its DMA address
 * @sync_buf: a device with replicas: where a resync reads this server's
 *	copy of an extent into, a window at a time (its own, so that a READ
 *	given up while this session is lost lands nowhere else), or NULL
 * @sync_len: its bytes (RMEM_SYNC_WINDOW, or less if that much was not
 *	found contiguous)
 * @sync_dma: its DMA address, 0 if it could not be mapped (no resync
 *	from this server)
 * @pend_free: extents (a bitmap) whose ALLOC or FREE here got no answer
 *	while it is not their replica: this server may hold their slots,
 *	FREEd once the session is ready unless an ALLOC of one here
 *	succeeded since (extent worker only)
 * @ext_cqe: completion of the answer's receive and the table reads
 * @ext_send_cqe: completion of the control message's send
 * @ext_done: signalled by @ext_cqe
 * @ext_send_done: signalled by @ext_send_cqe
 * @ext_status: the first error of the wait under way
 * @ext_fenced: a wait was given up (work requests may be outstanding, or
 *	the queue pair broken): no control message until the teardown
 *	drained queue pair 0
 * @ext_lock: held while a control message or table read uses queue pair 0
 *	(rmem_sess_ext_quiesce())
 * @has_session: READY arrived once: the handle names our session
 * @torn_down: the queue pairs of the lost connection are gone (reconnect
 *	work only)
 * @attempt_ready: the reconnect attempt under way got READY: the
 *	deadline lets it finish
 * @deadline_defers: times the deadline waited for such an attempt
 * @stage: what the reconnect is doing, for the loss deadline's message
 *	(a static string; WRITE_ONCE, read by the deadline work)
 * @first_attempt_at: jiffies when the first attempt since @lost_at began
 * @recovery_lock: orders a loss's queueing of an attempt against
 *	@ib_removing
 * @ib_removing: the RDMA device removal is tearing the session down: a
 *	loss queues no attempt (the removal queues it when done)
 * @abort_work: flushes the queue pairs of a dead or deleted device
 * @qlock: serialises tearing queue pairs down (destroy, abort, disconnect)
 * @lost_at: jiffies when the connection was lost
 * @attempts: reconnect attempts since then
 * @reconnects: connections re-established since the attach
 * @read_depth: the initiator depth queue pair 0 was granted when it last
 *	connected (the server's answer to the device's read-depth), 0 before
 * @draining: RMEM_CMD_DEV_PEER_DEL asked for this server's extents to
 *	move to the others (no new extent goes here; its copies count for
 *	no extent's redundancy)
 * @drained: no extent holds a copy here any more: the drain work removes
 *	the session (the extent worker sets it)
 * @removed: the drain removed it: disconnected, told LEAVE; it is in no
 *	listing and no device state (it stays in @sessions: replica words
 *	name sessions by index)
 */
struct rmem_sess {
	struct rmem_dev *dev;
	unsigned int index;
	struct sockaddr_storage peer;
	struct sockaddr_storage src;
	struct rmem_queue *queues;
	enum rmem_dev_state state;
	u64 handle;
	atomic64_t counter;
	u64 reconnect_counter;
	struct crypto_shash *mac;
	bool proven;
	char server_name[RMEM_WIRE_SERVER_MAX];
	u8 nonce[RMEM_WIRE_NONCE_LEN];
	struct rmem_wire_challenge challenge;
	bool got_challenge;
	u32 server_qpn;
	struct rmem_wire_auth *auth;
	u64 auth_dma;
	struct ib_cqe auth_cqe;
	u8 server_id[RMEM_ID_LEN];
	u64 generation;
	u64 chunk_size;
	unsigned int chunk_shift;
	unsigned int nr_chunks;
	struct rmem_remote_chunk *chunks;
	struct rmem_wire_ready *ready;
	u64 ready_dma;
	struct ib_cqe ctl_cqe;
	struct completion ctl_done;
	enum ib_wc_status ctl_status;
	u32 ctl_len;
	void *table_buf;
	u64 table_dma;
	struct rmem_wire_pool *ka_buf;
	u64 ka_dma;
	u16 wire_version;
	u16 version_refused;
	u64 server_free;
	u64 table_addr;
	u32 table_rkey;
	unsigned long *absent;
	struct rmem_sess_ext *ext;
	u64 ext_dma;
	void *ext_page;
	u64 ext_page_dma;
	void *sync_buf;
	unsigned int sync_len;
	u64 sync_dma;
	unsigned long *pend_free;
	struct ib_cqe ext_cqe;
	struct ib_cqe ext_send_cqe;
	struct completion ext_done;
	struct completion ext_send_done;
	enum ib_wc_status ext_status;
	bool ext_fenced;
	struct mutex ext_lock;	/* queue pair 0's control messages */
	struct work_struct fail_work;
	struct delayed_work reconnect_work;
	struct delayed_work deadline_work;
	struct delayed_work ka_work;
	struct rmem_probe ka;
	bool has_session;
	bool torn_down;
	bool attempt_ready;
	unsigned int deadline_defers;
	const char *stage;
	unsigned long first_attempt_at;
	spinlock_t recovery_lock;	/* @ib_removing, queueing an attempt */
	bool ib_removing;
	struct work_struct abort_work;
	struct mutex qlock;	/* queue pair teardown */
	unsigned long lost_at;
	unsigned int attempts;
	unsigned int reconnects;
	unsigned int read_depth;
	bool draining;
	bool drained;
	bool removed;
};

/**
 * struct rmem_dev - a client block device, /dev/rmemN
 * @node: in the global device list
 * @name: rmemN
 * @index: N
 * @cfg: what DEV_ADD asked for, with defaults filled in
 * @sess: its session with the (first) server: @sessions[0]; its queue
 *	structs are the hardware queues' handles (hctx->driver_data), also
 *	once that server is drained (rmem_dev_first() is the first left)
 * @sessions: its sessions, one per server (Documentation/multi-server.rst)
 * @nr_sess: their number; more than one only on a thin device.  A peer
 *	add (peer.c) publishes one more with a release: read it with
 *	rmem_dev_nr_sess()
 * @adding: a peer add is connecting the session at @sessions[@nr_sess],
 *	not counted yet (set and cleared under @ib_lock and rmem_devs_lock)
 * @barrier_lock: one session's recovery barrier at a time (it posts the
 *	other sessions' batches)
 * @ib_lock: serialises setting up and letting go of @ibdev, @pd and the
 *	DMA mappings (the sessions connect and reconnect on their own)
 * @ibdev: RDMA device reaching the servers (one for all)
 * @pd: protection domain of all queue pairs
 * @nr_queues: queue pairs of each session (hardware queues):
 *	interrupt-driven ones first, then @nr_poll polled ones
 * @nr_poll: polled queues (HCTX_TYPE_POLL), the last of them
 * @queue_io: what each queue pair's I/O writes, @nr_queues for each
 *	session (session k's queue i at k * @nr_queues + i; room for
 *	RMEM_MAX_PEERS sessions over several servers) on the RDMA device's
 *	NUMA node, from the first connect of queue pair 0
 * @emap: a thin device's extent map (cfg.extent), else NULL
 * @max_sge: scatter/gather entries per work request
 * @read_tail: the device is Soft-RoCE: a READ request ends with a small
 *	signalled READ of its last bytes (see rmem_build_wrs())
 * @zero: zeroed buffer for discard/write-zeroes
 * @zero_dma: DMA address of @zero
 * @tag_set: blk-mq tag set
 * @ext_pool: room for requests too large for their PDU (rmem_get_ext())
 * @ext_waiting: a request found @ext_pool empty: the next element given
 *	back runs the hardware queues (a hint: the block layer runs them
 *	again after a short delay anyway)
 * @disk: the gendisk
 * @registered: the disk exists: a lost connection is worth a reconnect
 * @errors: requests that ended with an error, refused before reaching the
 *	wire or failed on it (not those reissued after a reconnect)
 * @discards: discard requests completed (in ->queue_rq(), on any CPU)
 * @discard_bytes: bytes they covered
 * @stats_base: the sums at the last RMEM_CMD_DEV_STATS_RESET, subtracted
 *	from every report (rmem_devs_lock)
 * @lost: a device with replicas found an extent with no current replica
 *	on a server that is not dead: it is dead from then on (set once, by
 *	the extent worker)
 * @draining: a drain was started on the device, ever (rmem_devs_lock):
 *	the resync runs for it with replicas 1 too
 * @drain_work: removes the drained sessions (rmem_dev_drain_work())
 */
struct rmem_dev {
	struct list_head node;
	char name[RMEM_NAME_MAX];
	int index;
	struct rmem_dev_cfg cfg;
	struct rmem_sess *sess;
	struct rmem_sess *sessions[RMEM_MAX_PEERS];
	unsigned int nr_sess;
	bool adding;
	struct mutex barrier_lock;	/* rmem_sess_queue_barrier() */
	struct mutex ib_lock;	/* @ibdev, @pd, DMA mappings */
	struct ib_device *ibdev;
	struct ib_pd *pd;
	unsigned int nr_queues;
	unsigned int nr_poll;
	struct rmem_queue_io *queue_io;
	struct rmem_emap *emap;
	unsigned int max_sge;
	bool read_tail;
	void *zero;
	u64 zero_dma;
	struct blk_mq_tag_set tag_set;
	mempool_t *ext_pool;
	bool ext_waiting;
	struct gendisk *disk;
	bool registered;
	atomic64_t errors;
	atomic64_t discards;
	atomic64_t discard_bytes;
	struct rmem_stats stats_base;
	bool lost;
	bool draining;
	struct work_struct drain_work;
};

/* The device's sessions: @sessions[0] to [n - 1]. */
static inline unsigned int rmem_dev_nr_sess(const struct rmem_dev *dev)
{
	/* pairs with the release in rmem_dev_slot_end(): each one is set up */
	return smp_load_acquire(&dev->nr_sess);
}

/*
 * Legs a request has room for: one per replica, and over several servers
 * one more, for a write to a resync's target while its copy goes on
 * (beside a draining replica, with replicas 1 or 2; with 3 the target
 * takes a dead or draining one's place).
 */
static inline unsigned int rmem_dev_max_legs(const struct rmem_dev *dev)
{
	if (dev->cfg.nr_peers == 1)
		return dev->cfg.replicas;
	return min_t(unsigned int, dev->cfg.replicas + 1, RMEM_MAX_REPLICAS);
}

/*
 * The device's first server not drained away (@sess until it is): the
 * one dev show's device-level fields describe.
 */
static inline struct rmem_sess *rmem_dev_first(const struct rmem_dev *dev)
{
	unsigned int i, n = rmem_dev_nr_sess(dev);

	for (i = 0; i < n; i++)
		if (!READ_ONCE(dev->sessions[i]->removed))
			return dev->sessions[i];
	return dev->sess;
}

/*
 * With a session being added (@adding): what the RDMA device maps.
 * Context: ib_lock held.
 */
static inline unsigned int rmem_dev_nr_slots(const struct rmem_dev *dev)
{
	return dev->nr_sess + dev->adding;
}

enum rmem_dev_state rmem_dev_state(const struct rmem_dev *dev);
extern struct mutex rmem_devs_lock;
struct rmem_dev *rmem_dev_find(const char *name);

/* drain.c */
void rmem_dev_drain_work(struct work_struct *work);

/* client.c, for peer.c */
struct rmem_sess *rmem_sess_alloc(struct rmem_dev *dev,
				  const struct sockaddr_storage *peer,
				  unsigned int index);
void rmem_sess_free(struct rmem_sess *sess);
int rmem_sess_open(struct rmem_sess *sess, int *bad_attr,
		   struct netlink_ext_ack *extack);
int rmem_dev_distinct_pools(struct rmem_dev *dev, unsigned int i,
			    int *bad_attr, struct netlink_ext_ack *extack);

/*
 * Whether I/O that cannot go out now waits rather than fails: the session
 * that would carry it is reconnecting, or live but about to notice its
 * connection is gone.
 * Not for failfast I/O (md and dm-multipath members): it fails at once
 * so the layer above can use another leg.
 */
static inline bool rmem_sess_holds_io(struct rmem_sess *sess, struct request *rq)
{
	struct rmem_dev *dev = sess->dev;
	unsigned int state = READ_ONCE(sess->state);

	return dev->cfg.loss_timeout_ms && READ_ONCE(dev->registered) &&
	       !blk_noretry_request(rq) &&
	       (state == RMEM_DEV_STATE_RECONNECTING ||
		state == RMEM_DEV_STATE_LIVE);
}

/**
 * struct rmem_req_ext - room for a request too large for its PDU
 * @sgl: its pages
 * @sge: local scatter/gather entries of its work requests
 * @wr: its RDMA READ/WRITE work requests
 *
 * Taken from the device's mempool (rmem_get_ext()) and given back when
 * the request's data is unmapped (rmem_unmap_data()).
 */
struct rmem_req_ext {
	struct scatterlist sgl[RMEM_MAX_SEGS];
	struct ib_sge sge[RMEM_MAX_SEGS + RMEM_MAX_WRS_PER_RQ];
	struct ib_rdma_wr wr[RMEM_MAX_WRS_PER_RQ];
};

/**
 * struct rmem_leg - what a request posts on one queue pair: all of it, or
 *	for a write to an extent with replicas, its copy to one of them
 * @cmd: the request
 * @queue: the queue it was posted on
 * @cqe: completion of its last (signalled) work request
 * @err_cqe: completion of unsignalled work requests (flushes only)
 * @wr: its RDMA READ/WRITE work requests
 * @nr_wr: work requests @wr has room for
 * @last_wr: its last work request, which a batch chains to the next leg's
 *	first
 * @status: BLK_STS_OK, or BLK_STS_IOERR if a work request failed or it
 *	was not posted
 * @hard_error: a work request failed because of the request, not the
 *	connection (flush, retries exceeded)
 * @partial: posted only in part: ends when its queue pair is drained
 * @ended: it ended (the timeout handler leaves its server alone)
 * @replica: which of the extent's replicas it writes (a device with
 *	replicas), else 0
 * @sync: a write's leg to the target of a resync's copy (a stale replica,
 *	not counted towards the write's success: resync.c): that copy's
 *	&rmem_emap.sync_gen; 0 for any other leg
 */
struct rmem_leg {
	struct rmem_req *cmd;
	struct rmem_queue *queue;
	struct ib_cqe cqe;
	struct ib_cqe err_cqe;
	struct ib_rdma_wr *wr;
	unsigned int nr_wr;
	struct ib_send_wr *last_wr;
	blk_status_t status;
	bool hard_error;
	bool partial;
	bool ended;
	u8 replica;
	u32 sync;
};

/**
 * struct rmem_xleg - a write's leg to a further replica
 * @leg: the leg
 * @iwr: its work requests: a write takes at most RMEM_INLINE_WRS (it is no
 *	longer than the smallest chunk: at most one chunk boundary, and at
 *	most RMEM_WRS_PER_RQ times max_sge segments), and its legs all cut
 *	at the same places (rmem_build_wrs())
 */
struct rmem_xleg {
	struct rmem_leg leg;
	struct ib_rdma_wr iwr[RMEM_INLINE_WRS];
};

/**
 * struct rmem_req - per-request context, preallocated by blk-mq (cmd_size)
 * @leg: what it posts on the queue pair it was issued on (a write to an
 *	extent with replicas: to its first replica); its work requests are
 *	@iwr, or @ext's
 * @status: block status to complete with
 * @retries: times it was reissued after a failure of its own (@hard_error;
 *	at most RMEM_MAX_RETRIES)
 * @hard_error: a work request failed because of the request, not the
 *	connection (flush, retries exceeded)
 * @final: its failure is final, not to be reissued (no replica left)
 * @nr_legs: legs posted: 1, or a write's replicas (and a resync's
 *	target: at most rmem_dev_max_legs())
 * @pending: legs not ended yet (more than one leg)
 * @skipped: a write's current replicas it did not go to (their servers
 *	took no I/O at issue), as a mask: they turn stale when it settles
 * @reading: a read counted in its queue's &rmem_queue_io.reads
 * @thin_wait: on a thin device's list, waiting for an extent's memory
 * @hole_off: a thin device's read: where the part of it that falls in an
 *	extent never written starts (bytes into the request)
 * @hole_len: that part's length (0: none), read as zeros, not over the
 *	wire
 * @sync_tgt: a write to an extent whose resync copy took writes when the
 *	map was read (rmem_emap_check()): &rmem_emap.sync_tgt then, else 0
 * @sync_gen: &rmem_emap.sync_gen then
 * @start_ns: when ->queue_rq() first saw it (rmem_lat_now()), for the
 *	latency histograms; a reissue keeps it
 * @nr_sgl: entries of @sgl passed to ib_dma_map_sg(), 0 if none
 * @nents: entries ib_dma_map_sg() returned (what the work requests use)
 * @sgl: the request's pages: @isgl, or @ext's
 * @sge: local scatter/gather entries of the work requests (every leg's):
 *	@isge or @ext's
 * @ext: the room it took from the device's mempool, or NULL
 * @nr_sge: entries @sge has room for
 * @isgl: inline room for the pages of a small request
 * @isge: inline room for its scatter/gather entries
 * @iwr: inline room for its work requests
 * @xleg: legs to a write's further replicas (rmem_dev_max_legs() - 1 of
 *	them: blk-mq allocates them with the PDU)
 */
struct rmem_req {
	struct rmem_leg leg;
	blk_status_t status;
	u8 retries;
	bool hard_error;
	bool final;
	u8 nr_legs;
	u8 skipped;
	atomic_t pending;
	bool reading;
	bool thin_wait;
	u32 hole_off;
	u32 hole_len;
	unsigned long sync_tgt;
	u32 sync_gen;
	u64 start_ns;
	int nr_sgl;
	int nents;
	struct scatterlist *sgl;
	struct ib_sge *sge;
	struct rmem_req_ext *ext;
	unsigned int nr_sge;
	struct scatterlist isgl[RMEM_INLINE_SEGS];
	struct ib_sge isge[RMEM_INLINE_SGES];
	struct ib_rdma_wr iwr[RMEM_INLINE_WRS];
	struct rmem_xleg xleg[];
};

/* Leg @i of @cmd: 0 is its own, the others a write's further replicas. */
static inline struct rmem_leg *rmem_req_leg(struct rmem_req *cmd,
					    unsigned int i)
{
	return i ? &cmd->xleg[i - 1].leg : &cmd->leg;
}

/*
 * Work requests a queue pair keeps room for besides its requests' own:
 * the probe, and on a thin device its control message and the two READs
 * of a slot's table entries (queue pair 0).
 */
static inline unsigned int rmem_ctl_wrs(const struct rmem_dev *dev)
{
	return dev->cfg.extent ? 4 : 1;
}

/* extent.c */
int rmem_emap_alloc(struct rmem_dev *dev);
void rmem_emap_free(struct rmem_dev *dev);
unsigned int rmem_emap_held(const struct rmem_dev *dev);
unsigned int rmem_emap_held_by(const struct rmem_dev *dev,
			       const struct rmem_sess *sess);
bool rmem_emap_table_ok(struct rmem_sess *sess);
void rmem_emap_load_table(struct rmem_sess *sess);
bool rmem_emap_queue_rq(struct rmem_dev *dev, struct request *rq);
int rmem_emap_legs(struct rmem_dev *dev, unsigned int qi, struct request *rq,
		   struct rmem_req *cmd);
unsigned int rmem_emap_rq_extent(const struct rmem_dev *dev,
				 struct request *rq);
bool rmem_emap_stale(struct rmem_dev *dev, unsigned int e, unsigned int bad,
		     unsigned int keep);
unsigned int rmem_emap_degraded(const struct rmem_dev *dev);
bool rmem_emap_lost(const struct rmem_dev *dev);
void rmem_emap_note_lost(struct rmem_dev *dev);
bool rmem_emap_refs(const struct rmem_dev *dev, const struct rmem_sess *sess);
void rmem_sess_ext_quiesce(struct rmem_sess *sess);
void rmem_emap_discard(struct rmem_dev *dev, struct request *rq);
void rmem_emap_zero_hole(struct request *rq, u32 off, u32 len);
void rmem_emap_work(struct work_struct *work);
void rmem_emap_kick(struct rmem_dev *dev);
void rmem_emap_resume(struct rmem_dev *dev);
void rmem_emap_stop(struct rmem_dev *dev);

/* ext_msg.c */
bool rmem_sess_ext_ready(struct rmem_sess *sess);
int rmem_sess_ext_op(struct rmem_sess *sess, u8 op, unsigned int slot);
int rmem_sess_ext_read(struct rmem_sess *sess, unsigned int first,
		       unsigned int n);
int rmem_sess_ext_copy(struct rmem_sess *sess, bool write, u64 remote,
		       u32 rkey, u64 local, u32 len);
int rmem_sess_ext_init(struct rmem_sess *sess);
void rmem_sess_ext_free(struct rmem_sess *sess);
int rmem_sess_ext_map(struct rmem_sess *sess, struct ib_device *ibdev);
void rmem_sess_ext_unmap(struct rmem_sess *sess, struct ib_device *ibdev);

/* wr.c */
void *rmem_ext_alloc(gfp_t gfp, void *data);
blk_status_t rmem_get_ext(struct rmem_dev *dev, struct rmem_req *cmd);
blk_status_t rmem_map_data(struct rmem_dev *dev, struct request *rq,
			   struct rmem_req *cmd);
void rmem_unmap_data(struct rmem_dev *dev, struct rmem_req *cmd);
int rmem_build_wrs(struct rmem_dev *dev, struct rmem_req *cmd,
		   enum ib_wr_opcode op, u64 pos, u32 zero_len);
int rmem_build_xlegs(struct rmem_req *cmd, u64 pos);
void rmem_queue_batch(struct rmem_queue *queue, struct rmem_leg *leg);
void rmem_commit_batch(struct rmem_queue *queue);
void rmem_flush_batch(struct rmem_queue *queue);

/* client_conn.c */
void rmem_ctl_arm(struct rmem_sess *sess);
void rmem_ctl_done(struct ib_cq *cq, struct ib_wc *wc);
int rmem_reject_attr(int err);
int rmem_queue_connect(struct rmem_queue *queue,
		       struct netlink_ext_ack *extack);
int rmem_sess_ready(struct rmem_sess *sess, struct netlink_ext_ack *extack);
void rmem_sess_set_probe(struct rmem_sess *sess);
int rmem_sess_post_table_read(struct rmem_sess *sess, void *buf, u64 dma,
			      unsigned int first, u32 len, struct ib_cqe *cqe);
int rmem_sess_read_table(struct rmem_sess *sess,
			 struct netlink_ext_ack *extack);
void rmem_sess_disconnect(struct rmem_sess *sess);
void rmem_sess_destroy_queues(struct rmem_sess *sess);
void rmem_sess_leave(struct rmem_sess *sess);
void rmem_dev_release_ib(struct rmem_dev *dev);
int rmem_dev_slot_add(struct rmem_dev *dev, struct rmem_sess *sess);
void rmem_dev_slot_end(struct rmem_dev *dev, bool publish);
void rmem_dev_drop_removed_ib(struct rmem_dev *dev);

/* client.c */
void rmem_dev_announce(struct rmem_dev *dev);
bool rmem_client_ibdev_usable(struct ib_device *ibdev);

/* handshake.c */
int rmem_wire_status_err(unsigned int status, enum rmem_cm_why *why);
void rmem_cm_why_msg(struct netlink_ext_ack *extack, enum rmem_cm_why why);
void rmem_queue_challenge(struct rmem_queue *queue, struct rdma_cm_event *ev);
int rmem_sess_send_auth(struct rmem_sess *sess,
			struct netlink_ext_ack *extack);
void rmem_sess_auth_sent(struct ib_cq *cq, struct ib_wc *wc);
int rmem_sess_ready_auth(struct rmem_sess *sess,
			 struct netlink_ext_ack *extack);
int rmem_sess_sign(struct rmem_sess *sess, struct rmem_wire_connect *req,
		   u32 qpn);

/* recovery.c */
void rmem_sess_fail(struct rmem_sess *sess);
void rmem_sess_recovery_init(struct rmem_sess *sess);
void rmem_sess_recovery_stop(struct rmem_sess *sess);
void rmem_sess_start_ka(struct rmem_sess *sess);
void rmem_sess_check_queues(struct rmem_sess *sess);
void rmem_dev_resume_io(struct rmem_dev *dev);
void rmem_sess_abort(struct rmem_sess *sess);
void rmem_sess_abort_queues(struct rmem_sess *sess);
void rmem_dev_ib_removed(struct rmem_dev *dev, struct ib_device *ibdev);

/*
 * RMEM_BENCH_BARE is set only in make bench's reference build: that build
 * has no latency timestamps, histograms or request tracepoints, so that
 * the benchmark can show what they cost when nobody looks
 * (Documentation/performance.rst).  A real build always has them.
 */
#ifdef RMEM_BENCH_BARE
#define RMEM_LAT_STATS false
#else
#define RMEM_LAT_STATS true
#endif

static inline u64 rmem_lat_now(void)
{
	return RMEM_LAT_STATS ? ktime_get_ns() : 0;
}

/* sysfs.c */
extern const struct attribute_group *rmem_disk_groups[];

/* blk.c */
int rmem_blk_init(void);
void rmem_blk_exit(void);
unsigned int rmem_blk_send_wrs(const struct rmem_dev *dev);
int rmem_blk_create(struct rmem_dev *dev);
u64 rmem_dev_memory(const struct rmem_dev *dev);
void rmem_blk_remove(struct rmem_dev *dev);
void rmem_blk_free(struct rmem_dev *dev);
void rmem_blk_drained(struct rmem_queue *queue);
void rmem_leg_end(struct rmem_leg *leg);

#endif /* _RMEM_CLIENT_H */
