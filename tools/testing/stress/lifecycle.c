// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-lifecycle: the user-space halves of tools/testing/stress/lifecycle.sh.
 *
 * usage: dwq-lifecycle hold N PERIODIC
 *        dwq-lifecycle traffic
 *        dwq-lifecycle failnth
 *        dwq-lifecycle load MODULE PARAMS
 *        dwq-lifecycle loadfail MODULE PARAMS
 *
 * hold: schedules N tasks with batches on one file, PERIODIC of them
 *	fixed-rate every 10 ms, the others one-shots an hour away; prints
 *	"holding N" once STATS agrees, then waits to be killed.
 * traffic: one short round trip: 64 one-shots (0..20 ms) and 2 periodic
 *	tasks, a quarter of the one-shots cancelled, every event read, the
 *	counters checked against what was done; then close.
 * failnth: with failslab/fail_page_alloc set up by the caller (filtered to
 *	dwq.ko's text), fails the 1st, 2nd, ... allocation of batch schedules
 *	bigger than the file's heap has room for, which must grow it then
 *	and there, through /proc/thread-self/fail-nth, until a batch needs
 *	fewer allocations than that; then again on a file that keeps spare
 *	tasks, which a burst takes before it allocates. Every failed call
 *	must be ENOMEM and leave STATS, the queue and every earlier task as
 *	they were. Before each file is closed, every task it kept (those
 *	that lived through the injected failures, and the bursts that
 *	worked) is moved to now: each fires exactly once, with its cookie,
 *	and nothing else does (a failed call's tasks, cancelled spares).
 * load: finit_module(MODULE, PARAMS), once (busybox insmod loads a module
 *	a second time with init_module() when that fails).
 * loadfail: with failslab/fail_page_alloc set up by the caller (filtered
 *	to stacks through module text: dwq's init and what it calls),
 *	finit_module(MODULE, PARAMS) with its 1st, 2nd, ... allocation
 *	failed, until a load needs fewer; each failed load must be ENOMEM
 *	(or EBUSY: misc_register() says that when its minor's allocation
 *	fails) and leave no module, no /dev/dwq and no dwq thread behind;
 *	each load that works is unloaded again. At least one must fail.
 *
 * Exit status 0 when every check passed; each failure is printed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/dwq.h>

#define MS 1000000ULL
#define HOUR (3600ULL * 1000 * MS)
#define MAX_IDS 8192
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int failures;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("dwq-lifecycle: FAIL: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	failures++;
}

static int open_dev(void)
{
	int fd = open("/dev/dwq", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("dwq-lifecycle: /dev/dwq");
		exit(2);
	}
	return fd;
}

static struct dwq_ioc_stats stats(int fd)
{
	struct dwq_ioc_stats st;

	if (ioctl(fd, DWQ_IOC_STATS, &st)) {
		perror("dwq-lifecycle: STATS");
		exit(2);
	}
	return st;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Batch-schedule @n entries of @s; 0 or -errno. */
static long batch(int fd, struct dwq_ioc_schedule *s, unsigned int n)
{
	struct dwq_ioc_schedule_batch b = {
		.entries = (uintptr_t)s,
		.count = n,
	};

	return ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b) ? -errno : 0;
}

static int cmd_hold(unsigned int n, unsigned int periodic)
{
	static struct dwq_ioc_schedule s[DWQ_SCHEDULE_BATCH_MAX];
	unsigned int done = 0, k, i;
	int fd = open_dev();
	long err;

	while (done < n) {
		k = n - done < DWQ_SCHEDULE_BATCH_MAX ? n - done :
							DWQ_SCHEDULE_BATCH_MAX;
		memset(s, 0, sizeof(s[0]) * k);
		for (i = 0; i < k; i++) {
			s[i].cookie = done + i;
			if (done + i < periodic) {
				s[i].mode = DWQ_MODE_FIXED_RATE;
				s[i].period_ns = 10 * MS;
			} else {
				s[i].time_ns = HOUR;
			}
		}
		err = batch(fd, s, k);
		if (err) {
			printf("dwq-lifecycle: batch at %u: %s\n", done,
			       strerror((int)-err));
			return 1;
		}
		done += k;
	}
	if (stats(fd).pending != n) {
		printf("dwq-lifecycle: pending %llu, want %u\n",
		       (unsigned long long)stats(fd).pending, n);
		return 1;
	}
	printf("holding %u\n", n);
	fflush(stdout);
	for (;;)
		pause();
}

/* Read events until @want one-shots are done and periodic ones ran twice. */
static void read_until(int fd, const bool *cancelled, unsigned int n,
		       unsigned int want, __u64 *runs, __u64 *read_events)
{
	struct dwq_event ev[32];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned int last = 0, i;
	__u64 deadline = now_ns() + 10000 * MS;
	ssize_t len;

	while ((last < want || runs[n] < 2 || runs[n + 1] < 2) &&
	       now_ns() < deadline) {
		if (poll(&p, 1, 1000) <= 0)
			continue;
		len = read(fd, ev, sizeof(ev));
		if (len < 0) {
			fail("read: %s", strerror(errno));
			return;
		}
		for (i = 0; i < len / sizeof(ev[0]); i++) {
			__u64 c = ev[i].cookie;

			(*read_events)++;
			if (c >= n + 2) {
				fail("event: cookie %llu (id %llu)",
				     (unsigned long long)c,
				     (unsigned long long)ev[i].id);
				continue;
			}
			if (c < n && cancelled[c])
				fail("event: cancelled task %llu fired",
				     (unsigned long long)c);
			if (c < n && !(ev[i].flags & DWQ_EVENT_LAST))
				fail("event: one-shot %llu without LAST (flags %#x)",
				     (unsigned long long)c, ev[i].flags);
			if (ev[i].fired_ns < ev[i].deadline_ns)
				fail("event: task %llu fired before its deadline",
				     (unsigned long long)c);
			runs[c] += 1 + ev[i].overruns;
			if (c < n)
				last++;
		}
	}
	if (last != want)
		fail("round trip: %u one-shots fired, want %u", last, want);
}

static int cmd_traffic(void)
{
	enum { N = 64 };
	struct dwq_ioc_schedule s[N + 2] = {};
	bool cancelled[N] = {};
	__u64 runs[N + 2] = {}, read_events = 0;
	unsigned int i, removed = 0, want = N;
	struct dwq_ioc_cancel c;
	struct dwq_ioc_stats st;
	int fd = open_dev();
	long err;

	for (i = 0; i < N + 2; i++) {
		s[i].cookie = i;
		if (i < N) {
			s[i].time_ns = (i % 21) * MS;
		} else {
			s[i].mode = DWQ_MODE_FIXED_RATE + (i - N);
			s[i].period_ns = 2 * MS;
		}
	}
	err = batch(fd, s, N + 2);
	if (err) {
		fail("batch: %s", strerror((int)-err));
		return 1;
	}
	/* Cancel every fourth one-shot: removed, or it fired already. */
	for (i = 0; i < N; i += 4) {
		c = (struct dwq_ioc_cancel){ .id = s[i].id };
		if (ioctl(fd, DWQ_IOC_CANCEL, &c) == 0) {
			if (c.result == DWQ_RESULT_REMOVED) {
				cancelled[i] = true;
				removed++;
				want--;
			}
		} else if (errno != ENOENT) {
			fail("cancel id %llu: %s", (unsigned long long)s[i].id,
			     strerror(errno));
		}
	}
	read_until(fd, cancelled, N, want, runs, &read_events);
	for (i = N; i < N + 2; i++) {
		c = (struct dwq_ioc_cancel){ .id = s[i].id };
		if (ioctl(fd, DWQ_IOC_CANCEL, &c))
			fail("cancel periodic id %llu: %s",
			     (unsigned long long)s[i].id, strerror(errno));
		else if (c.result == DWQ_RESULT_REMOVED ||
			 c.result == DWQ_RESULT_UNREAD)
			removed++;
	}
	st = stats(fd);
	if (st.cancelled != removed)
		fail("round trip: STATS cancelled %llu, removed %u",
		     (unsigned long long)st.cancelled, removed);
	if (st.pending != 0)
		fail("round trip: %llu pending after the cancels",
		     (unsigned long long)st.pending);
	if (st.fired - st.coalesced != read_events + st.events)
		fail("round trip: fired - coalesced %llu != events read %llu + waiting %llu",
		     (unsigned long long)(st.fired - st.coalesced),
		     (unsigned long long)read_events,
		     (unsigned long long)st.events);
	printf("dwq-lifecycle: traffic: %u fired, %u removed, periodic %llu+%llu, %llu events\n",
	       want, removed, (unsigned long long)runs[N],
	       (unsigned long long)runs[N + 1],
	       (unsigned long long)read_events);
	if (close(fd))
		fail("close: %s", strerror(errno));
	return failures ? 1 : 0;
}

static int fail_nth_fd = -1;

/* Fail the @nth allocation from now on in this thread (0: none). */
static void set_fail_nth(unsigned int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", nth);

	if (pwrite(fail_nth_fd, buf, len, 0) != len) {
		perror("dwq-lifecycle: fail-nth");
		exit(2);
	}
}

/* 0 if the failure armed last was injected, else how many were left. */
static unsigned int fail_nth_left(void)
{
	char buf[16] = "";

	if (pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) < 0) {
		perror("dwq-lifecycle: fail-nth");
		exit(2);
	}
	return strtoul(buf, NULL, 10);
}

/* The ledger of failnth: every id scheduled, with its cookie. */
static __u64 ids[MAX_IDS], cookies[MAX_IDS];
static unsigned int nids;

/* Every task of the ledger is found by its id, queued, with its cookie. */
static bool ids_found(int fd, unsigned int nth)
{
	struct dwq_ioc_query q;
	unsigned int i;

	for (i = 0; i < nids; i++) {
		q = (struct dwq_ioc_query){ .id = ids[i] };
		if (ioctl(fd, DWQ_IOC_QUERY, &q) || q.cookie != cookies[i] ||
		    q.state != DWQ_STATE_QUEUED) {
			printf("dwq-lifecycle: FAIL: nth %u: id %llu lost (cookie %llu state %u)\n",
			       nth, (unsigned long long)ids[i],
			       (unsigned long long)q.cookie, q.state);
			return false;
		}
	}
	return true;
}

static bool check_intact(int fd, const struct dwq_ioc_stats *before,
			 unsigned int nth)
{
	struct dwq_ioc_stats st = stats(fd);
	bool ok = true;

	if (st.pending != before->pending ||
	    st.queue_size != before->queue_size ||
	    st.all_tasks != before->all_tasks) {
		/* Now/before: */
		printf("dwq-lifecycle: FAIL: nth %u: pending %llu/%llu size %u/%u all %llu/%llu\n",
		       nth, (unsigned long long)st.pending,
		       (unsigned long long)before->pending, st.queue_size,
		       before->queue_size, (unsigned long long)st.all_tasks,
		       (unsigned long long)before->all_tasks);
		ok = false;
	}
	if (!ids_found(fd, nth))
		ok = false;
	if (!ok)
		failures++;
	return ok;
}

/* Files whose ledger fire_ledger() saw fire whole, and their tasks. */
static unsigned int ledgers_fired, ledger_tasks;

/* The ledger's index of @id; nids if it has none. */
static unsigned int ledger_index(__u64 id)
{
	unsigned int i;

	for (i = 0; i < nids && ids[i] != id; i++)
		;
	return i;
}

/*
 * Every task of the ledger made due now: each must fire exactly once, as
 * one event with its id, its cookie and DWQ_EVENT_LAST, and no other
 * event may come (none of a call that failed, nor of a cancelled
 * spare); then the file holds nothing, and has fired the ledger only.
 * Before the base is closed: the tasks that lived through injected
 * failures are seen to fire, not only found by QUERY. @nth names the
 * burst that worked last (0: the base's last file). It waits until every
 * task has fired or the file holds none (a task lost never comes), 30 s
 * at most. Returns false if it failed.
 */
static bool fire_ledger(int fd, unsigned int nth)
{
	int before = failures;
	static unsigned char seen[MAX_IDS];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	unsigned int i, j, got = 0, twice = 0, unknown = 0;
	struct dwq_ioc_reschedule r;
	struct dwq_event ev[64];
	struct dwq_ioc_stats st;
	__u64 deadline;
	ssize_t len;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < nids; i++) {
		r = (struct dwq_ioc_reschedule){ .id = ids[i],
						 .time_ns = i % 8 * MS };
		if (ioctl(fd, DWQ_IOC_RESCHEDULE, &r))
			fail("nth %u: reschedule id %llu: %s", nth,
			     (unsigned long long)ids[i], strerror(errno));
	}
	deadline = now_ns() + 30000 * MS;
	while (got < nids && now_ns() < deadline) {
		if (poll(&p, 1, 1000) <= 0) {
			st = stats(fd);
			if (!st.pending && !st.events)
				break; /* Nothing left to come. */
			continue;
		}
		len = read(fd, ev, sizeof(ev));
		if (len < 0) {
			fail("nth %u: read: %s", nth, strerror(errno));
			break;
		}
		for (j = 0; j < len / sizeof(ev[0]); j++) {
			i = ledger_index(ev[j].id);
			if (i < nids && ev[j].cookie == cookies[i] &&
			    ev[j].flags & DWQ_EVENT_LAST) {
				if (seen[i]++)
					twice++;
				else
					got++;
				continue;
			}
			if (!unknown++)
				fail("nth %u: event id %llu cookie %llu flags %#x",
				     nth, (unsigned long long)ev[j].id,
				     (unsigned long long)ev[j].cookie,
				     ev[j].flags);
		}
	}
	/* Nothing after the ledger: no event within 50 ms. */
	if (poll(&p, 1, 50) > 0) {
		len = read(fd, ev, sizeof(ev));
		fail("nth %u: %zd more events after the ledger's", nth,
		     len > 0 ? len / (ssize_t)sizeof(ev[0]) : len);
	}
	st = stats(fd);
	if (got != nids || twice || unknown || st.pending || st.events ||
	    st.fired != nids)
		fail("nth %u: %u/%u once, %u twice, %u other; pending %llu events %llu fired %llu",
		     nth, got, nids, twice, unknown,
		     (unsigned long long)st.pending,
		     (unsigned long long)st.events,
		     (unsigned long long)st.fired);
	ledgers_fired++;
	ledger_tasks += got;
	return failures == before;
}

/* Record the tasks of a batch that worked. */
static void remember(const struct dwq_ioc_schedule *s, unsigned int k)
{
	unsigned int i;

	for (i = 0; i < k; i++) {
		if (nids == MAX_IDS) {
			printf("dwq-lifecycle: more than %u tasks\n", MAX_IDS);
			exit(2);
		}
		ids[nids] = s[i].id;
		cookies[nids++] = s[i].cookie;
	}
}

/*
 * Tasks the base scheduled and cancelled again, which its file keeps as
 * spares for the next schedules: a burst then takes them first, and
 * allocates the rest.
 */
#define BASE_SPARES 8
static unsigned int base_spares;

/*
 * The base: a file whose 16 tasks an hour away fill its own heap (16
 * slots) to its capacity, so that any more must grow it; with
 * base_spares, that many more scheduled (the heap grows to 24 slots) and
 * cancelled, so that a burst of more than that must grow it.
 */
static int base_open(__u64 *cookie)
{
	struct dwq_ioc_schedule s[16 + BASE_SPARES] = {};
	struct dwq_ioc_cancel c[BASE_SPARES] = {};
	struct dwq_ioc_cancel_batch cb = { .entries = (uintptr_t)c };
	unsigned int i;
	int fd = open_dev();

	for (i = 0; i < 16 + base_spares; i++) {
		s[i].cookie = (*cookie)++;
		s[i].time_ns = HOUR;
	}
	if (batch(fd, s, 16)) {
		perror("dwq-lifecycle: the base batch");
		exit(2);
	}
	if (base_spares) {
		if (batch(fd, s + 16, base_spares)) {
			perror("dwq-lifecycle: the base's spares");
			exit(2);
		}
		for (i = 0; i < base_spares; i++)
			c[i].id = s[16 + i].id;
		cb.count = base_spares;
		if (ioctl(fd, DWQ_IOC_CANCEL_BATCH, &cb) ||
		    c[base_spares - 1].result != DWQ_RESULT_REMOVED) {
			perror("dwq-lifecycle: cancelling the base's spares");
			exit(2);
		}
	}
	nids = 0;
	remember(s, 16);
	return fd;
}

/*
 * Bursts of @k one-shots into the base, whose heap is full, so that each
 * must grow it (and make its tasks), failing the 1st, 2nd, ... allocation
 * made on dwq's behalf until a burst needs fewer than that. An injected
 * failure either fails the call, which must then be ENOMEM and change
 * nothing, or is one the kernel recovers from (kmemleak's and KASAN's own
 * metadata, kvmalloc's kmalloc before vmalloc, the id map's growth):
 * then the call works, each task is found by its id, and the base is made
 * again, full, for the next one.
 */
static void grow_bursts(int *base, unsigned int k, __u64 *cookie,
			unsigned int *injected, unsigned int *recovered)
{
	static struct dwq_ioc_schedule s[DWQ_SCHEDULE_BATCH_MAX];
	struct dwq_ioc_stats before;
	unsigned int nth, i, left;
	long err;
	bool ok;

	for (nth = 1; nth < 100000; nth++) {
		before = stats(*base);
		memset(s, 0, sizeof(s[0]) * k);
		for (i = 0; i < k; i++) {
			s[i].cookie = *cookie + i;
			s[i].time_ns = HOUR;
		}
		set_fail_nth(nth);
		err = batch(*base, s, k);
		left = fail_nth_left();
		set_fail_nth(0);
		if (err) {
			(*injected)++;
			if (err != -ENOMEM) {
				printf("dwq-lifecycle: FAIL: nth %u: %s, want ENOMEM\n",
				       nth, strerror((int)-err));
				failures++;
			}
			if (!check_intact(*base, &before, nth))
				return;
			continue;
		}
		*cookie += k;
		if (stats(*base).pending != before.pending + k ||
		    stats(*base).all_tasks != before.all_tasks + k) {
			printf("dwq-lifecycle: FAIL: nth %u: pending %llu after a burst of %u\n",
			       nth, (unsigned long long)stats(*base).pending,
			       k);
			failures++;
		}
		/* A recovered failure (its id map not grown) finds them all. */
		remember(s, k);
		if (!ids_found(*base, nth))
			failures++;
		/* Start again from a full heap of 16. */
		ok = fire_ledger(*base, nth);
		close(*base);
		*base = base_open(cookie);
		if (!ok)
			return;
		if (left)
			break; /* Nothing left to fail. */
		(*recovered)++;
	}
	printf("dwq-lifecycle: bursts of %u past the room (base: %u spares): 1..%u failed\n",
	       k, base_spares, nth - 1);
}

/*
 * DWQ_IOC_CANCEL_BATCH's own allocation (its copy of the array) failing:
 * on a file of its own with 64 tasks, fail the 1st, 2nd, ... allocation of
 * a batch cancel of them all until one works. Each failure must be ENOMEM
 * and cancel nothing; the one that works cancels every task.
 */
#define CANCEL_N 64

static void cancel_batch_failnth(unsigned int *injected)
{
	struct dwq_ioc_schedule s[CANCEL_N] = {};
	struct dwq_ioc_cancel c[CANCEL_N];
	struct dwq_ioc_cancel_batch b = { .count = CANCEL_N };
	struct dwq_ioc_query q;
	unsigned int nth, i, enomem = 0;
	int fd = open_dev(), err;
	__u64 gone;

	for (i = 0; i < CANCEL_N; i++)
		s[i].time_ns = HOUR;
	if (batch(fd, s, CANCEL_N)) {
		perror("dwq-lifecycle: cancel batch: schedule");
		exit(2);
	}
	for (nth = 1; nth < 1000; nth++) {
		for (i = 0; i < CANCEL_N; i++)
			c[i] = (struct dwq_ioc_cancel){ .id = s[i].id };
		b.entries = (uintptr_t)c;
		set_fail_nth(nth);
		err = ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b) ? errno : 0;
		set_fail_nth(0);
		if (!err)
			break;
		(*injected)++;
		enomem++;
		if (err != ENOMEM) {
			printf("dwq-lifecycle: FAIL: cancel nth %u: %s, want ENOMEM\n",
			       nth, strerror(err));
			failures++;
		}
		for (i = 0; i < CANCEL_N; i++) {
			q = (struct dwq_ioc_query){ .id = s[i].id };
			if (ioctl(fd, DWQ_IOC_QUERY, &q) ||
			    q.state != DWQ_STATE_QUEUED)
				break;
		}
		if (i < CANCEL_N || stats(fd).pending != CANCEL_N) {
			gone = i < CANCEL_N ? s[i].id : 0;
			printf("dwq-lifecycle: FAIL: cancel nth %u: id %llu gone\n",
			       nth, (unsigned long long)gone);
			failures++;
			break;
		}
	}
	for (i = 0; i < CANCEL_N; i++)
		if (c[i].result != DWQ_RESULT_REMOVED)
			break;
	printf("dwq-lifecycle: cancel batch: %u allocations failed in turn, then all %u removed\n",
	       enomem, CANCEL_N);
	if (!enomem || i < CANCEL_N || stats(fd).pending) {
		printf("dwq-lifecycle: FAIL: cancel: entry %u: %u, %llu left\n",
		       i, i < CANCEL_N ? c[i].result : 0,
		       (unsigned long long)stats(fd).pending);
		failures++;
	}
	close(fd);
}

/*
 * DWQ_IOC_CANCEL of a due periodic task (parked) takes no memory: with
 * the 1st, 2nd, ... allocation armed to fail, each cancel works, tries no
 * allocation at all, and its outcome is exact: the id is gone, STATS
 * counts one firing and one cancel, and read() returns that firing's
 * event once (its deadline, the cancel's moment, the periods skipped
 * until then, no LAST flag).
 */
static void cancel_parked_failnth(void)
{
	struct dwq_ioc_schedule s = { .mode = DWQ_MODE_FIXED_RATE,
				      .period_ns = MS,
				      .time_ns = MS };
	struct dwq_ioc_cancel c;
	struct dwq_ioc_query q;
	struct dwq_ioc_stats st;
	struct dwq_event ev[2];
	unsigned int nth, left;
	__u64 t0, t1;
	ssize_t len;
	int fd, err;

	for (nth = 1; nth <= 8; nth++) {
		fd = open("/dev/dwq", O_RDWR | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0) {
			perror("dwq-lifecycle: /dev/dwq");
			exit(2);
		}
		s.cookie = 7000 + nth;
		if (ioctl(fd, DWQ_IOC_SCHEDULE, &s)) {
			perror("dwq-lifecycle: cancel parked: schedule");
			exit(2);
		}
		do {
			usleep(2000);
			q = (struct dwq_ioc_query){ .id = s.id };
			if (ioctl(fd, DWQ_IOC_QUERY, &q)) {
				perror("dwq-lifecycle: cancel parked: query");
				exit(2);
			}
		} while (q.state != DWQ_STATE_PARKED);
		c = (struct dwq_ioc_cancel){ .id = s.id };
		t0 = now_ns();
		set_fail_nth(nth);
		err = ioctl(fd, DWQ_IOC_CANCEL, &c) ? errno : 0;
		left = fail_nth_left();
		set_fail_nth(0);
		t1 = now_ns();
		if (err || c.result != DWQ_RESULT_UNREAD)
			fail("cancel parked, nth %u: %s, result %u, want 0, unread",
			     nth, strerror(err), c.result);
		if (left != nth)
			fail("cancel parked, nth %u: it tried %u allocations, want none",
			     nth, nth - left);
		q = (struct dwq_ioc_query){ .id = s.id };
		if (!ioctl(fd, DWQ_IOC_QUERY, &q) || errno != ENOENT)
			fail("cancel parked, nth %u: the id is still there",
			     nth);
		st = stats(fd);
		if (st.pending || st.cancelled != 1 || st.fired != 1 ||
		    st.events != 1)
			fail("parked cancel %u: pending %llu cancelled %llu fired %llu ev %llu",
			     nth, (unsigned long long)st.pending,
			     (unsigned long long)st.cancelled,
			     (unsigned long long)st.fired,
			     (unsigned long long)st.events);
		len = read(fd, ev, sizeof(ev));
		if (len != sizeof(ev[0]) || ev[0].id != s.id ||
		    ev[0].cookie != s.cookie || ev[0].flags != DWQ_EVENT_LAST ||
		    ev[0].fired_ns < t0 || ev[0].fired_ns > t1 ||
		    ev[0].deadline_ns > ev[0].fired_ns ||
		    ev[0].skipped !=
			    (ev[0].fired_ns - ev[0].deadline_ns) / MS ||
		    ev[0].folded)
			fail("cancel parked, nth %u: read %zd bytes, want its one event exact",
			     nth, len);
		if (read(fd, ev, sizeof(ev)) >= 0 || errno != EAGAIN)
			fail("cancel parked, nth %u: a second event", nth);
		st = stats(fd);
		if (st.events || st.pending)
			fail("cancel parked, nth %u: %llu events, %llu pending after the read",
			     nth, (unsigned long long)st.events,
			     (unsigned long long)st.pending);
		close(fd);
	}
	printf("dwq-lifecycle: parked cancel, 1st..8th allocation failing: none tried\n");
}

static int cmd_failnth(void)
{
	/*
	 * Small arrays (kmalloc), then arrays past a page: kvmalloc, whose
	 * kmalloc failing falls back to vmalloc, whose parts fail in turn.
	 */
	static const unsigned int sizes[] = { 1, 16, 100 };
	unsigned int i, injected = 0, recovered = 0;
	__u64 cookie = 1;
	int fd;

	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0) {
		perror("dwq-lifecycle: /proc/thread-self/fail-nth");
		return 2;
	}
	fd = base_open(&cookie);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		grow_bursts(&fd, sizes[i], &cookie, &injected, &recovered);
	/* Bursts that take the file's spares, then fail to allocate more. */
	base_spares = BASE_SPARES;
	fire_ledger(fd, 0);
	close(fd);
	fd = base_open(&cookie);
	for (i = 1; i < ARRAY_SIZE(sizes); i++)
		grow_bursts(&fd, sizes[i], &cookie, &injected, &recovered);
	cancel_batch_failnth(&injected);
	cancel_parked_failnth();
	fire_ledger(fd, 0);
	printf("dwq-lifecycle: fail-nth: %u calls failed, all ENOMEM, %u recovered\n",
	       injected, recovered);
	printf("dwq-lifecycle: %u files' ledgers moved to now before close: %u fired once\n",
	       ledgers_fired, ledger_tasks);
	if (!injected)
		fail("fail-nth: no injected failure failed a call");
	close(fd);
	return failures ? 1 : 0;
}

/* Is dwq in /proc/modules (loaded, or coming or going)? */
static bool module_listed(void)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/modules", "re");

	if (!f) {
		perror("dwq-lifecycle: /proc/modules");
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "dwq ", 4))
			found = true;
	fclose(f);
	return found;
}

/* How many threads are dwq's workers ("dwq/N", "dwq-NAME/N"). */
static unsigned int dwq_threads(void)
{
	char path[300], comm[32];
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");
	FILE *f;

	if (!dir) {
		perror("dwq-lifecycle: /proc");
		exit(2);
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "re");
		if (!f)
			continue; /* Gone meanwhile. */
		/* Not dwq-lifecycle: no program's name has a slash. */
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "dwq", 3) &&
		    strchr(comm, '/'))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * After a failed load or an unload: no module, no /dev/dwq, no
 * /sys/module/dwq, and no worker thread (a stopped kthread is reaped
 * just after kthread_stop() returns: given a second).
 */
static bool load_left_nothing(const char *what, unsigned int nth)
{
	unsigned int threads, i;
	bool ok = true;

	if (module_listed()) {
		fail("%s, nth %u: dwq still in /proc/modules", what, nth);
		ok = false;
	}
	if (!access("/dev/dwq", F_OK) || !access("/sys/module/dwq", F_OK)) {
		fail("%s, nth %u: /dev/dwq or /sys/module/dwq left", what, nth);
		ok = false;
	}
	/* Stopped by the unload; gone from /proc once reaped: 10 s at most. */
	for (i = 0; (threads = dwq_threads()) && i < 1000; i++)
		usleep(10000);
	if (threads) {
		fail("%s, nth %u: %u dwq threads left", what, nth, threads);
		ok = false;
	}
	return ok;
}

/*
 * loadfail: fail the 1st, 2nd, ... allocation of a load that the stack
 * filter lets through (those of dwq's init) until a load needs fewer.
 * An injected failure either fails the load, which must then say ENOMEM
 * (EBUSY when it was misc_register()'s minor) and leave nothing behind,
 * or is one the kernel recovers from (kmemleak's metadata, debugfs,
 * which dwq does without): then the load works and is undone.
 */
static int cmd_loadfail(const char *path, const char *params)
{
	unsigned int nth, left, failed = 0, ebusy = 0, recovered = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fd < 0 || fail_nth_fd < 0) {
		perror("dwq-lifecycle: loadfail");
		return 2;
	}
	if (!load_left_nothing("before", 0))
		return 1;
	for (nth = 1; nth < 10000; nth++) {
		set_fail_nth(nth);
		err = syscall(SYS_finit_module, fd, params, 0) ? errno : 0;
		left = fail_nth_left();
		set_fail_nth(0);
		if (err) {
			failed++;
			if (err == EBUSY)
				ebusy++;
			else if (err != ENOMEM)
				fail("load, nth %u: %s, want ENOMEM", nth,
				     strerror(err));
			if (left)
				fail("load, nth %u: failed (%s) with nothing injected",
				     nth, strerror(err));
			if (!load_left_nothing("failed load", nth))
				break;
			continue;
		}
		if (access("/dev/dwq", F_OK) || dwq_threads() == 0)
			fail("load, nth %u: loaded without /dev/dwq or workers",
			     nth);
		if (syscall(SYS_delete_module, "dwq", O_NONBLOCK)) {
			fail("load, nth %u: unload: %s", nth, strerror(errno));
			break;
		}
		if (!load_left_nothing("unload", nth) || left)
			break; /* Nothing left to fail. */
		recovered++;
	}
	printf("dwq-lifecycle: load: nth 1..%u: %u loads failed (%u EBUSY), %u recovered\n",
	       nth - 1, failed, ebusy, recovered);
	if (!failed)
		fail("load: no injected failure failed a load");
	close(fail_nth_fd);
	close(fd);
	return failures ? 1 : 0;
}

/* finit_module(), once: busybox insmod tries init_module() after it. */
static int cmd_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || syscall(SYS_finit_module, fd, params, 0)) {
		printf("dwq-lifecycle: load %s %s: %s\n", path, params,
		       strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "hold"))
		return cmd_hold(strtoul(argv[2], NULL, 0),
				strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "load"))
		return cmd_load(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "loadfail"))
		return cmd_loadfail(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "traffic"))
		return cmd_traffic();
	if (argc == 2 && !strcmp(argv[1], "failnth"))
		return cmd_failnth();
	fprintf(stderr,
		"usage: dwq-lifecycle hold N PERIODIC | traffic | failnth\n"
		"       dwq-lifecycle load|loadfail MODULE PARAMS\n");
	return 2;
}
