// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-modeswitch: DWQ_IOC_RESCHEDULE with DWQ_RESCHED_PERIOD turns tasks
 * from one-shot into periodic and back while they are due or firing; the
 * LAST flag (and the id's removal) must follow the mode the firing really
 * had, never the one a concurrent reschedule is about to give.
 *
 * usage: dwq-modeswitch [--iterations N] [--threads T] [--dev PATH]
 *
 * Each thread, on its own file, repeats:
 *  A. a one-shot due now becomes fixed-rate (1 ms): if the reschedule
 *     succeeded, no LAST event may come and the id must stay until
 *     cancelled; if it found the one-shot gone (-ENOENT), exactly one LAST,
 *     and once that was read, CANCEL is -ENOENT.
 *  B. a fixed-rate task (1 ms) that fired becomes a one-shot due in
 *     0..1 ms: exactly one LAST event must come, at the new deadline, and
 *     nothing after it.
 *  C. a fixed-rate task (1 ms) that fired becomes a one-shot due in 10 s
 *     and is cancelled at once. A cancel that finds it firing
 *     (DWQ_RESULT_RUNNING) found the periodic firing that began before
 *     the reschedule: its event comes (or came) without LAST, and nothing
 *     after it;
 *     a cancel that removed it: no LAST either. Always: the id is gone.
 * At the end nothing may be pending or still firing on any file.
 * Prints "iterations=... failures=..." and exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/dwq.h>

#define NS_PER_MS 1000000ULL
#define UNTIL_LAST 1
#define UNTIL_ANY 2

static int iterations = 300, nthreads = 4;
static const char *dev = "/dev/dwq";
static int failures, stray, c_running; /* __atomic */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(int t, int i, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&lock);
	if (++failures <= 20) {
		printf("dwq-modeswitch: FAIL: thread %d iteration %d: ", t, i);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
		fflush(stdout);
	}
	pthread_mutex_unlock(&lock);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static long xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/*
 * Read events of @id for up to @ms, or until a LAST one came (@until
 * UNTIL_LAST), or any new one (UNTIL_ANY); count them and the LAST ones.
 */
static bool done(int until, int n, int n0, int last)
{
	return (until && last) || (until == UNTIL_ANY && n > n0);
}

static void collect(int fd, __u64 id, int ms, int *n, int *last, __u64 *last_dl,
		    int *other, int until)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	__u64 end = now_ns() + ms * NS_PER_MS;
	struct dwq_event ev[8];
	int i, n0 = *n;
	ssize_t len;

	/* At least one look, however late this thread got the CPU back. */
	do {
		if (poll(&p, 1, 1) <= 0)
			continue;
		len = read(fd, ev, sizeof(ev));
		for (i = 0; i < len / (ssize_t)sizeof(ev[0]); i++) {
			if (ev[i].id != id) {
				(*other)++;
				continue;
			}
			(*n)++;
			if (ev[i].flags & DWQ_EVENT_LAST) {
				(*last)++;
				*last_dl = ev[i].deadline_ns;
			}
		}
	} while (now_ns() < end && !done(until, *n, n0, *last));
}

static void case_a(int t, int i, int fd)
{
	struct dwq_ioc_schedule s = { .mode = DWQ_MODE_ONESHOT };
	struct dwq_ioc_reschedule r = {
		.mode = DWQ_MODE_FIXED_RATE,
		.period_ns = NS_PER_MS,
		.flags = DWQ_RESCHED_PERIOD,
	};
	struct dwq_ioc_cancel c = {};
	int n = 0, last = 0, other = 0, last_before;
	__u64 dl = 0;
	long err, cerr;

	if (xioctl(fd, DWQ_IOC_SCHEDULE, &s)) {
		fail(t, i, "A: SCHEDULE: %s", strerror(errno));
		return;
	}
	r.id = s.id;
	err = xioctl(fd, DWQ_IOC_RESCHEDULE, &r);
	collect(fd, s.id, 5, &n, &last, &dl, &other, 0);
	last_before = last;
	c.id = s.id;
	cerr = xioctl(fd, DWQ_IOC_CANCEL, &c);
	/* A one-shot's LAST, or a periodic firing cancelled: one more. */
	if (err)
		collect(fd, s.id, 5000, &n, &last, &dl, &other, UNTIL_LAST);
	else if (!cerr && c.result == DWQ_RESULT_RUNNING)
		collect(fd, s.id, 3000, &n, &last, &dl, &other, UNTIL_ANY);
	else /* REMOVED: an event of an earlier firing may be unread. */
		collect(fd, s.id, 5, &n, &last, &dl, &other, 0);
	if (err == 0 && (last || cerr))
		fail(t, i,
		     "A: one-shot made periodic: %d LAST events of %d, then CANCEL %ld",
		     last, n, cerr);
	else if (err == -ENOENT && (last != 1 || n != 1))
		fail(t, i, "A: one-shot fired first: %d LAST of %d events",
		     last, n);
	else if (err == -ENOENT && last_before && cerr != -ENOENT)
		fail(t, i,
		     "A: CANCEL after the LAST event was read: %ld, result %u",
		     cerr, c.result);
	else if (err == -ENOENT && cerr && cerr != -ENOENT)
		fail(t, i, "A: CANCEL of a fired one-shot: %ld", cerr);
	else if (err && err != -ENOENT)
		fail(t, i, "A: RESCHEDULE: %s", strerror((int)-err));
	/* A periodic firing cancelled RUNNING may come late: see quiet(). */
	__atomic_add_fetch(&stray, other, __ATOMIC_RELAXED);
}

static void case_b(int t, int i, int fd)
{
	struct dwq_ioc_schedule s = {
		.mode = DWQ_MODE_FIXED_RATE,
		.period_ns = NS_PER_MS,
	};
	struct dwq_ioc_reschedule r = {
		.mode = DWQ_MODE_ONESHOT,
		.flags = DWQ_RESCHED_PERIOD,
	};
	struct dwq_ioc_query q = {};
	int n = 0, last = 0, other = 0;
	__u64 dl = 0, t0, t1;
	long err, qerr;

	if (xioctl(fd, DWQ_IOC_SCHEDULE, &s)) {
		fail(t, i, "B: SCHEDULE: %s", strerror(errno));
		return;
	}
	/* Let it fire (a little while, so the switch meets it anywhere). */
	collect(fd, s.id, 1 + i % 3, &n, &last, &dl, &other, 0);
	r.id = s.id;
	r.time_ns = (i % 4) * NS_PER_MS / 4;
	t0 = now_ns();
	err = xioctl(fd, DWQ_IOC_RESCHEDULE, &r);
	t1 = now_ns();
	n = 0;
	/* TCG guests can be late by hundreds of ms under load. */
	collect(fd, s.id, 5000, &n, &last, &dl, &other, UNTIL_LAST);
	collect(fd, s.id, 5, &n, &last, &dl, &other, 0);
	q.id = s.id;
	qerr = xioctl(fd, DWQ_IOC_QUERY, &q);
	if (err)
		fail(t, i, "B: RESCHEDULE of a periodic task: %s",
		     strerror((int)-err));
	else if (last != 1)
		fail(t, i,
		     "B: periodic made one-shot: %d LAST events (%d events after)",
		     last, n);
	else if (dl < t0 + r.time_ns || dl > t1 + r.time_ns)
		fail(t, i,
		     "B: LAST deadline %llu not the new one, in [%llu, %llu]",
		     (unsigned long long)dl,
		     (unsigned long long)(t0 + r.time_ns),
		     (unsigned long long)(t1 + r.time_ns));
	if (!err && qerr != -ENOENT)
		fail(t, i, "B: after its LAST event, QUERY: %ld", qerr);
	if (qerr == 0) {
		struct dwq_ioc_cancel c = { .id = s.id };

		xioctl(fd, DWQ_IOC_CANCEL, &c);
	}
	__atomic_add_fetch(&stray, other, __ATOMIC_RELAXED);
}

static void case_c(int t, int i, int fd)
{
	struct dwq_ioc_schedule s = {
		.mode = DWQ_MODE_FIXED_RATE,
		.period_ns = NS_PER_MS,
	};
	struct dwq_ioc_reschedule r = {
		.mode = DWQ_MODE_ONESHOT,
		.time_ns = 10000 * NS_PER_MS,
		.flags = DWQ_RESCHED_PERIOD,
	};
	struct dwq_ioc_cancel c = {};
	struct dwq_ioc_query q = {};
	int n = 0, last = 0, other = 0;
	__u64 dl = 0;
	long err, cerr, qerr;

	if (xioctl(fd, DWQ_IOC_SCHEDULE, &s)) {
		fail(t, i, "C: SCHEDULE: %s", strerror(errno));
		return;
	}
	collect(fd, s.id, 5000, &n, &last, &dl, &other, UNTIL_ANY);
	r.id = s.id;
	c.id = s.id;
	err = xioctl(fd, DWQ_IOC_RESCHEDULE, &r);
	cerr = xioctl(fd, DWQ_IOC_CANCEL, &c);
	q.id = s.id;
	qerr = xioctl(fd, DWQ_IOC_QUERY, &q);
	n = 0;
	if (!cerr && c.result == DWQ_RESULT_RUNNING) {
		__atomic_add_fetch(&c_running, 1, __ATOMIC_RELAXED);
		/* The firing's own event may come late under TCG. */
		collect(fd, s.id, 1000, &n, &last, &dl, &other, UNTIL_ANY);
	}
	collect(fd, s.id, 5, &n, &last, &dl, &other, 0);
	if (err)
		fail(t, i, "C: RESCHEDULE of a periodic task: %s",
		     strerror((int)-err));
	else if (cerr)
		fail(t, i, "C: CANCEL: %s", strerror((int)-cerr));
	else if (last)
		fail(t, i,
		     "C: made one-shot due in 10 s, cancelled %s: %d LAST of %d events",
		     c.result == DWQ_RESULT_RUNNING ? "firing" : "queued", last,
		     n);
	else if (n > (c.result == DWQ_RESULT_RUNNING ? 2 : 1))
		/* One unread from before, and one of the firing found. */
		fail(t, i, "C: %d events after the cancel (result %u)", n,
		     c.result);
	if (qerr != -ENOENT)
		fail(t, i, "C: after CANCEL, QUERY: %ld", qerr);
	if (cerr) /* do not leave it firing into the next case */
		xioctl(fd, DWQ_IOC_CANCEL, &c);
	__atomic_add_fetch(&stray, other, __ATOMIC_RELAXED);
}

/*
 * At the end nothing of the file's may live on: nothing pending, and no
 * firing for 300 ms (a periodic task that lost its id would go on).
 */
static void quiet(int t, int fd)
{
	struct dwq_ioc_stats a, b;
	int n = 0, last = 0, other = 0;
	__u64 dl = 0;

	collect(fd, 0, 300, &n, &last, &dl, &other, 0);
	if (xioctl(fd, DWQ_IOC_STATS, &a)) {
		fail(t, iterations, "STATS: %s", strerror(errno));
		return;
	}
	collect(fd, 0, 300, &n, &last, &dl, &other, 0);
	if (xioctl(fd, DWQ_IOC_STATS, &b))
		fail(t, iterations, "STATS: %s", strerror(errno));
	else if (a.pending || b.pending || a.fired != b.fired)
		fail(t, iterations,
		     "at the end: pending %llu, fired %llu then %llu",
		     (unsigned long long)b.pending, (unsigned long long)a.fired,
		     (unsigned long long)b.fired);
}

static void *thread(void *arg)
{
	int t = (int)(long)arg, fd, i;

	fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fail(t, 0, "%s: %s", dev, strerror(errno));
		return NULL;
	}
	for (i = 0; i < iterations; i++) {
		case_a(t, i, fd);
		case_b(t, i, fd);
		case_c(t, i, fd);
	}
	quiet(t, fd);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "iterations", 1, NULL, 'i' },
					    { "threads", 1, NULL, 't' },
					    { "dev", 1, NULL, 'd' },
					    {} };
	pthread_t th[64];
	int c, t;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'i')
			iterations = atoi(optarg);
		else if (c == 't')
			nthreads = atoi(optarg);
		else if (c == 'd')
			dev = optarg;
		else
			return 2;
	}
	if (nthreads < 1 || nthreads > 64)
		return 2;
	for (t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, thread, (void *)(long)t);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("iterations=%d threads=%d late-events=%d c-cancelled-firing=%d failures=%d\n",
	       iterations, nthreads, stray, c_running, failures);
	return failures ? 1 : 0;
}
