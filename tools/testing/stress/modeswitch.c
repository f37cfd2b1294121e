// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-modeswitch: DWQ_IOC_RESCHEDULE with DWQ_RESCHED_PERIOD turns tasks
 * from one-shot into periodic and back, and DWQ_IOC_CANCEL ends them, while
 * another thread sits in read() on the same file. A /dev/dwq task fires
 * inside read(), under the file's mutex, so each ioctl comes either before
 * or after a firing, never during one: the LAST flag (and the id's
 * removal) must follow the mode the task had when read() fired it, and
 * every id must end exactly once.
 *
 * usage: dwq-modeswitch [--iterations N] [--threads T] [--dev PATH]
 *
 * T files, each with a reader thread, blocked in read() and recording every
 * event it returns, and a switcher thread that repeats, with deadlines and
 * pauses of 0 to 1 ms so that the ioctl meets the reader's firing on
 * either side:
 *  A. a one-shot made fixed-rate (1 ms) near its deadline: if the
 *     reschedule succeeded, it began before that deadline, no event comes
 *     at the one-shot's deadline, and a CANCEL 0..1.2 ms after its first
 *     periodic event ends it (below), nothing fired after the cancel
 *     returned; if it was due (-ENOENT: it ended after that deadline),
 *     exactly one event comes, LAST, at its deadline, and the CANCEL is
 *     -ENOENT.
 *  B. a fixed-rate task (1 ms) that fired made a one-shot due in 0..1 ms:
 *     exactly one LAST event comes, at the new deadline, and nothing after
 *     it; every event before it fired by the time the reschedule returned.
 *  C. a fixed-rate task (1 ms) that fired made a one-shot due in 10 s and
 *     cancelled at once: ended (below), nothing fired after the cancel
 *     returned.
 *  D. a one-shot cancelled near its deadline: DWQ_RESULT_REMOVED (the
 *     cancel began before it) and no event, or -ENOENT (it ended after it)
 *     and exactly one event, LAST, at that deadline.
 * A cancel ends a periodic task (or one made one-shot) one of two ways:
 * DWQ_RESULT_REMOVED, and no event of it comes after; or, with an event
 * unread (a parked task the cancel fired, or an event a parked task kept
 * when it was rescheduled), DWQ_RESULT_UNREAD, and that event comes,
 * LAST. So each id ends exactly once: one LAST event, or one cancel that
 * said REMOVED, never both, never neither. At the end the reader sees
 * nothing more for 300 ms, and each file's STATS agree with what was seen:
 * nothing pending or unread, fired - coalesced = the events read,
 * cancelled = the cancels that said REMOVED or UNREAD.
 * Prints "iterations=... failures=..." with how often each side of each
 * race was taken, and exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/dwq.h>

#define NS_PER_US 1000ULL
#define NS_PER_MS 1000000ULL
#define STOP_COOKIE 0xdeadULL
/* Ids per iteration: one per case. */
#define CASES 4

enum { CASE_NONE, CASE_A, CASE_B, CASE_C, CASE_D, CASE_STOP };
static const char kase_name[] = "?ABCDS";

/* One id: what the switcher did (set by it), what the reader saw. */
struct ent {
	int kase;
	int iter;
	long err; /* RESCHEDULE's (A, B, C), or 0 */
	long cerr; /* CANCEL's, or 1 if none was made */
	__u32 result; /* CANCEL's result */
	__u64 dl; /* the one-shot's deadline (A, D) */
	__u64 t0, t1; /* around the RESCHEDULE (A, B, C) */
	__u64 d; /* the new delay (B) */
	__u64 tc0, tc; /* around the CANCEL */
	/* The reader's, under the file's lock. */
	int nev, nlast, after_last;
	__u64 last_dl; /* the LAST event's deadline */
	__u64 min_dl; /* the earliest deadline of its events */
	__u64 max_fired; /* the latest fired_ns of its events */
	__u64 max_fired_periodic; /* the same, of its events without LAST */
};

struct file {
	int t, fd;
	pthread_t reader;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ent *tab; /* by id: a file's ids count up from 1 */
	__u64 cap;
	__u64 events, unknown, bad;
	__u64 removed; /* cancels that said REMOVED or UNREAD */
	bool done; /* the reader read the stop event */
};

static int iterations = 300, nthreads = 4;
static const char *dev = "/dev/dwq";
static int failures; /* under out_lock */
/*
 * How often each side of each race was taken (__atomic). B and C "raced"
 * when a periodic firing came after the reschedule began (it fired the
 * parked task itself, or read() came first); "unread", when the cancel
 * left an event to read.
 */
static int a_switched, a_unread, a_due, b_raced, c_raced, c_unread;
static int d_removed, d_due;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(int t, int i, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_lock);
	if (++failures <= 20) {
		printf("dwq-modeswitch: FAIL: file %d iteration %d: ", t, i);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		putchar('\n');
		fflush(stdout);
	}
	pthread_mutex_unlock(&out_lock);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void pause_ns(__u64 ns)
{
	struct timespec ts = { .tv_nsec = ns };

	if (ns)
		nanosleep(&ts, NULL);
}

/* Spin until @t: a sleep this short would take far longer under TCG. */
static void spin_until(__u64 t)
{
	while (now_ns() < t)
		;
}

static long xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static struct ent *ent_of(struct file *f, __u64 id)
{
	return id && id < f->cap ? &f->tab[id] : NULL;
}

/* The reader's record of one event; the file's lock held. */
static void record(struct file *f, const struct dwq_event *ev)
{
	struct ent *e = ent_of(f, ev->id);

	f->events++;
	if (ev->fired_ns < ev->deadline_ns || ev->worker || ev->overruns ||
	    ev->flags & ~(DWQ_EVENT_LAST | DWQ_EVENT_COALESCED) ||
	    !(ev->flags & DWQ_EVENT_COALESCED) != !ev->folded) {
		if (!f->bad++)
			fail(f->t, -1,
			     "event of id %llu: deadline %llu fired %llu worker %u overruns %llu flags %#x folded %llu",
			     (unsigned long long)ev->id,
			     (unsigned long long)ev->deadline_ns,
			     (unsigned long long)ev->fired_ns, ev->worker,
			     (unsigned long long)ev->overruns, ev->flags,
			     (unsigned long long)ev->folded);
	}
	if (!e) {
		if (!f->unknown++)
			fail(f->t, -1, "event of id %llu, beyond any id made",
			     (unsigned long long)ev->id);
		return;
	}
	if (e->nlast)
		e->after_last++;
	if (!e->nev || ev->deadline_ns < e->min_dl)
		e->min_dl = ev->deadline_ns;
	if (ev->fired_ns > e->max_fired)
		e->max_fired = ev->fired_ns;
	e->nev++;
	if (ev->flags & DWQ_EVENT_LAST) {
		e->nlast++;
		e->last_dl = ev->deadline_ns;
		if (ev->cookie == STOP_COOKIE)
			f->done = true;
	} else if (ev->fired_ns > e->max_fired_periodic) {
		e->max_fired_periodic = ev->fired_ns;
	}
}

static void on_signal(int sig)
{
	(void)sig;
}

/* Blocked in read() until the stop event comes; records every event. */
static void *reader(void *arg)
{
	struct file *f = arg;
	struct dwq_event ev[16];
	ssize_t n;
	int i;

	for (;;) {
		n = read(f->fd, ev, sizeof(ev));
		if (n < 0 && errno == EINTR)
			break; /* the switcher gave up waiting for us */
		if (n <= 0 || n % sizeof(ev[0])) {
			fail(f->t, -1, "read: %zd (%s)", n,
			     n < 0 ? strerror(errno) : "bytes");
			break;
		}
		pthread_mutex_lock(&f->lock);
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
			record(f, &ev[i]);
		pthread_cond_broadcast(&f->cond);
		pthread_mutex_unlock(&f->lock);
		if (f->done)
			break;
	}
	return NULL;
}

/* Wait up to @ms for the reader to have seen @nev events of @id, or LAST. */
static void wait_events(struct file *f, __u64 id, int nev, bool last, int ms)
{
	__u64 end = now_ns() + ms * NS_PER_MS;
	struct timespec ts = { .tv_sec = end / 1000000000ULL,
			       .tv_nsec = end % 1000000000ULL };
	struct ent *e = ent_of(f, id);

	if (!e)
		return;
	pthread_mutex_lock(&f->lock);
	while (last ? !e->nlast : e->nev < nev)
		if (pthread_cond_timedwait(&f->cond, &f->lock, &ts))
			break;
	pthread_mutex_unlock(&f->lock);
}

/* Make the id's entry; the reader may have recorded its events already. */
static struct ent *made(struct file *f, int i, __u64 id, int kase)
{
	struct ent *e = ent_of(f, id);

	if (!e) {
		fail(f->t, i, "id %llu, beyond the %llu expected",
		     (unsigned long long)id, (unsigned long long)f->cap - 1);
		return NULL;
	}
	pthread_mutex_lock(&f->lock);
	e->kase = kase;
	e->iter = i;
	e->cerr = 1;
	pthread_mutex_unlock(&f->lock);
	return e;
}

static __u64 sched(struct file *f, int i, __u64 time_ns, __u32 flags,
		   __u32 mode, __u64 period, __u64 cookie)
{
	struct dwq_ioc_schedule s = {
		.time_ns = time_ns,
		.period_ns = period,
		.cookie = cookie,
		.mode = mode,
		.flags = flags,
	};
	long err = xioctl(f->fd, DWQ_IOC_SCHEDULE, &s);

	if (err) {
		fail(f->t, i, "SCHEDULE: %s", strerror((int)-err));
		return 0;
	}
	return s.id;
}

static void resched(struct file *f, struct ent *e, __u64 id, __u64 time_ns,
		    __u32 mode, __u64 period)
{
	struct dwq_ioc_reschedule r = {
		.id = id,
		.time_ns = time_ns,
		.period_ns = period,
		.mode = mode,
		.flags = DWQ_RESCHED_PERIOD,
	};
	__u64 t0, t1;
	long err;

	t0 = now_ns();
	err = xioctl(f->fd, DWQ_IOC_RESCHEDULE, &r);
	t1 = now_ns();
	pthread_mutex_lock(&f->lock);
	e->t0 = t0;
	e->t1 = t1;
	e->err = err;
	pthread_mutex_unlock(&f->lock);
}

static void cancel(struct file *f, struct ent *e, __u64 id)
{
	struct dwq_ioc_cancel c = { .id = id };
	__u64 t0 = now_ns(), t;
	long err = xioctl(f->fd, DWQ_IOC_CANCEL, &c);

	t = now_ns();
	pthread_mutex_lock(&f->lock);
	e->cerr = err;
	e->result = err ? 0 : c.result;
	e->tc0 = t0;
	e->tc = t;
	if (!err &&
	    (c.result == DWQ_RESULT_REMOVED || c.result == DWQ_RESULT_UNREAD))
		f->removed++;
	pthread_mutex_unlock(&f->lock);
}

/*
 * A one-shot (cookie @cookie) due @due quarters of a millisecond from now,
 * recorded as case @kind, and the caller let go @at quarters after now:
 * its entry (its id in @id), or NULL if it could not be made.
 */
static struct ent *oneshot_soon(struct file *f, int i, int kind, __u64 cookie,
				int due, int at, __u64 *id)
{
	__u64 t = now_ns(), dl = t + due * 250 * NS_PER_US;
	struct ent *e;

	*id = sched(f, i, dl, DWQ_SCHED_ABS, DWQ_MODE_ONESHOT, 0, cookie);
	e = *id ? made(f, i, *id, kind) : NULL;
	if (!e)
		return NULL;
	e->dl = dl;
	spin_until(t + at * 250 * NS_PER_US);
	return e;
}

/* A: a one-shot due in 0..1 ms made fixed-rate 0..1 ms later, cancelled. */
static void case_a(struct file *f, int i)
{
	__u64 id;
	struct ent *e = oneshot_soon(f, i, CASE_A, 1, i % 5, i * 3 % 5, &id);

	if (!e)
		return;
	resched(f, e, id, NS_PER_MS, DWQ_MODE_FIXED_RATE, NS_PER_MS);
	/*
	 * Periodic now: let the reader fire it once, then cancel it 0..1.2
	 * ms later, before, while or after its next period is due.
	 */
	if (!e->err) {
		wait_events(f, id, 1, false, 20);
		spin_until(now_ns() + (i % 4) * 400 * NS_PER_US);
	}
	cancel(f, e, id);
}

/* B: a fixed-rate task that fired made a one-shot due in 0..1 ms. */
static void case_b(struct file *f, int i)
{
	__u64 id = sched(f, i, 0, 0, DWQ_MODE_FIXED_RATE, NS_PER_MS, 2);
	struct ent *e = id ? made(f, i, id, CASE_B) : NULL;

	if (!e)
		return;
	wait_events(f, id, 1 + i % 3, false, 1000);
	e->d = (i % 4) * 250 * NS_PER_US;
	resched(f, e, id, e->d, DWQ_MODE_ONESHOT, 0);
	/* TCG guests can be late by hundreds of ms under load. */
	wait_events(f, id, 0, true, 5000);
}

/* C: a fixed-rate task that fired made a one-shot in 10 s, cancelled. */
static void case_c(struct file *f, int i)
{
	__u64 id = sched(f, i, 0, 0, DWQ_MODE_FIXED_RATE, NS_PER_MS, 3);
	struct ent *e = id ? made(f, i, id, CASE_C) : NULL;

	if (!e)
		return;
	wait_events(f, id, 1, false, 1000);
	spin_until(now_ns() + (i % 3) * 400 * NS_PER_US);
	resched(f, e, id, 10000 * NS_PER_MS, DWQ_MODE_ONESHOT, 0);
	cancel(f, e, id);
}

/* D: a one-shot due in 0..1 ms, cancelled 0..1 ms after it was made. */
static void case_d(struct file *f, int i)
{
	__u64 id;
	struct ent *e = oneshot_soon(f, i, CASE_D, 4, i * 3 % 5, i % 5, &id);

	if (e)
		cancel(f, e, id);
}

/*
 * Case @c's one-shot answered -ENOENT to a call that ended at @at: it was
 * due by then, and it came as exactly one event, LAST, at its deadline.
 */
static void check_gone_due(int t, int i, const struct ent *e, const char *c,
			   __u64 at)
{
	if (at < e->dl)
		fail(t, i, "%s: -ENOENT at %llu, yet due only at %llu", c,
		     (unsigned long long)at, (unsigned long long)e->dl);
	if (e->nev != 1 || e->last_dl != e->dl)
		fail(t, i,
		     "%s: one-shot due first: %d events, LAST at %llu, deadline %llu",
		     c, e->nev, (unsigned long long)e->last_dl,
		     (unsigned long long)e->dl);
}

/* The checks of one id, once the reader is done. */
static void verify(struct file *f, __u64 id)
{
	struct ent *e = &f->tab[id];
	bool removed = !e->cerr && e->result == DWQ_RESULT_REMOVED;
	bool unread = !e->cerr && e->result == DWQ_RESULT_UNREAD;
	int t = f->t, i = e->iter;

	if (e->kase == CASE_NONE) {
		if (e->nev)
			fail(t, -1, "%d events of id %llu, which no case made",
			     e->nev, (unsigned long long)id);
		return;
	}
	/*
	 * Each id ends exactly once: a LAST event (a one-shot's firing, or
	 * the event an UNREAD cancel left), or a cancel that REMOVED it.
	 */
	if (e->nlast + removed != 1 || e->after_last)
		fail(t, i,
		     "case %c id %llu: %d LAST events (%d after one), cancel %ld result %u",
		     kase_name[e->kase], (unsigned long long)id, e->nlast,
		     e->after_last, e->cerr, e->result);
	if (e->cerr < 0 && e->cerr != -ENOENT)
		fail(t, i, "case %c: CANCEL: %s", kase_name[e->kase],
		     strerror((int)-e->cerr));
	/* A one-shot never parks, so it never keeps an event: REMOVED. */
	if (!e->cerr && !removed && (!unread || e->kase == CASE_D))
		fail(t, i, "case %c: CANCEL said %u", kase_name[e->kase],
		     e->result);
	if (unread && !e->nlast)
		fail(t, i,
		     "case %c: CANCEL said UNREAD, yet no LAST event came",
		     kase_name[e->kase]);
	/* Nothing fires after a cancel that ended the task returned. */
	if ((removed || unread) && e->nev && e->max_fired > e->tc)
		fail(t, i, "case %c: fired at %llu, after the cancel at %llu",
		     kase_name[e->kase], (unsigned long long)e->max_fired,
		     (unsigned long long)e->tc);
	switch (e->kase) {
	case CASE_A:
		if (!e->err) {
			__atomic_add_fetch(&a_switched, 1, __ATOMIC_RELAXED);
			if (unread)
				__atomic_add_fetch(&a_unread, 1,
						   __ATOMIC_RELAXED);
			/* Moved: it was not due when the reschedule began. */
			if (e->t0 >= e->dl)
				fail(t, i,
				     "A: moved at %llu, yet due at %llu: -ENOENT",
				     (unsigned long long)e->t0,
				     (unsigned long long)e->dl);
			/* Periodic from the switch: its first deadline 1 ms on. */
			if (e->nev && e->min_dl < e->t0 + NS_PER_MS)
				fail(t, i,
				     "A: made periodic, yet an event due at %llu, before %llu",
				     (unsigned long long)e->min_dl,
				     (unsigned long long)(e->t0 + NS_PER_MS));
		} else if (e->err == -ENOENT) {
			__atomic_add_fetch(&a_due, 1, __ATOMIC_RELAXED);
			/* Gone: it was due by the time the reschedule ended. */
			check_gone_due(t, i, e, "A", e->t1);
			if (e->cerr != -ENOENT)
				fail(t, i, "A: CANCEL of a one-shot gone: %ld",
				     e->cerr);
		} else {
			fail(t, i, "A: RESCHEDULE: %s", strerror((int)-e->err));
		}
		break;
	case CASE_B:
		if (e->err)
			fail(t, i, "B: RESCHEDULE of a periodic task: %s",
			     strerror((int)-e->err));
		else if (e->nlast && (e->last_dl < e->t0 + e->d ||
				      e->last_dl > e->t1 + e->d))
			fail(t, i,
			     "B: LAST deadline %llu not the new one, in [%llu, %llu]",
			     (unsigned long long)e->last_dl,
			     (unsigned long long)(e->t0 + e->d),
			     (unsigned long long)(e->t1 + e->d));
		/* A periodic firing: by read() or the reschedule, not after. */
		if (e->max_fired_periodic > e->t1)
			fail(t, i,
			     "B: an event without LAST fired at %llu, after the switch at %llu",
			     (unsigned long long)e->max_fired_periodic,
			     (unsigned long long)e->t1);
		if (e->max_fired_periodic > e->t0)
			__atomic_add_fetch(&b_raced, 1, __ATOMIC_RELAXED);
		break;
	case CASE_C:
		if (e->err)
			fail(t, i, "C: RESCHEDULE of a periodic task: %s",
			     strerror((int)-e->err));
		if (e->max_fired > e->t0)
			__atomic_add_fetch(&c_raced, 1, __ATOMIC_RELAXED);
		if (unread)
			__atomic_add_fetch(&c_unread, 1, __ATOMIC_RELAXED);
		break;
	case CASE_D:
		if (removed) {
			__atomic_add_fetch(&d_removed, 1, __ATOMIC_RELAXED);
			if (e->nev)
				fail(t, i, "D: removed, yet %d events", e->nev);
			if (e->tc0 >= e->dl)
				fail(t, i,
				     "D: removed at %llu, yet due at %llu: -ENOENT",
				     (unsigned long long)e->tc0,
				     (unsigned long long)e->dl);
		} else if (e->cerr == -ENOENT) {
			__atomic_add_fetch(&d_due, 1, __ATOMIC_RELAXED);
			check_gone_due(t, i, e, "D", e->tc);
		}
		break;
	}
}

/*
 * The end: the stop event read, nothing more comes for 300 ms (a periodic
 * task that lost its id would go on), and STATS agree with what was seen.
 */
static void finish(struct file *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	struct dwq_ioc_stats a, b;
	__u64 id;
	int r;

	if (xioctl(f->fd, DWQ_IOC_STATS, &a)) {
		fail(f->t, iterations, "STATS: %s", strerror(errno));
		return;
	}
	r = poll(&p, 1, 300);
	if (r)
		fail(f->t, iterations, "after the stop event, poll: %d", r);
	if (xioctl(f->fd, DWQ_IOC_STATS, &b)) {
		fail(f->t, iterations, "STATS: %s", strerror(errno));
		return;
	}
	if (b.pending || b.events || a.fired != b.fired ||
	    b.fired - b.coalesced != f->events || b.cancelled != f->removed)
		fail(f->t, iterations,
		     "at the end: pending %llu events %llu fired %llu then %llu coalesced %llu cancelled %llu; read %llu events, %llu cancels removed",
		     (unsigned long long)b.pending,
		     (unsigned long long)b.events, (unsigned long long)a.fired,
		     (unsigned long long)b.fired,
		     (unsigned long long)b.coalesced,
		     (unsigned long long)b.cancelled,
		     (unsigned long long)f->events,
		     (unsigned long long)f->removed);
	for (id = 1; id < f->cap; id++)
		verify(f, id);
}

static void *switcher(void *arg)
{
	struct file *f = arg;
	struct ent *e;
	__u64 id;
	int i, tries;

	for (i = 0; i < iterations; i++) {
		case_a(f, i);
		case_b(f, i);
		case_c(f, i);
		case_d(f, i);
	}
	/* The last event: the reader stops when it has read it. */
	id = sched(f, iterations, 0, 0, DWQ_MODE_ONESHOT, 0, STOP_COOKIE);
	e = id ? made(f, iterations, id, CASE_STOP) : NULL;
	if (e)
		wait_events(f, id, 0, true, 10000);
	pthread_mutex_lock(&f->lock);
	if (!f->done)
		fail(f->t, iterations, "the reader never read the stop event");
	pthread_mutex_unlock(&f->lock);
	/* Unblock a reader still in read(): SIGUSR1, no SA_RESTART. */
	for (tries = 0; pthread_tryjoin_np(f->reader, NULL); tries++) {
		if (tries >= 20)
			pthread_kill(f->reader, SIGUSR1);
		pause_ns(50 * NS_PER_MS);
	}
	if (f->done)
		finish(f);
	close(f->fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "iterations", 1, NULL, 'i' },
					    { "threads", 1, NULL, 't' },
					    { "dev", 1, NULL, 'd' },
					    {} };
	struct sigaction sa = { .sa_handler = on_signal }; /* no SA_RESTART */
	static struct file files[64];
	pthread_condattr_t ca;
	pthread_t sw[64];
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
	if (nthreads < 1 || nthreads > 64 || iterations < 1)
		return 2;
	sigaction(SIGUSR1, &sa, NULL);
	for (t = 0; t < nthreads; t++) {
		struct file *f = &files[t];

		f->t = t;
		pthread_mutex_init(&f->lock, NULL);
		/* wait_events() counts on CLOCK_MONOTONIC. */
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&f->cond, &ca);
		pthread_condattr_destroy(&ca);
		f->cap = (__u64)iterations * CASES + 2;
		f->tab = calloc(f->cap, sizeof(*f->tab));
		f->fd = open(dev, O_RDWR | O_CLOEXEC);
		if (!f->tab || f->fd < 0) {
			fprintf(stderr, "dwq-modeswitch: %s: %s\n", dev,
				strerror(errno));
			return 2;
		}
	}
	for (t = 0; t < nthreads; t++)
		pthread_create(&files[t].reader, NULL, reader, &files[t]);
	for (t = 0; t < nthreads; t++)
		pthread_create(&sw[t], NULL, switcher, &files[t]);
	for (t = 0; t < nthreads; t++)
		pthread_join(sw[t], NULL);
	printf("iterations=%d files=%d A-switched=%d A-unread=%d A-due=%d ",
	       iterations, nthreads, a_switched, a_unread, a_due);
	printf("B-raced=%d C-raced=%d C-unread=%d D-removed=%d D-due=%d ",
	       b_raced, c_raced, c_unread, d_removed, d_due);
	printf("failures=%d\n", failures);
	return failures ? 1 : 0;
}
