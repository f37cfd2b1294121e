// SPDX-License-Identifier: GPL-2.0
/*
 * dwq workers: the kthread pool of a queue, created, run and stopped here.
 * Each worker's thread loops on dwq_take() and runs what it returns,
 * outside every lock, in process context; the callback may sleep (a quick
 * one runs with softirqs off, as the queue's timer runs it). Nothing
 * here takes the queue's lock: what needs it (taking a task, finishing
 * one, the hand-off timer, a worker's state) is in queue.c.
 */
#include <linux/bug.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "dwq_internal.h"
#include "trace.h"

/* Arm the hand-off timer if the last take asked for it. */
static void dwq_worker_arm_handoff(struct dwq_worker *w)
{
	if (w->handoff_at)
		hrtimer_start_range_ns(&w->handoff, ns_to_ktime(w->handoff_at),
				       DWQ_SLACK_NS, HRTIMER_MODE_ABS_HARD);
}

/*
 * Run @task, and the tasks that come due behind it, one after the other
 * (a run, see __dwq_take_next()). The hand-off timer is armed when a take
 * asks for it, at most once per run, and cancelled when the run ends.
 */
static void dwq_worker_run(struct dwq_worker *w, struct dwq_task *task)
{
#ifdef CONFIG_LOCKDEP
	struct lockdep_map task_map;
#endif
	const struct dwq_task_ops *ops;
	bool atomic, quick;

	dwq_worker_arm_handoff(w);
	for (;;) {
		/*
		 * The task's heap key stays as it was while it runs: only
		 * dwq_task_finish() queues it again.
		 */
		if (trace_dwq_fire_enabled()) {
			u64 now = dwq_queue_now(w->queue);

			trace_dwq_fire(w->queue, task, w->id,
				       now > task->node.deadline ?
					       now - task->node.deadline :
					       0);
		}

		/*
		 * As workqueue's process_one_work(): the queue's and the
		 * task's lock classes are "held" while the callback runs, so
		 * that a dwq_queue_destroy() or dwq_cancel_sync() called under
		 * a lock the callback takes is reported. @task may be freed
		 * once its callback returns: release a copy of its map.
		 */
#ifdef CONFIG_LOCKDEP
		lockdep_copy_map(&task_map, &task->lockdep_map);
#endif
		/* Quick: as in the queue's timer, see dwq_task_set_quick(). */
		quick = w->run.quick;
		if (quick)
			dwq_quick_enter(w->queue);
		lock_map_acquire(&w->queue->lockdep_map);
		dwq_task_map_acquire(&task_map,
				     dwq_task_subclass(w->queue, quick));
		/* Static and const: still there once @task is freed. */
		ops = task->ops;
		ops->func(task);
		lock_map_release(&task_map);
		lock_map_release(&w->queue->lockdep_map);
		if (quick)
			dwq_quick_leave(w->queue);

		atomic = preempt_count() || irqs_disabled() ||
			 lockdep_depth(current);
		WARN_ONCE(atomic,
			  "dwq: callback %ps left the worker atomic or holding a lock\n",
			  ops->func);
		task = dwq_task_finish(w, task);
		if (!task)
			break;
		/* Armed first: a run preempted below is covered already. */
		dwq_worker_arm_handoff(w);
		/* A long run of short callbacks must still let others run. */
		cond_resched();
	}
	hrtimer_cancel(&w->handoff);
}

static int dwq_worker_fn(void *arg)
{
	struct dwq_worker *w = arg;
	struct dwq_task *task;

	while ((task = dwq_take(w)))
		dwq_worker_run(w, task);
	/* Armed ahead as the leader, perhaps (see dwq_take()). */
	hrtimer_cancel(&w->handoff);

	/* The queue is being destroyed: wait for our kthread_stop(). */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/**
 * dwq_workers_start() - create and start the threads of a new queue
 * @q: the queue, otherwise fully initialised, not yet seen by anyone
 * @n: threads to start
 *
 * Context: process context; sleeps.
 * Return: 0, -ENOMEM, or what kthread_create() returned; on error no thread
 * is left.
 */
int dwq_workers_start(struct dwq_queue *q, unsigned int n)
{
	struct task_struct *t;
	struct dwq_worker *w;
	unsigned int i;
	int err;

	q->workers = kcalloc(n, sizeof(*q->workers), GFP_KERNEL);
	if (!q->workers)
		return -ENOMEM;
	q->max_workers = n;

	for (i = 0; i < n; i++) {
		w = &q->workers[i];
		w->queue = q;
		w->id = i;
		INIT_LIST_HEAD(&w->follow);
		hrtimer_setup(&w->handoff, dwq_worker_handoff, q->clockid,
			      HRTIMER_MODE_ABS_HARD);
		if (!strcmp(q->name, "dwq"))
			t = kthread_create(dwq_worker_fn, w, "dwq/%u", i);
		else
			t = kthread_create(dwq_worker_fn, w, "dwq-%s/%u",
					   q->name, i);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			goto err_stop;
		}
		/* Nobody sees the queue yet: no lock needed to publish them. */
		w->thread = t;
	}
	for (i = 0; i < n; i++)
		wake_up_process(q->workers[i].thread);
	return 0;

err_stop:
	/* Never woken: they exit without running dwq_worker_fn(). */
	while (i--)
		kthread_stop(q->workers[i].thread);
	kfree(q->workers);
	q->workers = NULL;
	q->max_workers = 0;
	return err;
}

/**
 * dwq_queue_stop_worker() - stop one worker of a queue
 * @q: the queue
 * @id: the worker's id
 *
 * The worker finishes its callback if it runs one, and leaves take(); a
 * leader that stops hands leadership to a follower on its way out. A
 * worker that finds due tasks runs them before it looks at the request
 * to stop: in a stream of due tasks this waits until the stream pauses
 * (dwq_queue_destroy() sets @q->stopping first, which ends it).
 *
 * Context: process context; sleeps. Not from one of @q's callbacks. The
 *	caller serialises calls for one queue (dwq_workers_stop() and KUnit
 *	do): two stopping the same worker would both kthread_stop() it.
 * Return: 0; -EINVAL for a bad @id; -ENOENT if it was stopped already.
 */
int dwq_queue_stop_worker(struct dwq_queue *q, unsigned int id)
{
	struct task_struct *t;

	if (id >= q->max_workers)
		return -EINVAL;
	t = dwq_worker_thread(&q->workers[id]);
	if (!t)
		return -ENOENT;
	kthread_stop(t);
	dwq_worker_stopped(&q->workers[id]);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_queue_stop_worker);

/**
 * dwq_workers_stop() - stop every worker of a queue being destroyed
 * @q: the queue, with @q->stopping set and everyone woken
 *
 * Returns when every worker has exited, so when no callback runs any more.
 *
 * Context: process context; sleeps.
 */
void dwq_workers_stop(struct dwq_queue *q)
{
	unsigned int i;

	for (i = 0; i < q->max_workers; i++)
		dwq_queue_stop_worker(q, i);
}
