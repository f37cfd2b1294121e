// SPDX-License-Identifier: GPL-2.0
/*
 * dwqprof - the guest program of tools/prof/profile: N operations of one
 * kind between the two markers of the insn plugin (tools/prof/insn.c), so
 * that the plugin counts the instructions of those operations and of
 * nothing before or after them.
 *
 * usage: dwqprof MODE N
 *
 *   dwq        an op is DWQ_IOC_SCHEDULE (DWQ_SCHED_ABS, a random deadline
 *              1000 to 2000 s ahead) and DWQ_IOC_CANCEL of the task it
 *              made, on one /dev/dwq file
 *   dwqpend    the same with 10000 such tasks pending (as F2b's second
 *              column)
 *   batch      an op is one task of DWQ_IOC_SCHEDULE_BATCH and
 *              DWQ_IOC_CANCEL_BATCH of 64 (as dwqctl bench's F2 batch:
 *              one delay for all), every 64th op making both calls
 *   timerfd    an op is timerfd_settime() arming such a deadline
 *              (TFD_TIMER_ABSTIME) and a second one disarming it
 *   noop       an op is two ioctls that dwq answers -ENOTTY at once (as
 *              dwqctl bench's floor)
 *   readempty  an op is one read() of up to 64 events on an empty
 *              O_NONBLOCK /dev/dwq file: -1, EAGAIN
 *   burst      N one-shot tasks due at one instant, scheduled before the
 *              start marker; between the markers, read() 64 events at a
 *              time until all N are read. An op is one task read
 *   late       N one-shot tasks due at random over N ms (as F4c's dwq
 *              variant), scheduled before the start marker; between the
 *              markers, a blocking read() of up to 64 events until all N
 *              are read. An op is one task, from its timer's interrupt to
 *              its event in user space: everything every vCPU executes
 *   latetfd    the same with N timerfds watched by one epoll (as F4c's
 *              timerfd variant): epoll_wait(), then read() of each ready
 *              timerfd
 *   lategap, latetfdgap  late and latetfd with the deadlines 6 ms apart:
 *              every event comes after the CPUs have idled longer than a
 *              tick (4 ms at HZ=250), as F4c's slowest 1% do
 *
 * The reads of burst and late, and latetfd's epoll_wait(), are bracketed
 * by the wait and got markers: with profile --window, what counts is only
 * each event's path from the timer's interrupt to the program (its
 * lateness under icount), not the rest of the loop.
 *
 * Each mode but burst runs WARM ops before the start marker, so that what
 * is set up on first use is not counted. The deadlines are drawn before
 * the markers too. Prints one line, "dwqprof: mode M n N ns T ns/op X":
 * T is the CLOCK_MONOTONIC time between the markers, which under icount
 * is the number of instructions executed (1 ns each).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>

#include <linux/dwq.h>

#include "markers.h"

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
/* Deadlines in [FAR, 2 FAR) from now: never due during a run. */
#define FAR (1000 * NSEC_PER_SEC)
#define WARM 2000
#define READ_EVENTS 64
#define BURST_BATCH 1024
#define BATCH_OF 64

/* An ioctl no driver answers but dwq's: -ENOTTY at once (dwqctl bench). */
#define DWQ_IOC_NOOP _IO(DWQ_IOC_MAGIC, 0xff)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int fd, tfd;
static __u64 *deadline;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* xorshift64*: the same deadlines in every run. */
static __u64 rnd(void)
{
	static __u64 x = 88172645463325252ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x * 2685821657736338717ULL;
}

static void op_dwq(__u64 i)
{
	struct dwq_ioc_schedule s;
	struct dwq_ioc_cancel c;

	memset(&s, 0, sizeof(s));
	s.time_ns = deadline[i];
	s.flags = DWQ_SCHED_ABS;
	if (ioctl(fd, DWQ_IOC_SCHEDULE, &s))
		die("DWQ_IOC_SCHEDULE");
	memset(&c, 0, sizeof(c));
	c.id = s.id;
	if (ioctl(fd, DWQ_IOC_CANCEL, &c) || c.result != DWQ_RESULT_REMOVED)
		die("DWQ_IOC_CANCEL");
}

/* A task that stays: due 1000 to 2000 s after @base. */
static void schedule_far(__u64 base)
{
	struct dwq_ioc_schedule s;

	memset(&s, 0, sizeof(s));
	s.time_ns = base + FAR + rnd() % FAR;
	s.flags = DWQ_SCHED_ABS;
	if (ioctl(fd, DWQ_IOC_SCHEDULE, &s))
		die("DWQ_IOC_SCHEDULE");
}

static void op_batch(__u64 i)
{
	static struct dwq_ioc_schedule e[BATCH_OF];
	static struct dwq_ioc_cancel x[BATCH_OF];
	struct dwq_ioc_schedule_batch sb = { .entries = (__u64)(uintptr_t)e,
					     .count = BATCH_OF };
	struct dwq_ioc_cancel_batch cb = { .entries = (__u64)(uintptr_t)x,
					   .count = BATCH_OF };
	unsigned int k;

	if (i % BATCH_OF)
		return;
	memset(e, 0, sizeof(e));
	for (k = 0; k < BATCH_OF; k++)
		e[k].time_ns = FAR;
	if (ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &sb))
		die("DWQ_IOC_SCHEDULE_BATCH");
	memset(x, 0, sizeof(x));
	for (k = 0; k < BATCH_OF; k++)
		x[k].id = e[k].id;
	if (ioctl(fd, DWQ_IOC_CANCEL_BATCH, &cb))
		die("DWQ_IOC_CANCEL_BATCH");
}

static void op_timerfd(__u64 i)
{
	struct itimerspec arm = { 0 }, off = { 0 };

	arm.it_value.tv_sec = deadline[i] / NSEC_PER_SEC;
	arm.it_value.tv_nsec = deadline[i] % NSEC_PER_SEC;
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &arm, NULL) ||
	    timerfd_settime(tfd, 0, &off, NULL))
		die("timerfd_settime");
}

static void op_noop(__u64 i)
{
	(void)i;
	if (ioctl(fd, DWQ_IOC_NOOP, 0) != -1 || errno != ENOTTY ||
	    ioctl(fd, DWQ_IOC_NOOP, 0) != -1 || errno != ENOTTY)
		die("DWQ_IOC_NOOP: not -ENOTTY");
}

static void op_readempty(__u64 i)
{
	struct dwq_event ev[READ_EVENTS];

	(void)i;
	if (read(fd, ev, sizeof(ev)) != -1 || errno != EAGAIN)
		die("read of an empty file: not -EAGAIN");
}

/*
 * Between the markers, read() up to READ_EVENTS events at a time until n
 * are read, blocking if the file does; returns the ns between the markers.
 */
static __u64 read_marked(__u64 n)
{
	struct dwq_event ev[READ_EVENTS];
	__u64 got = 0, t0, t1;
	ssize_t r;

	t0 = now_ns();
	prof_mark_start();
	while (got < n) {
		prof_mark_wait();
		r = read(fd, ev, sizeof(ev));
		prof_mark_got();
		if (r <= 0)
			die("read");
		got += r / sizeof(ev[0]);
	}
	prof_mark_stop();
	t1 = now_ns();
	return t1 - t0;
}

/* n tasks due at one instant; returns the ns between the markers. */
static __u64 burst(__u64 n)
{
	static struct dwq_ioc_schedule e[BURST_BATCH];
	struct dwq_ioc_schedule_batch b;
	__u64 at = now_ns() + 200 * NSEC_PER_MSEC, i, j, k;

	for (i = 0; i < n; i += k) {
		k = n - i < BURST_BATCH ? n - i : BURST_BATCH;
		memset(e, 0, sizeof(e));
		for (j = 0; j < k; j++) {
			e[j].time_ns = at;
			e[j].flags = DWQ_SCHED_ABS;
		}
		memset(&b, 0, sizeof(b));
		b.entries = (__u64)(unsigned long)e;
		b.count = k;
		if (ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b))
			die("DWQ_IOC_SCHEDULE_BATCH");
	}
	/* All due, and fired, 100 ms before the first read. */
	while (now_ns() < at + 100 * NSEC_PER_MSEC)
		usleep(10000);
	return read_marked(n);
}

/* n deadlines at random over n ms, starting LATE_LEAD from now. */
#define LATE_LEAD (200 * NSEC_PER_MSEC)

/* The deadlines' spacing in the *gap modes; 0: at random (late, latetfd). */
#define LATE_GAP (6 * NSEC_PER_MSEC)
static __u64 late_gap;

static __u64 *late_deadlines(__u64 n)
{
	__u64 *d = malloc(n * sizeof(*d)), at = now_ns() + LATE_LEAD, i;

	if (!d)
		die("malloc");
	for (i = 0; i < n; i++)
		d[i] = late_gap ? at + i * late_gap :
				  at + rnd() % (n * NSEC_PER_MSEC);
	return d;
}

/* n tasks due at random over n ms, read as they come. */
static __u64 late_dwq(__u64 n)
{
	struct dwq_ioc_schedule s;
	__u64 *d = late_deadlines(n), i;

	for (i = 0; i < n; i++) {
		memset(&s, 0, sizeof(s));
		s.time_ns = d[i];
		s.flags = DWQ_SCHED_ABS;
		if (ioctl(fd, DWQ_IOC_SCHEDULE, &s))
			die("DWQ_IOC_SCHEDULE");
	}
	free(d);
	return read_marked(n);
}

/* The same through n timerfds and one epoll. */
static __u64 late_timerfd(__u64 n)
{
	struct epoll_event ee = { .events = EPOLLIN }, out[READ_EVENTS];
	struct itimerspec its = { 0 };
	__u64 *d = late_deadlines(n), got = 0, i, t0, t1, exp;
	int *fds = calloc(n, sizeof(*fds)), ep, k, j;

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (!fds || ep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC,
					TFD_CLOEXEC | TFD_NONBLOCK);
		ee.data.u64 = i;
		if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ee))
			die("timerfd_create/epoll_ctl");
		its.it_value.tv_sec = d[i] / NSEC_PER_SEC;
		its.it_value.tv_nsec = d[i] % NSEC_PER_SEC;
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			die("timerfd_settime");
	}
	t0 = now_ns();
	prof_mark_start();
	while (got < n) {
		prof_mark_wait();
		k = epoll_wait(ep, out, READ_EVENTS, -1);
		prof_mark_got();
		if (k <= 0)
			die("epoll_wait");
		for (j = 0; j < k; j++)
			if (read(fds[out[j].data.u64], &exp, sizeof(exp)) ==
			    sizeof(exp))
				got++;
	}
	prof_mark_stop();
	t1 = now_ns();
	for (i = 0; i < n; i++)
		close(fds[i]);
	close(ep);
	free(fds);
	free(d);
	return t1 - t0;
}

static __u64 late_dwq_gap(__u64 n)
{
	late_gap = LATE_GAP;
	return late_dwq(n);
}

static __u64 late_timerfd_gap(__u64 n)
{
	late_gap = LATE_GAP;
	return late_timerfd(n);
}

static const struct {
	const char *name;
	void (*op)(__u64 i); /* or, without one: */
	__u64 (*run)(__u64 n); /* sets up, marks, returns the ns between */
	int nonblock; /* open /dev/dwq O_NONBLOCK */
	unsigned int pending; /* tasks scheduled before the first op */
} modes[] = {
	{ .name = "dwq", .op = op_dwq },
	{ .name = "dwqpend", .op = op_dwq, .pending = 10000 },
	{ .name = "batch", .op = op_batch },
	{ .name = "timerfd", .op = op_timerfd },
	{ .name = "noop", .op = op_noop },
	{ .name = "readempty", .op = op_readempty, .nonblock = 1 },
	{ .name = "burst", .run = burst },
	{ .name = "late", .run = late_dwq },
	{ .name = "latetfd", .run = late_timerfd },
	{ .name = "lategap", .run = late_dwq_gap },
	{ .name = "latetfdgap", .run = late_timerfd_gap },
};

static void bad_usage(void)
{
	unsigned int m;

	fprintf(stderr, "usage: dwqprof MODE N\nmodes:");
	for (m = 0; m < ARRAY_SIZE(modes); m++)
		fprintf(stderr, " %s", modes[m].name);
	fprintf(stderr, "\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int m;
	__u64 n, i, base, t0, t1, ns;
	char *end;

	if (argc != 3)
		bad_usage();
	for (m = 0; m < ARRAY_SIZE(modes); m++)
		if (!strcmp(argv[1], modes[m].name))
			break;
	if (m == ARRAY_SIZE(modes))
		bad_usage();
	n = strtoull(argv[2], &end, 0);
	if (!n || *end)
		bad_usage();
	fd = open("/dev/dwq",
		  O_RDWR | O_CLOEXEC | (modes[m].nonblock ? O_NONBLOCK : 0));
	if (fd < 0)
		die("open /dev/dwq");
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (tfd < 0)
		die("timerfd_create");

	if (!modes[m].op) {
		ns = modes[m].run(n);
	} else {
		deadline = malloc((n + WARM) * sizeof(*deadline));
		if (!deadline)
			die("malloc");
		base = now_ns();
		for (i = 0; i < n + WARM; i++)
			deadline[i] = base + FAR + rnd() % FAR;
		for (i = 0; i < modes[m].pending; i++)
			schedule_far(base);
		for (i = 0; i < WARM; i++)
			modes[m].op(n + i);
		t0 = now_ns();
		prof_mark_start();
		for (i = 0; i < n; i++)
			modes[m].op(i);
		prof_mark_stop();
		t1 = now_ns();
		ns = t1 - t0;
	}
	printf("dwqprof: mode %s n %llu ns %llu ns/op %.1f\n", modes[m].name,
	       (unsigned long long)n, (unsigned long long)ns, (double)ns / n);
	return 0;
}
