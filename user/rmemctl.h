/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: command line state and the command dispatcher.
 */
#ifndef RMEMCTL_H
#define RMEMCTL_H

#include <stdbool.h>
#include <stdio.h>

#include "nl.h"

#ifndef RMEMCTL_VERSION
#define RMEMCTL_VERSION "0.1"
#endif

struct rmemctl {
	int argc;		/* arguments not consumed yet */
	char **argv;
	struct nl nl;
	bool nl_ready;
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

/* Objects. */
int cmd_server(struct rmemctl *ctl);
int cmd_dev(struct rmemctl *ctl);

#endif /* RMEMCTL_H */
