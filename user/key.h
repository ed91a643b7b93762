/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: host keys and host identities.
 *
 * A key file holds one line, "RMEM-1:" then the base64 of the 32-byte key
 * and its CRC-32 (little endian), then ":" (like NVMe's "DHHC-1:" keys).
 */
#ifndef RMEMCTL_KEY_H
#define RMEMCTL_KEY_H

#include <stddef.h>
#include <stdint.h>
#include <linux/rmem.h>

#define KEY_PREFIX	"RMEM-1:"

/*
 * Read a key file: refused if group or others may access it, if another
 * user than the caller or root owns it, or if it is malformed.
 * Return: 0, or -1 after printing why.
 */
int key_read_file(const char *path, uint8_t key[RMEM_KEY_LEN]);

/*
 * This machine's default host identity: "mid-" and 32 hex digits of an
 * HMAC-SHA256 keyed with /etc/machine-id (the id itself never leaves
 * the machine, as machine-id(5) asks).
 * Return: 0, or -1 if there is no machine id (nothing printed).
 */
int host_identity_default(char *buf, size_t len);

/* Wipe @len bytes in a way the compiler keeps. */
void key_wipe(void *p, size_t len);

#endif /* RMEMCTL_KEY_H */
