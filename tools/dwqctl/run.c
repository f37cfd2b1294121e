// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl run: the run language (see parse.c) on one open file of /dev/dwq,
 * so that tasks live across commands: they belong to the file and die
 * with it. `dwqctl schedule` is a one-line run of the same code.
 *
 * Each command prints one line: the id of a schedule, the result of a
 * cancel or reschedule, the fields of a query or stats. `wait` prints the
 * events as they arrive, then a summary line.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/param.h>
#include <sys/stat.h>

#include "dwqctl.h"

#define EVENT_BATCH 64

/**
 * run_open() - open the device for a run
 * @st: the run's state, zeroed by the caller apart from its options
 *
 * Return: 0, or -1 after printing why.
 */
int run_open(struct run_state *st)
{
	st->fd = dev_open(1);
	return st->fd < 0 ? -1 : 0;
}

/**
 * run_close() - close the file: the device cancels every task it owns
 * @st: the run's state
 */
void run_close(struct run_state *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	free(st->tasks);
	st->tasks = NULL;
	st->ntasks = 0;
}

/* Error report for a command: "FILE:LINE: WHAT: ENAME: CAUSE". */
static void run_error(struct run_state *st, int err, const char *cause,
		      const char *what)
{
	if (st->file)
		errorf(err, cause, "%s:%d: %s", st->file, opt.line, what);
	else
		errorf(err, cause, "%s", what);
}

/* The mode of a schedule that failed (under -k): it has no task. */
#define MODE_FAILED ((__u32)-1)

/*
 * Note a schedule of the run, for $N and $last: its task's id and mode,
 * or MODE_FAILED for one that failed, which they must not skip: the Nth
 * schedule of the script stays $N.
 */
static int remember(struct run_state *st, __u64 id, __u32 mode)
{
	struct run_task *t;

	if (st->ntasks == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 16;

		t = realloc(st->tasks, cap * sizeof(*t));
		if (!t)
			return -1;
		st->tasks = t;
		st->cap = cap;
	}
	st->tasks[st->ntasks].id = id;
	st->tasks[st->ntasks].mode = mode;
	st->ntasks++;
	return 0;
}

static const struct run_task *find_task(const struct run_state *st, __u64 id)
{
	size_t i;

	for (i = st->ntasks; i-- > 0;)
		if (st->tasks[i].mode != MODE_FAILED && st->tasks[i].id == id)
			return &st->tasks[i];
	return NULL;
}

/*
 * The id of schedule @n (from 1) of the run, or -1 after an error, @what
 * the command and the name it used: a schedule that failed has none.
 */
static int nth_id(struct run_state *st, size_t n, const char *what, __u64 *id)
{
	const struct run_task *t = &st->tasks[n - 1];
	char cause[64];

	if (t->mode != MODE_FAILED) {
		*id = t->id;
		return 0;
	}
	snprintf(cause, sizeof(cause),
		 "schedule %zu of this run failed: no task", n);
	run_error(st, 0, cause, what);
	return -1;
}

/* The id a command names, or -1 after an error. */
static int resolve(struct run_state *st, const struct run_cmd *cmd,
		   const char *verb, __u64 *id)
{
	char what[64];

	switch (cmd->ref) {
	case REF_ID:
		*id = cmd->id;
		return 0;
	case REF_LAST:
		snprintf(what, sizeof(what), "%s $last", verb);
		if (st->ntasks)
			return nth_id(st, st->ntasks, what, id);
		run_error(st, 0, "nothing was scheduled yet", what);
		return -1;
	case REF_NTH:
		snprintf(what, sizeof(what), "%s $%llu", verb, cmd->id);
		if (cmd->id <= st->ntasks)
			return nth_id(st, cmd->id, what, id);
		run_error(st, 0,
			  st->ntasks ? "not that many schedules yet" :
				       "nothing was scheduled yet",
			  what);
		return -1;
	}
	return -1;
}

/* The deadline of a now, now+D or now-D time, on @clock (clock_now()). */
static __u64 now_time(const struct run_cmd *cmd, __u32 clock)
{
	__u64 now = clock_now(clock);

	if (cmd->now_off < 0 && (__u64)-cmd->now_off > now)
		return 0;
	return now + cmd->now_off;
}

/*
 * EINVAL from SCHEDULE or RESCHEDULE: say which value the module refuses,
 * when its parameters tell.
 */
static const char *einval_cause(__u64 time_ns, __u64 period_ns, __u32 flags,
				char *buf, size_t len)
{
	char a[32], b[32];
	__u64 lim;

	if (period_ns && !param_u64("min_period_ns", &lim) && period_ns < lim) {
		snprintf(buf, len,
			 "the period %s is below the module's minimum, min_period_ns=%llu (%s)",
			 fmt_duration_u(a, sizeof(a), period_ns), lim,
			 fmt_duration_u(b, sizeof(b), lim));
		return buf;
	}
	if (!(flags & DWQ_SCHED_ABS) && !param_u64("max_delay_ns", &lim) &&
	    time_ns > lim) {
		snprintf(buf, len,
			 "the delay %s is beyond the module's maximum, max_delay_ns=%llu (%s)",
			 fmt_duration_u(a, sizeof(a), time_ns), lim,
			 fmt_duration_u(b, sizeof(b), lim));
		return buf;
	}
	if (period_ns && !param_u64("max_delay_ns", &lim) && period_ns > lim) {
		snprintf(buf, len,
			 "the period %s is beyond the module's maximum, max_delay_ns=%llu (%s)",
			 fmt_duration_u(a, sizeof(a), period_ns), lim,
			 fmt_duration_u(b, sizeof(b), lim));
		return buf;
	}
	return err_cause(OP_SCHEDULE, EINVAL);
}

/**
 * schedule_cause() - what an errno from SCHEDULE means, with the limits
 * @fd: the file that refused it, for its counts
 * @err: the errno, positive
 * @s: the request refused
 * @buf: room for the text
 * @len: its size
 *
 * Return: a short explanation for a person.
 */
const char *schedule_cause(int fd, int err, const struct dwq_ioc_schedule *s,
			   char *buf, size_t len)
{
	struct dwq_ioc_stats st;

	if (err == EINVAL)
		return einval_cause(s->time_ns, s->period_ns, s->flags, buf,
				    len);
	if (err == ENOSPC && !dev_stats(fd, &st))
		return enospc_text(&st, s, buf, len);
	return err_cause(OP_SCHEDULE, err);
}

static int do_schedule(struct run_state *st, const struct run_cmd *cmd,
		       const char *text)
{
	struct dwq_ioc_schedule s = {
		.time_ns = cmd->now ? now_time(cmd, cmd->flags) : cmd->time_ns,
		.period_ns = cmd->period_ns,
		.cookie = cmd->cookie,
		.mode = cmd->mode,
		.flags = cmd->flags & (DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME),
	};
	const char *cause;
	char buf[256];
	int err;

	err = dev_schedule(st->fd, &s);
	if (err) {
		cause = schedule_cause(st->fd, -err, &s, buf, sizeof(buf));
		run_error(st, -err, cause, text);
		/* Without its place, a later $N would name the next one. */
		if (remember(st, 0, MODE_FAILED))
			run_error(st, ENOMEM, NULL, text);
		return -1;
	}
	if (remember(st, s.id, s.mode)) {
		run_error(st, ENOMEM, NULL, text);
		return -1;
	}
	if (opt.json) {
		json_begin("schedule");
		json_id("id", s.id);
		json_str("mode", mode_name(s.mode));
		json_id("cookie", s.cookie);
		json_end();
	} else {
		printf("schedule: id %llu\n", s.id);
		out_flush();
	}
	return 0;
}

/*
 * Say what cancelling @id answered: @err, a positive errno, or @result.
 * Return 0 for a task cancelled, -1 for an error.
 */
static int cancel_report(struct run_state *st, __u64 id, int err, __u32 result)
{
	const struct run_task *t;
	const char *res, *why;
	char what[64];

	snprintf(what, sizeof(what), "cancel %llu", id);
	t = find_task(st, id);
	if (err == ENOENT && t && t->mode == DWQ_MODE_ONESHOT) {
		/* Ours: not unknown, but due, its event read()'s to take. */
		run_error(st, err,
			  "this run's one-shot has come due: its event is read()'s, not cancel's",
			  what);
		return -1;
	}
	if (err) {
		run_error(st, err, err_cause(OP_CANCEL, err), what);
		return -1;
	}
	if (result == DWQ_RESULT_REMOVED) {
		res = "removed";
		why = "it will not fire";
		if (t && t->mode != DWQ_MODE_ONESHOT)
			why = "it will not fire again";
	} else if (result == DWQ_RESULT_UNREAD) {
		res = "unread";
		why = "it will not fire again; its last event is still to read";
	} else {
		/* Not shown cancelled: the task may still be queued. */
		char cause[96];

		snprintf(cause, sizeof(cause),
			 "result %u, unknown to this dwqctl: the task may not be cancelled",
			 result);
		run_error(st, 0, cause, what);
		return -1;
	}
	if (opt.json) {
		json_begin("cancel");
		json_id("id", id);
		json_str("result", res);
		json_end();
	} else {
		printf("%s: %s: %s\n", what, res, why);
		out_flush();
	}
	return 0;
}

static int do_cancel(struct run_state *st, const struct run_cmd *cmd)
{
	struct dwq_ioc_cancel c = { 0 };
	__u64 ids[RUN_IDS_MAX];
	struct run_cmd one;
	int err, i;

	if (cmd->nids > 1) {
		/* Every id resolved first: a bad $N cancels nothing. */
		for (i = 0; i < cmd->nids; i++) {
			one.ref = cmd->refs[i];
			one.id = cmd->ids[i];
			if (resolve(st, &one, "cancel", &ids[i]))
				return -1;
		}
		return run_cancel_ids(st, ids, cmd->nids);
	}
	if (resolve(st, cmd, "cancel", &c.id))
		return -1;
	err = dev_cancel(st->fd, &c);
	return cancel_report(st, c.id, -err, c.result);
}

/*
 * Cancel @n ids (at most DWQ_CANCEL_BATCH_MAX) with one CANCEL_BATCH, or
 * one CANCEL each where the device has no CANCEL_BATCH. Return how many
 * were not cancelled, or -1 if the batch failed as a whole.
 */
static int cancel_chunk(struct run_state *st, const __u64 *ids, __u32 n)
{
	static struct dwq_ioc_cancel c[DWQ_CANCEL_BATCH_MAX];
	int err, failed = 0;
	__u32 i;

	memset(c, 0, n * sizeof(c[0]));
	for (i = 0; i < n; i++)
		c[i].id = ids[i];
	err = dev_cancel_batch(st->fd, c, n);
	if (err == -ENOTTY) {
		/* A dwq.ko from before DWQ_IOC_CANCEL_BATCH. */
		for (i = 0; i < n; i++) {
			err = -dev_cancel(st->fd, &c[i]);
			failed -= cancel_report(st, ids[i], err, c[i].result);
		}
		return failed;
	}
	if (err) {
		char what[64];

		snprintf(what, sizeof(what), "cancel %llu and %u more", ids[0],
			 n - 1);
		run_error(st, -err, err_cause(OP_CANCEL, -err), what);
		return -1;
	}
	for (i = 0; i < n; i++) {
		err = c[i].result == DWQ_RESULT_NOENT ? ENOENT : 0;
		failed -= cancel_report(st, ids[i], err, c[i].result);
	}
	return failed;
}

/**
 * run_cancel_ids() - cancel tasks by id, with as few ioctls as it takes
 * @st: the run's state
 * @ids: the ids
 * @n: how many
 *
 * One DWQ_IOC_CANCEL_BATCH per DWQ_CANCEL_BATCH_MAX ids; each id's result
 * is printed as `cancel ID` prints it.
 *
 * Return: 0 if every id was cancelled, -1 otherwise.
 */
int run_cancel_ids(struct run_state *st, const __u64 *ids, size_t n)
{
	size_t done, failed = 0;
	__u32 chunk;
	int ret;

	for (done = 0; done < n; done += chunk) {
		chunk = n - done < DWQ_CANCEL_BATCH_MAX ? n - done :
							  DWQ_CANCEL_BATCH_MAX;
		ret = cancel_chunk(st, ids + done, chunk);
		if (ret < 0)
			return -1;
		failed += ret;
	}
	return failed ? -1 : 0;
}

/*
 * The clock a reschedule's now, now+D or now-D is on, in @clock: the one
 * the line moves the task to, or else the task's own, which it keeps: the
 * device says which (QUERY). Return 0 or a negative errno.
 */
static int task_clock(struct run_state *st, const struct run_cmd *cmd, __u64 id,
		      __u32 *clock)
{
	struct dwq_ioc_query q = { .id = id };
	int err;

	if (cmd->flags & (DWQ_SCHED_BOOTTIME | DWQ_RESCHED_MONOTONIC)) {
		*clock = cmd->flags & DWQ_SCHED_BOOTTIME;
		return 0;
	}
	err = dev_query(st->fd, &q);
	if (!err)
		*clock = q.flags & DWQ_SCHED_BOOTTIME;
	return err;
}

static int do_reschedule(struct run_state *st, const struct run_cmd *cmd)
{
	struct dwq_ioc_reschedule r = { 0 };
	const char *cause;
	char what[64], buf[160], d[32];
	__u32 clock;
	int err;

	if (resolve(st, cmd, "reschedule", &r.id))
		return -1;
	snprintf(what, sizeof(what), "reschedule %llu", r.id);
	r.time_ns = cmd->time_ns;
	if (cmd->now) {
		err = task_clock(st, cmd, r.id, &clock);
		if (err) {
			run_error(st, -err, err_cause(OP_QUERY, -err), what);
			return -1;
		}
		r.time_ns = now_time(cmd, clock);
	}
	r.period_ns = cmd->period_ns;
	r.mode = cmd->mode;
	r.flags = cmd->flags;
	err = dev_reschedule(st->fd, &r);
	if (err) {
		cause = err == -EINVAL ?
				einval_cause(r.time_ns, r.period_ns, r.flags,
					     buf, sizeof(buf)) :
				err_cause(OP_RESCHEDULE, -err);
		run_error(st, -err, cause, what);
		return -1;
	}
	if (opt.json) {
		json_begin("reschedule");
		json_id("id", r.id);
		json_str("result", "moved");
		json_end();
		return 0;
	}
	if (r.flags & DWQ_SCHED_ABS)
		printf("%s: moved: deadline %s\n", what,
		       fmt_clock(d, sizeof(d), r.time_ns));
	else
		printf("%s: moved: due in %s\n", what,
		       fmt_duration_u(d, sizeof(d), r.time_ns));
	out_flush();
	return 0;
}

static int do_query(struct run_state *st, const struct run_cmd *cmd)
{
	struct dwq_ioc_query q = { 0 };
	char what[64];
	int err;

	if (resolve(st, cmd, "query", &q.id))
		return -1;
	snprintf(what, sizeof(what), "query %llu", q.id);
	err = dev_query(st->fd, &q);
	if (err) {
		run_error(st, -err, err_cause(OP_QUERY, -err), what);
		return -1;
	}
	print_query(&q);
	return 0;
}

static int do_stats(struct run_state *st)
{
	struct dwq_ioc_stats s;
	int err;

	err = dev_stats(st->fd, &s);
	if (err) {
		run_error(st, -err, err_cause(OP_STATS, -err), "stats");
		return -1;
	}
	print_stats_line(&s);
	return 0;
}

static void sleep_ns(__u64 ns)
{
	/* In pieces a 32-bit time_t holds: a sleep may last 584 years. */
	const __u64 most = (__u64)INT_MAX * NSEC_PER_SEC;
	struct timespec ts;
	__u64 piece;

	while (ns) {
		piece = ns < most ? ns : most;
		ts.tv_sec = piece / NSEC_PER_SEC;
		ts.tv_nsec = piece % NSEC_PER_SEC;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ns -= piece;
	}
}

static void wait_summary(__u64 got, __u64 t0, const char *end)
{
	char d[32];

	if (opt.json) {
		json_begin("wait");
		json_u64("events", got);
		json_ns("waited_ns", clock_now(0) - t0);
		json_str("end", end);
		json_end();
		return;
	}
	printf("wait: %llu event%s in %s\n", got, got == 1 ? "" : "s",
	       fmt_duration(d, sizeof(d), clock_now(0) - t0));
	out_flush();
}

/*
 * wait               until the file has nothing pending and nothing unread
 * wait N events      until N events came (or the timeout passed: an error)
 * wait D             for D, printing what comes
 */
static int do_wait(struct run_state *st, const struct run_cmd *cmd,
		   const char *text)
{
	struct dwq_event ev[EVENT_BATCH];
	__u64 t0 = clock_now(0), got = 0, end = 0;
	__s64 left = -1;
	struct dwq_ioc_stats s;
	size_t max;
	int i, n, err;

	/* Saturated: a duration near 2^64 ns is for ever, not a wrap. */
	if (cmd->wait == WAIT_TIME)
		end = t0 + MIN(cmd->time_ns, UINT64_MAX - t0);
	else if (cmd->wait == WAIT_EVENTS && cmd->timeout_ns)
		end = t0 + MIN(cmd->timeout_ns, UINT64_MAX - t0);
	for (;;) {
		max = EVENT_BATCH;
		if (cmd->wait == WAIT_EVENTS) {
			if (got >= cmd->count)
				break;
			/* Leave the rest for the next wait. */
			if (cmd->count - got < max)
				max = cmd->count - got;
		}
		if (end) {
			__u64 now = clock_now(0);

			left = now < end ? (__s64)MIN(end - now, INT64_MAX) : 0;
		}
		if (cmd->wait == WAIT_ALL) {
			err = dev_stats(st->fd, &s);
			if (err) {
				run_error(st, -err, err_cause(OP_STATS, -err),
					  text);
				return -1;
			}
			if (!s.pending && !s.events)
				break;
			/* Look again now and then, in case pending drops
			 * without an event (a task cancelled while running).
			 */
			left = 100 * NSEC_PER_MSEC;
		}
		n = dev_wait_events(st->fd, ev, max, left);
		if (n < 0) {
			run_error(st, -n, err_cause(OP_READ, -n), text);
			return -1;
		}
		for (i = 0; i < n; i++)
			print_event(&ev[i]);
		got += n;
		if (!n && cmd->wait == WAIT_TIME)
			break;
		if (!n && cmd->wait == WAIT_EVENTS && end) {
			char msg[96], d[32];

			snprintf(msg, sizeof(msg),
				 "%llu of %llu events came within %s", got,
				 cmd->count,
				 fmt_duration_u(d, sizeof(d), cmd->timeout_ns));
			wait_summary(got, t0, "timeout");
			run_error(st, ETIMEDOUT, msg, text);
			return -1;
		}
	}
	wait_summary(got, t0, "done");
	return 0;
}

static void do_echo(const struct run_cmd *cmd)
{
	if (opt.json) {
		json_begin("echo");
		json_str("text", cmd->text);
		json_end();
		return;
	}
	printf("%s\n", cmd->text);
	out_flush();
}

/**
 * run_exec() - execute one command on the run's file
 * @st: the run's state, opened
 * @cmd: the command
 * @text: the command as written, for messages
 *
 * Return: 0, or -1 after printing the error.
 */
int run_exec(struct run_state *st, const struct run_cmd *cmd, const char *text)
{
	if (st->echo && cmd->op != RUN_NOP && !opt.json) {
		printf("+ %s\n", text);
		out_flush();
	}
	switch (cmd->op) {
	case RUN_NOP:
		return 0;
	case RUN_SCHEDULE:
		return do_schedule(st, cmd, text);
	case RUN_CANCEL:
		return do_cancel(st, cmd);
	case RUN_RESCHEDULE:
		return do_reschedule(st, cmd);
	case RUN_QUERY:
		return do_query(st, cmd);
	case RUN_WAIT:
		return do_wait(st, cmd, text);
	case RUN_STATS:
		return do_stats(st);
	case RUN_SLEEP:
		sleep_ns(cmd->time_ns);
		return 0;
	case RUN_ECHO:
		do_echo(cmd);
		return 0;
	}
	return 0;
}

/*
 * A line without its newline, blanks at either end, and comment: a word
 * that starts with #, after a blank or a tab, as run_parse_line() has it.
 */
static void clean_text(char *dst, size_t len, const char *line)
{
	size_t n, i;

	while (*line == ' ' || *line == '\t')
		line++;
	n = strcspn(line, "\r\n");
	for (i = 0; i < n; i++) {
		if (line[i] == '#' &&
		    (!i || line[i - 1] == ' ' || line[i - 1] == '\t')) {
			n = i;
			break;
		}
	}
	if (n >= len)
		n = len - 1;
	memcpy(dst, line, n);
	while (n && (dst[n - 1] == ' ' || dst[n - 1] == '\t'))
		n--;
	dst[n] = '\0';
}

struct script_line {
	struct run_cmd cmd;
	char text[RUN_TEXT_MAX];
	int line;
};

/*
 * A line that does not parse: "FILE:LINE: what" on stderr, and with
 * --json a usage error object with its line.
 */
static void script_error(struct run_state *st, int line, const char *err)
{
	char what[512];

	snprintf(what, sizeof(what), "%s:%d: %s", st->file, line, err);
	fprintf(stderr, "dwqctl: %s\n", what);
	if (opt.json) {
		opt.line = line;
		json_usage_error("run", what);
		opt.line = 0;
	}
}

/*
 * getline() failed: at the end of the script, or reading it failed (a
 * directory, an I/O error, a line longer than the memory there is): say
 * so, with getline()'s errno.
 */
static int script_read_error(struct run_state *st, FILE *in)
{
	int err = errno;

	if (feof(in) && !ferror(in))
		return 0;
	errorf(err ? err : EIO, NULL, "%s", st->file);
	return 1;
}

/*
 * Parse every line of a regular file first: nothing runs if one is bad.
 * Lines are read whole, however long, so that each is parsed as written
 * and the lines after a long one keep their numbers.
 */
static int run_whole(struct run_state *st, FILE *in)
{
	struct script_line *lines = NULL, *l;
	size_t n = 0, cap = 0, bufcap = 0, i;
	char *buf = NULL, err[256];
	int line = 0, failed = 0, ret = 0;

	while (getline(&buf, &bufcap, in) >= 0) {
		line++;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			l = realloc(lines, cap * sizeof(*l));
			if (!l) {
				errorf(ENOMEM, NULL, "%s", st->file);
				ret = 1;
				goto out;
			}
			lines = l;
		}
		l = &lines[n];
		if (run_parse_line(buf, &l->cmd, err, sizeof(err))) {
			script_error(st, line, err);
			failed = 1;
			continue;
		}
		if (l->cmd.op == RUN_NOP)
			continue;
		clean_text(l->text, sizeof(l->text), buf);
		l->line = line;
		n++;
	}
	if (script_read_error(st, in))
		ret = 1;
	else if (failed)
		ret = 2;
	if (ret || st->check_only)
		goto out;
	if (run_open(st)) {
		ret = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		opt.line = lines[i].line;
		if (run_exec(st, &lines[i].cmd, lines[i].text)) {
			ret = 1;
			if (!st->keep_going)
				break;
		}
		/* Its output lost: nobody would see the rest's. */
		if (out_error()) {
			ret = 1;
			break;
		}
	}
	opt.line = 0;
out:
	for (i = 0; i < n; i++)
		run_cmd_free(&lines[i].cmd);
	free(lines);
	free(buf);
	return ret;
}

/* Line by line, from a pipe or a terminal: each runs as it comes. */
static int run_stream(struct run_state *st, FILE *in)
{
	char *buf = NULL, err[256], text[RUN_TEXT_MAX];
	struct run_cmd cmd;
	int line = 0, ret = 0, stop = 0;
	size_t bufcap = 0;

	if (!st->check_only && run_open(st))
		return 1;
	while (!stop && getline(&buf, &bufcap, in) >= 0) {
		line++;
		if (run_parse_line(buf, &cmd, err, sizeof(err))) {
			script_error(st, line, err);
			free(buf);
			return 2;
		}
		if (!st->check_only && cmd.op != RUN_NOP) {
			clean_text(text, sizeof(text), buf);
			opt.line = line;
			if (run_exec(st, &cmd, text)) {
				ret = 1;
				stop = !st->keep_going;
			}
			if (out_error()) {
				ret = 1;
				stop = 1;
			}
		}
		run_cmd_free(&cmd);
	}
	if (!stop && script_read_error(st, in))
		ret = 1;
	free(buf);
	opt.line = 0;
	return ret;
}

/**
 * cmd_run() - dwqctl run [-k] [-x] [-n] [FILE|-]
 * @argc: arguments, argv[0] being "run"
 * @argv: the arguments
 *
 * Return: the exit status: 0, 1 if a command failed, 2 for a bad script.
 */
int cmd_run(int argc, char **argv)
{
	struct run_state st = { .fd = -1 };
	const char *path = NULL;
	struct stat sb;
	FILE *in = stdin;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (common_opt("run", argv, &i))
			continue;
		if (!strcmp(a, "-k") || !strcmp(a, "--keep-going"))
			st.keep_going = 1;
		else if (!strcmp(a, "-x") || !strcmp(a, "--echo"))
			st.echo = 1;
		else if (!strcmp(a, "-n") || !strcmp(a, "--check"))
			st.check_only = 1;
		else if (a[0] == '-' && a[1])
			return usage_error("run", "unknown option '%s'", a);
		else if (!path)
			path = a;
		else
			return usage_error("run", "one script at a time");
	}
	if (path && strcmp(path, "-")) {
		in = fopen(path, "re");
		if (!in) {
			errorf(errno, NULL, "run: %s", path);
			return 1;
		}
		st.file = path;
	} else {
		st.file = "<stdin>";
	}
	if (fstat(fileno(in), &sb))
		sb.st_mode = 0;
	if (S_ISDIR(sb.st_mode)) {
		/* Said before the device is opened, which may fail too. */
		errorf(EISDIR, NULL, "run: %s", st.file);
		ret = 1;
	} else if (S_ISREG(sb.st_mode)) {
		ret = run_whole(&st, in);
	} else {
		ret = run_stream(&st, in);
	}
	if (in != stdin)
		fclose(in);
	run_close(&st);
	return ret;
}
