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
#include <linux/math64.h>
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

/*
 * A periodic run just posted (or folded) its event, which is unread: park
 * the task, so that none of its periods runs until read() takes the
 * event. It stays in the heap at DWQ_PARK_NS, holding its slot, unless
 * DWQ_IOC_RESCHEDULE set its next deadline during this run (then that
 * deadline stands: the user asked for it) or it was cancelled.
 */
static void dwq_utask_park(struct dwq_utask *ut, struct dwq_task *task)
{
	struct dwq_task_info info;
	struct dwq_sched park = {
		.time_ns = DWQ_PARK_NS,
		.flags = DWQ_SCHED_ABS,
	};

	lockdep_assert_held(&ut->client->wqh.lock);
	dwq_query(task, &info);
	ut->done_run = info.runs;
	if (ut->resched_run == info.runs)
		return;
	/* Keep the task's clock: a reschedule without BOOTTIME leaves it. */
	park.flags |= info.flags & DWQ_SCHED_BOOTTIME;
	/* -ENOENT: cancelled during this run, so not coming back anyway. */
	if (dwq_reschedule(task, &park))
		return;
	ut->parked = true;
	ut->park_mode = info.mode;
	ut->park_boottime = info.flags & DWQ_SCHED_BOOTTIME;
	ut->park_period = info.period_ns;
	ut->park_fired = ut->ev.fired_ns;
}

/**
 * dwq_utask_fire() - the callback of every /dev/dwq task: post its event
 * @task: the task, firing
 *
 * Queues the task's event, or folds this firing into its unread one, and
 * wakes a reader; a periodic task then parks until its event is read. A
 * one-shot's id goes first.
 *
 * It is quick (dwq_task_set_quick()): usually the queue's timer runs it,
 * in softirq context, so that the reader it wakes is the only wakeup
 * between the timer and read() returning, as with a timerfd. The event's
 * @worker is then the leader's id (dwq_task_run_worker()).
 *
 * Context: the queue's timer (softirq), a dwq worker with softirqs off,
 *	or any context that may take a spinlock_t (on PREEMPT_RT, not hard
 *	interrupt context); takes the file's locks with interrupts saved,
 *	does not sleep. Drops no last reference: the queue holds one.
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
	unsigned long flags;

	/*
	 * A one-shot is done: its id goes before its event can be read, so
	 * that a reader who has the LAST event finds the id gone (-ENOENT),
	 * as the ABI promises. The queue's reference keeps @ut alive.
	 */
	if (oneshot)
		dwq_client_forget(c, ut);

	spin_lock_irqsave(&c->wqh.lock, flags);
	c->fired++;
	if (c->closed) {
		/* release() drains the list; nobody will read this. */
		spin_unlock_irqrestore(&c->wqh.lock, flags);
		return;
	}
	if (!list_empty(&ut->link)) {
		/*
		 * Unread (only a task a reschedule queued again while parked
		 * gets here): fold this firing in, as timerfd counts
		 * expirations. The event carries the latest firing's times.
		 */
		ut->ev.overruns += missed;
		ut->ev.folded++;
		ut->folded++;
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
		ut->ev.skipped = 0;
		ut->ev.folded = 0;
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
	if (!oneshot)
		dwq_utask_park(ut, task);
	spin_unlock_irqrestore(&c->wqh.lock, flags);
}

/*
 * A parked task's event is about to be read at @now (on the task's
 * clock): the periods that passed since its firing, and the deadline it
 * is queued at again, the first after @now. A fixed-delay task fires one
 * period after its last firing, or at once if that has passed.
 */
static void dwq_utask_unpark_at(const struct dwq_utask *ut, u64 now,
				u64 *skipped, u64 *next)
{
	u64 p = ut->park_period, d = ut->ev.deadline_ns, k = 0;

	if (ut->park_mode == DWQ_MODE_FIXED_DELAY) {
		*skipped = 0;
		*next = max(ut->park_fired + p, now);
		return;
	}
	if (now >= d && now - d >= p)
		k = div64_u64(now - d, p);
	*skipped = k;
	/* It cannot overflow: deadlines and periods stay far below 2^63. */
	*next = d + (k + 1) * p;
}

/* @ut's clock, now. */
static u64 dwq_utask_now(const struct dwq_utask *ut)
{
	return ut->park_boottime ? ktime_get_boottime_ns() : ktime_get_ns();
}

/*
 * A parked task stops being parked other than by read(): cancelled, or
 * queued again by a reschedule. Its unread event gets the periods skipped
 * until now; a reader's copy of it is stale.
 */
static void dwq_utask_settle(struct dwq_utask *ut)
{
	u64 skipped, next;

	lockdep_assert_held(&ut->client->wqh.lock);
	dwq_utask_unpark_at(ut, dwq_utask_now(ut), &skipped, &next);
	ut->ev.skipped += skipped;
	ut->skipped += skipped;
	ut->parked = false;
	ut->gen++;
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
		/*
		 * The periods a parked task skipped are counted now: the
		 * event says so, and consuming it queues the task at the
		 * deadline after them.
		 */
		if (ut->parked) {
			dwq_utask_unpark_at(ut, dwq_utask_now(ut),
					    &ut->peek_skipped, &ut->peek_next);
			ev[n].skipped += ut->peek_skipped;
		}
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

	struct dwq_sched at = { .flags = DWQ_SCHED_ABS };
	struct dwq_utask *ut;

	spin_lock_irq(&c->wqh.lock);
	for (taken = 0; taken < n; taken++) {
		ut = uts[taken];
		if (ut->gen != gens[taken])
			break;
		list_del_init(&ut->link);
		c->nr_events--;
		if (!ut->parked)
			continue;
		/*
		 * Queue it again at the deadline the reader was told of,
		 * keeping its clock: dwq_reschedule() moves it in the heap,
		 * where it kept its slot. -ENOENT: cancelled meanwhile.
		 */
		ut->parked = false;
		ut->skipped += ut->peek_skipped;
		at.time_ns = ut->peek_next;
		at.flags = DWQ_SCHED_ABS |
			   (ut->park_boottime ? DWQ_SCHED_BOOTTIME : 0);
		(void)dwq_reschedule(&ut->task, &at);
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
 * dwq_events_cancelled() - tasks were cancelled: count them, unpark them
 * @c: their file
 * @tasks: @n tasks of @c, or NULL entries
 * @ret: what dwq_cancel_batch() said for each
 * @n: how many
 *
 * Counts those %DWQ_RESULT_REMOVED before they fired (again). A parked
 * one cancelled stays out of the queue for good: its unread event gets
 * the periods it skipped until now, and read() will not queue it again.
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context).
 */
void dwq_events_cancelled(struct dwq_client *c, struct dwq_task *const *tasks,
			  const int *ret, unsigned int n)
{
	struct dwq_utask *ut;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&c->wqh.lock, flags);
	for (i = 0; i < n; i++) {
		if (ret[i] != DWQ_RESULT_REMOVED &&
		    ret[i] != DWQ_RESULT_RUNNING)
			continue;
		if (ret[i] == DWQ_RESULT_REMOVED)
			c->cancelled++;
		ut = container_of(tasks[i], struct dwq_utask, task);
		if (ut->parked)
			dwq_utask_settle(ut);
	}
	spin_unlock_irqrestore(&c->wqh.lock, flags);
}

/**
 * dwq_events_reschedule() - DWQ_IOC_RESCHEDULE, checked, on a task
 * @c: the file
 * @ut: its task, with a reference
 * @ur: the request, its flags and reserved fields checked
 *
 * Under the events' lock, so that it is ordered with the task's callback
 * parking it and with read() queueing it again: a parked task is queued
 * at the new deadline (its event stays unread), and a reschedule during a
 * periodic run keeps that run from parking. The task keeps its clock
 * unless @ur says %DWQ_SCHED_BOOTTIME or %DWQ_RESCHED_MONOTONIC. A new
 * period's firing rate is charged to the user first; nothing changes on
 * failure.
 *
 * Context: process context.
 * Return: 0, -EINVAL (timing out of range), -ENOENT (not queued, parked or
 * a running periodic task), -ENOSPC (over the user's rate budget).
 */
int dwq_events_reschedule(struct dwq_client *c, struct dwq_utask *ut,
			  const struct dwq_ioc_reschedule *ur)
{
	u32 flags = ur->flags & (DWQ_SCHED_ABS | DWQ_RESCHED_PERIOD);
	/* Without DWQ_RESCHED_PERIOD, mode and period stay as they are. */
	u32 mode = ur->flags & DWQ_RESCHED_PERIOD ? ur->mode : DWQ_MODE_ONESHOT;
	struct dwq_task_info info;
	u64 old_rate = 0, rate;
	struct dwq_sched ds;
	int err;

	spin_lock_irq(&c->wqh.lock);
	dwq_query(&ut->task, &info);
	if (ur->flags & DWQ_SCHED_BOOTTIME ||
	    (!(ur->flags & DWQ_RESCHED_MONOTONIC) &&
	     info.flags & DWQ_SCHED_BOOTTIME))
		flags |= DWQ_SCHED_BOOTTIME;
	err = dwq_limits_sched(&ds, ur->time_ns, ur->period_ns, mode, flags);
	if (err)
		goto unlock;
	if (ur->flags & DWQ_RESCHED_PERIOD) {
		/*
		 * Only a reschedule (which holds our lock) or the id going
		 * (then setting it fails) changes the rate.
		 */
		old_rate = READ_ONCE(ut->rate);
		rate = dwq_limits_rate(ur->mode, ur->period_ns);
		err = dwq_client_set_rate(c, ut, rate, true);
		if (err)
			goto unlock;
	}
	err = dwq_reschedule(&ut->task, &ds);
	if (err) {
		if (ur->flags & DWQ_RESCHED_PERIOD)
			dwq_client_set_rate(c, ut, old_rate, false);
		goto unlock;
	}
	if (ut->parked) {
		/*
		 * Queued again by the user: its event stays unread, with the
		 * periods skipped until now.
		 */
		dwq_utask_settle(ut);
	} else {
		dwq_query(&ut->task, &info);
		/* A run whose callback has not posted yet: it must not park. */
		if (info.state == DWQ_STATE_RUNNING &&
		    ut->done_run != info.runs)
			ut->resched_run = info.runs;
	}
unlock:
	spin_unlock_irq(&c->wqh.lock);
	return err;
}

/**
 * dwq_events_query() - what DWQ_IOC_QUERY says of a task's events
 * @c: the file
 * @ut: its task, with a reference
 * @uq: filled in from dwq_query() and the task's event counts
 *
 * Context: process context.
 */
void dwq_events_query(struct dwq_client *c, struct dwq_utask *ut,
		      struct dwq_ioc_query *uq)
{
	struct dwq_task_info info;

	spin_lock_irq(&c->wqh.lock);
	dwq_query(&ut->task, &info);
	uq->skipped = ut->skipped;
	uq->folded = ut->folded;
	if (ut->parked) {
		info.state = DWQ_STATE_PARKED;
		info.deadline_ns = ut->ev.deadline_ns;
		info.remaining_ns = 0;
	}
	spin_unlock_irq(&c->wqh.lock);

	uq->remaining_ns = info.remaining_ns;
	uq->deadline_ns = info.deadline_ns;
	uq->period_ns = info.period_ns;
	uq->runs = info.runs;
	uq->overruns = info.overruns;
	/* Cancelled by another thread since the lookup: its id is going. */
	uq->state = info.state == DWQ_STATE_CANCELLED ? DWQ_STATE_IDLE :
							info.state;
	uq->mode = info.mode;
	uq->flags = info.flags;
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
