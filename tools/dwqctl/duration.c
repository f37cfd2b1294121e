// SPDX-License-Identifier: GPL-2.0
/*
 * Durations and numbers for dwqctl: parsing what people type and printing
 * what the device returns.
 *
 * A duration is a decimal number and a unit: 100ns, 250us (or 250µs),
 * 300ms, 2s, 1.5m (or 1.5min), 1h. A number without a unit is refused,
 * except 0: "300" could mean ns to a program and ms to a person, and a
 * timer off by a factor of a million is a bug nobody sees until it bites.
 * Fractions are exact (1.5m is 90s, 0.25us is 250ns); one finer than a
 * nanosecond is refused rather than rounded.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwqctl.h"

static const struct {
	const char *name;
	__u64 ns;
} units[] = {
	{ "ns", 1 },
	{ "us", NSEC_PER_USEC },
	{ "\xc2\xb5s", NSEC_PER_USEC }, /* µs */
	{ "ms", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC },
	{ "min", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC },
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/**
 * parse_duration() - parse a duration such as 300ms or 1.5m
 * @s: the text
 * @ns: out: the duration in nanoseconds
 * @err: out: on failure, why, for a person
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err set.
 */
int parse_duration(const char *s, __u64 *ns, char *err, size_t errlen)
{
	unsigned __int128 whole = 0, frac = 0, den = 1, total;
	const char *p = s, *unit;
	int digits = 0, nonzero = 0;
	size_t i;

	if (!*s) {
		snprintf(err, errlen, "empty duration: expected e.g. 300ms");
		return -1;
	}
	if (*s == '-') {
		snprintf(err, errlen, "'%s': a duration cannot be negative", s);
		return -1;
	}
	if (*s == '+')
		p++;
	for (; is_digit(*p); p++, digits++) {
		whole = whole * 10 + (*p - '0');
		if (whole > UINT64_MAX)
			goto too_large;
		nonzero |= *p != '0';
	}
	if (*p == '.') {
		for (p++; is_digit(*p); p++, digits++) {
			/* Digits beyond 10^-19 must be zeros to be exact. */
			if (den < 10000000000000000000ULL) {
				frac = frac * 10 + (*p - '0');
				den *= 10;
			} else if (*p != '0') {
				goto too_fine;
			}
			nonzero |= *p != '0';
		}
	}
	if (!digits) {
		snprintf(err, errlen,
			 "'%s' is not a duration: expected a number and a unit, e.g. 300ms",
			 s);
		return -1;
	}
	unit = p;
	if (!*unit) {
		if (!nonzero) {
			*ns = 0;
			return 0;
		}
		snprintf(err, errlen,
			 "'%s' has no unit: write %sns, %sus, %sms, %ss, %sm or %sh",
			 s, s, s, s, s, s, s);
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(unit, units[i].name))
			continue;
		total = whole * units[i].ns;
		if (frac * units[i].ns % den)
			goto too_fine;
		total += frac * units[i].ns / den;
		if (total > UINT64_MAX)
			goto too_large;
		*ns = (__u64)total;
		return 0;
	}
	snprintf(err, errlen, "'%s': unknown unit '%s' (ns, us, ms, s, m or h)",
		 s, unit);
	return -1;

too_fine:
	snprintf(err, errlen, "'%s' is finer than a nanosecond", s);
	return -1;
too_large:
	snprintf(err, errlen,
		 "'%s' is too large (at most 2^64 - 1 ns, about 584 years)", s);
	return -1;
}

/**
 * parse_u64() - parse a whole number: decimal, 0x hexadecimal or 0 octal
 * @s: the text
 * @v: out: its value
 *
 * Return: 0, or -1 if @s is not a number that fits 64 bits (a sign is not
 * accepted).
 */
int parse_u64(const char *s, __u64 *v)
{
	unsigned long long x;
	char *end;

	if (!is_digit(*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

/**
 * fmt_duration() - print a duration for a person: 120ns, 52.3us, 300ms, 2s
 * @buf: where
 * @len: its size
 * @ns: the duration; negative ones get a minus sign
 *
 * At most three decimals, trailing zeros dropped, written in the syntax
 * parse_duration() reads back.
 *
 * Return: @buf.
 */
char *fmt_duration(char *buf, size_t len, __s64 ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (__u64)ns;
	const char *sign = ns < 0 ? "-" : "";
	unsigned long long div, whole, frac;
	const char *unit;
	char dec[8];
	int n;

	if (a < NSEC_PER_USEC) {
		snprintf(buf, len, "%s%lluns", sign, a);
		return buf;
	}
	if (a < NSEC_PER_MSEC) {
		div = NSEC_PER_USEC;
		unit = "us";
	} else if (a < NSEC_PER_SEC) {
		div = NSEC_PER_MSEC;
		unit = "ms";
	} else {
		div = NSEC_PER_SEC;
		unit = "s";
	}
	/* Round to three decimals of the unit. */
	a = (a + div / 2000) / (div / 1000);
	whole = a / 1000;
	frac = a % 1000;
	n = snprintf(dec, sizeof(dec), ".%03llu", frac);
	while (n > 0 && dec[n - 1] == '0')
		dec[--n] = '\0';
	if (n == 1)
		dec[0] = '\0';
	snprintf(buf, len, "%s%llu%s%s", sign, whole, dec, unit);
	return buf;
}

/**
 * fmt_clock() - print a time on a clock as seconds with nine decimals
 * @buf: where
 * @len: its size
 * @ns: the time
 *
 * Return: @buf.
 */
char *fmt_clock(char *buf, size_t len, __u64 ns)
{
	snprintf(buf, len, "%llu.%09llu", ns / NSEC_PER_SEC, ns % NSEC_PER_SEC);
	return buf;
}
