/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwqctl - drive dwq, the delayed work queue, from the command line.
 *
 * Shared declarations of dwqctl's files:
 *
 *   main.c      command dispatch, options, help, schedule, --version
 *   every.c     `dwqctl after` and `dwqctl every`: a command on a timer
 *   duration.c  durations and numbers: parsing and printing
 *   parse.c     the run language's parser (no device: unit-tested)
 *   run.c       `dwqctl run`: executes the run language on one open file
 *   device.c    /dev/dwq: open, ioctls, events, errno names and causes
 *   stats.c     `dwqctl stats` and `dwqctl watch`
 *   demo.c      `dwqctl demo`
 *   bench.c     `dwqctl bench`
 *   json.c      one JSON object per line
 *   out.c       standard output's write errors
 */
#ifndef DWQCTL_H
#define DWQCTL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/dwq.h>

#define DWQ_DEFAULT_DEV "/dev/dwq"
#define DWQ_PARAMS "/sys/module/dwq/parameters"
/* The group packaging/60-dwq.rules gives /dev/dwq to. */
#define DWQ_GROUP "dwq"

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The kernel's __printf() for user space, where <linux/compiler_attributes.h>
 * is not available: printf-style arguments are checked by the compiler.
 */
#define dwq_attr(x) __attribute__(x)
#define __printf(a, b) dwq_attr((format(printf, a, b)))

/* Options every command takes. */
struct opts {
	const char *dev; /* --device, $DWQ_DEVICE, or /dev/dwq */
	int json; /* --json: one JSON object per line */
	int line; /* run: the script line running, or 0 */
};

extern struct opts opt;

/* duration.c */
int parse_duration(const char *s, __u64 *ns, char *err, size_t errlen);
int poll_ms(__u64 ns);
int parse_number(const char *s, __u64 *v, char *err, size_t errlen);
int parse_u64(const char *s, __u64 *v);
char *fmt_duration(char *buf, size_t len, __s64 ns);
char *fmt_duration_u(char *buf, size_t len, __u64 ns);
char *fmt_clock(char *buf, size_t len, __u64 ns);

/* parse.c: one line of the run language */
enum run_op {
	RUN_NOP, /* blank line or comment */
	RUN_SCHEDULE,
	RUN_CANCEL,
	RUN_RESCHEDULE,
	RUN_QUERY,
	RUN_WAIT,
	RUN_STATS,
	RUN_SLEEP,
	RUN_ECHO,
};

enum run_wait {
	WAIT_ALL, /* `wait`: until nothing is pending or unread */
	WAIT_EVENTS, /* `wait N events [timeout D]` */
	WAIT_TIME, /* `wait D` */
};

/* How a command names a task. */
enum run_ref {
	REF_ID, /* a literal id */
	REF_NTH, /* $N: the id of this run's Nth schedule */
	REF_LAST, /* $last: the id of this run's latest schedule */
};

#define RUN_TEXT_MAX 256
/* cancel ID...: the ids of one line (a line has 32 words at most) */
#define RUN_IDS_MAX 31

/**
 * struct run_cmd - one parsed line of the run language
 * @op: what to do
 * @ref: for cancel, reschedule and query: how the task is named
 * @id: with @ref: the id (REF_ID) or N (REF_NTH)
 * @time_ns: schedule/reschedule: the delay, or the deadline with
 *	%DWQ_SCHED_ABS; sleep and `wait D`: the duration
 * @now: schedule/reschedule: 1 if the time was written now, now+D or
 *	now-D: the deadline is the clock's time plus @now_off at execution
 * @now_off: see @now
 * @period_ns: the period of every/rate (0: one-shot)
 * @mode: DWQ_MODE_*
 * @flags: DWQ_SCHED_ABS, DWQ_SCHED_BOOTTIME, DWQ_RESCHED_PERIOD,
 *	DWQ_RESCHED_MONOTONIC
 * @cookie: schedule: the cookie
 * @wait: for RUN_WAIT, which kind
 * @count: `wait N events`: N
 * @timeout_ns: `wait N events timeout D`: D, 0 for none
 * @text: echo: its words, one blank between each (allocated: see
 *	run_cmd_free()); NULL for the other commands
 * @nids: cancel: how many ids the line names (@ref and @id: the first)
 * @refs: cancel: how each is named
 * @ids: cancel: each id, or N
 */
struct run_cmd {
	enum run_op op;
	enum run_ref ref;
	__u64 id;
	__u64 time_ns;
	int now;
	__s64 now_off;
	__u64 period_ns;
	__u32 mode;
	__u32 flags;
	__u64 cookie;
	enum run_wait wait;
	__u64 count;
	__u64 timeout_ns;
	char *text;
	int nids;
	enum run_ref refs[RUN_IDS_MAX];
	__u64 ids[RUN_IDS_MAX];
};

int run_parse_line(const char *line, struct run_cmd *cmd, char *err,
		   size_t errlen);
void run_cmd_free(struct run_cmd *cmd);
int run_parse_args(int argc, char **argv, struct run_cmd *cmd, char *err,
		   size_t errlen);
const char *mode_name(__u32 mode);

/* run.c */
struct run_task {
	__u64 id;
	__u32 mode;
};

/**
 * struct run_state - one run: its open file and what it scheduled
 * @fd: the device file, O_NONBLOCK; -1 before run_open()
 * @file: the script's name for messages, or NULL for a one-off command
 * @keep_going: -k: go on after a command fails
 * @echo: -x: print each command before its result
 * @check_only: -n: parse only
 * @tasks: the ids this run scheduled, in order, for $N and $last
 * @ntasks: entries used in @tasks
 * @cap: entries allocated in @tasks
 */
struct run_state {
	int fd;
	const char *file;
	int keep_going;
	int echo;
	int check_only;
	struct run_task *tasks;
	size_t ntasks;
	size_t cap;
};

int run_open(struct run_state *st);
void run_close(struct run_state *st);
int run_exec(struct run_state *st, const struct run_cmd *cmd, const char *text);
int run_cancel_ids(struct run_state *st, const __u64 *ids, size_t n);
const char *schedule_cause(int fd, int err, const struct dwq_ioc_schedule *s,
			   char *buf, size_t len);
const char *enospc_text(const struct dwq_ioc_stats *st,
			const struct dwq_ioc_schedule *s, char *buf,
			size_t len);

/* device.c */
enum dwq_op {
	OP_OPEN,
	OP_SCHEDULE,
	OP_CANCEL,
	OP_RESCHEDULE,
	OP_QUERY,
	OP_STATS,
	OP_READ,
	OP_BATCH,
};

int dev_open(int nonblock);
int dev_schedule(int fd, struct dwq_ioc_schedule *s);
int dev_cancel(int fd, struct dwq_ioc_cancel *c);
int dev_cancel_batch(int fd, struct dwq_ioc_cancel *c, __u32 n);
int dev_reschedule(int fd, struct dwq_ioc_reschedule *r);
int dev_query(int fd, struct dwq_ioc_query *q);
int dev_stats(int fd, struct dwq_ioc_stats *st);
int dev_read_events(int fd, struct dwq_event *ev, size_t max);
const char *errno_name(int err, char *buf, size_t len);
const char *err_cause(enum dwq_op op, int err);
const char *denied_cause(char *buf, size_t len);
void errorf(int err, const char *cause, const char *fmt, ...) __printf(3, 4);
void report_write_error(void);
void json_error(const char *what, int err, const char *cause);
int read_param(const char *name, char *buf, size_t len);
int param_u64(const char *name, __u64 *v);
void print_event(const struct dwq_event *ev);
const char *event_flags(__u32 flags);
int dev_wait_events(int fd, struct dwq_event *ev, size_t max, __s64 timeout_ns);
const char *state_name(__u32 state);
void print_query(const struct dwq_ioc_query *q);
__u64 clock_now(__u32 flags);
void stop_signals(sigset_t *set);
int signal_fd(void);

/* stats.c */
void print_stats_line(const struct dwq_ioc_stats *st);
void json_stats_fields(const struct dwq_ioc_stats *st);
int cmd_stats(int argc, char **argv);
int cmd_watch(int argc, char **argv);

/* every.c */
int cmd_after(int argc, char **argv);
int cmd_every(int argc, char **argv);

/* run.c, demo.c, bench.c */
int cmd_run(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* main.c: help texts and option helpers shared by the commands */
int help_for(const char *cmd, FILE *f);
int usage_error(const char *cmd, const char *fmt, ...) __printf(2, 3);
int common_opt(const char *cmd, char **argv, int *i);
int opt_value(char **argv, int *i, const char *name, const char **val);
int is_option(const char *a);
int exit_status(int status);
void rmdir_on_signal(const char *dir);

/* json.c */
void json_begin(const char *type);
void json_end(void);
void json_key(const char *key);
void json_u64(const char *key, __u64 v);
void json_s64(const char *key, __s64 v);
void json_id(const char *key, __u64 v);
void json_ns(const char *key, __u64 v);
void json_sns(const char *key, __s64 v);
void json_output(FILE *f);
void json_usage_error(const char *cmd, const char *what);
void json_str(const char *key, const char *s);
void json_bool(const char *key, int v);
void json_double(const char *key, double v);
void json_array_begin(const char *key);
void json_array_str(const char *s);
void json_array_end(void);
void json_object_begin(const char *key);
void json_object_end(void);

/* out.c */
void out_failed(int err);
int out_error(void);
int out_flush(void);
int out_cutting(void);
void out_stop_fd(int fd);
void out_stopping(void);
int out_write(const char *buf, size_t len);

#endif /* DWQCTL_H */
