// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl - drive dwq, the delayed work queue, from the command line.
 *
 * This file: the commands, their help, the options they share, and the
 * one-off schedule, cancel and query, which are one-line runs (run.c).
 *
 * Exit status: 0 success, 1 failure, 2 usage error.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dwqctl.h"

struct opts opt = { .dev = DWQ_DEFAULT_DEV };

static const char main_help[] =
	"usage: dwqctl [--json] [--device PATH] COMMAND [ARGS]\n"
	"\n"
	"dwqctl drives dwq, the delayed work queue, through /dev/dwq. A task\n"
	"belongs to the open file that scheduled it and is cancelled when that\n"
	"file closes: to keep tasks across commands, use `dwqctl run`.\n"
	"\n"
	"commands:\n"
	"  demo       the leader/follower experiment, explained (needs workers=4)\n"
	"  run        a script of schedule, cancel, wait... on one open file\n"
	"  schedule   schedule one task; --wait prints its events\n"
	"  cancel     cancel tasks by id\n"
	"  query      the state of a task by id\n"
	"  stats      the queue's counters, for a person\n"
	"  watch      the counters, refreshed every second\n"
	"  bench      the cost of dwq's ioctls, lateness and throughput,\n"
	"             against timerfd and POSIX timers\n"
	"  help       this text, or `dwqctl help COMMAND`\n"
	"\n"
	"options of every command:\n"
	"  --json           one JSON object per line, for scripts\n"
	"  --device PATH    the dwq device (default /dev/dwq, or $DWQ_DEVICE)\n"
	"  -h, --help       the command's help\n"
	"\n"
	"Durations: 100ns 250us 300ms 2s 1.5m 1h. A number without a unit is\n"
	"refused (except 0): 300 could mean anything.\n"
	"\n"
	"Exit status: 0 success, 1 failure, 2 usage error.\n";

static const char demo_help[] =
	"usage: dwqctl demo [--json]\n"
	"\n"
	"The experiment dwq's design starts from, run through /dev/dwq and\n"
	"explained: the leader/follower take() (one worker sleeps until the\n"
	"next deadline, the others without a timeout), the heap array growing\n"
	"by half, and cancel removing a task at once.\n"
	"\n"
	"Needs dwq loaded with workers=4 (insmod dwq.ko workers=4) and nobody\n"
	"else using the queue meanwhile. Every claim it prints is checked: the\n"
	"exit status is 1 if one does not hold.\n";

static const char run_help[] =
	"usage: dwqctl run [-k] [-x] [-n] [--json] [FILE|-]\n"
	"\n"
	"Runs commands from FILE (or stdin) on one open file of the device, so\n"
	"tasks live from one command to the next. One command per line:\n"
	"\n"
	"  schedule TIME [every P | rate P] [cookie C] [at] [boottime]\n"
	"  reschedule ID TIME [every P | rate P | once] [at] [boottime]\n"
	"  cancel ID...              several ids: one DWQ_IOC_CANCEL_BATCH\n"
	"  query ID\n"
	"  wait                      until nothing is pending or unread\n"
	"  wait N events [timeout D] print N events as they arrive\n"
	"  wait D                    print the events that arrive within D\n"
	"  stats\n"
	"  sleep D                   (events wait unread meanwhile)\n"
	"  echo TEXT\n"
	"  # comment\n"
	"\n"
	"TIME is a delay (300ms), or with `at` a deadline on the task's clock\n"
	"(CLOCK_MONOTONIC, or CLOCK_BOOTTIME with `boottime`); now, now+D and\n"
	"now-D are deadlines relative to the clock as the line runs. `every P`\n"
	"repeats P after each firing (fixed delay); `rate P` fires at TIME + k*P\n"
	"(fixed rate: missed periods are counted as overruns, not replayed).\n"
	"ID is a task id, $N for the id of the Nth schedule of the run, or\n"
	"$last.\n"
	"\n"
	"Each command prints one line: \"schedule: id 3\", \"cancel 3: removed:\n"
	"...\", the fields of query and stats. Events print as\n"
	"  event id 3 cookie 7 deadline 12.300000000 lateness +52.1us overruns 0 worker 2 flags last\n"
	"with lateness = fired - deadline. A script from a regular file is\n"
	"parsed whole before anything runs; from a pipe, line by line.\n"
	"\n"
	"  -k, --keep-going   go on after a command fails (exit status 1 at the end)\n"
	"  -x, --echo         print each command before its result\n"
	"  -n, --check        parse only\n";

static const char schedule_help[] =
	"usage: dwqctl schedule TIME [every P | rate P] [cookie C] [at] [boottime]\n"
	"                       [--wait] [--count N] [--timeout D] [--json]\n"
	"\n"
	"Schedules one task (the words are those of `dwqctl run`) and prints its\n"
	"id. The task belongs to this process's open file, so without --wait it\n"
	"is cancelled as dwqctl exits.\n"
	"\n"
	"  --wait          print the task's events: a one-shot's one event, a\n"
	"                  periodic task's until ^C\n"
	"  --count N       stop after N events (implies --wait)\n"
	"  --timeout D     fail if the events have not come within D\n";

static const char cancel_help[] =
	"usage: dwqctl cancel ID... [--json]\n"
	"\n"
	"Cancels tasks of this process's open file, one line per id. Several\n"
	"ids go to the device together, 1024 per DWQ_IOC_CANCEL_BATCH; the\n"
	"exit status is 1 if any id was not cancelled. A new dwqctl has a new\n"
	"file with no tasks, so this answers ENOENT unless the device is shared\n"
	"with dwqctl by other means; it is here to show the errors. To schedule\n"
	"and cancel, use `dwqctl run`.\n";

static const char query_help[] =
	"usage: dwqctl query ID [--json]\n"
	"\n"
	"The state of a task of this process's open file: remaining time,\n"
	"deadline, period, mode, runs, overruns. A new dwqctl has a new file,\n"
	"so use `query` inside `dwqctl run`.\n";

static const char stats_help[] =
	"usage: dwqctl stats [--json]\n"
	"\n"
	"The queue's size, heap capacity, workers and leader, and the workers'\n"
	"counters since dwq was loaded (DWQ_IOC_STATS). The per-file counters of\n"
	"STATS are those of the file dwqctl opens, zero here: `stats` in\n"
	"`dwqctl run` shows a working file's.\n";

static const char watch_help[] =
	"usage: dwqctl watch [INTERVAL] [--count N] [--json]\n"
	"\n"
	"The stats, redrawn every INTERVAL (default 1s) with the counters'\n"
	"rates per second, until ^C (SIGINT), SIGTERM or N refreshes. The\n"
	"screen is cleared on a terminal; into a pipe the refreshes follow each\n"
	"other. With --json, one stats object per refresh, then an \"end\"\n"
	"object saying why it ended.\n";

static const char bench_help[] =
	"usage: dwqctl bench [--ops N] [--reps R] [--only LIST] [--json]\n"
	"\n"
	"Measures from user space what issue 6 asks (F2, F4b, F6, F7), each\n"
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
static int cmd_cancel(int argc, char **argv);
static int cmd_query(int argc, char **argv);
static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ "demo", cmd_demo, demo_help },
	{ "run", cmd_run, run_help },
	{ "schedule", cmd_schedule, schedule_help },
	{ "cancel", cmd_cancel, cancel_help },
	{ "query", cmd_query, query_help },
	{ "stats", cmd_stats, stats_help },
	{ "watch", cmd_watch, watch_help },
	{ "bench", cmd_bench, bench_help },
	{ "help", cmd_help, help_help },
};

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

/**
 * usage_error() - "dwqctl CMD: what is wrong" and where to look
 * @cmd: the command
 * @fmt: what is wrong, printf-style
 *
 * Return: 2, the exit status of a usage error.
 */
int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "dwqctl %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'dwqctl %s --help'.\n", cmd);
	return 2;
}

/**
 * common_opt() - take an option every command has, if argv[*i] is one
 * @cmd: the command, for its help
 * @argv: the arguments
 * @i: in: the argument to look at; out: the last one taken
 *
 * --help prints the command's help and exits 0; a --device without its
 * path exits 2.
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
		exit(help_for(cmd, stdout));
	if (!strncmp(a, "--device=", 9)) {
		opt.dev = a + 9;
		return 1;
	}
	if (!strcmp(a, "--device")) {
		if (!argv[*i + 1])
			exit(usage_error(cmd, "--device needs a path"));
		opt.dev = argv[++*i];
		return 1;
	}
	return 0;
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

/*
 * The one-off commands: their words (options taken out) are one line of
 * the run language, run on a file of their own.
 */
static int one_off(const char *cmd, int nwords, char **words,
		   struct run_cmd *rc)
{
	char err[256];

	if (run_parse_args(nwords, words, rc, err, sizeof(err)))
		return usage_error(cmd, "%s",
				   !strncmp(err, cmd, strlen(cmd)) &&
						   err[strlen(cmd)] == ':' ?
					   err + strlen(cmd) + 2 :
					   err);
	if ((rc->op == RUN_CANCEL || rc->op == RUN_QUERY) && rc->ref != REF_ID)
		return usage_error(cmd,
				   "$N and $last name the tasks of a run: give an id");
	return 0;
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

static const char one_file_hint[] =
	"hint: a task belongs to the file that scheduled it; this dwqctl opened\n"
	"a new one. Schedule and cancel in one `dwqctl run`.";

static int cmd_cancel_query(const char *cmd, int argc, char **argv)
{
	struct run_state st = { .fd = -1, .hint = one_file_hint };
	char *words[4] = { argv[0] };
	struct run_cmd rc;
	char text[64];
	int i, n = 1, ret;

	for (i = 1; i < argc; i++) {
		if (common_opt(cmd, argv, &i))
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			return usage_error(cmd, "unknown option '%s'", argv[i]);
		if (n == ARRAY_SIZE(words))
			return usage_error(cmd, "unexpected '%s'", argv[i]);
		words[n++] = argv[i];
	}
	ret = one_off(cmd, n, words, &rc);
	if (ret)
		return ret;
	if (run_open(&st))
		return 1;
	join_words(text, sizeof(text), n, words);
	ret = run_exec(&st, &rc, text) ? 1 : 0;
	run_close(&st);
	return ret;
}

/*
 * cancel ID...: one id is a one-line run, as query is; several go to the
 * device in batches, each checked as that line would be.
 */
static int cmd_cancel(int argc, char **argv)
{
	struct run_state st = { .fd = -1, .hint = one_file_hint };
	char *words[2] = { argv[0] };
	struct run_cmd rc;
	__u64 *ids;
	int i, n = 0, ret;

	for (i = 1; i < argc; i++) {
		if (common_opt("cancel", argv, &i))
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			return usage_error("cancel", "unknown option '%s'",
					   argv[i]);
		n++;
	}
	if (n < 2)
		return cmd_cancel_query("cancel", argc, argv);
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return 1;
	n = 0;
	for (i = 1; i < argc; i++) {
		if (common_opt("cancel", argv, &i))
			continue;
		words[1] = argv[i];
		ret = one_off("cancel", 2, words, &rc);
		if (ret) {
			free(ids);
			return ret;
		}
		ids[n++] = rc.id;
	}
	ret = run_open(&st) ? 1 : 0;
	if (!ret)
		ret = run_cancel_ids(&st, ids, n) ? 1 : 0;
	run_close(&st);
	free(ids);
	return ret;
}

static int cmd_query(int argc, char **argv)
{
	return cmd_cancel_query("query", argc, argv);
}

static int cmd_schedule(int argc, char **argv)
{
	struct run_state st = { .fd = -1 };
	struct run_cmd rc, wait = { .op = RUN_WAIT, .wait = WAIT_ALL };
	char **words, text[RUN_TEXT_MAX], err[200];
	int i, n = 1, ret, do_wait = 0;

	words = calloc(argc + 1, sizeof(*words));
	if (!words)
		return 1;
	words[0] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (common_opt("schedule", argv, &i))
			continue;
		if (!strcmp(a, "--wait")) {
			do_wait = 1;
		} else if (!strcmp(a, "--count")) {
			if (i + 1 >= argc ||
			    parse_u64(argv[i + 1], &wait.count))
				return usage_error("schedule",
						   "--count needs a number of events");
			wait.wait = WAIT_EVENTS;
			do_wait = 1;
			i++;
		} else if (!strcmp(a, "--timeout")) {
			if (i + 1 >= argc ||
			    parse_duration(argv[i + 1], &wait.timeout_ns, err,
					   sizeof(err)) ||
			    !wait.timeout_ns)
				return usage_error("schedule",
						   "--timeout needs a duration, e.g. 5s");
			i++;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("schedule", "unknown option '%s'",
					   a);
		} else {
			words[n++] = argv[i];
		}
	}
	ret = one_off("schedule", n, words, &rc);
	if (ret)
		return ret;
	if (wait.timeout_ns && !do_wait)
		return usage_error("schedule", "--timeout goes with --wait");
	if (wait.timeout_ns && wait.wait == WAIT_ALL) {
		/* A one-shot has one event; a periodic task, --count of them. */
		if (rc.mode != DWQ_MODE_ONESHOT)
			return usage_error("schedule",
					   "--timeout on a periodic task needs --count");
		wait.wait = WAIT_EVENTS;
		wait.count = 1;
	}
	join_words(text, sizeof(text), n, words);
	free(words);
	if (run_open(&st))
		return 1;
	ret = run_exec(&st, &rc, text);
	if (!ret && do_wait)
		ret = run_exec(&st, &wait, "wait");
	else if (!ret && !opt.json)
		fprintf(stderr,
			"dwqctl: note: the task is cancelled now, as dwqctl exits and closes its file; use --wait, or `dwqctl run`\n");
	run_close(&st);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct command *c;
	const char *env = getenv("DWQ_DEVICE");
	int i;

	if (env && *env)
		opt.dev = env;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return help_for(NULL, stdout);
		if (!common_opt("help", argv, &i)) {
			fprintf(stderr, "dwqctl: unknown option '%s'\n",
				argv[i]);
			return help_for(NULL, stderr);
		}
	}
	if (i >= argc)
		return help_for(NULL, stderr);
	c = find_command(argv[i]);
	if (!c) {
		fprintf(stderr, "dwqctl: unknown command '%s'\n", argv[i]);
		return help_for(NULL, stderr);
	}
	return c->fn(argc - i, argv + i);
}
