// SPDX-License-Identifier: GPL-2.0
/*
 * An unread periodic task costs nothing: it parks until its event is
 * read, and the periods it skipped are counted then. Also what the event
 * and QUERY say about missed, skipped and folded firings, which clock a
 * RESCHEDULE leaves a task on, the per-user firing-rate budget, and the
 * counts STATS gives to predict ENOSPC.
 *
 * The skipped counts are checked against the clock readings around the
 * read() that counted them, never against sleeps: the kernel counted them
 * at an instant between the two readings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dwq_test.h"

FIXTURE(park)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(park)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(park)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(budget)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(budget)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(budget)
{
	dwq_teardown(_metadata, &self->f);
}

/* QUERY's error for @id: 0 or -errno. */
static long query_err(int fd, uint64_t id)
{
	struct dwq_ioc_query q;

	return dwqt_query(fd, id, &q);
}

/* Wait until the task is in @state; fail after DWQT_WAIT_MS. */
static struct dwq_ioc_query wait_state(int fd, uint64_t id, uint32_t state)
{
	struct dwq_ioc_query q;
	int i;

	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		q = dwqt_query_ok(fd, id);
		if (q.state == state)
			return q;
		dwqt_sleep_ms(10);
	}
	t_fail("task %llu in state %u, not %u, after %d ms",
	       (unsigned long long)id, q.state, state, DWQT_WAIT_MS);
}

/*
 * STATS once the user's charges have come down to @want (a charge goes
 * with a task's memory, which a worker ending a run may hold a moment
 * longer), or after DWQT_WAIT_MS.
 */
static struct dwq_ioc_stats wait_user_tasks(int fd, unsigned long long want)
{
	struct dwq_ioc_stats st;
	int i;

	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		st = dwqt_stats_ok(fd);
		if (st.user_tasks == want)
			break;
		dwqt_sleep_ms(10);
	}
	return st;
}

/*
 * Read one event that is waiting, with the clock just before and just
 * after the read(), on the monotonic clock or boottime.
 */
static struct dwq_event read_between(int fd, bool boot, uint64_t *before,
				     uint64_t *after)
{
	struct dwq_event ev;
	ssize_t n;

	*before = boot ? dwqt_now_boot() : dwqt_now();
	n = read(fd, &ev, sizeof(ev));
	*after = boot ? dwqt_now_boot() : dwqt_now();
	T_EXPECT(n == sizeof(ev), "read: %zd (%s)", n,
		 n < 0 ? t_errname(errno) : "bytes");
	dwqt_check_event(&ev);
	return ev;
}

/*
 * @skipped periods after @d, counted between @before and @after: the
 * last of them had passed by @after, the next one not yet at @before.
 */
static void expect_skipped(uint64_t d, uint64_t p, uint64_t skipped,
			   uint64_t before, uint64_t after)
{
	T_EXPECT(d + skipped * p <= after && d + (skipped + 1) * p > before,
		 "skipped %llu periods of %llu ns after %llu, counted between %llu and %llu",
		 (unsigned long long)skipped, (unsigned long long)p,
		 (unsigned long long)d, (unsigned long long)before,
		 (unsigned long long)after);
}

/* CLOCK_BOOTTIME less CLOCK_MONOTONIC: the time suspended since boot. */
static uint64_t suspended_ns(void)
{
	uint64_t mono = dwqt_now();

	return dwqt_now_boot() - mono;
}

/*
 * A fixed-rate task due and not read waits parked: it does not fire
 * (its run count stays at zero, the file fired nothing) and the queue
 * runs nothing for it (tasks_run stays: the file's alarm ran once, when
 * the task came due). Read, it fires in the read(), has skipped exactly
 * the periods that passed, and is queued at the one after them.
 *
 * On CLOCK_BOOTTIME this tests the clock only with the clocks apart (in a
 * boot never suspended they are one): make check's suspend job runs the
 * case again after its suspend, with DWQ_TEST_SUSPENDED=1, which makes
 * the clocks a second apart or more a condition.
 */
static void unread_runs_once(bool boot)
{
	const uint64_t p = 20 * NSEC_PER_MSEC;
	uint32_t clk = boot ? DWQ_SCHED_BOOTTIME : 0;
	int fd = dwqt_open(O_NONBLOCK);
	uint64_t first, id, before, after, off;
	struct dwq_ioc_stats st, st0;
	struct dwq_ioc_query q;
	struct dwq_event ev;
	int i;

	off = suspended_ns();
	if (boot && getenv("DWQ_TEST_SUSPENDED"))
		T_EXPECT(off >= NSEC_PER_SEC,
			 "DWQ_TEST_SUSPENDED=1, but the clocks are %llu ns apart",
			 (unsigned long long)off);
	st0 = dwqt_stats_ok(fd);
	first = (boot ? dwqt_now_boot() : dwqt_now()) + 20 * NSEC_PER_MSEC;
	id = dwqt_sched_ok(fd, first, p, DWQ_MODE_FIXED_RATE,
			   DWQ_SCHED_ABS | clk, 3);
	q = wait_state(fd, id, DWQ_STATE_PARKED);
	T_EQ(q.runs, 0);
	T_EQ(q.deadline_ns, first);
	T_EQ(q.remaining_ns, 0);
	T_EQ(q.mode, DWQ_MODE_FIXED_RATE);
	T_EQ(q.flags, clk);
	/* The alarm's run ends, then ten periods and more: none runs. */
	for (i = 0; dwqt_stats_ok(fd).tasks_run != st0.tasks_run + 1; i++) {
		if (i == DWQT_WAIT_MS)
			t_fail("the alarm's run not counted in %d ms",
			       DWQT_WAIT_MS);
		dwqt_sleep_ms(1);
	}
	dwqt_sleep_ms(300);
	q = dwqt_query_ok(fd, id);
	T_EQ(q.state, DWQ_STATE_PARKED);
	T_EQ(q.runs, 0);
	T_EQ(q.skipped, 0);
	st = dwqt_stats_ok(fd);
	T_EQ(st.fired, 0);
	T_EQ(st.events, 1);
	T_EQ(st.pending, 1);
	T_EQ(st.tasks_run, st0.tasks_run + 1);

	ev = read_between(fd, boot, &before, &after);
	T_EQ(ev.id, id);
	T_EQ(ev.deadline_ns, first);
	T_EQ(ev.flags, 0);
	T_EQ(ev.folded, 0);
	T_EQ(ev.overruns, 0);
	expect_skipped(first, p, ev.skipped, before, after);
	/* Fired by the read(), at the moment it began. */
	T_EXPECT(ev.fired_ns >= before && ev.fired_ns <= after,
		 "fired %llu, read between %llu and %llu",
		 (unsigned long long)ev.fired_ns, (unsigned long long)before,
		 (unsigned long long)after);
	expect_skipped(first, p, ev.skipped, ev.fired_ns, ev.fired_ns);
	t_note("%llu periods skipped while unread",
	       (unsigned long long)ev.skipped);
	/* Queued again at the period after those skipped, its clock kept. */
	q = dwqt_query_ok(fd, id);
	T_EXPECT(q.state == DWQ_STATE_QUEUED || q.state == DWQ_STATE_PARKED,
		 "state %u", q.state);
	T_EQ(q.runs, 1);
	T_EQ(q.skipped, ev.skipped);
	T_EQ(q.flags, clk);
	T_EQ(dwqt_stats_ok(fd).fired, 1);
	if (q.state == DWQ_STATE_QUEUED)
		T_EQ(q.deadline_ns, first + (ev.skipped + 1) * p);
	/* It is due there (or a whole number of periods later), unfired. */
	q = wait_state(fd, id, DWQ_STATE_PARKED);
	T_EQ(q.runs, 1);
	T_EXPECT((q.deadline_ns >= first + (ev.skipped + 1) * p &&
		  (q.deadline_ns - first) % p == 0),
		 "deadline %llu, first %llu, period %llu, %llu skipped",
		 (unsigned long long)q.deadline_ns, (unsigned long long)first,
		 (unsigned long long)p, (unsigned long long)ev.skipped);
	close(fd);
}

TEST_F(park, unread_runs_once)
{
	unread_runs_once(false);
}

TEST_F(park, unread_runs_once_boottime)
{
	unread_runs_once(true);
}

/*
 * Missed and skipped periods are told apart from folded firings: a
 * first deadline ten periods past fires at once, and the periods after it
 * up to the read are skipped, not overruns and not folded.
 */
TEST_F(park, past_deadline_skipped)
{
	const uint64_t p = 50 * NSEC_PER_MSEC;
	int fd = self->f.fd;
	uint64_t first, id, before, after;
	struct dwq_event ev;

	first = dwqt_now() - 10 * p;
	id = dwqt_sched_ok(fd, first, p, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 4);
	wait_state(fd, id, DWQ_STATE_PARKED);
	ev = read_between(fd, false, &before, &after);
	T_EQ(ev.deadline_ns, first);
	T_EQ(ev.overruns, 0);
	T_EQ(ev.folded, 0);
	T_EQ(ev.flags, 0);
	T_EXPECT(ev.skipped >= 10, "skipped %llu",
		 (unsigned long long)ev.skipped);
	expect_skipped(first, p, ev.skipped, before, after);
}

/*
 * Fixed delay, parked: it skips nothing, does not fire until read, and
 * fired by a read() it is due again exactly one period after that read()
 * began (the event's fired_ns).
 */
TEST_F(park, fixed_delay)
{
	const uint64_t p = 50 * NSEC_PER_MSEC;
	int fd = self->f.fd, n;
	uint64_t id, before, after, fired;
	struct dwq_ioc_query q;
	struct dwq_event ev;

	id = dwqt_sched_ok(fd, 0, p, DWQ_MODE_FIXED_DELAY, 0, 5);
	wait_state(fd, id, DWQ_STATE_PARKED);
	dwqt_sleep_ms(300);
	T_EQ(dwqt_query_ok(fd, id).runs, 0);
	ev = read_between(fd, false, &before, &after);
	T_EQ(ev.skipped, 0);
	T_EQ(ev.folded, 0);
	T_EQ(ev.overruns, 0);
	T_EXPECT(ev.fired_ns >= before && ev.fired_ns <= after,
		 "fired %llu, read between %llu and %llu",
		 (unsigned long long)ev.fired_ns, (unsigned long long)before,
		 (unsigned long long)after);
	fired = ev.fired_ns;
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, id);
	/* Queued one period after that read's firing, exactly. */
	T_EQ(ev.deadline_ns, fired + p);
	/* That event read too, it is due once more and parks: two runs. */
	for (n = 0; n < DWQT_WAIT_MS / 10; n++) {
		q = dwqt_query_ok(fd, id);
		if (q.state == DWQ_STATE_PARKED)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(q.state, DWQ_STATE_PARKED);
	T_EQ(q.runs, 2);
	T_EQ(q.deadline_ns, ev.fired_ns + p);
}

/*
 * A parked task cancelled is UNREAD: no firing comes, its event stays to
 * be read, its last (DWQ_EVENT_LAST), with the periods skipped until the
 * cancel, and its rate is given back.
 */
TEST_F(park, cancel_parked)
{
	const uint64_t p = 20 * NSEC_PER_MSEC;
	int fd = self->f.fd;
	uint64_t first, id, before, after;
	struct dwq_ioc_stats st;
	struct dwq_event ev;
	uint32_t result;

	first = dwqt_now();
	id = dwqt_sched_ok(fd, first, p, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 6);
	wait_state(fd, id, DWQ_STATE_PARKED);
	dwqt_sleep_ms(100);
	before = dwqt_now();
	T_OK(dwqt_cancel(fd, id, &result));
	after = dwqt_now();
	T_EQ(result, DWQ_RESULT_UNREAD);
	T_ERR(query_err(fd, id), ENOENT);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 0);
	T_EQ(st.cancelled, 1);
	T_EQ(st.events, 1);
	T_EQ(st.user_rate_mhz, 0);
	/* Read well after the cancel: counted up to the cancel only. */
	dwqt_sleep_ms(100);
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, id);
	T_EQ(ev.deadline_ns, first);
	T_EQ(ev.flags, DWQ_EVENT_LAST);
	expect_skipped(first, p, ev.skipped, before, after);
	dwqt_expect_no_event(fd, 200);
}

/*
 * A parked task made a one-shot by RESCHEDULE (DWQ_RESCHED_PERIOD) keeps
 * the event it fired unread, and cancelled before its new deadline it is
 * UNREAD as a parked periodic task is: its id is gone (not in pending),
 * its kept event is still charged to the user (user_tasks) until it is
 * read, LAST.
 */
TEST_F(park, cancel_oneshot_kept_event)
{
	const uint64_t p = 10 * NSEC_PER_SEC;
	int fd = self->f.fd;
	struct dwq_ioc_stats st;
	unsigned long long base;
	struct dwq_event ev;
	uint64_t first, id;
	uint32_t result;

	base = dwqt_stats_ok(fd).user_tasks;
	first = dwqt_now();
	id = dwqt_sched_ok(fd, first, p, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 5);
	wait_state(fd, id, DWQ_STATE_PARKED);
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
			  DWQ_RESCHED_PERIOD));
	T_EQ(dwqt_query_ok(fd, id).mode, DWQ_MODE_ONESHOT);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.events, 1);
	T_EQ(st.user_tasks, base + 1);
	T_OK(dwqt_cancel(fd, id, &result));
	T_EQ(result, DWQ_RESULT_UNREAD);
	T_ERR(query_err(fd, id), ENOENT);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 0);
	T_EQ(st.events, 1);
	T_EQ(st.user_tasks, base + 1);
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, id);
	T_EQ(ev.deadline_ns, first);
	T_EQ(ev.flags, DWQ_EVENT_LAST);
	/* The charge goes with the event's memory. */
	T_EQ(wait_user_tasks(fd, base).user_tasks, base);
	dwqt_expect_no_event(fd, 50);
}

/* The file cancel_parked_fail_nth() works on, in its child. */
static int fail_nth_fd = -1;

static void cancel_parked_fail_nth(void)
{
	const uint64_t p = 5 * NSEC_PER_MSEC;
	int fd = fail_nth_fd, nth_fd, nth;
	uint64_t first, id, before, after;
	struct dwq_ioc_stats st;
	struct dwq_event ev;
	uint32_t result;
	long err, left;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		t_fail("/proc/thread-self/fail-nth: %s", t_errname(errno));
	for (nth = 1; nth <= 4; nth++) {
		first = dwqt_now();
		id = dwqt_sched_ok(fd, first, p, DWQ_MODE_FIXED_RATE,
				   DWQ_SCHED_ABS, 20 + nth);
		wait_state(fd, id, DWQ_STATE_PARKED);
		dwqt_sleep_ms(20);
		before = dwqt_now();
		dwqt_nth_arm(nth_fd, nth);
		err = dwqt_cancel(fd, id, &result);
		left = dwqt_nth_disarm(nth_fd);
		after = dwqt_now();
		T_OK(err);
		T_EQ(result, DWQ_RESULT_UNREAD);
		T_EQ(left, nth);
		T_ERR(query_err(fd, id), ENOENT);
		st = dwqt_stats_ok(fd);
		T_EQ(st.pending, 0);
		T_EQ(st.cancelled, nth);
		T_EQ(st.events, 1);
		ev = dwqt_read_one(fd);
		T_EQ(ev.id, id);
		T_EQ(ev.cookie, 20 + nth);
		T_EQ(ev.deadline_ns, first);
		T_EQ(ev.flags, DWQ_EVENT_LAST);
		T_EXPECT(ev.fired_ns >= before && ev.fired_ns <= after,
			 "fired_ns %llu outside the cancel [%llu, %llu]",
			 (unsigned long long)ev.fired_ns,
			 (unsigned long long)before, (unsigned long long)after);
		T_EQ(ev.skipped, (ev.fired_ns - first) / p);
		dwqt_expect_no_event(fd, 20);
	}
	close(nth_fd);
}

/*
 * A cancel needs no memory: with the thread's 1st, 2nd, ... allocation
 * armed to fail (fail-nth, every allocation counted: dwqt_with_fail_nth()),
 * the cancel of a parked task still works, tries no allocation (fail-nth
 * reads back as armed), and its outcome is exact: the id is gone, the one
 * kept event says its deadline, the cancel's moment and the periods
 * skipped until then.
 */
TEST_F(park, cancel_parked_fail_nth)
{
	fail_nth_fd = self->f.fd;
	dwqt_with_fail_nth(cancel_parked_fail_nth);
}

/*
 * RESCHEDULE of a parked task (due, its event not kept yet) to
 * CLOCK_BOOTTIME, an hour away, ten times as often: the new rate is
 * charged first, then the file's BOOTTIME heap (empty, no slots) must
 * grow and the kept event be allocated. On a new file each time, the
 * 1st, 2nd, ... allocation armed to fail until the call needs fewer:
 * each failure is ENOMEM, with the rate's charge given back, the heap's
 * growth too, and the task as it was: parked on CLOCK_MONOTONIC with its
 * deadline, period and cookie, nothing kept to read.
 */
static void resched_parked_fail_nth(void)
{
	const uint64_t p = NSEC_PER_SEC, np = p / 10;
	int nth_fd, nth, fd, failed = 0;
	struct dwq_ioc_stats st0, st;
	struct dwq_ioc_query q0, q;
	uint64_t id, heap0;
	struct dwq_event ev;
	long err, left;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		t_fail("/proc/thread-self/fail-nth: %s", t_errname(errno));
	for (nth = 1;; nth++) {
		if (nth > 64)
			t_fail("a reschedule still allocates at its %dth", nth);
		fd = dwqt_open(O_NONBLOCK);
		id = dwqt_sched_ok(fd, dwqt_now(), p, DWQ_MODE_FIXED_RATE,
				   DWQ_SCHED_ABS, 30 + nth);
		q0 = wait_state(fd, id, DWQ_STATE_PARKED);
		st0 = dwqt_stats_ok(fd);
		heap0 = dwqt_fdinfo_u64(fd, "dwq-heap-slots:");
		dwqt_nth_arm(nth_fd, nth);
		err = dwqt_resched(fd, id, DWQT_FAR_NS, np, DWQ_MODE_FIXED_RATE,
				   DWQ_SCHED_BOOTTIME | DWQ_RESCHED_PERIOD);
		left = dwqt_nth_disarm(nth_fd);
		st = dwqt_stats_ok(fd);
		q = dwqt_query_ok(fd, id);
		if (err) {
			T_ERR(err, ENOMEM);
			T_EQ(left, 0);
			failed++;
			T_EQ(st.pending, st0.pending);
			T_EQ(st.events, st0.events);
			T_EQ(st.fired, st0.fired);
			T_EQ(st.user_tasks, st0.user_tasks);
			T_EQ(st.user_rate_mhz, st0.user_rate_mhz);
			T_EQ(q.state, DWQ_STATE_PARKED);
			T_EQ(q.deadline_ns, q0.deadline_ns);
			T_EQ(q.period_ns, p);
			T_EQ(q.mode, DWQ_MODE_FIXED_RATE);
			T_EQ(q.flags, 0);
			T_EQ(q.cookie, q0.cookie);
			T_EQ(q.runs, q0.runs);
			T_EQ(q.folded, q0.folded);
			/* The BOOTTIME heap it grew, given back. */
			T_EQ(dwqt_fdinfo_u64(fd, "dwq-heap-slots:"), heap0);
		} else {
			/* Moved, ten times the rate charged, its event kept. */
			T_EQ(q.state, DWQ_STATE_QUEUED);
			T_EQ(q.period_ns, np);
			T_EQ(q.flags, DWQ_SCHED_BOOTTIME);
			T_EQ(st.pending, st0.pending);
			T_EQ(st.user_rate_mhz, st0.user_rate_mhz + 9000);
			ev = dwqt_read_one(fd);
			T_EQ(ev.id, id);
			T_EQ(ev.cookie, 30 + nth);
			T_EQ(ev.deadline_ns, q0.deadline_ns);
		}
		close(fd);
		if (left)
			break;
	}
	close(nth_fd);
	t_note("%d allocations, %d of them fail the reschedule", nth - 1,
	       failed);
	/* The heap's slots and the kept event. */
	T_EXPECT(failed >= 2, "%d failed", failed);
}

/*
 * Every allocation of a RESCHEDULE that moves a parked task to another
 * clock failed in turn (fail-nth, every allocation counted:
 * dwqt_with_fail_nth()): ENOMEM, and nothing changed.
 */
TEST_F(park, resched_parked_fail_nth)
{
	dwqt_with_fail_nth(resched_parked_fail_nth);
}

/*
 * RESCHEDULE of a one-shot in the file's run, whose heap is full: the
 * heap keeps no slot for the run's one-shots, so the call grows it by one
 * before it moves the task (which may go to the heap). On a new file each
 * time, the 1st, 2nd, ... allocation armed to fail until the call needs
 * fewer: each failure is ENOMEM with the task where it was and the heap
 * as it was; the call that succeeds moves the task.
 */
static void resched_run_fail_nth(void)
{
	const uint64_t far = dwqt_now() + DWQT_FAR_NS;
	struct dwq_ioc_stats st0, st;
	struct dwq_ioc_query q0, q;
	int nth_fd, nth, fd, failed = 0;
	uint64_t id, heap0, n;
	long err, left;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		t_fail("/proc/thread-self/fail-nth: %s", t_errname(errno));
	for (nth = 1;; nth++) {
		if (nth > 64)
			t_fail("a reschedule still allocates at its %dth", nth);
		fd = dwqt_open(O_NONBLOCK);
		/* The first task goes to the run, the earlier ones to the heap. */
		id = dwqt_sched_ok(fd, far, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS,
				   7);
		for (n = 1; n <= dwqt_fdinfo_u64(fd, "dwq-heap-slots:"); n++)
			dwqt_sched_ok(fd, far - n, 0, DWQ_MODE_ONESHOT,
				      DWQ_SCHED_ABS, 0);
		q0 = dwqt_query_ok(fd, id);
		st0 = dwqt_stats_ok(fd);
		heap0 = dwqt_fdinfo_u64(fd, "dwq-heap-slots:");
		T_EQ(st0.pending, heap0 + 1);
		dwqt_nth_arm(nth_fd, nth);
		err = dwqt_resched(fd, id, far + 1, 0, 0, DWQ_SCHED_ABS);
		left = dwqt_nth_disarm(nth_fd);
		st = dwqt_stats_ok(fd);
		q = dwqt_query_ok(fd, id);
		T_EQ(st.pending, st0.pending);
		T_EQ(q.state, DWQ_STATE_QUEUED);
		T_EQ(q.cookie, 7);
		if (err) {
			T_ERR(err, ENOMEM);
			T_EQ(left, 0);
			failed++;
			T_EQ(q.deadline_ns, q0.deadline_ns);
			T_EQ(dwqt_fdinfo_u64(fd, "dwq-heap-slots:"), heap0);
		} else {
			T_EQ(q.deadline_ns, far + 1);
			T_EXPECT(dwqt_fdinfo_u64(fd, "dwq-heap-slots:") > heap0,
				 "the heap did not grow for the run's one-shot");
		}
		close(fd);
		if (left)
			break;
	}
	close(nth_fd);
	t_note("%d allocations, %d of them fail the reschedule", nth - 1,
	       failed);
	T_EXPECT(failed >= 1, "%d failed", failed);
}

/*
 * Every allocation of a RESCHEDULE of a one-shot in the run, its heap
 * full, failed in turn (dwqt_with_fail_nth()): ENOMEM, and nothing
 * changed.
 */
TEST_F(park, resched_run_fail_nth)
{
	dwqt_with_fail_nth(resched_run_fail_nth);
}

/*
 * RESCHEDULE of a parked task fires it, keeping that event unread, and
 * queues it at the new deadline; due there with its event still unread,
 * it parks, and read() folds that firing into the event: it carries the
 * latest firing's deadline, one folded firing, and comes out after an
 * earlier event that waited with it.
 */
TEST_F(park, reschedule_parked_folds)
{
	const uint64_t p = 10 * NSEC_PER_SEC;
	int fd = dwqt_open(O_NONBLOCK), n;
	uint64_t id, oneshot, first, at, again;
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q;
	struct dwq_event ev[4];

	first = dwqt_now();
	id = dwqt_sched_ok(fd, first, p, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 7);
	wait_state(fd, id, DWQ_STATE_PARKED);
	/* Far enough for the checks before it, on a slow guest too. */
	at = dwqt_now() + NSEC_PER_SEC;
	oneshot = dwqt_sched_ok(fd, at, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 8);
	again = at + 100 * NSEC_PER_MSEC;
	T_EQ(dwqt_query_ok(fd, id).runs, 0);
	T_OK(dwqt_resched(fd, id, again, 0, 0, DWQ_SCHED_ABS));
	q = dwqt_query_ok(fd, id);
	T_EXPECT(q.state == DWQ_STATE_QUEUED || q.state == DWQ_STATE_PARKED,
		 "state %u", q.state);
	T_EQ(q.runs, 1);
	st = dwqt_stats_ok(fd);
	if (dwqt_now() >= at)
		t_skip("the guest took over 1 s for three ioctls");
	T_EQ(st.events, 1);
	q = wait_state(fd, id, DWQ_STATE_PARKED);
	T_EQ(q.runs, 1);
	T_EQ(q.deadline_ns, again);
	T_EQ(q.folded, 0);
	/* The kept event and the due task are one event. */
	T_EQ(dwqt_stats_ok(fd).events, 2);
	/* The one-shot (a LAST event) has fired too by now. */
	T_ERR(query_err(fd, oneshot), ENOENT);
	n = read(fd, ev, sizeof(ev));
	T_EXPECT(n == 2 * sizeof(ev[0]),
		 "read %d bytes (%s), expected 2 events", n,
		 n < 0 ? t_errname(errno) : "bytes");
	T_EQ(ev[0].id, oneshot);
	T_EQ(ev[0].flags, DWQ_EVENT_LAST);
	T_EQ(ev[1].id, id);
	T_EQ(ev[1].deadline_ns, again);
	T_EQ(ev[1].folded, 1);
	T_EQ(ev[1].flags, DWQ_EVENT_COALESCED);
	T_EQ(ev[1].overruns, 0);
	T_EQ(dwqt_stats_ok(fd).coalesced, 1);
	q = dwqt_query_ok(fd, id);
	T_EQ(q.runs, 2);
	T_EQ(q.folded, 1);
	close(fd);
}

/*
 * RESCHEDULE keeps the task's clock unless told: a boottime task moved
 * without DWQ_SCHED_BOOTTIME stays on CLOCK_BOOTTIME (its deadline is on
 * that clock), DWQ_RESCHED_MONOTONIC moves it, and both flags are EINVAL.
 */
TEST_F(park, reschedule_keeps_clock)
{
	int fd = self->f.fd;
	struct dwq_ioc_query q;
	uint64_t id, d;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
			   DWQ_SCHED_BOOTTIME, 9);
	d = dwqt_now_boot() + DWQT_FAR_NS / 2;
	T_OK(dwqt_resched(fd, id, d, 0, 0, DWQ_SCHED_ABS));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.flags, DWQ_SCHED_BOOTTIME);
	T_EQ(q.deadline_ns, d);
	/* Relative: still boottime. */
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, 0));
	T_EQ(dwqt_query_ok(fd, id).flags, DWQ_SCHED_BOOTTIME);
	T_ERR(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0,
			   DWQ_SCHED_BOOTTIME | DWQ_RESCHED_MONOTONIC),
	      EINVAL);
	T_EQ(dwqt_query_ok(fd, id).flags, DWQ_SCHED_BOOTTIME);
	d = dwqt_now() + DWQT_FAR_NS / 2;
	T_OK(dwqt_resched(fd, id, d, 0, 0,
			  DWQ_SCHED_ABS | DWQ_RESCHED_MONOTONIC));
	q = dwqt_query_ok(fd, id);
	T_EQ(q.flags, 0);
	T_EQ(q.deadline_ns, d);
	/* And a monotonic task stays monotonic. */
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, 0));
	T_EQ(dwqt_query_ok(fd, id).flags, 0);
	T_OK(dwqt_resched(fd, id, DWQT_FAR_NS, 0, 0, DWQ_SCHED_BOOTTIME));
	T_EQ(dwqt_query_ok(fd, id).flags, DWQ_SCHED_BOOTTIME);
}

/* The user's rate now, mHz, and the check that nothing else holds any. */
static uint64_t rate(int fd)
{
	return dwqt_stats_ok(fd).user_rate_mhz;
}

/* The firing rate of a period, as the ABI defines it: mHz rounded up. */
static uint64_t rate_of(uint64_t period_ns)
{
	return (1000 * NSEC_PER_SEC + period_ns - 1) / period_ns;
}

#define BUDGET_HZ 100ULL

/* With max_rate_per_user = BUDGET_HZ; nothing else of the user periodic. */
static void budget_boundary(void)
{
	const uint64_t p10 = 10 * NSEC_PER_MSEC, p20 = 20 * NSEC_PER_MSEC;
	struct dwq_ioc_schedule e[2];
	unsigned long long max_delay;
	int fd = dwqt_open(0), other;
	uint64_t a, b, slow, c;
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q;
	uint32_t error_index;

	T_OK(dwqt_param("max_delay_ns", &max_delay));
	st = dwqt_stats_ok(fd);
	T_EQ(st.max_rate_per_user, BUDGET_HZ);
	T_EQ(st.user_rate_mhz, 0);
	T_EQ(rate_of(p10), BUDGET_HZ * 1000);
	/* Exactly the budget: taken. One millifiring more: refused. */
	a = dwqt_sched_ok(fd, DWQT_FAR_NS, p10, DWQ_MODE_FIXED_RATE, 0, 1);
	T_EQ(rate(fd), BUDGET_HZ * 1000);
	T_EQ(rate_of(max_delay), 1);
	T_ERR(dwqt_sched(fd, DWQT_FAR_NS, max_delay, DWQ_MODE_FIXED_DELAY, 0, 2,
			 NULL),
	      ENOSPC);
	/* Nothing changed: no task, no charge; a one-shot still fits. */
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.user_rate_mhz, BUDGET_HZ * 1000);
	c = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 3);
	T_EQ(rate(fd), BUDGET_HZ * 1000);
	T_OK(dwqt_cancel(fd, c, NULL));

	/* A reschedule to a longer period gives half back... */
	T_OK(dwqt_resched(fd, a, DWQT_FAR_NS, p20, DWQ_MODE_FIXED_RATE,
			  DWQ_RESCHED_PERIOD));
	T_EQ(rate(fd), rate_of(p20));
	/* ...which another file of the same user takes, to the last one. */
	other = dwqt_open(0);
	b = dwqt_sched_ok(other, DWQT_FAR_NS, p20, DWQ_MODE_FIXED_DELAY, 0, 4);
	T_EQ(rate(fd), BUDGET_HZ * 1000);
	T_ERR(dwqt_sched(other, DWQT_FAR_NS, max_delay, DWQ_MODE_FIXED_RATE, 0,
			 5, NULL),
	      ENOSPC);
	/* Back to the short period: no room, and the task is as it was. */
	T_ERR(dwqt_resched(fd, a, DWQT_FAR_NS / 2, p10, DWQ_MODE_FIXED_RATE,
			   DWQ_RESCHED_PERIOD),
	      ENOSPC);
	q = dwqt_query_ok(fd, a);
	T_EQ(q.period_ns, p20);
	T_EQ(q.mode, DWQ_MODE_FIXED_RATE);
	T_EXPECT(q.remaining_ns > DWQT_FAR_NS * 3 / 4, "remaining %llu",
		 (unsigned long long)q.remaining_ns);
	T_EQ(rate(fd), BUDGET_HZ * 1000);
	/* Made one-shot, it frees its rate; periodic again, takes it. */
	T_OK(dwqt_resched(fd, a, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
			  DWQ_RESCHED_PERIOD));
	T_EQ(rate(fd), rate_of(p20));
	T_OK(dwqt_resched(fd, a, DWQT_FAR_NS, p20, DWQ_MODE_FIXED_RATE,
			  DWQ_RESCHED_PERIOD));
	T_EQ(rate(fd), BUDGET_HZ * 1000);

	/* Cancel gives back: a batch of two of half that is all or nothing. */
	T_OK(dwqt_cancel(other, b, NULL));
	T_EQ(rate(fd), rate_of(p20));
	e[0] = dwqt_sched_arg(DWQT_FAR_NS, p20 * 2, DWQ_MODE_FIXED_RATE, 0, 6);
	e[1] = dwqt_sched_arg(DWQT_FAR_NS, p20 * 2 - 1, DWQ_MODE_FIXED_RATE, 0,
			      7);
	T_ERR(dwqt_batch(other, e, 2, &error_index), ENOSPC);
	/* The rate of the two together is over: no one entry's, @count. */
	T_EQ(error_index, 2);
	T_EQ(dwqt_stats_ok(other).pending, 0);
	T_EQ(rate(fd), rate_of(p20));
	e[1].period_ns = p20 * 2;
	T_OK(dwqt_batch(other, e, 2, &error_index));
	T_EQ(error_index, 2);
	T_EQ(rate(fd), BUDGET_HZ * 1000);
	/* Close gives back what the file held. */
	close(other);
	T_EQ(rate(fd), rate_of(p20));
	slow = dwqt_sched_ok(fd, DWQT_FAR_NS, p20, DWQ_MODE_FIXED_RATE, 0, 8);
	T_EQ(rate(fd), BUDGET_HZ * 1000);
	T_OK(dwqt_cancel(fd, slow, NULL));
	close(fd);
	fd = dwqt_open(0);
	T_EQ(rate(fd), 0);
	close(fd);
}

/*
 * The per-user firing-rate budget: both sides of its boundary, a
 * reschedule changing the period, and what cancel and close give back.
 */
TEST_F(budget, rate_boundary)
{
	int err;

	T_EQ(rate(self->f.fd), 0);
	err = dwqt_with_param("max_rate_per_user", BUDGET_HZ, budget_boundary);
	if (err)
		t_skip("max_rate_per_user cannot be set for the case: %s",
		       t_errname(-err));
}

/* The default budget, and its unit: a task at min_period_ns fits. */
TEST_F(budget, default_fits_min_period)
{
	unsigned long long min_period, hz;
	int fd = self->f.fd;
	uint64_t id;

	T_OK(dwqt_param("max_rate_per_user", &hz));
	T_OK(dwqt_param("min_period_ns", &min_period));
	T_EQ(dwqt_stats_ok(fd).max_rate_per_user, hz);
	id = dwqt_sched_ok(fd, DWQT_FAR_NS, min_period, DWQ_MODE_FIXED_RATE, 0,
			   1);
	T_EQ(rate(fd), rate_of(min_period));
	T_OK(dwqt_cancel(fd, id, NULL));
	T_EQ(rate(fd), 0);
}

static unsigned long long user_base;

/*
 * With max_tasks_per_user = user_base + 3: three one-shots come due and
 * are not read. Their ids are gone, but they are held: pending says 3,
 * user_tasks says the user is full, and the next schedule is ENOSPC, as
 * STATS predicts; reading frees them.
 */
static void stats_predict(void)
{
	int fd = dwqt_open(O_NONBLOCK), i;
	struct dwq_ioc_stats st;
	struct dwq_event ev[3];

	for (i = 0; i < 3; i++)
		dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, i);
	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		st = dwqt_stats_ok(fd);
		if (st.events == 3)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(st.events, 3);
	T_EQ(st.pending, 3);
	for (i = 0; i < 3; i++)
		T_ERR(query_err(fd, i + 1), ENOENT);
	T_EQ(st.max_tasks_per_user, user_base + 3);
	T_EQ(st.user_tasks, user_base + 3);
	T_EXPECT(st.all_tasks >= st.user_tasks && st.all_tasks < st.max_tasks,
		 "all_tasks %llu, user_tasks %llu, max_tasks %u",
		 (unsigned long long)st.all_tasks,
		 (unsigned long long)st.user_tasks, st.max_tasks);
	T_EXPECT(st.pending < st.max_tasks_per_file, "pending %llu of %u",
		 (unsigned long long)st.pending, st.max_tasks_per_file);
	T_ERR(dwqt_sched(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 9, NULL), ENOSPC);
	T_EQ(read(fd, ev, sizeof(ev)), (ssize_t)sizeof(ev));
	/* A task is charged until its memory goes. */
	st = wait_user_tasks(fd, user_base);
	T_EQ(st.user_tasks, user_base);
	T_EQ(st.pending, 0);
	dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 10);
	close(fd);
}

TEST_F(budget, stats_predict_enospc)
{
	int err;

	user_base = dwqt_stats_ok(self->f.fd).user_tasks;
	err = dwqt_with_param("max_tasks_per_user", user_base + 3,
			      stats_predict);
	if (err)
		t_skip("max_tasks_per_user cannot be set for the case: %s",
		       t_errname(-err));
}

/*
 * Room for exactly one batch among all files, and a process that keeps
 * asking for a batch of 1024 tasks at 100 us each: ten million firings a
 * second, refused by the user's rate budget every time. Meanwhile
 * another file schedules and cancels one one-shot at a time, which STATS
 * says fits. A refused batch must not hold room in all files' count,
 * even for a moment: each of those schedules is taken. The process counts
 * its refused batches, in memory both share: the race ran only if it was
 * refused, many times, while the one-shots were scheduled.
 */
#define RACE_PAIRS 100000
/* Refused batches the race needs at least while the one-shots run. */
#define RACE_MIN_REFUSED 100

static void refused_rate_holds_nothing(void)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	int fa = dwqt_open(0), fb = dwqt_open(0), i, status;
	unsigned int refused = 0, *tries, before, after;
	uint64_t id;
	pid_t pid;
	long err;

	tries = mmap(NULL, sizeof(*tries), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tries == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	*tries = 0;
	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 100000, DWQ_MODE_FIXED_RATE,
				      0, i);
	T_ERR(dwqt_batch(fa, e, DWQ_SCHEDULE_BATCH_MAX, NULL), ENOSPC);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", t_errname(errno));
	if (!pid) {
		for (;;) {
			if (dwqt_batch(fa, e, DWQ_SCHEDULE_BATCH_MAX, NULL) !=
			    -ENOSPC)
				_exit(1);
			__atomic_add_fetch(tries, 1, __ATOMIC_SEQ_CST);
		}
	}
	/* The batches are being refused before the one-shots begin. */
	for (i = 0;
	     i < DWQT_WAIT_MS && !__atomic_load_n(tries, __ATOMIC_SEQ_CST); i++)
		dwqt_sleep_ms(1);
	before = __atomic_load_n(tries, __ATOMIC_SEQ_CST);
	T_EXPECT(before > 0, "no batch refused in %d ms", DWQT_WAIT_MS);
	for (i = 0; i < RACE_PAIRS; i++) {
		err = dwqt_sched(fb, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i,
				 &id);
		if (err) {
			T_ERR(err, ENOSPC);
			refused++;
			continue;
		}
		T_OK(dwqt_cancel(fb, id, NULL));
	}
	after = __atomic_load_n(tries, __ATOMIC_SEQ_CST);
	kill(pid, SIGKILL);
	T_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the refused batches were all ENOSPC (status %#x)", status);
	T_EXPECT(!refused,
		 "%u of %d one-shots refused for room a refused batch held",
		 refused, RACE_PAIRS);
	t_note("%u batches refused during the %d one-shots, %u before",
	       after - before, RACE_PAIRS, before);
	T_EXPECT(after - before >= RACE_MIN_REFUSED,
		 "%u batches refused during the %d one-shots, fewer than %d: no race",
		 after - before, RACE_PAIRS, RACE_MIN_REFUSED);
	munmap(tries, sizeof(*tries));
	close(fa);
	close(fb);
}

/* Write @val to @path: 0 or -errno. */
static int put_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	ssize_t len = strlen(val);

	if (fd < 0)
		return -errno;
	if (write(fd, val, len) != len)
		err = -errno;
	close(fd);
	return err;
}

/*
 * The cases that suspend the whole machine run only when asked:
 * DWQ_TEST_SUSPEND=1, which make check's suspend job in the stock guest
 * sets, as root, with /sys/power/pm_test (CONFIG_PM_DEBUG). Asked, a
 * machine that cannot suspend fails the case: a skip would pass the job
 * with the guarantee untested.
 */
static void suspend_asked(void)
{
	if (!getenv("DWQ_TEST_SUSPEND"))
		t_skip("suspends the machine: only with DWQ_TEST_SUSPEND=1");
	if (access("/sys/power/pm_test", W_OK))
		t_fail("DWQ_TEST_SUSPEND=1 and no writable /sys/power/pm_test: %s",
		       t_errname(errno));
}

/*
 * Suspend the machine and resume it: pm_test "core" suspends the
 * kernel's core and resumes it 5 s later, CLOCK_MONOTONIC standing still
 * meanwhile. Fails unless CLOCK_BOOTTIME gained a second or more on it.
 */
static void suspend_core(void)
{
	uint64_t before = suspended_ns(), after;
	int err;

	T_OK(put_file("/sys/power/pm_test", "core"));
	err = put_file("/sys/power/state", "mem");
	T_OK(put_file("/sys/power/pm_test", "none"));
	T_OK(err);
	after = suspended_ns();
	t_note("suspended %llu ms",
	       (unsigned long long)(after - before) / NSEC_PER_MSEC);
	T_EXPECT(after - before >= NSEC_PER_SEC,
		 "CLOCK_BOOTTIME gained %lld ns on CLOCK_MONOTONIC in the suspend",
		 (long long)(after - before));
}

/*
 * A CLOCK_BOOTTIME task counts time suspended, as a CLOCK_BOOTTIME
 * timerfd does, and an epoll waiter hears of it at the resume. A task due
 * on CLOCK_BOOTTIME 3 s from now is due at the resume of a 5 s suspend:
 * the file is ready then, while a CLOCK_MONOTONIC task due 2 s from now is
 * still queued. (epoll_wait() calls no ->poll() until the file's readers
 * are woken: unlike a blocked poll() or read(), which the freezer wakes
 * and restarts, it sees only what the file's alarm tells it.)
 */
TEST_F(park, boottime_epoll_across_suspend)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct dwq_event e[2];
	struct dwq_ioc_query q;
	int fd = self->f.fd, ep;
	uint64_t boot, mono;

	suspend_asked();
	ep = epoll_create1(EPOLL_CLOEXEC);
	T_EXPECT(ep >= 0, "epoll_create1: %s", t_errname(errno));
	T_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	boot = dwqt_sched_ok(fd, 3 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT,
			     DWQ_SCHED_BOOTTIME, 1);
	mono = dwqt_sched_ok(fd, 2 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT, 0, 2);

	suspend_core();

	T_EQ(epoll_wait(ep, &ev, 1, DWQT_WAIT_MS), 1);
	T_OK(dwqt_query(fd, mono, &q));
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_read_events(fd, e, 2, 0), 1);
	T_EQ(e[0].id, boot);
	T_EQ(e[0].flags, DWQ_EVENT_LAST);
	close(ep);
}

/*
 * A kept event sorts by the clocks as the read() finds them, as every
 * event does: the events of both clocks come out as CLOCK_MONOTONIC
 * times, a CLOCK_BOOTTIME deadline less the time suspended when the
 * read() begins, not when the event was kept. At t on CLOCK_MONOTONIC and
 * b on CLOCK_BOOTTIME, before a suspend of s (1 s or more), four tasks
 * come due, and none is read:
 *
 *   cookie 1: a CLOCK_BOOTTIME one-shot due at b - 20 ms;
 *   cookie 2: a CLOCK_BOOTTIME fixed-rate task due at b - 10 ms,
 *	rescheduled while due, which keeps its event;
 *   cookie 3: a CLOCK_MONOTONIC fixed-rate task due at t - 500 ms, kept
 *	likewise;
 *   cookie 4: a CLOCK_MONOTONIC one-shot due at t - 250 ms.
 *
 * One read() after the resume returns them in cookie order, at t - s -
 * 20 ms, t - s - 10 ms, t - 500 ms and t - 250 ms. Event 2 keyed with
 * the offset between the clocks of when it was kept would sort at
 * t - 10 ms, last. (t is taken 20 s or more after boot, so that t - s -
 * 20 ms is not below 0: order.boottime_before_monotonic_zero is about
 * those.)
 */
TEST_F(park, kept_event_across_suspend)
{
	struct dwq_ioc_schedule e[2];
	int fd = dwqt_open(O_NONBLOCK);
	uint64_t t, b, kb, km, ids[4], before;
	struct dwq_event ev[5]; /* room for one too many */
	ssize_t n;
	size_t i;

	suspend_asked();
	while (dwqt_now() < 20 * NSEC_PER_SEC)
		dwqt_sleep_ms(100);
	before = suspended_ns();
	t = dwqt_now();
	b = dwqt_now_boot();
	e[0] = dwqt_sched_arg(b - 20 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT,
			      DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, 1);
	e[1] = dwqt_sched_arg(t - 250 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT,
			      DWQ_SCHED_ABS, 4);
	kb = dwqt_sched_ok(fd, b - 10 * NSEC_PER_MSEC, DWQT_FAR_NS,
			   DWQ_MODE_FIXED_RATE,
			   DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, 2);
	km = dwqt_sched_ok(fd, t - 500 * NSEC_PER_MSEC, DWQT_FAR_NS,
			   DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 3);
	T_OK(dwqt_batch(fd, e, 2, NULL));
	/* Due at once: each keeps its firing's event, and waits an hour. */
	T_OK(dwqt_resched(fd, kb, DWQT_FAR_NS, 0, 0, 0));
	T_OK(dwqt_resched(fd, km, DWQT_FAR_NS, 0, 0, 0));
	T_EQ(dwqt_stats_ok(fd).events, 4);
	ids[0] = e[0].id;
	ids[1] = kb;
	ids[2] = km;
	ids[3] = e[1].id;

	suspend_core();
	T_EXPECT(suspended_ns() - before < t - 20 * NSEC_PER_MSEC,
		 "suspended %llu ns, t - 20 ms is below 0",
		 (unsigned long long)(suspended_ns() - before));

	n = read(fd, ev, sizeof(ev));
	T_EXPECT(n == (ssize_t)(4 * sizeof(ev[0])),
		 "read %zd bytes (%s), expected 4 events", n,
		 n < 0 ? t_errname(errno) : "bytes");
	for (i = 0; i < 4; i++)
		t_note("event %zu: cookie %llu, deadline %s %+lld ms", i,
		       (unsigned long long)ev[i].cookie,
		       ev[i].cookie < 3 ? "b" : "t",
		       ((long long)ev[i].deadline_ns -
			(long long)(ev[i].cookie < 3 ? b : t)) /
			       (long long)NSEC_PER_MSEC);
	for (i = 0; i < 4; i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == i + 1,
			 "event %zu: cookie %llu, expected %zu", i,
			 (unsigned long long)ev[i].cookie, i + 1);
		T_EQ(ev[i].id, ids[i]);
	}
	close(fd);
}

TEST_F(budget, refused_rate_holds_nothing)
{
	int err;

	err = dwqt_with_param("max_tasks",
			      dwqt_stats_ok(self->f.fd).all_tasks +
				      DWQ_SCHEDULE_BATCH_MAX,
			      refused_rate_holds_nothing);
	if (err)
		t_skip("max_tasks cannot be set for the case: %s",
		       t_errname(-err));
}

TEST_HARNESS_MAIN
