// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl demo: how /dev/dwq keeps and fires a file's tasks, explained for
 * a newcomer and checked step by step:
 *
 *   1. idle workers (any number from 2): none awake, at most one the
 *      leader; a lone alarm runs in the timer and wakes no worker
 *   2. the file keeps its tasks in its own heap: the shared queue holds
 *      one alarm per clock for it, not its tasks
 *   3. a task comes due: the alarm (quick, in the timer's hard irq; on
 *      PREEMPT_RT in the timer softirq's thread) only wakes the reader, and
 *      the task fires inside the reader's read(), not before
 *   4. a thousand tasks due at once: one alarm, one read, no worker
 *      woken per event
 *   5. cancel and query: a queued task is removed; a periodic task due
 *      and unread is parked, and a cancel keeps that firing's event, its
 *      last, and says so (unread); a due one-shot's id is gone (its event
 *      waits)
 *   6. close cancels the rest, and takes the alarm out of the queue,
 *      waking no worker
 *
 * Every claim printed is checked; the exit status is 1 if one fails, so a
 * test can rely on the demo. What it checks comes from STATS (the file's
 * pending, fired, events; the queue's size, wakeups and callbacks run),
 * the file's fdinfo, the queue's heap in debugfs and dwq's trace events in
 * a tracefs instance of the demo's own. The last two need root and the
 * file systems mounted; without them those checks are skipped, and the
 * demo says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "dwqctl.h"

/* One worker is always the leader: there is no one else to not wake. */
#define DEMO_MIN_WORKERS 2
#define FAR_AHEAD (60 * NSEC_PER_SEC)
#define HEAP_TASKS 40
#define BURST 1000
#define EVENT_TIMEOUT (10 * NSEC_PER_SEC)
#define TRACE_MAX (1024 * 1024)

struct demo {
	int fd; /* the demo's file: its tasks */
	int obs; /* another file, to watch the queue */
	int step;
	int checks;
	int failed;
	int skipped; /* checks not made: no debugfs or tracefs */
	char trace[160]; /* the demo's tracefs instance, or "" */
	char *buf; /* TRACE_MAX bytes, for the trace and the heap dump */
};

static void __printf(1, 2) say(const char *fmt, ...)
{
	va_list ap;

	if (opt.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	out_flush();
}

static void __printf(4, 5)
	check(struct demo *d, int ok, const char *name, const char *fmt, ...)
{
	char detail[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	d->checks++;
	if (!ok)
		d->failed++;
	if (opt.json) {
		json_begin("check");
		json_u64("step", d->step);
		json_str("name", name);
		json_bool("ok", ok);
		json_str("detail", detail);
		json_end();
		return;
	}
	printf("   %s %s\n", ok ? "[ok]" : "[FAILED]", detail);
	out_flush();
}

static void step(struct demo *d, const char *title)
{
	d->step++;
	if (opt.json) {
		json_begin("step");
		json_u64("step", d->step);
		json_str("title", title);
		json_end();
		return;
	}
	printf("\n%d. %s\n", d->step, title);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * NSEC_PER_MSEC,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int demo_stats(struct demo *d, int fd, struct dwq_ioc_stats *st)
{
	int err = dev_stats(fd, st);

	if (err)
		errorf(-err, err_cause(OP_STATS, -err), "demo: step %d: stats",
		       d->step);
	return err;
}

static int demo_schedule(struct demo *d, __u64 delay, __u64 cookie, __u64 *id)
{
	struct dwq_ioc_schedule s = { .time_ns = delay, .cookie = cookie };
	int err = dev_schedule(d->fd, &s);

	if (err) {
		errorf(-err, err_cause(OP_SCHEDULE, -err),
		       "demo: step %d: schedule", d->step);
		return err;
	}
	*id = s.id;
	return 0;
}

static char *dur(char *buf, size_t len, __s64 ns)
{
	return fmt_duration(buf, len, ns);
}

/* Is the running kernel PREEMPT_RT? Its version string says so. */
static int preempt_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/*
 * Wait until the workers are quiet, up to EVENT_TIMEOUT: two STATS 20 ms
 * apart count the same wakeups and callback runs. Leave the last in @st.
 */
static int settle(struct demo *d, struct dwq_ioc_stats *st)
{
	__u64 t0 = clock_now(0);
	struct dwq_ioc_stats prev;

	if (demo_stats(d, d->obs, &prev))
		return -1;
	for (;;) {
		sleep_ms(20);
		if (demo_stats(d, d->obs, st))
			return -1;
		if ((st->wakeups == prev.wakeups &&
		     st->tasks_run == prev.tasks_run) ||
		    clock_now(0) - t0 > EVENT_TIMEOUT)
			return 0;
		prev = *st;
	}
}

/* The workers parameter, or -1 if it cannot be read. */
static long long workers_param(void)
{
	__u64 v;

	return param_u64("workers", &v) ? -1 : (long long)v;
}

/* Read the file @path into @d->buf; its length, or -1. */
static ssize_t slurp(struct demo *d, const char *path)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (len < TRACE_MAX - 1) {
		n = read(fd, d->buf + len, TRACE_MAX - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	d->buf[len] = 0;
	return len;
}

static int put_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

/*
 * SIGINT and SIGTERM held back while a file of the demo's tracefs instance
 * is open: tracefs refuses to remove an instance in use (EBUSY), so the
 * handler's rmdir() (rmdir_on_signal()) must come between such opens.
 */
static void trace_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void trace_unhold(const sigset_t *old)
{
	sigprocmask(SIG_SETMASK, old, NULL);
}

static int trace_set(struct demo *d, const char *file, const char *val)
{
	char path[256];
	sigset_t old;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", d->trace, file);
	trace_hold(&old);
	ret = put_file(path, val);
	trace_unhold(&old);
	return ret;
}

/*
 * A tracefs instance of the demo's own, with dwq_fire (a callback the
 * timer runs: the alarm) and dwq_dev_event (a firing made into an event)
 * on: the demo's tracing leaves everyone else's alone. "" if there is
 * none (not root, no tracefs).
 */
static void trace_open(struct demo *d)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char dir[sizeof(d->trace)];
	unsigned int i;

	d->trace[0] = 0;
	for (i = 0; i < ARRAY_SIZE(roots); i++) {
		snprintf(dir, sizeof(dir), "%s/instances/dwqctl-demo-%d",
			 roots[i], (int)getpid());
		/*
		 * Interrupted, the demo takes its instance away with it: set
		 * before the instance exists, so that no signal comes
		 * between (removing one not made yet does nothing).
		 */
		rmdir_on_signal(dir);
		if (!mkdir(dir, 0700))
			break;
	}
	if (i == ARRAY_SIZE(roots)) {
		rmdir_on_signal(NULL);
		return;
	}
	memcpy(d->trace, dir, sizeof(dir));
	rmdir_on_signal(d->trace);
	if (trace_set(d, "buffer_size_kb", "512") ||
	    trace_set(d, "events/dwq/dwq_fire/enable", "1") ||
	    trace_set(d, "events/dwq/dwq_dev_event/enable", "1")) {
		rmdir(d->trace);
		rmdir_on_signal(NULL);
		d->trace[0] = 0;
	}
}

static void trace_close(struct demo *d)
{
	if (!d->trace[0])
		return;
	trace_set(d, "events/dwq/dwq_fire/enable", "0");
	trace_set(d, "events/dwq/dwq_dev_event/enable", "0");
	rmdir_on_signal(NULL);
	rmdir(d->trace);
	d->trace[0] = 0;
}

static void trace_clear(struct demo *d)
{
	if (d->trace[0])
		trace_set(d, "trace", "");
}

/* The trace so far in @d->buf: 0, or -1 if there is no trace. */
static int trace_get(struct demo *d)
{
	char path[256];
	sigset_t old;
	ssize_t n;

	if (!d->trace[0])
		return -1;
	snprintf(path, sizeof(path), "%s/trace", d->trace);
	trace_hold(&old);
	n = slurp(d, path);
	trace_unhold(&old);
	return n < 0 ? -1 : 0;
}

/*
 * A trace line: "COMM-PID [CPU] FLAGS TIME: EVENT: ...". Its thread's
 * name into @comm, its pid, and its flags (irqs-off, need-resched,
 * hardirq/softirq, ...) into @flags. 0, or -1 if it is not one.
 */
static int trace_who(const char *line, char *comm, size_t len, int *pid,
		     char *flags, size_t flen)
{
	const char *cpu = strstr(line, " ["), *dash, *p;
	size_t n;

	while (*line == ' ')
		line++;
	if (!cpu || cpu <= line)
		return -1;
	for (dash = cpu - 1; dash > line && *dash != '-'; dash--)
		;
	if (*dash != '-')
		return -1;
	n = (size_t)(dash - line) < len - 1 ? (size_t)(dash - line) : len - 1;
	memcpy(comm, line, n);
	comm[n] = 0;
	*pid = atoi(dash + 1);
	p = strchr(cpu, ']');
	if (!p)
		return -1;
	p++;
	while (*p == ' ')
		p++;
	for (n = 0; n < flen - 1 && p[n] && p[n] != ' '; n++)
		flags[n] = p[n];
	flags[n] = 0;
	return 0;
}

/* Count the lines of @d->buf with @what in them; the last one's start. */
static unsigned int trace_count(struct demo *d, const char *what,
				const char **last)
{
	const char *p = d->buf, *hit;
	unsigned int n = 0;

	*last = NULL;
	while ((hit = strstr(p, what))) {
		const char *bol = hit;

		while (bol > d->buf && bol[-1] != '\n')
			bol--;
		*last = bol;
		n++;
		p = hit + strlen(what);
	}
	return n;
}

/* A check the demo could not make: said, and counted apart. */
static void skip(struct demo *d, const char *what)
{
	d->skipped++;
	say("   [skipped] %s\n", what);
}

static int intro(struct demo *d, struct dwq_ioc_stats *st)
{
	long long w = workers_param();
	struct stat sb;

	say("dwqctl demo: how %s keeps and fires a file's tasks\n\n", opt.dev);
	say("dwq's engine keeps timed tasks in one heap, the shared queue, and\n"
	    "runs them on a pool of worker threads. Of the idle workers at most\n"
	    "one, the leader, sleeps with a timeout: until the first deadline.\n"
	    "An open file of %s does not put its tasks there. It keeps them\n"
	    "in heaps of its own, one per clock, and puts one engine task per\n"
	    "clock in the shared queue: its alarm, at its earliest deadline.\n"
	    "The alarm is quick: the leader's timer runs it in its hard\n"
	    "interrupt, and all it does is wake the file's readers. The reader's\n"
	    "read() then fires the due tasks itself, in its own process, and\n"
	    "returns their events. No worker runs anything for a task.\n\n",
	    opt.dev);
	if (preempt_rt())
		say("This kernel is PREEMPT_RT: a timer that may take sleeping\n"
		    "locks runs in a thread, so the alarm runs in the timer\n"
		    "softirq's thread, ktimers/N (ksoftirqd/N on older kernels).\n"
		    "That thread is the kernel's, not a dwq worker: STATS does not\n"
		    "count its wakeups.\n\n");
	if (!stat(opt.dev, &sb))
		say("%s is character device %u:%u; ", opt.dev,
		    major(sb.st_rdev), minor(sb.st_rdev));
	if (demo_stats(d, d->obs, st))
		return -1;
	if (w >= 0 && w < DEMO_MIN_WORKERS) {
		say("\n");
		errorf(0, NULL,
		       "demo: dwq.ko has workers=%lld; the demo needs at least %d, so that one can lead while another does not wake: rmmod dwq; insmod dwq.ko workers=%d",
		       w, DEMO_MIN_WORKERS, DEMO_MIN_WORKERS);
		return -1;
	}
	if (st->workers < DEMO_MIN_WORKERS) {
		say("\n");
		errorf(0, NULL,
		       "demo: the queue has %u workers; the demo needs at least %d: load dwq.ko with workers=%d or more",
		       st->workers, DEMO_MIN_WORKERS, DEMO_MIN_WORKERS);
		return -1;
	}
	say("dwq.ko runs %u workers (workers=%u).\n", st->workers, st->workers);
	say("Each [ok] below is a claim the demo checked; a [FAILED] one makes\n"
	    "it exit with status 1.\n");
	if (!d->trace[0])
		say("No tracefs instance could be made (root and tracefs are\n"
		    "needed): the checks of who fired what are skipped.\n");
	return 0;
}

/*
 * "   LABEL                 VALUE   NOTE": the lines of the demo's tables.
 * Notes start at column 37 and stay short; more() continues one.
 */
static void __printf(3, 4)
	row(const char *label, const char *note, const char *fmt, ...)
{
	char val[64];
	va_list ap;

	if (opt.json)
		return;
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (note && *note)
		printf("   %-20s %10s   %s\n", label, val, note);
	else
		printf("   %-20s %10s\n", label, val);
}

static void more(const char *note)
{
	say("   %-20s %10s   %s\n", "", "", note);
}

/*
 * A task due in 50 ms, alone, from the observer's file: the leader's timer
 * runs its alarm (a task due at once would not do: it wakes the file's
 * readers from the ioctl, with no alarm), and with nothing left queued the
 * leader sleeps on, untimed. Without a leader, one follower wakes to lead.
 * Leaves the STATS after it in @st and the wakeups it cost in @woke.
 */
static int lone_alarm(struct demo *d, struct dwq_ioc_stats *st,
		      unsigned long long *woke)
{
	struct dwq_ioc_schedule s = { .time_ns = 50 * NSEC_PER_MSEC,
				      .cookie = 999 };
	struct dwq_ioc_stats s1;
	struct dwq_event ev;
	int n, err;

	err = dev_schedule(d->obs, &s);
	if (err) {
		errorf(-err, err_cause(OP_SCHEDULE, -err),
		       "demo: step %d: schedule", d->step);
		return -1;
	}
	n = dev_wait_events(d->obs, &ev, 1, EVENT_TIMEOUT);
	if (n <= 0) {
		errorf(n ? -n : ETIMEDOUT,
		       n ? err_cause(OP_READ, -n) : "no event within 10s",
		       "demo: step %d: read", d->step);
		return -1;
	}
	if (ev.cookie != 999) {
		errorf(0, NULL,
		       "demo: step %d: read an event of cookie %llu, not 999: is another program using this file?",
		       d->step, (unsigned long long)ev.cookie);
		return -1;
	}
	if (settle(d, &s1))
		return -1;
	*woke = s1.wakeups - st->wakeups;
	*st = s1;
	return 0;
}

/* "none", or "worker N". */
static const char *leader_name(char *buf, size_t len, int leader)
{
	if (leader < 0)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "worker %d", leader);
	return buf;
}

/* 1. N idle workers: none awake, at most one the leader. */
static int step_idle(struct demo *d, struct dwq_ioc_stats *st)
{
	unsigned long long first, second;
	struct dwq_ioc_stats st0;
	char title[64], who[32];
	int before;

	snprintf(title, sizeof(title), "%u idle workers, none awake",
		 st->workers);
	step(d, title);
	/*
	 * Like QueueProbe's sleep(200), but until the counts stand still:
	 * let the workers reach their wait, on a slow machine too.
	 */
	if (settle(d, &st0))
		return -1;
	sleep_ms(200);
	if (demo_stats(d, d->obs, st))
		return -1;
	say("   At most one worker leads: with nothing queued it sleeps with\n"
	    "   no timeout, like the others, and the next task arms its timer.\n");
	row("workers", NULL, "%u", st->workers);
	row("leader", st->leader < 0 ? "STATS.leader is -1" : "asleep, untimed",
	    "%s", leader_name(who, sizeof(who), st->leader));
	row("tasks queued", NULL, "%u", st->queue_size);
	row("wakeups so far", "all workers together: STATS has", "%llu",
	    st->wakeups);
	more("totals, not a count per worker");
	row("in 200 ms", "none woke", "+%llu", st->wakeups - st0.wakeups);
	check(d, st->wakeups == st0.wakeups, "idle_quiet",
	      "%u workers wait for work, and none woke in 200 ms", st->workers);
	if (st->queue_size)
		check(d, 0, "idle_queue_empty",
		      "the queue is not idle: %u tasks of someone else, and the counts below assume nobody else uses dwq",
		      st->queue_size);
	else
		check(d, 1, "idle_queue_empty",
		      "nothing is queued, so the counts below are ours alone");

	say("\n   A task due in 50 ms, alone, twice (from another file). Its\n"
	    "   alarm moves the leader's timer, which runs it in its hard\n"
	    "   interrupt; then nothing is left and the leader sleeps on. Only\n"
	    "   without a leader does one worker wake, once, to lead:\n");
	before = st->leader;
	if (lone_alarm(d, st, &first) || lone_alarm(d, st, &second))
		return -1;
	row("1st: wakeups", before < 0 ? "a follower, to lead" : "none",
	    "+%llu", first);
	row("2nd: wakeups", "none", "+%llu", second);
	row("leader now", "asleep, untimed", "%s",
	    leader_name(who, sizeof(who), st->leader));
	check(d,
	      first == (before < 0 ? 1ULL : 0ULL) && !second &&
		      st->leader >= 0 && !st->queue_size,
	      "lone_alarm_no_wakeup",
	      "a lone alarm ran in the timer and woke no worker (%llu, then %llu wakeups), and the leader stays",
	      first, second);
	return 0;
}

/* A "NAME: VALUE" line of the demo file's fdinfo, or -1. */
static long long fdinfo_field(struct demo *d, const char *name)
{
	char path[64];
	const char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", d->fd);
	if (slurp(d, path) < 0)
		return -1;
	p = strstr(d->buf, name);
	if (!p)
		return -1;
	return strtoll(p + strlen(name), NULL, 10);
}

/*
 * 2. The file's own heap: HEAP_TASKS tasks 60 s ahead, one at a time. The
 * shared queue gets one alarm for them, whatever their number; a task on
 * the other clock (CLOCK_BOOTTIME) adds the other alarm.
 */
static int step_heap(struct demo *d, unsigned int *base, __u64 *first)
{
	struct dwq_ioc_stats st, so;
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_ioc_schedule s = { .time_ns = FAR_AHEAD,
				      .flags = DWQ_SCHED_BOOTTIME };
	unsigned int i, most = 0, fewest = ~0U, with_boot;
	long long pending, next;
	char note[80], what[128];
	const char *line;
	__u64 id;
	int err;

	step(d, "The file keeps its tasks in its own heap");
	if (demo_stats(d, d->obs, &so))
		return -1;
	*base = so.queue_size;
	say("   %d tasks 60 s ahead, added one at a time. The file counts them\n"
	    "   (STATS.pending); the shared queue (STATS.queue_size) gets one\n"
	    "   task for all of them: the file's alarm, at the earliest deadline.\n",
	    HEAP_TASKS);
	for (i = 0; i < HEAP_TASKS; i++) {
		if (demo_schedule(d, FAR_AHEAD, 100 + i, &id) ||
		    demo_stats(d, d->obs, &st))
			return -1;
		if (!i)
			*first = id;
		if (st.queue_size > most)
			most = st.queue_size;
		if (st.queue_size < fewest)
			fewest = st.queue_size;
	}
	if (demo_stats(d, d->fd, &st))
		return -1;
	row("the file's tasks", "STATS.pending", "%llu", st.pending);
	snprintf(note, sizeof(note), "%u before, whatever the count", *base);
	row("shared queue", note, "%u .. %u", fewest, most);
	check(d,
	      st.pending == HEAP_TASKS && fewest == *base + 1 &&
		      most == *base + 1,
	      "own_heap",
	      "%llu tasks in the file's heap, and one alarm for them in the shared queue (%u .. %u tasks there, %u before)",
	      st.pending, fewest, most, *base);
	pending = fdinfo_field(d, "dwq-pending:");
	next = fdinfo_field(d, "dwq-next-id:");
	row("fdinfo dwq-pending", NULL, "%lld", pending);
	row("fdinfo dwq-next-id", "the earliest: the first one", "%lld", next);
	check(d, pending == HEAP_TASKS && next == (long long)*first,
	      "fdinfo_own_heap",
	      "the file's fdinfo shows its %lld tasks, the next being id %lld",
	      pending, next);
	if (slurp(d, "/sys/kernel/debug/dwq/heap") < 0) {
		skip(d, "the queue's heap in debugfs (needs root and debugfs)");
	} else {
		snprintf(what, sizeof(what), " pid=%d alarm=monotonic tasks=%d",
			 (int)getpid(), HEAP_TASKS);
		trace_count(d, what, &line);
		say("   debugfs dwq/heap, the shared queue's slots:\n");
		if (line)
			say("   %.*s\n", (int)strcspn(line, "\n"), line);
		check(d, !!line, "debugfs_alarm",
		      "debugfs shows the alarm in the shared queue, owned by this process, for its %d tasks",
		      HEAP_TASKS);
	}
	err = dev_schedule(d->fd, &s);
	if (err) {
		errorf(-err, err_cause(OP_SCHEDULE, -err),
		       "demo: step %d: schedule", d->step);
		return -1;
	}
	if (demo_stats(d, d->obs, &st))
		return -1;
	with_boot = st.queue_size;
	c.id = s.id;
	err = dev_cancel(d->fd, &c);
	if (err) {
		errorf(-err, err_cause(OP_CANCEL, -err), "demo: cancel %llu",
		       c.id);
		return -1;
	}
	if (demo_stats(d, d->obs, &st))
		return -1;
	row("+1 on CLOCK_BOOTTIME", "the other clock's alarm", "%u", with_boot);
	row("cancelled again", "its heap is empty: no alarm", "%u",
	    st.queue_size);
	check(d, with_boot == *base + 2 && st.queue_size == *base + 1,
	      "alarm_per_clock",
	      "one alarm per clock: %u with a task on each, %u again after its cancel",
	      with_boot - *base, st.queue_size - *base);
	return 0;
}

/*
 * 3. A task comes due and nobody reads: nothing fires. Then read(): it
 * fires there, in this process.
 */
static int step_due(struct demo *d)
{
	struct dwq_ioc_stats s0, s1, s2;
	struct pollfd p = { .fd = d->fd, .events = POLLIN };
	char a[32], comm[64], flags[16], what[96];
	const char *line;
	struct dwq_event ev;
	__u64 id, t0, t1;
	int n, pid, rt = preempt_rt(), ok;

	step(d, "A task comes due: the reader's read() fires it");
	if (demo_stats(d, d->fd, &s0))
		return -1;
	trace_clear(d);
	if (demo_schedule(d, 100 * NSEC_PER_MSEC, 1, &id))
		return -1;
	row("schedule 100ms", "the alarm moves to its deadline", "id %llu", id);
	/* Past its deadline, unread: the alarm has woken nobody's read(). */
	sleep_ms(400);
	n = poll(&p, 1, 0);
	if (demo_stats(d, d->fd, &s1))
		return -1;
	row("400ms later", "poll() says POLLIN", "%s",
	    n == 1 && (p.revents & POLLIN) ? "readable" : "not readable");
	row("fired", "STATS.fired: nothing fired yet", "%llu -> %llu", s0.fired,
	    s1.fired);
	row("events", "STATS.events: one due, unread", "%llu", s1.events);
	row("pending", "a due one-shot is still pending", "%llu -> %llu",
	    s0.pending, s1.pending);
	check(d,
	      n == 1 && (p.revents & POLLIN) && s1.fired == s0.fired &&
		      s1.events == 1 && s1.pending == s0.pending + 1,
	      "due_not_fired",
	      "due and unread, the task has not fired: the alarm only woke the file's waiters");
	t0 = clock_now(0);
	n = dev_read_events(d->fd, &ev, 1);
	t1 = clock_now(0);
	if (n != 1) {
		errorf(n < 0 ? -n : EAGAIN,
		       n < 0 ? err_cause(OP_READ, -n) : NULL,
		       "demo: step %d: read", d->step);
		return -1;
	}
	if (opt.json)
		print_event(&ev);
	if (demo_stats(d, d->fd, &s2))
		return -1;
	row("read()", "one event", "id %llu", ev.id);
	row("fired - deadline", "its firing was the read's", "%s",
	    dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	row("event's worker", "none ran it", "%u", ev.worker);
	row("fired", NULL, "%llu -> %llu", s1.fired, s2.fired);
	check(d,
	      ev.id == id && ev.fired_ns >= t0 && ev.fired_ns <= t1 &&
		      ev.worker == 0 && s2.fired == s1.fired + 1 &&
		      !s2.events && s2.pending == s0.pending,
	      "read_fires",
	      "read() fired it: fired_ns falls inside the read() call, %s after the deadline",
	      dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	check(d, ev.fired_ns >= ev.deadline_ns, "not_early",
	      "it was not early: fired - deadline = %s",
	      dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	if (trace_get(d)) {
		skip(d,
		     "who fired it, from the trace (needs root and tracefs)");
		return 0;
	}
	snprintf(what, sizeof(what), "dwq_dev_event: tgid=%d id=%llu ",
		 (int)getpid(), id);
	trace_count(d, what, &line);
	ok = line &&
	     !trace_who(line, comm, sizeof(comm), &pid, flags, sizeof(flags));
	row("trace: event made by", "dwq_dev_event's thread", "pid %d",
	    ok ? pid : -1);
	check(d, ok && pid == (int)getpid(), "fired_by_reader",
	      "the trace shows the firing in this process (pid %d), not in a dwq thread",
	      ok ? pid : -1);
	trace_count(d, "func=dwq_client_alarm ", &line);
	ok = line &&
	     !trace_who(line, comm, sizeof(comm), &pid, flags, sizeof(flags));
	row("trace: alarm ran in", ok ? flags : NULL, "%s", ok ? comm : "?");
	if (rt)
		check(d,
		      ok && (!strncmp(comm, "ktimers/", 8) ||
			     !strncmp(comm, "ksoftirqd/", 10)),
		      "alarm_in_softirq_thread",
		      "PREEMPT_RT: the alarm ran in %s, the timer softirq's thread, not in a dwq worker",
		      ok ? comm : "no trace line");
	else
		check(d,
		      ok && strlen(flags) > 2 &&
			      (flags[2] == 'h' || flags[2] == 'H') &&
			      strncmp(comm, "dwq", 3),
		      "alarm_in_hardirq",
		      "the alarm ran in the timer's hard irq (trace flags %s: 'h'), not in a dwq worker",
		      ok ? flags : "none");
	return 0;
}

/*
 * 4. BURST tasks due at once: one alarm wakes the reader, its read()s
 * fire them all. No worker wakes per event.
 */
static int step_burst(struct demo *d)
{
	static struct dwq_ioc_schedule s[BURST];
	static struct dwq_event ev[BURST + 1];
	struct dwq_ioc_schedule_batch b = { .entries = (uintptr_t)s,
					    .count = BURST };
	struct dwq_ioc_stats s0, s1;
	unsigned int i, got = 0, once = 1, alarms = 0, by_us = 0;
	char what[64];
	const char *line;
	int n;

	step(d, "A thousand tasks due at once: one alarm, one reader");
	for (i = 0; i < BURST; i++)
		s[i] = (struct dwq_ioc_schedule){
			.time_ns = 200 * NSEC_PER_MSEC,
			.cookie = 1000 + i,
		};
	/* The file's counts (fired) and the queue's, from the file. */
	if (demo_stats(d, d->fd, &s0))
		return -1;
	trace_clear(d);
	if (ioctl(d->fd, DWQ_IOC_SCHEDULE_BATCH, &b)) {
		n = errno;
		errorf(n, err_cause(OP_BATCH, n), "demo: step %d: batch",
		       d->step);
		return -1;
	}
	row("schedule a batch", "200 ms ahead, all at one moment", "%d", BURST);
	while (got < BURST) {
		n = dev_wait_events(d->fd, ev + got, BURST + 1 - got,
				    EVENT_TIMEOUT);
		if (n <= 0)
			break;
		got += n;
	}
	/* Anything more would be a task fired twice. */
	n = dev_wait_events(d->fd, ev + got, BURST + 1 - got,
			    50 * NSEC_PER_MSEC);
	if (n > 0)
		got += n;
	if (settle(d, &s1) || demo_stats(d, d->fd, &s1))
		return -1;
	for (i = 0; i < got; i++)
		if (ev[i].cookie - 1000 >= BURST || ev[i].worker ||
		    !(ev[i].flags & DWQ_EVENT_LAST))
			once = 0;
	row("events read", NULL, "%u", got);
	row("fired", "STATS.fired", "+%llu", s1.fired - s0.fired);
	row("callbacks run", "STATS.tasks_run: the alarm", "+%llu",
	    s1.tasks_run - s0.tasks_run);
	row("worker wakeups", "STATS.wakeups: not one per event", "+%llu",
	    s1.wakeups - s0.wakeups);
	check(d, once && got == BURST && s1.fired - s0.fired == BURST,
	      "burst_each_once",
	      "each fired exactly once: %u events for %d tasks", got, BURST);
	check(d,
	      s1.tasks_run - s0.tasks_run <= 2 && s1.wakeups - s0.wakeups <= 4,
	      "burst_no_worker_per_event",
	      "%d events cost the engine %llu callback runs and %llu worker wakeups",
	      BURST, s1.tasks_run - s0.tasks_run, s1.wakeups - s0.wakeups);
	if (trace_get(d)) {
		skip(d,
		     "the alarm's runs, from the trace (needs root and tracefs)");
		return 0;
	}
	alarms = trace_count(d, "func=dwq_client_alarm ", &line);
	snprintf(what, sizeof(what), "dwq_dev_event: tgid=%d ", (int)getpid());
	by_us = trace_count(d, what, &line);
	row("trace: alarm runs", NULL, "%u", alarms);
	row("trace: events made", "all in this process's read()", "%u", by_us);
	check(d, alarms >= 1 && alarms <= 2 && by_us == BURST,
	      "burst_one_alarm",
	      "the trace shows %u run of the alarm for %u firings, all made by this process",
	      alarms, by_us);
	say("   The alarm stays where it is while its head is due and unread:\n"
	    "   a backlog is one task in the shared queue, and costs the other\n"
	    "   files nothing. The reader pays for its own firings.\n");
	return 0;
}

/* Query @id: its state, or -errno. */
static int demo_query(struct demo *d, __u64 id, struct dwq_ioc_query *q)
{
	*q = (struct dwq_ioc_query){ .id = id };
	return dev_query(d->fd, q);
}

/* 5. Cancel and query in this model. */
static int step_cancel(struct demo *d)
{
	struct dwq_ioc_schedule ps = { .mode = DWQ_MODE_FIXED_RATE,
				       .period_ns = 10 * NSEC_PER_MSEC,
				       .time_ns = 10 * NSEC_PER_MSEC,
				       .cookie = 300 };
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_ioc_query q;
	struct dwq_ioc_stats s0, s1;
	struct dwq_event ev[2];
	char nb[32], label[48], a[32];
	__u64 id, oid;
	int err, qerr, n;

	step(d, "Cancel and query");
	/* A task queued: removed at once. */
	if (demo_schedule(d, FAR_AHEAD, 200, &id) || demo_stats(d, d->fd, &s0))
		return -1;
	err = demo_query(d, id, &q);
	snprintf(label, sizeof(label), "query %llu", id);
	row(label, "60 s ahead", "%s", err ? "?" : state_name(q.state));
	c.id = id;
	err = dev_cancel(d->fd, &c);
	qerr = demo_query(d, id, &q);
	if (demo_stats(d, d->fd, &s1))
		return -1;
	snprintf(label, sizeof(label), "cancel %llu", id);
	row(label, NULL, "%s",
	    err				   ? errno_name(-err, nb, sizeof(nb)) :
	    c.result == DWQ_RESULT_REMOVED ? "removed" :
					     "?");
	snprintf(label, sizeof(label), "query %llu", id);
	row(label, "the id is gone", "%s", errno_name(-qerr, nb, sizeof(nb)));
	check(d,
	      !err && c.result == DWQ_RESULT_REMOVED && qerr == -ENOENT &&
		      s1.pending + 1 == s0.pending &&
		      s1.cancelled == s0.cancelled + 1 && !s1.events,
	      "cancel_queued",
	      "a queued task is removed at once: pending %llu -> %llu, no event",
	      s0.pending, s1.pending);

	/* A periodic task due and unread: parked, not fired. */
	err = dev_schedule(d->fd, &ps);
	if (err) {
		errorf(-err, err_cause(OP_SCHEDULE, -err),
		       "demo: step %d: schedule", d->step);
		return -1;
	}
	sleep_ms(100);
	err = demo_query(d, ps.id, &q);
	snprintf(label, sizeof(label), "every 10ms, %llu", ps.id);
	row(label, "100 ms later, unread", "%s",
	    err ? errno_name(-err, nb, sizeof(nb)) : state_name(q.state));
	row("its runs", "nothing fires it but read()", "%llu",
	    err ? 0 : q.runs);
	check(d, !err && q.state == DWQ_STATE_PARKED && !q.runs, "query_parked",
	      "a periodic task due and unread is parked and has not run (runs %llu)",
	      err ? 0 : q.runs);
	if (demo_stats(d, d->fd, &s0))
		return -1;
	c = (struct dwq_ioc_cancel){ .id = ps.id };
	err = dev_cancel(d->fd, &c);
	qerr = demo_query(d, ps.id, &q);
	if (demo_stats(d, d->fd, &s1))
		return -1;
	n = dev_wait_events(d->fd, ev, 2, 50 * NSEC_PER_MSEC);
	snprintf(label, sizeof(label), "cancel %llu", ps.id);
	row(label, "never running: nothing runs", "%s",
	    err				  ? errno_name(-err, nb, sizeof(nb)) :
	    c.result == DWQ_RESULT_UNREAD ? "unread" :
					    "?");
	more("outside read()");
	row("events", "the cancel kept that firing's", "%llu", s1.events);
	if (n > 0) {
		if (opt.json)
			print_event(&ev[0]);
		row("read()", "its last event", "id %llu%s", ev[0].id,
		    ev[0].flags & DWQ_EVENT_LAST ? ", last" : "");
		row("periods skipped", "until the cancel", "%llu",
		    ev[0].skipped);
	}
	check(d,
	      !err && c.result == DWQ_RESULT_UNREAD && qerr == -ENOENT &&
		      s1.events == 1 && s1.fired == s0.fired + 1 && n == 1 &&
		      ev[0].id == ps.id && (ev[0].flags & DWQ_EVENT_LAST) &&
		      ev[0].skipped == (ev[0].fired_ns - ev[0].deadline_ns) /
					       ps.period_ns &&
		      ev[0].skipped >= 1,
	      "cancel_parked_keeps_event",
	      "cancelling a parked task fires it once: its event (%s late, %llu periods skipped) is read once, then nothing",
	      n > 0 ? dur(a, sizeof(a),
			  (__s64)(ev[0].fired_ns - ev[0].deadline_ns)) :
		      "-",
	      n > 0 ? ev[0].skipped : 0);

	/* A one-shot due and unread: its id is gone, its event waits. */
	if (demo_schedule(d, 0, 400, &oid))
		return -1;
	sleep_ms(20);
	c = (struct dwq_ioc_cancel){ .id = oid };
	err = dev_cancel(d->fd, &c);
	n = dev_wait_events(d->fd, ev, 2, EVENT_TIMEOUT);
	snprintf(label, sizeof(label), "cancel %llu", oid);
	row(label, "a one-shot due: it has fired", "%s",
	    err ? errno_name(-err, nb, sizeof(nb)) : "removed");
	more("as far as anyone can tell");
	row("read()", "its event still comes", "%d event", n);
	check(d,
	      err == -ENOENT && n == 1 && ev[0].id == oid &&
		      (ev[0].flags & DWQ_EVENT_LAST),
	      "cancel_due_oneshot",
	      "a due one-shot cannot be cancelled (ENOENT): its event is read");
	return 0;
}

/* 6. Close cancels everything the file still owns, and its alarm. */
static int step_close(struct demo *d, unsigned int base)
{
	struct dwq_ioc_stats s0, s1;
	char who[32];

	step(d, "Cleanup by close");
	if (settle(d, &s0) || demo_stats(d, d->fd, &s0))
		return -1;
	close(d->fd);
	d->fd = -1;
	if (demo_stats(d, d->obs, &s1))
		return -1;
	say("   The demo closes its file: the %llu tasks it still owns are\n"
	    "   cancelled with it, and its alarm leaves the shared queue.\n",
	    s0.pending);
	row("shared queue", "seen from another open file", "%u -> %u",
	    s0.queue_size, s1.queue_size);
	check(d, s1.queue_size == base, "close_cancels",
	      "the queue is back to %u tasks", base);
	if (settle(d, &s1))
		return -1;
	row("wakeups", "none", "+%llu", s1.wakeups - s0.wakeups);
	row("leader", s1.leader < 0 ? NULL : "asleep, nothing queued", "%s",
	    leader_name(who, sizeof(who), s1.leader));
	check(d, s1.wakeups == s0.wakeups, "close_no_wakeup",
	      "closing woke no worker: the leader sleeps on with nothing queued");
	return 0;
}

/**
 * cmd_demo() - dwqctl demo [--json]
 * @argc: arguments, argv[0] being "demo"
 * @argv: the arguments
 *
 * Return: 0 if every check held, 1 otherwise or on an error, 2 for usage.
 */
int cmd_demo(int argc, char **argv)
{
	struct demo d = { .fd = -1, .obs = -1 };
	struct dwq_ioc_stats st;
	unsigned int base = 0;
	__u64 first = 0;
	int i, ret = 1;

	for (i = 1; i < argc; i++) {
		if (common_opt("demo", argv, &i))
			continue;
		return usage_error("demo", "unexpected '%s'", argv[i]);
	}
	d.buf = malloc(TRACE_MAX);
	if (!d.buf) {
		errorf(ENOMEM, NULL, "demo");
		return 1;
	}
	d.obs = dev_open(1);
	if (d.obs < 0)
		goto out_free;
	d.fd = dev_open(1);
	if (d.fd < 0)
		goto out;
	trace_open(&d);
	if (intro(&d, &st) || step_idle(&d, &st) ||
	    step_heap(&d, &base, &first) || step_due(&d) || step_burst(&d) ||
	    step_cancel(&d) || step_close(&d, base))
		goto out;
	ret = d.failed ? 1 : 0;
	if (opt.json) {
		json_begin("demo");
		json_bool("ok", !d.failed);
		json_u64("checks", d.checks);
		json_u64("failed", d.failed);
		json_u64("skipped", d.skipped);
		json_end();
	} else if (d.failed) {
		printf("\n%d of %d checks FAILED: dwq did not behave as described.\n",
		       d.failed, d.checks);
	} else if (d.skipped) {
		printf("\nAll %d checks held; %d skipped.\n", d.checks,
		       d.skipped);
	} else {
		printf("\nAll %d checks held.\n", d.checks);
	}
out:
	trace_close(&d);
	if (d.fd >= 0)
		close(d.fd);
	close(d.obs);
out_free:
	free(d.buf);
	return ret;
}
