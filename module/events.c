// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq events: read() fires the file's due tasks and returns their
 * events; poll() says whether any is due. Nothing runs when a task comes
 * due but the file's alarm, which wakes the readers (dev.c): the firing
 * is the reader's work, in its own context, as timerfd's read() counts
 * its expirations.
 *
 * read() holds the file's mutex while it takes the due tasks out of the
 * heaps in deadline order, makes their events, copies them to user space
 * and only then commits them (one-shots are done, periodic tasks move on):
 * a copy that faults puts the tasks back as they were, and nothing is
 * lost. Readers wait outside the mutex, on the file's wait queue, for a
 * lockless condition: a kept event, or a heap's earliest deadline passed.
 */
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "dev.h"
#include "trace.h"

/**
 * dwq_utask_due() - has a task's deadline passed?
 * @ut: the task
 * @now: the time on its clock
 *
 * Context: @ut's file's mutex held.
 * Return: true if it is due: read() would fire it.
 */
bool dwq_utask_due(const struct dwq_utask *ut, u64 now)
{
	return ut->node.deadline <= now;
}

/* The times of one read (or ioctl), both clocks taken once. */
struct dwq_now {
	u64 t[DWQ_NR_CLOCKS];
};

static void dwq_now_get(struct dwq_now *now)
{
	now->t[DWQ_CLOCK_MONOTONIC] = ktime_get_ns();
	now->t[DWQ_CLOCK_BOOTTIME] = ktime_get_boottime_ns();
}

/*
 * A deadline of @clock as CLOCK_MONOTONIC time, for ordering the events
 * of both clocks; the offset between the clocks is @now's.
 */
static u64 dwq_now_key(const struct dwq_now *now, unsigned int clock, u64 d)
{
	u64 off;

	if (clock == DWQ_CLOCK_MONOTONIC)
		return d;
	off = now->t[DWQ_CLOCK_BOOTTIME] - now->t[DWQ_CLOCK_MONOTONIC];
	return d > off ? d - off : 0;
}

/*
 * The firing of the due task @ut at @now (on its clock): its event in
 * @ev (folded into its kept event, if it has one), the periods it skipped
 * in @skipped, its next deadline in @next. Changes nothing.
 */
static void dwq_utask_firing(const struct dwq_utask *ut, u64 now,
			     struct dwq_event *ev, u64 *skipped, u64 *next)
{
	u64 d = ut->node.deadline, p = ut->period, k = 0;

	if (ut->last) {
		/* Cancelled while due: its last firing, made then. */
		*ev = (struct dwq_event){
			.id = ut->id,
			.cookie = ut->cookie,
			.deadline_ns = d,
			.fired_ns = ut->fired_ns,
			.skipped = ut->skipped,
		};
		*skipped = 0;
		*next = 0;
		return;
	}
	if (ut->ev) {
		*ev = ut->ev->ev;
		ev->folded++;
		ev->flags |= DWQ_EVENT_COALESCED;
	} else {
		*ev = (struct dwq_event){ .id = ut->id, .cookie = ut->cookie };
	}
	ev->deadline_ns = d;
	ev->fired_ns = now;
	ev->worker = 0;
	*next = 0;
	switch (ut->mode) {
	case DWQ_MODE_ONESHOT:
		ev->flags |= DWQ_EVENT_LAST;
		break;
	case DWQ_MODE_FIXED_RATE:
		/* The periods after @d that passed by @now: not replayed. */
		if (now - d >= p)
			k = div64_u64(now - d, p);
		/* It cannot overflow: deadlines and periods stay below 2^63. */
		*next = d + (k + 1) * p;
		break;
	default:
		/* Fixed delay: one period after this firing. */
		*next = min_t(u64, now + p, KTIME_MAX);
		break;
	}
	ev->skipped += k;
	*skipped = k;
}

/* Keep @c->ready in (key, seq) order; kept events are few, and appended. */
static void dwq_uevent_add(struct dwq_client *c, struct dwq_uevent *uev)
{
	struct list_head *pos = c->ready.prev;
	struct dwq_uevent *prev;

	lockdep_assert_held(&c->mutex);
	while (pos != &c->ready) {
		prev = list_entry(pos, struct dwq_uevent, link);
		if (prev->key < uev->key ||
		    (prev->key == uev->key && prev->seq < uev->seq))
			break;
		pos = pos->prev;
	}
	list_add(&uev->link, pos);
}

/**
 * dwq_uevents_alloc() - make room for events to keep
 * @spares: a list to add them to
 * @n: how many
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOMEM with none added.
 */
int dwq_uevents_alloc(struct list_head *spares, unsigned int n)
{
	struct dwq_uevent *uev;
	LIST_HEAD(made);

	while (n--) {
		uev = kzalloc(sizeof(*uev), GFP_KERNEL_ACCOUNT);
		if (!uev) {
			dwq_uevents_free(&made);
			return -ENOMEM;
		}
		list_add(&uev->link, &made);
	}
	list_splice(&made, spares);
	return 0;
}

/**
 * dwq_uevents_free() - free what dwq_uevents_alloc() made and was not used
 * @spares: the list
 *
 * Context: any context.
 */
void dwq_uevents_free(struct list_head *spares)
{
	struct dwq_uevent *uev, *tmp;

	list_for_each_entry_safe(uev, tmp, spares, link)
		kfree(uev);
	INIT_LIST_HEAD(spares);
}

/**
 * dwq_utask_keep() - fire a due task for a cancel or reschedule of it
 * @c: the file, its mutex held
 * @ut: its task, due, periodic (a due one-shot's id is gone)
 * @now: the time on its clock
 * @spares: events from dwq_uevents_alloc(); one is taken unless @ut has
 *	a kept event already, which this firing folds into (then @spares
 *	may be NULL)
 *
 * The firing's event is kept on the file's ready list, unread, with the
 * periods it skipped until @now. The caller then removes or moves the
 * task: it stays in its heap at the deadline that fired until then.
 *
 * Context: process context, @c->mutex held.
 */
void dwq_utask_keep(struct dwq_client *c, struct dwq_utask *ut, u64 now,
		    struct list_head *spares)
{
	struct dwq_uevent *uev = ut->ev;
	bool folded = !!uev;
	struct dwq_now at;
	u64 skipped, next;
	struct dwq_event ev;

	lockdep_assert_held(&c->mutex);
	dwq_utask_firing(ut, now, &ev, &skipped, &next);
	if (folded) {
		list_del(&uev->link);
		c->coalesced++;
		ut->folded++;
	} else {
		if (WARN_ON_ONCE(!spares || list_empty(spares)))
			return;
		uev = list_first_entry(spares, struct dwq_uevent, link);
		list_del(&uev->link);
		uev->ut = ut;
		ut->ev = uev;
		WRITE_ONCE(c->nr_ready, c->nr_ready + 1);
	}
	uev->ev = ev;
	dwq_now_get(&at);
	uev->key = dwq_now_key(&at, ut->clock, ut->node.deadline);
	uev->seq = ut->node.seq;
	dwq_uevent_add(c, uev);
	ut->runs++;
	ut->skipped += skipped;
	c->fired++;
	trace_dwq_dev_event(c->tgid, &uev->ev, folded);
	wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
}

/**
 * dwq_utask_cancel_due() - cancel a due periodic task that has no kept event
 * @c: the file, its mutex held
 * @ut: its task, due, periodic, @ut->ev NULL
 * @now: the time on its clock
 *
 * The task fires (the periods it skipped until @now counted) and becomes
 * that firing's event (&dwq_utask.last): out of the id map, its file's
 * charge and firing rate given back, but in its heap at the deadline that
 * fired until read() returns the event. Nothing is allocated, so nothing
 * fails.
 *
 * Context: process context, @c->mutex held.
 */
void dwq_utask_cancel_due(struct dwq_client *c, struct dwq_utask *ut, u64 now)
{
	struct dwq_event ev;
	u64 skipped, next;

	lockdep_assert_held(&c->mutex);
	dwq_utask_firing(ut, now, &ev, &skipped, &next);
	rb_erase(&ut->idnode, &c->tasks);
	RB_CLEAR_NODE(&ut->idnode);
	atomic_dec(&c->nr_tasks);
	dwq_limits_rate_release(c->user, dwq_limits_rate(ut->mode, ut->period));
	ut->last = true;
	ut->fired_ns = now;
	ut->skipped = skipped;
	c->fired++;
	trace_dwq_dev_event(c->tgid, &ev, false);
	wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
}

/* Take a kept event off the list, and free it. */
static void dwq_uevent_done(struct dwq_client *c, struct dwq_uevent *uev)
{
	list_del(&uev->link);
	WRITE_ONCE(c->nr_ready, c->nr_ready - 1);
	if (uev->ut)
		uev->ut->ev = NULL;
	else
		/* Its task was cancelled: the event held its charge. */
		dwq_limits_release(c->user);
	kfree(uev);
}

/**
 * dwq_events_free() - drop the kept events nobody will read
 * @c: the file, being released, its tasks freed (the events' @ut
 *	pointers dangle: only whether they are NULL counts)
 *
 * Context: process context, @c->mutex held.
 */
void dwq_events_free(struct dwq_client *c)
{
	struct dwq_uevent *uev, *tmp;

	lockdep_assert_held(&c->mutex);
	list_for_each_entry_safe(uev, tmp, &c->ready, link) {
		/* Its task's charge went with the task, if it had one. */
		if (!uev->ut)
			dwq_limits_release(c->user);
		kfree(uev);
	}
	INIT_LIST_HEAD(&c->ready);
	c->nr_ready = 0;
}

/* Events read() makes per round (on its stack), between copies. */
#define DWQ_READ_CHUNK 8

/* One event of a round: a task's firing, or a kept event. */
struct dwq_pick {
	struct dwq_utask *ut;
	struct dwq_uevent *uev;
	u64 skipped;
	u64 next;
};

/* The next kept event read() may take from @pos on, or NULL. */
static struct dwq_uevent *dwq_ready_next(struct dwq_client *c,
					 struct list_head *pos,
					 const struct dwq_now *now)
{
	struct dwq_uevent *uev;

	for (; pos != &c->ready; pos = pos->next) {
		uev = list_entry(pos, struct dwq_uevent, link);
		/* A task due again comes with its event: at its deadline. */
		if (uev->ut && dwq_utask_due(uev->ut, now->t[uev->ut->clock]))
			continue;
		return uev;
	}
	return NULL;
}

/*
 * Take up to @max events, in deadline order, into @ev and @picks: the
 * due tasks leave their heaps (dwq_read_undo() puts them back), the kept
 * events stay on the list until dwq_read_commit().
 */
static unsigned int dwq_read_collect(struct dwq_client *c,
				     const struct dwq_now *now,
				     struct dwq_pick *picks,
				     struct dwq_event *ev, unsigned int max)
{
	struct list_head *pos = c->ready.next;
	struct dwq_heap_node *head;
	struct dwq_uevent *uev;
	struct dwq_utask *ut;
	unsigned int n, i;
	int best;
	u64 key, best_key, best_seq;

	for (n = 0; n < max; n++) {
		best = -1;
		best_key = U64_MAX;
		best_seq = U64_MAX;
		for (i = 0; i < DWQ_NR_CLOCKS; i++) {
			head = dwq_heap_peek(&c->clk[i].heap);
			if (!head || head->deadline > now->t[i])
				continue;
			key = dwq_now_key(now, i, head->deadline);
			if (best < 0 || key < best_key ||
			    (key == best_key && head->seq < best_seq)) {
				best = i;
				best_key = key;
				best_seq = head->seq;
			}
		}
		uev = dwq_ready_next(c, pos, now);
		if (uev && (best < 0 || uev->key < best_key ||
			    (uev->key == best_key && uev->seq < best_seq))) {
			picks[n] = (struct dwq_pick){ .uev = uev };
			ev[n] = uev->ev;
			pos = uev->link.next;
			continue;
		}
		if (best < 0)
			break;
		head = dwq_heap_pop(&c->clk[best].heap);
		ut = container_of(head, struct dwq_utask, node);
		picks[n] = (struct dwq_pick){ .ut = ut };
		dwq_utask_firing(ut, now->t[best], &ev[n], &picks[n].skipped,
				 &picks[n].next);
	}
	return n;
}

/* The copy of @picks faulted: put their tasks back as they were. */
static void dwq_read_undo(struct dwq_client *c, const struct dwq_pick *picks,
			  unsigned int n)
{
	struct dwq_utask *ut;
	struct dwq_heap *heap;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		ut = picks[i].ut;
		if (!ut)
			continue;
		/* Its deadline and seq are as they were: the same order. */
		heap = &c->clk[ut->clock].heap;
		heap->next_seq = ut->node.seq;
		err = dwq_heap_insert(heap, &ut->node, ut->node.deadline);
		WARN_ON_ONCE(err);
	}
}

/* The events of @picks were copied to the reader: they are read. */
static void dwq_read_commit(struct dwq_client *c, const struct dwq_pick *picks,
			    const struct dwq_event *ev, unsigned int n)
{
	struct dwq_utask *ut;
	unsigned int i;
	bool folded;

	for (i = 0; i < n; i++) {
		ut = picks[i].ut;
		if (!ut) {
			dwq_uevent_done(c, picks[i].uev);
			continue;
		}
		if (ut->last) {
			/* Counted and traced when it was cancelled. */
			dwq_limits_release(c->user);
			dwq_utask_free(ut);
			continue;
		}
		folded = !!ut->ev;
		if (folded) {
			c->coalesced++;
			ut->folded++;
			dwq_uevent_done(c, ut->ev);
		}
		ut->runs++;
		ut->skipped += picks[i].skipped;
		c->fired++;
		trace_dwq_dev_event(c->tgid, &ev[i], folded);
		if (ut->mode == DWQ_MODE_ONESHOT)
			dwq_utask_destroy(c, ut);
		else
			dwq_utask_insert(c, ut, picks[i].next);
	}
}

/*
 * Fire what is due and copy the events to @buf, @count bytes at most;
 * the file's mutex held. Return the bytes copied, or -EFAULT if the first
 * copy failed; 0 if nothing is due.
 */
static ssize_t dwq_read_locked(struct dwq_client *c, char __user *buf,
			       size_t count)
{
	struct dwq_event ev[DWQ_READ_CHUNK];
	struct dwq_pick picks[DWQ_READ_CHUNK];
	size_t done = 0, left;
	unsigned int n, good, i;
	struct dwq_now now;
	ssize_t err = 0;

	lockdep_assert_held(&c->mutex);
	/* One moment for the whole read: a task moved on is not due again. */
	dwq_now_get(&now);
	while (count - done >= sizeof(*ev)) {
		n = dwq_read_collect(c, &now, picks, ev,
				     min_t(size_t, DWQ_READ_CHUNK,
					   (count - done) / sizeof(*ev)));
		if (!n)
			break;
		left = copy_to_user(buf + done, ev, n * sizeof(*ev));
		if (left) {
			/* The events copied whole before the fault are read. */
			good = n - DIV_ROUND_UP(left, sizeof(*ev));
			dwq_read_undo(c, picks + good, n - good);
			dwq_read_commit(c, picks, ev, good);
			done += good * sizeof(*ev);
			err = -EFAULT;
			break;
		}
		dwq_read_commit(c, picks, ev, n);
		done += n * sizeof(*ev);
	}
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		dwq_client_arm(c, i);
		dwq_client_shrink(c, i);
	}
	return done ? done : err;
}

/* Is anything to read? Lockless: the alarms' wakeups pair with it. */
static bool dwq_client_due(struct dwq_client *c)
{
	return READ_ONCE(c->nr_ready) ||
	       READ_ONCE(c->clk[DWQ_CLOCK_MONOTONIC].next) <= ktime_get_ns() ||
	       READ_ONCE(c->clk[DWQ_CLOCK_BOOTTIME].next) <=
		       ktime_get_boottime_ns();
}

/**
 * dwq_dev_read() - read() of /dev/dwq: fire the due tasks, whole events
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
	ssize_t ret;

	if (count < sizeof(struct dwq_event))
		return -EINVAL;
	for (;;) {
		if (mutex_lock_interruptible(&c->mutex))
			return -ERESTARTSYS;
		ret = dwq_read_locked(c, buf, count);
		mutex_unlock(&c->mutex);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * Another reader may have taken what woke us: then wait
		 * again. A deadline passing wakes us by the alarm, armed at
		 * each heap's earliest deadline by whoever changed it; the
		 * condition is checked after we are on the wait queue, so
		 * an alarm that fired before is seen by the clock.
		 */
		if (wait_event_interruptible(c->wqh, dwq_client_due(c)))
			return -ERESTARTSYS;
	}
}

/**
 * dwq_dev_poll() - poll() of /dev/dwq: EPOLLIN while something is due
 * @file: the file
 * @wait: the poll table
 *
 * Context: process context.
 * Return: the events ready.
 */
__poll_t dwq_dev_poll(struct file *file, poll_table *wait)
{
	struct dwq_client *c = file->private_data;

	poll_wait(file, &c->wqh, wait);
	/*
	 * As in dwq_dev_read(): an alarm that fires after poll_wait() put
	 * us on the wait queue wakes us; one that fired before left a
	 * deadline the clock has passed, which this check sees.
	 */
	return dwq_client_due(c) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* Depth of a 4-ary heap of DWQ_HEAP_MAX_CAPACITY nodes, rounded up. */
#define DWQ_HEAP_DEPTH 16

/*
 * Walk @heap's nodes due at @now (their subtrees' roots are due too),
 * counting the tasks without a kept event; and find the earliest node not
 * due, @*later, if @later. Each pop pushes at most 4 children, so the
 * stack grows by 3 per level.
 */
static u64 dwq_heap_walk(const struct dwq_heap *heap, u64 now,
			 struct dwq_heap_node **later)
{
	unsigned int stack[3 * DWQ_HEAP_DEPTH + 4], sp = 0, i, ch, end;
	struct dwq_utask *ut;
	u64 due = 0;

	if (later)
		*later = NULL;
	if (heap->nr)
		stack[sp++] = 0;
	while (sp) {
		i = stack[--sp];
		if (heap->slots[i].deadline > now) {
			if (later && (!*later || heap->slots[i].deadline <
							 (*later)->deadline))
				*later = heap->slots[i].node;
			continue;
		}
		ut = container_of(heap->slots[i].node, struct dwq_utask, node);
		if (!ut->ev)
			due++;
		ch = DWQ_HEAP_ARITY * i + 1;
		end = min(ch + DWQ_HEAP_ARITY, heap->nr);
		for (; ch < end; ch++)
			stack[sp++] = ch;
	}
	return due;
}

/**
 * dwq_events_count() - the events a read() would return now
 * @c: the file, its mutex held
 *
 * The kept events and the due tasks without one: O(due).
 *
 * Context: process context, @c->mutex held.
 * Return: how many.
 */
u64 dwq_events_count(struct dwq_client *c)
{
	u64 n = c->nr_ready;
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < DWQ_NR_CLOCKS; i++)
		n += dwq_heap_walk(&c->clk[i].heap, dwq_clock_now(i), NULL);
	return n;
}

/**
 * dwq_events_next() - the file's next task: the earliest not due yet
 * @c: the file, its mutex held
 * @next: out: the task, or NULL if every task is due (or none is left)
 * @remaining: out: ns until its deadline
 *
 * Over both clocks, by the time left. O(due) per clock.
 *
 * Context: process context, @c->mutex held.
 */
void dwq_events_next(struct dwq_client *c, struct dwq_utask **next,
		     u64 *remaining)
{
	struct dwq_heap_node *node;
	unsigned int i;
	u64 now, left;

	lockdep_assert_held(&c->mutex);
	*next = NULL;
	*remaining = 0;
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		now = dwq_clock_now(i);
		dwq_heap_walk(&c->clk[i].heap, now, &node);
		if (!node)
			continue;
		left = node->deadline - now;
		if (!*next || left < *remaining) {
			*next = container_of(node, struct dwq_utask, node);
			*remaining = left;
		}
	}
}
