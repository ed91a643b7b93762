// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl: configure rmem, remote RAM over RDMA as a block device.
 *
 * rmemctl [OPTIONS] OBJECT VERB ARGS, in the style of iproute2: each
 * object has its own file with a table of verbs.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <linux/rmem.h>

#include "json_print.h"
#include "rmemctl.h"
#include "utils.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rmemctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       rmemctl { -V | --version }\n"
		"       rmemctl { -h | --help }\n"
		"where  OBJECT := { server | dev | volume | key | monitor }\n"
		"       OPTIONS := { -j | --json | -p | --pretty | -s | --stats }\n"
		"\n"
		"       rmemctl server add name NAME listen ADDR[:PORT] size SIZE\n"
		"                          [ mr-size SIZE ] [ allow PREFIX ]...\n"
		"                          [ auth { none | optional | required } ]\n"
		"       rmemctl server del NAME\n"
		"       rmemctl server show [ NAME ]\n"
		"       rmemctl server host add NAME host ID\n"
		"                               { key-file FILE | key-desc DESC }\n"
		"                               [ size-limit SIZE ] [ sessions N ]\n"
		"       rmemctl server host del NAME host ID [ force ]\n"
		"       rmemctl dev add peer ADDR[:PORT] size SIZE [ volume VOL ]\n"
		"                       [ qps N ] [ poll-qps N ] [ queue-depth N ]\n"
		"                       [ keepalive TIME ] [ loss-timeout TIME ]\n"
		"                       [ read-split SIZE | read-split off ]\n"
		"                       [ read-depth N ]\n"
		"                       [ host ID ] [ key-file FILE | key-desc DESC ]\n"
		"                       [ name rmemN ]\n"
		"       rmemctl dev del rmemN [ force ]\n"
		"       rmemctl dev show [ -s ] [ rmemN ]\n"
		"       rmemctl dev stats reset rmemN\n"
		"       rmemctl volume show [ server NAME ]\n"
		"       rmemctl volume del server NAME volume VOL\n"
		"       rmemctl key { gen | check FILE | identity }\n"
		"       rmemctl key { load FILE desc DESC | unload desc DESC }\n"
		"       rmemctl monitor\n");
	usage_syntax(f, true);
	fprintf(f,
		"\n"
		"Objects and commands may be abbreviated to a unique prefix.\n"
		"Run \"rmemctl OBJECT help\" for the commands of an object.\n");
}

void usage_syntax(FILE *f, bool where)
{
	fprintf(f,
		"%s SIZE := NUMBER[ K | M | G | T ] (bytes, binary units;\n"
		"               KiB, MiB, GiB, TiB and k, m, g, t also accepted)\n"
		"       ADDR := { a.b.c.d | [IPV6] | IPV6 }, PORT := 1..65535,\n"
		"               default %u; a bare IPV6 takes no :PORT\n"
		"       PREFIX := { a.b.c.d | IPV6 }[/LEN]\n"
		"       TIME := NUMBER[ ms | s | m ] (seconds without a unit;\n"
		"               fractions allowed: 1.5s, 0.25)\n",
		where ? "where " : "      ", RMEM_DEFAULT_PORT);
}

static int cmd_help(struct rmemctl *ctl)
{
	usage(stdout);
	return 0;
}

static const struct cmd objects[] = {
	{ "server",	cmd_server },
	{ "dev",	cmd_dev },
	{ "volume",	cmd_volume },
	{ "key",	cmd_key },
	{ "monitor",	cmd_monitor },
	{ "help",	cmd_help },
	{ NULL,		NULL }
};

const char *arg_next(struct rmemctl *ctl)
{
	if (ctl->argc == 0)
		return NULL;
	ctl->argc--;
	return *ctl->argv++;
}

int arg_end(struct rmemctl *ctl, usage_fn usage)
{
	if (ctl->argc == 0)
		return 0;
	pr_err("unexpected argument \"%s\"", ctl->argv[0]);
	usage(stderr);
	return -1;
}

bool arg_is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") ||
	       !strcmp(word, "--help");
}

const char *arg_value(struct rmemctl *ctl, const char *key, bool *seen)
{
	const char *val;

	if (seen && *seen) {
		pr_err("\"%s\" given twice", key);
		return NULL;
	}
	val = arg_next(ctl);
	if (!val) {
		pr_err("missing value after \"%s\"", key);
		return NULL;
	}
	if (seen)
		*seen = true;
	return val;
}

int arg_missing(const char *what, usage_fn usage)
{
	pr_err("missing %s", what);
	usage(stderr);
	return -1;
}

int arg_unknown(const char *word, usage_fn usage)
{
	pr_err("unknown argument \"%s\"", word);
	usage(stderr);
	return -1;
}

int arg_check_name(const char *what, const char *str, size_t max)
{
	if (!*str) {
		pr_err("invalid %s '': empty", what);
		return -1;
	}
	if (strlen(str) >= max) {
		pr_err("invalid %s '%s': longer than %zu characters", what,
		       str, max - 1);
		return -1;
	}
	return 0;
}

int cmd_dispatch(struct rmemctl *ctl, const char *what,
		 const struct cmd *cmds, const char *dflt, usage_fn usage)
{
	const char *word = arg_next(ctl);
	const struct cmd *cmd, *found = NULL;
	size_t len;
	int n = 0;

	if (!word)
		word = dflt;
	if (!word) {
		usage(stderr);
		return -1;
	}

	len = strlen(word);
	for (cmd = cmds; cmd->name; cmd++) {
		if (!strcmp(cmd->name, word)) {
			found = cmd;
			n = 1;
			break;
		}
		if (len && !strncmp(cmd->name, word, len)) {
			found = cmd;
			n++;
		}
	}
	if (n == 1)
		return found->fn(ctl);

	pr_err("%s %s \"%s\"", n ? "ambiguous" : "unknown", what, word);
	usage(stderr);
	return -1;
}

struct nl *rmemctl_nl(struct rmemctl *ctl)
{
	if (!ctl->nl_ready) {
		if (nl_open(&ctl->nl) < 0)
			return NULL;
		ctl->nl_ready = true;
	}
	return &ctl->nl;
}

/* In JSON a listing is always an array, even empty or after an error. */
int rmemctl_list(struct nl *nl, mnl_cb_t cb, void *data)
{
	int ret;

	open_json_array(PRINT_JSON, NULL);
	ret = nl_run(nl, cb, data);
	close_json_array(PRINT_JSON, NULL);
	return ret;
}

/* Report output that could not be written: 0, or 1 after an error. */
static int flush_stdout(void)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		pr_err("write error: %s", strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",	no_argument,	NULL, 'j' },
		{ "pretty",	no_argument,	NULL, 'p' },
		{ "stats",	no_argument,	NULL, 's' },
		{ "version",	no_argument,	NULL, 'V' },
		{ "help",	no_argument,	NULL, 'h' },
		{ NULL,		0,		NULL, 0 }
	};
	struct rmemctl ctl = { 0 };
	bool json = false, pretty = false;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jpsVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'p':
			json = true;
			pretty = true;
			break;
		case 's':
			ctl.stats = true;
			break;
		case 'V':
			printf("rmemctl %s (netlink family \"%s\" version %d)\n",
			       RMEM_VERSION, RMEM_FAMILY_NAME,
			       RMEM_FAMILY_VERSION);
			return flush_stdout();
		case 'h':
			usage(stdout);
			return flush_stdout();
		default:
			if (optopt)
				pr_err("unknown option \"-%c\"", optopt);
			else
				pr_err("unknown option \"%s\"",
				       argv[optind - 1]);
			usage(stderr);
			return 1;
		}
	}

	json_init(json, pretty);
	ctl.argc = argc - optind;
	ctl.argv = argv + optind;
	ret = cmd_dispatch(&ctl, "object", objects, NULL, usage);

	if (ctl.nl_ready)
		nl_close(&ctl.nl);
	if (flush_stdout())
		ret = -1;
	return ret ? 1 : 0;
}
