/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem server role: structures shared by server.c (pool, volumes) and
 * session.c (connections, registration).
 */
#ifndef _RMEM_SERVER_H
#define _RMEM_SERVER_H

#include <linux/scatterlist.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "probe.h"
#include "proto.h"

struct crypto_shash;

/* Most queue pairs a session may open. */
#define RMEM_MAX_QPS		64
/* Registration work requests posted between waits. */
#define RMEM_REG_BATCH		16

/*
 * Background zeroing pauses this long after each accepted connect request,
 * but zeroes a released chunk no later than RMEM_ZERO_MAX_DELAY_MS after.
 */
#define RMEM_ZERO_PAUSE_MS	1000
#define RMEM_ZERO_MAX_DELAY_MS	10000

/*
 * Connections that have not authenticated yet, at most: per server, and
 * per client address; each must send its AUTH within RMEM_HS_TIMEOUT of
 * its connect request.  A flood of connect requests then costs the
 * server a bounded number of queue pairs and nothing of its pool.
 */
#define RMEM_HS_MAX		16
#define RMEM_HS_PER_ADDR	4
#define RMEM_HS_TIMEOUT		(10 * HZ)
/*
 * With every slot taken, a new connect request ends the oldest shell
 * whose AUTH message has not come after this long: a flood cannot keep
 * clients out for as long as it lasts...
 */
#define RMEM_HS_EVICT_AGE	HZ
/*
 * ... and, for a host with fewer shells than the busiest one, a shell of
 * that host older than this (rmem_hs_evict()), measured from before the
 * accept: time for the REP, RTU and AUTH, and a cap on the churn (16
 * slots every 0.2 s at most).
 */
#define RMEM_HS_GRACE		(HZ / 5)

/* First member of every rdma_cm_id context of the server role. */
enum rmem_cm_ctx {
	RMEM_CTX_LISTENER = 1,
	RMEM_CTX_CONN,
};

/**
 * struct rmem_chunk - one chunk of the pool: chunk_size bytes of RAM
 * @node: in the server's free list while free
 * @sgt: its blocks, DMA mapped for the server's device
 * @index: position in the pool
 * @mapped: @sgt is DMA mapped
 * @dirty: may hold data of a former owner; zero before handing out
 */
struct rmem_chunk {
	struct list_head node;
	struct sg_table sgt;
	unsigned int index;
	bool mapped;
	bool dirty;
};

/**
 * struct rmem_volume - named memory kept across attaches
 * @node: in the server's volume list
 * @name: volume name
 * @size: bytes
 * @generation: identifies this incarnation of the volume
 * @chunks: its chunks
 * @nr_chunks: entries in @chunks
 * @owner: attached session, or NULL
 * @owner_id: host identity of the client that created it; only that
 *	identity may attach it
 * @owner_proven: its creator proved its key; only a client proving the
 *	same may attach it
 */
struct rmem_volume {
	struct list_head node;
	char name[RMEM_VOLUME_MAX];
	u64 size;
	u64 generation;
	struct rmem_chunk **chunks;
	unsigned int nr_chunks;
	struct rmem_session *owner;
	char owner_id[RMEM_HOST_ID_MAX];
	bool owner_proven;
};

/**
 * struct rmem_host - a client host a server knows: its key and limits
 * @node: in the server's host list
 * @id: the host identity
 * @key: the host key
 * @size_limit: bytes its sessions and volumes may hold (whole chunks),
 *	0 for no limit
 * @max_sessions: sessions it may have at once, 0 for no limit
 * @gen: number of this entry (&rmem_server.host_gen): a session proven
 *	with the key of a removed entry is not admitted under a new one
 */
struct rmem_host {
	struct list_head node;
	char id[RMEM_HOST_ID_MAX];
	u8 key[RMEM_KEY_LEN];
	u64 size_limit;
	unsigned int max_sessions;
	u64 gen;
};

/**
 * struct rmem_server - a memory server
 * @ctx: RMEM_CTX_LISTENER (context of @listen_id)
 * @node: in the global server list
 * @name: server name
 * @addr: listen address and port
 * @listen_id: the rdma_cm listener
 * @ibdev: RDMA device of @addr
 * @id: random pool identity
 * @seq: number in the order of creation (the order of the list), from 1
 * @chunk_size: bytes per chunk (a power of two)
 * @chunk_shift: log2(@chunk_size)
 * @block_order: page order of the blocks making a chunk
 * @chunks: the pool
 * @nr_chunks: entries in @chunks
 * @free_chunks: chunks not handed out, zeroed
 * @dirty_chunks: chunks not handed out that a former owner wrote to; the
 *	zero work moves them to @free_chunks
 * @nr_free: chunks not handed out: @free_chunks, @dirty_chunks and the
 *	one being zeroed
 * @nr_dirty: chunks in @dirty_chunks, and @zeroing
 * @thin_chunks: table entries of the thin sessions (at most
 *	RMEM_THIN_OVERCOMMIT times @nr_chunks)
 * @zeroing: the chunk @zero_work zeroes now, in no list
 * @zero_work: zeroes released chunks in the background, so that attach
 *	does not wait for memory a former client used
 * @zero_resume: jiffies before which @zero_work stays paused: it yields
 *	the CPU and memory bandwidth to the connects in progress
 * @zero_due: jiffies by which @zero_work resumes whatever the connects:
 *	RMEM_ZERO_MAX_DELAY_MS after the oldest chunk in @dirty_chunks came
 *	back
 * @zero_wq: woken when @zeroing is done
 * @zero_waiters: attaches waiting for @zeroing; the zero work pauses
 * @sessions: connected client sessions
 * @refs: one for the server's own entry in the server list, and one per
 *	session until the session is freed (rmem_session_free())
 * @sessions_done: completed when the last reference is dropped: the
 *	server may be freed then
 * @volumes: named volumes
 * @allow: allowed client prefixes
 * @nr_allow: entries in @allow; 0 allows any client
 * @hosts: host entries (&struct rmem_host)
 * @nr_hosts: entries in @hosts
 * @auth: the &enum rmem_auth asked for, 0 for the default: none until
 *	the first host key, then required (rmem_server_auth())
 * @keyed: a host key was added once; stays set when they are all removed
 * @nr_hs: sessions counting against RMEM_HS_MAX
 * @host_gen: the last &rmem_host.gen given
 * @lock: protects the lists and counters above
 * @dying: being removed; refuse new sessions
 */
struct rmem_server {
	enum rmem_cm_ctx ctx;
	struct list_head node;
	char name[RMEM_NAME_MAX];
	struct sockaddr_storage addr;
	struct rdma_cm_id *listen_id;
	struct ib_device *ibdev;
	u8 id[RMEM_ID_LEN];
	unsigned long seq;
	u64 chunk_size;
	unsigned int chunk_shift;
	unsigned int block_order;
	struct rmem_chunk *chunks;
	unsigned int nr_chunks;
	struct list_head free_chunks;
	struct list_head dirty_chunks;
	unsigned int nr_free;
	unsigned int nr_dirty;
	u64 thin_chunks;
	struct rmem_chunk *zeroing;
	struct delayed_work zero_work;
	unsigned long zero_resume;
	unsigned long zero_due;
	wait_queue_head_t zero_wq;
	unsigned int zero_waiters;
	struct list_head sessions;
	atomic_t refs;
	struct completion sessions_done;
	struct list_head volumes;
	struct rmem_prefix *allow;
	unsigned int nr_allow;
	struct list_head hosts;
	unsigned int nr_hosts;
	u8 auth;
	bool keyed;
	unsigned int nr_hs;
	u64 host_gen;
	struct mutex lock;	/* lists, counters, session states */
	bool dying;
};

/**
 * rmem_server_auth() - how a server authenticates clients now
 * @srv: the server
 *
 * Return: &enum rmem_auth.
 */
static inline u8 rmem_server_auth(const struct rmem_server *srv)
{
	if (srv->auth)
		return srv->auth;
	return srv->keyed ? RMEM_AUTH_REQUIRED : RMEM_AUTH_NONE;
}

/**
 * rmem_server_unref() - drop a session's reference on its server
 * @srv: the server
 *
 * The last touch of @srv by whoever drops the reference: once it is gone,
 * rmem_server_destroy() may free @srv (a session's release may not rely
 * on srv->lock for that: mutex_unlock() may touch the mutex after another
 * task took it).
 */
static inline void rmem_server_unref(struct rmem_server *srv)
{
	if (atomic_dec_and_test(&srv->refs))
		complete(&srv->sessions_done);
}

/**
 * struct rmem_sconn - one queue pair of a session, server side
 * @ctx: RMEM_CTX_CONN (context of @cm_id)
 * @cm_id: its rdma_cm id (owns the QP)
 * @sess: the session
 * @index: queue pair index in the session
 * @reconnect: queue pair 0 of a RECONNECT: its ESTABLISHED sends READY
 */
struct rmem_sconn {
	enum rmem_cm_ctx ctx;
	struct rdma_cm_id *cm_id;
	struct rmem_session *sess;
	unsigned int index;
	bool reconnect;
};

/**
 * struct rmem_session - one client's attachment to a server
 * @node: in the server's session list
 * @srv: the server
 * @handle: random, names the session in JOIN, RECONNECT and LEAVE
 * @counter: highest counter of a request the session accepted
 * @ready_counter: the counter of the RECONNECT the next READY answers
 * @mac: HMAC transform keyed with the session key
 * @session_key: an unauthenticated session's key, sent in READY
 * @host_id: the client's host identity, empty for none
 * @host_gen: &rmem_host.gen of the entry whose key the client proved
 * @hs_start: jiffies of the RMEM_WIRE_NEW request
 * @challenge: what the server accepted RMEM_WIRE_NEW with
 * @nonce: the client's nonce from RMEM_WIRE_NEW
 * @client_qpn: the client's queue pair number from RMEM_WIRE_NEW
 * @auth: receive buffer of the client's AUTH message
 * @auth_dma: DMA address of @auth
 * @auth_cqe: completion of the AUTH receive
 * @auth_status: its status
 * @auth_len: bytes it received
 * @hs_work: ends a session that has not authenticated in RMEM_HS_TIMEOUT
 * @peer: client address
 * @size: bytes
 * @volume_name: volume, or empty for anonymous memory
 * @volume: the volume while attached
 * @generation: generation of the memory
 * @chunks: the chunks, in device order
 * @nr_chunks: entries in @chunks
 * @nr_held: chunks of @chunks taken (all of them unless @thin)
 * @mrs: one memory region per chunk, in @pd
 * @pd: this session's own protection domain
 * @cq: completion queue of all its queue pairs
 * @conns: queue pairs, by index
 * @nr_qps: queue pairs the client announced
 * @version: the wire protocol version of the session (its NEW request)
 * @table: the chunk table the client reads; in version 4 followed by a
 *	&struct rmem_wire_pool (rmem_session_put_status())
 * @table_len: bytes of @table
 * @table_sg: @table for ib_map_mr_sg(), its DMA address that of @table_dma
 * @table_dma: @table's DMA mapping (single), or 0; set under srv->lock
 * @table_mr: memory region of @table (remote read only)
 * @ready: the READY message
 * @ready_dma: DMA address of @ready
 * @reg_cqe: completion of registration and send work requests
 * @reg_done: completed by @reg_cqe
 * @reg_status: status of the last work completion
 * @setup_work: registers memory (once), sends READY
 * @release_work: tears the session down
 * @orphan_work: drops the queue pairs of a session that lost its client
 * @hold_work: releases an orphaned session nobody reconnected to
 * @ka_work: probes queue pair 0 with a zero-length RDMA WRITE
 * @ka: the probe in flight (probe.c)
 * @hold: how long an orphaned session waits for RMEM_WIRE_RECONNECT
 * @orphan_at: jiffies when it was last orphaned
 * @live: READY was sent; JOINs accepted
 * @was_live: @live was set once (the client may have written data)
 * @thin: memory on demand (RMEM_WIRE_AUTH_THIN): @chunks has a NULL for
 *	every chunk not taken, and the session holds @nr_held of them
 * @extent_shift: log2 of a thin session's extent (a slot of the table)
 * @ext: a thin session's control message and answer buffers (extent.c)
 * @ext_dma: their DMA address
 * @ext_cqe: completion of the control message receive
 * @ext_len: bytes the last one brought
 * @ext_work: handles a control message (rmem_session_ext_work())
 * @post_lock: serialises the users of @reg_done: setup (registration,
 *	READY) and @ext_work
 * @volume_created: this session created @volume
 * @orphan: lost its queue pairs; waits @hold for a reconnect
 * @conns_gone: @orphan and every queue pair destroyed: ready to reconnect
 * @dead: being torn down
 * @authed: the AUTH message was checked and memory taken: a session, no
 *	longer a handshake
 * @proven: the client proved the key of @host_id
 * @in_hs: counts against the handshake limits (RMEM_HS_MAX)
 * @auth_received: the AUTH message came (the handshake timeout no longer
 *	applies)
 * @refusing: its AUTH message is being refused: evictable like a silent
 *	shell
 */
struct rmem_session {
	struct list_head node;
	struct rmem_server *srv;
	u64 handle;
	u64 counter;
	u64 ready_counter;
	struct crypto_shash *mac;
	u8 session_key[RMEM_KEY_LEN];
	char host_id[RMEM_HOST_ID_MAX];
	u64 host_gen;
	unsigned long hs_start;
	struct rmem_wire_challenge challenge;
	u8 nonce[RMEM_WIRE_NONCE_LEN];
	u32 client_qpn;
	struct rmem_wire_auth *auth;
	u64 auth_dma;
	struct ib_cqe auth_cqe;
	enum ib_wc_status auth_status;
	u32 auth_len;
	struct delayed_work hs_work;
	struct sockaddr_storage peer;
	u64 size;
	char volume_name[RMEM_VOLUME_MAX];
	struct rmem_volume *volume;
	u64 generation;
	struct rmem_chunk **chunks;
	unsigned int nr_chunks;
	unsigned int nr_held;
	struct ib_mr **mrs;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct rmem_sconn *conns[RMEM_MAX_QPS];
	unsigned int nr_qps;
	u16 version;
	struct rmem_wire_chunk *table;
	size_t table_len;
	struct scatterlist table_sg;
	u64 table_dma;
	struct ib_mr *table_mr;
	struct rmem_wire_ready *ready;
	u64 ready_dma;
	struct ib_cqe reg_cqe;
	struct completion reg_done;
	enum ib_wc_status reg_status;
	struct work_struct setup_work;
	struct work_struct release_work;
	struct work_struct orphan_work;
	struct delayed_work hold_work;
	struct delayed_work ka_work;
	struct rmem_probe ka;
	unsigned long hold;
	unsigned long orphan_at;
	bool live;
	bool was_live;
	bool thin;
	u8 extent_shift;
	struct rmem_session_ext *ext;
	u64 ext_dma;
	struct ib_cqe ext_cqe;
	u32 ext_len;
	struct work_struct ext_work;
	struct mutex post_lock;	/* queue pair 0's posts and waits */
	bool volume_created;
	bool orphan;
	bool conns_gone;
	bool dead;
	bool authed;
	bool proven;
	bool in_hs;
	bool auth_received;
	bool refusing;
};

/* All thin sessions of a server describe at most this many times its pool. */
#define RMEM_THIN_OVERCOMMIT	16

/* server.c */
bool rmem_server_table_fits(struct rmem_server *srv, u64 nr_chunks, bool thin);
u16 rmem_server_wire_version(void);
void rmem_session_put_status(struct rmem_session *sess);
void rmem_server_put_status(struct rmem_server *srv);
void rmem_session_sync_table(struct rmem_session *sess, size_t off,
			     size_t len);

/* pool.c */
void rmem_pool_init(void);
int rmem_chunk_alloc(struct rmem_server *srv, struct rmem_chunk *c);
void rmem_chunk_free(struct rmem_server *srv, struct rmem_chunk *c);
void rmem_server_zero_work(struct work_struct *work);
struct rmem_volume *rmem_volume_find(struct rmem_server *srv, const char *name);
void rmem_volume_free(struct rmem_server *srv, struct rmem_volume *vol);
enum rmem_wire_status rmem_server_session_memory(struct rmem_server *srv,
						 struct rmem_session *sess);
void rmem_server_session_release_memory(struct rmem_server *srv,
					struct rmem_session *sess);
void rmem_server_zero_pause(struct rmem_server *srv);
void rmem_server_zero_chunks(struct rmem_server *srv, struct rmem_session *sess,
			     unsigned int first, unsigned int n);
enum rmem_wire_status rmem_server_slot_memory(struct rmem_server *srv,
					      struct rmem_session *sess,
					      unsigned int first, unsigned int n);
void rmem_server_slot_release(struct rmem_server *srv,
			      struct rmem_session *sess, unsigned int first,
			      unsigned int n);

/* session.c */
/* A registration batch or READY completes within this, or the client is gone. */
#define RMEM_SETUP_TIMEOUT	(30 * HZ)
int rmem_session_send(struct rmem_session *sess, u64 dma, u32 len,
		      enum dma_data_direction dir, bool *sent,
		      unsigned long timeout);
int rmem_session_post_wait(struct rmem_session *sess,
			   struct ib_send_wr *first, struct ib_send_wr *last,
			   bool *posted, unsigned long timeout);
int rmem_session_reg_chunks(struct rmem_session *sess, unsigned int first,
			    unsigned int last);
struct rmem_session *rmem_session_alloc(struct rmem_server *srv);
void rmem_session_fault_delay(struct rmem_session *sess);
void rmem_session_free(struct rmem_session *sess);
void rmem_session_lost(struct rmem_session *sess);
void rmem_session_kill(struct rmem_session *sess);

/* extent.c */
struct rmem_session_ext;
int rmem_session_ext_init(struct rmem_session *sess);
void rmem_session_ext_free(struct rmem_session *sess);
int rmem_session_ext_post_recv(struct rmem_session *sess);
void rmem_session_ext_work(struct work_struct *work);

/* connect.c */
int rmem_server_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
bool rmem_server_allowed(struct rmem_server *srv, const struct sockaddr *peer);

/* handshake.c */
enum rmem_wire_status rmem_hs_admit(struct rmem_server *srv,
				    const struct sockaddr *peer);
void rmem_hs_end(struct rmem_session *sess);
int rmem_hs_start(struct rmem_session *sess, const struct rmem_wire_connect *req,
		  u32 client_qpn);
void rmem_hs_stop(struct rmem_session *sess);
enum rmem_wire_status rmem_hs_authenticate(struct rmem_session *sess);
enum rmem_wire_status rmem_session_check_ctl(struct rmem_session *sess,
					     const struct rmem_wire_connect *req,
					     u32 qpn);

/* hosts.c */
struct rmem_host *rmem_host_find(struct rmem_server *srv, const char *id);
enum rmem_wire_status rmem_host_admit(struct rmem_server *srv,
				      struct rmem_session *sess, u64 need);
void rmem_hosts_free(struct rmem_server *srv);
int rmem_server_host_add(struct rmem_server *srv,
			 const struct rmem_host_cfg *cfg, int *bad_attr,
			 struct netlink_ext_ack *extack);
int rmem_server_host_del(struct rmem_server *srv, const char *id, bool force,
			 struct netlink_ext_ack *extack);
int rmem_server_put_host(struct sk_buff *skb, struct rmem_server *srv,
			 struct rmem_host *h);
u64 rmem_server_bytes(const struct rmem_server *srv, u64 size);

/* nl_put.c */
int rmem_server_put(struct sk_buff *skb, struct rmem_server *srv,
		    unsigned long *from);
int rmem_server_put_part(struct sk_buff *skb, struct rmem_server *srv,
			 unsigned long *from);
int rmem_server_put_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_server *srv);
int rmem_volume_put_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_server *srv, struct rmem_volume *vol);

#endif /* _RMEM_SERVER_H */
