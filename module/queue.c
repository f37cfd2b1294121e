// SPDX-License-Identifier: GPL-2.0
/*
 * dwq queue: one spinlock, one indexed min-heap of tasks, and the
 * leader/follower take() of Java's DelayedWorkQueue.
 *
 * take() has the four branches of DelayedWorkQueue.take():
 *
 *   heap empty          -> untimed exclusive wait on @waitq (a follower)
 *   head due            -> pop it and return it
 *   a leader exists     -> untimed exclusive wait on @waitq (a follower)
 *   otherwise           -> become the leader and sleep until the head's
 *                          deadline, on an hrtimer with an explicit slack
 *
 * so only one worker ever sleeps with a timeout, and a due task wakes one
 * thread, not all of them. Nothing is held while asleep: not the lock, not
 * the head (it may be cancelled or rescheduled meanwhile), so every worker
 * must be ready to gain or lose leadership whenever it sleeps.
 *
 * Who wakes whom:
 *
 * - A schedule that makes a task the new head voids the leader, whose
 *   timer is now too late, and wakes exactly one thread: the voided leader
 *   itself if there was one (it sleeps on its hrtimer, not on @waitq, so it
 *   is woken with wake_up_process(); it re-reads the head and leads again),
 *   else the first follower. The JDK signals @available instead, which may
 *   wake a follower and leave the old leader to time out for nothing. A
 *   new head due no earlier than the leader's timer (the head before it
 *   was cancelled) wakes nobody: the leader's timer comes first anyway.
 *
 * - A worker leaving take() with no leader in place and tasks in the heap
 *   must make sure someone wakes for the new head (the JDK's finally
 *   block). When it leaves with a task to run, it does not wake a follower
 *   at once: it will itself be back in take() when its callback returns,
 *   usually long before the head is due, and then lead or run it. Waking a
 *   follower now would cost a wakeup for a thread that would only sleep
 *   again as the leader (the JDK's second wakeup per task), or that would
 *   find the head already taken by us. So that a long callback cannot
 *   leave the head waiting, the worker arms its hand-off hrtimer for
 *   DWQ_HANDOFF_GRACE_NS after the head is due (or after now, if it is
 *   due already); if that fires while the callback still runs and nobody
 *   leads, it wakes one follower. A callback that returns within the grace
 *   would have beaten the follower's wakeup anyway. In a steady stream of
 *   tasks this makes one wakeup per task instead of the JDK's two. A worker
 *   that leaves to stop wakes one follower at once. A task whose callback
 *   is known to be short (dwq_task_set_quick()) arms no hand-off timer:
 *   its worker is back before a follower could be, and would then leave
 *   the head to that follower and sleep, so a hand-off in a burst of quick
 *   tasks would move the burst to another worker, not share it.
 *
 * - A worker whose callback returns takes the next due task at once, in the
 *   same lock hold as finishing the last (__dwq_take_next()): a burst of due
 *   tasks is one run on one worker, with one hand-off timer armed for the
 *   whole run. The timer follows the run by itself: when it fires while a
 *   later callback of the run is still within its grace, it moves on to
 *   that callback's grace instead of waking anyone, so only a callback that
 *   really runs long brings a follower in.
 *
 * Capacity: the heap array never grows or shrinks under the lock. A
 * schedule that needs room drops the lock, allocates, retakes it and checks
 * again; shrinking is done by @shrink_work in process context.
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "dwq_internal.h"
#include "trace.h"

/**
 * dwq_queue_now() - the current time on a queue's clock
 * @q: the queue
 *
 * Context: any context.
 * Return: ns on CLOCK_MONOTONIC or CLOCK_BOOTTIME, whichever @q keys on.
 */
u64 dwq_queue_now(const struct dwq_queue *q)
{
	if (q->clockid == CLOCK_BOOTTIME)
		return ktime_get_boottime_ns();
	return ktime_get_ns();
}

/**
 * __dwq_queue_kick() - the head of a queue changed: wake one thread if needed
 * @q: the queue
 *
 * A leader whose timer fires no later than the new head is due wakes in
 * time by itself: it then finds the new head and leads again. Nobody is
 * woken now. This is the case of a timeout armed and then disarmed before
 * it is due, over and over: each schedule is a new head of an empty heap,
 * later than the one before.
 *
 * Otherwise the leader sleeps until a deadline that is too late. Void it and
 * wake it (it is on its hrtimer, not on @q->waitq); it re-reads the head and
 * leads again, or runs the new head at once if it is due. Without a leader,
 * wake the first follower, which will lead or run. Either way exactly one
 * thread wakes.
 *
 * Context: @q->lock held.
 */
void __dwq_queue_kick(struct dwq_queue *q)
{
	struct dwq_heap_node *head = dwq_heap_peek(&q->heap);
	struct dwq_worker *leader = q->leader;

	lockdep_assert_held(&q->lock);
	if (leader && head && q->leader_deadline <= head->deadline)
		return;
	if (leader) {
		WRITE_ONCE(q->leader, NULL);
		trace_dwq_wakeup(q, leader->id, DWQ_TRACE_WAKE_VOID);
		wake_up_process(leader->thread);
	} else {
		trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_HEAD);
		wake_up(&q->waitq);
	}
}

/**
 * __dwq_queue_maybe_shrink() - start a shrink if the heap is too big
 * @q: the queue
 *
 * Called after tasks left the heap. The heap answers with hysteresis, so
 * this does not fire for every pop.
 *
 * Context: @q->lock held.
 */
void __dwq_queue_maybe_shrink(struct dwq_queue *q)
{
	unsigned int want;

	lockdep_assert_held(&q->lock);
	if (q->stopping)
		return;
	want = dwq_heap_want_capacity(&q->heap, q->reserved);
	if (want && want < q->heap.cap)
		queue_work(system_unbound_wq, &q->shrink_work);
}

/*
 * Give unused capacity back: the same protocol as growing, in the other
 * direction. Allocate the smaller array outside the lock, retake it and
 * adopt the array only if the heap still wants exactly that size.
 */
static void dwq_queue_shrink_work(struct work_struct *work)
{
	struct dwq_queue *q = container_of(work, struct dwq_queue, shrink_work);
	struct dwq_heap_slot *slots, *old;
	unsigned int want;
	bool shrink;

	for (;;) {
		spin_lock_irq(&q->lock);
		want = dwq_heap_want_capacity(&q->heap, q->reserved);
		shrink = want && want < q->heap.cap;
		spin_unlock_irq(&q->lock);
		if (!shrink)
			return;

		/* Shared by all callers: not charged, as in growing. */
		slots = kvmalloc_array(want, sizeof(*slots), GFP_KERNEL);
		if (!slots)
			return; /* Keep the big array; try after the next pop. */

		/* The lock was dropped: the heap may have changed. */
		spin_lock_irq(&q->lock);
		if (dwq_heap_want_capacity(&q->heap, q->reserved) == want)
			old = dwq_heap_adopt(&q->heap, slots, want);
		else
			old = slots;
		spin_unlock_irq(&q->lock);
		kvfree(old);
	}
}

/* Pop the due head for @w at @now: it now runs on @w. */
static struct dwq_task *__dwq_take_head(struct dwq_queue *q,
					struct dwq_worker *w, u64 now)
{
	struct dwq_task *task;

	lockdep_assert_held(&q->lock);
	task = container_of(dwq_heap_pop(&q->heap), struct dwq_task, node);
	w->run_since = now;
	WRITE_ONCE(task->state, DWQ_STATE_RUNNING);
	task->runner = w;
	task->runs++;
	task->run_worker = w->id;
	task->run_deadline = task->node.deadline + task->clock_offset;
	task->run_boottime = task->boottime;
	/*
	 * A periodic task comes back to the heap when its callback returns;
	 * hold its slot back so that this can never fail for lack of room.
	 */
	task->reserved = task->mode != DWQ_MODE_ONESHOT;
	if (task->reserved)
		q->reserved++;
	w->state = DWQ_WORKER_RUNNING;
	w->stats.tasks_run++;
	__dwq_queue_maybe_shrink(q);
	return task;
}

/*
 * When a hand-off timer must wake a follower for @head, if the callback
 * its worker took at @since still runs: the grace after the head is due,
 * or after @since if it was due already.
 */
static u64 __dwq_handoff_at(const struct dwq_heap_node *head, u64 since)
{
	return min_t(u64, max(head->deadline, since),
		     KTIME_MAX - DWQ_HANDOFF_GRACE_NS) +
	       DWQ_HANDOFF_GRACE_NS;
}

/*
 * @w leaves the queue with @task to run: does a hand-off timer need to
 * cover the head meanwhile? Sets @w->handoff_at: when to arm it, or 0 if
 * it need not be armed (a quick task, see dwq_task_set_quick(); no head;
 * a leader; or armed already in this run, see dwq_worker_handoff()).
 */
static void __dwq_leave_with(struct dwq_queue *q, struct dwq_worker *w,
			     const struct dwq_task *task, u64 now)
{
	struct dwq_heap_node *head = dwq_heap_peek(&q->heap);

	w->handoff_at = 0;
	if (READ_ONCE(task->quick) || !head || q->leader || q->stopping ||
	    w->handoff_armed)
		return;
	w->handoff_at = __dwq_handoff_at(head, now);
	w->handoff_armed = true;
}

/* The wakeup key of a hand-off timer, see dwq_worker_handoff(). */
static char dwq_wake_handoff;
#define DWQ_WAKE_HANDOFF ((void *)&dwq_wake_handoff)

/*
 * Wake function of a follower's wait entry. Every wakeup of @q->waitq is
 * made under @q->lock, so this may count the followers that a hand-off
 * really woke (not those that were awake already) in @q->handoffs.
 */
static int dwq_follower_wake(struct wait_queue_entry *wait, unsigned int mode,
			     int sync, void *key)
{
	struct dwq_worker *w = container_of(wait, struct dwq_worker, wait);
	int woken = autoremove_wake_function(wait, mode, sync, key);

	lockdep_assert_held(&w->queue->lock);
	if (woken && key == DWQ_WAKE_HANDOFF) {
		w->by_handoff = true;
		w->queue->handoffs++;
	}
	return woken;
}

/**
 * dwq_worker_handoff() - a worker's hand-off timer fired
 * @timer: &dwq_worker.handoff
 *
 * The worker's callback outlived the grace after the deadline of the head
 * it left without a leader (see dwq_take()): wake one follower for that
 * head, unless someone leads it by now or a follower is already on its way
 * (that one hands off in turn when it leaves with the head). The follower
 * is counted in @q->handoffs until it is back under the lock, and the
 * workers that come to the head meanwhile leave it to it, rather than have
 * it wake for nothing.
 *
 * Context: hard interrupt (hrtimer callback).
 * Return: %HRTIMER_RESTART when it moved on to a later callback's grace,
 * else %HRTIMER_NORESTART.
 */
enum hrtimer_restart dwq_worker_handoff(struct hrtimer *timer)
{
	struct dwq_worker *w = container_of(timer, struct dwq_worker, handoff);
	struct dwq_queue *q = w->queue;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct dwq_heap_node *head;
	u64 at;

	/* Interrupts are off, as everywhere else this lock is taken. */
	spin_lock(&q->lock);
	head = dwq_heap_peek(&q->heap);
	if (!q->leader && !q->handoffs && !q->stopping && head) {
		/*
		 * In a run of due tasks the timer was armed for the first of
		 * them: the callback running now may be a later one, still
		 * within its grace. Then wait for that.
		 */
		at = w->state == DWQ_WORKER_RUNNING ?
			     __dwq_handoff_at(head, w->run_since) :
			     0;
		if (at > dwq_queue_now(q)) {
			hrtimer_set_expires_range_ns(timer, ns_to_ktime(at),
						     DWQ_SLACK_NS);
			ret = HRTIMER_RESTART;
		} else {
			trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_HANDOFF);
			__wake_up(&q->waitq, TASK_NORMAL, 1, DWQ_WAKE_HANDOFF);
		}
	}
	if (ret == HRTIMER_NORESTART)
		w->handoff_armed = false;
	spin_unlock(&q->lock);
	return ret;
}

/*
 * Follower: wait without a timeout, at the tail of @q->waitq, until a
 * schedule or a hand-off wakes us (wake_up() on an exclusive waitqueue
 * wakes the first waiter: followers are woken first-in first-out).
 *
 * Drops @q->lock and retakes it. The state is set and the wait entry
 * queued under the lock, and every waker holds the lock, so no wakeup is
 * lost.
 *
 * Return: false if the worker must stop (then perhaps without sleeping).
 */
static bool __dwq_wait_untimed(struct dwq_worker *w)
{
	struct dwq_queue *q = w->queue;

	lockdep_assert_held(&q->lock);
	w->by_handoff = false;
	init_wait_entry(&w->wait, 0);
	w->wait.func = dwq_follower_wake;
	prepare_to_wait_exclusive(&q->waitq, &w->wait, TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		finish_wait(&q->waitq, &w->wait);
		return false;
	}
	w->stats.untimed_waits++;
	w->state = DWQ_WORKER_FOLLOWER;
	spin_unlock_irq(&q->lock);

	schedule();

	finish_wait(&q->waitq, &w->wait);
	spin_lock_irq(&q->lock);
	w->state = DWQ_WORKER_IDLE;
	w->stats.wakeups++;
	if (w->by_handoff)
		q->handoffs--; /* We are here: see dwq_worker_handoff(). */
	return !kthread_should_stop();
}

/*
 * Leader: sleep until @deadline, the head's, with an explicit small slack.
 * We are not on @q->waitq: a schedule that voids us wakes us by name.
 *
 * Drops @q->lock and retakes it. The state is set under the lock before we
 * become visible as the leader, so a wake_up_process() from a voiding
 * schedule can come at any time after and still ends the sleep.
 *
 * Return: false if the worker must stop (then perhaps without sleeping).
 */
static bool __dwq_wait_timed(struct dwq_worker *w, u64 deadline)
{
	struct dwq_queue *q = w->queue;
	ktime_t expires = ns_to_ktime(deadline);

	lockdep_assert_held(&q->lock);
	set_current_state(TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return false;
	}
	WRITE_ONCE(q->leader, w);
	q->leader_deadline = deadline;
	w->stats.leader_changes++;
	w->stats.timed_waits++;
	w->state = DWQ_WORKER_LEADER;
	trace_dwq_leader(q, w->id, deadline);
	spin_unlock_irq(&q->lock);

	schedule_hrtimeout_range_clock(&expires, DWQ_SLACK_NS, HRTIMER_MODE_ABS,
				       q->clockid);

	spin_lock_irq(&q->lock);
	w->state = DWQ_WORKER_IDLE;
	w->stats.wakeups++;
	/* Timed out, or woken by stop: give leadership up. Voided: it is gone. */
	if (q->leader == w)
		WRITE_ONCE(q->leader, NULL);
	return !kthread_should_stop();
}

/**
 * dwq_take() - wait for the next due task
 * @w: the worker asking
 *
 * The worker's whole life between callbacks: see the comment at the top of
 * this file. On return with a task, the task is %DWQ_STATE_RUNNING on @w and
 * @w->handoff_at tells the worker whether to arm its hand-off timer while
 * the callback runs.
 *
 * Context: the worker's kthread; sleeps.
 * Return: the task to run, or NULL when the worker must stop.
 */
struct dwq_task *dwq_take(struct dwq_worker *w)
{
	struct dwq_queue *q = w->queue;
	struct dwq_heap_node *head;
	struct dwq_task *task = NULL;
	bool woke = false;
	u64 now = 0;

	w->handoff_at = 0;
	w->by_handoff = false;
	spin_lock_irq(&q->lock);
	/* The worker cancelled its hand-off timer before it came here. */
	w->handoff_armed = false;
	for (;;) {
		head = dwq_heap_peek(&q->heap);
		if (head)
			now = dwq_queue_now(q);
		if (unlikely(q->stopping)) {
			/* Destroying: only what DWQ_DESTROY_RUN_DUE still runs. */
			if (head && q->run_due &&
			    head->deadline <= q->run_due_before)
				task = __dwq_take_head(q, w, now);
			break;
		}
		/*
		 * The head is due: take it, unless a hand-off woke a follower
		 * for it who is not here yet. Then leave it to that follower
		 * and wait as one, so that its wakeup is not for nothing.
		 */
		if (head && head->deadline <= now &&
		    (!q->handoffs || w->by_handoff)) {
			task = __dwq_take_head(q, w, now);
			break;
		}
		if (!head || q->leader || head->deadline <= now) {
			/*
			 * Nothing to run and nothing to lead for: the wakeup
			 * that brought us here, if any, was for nothing.
			 */
			if (woke)
				w->stats.spurious_wakeups++;
			woke = __dwq_wait_untimed(w);
		} else {
			woke = __dwq_wait_timed(w, head->deadline);
		}
		if (!woke)
			break; /* kthread_should_stop() */
	}

	/*
	 * Leaving. Leadership was given up when the timed wait ended. If no one
	 * leads now and tasks remain, someone must wake for the new head.
	 */
	head = dwq_heap_peek(&q->heap);
	if (task && !q->stopping) {
		__dwq_leave_with(q, w, task, now);
	} else if (head && !q->leader) {
		trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_LEAVE);
		wake_up(&q->waitq);
	}
	spin_unlock_irq(&q->lock);
	return task;
}

/**
 * __dwq_take_next() - a worker's callback returned: take the next due task
 * @w: the worker, back under the lock in dwq_task_finish()
 * @now: when the callback returned
 *
 * A worker in a run of due tasks takes the next one in the same lock hold,
 * without going through the waits of dwq_take(): no second lock round
 * trip, and its hand-off timer stays armed for the whole run (it follows
 * the run by itself, see dwq_worker_handoff()). The rules are take()'s: a
 * due head is left to a follower a hand-off woke, and nothing is taken
 * while the queue stops (take() then runs what DWQ_DESTROY_RUN_DUE asks
 * for) or when the worker is asked to stop.
 *
 * Context: @w->queue->lock held.
 * Return: the task, now %DWQ_STATE_RUNNING on @w, or NULL: then the worker
 * goes back to dwq_take().
 */
struct dwq_task *__dwq_take_next(struct dwq_worker *w, u64 now)
{
	struct dwq_queue *q = w->queue;
	struct dwq_heap_node *head = dwq_heap_peek(&q->heap);
	struct dwq_task *task;

	lockdep_assert_held(&q->lock);
	if (!head || head->deadline > now || q->handoffs || q->stopping ||
	    kthread_should_stop())
		return NULL;
	task = __dwq_take_head(q, w, now);
	__dwq_leave_with(q, w, task, now);
	return task;
}

/**
 * dwq_queue_create() - create a queue and start its workers
 * @name: a short name: the workers are "dwq/<id>" for "dwq", else
 *	"dwq-<name>/<id>", cut to the 15 characters of a task's comm
 * @workers: worker threads to start, 1 .. %DWQ_MAX_WORKERS
 * @flags: 0 or %DWQ_QUEUE_BOOTTIME
 *
 * Context: process context; sleeps.
 * Return: the queue, or an ERR_PTR(): -EINVAL for a bad argument, -ENOMEM,
 * or what kthread_create() returned.
 */
struct dwq_queue *dwq_queue_create(const char *name, unsigned int workers,
				   unsigned int flags)
{
	struct dwq_heap_slot *slots;
	struct dwq_queue *q;
	int err;

	might_sleep();
	if (!name || !*name || flags & ~DWQ_QUEUE_BOOTTIME || !workers ||
	    workers > DWQ_MAX_WORKERS)
		return ERR_PTR(-EINVAL);

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return ERR_PTR(-ENOMEM);
	slots = kvmalloc_array(DWQ_HEAP_MIN_CAPACITY, sizeof(*slots),
			       GFP_KERNEL);
	if (!slots) {
		err = -ENOMEM;
		goto err_free;
	}
	spin_lock_init(&q->lock);
	dwq_heap_init(&q->heap, slots, DWQ_HEAP_MIN_CAPACITY);
	q->clockid = flags & DWQ_QUEUE_BOOTTIME ? CLOCK_BOOTTIME :
						  CLOCK_MONOTONIC;
	init_waitqueue_head(&q->waitq);
	init_waitqueue_head(&q->done_wq);
	INIT_WORK(&q->shrink_work, dwq_queue_shrink_work);
	strscpy(q->name, name, sizeof(q->name));

	err = dwq_workers_start(q, workers);
	if (err)
		goto err_slots;
	return q;

err_slots:
	kvfree(slots);
err_free:
	kfree(q);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_GPL(dwq_queue_create);

/* Is the caller one of @q's workers? Then it cannot wait for them. */
static bool dwq_queue_is_worker(struct dwq_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->max_workers; i++)
		if (READ_ONCE(q->workers[i].thread) == current)
			return true;
	return false;
}

/**
 * dwq_queue_destroy() - stop a queue's workers and free it
 * @q: the queue
 * @policy: %DWQ_DESTROY_DROP: pending tasks are dropped without running.
 *	%DWQ_DESTROY_RUN_DUE: the tasks already due when this is called run
 *	first (once, even if periodic); the later ones are dropped.
 *
 * Refuses new schedules at once (-ESHUTDOWN), wakes every worker, waits for
 * running callbacks to return and for the workers to exit, then drops the
 * queue's reference to every task left: they end %DWQ_STATE_CANCELLED, and
 * their release functions run if that was the last reference.
 *
 * No other call on @q or its tasks may race with this one.
 *
 * Context: process context; sleeps. Not from one of @q's callbacks.
 */
void dwq_queue_destroy(struct dwq_queue *q, unsigned int policy)
{
	struct dwq_heap_node *node;
	struct dwq_task *task;

	might_sleep();
	if (WARN_ON(dwq_queue_is_worker(q)))
		return;
	WARN_ON(policy > DWQ_DESTROY_RUN_DUE);

	spin_lock_irq(&q->lock);
	q->stopping = true;
	if (policy == DWQ_DESTROY_RUN_DUE) {
		q->run_due = true;
		q->run_due_before = dwq_queue_now(q);
	}
	/* Stopping is prompt: wake everyone, the leader on its timer too. */
	if (q->leader)
		wake_up_process(q->leader->thread);
	wake_up_all(&q->waitq);
	spin_unlock_irq(&q->lock);

	/* Waits for every running callback, and the due ones if asked. */
	dwq_workers_stop(q);
	cancel_work_sync(&q->shrink_work);

	/*
	 * Nobody takes tasks any more. Drop the rest one at a time: their
	 * release functions must run outside the lock.
	 */
	for (;;) {
		spin_lock_irq(&q->lock);
		node = dwq_heap_pop(&q->heap);
		if (!node) {
			spin_unlock_irq(&q->lock);
			break;
		}
		task = container_of(node, struct dwq_task, node);
		__dwq_task_unbind(q, task, DWQ_STATE_CANCELLED);
		spin_unlock_irq(&q->lock);
		dwq_task_put(task);
	}

	/*
	 * Leftovers would be dwq bugs, or a caller racing with us: the workers
	 * are gone, so nobody leads or waits on @waitq, and nobody may still
	 * wait in dwq_cancel_sync().
	 */
	WARN_ON(q->leader || q->handoffs || q->reserved || q->nr_workers);
	/* No barrier: every waiter left before kthread_stop() returned. */
	WARN_ON(waitqueue_active(&q->waitq) || waitqueue_active(&q->done_wq));
	kvfree(q->heap.slots);
	kfree(q->workers);
	kfree(q);
}
EXPORT_SYMBOL_GPL(dwq_queue_destroy);

/**
 * dwq_queue_get_stats() - a snapshot of a queue's size and counters
 * @q: the queue
 * @st: filled in
 *
 * Context: any context.
 */
void dwq_queue_get_stats(struct dwq_queue *q, struct dwq_queue_stats *st)
{
	struct dwq_worker_stats *sum = &st->total, *ws;
	unsigned long flags;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	spin_lock_irqsave(&q->lock, flags);
	st->size = dwq_heap_size(&q->heap);
	st->capacity = q->heap.cap;
	st->workers = q->nr_workers;
	st->leader = q->leader ? q->leader->id : -1;
	for (i = 0; i < q->max_workers; i++) {
		ws = &q->workers[i].stats;
		sum->timed_waits += ws->timed_waits;
		sum->untimed_waits += ws->untimed_waits;
		sum->wakeups += ws->wakeups;
		sum->spurious_wakeups += ws->spurious_wakeups;
		sum->tasks_run += ws->tasks_run;
		sum->leader_changes += ws->leader_changes;
	}
	spin_unlock_irqrestore(&q->lock, flags);
}
EXPORT_SYMBOL_GPL(dwq_queue_get_stats);

/**
 * dwq_queue_get_worker_stats() - the counters of one worker
 * @q: the queue
 * @id: the worker's id, 0 .. workers - 1 (it may have been stopped)
 * @st: filled in
 *
 * Context: any context.
 * Return: 0, or -EINVAL if @q never had a worker @id.
 */
int dwq_queue_get_worker_stats(struct dwq_queue *q, unsigned int id,
			   struct dwq_worker_stats *st)
{
	unsigned long flags;

	if (id >= q->max_workers)
		return -EINVAL;
	spin_lock_irqsave(&q->lock, flags);
	*st = q->workers[id].stats;
	spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(dwq_queue_get_worker_stats);
