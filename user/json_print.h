/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rmemctl: one output path for text and JSON, in the style of iproute2.
 *
 * Every print_*() call names both the JSON key and the text format: in
 * text mode the format is printed with the value (nothing if it is NULL),
 * in JSON mode the key and the value are emitted (the key is ignored
 * inside an array).  Objects only exist in JSON; arrays print their name
 * and closing delimiter in text mode when asked to with PRINT_FP.
 */
#ifndef RMEMCTL_JSON_PRINT_H
#define RMEMCTL_JSON_PRINT_H

#include <stdbool.h>
#include <stdint.h>

enum output_type {
	PRINT_FP = 1,		/* text output only */
	PRINT_JSON = 2,		/* JSON output only */
	PRINT_ANY = 3,		/* both */
};

void json_init(bool json, bool pretty);
bool is_json_context(void);

void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(enum output_type type, const char *key);
void close_json_array(enum output_type type, const char *delim);

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value);
void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int value);
/* The text format takes an unsigned long long: use %llu or %llx. */
void print_u64(enum output_type type, const char *key, const char *fmt,
	       uint64_t value);
/*
 * A size in bytes: a number in JSON, a string such as "512M" for the text
 * format (see fmt_size()).
 */
void print_size(enum output_type type, const char *key, const char *fmt,
		uint64_t bytes);
/* The text format takes "true" or "false" as a string. */
void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value);
/* End a line of text output; nothing in JSON. */
void print_nl(void);

#endif /* RMEMCTL_JSON_PRINT_H */
