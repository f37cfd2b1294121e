// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq: the character device through which user space reaches dwq.
 *
 * Each open file is a client (&struct dwq_client) that owns any number of
 * tasks (&struct dwq_utask), each known by a 64-bit id that is never
 * reused while the file lives. A task's callback, on a dwq worker, turns
 * its firing into an event: the task goes on the client's event list, at
 * most once, and further firings before read() takes the event fold into
 * its overrun count (as a timerfd's expiration count does). So the events
 * waiting never outnumber the tasks, a one-shot's event always has room
 * (it lives in the task), and nothing is dropped.
 *
 * Lifetimes: a utask is reference counted by the engine (&struct dwq_task):
 * the client's id map holds one reference, the queue one while the task is
 * queued or running, the event list one while an event is unread. Each
 * utask holds a reference to its client, so a callback still running after
 * close() has its client to talk to.
 */
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/rbtree.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <dwq.h>
#include <uapi/linux/dwq.h>

#include "dwq_internal.h"

/*
 * The limits below refuse 0 (and what is no number) at load and in sysfs
 * alike, with a message: no limit of 0 makes sense. A task limit of 0
 * would make /dev/dwq refuse every task; min_period_ns=0 would let a
 * period of 1 ns keep a worker busy for good; max_delay_ns=0 would refuse
 * every delay. dwq_dev_init() checks them against each other.
 */
static int dwq_param_uint_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	/* A value written to sysfs ends in a newline: not in the message. */
	if (kstrtouint(val, 0, &v) || !v) {
		pr_err("%s=%.*s: must be a number from 1 to %u\n", kp->name,
		       (int)strcspn(val, "\n"), val, UINT_MAX);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops dwq_param_uint_ops = {
	.set = dwq_param_uint_set,
	.get = param_get_uint,
};

static int dwq_param_ulong_set(const char *val, const struct kernel_param *kp)
{
	unsigned long v;

	if (kstrtoul(val, 0, &v) || !v) {
		pr_err("%s=%.*s: must be a number of ns from 1 to %lu\n",
		       kp->name, (int)strcspn(val, "\n"), val, ULONG_MAX);
		return -EINVAL;
	}
	*(unsigned long *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops dwq_param_ulong_ops = {
	.set = dwq_param_ulong_set,
	.get = param_get_ulong,
};

static unsigned int max_tasks_per_file = 65536;
module_param_cb(max_tasks_per_file, &dwq_param_uint_ops, &max_tasks_per_file,
		0644);
/*
 * Not clang-formatted (here and at each "clang-format off" below): it
 * would break right after "MODULE_PARM_DESC(", which checkpatch rejects
 * (OPEN_ENDED_LINE), and the description must stay one string that
 * grep finds (checkpatch: SPLIT_STRING).
 */
/* clang-format off */
MODULE_PARM_DESC(max_tasks_per_file,
		 "Tasks one open file of /dev/dwq may own (default 65536); more is -ENOSPC");
/* clang-format on */

static unsigned int max_tasks = 1U << 20;
module_param_cb(max_tasks, &dwq_param_uint_ops, &max_tasks, 0644);
/* clang-format off */
MODULE_PARM_DESC(max_tasks,
		 "Tasks all open files together may own (default 1048576); more is -ENOSPC");
/* clang-format on */

/*
 * A quarter of max_tasks: four files at max_tasks_per_file, yet no user
 * can take more than a quarter of the global budget, so at least four
 * users reach their own limit before the global one stops everyone.
 */
static unsigned int max_tasks_per_user = 1U << 18;
module_param_cb(max_tasks_per_user, &dwq_param_uint_ops, &max_tasks_per_user,
		0644);
/* clang-format off */
MODULE_PARM_DESC(max_tasks_per_user,
		 "Tasks the files one user (euid of the opener) opened may hold together (default 262144); more is -ENOSPC");
/* clang-format on */

static ulong min_period_ns = 100 * NSEC_PER_USEC;
module_param_cb(min_period_ns, &dwq_param_ulong_ops, &min_period_ns, 0644);
/* clang-format off */
MODULE_PARM_DESC(min_period_ns,
		 "Shortest period of a periodic task from user space, ns (default 100000); shorter is -EINVAL");
/* clang-format on */

static ulong max_delay_ns = 366ULL * 24 * 3600 * NSEC_PER_SEC;
module_param_cb(max_delay_ns, &dwq_param_ulong_ops, &max_delay_ns, 0644);
/* clang-format off */
MODULE_PARM_DESC(max_delay_ns,
		 "Longest delay or period from user space, ns (default 366 days); longer is -EINVAL");
/* clang-format on */

/* Tasks of all clients; checked against max_tasks. */
static atomic_t dwq_dev_nr_tasks = ATOMIC_INIT(0);

/**
 * struct dwq_user - what the files of one user hold together
 * @uid: the effective uid their openers had when they opened them
 * @ref: one per open file charged here; guarded by the xa_lock of
 *	@dwq_users, so that a lookup never finds an entry being freed
 * @nr_tasks: tasks of those files not released yet (queued, firing, or
 *	with an unread event: each holds memory); checked against
 *	max_tasks_per_user
 */
struct dwq_user {
	kuid_t uid;
	unsigned int ref;
	atomic_t nr_tasks;
};

/*
 * Every user with a dwq file open: kuid value -> &struct dwq_user. Its
 * xa_lock guards the map and every entry's @ref.
 */
static DEFINE_XARRAY(dwq_users);

static struct kmem_cache *dwq_utask_cache;

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
 * @cookie: the user's value, returned in every event
 * @link: on @client->events while @ev is unread
 * @ev: the unread event
 * @gen: bumped whenever @ev changes, so a reader can tell it copied a
 *	stale version
 */
struct dwq_utask {
	struct dwq_task task;
	struct dwq_client *client;
	u64 id;
	struct rb_node node;
	u64 cookie;
	struct list_head link;
	struct dwq_event ev;
	u64 gen;
};

/*
 * The user a file opened with @cred is charged to, with a reference. It is
 * the opener's effective uid (as inotify charges its instances to), fixed
 * at open: a file passed to another process or inherited across fork()
 * still charges the user who opened it.
 */
static struct dwq_user *dwq_user_get(const struct cred *cred)
{
	unsigned long key = __kuid_val(cred->euid);
	struct dwq_user *u, *new;

	xa_lock(&dwq_users);
	u = xa_load(&dwq_users, key);
	if (u)
		u->ref++;
	xa_unlock(&dwq_users);
	if (u)
		return u;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->uid = cred->euid;
	new->ref = 1;
	atomic_set(&new->nr_tasks, 0);
	/*
	 * Another file of the user may have been opened meanwhile: then
	 * take that entry. __xa_cmpxchg() may drop the lock to allocate, but
	 * what it returns was in the map, so had a reference, when it retook
	 * the lock; and the last put erases the entry under that lock.
	 */
	xa_lock(&dwq_users);
	u = __xa_cmpxchg(&dwq_users, key, NULL, new, GFP_KERNEL_ACCOUNT);
	if (u && !xa_is_err(u))
		u->ref++;
	xa_unlock(&dwq_users);
	if (!u)
		return new;
	kfree(new);
	return xa_is_err(u) ? ERR_PTR(xa_err(u)) : u;
}

static void dwq_user_put(struct dwq_user *u)
{
	xa_lock(&dwq_users);
	if (--u->ref) {
		xa_unlock(&dwq_users);
		return;
	}
	__xa_erase(&dwq_users, __kuid_val(u->uid));
	xa_unlock(&dwq_users);
	WARN_ON(atomic_read(&u->nr_tasks));
	kfree(u);
}

static void dwq_client_free(struct kref *ref)
{
	struct dwq_client *c = container_of(ref, struct dwq_client, ref);

	WARN_ON(!list_empty(&c->events));
	WARN_ON(!RB_EMPTY_ROOT(&c->tasks));
	mutex_destroy(&c->read_mutex);
	dwq_user_put(c->user);
	kfree(c);
}

static void dwq_utask_release(struct dwq_task *task)
{
	struct dwq_utask *ut = container_of(task, struct dwq_utask, task);
	struct dwq_client *c = ut->client;

	atomic_dec(&c->user->nr_tasks);
	atomic_dec(&dwq_dev_nr_tasks);
	kmem_cache_free(dwq_utask_cache, ut);
	kref_put(&c->ref, dwq_client_free);
}

static int dwq_utask_cmp(const void *key, const struct rb_node *node)
{
	const struct dwq_utask *ut = rb_entry(node, struct dwq_utask, node);
	u64 id = *(const u64 *)key;

	return id < ut->id ? -1 : id > ut->id;
}

static bool dwq_utask_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct dwq_utask, node)->id <
	       rb_entry(b, struct dwq_utask, node)->id;
}

/*
 * Take @ut out of @c's map. Return true if it was there: whoever takes it
 * out owns the map's reference.
 */
static bool __dwq_client_unlink(struct dwq_client *c, struct dwq_utask *ut)
{
	lockdep_assert_held(&c->lock);
	if (RB_EMPTY_NODE(&ut->node))
		return false;
	rb_erase(&ut->node, &c->tasks);
	RB_CLEAR_NODE(&ut->node);
	return true;
}

/*
 * Drop @ut's id from @c's map and the map's reference, unless someone else
 * did already.
 */
static void dwq_client_forget(struct dwq_client *c, struct dwq_utask *ut)
{
	bool unlinked;

	spin_lock(&c->lock);
	unlinked = __dwq_client_unlink(c, ut);
	spin_unlock(&c->lock);
	if (unlinked) {
		atomic_dec(&c->nr_tasks);
		dwq_task_put(&ut->task);
	}
}

/*
 * Workers run callbacks in parallel, so a firing can reach the list after
 * one with a later deadline. Insert in (deadline, id) order, searching
 * from the tail where it almost always belongs, so that events waiting
 * together come out in deadline order, ties in the order scheduled.
 */
static void dwq_client_add_event(struct dwq_client *c, struct dwq_utask *ut)
{
	struct list_head *pos = c->events.prev;
	struct dwq_utask *prev;

	lockdep_assert_held(&c->wqh.lock);
	while (pos != &c->events) {
		prev = list_entry(pos, struct dwq_utask, link);
		if (prev->ev.deadline_ns < ut->ev.deadline_ns ||
		    (prev->ev.deadline_ns == ut->ev.deadline_ns &&
		     prev->id < ut->id))
			break;
		pos = pos->prev;
	}
	list_add(&ut->link, pos);
}

/* The callback, on a dwq worker: turn the firing into an event. */
static void dwq_utask_fire(struct dwq_task *task)
{
	struct dwq_utask *ut = container_of(task, struct dwq_utask, task);
	struct dwq_client *c = ut->client;
	/*
	 * The mode this run was taken with, not the task's mode now: a
	 * reschedule with DWQ_RESCHED_PERIOD may change that at any time,
	 * and the event must say whether this run is the last.
	 */
	bool oneshot = dwq_task_run_oneshot(task);
	u64 missed = dwq_task_run_overruns(task);
	/* On the clock of this run's deadline, whatever a reschedule did. */
	u64 now = dwq_task_run_boottime(task) ? ktime_get_boottime_ns() :
						ktime_get_ns();

	/*
	 * A one-shot is done: its id goes before its event can be read, so
	 * that a reader who has the LAST event finds the id gone (-ENOENT),
	 * as the ABI promises. The queue's reference keeps @ut alive.
	 */
	if (oneshot)
		dwq_client_forget(c, ut);

	spin_lock_irq(&c->wqh.lock);
	c->fired++;
	if (c->closed) {
		/* release() drains the list; nobody will read this. */
	} else if (!list_empty(&ut->link)) {
		/* Unread: fold this firing in, as timerfd counts expirations. */
		ut->ev.overruns += 1 + missed;
		ut->ev.flags |= DWQ_EVENT_COALESCED;
		ut->ev.deadline_ns = dwq_task_run_deadline(task);
		ut->ev.fired_ns = now;
		ut->ev.worker = dwq_task_run_worker(task);
		if (oneshot)
			ut->ev.flags |= DWQ_EVENT_LAST;
		ut->gen++;
		c->coalesced++;
		/* Its deadline moved on: keep the list in deadline order. */
		list_del(&ut->link);
		dwq_client_add_event(c, ut);
	} else {
		ut->ev.id = ut->id;
		ut->ev.cookie = ut->cookie;
		ut->ev.deadline_ns = dwq_task_run_deadline(task);
		ut->ev.fired_ns = now;
		ut->ev.overruns = missed;
		ut->ev.worker = dwq_task_run_worker(task);
		ut->ev.flags = oneshot ? DWQ_EVENT_LAST : 0;
		ut->gen++;
		/* The list's reference; read() or release() drops it. */
		dwq_task_get(task);
		dwq_client_add_event(c, ut);
		c->nr_events++;
		wake_up_locked_poll(&c->wqh, EPOLLIN);
	}
	spin_unlock_irq(&c->wqh.lock);
}

/* Look up @id and take a reference, or NULL. */
static struct dwq_utask *dwq_client_get(struct dwq_client *c, u64 id)
{
	struct dwq_utask *ut = NULL;
	struct rb_node *node;

	spin_lock(&c->lock);
	node = rb_find(&id, &c->tasks, dwq_utask_cmp);
	if (node) {
		ut = rb_entry(node, struct dwq_utask, node);
		dwq_task_get(&ut->task);
	}
	spin_unlock(&c->lock);
	return ut;
}

/*
 * Turn user timing into the engine's &struct dwq_sched, refusing what is
 * out of range. @flags are DWQ_SCHED_* (and DWQ_RESCHED_PERIOD) already
 * checked for unknown bits.
 */
static int dwq_dev_sched(struct dwq_sched *ds, u64 time_ns, u64 period_ns,
			 u32 mode, u32 flags)
{
	u64 now;

	switch (mode) {
	case DWQ_MODE_ONESHOT:
		if (period_ns)
			return -EINVAL;
		break;
	case DWQ_MODE_FIXED_RATE:
	case DWQ_MODE_FIXED_DELAY:
		if (period_ns < min_period_ns || period_ns > max_delay_ns)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (time_ns > KTIME_MAX)
		return -EINVAL;
	if (flags & DWQ_SCHED_ABS) {
		now = flags & DWQ_SCHED_BOOTTIME ? ktime_get_boottime_ns() :
						   ktime_get_ns();
		if (time_ns > now && time_ns - now > max_delay_ns)
			return -EINVAL;
	} else if (time_ns > max_delay_ns) {
		return -EINVAL;
	}

	/* The ABI's modes and flags are the kernel API's: no translation. */
	ds->time_ns = time_ns;
	ds->period_ns = period_ns;
	ds->mode = mode;
	ds->flags = flags;
	return 0;
}

static int dwq_dev_check_schedule(const struct dwq_ioc_schedule *us,
				  struct dwq_sched *ds)
{
	if (us->reserved[0] || us->reserved[1] || us->reserved[2])
		return -EINVAL;
	if (us->flags & ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME))
		return -EINVAL;
	return dwq_dev_sched(ds, us->time_ns, us->period_ns, us->mode,
			     us->flags);
}

/*
 * Add @n to @count unless that takes it over @max: checked and added in
 * one step, so racing callers never exceed @max together, and none fails
 * for room that another's failed attempt only seemed to take.
 */
static bool dwq_charge_add(atomic_t *count, unsigned int n, unsigned int max)
{
	int old = atomic_read(count);

	do {
		if ((unsigned int)old + n > max)
			return false;
	} while (!atomic_try_cmpxchg(count, &old, old + n));
	return true;
}

/*
 * Count @n more tasks against the limits of the file, of its user (over
 * all the user's files) and of all files; or against none: -ENOSPC.
 */
static int dwq_client_charge(struct dwq_client *c, unsigned int n)
{
	if (!dwq_charge_add(&c->nr_tasks, n, READ_ONCE(max_tasks_per_file)))
		return -ENOSPC;
	if (!dwq_charge_add(&c->user->nr_tasks, n,
			    READ_ONCE(max_tasks_per_user)))
		goto err_file;
	if (!dwq_charge_add(&dwq_dev_nr_tasks, n, READ_ONCE(max_tasks)))
		goto err_user;
	return 0;

err_user:
	atomic_sub(n, &c->user->nr_tasks);
err_file:
	atomic_sub(n, &c->nr_tasks);
	return -ENOSPC;
}

/* Return the charge of @n tasks that were never made. */
static void dwq_client_uncharge(struct dwq_client *c, unsigned int n)
{
	atomic_sub(n, &c->nr_tasks);
	atomic_sub(n, &c->user->nr_tasks);
	atomic_sub(n, &dwq_dev_nr_tasks);
}

/*
 * New utasks for the @n requests @us, each with an id in @c's map (which
 * holds the caller's reference), in @tasks: all or none. The file's lock
 * is taken once for all the ids. The caller has charged them with
 * dwq_client_charge(); on failure the charge is returned.
 */
static int dwq_utasks_new(struct dwq_client *c, const struct dwq_ioc_schedule *us,
			  struct dwq_task **tasks, unsigned int n)
{
	struct dwq_utask *ut;
	unsigned int i, made;
	int err;

	for (made = 0; made < n; made++) {
		ut = kmem_cache_zalloc(dwq_utask_cache, GFP_KERNEL_ACCOUNT);
		if (!ut) {
			err = -ENOMEM;
			goto err_put;
		}
		dwq_task_init(&ut->task, dwq_utask_fire, dwq_utask_release);
		/* The callback queues an event under a spinlock: microseconds. */
		dwq_task_set_quick(&ut->task, true);
		INIT_LIST_HEAD(&ut->link);
		RB_CLEAR_NODE(&ut->node);
		ut->cookie = us[made].cookie;
		ut->client = c;
		kref_get(&c->ref);
		tasks[made] = &ut->task;
	}

	spin_lock(&c->lock);
	if (U64_MAX - c->next_id < n) {
		spin_unlock(&c->lock);
		err = -ENOSPC;
		goto err_put;
	}
	for (i = 0; i < n; i++) {
		ut = container_of(tasks[i], struct dwq_utask, task);
		ut->id = ++c->next_id;
		rb_add(&ut->node, &c->tasks, dwq_utask_less);
	}
	spin_unlock(&c->lock);
	return 0;

err_put:
	/*
	 * The release function of each one made returns its user's and its
	 * global charge; the file's goes here, with all three of the rest.
	 */
	atomic_sub(made, &c->nr_tasks);
	for (i = 0; i < made; i++)
		dwq_task_put(tasks[i]);
	dwq_client_uncharge(c, n - made);
	return err;
}

static long dwq_ioctl_schedule(struct dwq_client *c,
			     struct dwq_ioc_schedule __user *arg)
{
	struct dwq_ioc_schedule us;
	struct dwq_task *task;
	struct dwq_utask *ut;
	struct dwq_sched ds;
	int err;

	if (copy_from_user(&us, arg, sizeof(us)))
		return -EFAULT;
	err = dwq_dev_check_schedule(&us, &ds);
	if (err)
		return err;
	err = dwq_client_charge(c, 1);
	if (err)
		return err;
	err = dwq_utasks_new(c, &us, &task, 1);
	if (err)
		return err;
	ut = container_of(task, struct dwq_utask, task);
	/* The id goes out before the task can fire and be read. */
	if (put_user(ut->id, &arg->id)) {
		err = -EFAULT;
		goto err_forget;
	}
	err = dwq_schedule(c->q, &ut->task, &ds);
	if (err)
		goto err_forget;
	return 0;

err_forget:
	dwq_client_forget(c, ut);
	return err;
}

static long dwq_ioctl_schedule_batch(struct dwq_client *c,
				   struct dwq_ioc_schedule_batch __user *arg)
{
	struct dwq_ioc_schedule_batch b;
	struct dwq_ioc_schedule *us = NULL;
	struct dwq_sched *ds = NULL;
	struct dwq_task **tasks = NULL;
	unsigned int i;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	b.error_index = b.count;
	if (b.flags || b.reserved || !b.count ||
	    b.count > DWQ_SCHEDULE_BATCH_MAX) {
		err = -EINVAL;
		goto out_report;
	}
	us = kvmalloc_array(b.count, sizeof(*us), GFP_KERNEL);
	ds = kvmalloc_array(b.count, sizeof(*ds), GFP_KERNEL);
	tasks = kvmalloc_array(b.count, sizeof(*tasks), GFP_KERNEL);
	if (!us || !ds || !tasks) {
		err = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(us, u64_to_user_ptr(b.entries),
			   array_size(b.count, sizeof(*us)))) {
		err = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < b.count; i++) {
		err = dwq_dev_check_schedule(&us[i], &ds[i]);
		if (err) {
			b.error_index = i;
			goto out_free;
		}
	}
	err = dwq_client_charge(c, b.count);
	if (err)
		goto out_free;
	err = dwq_utasks_new(c, us, tasks, b.count);
	if (err)
		goto out_free;
	for (i = 0; i < b.count; i++)
		us[i].id = container_of(tasks[i], struct dwq_utask, task)->id;
	/*
	 * All ids, and error_index for success, go out before any task can
	 * fire: once the batch is scheduled nothing may fail any more, or it
	 * would not be all or nothing.
	 */
	if (copy_to_user(u64_to_user_ptr(b.entries), us,
			 array_size(b.count, sizeof(*us))) ||
	    put_user(b.count, &arg->error_index)) {
		err = -EFAULT;
		goto out_forget;
	}
	err = dwq_schedule_batch(c->q, tasks, ds, b.count);
	if (!err) {
		kvfree(tasks);
		kvfree(ds);
		kvfree(us);
		return 0;
	}

out_forget:
	for (i = 0; i < b.count; i++)
		dwq_client_forget(c, container_of(tasks[i], struct dwq_utask,
						  task));
out_free:
	kvfree(tasks);
	kvfree(ds);
	kvfree(us);
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

/*
 * Cancel @c's task @id, for DWQ_IOC_CANCEL. Return 0 with @result
 * DWQ_RESULT_REMOVED or DWQ_RESULT_RUNNING, and the id gone; or -ENOENT
 * for an id @c does not own (any more). DWQ_IOC_CANCEL_BATCH does the same
 * for many ids with dwq_client_cancel_many().
 */
static int dwq_client_cancel(struct dwq_client *c, u64 id, u32 *result)
{
	struct dwq_utask *ut;
	int ret;

	ut = dwq_client_get(c, id);
	if (!ut)
		return -ENOENT;
	ret = dwq_cancel(&ut->task);
	switch (ret) {
	case DWQ_RESULT_REMOVED:
		spin_lock_irq(&c->wqh.lock);
		c->cancelled++;
		spin_unlock_irq(&c->wqh.lock);
		fallthrough;
	case DWQ_RESULT_RUNNING:
		*result = ret;
		break;
	default:
		/* Neither queued nor running: done, and its id about to go. */
		ret = -ENOENT;
		break;
	}
	if (ret >= 0) {
		/* It will not fire again: its id goes now. */
		dwq_client_forget(c, ut);
		ret = 0;
	}
	dwq_task_put(&ut->task);
	return ret;
}

/* Most entries dwq_client_cancel_many() handles at once: a bit each. */
#define DWQ_CANCEL_CHUNK 32U

/*
 * Cancel @n (at most DWQ_CANCEL_CHUNK) of @c's tasks by id, in turn, as
 * dwq_client_cancel() does each: @uc[i].result gets DWQ_RESULT_REMOVED or
 * DWQ_RESULT_RUNNING, and the id is gone; or DWQ_RESULT_NOENT for an id @c
 * does not own (any more). For all @n together the file's lock is taken
 * twice (to look the ids up, to erase them), the queue's and the events'
 * once each.
 *
 * noinline_for_stack: its arrays stay out of the frame of the ioctl
 * dispatcher, which every ioctl goes through.
 */
static noinline_for_stack void dwq_client_cancel_many(struct dwq_client *c,
						      struct dwq_ioc_cancel *uc,
						      unsigned int n)
{
	struct dwq_task *tasks[DWQ_CANCEL_CHUNK];
	int ret[DWQ_CANCEL_CHUNK];
	unsigned int i, j, removed = 0, unlinked = 0;
	unsigned long gone = 0;
	struct dwq_utask *ut;
	struct rb_node *node;

	BUILD_BUG_ON(DWQ_CANCEL_CHUNK > BITS_PER_LONG);
	if (WARN_ON_ONCE(n > DWQ_CANCEL_CHUNK))
		n = DWQ_CANCEL_CHUNK;
	/* Look up, each with a reference: the ids stay until cancelled. */
	spin_lock(&c->lock);
	for (i = 0; i < n; i++) {
		node = rb_find(&uc[i].id, &c->tasks, dwq_utask_cmp);
		tasks[i] = NULL;
		if (node) {
			ut = rb_entry(node, struct dwq_utask, node);
			dwq_task_get(&ut->task);
			tasks[i] = &ut->task;
		}
	}
	spin_unlock(&c->lock);

	dwq_cancel_batch(c->q, tasks, n, ret);
	for (i = 0; i < n; i++) {
		switch (ret[i]) {
		case DWQ_RESULT_REMOVED:
			removed++;
			fallthrough;
		case DWQ_RESULT_RUNNING:
			uc[i].result = ret[i];
			break;
		default:
			/*
			 * Not the file's, or neither queued nor running: done,
			 * and its id about to go.
			 */
			uc[i].result = DWQ_RESULT_NOENT;
			continue;
		}
		__set_bit(i, &gone);
	}
	if (removed) {
		spin_lock_irq(&c->wqh.lock);
		c->cancelled += removed;
		spin_unlock_irq(&c->wqh.lock);
	}

	/* Those cancelled will not fire again: their ids go now. */
	if (gone) {
		spin_lock(&c->lock);
		for_each_set_bit(i, &gone, n) {
			ut = container_of(tasks[i], struct dwq_utask, task);
			if (__dwq_client_unlink(c, ut)) {
				unlinked++;
				continue;
			}
			/*
			 * A one-shot's firing, or another thread's cancel,
			 * took the id out, and the map's reference.
			 */
			__clear_bit(i, &gone);
			/*
			 * Or an earlier entry did: the same id twice, whose
			 * second cancel finds it gone, as it would in turn.
			 */
			for (j = 0; j < i; j++) {
				if (tasks[j] == tasks[i]) {
					uc[i].result = DWQ_RESULT_NOENT;
					break;
				}
			}
		}
		spin_unlock(&c->lock);
		atomic_sub(unlinked, &c->nr_tasks);
	}
	for (i = 0; i < n; i++) {
		if (!tasks[i])
			continue;
		/* The map's reference, then ours. */
		if (test_bit(i, &gone))
			dwq_task_put(tasks[i]);
		dwq_task_put(tasks[i]);
	}
}

static long dwq_ioctl_cancel(struct dwq_client *c, struct dwq_ioc_cancel __user *arg)
{
	struct dwq_ioc_cancel uc;
	int ret;

	if (copy_from_user(&uc, arg, sizeof(uc)))
		return -EFAULT;
	if (uc.reserved)
		return -EINVAL;
	ret = dwq_client_cancel(c, uc.id, &uc.result);
	if (ret)
		return ret;
	return put_user(uc.result, &arg->result) ? -EFAULT : 0;
}

static long dwq_ioctl_cancel_batch(struct dwq_client *c,
				 struct dwq_ioc_cancel_batch __user *arg)
{
	struct dwq_ioc_cancel_batch b;
	struct dwq_ioc_cancel *uc = NULL;
	void __user *entries;
	unsigned int i;
	size_t size;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	b.error_index = b.count;
	if (b.flags || b.reserved || !b.count ||
	    b.count > DWQ_CANCEL_BATCH_MAX) {
		err = -EINVAL;
		goto out_report;
	}
	/* At most DWQ_CANCEL_BATCH_MAX entries: 16 KiB (dwq_dev_init()). */
	uc = kvmalloc_array(b.count, sizeof(*uc), GFP_KERNEL_ACCOUNT);
	if (!uc) {
		err = -ENOMEM;
		goto out_report;
	}
	entries = u64_to_user_ptr(b.entries);
	size = array_size(b.count, sizeof(*uc));
	if (copy_from_user(uc, entries, size)) {
		err = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < b.count; i++) {
		if (uc[i].reserved) {
			b.error_index = i;
			err = -EINVAL;
			goto out_free;
		}
	}
	/*
	 * Prove the array and error_index writable before cancelling
	 * anything: a batch that faults here has changed nothing.
	 */
	if (copy_to_user(entries, uc, size) ||
	    put_user(b.count, &arg->error_index)) {
		err = -EFAULT;
		goto out_free;
	}
	/* An id not the file's (any more) is an answer, not a failure. */
	for (i = 0; i < b.count; i += DWQ_CANCEL_CHUNK) {
		dwq_client_cancel_many(c, &uc[i],
				       min(b.count - i, DWQ_CANCEL_CHUNK));
		cond_resched();
	}
	/* Only fails if another thread unmapped the array meanwhile. */
	err = copy_to_user(entries, uc, size) ? -EFAULT : 0;
	kvfree(uc);
	return err;

out_free:
	kvfree(uc);
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

static long dwq_ioctl_reschedule(struct dwq_client *c,
			       struct dwq_ioc_reschedule __user *arg)
{
	struct dwq_ioc_reschedule ur;
	struct dwq_utask *ut;
	struct dwq_sched ds;
	u32 mode;
	int err;

	if (copy_from_user(&ur, arg, sizeof(ur)))
		return -EFAULT;
	if (ur.reserved[0] || ur.reserved[1])
		return -EINVAL;
	if (ur.flags &
	    ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME | DWQ_RESCHED_PERIOD))
		return -EINVAL;
	if (!(ur.flags & DWQ_RESCHED_PERIOD) && (ur.mode || ur.period_ns))
		return -EINVAL;
	/* Without DWQ_RESCHED_PERIOD, mode and period stay as they are. */
	mode = ur.flags & DWQ_RESCHED_PERIOD ? ur.mode : DWQ_MODE_ONESHOT;
	err = dwq_dev_sched(&ds, ur.time_ns, ur.period_ns, mode, ur.flags);
	if (err)
		return err;
	ut = dwq_client_get(c, ur.id);
	if (!ut)
		return -ENOENT;
	err = dwq_reschedule(&ut->task, &ds);
	dwq_task_put(&ut->task);
	return err;
}

static long dwq_ioctl_query(struct dwq_client *c, struct dwq_ioc_query __user *arg)
{
	struct dwq_task_info info;
	struct dwq_ioc_query uq;
	struct dwq_utask *ut;

	if (copy_from_user(&uq, arg, sizeof(uq)))
		return -EFAULT;
	if (uq.reserved[0] || uq.reserved[1] || uq.reserved[2])
		return -EINVAL;
	ut = dwq_client_get(c, uq.id);
	if (!ut)
		return -ENOENT;
	dwq_query(&ut->task, &info);
	uq.cookie = ut->cookie;
	dwq_task_put(&ut->task);

	uq.remaining_ns = info.remaining_ns;
	uq.deadline_ns = info.deadline_ns;
	uq.period_ns = info.period_ns;
	uq.runs = info.runs;
	uq.overruns = info.overruns;
	/* Cancelled by another thread since the lookup: its id is going. */
	uq.state = info.state == DWQ_STATE_CANCELLED ? DWQ_STATE_IDLE :
						       info.state;
	uq.mode = info.mode;
	uq.flags = info.flags;
	return copy_to_user(arg, &uq, sizeof(uq)) ? -EFAULT : 0;
}

static long dwq_ioctl_stats(struct dwq_client *c, struct dwq_ioc_stats __user *arg)
{
	struct dwq_queue_stats qs;
	struct dwq_ioc_stats st = {};

	dwq_queue_get_stats(c->q, &qs);
	st.pending = atomic_read(&c->nr_tasks);
	spin_lock_irq(&c->wqh.lock);
	st.fired = c->fired;
	st.cancelled = c->cancelled;
	st.coalesced = c->coalesced;
	st.events = c->nr_events;
	spin_unlock_irq(&c->wqh.lock);
	st.queue_size = qs.size;
	st.queue_capacity = qs.capacity;
	st.workers = qs.workers;
	st.leader = qs.leader;
	st.timed_waits = qs.total.timed_waits;
	st.untimed_waits = qs.total.untimed_waits;
	st.wakeups = qs.total.wakeups;
	st.spurious_wakeups = qs.total.spurious_wakeups;
	st.tasks_run = qs.total.tasks_run;
	st.leader_changes = qs.total.leader_changes;
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static long dwq_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct dwq_client *c = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DWQ_IOC_SCHEDULE:
		return dwq_ioctl_schedule(c, uarg);
	case DWQ_IOC_SCHEDULE_BATCH:
		return dwq_ioctl_schedule_batch(c, uarg);
	case DWQ_IOC_CANCEL:
		return dwq_ioctl_cancel(c, uarg);
	case DWQ_IOC_RESCHEDULE:
		return dwq_ioctl_reschedule(c, uarg);
	case DWQ_IOC_QUERY:
		return dwq_ioctl_query(c, uarg);
	case DWQ_IOC_STATS:
		return dwq_ioctl_stats(c, uarg);
	case DWQ_IOC_CANCEL_BATCH:
		return dwq_ioctl_cancel_batch(c, uarg);
	default:
		return -ENOTTY;
	}
}

/* Events read() copies per hold of the events' lock (on its stack). */
#define DWQ_READ_CHUNK 8

/*
 * Copy up to @max of the oldest events into @ev, with their tasks in @uts
 * and generations in @gens, or say why not. Copying to user space happens
 * outside the lock, so the events stay on the list until the copy
 * succeeded; the generations tell the caller whether one changed meanwhile.
 *
 * Return: the number of events (at least 1), or -EAGAIN, -ERESTARTSYS.
 */
static int dwq_client_peek(struct dwq_client *c, bool block, unsigned int max,
			   struct dwq_utask **uts, struct dwq_event *ev,
			   u64 *gens)
{
	struct dwq_utask *ut;
	int err, n = 0;

	spin_lock_irq(&c->wqh.lock);
	if (list_empty(&c->events)) {
		if (!block) {
			spin_unlock_irq(&c->wqh.lock);
			return -EAGAIN;
		}
		/*
		 * Not clang-formatted: it would end a line in "!list_empty(",
		 * which checkpatch rejects (OPEN_ENDED_LINE).
		 */
		/* clang-format off */
		err = wait_event_interruptible_locked_irq(c->wqh,
							  !list_empty(&c->events));
		/* clang-format on */
		if (err) {
			spin_unlock_irq(&c->wqh.lock);
			return err;
		}
	}
	list_for_each_entry(ut, &c->events, link) {
		ev[n] = ut->ev;
		gens[n] = ut->gen;
		uts[n] = ut;
		if (++n == max)
			break;
	}
	spin_unlock_irq(&c->wqh.lock);
	return n;
}

/*
 * Take the @n events copied off the list, as long as each is still the
 * version copied: a firing folded into one meanwhile ends the prefix taken
 * here, and the caller copies its new version next.
 *
 * Return: how many were taken, the first ones of @uts.
 */
static unsigned int dwq_client_consume(struct dwq_client *c,
				       struct dwq_utask **uts, const u64 *gens,
				       unsigned int n)
{
	unsigned int i, taken;

	spin_lock_irq(&c->wqh.lock);
	for (taken = 0; taken < n; taken++) {
		if (uts[taken]->gen != gens[taken])
			break;
		list_del_init(&uts[taken]->link);
		c->nr_events--;
	}
	spin_unlock_irq(&c->wqh.lock);
	for (i = 0; i < taken; i++)
		dwq_task_put(&uts[i]->task);
	return taken;
}

static ssize_t dwq_dev_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct dwq_client *c = file->private_data;
	struct dwq_utask *uts[DWQ_READ_CHUNK];
	struct dwq_event ev[DWQ_READ_CHUNK];
	u64 gens[DWQ_READ_CHUNK];
	size_t done = 0, max, left;
	int err = 0, n;

	if (count < sizeof(*ev))
		return -EINVAL;
	if (mutex_lock_interruptible(&c->read_mutex))
		return -ERESTARTSYS;
	while (count - done >= sizeof(*ev)) {
		max = min_t(size_t, DWQ_READ_CHUNK,
			    (count - done) / sizeof(*ev));
		/* Block only for the first event. */
		n = dwq_client_peek(c, !done && !(file->f_flags & O_NONBLOCK),
				    max, uts, ev, gens);
		if (n < 0) {
			err = n;
			break;
		}
		/*
		 * The events stay on the list, and so their tasks alive, while
		 * we copy: only readers take events off, and we hold
		 * read_mutex.
		 */
		left = copy_to_user(buf + done, ev, n * sizeof(*ev));
		if (left) {
			/* The events copied whole before the fault are read. */
			n -= DIV_ROUND_UP(left, sizeof(*ev));
			done += dwq_client_consume(c, uts, gens, n) *
				sizeof(*ev);
			err = -EFAULT;
			break;
		}
		done += dwq_client_consume(c, uts, gens, n) * sizeof(*ev);
	}
	mutex_unlock(&c->read_mutex);
	return done ? done : err;
}

static __poll_t dwq_dev_poll(struct file *file, poll_table *wait)
{
	struct dwq_client *c = file->private_data;
	__poll_t events = 0;

	poll_wait(file, &c->wqh, wait);
	/*
	 * Events are added under wqh.lock, which poll_wait() takes (through
	 * add_wait_queue) when the caller is going to sleep: the same
	 * argument as in eventfd_poll() shows that a firing either sees us
	 * on the wait queue and wakes us, or happened before this check.
	 */
	spin_lock_irq(&c->wqh.lock);
	if (!list_empty(&c->events))
		events |= EPOLLIN | EPOLLRDNORM;
	spin_unlock_irq(&c->wqh.lock);
	return events;
}

static int dwq_dev_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct dwq_dev *dev = container_of(misc, struct dwq_dev, misc);
	struct dwq_client *c;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	c->user = dwq_user_get(file->f_cred);
	if (IS_ERR(c->user)) {
		err = PTR_ERR(c->user);
		goto err_free;
	}
	kref_init(&c->ref);
	c->q = dev->q;
	spin_lock_init(&c->lock);
	c->tasks = RB_ROOT;
	atomic_set(&c->nr_tasks, 0);
	init_waitqueue_head(&c->wqh);
	INIT_LIST_HEAD(&c->events);
	mutex_init(&c->read_mutex);
	file->private_data = c;
	return stream_open(inode, file);

err_free:
	kfree(c);
	return err;
}

static int dwq_dev_release(struct inode *inode, struct file *file)
{
	struct dwq_client *c = file->private_data;
	struct dwq_utask *ut, *tmp;
	struct rb_node *node;
	LIST_HEAD(events);

	/* From here on a firing queues no event. */
	spin_lock_irq(&c->wqh.lock);
	c->closed = true;
	spin_unlock_irq(&c->wqh.lock);

	/*
	 * Cancel every task still owned, waiting for running callbacks.
	 * A one-shot firing right now may erase its own entry first; then it
	 * owns that reference and its callback finishes on its own.
	 */
	for (;;) {
		spin_lock(&c->lock);
		node = rb_first(&c->tasks);
		ut = node ? rb_entry(node, struct dwq_utask, node) : NULL;
		if (ut)
			__dwq_client_unlink(c, ut);
		spin_unlock(&c->lock);
		if (!ut)
			break;
		atomic_dec(&c->nr_tasks);
		dwq_cancel_sync(&ut->task);
		dwq_task_put(&ut->task);
	}

	spin_lock_irq(&c->wqh.lock);
	list_splice_init(&c->events, &events);
	c->nr_events = 0;
	spin_unlock_irq(&c->wqh.lock);
	list_for_each_entry_safe(ut, tmp, &events, link) {
		list_del_init(&ut->link);
		dwq_task_put(&ut->task);
	}

	kref_put(&c->ref, dwq_client_free);
	return 0;
}

static void dwq_dev_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct dwq_client *c = file->private_data;
	struct dwq_task_info info;
	struct dwq_utask *ut;
	struct rb_node *node;
	u64 next = 0, nr_events;
	bool any = false;

	/* O(n) in the file's tasks; fdinfo is for people, not hot paths. */
	spin_lock(&c->lock);
	for (node = rb_first(&c->tasks); node; node = rb_next(node)) {
		ut = rb_entry(node, struct dwq_utask, node);
		dwq_query(&ut->task, &info);
		if (info.state != DWQ_STATE_QUEUED)
			continue;
		if (!any || info.deadline_ns < next)
			next = info.deadline_ns;
		any = true;
	}
	spin_unlock(&c->lock);
	spin_lock_irq(&c->wqh.lock);
	nr_events = c->nr_events;
	spin_unlock_irq(&c->wqh.lock);

	seq_printf(m, "dwq-pending: %d\n", atomic_read(&c->nr_tasks));
	seq_printf(m, "dwq-events: %llu\n", nr_events);
	seq_printf(m, "dwq-next-deadline-ns: %llu\n", next);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* For KUnit: make @id the last id @file has given, to reach U64_MAX. */
void dwq_dev_kunit_set_last_id(struct file *file, u64 id)
{
	struct dwq_client *c = file->private_data;

	spin_lock(&c->lock);
	c->next_id = id;
	spin_unlock(&c->lock);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_set_last_id);

/* For KUnit: the tasks of all files, and of @file's user, charged. */
void dwq_dev_kunit_charged(struct file *file, int *all, int *user)
{
	struct dwq_client *c = file->private_data;

	*all = atomic_read(&dwq_dev_nr_tasks);
	*user = atomic_read(&c->user->nr_tasks);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_charged);
#endif

static const struct file_operations dwq_dev_fops = {
	.owner = THIS_MODULE,
	.open = dwq_dev_open,
	.release = dwq_dev_release,
	.read = dwq_dev_read,
	.poll = dwq_dev_poll,
	.unlocked_ioctl = dwq_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
	.show_fdinfo = dwq_dev_show_fdinfo,
};

/**
 * dwq_dev_create() - register a dwq character device
 * @name: its name under /dev; copied
 * @mode: its permission bits, e.g. 0600
 * @q: the queue the tasks of its files run on
 *
 * Context: process context, may sleep.
 * Return: the device, or an ERR_PTR(): -ENOMEM, or what misc_register()
 * returned (-EEXIST for a name in use).
 */
struct dwq_dev *dwq_dev_create(const char *name, umode_t mode,
			       struct dwq_queue *q)
{
	struct dwq_dev *dev;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->misc.name = kstrdup(name, GFP_KERNEL);
	if (!dev->misc.name) {
		err = -ENOMEM;
		goto err_free;
	}
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.fops = &dwq_dev_fops;
	dev->misc.mode = mode;
	dev->q = q;
	err = misc_register(&dev->misc);
	if (err)
		goto err_name;
	return dev;

err_name:
	kfree(dev->misc.name);
err_free:
	kfree(dev);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_create);

/**
 * dwq_dev_destroy() - unregister and free a device from dwq_dev_create()
 * @dev: the device
 *
 * Its files hold a reference to the module, so none is open here when
 * called at module exit; a test calling it must close its files first.
 *
 * Context: process context, may sleep.
 */
void dwq_dev_destroy(struct dwq_dev *dev)
{
	misc_deregister(&dev->misc);
	kfree(dev->misc.name);
	kfree(dev);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_destroy);

/**
 * dwq_dev_init() - set up what every dwq device shares
 *
 * Context: module init.
 * Return: 0, -EINVAL for inconsistent limits, or -ENOMEM.
 */
int dwq_dev_init(void)
{
	BUILD_BUG_ON(sizeof(struct dwq_ioc_schedule) != 64);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_schedule_batch) != 24);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_cancel) != 16);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_reschedule) != 48);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_query) != 80);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_stats) != 168);
	BUILD_BUG_ON(sizeof(struct dwq_event) != 48);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_cancel_batch) != 24);
	BUILD_BUG_ON(DWQ_SCHEDULE_BATCH_MAX > DWQ_BATCH_MAX);
	/* dwq_ioctl_cancel_batch()'s copy of the array stays small. */
	BUILD_BUG_ON(DWQ_CANCEL_BATCH_MAX * sizeof(struct dwq_ioc_cancel) > 16384);

	/*
	 * Each limit was checked on its own when it was set; together, no
	 * periodic task could be scheduled if the shortest period allowed
	 * were longer than the longest. (Root changing either at run time is
	 * trusted to keep them consistent.)
	 */
	if (min_period_ns > max_delay_ns) {
		pr_err("min_period_ns=%lu is above max_delay_ns=%lu: no period could be scheduled\n",
		       min_period_ns, max_delay_ns);
		return -EINVAL;
	}

	dwq_utask_cache = KMEM_CACHE(dwq_utask, SLAB_ACCOUNT);
	return dwq_utask_cache ? 0 : -ENOMEM;
}

/**
 * dwq_dev_exit() - undo dwq_dev_init()
 *
 * Context: module exit, after every device is destroyed.
 */
void dwq_dev_exit(void)
{
	/* Every file is closed: a charge left is a leak (the test guests fail). */
	WARN_ON(atomic_read(&dwq_dev_nr_tasks));
	WARN_ON(!xa_empty(&dwq_users));
	kmem_cache_destroy(dwq_utask_cache);
}
