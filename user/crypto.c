// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl: SHA-256 (FIPS 180-4), HMAC (RFC 2104), CRC-32 and base64
 * (RFC 4648), written for this tool: small, no library needed.
 */
#include <string.h>

#include "crypto.h"

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

struct sha256_ctx {
	uint32_t h[8];
	uint64_t bytes;
	uint8_t block[64];
	size_t fill;
};

static uint32_t ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256_ctx *c, const uint8_t *p)
{
	uint32_t w[64], a, b, d, e, f, g, h, cc, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^
			      (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = c->h[0]; b = c->h[1]; cc = c->h[2]; d = c->h[3];
	e = c->h[4]; f = c->h[5]; g = c->h[6]; h = c->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) +
		     ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) +
		     ((a & b) ^ (a & cc) ^ (b & cc));
		h = g; g = f; f = e; e = d + t1;
		d = cc; cc = b; b = a; a = t1 + t2;
	}
	c->h[0] += a; c->h[1] += b; c->h[2] += cc; c->h[3] += d;
	c->h[4] += e; c->h[5] += f; c->h[6] += g; c->h[7] += h;
	explicit_bzero(w, sizeof(w));
}

static void sha256_init(struct sha256_ctx *c)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(c->h, iv, sizeof(iv));
	c->bytes = 0;
	c->fill = 0;
}

static void sha256_update(struct sha256_ctx *c, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n;

	c->bytes += len;
	while (len) {
		n = sizeof(c->block) - c->fill;
		if (n > len)
			n = len;
		memcpy(c->block + c->fill, p, n);
		c->fill += n;
		p += n;
		len -= n;
		if (c->fill == sizeof(c->block)) {
			sha256_block(c, c->block);
			c->fill = 0;
		}
	}
}

static void sha256_final(struct sha256_ctx *c, uint8_t out[SHA256_LEN])
{
	uint64_t bits = c->bytes * 8;
	uint8_t pad = 0x80, zero = 0, len[8];
	int i;

	sha256_update(c, &pad, 1);
	while (c->fill != 56)
		sha256_update(c, &zero, 1);
	for (i = 0; i < 8; i++)
		len[i] = bits >> (56 - 8 * i);
	sha256_update(c, len, sizeof(len));
	for (i = 0; i < 8; i++) {
		out[4 * i] = c->h[i] >> 24;
		out[4 * i + 1] = c->h[i] >> 16;
		out[4 * i + 2] = c->h[i] >> 8;
		out[4 * i + 3] = c->h[i];
	}
	explicit_bzero(c, sizeof(*c));
}

void sha256(const void *data, size_t len, uint8_t out[SHA256_LEN])
{
	struct sha256_ctx c;

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, out);
}

void hmac_sha256(const void *key, size_t key_len, const void *msg,
		 size_t msg_len, uint8_t out[SHA256_LEN])
{
	uint8_t k[64] = { 0 }, pad[64], inner[SHA256_LEN];
	struct sha256_ctx c;
	int i;

	if (key_len > sizeof(k))
		sha256(key, key_len, k);
	else
		memcpy(k, key, key_len);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&c);
	sha256_update(&c, pad, sizeof(pad));
	sha256_update(&c, msg, msg_len);
	sha256_final(&c, inner);
	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&c);
	sha256_update(&c, pad, sizeof(pad));
	sha256_update(&c, inner, sizeof(inner));
	sha256_final(&c, out);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));
	explicit_bzero(inner, sizeof(inner));
}

uint32_t crc32_ieee(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t crc = 0xffffffff;
	int i;

	while (len--) {
		crc ^= *p++;
		for (i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(const uint8_t *in, size_t len, char *out)
{
	size_t i;
	uint32_t v;

	for (i = 0; i + 2 < len; i += 3) {
		v = in[i] << 16 | in[i + 1] << 8 | in[i + 2];
		*out++ = b64[v >> 18];
		*out++ = b64[(v >> 12) & 63];
		*out++ = b64[(v >> 6) & 63];
		*out++ = b64[v & 63];
	}
	if (i < len) {
		v = in[i] << 16 | (i + 1 < len ? in[i + 1] << 8 : 0);
		*out++ = b64[v >> 18];
		*out++ = b64[(v >> 12) & 63];
		*out++ = i + 1 < len ? b64[(v >> 6) & 63] : '=';
		*out++ = '=';
	}
	*out = '\0';
}

int base64_decode(const char *in, size_t len, uint8_t *out, size_t max)
{
	size_t i, n = 0, pad = 0;
	uint32_t v = 0;
	const char *c;

	if (len % 4)
		return -1;
	for (i = 0; i < len; i++) {
		if (in[i] == '=') {
			/* only at the end, at most two */
			if (i + 2 < len || (i + 1 < len && in[i + 1] != '='))
				return -1;
			pad++;
			v <<= 6;
		} else {
			c = strchr(b64, in[i]);
			if (!c || !in[i] || pad)
				return -1;
			v = v << 6 | (uint32_t)(c - b64);
		}
		if (i % 4 == 3) {
			if (n + 3 - pad > max)
				return -1;
			out[n++] = v >> 16;
			if (pad < 2)
				out[n++] = v >> 8;
			if (pad < 1)
				out[n++] = v;
			v = 0;
		}
	}
	return (int)n;
}
