// SPDX-License-Identifier: GPL-2.0
/*
 * The run language's parser: one line in, one struct run_cmd out. It knows
 * nothing of the device, so the unit tests run it on the host.
 *
 *   schedule TIME [every P | rate P] [cookie C] [at] [boottime]
 *   reschedule ID TIME [every P | rate P | once] [at] [boottime | monotonic]
 *   cancel ID...              several: one DWQ_IOC_CANCEL_BATCH
 *   query ID
 *   wait                      until nothing is pending and nothing unread
 *   wait N events [timeout D]
 *   wait D
 *   stats
 *   sleep D
 *   echo TEXT
 *   # a comment, to the end of the line
 *
 * TIME is a duration (the delay), or with `at` the deadline on the clock;
 * `now`, `now+D` and `now-D` are deadlines relative to the clock when the
 * line runs (they imply `at`). A reschedule keeps the task's clock unless
 * it says `boottime` or `monotonic` (DWQ_RESCHED_MONOTONIC): its TIME is on
 * the clock the task has after it, and its `now` is that clock's (run.c
 * asks the device for the task's own when the line names none). ID is a
 * task id, `$N` for the id of the run's Nth schedule, or `$last`.
 */
#include <stdlib.h>
#include <string.h>

#include "dwqctl.h"

#define MAX_TOKENS 32

/**
 * mode_name() - a task mode for people
 * @mode: DWQ_MODE_*
 *
 * Return: "oneshot", "fixed-rate", "fixed-delay" or "unknown".
 */
const char *mode_name(__u32 mode)
{
	switch (mode) {
	case DWQ_MODE_ONESHOT:
		return "oneshot";
	case DWQ_MODE_FIXED_RATE:
		return "fixed-rate";
	case DWQ_MODE_FIXED_DELAY:
		return "fixed-delay";
	}
	return "unknown";
}

static int parse_time(const char *tok, struct run_cmd *cmd, char *err,
		      size_t errlen)
{
	__u64 ns;

	if (strncmp(tok, "now", 3)) {
		if (parse_duration(tok, &cmd->time_ns, err, errlen))
			return -1;
		return 0;
	}
	cmd->now = 1;
	cmd->flags |= DWQ_SCHED_ABS;
	if (!tok[3])
		return 0;
	/* One sign: the duration's own would be a second (now-+5s). */
	if ((tok[3] != '+' && tok[3] != '-') || tok[4] == '+' ||
	    tok[4] == '-') {
		snprintf(err, errlen,
			 "'%s': expected now, now+DURATION or now-DURATION",
			 tok);
		return -1;
	}
	if (parse_duration(tok + 4, &ns, err, errlen))
		return -1;
	if (ns > INT64_MAX) {
		snprintf(err, errlen, "'%s' is too far from now", tok);
		return -1;
	}
	cmd->now_off = tok[3] == '-' ? -(__s64)ns : (__s64)ns;
	return 0;
}

static int parse_ref(const char *what, const char *tok, struct run_cmd *cmd,
		     char *err, size_t errlen)
{
	if (!tok) {
		snprintf(err, errlen,
			 "%s: which task? give its id, $N (the Nth schedule) or $last",
			 what);
		return -1;
	}
	if (!strcmp(tok, "$last")) {
		cmd->ref = REF_LAST;
		return 0;
	}
	if (tok[0] == '$') {
		cmd->ref = REF_NTH;
		if (!parse_u64(tok + 1, &cmd->id) && cmd->id > 0)
			return 0;
	} else {
		cmd->ref = REF_ID;
		if (!parse_u64(tok, &cmd->id))
			return 0;
	}
	snprintf(err, errlen,
		 "%s: '%s' is not a task: give its id, $N (the Nth schedule, from 1) or $last",
		 what, tok);
	return -1;
}

static int parse_period(const char *what, char **tok, int i, int n,
			struct run_cmd *cmd, int *have_period, char *err,
			size_t errlen)
{
	char msg[200];

	if (*have_period) {
		snprintf(err, errlen, "%s: '%s': only one of every, rate%s",
			 what, tok[i],
			 cmd->op == RUN_RESCHEDULE ? " and once" : "");
		return -1;
	}
	*have_period = 1;
	if (cmd->op == RUN_RESCHEDULE)
		cmd->flags |= DWQ_RESCHED_PERIOD;
	if (!strcmp(tok[i], "once")) {
		cmd->mode = DWQ_MODE_ONESHOT;
		cmd->period_ns = 0;
		return 0;
	}
	cmd->mode = !strcmp(tok[i], "every") ? DWQ_MODE_FIXED_DELAY :
					       DWQ_MODE_FIXED_RATE;
	if (i + 1 >= n) {
		snprintf(err, errlen, "%s: '%s' needs a period, e.g. %s 1s",
			 what, tok[i], tok[i]);
		return -1;
	}
	if (parse_duration(tok[i + 1], &cmd->period_ns, msg, sizeof(msg))) {
		snprintf(err, errlen, "%s: %s %s", what, tok[i], msg);
		return -1;
	}
	if (!cmd->period_ns) {
		snprintf(err, errlen, "%s: a period must be longer than 0",
			 what);
		return -1;
	}
	return 0;
}

/* schedule TIME [...] and reschedule ID TIME [...] */
static int parse_schedule(char **tok, int n, struct run_cmd *cmd, char *err,
			  size_t errlen)
{
	int resched = cmd->op == RUN_RESCHEDULE;
	const char *what = tok[0];
	int have_period = 0, have_cookie = 0, have_at = 0, have_clock = 0;
	char msg[200];
	int i = 1;

	if (resched && parse_ref(what, n > 1 ? tok[1] : NULL, cmd, err, errlen))
		return -1;
	if (resched)
		i++;
	if (i >= n) {
		snprintf(err, errlen, "%s: when? give a delay, e.g. %s%s 300ms",
			 what, what, resched ? " ID" : "");
		return -1;
	}
	if (parse_time(tok[i], cmd, err, errlen)) {
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s", what, msg);
		return -1;
	}
	for (i++; i < n; i++) {
		const char *t = tok[i];

		if (!strcmp(t, "every") || !strcmp(t, "rate") ||
		    (resched && !strcmp(t, "once"))) {
			if (parse_period(what, tok, i, n, cmd, &have_period,
					 err, errlen))
				return -1;
			if (strcmp(t, "once"))
				i++;
		} else if (!strcmp(t, "cookie") && !resched) {
			if (have_cookie++) {
				snprintf(err, errlen, "%s: cookie given twice",
					 what);
				return -1;
			}
			if (i + 1 >= n) {
				snprintf(err, errlen,
					 "%s: cookie needs a number (decimal or 0x hex)",
					 what);
				return -1;
			}
			if (parse_number(tok[i + 1], &cmd->cookie, msg,
					 sizeof(msg))) {
				snprintf(err, errlen, "%s: cookie %s", what,
					 msg);
				return -1;
			}
			i++;
		} else if (!strcmp(t, "at") && !have_at++) {
			cmd->flags |= DWQ_SCHED_ABS;
		} else if (!strcmp(t, "boottime") ||
			   (resched && !strcmp(t, "monotonic"))) {
			if (have_clock++) {
				snprintf(err, errlen,
					 resched ?
						 "%s: '%s': one clock word, boottime or monotonic" :
						 "%s: '%s': boottime once",
					 what, t);
				return -1;
			}
			cmd->flags |= t[0] == 'b' ? DWQ_SCHED_BOOTTIME :
						    DWQ_RESCHED_MONOTONIC;
		} else {
			snprintf(err, errlen,
				 "%s: unexpected '%s' (options: %s)", what, t,
				 resched ?
					 "every P, rate P, once, at, boottime, monotonic" :
					 "every P, rate P, cookie C, at, boottime");
			return -1;
		}
	}
	return 0;
}

static int parse_wait(char **tok, int n, struct run_cmd *cmd, char *err,
		      size_t errlen)
{
	char msg[200];

	if (n == 1) {
		cmd->wait = WAIT_ALL;
		return 0;
	}
	if (n >= 3 && (!strcmp(tok[2], "events") || !strcmp(tok[2], "event"))) {
		cmd->wait = WAIT_EVENTS;
		if (parse_u64(tok[1], &cmd->count)) {
			snprintf(err, errlen,
				 "wait: '%s' is not a number of events",
				 tok[1]);
			return -1;
		}
		if (n == 3)
			return 0;
		if (n == 5 && !strcmp(tok[3], "timeout")) {
			if (parse_duration(tok[4], &cmd->timeout_ns, msg,
					   sizeof(msg))) {
				snprintf(err, errlen, "wait: timeout %s", msg);
				return -1;
			}
			if (!cmd->timeout_ns) {
				snprintf(err, errlen,
					 "wait: a timeout of 0 is no wait");
				return -1;
			}
			return 0;
		}
		snprintf(err, errlen,
			 "wait: after '%s %s', only 'timeout DURATION'", tok[1],
			 tok[2]);
		return -1;
	}
	if (n == 2) {
		cmd->wait = WAIT_TIME;
		if (!parse_duration(tok[1], &cmd->time_ns, msg, sizeof(msg)))
			return 0;
		snprintf(err, errlen,
			 "wait: %s (expected 'wait', 'wait N events' or 'wait DURATION')",
			 msg);
		return -1;
	}
	snprintf(err, errlen,
		 "wait: expected 'wait', 'wait N events [timeout D]' or 'wait DURATION'");
	return -1;
}

static int no_more(char **tok, int n, int want, char *err, size_t errlen)
{
	if (n <= want)
		return 0;
	snprintf(err, errlen, "%s: unexpected '%s'", tok[0], tok[want]);
	return -1;
}

/**
 * run_parse_args() - parse one command of the run language, as words
 * @argc: words
 * @argv: the words; argv[0] is the command
 * @cmd: out: the command, to be freed with run_cmd_free()
 * @err: out: on failure, why, for a person
 * @errlen: size of @err
 *
 * Return: 0, or -1 with @err set (and nothing to free).
 */
int run_parse_args(int argc, char **argv, struct run_cmd *cmd, char *err,
		   size_t errlen)
{
	char msg[200];
	int i;

	memset(cmd, 0, sizeof(*cmd));
	if (!argc) {
		cmd->op = RUN_NOP;
		return 0;
	}
	if (!strcmp(argv[0], "schedule")) {
		cmd->op = RUN_SCHEDULE;
		return parse_schedule(argv, argc, cmd, err, errlen);
	}
	if (!strcmp(argv[0], "reschedule")) {
		cmd->op = RUN_RESCHEDULE;
		return parse_schedule(argv, argc, cmd, err, errlen);
	}
	if (!strcmp(argv[0], "cancel")) {
		cmd->op = RUN_CANCEL;
		if (parse_ref(argv[0], argc > 1 ? argv[1] : NULL, cmd, err,
			      errlen))
			return -1;
		for (i = 1; i < argc; i++) {
			struct run_cmd one;

			if (i > RUN_IDS_MAX)
				return no_more(argv, argc, i, err, errlen);
			if (parse_ref(argv[0], argv[i], &one, err, errlen))
				return -1;
			cmd->refs[i - 1] = one.ref;
			cmd->ids[i - 1] = one.id;
		}
		cmd->nids = argc - 1;
		return 0;
	}
	if (!strcmp(argv[0], "query")) {
		cmd->op = RUN_QUERY;
		if (parse_ref(argv[0], argc > 1 ? argv[1] : NULL, cmd, err,
			      errlen))
			return -1;
		return no_more(argv, argc, 2, err, errlen);
	}
	if (!strcmp(argv[0], "wait")) {
		cmd->op = RUN_WAIT;
		return parse_wait(argv, argc, cmd, err, errlen);
	}
	if (!strcmp(argv[0], "stats")) {
		cmd->op = RUN_STATS;
		return no_more(argv, argc, 1, err, errlen);
	}
	if (!strcmp(argv[0], "sleep")) {
		cmd->op = RUN_SLEEP;
		if (argc < 2) {
			snprintf(err, errlen,
				 "sleep: how long? e.g. sleep 100ms");
			return -1;
		}
		if (parse_duration(argv[1], &cmd->time_ns, msg, sizeof(msg))) {
			snprintf(err, errlen, "sleep: %s", msg);
			return -1;
		}
		return no_more(argv, argc, 2, err, errlen);
	}
	if (!strcmp(argv[0], "echo")) {
		size_t len = 1, n;
		char *p;

		for (i = 1; i < argc; i++)
			len += strlen(argv[i]) + 1;
		p = malloc(len);
		if (!p) {
			snprintf(err, errlen, "echo: out of memory");
			return -1;
		}
		cmd->op = RUN_ECHO;
		cmd->text = p;
		for (i = 1; i < argc; i++) {
			if (i > 1)
				*p++ = ' ';
			n = strlen(argv[i]);
			memcpy(p, argv[i], n);
			p += n;
		}
		*p = '\0';
		return 0;
	}
	snprintf(err, errlen,
		 "unknown command '%s' (schedule, reschedule, cancel, query, wait, stats, sleep, echo)",
		 argv[0]);
	return -1;
}

/**
 * run_cmd_free() - free what run_parse_args() or run_parse_line() took
 * @cmd: the command
 */
void run_cmd_free(struct run_cmd *cmd)
{
	free(cmd->text);
	cmd->text = NULL;
}

/**
 * run_parse_line() - parse one line of the run language
 * @line: the line, with or without its newline
 * @cmd: out: the command, to be freed with run_cmd_free(); RUN_NOP for a
 *	blank line or a comment
 * @err: out: on failure, why, for a person
 * @errlen: size of @err
 *
 * Words are separated by blanks; a word that starts with # starts a
 * comment. A line may be of any length.
 *
 * Return: 0, or -1 with @err set.
 */
int run_parse_line(const char *line, struct run_cmd *cmd, char *err,
		   size_t errlen)
{
	char *buf, *tok[MAX_TOKENS], *p, *save;
	int n = 0, ret;

	buf = strdup(line);
	if (!buf) {
		memset(cmd, 0, sizeof(*cmd));
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (p = strtok_r(buf, " \t\r\n", &save); p;
	     p = strtok_r(NULL, " \t\r\n", &save)) {
		if (p[0] == '#')
			break;
		if (n == MAX_TOKENS) {
			free(buf);
			memset(cmd, 0, sizeof(*cmd));
			snprintf(err, errlen, "too many words (at most %d)",
				 MAX_TOKENS);
			return -1;
		}
		tok[n++] = p;
	}
	ret = run_parse_args(n, tok, cmd, err, errlen);
	free(buf);
	return ret;
}
