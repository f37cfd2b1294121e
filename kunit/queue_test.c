// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the dwq queue: the leader/follower take() (the seeds'
 * experiment, voiding the leader, stopping it, wakeups per task), run
 * order, capacity seen through the queue, schedule errors, clocks, and
 * destroy with both policies.
 *
 * These run under QEMU TCG with KASAN and lockdep: times are generous and
 * the assertions are on counts and orders, not on tight latencies. No case
 * sleeps for a guessed time: each waits for the state it needs (a
 * completion its callback sets, or an engine state polled under the
 * queue's lock), with a timeout that only bounds a failure. Timing and
 * concurrency checks that need real time are tools/testing/stress's.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <kunit/test.h>

#include "dwq_internal.h"
#include "wait.h"

/* A task that records how and when it ran. */
struct qt_probe {
	struct dwq_task task;
	atomic_t runs;
	int worker;
	int order;
	u64 start;
	u64 deadline;
	u64 overruns; /* dwq_task_run_overruns() */
	struct completion started; /* on entry */
	struct completion ran; /* on exit */
	atomic_t *seq; /* stamps @order */
	struct completion *gate; /* wait for it before returning... */
	bool gate_open; /* ...and note whether it was open on entry */
	bool until_stop; /* block until the worker is asked to stop */
	atomic_t *inflight; /* callbacks running at once... */
	atomic_t *max_inflight; /* ...and the most seen */
	atomic_t *done; /* counted once per run */
	atomic_t *released; /* counted by the release function */
	struct dwq_queue *resched_q; /* schedule @resched on it... */
	struct qt_probe *resched;
	int resched_err; /* ...and keep the result, */
	int batch_err; /* ...that of a batch of it after, */
	int reserve_err; /* ...and of a reservation of a slot */
	struct qt_probe *move; /* dwq_reschedule() it to the past... */
	int move_err; /* ...and keep the result */
	struct dwq_queue *q; /* record whether our worker's... */
	bool handoff_armed; /* ...hand-off timer is armed */
};

/*
 * Block in a callback until the worker running it is asked to stop: that
 * is dwq_queue_destroy() reaching this worker, which from then on waits
 * for the callback to return (kthread_stop() wakes us). A destroy that did
 * not wait for callbacks never gets here: then this gives up after
 * GATE_MS, long after the test has seen destroy return too early.
 */
static void qt_hold_until_stop(void)
{
	long left = msecs_to_jiffies(GATE_MS);

	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop() && left) {
		left = schedule_timeout(left);
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
}

static void qt_probe_fn(struct dwq_task *task)
{
	struct qt_probe *p = container_of(task, struct qt_probe, task);
	struct dwq_sched s = { .time_ns = 0, .mode = DWQ_MODE_ONESHOT };
	int n, max;

	p->start = ktime_get_ns();
	p->worker = dwq_task_run_worker(task);
	p->deadline = dwq_task_run_deadline(task);
	p->overruns = dwq_task_run_overruns(task);
	if (p->q)
		p->handoff_armed =
			hrtimer_active(&p->q->workers[p->worker].handoff);
	if (p->seq)
		p->order = atomic_inc_return(p->seq);
	if (p->inflight) {
		n = atomic_inc_return(p->inflight);
		max = atomic_read(p->max_inflight);
		while (n > max && !atomic_try_cmpxchg(p->max_inflight, &max, n))
			;
	}
	complete(&p->started);
	if (p->gate) {
		p->gate_open = completion_done(p->gate);
		wait_for_completion_timeout(p->gate, msecs_to_jiffies(GATE_MS));
	}
	if (p->until_stop)
		qt_hold_until_stop();
	if (p->resched_q) {
		struct dwq_task *one = &p->resched->task;

		p->resched_err = dwq_schedule(p->resched_q, one, &s);
		p->batch_err = dwq_schedule_batch(p->resched_q, &one, &s, 1);
		p->reserve_err = dwq_queue_reserve(p->resched_q, 1);
	}
	if (p->move) {
		/* A deadline long past: due at once. */
		s.flags = DWQ_SCHED_ABS;
		p->move_err = dwq_reschedule(&p->move->task, &s);
	}
	if (p->inflight)
		atomic_dec(p->inflight);
	atomic_inc(&p->runs);
	if (p->done)
		atomic_inc(p->done);
	complete(&p->ran);
}

static void qt_probe_release(struct dwq_task *task)
{
	struct qt_probe *p = container_of(task, struct qt_probe, task);

	atomic_inc(p->released);
}

KUNIT_DEFINE_ACTION_WRAPPER(qt_kvfree, kvfree, const void *);

/* @n probes, freed when the test ends (after the queue, made later). */
static struct qt_probe *qt_probes(struct kunit *test, unsigned int n)
{
	struct qt_probe *p;
	unsigned int i;

	p = kvcalloc(n, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qt_kvfree, p), 0);
	for (i = 0; i < n; i++) {
		dwq_task_init(&p[i].task, qt_probe_fn, NULL);
		init_completion(&p[i].started);
		init_completion(&p[i].ran);
	}
	return p;
}

/*
 * A gate for callbacks to wait at, freed when the test ends (after the
 * queue, made later, whose callbacks may still wait at it).
 */
static struct completion *qt_gate(struct kunit *test)
{
	struct completion *gate;

	gate = kunit_kzalloc(test, sizeof(*gate), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gate);
	init_completion(gate);
	return gate;
}

/*
 * @n counters for callbacks to count in, zero, freed when the test ends
 * (after the queue, made later, whose callbacks may still count in them).
 */
static atomic_t *qt_counters(struct kunit *test, unsigned int n)
{
	atomic_t *c = kunit_kcalloc(test, n, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	return c;
}

static void qt_destroy(void *q)
{
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
}

/*
 * A queue destroyed when the test ends, even if it fails half-way, with
 * room reserved for @room tasks (scheduling never allocates).
 */
static struct dwq_queue *qt_queue_room(struct kunit *test, unsigned int workers,
				       unsigned int flags, unsigned int room)
{
	struct dwq_queue *q;

	q = dwq_queue_create("kunit", workers, flags);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qt_destroy, q),
			0);
	if (room)
		KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, room), 0);
	return q;
}

/* The queue of most cases: room for their tasks, a hundred at most. */
static struct dwq_queue *qt_queue(struct kunit *test, unsigned int workers,
				  unsigned int flags)
{
	return qt_queue_room(test, workers, flags, 128);
}

/*
 * Skip the rest of @test if the guest stalled until @at, a deadline 2 s
 * ahead, before a step that must be over by then: what follows would
 * judge a timer that has fired meanwhile.
 */
static void qt_still_before(struct kunit *test, u64 at)
{
	if (ktime_get_ns() >= at)
		dwq_kunit_skip(test,
			       "the guest stalled past a deadline 2 s ahead");
}

/*
 * Arm the leader's timer exactly for every head, however far: for cases
 * that check its range on heads more than a second ahead (see
 * dwq_queue_test_far_head_coarse() for the early arm they would get).
 */
static void qt_exact(struct dwq_queue *q)
{
	raw_spin_lock_irq(&q->lock);
	q->far_ns = KTIME_MAX;
	raw_spin_unlock_irq(&q->lock);
}

static int qt_after(struct dwq_queue *q, struct qt_probe *p, u64 delay)
{
	struct dwq_sched s = { .time_ns = delay, .mode = DWQ_MODE_ONESHOT };

	return dwq_schedule(q, &p->task, &s);
}

static int qt_at(struct dwq_queue *q, struct qt_probe *p, u64 deadline)
{
	struct dwq_sched s = {
		.time_ns = deadline,
		.mode = DWQ_MODE_ONESHOT,
		.flags = DWQ_SCHED_ABS,
	};

	return dwq_schedule(q, &p->task, &s);
}

static void qt_wait_for(struct kunit *test, struct completion *c,
			unsigned int ms)
{
	unsigned long left;

	left = wait_for_completion_timeout(c, msecs_to_jiffies(ms));
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "timed out after %u ms", ms);
}

static void qt_wait_ran(struct kunit *test, struct qt_probe *p)
{
	unsigned long left;

	left = wait_for_completion_timeout(&p->ran,
					   msecs_to_jiffies(TIMEOUT_MS));
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "task did not run");
}

/* Keep @q's worker busy: @p runs now, and waits at @gate to return. */
static void qt_busy(struct kunit *test, struct dwq_queue *q, struct qt_probe *p,
		    struct completion *gate)
{
	p->gate = gate;
	KUNIT_ASSERT_EQ(test, qt_after(q, p, 0), 0);
	qt_wait_for(test, &p->started, TIMEOUT_MS);
}

static struct dwq_queue_stats qt_stats(struct dwq_queue *q)
{
	struct dwq_queue_stats st;

	dwq_queue_get_stats(q, &st);
	return st;
}

static struct dwq_worker_stats qt_wstats(struct kunit *test,
					 struct dwq_queue *q, unsigned int id)
{
	struct dwq_worker_stats ws;

	KUNIT_EXPECT_EQ(test, dwq_queue_get_worker_stats(q, id, &ws), 0);
	return ws;
}

/*
 * @w is asleep, or about to be, with no wakeup on its way: a follower
 * still on the followers list (a wakeup takes it off at once, under the lock),
 * or the leader still leading (a voiding schedule clears @q->leader before
 * it wakes it); and its thread still not running (any wakeup makes it so
 * at once, and it set its sleeping state under the lock).
 */
static bool __qt_asleep(struct dwq_queue *q, struct dwq_worker *w)
{
	lockdep_assert_held(&q->lock);
	if (!w->thread || task_is_running(w->thread))
		return false;
	if (w->state == DWQ_WORKER_FOLLOWER)
		return !list_empty(&w->follow);
	return w->state == DWQ_WORKER_LEADER && q->leader == w;
}

static bool qt_asleep(struct dwq_queue *q, unsigned int id)
{
	bool asleep;

	raw_spin_lock_irq(&q->lock);
	asleep = __qt_asleep(q, &q->workers[id]);
	raw_spin_unlock_irq(&q->lock);
	return asleep;
}

/*
 * Every worker still running is asleep with no wakeup on its way. Until
 * the next deadline or the test's next call nothing changes: every wakeup
 * the engine made before has been counted, and nobody else wakes.
 */
static bool qt_settled(struct dwq_queue *q)
{
	bool settled = true;
	unsigned int i;

	raw_spin_lock_irq(&q->lock);
	for (i = 0; i < q->max_workers && settled; i++)
		if (q->workers[i].thread)
			settled = __qt_asleep(q, &q->workers[i]);
	raw_spin_unlock_irq(&q->lock);
	return settled;
}

/* Wait until all @n workers sleep as followers, none having woken yet. */
static void qt_wait_followers(struct kunit *test, struct dwq_queue *q,
			      unsigned int n)
{
	struct dwq_queue_stats st;

	dwq_kunit_wait_until(test, qt_settled(q));
	st = qt_stats(q);
	KUNIT_ASSERT_EQ(test, st.total.untimed_waits, (u64)n);
	KUNIT_ASSERT_EQ(test, st.total.wakeups, 0ULL);
	KUNIT_ASSERT_EQ(test, st.leader, -1);
}

/* The leader if it is not @other, else -1. */
static int qt_leader_but(struct dwq_queue *q, int other)
{
	int leader = qt_stats(q).leader;

	return leader != other ? leader : -1;
}

/* Some worker other than @other leads, or -1 if none within TIMEOUT_MS. */
static int qt_wait_leader(struct dwq_queue *q, int other)
{
	int leader = -1;

	dwq_kunit_poll((leader = qt_leader_but(q, other)) >= 0);
	return leader;
}

/* Wait until @count reaches @n. */
static void qt_wait_count(struct kunit *test, atomic_t *count, int n)
{
	dwq_kunit_wait_until(test, atomic_read(count) >= n);
	KUNIT_ASSERT_EQ(test, atomic_read(count), n);
}

/* Every one of @n probes has run and the queue has let go of it. */
static bool qt_all_idle(struct qt_probe *p, unsigned int n)
{
	struct dwq_task_info info;
	unsigned int i;

	for (i = 0; i < n; i++) {
		dwq_query(&p[i].task, &info);
		if (info.state != DWQ_STATE_IDLE || !atomic_read(&p[i].runs))
			return false;
	}
	return true;
}

/*
 * Call @w's hand-off timer function where its hrtimer would. The timer is
 * initialised without HRTIMER_MODE_HARD (worker.c), so it expires in hard
 * interrupt context, interrupts off, on a kernel without PREEMPT_RT, and in
 * softirq context, bottom halves off but preemptible, with PREEMPT_RT
 * (where spinlock_t sleeps, and local_irq_disable() around it is a bug).
 * What holds on both: the function takes @q->lock with a plain spin_lock(),
 * right in either expiry context; without PREEMPT_RT it must not be called
 * with interrupts on, as the lock is taken in hard interrupt context.
 */
static enum hrtimer_restart qt_fire_handoff(struct dwq_worker *w)
{
	enum hrtimer_restart ret;

	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		local_bh_disable();
		ret = w->handoff.function(&w->handoff);
		local_bh_enable();
	} else {
		local_irq_disable();
		ret = w->handoff.function(&w->handoff);
		local_irq_enable();
	}
	return ret;
}

static u32 qt_rand(u32 *state)
{
	/* xorshift32: reproducible, and the same on every kernel */
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return *state;
}

/* A new queue is empty, has the minimum capacity, and names its workers. */
static void dwq_queue_test_create(struct kunit *test)
{
	struct dwq_queue *q = qt_queue_room(test, 3, 0, 0);
	struct dwq_queue_stats st = qt_stats(q);
	char comm[TASK_COMM_LEN];
	struct dwq_worker_stats ws;

	KUNIT_EXPECT_EQ(test, st.size, 0U);
	KUNIT_EXPECT_EQ(test, st.capacity, DWQ_HEAP_MIN_CAPACITY);
	KUNIT_EXPECT_EQ(test, st.workers, 3U);
	KUNIT_EXPECT_EQ(test, st.leader, -1);
	get_task_comm(comm, q->workers[2].thread);
	KUNIT_EXPECT_STREQ(test, comm, "dwq-kunit/2");
	KUNIT_EXPECT_EQ(test, dwq_queue_get_worker_stats(q, 3, &ws), -EINVAL);
}

/* Bad names, worker counts and flags are refused. */
static void dwq_queue_test_create_invalid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, PTR_ERR(dwq_queue_create("kunit", 0, 0)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(dwq_queue_create("kunit", 65, 0)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(dwq_queue_create("kunit", 1, 0x80)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test,
			PTR_ERR(dwq_queue_create("kunit", 1,
						 DWQ_QUEUE_HARDIRQ | 0x4)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(dwq_queue_create("", 1, 0)),
			(long)-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(dwq_queue_create(NULL, 1, 0)),
			(long)-EINVAL);
}

/*
 * The seeds' experiment: 4 idle workers, no leader; a task 2 s ahead
 * makes exactly one worker leader in a timed wait, runs on it, and the
 * other three never wake; three zero-delay tasks then run once each. The
 * leader's wakeup and sleep, waited for, and the snapshot after them must
 * all come before the task is due (300 ms, as the seeds had it, can pass
 * in a slow guest): 2 s, with the timer armed exactly for it. A guest that
 * takes longer still skips the case.
 */
static void dwq_queue_test_seed_experiment(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 4);
	struct dwq_queue *q = qt_queue(test, 4, 0);
	struct dwq_worker_stats ws[4];
	int leader, i, runs, now_leader;
	u64 t0, until, due;

	qt_exact(q);
	qt_wait_followers(test, q, 4);
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 2000 * MS), 0);

	leader = qt_wait_leader(q, -1);
	KUNIT_ASSERT_GE(test, leader, 0);
	dwq_kunit_wait_until(test, qt_settled(q));
	/* The leader sleeps until p[0] is due; p[0] has not run yet. */
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	due = p[0].task.node.deadline;
	raw_spin_unlock_irq(&q->lock);
	runs = atomic_read(&p[0].runs);
	now_leader = qt_stats(q).leader;
	for (i = 0; i < 4; i++)
		ws[i] = qt_wstats(test, q, i);
	/* The snapshot came before p[0] was due. */
	qt_still_before(test, t0 + 2000 * MS);
	KUNIT_EXPECT_EQ(test, until, due);
	KUNIT_EXPECT_EQ(test, runs, 0);
	KUNIT_EXPECT_EQ(test, now_leader, leader);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, ws[i].wakeups, i == leader ? 1ULL : 0ULL);
		KUNIT_EXPECT_EQ(test, ws[i].timed_waits,
				i == leader ? 1ULL : 0ULL);
		KUNIT_EXPECT_EQ(test, ws[i].leader_changes,
				i == leader ? 1ULL : 0ULL);
	}

	qt_wait_ran(test, &p[0]);
	KUNIT_EXPECT_EQ(test, p[0].worker, leader);
	KUNIT_EXPECT_GE(test, p[0].start, t0 + 2000 * MS);
	for (i = 0; i < 4; i++)
		if (i != leader)
			KUNIT_EXPECT_EQ(test, qt_wstats(test, q, i).wakeups,
					0ULL);

	for (i = 1; i < 4; i++)
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[i], 0), 0);
	for (i = 1; i < 4; i++) {
		qt_wait_ran(test, &p[i]);
		kunit_info(test, "T%d ran on dwq-kunit/%d\n", i + 1,
			   p[i].worker);
	}
	/* Each run is over and the queue is empty: none can run again. */
	dwq_kunit_wait_until(test, qt_all_idle(p, 4) && qt_settled(q));
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 1);
	KUNIT_EXPECT_EQ(test, qt_stats(q).total.tasks_run, 4ULL);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 0U);
}

/*
 * An earlier task scheduled while a leader waits moves the leader's timer
 * in place: nobody wakes, the same worker still leads, for the new head,
 * and it runs first. Arming a new head and cancelling it, over and over,
 * wakes nobody either. The new head is 2 s ahead, its timer armed exactly:
 * the snapshot after it must come before it is due, even in a slow guest
 * (one that takes longer skips the case).
 */
static void dwq_queue_test_earlier_moves_timer(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 34);
	struct dwq_queue *q = qt_queue(test, 4, 0);
	struct dwq_queue_stats before, after;
	u64 t0, until, hard, due;
	struct hrtimer *armed;
	s64 soft, expires;
	int leader, i;

	qt_wait_followers(test, q, 4);
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 60000 * MS), 0);
	leader = qt_wait_leader(q, -1);
	KUNIT_ASSERT_GE(test, leader, 0);
	dwq_kunit_wait_until(test, qt_settled(q));
	before = qt_stats(q);

	/* New heads, each armed and cancelled: the timer moves, nobody wakes. */
	for (i = 2; i < 34; i++) {
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[i], 30000 * MS), 0);
		KUNIT_ASSERT_EQ(test, dwq_cancel(&p[i].task),
				DWQ_RESULT_REMOVED);
	}
	dwq_kunit_wait_until(test, qt_settled(q));
	after = qt_stats(q);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	KUNIT_EXPECT_EQ(test, after.leader, leader);

	qt_exact(q);
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[1], 2000 * MS), 0);
	dwq_kunit_wait_until(test, qt_settled(q));
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	hard = q->leader_hard;
	due = p[1].task.node.deadline;
	armed = q->armed;
	soft = ktime_to_ns(hrtimer_get_softexpires(&q->wake_timer));
	expires = ktime_to_ns(hrtimer_get_expires(&q->wake_timer));
	raw_spin_unlock_irq(&q->lock);
	after = qt_stats(q);
	/* The snapshot came before p[1] was due. */
	qt_still_before(test, t0 + 2000 * MS);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	KUNIT_EXPECT_EQ(test, after.leader, leader);
	KUNIT_EXPECT_EQ(test, after.total.leader_changes,
			before.total.leader_changes);
	KUNIT_EXPECT_EQ(test, until, due);
	/* No slack asked: the timer is armed for the deadline exactly. */
	KUNIT_EXPECT_EQ(test, hard, due);
	/* An ordinary head: on the hard timer, which only wakes the leader. */
	KUNIT_EXPECT_PTR_EQ(test, armed, &q->wake_timer);
	KUNIT_EXPECT_EQ(test, soft, (s64)due);
	KUNIT_EXPECT_EQ(test, expires, (s64)due);

	qt_wait_ran(test, &p[1]);
	KUNIT_EXPECT_EQ(test, p[1].worker, leader);
	KUNIT_EXPECT_GE(test, p[1].start, p[1].deadline);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 0);
	for (i = 2; i < 34; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 0);
}

/*
 * Slack: the leader's timer is an hrtimer range from the earliest deadline
 * to that plus the head's slack, so the tasks due in it run in one wakeup;
 * a task queued meanwhile with less room pulls the end of the range in.
 */
static void dwq_queue_test_slack_range(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 12);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_sched s = { .slack_ns = 500 * MS };
	u64 base = ktime_get_ns() + 2000 * MS, until, hard;
	unsigned int i;
	s64 expires;
	atomic_t seq;
	u32 kept;

	qt_exact(q);
	atomic_set(&seq, 0);
	/* A cluster: 10 tasks over 9 ms, each with 500 ms of slack. */
	for (i = 0; i < 10; i++) {
		p[i].seq = &seq;
		s.time_ns = base + i * MS;
		s.flags = DWQ_SCHED_ABS;
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[i].task, &s), 0);
		p[i].deadline = s.time_ns;
	}
	dwq_kunit_wait_until(test, qt_wait_leader(q, -1) == 0 && qt_settled(q));
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	hard = q->leader_hard;
	expires = ktime_to_ns(hrtimer_get_expires(q->armed));
	raw_spin_unlock_irq(&q->lock);
	/* Read before the range began: the timer cannot have fired. */
	qt_still_before(test, base);
	KUNIT_EXPECT_EQ(test, until, base);
	KUNIT_EXPECT_EQ(test, hard, base + 500 * MS);
	KUNIT_EXPECT_EQ(test, expires, (s64)(base + 500 * MS));

	/* No slack, due within the range: the range ends at its deadline. */
	s = (struct dwq_sched){ .time_ns = base + 100 * MS,
				.flags = DWQ_SCHED_ABS };
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[10].task, &s), 0);
	p[10].deadline = s.time_ns;
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	hard = q->leader_hard;
	raw_spin_unlock_irq(&q->lock);
	qt_still_before(test, base);
	KUNIT_EXPECT_EQ(test, until, base);
	KUNIT_EXPECT_EQ(test, hard, base + 100 * MS);

	/*
	 * More slack than a task keeps, up to the most a u64 says: it
	 * keeps U32_MAX ns.
	 */
	for (i = 0; i < 3; i++) {
		s.slack_ns = i == 0 ? 10ULL * NSEC_PER_SEC :
			     i == 1 ? (u64)KTIME_MAX + 1 :
				      U64_MAX;
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[11].task, &s), 0);
		raw_spin_lock_irq(&q->lock);
		kept = p[11].task.node.aux;
		raw_spin_unlock_irq(&q->lock);
		KUNIT_EXPECT_EQ(test, kept, U32_MAX);
		KUNIT_EXPECT_EQ(test, dwq_cancel(&p[11].task),
				DWQ_RESULT_REMOVED);
	}

	/* None runs before its deadline, all in deadline order. */
	for (i = 0; i < 11; i++)
		qt_wait_ran(test, &p[i]);
	for (i = 0; i < 11; i++)
		KUNIT_EXPECT_GE(test, p[i].start, p[i].deadline);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, p[i].order, (int)i + 1);
}

/* How qt_slack_head_gone() takes the head away. */
enum qt_gone {
	QT_GONE_CANCEL, /* cancelled */
	QT_GONE_LATER, /* moved later, past the task behind */
	QT_GONE_TIE, /* moved to its own deadline, behind its tie */
};

/*
 * The leader sleeps on a range its head's slack set, [base, base + 1 s],
 * with a task behind due at base + 100 ms without slack (at base itself
 * for QT_GONE_TIE; queued while the only worker ran a callback, so the
 * leader took its range from the head alone). The head cancelled, moved
 * past it, or moved to the deadline it had (which puts it behind the task
 * of the same deadline, as a task moved goes behind its ties): the timer
 * is moved in to the new head's range, so that task runs by its own
 * deadline, not up to 900 ms (or 1 s) after it.
 */
static void qt_slack_head_gone(struct kunit *test, enum qt_gone how)
{
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS, .slack_ns = 1000 * MS };
	u64 behind = how == QT_GONE_TIE ? 0 : 100 * MS;
	/* Probes and gate first: freed after the queue. */
	struct qt_probe *p = qt_probes(test, 3);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	u64 base, until, hard;
	s64 expires;

	qt_exact(q);
	qt_busy(test, q, &p[0], gate);
	base = ktime_get_ns() + 2000 * MS;
	s.time_ns = base;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &s), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[2], base + behind), 0);
	complete(gate);
	dwq_kunit_wait_until(test, qt_wait_leader(q, -1) == 0 && qt_settled(q));
	raw_spin_lock_irq(&q->lock);
	hard = q->leader_hard;
	raw_spin_unlock_irq(&q->lock);
	KUNIT_ASSERT_EQ(test, hard, base + 1000 * MS);

	if (how == QT_GONE_CANCEL) {
		KUNIT_ASSERT_EQ(test, dwq_cancel(&p[1].task),
				DWQ_RESULT_REMOVED);
	} else {
		if (how == QT_GONE_LATER)
			s.time_ns = base + 5000 * MS;
		KUNIT_ASSERT_EQ(test, dwq_reschedule(&p[1].task, &s), 0);
	}
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	hard = q->leader_hard;
	expires = ktime_to_ns(hrtimer_get_expires(q->armed));
	raw_spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_EQ(test, until, base + behind);
	KUNIT_EXPECT_EQ(test, hard, base + behind);
	KUNIT_EXPECT_EQ(test, expires, (s64)(base + behind));
	KUNIT_EXPECT_EQ(test, qt_wait_leader(q, -1), 0);

	qt_wait_ran(test, &p[2]);
	KUNIT_EXPECT_GE(test, p[2].start, base + behind);
	if (how != QT_GONE_TIE) {
		KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 0);
		return;
	}
	/* Behind its tie now: it runs after it. */
	qt_wait_ran(test, &p[1]);
	KUNIT_EXPECT_GE(test, p[1].start, p[2].start);
}

static void dwq_queue_test_slack_head_cancelled(struct kunit *test)
{
	qt_slack_head_gone(test, QT_GONE_CANCEL);
}

static void dwq_queue_test_slack_head_moved(struct kunit *test)
{
	qt_slack_head_gone(test, QT_GONE_LATER);
}

static void dwq_queue_test_slack_head_moved_tie(struct kunit *test)
{
	qt_slack_head_gone(test, QT_GONE_TIE);
}

/*
 * A head taken by a worker that does not lead (a callback of it returned
 * once the head was due), while the leader sleeps toward the end of the
 * head's slack range: the leader's timer comes in to the new head's range,
 * as when the head is cancelled. Left at the taken head's range, it would
 * run the new head up to that slack past its own deadline with no task
 * due before it any more. The leader's timer may fire first (an interrupt
 * on its CPU once the range has begun): then the leader takes the head,
 * and the case is tried again, as when the leader was not asleep before
 * the head was due (a slow guest).
 */
#define QT_TAKEN_TRIES 5

static void dwq_queue_test_slack_head_taken(struct kunit *test)
{
	struct dwq_sched s[2] = {
		{ .flags = DWQ_SCHED_ABS, .slack_ns = 1000 * MS },
		{ .flags = DWQ_SCHED_ABS },
	};
	/* Probes and gates first: freed after the queue. */
	struct qt_probe *all = qt_probes(test, 3 * QT_TAKEN_TRIES), *p;
	struct completion *gates[QT_TAKEN_TRIES];
	struct dwq_task *tasks[2];
	int tries, leader, now_leader;
	struct dwq_queue *q;
	bool fired, late;
	u64 base, hard;

	for (tries = 0; tries < QT_TAKEN_TRIES; tries++)
		gates[tries] = qt_gate(test);
	q = qt_queue(test, 2, 0);
	qt_wait_followers(test, q, 2);
	for (tries = 0; tries < QT_TAKEN_TRIES; tries++) {
		p = &all[3 * tries];
		qt_busy(test, q, &p[0], gates[tries]);
		/* Both at once: no leader yet to narrow its range for p[2]. */
		base = ktime_get_ns() + 300 * MS;
		s[0].time_ns = base;
		s[1].time_ns = base + 200 * MS;
		tasks[0] = &p[1].task;
		tasks[1] = &p[2].task;
		KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, 2), 0);
		/* The other worker leads, to the end of p[1]'s slack. */
		leader = qt_wait_leader(q, p[0].worker);
		KUNIT_ASSERT_GE(test, leader, 0);
		dwq_kunit_wait_until(test, dwq_kunit_leading(q));
		raw_spin_lock_irq(&q->lock);
		hard = q->leader_hard;
		raw_spin_unlock_irq(&q->lock);
		/* Asleep before p[1] was due (else try again, below). */
		late = ktime_get_ns() >= base;
		if (!late)
			KUNIT_EXPECT_EQ(test, hard, base + 1000 * MS);

		/* p[1] is due: p[0]'s worker returns and takes it. */
		if (!late)
			msleep(250);
		while (ktime_get_ns() < base)
			cpu_relax();
		complete(gates[tries]);
		qt_wait_ran(test, &p[1]);
		raw_spin_lock_irq(&q->lock);
		now_leader = q->leader ? q->leader->id : -1;
		fired = q->leader_fired;
		hard = q->leader_hard;
		raw_spin_unlock_irq(&q->lock);
		qt_wait_ran(test, &p[2]);
		if (late)
			continue; /* a slow guest: the leader came too late */
		KUNIT_EXPECT_LT(test, p[2].start, base + 900 * MS);
		if (p[1].worker != p[0].worker || now_leader != leader || fired)
			continue; /* the leader's timer came first */
		KUNIT_EXPECT_EQ(test, hard, base + 200 * MS);
		return;
	}
	KUNIT_FAIL(test,
		   "the leader's timer fired before the head was taken, or the guest was late, %d times",
		   tries);
}

/*
 * A new head that is due no earlier than the leader's timer wakes nobody:
 * the leader, woken by that timer, finds it and leads again. This is the
 * common schedule-then-cancel pattern (a timeout armed and disarmed), which
 * otherwise costs a context switch per schedule. Everything up to the
 * snapshot must come before that timer fires, which would wake the leader:
 * it is armed exactly for 2 s ahead, not for 300 ms that a slow guest can
 * spend in the waits and 64 calls before the snapshot (a slower one skips
 * the case).
 */
static void dwq_queue_test_later_head_keeps_leader(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 33);
	struct dwq_queue *q = qt_queue(test, 4, 0);
	struct dwq_queue_stats before, after;
	int i, leader;
	u64 t0;

	qt_exact(q);
	qt_wait_followers(test, q, 4);
	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 2000 * MS), 0);
	leader = qt_wait_leader(q, -1);
	KUNIT_ASSERT_GE(test, leader, 0);
	dwq_kunit_wait_until(test, qt_settled(q));
	KUNIT_ASSERT_EQ(test, dwq_cancel(&p[0].task), DWQ_RESULT_REMOVED);
	before = qt_stats(q);

	/* Each of these is the new head of an empty heap, and later. */
	for (i = 1; i < 32; i++) {
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[i], 2100 * MS), 0);
		KUNIT_ASSERT_EQ(test, dwq_cancel(&p[i].task),
				DWQ_RESULT_REMOVED);
	}
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[32], 2100 * MS), 0);
	/* A wakeup would show as a leader not (yet) leading again. */
	dwq_kunit_wait_until(test, qt_settled(q));
	after = qt_stats(q);
	/* The snapshot came before the timer fired. */
	qt_still_before(test, t0 + 2000 * MS);
	KUNIT_EXPECT_EQ(test, after.total.wakeups, before.total.wakeups);
	KUNIT_EXPECT_EQ(test, after.leader, leader);

	/* The leader's early timer still brings the last one in on time. */
	qt_wait_ran(test, &p[32]);
	KUNIT_EXPECT_GE(test, p[32].start, p[32].deadline);
	KUNIT_EXPECT_EQ(test, p[32].worker, leader);
	for (i = 0; i < 32; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 0);
}

/* Stopping the leader hands leadership on to another worker. */
static void dwq_queue_test_stop_leader_hands_on(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 1);
	struct dwq_queue *q = qt_queue(test, 4, 0);
	int leader, next;

	qt_wait_followers(test, q, 4);
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 3000 * MS), 0);
	leader = qt_wait_leader(q, -1);
	KUNIT_ASSERT_GE(test, leader, 0);

	/* No such worker: nothing stops. */
	KUNIT_EXPECT_EQ(test, dwq_queue_stop_worker(q, q->max_workers),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, qt_stats(q).workers, 4U);
	KUNIT_ASSERT_EQ(test, dwq_queue_stop_worker(q, leader), 0);
	KUNIT_EXPECT_EQ(test, dwq_queue_stop_worker(q, leader), -ENOENT);
	next = qt_wait_leader(q, leader);
	KUNIT_ASSERT_GE(test, next, 0);
	KUNIT_EXPECT_NE(test, next, leader);
	KUNIT_EXPECT_EQ(test, qt_stats(q).workers, 3U);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 0);

	qt_wait_ran(test, &p[0]);
	KUNIT_EXPECT_EQ(test, p[0].worker, next);
}

/*
 * 8 workers, 1000 tasks spread over 1 s (one batch, in random order): at
 * most 1.1 wakeups per task run, and at most 5% of them spurious.
 */
static void dwq_queue_test_wakeups_per_task(struct kunit *test)
{
	const unsigned int n = 1000, workers = 8;
	struct qt_probe *p = qt_probes(test, n);
	struct dwq_queue *q = qt_queue_room(test, workers, 0, n);
	struct dwq_queue_stats st0, st;
	unsigned int *perm, i, j, t;
	struct dwq_task **tasks;
	u32 rnd = 2463534242U;
	struct dwq_sched *s;
	atomic_t done;
	u64 base;

	perm = kunit_kcalloc(test, n, sizeof(*perm), GFP_KERNEL);
	tasks = kunit_kcalloc(test, n, sizeof(*tasks), GFP_KERNEL);
	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, perm);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = qt_rand(&rnd) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	atomic_set(&done, 0);
	for (i = 0; i < n; i++)
		p[i].done = &done;

	/*
	 * Every worker asleep as a follower. The figures are counted from
	 * here rather than from zero: a kernel may wake a fresh kthread once
	 * for its own reasons before any task exists, which is not the
	 * engine's wakeup.
	 */
	dwq_kunit_wait_until(test, qt_settled(q));
	st0 = qt_stats(q);
	KUNIT_ASSERT_GE(test, st0.total.untimed_waits, (u64)workers);
	KUNIT_ASSERT_EQ(test, st0.leader, -1);
	/* One batch: a guest slowed down by its host cannot stretch it. */
	base = ktime_get_ns() + 200 * MS;
	for (i = 0; i < n; i++) {
		tasks[i] = &p[perm[i]].task;
		s[i].time_ns = base + perm[i] * MS;
		s[i].flags = DWQ_SCHED_ABS;
	}
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, n), 0);
	qt_wait_count(test, &done, n);
	/* Every worker back asleep: the counters are final. */
	dwq_kunit_wait_until(test, qt_settled(q));

	st = qt_stats(q);
	st.total.wakeups -= st0.total.wakeups;
	st.total.spurious_wakeups -= st0.total.spurious_wakeups;
	st.total.timed_waits -= st0.total.timed_waits;
	st.total.untimed_waits -= st0.total.untimed_waits;
	st.total.leader_changes -= st0.total.leader_changes;
	st.total.tasks_run -= st0.total.tasks_run;
	kunit_info(test,
		   "%u tasks: %llu wakeups (%llu spurious), %llu timed and %llu untimed waits, %llu leader changes\n",
		   n, st.total.wakeups, st.total.spurious_wakeups,
		   st.total.timed_waits, st.total.untimed_waits,
		   st.total.leader_changes);
	KUNIT_EXPECT_EQ(test, st.total.tasks_run, (u64)n);
	KUNIT_EXPECT_LE(test, st.total.wakeups * 10, (u64)n * 11);
	KUNIT_EXPECT_LE(test, st.total.spurious_wakeups * 20, st.total.wakeups);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 1);
}

/* Tasks run in deadline order, whatever order they were scheduled in. */
static void dwq_queue_test_deadline_order(struct kunit *test)
{
	const unsigned int n = 32;
	struct qt_probe *p = qt_probes(test, n + 1), *hold = &p[n];
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	unsigned int i, j;
	atomic_t seq;
	u64 base;

	/*
	 * The only worker waits at the gate meanwhile, so the order holds
	 * even if scheduling takes longer than the first deadlines (a loaded
	 * guest): the tasks due by then run in deadline order once it opens.
	 */
	hold->gate = gate;
	KUNIT_ASSERT_EQ(test, qt_after(q, hold, 0), 0);
	qt_wait_for(test, &hold->started, TIMEOUT_MS);
	atomic_set(&seq, 0);
	base = ktime_get_ns() + 100 * MS;
	/* Distinct deadlines 3 ms apart, scheduled in a scrambled order. */
	for (i = 0; i < n; i++) {
		j = (i * 7) % n;
		p[j].seq = &seq;
		KUNIT_ASSERT_EQ(test, qt_at(q, &p[j], base + j * 3 * MS), 0);
	}
	complete_all(gate);
	qt_wait_ran(test, hold);
	for (i = 0; i < n; i++)
		qt_wait_ran(test, &p[i]);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, p[i].order, (int)i + 1);
		KUNIT_EXPECT_GE(test, p[i].start, base + i * 3 * MS);
	}
}

/* Equal deadlines leave in the order they were scheduled (FIFO). */
static void dwq_queue_test_fifo_ties(struct kunit *test)
{
	const unsigned int n = 20;
	struct qt_probe *p = qt_probes(test, n);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	atomic_t seq;
	u64 deadline;
	unsigned int i;

	atomic_set(&seq, 0);
	deadline = ktime_get_ns() + 100 * MS;
	for (i = 0; i < n; i++) {
		p[i].seq = &seq;
		KUNIT_ASSERT_EQ(test, qt_at(q, &p[i], deadline), 0);
	}
	for (i = 0; i < n; i++)
		qt_wait_ran(test, &p[i]);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, p[i].order, (int)i + 1);
}

/*
 * The front slot (see __dwq_insert()): a task before every other goes in
 * ahead of the heap, and whatever moves in or out of it, the tasks still
 * run in key order. Scheduled while the only worker waits at a gate, so
 * that the order holds however long the scheduling takes; in comments,
 * where each task is queued.
 */
static void dwq_queue_test_front_slot_order(struct kunit *test)
{
	/* A..H, and the worker's hold */
	struct qt_probe *p = qt_probes(test, 9), *hold = &p[8];
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	/* Run order: F H B C G A D; E never. */
	static const int order[] = { 6, 3, 4, 7, 0, 1, 5, 2 };
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS };
	atomic_t seq;
	unsigned int i;
	u64 base;

	hold->gate = gate;
	KUNIT_ASSERT_EQ(test, qt_after(q, hold, 0), 0);
	qt_wait_for(test, &hold->started, TIMEOUT_MS);
	atomic_set(&seq, 0);
	for (i = 0; i < 8; i++)
		p[i].seq = &seq;
	base = ktime_get_ns() + 200 * MS;
	/* A: front. B: front, A to the heap. C, B's deadline: heap, after B. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[0], base + 30 * MS), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[1], base + 10 * MS), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[2], base + 10 * MS), 0);
	/* D: front, B to the heap; then moved behind the heap's root: heap. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[3], base + 5 * MS), 0);
	s.time_ns = base + 40 * MS;
	KUNIT_ASSERT_EQ(test, dwq_reschedule(&p[3].task, &s), 0);
	/* E: front, and cancelled there. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[4], base), 0);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[4].task), DWQ_RESULT_REMOVED);
	/* G: front; moved, still first: front; moved to B's deadline: heap. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[6], base + 3 * MS), 0);
	s.time_ns = base + 4 * MS;
	KUNIT_ASSERT_EQ(test, dwq_reschedule(&p[6].task, &s), 0);
	s.time_ns = base + 10 * MS;
	KUNIT_ASSERT_EQ(test, dwq_reschedule(&p[6].task, &s), 0);
	/* H: front. F: heap, then moved before H: H to the heap. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[7], base + 2 * MS), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[5], base + 20 * MS), 0);
	s.time_ns = base + MS;
	KUNIT_ASSERT_EQ(test, dwq_reschedule(&p[5].task, &s), 0);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 7U);

	complete_all(gate);
	qt_wait_ran(test, hold);
	for (i = 0; i < 8; i++)
		if (order[i])
			qt_wait_ran(test, &p[i]);
	for (i = 0; i < 8; i++) {
		KUNIT_EXPECT_EQ(test, p[i].order, order[i]);
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), !!order[i]);
	}
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 0U);
}

/*
 * A head more than @q->far_ns ahead: the leader's timer is armed halfway
 * there, and a later head due after that point moves nothing. When the
 * early timer fires, it is armed again exactly for the head, and nobody
 * wakes; the tasks run by their deadlines, not before. The head is 4 s
 * ahead: the waits for the leader and the later head must come before the
 * early timer fires, 2 s on, which 500 ms would not leave a slow guest (a
 * slower one skips the case).
 */
static void dwq_queue_test_far_head_coarse(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 2);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_queue_stats before, after;
	u64 t0, d0, d1, until, hard;
	s64 expires;

	raw_spin_lock_irq(&q->lock);
	q->far_ns = 300 * MS;
	raw_spin_unlock_irq(&q->lock);
	qt_wait_followers(test, q, 1);
	t0 = ktime_get_ns();
	d0 = t0 + 4000 * MS;
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[0], d0), 0);
	dwq_kunit_wait_until(test, qt_wait_leader(q, -1) == 0 && qt_settled(q));
	before = qt_stats(q);
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	hard = q->leader_hard;
	expires = ktime_to_ns(hrtimer_get_expires(q->armed));
	raw_spin_unlock_irq(&q->lock);
	/* Read before the early timer can have fired. */
	qt_still_before(test, t0 + 2000 * MS);
	/* Armed at some t >= t0, for (t + d0) / 2. */
	KUNIT_EXPECT_GE(test, until, t0 + 2000 * MS);
	KUNIT_EXPECT_LT(test, until, d0);
	KUNIT_EXPECT_EQ(test, hard, until);
	KUNIT_EXPECT_EQ(test, expires, (s64)until);

	/* A new head after that point: the timer stays where it is. */
	d1 = d0 - 50 * MS;
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[1], d1), 0);
	raw_spin_lock_irq(&q->lock);
	d0 = q->leader_deadline;
	hard = q->leader_hard;
	expires = ktime_to_ns(hrtimer_get_expires(q->armed));
	raw_spin_unlock_irq(&q->lock);
	qt_still_before(test, t0 + 2000 * MS);
	KUNIT_EXPECT_EQ(test, d0, until);
	KUNIT_EXPECT_EQ(test, hard, until);
	KUNIT_EXPECT_EQ(test, expires, (s64)until);

	/* Once it fired: armed exactly for the head, nobody woken. */
	dwq_kunit_wait_until(test, ktime_get_ns() > until + 20 * MS);
	raw_spin_lock_irq(&q->lock);
	until = q->leader_deadline;
	hard = q->leader_hard;
	expires = ktime_to_ns(hrtimer_get_expires(q->armed));
	raw_spin_unlock_irq(&q->lock);
	after = qt_stats(q);
	if (ktime_get_ns() < d1) {
		KUNIT_EXPECT_EQ(test, until, d1);
		KUNIT_EXPECT_EQ(test, hard, d1);
		KUNIT_EXPECT_EQ(test, expires, (s64)d1);
		KUNIT_EXPECT_EQ(test, after.total.wakeups,
				before.total.wakeups);
	}

	qt_wait_ran(test, &p[1]);
	qt_wait_ran(test, &p[0]);
	KUNIT_EXPECT_GE(test, p[1].start, d1);
	KUNIT_EXPECT_GE(test, p[0].start, d0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 1);
}

/*
 * Capacity seen through the queue as tasks are added one by one: 16, 24,
 * 36, 54 (the JDK's own sequence); after they are all cancelled it shrinks
 * back to 16, and never below.
 */
static void dwq_queue_test_growth_and_shrink(struct kunit *test)
{
	const unsigned int n = 54;
	struct qt_probe *p = qt_probes(test, n);
	struct dwq_queue *q = qt_queue_room(test, 1, 0, 0);
	unsigned int i, cap, expect;

	/* Grown in the background, ahead: a quarter stays free. */
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test,
				qt_after(q, &p[i], 3600ULL * NSEC_PER_SEC), 0);
		flush_work(&q->resize_work);
		cap = qt_stats(q).capacity;
		expect = i < 12 ? 16 :
			 i < 18 ? 24 :
			 i < 27 ? 36 :
			 i < 41 ? 54 :
				  81;
		KUNIT_EXPECT_EQ_MSG(test, cap, expect, "after %u tasks", i + 1);
		KUNIT_EXPECT_GE(test, cap - (i + 1), cap / 4);
	}
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, n);

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, dwq_cancel(&p[i].task),
				DWQ_RESULT_REMOVED);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 0U);
	KUNIT_EXPECT_EQ(test, qt_stats(q).capacity, DWQ_HEAP_MIN_CAPACITY);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 0);
}

/* A batch is all or nothing, and grows the heap once. */
static void dwq_queue_test_batch(struct kunit *test)
{
	const unsigned int n = 100;
	struct qt_probe *p = qt_probes(test, n + 1);
	struct dwq_queue *q = qt_queue_room(test, 1, 0, 0);
	struct dwq_task **tasks;
	struct dwq_sched *s;
	unsigned int i;

	tasks = kunit_kcalloc(test, n, sizeof(*tasks), GFP_KERNEL);
	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < n; i++) {
		tasks[i] = &p[i].task;
		s[i].time_ns = 3600ULL * NSEC_PER_SEC + i;
	}

	/* A bad entry, a busy task, a repeated task: nothing is queued. */
	s[n - 1].mode = 7;
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, n), -EINVAL);
	s[n - 1].mode = DWQ_MODE_ONESHOT;
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[n], 3600ULL * NSEC_PER_SEC), 0);
	tasks[n / 2] = &p[n].task;
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, n), -EBUSY);
	tasks[n / 2] = &p[0].task;
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, n), -EBUSY);
	tasks[n / 2] = &p[n / 2].task;
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 1U);
	KUNIT_EXPECT_EQ(test, qt_stats(q).capacity, 16U);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, p[i].task.state, (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test,
			dwq_schedule_batch(q, tasks, s, DWQ_BATCH_MAX + 1),
			-EINVAL);

	/*
	 * 101 tasks do not fit in 16 slots: -ENOSPC, nothing changed. Room
	 * made ahead, with the quarter the queue keeps free for tasks beyond
	 * the reservations (p[n] is queued without one): one growth, 16 ->
	 * 181 (101 + 101 / 3 slots at least), not six, and none once the
	 * tasks are queued.
	 */
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, n), -ENOSPC);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 1U);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, p[i].task.state, (u8)DWQ_STATE_IDLE);
		KUNIT_EXPECT_NULL(test, p[i].task.queue);
	}
	KUNIT_ASSERT_EQ(test, dwq_queue_reserve(q, n), 0);
	KUNIT_EXPECT_EQ(test, qt_stats(q).capacity, 181U);
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, n), 0);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, n + 1);
	flush_work(&q->resize_work);
	KUNIT_EXPECT_EQ(test, qt_stats(q).capacity, 181U);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, p[i].task.state, (u8)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, dwq_schedule_batch(q, tasks, s, 0), 0);
}

/* Every schedule error, and the heap left alone by each. */
static void dwq_queue_test_schedule_errors(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 1);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_task *t = &p->task;
	struct dwq_sched s;

	s = (struct dwq_sched){ .time_ns = MS, .mode = 3 };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = MS, .flags = 0x80 };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = MS, .flags = DWQ_RESCHED_PERIOD };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = MS, .mode = DWQ_MODE_FIXED_RATE };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = MS, .mode = DWQ_MODE_FIXED_DELAY };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = MS, .period_ns = MS };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = (u64)KTIME_MAX + 1 };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	/* now + delay overflows */
	s = (struct dwq_sched){ .time_ns = KTIME_MAX };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	/* the deadline fits but the next period would not */
	s = (struct dwq_sched){ .time_ns = KTIME_MAX,
				.flags = DWQ_SCHED_ABS,
				.mode = DWQ_MODE_FIXED_RATE,
				.period_ns = 1 };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s = (struct dwq_sched){ .time_ns = MS,
				.mode = DWQ_MODE_FIXED_RATE,
				.period_ns = (u64)KTIME_MAX + 1 };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	/*
	 * A deadline in the past runs now: its next period must fit from
	 * now, not from the deadline (which a key clamps at 0).
	 */
	s = (struct dwq_sched){ .time_ns = 0,
				.flags = DWQ_SCHED_ABS,
				.mode = DWQ_MODE_FIXED_DELAY,
				.period_ns = KTIME_MAX - 1000 };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	s.mode = DWQ_MODE_FIXED_RATE;
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EINVAL);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 0U);
	KUNIT_EXPECT_EQ(test, t->state, (u8)DWQ_STATE_IDLE);

	/* A far absolute deadline is fine; scheduling it twice is not. */
	s = (struct dwq_sched){ .time_ns = KTIME_MAX, .flags = DWQ_SCHED_ABS };
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), 0);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, t, &s), -EBUSY);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 1U);
}

/* Absolute deadlines: one in the past runs now, a future one not before. */
static void dwq_queue_test_abs_deadline(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 3);
	struct dwq_queue *q = qt_queue(test, 2, 0);
	u64 t0 = ktime_get_ns();
	int early;

	KUNIT_ASSERT_EQ(test, qt_at(q, &p[0], t0 + 150 * MS), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[1], 0), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[2], t0 - 10 * MS), 0);
	qt_wait_ran(test, &p[1]);
	qt_wait_ran(test, &p[2]);
	/*
	 * Not run yet, unless its deadline has passed: the two waits may
	 * take that long on a loaded host. Its run count is read first, so
	 * a run it counts happened before the clock is read.
	 */
	early = atomic_read(&p[0].runs);
	if (ktime_get_ns() < t0 + 150 * MS)
		KUNIT_EXPECT_EQ(test, early, 0);
	KUNIT_EXPECT_EQ(test, p[1].deadline, 0ULL);
	KUNIT_EXPECT_EQ(test, p[2].deadline, t0 - 10 * MS);
	qt_wait_ran(test, &p[0]);
	KUNIT_EXPECT_GE(test, p[0].start, t0 + 150 * MS);
	KUNIT_EXPECT_EQ(test, p[0].deadline, t0 + 150 * MS);
}

/*
 * Queue @p at @deadline on CLOCK_BOOTTIME queue @q, keyed as a suspend of
 * @slept since would leave it (its key that much early on the queue's
 * clock, its offset that much more: no suspend happens in a test). The
 * caller keeps the queue's only worker busy, so no timer is armed for it.
 */
static void qt_keyed_before_suspend(struct kunit *test, struct dwq_queue *q,
				    struct qt_probe *p, u64 deadline, u64 slept)
{
	KUNIT_ASSERT_EQ(test, qt_at(q, p, deadline), 0);
	raw_spin_lock_irq(&q->lock);
	p->task.clock_offset += slept;
	dwq_queue_kunit_rekey(q, &p->task, p->task.node.deadline - slept);
	raw_spin_unlock_irq(&q->lock);
}

/*
 * A plain task on a CLOCK_BOOTTIME queue keyed before a suspend does not
 * run early after it. No suspend here: the key is made as a suspend of
 * 200 ms since the task was keyed leaves it (200 ms before its deadline
 * on the queue's clock, with that much less time suspended in its
 * offset), while the only worker runs a callback, so that no timer is
 * armed for it yet. dwq_query() counts the time left to its real
 * deadline (at least what is left after the query, by the clock read
 * then: a slow guest may spend 100 ms before it, or more); it runs at its
 * CLOCK_MONOTONIC deadline, reported as that, not 200 ms before. @reduce:
 * dwq_reduce() to 100 ms before that deadline moves it there (it compares
 * the key as it is now, not the early one, which is earlier still).
 */
static void qt_boottime_queue_after_suspend(struct kunit *test, bool reduce)
{
	/* Gate and probes first: freed after the queue. */
	struct completion *gate = qt_gate(test);
	struct qt_probe *p = qt_probes(test, 2);
	struct dwq_queue *q = qt_queue(test, 1, DWQ_QUEUE_BOOTTIME);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS };
	struct dwq_task_info info;
	u64 deadline, now;

	qt_busy(test, q, &p[0], gate);
	deadline = ktime_get_ns() + 800 * MS;
	qt_keyed_before_suspend(test, q, &p[1], deadline, 200 * MS);
	dwq_query(&p[1].task, &info);
	now = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, info.deadline_ns, deadline);
	KUNIT_EXPECT_GE(test, info.remaining_ns,
			now < deadline ? deadline - now : 0);
	if (reduce) {
		deadline -= 100 * MS;
		s.time_ns = deadline;
		KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p[1].task, &s), 1);
		dwq_query(&p[1].task, &info);
		KUNIT_EXPECT_EQ(test, info.deadline_ns, deadline);
	}
	complete(gate);

	qt_wait_ran(test, &p[1]);
	KUNIT_EXPECT_GE(test, p[1].start, deadline);
	KUNIT_EXPECT_EQ(test, p[1].deadline, deadline);
}

static void dwq_queue_test_boottime_queue_after_suspend(struct kunit *test)
{
	qt_boottime_queue_after_suspend(test, false);
}

static void
dwq_queue_test_boottime_queue_reduce_after_suspend(struct kunit *test)
{
	qt_boottime_queue_after_suspend(test, true);
}

/*
 * A CLOCK_BOOTTIME task on a CLOCK_MONOTONIC queue, keyed before a suspend
 * (made so here as a suspend of 30 s would: no suspend happens in a test),
 * is late on the queue's clock by the time suspended. The resume keys it
 * anew (dwq_queue_resumed()): it runs at its deadline, due by then, within
 * the 10 s a slow guest may take, not 30 s after, and keeps its place
 * behind a task due at the same moment.
 */
static void dwq_queue_test_boottime_task_after_suspend(struct kunit *test)
{
	const u64 slept = 30 * NSEC_PER_SEC;
	/* Probes and gate first: freed after the queue. */
	struct qt_probe *p = qt_probes(test, 3);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME };
	struct dwq_task_info info;
	u64 deadline, key;
	bool ran;

	qt_busy(test, q, &p[0], gate);
	deadline = ktime_get_boottime_ns() + 500 * MS;
	s.time_ns = deadline;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &s), 0);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[2].task, &s), 0);
	raw_spin_lock_irq(&q->lock);
	key = p[1].task.node.deadline;
	p[1].task.clock_offset -= slept;
	dwq_queue_kunit_rekey(q, &p[1].task, key + slept);
	raw_spin_unlock_irq(&q->lock);
	dwq_query(&p[1].task, &info);
	KUNIT_ASSERT_EQ(test, info.deadline_ns, deadline);
	/* The worker leads, for p[2] and then the late key. */
	complete(gate);
	qt_wait_ran(test, &p[2]);
	msleep(500);
	KUNIT_ASSERT_EQ(test, atomic_read(&p[1].runs), 0);

	dwq_queue_resumed(q);
	raw_spin_lock_irq(&q->lock);
	KUNIT_EXPECT_LE(test, p[1].task.node.deadline, key);
	raw_spin_unlock_irq(&q->lock);
	ran = dwq_kunit_poll(atomic_read(&p[1].runs) == 1);
	KUNIT_EXPECT_TRUE_MSG(test, ran, "not run %d ms after the resume",
			      TIMEOUT_MS);
	KUNIT_EXPECT_EQ(test, p[1].deadline, deadline);
	KUNIT_EXPECT_GE(test, ktime_get_boottime_ns(), deadline);
}

/* @p's task is queued again after its first run; its state in @info. */
static bool qt_queued_after_run(struct qt_probe *p, struct dwq_task_info *info)
{
	dwq_query(&p->task, info);
	return info->state == DWQ_STATE_QUEUED && atomic_read(&p->runs) == 1;
}

/*
 * A fixed-rate CLOCK_BOOTTIME task on a CLOCK_MONOTONIC queue whose key
 * went stale while its callback ran (made so here as a suspend of 5 s
 * would) is queued again a period after its deadline on its own clock:
 * its next key is keyed anew, not 5 s late. The period is an hour: the
 * wait for it to be queued again, the key read after and the cancel all
 * see it between its first and second runs, however slow the guest.
 */
static void dwq_queue_test_boottime_task_rate_after_suspend(struct kunit *test)
{
	const u64 slept = 5 * NSEC_PER_SEC, period = 3600ULL * NSEC_PER_SEC;
	struct qt_probe *p = qt_probes(test, 1);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_sched s = { .flags = DWQ_SCHED_BOOTTIME,
			       .mode = DWQ_MODE_FIXED_RATE,
			       .period_ns = period };
	struct dwq_task_info info;
	u64 key, next;

	p[0].gate = gate;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &s), 0);
	qt_wait_for(test, &p[0].started, TIMEOUT_MS);
	raw_spin_lock_irq(&q->lock);
	key = p[0].task.node.deadline;
	p[0].task.node.deadline = key + slept;
	p[0].task.clock_offset -= slept;
	raw_spin_unlock_irq(&q->lock);
	complete_all(gate);
	dwq_kunit_wait_until(test, qt_queued_after_run(&p[0], &info));
	raw_spin_lock_irq(&q->lock);
	next = p[0].task.node.deadline;
	raw_spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_EQ(test, next, key + period);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p[0].task), DWQ_RESULT_REMOVED);
}

/*
 * dwq_reduce() of a queued CLOCK_BOOTTIME task on a CLOCK_MONOTONIC queue
 * keyed before a suspend (made so here as a suspend of 5 s would: its key
 * 5 s late) compares its key as it is now: a later deadline, before the
 * late key, leaves it where it is, not moved later. The resume keys it
 * anew and it runs at its deadline.
 */
static void
dwq_queue_test_boottime_queued_reduce_after_suspend(struct kunit *test)
{
	const u64 slept = 5 * NSEC_PER_SEC;
	/* Probes and gate first: freed after the queue. */
	struct qt_probe *p = qt_probes(test, 2);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME };
	struct dwq_task_info info;
	u64 first;

	qt_busy(test, q, &p[0], gate);
	first = ktime_get_boottime_ns() + 500 * MS;
	s.time_ns = first;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &s), 0);
	raw_spin_lock_irq(&q->lock);
	p[1].task.clock_offset -= slept;
	dwq_queue_kunit_rekey(q, &p[1].task, p[1].task.node.deadline + slept);
	raw_spin_unlock_irq(&q->lock);
	s.time_ns = first + 2500 * MS;
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p[1].task, &s), 1);
	dwq_query(&p[1].task, &info);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, first);

	dwq_queue_resumed(q);
	complete(gate);
	qt_wait_ran(test, &p[1]);
	KUNIT_EXPECT_EQ(test, p[1].deadline, first);
}

/*
 * dwq_reduce() of a running CLOCK_BOOTTIME task whose re-arm was keyed
 * before a suspend (made so here as a suspend of 5 s would) compares the
 * re-arm as keyed now: a later deadline leaves the earlier re-arm.
 */
static void dwq_queue_test_boottime_reduce_after_suspend(struct kunit *test)
{
	const u64 slept = 5 * NSEC_PER_SEC;
	struct qt_probe *p = qt_probes(test, 1);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME };
	u64 first;

	qt_busy(test, q, &p[0], gate);
	first = ktime_get_boottime_ns() + 200 * MS;
	s.time_ns = first;
	KUNIT_ASSERT_EQ(test, dwq_mod(q, &p[0].task, &s), 0);
	raw_spin_lock_irq(&q->lock);
	p[0].task.node.seq += slept; /* its re-arm key */
	p[0].task.clock_offset -= slept;
	raw_spin_unlock_irq(&q->lock);
	s.time_ns = first + 2500 * MS;
	KUNIT_EXPECT_EQ(test, dwq_reduce(q, &p[0].task, &s), 0);
	complete_all(gate);
	dwq_kunit_wait_until(test, atomic_read(&p[0].runs) == 2);
	KUNIT_EXPECT_EQ(test, p[0].deadline, first);
}

/*
 * A plain fixed-delay task on a CLOCK_BOOTTIME queue whose offset went
 * stale while its callback ran (made so here as a suspend of 300 ms would:
 * no suspend happens in a test) is keyed again from the end of its run
 * with the offset of now, as a schedule would key it: its next deadline is
 * a period after the run on CLOCK_MONOTONIC, not 300 ms later. The period
 * is an hour: with 100 ms a second run could come before the wait saw the
 * task queued again after the first, which it would then never see.
 */
static void dwq_queue_test_boottime_queue_fixed_delay(struct kunit *test)
{
	const u64 slept = 300 * MS, period = 3600ULL * NSEC_PER_SEC;
	/* Gate and probe first: freed after the queue. */
	struct completion *gate = qt_gate(test);
	struct qt_probe *p = qt_probes(test, 1);
	struct dwq_queue *q = qt_queue(test, 1, DWQ_QUEUE_BOOTTIME);
	struct dwq_sched s = { .period_ns = period,
			       .mode = DWQ_MODE_FIXED_DELAY };
	struct dwq_task_info info;
	s64 offset, now_offset;
	u64 ended;

	p[0].gate = gate;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &s), 0);
	qt_wait_for(test, &p[0].started, TIMEOUT_MS);
	raw_spin_lock_irq(&q->lock);
	p[0].task.clock_offset += slept;
	raw_spin_unlock_irq(&q->lock);
	complete_all(gate);
	qt_wait_ran(test, &p[0]);
	ended = ktime_get_ns();
	dwq_kunit_wait_until(test, qt_queued_after_run(&p[0], &info));

	raw_spin_lock_irq(&q->lock);
	offset = p[0].task.clock_offset;
	raw_spin_unlock_irq(&q->lock);
	now_offset = -ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
	KUNIT_EXPECT_EQ(test, offset, now_offset);
	/* The run ended after @ended by a little, never by @slept. */
	KUNIT_EXPECT_LT(test, info.deadline_ns, ended + period + slept / 2);
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[0].task), 0);
}

/*
 * CLOCK_BOOTTIME deadlines on a monotonic queue and monotonic ones on a
 * boottime queue: converted when scheduled, reported on the task's clock.
 */
static void dwq_queue_test_clocks(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 4);
	struct dwq_queue *mq = qt_queue(test, 1, 0);
	struct dwq_queue *bq = qt_queue(test, 1, DWQ_QUEUE_BOOTTIME);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME };
	struct dwq_task_info info;
	/* In this order: @boot, converted, is no earlier than @mono. */
	u64 mono = ktime_get_ns(), boot = ktime_get_boottime_ns();

	s.time_ns = boot + 100 * MS;
	KUNIT_ASSERT_EQ(test, dwq_schedule(mq, &p[0].task, &s), 0);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.flags, DWQ_SCHED_BOOTTIME);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, boot + 100 * MS);
	KUNIT_ASSERT_EQ(test, dwq_schedule(bq, &p[1].task, &s), 0);
	KUNIT_ASSERT_EQ(test, qt_at(bq, &p[2], mono + 100 * MS), 0);
	s = (struct dwq_sched){ .time_ns = 100 * MS,
				.flags = DWQ_SCHED_BOOTTIME };
	KUNIT_ASSERT_EQ(test, dwq_schedule(mq, &p[3].task, &s), 0);

	qt_wait_ran(test, &p[0]);
	qt_wait_ran(test, &p[1]);
	qt_wait_ran(test, &p[2]);
	qt_wait_ran(test, &p[3]);
	KUNIT_EXPECT_EQ(test, p[0].deadline, boot + 100 * MS);
	KUNIT_EXPECT_EQ(test, p[1].deadline, boot + 100 * MS);
	KUNIT_EXPECT_EQ(test, p[2].deadline, mono + 100 * MS);
	/* No suspend in between: the clocks ran together. */
	KUNIT_EXPECT_GE(test, p[0].start, mono + 100 * MS);
	KUNIT_EXPECT_GE(test, p[1].start, mono + 100 * MS);
	KUNIT_EXPECT_GE(test, p[2].start, mono + 100 * MS);
	KUNIT_EXPECT_GE(test, p[3].start, mono + 100 * MS);
}

/*
 * Callbacks sleep, and sleeping ones run side by side on two workers: both
 * are asleep at the gate at once, before it opens.
 */
static void dwq_queue_test_callbacks_sleep(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 2);
	struct completion *gate = qt_gate(test);
	atomic_t *inflight = qt_counters(test, 2), *max = &inflight[1];
	struct dwq_queue *q = qt_queue(test, 2, 0);
	int i;

	for (i = 0; i < 2; i++) {
		p[i].gate = gate;
		p[i].inflight = inflight;
		p[i].max_inflight = max;
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[i], 0), 0);
	}
	qt_wait_for(test, &p[0].started, TIMEOUT_MS);
	qt_wait_for(test, &p[1].started, TIMEOUT_MS);
	complete_all(gate);
	qt_wait_ran(test, &p[0]);
	qt_wait_ran(test, &p[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(max), 2);
	KUNIT_EXPECT_NE(test, p[0].worker, p[1].worker);
}

/* The queue totals are the sums of the per-worker counters. */
static void dwq_queue_test_stats_sum(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 10);
	struct dwq_queue *q = qt_queue(test, 3, 0);
	struct dwq_worker_stats sum = {}, ws;
	struct dwq_queue_stats st;
	int i;

	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[i], i * 5 * MS), 0);
	for (i = 0; i < 10; i++)
		qt_wait_ran(test, &p[i]);
	/* Nobody awake: the snapshots below are of the same counters. */
	dwq_kunit_wait_until(test, qt_settled(q));
	st = qt_stats(q);
	for (i = 0; i < 3; i++) {
		ws = qt_wstats(test, q, i);
		sum.timed_waits += ws.timed_waits;
		sum.untimed_waits += ws.untimed_waits;
		sum.wakeups += ws.wakeups;
		sum.spurious_wakeups += ws.spurious_wakeups;
		sum.tasks_run += ws.tasks_run;
		sum.leader_changes += ws.leader_changes;
	}
	KUNIT_EXPECT_EQ(test, st.total.timed_waits, sum.timed_waits);
	KUNIT_EXPECT_EQ(test, st.total.untimed_waits, sum.untimed_waits);
	KUNIT_EXPECT_EQ(test, st.total.wakeups, sum.wakeups);
	KUNIT_EXPECT_EQ(test, st.total.spurious_wakeups, sum.spurious_wakeups);
	KUNIT_EXPECT_EQ(test, st.total.tasks_run, 10ULL);
	KUNIT_EXPECT_EQ(test, sum.tasks_run, 10ULL);
	KUNIT_EXPECT_EQ(test, st.total.leader_changes, sum.leader_changes);
	KUNIT_EXPECT_EQ(test, st.total.timed_waits, st.total.leader_changes);
}

/*
 * A callback that blocks for a long time: it waits for @gate (bounded by
 * GATE_MS), or without one until its worker is asked to stop, then notes
 * how many @others there were, whether @destroyed was complete and what
 * state @watch was in by then.
 */
struct qt_sleeper {
	struct dwq_task task;
	struct completion started;
	struct completion *gate;
	atomic_t *others;
	int others_seen;
	struct completion *destroyed;
	bool destroyed_seen;
	struct dwq_task *watch;
	u8 watch_seen;
	int worker;
	atomic_t runs;
};

static void qt_sleeper_fn(struct dwq_task *task)
{
	struct qt_sleeper *z = container_of(task, struct qt_sleeper, task);

	z->worker = dwq_task_run_worker(task);
	complete(&z->started);
	if (z->gate)
		wait_for_completion_timeout(z->gate, msecs_to_jiffies(GATE_MS));
	else
		qt_hold_until_stop();
	z->others_seen = atomic_read(z->others);
	if (z->destroyed)
		z->destroyed_seen = completion_done(z->destroyed);
	if (z->watch)
		z->watch_seen = READ_ONCE(z->watch->state);
	atomic_inc(&z->runs);
}

static void qt_sleeper_init(struct qt_sleeper *z, struct completion *gate,
			    atomic_t *others)
{
	dwq_task_init(&z->task, qt_sleeper_fn, NULL);
	init_completion(&z->started);
	z->gate = gate;
	z->others = others;
}

/*
 * One of two workers blocked in a long callback does not stall the rest:
 * 100 short tasks, due from 1 ms to 100 ms after it in the same batch, all
 * run on the other worker while it is still blocked, in deadline order.
 */
static void dwq_queue_test_sleeper_does_not_stall(struct kunit *test)
{
	const unsigned int n = 100;
	struct qt_probe *p = qt_probes(test, n);
	struct completion *gate = qt_gate(test);
	struct dwq_task **tasks;
	struct dwq_queue *q;
	struct dwq_sched *s;
	struct qt_sleeper *z;
	atomic_t *done, *seq;
	unsigned int i;

	z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	tasks = kunit_kcalloc(test, n + 1, sizeof(*tasks), GFP_KERNEL);
	s = kunit_kcalloc(test, n + 1, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, z && tasks && s);
	done = qt_counters(test, 2);
	seq = &done[1];
	q = qt_queue(test, 2, 0);
	qt_sleeper_init(z, gate, done);
	tasks[0] = &z->task;
	for (i = 0; i < n; i++) {
		p[i].done = done;
		p[i].seq = seq;
		tasks[i + 1] = &p[i].task;
		s[i + 1].time_ns = (i + 1) * MS;
	}
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, n + 1), 0);

	qt_wait_count(test, done, n);
	/*
	 * Its worker took it first, but may not have entered its callback
	 * yet (preempted on its way there, as on PREEMPT_RT): z->worker is
	 * written there.
	 */
	qt_wait_for(test, &z->started, TIMEOUT_MS);
	/* All of them ran with the sleeper still blocked. */
	KUNIT_EXPECT_EQ(test, atomic_read(&z->runs), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(z->task.state), (u8)DWQ_STATE_RUNNING);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, p[i].order, (int)i + 1);
		KUNIT_EXPECT_NE(test, p[i].worker, z->worker);
	}
	complete(gate);
	qt_wait_count(test, &z->runs, 1);
	KUNIT_EXPECT_EQ(test, z->others_seen, (int)n);
}

/*
 * The hand-off grace follows the time followers take to come: a quarter
 * of the way each time, never under DWQ_HANDOFF_GRACE_NS nor over
 * DWQ_HANDOFF_GRACE_MAX_NS, however fast or slow one came.
 */
static void dwq_queue_test_handoff_grace_learns(struct kunit *test)
{
	const u64 lo = DWQ_HANDOFF_GRACE_NS, hi = DWQ_HANDOFF_GRACE_MAX_NS;
	u64 grace = lo;
	int i;

	/* 250 us: 50 -> 100 -> 137.5 us. */
	grace = dwq_handoff_grace_next(grace, 250 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, grace, 100 * NSEC_PER_USEC);
	grace = dwq_handoff_grace_next(grace, 250 * NSEC_PER_USEC);
	KUNIT_EXPECT_EQ(test, grace, 137500ULL);
	/* Converges on it from below, and never passes it. */
	for (i = 0; i < 100; i++)
		grace = dwq_handoff_grace_next(grace, 250 * NSEC_PER_USEC);
	KUNIT_EXPECT_LE(test, grace, 250 * NSEC_PER_USEC);
	KUNIT_EXPECT_GE(test, grace, 249 * NSEC_PER_USEC);
	/* A follower held up for a second counts as the most. */
	grace = dwq_handoff_grace_next(lo, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, grace, lo + (hi - lo) / 4);
	for (i = 0; i < 100; i++)
		grace = dwq_handoff_grace_next(grace, U64_MAX);
	KUNIT_EXPECT_EQ(test, grace, hi);
	/* Fast ones bring it down, to no less than the least. */
	grace = dwq_handoff_grace_next(hi, 0);
	KUNIT_EXPECT_EQ(test, grace, hi - hi / 4);
	for (i = 0; i < 100; i++)
		grace = dwq_handoff_grace_next(grace, 0);
	KUNIT_EXPECT_EQ(test, grace, lo);
	KUNIT_EXPECT_EQ(test, dwq_handoff_grace_next(lo, lo), lo);
}

/* Schedule @a at @da and @b at @db at once, in one batch. */
static int qt_at2(struct dwq_queue *q, struct qt_probe *a, u64 da,
		  struct qt_probe *b, u64 db)
{
	struct dwq_task *tasks[2] = { &a->task, &b->task };
	struct dwq_sched s[2] = {
		{ .time_ns = da, .flags = DWQ_SCHED_ABS },
		{ .time_ns = db, .flags = DWQ_SCHED_ABS },
	};

	return dwq_schedule_batch(q, tasks, s, 2);
}

/*
 * The leader arms its hand-off timer as it begins to sleep (see
 * __dwq_handoff_ahead()), not between the head's deadline and its
 * callback. It takes z and blocks in its callback with p due 100 ms
 * later: the other worker must run p, by the grace after p's deadline.
 * Armed for p's grace, the task behind z, the timer covers the run: the
 * worker arms nothing more. With @stale, the leader first slept for x,
 * 1.7 s later, with p behind it at 1.8 s: armed for that grace, 1.7 s
 * late for p's new deadline, the timer is armed again for p's as z's
 * worker leaves, under the queue's lock. z is due 2 s on, the timers
 * armed exactly: the leader must sleep for it first (with @stale, after
 * the waits for x), which 200 ms would not leave a slow guest; p, due at
 * 2.1 s, must start before 3.5 s, which a slow guest leaves 1.4 s for and
 * the stale grace (after 3.7 s) would not meet.
 */
static void qt_handoff_ahead(struct kunit *test, bool stale)
{
	/* z, p, x; probes and gate first: freed after the queue. */
	struct qt_probe *pr = qt_probes(test, 3), *z = &pr[0], *p = &pr[1];
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 2, 0);
	struct dwq_worker *w;
	u64 base, ahead, at;

	qt_exact(q);
	qt_wait_followers(test, q, 2);
	base = ktime_get_ns() + 2000 * MS;
	z->gate = gate;
	if (stale) {
		/* The leader sleeps for x, with p behind: armed for x. */
		KUNIT_ASSERT_EQ(test,
				qt_at2(q, &pr[2], base + 1700 * MS, p,
				       base + 1800 * MS),
				0);
		KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);
		dwq_kunit_wait_until(test, qt_settled(q));
		KUNIT_ASSERT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_REMOVED);
		/* New heads: its timer moves in, the hand-off stays. */
		KUNIT_ASSERT_EQ(test, qt_at(q, z, base), 0);
		KUNIT_ASSERT_EQ(test, qt_at(q, p, base + 100 * MS), 0);
	} else {
		/* At once: the leader sleeps for z with p behind. */
		KUNIT_ASSERT_EQ(test, qt_at2(q, z, base, p, base + 100 * MS),
				0);
	}
	qt_wait_for(test, &z->started, TIMEOUT_MS);
	raw_spin_lock_irq(&q->lock);
	w = &q->workers[z->worker];
	ahead = w->handoff_ahead;
	at = w->handoff_at;
	raw_spin_unlock_irq(&q->lock);
	/* Armed for p's grace: ahead, or again as z's worker left. */
	KUNIT_EXPECT_EQ(test, ahead, base + 100 * MS + DWQ_HANDOFF_GRACE_NS);
	/* Nothing left for the worker to arm outside the lock. */
	KUNIT_EXPECT_EQ(test, at, 0ULL);

	qt_wait_ran(test, p);
	KUNIT_EXPECT_NE(test, p->worker, z->worker);
	KUNIT_EXPECT_GE(test, p->start, base + 100 * MS);
	KUNIT_EXPECT_LT(test, p->start, base + 1500 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&z->runs), 0);
	complete(gate);
	qt_wait_ran(test, z);
	if (stale)
		qt_wait_ran(test, &pr[2]);
}

static void dwq_queue_test_handoff_ahead(struct kunit *test)
{
	qt_handoff_ahead(test, false);
}

static void dwq_queue_test_handoff_ahead_stale(struct kunit *test)
{
	qt_handoff_ahead(test, true);
}

/*
 * A leader about to sleep until the head is due takes the head out of the
 * heap into the front slot (__dwq_front_promote()), also when its timer
 * fires early and leads on. The promoted head may still be cancelled or
 * put behind a new one, and order holds. The timers are armed exactly, the
 * first deadline 2 s ahead and a 1 s after it: the waits for the leader
 * must come before the first, and the cancel of a, after the wait for the
 * first, before a is due, which 300 ms and 80 ms would not leave a slow
 * guest.
 */
static void dwq_queue_test_leader_promotes_head(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 4);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_heap_node *front;
	atomic_t seq;
	unsigned int i;
	u64 base;
	int ret;

	qt_exact(q);
	qt_wait_followers(test, q, 1);
	atomic_set(&seq, 0);
	for (i = 0; i < 4; i++)
		p[i].seq = &seq;
	base = ktime_get_ns() + 2000 * MS;
	/* a, then b behind it: the leader sleeps for a, in the front slot. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[0], base + 1000 * MS), 0);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[1], base + 2000 * MS), 0);
	dwq_kunit_wait_until(test, qt_wait_leader(q, -1) == 0 && qt_settled(q));
	/* c, earlier: the front slot's, a back to the heap. c cancelled. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[2], base), 0);
	raw_spin_lock_irq(&q->lock);
	front = q->front;
	raw_spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_PTR_EQ(test, front, &p[2].task.node);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p[2].task), DWQ_RESULT_REMOVED);
	/* The timer fires for nothing at c's deadline and leads on for a. */
	dwq_kunit_wait_until(test, ktime_get_ns() > base + 20 * MS);
	raw_spin_lock_irq(&q->lock);
	front = q->front;
	raw_spin_unlock_irq(&q->lock);
	if (ktime_get_ns() < base + 1000 * MS)
		KUNIT_EXPECT_PTR_EQ(test, front, &p[0].task.node);
	/* d, due between a and b; a, in the front slot, cancelled. */
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[3], base + 1500 * MS), 0);
	ret = dwq_cancel(&p[0].task);
	if (ret != DWQ_RESULT_REMOVED && ktime_get_ns() >= base + 1000 * MS)
		dwq_kunit_skip(test,
			       "the guest took the second to a's deadline");
	KUNIT_EXPECT_EQ(test, ret, DWQ_RESULT_REMOVED);
	qt_wait_ran(test, &p[1]);
	qt_wait_ran(test, &p[3]);
	KUNIT_EXPECT_EQ(test, p[3].order, 1);
	KUNIT_EXPECT_EQ(test, p[1].order, 2);
	KUNIT_EXPECT_GE(test, p[3].start, base + 1500 * MS);
	KUNIT_EXPECT_GE(test, p[1].start, base + 2000 * MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[2].runs), 0);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, 0U);
}

/*
 * A callback that blocks in the middle of a run of due tasks: the worker
 * took it without going back to take(), with the hand-off timer armed for
 * the first task of the run. The timer must follow the run and still bring
 * the other worker in for the tasks behind the blocked one.
 */
static void dwq_queue_test_run_hands_off(struct kunit *test)
{
	const unsigned int n = 16, mid = 8;
	struct qt_probe *p = qt_probes(test, n);
	struct completion *gate = qt_gate(test);
	struct dwq_task **tasks;
	struct dwq_queue *q;
	struct dwq_sched *s;
	struct qt_sleeper *z;
	atomic_t *done;
	unsigned int i;

	z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	tasks = kunit_kcalloc(test, n + 1, sizeof(*tasks), GFP_KERNEL);
	s = kunit_kcalloc(test, n + 1, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, z && tasks && s);
	done = qt_counters(test, 1);
	q = qt_queue(test, 2, 0);
	qt_sleeper_init(z, gate, done);
	/* All due at once, the sleeper after the first @mid (FIFO ties). */
	for (i = 0; i < n; i++) {
		p[i].done = done;
		tasks[i < mid ? i : i + 1] = &p[i].task;
	}
	tasks[mid] = &z->task;
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, n + 1), 0);

	qt_wait_count(test, done, n);
	/*
	 * The sleeper was taken before the tasks behind it, but its worker
	 * may enter the callback (which writes z->worker) only after the
	 * other worker ran them: wait for that before comparing.
	 */
	qt_wait_for(test, &z->started, TIMEOUT_MS);
	KUNIT_EXPECT_EQ(test, atomic_read(&z->runs), 0);
	for (i = mid; i < n; i++)
		KUNIT_EXPECT_NE(test, p[i].worker, z->worker);
	complete(gate);
	qt_wait_count(test, &z->runs, 1);
	KUNIT_EXPECT_EQ(test, z->others_seen, (int)n);
}

/*
 * The hand-off timer of a task taken alone, with another task waiting and
 * nobody leading it: armed for an ordinary task, not for a quick one, nor
 * for quick ones taken in a run; an ordinary task in the run arms it.
 */
static void dwq_queue_test_quick_no_handoff(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 7);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_task *tasks[4];
	struct dwq_sched s[4] = {};
	unsigned int i;

	for (i = 0; i < 7; i++)
		p[i].q = q;
	/*
	 * Alone: p[0] due now, p[1] far behind it. Each step waits for the
	 * worker to lead p[1] again, so that its run (and timer) is over.
	 */
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[1], 60000 * MS), 0);
	KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 0), 0);
	qt_wait_ran(test, &p[0]);
	KUNIT_EXPECT_TRUE(test, p[0].handoff_armed);
	KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);

	/* The same, quick. */
	dwq_task_set_quick(&p[2].task, true);
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[2], 0), 0);
	qt_wait_ran(test, &p[2]);
	KUNIT_EXPECT_FALSE(test, p[2].handoff_armed);
	KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);

	/*
	 * Three quick ones due at once, a run on the one worker, then an
	 * ordinary one in the same run: only that one arms it.
	 */
	for (i = 0; i < 4; i++) {
		dwq_task_set_quick(&p[3 + i].task, i < 3);
		tasks[i] = &p[3 + i].task;
	}
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, 4), 0);
	for (i = 0; i < 4; i++)
		qt_wait_ran(test, &p[3 + i]);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_FALSE(test, p[3 + i].handoff_armed);
	KUNIT_EXPECT_TRUE(test, p[6].handoff_armed);
	KUNIT_EXPECT_EQ(test, qt_stats(q).total.tasks_run, 6ULL);
}

/*
 * A quick callback that plays a worker's hand-off timer by hand, from
 * inside the run (a quick callback may not block, so the checks are made
 * here, not by the test while it waits): within the callback's grace the
 * timer moves on to it, past the grace it wakes one follower.
 */
struct qt_handoff_probe {
	struct dwq_task task;
	struct dwq_queue *q;
	struct qt_probe *behind; /* due behind us, nobody leading it */
	int worker;
	bool armed; /* our worker's own hand-off timer was armed */
	enum hrtimer_restart ahead, within, past; /* what the timer said */
	unsigned int handoffs; /* followers on their way, within */
	bool other_asleep; /* the other worker, within */
	int behind_runs; /* the task behind, within */
	struct completion ran;
};

static void qt_handoff_probe_fn(struct dwq_task *task)
{
	struct qt_handoff_probe *h =
		container_of(task, struct qt_handoff_probe, task);
	struct dwq_queue *q = h->q;
	struct dwq_worker *w;

	h->worker = dwq_task_run_worker(task);
	w = &q->workers[h->worker];
	h->armed = hrtimer_active(&w->handoff);

	/*
	 * Long past the grace, but armed ahead by the worker as it led, not
	 * for this run (a quick one needs none): that expiry does nothing.
	 */
	raw_spin_lock_irq(&q->lock);
	w->run_since = 0;
	w->handoff_ahead = 1;
	raw_spin_unlock_irq(&q->lock);
	h->ahead = qt_fire_handoff(w);

	/*
	 * The callback began an hour from now: well within its grace, on
	 * any guest. As if the timer had been armed for this run (a quick
	 * one arms none).
	 */
	raw_spin_lock_irq(&q->lock);
	w->run_since = ktime_get_ns() + 3600 * NSEC_PER_SEC; /* its clock */
	w->handoff_armed = true;
	raw_spin_unlock_irq(&q->lock);
	h->within = qt_fire_handoff(w);
	raw_spin_lock_irq(&q->lock);
	h->handoffs = q->handoffs;
	raw_spin_unlock_irq(&q->lock);
	h->other_asleep = qt_asleep(q, 1 - h->worker);
	h->behind_runs = atomic_read(&h->behind->runs);

	/* Long past it: one follower is woken, and runs the task behind. */
	raw_spin_lock_irq(&q->lock);
	w->run_since = 0;
	raw_spin_unlock_irq(&q->lock);
	h->past = qt_fire_handoff(w);
	complete(&h->ran);
}

/*
 * What a hand-off timer decides when it fires, by the callback its worker
 * runs now: within that callback's grace it moves on to it (a run of short
 * callbacks); past the grace it wakes one follower; but armed ahead, as
 * the worker began to lead, and not for the run, nothing. Called
 * directly, for a worker in a quick callback (so no timer of its own is
 * armed) with a due task behind it that nobody leads; the start of the
 * callback is set by hand to put the grace ahead or behind.
 */
static void dwq_queue_test_handoff_follows_run(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 1);
	struct dwq_sched s[2] = {};
	struct qt_handoff_probe *h;
	struct dwq_task *tasks[2];
	struct dwq_queue *q;
	u64 woke, grace;

	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	q = qt_queue(test, 2, 0);
	dwq_task_init(&h->task, qt_handoff_probe_fn, NULL);
	init_completion(&h->ran);
	h->q = q;
	h->behind = &p[0];
	/* Both asleep first: then only a wakeup brings the other one in. */
	qt_wait_followers(test, q, 2);
	dwq_task_set_quick(&h->task, true);
	dwq_task_set_quick(&p[0].task, true);
	tasks[0] = &h->task;
	tasks[1] = &p[0].task;
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, 2), 0);
	qt_wait_for(test, &h->ran, TIMEOUT_MS);
	KUNIT_EXPECT_FALSE(test, h->armed);
	KUNIT_EXPECT_EQ(test, h->ahead, HRTIMER_NORESTART);
	KUNIT_EXPECT_EQ(test, h->within, HRTIMER_RESTART);
	KUNIT_EXPECT_EQ(test, h->handoffs, 0U);
	/* Nobody was woken: the other worker was still on the wait queue. */
	KUNIT_EXPECT_TRUE(test, h->other_asleep);
	KUNIT_EXPECT_EQ(test, h->behind_runs, 0);
	KUNIT_EXPECT_EQ(test, h->past, HRTIMER_NORESTART);
	qt_wait_ran(test, &p[0]);
	KUNIT_EXPECT_NE(test, p[0].worker, h->worker);
	/*
	 * The follower came back under the lock before it took p[0]: its
	 * coming was timed, and the grace kept in bounds.
	 */
	raw_spin_lock_irq(&q->lock);
	woke = q->handoff_woke;
	grace = q->handoff_grace;
	raw_spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_NE(test, woke, 0ULL);
	KUNIT_EXPECT_GE(test, grace, (u64)DWQ_HANDOFF_GRACE_NS);
	KUNIT_EXPECT_LE(test, grace, (u64)DWQ_HANDOFF_GRACE_MAX_NS);
}

struct qt_stamp {
	struct dwq_task task;
	u64 end; /* when the callback last returned, about */
	atomic_t runs;
	atomic_t in_timer;
};

static void qt_stamp_fn(struct dwq_task *task)
{
	struct qt_stamp *p = container_of(task, struct qt_stamp, task);

	if (in_serving_softirq())
		atomic_inc(&p->in_timer);
	WRITE_ONCE(p->end, ktime_get_ns());
	atomic_inc(&p->runs);
}

/*
 * @p ran once and is queued again; @info its snapshot. The run is counted
 * before the snapshot: a snapshot taken first could be of the queued task
 * before that run, which then counted it.
 */
static bool qt_stamp_back(struct qt_stamp *p, struct dwq_task_info *info)
{
	if (atomic_read(&p->runs) != 1)
		return false;
	dwq_query(&p->task, info);
	return info->state == DWQ_STATE_QUEUED && atomic_read(&p->runs) == 1;
}

/*
 * A quick fixed-delay task that the timer runs comes back a period after
 * its callback returned: the timer reads the clock for the task's next
 * deadline, not the moment it fired at (which tells it the head is due
 * without a read). The worker leads, for a task an hour ahead, before the
 * task is queued, so that the timer runs it however late the worker would
 * have come to lead; and its period is an hour, so that no second run
 * comes between the snapshot and the checks and cancel after it.
 */
static void dwq_queue_test_quick_fixed_delay(struct kunit *test)
{
	const u64 period = 3600ULL * NSEC_PER_SEC;
	struct dwq_sched s = { .time_ns = 200 * MS,
			       .mode = DWQ_MODE_FIXED_DELAY,
			       .period_ns = period };
	struct dwq_task_info info;
	struct qt_probe *far;
	struct dwq_queue *q;
	struct qt_stamp *p;
	u64 end;

	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	far = qt_probes(test, 1);
	q = qt_queue(test, 1, 0);
	KUNIT_ASSERT_EQ(test, qt_after(q, far, 3600ULL * NSEC_PER_SEC), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	dwq_task_init(&p->task, qt_stamp_fn, NULL);
	dwq_task_set_quick(&p->task, true);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	dwq_kunit_wait_until(test, qt_stamp_back(p, &info));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->in_timer), 1);
	end = READ_ONCE(p->end);
	KUNIT_EXPECT_GE(test, info.deadline_ns, end + period);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p->task), DWQ_RESULT_REMOVED);
}

/*
 * A task that records its first run, counts its runs and those in the
 * timer, and may spin in each.
 */
struct qt_late {
	struct dwq_task task;
	u64 spin_ns; /* busy in each run this long */
	u64 deadline; /* dwq_task_run_deadline() of the first run */
	u64 overruns; /* dwq_task_run_overruns() of the first run */
	atomic_t runs;
	atomic_t in_timer;
};

static void qt_late_fn(struct dwq_task *task)
{
	struct qt_late *p = container_of(task, struct qt_late, task);
	u64 start = ktime_get_ns();

	if (!atomic_read(&p->runs)) {
		p->deadline = dwq_task_run_deadline(task);
		p->overruns = dwq_task_run_overruns(task);
	}
	if (in_serving_softirq())
		atomic_inc(&p->in_timer);
	while (ktime_get_ns() - start < p->spin_ns)
		cpu_relax();
	atomic_inc(&p->runs);
}

/*
 * @p has run and is queued again; @info its snapshot. The run is counted
 * before the snapshot: a snapshot of the task queued is then of it after
 * a run that ended. (Counted last in the callback, a run may still be
 * ending: the task is running then, for the deadline of that run.)
 */
static bool qt_late_back(struct qt_late *p, struct dwq_task_info *info)
{
	if (!atomic_read(&p->runs))
		return false;
	dwq_query(&p->task, info);
	return info->state == DWQ_STATE_QUEUED;
}

/* @n of them, the first @quick of them quick, freed when the test ends. */
static struct qt_late *qt_lates(struct kunit *test, unsigned int n,
				unsigned int quick)
{
	struct qt_late *p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++) {
		dwq_task_init(&p[i].task, qt_late_fn, NULL);
		dwq_task_set_quick(&p[i].task, i < quick);
	}
	return p;
}

/*
 * A leader's hand-off timer armed ahead (__dwq_handoff_ahead()) for the
 * task behind an ordinary head stops once that head is gone and only quick
 * tasks are left: the queue's timer runs them and the leader takes none,
 * so the hand-off has no run to cover, and re-arming it for each quick
 * head would be a timer interrupt more per task. The leader sleeps for z
 * with two quick periodic tasks behind it; z is cancelled.
 */
static void dwq_queue_test_handoff_ahead_quick_left(struct kunit *test)
{
	struct qt_probe *z = qt_probes(test, 1);
	struct qt_late *p = qt_lates(test, 2, 2);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_task *tasks[3] = { &z->task, &p[0].task, &p[1].task };
	struct dwq_sched s[3];
	struct dwq_worker *w;
	bool queued, leads;
	u64 base, ahead;
	unsigned int i;

	qt_exact(q);
	qt_wait_followers(test, q, 1);
	/* Far enough for z to be cancelled before it is due, on a slow guest. */
	base = ktime_get_ns() + 2000 * MS;
	s[0] = (struct dwq_sched){ .time_ns = base, .flags = DWQ_SCHED_ABS };
	for (i = 1; i < 3; i++)
		s[i] = (struct dwq_sched){ .time_ns = base + (48 + 2 * i) * MS,
					   .flags = DWQ_SCHED_ABS,
					   .mode = DWQ_MODE_FIXED_RATE,
					   .period_ns = 5 * MS };
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, 3), 0);
	KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);
	dwq_kunit_wait_until(test, qt_settled(q));
	w = &q->workers[0];
	raw_spin_lock_irq(&q->lock);
	ahead = w->handoff_ahead;
	raw_spin_unlock_irq(&q->lock);
	/* Armed ahead, for the grace after the first quick task. */
	KUNIT_EXPECT_GT(test, ahead, base + 50 * MS);
	KUNIT_ASSERT_EQ(test, dwq_cancel(&z->task), DWQ_RESULT_REMOVED);
	/* 100 ms of quick runs, each a grace the timer could re-arm for. */
	dwq_kunit_wait_until(test, min(atomic_read(&p[0].runs),
				       atomic_read(&p[1].runs)) >= 20);
	raw_spin_lock_irq(&q->lock);
	leads = q->leader == w;
	ahead = w->handoff_ahead;
	queued = hrtimer_is_queued(&w->handoff);
	raw_spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_TRUE(test, leads);
	KUNIT_EXPECT_EQ(test, ahead, 0ULL);
	KUNIT_EXPECT_FALSE(test, queued);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[i].task), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&z->runs), 0);
}

/*
 * A quick fixed-rate task that the timer takes late runs once, for the
 * latest of its deadlines that passed, with the ones before it counted as
 * overruns: the timer reads the clock for it, not the moment it fired at.
 * Here it is late by its period six times over, behind a quick one-shot
 * due at the same moment whose callback keeps the timer that long.
 */
static void dwq_queue_test_quick_fixed_rate_late(struct kunit *test)
{
	const u64 period = 10 * MS, spin = 6 * period;
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS };
	struct dwq_queue *q;
	struct qt_late *p = qt_lates(test, 2, 2);
	u64 due;

	q = qt_queue(test, 1, 0);
	p[0].spin_ns = spin;
	/* Far enough for the worker to lead first, even in a slow guest. */
	due = ktime_get_ns() + 200 * MS;
	s.time_ns = due;
	s.mode = DWQ_MODE_ONESHOT;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &s), 0);
	/* The same deadline, scheduled second: it runs second. */
	s.mode = DWQ_MODE_FIXED_RATE;
	s.period_ns = period;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &s), 0);
	dwq_kunit_wait_until(test, atomic_read(&p[1].runs) >= 1);
	/* Queued again, or running again by now: either way it stops. */
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[1].task), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	/* Taken at least @spin after @due: for that deadline or a later one. */
	KUNIT_EXPECT_GE(test, p[1].deadline, due + spin);
	KUNIT_EXPECT_GE(test, p[1].overruns, spin / period);
	KUNIT_EXPECT_EQ(test, p[1].deadline, due + p[1].overruns * period);
}

/*
 * A fixed-rate CLOCK_BOOTTIME task on a CLOCK_MONOTONIC queue whose key
 * went stale in the heap (made so here as a suspend of 1 s would: its
 * clock's offset that much more than it was keyed with) and that comes
 * due before the resume keys it anew runs once, for the latest of its
 * deadlines that passed on its own clock, the ones before it counted as
 * overruns: not for the first, and again at once for the rest. A guest
 * that reaches the deadline before the key is made stale skips the test:
 * the run it makes then is of a key that was never stale.
 */
static void dwq_queue_test_boottime_rate_stale_key(struct kunit *test)
{
	const u64 slept = NSEC_PER_SEC, period = 100 * MS;
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME,
			       .mode = DWQ_MODE_FIXED_RATE,
			       .period_ns = period };
	struct dwq_queue *q;
	struct qt_late *p = qt_lates(test, 1, 0);
	u64 deadline;
	bool early;

	q = qt_queue(test, 1, 0);
	/* Far enough for the offset to go stale before it is due. */
	deadline = ktime_get_boottime_ns() + 1000 * MS;
	s.time_ns = deadline;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	raw_spin_lock_irq(&q->lock);
	/* Never taken before its deadline: still queued, as it was keyed. */
	early = ktime_get_boottime_ns() < deadline;
	if (early)
		p->task.clock_offset -= slept;
	raw_spin_unlock_irq(&q->lock);
	if (!early) {
		KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p->task), 0);
		dwq_kunit_skip(test, "the guest reached the deadline first");
	}
	dwq_kunit_wait_until(test, atomic_read(&p->runs) >= 1);
	/* Queued again, or running again by now: either way it stops. */
	KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p->task), 0);
	/* Its deadlines are now @slept earlier: that many periods passed. */
	KUNIT_EXPECT_GE(test, p->overruns, slept / period);
	KUNIT_EXPECT_EQ(test, p->deadline,
			deadline - slept + p->overruns * period);
}

static void qt_unsuspend(void *unused)
{
	dwq_kunit_set_suspended(0);
}

/*
 * The end of time on a CLOCK_BOOTTIME queue after a suspend: a plain
 * (CLOCK_MONOTONIC) deadline of KTIME_MAX, which a queue keys with the
 * time suspended added, is accepted as it is without a suspend, kept as
 * given, by dwq_schedule() and dwq_mod() alike, and never due.
 */
static void dwq_queue_test_boottime_queue_end_of_time(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 1);
	struct dwq_queue *q = qt_queue(test, 1, DWQ_QUEUE_BOOTTIME);
	struct dwq_sched s = { .time_ns = KTIME_MAX, .flags = DWQ_SCHED_ABS };
	struct dwq_task_info info;

	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, qt_unsuspend, NULL), 0);
	dwq_kunit_set_suspended(10 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, (u64)KTIME_MAX);
	s.time_ns = KTIME_MAX - 1;
	/* Queued: moved. */
	KUNIT_EXPECT_EQ(test, dwq_mod(q, &p->task, &s), 1);
	dwq_query(&p->task, &info);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, (u64)KTIME_MAX - 1);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 0);
}

/*
 * CLOCK_BOOTTIME tasks on a CLOCK_MONOTONIC queue whose deadline comes
 * before the time the system has spent in suspend: a moment after boot,
 * but before the one CLOCK_MONOTONIC's 0 maps to on CLOCK_BOOTTIME now, so
 * that its key, on CLOCK_MONOTONIC, is clamped at 0. Such a task keeps its
 * deadline, as dwq_query() gives it; a fixed-rate one keeps its phase, and
 * its run counts every period since. @p[0] gets such a deadline when it is
 * scheduled, @p[1] when a resume keys it anew (a suspend longer than the
 * time the system has run, as a laptop's overnight). The time suspended is
 * emulated (dwq_kunit_set_suspended()); the only worker is held until both
 * are queued.
 */
static void dwq_queue_test_boottime_before_suspended(struct kunit *test)
{
	const u64 slept = 10 * NSEC_PER_SEC, period = 10 * MS;
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME,
			       .mode = DWQ_MODE_FIXED_RATE,
			       .period_ns = period };
	/* Probes and gate first: freed after the queue. */
	struct qt_late *p = qt_lates(test, 2, 0);
	struct qt_probe *hold = qt_probes(test, 1);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_task_info info;
	u64 at[2], boot, suspended, opened;
	unsigned int i;

	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, qt_unsuspend, NULL), 0);
	qt_busy(test, q, hold, gate);
	dwq_kunit_set_suspended(slept);
	boot = ktime_get_boottime_ns() + slept;
	/* 3 ms past a whole period from the time suspended: a phase to keep. */
	at[0] = slept / 2 + 3 * MS;
	s.time_ns = at[0];
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &s), 0);
	at[1] = boot + 7 * MS;
	s.time_ns = at[1];
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &s), 0);
	/* Suspended for longer than the system has run, then resumed. */
	suspended = 2 * slept + ktime_get_boottime_ns();
	dwq_kunit_set_suspended(suspended);
	dwq_queue_resumed(q);
	for (i = 0; i < 2; i++) {
		dwq_query(&p[i].task, &info);
		KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
		KUNIT_EXPECT_EQ(test, info.deadline_ns, at[i]);
		KUNIT_EXPECT_EQ(test, info.remaining_ns, 0ULL);
	}

	opened = ktime_get_boottime_ns() + suspended;
	complete_all(gate);
	for (i = 0; i < 2; i++) {
		dwq_kunit_wait_until(test, qt_late_back(&p[i], &info));
		/* Its next deadline in phase too. */
		KUNIT_EXPECT_EQ(test, (info.deadline_ns - at[i]) % period,
				0ULL);
		KUNIT_EXPECT_GT(test, info.deadline_ns, p[i].deadline);
		KUNIT_EXPECT_GE(test, dwq_cancel_sync(&p[i].task), 0);
		/* The latest deadline of its series passed when it ran. */
		KUNIT_EXPECT_EQ(test, (p[i].deadline - at[i]) % period, 0ULL);
		KUNIT_EXPECT_EQ(test, p[i].overruns,
				(p[i].deadline - at[i]) / period);
		KUNIT_EXPECT_GT(test, p[i].deadline + period, opened);
	}
}

/*
 * dwq_query() of a running task gives the clock of the run whose deadline
 * it gives, not the one a dwq_reschedule() during the run set for the
 * next; once queued again, the next's.
 */
static void dwq_queue_test_query_running_clock(struct kunit *test)
{
	/* Probes and gate first: freed after the queue. */
	struct qt_probe *p = qt_probes(test, 1);
	struct completion *gate = qt_gate(test);
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct dwq_sched s = { .mode = DWQ_MODE_FIXED_RATE,
			       .period_ns = 3600ULL * NSEC_PER_SEC };
	struct dwq_task_info info;
	u64 next;

	p[0].gate = gate;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &s), 0);
	qt_wait_for(test, &p[0].started, TIMEOUT_MS);
	next = ktime_get_boottime_ns() + 3600ULL * NSEC_PER_SEC;
	s.flags = DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME;
	s.time_ns = next;
	KUNIT_ASSERT_EQ(test, dwq_reschedule(&p[0].task, &s), 0);
	dwq_query(&p[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_RUNNING);
	KUNIT_EXPECT_EQ(test, info.flags, 0U);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, p[0].deadline);
	complete_all(gate);
	dwq_kunit_wait_until(test, qt_queued_after_run(&p[0], &info));
	KUNIT_EXPECT_EQ(test, info.flags, (u32)DWQ_SCHED_BOOTTIME);
	KUNIT_EXPECT_EQ(test, info.deadline_ns, next);
	KUNIT_EXPECT_EQ(test, dwq_cancel_sync(&p[0].task), DWQ_RESULT_REMOVED);
}

/*
 * A task that is not due, scheduled while the leader's timer waits out the
 * head's slack (the head due, the timer not fired yet), moves the timer to
 * the new task's deadline; it wakes nobody. The head here is a quick
 * task, which the timer then still runs, not the leader. The worker leads
 * first, for a task an hour ahead (p[2]): a worker that came to lead only
 * after the head was due would run it itself.
 */
static void dwq_queue_test_quick_kick_not_due(struct kunit *test)
{
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS,
			       .mode = DWQ_MODE_ONESHOT,
			       .slack_ns = NSEC_PER_SEC };
	struct dwq_sched far = { .time_ns = 3600ULL * NSEC_PER_SEC };
	struct dwq_queue *q;
	struct qt_late *p = qt_lates(test, 3, 1);
	u64 due;

	q = qt_queue(test, 1, 0);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[2].task, &far), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	due = ktime_get_ns() + 200 * MS;
	s.time_ns = due;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[0].task, &s), 0);
	/* Due, and the timer, armed to its deadline plus its slack, waits. */
	msleep(500);
	if (atomic_read(&p[0].runs))
		dwq_kunit_skip(test, "the timer fired early in the slack");
	s = (struct dwq_sched){ .time_ns = 100 * MS, .mode = DWQ_MODE_ONESHOT };
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[1].task, &s), 0);
	dwq_kunit_wait_until(test, atomic_read(&p[1].runs) == 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].in_timer), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].in_timer), 0);
}

struct qt_ctx_probe {
	struct dwq_task task;
	atomic_t *count; /* [0] runs, [1] in hard irq, [2] interrupts off */
	struct dwq_task *other; /* dwq_cancel_sync() from the callback */
	int sync_ret;
	atomic_t runs; /* this one's */
};

static void qt_ctx_fn(struct dwq_task *task)
{
	struct qt_ctx_probe *p = container_of(task, struct qt_ctx_probe, task);

	if (in_hardirq())
		atomic_inc(&p->count[1]);
	if (irqs_disabled())
		atomic_inc(&p->count[2]);
	if (p->other)
		p->sync_ret = dwq_cancel_sync(p->other);
	atomic_inc(&p->runs);
	atomic_inc(&p->count[0]);
}

/*
 * DWQ_QUEUE_HARDIRQ: a burst of quick tasks due at once, more than the
 * timer runs per expiry. The timer runs the first ones in hard irq
 * context, a worker the rest with interrupts off, every one once; a
 * dwq_cancel_sync() from such a callback says -EDEADLK and does nothing.
 * On PREEMPT_RT the flag does nothing: none runs in hard irq context. A
 * worker leads, asleep, before the burst is queued: one that came to lead
 * only after the burst was due (20 ms) would run it all itself.
 */
static void dwq_queue_test_hardirq(struct kunit *test)
{
	const unsigned int n = DWQ_TIMER_RUN_MAX + 4;
	struct qt_probe *other = qt_probes(test, 1);
	atomic_t *count = qt_counters(test, 3);
	struct dwq_task_info info;
	struct qt_ctx_probe *p;
	struct dwq_task **tasks;
	struct dwq_sched *s;
	struct dwq_queue *q;
	unsigned int i;
	u64 at;

	p = kunit_kcalloc(test, n, sizeof(*p), GFP_KERNEL);
	tasks = kunit_kcalloc(test, n, sizeof(*tasks), GFP_KERNEL);
	s = kunit_kcalloc(test, n, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, p && tasks && s);
	q = qt_queue(test, 2, DWQ_QUEUE_HARDIRQ);
	KUNIT_ASSERT_EQ(test, qt_after(q, &other[0], 3600 * NSEC_PER_SEC), 0);
	dwq_kunit_wait_until(test, dwq_kunit_leading(q));
	at = ktime_get_ns() + 20 * MS;
	for (i = 0; i < n; i++) {
		dwq_task_init(&p[i].task, qt_ctx_fn, NULL);
		dwq_task_set_quick(&p[i].task, true);
		p[i].count = count;
		tasks[i] = &p[i].task;
		s[i] = (struct dwq_sched){ .time_ns = at,
					   .flags = DWQ_SCHED_ABS };
	}
	p[0].other = &other[0].task;
	KUNIT_ASSERT_EQ(test, dwq_schedule_batch(q, tasks, s, n), 0);
	dwq_kunit_wait_until(test, atomic_read(&count[0]) == n);
	/* Each ran once, and is done. */
	for (i = 0; i < n; i++) {
		dwq_kunit_wait_until(test, READ_ONCE(p[i].task.state) ==
						   DWQ_STATE_IDLE);
		KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 1);
	}
	KUNIT_EXPECT_EQ(test, p[0].sync_ret, -EDEADLK);
	dwq_query(&other[0].task, &info);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	if (IS_ENABLED(CONFIG_PREEMPT_RT)) {
		KUNIT_EXPECT_EQ(test, atomic_read(&count[1]), 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&count[2]), (int)n);
	KUNIT_EXPECT_GE(test, atomic_read(&count[1]), 1);
	KUNIT_EXPECT_LE(test, atomic_read(&count[1]), DWQ_TIMER_RUN_MAX);
}

/* Which of the leader's timers is armed, and whether each is queued. */
struct qt_timers {
	struct hrtimer *armed;
	bool soft_queued;
	bool hard_queued;
};

static struct qt_timers qt_timers(struct dwq_queue *q)
{
	struct qt_timers t;

	raw_spin_lock_irq(&q->lock);
	t.armed = q->armed;
	t.soft_queued = hrtimer_is_queued(&q->timer);
	t.hard_queued = hrtimer_is_queued(&q->wake_timer);
	raw_spin_unlock_irq(&q->lock);
	return t;
}

/* The leader's timer armed is @timer, and it is queued. */
static bool qt_armed(struct dwq_queue *q, struct hrtimer *timer,
		     struct qt_timers *t)
{
	*t = qt_timers(q);
	return t->armed == timer &&
	       (timer == &q->timer ? t->soft_queued : t->hard_queued);
}

/* Wait until the leader's timer armed is @timer, and only it is queued. */
static void qt_wait_armed(struct kunit *test, struct dwq_queue *q,
			  struct hrtimer *timer)
{
	struct qt_timers t;

	dwq_kunit_wait_until(test, qt_armed(q, timer, &t));
	KUNIT_EXPECT_FALSE(test,
			   timer == &q->timer ? t.hard_queued : t.soft_queued);
}

struct qt_ctx_softirq {
	struct dwq_task task;
	atomic_t runs; /* set last, with a barrier: the rest is then final */
	bool in_softirq; /* in the timer's softirq, not on a worker */
	bool in_hardirq;
	u64 start;
};

static void qt_softirq_fn(struct dwq_task *task)
{
	struct qt_ctx_softirq *c =
		container_of(task, struct qt_ctx_softirq, task);

	c->start = ktime_get_ns();
	c->in_softirq = in_serving_softirq();
	c->in_hardirq = in_hardirq();
	atomic_inc_return(&c->runs);
}

/* @c has run once: its fields may be read. */
static bool qt_softirq_ran(struct qt_ctx_softirq *c)
{
	return atomic_read_acquire(&c->runs) == 1;
}

/*
 * On a queue whose timer is soft, a leader sleeps for an ordinary head on
 * its hard timer (woken from the timer interrupt, no softirq between) and
 * for a quick head on its soft timer (whose callback runs it): a new head
 * of the other kind moves it from one to the other, the timer left armed
 * for a cancelled head moves on to the next one's kind, a task that only
 * narrows the range of the head's timer keeps its kind, and a quick task
 * found due by the hard timer is handed to the soft one, which runs it in
 * the timer softirq with no wakeup. A DWQ_QUEUE_HARDIRQ queue has one
 * timer, hard, for both. Deadlines are 2 s ahead where a step must be
 * over before one is due, and the timer is armed exactly for them.
 */
static void dwq_queue_test_wake_timer(struct kunit *test)
{
	struct qt_ctx_softirq *c =
		kunit_kcalloc(test, 2, sizeof(*c), GFP_KERNEL);
	struct qt_probe *p = qt_probes(test, 6);
	struct dwq_queue *q = qt_queue(test, 1, 0), *hq;
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS };
	struct dwq_queue_stats before;
	struct qt_timers t;
	s64 expires;
	int ret;
	u64 at;

	KUNIT_ASSERT_NOT_NULL(test, c);
	qt_exact(q);
	KUNIT_EXPECT_TRUE(test, q->timer.is_soft);
	KUNIT_EXPECT_TRUE(test, q->wake_timer.is_hard);

	/* An ordinary head: the hard timer. */
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 60000 * MS), 0);
	KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);
	qt_wait_armed(test, q, &q->wake_timer);

	/* A quick new head: the soft timer, the hard one cancelled. */
	dwq_task_set_quick(&p[1].task, true);
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[1], 20000 * MS), 0);
	qt_wait_armed(test, q, &q->timer);

	/* Cancelled: the soft timer fires early, then the hard one leads. */
	at = ktime_get_ns() + 2000 * MS;
	KUNIT_ASSERT_EQ(test,
			dwq_reschedule(&p[1].task,
				       &(struct dwq_sched){ .time_ns = 2000 *
								       MS }),
			0);
	ret = dwq_cancel(&p[1].task);
	t = qt_timers(q);
	qt_still_before(test, at);
	KUNIT_ASSERT_EQ(test, ret, DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_PTR_EQ(test, t.armed, &q->timer);
	qt_wait_armed(test, q, &q->wake_timer);

	/*
	 * An ordinary head and a quick task with the same deadline behind
	 * it; the head cancelled, the hard timer finds the quick one due and
	 * hands it over: it runs in the timer softirq, nobody woken.
	 */
	dwq_task_init(&c[0].task, qt_softirq_fn, NULL);
	dwq_task_set_quick(&c[0].task, true);
	dwq_kunit_wait_until(test, qt_settled(q));
	before = qt_stats(q);
	at = ktime_get_ns() + 2000 * MS;
	s.time_ns = at;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[2].task, &s), 0);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &c[0].task, &s), 0);
	qt_wait_armed(test, q, &q->wake_timer);
	ret = dwq_cancel(&p[2].task);
	t = qt_timers(q);
	qt_still_before(test, at);
	KUNIT_ASSERT_EQ(test, ret, DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_PTR_EQ(test, t.armed, &q->wake_timer);
	dwq_kunit_wait_until(test, qt_softirq_ran(&c[0]));
	KUNIT_EXPECT_GE(test, c[0].start, at);
	KUNIT_EXPECT_TRUE(test, c[0].in_softirq);
	KUNIT_EXPECT_FALSE(test, c[0].in_hardirq);
	dwq_kunit_wait_until(test, qt_settled(q));
	KUNIT_EXPECT_EQ(test, qt_stats(q).total.wakeups, before.total.wakeups);
	qt_wait_armed(test, q, &q->wake_timer);

	/*
	 * A quick head with slack, then an ordinary task with the same
	 * deadline and none: it narrows the range to that deadline, and the
	 * timer stays the soft one, for the head. Both run by then, the
	 * quick one in the timer softirq, the other on the leader.
	 */
	dwq_task_init(&c[1].task, qt_softirq_fn, NULL);
	dwq_task_set_quick(&c[1].task, true);
	at = ktime_get_ns() + 2000 * MS;
	s.time_ns = at;
	s.slack_ns = 1000 * MS;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &c[1].task, &s), 0);
	qt_wait_armed(test, q, &q->timer);
	s.slack_ns = 0;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p[3].task, &s), 0);
	raw_spin_lock_irq(&q->lock);
	expires = ktime_to_ns(hrtimer_get_expires(q->armed));
	raw_spin_unlock_irq(&q->lock);
	t = qt_timers(q);
	qt_still_before(test, at);
	KUNIT_EXPECT_PTR_EQ(test, t.armed, &q->timer);
	KUNIT_EXPECT_EQ(test, expires, (s64)at);
	qt_wait_ran(test, &p[3]);
	KUNIT_EXPECT_GE(test, p[3].start, at);
	KUNIT_ASSERT_TRUE(test, qt_softirq_ran(&c[1]));
	KUNIT_EXPECT_TRUE(test, c[1].in_softirq);
	KUNIT_EXPECT_GE(test, c[1].start, at);

	/* An ordinary task due: the hard timer wakes the leader, which runs it. */
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[4], 20 * MS), 0);
	qt_wait_ran(test, &p[4]);
	KUNIT_EXPECT_GE(test, p[4].start, p[4].deadline);

	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return;
	/* DWQ_QUEUE_HARDIRQ: its own timer is hard, for every head. */
	hq = qt_queue(test, 1, DWQ_QUEUE_HARDIRQ);
	KUNIT_EXPECT_FALSE(test, hq->timer.is_soft);
	KUNIT_ASSERT_EQ(test, qt_after(hq, &p[5], 60000 * MS), 0);
	KUNIT_ASSERT_GE(test, qt_wait_leader(hq, -1), 0);
	qt_wait_armed(test, hq, &hq->timer);
}

/* A quick task that spins in its callback until let go, or 1 s. */
struct qt_spinner {
	struct dwq_task task;
	atomic_t entered; /* its callback is running */
	atomic_t release; /* let it return */
	atomic_t runs; /* set last, with a barrier: the rest is then final */
	bool in_softirq;
	bool let_go; /* it returned for @release, not for the 1 s */
};

static void qt_spinner_fn(struct dwq_task *task)
{
	struct qt_spinner *z = container_of(task, struct qt_spinner, task);
	u64 end = ktime_get_ns() + 1000 * MS;

	z->in_softirq = in_serving_softirq();
	atomic_set_release(&z->entered, 1);
	while (!atomic_read_acquire(&z->release) && ktime_get_ns() < end)
		cpu_relax();
	z->let_go = atomic_read_acquire(&z->release);
	atomic_inc_return(&z->runs);
}

static void qt_unpin(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/*
 * Tasks queued while the soft timer's callback runs a quick task on
 * another CPU (it spins there until let go): the timer fired for a
 * deadline now past, so a quick task and an earlier ordinary one, neither
 * due, arm nothing meanwhile (the callback is the leader's, and it looks
 * at the head when its task returns); when it returns, it arms the hard
 * timer for the ordinary head, and each task runs once, none before its
 * deadline, the quick one in the timer softirq. Then the same again, and
 * the queue destroyed as soon as the spinning callback is let go, while
 * it may still be arming the hard timer: destroy waits for it and leaves
 * no timer to fire on freed memory (KASAN).
 */
static void dwq_queue_test_timer_callback_busy(struct kunit *test)
{
	struct qt_spinner *z = kunit_kcalloc(test, 2, sizeof(*z), GFP_KERNEL);
	struct qt_ctx_softirq *c =
		kunit_kcalloc(test, 2, sizeof(*c), GFP_KERNEL);
	struct dwq_sched s = { .flags = DWQ_SCHED_ABS };
	struct qt_probe *p = qt_probes(test, 4);
	unsigned int here, there, round;
	struct dwq_queue *q;
	struct qt_timers t;
	u64 due;

	KUNIT_ASSERT_NOT_NULL(test, z);
	KUNIT_ASSERT_NOT_NULL(test, c);
	if (num_online_cpus() < 2)
		dwq_kunit_skip(test, "needs two CPUs");
	here = cpumask_first(cpu_online_mask);
	there = cpumask_next(here, cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, qt_unpin, NULL),
			0);
	for (round = 0; round < 2; round++) {
		q = qt_queue(test, 1, 0);
		qt_exact(q);
		/* A far ordinary head: the leader sleeps on the hard timer. */
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[2 * round], 60000 * MS),
				0);
		KUNIT_ASSERT_GE(test, qt_wait_leader(q, -1), 0);
		qt_wait_armed(test, q, &q->wake_timer);

		dwq_task_init(&z[round].task, qt_spinner_fn, NULL);
		dwq_task_set_quick(&z[round].task, true);
		/*
		 * Scheduled on the other CPU, busy with us (an idle one
		 * would hand the timer to a busy one): its soft timer there.
		 */
		KUNIT_ASSERT_EQ(test,
				set_cpus_allowed_ptr(current,
						     cpumask_of(there)),
				0);
		s.time_ns = ktime_get_ns() + 100 * MS;
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &z[round].task, &s), 0);
		KUNIT_ASSERT_EQ(test,
				set_cpus_allowed_ptr(current, cpumask_of(here)),
				0);
		dwq_kunit_wait_until(test,
				     atomic_read_acquire(&z[round].entered));
		if (atomic_read(&z[round].runs))
			dwq_kunit_skip(test, "the soft timer ran on this CPU");

		dwq_task_init(&c[round].task, qt_softirq_fn, NULL);
		dwq_task_set_quick(&c[round].task, true);
		due = ktime_get_ns() + 2000 * MS;
		s.time_ns = due;
		KUNIT_ASSERT_EQ(test, dwq_schedule(q, &c[round].task, &s), 0);
		KUNIT_ASSERT_EQ(test,
				qt_at(q, &p[2 * round + 1], due - 500 * MS), 0);
		t = qt_timers(q);
		atomic_set_release(&z[round].release, 1);
		if (round)
			/* The callback may be arming the hard timer now. */
			kunit_release_action(test, qt_destroy, q);
		else
			dwq_kunit_wait_until(test,
					     atomic_read_acquire(&z[0].runs));
		/* Else it gave up after its second, before the snapshot. */
		if (!z[round].let_go)
			dwq_kunit_skip(test,
				       "the guest stalled for the spinner's second");
		qt_still_before(test, due - 500 * MS);
		KUNIT_EXPECT_PTR_EQ(test, t.armed, &q->timer);
		KUNIT_EXPECT_FALSE(test, t.soft_queued);
		KUNIT_EXPECT_FALSE(test, t.hard_queued);
		if (round) {
			KUNIT_EXPECT_EQ(test, atomic_read(&z[1].runs), 1);
			KUNIT_EXPECT_EQ(test, atomic_read(&p[3].runs), 0);
			KUNIT_EXPECT_EQ(test, atomic_read(&c[1].runs), 0);
			break;
		}
		qt_wait_armed(test, q, &q->wake_timer);
		qt_still_before(test, due - 500 * MS);
		qt_wait_ran(test, &p[1]);
		dwq_kunit_wait_until(test, qt_softirq_ran(&c[0]));
		KUNIT_EXPECT_GE(test, p[1].start, due - 500 * MS);
		KUNIT_EXPECT_GE(test, c[0].start, due);
		KUNIT_EXPECT_TRUE(test, c[0].in_softirq);
		KUNIT_EXPECT_FALSE(test, c[0].in_hardirq);
		KUNIT_EXPECT_EQ(test, atomic_read(&z[0].runs), 1);
		KUNIT_EXPECT_TRUE(test, z[0].let_go);
		KUNIT_EXPECT_TRUE(test, z[0].in_softirq);
		KUNIT_EXPECT_EQ(test, dwq_cancel(&p[0].task),
				DWQ_RESULT_REMOVED);
		/* Nothing ran twice, once all is quiet. */
		dwq_kunit_wait_until(test, qt_settled(q));
		KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 1);
		KUNIT_EXPECT_EQ(test, atomic_read(&c[0].runs), 1);
	}
}

/*
 * Two workers, both blocked in long callbacks: what the worker count
 * implies, due tasks wait for them, queued, with no worker in take() to
 * run them, and each runs only once the gate has opened. Then they run,
 * all of them.
 */
static void dwq_queue_test_sleepers_fill_workers(struct kunit *test)
{
	const unsigned int n = 10;
	struct qt_probe *p = qt_probes(test, n);
	struct completion *gate = qt_gate(test);
	struct dwq_task_info info;
	struct dwq_queue *q;
	struct qt_sleeper *z;
	atomic_t *done;
	unsigned int i;
	bool busy;

	z = kunit_kcalloc(test, 2, sizeof(*z), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, z);
	done = qt_counters(test, 1);
	q = qt_queue(test, 2, 0);
	for (i = 0; i < 2; i++) {
		qt_sleeper_init(&z[i], gate, done);
		KUNIT_ASSERT_EQ(test,
				dwq_schedule(q, &z[i].task,
					     &(struct dwq_sched){}),
				0);
	}
	for (i = 0; i < 2; i++)
		qt_wait_for(test, &z[i].started, TIMEOUT_MS);
	KUNIT_EXPECT_NE(test, z[0].worker, z[1].worker);
	for (i = 0; i < n; i++) {
		p[i].done = done;
		p[i].gate = gate;
		KUNIT_ASSERT_EQ(test, qt_after(q, &p[i], 0), 0);
	}
	raw_spin_lock_irq(&q->lock);
	busy = q->workers[0].state == DWQ_WORKER_RUNNING &&
	       q->workers[1].state == DWQ_WORKER_RUNNING;
	raw_spin_unlock_irq(&q->lock);
	KUNIT_EXPECT_TRUE(test, busy);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, n);
	for (i = 0; i < n; i++) {
		dwq_query(&p[i].task, &info);
		KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(done), 0);
	complete_all(gate);
	qt_wait_count(test, done, n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_TRUE(test, p[i].gate_open);
	/* Both return (once the gate opened, a free worker runs the rest). */
	for (i = 0; i < 2; i++)
		qt_wait_count(test, &z[i].runs, 1);
}

/* An object with two tasks; the release of @a cancels @b, as teardown. */
struct qt_pair_owner {
	struct dwq_task a;
	struct dwq_task b;
	atomic_t b_runs;
	int result; /* dwq_cancel_sync(&b) in @a's release function */
	struct completion
		go; /* @a returns: its last reference is the queue's, @b due */
	struct completion released;
};

static void qt_pair_a_fn(struct dwq_task *task)
{
	struct qt_pair_owner *o = container_of(task, struct qt_pair_owner, a);

	wait_for_completion(&o->go);
}

static void qt_pair_a_release(struct dwq_task *task)
{
	struct qt_pair_owner *o = container_of(task, struct qt_pair_owner, a);

	o->result = dwq_cancel_sync(&o->b);
	complete(&o->released);
}

static void qt_pair_b_fn(struct dwq_task *task)
{
	struct qt_pair_owner *o = container_of(task, struct qt_pair_owner, b);

	atomic_inc(&o->b_runs);
}

/*
 * A release function that a worker runs, when the queue drops a task's
 * last reference after its callback, may dwq_cancel_sync() another task:
 * the worker takes no next task before the release has returned, so the
 * task it cancels, due meanwhile, is not "running" on the worker that
 * waits for it (-EDEADLK, and an object its owner could not free).
 */
static void dwq_queue_test_release_cancels_next(struct kunit *test)
{
	struct dwq_queue *q = qt_queue(test, 1, 0);
	struct qt_pair_owner *o;

	o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	init_completion(&o->go);
	init_completion(&o->released);
	dwq_task_init(&o->a, qt_pair_a_fn, qt_pair_a_release);
	dwq_task_init(&o->b, qt_pair_b_fn, NULL);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &o->a, &(struct dwq_sched){}), 0);
	KUNIT_ASSERT_EQ(test,
			dwq_schedule(q, &o->b,
				     &(struct dwq_sched){
					     .time_ns = 10 * NSEC_PER_MSEC }),
			0);
	/* The queue holds the last reference to @a now. */
	dwq_task_put(&o->a);
	/* @b due behind @a, which runs on the only worker. */
	msleep(20);
	complete(&o->go);
	qt_wait_for(test, &o->released, TIMEOUT_MS);
	KUNIT_EXPECT_EQ(test, o->result, DWQ_RESULT_REMOVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&o->b_runs), 0);
	KUNIT_EXPECT_EQ(test, o->b.state, (u8)DWQ_STATE_CANCELLED);
}

static struct kunit_case dwq_queue_test_cases[] = {
	KUNIT_CASE(dwq_queue_test_create),
	KUNIT_CASE(dwq_queue_test_create_invalid),
	KUNIT_CASE(dwq_queue_test_seed_experiment),
	KUNIT_CASE(dwq_queue_test_earlier_moves_timer),
	KUNIT_CASE_SLOW(dwq_queue_test_slack_range),
	KUNIT_CASE_SLOW(dwq_queue_test_slack_head_cancelled),
	KUNIT_CASE_SLOW(dwq_queue_test_slack_head_moved),
	KUNIT_CASE_SLOW(dwq_queue_test_slack_head_moved_tie),
	KUNIT_CASE_SLOW(dwq_queue_test_slack_head_taken),
	KUNIT_CASE(dwq_queue_test_later_head_keeps_leader),
	KUNIT_CASE(dwq_queue_test_stop_leader_hands_on),
	KUNIT_CASE_SLOW(dwq_queue_test_wakeups_per_task),
	KUNIT_CASE(dwq_queue_test_deadline_order),
	KUNIT_CASE(dwq_queue_test_fifo_ties),
	KUNIT_CASE(dwq_queue_test_front_slot_order),
	KUNIT_CASE_SLOW(dwq_queue_test_far_head_coarse),
	KUNIT_CASE(dwq_queue_test_growth_and_shrink),
	KUNIT_CASE(dwq_queue_test_batch),
	KUNIT_CASE(dwq_queue_test_schedule_errors),
	KUNIT_CASE(dwq_queue_test_abs_deadline),
	KUNIT_CASE(dwq_queue_test_clocks),
	KUNIT_CASE(dwq_queue_test_boottime_queue_after_suspend),
	KUNIT_CASE(dwq_queue_test_boottime_queue_reduce_after_suspend),
	KUNIT_CASE_SLOW(dwq_queue_test_boottime_task_after_suspend),
	KUNIT_CASE(dwq_queue_test_boottime_task_rate_after_suspend),
	KUNIT_CASE(dwq_queue_test_boottime_rate_stale_key),
	KUNIT_CASE(dwq_queue_test_boottime_before_suspended),
	KUNIT_CASE(dwq_queue_test_boottime_queue_end_of_time),
	KUNIT_CASE(dwq_queue_test_boottime_reduce_after_suspend),
	KUNIT_CASE(dwq_queue_test_boottime_queued_reduce_after_suspend),
	KUNIT_CASE(dwq_queue_test_boottime_queue_fixed_delay),
	KUNIT_CASE(dwq_queue_test_callbacks_sleep),
	KUNIT_CASE(dwq_queue_test_stats_sum),
	KUNIT_CASE(dwq_queue_test_sleeper_does_not_stall),
	KUNIT_CASE(dwq_queue_test_run_hands_off),
	KUNIT_CASE(dwq_queue_test_handoff_grace_learns),
	KUNIT_CASE(dwq_queue_test_handoff_ahead),
	KUNIT_CASE(dwq_queue_test_handoff_ahead_stale),
	KUNIT_CASE(dwq_queue_test_leader_promotes_head),
	KUNIT_CASE(dwq_queue_test_quick_no_handoff),
	KUNIT_CASE(dwq_queue_test_handoff_follows_run),
	KUNIT_CASE(dwq_queue_test_quick_fixed_delay),
	KUNIT_CASE(dwq_queue_test_quick_fixed_rate_late),
	KUNIT_CASE(dwq_queue_test_quick_kick_not_due),
	KUNIT_CASE(dwq_queue_test_query_running_clock),
	KUNIT_CASE(dwq_queue_test_hardirq),
	KUNIT_CASE_SLOW(dwq_queue_test_wake_timer),
	KUNIT_CASE_SLOW(dwq_queue_test_timer_callback_busy),
	KUNIT_CASE(dwq_queue_test_sleepers_fill_workers),
	KUNIT_CASE(dwq_queue_test_release_cancels_next),
	KUNIT_CASE(dwq_queue_test_handoff_ahead_quick_left),
	{}
};

static struct kunit_suite dwq_queue_test_suite = {
	.name = "dwq_queue",
	.test_cases = dwq_queue_test_cases,
};

/* --- destroy --- */

struct qt_destroyer {
	struct dwq_queue *q;
	unsigned int policy;
	struct completion done;
};

static int qt_destroyer_fn(void *arg)
{
	struct qt_destroyer *d = arg;

	dwq_queue_destroy(d->q, d->policy);
	complete(&d->done);
	return 0;
}

/*
 * 10k pending tasks, half of them due, behind a callback that holds the
 * only worker until destroy, with @policy from another thread, stops that
 * worker: the due tasks are then taken as destroy's policy says, not as
 * usual. Checks what ran, that every reference came back and that the
 * workers are gone.
 */
static void qt_destroy_10k(struct kunit *test, unsigned int policy)
{
	const unsigned int n = 10000;
	struct qt_probe *p = qt_probes(test, n + 2);
	struct qt_probe *blocker = &p[n], *late = &p[n + 1];
	struct task_struct *worker, *thread;
	struct qt_destroyer *d;
	atomic_t released;
	struct dwq_queue *q;
	unsigned int i, ran = 0;
	unsigned long left;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	init_completion(&d->done);
	atomic_set(&released, 0);
	for (i = 0; i < n + 2; i++) {
		dwq_task_init(&p[i].task, qt_probe_fn, qt_probe_release);
		p[i].released = &released;
	}

	q = qt_queue_room(test, 1, 0, n + 2);
	blocker->until_stop = true;
	/* A due task that tries to schedule during destroy. */
	p[0].resched_q = q;
	p[0].resched = late;
	KUNIT_ASSERT_EQ(test, qt_after(q, blocker, 0), 0);
	qt_wait_for(test, &blocker->started, TIMEOUT_MS);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				qt_after(q, &p[i],
					 i < n / 2 ? 0 :
						     3600ULL * NSEC_PER_SEC),
				0);
	KUNIT_EXPECT_EQ(test, qt_stats(q).size, n);

	worker = q->workers[0].thread;
	get_task_struct(worker);
	d->q = q;
	d->policy = policy;
	thread = kthread_run(qt_destroyer_fn, d, "dwq-kunit-destroy");
	if (IS_ERR(thread)) {
		put_task_struct(worker);
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(thread));
		return;
	}
	left = wait_for_completion_timeout(&d->done, msecs_to_jiffies(60000));
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "destroy did not return");
	kunit_remove_action(test, qt_destroy, q);

	KUNIT_EXPECT_TRUE(test, worker->flags & PF_EXITING);
	put_task_struct(worker);

	KUNIT_EXPECT_EQ(test, atomic_read(&blocker->runs), 1);
	for (i = 0; i < n; i++) {
		ran += atomic_read(&p[i].runs);
		if (i >= n / 2)
			KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 0);
		else if (policy == DWQ_DESTROY_RUN_DUE)
			KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 1);
		else
			KUNIT_EXPECT_EQ(test, atomic_read(&p[i].runs), 0);
		KUNIT_EXPECT_EQ(test, kref_read(&p[i].task.ref), 1U);
		KUNIT_EXPECT_NE(test, p[i].task.state, (u8)DWQ_STATE_QUEUED);
	}
	kunit_info(test, "%u of %u tasks ran during destroy\n", ran, n);
	if (policy == DWQ_DESTROY_RUN_DUE) {
		KUNIT_EXPECT_EQ(test, p[0].resched_err, -ESHUTDOWN);
		KUNIT_EXPECT_EQ(test, p[0].batch_err, -ESHUTDOWN);
		KUNIT_EXPECT_EQ(test, p[0].reserve_err, -ESHUTDOWN);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&late->runs), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), 0);

	/* Only our own references are left: drop them, each releases once. */
	for (i = 0; i < n + 2; i++)
		dwq_task_put(&p[i].task);
	KUNIT_EXPECT_EQ(test, atomic_read(&released), (int)n + 2);
}

/* Destroy drops 10k pending tasks, due or not, without running them. */
static void dwq_queue_destroy_test_drop_10k(struct kunit *test)
{
	qt_destroy_10k(test, DWQ_DESTROY_DROP);
}

/* Destroy runs the 5k due tasks first, then drops the 5k others. */
static void dwq_queue_destroy_test_run_due_10k(struct kunit *test)
{
	qt_destroy_10k(test, DWQ_DESTROY_RUN_DUE);
}

/*
 * Destroy waits for a running callback, and drops its periodic task: the
 * callback returns only once destroy stops its worker, and has returned
 * when destroy does.
 */
static void dwq_queue_destroy_test_waits_for_callback(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 1);
	struct dwq_sched s = {
		.mode = DWQ_MODE_FIXED_RATE,
		.period_ns = MS,
	};
	struct dwq_queue *q;

	q = qt_queue(test, 2, 0);
	p->until_stop = true;
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	qt_wait_for(test, &p->started, TIMEOUT_MS);

	kunit_release_action(test, qt_destroy, q);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->runs), 1);
	KUNIT_EXPECT_EQ(test, p->task.state, (u8)DWQ_STATE_CANCELLED);
	KUNIT_EXPECT_EQ(test, kref_read(&p->task.ref), 1U);
	KUNIT_EXPECT_EQ(test, dwq_cancel(&p->task), DWQ_RESULT_IDLE);
}

/*
 * Destroy with a long callback in flight waits for it to return, then
 * drops the pending tasks and their references: the callback, held until
 * destroy stops its worker, sees destroy unfinished and a pending task
 * still queued when it returns; every task is released exactly once.
 */
static void dwq_queue_destroy_test_waits_for_sleeper(struct kunit *test)
{
	const unsigned int n = 50;
	struct qt_probe *p = qt_probes(test, n);
	struct task_struct *thread;
	struct qt_destroyer *d;
	struct qt_sleeper *z;
	atomic_t *released, *done;
	struct dwq_queue *q;
	unsigned int i;

	z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, z && d);
	init_completion(&d->done);
	released = qt_counters(test, 2);
	done = &released[1];
	qt_sleeper_init(z, NULL, done);
	z->destroyed = &d->done;
	z->watch = &p[0].task;
	q = qt_queue(test, 2, 0);
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &z->task, &(struct dwq_sched){}),
			0);
	qt_wait_for(test, &z->started, TIMEOUT_MS);
	for (i = 0; i < n; i++) {
		dwq_task_init(&p[i].task, qt_probe_fn, qt_probe_release);
		p[i].released = released;
		p[i].done = done;
		KUNIT_ASSERT_EQ(test,
				qt_after(q, &p[i], 3600ULL * NSEC_PER_SEC), 0);
	}

	d->q = q;
	d->policy = DWQ_DESTROY_DROP;
	thread = kthread_run(qt_destroyer_fn, d, "dwq-kunit-destroy");
	if (IS_ERR(thread)) {
		KUNIT_FAIL(test, "kthread_run: %ld", PTR_ERR(thread));
		return;
	}
	qt_wait_for(test, &d->done, 60000);
	kunit_remove_action(test, qt_destroy, q);

	KUNIT_EXPECT_EQ(test, atomic_read(&z->runs), 1);
	KUNIT_EXPECT_FALSE(test, z->destroyed_seen);
	KUNIT_EXPECT_EQ(test, z->watch_seen, (u8)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, z->task.state, (u8)DWQ_STATE_IDLE);
	KUNIT_EXPECT_EQ(test, kref_read(&z->task.ref), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(done), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(released), 0);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, p[i].task.state, (u8)DWQ_STATE_CANCELLED);
		KUNIT_EXPECT_EQ(test, kref_read(&p[i].task.ref), 1U);
		dwq_task_put(&p[i].task);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(released), (int)n);
}

/*
 * A queue of one worker, held by @blocker's callback until destroy stops
 * it: nothing looks at the tasks the test queues next before destroy does.
 */
static struct dwq_queue *qt_queue_held(struct kunit *test, unsigned int flags,
				       struct qt_probe *blocker)
{
	struct dwq_queue *q = qt_queue(test, 1, flags);

	blocker->until_stop = true;
	KUNIT_ASSERT_EQ(test, qt_after(q, blocker, 0), 0);
	qt_wait_for(test, &blocker->started, TIMEOUT_MS);
	return q;
}

/* Destroy @q with DWQ_DESTROY_RUN_DUE from another thread; wait for it. */
static void qt_destroy_run_due(struct kunit *test, struct dwq_queue *q)
{
	struct task_struct *thread;
	struct qt_destroyer *d;
	unsigned long left;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	init_completion(&d->done);
	d->q = q;
	d->policy = DWQ_DESTROY_RUN_DUE;
	thread = kthread_run(qt_destroyer_fn, d, "dwq-kunit-destroy");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, thread);
	left = wait_for_completion_timeout(&d->done, msecs_to_jiffies(60000));
	KUNIT_ASSERT_NE_MSG(test, left, 0UL, "destroy did not return");
	kunit_remove_action(test, qt_destroy, q);
}

/*
 * Destroy with DWQ_DESTROY_RUN_DUE runs what is due on its own clock: a
 * plain task on a CLOCK_BOOTTIME queue whose key went early in a suspend
 * (made so here: its key 10 s earlier, its offset 10 s less suspended),
 * due by that key and 5 s before its CLOCK_MONOTONIC deadline, is dropped,
 * not run.
 */
static void dwq_queue_destroy_test_run_due_own_clock(struct kunit *test)
{
	const u64 slept = 10000 * MS;
	struct qt_probe *p = qt_probes(test, 2);
	struct qt_probe *blocker = &p[1];
	struct dwq_queue *q;

	q = qt_queue_held(test, DWQ_QUEUE_BOOTTIME, blocker);
	KUNIT_ASSERT_EQ(test, qt_at(q, &p[0], ktime_get_ns() + 5000 * MS), 0);
	raw_spin_lock_irq(&q->lock);
	p[0].task.clock_offset += slept;
	dwq_queue_kunit_rekey(q, &p[0].task, p[0].task.node.deadline - slept);
	raw_spin_unlock_irq(&q->lock);

	qt_destroy_run_due(test, q);
	KUNIT_EXPECT_EQ(test, atomic_read(&blocker->runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&p[0].task.ref), 1U);
}

/*
 * A callback that runs during a DWQ_DESTROY_RUN_DUE destroy, moving a
 * task that is not due to a deadline long past with dwq_reschedule(),
 * gets -ESHUTDOWN, as a schedule does, and the task it tried to move does
 * not run: destroy runs only what was due when it began.
 */
static void dwq_queue_destroy_test_reschedule_refused(struct kunit *test)
{
	struct qt_probe *p = qt_probes(test, 3);
	struct qt_probe *blocker = &p[2];
	struct dwq_queue *q;

	q = qt_queue_held(test, 0, blocker);
	p[0].move = &p[1];
	p[0].move_err = 1;
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[0], 0), 0);
	KUNIT_ASSERT_EQ(test, qt_after(q, &p[1], 3600ULL * NSEC_PER_SEC), 0);

	qt_destroy_run_due(test, q);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[0].runs), 1);
	KUNIT_EXPECT_EQ(test, p[0].move_err, -ESHUTDOWN);
	KUNIT_EXPECT_EQ(test, atomic_read(&p[1].runs), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&p[1].task.ref), 1U);
}

static struct kunit_case dwq_queue_destroy_test_cases[] = {
	KUNIT_CASE_SLOW(dwq_queue_destroy_test_drop_10k),
	KUNIT_CASE_SLOW(dwq_queue_destroy_test_run_due_10k),
	KUNIT_CASE(dwq_queue_destroy_test_waits_for_callback),
	KUNIT_CASE(dwq_queue_destroy_test_waits_for_sleeper),
	KUNIT_CASE(dwq_queue_destroy_test_run_due_own_clock),
	KUNIT_CASE(dwq_queue_destroy_test_reschedule_refused),
	{}
};

static struct kunit_suite dwq_queue_destroy_test_suite = {
	.name = "dwq_queue_destroy",
	.test_cases = dwq_queue_destroy_test_cases,
};

kunit_test_suites(&dwq_queue_test_suite, &dwq_queue_destroy_test_suite);
