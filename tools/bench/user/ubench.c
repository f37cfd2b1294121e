// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-ubench: /dev/dwq side by side with what a process with many timers
 * would use instead (docs/bench.md):
 *
 *   F2b  ns per arm+cancel, with 0 and P timers pending: dwq ioctls
 *        (SCHEDULE + CANCEL, and their batches of 64), timerfd
 *        (timerfd_settime twice), io_uring (IORING_OP_TIMEOUT +
 *        IORING_OP_TIMEOUT_REMOVE, one and 64 per submit), a 4-ary heap in
 *        user space with one timerfd as its floor
 *   F4c  lateness at the reader of T timers spread over a window: the
 *        return of read() / epoll_wait() / io_uring_wait_cqe() minus the
 *        deadline, p50, p99, max
 *   F5   slab bytes per pending timer: the sum over /proc/slabinfo of
 *        active objects' delta times object size, over N pending timers
 *   F7b  B timers due at once: drain time, and CPU per expiration (the
 *        reader's getrusage(), plus the dwq/N workers' run time from
 *        /proc/<pid>/schedstat for dwq)
 *
 * Every repetition runs every variant, their order rotated, so a
 * disturbance hits them alike; the value is the median of the
 * repetitions. Nothing is judged here: tools/bench/report does that.
 * Output: a table, or with --json one object per line.
 */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>

#include <liburing.h>
#include <linux/dwq.h>

#include "markers.h"

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL
#define MAX_REPS 99
#define BATCH 64
#define READ_MAX 256
/* Far deadlines: [FAR, 2 FAR) from now, never due during a run. */
#define FAR (1000 * NSEC_PER_SEC)
/* The user data of IORING_OP_TIMEOUT_REMOVE's own completion. */
#define REMOVE_TAG (~0ULL)

struct params {
	unsigned int reps;
	__u64 ops; /* F2b: arm+cancel pairs per timing */
	unsigned int pending; /* F2b: the loaded case */
	unsigned int burst; /* F7b */
	unsigned int late_n; /* F4c: timers */
	__u64 late_window; /* F4c: spread over (ns) */
	unsigned int slab_n; /* F5 */
	unsigned int settle_max; /* F5: 50 ms waits for the slab to settle */
	unsigned int cq_entries; /* io_uring's completion ring */
	unsigned int f9_tasks; /* F9: at most this many (0: the limits) */
	unsigned int f9_cpus; /* F9: CPUs online during it (0: as found) */
	__u64 f9_window, f9_settle; /* F9: measured window, settling before */
	int tiny;
	unsigned int only;
	int json;
};

enum { F2B = 1, F4C = 2, F5 = 4, F7B = 8, F9 = 16 };

static struct params P;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static __u64 boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (__u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec to_ts(__u64 ns)
{
	struct timespec ts = { .tv_sec = ns / NSEC_PER_SEC,
			       .tv_nsec = ns % NSEC_PER_SEC };

	return ts;
}

/* Sleep until @ns, an absolute CLOCK_MONOTONIC time. */
static void sleep_until(__u64 ns)
{
	struct timespec ts = to_ts(ns);

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static void die(const char *what)
{
	fprintf(stderr, "dwq-ubench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("calloc");
	return p;
}

/* xorshift64*: the same deadlines for every variant of a repetition. */
static __u64 rng_state = 88172645463325252ULL;

static __u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* --- results ---------------------------------------------------------- */

struct series {
	char fig[8], variant[48], metric[24], unit[12];
	unsigned int n;
	double v[MAX_REPS];
	unsigned int nv;
};

#define MAX_SERIES 256
static struct series all[MAX_SERIES];
static unsigned int nseries;

static void add(const char *fig, const char *variant, unsigned int n,
		const char *metric, const char *unit, double v)
{
	struct series *s;
	unsigned int i;

	for (i = 0; i < nseries; i++) {
		s = &all[i];
		if (!strcmp(s->fig, fig) && !strcmp(s->variant, variant) &&
		    s->n == n && !strcmp(s->metric, metric))
			goto found;
	}
	if (nseries == MAX_SERIES) {
		fprintf(stderr, "dwq-ubench: too many series\n");
		exit(1);
	}
	s = &all[nseries++];
	snprintf(s->fig, sizeof(s->fig), "%s", fig);
	snprintf(s->variant, sizeof(s->variant), "%s", variant);
	snprintf(s->metric, sizeof(s->metric), "%s", metric);
	snprintf(s->unit, sizeof(s->unit), "%s", unit);
	s->n = n;
found:
	if (s->nv < MAX_REPS)
		s->v[s->nv++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_all(const char *fig)
{
	double v[MAX_REPS], med;
	unsigned int i;

	for (i = 0; i < nseries; i++) {
		struct series *s = &all[i];

		if (strcmp(s->fig, fig) || !s->nv)
			continue;
		memcpy(v, s->v, s->nv * sizeof(v[0]));
		qsort(v, s->nv, sizeof(v[0]), cmp_double);
		med = s->nv % 2 ? v[s->nv / 2] :
				  (v[s->nv / 2 - 1] + v[s->nv / 2]) / 2;
		if (P.json) {
			printf("{\"type\":\"bench\",\"figure\":\"%s\",",
			       s->fig);
			printf("\"variant\":\"%s\",\"n\":\"%u\",", s->variant,
			       s->n);
			printf("\"metric\":\"%s\",\"unit\":\"%s\",", s->metric,
			       s->unit);
			printf("\"median\":%.6g,\"min\":%.6g,\"max\":%.6g,",
			       med, v[0], v[s->nv - 1]);
			printf("\"reps\":%u}\n", s->nv);
		} else {
			printf("  %-4s %-26s n=%-6u %-14s %12.1f %s (%.1f-%.1f)\n",
			       s->fig, s->variant, s->n, s->metric, med,
			       s->unit, v[0], v[s->nv - 1]);
		}
	}
	fflush(stdout);
}

/* --- /dev/dwq ----------------------------------------------------------- */

static int dwq_open(void)
{
	int fd = open("/dev/dwq", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open /dev/dwq");
	return fd;
}

static void dwq_schedule(int fd, struct dwq_ioc_schedule *s)
{
	if (ioctl(fd, DWQ_IOC_SCHEDULE, s))
		die("DWQ_IOC_SCHEDULE");
}

static void dwq_cancel(int fd, __u64 id)
{
	struct dwq_ioc_cancel c = { .id = id };

	if (ioctl(fd, DWQ_IOC_CANCEL, &c) || c.result != DWQ_RESULT_REMOVED)
		die("DWQ_IOC_CANCEL");
}

/* Schedule @n one-shots at the absolute deadlines @d, in batches. */
static void dwq_schedule_many(int fd, const __u64 *d, unsigned int n,
			      __u64 *ids)
{
	struct dwq_ioc_schedule e[BATCH * 4];
	struct dwq_ioc_schedule_batch b = { .entries = (__u64)(uintptr_t)e };
	unsigned int i = 0, k, c;

	while (i < n) {
		c = n - i < BATCH * 4 ? n - i : BATCH * 4;
		memset(e, 0, sizeof(e));
		for (k = 0; k < c; k++) {
			e[k].time_ns = d[i + k];
			e[k].flags = DWQ_SCHED_ABS;
		}
		b.count = c;
		if (ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b))
			die("DWQ_IOC_SCHEDULE_BATCH");
		for (k = 0; ids && k < c; k++)
			ids[i + k] = e[k].id;
		i += c;
	}
}

/*
 * The memory a file's arrays (its heaps, its runs' rings, its id map) take
 * outside the slab, as allocated (dwq-array-pages-bytes in its fdinfo:
 * large kmalloc() blocks and vmalloc() pages, whole); an array small
 * enough to be a kmalloc() object is in /proc/slabinfo instead.
 */
static unsigned long long dwq_array_pages(int fd)
{
	char path[64], line[128];
	unsigned long long bytes;
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		die("fdinfo");
	while (fgets(line, sizeof(line), f))
		got += sscanf(line, "dwq-array-pages-bytes: %llu", &bytes) == 1;
	fclose(f);
	if (got != 1)
		die("fdinfo: no dwq-array-pages-bytes");
	return bytes;
}

/* --- io_uring ----------------------------------------------------------- */

static void ring_init(struct io_uring *ring)
{
	struct io_uring_params p;
	int err;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = P.cq_entries; /* a burst's completions all fit */
	err = io_uring_queue_init_params(256, ring, &p);
	if (err) {
		errno = -err;
		die("io_uring_queue_init_params");
	}
}

static struct io_uring_sqe *sqe_get(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe) {
		if (io_uring_submit(ring) < 0)
			die("io_uring_submit");
		sqe = io_uring_get_sqe(ring);
		if (!sqe)
			die("io_uring_get_sqe");
	}
	return sqe;
}

static void submit(struct io_uring *ring)
{
	int r = io_uring_submit(ring);

	if (r < 0) {
		errno = -r;
		die("io_uring_submit");
	}
}

/* An absolute timeout: @ts must live until the SQE is submitted. */
static void prep_timeout(struct io_uring *ring, struct __kernel_timespec *ts,
			 __u64 data)
{
	struct io_uring_sqe *sqe = sqe_get(ring);

	io_uring_prep_timeout(sqe, ts, 0, IORING_TIMEOUT_ABS);
	io_uring_sqe_set_data64(sqe, data);
}

static void prep_remove(struct io_uring *ring, __u64 data)
{
	struct io_uring_sqe *sqe = sqe_get(ring);

	io_uring_prep_timeout_remove(sqe, data, 0);
	io_uring_sqe_set_data64(sqe, REMOVE_TAG);
}

/* Reap @n completions of removes and removed timeouts. */
static void reap_removed(struct io_uring *ring, unsigned int n)
{
	struct io_uring_cqe *cqe;
	int r;

	while (n) {
		r = io_uring_wait_cqe(ring, &cqe);
		if (r) {
			errno = -r;
			die("io_uring_wait_cqe");
		}
		if (cqe->user_data == REMOVE_TAG ? cqe->res != 0 :
						   cqe->res != -ECANCELED) {
			errno = cqe->res < 0 ? -cqe->res : EIO;
			die("timeout remove");
		}
		io_uring_cqe_seen(ring, cqe);
		n--;
	}
}

static struct __kernel_timespec kts(__u64 ns)
{
	struct __kernel_timespec ts = { .tv_sec = ns / NSEC_PER_SEC,
					.tv_nsec = ns % NSEC_PER_SEC };

	return ts;
}

/* Arm @n absolute timeouts, user data @base + i. */
static void ring_arm_many(struct io_uring *ring, const __u64 *d, unsigned int n,
			  __u64 base)
{
	struct __kernel_timespec *ts = xcalloc(n, sizeof(*ts));
	unsigned int i;

	for (i = 0; i < n; i++) {
		ts[i] = kts(d[i]);
		prep_timeout(ring, &ts[i], base + i);
	}
	submit(ring);
	free(ts);
}

/* --- the user-space heap: 4-ary, its head on one timerfd ------------- */

struct unode {
	__u64 deadline;
	unsigned int idx; /* slot, or UINT32_MAX when not queued */
};

struct uslot {
	__u64 key;
	struct unode *n;
};

struct uheap {
	struct uslot *s;
	unsigned int nr, cap;
	int tfd; /* the floor: armed at the head's deadline */
};

static void uh_init(struct uheap *h, unsigned int cap)
{
	h->s = xcalloc(cap, sizeof(*h->s));
	h->nr = 0;
	h->cap = cap;
	h->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (h->tfd < 0)
		die("timerfd_create");
}

static void uh_free(struct uheap *h)
{
	close(h->tfd);
	free(h->s);
}

static void uh_put(struct uheap *h, unsigned int i, struct uslot s)
{
	h->s[i] = s;
	s.n->idx = i;
}

static void uh_up(struct uheap *h, unsigned int i)
{
	struct uslot x = h->s[i];

	while (i) {
		unsigned int p = (i - 1) / 4;

		if (h->s[p].key <= x.key)
			break;
		uh_put(h, i, h->s[p]);
		i = p;
	}
	uh_put(h, i, x);
}

static void uh_down(struct uheap *h, unsigned int i)
{
	struct uslot x = h->s[i];

	for (;;) {
		unsigned int c = 4 * i + 1, m, k;

		if (c >= h->nr)
			break;
		m = c;
		for (k = c + 1; k < c + 4 && k < h->nr; k++)
			if (h->s[k].key < h->s[m].key)
				m = k;
		if (h->s[m].key >= x.key)
			break;
		uh_put(h, i, h->s[m]);
		i = m;
	}
	uh_put(h, i, x);
}

/* The floor follows the head: armed at its deadline, or disarmed. */
static void uh_floor(struct uheap *h)
{
	struct itimerspec its = { 0 };

	if (h->nr)
		its.it_value = to_ts(h->s[0].key);
	if (timerfd_settime(h->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime (heap floor)");
}

static void uh_insert(struct uheap *h, struct unode *n)
{
	unsigned int i = h->nr++;

	h->s[i].key = n->deadline;
	h->s[i].n = n;
	n->idx = i;
	uh_up(h, i);
	if (!n->idx)
		uh_floor(h);
}

static void uh_delete(struct uheap *h, struct unode *n)
{
	unsigned int i = n->idx, last = --h->nr;

	n->idx = UINT32_MAX;
	if (i != last) {
		uh_put(h, i, h->s[last]);
		if (i && h->s[(i - 1) / 4].key > h->s[i].key)
			uh_up(h, i);
		else
			uh_down(h, i);
	}
	if (!i)
		uh_floor(h);
}

/* Pop every node due at @now; no floor update (the caller does it). */
static unsigned int uh_pop_due(struct uheap *h, __u64 now, __s64 *late,
			       unsigned int nlate)
{
	unsigned int k = 0;

	while (h->nr && h->s[0].key <= now) {
		struct unode *n = h->s[0].n;

		if (late && k < nlate)
			late[k] = (__s64)(now - n->deadline);
		k++;
		n->idx = UINT32_MAX;
		if (--h->nr) {
			uh_put(h, 0, h->s[h->nr]);
			uh_down(h, 0);
		}
	}
	return k;
}

/* --- limits -------------------------------------------------------------- */

static void raise_nofile(__u64 want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur >= want)
		return;
	if (rl.rlim_max < want)
		rl.rlim_max = want;
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit(RLIMIT_NOFILE): run as root");
}

/* --- F2b: arm + cancel ---------------------------------------------------- */

/* Deadlines in [base + FAR, base + 2 FAR): spread, never due. */
static void far_deadlines(__u64 *d, unsigned int n, __u64 base)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		d[i] = base + FAR + rnd() % FAR;
}

struct f2b_case {
	__u64 *pend; /* deadlines of the pending timers */
	unsigned int npend;
	__u64 *arm; /* deadlines of the measured ones */
	__u64 nops;
};

static double f2b_dwq_single(struct f2b_case *c)
{
	struct dwq_ioc_schedule s;
	int fd = dwq_open();
	__u64 t0, i;

	dwq_schedule_many(fd, c->pend, c->npend, NULL);
	t0 = now_ns();
	for (i = 0; i < c->nops; i++) {
		memset(&s, 0, sizeof(s));
		s.time_ns = c->arm[i];
		s.flags = DWQ_SCHED_ABS;
		dwq_schedule(fd, &s);
		dwq_cancel(fd, s.id);
	}
	t0 = now_ns() - t0;
	close(fd);
	return (double)t0 / c->nops;
}

static double f2b_dwq_batch(struct f2b_case *c)
{
	struct dwq_ioc_schedule e[BATCH];
	struct dwq_ioc_cancel x[BATCH];
	struct dwq_ioc_schedule_batch sb = { .entries = (__u64)(uintptr_t)e,
					     .count = BATCH };
	struct dwq_ioc_cancel_batch cb = { .entries = (__u64)(uintptr_t)x,
					   .count = BATCH };
	__u64 rounds = c->nops / BATCH, r, t0;
	int fd = dwq_open();
	unsigned int k;

	if (!rounds)
		rounds = 1;
	dwq_schedule_many(fd, c->pend, c->npend, NULL);
	t0 = now_ns();
	for (r = 0; r < rounds; r++) {
		memset(e, 0, sizeof(e));
		for (k = 0; k < BATCH; k++) {
			e[k].time_ns = c->arm[(r * BATCH + k) % c->nops];
			e[k].flags = DWQ_SCHED_ABS;
		}
		if (ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &sb))
			die("DWQ_IOC_SCHEDULE_BATCH");
		memset(x, 0, sizeof(x));
		for (k = 0; k < BATCH; k++)
			x[k].id = e[k].id;
		if (ioctl(fd, DWQ_IOC_CANCEL_BATCH, &cb))
			die("DWQ_IOC_CANCEL_BATCH");
	}
	t0 = now_ns() - t0;
	for (k = 0; k < BATCH; k++)
		if (x[k].result != DWQ_RESULT_REMOVED) {
			errno = ENOENT;
			die("DWQ_IOC_CANCEL_BATCH: not removed");
		}
	close(fd);
	return (double)t0 / (rounds * BATCH);
}

/* @n armed timerfds at the deadlines @d (the pending load). */
static int *timerfds_armed(const __u64 *d, unsigned int n)
{
	int *fds = xcalloc(n, sizeof(*fds));
	struct itimerspec its = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC,
					TFD_CLOEXEC | TFD_NONBLOCK);
		if (fds[i] < 0)
			die("timerfd_create");
		its.it_value = to_ts(d[i]);
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			die("timerfd_settime");
	}
	return fds;
}

static void close_all(int *fds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
}

static double f2b_timerfd(struct f2b_case *c)
{
	struct itimerspec arm = { 0 }, off = { 0 };
	int *fds = timerfds_armed(c->pend, c->npend);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	__u64 t0, i;

	if (tfd < 0)
		die("timerfd_create");
	t0 = now_ns();
	for (i = 0; i < c->nops; i++) {
		arm.it_value = to_ts(c->arm[i]);
		if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &arm, NULL) ||
		    timerfd_settime(tfd, 0, &off, NULL))
			die("timerfd_settime");
	}
	t0 = now_ns() - t0;
	close(tfd);
	close_all(fds, c->npend);
	return (double)t0 / c->nops;
}

/* One timeout per submit, one remove per submit: 2 io_uring_enter. */
static double f2b_uring_single(struct f2b_case *c)
{
	struct io_uring ring;
	struct __kernel_timespec ts;
	__u64 t0, i;

	ring_init(&ring);
	ring_arm_many(&ring, c->pend, c->npend, 1);
	t0 = now_ns();
	for (i = 0; i < c->nops; i++) {
		ts = kts(c->arm[i]);
		prep_timeout(&ring, &ts, 1ULL << 40);
		submit(&ring);
		prep_remove(&ring, 1ULL << 40);
		submit(&ring);
		reap_removed(&ring, 2);
	}
	t0 = now_ns() - t0;
	io_uring_queue_exit(&ring);
	return (double)t0 / c->nops;
}

/* 64 timeouts in one submit, their 64 removes in the next. */
static double f2b_uring_batch(struct f2b_case *c)
{
	struct __kernel_timespec ts[BATCH];
	__u64 rounds = c->nops / BATCH, r, t0;
	struct io_uring ring;
	unsigned int k;

	if (!rounds)
		rounds = 1;
	ring_init(&ring);
	ring_arm_many(&ring, c->pend, c->npend, 1);
	t0 = now_ns();
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < BATCH; k++) {
			ts[k] = kts(c->arm[(r * BATCH + k) % c->nops]);
			prep_timeout(&ring, &ts[k], (1ULL << 40) + k);
		}
		submit(&ring);
		for (k = 0; k < BATCH; k++)
			prep_remove(&ring, (1ULL << 40) + k);
		submit(&ring);
		reap_removed(&ring, 2 * BATCH);
	}
	t0 = now_ns() - t0;
	io_uring_queue_exit(&ring);
	return (double)t0 / (rounds * BATCH);
}

static double f2b_heap(struct f2b_case *c)
{
	struct unode *pn = xcalloc(c->npend, sizeof(*pn)), n;
	struct uheap h;
	unsigned int i;
	__u64 t0, k;

	uh_init(&h, c->npend + 1);
	for (i = 0; i < c->npend; i++) {
		pn[i].deadline = c->pend[i];
		uh_insert(&h, &pn[i]);
	}
	t0 = now_ns();
	for (k = 0; k < c->nops; k++) {
		n.deadline = c->arm[k];
		uh_insert(&h, &n);
		uh_delete(&h, &n);
	}
	t0 = now_ns() - t0;
	uh_free(&h);
	free(pn);
	return (double)t0 / c->nops;
}

struct variant {
	const char *name;
	double (*run)(struct f2b_case *c);
	int slow_when_loaded; /* O(pending) per operation: fewer ops */
};

static const struct variant f2b_variants[] = {
	{ "dwq_single", f2b_dwq_single, 0 },
	{ "dwq_batch64", f2b_dwq_batch, 0 },
	{ "timerfd_arm_disarm", f2b_timerfd, 0 },
	{ "io_uring_single", f2b_uring_single, 1 },
	{ "io_uring_batch64", f2b_uring_batch, 1 },
	{ "user_heap", f2b_heap, 0 },
};

#define NVARIANTS(a) (sizeof(a) / sizeof((a)[0]))

static void bench_f2b(void)
{
	unsigned int nv = NVARIANTS(f2b_variants), loads[2] = { 0, P.pending };
	__u64 *pend = xcalloc(P.pending, sizeof(__u64));
	__u64 *arm = xcalloc(P.ops, sizeof(__u64));
	unsigned int r, k, l;

	raise_nofile(P.pending + 256);
	for (r = 0; r < P.reps; r++) {
		__u64 base = now_ns();

		far_deadlines(pend, P.pending, base);
		far_deadlines(arm, P.ops, base);
		for (l = 0; l < 2; l++)
			for (k = 0; k < nv; k++) {
				const struct variant *v =
					&f2b_variants[(k + r) % nv];
				struct f2b_case c = { .pend = pend,
						      .npend = loads[l],
						      .arm = arm,
						      .nops = P.ops };

				if (v->slow_when_loaded && loads[l] > 256) {
					c.nops = P.ops / 20;
					if (c.nops < BATCH)
						c.nops = BATCH;
				}
				/*
				 * Let the last variant's teardown (10k files
				 * closed, a ring's exit work) finish first:
				 * under icount the other vCPU's work counts.
				 */
				usleep(100000);
				add("F2b", v->name, loads[l], "pair", "ns",
				    v->run(&c));
			}
	}
	free(pend);
	free(arm);
	if (!P.json)
		printf("\nF2b  ns per arm+cancel, 0 and %u pending\n",
		       P.pending);
	print_all("F2b");
}

/* --- CPU: the reader's and the dwq workers' ------------------------------ */

static __u64 self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	return ((__u64)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       ((__u64)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
		       NSEC_PER_USEC;
}

/*
 * The run time of every "dwq/N" kthread (the default queue's workers),
 * from /proc/<pid>/schedstat's first field: the scheduler's exact
 * sum_exec_runtime in ns (/proc/<pid>/stat's utime and stime are in
 * clock ticks of 10 ms, coarser than a whole burst).
 */
static __u64 workers_cpu_ns(unsigned int *count)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[64], buf[64];
	unsigned long long v;
	__u64 sum = 0;
	FILE *f;

	*count = 0;
	if (!d)
		die("/proc");
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.32s/comm", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f) || strncmp(buf, "dwq/", 4)) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%.32s/schedstat",
			 de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1) {
			sum += v;
			(*count)++;
		}
		fclose(f);
	}
	closedir(d);
	return sum;
}

static void late_warning(const char *fig, const char *what, __u64 d)
{
	if (now_ns() > d)
		fprintf(stderr,
			"dwq-ubench: %s: %s: arming took past the first deadline\n",
			fig, what);
}

/* --- F7b: a burst due at once -------------------------------------------- */

struct burst {
	__u64 d; /* the deadline of all */
	__u64 end; /* the last expiration reached the reader */
	__u64 reader_ns, workers_ns;
};

static void burst_begin(__u64 *c0, __u64 *w0)
{
	unsigned int nw;

	*w0 = workers_cpu_ns(&nw);
	*c0 = self_cpu_ns();
}

static void burst_end(struct burst *b, __u64 c0, __u64 w0)
{
	unsigned int nw;

	b->end = now_ns();
	b->reader_ns = self_cpu_ns() - c0;
	b->workers_ns = workers_cpu_ns(&nw) - w0;
}

static __u64 burst_deadline(unsigned int n)
{
	return now_ns() + 200 * NSEC_PER_MSEC + n * 50 * NSEC_PER_USEC;
}

static void f7b_dwq(unsigned int n, struct burst *b)
{
	struct dwq_event ev[READ_MAX];
	__u64 *d = xcalloc(n, sizeof(*d)), c0, w0;
	unsigned int i, got = 0;
	int fd = dwq_open();
	ssize_t k;

	b->d = burst_deadline(n);
	for (i = 0; i < n; i++)
		d[i] = b->d;
	dwq_schedule_many(fd, d, n, NULL);
	late_warning("F7b", "dwq", b->d);
	burst_begin(&c0, &w0);
	while (got < n) {
		k = read(fd, ev, sizeof(ev));
		if (k < 0 && errno != EINTR)
			die("read /dev/dwq");
		if (k > 0)
			got += k / sizeof(ev[0]);
	}
	burst_end(b, c0, w0);
	close(fd);
	free(d);
}

static void f7b_timerfd(unsigned int n, struct burst *b)
{
	struct epoll_event ee = { .events = EPOLLIN }, out[READ_MAX];
	int *fds = xcalloc(n, sizeof(*fds)), ep = epoll_create1(EPOLL_CLOEXEC);
	struct itimerspec its = { 0 };
	unsigned int i, got = 0;
	__u64 c0, w0, exp;
	int k, j;

	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC,
					TFD_CLOEXEC | TFD_NONBLOCK);
		ee.data.fd = fds[i];
		if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ee))
			die("timerfd/epoll_ctl");
	}
	b->d = burst_deadline(n);
	its.it_value = to_ts(b->d);
	for (i = 0; i < n; i++)
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			die("timerfd_settime");
	late_warning("F7b", "timerfd", b->d);
	burst_begin(&c0, &w0);
	while (got < n) {
		k = epoll_wait(ep, out, READ_MAX, -1);
		if (k < 0 && errno != EINTR)
			die("epoll_wait");
		for (j = 0; j < k; j++)
			if (read(out[j].data.fd, &exp, sizeof(exp)) ==
			    sizeof(exp))
				got++;
	}
	burst_end(b, c0, w0);
	close_all(fds, n);
	close(ep);
}

static unsigned int reap_fired(struct io_uring *ring)
{
	struct io_uring_cqe *cqe[READ_MAX];
	unsigned int i, k = io_uring_peek_batch_cqe(ring, cqe, READ_MAX);

	for (i = 0; i < k; i++)
		if (cqe[i]->res != -ETIME) {
			errno = cqe[i]->res < 0 ? -cqe[i]->res : EIO;
			die("io_uring timeout");
		}
	io_uring_cq_advance(ring, k);
	return k;
}

static void f7b_uring(unsigned int n, struct burst *b)
{
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	unsigned int i, got = 0;
	__u64 c0, w0;
	int r;

	ring_init(&ring);
	b->d = burst_deadline(n);
	ts = kts(b->d);
	for (i = 0; i < n; i++)
		prep_timeout(&ring, &ts, i);
	submit(&ring);
	late_warning("F7b", "io_uring", b->d);
	burst_begin(&c0, &w0);
	while (got < n) {
		r = io_uring_wait_cqe(&ring, &cqe);
		if (r && r != -EINTR) {
			errno = -r;
			die("io_uring_wait_cqe");
		}
		got += reap_fired(&ring);
	}
	burst_end(b, c0, w0);
	io_uring_queue_exit(&ring);
}

static void f7b_heap(unsigned int n, struct burst *b)
{
	struct unode *nodes = xcalloc(n, sizeof(*nodes));
	unsigned int i, got = 0;
	struct uheap h;
	__u64 c0, w0, exp;

	uh_init(&h, n);
	b->d = burst_deadline(n);
	for (i = 0; i < n; i++) {
		nodes[i].deadline = b->d;
		uh_insert(&h, &nodes[i]);
	}
	late_warning("F7b", "user heap", b->d);
	burst_begin(&c0, &w0);
	while (got < n) {
		if (read(h.tfd, &exp, sizeof(exp)) != sizeof(exp) &&
		    errno != EINTR)
			die("read timerfd (heap floor)");
		got += uh_pop_due(&h, now_ns(), NULL, 0);
		uh_floor(&h);
	}
	burst_end(b, c0, w0);
	uh_free(&h);
	free(nodes);
}

static void bench_f7b(void)
{
	static const char *const names[] = { "dwq_read", "timerfd_epoll",
					     "io_uring", "user_heap" };
	void (*run[])(unsigned int, struct burst *) = { f7b_dwq, f7b_timerfd,
							f7b_uring, f7b_heap };
	unsigned int r, k, i, n = P.burst;
	struct burst b;

	raise_nofile(n + 256);
	for (r = 0; r < P.reps; r++)
		for (k = 0; k < 4; k++) {
			i = (k + r) % 4;
			memset(&b, 0, sizeof(b));
			run[i](n, &b);
			add("F7b", names[i], n, "drain", "us",
			    (double)(b.end - b.d) / 1000);
			add("F7b", names[i], n, "reader_cpu", "ns",
			    (double)b.reader_ns / n);
			if (i == 0)
				add("F7b", names[i], n, "workers_cpu", "ns",
				    (double)b.workers_ns / n);
			add("F7b", names[i], n, "cpu", "ns",
			    (double)(b.reader_ns +
				     (i == 0 ? b.workers_ns : 0)) /
				    n);
		}
	if (!P.json)
		printf("\nF7b  %u due at once: drain (us late), CPU (ns) per expiration\n",
		       n);
	print_all("F7b");
}

/* --- F4c: lateness of T timers over a window ----------------------------- */

static int cmp_s64(const void *a, const void *b)
{
	__s64 x = *(const __s64 *)a, y = *(const __s64 *)b;

	return x < y ? -1 : x > y;
}

/* Deadlines: @start + a uniform offset in the window. */
static void late_deadlines(__u64 *d, const __u64 *off, unsigned int n,
			   __u64 start)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		d[i] = start + off[i];
}

#define LATE_LEAD (100 * NSEC_PER_MSEC)

static void f4c_dwq(const __u64 *off, unsigned int n, __s64 *late)
{
	struct dwq_event ev[BATCH];
	__u64 *d = xcalloc(n, sizeof(*d)), t;
	unsigned int got = 0, j, k;
	int fd = dwq_open();
	ssize_t r;

	late_deadlines(d, off, n, now_ns() + LATE_LEAD);
	dwq_schedule_many(fd, d, n, NULL);
	while (got < n) {
		r = read(fd, ev, sizeof(ev));
		t = now_ns();
		if (r < 0 && errno != EINTR)
			die("read /dev/dwq");
		k = r > 0 ? r / sizeof(ev[0]) : 0;
		for (j = 0; j < k && got < n; j++)
			late[got++] = (__s64)(t - ev[j].deadline_ns);
	}
	close(fd);
	free(d);
}

static void f4c_timerfd(const __u64 *off, unsigned int n, __s64 *late)
{
	struct epoll_event ee = { .events = EPOLLIN }, out[BATCH];
	int *fds = xcalloc(n, sizeof(*fds)), ep = epoll_create1(EPOLL_CLOEXEC);
	__u64 *d = xcalloc(n, sizeof(*d)), t, exp;
	struct itimerspec its = { 0 };
	unsigned int i, got = 0;
	int k, j;

	if (ep < 0)
		die("epoll_create1");
	for (i = 0; i < n; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC,
					TFD_CLOEXEC | TFD_NONBLOCK);
		ee.data.u32 = i;
		if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ee))
			die("timerfd/epoll_ctl");
	}
	late_deadlines(d, off, n, now_ns() + LATE_LEAD);
	for (i = 0; i < n; i++) {
		its.it_value = to_ts(d[i]);
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL))
			die("timerfd_settime");
	}
	while (got < n) {
		k = epoll_wait(ep, out, BATCH, -1);
		t = now_ns();
		if (k < 0 && errno != EINTR)
			die("epoll_wait");
		for (j = 0; j < k; j++) {
			i = out[j].data.u32;
			if (read(fds[i], &exp, sizeof(exp)) == sizeof(exp) &&
			    got < n)
				late[got++] = (__s64)(t - d[i]);
		}
	}
	close_all(fds, n);
	close(ep);
	free(d);
}

static void f4c_uring(const __u64 *off, unsigned int n, __s64 *late)
{
	__u64 *d = xcalloc(n, sizeof(*d)), t;
	struct io_uring_cqe *cqe[BATCH];
	struct io_uring ring;
	unsigned int got = 0, k, j;
	int r;

	ring_init(&ring);
	late_deadlines(d, off, n, now_ns() + LATE_LEAD);
	ring_arm_many(&ring, d, n, 0);
	while (got < n) {
		r = io_uring_wait_cqe(&ring, cqe);
		/* Only what was there on return: later ones are not late. */
		k = io_uring_peek_batch_cqe(&ring, cqe, BATCH);
		t = now_ns();
		if (r && r != -EINTR) {
			errno = -r;
			die("io_uring_wait_cqe");
		}
		for (j = 0; j < k; j++) {
			if (cqe[j]->res != -ETIME || cqe[j]->user_data >= n) {
				errno = EIO;
				die("io_uring timeout");
			}
			if (got < n)
				late[got++] = (__s64)(t - d[cqe[j]->user_data]);
		}
		io_uring_cq_advance(&ring, k);
	}
	io_uring_queue_exit(&ring);
	free(d);
}

static void f4c_heap(const __u64 *off, unsigned int n, __s64 *late)
{
	struct unode *nodes = xcalloc(n, sizeof(*nodes));
	unsigned int i, got = 0;
	struct uheap h;
	__u64 start, exp;

	uh_init(&h, n);
	start = now_ns() + LATE_LEAD;
	for (i = 0; i < n; i++) {
		nodes[i].deadline = start + off[i];
		uh_insert(&h, &nodes[i]);
	}
	while (got < n) {
		if (read(h.tfd, &exp, sizeof(exp)) != sizeof(exp) &&
		    errno != EINTR)
			die("read timerfd (heap floor)");
		got += uh_pop_due(&h, now_ns(), late + got, n - got);
		uh_floor(&h);
	}
	uh_free(&h);
	free(nodes);
}

static double pct(const __s64 *v, unsigned int n, double p)
{
	unsigned int i = (unsigned int)(p * (n - 1) + 0.5);

	return (double)v[i < n ? i : n - 1];
}

static void bench_f4c(void)
{
	static const char *const names[] = { "dwq_read", "timerfd_epoll",
					     "io_uring", "user_heap" };
	void (*run[])(const __u64 *, unsigned int,
		      __s64 *) = { f4c_dwq, f4c_timerfd, f4c_uring, f4c_heap };
	unsigned int r, k, i, j, n = P.late_n, early[4] = { 0 };
	__u64 *off = xcalloc(n, sizeof(*off));
	__s64 *late = xcalloc(n, sizeof(*late));

	raise_nofile(n + 256);
	for (r = 0; r < P.reps; r++) {
		for (j = 0; j < n; j++)
			off[j] = rnd() % P.late_window;
		for (k = 0; k < 4; k++) {
			i = (k + r) % 4;
			run[i](off, n, late);
			qsort(late, n, sizeof(*late), cmp_s64);
			for (j = 0; j < n; j++)
				early[i] += late[j] < 0;
			add("F4c", names[i], n, "p50", "us",
			    pct(late, n, 0.5) / 1000);
			add("F4c", names[i], n, "p99", "us",
			    pct(late, n, 0.99) / 1000);
			add("F4c", names[i], n, "max", "us",
			    (double)late[n - 1] / 1000);
		}
	}
	/* Early deliveries of all repetitions together: any is a bug. */
	for (i = 0; i < 4; i++)
		add("F4c", names[i], n, "early", "count", early[i]);
	free(off);
	free(late);
	if (!P.json)
		printf("\nF4c  lateness at the reader (us), %u timers over %llu ms\n",
		       n, (unsigned long long)(P.late_window / NSEC_PER_MSEC));
	print_all("F4c");
}

/* --- F5: slab bytes per pending timer ------------------------------------ */

struct slab {
	char name[64];
	long long active;
	long long objsize;
};

#define MAX_SLABS 1024

struct slabs {
	struct slab s[MAX_SLABS];
	unsigned int n;
};

static void slab_read(struct slabs *t)
{
	FILE *f = fopen("/proc/slabinfo", "re");
	char line[512];
	struct slab *s;

	if (!f)
		die("/proc/slabinfo (root only)");
	t->n = 0;
	while (fgets(line, sizeof(line), f) && t->n < MAX_SLABS) {
		s = &t->s[t->n];
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %lld %*d %lld", s->name, &s->active,
			   &s->objsize) == 3)
			t->n++;
	}
	fclose(f);
}

static long long slab_bytes(const struct slabs *t)
{
	long long sum = 0;
	unsigned int i;

	for (i = 0; i < t->n; i++)
		sum += t->s[i].active * t->s[i].objsize;
	return sum;
}

/* Wait until the slab stops shrinking (RCU frees, io_uring's exit work). */
static void slab_settle(struct slabs *t)
{
	long long prev, cur;
	unsigned int i;

	slab_read(t);
	cur = slab_bytes(t);
	for (i = 0; i < P.settle_max; i++) {
		usleep(50000);
		prev = cur;
		slab_read(t);
		cur = slab_bytes(t);
		if (prev - cur < 4096 && cur - prev < 4096)
			break;
	}
}

/*
 * Shrink every cache (/sys/kernel/slab/NAME/shrink; the aliases, symlinks,
 * are skipped): SLUB flushes its per-CPU slabs to the node's partial lists
 * and frees the empty ones, so /proc/slabinfo's active objects are then the
 * objects in use, where free ones cached on a CPU count as active. Read
 * after this, two counts differ by the objects allocated in between.
 */
static void slab_shrink(void)
{
	char path[512];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	d = opendir("/sys/kernel/slab");
	if (!d)
		die("/sys/kernel/slab");
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s", e->d_name);
		if (lstat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (write(fd, "1", 1) != 1)
			die(path);
		close(fd);
	}
	closedir(d);
}

/* The caches that grew most, with what else shares them (/sys/kernel/slab). */
#define TOP_CACHES 4

struct growth {
	char name[64];
	long long objsize;
	double per_timer;
};

static void slab_delta(const struct slabs *a, const struct slabs *b,
		       unsigned int n, double *total, struct growth *top)
{
	unsigned int i, j, k;
	long long sum = 0, d;

	memset(top, 0, TOP_CACHES * sizeof(*top));
	for (i = 0; i < b->n; i++) {
		d = b->s[i].active;
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->s[j].name, b->s[i].name)) {
				d -= a->s[j].active;
				break;
			}
		d *= b->s[i].objsize;
		sum += d;
		for (k = 0; k < TOP_CACHES; k++)
			if ((double)d / n > top[k].per_timer) {
				memmove(&top[k + 1], &top[k],
					(TOP_CACHES - 1 - k) * sizeof(*top));
				snprintf(top[k].name, sizeof(top[k].name), "%s",
					 b->s[i].name);
				top[k].objsize = b->s[i].objsize;
				top[k].per_timer = (double)d / n;
				break;
			}
	}
	*total = (double)sum / n;
}

/* The cache names that are aliases of @name's cache (merged caches). */
static void aliases(const char *name, char *out, size_t len)
{
	char path[320], want[320], got[320];
	struct dirent *de;
	size_t used = 0;
	ssize_t k;
	DIR *d;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/sys/kernel/slab/%.200s", name);
	if (!realpath(path, want))
		return;
	d = opendir("/sys/kernel/slab");
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_name[0] == ':' ||
		    !strcmp(de->d_name, name))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%.200s",
			 de->d_name);
		if (!realpath(path, got) || strcmp(got, want))
			continue;
		k = snprintf(out + used, len - used, "%s%s", used ? " " : "",
			     de->d_name);
		if (k < 0 || (size_t)k >= len - used)
			break;
		used += k;
	}
	closedir(d);
}

struct f5_hold {
	int fd, ep, *fds;
	struct io_uring ring;
	timer_t *pt;
	unsigned int n;
	int kind;
};

/*
 * K_DWQ_ORDERED: dwq's timers armed in deadline order (the same deadlines,
 * sorted), as timeouts of one length armed one after the other come: they
 * go to the file's run, the others mostly to its heap.
 */
enum {
	K_DWQ,
	K_DWQ_ORDERED,
	K_TIMERFD,
	K_TIMERFD_EPOLL,
	K_URING,
	K_POSIX,
	K_NKINDS
};

static const char *const f5_names[] = { "dwq",	    "dwq_ordered",
					"timerfd",  "timerfd_epoll",
					"io_uring", "posix_timer" };
static const char *const f5_arrays[] = { "dwq_arrays", "dwq_ordered_arrays" };

static bool f5_dwq(int kind)
{
	return kind == K_DWQ || kind == K_DWQ_ORDERED;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* What each variant needs before the count begins: files, rings. */
static void f5_prepare(struct f5_hold *h, int kind, unsigned int n)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->n = n;
	h->fd = -1;
	h->ep = -1;
	switch (kind) {
	case K_DWQ:
	case K_DWQ_ORDERED:
		h->fd = dwq_open();
		break;
	case K_TIMERFD:
	case K_TIMERFD_EPOLL:
		h->fds = xcalloc(n, sizeof(int));
		if (kind == K_TIMERFD_EPOLL) {
			h->ep = epoll_create1(EPOLL_CLOEXEC);
			if (h->ep < 0)
				die("epoll_create1");
		}
		/* The fd table grows outside the slab: grow it first. */
		h->fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (h->fd < 0 || dup2(h->fd, n + 64) < 0)
			die("dup2");
		close(n + 64);
		close(h->fd);
		h->fd = -1;
		break;
	case K_URING:
		ring_init(&h->ring);
		break;
	case K_POSIX:
		h->pt = xcalloc(n, sizeof(timer_t));
		break;
	}
}

static void f5_arm(struct f5_hold *h, const __u64 *d)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec its = { 0 };
	unsigned int i;

	switch (h->kind) {
	case K_DWQ:
	case K_DWQ_ORDERED:
		dwq_schedule_many(h->fd, d, h->n, NULL);
		break;
	case K_TIMERFD:
	case K_TIMERFD_EPOLL:
		for (i = 0; i < h->n; i++) {
			h->fds[i] = timerfd_create(CLOCK_MONOTONIC,
						   TFD_CLOEXEC | TFD_NONBLOCK);
			if (h->fds[i] < 0)
				die("timerfd_create");
			its.it_value = to_ts(d[i]);
			if (timerfd_settime(h->fds[i], TFD_TIMER_ABSTIME, &its,
					    NULL))
				die("timerfd_settime");
			if (h->ep >= 0 &&
			    epoll_ctl(h->ep, EPOLL_CTL_ADD, h->fds[i], &ee))
				die("epoll_ctl");
		}
		break;
	case K_URING:
		ring_arm_many(&h->ring, d, h->n, 1);
		break;
	case K_POSIX:
		for (i = 0; i < h->n; i++) {
			if (timer_create(CLOCK_MONOTONIC, &sev, &h->pt[i]))
				die("timer_create (RLIMIT_SIGPENDING?)");
			its.it_value = to_ts(d[i]);
			if (timer_settime(h->pt[i], TIMER_ABSTIME, &its, NULL))
				die("timer_settime");
		}
		break;
	}
}

static void f5_release(struct f5_hold *h)
{
	unsigned int i;

	switch (h->kind) {
	case K_DWQ:
	case K_DWQ_ORDERED:
		close(h->fd);
		break;
	case K_TIMERFD:
	case K_TIMERFD_EPOLL:
		close_all(h->fds, h->n);
		if (h->ep >= 0)
			close(h->ep);
		break;
	case K_URING:
		io_uring_queue_exit(&h->ring);
		break;
	case K_POSIX:
		for (i = 0; i < h->n; i++)
			timer_delete(h->pt[i]);
		free(h->pt);
		break;
	}
}

static void bench_f5(void)
{
	static struct slabs a, b;
	struct growth top[K_NKINDS][TOP_CACHES];
	unsigned int n = P.slab_n, r, k, i, j;
	unsigned long long pages0 = 0, pages1 = 0;
	__u64 *d = xcalloc(n, sizeof(*d)), *sorted = xcalloc(n, sizeof(*d));
	struct rlimit rl = { n + 256, n + 256 };
	char al[256];
	struct f5_hold h;
	double total;

	raise_nofile(n + 256);
	setrlimit(RLIMIT_SIGPENDING, &rl);
	memset(top, 0, sizeof(top));
	for (r = 0; r < P.reps; r++) {
		far_deadlines(d, n, now_ns());
		memcpy(sorted, d, n * sizeof(*d));
		qsort(sorted, n, sizeof(*sorted), cmp_u64);
		for (k = 0; k < K_NKINDS; k++) {
			i = (k + r) % K_NKINDS;
			f5_prepare(&h, i, n);
			slab_settle(&a);
			slab_shrink();
			slab_read(&a);
			if (f5_dwq(i))
				pages0 = dwq_array_pages(h.fd);
			f5_arm(&h, i == K_DWQ_ORDERED ? sorted : d);
			slab_shrink();
			slab_read(&b);
			if (f5_dwq(i))
				pages1 = dwq_array_pages(h.fd);
			slab_delta(&a, &b, n, &total, top[i]);
			add("F5", f5_names[i], n, "slab", "bytes", total);
			if (f5_dwq(i))
				add("F5", f5_arrays[i], n, "arrays", "bytes",
				    ((double)pages1 - pages0) / n);
			f5_release(&h);
		}
	}
	add("F5", "user_heap", n, "user", "bytes",
	    sizeof(struct unode) + sizeof(struct uslot));
	free(sorted);
	free(d);
	if (!P.json)
		printf("\nF5  slab bytes per pending timer, %u pending\n", n);
	print_all("F5");
	/* Where the bytes went, in the last repetition. */
	for (i = 0; i < K_NKINDS; i++)
		for (j = 0; j < TOP_CACHES && top[i][j].name[0]; j++) {
			al[0] = '\0';
			if (!P.tiny) /* a walk of /sys/kernel/slab: slow */
				aliases(top[i][j].name, al, sizeof(al));
			if (P.json) {
				printf("{\"type\":\"slab_cache\",\"figure\":\"F5\",");
				printf("\"variant\":\"%s\",\"cache\":\"%s\",",
				       f5_names[i], top[i][j].name);
				printf("\"objsize\":%lld,\"bytes_per_timer\":%.1f,",
				       top[i][j].objsize, top[i][j].per_timer);
				printf("\"aliases\":\"%s\"}\n", al);
			} else {
				printf("    %-14s %-24s %5lld B objects: %7.1f B/timer%s%s\n",
				       f5_names[i], top[i][j].name,
				       top[i][j].objsize, top[i][j].per_timer,
				       al[0] ? "; also " : "", al);
			}
		}
}

/* --- F9: one user at its limits, not reading ----------------------------- */

/*
 * The load runs as this uid (nobody), in a cgroup v2 of its own; another
 * client, root, keeps a 1 ms periodic timer and reads it continuously.
 * CPU time is the machine's busy time (every CPU's time less its idle
 * time) and the run time of threads (schedstat), in ns.
 */
#define F9_UID 65534
#define F9_CLIENT_PERIOD NSEC_PER_MSEC
#define F9_CG_NAME "dwq-ubench-f9"
#define F9_CAP "10000 100000" /* 10% of one CPU */
#define F9_CAP_CPUS 0.1
#define F9_NFILES 4

static struct rlimit nofile0; /* the limit dwq-ubench started with */
static pid_t main_pid;

/* Set up by f9_setup(), undone by f9_teardown() (also at exit). */
static struct {
	char root[128]; /* the cgroup2 mount */
	char dir[192]; /* the load's cgroup */
	int mounted, made, ok;
	mode_t dev_mode; /* /dev/dwq's permission bits before */
	int dev_changed;
	pid_t load; /* a running load, killed at exit */
	unsigned long offline[4]; /* CPUs --f9-cpus took offline, a bit each */
} f9;

#define F9_MAX_CPUS (8 * sizeof(f9.offline))

static int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return r;
}

static int cg_write(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", f9.dir, file);
	return write_file(path, val);
}

static int cpu_online_write(unsigned int cpu, const char *val)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online",
		 cpu);
	return write_file(path, val);
}

/* The CPUs f9_cpus_limit() took offline, online again. */
static void f9_cpus_online(void)
{
	const unsigned int bits = 8 * sizeof(f9.offline[0]);
	unsigned int cpu;

	for (cpu = 0; cpu < F9_MAX_CPUS; cpu++) {
		if (!(f9.offline[cpu / bits] & 1UL << cpu % bits))
			continue;
		if (cpu_online_write(cpu, "1"))
			fprintf(stderr, "dwq-ubench: F9: cpu%u online: %s\n",
				cpu, strerror(errno));
		f9.offline[cpu / bits] &= ~(1UL << cpu % bits);
	}
}

/*
 * --f9-cpus N: every CPU from N up offline for F9. Under icount the
 * vCPUs run in turn, and one that is out of its idle loop counts the
 * other's turn as its busy time, which no instruction backs; F9 reads CPU
 * from busy time, so under icount it runs on one CPU (docs/bench.md, F9).
 */
static void f9_cpus_limit(unsigned int n)
{
	const unsigned int bits = 8 * sizeof(f9.offline[0]);
	unsigned int cpu;
	char path[64];

	for (cpu = n; n && cpu < F9_MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u",
			 cpu);
		if (access(path, F_OK))
			break;
		if (cpu_online_write(cpu, "0"))
			die("F9: --f9-cpus: take a CPU offline");
		f9.offline[cpu / bits] |= 1UL << cpu % bits;
	}
}

static void f9_teardown(void)
{
	if (getpid() != main_pid)
		return; /* a load's exit: not its business */
	if (f9.load > 0) {
		kill(f9.load, SIGKILL);
		waitpid(f9.load, NULL, 0);
		f9.load = 0;
	}
	if (f9.made && !rmdir(f9.dir))
		f9.made = 0;
	if (f9.mounted && !umount(f9.root))
		f9.mounted = 0;
	if (f9.dev_changed && !chmod("/dev/dwq", f9.dev_mode))
		f9.dev_changed = 0;
	f9_cpus_online();
}

/* cgroup2 (mounted if it is not), a child with the cpu controller. */
static void f9_setup(void)
{
	char dev[64], mnt[128], type[32], path[256];
	struct stat st;
	FILE *f;

	atexit(f9_teardown);
	if (stat("/dev/dwq", &st))
		die("/dev/dwq");
	f9.dev_mode = st.st_mode & 07777;
	if ((f9.dev_mode & 0666) != 0666) {
		if (chmod("/dev/dwq", f9.dev_mode | 0666))
			die("chmod 0666 /dev/dwq (F9 runs as root)");
		f9.dev_changed = 1;
	}
	f = fopen("/proc/mounts", "re");
	while (f && fscanf(f, "%63s %127s %31s %*[^\n]", dev, mnt, type) == 3)
		if (!strcmp(type, "cgroup2")) {
			snprintf(f9.root, sizeof(f9.root), "%s", mnt);
			break;
		}
	if (f)
		fclose(f);
	if (!f9.root[0]) {
		snprintf(f9.root, sizeof(f9.root), "/sys/fs/cgroup");
		mkdir(f9.root, 0755);
		if (mount("cgroup2", f9.root, "cgroup2", 0, NULL)) {
			fprintf(stderr,
				"dwq-ubench: F9: mount cgroup2: %s: no capped case\n",
				strerror(errno));
			return;
		}
		f9.mounted = 1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", f9.root);
	write_file(path, "+cpu");
	snprintf(f9.dir, sizeof(f9.dir), "%s/" F9_CG_NAME, f9.root);
	if (mkdir(f9.dir, 0755) && errno != EEXIST) {
		fprintf(stderr,
			"dwq-ubench: F9: mkdir %s: %s: no capped case\n",
			f9.dir, strerror(errno));
		return;
	}
	f9.made = 1;
	f9.ok = !cg_write("cpu.max", "max 100000");
	if (!f9.ok)
		fprintf(stderr,
			"dwq-ubench: F9: %s/cpu.max: %s: no capped case\n",
			f9.dir, strerror(errno));
}

/*
 * Idle time of every CPU together, ns: /proc/stat's idle + iowait (with
 * NO_HZ the kernel counts them exactly, from each CPU's idle entry and
 * exit, not by ticks), in USER_HZ ticks; and the CPUs.
 */
/*
 * Where idle_ns() read the idle time: dwq_bench.ko's idle_us (to the
 * microsecond), else /proc/stat (in USER_HZ ticks, 10 ms: as much as a
 * 2 s window of F9 may put one user over its cap by). idle_us only with
 * one CPU online, as under icount: with two vCPUs a sample of the sum
 * over CPUs has been seen to jump by about 2^64 ns in a make bench run
 * (/proc/stat sums the same counters, and its idle has jumped the same
 * way), where one CPU, the reader's own and busy while it reads, has
 * given steady samples in every run.
 */
static const char *idle_source = "none";

/*
 * idle_ns()'s sample, or -1 if it cannot be: a CPU's idle or iowait in
 * /proc/stat beyond all the time since boot. An idle CPU's idle (and
 * iowait) is counted up to a clock read that may be made on another CPU;
 * one whose clock is behind (as a vCPU's can be under TCG) makes it go
 * below zero, and it wraps to about 2^64 ns. Seen in F9's repetitions,
 * in idle and in iowait, on the client alone and on the loads: such a
 * sample says nothing of the window, and the window is not counted.
 */
static int idle_bad;

static __u64 idle_ns(unsigned int *ncpu)
{
	unsigned long long v[5], tick, us, sum = 0, most;
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/dwq_bench/idle_us", "re");
	unsigned int cpu;

	idle_bad = 0;
	if (f) {
		if (fscanf(f, "%llu %u", &us, ncpu) == 2 && *ncpu == 1) {
			fclose(f);
			idle_source = "dwq_bench_idle_us";
			return us * NSEC_PER_USEC;
		}
		fclose(f);
	}
	idle_source = "proc_stat";
	f = fopen("/proc/stat", "re");
	if (!f || !fgets(line, sizeof(line), f))
		die("/proc/stat");
	tick = NSEC_PER_SEC / sysconf(_SC_CLK_TCK);
	/* One CPU's most, in ticks, and a tick for rounding. */
	most = boottime_ns() / tick + 1;
	*ncpu = 0;
	/* Each CPU's line: the sum line would hide which one wrapped. */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4]) != 6)
			continue;
		(*ncpu)++;
		if (v[3] > most || v[4] > most)
			idle_bad = 1;
		else
			sum += v[3] + v[4];
	}
	fclose(f);
	if (!*ncpu) {
		errno = EINVAL;
		die("/proc/stat");
	}
	return sum * tick;
}

/*
 * Run time of every thread of @pid, ns: the first field of each
 * /proc/PID/task/TID/schedstat (the scheduler's sum_exec_runtime); 0 for
 * pid 0.
 */
static __u64 pid_cpu(pid_t pid)
{
	char path[96];
	unsigned long long v;
	struct dirent *de;
	__u64 sum = 0;
	DIR *d;
	FILE *f;

	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		die(path);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat",
			 (int)pid, de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1)
			sum += v;
		fclose(f);
	}
	closedir(d);
	return sum;
}

struct cpu_sample {
	__u64 wall, idle, load, self, workers;
	unsigned int ncpu;
	int idle_bad; /* see idle_ns() */
};

static void cpu_sample(struct cpu_sample *s, pid_t load)
{
	unsigned int nw;

	s->load = pid_cpu(load);
	s->self = pid_cpu(getpid());
	s->workers = workers_cpu_ns(&nw);
	s->idle = idle_ns(&s->ncpu);
	s->idle_bad = idle_bad;
	s->wall = now_ns();
}

static unsigned long long param_ull(const char *name, unsigned long long dflt)
{
	char path[128];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/dwq/parameters/%s", name);
	f = fopen(path, "re");
	if (!f)
		return dflt;
	if (fscanf(f, "%llu", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* What a load tells the parent once armed. */
struct f9_armed {
	__u64 period; /* ns */
	unsigned int periodic, oneshot; /* tasks (timerfds: periodic) */
};

enum { F9_NONE, F9_DWQ, F9_TIMERFD };

static void write_all(int fd, const void *buf, size_t len)
{
	if (write(fd, buf, len) != (ssize_t)len)
		die("write (pipe)");
}

/*
 * Schedule, over F9_NFILES files, what the limits let one user hold:
 * fixed-rate tasks at min_period_ns until a limit says no (the per-user
 * rate budget, where there is one, or a task limit), then one-shots far
 * ahead until the task limits say no: the whole per-file and per-user
 * limits, the shortest period the module accepts. A batch that does not
 * fit is halved until one task does not: that is the limit.
 */
static void f9_arm_dwq(int *fds, struct f9_armed *a)
{
	struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	struct dwq_ioc_schedule_batch b = { .entries = (__u64)(uintptr_t)e };
	unsigned int f = 0, n = DWQ_SCHEDULE_BATCH_MAX, k, c, total = 0;
	unsigned int cap = P.f9_tasks ? P.f9_tasks : UINT32_MAX;
	struct dwq_ioc_stats st;
	int periodic = 1;

	a->period = param_ull("min_period_ns", 100 * NSEC_PER_USEC);
	while (f < F9_NFILES && total < cap) {
		c = n < cap - total ? n : cap - total;
		memset(e, 0, c * sizeof(e[0]));
		for (k = 0; k < c; k++) {
			if (periodic) {
				e[k].mode = DWQ_MODE_FIXED_RATE;
				e[k].period_ns = a->period;
				e[k].time_ns = a->period;
			} else {
				e[k].time_ns = FAR;
			}
		}
		b.count = c;
		if (!ioctl(fds[f], DWQ_IOC_SCHEDULE_BATCH, &b)) {
			total += c;
			if (periodic)
				a->periodic += c;
			else
				a->oneshot += c;
			continue;
		}
		if (errno != ENOSPC)
			die("F9: DWQ_IOC_SCHEDULE_BATCH");
		if (c > 1) {
			n = c / 2;
			continue;
		}
		n = DWQ_SCHEDULE_BATCH_MAX;
		memset(&st, 0, sizeof(st));
		if (ioctl(fds[f], DWQ_IOC_STATS, &st))
			die("F9: DWQ_IOC_STATS");
		if (st.pending >= st.max_tasks_per_file)
			f++; /* this file is full: the next one */
		else if (periodic)
			periodic = 0; /* the rate budget, or the user's tasks */
		else
			break; /* the user's (or everyone's) task limit */
	}
}

/* As many periodic timerfds as RLIMIT_NOFILE lets the user open. */
static int *f9_arm_timerfd(struct f9_armed *a, int ep)
{
	struct epoll_event ee = { .events = EPOLLIN };
	unsigned int cap = P.f9_tasks ? P.f9_tasks : UINT32_MAX, n = 0;
	struct itimerspec its = { 0 };
	struct rlimit rl;
	int *fds, fd;

	a->period = param_ull("min_period_ns", 100 * NSEC_PER_USEC);
	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("getrlimit");
	rl.rlim_cur = rl.rlim_max; /* what an unprivileged user may do */
	setrlimit(RLIMIT_NOFILE, &rl);
	fds = xcalloc(rl.rlim_cur < cap ? rl.rlim_cur : cap, sizeof(int));
	its.it_value = to_ts(a->period);
	its.it_interval = to_ts(a->period);
	while (n < cap && n < rl.rlim_cur) {
		fd = timerfd_create(CLOCK_MONOTONIC,
				    TFD_CLOEXEC | TFD_NONBLOCK);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				break;
			die("F9: timerfd_create");
		}
		ee.data.fd = fd;
		if (timerfd_settime(fd, 0, &its, NULL) ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee))
			die("F9: timerfd_settime/epoll_ctl");
		fds[n++] = fd;
	}
	a->periodic = n;
	return fds;
}

/*
 * The load, in the child: into the cgroup, then nobody; arm, say so, wait
 * for the go, then sleep for ever (not reading) or read every event as
 * it comes (epoll, then read() of each ready file until EAGAIN), counting
 * what it read in *@read_count (shared with the parent).
 */
static void f9_load(int kind, int reading, int ready_w, int go_r,
		    __u64 *read_count)
{
	struct dwq_event ev[READ_MAX];
	struct epoll_event ee = { .events = EPOLLIN }, out[READ_MAX];
	struct f9_armed a = { 0 };
	int fds[F9_NFILES], ep, i, k;
	char go;
	__u64 exp;
	ssize_t r;

	if (f9.ok && cg_write("cgroup.procs", "0"))
		die("F9: cgroup.procs");
	setrlimit(RLIMIT_NOFILE, &nofile0);
	if (setgroups(0, NULL) || setgid(F9_UID) || setuid(F9_UID))
		die("F9: setuid");
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("F9: epoll_create1");
	if (kind == F9_DWQ) {
		for (i = 0; i < F9_NFILES; i++) {
			fds[i] = open("/dev/dwq",
				      O_RDWR | O_CLOEXEC | O_NONBLOCK);
			ee.data.fd = fds[i];
			if (fds[i] < 0)
				die("F9: open /dev/dwq as nobody");
			if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ee))
				die("F9: epoll_ctl");
		}
		f9_arm_dwq(fds, &a);
	} else {
		f9_arm_timerfd(&a, ep);
	}
	write_all(ready_w, &a, sizeof(a));
	if (read(go_r, &go, 1) != 1)
		_exit(0);
	while (!reading)
		pause();
	for (;;) {
		k = epoll_wait(ep, out, READ_MAX, -1);
		for (i = 0; i < k; i++) {
			if (kind == F9_DWQ) {
				while ((r = read(out[i].data.fd, ev,
						 sizeof(ev))) > 0)
					__atomic_fetch_add(read_count,
							   r / sizeof(ev[0]),
							   __ATOMIC_RELAXED);
			} else if (read(out[i].data.fd, &exp, sizeof(exp)) ==
				   sizeof(exp)) {
				__atomic_fetch_add(read_count, 1,
						   __ATOMIC_RELAXED);
			}
		}
	}
}

/* The other client: a 1 ms periodic timer read by a thread of its own. */
struct f9_client {
	int kind, fd;
	__u64 start,
		end; /* the window: deadlines from start, reads until end */
	__s64 *late;
	unsigned int nlate, cap;
	__u64 periods; /* timerfd: expirations counted so far */
};

static void *f9_client_run(void *arg)
{
	struct f9_client *c = arg;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	struct dwq_event ev[16];
	__u64 t, exp;
	ssize_t r;
	int i;

	for (;;) {
		t = now_ns();
		if (t >= c->end)
			break;
		poll(&pfd, 1, (int)((c->end - t) / NSEC_PER_MSEC) + 1);
		if (c->kind == F9_DWQ) {
			r = read(c->fd, ev, sizeof(ev));
			t = now_ns();
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				die("F9: client read /dev/dwq");
			for (i = 0; r > 0 && i < r / (ssize_t)sizeof(ev[0]);
			     i++)
				if (t < c->end && c->nlate < c->cap)
					c->late[c->nlate++] =
						(__s64)(t - ev[i].deadline_ns);
		} else {
			r = read(c->fd, &exp, sizeof(exp));
			t = now_ns();
			if (r < 0 && errno != EAGAIN && errno != EINTR)
				die("F9: client read timerfd");
			if (r != sizeof(exp))
				continue;
			c->periods += exp;
			/* The latest expiration it counts: start + (k-1) P. */
			if (t < c->end && c->nlate < c->cap)
				c->late[c->nlate++] =
					(__s64)(t - (c->start +
						     (c->periods - 1) *
							     F9_CLIENT_PERIOD));
		}
	}
	return NULL;
}

static void f9_client_open(struct f9_client *c)
{
	struct dwq_ioc_schedule s;
	struct itimerspec its = { 0 };

	if (c->kind == F9_DWQ) {
		c->fd = open("/dev/dwq", O_RDWR | O_CLOEXEC | O_NONBLOCK);
		if (c->fd < 0)
			die("F9: open /dev/dwq (client)");
		memset(&s, 0, sizeof(s));
		s.time_ns = c->start;
		s.period_ns = F9_CLIENT_PERIOD;
		s.mode = DWQ_MODE_FIXED_RATE;
		s.flags = DWQ_SCHED_ABS;
		dwq_schedule(c->fd, &s);
	} else {
		c->fd = timerfd_create(CLOCK_MONOTONIC,
				       TFD_CLOEXEC | TFD_NONBLOCK);
		its.it_value = to_ts(c->start);
		its.it_interval = to_ts(F9_CLIENT_PERIOD);
		if (c->fd < 0 ||
		    timerfd_settime(c->fd, TFD_TIMER_ABSTIME, &its, NULL))
			die("F9: timerfd (client)");
	}
}

struct f9_variant {
	const char *name;
	int client; /* F9_DWQ or F9_TIMERFD */
	int load; /* F9_NONE, F9_DWQ, F9_TIMERFD */
	int reading, capped;
};

static const struct f9_variant f9_variants[] = {
	{ "dwq_idle", F9_DWQ, F9_NONE, 0, 0 },
	{ "dwq", F9_DWQ, F9_DWQ, 0, 0 },
	{ "dwq_capped_reading", F9_DWQ, F9_DWQ, 1, 1 },
	{ "timerfd_idle", F9_TIMERFD, F9_NONE, 0, 0 },
	{ "timerfd", F9_TIMERFD, F9_TIMERFD, 0, 0 },
	{ "timerfd_capped_reading", F9_TIMERFD, F9_TIMERFD, 1, 1 },
};

/* One variant's window: what bench_f9() records. */
struct f9_out {
	double share; /* % of the machine busy outside the load and us */
	double workers; /* % of the machine in dwq's dwq/N kthreads */
	double workers_cpus; /* the same in CPUs */
	double load_cpus, behalf_cpus; /* in CPUs: the load; it + the rest */
	double events_pct, p50, p99, max; /* the client's */
	double load_rate; /* events/s the load read */
	struct f9_armed armed;
	int ran;
	/* a sample of its window is not one (see idle_ns()): not counted */
	int idle_bad;
};

static void f9_run(const struct f9_variant *v, struct f9_out *o)
{
	int ready[2], go[2];
	__u64 *count; /* shared with the load: __atomic */
	struct cpu_sample s0, s1;
	struct f9_client c = { .kind = v->client };
	__u64 c0 = 0, c1, win = P.f9_window;
	double all, busy, self, load;
	/* tools/prof/profile f9:NAME: the insn plugin counts this window. */
	const char *mark = getenv("DWQ_PROF_F9");
	bool marked = mark && !strcmp(mark, v->name);
	pthread_t th;
	pid_t pid = 0;
	int err;

	memset(o, 0, sizeof(*o));
	if (v->capped && !f9.ok)
		return;
	count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (count == MAP_FAILED)
		die("mmap");
	*count = 0;
	if (v->load != F9_NONE) {
		if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
			die("pipe2");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(ready[0]);
			close(go[1]);
			f9_load(v->load, v->reading, ready[1], go[0], count);
			_exit(0);
		}
		f9.load = pid;
		close(ready[1]);
		close(go[0]);
		if (read(ready[0], &o->armed, sizeof(o->armed)) !=
		    sizeof(o->armed)) {
			fprintf(stderr, "dwq-ubench: F9: %s: the load failed\n",
				v->name);
			exit(1);
		}
		close(ready[0]);
		if (v->capped && cg_write("cpu.max", F9_CAP))
			die("F9: cpu.max");
		write_all(go[1], "g", 1);
		close(go[1]);
		usleep(P.f9_settle / NSEC_PER_USEC);
	}
	c.cap = win / F9_CLIENT_PERIOD * 2 + 16;
	c.late = xcalloc(c.cap, sizeof(*c.late));
	c.start = now_ns() + 20 * NSEC_PER_MSEC;
	c.end = c.start + win;
	f9_client_open(&c);
	err = pthread_create(&th, NULL, f9_client_run, &c);
	if (err) {
		errno = err;
		die("pthread_create");
	}
	sleep_until(c.start);
	cpu_sample(&s0, pid);
	if (marked)
		prof_mark_start();
	c0 = __atomic_load_n(count, __ATOMIC_RELAXED);
	sleep_until(c.end);
	if (marked)
		prof_mark_stop();
	cpu_sample(&s1, pid);
	c1 = __atomic_load_n(count, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	close(c.fd);
	if (pid) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		f9.load = 0;
		if (v->capped)
			cg_write("cpu.max", "max 100000");
	}
	munmap(count, sizeof(*count));

	/* The machine's CPU time over the window, and the busy part of it. */
	all = (double)(s1.wall - s0.wall) * s1.ncpu;
	/*
	 * Signed: a CPU's idle time as /proc/stat shows it can step back
	 * a little (an idle CPU's is computed up to the moment of the read,
	 * and its iowait share can move to idle).
	 */
	busy = all - ((double)s1.idle - (double)s0.idle);
	self = (double)(s1.self - s0.self);
	load = (double)(s1.load - s0.load);
	o->share = 100.0 * (busy - load - self) / all;
	o->workers = 100.0 * (double)(s1.workers - s0.workers) / all;
	o->workers_cpus = (double)(s1.workers - s0.workers) * s1.ncpu / all;
	o->load_cpus = load * s1.ncpu / all;
	o->behalf_cpus = (busy - self) * s1.ncpu / all;
	if (marked)
		fprintf(stderr,
			"dwq-ubench: F9 %s window: wall %llu ns, cpus %u, busy %.0f ns, load %.0f ns, self %.0f ns\n",
			v->name, (unsigned long long)(s1.wall - s0.wall),
			s1.ncpu, busy, load, self);
	o->events_pct = 100.0 * c.nlate / (win / F9_CLIENT_PERIOD);
	o->load_rate = (double)(c1 - c0) * NSEC_PER_SEC / win;
	if (c.nlate) {
		qsort(c.late, c.nlate, sizeof(*c.late), cmp_s64);
		o->p50 = pct(c.late, c.nlate, 0.5) / 1000;
		o->p99 = pct(c.late, c.nlate, 0.99) / 1000;
		o->max = (double)c.late[c.nlate - 1] / 1000;
	}
	free(c.late);
	o->idle_bad = s0.idle_bad || s1.idle_bad;
	if (o->idle_bad)
		fprintf(stderr,
			"dwq-ubench: F9 %s: a CPU's idle time in /proc/stat went past the time since boot (wrapped): its busy time is not counted in this repetition\n",
			v->name);
	/*
	 * Run times only grow; a sum that went down lost a thread (or a
	 * schedstat read) between the samples, and its delta, unsigned,
	 * would wrap to about 2^64 ns: not counted either.
	 */
	if (s1.self < s0.self || s1.load < s0.load || s1.workers < s0.workers) {
		o->idle_bad = 1;
		fprintf(stderr,
			"dwq-ubench: F9 %s: a run time went down over the window (self %lld, load %lld, workers %lld ns): its busy time is not counted in this repetition\n",
			v->name, (long long)(s1.self - s0.self),
			(long long)(s1.load - s0.load),
			(long long)(s1.workers - s0.workers));
	}
	o->ran = 1;
}

static void bench_f9(void)
{
	unsigned int nv = NVARIANTS(f9_variants), r, k, i, ncpu;
	struct f9_out o[NVARIANTS(f9_variants)];
	int bad;
	const struct f9_variant *v;
	double idle, lower;

	f9_setup();
	f9_cpus_limit(P.f9_cpus);
	idle_ns(&ncpu); /* sets idle_source, with F9's CPUs online */
	fprintf(stderr, "dwq-ubench: F9: idle time from %s\n", idle_source);
	for (r = 0; r < P.reps; r++) {
		for (k = 0; k < nv; k++) {
			i = (k + r) % nv;
			usleep(200000); /* the last load's files are closed */
			f9_run(&f9_variants[i], &o[i]);
		}
		for (i = 0; i < nv; i++) {
			v = &f9_variants[i];
			if (!o[i].ran)
				continue;
			if (!o[i].idle_bad) {
				add("F9", v->name, 0, "cpu_share", "%",
				    o[i].share);
				add("F9", v->name, 0, "dwq_threads", "%",
				    o[i].workers);
			}
			add("F9", v->name, 0, "client_events", "%",
			    o[i].events_pct);
			add("F9", v->name, 0, "client_p50", "us", o[i].p50);
			add("F9", v->name, 0, "client_p99", "us", o[i].p99);
			add("F9", v->name, 0, "client_max", "us", o[i].max);
			if (v->load == F9_NONE)
				continue;
			if (!o[i].idle_bad)
				add("F9", v->name, 0, "load_cpu", "cpus",
				    o[i].load_cpus);
			add("F9", v->name, 0, "tasks", "count",
			    o[i].armed.periodic + o[i].armed.oneshot);
			add("F9", v->name, 0, "periodic", "count",
			    o[i].armed.periodic);
			add("F9", v->name, 0, "period", "us",
			    (double)o[i].armed.period / NSEC_PER_USEC);
			if (!v->reading)
				continue;
			/*
			 * On its behalf: its own time and the machine's other
			 * busy time, less the other busy time with the same
			 * client and no load (its idle variant, this
			 * repetition). That difference swings with the
			 * guest's background; the exact run times of the load
			 * and of the dwq/N threads beyond the idle variant's
			 * are a floor under it.
			 */
			idle = 0;
			lower = 0;
			bad = o[i].idle_bad;
			for (k = 0; k < nv; k++)
				if (f9_variants[k].client == v->client &&
				    f9_variants[k].load == F9_NONE &&
				    o[k].ran) {
					idle = o[k].behalf_cpus;
					lower = o[k].workers_cpus;
					bad |= o[k].idle_bad;
				}
			lower = o[i].load_cpus + o[i].workers_cpus - lower;
			add("F9", v->name, 0, "load_read", "events/s",
			    o[i].load_rate);
			/* Either window's busy time unknown: not counted. */
			if (bad)
				continue;
			add("F9", v->name, 0, "behalf_floor", "cpus", lower);
			add("F9", v->name, 0, "behalf", "cpus",
			    o[i].behalf_cpus - idle > lower ?
				    o[i].behalf_cpus - idle :
				    lower);
		}
	}
	if (f9.ok)
		add("F9", "cap", 0, "behalf", "cpus", F9_CAP_CPUS);
	f9_teardown();
	if (!P.json)
		printf("\nF9  one user at its limits: CPU outside it, a client's lateness\n");
	print_all("F9");
}

/* --- the command --------------------------------------------------------- */

static int parse_only(const char *s)
{
	char buf[64], *p, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", s);
	P.only = 0;
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcasecmp(p, "F2b"))
			P.only |= F2B;
		else if (!strcasecmp(p, "F4c"))
			P.only |= F4C;
		else if (!strcasecmp(p, "F5"))
			P.only |= F5;
		else if (!strcasecmp(p, "F7b"))
			P.only |= F7B;
		else if (!strcasecmp(p, "F9"))
			P.only |= F9;
		else
			return -1;
	}
	return P.only ? 0 : -1;
}

static void bad_usage(void)
{
	fprintf(stderr,
		"usage: dwq-ubench [--scale full|tiny] [--reps R] [--only LIST] [--f9-cpus N]\n"
		"                  [--json]\n"
		"  LIST: F2b,F4c,F5,F7b,F9 (default all; F9 needs root)\n"
		"  --f9-cpus N: F9 with CPUs N and up offline (under icount: 1)\n"
		"  full: 10000 pairs per timing, 10000 pending, a burst of 10000,\n"
		"        1000 timers over 1 s, 10000 pending for F5, F9's load at\n"
		"        dwq's limits and 2 s windows (minutes)\n"
		"  tiny: seconds; proves the pipeline, the numbers mean nothing\n");
	exit(2);
}

/* A count from 1 to @max, or bad usage. */
static unsigned int parse_count(const char *s, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < 1 || v > max)
		bad_usage();
	return v;
}

int main(int argc, char **argv)
{
	int i, tiny = 0;

	main_pid = getpid();
	getrlimit(RLIMIT_NOFILE, &nofile0);
	P.reps = 5;
	P.only = F2B | F4C | F5 | F7B | F9;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : "";

		if (!strcmp(a, "--json")) {
			P.json = 1;
			continue;
		}
		if (!strcmp(a, "--scale") && !strcmp(val, "tiny"))
			tiny = 1;
		else if (!strcmp(a, "--scale") && !strcmp(val, "full"))
			tiny = 0;
		else if (!strcmp(a, "--reps"))
			P.reps = parse_count(val, MAX_REPS);
		else if (!strcmp(a, "--f9-cpus"))
			P.f9_cpus = parse_count(val, F9_MAX_CPUS);
		else if (strcmp(a, "--only") || parse_only(val))
			bad_usage();
		i++;
	}
	P.tiny = tiny;
	if (tiny) {
		P.ops = 64;
		P.pending = 200;
		P.burst = 200;
		P.late_n = 50;
		P.late_window = 100 * NSEC_PER_MSEC;
		P.slab_n = 500;
		P.settle_max = 0;
		P.cq_entries = 1024;
		P.f9_tasks = 1000;
		P.f9_window = 300 * NSEC_PER_MSEC;
		P.f9_settle = 200 * NSEC_PER_MSEC;
	} else {
		P.ops = 10000;
		P.pending = 10000;
		P.burst = 10000;
		P.late_n = 1000;
		P.late_window = NSEC_PER_SEC;
		P.slab_n = 10000;
		P.settle_max = 40;
		P.cq_entries = 32768;
		P.f9_tasks = 0;
		P.f9_window = 2 * NSEC_PER_SEC;
		P.f9_settle = NSEC_PER_SEC;
	}
	if (P.json) {
		printf("{\"type\":\"bench_env\",\"program\":\"dwq-ubench\",");
		printf("\"scale\":\"%s\",\"reps\":%u,\"ops\":%llu,",
		       tiny ? "tiny" : "full", P.reps,
		       (unsigned long long)P.ops);
		printf("\"pending\":%u,\"burst\":%u,\"late_timers\":%u,",
		       P.pending, P.burst, P.late_n);
		printf("\"late_window_ns\":%llu,\"slab_timers\":%u,",
		       (unsigned long long)P.late_window, P.slab_n);
		printf("\"f9_tasks\":%u,\"f9_window_ns\":%llu,\"f9_settle_ns\":%llu,",
		       P.f9_tasks, (unsigned long long)P.f9_window,
		       (unsigned long long)P.f9_settle);
		printf("\"f9_cpus\":%u}\n", P.f9_cpus);
	} else {
		printf("dwq-ubench: %u repetitions, variants interleaved; median (min-max)\n",
		       P.reps);
	}
	fflush(stdout);
	if (P.only & F2B)
		bench_f2b();
	if (P.only & F7B)
		bench_f7b();
	if (P.only & F4C)
		bench_f4c();
	if (P.only & F5)
		bench_f5();
	if (P.only & F9)
		bench_f9();
	return 0;
}
