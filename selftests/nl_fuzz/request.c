// SPDX-License-Identifier: GPL-2.0
/* Netlink fuzzer: one request, planned, built and judged. */
#include <errno.h>
#include <string.h>

#include "fuzz.h"

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
void gen_message(struct msg *m, uint16_t family, uint32_t seq,
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
const char *core_refusal(const struct msg *m, int *err)
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
