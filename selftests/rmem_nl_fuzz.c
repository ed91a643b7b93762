// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink fuzzer for the rmem generic netlink family.
 *
 * Sends thousands of malformed requests to every rmem command, and to
 * command numbers rmem does not have, each asking for an ACK on a socket
 * with NETLINK_EXT_ACK.  Every request is invalid by construction, so every
 * reply must be an error:
 *
 *   - with an extack message: good;
 *   - without one: a failure, except for the few refusals the genetlink core
 *     of Linux 6.1 sends before rmem sees the message (core_refusal());
 *   - success, or no reply within REPLY_TIMEOUT_S: a failure.
 *
 * How a request is made invalid (plan_message()):
 *
 *   - SERVER_ADD and DEV_ADD always carry an "anchor": a value that rmem's
 *     netlink.c rejects before it creates anything (a missing or empty
 *     name, pool size out of range, qps 0, port 0, ...);
 *   - the other commands only ever name objects "" or not at all, and no
 *     object can have an empty name;
 *   - dumps, which ignore most attributes, always carry a "poison" the
 *     core's strict policy validation rejects (unknown or reply-only
 *     attribute, wrong length, string without NUL, bad nla_len, bytes left
 *     over, missing or unexpected NLA_F_NESTED, garbage, ...);
 *   - other requests get such a poison 40% of the time, on top;
 *   - some get a bad generic netlink header, or are cut inside an
 *     attribute.
 *
 * As a safety net it dumps servers, devices and volumes before (refuses to
 * run if any exist) and after the run (a failure if any exist).
 *
 * With -u it drops to uid/gid 65534 and checks that mutating requests,
 * valid-looking or fuzzed, are refused with -EPERM.
 *
 * Usage: rmem_nl_fuzz [-n MESSAGES] [-s SEED] [-u] [-v]
 * Exit: 0 no failures, 1 failures, 4 (KSFT_SKIP) cannot run here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rmem.h>

#define KSFT_SKIP		4
#define REPLY_TIMEOUT_S		5
#define MAX_HANGS		10	/* stop the run after this many */
#define MAX_EXAMPLES		5	/* failures printed in full */
#define MSG_BUF			16384
#define MAX_TOP			64	/* top-level attributes remembered */
#define BODY_OFF		(NLMSG_HDRLEN + GENL_HDRLEN)
#define NOBODY			65534
#define TYPE_MAX		0x3fff	/* nla_type without its two flags */
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIT(n)			(1U << (n))
#define __aligned(x)		__attribute__((aligned(x)))

/*
 * The generator mirrors the kernel's per-command policies (kernel/netlink.c)
 * and command table; a new command or attribute must be taught to it.
 */
_Static_assert(RMEM_CMD_MAX == RMEM_CMD_DEV_STATE_NTF, "new rmem command");
_Static_assert(RMEM_A_MAX == RMEM_A_VOLUME, "new top-level attribute");
_Static_assert(RMEM_A_SERVER_MAX == RMEM_A_SERVER_PAD, "new server attribute");
_Static_assert(RMEM_A_DEV_MAX == RMEM_A_DEV_RECONNECTS, "new device attribute");
_Static_assert(RMEM_A_VOLUME_MAX == RMEM_A_VOLUME_PAD, "new volume attribute");
_Static_assert(RMEM_A_PREFIX_MAX == RMEM_A_PREFIX_LEN, "new prefix attribute");

/* ---- PRNG (splitmix64): a seed replays a run exactly -------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n - 1 */
static uint32_t rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rnd_below(100) < percent;
}

/* ---- what the kernel accepts (mirror of kernel/netlink.c) --------------- */

/* Attribute kinds of the policies; K_UNSPEC: reply-only, refused strictly */
enum kind {
	K_UNSPEC,
	K_STR,		/* NLA_NUL_STRING, .len 31 */
	K_BIN4,		/* NLA_POLICY_EXACT_LEN(4) */
	K_BIN16,	/* NLA_POLICY_EXACT_LEN(16) */
	K_U8,
	K_U16,
	K_U32,
	K_U64,
	K_FLAG,
	K_PREFIX,	/* NLA_POLICY_NESTED(rmem_prefix_policy) */
};

static const uint8_t server_kind[RMEM_A_SERVER_MAX + 1] = {
	[RMEM_A_SERVER_NAME] = K_STR,
	[RMEM_A_SERVER_LISTEN_IPV4] = K_BIN4,
	[RMEM_A_SERVER_LISTEN_IPV6] = K_BIN16,
	[RMEM_A_SERVER_LISTEN_PORT] = K_U16,
	[RMEM_A_SERVER_POOL_SIZE] = K_U64,
	[RMEM_A_SERVER_MR_SIZE] = K_U64,
	[RMEM_A_SERVER_ALLOW] = K_PREFIX,
};

static const uint8_t dev_kind[RMEM_A_DEV_MAX + 1] = {
	[RMEM_A_DEV_NAME] = K_STR,
	[RMEM_A_DEV_PEER_IPV4] = K_BIN4,
	[RMEM_A_DEV_PEER_IPV6] = K_BIN16,
	[RMEM_A_DEV_PEER_PORT] = K_U16,
	[RMEM_A_DEV_SIZE] = K_U64,
	[RMEM_A_DEV_VOLUME] = K_STR,
	[RMEM_A_DEV_QPS] = K_U32,
	[RMEM_A_DEV_QUEUE_DEPTH] = K_U32,
	[RMEM_A_DEV_POLL_QPS] = K_U32,
	[RMEM_A_DEV_KEEPALIVE_MS] = K_U32,
	[RMEM_A_DEV_LOSS_TIMEOUT_MS] = K_U32,
	[RMEM_A_DEV_FORCE] = K_FLAG,
};

static const uint8_t volume_kind[RMEM_A_VOLUME_MAX + 1] = {
	[RMEM_A_VOLUME_SERVER] = K_STR,
	[RMEM_A_VOLUME_NAME] = K_STR,
};

static const uint8_t prefix_kind[RMEM_A_PREFIX_MAX + 1] = {
	[RMEM_A_PREFIX_IPV4] = K_BIN4,
	[RMEM_A_PREFIX_IPV6] = K_BIN16,
	[RMEM_A_PREFIX_LEN] = K_U8,
};

/**
 * struct nest - one nested attribute space
 * @name: for messages
 * @type: its top-level attribute (0: the allow prefix, nested deeper)
 * @max: highest attribute type
 * @kind: &enum kind of each attribute type
 * @keys: attributes that name an object (bitmask)
 * @needed: attributes an ADD needs (bitmask), besides an address
 * @v4: IPv4 address attribute
 * @v6: IPv6 address attribute
 */
struct nest {
	const char *name;
	uint16_t type;
	uint16_t max;
	const uint8_t *kind;
	uint32_t keys;
	uint32_t needed;
	uint16_t v4;
	uint16_t v6;
};

static const struct nest nest_server = {
	.name = "server",
	.type = RMEM_A_SERVER,
	.max = RMEM_A_SERVER_MAX,
	.kind = server_kind,
	.keys = BIT(RMEM_A_SERVER_NAME),
	.needed = BIT(RMEM_A_SERVER_NAME) | BIT(RMEM_A_SERVER_POOL_SIZE) |
		  BIT(RMEM_A_SERVER_LISTEN_IPV4) |
		  BIT(RMEM_A_SERVER_LISTEN_IPV6),
	.v4 = RMEM_A_SERVER_LISTEN_IPV4,
	.v6 = RMEM_A_SERVER_LISTEN_IPV6,
};

static const struct nest nest_dev = {
	.name = "dev",
	.type = RMEM_A_DEV,
	.max = RMEM_A_DEV_MAX,
	.kind = dev_kind,
	.keys = BIT(RMEM_A_DEV_NAME),
	.needed = BIT(RMEM_A_DEV_SIZE) | BIT(RMEM_A_DEV_PEER_IPV4) |
		  BIT(RMEM_A_DEV_PEER_IPV6),
	.v4 = RMEM_A_DEV_PEER_IPV4,
	.v6 = RMEM_A_DEV_PEER_IPV6,
};

static const struct nest nest_volume = {
	.name = "volume",
	.type = RMEM_A_VOLUME,
	.max = RMEM_A_VOLUME_MAX,
	.kind = volume_kind,
	.keys = BIT(RMEM_A_VOLUME_SERVER) | BIT(RMEM_A_VOLUME_NAME),
};

static const struct nest nest_prefix = {
	.name = "prefix",
	.max = RMEM_A_PREFIX_MAX,
	.kind = prefix_kind,
	.v4 = RMEM_A_PREFIX_IPV4,
	.v6 = RMEM_A_PREFIX_IPV6,
};

static const struct nest *const top_nest[RMEM_A_MAX + 1] = {
	[RMEM_A_SERVER] = &nest_server,
	[RMEM_A_DEV] = &nest_dev,
	[RMEM_A_VOLUME] = &nest_volume,
};

enum role {
	ROLE_SERVER_ADD,	/* creates a server */
	ROLE_DEV_ADD,		/* creates a device */
	ROLE_KEYED,		/* deletes or reads objects named by keys */
	NR_ROLES,
};

/**
 * struct op - one command of rmem_nl_ops[]
 * @cmd: command number
 * @name: for messages
 * @nest: top-level attribute its policy accepts
 * @doit: has a doit handler
 * @dumpit: has a dumpit handler
 * @admin: GENL_ADMIN_PERM
 * @role: &enum role
 */
struct op {
	uint8_t cmd;
	const char *name;
	uint16_t nest;
	bool doit;
	bool dumpit;
	bool admin;
	enum role role;
};

static const struct op ops[] = {
	{ RMEM_CMD_SERVER_ADD, "server-add", RMEM_A_SERVER, true, false, true,
	  ROLE_SERVER_ADD },
	{ RMEM_CMD_SERVER_DEL, "server-del", RMEM_A_SERVER, true, false, true,
	  ROLE_KEYED },
	{ RMEM_CMD_SERVER_GET, "server-get", RMEM_A_SERVER, true, true, false,
	  ROLE_KEYED },
	{ RMEM_CMD_DEV_ADD, "dev-add", RMEM_A_DEV, true, false, true,
	  ROLE_DEV_ADD },
	{ RMEM_CMD_DEV_DEL, "dev-del", RMEM_A_DEV, true, false, true,
	  ROLE_KEYED },
	{ RMEM_CMD_DEV_GET, "dev-get", RMEM_A_DEV, true, true, false,
	  ROLE_KEYED },
	{ RMEM_CMD_VOLUME_GET, "volume-get", RMEM_A_VOLUME, false, true, false,
	  ROLE_KEYED },
	{ RMEM_CMD_VOLUME_DEL, "volume-del", RMEM_A_VOLUME, true, false, true,
	  ROLE_KEYED },
};

static const struct op *op_find(uint8_t cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i].cmd == cmd)
			return &ops[i];
	return NULL;
}

/* Commands fuzzed: every rmem_cmd (UNSPEC and the notification included)
 * and five numbers past the last.
 */
#define NR_CMDS			(RMEM_CMD_MAX + 6)

static const char *cmd_name(uint8_t cmd)
{
	const struct op *op = op_find(cmd);

	if (op)
		return op->name;
	if (cmd == RMEM_CMD_UNSPEC)
		return "unspec";
	if (cmd == RMEM_CMD_DEV_STATE_NTF)
		return "dev-state-ntf";
	return "past-max";
}

/* Mirrors of the range checks of netlink.c, to make sure a value is bad. */
static bool pool_size_ok(uint64_t v)
{
	return v >= 4096 && v <= 1ULL << 40;
}

static bool mr_size_ok(uint64_t v)
{
	return v && !(v & (v - 1)) && v >= 4096 && v <= 1ULL << 30;
}

static bool dev_size_ok(uint64_t v)
{
	return v >= 4096 && !(v & 4095) && v <= 1ULL << 40;
}

/* ---- message builder ---------------------------------------------------- */

/**
 * struct msg - one request being built, and what was done to it
 * @buf: the request; the body starts at BODY_OFF
 * @len: bytes used, also the length sent and the nlmsg_len
 * @overflow: something did not fit: the message is built again
 * @depth: attributes open
 * @ntop: complete top-level attributes recorded in @top_off/@top_len
 * @top_off: their offsets
 * @top_len: their nla_len
 * @cmd: genlmsghdr.cmd
 * @version: genlmsghdr.version
 * @reserved: genlmsghdr.reserved
 * @flags: nlmsg_flags
 * @dump: NLM_F_DUMP: the kernel takes the dumpit path
 * @label: the category the message is counted under
 * @what: everything done to it, for failure reports
 */
struct msg {
	uint8_t buf[MSG_BUF] __aligned(8);
	size_t len;
	bool overflow;
	unsigned int depth;
	unsigned int ntop;
	size_t top_off[MAX_TOP];
	size_t top_len[MAX_TOP];
	uint8_t cmd;
	uint8_t version;
	uint16_t reserved;
	uint16_t flags;
	bool dump;
	const char *label;
	char what[256];
};

/* Append @a and @b to what was done to @m. */
static void note(struct msg *m, const char *a, const char *b)
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

static void put_random(struct msg *m, size_t n)
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
static void put_hdr(struct msg *m, uint16_t nla_len, uint16_t type)
{
	struct nlattr a = { .nla_len = nla_len, .nla_type = type };

	put_bytes(m, &a, sizeof(a));
}

static size_t attr_begin(struct msg *m, uint16_t type)
{
	size_t off = m->len;

	m->depth++;
	put_hdr(m, 0, type);
	return off;
}

static void attr_end(struct msg *m, size_t off)
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

static void put_attr(struct msg *m, uint16_t type, const void *data, size_t n)
{
	size_t off = attr_begin(m, type);

	put_bytes(m, data, n);
	attr_end(m, off);
}

static void put_attr_random(struct msg *m, uint16_t type, size_t n)
{
	size_t off = attr_begin(m, type);

	put_random(m, n);
	attr_end(m, off);
}

static void put_u8(struct msg *m, uint16_t type, uint8_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_u16(struct msg *m, uint16_t type, uint16_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put_attr(m, type, &v, sizeof(v));
}

static void put_u64(struct msg *m, uint16_t type, uint64_t v)
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

static uint64_t pick_u64(void)
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

static uint8_t pick_u8(void)
{
	return chance(75) ? u8_vals[rnd_below(ARRAY_SIZE(u8_vals))] : rnd();
}

static void put_ipv4(struct msg *m, uint16_t type)
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

static void put_ipv6(struct msg *m, uint16_t type)
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
static void rand_name(char *s, size_t n)
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
static void put_empty_str(struct msg *m, uint16_t type)
{
	char s[RMEM_NAME_MAX] = "";
	size_t n = 1;

	if (chance(30)) {
		n = 2 + rnd_below(RMEM_NAME_MAX - 1);
		rand_name(s + 1, n - 2);
	}
	put_attr(m, type, s, n);
}

static void put_valid_prefix(struct msg *m, uint16_t type, bool sane)
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
static void put_valid(struct msg *m, const struct nest *n, uint16_t type)
{
	switch (n->kind[type]) {
	case K_STR:
		put_valid_str(m, type, false);
		break;
	case K_BIN4:
		put_ipv4(m, type);
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
static void put_sane(struct msg *m, const struct nest *n, uint16_t type)
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
		}
	}
	put_valid(m, n, type);
}

/* Payload of an attribute the kernel refuses by its type alone. */
static void put_deep(struct msg *m, unsigned int depth)
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

static void put_junk_payload(struct msg *m)
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

static uint16_t rand_nla_flags(void)
{
	return (chance(40) ? NLA_F_NESTED : 0) |
	       (chance(10) ? NLA_F_NET_BYTEORDER : 0);
}

/* A type above @max (or 0), for "unknown attribute type". */
static uint16_t unknown_type(uint16_t max)
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
static uint16_t type_of_kind(const struct nest *n, uint32_t kinds,
			     uint32_t excl)
{
	uint16_t t[32], cnt = 0, i;

	for (i = 1; i <= n->max; i++)
		if ((kinds & BIT(n->kind[i])) && !(excl & BIT(i)))
			t[cnt++] = i;
	return cnt ? t[rnd_below(cnt)] : 0;
}

#define K_INTS		(BIT(K_U8) | BIT(K_U16) | BIT(K_U32) | BIT(K_U64))
#define K_BINS		(BIT(K_BIN4) | BIT(K_BIN16))
#define K_LEAVES	(K_INTS | K_BINS | BIT(K_STR) | BIT(K_FLAG))

static unsigned int kind_len(enum kind k)
{
	switch (k) {
	case K_U8:
		return 1;
	case K_U16:
		return 2;
	case K_U32:
	case K_BIN4:
		return 4;
	case K_U64:
		return 8;
	case K_BIN16:
		return 16;
	default:
		return 0;
	}
}

/* ---- policy poisons: what the core's strict validation refuses ---------- */

enum poison {
	PP_NONE,
	/* at top level, anywhere */
	PP_TOP_UNKNOWN,		/* type 0 or > RMEM_A_MAX */
	PP_TOP_WRONG_NEST,	/* another object's nest: not in this policy */
	PP_TOP_NOFLAG,		/* the object nest without NLA_F_NESTED */
	PP_TOP_SHORT_NEST,	/* the object nest, 1..3 bytes of payload */
	/* at top level, last */
	PP_TOP_BAD_LEN,		/* nla_len 0..3 or past the end */
	PP_TOP_TRAILING,	/* 1..3 bytes after the last attribute */
	PP_TOP_GARBAGE,		/* random bytes, first type not accepted */
	PP_NEST_GARBAGE,	/* object nest of random bytes, then unknown */
	/* in a nest, anywhere */
	PP_N_UNKNOWN,		/* type 0 or above the nest's max */
	PP_N_UNSPEC,		/* a reply-only attribute */
	PP_N_INT_LEN,		/* u8/u16/u32/u64 of another length */
	PP_N_BIN_LEN,		/* address of another length, or oversize */
	PP_N_STRING,		/* empty, without NUL, or too long */
	PP_N_FLAG_DATA,		/* flag with a payload */
	PP_N_LEAF_NESTED,	/* NLA_F_NESTED on a leaf, maybe deep */
	PP_N_PREFIX_NOFLAG,	/* allow nest without NLA_F_NESTED */
	PP_N_PREFIX_SHORT,	/* allow nest, 1..3 bytes */
	PP_N_PREFIX_BAD,	/* allow nest with a poison inside */
	/* in a nest, last */
	PP_N_BAD_LEN,
	PP_N_TRAILING,
	PP_N_GARBAGE,
	NR_POISONS,
};

static const char *const poison_name[NR_POISONS] = {
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

static bool poison_at_top(enum poison pp)
{
	return pp >= PP_TOP_UNKNOWN && pp <= PP_NEST_GARBAGE;
}

static bool poison_last(enum poison pp)
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

static bool poison_fits_nest(enum poison pp, const struct nest *n,
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
static void put_garbage(struct msg *m, uint16_t bad_type)
{
	size_t n = 1 + rnd_below(256), off = m->len;

	put_random(m, n);
	if (n >= 4 && !m->overflow)
		memcpy(m->buf + off + 2, &bad_type, sizeof(bad_type));
}

static void put_bad_len(struct msg *m)
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
static void put_nest_poison(struct msg *m, const struct nest *n,
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

enum anchor {
	A_NO_NEST,		/* "missing ... attributes" */
	A_EMPTY_NEST,		/* "missing ... name" / "missing peer address" */
	/* SERVER_ADD */
	A_S_NO_NAME,
	A_S_NO_POOL,
	A_S_NO_ADDR,
	A_S_BOTH_ADDR,
	A_S_PORT0,
	A_S_EMPTY_NAME,
	A_S_POOL_SIZE,		/* out of 4 KiB .. 1 TiB */
	A_S_MR_SIZE,		/* not a power of two in 4 KiB .. 1 GiB */
	A_S_ALLOW_LEN,		/* prefix length beyond the address */
	A_S_ALLOW_NO_ADDR,
	A_S_ALLOW_BOTH,
	A_S_ALLOW_MANY,		/* more than 64 */
	/* DEV_ADD */
	A_D_NO_ADDR,
	A_D_BOTH_ADDR,
	A_D_PORT0,
	A_D_NO_SIZE,
	A_D_SIZE,		/* 0, < 4 KiB, unaligned, > 1 TiB */
	A_D_QPS,		/* 0, > 64 */
	A_D_POLL_QPS,		/* > 63 */
	A_D_QUEUE_DEPTH,	/* 0, > 1024 */
	A_D_EMPTY_VOLUME,
	A_D_KEEPALIVE,		/* 1 .. 99, > 60000 */
	A_D_LOSS_TIMEOUT,	/* > 1 hour */
	/* the others: no object has an empty name */
	A_K_NO_KEY,
	A_K_EMPTY_KEY,
	NR_ANCHORS,
};

static const char *const anchor_name[NR_ANCHORS] = {
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
	[A_K_NO_KEY] = "no-name",
	[A_K_EMPTY_KEY] = "empty-name",
};

static enum anchor pick_anchor(enum role role)
{
	unsigned int r;

	switch (role) {
	case ROLE_SERVER_ADD:
		r = rnd_below(2 + A_S_ALLOW_MANY - A_S_NO_NAME + 1);
		return r < 2 ? r : A_S_NO_NAME + r - 2;
	case ROLE_DEV_ADD:
		r = rnd_below(2 + A_D_LOSS_TIMEOUT - A_D_NO_ADDR + 1);
		return r < 2 ? r : A_D_NO_ADDR + r - 2;
	default:
		return rnd_below(4) < 2 ? rnd_below(2) : A_K_NO_KEY + rnd_below(2);
	}
}

/* Attributes the filler must leave out for @a to hold. */
static uint32_t anchor_excludes(enum anchor a)
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
static void put_anchor(struct msg *m, const struct nest *n, enum anchor a)
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
	case A_K_EMPTY_KEY:
		if (n == &nest_volume) {
			/* one or both, the other absent */
			i = 1 + rnd_below(3);
			if (i & 1)
				put_empty_str(m, RMEM_A_VOLUME_SERVER);
			if (i & 2)
				put_empty_str(m, RMEM_A_VOLUME_NAME);
		} else {
			put_empty_str(m, n == &nest_server ?
				      RMEM_A_SERVER_NAME : RMEM_A_DEV_NAME);
		}
		break;
	default:
		break;	/* the missing ones: nothing */
	}
}

/* ---- one request -------------------------------------------------------- */

/**
 * struct plan - how one request is made invalid
 * @op: the command, NULL if rmem has none with this number
 * @nest: the nest the command takes (a random one for unknown commands)
 * @role: &enum role of the command
 * @anchor: &enum anchor
 * @excl: attributes the filler leaves out (bitmask)
 * @good: the filler has values rmem accepts, to reach the anchor's check
 * @poison: &enum poison, or PP_NONE
 * @dup: send the object nest twice (both with the anchor)
 */
struct plan {
	const struct op *op;
	const struct nest *nest;
	enum role role;
	enum anchor anchor;
	uint32_t excl;
	bool good;
	enum poison poison;
	bool dup;
};

enum hdr_mutation { H_NONE, H_TRUNC, H_RESERVED, H_FLAGS };

static void shuffle(uint16_t *v, unsigned int n)
{
	unsigned int i, j;
	uint16_t t;

	for (i = n; i > 1; i--) {
		j = rnd_below(i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

static void put_filler(struct msg *m, const struct plan *p, bool poisoned)
{
	const struct nest *n = p->nest;
	uint16_t items[24], type;
	unsigned int k = 0, i, pos, tries;
	uint32_t skip;

	if (p->anchor == A_EMPTY_NEST) {
		k = 0;
	} else if (p->good) {
		/* a plausible request: each attribute once, some optional */
		skip = BIT(chance(40) ? n->v4 : n->v6);	/* one address */
		for (type = 1; type <= n->max; type++) {
			if (n->kind[type] == K_UNSPEC ||
			    ((p->excl | skip) & BIT(type)))
				continue;
			if (!(n->needed & BIT(type)) && chance(50))
				continue;
			items[k++] = type;
		}
		shuffle(items, k);
	} else {
		for (tries = rnd_below(8); tries; tries--) {
			type = 1 + rnd_below(n->max);
			if (n->kind[type] == K_UNSPEC || (p->excl & BIT(type)))
				continue;
			items[k++] = type;	/* duplicates welcome */
		}
	}
	pos = rnd_below(k + 1);
	for (i = 0; i <= k; i++) {
		if (poisoned && i == pos && !poison_last(p->poison))
			put_nest_poison(m, n, p->poison, p->excl);
		if (i == k)
			break;
		if (p->good)
			put_sane(m, n, items[i]);
		else
			put_valid(m, n, items[i]);
	}
	put_anchor(m, n, p->anchor);
	if (poisoned && poison_last(p->poison))
		put_nest_poison(m, n, p->poison, p->excl);
}

static void put_object_nest(struct msg *m, const struct plan *p,
			    bool poisoned)
{
	bool noflag = poisoned && p->poison == PP_TOP_NOFLAG;
	size_t off;

	off = attr_begin(m, p->nest->type | (noflag ? 0 : NLA_F_NESTED));
	put_filler(m, p, poisoned && !poison_at_top(p->poison));
	attr_end(m, off);
}

/* A top-level type the command's policy refuses, for garbage. */
static uint16_t bad_top_type(const struct plan *p)
{
	uint16_t own = p->nest->type;

	switch (rnd_below(4)) {
	case 0:
		return unknown_type(RMEM_A_MAX) | rand_nla_flags();
	case 1:		/* another object's nest */
		return (own % RMEM_A_MAX + 1) | rand_nla_flags();
	case 2:		/* the object's nest, without NLA_F_NESTED */
		return own | (chance(10) ? NLA_F_NET_BYTEORDER : 0);
	default:
		return unknown_type(RMEM_A_MAX);
	}
}

static void put_top_poison(struct msg *m, const struct plan *p)
{
	const struct nest *other;
	struct plan q;
	size_t off;
	unsigned int i;

	switch (p->poison) {
	case PP_TOP_UNKNOWN:
		off = attr_begin(m, unknown_type(RMEM_A_MAX) | rand_nla_flags());
		put_junk_payload(m);
		attr_end(m, off);
		break;
	case PP_TOP_WRONG_NEST:
		other = top_nest[(p->nest->type + rnd_below(2)) % RMEM_A_MAX + 1];
		off = attr_begin(m, other->type |
				    (chance(80) ? NLA_F_NESTED : 0));
		for (i = rnd_below(5); i; i--)
			put_valid(m, other, type_of_kind(other, K_LEAVES |
							 BIT(K_PREFIX), 0));
		attr_end(m, off);
		break;
	case PP_TOP_NOFLAG:
		/* only without an object nest to take the poison: this one
		 * gets an anchor of its own
		 */
		q = *p;
		do
			q.anchor = pick_anchor(q.role);
		while (q.anchor == A_NO_NEST);
		q.excl = anchor_excludes(q.anchor);
		if (q.role == ROLE_KEYED)
			q.excl |= q.nest->keys;
		put_object_nest(m, &q, true);
		break;
	case PP_TOP_SHORT_NEST:
		put_attr_random(m, p->nest->type | NLA_F_NESTED,
				1 + rnd_below(3));
		break;
	case PP_TOP_BAD_LEN:
		put_bad_len(m);
		break;
	case PP_TOP_TRAILING:
		put_random(m, 1 + rnd_below(3));
		break;
	case PP_TOP_GARBAGE:
		put_garbage(m, bad_top_type(p));
		break;
	case PP_NEST_GARBAGE:
		/* the garbage nest went first, see build_body(); whatever it
		 * parses as, this is refused
		 */
		off = attr_begin(m, RMEM_A_MAX + 1 +
				 rnd_below(TYPE_MAX - RMEM_A_MAX));
		put_junk_payload(m);
		attr_end(m, off);
		break;
	default:
		break;
	}
}

static enum poison pick_poison(const struct plan *p)
{
	enum poison pp;

	for (;;) {
		pp = PP_TOP_UNKNOWN + rnd_below(NR_POISONS - PP_TOP_UNKNOWN);
		/* garbage in the object nest: only next to a real one */
		if (poison_at_top(pp) &&
		    (pp != PP_NEST_GARBAGE || p->anchor != A_NO_NEST))
			return pp;
		if (p->anchor != A_NO_NEST &&
		    poison_fits_nest(pp, p->nest, p->excl))
			return pp;
	}
}

/* gen_message() flags */
#define GEN_HDR_OK	BIT(0)	/* no genl header mutation */
#define GEN_PLAUSIBLE	BIT(1)	/* only the anchor wrong, nothing else */

static void plan_message(struct plan *p, uint8_t cmd, bool dump,
			 unsigned int gen)
{
	memset(p, 0, sizeof(*p));
	p->op = op_find(cmd);
	if (p->op) {
		p->role = p->op->role;
		p->nest = top_nest[p->op->nest];
	} else {
		p->role = rnd_below(NR_ROLES);
		p->nest = p->role == ROLE_SERVER_ADD ? &nest_server :
			  p->role == ROLE_DEV_ADD ? &nest_dev :
			  top_nest[1 + rnd_below(RMEM_A_MAX)];
	}
	p->anchor = pick_anchor(p->role);
	p->excl = anchor_excludes(p->anchor);
	if (p->role == ROLE_KEYED)
		p->excl |= p->nest->keys;	/* names: "" or none */
	p->good = p->role != ROLE_KEYED && chance(70);
	/* dumps ignore the anchors: only the policy stops them */
	if ((p->op && dump && p->op->dumpit) || chance(40))
		p->poison = pick_poison(p);
	p->dup = p->anchor != A_NO_NEST && chance(10);
	if (gen & GEN_PLAUSIBLE) {
		p->anchor = p->role == ROLE_SERVER_ADD ? A_S_PORT0 :
			    p->role == ROLE_DEV_ADD ? A_D_QPS : A_K_EMPTY_KEY;
		p->excl = p->role == ROLE_KEYED ? p->nest->keys : 0;
		p->good = true;
		p->poison = PP_NONE;
		p->dup = false;
	}
}

static void build_body(struct msg *m, const struct plan *p)
{
	unsigned int nests = p->anchor == A_NO_NEST ? 0 : p->dup ? 2 : 1;
	/* where a top-level poison goes, which object nest gets one */
	unsigned int i, pos = rnd_below(nests + 1), which = rnd_below(nests);
	bool top_inline = poison_at_top(p->poison) && !poison_last(p->poison);
	bool in_nest = p->poison && !poison_at_top(p->poison);

	/* PP_TOP_NOFLAG takes an object nest's flag if there is one */
	if (p->poison == PP_TOP_NOFLAG && nests) {
		top_inline = false;
		in_nest = true;
	}
	/* before the object nests: the last one, with its anchor, counts */
	if (p->poison == PP_NEST_GARBAGE)
		put_attr_random(m, p->nest->type | NLA_F_NESTED,
				1 + rnd_below(512));
	for (i = 0; i <= nests; i++) {
		if (top_inline && i == pos)
			put_top_poison(m, p);
		if (i < nests)
			put_object_nest(m, p, in_nest && i == which);
	}
	if (poison_last(p->poison) && poison_at_top(p->poison))
		put_top_poison(m, p);
}

static uint16_t bad_nlmsg_flags(bool dump)
{
	static const uint16_t bad[] = {
		NLM_F_MULTI, NLM_F_DUMP_INTR, NLM_F_DUMP_FILTERED, 0x40, 0x80,
		0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000,
	};
	uint16_t f = bad[rnd_below(ARRAY_SIZE(bad))];

	if (chance(30))
		f |= bad[rnd_below(ARRAY_SIZE(bad))];
	/* half a dump is ambiguous too */
	if (!dump && chance(30))
		f = chance(50) ? NLM_F_ROOT : NLM_F_MATCH;
	return f;
}

/* genl_header_check() of 6.1: reserved bits and odd nlmsg_flags refused */
static bool header_refused(uint16_t flags, uint16_t reserved)
{
	if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
		flags &= ~NLM_F_DUMP;
	return reserved || (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO));
}

/**
 * gen_message() - build one invalid request
 * @m: filled in
 * @family: the family id
 * @seq: nlmsg_seq
 * @cmd: genl command
 * @dump: NLM_F_DUMP
 * @gen: GEN_* flags
 */
static void gen_message(struct msg *m, uint16_t family, uint32_t seq,
			uint8_t cmd, bool dump, unsigned int gen)
{
	enum hdr_mutation hm = H_NONE;
	struct genlmsghdr g = { 0 };
	struct nlmsghdr h = { 0 };
	struct plan p;
	size_t cut;
	unsigned int i;

	do {
		memset(m, 0, sizeof(*m));
		m->len = BODY_OFF;
		plan_message(&p, cmd, dump, gen);
		build_body(m, &p);
	} while (m->overflow);

	m->cmd = cmd;
	m->dump = dump;
	m->version = chance(90) ? RMEM_FAMILY_VERSION : rnd();
	m->flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0) |
		   (chance(5) ? NLM_F_ECHO : 0);

	note(m, "anchor ", anchor_name[p.anchor]);
	if (p.poison)
		note(m, ", poison ", poison_name[p.poison]);
	if (p.dup)
		note(m, ", object nest twice", "");
	if (p.good)
		note(m, ", plausible filler", "");

	if (!p.op)
		m->label = "unknown-command";
	else if (dump ? !p.op->dumpit : !p.op->doit)
		m->label = dump ? "dump-without-dumpit" : "doit-without-doit";
	else if (p.poison)
		m->label = poison_name[p.poison];
	else
		m->label = anchor_name[p.anchor];

	/* cut inside a top-level attribute: its nla_len runs past the end */
	if (m->ntop && !(gen & GEN_PLAUSIBLE) && chance(8)) {
		i = rnd_below(m->ntop);
		cut = m->top_off[i] + 1 + rnd_below(m->top_len[i] - 1);
		m->len = BODY_OFF + cut;
		note(m, ", cut inside an attribute", "");
		if (p.op && (dump ? p.op->dumpit : p.op->doit))
			m->label = "cut-inside-attribute";
	}
	if (!(gen & (GEN_HDR_OK | GEN_PLAUSIBLE)) && chance(12))
		hm = H_TRUNC + rnd_below(3);
	switch (hm) {
	case H_TRUNC:
		m->len = NLMSG_HDRLEN + rnd_below(GENL_HDRLEN);
		note(m, ", genl header cut", "");
		m->label = "short-genl-header";
		break;
	case H_RESERVED:
		m->reserved = 1 + rnd_below(0xffff);
		note(m, ", genl reserved set", "");
		m->label = "genl-reserved-set";
		break;
	case H_FLAGS:
		m->flags |= bad_nlmsg_flags(dump);
		note(m, ", bad nlmsg_flags", "");
		m->label = "bad-nlmsg-flags";
		break;
	default:
		break;
	}

	h.nlmsg_len = m->len;
	h.nlmsg_type = family;
	h.nlmsg_flags = m->flags;
	h.nlmsg_seq = seq;
	g.cmd = cmd;
	g.version = m->version;
	g.reserved = m->reserved;
	memcpy(m->buf, &h, sizeof(h));
	memcpy(m->buf + NLMSG_HDRLEN, &g, sizeof(g));
}

/*
 * core_refusal() - refusals without an extack message that are accepted
 * @m: the request
 * @err: the errno the core answers with
 *
 * These are refused by the genetlink core of Linux 6.1
 * (genl_family_rcv_msg() and its doit/dumpit helpers) before rmem, or its
 * policy, sees the message, and the core sets no extack message for them.
 * rmem cannot add one.  Everything else must carry a message: the core's
 * header check (genl_header_check()) and its policy validation
 * (__nla_validate_parse()) set one, and so does every check in rmem.
 *
 * Return: a description, or NULL if the refusal must carry a message.
 */
static const char *core_refusal(const struct msg *m, int *err)
{
	const struct op *op = op_find(m->cmd);

	/* nlmsg_len < nlmsg_msg_size(GENL_HDRLEN): "return -EINVAL;" */
	if (m->len < BODY_OFF) {
		*err = -EINVAL;
		return "genl header cut";
	}
	/* genl_header_check() comes next, and it does set a message */
	if (header_refused(m->flags, m->reserved))
		return NULL;
	/* genl_get_cmd() fails: "return -EOPNOTSUPP;" */
	if (!op) {
		*err = -EOPNOTSUPP;
		return "command rmem does not have";
	}
	/* no ops->dumpit / ops->doit for this request: "return -EOPNOTSUPP;" */
	if (m->dump ? !op->dumpit : !op->doit) {
		*err = -EOPNOTSUPP;
		return m->dump ? "dump of a command without dumpit" :
				 "request of a dump-only command";
	}
	return NULL;
}

/* ---- socket ------------------------------------------------------------- */

static struct mnl_socket *nl_open(void)
{
	struct timeval tv = { .tv_sec = REPLY_TIMEOUT_S };
	struct mnl_socket *nl;
	int one = 1;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl) {
		printf("# socket: %s\n", strerror(errno));
		return NULL;
	}
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
	    mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 ||
	    setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		       sizeof(tv)) < 0) {
		printf("# socket setup: %s\n", strerror(errno));
		mnl_socket_close(nl);
		return NULL;
	}
	return nl;
}

/**
 * struct reply - what the kernel answered to one request
 * @error: errno of NLMSG_ERROR or NLMSG_DONE (0 or negative)
 * @done: the answer ended with NLMSG_DONE (a dump)
 * @ndata: other messages (objects)
 * @has_msg: NLMSGERR_ATTR_MSG present
 * @msg: its text
 * @family_id: CTRL_ATTR_FAMILY_ID of a nlctrl reply
 */
struct reply {
	int error;
	bool done;
	unsigned int ndata;
	bool has_msg;
	char msg[128];
	uint16_t family_id;
};

static void parse_tlvs(const struct nlmsghdr *nlh, size_t offset,
		       struct reply *r)
{
	const struct nlattr *a;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(a, nlh, offset) {
		if (mnl_attr_get_type(a) != NLMSGERR_ATTR_MSG ||
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			continue;
		r->has_msg = true;
		snprintf(r->msg, sizeof(r->msg), "%s", mnl_attr_get_str(a));
	}
}

static void parse_ctrl(const struct nlmsghdr *nlh, struct reply *r)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			r->family_id = mnl_attr_get_u16(a);
}

/**
 * await_reply() - read the answer to request @seq
 * @nl: socket
 * @seq: its nlmsg_seq; answers to others are skipped
 * @r: filled in
 *
 * Return: 0, -EAGAIN if nothing came within the timeout, -EPROTO if the
 * answer is malformed, or another -errno of recv().
 */
static int await_reply(struct mnl_socket *nl, uint32_t seq, struct reply *r)
{
	static char buf[65536] __aligned(8);
	const struct nlmsghdr *nlh;
	const struct nlmsgerr *e;
	size_t off;
	int len;

	memset(r, 0, sizeof(*r));
	for (;;) {
		len = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (len < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		for (nlh = (void *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
					return -EPROTO;
				e = mnl_nlmsg_get_payload(nlh);
				r->error = e->error;
				off = sizeof(*e);
				if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len - NLMSG_HDRLEN;
				parse_tlvs(nlh, off, r);
				return 0;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				r->done = true;
				if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					memcpy(&r->error,
					       mnl_nlmsg_get_payload(nlh),
					       sizeof(int));
				parse_tlvs(nlh, sizeof(int), r);
				return 0;
			}
			r->ndata++;
			if (nlh->nlmsg_type == GENL_ID_CTRL)
				parse_ctrl(nlh, r);
		}
	}
}

static uint32_t next_seq;

static int transact(struct mnl_socket *nl, const void *req, size_t len,
		    uint32_t seq, struct reply *r)
{
	memset(r, 0, sizeof(*r));
	if (mnl_socket_sendto(nl, req, len) < 0)
		return -errno;
	return await_reply(nl, seq, r);
}

/* A well-formed request, for the family lookup and the dumps. */
static size_t simple_request(char *buf, uint16_t type, uint8_t cmd,
			     uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = type == GENL_ID_CTRL ? 1 : RMEM_FAMILY_VERSION;
	if (type == GENL_ID_CTRL)
		mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, RMEM_FAMILY_NAME);
	return nlh->nlmsg_len;
}

static int resolve_family(struct mnl_socket *nl, uint16_t *family)
{
	char buf[256] __aligned(4);
	uint32_t seq = ++next_seq;
	struct reply r;
	size_t len;
	int ret;

	len = simple_request(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, seq);
	ret = transact(nl, buf, len, seq, &r);
	if (ret || r.error || !r.family_id) {
		printf("# family %s not found (%s): is rmem.ko loaded?\n",
		       RMEM_FAMILY_NAME, strerror(-(ret ?: r.error ?: -ENOENT)));
		return -1;
	}
	*family = r.family_id;
	return 0;
}

/* Servers, devices and volumes there are: -1 if they cannot be listed. */
static int count_objects(struct mnl_socket *nl, uint16_t family, bool print)
{
	static const struct {
		uint8_t cmd;
		const char *what;
	} lists[] = {
		{ RMEM_CMD_SERVER_GET, "servers" },
		{ RMEM_CMD_DEV_GET, "devices" },
		{ RMEM_CMD_VOLUME_GET, "volumes" },
	};
	char buf[64] __aligned(4);
	unsigned int i, total = 0;
	struct reply r;
	uint32_t seq;
	size_t len;
	int ret;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		seq = ++next_seq;
		len = simple_request(buf, family, lists[i].cmd, NLM_F_DUMP, seq);
		ret = transact(nl, buf, len, seq, &r);
		if (ret || r.error) {
			printf("# dump of %s failed: %s\n", lists[i].what,
			       strerror(-(ret ?: r.error)));
			return -1;
		}
		if (print || r.ndata)
			printf("# %u %s exist\n", r.ndata, lists[i].what);
		total += r.ndata;
	}
	return total;
}

/* ---- results ------------------------------------------------------------ */

struct tally {
	const char *name;
	unsigned int sent, msg, core, fail;
};

static struct tally cmd_tally[NR_CMDS];
static char cmd_names[NR_CMDS][24];
static struct tally cat_tally[64];
static unsigned int nr_cats;

static struct {
	char text[sizeof(((struct reply *)0)->msg)];
	unsigned int count;
} seen[48];
static unsigned int nr_seen, seen_other;

static unsigned int nr_sent, nr_msg, nr_core, nr_fail, nr_hangs;
static bool verbose;

static struct tally *cat_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_cats; i++)
		if (!strcmp(cat_tally[i].name, name))
			return &cat_tally[i];
	if (nr_cats == ARRAY_SIZE(cat_tally))
		return &cat_tally[nr_cats - 1];
	cat_tally[nr_cats].name = name;
	return &cat_tally[nr_cats++];
}

static void seen_add(const char *text)
{
	unsigned int i;

	for (i = 0; i < nr_seen; i++) {
		if (!strcmp(seen[i].text, text)) {
			seen[i].count++;
			return;
		}
	}
	if (nr_seen == ARRAY_SIZE(seen)) {
		seen_other++;
		return;
	}
	snprintf(seen[nr_seen].text, sizeof(seen[nr_seen].text), "%s", text);
	seen[nr_seen++].count = 1;
}

static void hexdump(const uint8_t *p, size_t len)
{
	size_t i, n = len > 512 ? 512 : len;

	for (i = 0; i < n; i++) {
		if (i % 16 == 0)
			printf("#   %04zx:", i);
		printf(" %02x", p[i]);
		if (i % 16 == 15 || i == n - 1)
			printf("\n");
	}
	if (n < len)
		printf("#   ... %zu bytes in all\n", len);
}

static void report_failure(unsigned int idx, const struct msg *m,
			   const char *why)
{
	nr_fail++;
	if (nr_fail > MAX_EXAMPLES) {
		if (nr_fail == MAX_EXAMPLES + 1)
			printf("# (further failures are only counted)\n");
		return;
	}
	printf("# FAIL: message %u, cmd %u (%s), %s, nlmsg_flags 0x%x, %zu bytes: %s\n",
	       idx, m->cmd, cmd_name(m->cmd), m->dump ? "dump" : "doit",
	       m->flags, m->len, why);
	printf("#   made by: %s\n", m->what);
	hexdump(m->buf, m->len);
}

enum verdict { V_MSG, V_CORE, V_FAIL };

static enum verdict classify(unsigned int idx, const struct msg *m, int ret,
			     const struct reply *r)
{
	const char *exc;
	char why[256];
	int want = 0;

	if (ret == -EAGAIN) {
		snprintf(why, sizeof(why), "no reply within %u s (hang)",
			 REPLY_TIMEOUT_S);
		report_failure(idx, m, why);
		return V_FAIL;
	}
	if (ret) {
		snprintf(why, sizeof(why), "socket error: %s", strerror(-ret));
		report_failure(idx, m, why);
		return V_FAIL;
	}
	if (r->error >= 0) {
		snprintf(why, sizeof(why),
			 "accepted (%s, error %d, %u objects returned)",
			 r->done ? "NLMSG_DONE" : "ACK", r->error, r->ndata);
		report_failure(idx, m, why);
		return V_FAIL;
	}
	if (r->has_msg) {
		seen_add(r->msg);
		return V_MSG;
	}
	exc = core_refusal(m, &want);
	if (exc && r->error == want && !r->done)
		return V_CORE;
	snprintf(why, sizeof(why), "error %d (%s) without an extack message%s%s",
		 r->error, strerror(-r->error),
		 exc ? "; expected from the core: " : "", exc ? exc : "");
	report_failure(idx, m, why);
	return V_FAIL;
}

static void count(const struct msg *m, enum verdict v)
{
	struct tally *t[2] = { &cmd_tally[m->cmd], cat_find(m->label) };
	unsigned int i;

	nr_sent++;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		t[i]->sent++;
		t[i]->msg += v == V_MSG;
		t[i]->core += v == V_CORE;
		t[i]->fail += v == V_FAIL;
	}
	nr_msg += v == V_MSG;
	nr_core += v == V_CORE;
}

static void print_tally(const struct tally *t)
{
	printf("#   %-30s %5u sent, %5u with message, %4u core, %3u failed\n",
	       t->name, t->sent, t->msg, t->core, t->fail);
}

static void print_results(void)
{
	unsigned int i;

	printf("# by command:\n");
	for (i = 0; i < NR_CMDS; i++)
		if (cmd_tally[i].sent)
			print_tally(&cmd_tally[i]);
	printf("# by category:\n");
	for (i = 0; i < nr_cats; i++)
		print_tally(&cat_tally[i]);
	printf("# extack messages seen:\n");
	for (i = 0; i < nr_seen; i++)
		printf("#   %5u \"%s\"\n", seen[i].count, seen[i].text);
	if (seen_other)
		printf("#   %5u others\n", seen_other);
}

/* ---- runs --------------------------------------------------------------- */

/*
 * The command of message @i: in turn, every command rmem has eight times
 * as often as each number it does not have (those only reach the core).
 */
static uint8_t schedule(unsigned int i)
{
	static uint8_t sched[NR_CMDS * 8];
	static unsigned int n;
	unsigned int c, k;

	if (!n)
		for (c = 0; c < NR_CMDS; c++)
			for (k = op_find(c) ? 8 : 1; k; k--)
				sched[n++] = c;
	return sched[i % n];
}

/* Mostly the request type the command has a handler for. */
static bool pick_dump(uint8_t cmd)
{
	const struct op *op = op_find(cmd);

	if (!op)
		return chance(30);
	if (!op->doit)
		return chance(85);
	return chance(op->dumpit ? 40 : 5);
}

static int fuzz(uint16_t family, unsigned int count_msgs)
{
	static struct msg m;
	struct mnl_socket *nl;
	enum verdict v;
	struct reply r;
	unsigned int i;
	uint32_t seq;
	uint8_t cmd;
	int ret;

	for (i = 0; i < NR_CMDS; i++) {
		snprintf(cmd_names[i], sizeof(cmd_names[i]), "%u %s", i,
			 cmd_name(i));
		cmd_tally[i].name = cmd_names[i];
	}
	nl = nl_open();
	if (!nl)
		return -1;
	for (i = 0; i < count_msgs; i++) {
		cmd = schedule(i);
		seq = ++next_seq;
		gen_message(&m, family, seq, cmd, pick_dump(cmd), 0);
		ret = transact(nl, m.buf, m.len, seq, &r);
		v = classify(i, &m, ret, &r);
		count(&m, v);
		if (verbose)
			printf("# %u: %s %s %s: %d %s\n", i, cmd_name(cmd),
			       m.dump ? "dump" : "doit", m.label, r.error,
			       r.has_msg ? r.msg : "(no message)");
		if (ret) {
			/* start afresh: a late answer must not confuse */
			mnl_socket_close(nl);
			nl = nl_open();
			if (!nl)
				return -1;
			if (ret == -EAGAIN && ++nr_hangs == MAX_HANGS) {
				printf("# %u hangs: giving up\n", nr_hangs);
				break;
			}
		}
	}
	mnl_socket_close(nl);
	return 0;
}

static int drop_privileges(void)
{
	if (geteuid() != 0) {
		printf("# -u: not root, staying uid %u\n", geteuid());
		return 0;
	}
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY)) {
		printf("# dropping privileges: %s\n", strerror(errno));
		return -1;
	}
	if (getuid() != NOBODY || geteuid() != NOBODY || !setuid(0)) {
		printf("# privileges not dropped\n");
		return -1;
	}
	printf("# running as uid %u gid %u\n", getuid(), getgid());
	return 0;
}

/* Mutating requests without CAP_NET_ADMIN: -EPERM, nothing else. */
static int eperm_run(uint16_t family)
{
	static struct msg m;
	struct mnl_socket *nl;
	unsigned int i, k, idx = 0, eperm = 0;
	struct reply r;
	char why[160];
	uint32_t seq;
	int ret;

	nl = nl_open();
	if (!nl)
		return -1;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!ops[i].admin)
			continue;
		for (k = 0; k < 4; k++, idx++) {
			seq = ++next_seq;
			/* the first: plain doit, a plausible request */
			gen_message(&m, family, seq, ops[i].cmd,
				    k && chance(20),
				    k ? GEN_HDR_OK : GEN_PLAUSIBLE);
			ret = transact(nl, m.buf, m.len, seq, &r);
			nr_sent++;
			if (!ret && r.error == -EPERM) {
				eperm++;
				continue;
			}
			if (ret)
				snprintf(why, sizeof(why), "%s", strerror(-ret));
			else
				snprintf(why, sizeof(why),
					 "error %d (%s), want -EPERM%s%s",
					 r.error, strerror(-r.error),
					 r.has_msg ? ": " : "",
					 r.has_msg ? r.msg : "");
			report_failure(idx, &m, why);
			if (ret) {
				mnl_socket_close(nl);
				nl = nl_open();
				if (!nl)
					return -1;
			}
		}
	}
	mnl_socket_close(nl);
	printf("# unprivileged: %u mutating requests, %u refused with -EPERM, %u failures\n",
	       nr_sent, eperm, nr_fail);
	return 0;
}

static void print_usage(const char *argv0, int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s [-n MESSAGES] [-s SEED] [-u] [-v]\n"
		"  -n  messages to send (default 4000)\n"
		"  -s  PRNG seed (default: from the time); the same seed sends\n"
		"      the same messages\n"
		"  -u  drop to uid 65534, expect -EPERM for mutating requests\n"
		"  -v  one line per message\n", argv0);
	exit(status);
}

int main(int argc, char **argv)
{
	unsigned long long seed = (unsigned long long)time(NULL) ^
				  ((unsigned long long)getpid() << 32);
	unsigned long n = 4000;
	bool unpriv = false;
	struct mnl_socket *nl;
	uint16_t family;
	char *end;
	int c, objs;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "n:s:uvh")) != -1) {
		switch (c) {
		case 'n':
			errno = 0;
			n = strtoul(optarg, &end, 0);
			if (errno || *end || !n || n > 100000000)
				print_usage(argv[0], 1);
			break;
		case 's':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end)
				print_usage(argv[0], 1);
			break;
		case 'u':
			unpriv = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			print_usage(argv[0], 0);
			break;
		default:
			print_usage(argv[0], 1);
		}
	}
	rng_state = seed;
	next_seq = seed;	/* no two runs answer each other's seqs */

	if (unpriv) {
		if (drop_privileges())
			return 1;
	} else if (geteuid() != 0) {
		printf("# SKIP: fuzzing needs CAP_NET_ADMIN: run as root\n");
		return KSFT_SKIP;
	}

	nl = nl_open();
	if (!nl)
		return 1;
	if (resolve_family(nl, &family)) {
		mnl_socket_close(nl);
		return 1;
	}
	printf("# family %s id %u, seed %llu\n", RMEM_FAMILY_NAME, family, seed);
	objs = count_objects(nl, family, false);
	if (objs) {
		printf("# %s: not fuzzing a system with rmem objects\n",
		       objs < 0 ? "cannot list objects" : "objects exist");
		mnl_socket_close(nl);
		return objs < 0 ? 1 : KSFT_SKIP;
	}

	if (unpriv) {
		if (eperm_run(family))
			nr_fail++;
	} else {
		if (fuzz(family, n))
			nr_fail++;
	}

	/* safety net: nothing may have been created */
	objs = count_objects(nl, family, true);
	if (objs) {
		printf("# FAIL: %s after fuzzing\n", objs < 0 ?
		       "objects cannot be listed" : "objects exist");
		nr_fail++;
	}
	mnl_socket_close(nl);

	if (unpriv) {
		printf("# fuzz -u: %u messages, %u failures, seed %llu\n",
		       nr_sent, nr_fail, seed);
	} else {
		print_results();
		printf("# fuzz: %u messages, %u refused with an extack message, %u refused by the netlink core without one (accepted), %u failures, seed %llu\n",
		       nr_sent, nr_msg, nr_core, nr_fail, seed);
	}
	return nr_fail ? 1 : 0;
}
