// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl - drive dwq, the delayed work queue, from the command line.
 *
 * This file: the commands, their help, the options they share, schedule
 * (a one-line run, run.c, that waits for its events) and the last record
 * of a command ended by SIGINT or SIGTERM.
 *
 * Exit status: 0 success, 1 failure, 2 usage error; after and every: CMD's,
 * 127 or 126 if it cannot be run; 130 or 143 for SIGINT or SIGTERM, but not
 * from watch, every, or after once CMD runs (see main_help).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwqctl.h"

#ifndef DWQCTL_VERSION
#define DWQCTL_VERSION "unknown" /* the Makefile passes dkms.conf's */
#endif

struct opts opt = { .dev = DWQ_DEFAULT_DEV };

static const char main_help[] =
	"usage: dwqctl [--json] [--device PATH] COMMAND [ARGS]\n"
	"       dwqctl --version\n"
	"\n"
	"dwqctl drives dwq, the delayed work queue, through /dev/dwq. A task\n"
	"belongs to the open file that scheduled it and is cancelled when that\n"
	"file closes, so every command works on the tasks it makes itself;\n"
	"`dwqctl run` keeps one file open for a script.\n"
	"\n"
	"commands:\n"
	"  after D -- CMD   run CMD once, D from now, and report its lateness\n"
	"  every P -- CMD   run CMD every P until ^C or --count N, reporting\n"
	"                   lateness and overruns\n"
	"  schedule TIME    schedule one task and print its events\n"
	"  run [FILE]       a script of schedule, cancel, query, wait... on one\n"
	"                   open file\n"
	"  stats            the queue's counters, for a person\n"
	"  watch [D]        the counters, refreshed every D (1s)\n"
	"  demo             how the device fires a file's tasks, explained\n"
	"                   (needs workers >= 2)\n"
	"  bench            the cost of dwq's ioctls, lateness and throughput,\n"
	"                   against timerfd and POSIX timers\n"
	"  help [COMMAND]   this text, or a command's\n"
	"\n"
	"options of every command:\n"
	"  --json           one JSON object per line on stdout, for scripts\n"
	"  --device PATH    the dwq device (default /dev/dwq, or $DWQ_DEVICE)\n"
	"  -h, --help       the command's help\n"
	"  --version        dwqctl's version\n"
	"  (an option's value follows it, or an =: --count 3, --count=3)\n"
	"\n"
	"Durations, as systemd.time(7) spells them: 100ns, 250us (usec, \xc2\xb5s),\n"
	"300ms (msec), 2s (sec), 1.5m (min), 1h, 2d, 1w, 1M (30.44d), 1y; 1h30m\n"
	"is their sum. A number without a unit is refused (except 0): 300 could\n"
	"mean anything. Numbers (cookies, ids) are decimal or 0x hexadecimal; a\n"
	"leading 0 (010) is refused, not read as octal.\n"
	"\n"
	"--json: every object has a \"type\" first. Ids, cookies and every *_ns\n"
	"member are strings of decimal digits (\"id\":\"3\"), whatever their value,\n"
	"so that jq and JavaScript, exact only to 2^53, do not round them; other\n"
	"integers are numbers. Invalid UTF-8 in strings is written as U+FFFD.\n"
	"Errors, usage errors included, are also \"error\" objects; SIGINT or\n"
	"SIGTERM ends a command with an \"end\" object.\n"
	"\n"
	"Exit status: 0 success, 1 failure, 2 usage error. after returns CMD's\n"
	"status, every that of its last failed run; both 127 or 126 if CMD\n"
	"cannot be run. SIGINT or SIGTERM ends a command with 130 or 143, but\n"
	"watch and every with the status they would have had, and after, once\n"
	"CMD runs, with CMD's.\n";

static const char demo_help[] =
	"usage: dwqctl demo [--json]\n"
	"\n"
	"How /dev/dwq keeps and fires a file's tasks, run and explained: the\n"
	"file keeps its tasks in heaps of its own, and the shared queue holds\n"
	"one alarm per clock for it; a task due and unread has not fired, and\n"
	"the reader's read() fires it, in the reader's own process; the alarm\n"
	"runs in the timer's hard irq (on PREEMPT_RT in the timer softirq's\n"
	"thread, ktimers/N) and only wakes the reader; a thousand tasks due at\n"
	"once cost one alarm, with no worker woken per event; cancel removes a\n"
	"queued task, keeps a due periodic task's event and is ENOENT for a due\n"
	"one-shot; close cancels the rest and takes the alarm out of the queue.\n"
	"The checks from debugfs and the trace need root and those file\n"
	"systems; without them they are skipped, and said so.\n"
	"\n"
	"Needs dwq loaded with at least 2 workers (the default is one per\n"
	"online CPU; on one CPU: insmod dwq.ko workers=2) and nobody else using\n"
	"the queue meanwhile. Every claim it prints is checked: the exit status\n"
	"is 1 if one does not hold.\n";

static const char after_help[] =
	"usage: dwqctl after DELAY [-q] [--boottime] [--json] -- CMD [ARG...]\n"
	"\n"
	"Runs CMD once, DELAY from now, on a dwq timer: like systemd-run\n"
	"--on-active=DELAY, but to the microsecond. When the timer's event is\n"
	"read, CMD is started (posix_spawnp(), through $PATH: a script needs\n"
	"its #! line) and a line on stderr reports the firing:\n"
	"\n"
	"  dwqctl after: run 1: deadline 12.300000000 fired +52.1us read +80us overruns 0 pid 812\n"
	"\n"
	"fired = when dwqctl's read(), which fires the timer, took the file;\n"
	"read = when it returned the event; both after the deadline. The exit\n"
	"status is CMD's (128+N if a signal N killed it, 127 if it does not\n"
	"exist, 126 if it cannot be run), or 1 if an error stopped dwqctl\n"
	"before CMD ran (the device refused the timer, or read() failed).\n"
	"SIGINT or SIGTERM before the deadline cancels the timer (exit status\n"
	"130 or 143); during CMD they are passed on to it, unless sent to the\n"
	"whole process group (^C, kill -TERM -PGID, timeout(1)), which CMD is\n"
	"in, and dwqctl waits for it to end.\n"
	"\n"
	"  -q, --quiet    no report on stderr (errors still)\n"
	"  --boottime     on CLOCK_BOOTTIME: time in suspend counts\n"
	"  --json         the reports as JSON records on stdout: \"firing\",\n"
	"                 \"exit\", then \"end\"; CMD's stdout goes to stderr, so\n"
	"                 that stdout holds JSON only\n";

static const char every_help[] =
	"usage: dwqctl every PERIOD [--fixed-delay] [--first D] [--count N]\n"
	"                    [-q] [--boottime] [--json] -- CMD [ARG...]\n"
	"\n"
	"Runs CMD every PERIOD on one periodic dwq timer, until SIGINT or\n"
	"SIGTERM, or N runs. The first run is PERIOD from now (D with --first).\n"
	"Each firing is reported on stderr:\n"
	"\n"
	"  dwqctl every: run 3: deadline 14.500000000 fired +41us read +63us overruns 0 pid 907\n"
	"\n"
	"By default the timer is fixed-rate: firings are due at start + k *\n"
	"PERIOD, and periods missed while dwqctl was late are not replayed but\n"
	"counted as overruns (the periods the event says were skipped). With\n"
	"--fixed-delay, each firing is due PERIOD after the previous one fired.\n"
	"\n"
	"Runs never overlap: if CMD is still running when the next event comes,\n"
	"that firing is skipped, counted as an overrun and reported as such\n"
	"(\"skipped: run 2 still running\"). On SIGINT or SIGTERM the timer is\n"
	"cancelled, a running CMD gets the signal and is waited for, and a\n"
	"summary ends the output.\n"
	"\n"
	"Exit status: 0 if every run of CMD exited 0 (a run ended by the\n"
	"signal that stopped dwqctl, killed by it or exiting 128+N, counts as\n"
	"clean); otherwise the status of the last run that failed (128+N for\n"
	"signal N). If CMD cannot be run at all, 127 (or 126) at once. An\n"
	"error of the device (the timer refused, a failed read()) stops it too,\n"
	"the summary saying which: 1, or the status of the last run that failed\n"
	"before.\n"
	"\n"
	"  --fixed-delay  PERIOD after each firing, not on a fixed grid\n"
	"  --first D      the first firing D from now (default PERIOD; 0: now)\n"
	"  --count N      stop after N runs of CMD (skipped firings do not count)\n"
	"  -q, --quiet    no per-run report on stderr, only the summary\n"
	"  --boottime     on CLOCK_BOOTTIME\n"
	"  --json         records on stdout: \"firing\" (each, skipped or not),\n"
	"                 \"exit\" (each run's end), \"end\" (the summary); CMD's\n"
	"                 stdout goes to stderr\n";

static const char run_help[] =
	"usage: dwqctl run [-k] [-x] [-n] [--json] [FILE|-]\n"
	"\n"
	"Runs commands from FILE (or stdin) on one open file of the device, so\n"
	"tasks live from one command to the next. One command per line:\n"
	"\n"
	"  schedule TIME [every P | rate P] [cookie C] [at] [boottime]\n"
	"  reschedule ID TIME [every P | rate P | once] [at] [boottime | monotonic]\n"
	"  cancel ID...              several ids: one DWQ_IOC_CANCEL_BATCH\n"
	"  query ID\n"
	"  wait                      until nothing is pending or unread\n"
	"  wait N events [timeout D] print N events as they arrive\n"
	"  wait D                    print the events that arrive within D\n"
	"  stats\n"
	"  sleep D                   (due tasks wait to be read meanwhile)\n"
	"  echo TEXT\n"
	"  # comment\n"
	"\n"
	"TIME is a delay (300ms), or with `at` a deadline on the task's clock\n"
	"(CLOCK_MONOTONIC, or CLOCK_BOOTTIME with `boottime`); now, now+D and\n"
	"now-D are deadlines relative to the clock as the line runs. A\n"
	"reschedule keeps the task's clock, unless it says `boottime` or\n"
	"`monotonic` to move the task to CLOCK_BOOTTIME or CLOCK_MONOTONIC; its\n"
	"TIME is on the clock the task has after it, its now too (when the line\n"
	"names no clock, the task's own: dwqctl asks the device). `every P`\n"
	"repeats P after each firing (fixed delay); `rate P` fires at TIME + k*P\n"
	"(fixed rate: missed periods are counted, not replayed: skipped).\n"
	"ID is a task id, $N for the id of the Nth schedule of the run, or\n"
	"$last. A schedule that failed (with -k) still counts, without a task:\n"
	"$N or $last naming it is an error.\n"
	"\n"
	"Each command prints one line: \"schedule: id 3\", \"cancel 3: removed:\n"
	"...\", the fields of query and stats. Events print as\n"
	"  event id 3 cookie 7 deadline 12.300000000 lateness +52.1us skipped 0 folded 0 worker 0 flags last\n"
	"with lateness = fired - deadline (fired: when the read() that fired the\n"
	"task took the file), skipped the fixed-rate periods that passed\n"
	"without a firing, folded the firings folded into the event while it was\n"
	"unread; worker is always 0 (no worker fires a /dev/dwq task). A script\n"
	"from a regular file is parsed whole before anything runs; from a pipe,\n"
	"line by line.\n"
	"\n"
	"  -k, --keep-going   go on after a command fails (exit status 1 at the end)\n"
	"  -x, --echo         print each command before its result\n"
	"  -n, --check        parse only\n";

static const char schedule_help[] =
	"usage: dwqctl schedule TIME [every P | rate P] [cookie C] [at] [boottime]\n"
	"                       [--count N] [--timeout D] [--json]\n"
	"\n"
	"Schedules one task (the words are those of `dwqctl run`), prints its\n"
	"id, then its events as they come: a one-shot's one event, a periodic\n"
	"task's until ^C or N of them. The task belongs to this dwqctl's file\n"
	"and ends with it. (--wait is accepted and changes nothing.)\n"
	"\n"
	"  --count N       stop after N events\n"
	"  --timeout D     fail if the events have not come within D\n";

static const char stats_help[] =
	"usage: dwqctl stats [--json]\n"
	"\n"
	"The queue's size, heap capacity, workers and leader, and the workers'\n"
	"counters since dwq was loaded (DWQ_IOC_STATS), then each limit whose\n"
	"excess is ENOSPC beside the count it checks. The per-file counters of\n"
	"STATS are those of the file dwqctl opens, zero here: `stats` in\n"
	"`dwqctl run` shows a working file's.\n";

static const char watch_help[] =
	"usage: dwqctl watch [INTERVAL] [--count N] [--json]\n"
	"\n"
	"The stats, redrawn every INTERVAL (default 1s) with the counters'\n"
	"rates per second, until ^C (SIGINT), SIGTERM or N refreshes (exit\n"
	"status 0), or an error of the device (1). The screen is cleared on a\n"
	"terminal; into a pipe the refreshes follow each other. With --json,\n"
	"one stats object per refresh, then an \"end\" object saying why it\n"
	"ended.\n";

static const char bench_help[] =
	"usage: dwqctl bench [--ops N] [--reps R] [--only LIST] [--json]\n"
	"\n"
	"Measures from user space the figures F2, F4b, F6 and F7, each\n"
	"figure a ratio to an anchor measured in the same run, variants\n"
	"interleaved, the median of R repetitions (default 5) with min-max:\n"
	"\n"
	"  F2   ns per schedule+cancel through ioctl, single and batched (64 per\n"
	"       call), against two no-op ioctls, timerfd arm+disarm, timerfd\n"
	"       create+settime+close, timer_create+settime+delete\n"
	"  F4b  lateness at read(): p50/p99/p99.9, against timerfd + epoll\n"
	"  F6   schedule+cancel per second with 1, 2, 4, 8 threads\n"
	"  F7   events per second by batched read(), against N timerfds via\n"
	"       epoll\n"
	"\n"
	"  --ops N      operations per timing (default 10000)\n"
	"  --reps R     repetitions (default 5)\n"
	"  --only LIST  figures to run, e.g. F2,F7\n"
	"\n"
	"Absolute numbers in a TCG guest mean little: read the ratios.\n";

static const char help_help[] = "usage: dwqctl help [COMMAND]\n";

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_schedule(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ "after", cmd_after, after_help },
	{ "every", cmd_every, every_help },
	{ "schedule", cmd_schedule, schedule_help },
	{ "run", cmd_run, run_help },
	{ "stats", cmd_stats, stats_help },
	{ "watch", cmd_watch, watch_help },
	{ "demo", cmd_demo, demo_help },
	{ "bench", cmd_bench, bench_help },
	{ "help", cmd_help, help_help },
};

/*
 * Commands of dwqctl 0.1 that could not work alone: each dwqctl opens a
 * new file, which owns no task, so they could only answer ENOENT.
 */
static const char *const removed[] = { "cancel", "query" };

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/**
 * help_for() - print a command's help, or dwqctl's
 * @cmd: the command, or NULL for dwqctl's
 * @f: stdout when asked for, stderr after a usage error
 *
 * Return: 0 for stdout, 2 for stderr.
 */
int help_for(const char *cmd, FILE *f)
{
	const struct command *c = cmd ? find_command(cmd) : NULL;

	if (opt.json && f == stdout) {
		json_begin("help");
		json_str("command", c ? c->name : "");
		json_str("text", c ? c->help : main_help);
		json_end();
		return 0;
	}
	fputs(c ? c->help : main_help, f);
	return f == stdout ? 0 : 2;
}

/* A usage error's text, and with --json its "error" object. */
static void usage_message(const char *cmd, const char *what)
{
	if (cmd)
		fprintf(stderr, "dwqctl %s: %s\nTry 'dwqctl %s --help'.\n", cmd,
			what, cmd);
	else
		fprintf(stderr, "dwqctl: %s\nTry 'dwqctl --help'.\n", what);
	if (opt.json)
		json_usage_error(cmd, what);
}

/**
 * usage_error() - "dwqctl CMD: what is wrong" and where to look
 * @cmd: the command
 * @fmt: what is wrong, printf-style
 *
 * With --json, an "error" object with "usage":true on stdout as well.
 *
 * Return: 2, the exit status of a usage error.
 */
int usage_error(const char *cmd, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	usage_message(cmd, what);
	return 2;
}

static int version(void);

/**
 * common_opt() - take an option every command has, if argv[*i] is one
 * @cmd: the command, for its help; NULL for dwqctl's own options
 * @argv: the arguments
 * @i: in: the argument to look at; out: the last one taken
 *
 * --help prints the command's help and exits 0, --version dwqctl's version;
 * a --device without its path, or with an empty one, exits 2.
 *
 * Return: 1 if argv[*i] was a common option, else 0.
 */
int common_opt(const char *cmd, char **argv, int *i)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--json")) {
		opt.json = 1;
		return 1;
	}
	if (!strcmp(a, "-h") || !strcmp(a, "--help"))
		exit(exit_status(help_for(cmd, stdout)));
	if (!strcmp(a, "--version"))
		exit(exit_status(version()));
	if (opt_value(argv, i, "--device", &opt.dev)) {
		if (!opt.dev || !*opt.dev) {
			usage_error(cmd, "--device needs a path");
			exit(exit_status(2));
		}
		return 1;
	}
	return 0;
}

/**
 * opt_value() - is argv[*i] option @name, and what is its value?
 * @argv: the arguments, NULL-terminated
 * @i: in: the argument to look at; out: the last one taken
 * @name: the option, such as "--count"
 * @val: out: its value: after '=' (--count=3), or the next argument
 *	(--count 3); NULL if it has none ("--" is CMD's, not a value; nor is
 *	an option such as --count, which is left to be read as one: a value
 *	that begins with "--" goes after '=') or nothing follows the '='
 *	(--count=), which is as missing
 *
 * Return: 1 if argv[*i] is @name or @name=VALUE, else 0.
 */
int opt_value(char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n) || (a[n] && a[n] != '='))
		return 0;
	if (a[n] == '=') {
		*val = a[n + 1] ? a + n + 1 : NULL;
		return 1;
	}
	*val = argv[*i + 1];
	if (*val && strncmp(*val, "--", 2))
		++*i;
	else
		*val = NULL;
	return 1;
}

/**
 * is_option() - does @a look like an option, not an operand?
 * @a: the argument
 *
 * "-5s" and "-.5s" are (negative) durations, for their parser to refuse
 * with its reason, not unknown options.
 *
 * Return: 1 for an option, else 0.
 */
int is_option(const char *a)
{
	return a[0] == '-' && a[1] && !isdigit((unsigned char)a[1]) &&
	       a[1] != '.';
}

static int cmd_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (common_opt("help", argv, &i))
			continue;
		if (!find_command(argv[i]))
			return usage_error("help", "no command '%s'", argv[i]);
		return help_for(argv[i], stdout);
	}
	return help_for(NULL, stdout);
}

static void join_words(char *buf, size_t len, int n, char **w)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "",
				 w[i]);
}

/*
 * schedule TIME [...]: the run language's schedule, then its events: a
 * task lives as long as this dwqctl's file, so there is nothing else to
 * do with it.
 */
static int cmd_schedule(int argc, char **argv)
{
	struct run_state st = { .fd = -1 };
	struct run_cmd rc, wait = { .op = RUN_WAIT, .wait = WAIT_ALL };
	char **words, text[RUN_TEXT_MAX], err[200];
	const char *val;
	int i, n = 1, ret;

	words = calloc(argc + 1, sizeof(*words));
	if (!words) {
		errorf(ENOMEM, NULL, "schedule");
		return 1;
	}
	words[0] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (common_opt("schedule", argv, &i))
			continue;
		if (!strcmp(a, "--wait")) {
			continue; /* the default now */
		} else if (opt_value(argv, &i, "--count", &val)) {
			if (val &&
			    parse_number(val, &wait.count, err, sizeof(err))) {
				ret = usage_error("schedule", "--count: %s",
						  err);
				goto out;
			}
			if (!val || !wait.count) {
				ret = usage_error("schedule",
						  "--count needs a number of events, at least 1");
				goto out;
			}
			wait.wait = WAIT_EVENTS;
		} else if (opt_value(argv, &i, "--timeout", &val)) {
			if (val && parse_duration(val, &wait.timeout_ns, err,
						  sizeof(err))) {
				ret = usage_error("schedule", "--timeout: %s",
						  err);
				goto out;
			}
			if (!val || !wait.timeout_ns) {
				ret = usage_error("schedule",
						  "--timeout needs a duration, e.g. 5s");
				goto out;
			}
		} else if (is_option(a)) {
			ret = usage_error("schedule", "unknown option '%s'", a);
			goto out;
		} else {
			words[n++] = argv[i];
		}
	}
	if (run_parse_args(n, words, &rc, err, sizeof(err))) {
		ret = usage_error("schedule", "%s",
				  !strncmp(err, "schedule: ", 10) ? err + 10 :
								    err);
		goto out;
	}
	/* A one-shot has one event: a second would be waited for forever. */
	if (rc.mode == DWQ_MODE_ONESHOT && wait.wait == WAIT_EVENTS &&
	    wait.count > 1) {
		ret = usage_error("schedule",
				  "--count %llu: a one-shot has one event",
				  (unsigned long long)wait.count);
		goto out;
	}
	if (wait.timeout_ns && wait.wait == WAIT_ALL) {
		/* A one-shot has one event; a periodic task, --count of them. */
		if (rc.mode != DWQ_MODE_ONESHOT) {
			ret = usage_error("schedule",
					  "--timeout on a periodic task needs --count");
			goto out;
		}
		wait.wait = WAIT_EVENTS;
		wait.count = 1;
	}
	join_words(text, sizeof(text), n, words);
	ret = 1;
	if (run_open(&st))
		goto out;
	if (!run_exec(&st, &rc, text) && !run_exec(&st, &wait, "wait"))
		ret = 0;
	run_close(&st);
out:
	free(words);
	return ret;
}

/* --- SIGINT and SIGTERM: a last record ------------------------------- */

static char end_record[2][160];
static size_t end_len[2];
/* A directory to remove should SIGINT or SIGTERM end dwqctl: see below. */
static const char *end_rmdir;

/**
 * rmdir_on_signal() - remove a directory if a signal ends dwqctl
 * @dir: the directory, or NULL for none; kept, not copied, until the
 *	next call
 *
 * For what dwqctl makes outside itself that would outlive it, such as
 * the demo's tracefs instance, whose buffer and events stay on until
 * someone removes it. Best effort: rmdir() only.
 */
void rmdir_on_signal(const char *dir)
{
	/* Whole, as the handler sees it, and before what comes after. */
	__atomic_store_n(&end_rmdir, dir, __ATOMIC_SEQ_CST);
}

/*
 * Write @len bytes of @s to stdout only if it takes them now: the signal
 * must end dwqctl, and a reader that stalls would keep it waiting.
 */
static void end_write(const char *s, size_t len)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	ssize_t ret;

	if (poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) &&
	    !(p.revents & (POLLERR | POLLHUP | POLLNVAL)))
		ret = write(STDOUT_FILENO, s, len);
	(void)ret;
}

/*
 * A command that does not end itself cleanly on SIGINT or SIGTERM dies of
 * it, as it always has; with --json it first writes
 * {"type":"end","command":CMD,"reason":"signal","signal":"SIGINT"}, so a
 * reader of the stream can tell an interrupted run from a cut pipe. A
 * record is written with one write() (json.c, out.c), so the handler comes
 * between records, unless one was cut (out_cutting()): the end record's line is
 * begun first. If stdout takes nothing, there is no end record: a reader
 * that stalls does not keep dwqctl from ending.
 */
static void end_handler(int sig)
{
	const char *dir = __atomic_load_n(&end_rmdir, __ATOMIC_SEQ_CST);
	int k = sig == SIGTERM;

	if (dir)
		(void)rmdir(dir);

	if (opt.json && !out_error()) {
		if (out_cutting())
			end_write("\n", 1);
		end_write(end_record[k], end_len[k]);
	}
	raise(sig); /* SA_RESETHAND: the default action, once we return */
}

static void arm_end_record(const char *cmd)
{
	static const char *const names[2] = { "SIGINT", "SIGTERM" };
	struct sigaction sa = { .sa_handler = end_handler,
				.sa_flags = SA_RESETHAND };
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(end_record[k], sizeof(end_record[k]),
			 "{\"type\":\"end\",\"command\":\"%s\",\"reason\":\"signal\",\"signal\":\"%s\",\"exit_status\":%d}\n",
			 cmd, names[k], 128 + (k ? SIGTERM : SIGINT));
		end_len[k] = strlen(end_record[k]);
	}
	sigemptyset(&sa.sa_mask);
	for (k = 0; k < 2; k++) {
		struct sigaction old;
		int sig = k ? SIGTERM : SIGINT;

		/*
		 * An ignored signal stays ignored, as a shell leaves SIGINT
		 * for a command started with &.
		 */
		if (!sigaction(sig, NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sig, &sa, NULL);
	}
}

/*
 * --json anywhere before "--" counts from the start, so that a usage
 * error in an argument before it is already an "error" object.
 */
static void scan_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json"))
			opt.json = 1;
}

/**
 * exit_status() - flush and close stdout, and the exit status that follows
 * @status: the command's
 *
 * If a write to stdout failed, now or before, "dwqctl: write error: ERRNO:
 * CAUSE" goes to stderr (once) and a status of 0 becomes 1: the output is
 * not all there. A failure's status stays as it is (after: CMD's).
 *
 * Return: the exit status.
 */
int exit_status(int status)
{
	out_flush();
	if (fclose(stdout))
		out_failed(errno);
	if (!out_error())
		return status;
	report_write_error();
	return status ? status : 1;
}

static int version(void)
{
	if (opt.json) {
		json_begin("version");
		json_str("version", DWQCTL_VERSION);
		json_end();
	} else {
		printf("dwqctl %s\n", DWQCTL_VERSION);
	}
	return 0;
}

/*
 * fds 0, 1 and 2 closed when dwqctl started would be the next files it
 * opens: the device on fd 1 would take the output meant for stdout. Each
 * is opened on /dev/null, as coreutils do, the other way round (stdin for
 * writing, stdout and stderr for reading), so that using one fails: a
 * missing stdout is a write error (EBADF), not output thrown away.
 */
static void std_fds(void)
{
	int fd, n;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		n = open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
		if (n != fd)
			_exit(1); /* no /dev/null: nothing can be said */
	}
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *env = getenv("DWQ_DEVICE");
	char what[160];
	size_t k;
	int i;

	std_fds();
	if (env && *env)
		opt.dev = env;
	scan_json(argc, argv);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return exit_status(help_for(NULL, stdout));
		if (!strcmp(argv[i], "--version"))
			return exit_status(version());
		if (!common_opt(NULL, argv, &i)) {
			snprintf(what, sizeof(what), "unknown option '%s'",
				 argv[i]);
			usage_message(NULL, what);
			return exit_status(2);
		}
	}
	if (i >= argc) {
		usage_message(NULL, "which command? See dwqctl --help");
		return exit_status(2);
	}
	c = find_command(argv[i]);
	for (k = 0; !c && k < ARRAY_SIZE(removed); k++) {
		if (strcmp(argv[i], removed[k]))
			continue;
		snprintf(what, sizeof(what),
			 "'%s' is gone: a task belongs to the file that scheduled it, and a new dwqctl has a new file; use '%s' inside 'dwqctl run'",
			 argv[i], argv[i]);
		usage_message(NULL, what);
		return exit_status(2);
	}
	if (!c) {
		snprintf(what, sizeof(what), "unknown command '%s'", argv[i]);
		usage_message(NULL, what);
		return exit_status(2);
	}
	arm_end_record(c->name);
	return exit_status(c->fn(argc - i, argv + i));
}
