// SPDX-License-Identifier: GPL-2.0
/* Netlink fuzzer: the message builder, and the values it puts in. */
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

/* ---- message builder ---------------------------------------------------- */

/* Append @a and @b to what was done to @m. */
void note(struct msg *m, const char *a, const char *b)
{
	size_t n = strlen(m->what);

	snprintf(m->what + n, sizeof(m->what) - n, "%s%s", a, b);
}

static void *msg_room(struct msg *m, size_t n)
{
	void *p;

	if (m->overflow || n > sizeof(m->buf) - m->len) {
		m->overflow = true;
		return NULL;
	}
	p = m->buf + m->len;
	m->len += n;
	return p;
}

static void put_bytes(struct msg *m, const void *data, size_t n)
{
	void *p = msg_room(m, n);

	if (p && n)
		memcpy(p, data, n);
}

void put_random(struct msg *m, size_t n)
{
	uint8_t *p = msg_room(m, n);
	size_t i;

	if (!p)
		return;
	for (i = 0; i < n; i++)
		p[i] = rnd();
}

static void put_pad(struct msg *m)
{
	size_t n = NLA_ALIGN(m->len) - m->len;
	void *p = msg_room(m, n);

	if (p && n)
		memset(p, 0, n);
}

/* An attribute header with whatever nla_len, not padded: for bad ones. */
void put_hdr(struct msg *m, uint16_t nla_len, uint16_t type)
{
	struct nlattr a = { .nla_len = nla_len, .nla_type = type };

	put_bytes(m, &a, sizeof(a));
}

size_t attr_begin(struct msg *m, uint16_t type)
{
	size_t off = m->len;

	m->depth++;
	put_hdr(m, 0, type);
	return off;
}

void attr_end(struct msg *m, size_t off)
{
	size_t len = m->len - off;
	uint16_t l = len;

	m->depth--;
	if (m->overflow)
		return;
	if (len > 0xffff) {
		m->overflow = true;
		return;
	}
	memcpy(m->buf + off, &l, sizeof(l));
	if (!m->depth && m->ntop < MAX_TOP) {
		m->top_off[m->ntop] = off - BODY_OFF;
		m->top_len[m->ntop++] = len;
	}
	put_pad(m);
}

void put_attr(struct msg *m, uint16_t type, const void *data, size_t n)
{
	size_t off = attr_begin(m, type);

	put_bytes(m, data, n);
	attr_end(m, off);
}

void put_attr_random(struct msg *m, uint16_t type, size_t n)
{
	size_t off = attr_begin(m, type);

	put_random(m, n);
	attr_end(m, off);
}

void put_u8(struct msg *m, uint16_t type, uint8_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

void put_u16(struct msg *m, uint16_t type, uint16_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

void put_u64(struct msg *m, uint16_t type, uint64_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

/* ---- values ------------------------------------------------------------- */

static const uint64_t u64_vals[] = {
	0, 1, 4095, 4096, 4097, 8192, 12288, 1 << 20, (1 << 20) + 1,
	1ULL << 30, (1ULL << 30) + 4096, 1ULL << 31, 1ULL << 40,
	(1ULL << 40) + 4096, 1ULL << 63, UINT64_MAX,
};

static const uint32_t u32_vals[] = {
	0, 1, 2, 31, 63, 64, 65, 128, 1023, 1024, 1025, 65535, 0x7fffffff,
	0x80000000, UINT32_MAX,
};

static const uint16_t u16_vals[] = { 0, 1, RMEM_DEFAULT_PORT, 7411, 65535 };

static const uint8_t u8_vals[] = { 0, 1, 8, 24, 32, 33, 64, 128, 129, 255 };

uint64_t pick_u64(void)
{
	return chance(75) ? u64_vals[rnd_below(ARRAY_SIZE(u64_vals))] : rnd();
}

static uint32_t pick_u32(void)
{
	return chance(75) ? u32_vals[rnd_below(ARRAY_SIZE(u32_vals))] : rnd();
}

static uint16_t pick_u16(void)
{
	return chance(75) ? u16_vals[rnd_below(ARRAY_SIZE(u16_vals))] : rnd();
}

uint8_t pick_u8(void)
{
	return chance(75) ? u8_vals[rnd_below(ARRAY_SIZE(u8_vals))] : rnd();
}

void put_ipv4(struct msg *m, uint16_t type)
{
	static const uint8_t addrs[][4] = {
		{ 127, 0, 0, 1 }, { 198, 18, 0, 1 }, { 0, 0, 0, 0 },
		{ 255, 255, 255, 255 }, { 224, 0, 0, 1 },
	};

	if (chance(70))
		put_attr(m, type, addrs[rnd_below(ARRAY_SIZE(addrs))], 4);
	else
		put_attr_random(m, type, 4);
}

void put_ipv6(struct msg *m, uint16_t type)
{
	static const uint8_t addrs[][16] = {
		{ [15] = 1 },
		{ 0 },
		{ [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 },
		{ 0xfe, 0x80, [15] = 1 },
	};

	if (chance(70))
		put_attr(m, type, addrs[rnd_below(ARRAY_SIZE(addrs))], 16);
	else
		put_attr_random(m, type, 16);
}

/* @n characters of a plausible name into @s, NUL-terminated */
void rand_name(char *s, size_t n)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789-_.";
	size_t i;

	for (i = 0; i < n; i++)
		s[i] = chars[rnd_below(sizeof(chars) - 1)];
	s[n] = 0;
}

/* A string the policy accepts: NUL within 32 bytes, at most 32 bytes. */
static void put_valid_str(struct msg *m, uint16_t type, bool nonempty)
{
	char s[RMEM_NAME_MAX];
	size_t n = 1 + rnd_below(RMEM_NAME_MAX - 1);

	if (chance(20))
		snprintf(s, sizeof(s), "rmem%u", rnd_below(300));
	else
		rand_name(s, n);
	n = strlen(s) + 1;
	/* sometimes junk after an early NUL: still within the policy */
	if (!nonempty && chance(10))
		s[rnd_below(n)] = 0;
	put_attr(m, type, s, n);
}

/* "" by the policy's and by nla_strscpy()'s reading: maybe junk after */
void put_empty_str(struct msg *m, uint16_t type)
{
	char s[RMEM_NAME_MAX] = "";
	size_t n = 1;

	if (chance(30)) {
		n = 2 + rnd_below(RMEM_NAME_MAX - 1);
		rand_name(s + 1, n - 2);
	}
	put_attr(m, type, s, n);
}

void put_valid_prefix(struct msg *m, uint16_t type, bool sane)
{
	size_t off = attr_begin(m, type | NLA_F_NESTED);
	bool v6 = chance(40);

	if (sane) {
		if (v6)
			put_ipv6(m, RMEM_A_PREFIX_IPV6);
		else
			put_ipv4(m, RMEM_A_PREFIX_IPV4);
		if (chance(60))
			put_u8(m, RMEM_A_PREFIX_LEN, rnd_below(v6 ? 129 : 33));
	} else {
		if (chance(60))
			put_ipv4(m, RMEM_A_PREFIX_IPV4);
		if (chance(40))
			put_ipv6(m, RMEM_A_PREFIX_IPV6);
		if (chance(50))
			put_u8(m, RMEM_A_PREFIX_LEN, pick_u8());
	}
	attr_end(m, off);
}

/* Any value the policy of @type in @n accepts. */
void put_valid(struct msg *m, const struct nest *n, uint16_t type)
{
	switch (n->kind[type]) {
	case K_STR:
	case K_LSTR:
		put_valid_str(m, type, false);
		break;
	case K_BIN4:
		put_ipv4(m, type);
		break;
	case K_BIN32:
		put_attr_random(m, type, 32);
		break;
	case K_AUTH:
		put_u32(m, type, RMEM_AUTH_NONE + rnd_below(3));
		break;
	case K_BIN16:
		put_ipv6(m, type);
		break;
	case K_U8:
		put_u8(m, type, pick_u8());
		break;
	case K_U16:
		put_u16(m, type, pick_u16());
		break;
	case K_U32:
		put_u32(m, type, pick_u32());
		break;
	case K_U64:
		put_u64(m, type, pick_u64());
		break;
	case K_FLAG:
		put_attr(m, type, NULL, 0);
		break;
	case K_PREFIX:
		put_valid_prefix(m, type, false);
		break;
	case K_UNSPEC:
		break;	/* never valid in a request */
	}
}

/* A value rmem would also accept, to get far into its checks. */
void put_sane(struct msg *m, const struct nest *n, uint16_t type)
{
	static const uint64_t sizes[] = {
		4096, 1 << 20, 64 << 20, 1ULL << 30, 1ULL << 40,
	};

	if (n == &nest_server) {
		switch (type) {
		case RMEM_A_SERVER_NAME:
			put_valid_str(m, type, true);
			return;
		case RMEM_A_SERVER_LISTEN_PORT:
			put_u16(m, type, 1 + rnd_below(65535));
			return;
		case RMEM_A_SERVER_POOL_SIZE:
			put_u64(m, type, sizes[rnd_below(ARRAY_SIZE(sizes))]);
			return;
		case RMEM_A_SERVER_MR_SIZE:
			put_u64(m, type, 1ULL << (12 + rnd_below(19)));
			return;
		case RMEM_A_SERVER_ALLOW:
			put_valid_prefix(m, type, true);
			return;
		}
	} else if (n == &nest_dev) {
		switch (type) {
		case RMEM_A_DEV_NAME:
			if (chance(50))
				put_empty_str(m, type);	/* kernel picks */
			else
				put_valid_str(m, type, true);
			return;
		case RMEM_A_DEV_PEER_PORT:
			put_u16(m, type, 1 + rnd_below(65535));
			return;
		case RMEM_A_DEV_SIZE:
			put_u64(m, type, sizes[rnd_below(ARRAY_SIZE(sizes))]);
			return;
		case RMEM_A_DEV_VOLUME:
			put_valid_str(m, type, true);
			return;
		case RMEM_A_DEV_QPS:
			put_u32(m, type, 1 + rnd_below(64));
			return;
		case RMEM_A_DEV_POLL_QPS:
			put_u32(m, type, rnd_below(64));
			return;
		case RMEM_A_DEV_QUEUE_DEPTH:
			put_u32(m, type, 1 + rnd_below(1024));
			return;
		case RMEM_A_DEV_KEEPALIVE_MS:
			put_u32(m, type, chance(20) ? 0 : 100 + rnd_below(59901));
			return;
		case RMEM_A_DEV_LOSS_TIMEOUT_MS:
			put_u32(m, type, rnd_below(3600001));
			return;
		case RMEM_A_DEV_READ_SPLIT:	/* 0, 64 KiB .. 1 MiB */
			put_u32(m, type, chance(20) ? 0 : 65536u << rnd_below(5));
			return;
		case RMEM_A_DEV_READ_DEPTH:	/* 1 .. 16 */
			put_u32(m, type, 1 + rnd_below(16));
			return;
		}
	}
	put_valid(m, n, type);
}

/* Payload of an attribute the kernel refuses by its type alone. */
void put_deep(struct msg *m, unsigned int depth)
{
	size_t off;

	if (!depth) {
		put_random(m, rnd_below(17));
		return;
	}
	off = attr_begin(m, (1 + rnd_below(TYPE_MAX)) | NLA_F_NESTED);
	put_deep(m, depth - 1);
	attr_end(m, off);
}

void put_junk_payload(struct msg *m)
{
	switch (rnd_below(4)) {
	case 0:
		put_random(m, rnd_below(65));
		break;
	case 1:
		put_deep(m, 1 + rnd_below(40));	/* deep nesting */
		break;
	case 2:
		put_random(m, 4);
		break;
	default:
		put_valid_prefix(m, 1 + rnd_below(3), false);
		break;
	}
}

uint16_t rand_nla_flags(void)
{
	return (chance(40) ? NLA_F_NESTED : 0) |
	       (chance(10) ? NLA_F_NET_BYTEORDER : 0);
}

/* A type above @max (or 0), for "unknown attribute type". */
uint16_t unknown_type(uint16_t max)
{
	if (chance(25))
		return 0;
	if (chance(50))
		return max + 1 + rnd_below(4);
	return max + 1 + rnd_below(TYPE_MAX - max);
}

/*
 * A random type of @n of one of the kinds in @kinds (bitmask), or 0.
 * Types in @excl (bitmask) are left out: an anchor relies on their absence.
 */
uint16_t type_of_kind(const struct nest *n, uint32_t kinds,
		      uint32_t excl)
{
	uint16_t t[32], cnt = 0, i;

	for (i = 1; i <= n->max; i++)
		if ((kinds & BIT(n->kind[i])) && !(excl & BIT(i)))
			t[cnt++] = i;
	return cnt ? t[rnd_below(cnt)] : 0;
}

unsigned int kind_len(enum kind k)
{
	switch (k) {
	case K_U8:
		return 1;
	case K_U16:
		return 2;
	case K_U32:
	case K_BIN4:
	case K_AUTH:
		return 4;
	case K_U64:
		return 8;
	case K_BIN16:
		return 16;
	case K_BIN32:
		return 32;
	default:
		return 0;
	}
}
