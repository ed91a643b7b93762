// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl: small helpers shared by every file.
 */
#include <stdarg.h>
#include <stdio.h>

#include "utils.h"

void pr_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("rmemctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
