// SPDX-License-Identifier: GPL-2.0
/*
 * CANCEL_BATCH: many cancels in one call, each as CANCEL would do it, and
 * a batch the device refuses cancels nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dwq_test.h"

FIXTURE(cancel_batch)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(cancel_batch)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(cancel_batch)
{
	dwq_teardown(_metadata, &self->f);
}

/* Schedule @n far one-shots on @fd with one SCHEDULE_BATCH; ids in @ids. */
static void schedule_far(int fd, uint64_t *ids, uint32_t n)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	uint32_t i;

	if (n > DWQ_SCHEDULE_BATCH_MAX)
		t_fail("%u tasks: more than one batch", n);
	for (i = 0; i < n; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	T_OK(dwqt_batch(fd, e, n, NULL));
	for (i = 0; i < n; i++)
		ids[i] = e[i].id;
}

/* Entries for @ids, with a result the device must overwrite. */
static void entries_for(struct dwq_ioc_cancel *e, const uint64_t *ids,
			uint32_t n)
{
	uint32_t i;

	memset(e, 0, n * sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].id = ids[i];
		e[i].result = 0xdead;
	}
}

/* Every one of @ids is still queued, and nothing was cancelled. */
static void expect_all_queued(int fd, const uint64_t *ids, uint32_t n)
{
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);
	uint32_t i;

	T_EQ(st.pending, n);
	T_EQ(st.cancelled, 0);
	for (i = 0; i < n; i++)
		T_EQ(dwqt_query_ok(fd, ids[i]).state, DWQ_STATE_QUEUED);
}

/*
 * Many queued tasks, one-shot and periodic, all REMOVED: their ids gone,
 * the queue smaller by as many, and none of them ever fires.
 */
TEST_F(cancel_batch, removed)
{
	struct dwq_ioc_schedule s[100];
	struct dwq_ioc_cancel e[ARRAY_SIZE(s)];
	int fd = self->f.fd, other = dwqt_open(0);
	unsigned int base;
	uint64_t keep;
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q;
	uint32_t i, idx;

	keep = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1000);
	base = dwqt_stats_ok(other).all_tasks;
	/*
	 * Due in 3 s: they would fire during the case if not removed, and
	 * not before the cancel, with seconds to spare on a slow guest.
	 */
	for (i = 0; i < ARRAY_SIZE(s); i++) {
		uint32_t m = i % 3;

		s[i] = dwqt_sched_arg(3 * NSEC_PER_SEC,
				      m ? 50 * NSEC_PER_MSEC : 0, m, 0, i);
	}
	T_OK(dwqt_batch(fd, s, ARRAY_SIZE(s), NULL));
	T_EQ(dwqt_stats_ok(other).all_tasks, base + ARRAY_SIZE(s));
	memset(e, 0, sizeof(e));
	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i].id = s[i].id;
	T_OK(dwqt_cancel_batch(fd, e, ARRAY_SIZE(e), &idx));
	T_EQ(idx, ARRAY_SIZE(e));
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		T_EXPECT((e[i].id == s[i].id &&
			  e[i].result == DWQ_RESULT_REMOVED),
			 "entry %u: id %llu result %u, expected id %llu REMOVED",
			 i, (unsigned long long)e[i].id, e[i].result,
			 (unsigned long long)s[i].id);
		T_EQ(e[i].reserved, 0);
		T_ERR(dwqt_query(fd, e[i].id, &q), ENOENT);
		T_ERR(dwqt_cancel(fd, e[i].id, NULL), ENOENT);
	}
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.cancelled, ARRAY_SIZE(e));
	T_EQ(dwqt_stats_ok(other).all_tasks, base);
	dwqt_expect_no_event(fd, 3500);
	st = dwqt_stats_ok(fd);
	T_EQ(st.fired, 0);
	T_EQ(st.events, 0);
	T_EQ(dwqt_query_ok(fd, keep).state, DWQ_STATE_QUEUED);
}

/*
 * Ids the file does not own are NOENT and fail nothing: unknown ids, an
 * id twice in one batch, another file's id, a one-shot whose event is
 * queued. The other file's task and that event are untouched.
 */
TEST_F(cancel_batch, mixed_noent)
{
	int fd = self->f.fd, other = dwqt_open(0), i;
	uint64_t a[3], b[6], fired;
	struct dwq_ioc_cancel e[9];
	struct dwq_event ev;
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q;
	uint32_t idx;
	static const uint32_t want[ARRAY_SIZE(e)] = {
		DWQ_RESULT_REMOVED, DWQ_RESULT_NOENT,	DWQ_RESULT_REMOVED,
		DWQ_RESULT_NOENT,   DWQ_RESULT_NOENT,	DWQ_RESULT_NOENT,
		DWQ_RESULT_NOENT,   DWQ_RESULT_REMOVED, DWQ_RESULT_NOENT,
	};

	schedule_far(fd, a, ARRAY_SIZE(a));
	/* More tasks in the other file, so that its last id is not ours. */
	schedule_far(other, b, ARRAY_SIZE(b));
	for (i = 0; i < (int)ARRAY_SIZE(a); i++)
		T_EXPECT(a[i] != b[5], "the other file's id %llu is ours too",
			 (unsigned long long)b[5]);
	fired = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 77);
	for (i = 0; i < DWQT_WAIT_MS / 10 && !dwqt_stats_ok(fd).events; i++)
		dwqt_sleep_ms(10);
	T_EQ(dwqt_stats_ok(fd).events, 1);

	memset(e, 0, sizeof(e));
	e[0].id = a[0];
	e[1].id = fired + 1000; /* never had */
	e[2].id = a[1];
	e[3].id = a[0]; /* cancelled by entry 0 */
	e[4].id = b[5]; /* the other file's */
	e[5].id = fired; /* its event is queued */
	e[6].id = 0;
	e[7].id = a[2];
	e[8].id = U64_MAX;
	T_OK(dwqt_cancel_batch(fd, e, ARRAY_SIZE(e), &idx));
	T_EQ(idx, ARRAY_SIZE(e));
	for (i = 0; i < (int)ARRAY_SIZE(e); i++)
		T_EXPECT(e[i].result == want[i],
			 "entry %d (id %llu): result %u, expected %u", i,
			 (unsigned long long)e[i].id, e[i].result, want[i]);
	for (i = 0; i < (int)ARRAY_SIZE(a); i++)
		T_ERR(dwqt_query(fd, a[i], &q), ENOENT);
	/*
	 * The due one-shot is still held (its event unread), and read()
	 * fires it.
	 */
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.cancelled, 3);
	T_EQ(st.fired, 0);
	T_EQ(st.events, 1);
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, fired);
	T_EQ(ev.cookie, 77);
	T_EQ(ev.flags, DWQ_EVENT_LAST);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 0);
	T_EQ(st.fired, 1);
	/* The other file's tasks are all there. */
	st = dwqt_stats_ok(other);
	T_EQ(st.pending, ARRAY_SIZE(b));
	T_EQ(st.cancelled, 0);
	for (i = 0; i < (int)ARRAY_SIZE(b); i++)
		T_EQ(dwqt_query_ok(other, b[i]).state, DWQ_STATE_QUEUED);
}

/*
 * A periodic task due every 100 us, cancelled in a batch: never RUNNING
 * (a /dev/dwq task fires inside read(), atomically); its id is gone and
 * no firing happens after the call returned: a due one keeps the event
 * of its firing, stamped by the cancel, and its result is UNREAD: that
 * event, with DWQ_EVENT_LAST, is the one still read; REMOVED, none is.
 * The same id again later in the batch finds it gone (NOENT). The case
 * repeats rounds, the task due or not when cancelled.
 */
static bool unread_now(const struct dwq_ioc_cancel *c)
{
	return c->result == DWQ_RESULT_UNREAD;
}

TEST_F(cancel_batch, periodic_firing)
{
	uint64_t end = dwqt_now() + DWQT_RACE_NS, t, p, period = 100000;
	unsigned long long min, removed = 0, unread = 0;
	struct dwq_event ev[16];
	struct dwq_ioc_cancel e[3];
	struct dwq_ioc_query q;
	int fd, i, n, k, late, last;

	if (!dwqt_param("min_period_ns", &min) && min > period)
		period = min;
	for (i = 0; i < 100 && dwqt_now() < end; i++) {
		/* A file per round: a RUNNING task ends with its firing. */
		fd = dwqt_open(0);
		memset(e, 0, sizeof(e));
		/*
		 * Round by round: the cancel races the next firing; comes
		 * long before it (REMOVED); or after it is due (UNREAD). A
		 * slow guest lets the race end one way only.
		 */
		p = i % 3 == 1 ? DWQT_FAR_NS : period;
		e[0].id = dwqt_sched_ok(fd, 0, p, DWQ_MODE_FIXED_RATE, 0, i);
		e[1].id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0,
					i);
		/* Cancelled by e[0] first, whether firing or not: gone. */
		e[2].id = e[0].id;
		dwqt_read_one(fd);
		if (i % 3 == 2)
			dwqt_sleep_ms(1 + period / 1000000);
		T_OK(dwqt_cancel_batch(fd, e, ARRAY_SIZE(e), NULL));
		t = dwqt_now();
		T_EXPECT(e[0].result == DWQ_RESULT_REMOVED || unread_now(&e[0]),
			 "round %d: result %u", i, e[0].result);
		T_EXPECT(i % 3 != 1 || e[0].result == DWQ_RESULT_REMOVED,
			 "round %d: cancelled long before it is due: result %u",
			 i, e[0].result);
		T_EXPECT(i % 3 != 2 || e[0].result == DWQ_RESULT_UNREAD,
			 "round %d: cancelled after it was due: result %u", i,
			 e[0].result);
		T_EQ(e[1].result, DWQ_RESULT_REMOVED);
		T_EXPECT(e[2].result == DWQ_RESULT_NOENT,
			 "round %d: the same id again: result %u", i,
			 e[2].result);
		if (e[0].result == DWQ_RESULT_UNREAD)
			unread++;
		else
			removed++;
		T_ERR(dwqt_query(fd, e[0].id, &q), ENOENT);
		/* The firing under way, if any, has ended by then. */
		dwqt_sleep_ms(20);
		late = 0;
		last = 0;
		do {
			n = dwqt_read_events(fd, ev, ARRAY_SIZE(ev), 0);
			for (k = 0; k < n; k++) {
				late += ev[k].fired_ns >= t;
				last += !!(ev[k].flags & DWQ_EVENT_LAST);
			}
		} while (n == (int)ARRAY_SIZE(ev));
		T_EXPECT(!late,
			 "round %d: %d events stamped after CANCEL_BATCH returned",
			 i, late);
		T_EXPECT(last == (e[0].result == DWQ_RESULT_UNREAD),
			 "round %d: result %u, then %d last events", i,
			 e[0].result, last);
		dwqt_expect_no_event(fd, 5);
		T_EQ(dwqt_stats_ok(fd).pending, 0);
		close(fd);
	}
	t_note("%d rounds: %llu REMOVED, %llu UNREAD", i, removed, unread);
	T_EXPECT(removed && unread, "%d rounds: %llu REMOVED, %llu UNREAD", i,
		 removed, unread);
}

/*
 * Whether one more event comes, for each kind of task a cancel can find:
 * @n tasks, each cancelled alone or all in one batch. The result is
 * UNREAD exactly when an event of the task is still to be read: one, with
 * DWQ_EVENT_LAST; REMOVED when none comes.
 */
static void cancel_says_what_comes(int fd, bool batch)
{
	enum { QUEUED, PERIODIC_QUEUED, PARKED, KEPT, N };
	static const uint32_t want[N] = {
		[QUEUED] = DWQ_RESULT_REMOVED,
		[PERIODIC_QUEUED] = DWQ_RESULT_REMOVED,
		[PARKED] = DWQ_RESULT_UNREAD,
		[KEPT] = DWQ_RESULT_UNREAD,
	};
	struct dwq_ioc_cancel e[N];
	struct dwq_event ev[N + 1];
	uint64_t id[N];
	int i, n;

	id[QUEUED] =
		dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, QUEUED);
	id[PERIODIC_QUEUED] = dwqt_sched_ok(fd, DWQT_FAR_NS, NSEC_PER_SEC,
					    DWQ_MODE_FIXED_RATE, 0,
					    PERIODIC_QUEUED);
	id[PARKED] = dwqt_sched_ok(fd, 0, NSEC_PER_SEC, DWQ_MODE_FIXED_RATE, 0,
				   PARKED);
	id[KEPT] = dwqt_sched_ok(fd, 0, NSEC_PER_SEC, DWQ_MODE_FIXED_DELAY, 0,
				 KEPT);
	/* Moved while parked: it keeps that firing's event, not due now. */
	T_OK(dwqt_resched(fd, id[KEPT], DWQT_FAR_NS, 0, 0, 0));
	T_EQ(dwqt_query_ok(fd, id[KEPT]).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_query_ok(fd, id[PARKED]).state, DWQ_STATE_PARKED);
	memset(e, 0, sizeof(e));
	for (i = 0; i < N; i++) {
		e[i].id = id[i];
		e[i].result = 0xdead;
		if (!batch)
			T_OK(dwqt_cancel(fd, id[i], &e[i].result));
	}
	if (batch)
		T_OK(dwqt_cancel_batch(fd, e, N, NULL));
	for (i = 0; i < N; i++)
		T_EXPECT(e[i].result == want[i],
			 "task %d (%s): result %u, expected %u", i,
			 batch ? "batch" : "alone", e[i].result, want[i]);
	n = dwqt_read_events(fd, ev, ARRAY_SIZE(ev), 200);
	T_EQ(n, 2);
	for (i = 0; i < n; i++) {
		T_EXPECT(ev[i].id == id[PARKED] || ev[i].id == id[KEPT],
			 "event %d: id %llu, not one of a cancel that said UNREAD",
			 i, (unsigned long long)ev[i].id);
		T_EXPECT(ev[i].flags & DWQ_EVENT_LAST,
			 "event %d (cookie %llu): flags %#x, no DWQ_EVENT_LAST",
			 i, (unsigned long long)ev[i].cookie, ev[i].flags);
	}
	T_EXPECT(ev[0].id != ev[1].id, "one event each");
	dwqt_expect_no_event(fd, 100);
	T_EQ(dwqt_stats_ok(fd).pending, 0);
}

TEST_F(cancel_batch, result_says_whether_an_event_comes)
{
	cancel_says_what_comes(self->f.fd, false);
	cancel_says_what_comes(self->f.fd, true);
}

/* count 0 and count > DWQ_CANCEL_BATCH_MAX are -EINVAL, cancel nothing. */
TEST_F(cancel_batch, count_einval)
{
	static struct dwq_ioc_cancel e[DWQ_CANCEL_BATCH_MAX + 1];
	static const uint32_t bad[] = {
		0,
		DWQ_CANCEL_BATCH_MAX + 1,
		1U << 31,
		~0U,
	};
	int fd = self->f.fd;
	uint64_t ids[4];
	uint32_t idx;
	size_t i;

	schedule_far(fd, ids, ARRAY_SIZE(ids));
	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i].id = ids[i % ARRAY_SIZE(ids)];
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		long r = dwqt_cancel_batch(fd, e, bad[i], &idx);

		T_EXPECT(r == -EINVAL, "count %u: got %s, expected EINVAL",
			 bad[i], r ? t_errname(-r) : "success");
		T_EQ(idx, bad[i]);
	}
	expect_all_queued(fd, ids, ARRAY_SIZE(ids));
}

/* Non-zero flags or reserved of the batch itself are -EINVAL. */
TEST_F(cancel_batch, flags_reserved_einval)
{
	struct dwq_ioc_cancel e[2];
	struct dwq_ioc_cancel_batch b = {
		.entries = (uintptr_t)e,
		.count = ARRAY_SIZE(e),
	};
	int fd = self->f.fd;
	uint64_t ids[2];

	schedule_far(fd, ids, ARRAY_SIZE(ids));
	entries_for(e, ids, ARRAY_SIZE(e));
	b.flags = 1;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b), EINVAL);
	b.flags = 1U << 31;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b), EINVAL);
	b.flags = 0;
	b.reserved = 1;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b), EINVAL);
	b.reserved = 1U << 31;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b), EINVAL);
	T_EQ(b.error_index, ARRAY_SIZE(e));
	T_EQ(e[0].result, 0xdead);
	expect_all_queued(fd, ids, ARRAY_SIZE(ids));
}

/*
 * An entry with reserved non-zero: -EINVAL, error_index names it, and no
 * entry is cancelled, not even those before it.
 */
TEST_F(cancel_batch, entry_reserved_einval)
{
	static const uint32_t where[] = { 0, 3, 7 };
	struct dwq_ioc_cancel e[8];
	int fd = self->f.fd;
	uint64_t ids[8];
	uint32_t idx;
	size_t w, i;

	schedule_far(fd, ids, ARRAY_SIZE(ids));
	for (w = 0; w < ARRAY_SIZE(where); w++) {
		entries_for(e, ids, ARRAY_SIZE(e));
		e[where[w]].reserved = w ? 1U << 31 : 1;
		T_ERR(dwqt_cancel_batch(fd, e, ARRAY_SIZE(e), &idx), EINVAL);
		T_EXPECT(idx == where[w], "bad entry %u: error_index %u",
			 where[w], idx);
		for (i = 0; i < ARRAY_SIZE(e); i++)
			T_EQ(e[i].result, 0xdead);
		expect_all_queued(fd, ids, ARRAY_SIZE(ids));
	}
	/* Then the same entries, all valid, go. */
	entries_for(e, ids, ARRAY_SIZE(e));
	T_OK(dwqt_cancel_batch(fd, e, ARRAY_SIZE(e), &idx));
	T_EQ(idx, ARRAY_SIZE(e));
	for (i = 0; i < ARRAY_SIZE(e); i++)
		T_EQ(e[i].result, DWQ_RESULT_REMOVED);
	T_EQ(dwqt_stats_ok(fd).pending, 0);
}

/* Entries that cannot be read are -EFAULT and cancel nothing. */
TEST_F(cancel_batch, entries_efault)
{
	struct dwq_ioc_cancel e[4], *p;
	int fd = self->f.fd;
	uint64_t ids[4];

	schedule_far(fd, ids, ARRAY_SIZE(ids));
	entries_for(e, ids, ARRAY_SIZE(e));
	T_ERR(dwqt_cancel_batch(fd, NULL, 1, NULL), EFAULT);
	T_ERR(dwqt_cancel_batch(fd, dwqt_unmapped(), 1, NULL), EFAULT);
	T_ERR(dwqt_cancel_batch(fd, (void *)(uintptr_t)U64_MAX, 1, NULL),
	      EFAULT);
	/* The first two entries readable, the other two not. */
	p = dwqt_at_end_of_mapping(2 * sizeof(e[0]));
	memcpy(p, e, 2 * sizeof(e[0]));
	T_ERR(dwqt_cancel_batch(fd, p, 4, NULL), EFAULT);
	expect_all_queued(fd, ids, ARRAY_SIZE(ids));
}

/*
 * Entries that can be read but not written (mmap PROT_READ): the results
 * could not be written back, so -EFAULT before anything is cancelled.
 */
TEST_F(cancel_batch, readonly_efault)
{
	struct dwq_ioc_cancel e[4];
	int fd = self->f.fd;
	uint64_t ids[4];
	uint32_t idx;

	schedule_far(fd, ids, ARRAY_SIZE(ids));
	entries_for(e, ids, ARRAY_SIZE(e));
	T_ERR(dwqt_cancel_batch(fd, dwqt_ro_copy(e, sizeof(e)), 4, &idx),
	      EFAULT);
	T_EQ(idx, ARRAY_SIZE(e));
	expect_all_queued(fd, ids, ARRAY_SIZE(ids));
	dwqt_expect_no_event(fd, 100);
}

/*
 * Entries that become read-only while the call waits for the file
 * (another thread's read() holds it): the results cannot be written back,
 * so the call is -EFAULT, error_index the count, and nothing is
 * cancelled.
 */
TEST_F(cancel_batch, made_readonly_while_waiting_cancels_nothing)
{
	struct dwq_ioc_cancel *e = dwqt_page();
	struct dwq_ioc_cancel_batch b = { .count = 4 };
	int fd = self->f.fd;
	uint64_t ids[4];
	long ret;

	schedule_far(fd, ids, ARRAY_SIZE(ids));
	/* Due at once: the event the stuck read() takes. */
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 99);
	entries_for(e, ids, ARRAY_SIZE(ids));
	b.entries = (uint64_t)(uintptr_t)e;
	b.error_index = 0xdead;
	ret = dwqt_ioctl_then_readonly(fd, DWQ_IOC_CANCEL_BATCH, &b, e);
	if (ret == DWQT_NO_UFFD)
		t_skip("no userfaultfd in this kernel");
	T_ERR(ret, EFAULT);
	T_EQ(b.error_index, ARRAY_SIZE(ids));
	expect_all_queued(fd, ids, ARRAY_SIZE(ids));
	dwqt_expect_no_event(fd, 100);
	munmap(e, sysconf(_SC_PAGESIZE));
}

/* A batch of DWQ_CANCEL_BATCH_MAX entries, every one REMOVED. */
TEST_F(cancel_batch, max_entries)
{
	static struct dwq_ioc_cancel e[DWQ_CANCEL_BATCH_MAX];
	static uint64_t ids[DWQ_CANCEL_BATCH_MAX];
	int fd = self->f.fd, other = dwqt_open(0);
	unsigned int base = dwqt_stats_ok(other).all_tasks;
	struct dwq_ioc_stats st;
	uint32_t idx, i;

	schedule_far(fd, ids, DWQ_CANCEL_BATCH_MAX);
	T_EQ(dwqt_stats_ok(other).all_tasks, base + DWQ_CANCEL_BATCH_MAX);
	entries_for(e, ids, DWQ_CANCEL_BATCH_MAX);
	T_OK(dwqt_cancel_batch(fd, e, DWQ_CANCEL_BATCH_MAX, &idx));
	T_EQ(idx, DWQ_CANCEL_BATCH_MAX);
	for (i = 0; i < DWQ_CANCEL_BATCH_MAX; i++)
		T_EXPECT(e[i].result == DWQ_RESULT_REMOVED,
			 "entry %u: result %u", i, e[i].result);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 0);
	T_EQ(st.cancelled, DWQ_CANCEL_BATCH_MAX);
	T_EQ(dwqt_stats_ok(other).all_tasks, base);
}

#define ROOM 100

/*
 * With max_tasks lowered to leave ROOM: a batch cancelling 40 tasks (and
 * naming some twice, and unknown ones) gives back exactly 40, as 40
 * single cancels would.
 */
static void limit_given_back(void)
{
	static struct dwq_ioc_cancel e[50];
	uint64_t ids[ROOM], single[ROOM];
	int fd = dwqt_open(0), other = dwqt_open(0), i;
	struct dwq_ioc_stats st;

	schedule_far(fd, ids, ROOM);
	T_ERR(dwqt_sched(other, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
	for (i = 0; i < 40; i++)
		e[i].id = ids[i];
	for (; i < 45; i++)
		e[i].id = ids[i - 40];
	for (; i < 50; i++)
		e[i].id = ids[ROOM - 1] + i;
	T_OK(dwqt_cancel_batch(fd, e, ARRAY_SIZE(e), NULL));
	for (i = 0; i < 50; i++)
		T_EQ(e[i].result,
		     i < 40 ? DWQ_RESULT_REMOVED : DWQ_RESULT_NOENT);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, ROOM - 40);
	T_EQ(st.cancelled, 40);
	/* Exactly 40 places came back, in any file. */
	schedule_far(other, single, 40);
	T_ERR(dwqt_sched(other, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
	T_ERR(dwqt_sched(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
	/* And 40 single cancels give back as many. */
	for (i = 0; i < 40; i++)
		T_OK(dwqt_cancel(other, single[i], NULL));
	T_EQ(dwqt_stats_ok(other).cancelled, 40);
	schedule_far(fd, single, 40);
	T_ERR(dwqt_sched(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
}

TEST_F(cancel_batch, limit_given_back)
{
	unsigned long long global;
	int err;

	if (dwqt_param("max_tasks", &global))
		t_skip("no /sys/module/dwq/parameters/max_tasks");
	err = dwqt_with_param("max_tasks",
			      dwqt_stats_ok(self->f.fd).all_tasks + ROOM,
			      limit_given_back);
	if (err)
		t_skip("max_tasks cannot be lowered for the case: %s",
		       t_errname(-err));
}

TEST_HARNESS_MAIN
