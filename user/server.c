// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl server: the memory servers that export RAM to clients.
 *
 * The same printer serves "server show" (a summary line, then the
 * identity, the allowed prefixes and the connected clients on indented
 * lines) and the reply to "server add" (one sentence); in JSON both are
 * the same object.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/rmem.h>

#include "json_print.h"
#include "key.h"
#include "rmemctl.h"
#include "utils.h"

static const enum mnl_attr_data_type server_top_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_SERVER] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type server_policy[RMEM_A_SERVER_MAX + 1] = {
	[RMEM_A_SERVER_NAME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_SERVER_LISTEN_IPV4] = MNL_TYPE_BINARY,
	[RMEM_A_SERVER_LISTEN_IPV6] = MNL_TYPE_BINARY,
	[RMEM_A_SERVER_LISTEN_PORT] = MNL_TYPE_U16,
	[RMEM_A_SERVER_POOL_SIZE] = MNL_TYPE_U64,
	[RMEM_A_SERVER_MR_SIZE] = MNL_TYPE_U64,
	[RMEM_A_SERVER_USED] = MNL_TYPE_U64,
	[RMEM_A_SERVER_ALLOW] = MNL_TYPE_NESTED,
	[RMEM_A_SERVER_CLIENT] = MNL_TYPE_NESTED,
	[RMEM_A_SERVER_ID] = MNL_TYPE_BINARY,
	[RMEM_A_SERVER_MR_PAGE_SIZE] = MNL_TYPE_U64,
	[RMEM_A_SERVER_DIRTY] = MNL_TYPE_U64,
	[RMEM_A_SERVER_AUTH] = MNL_TYPE_U32,
	[RMEM_A_SERVER_AUTH_AUTO] = MNL_TYPE_FLAG,
	[RMEM_A_SERVER_HOST] = MNL_TYPE_NESTED,
	[RMEM_A_SERVER_HANDSHAKES] = MNL_TYPE_U32,
};

static const enum mnl_attr_data_type host_policy[RMEM_A_HOST_MAX + 1] = {
	[RMEM_A_HOST_ID] = MNL_TYPE_NUL_STRING,
	[RMEM_A_HOST_SIZE_LIMIT] = MNL_TYPE_U64,
	[RMEM_A_HOST_SESSIONS_MAX] = MNL_TYPE_U32,
	[RMEM_A_HOST_USED] = MNL_TYPE_U64,
	[RMEM_A_HOST_SESSIONS] = MNL_TYPE_U32,
};

static const char *const auth_names[] = {
	[RMEM_AUTH_NONE] = "none",
	[RMEM_AUTH_OPTIONAL] = "optional",
	[RMEM_AUTH_REQUIRED] = "required",
};

static const enum mnl_attr_data_type prefix_policy[RMEM_A_PREFIX_MAX + 1] = {
	[RMEM_A_PREFIX_IPV4] = MNL_TYPE_BINARY,
	[RMEM_A_PREFIX_IPV6] = MNL_TYPE_BINARY,
	[RMEM_A_PREFIX_LEN] = MNL_TYPE_U8,
};

static const enum mnl_attr_data_type client_policy[RMEM_A_CLIENT_MAX + 1] = {
	[RMEM_A_CLIENT_IPV4] = MNL_TYPE_BINARY,
	[RMEM_A_CLIENT_IPV6] = MNL_TYPE_BINARY,
	[RMEM_A_CLIENT_PORT] = MNL_TYPE_U16,
	[RMEM_A_CLIENT_SIZE] = MNL_TYPE_U64,
	[RMEM_A_CLIENT_VOLUME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_CLIENT_QPS] = MNL_TYPE_U32,
	[RMEM_A_CLIENT_HOST_ID] = MNL_TYPE_NUL_STRING,
	[RMEM_A_CLIENT_AUTH] = MNL_TYPE_U8,
};

/* Indented text lines: see NEXT_LINE in dev.c. */
#define NEXT_LINE	"\n   "

static void server_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl server add name NAME listen ADDR[:PORT] size SIZE\n"
		"                          [ mr-size SIZE ] [ allow PREFIX ]...\n"
		"                          [ auth { none | optional | required } ]\n"
		"       rmemctl server del NAME\n"
		"       rmemctl server show [ NAME ]\n"
		"       rmemctl server host add NAME host ID\n"
		"                               { key-file FILE | key-desc DESC }\n"
		"                               [ size-limit SIZE ] [ sessions N ]\n"
		"       rmemctl server host del NAME host ID [ force ]\n"
		"       rmemctl server help\n"
		"where  NAME := the server's name, ID := a client's host identity\n"
		"       FILE := a key file (\"rmemctl key gen\"), mode 0600\n"
		"       DESC := a \"logon\" key in the keyring (\"rmemctl key load\")\n");
	usage_syntax(f, false);
}

static int server_help(struct rmemctl *ctl)
{
	server_usage(stdout);
	return 0;
}

/* One allowed prefix: an indented text line, or a string of "allow". */
static int server_print_allow(const struct nlattr *nest,
			      enum output_type type)
{
	const struct nlattr *tb[RMEM_A_PREFIX_MAX + 1];
	char buf[ADDR_STR_LEN];
	struct inet_addr a;

	if (nl_parse_nested(nest, tb, RMEM_A_PREFIX_MAX, prefix_policy) < 0)
		return -1;
	if (nl_get_addr(tb[RMEM_A_PREFIX_IPV4], tb[RMEM_A_PREFIX_IPV6], NULL,
			&a) < 0) {
		pr_err("kernel reply with an allowed prefix without address");
		return -1;
	}
	a.plen = 8 * inet_addr_len(a.family);
	if (tb[RMEM_A_PREFIX_LEN] &&
	    mnl_attr_get_u8(tb[RMEM_A_PREFIX_LEN]) < a.plen)
		a.plen = mnl_attr_get_u8(tb[RMEM_A_PREFIX_LEN]);
	print_string(type, NULL, NEXT_LINE " allow %s",
		     fmt_prefix(buf, sizeof(buf), &a));
	return 0;
}

/* One client session: an indented text line, or an object of "clients". */
static int server_print_client(const struct nlattr *nest,
			       enum output_type type)
{
	const struct nlattr *tb[RMEM_A_CLIENT_MAX + 1];
	char buf[ADDR_STR_LEN];
	struct inet_addr a;

	if (nl_parse_nested(nest, tb, RMEM_A_CLIENT_MAX, client_policy) < 0)
		return -1;

	open_json_object(NULL);
	if (!nl_get_addr(tb[RMEM_A_CLIENT_IPV4], tb[RMEM_A_CLIENT_IPV6],
			 tb[RMEM_A_CLIENT_PORT], &a))
		print_string(type, "addr", NEXT_LINE " client %s",
			     fmt_addr_port(buf, sizeof(buf), &a));
	else
		print_string(type & PRINT_FP, NULL, "%s", NEXT_LINE " client ?");
	if (tb[RMEM_A_CLIENT_SIZE])
		print_size(type, "size", " size %s",
			   mnl_attr_get_u64(tb[RMEM_A_CLIENT_SIZE]));
	if (tb[RMEM_A_CLIENT_VOLUME])
		print_string(type, "volume", " volume %s",
			     mnl_attr_get_str(tb[RMEM_A_CLIENT_VOLUME]));
	if (tb[RMEM_A_CLIENT_QPS])
		print_uint(type, "qps", " qps %u",
			   mnl_attr_get_u32(tb[RMEM_A_CLIENT_QPS]));
	if (tb[RMEM_A_CLIENT_HOST_ID])
		print_string(type, "host", " host %s",
			     mnl_attr_get_str(tb[RMEM_A_CLIENT_HOST_ID]));
	if (tb[RMEM_A_CLIENT_AUTH]) {
		bool auth = mnl_attr_get_u8(tb[RMEM_A_CLIENT_AUTH]);

		print_bool(type & PRINT_JSON, "auth", NULL, auth);
		print_string(type & PRINT_FP, NULL, " %s",
			     auth ? "authenticated" : "unauthenticated");
	}
	close_json_object();
	return 0;
}

/* A limit: "2", or "-" for none (text); the number, 0 for none (JSON). */
static void server_print_limit(enum output_type type, const char *key,
			       uint64_t val, bool size)
{
	char buf[SIZE_STR_LEN];

	print_u64(type & PRINT_JSON, key, NULL, val);
	if (!val)
		snprintf(buf, sizeof(buf), "-");
	else if (size)
		fmt_size(buf, sizeof(buf), val);
	else
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	print_string(type & PRINT_FP, NULL, "/%s", buf);
}

/* One host entry: an indented text line, or an object of "hosts". */
static int server_print_host(const struct nlattr *nest, enum output_type type)
{
	const struct nlattr *tb[RMEM_A_HOST_MAX + 1];
	char buf[SIZE_STR_LEN];

	if (nl_parse_nested(nest, tb, RMEM_A_HOST_MAX, host_policy) < 0)
		return -1;
	if (!tb[RMEM_A_HOST_ID]) {
		pr_err("kernel reply with a host entry without identity");
		return -1;
	}
	open_json_object(NULL);
	print_string(type, "id", NEXT_LINE " host %s",
		     mnl_attr_get_str(tb[RMEM_A_HOST_ID]));
	if (tb[RMEM_A_HOST_SESSIONS])
		print_uint(type, "sessions", " sessions %u",
			   mnl_attr_get_u32(tb[RMEM_A_HOST_SESSIONS]));
	if (tb[RMEM_A_HOST_SESSIONS_MAX])
		server_print_limit(type, "sessions_max",
				   mnl_attr_get_u32(tb[RMEM_A_HOST_SESSIONS_MAX]),
				   false);
	if (tb[RMEM_A_HOST_USED])
		print_string(type & PRINT_FP, NULL, " used %s",
			     fmt_size(buf, sizeof(buf),
				      mnl_attr_get_u64(tb[RMEM_A_HOST_USED])));
	if (tb[RMEM_A_HOST_USED])
		print_u64(type & PRINT_JSON, "used", NULL,
			  mnl_attr_get_u64(tb[RMEM_A_HOST_USED]));
	if (tb[RMEM_A_HOST_SIZE_LIMIT])
		server_print_limit(type, "size_limit",
				   mnl_attr_get_u64(tb[RMEM_A_HOST_SIZE_LIMIT]),
				   true);
	close_json_object();
	return 0;
}

/*
 * The "allow" strings or "clients" objects: every @attr_type attribute
 * of the @n nests, printed by @print.  Always an array in JSON, maybe
 * empty.
 */
static int server_print_list(const struct nlattr *const *nests, unsigned int n,
			     uint16_t attr_type, const char *key,
			     enum output_type type,
			     int (*print)(const struct nlattr *,
					  enum output_type))
{
	const struct nlattr *attr;
	unsigned int i;
	int ret = 0;

	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++) {
		mnl_attr_for_each_nested(attr, nests[i]) {
			if (mnl_attr_get_type(attr) != attr_type)
				continue;
			if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0 ||
			    print(attr, type) < 0) {
				if (!ret)
					pr_err("malformed attribute %u in a kernel reply",
					       attr_type);
				ret = -1;
			}
		}
	}
	close_json_array(PRINT_JSON, NULL);
	return ret;
}

/*
 * One server, from the @n nests of its messages: the first has its
 * attributes, every one some of its clients (a server with many clients
 * takes several messages).  @added: the reply to "server add", one
 * sentence in text; else the "server show" lines.
 */
static int server_print(const struct nlattr *const *nests, unsigned int n,
			bool added)
{
	const struct nlattr *nest = nests[0];
	/* What only "server show" prints in text. */
	enum output_type detail = added ? PRINT_JSON : PRINT_ANY;
	const struct nlattr *tb[RMEM_A_SERVER_MAX + 1];
	const struct nlattr *id;
	char buf[ADDR_STR_LEN];
	struct inet_addr a;
	bool listen;
	int ret;

	if (nl_parse_nested(nest, tb, RMEM_A_SERVER_MAX, server_policy) < 0)
		return -1;
	if (!tb[RMEM_A_SERVER_NAME]) {
		pr_err("kernel reply without a server name");
		return -1;
	}

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "%s:",
		     mnl_attr_get_str(tb[RMEM_A_SERVER_NAME]));
	listen = !nl_get_addr(tb[RMEM_A_SERVER_LISTEN_IPV4],
			      tb[RMEM_A_SERVER_LISTEN_IPV6],
			      tb[RMEM_A_SERVER_LISTEN_PORT], &a);
	if (listen)
		print_string(PRINT_ANY, "listen",
			     added ? " listening on %s" : " listen %s",
			     fmt_addr_port(buf, sizeof(buf), &a));
	if (tb[RMEM_A_SERVER_POOL_SIZE])
		print_size(PRINT_ANY, "pool_size",
			   added && listen ? ", pool %s" : " pool %s",
			   mnl_attr_get_u64(tb[RMEM_A_SERVER_POOL_SIZE]));
	if (tb[RMEM_A_SERVER_MR_SIZE])
		print_size(PRINT_ANY, "mr_size",
			   added ? " in %s chunks" : " mr-size %s",
			   mnl_attr_get_u64(tb[RMEM_A_SERVER_MR_SIZE]));
	if (tb[RMEM_A_SERVER_MR_PAGE_SIZE])
		print_size(PRINT_ANY, "mr_page_size",
			   added ? " (registered with %s pages)" : " page %s",
			   mnl_attr_get_u64(tb[RMEM_A_SERVER_MR_PAGE_SIZE]));
	if (tb[RMEM_A_SERVER_USED])
		print_size(detail, "used", " used %s",
			   mnl_attr_get_u64(tb[RMEM_A_SERVER_USED]));
	/* text: only while zeroing is under way */
	if (tb[RMEM_A_SERVER_DIRTY])
		print_size(mnl_attr_get_u64(tb[RMEM_A_SERVER_DIRTY]) ?
			   detail : detail & PRINT_JSON, "dirty", " dirty %s",
			   mnl_attr_get_u64(tb[RMEM_A_SERVER_DIRTY]));
	if (tb[RMEM_A_SERVER_AUTH]) {
		uint32_t auth = mnl_attr_get_u32(tb[RMEM_A_SERVER_AUTH]);
		const char *name = auth < ARRAY_SIZE(auth_names) &&
				   auth_names[auth] ? auth_names[auth] : "?";

		print_string(PRINT_ANY, "auth", added ? ", auth %s" : " auth %s",
			     name);
		print_bool(PRINT_JSON, "auth_auto", NULL,
			   tb[RMEM_A_SERVER_AUTH_AUTO]);
		if (tb[RMEM_A_SERVER_AUTH_AUTO] && auth == RMEM_AUTH_NONE)
			print_string(PRINT_FP, NULL, "%s",
				     " (until a host key is added)");
	}
	/* text: only while some are under way */
	if (tb[RMEM_A_SERVER_HANDSHAKES])
		print_uint(mnl_attr_get_u32(tb[RMEM_A_SERVER_HANDSHAKES]) ?
			   detail : detail & PRINT_JSON, "handshakes",
			   " handshakes %u",
			   mnl_attr_get_u32(tb[RMEM_A_SERVER_HANDSHAKES]));

	id = tb[RMEM_A_SERVER_ID];
	if (id)
		print_string(detail, "id", NEXT_LINE " id %s",
			     fmt_hex(buf, sizeof(buf),
				     mnl_attr_get_payload(id),
				     mnl_attr_get_payload_len(id)));
	ret = server_print_list(nests, 1, RMEM_A_SERVER_ALLOW, "allow", detail,
				server_print_allow);
	/* host entries, like clients, may go on in the next messages */
	if (server_print_list(nests, n, RMEM_A_SERVER_HOST, "hosts", detail,
			      server_print_host) < 0)
		ret = -1;
	if (server_print_list(nests, n, RMEM_A_SERVER_CLIENT, "clients",
			      detail, server_print_client) < 0)
		ret = -1;
	print_nl();
	close_json_object();
	return ret;
}

/* The RMEM_A_SERVER nest of a reply, or NULL after printing why. */
static const struct nlattr *server_nest(const struct nlmsghdr *nlh)
{
	const struct nlattr *tb[RMEM_A_MAX + 1];

	if (nl_parse(nlh, tb, RMEM_A_MAX, server_top_policy) < 0)
		return NULL;
	if (!tb[RMEM_A_SERVER])
		pr_err("kernel reply without a server");
	return tb[RMEM_A_SERVER];
}

/* The messages of one server in a dump, kept until the next server. */
struct server_pieces {
	struct nlattr **nests;
	unsigned int n;
};

static void server_pieces_free(struct server_pieces *p)
{
	while (p->n)
		free(p->nests[--p->n]);
	free(p->nests);
	p->nests = NULL;
}

/* Print the server gathered so far, if any. */
static int server_pieces_flush(struct server_pieces *p)
{
	int ret = 0;

	if (p->n)
		ret = server_print((const struct nlattr *const *)p->nests,
				   p->n, false);
	server_pieces_free(p);
	return ret;
}

static const char *server_nest_name(const struct nlattr *nest)
{
	const struct nlattr *tb[RMEM_A_SERVER_MAX + 1];

	if (nl_parse_nested(nest, tb, RMEM_A_SERVER_MAX, server_policy) < 0 ||
	    !tb[RMEM_A_SERVER_NAME])
		return NULL;
	return mnl_attr_get_str(tb[RMEM_A_SERVER_NAME]);
}

static int server_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct server_pieces *p = data;
	const struct nlattr *nest = server_nest(nlh);
	const char *name = nest ? server_nest_name(nest) : NULL;
	struct nlattr **nests, *copy;

	if (!name) {
		if (nest)
			pr_err("kernel reply without a server name");
		return MNL_CB_ERROR;
	}
	/* another server: the one before is complete */
	if (p->n && strcmp(name, server_nest_name(p->nests[0])) &&
	    server_pieces_flush(p) < 0)
		return MNL_CB_ERROR;
	nests = realloc(p->nests, (p->n + 1) * sizeof(*nests));
	copy = malloc(mnl_attr_get_len(nest));
	if (!nests || !copy) {
		free(copy);
		if (nests)
			p->nests = nests;
		pr_err("out of memory");
		return MNL_CB_ERROR;
	}
	memcpy(copy, nest, mnl_attr_get_len(nest));
	p->nests = nests;
	p->nests[p->n++] = copy;
	return MNL_CB_OK;
}

static int server_add_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = server_nest(nlh);

	if (!nest || server_print(&nest, 1, true) < 0)
		return MNL_CB_ERROR;
	/* One reply is expected: ignore any other. */
	return MNL_CB_STOP;
}

/* Start a request whose RMEM_A_SERVER nest holds the server's name. */
static struct nlattr *server_msg(struct nl *nl, uint8_t cmd, uint16_t flags,
				 const char *name)
{
	struct nlattr *nest;

	nl_msg(nl, cmd, flags);
	nest = nl_nest_start(nl, RMEM_A_SERVER);
	nl_put_strz(nl, RMEM_A_SERVER_NAME, name);
	return nest;
}

/* An &enum rmem_auth by name.  Return: it, or 0 after printing why. */
static uint32_t parse_auth(const char *str)
{
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(auth_names); i++)
		if (auth_names[i] && !strcmp(str, auth_names[i]))
			return i;
	pr_err("invalid auth '%s': want none, optional or required", str);
	return 0;
}

/*
 * server add name NAME listen ADDR[:PORT] size SIZE [mr-size SIZE]
 *	[allow PREFIX]... [auth none|optional|required]
 */
static int server_add(struct rmemctl *ctl)
{
	bool has_name = false, has_listen = false, has_size = false;
	bool has_mr_size = false, has_auth = false;
	uint32_t auth = 0;
	const char *name = NULL, *word, *val;
	uint64_t size = 0, mr_size = 0;
	struct nlattr *nest, *pfx;
	struct inet_addr listen;
	struct inet_addr *allow;
	unsigned int n_allow = 0, i;
	struct nl *nl;
	int ret = -1;

	/* At most one prefix per two words. */
	allow = calloc(ctl->argc / 2 + 1, sizeof(*allow));
	if (!allow) {
		pr_err("out of memory");
		return -1;
	}

	while ((word = arg_next(ctl))) {
		if (arg_is_help(word)) {
			server_usage(stdout);
			ret = 0;
			goto out;
		}
		if (!strcmp(word, "name")) {
			name = arg_value(ctl, word, &has_name);
			if (!name || arg_check_name("server name", name,
						    RMEM_NAME_MAX) < 0)
				goto out;
		} else if (!strcmp(word, "listen")) {
			val = arg_value(ctl, word, &has_listen);
			if (!val || parse_addr_port(val, RMEM_DEFAULT_PORT,
						    &listen) < 0)
				goto out;
		} else if (!strcmp(word, "size")) {
			val = arg_value(ctl, word, &has_size);
			if (!val || parse_size(val, &size) < 0)
				goto out;
		} else if (!strcmp(word, "mr-size")) {
			val = arg_value(ctl, word, &has_mr_size);
			if (!val || parse_size(val, &mr_size) < 0)
				goto out;
		} else if (!strcmp(word, "allow")) {
			val = arg_value(ctl, word, NULL);
			if (!val || parse_prefix(val, &allow[n_allow]) < 0)
				goto out;
			n_allow++;
		} else if (!strcmp(word, "auth")) {
			val = arg_value(ctl, word, &has_auth);
			if (!val)
				goto out;
			auth = parse_auth(val);
			if (!auth)
				goto out;
		} else {
			arg_unknown(word, server_usage);
			goto out;
		}
	}
	if (!has_name) {
		arg_missing("\"name NAME\"", server_usage);
		goto out;
	}
	if (!has_listen) {
		arg_missing("\"listen ADDR[:PORT]\"", server_usage);
		goto out;
	}
	if (!has_size) {
		arg_missing("\"size SIZE\"", server_usage);
		goto out;
	}

	nl = rmemctl_nl(ctl);
	if (!nl)
		goto out;
	nest = server_msg(nl, RMEM_CMD_SERVER_ADD, 0, name);
	nl_put_addr(nl, RMEM_A_SERVER_LISTEN_IPV4, RMEM_A_SERVER_LISTEN_IPV6,
		    RMEM_A_SERVER_LISTEN_PORT, &listen);
	nl_put_u64(nl, RMEM_A_SERVER_POOL_SIZE, size);
	if (has_mr_size)
		nl_put_u64(nl, RMEM_A_SERVER_MR_SIZE, mr_size);
	for (i = 0; i < n_allow; i++) {
		pfx = nl_nest_start(nl, RMEM_A_SERVER_ALLOW);
		nl_put_addr(nl, RMEM_A_PREFIX_IPV4, RMEM_A_PREFIX_IPV6, 0,
			    &allow[i]);
		nl_put_u8(nl, RMEM_A_PREFIX_LEN, allow[i].plen);
		nl_nest_end(nl, pfx);
	}
	if (auth)
		nl_put_u32(nl, RMEM_A_SERVER_AUTH, auth);
	nl_nest_end(nl, nest);
	ret = nl_run(nl, server_add_cb, NULL);
	/* one line on stderr, after the reply: it is for the admin to read */
	if (!ret && !auth)
		fprintf(stderr,
			"rmemctl: warning: server %s takes any client without a key until a host key is added (\"server host add\"), then requires keys; give \"auth\" to choose\n",
			name);
	else if (!ret && auth == RMEM_AUTH_NONE)
		fprintf(stderr,
			"rmemctl: warning: server %s takes any client without a key (auth none)\n",
			name);
out:
	free(allow);
	return ret;
}

/* server del NAME */
static int server_del(struct rmemctl *ctl)
{
	const char *name = arg_next(ctl);
	struct nl *nl;

	if (!name)
		return arg_missing("server name", server_usage);
	if (arg_is_help(name)) {
		server_usage(stdout);
		return 0;
	}
	if (arg_end(ctl, server_usage) < 0 ||
	    arg_check_name("server name", name, RMEM_NAME_MAX) < 0)
		return -1;
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	nl_nest_end(nl, server_msg(nl, RMEM_CMD_SERVER_DEL, 0, name));
	return nl_run(nl, NULL, NULL);
}

/* server show [NAME]: one server by name, or dump them all. */
static int server_show(struct rmemctl *ctl)
{
	struct server_pieces pieces = { 0 };
	const char *name = arg_next(ctl);
	struct nl *nl;
	int ret;

	if (name && arg_is_help(name)) {
		server_usage(stdout);
		return 0;
	}
	if (arg_end(ctl, server_usage) < 0)
		return -1;
	if (name && arg_check_name("server name", name, RMEM_NAME_MAX) < 0)
		return -1;
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;

	/*
	 * Always a dump (of one server, with NAME): a server with many
	 * clients may take several messages, which one reply cannot.
	 */
	if (name)
		nl_nest_end(nl, server_msg(nl, RMEM_CMD_SERVER_GET, NLM_F_DUMP,
					   name));
	else
		nl_msg(nl, RMEM_CMD_SERVER_GET, NLM_F_DUMP);
	open_json_array(PRINT_JSON, NULL);
	ret = nl_run(nl, server_show_cb, &pieces);
	if (!ret)
		ret = server_pieces_flush(&pieces);
	server_pieces_free(&pieces);
	close_json_array(PRINT_JSON, NULL);
	return ret;
}

/*
 * server host add NAME host ID {key-file FILE | key-desc DESC}
 *	[size-limit SIZE] [sessions N]
 */
static int server_host_add(struct rmemctl *ctl)
{
	bool has_host = false, has_file = false, has_desc = false;
	bool has_limit = false, has_sessions = false;
	const char *name = arg_next(ctl), *word, *val;
	const char *host = NULL, *file = NULL, *desc = NULL;
	uint8_t key[RMEM_KEY_LEN];
	uint64_t limit = 0;
	uint32_t sessions = 0;
	struct nlattr *nest;
	struct nl *nl;
	int ret;

	if (!name)
		return arg_missing("server name", server_usage);
	if (arg_is_help(name)) {
		server_usage(stdout);
		return 0;
	}
	if (arg_check_name("server name", name, RMEM_NAME_MAX) < 0)
		return -1;
	while ((word = arg_next(ctl))) {
		if (!strcmp(word, "host")) {
			host = arg_value(ctl, word, &has_host);
			if (!host || arg_check_name("host identity", host,
						    RMEM_HOST_ID_MAX) < 0)
				return -1;
		} else if (!strcmp(word, "key-file")) {
			file = arg_value(ctl, word, &has_file);
			if (!file)
				return -1;
		} else if (!strcmp(word, "key-desc")) {
			desc = arg_value(ctl, word, &has_desc);
			if (!desc)
				return -1;
		} else if (!strcmp(word, "size-limit")) {
			val = arg_value(ctl, word, &has_limit);
			if (!val || parse_size(val, &limit) < 0)
				return -1;
		} else if (!strcmp(word, "sessions")) {
			val = arg_value(ctl, word, &has_sessions);
			if (!val || parse_u32(val, "sessions", &sessions) < 0)
				return -1;
		} else {
			return arg_unknown(word, server_usage);
		}
	}
	if (!host)
		return arg_missing("\"host ID\"", server_usage);
	if (!file && !desc)
		return arg_missing("\"key-file FILE\" or \"key-desc DESC\"",
				   server_usage);
	if (file && desc) {
		pr_err("give \"key-file\" or \"key-desc\", not both");
		return -1;
	}
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	if (file && key_read_file(file, key) < 0)
		return -1;
	nl_msg(nl, RMEM_CMD_HOST_ADD, 0);
	nest = nl_nest_start(nl, RMEM_A_HOST);
	nl_put_strz(nl, RMEM_A_HOST_SERVER, name);
	nl_put_strz(nl, RMEM_A_HOST_ID, host);
	if (file)
		nl_put_data(nl, RMEM_A_HOST_KEY, key, sizeof(key));
	else
		nl_put_strz(nl, RMEM_A_HOST_KEY_DESC, desc);
	key_wipe(key, sizeof(key));
	if (has_limit)
		nl_put_u64(nl, RMEM_A_HOST_SIZE_LIMIT, limit);
	if (has_sessions)
		nl_put_u32(nl, RMEM_A_HOST_SESSIONS_MAX, sessions);
	nl_nest_end(nl, nest);
	ret = nl_run(nl, NULL, NULL);
	nl_wipe(nl);
	return ret;
}

/* server host del NAME host ID [force] */
static int server_host_del(struct rmemctl *ctl)
{
	const char *name = arg_next(ctl), *word, *host = NULL;
	bool has_host = false, force = false;
	struct nlattr *nest;
	struct nl *nl;

	if (!name)
		return arg_missing("server name", server_usage);
	if (arg_is_help(name)) {
		server_usage(stdout);
		return 0;
	}
	if (arg_check_name("server name", name, RMEM_NAME_MAX) < 0)
		return -1;
	while ((word = arg_next(ctl))) {
		if (!strcmp(word, "host")) {
			host = arg_value(ctl, word, &has_host);
			if (!host || arg_check_name("host identity", host,
						    RMEM_HOST_ID_MAX) < 0)
				return -1;
		} else if (!strcmp(word, "force")) {
			force = true;
		} else {
			return arg_unknown(word, server_usage);
		}
	}
	if (!host)
		return arg_missing("\"host ID\"", server_usage);
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;
	nl_msg(nl, RMEM_CMD_HOST_DEL, 0);
	nest = nl_nest_start(nl, RMEM_A_HOST);
	nl_put_strz(nl, RMEM_A_HOST_SERVER, name);
	nl_put_strz(nl, RMEM_A_HOST_ID, host);
	if (force)
		nl_put_flag(nl, RMEM_A_HOST_FORCE);
	nl_nest_end(nl, nest);
	return nl_run(nl, NULL, NULL);
}

static const struct cmd server_host_cmds[] = {
	{ "add",	server_host_add },
	{ "del",	server_host_del },
	{ "help",	server_help },
	{ NULL,		NULL }
};

static int server_host(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "server host command", server_host_cmds, NULL,
			    server_usage);
}

static const struct cmd server_cmds[] = {
	{ "add",	server_add },
	{ "del",	server_del },
	{ "show",	server_show },
	{ "host",	server_host },
	{ "help",	server_help },
	{ NULL,		NULL }
};

int cmd_server(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "server command", server_cmds, "show",
			    server_usage);
}
