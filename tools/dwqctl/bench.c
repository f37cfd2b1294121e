// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl bench: the user-space figures (docs/bench.md), each a ratio to an
 * anchor measured in the same run, the variants interleaved within each
 * repetition, the median of the repetitions reported with min-max.
 *
 *   F2   ns per schedule+cancel through ioctl, single (also behind an
 *        earlier head, where no schedule wakes a worker) and batched,
 *        against two no-op ioctls on the same file (the floor), timerfd
 *        arm+disarm, timerfd create+settime+close, timer_create+settime+
 *        delete
 *   F4b  lateness at the user's read(): p50, p99, p99.9, against
 *        timerfd + epoll_wait + read
 *   F6   aggregate schedule+cancel pairs per second with 1, 2, 4, 8
 *        threads (a file each), against no-op ioctls and timerfd
 *   F7   events per second through batched read(), against N timerfds
 *        through epoll
 *
 * F5 (slab bytes per pending timer) and the comparisons with io_uring are
 * tools/bench/user's dwq-ubench: dwqctl does not link liburing.
 *
 * Benchmarks are never assertions: the exit status is 0 unless something
 * failed to run. Absolute numbers from a TCG guest mean little.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>

#include "dwqctl.h"

#define MAX_REPS 99
#define BATCH 64
#define FAR_AHEAD (3600 * NSEC_PER_SEC)
#define F7_READ 256

/* An ioctl no driver answers but dwq's: -ENOTTY at once, the floor. */
#define DWQ_IOC_NOOP _IO(DWQ_IOC_MAGIC, 0xff)

struct bench {
	__u64 ops;
	unsigned int reps;
	unsigned int only; /* bit per figure; 0: all */
	int failed;
};

enum { F2 = 1, F4B = 2, F6 = 8, F7 = 16 };

#define SERIES(n, l)                      \
	{                                 \
		.name = (n), .label = (l) \
	}

struct series {
	const char *name; /* key for --json */
	const char *label; /* for people */
	double v[MAX_REPS];
	unsigned int n;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(struct series *s)
{
	double v[MAX_REPS];

	if (!s->n)
		return 0;
	memcpy(v, s->v, s->n * sizeof(v[0]));
	qsort(v, s->n, sizeof(v[0]), cmp_double);
	return s->n % 2 ? v[s->n / 2] : (v[s->n / 2 - 1] + v[s->n / 2]) / 2;
}

static double lowest(const struct series *s)
{
	double m = s->n ? s->v[0] : 0;
	unsigned int i;

	for (i = 1; i < s->n; i++)
		if (s->v[i] < m)
			m = s->v[i];
	return m;
}

static double highest(const struct series *s)
{
	double m = s->n ? s->v[0] : 0;
	unsigned int i;

	for (i = 1; i < s->n; i++)
		if (s->v[i] > m)
			m = s->v[i];
	return m;
}

static void add(struct series *s, double v)
{
	if (s->n < MAX_REPS)
		s->v[s->n++] = v;
}

static __u64 now_ns(void)
{
	return clock_now(0);
}

static int fail(struct bench *b, int err, enum dwq_op op, const char *what)
{
	errorf(err, err_cause(op, err), "bench: %s", what);
	b->failed = 1;
	return -1;
}

/*
 * One table row: median, min-max, and the ratio of medians to @anchor
 * (NULL: no ratio).
 */
static void row(const char *fig, struct series *s, struct series *anchor,
		const char *unit)
{
	double m = median(s), a = anchor ? median(anchor) : 0;
	double ratio = a > 0 ? m / a : 0;
	char mm[48];

	if (opt.json) {
		json_begin("bench");
		json_str("figure", fig);
		json_str("variant", s->name);
		json_str("unit", unit);
		json_double("median", m);
		json_double("min", lowest(s));
		json_double("max", highest(s));
		json_u64("reps", s->n);
		if (anchor) {
			json_str("anchor", anchor->name);
			json_double("ratio", ratio);
		}
		json_end();
		return;
	}
	snprintf(mm, sizeof(mm), "%.1f-%.1f", lowest(s), highest(s));
	printf("  %-34s %11.1f %23s", s->label, m, mm);
	if (anchor)
		printf(" %7.2f", ratio);
	putchar('\n');
}

/* A target line: "single <= 1.3x floor: 1.48 (missed)". */
static void print_target(const char *fig, const char *what, double value,
			 double limit, int at_least)
{
	int met = at_least ? value >= limit : value <= limit;

	if (opt.json) {
		json_begin("target");
		json_str("figure", fig);
		json_str("target", what);
		json_double("value", value);
		json_double("limit", limit);
		json_bool("met", met);
		json_end();
		return;
	}
	printf("  target %-46s %7.2f  %s\n", what, value,
	       met ? "met" : "MISSED");
}

static void header(const char *fig, const char *title, const char *unit,
		   const char *anchor)
{
	if (opt.json)
		return;
	printf("\n%s  %s\n", fig, title);
	printf("  %-34s %11s %23s %7s\n", "variant", unit, "min-max",
	       anchor ? "ratio" : "");
}

/* --- F2: the cost of one schedule+cancel --------------------------- */

static int f2_floor(struct bench *b, int fd, double *ns)
{
	__u64 t0 = now_ns(), i;

	for (i = 0; i < b->ops; i++) {
		if (ioctl(fd, DWQ_IOC_NOOP, 0) != -1 || errno != ENOTTY ||
		    ioctl(fd, DWQ_IOC_NOOP, 0) != -1 || errno != ENOTTY)
			return fail(b, errno, OP_STATS,
				    "no-op ioctl: not ENOTTY");
	}
	*ns = (double)(now_ns() - t0) / b->ops;
	return 0;
}

static int f2_single(struct bench *b, int fd, double *ns)
{
	struct dwq_ioc_schedule s = { .time_ns = FAR_AHEAD };
	struct dwq_ioc_cancel c = { 0 };
	__u64 t0 = now_ns(), i;
	int err;

	for (i = 0; i < b->ops; i++) {
		s.id = 0;
		err = dev_schedule(fd, &s);
		if (err)
			return fail(b, -err, OP_SCHEDULE, "schedule");
		c.id = s.id;
		err = dev_cancel(fd, &c);
		if (err)
			return fail(b, -err, OP_CANCEL, "cancel");
	}
	*ns = (double)(now_ns() - t0) / b->ops;
	return 0;
}

/*
 * The same behind an earlier task: the new tasks never become the head,
 * so no schedule has to wake a worker. The gap to dwq_single is the cost
 * of that wakeup.
 */
static int f2_not_head(struct bench *b, int fd, double *ns)
{
	struct dwq_ioc_schedule head = { .time_ns = FAR_AHEAD / 2 };
	struct dwq_ioc_cancel c = { 0 };
	int err = dev_schedule(fd, &head);

	if (err)
		return fail(b, -err, OP_SCHEDULE, "schedule");
	err = f2_single(b, fd, ns);
	c.id = head.id;
	if (!err && dev_cancel(fd, &c))
		return fail(b, errno, OP_CANCEL, "cancel");
	return err;
}

static int schedule_batch(int fd, struct dwq_ioc_schedule *e, unsigned int n)
{
	struct dwq_ioc_schedule_batch sb = {
		.entries = (__u64)(unsigned long)e,
		.count = n,
	};

	return ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &sb) ? -errno : 0;
}

static int cancel_batch(int fd, struct dwq_ioc_cancel *c, unsigned int n)
{
	struct dwq_ioc_cancel_batch cb = {
		.entries = (__u64)(unsigned long)c,
		.count = n,
	};

	return ioctl(fd, DWQ_IOC_CANCEL_BATCH, &cb) ? -errno : 0;
}

/*
 * Batched: SCHEDULE_BATCH of 64, then one CANCEL_BATCH of those 64.
 * @sched_ns gets the schedule part alone.
 */
static int f2_batch(struct bench *b, int fd, double *ns, double *sched_ns)
{
	struct dwq_ioc_schedule e[BATCH];
	struct dwq_ioc_cancel c[BATCH];
	__u64 rounds = (b->ops + BATCH - 1) / BATCH, r, t, ts = 0, tt = 0;
	unsigned int i;
	int err;

	memset(e, 0, sizeof(e));
	memset(c, 0, sizeof(c));
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < BATCH; i++)
			e[i].time_ns = FAR_AHEAD;
		t = now_ns();
		err = schedule_batch(fd, e, BATCH);
		ts += now_ns() - t;
		if (err)
			return fail(b, -err, OP_BATCH, "schedule batch");
		for (i = 0; i < BATCH; i++)
			c[i].id = e[i].id;
		err = cancel_batch(fd, c, BATCH);
		tt += now_ns() - t;
		if (err)
			return fail(b, -err, OP_CANCEL, "cancel batch");
		for (i = 0; i < BATCH; i++)
			if (c[i].result != DWQ_RESULT_REMOVED)
				return fail(b, ENOENT, OP_CANCEL,
					    "cancel batch: not removed");
	}
	*ns = (double)tt / (rounds * BATCH);
	*sched_ns = (double)ts / (rounds * BATCH);
	return 0;
}

static int f2_timerfd_arm(struct bench *b, double *ns)
{
	struct itimerspec arm = { .it_value.tv_sec = 3600 }, off = { 0 };
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	__u64 t0, i;

	if (tfd < 0)
		return fail(b, errno, OP_OPEN, "timerfd_create");
	t0 = now_ns();
	for (i = 0; i < b->ops; i++) {
		if (timerfd_settime(tfd, 0, &arm, NULL) ||
		    timerfd_settime(tfd, 0, &off, NULL)) {
			close(tfd);
			return fail(b, errno, OP_OPEN, "timerfd_settime");
		}
	}
	*ns = (double)(now_ns() - t0) / b->ops;
	close(tfd);
	return 0;
}

static int f2_timerfd_create(struct bench *b, double *ns)
{
	struct itimerspec arm = { .it_value.tv_sec = 3600 };
	__u64 t0 = now_ns(), i;
	int tfd;

	for (i = 0; i < b->ops; i++) {
		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (tfd < 0)
			return fail(b, errno, OP_OPEN, "timerfd_create");
		if (timerfd_settime(tfd, 0, &arm, NULL)) {
			close(tfd);
			return fail(b, errno, OP_OPEN, "timerfd_settime");
		}
		close(tfd);
	}
	*ns = (double)(now_ns() - t0) / b->ops;
	return 0;
}

static int f2_posix_timer(struct bench *b, double *ns)
{
	struct itimerspec arm = { .it_value.tv_sec = 3600 };
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	__u64 t0 = now_ns(), i;
	timer_t t;

	for (i = 0; i < b->ops; i++) {
		if (timer_create(CLOCK_MONOTONIC, &sev, &t))
			return fail(b, errno, OP_OPEN, "timer_create");
		if (timer_settime(t, 0, &arm, NULL)) {
			timer_delete(t);
			return fail(b, errno, OP_OPEN, "timer_settime");
		}
		timer_delete(t);
	}
	*ns = (double)(now_ns() - t0) / b->ops;
	return 0;
}

/* F2's variants, run in an order that turns by one each repetition. */
#define F2_VARIANTS 7

static int bench_f2(struct bench *b)
{
	struct series floor = SERIES("noop_ioctl_x2",
				     "two no-op ioctls (the floor)"),
		      single = SERIES("dwq_single", "dwq schedule+cancel"),
		      nothead = SERIES("dwq_single_not_head",
				       "dwq the same, behind a head"),
		      batch = SERIES("dwq_batch64",
				     "dwq batch-64 schedule + cancel"),
		      bsched = SERIES("dwq_batch64_schedule",
				      "dwq batch-64 schedule alone"),
		      tarm = SERIES("timerfd_arm_disarm", "timerfd arm+disarm"),
		      tcreate = SERIES("timerfd_create_settime_close",
				       "timerfd create+settime+close"),
		      posix = SERIES("timer_create_settime_delete",
				     "timer_create+settime+delete");
	double v, w;
	unsigned int r, k;
	int fd = dev_open(1);

	if (fd < 0)
		return -1;
	for (r = 0; r < b->reps; r++)
		for (k = 0; k < F2_VARIANTS; k++)
			switch ((k + r) % F2_VARIANTS) {
			case 0:
				if (f2_floor(b, fd, &v))
					goto err;
				add(&floor, v);
				break;
			case 1:
				if (f2_single(b, fd, &v))
					goto err;
				add(&single, v);
				break;
			case 2:
				if (f2_not_head(b, fd, &v))
					goto err;
				add(&nothead, v);
				break;
			case 3:
				if (f2_batch(b, fd, &v, &w))
					goto err;
				add(&batch, v);
				add(&bsched, w);
				break;
			case 4:
				if (f2_timerfd_arm(b, &v))
					goto err;
				add(&tarm, v);
				break;
			case 5:
				if (f2_timerfd_create(b, &v))
					goto err;
				add(&tcreate, v);
				break;
			default:
				if (f2_posix_timer(b, &v))
					goto err;
				add(&posix, v);
				break;
			}
	close(fd);
	header("F2", "ns per schedule+cancel pair, from user space", "ns/op",
	       "floor");
	row("F2", &floor, &floor, "ns/op");
	row("F2", &single, &floor, "ns/op");
	row("F2", &nothead, &floor, "ns/op");
	row("F2", &batch, &floor, "ns/op");
	row("F2", &bsched, &floor, "ns/op");
	row("F2", &tarm, &floor, "ns/op");
	row("F2", &tcreate, &floor, "ns/op");
	row("F2", &posix, &floor, "ns/op");
	print_target("F2", "single <= 1.3x two no-op ioctls",
		     median(&single) / median(&floor), 1.3, 0);
	print_target("F2", "single <= 0.3x timerfd create+settime+close",
		     median(&single) / median(&tcreate), 0.3, 0);
	print_target("F2", "batched <= 0.25x single, per task",
		     median(&batch) / median(&single), 0.25, 0);
	return 0;
err:
	close(fd);
	return -1;
}

/* --- F4b: lateness at read() ---------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

static double pct(__u64 *v, size_t n, double p)
{
	size_t i = (size_t)(p * (n - 1) + 0.5);

	return n ? (double)v[i < n ? i : n - 1] : 0;
}

#define F4_GAP (500 * NSEC_PER_USEC)

/*
 * One timer at a time, @n of them: each one's lateness at read() in
 * @late[] and at its firing in @wlate[] (unsigned: percentiles of late
 * ones); the deliveries before the deadline, by either, counted in @early.
 */
static int f4_dwq(struct bench *b, int fd, __u64 *late, __u64 *wlate, size_t n,
		  unsigned int *early)
{
	struct dwq_ioc_schedule s = { .flags = DWQ_SCHED_ABS };
	struct dwq_event ev;
	ssize_t got;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		s.time_ns = now_ns() + F4_GAP;
		err = dev_schedule(fd, &s);
		if (err)
			return fail(b, -err, OP_SCHEDULE, "schedule");
		do {
			got = read(fd, &ev, sizeof(ev));
		} while (got < 0 && errno == EINTR);
		if (got != sizeof(ev))
			return fail(b, got < 0 ? errno : EIO, OP_READ, "read");
		late[i] = now_ns() - s.time_ns;
		wlate[i] = ev.fired_ns - ev.deadline_ns;
		*early += (__s64)late[i] < 0 || (__s64)wlate[i] < 0 ||
			  ev.deadline_ns != s.time_ns;
	}
	return 0;
}

static int f4_timerfd(struct bench *b, __u64 *late, size_t n)
{
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	struct epoll_event ee = { .events = EPOLLIN }, out;
	struct itimerspec its = { 0 };
	int ep = epoll_create1(EPOLL_CLOEXEC), ret = -1;
	__u64 d, exp;
	size_t i;

	if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ee)) {
		fail(b, errno, OP_OPEN, "timerfd/epoll");
		goto out;
	}
	for (i = 0; i < n; i++) {
		d = now_ns() + F4_GAP;
		its.it_value.tv_sec = d / NSEC_PER_SEC;
		its.it_value.tv_nsec = d % NSEC_PER_SEC;
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL)) {
			fail(b, errno, OP_OPEN, "timerfd_settime");
			goto out;
		}
		while (epoll_wait(ep, &out, 1, -1) < 0)
			if (errno != EINTR) {
				fail(b, errno, OP_READ, "epoll_wait");
				goto out;
			}
		if (read(tfd, &exp, sizeof(exp)) != sizeof(exp)) {
			fail(b, errno, OP_READ, "timerfd read");
			goto out;
		}
		late[i] = now_ns() - d;
	}
	ret = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (ep >= 0)
		close(ep);
	return ret;
}

static int bench_f4(struct bench *b)
{
	static struct series s[3][3] = {
		{ SERIES("dwq_read_p50", "dwq at read(), p50"),
		  SERIES("dwq_read_p99", "dwq at read(), p99"),
		  SERIES("dwq_read_p99.9", "dwq at read(), p99.9") },
		{ SERIES("timerfd_epoll_p50", "timerfd+epoll+read, p50"),
		  SERIES("timerfd_epoll_p99", "timerfd+epoll+read, p99"),
		  SERIES("timerfd_epoll_p99.9", "timerfd+epoll+read, p99.9") },
		{ SERIES("dwq_fired_p50", "dwq fired in read(), p50"),
		  SERIES("dwq_fired_p99", "dwq fired in read(), p99"),
		  SERIES("dwq_fired_p99.9", "dwq fired in read(), p99.9") },
	};
	static struct series early =
		SERIES("dwq_read_early", "dwq early (all repetitions)");
	static const double ps[3] = { 0.5, 0.99, 0.999 };
	size_t n = b->ops / 10;
	__u64 *late, *tlate, *wlate;
	unsigned int r, k, nearly = 0;
	int fd, ret = -1;

	if (n > 1000)
		n = 1000;
	if (n < 10)
		n = 10;
	late = calloc(n, sizeof(*late));
	tlate = calloc(n, sizeof(*tlate));
	wlate = calloc(n, sizeof(*wlate));
	fd = dev_open(0);
	if (!late || !tlate || !wlate || fd < 0)
		goto out;
	for (r = 0; r < b->reps; r++) {
		/* The two in turns: each runs first in every other one. */
		if (r % 2 && f4_timerfd(b, tlate, n))
			goto out;
		if (f4_dwq(b, fd, late, wlate, n, &nearly))
			goto out;
		if (!(r % 2) && f4_timerfd(b, tlate, n))
			goto out;
		qsort(late, n, sizeof(*late), cmp_u64);
		qsort(tlate, n, sizeof(*tlate), cmp_u64);
		qsort(wlate, n, sizeof(*wlate), cmp_u64);
		for (k = 0; k < 3; k++) {
			add(&s[0][k], pct(late, n, ps[k]) / 1000);
			add(&s[1][k], pct(tlate, n, ps[k]) / 1000);
			add(&s[2][k], pct(wlate, n, ps[k]) / 1000);
		}
	}
	header("F4b", "lateness (us after the deadline), 1 timer at a time",
	       "us", "timerfd");
	for (k = 0; k < 3; k++) {
		row("F4b", &s[1][k], &s[1][k], "us");
		row("F4b", &s[0][k], &s[1][k], "us");
		row("F4b", &s[2][k], NULL, "us");
	}
	/* Counted whole: one early delivery in any repetition is one. */
	early.n = 0;
	add(&early, nearly);
	row("F4b", &early, NULL, "count");
	print_target("F4b", "at read() p50 <= 1.5x timerfd+epoll",
		     median(&s[0][0]) / median(&s[1][0]), 1.5, 0);
	print_target("F4b", "at read() p99 <= 2x timerfd+epoll",
		     median(&s[0][1]) / median(&s[1][1]), 2, 0);
	if (!opt.json)
		printf("  (%zu timers per repetition, each armed %s ahead)\n",
		       n, "500us");
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(late);
	free(tlate);
	free(wlate);
	return ret;
}

/* --- limits ------------------------------------------------------- */

static void raise_limit(int res, __u64 want)
{
	struct rlimit rl;

	if (getrlimit(res, &rl))
		return;
	if (rl.rlim_cur >= want)
		return;
	if (rl.rlim_max < want) {
		rl.rlim_max = want;
		rl.rlim_cur = want;
		if (!setrlimit(res, &rl))
			return;
		getrlimit(res, &rl);
	}
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	setrlimit(res, &rl);
}

/* --- F6: threads ---------------------------------------------------- */

enum f6_kind { F6_DWQ, F6_NOOP, F6_TIMERFD };

/*
 * Where the threads wait to start together, as at a barrier that the main
 * thread can also call off: a thread that could not be created would
 * leave the others waiting for ever at a pthread barrier.
 */
struct f6_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int waiting; /* threads at the gate */
	int open; /* 0 shut, 1 open: go, -1 called off: return */
};

struct f6_thread {
	pthread_t tid;
	struct f6_gate *gate;
	enum f6_kind kind;
	__u64 ops;
	__u64 start; /* the thread's clock when it left the gate */
	__u64 end; /* and when it had done its pairs */
	int fd;
	int err;
};

/* Wait at @g until it opens (return 0) or is called off (-1). */
static int f6_gate_wait(struct f6_gate *g)
{
	int open;

	pthread_mutex_lock(&g->lock);
	g->waiting++;
	pthread_cond_broadcast(&g->cond);
	while (!g->open)
		pthread_cond_wait(&g->cond, &g->lock);
	open = g->open;
	pthread_mutex_unlock(&g->lock);
	return open > 0 ? 0 : -1;
}

/* Open @g once @n threads wait at it, or with @n 0 call it off. */
static void f6_gate_open(struct f6_gate *g, unsigned int n)
{
	pthread_mutex_lock(&g->lock);
	while (n && g->waiting < n)
		pthread_cond_wait(&g->cond, &g->lock);
	g->open = n ? 1 : -1;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void *f6_worker(void *arg)
{
	struct itimerspec arm = { .it_value.tv_sec = 3600 }, off = { 0 };
	struct f6_thread *t = arg;
	struct dwq_ioc_schedule s = { .time_ns = FAR_AHEAD };
	struct dwq_ioc_cancel c = { 0 };
	__u64 i;

	if (f6_gate_wait(t->gate))
		return NULL;
	t->start = now_ns();
	for (i = 0; i < t->ops && !t->err; i++) {
		switch (t->kind) {
		case F6_DWQ:
			t->err = -dev_schedule(t->fd, &s);
			c.id = s.id;
			if (!t->err)
				t->err = -dev_cancel(t->fd, &c);
			break;
		case F6_NOOP:
			if (ioctl(t->fd, DWQ_IOC_NOOP, 0) != -1 ||
			    ioctl(t->fd, DWQ_IOC_NOOP, 0) != -1)
				t->err = EIO;
			break;
		case F6_TIMERFD:
			if (timerfd_settime(t->fd, 0, &arm, NULL) ||
			    timerfd_settime(t->fd, 0, &off, NULL))
				t->err = errno;
			break;
		}
	}
	t->end = now_ns();
	return NULL;
}

/*
 * Pairs per second, all threads together: from the first thread's start to
 * the last one's end, each read by the thread itself, so no pair falls
 * outside the span however the threads and the main one are scheduled.
 */
static int f6_run(struct bench *b, enum f6_kind kind, unsigned int n,
		  double *rate)
{
	struct f6_gate gate = { 0 };
	struct f6_thread t[8];
	unsigned int i, opened, made;
	int ret = -1, err = 0;
	__u64 t0 = ~0ULL, t1 = 0;
	char what[64];

	pthread_mutex_init(&gate.lock, NULL);
	pthread_cond_init(&gate.cond, NULL);
	/* Every file first: no thread waits for one that cannot start. */
	for (opened = 0; opened < n; opened++) {
		t[opened] = (struct f6_thread){ .gate = &gate,
						.kind = kind,
						.ops = b->ops };
		if (kind == F6_TIMERFD) {
			t[opened].fd =
				timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
			if (t[opened].fd < 0) {
				err = errno;
				snprintf(what, sizeof(what),
					 "F6: timerfd_create, thread %u of %u",
					 opened + 1, n);
				fail(b, err, OP_OPEN, what);
				goto out;
			}
		} else {
			t[opened].fd = dev_open(1); /* says why not */
			if (t[opened].fd < 0)
				goto out;
		}
	}
	for (made = 0; made < n; made++) {
		err = pthread_create(&t[made].tid, NULL, f6_worker, &t[made]);
		if (err)
			break;
	}
	/* A thread missing: those made return at once, and are joined. */
	f6_gate_open(&gate, made < n ? 0 : n);
	for (i = 0; i < made; i++)
		pthread_join(t[i].tid, NULL);
	if (made < n) {
		errorf(err, NULL, "bench: F6: pthread_create, thread %u of %u",
		       made + 1, n);
		b->failed = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (t[i].start < t0)
			t0 = t[i].start;
		if (t[i].end > t1)
			t1 = t[i].end;
	}
	*rate = (double)b->ops * n * NSEC_PER_SEC / (t1 - t0);
	ret = 0;
	for (i = 0; i < n && !ret; i++)
		if (t[i].err)
			ret = fail(b, t[i].err, OP_SCHEDULE, "F6: a thread");
out:
	for (i = 0; i < opened; i++)
		close(t[i].fd);
	pthread_cond_destroy(&gate.cond);
	pthread_mutex_destroy(&gate.lock);
	return ret;
}

static int bench_f6(struct bench *b)
{
	static const unsigned int threads[] = { 1, 2, 4, 8 };
	static const char *const kinds[] = { "dwq", "noop_ioctl_x2",
					     "timerfd_arm_disarm" };
	static const char *const labels[] = { "dwq schedule+cancel",
					      "two no-op ioctls",
					      "timerfd arm+disarm" };
	static struct series s[3][4];
	static char names[3][4][48], lbl[3][4][48];
	unsigned int r, k, i;
	double v;

	for (k = 0; k < 3; k++)
		for (i = 0; i < 4; i++) {
			snprintf(names[k][i], sizeof(names[k][i]), "%s_%ut",
				 kinds[k], threads[i]);
			snprintf(lbl[k][i], sizeof(lbl[k][i]),
				 "%s, %u thread%s", labels[k], threads[i],
				 threads[i] > 1 ? "s" : "");
			s[k][i].name = names[k][i];
			s[k][i].label = lbl[k][i];
			s[k][i].n = 0;
		}
	for (r = 0; r < b->reps; r++)
		for (i = 0; i < 4; i++)
			for (k = 0; k < 3; k++) {
				if (f6_run(b, k, threads[i], &v))
					return -1;
				add(&s[k][i], v / 1000);
			}
	header("F6", "thousand pairs per second, all threads (a file each)",
	       "k/s", "1 thread");
	for (k = 0; k < 3; k++)
		for (i = 0; i < 4; i++)
			row("F6", &s[k][i], &s[k][0], "kpairs/s");
	print_target("F6", "dwq 8 threads >= 3x one thread",
		     median(&s[0][3]) / median(&s[0][0]), 3, 1);
	if (!opt.json)
		printf("  (%ld CPUs online: scaling beyond them is not possible)\n",
		       sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

/* --- F7: events per second ------------------------------------------ */

static void sleep_until(__u64 t)
{
	struct timespec ts = {
		.tv_sec = t / NSEC_PER_SEC,
		.tv_nsec = t % NSEC_PER_SEC,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* Arming took past the deadline: the rate then counts the arming too. */
static void late_warning(const char *what, size_t n, __u64 d)
{
	if (now_ns() > d)
		fprintf(stderr,
			"dwqctl: bench: F7: arming %zu %s timers took past their deadline; the rate is low\n",
			n, what);
}

static int f7_dwq(struct bench *b, size_t n, double *rate)
{
	struct dwq_ioc_schedule *e = calloc(DWQ_SCHEDULE_BATCH_MAX, sizeof(*e));
	struct dwq_event ev[F7_READ];
	size_t done = 0, got = 0;
	__u64 d = now_ns() + 200 * NSEC_PER_MSEC + n * 50 * NSEC_PER_USEC;
	int fd = dev_open(0), err, k, ret = -1;

	if (!e || fd < 0)
		goto out;
	while (done < n) {
		unsigned int c = DWQ_SCHEDULE_BATCH_MAX, j;

		if (c > n - done)
			c = n - done;
		memset(e, 0, c * sizeof(*e));
		for (j = 0; j < c; j++) {
			e[j].time_ns = d;
			e[j].flags = DWQ_SCHED_ABS;
		}
		err = schedule_batch(fd, e, c);
		if (err) {
			fail(b, -err, OP_BATCH, "F7: schedule batch");
			goto out;
		}
		done += c;
	}
	late_warning("dwq", n, d);
	sleep_until(d);
	while (got < n) {
		k = dev_read_events(fd, ev, F7_READ);
		if (k < 0 && k != -EINTR) {
			fail(b, -k, OP_READ, "F7: read");
			goto out;
		}
		if (k > 0)
			got += k;
	}
	*rate = (double)n * NSEC_PER_SEC / (now_ns() - d);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(e);
	return ret;
}

static int f7_timerfd(struct bench *b, size_t n, double *rate)
{
	struct epoll_event ee = { .events = EPOLLIN }, out[F7_READ];
	struct itimerspec its = { 0 };
	__u64 d, exp;
	int *fds = calloc(n, sizeof(*fds)), ep = epoll_create1(EPOLL_CLOEXEC);
	size_t i, made = 0, got = 0;
	int k, j, ret = -1;

	if (!fds || ep < 0)
		goto out;
	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC,
					TFD_CLOEXEC | TFD_NONBLOCK);
		if (fds[i] < 0) {
			fail(b, errno, OP_OPEN, "F7: timerfd (RLIMIT_NOFILE?)");
			goto out;
		}
		made++;
		ee.data.fd = fds[i];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ee)) {
			fail(b, errno, OP_OPEN, "F7: epoll_ctl");
			goto out;
		}
	}
	/* Created and watched: now arm them all for one deadline. */
	d = now_ns() + 200 * NSEC_PER_MSEC + n * 50 * NSEC_PER_USEC;
	its.it_value.tv_sec = d / NSEC_PER_SEC;
	its.it_value.tv_nsec = d % NSEC_PER_SEC;
	for (i = 0; i < n; i++) {
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL)) {
			fail(b, errno, OP_OPEN, "F7: timerfd_settime");
			goto out;
		}
	}
	late_warning("timerfd", n, d);
	sleep_until(d);
	while (got < n) {
		k = epoll_wait(ep, out, F7_READ, -1);
		if (k < 0 && errno != EINTR) {
			fail(b, errno, OP_READ, "F7: epoll_wait");
			goto out;
		}
		for (j = 0; j < k; j++)
			if (read(out[j].data.fd, &exp, sizeof(exp)) ==
			    sizeof(exp))
				got++;
	}
	*rate = (double)n * NSEC_PER_SEC / (now_ns() - d);
	ret = 0;
out:
	for (i = 0; i < made; i++)
		close(fds[i]);
	if (ep >= 0)
		close(ep);
	free(fds);
	return ret;
}

static int bench_f7(struct bench *b)
{
	struct series d = SERIES("dwq_read", "dwq, read() 256 at a time"),
		      tf = SERIES("timerfd_epoll", "N timerfds, epoll + read");
	size_t n = b->ops > 10000 ? 10000 : b->ops;
	struct rlimit rl;
	unsigned int r, k;
	double v;

	raise_limit(RLIMIT_NOFILE, n + 64);
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < n + 64)
		n = rl.rlim_cur > 128 ? rl.rlim_cur - 64 : 64;
	for (r = 0; r < b->reps; r++) {
		/* The two in turns: each runs first in every other one. */
		for (k = 0; k < 2; k++) {
			if ((k + r) % 2 == 0) {
				if (f7_dwq(b, n, &v))
					return -1;
				add(&d, v / 1000);
			} else {
				if (f7_timerfd(b, n, &v))
					return -1;
				add(&tf, v / 1000);
			}
		}
	}
	header("F7", "thousand events per second, all due at once", "k/s",
	       "timerfd");
	row("F7", &tf, &tf, "kevents/s");
	row("F7", &d, &tf, "kevents/s");
	print_target("F7", "dwq >= 3x timerfd via epoll",
		     median(&d) / median(&tf), 3, 1);
	if (!opt.json)
		printf("  (N = %zu timers, one deadline)\n", n);
	return 0;
}

/* --- the command ---------------------------------------------------- */

static void environment(struct bench *b)
{
	char cs[64] = "?", w[32] = "?";
	struct utsname u;
	FILE *f;
	int slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);

	uname(&u);
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  "re");
	if (f) {
		if (fgets(cs, sizeof(cs), f))
			cs[strcspn(cs, "\n")] = '\0';
		fclose(f);
	}
	read_param("workers", w, sizeof(w));
	if (opt.json) {
		json_begin("bench_env");
		json_str("kernel", u.release);
		json_str("clocksource", cs);
		json_s64("cpus", sysconf(_SC_NPROCESSORS_ONLN));
		json_sns("timer_slack_ns", slack);
		json_str("workers", w);
		json_u64("ops", b->ops);
		json_u64("reps", b->reps);
		json_end();
		return;
	}
	printf("dwqctl bench: %u repetitions of %llu operations per timing;\n"
	       "medians with min-max, ratios of medians to the anchor.\n",
	       b->reps, b->ops);
	printf("kernel %s, clocksource %s, %ld CPUs, timer slack %dns, dwq workers=%s\n",
	       u.release, cs, sysconf(_SC_NPROCESSORS_ONLN), slack, w);
}

static int parse_only(const char *s, unsigned int *only)
{
	char buf[64], *p, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	*only = 0;
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(p, "F2"))
			*only |= F2;
		else if (!strcasecmp(p, "F4b") || !strcasecmp(p, "F4"))
			*only |= F4B;
		else if (!strcasecmp(p, "F6"))
			*only |= F6;
		else if (!strcasecmp(p, "F7"))
			*only |= F7;
		else
			return -1;
	}
	return *only ? 0 : -1;
}

/**
 * cmd_bench() - dwqctl bench [--ops N] [--reps R] [--only LIST] [--json]
 * @argc: arguments, argv[0] being "bench"
 * @argv: the arguments
 *
 * Return: 0, or 1 if a benchmark could not run, 2 for usage.
 */
int cmd_bench(int argc, char **argv)
{
	struct bench b = { .ops = 10000, .reps = 5 };
	__u64 v;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;

		if (common_opt("bench", argv, &i))
			continue;
		if (opt_value(argv, &i, "--ops", &val)) {
			if (!val || parse_u64(val, &b.ops) || b.ops < 1 ||
			    b.ops > 100000000)
				return usage_error("bench",
						   "--ops needs a number from 1 to 10^8");
		} else if (opt_value(argv, &i, "--reps", &val)) {
			if (!val || parse_u64(val, &v) || v < 1 || v > MAX_REPS)
				return usage_error("bench",
						   "--reps needs a number from 1 to %d",
						   MAX_REPS);
			b.reps = v;
		} else if (opt_value(argv, &i, "--only", &val)) {
			if (!val || parse_only(val, &b.only))
				return usage_error("bench",
						   "--only takes F2, F4b, F6, F7, comma-separated");
		} else {
			return usage_error("bench", "unexpected '%s'", a);
		}
	}
	if (!b.only)
		b.only = F2 | F4B | F6 | F7;
	environment(&b);
	if ((b.only & F2) && bench_f2(&b))
		return 1;
	if ((b.only & F4B) && bench_f4(&b))
		return 1;
	if ((b.only & F6) && bench_f6(&b))
		return 1;
	if ((b.only & F7) && bench_f7(&b))
		return 1;
	return b.failed;
}
