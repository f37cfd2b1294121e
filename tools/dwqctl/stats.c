// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl stats and dwqctl watch: DWQ_IOC_STATS for a person (or --json).
 *
 * STATS has two halves: the counters of the file that asks (a fresh one
 * here, so they are zero; `stats` inside `dwqctl run` shows a working
 * file's) and the queue's, shared by every file and kernel user: its size,
 * its heap's capacity, the workers, the leader and the workers' totals;
 * then the counts the limits check, with the limits, so that a person
 * sees how close an ENOSPC is.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>

#include "dwqctl.h"

static const char *leader_text(__s32 leader, char *buf, size_t len)
{
	if (leader < 0)
		return "none";
	snprintf(buf, len, "%d", leader);
	return buf;
}

/**
 * json_stats_fields() - every field of a STATS answer, as JSON members
 * @st: the answer
 */
void json_stats_fields(const struct dwq_ioc_stats *st)
{
	json_u64("pending", st->pending);
	json_u64("fired", st->fired);
	json_u64("cancelled", st->cancelled);
	json_u64("coalesced", st->coalesced);
	json_u64("events", st->events);
	json_u64("queue_size", st->queue_size);
	json_u64("queue_capacity", st->queue_capacity);
	json_u64("workers", st->workers);
	json_s64("leader", st->leader);
	json_u64("timed_waits", st->timed_waits);
	json_u64("untimed_waits", st->untimed_waits);
	json_u64("wakeups", st->wakeups);
	json_u64("spurious_wakeups", st->spurious_wakeups);
	json_u64("tasks_run", st->tasks_run);
	json_u64("leader_changes", st->leader_changes);
	json_u64("user_tasks", st->user_tasks);
	json_u64("all_tasks", st->all_tasks);
	json_u64("user_rate_mhz", st->user_rate_mhz);
	json_u64("max_tasks_per_file", st->max_tasks_per_file);
	json_u64("max_tasks_per_user", st->max_tasks_per_user);
	json_u64("max_tasks", st->max_tasks);
	json_u64("max_rate_per_user", st->max_rate_per_user);
}

/**
 * print_stats_line() - a STATS answer as one line, for `stats` in a run
 * @st: the answer
 */
void print_stats_line(const struct dwq_ioc_stats *st)
{
	char l[16];

	if (opt.json) {
		json_begin("stats");
		json_stats_fields(st);
		json_end();
		return;
	}
	printf("stats: pending %llu fired %llu cancelled %llu coalesced %llu",
	       st->pending, st->fired, st->cancelled, st->coalesced);
	printf(" events %llu queue_size %u queue_capacity %u workers %u",
	       st->events, st->queue_size, st->queue_capacity, st->workers);
	printf(" leader %s timed_waits %llu untimed_waits %llu wakeups %llu",
	       leader_text(st->leader, l, sizeof(l)), st->timed_waits,
	       st->untimed_waits, st->wakeups);
	printf(" spurious_wakeups %llu tasks_run %llu leader_changes %llu",
	       st->spurious_wakeups, st->tasks_run, st->leader_changes);
	printf(" user_tasks %llu all_tasks %llu user_rate_mhz %llu\n",
	       st->user_tasks, st->all_tasks, st->user_rate_mhz);
	out_flush();
}

struct counter {
	const char *name;
	size_t off;
	const char *note;
};

#define COUNTER(f, note)                                    \
	{                                                   \
#f, offsetof(struct dwq_ioc_stats, f), note \
	}

static const struct counter totals[] = {
	COUNTER(timed_waits, "sleeps as leader, until the head's deadline"),
	COUNTER(untimed_waits, "sleeps as follower, until woken"),
	COUNTER(wakeups, ""),
	COUNTER(spurious_wakeups, "woke and found nothing to do"),
	COUNTER(tasks_run, ""),
	COUNTER(leader_changes, "times a worker became leader"),
};

static __u64 counter(const struct dwq_ioc_stats *st, const struct counter *c)
{
	__u64 v;

	memcpy(&v, (const char *)st + c->off, sizeof(v));
	return v;
}

/*
 * The table for a person, on @f. With @prev (watch), a column of rates
 * per second over @dt_ns.
 */
static void print_stats_table(FILE *f, const struct dwq_ioc_stats *st,
			      const struct dwq_ioc_stats *prev, __u64 dt_ns)
{
	char l[16], name[32];
	size_t i;

	fprintf(f, "queue (all files' alarms)\n");
	fprintf(f, "  %-18s %10u\n", "tasks queued", st->queue_size);
	fprintf(f, "  %-18s %10u  slots in the heap array\n", "heap capacity",
		st->queue_capacity);
	fprintf(f, "  %-18s %10u\n", "workers", st->workers);
	fprintf(f,
		"  %-18s %10s  the worker asleep until the head's deadline\n",
		"leader", leader_text(st->leader, l, sizeof(l)));
	fprintf(f, "workers, totals since dwq was loaded%s\n",
		prev ? "             per second" : "");
	for (i = 0; i < ARRAY_SIZE(totals); i++) {
		const struct counter *c = &totals[i];
		size_t j;

		snprintf(name, sizeof(name), "%s", c->name);
		for (j = 0; name[j]; j++)
			if (name[j] == '_')
				name[j] = ' ';
		if (prev && dt_ns) {
			double rate =
				(double)(counter(st, c) - counter(prev, c)) *
				NSEC_PER_SEC / dt_ns;

			fprintf(f, "  %-18s %10llu  %12.1f\n", name,
				counter(st, c), rate);
		} else {
			fprintf(f, "  %-18s %10llu%s%s\n", name, counter(st, c),
				*c->note ? "  " : "", c->note);
		}
	}
	if (st->tasks_run && !prev)
		fprintf(f, "  %-18s %10.2f  wakeups per task run\n", "",
			(double)st->wakeups / st->tasks_run);
	fprintf(f, "%-29s%12s %12s\n", "limits: more is ENOSPC", "in use",
		"limit");
	fprintf(f, "  %-26s %12llu %12u\n", "tasks of this file", st->pending,
		st->max_tasks_per_file);
	fprintf(f, "  %-26s %12llu %12u  unread events included\n",
		"tasks of your files", st->user_tasks, st->max_tasks_per_user);
	fprintf(f, "  %-26s %12llu %12u\n", "tasks of all files", st->all_tasks,
		st->max_tasks);
	fprintf(f, "  %-26s %8llu.%03llu %12u  of your periodic tasks\n",
		"firings per second", st->user_rate_mhz / 1000,
		st->user_rate_mhz % 1000, st->max_rate_per_user);
}

static int stats_args(const char *cmd, int argc, char **argv,
		      const char **interval, __u64 *count)
{
	const char *val;
	char err[200];
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (common_opt(cmd, argv, &i))
			continue;
		if (count && opt_value(argv, &i, "--count", &val)) {
			if (val && parse_number(val, count, err, sizeof(err)))
				return usage_error(cmd, "--count: %s", err);
			if (!val || !*count)
				return usage_error(cmd,
						   "--count needs a number of refreshes, at least 1");
		} else if (is_option(a)) {
			return usage_error(cmd, "unknown option '%s'", a);
		} else if (interval && !*interval) {
			*interval = a;
		} else {
			return usage_error(cmd, "unexpected '%s'", a);
		}
	}
	return 0;
}

/**
 * cmd_stats() - dwqctl stats [--json]
 * @argc: arguments, argv[0] being "stats"
 * @argv: the arguments
 *
 * Return: the exit status.
 */
int cmd_stats(int argc, char **argv)
{
	struct dwq_ioc_stats st;
	int fd, err;

	err = stats_args("stats", argc, argv, NULL, NULL);
	if (err)
		return err;
	fd = dev_open(1);
	if (fd < 0)
		return 1;
	err = dev_stats(fd, &st);
	close(fd);
	if (err) {
		errorf(-err, err_cause(OP_STATS, -err), "stats");
		return 1;
	}
	if (opt.json) {
		json_begin("stats");
		json_stats_fields(&st);
		json_end();
		return 0;
	}
	printf("dwq stats of %s\n", opt.dev);
	print_stats_table(stdout, &st, NULL, 0);
	return 0;
}

/*
 * The end record of watch: why it ended (count, signal or error), and
 * after how many refreshes.
 */
static void watch_end(int sig, int err, __u64 refreshes)
{
	char en[32];

	if (!opt.json)
		return;
	json_begin("end");
	json_str("command", "watch");
	json_str("reason", err ? "error" : sig ? "signal" : "count");
	if (err)
		json_str("errno", errno_name(err, en, sizeof(en)));
	if (sig)
		json_str("signal", sig == SIGINT ? "SIGINT" : "SIGTERM");
	json_u64("refreshes", refreshes);
	json_u64("exit_status", err ? 1 : 0);
	json_end();
}

/*
 * One refresh of watch for a person, written whole (out_write()): a stop
 * signal gives it up if stdout's reader stalls.
 */
static void watch_frame(const struct dwq_ioc_stats *st,
			const struct dwq_ioc_stats *prev, __u64 dt_ns,
			__u64 period, __u64 n, int tty)
{
	char d[32], when[16], *buf = NULL;
	time_t now = time(NULL);
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		out_failed(ENOMEM);
		return;
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (tty)
		fputs("\033[H\033[2J", f);
	else if (n > 1)
		fputc('\n', f);
	fprintf(f, "Every %s: dwq stats of %s   refresh %llu   %s\n",
		fmt_duration_u(d, sizeof(d), period), opt.dev, n, when);
	print_stats_table(f, st, prev, dt_ns);
	if (fclose(f))
		out_failed(ENOMEM);
	else
		out_write(buf, len);
	free(buf);
}

/**
 * cmd_watch() - dwqctl watch [INTERVAL] [--count N] [--json]
 * @argc: arguments, argv[0] being "watch"
 * @argv: the arguments
 *
 * Redraws the stats every INTERVAL (default 1s) until ^C, N refreshes or
 * an error. On a terminal the screen is cleared first, as watch(1) does;
 * into a pipe or file the refreshes follow each other, separated by a
 * blank line.
 *
 * Return: the exit status: 0, or 1 after an error.
 */
int cmd_watch(int argc, char **argv)
{
	const char *interval = NULL;
	struct dwq_ioc_stats st, prev;
	__u64 period = NSEC_PER_SEC, count = 0, n, next, t, tprev = 0;
	__u64 shown = 0;
	struct signalfd_siginfo si;
	struct pollfd pfd;
	char err[200];
	int fd, sfd, stop_fd, tty, ret, sig = 0, fail = 0;
	sigset_t stop;

	ret = stats_args("watch", argc, argv, &interval, &count);
	if (ret)
		return ret;
	if (interval && parse_duration(interval, &period, err, sizeof(err)))
		return usage_error("watch", "%s", err);
	if (period < 10 * NSEC_PER_MSEC)
		return usage_error("watch",
				   "an interval of at least 10ms, please");
	fd = dev_open(1);
	if (fd < 0) {
		fail = errno ? errno : EIO;
		watch_end(0, fail, 0);
		return 1;
	}
	sfd = signal_fd();
	/* A stop signal ends a write that stdout's reader holds up. */
	stop_signals(&stop);
	stop_fd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
	out_stop_fd(stop_fd);
	tty = isatty(STDOUT_FILENO);
	next = clock_now(0);
	for (n = 1; !count || n <= count; n++) {
		ret = dev_stats(fd, &st);
		t = clock_now(0);
		if (ret) {
			fail = -ret;
			errorf(fail, err_cause(OP_STATS, fail), "watch");
			break;
		}
		if (opt.json) {
			json_begin("stats");
			json_u64("refresh", n);
			json_ns("time_ns", t);
			json_stats_fields(&st);
			json_end();
		} else {
			watch_frame(&st, n > 1 ? &prev : NULL, t - tprev,
				    period, n, tty);
		}
		if (out_error()) {
			fail = out_error(); /* said by main() */
			break;
		}
		shown = n;
		prev = st;
		tprev = t;
		if (count && n == count)
			break;
		/* A period past the end of time: the next refresh is never. */
		next = next > UINT64_MAX - period ? UINT64_MAX : next + period;
		t = clock_now(0);
		if (next < t)
			next = t; /* fell behind: do not catch up */
		pfd.fd = sfd;
		pfd.events = POLLIN;
		/* poll() waits 24 days at most: then again. */
		do {
			ret = poll(&pfd, sfd >= 0, poll_ms(next - t));
			t = clock_now(0);
		} while (ret == 0 && t < next);
		if (ret > 0) {
			/* ^C or SIGTERM: a clean end */
			if (read(sfd, &si, sizeof(si)) == sizeof(si))
				sig = si.ssi_signo;
			break;
		}
		if (ret < 0 && errno != EINTR) {
			fail = errno;
			errorf(fail, NULL, "watch: poll");
			break;
		}
	}
	close(fd);
	if (sfd >= 0)
		close(sfd);
	/* Stopped: the end record only if stdout takes it at once. */
	if (sig)
		out_stopping();
	watch_end(sig, fail, shown);
	out_stop_fd(-1);
	if (stop_fd >= 0)
		close(stop_fd);
	return fail ? 1 : 0;
}
