/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq private declarations, shared by the files of dwq.ko and by its KUnit
 * module. Nothing here is ABI.
 *
 * Locking: see the comment above each lock where it is declared.
 */
#ifndef _DWQ_INTERNAL_H
#define _DWQ_INTERNAL_H

#include <linux/bottom_half.h>
#include <linux/hrtimer.h>
#include <linux/irqflags.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/miscdevice.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>
#include <dwq.h>

#include "heap.h"

struct seq_file;

/**
 * struct dwq_dev - one character device instance
 * @misc: the registered misc device; @misc.name is its /dev name
 * @q: the queue the tasks of its open files run on
 *
 * dwq.ko registers one instance, /dev/dwq, at load time. Tests register
 * more under other names.
 */
struct dwq_dev {
	struct miscdevice misc;
	struct dwq_queue *q;
};

struct dwq_dev *dwq_dev_create(const char *name, umode_t mode,
			       struct dwq_queue *q);
void dwq_dev_destroy(struct dwq_dev *dev);
#if IS_ENABLED(CONFIG_KUNIT)
void dwq_dev_kunit_set_last_id(struct file *file, u64 id);
void dwq_dev_kunit_charged(struct file *file, int *all, int *user);
void dwq_dev_kunit_spares(struct file *file, unsigned int *spares,
			  unsigned int *slots);
void dwq_dev_kunit_ids(struct file *file, unsigned int *nr,
		       unsigned int *buckets);
void dwq_dev_kunit_run(struct file *file, unsigned int *run, unsigned int *heap,
		       unsigned int *ring);
void dwq_dev_kunit_room(struct file *file, unsigned int clock,
			unsigned int *counted, unsigned int *periodic,
			unsigned int *held, unsigned int *cap);
struct dwq_heap_node **dwq_ring_alloc(unsigned int n);
int dwq_dev_kunit_schedule_at(struct file *file, u64 deadline, u64 moment,
			      u64 *id);
void dwq_dev_kunit_alarm(struct file *file, unsigned int clock,
			 struct dwq_task_info *info, u32 *runs);
u64 dwq_dev_kunit_passed(struct file *file, unsigned int clock);
unsigned int dwq_dev_kunit_bin(struct file *file);
u64 dwq_dev_kunit_owed(struct file *file);
void dwq_dev_kunit_now(u64 *mono, u64 *boot);
void dwq_kunit_set_suspended(s64 ns);
#endif
int dwq_dev_init(void);
void dwq_dev_exit(void);

/* --- the engine: queue.c and worker.c --- */

/*
 * Timer slack of the hand-off timer, which need not be precise. The
 * leader's timer has the head's own slack (dwq_task_latest()).
 */
#define DWQ_SLACK_NS (5 * NSEC_PER_USEC)

/*
 * How long after the head is due a worker busy in a callback lets a
 * follower be woken for it (see dwq_take()): about the cost of a wakeup,
 * so a callback that returns within it takes the head itself sooner than a
 * woken follower would have. This is the least a queue's grace is; where
 * its followers take longer to come (a slow or emulated machine, whose
 * interrupts alone can outlast it), the grace follows the time they take
 * (&dwq_queue.handoff_grace), up to DWQ_HANDOFF_GRACE_MAX_NS.
 */
#define DWQ_HANDOFF_GRACE_NS (50 * NSEC_PER_USEC)
#define DWQ_HANDOFF_GRACE_MAX_NS (1 * NSEC_PER_MSEC)

/*
 * A queue's hand-off grace once a follower a hand-off woke took @took ns to
 * come: a quarter of the way from @grace toward it (rounded up, so that it
 * gets there), within the bounds above.
 */
static inline u64 dwq_handoff_grace_next(u64 grace, u64 took)
{
	took = min_t(u64, took, DWQ_HANDOFF_GRACE_MAX_NS);
	grace = took > grace ? grace + DIV_ROUND_UP(took - grace, 4) :
			       grace - DIV_ROUND_UP(grace - took, 4);
	return clamp_t(u64, grace, DWQ_HANDOFF_GRACE_NS,
		       DWQ_HANDOFF_GRACE_MAX_NS);
}

/*
 * Most quick tasks one expiry of a queue's timer runs (dwq_task_set_quick());
 * more due at once wake the leader, which runs the rest.
 */
#define DWQ_TIMER_RUN_MAX 16

/*
 * "Take" the lock class of a task's callback (its dwq_task_init() call
 * site) in subclass @sub, dwq_task_subclass(). A macro: @map may not exist
 * without CONFIG_LOCKDEP.
 */
#define dwq_task_map_acquire(map, sub) \
	lock_acquire_exclusive(map, sub, 0, NULL, _THIS_IP_)

/* Room for "dwq-<name>/<id>" in TASK_COMM_LEN is smaller still. */
#define DWQ_NAME_LEN 16

/**
 * enum dwq_worker_state - what a worker is doing, for debugfs
 * @DWQ_WORKER_IDLE: awake, between a sleep and a callback, or stopped
 * @DWQ_WORKER_LEADER: asleep until the head's deadline
 * @DWQ_WORKER_FOLLOWER: asleep without a timeout on the wait queue
 * @DWQ_WORKER_RUNNING: running a callback
 */
enum dwq_worker_state {
	DWQ_WORKER_IDLE,
	DWQ_WORKER_LEADER,
	DWQ_WORKER_FOLLOWER,
	DWQ_WORKER_RUNNING,
};

/*
 * Why a worker is woken, as the dwq_wakeup tracepoint shows it: a leader
 * voided by an earlier head, a follower for a new head, by a hand-off
 * timer, by a worker leaving take() with nobody to lead, or the leader by
 * its own timer at the head's deadline.
 */
enum dwq_trace_wake {
	DWQ_TRACE_WAKE_VOID,
	DWQ_TRACE_WAKE_HEAD,
	DWQ_TRACE_WAKE_HANDOFF,
	DWQ_TRACE_WAKE_LEAVE,
	DWQ_TRACE_WAKE_TIMER,
};

/**
 * struct dwq_run_rec - what a running callback's task functions tell it
 * @deadline: the deadline of this run, on the task's clock (see
 *	dwq_task_run_deadline())
 * @overruns: the periods coalesced into this run (see
 *	dwq_task_run_overruns())
 * @boottime: the task's clock was CLOCK_BOOTTIME when it was taken
 * @oneshot: the task was a one-shot when it was taken
 * @quick: the task was quick when it was taken
 * @worker: the worker that leads the queue, whose run this counts as
 *	(the timer's record only, see dwq_task_run_worker())
 *
 * Written under the queue's lock when a task is taken to run, by whoever
 * takes it, into the record of whoever runs it: its worker's, or the
 * queue's timer's (@dwq_queue.timer_run, the timer's callback never runs
 * on two CPUs at once). Read by the callback and at the end of the run.
 */
struct dwq_run_rec {
	u64 deadline;
	u64 overruns;
	bool boottime;
	bool oneshot;
	bool quick;
	u8 worker;
};

/**
 * struct dwq_worker - one kthread of a queue's pool
 * @queue: the queue it takes tasks from
 * @thread: the kthread; NULL once it was stopped. Written under @queue->lock.
 * @id: its index in @queue->workers, and the number in its name
 * @handoff: armed while the worker runs a callback after it left the
 *	queue with no leader and tasks in the heap; wakes one follower should
 *	the callback still run when it fires (see dwq_take()). Armed ahead
 *	as the worker begins to lead, when it may leave with a task
 *	(see __dwq_handoff_ahead() in queue.c); cancelled when a run ends
 * @handoff_at: when to arm @handoff, 0 for not now; set under
 *	@queue->lock by dwq_take() and __dwq_take_next(), only while no
 *	expiry of @handoff may be pending (see __dwq_leave_with() in
 *	queue.c), and used by the worker itself only
 * @handoff_armed: @handoff was armed in this run and has not ended; under
 *	@queue->lock
 * @handoff_ahead: when @handoff was armed for by this worker as it began
 *	to lead, ahead of a run it may cover, or 0; under @queue->lock
 * @run_since: when the worker took the task it runs; under @queue->lock
 * @run: the run of the task it runs, see &struct dwq_run_rec
 * @follow: its entry in @queue->followers while it waits as a follower;
 *	under @queue->lock
 * @by_handoff: it was woken by a hand-off timer; under @queue->lock
 * @state: an &enum dwq_worker_state; under @queue->lock
 * @stats: what this worker did; under @queue->lock
 */
struct dwq_worker {
	struct dwq_queue *queue;
	struct task_struct *thread;
	unsigned int id;
	struct hrtimer handoff;
	u64 handoff_at;
	bool handoff_armed;
	u64 handoff_ahead;
	u64 run_since;
	struct dwq_run_rec run;
	struct list_head follow;
	bool by_handoff;
	u8 state;
	struct dwq_worker_stats stats;
};

/**
 * struct dwq_queue - a delayed work queue
 * @lock: protects @heap, @front (and the node of every queued task),
 *	@leader, @leader_deadline, @leader_hard, @leader_fired, @armed, the
 *	expiry of @timer and @wake_timer (every arm and move of them),
 *	@followers, @handoffs, @handoff_woke, @handoff_grace, @stopping,
 *	@run_due,
 *	@run_due_before, @reserved, @room, @nr_workers, every worker's
 *	@thread, @follow, @by_handoff and @stats, and the private fields of
 *	every task whose ->queue is this queue. A raw spinlock, always taken
 *	with interrupts disabled, so that every call that schedules, moves or
 *	cancels a task works from any context, hard interrupt context and
 *	under other raw spinlocks included, on PREEMPT_RT too (as workqueue's
 *	pool lock). Hence what is done under it is short and never sleeps: no
 *	allocation or freeing, no spinlock_t (so no wait queue: followers are
 *	woken by name from @followers), never a callback or a release
 *	function; wake_up_process(), hrtimer_start() and queue_work() only.
 * @heap: the tasks waiting for their deadlines, keyed on @clockid
 * @front: a task queued ahead of @heap, before all of its tasks, or NULL:
 *	a new head goes in and out in O(1) (see __dwq_insert() in queue.c)
 * @leader: the worker sleeping until the head's deadline, or NULL
 * @leader_deadline: the earliest @timer fires (the earliest deadline it
 *	was armed or moved for, or halfway there for a far head: see
 *	__dwq_leader_arm() in queue.c), or KTIME_MAX while the leader sleeps with
 *	nothing queued and @timer unarmed; meaningless without a @leader
 * @leader_hard: the latest @timer fires (the earliest deadline plus slack
 *	it was armed or moved for), KTIME_MAX with @leader_deadline
 * @far_ns: a head due further than this ahead gets the leader's timer
 *	armed halfway there (see __dwq_leader_arm() in queue.c):
 *	DWQ_FAR_NS, fixed at creation (KUnit cases change it)
 * @leader_fired: @leader was woken, by @timer or because a task queued
 *	meanwhile was due: it will re-read the head
 * @timer: the leader's timer: armed when a worker begins to lead, moved in
 *	place by whoever queues a task due earlier, so that a new head costs
 *	no wakeup. It runs the due quick tasks itself, and wakes the leader
 *	only for the others (see dwq_queue_timer()): a soft hrtimer, in
 *	softirq context, or with @hardirq a hard one. Without @hardirq, a
 *	head that is not quick gets @wake_timer instead
 * @timer_run: the run of the quick task @timer runs, see &struct dwq_run_rec
 * @hardirq: created with %DWQ_QUEUE_HARDIRQ (and not on PREEMPT_RT): quick
 *	tasks run in hard irq context, in @timer, or on a worker with
 *	interrupts off; fixed at creation
 * @timer_mode: @timer's mode, as every hrtimer_start() of it must say
 * @wake_timer: the leader's timer for a head that is not quick, when
 *	@timer is soft: a hard hrtimer that only wakes the leader, from the
 *	timer interrupt, with no softirq between (see __dwq_leader_arm())
 * @armed: @timer or @wake_timer, whichever was armed last (NULL before
 *	the first), the one the leader sleeps on; the other is cancelled when
 *	this changes, unless its callback is running (see __dwq_leader_arm())
 * @handoffs: followers woken by a hand-off timer and not yet back under
 *	the lock: a due head is left to them
 * @handoff_woke: when the last hand-off woke a follower (the queue's clock)
 * @handoff_grace: how long after the head is due a worker busy in a
 *	callback lets a follower be woken for it: a moving average of the
 *	time hand-off followers took to come, from DWQ_HANDOFF_GRACE_NS to
 *	DWQ_HANDOFF_GRACE_MAX_NS (see __dwq_handoff_came() in queue.c)
 * @reserved: heap slots held back for running tasks that will be queued
 *	again (periodic, or re-armed by dwq_mod()), so that this cannot fail,
 *	and one for the task in @front, which may have to go into the heap
 * @room: the sum of dwq_queue_reserve() reservations: the heap's capacity
 *	never goes below it
 * @resize_lo: with @resize_hi, the slots used (tasks queued plus slots
 *	held back) between which the heap wants no resize; set from the
 *	capacity and @room whenever either changes
 * @resize_hi: see @resize_lo
 * @starved: a schedule found no room in a heap three quarters full or
 *	more: grow it even if all the slots used are reserved, and shrink it
 *	not. Cleared when the capacity or @room changes, or when
 *	@resize_work finds nothing to do
 * @stopping: dwq_queue_destroy() has begun: no more scheduling
 * @run_due: %DWQ_DESTROY_RUN_DUE: while stopping, workers still take the
 *	tasks due by @run_due_before
 * @run_due_before: see @run_due
 * @nr_workers: workers running
 * @clockid: CLOCK_MONOTONIC or CLOCK_BOOTTIME, the clock of the heap keys
 * @followers: the workers in untimed waits, first come first woken; the
 *	leader is not on it, it sleeps on its own hrtimer
 * @all: on the list of every queue, for the resume after a suspend (see
 *	dwq_queue_resumed()); under that list's mutex, not @lock
 * @done_wq: dwq_cancel_sync() callers waiting for a callback to return;
 *	woken outside @lock
 * @resize_work: grows the heap ahead of need, keeping a quarter of it
 *	free for the tasks beyond @room (or once a schedule found it full),
 *	and gives unused capacity back, in process context
 * @max_workers: entries in @workers
 * @workers: the pool
 * @name: the queue's name, as given to dwq_queue_create()
 * @describe: adds who owns a task to its line of the heap dump, or NULL
 *	(see dwq_queue_set_describe()); set under @lock
 * @lockdep_key: the lock class of @lockdep_map, one per queue
 * @lockdep_map: "held" by a worker while it runs a callback and touched by
 *	dwq_queue_destroy(), so that lockdep sees a destroy called under a
 *	lock a callback takes (workqueue's "(wq_completion)" map)
 * @lockdep_name: the name of @lockdep_map: "(dwq_queue)<name>"
 * @timer_lockdep_key: the lock class of @timer_lockdep_map, one per queue
 * @timer_lockdep_map: as @lockdep_map, "held" by @timer while it runs a
 *	quick callback, in softirq (or with @hardirq hard irq) context, and
 *	touched by dwq_queue_destroy() with softirqs (or interrupts) off: a
 *	class of its own, since the workers hold @lockdep_map with both on
 * @timer_lockdep_name: its name: "(dwq_timer)<name>"
 */
struct dwq_queue {
	raw_spinlock_t lock; /* heap, leader, tasks: see above */
	struct dwq_heap heap;
	struct dwq_heap_node *front;
	struct dwq_worker *leader;
	u64 leader_deadline;
	u64 leader_hard;
	u64 far_ns;
	bool leader_fired;
	struct hrtimer timer;
	struct dwq_run_rec timer_run;
	bool hardirq;
	enum hrtimer_mode timer_mode;
	struct hrtimer wake_timer;
	struct hrtimer *armed;
	unsigned int handoffs;
	u64 handoff_woke;
	u64 handoff_grace;
	unsigned int reserved;
	unsigned int room;
	unsigned int resize_lo;
	unsigned int resize_hi;
	bool starved;
	bool stopping;
	bool run_due;
	u64 run_due_before;
	unsigned int nr_workers;
	clockid_t clockid;
	struct list_head followers;
	struct list_head all;
	wait_queue_head_t done_wq;
	struct work_struct resize_work;
	unsigned int max_workers;
	struct dwq_worker *workers;
	char name[DWQ_NAME_LEN];
	void (*describe)(struct seq_file *m, const struct dwq_task *task);
#ifdef CONFIG_LOCKDEP
	struct lock_class_key lockdep_key;
	struct lockdep_map lockdep_map;
	char lockdep_name[12 + DWQ_NAME_LEN];
	struct lock_class_key timer_lockdep_key;
	struct lockdep_map timer_lockdep_map;
	char timer_lockdep_name[12 + DWQ_NAME_LEN];
#endif
};

/*
 * The lock subclass of a task's runs on @q: 0 for an ordinary task, 1 for
 * a quick one, which runs with softirqs off or in softirq context
 * (dwq_task_set_quick()), 2 for a quick one on a %DWQ_QUEUE_HARDIRQ queue,
 * which runs with interrupts off or in hard irq context. So one call site
 * of dwq_task_init() may make tasks of every kind without lockdep seeing
 * one class used in two contexts.
 */
enum dwq_task_subclass {
	DWQ_SUBCLASS_ORDINARY,
	DWQ_SUBCLASS_QUICK,
	DWQ_SUBCLASS_QUICK_HARDIRQ,
};

static inline unsigned int dwq_task_subclass(const struct dwq_queue *q,
					     bool quick)
{
	if (!quick)
		return DWQ_SUBCLASS_ORDINARY;
	return q && q->hardirq ? DWQ_SUBCLASS_QUICK_HARDIRQ :
				 DWQ_SUBCLASS_QUICK;
}

/*
 * Enter and leave the context a quick task of @q runs in outside @q's
 * timer, on a worker or for lockdep's sake: softirqs off, or with
 * %DWQ_QUEUE_HARDIRQ interrupts off.
 */
static inline void dwq_quick_enter(const struct dwq_queue *q)
{
	if (q && q->hardirq)
		local_irq_disable();
	else
		local_bh_disable();
}

static inline void dwq_quick_leave(const struct dwq_queue *q)
{
	if (q && q->hardirq)
		local_irq_enable();
	else
		local_bh_enable();
}

/* The queue dwq.ko creates at load time, for /dev/dwq. */
extern struct dwq_queue *dwq_default_queue;

/*
 * queue.c: everything under a queue's lock. Its __dwq_*() helpers, which
 * need the lock held, are static there; these are the entry points.
 */
u64 dwq_queue_now(const struct dwq_queue *q);
void dwq_queue_resumed(struct dwq_queue *q);
int dwq_queues_init(void);
void dwq_queues_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
struct dwq_heap_slot *dwq_slots_alloc(unsigned int n);
void dwq_queue_kunit_rekey(struct dwq_queue *q, struct dwq_task *task, u64 key);
/* Test hooks of the engine, see queue.c. */
struct dwq_kunit_hooks {
	void (*claim)(struct dwq_task *task);
	void (*unbind)(struct dwq_task *task);
};

extern struct dwq_kunit_hooks dwq_kunit_hooks;
#endif
struct dwq_task *dwq_take(struct dwq_worker *w);
struct dwq_task *dwq_task_finish(struct dwq_worker *w, struct dwq_task *task);
enum hrtimer_restart dwq_worker_handoff(struct hrtimer *timer);
struct task_struct *dwq_worker_thread(struct dwq_worker *w);
void dwq_worker_stopped(struct dwq_worker *w);
void dwq_queue_show_stats(struct dwq_queue *q, struct seq_file *m);
void dwq_queue_show_workers(struct dwq_queue *q, struct seq_file *m);
void dwq_queue_show_heap(struct dwq_queue *q, struct seq_file *m,
			 unsigned int max);
void dwq_queue_set_describe(struct dwq_queue *q,
			    void (*describe)(struct seq_file *m,
					     const struct dwq_task *task));

/* worker.c: the threads, created, run and stopped */
int dwq_workers_start(struct dwq_queue *q, unsigned int n);
void dwq_workers_stop(struct dwq_queue *q);
int dwq_queue_stop_worker(struct dwq_queue *q, unsigned int id);

/* debugfs.c */
void dwq_debugfs_init(struct dwq_queue *q);
void dwq_debugfs_exit(void);

#endif /* _DWQ_INTERNAL_H */
