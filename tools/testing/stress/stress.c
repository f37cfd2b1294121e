// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-stress: many threads hammer /dev/dwq while a ledger records every
 * task id; at the end the ledger must match, id by id, what the module
 * delivered and what its counters say.
 *
 * usage: dwq-stress [--duration S] [--threads T] [--files F] [--seed N]
 *                   [--rounds R] [--max-live N] [--enomem-ok] [--dev PATH]
 *
 * Each round: T threads schedule and cancel (single and batched: a cancel
 * batch of up to 40 ids names its first again, which must find it gone),
 * reschedule (also changing mode and period), query, read and poll at
 * random on F open files, with delays of 0..50 ms and a few periodic
 * tasks. Then the threads stop, every task still known is cancelled, the
 * events are drained, and the ledger is checked:
 *  - every one-shot is exactly one of: fired (one LAST event, at the
 *    deadline it was last given) or cancelled (DWQ_RESULT_REMOVED, no
 *    event ever); a task cancelled with DWQ_RESULT_UNREAD (periodic, or
 *    periodic once, with an event unread) sends exactly one LAST event
 *    after it, and none after that one; a cancel that found it gone
 *    (-ENOENT, a one-shot that came due) must be followed by its LAST
 *    event. A cancel never answers DWQ_RESULT_RUNNING: a /dev/dwq task
 *    fires inside read(), never while a cancel looks. An event without
 *    LAST on a task that is a one-shot now must be due no later than the
 *    reschedule that made it one;
 *  - no event for an id never handed out or already finished; none fires
 *    before its deadline; cookies come back unchanged;
 *  - a fixed-rate task never moved: every event's deadline is on its grid
 *    d0 + k * period, and the firings its events account for (1 +
 *    overruns each) are exactly the grid points up to the last one;
 *    QUERY's deadline is on the grid at runs + overruns; a fixed-delay
 *    task: its events span at least (firings - 1) periods;
 *  - per file, STATS agrees: pending 0 and no events waiting at the end,
 *    fired - coalesced = events read, cancelled = REMOVED results.
 * Rounds repeat until --duration is over (the last round may be shorter),
 * each on fresh files, so a long soak runs in bounded memory.
 *
 * Prints "scheduled=... fired=... cancelled=... lost=0 duplicated=0
 * late_max_us=..." and exits 1 on any mismatch (each is printed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/dwq.h>

#define NS_PER_MS 1000000ULL
#define NS_PER_SEC 1000000000ULL
#define MAX_FILES 8
#define MAX_THREADS 64
#define MAX_BATCH 16
#define MAX_ERRORS 50

enum { ST_LIVE, ST_FIRED, ST_CANCELLED };

/*
 * One task id. Guarded by its file's lock; an operating thread sets @busy
 * while its ioctl on the id is in flight, so only one thread operates on
 * an id at a time (readers never wait for that).
 */
struct ent {
	__u64 id;
	__u64 cookie;
	__u32 mode; /* as last set successfully */
	__u32 clock; /* CLOCK_MONOTONIC or CLOCK_BOOTTIME */
	__u64 period;
	__u64 lo, hi; /* the deadline last given lies in [lo, hi] */
	__u64 d0; /* periodic, never moved: its first deadline */
	bool moved; /* rescheduled (or converted) at least once */
	bool was_periodic; /* was periodic at some time */
	bool busy;
	bool expect_last; /* cancel said ENOENT: LAST comes */
	bool unread; /* cancel said UNREAD: one LAST event comes */
	bool last_due; /* a one-shot firing began: its LAST must come */
	__u64 oneshot_t1; /* when the last reschedule to one-shot returned */
	__u8 state;
	int live_idx; /* index in file->live, -1 if not there */
	__u64 nev; /* events read */
	__u64 nlast; /* LAST events read */
	__u64 sum; /* sum of 1 + overruns + skipped + folded over events */
	__u64 min_dl, max_dl; /* event deadlines */
	__u64 max_cov; /* an event's deadline plus its skipped periods */
	__u64 min_runs; /* runs seen by QUERY */
	__u64 cancel_end; /* when a cancel returned, 0 if none */
};

struct orphan {
	struct dwq_event ev;
	struct orphan *next;
};

struct file {
	int fd;
	/*
	 * Held across read() and the ledger updates of what it returned:
	 * the kernel hands events out in order, one reader at a time, and
	 * the ledger must see them in that order too, or a thread preempted
	 * between read() and handle_event() applies an older event after a
	 * newer one (a periodic event after the task's LAST).
	 */
	pthread_mutex_t rlock;
	pthread_mutex_t lock;
	struct ent **tab; /* by id; ids are small and dense */
	__u64 tab_len;
	struct ent **live; /* ids that may be cancelled/rescheduled */
	int nlive, live_cap;
	struct orphan *orphans; /* events read before their id was known */
	__u64 events_read;
	__u64 removed; /* DWQ_RESULT_REMOVED and _UNREAD results */
	int periodic_live;
};

static struct {
	double duration;
	int threads;
	int nfiles;
	int rounds;
	int max_live;
	bool enomem_ok;
	const char *dev;
	__u64 seed;
} opt = { 60, 8, 2, 0, 2000, false, "/dev/dwq", 0 };

static struct file files[MAX_FILES];
static bool stop_ops; /* __atomic */
static pthread_mutex_t glock = PTHREAD_MUTEX_INITIALIZER;
static int nerrors;

/* Totals over all rounds, under glock. */
static struct {
	__u64 scheduled, oneshot_fired, firings, cancelled, lost, duplicated;
	__u64 late_max_ns, enomem, ops, events, coalesced, periodic;
	__u64 resched, resched_ok, queries, reads;
	__u64 batch_cancels; /* entries cancelled by CANCEL_BATCH */
} tot;

static void fail(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&glock);
	if (++nerrors <= MAX_ERRORS) {
		va_start(ap, fmt);
		fputs("dwq-stress: MISMATCH: ", stdout);
		vprintf(fmt, ap);
		putchar('\n');
		fflush(stdout);
		va_end(ap);
	}
	pthread_mutex_unlock(&glock);
}

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* xorshift64*, one state per thread. */
static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static __u64 rnd_below(__u64 *s, __u64 n)
{
	return n ? rnd(s) % n : 0;
}

static long xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* An error other than the ones the caller expects. */
static void unexpected(const char *what, long err)
{
	if (err == -ENOMEM && opt.enomem_ok) {
		__atomic_add_fetch(&tot.enomem, 1, __ATOMIC_RELAXED);
		return;
	}
	fail("%s failed: %s", what, strerror((int)-err));
}

static struct ent *lookup(struct file *f, __u64 id)
{
	return id < f->tab_len ? f->tab[id] : NULL;
}

static void live_add(struct file *f, struct ent *e)
{
	if (f->nlive == f->live_cap) {
		f->live_cap = f->live_cap ? 2 * f->live_cap : 1024;
		f->live = realloc(f->live, f->live_cap * sizeof(*f->live));
		if (!f->live)
			abort();
	}
	e->live_idx = f->nlive;
	f->live[f->nlive++] = e;
}

static void live_del(struct file *f, struct ent *e)
{
	if (e->live_idx < 0)
		return;
	f->live[e->live_idx] = f->live[--f->nlive];
	f->live[e->live_idx]->live_idx = e->live_idx;
	e->live_idx = -1;
	if (e->mode != DWQ_MODE_ONESHOT)
		f->periodic_live--;
}

/* Account one event to its entry. Called with f->lock held. */
static void apply_event(struct file *f, struct ent *e,
			const struct dwq_event *ev)
{
	__u64 late, cov;

	if (ev->cookie != e->cookie)
		fail("id %llu: cookie %llu, want %llu",
		     (unsigned long long)e->id, (unsigned long long)ev->cookie,
		     (unsigned long long)e->cookie);
	if (ev->fired_ns < ev->deadline_ns) {
		fail("id %llu: fired at %llu before its deadline %llu",
		     (unsigned long long)e->id,
		     (unsigned long long)ev->fired_ns,
		     (unsigned long long)ev->deadline_ns);
	} else {
		late = ev->fired_ns - ev->deadline_ns;
		pthread_mutex_lock(&glock);
		if (late > tot.late_max_ns)
			tot.late_max_ns = late;
		pthread_mutex_unlock(&glock);
	}
	/*
	 * Nothing comes after a LAST event. After a cancel that said
	 * REMOVED, only an event made before it, handled late (a periodic
	 * task's, or once periodic: never a LAST one; made before the
	 * cancel returned, for a task never moved, whose clock is one);
	 * after UNREAD, also its one LAST event. verify() checks the
	 * deadlines.
	 */
	if (e->state == ST_FIRED ||
	    (e->state == ST_CANCELLED &&
	     ((ev->flags & DWQ_EVENT_LAST) ? !e->unread : !e->was_periodic)) ||
	    (e->state == ST_CANCELLED && !e->unread && !e->moved &&
	     ev->fired_ns > e->cancel_end)) {
		fail("id %llu: event after it was %s (flags %#x)",
		     (unsigned long long)e->id,
		     e->state == ST_FIRED ? "done" : "cancelled", ev->flags);
		__atomic_add_fetch(&tot.duplicated, 1, __ATOMIC_RELAXED);
		return;
	}
	if (!e->nev || ev->deadline_ns < e->min_dl)
		e->min_dl = ev->deadline_ns;
	if (ev->deadline_ns > e->max_dl)
		e->max_dl = ev->deadline_ns;
	/* The periods a parked task skipped follow the event's deadline. */
	cov = ev->deadline_ns + ev->skipped * e->period;
	if (cov > e->max_cov)
		e->max_cov = cov;
	e->nev++;
	e->sum += 1 + ev->overruns + ev->skipped + ev->folded;
	if (!ev->folded != !(ev->flags & DWQ_EVENT_COALESCED))
		fail("id %llu: folded %llu, flags %#x",
		     (unsigned long long)e->id, (unsigned long long)ev->folded,
		     ev->flags);
	if (ev->skipped && !e->moved && e->mode != DWQ_MODE_FIXED_RATE)
		fail("id %llu: mode %u event skipped %llu periods",
		     (unsigned long long)e->id, e->mode,
		     (unsigned long long)ev->skipped);
	if ((ev->flags & DWQ_EVENT_LAST) && e->state == ST_CANCELLED) {
		/* The event its cancel said was unread: the id's last. */
		e->nlast++;
		e->state = ST_FIRED;
	} else if (ev->flags & DWQ_EVENT_LAST) {
		e->nlast++;
		if (e->mode != DWQ_MODE_ONESHOT)
			fail("id %llu: LAST event of a periodic task",
			     (unsigned long long)e->id);
		if (!e->was_periodic &&
		    (ev->overruns || ev->flags != DWQ_EVENT_LAST))
			fail("id %llu: one-shot event with overruns %llu flags %#x",
			     (unsigned long long)e->id,
			     (unsigned long long)ev->overruns, ev->flags);
		/* Its deadline: the one last given. */
		if (ev->deadline_ns < e->lo || ev->deadline_ns > e->hi)
			fail("id %llu: deadline %llu not in [%llu, %llu]",
			     (unsigned long long)e->id,
			     (unsigned long long)ev->deadline_ns,
			     (unsigned long long)e->lo,
			     (unsigned long long)e->hi);
		e->state = ST_FIRED;
		live_del(f, e);
		__atomic_add_fetch(&tot.oneshot_fired, 1, __ATOMIC_RELAXED);
	} else if (e->mode == DWQ_MODE_ONESHOT &&
		   (!e->was_periodic || ev->deadline_ns > e->oneshot_t1)) {
		/*
		 * A periodic firing was taken before the reschedule that made
		 * the task one-shot returned, so it was due before that.
		 */
		fail("id %llu: one-shot event, no LAST (flags %#x, due %llu, one-shot at %llu)",
		     (unsigned long long)e->id, ev->flags,
		     (unsigned long long)ev->deadline_ns,
		     (unsigned long long)e->oneshot_t1);
	}
}

static void handle_event(struct file *f, const struct dwq_event *ev)
{
	struct orphan *o;
	struct ent *e;

	pthread_mutex_lock(&f->lock);
	f->events_read++;
	e = lookup(f, ev->id);
	if (e && !e->busy) {
		apply_event(f, e, ev);
	} else {
		/*
		 * Its scheduler may not have recorded the id yet, or an ioctl
		 * on it is in flight: apply it when the ledger has caught up.
		 */
		o = malloc(sizeof(*o));
		if (!o)
			abort();
		o->ev = *ev;
		o->next = f->orphans;
		f->orphans = o;
	}
	pthread_mutex_unlock(&f->lock);
}

/*
 * Apply the events of @e that came while it was unknown or busy, in the
 * order they were read (the list has the newest first).
 */
static void flush_orphans(struct file *f, struct ent *e)
{
	struct orphan **op, *o, *mine = NULL;

	for (op = &f->orphans; (o = *op);) {
		if (o->ev.id == e->id) {
			*op = o->next;
			o->next = mine;
			mine = o; /* reversed: oldest first */
		} else {
			op = &o->next;
		}
	}
	while ((o = mine)) {
		mine = o->next;
		apply_event(f, e, &o->ev);
		free(o);
	}
}

/* The ioctl on @e is over and the ledger updated. f->lock held. */
static void unbusy(struct file *f, struct ent *e)
{
	e->busy = false;
	flush_orphans(f, e);
}

/* Record a new id; apply events that came before. f->lock held. */
static struct ent *record(struct file *f, __u64 id,
			  const struct dwq_ioc_schedule *s, __u64 t0, __u64 t1)
{
	struct ent *e;
	__u64 n;

	if (!id || lookup(f, id)) {
		fail("id %llu handed out twice (or 0)", (unsigned long long)id);
		return NULL;
	}
	if (id >= f->tab_len) {
		n = f->tab_len ? f->tab_len : 4096;
		while (n <= id)
			n *= 2;
		f->tab = realloc(f->tab, n * sizeof(*f->tab));
		if (!f->tab)
			abort();
		memset(f->tab + f->tab_len, 0,
		       (n - f->tab_len) * sizeof(*f->tab));
		f->tab_len = n;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		abort();
	e->id = id;
	e->cookie = s->cookie;
	e->mode = s->mode;
	e->clock = s->flags & DWQ_SCHED_BOOTTIME ? CLOCK_BOOTTIME :
						   CLOCK_MONOTONIC;
	e->period = s->period_ns;
	e->was_periodic = s->mode != DWQ_MODE_ONESHOT;
	if (s->flags & DWQ_SCHED_ABS) {
		e->lo = s->time_ns;
		e->hi = s->time_ns;
	} else {
		e->lo = t0 + s->time_ns;
		e->hi = t1 + s->time_ns;
	}
	e->d0 = e->lo;
	e->live_idx = -1;
	f->tab[id] = e;
	live_add(f, e);
	if (e->mode != DWQ_MODE_ONESHOT) {
		f->periodic_live++;
		__atomic_add_fetch(&tot.periodic, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&tot.scheduled, 1, __ATOMIC_RELAXED);
	flush_orphans(f, e);
	return e;
}

/*
 * A random new task; periodic ones get an absolute first deadline. Batch
 * entries (!@allow_periodic) are one-shots on CLOCK_MONOTONIC.
 */
static void make_sched(__u64 *rs, struct file *f, struct dwq_ioc_schedule *s,
		       bool allow_periodic)
{
	memset(s, 0, sizeof(*s));
	s->cookie = rnd(rs);
	s->time_ns = rnd_below(rs, 50 * NS_PER_MS + 1);
	if (allow_periodic && rnd_below(rs, 8) == 0)
		s->flags |= DWQ_SCHED_BOOTTIME;
	if (allow_periodic && f->periodic_live < 2 * opt.threads &&
	    rnd_below(rs, 20) == 0) {
		s->mode = rnd_below(rs, 2) ? DWQ_MODE_FIXED_RATE :
					     DWQ_MODE_FIXED_DELAY;
		s->period_ns = (2 + rnd_below(rs, 49)) * NS_PER_MS;
		s->flags |= DWQ_SCHED_ABS;
	} else if (rnd_below(rs, 4) == 0) {
		s->flags |= DWQ_SCHED_ABS;
	}
	if (s->flags & DWQ_SCHED_ABS)
		s->time_ns += now_ns(s->flags & DWQ_SCHED_BOOTTIME ?
					     CLOCK_BOOTTIME :
					     CLOCK_MONOTONIC);
}

static __u64 clock_of(const struct dwq_ioc_schedule *s)
{
	return now_ns(s->flags & DWQ_SCHED_BOOTTIME ? CLOCK_BOOTTIME :
						      CLOCK_MONOTONIC);
}

static void op_schedule(__u64 *rs, struct file *f)
{
	struct dwq_ioc_schedule s;
	__u64 t0, t1;
	long err;

	make_sched(rs, f, &s, true);
	t0 = clock_of(&s);
	err = xioctl(f->fd, DWQ_IOC_SCHEDULE, &s);
	t1 = clock_of(&s);
	if (err) {
		unexpected("SCHEDULE", err);
		return;
	}
	pthread_mutex_lock(&f->lock);
	record(f, s.id, &s, t0, t1);
	pthread_mutex_unlock(&f->lock);
}

static void op_batch(__u64 *rs, struct file *f)
{
	struct dwq_ioc_schedule s[MAX_BATCH];
	struct dwq_ioc_schedule_batch b = {};
	unsigned int n = 1 + rnd_below(rs, MAX_BATCH), i, bad = n;
	__u64 t0, t1;
	long err;

	for (i = 0; i < n; i++)
		make_sched(rs, f, &s[i], false);
	/* Now and then a bad entry: the batch must fail as a whole. */
	if (rnd_below(rs, 10) == 0) {
		bad = rnd_below(rs, n);
		s[bad].reserved[1] = 1;
	}
	b.entries = (uintptr_t)s;
	b.count = n;
	t0 = now_ns(CLOCK_MONOTONIC);
	err = xioctl(f->fd, DWQ_IOC_SCHEDULE_BATCH, &b);
	t1 = now_ns(CLOCK_MONOTONIC);
	if (bad < n) {
		/* Out of memory before the entries were checked: none named. */
		if (err == -ENOMEM && b.error_index == n)
			unexpected("SCHEDULE_BATCH", err);
		else if (err != -EINVAL || b.error_index != bad)
			fail("batch with bad entry %u: %ld, error_index %u",
			     bad, err, b.error_index);
		return;
	}
	if (err) {
		unexpected("SCHEDULE_BATCH", err);
		return;
	}
	pthread_mutex_lock(&f->lock);
	for (i = 0; i < n; i++)
		record(f, s[i].id, &s[i], t0, t1);
	pthread_mutex_unlock(&f->lock);
}

/* Pick a live entry not in use by another thread and mark it busy. */
static struct ent *claim(__u64 *rs, struct file *f)
{
	struct ent *e = NULL;
	int tries;

	pthread_mutex_lock(&f->lock);
	for (tries = 0; tries < 4 && f->nlive; tries++) {
		e = f->live[rnd_below(rs, f->nlive)];
		if (!e->busy) {
			e->busy = true;
			break;
		}
		e = NULL;
	}
	pthread_mutex_unlock(&f->lock);
	return e;
}

/*
 * What a cancel of @e answered: @err, and @result if @err is 0 (for an
 * entry of a CANCEL_BATCH, -ENOENT for DWQ_RESULT_NOENT). f->lock not
 * held, @e busy (or no thread runs any more); @e is unbusied.
 */
static void cancel_done(struct file *f, struct ent *e, long err, __u32 result)
{
	struct dwq_ioc_cancel c = { .id = e->id, .result = result };

	pthread_mutex_lock(&f->lock);
	if (e->state != ST_LIVE) {
		/* Its LAST event was read meanwhile: the id is gone. */
		if (err != -ENOENT)
			fail("cancel of finished id %llu: %ld result %u",
			     (unsigned long long)e->id, err, c.result);
		goto out;
	}
	if (!err &&
	    (c.result == DWQ_RESULT_REMOVED || c.result == DWQ_RESULT_UNREAD)) {
		f->removed++;
		e->state = ST_CANCELLED;
		e->unread = c.result == DWQ_RESULT_UNREAD;
		e->cancel_end = now_ns(e->clock);
		live_del(f, e);
	} else if (!err && c.result == DWQ_RESULT_RUNNING) {
		/* The uapi: a /dev/dwq task is never seen firing. */
		fail("cancel of id %llu: DWQ_RESULT_RUNNING, which /dev/dwq never answers",
		     (unsigned long long)e->id);
	} else if (err == -ENOENT && e->mode == DWQ_MODE_ONESHOT) {
		/* It fired; its LAST event is on its way. */
		e->expect_last = true;
		e->cancel_end = now_ns(e->clock);
		live_del(f, e);
	} else {
		fail("cancel id %llu (mode %u): %ld result %u",
		     (unsigned long long)e->id, e->mode, err, c.result);
	}
out:
	unbusy(f, e);
	pthread_mutex_unlock(&f->lock);
}

/* Cancel @e; f->lock not held, @e busy (or no thread runs any more). */
static void do_cancel(struct file *f, struct ent *e)
{
	struct dwq_ioc_cancel c = { .id = e->id };
	long err;

	err = xioctl(f->fd, DWQ_IOC_CANCEL, &c);
	cancel_done(f, e, err, c.result);
}

static void op_cancel(__u64 *rs, struct file *f)
{
	struct ent *e = claim(rs, f);

	if (e)
		do_cancel(f, e);
}

/*
 * Up to 40 entries in one CANCEL_BATCH (the kernel takes them 32 at a
 * time), the first named again at the end: each answers as a single
 * cancel would, and the repeat finds the id gone.
 */
#define BATCH_CANCEL_MAX 40

static void op_cancel_batch(__u64 *rs, struct file *f)
{
	unsigned int want = 1 + rnd_below(rs, BATCH_CANCEL_MAX), n = 0, i;
	struct dwq_ioc_cancel c[BATCH_CANCEL_MAX + 1] = {};
	struct dwq_ioc_cancel_batch b = {};
	struct ent *e[BATCH_CANCEL_MAX];
	long err;

	while (n < want && (e[n] = claim(rs, f)))
		n++;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		c[i].id = e[i]->id;
	c[n].id = e[0]->id;
	b.entries = (uintptr_t)c;
	b.count = n + 1;
	err = xioctl(f->fd, DWQ_IOC_CANCEL_BATCH, &b);
	if (err) {
		/* Cancelled nothing: with --enomem-ok ENOMEM may come. */
		unexpected("CANCEL_BATCH", err);
		pthread_mutex_lock(&f->lock);
		for (i = 0; i < n; i++)
			unbusy(f, e[i]);
		pthread_mutex_unlock(&f->lock);
		return;
	}
	if (c[n].result != DWQ_RESULT_NOENT)
		fail("cancel batch: id %llu named twice: result %u the second time",
		     (unsigned long long)c[n].id, c[n].result);
	for (i = 0; i < n; i++)
		cancel_done(f, e[i],
			    c[i].result == DWQ_RESULT_NOENT ? -ENOENT : 0,
			    c[i].result);
	__atomic_add_fetch(&tot.batch_cancels, n, __ATOMIC_RELAXED);
}

static void op_reschedule(__u64 *rs, struct file *f)
{
	struct dwq_ioc_reschedule r = {};
	struct ent *e = claim(rs, f);
	__u64 t0, t1;
	long err;

	if (!e)
		return;
	r.id = e->id;
	r.time_ns = rnd_below(rs, 50 * NS_PER_MS + 1);
	if (e->clock == CLOCK_BOOTTIME)
		r.flags |= DWQ_SCHED_BOOTTIME;
	if (rnd_below(rs, 5) == 0) {
		/* Change mode and period too, also one-shot <-> periodic. */
		r.flags |= DWQ_RESCHED_PERIOD;
		r.mode = rnd_below(rs, 3);
		if (r.mode == DWQ_MODE_ONESHOT)
			r.period_ns = 0;
		else
			r.period_ns = (2 + rnd_below(rs, 49)) * NS_PER_MS;
		/* Keep the number of periodic tasks bounded. */
		if (r.mode != DWQ_MODE_ONESHOT && e->mode == DWQ_MODE_ONESHOT &&
		    f->periodic_live >= 2 * opt.threads)
			r.mode = DWQ_MODE_ONESHOT, r.period_ns = 0;
	}
	t0 = now_ns(e->clock);
	err = xioctl(f->fd, DWQ_IOC_RESCHEDULE, &r);
	t1 = now_ns(e->clock);
	pthread_mutex_lock(&f->lock);
	__atomic_add_fetch(&tot.resched, 1, __ATOMIC_RELAXED);
	if (!err) {
		__atomic_add_fetch(&tot.resched_ok, 1, __ATOMIC_RELAXED);
		if (e->state != ST_LIVE)
			fail("reschedule of finished id %llu succeeded",
			     (unsigned long long)e->id);
		e->lo = t0 + r.time_ns;
		e->hi = t1 + r.time_ns;
		e->moved = true;
		if (r.flags & DWQ_RESCHED_PERIOD) {
			if (e->mode == DWQ_MODE_ONESHOT &&
			    r.mode != DWQ_MODE_ONESHOT)
				f->periodic_live++;
			else if (e->mode != DWQ_MODE_ONESHOT &&
				 r.mode == DWQ_MODE_ONESHOT)
				f->periodic_live--;
			if (e->mode != DWQ_MODE_ONESHOT &&
			    r.mode == DWQ_MODE_ONESHOT)
				e->oneshot_t1 = t1;
			e->mode = r.mode;
			e->period = r.period_ns;
			if (r.mode != DWQ_MODE_ONESHOT)
				e->was_periodic = true;
		}
	} else if (err == -ENOENT) {
		/* Only a one-shot that fired (or is firing) may be gone. */
		if (e->state == ST_LIVE && e->mode != DWQ_MODE_ONESHOT)
			fail("reschedule of periodic id %llu: ENOENT",
			     (unsigned long long)e->id);
		else if (e->state == ST_LIVE)
			e->last_due = true;
	} else {
		unexpected("RESCHEDULE", err);
	}
	unbusy(f, e);
	pthread_mutex_unlock(&f->lock);
}

static void op_query(__u64 *rs, struct file *f)
{
	struct dwq_ioc_query q = {};
	struct ent *e = claim(rs, f);
	__u64 k, kmin, j;
	long err;

	if (!e)
		return;
	q.id = e->id;
	err = xioctl(f->fd, DWQ_IOC_QUERY, &q);
	pthread_mutex_lock(&f->lock);
	__atomic_add_fetch(&tot.queries, 1, __ATOMIC_RELAXED);
	if (err == -ENOENT) {
		if (e->state == ST_LIVE && e->mode != DWQ_MODE_ONESHOT)
			fail("query of periodic id %llu: ENOENT",
			     (unsigned long long)e->id);
		else if (e->state == ST_LIVE)
			e->last_due = true; /* a one-shot firing forgot it */
		goto out;
	}
	if (err) {
		fail("QUERY id %llu: %s", (unsigned long long)e->id,
		     strerror((int)-err));
		goto out;
	}
	if (q.cookie != e->cookie || q.mode != e->mode ||
	    q.period_ns != e->period ||
	    (q.state > DWQ_STATE_RUNNING && q.state != DWQ_STATE_PARKED) ||
	    q.flags != (e->clock == CLOCK_BOOTTIME ? DWQ_SCHED_BOOTTIME : 0u))
		fail("query id %llu: cookie %llu mode %u period %llu state %u flags %#x",
		     (unsigned long long)e->id, (unsigned long long)q.cookie,
		     q.mode, (unsigned long long)q.period_ns, q.state, q.flags);
	if (q.runs > e->min_runs)
		e->min_runs = q.runs;
	if (e->mode == DWQ_MODE_ONESHOT && q.state == DWQ_STATE_QUEUED &&
	    (q.deadline_ns < e->lo || q.deadline_ns > e->hi ||
	     (q.runs && !e->was_periodic)))
		fail("query one-shot id %llu: deadline %llu not in [%llu, %llu], runs %llu",
		     (unsigned long long)e->id,
		     (unsigned long long)q.deadline_ns,
		     (unsigned long long)e->lo, (unsigned long long)e->hi,
		     (unsigned long long)q.runs);
	if (q.state == DWQ_STATE_PARKED &&
	    (e->mode == DWQ_MODE_ONESHOT || q.remaining_ns))
		fail("query id %llu: mode %u parked, remaining %llu",
		     (unsigned long long)e->id, q.mode,
		     (unsigned long long)q.remaining_ns);
	/*
	 * A fixed-rate task never moved stays on its grid: queued or parked
	 * (due, not fired until read), its deadline follows every period
	 * fired or skipped so far. A /dev/dwq task fires inside read(), so
	 * QUERY never sees it running.
	 */
	if (q.state == DWQ_STATE_RUNNING)
		fail("query id %llu: running", (unsigned long long)e->id);
	if (e->mode == DWQ_MODE_FIXED_RATE && !e->moved &&
	    q.state != DWQ_STATE_IDLE && q.state != DWQ_STATE_CANCELLED) {
		k = q.runs + q.overruns + q.skipped;
		kmin = k;
		j = q.deadline_ns >= e->d0 ?
			    (q.deadline_ns - e->d0) / e->period :
			    kmin + k + 1;
		if (j >= kmin && j <= k &&
		    q.deadline_ns == e->d0 + j * e->period)
			goto out;
		fail("fixed-rate id %llu: deadline %llu, want d0+%llu..%llu periods",
		     (unsigned long long)e->id,
		     (unsigned long long)q.deadline_ns,
		     (unsigned long long)kmin, (unsigned long long)k);
		fail("... state %u runs %llu overruns %llu skipped %llu d0 %llu",
		     q.state, (unsigned long long)q.runs,
		     (unsigned long long)q.overruns,
		     (unsigned long long)q.skipped, (unsigned long long)e->d0);
	}
out:
	unbusy(f, e);
	pthread_mutex_unlock(&f->lock);
}

/* Read whatever is there (or wait a little); the buffer size varies. */
static void op_read(__u64 *rs, struct file *f, bool wait)
{
	struct dwq_event ev[16];
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	size_t len = sizeof(ev[0]) * (1 + rnd_below(rs, 16));
	ssize_t n;
	int i;

	if (wait) {
		i = poll(&p, 1, (int)rnd_below(rs, 10));
		if (i < 0)
			fail("poll: %s", strerror(errno));
		if (i <= 0)
			return;
		if (!(p.revents & POLLIN))
			fail("poll: revents %#x", p.revents);
	}
	/* Odd sizes: whole events only. */
	if (rnd_below(rs, 4) == 0)
		len += rnd_below(rs, sizeof(ev[0]));
	pthread_mutex_lock(&f->rlock);
	n = read(f->fd, ev, len);
	__atomic_add_fetch(&tot.reads, 1, __ATOMIC_RELAXED);
	if (n < 0) {
		if (errno != EAGAIN)
			fail("read: %s", strerror(errno));
		pthread_mutex_unlock(&f->rlock);
		return;
	}
	if (n % sizeof(ev[0]) || (size_t)n > len)
		fail("read returned %zd bytes of %zu", n, len);
	for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
		handle_event(f, &ev[i]);
	pthread_mutex_unlock(&f->rlock);
}

static void op_stats(struct file *f)
{
	struct dwq_ioc_stats st;
	long err = xioctl(f->fd, DWQ_IOC_STATS, &st);

	if (err)
		fail("STATS: %s", strerror((int)-err));
	else if (st.workers < 1 || st.workers > 64 ||
		 st.queue_size > st.queue_capacity)
		fail("STATS: workers %u size %u capacity %u", st.workers,
		     st.queue_size, st.queue_capacity);
}

static void *worker(void *arg)
{
	__u64 rs = (__u64)(uintptr_t)arg, r, ops = 0;
	struct file *f;

	while (!__atomic_load_n(&stop_ops, __ATOMIC_RELAXED)) {
		f = &files[rnd_below(&rs, opt.nfiles)];
		r = rnd_below(&rs, 100);
		/* Too many live tasks: favour draining them. */
		if (f->nlive > opt.max_live && r < 40)
			r += 40;
		if (r < 25)
			op_schedule(&rs, f);
		else if (r < 33)
			op_batch(&rs, f);
		else if (r < 49)
			op_cancel(&rs, f);
		else if (r < 50) /* about 20 cancels each */
			op_cancel_batch(&rs, f);
		else if (r < 62)
			op_reschedule(&rs, f);
		else if (r < 70)
			op_query(&rs, f);
		else if (r < 88)
			op_read(&rs, f, false);
		else if (r < 98)
			op_read(&rs, f, true);
		else
			op_stats(f);
		ops++;
	}
	__atomic_add_fetch(&tot.ops, ops, __ATOMIC_RELAXED);
	return NULL;
}

static void file_open(struct file *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->rlock, NULL);
	pthread_mutex_init(&f->lock, NULL);
	/* Under fault injection open() may fail too: only with ENOMEM. */
	do {
		f->fd = open(opt.dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	} while (f->fd < 0 && errno == ENOMEM && opt.enomem_ok &&
		 __atomic_add_fetch(&tot.enomem, 1, __ATOMIC_RELAXED));
	if (f->fd < 0) {
		fprintf(stderr, "dwq-stress: %s: %s\n", opt.dev,
			strerror(errno));
		exit(2);
	}
}

/* Read all events until the file is quiet; false if it never got so. */
static bool drain(struct file *f, struct dwq_ioc_stats *st)
{
	__u64 rs = 1, deadline = now_ns(CLOCK_MONOTONIC) + 30 * NS_PER_SEC;
	int quiet = 0;

	while (now_ns(CLOCK_MONOTONIC) < deadline) {
		op_read(&rs, f, true);
		if (xioctl(f->fd, DWQ_IOC_STATS, st))
			fail("STATS: %s", strerror(errno));
		/* Quiet: nothing owned, waiting or unaccounted, 5 times running. */
		if (!st->pending && !st->events &&
		    st->fired - st->coalesced == f->events_read) {
			if (++quiet == 5)
				return true;
		} else {
			quiet = 0;
		}
	}
	return false;
}

/* Cancel what is left, drain, check every entry and the counters. */
static void verify(int fi)
{
	struct file *f = &files[fi];
	struct dwq_ioc_stats st;
	struct orphan *o;
	struct ent *e;
	__u64 id, firings, k, ents = 0, done = 0;

	while (f->nlive) {
		e = f->live[0];
		do_cancel(f, e);
		live_del(f, e); /* also if the cancel failed */
	}
	if (!drain(f, &st))
		fail("file %d: pending %llu events %llu fired %llu coalesced %llu read %llu",
		     fi, (unsigned long long)st.pending,
		     (unsigned long long)st.events,
		     (unsigned long long)st.fired,
		     (unsigned long long)st.coalesced,
		     (unsigned long long)f->events_read);
	if (st.cancelled != f->removed)
		fail("file %d: STATS cancelled %llu, ledger %llu REMOVED", fi,
		     (unsigned long long)st.cancelled,
		     (unsigned long long)f->removed);
	for (o = f->orphans; o; o = o->next) {
		fail("file %d: event for unknown id %llu", fi,
		     (unsigned long long)o->ev.id);
		tot.duplicated++;
	}
	pthread_mutex_lock(&glock);
	tot.firings += st.fired;
	tot.coalesced += st.coalesced;
	tot.events += f->events_read;
	tot.cancelled += f->removed;
	pthread_mutex_unlock(&glock);

	for (id = 0; id < f->tab_len; id++) {
		e = f->tab[id];
		if (!e)
			continue;
		ents++;
		done += e->state != ST_LIVE;
		if (e->unread && e->nlast != 1)
			fail("id %llu: cancelled UNREAD, then %llu LAST events",
			     (unsigned long long)id,
			     (unsigned long long)e->nlast);
		if (e->nlast > 1) {
			fail("id %llu: %llu LAST events",
			     (unsigned long long)id,
			     (unsigned long long)e->nlast);
			tot.duplicated += e->nlast - 1;
		}
		if (e->mode == DWQ_MODE_ONESHOT && e->state == ST_LIVE) {
			fail("id %llu: one-shot neither fired nor cancelled (cancel %s; %s)",
			     (unsigned long long)id,
			     e->expect_last ? "said it fired" : "never seen",
			     e->was_periodic ? "periodic once" : "one-shot");
			tot.lost++;
		}
		if (e->nev && e->sum < e->min_runs)
			fail("id %llu: events account for %llu firings, QUERY saw %llu runs",
			     (unsigned long long)id, (unsigned long long)e->sum,
			     (unsigned long long)e->min_runs);
		if (e->moved || e->mode == DWQ_MODE_ONESHOT || !e->nev)
			continue;
		firings = e->sum;
		if (e->cancel_end && e->max_dl > e->cancel_end)
			fail("id %llu: fired at deadline %llu after its cancel at %llu",
			     (unsigned long long)id,
			     (unsigned long long)e->max_dl,
			     (unsigned long long)e->cancel_end);
		if (e->mode == DWQ_MODE_FIXED_RATE) {
			k = (e->max_cov - e->d0) / e->period;
			if (e->min_dl < e->d0 ||
			    (e->max_cov - e->d0) % e->period ||
			    firings != k + 1) {
				fail("fixed-rate id %llu: %llu firings, want %llu",
				     (unsigned long long)id,
				     (unsigned long long)firings,
				     (unsigned long long)(k + 1));
				fail("... deadlines %llu..%llu, d0 %llu, period %llu",
				     (unsigned long long)e->min_dl,
				     (unsigned long long)e->max_cov,
				     (unsigned long long)e->d0,
				     (unsigned long long)e->period);
			}
		} else if (e->min_dl < e->d0 ||
			   e->max_dl - e->d0 < (firings - 1) * e->period) {
			fail("fixed-delay id %llu: %llu firings within %llu ns of d0, period %llu",
			     (unsigned long long)id,
			     (unsigned long long)firings,
			     (unsigned long long)(e->max_dl - e->d0),
			     (unsigned long long)e->period);
		}
	}
	/* Every task ended: fired (one-shot) or cancelled. */
	if (done != ents)
		fail("file %d: %llu of %llu tasks neither fired nor cancelled",
		     fi, (unsigned long long)(ents - done),
		     (unsigned long long)ents);
	for (id = 0; id < f->tab_len; id++)
		free(f->tab[id]);
	while ((o = f->orphans)) {
		f->orphans = o->next;
		free(o);
	}
	free(f->tab);
	free(f->live);
	if (close(f->fd))
		fail("close: %s", strerror(errno));
}

static void bad_args(void)
{
	fputs("usage: dwq-stress [--duration S] [--threads T] [--files F] [--seed N]\n"
	      "                  [--rounds R] [--max-live N] [--enomem-ok] [--dev PATH]\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "duration", 1, NULL, 'd' },
					    { "threads", 1, NULL, 't' },
					    { "files", 1, NULL, 'f' },
					    { "seed", 1, NULL, 's' },
					    { "rounds", 1, NULL, 'r' },
					    { "max-live", 1, NULL, 'm' },
					    { "enomem-ok", 0, NULL, 'e' },
					    { "dev", 1, NULL, 'D' },
					    {} };
	pthread_t th[MAX_THREADS];
	double round_len, t_start, elapsed;
	__u64 seed_state;
	int c, i, round = 0;

	opt.seed = now_ns(CLOCK_REALTIME) ^ getpid();
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt.duration = atof(optarg);
			break;
		case 't':
			opt.threads = atoi(optarg);
			break;
		case 'f':
			opt.nfiles = atoi(optarg);
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			opt.rounds = atoi(optarg);
			break;
		case 'm':
			opt.max_live = atoi(optarg);
			break;
		case 'e':
			opt.enomem_ok = true;
			break;
		case 'D':
			opt.dev = optarg;
			break;
		default:
			bad_args();
		}
	}
	if (opt.threads < 1 || opt.threads > MAX_THREADS || opt.nfiles < 1 ||
	    opt.nfiles > MAX_FILES || opt.duration <= 0)
		bad_args();
	/* Rounds of about 30 s each, so that memory stays bounded. */
	if (opt.rounds <= 0)
		opt.rounds = opt.duration > 30 ? (int)(opt.duration / 30) : 1;
	round_len = opt.duration / opt.rounds;
	printf("dwq-stress: seed=%llu threads=%d files=%d duration=%.0fs rounds=%d max-live=%d%s\n",
	       (unsigned long long)opt.seed, opt.threads, opt.nfiles,
	       opt.duration, opt.rounds, opt.max_live,
	       opt.enomem_ok ? " enomem-ok" : "");
	fflush(stdout);
	seed_state = opt.seed ? opt.seed : 1;
	t_start = now_ns(CLOCK_MONOTONIC) / 1e9;

	for (round = 0; round < opt.rounds; round++) {
		for (i = 0; i < opt.nfiles; i++)
			file_open(&files[i]);
		__atomic_store_n(&stop_ops, false, __ATOMIC_RELAXED);
		for (i = 0; i < opt.threads; i++) {
			__u64 s = rnd(&seed_state) | 1;

			if (pthread_create(&th[i], NULL, worker,
					   (void *)(uintptr_t)s)) {
				perror("pthread_create");
				return 2;
			}
		}
		usleep((useconds_t)(round_len * 1e6));
		__atomic_store_n(&stop_ops, true, __ATOMIC_RELAXED);
		for (i = 0; i < opt.threads; i++)
			pthread_join(th[i], NULL);
		for (i = 0; i < opt.nfiles; i++)
			verify(i);
		elapsed = now_ns(CLOCK_MONOTONIC) / 1e9 - t_start;
		printf("dwq-stress: round %d/%d done at %.0fs: scheduled=%llu errors=%d\n",
		       round + 1, opt.rounds, elapsed,
		       (unsigned long long)tot.scheduled, nerrors);
		fflush(stdout);
	}

	printf("dwq-stress: ops=%llu reads=%llu queries=%llu reschedules=%llu/%llu ok\n",
	       (unsigned long long)tot.ops, (unsigned long long)tot.reads,
	       (unsigned long long)tot.queries, (unsigned long long)tot.resched,
	       (unsigned long long)tot.resched_ok);
	printf("dwq-stress: cancelled by CANCEL_BATCH: %llu\n",
	       (unsigned long long)tot.batch_cancels);
	printf("dwq-stress: periodic=%llu events=%llu firings=%llu coalesced=%llu enomem=%llu\n",
	       (unsigned long long)tot.periodic, (unsigned long long)tot.events,
	       (unsigned long long)tot.firings,
	       (unsigned long long)tot.coalesced,
	       (unsigned long long)tot.enomem);
	printf("scheduled=%llu fired=%llu cancelled=%llu ",
	       (unsigned long long)tot.scheduled,
	       (unsigned long long)tot.oneshot_fired,
	       (unsigned long long)tot.cancelled);
	printf("lost=%llu duplicated=%llu late_max_us=%llu\n",
	       (unsigned long long)tot.lost, (unsigned long long)tot.duplicated,
	       (unsigned long long)(tot.late_max_ns / 1000));
	if (tot.scheduled != tot.oneshot_fired + tot.cancelled)
		fail("scheduled %llu != fired %llu + cancelled %llu",
		     (unsigned long long)tot.scheduled,
		     (unsigned long long)tot.oneshot_fired,
		     (unsigned long long)tot.cancelled);
	if (nerrors || tot.lost || tot.duplicated || !tot.scheduled) {
		printf("dwq-stress: FAIL: %d mismatches (seed %llu)\n", nerrors,
		       (unsigned long long)opt.seed);
		return 1;
	}
	printf("dwq-stress: PASS\n");
	return 0;
}
