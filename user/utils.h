/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: small helpers shared by every file.
 */
#ifndef RMEMCTL_UTILS_H
#define RMEMCTL_UTILS_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Print "rmemctl: <message>\n" on stderr. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* RMEMCTL_UTILS_H */
