// SPDX-License-Identifier: GPL-2.0
/*
 * rmemctl: one output path for text and JSON, in the style of iproute2.
 *
 * The JSON writer keeps a stack of open containers to place commas,
 * keys and (with -p) newlines and indentation.  Each complete top-level
 * value is ended with a newline and flushed, so a stream of events can
 * later be printed as one JSON document per line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "json_print.h"
#include "utils.h"

#define JSON_MAX_DEPTH	16

static struct {
	bool on;
	bool pretty;
	int depth;
	char kind[JSON_MAX_DEPTH];	/* '{' or '[' */
	bool empty[JSON_MAX_DEPTH];	/* nothing in it yet */
} jw;

void json_init(bool json, bool pretty)
{
	jw.on = json;
	jw.pretty = pretty;
	jw.depth = 0;
}

bool is_json_context(void)
{
	return jw.on;
}

static bool want(enum output_type type)
{
	return type & (jw.on ? PRINT_JSON : PRINT_FP);
}

static void jw_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				printf("\\u%04x", c);
			else
				putchar(c);
		}
	}
	putchar('"');
}

static void jw_newline(void)
{
	int i;

	if (!jw.pretty)
		return;
	putchar('\n');
	for (i = 0; i < jw.depth; i++)
		fputs("  ", stdout);
}

/* Comma, indentation and, inside an object, the key of a new value. */
static void jw_begin(const char *key)
{
	int top = jw.depth - 1;

	if (jw.depth == 0)
		return;
	if (!jw.empty[top])
		putchar(',');
	jw.empty[top] = false;
	jw_newline();
	if (jw.kind[top] == '{') {
		jw_string(key ? key : "");
		fputs(jw.pretty ? ": " : ":", stdout);
	}
}

/* A complete top-level value is a document of its own. */
static void jw_end(void)
{
	if (jw.depth == 0) {
		putchar('\n');
		fflush(stdout);
	}
}

static void jw_open(const char *key, char kind)
{
	if (jw.depth == JSON_MAX_DEPTH) {
		fputs("rmemctl: JSON nested too deep\n", stderr);
		abort();
	}
	jw_begin(key);
	putchar(kind);
	jw.kind[jw.depth] = kind;
	jw.empty[jw.depth] = true;
	jw.depth++;
}

static void jw_close(void)
{
	if (jw.depth == 0)
		return;
	jw.depth--;
	if (!jw.empty[jw.depth])
		jw_newline();
	putchar(jw.kind[jw.depth] == '{' ? '}' : ']');
	jw_end();
}

void open_json_object(const char *key)
{
	if (jw.on)
		jw_open(key, '{');
}

void close_json_object(void)
{
	if (jw.on)
		jw_close();
}

void open_json_array(enum output_type type, const char *key)
{
	if (!want(type))
		return;
	if (jw.on)
		jw_open(key, '[');
	else if (key)
		fputs(key, stdout);
}

void close_json_array(enum output_type type, const char *delim)
{
	if (!want(type))
		return;
	if (jw.on)
		jw_close();
	else if (delim)
		fputs(delim, stdout);
}

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value)
{
	if (!want(type))
		return;
	if (jw.on) {
		jw_begin(key);
		if (value)
			jw_string(value);
		else
			fputs("null", stdout);
		jw_end();
	} else if (fmt && value) {
		printf(fmt, value);
	}
}

void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int value)
{
	if (!want(type))
		return;
	if (jw.on) {
		jw_begin(key);
		printf("%u", value);
		jw_end();
	} else if (fmt) {
		printf(fmt, value);
	}
}

void print_u64(enum output_type type, const char *key, const char *fmt,
	       uint64_t value)
{
	if (!want(type))
		return;
	if (jw.on) {
		jw_begin(key);
		printf("%llu", (unsigned long long)value);
		jw_end();
	} else if (fmt) {
		printf(fmt, (unsigned long long)value);
	}
}

void print_size(enum output_type type, const char *key, const char *fmt,
		uint64_t bytes)
{
	char buf[SIZE_STR_LEN];

	if (jw.on)
		print_u64(type, key, NULL, bytes);
	else
		print_string(type, key, fmt, fmt_size(buf, sizeof(buf), bytes));
}

void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value)
{
	const char *str = value ? "true" : "false";

	if (!want(type))
		return;
	if (jw.on) {
		jw_begin(key);
		fputs(str, stdout);
		jw_end();
	} else if (fmt) {
		printf(fmt, str);
	}
}

void print_nl(void)
{
	if (!jw.on)
		putchar('\n');
}
