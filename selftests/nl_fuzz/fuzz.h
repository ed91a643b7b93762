/* SPDX-License-Identifier: GPL-2.0 */
/* Netlink fuzzer: declarations its parts share (see main.c). */
#ifndef RMEM_NL_FUZZ_H
#define RMEM_NL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rmem.h>

#define MSG_BUF			16384
#define MAX_TOP			64	/* top-level attributes remembered */
#define BODY_OFF		(NLMSG_HDRLEN + GENL_HDRLEN)
#define TYPE_MAX		0x3fff	/* nla_type without its two flags */
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BIT(n)			(1U << (n))
#define __aligned(x)		__attribute__((aligned(x)))

/* ---- PRNG (model.c) ----------------------------------------------------- */

extern uint64_t rng_state;

uint64_t rnd(void);
uint32_t rnd_below(uint32_t n);
bool chance(unsigned int percent);

/* ---- what the kernel accepts (model.c) ---------------------------------- */

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
	K_LSTR,		/* NLA_NUL_STRING, .len 63 or more */
	K_BIN32,	/* NLA_POLICY_EXACT_LEN(32): a key */
	K_AUTH,		/* NLA_POLICY_RANGE(NLA_U32, 1, 3) */
};

#define K_INTS		(BIT(K_U8) | BIT(K_U16) | BIT(K_U32) | BIT(K_U64) | \
			 BIT(K_AUTH))
#define K_BINS		(BIT(K_BIN4) | BIT(K_BIN16) | BIT(K_BIN32))
#define K_LEAVES	(K_INTS | K_BINS | BIT(K_STR) | BIT(K_LSTR) | \
			 BIT(K_FLAG))

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

extern const struct nest nest_server, nest_dev, nest_volume, nest_host,
	nest_prefix;
extern const struct nest *const top_nest[RMEM_A_MAX + 1];

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

extern const struct op ops[];
extern const unsigned int nr_ops;	/* entries of ops[] */

/* Commands fuzzed: every rmem_cmd (UNSPEC and the notification included)
 * and five numbers past the last.
 */
#define NR_CMDS			(RMEM_CMD_MAX + 6)

const struct op *op_find(uint8_t cmd);
const char *cmd_name(uint8_t cmd);
bool pool_size_ok(uint64_t v);
bool mr_size_ok(uint64_t v);
bool dev_size_ok(uint64_t v);

/* ---- message builder and values (build.c) ------------------------------- */

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

void note(struct msg *m, const char *a, const char *b);
void put_random(struct msg *m, size_t n);
void put_hdr(struct msg *m, uint16_t nla_len, uint16_t type);
size_t attr_begin(struct msg *m, uint16_t type);
void attr_end(struct msg *m, size_t off);
void put_attr(struct msg *m, uint16_t type, const void *data, size_t n);
void put_attr_random(struct msg *m, uint16_t type, size_t n);
void put_u8(struct msg *m, uint16_t type, uint8_t v);
void put_u16(struct msg *m, uint16_t type, uint16_t v);
void put_u32(struct msg *m, uint16_t type, uint32_t v);
void put_u64(struct msg *m, uint16_t type, uint64_t v);
uint64_t pick_u64(void);
uint8_t pick_u8(void);
void put_ipv4(struct msg *m, uint16_t type);
void put_ipv6(struct msg *m, uint16_t type);
void rand_name(char *s, size_t n);
void put_empty_str(struct msg *m, uint16_t type);
void put_valid_prefix(struct msg *m, uint16_t type, bool sane);
void put_valid(struct msg *m, const struct nest *n, uint16_t type);
void put_sane(struct msg *m, const struct nest *n, uint16_t type);
void put_deep(struct msg *m, unsigned int depth);
void put_junk_payload(struct msg *m);
uint16_t rand_nla_flags(void);
uint16_t unknown_type(uint16_t max);
uint16_t type_of_kind(const struct nest *n, uint32_t kinds, uint32_t excl);
unsigned int kind_len(enum kind k);

/* ---- policy poisons and anchors (mutate.c) ------------------------------ */

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

extern const char *const poison_name[NR_POISONS];

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
	A_D_READ_SPLIT,		/* not 0 nor a power of two 64K .. 1M */
	A_D_READ_DEPTH,		/* 0, > 16 */
	/* the others: no object has an empty name */
	A_K_NO_KEY,
	A_K_EMPTY_KEY,
	NR_ANCHORS,
};

extern const char *const anchor_name[NR_ANCHORS];

bool poison_at_top(enum poison pp);
bool poison_last(enum poison pp);
bool poison_fits_nest(enum poison pp, const struct nest *n, uint32_t excl);
void put_garbage(struct msg *m, uint16_t bad_type);
void put_bad_len(struct msg *m);
void put_nest_poison(struct msg *m, const struct nest *n,
		     enum poison pp, uint32_t excl);
enum anchor pick_anchor(enum role role);
uint32_t anchor_excludes(enum anchor a);
void put_anchor(struct msg *m, const struct nest *n, enum anchor a);

/* ---- one request (request.c) -------------------------------------------- */

/* gen_message() flags */
#define GEN_HDR_OK	BIT(0)	/* no genl header mutation */
#define GEN_PLAUSIBLE	BIT(1)	/* only the anchor wrong, nothing else */

void gen_message(struct msg *m, uint16_t family, uint32_t seq,
		 uint8_t cmd, bool dump, unsigned int gen);
const char *core_refusal(const struct msg *m, int *err);

#endif /* RMEM_NL_FUZZ_H */
