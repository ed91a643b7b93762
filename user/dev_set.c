// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl dev set: change a running device.
 *
 *   rmemctl dev set DEV peer add ADDR[:PORT] [ key-file FILE | key-desc DESC ]
 *   rmemctl dev set DEV peer del ADDR[:PORT] [ nowait ]
 *
 * adds a server to a device attached over several (RMEM_CMD_DEV_PEER_ADD):
 * the kernel answers once it is live there; new extents and resyncs may
 * go there from then on.  A device attached with a key needs one for the
 * new server too (the kernel looks for rmem:ADDR in the keyrings if none
 * is given).
 *
 * peer del drains one server out of the device (RMEM_CMD_DEV_PEER_DEL):
 * the kernel moves its extents to the other servers in the background,
 * then disconnects from it.  Without nowait rmemctl waits for that, printing
 * how many extents the server still holds as it goes, and fails if the
 * count stops going down for DRAIN_STALL_S seconds (the drain goes on in
 * the kernel; "dev show" follows it) or the server or device goes.
 */
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/rmem.h>

#include "json_print.h"
#include "key.h"
#include "nl.h"
#include "rmemctl.h"
#include "utils.h"

#define DRAIN_STALL_S	300

/* What a DEV_GET reply says of the server being drained. */
struct drain_peer {
	const struct inet_addr *want;
	bool any_port;
	bool found;
	bool draining;
	uint32_t state;
	uint32_t held;
};

static bool same_peer(const struct inet_addr *a, const struct inet_addr *b,
		      bool any_port)
{
	return a->family == b->family &&
	       !memcmp(a->addr, b->addr, inet_addr_len(a->family)) &&
	       (any_port || a->port == b->port);
}

static int drain_peer_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = dev_nest(nlh), *a;
	struct drain_peer *p = data;

	if (!nest)
		return MNL_CB_ERROR;
	mnl_attr_for_each_nested(a, nest) {
		const struct nlattr *tb[RMEM_A_PEER_MAX + 1];
		struct inet_addr addr;

		if (mnl_attr_get_type(a) != RMEM_A_DEV_PEER)
			continue;
		if (nl_parse_nested(a, tb, RMEM_A_PEER_MAX,
				    dev_peer_policy) < 0)
			return MNL_CB_ERROR;
		if (nl_get_addr(tb[RMEM_A_PEER_IPV4], tb[RMEM_A_PEER_IPV6],
				tb[RMEM_A_PEER_PORT], &addr) < 0 ||
		    !same_peer(&addr, p->want, p->any_port))
			continue;
		p->found = true;
		p->draining = !!tb[RMEM_A_PEER_DRAINING];
		p->state = tb[RMEM_A_PEER_STATE] ?
			   mnl_attr_get_u32(tb[RMEM_A_PEER_STATE]) : 0;
		p->held = tb[RMEM_A_PEER_EXTENTS_HELD] ?
			  mnl_attr_get_u32(tb[RMEM_A_PEER_EXTENTS_HELD]) : 0;
	}
	return MNL_CB_OK;
}

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Wait until the server left the device. Return: 0 or -1 (said why). */
static int drain_wait(struct nl *nl, const char *name, const char *what,
		      const struct inet_addr *addr, bool any_port)
{
	uint32_t last = UINT32_MAX;
	time_t moved = now_s();
	char line[160];

	for (;;) {
		struct drain_peer p = { .want = addr, .any_port = any_port };

		nl_nest_end(nl, dev_msg(nl, RMEM_CMD_DEV_GET, name));
		if (nl_run(nl, drain_peer_cb, &p) < 0)
			return -1;
		if (!p.found) {
			snprintf(line, sizeof(line),
				 "%s: server %s drained and removed\n", name,
				 what);
			print_string(PRINT_FP, NULL, "%s", line);
			open_json_object(NULL);
			print_string(PRINT_JSON, "name", NULL, name);
			print_string(PRINT_JSON, "peer", NULL, what);
			print_bool(PRINT_JSON, "drained", NULL, true);
			close_json_object();
			return 0;
		}
		if (p.state == RMEM_DEV_STATE_DEAD) {
			pr_err("%s: server %s went dead while draining (see \"rmemctl dev show %s\")",
			       name, what, name);
			return -1;
		}
		if (!p.draining) {
			pr_err("%s: server %s is not draining (the device was deleted and added again?)",
			       name, what);
			return -1;
		}
		if (p.held != last) {
			if (p.held < last)
				moved = now_s();
			last = p.held;
			snprintf(line, sizeof(line),
				 "%s: draining %s: %u extents held there\n",
				 name, what, p.held);
			print_string(PRINT_FP, NULL, "%s", line);
			fflush(stdout);
		}
		if (now_s() - moved >= DRAIN_STALL_S) {
			pr_err("%s: draining %s made no progress for %d s (%u extents held there); it goes on in the kernel: see \"rmemctl dev show %s\" and the kernel log",
			       name, what, DRAIN_STALL_S, p.held, name);
			return -1;
		}
		sleep(1);
	}
}

/*
 * dev set DEV peer add ADDR[:PORT] [key-file FILE | key-desc DESC]: the
 * answer comes once the server is live in the device.
 */
static int peer_add(struct rmemctl *ctl, const char *name, const char *val)
{
	const char *word, *key_file = NULL, *key_desc = NULL;
	struct inet_addr addr;
	uint8_t key[RMEM_KEY_LEN];
	struct nlattr *nest, *pn;
	char line[160];
	struct nl *nl;
	int ret;

	if (parse_addr_port(val, RMEM_DEFAULT_PORT, &addr) < 0)
		return -1;
	while ((word = arg_next(ctl))) {
		const char **dst;

		if (!strcmp(word, "key-file"))
			dst = &key_file;
		else if (!strcmp(word, "key-desc"))
			dst = &key_desc;
		else
			return arg_unknown(word, dev_usage);
		if (*dst) {
			pr_err("\"%s\" given twice", word);
			return -1;
		}
		*dst = arg_next(ctl);
		if (!*dst)
			return arg_missing(word, dev_usage);
	}
	if (key_file && key_desc) {
		pr_err("give key-file or key-desc, not both");
		return -1;
	}
	if (key_file && key_read_file(key_file, key) < 0)
		return -1;

	nl = rmemctl_nl(ctl);
	if (!nl) {
		key_wipe(key, sizeof(key));
		return -1;
	}
	nest = dev_msg(nl, RMEM_CMD_DEV_PEER_ADD, name);
	pn = nl_nest_start(nl, RMEM_A_DEV_PEER);
	nl_put_addr(nl, RMEM_A_PEER_IPV4, RMEM_A_PEER_IPV6, RMEM_A_PEER_PORT,
		    &addr);
	nl_nest_end(nl, pn);
	if (key_file)
		nl_put_data(nl, RMEM_A_DEV_KEY, key, sizeof(key));
	if (key_desc)
		nl_put_strz(nl, RMEM_A_DEV_KEY_DESC, key_desc);
	key_wipe(key, sizeof(key));
	nl_nest_end(nl, nest);
	ret = nl_run_newer(nl, NULL, NULL,
			   "the loaded rmem module does not know \"dev set ... peer add\" (it is older than rmemctl)");
	nl_wipe(nl);
	if (ret < 0)
		return -1;
	snprintf(line, sizeof(line), "%s: server %s added\n", name, val);
	print_string(PRINT_FP, NULL, "%s", line);
	open_json_object(NULL);
	print_string(PRINT_JSON, "name", NULL, name);
	print_string(PRINT_JSON, "peer", NULL, val);
	print_bool(PRINT_JSON, "added", NULL, true);
	close_json_object();
	return 0;
}

/* dev set DEV peer add ADDR[:PORT] ... | peer del ADDR[:PORT] [nowait] */
int dev_set(struct rmemctl *ctl)
{
	const char *name, *word, *val = NULL;
	struct inet_addr addr;
	bool nowait = false, any_port;
	struct nlattr *nest, *pn;
	struct nl *nl;
	int ret = dev_arg_name(ctl, &name);

	if (ret)
		return ret < 0 ? -1 : 0;
	word = arg_next(ctl);
	if (!word)
		return arg_missing("what to set (peer)", dev_usage);
	if (strcmp(word, "peer"))
		return arg_unknown(word, dev_usage);
	word = arg_next(ctl);
	if (!word)
		return arg_missing("peer action (add, del)", dev_usage);
	if (strcmp(word, "add") && strcmp(word, "del"))
		return arg_unknown(word, dev_usage);
	val = arg_next(ctl);
	if (!val)
		return arg_missing("server address", dev_usage);
	if (!strcmp(word, "add"))
		return peer_add(ctl, name, val) < 0 ? -1 : 0;
	/* no port: the device's one server at that address */
	if (parse_addr_port(val, 0, &addr) < 0)
		return -1;
	any_port = !addr.port;
	while ((word = arg_next(ctl))) {
		if (strcmp(word, "nowait"))
			return arg_unknown(word, dev_usage);
		nowait = true;
	}

	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	nest = dev_msg(nl, RMEM_CMD_DEV_PEER_DEL, name);
	pn = nl_nest_start(nl, RMEM_A_DEV_PEER);
	nl_put_addr(nl, RMEM_A_PEER_IPV4, RMEM_A_PEER_IPV6,
		    any_port ? 0 : RMEM_A_PEER_PORT, &addr);
	nl_nest_end(nl, pn);
	nl_nest_end(nl, nest);
	if (nl_run_newer(nl, NULL, NULL,
			 "the loaded rmem module does not know \"dev set ... peer del\" (it is older than rmemctl)") < 0)
		return -1;
	if (nowait)
		return 0;
	return drain_wait(nl, name, val, &addr, any_port);
}
