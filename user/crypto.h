/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: the little cryptography user space needs: SHA-256 and
 * HMAC-SHA256 (the default host identity), CRC-32 and base64 (the key
 * file format).  The kernel does the protocol's own cryptography.
 */
#ifndef RMEMCTL_CRYPTO_H
#define RMEMCTL_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32

void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN]);
void hmac_sha256(const void *key, size_t key_len, const void *msg,
		 size_t msg_len, uint8_t out[SHA256_LEN]);

/* CRC-32 of IEEE 802.3 (zlib's crc32()). */
uint32_t crc32_ieee(const void *data, size_t len);

/* Base64 (RFC 4648, with padding) of @len bytes; @out holds 4/3 * len + 1. */
void base64_encode(const uint8_t *in, size_t len, char *out);

/*
 * Decode @len characters of base64 into at most @max bytes.
 * Return: the bytes decoded, or -1 for a malformed string.
 */
int base64_decode(const char *in, size_t len, uint8_t *out, size_t max);

#endif /* RMEMCTL_CRYPTO_H */
