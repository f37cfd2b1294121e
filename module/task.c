// SPDX-License-Identifier: GPL-2.0
/*
 * dwq tasks: schedule, cancel, reschedule, query, and what a worker does
 * with a task once its callback has returned.
 *
 * A task is bound to a queue (->queue set, under that queue's lock) from
 * the moment it is scheduled until it is neither queued nor running any
 * more. Functions that get only a task find the lock through ->queue and
 * check, once they hold it, that the task did not move meanwhile. While
 * bound, the queue holds a reference to the task.
 *
 * States and who moves a task between them, all under the queue lock:
 *
 *   IDLE/CANCELLED --schedule--> QUEUED --take--> RUNNING
 *   QUEUED --cancel--> CANCELLED           (callback never runs)
 *   RUNNING --callback returns--> QUEUED   (periodic, not cancelled)
 *                              \-> IDLE    (a one-shot run)
 *                              \-> CANCELLED (a periodic run, cancelled
 *                                             while running, or queue
 *                                             destroyed)
 *
 * Whether a run is one-shot is fixed when it is taken
 * (dwq_task_run_oneshot()), not by a reschedule that changes the mode while
 * it runs.
 *
 * A periodic task is never in the heap while its callback runs, so it never
 * runs concurrently with itself.
 */
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/kref.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "dwq_internal.h"
#include "trace.h"

/**
 * dwq_task_init() - initialise a task before its first use
 * @task: the task, normally embedded in the caller's object
 * @func: the callback; runs on a worker in process context and may sleep
 * @release: called with @task when its last reference is dropped (by
 *	dwq_task_put(), or by dwq when it lets go of the task: from a worker,
 *	from dwq_cancel*() or from dwq_queue_destroy()), typically to free the
 *	object. May be NULL only if the object outlives every queue the task
 *	is scheduled on: the queue may drop its reference just after the
 *	callback returned, even after dwq_cancel_sync() has returned.
 *
 * The caller holds the first reference.
 *
 * Context: any context.
 */
void dwq_task_init(struct dwq_task *task, void (*func)(struct dwq_task *task),
		   void (*release)(struct dwq_task *task))
{
	memset(task, 0, sizeof(*task));
	dwq_heap_node_init(&task->node);
	kref_init(&task->ref);
	task->state = DWQ_STATE_IDLE;
	task->func = func;
	task->release = release;
}
EXPORT_SYMBOL_GPL(dwq_task_init);

static void dwq_task_release(struct kref *ref)
{
	struct dwq_task *task = container_of(ref, struct dwq_task, ref);

	if (task->release)
		task->release(task);
}

/**
 * dwq_task_put() - drop a reference to a task
 * @task: the task
 *
 * Context: any context from which the task's release function may be
 * called, if this was the last reference.
 */
void dwq_task_put(struct dwq_task *task)
{
	kref_put(&task->ref, dwq_task_release);
}
EXPORT_SYMBOL_GPL(dwq_task_put);

/*
 * The queue @task is bound to, NULL if none: then the task is idle and only
 * its owner can change that. The caller locks the queue and must then
 * check dwq_task_bound(): the task may have been unbound (and perhaps bound
 * again) before the lock was taken.
 */
static struct dwq_queue *dwq_task_queue(struct dwq_task *task)
{
	/* Pairs with the release in __dwq_task_unbind(): the fields are final. */
	return smp_load_acquire(&task->queue);
}

static bool dwq_task_bound(struct dwq_queue *q, struct dwq_task *task)
{
	lockdep_assert_held(&q->lock);
	return likely(task->queue == q);
}

/**
 * __dwq_task_unbind() - let go of a task that is neither queued nor running
 * @q: its queue
 * @task: the task
 * @state: %DWQ_STATE_IDLE or %DWQ_STATE_CANCELLED
 *
 * The caller then drops the queue's reference, after unlocking.
 *
 * Context: @q->lock held.
 */
void __dwq_task_unbind(struct dwq_queue *q, struct dwq_task *task,
		       unsigned int state)
{
	lockdep_assert_held(&q->lock);
	task->runner = NULL;
	WRITE_ONCE(task->state, state);
	/* Pairs with the acquire in dwq_task_queue(). */
	smp_store_release(&task->queue, NULL);
}

/* Check @s: only @flags may be set; @mode and @period_ns too if @timing. */
static int dwq_sched_check(const struct dwq_sched *s, unsigned int flags,
			   bool timing)
{
	if (s->flags & ~flags || s->time_ns > KTIME_MAX)
		return -EINVAL;
	if (!timing)
		return 0;
	switch (s->mode) {
	case DWQ_MODE_ONESHOT:
		return s->period_ns ? -EINVAL : 0;
	case DWQ_MODE_FIXED_RATE:
	case DWQ_MODE_FIXED_DELAY:
		return !s->period_ns || s->period_ns > KTIME_MAX ? -EINVAL : 0;
	}
	return -EINVAL;
}

/*
 * The heap key of @s on @q at @now (on @q's clock), and the offset of the
 * task's clock from @q's: see "Clocks" in dwq.h.
 *
 * Return: 0, or -EINVAL if the deadline overflows KTIME_MAX.
 */
static int dwq_sched_key(const struct dwq_queue *q, const struct dwq_sched *s,
			 u64 period, u64 now, u64 *key, s64 *offset)
{
	bool boot = s->flags & DWQ_SCHED_BOOTTIME;
	bool qboot = q->clockid == CLOCK_BOOTTIME;
	s64 off = 0, k;

	if (boot != qboot) {
		/* CLOCK_BOOTTIME = CLOCK_MONOTONIC + time spent suspended */
		off = ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
		if (!boot)
			off = -off;
	}
	if (s->flags & DWQ_SCHED_ABS) {
		if (check_sub_overflow((s64)s->time_ns, off, &k))
			return -EINVAL;
		*key = k > 0 ? k : 0;
	} else {
		if (s->time_ns > KTIME_MAX - now)
			return -EINVAL;
		*key = now + s->time_ns;
	}
	/* Leave room for the next period, so that re-queueing cannot wrap. */
	if (period > KTIME_MAX - *key)
		return -EINVAL;
	*offset = off;
	return 0;
}

/*
 * Bind @tasks to @q and put their keys in their nodes (not in any heap
 * yet), or bind none: -EBUSY if one is bound already, being cancelled, or
 * in the batch twice; -EINVAL if its deadline overflows.
 */
static int __dwq_bind_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
			    const struct dwq_sched *s, unsigned int n, u64 now)
{
	struct dwq_task *task;
	unsigned int i;
	int err;

	lockdep_assert_held(&q->lock);
	for (i = 0; i < n; i++) {
		task = tasks[i];
		err = -EBUSY;
		if (READ_ONCE(task->queue) || READ_ONCE(task->canceling))
			goto unbind;
		err = dwq_sched_key(q, &s[i], s[i].period_ns, now,
				    &task->node.deadline, &task->clock_offset);
		if (err)
			goto unbind;
		WRITE_ONCE(task->queue, q);
	}
	return 0;

unbind:
	while (i--)
		WRITE_ONCE(tasks[i]->queue, NULL);
	return err;
}

static void __dwq_unbind_batch(struct dwq_task *const *tasks, unsigned int n)
{
	while (n--)
		WRITE_ONCE(tasks[n]->queue, NULL);
}

/**
 * dwq_schedule_batch() - schedule several tasks at once, all or nothing
 * @q: the queue
 * @tasks: the tasks, idle or cancelled (not queued, not running)
 * @s: one &struct dwq_sched per task (%DWQ_SCHED_ABS and %DWQ_SCHED_BOOTTIME only)
 * @n: number of tasks, at most %DWQ_BATCH_MAX
 *
 * Either every task is queued or none is: the heap grows once for all of
 * them, and a bad entry fails the whole batch. Relative delays count from
 * one instant for the whole batch. The queue takes a reference to each
 * task until it has run (one-shot) or been cancelled.
 *
 * Context: process context; may sleep to grow the heap.
 * Return: 0; -EINVAL for a bad mode, flag, period or time (including a
 * deadline that overflows) or @n too big; -EBUSY if a task is queued,
 * running, being cancelled or in the batch twice; -ESHUTDOWN if @q is being
 * destroyed; -ENOMEM if the heap could not grow; -ENOSPC if it cannot get
 * that big.
 */
int dwq_schedule_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
		       const struct dwq_sched *s, unsigned int n)
{
	struct dwq_heap_slot *spare = NULL, *old = NULL;
	unsigned int spare_cap = 0, want, i;
	struct dwq_heap_node *head;
	struct dwq_task *task;
	int err;

	might_sleep();
	if (n > DWQ_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		err = dwq_sched_check(&s[i], DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, true);
		if (err)
			return err;
	}
	if (!n)
		return 0;

	spin_lock_irq(&q->lock);
	for (;;) {
		err = -ESHUTDOWN;
		if (q->stopping)
			goto unlock;
		/* First the checks that fail the batch, before any growing. */
		err = __dwq_bind_batch(q, tasks, s, n, dwq_queue_now(q));
		if (err)
			goto unlock;
		/* Keep the slots reserved for running periodic tasks. */
		if ((u64)q->heap.nr + n + q->reserved <= q->heap.cap)
			break;
		want = dwq_heap_want_capacity(&q->heap, n + q->reserved);
		if (spare && spare_cap == want) {
			/* Allocated last time round, and still the right size. */
			old = dwq_heap_adopt(&q->heap, spare, want);
			spare = NULL;
			break;
		}
		__dwq_unbind_batch(tasks, n);
		err = -ENOSPC;
		if (!want)
			goto unlock;

		/*
		 * Grow: allocate outside the lock, then retake it and start
		 * over, as anything may have changed meanwhile. The array holds
		 * every caller's tasks, so it is not charged to the memory
		 * cgroup of whichever caller happens to make it grow (the
		 * tasks themselves are charged to their owners).
		 */
		spin_unlock_irq(&q->lock);
		kvfree(spare);
		spare = kvmalloc_array(want, sizeof(*spare), GFP_KERNEL);
		spare_cap = want;
		if (!spare)
			return -ENOMEM;
		spin_lock_irq(&q->lock);
	}

	head = dwq_heap_peek(&q->heap);
	for (i = 0; i < n; i++) {
		task = tasks[i];
		/* Cannot fail: there is room, and this lock was held since. */
		WARN_ON_ONCE(dwq_heap_insert(&q->heap, &task->node,
					     task->node.deadline));
		task->mode = s[i].mode;
		task->period_ns = s[i].period_ns;
		task->boottime = s[i].flags & DWQ_SCHED_BOOTTIME;
		task->stop = false;
		task->resched = false;
		task->run_overruns = 0;
		WRITE_ONCE(task->state, DWQ_STATE_QUEUED);
		kref_get(&task->ref);
		trace_dwq_schedule(q, task);
	}
	if (dwq_heap_peek(&q->heap) != head)
		__dwq_queue_kick(q);
	err = 0;
unlock:
	spin_unlock_irq(&q->lock);
	kvfree(spare);
	kvfree(old);
	return err;
}
EXPORT_SYMBOL_GPL(dwq_schedule_batch);

/**
 * dwq_schedule() - schedule a task
 * @q: the queue
 * @task: the task, idle or cancelled (not queued, not running)
 * @s: when and how often: a delay or a deadline (%DWQ_SCHED_ABS) on
 *	CLOCK_MONOTONIC or CLOCK_BOOTTIME (%DWQ_SCHED_BOOTTIME), and a mode
 *
 * The queue takes a reference to @task until it has run (one-shot) or been
 * cancelled. Tasks with equal deadlines run in the order they were
 * scheduled. A callback cannot schedule its own task again (it is running:
 * -EBUSY); use a periodic mode, or dwq_reschedule() on a periodic task.
 *
 * Context: process context; may sleep to grow the heap.
 * Return: 0; -EINVAL for a bad mode or flag, a period of 0 for a periodic
 * task or not 0 for a one-shot, a time over KTIME_MAX or a deadline that
 * overflows; -EBUSY if @task is queued, running or being cancelled;
 * -ESHUTDOWN if @q is being destroyed; -ENOMEM if the heap could not grow;
 * -ENOSPC if it cannot get that big.
 */
int dwq_schedule(struct dwq_queue *q, struct dwq_task *task,
		 const struct dwq_sched *s)
{
	return dwq_schedule_batch(q, &task, s, 1);
}
EXPORT_SYMBOL_GPL(dwq_schedule);

/*
 * Cancel @task on @q, whose lock we hold: remove it if queued, or mark a
 * running periodic task not to be queued again. *@put is set when the
 * queue's reference must be dropped (after unlocking).
 */
static int __dwq_cancel(struct dwq_queue *q, struct dwq_task *task, bool *put)
{
	lockdep_assert_held(&q->lock);
	switch (task->state) {
	case DWQ_STATE_QUEUED:
		/*
		 * If it was the head, the leader now sleeps until a deadline
		 * that is too early; it wakes, finds the new head not due and
		 * leads again. Waking it now would cost the same one wakeup.
		 */
		dwq_heap_remove(&q->heap, &task->node);
		__dwq_task_unbind(q, task, DWQ_STATE_CANCELLED);
		__dwq_queue_maybe_shrink(q);
		*put = true;
		trace_dwq_cancel(q, task, DWQ_RESULT_REMOVED);
		return DWQ_RESULT_REMOVED;
	case DWQ_STATE_RUNNING:
		task->stop = true;
		task->resched = false;
		trace_dwq_cancel(q, task, DWQ_RESULT_RUNNING);
		return DWQ_RESULT_RUNNING;
	}
	WARN_ON_ONCE(1); /* bound, so queued or running */
	return DWQ_RESULT_IDLE;
}

/**
 * dwq_cancel() - cancel a task without waiting
 * @task: the task
 *
 * A queued task is removed from the heap at once, in O(log n), and its
 * callback will not run. A running callback cannot be stopped: a one-shot
 * run then completes normally, a periodic task is not queued again (also
 * one that dwq_reschedule() made one-shot during a periodic run).
 *
 * Context: any context; does not sleep. If this drops the last reference,
 * @task's release function runs here.
 * Return: %DWQ_RESULT_REMOVED, %DWQ_RESULT_RUNNING or %DWQ_RESULT_IDLE
 * (neither queued nor running), see the DWQ_RESULT_* values.
 */
int dwq_cancel(struct dwq_task *task)
{
	struct dwq_queue *q;
	unsigned long flags;
	bool put = false;
	int ret;

retry:
	q = dwq_task_queue(task);
	if (!q)
		return DWQ_RESULT_IDLE;
	spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	ret = __dwq_cancel(q, task, &put);
	spin_unlock_irqrestore(&q->lock, flags);
	if (put)
		dwq_task_put(task);
	return ret;
}
EXPORT_SYMBOL_GPL(dwq_cancel);

/**
 * dwq_cancel_batch() - cancel several tasks, taking a queue's lock once
 * @q: the queue the tasks are normally scheduled on
 * @tasks: the tasks; NULL entries are skipped
 * @n: number of entries in @tasks
 * @ret: out: for each task what dwq_cancel() would return (%DWQ_RESULT_IDLE
 *	for a NULL entry)
 *
 * Each task is cancelled as by dwq_cancel(). Those bound to @q are
 * cancelled under one hold of @q's lock, with interrupts off for the
 * whole batch: keep @n small (tens). The others (idle, or on another
 * queue) go through dwq_cancel() one by one.
 *
 * Context: any context; does not sleep. If this drops a task's last
 * reference, its release function runs here.
 */
void dwq_cancel_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
		      unsigned int n, int *ret)
{
	unsigned long flags;
	unsigned int i;
	bool put;

	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < n; i++) {
		/* -1: not bound to @q, left for dwq_cancel() below. */
		ret[i] = tasks[i] ? -1 : DWQ_RESULT_IDLE;
		if (!tasks[i] || !dwq_task_bound(q, tasks[i]))
			continue;
		put = false;
		ret[i] = __dwq_cancel(q, tasks[i], &put);
		/* __dwq_cancel() drops the queue's reference iff REMOVED. */
		WARN_ON_ONCE(put != (ret[i] == DWQ_RESULT_REMOVED));
	}
	spin_unlock_irqrestore(&q->lock, flags);
	for (i = 0; i < n; i++) {
		if (ret[i] == DWQ_RESULT_REMOVED)
			dwq_task_put(tasks[i]);
		else if (ret[i] < 0)
			ret[i] = dwq_cancel(tasks[i]);
	}
}
EXPORT_SYMBOL_GPL(dwq_cancel_batch);

/**
 * dwq_cancel_sync() - cancel a task and wait for its callback to return
 * @task: the task
 *
 * As dwq_cancel(), then, if the callback was running, waits until it has
 * returned. Meanwhile scheduling @task fails with -EBUSY. On return @task
 * is neither queued nor running (unless someone scheduled it again since):
 * the caller may drop its reference, and the task is released when the
 * queue has dropped its own too. The queue must not be destroyed while
 * this waits.
 *
 * Context: process context; sleeps. If this drops the last reference,
 * @task's release function runs here.
 * Return: as dwq_cancel(); or -EDEADLK, having done nothing, when called
 * from @task's own callback, which would wait for itself.
 */
int dwq_cancel_sync(struct dwq_task *task)
{
	struct dwq_queue *q;
	unsigned long flags;
	bool put = false;
	int ret;

	might_sleep();
retry:
	q = dwq_task_queue(task);
	if (!q)
		return DWQ_RESULT_IDLE;
	spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	if (task->state == DWQ_STATE_RUNNING && task->runner->thread == current) {
		spin_unlock_irqrestore(&q->lock, flags);
		return -EDEADLK;
	}
	ret = __dwq_cancel(q, task, &put);
	if (ret == DWQ_RESULT_RUNNING) {
		/*
		 * Wait with the lock dropped. Meanwhile @canceling makes every
		 * schedule of @task fail, and dwq_task_finish() wakes @done_wq
		 * when it sees it. The worker's reference keeps @task alive
		 * until it has unbound it; ours keeps it alive after.
		 */
		WRITE_ONCE(task->canceling, task->canceling + 1);
		spin_unlock_irqrestore(&q->lock, flags);
		wait_event(q->done_wq,
			   READ_ONCE(task->state) != DWQ_STATE_RUNNING);
		spin_lock_irqsave(&q->lock, flags);
		WRITE_ONCE(task->canceling, task->canceling - 1);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (put)
		dwq_task_put(task);
	return ret;
}
EXPORT_SYMBOL_GPL(dwq_cancel_sync);

/**
 * dwq_reschedule() - move a task's next deadline, keeping its identity
 * @task: the task, queued or a running periodic one
 * @s: the new delay or deadline (%DWQ_SCHED_ABS, %DWQ_SCHED_BOOTTIME); with
 *	%DWQ_RESCHED_PERIOD also a new mode and period, otherwise @s->mode and
 *	@s->period_ns are ignored
 *
 * A queued task moves in the heap in O(log n) and goes after the tasks
 * already queued with the same deadline. For a periodic task whose callback
 * is running, this sets the deadline of its next run; a fixed-rate task
 * keeps its new phase from then on.
 *
 * Context: any context; does not sleep.
 * Return: 0; -EINVAL for bad flags, mode, period or time; -ENOENT if @task
 * is neither queued nor a running periodic task that will run again.
 */
int dwq_reschedule(struct dwq_task *task, const struct dwq_sched *s)
{
	struct dwq_heap_node *head;
	struct dwq_queue *q;
	unsigned long flags;
	u64 key, old, period;
	s64 offset;
	int err;

	err = dwq_sched_check(s, DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME | DWQ_RESCHED_PERIOD,
			      s->flags & DWQ_RESCHED_PERIOD);
	if (err)
		return err;

retry:
	q = dwq_task_queue(task);
	if (!q)
		return -ENOENT;
	spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	period = s->flags & DWQ_RESCHED_PERIOD ? s->period_ns : task->period_ns;
	err = dwq_sched_key(q, s, period, dwq_queue_now(q), &key, &offset);
	if (err)
		goto unlock;

	switch (task->state) {
	case DWQ_STATE_QUEUED:
		head = dwq_heap_peek(&q->heap);
		old = task->node.deadline;
		dwq_heap_update(&q->heap, &task->node, key);
		/*
		 * It became the head, or the head moved earlier: the leader
		 * sleeps too long. (A head that moved later wakes the leader
		 * early, once, which costs what waking it now would.)
		 */
		if (dwq_heap_peek(&q->heap) == &task->node &&
		    (head != &task->node || key < old))
			__dwq_queue_kick(q);
		task->run_overruns = 0;
		break;
	case DWQ_STATE_RUNNING:
		/* Only a task with a slot held back comes back to the heap. */
		if (task->stop || !task->reserved) {
			err = -ENOENT;
			goto unlock;
		}
		task->resched = true;
		task->resched_at = key;
		break;
	default:
		WARN_ON_ONCE(1); /* bound, so queued or running */
		err = -ENOENT;
		goto unlock;
	}
	task->clock_offset = offset;
	task->boottime = s->flags & DWQ_SCHED_BOOTTIME;
	if (s->flags & DWQ_RESCHED_PERIOD) {
		task->mode = s->mode;
		task->period_ns = s->period_ns;
	}
	if (task->state == DWQ_STATE_QUEUED)
		trace_dwq_reschedule(q, task);
unlock:
	spin_unlock_irqrestore(&q->lock, flags);
	return err;
}
EXPORT_SYMBOL_GPL(dwq_reschedule);

static void dwq_query_fill(struct dwq_task *task, struct dwq_task_info *info)
{
	info->state = READ_ONCE(task->state);
	info->mode = task->mode;
	info->flags = task->boottime ? DWQ_SCHED_BOOTTIME : 0;
	info->period_ns = task->period_ns;
	info->runs = task->runs;
	info->overruns = task->overruns;
	info->deadline_ns = task->run_deadline;
}

/**
 * dwq_query() - a snapshot of a task
 * @task: the task
 * @info: filled in
 *
 * Context: any context; does not sleep.
 */
void dwq_query(struct dwq_task *task, struct dwq_task_info *info)
{
	struct dwq_queue *q;
	unsigned long flags;
	u64 now;

	memset(info, 0, sizeof(*info));
retry:
	q = dwq_task_queue(task);
	if (!q) {
		/* Unbound: idle, and only our caller may change that. */
		dwq_query_fill(task, info);
		return;
	}
	spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	dwq_query_fill(task, info);
	if (info->state == DWQ_STATE_QUEUED) {
		now = dwq_queue_now(q);
		info->deadline_ns = task->node.deadline + task->clock_offset;
		if (task->node.deadline > now)
			info->remaining_ns = task->node.deadline - now;
	}
	spin_unlock_irqrestore(&q->lock, flags);
}
EXPORT_SYMBOL_GPL(dwq_query);

/*
 * The next deadline of periodic @task, whose callback returned at @now, or
 * 0 if there is none (it would overflow). Counts coalesced periods.
 */
static u64 __dwq_task_next(struct dwq_task *task, u64 now)
{
	u64 period = task->period_ns, next, missed;

	task->run_overruns = 0;
	if (task->resched) {
		task->resched = false;
		return task->resched_at;
	}
	if (task->mode == DWQ_MODE_FIXED_DELAY)
		return now < KTIME_MAX - period ? now + period : 0;

	/* Fixed rate: the previous deadline plus one period... */
	next = task->node.deadline + period;
	if (next > KTIME_MAX)
		return 0;
	if (next < now) {
		/*
		 * ...unless the callback ran past it: then the first deadline
		 * of the series still in the future, and the ones skipped are
		 * counted, not replayed.
		 */
		missed = div64_u64(now - next, period) + 1;
		if (missed > div64_u64(KTIME_MAX - next, period))
			return 0;
		next += missed * period;
		task->run_overruns = missed;
		task->overruns += missed;
	}
	return next;
}

/**
 * dwq_task_finish() - a worker's callback for a task has returned
 * @w: the worker
 * @task: the task it ran
 *
 * Queues a periodic task again (in the slot reserved when it was taken),
 * unless it was cancelled or the queue is going away; otherwise unbinds it
 * and drops the queue's reference. Then, in the same lock hold, takes the
 * next task if one is due (__dwq_take_next()).
 *
 * Context: the worker's kthread.
 * Return: the next task to run, or NULL: back to dwq_take().
 */
struct dwq_task *dwq_task_finish(struct dwq_worker *w, struct dwq_task *task)
{
	struct dwq_queue *q = w->queue;
	struct dwq_task *next_task;
	struct dwq_heap_node *head;
	/* The mode of the run that ended, whatever a reschedule did since. */
	bool oneshot = dwq_task_run_oneshot(task);
	u64 now, next = 0;
	bool put = false;

	spin_lock_irq(&q->lock);
	/* Read under the lock: the next task's grace starts from it. */
	now = dwq_queue_now(q);
	w->state = DWQ_WORKER_IDLE;
	if (task->reserved) {
		task->reserved = false;
		q->reserved--;
		if (!task->stop && !q->stopping &&
		    (task->mode != DWQ_MODE_ONESHOT || task->resched))
			next = __dwq_task_next(task, now);
	}
	if (next) {
		head = dwq_heap_peek(&q->heap);
		WARN_ON_ONCE(dwq_heap_insert(&q->heap, &task->node, next));
		task->runner = NULL;
		WRITE_ONCE(task->state, DWQ_STATE_QUEUED);
		/*
		 * A new head: a leader sleeping until a later deadline is
		 * voided and woken. With no leader, wake nobody: we go back
		 * to take() right now and lead ourselves.
		 */
		if (dwq_heap_peek(&q->heap) != head && q->leader)
			__dwq_queue_kick(q);
	} else {
		/*
		 * A one-shot ran (even if cancel came too late); a periodic
		 * run ends its task, also one made one-shot during the run.
		 */
		__dwq_task_unbind(q, task,
				  oneshot ? DWQ_STATE_IDLE : DWQ_STATE_CANCELLED);
		put = true;
	}
	if (task->canceling)
		wake_up_all(&q->done_wq);
	next_task = __dwq_take_next(w, now);
	spin_unlock_irq(&q->lock);
	if (put)
		dwq_task_put(task);
	return next_task;
}
