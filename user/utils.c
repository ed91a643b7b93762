// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl: small helpers shared by every file: messages, and parsing and
 * formatting of sizes, durations, numbers and addresses.
 *
 * Parsers are strict: a value is taken whole or refused with a message
 * that quotes it, so that nothing is sent to the kernel on a typo.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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

/* Print "invalid WHAT 'STR': <why>" and return -1. */
static int __attribute__((format(printf, 3, 4)))
invalid(const char *what, const char *str, const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pr_err("invalid %s '%s': %s", what, str, why);
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Leading decimal digits of @str into @val; *@end is set past them.
 * Return: 0, -1 without a digit, -2 above @max.
 */
static int parse_digits(const char *str, uint64_t max, uint64_t *val,
			const char **end)
{
	uint64_t n = 0;
	unsigned int d;

	*end = str;
	if (!is_digit(*str))
		return -1;
	for (; is_digit(*str); str++) {
		d = *str - '0';
		if (n > (max - d) / 10)
			return -2;
		n = n * 10 + d;
	}
	*val = n;
	*end = str;
	return 0;
}

/* Binary shift of a size suffix, or -1 if @sfx is not one. */
static int size_shift(const char *sfx)
{
	static const char units[] = "kmgt";
	const char *u;
	char c = *sfx;

	if (!c)
		return 0;
	if (c >= 'A' && c <= 'Z')
		c += 'a' - 'A';
	u = strchr(units, c);
	if (!u)
		return -1;
	if (sfx[1] && strcmp(sfx + 1, "iB"))
		return -1;
	return 10 * (u - units + 1);
}

int parse_size(const char *str, uint64_t *val)
{
	const char *end;
	uint64_t n;
	int ret, shift;

	ret = parse_digits(str, UINT64_MAX, &n, &end);
	if (ret == -1)
		return invalid("size", str,
			       "expected a number of bytes with an optional K, M, G or T");
	if (ret == -2)
		return invalid("size", str, "too large");
	if (*end == '.' || *end == ',')
		return invalid("size", str,
			       "not a whole number (write 1536M for 1.5G)");
	shift = size_shift(end);
	if (shift < 0)
		return invalid("size", str,
			       "unknown suffix '%s' (use K, M, G or T, or KiB, MiB, GiB, TiB)",
			       end);
	if (n == 0)
		return invalid("size", str, "must be greater than zero");
	if (n > UINT64_MAX >> shift)
		return invalid("size", str, "too large");
	*val = n << shift;
	return 0;
}

int parse_u32(const char *str, const char *what, uint32_t *val)
{
	const char *end;
	uint64_t n;

	if (parse_digits(str, UINT32_MAX, &n, &end) || *end)
		return invalid(what, str, "expected a number from 0 to %u",
			       UINT32_MAX);
	*val = n;
	return 0;
}

/* Milliseconds per unit of a duration suffix, or 0 if @sfx is not one. */
static uint32_t duration_unit(const char *sfx)
{
	if (!*sfx || !strcmp(sfx, "s"))
		return 1000;
	if (!strcmp(sfx, "ms"))
		return 1;
	if (!strcmp(sfx, "m"))
		return 60 * 1000;
	return 0;
}

#define DURATION_SYNTAX "expected NUMBER[ms|s|m], such as 500ms, 1.5s or 2m"

int parse_duration(const char *str, const char *what, uint32_t *ms)
{
	uint64_t n, frac = 0, pow10 = 1, unit, total;
	const char *end, *digits;
	size_t ndigits;
	int ret;

	if (*str == '-')
		return invalid(what, str, "must not be negative");
	ret = parse_digits(str, UINT32_MAX, &n, &end);
	if (ret == -1)
		return invalid(what, str, DURATION_SYNTAX);
	if (ret == -2)
		return invalid(what, str, "too long (at most %ums)",
			       UINT32_MAX);
	if (*end == '.') {
		digits = ++end;
		while (is_digit(*end))
			end++;
		if (end == digits)
			return invalid(what, str, DURATION_SYNTAX);
		/* trailing zeros change nothing */
		for (ndigits = end - digits;
		     ndigits && digits[ndigits - 1] == '0'; ndigits--)
			;
		/*
		 * More than five significant decimals are never a whole
		 * number of milliseconds: the largest unit, 60000 ms, is
		 * 2^5 * 3 * 5^4.
		 */
		if (ndigits > 5)
			return invalid(what, str,
				       "not a whole number of milliseconds");
		for (; ndigits; ndigits--, digits++) {
			frac = frac * 10 + (*digits - '0');
			pow10 *= 10;
		}
	}
	unit = duration_unit(end);
	if (!unit)
		return invalid(what, str,
			       "unknown unit '%s' (use ms, s or m)", end);
	if (frac * unit % pow10)
		return invalid(what, str, "not a whole number of milliseconds");
	/* n <= UINT32_MAX and unit <= 60000: no 64-bit overflow */
	total = n * unit + frac * unit / pow10;
	if (total > UINT32_MAX)
		return invalid(what, str, "too long (at most %ums)",
			       UINT32_MAX);
	*ms = total;
	return 0;
}

const char *fmt_duration(char *buf, size_t len, uint32_t ms)
{
	if (ms % 1000)
		snprintf(buf, len, "%ums", ms);
	else
		snprintf(buf, len, "%us", ms / 1000);
	return buf;
}

const char *fmt_latency(char *buf, size_t len, double us)
{
	static const struct {
		const char *name;
		double us;
	} units[] = {
		{ "us", 1 },
		{ "ms", 1e3 },
		{ "s", 1e6 },
	};
	double v = us;
	size_t i;

	/* the largest unit in which the value rounds to less than 1000 */
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		v = us / units[i].us;
		if (v < 999.5 || i == ARRAY_SIZE(units) - 1)
			break;
	}
	if (v < 9.95 && (unsigned int)(v * 10 + 0.5) % 10)
		snprintf(buf, len, "%.1f%s", v, units[i].name);
	else
		snprintf(buf, len, "%.0f%s", v, units[i].name);
	return buf;
}

const char *fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGT";
	int i;

	for (i = 4; bytes && i > 0; i--) {
		unsigned int shift = 10 * i;

		if (!(bytes & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(bytes >> shift),
				 units[i - 1]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

size_t inet_addr_len(int family)
{
	return family == AF_INET ? 4 : 16;
}

/* A port number, 1 to 65535. */
static int parse_port(const char *what, const char *str, const char *port,
		      uint16_t *val)
{
	const char *end;
	uint64_t n;

	if (parse_digits(port, UINT16_MAX, &n, &end) || *end || n == 0)
		return invalid(what, str,
			       "port '%s' is not a number from 1 to 65535",
			       port);
	*val = n;
	return 0;
}

/*
 * Copy @len bytes of @src to @dst (@size bytes) as a string; an
 * address part longer than any address cannot be one.
 */
static bool copy_part(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		return false;
	memcpy(dst, src, len);
	dst[len] = '\0';
	return true;
}

#define ADDR_SYNTAX "expected a.b.c.d[:PORT], [IPV6][:PORT] or IPV6 (no host names)"

int parse_addr_port(const char *str, uint16_t dflt_port, struct inet_addr *a)
{
	const char *port = NULL, *end, *colon;
	char host[INET6_ADDRSTRLEN];

	memset(a, 0, sizeof(*a));
	a->port = dflt_port;

	if (str[0] == '[') {
		end = strchr(str, ']');
		if (!end)
			return invalid("address", str, "missing ']'");
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return invalid("address", str,
				       "expected ':PORT' after ']'");
		a->family = AF_INET6;
		if (!copy_part(host, sizeof(host), str + 1, end - str - 1))
			return invalid("address", str, "not an IPv6 address");
	} else {
		colon = strchr(str, ':');
		if (colon && strchr(colon + 1, ':')) {
			/* Two colons or more: a bare IPv6 address. */
			a->family = AF_INET6;
			colon = NULL;
		} else {
			a->family = AF_INET;
		}
		if (colon)
			port = colon + 1;
		if (!copy_part(host, sizeof(host), str,
			       colon ? (size_t)(colon - str) : strlen(str)))
			return invalid("address", str, ADDR_SYNTAX);
	}

	if (inet_pton(a->family, host, a->addr) != 1)
		return invalid("address", str, a->family == AF_INET6 &&
			       str[0] == '[' ? "not an IPv6 address" :
			       ADDR_SYNTAX);
	if (port && parse_port("address", str, port, &a->port) < 0)
		return -1;
	return 0;
}

int parse_prefix(const char *str, struct inet_addr *a)
{
	const char *slash = strrchr(str, '/');
	const char *host = str, *end;
	size_t len = slash ? (size_t)(slash - str) : strlen(str);
	char buf[INET6_ADDRSTRLEN];
	bool brackets = false;
	unsigned int max;
	uint64_t plen;

	memset(a, 0, sizeof(*a));
	if (len >= 2 && host[0] == '[' && host[len - 1] == ']') {
		brackets = true;
		host++;
		len -= 2;
	}
	if (!copy_part(buf, sizeof(buf), host, len))
		return invalid("prefix", str, "expected ADDR[/LEN]");
	if (!brackets && inet_pton(AF_INET, buf, a->addr) == 1)
		a->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, a->addr) == 1)
		a->family = AF_INET6;
	else
		return invalid("prefix", str,
			       "expected a.b.c.d[/LEN] or IPV6[/LEN]");

	max = a->family == AF_INET ? 32 : 128;
	a->plen = max;
	if (slash) {
		if (parse_digits(slash + 1, max, &plen, &end) || *end)
			return invalid("prefix", str,
				       "length '%s' is not a number from 0 to %u",
				       slash + 1, max);
		a->plen = plen;
	}
	return 0;
}

const char *fmt_addr_port(char *buf, size_t len, const struct inet_addr *a)
{
	char host[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family, a->addr, host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	if (a->family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", host, a->port);
	else
		snprintf(buf, len, "%s:%u", host, a->port);
	return buf;
}

const char *fmt_prefix(char *buf, size_t len, const struct inet_addr *a)
{
	char host[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family, a->addr, host, sizeof(host)))
		snprintf(host, sizeof(host), "?");
	snprintf(buf, len, "%s/%u", host, a->plen);
	return buf;
}

const char *fmt_hex(char *buf, size_t len, const void *data, size_t n)
{
	const uint8_t *p = data;
	size_t i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", p[i]);
	return buf;
}

const char *dev_basename(const char *name)
{
	if (!strncmp(name, "/dev/", 5) && name[5])
		return name + 5;
	return name;
}
