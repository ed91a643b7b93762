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
 * The parts: model.c (the PRNG, what the kernel accepts), build.c (the
 * message builder, values), mutate.c (policy poisons, anchors), request.c
 * (one request: plan_message(), gen_message(), core_refusal()) and this
 * file (socket, results, runs); fuzz.h declares what they share.
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

#include "fuzz.h"

#define KSFT_SKIP		4
#define REPLY_TIMEOUT_S		5
#define MAX_HANGS		10	/* stop the run after this many */
#define MAX_EXAMPLES		5	/* failures printed in full */
#define NOBODY			65534

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

/*
 * Mutating requests without CAP_NET_ADMIN: -EPERM, nothing else (but for
 * a dump of a command that has none: no such operation).
 */
static int eperm_run(uint16_t family)
{
	static struct msg m;
	struct mnl_socket *nl;
	unsigned int i, k, idx = 0, eperm = 0, noop = 0;
	struct reply r;
	char why[160];
	uint32_t seq;
	int ret;

	nl = nl_open();
	if (!nl)
		return -1;
	for (i = 0; i < nr_ops; i++) {
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
			/*
			 * A dump of a command that has no dumpit is no
			 * operation at all: since Linux 6.2 (split ops) the
			 * genetlink core refuses it as such before it looks at
			 * permissions; 6.1 said -EPERM first.
			 */
			if (!ret && m.dump && !ops[i].dumpit &&
			    r.error == -EOPNOTSUPP) {
				noop++;
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
	printf("# unprivileged: %u mutating requests, %u refused with -EPERM, %u dumps of a do-only command refused with -EOPNOTSUPP, %u failures\n",
	       nr_sent, eperm, noop, nr_fail);
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
