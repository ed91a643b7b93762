/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: command line state and the command dispatcher.
 */
#ifndef RMEMCTL_H
#define RMEMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "nl.h"

/* from the top-level VERSION file, by the Makefile */
#ifndef RMEM_VERSION
#error "RMEM_VERSION is not defined: build with the top-level Makefile"
#endif

struct rmemctl {
	int argc;		/* arguments not consumed yet */
	char **argv;
	struct nl nl;
	bool nl_ready;
	bool stats;		/* -s: statistics in text output too */
};

/* One word of the command line and its handler: 0 or -1 on failure. */
struct cmd {
	const char *name;
	int (*fn)(struct rmemctl *ctl);
};

typedef void (*usage_fn)(FILE *f);

/* Consume and return the next argument, or NULL at the end. */
const char *arg_next(struct rmemctl *ctl);

/* Fail with a message and @usage if arguments are left over. */
int arg_end(struct rmemctl *ctl, usage_fn usage);

/* Whether @word asks for help ("help", "-h", "--help"). */
bool arg_is_help(const char *word);

/*
 * Consume the value that follows keyword @key.  *@seen records that @key
 * was given (NULL: it may be repeated).
 * Return: the value, or NULL after printing that it is missing or that
 * @key was given twice.
 */
const char *arg_value(struct rmemctl *ctl, const char *key, bool *seen);

/* Print "missing WHAT" and @usage on stderr; return -1. */
int arg_missing(const char *what, usage_fn usage);

/* Print "unknown argument WORD" and @usage on stderr; return -1. */
int arg_unknown(const char *word, usage_fn usage);

/*
 * Check a name given on the command line: not empty and shorter than
 * @max bytes with its NUL.  @what names it in the message.
 * Return: 0, or -1 after printing "invalid WHAT 'STR': why".
 */
int arg_check_name(const char *what, const char *str, size_t max);

/*
 * The SIZE, ADDR, PREFIX and TIME syntax, for the usage texts; @where: begin
 * with "where", else continue a "where" list.
 */
void usage_syntax(FILE *f, bool where);

/*
 * Consume the next argument and run the command of @cmds (a table ended
 * by a NULL name) that it names exactly or by an unambiguous prefix.
 * Without an argument run @dflt, or print @usage and fail if NULL.
 * @what names the word in error messages ("object", "dev command").
 */
int cmd_dispatch(struct rmemctl *ctl, const char *what,
		 const struct cmd *cmds, const char *dflt, usage_fn usage);

/* The netlink socket, opened on first use; NULL after printing why. */
struct nl *rmemctl_nl(struct rmemctl *ctl);

/* Run the current request of @nl and print its replies as a list. */
int rmemctl_list(struct nl *nl, mnl_cb_t cb, void *data);

/*
 * Print the device of a message carrying an RMEM_A_DEV nest (a DEV_GET
 * reply or a DEV_STATE_NTF event) like "dev show" does.
 * Return: MNL_CB_OK, or MNL_CB_ERROR after printing why.
 */
int dev_print_msg(const struct nlmsghdr *nlh, bool stats);

/* dev.c, for dev_set.c: the usage, a request's device nest, a reply's */
void dev_usage(FILE *f);
struct nlattr *dev_msg(struct nl *nl, uint8_t cmd, const char *name);
const struct nlattr *dev_nest(const struct nlmsghdr *nlh);
extern const enum mnl_attr_data_type dev_peer_policy[RMEM_A_PEER_MAX + 1];
int dev_set(struct rmemctl *ctl);
int dev_arg_name(struct rmemctl *ctl, const char **name);

/* Objects. */
int cmd_server(struct rmemctl *ctl);
int cmd_dev(struct rmemctl *ctl);
int cmd_volume(struct rmemctl *ctl);
int cmd_monitor(struct rmemctl *ctl);
int cmd_key(struct rmemctl *ctl);

#endif /* RMEMCTL_H */
