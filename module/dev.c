// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq: the character device through which user space reaches dwq.
 * This file has the file operations, a file's tasks, its id map, its
 * heaps and its alarms; dev.h says which file does the rest.
 */
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <dwq.h>
#include <uapi/linux/dwq.h>

#include "dev.h"
#include "dwq_internal.h"
#include "trace.h"

static struct kmem_cache *dwq_utask_cache;

static const char *const dwq_clock_names[DWQ_NR_CLOCKS] = {
	[DWQ_CLOCK_MONOTONIC] = "monotonic",
	[DWQ_CLOCK_BOOTTIME] = "boottime",
};

/**
 * dwq_clock_now() - a file clock's time
 * @clock: an &enum dwq_clock
 *
 * Context: any context.
 * Return: ns on that clock.
 */
u64 dwq_clock_now(unsigned int clock)
{
	return clock == DWQ_CLOCK_BOOTTIME ? ktime_get_boottime_ns() :
					     ktime_get_ns();
}

/**
 * dwq_client_lock() - take a file's mutex
 * @c: the file
 * @nonblock: do not wait for it (an io_uring inline issue): -EAGAIN if
 *	another thread holds it, and io_uring retries from its worker
 *
 * Context: process context; may sleep unless @nonblock.
 * Return: 0 with the mutex held; -EAGAIN, or -ERESTARTSYS for a signal.
 */
int dwq_client_lock(struct dwq_client *c, bool nonblock)
{
	if (nonblock)
		return mutex_trylock(&c->mutex) ? 0 : -EAGAIN;
	return mutex_lock_interruptible(&c->mutex) ? -ERESTARTSYS : 0;
}

static int dwq_utask_cmp(const void *key, const struct rb_node *node)
{
	const struct dwq_utask *ut = rb_entry(node, struct dwq_utask, idnode);
	u64 id = *(const u64 *)key;

	return id < ut->id ? -1 : id > ut->id;
}

static bool dwq_utask_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct dwq_utask, idnode)->id <
	       rb_entry(b, struct dwq_utask, idnode)->id;
}

/**
 * dwq_client_find() - look a task up by id
 * @c: the file, its mutex held
 * @id: the id
 *
 * A due one-shot is still found: the caller decides, at one moment for
 * the whole call, that the user no longer sees its id (a due one-shot
 * has fired as far as the user can tell: its event waits).
 *
 * Context: process context, @c->mutex held.
 * Return: the task, or NULL.
 */
struct dwq_utask *dwq_client_find(struct dwq_client *c, u64 id)
{
	struct rb_node *node;

	lockdep_assert_held(&c->mutex);
	node = rb_find(&id, &c->tasks, dwq_utask_cmp);
	return node ? rb_entry(node, struct dwq_utask, idnode) : NULL;
}

/**
 * dwq_client_grow() - make room in a file's heap for more tasks
 * @c: the file, its mutex held
 * @clock: which heap
 * @n: tasks about to be added
 *
 * Context: process context, @c->mutex held; sleeps.
 * Return: 0; -ENOMEM, or -ENOSPC past the heap's largest size. Nothing
 * changed on failure.
 */
int dwq_client_grow(struct dwq_client *c, unsigned int clock, unsigned int n)
{
	struct dwq_heap *heap = &c->clk[clock].heap;
	struct dwq_heap_slot *slots;
	unsigned int want;

	lockdep_assert_held(&c->mutex);
	want = dwq_heap_want_capacity(heap, n);
	if (!want)
		return -ENOSPC;
	if (want <= heap->cap)
		return 0;
	/*
	 * The slots are the tasks' too: charged to the file's owner. Past
	 * its memory cgroup's limit the schedule fails with -ENOMEM: no
	 * warning for the log.
	 */
	slots = kvmalloc_array(want, sizeof(*slots),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!slots)
		return -ENOMEM;
	kvfree(dwq_heap_adopt(heap, slots, want));
	return 0;
}

/**
 * dwq_client_shrink() - give back heap room a file no longer uses
 * @c: the file, its mutex held
 * @clock: which heap
 *
 * The heap halves when a quarter of it is used (dwq_heap_want_capacity()),
 * and an empty heap frees its array. A failed allocation keeps the old.
 *
 * Context: process context, @c->mutex held; sleeps.
 */
void dwq_client_shrink(struct dwq_client *c, unsigned int clock)
{
	struct dwq_heap *heap = &c->clk[clock].heap;
	struct dwq_heap_slot *slots;
	unsigned int want;

	lockdep_assert_held(&c->mutex);
	if (!heap->nr) {
		kvfree(heap->slots);
		dwq_heap_init(heap, NULL, 0);
		return;
	}
	want = dwq_heap_want_capacity(heap, 0);
	if (!want || want >= heap->cap)
		return;
	slots = kvmalloc_array(want, sizeof(*slots),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (slots)
		kvfree(dwq_heap_adopt(heap, slots, want));
}

/*
 * The alarm's callback: the earliest task of one clock of the file is
 * due. It only wakes the readers and pollers, who fire the task; it never
 * touches the heap, whose mutex it cannot take. If the head was cancelled
 * meanwhile (the alarm moves later then, but may be running already), the
 * reader finds nothing due and sleeps again.
 *
 * Context: the queue's timer (softirq) or a worker with softirqs off.
 */
static void dwq_client_alarm(struct dwq_task *task)
{
	struct dwq_client_clock *clk =
		container_of(task, struct dwq_client_clock, alarm);

	wake_up_poll(&clk->client->wqh, EPOLLIN | EPOLLRDNORM);
}

/**
 * dwq_client_arm() - arm a file's alarm at its heap's earliest deadline
 * @c: the file, its mutex held
 * @clock: which heap changed
 *
 * Called after every change of the heap: an earlier head moves the alarm
 * earlier, a later one moves it later, an empty heap cancels it. The
 * alarm is one engine task: dwq_mod() moves it in O(log n) of the shared
 * queue. A head already due arms it in the past: it fires at once and
 * wakes the readers. A head that stays as it was is not armed again, so
 * a due task nobody reads costs one firing of the alarm.
 *
 * Context: process context, @c->mutex held; may sleep (to make room in
 * the queue, which the file reserved at open, so it does not fail).
 * Return: true if the alarm was armed anew (at a new earliest deadline:
 * it fires there, and wakes the readers), false if it stays as it was.
 */
bool dwq_client_arm(struct dwq_client *c, unsigned int clock)
{
	struct dwq_client_clock *clk = &c->clk[clock];
	struct dwq_heap_node *head = dwq_heap_peek(&clk->heap);
	struct dwq_sched at = { .flags = DWQ_SCHED_ABS };
	u64 next = head ? head->deadline : U64_MAX;
	int err;

	lockdep_assert_held(&c->mutex);
	WRITE_ONCE(clk->next, next);
	if (next == clk->armed || !c->q)
		return false;
	clk->armed = next;
	if (next == U64_MAX) {
		/* Nothing left: a callback running now only wakes in vain. */
		dwq_cancel(&clk->alarm);
		return false;
	}
	at.time_ns = next;
	if (clock == DWQ_CLOCK_BOOTTIME)
		at.flags |= DWQ_SCHED_BOOTTIME;
	err = dwq_mod(c->q, &clk->alarm, &at);
	/* Kernel users of the queue took the room: make more. */
	while (err == -ENOSPC) {
		err = dwq_queue_reserve(c->q, 1);
		if (err)
			break;
		err = dwq_mod(c->q, &clk->alarm, &at);
		dwq_queue_unreserve(c->q, 1);
	}
	if (err < 0) {
		/*
		 * Out of memory for the queue's heap: wake the readers now,
		 * and arm again at the next change of the heap (or read).
		 */
		clk->armed = U64_MAX;
		wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
	}
	return true;
}

/**
 * dwq_utask_alloc() - a new task, not yet the file's
 *
 * Context: process context; may sleep.
 * Return: the task, zeroed, or NULL.
 */
struct dwq_utask *dwq_utask_alloc(void)
{
	struct dwq_utask *ut;

	ut = kmem_cache_zalloc(dwq_utask_cache, GFP_KERNEL_ACCOUNT);
	if (ut) {
		dwq_heap_node_init(&ut->node);
		RB_CLEAR_NODE(&ut->idnode);
	}
	return ut;
}

/**
 * dwq_utask_free() - free a task from dwq_utask_alloc() that is no file's
 * @ut: the task, or NULL
 *
 * Context: any context.
 */
void dwq_utask_free(struct dwq_utask *ut)
{
	if (ut)
		kmem_cache_free(dwq_utask_cache, ut);
}

/**
 * dwq_utasks_add() - give new tasks their ids
 * @c: the file, its mutex held
 * @uts: @n tasks from dwq_utask_alloc()
 * @n: how many
 *
 * Context: process context, @c->mutex held.
 * Return: 0; -ENOSPC, with no id given, if the file has fewer than @n
 * ids left.
 */
int dwq_utasks_add(struct dwq_client *c, struct dwq_utask **uts, unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	if (U64_MAX - c->next_id < n)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		uts[i]->id = ++c->next_id;
		uts[i]->client = c;
		rb_add(&uts[i]->idnode, &c->tasks, dwq_utask_less);
	}
	return 0;
}

/**
 * dwq_utask_insert() - put a task in its clock's heap
 * @c: the file, its mutex held
 * @ut: the task, not in a heap; its clock set
 * @deadline: on that clock
 *
 * The caller made room with dwq_client_grow(). Equal deadlines leave in
 * the order of the file's inserts and moves, over both clocks.
 *
 * Context: process context, @c->mutex held.
 */
void dwq_utask_insert(struct dwq_client *c, struct dwq_utask *ut, u64 deadline)
{
	struct dwq_heap *heap = &c->clk[ut->clock].heap;

	lockdep_assert_held(&c->mutex);
	heap->next_seq = c->seq++;
	WARN_ON_ONCE(dwq_heap_insert(heap, &ut->node, deadline));
}

/**
 * dwq_utask_destroy() - a task is done: drop it and its charges
 * @c: the file, its mutex held
 * @ut: its task
 *
 * Out of the heap and the id map, its file's charge and firing rate
 * returned. An unread event it kept stays, and holds the task's charge to
 * its user and to all files until it is read; otherwise those go too.
 *
 * Context: process context, @c->mutex held.
 */
void dwq_utask_destroy(struct dwq_client *c, struct dwq_utask *ut)
{
	lockdep_assert_held(&c->mutex);
	if (dwq_heap_node_queued(&ut->node))
		dwq_heap_remove(&c->clk[ut->clock].heap, &ut->node);
	rb_erase(&ut->idnode, &c->tasks);
	atomic_dec(&c->nr_tasks);
	dwq_limits_rate_release(c->user, dwq_limits_rate(ut->mode, ut->period));
	if (ut->ev)
		ut->ev->ut = NULL;
	else
		dwq_limits_release(c->user);
	dwq_utask_free(ut);
}

static int dwq_dev_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct dwq_dev *dev = container_of(misc, struct dwq_dev, misc);
	struct dwq_client_clock *clk;
	struct dwq_client *c;
	unsigned int i;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return -ENOMEM;
	c->user = dwq_user_get(file->f_cred);
	if (IS_ERR(c->user)) {
		err = PTR_ERR(c->user);
		goto err_free;
	}
	/* The alarms' slots in the queue: arming them never fails. */
	if (dev->q) {
		err = dwq_queue_reserve(dev->q, DWQ_NR_CLOCKS);
		if (err)
			goto err_user;
		c->reserved = DWQ_NR_CLOCKS;
	}
	c->q = dev->q;
	c->tgid = task_tgid_nr(current);
	mutex_init(&c->mutex);
	c->tasks = RB_ROOT;
	atomic_set(&c->nr_tasks, 0);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		clk = &c->clk[i];
		dwq_heap_init(&clk->heap, NULL, 0);
		dwq_task_init(&clk->alarm, dwq_client_alarm, NULL);
		/* It wakes a wait queue: microseconds, no worker needed. */
		dwq_task_set_quick(&clk->alarm, true);
		clk->client = c;
		clk->next = U64_MAX;
		clk->armed = U64_MAX;
		clk->clock = i;
	}
	init_waitqueue_head(&c->wqh);
	INIT_LIST_HEAD(&c->ready);
	file->private_data = c;
	return stream_open(inode, file);

err_user:
	dwq_user_put(c->user);
err_free:
	kfree(c);
	return err;
}

static int dwq_dev_release(struct inode *inode, struct file *file)
{
	struct dwq_client *c = file->private_data;
	struct dwq_heap *heap;
	struct dwq_utask *ut;
	unsigned int i, j;

	/*
	 * No other file operation runs any more, so nothing arms the alarms
	 * again; one may be running in the queue's timer, which cancel_sync
	 * waits for. After it, nothing touches the client.
	 */
	for (i = 0; c->q && i < DWQ_NR_CLOCKS; i++)
		dwq_cancel_sync(&c->clk[i].alarm);

	mutex_lock(&c->mutex);
	/* Every task is in a heap, a cancelled one kept as its event too. */
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		heap = &c->clk[i].heap;
		for (j = 0; j < heap->nr; j++) {
			ut = container_of(heap->slots[j].node, struct dwq_utask,
					  node);
			if (!ut->last) {
				atomic_dec(&c->nr_tasks);
				dwq_limits_rate_release(c->user,
							dwq_limits_rate(ut->mode,
									ut->period));
			}
			dwq_limits_release(c->user);
			dwq_utask_free(ut);
		}
		kvfree(heap->slots);
		dwq_heap_init(heap, NULL, 0);
	}
	c->tasks = RB_ROOT;
	dwq_events_free(c);
	mutex_unlock(&c->mutex);

	WARN_ON(atomic_read(&c->nr_tasks));
	if (c->reserved)
		dwq_queue_unreserve(c->q, c->reserved);
	mutex_destroy(&c->mutex);
	dwq_user_put(c->user);
	kfree(c);
	return 0;
}

/*
 * fdinfo: the file's counts and its next task (the earliest not due yet):
 * its id, the deadline on the task's clock, that clock, and the time left.
 */
static void dwq_dev_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct dwq_client *c = file->private_data;
	struct dwq_utask *next;
	u64 remaining, events;

	mutex_lock(&c->mutex);
	dwq_events_next(c, &next, &remaining);
	events = dwq_events_count(c);
	seq_printf(m, "dwq-tgid: %d\n", c->tgid);
	seq_printf(m, "dwq-pending: %d\n", atomic_read(&c->nr_tasks));
	seq_printf(m, "dwq-events: %llu\n", events);
	seq_printf(m, "dwq-next-id: %llu\n", next ? next->id : 0);
	seq_printf(m, "dwq-next-deadline-ns: %llu\n",
		   next ? next->node.deadline : 0);
	seq_printf(m, "dwq-next-clock: %s\n",
		   next ? dwq_clock_names[next->clock] : "-");
	seq_printf(m, "dwq-next-remaining-ns: %llu\n", next ? remaining : 0);
	mutex_unlock(&c->mutex);
}

/*
 * The heap dump's owner of a /dev/dwq alarm: the file's process, the
 * alarm's clock and the tasks the file holds. Under the queue's lock: a
 * queued alarm's client is alive (release() cancels it before freeing).
 */
static void dwq_client_describe(struct seq_file *m, const struct dwq_task *task)
{
	const struct dwq_client_clock *clk;

	if (task->func != dwq_client_alarm)
		return;
	clk = container_of(task, struct dwq_client_clock, alarm);
	seq_printf(m, " pid=%d alarm=%s tasks=%d", clk->client->tgid,
		   dwq_clock_names[clk->clock],
		   atomic_read(&clk->client->nr_tasks));
}

#if IS_ENABLED(CONFIG_KUNIT)
/* For KUnit: make @id the last id @file has given, to reach U64_MAX. */
void dwq_dev_kunit_set_last_id(struct file *file, u64 id)
{
	struct dwq_client *c = file->private_data;

	mutex_lock(&c->mutex);
	c->next_id = id;
	mutex_unlock(&c->mutex);
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
		dwq_queue_set_describe(q, dwq_client_describe);
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
	/* A pending task costs this object and a 24-byte heap slot. */
	BUILD_BUG_ON(sizeof(struct dwq_utask) > 128);
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
