/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem: remote RAM over RDMA as a block device.  Module-internal interfaces.
 */
#ifndef _RMEM_H
#define _RMEM_H

#include <linux/atomic.h>
#include <linux/inet.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/sizes.h>
#include <linux/socket.h>
#include <linux/workqueue.h>
#include <linux/rmem.h>

struct sk_buff;
struct genl_family;
struct rmem_server;
struct rmem_dev;

/* Defaults; module parameters (main.c) may change them. */
extern unsigned int rmem_default_queue_depth;
extern unsigned int rmem_default_mr_size_mb;
extern unsigned int rmem_connect_timeout_ms;
extern int rmem_ack_timeout;
extern unsigned int rmem_read_split_kb;
extern unsigned int rmem_read_depth;
extern unsigned long long rmem_fault_sector;
extern atomic_t rmem_fault_ext;
extern unsigned int rmem_fault_ready_delay_ms;
extern unsigned int rmem_fault_reconnect_delay_ms;
extern bool rmem_fault_resync_hold;
extern unsigned int rmem_fault_resync_delay_ms;
extern unsigned int rmem_fault_release_delay_ms;
extern unsigned int rmem_fault_wire_version;
extern unsigned int rmem_keepalive_ms;
extern unsigned int rmem_loss_timeout_ms;

/* The most extents a thin device has (its map: a byte each). */
#define RMEM_MAX_EXTENTS		65536

/* Limits of the keep-alive interval and the loss timeout (ms). */
#define RMEM_MIN_KEEPALIVE_MS		100
/* Probe intervals without an answer (client: nor I/O progress) = lost. */
#define RMEM_KA_MISSES			3
#define RMEM_MAX_KEEPALIVE_MS		60000
#define RMEM_MAX_LOSS_TIMEOUT_MS	3600000
/*
 * A client asks the server to hold a lost session this long beyond its
 * loss timeout (its deadline's grace for an attempt under way, and the
 * server's noticing the loss first); the server holds at most
 * RMEM_MAX_LOSS_TIMEOUT_MS + RMEM_HOLD_SLACK_MS.
 */
#define RMEM_HOLD_SLACK_MS		10000
/*
 * Bytes one RDMA READ moves at most (read-split): 0 for no limit, or a
 * power of two in this range.
 */
#define RMEM_MIN_READ_SPLIT		SZ_64K
#define RMEM_MAX_READ_SPLIT		SZ_1M
/* RDMA READs a client queue pair keeps outstanding at most */
#define RMEM_MAX_READ_DEPTH		16

/* Long-running work of both roles: session setup, teardown, errors. */
extern struct workqueue_struct *rmem_wq;
extern struct workqueue_struct *rmem_deadline_wq;
extern struct workqueue_struct *rmem_extent_wq;

/**
 * struct rmem_prefix - an allowed client address prefix
 * @addr: network address (port unused)
 * @len: prefix length in bits
 */
struct rmem_prefix {
	struct sockaddr_storage addr;
	u8 len;
};

/**
 * struct rmem_server_cfg - what SERVER_ADD asks for
 * @name: server name
 * @addr: address and port to listen on
 * @pool_size: bytes to export
 * @mr_size: bytes per chunk wanted (0: default)
 * @allow: allowed client prefixes
 * @nr_allow: entries in @allow (0: any client)
 * @auth: &enum rmem_auth, 0 for the default (rmem_server_auth())
 */
struct rmem_server_cfg {
	char name[RMEM_NAME_MAX];
	struct sockaddr_storage addr;
	u64 pool_size;
	u64 mr_size;
	struct rmem_prefix *allow;
	unsigned int nr_allow;
	u8 auth;
};

/**
 * struct rmem_host_cfg - what HOST_ADD asks for
 * @server: server name
 * @id: the client's host identity
 * @key: its key
 * @size_limit: bytes it may hold, 0 for no limit
 * @max_sessions: sessions it may have at once, 0 for no limit
 */
struct rmem_host_cfg {
	char server[RMEM_NAME_MAX];
	char id[RMEM_HOST_ID_MAX];
	u8 key[RMEM_KEY_LEN];
	u64 size_limit;
	unsigned int max_sessions;
};

/**
 * struct rmem_dev_cfg - what DEV_ADD asks for
 * @name: device name, empty to pick the next free rmemN
 * @peers: the servers' addresses and ports, the first from the flat
 *	attributes
 * @nr_peers: servers (more than one: a thin device over several)
 * @replicas: copies of each extent, on distinct servers (1 to
 *	RMEM_MAX_REPLICAS, at most @nr_peers)
 * @size: bytes
 * @volume: volume name, empty for anonymous memory
 * @nr_qps: queue pairs (= hardware queues), 0 for the default
 * @queue_depth: requests per queue, 0 for the default
 * @nr_poll_qps: extra polled queue pairs (HCTX_TYPE_POLL), 0 for none
 * @keepalive_ms: connection probe interval, 0 for none
 * @loss_timeout_ms: reconnect for this long before failing I/O, 0: fail
 * @read_split: bytes one RDMA READ moves at most, 0 for no limit
 * @read_depth: RDMA READs a queue pair keeps outstanding at most
 * @extent: bytes of an extent of a thin device, 0 for a full one
 * @host_id: this host's identity, empty for none
 * @key: the host key, if @has_key
 * @has_key: authenticate with @key
 */
struct rmem_dev_cfg {
	char name[RMEM_NAME_MAX];
	struct sockaddr_storage peers[RMEM_MAX_PEERS];
	unsigned int nr_peers;
	unsigned int replicas;
	u64 size;
	char volume[RMEM_VOLUME_MAX];
	unsigned int nr_qps;
	unsigned int queue_depth;
	unsigned int nr_poll_qps;
	unsigned int keepalive_ms;
	unsigned int loss_timeout_ms;
	unsigned int read_split;
	unsigned int read_depth;
	u64 extent;
	char host_id[RMEM_HOST_ID_MAX];
	u8 key[RMEM_KEY_LEN];
	bool has_key;
};

/**
 * struct rmem_msg - header values of a netlink message being built
 * @portid: destination port
 * @seq: sequence number
 * @flags: netlink flags (NLM_F_MULTI in dumps)
 * @cmd: generic netlink command
 */
struct rmem_msg {
	u32 portid;
	u32 seq;
	u16 flags;
	u8 cmd;
};

struct rmem_stats;

struct rdma_cm_id;
int rmem_set_ack_timeout(struct rdma_cm_id *id);

/* server.c */
int rmem_server_init(void);
int rmem_server_add(const struct rmem_server_cfg *cfg, int *bad_attr,
		    struct netlink_ext_ack *extack, struct sk_buff *reply);
int rmem_server_del(const char *name, struct netlink_ext_ack *extack);
int rmem_server_dump(struct sk_buff *skb, const struct rmem_msg *m,
		     const char *name, unsigned long *pos,
		     unsigned long *from, unsigned long *cookie,
		     struct netlink_ext_ack *extack);
int rmem_server_fill(struct sk_buff *skb, const struct rmem_msg *m,
		     const char *name, int *idx, struct netlink_ext_ack *extack);
int rmem_volume_fill(struct sk_buff *skb, const struct rmem_msg *m,
		     const char *server, int *idx);
int rmem_volume_del(const char *server, const char *volume, int *bad_attr,
		    struct netlink_ext_ack *extack);
int rmem_host_add(const struct rmem_host_cfg *cfg, int *bad_attr,
		  struct netlink_ext_ack *extack);
int rmem_host_del(const char *server, const char *id, bool force,
		  int *bad_attr, struct netlink_ext_ack *extack);
void rmem_server_exit(void);

/* client.c */
int rmem_dev_add(const struct rmem_dev_cfg *cfg, int *bad_attr,
		 struct netlink_ext_ack *extack, struct sk_buff *reply);
int rmem_dev_del(const char *name, bool force, struct netlink_ext_ack *extack);
int rmem_dev_peer_del(const char *name, const struct sockaddr_storage *addr,
		      bool any_port, const struct nlattr *attr,
		      struct netlink_ext_ack *extack);
/**
 * struct rmem_peer_add_attrs - the attributes of a peer add, for errors
 * @nest: RMEM_A_DEV
 * @name: RMEM_A_DEV_NAME
 * @peer: the RMEM_A_DEV_PEER nest
 * @key: RMEM_A_DEV_KEY or RMEM_A_DEV_KEY_DESC, if given
 */
struct rmem_peer_add_attrs {
	const struct nlattr *nest;
	const struct nlattr *name;
	const struct nlattr *peer;
	const struct nlattr *key;
};

int rmem_dev_peer_add(const char *name, const struct sockaddr_storage *addr,
		      const u8 *key, const struct rmem_peer_add_attrs *at,
		      struct netlink_ext_ack *extack);
int rmem_dev_fill(struct sk_buff *skb, const struct rmem_msg *m,
		  const char *name, int *idx, struct netlink_ext_ack *extack);
void rmem_dev_stats(struct rmem_dev *dev, struct rmem_stats *st);
int rmem_dev_stats_reset(const char *name, struct netlink_ext_ack *extack);
void rmem_dev_del_all(void);
int rmem_client_init(void);
void rmem_client_exit(void);

/* netlink.c */
extern struct genl_family rmem_nl_family;
int rmem_nl_init(void);
void rmem_nl_exit(void);

/* nl_put.c */
void *rmem_msg_put(struct sk_buff *skb, const struct rmem_msg *m);
int rmem_nl_put_addr(struct sk_buff *skb, int v4type, int v6type,
		     const struct sockaddr_storage *ss);
int rmem_nl_put_dev(struct sk_buff *skb, struct rmem_dev *dev);
int rmem_nl_put_dev_msg(struct sk_buff *skb, const struct rmem_msg *m,
			struct rmem_dev *dev);
void rmem_nl_notify_dev(struct rmem_dev *dev, u8 cmd, gfp_t gfp);

/* addr.c */
bool rmem_prefix_match(const struct rmem_prefix *p,
		       const struct sockaddr *addr);
u16 rmem_addr_port(const struct sockaddr_storage *ss);
bool rmem_addr_same_host(const struct sockaddr_storage *a,
			 const struct sockaddr *b);

#endif /* _RMEM_H */
