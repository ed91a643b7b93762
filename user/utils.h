/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: small helpers shared by every file: messages, and parsing and
 * formatting of sizes, durations, numbers and addresses.
 */
#ifndef RMEMCTL_UTILS_H
#define RMEMCTL_UTILS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Print "rmemctl: <message>\n" on stderr. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * SIZE: a decimal number of bytes with an optional binary suffix K, M, G,
 * T (or k, m, g, t, KiB, MiB, GiB, TiB).  Zero is refused.
 * Return: 0, or -1 after printing "invalid size 'STR': why".
 */
int parse_size(const char *str, uint64_t *val);

/*
 * A decimal u32; @what names it in the error message.
 * Return: 0, or -1 after printing "invalid WHAT 'STR': why".
 */
int parse_u32(const char *str, const char *what, uint32_t *val);

/*
 * TIME: a decimal number with an optional unit ms, s or m (seconds
 * without one); a fraction is allowed if the result is a whole number of
 * milliseconds ("1.5s", "0.25"), a sign is not.  @what names it in the
 * error message.  *@ms is the duration in milliseconds, at most
 * UINT32_MAX.
 * Return: 0, or -1 after printing "invalid WHAT 'STR': why".
 */
int parse_duration(const char *str, const char *what, uint32_t *ms);

/* Longest output of fmt_size(), with the NUL. */
#define SIZE_STR_LEN	24

/* Bytes in the largest unit that is exact ("1G", "512M"), else "1536". */
const char *fmt_size(char *buf, size_t len, uint64_t bytes);

/* Longest output of fmt_duration(), with the NUL. */
#define DURATION_STR_LEN	16

/* Milliseconds as whole seconds when exact ("30s"), else "1500ms". */
const char *fmt_duration(char *buf, size_t len, uint32_t ms);

/* Longest output of fmt_latency(), with the NUL. */
#define LATENCY_STR_LEN	24

/*
 * A latency in microseconds, in us, ms or s: one decimal below 10 and
 * none from there, without a trailing ".0" ("64us", "1ms", "1.3ms",
 * "262ms", "8.4s").
 */
const char *fmt_latency(char *buf, size_t len, double us);

/* An IPv4 or IPv6 address with a port or a prefix length. */
struct inet_addr {
	int family;		/* AF_INET or AF_INET6 */
	uint8_t addr[16];	/* network order; 4 bytes used for IPv4 */
	uint16_t port;		/* host order */
	uint8_t plen;		/* prefix length, for prefixes */
};

/* Bytes of the address of @family: 4 or 16. */
size_t inet_addr_len(int family);

/*
 * ADDR[:PORT]: "a.b.c.d", "a.b.c.d:port", "[v6addr]", "[v6addr]:port" or
 * a bare IPv6 address.  The port is @dflt_port when not given.
 * Return: 0, or -1 after printing "invalid address 'STR': why".
 */
int parse_addr_port(const char *str, uint16_t dflt_port,
		    struct inet_addr *a);

/*
 * PREFIX: ADDR[/LEN], the address IPv4 or IPv6 (bare or in brackets);
 * LEN defaults to the full length of the address.
 * Return: 0, or -1 after printing "invalid prefix 'STR': why".
 */
int parse_prefix(const char *str, struct inet_addr *a);

/* Longest output of fmt_addr_port() and fmt_prefix(), with the NUL. */
#define ADDR_STR_LEN	64

/* "a.b.c.d:port" or "[v6addr]:port". */
const char *fmt_addr_port(char *buf, size_t len, const struct inet_addr *a);
/* "a.b.c.d/len" or "v6addr/len". */
const char *fmt_prefix(char *buf, size_t len, const struct inet_addr *a);

/* Lowercase hex of @n bytes, truncated to fit @len with its NUL. */
const char *fmt_hex(char *buf, size_t len, const void *data, size_t n);

/* "/dev/rmem0" -> "rmem0": device names are accepted as paths too. */
const char *dev_basename(const char *name);

#endif /* RMEMCTL_UTILS_H */
