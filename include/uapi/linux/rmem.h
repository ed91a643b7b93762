/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * rmem: remote RAM over RDMA as a block device.  Generic netlink ABI.
 *
 * Documentation/netlink/specs/rmem.yaml describes the same family;
 * "make check-spec" fails if the two drift apart.
 *
 * Objects are nested: a request or reply carries one RMEM_A_SERVER,
 * RMEM_A_DEV or RMEM_A_VOLUME nest holding that object's attributes.
 * Addresses are RMEM_A_*_IPV4 (4 bytes, network order) or
 * RMEM_A_*_IPV6 (16 bytes); ports are host-order u16.
 */
#ifndef _UAPI_LINUX_RMEM_H
#define _UAPI_LINUX_RMEM_H

#define RMEM_FAMILY_NAME	"rmem"
#define RMEM_FAMILY_VERSION	1

#define RMEM_MCGRP_EVENTS	"events"

/* rdma_cm port a server listens on and a client connects to by default */
#define RMEM_DEFAULT_PORT	7410
#define RMEM_NAME_MAX		32	/* names, including the NUL */
#define RMEM_VOLUME_MAX		32	/* volume names, including the NUL */
#define RMEM_ID_LEN		16	/* pool identity, bytes */
#define RMEM_HOST_ID_MAX	64	/* host identities, including the NUL */
#define RMEM_KEY_LEN		32	/* bytes of a host key */
#define RMEM_HOSTS_MAX		64	/* host entries of one server */

/**
 * enum rmem_auth - how a server authenticates its clients
 * @RMEM_AUTH_NONE: no client needs a key; one that proves none is taken
 *	unauthenticated, whatever identity it gives
 * @RMEM_AUTH_OPTIONAL: a client whose identity has a host entry proves
 *	its key; other clients are taken unauthenticated
 * @RMEM_AUTH_REQUIRED: every client proves the key of its host entry
 */
enum rmem_auth {
	RMEM_AUTH_NONE = 1,
	RMEM_AUTH_OPTIONAL,
	RMEM_AUTH_REQUIRED,
};

/**
 * enum rmem_dev_state - state of a client device
 * @RMEM_DEV_STATE_CONNECTING: connecting to the server
 * @RMEM_DEV_STATE_LIVE: connected, I/O flows
 * @RMEM_DEV_STATE_DEAD: the memory is out of reach for good (loss timeout
 *	over, or the server lost the session); all I/O fails.  Over several
 *	servers: some of it (a server is dead; I/O to its extents fails),
 *	with replicas only once an extent was found with no current copy
 *	left elsewhere, or every server is dead (rmem 0.17.1)
 * @RMEM_DEV_STATE_DELETING: being removed
 * @RMEM_DEV_STATE_RECONNECTING: connection lost; reconnecting while I/O
 *	waits, until the loss timeout
 */
enum rmem_dev_state {
	RMEM_DEV_STATE_CONNECTING = 1,
	RMEM_DEV_STATE_LIVE,
	RMEM_DEV_STATE_DEAD,
	RMEM_DEV_STATE_DELETING,
	RMEM_DEV_STATE_RECONNECTING,
};

/**
 * enum rmem_cmd - generic netlink commands of the rmem family
 * @RMEM_CMD_UNSPEC: unused
 * @RMEM_CMD_SERVER_ADD: create a memory server (admin)
 * @RMEM_CMD_SERVER_DEL: remove a memory server; its clients go dead (admin)
 * @RMEM_CMD_SERVER_GET: get one server by name, or dump all
 * @RMEM_CMD_DEV_ADD: attach remote memory as a new rmemN device (admin)
 * @RMEM_CMD_DEV_DEL: detach and remove a device (admin)
 * @RMEM_CMD_DEV_GET: get one device by name, or dump all
 * @RMEM_CMD_VOLUME_GET: get one volume of a server, or dump all volumes
 * @RMEM_CMD_VOLUME_DEL: free a detached volume's memory (admin)
 * @RMEM_CMD_DEV_STATE_NTF: notification on "events": a device changed state
 * @RMEM_CMD_HOST_ADD: let a client host attach to a server with a key (admin)
 * @RMEM_CMD_HOST_DEL: remove a server's host entry (admin)
 * @RMEM_CMD_DEV_STATS_RESET: start a device's counters and latency
 *	histograms from zero, rmem 0.11.0 (admin)
 * @RMEM_CMD_DEV_NOSPC_NTF: notification on "events": a thin device's
 *	server had no room for an extent, so writes to it fail; once until
 *	an extent is taken or given back (rmem 0.14.0)
 * @RMEM_CMD_DEV_RESYNC_NTF: notification on "events": a device with
 *	replicas started making its degraded extents whole again
 *	(RMEM_A_DEV_RESYNCING 1, RESYNC_DONE 0), got a tenth further
 *	(RESYNCING 1), or ended (RESYNCING 0: none can be made whole now);
 *	rmem 0.17.0
 * @RMEM_CMD_DEV_PEER_DEL: drain one server (the RMEM_A_DEV_PEER nest;
 *	without its port, the device's one server at that address) out of
 *	a running device (RMEM_A_DEV_NAME): its extents move to the other
 *	servers, then the device disconnects from it.  The answer comes
 *	once the drain started; RMEM_A_PEER_DRAINING says it goes on, and
 *	the server leaves the device's peers when it is done; rmem 0.18.0
 *	(admin)
 * @RMEM_CMD_DEV_PEER_ADD: add one server (the RMEM_A_DEV_PEER nest; its
 *	port defaults as in DEV_ADD) to a running device (RMEM_A_DEV_NAME)
 *	attached over several; with RMEM_A_DEV_KEY or RMEM_A_DEV_KEY_DESC
 *	for a device that authenticates (else the keyring's "rmem:ADDR").
 *	The answer comes once the server is live in the device; new
 *	extents and resyncs may go there from then on; rmem 0.19.0 (admin)
 * @__RMEM_CMD_MAX: internal, one past the highest command
 * @RMEM_CMD_MAX: highest command
 */
enum rmem_cmd {
	RMEM_CMD_UNSPEC,
	RMEM_CMD_SERVER_ADD,
	RMEM_CMD_SERVER_DEL,
	RMEM_CMD_SERVER_GET,
	RMEM_CMD_DEV_ADD,
	RMEM_CMD_DEV_DEL,
	RMEM_CMD_DEV_GET,
	RMEM_CMD_VOLUME_GET,
	RMEM_CMD_VOLUME_DEL,
	RMEM_CMD_DEV_STATE_NTF,
	RMEM_CMD_HOST_ADD,
	RMEM_CMD_HOST_DEL,
	RMEM_CMD_DEV_STATS_RESET,
	RMEM_CMD_DEV_NOSPC_NTF,
	RMEM_CMD_DEV_RESYNC_NTF,
	RMEM_CMD_DEV_PEER_DEL,
	RMEM_CMD_DEV_PEER_ADD,

	__RMEM_CMD_MAX,
	RMEM_CMD_MAX = __RMEM_CMD_MAX - 1
};

/**
 * enum rmem_a - top-level attributes
 * @RMEM_A_UNSPEC: unused
 * @RMEM_A_SERVER: nest of &enum rmem_a_server, one memory server
 * @RMEM_A_DEV: nest of &enum rmem_a_dev, one client device
 * @RMEM_A_VOLUME: nest of &enum rmem_a_volume, one named volume
 * @RMEM_A_HOST: nest of &enum rmem_a_host, one host entry of a server
 * @__RMEM_A_MAX: internal, one past the highest top-level attribute
 * @RMEM_A_MAX: highest top-level attribute
 */
enum rmem_a {
	RMEM_A_UNSPEC,
	RMEM_A_SERVER,
	RMEM_A_DEV,
	RMEM_A_VOLUME,
	RMEM_A_HOST,

	__RMEM_A_MAX,
	RMEM_A_MAX = __RMEM_A_MAX - 1
};

/**
 * enum rmem_a_server - attributes of a memory server
 * @RMEM_A_SERVER_UNSPEC: unused
 * @RMEM_A_SERVER_NAME: string, the server's name (key)
 * @RMEM_A_SERVER_LISTEN_IPV4: binary (4), IPv4 address to listen on
 * @RMEM_A_SERVER_LISTEN_IPV6: binary (16), IPv6 address to listen on
 * @RMEM_A_SERVER_LISTEN_PORT: u16, port to listen on
 * @RMEM_A_SERVER_POOL_SIZE: u64, bytes of RAM exported
 * @RMEM_A_SERVER_MR_SIZE: u64, bytes per chunk (one memory region each);
 *	in replies the size actually used
 * @RMEM_A_SERVER_USED: u64, bytes handed to clients or held by volumes
 * @RMEM_A_SERVER_ALLOW: nest of &enum rmem_a_prefix, multi-attr: client
 *	addresses accepted (none: any)
 * @RMEM_A_SERVER_CLIENT: nest of &enum rmem_a_client, multi-attr (replies)
 * @RMEM_A_SERVER_ID: binary (16), the pool's random identity
 * @RMEM_A_SERVER_MR_PAGE_SIZE: u64, page size used to register chunks
 * @RMEM_A_SERVER_PAD: padding for 64-bit attributes
 * @RMEM_A_SERVER_DIRTY: u64, bytes of the free pool a client used and
 *	that are not zeroed yet (zeroed in the background; replies)
 * @RMEM_A_SERVER_AUTH: u32, &enum rmem_auth; absent in SERVER_ADD: none
 *	until the first host key is added, required from then on
 * @RMEM_A_SERVER_AUTH_AUTO: flag (replies): the mode was not given and
 *	follows the host keys as above
 * @RMEM_A_SERVER_HOST: nest of &enum rmem_a_host, multi-attr (replies):
 *	the server's host entries, without their keys
 * @RMEM_A_SERVER_HANDSHAKES: u32 (replies): connections that have not
 *	authenticated yet
 * @__RMEM_A_SERVER_MAX: internal, one past the highest server attribute
 * @RMEM_A_SERVER_MAX: highest server attribute
 */
enum rmem_a_server {
	RMEM_A_SERVER_UNSPEC,
	RMEM_A_SERVER_NAME,
	RMEM_A_SERVER_LISTEN_IPV4,
	RMEM_A_SERVER_LISTEN_IPV6,
	RMEM_A_SERVER_LISTEN_PORT,
	RMEM_A_SERVER_POOL_SIZE,
	RMEM_A_SERVER_MR_SIZE,
	RMEM_A_SERVER_USED,
	RMEM_A_SERVER_ALLOW,
	RMEM_A_SERVER_CLIENT,
	RMEM_A_SERVER_ID,
	RMEM_A_SERVER_MR_PAGE_SIZE,
	RMEM_A_SERVER_PAD,
	RMEM_A_SERVER_DIRTY,
	RMEM_A_SERVER_AUTH,
	RMEM_A_SERVER_AUTH_AUTO,
	RMEM_A_SERVER_HOST,
	RMEM_A_SERVER_HANDSHAKES,

	__RMEM_A_SERVER_MAX,
	RMEM_A_SERVER_MAX = __RMEM_A_SERVER_MAX - 1
};

/**
 * enum rmem_a_prefix - an address prefix
 * @RMEM_A_PREFIX_UNSPEC: unused
 * @RMEM_A_PREFIX_IPV4: binary (4), IPv4 network
 * @RMEM_A_PREFIX_IPV6: binary (16), IPv6 network
 * @RMEM_A_PREFIX_LEN: u8, prefix length in bits
 * @__RMEM_A_PREFIX_MAX: internal, one past the highest prefix attribute
 * @RMEM_A_PREFIX_MAX: highest prefix attribute
 */
enum rmem_a_prefix {
	RMEM_A_PREFIX_UNSPEC,
	RMEM_A_PREFIX_IPV4,
	RMEM_A_PREFIX_IPV6,
	RMEM_A_PREFIX_LEN,

	__RMEM_A_PREFIX_MAX,
	RMEM_A_PREFIX_MAX = __RMEM_A_PREFIX_MAX - 1
};

/**
 * enum rmem_a_client - a client session connected to a server (replies)
 * @RMEM_A_CLIENT_UNSPEC: unused
 * @RMEM_A_CLIENT_IPV4: binary (4), client's IPv4 address
 * @RMEM_A_CLIENT_IPV6: binary (16), client's IPv6 address
 * @RMEM_A_CLIENT_PORT: u16, client's source port
 * @RMEM_A_CLIENT_SIZE: u64, bytes the session holds
 * @RMEM_A_CLIENT_VOLUME: string, volume name (absent: anonymous)
 * @RMEM_A_CLIENT_QPS: u32, connected queue pairs
 * @RMEM_A_CLIENT_PAD: padding for 64-bit attributes
 * @RMEM_A_CLIENT_HOST_ID: string, the host identity the client gave
 * @RMEM_A_CLIENT_AUTH: u8, 1 if the client proved the key of that identity
 * @__RMEM_A_CLIENT_MAX: internal, one past the highest client attribute
 * @RMEM_A_CLIENT_MAX: highest client attribute
 */
enum rmem_a_client {
	RMEM_A_CLIENT_UNSPEC,
	RMEM_A_CLIENT_IPV4,
	RMEM_A_CLIENT_IPV6,
	RMEM_A_CLIENT_PORT,
	RMEM_A_CLIENT_SIZE,
	RMEM_A_CLIENT_VOLUME,
	RMEM_A_CLIENT_QPS,
	RMEM_A_CLIENT_PAD,
	RMEM_A_CLIENT_HOST_ID,
	RMEM_A_CLIENT_AUTH,

	__RMEM_A_CLIENT_MAX,
	RMEM_A_CLIENT_MAX = __RMEM_A_CLIENT_MAX - 1
};

/**
 * enum rmem_a_dev - attributes of a client device
 * @RMEM_A_DEV_UNSPEC: unused
 * @RMEM_A_DEV_NAME: string, the block device's name, rmemN (key); chosen
 *	by the kernel in DEV_ADD when absent
 * @RMEM_A_DEV_PEER_IPV4: binary (4), server's IPv4 address
 * @RMEM_A_DEV_PEER_IPV6: binary (16), server's IPv6 address
 * @RMEM_A_DEV_PEER_PORT: u16, server's port
 * @RMEM_A_DEV_SIZE: u64, device size in bytes
 * @RMEM_A_DEV_VOLUME: string, named volume on the server (absent:
 *	anonymous memory, freed at detach)
 * @RMEM_A_DEV_QPS: u32, queue pairs = hardware queues
 * @RMEM_A_DEV_QUEUE_DEPTH: u32, requests in flight per queue
 * @RMEM_A_DEV_STATE: u32, &enum rmem_dev_state
 * @RMEM_A_DEV_SERVER_ID: binary (16), the server pool's identity recorded
 *	at attach
 * @RMEM_A_DEV_GENERATION: u64, the volume's generation recorded at attach
 * @RMEM_A_DEV_MR_SIZE: u64, the server's chunk size
 * @RMEM_A_DEV_FORCE: flag, DEV_DEL: remove even if in use or the peer is
 *	gone; outstanding I/O fails
 * @RMEM_A_DEV_STATS: nest of &enum rmem_a_stats (replies)
 * @RMEM_A_DEV_PAD: padding for 64-bit attributes
 * @RMEM_A_DEV_POLL_QPS: u32, extra queue pairs whose completions are
 *	polled by the submitter (io_uring IORING_SETUP_IOPOLL, preadv2
 *	RWF_HIPRI), not signalled by interrupt; 0 (the default) for none
 * @RMEM_A_DEV_KEEPALIVE_MS: u32, interval of the connection probe in ms;
 *	0 for none (a lost connection then shows only when I/O fails)
 * @RMEM_A_DEV_LOSS_TIMEOUT_MS: u32, how long a device that lost its
 *	connection reconnects, holding I/O, before it goes dead (ms); 0 for
 *	dead at once
 * @RMEM_A_DEV_RECONNECTS: u32, connections re-established (replies)
 * @RMEM_A_DEV_HOST_ID: string, this host's identity towards the server
 *	(DEV_ADD: absent for none, an anonymous client)
 * @RMEM_A_DEV_KEY: binary (32), DEV_ADD only: the host key; never in replies
 * @RMEM_A_DEV_KEY_DESC: string, DEV_ADD only: description of a "logon"
 *	key holding the host key in the caller's keyrings, "rmem:" and a
 *	name (default:
 *	"rmem:" and the peer address, if there is one)
 * @RMEM_A_DEV_AUTH: u8 (replies): 1 if both ends proved the host key
 * @RMEM_A_DEV_SERVER_NAME: string (replies): the name the server gave
 * @RMEM_A_DEV_READ_SPLIT: u32, bytes one RDMA READ moves at most: a block
 *	read is split into READs of this size (on a link that drops packets
 *	a loss costs the rest of one READ, not of the whole read); 0 for no
 *	split, else a power of two from 64 KiB to 1 MiB (DEV_ADD: absent for
 *	the module parameter read_split_kb, 128 KiB)
 * @RMEM_A_DEV_MEMORY: u64 (replies): bytes of kernel memory the device
 *	holds: its requests with their per-request context, queues, chunk
 *	table and zero buffer (not the RDMA device's own queue memory)
 * @RMEM_A_DEV_READ_DEPTH: u32, RDMA READs each queue pair keeps
 *	outstanding at most (its initiator depth, and at most what the RDMA
 *	device allows): with @RMEM_A_DEV_READ_SPLIT the window of READ
 *	responses in flight, which a link that drops packets needs small;
 *	1 to 16 (DEV_ADD: absent for the module parameter read_depth, 16)
 * @RMEM_A_DEV_READ_DEPTH_GRANTED: u32 (replies): the initiator depth the
 *	server granted when the device last connected: @RMEM_A_DEV_READ_DEPTH
 *	capped by both RDMA devices; absent before the first connection
 * @RMEM_A_DEV_WIRE_VERSION: u32 (replies): the wire protocol version the
 *	device speaks with its server (an older server's, if it is older)
 * @RMEM_A_DEV_SERVER_FREE: u64 (replies): bytes free in the server's pool
 *	as the device's last connection probe read them (every keepalive
 *	interval, one-sided); absent before the first such read and with a
 *	version 3 server
 * @RMEM_A_DEV_EXTENT: u64, a thin device: memory is taken from the server
 *	one extent of this many bytes at a time, when the extent is first
 *	written; reads of an extent never written return zeros without
 *	the network.  A power of two, 1 MiB to 1 TiB, at least the server's
 *	chunk size, dividing the size; no volume.  Absent: the whole size
 *	is taken at attach
 * @RMEM_A_DEV_EXTENTS_HELD: u32 (replies, thin devices): extents that have
 *	memory on the server
 * @RMEM_A_DEV_NOSPC_EXTENT: u32 (replies, thin devices): the server had
 *	no room for this extent, the last one asked for; absent once an
 *	extent was taken or given back since
 * @RMEM_A_DEV_PEER: nest of &enum rmem_a_peer, multi-attr: a thin device
 *	over several servers (rmem 0.15.0).  DEV_ADD: each one more server
 *	besides the first (the PEER_IPV4/IPV6/PORT attributes), at most
 *	RMEM_MAX_PEERS in all, with @RMEM_A_DEV_EXTENT, no volume and no
 *	polled queues.  Replies: one per server of such a device, in the
 *	order given (the first is the flat attributes' server)
 * @RMEM_A_DEV_REPLICAS: u8, copies of each extent a device over several
 *	servers keeps, on distinct servers (1 to RMEM_MAX_REPLICAS, at
 *	most its servers; default 1): a write completes when every live
 *	replica has it, a read goes to one (rmem 0.16.0)
 * @RMEM_A_DEV_EXTENTS_DEGRADED: u32 (replies, devices over several
 *	servers): extents with memory but fewer current replicas than
 *	@RMEM_A_DEV_REPLICAS (a replica missed a write, or its server is
 *	dead); with none current their I/O fails
 * @RMEM_A_DEV_RESYNCING: u8 (replies, devices with replicas): 1 while a
 *	resync makes degraded extents whole, else 0 (rmem 0.17.0)
 * @RMEM_A_DEV_RESYNC_DONE: u32 (replies, after a resync started): extents
 *	the last (or current) resync made whole
 * @RMEM_A_DEV_RESYNC_TOTAL: u32 (likewise): extents it found degraded
 *	when it started (more may turn degraded meanwhile)
 * @__RMEM_A_DEV_MAX: internal, one past the highest device attribute
 * @RMEM_A_DEV_MAX: highest device attribute
 */
enum rmem_a_dev {
	RMEM_A_DEV_UNSPEC,
	RMEM_A_DEV_NAME,
	RMEM_A_DEV_PEER_IPV4,
	RMEM_A_DEV_PEER_IPV6,
	RMEM_A_DEV_PEER_PORT,
	RMEM_A_DEV_SIZE,
	RMEM_A_DEV_VOLUME,
	RMEM_A_DEV_QPS,
	RMEM_A_DEV_QUEUE_DEPTH,
	RMEM_A_DEV_STATE,
	RMEM_A_DEV_SERVER_ID,
	RMEM_A_DEV_GENERATION,
	RMEM_A_DEV_MR_SIZE,
	RMEM_A_DEV_FORCE,
	RMEM_A_DEV_STATS,
	RMEM_A_DEV_PAD,
	RMEM_A_DEV_POLL_QPS,
	RMEM_A_DEV_KEEPALIVE_MS,
	RMEM_A_DEV_LOSS_TIMEOUT_MS,
	RMEM_A_DEV_RECONNECTS,
	RMEM_A_DEV_HOST_ID,
	RMEM_A_DEV_KEY,
	RMEM_A_DEV_KEY_DESC,
	RMEM_A_DEV_AUTH,
	RMEM_A_DEV_SERVER_NAME,
	RMEM_A_DEV_READ_SPLIT,
	RMEM_A_DEV_MEMORY,
	RMEM_A_DEV_READ_DEPTH,
	RMEM_A_DEV_READ_DEPTH_GRANTED,
	RMEM_A_DEV_WIRE_VERSION,
	RMEM_A_DEV_SERVER_FREE,
	RMEM_A_DEV_EXTENT,
	RMEM_A_DEV_EXTENTS_HELD,
	RMEM_A_DEV_NOSPC_EXTENT,
	RMEM_A_DEV_PEER,
	RMEM_A_DEV_REPLICAS,
	RMEM_A_DEV_EXTENTS_DEGRADED,
	RMEM_A_DEV_RESYNCING,
	RMEM_A_DEV_RESYNC_DONE,
	RMEM_A_DEV_RESYNC_TOTAL,

	__RMEM_A_DEV_MAX,
	RMEM_A_DEV_MAX = __RMEM_A_DEV_MAX - 1
};

/* Servers one device may span at most (RMEM_A_DEV_PEER). */
#define RMEM_MAX_PEERS		8
/* Copies of each extent a device keeps at most (RMEM_A_DEV_REPLICAS). */
#define RMEM_MAX_REPLICAS	3

/**
 * enum rmem_a_peer - one server of a device over several (RMEM_A_DEV_PEER)
 * @RMEM_A_PEER_UNSPEC: unused
 * @RMEM_A_PEER_IPV4: binary (4), the server's IPv4 address
 * @RMEM_A_PEER_IPV6: binary (16), the server's IPv6 address
 * @RMEM_A_PEER_PORT: u16, the server's port (DEV_ADD: absent for the
 *	default port)
 * @RMEM_A_PEER_STATE: u32 (replies), &enum rmem_dev_state of the device's
 *	connection to this server
 * @RMEM_A_PEER_SERVER_FREE: u64 (replies): bytes free in this server's
 *	pool, as last read (connection probe, or an extent's allocation);
 *	absent before the first read
 * @RMEM_A_PEER_EXTENTS_HELD: u32 (replies): the device's extents whose
 *	memory this server holds
 * @RMEM_A_PEER_SERVER_NAME: string (replies): the name the server gave
 * @RMEM_A_PEER_RECONNECTS: u32 (replies): connections to this server
 *	re-established since the attach
 * @RMEM_A_PEER_PAD: padding for 64-bit attributes
 * @RMEM_A_PEER_DRAINING: flag (replies): the server is being drained
 *	(RMEM_CMD_DEV_PEER_DEL); rmem 0.18.0
 * @__RMEM_A_PEER_MAX: internal, one past the highest peer attribute
 * @RMEM_A_PEER_MAX: highest peer attribute
 */
enum rmem_a_peer {
	RMEM_A_PEER_UNSPEC,
	RMEM_A_PEER_IPV4,
	RMEM_A_PEER_IPV6,
	RMEM_A_PEER_PORT,
	RMEM_A_PEER_STATE,
	RMEM_A_PEER_SERVER_FREE,
	RMEM_A_PEER_EXTENTS_HELD,
	RMEM_A_PEER_SERVER_NAME,
	RMEM_A_PEER_RECONNECTS,
	RMEM_A_PEER_PAD,
	RMEM_A_PEER_DRAINING,

	__RMEM_A_PEER_MAX,
	RMEM_A_PEER_MAX = __RMEM_A_PEER_MAX - 1
};

/**
 * enum rmem_a_stats - I/O counters of a device (replies)
 * @RMEM_A_STATS_UNSPEC: unused
 * @RMEM_A_STATS_READS: u64, read requests completed
 * @RMEM_A_STATS_READ_BYTES: u64, bytes read
 * @RMEM_A_STATS_WRITES: u64, write requests completed
 * @RMEM_A_STATS_WRITE_BYTES: u64, bytes written
 * @RMEM_A_STATS_ZEROES: u64, write-zeroes requests completed (rmem 0.9.0
 *	and earlier also counted discards here, then RDMA WRITEs of zeros)
 * @RMEM_A_STATS_ERRORS: u64, requests failed
 * @RMEM_A_STATS_PAD: padding for 64-bit attributes
 * @RMEM_A_STATS_DISCARDS: u64, discard requests completed (they send
 *	nothing to the server)
 * @RMEM_A_STATS_DISCARD_BYTES: u64, bytes discarded
 * @RMEM_A_STATS_READ_LATENCY: nest of &enum rmem_a_lat, the latency
 *	histogram of reads completed successfully (rmem 0.11.0)
 * @RMEM_A_STATS_WRITE_LATENCY: nest of &enum rmem_a_lat, the latency
 *	histogram of writes and write-zeroes completed successfully (rmem
 *	0.11.0)
 * @__RMEM_A_STATS_MAX: internal, one past the highest stats attribute
 * @RMEM_A_STATS_MAX: highest stats attribute
 */
enum rmem_a_stats {
	RMEM_A_STATS_UNSPEC,
	RMEM_A_STATS_READS,
	RMEM_A_STATS_READ_BYTES,
	RMEM_A_STATS_WRITES,
	RMEM_A_STATS_WRITE_BYTES,
	RMEM_A_STATS_ZEROES,
	RMEM_A_STATS_ERRORS,
	RMEM_A_STATS_PAD,
	RMEM_A_STATS_DISCARDS,
	RMEM_A_STATS_DISCARD_BYTES,
	RMEM_A_STATS_READ_LATENCY,
	RMEM_A_STATS_WRITE_LATENCY,

	__RMEM_A_STATS_MAX,
	RMEM_A_STATS_MAX = __RMEM_A_STATS_MAX - 1
};

/*
 * Buckets of a latency histogram: bucket i counts requests that took from
 * 2^i to 2^(i+1) microseconds, from rmem's first issue of the request to
 * its completion (a request held across a reconnect counts the wait);
 * bucket 0 also counts those under 1 us, the last bucket everything from
 * 2^(RMEM_LAT_BUCKETS-1) us (about 8.4 s) up.
 */
#define RMEM_LAT_BUCKETS	24

/**
 * enum rmem_a_lat - a latency histogram (replies)
 * @RMEM_A_LAT_UNSPEC: unused
 * @RMEM_A_LAT_BUCKET: u64, one per bucket, RMEM_LAT_BUCKETS of them in
 *	bucket order (multi-attr); a reader takes them in the order given
 * @RMEM_A_LAT_MAX_NS: u64, the longest latency seen, in nanoseconds
 * @RMEM_A_LAT_PAD: padding for 64-bit attributes
 * @__RMEM_A_LAT_MAX: internal, one past the highest histogram attribute
 * @RMEM_A_LAT_MAX: highest histogram attribute
 */
enum rmem_a_lat {
	RMEM_A_LAT_UNSPEC,
	RMEM_A_LAT_BUCKET,
	RMEM_A_LAT_MAX_NS,
	RMEM_A_LAT_PAD,

	__RMEM_A_LAT_MAX,
	RMEM_A_LAT_MAX = __RMEM_A_LAT_MAX - 1
};

/**
 * enum rmem_a_volume - attributes of a named volume on a server
 * @RMEM_A_VOLUME_UNSPEC: unused
 * @RMEM_A_VOLUME_SERVER: string, name of the server holding it (key)
 * @RMEM_A_VOLUME_NAME: string, the volume's name (key)
 * @RMEM_A_VOLUME_SIZE: u64, bytes
 * @RMEM_A_VOLUME_BUSY: u8, 1 while a client is attached
 * @RMEM_A_VOLUME_GENERATION: u64, changes whenever the volume is created
 * @RMEM_A_VOLUME_PAD: padding for 64-bit attributes
 * @RMEM_A_VOLUME_OWNER: string, the host identity that created it (only
 *	that identity may attach it)
 * @RMEM_A_VOLUME_OWNER_AUTH: u8, 1 if its creator proved its key (only
 *	a client proving the same may attach it)
 * @__RMEM_A_VOLUME_MAX: internal, one past the highest volume attribute
 * @RMEM_A_VOLUME_MAX: highest volume attribute
 */
enum rmem_a_volume {
	RMEM_A_VOLUME_UNSPEC,
	RMEM_A_VOLUME_SERVER,
	RMEM_A_VOLUME_NAME,
	RMEM_A_VOLUME_SIZE,
	RMEM_A_VOLUME_BUSY,
	RMEM_A_VOLUME_GENERATION,
	RMEM_A_VOLUME_PAD,
	RMEM_A_VOLUME_OWNER,
	RMEM_A_VOLUME_OWNER_AUTH,

	__RMEM_A_VOLUME_MAX,
	RMEM_A_VOLUME_MAX = __RMEM_A_VOLUME_MAX - 1
};

/**
 * enum rmem_a_host - a host entry of a server: a client identity, its key
 *	and its limits
 * @RMEM_A_HOST_UNSPEC: unused
 * @RMEM_A_HOST_SERVER: string, the server's name (key)
 * @RMEM_A_HOST_ID: string, the client's host identity (key)
 * @RMEM_A_HOST_KEY: binary (32), HOST_ADD only: the key; never in replies
 * @RMEM_A_HOST_KEY_DESC: string, HOST_ADD only: description of a "logon"
 *	key in the caller's keyrings holding the key, "rmem:" and a name
 * @RMEM_A_HOST_SIZE_LIMIT: u64, bytes the host may hold at most, in
 *	sessions and in the volumes it created; 0 for no limit
 * @RMEM_A_HOST_SESSIONS_MAX: u32, sessions the host may have at once; 0
 *	for no limit
 * @RMEM_A_HOST_FORCE: flag, HOST_DEL: remove even with sessions, which end
 * @RMEM_A_HOST_USED: u64 (replies): bytes the host holds now
 * @RMEM_A_HOST_SESSIONS: u32 (replies): sessions the host has now
 * @RMEM_A_HOST_PAD: padding for 64-bit attributes
 * @__RMEM_A_HOST_MAX: internal, one past the highest host attribute
 * @RMEM_A_HOST_MAX: highest host attribute
 */
enum rmem_a_host {
	RMEM_A_HOST_UNSPEC,
	RMEM_A_HOST_SERVER,
	RMEM_A_HOST_ID,
	RMEM_A_HOST_KEY,
	RMEM_A_HOST_KEY_DESC,
	RMEM_A_HOST_SIZE_LIMIT,
	RMEM_A_HOST_SESSIONS_MAX,
	RMEM_A_HOST_FORCE,
	RMEM_A_HOST_USED,
	RMEM_A_HOST_SESSIONS,
	RMEM_A_HOST_PAD,

	__RMEM_A_HOST_MAX,
	RMEM_A_HOST_MAX = __RMEM_A_HOST_MAX - 1
};

#endif /* _UAPI_LINUX_RMEM_H */
