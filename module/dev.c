// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq: the character device through which user space reaches dwq.
 * This file has the file operations, the files' tasks and their id maps;
 * dev.h says which file does the rest.
 */
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <dwq.h>
#include <uapi/linux/dwq.h>

#include "dev.h"
#include "dwq_internal.h"
#include "trace.h"

static struct kmem_cache *dwq_utask_cache;

/*
 * The last reference to a client, and to a utask, may go in the queue's
 * timer (softirq context): a one-shot fired after close() drops it when
 * its callback returns. What they free is fine there.
 */
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

	dwq_limits_release(c->user);
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
 * Take @ut out of @c's map, and its firing rate off its user's budget: a
 * task without an id never fires again. Return true if it was there:
 * whoever takes it out owns the map's reference.
 */
static bool __dwq_client_unlink(struct dwq_client *c, struct dwq_utask *ut)
{
	lockdep_assert_held(&c->lock);
	if (RB_EMPTY_NODE(&ut->node))
		return false;
	rb_erase(&ut->node, &c->tasks);
	RB_CLEAR_NODE(&ut->node);
	dwq_limits_rate_release(c->user, ut->rate);
	ut->rate = 0;
	return true;
}

/**
 * dwq_client_forget() - drop a task's id and the id map's reference
 * @c: the file
 * @ut: its task
 *
 * Nothing happens if someone else did already.
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context): a task's callback may call it.
 */
void dwq_client_forget(struct dwq_client *c, struct dwq_utask *ut)
{
	unsigned long flags;
	bool unlinked;

	spin_lock_irqsave(&c->lock, flags);
	unlinked = __dwq_client_unlink(c, ut);
	spin_unlock_irqrestore(&c->lock, flags);
	if (unlinked) {
		atomic_dec(&c->nr_tasks);
		dwq_task_put(&ut->task);
	}
}

/**
 * dwq_client_get() - look a task up by id
 * @c: the file
 * @id: the id
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context).
 * Return: the task, with a reference; or NULL.
 */
struct dwq_utask *dwq_client_get(struct dwq_client *c, u64 id)
{
	struct dwq_utask *ut = NULL;
	struct rb_node *node;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	node = rb_find(&id, &c->tasks, dwq_utask_cmp);
	if (node) {
		ut = rb_entry(node, struct dwq_utask, node);
		dwq_task_get(&ut->task);
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return ut;
}

/**
 * dwq_client_set_rate() - change the firing rate charged for a task
 * @c: the file
 * @ut: its task
 * @rate: the new rate, mHz (dwq_limits_rate())
 * @check: refuse a rise past the user's budget; otherwise take it anyway
 *	(only to undo a fall, whose room nobody else may have taken)
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context).
 * Return: 0; -ENOENT if @ut's id is gone; -ENOSPC if @check and the rise
 * does not fit. Nothing changed on failure.
 */
int dwq_client_set_rate(struct dwq_client *c, struct dwq_utask *ut, u64 rate,
			bool check)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&c->lock, flags);
	if (RB_EMPTY_NODE(&ut->node)) {
		err = -ENOENT;
	} else if (rate > ut->rate) {
		if (check)
			err = dwq_limits_rate_charge(c->user, rate - ut->rate);
		else
			dwq_limits_rate_release(c->user, ut->rate - rate);
	} else {
		dwq_limits_rate_release(c->user, ut->rate - rate);
	}
	if (!err)
		ut->rate = rate;
	spin_unlock_irqrestore(&c->lock, flags);
	return err;
}

/**
 * dwq_utasks_new() - make tasks for schedule requests, all or none
 * @c: the file
 * @us: @n requests; their cookies are taken
 * @tasks: out: @n tasks, each with an id in @c's map (which holds the
 *	caller's reference)
 * @n: how many
 * @rate: their firing rate together, mHz
 *
 * The file's lock is taken once for all the ids. The caller has charged
 * them with dwq_limits_charge(); on failure the charge is returned.
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOMEM, or -ENOSPC when the file has no ids left.
 */
int dwq_utasks_new(struct dwq_client *c, const struct dwq_ioc_schedule *us,
		   struct dwq_task **tasks, unsigned int n, u64 rate)
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

	spin_lock_irq(&c->lock);
	if (U64_MAX - c->next_id < n) {
		spin_unlock_irq(&c->lock);
		err = -ENOSPC;
		goto err_put;
	}
	for (i = 0; i < n; i++) {
		ut = container_of(tasks[i], struct dwq_utask, task);
		ut->id = ++c->next_id;
		ut->rate = dwq_limits_rate(us[i].mode, us[i].period_ns);
		rb_add(&ut->node, &c->tasks, dwq_utask_less);
	}
	spin_unlock_irq(&c->lock);
	return 0;

err_put:
	/*
	 * The release function of each one made returns its user's and its
	 * global charge; the file's goes here, with all three of the rest.
	 */
	atomic_sub(made, &c->nr_tasks);
	for (i = 0; i < made; i++)
		dwq_task_put(tasks[i]);
	dwq_limits_uncharge(c, n - made, rate);
	return err;
}

/**
 * dwq_client_cancel_many() - cancel tasks of a file by id, in turn
 * @c: the file
 * @uc: @n ids; each entry's @result gets %DWQ_RESULT_REMOVED or
 *	%DWQ_RESULT_RUNNING, and the id is gone; or %DWQ_RESULT_NOENT for an
 *	id @c does not own (any more), also one an earlier entry cancelled
 * @n: how many, at most BITS_PER_LONG
 * @tasks: room for @n task pointers, the caller's
 * @ret: room for @n results, the caller's
 *
 * DWQ_IOC_CANCEL is a batch of one. For all @n together the file's lock
 * is taken twice (to look the ids up, to erase them), the queue's and the
 * events' once each. The caller provides the arrays, so that a single
 * cancel does not pay for a batch's on its stack.
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context); does not sleep, but for a contended lock
 *	on PREEMPT_RT.
 */
void dwq_client_cancel_many(struct dwq_client *c, struct dwq_ioc_cancel *uc,
			    unsigned int n, struct dwq_task **tasks, int *ret)
{
	unsigned int i, j, unlinked = 0;
	unsigned long gone = 0;
	struct dwq_utask *ut;
	struct rb_node *node;
	unsigned long flags;

	if (WARN_ON_ONCE(n > BITS_PER_LONG))
		n = BITS_PER_LONG;
	/* Look up, each with a reference: the ids stay until cancelled. */
	spin_lock_irqsave(&c->lock, flags);
	for (i = 0; i < n; i++) {
		node = rb_find(&uc[i].id, &c->tasks, dwq_utask_cmp);
		tasks[i] = NULL;
		if (node) {
			ut = rb_entry(node, struct dwq_utask, node);
			dwq_task_get(&ut->task);
			tasks[i] = &ut->task;
		}
	}
	spin_unlock_irqrestore(&c->lock, flags);

	dwq_cancel_batch(c->q, tasks, n, ret);
	/* Counts them, and settles the skipped periods of parked ones. */
	dwq_events_cancelled(c, tasks, ret, n);
	for (i = 0; i < n; i++) {
		switch (ret[i]) {
		case DWQ_RESULT_REMOVED:
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
	/* Those cancelled will not fire again: their ids go now. */
	if (gone) {
		spin_lock_irqsave(&c->lock, flags);
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
		spin_unlock_irqrestore(&c->lock, flags);
		atomic_sub(unlinked, &c->nr_tasks);
	}
	for (i = 0; i < n; i++) {
		if (!tasks[i])
			continue;
		if (uc[i].result != DWQ_RESULT_NOENT)
			trace_dwq_dev_cancel(container_of(tasks[i],
							  struct dwq_utask,
							  task),
					     uc[i].result);
		/* The map's reference, then ours. */
		if (test_bit(i, &gone))
			dwq_task_put(tasks[i]);
		dwq_task_put(tasks[i]);
	}
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
	c->tgid = task_tgid_nr(current);
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
	struct dwq_utask *ut;
	struct rb_node *node;

	/* From here on a firing queues no event. */
	dwq_events_close(c);

	/*
	 * Cancel every task still owned, waiting for running callbacks.
	 * A one-shot firing right now may erase its own entry first; then it
	 * owns that reference and its callback finishes on its own.
	 */
	for (;;) {
		spin_lock_irq(&c->lock);
		node = rb_first(&c->tasks);
		ut = node ? rb_entry(node, struct dwq_utask, node) : NULL;
		if (ut)
			__dwq_client_unlink(c, ut);
		spin_unlock_irq(&c->lock);
		if (!ut)
			break;
		atomic_dec(&c->nr_tasks);
		dwq_cancel_sync(&ut->task);
		dwq_task_put(&ut->task);
	}

	dwq_events_drain(c);

	kref_put(&c->ref, dwq_client_free);
	return 0;
}

/*
 * fdinfo: the file's counts and its next task: its id, the deadline on
 * the task's clock, that clock, and the time left.
 */
static void dwq_dev_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct dwq_client *c = file->private_data;
	struct dwq_task_info info, next = {};
	struct dwq_ioc_stats st;
	struct dwq_utask *ut;
	struct rb_node *node;
	u64 next_id = 0;

	/* O(n) in the file's tasks; fdinfo is for people, not hot paths. */
	spin_lock_irq(&c->lock);
	for (node = rb_first(&c->tasks); node; node = rb_next(node)) {
		ut = rb_entry(node, struct dwq_utask, node);
		dwq_query(&ut->task, &info);
		/* A parked task waits for read(), not for a deadline. */
		if (info.state != DWQ_STATE_QUEUED || READ_ONCE(ut->parked))
			continue;
		/* Time left, not deadlines: tasks may be on different clocks. */
		if (!next_id || info.remaining_ns < next.remaining_ns) {
			next = info;
			next_id = ut->id;
		}
	}
	spin_unlock_irq(&c->lock);
	dwq_events_stats(c, &st);

	seq_printf(m, "dwq-tgid: %d\n", c->tgid);
	seq_printf(m, "dwq-pending: %d\n", atomic_read(&c->nr_tasks));
	seq_printf(m, "dwq-events: %llu\n", st.events);
	seq_printf(m, "dwq-next-id: %llu\n", next_id);
	seq_printf(m, "dwq-next-deadline-ns: %llu\n", next.deadline_ns);
	seq_printf(m, "dwq-next-clock: %s\n",
		   !next_id			   ? "-" :
		   next.flags & DWQ_SCHED_BOOTTIME ? "boottime" :
						     "monotonic");
	seq_printf(m, "dwq-next-remaining-ns: %llu\n", next.remaining_ns);
}

/* The heap dump's owner of a /dev/dwq task: its process and id. */
static void dwq_utask_describe(struct seq_file *m, const struct dwq_task *task)
{
	const struct dwq_utask *ut;

	if (task->func != dwq_utask_fire)
		return;
	ut = container_of(task, struct dwq_utask, task);
	seq_printf(m, " pid=%d id=%llu", ut->client->tgid, ut->id);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* For KUnit: make @id the last id @file has given, to reach U64_MAX. */
void dwq_dev_kunit_set_last_id(struct file *file, u64 id)
{
	struct dwq_client *c = file->private_data;

	spin_lock_irq(&c->lock);
	c->next_id = id;
	spin_unlock_irq(&c->lock);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_set_last_id);

/* For KUnit: the tasks of all files, and of @file's user, charged. */
void dwq_dev_kunit_charged(struct file *file, int *all, int *user)
{
	struct dwq_client *c = file->private_data;

	dwq_limits_charged(c->user, all, user);
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
	.uring_cmd = dwq_dev_uring_cmd,
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
	/* Tests register devices without a queue, to test the device alone. */
	if (q)
		dwq_queue_set_describe(q, dwq_utask_describe);
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
	int err;

	BUILD_BUG_ON(sizeof(struct dwq_ioc_schedule) != 64);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_schedule_batch) != 24);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_cancel) != 16);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_reschedule) != 48);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_query) != 88);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_stats) != 168);
	BUILD_BUG_ON(sizeof(struct dwq_event) != 64);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_cancel_batch) != 24);
	BUILD_BUG_ON(DWQ_SCHEDULE_BATCH_MAX > DWQ_BATCH_MAX);
	/* dwq_ioctl_cancel_batch()'s copy of the array stays small. */
	BUILD_BUG_ON(DWQ_CANCEL_BATCH_MAX * sizeof(struct dwq_ioc_cancel) >
		     16384);

	err = dwq_limits_init();
	if (err)
		return err;
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
	dwq_limits_exit();
	kmem_cache_destroy(dwq_utask_cache);
}
