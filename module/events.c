// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq events: a firing becomes an event, read() and poll() deliver
 * it. The wait queue's own lock (&dwq_client.wqh.lock) guards the event
 * list and the file's counters, as in fs/eventfd.c: a firing adds under
 * it and wakes the readers with wake_up_locked_poll(); readers wait with
 * wait_event_interruptible_locked_irq(). Copies to user space happen with
 * the lock dropped.
 */
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "dev.h"
#include "trace.h"

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

/**
 * dwq_utask_fire() - the callback of every /dev/dwq task: post its event
 * @task: the task, firing
 *
 * Queues the task's event, or folds this firing into its unread one, and
 * wakes a reader. A one-shot's id goes first.
 *
 * Context: a dwq worker; takes the file's locks, does not sleep.
 */
void dwq_utask_fire(struct dwq_task *task)
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
		trace_dwq_dev_event(ut, true);
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
		trace_dwq_dev_event(ut, false);
		wake_up_locked_poll(&c->wqh, EPOLLIN);
	}
	spin_unlock_irq(&c->wqh.lock);
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

/**
 * dwq_dev_read() - read() of /dev/dwq: whole events, oldest first
 * @file: the file
 * @buf: where to
 * @count: room in @buf; at least one event
 * @ppos: unused (a stream)
 *
 * Context: process context; may sleep.
 * Return: bytes read, a multiple of the event size; or -EINVAL (@count too
 * small), -EAGAIN, -ERESTARTSYS, -EFAULT.
 */
ssize_t dwq_dev_read(struct file *file, char __user *buf, size_t count,
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

/**
 * dwq_dev_poll() - poll() of /dev/dwq: EPOLLIN while an event is unread
 * @file: the file
 * @wait: the poll table
 *
 * Context: process context.
 * Return: the events ready.
 */
__poll_t dwq_dev_poll(struct file *file, poll_table *wait)
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

/**
 * dwq_events_close() - the file is being released: queue no more events
 * @c: the file
 *
 * Context: process context.
 */
void dwq_events_close(struct dwq_client *c)
{
	spin_lock_irq(&c->wqh.lock);
	c->closed = true;
	spin_unlock_irq(&c->wqh.lock);
}

/**
 * dwq_events_drain() - drop the events nobody will read
 * @c: the file, closed by dwq_events_close(), its tasks cancelled
 *
 * Context: process context.
 */
void dwq_events_drain(struct dwq_client *c)
{
	struct dwq_utask *ut, *tmp;
	LIST_HEAD(events);

	spin_lock_irq(&c->wqh.lock);
	list_splice_init(&c->events, &events);
	c->nr_events = 0;
	spin_unlock_irq(&c->wqh.lock);
	list_for_each_entry_safe(ut, tmp, &events, link) {
		list_del_init(&ut->link);
		dwq_task_put(&ut->task);
	}
}

/**
 * dwq_events_cancelled() - count tasks cancelled before they fired (again)
 * @c: their file
 * @n: how many
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context).
 */
void dwq_events_cancelled(struct dwq_client *c, unsigned int n)
{
	unsigned long flags;

	spin_lock_irqsave(&c->wqh.lock, flags);
	c->cancelled += n;
	spin_unlock_irqrestore(&c->wqh.lock, flags);
}

/**
 * dwq_events_stats() - the file's event counters, for DWQ_IOC_STATS
 * @c: the file
 * @st: @fired, @cancelled, @coalesced and @events filled in
 *
 * Context: process context.
 */
void dwq_events_stats(struct dwq_client *c, struct dwq_ioc_stats *st)
{
	spin_lock_irq(&c->wqh.lock);
	st->fired = c->fired;
	st->cancelled = c->cancelled;
	st->coalesced = c->coalesced;
	st->events = c->nr_events;
	spin_unlock_irq(&c->wqh.lock);
}
