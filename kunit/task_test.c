// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for dwq tasks: periodic modes (fixed-rate phase and overrun
 * coalescing, fixed-delay spacing, never concurrent with itself), cancel
 * and its race with firing, cancel_sync, reschedule, query and reference
 * counting.
 *
 * These run under QEMU TCG with KASAN and lockdep: times are generous and
 * the assertions are on counts and orders, not on tight latencies. No case
 * sleeps for a guessed time: each waits for the state it needs (a
 * completion its callback sets, a task's state, or a later task having
 * run, which the queue's own clock orders), with a timeout that only
 * bounds a failure.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <kunit/test.h>

#include "dwq_internal.h"
#include "wait.h"

#define TT_RUNS 8

/* A task that records each of its first TT_RUNS runs. */
struct tt_probe {
	struct dwq_task task;
	atomic_t runs;
	u64 start[TT_RUNS];
	u64 end[TT_RUNS];
	u64 deadline[TT_RUNS];
	u64 overruns[TT_RUNS];
	bool boottime[TT_RUNS]; /* dwq_task_run_boottime() on exit */
	bool oneshot[TT_RUNS]; /* dwq_task_run_oneshot() on exit */
	int order;
	atomic_t *seq; /* stamps @order */
	struct completion *gate; /* wait for it in run @gate_run */
	int gate_run;
	struct completion hold; /* a gate, see tt_gate() */
	bool until_canceling; /* hold run 0 until a cancel_sync waits... */
	bool canceling_seen; /* ...note that one did... */
	bool sync_returned; /* ...and whether it returned before we did */
	bool sync_returned_seen;
	struct completion started; /* each run, on entry */
	struct completion ran; /* each run, on exit */
	int want; /* complete @enough after this many runs */
	struct completion enough;
	atomic_t inflight;
	atomic_t max_inflight;
	int (*self)(struct dwq_task *task); /* call on itself... */
	int self_ret; /* ...and keep the result */
	atomic_t released;
};

static void tt_probe_fn(struct dwq_task *task)
{
	struct tt_probe *p = container_of(task, struct tt_probe, task);
	int k = atomic_read(&p->runs), n, max;

	n = atomic_inc_return(&p->inflight);
	max = atomic_read(&p->max_inflight);
	while (n > max && !atomic_try_cmpxchg(&p->max_inflight, &max, n))
		;
	if (k < TT_RUNS) {
		p->start[k] = ktime_get_ns();
		p->deadline[k] = dwq_task_run_deadline(task);
		p->overruns[k] = dwq_task_run_overruns(task);
	}
	if (p->seq)
		p->order = atomic_inc_return(p->seq);
	complete(&p->started);
	if (p->gate && k == p->gate_run)
		wait_for_completion_timeout(p->gate, msecs_to_jiffies(GATE_MS));
	if (p->until_canceling && !k)
		p->canceling_seen =
			dwq_kunit_poll_ms(READ_ONCE(task->canceling), GATE_MS);
	if (p->self)
		p->self_ret = p->self(task);
	if (k < TT_RUNS) {
		p->end[k] = ktime_get_ns();
		p->boottime[k] = dwq_task_run_boottime(task);
		p->oneshot[k] = dwq_task_run_oneshot(task);
	}
	p->sync_returned_seen = READ_ONCE(p->sync_returned);
	atomic_dec(&p->inflight);
	atomic_inc(&p->runs);
	if (k + 1 == p->want)
		complete(&p->enough);
	complete(&p->ran);
}

static void tt_probe_release(struct dwq_task *task)
{
	struct tt_probe *p = container_of(task, struct tt_probe, task);

	atomic_inc(&p->released);
}

KUNIT_DEFINE_ACTION_WRAPPER(tt_kvfree, kvfree, const void *);

/* @n probes, freed when the test ends (after the queue, made later). */
static struct tt_probe *tt_probes(struct kunit *test, unsigned int n)
{
	struct tt_probe *p;
	unsigned int i;

	p = kvcalloc(n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tt_kvfree, p), 0);
	for (i = 0; i < n; i++) {
		dwq_task_init(&p[i].task, tt_probe_fn, tt_probe_release);
		init_completion(&p[i].started);
		init_completion(&p[i].ran);
		init_completion(&p[i].enough);
		p[i].gate_run = -1;
	}
	return p;
}

static void tt_destroy(void *q)
{
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
}

/* A queue destroyed when the test ends, even if it fails half-way. */
static struct dwq_queue *tt_queue(struct kunit *test, unsigned int workers)
{
	struct dwq_queue *q;

	q = dwq_queue_create("kunit", workers, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tt_destroy, q),
			0);
	/* Scheduling never allocates: room for every case's tasks. */
	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, 10000), 0);
	return q;
}

static int tt_sched(struct dwq_queue *q, struct tt_probe *p, u64 delay,
		    u32 mode, u64 period)
{
	struct dwq_sched s = {
		.time_ns = delay,
		.mode = mode,
		.period_ns = period,
	};

	return dwq_schedule(q, &p->task, &s);
}

/*
 * Hold run @run of @p until the test completes the gate returned. The gate
 * lives in @p, freed after the queue: a failed assertion that ends the
 * test with a callback still held does not free it under that callback.
 */
static struct completion *tt_gate(struct tt_probe *p, int run)
{
	init_completion(&p->hold);
	p->gate = &p->hold;
	p->gate_run = run;
	return &p->hold;
}

static void tt_wait(struct kunit *test, struct completion *c)
{
	unsigned long left;

	left = wait_for_completion_timeout(c, msecs_to_jiffies(TIMEOUT_MS));
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "timed out");
}

KUNIT_DEFINE_ACTION_WRAPPER(tt_open, complete_all, struct completion *);

/*
 * Hold @q's only worker in @hold's callback until the test completes the
 * gate returned: the tasks queued meanwhile stay queued, however slowly
 * the guest runs the test, and run in their order once it opens. Should
 * an assertion end the test first, the gate opens before the queue goes.
 */
static struct completion *tt_hold(struct kunit *test, struct dwq_queue *q,
				  struct tt_probe *hold)
{
	struct completion *gate = tt_gate(hold, 0);

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, tt_open, gate),
			0);
	KUNIT_ASSERT_EQ(test, tt_sched(q, hold, 0, DWQ_MODE_ONESHOT, 0), 0);
	tt_wait(test, &hold->started);
	return gate;
}

static u32 tt_state(struct tt_probe *p)
{
	struct dwq_task_info info;

	dwq_query(&p->task, &info);
	return info.state;
}

/*
 * Wait until the queue has let go of @p: neither queued nor running, so
 * nothing can run it again until the test schedules it, and its reference
 * dropped, which the worker does after unlocking, so even after
 * dwq_cancel_sync() returned. (@p->ran completes inside the callback,
 * before its worker ends the run.) Only for a probe the test holds one
 * reference to.
 */
static bool tt_unbound(struct tt_probe *p)
{
	u32 state = tt_state(p);

	return state != DWQ_STATE_QUEUED && state != DWQ_STATE_RUNNING &&
	       kref_read(&p->task.ref) == 1;
}

static void tt_wait_unbound(struct kunit *test, struct tt_probe *p)
{
	dwq_kunit_wait_until(test, tt_unbound(p));
}

/*
 * Wait until @q has run @marker, scheduled @delay from now: the queue's
 * clock has then passed that deadline, and every task queued with an
 * earlier deadline has been taken (the heap is in deadline order). The witness for "long
 * enough" where a check is about the passing of time.
 */
static void tt_wait_past(struct kunit *test, struct dwq_queue *q,
			 struct tt_probe *marker, u64 delay)
{
	KUNIT_ASSERT_EQ(test, tt_sched(q, marker, delay, DWQ_MODE_ONESHOT, 0),
			0);
	tt_wait(test, &marker->ran);
}

/* --- periodic --- */

/*
 * Fixed rate keeps its phase: run k is due at first + k * period exactly
 * (plus any coalesced periods), and never starts before that. How late it
 * starts is the host's: a worker preempted between taking a run and
 * calling it may start it a period late or more, so that is only shown.
 */
static void dwq_task_periodic_test_fixed_rate_phase(struct kunit *test)
{
	const u64 period = 100 * MS;
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 2);
	u64 skipped = 0;
	int k;

	p->want = 6;
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, p, period, DWQ_MODE_FIXED_RATE, period), 0);
	tt_wait(test, &p->enough);
	KUNIT_EXPECT_NE(test, dwq_cancel_sync(&p->task), DWQ_RESULT_IDLE);
	for (k = 0; k < 6; k++) {
		skipped += p->overruns[k];
		KUNIT_EXPECT_EQ(test, p->deadline[k],
				p->deadline[0] + (k + skipped) * period);
		KUNIT_EXPECT_GE(test, p->start[k], p->deadline[k]);
	}
	kunit_info(test, "lateness of run 5: %llu us\n",
		   (p->start[5] - p->deadline[5]) / NSEC_PER_USEC);
}

/*
 * A fixed-rate callback that overruns by more than three periods is taken
 * again at once, for the latest deadline of its series that has passed,
 * with the ones before it coalesced into that run's overrun count: one
 * run, not a burst of catch-up runs. Run 0 is held until a task due 75 ms
 * after it began has run, so it ends past 3.75 periods: at least three
 * deadlines have passed, the last of them is run 1's, and at least two
 * are coalesced into it.
 */
static void dwq_task_periodic_test_fixed_rate_overrun(struct kunit *test)
{
	const u64 period = 20 * MS;
	struct tt_probe *p = tt_probes(test, 2);
	struct dwq_queue *q = tt_queue(test, 2);
	struct completion *gate;
	u64 ov;

	gate = tt_gate(p, 0);
	p->want = 2;
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, p, period, DWQ_MODE_FIXED_RATE, period), 0);
	tt_wait(test, &p->started);
	tt_wait_past(test, q, &p[1], 75 * MS);
	complete(gate);
	tt_wait(test, &p->enough);
	KUNIT_EXPECT_NE(test, dwq_cancel_sync(&p->task), DWQ_RESULT_IDLE);

	ov = p->overruns[1];
	kunit_info(test, "run held 75 ms, 20 ms period: %llu overruns\n", ov);
	/*
	 * Run 0 coalesces too if it was taken more than a period late (a
	 * slow guest); either way it never starts before its deadline.
	 */
	KUNIT_EXPECT_GE(test, p->start[0], p->deadline[0]);
	KUNIT_EXPECT_GE(test, ov, 2ULL);
	KUNIT_EXPECT_EQ(test, p->deadline[1],
			p->deadline[0] + (1 + ov) * period);
	/*
	 * The latest deadline passed when it was taken, after run 0 ended:
	 * the next one had not passed by then.
	 */
	KUNIT_EXPECT_GT(test, p->deadline[1] + period, p->end[0]);
	KUNIT_EXPECT_GE(test, p->start[1], p->deadline[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->max_inflight), 1);
}

/*
 * Fixed delay: each run starts at least one period after the last ended.
 * Run 0 is held until a task due 20 ms after it began has run, so that
 * its end is well apart from its deadline (where fixed rate would count
 * from).
 */
static void dwq_task_periodic_test_fixed_delay_spacing(struct kunit *test)
{
	const u64 period = 30 * MS;
	struct tt_probe *p = tt_probes(test, 2);
	struct dwq_queue *q = tt_queue(test, 2);
	struct completion *gate;
	int k;

	gate = tt_gate(p, 0);
	p->want = 4;
	KUNIT_ASSERT_EQ(test, tt_sched(q, p, 0, DWQ_MODE_FIXED_DELAY, period),
			0);
	tt_wait(test, &p->started);
	tt_wait_past(test, q, &p[1], 20 * MS);
	complete(gate);
	tt_wait(test, &p->enough);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p->task), 0);
	for (k = 1; k < 4; k++) {
		KUNIT_EXPECT_GE(test, p->deadline[k], p->end[k - 1] + period);
		KUNIT_EXPECT_GE(test, p->start[k], p->end[k - 1] + period);
		KUNIT_EXPECT_EQ(test, p->overruns[k], 0ULL);
	}
}

/*
 * A periodic task never runs concurrently with itself, even with idle
 * workers and a period much shorter than its callback: each is held in
 * its first run while two idle workers run a task due 5 ms later (many
 * periods on), which they take only after any earlier one, and neither
 * was taken again meanwhile.
 */
static void dwq_task_periodic_test_never_concurrent(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 3);
	struct dwq_queue *q = tt_queue(test, 4);
	struct dwq_task_info info;
	struct completion *gate;
	int k;

	gate = tt_gate(&p[0], 0);
	p[1].gate = gate;
	p[1].gate_run = 0;
	for (k = 0; k < 2; k++)
		p[k].want = 10;
	KUNIT_ASSERT_EQ(test, tt_sched(q, &p[0], 0, DWQ_MODE_FIXED_RATE, MS),
			0);
	KUNIT_ASSERT_EQ(test, tt_sched(q, &p[1], 0, DWQ_MODE_FIXED_DELAY, 1000),
			0);
	tt_wait(test, &p[0].started);
	tt_wait(test, &p[1].started);
	tt_wait_past(test, q, &p[2], 5 * MS);
	for (k = 0; k < 2; k++) {
		dwq_query(&p[k].task, &info);
		KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_RUNNING);
		/* Still in its first run: none has ended. */
		KUNIT_EXPECT_EQ(test, atomic_read(&p[k].runs), 0);
	}
	complete_all(gate);
	tt_wait(test, &p[0].enough);
	tt_wait(test, &p[1].enough);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[0].task), 0);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[1].task), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].max_inflight), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].max_inflight), 1);
	/* Its second run coalesced the periods its first one overran. */
	KUNIT_EXPECT_GT(test, p[0].overruns[1], 0ULL);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
}

/* Cancelling a running periodic task: RUNNING, and it does not come back. */
static void dwq_task_periodic_test_cancel_running(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 2);
	struct completion *gate;
	struct dwq_task_info info;

	gate = tt_gate(p, 1);
	KUNIT_ASSERT_EQ(test, tt_sched(q, p, 0, DWQ_MODE_FIXED_RATE, 10 * MS),
			0);
	tt_wait(test, &p->started);
	tt_wait(test, &p->started); /* run 1, held at the gate */
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_RUNNING);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_RUNNING);
	complete(gate);
	/* Let go of: not queued again, so it cannot run again. */
	tt_wait_unbound(test, p);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 2);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_IDLE);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
}

/*
 * A periodic task made one-shot during a run, then cancelled before that
 * run returns: the run stays periodic (no one-shot run happened), the
 * cancel stopped the task, so it ends CANCELLED, as any periodic task
 * cancelled while running, and never runs again.
 */
static void dwq_task_periodic_test_made_oneshot_cancelled(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_sched s = {
		.time_ns = 10 * MS,
		.mode = DWQ_MODE_ONESHOT,
		.flags = DWQ_RESCHED_PERIOD,
	};
	struct dwq_task_info info;
	struct completion *gate;
	int ret;

	gate = tt_gate(p, 0);
	KUNIT_ASSERT_EQ(test, tt_sched(q, p, 0, DWQ_MODE_FIXED_RATE, 10 * MS),
			0);
	tt_wait(test, &p->started);
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p->task, &s), 0);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_RUNNING);
	complete(gate);
	/*
	 * @ran completes inside the callback, before the worker ends the
	 * run: waiting on it would race. cancel_sync waits for the run.
	 */
	ret = dwq_cancel_sync(&p->task);
	KUNIT_EXPECT_TRUE(test,
			  ret == DWQ_RESULT_RUNNING || ret == DWQ_RESULT_IDLE);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_ONESHOT);
	KUNIT_EXPECT_FALSE(test, p->oneshot[0]);
	/* CANCELLED: let go of, so this stays true. */
	tt_wait_unbound(test, p);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 1);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
}

/*
 * Rescheduling a running periodic task sets its next deadline; fixed rate
 * then keeps the new phase. A running one-shot cannot be rescheduled.
 */
static void dwq_task_periodic_test_reschedule_running(struct kunit *test)
{
	const u64 period = 50 * MS;
	struct tt_probe *p = tt_probes(test, 2);
	struct dwq_queue *q = tt_queue(test, 2);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS };
	struct completion *gate;

	gate = tt_gate(&p[0], 0);
	p[0].want = 3;
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, &p[0], 0, DWQ_MODE_FIXED_RATE, period), 0);
	tt_wait(test, &p[0].started);
	s.time_ns = ktime_get_ns() + 300 * MS;
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p[0].task, &s), 0);
	complete(gate);
	tt_wait(test, &p[0].enough);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[0].task), 0);
	/*
	 * The new phase; a run taken a period or more late (a slow guest)
	 * runs for the latest deadline passed, counting the ones before it.
	 */
	KUNIT_EXPECT_EQ(test, p[0].deadline[1],
			s.time_ns + p[0].overruns[1] * period);
	KUNIT_EXPECT_EQ(test, p[0].deadline[2],
			p[0].deadline[1] + (1 + p[0].overruns[2]) * period);

	gate = tt_gate(&p[1], 0);
	KUNIT_ASSERT_EQ(test, tt_sched(q, &p[1], 0, DWQ_MODE_ONESHOT, 0), 0);
	tt_wait(test, &p[1].started);
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p[1].task, &s), -ENOENT);
	complete(gate);
	tt_wait(test, &p[1].ran);
}

/*
 * A run stays on the clock it was taken on: rescheduled to CLOCK_MONOTONIC
 * during its callback, a CLOCK_BOOTTIME task's run still reports its
 * deadline's clock as boottime (dev.c stamps the event's fired_ns on it);
 * the next run is monotonic.
 */
static void dwq_task_periodic_test_reschedule_clock(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_sched s = {
		.mode = DWQ_MODE_FIXED_DELAY,
		.period_ns = 10 * MS,
		.flags = DWQ_SCHED_BOOTTIME,
	};
	struct dwq_sched mono = { .time_ns = 20 * MS };
	struct completion *gate;
	u64 t;

	gate = tt_gate(p, 0);
	p->want = 2;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	tt_wait(test, &p->started);
	t = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p->task, &mono), 0);
	complete(gate);
	tt_wait(test, &p->enough);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p->task), 0);
	KUNIT_EXPECT_TRUE(test, p->boottime[0]);
	KUNIT_EXPECT_FALSE(test, p->boottime[1]);
	KUNIT_EXPECT_GE(test, p->deadline[1], t + 20 * MS);
}

/* DWQ_RESCHED_PERIOD changes the period of a queued periodic task. */
static void dwq_task_periodic_test_set_period(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 2);
	struct dwq_sched s = {
		.time_ns = 50 * MS,
		.mode = DWQ_MODE_FIXED_RATE,
		.period_ns = 80 * MS,
		.flags = DWQ_RESCHED_PERIOD,
	};
	struct dwq_task_info info;

	p->want = 3;
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, p, 3600ULL * NSEC_PER_SEC,
				 DWQ_MODE_FIXED_DELAY, 10 * MS),
			0);
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p->task, &s), 0);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_FIXED_RATE);
	KUNIT_EXPECT_EQ(test, info.period_ns, 80 * MS);
	KUNIT_EXPECT_LE(test, info.remaining_ns, 50 * MS);
	tt_wait(test, &p->enough);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p->task), 0);
	KUNIT_EXPECT_EQ(test, p->deadline[1] - p->deadline[0],
			(1 + p->overruns[1]) * 80 * MS);
	KUNIT_EXPECT_EQ(test, p->deadline[2] - p->deadline[1],
			(1 + p->overruns[2]) * 80 * MS);

	/* A bad mode is refused with DWQ_RESCHED_PERIOD, ignored without. */
	s.mode = 9;
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p->task, &s), -EINVAL);
	s.flags = 0;
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p->task, &s), -ENOENT);
	s.flags = 0x40;
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p->task, &s), -EINVAL);
}

static struct kunit_case dwq_task_periodic_test_cases[] = {
	KUNIT_CASE(dwq_task_periodic_test_fixed_rate_phase),
	KUNIT_CASE(dwq_task_periodic_test_fixed_rate_overrun),
	KUNIT_CASE(dwq_task_periodic_test_fixed_delay_spacing),
	KUNIT_CASE(dwq_task_periodic_test_never_concurrent),
	KUNIT_CASE(dwq_task_periodic_test_cancel_running),
	KUNIT_CASE(dwq_task_periodic_test_made_oneshot_cancelled),
	KUNIT_CASE(dwq_task_periodic_test_reschedule_running),
	KUNIT_CASE(dwq_task_periodic_test_set_period),
	KUNIT_CASE(dwq_task_periodic_test_reschedule_clock),
	{}
};

static struct kunit_suite dwq_task_periodic_test_suite = {
	.name = "dwq_task_periodic",
	.test_cases = dwq_task_periodic_test_cases,
};

/* --- cancel, cancel_sync, reschedule, query, references --- */

/*
 * Cancelling a queued task removes it at once; its callback never runs.
 * The worker is held meanwhile: p[1], due in 200 ms, is still queued at
 * the cancel however long the guest takes to get there.
 */
static void dwq_task_cancel_test_queued(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 4);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_queue_stats st;
	struct dwq_task_info info;
	struct completion *gate;
	int i;

	gate = tt_hold(test, q, &p[3]);
	for (i = 0; i < 3; i++)
		KUNIT_ASSERT_EQ(test,
				tt_sched(q, &p[i], (i + 1) * 100 * MS,
					 DWQ_MODE_ONESHOT, 0),
				0);
	KUNIT_EXPECT_EQ(test, kref_read(&p[1].task.ref), 2U);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[1].task), DWQ_RESULT_REMOVED);
	dwq_queue_get_stats(q, &st);
	KUNIT_EXPECT_EQ(test, st.size, 2U);
	dwq_query(&p[1].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, p[1].task.node.index, -1);
	KUNIT_EXPECT_EQ(test, kref_read(&p[1].task.ref), 1U);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[1].task), DWQ_RESULT_IDLE);

	complete(gate);
	tt_wait(test, &p[0].ran);
	/* p[2] was due after p[1]: the queue is past p[1]'s deadline. */
	tt_wait(test, &p[2].ran);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[2].runs), 1);
}

/* Cancelling a task that is not queued says so, and changes nothing. */
static void dwq_task_cancel_test_idle(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);

	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_IDLE);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p->task), DWQ_RESULT_IDLE);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->released), 0);
}

/* A running one-shot cannot be stopped: RUNNING, and it completes. */
static void dwq_task_cancel_test_running_oneshot(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 1);
	struct completion *gate;
	struct dwq_task_info info;

	gate = tt_gate(p, 0);
	KUNIT_ASSERT_EQ(test, tt_sched(q, p, 0, DWQ_MODE_ONESHOT, 0), 0);
	tt_wait(test, &p->started);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_RUNNING);
	complete(gate);
	tt_wait_unbound(test, p);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 1);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_IDLE);
}

/*
 * dwq_cancel_batch() answers each task as dwq_cancel() would: queued on
 * its queue (removed under one lock hold), running, idle, NULL, the same
 * task again (gone by then), and one queued on another queue (cancelled
 * one by one); every reference the queues held is dropped.
 */
static void dwq_task_cancel_test_batch(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 4);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_queue *q2 = tt_queue(test, 1);
	struct dwq_task *tasks[] = {
		&p[0].task, &p[1].task, &p[2].task,
		NULL,	    &p[0].task, &p[3].task,
	};
	static const int want[] = {
		DWQ_RESULT_REMOVED, DWQ_RESULT_RUNNING, DWQ_RESULT_IDLE,
		DWQ_RESULT_IDLE,    DWQ_RESULT_IDLE,	DWQ_RESULT_REMOVED,
	};
	int ret[ARRAY_SIZE(tasks)];
	struct dwq_queue_stats st;
	struct dwq_task_info info;
	struct completion *gate;
	unsigned int i;

	/* The far ones first: no assertion may fail while p[1] is held. */
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, &p[0], 10000 * MS, DWQ_MODE_ONESHOT, 0), 0);
	KUNIT_ASSERT_EQ(test,
			tt_sched(q2, &p[3], 10000 * MS, DWQ_MODE_ONESHOT, 0),
			0);
	gate = tt_gate(&p[1], 0);
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, &p[1], 0, DWQ_MODE_FIXED_RATE, 10 * MS), 0);
	tt_wait(test, &p[1].started);

	dwq_cancel_batch(q, tasks, ARRAY_SIZE(tasks), ret);
	for (i = 0; i < ARRAY_SIZE(tasks); i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], want[i], "entry %u", i);
	dwq_queue_get_stats(q, &st);
	KUNIT_EXPECT_EQ(test, st.size, 0U);
	dwq_queue_get_stats(q2, &st);
	KUNIT_EXPECT_EQ(test, st.size, 0U);
	for (i = 0; i < 4; i += 3) {
		dwq_query(&p[i].task, &info);
		KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
		KUNIT_EXPECT_EQ(test, kref_read(&p[i].task.ref), 1U);
	}

	complete(gate);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[1].task), 0);
	dwq_query(&p[1].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
	/* All three let go of: these counts are final. */
	tt_wait_unbound(test, &p[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 1);
	KUNIT_EXPECT_EQ(test, kref_read(&p[1].task.ref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs) + atomic_read(&p[3].runs),
			0);
}

struct tt_race {
	struct tt_probe *p;
	int *result;
	unsigned int n;
	atomic_t scheduled;
	struct completion done;
};

/* Cancel each task as soon as it has been scheduled. */
static int tt_race_canceller(void *arg)
{
	struct tt_race *r = arg;
	unsigned int i;

	for (i = 0; i < r->n; i++) {
		while (atomic_read_acquire(&r->scheduled) <= i)
			cond_resched();
		if (i % 3)
			udelay(i % 7 * 5);
		r->result[i] = dwq_cancel(&r->p[i].task);
	}
	complete(&r->done);
	return 0;
}

/*
 * 10k tasks with tiny delays, cancelled from another thread as they fire:
 * each ends exactly once, as run or as cancelled, and cancel's return
 * value says which.
 */
static void dwq_task_cancel_test_race_10k(struct kunit *test)
{
	const unsigned int n = 10000;
	struct dwq_queue *q;
	unsigned int i, removed = 0, running = 0, idle = 0, ran = 0;
	struct task_struct *thread;
	unsigned long left;
	struct tt_race *r;

	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	r->result = kunit_kcalloc(test, n, sizeof(*r->result), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->result);
	r->p = tt_probes(test, n);
	r->n = n;
	init_completion(&r->done);
	/* Made after the probes, so destroyed before they are freed. */
	q = tt_queue(test, 2);

	thread = kthread_run(tt_race_canceller, r, "dwq-kunit-cancel");
	KUNIT_ASSERT_FALSE(test, IS_ERR(thread));
	for (i = 0; i < n; i++) {
		if (tt_sched(q, &r->p[i], (i % 8) * 20 * NSEC_PER_USEC,
			     DWQ_MODE_ONESHOT, 0)) {
			KUNIT_FAIL(test, "schedule %u failed", i);
			break;
		}
		atomic_set_release(&r->scheduled, i + 1);
	}
	atomic_set_release(&r->scheduled, n);
	left = wait_for_completion_timeout(&r->done, msecs_to_jiffies(60000));
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "canceller did not finish");

	/* Let callbacks that were running finish, and the queue let go. */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_GE(test, dwq_cancel_sync(&r->p[i].task), 0);
	kunit_release_action(test, tt_destroy, q);

	for (i = 0; i < n; i++) {
		int runs = atomic_read(&r->p[i].runs);

		ran += runs;
		switch (r->result[i]) {
		case DWQ_RESULT_REMOVED:
			removed++;
			KUNIT_EXPECT_EQ_MSG(test, runs, 0, "task %u", i);
			break;
		case DWQ_RESULT_RUNNING:
			running++;
			KUNIT_EXPECT_EQ_MSG(test, runs, 1, "task %u", i);
			break;
		case DWQ_RESULT_IDLE:
			idle++;
			KUNIT_EXPECT_EQ_MSG(test, runs, 1, "task %u", i);
			break;
		default:
			KUNIT_FAIL(test, "task %u: cancel returned %d", i,
				   r->result[i]);
		}
		KUNIT_EXPECT_EQ(test, kref_read(&r->p[i].task.ref), 1U);
	}
	kunit_info(test,
		   "%u removed before running, %u running, %u already run\n",
		   removed, running, idle);
	KUNIT_EXPECT_EQ(test, removed + ran, n);
	KUNIT_EXPECT_EQ(test, ran, running + idle);
}

/*
 * cancel_sync returns only after the running callback has finished: the
 * callback, held until a cancel_sync waits for it, returns before that
 * cancel_sync does.
 */
static void dwq_task_cancel_test_sync_waits(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 1);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_task_info info;

	p->until_canceling = true;
	KUNIT_ASSERT_EQ(test, tt_sched(q, p, 0, DWQ_MODE_ONESHOT, 0), 0);
	tt_wait(test, &p->started);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p->task), DWQ_RESULT_RUNNING);
	WRITE_ONCE(p->sync_returned, true);
	KUNIT_EXPECT_NE(test, READ_ONCE(p->end[0]), 0ULL);
	tt_wait(test, &p->ran);
	KUNIT_EXPECT_TRUE(test, p->canceling_seen);
	KUNIT_EXPECT_FALSE(test, p->sync_returned_seen);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_IDLE);

	/* The owner lets go; the queue has let go, or is about to. */
	dwq_task_put(&p->task);
	dwq_kunit_wait_until(test, atomic_read(&p->released));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->released), 1);
}

/* cancel_sync from the task's own callback is -EDEADLK, not a hang. */
static void dwq_task_cancel_test_sync_deadlock(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 2);
	struct dwq_queue *q = tt_queue(test, 1);

	p[0].self = dwq_cancel_sync;
	KUNIT_ASSERT_EQ(test, tt_sched(q, &p[0], 0, DWQ_MODE_ONESHOT, 0), 0);
	tt_wait(test, &p[0].ran);
	KUNIT_EXPECT_EQ(test, p[0].self_ret, -EDEADLK);

	/* A periodic task can still stop itself with plain cancel. */
	p[1].self = dwq_cancel;
	KUNIT_ASSERT_EQ(test, tt_sched(q, &p[1], 0, DWQ_MODE_FIXED_RATE, MS),
			0);
	tt_wait_unbound(test, &p[1]);
	KUNIT_EXPECT_EQ(test, p[1].self_ret, DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 1);
	KUNIT_EXPECT_EQ(test, p[1].task.state, (u8)DWQ_STATE_CANCELLED);
}

/*
 * Rescheduling queued tasks moves them in the run order, same identity.
 * The worker is held meanwhile: A, due in 200 ms, is still queued when it
 * is moved however long the guest takes to get there.
 */
static void dwq_task_cancel_test_reschedule_reorders(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 4);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_sched s = {};
	struct completion *gate;
	atomic_t seq;
	int i;

	gate = tt_hold(test, q, &p[3]);
	atomic_set(&seq, 0);
	for (i = 0; i < 3; i++) {
		p[i].seq = &seq;
		KUNIT_ASSERT_EQ(test,
				tt_sched(q, &p[i], (i + 2) * 100 * MS,
					 DWQ_MODE_ONESHOT, 0),
				0);
	}
	/* A 200 ms, B 300 ms, C 400 ms  ->  B 100 ms, A 600 ms */
	s.time_ns = 100 * MS;
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p[1].task, &s), 0);
	s.time_ns = 600 * MS;
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p[0].task, &s), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&p[0].task.ref), 2U);
	complete(gate);
	for (i = 0; i < 3; i++)
		tt_wait(test, &p[i].ran);
	KUNIT_EXPECT_EQ(test, p[1].order, 1);
	KUNIT_EXPECT_EQ(test, p[2].order, 2);
	KUNIT_EXPECT_EQ(test, p[0].order, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 1);
	KUNIT_EXPECT_EQ(test, dwq_reschedule(&p[0].task, &s), -ENOENT);
}

/*
 * Query follows a task through its states. Its first deadline is 2 s
 * away: the query right after the schedule must find it queued, with time
 * left, even in a slow guest.
 */
static void dwq_task_cancel_test_query(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 2);
	struct dwq_queue *q = tt_queue(test, 1);
	struct dwq_task_info info;
	struct completion *gate;
	u64 t0;

	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, 0ULL);

	gate = tt_gate(&p[0], 0);
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, &p[0], 2000 * MS, DWQ_MODE_ONESHOT, 0), 0);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_ONESHOT);
	KUNIT_EXPECT_GT(test, info.remaining_ns, 0ULL);
	KUNIT_EXPECT_LE(test, info.remaining_ns, 2000 * MS);
	KUNIT_EXPECT_GE(test, info.deadline_ns, t0 + 2000 * MS);

	tt_wait(test, &p[0].started);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_RUNNING);
	KUNIT_EXPECT_EQ(test, info.remaining_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, p[0].deadline[0]);
	complete(gate);
	tt_wait_unbound(test, &p[0]);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, 0ULL);

	KUNIT_ASSERT_EQ(test,
			tt_sched(q, &p[1], 3600ULL * NSEC_PER_SEC,
				 DWQ_MODE_FIXED_DELAY, 5 * MS),
			0);
	dwq_query(&p[1].task, &info);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_FIXED_DELAY);
	KUNIT_EXPECT_EQ(test, info.period_ns, 5 * MS);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[1].task), DWQ_RESULT_REMOVED);
	dwq_query(&p[1].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, info.remaining_ns, 0ULL);
}

/*
 * The queue holds a reference while a task is queued or running; release
 * runs once, when the last reference goes, whoever drops it.
 */
static void dwq_task_cancel_test_references(struct kunit *test)
{
	struct tt_probe *p = tt_probes(test, 2);
	struct dwq_queue *q = tt_queue(test, 1);

	KUNIT_ASSERT_EQ(test, tt_sched(q, &p[0], 0, DWQ_MODE_ONESHOT, 0), 0);
	KUNIT_ASSERT_EQ(test,
			tt_sched(q, &p[1], 3600ULL * NSEC_PER_SEC,
				 DWQ_MODE_ONESHOT, 0),
			0);
	/* The owner lets go first: the queue's reference keeps them alive. */
	dwq_task_put(&p[0].task);
	dwq_task_put(&p[1].task);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].released), 0);
	tt_wait(test, &p[0].ran);
	dwq_kunit_wait_until(test, atomic_read(&p[0].released));
	/* The worker dropped the last one after the run... */
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].released), 1);
	/* ...and cancel drops it for the other. */
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[1].task), DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].released), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 0);
}

static struct kunit_case dwq_task_cancel_test_cases[] = {
	KUNIT_CASE(dwq_task_cancel_test_queued),
	KUNIT_CASE(dwq_task_cancel_test_idle),
	KUNIT_CASE(dwq_task_cancel_test_running_oneshot),
	KUNIT_CASE(dwq_task_cancel_test_batch),
	KUNIT_CASE_SLOW(dwq_task_cancel_test_race_10k),
	KUNIT_CASE(dwq_task_cancel_test_sync_waits),
	KUNIT_CASE(dwq_task_cancel_test_sync_deadlock),
	KUNIT_CASE(dwq_task_cancel_test_reschedule_reorders),
	KUNIT_CASE(dwq_task_cancel_test_query),
	KUNIT_CASE(dwq_task_cancel_test_references),
	{}
};

static struct kunit_suite dwq_task_cancel_test_suite = {
	.name = "dwq_task_cancel",
	.test_cases = dwq_task_cancel_test_cases,
};

kunit_test_suites(&dwq_task_periodic_test_suite, &dwq_task_cancel_test_suite);
