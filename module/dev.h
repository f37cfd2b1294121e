/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/dwq: what its files share. Private to dwq.ko.
 *
 *   dev.c     the file: open, release, fdinfo; a file's tasks and its id map
 *   ioctl.c   the ioctls: copy in, check, act, copy out
 *   uring.c   the same ioctls as io_uring commands (IORING_OP_URING_CMD)
 *   events.c  a firing becomes an event that read() and poll() deliver,
 *             under the wait queue's lock (the scheme of fs/eventfd.c)
 *   limits.c  the limit parameters and the per-file, per-user and global
 *             charges they bound
 *
 * Each open file is a client (&struct dwq_client) that owns any number of
 * tasks (&struct dwq_utask), each known by a 64-bit id that is never
 * reused while the file lives. A task's callback turns its firing into an
 * event: the task goes on the client's event list, at most once, and
 * further firings before read() takes the event fold into its overrun
 * count (as a timerfd's expiration count does). So the events waiting
 * never outnumber the tasks, a one-shot's event always has room (it lives
 * in the task), and nothing is dropped.
 *
 * Lifetimes: a utask is reference counted by the engine (&struct dwq_task):
 * the client's id map holds one reference, the queue one while the task is
 * queued or running, the event list one while an event is unread. Each
 * utask holds a reference to its client, so a callback still running after
 * close() has its client to talk to.
 */
#ifndef _DWQ_DEV_H
#define _DWQ_DEV_H

#include <linux/atomic.h>
#include <linux/compiler_types.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <dwq.h>

struct cred;
struct file;
struct dwq_user;

/**
 * struct dwq_client - one open file of a dwq device
 * @ref: the file holds one reference, each of its utasks one more
 * @q: the queue its tasks run on
 * @lock: guards @tasks, @next_id and every utask's @node
 * @tasks: the tasks it owns, by id. An rbtree, not an xarray: ids only
 *	grow, so a file whose tasks come and go one at a time (a timeout
 *	armed and disarmed) would have the xarray allocate a node for each
 *	new window of 64 ids and RCU-free it again when the window empties:
 *	30% of a schedule+cancel pair, measured. The rbtree node is in the
 *	utask.
 * @next_id: the last id handed out
 * @nr_tasks: entries in @tasks
 * @user: the user its tasks are charged to; the client holds a reference
 * @tgid: the process that opened it (in the initial pid namespace), for
 *	traces and debugfs; fixed at open
 * @wqh: readers and pollers wait here; its lock guards @events, @closed,
 *	the counters below and every utask's @link, @ev and @gen (the
 *	scheme of fs/eventfd.c)
 * @events: utasks with an unread event, oldest first
 * @nr_events: entries in @events
 * @closed: the file is being released: queue no more events
 * @fired: firings of this client's tasks
 * @cancelled: its tasks cancelled before they fired (again)
 * @coalesced: firings folded into an unread event
 * @read_mutex: serialises readers, so that an event copied to one reader
 *	is the one it takes off @events
 */
struct dwq_client {
	struct kref ref;
	struct dwq_queue *q;
	spinlock_t lock; /* @tasks, @next_id: see above */
	struct rb_root tasks;
	u64 next_id;
	atomic_t nr_tasks;
	struct dwq_user *user;
	pid_t tgid;
	wait_queue_head_t wqh;
	struct list_head events;
	u64 nr_events;
	bool closed;
	u64 fired;
	u64 cancelled;
	u64 coalesced;
	struct mutex read_mutex; /* see the kernel-doc above */
};

/**
 * struct dwq_utask - a task owned by a client
 * @task: the engine's task; its reference count is the utask's
 * @client: the owner; the utask holds a reference to it
 * @id: its key in @client->tasks
 * @node: in @client->tasks while the client knows the id; cleared
 *	(RB_EMPTY_NODE) when it is forgotten
 * @rate: the firing rate charged to the user for it (mHz, see limits.c),
 *	while @node is in the map; guarded by @client->lock
 * @cookie: the user's value, returned in every event
 * @link: on @client->events while @ev is unread
 * @ev: the unread event
 * @gen: bumped whenever @ev changes, so a reader can tell it copied a
 *	stale version
 * @parked: its periodic run is parked while @ev is unread: the engine
 *	holds it at %DWQ_PARK_NS, and read() queues it again at @next
 * @park_mode: the task's mode when it parked
 * @park_boottime: its clock is CLOCK_BOOTTIME
 * @park_period: its period when it parked
 * @park_fired: when the firing that parked it ran, on its clock
 * @peek_skipped: what the reader's copy of @ev (of generation @gen) says
 *	in @ev.skipped, as read() found it
 * @peek_next: the deadline read() queues the task at for that copy
 * @done_run: the run whose callback last posted an event
 * @resched_run: the run during which DWQ_IOC_RESCHEDULE set the next
 *	deadline: that run does not park
 * @skipped: the sum of its events' @skipped so far
 * @folded: the sum of its events' @folded so far
 *
 * The fields from @link on are guarded by @client->wqh.lock.
 */
struct dwq_utask {
	struct dwq_task task;
	struct dwq_client *client;
	u64 id;
	struct rb_node node;
	u64 rate;
	u64 cookie;
	struct list_head link;
	struct dwq_event ev;
	u64 gen;
	bool parked;
	u8 park_mode;
	bool park_boottime;
	u64 park_period;
	u64 park_fired;
	u64 peek_skipped;
	u64 peek_next;
	u64 done_run;
	u64 resched_run;
	u64 skipped;
	u64 folded;
};

/*
 * Where a parked task waits in the heap, on its own clock: 146 years of
 * uptime, so it never becomes due, yet it keeps its heap slot, and read()
 * can queue it again with dwq_reschedule() under a spinlock, without
 * allocating and without failing.
 */
#define DWQ_PARK_NS (KTIME_MAX / 2)

/* dev.c: a file's tasks and its id map */
struct dwq_utask *dwq_client_get(struct dwq_client *c, u64 id);
void dwq_client_forget(struct dwq_client *c, struct dwq_utask *ut);
int dwq_utasks_new(struct dwq_client *c, const struct dwq_ioc_schedule *us,
		   struct dwq_task **tasks, unsigned int n, u64 rate);
int dwq_client_set_rate(struct dwq_client *c, struct dwq_utask *ut, u64 rate,
			bool check);
void dwq_client_cancel_many(struct dwq_client *c, struct dwq_ioc_cancel *uc,
			    unsigned int n, struct dwq_task **tasks, int *ret);

/* ioctl.c */
long dwq_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* uring.c */
struct io_uring_cmd;
int dwq_dev_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

/* events.c */
void dwq_utask_fire(struct dwq_task *task);
ssize_t dwq_dev_read(struct file *file, char __user *buf, size_t count,
		     loff_t *ppos);
__poll_t dwq_dev_poll(struct file *file, poll_table *wait);
void dwq_events_close(struct dwq_client *c);
void dwq_events_drain(struct dwq_client *c);
void dwq_events_cancelled(struct dwq_client *c, struct dwq_task *const *tasks,
			  const int *ret, unsigned int n);
void dwq_events_stats(struct dwq_client *c, struct dwq_ioc_stats *st);
int dwq_events_reschedule(struct dwq_client *c, struct dwq_utask *ut,
			  const struct dwq_ioc_reschedule *ur);
void dwq_events_query(struct dwq_client *c, struct dwq_utask *ut,
		      struct dwq_ioc_query *uq);

/* limits.c */
struct dwq_user *dwq_user_get(const struct cred *cred);
void dwq_user_put(struct dwq_user *u);
int dwq_limits_charge(struct dwq_client *c, unsigned int n, u64 rate);
void dwq_limits_uncharge(struct dwq_client *c, unsigned int n, u64 rate);
void dwq_limits_release(struct dwq_user *u);
u64 dwq_limits_rate(u32 mode, u64 period_ns);
int dwq_limits_rate_charge(struct dwq_user *u, u64 rate);
void dwq_limits_rate_release(struct dwq_user *u, u64 rate);
void dwq_limits_stats(struct dwq_user *u, struct dwq_ioc_stats *st);
int dwq_limits_sched(struct dwq_sched *ds, u64 time_ns, u64 period_ns, u32 mode,
		     u32 flags);
int dwq_limits_init(void);
void dwq_limits_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
void dwq_limits_charged(const struct dwq_user *u, int *all, int *user);
#endif

#endif /* _DWQ_DEV_H */
