// SPDX-License-Identifier: GPL-2.0
/* Netlink fuzzer: policy poisons and anchors, what makes a request invalid. */
#include <string.h>

#include "fuzz.h"

/* ---- policy poisons: what the core's strict validation refuses ---------- */

const char *const poison_name[NR_POISONS] = {
	[PP_NONE] = "none",
	[PP_TOP_UNKNOWN] = "top-unknown-type",
	[PP_TOP_WRONG_NEST] = "top-wrong-nest",
	[PP_TOP_NOFLAG] = "top-nest-without-nested-flag",
	[PP_TOP_SHORT_NEST] = "top-nest-1-3-bytes",
	[PP_TOP_BAD_LEN] = "top-bad-nla_len",
	[PP_TOP_TRAILING] = "top-trailing-bytes",
	[PP_TOP_GARBAGE] = "top-garbage",
	[PP_NEST_GARBAGE] = "nest-of-garbage",
	[PP_N_UNKNOWN] = "nest-unknown-type",
	[PP_N_UNSPEC] = "nest-reply-only-attr",
	[PP_N_INT_LEN] = "nest-int-wrong-length",
	[PP_N_BIN_LEN] = "nest-binary-wrong-length",
	[PP_N_STRING] = "nest-bad-string",
	[PP_N_FLAG_DATA] = "nest-flag-with-data",
	[PP_N_LEAF_NESTED] = "nest-leaf-with-nested-flag",
	[PP_N_PREFIX_NOFLAG] = "allow-without-nested-flag",
	[PP_N_PREFIX_SHORT] = "allow-1-3-bytes",
	[PP_N_PREFIX_BAD] = "allow-poisoned",
	[PP_N_BAD_LEN] = "nest-bad-nla_len",
	[PP_N_TRAILING] = "nest-trailing-bytes",
	[PP_N_GARBAGE] = "nest-garbage",
};

bool poison_at_top(enum poison pp)
{
	return pp >= PP_TOP_UNKNOWN && pp <= PP_NEST_GARBAGE;
}

bool poison_last(enum poison pp)
{
	return (pp >= PP_TOP_BAD_LEN && pp <= PP_NEST_GARBAGE) ||
	       pp >= PP_N_BAD_LEN;
}

/* The attribute kinds a nest poison needs, 0 for any nest. */
static uint32_t poison_kinds(enum poison pp)
{
	switch (pp) {
	case PP_N_UNSPEC:
		return BIT(K_UNSPEC);
	case PP_N_INT_LEN:
		return K_INTS;
	case PP_N_BIN_LEN:
		return K_BINS;
	case PP_N_STRING:
		return BIT(K_STR);
	case PP_N_FLAG_DATA:
		return BIT(K_FLAG);
	case PP_N_LEAF_NESTED:
		return K_LEAVES;
	case PP_N_PREFIX_NOFLAG:
	case PP_N_PREFIX_SHORT:
	case PP_N_PREFIX_BAD:
		return BIT(K_PREFIX);
	default:
		return 0;
	}
}

bool poison_fits_nest(enum poison pp, const struct nest *n,
		      uint32_t excl)
{
	uint32_t kinds = poison_kinds(pp);

	if (pp < PP_N_UNKNOWN)
		return false;
	return !kinds || type_of_kind(n, kinds, excl);
}

/* A poison for the inside of @n (never fails: unknown types always fit). */
static enum poison pick_nest_poison(const struct nest *n, uint32_t excl)
{
	enum poison pp;

	do
		pp = PP_N_UNKNOWN + rnd_below(NR_POISONS - PP_N_UNKNOWN);
	while (!poison_fits_nest(pp, n, excl));
	return pp;
}

/* Random bytes whose first attribute the parser refuses: type 0 or above
 * @max with a good nla_len, else nla_len out of range (bytes left over).
 */
void put_garbage(struct msg *m, uint16_t bad_type)
{
	size_t n = 1 + rnd_below(256), off = m->len;

	put_random(m, n);
	if (n >= 4 && !m->overflow)
		memcpy(m->buf + off + 2, &bad_type, sizeof(bad_type));
}

void put_bad_len(struct msg *m)
{
	size_t n;

	if (chance(50)) {
		/* shorter than a header: nla_ok() stops, bytes left over */
		put_hdr(m, rnd_below(4), rnd());
		put_random(m, rnd_below(9));
	} else {
		/* longer than what is left */
		n = rnd_below(33);
		put_hdr(m, 4 + n + 1 + rnd_below(64), rnd());
		put_random(m, n);
	}
}

static void put_prefix_bad(struct msg *m, uint16_t type);

/* Poison @pp inside @n, on none of the attributes in @excl. */
void put_nest_poison(struct msg *m, const struct nest *n,
		     enum poison pp, uint32_t excl)
{
	uint16_t t = type_of_kind(n, poison_kinds(pp), excl);
	size_t off, len;
	unsigned int i, exact;
	char s[1024];

	switch (pp) {
	case PP_N_UNKNOWN:
		off = attr_begin(m, unknown_type(n->max) | rand_nla_flags());
		put_junk_payload(m);
		attr_end(m, off);
		break;
	case PP_N_UNSPEC:
		off = attr_begin(m, t | rand_nla_flags());
		put_junk_payload(m);
		attr_end(m, off);
		break;
	case PP_N_INT_LEN:
		exact = kind_len(n->kind[t]);
		do
			len = rnd_below(17);
		while (len == exact);
		put_attr_random(m, t | (chance(10) ? NLA_F_NESTED : 0), len);
		break;
	case PP_N_BIN_LEN:
		exact = kind_len(n->kind[t]);
		do
			len = chance(20) ? 33 + rnd_below(1500) : rnd_below(41);
		while (len == exact);
		put_attr_random(m, t, len);
		break;
	case PP_N_STRING:
		/* the policy refuses length 0, >= 33, or no NUL in it */
		switch (rnd_below(4)) {
		case 0:
			len = 0;
			break;
		case 1:		/* no NUL */
			len = 1 + rnd_below(RMEM_NAME_MAX);
			rand_name(s, len);
			break;
		case 2:		/* too long */
			len = RMEM_NAME_MAX + 1 + rnd_below(sizeof(s) - 40);
			rand_name(s, len - 1);
			break;
		default:	/* early NUL, too long after all */
			len = RMEM_NAME_MAX + 1 + rnd_below(200);
			rand_name(s, len - 1);
			s[rnd_below(RMEM_NAME_MAX)] = 0;
			break;
		}
		put_attr(m, t, s, len);
		break;
	case PP_N_FLAG_DATA:
		put_attr_random(m, t, 1 + rnd_below(16));
		break;
	case PP_N_LEAF_NESTED:
		off = attr_begin(m, t | NLA_F_NESTED);
		exact = kind_len(n->kind[t]);
		if (exact && chance(70))
			put_random(m, exact);	/* passes the length check */
		else
			put_deep(m, 1 + rnd_below(40));
		attr_end(m, off);
		break;
	case PP_N_PREFIX_NOFLAG:
		off = attr_begin(m, t);
		for (i = rnd_below(3); i; i--)
			put_valid(m, &nest_prefix, 1 + rnd_below(RMEM_A_PREFIX_MAX));
		attr_end(m, off);
		break;
	case PP_N_PREFIX_SHORT:
		put_attr_random(m, t | NLA_F_NESTED, 1 + rnd_below(3));
		break;
	case PP_N_PREFIX_BAD:
		put_prefix_bad(m, t);
		break;
	case PP_N_BAD_LEN:
		put_bad_len(m);
		break;
	case PP_N_TRAILING:
		put_random(m, 1 + rnd_below(3));
		break;
	case PP_N_GARBAGE:
		put_garbage(m, unknown_type(n->max) | rand_nla_flags());
		break;
	default:
		break;
	}
}

/* An allow prefix nest holding valid prefix attributes and one poison. */
static void put_prefix_bad(struct msg *m, uint16_t type)
{
	enum poison pp = pick_nest_poison(&nest_prefix, 0);
	unsigned int i, k = rnd_below(3), pos = rnd_below(k + 1);
	size_t off = attr_begin(m, type | NLA_F_NESTED);

	for (i = 0; i <= k; i++) {
		if (i == pos && !poison_last(pp))
			put_nest_poison(m, &nest_prefix, pp, 0);
		if (i < k)
			put_valid(m, &nest_prefix,
				  1 + rnd_below(RMEM_A_PREFIX_MAX));
	}
	if (poison_last(pp))
		put_nest_poison(m, &nest_prefix, pp, 0);
	attr_end(m, off);
}

/* ---- anchors: what rmem itself refuses, before it creates anything ------ */

const char *const anchor_name[NR_ANCHORS] = {
	[A_NO_NEST] = "no-nest",
	[A_EMPTY_NEST] = "empty-nest",
	[A_S_NO_NAME] = "server-no-name",
	[A_S_NO_POOL] = "server-no-pool-size",
	[A_S_NO_ADDR] = "server-no-address",
	[A_S_BOTH_ADDR] = "server-ipv4-and-ipv6",
	[A_S_PORT0] = "server-port-0",
	[A_S_EMPTY_NAME] = "server-empty-name",
	[A_S_POOL_SIZE] = "server-pool-size-range",
	[A_S_MR_SIZE] = "server-mr-size-bad",
	[A_S_ALLOW_LEN] = "server-allow-prefix-len",
	[A_S_ALLOW_NO_ADDR] = "server-allow-no-address",
	[A_S_ALLOW_BOTH] = "server-allow-ipv4-and-ipv6",
	[A_S_ALLOW_MANY] = "server-allow-over-64",
	[A_D_NO_ADDR] = "dev-no-peer",
	[A_D_BOTH_ADDR] = "dev-ipv4-and-ipv6",
	[A_D_PORT0] = "dev-port-0",
	[A_D_NO_SIZE] = "dev-no-size",
	[A_D_SIZE] = "dev-size-bad",
	[A_D_QPS] = "dev-qps-range",
	[A_D_POLL_QPS] = "dev-poll-qps-range",
	[A_D_QUEUE_DEPTH] = "dev-queue-depth-range",
	[A_D_EMPTY_VOLUME] = "dev-empty-volume",
	[A_D_KEEPALIVE] = "dev-keepalive-range",
	[A_D_LOSS_TIMEOUT] = "dev-loss-timeout-range",
	[A_D_READ_SPLIT] = "dev-read-split-range",
	[A_D_READ_DEPTH] = "dev-read-depth-range",
	[A_K_NO_KEY] = "no-name",
	[A_K_EMPTY_KEY] = "empty-name",
};

enum anchor pick_anchor(enum role role)
{
	unsigned int r;

	switch (role) {
	case ROLE_SERVER_ADD:
		r = rnd_below(2 + A_S_ALLOW_MANY - A_S_NO_NAME + 1);
		return r < 2 ? r : A_S_NO_NAME + r - 2;
	case ROLE_DEV_ADD:
		r = rnd_below(2 + A_D_READ_DEPTH - A_D_NO_ADDR + 1);
		return r < 2 ? r : A_D_NO_ADDR + r - 2;
	default:
		return rnd_below(4) < 2 ? rnd_below(2) : A_K_NO_KEY + rnd_below(2);
	}
}

/* Attributes the filler must leave out for @a to hold. */
uint32_t anchor_excludes(enum anchor a)
{
	switch (a) {
	case A_S_NO_NAME:
		return BIT(RMEM_A_SERVER_NAME);
	case A_S_NO_POOL:
		return BIT(RMEM_A_SERVER_POOL_SIZE);
	case A_S_NO_ADDR:
		return BIT(RMEM_A_SERVER_LISTEN_IPV4) |
		       BIT(RMEM_A_SERVER_LISTEN_IPV6);
	case A_D_NO_ADDR:
		return BIT(RMEM_A_DEV_PEER_IPV4) | BIT(RMEM_A_DEV_PEER_IPV6);
	case A_D_NO_SIZE:
		return BIT(RMEM_A_DEV_SIZE);
	default:
		return 0;
	}
}

/* A u32 outside @lo .. @hi, often just outside. */
static uint32_t bad_u32(uint32_t lo, uint32_t hi)
{
	uint32_t v;

	do {
		switch (rnd_below(4)) {
		case 0:
			v = lo - 1;
			break;
		case 1:
			v = hi + 1;
			break;
		case 2:
			v = chance(50) ? 0 : UINT32_MAX;
			break;
		default:
			v = rnd();
			break;
		}
	} while (v >= lo && v <= hi);
	return v;
}

static void put_bad_prefix_anchor(struct msg *m, enum anchor a)
{
	size_t off = attr_begin(m, RMEM_A_SERVER_ALLOW | NLA_F_NESTED);
	bool v6 = chance(40);

	switch (a) {
	case A_S_ALLOW_LEN:
		if (v6)
			put_ipv6(m, RMEM_A_PREFIX_IPV6);
		else
			put_ipv4(m, RMEM_A_PREFIX_IPV4);
		put_u8(m, RMEM_A_PREFIX_LEN,
		       v6 ? 129 + rnd_below(127) : 33 + rnd_below(223));
		break;
	case A_S_ALLOW_NO_ADDR:
		if (chance(50))
			put_u8(m, RMEM_A_PREFIX_LEN, pick_u8());
		break;
	default:	/* A_S_ALLOW_BOTH */
		put_ipv4(m, RMEM_A_PREFIX_IPV4);
		put_ipv6(m, RMEM_A_PREFIX_IPV6);
		if (chance(50))
			put_u8(m, RMEM_A_PREFIX_LEN, rnd_below(33));
		break;
	}
	attr_end(m, off);
}

/* The anchor's own attributes, after the filler (the last of duplicates
 * is the one nla_parse() keeps).
 */
void put_anchor(struct msg *m, const struct nest *n, enum anchor a)
{
	unsigned int i;
	uint64_t v;

	switch (a) {
	case A_S_BOTH_ADDR:
		put_ipv4(m, RMEM_A_SERVER_LISTEN_IPV4);
		put_ipv6(m, RMEM_A_SERVER_LISTEN_IPV6);
		break;
	case A_S_PORT0:
		put_u16(m, RMEM_A_SERVER_LISTEN_PORT, 0);
		break;
	case A_S_EMPTY_NAME:
		put_empty_str(m, RMEM_A_SERVER_NAME);
		break;
	case A_S_POOL_SIZE:
		do
			v = chance(70) ? pick_u64() : rnd() >> rnd_below(64);
		while (pool_size_ok(v));
		put_u64(m, RMEM_A_SERVER_POOL_SIZE, v);
		break;
	case A_S_MR_SIZE:
		do
			v = chance(70) ? pick_u64() : rnd() >> rnd_below(64);
		while (mr_size_ok(v));
		put_u64(m, RMEM_A_SERVER_MR_SIZE, v);
		break;
	case A_S_ALLOW_LEN:
	case A_S_ALLOW_NO_ADDR:
	case A_S_ALLOW_BOTH:
		put_bad_prefix_anchor(m, a);
		break;
	case A_S_ALLOW_MANY:
		for (i = 65 + rnd_below(8); i; i--)
			put_valid_prefix(m, RMEM_A_SERVER_ALLOW, true);
		break;
	case A_D_BOTH_ADDR:
		put_ipv6(m, RMEM_A_DEV_PEER_IPV6);
		put_ipv4(m, RMEM_A_DEV_PEER_IPV4);
		break;
	case A_D_PORT0:
		put_u16(m, RMEM_A_DEV_PEER_PORT, 0);
		break;
	case A_D_SIZE:
		do
			v = chance(70) ? pick_u64() : rnd() >> rnd_below(64);
		while (dev_size_ok(v));
		put_u64(m, RMEM_A_DEV_SIZE, v);
		break;
	case A_D_QPS:		/* 1 .. 64 */
		put_u32(m, RMEM_A_DEV_QPS, bad_u32(1, 64));
		break;
	case A_D_POLL_QPS:	/* 0 .. 63 */
		put_u32(m, RMEM_A_DEV_POLL_QPS, bad_u32(0, 63));
		break;
	case A_D_QUEUE_DEPTH:	/* 1 .. 1024 */
		put_u32(m, RMEM_A_DEV_QUEUE_DEPTH, bad_u32(1, 1024));
		break;
	case A_D_EMPTY_VOLUME:
		put_empty_str(m, RMEM_A_DEV_VOLUME);
		break;
	case A_D_KEEPALIVE:	/* 0 or 100 .. 60000 */
		put_u32(m, RMEM_A_DEV_KEEPALIVE_MS,
			chance(50) ? 1 + rnd_below(99) : bad_u32(0, 60000));
		break;
	case A_D_LOSS_TIMEOUT:	/* 0 .. 3600000 */
		put_u32(m, RMEM_A_DEV_LOSS_TIMEOUT_MS, bad_u32(0, 3600000));
		break;
	case A_D_READ_SPLIT:	/* 0 or a power of two 65536 .. 1048576 */
		switch (rnd_below(3)) {
		case 0:		/* in range, not a power of two */
			put_u32(m, RMEM_A_DEV_READ_SPLIT,
				65536 + 4096 * (1 + rnd_below(15)));
			break;
		case 1:		/* a power of two below */
			put_u32(m, RMEM_A_DEV_READ_SPLIT, 1u << rnd_below(16));
			break;
		default:
			put_u32(m, RMEM_A_DEV_READ_SPLIT, bad_u32(65536, 1048576));
			break;
		}
		break;
	case A_D_READ_DEPTH:	/* 1 .. 16 */
		put_u32(m, RMEM_A_DEV_READ_DEPTH, bad_u32(1, 16));
		break;
	case A_K_EMPTY_KEY:
		if (n == &nest_volume || n == &nest_host) {
			/* one or both, the other absent */
			i = 1 + rnd_below(3);
			if (i & 1)
				put_empty_str(m, n == &nest_host ?
					      RMEM_A_HOST_SERVER :
					      RMEM_A_VOLUME_SERVER);
			if (i & 2)
				put_empty_str(m, n == &nest_host ?
					      RMEM_A_HOST_ID :
					      RMEM_A_VOLUME_NAME);
		} else {
			put_empty_str(m, n == &nest_server ?
				      RMEM_A_SERVER_NAME : RMEM_A_DEV_NAME);
		}
		break;
	default:
		break;	/* the missing ones: nothing */
	}
}
