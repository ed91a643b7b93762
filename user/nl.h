/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: generic netlink plumbing on top of libmnl.
 */
#ifndef RMEMCTL_NL_H
#define RMEMCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#include "utils.h"

#define NL_TX_SIZE	8192	/* one request */
#define NL_RX_SIZE	32768	/* one batch of dump replies */

/* What the kernel said about the last failed request. */
struct nl_err {
	int error;		/* negative errno from the kernel, 0 if none */
	char msg[256];		/* NLMSGERR_ATTR_MSG, "" if none */
	int bad_type;		/* type of the attribute at NLMSGERR_ATTR_OFFS */
	int miss_type;		/* NLMSGERR_ATTR_MISS_TYPE */
	int miss_nest;		/* type of the nest at NLMSGERR_ATTR_MISS_NEST */
};				/* the *_type fields are -1 when absent */

struct nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;	/* generic netlink id of "rmem" */
	uint32_t version;	/* family version the kernel implements */
	uint32_t events_group;	/* multicast group id of "events", 0 if none */
	struct nlmsghdr *req;	/* request being built, then last sent */
	bool overflow;		/* the request did not fit in NL_TX_SIZE */
	struct nl_err err;
	void *tx;
	void *rx;
};

/*
 * Open the socket and resolve the rmem family.  On failure the reason
 * has been printed and -1 is returned.
 */
int nl_open(struct nl *nl);
void nl_close(struct nl *nl);

/*
 * Start a new rmem request in nl->tx.  @flags is 0 for a doit request
 * or NLM_F_DUMP; NLM_F_REQUEST and NLM_F_ACK are always added.
 */
struct nlmsghdr *nl_msg(struct nl *nl, uint8_t cmd, uint16_t flags);

/*
 * Append attributes to the current request.  They never fail: when the
 * request overflows, nl_run() refuses to send it.
 */
struct nlattr *nl_nest_start(struct nl *nl, uint16_t type);
void nl_nest_end(struct nl *nl, struct nlattr *nest);
void nl_put_strz(struct nl *nl, uint16_t type, const char *str);
void nl_put_flag(struct nl *nl, uint16_t type);
void nl_put_u8(struct nl *nl, uint16_t type, uint8_t val);
void nl_put_u16(struct nl *nl, uint16_t type, uint16_t val);
void nl_put_u32(struct nl *nl, uint16_t type, uint32_t val);
void nl_put_u64(struct nl *nl, uint16_t type, uint64_t val);
void nl_put_data(struct nl *nl, uint16_t type, const void *data, size_t len);

/*
 * An address as @type_v4 (4 bytes) or @type_v6 (16 bytes) by its family,
 * network order; the port, if @type_port is not 0, as a host-order u16.
 */
void nl_put_addr(struct nl *nl, uint16_t type_v4, uint16_t type_v6,
		 uint16_t type_port, const struct inet_addr *a);

/*
 * The reverse, from parsed attributes (@port may be NULL).
 * Return: 0, or -1 if neither address attribute is there with the right
 * length.
 */
int nl_get_addr(const struct nlattr *v4, const struct nlattr *v6,
		const struct nlattr *port, struct inet_addr *a);

/*
 * Send the current request and call @cb for every reply message until
 * the final ack or NLMSG_DONE.  @cb returns MNL_CB_OK to go on,
 * MNL_CB_STOP to ignore the rest, or MNL_CB_ERROR after printing why.
 * Kernel errors are printed with their extended ack.
 * Return: 0 on success, -1 on any failure.
 */
int nl_run(struct nl *nl, mnl_cb_t cb, void *data);

/*
 * nl_run() for a command that older modules do not have: when the kernel
 * refuses it as unknown (EOPNOTSUPP without a message), print @unknown
 * and the error instead of the bare error.
 */
int nl_run_newer(struct nl *nl, mnl_cb_t cb, void *data, const char *unknown);

/* Wipe the request buffer (it held a key). */
void nl_wipe(struct nl *nl);

/* Join multicast group @group (nl->events_group).  Return: 0 or -1. */
int nl_join_group(struct nl *nl, uint32_t group);

/*
 * Receive one batch of multicast messages and call @cb for each (errors
 * from @cb are printed by it and do not stop the batch).  The socket
 * must be readable, or this blocks.
 * Return: 0, or -1 with errno set when the receive failed (ENOBUFS:
 * messages were lost, the socket is still usable).
 */
int nl_recv_events(struct nl *nl, mnl_cb_t cb, void *data);

/* The socket's file descriptor, to poll it. */
int nl_fd(const struct nl *nl);

/*
 * Parse the attributes of a generic netlink message, or of a nest, into
 * @tb[0..@max].  Attributes above @max (from a newer kernel) are ignored;
 * the others are checked against @policy (MNL_TYPE_UNSPEC: no check).
 * Return: 0, or -1 after printing an error for a malformed attribute.
 */
int nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	     uint16_t max, const enum mnl_attr_data_type *policy);
int nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		    uint16_t max, const enum mnl_attr_data_type *policy);

#endif /* RMEMCTL_NL_H */
