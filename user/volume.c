// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl volume: named memory that a server keeps between attachments.
 *
 * A volume lives on a server and is created by the first "dev add ...
 * volume VOL" of a client; it is listed and freed on the server.
 */
#include <string.h>
#include <linux/rmem.h>

#include "json_print.h"
#include "rmemctl.h"
#include "utils.h"

static const enum mnl_attr_data_type volume_top_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_VOLUME] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type volume_policy[RMEM_A_VOLUME_MAX + 1] = {
	[RMEM_A_VOLUME_SERVER] = MNL_TYPE_NUL_STRING,
	[RMEM_A_VOLUME_NAME] = MNL_TYPE_NUL_STRING,
	[RMEM_A_VOLUME_SIZE] = MNL_TYPE_U64,
	[RMEM_A_VOLUME_BUSY] = MNL_TYPE_U8,
	[RMEM_A_VOLUME_GENERATION] = MNL_TYPE_U64,
	[RMEM_A_VOLUME_OWNER] = MNL_TYPE_NUL_STRING,
	[RMEM_A_VOLUME_OWNER_AUTH] = MNL_TYPE_U8,
};

static void volume_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl volume show [ server NAME ]\n"
		"       rmemctl volume del server NAME volume VOL\n"
		"       rmemctl volume help\n"
		"where  NAME := the server's name, VOL := the volume's name\n");
}

static int volume_help(struct rmemctl *ctl)
{
	volume_usage(stdout);
	return 0;
}

/* "volume show": only the volumes of this server, if not NULL. */
struct volume_show_ctx {
	const char *server;
};

/* One volume: a line of text, or an object of the JSON array. */
static int volume_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RMEM_A_MAX + 1];
	const struct nlattr *vtb[RMEM_A_VOLUME_MAX + 1];
	struct volume_show_ctx *ctx = data;
	const char *server = NULL;

	if (nl_parse(nlh, tb, RMEM_A_MAX, volume_top_policy) < 0)
		return MNL_CB_ERROR;
	if (!tb[RMEM_A_VOLUME]) {
		pr_err("kernel reply without a volume");
		return MNL_CB_ERROR;
	}
	if (nl_parse_nested(tb[RMEM_A_VOLUME], vtb, RMEM_A_VOLUME_MAX,
			    volume_policy) < 0)
		return MNL_CB_ERROR;
	if (!vtb[RMEM_A_VOLUME_NAME]) {
		pr_err("kernel reply without a volume name");
		return MNL_CB_ERROR;
	}
	if (vtb[RMEM_A_VOLUME_SERVER])
		server = mnl_attr_get_str(vtb[RMEM_A_VOLUME_SERVER]);
	/* The kernel may ignore the filter of a dump: apply it here too. */
	if (ctx->server && server && strcmp(ctx->server, server))
		return MNL_CB_OK;

	open_json_object(NULL);
	if (server)
		print_string(PRINT_ANY, "server", "%s/", server);
	print_string(PRINT_ANY, "name", "%s:",
		     mnl_attr_get_str(vtb[RMEM_A_VOLUME_NAME]));
	if (vtb[RMEM_A_VOLUME_SIZE])
		print_size(PRINT_ANY, "size", " size %s",
			   mnl_attr_get_u64(vtb[RMEM_A_VOLUME_SIZE]));
	if (vtb[RMEM_A_VOLUME_GENERATION])
		print_u64(PRINT_ANY, "generation", " generation %llu",
			  mnl_attr_get_u64(vtb[RMEM_A_VOLUME_GENERATION]));
	if (vtb[RMEM_A_VOLUME_BUSY]) {
		bool busy = mnl_attr_get_u8(vtb[RMEM_A_VOLUME_BUSY]);

		print_bool(PRINT_JSON, "busy", NULL, busy);
		print_string(PRINT_FP, NULL, " %s", busy ? "busy" : "idle");
	}
	if (vtb[RMEM_A_VOLUME_OWNER])
		print_string(PRINT_ANY, "owner", " owner %s",
			     mnl_attr_get_str(vtb[RMEM_A_VOLUME_OWNER]));
	if (vtb[RMEM_A_VOLUME_OWNER_AUTH]) {
		bool auth = mnl_attr_get_u8(vtb[RMEM_A_VOLUME_OWNER_AUTH]);

		print_bool(PRINT_JSON, "owner_auth", NULL, auth);
		if (vtb[RMEM_A_VOLUME_OWNER])
			print_string(PRINT_FP, NULL, " %s",
				     auth ? "(authenticated)" : "(unauthenticated)");
	}
	print_nl();
	close_json_object();
	return MNL_CB_OK;
}

/*
 * Parse "server NAME" and, with @vol, "volume VOL", in any order.
 * Return: 0, 1 after printing help, or -1 after printing why.
 */
static int volume_args(struct rmemctl *ctl, const char **server,
		       const char **vol)
{
	bool has_server = false, has_volume = false;
	const char *word;

	while ((word = arg_next(ctl))) {
		if (arg_is_help(word)) {
			volume_usage(stdout);
			return 1;
		}
		if (!strcmp(word, "server")) {
			*server = arg_value(ctl, word, &has_server);
			if (!*server || arg_check_name("server name", *server,
						       RMEM_NAME_MAX) < 0)
				return -1;
		} else if (vol && !strcmp(word, "volume")) {
			*vol = arg_value(ctl, word, &has_volume);
			if (!*vol || arg_check_name("volume", *vol,
						    RMEM_VOLUME_MAX) < 0)
				return -1;
		} else {
			return arg_unknown(word, volume_usage);
		}
	}
	return 0;
}

/* volume show [server NAME]: dump the volumes, of one server or all. */
static int volume_show(struct rmemctl *ctl)
{
	struct volume_show_ctx ctx = { 0 };
	struct nlattr *nest;
	struct nl *nl;
	int ret;

	ret = volume_args(ctl, &ctx.server, NULL);
	if (ret)
		return ret < 0 ? -1 : 0;
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;

	nl_msg(nl, RMEM_CMD_VOLUME_GET, NLM_F_DUMP);
	if (ctx.server) {
		nest = nl_nest_start(nl, RMEM_A_VOLUME);
		nl_put_strz(nl, RMEM_A_VOLUME_SERVER, ctx.server);
		nl_nest_end(nl, nest);
	}
	return rmemctl_list(nl, volume_show_cb, &ctx);
}

/* volume del server NAME volume VOL */
static int volume_del(struct rmemctl *ctl)
{
	const char *server = NULL, *vol = NULL;
	struct nlattr *nest;
	struct nl *nl;
	int ret;

	ret = volume_args(ctl, &server, &vol);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (!server)
		return arg_missing("\"server NAME\"", volume_usage);
	if (!vol)
		return arg_missing("\"volume VOL\"", volume_usage);
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;

	nl_msg(nl, RMEM_CMD_VOLUME_DEL, 0);
	nest = nl_nest_start(nl, RMEM_A_VOLUME);
	nl_put_strz(nl, RMEM_A_VOLUME_SERVER, server);
	nl_put_strz(nl, RMEM_A_VOLUME_NAME, vol);
	nl_nest_end(nl, nest);
	return nl_run(nl, NULL, NULL);
}

static const struct cmd volume_cmds[] = {
	{ "show",	volume_show },
	{ "del",	volume_del },
	{ "help",	volume_help },
	{ NULL,		NULL }
};

int cmd_volume(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "volume command", volume_cmds, "show",
			    volume_usage);
}
