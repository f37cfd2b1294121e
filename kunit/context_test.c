// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for what the engine promises about where and when it may be
 * called: scheduling, moving and cancelling from hard interrupt context,
 * from softirq context and with interrupts off under a raw spinlock; the
 * room made ahead (dwq_queue_reserve(), -ENOSPC with nothing changed, a
 * failed allocation); dwq_mod() and dwq_reduce() in every state; and
 * dwq_cancel_sync() leaving nothing behind, so that the object may be
 * freed at once.
 *
 * As in queue_test.c, no case sleeps for a guessed time: each waits for
 * the state it needs, with a timeout that only bounds a failure.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/processor.h>
#include <linux/rcupdate.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <kunit/static_stub.h>
#include <kunit/test.h>

#include "compat.h"
#include "dwq_internal.h"
#include "wait.h"

#define HOUR (3600ULL * NSEC_PER_SEC)

/* A task that counts its runs, may wait for a gate and re-arm itself. */
struct ct_probe {
	struct dwq_task task;
	struct dwq_queue *q;
	atomic_t runs;
	int rearm; /* dwq_mod() itself this many more times */
	int rearm_err; /* the last dwq_mod()'s result */
	bool all_oneshot; /* dwq_task_run_oneshot() held in every run */
	struct task_struct *thread; /* where the last run ran... */
	bool softirq; /* ...whether in softirq context... */
	bool bh_off; /* ...and whether with softirqs off */
	atomic_t softirq_runs; /* runs in softirq context */
	struct dwq_task *sync; /* dwq_cancel_sync() this from the callback */
	int sync_ret; /* what it said */
	struct completion started;
	struct completion *gate;
};

static void ct_probe_fn(struct dwq_task *task)
{
	struct ct_probe *p = container_of(task, struct ct_probe, task);
	struct dwq_sched s = { .time_ns = 0 };

	if (!dwq_task_run_oneshot(task))
		p->all_oneshot = false;
	p->thread = current;
	p->softirq = in_serving_softirq();
	p->bh_off = in_softirq();
	if (p->softirq)
		atomic_inc(&p->softirq_runs);
	if (p->sync)
		p->sync_ret = dwq_cancel_sync(p->sync);
	complete(&p->started);
	if (p->gate)
		wait_for_completion_timeout(p->gate, msecs_to_jiffies(GATE_MS));
	if (p->rearm > 0) {
		p->rearm--;
		p->rearm_err = dwq_mod(p->q, task, &s);
	}
	/* Last: once counted, the test may let the probe go. */
	atomic_inc(&p->runs);
}

static struct ct_probe *ct_probes(struct kunit *test, unsigned int n)
{
	struct ct_probe *p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++) {
		dwq_task_init(&p[i].task, ct_probe_fn, NULL);
		init_completion(&p[i].started);
		p[i].all_oneshot = true;
	}
	return p;
}

static void ct_destroy(void *q)
{
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
}

static struct dwq_queue *ct_queue(struct kunit *test, unsigned int workers,
				  unsigned int room)
{
	struct dwq_queue *q = dwq_queue_create("kunit", workers, 0);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ct_destroy, q),
			0);
	if (room)
		KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, room), 0);
	return q;
}

static struct dwq_queue_stats ct_stats(struct dwq_queue *q)
{
	struct dwq_queue_stats st;

	dwq_queue_get_stats(q, &st);
	return st;
}

/* Unbound: the queue let go of it. */
static bool ct_unbound(struct ct_probe *p)
{
	/* Pairs with the release that unbinds the task in queue.c. */
	return !smp_load_acquire(&p->task.queue);
}

static void ct_wait(struct kunit *test, struct completion *c)
{
	unsigned long left;

	left = wait_for_completion_timeout(c, msecs_to_jiffies(TIMEOUT_MS));
	KUNIT_ASSERT_GT(test, left, 0UL);
}

/*
 * The calls of an atomic caller, on five tasks the test set up: p[0] and
 * p[1] idle, p[2] queued, p[3] and p[4] idle. What each returned goes in
 * @ret, checked by ct_check_calls().
 */
#define CT_CALLS 8
static void ct_calls(struct dwq_queue *q, struct ct_probe *p, int *ret)
{
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched farther = { .time_ns = 2 * HOUR };
	struct dwq_sched two[2] = { { .time_ns = HOUR }, { .time_ns = HOUR } };
	struct dwq_task *batch[2] = { &p[3].task, &p[4].task };
	int cret[2];

	ret[0] = dwq_schedule(q, &p[0].task, &far);
	ret[1] = dwq_mod(q, &p[1].task, &far);
	ret[2] = dwq_mod(q, &p[0].task, &farther);
	ret[3] = dwq_reschedule(&p[1].task, &farther);
	ret[4] = dwq_cancel(&p[2].task);
	ret[5] = dwq_schedule_batch(q, batch, two, 2);
	dwq_cancel_batch(q, batch, 2, cret);
	ret[6] = cret[0];
	ret[7] = cret[1];
}

static void ct_setup_calls(struct kunit *test, struct dwq_queue *q,
			   struct ct_probe *p)
{
	struct dwq_sched far = { .time_ns = HOUR };

	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[2].task, &far), 0);
}

static void ct_check_calls(struct kunit *test, struct dwq_queue *q,
			   struct ct_probe *p, const int *ret,
			   unsigned int size)
{
	/* schedule, mod (idle), mod (queued), reschedule, then cancels */
	static const int want[CT_CALLS] = { 0, 0, 1, 0, 1, 0, 1, 1 };
	struct dwq_task_info info;
	unsigned int i;

	for (i = 0; i < CT_CALLS; i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], want[i], "call %u", i);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, size);
	for (i = 0; i < 2; i++) {
		dwq_query(&p[i].task, &info);
		KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
		/* Moved to two hours by dwq_mod() and dwq_reschedule(). */
		KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR);
	}
	for (i = 2; i < 5; i++)
		KUNIT_EXPECT_EQ(test, p[i].task.state, (u8)DWQ_STATE_CANCELLED);
}

struct ct_timer {
	struct hrtimer timer;
	struct dwq_queue *q;
	struct ct_probe *p;
	int ret[CT_CALLS];
	bool hardirq;
	bool softirq;
	bool irqs_off;
	struct completion done;
};

static enum hrtimer_restart ct_timer_fn(struct hrtimer *timer)
{
	struct ct_timer *t = container_of(timer, struct ct_timer, timer);

	t->hardirq = in_hardirq();
	t->softirq = in_serving_softirq();
	t->irqs_off = irqs_disabled();
	ct_calls(t->q, t->p, t->ret);
	complete(&t->done);
	return HRTIMER_NORESTART;
}

/* The calls from an hrtimer's callback in @mode. */
static struct ct_timer *ct_from_timer(struct kunit *test,
				      enum hrtimer_mode mode)
{
	struct ct_timer *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	/* Probes first: freed after the queue that may still touch them. */
	t->p = ct_probes(test, 5);
	t->q = ct_queue(test, 1, 0);
	ct_setup_calls(test, t->q, t->p);
	init_completion(&t->done);
	hrtimer_setup(&t->timer, ct_timer_fn, CLOCK_MONOTONIC, mode);
	hrtimer_start(&t->timer, ns_to_ktime(MS), mode);
	ct_wait(test, &t->done);
	hrtimer_cancel(&t->timer);
	ct_check_calls(test, t->q, t->p, t->ret, 2);
	return t;
}

/* From hard interrupt context, on PREEMPT_RT too (HRTIMER_MODE_REL_HARD). */
static void dwq_context_test_hardirq(struct kunit *test)
{
	struct ct_timer *t = ct_from_timer(test, HRTIMER_MODE_REL_HARD);

	KUNIT_EXPECT_TRUE(test, t->hardirq);
	KUNIT_EXPECT_TRUE(test, t->irqs_off);
}

/*
 * From a soft hrtimer: the timer softirq without PREEMPT_RT, the ktimers
 * thread with it.
 */
static void dwq_context_test_softirq(struct kunit *test)
{
	struct ct_timer *t = ct_from_timer(test, HRTIMER_MODE_REL_SOFT);

	KUNIT_EXPECT_FALSE(test, t->hardirq);
	if (!IS_ENABLED(CONFIG_PREEMPT_RT))
		KUNIT_EXPECT_TRUE(test, t->softirq);
}

static DEFINE_RAW_SPINLOCK(ct_raw_lock);
static DEFINE_SPINLOCK(ct_lock);

/*
 * With interrupts off and a raw spinlock held, and under a spinlock_t
 * taken with irqsave; interrupts stay as the caller had them.
 */
static void dwq_context_test_locked(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 10);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	int ret[CT_CALLS];
	unsigned long flags;
	bool off;

	ct_setup_calls(test, q, p);
	raw_spin_lock_irqsave(&ct_raw_lock, flags);
	ct_calls(q, p, ret);
	off = irqs_disabled();
	raw_spin_unlock_irqrestore(&ct_raw_lock, flags);
	KUNIT_EXPECT_TRUE(test, off);
	ct_check_calls(test, q, p, ret, 2);

	ct_setup_calls(test, q, p + 5);
	spin_lock_irqsave(&ct_lock, flags);
	ct_calls(q, p + 5, ret);
	spin_unlock_irqrestore(&ct_lock, flags);
	ct_check_calls(test, q, p + 5, ret, 4);
}

static void ct_enable_work(void *work)
{
	enable_work(work);
}

/* Stop @q growing in the background: its room is what it has now. */
static void ct_no_growth(struct kunit *test, struct dwq_queue *q)
{
	disable_work_sync(&q->resize_work);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, ct_enable_work,
						  &q->resize_work),
			0);
}

/*
 * No room: schedule, a batch and dwq_mod() of an idle task fail with
 * -ENOSPC and change nothing; a reservation makes room.
 */
static void dwq_context_test_no_room(struct kunit *test)
{
	/* A new queue's capacity; probes first, freed after the queue. */
	unsigned int cap = DWQ_HEAP_MIN_CAPACITY, i;
	struct ct_probe *p = ct_probes(test, cap + 2);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s[2] = { { .time_ns = HOUR }, { .time_ns = HOUR } };
	struct dwq_task *two[2] = { &p[cap].task, &p[cap + 1].task };
	unsigned long flags;

	ct_no_growth(test, q);
	KUNIT_ASSERT_EQ(test, ct_stats(q).capacity, cap);
	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, s), 0);
	local_irq_save(flags);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &p[cap].task, s), -ENOSPC);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[cap].task, s), -ENOSPC);
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p[cap].task, s), -ENOSPC);
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, two, s, 2), -ENOSPC);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, cap);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, cap);
	for (i = cap; i < cap + 2; i++) {
		KUNIT_EXPECT_EQ(test, p[i].task.state, (u8)DWQ_STATE_IDLE);
		KUNIT_EXPECT_TRUE(test, ct_unbound(&p[i]));
		KUNIT_EXPECT_EQ(test, kref_read(&p[i].task.ref), 1U);
	}
	/* A queued task still moves: that needs no room. */
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, s), 1);

	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, 2), 0);
	KUNIT_EXPECT_GE(test, ct_stats(q).capacity, cap + 2);
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, two, s, 2), 0);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, cap + 2);
}

/*
 * A running one-shot re-armed with no room left: -ENOSPC, and its run
 * ends as if dwq_mod() had not been called.
 */
static void dwq_context_test_rearm_no_room(struct kunit *test)
{
	unsigned int cap = DWQ_HEAP_MIN_CAPACITY, i;
	struct ct_probe *p = ct_probes(test, cap + 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR }, now = {};
	struct completion gate;

	init_completion(&gate);
	p[cap].gate = &gate;
	ct_no_growth(test, q);
	KUNIT_ASSERT_EQ(test, ct_stats(q).capacity, cap);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[cap].task, &now), 0);
	ct_wait(test, &p[cap].started);
	for (i = 0; i < cap; i++)
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s), 0);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[cap].task, &s), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, p[cap].task.reserved);
	complete(&gate);
	dwq_kunit_wait_until(test, ct_unbound(&p[cap]));
	KUNIT_EXPECT_EQ(test, atomic_read(&p[cap].runs), 1);
	KUNIT_EXPECT_EQ(test, p[cap].task.state, (u8)DWQ_STATE_IDLE);
}

static struct dwq_heap_slot *ct_no_slots(unsigned int n)
{
	return NULL;
}

/*
 * dwq_queue_reserve(): a size that cannot be, and a failed allocation (a
 * KUnit static stub: failslab spares allocations that may sleep unless
 * told otherwise through debugfs, which a test cannot write), both with
 * nothing changed.
 */
static void dwq_context_test_reserve_fails(struct kunit *test)
{
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_queue_stats st = ct_stats(q);

	/* More than a slot number can hold; more than kvmalloc() gives. */
	KUNIT_EXPECT_EQ(test, dwq_queue_reserve(q, UINT_MAX), -ENOSPC);
	KUNIT_EXPECT_EQ(test, dwq_queue_reserve(q, DWQ_HEAP_MAX_CAPACITY),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, st.capacity);
	KUNIT_EXPECT_EQ(test, q->room, 0U);

	/* The new array's allocation fails, in this thread only. */
	kunit_activate_static_stub(test, dwq_slots_alloc, ct_no_slots);
	KUNIT_EXPECT_EQ(test, dwq_queue_reserve(q, 100), -ENOMEM);
	kunit_deactivate_static_stub(test, dwq_slots_alloc);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, st.capacity);
	KUNIT_EXPECT_EQ(test, q->room, 0U);
	/* And it works once the allocation does. */
	KUNIT_EXPECT_EQ(test, dwq_queue_reserve(q, 100), 0);
	KUNIT_EXPECT_GE(test, ct_stats(q).capacity, 100U);
	KUNIT_EXPECT_EQ(test, q->room, 100U);
}

/* The floor: reserved room is kept, and given back once unreserved. */
static void dwq_context_test_reserve_floor(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 100);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR };
	unsigned int i;

	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, 100), 0);
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s), 0);
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_EQ(test, dwq_cancel(&p[i].task),
				DWQ_RESULT_REMOVED);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_GE(test, ct_stats(q).capacity, 100U);
	dwq_queue_unreserve(q, 100);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, DWQ_HEAP_MIN_CAPACITY);
}

/*
 * A reservation made while the queue holds tasks beyond its reservations
 * is room for that many more: a resize queued before it (as a burst of
 * cancels queues a shrink) and run after it takes none of that room back.
 */
static void dwq_context_test_reserve_stale_shrink(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 110);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR };
	unsigned int i;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s), 0);
	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, 100), 0);
	/* The resize work, as if queued before the reservation. */
	queue_work(dwq_unbound_wq, &q->resize_work);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_GE(test, ct_stats(q).capacity, 110U);
	for (i = 10; i < 110; i++)
		KUNIT_EXPECT_EQ_MSG(test, dwq_schedule(q, &p[i].task, &s), 0,
				    "schedule %u of the 100 reserved", i - 9);
	for (i = 0; i < 110; i++)
		dwq_cancel(&p[i].task);
}

/*
 * The room reserved is room to fill: scheduling as many tasks as were
 * reserved, one by one from an empty queue, resizes nothing, neither a
 * shrink at the first (the heap is then mostly empty) nor a growth at the
 * last (a resize copies the array under the queue's lock, interrupts off).
 * And it is made to measure: no slot beyond the reservation, and past a
 * page no more pages than that takes.
 */
static void dwq_context_test_reserve_fill(struct kunit *test)
{
	static const unsigned int sizes[] = { 100, 1000, 5000 };
	struct dwq_sched s = { .time_ns = HOUR };
	struct dwq_queue *q;
	struct ct_probe *p;
	unsigned int i, k, n, cap;
	size_t bytes;

	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		n = sizes[k];
		p = ct_probes(test, n);
		q = ct_queue(test, 1, 0);
		KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, n), 0);
		cap = ct_stats(q).capacity;
		KUNIT_EXPECT_EQ(test, cap, n);
		/*
		 * Past a page, whole pages: from vmalloc(), or from kmalloc()
		 * only where its power of two is that many pages.
		 */
		bytes = n * sizeof(*q->heap.slots);
		if (bytes > PAGE_SIZE && !is_vmalloc_addr(q->heap.slots))
			KUNIT_EXPECT_EQ(test, ksize(q->heap.slots),
					PAGE_ALIGN(bytes));
		for (i = 0; i < n; i++) {
			KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s),
					0);
			if (i == 0 || i == n - 1) {
				flush_work(&q->resize_work);
				KUNIT_EXPECT_EQ_MSG(test, ct_stats(q).capacity,
						    cap, "n %u, after %u", n,
						    i + 1);
			}
		}
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test, dwq_cancel(&p[i].task),
					DWQ_RESULT_REMOVED);
	}
}

/*
 * A heap made to the measure of its reservation is full once that is
 * filled: one task more fails with -ENOSPC and nothing changed, but makes
 * the heap grow in the background, by half, after which it fits. Many
 * small reservations grow it by half too, not one slot at a time.
 */
static void dwq_context_test_reserve_full_grows(struct kunit *test)
{
	const unsigned int n = 100;
	struct ct_probe *p = ct_probes(test, n + 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR };
	unsigned int i;

	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, n), 0);
	KUNIT_ASSERT_EQ(test, ct_stats(q).capacity, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s), 0);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, n);

	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &p[n].task, &s), -ENOSPC);
	KUNIT_EXPECT_TRUE(test, ct_unbound(&p[n]));
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, n);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, n + n / 2);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &p[n].task, &s), 0);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, n + n / 2);
	for (i = 0; i <= n; i++)
		KUNIT_EXPECT_EQ(test, dwq_cancel(&p[i].task),
				DWQ_RESULT_REMOVED);

	/* 16 + 1 reserved one at a time: 16, then 24, not 17. */
	q = ct_queue(test, 1, 0);
	for (i = 0; i <= DWQ_HEAP_MIN_CAPACITY; i++)
		KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, 1), 0);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity,
			DWQ_HEAP_MIN_CAPACITY + DWQ_HEAP_MIN_CAPACITY / 2);
}

/*
 * A batch that does not fit an emptier heap fails with -ENOSPC and is no
 * reason to grow it, nor to keep it from shrinking once its tasks go.
 */
static void dwq_context_test_full_batch_shrinks(struct kunit *test)
{
	const unsigned int n = 100, used = 60, batch = 50;
	struct ct_probe *p = ct_probes(test, used + batch);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched *s;
	struct dwq_task **tasks;
	unsigned int i;

	s = kunit_kcalloc(test, batch, sizeof(*s), GFP_KERNEL);
	tasks = kunit_kcalloc(test, batch, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, n), 0);
	for (i = 0; i < used; i++) {
		s[0].time_ns = HOUR;
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s[0]), 0);
	}
	/* Unreserved: 60 of 100 used, the heap stays as it is. */
	dwq_queue_unreserve(q, n);
	flush_work(&q->resize_work);
	KUNIT_ASSERT_EQ(test, ct_stats(q).capacity, n);

	for (i = 0; i < batch; i++) {
		tasks[i] = &p[used + i].task;
		s[i].time_ns = HOUR;
	}
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, batch), -ENOSPC);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, n);

	for (i = 0; i < used; i++)
		KUNIT_EXPECT_EQ(test, dwq_cancel(&p[i].task),
				DWQ_RESULT_REMOVED);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, ct_stats(q).capacity, DWQ_HEAP_MIN_CAPACITY);
}

/*
 * A periodic task cancelled while its callback runs will not be queued
 * again, so it gives back at once the slot it held for that: in a heap
 * made to the measure of a reservation, a task scheduled in its place
 * fits. Re-armed by dwq_mod() meanwhile, it needs a slot again.
 */
static void dwq_context_test_reserve_cancel_running(struct kunit *test)
{
	const unsigned int n = DWQ_HEAP_MIN_CAPACITY;
	struct ct_probe *p = ct_probes(test, n + 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR };
	struct dwq_sched per = { .period_ns = HOUR,
				 .mode = DWQ_MODE_FIXED_RATE };
	struct completion gate;
	unsigned int i;

	init_completion(&gate);
	p[0].gate = &gate;
	ct_no_growth(test, q);
	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, n), 0);
	KUNIT_ASSERT_EQ(test, ct_stats(q).capacity, n);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &per), 0);
	ct_wait(test, &p[0].started);
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s), 0);
	/* The running task holds the last slot, for its next period. */
	KUNIT_EXPECT_TRUE(test, p[0].task.reserved);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &p[n].task, &s), -ENOSPC);
	KUNIT_EXPECT_TRUE(test, ct_unbound(&p[n]));

	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[0].task), DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_FALSE(test, p[0].task.reserved);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &p[n].task, &s), 0);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, &s), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, p[0].task.reserved);

	complete(&gate);
	dwq_kunit_wait_until(test, ct_unbound(&p[0]));
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	KUNIT_EXPECT_EQ(test, p[0].task.state, (u8)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, n);
}

/* dwq_mod() of idle and queued tasks, and its errors. */
static void dwq_context_test_mod(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 2);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_queue *other = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR }, bad = { .time_ns = MS };
	struct dwq_task_info info;

	bad.mode = 9;
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, &bad), -EINVAL);
	KUNIT_EXPECT_TRUE(test, ct_unbound(&p[0]));
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, &s), 0);
	KUNIT_EXPECT_EQ(test, p[0].task.state, (u8)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, kref_read(&p[0].task.ref), 2U);
	s.time_ns = 2 * HOUR;
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, &s), 1);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_EQ(test, kref_read(&p[0].task.ref), 2U);
	/* Now periodic, at the same place in the heap. */
	s = (struct dwq_sched){ .time_ns = HOUR,
				.mode = DWQ_MODE_FIXED_RATE,
				.period_ns = HOUR };
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, &s), 1);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_FIXED_RATE);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p[0].task, &bad), -EINVAL);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_FIXED_RATE);
	/* Bound to another queue: refused. */
	KUNIT_EXPECT_EQ(test, dwq_mod(other, &p[0].task, &s), -EBUSY);
	KUNIT_EXPECT_EQ(test, ct_stats(other).size, 0U);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, 1U);
	/* Cancelled, then queued again. */
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[0].task), DWQ_RESULT_REMOVED);
	s = (struct dwq_sched){ .time_ns = HOUR };
	KUNIT_EXPECT_EQ(test, dwq_mod(other, &p[0].task, &s), 0);
	KUNIT_EXPECT_EQ(test, ct_stats(other).size, 1U);
}

/*
 * dwq_reduce() queues an idle task and moves a queued one earlier, never
 * later: a later deadline leaves it as it was, mode included. Its errors
 * are dwq_mod()'s, with nothing changed.
 */
static void dwq_context_test_reduce(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_queue *other = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = 2 * HOUR }, bad = { .time_ns = MS };
	struct dwq_sched later = { .time_ns = 3 * HOUR,
				   .mode = DWQ_MODE_FIXED_RATE,
				   .period_ns = HOUR };
	struct dwq_task_info info;

	bad.mode = 9;
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &bad), -EINVAL);
	KUNIT_EXPECT_TRUE(test, ct_unbound(p));
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &s), 0);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 2U);

	/* Later: left at two hours, a one-shot still. */
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &later), 1);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_LE(test, info.remaining_ns, 2 * HOUR);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_ONESHOT);

	/* Earlier: moved in to one hour, with the new mode. */
	later.time_ns = HOUR;
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &later), 1);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_EQ(test, info.mode, (u32)DWQ_MODE_FIXED_RATE);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 2U);

	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, dwq_reduce(other, &p->task, &s), -EBUSY);
	KUNIT_EXPECT_EQ(test, ct_stats(other).size, 0U);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, 1U);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
}

/*
 * A running task: dwq_reduce() re-arms it like dwq_mod(), unless this run
 * was re-armed for no later already; the earliest re-arm is the one it
 * comes back with.
 */
static void dwq_context_test_reduce_running(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched now = {}, s = { .time_ns = 2 * HOUR };
	struct dwq_task_info info;
	struct completion gate;

	init_completion(&gate);
	p->gate = &gate;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &now), 0);
	ct_wait(test, &p->started);
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &s), 0);
	s.time_ns = 3 * HOUR;
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &s), 0);
	complete(&gate);
	dwq_kunit_wait_until(test,
			     READ_ONCE(p->task.state) == DWQ_STATE_QUEUED);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_LE(test, info.remaining_ns, 2 * HOUR);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 1);

	/* A later dwq_mod() of the run, then an earlier reduce: it wins. */
	reinit_completion(&gate);
	reinit_completion(&p->started);
	KUNIT_ASSERT_EQ(test, dwq_mod(q, &p->task, &now), 1);
	ct_wait(test, &p->started);
	s.time_ns = 3 * HOUR;
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p->task, &s), 0);
	s.time_ns = HOUR;
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &s), 0);
	complete(&gate);
	dwq_kunit_wait_until(test,
			     READ_ONCE(p->task.state) == DWQ_STATE_QUEUED);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 2);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p->task), DWQ_RESULT_REMOVED);
}

/* A one-shot re-arms itself from its callback: it runs again, as one-shot. */
static void dwq_context_test_mod_rearm_self(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 2, 0);
	struct dwq_sched now = {};

	p->q = q;
	p->rearm = 3;
	p->rearm_err = -1;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &now), 0);
	dwq_kunit_wait_until(test, atomic_read(&p->runs) == 4 && ct_unbound(p));
	KUNIT_EXPECT_EQ(test, p->rearm_err, 0);
	KUNIT_EXPECT_TRUE(test, p->all_oneshot);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, q->reserved, 0U);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
}

/*
 * A one-shot re-arms itself, due at once, while another worker leads for
 * a later head: the worker that ran it takes it again as it finishes, so
 * the leader is not woken for it (it would wake to find nothing due and
 * sleep again). The head comes while the first run waits at its gate, so
 * that a follower is woken to lead; from then on no worker wakes.
 */
static void dwq_context_test_mod_rearm_self_no_wake(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 2);
	struct dwq_queue *q = ct_queue(test, 2, 0);
	struct dwq_sched now = {}, far = { .time_ns = HOUR };
	struct completion gate;
	u64 wakeups;

	init_completion(&gate);
	p[0].q = q;
	p[0].gate = &gate;
	p[0].rearm = 3;
	p[0].rearm_err = -1;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &now), 0);
	ct_wait(test, &p[0].started);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &far), 0);
	dwq_kunit_wait_until(test, ct_stats(q).total.timed_waits >= 1);
	wakeups = ct_stats(q).total.wakeups;
	complete_all(&gate);
	dwq_kunit_wait_until(test,
			     atomic_read(&p[0].runs) == 4 && ct_unbound(&p[0]));
	KUNIT_EXPECT_EQ(test, p[0].rearm_err, 0);
	KUNIT_EXPECT_EQ(test, ct_stats(q).total.wakeups - wakeups, 0ULL);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p[1].task), DWQ_RESULT_REMOVED);
}

/*
 * A running one-shot moved from outside: the last of dwq_mod() and
 * dwq_cancel() wins.
 */
static void dwq_context_test_mod_cancel_order(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched now = {}, far = { .time_ns = HOUR };
	struct completion gate;

	/* mod, then cancel: the re-arm is dropped. */
	init_completion(&gate);
	p->gate = &gate;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &now), 0);
	ct_wait(test, &p->started);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p->task, &far), 0);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_RUNNING);
	complete(&gate);
	dwq_kunit_wait_until(test, ct_unbound(p));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 1);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, q->reserved, 0U);

	/* cancel, then mod: re-armed, queued again when the run ends. */
	reinit_completion(&gate);
	reinit_completion(&p->started);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &now), 0);
	ct_wait(test, &p->started);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p->task, &far), 0);
	complete(&gate);
	dwq_kunit_wait_until(test,
			     READ_ONCE(p->task.state) == DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 2);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, 1U);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p->task), DWQ_RESULT_REMOVED);
}

struct ct_syncer {
	struct dwq_task *task;
	int ret;
	struct completion done;
};

static int ct_syncer_fn(void *arg)
{
	struct ct_syncer *c = arg;

	c->ret = dwq_cancel_sync(c->task);
	complete(&c->done);
	return 0;
}

/*
 * Run @p on @q, held in its callback until @gate, and ready @c to
 * dwq_cancel_sync() it.
 */
static void ct_hold_for_sync(struct kunit *test, struct dwq_queue *q,
			     struct ct_probe *p, struct ct_syncer *c,
			     struct completion *gate)
{
	struct dwq_sched now = {};

	KUNIT_ASSERT_NOT_NULL(test, c);
	init_completion(gate);
	init_completion(&c->done);
	c->task = &p->task;
	p->gate = gate;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &now), 0);
	ct_wait(test, &p->started);
}

/*
 * As ct_hold_for_sync(), with the count of dwq_cancel_sync() callers
 * full (as if U8_MAX of them waited): start @c's dwq_cancel_sync() and
 * return once it sleeps waiting for a place.
 */
static void ct_sync_beyond_full(struct kunit *test, struct dwq_queue *q,
				struct ct_probe *p, struct ct_syncer *c,
				struct completion *gate)
{
	struct task_struct *t;

	ct_hold_for_sync(test, q, p, c, gate);
	raw_spin_lock_irq(&q->lock);
	p->task.canceling = U8_MAX;
	raw_spin_unlock_irq(&q->lock);
	t = kthread_run(ct_syncer_fn, c, "dwq-kunit-sync");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	/* Asleep, waiting its turn: nothing else puts it in this state. */
	dwq_kunit_wait_until(test,
			     READ_ONCE(t->__state) == TASK_UNINTERRUPTIBLE);
}

/* While dwq_cancel_sync() waits, dwq_mod() is refused. */
static void dwq_context_test_mod_during_cancel_sync(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct ct_syncer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct task_struct *t;
	struct completion gate;

	ct_hold_for_sync(test, q, p, c, &gate);
	t = kthread_run(ct_syncer_fn, c, "dwq-kunit-sync");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	dwq_kunit_wait_until(test, READ_ONCE(p->task.canceling) == 1);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p->task, &far), -EBUSY);
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p->task, &far), -EBUSY);
	KUNIT_EXPECT_FALSE(test, p->task.reserved);
	complete(&gate);
	ct_wait(test, &c->done);
	KUNIT_EXPECT_EQ(test, c->ret, DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_TRUE(test, ct_unbound(p));
}

/*
 * A dwq_cancel_sync() that finds U8_MAX others counted (set here by hand,
 * as that many waiting would) does not wrap the count to 0, which would
 * let a dwq_mod() through: it waits until one of them has left (here,
 * by hand), then counts itself and waits for the run like the others. It
 * returns once the run has ended, with the task neither queued nor
 * running, the count the others'.
 */
static void dwq_context_test_cancel_sync_full(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct ct_syncer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct completion gate;

	ct_sync_beyond_full(test, q, p, c, &gate);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->task.canceling), (u8)U8_MAX);
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p->task, &far), -EBUSY);
	/* One of the others leaves: it takes the place. */
	raw_spin_lock_irq(&q->lock);
	p->task.canceling = U8_MAX - 1;
	raw_spin_unlock_irq(&q->lock);
	dwq_kunit_wait_until(test, READ_ONCE(p->task.canceling) == U8_MAX);
	KUNIT_EXPECT_FALSE(test, completion_done(&c->done));
	complete(&gate);
	ct_wait(test, &c->done);
	KUNIT_EXPECT_EQ(test, c->ret, DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_TRUE(test, ct_unbound(p));
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->task.state), (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, 0U);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->task.canceling), (u8)(U8_MAX - 1));
	WRITE_ONCE(p->task.canceling, 0);
}

/*
 * As cancel_sync_full, but the run ends while the extra dwq_cancel_sync()
 * still waits for a place, and the others leave after: it finds the task
 * idle, says RUNNING (what it found at first), and lets go of the
 * reference it held.
 */
static void dwq_context_test_cancel_sync_full_ends(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct ct_syncer *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct completion gate;

	ct_sync_beyond_full(test, q, p, c, &gate);
	complete(&gate);
	dwq_kunit_wait_until(test, ct_unbound(p));
	KUNIT_EXPECT_FALSE(test, completion_done(&c->done));
	/* The queue let go: ours and the one the syncer holds are left. */
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 2U);
	WRITE_ONCE(p->task.canceling, 0);
	ct_wait(test, &c->done);
	KUNIT_EXPECT_EQ(test, c->ret, DWQ_RESULT_RUNNING);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->task.state), (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
}

/* An object freed right after dwq_cancel_sync(), as cancel_delayed_work_sync(). */
struct ct_obj {
	struct dwq_task task;
	atomic_t *ran;
	atomic_t *in_timer; /* runs in softirq context, if not NULL */
	u64 payload[4];
};

/* Busy for @ns: short waits of a race, where sleeping would be too coarse. */
static void ct_spin(u64 ns)
{
	u64 end = ktime_get_ns() + ns;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static void ct_obj_fn(struct dwq_task *task)
{
	struct ct_obj *o = container_of(task, struct ct_obj, task);

	/* A short busy callback, to be caught running. */
	ct_spin(20 * NSEC_PER_USEC);
	o->payload[0]++;
	if (o->in_timer && in_serving_softirq())
		atomic_inc(o->in_timer);
	atomic_inc(o->ran);
}

/* An object whose task holds its only reference once scheduled. */
struct ct_owned {
	struct dwq_task task;
	struct completion *started;
	atomic_t *released;
};

static void ct_owned_fn(struct dwq_task *task)
{
	struct ct_owned *o = container_of(task, struct ct_owned, task);

	int i;

	complete(o->started);
	/* Until dwq_cancel_sync() has found it running (and waits). */
	for (i = 0; i < TIMEOUT_MS && !READ_ONCE(task->canceling); i++)
		usleep_range(1000, 2000);
}

static void ct_owned_release(struct dwq_task *task)
{
	struct ct_owned *o = container_of(task, struct ct_owned, task);

	atomic_inc(o->released);
	kfree(o);
}

/*
 * A fire-and-forget task: its owner drops its own reference once it is
 * scheduled, and stops it later with dwq_cancel_sync() while its callback
 * runs. The queue's reference is then the last: the cancel must keep the
 * task alive while it waits, the release function must have run once
 * when it returns (in it, as the kernel-doc says), and nothing may touch
 * the object after that (KASAN reports any use after the kfree()).
 */
static void dwq_context_test_cancel_sync_no_ref(struct kunit *test)
{
	atomic_t *released = kunit_kzalloc(test, sizeof(*released), GFP_KERNEL);
	struct completion *started =
		kunit_kzalloc(test, sizeof(*started), GFP_KERNEL);
	struct dwq_queue *q = ct_queue(test, 2, 4);
	struct dwq_sched s = {};
	unsigned int i;
	struct ct_owned *o;

	KUNIT_ASSERT_NOT_NULL(test, released);
	KUNIT_ASSERT_NOT_NULL(test, started);
	for (i = 0; i < 4; i++) {
		o = kzalloc(sizeof(*o), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		init_completion(started);
		dwq_task_init(&o->task, ct_owned_fn, ct_owned_release);
		o->started = started;
		o->released = released;
		s.mode = i % 2 ? DWQ_MODE_FIXED_RATE : DWQ_MODE_ONESHOT;
		s.period_ns = i % 2 ? 50 * NSEC_PER_MSEC : 0;
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &o->task, &s), 0);
		dwq_task_put(&o->task);
		ct_wait(test, started);
		KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&o->task),
				(int)DWQ_RESULT_RUNNING);
		KUNIT_EXPECT_EQ(test, atomic_read(released), (int)i + 1);
	}
}

/*
 * dwq_cancel_sync() where it may not sleep is -EDEADLK and does nothing
 * (the task stays queued, its references as they were): under a spinlock
 * taken every way (on PREEMPT_RT a spinlock_t is a sleeping lock, seen
 * through the RCU read-side section it holds), a raw spinlock, with
 * preemption or softirqs off, and under rcu_read_lock(). Then, with
 * nothing held, it cancels.
 */
static void dwq_context_test_cancel_sync_atomic(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched s = { .time_ns = HOUR };
	unsigned long flags;
	int ret[8], i, n = 0;

	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	/* Only preempt_count() shows these; every kernel here counts it. */
	KUNIT_ASSERT_TRUE(test, IS_ENABLED(CONFIG_PREEMPT_COUNT));
	spin_lock(&ct_lock);
	ret[n++] = dwq_cancel_sync(&p->task);
	spin_unlock(&ct_lock);
	raw_spin_lock(&ct_raw_lock);
	ret[n++] = dwq_cancel_sync(&p->task);
	raw_spin_unlock(&ct_raw_lock);
	preempt_disable();
	ret[n++] = dwq_cancel_sync(&p->task);
	preempt_enable();

	spin_lock_bh(&ct_lock);
	ret[n++] = dwq_cancel_sync(&p->task);
	spin_unlock_bh(&ct_lock);
	spin_lock_irqsave(&ct_lock, flags);
	ret[n++] = dwq_cancel_sync(&p->task);
	spin_unlock_irqrestore(&ct_lock, flags);
	local_bh_disable();
	ret[n++] = dwq_cancel_sync(&p->task);
	local_bh_enable();
	rcu_read_lock();
	ret[n++] = dwq_cancel_sync(&p->task);
	rcu_read_unlock();

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ret[i], -EDEADLK, "call %d", i);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 2U);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p->task),
			(int)DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 0);
}

/*
 * Schedule an object's task due now (one-shot or periodic), let it race
 * with cancel_sync at varying points, then free the object at once. The
 * queue must hold no reference any more (the count is back to the
 * caller's one) and must never touch it again: KASAN reports any use
 * after the kfree().
 */
static void dwq_context_test_cancel_sync_free(struct kunit *test)
{
	const unsigned int n = 2000;
	atomic_t *ran = kunit_kzalloc(test, sizeof(*ran), GFP_KERNEL);
	struct dwq_queue *q = ct_queue(test, 2, 16);
	unsigned int i, refs_left = 0, bound_left = 0;
	struct dwq_sched s;
	struct ct_obj *o;

	KUNIT_ASSERT_NOT_NULL(test, ran);
	for (i = 0; i < n; i++) {
		o = kzalloc(sizeof(*o), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		dwq_task_init(&o->task, ct_obj_fn, NULL);
		o->ran = ran;
		s = (struct dwq_sched){ .time_ns =
						(i % 4) * 10 * NSEC_PER_USEC };
		if (i % 2) {
			s.mode = DWQ_MODE_FIXED_RATE;
			s.period_ns = 30 * NSEC_PER_USEC;
		}
		if (dwq_schedule(q, &o->task, &s)) {
			kfree(o);
			KUNIT_FAIL(test, "schedule %u failed", i);
			break;
		}
		ct_spin((i % 64) * NSEC_PER_USEC);
		KUNIT_EXPECT_GE(test, dwq_cancel_sync(&o->task), 0);
		refs_left += kref_read(&o->task.ref) != 1;
		bound_left += !!READ_ONCE(o->task.queue);
		kfree(o);
	}
	KUNIT_EXPECT_EQ(test, refs_left, 0U);
	KUNIT_EXPECT_EQ(test, bound_left, 0U);
	/* The race was run: some callbacks ran, some were cancelled first. */
	KUNIT_EXPECT_GT(test, atomic_read(ran), 0);
}

/*
 * The last reference dropped by another holder at the moment the queue has
 * dropped its own and not yet let go of the task (a /dev/dwq reader
 * consuming a fired task's event while the worker finishes it): the
 * release function must run only once the queue no longer touches the
 * task, or what it frees is written to after (KASAN reported it).
 */
struct ct_window {
	struct dwq_task task;
	struct completion in_window;
	struct completion released;
	bool hooked;
	bool put_in_window; /* the putter's reference went, in the moment */
	bool released_in_window; /* the release ran before the moment ended */
	bool bound_at_release;
	struct task_struct *released_by;
	atomic_t releases;
};

static struct ct_window *ct_window_of;

/* How long the moment waits for the putter: well below the lockup watchdogs. */
#define CT_WINDOW_NS (5 * NSEC_PER_SEC)

/*
 * The moment, made long: from the queue's lock, interrupts off, until the
 * putter on the other CPU has dropped its reference (at most 5 s). The
 * count itself says when: a flag set before the put would leave the put
 * itself to chance, and the putter's vCPU may be preempted by the host
 * between the two for longer than any fixed grace. Then 50 ms more, in
 * which a release that did not wait for the queue to let go (the last
 * reference was the putter's) would run and find the task still bound.
 */
static void ct_window_hook(struct dwq_task *task)
{
	struct ct_window *w = READ_ONCE(ct_window_of);
	unsigned int refs;
	u64 end;

	if (!w || task != &w->task)
		return;
	w->hooked = true;
	refs = kref_read(&task->ref);
	complete(&w->in_window);
	end = ktime_get_ns() + CT_WINDOW_NS;
	while (kref_read(&task->ref) >= refs && ktime_get_ns() < end)
		cpu_relax();
	w->put_in_window = kref_read(&task->ref) < refs;
	mdelay(50);
	w->released_in_window = atomic_read(&w->releases);
}

static void ct_window_fn(struct dwq_task *task)
{
}

static void ct_window_release(struct dwq_task *task)
{
	struct ct_window *w = container_of(task, struct ct_window, task);

	w->bound_at_release = !!READ_ONCE(task->queue);
	w->released_by = current;
	atomic_inc(&w->releases);
	complete(&w->released);
}

/* A helper kthread, its work done, waits for kthread_stop(). */
static void ct_until_stopped(void)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
}

/* On another CPU: drop the test's reference inside the moment. */
static int ct_window_putter(void *arg)
{
	struct ct_window *w = arg;

	if (wait_for_completion_timeout(&w->in_window,
					msecs_to_jiffies(TIMEOUT_MS)))
		dwq_task_put(&w->task);
	ct_until_stopped();
	return 0;
}

static void ct_window_unhook(void *unused)
{
	WRITE_ONCE(dwq_kunit_hooks.unbind, NULL);
	WRITE_ONCE(ct_window_of, NULL);
}

static void ct_unpin(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/*
 * Pin the test to the first CPU online until it ends and return another
 * one, for the helper thread that acts inside a moment the test holds
 * open; the test is skipped with fewer than two CPUs.
 */
static unsigned int ct_pin_here(struct kunit *test)
{
	unsigned int here;

	if (num_online_cpus() < 2)
		dwq_kunit_skip(test, "needs two CPUs");
	here = cpumask_first(cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, ct_unpin, NULL),
			0);
	return cpumask_next(here, cpu_online_mask);
}

/*
 * One try of ct_last_put_while_unbinding(), on a queue of its own: a task
 * queued far ahead, cancelled while the putter drops its reference in the
 * moment. The moment holds its CPU with interrupts off for up to 5 s; the
 * putter may then miss it (@put_in_window false) only if its own CPU was
 * held up meanwhile, as by a stop_machine() that must wait for the CPU
 * the moment holds (a clocksource marked unstable is changed so).
 */
static struct ct_window *ct_unbinding_try(struct kunit *test, bool sync,
					  unsigned int there)
{
	struct ct_window *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct task_struct *putter;
	unsigned long left;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, w);
	dwq_task_init(&w->task, ct_window_fn, ct_window_release);
	init_completion(&w->in_window);
	init_completion(&w->released);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &w->task, &far), 0);

	/* Our reference goes to the putter: the queue's is the other one. */
	putter = kthread_create_on_cpu(ct_window_putter, w, there,
				       "dwq-kunit-put/%u");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, putter);
	WRITE_ONCE(ct_window_of, w);
	WRITE_ONCE(dwq_kunit_hooks.unbind, ct_window_hook);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, ct_window_unhook, NULL),
			0);
	wake_up_process(putter);

	ret = sync ? dwq_cancel_sync(&w->task) : dwq_cancel(&w->task);
	KUNIT_EXPECT_EQ(test, ret, DWQ_RESULT_REMOVED);
	left = wait_for_completion_timeout(&w->released,
					   msecs_to_jiffies(TIMEOUT_MS));
	KUNIT_EXPECT_NE(test, left, 0UL);
	kthread_stop(putter);
	ct_window_unhook(NULL);
	KUNIT_EXPECT_TRUE(test, w->hooked);
	return w;
}

/*
 * A task queued far ahead, cancelled (@sync: with dwq_cancel_sync(), by a
 * caller that holds no reference) while a thread on another CPU drops
 * the only reference but the queue's in the moment the queue lets go of
 * it: its release runs once, after the queue let go; with @sync, in the
 * cancel_sync, which holds one of its own until it is done with the task.
 * A try whose putter missed the moment (see ct_unbinding_try()) proves
 * nothing either way: up to three are made.
 */
static void ct_last_put_while_unbinding(struct kunit *test, bool sync)
{
	unsigned int there, tries;
	struct ct_window *w;

	there = ct_pin_here(test);
	for (tries = 1;; tries++) {
		w = ct_unbinding_try(test, sync, there);
		if (w->put_in_window || tries == 3)
			break;
		kunit_info(test, "try %u: the putter missed the moment\n",
			   tries);
	}
	KUNIT_EXPECT_TRUE(test, w->put_in_window);
	KUNIT_EXPECT_FALSE(test, w->released_in_window);
	KUNIT_EXPECT_FALSE(test, w->bound_at_release);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->releases), 1);
	if (sync)
		KUNIT_EXPECT_PTR_EQ(test, w->released_by, current);
}

static void dwq_context_test_last_put_while_unbinding(struct kunit *test)
{
	ct_last_put_while_unbinding(test, false);
}

static void dwq_context_test_cancel_sync_removed_no_ref(struct kunit *test)
{
	ct_last_put_while_unbinding(test, true);
}

/*
 * One task scheduled on two queues at the same moment, each schedule under
 * its own queue's lock: exactly one binds it. In the moment between a
 * schedule's check that the task is free and its claim of it
 * (dwq_kunit_hooks.claim), the task is claimed for the other queue, as
 * that queue's schedule claims it: the first schedule must lose, not bind
 * the task a second time. (The other queue's own schedule cannot run
 * there: both queues' locks are of one lock class, and one CPU holding
 * the first while another CPU is waited for proved to depend on the
 * host's scheduling of the vCPUs.)
 */
struct ct_claim {
	struct dwq_task task;
	struct dwq_queue *other;
	bool cancel;
	bool hooked;
	bool stolen;
};

static struct ct_claim *ct_claim_of;

/*
 * The moment: claim the task for the other queue; or, with @cancel, what
 * that queue leaves when a dwq_cancel_sync() of it waits for the task's
 * callback there and the callback has returned: the cancel counted in
 * @canceling, the task let go.
 */
static void ct_claim_hook(struct dwq_task *task)
{
	struct ct_claim *c = READ_ONCE(ct_claim_of);

	if (!c || task != &c->task || c->hooked)
		return;
	c->hooked = true;
	if (c->cancel) {
		WRITE_ONCE(task->canceling, 1);
		c->stolen = true;
		return;
	}
	c->stolen = !cmpxchg(&task->queue, NULL, c->other);
}

static void ct_claim_fn(struct dwq_task *task)
{
}

static void ct_claim_unhook(void *unused)
{
	WRITE_ONCE(dwq_kunit_hooks.claim, NULL);
	WRITE_ONCE(ct_claim_of, NULL);
}

static void ct_claim_race(struct kunit *test, bool batch, bool cancel)
{
	struct ct_claim *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct dwq_queue *q = ct_queue(test, 1, 0), *bound;
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_task *tasks[1];
	int err;

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->other = ct_queue(test, 1, 0);
	c->cancel = cancel;
	dwq_task_init(&c->task, ct_claim_fn, NULL);
	WRITE_ONCE(ct_claim_of, c);
	WRITE_ONCE(dwq_kunit_hooks.claim, ct_claim_hook);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, ct_claim_unhook, NULL),
			0);

	tasks[0] = &c->task;
	err = batch ? dwq_schedule_batch(q, tasks, &far, 1) :
		      dwq_schedule(q, &c->task, &far);
	KUNIT_EXPECT_TRUE(test, c->hooked);
	KUNIT_ASSERT_TRUE(test, c->stolen);
	/*
	 * The other queue's claim came first and won, or its cancel_sync
	 * waits: nothing of ours, and the task bound to no queue of ours.
	 */
	KUNIT_EXPECT_EQ(test, err, -EBUSY);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, 0U);
	bound = READ_ONCE(c->task.queue);
	KUNIT_EXPECT_PTR_EQ(test, bound, cancel ? NULL : c->other);
	KUNIT_EXPECT_EQ(test, kref_read(&c->task.ref), 1U);

	/*
	 * The other queue lets it go unqueued, or its cancel_sync returns:
	 * ours may take it now.
	 */
	if (cancel)
		WRITE_ONCE(c->task.canceling, 0);
	else /* As __dwq_task_unbind() lets go. */
		smp_store_release(&c->task.queue, NULL);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &c->task, &far), 0);
	KUNIT_EXPECT_EQ(test, ct_stats(q).size, 1U);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&c->task), DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_EQ(test, kref_read(&c->task.ref), 1U);
}

static void dwq_context_test_claim_race(struct kunit *test)
{
	ct_claim_race(test, false, false);
}

static void dwq_context_test_claim_race_batch(struct kunit *test)
{
	ct_claim_race(test, true, false);
}

/*
 * A dwq_cancel_sync() of the other queue that counts itself in the moment
 * between a schedule's check and its claim: the schedule must not bind a
 * task whose cancel_sync is waiting (its caller may free it on return).
 */
static void dwq_context_test_claim_while_cancel_sync(struct kunit *test)
{
	ct_claim_race(test, false, true);
}

static void dwq_context_test_claim_while_cancel_sync_batch(struct kunit *test)
{
	ct_claim_race(test, true, true);
}

/**
 * dwq_kunit_leading() - is @q's leader asleep on its timer?
 * @q: the queue
 *
 * Return: true if a worker leads, asleep, with no wakeup on its way.
 */
bool dwq_kunit_leading(struct dwq_queue *q)
{
	struct task_struct *t;
	bool asleep;

	raw_spin_lock_irq(&q->lock);
	t = q->leader ? q->leader->thread : NULL;
	asleep = t && !q->leader_fired && !task_is_running(t);
	raw_spin_unlock_irq(&q->lock);
	return asleep;
}

/*
 * A quick task due while a worker leads runs in the queue's timer, in
 * softirq context, with no worker woken: the leader sleeps on through a
 * one-shot and through every period of a periodic one (re-queued by the
 * timer), and dwq_cancel_sync() of the periodic one leaves it idle. Both
 * count as run by the leader.
 */
static void dwq_context_test_quick_in_timer(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 3);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched soon = { .time_ns = 20 * MS };
	struct dwq_sched rate = { .time_ns = 20 * MS,
				  .mode = DWQ_MODE_FIXED_RATE,
				  .period_ns = 10 * MS };
	struct dwq_queue_stats before, after;
	int runs;

	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	before = ct_stats(q);
	dwq_task_set_quick(&p[1].task, true);
	dwq_task_set_quick(&p[2].task, true);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &soon), 0);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[2].task, &rate), 0);
	dwq_kunit_wait_until(test,
			     ct_unbound(&p[1]) && atomic_read(&p[2].runs) >= 3);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[2].task), 0);
	KUNIT_EXPECT_TRUE(test, ct_unbound(&p[2]));
	runs = atomic_read(&p[2].runs);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	after = ct_stats(q);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	KUNIT_EXPECT_EQ(test, after.total.tasks_run,
			before.total.tasks_run + 1 + runs);
	KUNIT_EXPECT_PTR_NE(test, p[1].thread, q->workers[0].thread);
	KUNIT_EXPECT_PTR_NE(test, p[2].thread, q->workers[0].thread);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].softirq_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[2].softirq_runs), runs);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[2].runs), runs);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 0);
}

/*
 * The leader is asleep with nothing queued and its timer unarmed: the
 * next task queued arms it.
 */
static bool ct_asleep(struct dwq_queue *q)
{
	struct task_struct *t;
	bool asleep;

	raw_spin_lock_irq(&q->lock);
	t = q->leader ? q->leader->thread : NULL;
	asleep = t && !q->leader_fired && !task_is_running(t) &&
		 q->leader_deadline == KTIME_MAX && !q->front &&
		 !dwq_heap_peek(&q->heap);
	raw_spin_unlock_irq(&q->lock);
	return asleep;
}

/*
 * A quick task alone in the queue: the timer runs it and, with nothing
 * left, the leader sleeps on, untimed, instead of being woken to follow.
 * The next quick task arms its timer again; a task cancelled before it is
 * due leaves the timer to find nothing, which wakes nobody either. An
 * ordinary task still wakes the leader, once, and runs on it.
 *
 * Each step holds whatever the scheduling thread's delays: the leader is
 * in place, timed for an hour, before the first quick task, and a quick
 * task due when queued is run by the timer too. Only the task cancelled
 * before it is due needs its cancel to come first: it is due in 200 ms,
 * and nothing on this CPU runs between its schedule and its cancel.
 */
static void dwq_context_test_quick_alone(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 5);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched soon = { .time_ns = 20 * MS };
	struct dwq_sched later = { .time_ns = 200 * MS };
	struct dwq_queue_stats before, after;
	int queued, cancelled;

	dwq_task_set_quick(&p[0].task, true);
	dwq_task_set_quick(&p[1].task, true);
	dwq_task_set_quick(&p[2].task, true);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[4].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	before = ct_stats(q);
	/* The timer stays armed for the hour: nothing to find, no wakeup. */
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[4].task), DWQ_RESULT_REMOVED);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &soon), 0);
	dwq_kunit_wait_until(test, ct_unbound(&p[0]) && ct_asleep(q));
	after = ct_stats(q);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	KUNIT_EXPECT_EQ(test, after.total.tasks_run,
			before.total.tasks_run + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].softirq_runs), 1);

	before = after;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &soon), 0);
	dwq_kunit_wait_until(test, ct_unbound(&p[1]) && ct_asleep(q));
	local_bh_disable();
	queued = dwq_schedule(q, &p[2].task, &later);
	cancelled = dwq_cancel(&p[2].task);
	local_bh_enable();
	KUNIT_ASSERT_EQ(test, queued, 0);
	KUNIT_EXPECT_EQ(test, cancelled, DWQ_RESULT_REMOVED);
	/* Armed for it, the timer must fire and find nothing to be asleep. */
	dwq_kunit_wait_until(test, ct_asleep(q));
	after = ct_stats(q);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	KUNIT_EXPECT_EQ(test, after.total.tasks_run,
			before.total.tasks_run + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].softirq_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[2].runs), 0);

	before = after;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[3].task, &soon), 0);
	dwq_kunit_wait_until(test, ct_unbound(&p[3]));
	after = ct_stats(q);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups + 1);
	KUNIT_EXPECT_PTR_EQ(test, p[3].thread, q->workers[0].thread);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[3].softirq_runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[4].runs), 0);
}

/*
 * An ordinary task due while a worker leads still wakes it and runs on
 * it, in process context with softirqs on.
 */
static void dwq_context_test_not_quick_on_worker(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 2);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched soon = { .time_ns = 20 * MS };
	struct dwq_queue_stats before, after;

	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	before = ct_stats(q);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &soon), 0);
	dwq_kunit_wait_until(test, ct_unbound(&p[1]));
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	after = ct_stats(q);
	KUNIT_EXPECT_PTR_EQ(test, p[1].thread, q->workers[0].thread);
	KUNIT_EXPECT_FALSE(test, p[1].bh_off);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups + 1);
	KUNIT_EXPECT_EQ(test, after.total.tasks_run,
			before.total.tasks_run + 1);
}

/*
 * More quick tasks due at once than one expiry runs: the timer runs
 * DWQ_TIMER_RUN_MAX of them and wakes the leader once, which runs the
 * rest on its thread with softirqs off. All run, once each, in deadline
 * order.
 */
static void dwq_context_test_quick_burst(struct kunit *test)
{
	const unsigned int n = DWQ_TIMER_RUN_MAX + 4;
	struct ct_probe *p = ct_probes(test, n + 1);
	struct dwq_queue *q = ct_queue(test, 1, n + 1);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched s[DWQ_TIMER_RUN_MAX + 4];
	struct dwq_task *tasks[DWQ_TIMER_RUN_MAX + 4];
	struct dwq_queue_stats before, after;
	unsigned int i, in_timer = 0, on_worker = 0;
	u64 at = ktime_get_ns() + 20 * MS;

	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[n].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	before = ct_stats(q);
	for (i = 0; i < n; i++) {
		dwq_task_set_quick(&p[i].task, true);
		tasks[i] = &p[i].task;
		s[i] = (struct dwq_sched){ .time_ns = at,
					   .flags = DWQ_SCHED_ABS };
	}
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, n), 0);
	for (i = 0; i < n; i++)
		dwq_kunit_wait_until(test, ct_unbound(&p[i]));
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	after = ct_stats(q);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 1);
		KUNIT_EXPECT_TRUE(test, p[i].bh_off);
		if (p[i].softirq) {
			in_timer++;
			KUNIT_EXPECT_PTR_NE(test, p[i].thread,
					    q->workers[0].thread);
		} else if (p[i].thread == q->workers[0].thread) {
			on_worker++;
		}
		/* Equal deadlines run in the order scheduled. */
		KUNIT_EXPECT_EQ(test, p[i].softirq, i < DWQ_TIMER_RUN_MAX);
	}
	KUNIT_EXPECT_EQ(test, in_timer, DWQ_TIMER_RUN_MAX);
	KUNIT_EXPECT_EQ(test, on_worker, n - DWQ_TIMER_RUN_MAX);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups + 1);
	KUNIT_EXPECT_EQ(test, after.total.tasks_run,
			before.total.tasks_run + n);
}

/*
 * dwq_cancel_sync() from a quick callback, in the timer: -EDEADLK, having
 * done nothing, for its own task and for another one (it would sleep with
 * softirqs off); that one is still queued after.
 */
static void dwq_context_test_quick_no_cancel_sync(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 3);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched soon = { .time_ns = 20 * MS };
	struct dwq_task_info info;

	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	dwq_task_set_quick(&p[1].task, true);
	dwq_task_set_quick(&p[2].task, true);
	p[1].sync = &p[1].task;
	p[2].sync = &p[0].task;
	p[1].sync_ret = 1;
	p[2].sync_ret = 1;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &soon), 0);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[2].task, &soon), 0);
	dwq_kunit_wait_until(test, ct_unbound(&p[1]) && ct_unbound(&p[2]));
	KUNIT_EXPECT_TRUE(test, p[1].softirq);
	KUNIT_EXPECT_EQ(test, p[1].sync_ret, -EDEADLK);
	KUNIT_EXPECT_EQ(test, p[2].sync_ret, -EDEADLK);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
}

/* Counts where the release function ran. */
struct ct_released {
	struct dwq_task task;
	atomic_t released;
	bool softirq;
};

static void ct_released_fn(struct dwq_task *task)
{
}

static void ct_released_release(struct dwq_task *task)
{
	struct ct_released *r = container_of(task, struct ct_released, task);

	r->softirq = in_serving_softirq();
	atomic_inc(&r->released);
}

/*
 * A quick one-shot whose owner dropped its reference while it was queued:
 * the queue's, the last, goes when the timer has run it, and the release
 * function runs there, in softirq context, once. The deadline is a second
 * away so that the owner's put, the very next statement, comes first: were
 * the timer first, the put would be the last and release in process
 * context. A guest whose vCPU the host left unrun for that second, so that
 * the release ran there, skips the test.
 */
static void dwq_context_test_quick_release_in_timer(struct kunit *test)
{
	struct ct_probe *p = ct_probes(test, 1);
	struct ct_released *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct dwq_queue *q = ct_queue(test, 1, 0);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched soon = { .time_ns = 1000 * MS };
	bool late;
	u64 t0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	dwq_task_init(&r->task, ct_released_fn, ct_released_release);
	dwq_task_set_quick(&r->task, true);
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &r->task, &soon), 0);
	dwq_task_put(&r->task);
	late = ktime_get_ns() - t0 >= soon.time_ns;
	dwq_kunit_wait_until(test, atomic_read(&r->released));
	KUNIT_EXPECT_EQ(test, atomic_read(&r->released), 1);
	if (late && !r->softirq)
		dwq_kunit_skip(test,
			       "the guest reached the deadline before the put");
	KUNIT_EXPECT_TRUE(test, r->softirq);
}

/*
 * dwq_cancel_sync() of a quick periodic task that the timer runs, every
 * 20 us, racing its firings at varying points, then the object freed at
 * once: the queue holds no reference and never touches it again (KASAN
 * reports a use after the kfree()), and the leader is never woken.
 *
 * Fixed-delay, so that each firing's next deadline is 20 us after it ran:
 * a fixed-rate task falls behind by a period for every 20 us the guest's
 * vCPU is not run on a loaded host, and one expiry more than
 * DWQ_TIMER_RUN_MAX periods late rightly wakes the leader for the rest.
 */
static void dwq_context_test_quick_cancel_sync_free(struct kunit *test)
{
	const unsigned int n = 1000;
	atomic_t *ran = kunit_kzalloc(test, 2 * sizeof(*ran), GFP_KERNEL);
	struct ct_probe *p = ct_probes(test, 1);
	struct dwq_queue *q = ct_queue(test, 1, 16);
	struct dwq_sched far = { .time_ns = HOUR };
	unsigned int i, refs_left = 0, bound_left = 0, running = 0;
	struct dwq_queue_stats before, after;
	struct dwq_sched s;
	struct ct_obj *o;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ran);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	before = ct_stats(q);
	for (i = 0; i < n; i++) {
		o = kzalloc(sizeof(*o), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		dwq_task_init(&o->task, ct_obj_fn, NULL);
		dwq_task_set_quick(&o->task, true);
		o->ran = &ran[0];
		o->in_timer = &ran[1];
		s = (struct dwq_sched){ .time_ns = (i % 4) * 10 * NSEC_PER_USEC,
					.mode = DWQ_MODE_FIXED_DELAY,
					.period_ns = 20 * NSEC_PER_USEC };
		if (dwq_schedule(q, &o->task, &s)) {
			kfree(o);
			KUNIT_FAIL(test, "schedule %u failed", i);
			break;
		}
		ct_spin((i % 64) * NSEC_PER_USEC);
		ret = dwq_cancel_sync(&o->task);
		running += ret == DWQ_RESULT_RUNNING;
		refs_left += kref_read(&o->task.ref) != 1;
		bound_left += !!READ_ONCE(o->task.queue);
		kfree(o);
	}
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	after = ct_stats(q);
	KUNIT_EXPECT_EQ(test, refs_left, 0U);
	KUNIT_EXPECT_EQ(test, bound_left, 0U);
	/* The race was run: callbacks ran, all of them in the timer. */
	KUNIT_EXPECT_GT(test, atomic_read(&ran[0]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ran[1]), atomic_read(&ran[0]));
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	kunit_info(test, "%d runs, %u cancels found one running",
		   atomic_read(&ran[0]), running);
}

/*
 * dwq_queue_destroy() while the timer runs quick tasks: one-shots due at
 * once, and a periodic one every 20 us. With DWQ_DESTROY_RUN_DUE every
 * one-shot due runs exactly once (in the timer before, on a worker during
 * the destroy); with DWQ_DESTROY_DROP at most once. Either way every task
 * is let go (KASAN reports the timer touching the queue once freed).
 */
static void dwq_context_test_quick_destroy(struct kunit *test)
{
	const unsigned int n = 24, rounds = 40;
	struct ct_probe *p = ct_probes(test, n + 2);
	struct dwq_sched far = { .time_ns = HOUR };
	struct dwq_sched rate = { .mode = DWQ_MODE_FIXED_RATE,
				  .period_ns = 20 * NSEC_PER_USEC };
	struct dwq_sched s[24] = {};
	struct dwq_task *tasks[24];
	unsigned int i, r, wrong = 0, bound = 0;
	struct dwq_queue *q;
	bool run_due;

	for (r = 0; r < rounds; r++) {
		run_due = r % 2;
		q = dwq_queue_create("kunit", 1, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
		KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, n + 2), 0);
		for (i = 0; i < n + 2; i++) {
			atomic_set(&p[i].runs, 0);
			dwq_task_set_quick(&p[i].task, true);
		}
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[n].task, &far), 0);
		dwq_kunit_wait_until(test, dwq_kunit_leading(q));
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[n + 1].task, &rate),
				0);
		ct_spin((r % 8) * 10 * NSEC_PER_USEC);
		for (i = 0; i < n; i++)
			tasks[i] = &p[i].task;
		KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, n), 0);
		ct_spin((r % 5) * 5 * NSEC_PER_USEC);
		dwq_queue_destroy(q, run_due ? DWQ_DESTROY_RUN_DUE :
					       DWQ_DESTROY_DROP);
		for (i = 0; i < n + 2; i++) {
			bound += !!READ_ONCE(p[i].task.queue);
			if (i < n && atomic_read(&p[i].runs) != 1 &&
			    (run_due || atomic_read(&p[i].runs) > 1)) {
				if (!wrong)
					kunit_info(test,
						   "round %u (%s): task %u ran %d times",
						   r,
						   run_due ? "run_due" : "drop",
						   i, atomic_read(&p[i].runs));
				wrong++;
			}
		}
	}
	KUNIT_EXPECT_EQ(test, bound, 0U);
	KUNIT_EXPECT_EQ(test, wrong, 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[n].runs), 0);
}

static struct kunit_case dwq_context_test_cases[] = {
	KUNIT_CASE(dwq_context_test_quick_in_timer),
	KUNIT_CASE(dwq_context_test_quick_alone),
	KUNIT_CASE(dwq_context_test_not_quick_on_worker),
	KUNIT_CASE(dwq_context_test_quick_burst),
	KUNIT_CASE(dwq_context_test_quick_no_cancel_sync),
	KUNIT_CASE(dwq_context_test_quick_release_in_timer),
	KUNIT_CASE_SLOW(dwq_context_test_quick_cancel_sync_free),
	KUNIT_CASE_SLOW(dwq_context_test_quick_destroy),
	KUNIT_CASE(dwq_context_test_hardirq),
	KUNIT_CASE(dwq_context_test_cancel_sync_atomic),
	KUNIT_CASE(dwq_context_test_softirq),
	KUNIT_CASE(dwq_context_test_locked),
	KUNIT_CASE(dwq_context_test_no_room),
	KUNIT_CASE(dwq_context_test_rearm_no_room),
	KUNIT_CASE(dwq_context_test_reserve_fails),
	KUNIT_CASE(dwq_context_test_reserve_floor),
	KUNIT_CASE(dwq_context_test_reserve_stale_shrink),
	KUNIT_CASE(dwq_context_test_reserve_full_grows),
	KUNIT_CASE(dwq_context_test_reserve_cancel_running),
	KUNIT_CASE(dwq_context_test_full_batch_shrinks),
	KUNIT_CASE(dwq_context_test_reserve_fill),
	KUNIT_CASE(dwq_context_test_mod),
	KUNIT_CASE(dwq_context_test_reduce),
	KUNIT_CASE(dwq_context_test_reduce_running),
	KUNIT_CASE(dwq_context_test_mod_rearm_self),
	KUNIT_CASE(dwq_context_test_mod_rearm_self_no_wake),
	KUNIT_CASE(dwq_context_test_mod_cancel_order),
	KUNIT_CASE(dwq_context_test_mod_during_cancel_sync),
	KUNIT_CASE(dwq_context_test_cancel_sync_full),
	KUNIT_CASE(dwq_context_test_cancel_sync_full_ends),
	KUNIT_CASE_SLOW(dwq_context_test_cancel_sync_free),
	KUNIT_CASE(dwq_context_test_cancel_sync_no_ref),
	KUNIT_CASE(dwq_context_test_last_put_while_unbinding),
	KUNIT_CASE(dwq_context_test_cancel_sync_removed_no_ref),
	KUNIT_CASE(dwq_context_test_claim_race),
	KUNIT_CASE(dwq_context_test_claim_race_batch),
	KUNIT_CASE(dwq_context_test_claim_while_cancel_sync),
	KUNIT_CASE(dwq_context_test_claim_while_cancel_sync_batch),
	{}
};

static struct kunit_suite dwq_context_test_suite = {
	.name = "dwq_context",
	.test_cases = dwq_context_test_cases,
};

kunit_test_suite(dwq_context_test_suite);
