/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq: a delayed work queue on an indexed min-heap, run by a pool of
 * kthreads with Java DelayedWorkQueue's leader/follower take().
 *
 * This is the in-kernel API. A user embeds a &struct dwq_task in its own
 * object, initialises it once with dwq_task_init() and then schedules it on
 * a &struct dwq_queue, once or periodically; the callback runs on one of
 * the queue's workers, in process context, and may sleep. A task declared
 * quick (dwq_task_set_quick()) runs with softirqs off instead, usually
 * right in the queue's timer, with no worker woken.
 *
 * Scheduling, moving and cancelling (dwq_schedule(), dwq_mod(),
 * dwq_reduce(), dwq_reschedule(), dwq_cancel() and their batches) work in
 * any context: hard and soft interrupt context, under spinlocks and raw
 * spinlocks, with interrupts on or off, on PREEMPT_RT too. They never
 * sleep and never allocate: the queue's lock is a raw spinlock taken with
 * interrupts saved, and the heap's room is made ahead, by
 * dwq_queue_reserve() (to measure) and by a background growth that
 * keeps a quarter of the heap free for tasks beyond the reservations.
 * When there is no room they fail with -ENOSPC, change nothing and make
 * the heap grow in the background. Only dwq_cancel_sync(), dwq_queue_reserve(), dwq_queue_create()
 * and dwq_queue_destroy() may sleep.
 *
 * Tasks are reference counted. The caller's reference comes from
 * dwq_task_init(); the queue holds one more for as long as the task is
 * queued or its callback is running, so a cancel that races with the task
 * firing never touches freed memory. When the last reference goes, the
 * task's release function (if any) is called, typically to free the
 * object the task is embedded in.
 *
 * Clocks: every queue keys its heap on one clock, CLOCK_MONOTONIC unless it
 * was created with DWQ_QUEUE_BOOTTIME. A task scheduled on the other clock
 * (%DWQ_SCHED_BOOTTIME on a monotonic queue, or plain on a boottime queue)
 * has its
 * deadline converted with the offset between the two clocks at the moment
 * it is scheduled (or rescheduled). On a monotonic queue a CLOCK_BOOTTIME
 * task's key is then late by any time suspended since: when the system
 * resumes, every such task queued is keyed anew with the time suspended
 * (a running one when it is queued again), so it runs at its
 * CLOCK_BOOTTIME deadline, or at the resume if that passed during the
 * suspend. A CLOCK_BOOTTIME deadline may come before the time suspended
 * so far (after a suspend longer than the time the system has run): it is
 * due, it is the deadline dwq_query() and the run report, and a fixed-rate
 * task counts its periods from it. On a boottime queue a plain task's key
 * comes early after a suspend; when it is due by that key it is checked on
 * CLOCK_MONOTONIC, and keyed anew with the time suspended since if it is
 * not due there: it never runs before its deadline.
 *
 * Callers must not race dwq_queue_destroy() with any other call on that
 * queue or on its tasks, exactly as with destroy_workqueue().
 */
#ifndef _DWQ_H
#define _DWQ_H

#include <linux/kref.h>
#include <linux/lockdep_types.h>
#include <linux/types.h>
#include <uapi/linux/dwq.h>

/*
 * The heap node is embedded in every task, so its layout is part of this
 * API; the heap itself stays private to dwq.ko.
 */
/**
 * struct dwq_heap_node - a member of a &struct dwq_heap
 * @deadline: the primary key (ns, any monotonic clock the caller uses)
 * @seq: the tie-breaker, assigned on insert and update from the heap
 * @index: the slot the node occupies, or -1 when it is not in a heap
 * @aux: 32 bits of the object the node is embedded in: the heap never
 *	reads or writes them (they would be the node's padding)
 *
 * Embed it in the object being ordered. @deadline, @seq and @index are
 * owned by the heap functions while the node is queued: read them, do not
 * write them. Out of a heap, the node is its owner's.
 */
struct dwq_heap_node {
	u64 deadline;
	u64 seq;
	int index;
	u32 aux;
};

struct dwq_queue;
struct dwq_worker;

/* Most workers a queue can have. */
#define DWQ_MAX_WORKERS 64U

/* &dwq_task.run_worker of a task that the queue's timer runs */
#define DWQ_RUN_TIMER 0xffU

/* dwq_queue_create() flags */
#define DWQ_QUEUE_BOOTTIME 0x1U /* key the heap on CLOCK_BOOTTIME */
#define DWQ_QUEUE_HARDIRQ 0x2U /* quick tasks run in hard irq context */

/* dwq_queue_destroy() policies */
#define DWQ_DESTROY_DROP 0U /* drop every pending task */
#define DWQ_DESTROY_RUN_DUE 1U /* first run the tasks already due */

/*
 * Modes (DWQ_MODE_*), schedule flags (DWQ_SCHED_ABS, DWQ_SCHED_BOOTTIME,
 * DWQ_RESCHED_PERIOD), task states (DWQ_STATE_*) and cancel results
 * (DWQ_RESULT_*) are those of the user-space ABI: one set of names and
 * values for both sides, defined in <uapi/linux/dwq.h>.
 */

/*
 * What dwq_cancel() returns for a task that was neither queued nor
 * running. Kernel API only: /dev/dwq answers -ENOENT (or
 * %DWQ_RESULT_NOENT in a batch) for a task it no longer has.
 */
#define DWQ_RESULT_IDLE 0

/* Most tasks one dwq_schedule_batch() takes. */
#define DWQ_BATCH_MAX 1024U

/**
 * struct dwq_sched - when and how often a task runs
 * @time_ns: a delay in ns from now, or with %DWQ_SCHED_ABS an absolute deadline
 *	in ns on the task's clock (a deadline in the past means now); at most
 *	KTIME_MAX either way
 * @period_ns: the period of a periodic task; must be 0 for a one-shot
 * @mode: an DWQ_MODE_* value
 * @flags: %DWQ_SCHED_ABS, %DWQ_SCHED_BOOTTIME (the task's clock is CLOCK_BOOTTIME, not
 *	CLOCK_MONOTONIC) and, for dwq_reschedule() only, %DWQ_RESCHED_PERIOD
 * @slack_ns: how late the task may run, so that the tasks due close together
 *	run in one wakeup: the queue's leader sleeps until the earliest
 *	deadline plus that task's slack (an hrtimer range) and then runs every
 *	task already due. 0: none, the timer is armed for the deadline
 *	itself, as an hrtimer without a range is. A
 *	task never runs before its deadline. The timer is armed to fire by
 *	its deadline plus slack, or later only when a task due before it
 *	has more slack, by that task's deadline plus slack. A worker runs it
 *	then if one is free; when its deadline comes while the worker that
 *	would lead still runs an ordinary (not quick) callback, a free
 *	worker is woken for it up to 50 us later (the hand-off grace, in
 *	which that callback usually returns and takes it itself; more, up to
 *	1 ms, on a machine where woken workers have been slower to come). A task
 *	keeps at most U32_MAX ns (about 4.3 s) of it: more counts as that.
 */
struct dwq_sched {
	u64 time_ns;
	u64 period_ns;
	u32 mode;
	u32 flags;
	u64 slack_ns;
};

struct dwq_task;

/**
 * struct dwq_task_ops - what a task does, and what frees it
 * @func: the callback; runs on a worker in process context and may sleep
 *	(a quick task's runs with softirqs off, usually in the queue's timer,
 *	see dwq_task_set_quick())
 * @release: called with the task when its last reference is dropped (by
 *	dwq_task_put(), or by dwq when it lets go of the task: from a worker,
 *	from the queue's timer for a quick task (softirq, or hard irq on a
 *	%DWQ_QUEUE_HARDIRQ queue), from dwq_cancel*() or from
 *	dwq_queue_destroy()), typically to free the object; may be NULL
 *
 * One per kind of task, shared by all of them and never written: each
 * dwq_task_init() call site makes its own, static and const.
 */
struct dwq_task_ops {
	void (*func)(struct dwq_task *task);
	void (*release)(struct dwq_task *task);
};

/**
 * struct dwq_task - a timed task; embed it in your object
 * @node: its place in the queue's heap. Out of the heap, while the task
 *	runs, @node.seq holds the key that dwq_reschedule() or dwq_mod() set
 *	for its next run (see @resched); @node.aux holds its slack in ns
 *	(see &dwq_sched.slack_ns), which is at most U32_MAX
 * @ref: the reference count, see dwq_task_get() and dwq_task_put()
 * @state: an DWQ_STATE_* value
 * @mode: an DWQ_MODE_* value
 * @stop: a periodic task cancelled while running: do not queue it again
 * @resched: dwq_reschedule() or dwq_mod() while running: the next key is in
 *	@node.seq
 * @boottime: the task's clock is CLOCK_BOOTTIME
 * @reserved: it holds one of the queue's reserved heap slots while running
 * @quick: its callback is short, see dwq_task_set_quick()
 * @canceling: dwq_cancel_sync() callers waiting, at most U8_MAX (more
 *	wait for a place); refuses scheduling
 * @run_worker: the id of the worker running it, or %DWQ_RUN_TIMER when
 *	the queue's timer runs it (see dwq_task_run_worker()); a byte of its
 *	own, which the callback reads without the lock
 * @ops: its callback and release function
 * @queue: the queue while the task is queued or running, else NULL
 * @period_ns: the period of a periodic task
 * @clock_offset: the task's clock minus the queue's clock, in ns, as it
 *	was when the task was last scheduled, rescheduled or keyed anew after
 *	a suspend; for a CLOCK_BOOTTIME deadline before the time suspended so
 *	far, whose key is 0, the deadline itself: key plus offset is always
 *	the deadline on the task's clock
 * @lockdep_map: "held" while the callback runs and touched by
 *	dwq_cancel_sync(), so that lockdep sees a cancel_sync() called under
 *	a lock the callback takes; one lock class per dwq_task_init() call site
 *
 * All fields are private to dwq: use the functions below. While the task
 * is queued or running they are protected by its queue's lock. Without
 * lockdep a task is 64 bytes, a cache line: what a pending timer costs,
 * with the 16 bytes of its heap slot. What only a running callback needs
 * (its deadline, the periods it coalesced) is kept by whoever runs it.
 */
struct dwq_task {
	struct dwq_heap_node node;
	struct kref ref;
	u8 state;
	u8 mode : 2;
	u8 stop : 1;
	u8 resched : 1;
	u8 boottime : 1;
	u8 reserved : 1;
	u8 quick : 1;
	u8 canceling;
	u8 run_worker;
	const struct dwq_task_ops *ops;
	struct dwq_queue *queue;
	u64 period_ns;
	s64 clock_offset;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map lockdep_map;
#endif
};

/**
 * struct dwq_task_info - a snapshot of a task, from dwq_query()
 * @state: an DWQ_STATE_* value
 * @mode: an DWQ_MODE_* value
 * @flags: %DWQ_SCHED_BOOTTIME if the task's clock is CLOCK_BOOTTIME; while
 *	it runs, if its run's is (the clock @deadline_ns is on: a
 *	dwq_reschedule() or dwq_mod() during the run sets its next run's)
 * @remaining_ns: ns until the next deadline if queued (0 when due or
 *	overdue, and in every other state)
 * @deadline_ns: on the task's clock, the next deadline if queued, the
 *	deadline of the current run if running, else 0
 * @period_ns: the period (0 for a one-shot)
 *
 * A callback counts its runs itself, if it needs them: the task keeps no
 * counters, so that it stays small (see &struct dwq_task).
 */
struct dwq_task_info {
	u32 state;
	u32 mode;
	u32 flags;
	u64 remaining_ns;
	u64 deadline_ns;
	u64 period_ns;
};

/**
 * struct dwq_worker_stats - what the workers of a queue did
 * @timed_waits: sleeps as the leader, until the head's deadline
 * @untimed_waits: sleeps as a follower, without a timeout
 * @wakeups: returns from either sleep (a quick task its timer runs, see
 *	dwq_task_set_quick(), costs the leader none)
 * @spurious_wakeups: wakeups that found nothing to do: no task due and
 *	no head to lead for, so the worker went back to an untimed wait.
 *	(A follower woken to become the leader, or a voided leader woken to
 *	lead for an earlier head, has something to do.)
 * @tasks_run: callbacks run, by the worker or, while it led, by the
 *	queue's timer
 * @leader_changes: times the worker became the leader
 */
struct dwq_worker_stats {
	u64 timed_waits;
	u64 untimed_waits;
	u64 wakeups;
	u64 spurious_wakeups;
	u64 tasks_run;
	u64 leader_changes;
};

/**
 * struct dwq_queue_stats - a snapshot of a queue, from dwq_queue_get_stats()
 * @size: tasks queued
 * @capacity: slots in the heap's array
 * @workers: worker threads running
 * @leader: the id of the leader worker, or -1 when there is none
 * @total: the sum over all workers, including stopped ones
 */
struct dwq_queue_stats {
	unsigned int size;
	unsigned int capacity;
	unsigned int workers;
	int leader;
	struct dwq_worker_stats total;
};

struct dwq_queue *dwq_queue_create(const char *name, unsigned int workers,
				   unsigned int flags);
void dwq_queue_destroy(struct dwq_queue *q, unsigned int policy);
void dwq_queue_get_stats(struct dwq_queue *q, struct dwq_queue_stats *st);
int dwq_queue_get_worker_stats(struct dwq_queue *q, unsigned int id,
			       struct dwq_worker_stats *st);

int dwq_queue_reserve(struct dwq_queue *q, unsigned int n);
void dwq_queue_unreserve(struct dwq_queue *q, unsigned int n);

void dwq_task_init_key(struct dwq_task *task, const struct dwq_task_ops *ops,
		       struct lock_class_key *key, const char *name);

/**
 * dwq_task_init() - initialise a task before its first use
 * @task: the task, normally embedded in the caller's object
 * @fn: the callback, see &dwq_task_ops.func; a function's name
 * @rel: the release function, see &dwq_task_ops.release; a function's
 *	name, or NULL. After dwq_cancel() where sleeping is not allowed,
 *	dropping one's own reference with dwq_task_put() frees the object
 *	through it once a running callback has returned
 *
 * The caller holds the first reference. Every call site is its own lock
 * class for lockdep (as INIT_WORK()'s are), named after @fn, and has its
 * own &struct dwq_task_ops, static and const: @fn and @rel must be
 * constants (functions, or NULL for @rel).
 *
 * Context: any context.
 */
#define dwq_task_init(task, fn, rel)                                    \
	do {                                                            \
		static struct lock_class_key dwq_task_key_;             \
		static const struct dwq_task_ops dwq_task_ops_ = {      \
			.func = (fn),                                   \
			.release = (rel),                               \
		};                                                      \
		dwq_task_init_key(task, &dwq_task_ops_, &dwq_task_key_, \
				  "(dwq_task)" #fn);                    \
	} while (0)

void dwq_task_put(struct dwq_task *task);

int dwq_schedule(struct dwq_queue *q, struct dwq_task *task,
		 const struct dwq_sched *s);
int dwq_mod(struct dwq_queue *q, struct dwq_task *task,
	    const struct dwq_sched *s);
int dwq_reduce(struct dwq_queue *q, struct dwq_task *task,
	       const struct dwq_sched *s);
int dwq_schedule_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
		       const struct dwq_sched *s, unsigned int n);
int dwq_cancel(struct dwq_task *task);
void dwq_cancel_batch(struct dwq_queue *q, struct dwq_task *const *tasks,
		      unsigned int n, int *ret);
int __must_check dwq_cancel_sync(struct dwq_task *task);
int dwq_reschedule(struct dwq_task *task, const struct dwq_sched *s);
void dwq_query(struct dwq_task *task, struct dwq_task_info *info);

/**
 * dwq_task_get() - take a reference to a task
 * @task: the task
 *
 * Context: any context.
 */
static inline void dwq_task_get(struct dwq_task *task)
{
	kref_get(&task->ref);
}

/**
 * dwq_task_set_quick() - promise that a task's callback is short
 * @task: the task, neither queued nor running
 * @quick: true if the callback never sleeps and returns within a few
 *	microseconds; false (the default of dwq_task_init()) otherwise
 *
 * A quick task that comes due while a worker leads the queue (sleeps on
 * the queue's timer) runs in that timer's context, with no worker woken:
 * softirq context, the timer softirq (on PREEMPT_RT its thread, ktimers or
 * ksoftirqd). As timerfd's timer posts its expiration, so a callback that
 * wakes someone gets there with that one wakeup. It counts as run by the
 * leader (dwq_task_run_worker(), &dwq_worker_stats.tasks_run), which
 * sleeps on. The timer runs at most 16 due quick tasks per expiry and
 * wakes the leader for more, or for a task that is not quick; a worker
 * runs a quick task with softirqs off (local_bh_disable()), so that it
 * always runs in one context for lockdep.
 *
 * So a quick callback must not sleep, must take the locks it shares with
 * process context with softirqs off there (spin_lock_bh() or irqsave),
 * and its task's release function, which may run in the timer when the
 * callback drops the last reference, must be fine in softirq context
 * (kfree() is; defer to a work item what needs process context). It may
 * call every dwq function but those that sleep: dwq_cancel_sync() (which
 * says -EDEADLK there), dwq_queue_create(), dwq_queue_reserve() and
 * dwq_queue_destroy(). A
 * worker running a quick task arms no hand-off timer.
 *
 * On a queue created with %DWQ_QUEUE_HARDIRQ, the timer expires in hard
 * irq context (HRTIMER_MODE_ABS, as a timerfd's) and its quick tasks run
 * there, as a timerfd's expiry does, with no timer softirq in between;
 * a worker runs them with interrupts off. Their callbacks and release
 * functions must then be fine in hard irq context: irqsave spinlocks,
 * no work that takes long. On PREEMPT_RT the flag does
 * nothing: the timer and its quick tasks stay in the timer softirq's
 * thread, where sleeping spinlocks may be taken.
 *
 * Context: any context.
 */
static inline void dwq_task_set_quick(struct dwq_task *task, bool quick)
{
	task->quick = quick;
}

u64 dwq_task_run_deadline(const struct dwq_task *task);
u64 dwq_task_run_overruns(const struct dwq_task *task);
bool dwq_task_run_boottime(const struct dwq_task *task);
bool dwq_task_run_oneshot(const struct dwq_task *task);
int dwq_task_run_worker(const struct dwq_task *task);

#endif /* _DWQ_H */
