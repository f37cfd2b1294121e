/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/dwq: what its files share. Private to dwq.ko.
 *
 *   dev.c     the device and its file operations
 *   client.c  a file's tasks, its id map, heaps, runs and alarms, all that
 *             is done under its mutex, which it owns: read() fires the
 *             due tasks and returns their events; poll(); the ioctls'
 *             actions. Its exported functions take the mutex themselves.
 *   ioctl.c   the ioctls: copy in, check, act (client.c), copy out
 *   uring.c   the same ioctls as io_uring commands (IORING_OP_URING_CMD)
 *   limits.c  the limit parameters and the per-file, per-user and global
 *             charges they bound
 *
 * Each open file is a client (&struct dwq_client) that owns any number of
 * tasks (&struct dwq_utask), each known by a 64-bit id that is never
 * reused while the file lives. The tasks are not the engine's: the file
 * keeps them in a heap and a run of its own for each clock, ordered by
 * deadline (as a timerfd keeps its one timer, but many per file). Nothing
 * runs for a task when it comes due. The file has one engine task per
 * clock, its alarm, on the shared queue by that clock's earliest deadline (on
 * CLOCK_MONOTONIC early rather than late: a cancel or a later head does
 * not move it); the alarm only wakes the file's readers and pollers.
 * read() then fires the due tasks in the reader's own context: it makes
 * their events and moves each task on (a one-shot is done, a periodic
 * task gets its next deadline). So a task due and unread costs nothing,
 * one file's backlog is one alarm in the shared queue, and the CPU time
 * of firing is its owner's.
 *
 * An event is kept only where it must outlive its task's due moment. A
 * periodic task due and unread that is cancelled becomes that firing's
 * event itself (&dwq_utask.last): it stays in its heap, out of the id
 * map, so a cancel never allocates. One that is rescheduled keeps that
 * firing's event (&struct dwq_uevent, on the file's ready list); a later
 * due moment before it is read folds into it.
 *
 * Lifetimes: the file (&struct file.private_data) owns the client, the
 * client its utasks and events. release() cancels the alarms with
 * dwq_cancel_sync() before it frees anything, so an alarm callback still
 * running has its client.
 */
#ifndef _DWQ_DEV_H
#define _DWQ_DEV_H

#include <linux/atomic.h>
#include <linux/compiler_types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <dwq.h>

#include "heap.h"
#include "run.h"

struct cred;
struct file;
struct seq_file;
struct dwq_queue;
struct dwq_sched;
struct dwq_user;
struct dwq_client;

/*
 * Tasks a file keeps when they are done, for its next schedules, and the
 * tasks its arrays keep room for once they grew that far (a heap and a
 * run of each clock, the id map): a batch of up to this many timers
 * disarmed and armed again allocates nothing. At most 64 utasks (8 KiB)
 * and arrays of about 2.3 KiB a file, charged to its owner like its tasks.
 */
#define DWQ_CLIENT_SPARES 64

/* A file's clocks: the index of its heap and alarm. */
enum dwq_clock {
	DWQ_CLOCK_MONOTONIC,
	DWQ_CLOCK_BOOTTIME,
	DWQ_NR_CLOCKS,
};

/**
 * struct dwq_client_clock - a file's tasks on one clock
 * @heap: the tasks that are not in @run, by (deadline, seq); slots
 *	allocated with the file's mutex held (GFP_KERNEL), never under a
 *	spinlock, with room for @run's @periodic tasks too, which read() puts
 *	back in their clock when it fires them, where nothing may fail; the
 *	calls that move a one-shot from @run make room for it first
 * @run: the tasks that came after every task in it, in key order; a task
 *	scheduled after @run's last goes at its end, O(1) each way (see
 *	run.h), any other to @heap. The earlier of the two fronts is the
 *	clock's earliest task. Its ring doubles when a task that comes in
 *	order finds it full (dwq_utask_insert()), with the file's mutex held
 *	(GFP_KERNEL, never under a spinlock); without the memory, the task
 *	goes to @heap
 * @alarm: the engine task (quick) that fires by the earliest deadline,
 *	on CLOCK_MONOTONIC early rather than late: an earlier head brings it
 *	in, a later or empty one leaves it (dwq_client_arm()). When it fires
 *	it wakes the file's readers if the head is due, or else re-arms
 *	itself for the head (dwq_client_alarm()). Its reference count is not
 *	used: it lives in the client.
 * @client: the file, for the alarm's callback
 * @next: the earliest deadline, or U64_MAX with no task: written
 *	with the mutex held, read locklessly by readers, pollers and @alarm
 * @armed: with the mutex held: @alarm fires by this deadline unless it
 *	has @fired since (U64_MAX: it is not armed, or a due head's readers
 *	were woken instead)
 * @woke: with the mutex held: when (on this clock) the readers were last
 *	woken for a head already due, by dwq_client_arm() or (seen when it
 *	has @fired) by @alarm, so that a head due by then wakes them no
 *	more; 0 once a head is armed for
 * @alarm_woke: written locklessly by @alarm's callback: 0 when a run
 *	begins, and when it wakes the readers a moment of this clock by
 *	which the head it woke them for was due; taken into @woke by
 *	dwq_client_arm()
 * @lost: set locklessly by @alarm's callback when it could not re-arm
 *	itself: the file reads as readable until a read() arms it, with the
 *	mutex held
 * @fired: set locklessly by @alarm's callback each time it runs, cleared
 *	with the mutex held when @alarm is armed anew
 * @unarmed: with the mutex held, set when @alarm is left unarmed for the
 *	heap's head while nobody waits on the file: by a read() that fired
 *	tasks (or the settling of the task one owes) and found @alarm
 *	fired, or by a read() that leaves a task owed (&dwq_client.owed);
 *	cleared by the next dwq_client_arm() of this clock: the reader
 *	coming back to wait (a read() that fires nothing, or a poll()), or
 *	an ioctl that changes this heap. The file reads as due meanwhile.
 *	Read locklessly by readers and pollers
 * @passed: a moment of this clock known to be past (0 at first): the
 *	deadline @alarm last fired at when it woke the readers for it, or
 *	the moment of the last read(). A head no later is due without a
 *	clock read, as the one a reader wakes for. Written locklessly by
 *	both (an older moment written last is still past), read locklessly
 * @clock: which clock, an &enum dwq_clock
 * @runs: times @alarm's callback has begun, written by it alone (it never
 *	runs concurrently with itself); KUnit reads it
 * @periodic: with the mutex held, the periodic tasks in @run, for which
 *	@heap keeps room
 */
struct dwq_client_clock {
	struct dwq_heap heap;
	struct dwq_run run;
	struct dwq_task alarm;
	struct dwq_client *client;
	u64 next;
	u64 armed;
	u64 woke;
	u64 alarm_woke;
	u64 passed;
	bool lost;
	bool fired;
	bool unarmed;
	u8 clock;
	u32 runs;
	unsigned int periodic;
};

/* Tasks a file frees at one go: see dwq_utask_put(). */
#define DWQ_BIN_SIZE 32

/**
 * struct dwq_bin - tasks to free together
 * @p: the tasks
 * @n: entries of @p in use
 *
 * One kmem_cache_free_bulk() frees the tasks read()s fired, where a
 * kmem_cache_free() each cost a burst of due one-shots about a fifth of
 * its CPU per event: the slab frees the objects of one slab page with one
 * update of its freelist. The file keeps it, so that a read() that
 * returns events frees nothing before it returns (the free is not part of
 * an event's lateness): it is emptied when full, whenever the alarms are
 * armed after a read() (at once, with another waiter on the file; by the
 * reader coming back, with a read() that fires nothing or a poll()), and
 * at release. (A cancel frees at once: a bin cost every single cancel
 * more than a batch gained.)
 */
struct dwq_bin {
	void *p[DWQ_BIN_SIZE];
	unsigned int n;
};

/**
 * struct dwq_client - one open file of a dwq device
 * @q: the queue its alarms run on
 * @mutex: guards everything below but @wqh and @nr_tasks, and every
 *	utask and event of the file. read() holds it while it fires tasks,
 *	copies their events to user space and only then commits them, so
 *	that a failed copy loses nothing.
 * @ids: the id map: the tasks it owns, in 2^@ids_bits buckets by
 *	hash_64() of their id, each a chain through &dwq_utask.idnext,
 *	resized to keep two tasks a bucket or fewer (dwq_ids_fit()). Chains
 *	of one pointer a task, not an hlist's two: a removal walks its short
 *	chain from the bucket, and a pending task costs 8 bytes less. A
 *	hash rather than an rbtree: ids only grow, so a
 *	tree built by them has its newest ids, the ones a timeout cancels,
 *	deepest. Not an xarray: a file whose tasks come and go one at a
 *	time would have it allocate a node for each new window of 64 ids and
 *	RCU-free it again when the window empties.
 * @ids_bits: log2 of @ids' buckets
 * @nr_ids: tasks in @ids
 * @next_id: the last id handed out
 * @seq: the file's tie-breaker, handed to its heaps so that equal
 *	deadlines leave in the order they were (re)scheduled, across clocks
 * @nr_tasks: its pending tasks (checked against max_tasks_per_file):
 *	queued, parked, and due one-shots whose event is unread; not a task
 *	whose id is gone and whose kept event is unread (see limits.c)
 * @user: the user its tasks are charged to; the client holds a reference
 * @tgid: the process that opened it (in the initial pid namespace), for
 *	traces and debugfs; fixed at open
 * @pid: the same process, for fdinfo to number in its reader's pid
 *	namespace; the client holds a reference
 * @clk: its tasks and alarm on each clock
 * @wqh: readers and pollers wait here; the alarms wake it
 * @ready: events kept past their task's due moment (&struct dwq_uevent),
 *	by (deadline, seq)
 * @ready_off: the time suspended (CLOCK_BOOTTIME less CLOCK_MONOTONIC)
 *	that @ready's keys were made with; they are made anew, and sorted,
 *	when it has changed (after a suspend)
 * @nr_ready: entries in @ready; read locklessly by readers and pollers
 * @fired: firings of this file's tasks
 * @cancelled: its tasks cancelled before they fired (again)
 * @coalesced: firings folded into an unread event
 * @reserved: the queue slots it reserved for its alarms
 * @spare: tasks it freed, kept for its next schedules (dwq_utask_get()):
 *	a timeout armed and disarmed over and over takes no allocation,
 *	and no memory-cgroup charge, per arm. Still charged to the file's
 *	owner, freed at release.
 * @nr_spare: entries of @spare in use
 * @bin: done tasks not kept as spares, to be freed together
 * @owed: the one-shot whose event the last read() returned alone, left
 *	first on its clock (and in the id map), uncharged and traced: taken
 *	out (dwq_client_settle()) by the next holder of @mutex before anything
 *	else, so that the reader has its event before that work is done;
 *	release frees it alone, fdinfo counts it out. NULL when nothing is
 *	owed
 * @owed_ev: @owed's event, as returned
 * @owed_skipped: scratch for dwq_utask_firing()
 * @owed_next: scratch for dwq_utask_firing()
 * @owed_read: the moment of that read() on @owed's clock
 */
struct dwq_client {
	struct dwq_queue *q;
	struct mutex mutex; /* see the kernel-doc above */
	struct dwq_utask **ids;
	unsigned int ids_bits;
	unsigned int nr_ids;
	u64 next_id;
	u64 seq;
	atomic_t nr_tasks;
	struct dwq_user *user;
	pid_t tgid;
	struct pid *pid;
	struct dwq_client_clock clk[DWQ_NR_CLOCKS];
	wait_queue_head_t wqh;
	struct list_head ready;
	u64 ready_off;
	unsigned int nr_ready;
	u64 fired;
	u64 cancelled;
	u64 coalesced;
	unsigned int reserved;
	struct dwq_utask *spare[DWQ_CLIENT_SPARES];
	unsigned int nr_spare;
	struct dwq_bin bin;
	struct dwq_utask *owed;
	struct dwq_event owed_ev;
	u64 owed_skipped;
	u64 owed_next;
	u64 owed_read;
};

/**
 * struct dwq_uevent - an event kept past its task's due moment
 * @link: on &dwq_client.ready
 * @ut: its task while the task lives; NULL once it was cancelled (then
 *	the event holds the task's charge to its user and to all files)
 * @key: its deadline on CLOCK_MONOTONIC with the offset between the
 *	clocks of &dwq_client.ready_off, for the order of @ready
 * @seq: its task's seq then
 * @clock: its task's clock
 * @ev: the event as read() will return it
 */
struct dwq_uevent {
	struct list_head link;
	struct dwq_utask *ut;
	u64 key;
	u64 seq;
	unsigned int clock;
	struct dwq_event ev;
};

/**
 * struct dwq_utask - a task owned by a client
 * @node: its place in its clock's heap or run: deadline and seq, and
 *	the slot (heap.h, run.h). A task is queued for its whole life, due
 *	or not. Its @aux holds @mode, @clock, @last and @picked: the heap
 *	and the run never touch it, and the task takes 88 bytes, not 96
 * @idnext: the next task in its &dwq_client.ids bucket, or NULL
 * @id: its key in &dwq_client.ids
 * @cookie: the user's value, returned in every event
 * @period: its period, 0 for a one-shot
 * @runs: its firings so far (made by read(), or kept by a cancel or
 *	reschedule of the task due)
 * @fired_ns: once @last: when its last firing was (the cancel's moment)
 * @skipped: the sum of its events' @skipped so far; once @last, that of
 *	the last firing's event
 * @folded: the sum of its events' @folded so far
 * @ev: its kept event, unread, or NULL
 * @mode: its DWQ_MODE_* value
 * @clock: its &enum dwq_clock
 * @last: the task was cancelled while due, with no kept event: it is its
 *	last firing's event now, unread. It left the id map and gave its
 *	file's charge and firing rate back, but stays queued at the
 *	deadline that fired, and holds its charge to its user and to all
 *	files until read() returns the event and frees it. So a cancel
 *	allocates nothing.
 * @picked: a cancel in progress answered for it (dwq_cancel_results()):
 *	a later entry of the same batch with its id is %DWQ_RESULT_NOENT
 *
 * All fields are guarded by the owning file's &dwq_client.mutex.
 */
struct dwq_utask {
	union {
		struct dwq_heap_node node;
		/* @node's layout, its @aux named (see dwq_client_init()). */
		struct {
			u64 node_deadline;
			u64 node_seq;
			int node_index;
			u8 mode;
			u8 clock;
			bool last;
			bool picked;
		};
	};
	struct dwq_utask *idnext;
	u64 id;
	u64 cookie;
	u64 period;
	union {
		u64 runs;
		u64 fired_ns;
	};
	u64 skipped;
	u64 folded;
	struct dwq_uevent *ev;
};

/**
 * struct dwq_sched_req - tasks to schedule, all or none
 * @us: the requests, checked
 * @ds: their timing, absolute deadlines (dwq_dev_check_schedule())
 * @uts: room for @n task pointers, which dwq_client_schedule() fills
 *	with the new tasks (the file's, on success)
 * @n: how many
 * @rate: their firing rate together, mHz
 * @write_ids: writes the ids back to user space: 0 or -EFAULT
 * @arg: for @write_ids
 * @now: the call's moment on each clock, as the checks read it (0 on a
 *	clock they did not read): the delays count from it, and a task is
 *	due at once if its deadline is no later
 */
struct dwq_sched_req {
	const struct dwq_ioc_schedule *us;
	const struct dwq_sched *ds;
	struct dwq_utask **uts;
	unsigned int n;
	u64 rate;
	int (*write_ids)(void *arg, struct dwq_utask **uts, unsigned int n);
	void *arg;
	const u64 *now;
};

/* Which clock a schedule's timing is on. */
static inline unsigned int dwq_sched_clock(const struct dwq_sched *ds)
{
	return ds->flags & DWQ_SCHED_BOOTTIME ? DWQ_CLOCK_BOOTTIME :
						DWQ_CLOCK_MONOTONIC;
}

/**
 * dwq_clock_now() - a file clock's time
 * @clock: an &enum dwq_clock
 *
 * Inline: a schedule and a cancel each read it on their way.
 *
 * Context: any context.
 * Return: ns on that clock.
 */
static inline u64 dwq_clock_now(unsigned int clock)
{
	return clock == DWQ_CLOCK_BOOTTIME ? ktime_get_boottime_ns() :
					     ktime_get_ns();
}

/*
 * client.c: a file's tasks and all that needs its mutex. Each of these
 * takes the mutex itself, or needs none.
 */
struct dwq_client *dwq_client_new(struct dwq_queue *q, const struct cred *cred);
void dwq_client_free(struct dwq_client *c);
void dwq_client_show_fdinfo(struct seq_file *m, struct dwq_client *c);
void dwq_client_set_describe(struct dwq_queue *q);
int dwq_client_init(void);
void dwq_client_exit(void);
int dwq_sched_abs(struct dwq_sched *ds, unsigned int clock, u64 period,
		  u64 *now);
int dwq_client_schedule(struct dwq_client *c, const struct dwq_sched_req *r,
			bool killable);
int dwq_client_cancel(struct dwq_client *c, struct dwq_ioc_cancel *uc,
		      struct dwq_utask **found, unsigned int n, bool killable,
		      int (*write)(void *arg, const struct dwq_ioc_cancel *uc,
				   unsigned int n),
		      void *arg);
int dwq_client_reschedule(struct dwq_client *c,
			  const struct dwq_ioc_reschedule *ur, bool killable);
int dwq_client_query(struct dwq_client *c, struct dwq_ioc_query *uq,
		     bool killable);
int dwq_client_stats(struct dwq_client *c, struct dwq_ioc_stats *st,
		     bool killable);
ssize_t dwq_dev_read(struct file *file, char __user *buf, size_t count,
		     loff_t *ppos);
__poll_t dwq_dev_poll(struct file *file, poll_table *wait);

/* ioctl.c */
long dwq_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
long dwq_dev_ioctl_wait(struct file *file, unsigned int cmd, unsigned long arg,
			bool killable);

/* uring.c */
struct io_uring_cmd;
int dwq_dev_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

/* limits.c */
struct dwq_user *dwq_user_get(const struct cred *cred);
void dwq_user_put(struct dwq_user *u);
int dwq_limits_charge(struct dwq_client *c, unsigned int n, u64 rate);
void dwq_limits_uncharge(struct dwq_client *c, unsigned int n, u64 rate);
void dwq_limits_release(struct dwq_user *u, unsigned int n);
u64 dwq_limits_rate(u32 mode, u64 period_ns);
int dwq_limits_rate_charge(struct dwq_user *u, u64 rate);
void dwq_limits_rate_release(struct dwq_user *u, u64 rate);
void dwq_limits_stats(struct dwq_user *u, struct dwq_ioc_stats *st);
int dwq_limits_timing(u64 time_ns, u64 period_ns, u32 mode, u32 flags);
int dwq_limits_sched(struct dwq_sched *ds, u64 time_ns, u64 period_ns, u32 mode,
		     u32 flags, u64 *now);
int dwq_limits_init(void);
void dwq_limits_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
void dwq_limits_charged(const struct dwq_user *u, int *all, int *user);
#endif

#endif /* _DWQ_DEV_H */
