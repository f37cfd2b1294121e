// SPDX-License-Identifier: GPL-2.0
/*
 * Timing at its boundaries, both sides of each: absolute deadlines and
 * periods at max_delay_ns, delays and deadlines at KTIME_MAX once
 * max_delay_ns no longer stops them, a deadline plus its period at
 * KTIME_MAX, and the arithmetic of fixed-rate overruns. (Periods below
 * min_period_ns, delays past max_delay_ns and values past S64_MAX are
 * schedule.min_period, schedule.max_delay, schedule.overflow_no_task and
 * reschedule.errors_leave_task.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dwq_test.h"

FIXTURE(bounds)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(bounds)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(bounds)
{
	dwq_teardown(_metadata, &self->f);
}

/* Slack for the refusals that depend on the time of the call. */
#define SLACK_NS (60 * NSEC_PER_SEC)

static unsigned long long max_delay(void)
{
	unsigned long long max;

	if (dwqt_param("max_delay_ns", &max))
		t_skip("no /sys/module/dwq/parameters/max_delay_ns");
	if (!max || max > (unsigned long long)S64_MAX / 2)
		t_skip("max_delay_ns is %llu: no limit to test", max);
	return max;
}

static long resched_period(int fd, uint64_t id, uint64_t period, uint32_t mode)
{
	return dwqt_resched(fd, id, DWQT_FAR_NS, period, mode,
			    DWQ_RESCHED_PERIOD);
}

/*
 * An absolute deadline max_delay_ns ahead is taken (the module's clock
 * read later can only make it nearer); SLACK_NS further is refused, on
 * either clock, by SCHEDULE and by RESCHEDULE alike.
 */
TEST_F(bounds, abs_deadline_max_delay)
{
	static const uint32_t clocks[] = { 0, DWQ_SCHED_BOOTTIME };
	unsigned long long max = max_delay();
	int fd = self->f.fd;
	uint64_t t0, t1, id;
	struct dwq_ioc_query q;
	size_t i;
	long r;

	for (i = 0; i < ARRAY_SIZE(clocks); i++) {
		uint32_t flags = DWQ_SCHED_ABS | clocks[i];
		uint64_t (*now)(void) = clocks[i] ? dwqt_now_boot : dwqt_now;

		t0 = now();
		id = dwqt_sched_ok(fd, t0 + max, 0, DWQ_MODE_ONESHOT, flags, i);
		q = dwqt_query_ok(fd, id);
		T_EQ(q.deadline_ns, t0 + max);
		T_OK(dwqt_resched(fd, id, now() + max, 0, 0, flags));
		t0 = now();
		r = dwqt_sched(fd, t0 + max + SLACK_NS, 0, DWQ_MODE_ONESHOT,
			       flags, i, NULL);
		t1 = now();
		if (t1 - t0 < SLACK_NS)
			T_ERR(r, EINVAL);
		t0 = now();
		r = dwqt_resched(fd, id, t0 + max + SLACK_NS, 0, 0, flags);
		t1 = now();
		if (t1 - t0 < SLACK_NS)
			T_ERR(r, EINVAL);
		T_EQ(dwqt_stats_ok(fd).pending, i + 1);
	}
}

/*
 * A period of max_delay_ns is taken, one more refused, in both periodic
 * modes, by SCHEDULE and by RESCHEDULE; and min_period_ns is taken by
 * RESCHEDULE (SCHEDULE's is schedule.min_period).
 */
TEST_F(bounds, period_max_delay)
{
	unsigned long long max = max_delay(), min;
	int fd = self->f.fd;
	uint64_t id;
	uint32_t m;

	if (dwqt_param("min_period_ns", &min))
		t_skip("no /sys/module/dwq/parameters/min_period_ns");
	for (m = DWQ_MODE_FIXED_RATE; m <= DWQ_MODE_FIXED_DELAY; m++) {
		T_ERR(dwqt_sched(fd, DWQT_FAR_NS, max + 1, m, 0, 0, NULL),
		      EINVAL);
		id = dwqt_sched_ok(fd, DWQT_FAR_NS, max, m, 0, 0);
		T_EQ(dwqt_query_ok(fd, id).period_ns, max);
		T_ERR(resched_period(fd, id, max + 1, m), EINVAL);
		T_ERR(resched_period(fd, id, min - 1, m), EINVAL);
		T_EQ(dwqt_query_ok(fd, id).period_ns, max);
		T_OK(resched_period(fd, id, min, m));
		T_EQ(dwqt_query_ok(fd, id).period_ns, min);
		T_OK(resched_period(fd, id, max, m));
		T_EQ(dwqt_query_ok(fd, id).period_ns, max);
	}
	/* RESCHEDULE's delay: max_delay_ns taken, one more refused. */
	T_OK(dwqt_resched(fd, id, max, 0, 0, 0));
	T_ERR(dwqt_resched(fd, id, max + 1, 0, 0, 0), EINVAL);
	T_EQ(dwqt_stats_ok(fd).pending, 2);
}

/* With max_delay_ns out of the way: the engine's own limit, KTIME_MAX. */
static void ktime_max_bounds(void)
{
	const uint64_t p = NSEC_PER_SEC;
	int fd = dwqt_open(0);
	uint64_t t0, t1, id;
	struct dwq_ioc_query q;

	/* A delay ending past KTIME_MAX is refused, whenever it is made. */
	t0 = dwqt_now();
	T_ERR(dwqt_sched(fd, S64_MAX - t0 + 1, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      EINVAL);
	/* One ending an hour short of it is taken. */
	id = dwqt_sched_ok(fd, S64_MAX - t0 - DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
			   0, 1);
	q = dwqt_query_ok(fd, id);
	T_EXPECT((q.deadline_ns <= (uint64_t)S64_MAX &&
		  q.deadline_ns >= (uint64_t)S64_MAX - DWQT_FAR_NS),
		 "deadline %llu", (unsigned long long)q.deadline_ns);
	/* The deadline KTIME_MAX is taken, one more is not. */
	id = dwqt_sched_ok(fd, S64_MAX, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 2);
	T_EQ(dwqt_query_ok(fd, id).deadline_ns, S64_MAX);
	T_ERR(dwqt_sched(fd, (uint64_t)S64_MAX + 1, 0, DWQ_MODE_ONESHOT,
			 DWQ_SCHED_ABS, 0, NULL),
	      EINVAL);
	/* A periodic task's first deadline plus its period fits, exactly. */
	id = dwqt_sched_ok(fd, S64_MAX - p, p, DWQ_MODE_FIXED_RATE,
			   DWQ_SCHED_ABS, 3);
	T_EQ(dwqt_query_ok(fd, id).deadline_ns, S64_MAX - p);
	T_ERR(dwqt_sched(fd, S64_MAX - p + 1, p, DWQ_MODE_FIXED_RATE,
			 DWQ_SCHED_ABS, 0, NULL),
	      EINVAL);
	T_ERR(dwqt_sched(fd, S64_MAX, p, DWQ_MODE_FIXED_DELAY, DWQ_SCHED_ABS, 0,
			 NULL),
	      EINVAL);
	/* The same through RESCHEDULE; a refusal leaves the task as it was. */
	T_ERR(dwqt_resched(fd, id, S64_MAX - p + 1, 0, 0, DWQ_SCHED_ABS),
	      EINVAL);
	T_EQ(dwqt_query_ok(fd, id).deadline_ns, S64_MAX - p);
	T_OK(dwqt_resched(fd, id, S64_MAX - 2 * p, 0, 0, DWQ_SCHED_ABS));
	T_EQ(dwqt_query_ok(fd, id).deadline_ns, S64_MAX - 2 * p);
	/* The period KTIME_MAX, from deadline 0, fits; one more does not. */
	T_ERR(dwqt_sched(fd, 0, (uint64_t)S64_MAX + 1, DWQ_MODE_FIXED_RATE,
			 DWQ_SCHED_ABS, 0, NULL),
	      EINVAL);
	T_ERR(dwqt_sched(fd, 1, S64_MAX, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 0,
			 NULL),
	      EINVAL);
	id = dwqt_sched_ok(fd, 0, S64_MAX, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS,
			   4);
	/*
	 * It fires at once; its next deadline is KTIME_MAX itself (0 plus
	 * one period: none was skipped), where it waits, queued.
	 */
	T_EQ(dwqt_read_one(fd).id, id);
	t0 = dwqt_now();
	q = dwqt_query_ok(fd, id);
	t1 = dwqt_now();
	T_EQ(q.period_ns, S64_MAX);
	T_EQ(q.deadline_ns, S64_MAX);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.runs, 1);
	T_EQ(q.skipped, 0);
	/* Its remaining time: KTIME_MAX less the QUERY's moment. */
	t0 = S64_MAX - t0;
	t1 = S64_MAX - t1;
	T_EXPECT(q.remaining_ns >= t1 && q.remaining_ns <= t0,
		 "remaining %llu, not in [%llu, %llu]",
		 (unsigned long long)q.remaining_ns, (unsigned long long)t1,
		 (unsigned long long)t0);
	T_EQ(dwqt_stats_ok(fd).pending, 4);
}

TEST_F(bounds, ktime_max)
{
	int err = dwqt_with_param("max_delay_ns", U64_MAX, ktime_max_bounds);

	if (err)
		t_skip("max_delay_ns cannot be raised for the case: %s",
		       t_errname(-err));
}

/*
 * Fixed rate from a deadline long past: the missed periods are counted,
 * not replayed, and the arithmetic is exact: every deadline is the first
 * plus a whole number of periods, that number being the firings and the
 * periods skipped so far. A /dev/dwq task fires in read(), so it never
 * misses a period while queued: @overruns is 0 in every event and in
 * QUERY, and all it missed is in @skipped.
 */
TEST_F(bounds, fixed_rate_overrun_arithmetic)
{
	const uint64_t p = NSEC_PER_SEC / 4, d0 = 1;
	int fd = self->f.fd, n = 0;
	uint64_t counted = 0, skipped = 0, prev_fired = 0, id;
	struct dwq_event ev;
	struct dwq_ioc_query q;

	id = dwqt_sched_ok(fd, d0, p, DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 5);
	while (n < 3) {
		ev = dwqt_read_one(fd);
		dwqt_check_event(&ev);
		T_EQ(ev.id, id);
		T_EQ(ev.flags & DWQ_EVENT_LAST, 0);
		T_EQ(ev.overruns, 0);
		counted++;
		T_EQ(ev.deadline_ns, d0 + (counted - 1) * p);
		T_EXPECT(ev.fired_ns >= ev.deadline_ns,
			 "fired %llu before its deadline %llu",
			 (unsigned long long)ev.fired_ns,
			 (unsigned long long)ev.deadline_ns);
		/* Skipped, not replayed: no deadline before the last firing. */
		T_EXPECT(ev.deadline_ns > prev_fired,
			 "deadline %llu, yet a firing at %llu came before",
			 (unsigned long long)ev.deadline_ns,
			 (unsigned long long)prev_fired);
		/* Exactly the periods that passed before it fired. */
		T_EQ(ev.skipped, (ev.fired_ns - ev.deadline_ns) / p);
		prev_fired = ev.fired_ns;
		/* The periods that passed while it was unread come after it. */
		counted += ev.skipped;
		skipped += ev.skipped;
		n++;
	}
	t_note("first deadline %llu ns, %llu periods of %llu ns counted",
	       (unsigned long long)d0, (unsigned long long)counted,
	       (unsigned long long)p);
	/* The first deadline was at boot, periods ago: some were skipped. */
	T_EXPECT(skipped > 0, "no period skipped since %llu ns",
		 (unsigned long long)d0);
	/* Its next deadline is the one after those, due or not yet. */
	q = dwqt_query_ok(fd, id);
	T_EQ(q.deadline_ns, d0 + counted * p);
	T_EQ(q.runs, n);
	T_EQ(q.skipped, skipped);
	T_EQ(q.overruns, 0);
}

TEST_HARNESS_MAIN
