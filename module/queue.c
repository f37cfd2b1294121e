// SPDX-License-Identifier: GPL-2.0
/*
 * dwq queue: everything that runs under a queue's lock. One spinlock, one
 * indexed min-heap of tasks, the leader/follower take() of Java's
 * DelayedWorkQueue, and every operation on a task: schedule, cancel,
 * reschedule, query, and what a worker does once a callback returned.
 *
 * Helpers named __dwq_*() expect @q->lock held (lockdep_assert_held()) and
 * are static here, beside the lock, as kernel/kthread.c keeps its own.
 * Other files call only the entry points without the prefix: worker.c's
 * kthreads dwq_take() and dwq_task_finish(), debugfs.c the snapshots.
 *
 * Tasks
 * -----
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
 *
 * take()
 * ------
 *
 * dwq_take() has the four branches of DelayedWorkQueue.take():
 *
 *   heap empty          -> untimed exclusive wait on @followers (a follower)
 *   head due            -> pop it and return it
 *   a leader exists     -> untimed exclusive wait on @followers (a follower)
 *   otherwise           -> become the leader and sleep until the head's
 *                          deadline, on an hrtimer with the head's slack
 *
 * so only one worker ever sleeps with a timeout, and a due task wakes one
 * thread, not all of them. Nothing is held while asleep: not the lock, not
 * the head (it may be cancelled or rescheduled meanwhile), so every worker
 * must be ready to gain or lose leadership whenever it sleeps.
 *
 * Who wakes whom:
 *
 * - A schedule that makes a task the new head moves the sleeping leader's
 *   timer in place (hrtimer_start() on it, __dwq_queue_kick()): no thread
 *   wakes, and there is still one timed waiter. Only a new head that is due
 *   already (and not quick) wakes the leader, with wake_up_process(), since
 *   it sleeps on its hrtimer, not on @followers; without a leader the first
 *   follower is woken. The JDK signals @available instead, which may wake
 *   a follower and leave the old leader to time out for nothing.
 *
 * - A leader whose timer finds nothing queued (its task was cancelled, or
 *   the timer ran the quick ones) is not woken either: it sleeps on as the
 *   leader with the timer unarmed, and the next schedule arms it. A timeout
 *   armed and cancelled, or a lone quick timer, wakes no thread at all.
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
 *   the queue's grace after the head is due (or after now, if it is
 *   due already); if that fires while the callback still runs and nobody
 *   leads, it wakes one follower. A leader arms its own as it begins to
 *   sleep, for its head's grace (__dwq_handoff_ahead()): when it takes
 *   that head, the timer covers the run, and nothing is armed between the
 *   deadline and the callback. It also takes the head out of the heap
 *   into the front slot then (__dwq_front_promote()), so that taking it
 *   at its deadline is O(1). A callback that returns within the grace
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
 * - The leader has two timers on a queue without %DWQ_QUEUE_HARDIRQ, and
 *   sleeps on one at a time (__dwq_leader_arm()): for a head that is not
 *   quick a hard hrtimer (@wake_timer), which wakes it from the timer
 *   interrupt, as an hrtimer sleeper is woken, with no softirq between;
 *   for a quick head the soft one (@timer), which runs it.
 *
 * - The leader's timer wakes nobody for a quick task (dwq_task_set_quick()):
 *   it runs the due quick tasks at the head itself, in softirq context (a
 *   soft hrtimer) or, on a %DWQ_QUEUE_HARDIRQ queue, in hard irq context
 *   (a hard one), at most DWQ_TIMER_RUN_MAX per expiry, re-queues the
 *   periodic ones and moves on to the next head, the leader asleep all
 *   along (dwq_queue_timer()). Such a task is RUNNING in the timer's run
 *   record (&dwq_queue.timer_run), and out of the heap, so no worker
 *   takes it meanwhile. A quick task due at once when scheduled moves the
 *   timer to now instead of waking the leader. Only a due task that is
 *   not quick or a burst past the bound wakes the leader, which runs the
 *   rest as a worker (with softirqs off for a quick one, or interrupts
 *   off on a %DWQ_QUEUE_HARDIRQ queue).
 *
 * Capacity: the heap array never grows or shrinks under the lock, and
 * nothing that schedules allocates: a schedule that finds no room fails
 * with -ENOSPC. Room is made ahead, by dwq_queue_reserve() (which may sleep)
 * and by @resize_work in process context, which grows the heap when less
 * than a quarter of it is free and shrinks it when three quarters are
 * unused. The room reserved is made to measure, with no quarter free: the
 * queue grows ahead only for tasks beyond it, or once a schedule found
 * the heap full.
 *
 * Lifetime: the queue's reference to a task is dropped under the lock
 * (unless it is the last one), in the same hold that unbinds the task, so
 * that a dwq_cancel_sync() that sees the task unbound may free it.
 */
#include <linux/bottom_half.h>
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/kref.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/overflow.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/suspend.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#endif

#include "compat.h"
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

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * KUnit: time spent in suspend on top of the kernel's, that
 * dwq_clock_offset() counts, so that a test can make the time suspended
 * longer than the time the system has run (written by the test, between
 * the calls it makes).
 */
static s64 dwq_kunit_suspended;

void dwq_kunit_set_suspended(s64 ns)
{
	WRITE_ONCE(dwq_kunit_suspended, ns);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_kunit_set_suspended);
#endif

/*
 * A clock (CLOCK_BOOTTIME if @boot) minus @q's clock now, in ns: 0 for
 * @q's own, else the time spent in suspend so far, with its sign.
 */
static __always_inline s64 dwq_clock_offset(const struct dwq_queue *q,
					    bool boot)
{
	bool qboot = q->clockid == CLOCK_BOOTTIME;
	s64 off;

	if (boot == qboot)
		return 0;
	/* CLOCK_BOOTTIME = CLOCK_MONOTONIC + time spent suspended */
	off = ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
#if IS_ENABLED(CONFIG_KUNIT)
	off += READ_ONCE(dwq_kunit_suspended);
#endif
	return boot ? off : -off;
}

/**
 * dwq_task_init_key() - dwq_task_init() with its lock class
 * @task: the task
 * @ops: its callback and release function; must outlive the task
 * @key: the lockdep class of @task's callback, static at the call site
 * @name: the class's name
 *
 * Called through dwq_task_init(), which gives every call site its @key.
 *
 * Context: any context.
 */
void dwq_task_init_key(struct dwq_task *task, const struct dwq_task_ops *ops,
		       struct lock_class_key *key, const char *name)
{
	/* The layout dwq.h promises (see &struct dwq_task). */
	BUILD_BUG_ON(!IS_ENABLED(CONFIG_LOCKDEP) &&
		     sizeof(struct dwq_task) > 64);

	memset(task, 0, sizeof(*task));
	dwq_heap_node_init(&task->node);
	kref_init(&task->ref);
	task->state = DWQ_STATE_IDLE;
	task->ops = ops;
	lockdep_init_map(&task->lockdep_map, name, key, 0);
}
EXPORT_SYMBOL_GPL(dwq_task_init_key);

static void dwq_task_release(struct kref *ref)
{
	struct dwq_task *task = container_of(ref, struct dwq_task, ref);

	/*
	 * The count can reach zero here while __dwq_task_unbind(), on another
	 * CPU, has dropped the queue's reference but not yet cleared
	 * @task->queue: its last touch of @task, a few instructions later
	 * under the queue's raw spinlock, with interrupts off. Wait for it, so
	 * that what the release function frees is no longer used.
	 */
	while (smp_load_acquire(&task->queue))
		cpu_relax();
	if (task->ops->release)
		task->ops->release(task);
}

/**
 * dwq_task_put() - drop a reference to a task
 * @task: the task
 *
 * If this was the last reference and the queue is letting go of @task on
 * another CPU at that moment, the release function runs once it has (a few
 * instructions later): it may free @task.
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

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * @unbind is called by __dwq_task_unbind() between dropping the queue's
 * reference and clearing @task->queue, under the queue's lock, when set:
 * KUnit makes that moment long enough to drop the last reference meanwhile
 * from another CPU.
 */
struct dwq_kunit_hooks dwq_kunit_hooks;
EXPORT_SYMBOL_IF_KUNIT(dwq_kunit_hooks);
#endif

/*
 * @claim is called by a schedule between its checks that @task is free and
 * its claim of it, under the queue's lock, when set: KUnit makes that
 * moment long enough for another queue's schedule of @task to come in.
 */
static void dwq_kunit_claiming(struct dwq_task *task)
{
#if IS_ENABLED(CONFIG_KUNIT)
	typeof(dwq_kunit_hooks.claim) hook;

	hook = READ_ONCE(dwq_kunit_hooks.claim);
	if (unlikely(hook))
		hook(task);
#endif
}

static void dwq_kunit_unbinding(struct dwq_task *task)
{
#if IS_ENABLED(CONFIG_KUNIT)
	typeof(dwq_kunit_hooks.unbind) hook;

	hook = READ_ONCE(dwq_kunit_hooks.unbind);
	if (unlikely(hook))
		hook(task);
#endif
}

/**
 * __dwq_task_unbind() - let go of a task that is neither queued nor running
 * @q: its queue
 * @task: the task
 * @state: %DWQ_STATE_IDLE or %DWQ_STATE_CANCELLED
 *
 * Drops the queue's reference here, under the lock, unless it is the last
 * one: then nobody else holds @task (nobody waits in dwq_cancel_sync(),
 * which holds a reference of its own while it waits), and the caller must
 * call dwq_task_put() after unlocking, so that the release function runs
 * outside the lock.
 * Either way, once the lock is dropped the queue no longer touches @task:
 * a dwq_cancel_sync() that sees it unbound may free it at once.
 *
 * Context: @q->lock held.
 * Return: true if the caller must drop the last reference after unlocking.
 */
static __always_inline bool __dwq_task_unbind(struct dwq_queue *q,
					      struct dwq_task *task,
					      unsigned int state)
{
	bool last;

	lockdep_assert_held(&q->lock);
	WRITE_ONCE(task->state, state);
	/*
	 * The queue's reference goes first: dwq_cancel_sync() takes a task
	 * it sees unbound, without our lock, as one the queue no longer
	 * holds, and its caller may free it at once.
	 */
	last = !refcount_dec_not_one(&task->ref.refcount);
	/*
	 * From here another holder may drop the last reference: its release
	 * waits until @task->queue is clear (see dwq_task_release()).
	 */
	dwq_kunit_unbinding(task);
	/* Pairs with the acquire in dwq_task_queue() and dwq_task_release(). */
	smp_store_release(&task->queue, NULL);
	return last;
}

/* Wake the first follower, if any; a hand-off counts it in @q->handoffs. */
static bool __dwq_wake_follower(struct dwq_queue *q, bool by_handoff)
{
	struct dwq_worker *w;

	lockdep_assert_held(&q->lock);
	w = list_first_entry_or_null(&q->followers, struct dwq_worker, follow);
	if (!w)
		return false;
	list_del_init(&w->follow);
	if (by_handoff) {
		w->by_handoff = true;
		q->handoffs++;
	}
	wake_up_process(w->thread);
	return true;
}

/*
 * The slack a task keeps from @s (in its node's spare 32 bits, see
 * &struct dwq_task): at most U32_MAX ns, about 4.3 s. Less slack only
 * makes a task run sooner after its deadline, never before it.
 */
static __always_inline u32 dwq_sched_slack(const struct dwq_sched *s)
{
	return min_t(u64, s->slack_ns, U32_MAX);
}

/*
 * The latest @task may run: its deadline plus its slack. A task without
 * slack gets none: the timer is armed for its deadline exactly, as an
 * hrtimer_start() without a range is, where a floor of a few microseconds
 * would make every such task that much late.
 */
static u64 dwq_task_latest(const struct dwq_task *task)
{
	u64 slack = task->node.aux;

	return task->node.deadline < KTIME_MAX - slack ?
		       task->node.deadline + slack :
		       KTIME_MAX;
}

/*
 * The front slot. @q->front holds a task queued ahead of @q->heap: one
 * that was before every queued task when it was queued, and still is. A
 * timeout that becomes the new head and is cancelled before it is due (a
 * short timeout among long ones) then goes in and out in O(1), where the
 * heap would sift it from a leaf to the root and pop it down again. Every
 * task in the heap is after the front's key (deadline, seq), which comes
 * from the heap's own sequence. A task in the front slot has the node
 * index DWQ_FRONT_INDEX: queued, and never a slot of the heap, so that a
 * heap operation on it warns. It holds a heap slot back, counted in
 * @q->reserved as a running periodic task's is, so that it can always go
 * into the heap, and the capacity checks cost nothing more.
 */
#define DWQ_FRONT_INDEX INT_MAX

/* The earliest task queued on @q, or NULL. */
static __always_inline struct dwq_heap_node *
__dwq_peek(const struct dwq_queue *q)
{
	return q->front ?: dwq_heap_peek(&q->heap);
}

/* The tasks queued on @q: the heap's and the front slot's. */
static unsigned int __dwq_queued(const struct dwq_queue *q)
{
	return q->heap.nr + !!q->front;
}

/* @node, queued, leaves the front slot. */
static __always_inline void __dwq_front_leave(struct dwq_queue *q,
					      struct dwq_heap_node *node)
{
	q->front = NULL;
	q->reserved--;
	node->index = -1;
}

/* Move the front task, if any, into the heap with its key. */
static void __dwq_front_demote(struct dwq_queue *q)
{
	struct dwq_heap_node *node = q->front;

	lockdep_assert_held(&q->lock);
	if (!node)
		return;
	__dwq_front_leave(q, node);
	/* Cannot fail: the slot was held back. */
	WARN_ON_ONCE(dwq_heap_restore(&q->heap, node));
}

/* Key @node, in the front slot or about to be, with @key and a fresh seq. */
static __always_inline void __dwq_front_key(struct dwq_queue *q,
					    struct dwq_heap_node *node, u64 key)
{
	node->deadline = key;
	node->seq = q->heap.next_seq++;
	node->index = DWQ_FRONT_INDEX;
}

/*
 * Queue @node at @key, with a fresh seq: after every task queued with the
 * same deadline. A task before every other takes the front slot (the one
 * there, if any, goes into the heap); any other goes into the heap.
 * Cannot fail: the caller checked the room (__dwq_queue_room()), and
 * @node is idle (its task is not QUEUED).
 *
 * Return: whether @node is the new head (it took the front slot).
 */
static __always_inline bool __dwq_insert(struct dwq_queue *q,
					 struct dwq_heap_node *node, u64 key)
{
	struct dwq_heap *heap = &q->heap;

	lockdep_assert_held(&q->lock);
	if (q->front ? key < q->front->deadline :
		       !heap->nr || key < heap->slots[0].deadline) {
		__dwq_front_demote(q);
		__dwq_front_key(q, node, key);
		q->front = node;
		q->reserved++;
		return true;
	}
	dwq_heap_push(heap, node, key);
	return false;
}

/*
 * Move the heap's root into the front slot, if that is empty: for a leader
 * about to sleep until the head is due, so that taking it then is O(1)
 * and the pop from the heap is done now, not between the deadline and the
 * callback.
 */
static void __dwq_front_promote(struct dwq_queue *q)
{
	struct dwq_heap_node *node;

	lockdep_assert_held(&q->lock);
	if (q->front || !q->heap.nr)
		return;
	node = dwq_heap_pop(&q->heap);
	node->index = DWQ_FRONT_INDEX;
	q->front = node;
	q->reserved++;
}

/* Dequeue the earliest task of @q; NULL if none is queued. */
static __always_inline struct dwq_heap_node *__dwq_pop(struct dwq_queue *q)
{
	struct dwq_heap_node *node = q->front;

	lockdep_assert_held(&q->lock);
	if (!node)
		return dwq_heap_pop(&q->heap);
	__dwq_front_leave(q, node);
	return node;
}

/*
 * Move @node, queued on @q, to @key with a fresh seq, as if it had been
 * removed and queued again (dwq_heap_update()).
 */
static __always_inline void __dwq_update(struct dwq_queue *q,
					 struct dwq_heap_node *node, u64 key)
{
	struct dwq_heap *heap = &q->heap;

	lockdep_assert_held(&q->lock);
	if (node == q->front) {
		/* A fresh seq goes after a root with the same deadline. */
		if (!heap->nr || key < heap->slots[0].deadline) {
			__dwq_front_key(q, node, key);
			return;
		}
		__dwq_front_leave(q, node);
		WARN_ON_ONCE(dwq_heap_insert(heap, node, key));
		return;
	}
	if (q->front && key < q->front->deadline)
		__dwq_front_demote(q);
	dwq_heap_update(heap, node, key);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * dwq_queue_kunit_rekey() - move a queued task to another key
 * @q: the queue, its lock held
 * @task: a task queued on @q
 * @key: its new key
 *
 * For KUnit cases that make a key stale as a suspend would, wherever the
 * task is queued (the heap or the front slot).
 */
void dwq_queue_kunit_rekey(struct dwq_queue *q, struct dwq_task *task, u64 key)
{
	__dwq_update(q, &task->node, key);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_queue_kunit_rekey);
#endif

/*
 * A head further ahead than this gets its leader's timer armed early and
 * coarsely (@q->far_ns): see __dwq_leader_arm(). Timeouts of a second or
 * more are mostly cancelled before they are due.
 */
#define DWQ_FAR_NS NSEC_PER_SEC

/*
 * (Re)start the leader's timer to fire between @soft and @hard, for a head
 * that is @quick or not.
 *
 * A head that is not quick only needs its leader woken, and on a queue
 * whose @q->timer is soft that goes on @q->wake_timer, a hard hrtimer: the
 * wakeup comes from the timer interrupt itself, as an hrtimer sleeper's
 * does, not from the HRTIMER softirq after it. A quick head's callback
 * runs in @q->timer. The leader sleeps on one of the two, @q->armed:
 * moving to the other cancels it. If that one's callback is running just
 * then (it cannot be cancelled, and may even have been armed again from
 * another CPU meanwhile), it finds, under @q->lock, what the other was
 * armed for: it does nothing, or what the other would have done first
 * (dwq_queue_timer()).
 *
 * With @now, a head due more than @q->far_ns after @now is armed for
 * halfway there instead: such a head is mostly a timeout that will be
 * cancelled, and a new head that falls after the halfway point then
 * moves nothing (__dwq_queue_kick() leaves a timer alone that fires
 * before a task's deadline). So a run of ever earlier far heads moves the
 * timer once for each halving of the time left, not once for each head.
 * When the early timer fires with the head not due, it is armed again,
 * exactly (dwq_queue_timer(), with no @now): nobody is woken, and no head
 * runs later than it would have.
 */
static void __dwq_leader_arm(struct dwq_queue *q, u64 soft, u64 hard, u64 now,
			     bool quick)
{
	struct hrtimer *timer = quick || q->hardirq ? &q->timer :
						      &q->wake_timer;

	lockdep_assert_held(&q->lock);
	if (now && soft > now && soft - now > q->far_ns) {
		soft = now + (soft - now) / 2;
		hard = soft;
	}
	q->leader_deadline = soft;
	q->leader_hard = hard;
	if (unlikely(q->armed != timer)) {
		if (q->armed)
			hrtimer_try_to_cancel(q->armed);
		q->armed = timer;
	}
	hrtimer_start_range_ns(timer, ns_to_ktime(soft), hard - soft,
			       timer == &q->timer ? q->timer_mode :
						    HRTIMER_MODE_ABS_HARD);
}

/**
 * __dwq_queue_kick() - a task was queued or moved: see that someone wakes
 * @q: the queue
 * @task: the task, now queued
 * @new_head: @task became the head (or the head moved earlier)
 * @now: the time on @q's clock
 *
 * The leader sleeps on @q->timer, which fires between @q->leader_deadline
 * (the earliest deadline) and @q->leader_hard (the earliest deadline plus
 * slack seen). If @task needs it earlier, the timer is moved in place
 * (hrtimer_start() on the sleeping leader's timer), or, if @task is due
 * already, the leader is woken: no wakeup for a new head that is not due
 * yet, and still one timed waiter. This is the case of a timeout armed and
 * then disarmed before it is due, over and over. A leader whose timer
 * fired is awake already and re-reads the head. Without a leader, the first
 * follower is woken for a new head; it will lead or run.
 *
 * Context: @q->lock held.
 */
static __always_inline void __dwq_queue_kick(struct dwq_queue *q,
					     struct dwq_task *task,
					     bool new_head, u64 now)
{
	struct dwq_worker *leader = q->leader;
	u64 soft, hard;

	lockdep_assert_held(&q->lock);
	if (!leader) {
		if (new_head) {
			trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_HEAD);
			__dwq_wake_follower(q, false);
		}
		return;
	}
	if (q->leader_fired)
		return;
	/*
	 * The common case, a timeout due after the head's: the timer fires
	 * by @q->leader_hard (never before @q->leader_deadline), and @task
	 * neither needs it sooner nor can make it later.
	 */
	if (task->node.deadline >= q->leader_hard)
		return;
	soft = min(q->leader_deadline, task->node.deadline);
	hard = min(q->leader_hard, dwq_task_latest(task));
	if (soft == q->leader_deadline && hard == q->leader_hard)
		return;
	/*
	 * Due now and not quick: the leader runs it. A task that is not due
	 * only moves the timer, even while it waits out the head's slack
	 * (the head due, @soft past); a quick one the timer runs, with no
	 * worker hop.
	 */
	if (task->node.deadline <= now && !task->quick) {
		q->leader_fired = true;
		trace_dwq_wakeup(q, leader->id, DWQ_TRACE_WAKE_VOID);
		wake_up_process(leader->thread);
		return;
	}
	/* For tracers: a leader asleep with nothing queued leads anew. */
	if (q->leader_deadline == KTIME_MAX)
		trace_dwq_leader(q, leader->id, soft);
	/* The timer is for the earliest task: @task, or the one it was for. */
	__dwq_leader_arm(q, soft, hard, now,
			 soft < q->leader_deadline ? task->quick :
						     q->armed == &q->timer);
}

/*
 * The head left or moved later: the sleeping leader's timer may fire as
 * late as @q->leader_hard, which the head's own slack may have set. Left
 * early it only wakes the leader for nothing; left late it would run the
 * new head past its own deadline plus slack with no task due before it to
 * allow that. So if the new head's latest is before the timer's, the
 * timer is moved in place to the new head's range, with nobody woken, as
 * a new earlier head moves it (__dwq_queue_kick()). The tasks after the
 * new head are due no earlier, and those with less slack may run as late
 * as its latest: its range is theirs too. Without slack nothing moves:
 * the new head is due no earlier than the timer's latest.
 */
static void __dwq_queue_head_gone(struct dwq_queue *q)
{
	struct dwq_heap_node *head = __dwq_peek(q);
	struct dwq_task *task;
	u64 latest;

	lockdep_assert_held(&q->lock);
	if (!head || !q->leader || q->leader_fired)
		return;
	task = container_of(head, struct dwq_task, node);
	latest = dwq_task_latest(task);
	if (latest >= q->leader_hard)
		return;
	__dwq_leader_arm(q, head->deadline, latest, 0, task->quick);
	trace_dwq_leader(q, q->leader->id, head->deadline);
}

/*
 * The least capacity @q's reservations need: @q->room itself. Room
 * reserved is room to fill, so it needs no quarter free on top: the
 * queue grows ahead only for the tasks beyond it (see __dwq_queue_want()).
 */
static unsigned int __dwq_queue_floor(const struct dwq_queue *q)
{
	return min(q->room, DWQ_HEAP_MAX_CAPACITY);
}

/*
 * The capacity @q's heap should have now, or 0 for no change: grown by half
 * (see dwq_heap_want_capacity()) when less than a quarter of it is free
 * and more slots are used than were reserved, or a schedule found it full;
 * shrunk by half when three quarters are unused and the half is no less
 * than __dwq_queue_floor(), the bounds __dwq_queue_set_bounds() sets.
 * Never shrunk to the floor alone: a resize queued before a reservation
 * and run after it would take back the room the reservation made for
 * tasks beyond the floor (KUnit dwq_context_test_reserve_stale_shrink).
 * Slots held back for running tasks count as used.
 */
static unsigned int __dwq_queue_want(const struct dwq_queue *q)
{
	unsigned int cap = q->heap.cap, want;
	u64 used = (u64)q->heap.nr + q->reserved;

	lockdep_assert_held(&q->lock);
	if (q->stopping)
		return 0;
	if (used > q->room || q->starved) {
		want = dwq_heap_want_capacity(&q->heap,
					      q->reserved + max(cap / 4, 1U));
		if (want > cap)
			return want;
		if (want == 0)
			return 0; /* as big as it can get */
		/* Short of room: not the moment to give any back. */
		if (q->starved)
			return 0;
	}
	want = dwq_heap_want_capacity(&q->heap, q->reserved);
	return want < cap && want >= __dwq_queue_floor(q) ? want : 0;
}

/*
 * Set @q->resize_lo and @q->resize_hi from the heap's capacity (never
 * below DWQ_HEAP_MIN_CAPACITY) and @q->room, after either changed: with
 * u slots used, __dwq_queue_want() can only ask for a change when a
 * quarter of the capacity or less would be free after u and u is beyond
 * the room reserved (u > resize_hi), or when a quarter or less is used
 * (u < resize_lo) and half the heap is still no less than its floor
 * (__dwq_queue_floor()): a shrink halves it. A schedule that finds the
 * heap full asks by itself (__dwq_queue_full()). Also forgets that one
 * did: the capacity or the room just changed. Called with @q->lock held,
 * or before @q is shared.
 */
static void __dwq_queue_set_bounds(struct dwq_queue *q)
{
	unsigned int cap = q->heap.cap;

	q->starved = false;
	q->resize_hi = max(cap - max(cap / 4, 1U), min(q->room, cap));
	q->resize_lo = cap <= DWQ_HEAP_MIN_CAPACITY ||
				       cap / 2 < __dwq_queue_floor(q) ?
			       0 :
			       cap / 4 + 1;
}

/* __dwq_queue_maybe_resize() past its common case. */
static noinline void __dwq_queue_resize_check(struct dwq_queue *q)
{
	lockdep_assert_held(&q->lock);
	if (__dwq_queue_want(q))
		queue_work(dwq_unbound_wq, &q->resize_work);
}

/**
 * __dwq_queue_maybe_resize() - start a resize if the heap wants one
 * @q: the queue
 *
 * Called after tasks entered or left the heap. The answer has hysteresis,
 * so this does not fire for every insert or pop.
 *
 * Context: @q->lock held.
 */
static __always_inline void __dwq_queue_maybe_resize(struct dwq_queue *q)
{
	u64 used = (u64)q->heap.nr + q->reserved;

	lockdep_assert_held(&q->lock);
	/*
	 * The common case in two compares, inline on every schedule and
	 * cancel: neither too full nor too empty.
	 */
	if (likely(used <= q->resize_hi && used >= q->resize_lo))
		return;
	__dwq_queue_resize_check(q);
}

/*
 * A schedule found no room: the heap is as big as the room reserved, or
 * it outran the growth ahead. Grow it in the background if it is three
 * quarters full, as for tasks beyond the room reserved, so that a schedule
 * fails only until that is done. (A batch larger than the quarter free may
 * still not fit: room for it is made by dwq_queue_reserve().)
 */
static noinline void __dwq_queue_full(struct dwq_queue *q)
{
	unsigned int cap = q->heap.cap;

	lockdep_assert_held(&q->lock);
	/* A batch too big for an emptier heap is no reason to grow it. */
	if (dwq_heap_want_capacity(&q->heap, q->reserved + max(cap / 4, 1U)) <=
	    cap)
		return;
	q->starved = true;
	__dwq_queue_resize_check(q);
}

/*
 * Is there room in @q's heap for @n more tasks, without allocating? If
 * not, the heap is made to grow (__dwq_queue_full()) and the caller fails
 * with -ENOSPC.
 */
static __always_inline bool __dwq_queue_room(struct dwq_queue *q,
					     unsigned int n)
{
	lockdep_assert_held(&q->lock);
	if (likely((u64)q->heap.nr + q->reserved + n <= q->heap.cap))
		return true;
	__dwq_queue_full(q);
	return false;
}

/**
 * dwq_slots_alloc() - allocate a heap array
 * @n: slots
 *
 * KUnit replaces it (a static stub) to make an allocation fail.
 *
 * Context: process context; sleeps.
 * Return: the array, or NULL.
 */
VISIBLE_IF_KUNIT struct dwq_heap_slot *dwq_slots_alloc(unsigned int n)
{
	size_t bytes;

#if IS_ENABLED(CONFIG_KUNIT)
	KUNIT_STATIC_STUB_REDIRECT(dwq_slots_alloc, n);
#endif
	/* kvmalloc() warns above INT_MAX bytes: a plain -ENOMEM here. */
	if (n > INT_MAX / sizeof(struct dwq_heap_slot))
		return NULL;
	bytes = n * sizeof(struct dwq_heap_slot);
	/*
	 * The array holds every caller's tasks, so it is not charged to the
	 * memory cgroup of whichever caller happens to make it grow (the
	 * tasks themselves are charged to their owners).
	 *
	 * Past a page, kmalloc() rounds up to a power of two pages, and
	 * kvmalloc()'s vmalloc() maps 2 MB pages from 2 MB up, rounding up
	 * to a multiple of them: either can waste up to half of an array
	 * sized to measure (a reserved queue's, see dwq_queue_reserve()).
	 * vmalloc() takes whole 4 KB pages. kmalloc() only where it takes
	 * no more. Either way kvfree() frees it.
	 */
	if (bytes <= PAGE_SIZE ||
	    (bytes <= KMALLOC_MAX_SIZE &&
	     kmalloc_size_roundup(bytes) == PAGE_ALIGN(bytes)))
		return kvmalloc(bytes, GFP_KERNEL);
	return vmalloc(bytes);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_slots_alloc);

/*
 * Grow or shrink in process context: allocate the new array outside the
 * lock, retake it and adopt the array only if the heap still wants exactly
 * that size.
 */
static void dwq_queue_resize_work(struct work_struct *work)
{
	struct dwq_queue *q = container_of(work, struct dwq_queue, resize_work);
	struct dwq_heap_slot *slots, *old;
	unsigned int want;

	for (;;) {
		raw_spin_lock_irq(&q->lock);
		want = __dwq_queue_want(q);
		/*
		 * Nothing to do: if a schedule found the heap full, the tasks
		 * have gone since, and the heap may shrink again.
		 */
		if (!want)
			q->starved = false;
		raw_spin_unlock_irq(&q->lock);
		if (!want)
			return;

		slots = dwq_slots_alloc(want);
		if (!slots)
			return; /* Try again after the next insert or pop. */

		/* The lock was dropped: the heap may have changed. */
		raw_spin_lock_irq(&q->lock);
		if (__dwq_queue_want(q) == want) {
			old = dwq_heap_adopt(&q->heap, slots, want);
			__dwq_queue_set_bounds(q);
		} else {
			old = slots;
		}
		raw_spin_unlock_irq(&q->lock);
		kvfree(old);
	}
}

/**
 * dwq_queue_reserve() - make room ahead for tasks to be scheduled
 * @q: the queue
 * @n: tasks
 *
 * Scheduling never allocates: it uses the room the heap has, and the queue
 * grows it in the background (keeping a quarter of it free for the tasks
 * beyond its reservations), which a burst of schedules may outrun. This
 * makes room for @n more tasks than the queue holds now, and raises the
 * queue's floor by @n: its capacity never goes below the sum of the
 * reservations made on it, until dwq_queue_unreserve() takes them back. So
 * right after this returns, @n schedules succeed if nobody else schedules
 * meanwhile; and as long as the queue holds no more tasks (queued, or
 * running to be queued again) than its reservations add up to, no schedule
 * fails for lack of room, and none starts a resize, not even a shrink of the
 * emptier heap the first of them finds (KUnit
 * dwq_context_test_reserve_fill). When the queue holds no more than its
 * reservations, the heap is made to their measure, with no room free beyond
 * it (but grown by half at least, as it grows in the background, so that
 * many small reservations copy it O(log n) times); tasks beyond the
 * reservations get the quarter free on top. A schedule that finds the heap
 * full fails with -ENOSPC and makes it grow in the background. A module that
 * owns a queue reserves once, at load, for the most tasks it will have.
 *
 * Context: process context; sleeps.
 * Return: 0; -ENOMEM, with nothing changed, if the heap could not grow;
 * -ENOSPC if it cannot get that big; -ESHUTDOWN if @q is being destroyed.
 */
int dwq_queue_reserve(struct dwq_queue *q, unsigned int n)
{
	struct dwq_heap_slot *spare = NULL, *old = NULL;
	unsigned int spare_cap = 0, want, extra, room;
	u64 need;
	int err;

	might_sleep();
	raw_spin_lock_irq(&q->lock);
	for (;;) {
		err = -ESHUTDOWN;
		if (q->stopping)
			break;
		err = -ENOSPC;
		if (check_add_overflow(q->room, n, &room) ||
		    room > DWQ_HEAP_MAX_CAPACITY)
			break;
		need = max_t(u64, room, (u64)q->heap.nr + q->reserved + n);
		if (need > DWQ_HEAP_MAX_CAPACITY)
			break;
		if (need == room) {
			/*
			 * Every slot in use is reserved: the room to
			 * measure, so filling it starts no resize (see
			 * __dwq_queue_want()). But grown by half at least,
			 * as the heap grows, so that many small reservations
			 * (one for each /dev/dwq file) copy it O(log n)
			 * times, not n.
			 */
			want = q->heap.cap;
			if (need > want)
				want = max_t(u64, need,
					     min(want + want / 2,
						 DWQ_HEAP_MAX_CAPACITY));
		} else {
			/*
			 * Tasks beyond the room: with the quarter free the
			 * queue keeps for those, so that scheduling the tasks
			 * reserved for starts no resize (an array copied
			 * under this lock); the exact size if that much can
			 * never be.
			 */
			want = dwq_heap_want_capacity(&q->heap,
						      need - q->heap.nr);
			extra = dwq_heap_want_capacity(&q->heap,
						       need - q->heap.nr +
							       DIV_ROUND_UP(need,
									    3));
			want = max(want, extra);
		}
		if (want <= q->heap.cap) {
			q->room = room;
			__dwq_queue_set_bounds(q);
			err = 0;
			break;
		}
		if (spare && spare_cap == want) {
			/* Allocated last time round, and still the right size. */
			old = dwq_heap_adopt(&q->heap, spare, want);
			__dwq_queue_set_bounds(q);
			spare = NULL;
			continue;
		}
		raw_spin_unlock_irq(&q->lock);
		kvfree(spare);
		spare = dwq_slots_alloc(want);
		spare_cap = want;
		if (!spare)
			return -ENOMEM;
		raw_spin_lock_irq(&q->lock);
	}
	raw_spin_unlock_irq(&q->lock);
	kvfree(spare);
	kvfree(old);
	return err;
}
EXPORT_SYMBOL_GPL(dwq_queue_reserve);

/**
 * dwq_queue_unreserve() - take back a dwq_queue_reserve()
 * @q: the queue
 * @n: what was reserved
 *
 * Lowers the queue's floor by @n; the room it kept may be given back in the
 * background.
 *
 * Context: any context.
 */
void dwq_queue_unreserve(struct dwq_queue *q, unsigned int n)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&q->lock, flags);
	if (WARN_ON_ONCE(n > q->room))
		n = q->room;
	q->room -= n;
	__dwq_queue_set_bounds(q);
	__dwq_queue_maybe_resize(q);
	raw_spin_unlock_irqrestore(&q->lock, flags);
}
EXPORT_SYMBOL_GPL(dwq_queue_unreserve);

/*
 * __dwq_rekey_early() for @head, a plain task on a CLOCK_BOOTTIME queue:
 * keyed anew with the time suspended now and moved there, if that is
 * later (true: the heap changed, look at it again).
 */
static noinline bool __dwq_rekey_plain(struct dwq_queue *q,
				       struct dwq_heap_node *head)
{
	struct dwq_task *task = container_of(head, struct dwq_task, node);
	u64 deadline, key;
	s64 off;

	lockdep_assert_held(&q->lock);
	/* Its key is its deadline less this, as in dwq_sched_key(). */
	off = -ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
	/* No suspend since, or a deadline before boot (a key clamped at 0). */
	if (off >= task->clock_offset ||
	    (s64)head->deadline + task->clock_offset <= 0)
		return false;
	deadline = head->deadline + task->clock_offset;
	key = deadline < KTIME_MAX + off ? deadline - off : KTIME_MAX;
	task->clock_offset = off;
	if (key <= head->deadline)
		return false;
	__dwq_update(q, head, key);
	__dwq_queue_head_gone(q);
	return true;
}

/*
 * A plain task on a CLOCK_BOOTTIME queue is keyed on its CLOCK_MONOTONIC
 * deadline plus the time spent in suspend when it was keyed (see "Clocks"
 * in dwq.h). After a suspend that key comes before its deadline: due by
 * it, such a task would run early by the time suspended since. So a head
 * due by its key is looked at on its own clock (__dwq_rekey_plain()), and
 * true returned if that moved it. Every other task is due by its key: the
 * test is inline, on the way of every due head (the timer's and the
 * workers').
 */
static __always_inline bool __dwq_rekey_early(struct dwq_queue *q,
					      struct dwq_heap_node *head)
{
	struct dwq_task *task = container_of(head, struct dwq_task, node);

	lockdep_assert_held(&q->lock);
	if (likely(q->clockid != CLOCK_BOOTTIME || task->boottime))
		return false;
	return __dwq_rekey_plain(q, head);
}

/*
 * @key, a key of CLOCK_BOOTTIME @task made with @task->clock_offset, made
 * anew with @off, the time spent in suspend now; @task->clock_offset
 * becomes @off. A deadline before @off (a moment before the one the
 * queue's clock's 0 maps to now) is keyed at 0, with the offset that keeps
 * key plus offset its deadline (see dwq_sched_key()).
 */
static u64 dwq_rekey_at(struct dwq_task *task, u64 key, s64 off)
{
	u64 gone;

	if (off <= task->clock_offset)
		return key;
	/* Differences, not key plus offset: a key near KTIME_MAX fits. */
	gone = off - task->clock_offset;
	if (key > gone) {
		task->clock_offset = off;
		return key - gone;
	}
	task->clock_offset += key;
	return 0;
}

/*
 * A CLOCK_BOOTTIME task on a CLOCK_MONOTONIC queue is keyed on its deadline
 * less the time spent in suspend when it was keyed (see "Clocks" in dwq.h):
 * after a suspend its key is late by the time suspended since. @key, a key
 * of @task made with @task->clock_offset, made anew with the offset now;
 * @task->clock_offset becomes that offset. Any other task's key is @key.
 */
static u64 __dwq_rekey_late(struct dwq_queue *q, struct dwq_task *task, u64 key)
{
	lockdep_assert_held(&q->lock);
	if (likely(!task->boottime || q->clockid == CLOCK_BOOTTIME))
		return key;
	return dwq_rekey_at(task, key, dwq_clock_offset(q, true));
}

/*
 * @key, a key of @task made with @task->clock_offset, as it would be made
 * now, changing nothing. A task of the other clock than @q's is keyed on
 * its deadline less the offset between the clocks when it was keyed (see
 * dwq_sched_key()), and a suspend since moves that offset: a
 * CLOCK_BOOTTIME task's key is late by the time suspended since, a plain
 * task's on a CLOCK_BOOTTIME queue early (the heap's keys are made anew
 * by __dwq_rekey_late() and __dwq_rekey_early(), as they are used). A key
 * clamped at 0 (see dwq_sched_key()) stays 0.
 */
static u64 __dwq_key_now(struct dwq_queue *q, struct dwq_task *task, u64 key)
{
	bool qboot = q->clockid == CLOCK_BOOTTIME;
	s64 off;
	u64 d;

	lockdep_assert_held(&q->lock);
	if (likely(task->boottime == qboot))
		return key;
	off = dwq_clock_offset(q, task->boottime);
	if (off > task->clock_offset) {
		d = off - task->clock_offset;
		return key > d ? key - d : 0;
	}
	if (off < task->clock_offset && (s64)key + task->clock_offset > 0) {
		d = task->clock_offset - off;
		return key < KTIME_MAX - d ? key + d : KTIME_MAX;
	}
	return key;
}

/*
 * The record of @task's run, which is running: its worker's, or that of
 * @q's timer (see &struct dwq_run_rec).
 */
static struct dwq_run_rec *dwq_task_run(struct dwq_queue *q,
					const struct dwq_task *task)
{
	return task->run_worker == DWQ_RUN_TIMER ?
		       &q->timer_run :
		       &q->workers[task->run_worker].run;
}

/*
 * A fixed-rate @task of @q popped at @now, keyed for the deadline @key,
 * runs for the latest deadline of its series that has passed: the ones
 * before it, passed too, are coalesced into this run (a callback that ran
 * past its period, or a queue too busy to run it in time). Its node keeps
 * the key it runs for, from which the next is counted (__dwq_task_next()).
 * A key clamped at 0 (see dwq_sched_key()) lags its deadline by the offset
 * it was clamped from, which the periods are counted with too.
 * Return: the deadlines coalesced.
 */
static u64 dwq_task_catch_up(struct dwq_queue *q, struct dwq_task *task,
			     u64 now)
{
	u64 key = task->node.deadline, period = task->period_ns, missed;
	u64 lag = 0, ahead;

	if (unlikely(!key) && task->boottime && q->clockid != CLOCK_BOOTTIME)
		lag = dwq_clock_offset(q, true) - task->clock_offset;
	now += lag;
	if (now < key || now - key < period)
		return 0;
	missed = div64_u64(now - key, period);
	ahead = missed * period;
	if (likely(!lag)) {
		task->node.deadline = key + ahead;
	} else if (ahead > lag) {
		task->node.deadline = ahead - lag;
		task->clock_offset += lag;
	} else {
		task->clock_offset += ahead;
	}
	return missed;
}

/*
 * Pop the due head at @now to run it: on @w (@timer false), or in @q's
 * timer while @w leads (then it counts as @w's, see &dwq_event.worker).
 * A fixed-rate task counts the periods it is late by against the time
 * and its key as they are: the timer's @now may be only a moment known to
 * be past (see __dwq_queue_fired()), so the clock is read here for it,
 * and a CLOCK_BOOTTIME task's key made before a suspend, which a resume
 * has not made anew yet (dwq_queue_resumed()), is made anew here.
 */
static __always_inline struct dwq_task *
__dwq_pop_head(struct dwq_queue *q, struct dwq_worker *w, u64 now, bool timer)
{
	struct dwq_task *task;
	struct dwq_run_rec *run;
	unsigned int mode;
	bool boottime, quick;

	lockdep_assert_held(&q->lock);
	task = container_of(__dwq_pop(q), struct dwq_task, node);
	WRITE_ONCE(task->state, DWQ_STATE_RUNNING);
	BUILD_BUG_ON(DWQ_MAX_WORKERS > DWQ_RUN_TIMER);
	task->run_worker = timer ? DWQ_RUN_TIMER : w->id;
	/*
	 * The flags are read once: the record's byte stores below may alias
	 * the task's bitfield byte as far as the compiler knows, and would
	 * have it read again for each.
	 */
	mode = task->mode;
	boottime = task->boottime;
	quick = task->quick;
	run = timer ? &q->timer_run : &w->run;
	run->worker = w->id;
	run->overruns = 0;
	if (mode == DWQ_MODE_FIXED_RATE) {
		if (timer)
			now = dwq_queue_now(q);
		/* A key made before a suspend counts the periods it missed. */
		task->node.deadline =
			__dwq_rekey_late(q, task, task->node.deadline);
		run->overruns = dwq_task_catch_up(q, task, now);
	}
	run->deadline = task->node.deadline + task->clock_offset;
	run->boottime = boottime;
	run->quick = quick;
	/*
	 * A periodic task comes back to the heap when its callback returns;
	 * hold its slot back so that this can never fail for lack of room.
	 */
	run->oneshot = mode == DWQ_MODE_ONESHOT;
	if (mode != DWQ_MODE_ONESHOT) {
		task->reserved = true;
		q->reserved++;
	} else {
		task->reserved = false;
	}
	w->stats.tasks_run++;
	__dwq_queue_maybe_resize(q);
	return task;
}

/*
 * Pop the due head for @w at @now: it now runs on @w. @w does not lead;
 * a worker that does may sleep toward the end of the head's slack range,
 * which is no longer any task's to allow (see __dwq_queue_head_gone()).
 */
static struct dwq_task *__dwq_take_head(struct dwq_queue *q,
					struct dwq_worker *w, u64 now)
{
	struct dwq_task *task = __dwq_pop_head(q, w, now, false);

	w->run_since = now;
	w->state = DWQ_WORKER_RUNNING;
	__dwq_queue_head_gone(q);
	return task;
}

/*
 * When a hand-off timer must wake a follower for @head, if the callback
 * its worker took at @since still runs: the grace after the head is due,
 * or after @since if it was due already.
 */
static u64 __dwq_handoff_at(const struct dwq_queue *q,
			    const struct dwq_heap_node *head, u64 since)
{
	return min_t(u64, max(head->deadline, since),
		     KTIME_MAX - q->handoff_grace) +
	       q->handoff_grace;
}

/*
 * A follower a hand-off woke is back under the lock at @now: the grace
 * moves a quarter of the way toward the time it took, within its bounds.
 * A callback that returns within the time a follower takes to come would
 * have taken the head sooner itself; where that time is long (an
 * emulated machine, whose every interrupt outlasts DWQ_HANDOFF_GRACE_NS),
 * a grace shorter than it brings followers in for callbacks that are not
 * long, and moves the run to another CPU for nothing.
 */
static void __dwq_handoff_came(struct dwq_queue *q, u64 now)
{
	u64 took = now > q->handoff_woke ? now - q->handoff_woke : 0;

	q->handoff_grace = dwq_handoff_grace_next(q->handoff_grace, took);
}

/*
 * @w leaves the queue with @task to run: does a hand-off timer need to
 * cover the head meanwhile? Sets @w->handoff_at: when to arm it, or 0 if
 * it need not be armed (a quick task, see dwq_task_set_quick(); no head;
 * a leader; armed already in this run, see dwq_worker_handoff(); or armed
 * ahead, while @w led, to fire no later than needed: it covers this run).
 * A timer armed ahead for later than needed is armed again here, under
 * the lock: its callback may be waiting for the lock, and must find it
 * armed anew (see dwq_worker_handoff()), not be raced by the worker.
 */
static void __dwq_leave_with(struct dwq_queue *q, struct dwq_worker *w,
			     const struct dwq_task *task, u64 now)
{
	struct dwq_heap_node *head = __dwq_peek(q);
	u64 at;

	w->handoff_at = 0;
	if (task->quick || !head || q->leader || q->stopping ||
	    w->handoff_armed)
		return;
	at = __dwq_handoff_at(q, head, now);
	w->handoff_armed = true;
	if (!w->handoff_ahead) {
		w->handoff_at = at;
		return;
	}
	if (w->handoff_ahead > at) {
		w->handoff_ahead = at;
		hrtimer_start_range_ns(&w->handoff, ns_to_ktime(at),
				       DWQ_SLACK_NS, HRTIMER_MODE_ABS_HARD);
	}
}

/*
 * The task that will be the head once @head, the head, is taken: the
 * heap's root if @head is in the front slot (as a leader's is, see
 * __dwq_front_promote()), else @head itself, which is no later; NULL if
 * there is none.
 */
static struct dwq_heap_node *__dwq_next_head(const struct dwq_queue *q,
					     struct dwq_heap_node *head)
{
	return head == q->front ? dwq_heap_peek(&q->heap) : head;
}

/*
 * @w is about to sleep as the leader for @head, in the front slot: arm its
 * hand-off timer now, for the grace after the task behind @head is due,
 * so that the worker need not arm it between the head's deadline and its
 * callback, where it would make the callback that much later. When @w
 * takes a task and leaves with a head due no earlier, the timer armed
 * ahead covers that run (__dwq_leave_with()). Not for a quick head, whose
 * worker arms none.
 */
static void __dwq_handoff_ahead(struct dwq_queue *q, struct dwq_worker *w,
				struct dwq_heap_node *head, u64 now)
{
	struct dwq_task *task = container_of(head, struct dwq_task, node);
	struct dwq_heap_node *next = __dwq_next_head(q, head);
	u64 at;

	lockdep_assert_held(&q->lock);
	if (task->quick || !next || next == head)
		return;
	at = __dwq_handoff_at(q, next, now);
	if (at == w->handoff_ahead)
		return;
	w->handoff_ahead = at;
	hrtimer_start_range_ns(&w->handoff, ns_to_ktime(at), DWQ_SLACK_NS,
			       HRTIMER_MODE_ABS_HARD);
}

/*
 * @w's hand-off timer, armed ahead as it began to lead
 * (__dwq_handoff_ahead()), fired with no run under it. While @w still
 * leads, it has yet to take its head (woken late, or still asleep toward
 * the end of the head's slack range): the timer moves on to the grace
 * after the task behind the head, so that it still covers the run. Not
 * for a quick head, which the queue's timer runs, not @w: as
 * __dwq_handoff_ahead() arms none for one, the timer stops, rather than
 * follow each quick head while the leader sleeps on. Else @w took
 * nothing under it, or took a task that needs no hand-off (a quick one, or
 * one left with a leader in place, see __dwq_leave_with()), and nothing is
 * done: a timer armed ahead never acts as a run's.
 */
static enum hrtimer_restart
__dwq_handoff_ahead_fired(struct dwq_queue *q, struct dwq_worker *w,
			  struct dwq_heap_node *head)
{
	struct dwq_heap_node *next = head ? __dwq_next_head(q, head) : NULL;
	u64 at;

	lockdep_assert_held(&q->lock);
	if (q->leader != w || !next || q->stopping ||
	    container_of(head, struct dwq_task, node)->quick) {
		w->handoff_ahead = 0;
		return HRTIMER_NORESTART;
	}
	at = max(dwq_queue_now(q), q->leader_fired ? 0 : q->leader_hard);
	at = __dwq_handoff_at(q, next, at);
	w->handoff_ahead = at;
	hrtimer_set_expires_range_ns(&w->handoff, ns_to_ktime(at),
				     DWQ_SLACK_NS);
	return HRTIMER_RESTART;
}

/**
 * dwq_worker_handoff() - a worker's hand-off timer fired
 * @timer: &dwq_worker.handoff
 *
 * The worker's callback outlived the grace after the deadline of the head
 * it left without a leader (see dwq_take()), or, armed ahead while the
 * worker led (__dwq_handoff_ahead()), the grace of the head it led for.
 * If it took no task under it, nothing is done. Else wake one follower
 * for the head, unless someone leads it by now or a follower is on its way
 * (that one hands off in turn when it leaves with the head). The follower
 * is counted in @q->handoffs until it is back under the lock, and the
 * workers that come to the head meanwhile leave it to it, rather than have
 * it wake for nothing.
 *
 * Context: hard interrupt context, on PREEMPT_RT too (HRTIMER_MODE_HARD).
 * Return: %HRTIMER_RESTART when it moved on to a later callback's grace,
 * else %HRTIMER_NORESTART.
 */
enum hrtimer_restart dwq_worker_handoff(struct hrtimer *timer)
{
	struct dwq_worker *w = container_of(timer, struct dwq_worker, handoff);
	struct dwq_queue *q = w->queue;
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct dwq_heap_node *head;
	unsigned long flags;
	u64 at;

	raw_spin_lock_irqsave(&q->lock, flags);
	/*
	 * Armed again while this waited for the lock (ahead, by @w leading,
	 * or for a run, __dwq_leave_with()): that arm stands, and this
	 * expiry is void. Every arm of a timer that may be firing is made
	 * under the lock, so this cannot change until it is dropped.
	 */
	if (hrtimer_is_queued(timer)) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		return HRTIMER_NORESTART;
	}
	head = __dwq_peek(q);
	/* Not armed for a run: armed ahead as @w began to lead. */
	if (!w->handoff_armed) {
		ret = __dwq_handoff_ahead_fired(q, w, head);
		raw_spin_unlock_irqrestore(&q->lock, flags);
		return ret;
	}
	if (!q->leader && !q->handoffs && !q->stopping && head) {
		/*
		 * In a run of due tasks the timer was armed for the first of
		 * them: the callback running now may be a later one, still
		 * within its grace. Then wait for that.
		 */
		u64 now = dwq_queue_now(q);

		at = w->state == DWQ_WORKER_RUNNING ?
			     __dwq_handoff_at(q, head, w->run_since) :
			     0;
		if (at > now) {
			hrtimer_set_expires_range_ns(timer, ns_to_ktime(at),
						     DWQ_SLACK_NS);
			ret = HRTIMER_RESTART;
		} else {
			trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_HANDOFF);
			if (__dwq_wake_follower(q, true))
				q->handoff_woke = now;
		}
	}
	if (ret == HRTIMER_NORESTART)
		w->handoff_armed = false;
	w->handoff_ahead = 0;
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/*
 * Follower: wait without a timeout, at the tail of @q->followers, until a
 * schedule or a hand-off wakes us (__dwq_wake_follower() wakes the first:
 * followers are woken first-in first-out).
 *
 * Drops @q->lock and retakes it. The state is set and the entry queued
 * under the lock, and every waker holds the lock and takes the entry off
 * the list, so no wakeup is lost.
 *
 * Return: false if the worker must stop (then perhaps without sleeping).
 */
static bool __dwq_wait_untimed(struct dwq_worker *w)
{
	struct dwq_queue *q = w->queue;

	lockdep_assert_held(&q->lock);
	w->by_handoff = false;
	set_current_state(TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return false;
	}
	list_add_tail(&w->follow, &q->followers);
	w->stats.untimed_waits++;
	w->state = DWQ_WORKER_FOLLOWER;
	raw_spin_unlock_irq(&q->lock);

	schedule();

	raw_spin_lock_irq(&q->lock);
	/* Still queued if woken by kthread_stop(), not by a waker. */
	list_del_init(&w->follow);
	w->state = DWQ_WORKER_IDLE;
	w->stats.wakeups++;
	if (w->by_handoff) {
		q->handoffs--; /* We are here: see dwq_worker_handoff(). */
		__dwq_handoff_came(q, dwq_queue_now(q));
	}
	return !kthread_should_stop();
}

/*
 * Leader: sleep until @head is due, on @q->timer, which fires between its
 * deadline and its deadline plus its slack (so that the tasks due in that
 * window run in one wakeup), and which whoever queues an earlier task
 * moves in place (__dwq_queue_kick()). We are not on @q->followers.
 *
 * Drops @q->lock and retakes it. The state is set under the lock before we
 * become visible as the leader, so a wake_up_process() from the timer can
 * come at any time after and still ends the sleep.
 *
 * Return: false if the worker must stop (then perhaps without sleeping).
 */
static bool __dwq_wait_timed(struct dwq_worker *w, struct dwq_heap_node *head,
			     u64 now)
{
	struct dwq_queue *q = w->queue;
	struct dwq_task *task = container_of(head, struct dwq_task, node);
	u64 deadline = head->deadline;

	lockdep_assert_held(&q->lock);
	set_current_state(TASK_INTERRUPTIBLE);
	if (kthread_should_stop()) {
		__set_current_state(TASK_RUNNING);
		return false;
	}
	WRITE_ONCE(q->leader, w);
	q->leader_fired = false;
	__dwq_leader_arm(q, deadline, dwq_task_latest(task), now, task->quick);
	__dwq_front_promote(q);
	__dwq_handoff_ahead(q, w, head, now);
	w->stats.leader_changes++;
	w->stats.timed_waits++;
	w->state = DWQ_WORKER_LEADER;
	trace_dwq_leader(q, w->id, deadline);
	raw_spin_unlock_irq(&q->lock);

	schedule();

	raw_spin_lock_irq(&q->lock);
	w->state = DWQ_WORKER_IDLE;
	w->stats.wakeups++;
	/* Woken by the timer or by stop: give leadership up. */
	if (q->leader == w) {
		WRITE_ONCE(q->leader, NULL);
		/* Not waiting: a running callback finds no leader. */
		if (!q->leader_fired && q->armed)
			hrtimer_try_to_cancel(q->armed);
	}
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
	raw_spin_lock_irq(&q->lock);
	/* The worker cancelled its hand-off timer before it came here. */
	w->handoff_armed = false;
	w->handoff_ahead = 0;
	for (;;) {
		head = __dwq_peek(q);
		if (head)
			now = dwq_queue_now(q);
		if (unlikely(q->stopping)) {
			/* Destroying: only what DWQ_DESTROY_RUN_DUE still runs. */
			if (head && q->run_due &&
			    head->deadline <= q->run_due_before) {
				if (__dwq_rekey_early(q, head))
					continue;
				task = __dwq_take_head(q, w, now);
			}
			break;
		}
		/*
		 * The head is due: take it, unless a hand-off woke a follower
		 * for it who is not here yet. Then leave it to that follower
		 * and wait as one, so that its wakeup is not for nothing.
		 */
		/* Not due on its own clock after all: look again. */
		if (head && head->deadline <= now && __dwq_rekey_early(q, head))
			continue;
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
			woke = __dwq_wait_timed(w, head, now);
		}
		/*
		 * kthread_should_stop(). A destroy's kthread_stop() may come
		 * before the wakeup that told us to stop has run us: what
		 * DWQ_DESTROY_RUN_DUE asks for runs first (the branch above).
		 */
		if (!woke && !q->stopping)
			break;
	}

	/*
	 * Leaving. Leadership was given up when the timed wait ended. If no one
	 * leads now and tasks remain, someone must wake for the new head.
	 */
	head = __dwq_peek(q);
	if (task && !q->stopping) {
		__dwq_leave_with(q, w, task, now);
	} else if (head && !q->leader) {
		trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_LEAVE);
		__dwq_wake_follower(q, false);
	}
	raw_spin_unlock_irq(&q->lock);
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
static struct dwq_task *__dwq_take_next(struct dwq_worker *w, u64 now)
{
	struct dwq_queue *q = w->queue;
	struct dwq_heap_node *head = __dwq_peek(q);
	struct dwq_task *task;

	lockdep_assert_held(&q->lock);
	if (!head || head->deadline > now || q->handoffs || q->stopping ||
	    kthread_should_stop() || __dwq_rekey_early(q, head))
		return NULL;
	task = __dwq_take_head(q, w, now);
	__dwq_leave_with(q, w, task, now);
	return task;
}

/*
 * The next deadline of @task, whose callback returned at @now and which is
 * queued again (periodic, or re-armed): false if there is none (it would
 * overflow).
 */
static bool __dwq_task_next(struct dwq_queue *q, struct dwq_task *task, u64 now,
			    u64 *at)
{
	u64 period = task->period_ns, key, next;

	if (task->resched) {
		task->resched = false;
		/* Keyed before the callback returned: a suspend since counts. */
		*at = __dwq_rekey_late(q, task, task->node.seq);
		return true;
	}
	if (task->mode == DWQ_MODE_FIXED_DELAY) {
		/*
		 * From now on @q's clock: keyed with the offset of the task's
		 * clock now, as a schedule would key it (the one it was
		 * scheduled with is older than any suspend since).
		 */
		task->clock_offset = dwq_clock_offset(q, task->boottime);
		*at = now + period;
		return now < KTIME_MAX - period;
	}

	/*
	 * Fixed rate: the previous deadline plus one period (keyed anew if
	 * the system was suspended while the callback ran), even if that has
	 * passed: then the task is due at once, and the deadlines that
	 * passed meanwhile are coalesced into its next run when it is taken
	 * (dwq_task_catch_up()).
	 */
	key = __dwq_rekey_late(q, task, task->node.deadline);
	next = key + period;
	if (next > KTIME_MAX)
		return false;
	/* From a key clamped at 0 (dwq_sched_key()): keyed for this one. */
	*at = likely(key) ? next : __dwq_rekey_late(q, task, next);
	return true;
}

/*
 * The callback of @task returned at @now (0: not read yet; read here if
 * the task goes back in the queue, which a one-shot that is done does not
 * need): queue it again or let it go. Sets *@wake if dwq_cancel_sync()
 * callers wait for it. @timer: it ran in @q's timer, not on a worker that
 * goes back to take() now. Once the lock is dropped, the caller must not
 * touch @task.
 *
 * A task queued again may need the leader (__dwq_queue_kick()). In the
 * timer, that is seen to here. A worker (!@timer) is told by *@kick and
 * sees to it itself, after it took the next task due: when that is @task
 * (a one-shot that re-armed itself due at once), nobody else is needed,
 * and waking the leader would only make it find nothing due.
 *
 * Return: true if the caller must drop the last reference after unlocking.
 */
static __always_inline bool __dwq_task_end(struct dwq_queue *q,
					   struct dwq_task *task, u64 now,
					   bool timer, bool *wake, bool *kick)
{
	/* The mode of the run that ended, whatever a reschedule did since. */
	bool oneshot = dwq_task_run(q, task)->oneshot;
	bool put = false, again = false, head;
	u64 next;

	lockdep_assert_held(&q->lock);
	if (task->reserved) {
		task->reserved = false;
		q->reserved--;
		if (!task->stop && !q->stopping &&
		    (task->mode != DWQ_MODE_ONESHOT || task->resched)) {
			if (!now)
				now = dwq_queue_now(q);
			again = __dwq_task_next(q, task, now, &next);
		}
	}
	/*
	 * Read before unbinding: that drops the queue's reference unless it
	 * is the last, and the holder of another (an unread event's) may
	 * then free @task at once, without our lock.
	 */
	*wake = task->canceling;
	if (again) {
		head = __dwq_insert(q, &task->node, next) && timer;
		WRITE_ONCE(task->state, DWQ_STATE_QUEUED);
		/*
		 * A leader's timer is moved if the task is due earlier. With
		 * no leader, a worker wakes nobody: it goes back to take()
		 * right now and leads itself. The timer goes nowhere: if the
		 * leader left meanwhile, a new head needs a follower.
		 */
		if (timer)
			__dwq_queue_kick(q, task, head, now);
		else
			*kick = true;
	} else {
		/*
		 * A one-shot ran (even if cancel came too late); a periodic
		 * run ends its task, also one made one-shot during the run.
		 */
		put = __dwq_task_unbind(q, task,
					oneshot ? DWQ_STATE_IDLE :
						  DWQ_STATE_CANCELLED);
	}
	return put;
}

/**
 * dwq_task_finish() - a worker's callback for a task has returned
 * @w: the worker
 * @task: the task it ran
 *
 * Queues a periodic or re-armed task again (in the slot reserved when it
 * was taken or re-armed), unless it was cancelled or the queue is going
 * away; otherwise unbinds it and drops the queue's reference. Then, in the
 * same lock hold, takes the next task if one is due (__dwq_take_next()),
 * unless that reference was the last: then the worker runs @task's
 * release function first, with no task of its own, and goes back to
 * dwq_take(). A release that cancels another task with dwq_cancel_sync()
 * (an object torn down with its last task) must not find that task
 * "running" on the worker that runs the release, taken but not started:
 * that would be -EDEADLK, and a task that runs after its owner's
 * teardown. Once this has unlocked, the worker no longer touches @task.
 *
 * Context: the worker's kthread.
 * Return: the next task to run, or NULL: back to dwq_take().
 */
struct dwq_task *dwq_task_finish(struct dwq_worker *w, struct dwq_task *task)
{
	struct dwq_queue *q = w->queue;
	struct dwq_task *next_task;
	bool put, wake, kick = false;
	u64 now;

	raw_spin_lock_irq(&q->lock);
	/* Read under the lock: the next task's grace starts from it. */
	now = dwq_queue_now(q);
	w->state = DWQ_WORKER_IDLE;
	put = __dwq_task_end(q, task, now, false, &wake, &kick);
	next_task = put ? NULL : __dwq_take_next(w, now);
	/* Queued again, and not taken right back by this worker. */
	if (kick && next_task != task)
		__dwq_queue_kick(q, task, false, now);
	raw_spin_unlock_irq(&q->lock);
	if (put) {
		/*
		 * The release function runs on this worker, which
		 * dwq_queue_destroy() waits for: the queue's class is "held"
		 * as for the callback, so that a destroy called under a lock
		 * the release function takes is reported too.
		 */
		lock_map_acquire(&q->lockdep_map);
		dwq_task_put(task);
		lock_map_release(&q->lockdep_map);
	}
	if (wake)
		wake_up_all(&q->done_wq);
	return next_task;
}

/* Check @s: only @flags may be set; @mode and @period_ns too if @timing. */
static __always_inline int dwq_sched_check(const struct dwq_sched *s,
					   unsigned int flags, bool timing)
{
	/* Any slack is good: a task keeps at most U32_MAX ns of it. */
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
 * Return: 0, or -EINVAL if a delay's deadline, or the next period, would
 * overflow KTIME_MAX.
 */
static __always_inline int dwq_sched_key(const struct dwq_queue *q,
					 const struct dwq_sched *s, u64 period,
					 u64 now, u64 *key, s64 *offset)
{
	s64 off = dwq_clock_offset(q, s->flags & DWQ_SCHED_BOOTTIME), k;

	if (s->flags & DWQ_SCHED_ABS) {
		/*
		 * A plain deadline within the time suspended of KTIME_MAX, on
		 * a CLOCK_BOOTTIME queue (@off is minus that time), comes
		 * after the queue's clock's KTIME_MAX: keyed there, never
		 * due, with the offset that keeps key plus offset its
		 * deadline, as __dwq_rekey_plain() keys one at a resume. It
		 * is accepted, as it is on a system never suspended.
		 */
		if (check_sub_overflow((s64)s->time_ns, off, &k)) {
			k = KTIME_MAX;
			off = s->time_ns - KTIME_MAX;
		}
		/*
		 * A CLOCK_BOOTTIME deadline before the time suspended so far
		 * comes before the queue's clock's 0: keyed at 0 (it is due),
		 * with the offset that keeps key plus offset its deadline, so
		 * that its runs count from it (dwq_task_catch_up()).
		 */
		if (k < 0) {
			off = s->time_ns;
			k = 0;
		}
		*key = k;
	} else {
		/* Both at most KTIME_MAX: past it iff the s64 sum overflows. */
		if (check_add_overflow((s64)now, (s64)s->time_ns, &k))
			return -EINVAL;
		*key = k;
	}
	/*
	 * Leave room for the next period from the first run (now, for a
	 * deadline already past), so that re-queueing cannot wrap.
	 */
	if (period && check_add_overflow((s64)max(*key, now), (s64)period, &k))
		return -EINVAL;
	*offset = off;
	return 0;
}

/*
 * Is @task free to be scheduled: bound to no queue? A dwq_cancel_sync()
 * waiting on it is looked for once it is claimed (__dwq_task_claim()):
 * only then is the count it takes sure to show.
 */
static __always_inline bool dwq_task_free(struct dwq_task *task)
{
	/* Pairs with the release in __dwq_task_unbind(). */
	return !smp_load_acquire(&task->queue);
}

/*
 * Bind @task, found free, to @q: false if another queue took it first, or
 * a dwq_cancel_sync() waits on it. Only @q's lock is held, so another
 * queue's schedule may be claiming @task at the same moment under its
 * own: one of them wins the exchange. A cancel_sync counts itself in
 * @canceling while the queue it waits on still holds @task, and that
 * queue lets go of it with a release: the exchange, fully ordered, read
 * that release, so the count shows now (also one counted after
 * dwq_task_free() looked). Then @task is let go again: while a
 * cancel_sync waits, scheduling fails.
 */
static __always_inline bool __dwq_task_claim(struct dwq_queue *q,
					     struct dwq_task *task)
{
	struct dwq_queue *none = NULL;

	lockdep_assert_held(&q->lock);
	dwq_kunit_claiming(task);
	if (unlikely(!try_cmpxchg(&task->queue, &none, q)))
		return false;
	if (unlikely(READ_ONCE(task->canceling))) {
		/* Pairs with the acquire in dwq_task_free(), as an unbind. */
		smp_store_release(&task->queue, NULL);
		return false;
	}
	return true;
}

/*
 * Let go of the first @n of @tasks, claimed and not queued: released, so
 * that another queue's claim after this sees what we wrote in them.
 */
static void __dwq_unbind_batch(struct dwq_task *const *tasks, unsigned int n)
{
	while (n--) /* Pairs with the acquire in dwq_task_free(). */
		smp_store_release(&tasks[n]->queue, NULL);
}

/*
 * Bind @tasks to @q and put their keys in their nodes (not in any heap
 * yet), or bind none: -EBUSY if one is bound already (here or to another
 * queue), being cancelled, or in the batch twice; -EINVAL if its deadline
 * overflows.
 */
static int __dwq_bind_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
			    const struct dwq_sched *s, unsigned int n, u64 now)
{
	struct dwq_task *task;
	unsigned int i;
	s64 offset;
	u64 key;
	int err;

	lockdep_assert_held(&q->lock);
	for (i = 0; i < n; i++) {
		task = tasks[i];
		err = -EBUSY;
		if (!dwq_task_free(task))
			goto unbind;
		err = dwq_sched_key(q, &s[i], s[i].period_ns, now, &key,
				    &offset);
		if (err)
			goto unbind;
		err = -EBUSY;
		if (!__dwq_task_claim(q, task))
			goto unbind;
		/* Ours now: nobody else writes them. */
		task->node.deadline = key;
		task->clock_offset = offset;
	}
	return 0;

unbind:
	__dwq_unbind_batch(tasks, i);
	return err;
}

/*
 * Queue @task, bound to @q with its key in its node, under @s. Return
 * whether it is the new head.
 */
static __always_inline bool __dwq_task_queue(struct dwq_queue *q,
					     struct dwq_task *task,
					     const struct dwq_sched *s)
{
	u64 key = task->node.deadline;
	bool head;

	lockdep_assert_held(&q->lock);
	/* Cannot fail: the caller checked the room under this lock hold. */
	head = __dwq_insert(q, &task->node, key);
	task->mode = s->mode;
	task->period_ns = s->period_ns;
	task->node.aux = dwq_sched_slack(s);
	task->boottime = !!(s->flags & DWQ_SCHED_BOOTTIME);
	task->stop = false;
	task->resched = false;
	WRITE_ONCE(task->state, DWQ_STATE_QUEUED);
	kref_get(&task->ref);
	trace_dwq_schedule(q, task);
	return head;
}

/* Check a batch's entries: the checks of dwq_schedule_batch(). */
static int dwq_sched_check_batch(const struct dwq_sched *s, unsigned int n)
{
	unsigned int i;
	int err;

	if (n > DWQ_BATCH_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		err = dwq_sched_check(&s[i], DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME,
				      true);
		if (err)
			return err;
	}
	return 0;
}

/* dwq_schedule_batch() under @q->lock, @s checked. */
static int __dwq_schedule(struct dwq_queue *q, struct dwq_task *const *tasks,
			  const struct dwq_sched *s, unsigned int n)
{
	struct dwq_heap_node *head;
	unsigned int i;
	u64 now;
	int err;

	lockdep_assert_held(&q->lock);
	if (q->stopping)
		return -ESHUTDOWN;
	/* First the checks that fail the batch, then the room. */
	now = dwq_queue_now(q);
	err = __dwq_bind_batch(q, tasks, s, n, now);
	if (err)
		return err;
	/* Keep the slots held back for running tasks. */
	if (!__dwq_queue_room(q, n)) {
		__dwq_unbind_batch(tasks, n);
		return -ENOSPC;
	}
	head = __dwq_peek(q);
	for (i = 0; i < n; i++) {
		__dwq_task_queue(q, tasks[i], &s[i]);
		/* The leader's timer, if it must fire earlier. */
		__dwq_queue_kick(q, tasks[i], false, now);
	}
	/* No leader: one follower for the new head. */
	if (__dwq_peek(q) != head && !q->leader) {
		trace_dwq_wakeup(q, -1, DWQ_TRACE_WAKE_HEAD);
		__dwq_wake_follower(q, false);
	}
	__dwq_queue_maybe_resize(q);
	return 0;
}

/*
 * dwq_schedule() under @q->lock, @s checked: __dwq_schedule() for one
 * task, with the same checks in the same order and the same result (but
 * for a task another queue holds, or a cancel_sync waits on, which the
 * batch finds -EBUSY before a full queue's -ENOSPC), and nothing of the
 * batch's loops. It is the path of every timeout armed.
 */
static __always_inline int __dwq_schedule_one(struct dwq_queue *q,
					      struct dwq_task *task,
					      const struct dwq_sched *s)
{
	u64 now, key;
	bool head;
	s64 offset;
	int err;

	lockdep_assert_held(&q->lock);
	if (unlikely(q->stopping))
		return -ESHUTDOWN;
	if (!dwq_task_free(task))
		return -EBUSY;
	now = dwq_queue_now(q);
	err = dwq_sched_key(q, s, s->period_ns, now, &key, &offset);
	if (err)
		return err;
	/* Keep the slots held back for running tasks. */
	if (unlikely(!__dwq_queue_room(q, 1)))
		return -ENOSPC;
	if (!__dwq_task_claim(q, task))
		return -EBUSY;
	task->node.deadline = key;
	task->clock_offset = offset;
	head = __dwq_task_queue(q, task, s);
	/* The leader's timer if it must fire earlier, or a follower. */
	__dwq_queue_kick(q, task, head, now);
	__dwq_queue_maybe_resize(q);
	return 0;
}

/**
 * dwq_schedule_batch() - schedule several tasks at once, all or nothing
 * @q: the queue
 * @tasks: the tasks, idle or cancelled (not queued, not running)
 * @s: one &struct dwq_sched per task (%DWQ_SCHED_ABS and %DWQ_SCHED_BOOTTIME only)
 * @n: number of tasks, at most %DWQ_BATCH_MAX
 *
 * Either every task is queued or none is, and a bad entry fails the whole
 * batch. Relative delays count from one instant for the whole batch. The
 * queue takes a reference to each task until it has run (one-shot) or been
 * cancelled. The whole batch is queued under one hold of the queue's lock,
 * with interrupts off: from atomic context, keep @n small (tens).
 *
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates.
 * Return: 0; -EINVAL for a bad mode, flag, period or time (including a
 * deadline that overflows) or @n too big; -EBUSY if a task is queued,
 * running, being cancelled or in the batch twice; -ESHUTDOWN if @q is being
 * destroyed; -ENOSPC if the heap has no room for @n more tasks now (see
 * dwq_queue_reserve()). Nothing changed on error. An empty batch (@n 0)
 * is 0, whatever the queue's state: it changes nothing.
 */
int dwq_schedule_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
		       const struct dwq_sched *s, unsigned int n)
{
	unsigned long flags;
	int err;

	err = dwq_sched_check_batch(s, n);
	if (err || !n)
		return err;

	raw_spin_lock_irqsave(&q->lock, flags);
	err = __dwq_schedule(q, tasks, s, n);
	raw_spin_unlock_irqrestore(&q->lock, flags);
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
 * -EBUSY); dwq_mod() can. A task scheduled on two queues at once is bound
 * to one: the other schedule gets -EBUSY.
 *
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates.
 * Return: 0; -EINVAL for a bad mode or flag, a period of 0 for a periodic
 * task or not 0 for a one-shot, a time over KTIME_MAX or a deadline that
 * overflows; -EBUSY if @task is queued, running or being cancelled;
 * -ESHUTDOWN if @q is being destroyed; -ENOSPC if the heap has no room now
 * (see dwq_queue_reserve()). Nothing changed on error.
 */
int dwq_schedule(struct dwq_queue *q, struct dwq_task *task,
		 const struct dwq_sched *s)
{
	unsigned long flags;
	int err;

	err = dwq_sched_check(s, DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, true);
	if (err)
		return err;

	raw_spin_lock_irqsave(&q->lock, flags);
	err = __dwq_schedule_one(q, task, s);
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return err;
}
EXPORT_SYMBOL_GPL(dwq_schedule);

/*
 * Move queued @task to @key, with @s's slack: the heap update of
 * dwq_reschedule() and dwq_mod().
 */
static __always_inline void __dwq_task_move(struct dwq_queue *q,
					    struct dwq_task *task,
					    const struct dwq_sched *s, u64 key,
					    u64 now)
{
	struct dwq_heap_node *head = __dwq_peek(q);
	u64 old = task->node.deadline;
	bool new_head;

	lockdep_assert_held(&q->lock);
	__dwq_update(q, &task->node, key);
	task->node.aux = dwq_sched_slack(s);
	/*
	 * It became the head, or the head moved earlier: a follower must
	 * lead for it if nobody does, and the leader's timer may have to be
	 * moved in. (A head that moved later, or to its own deadline behind
	 * a task due then too, leaves the timer early: the leader wakes once,
	 * finds nothing due and leads again; but not late, see
	 * __dwq_queue_head_gone().)
	 */
	new_head = __dwq_peek(q) == &task->node &&
		   (head != &task->node || key < old);
	if (head == &task->node && (key > old || !new_head))
		__dwq_queue_head_gone(q);
	__dwq_queue_kick(q, task, new_head, now);
}

/*
 * The body of dwq_mod() and dwq_reduce(): @earlier leaves a task alone
 * whose deadline (queued) or re-arm (running) is no later than @s's.
 */
static __always_inline int dwq_mod_common(struct dwq_queue *q,
					  struct dwq_task *task,
					  const struct dwq_sched *s,
					  bool earlier)
{
	unsigned long flags;
	u64 key, now;
	s64 offset;
	int err;

	err = dwq_sched_check_batch(s, 1);
	if (err)
		return err;

	raw_spin_lock_irqsave(&q->lock, flags);
	err = -ESHUTDOWN;
	if (q->stopping)
		goto unlock;
	err = -EBUSY;
	if (READ_ONCE(task->canceling))
		goto unlock;
	if (READ_ONCE(task->queue) != q) {
		/*
		 * Idle: schedule it (-EBUSY if it is bound elsewhere). Only
		 * our lock binds a task to @q, so it stays unbound from @q.
		 */
		err = __dwq_schedule_one(q, task, s);
		goto unlock;
	}
	now = dwq_queue_now(q);
	err = dwq_sched_key(q, s, s->period_ns, now, &key, &offset);
	if (err)
		goto unlock;
	if (task->state == DWQ_STATE_QUEUED) {
		err = 1;
		if (earlier &&
		    __dwq_key_now(q, task, task->node.deadline) <= key)
			goto unlock;
		__dwq_task_move(q, task, s, key, now);
	} else {
		err = 0;
		/* A re-arm keyed before a suspend, as it would be now. */
		if (earlier && task->resched &&
		    __dwq_key_now(q, task, task->node.seq) <= key)
			goto unlock;
		/* Running: it needs a slot to come back to. */
		if (!task->reserved) {
			err = -ENOSPC;
			if (!__dwq_queue_room(q, 1))
				goto unlock;
			task->reserved = true;
			q->reserved++;
			__dwq_queue_maybe_resize(q);
		}
		task->stop = false;
		task->resched = true;
		task->node.seq = key;
		task->node.aux = dwq_sched_slack(s);
		err = 0;
	}
	task->clock_offset = offset;
	task->boottime = !!(s->flags & DWQ_SCHED_BOOTTIME);
	task->mode = s->mode;
	task->period_ns = s->period_ns;
	if (task->state == DWQ_STATE_QUEUED)
		trace_dwq_reschedule(q, task);
unlock:
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return err;
}

/**
 * dwq_mod() - queue a task, or move it if it is queued already
 * @q: the queue
 * @task: the task, in any state
 * @s: when and how often, as for dwq_schedule()
 *
 * As mod_delayed_work(): an idle or cancelled task is queued as by
 * dwq_schedule(); a queued one gets @s's deadline, mode and period, as by
 * dwq_reschedule() with %DWQ_RESCHED_PERIOD, and goes after the tasks
 * already queued with the same deadline; a running one (from its own
 * callback or from anywhere else) is queued again under @s when its
 * callback returns, even a one-shot, so a one-shot can re-arm itself. The
 * last of dwq_mod() and dwq_cancel() wins: a cancel after it drops the
 * re-arm, a dwq_mod() after a cancel re-arms. While dwq_cancel_sync() waits
 * for the callback, dwq_mod() fails with -EBUSY, so that the task is idle
 * when cancel_sync returns.
 *
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates.
 * Return: 0 if @task was not queued (idle or running) and now is, or will
 * be when its callback returns; 1 if it was queued and has been moved;
 * -EINVAL for a bad @s (as dwq_schedule()); -EBUSY while dwq_cancel_sync()
 * waits for it, or if it is queued or running on another queue;
 * -ESHUTDOWN if @q is being destroyed; -ENOSPC if it needs a heap slot
 * and there is no room (see dwq_queue_reserve()). Nothing changed on
 * error.
 */
int dwq_mod(struct dwq_queue *q, struct dwq_task *task,
	    const struct dwq_sched *s)
{
	return dwq_mod_common(q, task, s, false);
}
EXPORT_SYMBOL_GPL(dwq_mod);

/**
 * dwq_reduce() - queue a task, or move a queued one earlier
 * @q: the queue
 * @task: the task, in any state
 * @s: when and how often, as for dwq_schedule()
 *
 * As timer_reduce(): dwq_mod(), except that a queued task whose deadline
 * is no later than @s's stays as it is, mode and period included, and so
 * does a running one that was re-armed during this run (by dwq_mod(),
 * dwq_reduce() or dwq_reschedule()) for no later than @s's deadline. A
 * running task not re-armed yet is re-armed as by dwq_mod(): a periodic
 * one then comes back at @s's deadline, not at its next period. A timer
 * that must fire by the earliest of many deadlines, any of which may go
 * away, can be kept by it lazily: each new deadline only ever brings it
 * in, and a firing that finds nothing due re-arms it for what is left.
 * Concurrent callers, the task's own callback among them, leave it at
 * the earliest of their deadlines.
 *
 * Context: any context, as dwq_mod(); never sleeps or allocates.
 * Return: as dwq_mod(): 0 if @task was not queued and now is (or will be
 * when its callback returns, or already was to be no later), 1 if it was
 * queued (moved earlier, or left where it was), or the errors of
 * dwq_mod(), with nothing changed.
 */
int dwq_reduce(struct dwq_queue *q, struct dwq_task *task,
	       const struct dwq_sched *s)
{
	return dwq_mod_common(q, task, s, true);
}
EXPORT_SYMBOL_GPL(dwq_reduce);

/*
 * Is a node with slot @index in the front slot or at the heap's root?
 * One compare: index - 1 wraps for the root, and is DWQ_FRONT_INDEX - 1
 * for the front; every other slot is below that.
 */
static __always_inline bool __dwq_is_head_slot(int index)
{
	return (unsigned int)index - 1 >= DWQ_FRONT_INDEX - 1;
}

/*
 * Remove @task, in the front slot or at the root of @q's heap, for a
 * cancel: O(1) from the front slot (a new head disarmed before it is
 * due); from the root a pop, whose hole goes down every level by the
 * tournament. Out of line: a cancel that takes no head (the timeout
 * disarmed before it is due, behind an earlier one) keeps nothing of this
 * in its registers.
 */
static noinline void __dwq_remove_head(struct dwq_queue *q,
				       struct dwq_task *task)
{
	lockdep_assert_held(&q->lock);
	if (&task->node == q->front)
		__dwq_front_leave(q, &task->node);
	else
		WARN_ON_ONCE(dwq_heap_pop(&q->heap) != &task->node);
	__dwq_queue_head_gone(q);
}

/*
 * Cancel @task on @q, whose lock we hold: remove it if queued, or mark a
 * running task not to be queued again. *@put is set when the queue's
 * reference, the last one, must be dropped after unlocking.
 */
static __always_inline int __dwq_cancel(struct dwq_queue *q,
					struct dwq_task *task, bool *put)
{
	lockdep_assert_held(&q->lock);
	switch (task->state) {
	case DWQ_STATE_QUEUED:
		/*
		 * If it was the head, the leader now sleeps until a deadline
		 * that is too early; it wakes, finds the new head not due and
		 * leads again. Waking it now would cost the same one wakeup.
		 * Its latest may be too late: see __dwq_queue_head_gone().
		 */
		if (unlikely(__dwq_is_head_slot(task->node.index)))
			__dwq_remove_head(q, task);
		else
			dwq_heap_remove(&q->heap, &task->node);
		trace_dwq_cancel(q, task, DWQ_RESULT_REMOVED);
		*put = __dwq_task_unbind(q, task, DWQ_STATE_CANCELLED);
		__dwq_queue_maybe_resize(q);
		return DWQ_RESULT_REMOVED;
	case DWQ_STATE_RUNNING:
		task->stop = true;
		task->resched = false;
		/*
		 * It will not be queued again: the slot held back for that
		 * is free now, for a task scheduled in its place (a heap
		 * made to measure has no other). dwq_mod() takes one again.
		 */
		if (task->reserved) {
			task->reserved = false;
			q->reserved--;
			__dwq_queue_maybe_resize(q);
		}
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
 * run then completes normally, and the task is not queued again (a
 * periodic one, one that dwq_reschedule() made one-shot during a periodic
 * run, or one that dwq_mod() re-armed before this).
 *
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates. If this
 *	drops the last reference, @task's release function runs here.
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
	raw_spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	ret = __dwq_cancel(q, task, &put);
	raw_spin_unlock_irqrestore(&q->lock, flags);
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
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates. If this
 *	drops a task's last reference, its release function runs here.
 */
void dwq_cancel_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
		      unsigned int n, int *ret)
{
	unsigned long flags;
	unsigned int i;
	bool put;

	raw_spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < n; i++) {
		/* -1: not bound to @q, left for dwq_cancel() below. */
		ret[i] = tasks[i] ? -1 : DWQ_RESULT_IDLE;
		if (!tasks[i] || !dwq_task_bound(q, tasks[i]))
			continue;
		put = false;
		ret[i] = __dwq_cancel(q, tasks[i], &put);
		/* -2: removed, and the last reference is ours to drop. */
		if (put)
			ret[i] = -2;
	}
	raw_spin_unlock_irqrestore(&q->lock, flags);
	for (i = 0; i < n; i++) {
		if (ret[i] == -2) {
			dwq_task_put(tasks[i]);
			ret[i] = DWQ_RESULT_REMOVED;
		} else if (ret[i] == -1) {
			ret[i] = dwq_cancel(tasks[i]);
		}
	}
}
EXPORT_SYMBOL_GPL(dwq_cancel_batch);

/*
 * "Take" the lock class of @task's callback, as if waiting for it, on @q
 * (NULL if it was idle). A quick task's callback runs with softirqs off
 * (in the timer softirq, or on a worker with them disabled), or on a
 * %DWQ_QUEUE_HARDIRQ queue with interrupts off, under its quick subclass
 * (dwq_task_subclass()), and so is this, as for flush_work() of a BH work
 * item: lockdep sees one consistent usage of each class.
 */
static void dwq_task_touch_map(struct dwq_queue *q, struct dwq_task *task)
{
	/*
	 * Without the lock: a schedule may be claiming @task and writing
	 * the other bits of this byte, never this one (only
	 * dwq_task_set_quick() does, on a task its owner knows idle).
	 */
	bool quick = data_race(!!task->quick);

	if (quick)
		dwq_quick_enter(q);
	dwq_task_map_acquire(&task->lockdep_map, dwq_task_subclass(q, quick));
	lock_map_release(&task->lockdep_map);
	if (quick)
		dwq_quick_leave(q);
	/*
	 * An idle quick task's last queue is not known: it may have run in
	 * hard irq context, under the subclass of a %DWQ_QUEUE_HARDIRQ
	 * queue, so that one is touched too, with interrupts off. A class
	 * its callback never ran under has no dependency on a lock for
	 * lockdep to report.
	 */
	if (quick && !q && !IS_ENABLED(CONFIG_PREEMPT_RT)) {
		local_irq_disable();
		dwq_task_map_acquire(&task->lockdep_map,
				     DWQ_SUBCLASS_QUICK_HARDIRQ);
		lock_map_release(&task->lockdep_map);
		local_irq_enable();
	}
}

/*
 * May the caller sleep to wait for a callback? Not in softirq context or
 * with softirqs or interrupts off; nor with preemption off, as a spinlock
 * or preempt_disable() leaves it (seen where the kernel counts it,
 * CONFIG_PREEMPT_COUNT); nor in an RCU read-side critical section, which
 * on PREEMPT_RT is also what holding a spinlock_t leaves, however it was
 * taken. A caller there would sleep in atomic context, or wait for a
 * callback that may need what it holds.
 */
static bool dwq_may_wait(void)
{
	if (in_softirq() || irqs_disabled())
		return false;
	if (IS_ENABLED(CONFIG_PREEMPT_COUNT) && preempt_count())
		return false;
	return !rcu_preempt_depth();
}

/**
 * dwq_cancel_sync() - cancel a task and wait for its callback to return
 * @task: the task
 *
 * As dwq_cancel(), then, if the callback was running, waits until it has
 * returned. Meanwhile scheduling @task (dwq_schedule(), dwq_mod()) fails
 * with -EBUSY. On return, unless someone scheduled @task again since, it
 * is neither queued nor running and the queue holds no reference to it
 * and touches it no more: the caller may free it at once, as after
 * cancel_delayed_work_sync() (or drop its reference, which then releases
 * it), provided no other call on @task is in progress: another thread's
 * dwq_cancel_sync() of it, waiting for the same run, holds a reference of
 * its own and touches @task until it returns too. The queue must not be
 * destroyed while this waits.
 *
 * For lockdep, this "takes" the callback's lock class (see
 * dwq_task_init()), so that calling it under a lock that the callback
 * takes is reported, whether or not the callback runs at that moment,
 * as flush_work() does. The class is that of the dwq_task_init() call
 * site: a callback that cancels another task of its own class with this
 * is reported as waiting for itself, as a work function flushing another
 * work item of its own class is. Give such tasks classes of their own
 * with dwq_task_init_key().
 *
 * Context: process context, softirqs on; sleeps. If this drops the last
 * reference, @task's release function runs here.
 * Return: as dwq_cancel(); or -EDEADLK, having done nothing, when called
 * from @task's own callback, which would wait for itself, or where it may
 * not sleep: with softirqs or interrupts off, from any quick callback (see
 * dwq_task_set_quick()), in the queue's timer or on a worker, which may
 * be what it waits for; under a spinlock, however taken, or under
 * rcu_read_lock() (a plain spin_lock(), preempt_disable() or
 * rcu_read_lock() only where the kernel counts them: preemption with
 * CONFIG_PREEMPT_COUNT, as every kernel with a preemption model chosen at
 * boot has, and RCU readers with it or CONFIG_PREEMPT_RCU). The result must
 * be used: after -EDEADLK @task may still be queued or running, and must
 * not be freed.
 */
int dwq_cancel_sync(struct dwq_task *task)
{
	struct dwq_queue *q;
	unsigned long flags;
	bool put = false, held = false, full = false;
	int ret;

	if (!dwq_may_wait())
		return -EDEADLK;
	might_sleep();
retry:
	q = dwq_task_queue(task);
	if (!q)
		goto idle;
	raw_spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	if (task->state == DWQ_STATE_RUNNING &&
	    task->run_worker != DWQ_RUN_TIMER &&
	    q->workers[task->run_worker].thread == current) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		if (held)
			dwq_task_put(task);
		return -EDEADLK;
	}
	/*
	 * A reference of our own (the queue's is held, so it is not the
	 * first), for a caller that holds none: the queue lets go of @task
	 * in __dwq_cancel() or when its callback returns, another holder may
	 * drop theirs at any time after we unlock, and we touch @task until
	 * the end. Our put there may be the last.
	 */
	if (!held) {
		kref_get(&task->ref);
		held = true;
	}
	/*
	 * U8_MAX others wait for this run, all that @canceling counts: wait
	 * until one of them has left (they leave once the run ends), then
	 * start over, to be counted and to cancel what a schedule may have
	 * queued meanwhile.
	 */
	if (unlikely(task->state == DWQ_STATE_RUNNING &&
		     task->canceling == U8_MAX)) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		full = true;
		while (READ_ONCE(task->canceling) == U8_MAX)
			usleep_range(1000, 2000);
		goto retry;
	}
	ret = __dwq_cancel(q, task, &put);
	if (ret == DWQ_RESULT_RUNNING) {
		/*
		 * Wait with the lock dropped. Meanwhile @canceling makes every
		 * schedule of @task fail, and dwq_task_finish() wakes @done_wq
		 * when it sees it.
		 */
		WRITE_ONCE(task->canceling, task->canceling + 1);
		raw_spin_unlock_irqrestore(&q->lock, flags);
		dwq_task_touch_map(q, task);
		wait_event(q->done_wq,
			   READ_ONCE(task->state) != DWQ_STATE_RUNNING);
		raw_spin_lock_irqsave(&q->lock, flags);
		WRITE_ONCE(task->canceling, task->canceling - 1);
	}
	raw_spin_unlock_irqrestore(&q->lock, flags);
	if (ret != DWQ_RESULT_RUNNING)
		dwq_task_touch_map(q, task);
	/* Ours held, the queue's was never the last: @put stays false. */
	WARN_ON_ONCE(put);
	dwq_task_put(task);
	return ret;

idle:
	dwq_task_touch_map(NULL, task);
	if (held)
		dwq_task_put(task);
	/* The run found at first, which ended while this waited its turn. */
	return full ? DWQ_RESULT_RUNNING : DWQ_RESULT_IDLE;
}
EXPORT_SYMBOL_GPL(dwq_cancel_sync);

/**
 * dwq_reschedule() - move a task's next deadline, keeping its identity
 * @task: the task, queued or running and due to run again (periodic, or a
 *	one-shot that dwq_mod() re-armed from its callback)
 * @s: the new delay or deadline (%DWQ_SCHED_ABS, %DWQ_SCHED_BOOTTIME); with
 *	%DWQ_RESCHED_PERIOD also a new mode and period, otherwise @s->mode and
 *	@s->period_ns are ignored
 *
 * A queued task moves in the heap in O(log n) and goes after the tasks
 * already queued with the same deadline. For a running task that will run
 * again, this sets the deadline of its next run; a fixed-rate task keeps
 * its new phase from then on.
 *
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates.
 * Return: 0; -EINVAL for bad flags, mode, period or time; -ENOENT if @task
 * is neither queued nor a running task that will run again;
 * -ESHUTDOWN if its queue is being destroyed (a callback that runs during
 * dwq_queue_destroy()): nothing changed.
 */
int dwq_reschedule(struct dwq_task *task, const struct dwq_sched *s)
{
	struct dwq_queue *q;
	unsigned long flags;
	u64 key, period, now;
	s64 offset;
	int err;

	err = dwq_sched_check(s,
			      DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME |
				      DWQ_RESCHED_PERIOD,
			      s->flags & DWQ_RESCHED_PERIOD);
	if (err)
		return err;

retry:
	q = dwq_task_queue(task);
	if (!q)
		return -ENOENT;
	raw_spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	/* Being destroyed: nothing moves, as nothing is scheduled. */
	err = -ESHUTDOWN;
	if (q->stopping)
		goto unlock;
	period = s->flags & DWQ_RESCHED_PERIOD ? s->period_ns : task->period_ns;
	now = dwq_queue_now(q);
	err = dwq_sched_key(q, s, period, now, &key, &offset);
	if (err)
		goto unlock;

	switch (task->state) {
	case DWQ_STATE_QUEUED:
		__dwq_task_move(q, task, s, key, now);
		break;
	case DWQ_STATE_RUNNING:
		/* Only a task with a slot held back comes back to the heap. */
		if (task->stop || !task->reserved) {
			err = -ENOENT;
			goto unlock;
		}
		task->resched = true;
		task->node.seq = key;
		task->node.aux = dwq_sched_slack(s);
		break;
	default:
		WARN_ON_ONCE(1); /* bound, so queued or running */
		err = -ENOENT;
		goto unlock;
	}
	task->clock_offset = offset;
	task->boottime = !!(s->flags & DWQ_SCHED_BOOTTIME);
	if (s->flags & DWQ_RESCHED_PERIOD) {
		task->mode = s->mode;
		task->period_ns = s->period_ns;
	}
	if (task->state == DWQ_STATE_QUEUED)
		trace_dwq_reschedule(q, task);
unlock:
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return err;
}
EXPORT_SYMBOL_GPL(dwq_reschedule);

/*
 * The record of the run whose callback, @task's own, calls: @task is
 * running and bound to its queue until the callback returns.
 */
static const struct dwq_run_rec *dwq_task_own_run(const struct dwq_task *task)
{
	return dwq_task_run(READ_ONCE(task->queue), task);
}

/**
 * dwq_task_run_deadline() - the deadline the running callback was due at
 * @task: the task whose callback is calling
 *
 * For a %DWQ_MODE_FIXED_RATE task this is the latest deadline of its
 * series that had passed when the task was taken to run (see
 * dwq_task_run_overruns()).
 *
 * Context: only from @task's own callback.
 * Return: the deadline of this run in ns, on the task's clock.
 */
u64 dwq_task_run_deadline(const struct dwq_task *task)
{
	return dwq_task_own_run(task)->deadline;
}
EXPORT_SYMBOL_GPL(dwq_task_run_deadline);

/**
 * dwq_task_run_overruns() - periods coalesced into the running callback
 * @task: the task whose callback is calling
 *
 * A %DWQ_MODE_FIXED_RATE task taken to run after more than one of its
 * deadlines has passed (its previous run ended late, or the queue was too
 * busy to take it in time) does not run for each of them: it runs once,
 * at once, for the latest (dwq_task_run_deadline()), and the ones before
 * it are counted here, like a timerfd's expiration count minus one. Its
 * next deadline is one period after the latest.
 *
 * Context: only from @task's own callback.
 * Return: the deadlines coalesced into this run; 0 for other modes.
 */
u64 dwq_task_run_overruns(const struct dwq_task *task)
{
	return dwq_task_own_run(task)->overruns;
}
EXPORT_SYMBOL_GPL(dwq_task_run_overruns);

/**
 * dwq_task_run_boottime() - the clock of the running callback's deadline
 * @task: the task whose callback is calling
 *
 * The clock dwq_task_run_deadline() is on: the task's clock when it was
 * taken to run. dwq_reschedule() may move the task to the other clock
 * meanwhile (for its next run), but not this run.
 *
 * Context: only from @task's own callback.
 * Return: true for CLOCK_BOOTTIME, false for CLOCK_MONOTONIC.
 */
bool dwq_task_run_boottime(const struct dwq_task *task)
{
	return dwq_task_own_run(task)->boottime;
}
EXPORT_SYMBOL_GPL(dwq_task_run_boottime);

/**
 * dwq_task_run_oneshot() - whether the running callback is a one-shot run
 * @task: the task whose callback is calling
 *
 * A one-shot run is the task's last unless dwq_mod() re-arms it meanwhile
 * (then it runs again after this run returns). This is the mode the task
 * had when it was taken; dwq_reschedule() with %DWQ_RESCHED_PERIOD or
 * dwq_mod() may change the task's mode meanwhile (for its next run), but
 * not this. A periodic task holds a heap slot back from then until its
 * callback returns; a one-shot holds one from the moment dwq_mod() re-arms
 * it.
 *
 * Context: only from @task's own callback.
 * Return: true for a one-shot run.
 */
bool dwq_task_run_oneshot(const struct dwq_task *task)
{
	return dwq_task_own_run(task)->oneshot;
}
EXPORT_SYMBOL_GPL(dwq_task_run_oneshot);

/**
 * dwq_task_run_worker() - the worker running the callback
 * @task: the task whose callback is calling
 *
 * A quick task run by the queue's timer counts as run by the worker
 * that leads the queue, whose timer it is (see dwq_task_set_quick()): its
 * thread sleeps on meanwhile, and the callback runs in softirq context.
 *
 * Context: only from @task's own callback.
 * Return: the worker's id, 0 .. workers - 1 (its thread is "dwq/<id>",
 * or "dwq-<name>/<id>" on a queue named other than "dwq").
 */
int dwq_task_run_worker(const struct dwq_task *task)
{
	return dwq_task_own_run(task)->worker;
}
EXPORT_SYMBOL_GPL(dwq_task_run_worker);

static void dwq_query_fill(struct dwq_task *task, struct dwq_task_info *info)
{
	info->state = READ_ONCE(task->state);
	info->mode = task->mode;
	info->flags = task->boottime ? DWQ_SCHED_BOOTTIME : 0;
	info->period_ns = task->period_ns;
}

/**
 * dwq_query() - a snapshot of a task
 * @task: the task
 * @info: filled in
 *
 * Context: any context, hard interrupt context and under raw spinlocks
 *	included, on PREEMPT_RT too; never sleeps or allocates.
 */
void dwq_query(struct dwq_task *task, struct dwq_task_info *info)
{
	const struct dwq_run_rec *run;
	struct dwq_queue *q;
	unsigned long flags;
	u64 now, key;

	memset(info, 0, sizeof(*info));
retry:
	q = dwq_task_queue(task);
	if (!q) {
		/* Unbound: idle, and only our caller may change that. */
		dwq_query_fill(task, info);
		return;
	}
	raw_spin_lock_irqsave(&q->lock, flags);
	if (!dwq_task_bound(q, task)) {
		raw_spin_unlock_irqrestore(&q->lock, flags);
		goto retry;
	}
	dwq_query_fill(task, info);
	if (info->state == DWQ_STATE_RUNNING) {
		run = dwq_task_run(q, task);
		info->deadline_ns = run->deadline;
		/* The run's clock: a reschedule meanwhile set the next's. */
		info->flags = run->boottime ? DWQ_SCHED_BOOTTIME : 0;
	}
	if (info->state == DWQ_STATE_QUEUED) {
		now = dwq_queue_now(q);
		info->deadline_ns = task->node.deadline + task->clock_offset;
		key = __dwq_key_now(q, task, task->node.deadline);
		if (key > now)
			info->remaining_ns = key - now;
	}
	raw_spin_unlock_irqrestore(&q->lock, flags);
}
EXPORT_SYMBOL_GPL(dwq_query);

/*
 * Run quick @task, which the timer took while @w leads, in the timer's
 * context: the callback outside the lock, then the end of its run, as
 * dwq_worker_run() and dwq_task_finish() do on a worker. Drops @q->lock
 * and retakes it (the saved interrupt state is the timer's: on in the
 * softirq, off in hard irq context).
 */
static void __dwq_timer_run(struct dwq_queue *q, struct dwq_worker *w,
			    struct dwq_task *task, unsigned long *flags)
	__must_hold(&q->lock)
{
#ifdef CONFIG_LOCKDEP
	struct lockdep_map task_map;
#endif
	bool put, wake;
	u64 now;

	lockdep_assert_held(&q->lock);
	if (trace_dwq_fire_enabled()) {
		now = dwq_queue_now(q);
		trace_dwq_fire(q, task, w->id,
			       now > task->node.deadline ?
				       now - task->node.deadline :
				       0);
	}
	raw_spin_unlock_irqrestore(&q->lock, *flags);
	/*
	 * As on a worker, the queue's and the task's lock classes are "held"
	 * while the callback runs; the queue's is its timer's own class
	 * (@timer_lockdep_map, softirq or hard irq context), which
	 * dwq_queue_destroy() touches too. @task may be freed once its
	 * callback returns.
	 */
#ifdef CONFIG_LOCKDEP
	lockdep_copy_map(&task_map, &task->lockdep_map);
#endif
	lock_map_acquire(&q->timer_lockdep_map);
	dwq_task_map_acquire(&task_map, dwq_task_subclass(q, true));
	task->ops->func(task);
	lock_map_release(&task_map);
	lock_map_release(&q->timer_lockdep_map);
	raw_spin_lock_irqsave(&q->lock, *flags);
	put = __dwq_task_end(q, task, 0, true, &wake, NULL);
	if (put || wake) {
		raw_spin_unlock_irqrestore(&q->lock, *flags);
		/* The release function runs here: see dwq_task_set_quick(). */
		if (put)
			dwq_task_put(task);
		if (wake)
			wake_up_all(&q->done_wq);
		raw_spin_lock_irqsave(&q->lock, *flags);
	}
}

/*
 * One of the leader's timers, @timer, fired: see dwq_queue_timer(). @timer
 * is @q->timer, or @q->wake_timer, which runs no callback.
 */
static enum hrtimer_restart __dwq_queue_fired(struct dwq_queue *q,
					      struct hrtimer *timer)
{
	struct dwq_heap_node *head;
	struct dwq_task *task;
	struct dwq_worker *w;
	unsigned int runs = 0;
	unsigned long flags;
	u64 now = 0;

	raw_spin_lock_irqsave(&q->lock, flags);
	/*
	 * A moment known to be past, so that a due head takes no clock
	 * read: the soft expiry this run fired at. The timer is armed only
	 * under @q->lock, so it is that unless the timer was armed anew
	 * while this waited for the lock, and then it is queued again.
	 */
	if (!hrtimer_is_queued(timer))
		now = ktime_to_ns(hrtimer_get_softexpires(timer));
	for (;;) {
		w = q->leader;
		if (!w || q->leader_fired)
			break;
		head = __dwq_peek(q);
		/*
		 * Nothing queued (the task this was armed for was cancelled,
		 * or the quick ones ran): the leader sleeps on, untimed, and
		 * whoever queues the next task arms the timer for it
		 * (__dwq_queue_kick()). Waking it would only send it back to
		 * follow, and wake a follower to lead for the next task. No
		 * clock read: this holds whether or not the timer was armed
		 * anew meanwhile (if it was, it fires once more, for nothing).
		 */
		if (!head && !q->stopping) {
			q->leader_deadline = KTIME_MAX;
			q->leader_hard = KTIME_MAX;
			break;
		}
		if (now < q->leader_deadline || (head && head->deadline > now))
			now = dwq_queue_now(q);
		/* Moved later while this waited for the lock: armed again. */
		if (now < q->leader_deadline)
			break;
		/* Not due on its own clock after all: look again. */
		if (head && head->deadline <= now && __dwq_rekey_early(q, head))
			continue;
		task = head ? container_of(head, struct dwq_task, node) : NULL;
		/*
		 * The head is not due (the one this was armed for was
		 * cancelled or moved, or the quick ones ran): lead on for it,
		 * with nobody woken. For tracers, the leader leads anew.
		 */
		if (task && head->deadline > now) {
			__dwq_leader_arm(q, head->deadline,
					 dwq_task_latest(task), 0, task->quick);
			__dwq_front_promote(q);
			trace_dwq_leader(q, w->id, head->deadline);
			break;
		}
		if (!task || !task->quick || q->stopping || q->handoffs ||
		    runs >= DWQ_TIMER_RUN_MAX) {
			q->leader_fired = true;
			trace_dwq_wakeup(q, w->id, DWQ_TRACE_WAKE_TIMER);
			wake_up_process(w->thread);
			break;
		}
		/* Due and quick, in the hard timer: the soft one runs it. */
		if (timer == &q->wake_timer) {
			__dwq_leader_arm(q, head->deadline,
					 dwq_task_latest(task), 0, true);
			break;
		}
		task = __dwq_pop_head(q, w, now, true);
		__dwq_timer_run(q, w, task, &flags);
		runs++;
	}
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return HRTIMER_NORESTART;
}

/**
 * dwq_queue_timer() - the leader's timer fired
 * @timer: &dwq_queue.timer
 *
 * Runs the due quick tasks at the head right here, in the timer's context,
 * without waking anyone (at most %DWQ_TIMER_RUN_MAX, so that a burst cannot
 * hold the CPU), and moves the timer on to the next head. Wakes
 * the leader for anything else: a due task that is not quick, more than
 * %DWQ_TIMER_RUN_MAX, a follower on its way by hand-off, or a queue being
 * destroyed. With nothing queued, nobody is woken: the leader sleeps on
 * with the timer unarmed, until the next task is queued. A timer that fired
 * just as it was moved later (its callback waited for the lock meanwhile)
 * does neither: it is armed again.
 *
 * A task the timer runs is RUNNING with &dwq_task.run_worker
 * %DWQ_RUN_TIMER; the leader it counts for sleeps on. It cannot run on a
 * worker meanwhile: it is out of the heap until __dwq_task_end(), as on a
 * worker.
 *
 * Context: softirq context (HRTIMER_MODE_ABS_SOFT): the timer softirq, on
 *	PREEMPT_RT in its thread (ktimers, or ksoftirqd on older kernels);
 *	on a %DWQ_QUEUE_HARDIRQ queue (HRTIMER_MODE_ABS), hard irq context.
 * Return: %HRTIMER_NORESTART.
 */
static enum hrtimer_restart dwq_queue_timer(struct hrtimer *timer)
{
	return __dwq_queue_fired(container_of(timer, struct dwq_queue, timer),
				 timer);
}

/**
 * dwq_queue_wake_timer() - the leader's hard timer fired
 * @timer: &dwq_queue.wake_timer
 *
 * As dwq_queue_timer(), for a head that is not quick, on a queue whose
 * other timer is soft: wakes the leader from the timer interrupt. A quick
 * head found due here (the task it was armed for was cancelled, and a
 * quick one with the same deadline is next) is handed to the soft timer,
 * armed for now, where its callback may run.
 *
 * Context: hard irq context (HRTIMER_MODE_ABS_HARD), on PREEMPT_RT too:
 *	it takes only @q->lock, a raw spinlock, and wakes a thread.
 * Return: %HRTIMER_NORESTART.
 */
static enum hrtimer_restart dwq_queue_wake_timer(struct hrtimer *timer)
{
	return __dwq_queue_fired(container_of(timer, struct dwq_queue,
					      wake_timer),
				 timer);
}

/*
 * Every queue, so that a resume can re-key their CLOCK_BOOTTIME tasks: a
 * queue is on it from dwq_queue_create() until dwq_queue_destroy() begins.
 * The mutex protects the list.
 */
static LIST_HEAD(dwq_queues);
static DEFINE_MUTEX(dwq_queues_lock);

/**
 * dwq_queue_resumed() - re-key a queue's CLOCK_BOOTTIME tasks after a suspend
 * @q: the queue
 *
 * On a CLOCK_MONOTONIC queue, a task scheduled with %DWQ_SCHED_BOOTTIME is
 * keyed with the time spent in suspend when it was scheduled: after a
 * suspend its key, and the leader's timer, are late by the time suspended
 * since. Each such task queued is keyed anew with the time suspended now,
 * keeping its order among equal deadlines, and the leader's timer comes
 * in as for a task queued earlier (a task now due wakes the leader, or
 * runs in its timer if quick). Called for every queue when the system
 * resumes; running tasks are keyed anew when they are queued again.
 *
 * Context: process context; takes @q's lock.
 */
void dwq_queue_resumed(struct dwq_queue *q)
{
	struct dwq_heap_node *node, *head;
	struct dwq_task *task;
	unsigned long flags;
	unsigned int i;
	u64 key, old;
	s64 off;

	raw_spin_lock_irqsave(&q->lock, flags);
	head = __dwq_peek(q);
	if (q->clockid == CLOCK_BOOTTIME || q->stopping || !head)
		goto unlock;
	old = head->deadline;
	/* A lowered key may go before the front's: walk one heap of all. */
	__dwq_front_demote(q);
	/* One moment for all: the time suspended is read once. */
	off = dwq_clock_offset(q, true);
	/* Lowering a key moves only lower slots: each is passed once. */
	for (i = 0; i < dwq_heap_size(&q->heap); i++) {
		node = q->heap.slots[i].node;
		task = container_of(node, struct dwq_task, node);
		if (!task->boottime)
			continue;
		key = dwq_rekey_at(task, node->deadline, off);
		if (key == node->deadline)
			continue;
		dwq_heap_lower(&q->heap, node, key);
	}
	/*
	 * A head that changed or came earlier is kicked as a new head: the
	 * leader's timer comes in to its range, or the leader is woken if it
	 * is due, or a follower if nobody leads. A task lowered behind it,
	 * even one whose range ends earlier, may run as late as the head's
	 * latest (see &struct dwq_sched's @slack_ns): it needs no kick.
	 */
	node = __dwq_peek(q);
	if (node != head || node->deadline != old)
		__dwq_queue_kick(q, container_of(node, struct dwq_task, node),
				 true, dwq_queue_now(q));
unlock:
	raw_spin_unlock_irqrestore(&q->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_queue_resumed);

static int dwq_queues_pm_notify(struct notifier_block *nb, unsigned long action,
				void *data)
{
	struct dwq_queue *q;

	if (action != PM_POST_SUSPEND && action != PM_POST_HIBERNATION &&
	    action != PM_POST_RESTORE)
		return NOTIFY_DONE;
	mutex_lock(&dwq_queues_lock);
	list_for_each_entry(q, &dwq_queues, all)
		dwq_queue_resumed(q);
	mutex_unlock(&dwq_queues_lock);
	return NOTIFY_OK;
}

static struct notifier_block dwq_queues_pm_nb = {
	.notifier_call = dwq_queues_pm_notify,
};

/**
 * dwq_queues_init() - watch for resumes, for every queue's sake
 *
 * Context: process context, at module load, before any queue exists.
 * Return: 0, or the error of register_pm_notifier().
 */
int dwq_queues_init(void)
{
	return register_pm_notifier(&dwq_queues_pm_nb);
}

/**
 * dwq_queues_exit() - stop watching for resumes
 *
 * Context: process context, at module unload, once every queue is gone.
 */
void dwq_queues_exit(void)
{
	unregister_pm_notifier(&dwq_queues_pm_nb);
	WARN_ON(!list_empty(&dwq_queues));
}

/**
 * dwq_queue_create() - create a queue and start its workers
 * @name: a short name: the workers are "dwq/<id>" for "dwq", else
 *	"dwq-<name>/<id>", cut to the 15 characters of a task's comm
 * @workers: worker threads to start, 1 .. %DWQ_MAX_WORKERS
 * @flags: 0, or %DWQ_QUEUE_BOOTTIME (the heap keyed on CLOCK_BOOTTIME)
 *	and/or %DWQ_QUEUE_HARDIRQ (quick tasks run in hard irq context, see
 *	dwq_task_set_quick())
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
	if (!name || !*name ||
	    flags & ~(DWQ_QUEUE_BOOTTIME | DWQ_QUEUE_HARDIRQ) || !workers ||
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
	raw_spin_lock_init(&q->lock);
	dwq_heap_init(&q->heap, slots, DWQ_HEAP_MIN_CAPACITY);
	__dwq_queue_set_bounds(q);
	q->clockid = flags & DWQ_QUEUE_BOOTTIME ? CLOCK_BOOTTIME :
						  CLOCK_MONOTONIC;
	q->far_ns = DWQ_FAR_NS;
	INIT_LIST_HEAD(&q->followers);
	q->handoff_grace = DWQ_HANDOFF_GRACE_NS;
	/* On PREEMPT_RT, a hard timer could not take sleeping locks. */
	q->hardirq = flags & DWQ_QUEUE_HARDIRQ &&
		     !IS_ENABLED(CONFIG_PREEMPT_RT);
	/*
	 * Not HRTIMER_MODE_ABS_HARD, which promises callbacks that take
	 * only raw spinlocks (lockdep's PROVE_RAW_LOCK_NESTING holds it to
	 * that): HRTIMER_MODE_ABS expires in hard irq context just the
	 * same, as a timerfd's timer does, and allows a wakeup's spinlock_t.
	 */
	q->timer_mode = q->hardirq ? HRTIMER_MODE_ABS : HRTIMER_MODE_ABS_SOFT;
	hrtimer_setup(&q->timer, dwq_queue_timer, q->clockid, q->timer_mode);
	hrtimer_setup(&q->wake_timer, dwq_queue_wake_timer, q->clockid,
		      HRTIMER_MODE_ABS_HARD);
	init_waitqueue_head(&q->done_wq);
	INIT_WORK(&q->resize_work, dwq_queue_resize_work);
	strscpy(q->name, name, sizeof(q->name));
#ifdef CONFIG_LOCKDEP
	lockdep_register_key(&q->lockdep_key);
	snprintf(q->lockdep_name, sizeof(q->lockdep_name), "(dwq_queue)%s",
		 q->name);
	lockdep_init_map(&q->lockdep_map, q->lockdep_name, &q->lockdep_key, 0);
	lockdep_register_key(&q->timer_lockdep_key);
	snprintf(q->timer_lockdep_name, sizeof(q->timer_lockdep_name),
		 "(dwq_timer)%s", q->name);
	lockdep_init_map(&q->timer_lockdep_map, q->timer_lockdep_name,
			 &q->timer_lockdep_key, 0);
#endif

	err = dwq_workers_start(q, workers);
	if (err)
		goto err_slots;
	raw_spin_lock_irq(&q->lock);
	q->nr_workers = workers;
	raw_spin_unlock_irq(&q->lock);
	mutex_lock(&dwq_queues_lock);
	list_add(&q->all, &dwq_queues);
	mutex_unlock(&dwq_queues_lock);
	return q;

err_slots:
#ifdef CONFIG_LOCKDEP
	lockdep_unregister_key(&q->timer_lockdep_key);
	lockdep_unregister_key(&q->lockdep_key);
#endif
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
 * For lockdep, this "takes" the queue's lock class, which its workers hold
 * while they run a callback or a release function, so that calling it
 * under a lock that one of them takes is reported, as destroy_workqueue()
 * does.
 *
 * Context: process context, softirqs on; sleeps. Not from one of @q's
 * callbacks (on a worker or in the queue's timer).
 */
void dwq_queue_destroy(struct dwq_queue *q, unsigned int policy)
{
	struct dwq_heap_node *node;
	struct dwq_task *task;
	bool put;

	might_sleep();
	/* A quick callback, on a worker or in the timer this waits for. */
	if (WARN_ON(dwq_queue_is_worker(q) || in_softirq() || irqs_disabled()))
		return;
	WARN_ON(policy > DWQ_DESTROY_RUN_DUE);
	/*
	 * As destroy_workqueue(): a callback may not need a lock we hold.
	 * The timer's class is "held" in softirq (or hard irq) context, so
	 * touched with softirqs (or interrupts) off.
	 */
	lock_map_acquire(&q->lockdep_map);
	lock_map_release(&q->lockdep_map);
	dwq_quick_enter(q);
	lock_map_acquire(&q->timer_lockdep_map);
	lock_map_release(&q->timer_lockdep_map);
	dwq_quick_leave(q);

	mutex_lock(&dwq_queues_lock);
	list_del(&q->all);
	mutex_unlock(&dwq_queues_lock);
	raw_spin_lock_irq(&q->lock);
	q->stopping = true;
	if (policy == DWQ_DESTROY_RUN_DUE) {
		q->run_due = true;
		q->run_due_before = dwq_queue_now(q);
	}
	/* Stopping is prompt: wake everyone, the leader on its timer too. */
	if (q->leader)
		wake_up_process(q->leader->thread);
	while (__dwq_wake_follower(q, false))
		;
	raw_spin_unlock_irq(&q->lock);

	/*
	 * Waits for every running callback, and the due ones if asked. The
	 * timer runs no more tasks once it sees @stopping, but may still run
	 * the one it took before: hrtimer_cancel() waits for that, and once
	 * the workers are gone nobody arms the timer again (only a leader's
	 * sleep does).
	 */
	dwq_workers_stop(q);
	hrtimer_cancel(&q->timer);
	hrtimer_cancel(&q->wake_timer);
	cancel_work_sync(&q->resize_work);

	/*
	 * Nobody takes tasks any more. Drop the rest one at a time: their
	 * release functions must run outside the lock.
	 */
	for (;;) {
		raw_spin_lock_irq(&q->lock);
		node = __dwq_pop(q);
		if (!node) {
			raw_spin_unlock_irq(&q->lock);
			break;
		}
		task = container_of(node, struct dwq_task, node);
		put = __dwq_task_unbind(q, task, DWQ_STATE_CANCELLED);
		raw_spin_unlock_irq(&q->lock);
		if (put)
			dwq_task_put(task);
	}

	/*
	 * Leftovers would be dwq bugs, or a caller racing with us: the workers
	 * are gone, so nobody leads or waits on @followers, and nobody may still
	 * wait in dwq_cancel_sync().
	 */
	WARN_ON(q->leader || q->handoffs || q->reserved || q->nr_workers);
	/* No barrier: every waiter left before kthread_stop() returned. */
	WARN_ON(!list_empty(&q->followers) || waitqueue_active(&q->done_wq));
#ifdef CONFIG_LOCKDEP
	lockdep_unregister_key(&q->timer_lockdep_key);
	lockdep_unregister_key(&q->lockdep_key);
#endif
	kvfree(q->heap.slots);
	kfree(q->workers);
	kfree(q);
}
EXPORT_SYMBOL_GPL(dwq_queue_destroy);

/* dwq_queue_get_stats() under @q->lock, held by the caller. */
static void __dwq_queue_get_stats(struct dwq_queue *q,
				  struct dwq_queue_stats *st)
{
	struct dwq_worker_stats *sum = &st->total, *ws;
	unsigned int i;

	lockdep_assert_held(&q->lock);
	memset(st, 0, sizeof(*st));
	st->size = __dwq_queued(q);
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
}

/**
 * dwq_queue_get_stats() - a snapshot of a queue's size and counters
 * @q: the queue
 * @st: filled in
 *
 * Context: any context, on PREEMPT_RT too.
 */
void dwq_queue_get_stats(struct dwq_queue *q, struct dwq_queue_stats *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&q->lock, flags);
	__dwq_queue_get_stats(q, st);
	raw_spin_unlock_irqrestore(&q->lock, flags);
}
EXPORT_SYMBOL_GPL(dwq_queue_get_stats);

/**
 * dwq_queue_get_worker_stats() - the counters of one worker
 * @q: the queue
 * @id: the worker's id, 0 .. workers - 1 (it may have been stopped)
 * @st: filled in
 *
 * Context: any context, on PREEMPT_RT too.
 * Return: 0, or -EINVAL if @q never had a worker @id.
 */
int dwq_queue_get_worker_stats(struct dwq_queue *q, unsigned int id,
			       struct dwq_worker_stats *st)
{
	unsigned long flags;

	if (id >= q->max_workers)
		return -EINVAL;
	raw_spin_lock_irqsave(&q->lock, flags);
	*st = q->workers[id].stats;
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(dwq_queue_get_worker_stats);

/**
 * dwq_worker_thread() - the thread of a worker, if it still runs
 * @w: the worker
 *
 * Context: any context, on PREEMPT_RT too.
 * Return: its kthread, or NULL once it was stopped.
 */
struct task_struct *dwq_worker_thread(struct dwq_worker *w)
{
	struct dwq_queue *q = w->queue;
	struct task_struct *t;
	unsigned long flags;

	raw_spin_lock_irqsave(&q->lock, flags);
	t = w->thread;
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return t;
}

/**
 * dwq_worker_stopped() - a worker's thread has exited: forget it
 * @w: the worker, whose kthread_stop() returned
 *
 * Context: process context.
 */
void dwq_worker_stopped(struct dwq_worker *w)
{
	struct dwq_queue *q = w->queue;

	raw_spin_lock_irq(&q->lock);
	WRITE_ONCE(w->thread, NULL);
	q->nr_workers--;
	raw_spin_unlock_irq(&q->lock);
}

static const char *const dwq_worker_state_names[] = {
	[DWQ_WORKER_IDLE] = "idle",
	[DWQ_WORKER_LEADER] = "leader",
	[DWQ_WORKER_FOLLOWER] = "follower",
	[DWQ_WORKER_RUNNING] = "running",
};

static const char *const dwq_mode_names[] = {
	[DWQ_MODE_ONESHOT] = "oneshot",
	[DWQ_MODE_FIXED_RATE] = "rate",
	[DWQ_MODE_FIXED_DELAY] = "delay",
};

static const char *__dwq_worker_state_name(const struct dwq_worker *w)
{
	lockdep_assert_held(&w->queue->lock);
	if (!w->thread)
		return "stopped";
	if (w->state >= ARRAY_SIZE(dwq_worker_state_names))
		return "?";
	return dwq_worker_state_names[w->state];
}

/**
 * dwq_queue_show_stats() - print a queue's size and summed counters
 * @q: the queue
 * @m: where to, one "name value" line each
 *
 * A snapshot taken under @q->lock, for debugfs.
 *
 * Context: process context.
 */
void dwq_queue_show_stats(struct dwq_queue *q, struct seq_file *m)
{
	struct dwq_queue_stats st;
	unsigned int reserved, room, handoffs;
	u64 until, hard, grace, timer = 0;
	bool fired, armed = false, running = false;

	raw_spin_lock_irq(&q->lock);
	__dwq_queue_get_stats(q, &st);
	reserved = q->reserved;
	room = q->room;
	handoffs = q->handoffs;
	grace = q->handoff_grace;
	until = q->leader ? q->leader_deadline : KTIME_MAX;
	hard = q->leader_hard;
	fired = q->leader_fired;
	/* Armed and started only under the lock: this is how they stand. */
	if (q->armed) {
		armed = hrtimer_is_queued(q->armed);
		timer = ktime_to_ns(hrtimer_get_softexpires(q->armed));
		running = hrtimer_callback_running(q->armed);
	}
	raw_spin_unlock_irq(&q->lock);

	seq_printf(m, "queue %s\n", q->name);
	seq_printf(m, "clock %s\n",
		   q->clockid == CLOCK_BOOTTIME ? "boottime" : "monotonic");
	seq_printf(m, "now %llu\n", dwq_queue_now(q));
	seq_printf(m, "size %u\n", st.size);
	seq_printf(m, "capacity %u\n", st.capacity);
	seq_printf(m, "reserved %u\n", reserved);
	seq_printf(m, "room %u\n", room);
	seq_printf(m, "workers %u\n", st.workers);
	seq_printf(m, "leader %d\n", st.leader);
	seq_printf(m, "handoffs %u\n", handoffs);
	seq_printf(m, "handoff_grace_ns %llu\n", grace);
	/*
	 * The range the leader's timer was last armed or moved for, and
	 * "fired" once the leader was woken (by the timer, or for a task
	 * queued already due) and has yet to come back for the head; then
	 * when the timer fires (none while unarmed).
	 */
	if (until == KTIME_MAX)
		seq_puts(m, "leader_until none\n");
	else
		seq_printf(m, "leader_until %llu %llu%s\n", until, hard,
			   fired ? " fired" : "");
	if (armed)
		seq_printf(m, "timer %llu%s\n", timer,
			   running ? " running" : "");
	else
		seq_printf(m, "timer none%s\n", running ? " running" : "");
	seq_printf(m, "timed_waits %llu\n", st.total.timed_waits);
	seq_printf(m, "untimed_waits %llu\n", st.total.untimed_waits);
	seq_printf(m, "wakeups %llu\n", st.total.wakeups);
	seq_printf(m, "spurious_wakeups %llu\n", st.total.spurious_wakeups);
	seq_printf(m, "tasks_run %llu\n", st.total.tasks_run);
	seq_printf(m, "leader_changes %llu\n", st.total.leader_changes);
}

/**
 * dwq_queue_show_workers() - print one line per worker: state, counters
 * @q: the queue
 * @m: where to
 *
 * A snapshot taken under @q->lock, for debugfs.
 *
 * Context: process context.
 */
void dwq_queue_show_workers(struct dwq_queue *q, struct seq_file *m)
{
	struct dwq_worker *w;
	unsigned int i;

	seq_puts(m, "id state timed_waits untimed_waits wakeups ");
	seq_puts(m, "spurious_wakeups tasks_run leader_changes\n");
	/* seq_file's buffer is preallocated: printing under a spinlock is fine. */
	raw_spin_lock_irq(&q->lock);
	for (i = 0; i < q->max_workers; i++) {
		w = &q->workers[i];
		seq_printf(m, "%u %s %llu %llu %llu %llu %llu %llu\n", w->id,
			   __dwq_worker_state_name(w), w->stats.timed_waits,
			   w->stats.untimed_waits, w->stats.wakeups,
			   w->stats.spurious_wakeups, w->stats.tasks_run,
			   w->stats.leader_changes);
	}
	raw_spin_unlock_irq(&q->lock);
}

/* One line of dwq_queue_show_heap(): @node in slot @slot. */
static void __dwq_show_task(struct dwq_queue *q, struct seq_file *m,
			    const char *slot, const struct dwq_heap_node *node)
{
	const struct dwq_task *task = container_of(node, struct dwq_task, node);
	const char *mode = task->mode < ARRAY_SIZE(dwq_mode_names) ?
				   dwq_mode_names[task->mode] :
				   "?";

	lockdep_assert_held(&q->lock);
	seq_printf(m, "%s %llu %llu %s %ps", slot, node->deadline,
		   task->period_ns, mode, task->ops->func);
	if (q->describe)
		q->describe(m, task);
	seq_putc(m, '\n');
}

/**
 * dwq_queue_show_heap() - print a queue's queued tasks in slot order
 * @q: the queue
 * @m: where to: slot, deadline, period, mode and owner (the callback, and
 *	what dwq_queue_set_describe() adds)
 * @max: print at most this many tasks, then how many more there are
 *
 * The head first: the task in the front slot ("front"), if any, then the
 * heap's array from slot 0. A snapshot taken under @q->lock, for debugfs.
 *
 * Context: process context.
 */
void dwq_queue_show_heap(struct dwq_queue *q, struct seq_file *m,
			 unsigned int max)
{
	unsigned int i, n, nr;
	char slot[12];

	raw_spin_lock_irq(&q->lock);
	nr = __dwq_queued(q);
	n = min(nr, max);
	seq_printf(m, "# %u tasks, capacity %u, showing %u; now %llu\n", nr,
		   q->heap.cap, n, dwq_queue_now(q));
	seq_puts(m, "slot deadline period mode owner\n");
	if (q->front && n) {
		__dwq_show_task(q, m, "front", q->front);
		n--;
	}
	for (i = 0; i < n; i++) {
		snprintf(slot, sizeof(slot), "%u", i);
		__dwq_show_task(q, m, slot, q->heap.slots[i].node);
	}
	if (nr > min(nr, max))
		seq_printf(m, "# %u more not shown\n", nr - min(nr, max));
	raw_spin_unlock_irq(&q->lock);
}

/**
 * dwq_queue_set_describe() - say who owns the tasks of a queue's heap dump
 * @q: the queue
 * @describe: called under @q->lock for each task dwq_queue_show_heap()
 *	prints, to add to its line (" pid=... id=..."); it must not sleep and
 *	must ignore tasks it does not know. NULL for none.
 *
 * Context: any context, on PREEMPT_RT too.
 */
void dwq_queue_set_describe(struct dwq_queue *q,
			    void (*describe)(struct seq_file *m,
					     const struct dwq_task *task))
{
	unsigned long flags;

	raw_spin_lock_irqsave(&q->lock, flags);
	q->describe = describe;
	raw_spin_unlock_irqrestore(&q->lock, flags);
}
