/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * rmem: remote RAM over RDMA as a block device.  Generic netlink ABI.
 *
 * Documentation/netlink/specs/rmem.yaml describes the same family; the
 * "make check-spec" target fails if the two drift apart.
 */
#ifndef _UAPI_LINUX_RMEM_H
#define _UAPI_LINUX_RMEM_H

#define RMEM_FAMILY_NAME	"rmem"
#define RMEM_FAMILY_VERSION	1

#define RMEM_MCGRP_EVENTS	"events"

/**
 * enum rmem_cmd - generic netlink commands of the rmem family
 * @RMEM_CMD_UNSPEC: unused
 * @RMEM_CMD_SERVER_GET: get one memory server by name, or dump all
 * @RMEM_CMD_DEV_GET: get one client device by name, or dump all
 * @__RMEM_CMD_MAX: internal, one past the highest command
 * @RMEM_CMD_MAX: highest command
 */
enum rmem_cmd {
	RMEM_CMD_UNSPEC,
	RMEM_CMD_SERVER_GET,
	RMEM_CMD_DEV_GET,

	__RMEM_CMD_MAX,
	RMEM_CMD_MAX = __RMEM_CMD_MAX - 1
};

/**
 * enum rmem_a - top-level attributes
 * @RMEM_A_UNSPEC: unused
 * @RMEM_A_SERVER: nest of &enum rmem_a_server, one memory server
 * @RMEM_A_DEV: nest of &enum rmem_a_dev, one client device
 * @__RMEM_A_MAX: internal, one past the highest top-level attribute
 * @RMEM_A_MAX: highest top-level attribute
 */
enum rmem_a {
	RMEM_A_UNSPEC,
	RMEM_A_SERVER,
	RMEM_A_DEV,

	__RMEM_A_MAX,
	RMEM_A_MAX = __RMEM_A_MAX - 1
};

/**
 * enum rmem_a_server - attributes of a memory server
 * @RMEM_A_SERVER_UNSPEC: unused
 * @RMEM_A_SERVER_NAME: string, the server's name
 * @__RMEM_A_SERVER_MAX: internal, one past the highest server attribute
 * @RMEM_A_SERVER_MAX: highest server attribute
 */
enum rmem_a_server {
	RMEM_A_SERVER_UNSPEC,
	RMEM_A_SERVER_NAME,

	__RMEM_A_SERVER_MAX,
	RMEM_A_SERVER_MAX = __RMEM_A_SERVER_MAX - 1
};

/**
 * enum rmem_a_dev - attributes of a client device
 * @RMEM_A_DEV_UNSPEC: unused
 * @RMEM_A_DEV_NAME: string, the block device's name (rmemN)
 * @__RMEM_A_DEV_MAX: internal, one past the highest device attribute
 * @RMEM_A_DEV_MAX: highest device attribute
 */
enum rmem_a_dev {
	RMEM_A_DEV_UNSPEC,
	RMEM_A_DEV_NAME,

	__RMEM_A_DEV_MAX,
	RMEM_A_DEV_MAX = __RMEM_A_DEV_MAX - 1
};

#endif /* _UAPI_LINUX_RMEM_H */
