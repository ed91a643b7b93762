// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl dev: the client block devices (rmemN) backed by remote memory.
 */
#include <linux/rmem.h>

#include "json_print.h"
#include "rmemctl.h"
#include "utils.h"

static const enum mnl_attr_data_type dev_top_policy[RMEM_A_MAX + 1] = {
	[RMEM_A_DEV] = MNL_TYPE_NESTED,
};

static const enum mnl_attr_data_type dev_policy[RMEM_A_DEV_MAX + 1] = {
	[RMEM_A_DEV_NAME] = MNL_TYPE_NUL_STRING,
};

static void dev_usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl dev show [ DEV ]\n"
		"       rmemctl dev help\n"
		"where  DEV := rmemN\n");
}

static int dev_help(struct rmemctl *ctl)
{
	dev_usage(stdout);
	return 0;
}

/* Print one device: one line of text, or one object of the JSON array. */
static int dev_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RMEM_A_MAX + 1];
	const struct nlattr *dtb[RMEM_A_DEV_MAX + 1];

	if (nl_parse(nlh, tb, RMEM_A_MAX, dev_top_policy) < 0)
		return MNL_CB_ERROR;
	if (!tb[RMEM_A_DEV]) {
		pr_err("kernel reply without a device");
		return MNL_CB_ERROR;
	}
	if (nl_parse_nested(tb[RMEM_A_DEV], dtb, RMEM_A_DEV_MAX,
			    dev_policy) < 0)
		return MNL_CB_ERROR;
	if (!dtb[RMEM_A_DEV_NAME]) {
		pr_err("kernel reply without a device name");
		return MNL_CB_ERROR;
	}

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "%s",
		     mnl_attr_get_str(dtb[RMEM_A_DEV_NAME]));
	print_nl();
	close_json_object();
	return MNL_CB_OK;
}

/* dev show [DEV]: one device by name, or dump them all. */
static int dev_show(struct rmemctl *ctl)
{
	const char *name = arg_next(ctl);
	struct nlattr *nest;
	struct nl *nl;

	if (arg_end(ctl, dev_usage) < 0)
		return -1;
	nl = rmemctl_nl(ctl);
	if (!nl)
		return -1;

	if (name) {
		nl_msg(nl, RMEM_CMD_DEV_GET, 0);
		nest = nl_nest_start(nl, RMEM_A_DEV);
		nl_put_strz(nl, RMEM_A_DEV_NAME, name);
		nl_nest_end(nl, nest);
	} else {
		nl_msg(nl, RMEM_CMD_DEV_GET, NLM_F_DUMP);
	}
	return rmemctl_list(nl, dev_show_cb, NULL);
}

static const struct cmd dev_cmds[] = {
	{ "show",	dev_show },
	{ "help",	dev_help },
	{ NULL,		NULL }
};

int cmd_dev(struct rmemctl *ctl)
{
	return cmd_dispatch(ctl, "dev command", dev_cmds, "show", dev_usage);
}
