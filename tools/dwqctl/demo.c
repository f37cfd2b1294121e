// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl demo: the experiment of Java's DelayedWorkQueue that dwq starts
 * from (/work/shared/reference/000_*, "QueueProbe"), run through /dev/dwq
 * and explained for a newcomer:
 *
 *   1. idle workers (any number from 2), no leader
 *   2. a task 300 ms ahead: one worker wakes to lead; at the deadline its
 *      timer posts the event itself and nobody wakes; the last task's
 *      firing wakes the leader once, to stop leading an empty queue
 *   3. three tasks due at once: each runs exactly once
 *   4. the heap array grows by half: 16 -> 24 -> 36 -> 54
 *   5. cancel removes a task at once
 *   6. close cancels the rest
 *
 * Every claim printed is checked; the exit status is 1 if one fails, so a
 * test can rely on the demo. STATS has the workers' totals only, not
 * per-worker counts: "nobody woke" is measured as "the total did not
 * grow", and "only the leader woke" as "it grew by one, and STATS shows no
 * leader any more". /dev/dwq's tasks are quick: the leader's timer runs
 * them, in softirq context, so a firing costs no worker wakeup; STATS
 * counts a worker's wakeups only when that worker is back in the queue,
 * after the event may have been read, so the demo waits for the state it
 * checks (settle()), bounded by EVENT_TIMEOUT.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>

#include "dwqctl.h"

/* One worker is always the leader: there is no one else to not wake. */
#define DEMO_MIN_WORKERS 2
#define FAR_AHEAD (60 * NSEC_PER_SEC)
#define GROW_TASKS 40
#define EVENT_TIMEOUT (10 * NSEC_PER_SEC)

struct demo {
	int fd; /* the demo's file: its tasks */
	int obs; /* another file, to watch the queue */
	int step;
	int checks;
	int failed;
};

/* Text for a person; nothing with --json. */
static void __printf(1, 2) say(const char *fmt, ...)
{
	va_list ap;

	if (opt.json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
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
	fflush(stdout);
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
 * Wait until no worker leads, up to EVENT_TIMEOUT, and leave the last
 * STATS in @st. A leader woken for an empty queue gives the role up and
 * counts its wakeup in the same hold of the queue's lock, so once STATS
 * shows no leader, that wakeup is counted.
 */
static int settle(struct demo *d, struct dwq_ioc_stats *st)
{
	__u64 t0 = clock_now(0);

	for (;;) {
		if (demo_stats(d, d->obs, st))
			return -1;
		if (st->leader < 0 || clock_now(0) - t0 > EVENT_TIMEOUT)
			return 0;
		sleep_ms(10);
	}
}

/* The workers parameter, or -1 if it cannot be read. */
static long long workers_param(void)
{
	__u64 v;

	return param_u64("workers", &v) ? -1 : (long long)v;
}

static int intro(struct demo *d, struct dwq_ioc_stats *st)
{
	long long w = workers_param();
	struct stat sb;

	say("dwqctl demo: Java's DelayedWorkQueue experiment, through %s\n\n",
	    opt.dev);
	say("dwq keeps timed tasks in one heap and runs them on a pool of worker\n"
	    "threads. Of the idle workers at most one, the leader, sleeps with a\n"
	    "timeout: until the first deadline. The others sleep until woken. So a\n"
	    "task that comes due wakes one thread, not all of them. A task of\n"
	    "%s only posts an event, so it is quick: the leader's timer runs\n"
	    "it itself, in the timer softirq, and wakes the reader, not a worker.\n\n",
	    opt.dev);
	if (preempt_rt())
		say("This kernel is PREEMPT_RT: softirqs run in threads, so the timer\n"
		    "softirq runs in ksoftirqd/N (ktimers/N on newer kernels), woken by\n"
		    "the timer's interrupt. That thread is the kernel's, not a dwq\n"
		    "worker: STATS does not count its wakeups.\n\n");
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
 * A worker can stay the leader with nothing queued: it sleeps until the
 * deadline of a head that was cancelled since, and will wake then for
 * nothing. A new head due now moves its timer to now instead of waking it:
 * the timer posts that task's event for it, and then, with nothing left to
 * lead, wakes it once to follow. Do that, from the observer's file. With
 * @checked, check that the event names the old leader and that its one
 * wakeup, after the event, found nothing to run.
 */
static int void_leader(struct demo *d, struct dwq_ioc_stats *st, int checked)
{
	struct dwq_ioc_schedule s = { .cookie = 999 };
	struct dwq_ioc_stats s1;
	struct dwq_event ev;
	int old = st->leader, n, err;
	char a[32], note[64];

	say("   Worker %d is the leader, yet nothing is queued: it sleeps until\n"
	    "   the deadline of a head that was cancelled, and would wake then\n"
	    "   for nothing. A task due now (from another file) moves its timer\n"
	    "   to now: the timer posts the event, then wakes the leader once,\n"
	    "   as there is nothing left to lead:\n",
	    old);
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
	if (settle(d, &s1))
		return -1;
	snprintf(note, sizeof(note), "%s late",
		 dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	row("it fired for", note, "worker %u", ev.worker);
	row("wakeups", "one: the leader's, after it", "%llu -> %llu",
	    st->wakeups, s1.wakeups);
	row("spurious wakeups", "it found nothing to run", "%llu -> %llu",
	    st->spurious_wakeups, s1.spurious_wakeups);
	if (s1.leader < 0)
		row("leader", NULL, "none");
	else
		row("leader", NULL, "worker %d", s1.leader);
	if (checked)
		check(d,
		      ev.worker == (__u32)old &&
			      s1.wakeups - st->wakeups == 1 &&
			      s1.spurious_wakeups - st->spurious_wakeups == 1 &&
			      s1.leader < 0,
		      "new_head_voids_leader",
		      "the timer fired it for the old leader, then woke that leader once, for nothing, and left no leader");
	*st = s1;
	return 0;
}

/* 1. N idle workers, no leader. */
static int step_idle(struct demo *d, struct dwq_ioc_stats *st)
{
	char title[64];

	snprintf(title, sizeof(title), "%u idle workers, no leader",
		 st->workers);
	step(d, title);
	/* Like QueueProbe's sleep(200): let the workers reach their wait. */
	sleep_ms(200);
	if (demo_stats(d, d->obs, st))
		return -1;
	/* Left over from an earlier run: see void_leader(). */
	if (st->leader >= 0 && !st->queue_size && void_leader(d, st, 0))
		return -1;
	row("workers", NULL, "%u", st->workers);
	if (st->leader < 0)
		row("leader", "STATS.leader is -1", "none");
	else
		row("leader", NULL, "worker %d", st->leader);
	row("tasks queued", NULL, "%u", st->queue_size);
	row("wakeups so far", "all workers together: STATS has", "%llu",
	    st->wakeups);
	more("totals, not a count per worker");
	check(d, st->leader < 0, "idle_no_leader",
	      "%u workers wait for work and none is the leader", st->workers);
	if (st->queue_size)
		check(d, 0, "idle_queue_empty",
		      "the queue is not idle: %u tasks of someone else, and the counts below assume nobody else uses dwq",
		      st->queue_size);
	else
		check(d, 1, "idle_queue_empty",
		      "nothing is queued, so the counts below are ours alone");
	return 0;
}

/* Wait for one event of the demo's file into @ev. */
static int demo_event(struct demo *d, struct dwq_event *ev)
{
	int n = dev_wait_events(d->fd, ev, 1, EVENT_TIMEOUT);

	if (n <= 0) {
		errorf(n ? -n : ETIMEDOUT,
		       n ? err_cause(OP_READ, -n) : "no event within 10s",
		       "demo: step %d: read", d->step);
		return -1;
	}
	if (opt.json)
		print_event(ev);
	return 0;
}

/*
 * 2. One task 300 ms ahead, another 60 s ahead: the leader, and who wakes
 * when its timer fires; then the last task, moved to now.
 */
static int step_leader(struct demo *d, struct dwq_ioc_stats *s0)
{
	struct dwq_ioc_reschedule r = { 0 };
	struct dwq_ioc_stats s1, s2, s3;
	struct dwq_event ev;
	__u64 id, id2, t0, t1, waited, left;
	char a[32], b[32], label[32], note[64];
	int err;

	step(d, "One task, 300 ms ahead");
	if (demo_schedule(d, 300 * NSEC_PER_MSEC, 1, &id))
		return -1;
	t0 = clock_now(0);
	row("schedule 300ms", NULL, "id %llu", id);
	if (demo_schedule(d, FAR_AHEAD, 2, &id2))
		return -1;
	row("schedule 60s", "behind it: it wakes nobody", "id %llu", id2);
	/* The leader shows within 20-50 ms; allow a slow (TCG) guest more. */
	sleep_ms(30);
	for (;;) {
		if (demo_stats(d, d->obs, &s1))
			return -1;
		t1 = clock_now(0);
		if (s1.leader >= 0 || t1 - t0 > 250 * NSEC_PER_MSEC)
			break;
		sleep_ms(10);
	}
	waited = t1 - t0;
	left = 300 * NSEC_PER_MSEC > waited ? 300 * NSEC_PER_MSEC - waited : 0;
	if (s1.leader >= 0) {
		snprintf(note, sizeof(note), "seen %s later; it sleeps until",
			 dur(a, sizeof(a), waited));
		row("leader", note, "worker %d", s1.leader);
		snprintf(note, sizeof(note), "the deadline, %s away",
			 dur(b, sizeof(b), left));
		more(note);
	} else {
		row("leader", NULL, "none");
	}
	check(d, s1.leader >= 0, "leader_chosen",
	      "a worker became the leader within %s",
	      dur(a, sizeof(a), waited));
	row("wakeups", "the schedule woke one sleeping", "%llu -> %llu",
	    s0->wakeups, s1.wakeups);
	more("worker; it found no leader and");
	more("took the role");
	if (s1.wakeups - s0->wakeups == 1)
		check(d, 1, "one_wakeup_to_lead",
		      "one worker woke for the new task, not all %u",
		      s1.workers);
	else
		check(d, 0, "one_wakeup_to_lead",
		      "one worker should wake for the new task, but the total grew by %llu",
		      s1.wakeups - s0->wakeups);

	if (demo_event(d, &ev) || demo_stats(d, d->obs, &s2))
		return -1;
	snprintf(note, sizeof(note), "%s late",
		 dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	row("the task fired for", note, "worker %u", ev.worker);
	check(d, ev.id == id && ev.worker == (__u32)s1.leader, "ran_on_leader",
	      "the task ran for the leader, worker %d (the event says worker %u)",
	      s1.leader, ev.worker);
	check(d, ev.fired_ns >= ev.deadline_ns, "not_early",
	      "it was not early: fired - deadline = %s",
	      dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	row("wakeups", "none: its timer posted the event", "%llu -> %llu",
	    s1.wakeups, s2.wakeups);
	row("tasks run", "counted for the leader", "%llu -> %llu", s1.tasks_run,
	    s2.tasks_run);
	snprintf(note, sizeof(note), "it sleeps on, now until id %llu", id2);
	if (s2.leader < 0)
		row("leader", NULL, "none");
	else
		row("leader", note, "worker %d", s2.leader);
	say("   At the deadline the leader's timer ran the task itself, in the\n"
	    "   timer softirq: it posted the event and woke this reader, the one\n"
	    "   thread waiting for it. Then it moved on to the next deadline. STATS\n"
	    "   counts the wakeups of all workers together: from the moment the\n"
	    "   leader was seen to the event, the total grew by %lld.\n",
	    (long long)(s2.wakeups - s1.wakeups));
	check(d,
	      s2.wakeups == s1.wakeups &&
		      s2.spurious_wakeups == s1.spurious_wakeups &&
		      s2.tasks_run == s1.tasks_run + 1 &&
		      s2.leader == s1.leader,
	      "idle_did_not_wake",
	      "the other %u workers never woke, nor did the leader: its timer fired the task and leads on",
	      s1.workers - 1);

	/* The last task: its firing leaves the leader nothing to lead. */
	r.id = id2;
	err = dev_reschedule(d->fd, &r);
	if (err) {
		errorf(-err, err_cause(OP_RESCHEDULE, -err),
		       "demo: step 2: reschedule %llu", r.id);
		return -1;
	}
	snprintf(label, sizeof(label), "reschedule %llu", id2);
	row(label, "due now: the timer moves to now", "%s", "0");
	if (demo_event(d, &ev) || settle(d, &s3))
		return -1;
	snprintf(note, sizeof(note), "%s late",
		 dur(a, sizeof(a), (__s64)(ev.fired_ns - ev.deadline_ns)));
	row("it fired for", note, "worker %u", ev.worker);
	row("wakeups", "one: the leader's, after it", "%llu -> %llu",
	    s2.wakeups, s3.wakeups);
	row("spurious wakeups", "it found nothing to run", "%llu -> %llu",
	    s2.spurious_wakeups, s3.spurious_wakeups);
	if (s3.leader < 0)
		row("leader", "it follows again", "none");
	else
		row("leader", NULL, "worker %d", s3.leader);
	say("   The timer posted this event too. With nothing left to lead, it\n"
	    "   then woke the leader, once, to give the role up: that wakeup\n"
	    "   comes after the event, and runs nothing.\n");
	check(d,
	      ev.id == id2 && ev.worker == (__u32)s2.leader &&
		      s3.tasks_run == s2.tasks_run + 1 &&
		      s3.wakeups == s2.wakeups + 1 &&
		      s3.spurious_wakeups == s2.spurious_wakeups + 1 &&
		      s3.leader < 0,
	      "last_wakes_leader",
	      "the last task fired in the timer too; then only the leader woke, once, for nothing, and left the role");
	*s0 = s3;
	return 0;
}

/* 3. Three tasks due now: each runs exactly once. */
static int step_three(struct demo *d, struct dwq_ioc_stats *s0)
{
	struct dwq_event ev[8];
	struct dwq_ioc_stats s1;
	__u64 ids[3];
	int seen[3] = { 0 }, got = 0, once = 1, n, i, j;
	char a[32], label[32], note[64];

	step(d, "Three tasks due at once");
	for (i = 0; i < 3; i++)
		if (demo_schedule(d, 0, 2 + i, &ids[i]))
			return -1;
	snprintf(note, sizeof(note), "ids %llu, %llu, %llu", ids[0], ids[1],
		 ids[2]);
	row("schedule 0, 3 times", note, "%s", "");
	while (got < 3) {
		n = dev_wait_events(d->fd, ev + got, 3 - got, EVENT_TIMEOUT);
		if (n <= 0)
			break;
		got += n;
	}
	/* Anything more would be a task run twice. */
	n = dev_wait_events(d->fd, ev + got, ARRAY_SIZE(ev) - got,
			    50 * NSEC_PER_MSEC);
	if (n > 0)
		got += n;
	if (demo_stats(d, d->obs, &s1))
		return -1;
	for (i = 0; i < got; i++) {
		if (opt.json)
			print_event(&ev[i]);
		snprintf(label, sizeof(label), "id %llu ran on", ev[i].id);
		snprintf(note, sizeof(note), "%s late",
			 dur(a, sizeof(a),
			     (__s64)(ev[i].fired_ns - ev[i].deadline_ns)));
		row(label, note, "worker %u", ev[i].worker);
		for (j = 0; j < 3; j++)
			if (ev[i].id == ids[j])
				seen[j]++;
		if (ev[i].overruns || !(ev[i].flags & DWQ_EVENT_LAST))
			once = 0;
	}
	for (j = 0; j < 3; j++)
		if (seen[j] != 1)
			once = 0;
	check(d, once && got == 3, "each_once",
	      "each ran exactly once: %d events for 3 tasks, no overruns", got);
	check(d, s1.tasks_run - s0->tasks_run == 3, "three_runs",
	      "the workers ran %llu callbacks for them",
	      s1.tasks_run - s0->tasks_run);
	say("   Which worker takes which follows the order they were woken in,\n"
	    "   and may change from run to run; that each runs once does not.\n");
	return 0;
}

/* 4. The heap array grows by half: 16 -> 24 -> 36 -> 54. */
static int step_grow(struct demo *d, unsigned int *base)
{
	static const unsigned int want[] = { 16, 24, 36, 54 };
	unsigned int caps[16], sizes[16], ncap = 0, last = 0, i;
	struct dwq_ioc_stats st;
	int by_half = 1, exact;
	__u64 id;

	step(d, "The heap array grows by half before it is full");
	say("   %d tasks 60 s ahead are added one at a time. A line for each\n"
	    "   change of the capacity (STATS.queue_capacity):\n",
	    GROW_TASKS);
	row("tasks queued", NULL, "capacity");
	if (demo_stats(d, d->obs, &st))
		return -1;
	*base = st.queue_size;
	for (i = 0; i < GROW_TASKS; i++) {
		if (demo_schedule(d, FAR_AHEAD, 100 + i, &id) ||
		    demo_stats(d, d->obs, &st))
			return -1;
		if (st.queue_capacity == last)
			continue;
		if (last && st.queue_capacity != last + last / 2)
			by_half = 0;
		last = st.queue_capacity;
		if (ncap < ARRAY_SIZE(caps)) {
			caps[ncap] = last;
			sizes[ncap++] = st.queue_size;
		}
		if (opt.json) {
			json_begin("capacity");
			json_u64("queue_size", st.queue_size);
			json_u64("queue_capacity", st.queue_capacity);
			json_end();
		}
		say("   %12u %18u\n", st.queue_size, st.queue_capacity);
	}
	/*
	 * The queue grows in the background once less than a quarter of the
	 * array is free, so when each step comes depends on when that work
	 * runs; but it comes at the latest with the task that would not fit.
	 */
	exact = ncap == ARRAY_SIZE(want);
	for (i = 0; exact && i < ncap; i++)
		exact = caps[i] == want[i] &&
			sizes[i] <= (i ? want[i - 1] + 1 : 1);
	if (*base == 0)
		check(d, exact, "grow_16_24_36_54",
		      "16 -> 24 -> 36 -> 54: each step by the 17th, 25th and 37th task at the latest");
	else
		check(d, by_half, "grow_by_half",
		      "capacity grew by half each time (the queue was not empty: the steps start elsewhere)");
	say("   This is DelayedWorkQueue.grow(): oldCapacity + (oldCapacity >> 1).\n"
	    "   dwq also gives memory back: it halves the array when it is three\n"
	    "   quarters empty (step 6).\n");
	return 0;
}

/* 5. Cancel removes at once. */
static int step_cancel(struct demo *d)
{
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_ioc_query q = { 0 };
	struct dwq_ioc_stats s0, s1;
	__u64 ids[3];
	int i, err, gone;
	char nb[32], label[32], note[64];

	step(d, "Cancel removes a task at once");
	for (i = 0; i < 3; i++)
		if (demo_schedule(d, FAR_AHEAD, 200 + i, &ids[i]))
			return -1;
	if (demo_stats(d, d->obs, &s0))
		return -1;
	snprintf(note, sizeof(note), "ids %llu, %llu, %llu", ids[0], ids[1],
		 ids[2]);
	row("schedule 60s, 3 times", note, "%s", "");
	row("tasks queued", NULL, "%u", s0.queue_size);
	c.id = ids[1];
	err = dev_cancel(d->fd, &c);
	if (err) {
		errorf(-err, err_cause(OP_CANCEL, -err), "demo: cancel %llu",
		       c.id);
		return -1;
	}
	if (demo_stats(d, d->obs, &s1))
		return -1;
	snprintf(label, sizeof(label), "cancel %llu", c.id);
	row(label, "the middle one", "%s",
	    c.result == DWQ_RESULT_REMOVED ? "removed" :
	    c.result == DWQ_RESULT_RUNNING ? "running" :
					     "?");
	row("tasks queued", "at once, not at its deadline", "%u -> %u",
	    s0.queue_size, s1.queue_size);
	q.id = ids[1];
	err = dev_query(d->fd, &q);
	gone = err == -ENOENT || (!err && q.state != DWQ_STATE_QUEUED);
	snprintf(label, sizeof(label), "query %llu", q.id);
	if (err)
		row(label, "not queued: the id is gone", "%s",
		    errno_name(-err, nb, sizeof(nb)));
	else
		row(label, NULL, "%s", state_name(q.state));
	check(d,
	      c.result == DWQ_RESULT_REMOVED &&
		      s1.queue_size + 1 == s0.queue_size && gone,
	      "cancel_removes",
	      "the cancelled task left the heap at once: size %u -> %u",
	      s0.queue_size, s1.queue_size);
	say("   Java's default (removeOnCancel=false) leaves a cancelled task in\n"
	    "   the heap until its deadline; dwq always removes it.\n");
	return 0;
}

/* 6. Close cancels everything the file still owns. */
static int step_close(struct demo *d, unsigned int base)
{
	struct dwq_ioc_stats s0, s1;

	step(d, "Cleanup by close");
	if (demo_stats(d, d->fd, &s0))
		return -1;
	close(d->fd);
	d->fd = -1;
	if (demo_stats(d, d->obs, &s1))
		return -1;
	say("   The demo closes its file: the %llu tasks it still owns are\n"
	    "   cancelled with it.\n",
	    s0.pending);
	row("tasks queued", "seen from another open file", "%u -> %u",
	    s0.queue_size, s1.queue_size);
	check(d, s1.queue_size == base, "close_cancels",
	      "the queue is back to %u tasks", base);
	sleep_ms(200);
	if (demo_stats(d, d->obs, &s1))
		return -1;
	row("capacity", "200ms later: it shrinks back in", "%u -> %u",
	    s0.queue_capacity, s1.queue_capacity);
	more("the background");
	if (s1.leader >= 0 && !s1.queue_size)
		return void_leader(d, &s1, 1);
	row("leader", NULL, "none");
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
	int i, ret = 1;

	for (i = 1; i < argc; i++) {
		if (common_opt("demo", argv, &i))
			continue;
		return usage_error("demo", "unexpected '%s'", argv[i]);
	}
	d.obs = dev_open(1);
	if (d.obs < 0)
		return 1;
	d.fd = dev_open(1);
	if (d.fd < 0)
		goto out;
	if (intro(&d, &st) || step_idle(&d, &st) || step_leader(&d, &st) ||
	    step_three(&d, &st) || step_grow(&d, &base) || step_cancel(&d) ||
	    step_close(&d, base))
		goto out;
	ret = d.failed ? 1 : 0;
	if (opt.json) {
		json_begin("demo");
		json_bool("ok", !d.failed);
		json_u64("checks", d.checks);
		json_u64("failed", d.failed);
		json_end();
	} else if (d.failed) {
		printf("\n%d of %d checks FAILED: dwq did not behave as described.\n",
		       d.failed, d.checks);
	} else {
		printf("\nAll %d checks held.\n", d.checks);
	}
out:
	if (d.fd >= 0)
		close(d.fd);
	close(d.obs);
	return ret;
}
