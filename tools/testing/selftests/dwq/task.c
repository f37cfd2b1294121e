// SPDX-License-Identifier: GPL-2.0
/*
 * CANCEL, RESCHEDULE, QUERY and STATS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dwq_test.h"

FIXTURE(cancel)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(cancel)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(cancel)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(reschedule)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(reschedule)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(reschedule)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(query)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(query)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(query)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(stats)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(stats)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(stats)
{
	dwq_teardown(_metadata, &self->f);
}

/* A queued task is removed at once and never fires; its id is gone. */
TEST_F(cancel, queued_removed)
{
	int fd = self->f.fd;
	struct dwq_ioc_query q;
	struct dwq_ioc_stats st;
	uint64_t id, keep;
	uint32_t result = 0;

	keep = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	/* Due in 3 s: seconds after the cancel, on a slow guest too. */
	id = dwqt_sched_ok(fd, 3 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_OK(dwqt_cancel(fd, id, &result));
	T_EQ(result, DWQ_RESULT_REMOVED);
	T_ERR(dwqt_query(fd, id, &q), ENOENT);
	T_ERR(dwqt_cancel(fd, id, NULL), ENOENT);
	T_ERR(dwqt_resched(fd, id, 0, 0, 0, 0), ENOENT);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.cancelled, 1);
	dwqt_expect_no_event(fd, 3500);
	st = dwqt_stats_ok(fd);
	T_EQ(st.fired, 0);
	T_EQ(dwqt_query_ok(fd, keep).state, DWQ_STATE_QUEUED);
}

/* A queued periodic task is removed too. */
TEST_F(cancel, periodic_queued_removed)
{
	int fd = self->f.fd;
	uint32_t m, result;
	struct dwq_ioc_query q;
	uint64_t id;

	for (m = DWQ_MODE_FIXED_RATE; m <= DWQ_MODE_FIXED_DELAY; m++) {
		id = dwqt_sched_ok(fd, DWQT_FAR_NS, 10 * NSEC_PER_MSEC, m, 0,
				   m);
		T_OK(dwqt_cancel(fd, id, &result));
		T_EQ(result, DWQ_RESULT_REMOVED);
		T_ERR(dwqt_query(fd, id, &q), ENOENT);
	}
	T_EQ(dwqt_stats_ok(fd).pending, 0);
	T_EQ(dwqt_stats_ok(fd).cancelled, 2);
}

/* Ids the file never had are -ENOENT. */
TEST_F(cancel, unknown_enoent)
{
	int fd = self->f.fd;
	struct dwq_ioc_query q;
	uint64_t id;

	T_ERR(dwqt_cancel(fd, 0, NULL), ENOENT);
	T_ERR(dwqt_cancel(fd, 1, NULL), ENOENT);
	T_ERR(dwqt_cancel(fd, U64_MAX, NULL), ENOENT);
	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_ERR(dwqt_cancel(fd, id + 1, NULL), ENOENT);
	T_ERR(dwqt_cancel(fd, 0, NULL), ENOENT);
	T_ERR(dwqt_query(fd, id + 1, &q), ENOENT);
	T_ERR(dwqt_query(fd, 0, &q), ENOENT);
	T_ERR(dwqt_resched(fd, id + 1, DWQT_FAR_NS, 0, 0, 0), ENOENT);
	T_ERR(dwqt_resched(fd, 0, DWQT_FAR_NS, 0, 0, 0), ENOENT);
	T_EQ(dwqt_query_ok(fd, id).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_stats_ok(fd).cancelled, 0);
}

/*
 * A one-shot whose event is queued is gone: CANCEL, QUERY, RESCHEDULE are
 * -ENOENT, before and after the event is read.
 */
TEST_F(cancel, fired_oneshot_enoent)
{
	int fd = self->f.fd;
	struct dwq_event ev;
	struct dwq_ioc_query q;
	uint64_t id;
	int i;

	id = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 5);
	for (i = 0; i < DWQT_WAIT_MS / 10 && !dwqt_stats_ok(fd).events; i++)
		dwqt_sleep_ms(10);
	T_EQ(dwqt_stats_ok(fd).events, 1);
	T_ERR(dwqt_cancel(fd, id, NULL), ENOENT);
	T_ERR(dwqt_query(fd, id, &q), ENOENT);
	T_ERR(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, 0), ENOENT);
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, id);
	T_EQ(ev.flags, DWQ_EVENT_LAST);
	T_ERR(dwqt_cancel(fd, id, NULL), ENOENT);
	T_ERR(dwqt_query(fd, id, &q), ENOENT);
	T_ERR(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, 0), ENOENT);
	T_EQ(dwqt_stats_ok(fd).pending, 0);
	T_EQ(dwqt_stats_ok(fd).cancelled, 0);
}

/* CANCEL with reserved non-zero is -EINVAL and cancels nothing. */
TEST_F(cancel, reserved_einval)
{
	int fd = self->f.fd;
	struct dwq_ioc_cancel c = { 0 };

	c.id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	c.reserved = 1;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL, &c), EINVAL);
	c.reserved = 1U << 31;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL, &c), EINVAL);
	T_EQ(dwqt_query_ok(fd, c.id).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_stats_ok(fd).cancelled, 0);
}

/*
 * CANCEL whose argument can be read but not written: its result could not
 * reach the caller, who would not know whether an event still comes, so
 * it is -EFAULT before anything is cancelled.
 */
TEST_F(cancel, readonly_efault)
{
	int fd = self->f.fd;
	struct dwq_ioc_cancel c = { 0 };
	uint32_t result;

	c.id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL, dwqt_ro_copy(&c, sizeof(c))),
	      EFAULT);
	T_EQ(dwqt_query_ok(fd, c.id).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_stats_ok(fd).cancelled, 0);
	/* Still there to be cancelled, with a result that can be written. */
	T_OK(dwqt_cancel(fd, c.id, &result));
	T_EQ(result, DWQ_RESULT_REMOVED);
}

/*
 * CANCEL of an id the file does not own, with an argument that can be
 * read but not written: -EFAULT, as for an id it owns, never -ENOENT, so
 * that the error of such a call does not depend on which ids the file
 * owns. The ids: one not given yet, one another file owns, one this file
 * cancelled. Nothing changes in either file; with an argument that can be
 * written, each is -ENOENT, the result left as the caller gave it.
 */
TEST_F(cancel, readonly_unknown_id_efault)
{
	int fd = self->f.fd, other = dwqt_open(0), n, i;
	struct dwq_ioc_cancel c;
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q;
	uint64_t mine, theirs, ids[3];

	mine = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	ids[2] = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_OK(dwqt_cancel(fd, ids[2], NULL));
	ids[0] = ids[2] + 1000;
	/*
	 * Ids are each file's own: one of the other's that is none of ours,
	 * not even the one cancelled.
	 */
	for (n = 1;; n++) {
		theirs = dwqt_sched_ok(other, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
				       0, 3);
		if (theirs > ids[2] && dwqt_query(fd, theirs, &q) == -ENOENT)
			break;
		T_EXPECT(n < 8, "the other file's ids up to %llu are all ours",
			 (unsigned long long)theirs);
	}
	ids[1] = theirs;
	for (i = 0; i < 3; i++) {
		c = (struct dwq_ioc_cancel){ .id = ids[i], .result = 0xdead };
		T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL,
				 dwqt_ro_copy(&c, sizeof(c))),
		      EFAULT);
		T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL, &c), ENOENT);
		T_EQ(c.result, 0xdead);
	}
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.cancelled, 1);
	T_EQ(dwqt_query_ok(fd, mine).state, DWQ_STATE_QUEUED);
	st = dwqt_stats_ok(other);
	T_EQ(st.pending, n);
	T_EQ(st.cancelled, 0);
	T_EQ(dwqt_query_ok(other, theirs).state, DWQ_STATE_QUEUED);
}

/*
 * CANCEL whose argument becomes read-only while the call waits for the
 * file (another thread's read() holds it): its result cannot be written
 * back, so the call is -EFAULT and the task stays as it was, not
 * cancelled behind the caller's back.
 */
TEST_F(cancel, made_readonly_while_waiting_cancels_nothing)
{
	struct dwq_ioc_cancel *c = dwqt_page();
	int fd = self->f.fd;
	uint32_t result;
	uint64_t id;
	long ret;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	/* Due at once: the event the stuck read() takes. */
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 1);
	*c = (struct dwq_ioc_cancel){ .id = id, .result = 0xdead };
	ret = dwqt_ioctl_then_readonly(fd, DWQ_IOC_CANCEL, c, c);
	if (ret == DWQT_NO_UFFD)
		t_skip("no userfaultfd in this kernel");
	T_ERR(ret, EFAULT);
	T_EQ(c->result, 0xdead);
	T_EQ(dwqt_query_ok(fd, id).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_stats_ok(fd).cancelled, 0);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
	T_OK(dwqt_cancel(fd, id, &result));
	T_EQ(result, DWQ_RESULT_REMOVED);
	munmap(c, sysconf(_SC_PAGESIZE));
}

/*
 * A running periodic task, cancelled: its id gone at once, and no firing
 * after CANCEL returned. A /dev/dwq task fires inside read(), so a cancel
 * never finds it firing (never DWQ_RESULT_RUNNING): queued, it is
 * DWQ_RESULT_REMOVED and no event comes; parked (its next period due, not
 * read yet), the cancel fires it itself, DWQ_RESULT_UNREAD, and that one
 * event comes, the id's last.
 */
TEST_F(cancel, periodic_stops)
{
	struct dwq_event ev[8];
	int fd = self->f.fd, n, i;
	uint64_t id, t;
	uint32_t result;
	struct dwq_ioc_query q;

	id = dwqt_sched_ok(fd, 0, 20 * NSEC_PER_MSEC, DWQ_MODE_FIXED_RATE, 0,
			   9);
	for (i = 0; i < 3; i++) {
		ev[0] = dwqt_read_one(fd);
		T_EQ(ev[0].id, id);
		T_EXPECT(!(ev[0].flags & DWQ_EVENT_LAST), "flags %#x",
			 ev[0].flags);
	}
	T_OK(dwqt_cancel(fd, id, &result));
	t = dwqt_now();
	T_EXPECT(result == DWQ_RESULT_REMOVED || result == DWQ_RESULT_UNREAD,
		 "result %u", result);
	T_ERR(dwqt_query(fd, id, &q), ENOENT);
	T_EQ(dwqt_stats_ok(fd).cancelled, 1);
	dwqt_sleep_ms(300);
	n = dwqt_read_events(fd, ev, ARRAY_SIZE(ev), 0);
	T_EXPECT(n == (result == DWQ_RESULT_UNREAD),
		 "%d events after the cancel said %s", n,
		 result == DWQ_RESULT_UNREAD ? "UNREAD" : "REMOVED");
	for (i = 0; i < n; i++) {
		dwqt_check_event(&ev[i]);
		T_EQ(ev[i].id, id);
		T_EQ(ev[i].flags & DWQ_EVENT_LAST, DWQ_EVENT_LAST);
		T_EXPECT(ev[i].fired_ns < t,
			 "fired at %llu, after CANCEL returned at %llu",
			 (unsigned long long)ev[i].fired_ns,
			 (unsigned long long)t);
	}
	dwqt_expect_no_event(fd, 200);
	T_EQ(dwqt_stats_ok(fd).pending, 0);
}

/* Events of three rescheduled tasks come in the new order, same ids. */
TEST_F(reschedule, order_keeps_id_cookie)
{
	uint64_t id[3], deadline[3], base, want[3];
	int fd = self->f.fd, i;
	struct dwq_event ev;

	/* Far enough for the calls before the first deadline, slow or not. */
	base = dwqt_now() + 3000 * NSEC_PER_MSEC;
	for (i = 0; i < 3; i++) {
		id[i] = dwqt_sched_ok(fd, base + i * 200 * NSEC_PER_MSEC, 0,
				      DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 10 + i);
	}
	/* a: 0 -> 3 (later), c: 2 -> -2 (earlier); b stays. */
	deadline[0] = base + 600 * NSEC_PER_MSEC;
	deadline[1] = base + 200 * NSEC_PER_MSEC;
	deadline[2] = base - 400 * NSEC_PER_MSEC;
	T_OK(dwqt_resched(fd, id[0], deadline[0], 0, 0, DWQ_SCHED_ABS));
	T_OK(dwqt_resched(fd, id[2], deadline[2], 0, 0, DWQ_SCHED_ABS));
	T_EQ(dwqt_query_ok(fd, id[0]).deadline_ns, deadline[0]);
	T_EQ(dwqt_query_ok(fd, id[2]).deadline_ns, deadline[2]);
	want[0] = 2;
	want[1] = 1;
	want[2] = 0;
	for (i = 0; i < 3; i++) {
		int w = want[i];

		ev = dwqt_read_one(fd);
		dwqt_check_event(&ev);
		T_EXPECT(ev.id == id[w],
			 "event %d is id %llu (cookie %llu), expected id %llu",
			 i, (unsigned long long)ev.id,
			 (unsigned long long)ev.cookie,
			 (unsigned long long)id[w]);
		T_EQ(ev.cookie, 10 + w);
		T_EQ(ev.deadline_ns, deadline[w]);
		T_EQ(ev.flags, DWQ_EVENT_LAST);
	}
	T_EQ(dwqt_stats_ok(fd).pending, 0);
}

/* A relative RESCHEDULE counts from now. */
TEST_F(reschedule, relative_abs_boottime)
{
	int fd = self->f.fd;
	uint64_t id, t0, t1, d = 50 * NSEC_PER_SEC;
	struct dwq_ioc_query q;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 3);
	t0 = dwqt_now();
	T_OK(dwqt_resched(fd, id, d, 0, 0, 0));
	t1 = dwqt_now();
	q = dwqt_query_ok(fd, id);
	T_EXPECT(q.deadline_ns >= t0 + d && q.deadline_ns <= t1 + d,
		 "deadline %llu outside [%llu, %llu]",
		 (unsigned long long)q.deadline_ns,
		 (unsigned long long)(t0 + d), (unsigned long long)(t1 + d));
	T_EQ(q.cookie, 3);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	/* To CLOCK_BOOTTIME, with an absolute deadline on that clock. */
	d = dwqt_now_boot() + DWQT_FAR_NS;
	T_OK(dwqt_resched(fd, id, d, 0, 0, DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.deadline_ns, d);
	T_EQ(q.flags, DWQ_SCHED_BOOTTIME);
	/* A delay of 0 fires at once. */
	T_OK(dwqt_resched(fd, id, 0, 0, 0, 0));
	T_EQ(dwqt_read_one(fd).id, id);
}

/* DWQ_RESCHED_PERIOD changes mode and period; without it they stay. */
TEST_F(reschedule, period_mode)
{
	int fd = self->f.fd, i;
	struct dwq_event ev;
	struct dwq_ioc_query q;
	uint64_t id;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 4);
	T_OK(dwqt_resched(fd, id, 0, 30 * NSEC_PER_MSEC, DWQ_MODE_FIXED_RATE,
			  DWQ_RESCHED_PERIOD));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.mode, DWQ_MODE_FIXED_RATE);
	T_EQ(q.period_ns, 30 * NSEC_PER_MSEC);
	for (i = 0; i < 3; i++) {
		ev = dwqt_read_one(fd);
		dwqt_check_event(&ev);
		T_EQ(ev.id, id);
		T_EQ(ev.cookie, 4);
		T_EXPECT(!(ev.flags & DWQ_EVENT_LAST), "flags %#x", ev.flags);
	}
	/* Without the flag, mode and period are kept. */
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, 0));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.mode, DWQ_MODE_FIXED_RATE);
	T_EQ(q.period_ns, 30 * NSEC_PER_MSEC);
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 40 * NSEC_PER_MSEC,
			  DWQ_MODE_FIXED_DELAY, DWQ_RESCHED_PERIOD));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.mode, DWQ_MODE_FIXED_DELAY);
	T_EQ(q.period_ns, 40 * NSEC_PER_MSEC);
	/* Back to a one-shot, then due now: its next event is the last. */
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
			  DWQ_RESCHED_PERIOD));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.mode, DWQ_MODE_ONESHOT);
	T_EQ(q.period_ns, 0);
	T_OK(dwqt_resched(fd, id, 0, 0, 0, 0));
	/* Drain what the periodic task left, up to the one-shot's event. */
	for (i = 0; i < 10; i++) {
		ev = dwqt_read_one(fd);
		T_EQ(ev.id, id);
		if (ev.flags & DWQ_EVENT_LAST)
			break;
	}
	T_EXPECT(ev.flags & DWQ_EVENT_LAST, "no DWQ_EVENT_LAST event");
	T_ERR(dwqt_query(fd, id, &q), ENOENT);
	dwqt_expect_no_event(fd, 200);
}

/* Wait up to DWQT_WAIT_MS for the file to own no task. */
static void wait_no_pending(int fd, const char *what, int round)
{
	uint64_t pending;
	int i;

	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		pending = dwqt_stats_ok(fd).pending;
		if (!pending)
			return;
		dwqt_sleep_ms(10);
	}
	t_fail("round %d: %s: still %llu pending after %d ms", round, what,
	       (unsigned long long)pending, DWQT_WAIT_MS);
}

/*
 * A periodic task rescheduled to a one-shot due now: its one event is the
 * LAST, and then its id goes. Many rounds, since the firing races with
 * the end of the RESCHEDULE call.
 */
TEST_F(reschedule, periodic_to_oneshot_now)
{
	uint64_t id, end = dwqt_now() + DWQT_RACE_NS;
	int fd = self->f.fd, i;
	struct dwq_event ev;
	struct dwq_ioc_query q;

	for (i = 0; i < 200 && dwqt_now() < end; i++) {
		id = dwqt_sched_ok(fd, DWQT_FAR_NS, 50 * NSEC_PER_MSEC,
				   i % 2 + 1, 0, i);
		T_OK(dwqt_resched(fd, id, 0, 0, DWQ_MODE_ONESHOT,
				  DWQ_RESCHED_PERIOD));
		ev = dwqt_read_one(fd);
		T_EQ(ev.id, id);
		T_EXPECT(ev.flags & DWQ_EVENT_LAST,
			 "round %d: the one-shot's event has flags %#x, no DWQ_EVENT_LAST",
			 i, ev.flags);
		wait_no_pending(fd, "after the LAST event", i);
		T_ERR(dwqt_query(fd, id, &q), ENOENT);
	}
	t_note("%d rounds", i);
	dwqt_expect_no_event(fd, 100);
}

/*
 * A one-shot rescheduled to a periodic task due now: its first event is
 * not the LAST, and the task stays, to be cancelled. Many rounds, as
 * above.
 */
TEST_F(reschedule, oneshot_to_periodic_now)
{
	uint64_t id, end = dwqt_now() + DWQT_RACE_NS;
	struct dwq_event ev;
	struct dwq_ioc_query q;
	int fd, i;

	/* A file per round: a firing CANCEL found running ends with it. */
	for (i = 0; i < 200 && dwqt_now() < end; i++) {
		fd = dwqt_open(0);
		id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
		T_OK(dwqt_resched(fd, id, 0, 50 * NSEC_PER_MSEC, i % 2 + 1,
				  DWQ_RESCHED_PERIOD));
		ev = dwqt_read_one(fd);
		T_EQ(ev.id, id);
		T_EXPECT(!(ev.flags & DWQ_EVENT_LAST),
			 "round %d: the periodic task's first event has DWQ_EVENT_LAST (flags %#x)",
			 i, ev.flags);
		T_OK(dwqt_query(fd, id, &q));
		T_EQ(q.mode, i % 2 + 1);
		T_OK(dwqt_cancel(fd, id, NULL));
		wait_no_pending(fd, "after CANCEL", i);
		close(fd);
	}
	t_note("%d rounds", i);
}

/*
 * @r is refused with @err1 or @err2, and so is the same request for an id
 * the file does not own: a malformed request is refused as such before
 * its id is looked up, not with ENOENT.
 */
static void expect_resched_err(int fd, struct dwq_ioc_reschedule r, int err1,
			       int err2, const char *what)
{
	uint64_t ids[] = { r.id, 0, r.id + (1ULL << 32) };
	unsigned int i;
	long e;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		r.id = ids[i];
		e = dwqt_ioctl(fd, DWQ_IOC_RESCHEDULE, &r);
		if (e == -err1 || e == -err2)
			continue;
		t_fail("%s, %s id: got %s, expected %s%s%s", what,
		       i ? "an unknown" : "its", e ? t_errname(-e) : "success",
		       t_errname(err1), err1 == err2 ? "" : " or ",
		       err1 == err2 ? "" : t_errname(err2));
	}
}

/* Every refused RESCHEDULE leaves the task as it was. */
TEST_F(reschedule, errors_leave_task)
{
	unsigned long long min;
	int fd = self->f.fd;
	uint64_t deadline = dwqt_now() + DWQT_FAR_NS, id;
	struct dwq_ioc_reschedule r, ok = {
		.time_ns = DWQT_FAR_NS / 2,
	};
	struct dwq_ioc_query q0, q;
	int i;

	id = dwqt_sched_ok(fd, deadline, NSEC_PER_SEC, DWQ_MODE_FIXED_RATE,
			   DWQ_SCHED_ABS, 6);
	ok.id = id;
	q0 = dwqt_query_ok(fd, id);
	for (i = 0; i < 2; i++) {
		r = ok;
		r.reserved[i] = 1;
		expect_resched_err(fd, r, EINVAL, EINVAL, "reserved non-zero");
	}
	r = ok;
	r.flags = 1U << 4;
	expect_resched_err(fd, r, EINVAL, EINVAL, "flag 1 << 4");
	r.flags = DWQ_SCHED_BOOTTIME | DWQ_RESCHED_MONOTONIC;
	expect_resched_err(fd, r, EINVAL, EINVAL, "both clocks");
	r.flags = ~0U;
	expect_resched_err(fd, r, EINVAL, EINVAL, "flags ~0");
	/* Without DWQ_RESCHED_PERIOD, mode and period must be zero. */
	r = ok;
	r.mode = DWQ_MODE_FIXED_RATE;
	expect_resched_err(fd, r, EINVAL, EINVAL, "a mode, no RESCHED_PERIOD");
	r.mode = 0;
	r.period_ns = NSEC_PER_SEC;
	expect_resched_err(fd, r, EINVAL, EINVAL,
			   "a period, no RESCHED_PERIOD");
	r = ok;
	r.flags = DWQ_RESCHED_PERIOD;
	r.mode = DWQ_MODE_ONESHOT;
	r.period_ns = NSEC_PER_SEC;
	expect_resched_err(fd, r, EINVAL, EINVAL, "one-shot with a period");
	r.mode = DWQ_MODE_FIXED_RATE;
	r.period_ns = 0;
	expect_resched_err(fd, r, EINVAL, EINVAL, "fixed-rate, period 0");
	r.mode = DWQ_MODE_FIXED_DELAY;
	expect_resched_err(fd, r, EINVAL, EINVAL, "fixed-delay, period 0");
	r.mode = 3;
	r.period_ns = NSEC_PER_SEC;
	expect_resched_err(fd, r, EINVAL, EINVAL, "mode 3");
	if (!dwqt_param("min_period_ns", &min)) {
		r.mode = DWQ_MODE_FIXED_RATE;
		r.period_ns = min - 1;
		expect_resched_err(fd, r, EINVAL, EINVAL,
				   "period min_period_ns - 1");
	}
	r = ok;
	r.time_ns = U64_MAX;
	expect_resched_err(fd, r, EINVAL, ERANGE, "delay U64_MAX");
	r.time_ns = S64_MAX;
	expect_resched_err(fd, r, EINVAL, ERANGE, "delay S64_MAX");
	r.flags = DWQ_SCHED_ABS;
	r.time_ns = U64_MAX;
	expect_resched_err(fd, r, EINVAL, ERANGE, "deadline U64_MAX");
	r.time_ns = (uint64_t)S64_MAX + 1;
	expect_resched_err(fd, r, EINVAL, ERANGE, "deadline S64_MAX + 1");
	r = ok;
	r.flags = DWQ_RESCHED_PERIOD;
	r.mode = DWQ_MODE_FIXED_RATE;
	r.period_ns = U64_MAX;
	expect_resched_err(fd, r, EINVAL, ERANGE, "period U64_MAX");

	q = dwqt_query_ok(fd, id);
	T_EQ(q.deadline_ns, q0.deadline_ns);
	T_EQ(q.deadline_ns, deadline);
	T_EQ(q.mode, DWQ_MODE_FIXED_RATE);
	T_EQ(q.period_ns, NSEC_PER_SEC);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.cookie, 6);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
}

/* QUERY reports what was scheduled, and a falling remaining_ns. */
TEST_F(query, fields)
{
	int fd = self->f.fd;
	uint64_t deadline, id, t0, t1;
	struct dwq_ioc_query q, q2;

	deadline = dwqt_now() + 60 * NSEC_PER_SEC;
	id = dwqt_sched_ok(fd, deadline, 2 * NSEC_PER_SEC, DWQ_MODE_FIXED_DELAY,
			   DWQ_SCHED_ABS, 0x0123456789abcdefULL);
	t0 = dwqt_now();
	q = dwqt_query_ok(fd, id);
	t1 = dwqt_now();
	T_EQ(q.id, id);
	T_EQ(q.deadline_ns, deadline);
	T_EQ(q.period_ns, 2 * NSEC_PER_SEC);
	T_EQ(q.cookie, 0x0123456789abcdefULL);
	T_EQ(q.runs, 0);
	T_EQ(q.overruns, 0);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.mode, DWQ_MODE_FIXED_DELAY);
	T_EQ(q.flags, 0);
	T_EXPECT((q.remaining_ns <= deadline - t0 &&
		  q.remaining_ns >= deadline - t1),
		 "remaining_ns %llu outside [%llu, %llu]",
		 (unsigned long long)q.remaining_ns,
		 (unsigned long long)(deadline - t1),
		 (unsigned long long)(deadline - t0));
	dwqt_sleep_ms(20);
	q2 = dwqt_query_ok(fd, id);
	T_EXPECT(q2.remaining_ns + 20 * NSEC_PER_MSEC <= q.remaining_ns,
		 "remaining_ns %llu, 20 ms after %llu",
		 (unsigned long long)q2.remaining_ns,
		 (unsigned long long)q.remaining_ns);
	T_EQ(q2.deadline_ns, deadline);
}

/* A periodic task's runs count its firings; deadline_ns moves on. */
TEST_F(query, runs)
{
	int fd = self->f.fd, i;
	struct dwq_event ev;
	struct dwq_ioc_query q;
	uint64_t id, last = 0;

	id = dwqt_sched_ok(fd, 0, 30 * NSEC_PER_MSEC, DWQ_MODE_FIXED_DELAY, 0,
			   1);
	for (i = 0; i < 3; i++) {
		ev = dwqt_read_one(fd);
		T_EQ(ev.id, id);
		T_EXPECT(ev.deadline_ns > last || !i,
			 "deadline %llu after %llu",
			 (unsigned long long)ev.deadline_ns,
			 (unsigned long long)last);
		last = ev.deadline_ns;
	}
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, 0));
	/* A firing in progress finishes; then the task waits. */
	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		q = dwqt_query_ok(fd, id);
		if (q.state == DWQ_STATE_QUEUED)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EXPECT(q.runs >= 3, "runs %llu after 3 events",
		 (unsigned long long)q.runs);
	T_EXPECT(q.deadline_ns > last, "deadline_ns %llu, last event's %llu",
		 (unsigned long long)q.deadline_ns, (unsigned long long)last);
	T_EQ(dwqt_stats_ok(fd).fired, q.runs);
}

/*
 * QUERY refuses reserved non-zero, unknown ids and ids of others: an id
 * another file owns, and this one never had, is ENOENT (the uapi: "an id
 * that is not one of the file's tasks"), and changes neither file's
 * tasks.
 */
TEST_F(query, errors)
{
	int fd = self->f.fd, other = dwqt_open(0), i;
	struct dwq_ioc_query q, mine, theirs, now;
	struct dwq_ioc_stats st;
	uint64_t id, foreign = 0;

	memset(&q, 0, sizeof(q));
	q.id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	for (i = 0; i < 3; i++) {
		struct dwq_ioc_query bad = q;

		bad.reserved = 1U << (i * 15);
		T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, &bad), EINVAL);
	}
	id = q.id;
	T_ERR(dwqt_query(fd, id + 1, &q), ENOENT);
	T_ERR(dwqt_query(fd, U64_MAX, &q), ENOENT);

	/* Ids are the file's own: the other file's first may be ours too. */
	for (i = 0; i < 2; i++) {
		uint64_t t = dwqt_sched_ok(other, DWQT_FAR_NS, NSEC_PER_SEC,
					   DWQ_MODE_FIXED_RATE, 0, 99);

		if (t != id)
			foreign = t;
	}
	T_EXPECT(foreign != 0, "the other file's ids are all %llu",
		 (unsigned long long)id);
	mine = dwqt_query_ok(fd, id);
	theirs = dwqt_query_ok(other, foreign);
	st = dwqt_stats_ok(fd);
	T_ERR(dwqt_query(fd, foreign, &q), ENOENT);
	T_EQ(dwqt_stats_ok(fd).pending, st.pending);
	T_EQ(dwqt_stats_ok(other).pending, 2);
	now = dwqt_query_ok(fd, id);
	T_EQ(now.deadline_ns, mine.deadline_ns);
	T_EQ(now.cookie, mine.cookie);
	now = dwqt_query_ok(other, foreign);
	T_EQ(now.state, DWQ_STATE_QUEUED);
	T_EQ(now.deadline_ns, theirs.deadline_ns);
	T_EQ(now.period_ns, theirs.period_ns);
	T_EQ(now.mode, theirs.mode);
	T_EQ(now.cookie, 99);
	T_EQ(now.runs, 0);
	close(other);
}

/* A fresh file's STATS: zero counts, sane queue fields. */
TEST_F(stats, fresh_file)
{
	int fd = self->f.fd;
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);
	unsigned long long workers = 4;
	size_t i;

	if (dwqt_param("workers", &workers))
		t_note("no workers parameter: expecting 4");
	T_EQ(st.pending, 0);
	T_EQ(st.fired, 0);
	T_EQ(st.cancelled, 0);
	T_EQ(st.coalesced, 0);
	T_EQ(st.events, 0);
	T_EQ(st.workers, workers);
	T_EXPECT(st.queue_capacity >= st.queue_size, "capacity %u < size %u",
		 st.queue_capacity, st.queue_size);
	T_EXPECT(st.leader >= -1 && st.leader < (int)st.workers,
		 "leader %d with %u workers", st.leader, st.workers);
	for (i = 0; i < ARRAY_SIZE(st.reserved); i++)
		T_EQ(st.reserved[i], 0);
}

/* pending, fired, cancelled and events count this file's tasks. */
TEST_F(stats, counts)
{
	int fd = self->f.fd, other = dwqt_open(0), i;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct dwq_ioc_stats st, st0, o;
	struct dwq_event ev;
	uint64_t a;

	st0 = dwqt_stats_ok(fd);
	a = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 2);
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 3);
	for (i = 0; i < DWQT_WAIT_MS / 10 && !dwqt_stats_ok(fd).events; i++)
		dwqt_sleep_ms(10);
	T_OK(dwqt_cancel(fd, a, NULL));
	/* The due one is held, unfired, until read() fires it. */
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 2);
	T_EQ(st.fired, 0);
	T_EQ(st.cancelled, 1);
	T_EQ(st.events, 1);
	T_EQ(st.coalesced, 0);
	/*
	 * The file's tasks are not in the queue, nor is its alarm: a task due
	 * when it is scheduled wakes the readers from the ioctl itself, and
	 * the alarm, armed for the far ones before, is cancelled until read()
	 * fires the due one. So the queue ran nothing for it, and at most
	 * one worker woke (to lead, when the far alarm was armed).
	 */
	T_EQ(st.queue_size, st0.queue_size);
	T_EXPECT(st.tasks_run == st0.tasks_run, "tasks_run %llu, was %llu",
		 (unsigned long long)st.tasks_run,
		 (unsigned long long)st0.tasks_run);
	T_EXPECT(st.wakeups - st0.wakeups <= 1, "wakeups %llu, was %llu",
		 (unsigned long long)st.wakeups,
		 (unsigned long long)st0.wakeups);
	/* The other file's counters are its own. */
	o = dwqt_stats_ok(other);
	T_EQ(o.pending, 0);
	T_EQ(o.fired, 0);
	T_EQ(o.cancelled, 0);
	T_EQ(o.events, 0);
	T_EQ(o.queue_size, st.queue_size);
	ev = dwqt_read_one(fd);
	T_EQ(ev.cookie, 3);
	st = dwqt_stats_ok(fd);
	T_EQ(st.events, 0);
	T_EQ(st.pending, 1);
	T_EQ(st.fired, 1);
	/*
	 * Read by a reader alone on the file: the alarm is armed for the far
	 * one when the reader comes back to wait, as with this poll(). Then
	 * it is one task in the queue.
	 */
	T_EQ(st.queue_size, st0.queue_size);
	T_EQ(poll(&pfd, 1, 0), 0);
	st = dwqt_stats_ok(fd);
	T_EQ(st.queue_size, st0.queue_size + 1);
}

/*
 * A file's tasks are the file's, not the queue's: queue_size counts one
 * alarm per clock a file uses, all_tasks every task of every file.
 */
TEST_F(stats, queue_size)
{
	static struct dwq_ioc_schedule e[100];
	int a = self->f.fd, b = dwqt_open(0);
	struct dwq_ioc_stats st0 = dwqt_stats_ok(a), st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS + i, 0, DWQ_MODE_ONESHOT,
				      i < 10 ? DWQ_SCHED_BOOTTIME : 0, i);
	T_OK(dwqt_batch(b, e, ARRAY_SIZE(e), NULL));
	st = dwqt_stats_ok(a);
	T_EQ(st.queue_size, st0.queue_size + 2);
	T_EQ(st.all_tasks, st0.all_tasks + ARRAY_SIZE(e));
	T_EXPECT(st.queue_capacity >= st.queue_size, "capacity %u < size %u",
		 st.queue_capacity, st.queue_size);
	/* The boottime ones gone, the file uses one clock: one alarm. */
	for (i = 0; i < 40; i++)
		T_OK(dwqt_cancel(b, e[i].id, NULL));
	st = dwqt_stats_ok(a);
	T_EQ(st.queue_size, st0.queue_size + 1);
	T_EQ(st.all_tasks, st0.all_tasks + ARRAY_SIZE(e) - 40);
	T_EQ(dwqt_stats_ok(b).pending, ARRAY_SIZE(e) - 40);
	T_EQ(dwqt_stats_ok(b).cancelled, 40);
	close(b);
	st = dwqt_stats_ok(a);
	T_EQ(st.queue_size, st0.queue_size);
	T_EQ(st.all_tasks, st0.all_tasks);
}

/* With a task waiting, one worker is the leader, sleeping until it. */
TEST_F(stats, leader)
{
	int fd = self->f.fd, i;
	struct dwq_ioc_stats st, st0;
	bool led_on;

	st0 = dwqt_stats_ok(fd);
	dwqt_sched_ok(fd, 10 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 1);
	dwqt_read_one(fd);
	dwqt_sched_ok(fd, DWQT_FAR_NS / 2, 0, DWQ_MODE_ONESHOT, 0, 2);
	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		st = dwqt_stats_ok(fd);
		if (st.leader >= 0)
			break;
		dwqt_sleep_ms(10);
	}
	T_EXPECT(st.leader >= 0 && st.leader < (int)st.workers,
		 "leader %d with %u workers and a task queued", st.leader,
		 st.workers);
	/*
	 * A worker began to lead, or the one that led before led on: its
	 * timer fired the first task itself and moved on to the second,
	 * with no wakeup and no new wait.
	 */
	led_on = st0.leader >= 0 && st.timed_waits == st0.timed_waits &&
		 st.leader_changes == st0.leader_changes;
	T_EXPECT(st.timed_waits > st0.timed_waits || led_on,
		 "timed_waits %llu, was %llu (leader %d, was %d)",
		 (unsigned long long)st.timed_waits,
		 (unsigned long long)st0.timed_waits, st.leader, st0.leader);
	T_EXPECT(st.leader_changes > st0.leader_changes || led_on,
		 "leader_changes %llu, was %llu",
		 (unsigned long long)st.leader_changes,
		 (unsigned long long)st0.leader_changes);
}

TEST_HARNESS_MAIN
