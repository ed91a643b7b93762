// SPDX-License-Identifier: GPL-2.0
/* Netlink fuzzer: its PRNG, and what the kernel accepts (kernel/netlink.c). */
#include "fuzz.h"

/*
 * The generator mirrors the kernel's per-command policies (kernel/netlink.c)
 * and command table; a new command or attribute must be taught to it.
 */
_Static_assert(RMEM_CMD_MAX == RMEM_CMD_DEV_PEER_ADD, "new rmem command");
_Static_assert(RMEM_A_MAX == RMEM_A_HOST, "new top-level attribute");
_Static_assert(RMEM_A_SERVER_MAX == RMEM_A_SERVER_HANDSHAKES, "new server attribute");
_Static_assert(RMEM_A_DEV_MAX == RMEM_A_DEV_RESYNC_TOTAL, "new device attribute");
_Static_assert(RMEM_A_VOLUME_MAX == RMEM_A_VOLUME_OWNER_AUTH, "new volume attribute");
_Static_assert(RMEM_A_HOST_MAX == RMEM_A_HOST_PAD, "new host attribute");
_Static_assert(RMEM_A_PREFIX_MAX == RMEM_A_PREFIX_LEN, "new prefix attribute");

/* ---- PRNG (splitmix64): a seed replays a run exactly -------------------- */

uint64_t rng_state;

uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 0 .. n - 1 */
uint32_t rnd_below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

bool chance(unsigned int percent)
{
	return rnd_below(100) < percent;
}

/* ---- what the kernel accepts (mirror of kernel/netlink.c) --------------- */

static const uint8_t server_kind[RMEM_A_SERVER_MAX + 1] = {
	[RMEM_A_SERVER_NAME] = K_STR,
	[RMEM_A_SERVER_LISTEN_IPV4] = K_BIN4,
	[RMEM_A_SERVER_LISTEN_IPV6] = K_BIN16,
	[RMEM_A_SERVER_LISTEN_PORT] = K_U16,
	[RMEM_A_SERVER_POOL_SIZE] = K_U64,
	[RMEM_A_SERVER_MR_SIZE] = K_U64,
	[RMEM_A_SERVER_ALLOW] = K_PREFIX,
	[RMEM_A_SERVER_AUTH] = K_AUTH,
};

/* RMEM_A_DEV_PEER, _EXTENT, _REPLICAS: not generated (the anchor refuses anyway) */
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
	[RMEM_A_DEV_READ_SPLIT] = K_U32,
	[RMEM_A_DEV_READ_DEPTH] = K_U32,
	[RMEM_A_DEV_FORCE] = K_FLAG,
	[RMEM_A_DEV_HOST_ID] = K_LSTR,
	[RMEM_A_DEV_KEY] = K_BIN32,
	[RMEM_A_DEV_KEY_DESC] = K_LSTR,
};

static const uint8_t volume_kind[RMEM_A_VOLUME_MAX + 1] = {
	[RMEM_A_VOLUME_SERVER] = K_STR,
	[RMEM_A_VOLUME_NAME] = K_STR,
};

static const uint8_t host_kind[RMEM_A_HOST_MAX + 1] = {
	[RMEM_A_HOST_SERVER] = K_STR,
	[RMEM_A_HOST_ID] = K_LSTR,
	[RMEM_A_HOST_KEY] = K_BIN32,
	[RMEM_A_HOST_KEY_DESC] = K_LSTR,
	[RMEM_A_HOST_SIZE_LIMIT] = K_U64,
	[RMEM_A_HOST_SESSIONS_MAX] = K_U32,
	[RMEM_A_HOST_FORCE] = K_FLAG,
};

static const uint8_t prefix_kind[RMEM_A_PREFIX_MAX + 1] = {
	[RMEM_A_PREFIX_IPV4] = K_BIN4,
	[RMEM_A_PREFIX_IPV6] = K_BIN16,
	[RMEM_A_PREFIX_LEN] = K_U8,
};

const struct nest nest_server = {
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

const struct nest nest_dev = {
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

const struct nest nest_volume = {
	.name = "volume",
	.type = RMEM_A_VOLUME,
	.max = RMEM_A_VOLUME_MAX,
	.kind = volume_kind,
	.keys = BIT(RMEM_A_VOLUME_SERVER) | BIT(RMEM_A_VOLUME_NAME),
};

const struct nest nest_host = {
	.name = "host",
	.type = RMEM_A_HOST,
	.max = RMEM_A_HOST_MAX,
	.kind = host_kind,
	.keys = BIT(RMEM_A_HOST_SERVER) | BIT(RMEM_A_HOST_ID),
};

const struct nest nest_prefix = {
	.name = "prefix",
	.max = RMEM_A_PREFIX_MAX,
	.kind = prefix_kind,
	.v4 = RMEM_A_PREFIX_IPV4,
	.v6 = RMEM_A_PREFIX_IPV6,
};

const struct nest *const top_nest[RMEM_A_MAX + 1] = {
	[RMEM_A_SERVER] = &nest_server,
	[RMEM_A_DEV] = &nest_dev,
	[RMEM_A_VOLUME] = &nest_volume,
	[RMEM_A_HOST] = &nest_host,
};

const struct op ops[] = {
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
	{ RMEM_CMD_HOST_ADD, "host-add", RMEM_A_HOST, true, false, true,
	  ROLE_KEYED },
	{ RMEM_CMD_HOST_DEL, "host-del", RMEM_A_HOST, true, false, true,
	  ROLE_KEYED },
	{ RMEM_CMD_DEV_STATS_RESET, "dev-stats-reset", RMEM_A_DEV, true, false,
	  true, ROLE_KEYED },
	{ RMEM_CMD_DEV_PEER_DEL, "dev-peer-del", RMEM_A_DEV, true, false,
	  true, ROLE_KEYED },
	{ RMEM_CMD_DEV_PEER_ADD, "dev-peer-add", RMEM_A_DEV, true, false,
	  true, ROLE_KEYED },
};

const unsigned int nr_ops = ARRAY_SIZE(ops);

const struct op *op_find(uint8_t cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++)
		if (ops[i].cmd == cmd)
			return &ops[i];
	return NULL;
}

const char *cmd_name(uint8_t cmd)
{
	const struct op *op = op_find(cmd);

	if (op)
		return op->name;
	if (cmd == RMEM_CMD_UNSPEC)
		return "unspec";
	if (cmd == RMEM_CMD_DEV_STATE_NTF)
		return "dev-state-ntf";
	if (cmd == RMEM_CMD_DEV_NOSPC_NTF)
		return "dev-nospc-ntf";
	if (cmd == RMEM_CMD_DEV_RESYNC_NTF)
		return "dev-resync-ntf";
	return "past-max";
}

/* Mirrors of the range checks of netlink.c, to make sure a value is bad. */
bool pool_size_ok(uint64_t v)
{
	return v >= 4096 && v <= 1ULL << 40;
}

bool mr_size_ok(uint64_t v)
{
	return v && !(v & (v - 1)) && v >= 4096 && v <= 1ULL << 30;
}

bool dev_size_ok(uint64_t v)
{
	return v >= 4096 && !(v & 4095) && v <= 1ULL << 40;
}
