// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side unit tests of dwqctl's parsers (durations, numbers, the run
 * language) and of its JSON output (escaping, the 2^53 rule, usage
 * errors); then of the program itself (unit PROGRAM), on what needs no
 * dwq: scripts read with `run -n` or run on /dev/null, the end records
 * of after, every and watch on a device that fails, and, with ioctls a
 * seccomp filter answers, the clock a reschedule reads, $N and $last after
 * a failed schedule, a cancel result dwqctl does not know, bench F6
 * without a file or a thread, and SIGINT ignored on entry. TAP output;
 * the exit status is 1 if a test failed. Built and run by
 * `make -C tools/dwqctl test`.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "dwqctl.h"

#define MAX_RESULTS 1024

struct opts opt = { .dev = DWQ_DEFAULT_DEV };

static char *results[MAX_RESULTS];
static int nresults, nfailed, nskipped;

static void __printf(2, 3) result(int ok, const char *fmt, ...)
{
	char name[256], *line;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	/* A name quoting several lines of output stays one TAP line. */
	for (line = name; (line = strchr(line, '\n'));)
		*line = '|';
	if (!ok)
		nfailed++;
	if (nresults == MAX_RESULTS)
		return;
	line = malloc(strlen(name) + 32);
	if (!line)
		exit(2);
	sprintf(line, "%s %d - %s", ok ? "ok" : "not ok", nresults + 1, name);
	results[nresults++] = line;
}

/* A result that could not be checked here, and why: TAP's SKIP. */
static void __printf(2, 3) skip(const char *why, const char *fmt, ...)
{
	char name[256], *line;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (nresults == MAX_RESULTS)
		return;
	line = malloc(strlen(name) + strlen(why) + 40);
	if (!line)
		exit(2);
	nskipped++;
	sprintf(line, "ok %d - %s # SKIP %s", nresults + 1, name, why);
	results[nresults++] = line;
}

/* --- durations ------------------------------------------------------ */

static void duration_ok(const char *s, __u64 want)
{
	char err[256] = "";
	__u64 ns = 0;
	int ret = parse_duration(s, &ns, err, sizeof(err));

	result(!ret && ns == want, "duration '%s' = %llu ns (got %llu%s%s)", s,
	       want, ns, ret ? ", error: " : "", err);
}

/* Refused, with a message that contains @why. */
static void duration_bad(const char *s, const char *why)
{
	char err[256] = "";
	__u64 ns = 0;
	int ret = parse_duration(s, &ns, err, sizeof(err));

	result(ret && strstr(err, why), "duration '%s' refused: %s (said: %s)",
	       s, why, err);
}

static void poll_ms_is(__u64 ns, int want)
{
	int got = poll_ms(ns);

	result(got == want, "poll_ms(%llu) = %d (got %d)", ns, want, got);
}

static void fmt_is(__s64 ns, const char *want)
{
	char buf[32];

	fmt_duration(buf, sizeof(buf), ns);
	result(!strcmp(buf, want), "fmt_duration(%lld) = %s (got %s)", ns, want,
	       buf);
}

static void fmt_u_is(__u64 ns, const char *want)
{
	char buf[32];

	fmt_duration_u(buf, sizeof(buf), ns);
	result(!strcmp(buf, want), "fmt_duration_u(%llu) = %s (got %s)", ns,
	       want, buf);
}

static void round_trip(__u64 ns)
{
	char buf[32], err[256];
	__u64 back = 0;

	fmt_duration_u(buf, sizeof(buf), ns);
	result(!parse_duration(buf, &back, err, sizeof(err)) && back == ns,
	       "round trip %llu ns -> %s -> %llu ns", ns, buf, back);
}

static void number_ok(const char *s, __u64 want)
{
	char err[256] = "";
	__u64 v = 0;
	int ret = parse_number(s, &v, err, sizeof(err));

	result(!ret && v == want, "number '%s' = %llu (got %llu%s%s)", s, want,
	       v, ret ? ", error: " : "", err);
}

static void number_bad(const char *s, const char *why)
{
	char err[256] = "";
	__u64 v = 0;
	int ret = parse_number(s, &v, err, sizeof(err));

	result(ret && strstr(err, why), "number '%s' refused: %s (said: %s)", s,
	       why, err);
}

static void test_durations(void)
{
	__u64 v = 0;

	duration_ok("100ns", 100);
	duration_ok("250us", 250000);
	duration_ok("250\xc2\xb5s", 250000);
	duration_ok("300ms", 300000000);
	duration_ok("2s", 2000000000);
	duration_ok("1.5m", 90000000000ULL);
	duration_ok("1.5min", 90000000000ULL);
	duration_ok("1h", 3600000000000ULL);
	duration_ok("0", 0);
	duration_ok("000", 0);
	duration_ok("0ms", 0);
	duration_ok("0.25us", 250);
	duration_ok("1.000000001s", 1000000001);
	duration_ok(".5s", 500000000);
	duration_ok("5.s", 5000000000ULL);
	duration_ok("+5ms", 5000000);
	duration_bad("+", "no duration");
	duration_bad("  +", "no duration");
	duration_ok("0.1000000000000000000000s", 100000000);
	duration_ok("18446744073709551615ns", 18446744073709551615ULL);
	duration_ok("18446744073.709551615s", 18446744073709551615ULL);

	duration_bad("", "empty");
	duration_bad("300", "has no unit");
	duration_bad("0.5", "has no unit");
	duration_bad("-1s", "negative");
	duration_bad("abc", "not a duration");
	duration_bad("ms", "not a duration");
	duration_bad(".s", "not a duration");
	duration_bad("5x", "unknown unit 'x'");
	duration_bad("5MS", "unknown unit");
	duration_bad("1e3ms", "unknown unit");
	duration_bad("1..5s", "unknown unit");
	duration_bad("1.5ns", "finer than a nanosecond");
	duration_bad("0.0000000001s", "finer than a nanosecond");
	duration_bad("18446744073709551616ns", "too large");
	duration_bad("18446744074s", "too large");
	duration_bad("99999999999999999999999h", "too large");
	duration_bad("585y", "too large");
	duration_bad("1h30", "'30' has no unit");
	duration_bad("1h 30", "'30' has no unit");
	duration_bad("1h-30m", "unknown unit 'h-'");
	duration_bad("1hh", "unknown unit 'hh'");
	duration_bad("1 h 2", "'2' has no unit");
	duration_bad("5mins", "unknown unit 'mins'");
	duration_bad("5Ms", "unknown unit 'Ms'");
	duration_bad("1h.5m", "unknown unit");
	duration_bad("   ", "empty");
	duration_bad("1s -1s", "not a duration");

	/* Every spelling of systemd.time(7), and their sums. */
	duration_ok("7nsec", 7);
	duration_ok("3usec", 3000);
	duration_ok("3\xce\xbcs", 3000); /* Greek mu */
	duration_ok("20msec", 20000000);
	duration_ok("2sec", 2000000000);
	duration_ok("1second", 1000000000);
	duration_ok("3seconds", 3000000000ULL);
	duration_ok("2minute", 120000000000ULL);
	duration_ok("2minutes", 120000000000ULL);
	duration_ok("1hr", 3600000000000ULL);
	duration_ok("1hour", 3600000000000ULL);
	duration_ok("2hours", 7200000000000ULL);
	duration_ok("1d", 86400000000000ULL);
	duration_ok("1day", 86400000000000ULL);
	duration_ok("2days", 172800000000000ULL);
	duration_ok("1w", 604800000000000ULL);
	duration_ok("1week", 604800000000000ULL);
	duration_ok("2weeks", 1209600000000000ULL);
	duration_ok("1M", 2629800000000000ULL);
	duration_ok("1month", 2629800000000000ULL);
	duration_ok("2months", 5259600000000000ULL);
	duration_ok("1y", 31557600000000000ULL);
	duration_ok("1year", 31557600000000000ULL);
	duration_ok("2years", 63115200000000000ULL);
	duration_ok("584y", 584ULL * 31557600000000000ULL);
	duration_ok("1h30m", 5400000000000ULL);
	duration_ok("1h30min", 5400000000000ULL);
	duration_ok("2min 30s", 150000000000ULL);
	duration_ok("1h 30min 15s 500ms", 5415500000000ULL);
	duration_ok("1d2h", 93600000000000ULL);
	duration_ok("1.5h30m", 7200000000000ULL);
	duration_ok("1s500ms250us", 1500250000);
	duration_ok("5 ms", 5000000);
	duration_ok(" 5ms ", 5000000);
	duration_ok("0s0ms", 0);
	duration_ok("1m1M", 60000000000ULL + 2629800000000000ULL);

	poll_ms_is(0, 0);
	poll_ms_is(1, 1);
	poll_ms_is(1000000, 1);
	poll_ms_is(1000001, 2);
	poll_ms_is(30ULL * 86400 * 1000000000, INT_MAX);
	poll_ms_is(UINT64_MAX, INT_MAX);
	fmt_is(0, "0ns");
	fmt_is(999, "999ns");
	fmt_is(1000, "1us");
	fmt_is(52300, "52.3us");
	fmt_is(1234567, "1.235ms");
	fmt_is(300000000, "300ms");
	fmt_is(1500000000, "1.5s");
	fmt_is(90000000000LL, "90s");
	fmt_is(-2000, "-2us");
	fmt_is(-52, "-52ns");
	fmt_is(999999, "999.999us");
	fmt_is(1999999999, "2s");
	/* Past 2^63 ns: positive, and rounded with no wrap. */
	fmt_u_is(52300, "52.3us");
	fmt_u_is(9223372036854775808ULL, "9223372036.855s");
	fmt_u_is(UINT64_MAX, "18446744073.71s");

	round_trip(0);
	round_trip(7);
	round_trip(250000);
	round_trip(300000000);
	round_trip(1500000000);
	round_trip(123000);

	result(!parse_u64("0x2a", &v) && v == 42, "parse_u64 0x2a = 42");
	result(!parse_u64("18446744073709551615", &v) && v == ~0ULL,
	       "parse_u64 2^64-1");
	result(parse_u64("18446744073709551616", &v), "parse_u64 2^64 refused");
	result(parse_u64("-1", &v), "parse_u64 -1 refused");
	result(parse_u64("", &v), "parse_u64 empty refused");
	result(parse_u64("12a", &v), "parse_u64 12a refused");
	result(parse_u64(" 1", &v), "parse_u64 ' 1' refused");
	number_ok("10", 10);
	number_ok("0", 0);
	number_ok("00", 0);
	number_ok("0x10", 16);
	number_ok("0X1f", 31);
	number_ok("0x0010", 16);
	number_ok("0xffffffffffffffff", ~0ULL);
	number_bad("010", "leading 0");
	number_bad("08", "leading 0");
	number_bad("0010", "leading 0");
	/* Only digits after the 0 make it look octal. */
	number_bad("0-5", "'0-5' is not a number");
	number_bad("0.5", "'0.5' is not a number");
	number_bad("0 5", "'0 5' is not a number");
	number_bad("007x", "'007x' is not a number");
	number_bad("0x", "not a number");
	number_bad("0x1g", "not a number");
	number_bad("1.5", "not a number");
	number_bad("+1", "not a number");
	number_bad("0x10000000000000000", "too large");
	number_bad("18446744073709551616", "too large");
}

/* --- the run language ----------------------------------------------- */

static int parse_ok(const char *line, struct run_cmd *c)
{
	char err[256] = "";
	int ret = run_parse_line(line, c, err, sizeof(err));

	if (ret)
		result(0, "parse '%s' (error: %s)", line, err);
	return !ret;
}

static void line_bad(const char *line, const char *why)
{
	char err[256] = "";
	struct run_cmd c;
	int ret = run_parse_line(line, &c, err, sizeof(err));

	result(ret && strstr(err, why), "'%s' refused: %s (said: %s)", line,
	       why, err);
}

static void test_schedule(void)
{
	struct run_cmd c;

	if (parse_ok("schedule 300ms", &c))
		result((c.op == RUN_SCHEDULE && c.time_ns == 300000000 &&
			c.mode == DWQ_MODE_ONESHOT && !c.period_ns &&
			!c.flags && !c.cookie && !c.now),
		       "schedule 300ms: a one-shot 300 ms ahead");
	if (parse_ok("  schedule 1s every 250ms cookie 0x2a  ", &c))
		result((c.op == RUN_SCHEDULE && c.time_ns == 1000000000 &&
			c.mode == DWQ_MODE_FIXED_DELAY &&
			c.period_ns == 250000000 && c.cookie == 42 && !c.flags),
		       "schedule 1s every 250ms cookie 0x2a: fixed delay");
	if (parse_ok("schedule 1s rate 100ms", &c))
		result((c.mode == DWQ_MODE_FIXED_RATE &&
			c.period_ns == 100000000),
		       "schedule 1s rate 100ms: fixed rate");
	if (parse_ok("schedule 5s at", &c))
		result((c.flags == DWQ_SCHED_ABS &&
			c.time_ns == 5000000000ULL && !c.now),
		       "schedule 5s at: an absolute deadline");
	if (parse_ok("schedule now+300ms", &c))
		result((c.now && c.now_off == 300000000 &&
			c.flags == DWQ_SCHED_ABS),
		       "schedule now+300ms");
	if (parse_ok("schedule now-1s boottime cookie 9", &c))
		result((c.now && c.now_off == -1000000000LL &&
			c.flags == (DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME) &&
			c.cookie == 9),
		       "schedule now-1s boottime cookie 9");
	if (parse_ok("schedule now at", &c))
		result(c.now && !c.now_off && c.flags == DWQ_SCHED_ABS,
		       "schedule now at");
	if (parse_ok("schedule 0 # due at once", &c))
		result(c.op == RUN_SCHEDULE && !c.time_ns,
		       "schedule 0 with a trailing comment");
	if (parse_ok("schedule\t2s\tcookie\t1", &c))
		result(c.time_ns == 2000000000 && c.cookie == 1,
		       "tabs separate words");

	line_bad("schedule", "when?");
	line_bad("schedule cookie 5", "'cookie' is not a duration");
	line_bad("schedule 300", "has no unit");
	line_bad("schedule 1s every", "needs a period");
	line_bad("schedule 1s every 1s rate 1s", "only one of every, rate");
	line_bad("schedule 1s every 1s every 2s", "only one of every, rate");
	line_bad("schedule 1s every 0", "longer than 0");
	line_bad("schedule 1s every 5", "has no unit");
	line_bad("schedule 1s cookie", "cookie needs a number");
	line_bad("schedule 1s cookie -1", "not a number");
	line_bad("schedule 1s cookie 010", "leading 0");
	line_bad("schedule 1s cookie 0.5", "cookie '0.5' is not a number");
	if (parse_ok("schedule 1s cookie 10", &c))
		result(c.cookie == 10, "cookie 10 is ten");
	if (parse_ok("schedule 1h30m every 1d", &c))
		result((c.time_ns == 5400000000000ULL &&
			c.period_ns == 86400000000000ULL),
		       "schedule 1h30m every 1d: systemd spellings");
	line_bad("schedule 1s cookie 1 cookie 2", "cookie given twice");
	line_bad("schedule 1s bogus", "unexpected 'bogus'");
	line_bad("schedule 1s once", "unexpected 'once'");
	line_bad("schedule 1s at at", "unexpected 'at'");
	line_bad("schedule now*2", "expected now, now+DURATION");
	line_bad("schedule now+", "empty duration");
	line_bad("schedule now-+5s", "expected now, now+DURATION");
	line_bad("schedule now++5s", "expected now, now+DURATION");
	line_bad("schedule now--5s", "expected now, now+DURATION");
	line_bad("schedule -5ms", "negative");
}

static void test_ids(void)
{
	struct run_cmd c;

	if (parse_ok("cancel 7", &c))
		result(c.op == RUN_CANCEL && c.ref == REF_ID && c.id == 7,
		       "cancel 7");
	if (parse_ok("cancel $2", &c))
		result(c.op == RUN_CANCEL && c.ref == REF_NTH && c.id == 2,
		       "cancel $2: the second schedule's id");
	if (parse_ok("query $last", &c))
		result(c.op == RUN_QUERY && c.ref == REF_LAST, "query $last");
	if (parse_ok("query 0x10", &c))
		result(c.op == RUN_QUERY && c.id == 16, "query 0x10");
	line_bad("cancel", "which task?");
	line_bad("cancel $0", "not a task");
	line_bad("cancel $", "not a task");
	line_bad("cancel x", "not a task");
	line_bad("cancel -3", "not a task");
	if (parse_ok("cancel 7 $1 $last 0x9", &c))
		result((c.op == RUN_CANCEL && c.nids == 4 && c.ref == REF_ID &&
			c.id == 7 && c.refs[1] == REF_NTH && c.ids[1] == 1 &&
			c.refs[2] == REF_LAST && c.refs[3] == REF_ID &&
			c.ids[3] == 9),
		       "cancel 7 $1 $last 0x9: four ids, one batch");
	line_bad("cancel 7 x", "'x' is not a task");
	line_bad("cancel 07", "not a task");
	line_bad("query 7 8", "unexpected '8'");
	line_bad("query", "which task?");

	if (parse_ok("reschedule $1 2s", &c))
		result((c.op == RUN_RESCHEDULE && c.ref == REF_NTH &&
			c.id == 1 && c.time_ns == 2000000000 && !c.flags),
		       "reschedule $1 2s: same period");
	if (parse_ok("reschedule 3 1s rate 10ms", &c))
		result((c.flags == DWQ_RESCHED_PERIOD &&
			c.mode == DWQ_MODE_FIXED_RATE &&
			c.period_ns == 10000000),
		       "reschedule 3 1s rate 10ms: a new period");
	if (parse_ok("reschedule 3 now+1s once", &c))
		result((c.flags == (DWQ_RESCHED_PERIOD | DWQ_SCHED_ABS) &&
			c.mode == DWQ_MODE_ONESHOT && !c.period_ns && c.now),
		       "reschedule 3 now+1s once: made a one-shot");
	if (parse_ok("reschedule 3 now+1s monotonic", &c))
		result((c.flags == (DWQ_SCHED_ABS | DWQ_RESCHED_MONOTONIC) &&
			c.now && c.now_off == 1000000000),
		       "reschedule 3 now+1s monotonic: moved to CLOCK_MONOTONIC");
	if (parse_ok("reschedule 3 2s boottime", &c))
		result(c.flags == DWQ_SCHED_BOOTTIME && !c.now,
		       "reschedule 3 2s boottime: moved to CLOCK_BOOTTIME");
	line_bad("reschedule 3 1s boottime monotonic", "one clock word");
	line_bad("reschedule 3 1s monotonic monotonic", "one clock word");
	line_bad("reschedule 3 1s boottime boottime", "one clock word");
	line_bad("reschedule 3 1s cookie 4",
		 "(options: every P, rate P, once, at, boottime, monotonic)");
	line_bad("schedule 1s monotonic", "unexpected 'monotonic'");
	line_bad("reschedule", "which task?");
	line_bad("reschedule 3", "when?");
	line_bad("reschedule 3 1s cookie 4", "unexpected 'cookie'");
	line_bad("reschedule 3 1s once every 1s", "only one of every, rate");
}

static void test_other(void)
{
	struct run_cmd c;

	if (parse_ok("", &c))
		result(c.op == RUN_NOP, "an empty line does nothing");
	if (parse_ok(" \t\r\n", &c))
		result(c.op == RUN_NOP, "a blank line does nothing");
	if (parse_ok("# schedule 1s", &c))
		result(c.op == RUN_NOP, "a comment does nothing");
	if (parse_ok("wait", &c))
		result(c.op == RUN_WAIT && c.wait == WAIT_ALL,
		       "wait: until nothing is pending");
	if (parse_ok("wait 3 events", &c))
		result(c.wait == WAIT_EVENTS && c.count == 3 && !c.timeout_ns,
		       "wait 3 events");
	if (parse_ok("wait 1 event", &c))
		result(c.wait == WAIT_EVENTS && c.count == 1, "wait 1 event");
	if (parse_ok("wait 3 events timeout 2s", &c))
		result((c.wait == WAIT_EVENTS && c.count == 3 &&
			c.timeout_ns == 2000000000),
		       "wait 3 events timeout 2s");
	if (parse_ok("wait 1.5s", &c))
		result(c.wait == WAIT_TIME && c.time_ns == 1500000000,
		       "wait 1.5s");
	line_bad("wait 3", "has no unit");
	line_bad("wait x events", "not a number of events");
	line_bad("wait 3 events timeout", "only 'timeout DURATION'");
	line_bad("wait 3 events timeout 5", "has no unit");
	line_bad("wait 3 events later", "only 'timeout DURATION'");
	line_bad("wait 3 events timeout 0", "a timeout of 0 is no wait");
	line_bad("wait 3 events timeout 0s", "a timeout of 0 is no wait");
	line_bad("wait 1s 2s", "expected 'wait'");

	if (parse_ok("stats", &c))
		result(c.op == RUN_STATS, "stats");
	line_bad("stats now", "unexpected 'now'");
	if (parse_ok("sleep 10ms", &c))
		result(c.op == RUN_SLEEP && c.time_ns == 10000000,
		       "sleep 10ms");
	line_bad("sleep", "how long?");
	line_bad("sleep 10", "has no unit");
	line_bad("sleep 1s 2s", "unexpected '2s'");
	if (parse_ok("echo hello,   world # not this", &c))
		result(c.op == RUN_ECHO && !strcmp(c.text, "hello, world"),
		       "echo joins words, drops the comment (got '%s')",
		       c.text);
	line_bad("frobnicate 3", "unknown command 'frobnicate'");
	line_bad("Schedule 1s", "unknown command");

	{
		/* A line is as long as it is: the parser has no limit. */
		char big[5000], err[256] = "";
		int ret, ok;

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		ret = run_parse_line(big, &c, err, sizeof(err));
		result(ret && !strncmp(err, "unknown command 'xxx", 20),
		       "a word of 4999 bytes is an unknown command (said: %.60s)",
		       err);
		big[0] = '#';
		ret = run_parse_line(big, &c, err, sizeof(err));
		result(!ret && c.op == RUN_NOP,
		       "a comment of 4999 bytes is a comment (said: %.60s)",
		       ret ? err : "");
		memset(big, ' ', sizeof(big) - 1);
		memcpy(big, "echo a", 6);
		memcpy(big + sizeof(big) - 6, "b # c", 5);
		ret = run_parse_line(big, &c, err, sizeof(err));
		result(!ret && c.op == RUN_ECHO && !strcmp(c.text, "a b"),
		       "echo a, 4988 blanks, b: 'a b' (got '%s', said: %.60s)",
		       c.text ? c.text : "", ret ? err : "");
		run_cmd_free(&c);
		/* echo's text is as long as the line has it. */
		memcpy(big, "echo ", 5);
		memset(big + 5, 'y', sizeof(big) - 6);
		ret = run_parse_line(big, &c, err, sizeof(err));
		ok = !ret && c.op == RUN_ECHO && c.text &&
		     strlen(c.text) == sizeof(big) - 6 &&
		     !strcmp(c.text, big + 5);
		result(ok,
		       "echo of 4994 bytes: all of them (got %zu, said: %.60s)",
		       c.text ? strlen(c.text) : 0, ret ? err : "");
		run_cmd_free(&c);
	}
	line_bad("echo a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7",
		 "too many words");
}

/* --- JSON ------------------------------------------------------------ */

static char *json_buf;
static size_t json_len;
static FILE *json_mem;

static void json_capture(void)
{
	json_mem = open_memstream(&json_buf, &json_len);
	if (!json_mem)
		exit(2);
	json_output(json_mem);
}

/* What was written since json_capture(), compared with @want. */
static void json_is(const char *what, const char *want)
{
	size_t n = strlen(want);

	fclose(json_mem);
	json_output(NULL);
	/* The names show the records without their newline. */
	result(!strcmp(json_buf, want), "json %s: %.*s (got %.*s)", what,
	       (int)(n ? n - 1 : 0), want, (int)(json_len ? json_len - 1 : 0),
	       json_buf);
	free(json_buf);
	json_buf = NULL;
}

static void quote_is(const char *s, const char *want, const char *what)
{
	char full[256];

	json_capture();
	json_begin("t");
	json_str("s", s);
	json_end();
	snprintf(full, sizeof(full), "{\"type\":\"t\",\"s\":\"%s\"}\n", want);
	json_is(what, full);
}

static void test_json(void)
{
	char want[256];

	quote_is("plain", "plain", "ASCII as is");
	quote_is("a\"b\\c\n\t", "a\\\"b\\\\c\\n\\t",
		 "quote, backslash, \\n, \\t");
	quote_is("\x01\x1f\x7f", "\\u0001\\u001f\\u007f", "controls and DEL");
	quote_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		 "valid UTF-8 of 2, 3 and 4 bytes as is");
	quote_is("a\377b", "a\\ufffdb", "0xff: U+FFFD");
	quote_is("\x80", "\\ufffd", "a lone continuation byte");
	quote_is("\xc3(", "\\ufffd(", "a lead byte without its continuation");
	quote_is("\xc0\xaf", "\\ufffd\\ufffd", "an overlong '/', 2 bytes");
	quote_is("\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd",
		 "an overlong '/', 3 bytes");
	quote_is("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd", "a UTF-16 surrogate");
	quote_is("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd",
		 "above U+10FFFF");
	quote_is("\xe2\x82", "\\ufffd\\ufffd", "cut short at the end");
	quote_is("\xe2\x80\xa8\xe2\x80\xa9", "\\u2028\\u2029",
		 "U+2028 and U+2029 escaped for JavaScript");

	/* The 2^53 rule. */
	json_capture();
	json_begin("n");
	json_u64("a", 9007199254740992ULL);
	json_u64("b", 9007199254740993ULL);
	json_u64("c", ~0ULL);
	json_s64("d", -9007199254740992LL);
	json_s64("e", -9007199254740993LL);
	json_s64("f", 9007199254740993LL);
	json_u64("g", 0);
	json_end();
	json_is("counts: numbers up to 2^53, strings above",
		"{\"type\":\"n\",\"a\":9007199254740992,\"b\":\"9007199254740993\",\"c\":\"18446744073709551615\",\"d\":-9007199254740992,\"e\":\"-9007199254740993\",\"f\":\"9007199254740993\",\"g\":0}\n");
	json_capture();
	json_begin("event");
	json_id("id", 1);
	json_id("cookie", ~0ULL);
	json_ns("deadline_ns", 0);
	json_ns("fired_ns", 9007199254740993ULL);
	json_sns("lateness_ns", -52);
	json_end();
	json_is("ids, cookies and *_ns: always strings",
		"{\"type\":\"event\",\"id\":\"1\",\"cookie\":\"18446744073709551615\",\"deadline_ns\":\"0\",\"fired_ns\":\"9007199254740993\",\"lateness_ns\":\"-52\"}\n");

	/* A usage error, and one whose text is not UTF-8. */
	json_capture();
	json_usage_error("after", "'5x': unknown unit 'x'");
	json_is("usage error object",
		"{\"type\":\"error\",\"command\":\"after\",\"usage\":true,\"what\":\"'5x': unknown unit 'x'\",\"exit_status\":2}\n");
	json_capture();
	json_usage_error(NULL, "unknown command 'fr\366b'");
	snprintf(want, sizeof(want), "%s",
		 "{\"type\":\"error\",\"command\":\"\",\"usage\":true,\"what\":\"unknown command 'fr\\ufffdb'\",\"exit_status\":2}\n");
	json_is("usage error of dwqctl itself, Latin-1 argument", want);

	/* A line number inside a run; nested array. */
	opt.line = 3;
	json_capture();
	json_begin("event");
	json_array_begin("flags");
	json_array_str("last");
	json_array_str("coalesced");
	json_array_end();
	json_u64("worker", 1);
	json_end();
	opt.line = 0;
	json_is("line and an array",
		"{\"type\":\"event\",\"line\":3,\"flags\":[\"last\",\"coalesced\"],\"worker\":1}\n");
}

/* --- ENOSPC: which limit ------------------------------------------ */

static void enospc_is(const struct dwq_ioc_stats *st, __u32 mode,
		      __u64 period_ns, const char *want, const char *what)
{
	struct dwq_ioc_schedule s = { .mode = mode, .period_ns = period_ns };
	char buf[256];

	enospc_text(st, &s, buf, sizeof(buf));
	result(!!strstr(buf, want), "ENOSPC %s: '%s' (said: %s)", what, want,
	       buf);
}

static void test_enospc(void)
{
	const struct dwq_ioc_stats base = {
		.pending = 3,
		.user_tasks = 10,
		.all_tasks = 20,
		.user_rate_mhz = 1500,
		.max_tasks_per_file = 4,
		.max_tasks_per_user = 11,
		.max_tasks = 21,
		.max_rate_per_user = 2,
	};
	struct dwq_ioc_stats st;

	st = base;
	st.pending = 4;
	enospc_is(&st, DWQ_MODE_ONESHOT, 0,
		  "this file holds 4, max_tasks_per_file=4", "the file's");
	st = base;
	st.user_tasks = 11;
	st.all_tasks = 21;
	enospc_is(&st, DWQ_MODE_ONESHOT, 0,
		  "your files hold 11 (unread events included), max_tasks_per_user=11",
		  "the user's before all files'");
	st = base;
	st.all_tasks = 22;
	enospc_is(&st, DWQ_MODE_ONESHOT, 0, "all files hold 22, max_tasks=21",
		  "all files'");
	/* 1.5/s used of 2/s: 1/s more does not fit, 0.5/s does. */
	enospc_is(&base, DWQ_MODE_FIXED_RATE, 1000000000ULL,
		  "fire 1.500 times a second, this one would add 1.000, max_rate_per_user=2",
		  "the rate");
	enospc_is(&base, DWQ_MODE_FIXED_DELAY, 2000000000ULL,
		  "room was freed since", "a rate that fits");
	/* A one-shot with a period (ignored) has no rate. */
	enospc_is(&base, DWQ_MODE_ONESHOT, 1, "room was freed since",
		  "a one-shot has no rate");
	/* The rate rounds up: 3 ns is 333333333334 mHz. */
	enospc_is(&base, DWQ_MODE_FIXED_RATE, 3, "would add 333333333.334",
		  "the rate rounds up");
}

/* --- the program, on the host ---------------------------------------- */

static const char *prog;

/**
 * struct ran - what one run of the program left
 * @status: its exit status, or 128 + the signal that killed it
 * @out: its standard output
 * @err: its standard error
 * @outfd: while it runs: the file of @out
 * @errfd: while it runs: the file of @err
 * @notify: while it runs SUPERVISED: the listener of its seccomp filter,
 *	or -1 if it could not set one up
 */
struct ran {
	int status;
	char *out;
	char *err;
	int outfd;
	int errfd;
	int notify;
};

static char *slurp(int fd)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;

	if (!buf || lseek(fd, 0, SEEK_SET))
		exit(2);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len == 1) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(2);
		}
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

/* Low word of a system call's argument @i, for a seccomp filter. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LO(i) offsetof(struct seccomp_data, args[i])
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args[i]) + 4)
#endif

/* Installs a seccomp filter on this process, or exits with 125. */
static void install_filter(struct sock_filter *f, unsigned short len)
{
	struct sock_fprog fp = { .len = len, .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp))
		_exit(125);
}

/*
 * DWQ_IOC_SCHEDULE and DWQ_IOC_STATS answer 0 without reaching the file,
 * so that a file that is not /dev/dwq takes dwqctl as far as its read()
 * or poll() (the stats all zero: dwqctl zeroes them first).
 */
static void fake_schedule(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)DWQ_IOC_SCHEDULE, 1,
			 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)DWQ_IOC_STATS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	install_filter(f, ARRAY_SIZE(f));
}

/*
 * kill(..., SIGTERM) kills the process that calls it, with SIGSYS: that
 * dwqctl passed a SIGTERM on shows in its exit status, whatever CMD saw.
 */
static void no_term_kill(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGTERM, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};

	install_filter(f, ARRAY_SIZE(f));
}

/*
 * Can this process install fake_schedule()'s filter? A container may
 * forbid seccomp (its own filter answering prctl() with EPERM or EACCES).
 */
static int seccomp_allowed(void)
{
	pid_t pid = fork();
	int ws;

	if (pid < 0)
		exit(2);
	if (!pid) {
		fake_schedule();
		_exit(0);
	}
	if (waitpid(pid, &ws, 0) != pid)
		exit(2);
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
}

/* Says why the test of @what is skipped if seccomp_allowed() is false. */
static int seccomp_missing(const char *what)
{
	if (seccomp_allowed())
		return 0;
	skip("no seccomp filters here", "%s", what);
	return 1;
}

/*
 * A FIFO standing in for the device, in a fresh directory @dir (a
 * mkdtemp() template): its path into @fifo; with @env, DWQ_DEVICE names it.
 */
static void fifo_device(char *dir, char *fifo, size_t n, int env)
{
	if (!mkdtemp(dir))
		exit(2);
	snprintf(fifo, n, "%s/dev", dir);
	if (mkfifo(fifo, 0600) || (env && setenv("DWQ_DEVICE", fifo, 1)))
		exit(2);
}

/*
 * A supervised program's CLOCK_BOOTTIME is this far ahead of ours: its
 * CLOCK_BOOTTIME and CLOCK_MONOTONIC are then always 1000 s or more apart,
 * as after a suspend of 1000 s, and a time read on the wrong one shows.
 */
#define BOOT_AHEAD_S 1000

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/*
 * Set up the child for supervise(): a time namespace whose CLOCK_BOOTTIME
 * is BOOT_AHEAD_S ahead (entered by its exec), and a seccomp filter that
 * hands its DWQ_IOC_QUERY, DWQ_IOC_RESCHEDULE, DWQ_IOC_SCHEDULE and
 * DWQ_IOC_CANCEL, clone3() and timerfd_create() to the listener, sent to
 * the parent through @sock. Exit 125 if the system allows none of it.
 */
static void supervised_child(int sock)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 8, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_timerfd_create, 7, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)DWQ_IOC_QUERY, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)DWQ_IOC_RESCHEDULE,
			 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)DWQ_IOC_SCHEDULE, 2,
			 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)DWQ_IOC_CANCEL, 1,
			 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog fp = { .len = ARRAY_SIZE(f), .filter = f };
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, off[64];
	struct iovec iov = { .iov_base = "", .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int fd, len;

	if (unshare(CLONE_NEWUSER | CLONE_NEWTIME))
		_exit(125);
	len = snprintf(off, sizeof(off), "boottime %d 0", BOOT_AHEAD_S);
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, off, len) != len)
		_exit(125);
	close(fd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		_exit(125);
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	if (fd < 0)
		_exit(125);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		_exit(125);
	close(fd);
}

/* The listener supervised_child() sends through @sock, or -1. */
static int recv_listener(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd = -1;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* How run_prog() runs it. */
#define FAKE_SCHEDULE 1 /* see fake_schedule() */
#define SMALL_MEMORY 2 /* 16 MiB of address space */
#define SIGINT_IGNORED 4 /* SIGINT ignored, as sh starts a command with & */
#define SUPERVISED 8 /* see supervised_child(); in @r->notify */
#define SIGPIPE_IGNORED 16 /* start_out(): SIGPIPE ignored */
#define OWN_GROUP 32 /* start_out(): a process group of its own */
#define NO_TERM_KILL 64 /* start_out(): see no_term_kill() */

/*
 * Start the program with @args (NULL-terminated), @input on its standard
 * input through a pipe (NULL: /dev/null), as @how says. Killed if it runs
 * for 20 s. Return its pid, for end_prog().
 */
static pid_t start_prog(struct ran *r, const char *input, int how,
			const char *const *args)
{
	struct rlimit small = { 16 << 20, 16 << 20 };
	const char *argv[16] = { prog };
	int in[2], sock[2];
	size_t i, len;
	pid_t pid;
	ssize_t n;

	for (i = 0; args[i] && i + 2 < ARRAY_SIZE(argv); i++)
		argv[i + 1] = args[i];
	r->outfd = memfd_create("out", MFD_CLOEXEC);
	r->errfd = memfd_create("err", MFD_CLOEXEC);
	r->notify = -1;
	if (r->outfd < 0 || r->errfd < 0 || pipe2(in, O_CLOEXEC) ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock))
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		if (!input) {
			close(in[0]);
			in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		}
		if (dup2(in[0], 0) < 0 || dup2(r->outfd, 1) < 0 ||
		    dup2(r->errfd, 2) < 0)
			_exit(125);
		if (how & FAKE_SCHEDULE)
			fake_schedule();
		if ((how & SMALL_MEMORY) && setrlimit(RLIMIT_AS, &small))
			_exit(125);
		if (how & SIGINT_IGNORED)
			signal(SIGINT, SIG_IGN);
		if (how & SUPERVISED)
			supervised_child(sock[1]);
		alarm(20);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(sock[1]);
	if (how & SUPERVISED)
		r->notify = recv_listener(sock[0]);
	close(sock[0]);
	for (len = input ? strlen(input) : 0; len; len -= n, input += n) {
		n = write(in[1], input, len);
		if (n <= 0)
			break;
	}
	close(in[1]);
	return pid;
}

/* Wait for the program started as @pid to end, and take what it left. */
static void end_prog(struct ran *r, pid_t pid)
{
	int ws;

	if (waitpid(pid, &ws, 0) != pid)
		exit(2);
	r->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	r->out = slurp(r->outfd);
	r->err = slurp(r->errfd);
	if (r->notify >= 0)
		close(r->notify);
	r->notify = -1;
}

/* Run the program as start_prog() starts it, to its end. */
static void run_prog(struct ran *r, const char *input, int how,
		     const char *const *args)
{
	end_prog(r, start_prog(r, input, how, args));
}

static void ran_free(struct ran *r)
{
	free(r->out);
	free(r->err);
}

/* How many lines of @s start with @what. */
static int lines_with(const char *s, const char *what)
{
	int n = 0;

	while (*s) {
		n += !strncmp(s, what, strlen(what));
		s = strchr(s, '\n');
		if (!s)
			break;
		s++;
	}
	return n;
}

/* The last line of @s, without its newline, in @buf. */
static const char *last_line(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);
	const char *p;

	if (n && s[n - 1] == '\n')
		n--;
	for (p = s + n; p > s && p[-1] != '\n'; p--)
		;
	snprintf(buf, len, "%.*s", (int)(s + n - p), p);
	return buf;
}

/* @text in a new file named in @path ("/tmp/dwqctl-unit-XXXXXX"). */
static void script_file(char *path, const char *text)
{
	size_t len = strlen(text);
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		exit(2);
	close(fd);
}

/* Append @s, or @n bytes @c if @s is NULL, to @buf at @at; the new end. */
static size_t put(char *buf, size_t at, const char *s, int c, size_t n)
{
	if (s) {
		n = strlen(s);
		memcpy(buf + at, s, n);
	} else {
		memset(buf + at, c, n);
	}
	buf[at + n] = '\0';
	return at + n;
}

/*
 * A comment after a tab is a comment in what run -x echoes and in error
 * messages too, not only to the parser; a # inside a word is no comment.
 */
static void test_echo_comments(void)
{
	static const char script[] = "echo hi\t# after a tab\n"
				     "schedule 1s\t#x\n"
				     "echo a#b # c\n";
	static const char want_out[] = "+ echo hi\nhi\n"
				       "+ schedule 1s\n"
				       "+ echo a#b\na#b\n";
	char path[] = "/tmp/dwqctl-unit-XXXXXX", want_err[128];
	const char *from[2] = { path, "<stdin>" };
	struct ran r;
	int k, ok;

	script_file(path, script);
	for (k = 0; k < 2; k++) {
		run_prog(&r, k ? script : NULL, 0,
			 (const char *[]){ "--device", "/dev/null", "run", "-k",
					   "-x", k ? "-" : path, NULL });
		snprintf(want_err, sizeof(want_err),
			 "dwqctl: %s:2: schedule 1s: ENOTTY: ", from[k]);
		ok = r.status == 1 && !strcmp(r.out, want_out) &&
		     lines_with(r.err, want_err) == 1 &&
		     lines_with(r.err, "dwqctl: ") == 1;
		result(ok,
		       "run -x, %s: a comment after a tab is not echoed, nor in the error (exit %d, out: %.100s, said: %.200s)",
		       k ? "a pipe" : "a file", r.status, r.out, r.err);
		ran_free(&r);
	}
	unlink(path);
}

/*
 * A line longer than any buffer is one line: the lines after it keep
 * their numbers, in a file parsed whole and from a pipe alike.
 */
static void test_long_lines(void)
{
	char *text = malloc(12000), path[] = "/tmp/dwqctl-unit-XXXXXX";
	const char *from[2] = { path, "<stdin>" };
	char want[128];
	struct ran r;
	size_t at;
	int k, ok;

	if (!text)
		exit(2);
	/* A comment of 5002 bytes on line 2, a bad line 3. */
	at = put(text, 0, "echo first\n# ", 0, 0);
	at = put(text, at, NULL, 'x', 5000);
	put(text, at, "\nbogus\n", 0, 0);
	script_file(path, text);
	for (k = 0; k < 2; k++) {
		run_prog(&r, k ? text : NULL, 0,
			 (const char *[]){ "run", "-n", k ? "-" : path, NULL });
		snprintf(want, sizeof(want),
			 "dwqctl: %s:3: unknown command 'bogus'", from[k]);
		ok = r.status == 2 && lines_with(r.err, want) == 1 &&
		     lines_with(r.err, "dwqctl: ") == 1;
		result(ok,
		       "run -n, %s: a comment of 5002 bytes is one line; line 3 is line 3 (exit %d, said: %.200s)",
		       k ? "a pipe" : "a file", r.status, r.err);
		ran_free(&r);
	}
	unlink(path);

	/* echo a, 5000 blanks, b; the comment; then stats fails on line 3. */
	at = put(text, 0, "echo a", 0, 0);
	at = put(text, at, NULL, ' ', 5000);
	at = put(text, at, "b\n# ", 0, 0);
	at = put(text, at, NULL, 'x', 5000);
	put(text, at, "\nstats\necho not reached\n", 0, 0);
	memcpy(strrchr(path, '-') + 1, "XXXXXX", 6); /* a new name */
	script_file(path, text);
	for (k = 0; k < 2; k++) {
		run_prog(&r, k ? text : NULL, 0,
			 (const char *[]){ "--device", "/dev/null", "run",
					   k ? "-" : path, NULL });
		snprintf(want, sizeof(want),
			 "dwqctl: %s:3: stats: ENOTTY: ", from[k]);
		ok = r.status == 1 && !strcmp(r.out, "a b\n") &&
		     lines_with(r.err, want) == 1 &&
		     lines_with(r.err, "dwqctl: ") == 1;
		result(ok,
		       "run, %s: a 5007-byte echo prints 'a b'; stats fails on line 3, named so (exit %d, out: %.40s, said: %.200s)",
		       k ? "a pipe" : "a file", r.status, r.out, r.err);
		ran_free(&r);
	}
	unlink(path);

	/* echo prints all of a long text, its blanks made one. */
	at = put(text, 0, "echo ", 0, 0);
	at = put(text, at, NULL, 'y', 3000);
	put(text, at, "  z\n", 0, 0);
	run_prog(&r, text, 0,
		 (const char *[]){ "--device", "/dev/null", "run", "-", NULL });
	memmove(text, text + 5, 3000);
	put(text, 3000, " z\n", 0, 0);
	result(r.status == 0 && !strcmp(r.out, text),
	       "run: echo of 3003 bytes prints them all (exit %d, printed %zu bytes)",
	       r.status, strlen(r.out));
	ran_free(&r);
	free(text);

	/* A line longer than the memory there is: an error, not the end. */
	text = malloc(64 << 20);
	if (!text)
		exit(2);
	put(text, put(text, 0, NULL, '#', (64 << 20) - 2), "\n", 0, 0);
	memcpy(strrchr(path, '-') + 1, "XXXXXX", 6); /* a new name */
	script_file(path, text);
	free(text);
	run_prog(&r, NULL, SMALL_MEMORY,
		 (const char *[]){ "run", "-n", path, NULL });
	snprintf(want, sizeof(want), "dwqctl: %s: ENOMEM: ", path);
	result(r.status == 1 && lines_with(r.err, want) == 1,
	       "run -n: a line of 64 MiB with 16 MiB of memory is ENOMEM, exit 1 (exit %d, said: %.200s)",
	       r.status, r.err);
	ran_free(&r);
	unlink(path);
}

/*
 * A device that fails: the JSON "end" record of after, every and watch
 * says "error" and which, as the last line, and the exit status is 1;
 * every's summary and after's last line say so too.
 */
static void test_end_records(void)
{
	static const struct {
		const char *dev;
		int fake;
		const char *err;
		const char *what;
	} devs[] = {
		{ "/nonexistent/dwq", 0, "ENOENT", "open" },
		{ "/dev/null", 0, "ENOTTY", "schedule" },
		/* SCHEDULE faked; read() at offset 0 of our memory: EIO. */
		{ "/proc/self/mem", 1, "EIO", "read" },
	};
	static const char *const cmds[] = { "after", "every" };
	char want[512], got[512];
	struct ran r;
	size_t d, c;

	for (d = 0; d < ARRAY_SIZE(devs); d++) {
		for (c = 0; c < ARRAY_SIZE(cmds); c++) {
			if (devs[d].fake && !seccomp_allowed()) {
				skip("no seccomp filters here",
				     "%s --json, %s fails (%s): the end record says so",
				     cmds[c], devs[d].what, devs[d].err);
				skip("no seccomp filters here",
				     "%s, %s fails (%s): the last line says so",
				     cmds[c], devs[d].what, devs[d].err);
				continue;
			}
			run_prog(&r, NULL, devs[d].fake ? FAKE_SCHEDULE : 0,
				 (const char *[]){ "--json", "--device",
						   devs[d].dev, cmds[c], "10ms",
						   "--", "true", NULL });
			snprintf(want, sizeof(want),
				 "{\"type\":\"end\",\"command\":\"%s\",\"reason\":\"error\",\"errno\":\"%s\",\"runs\":0,\"failed\":0,\"firings\":0,\"skipped\":0,\"overruns\":0,\"total_overruns\":0,\"exit_status\":1}",
				 cmds[c], devs[d].err);
			last_line(r.out, got, sizeof(got));
			result(r.status == 1 && !strcmp(got, want),
			       "%s --json, %s fails (%s): the end record says so, exit 1 (exit %d, got %s)",
			       cmds[c], devs[d].what, devs[d].err, r.status,
			       got);
			ran_free(&r);
			run_prog(&r, NULL, devs[d].fake ? FAKE_SCHEDULE : 0,
				 (const char *[]){ "--device", devs[d].dev,
						   cmds[c], "10ms", "--",
						   "true", NULL });
			if (c)
				snprintf(want, sizeof(want),
					 "dwqctl every: stopped by an error (%s): 0 runs, 0 failed; 0 firings, 0 overruns (0 skipped while CMD ran, 0 in events)",
					 devs[d].err);
			else
				snprintf(want, sizeof(want),
					 "dwqctl after: stopped by an error (%s): CMD did not run",
					 devs[d].err);
			last_line(r.err, got, sizeof(got));
			result(r.status == 1 && !strcmp(got, want),
			       "%s, %s fails (%s): the last line says so, exit 1 (exit %d, got %s)",
			       cmds[c], devs[d].what, devs[d].err, r.status,
			       got);
			ran_free(&r);
		}
		if (devs[d].fake)
			continue;
		run_prog(&r, NULL, 0,
			 (const char *[]){ "--json", "--device", devs[d].dev,
					   "watch", "100ms", "--count", "2",
					   NULL });
		snprintf(want, sizeof(want),
			 "{\"type\":\"end\",\"command\":\"watch\",\"reason\":\"error\",\"errno\":\"%s\",\"refreshes\":0,\"exit_status\":1}",
			 devs[d].err);
		last_line(r.out, got, sizeof(got));
		result(r.status == 1 && !strcmp(got, want),
		       "watch --json on %s (%s): the end record says so, exit 1 (exit %d, got %s)",
		       devs[d].dev, devs[d].err, r.status, got);
		ran_free(&r);
	}
}

/* --- a reschedule's now, on the task's clock --------------------------- */

/* Tasks as supervise() answers for them. */
#define BOOT_TASK 7 /* on CLOCK_BOOTTIME */
#define MONO_TASK 8 /* on CLOCK_MONOTONIC */
#define GONE_TASK 404 /* no such task: ENOENT */
#define ODD_TASK 77 /* its cancel answers ODD_RESULT */
/* A cancel result no dwq defines, as a later one might answer. */
#define ODD_RESULT 99
#define FIRST_ID 100 /* the id of the first task scheduled */
/* A period below this is EINVAL, as below the module's min_period_ns. */
#define MIN_PERIOD_NS (100 * NSEC_PER_USEC)
#define MAX_SEEN 16

/**
 * struct seen - the ioctls a supervised program made
 * @queried: the ids it queried
 * @nqueried: how many
 * @resched: its reschedules, as it passed them
 * @nresched: how many
 * @nscheduled: its schedules, refused ones included
 * @cancelled: the ids it cancelled
 * @ncancelled: how many
 * @nclones: its clone3() calls: the threads it made, or tried to
 */
struct seen {
	__u64 queried[MAX_SEEN];
	int nqueried;
	struct dwq_ioc_reschedule resched[MAX_SEEN];
	int nresched;
	int nscheduled;
	__u64 cancelled[MAX_SEEN];
	int ncancelled;
	int nclones;
};

/**
 * struct faults - what supervise() makes fail, beyond its devices' answers
 * @clone: the clone3() call (from 1) that fails with EPERM, 0 for none
 * @timerfd: 1 if timerfd_create() fails with EMFILE
 */
struct faults {
	int clone;
	int timerfd;
};

/* Copy @len bytes at @addr in process @pid to @buf, or from it (@write). */
static int peek(pid_t pid, __u64 addr, void *buf, size_t len, int write)
{
	struct iovec here = { .iov_base = buf, .iov_len = len };
	struct iovec there = { .iov_base = (void *)(uintptr_t)addr,
			       .iov_len = len };
	ssize_t n = write ? process_vm_writev(pid, &here, 1, &there, 1, 0) :
			    process_vm_readv(pid, &here, 1, &there, 1, 0);

	return n == (ssize_t)len ? 0 : -1;
}

/* Cancel @c as supervise() does, noting it in @seen. */
static void cancel_one(struct seen *seen, struct dwq_ioc_cancel *c)
{
	if (seen->ncancelled < MAX_SEEN)
		seen->cancelled[seen->ncancelled++] = c->id;
	c->result = c->id == GONE_TASK ? DWQ_RESULT_NOENT :
		    c->id == ODD_TASK  ? ODD_RESULT :
					 DWQ_RESULT_REMOVED;
}

/* Answer @b, a CANCEL_BATCH of process @pid: 0 or the ioctl's -errno. */
static int cancel_batch(pid_t pid, struct seen *seen,
			const struct dwq_ioc_cancel_batch *b)
{
	struct dwq_ioc_cancel c[MAX_SEEN];
	__u32 i;

	if (!b->count || b->count > MAX_SEEN)
		return -EINVAL;
	if (peek(pid, b->entries, c, b->count * sizeof(c[0]), 0))
		return -EFAULT;
	for (i = 0; i < b->count; i++)
		cancel_one(seen, &c[i]);
	return peek(pid, b->entries, c, b->count * sizeof(c[0]), 1) ? -EFAULT :
								      0;
}

/*
 * Be the device of a program started SUPERVISED, until it ends: QUERY
 * says BOOT_TASK is on CLOCK_BOOTTIME, GONE_TASK is ENOENT, any other
 * task is on CLOCK_MONOTONIC; RESCHEDULE succeeds; SCHEDULE is EINVAL for
 * a period below MIN_PERIOD_NS, else its task's id is FIRST_ID plus the
 * number of schedules before it; CANCEL and CANCEL_BATCH remove, but
 * answer GONE_TASK's as ENOENT (DWQ_RESULT_NOENT in a batch) and
 * ODD_TASK's with ODD_RESULT. Note them in @seen.
 * clone3() and timerfd_create() go on, unless @f (NULL: nothing) makes
 * them fail.
 */
static void supervise(int notify, pid_t pid, const struct faults *f,
		      struct seen *seen)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif_resp *resp;
	struct seccomp_notif *req;
	struct dwq_ioc_reschedule rs;
	struct dwq_ioc_schedule sc;
	struct dwq_ioc_cancel_batch b;
	struct dwq_ioc_cancel c;
	struct dwq_ioc_query q;
	struct pollfd pfd = { .fd = notify, .events = POLLIN };
	__u64 addr;

	memset(seen, 0, sizeof(*seen));
	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz))
		exit(2);
	req = malloc(sz.seccomp_notif > sizeof(*req) ? sz.seccomp_notif :
						       sizeof(*req));
	resp = malloc(sz.seccomp_notif_resp > sizeof(*resp) ?
			      sz.seccomp_notif_resp :
			      sizeof(*resp));
	if (!req || !resp)
		exit(2);
	/* POLLHUP: the program is gone. */
	while (poll(&pfd, 1, 20000) > 0 && (pfd.revents & POLLIN)) {
		memset(req, 0, sz.seccomp_notif);
		if (ioctl(notify, SECCOMP_IOCTL_NOTIF_RECV, req))
			continue; /* the call was interrupted meanwhile */
		memset(resp, 0, sz.seccomp_notif_resp);
		resp->id = req->id;
		addr = req->data.args[2];
		if (req->data.nr == __NR_clone3) {
			if (++seen->nclones == (f ? f->clone : 0))
				resp->error = -EPERM;
			else
				resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		} else if (req->data.nr == __NR_timerfd_create) {
			if (f && f->timerfd)
				resp->error = -EMFILE;
			else
				resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		} else if ((__u32)req->data.args[1] == (__u32)DWQ_IOC_QUERY &&
			   !peek(pid, addr, &q, sizeof(q), 0)) {
			if (seen->nqueried < MAX_SEEN)
				seen->queried[seen->nqueried++] = q.id;
			q.state = DWQ_STATE_QUEUED;
			q.flags = q.id == BOOT_TASK ? DWQ_SCHED_BOOTTIME : 0;
			if (q.id == GONE_TASK)
				resp->error = -ENOENT;
			else if (peek(pid, addr, &q, sizeof(q), 1))
				resp->error = -EFAULT;
		} else if ((__u32)req->data.args[1] ==
				   (__u32)DWQ_IOC_RESCHEDULE &&
			   !peek(pid, addr, &rs, sizeof(rs), 0)) {
			if (seen->nresched < MAX_SEEN)
				seen->resched[seen->nresched++] = rs;
		} else if ((__u32)req->data.args[1] ==
				   (__u32)DWQ_IOC_SCHEDULE &&
			   !peek(pid, addr, &sc, sizeof(sc), 0)) {
			sc.id = FIRST_ID + seen->nscheduled++;
			if (sc.period_ns && sc.period_ns < MIN_PERIOD_NS)
				resp->error = -EINVAL;
			else if (peek(pid, addr, &sc, sizeof(sc), 1))
				resp->error = -EFAULT;
		} else if ((__u32)req->data.args[1] == (__u32)DWQ_IOC_CANCEL &&
			   !peek(pid, addr, &c, sizeof(c), 0)) {
			cancel_one(seen, &c);
			if (c.result == DWQ_RESULT_NOENT)
				resp->error = -ENOENT;
			else if (peek(pid, addr, &c, sizeof(c), 1))
				resp->error = -EFAULT;
		} else if ((__u32)req->data.args[1] ==
				   (__u32)DWQ_IOC_CANCEL_BATCH &&
			   !peek(pid, addr, &b, sizeof(b), 0)) {
			resp->error = cancel_batch(pid, seen, &b);
		} else {
			resp->error = -EFAULT;
		}
		/* ENOENT if the program was killed meanwhile: nothing to do. */
		ioctl(notify, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
	free(req);
	free(resp);
}

/*
 * dwqctl with @args, @input on its stdin, on the supervised device (@f
 * its faults, or NULL), into @r and @seen. 0; or -1, the case @name
 * skipped and @r freed, where this machine cannot supervise a program.
 */
static int run_supervised(struct ran *r, struct seen *seen, const char *input,
			  const char *const *args, const struct faults *f,
			  const char *name)
{
	pid_t pid = start_prog(r, input, SUPERVISED, args);

	if (r->notify < 0) {
		end_prog(r, pid);
		skip("no user and time namespaces, or no seccomp listener here",
		     "%s", name);
		ran_free(r);
		return -1;
	}
	supervise(r->notify, pid, f, seen);
	end_prog(r, pid);
	return 0;
}

static __u64 now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/*
 * Is @seen's reschedule @i (if it made that many) the one of @id to
 * @flags, with a deadline 30 s after a moment between @lo and @hi (plus
 * @ahead s)?
 */
static int resched_is(const struct seen *seen, int i, __u64 id, __u32 flags,
		      __u64 lo, __u64 hi, __u64 ahead)
{
	const struct dwq_ioc_reschedule *r = &seen->resched[i];
	__u64 off = (ahead + 30) * NSEC_PER_SEC;

	return i < seen->nresched && r->id == id && r->flags == flags &&
	       r->time_ns >= lo + off && r->time_ns <= hi + off;
}

/*
 * `reschedule ID now+D` keeps the task's clock, so it reads that clock:
 * the one the device says the task is on when the line names none, the
 * one it names (boottime or monotonic, which it passes on) otherwise. The
 * program runs with CLOCK_BOOTTIME BOOT_AHEAD_S ahead of CLOCK_MONOTONIC,
 * as after a suspend that long: a deadline on the wrong clock is 1000 s
 * off.
 */
static void test_reschedule_clock(void)
{
	static const char script[] = "reschedule 7 now+30s\n" /* BOOT_TASK */
				     "reschedule 8 now+30s\n" /* MONO_TASK */
				     "reschedule 7 now+30s monotonic\n"
				     "reschedule 8 now+30s boottime\n"
				     "reschedule 7 30s\n"
				     "reschedule 404 now+30s\n"; /* GONE_TASK */
	static const char *const name =
		"run: reschedule ID now+30s on the task's clock";
	__u64 m0, b0, m1, b1;
	struct seen seen;
	struct ran r;
	int ok;

	m0 = now_ns(CLOCK_MONOTONIC);
	b0 = now_ns(CLOCK_BOOTTIME);
	if (run_supervised(&r, &seen, script,
			   (const char *[]){ "--device", "/dev/null", "run",
					     "-k", "-", NULL },
			   NULL, name))
		return;
	m1 = now_ns(CLOCK_MONOTONIC);
	b1 = now_ns(CLOCK_BOOTTIME);

	ok = r.status == 1 && seen.nresched == 5 && seen.nqueried == 3 &&
	     seen.queried[0] == BOOT_TASK && seen.queried[1] == MONO_TASK &&
	     seen.queried[2] == GONE_TASK;
	result(ok,
	       "%s: only now without a clock word asks the task's clock; 5 reschedules (exit %d, %d queries, %d reschedules, said: %.200s)",
	       name, r.status, seen.nqueried, seen.nresched, r.err);
	result(resched_is(&seen, 0, BOOT_TASK, DWQ_SCHED_ABS, b0, b1,
			  BOOT_AHEAD_S),
	       "%s: a CLOCK_BOOTTIME task's deadline is on CLOCK_BOOTTIME, its clock kept (flags %#x, %lld s from the monotonic now)",
	       name, seen.resched[0].flags,
	       (long long)(seen.resched[0].time_ns - m0) / 1000000000LL);
	result(resched_is(&seen, 1, MONO_TASK, DWQ_SCHED_ABS, m0, m1, 0),
	       "%s: a CLOCK_MONOTONIC task's deadline is on CLOCK_MONOTONIC (flags %#x, %lld s from the monotonic now)",
	       name, seen.resched[1].flags,
	       (long long)(seen.resched[1].time_ns - m0) / 1000000000LL);
	result(resched_is(&seen, 2, BOOT_TASK,
			  DWQ_SCHED_ABS | DWQ_RESCHED_MONOTONIC, m0, m1, 0),
	       "%s monotonic: moved to CLOCK_MONOTONIC, the deadline on it (flags %#x, %lld s from the monotonic now)",
	       name, seen.resched[2].flags,
	       (long long)(seen.resched[2].time_ns - m0) / 1000000000LL);
	result(resched_is(&seen, 3, MONO_TASK,
			  DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, b0, b1,
			  BOOT_AHEAD_S),
	       "%s boottime: moved to CLOCK_BOOTTIME, the deadline on it (flags %#x, %lld s from the monotonic now)",
	       name, seen.resched[3].flags,
	       (long long)(seen.resched[3].time_ns - m0) / 1000000000LL);
	ok = seen.nresched > 4 && seen.resched[4].id == BOOT_TASK &&
	     !seen.resched[4].flags &&
	     seen.resched[4].time_ns == 30 * NSEC_PER_SEC;
	result(ok,
	       "run: reschedule ID 30s: a delay, no clock read (flags %#x, time %llu)",
	       seen.resched[4].flags, seen.resched[4].time_ns);
	ok = lines_with(r.err,
			"dwqctl: <stdin>:6: reschedule 404: ENOENT: no such task in this file") ==
		     1 &&
	     lines_with(r.err, "dwqctl: ") == 1;
	result(ok,
	       "run: reschedule of an unknown id now+30s: its query's ENOENT, no reschedule (said: %.200s)",
	       r.err);
	ran_free(&r);
}

/*
 * run -k: a schedule that failed still counts for $N and $last, which name
 * no task then: an error, not the id of the schedule before it or after.
 */
static void test_failed_schedule(void)
{
	static const char script[] = "schedule 60s cookie 1\n" /* FIRST_ID */
				     "schedule 1s every 10us\n" /* EINVAL */
				     "cancel $last\n"
				     "query $2\n"
				     "cancel $1 $2\n"
				     "query $1\n"
				     "schedule 1s\n" /* FIRST_ID + 2 */
				     "query $last\n"
				     "query $3\n"
				     "query $4\n";
	static const char *const want[] = {
		"dwqctl: <stdin>:2: schedule 1s every 10us: EINVAL: ",
		"dwqctl: <stdin>:3: cancel $last: schedule 2 of this run failed: no task\n",
		"dwqctl: <stdin>:4: query $2: schedule 2 of this run failed: no task\n",
		"dwqctl: <stdin>:5: cancel $2: schedule 2 of this run failed: no task\n",
		"dwqctl: <stdin>:10: query $4: not that many schedules yet\n",
	};
	static const char *const name =
		"run -k: $N and $last of a failed schedule";
	struct seen seen;
	struct ran r;
	size_t i;
	int ok;

	if (run_supervised(&r, &seen, script,
			   (const char *[]){ "--device", "/dev/null", "run",
					     "-k", "-", NULL },
			   NULL, name))
		return;

	ok = r.status == 1 && seen.nscheduled == 3 && !seen.ncancelled &&
	     seen.nqueried == 3 && seen.queried[0] == FIRST_ID &&
	     seen.queried[1] == FIRST_ID + 2 && seen.queried[2] == FIRST_ID + 2;
	result(ok,
	       "%s: nothing cancelled; $1, then $last and $3 queried: %d, %d, %d (exit %d, %d schedules, %d cancels, %d queries: %llu %llu %llu)",
	       name, FIRST_ID, FIRST_ID + 2, FIRST_ID + 2, r.status,
	       seen.nscheduled, seen.ncancelled, seen.nqueried, seen.queried[0],
	       seen.queried[1], seen.queried[2]);
	ok = lines_with(r.err, "dwqctl: ") == (int)ARRAY_SIZE(want);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ok = ok && lines_with(r.err, want[i]) == 1;
	result(ok,
	       "%s: an error naming the failed schedule, for each (said: %.600s)",
	       name, r.err);
	ran_free(&r);
}

/* What dwqctl says of ODD_TASK's cancel, after "dwqctl: FILE:LINE: ". */
#define ODD_SAID \
	"cancel 77: result 99, unknown to this dwqctl: the task may not be cancelled\n"

/*
 * A cancel whose result dwqctl does not know (a later dwq's, say) has not
 * been shown to leave the task cancelled: an error naming the result, the
 * command failed, alone and in a batch; the batch's other ids are still
 * reported as the device answered them.
 */
static void test_unknown_cancel_result(void)
{
	static const struct {
		const char *script;
		int ncancelled;
		const char *out;
		const char *noent;
	} cases[] = {
		{ "cancel 77\n", 1, "", NULL },
		{ "cancel 8 77 404\n", 3,
		  "cancel 8: removed: it will not fire\n",
		  "dwqctl: <stdin>:1: cancel 404: ENOENT: " },
	};
	static const char *const name =
		"run: cancel answered with a result dwqctl does not know";
	const char *odd;
	struct seen seen;
	struct ran r;
	size_t i;
	int ok;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (run_supervised(&r, &seen, cases[i].script,
				   (const char *[]){ "--device", "/dev/null",
						     "run", "-", NULL },
				   NULL, name))
			return;
		odd = strstr(r.err, "dwqctl: <stdin>:1: " ODD_SAID);
		ok = r.status == 1 && seen.ncancelled == cases[i].ncancelled &&
		     !strcmp(r.out, cases[i].out) && odd &&
		     lines_with(r.err, "dwqctl: ") == 1 + (int)i &&
		     (!cases[i].noent ||
		      lines_with(r.err, cases[i].noent) == 1);
		result(ok,
		       "%s: %.20s: the command fails, saying so (exit %d, %d cancelled, printed: %.200s, said: %.400s)",
		       name, cases[i].script, r.status, seen.ncancelled, r.out,
		       r.err);
		ran_free(&r);
	}
}

/*
 * bench --only F6 stops at a file or a thread it cannot have: the error
 * says which and why, its errno and no other; the lines printed before
 * are kept; the threads made are not left waiting for the one missing.
 */
static void test_bench_f6_errors(void)
{
	static const struct {
		const char *dev;
		struct faults f;
		const char *err;
		const char *what;
	} cases[] = {
		{ "/nonexistent/dwq",
		  { 0, 0 },
		  "dwqctl: /nonexistent/dwq: ENOENT: ",
		  "the device" },
		{ "/dev/null",
		  { 0, 1 },
		  "dwqctl: bench: F6: timerfd_create, thread 1 of 1: EMFILE: ",
		  "timerfd_create()" },
		/* 3 threads for 1 thread, 2 for 2: the second of those fails. */
		{ "/dev/null",
		  { 5, 0 },
		  "dwqctl: bench: F6: pthread_create, thread 2 of 2: EPERM: ",
		  "the second of 2 threads" },
	};
	static const char head[] =
		"dwqctl bench: 1 repetitions of 1 operations per timing;\n";
	struct seen seen;
	struct ran r;
	size_t c;
	pid_t pid;
	int ok;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		pid = start_prog(&r, NULL, c ? SUPERVISED : 0,
				 (const char *[]){ "--device", cases[c].dev,
						   "bench", "--only", "F6",
						   "--ops", "1", "--reps", "1",
						   NULL });
		if (c && r.notify < 0) {
			end_prog(&r, pid);
			skip("no user and time namespaces, or no seccomp listener here",
			     "bench F6 without %s", cases[c].what);
			ran_free(&r);
			continue;
		}
		if (c)
			supervise(r.notify, pid, &cases[c].f, &seen);
		end_prog(&r, pid);
		ok = r.status == 1 && lines_with(r.out, head) == 1 &&
		     lines_with(r.err, cases[c].err) == 1 &&
		     lines_with(r.err, "dwqctl: ") == 1;
		if (cases[c].f.clone)
			ok = ok && seen.nclones == cases[c].f.clone;
		result(ok,
		       "bench F6 without %s: its errno alone, the lines before kept, exit 1 (exit %d, out: %.100s, said: %.300s)",
		       cases[c].what, r.status, r.out, r.err);
		ran_free(&r);
	}
}

/* --- SIGINT ignored on entry stays ignored ------------------------------ */

/* Does process @pid block @sig? */
static int blocks(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigBlk: %llx", &mask) == 1;
	fclose(f);
	return found && (mask & (1ULL << (sig - 1)));
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * after, every and watch started with SIGINT ignored (as sh starts a
 * command with &) go on when it comes, and end cleanly on SIGTERM. The
 * device is a FIFO that never becomes readable, SCHEDULE and STATS faked.
 */
static void test_ignored_sigint(void)
{
	char dir[] = "/tmp/dwqctl-unit-XXXXXX", fifo[64], got[512];
	static const struct {
		const char *cmd;
		const char *args[5];
		int status;
		int json;
	} runs[] = {
		{
			.cmd = "after",
			.args = { "after", "1h", "--", "true" },
			.status = 143,
		},
		{
			.cmd = "every",
			.args = { "every", "1h", "--", "true" },
		},
		{
			.cmd = "watch",
			.args = { "--json", "watch", "1h" },
			.json = 1,
		},
	};
	/* The last line of each, on stderr or with --json on stdout. */
	static const char *const last[] = {
		"dwqctl after: stopped by SIGTERM before the deadline: the timer is cancelled, CMD did not run",
		"dwqctl every: stopped by SIGTERM: 0 runs, 0 failed; 0 firings, 0 overruns (0 skipped while CMD ran, 0 in events)",
		"{\"type\":\"end\",\"command\":\"watch\",\"reason\":\"signal\",\"signal\":\"SIGTERM\",\"refreshes\":1,\"exit_status\":0}",
	};
	struct ran r;
	size_t c;
	int i, running, ws, ok;
	pid_t pid;

	if (!seccomp_allowed()) {
		for (c = 0; c < ARRAY_SIZE(runs); c++)
			skip("no seccomp filters here",
			     "%s started with SIGINT ignored: SIGINT does not stop it",
			     runs[c].cmd);
		return;
	}
	/* The device, for each command and nothing else. */
	fifo_device(dir, fifo, sizeof(fifo), 1);
	for (c = 0; c < ARRAY_SIZE(runs); c++) {
		pid = start_prog(&r, NULL, FAKE_SCHEDULE | SIGINT_IGNORED,
				 runs[c].args);
		/* SIGTERM blocked: its signalfd is made, or about to be. */
		for (i = 0; i < 1000 && !blocks(pid, SIGTERM); i++)
			sleep_ms(10);
		kill(pid, SIGINT);
		sleep_ms(500);
		running = waitpid(pid, &ws, WNOHANG) == 0;
		if (!running) {
			/* Ended already: end_prog() has nothing to reap. */
			r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) :
						   128 + WTERMSIG(ws);
			r.out = slurp(r.outfd);
			r.err = slurp(r.errfd);
		} else {
			kill(pid, SIGTERM);
			end_prog(&r, pid);
		}
		last_line(runs[c].json ? r.out : r.err, got, sizeof(got));
		ok = running && r.status == runs[c].status &&
		     !strcmp(got, last[c]);
		result(ok,
		       "%s started with SIGINT ignored: SIGINT does not stop it, SIGTERM does, exit %d (%s; exit %d, last line: %s)",
		       runs[c].cmd, runs[c].status,
		       running ? "ran on after SIGINT" : "SIGINT stopped it",
		       r.status, got);
		ran_free(&r);
	}
	unsetenv("DWQ_DEVICE");
	unlink(fifo);
	rmdir(dir);
}

/*
 * after: a stop signal that comes with the firing ready to read and CMD
 * not started does not start it, and says it came at the deadline, not
 * before it. dwqctl is stopped (SIGSTOP) while the firing is written into
 * its device, a FIFO, and SIGTERM sent: when it goes on, its poll() finds
 * both at once.
 */
static void test_stop_at_deadline(void)
{
	static const char what[] =
		"after, SIGTERM with the firing ready: CMD does not run";
	char dir[] = "/tmp/dwqctl-unit-XXXXXX", fifo[64], flag[64], got[512];
	/* The last line: an array, as a string this long must stand alone. */
	static const char *const want[] = {
		"dwqctl after: stopped by SIGTERM at the deadline, before CMD started: CMD did not run",
	};
	struct dwq_event ev = { .id = 1, .deadline_ns = 1, .fired_ns = 1 };
	struct ran r;
	int i, w = -1, ws, ok, stopped;
	pid_t pid;

	if (seccomp_missing(what))
		return;
	fifo_device(dir, fifo, sizeof(fifo), 1);
	snprintf(flag, sizeof(flag), "%s/ran", dir);
	pid = start_prog(&r, NULL, FAKE_SCHEDULE,
			 (const char *[]){ "after", "1h", "--", "touch", flag,
					   NULL });
	/* Open for writing once dwqctl has it open (SIGTERM blocked). */
	for (i = 0; i < 1000 && w < 0; i++) {
		w = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (w < 0)
			sleep_ms(10);
	}
	kill(pid, SIGSTOP);
	stopped = waitpid(pid, &ws, WUNTRACED) == pid && WIFSTOPPED(ws);
	if (w >= 0 && write(w, &ev, sizeof(ev)) != sizeof(ev))
		stopped = 0;
	kill(pid, SIGTERM);
	kill(pid, SIGCONT);
	end_prog(&r, pid);
	last_line(r.err, got, sizeof(got));
	ok = w >= 0 && stopped && r.status == 143 && !strcmp(got, want[0]) &&
	     access(flag, F_OK) && errno == ENOENT;
	result(ok,
	       "after, SIGTERM with the firing ready and CMD not started: exit 143, CMD not run, says so (exit %d, %s, last line: %s)",
	       r.status, access(flag, F_OK) ? "not run" : "CMD ran", got);
	ran_free(&r);
	if (w >= 0)
		close(w);
	unsetenv("DWQ_DEVICE");
	unlink(flag);
	unlink(fifo);
	rmdir(dir);
}

/* --- usage errors ---------------------------------------------------- */

/*
 * every 1s --first -- CMD: the -- is CMD's, not a duration. The help's
 * exit statuses are those of every.c and main.c: every's, 127 and 126,
 * SIGINT's and SIGTERM's.
 */
static void test_usage(void)
{
	static const char want[] =
		"Exit status: 0 success, 1 failure, 2 usage error. after returns CMD's\n"
		"status, every that of its last failed run; both 127 or 126 if CMD\n"
		"cannot be run. SIGINT or SIGTERM ends a command with 130 or 143, but\n"
		"watch and every with the status they would have had, and after, once\n"
		"CMD runs, with CMD's.\n";
	const char *st;
	struct ran r;
	int ok;

	run_prog(&r, NULL, 0, (const char *[]){ "--help", NULL });
	st = strstr(r.out, "\nExit status: ");
	ok = r.status == 0 && st && !strncmp(st + 1, want, strlen(want));
	result(ok,
	       "--help: the exit status of after and every, 127/126, 130/143 (exit %d, said: %.200s)",
	       r.status, st ? st + 1 : r.out);
	ran_free(&r);

	run_prog(&r, NULL, 0,
		 (const char *[]){ "every", "1s", "--first", "--", "true",
				   NULL });
	ok = r.status == 2 && !strstr(r.err, "put --") &&
	     lines_with(r.err, "dwqctl every: --first needs a duration\n") == 1;
	result(ok,
	       "every 1s --first -- true: --first's duration is missing, exit 2 (exit %d, said: %.200s)",
	       r.status, r.err);
	ran_free(&r);
}

/* --- write errors ---------------------------------------------------- */

/*
 * Start the program with @args, its stdout on @outfd, its stderr on @errfd
 * (-1: /dev/null), its stdin @input_path (NULL: /dev/null), as @how says
 * (FAKE_SCHEDULE, SIGPIPE_IGNORED, OWN_GROUP). Killed if it runs for 20 s.
 * Return its pid.
 */
static pid_t start_out(int outfd, int errfd, const char *input_path, int how,
		       const char *const *args)
{
	const char *argv[16] = { prog };
	pid_t pid;
	int i;

	for (i = 0; args[i] && i + 2 < (int)ARRAY_SIZE(argv); i++)
		argv[i + 1] = args[i];
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		int in = open(input_path ? input_path : "/dev/null", O_RDONLY);

		if (errfd < 0)
			errfd = open("/dev/null", O_WRONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(outfd, 1) < 0 ||
		    dup2(errfd, 2) < 0)
			_exit(125);
		if (how & OWN_GROUP)
			setpgid(0, 0);
		if (how & SIGPIPE_IGNORED)
			signal(SIGPIPE, SIG_IGN);
		if (how & FAKE_SCHEDULE)
			fake_schedule();
		if (how & NO_TERM_KILL)
			no_term_kill();
		alarm(20);
		execv(prog, (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/*
 * Run the program as start_out() starts it, its stderr into @errbuf.
 * Return its exit status, 128 + N for signal N.
 */
static int run_out(int outfd, int how, const char *input_path, char *errbuf,
		   size_t errlen, const char *const *args)
{
	int ws, errfd = memfd_create("err", MFD_CLOEXEC);
	char *err;
	pid_t pid;

	if (errfd < 0)
		exit(2);
	pid = start_out(outfd, errfd, input_path, how, args);
	if (waitpid(pid, &ws, 0) != pid)
		exit(2);
	err = slurp(errfd);
	snprintf(errbuf, errlen, "%s", err);
	free(err);
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/*
 * A failed write to stdout is a failure: exit 1 and "dwqctl: write error:
 * ERRNO: CAUSE" on stderr, not exit 0.
 */
static void test_write_errors(void)
{
	static const char *const enospc[] = {
		"dwqctl: write error: ENOSPC: No space left on device\n",
	};
	static const char *const epipe[] = {
		"dwqctl: write error: EPIPE: Broken pipe\n",
	};
	char path[] = "/tmp/dwqctl-unit-XXXXXX", err[512];
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC), p[2], st;

	if (full < 0)
		exit(2);
	st = run_out(full, 0, NULL, err, sizeof(err),
		     (const char *[]){ "--version", NULL });
	result(st == 1 && lines_with(err, enospc[0]) == 1,
	       "--version > /dev/full: exit 1, says write error (exit %d, said: %s)",
	       st, err);
	st = run_out(full, 0, NULL, err, sizeof(err),
		     (const char *[]){ "--json", "--version", NULL });
	result(st == 1 && lines_with(err, enospc[0]) == 1,
	       "--json --version > /dev/full: exit 1, says write error (exit %d, said: %s)",
	       st, err);
	script_file(path, "echo hi\necho ho\n");
	st = run_out(full, 0, path, err, sizeof(err),
		     (const char *[]){ "--device", "/dev/null", "run", "-",
				       NULL });
	result(st == 1 && lines_with(err, enospc[0]) == 1,
	       "run of 'echo hi' > /dev/full: exit 1, says write error once (exit %d, said: %s)",
	       st, err);
	/* SIGPIPE ignored: EPIPE ends it, a failure. */
	if (pipe2(p, O_CLOEXEC))
		exit(2);
	close(p[0]);
	st = run_out(p[1], SIGPIPE_IGNORED, path, err, sizeof(err),
		     (const char *[]){ "--json", "--device", "/dev/null", "run",
				       "-", NULL });
	result(st == 1 && lines_with(err, epipe[0]) == 1,
	       "run --json into a closed pipe, SIGPIPE ignored: exit 1, says write error once (exit %d, said: %s)",
	       st, err);
	close(p[1]);
	close(full);
	unlink(path);
}

/* --- a stop signal while stdout's reader stalls ---------------------- */

/* Wait up to @ms for @pid to end; 1 and its wait status in @ws if it did. */
static int ended_within(pid_t pid, int ms, int *ws)
{
	int i;

	for (i = 0; i < ms / 20; i++) {
		if (waitpid(pid, ws, WNOHANG) == pid)
			return 1;
		sleep_ms(20);
	}
	return 0;
}

/*
 * --json: SIGTERM ends dwqctl even while the reader of its stdout, a
 * pipe, reads nothing: run dies of it, as it does of SIGTERM; every
 * stops, as on SIGTERM.
 */
static void test_stalled_reader(void)
{
	static const char what[] =
		"--json every, stdout's reader stalled: SIGTERM ends it";
	char path[] = "/tmp/dwqctl-unit-XXXXXX",
	     dir[] = "/tmp/dwqctl-unit-XXXXXX";
	char fifo[64], *script = malloc(20000 * 8 + 1);
	struct dwq_event ev[64] = { 0 };
	int p[2], i, ws = 0, done, w = -1;
	size_t at = 0;
	pid_t pid;

	if (!script)
		exit(2);
	for (i = 0; i < 20000; i++)
		at = put(script, at, "echo x\n", 0, 0);
	script_file(path, script);
	free(script);
	if (pipe2(p, O_CLOEXEC))
		exit(2);
	pid = start_out(p[1], -1, NULL, 0,
			(const char *[]){ "--json", "--device", "/dev/null",
					  "run", path, NULL });
	sleep_ms(300); /* the pipe is full by now: p[0] is never read */
	kill(pid, SIGTERM);
	done = ended_within(pid, 2000, &ws);
	result(done && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGTERM,
	       "--json run, stdout's reader stalled: SIGTERM ends it within 2s (%s)",
	       done ? "ended" : "still running");
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &ws, 0);
	}
	close(p[0]);
	close(p[1]);
	unlink(path);

	/* every: its firing records fill the pipe. */
	if (seccomp_missing(what))
		return;
	fifo_device(dir, fifo, sizeof(fifo), 0);
	if (pipe2(p, O_CLOEXEC))
		exit(2);
	pid = start_out(p[1], -1, NULL, FAKE_SCHEDULE,
			(const char *[]){ "--json", "--device", fifo, "every",
					  "1h", "--", "true", NULL });
	for (i = 0; i < 1000 && w < 0; i++) {
		w = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (w < 0)
			sleep_ms(10);
	}
	for (i = 0; i < 64; i++)
		ev[i] = (struct dwq_event){ .id = 1,
					    .deadline_ns = 1,
					    .fired_ns = 1 };
	/* 64 firings at a time, about 300 bytes of records each. */
	for (i = 0; w >= 0 && i < 10; i++)
		if (write(w, ev, sizeof(ev)) != sizeof(ev))
			break;
	sleep_ms(500);
	kill(pid, SIGTERM);
	done = ended_within(pid, 2000, &ws);
	result(done && WIFEXITED(ws),
	       "--json every, stdout's reader stalled: SIGTERM ends it within 2s, as a stop (%s, %s %d)",
	       done ? "ended" : "still running",
	       done && WIFSIGNALED(ws) ? "killed by signal" : "exit",
	       done && WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &ws, 0);
	}
	if (w >= 0)
		close(w);
	close(p[0]);
	close(p[1]);
	unlink(fifo);
	rmdir(dir);
}

/* --- SIGPIPE: after and every stop, and wait for CMD ------------------ */

/* Open the FIFO @fifo once dwqctl has it open; -1 if it never does. */
static int fifo_writer(const char *fifo)
{
	int i, w = -1;

	for (i = 0; i < 1000 && w < 0; i++) {
		w = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (w < 0)
			sleep_ms(10);
	}
	return w;
}

/* One event into the device @w, a FIFO: the timer fired. */
static int fire(int w)
{
	struct dwq_event ev = { .id = 1, .deadline_ns = 1, .fired_ns = 1 };

	return w >= 0 && write(w, &ev, sizeof(ev)) == sizeof(ev);
}

/*
 * after --json, stdout's reader gone while CMD runs: a write error
 * (SIGPIPE ignored by dwqctl, not by CMD): CMD is waited for, exit 1. CMD
 * gets SIGPIPE as dwqctl did on entry: default, or ignored.
 */
static void test_sigpipe(void)
{
	static const char what[] =
		"after --json, stdout's reader gone: CMD waited for";
	static const char *const epipe[] = {
		"dwqctl: write error: EPIPE: Broken pipe\n",
	};
	char dir[] = "/tmp/dwqctl-unit-XXXXXX", fifo[64], flag[64], ign[64];
	char cmd[256], err[1024], *mask;
	unsigned long long m;
	int p[2], w, ws, ok, fired, how, errfd, done, fd;
	pid_t pid;

	if (seccomp_missing(what))
		return;
	fifo_device(dir, fifo, sizeof(fifo), 0);
	snprintf(flag, sizeof(flag), "%s/done", dir);
	snprintf(ign, sizeof(ign), "%s/sigign", dir);
	snprintf(cmd, sizeof(cmd),
		 "grep ^SigIgn: /proc/$$/status > %s; sleep 0.5; touch %s", ign,
		 flag);
	for (how = 0; how <= SIGPIPE_IGNORED; how += SIGPIPE_IGNORED) {
		errfd = memfd_create("err", MFD_CLOEXEC);
		if (errfd < 0 || pipe2(p, O_CLOEXEC))
			exit(2);
		pid = start_out(p[1], errfd, NULL, FAKE_SCHEDULE | how,
				(const char *[]){ "--json", "--device", fifo,
						  "after", "1h", "--", "sh",
						  "-c", cmd, NULL });
		close(p[1]);
		w = fifo_writer(fifo);
		fired = fire(w);
		/* CMD started: then the reader goes. */
		for (fd = 0; fd < 200 && access(ign, F_OK); fd++)
			sleep_ms(10);
		close(p[0]);
		waitpid(pid, &ws, 0);
		done = !access(flag, F_OK);
		sleep_ms(700); /* an orphaned CMD's end */
		fd = open(ign, O_RDONLY | O_CLOEXEC);
		mask = fd >= 0 ? slurp(fd) : NULL;
		m = 0;
		if (mask)
			sscanf(mask, "SigIgn: %llx", &m);
		free(mask);
		mask = slurp(errfd);
		snprintf(err, sizeof(err), "%s", mask);
		free(mask);
		ok = fired && done && WIFEXITED(ws) && WEXITSTATUS(ws) == 1 &&
		     lines_with(err, epipe[0]) == 1 &&
		     !(m & (1ULL << (SIGPIPE - 1))) == !how;
		result(ok,
		       "after --json, stdout's reader gone while CMD runs%s: CMD waited for, exit 1, write error said; CMD's SIGPIPE %s (%s, %s %d, CMD's SigIgn %llx, said: %s)",
		       how ? ", SIGPIPE ignored on entry" : "",
		       how ? "ignored" : "default",
		       done ? "CMD done" : "CMD orphaned",
		       WIFSIGNALED(ws) ? "killed by signal" : "exit",
		       WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws), m,
		       err);
		if (w >= 0)
			close(w);
		unlink(flag);
		unlink(ign);
	}
	/* Gone before the deadline: stopped then, CMD not run. */
	errfd = memfd_create("err", MFD_CLOEXEC);
	if (errfd < 0 || pipe2(p, O_CLOEXEC))
		exit(2);
	pid = start_out(p[1], errfd, NULL, FAKE_SCHEDULE,
			(const char *[]){ "--json", "--device", fifo, "after",
					  "1h", "--", "touch", flag, NULL });
	close(p[1]);
	w = fifo_writer(fifo);
	close(p[0]);
	done = ended_within(pid, 2000, &ws);
	mask = slurp(errfd);
	ok = done && WIFEXITED(ws) && WEXITSTATUS(ws) == 1 &&
	     lines_with(mask, epipe[0]) == 1 && access(flag, F_OK);
	result(ok,
	       "after --json 1h, stdout's reader gone before the deadline: stops at once, exit 1, CMD not run (%s, status %d, said: %s)",
	       done ? "ended" : "still running",
	       done && WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, mask);
	free(mask);
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &ws, 0);
	}
	if (w >= 0)
		close(w);
	unlink(flag);
	unlink(fifo);
	rmdir(dir);
}

/* --- a stop signal reaches CMD once ----------------------------------- */

/* CMD for test_group_term(): the sender of each SIGTERM, a line in @log. */
static int sigcount_main(const char *log)
{
	int i, fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	sigset_t set;
	siginfo_t si;
	char b[32];

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (write(fd, "\n", 1) != 1) /* started */
		return 1;
	for (i = 0; i < 2; i++) {
		struct timespec ts = { 1, 0 };

		if (sigtimedwait(&set, &si, &ts) != SIGTERM)
			break;
		if (write(fd, b, snprintf(b, sizeof(b), "%d\n", si.si_pid)) < 0)
			return 1;
	}
	return 0;
}

/*
 * SIGTERM to dwqctl's whole process group (timeout(1), kill -TERM -PGID,
 * systemd's KillMode=control-group) reaches CMD once, from its sender, not
 * again from dwqctl; SIGTERM to dwqctl alone reaches CMD from dwqctl. A
 * second SIGTERM that comes while CMD has the first pending is merged
 * into it, so dwqctl's kill() is caught too: see no_term_kill().
 */
static void test_group_term(const char *self)
{
	static const char what[] =
		"after, SIGTERM to the process group: CMD gets it once";
	char dir[] = "/tmp/dwqctl-unit-XXXXXX", fifo[64], log[64], buf[128];
	int w, ws, fd, n, i, group, ok;
	pid_t pid, want;
	char *p, *line;

	if (seccomp_missing(what))
		return;
	fifo_device(dir, fifo, sizeof(fifo), 0);
	snprintf(log, sizeof(log), "%s/log", dir);
	for (group = 1; group >= 0; group--) {
		pid = start_out(open("/dev/null", O_WRONLY | O_CLOEXEC), -1,
				NULL,
				FAKE_SCHEDULE | OWN_GROUP |
					(group ? NO_TERM_KILL : 0),
				(const char *[]){ "--device", fifo, "after",
						  "1h", "--", self,
						  "--sigcount", log, NULL });
		w = fifo_writer(fifo);
		fire(w);
		/* CMD started: its first line, SIGTERM blocked. */
		for (i = 0; i < 200 && access(log, F_OK); i++)
			sleep_ms(10);
		sleep_ms(100);
		kill(group ? -pid : pid, SIGTERM);
		waitpid(pid, &ws, 0);
		buf[0] = '\0';
		fd = open(log, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			buf[n > 0 ? n : 0] = '\0';
			close(fd);
		}
		/* The senders, after the empty first line. */
		want = group ? getpid() : pid;
		n = 0;
		ok = buf[0] == '\n';
		for (line = buf + 1; (p = strchr(line, '\n')); line = p + 1) {
			n++;
			ok = ok && atoi(line) == want;
		}
		for (p = buf; *p; p++)
			if (*p == '\n')
				*p = ' ';
		ok = ok && n == 1 && WIFEXITED(ws) && !WEXITSTATUS(ws);
		result(w >= 0 && ok,
		       "after, SIGTERM to %s: CMD gets it once, from %s, exit 0 (got %d: senders%s; %s %d)",
		       group ? "the process group" : "dwqctl alone",
		       group ? "its sender, dwqctl does not pass it on" :
			       "dwqctl",
		       n, buf, WIFSIGNALED(ws) ? "killed by signal" : "exit",
		       WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
		if (w >= 0)
			close(w);
		unlink(log);
	}
	unlink(fifo);
	rmdir(dir);
}

/* --- started with stdout closed --------------------------------------- */

/*
 * dwqctl started with fd 1 closed: the device opened must not land there
 * and take the output. A stdout that is missing is a write error: exit 1.
 */
static void test_closed_stdout(void)
{
	static const char *const ebadf[] = {
		"dwqctl: write error: EBADF: Bad file descriptor\n",
	};
	char dev[] = "/tmp/dwqctl-unit-XXXXXX",
	     path[] = "/tmp/dwqctl-unit-XXXXXX";
	int ws, ok, errfd = memfd_create("err", MFD_CLOEXEC);
	struct stat sb;
	char *err;
	pid_t pid;

	script_file(dev, "");
	script_file(path, "echo hi\n");
	if (errfd < 0)
		exit(2);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (!pid) {
		int in = open(path, O_RDONLY);

		/* The script on stdin: the device is the first file opened. */
		if (in < 0 || dup2(in, 0) < 0 || dup2(errfd, 2) < 0)
			_exit(125);
		close(in);
		close(1);
		alarm(20);
		execl(prog, prog, "--device", dev, "run", "-", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &ws, 0);
	err = slurp(errfd);
	if (stat(dev, &sb))
		sb.st_size = -1;
	ok = WIFEXITED(ws) && WEXITSTATUS(ws) == 1 && !sb.st_size &&
	     lines_with(err, ebadf[0]) == 1;
	result(ok,
	       "run with stdout closed: the device file gets no output, exit 1, write error (exit %d, device %lld bytes, said: %s)",
	       WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, (long long)sb.st_size,
	       err);
	free(err);
	unlink(dev);
	unlink(path);
}

/*
 * A usage error says why: a negative duration is not an unknown option,
 * parse_number()'s reason is kept; --opt=VALUE is --opt VALUE, for every
 * option with a value.
 */
static void test_usage_reasons(void)
{
	static const struct {
		const char *args[9];
		const char *want;
	} errs[] = {
		{ { "after", "-5s", "--", "true" },
		  "dwqctl after: '-5s': a duration cannot be negative\n" },
		{ { "every", "-5s", "--", "true" },
		  "dwqctl every: '-5s': a duration cannot be negative\n" },
		{ { "schedule", "-5s" },
		  "dwqctl schedule: '-5s': a duration cannot be negative\n" },
		{ { "watch", "-5s" },
		  "dwqctl watch: '-5s': a duration cannot be negative\n" },
		{ { "every", "1s", "--first", "-1s", "--", "true" },
		  "dwqctl every: --first: '-1s': a duration cannot be negative\n" },
		{ { "schedule", "1s", "--timeout", "-1s" },
		  "dwqctl schedule: --timeout: '-1s': a duration cannot be negative\n" },
		{ { "every", "1s", "--count", "010", "--", "true" },
		  "dwqctl every: --count: '010': a number with a leading 0 is ambiguous" },
		{ { "schedule", "1s", "--count", "010" },
		  "dwqctl schedule: --count: '010': a number with a leading 0 is ambiguous" },
		{ { "watch", "--count", "010" },
		  "dwqctl watch: --count: '010': a number with a leading 0 is ambiguous" },
		{ { "every", "1s", "--count=0", "--", "true" },
		  "dwqctl every: --count needs a number of runs, at least 1\n" },
		{ { "every", "1s", "--count=x", "--", "true" },
		  "dwqctl every: --count: 'x' is not a number" },
		{ { "every", "1s", "--first=5x", "--", "true" },
		  "dwqctl every: --first: " },
		{ { "every", "1s", "--first=", "--", "true" },
		  "dwqctl every: --first needs a duration\n" },
		{ { "every", "1s", "--count=", "--", "true" },
		  "dwqctl every: --count needs a number of runs, at least 1\n" },
		{ { "schedule", "1s", "--count=" },
		  "dwqctl schedule: --count needs a number of events, at least 1\n" },
		{ { "schedule", "1s", "--timeout=" },
		  "dwqctl schedule: --timeout needs a duration, e.g. 5s\n" },
		{ { "watch", "--count=" },
		  "dwqctl watch: --count needs a number of refreshes, at least 1\n" },
		{ { "bench", "--only=" },
		  "dwqctl bench: --only takes F2, F4b, F6, F7, comma-separated\n" },
		{ { "--device=", "stats" }, "dwqctl: --device needs a path\n" },
		{ { "--device", "", "stats" },
		  "dwqctl: --device needs a path\n" },
		{ { "stats", "--device=" },
		  "dwqctl stats: --device needs a path\n" },
		{ { "schedule", "1s", "--count=0" },
		  "dwqctl schedule: --count needs a number of events, at least 1\n" },
		{ { "schedule", "1s", "--timeout=0" },
		  "dwqctl schedule: --timeout needs a duration, e.g. 5s\n" },
		{ { "watch", "--count=0" },
		  "dwqctl watch: --count needs a number of refreshes, at least 1\n" },
		{ { "bench", "--ops=0" },
		  "dwqctl bench: --ops needs a number from 1 to 10^8\n" },
		{ { "bench", "--reps=0" },
		  "dwqctl bench: --reps needs a number from 1 to " },
		{ { "bench", "--only=F9" },
		  "dwqctl bench: --only takes F2, F4b, F6, F7, comma-separated\n" },
		/* An option is not the value of the one before it. */
		{ { "schedule", "1s", "--timeout", "--count", "2" },
		  "dwqctl schedule: --timeout needs a duration, e.g. 5s\n" },
		{ { "every", "1s", "--first", "--fixed-delay", "--", "true" },
		  "dwqctl every: --first needs a duration\n" },
		{ { "--device", "--json", "stats" },
		  "dwqctl: --device needs a path\n" },
	};
	struct ran r;
	size_t c;
	int ok;

	for (c = 0; c < ARRAY_SIZE(errs); c++) {
		const char *const *args = errs[c].args;

		run_prog(&r, NULL, 0, args);
		ok = r.status == 2 && lines_with(r.err, errs[c].want) == 1;
		result(ok, "%s %s %s: exit 2, says why (exit %d, said: %.200s)",
		       args[0], args[1], args[2] ? args[2] : "", r.status,
		       r.err);
		ran_free(&r);
	}
	/* Accepted: it gets as far as the device, which is not dwq. */
	run_prog(&r, NULL, 0,
		 (const char *[]){ "--device=/dev/null", "every", "1s",
				   "--count=1", "--first=0", "--", "true",
				   NULL });
	ok = r.status == 1 && lines_with(r.err, "dwqctl: every: schedule") == 1;
	result(ok,
	       "every 1s --count=1 --first=0: accepted, exit 1 on /dev/null (exit %d, said: %.200s)",
	       r.status, r.err);
	ran_free(&r);
}

/* --- a CMD that cannot be started is no run ------------------------- */

/*
 * every -- a command that does not exist: its firing says CMD was not
 * started (ENOENT), not "run 1 ... pid 0"; no run counted; exit 127.
 */
static void test_not_started(void)
{
	/* The lines expected: an array, as strings this long must stand alone. */
	static const char *const want[] = {
		"{\"type\":\"firing\",\"command\":\"every\",\"firing\":1,\"skipped\":false,\"errno\":\"ENOENT\",",
		"dwqctl every: firing 1: CMD not started (ENOENT); deadline ",
		"dwqctl: every: /nonexistent/cmd: ENOENT",
	};
	char dir[] = "/tmp/dwqctl-unit-XXXXXX", fifo[64];
	struct ran r;
	int w, json, ok;
	pid_t pid;

	if (seccomp_missing("every -- nosuchcmd: not counted as a run"))
		return;
	fifo_device(dir, fifo, sizeof(fifo), 1);
	for (json = 0; json <= 1; json++) {
		pid = start_prog(&r, NULL, FAKE_SCHEDULE,
				 (const char *[]){
					 json ? "--json" : "every",
					 json ? "every" : "1h",
					 json ? "1h" : "--",
					 json ? "--" : "/nonexistent/cmd",
					 json ? "/nonexistent/cmd" : NULL,
					 NULL });
		w = fifo_writer(fifo);
		fire(w);
		end_prog(&r, pid);
		ok = r.status == 127 && !strstr(r.err, "pid 0") &&
		     lines_with(r.err, want[2]) == 1;
		if (json)
			ok = ok && !strstr(r.out, "\"pid\"") &&
			     !strstr(r.out, "\"run\":") &&
			     lines_with(r.out, want[0]) == 1 &&
			     strstr(r.out, "\"runs\":0,\"failed\":0,");
		else
			ok = ok && lines_with(r.err, want[1]) == 1 &&
			     strstr(r.err, "(ENOENT): 0 runs, 0 failed;");
		result(ok,
		       "every%s -- nosuchcmd: firing 1 says CMD not started, no run, no pid, exit 127 (exit %d, out: %.600s, err: %.400s)",
		       json ? " --json" : "", r.status, r.out, r.err);
		ran_free(&r);
		if (w >= 0)
			close(w);
	}
	unsetenv("DWQ_DEVICE");
	unlink(fifo);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX];
	int i;

	if (argc == 3 && !strcmp(argv[1], "--sigcount"))
		return sigcount_main(argv[2]);
	if (argc != 2 || !realpath("/proc/self/exe", self)) {
		fprintf(stderr, "usage: unit PROGRAM (build/bin/dwqctl)\n");
		return 2;
	}
	prog = argv[1];
	test_durations();
	test_schedule();
	test_ids();
	test_other();
	test_json();
	test_enospc();
	test_long_lines();
	test_echo_comments();
	test_end_records();
	test_reschedule_clock();
	test_failed_schedule();
	test_unknown_cancel_result();
	test_bench_f6_errors();
	test_ignored_sigint();
	test_stop_at_deadline();
	test_usage();
	test_write_errors();
	test_stalled_reader();
	test_sigpipe();
	test_group_term(self);
	test_closed_stdout();
	test_usage_reasons();
	test_not_started();
	printf("TAP version 13\n1..%d\n", nresults);
	for (i = 0; i < nresults; i++) {
		printf("%s\n", results[i]);
		free(results[i]);
	}
	printf("# %d passed, %d failed, %d skipped\n",
	       nresults - nfailed - nskipped, nfailed, nskipped);
	return nfailed ? 1 : 0;
}
