/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmem: what both roles share of authentication: HMAC-SHA256 over the
 * handshake, the READY message and connect requests, host keys from the
 * kernel keyring, host identities.  Documentation/protocol.rst defines
 * what each MAC covers.
 */
#ifndef _RMEM_AUTH_H
#define _RMEM_AUTH_H

#include <linux/types.h>

#include "proto.h"

struct crypto_shash;

struct crypto_shash *rmem_mac_alloc(const u8 *key, unsigned int len);
void rmem_mac_free(struct crypto_shash *tfm);
int rmem_auth_mac(struct crypto_shash *tfm, const char *label,
		  const struct rmem_wire_challenge *ch, const u8 *nonce,
		  u32 client_qpn, u32 server_qpn,
		  const struct rmem_wire_auth *auth, u8 *out);
int rmem_ready_mac(struct crypto_shash *tfm, const struct rmem_wire_ready *r,
		   u64 counter, u8 *out);
int rmem_ctl_mac(struct crypto_shash *tfm, const struct rmem_wire_connect *req,
		 u32 qpn, u8 *out);
int rmem_ext_mac(struct crypto_shash *tfm, const char *label, const void *msg,
		 size_t len, u8 *out);
int rmem_key_lookup(const char *desc, u8 *key);
bool rmem_key_ok(const u8 *key);
bool rmem_host_id_ok(const char *id, size_t len);
bool rmem_volume_name_ok(const char *v, size_t len);

/* The description of every host key in a keyring starts with this. */
#define RMEM_KEY_PREFIX		"rmem:"

/* Labels of the MACs: each use of a key has its own. */
#define RMEM_MAC_CLIENT		"rmem-client"
#define RMEM_MAC_SESSION	"rmem-session"
#define RMEM_MAC_EXT		"rmem-ext"
#define RMEM_MAC_EXT_REPLY	"rmem-ext-reply"

#endif /* _RMEM_AUTH_H */
