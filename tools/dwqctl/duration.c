// SPDX-License-Identifier: GPL-2.0
/*
 * Durations and numbers for dwqctl: parsing what people type and printing
 * what the device returns.
 *
 * A duration is one or more components, each a decimal number and a unit,
 * in the spellings of systemd.time(7): 100ns, 250us (250usec, 250µs),
 * 300ms (300msec), 2s (2sec, 2seconds), 1.5m (1.5min), 1h, 2d, 1w, 1M
 * (a month, 30.44 days), 1y (365.25 days); 1h30m and "2min 30s" are the
 * sum of their components. A number without a unit is refused, except 0:
 * "300" could mean ns to a program and ms (or, to systemd, s) to a person,
 * and a timer off by a factor of a million is a bug nobody sees until it
 * bites. Fractions are exact (1.5m is 90s, 0.25us is 250ns); one finer
 * than a nanosecond is refused rather than rounded.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dwqctl.h"

#define NSEC_PER_MIN (60 * NSEC_PER_SEC)
#define NSEC_PER_HOUR (3600 * NSEC_PER_SEC)
#define NSEC_PER_DAY (24 * NSEC_PER_HOUR)

/* systemd.time(7)'s units, case-sensitive: m is a minute, M a month. */
static const struct {
	const char *name;
	__u64 ns;
} units[] = {
	{ "ns", 1 },
	{ "nsec", 1 },
	{ "us", NSEC_PER_USEC },
	{ "usec", NSEC_PER_USEC },
	{ "\xc2\xb5s", NSEC_PER_USEC }, /* µs, U+00B5 MICRO SIGN */
	{ "\xce\xbcs", NSEC_PER_USEC }, /* μs, U+03BC GREEK SMALL LETTER MU */
	{ "ms", NSEC_PER_MSEC },
	{ "msec", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC },
	{ "sec", NSEC_PER_SEC },
	{ "second", NSEC_PER_SEC },
	{ "seconds", NSEC_PER_SEC },
	{ "m", NSEC_PER_MIN },
	{ "min", NSEC_PER_MIN },
	{ "minute", NSEC_PER_MIN },
	{ "minutes", NSEC_PER_MIN },
	{ "h", NSEC_PER_HOUR },
	{ "hr", NSEC_PER_HOUR },
	{ "hour", NSEC_PER_HOUR },
	{ "hours", NSEC_PER_HOUR },
	{ "d", NSEC_PER_DAY },
	{ "day", NSEC_PER_DAY },
	{ "days", NSEC_PER_DAY },
	{ "w", 7 * NSEC_PER_DAY },
	{ "week", 7 * NSEC_PER_DAY },
	{ "weeks", 7 * NSEC_PER_DAY },
	{ "M", 2629800 * NSEC_PER_SEC }, /* 30.44 days, as systemd */
	{ "month", 2629800 * NSEC_PER_SEC },
	{ "months", 2629800 * NSEC_PER_SEC },
	{ "y", 31557600 * NSEC_PER_SEC }, /* 365.25 days, as systemd */
	{ "year", 31557600 * NSEC_PER_SEC },
	{ "years", 31557600 * NSEC_PER_SEC },
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The unit at @p: its length in @len, or NULL if @p starts none. */
static const char *unit_word(const char *p, size_t *len)
{
	const char *q = p;

	/* A unit runs to the next digit, blank or the end. */
	while (*q && !is_digit(*q) && !is_blank(*q))
		q++;
	*len = q - p;
	return *len ? p : NULL;
}

static __u64 unit_ns(const char *u, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == len &&
		    !memcmp(units[i].name, u, len))
			return units[i].ns;
	return 0;
}

/**
 * poll_ms() - a wait in ns as poll()'s timeout
 * @ns: the time left
 *
 * Return: @ns in ms, rounded up so that poll() does not wake before the
 * end, and at most INT_MAX (24 days): poll() takes an int, so a longer
 * wait is several polls.
 */
int poll_ms(__u64 ns)
{
	__u64 ms = ns / NSEC_PER_MSEC + (ns % NSEC_PER_MSEC != 0);

	return ms > INT_MAX ? INT_MAX : (int)ms;
}

static __u64 gcd64(__u64 a, __u64 b)
{
	while (b) {
		__u64 t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * @frac / @den of @mult ns, exactly (@frac < @den): 0, or -1 if it is not
 * a whole number of ns. In 64 bits, for 32-bit builds too: @frac / @den
 * reduced first, its denominator must divide @mult.
 */
static int frac_ns(__u64 frac, __u64 den, __u64 mult, __u64 *ns)
{
	__u64 g = gcd64(frac, den);

	frac /= g;
	den /= g;
	if (mult % den)
		return -1;
	/* Below @mult: the fraction is under 1. */
	*ns = frac * (mult / den);
	return 0;
}

/**
 * parse_duration() - parse a duration such as 300ms, 1.5m or 1h30m
 * @s: the text
 * @ns: out: the duration in nanoseconds
 * @err: out: on failure, why, for a person
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err set.
 */
int parse_duration(const char *s, __u64 *ns, char *err, size_t errlen)
{
	__u64 sum = 0, whole, frac, den, mult, part;
	const char *p = s, *unit, *num;
	int digits, nonzero = 0, parts = 0;
	size_t ulen;

	while (is_blank(*p))
		p++;
	if (!*p) {
		snprintf(err, errlen, "empty duration: expected e.g. 300ms");
		return -1;
	}
	if (*p == '-') {
		snprintf(err, errlen, "'%s': a duration cannot be negative", s);
		return -1;
	}
	if (*p == '+' && !*++p) {
		snprintf(err, errlen, "'%s': a sign and no duration", s);
		return -1;
	}
	while (*p) {
		whole = 0;
		frac = 0;
		den = 1;
		digits = 0;
		num = p;
		for (; is_digit(*p); p++, digits++) {
			if (__builtin_mul_overflow(whole, 10, &whole) ||
			    __builtin_add_overflow(whole, *p - '0', &whole))
				goto too_large;
			nonzero |= *p != '0';
		}
		if (*p == '.') {
			for (p++; is_digit(*p); p++, digits++) {
				/* Digits beyond 10^-19 must be zeros. */
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
				 "'%s' is not a duration: expected a number and a unit, e.g. 300ms or 1h30m",
				 s);
			return -1;
		}
		while (is_blank(*p))
			p++;
		unit = unit_word(p, &ulen);
		if (!unit) {
			/* "0" alone is zero in every unit. */
			if (!parts && !nonzero && !*p) {
				*ns = 0;
				return 0;
			}
			if (parts)
				snprintf(err, errlen,
					 "'%s': '%s' has no unit (ns, us, ms, s, m, h, d, w, M, y)",
					 s, num);
			else
				snprintf(err, errlen,
					 "'%s' has no unit: write e.g. %sms or %ss (ns, us, ms, s, m, h, d, w, M, y)",
					 s, s, s);
			return -1;
		}
		mult = unit_ns(unit, ulen);
		if (!mult) {
			snprintf(err, errlen,
				 "'%s': unknown unit '%.*s' (ns, us, ms, s, m, h, d, w, M, y, or as systemd.time spells them: usec, msec, sec, min, hour, day...)",
				 s, (int)ulen, unit);
			return -1;
		}
		if (frac_ns(frac, den, mult, &part))
			goto too_fine;
		if (__builtin_add_overflow(sum, part, &sum) ||
		    __builtin_mul_overflow(whole, mult, &whole) ||
		    __builtin_add_overflow(sum, whole, &sum))
			goto too_large;
		parts++;
		for (p += ulen; is_blank(*p); p++)
			;
	}
	*ns = sum;
	return 0;

too_fine:
	snprintf(err, errlen, "'%s' is finer than a nanosecond", s);
	return -1;
too_large:
	snprintf(err, errlen,
		 "'%s' is too large (at most 2^64 - 1 ns, about 584 years)", s);
	return -1;
}

/**
 * parse_number() - parse a whole number: decimal or 0x hexadecimal
 * @s: the text
 * @v: out: its value
 * @err: out: on failure, why, for a person; may be NULL
 * @errlen: size of @err
 *
 * A leading zero followed by more digits (010) is refused rather than
 * read as octal, as strtoull() would, or as decimal: it means 8 to a C
 * programmer and 10 to most others. A zero followed by anything else
 * (0.5, 0-5) is simply not a number.
 *
 * Return: 0, or -1 if @s is not a number that fits 64 bits (a sign is not
 * accepted).
 */
int parse_number(const char *s, __u64 *v, char *err, size_t errlen)
{
	unsigned long long x;
	const char *p;
	char *end;
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (!is_digit(*s) || (hex && !s[2]))
		goto bad;
	if (!hex && s[0] == '0' && s[1]) {
		for (p = s; is_digit(*p); p++)
			;
		if (*p)
			goto bad;
		for (p = s; *p == '0'; p++)
			;
		if (*p) {
			if (err)
				snprintf(err, errlen,
					 "'%s': a number with a leading 0 is ambiguous (octal?): write it in decimal or with 0x",
					 s);
			return -1;
		}
	}
	errno = 0;
	x = strtoull(s, &end, hex ? 16 : 10);
	if (errno == ERANGE) {
		if (err)
			snprintf(err, errlen,
				 "'%s' is too large (at most 2^64 - 1)", s);
		return -1;
	}
	if (errno || *end)
		goto bad;
	*v = x;
	return 0;
bad:
	if (err)
		snprintf(err, errlen,
			 "'%s' is not a number (decimal or 0x hexadecimal)", s);
	return -1;
}

/**
 * parse_u64() - parse_number() without the message
 * @s: the text
 * @v: out: its value
 *
 * Return: 0, or -1.
 */
int parse_u64(const char *s, __u64 *v)
{
	return parse_number(s, v, NULL, 0);
}

/* @a ns with @sign in front, as fmt_duration() writes it. */
static char *fmt_magnitude(char *buf, size_t len, const char *sign,
			   unsigned long long a)
{
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
	/* Round to three decimals of the unit (no wrap near 2^64). */
	whole = a / div;
	frac = (a % div + div / 2000) / (div / 1000);
	if (frac == 1000) {
		whole++;
		frac = 0;
	}
	n = snprintf(dec, sizeof(dec), ".%03llu", frac);
	while (n > 0 && dec[n - 1] == '0')
		dec[--n] = '\0';
	if (n == 1)
		dec[0] = '\0';
	snprintf(buf, len, "%s%llu%s%s", sign, whole, dec, unit);
	return buf;
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
	return fmt_magnitude(buf, len, ns < 0 ? "-" : "",
			     ns < 0 ? -(unsigned long long)ns : (__u64)ns);
}

/**
 * fmt_duration_u() - fmt_duration() of a duration that cannot be negative
 * @buf: where
 * @len: its size
 * @ns: the duration, up to 2^64 - 1 ns (past 2^63 fmt_duration() would
 *	read it as negative)
 *
 * Return: @buf.
 */
char *fmt_duration_u(char *buf, size_t len, __u64 ns)
{
	return fmt_magnitude(buf, len, "", ns);
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
