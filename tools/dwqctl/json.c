// SPDX-License-Identifier: GPL-2.0
/*
 * --json output: one JSON object per line on stdout, flushed at once so a
 * script reading a stream (run, watch, after, every) sees each record as
 * it happens. Every object has a "type" first.
 *
 *	json_begin("event");
 *	json_id("id", 3);
 *	json_end();			-> {"type":"event","id":"3"}
 *
 * Integers: JSON numbers are IEEE doubles to jq and JavaScript, exact only
 * up to 2^53. Ids, cookies and every *_ns member (a time or a duration in
 * nanoseconds: CLOCK_MONOTONIC passes 2^53 ns after 104 days of uptime)
 * are therefore always strings of decimal digits, so that their type does
 * not change with their value. Other integers are counts that stay far
 * below 2^53; one that did not would be written as a string too rather
 * than rounded.
 *
 * Strings are UTF-8: a byte that is not part of a valid UTF-8 sequence
 * (from a file name, a script, a command line) is written as U+FFFD, the
 * replacement character, so the output is always valid JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dwqctl.h"

#define JSON_DEPTH 8
/* 2^53: the largest integer a double holds exactly, with all below it. */
#define JSON_EXACT_MAX 9007199254740992ULL

static int first[JSON_DEPTH];
static int depth;
static FILE *out;
/* The record being made, written whole by json_end(). */
static FILE *rec;
static char *rec_buf;
static size_t rec_len;

static FILE *json_file(void)
{
	if (out)
		return out;
	return rec ? rec : stdout;
}

/**
 * json_output() - send the records to @f instead of stdout (unit tests)
 * @f: the stream; NULL for stdout again
 */
void json_output(FILE *f)
{
	out = f;
}

static void json_sep(void)
{
	if (!first[depth])
		fputc(',', json_file());
	first[depth] = 0;
}

/*
 * The length of the valid UTF-8 sequence at @p (1 to 4), or 0 if @p does
 * not start one: a stray continuation byte, an overlong form, a surrogate,
 * a code point above U+10FFFF or a sequence cut short.
 */
static int utf8_len(const unsigned char *p)
{
	int len, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

static void json_quote(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	FILE *f = json_file();
	int len;

	fputc('"', f);
	while (*p) {
		len = utf8_len(p);
		if (!len) {
			fputs("\\ufffd", f);
			p++;
			continue;
		}
		if (len == 3 && p[0] == 0xe2 && p[1] == 0x80 &&
		    (p[2] == 0xa8 || p[2] == 0xa9)) {
			/* U+2028, U+2029: valid JSON, not valid JavaScript */
			fprintf(f, "\\u%04x", 0x2000 | (p[2] - 0x80));
		} else if (*p == '"' || *p == '\\') {
			fprintf(f, "\\%c", *p);
		} else if (*p == '\n') {
			fputs("\\n", f);
		} else if (*p == '\t') {
			fputs("\\t", f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else {
			fwrite(p, 1, len, f);
		}
		p += len;
	}
	fputc('"', f);
}

/**
 * json_begin() - start an object on a new line
 * @type: the value of its "type" key
 *
 * The object is made in memory, and written by json_end() with one
 * write() where it can be (out.c): a signal does not cut it in half, and
 * the end record of main.c's handler starts a line.
 */
void json_begin(const char *type)
{
	if (!out && !rec)
		rec = open_memstream(&rec_buf, &rec_len);
	depth = 0;
	first[0] = 1;
	fputc('{', json_file());
	json_str("type", type);
	if (opt.line)
		json_u64("line", opt.line);
}

/**
 * json_end() - end the object and its line, and write it out
 *
 * Nested arrays and objects must have been ended already.
 */
void json_end(void)
{
	depth = 0;
	fputs("}\n", json_file());
	if (out) {
		fflush(out);
	} else if (rec) {
		if (fclose(rec))
			out_failed(ENOMEM);
		else
			out_write(rec_buf, rec_len);
		rec = NULL;
		free(rec_buf);
		rec_buf = NULL;
	} else {
		out_flush(); /* no memory for a record: through stdio */
	}
}

/**
 * json_key() - write a key: the value is written next, by the caller
 * @key: the key
 */
void json_key(const char *key)
{
	json_sep();
	json_quote(key);
	fputc(':', json_file());
}

/**
 * json_u64() - an integer member: a number, or a string above 2^53
 * @key: the key
 * @v: the value
 */
void json_u64(const char *key, __u64 v)
{
	json_key(key);
	if (v > JSON_EXACT_MAX)
		fprintf(json_file(), "\"%llu\"", v);
	else
		fprintf(json_file(), "%llu", v);
}

/**
 * json_s64() - a signed integer member: a number, or a string beyond 2^53
 * @key: the key
 * @v: the value
 */
void json_s64(const char *key, __s64 v)
{
	int exact = v >= -(__s64)JSON_EXACT_MAX && v <= (__s64)JSON_EXACT_MAX;

	json_key(key);
	if (exact)
		fprintf(json_file(), "%lld", v);
	else
		fprintf(json_file(), "\"%lld\"", v);
}

/**
 * json_id() - an id or a cookie: always a string, "3"
 * @key: the key
 * @v: the value
 */
void json_id(const char *key, __u64 v)
{
	json_key(key);
	fprintf(json_file(), "\"%llu\"", v);
}

/**
 * json_ns() - a *_ns member: always a string of decimal digits
 * @key: the key, ending in _ns
 * @v: nanoseconds
 */
void json_ns(const char *key, __u64 v)
{
	json_id(key, v);
}

/**
 * json_sns() - a signed *_ns member (a lateness): always a string, "-52"
 * @key: the key, ending in _ns
 * @v: nanoseconds
 */
void json_sns(const char *key, __s64 v)
{
	json_key(key);
	fprintf(json_file(), "\"%lld\"", v);
}

void json_str(const char *key, const char *s)
{
	json_key(key);
	json_quote(s);
}

void json_bool(const char *key, int v)
{
	json_key(key);
	fputs(v ? "true" : "false", json_file());
}

void json_double(const char *key, double v)
{
	json_key(key);
	if (isfinite(v))
		fprintf(json_file(), "%.6g", v);
	else
		fputs("null", json_file());
}

/* Arrays hold strings only. Callers balance their begins and ends. */
void json_array_begin(const char *key)
{
	json_key(key);
	fputc('[', json_file());
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
	fputc(']', json_file());
	if (depth > 0)
		depth--;
}

void json_object_begin(const char *key)
{
	json_key(key);
	fputc('{', json_file());
	if (depth < JSON_DEPTH - 1)
		depth++;
	first[depth] = 1;
}

void json_object_end(void)
{
	fputc('}', json_file());
	if (depth > 0)
		depth--;
}

/**
 * json_usage_error() - a usage error as an "error" object
 * @cmd: the command, or NULL for dwqctl's own options
 * @what: what is wrong
 *
 * {"type":"error","command":CMD,"usage":true,"what":WHAT,"exit_status":2}
 */
void json_usage_error(const char *cmd, const char *what)
{
	json_begin("error");
	json_str("command", cmd ? cmd : "");
	json_bool("usage", 1);
	json_str("what", what);
	json_u64("exit_status", 2);
	json_end();
}
