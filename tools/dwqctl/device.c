// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq for dwqctl: open, the ioctls, events, and errors that name the
 * errno and say what it means here.
 *
 * The dev_*() calls return 0 (or a count) or a negative errno and print
 * nothing: the caller knows what the user asked for and says it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include "dwqctl.h"

/* The gid of group @name in /etc/group, or -1. */
static long group_gid(const char *name)
{
	char line[512], *gid;
	size_t len = strlen(name);
	long ret = -1;
	FILE *f;

	f = fopen("/etc/group", "re");
	if (!f)
		return -1;
	while (ret < 0 && fgets(line, sizeof(line), f)) {
		/* name:password:gid:members */
		if (strncmp(line, name, len) || line[len] != ':')
			continue;
		gid = strchr(line + len + 1, ':');
		if (gid)
			ret = strtol(gid + 1, NULL, 10);
	}
	fclose(f);
	return ret;
}

/*
 * EACCES from open(): who may open the device, and how to be one of them.
 * packaging/60-dwq.rules gives it to group dwq, mode 0660; without the
 * rule it has dwq.ko's mode parameter, 0600 by default: root only.
 */
const char *denied_cause(char *buf, size_t len)
{
	long gid = group_gid(DWQ_GROUP);
	char what[96] = "";
	struct stat sb;
	int ours = 0;

	if (!stat(opt.dev, &sb)) {
		ours = gid >= 0 && sb.st_gid == (gid_t)gid;
		snprintf(what, sizeof(what),
			 "%s is mode %04o, uid %u, gid %u%s; ", opt.dev,
			 sb.st_mode & 07777, sb.st_uid, sb.st_gid,
			 ours ? " (group " DWQ_GROUP ")" : "");
	}
	if (ours)
		snprintf(buf, len,
			 "permission denied: %sits users are the members of group \"%s\": sudo usermod -aG %s $USER, then log in again",
			 what, DWQ_GROUP, DWQ_GROUP);
	else
		snprintf(buf, len,
			 "permission denied: %smembers of group \"%s\" may use it once the udev rule 60-dwq.rules is installed (by the dwq-dkms package or sudo make install-user, which create the group; then sudo usermod -aG %s $USER and log in again), or load dwq.ko with mode=0666 for everyone",
			 what, DWQ_GROUP, DWQ_GROUP);
	return buf;
}

/**
 * dev_open() - open the device, saying why not on failure
 * @nonblock: open it O_NONBLOCK
 *
 * Return: the file descriptor, or -1 after printing the error, with errno
 * still open()'s.
 */
int dev_open(int nonblock)
{
	char buf[512];
	int fd, err;

	fd = open(opt.dev, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
	if (fd >= 0)
		return fd;
	err = errno;
	if (err == EACCES || err == EPERM)
		errorf(err, denied_cause(buf, sizeof(buf)), "%s", opt.dev);
	else
		errorf(err, err_cause(OP_OPEN, err), "%s", opt.dev);
	errno = err;
	return -1;
}

static int dev_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

int dev_schedule(int fd, struct dwq_ioc_schedule *s)
{
	return dev_ioctl(fd, DWQ_IOC_SCHEDULE, s);
}

int dev_cancel(int fd, struct dwq_ioc_cancel *c)
{
	return dev_ioctl(fd, DWQ_IOC_CANCEL, c);
}

int dev_cancel_batch(int fd, struct dwq_ioc_cancel *c, __u32 n)
{
	struct dwq_ioc_cancel_batch b = {
		.entries = (__u64)(unsigned long)c,
		.count = n,
	};

	return dev_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b);
}

int dev_reschedule(int fd, struct dwq_ioc_reschedule *r)
{
	return dev_ioctl(fd, DWQ_IOC_RESCHEDULE, r);
}

int dev_query(int fd, struct dwq_ioc_query *q)
{
	return dev_ioctl(fd, DWQ_IOC_QUERY, q);
}

int dev_stats(int fd, struct dwq_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	return dev_ioctl(fd, DWQ_IOC_STATS, st);
}

/**
 * dev_read_events() - read() whatever events are ready, up to @max
 * @fd: the device file
 * @ev: where
 * @max: room in @ev, at least 1
 *
 * Blocks unless @fd is O_NONBLOCK.
 *
 * Return: events read, or a negative errno (-EAGAIN: none ready; -EIO: the
 * device returned a partial record).
 */
int dev_read_events(int fd, struct dwq_event *ev, size_t max)
{
	ssize_t n = read(fd, ev, max * sizeof(*ev));

	if (n < 0)
		return -errno;
	if (n % sizeof(*ev))
		return -EIO;
	return n / sizeof(*ev);
}

/**
 * dev_wait_events() - wait for events and read those ready, up to @max
 * @fd: the device file, O_NONBLOCK
 * @ev: where
 * @max: room in @ev, at least 1
 * @timeout_ns: how long to wait at most; negative: for ever
 *
 * Return: events read (at least 1), 0 if none came in time, or a negative
 * errno.
 */
int dev_wait_events(int fd, struct dwq_event *ev, size_t max, __s64 timeout_ns)
{
	__u64 end = clock_now(0) + (timeout_ns > 0 ? timeout_ns : 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n, ms;

	for (;;) {
		n = dev_read_events(fd, ev, max);
		if (n != -EAGAIN)
			return n;
		ms = -1;
		if (timeout_ns >= 0) {
			__u64 now = clock_now(0);

			if (now >= end)
				return 0;
			/* Past 24 days, the loop waits on for what is left. */
			ms = poll_ms(end - now);
		}
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0 && !(pfd.revents & POLLIN))
			return -EIO; /* POLLERR, POLLHUP, POLLNVAL */
	}
}

/**
 * errno_name() - the symbolic name of an errno, e.g. "ENOENT"
 * @err: the errno, positive
 * @buf: room for a fallback name
 * @len: its size
 *
 * Return: the name.
 */
const char *errno_name(int err, char *buf, size_t len)
{
#ifdef __GLIBC__
	const char *name = strerrorname_np(err);

	if (name)
		return name;
#endif
	snprintf(buf, len, "errno %d", err);
	return buf;
}

/**
 * err_cause() - what an errno means for one kind of request to dwq
 * @op: the request
 * @err: the errno, positive
 *
 * Return: a short explanation for a person.
 */
const char *err_cause(enum dwq_op op, int err)
{
	switch (err) {
	case ENOENT:
		if (op == OP_OPEN)
			return "no such device: is dwq.ko loaded?";
		return "no such task in this file";
	case EACCES:
	case EPERM:
		if (op == OP_OPEN)
			return "permission denied: not in group dwq?";
		return "permission denied";
	case ENXIO:
	case ENODEV:
		return "the device is gone (dwq.ko unloaded?)";
	case ENOTTY:
		return "the device does not know this request (not dwq?)";
	case EINVAL:
		if (op == OP_SCHEDULE || op == OP_RESCHEDULE)
			return "out of range: period, delay or deadline";
		if (op == OP_READ)
			return "the buffer is smaller than one event";
		return "invalid argument";
	case ENOSPC:
		return "too many pending tasks: a per-file or global limit";
	case EMFILE:
		if (op == OP_OPEN)
			/* Either limit may be the one. */
			return "too many files open: RLIMIT_NOFILE or max_files_per_user";
		break;
	case ENOMEM:
		return "out of memory";
	case EFAULT:
		return "bad address";
	case EINTR:
		return "interrupted";
	case EAGAIN:
		return "nothing ready yet";
	case ESHUTDOWN:
		return "the queue is shutting down";
	case EIO:
		if (op == OP_READ)
			return "read() returned part of an event";
		break;
	}
	return strerror(err);
}

/**
 * errorf() - print "dwqctl: WHAT: ENAME: CAUSE" on stderr
 * @err: the errno, positive; 0 for an error that has none
 * @cause: what it means; NULL for strerror()'s text
 * @fmt: what failed, printf-style
 *
 * With --json, the same goes to stdout as an "error" object.
 */
void errorf(int err, const char *cause, const char *fmt, ...)
{
	char what[512], nb[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!cause && err)
		cause = strerror(err);
	if (err)
		fprintf(stderr, "dwqctl: %s: %s: %s\n", what,
			errno_name(err, nb, sizeof(nb)), cause);
	else
		fprintf(stderr, "dwqctl: %s%s%s\n", what, cause ? ": " : "",
			cause ? cause : "");
	if (opt.json) {
		json_begin("error");
		json_str("what", what);
		if (err) {
			json_str("errno", errno_name(err, nb, sizeof(nb)));
			json_s64("errno_value", err);
		}
		if (cause)
			json_str("cause", cause);
		json_end();
	}
}

/**
 * report_write_error() - "dwqctl: write error: ERRNO: CAUSE", once
 *
 * On stderr only: stdout is what failed.
 */
void report_write_error(void)
{
	static int said;
	char nb[32];
	int err = out_error();

	if (!err || said)
		return;
	said = 1;
	fprintf(stderr, "dwqctl: write error: %s: %s\n",
		errno_name(err, nb, sizeof(nb)), strerror(err));
}

/**
 * read_param() - read one of dwq.ko's module parameters
 * @name: the parameter
 * @buf: its value, without the newline
 * @len: size of @buf
 *
 * Return: 0, or -1 if dwq is not loaded or has no such parameter.
 */
int read_param(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "%s/%s", DWQ_PARAMS, name);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}

int param_u64(const char *name, __u64 *v)
{
	char buf[64];

	if (read_param(name, buf, sizeof(buf)))
		return -1;
	return parse_u64(buf, v);
}

/**
 * event_flags() - an event's flags for people
 * @flags: DWQ_EVENT_*
 *
 * Return: "last", "coalesced", "last,coalesced" or "-" for none.
 */
const char *event_flags(__u32 flags)
{
	static const char *const names[] = {
		"-",
		"last",
		"coalesced",
		"last,coalesced",
	};

	return names[flags & (DWQ_EVENT_LAST | DWQ_EVENT_COALESCED)];
}

/**
 * print_event() - one event, as a line of text or a JSON object
 * @ev: the event
 *
 * lateness = fired - deadline: how long after its deadline the read()
 * that fired the task began; negative would mean early. skipped: the fixed-rate
 * periods that passed without a firing (a /dev/dwq task's are all in
 * &dwq_event.skipped, its &dwq_event.overruns is 0: the two are added,
 * as the kernel's tasks count them in overruns); folded: firings folded
 * into the event while it was unread.
 */
void print_event(const struct dwq_event *ev)
{
	__s64 late = (__s64)(ev->fired_ns - ev->deadline_ns);
	char dl[32], lt[32];

	if (opt.json) {
		json_begin("event");
		json_id("id", ev->id);
		json_id("cookie", ev->cookie);
		json_ns("deadline_ns", ev->deadline_ns);
		json_ns("fired_ns", ev->fired_ns);
		json_sns("lateness_ns", late);
		json_u64("overruns", ev->overruns);
		json_u64("skipped", ev->skipped);
		json_u64("folded", ev->folded);
		json_u64("worker", ev->worker);
		json_array_begin("flags");
		if (ev->flags & DWQ_EVENT_LAST)
			json_array_str("last");
		if (ev->flags & DWQ_EVENT_COALESCED)
			json_array_str("coalesced");
		json_array_end();
		json_end();
		return;
	}
	fmt_duration(lt, sizeof(lt), late);
	printf("event id %llu cookie %llu deadline %s", ev->id, ev->cookie,
	       fmt_clock(dl, sizeof(dl), ev->deadline_ns));
	printf(" lateness %s%s skipped %llu folded %llu worker %u flags %s\n",
	       late >= 0 ? "+" : "", lt, ev->overruns + ev->skipped, ev->folded,
	       ev->worker, event_flags(ev->flags));
	out_flush();
}

/**
 * state_name() - a task state for people
 * @state: DWQ_STATE_*
 *
 * Return: "queued", "running", "idle", "parked" or "unknown".
 */
const char *state_name(__u32 state)
{
	switch (state) {
	case DWQ_STATE_QUEUED:
		return "queued";
	case DWQ_STATE_RUNNING:
		return "running";
	case DWQ_STATE_IDLE:
		return "idle";
	case DWQ_STATE_PARKED:
		return "parked";
	}
	return "unknown";
}

/**
 * print_query() - a QUERY answer, as a line of text or a JSON object
 * @q: the answer
 */
void print_query(const struct dwq_ioc_query *q)
{
	const char *clock = q->flags & DWQ_SCHED_BOOTTIME ? "boottime" :
							    "monotonic";
	char rem[32], dl[32], per[32];

	if (opt.json) {
		json_begin("query");
		json_id("id", q->id);
		json_str("state", state_name(q->state));
		json_str("mode", mode_name(q->mode));
		json_ns("remaining_ns", q->remaining_ns);
		json_ns("deadline_ns", q->deadline_ns);
		json_ns("period_ns", q->period_ns);
		json_id("cookie", q->cookie);
		json_u64("runs", q->runs);
		json_u64("overruns", q->overruns);
		json_u64("skipped", q->skipped);
		json_u64("folded", q->folded);
		json_str("clock", clock);
		json_end();
		return;
	}
	printf("query %llu: state %s mode %s remaining %s deadline %s", q->id,
	       state_name(q->state), mode_name(q->mode),
	       fmt_duration_u(rem, sizeof(rem), q->remaining_ns),
	       fmt_clock(dl, sizeof(dl), q->deadline_ns));
	printf(" period %s cookie %llu runs %llu skipped %llu folded %llu clock %s\n",
	       fmt_duration_u(per, sizeof(per), q->period_ns), q->cookie,
	       q->runs, q->overruns + q->skipped, q->folded, clock);
	out_flush();
}

/**
 * clock_now() - the time on a task's clock
 * @flags: %DWQ_SCHED_BOOTTIME for CLOCK_BOOTTIME, else CLOCK_MONOTONIC
 *
 * Return: ns.
 */
__u64 clock_now(__u32 flags)
{
	struct timespec ts;

	clock_gettime(flags & DWQ_SCHED_BOOTTIME ? CLOCK_BOOTTIME :
						   CLOCK_MONOTONIC,
		      &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/**
 * stop_signals() - the signals that end a loop cleanly
 * @set: out: SIGINT and SIGTERM, but not one ignored
 *
 * A signal dwqctl was started with ignored stays ignored (main() leaves
 * it so, as a shell leaves SIGINT ignored for a command started with &):
 * blocked to be read from a signalfd, it would arrive all the same, so it
 * is left out.
 */
void stop_signals(sigset_t *set)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction old;
	size_t i;

	sigemptyset(set);
	for (i = 0; i < ARRAY_SIZE(sigs); i++)
		if (sigaction(sigs[i], NULL, &old) || old.sa_handler != SIG_IGN)
			sigaddset(set, sigs[i]);
}

/**
 * signal_fd() - take SIGINT and SIGTERM as a readable file instead
 *
 * So a loop that poll()s can end cleanly when the user presses ^C. A
 * signal ignored stays ignored (see stop_signals()).
 *
 * Return: the signalfd, or -1.
 */
int signal_fd(void)
{
	sigset_t set;

	stop_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}
