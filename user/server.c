// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl server: the memory servers that export RAM to clients.
 */
#include <linux/rmem.h>

#include "json_print.h"
#include "rmemctl.h"
#include "utils.h"

static const enum mnl_attr_data_type server_top_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_SERVER] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type server_policy[RMEM_A_SERVER_MAX + 1] = {
	[RMEM_A_SERVER_NAME] = MNL_TYPE_NUL_STRING,
};

static void server_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl server show [ NAME ]\n"
		"       rmemctl server help\n"
		"where  NAME := server name\n");
}

static int server_help(struct rmemctl *ctl)
{
	server_usage(stdout);
	return 0;
}

/* Print one server: one line of text, or one object of the JSON array. */
static int server_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RMEM_A_MAX + 1];
	const struct nlattr *stb[RMEM_A_SERVER_MAX + 1];

	if (nl_parse(nlh, tb, RMEM_A_MAX, server_top_policy) < 0)
		return MNL_CB_ERROR;
	if (!tb[RMEM_A_SERVER]) {
		pr_err("kernel reply without a server");
		return MNL_CB_ERROR;
	}
	if (nl_parse_nested(tb[RMEM_A_SERVER], stb, RMEM_A_SERVER_MAX,
			    server_policy) < 0)
		return MNL_CB_ERROR;
	if (!stb[RMEM_A_SERVER_NAME]) {
		pr_err("kernel reply without a server name");
		return MNL_CB_ERROR;
	}

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "%s",
		     mnl_attr_get_str(stb[RMEM_A_SERVER_NAME]));
	print_nl();
	close_json_object();
	return MNL_CB_OK;
}

/* server show [NAME]: one server by name, or dump them all. */
static int server_show(struct rmemctl *ctl)
{
	const char *name = arg_next(ctl);
	struct nlattr *nest;
	struct nl *nl;

	if (arg_end(ctl, server_usage) < 0)
		return -1;
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;

	if (name) {
		nl_msg(nl, RMEM_CMD_SERVER_GET, 0);
		nest = nl_nest_start(nl, RMEM_A_SERVER);
		nl_put_strz(nl, RMEM_A_SERVER_NAME, name);
		nl_nest_end(nl, nest);
	} else {
		nl_msg(nl, RMEM_CMD_SERVER_GET, NLM_F_DUMP);
	}
	return rmemctl_list(nl, server_show_cb, NULL);
}

static const struct cmd server_cmds[] = {
	{ "show",	server_show },
	{ "help",	server_help },
	{ NULL,		NULL }
};

int cmd_server(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "server command", server_cmds, "show",
			    server_usage);
}
