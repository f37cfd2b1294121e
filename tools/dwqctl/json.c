// SPDX-License-Identifier: GPL-2.0
/*
 * --json output: one JSON object per line on stdout, flushed at once so a
 * script reading a stream (run, watch, schedule --wait) sees each record as
 * it happens. Every object has a "type" first.
 *
 *	json_begin("event");
 *	json_u64("id", 3);
 *	json_end();			-> {"type":"event","id":3}
 */
#include <math.h>
#include <stdio.h>

#include "dwqctl.h"

#define JSON_DEPTH 8

static int first[JSON_DEPTH];
static int depth;

static void json_sep(void)
{
	if (!first[depth])
		putchar(',');
	first[depth] = 0;
}

static void json_quote(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\t')
			fputs("\\t", stdout);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

/**
 * json_begin() - start an object on a new line
 * @type: the value of its "type" key
 */
void json_begin(const char *type)
{
	depth = 0;
	first[0] = 1;
	putchar('{');
	json_str("type", type);
	if (opt.line)
		json_u64("line", opt.line);
}

/**
 * json_end() - end the object and its line, and flush
 *
 * Nested arrays and objects must have been ended already.
 */
void json_end(void)
{
	depth = 0;
	fputs("}\n", stdout);
	fflush(stdout);
}

/**
 * json_key() - write a key: the value is written next, by the caller
 * @key: the key
 */
void json_key(const char *key)
{
	json_sep();
	json_quote(key);
	putchar(':');
}

void json_u64(const char *key, __u64 v)
{
	json_key(key);
	printf("%llu", v);
}

void json_s64(const char *key, __s64 v)
{
	json_key(key);
	printf("%lld", v);
}

void json_str(const char *key, const char *s)
{
	json_key(key);
	json_quote(s);
}

void json_bool(const char *key, int v)
{
	json_key(key);
	fputs(v ? "true" : "false", stdout);
}

void json_double(const char *key, double v)
{
	json_key(key);
	if (isfinite(v))
		printf("%.6g", v);
	else
		fputs("null", stdout);
}

/* Arrays hold strings only. Callers balance their begins and ends. */
void json_array_begin(const char *key)
{
	json_key(key);
	putchar('[');
	if (depth < JSON_DEPTH - 1)
		depth++;
	first[depth] = 1;
}

void json_array_str(const char *s)
{
	json_sep();
	json_quote(s);
}

void json_array_end(void)
{
	putchar(']');
	if (depth > 0)
		depth--;
}

void json_object_begin(const char *key)
{
	json_key(key);
	putchar('{');
	if (depth < JSON_DEPTH - 1)
		depth++;
	first[depth] = 1;
}

void json_object_end(void)
{
	putchar('}');
	if (depth > 0)
		depth--;
}
