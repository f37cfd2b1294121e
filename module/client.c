// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq clients: an open file's tasks, and everything done to them
 * under the file's mutex, which this file owns. A file keeps its tasks,
 * for each clock, in a heap and a run of its own (the run: tasks that came
 * in deadline order, O(1) each way, run.h), and an id map; its alarm, one
 * engine task per clock on the shared queue, only wakes its readers.
 * read() fires the due tasks and returns their events; poll() says
 * whether any is due; the ioctls' actions (schedule, cancel, reschedule,
 * query, stats) are here too. Every function exported from here takes the
 * mutex itself (or needs none): a helper that needs it held is static, so
 * that no other file can call it with the lock not held. dev.h says which
 * file does the rest.
 *
 * The firing is the reader's work, in its own context, as timerfd's read()
 * counts its expirations. read() holds the file's mutex while it takes the
 * due tasks out of the heaps and runs in deadline order, makes their
 * events, copies them to user space and only then commits them (one-shots
 * are done, periodic tasks move on): a copy that faults puts the tasks
 * back as they were, and nothing is lost. A read() that returns a single
 * one-shot's event to a reader alone on the file leaves the task first on
 * its clock, owed: whoever takes the mutex next takes it out first
 * (dwq_client_settle()), so that the reader has its event before that work
 * is done. Readers wait outside the mutex, on the file's wait queue, for a
 * lockless condition: a kept event, or a clock's earliest deadline passed.
 */
#include <linux/bitops.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/list_sort.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#if IS_ENABLED(CONFIG_KUNIT)
#include <kunit/static_stub.h>
#endif

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

static void __dwq_client_settle(struct dwq_client *c);

/*
 * Take out the one-shot a read() left owed, if any: whoever takes the
 * mutex calls this first (see __dwq_client_settle()). Inline: the test
 * is all that a call with nothing owed costs.
 */
static __always_inline void dwq_client_settle(struct dwq_client *c)
{
	lockdep_assert_held(&c->mutex);
	if (unlikely(c->owed))
		__dwq_client_settle(c);
}

/**
 * dwq_client_lock() - take a file's mutex, and settle what a read() owes
 * @c: the file
 * @killable: only a fatal signal ends the wait (an io_uring command:
 *	io_uring's own task_work notifications show as a pending signal to
 *	its submitter and SQPOLL thread, and would end an interruptible
 *	wait at once); else any signal does, as for a system call
 *
 * Context: process context; may sleep.
 * Return: 0 with the mutex held (dwq_client_settle() done); -ERESTARTSYS
 * for a signal that ended the wait.
 */
static int dwq_client_lock(struct dwq_client *c, bool killable)
{
	if (killable ? mutex_lock_killable(&c->mutex) :
		       mutex_lock_interruptible(&c->mutex))
		return -ERESTARTSYS;
	dwq_client_settle(c);
	return 0;
}

/* The id map's smallest and largest sizes, as log2 of its buckets. */
#define DWQ_IDS_MIN_BITS 4
#define DWQ_IDS_MAX_BITS 20
/* Nor does it shrink below room for DWQ_CLIENT_SPARES tasks, two a bucket. */
#define DWQ_IDS_KEEP_BITS ilog2(DWQ_CLIENT_SPARES / 2)

static struct dwq_utask **dwq_ids_bucket(struct dwq_client *c, u64 id)
{
	return &c->ids[hash_64(id, c->ids_bits)];
}

/* An empty id map of 2^@bits buckets, or NULL. */
static struct dwq_utask **dwq_ids_alloc(unsigned int bits, gfp_t gfp)
{
	return kvcalloc(1U << bits, sizeof(struct dwq_utask *), gfp);
}

/* Put @ut at the head of its bucket's chain. */
static void dwq_ids_link(struct dwq_client *c, struct dwq_utask *ut)
{
	struct dwq_utask **b = dwq_ids_bucket(c, ut->id);

	ut->idnext = *b;
	*b = ut;
}

/**
 * dwq_ids_resize() - move the id map to 2^@bits buckets
 * @c: the file, its mutex held
 * @bits: log2 of the new size
 *
 * A failed allocation keeps the old table: lookups walk longer chains,
 * nothing fails.
 *
 * Context: process context, @c->mutex held; sleeps.
 */
static noinline void dwq_ids_resize(struct dwq_client *c, unsigned int bits)
{
	struct dwq_utask **old = c->ids, **ids, *ut, *next;
	unsigned int i, oldn = 1U << c->ids_bits, moved = 0;

	lockdep_assert_held(&c->mutex);
	ids = dwq_ids_alloc(bits, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!ids)
		return;
	c->ids = ids;
	c->ids_bits = bits;
	/* Up to the last task: a map shrunk when emptied is not walked. */
	for (i = 0; i < oldn && moved < c->nr_ids; i++) {
		for (ut = old[i]; ut; ut = next) {
			next = ut->idnext;
			dwq_ids_link(c, ut);
			moved++;
		}
	}
	kvfree(old);
}

/*
 * Keep the id map between a quarter full and two tasks a bucket: doubled
 * (or more) as tasks come, to between one and two tasks a bucket; halved
 * (or more) once under a quarter of a task a bucket is left, to one or
 * fewer, but not below room for DWQ_CLIENT_SPARES tasks; never past its
 * smallest and largest sizes. The file's mutex held.
 */
static __always_inline void dwq_ids_fit(struct dwq_client *c)
{
	unsigned int n = 1U << c->ids_bits;

	/* Inline, on every schedule and cancel: the resize out of line. */
	if (unlikely(c->nr_ids > 2 * n && c->ids_bits < DWQ_IDS_MAX_BITS))
		dwq_ids_resize(c,
			       min_t(unsigned int, order_base_2(c->nr_ids) - 1,
				     DWQ_IDS_MAX_BITS));
	else if (unlikely(c->nr_ids < n / 4 && c->ids_bits > DWQ_IDS_KEEP_BITS))
		dwq_ids_resize(c, max_t(unsigned int,
					order_base_2(max(c->nr_ids, 1U)),
					DWQ_IDS_KEEP_BITS));
}

/* Put a task with its new id in the id map; the file's mutex held. */
static void dwq_ids_add(struct dwq_client *c, struct dwq_utask *ut)
{
	dwq_ids_link(c, ut);
	c->nr_ids++;
}

/*
 * Take a task out of the id map; the file's mutex held. Its chain is
 * walked from the bucket to the link that points at it: two tasks a
 * bucket at most, on average.
 */
static void dwq_ids_del(struct dwq_client *c, struct dwq_utask *ut)
{
	struct dwq_utask **p = dwq_ids_bucket(c, ut->id);

	while (*p != ut)
		p = &(*p)->idnext;
	*p = ut->idnext;
	ut->idnext = NULL;
	c->nr_ids--;
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
static struct dwq_utask *dwq_client_find(struct dwq_client *c, u64 id)
{
	struct dwq_utask *ut;

	lockdep_assert_held(&c->mutex);
	for (ut = *dwq_ids_bucket(c, id); ut; ut = ut->idnext) {
		if (ut->id == id)
			return ut;
	}
	return NULL;
}

/*
 * A clock's tasks are in its heap or in its run (struct dwq_client_clock).
 * These see both; the file's mutex held.
 */

/* The clock's earliest task: the run's first or the heap's root. */
static __always_inline struct dwq_heap_node *
dwq_clk_peek(const struct dwq_client_clock *clk)
{
	struct dwq_heap_node *h = dwq_heap_peek(&clk->heap);
	struct dwq_heap_node *r = dwq_run_first(&clk->run);

	if (!r ||
	    (h && dwq_run_key_before(h->deadline, h->seq, r->deadline, r->seq)))
		return h;
	return r;
}

/* The clock's tasks. */
static unsigned int dwq_clk_size(const struct dwq_client_clock *clk)
{
	return clk->heap.nr + clk->run.nr;
}

/* Is @ut in its clock's heap or run? */
static bool dwq_utask_queued(const struct dwq_utask *ut)
{
	return ut->node.index != -1;
}

/* Is @node a periodic task's? (Counted in &dwq_client_clock.periodic.) */
static __always_inline bool dwq_node_periodic(const struct dwq_heap_node *node)
{
	return container_of(node, struct dwq_utask, node)->mode !=
	       DWQ_MODE_ONESHOT;
}

/*
 * The heap slots the clock's tasks may take with no allocation: its
 * heap's tasks and its run's periodic ones (see &dwq_client_clock.heap).
 */
static __always_inline unsigned int
dwq_clk_held(const struct dwq_client_clock *clk)
{
	return clk->heap.nr + clk->periodic;
}

/* Take @node out of the clock's heap or run, wherever it is. */
static __always_inline void dwq_clk_remove(struct dwq_client_clock *clk,
					   struct dwq_heap_node *node)
{
	if (dwq_run_node_queued(node)) {
		dwq_run_remove(&clk->run, node);
		clk->periodic -= dwq_node_periodic(node);
	} else {
		dwq_heap_remove(&clk->heap, node);
	}
}

/**
 * dwq_ring_alloc() - allocate a run's ring
 * @n: slots
 *
 * Charged to the caller's memory cgroup, as the heap's slots; no retry
 * under memory pressure, where the tasks can go to the heap instead. KUnit
 * replaces it (a static stub) to make an allocation fail.
 *
 * Context: process context; sleeps.
 * Return: the ring, or NULL.
 */
VISIBLE_IF_KUNIT struct dwq_heap_node **dwq_ring_alloc(unsigned int n)
{
#if IS_ENABLED(CONFIG_KUNIT)
	KUNIT_STATIC_STUB_REDIRECT(dwq_ring_alloc, n);
#endif
	return kvmalloc_array(n, sizeof(struct dwq_heap_node *),
			      GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
				      __GFP_NORETRY);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_ring_alloc);

/*
 * Make room at the end of a full run for one more task: compact its holes
 * away if they are half of it or more, else double its ring (the first
 * ring has DWQ_RUN_MIN_CAPACITY slots), so that the ring grows as tasks
 * come in order, and only then. Best effort: without memory, false, and
 * the task goes to the heap, where the caller made room for it.
 */
static noinline bool dwq_clk_run_room(struct dwq_run *run)
{
	struct dwq_heap_node **slots;
	unsigned int want;

	if (run->cap && run->nr <= run->cap / 2) {
		dwq_run_compact(run);
		return true;
	}
	want = dwq_run_grown_capacity(run);
	if (!want)
		return false;
	slots = dwq_ring_alloc(want);
	if (!slots)
		return false;
	kvfree(dwq_run_adopt(run, slots, want));
	return true;
}

/*
 * What a call grew of its file's heaps: which clocks' (bits of @grown),
 * and each one's capacity before.
 */
struct dwq_client_room {
	unsigned int grown;
	unsigned int heap[DWQ_NR_CLOCKS];
};

/* dwq_client_grow() when the room is not there: out of line. */
static noinline int dwq_clk_grow(struct dwq_client_clock *clk, unsigned int n,
				 struct dwq_client_room *room)
{
	struct dwq_heap *heap = &clk->heap;
	struct dwq_heap_slot *slots;
	unsigned int want, extra;

	if (check_add_overflow(n, clk->periodic, &extra))
		return -ENOSPC;
	want = dwq_heap_want_capacity(heap, extra);
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
	if (!(room->grown & BIT(clk->clock))) {
		room->heap[clk->clock] = heap->cap;
		room->grown |= BIT(clk->clock);
	}
	kvfree(dwq_heap_adopt(heap, slots, want));
	return 0;
}

/**
 * dwq_client_grow() - make room in a file's clock for more tasks
 * @c: the file, its mutex held
 * @clock: which clock
 * @n: tasks about to be added
 * @room: records the heap's size before the call's first growth of it,
 *	for dwq_client_ungrow() should the call fail
 *
 * The heap keeps room for its tasks, for the run's periodic ones, which
 * read() puts back when it fires them (in the heap if they do not fit at
 * the run's end, or the ring cannot grow), and for the @n, which may go
 * there too. Not for the run's one-shots: tasks armed in deadline order,
 * as timeouts of one length are, take a slot of the run's ring each and
 * none of the heap. A call that moves one of them to the heap makes room
 * for it with this first. (The run's ring grows as tasks come in order:
 * dwq_utask_insert().)
 *
 * Context: process context, @c->mutex held; sleeps.
 * Return: 0; -ENOMEM, or -ENOSPC past the heap's largest size. Nothing
 * changed on failure.
 */
static int dwq_client_grow(struct dwq_client *c, unsigned int clock,
			   unsigned int n, struct dwq_client_room *room)
{
	struct dwq_client_clock *clk = &c->clk[clock];

	lockdep_assert_held(&c->mutex);
	/* The heap's free slots less the run's periodic tasks. */
	if (n <= clk->heap.cap - dwq_clk_held(clk))
		return 0;
	return dwq_clk_grow(clk, n, room);
}

/* dwq_client_shrink() when there is room to give back: out of line. */
static noinline void dwq_clk_shrink(struct dwq_client_clock *clk)
{
	struct dwq_heap_node **ring;
	struct dwq_heap_slot *slots;
	struct dwq_heap busy;
	unsigned int want;

	/* The heap as if the run's periodic tasks were in it: it has room. */
	busy = clk->heap;
	busy.nr += clk->periodic;
	want = max_t(unsigned int, dwq_heap_shrunk_capacity(&busy),
		     DWQ_CLIENT_SPARES);
	/* Halved at least: a heap grown to 81 slots for 64 tasks stays. */
	if (want <= busy.cap / 2) {
		slots = kvmalloc_array(want, sizeof(*slots),
				       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
		if (slots)
			kvfree(dwq_heap_adopt(&clk->heap, slots, want));
	}
	want = max_t(unsigned int, dwq_run_shrunk_capacity(&clk->run),
		     DWQ_CLIENT_SPARES);
	if (want < clk->run.cap) {
		ring = dwq_ring_alloc(want);
		if (ring)
			kvfree(dwq_run_adopt(&clk->run, ring, want));
	}
}

/**
 * dwq_client_shrink() - give back room a file's clock no longer uses
 * @c: the file, its mutex held
 * @clock: which clock
 *
 * The heap halves while a quarter of it or less is used, by the heap's
 * and the run's tasks together, in one step (dwq_heap_shrunk_capacity()),
 * never below DWQ_CLIENT_SPARES slots: an emptied heap keeps that many
 * (or what it grew to, if less) until the file is released, so that
 * timeouts armed and disarmed over and over, one or a batch at a time,
 * allocate no array per arm. The run's ring likewise, by its own tasks.
 * A failed allocation keeps the old.
 *
 * Context: process context, @c->mutex held; sleeps.
 */
static __always_inline void dwq_client_shrink(struct dwq_client *c,
					      unsigned int clock)
{
	struct dwq_client_clock *clk = &c->clk[clock];
	unsigned int busy = dwq_clk_held(clk);

	lockdep_assert_held(&c->mutex);
	if ((clk->heap.cap > DWQ_CLIENT_SPARES && busy <= clk->heap.cap / 4) ||
	    (clk->run.cap > DWQ_CLIENT_SPARES &&
	     clk->run.nr <= clk->run.cap / 4))
		dwq_clk_shrink(clk);
}

/* dwq_client_ungrow() when a heap grew: out of line. */
static noinline void dwq_clks_ungrow(struct dwq_client *c,
				     const struct dwq_client_room *room)
{
	struct dwq_client_clock *clk;
	struct dwq_heap_slot *slots;
	unsigned int i, cap;

	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		clk = &c->clk[i];
		cap = room->heap[i];
		/* The heap keeps room for the run's periodic tasks too. */
		if (!(room->grown & BIT(i)) || dwq_clk_held(clk) > cap)
			continue;
		slots = NULL;
		if (cap) {
			slots = kvmalloc_array(cap, sizeof(*slots),
					       GFP_KERNEL_ACCOUNT |
						       __GFP_NOWARN);
			if (!slots)
				continue;
		}
		kvfree(dwq_heap_adopt(&clk->heap, slots, cap));
	}
}

/*
 * A call that failed gives back the heap arrays it grew (@room, from
 * dwq_client_grow()): each clock's heap the size it was before the call,
 * its tasks as they were then too. Without memory for the smaller array
 * the larger one stays, for dwq_client_shrink() to give back later.
 */
static __always_inline void
dwq_client_ungrow(struct dwq_client *c, const struct dwq_client_room *room)
{
	lockdep_assert_held(&c->mutex);
	if (room->grown)
		dwq_clks_ungrow(c, room);
}

/*
 * Arm @clk's alarm for @at: exactly (dwq_mod()), or to fire by then,
 * leaving it where it is if it fires earlier already (dwq_reduce()).
 */
static int dwq_client_alarm_set(struct dwq_client_clock *clk, u64 at,
				bool exact)
{
	struct dwq_sched s = { .time_ns = at, .flags = DWQ_SCHED_ABS };
	struct dwq_queue *q = clk->client->q;

	if (clk->clock == DWQ_CLOCK_BOOTTIME)
		s.flags |= DWQ_SCHED_BOOTTIME;
	return exact ? dwq_mod(q, &clk->alarm, &s) :
		       dwq_reduce(q, &clk->alarm, &s);
}

/*
 * The alarm's callback: it fires by the earliest deadline of one clock of
 * the file, maybe early (dwq_client_arm() leaves it early rather than move
 * it later). If that head is due, it wakes the readers and pollers, who
 * fire the task; it never touches the heap, whose mutex it cannot take.
 * If not (the head it was armed for was cancelled or moved later), it
 * re-arms itself for the head, with nobody woken. Should that fail (the
 * file is being closed, or kernel users of the queue took the room), it
 * marks the clock @lost, which makes the file readable, and wakes the
 * readers: the next read() or poll() arms it, where it may sleep to make
 * room.
 *
 * Context: the queue's timer, or a worker with interrupts (or softirqs)
 * off: hard irq context on /dev/dwq's queue (%DWQ_QUEUE_HARDIRQ), softirq
 * context on PREEMPT_RT.
 */
static void dwq_client_alarm(struct dwq_task *task)
{
	struct dwq_client_clock *clk =
		container_of(task, struct dwq_client_clock, alarm);
	u64 next, at;

	WRITE_ONCE(clk->runs, clk->runs + 1);
	/* This run's wake, if it wakes: not an older run's. */
	WRITE_ONCE(clk->alarm_woke, 0);
	WRITE_ONCE(clk->fired, true);
	/*
	 * Pairs with the barrier in dwq_client_arm(): either it sees @fired
	 * and arms the alarm anew, or we see the @next it wrote.
	 */
	smp_mb();
	next = READ_ONCE(clk->next);
	if (next == U64_MAX)
		return;
	/*
	 * Due by the deadline this run was due at: no clock read needed,
	 * here or by the readers this wakes (@passed).
	 */
	at = dwq_task_run_deadline(task);
	if (next <= at) {
		WRITE_ONCE(clk->passed, at);
		goto wake;
	}
	at = dwq_clock_now(clk->clock);
	if (next <= at)
		goto wake;
	if (dwq_client_alarm_set(clk, next, false) >= 0)
		return;
	WRITE_ONCE(clk->lost, true);
	at = 0;
wake:
	/* The read()s that drain what was due by @at wake no one again. */
	if (at)
		WRITE_ONCE(clk->alarm_woke, at);
	wake_up_poll(&clk->client->wqh, EPOLLIN | EPOLLRDNORM);
}

/**
 * dwq_client_arm() - see that a file's alarm fires by its earliest deadline
 * @c: the file, its mutex held
 * @clock: which clock's tasks changed
 * @read: when a read() fired tasks, its moment on @clock; else 0
 * @defer: a read() that returned events calls: the alarm may be left
 *	unarmed (below)
 *
 * Called after every change of the clock's tasks. The alarm is one engine
 * task on the shared queue. An earlier head brings it in (dwq_reduce(),
 * O(log n) of the shared queue); on CLOCK_MONOTONIC a later head, or none,
 * leaves it where it is, to fire early and re-arm itself for the head then
 * (dwq_client_alarm()), so that a timeout armed and disarmed over and over
 * moves the alarm only when it is the earliest ever, not twice per
 * timeout. Two cases move it later, or cancel it, instead:
 *
 * - a read() took the head the alarm is due for (armed by @read): left,
 *   it would fire now for nothing, in the timer's softirq, which no
 *   process pays for, where the reader's move is the reader's own CPU;
 * - CLOCK_BOOTTIME: the alarm's key on the queue is a CLOCK_MONOTONIC time,
 *   converted with the time spent in suspend when it was armed, so a
 *   suspend leaves it late until the resume keys it anew
 *   (dwq_queue_resumed()); moving it converts anew, as when it was armed.
 *
 * A read() that took the head the alarm fired for (@defer), with nobody
 * else waiting on the file, leaves the alarm unarmed for the next head
 * (@unarmed, which reads as due): the reader arms it when it comes back to
 * wait, with a read() that fires nothing or a poll(), so that the move is
 * not part of the path from a deadline to its event. Anyone who waits on
 * the file meanwhile sees @unarmed and arms it too.
 *
 * A head already due is not armed for: the readers are woken here, at
 * once, as the alarm would wake them, and not again for a head that was
 * due by then, so that a due task nobody reads costs one wakeup and a
 * backlog drained by many read()s one. Callers that queue a task already due
 * behind such a head wake the readers themselves when this returns false.
 *
 * Context: process context, @c->mutex held; may sleep (to make room in
 * the queue, which the file reserved at open, so it does not fail).
 * Return: true if the alarm was armed anew (it fires at the head, and
 * wakes the readers) or the readers were woken for a head already due,
 * false if nothing was done.
 */
static bool dwq_client_arm(struct dwq_client *c, unsigned int clock, u64 read,
			   bool defer)
{
	struct dwq_client_clock *clk = &c->clk[clock];
	struct dwq_heap_node *head = dwq_clk_peek(clk);
	u64 next = head ? head->deadline : U64_MAX, now;
	bool exact;
	int err;

	lockdep_assert_held(&c->mutex);
	WRITE_ONCE(clk->next, next);
	/* Seen to here, whatever follows. */
	if (unlikely(clk->unarmed))
		WRITE_ONCE(clk->unarmed, false);
	if (!c->q)
		return false;
	/*
	 * Pairs with the barrier in dwq_client_alarm(): an alarm firing now
	 * either reads this @next and sees to it, or is seen to have fired.
	 * One that fired fires by nothing any more: arm it anew.
	 */
	smp_mb();
	if (READ_ONCE(clk->fired)) {
		WRITE_ONCE(clk->fired, false);
		clk->armed = U64_MAX;
		/*
		 * If its last run woke the readers for a head due by then, a
		 * head due by then wakes them no more (below). A wake it has
		 * still to record only leaves @woke lower: a wake more, not
		 * one less.
		 */
		clk->woke = max(clk->woke, READ_ONCE(clk->alarm_woke));
	}
	if (next == clk->armed)
		return false;
	exact = clock == DWQ_CLOCK_BOOTTIME || clk->armed <= read;
	/* It fires by then, early: it re-arms itself then. */
	if (next > clk->armed && !exact)
		return false;
	if (defer && clk->armed == U64_MAX && next != U64_MAX && next > read) {
		WRITE_ONCE(clk->unarmed, true);
		/*
		 * Pairs with the barrier a waiter has between adding itself
		 * to @c->wqh and checking @unarmed (set_current_state() in
		 * read(), smp_mb() in poll()): either it sees @unarmed and
		 * arms the alarm before it sleeps, or it is seen here and
		 * the alarm is armed now.
		 */
		if (!wq_has_sleeper(&c->wqh))
			return false;
		WRITE_ONCE(clk->unarmed, false);
	}
	if (next == U64_MAX) {
		clk->armed = U64_MAX;
		dwq_cancel(&clk->alarm);
		return false;
	}
	now = dwq_clock_now(clock);
	if (next <= now) {
		/*
		 * Due already, as the head a read() leaves while it drains
		 * a backlog: wake the readers here, as an alarm armed in the
		 * past would at once, without the queue's timer in between;
		 * an alarm armed for later would only fire in vain. Not again
		 * for a head that was due when they were last woken: a
		 * backlog drained by many read()s wakes them once, a task due
		 * after that wake again.
		 */
		clk->armed = U64_MAX;
		dwq_cancel(&clk->alarm);
		if (next <= clk->woke)
			return false;
		clk->woke = now;
		wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
		return true;
	}
	clk->woke = 0;
	clk->armed = next;
	err = dwq_client_alarm_set(clk, next, exact);
	/* Kernel users of the queue took the room: make more. */
	while (err == -ENOSPC) {
		err = dwq_queue_reserve(c->q, 1);
		if (err)
			break;
		err = dwq_client_alarm_set(clk, next, exact);
		dwq_queue_unreserve(c->q, 1);
	}
	if (err < 0) {
		/*
		 * Out of memory for the queue's heap, or the queue refuses:
		 * as when the alarm cannot re-arm itself, the clock is @lost,
		 * which reads as due, and the readers are woken: the next
		 * read() or poll() arms it again. Not only woken: one that
		 * found nothing due would sleep on, with no alarm armed.
		 */
		clk->armed = U64_MAX;
		WRITE_ONCE(clk->lost, true);
		wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
	}
	return true;
}

/* A task made new for a schedule: zeroed, in no heap and no id map. */
static void dwq_utask_init(struct dwq_utask *ut)
{
	memset(ut, 0, sizeof(*ut));
	dwq_heap_node_init(&ut->node);
}

/*
 * Free what @bin holds; it is empty after. A lone task is freed on its
 * own: for one object, kmem_cache_free_bulk() costs about twice what
 * kmem_cache_free() does (it builds a freelist to hand over).
 */
static void dwq_bin_empty(struct dwq_bin *bin)
{
	if (bin->n == 1)
		kmem_cache_free(dwq_utask_cache, bin->p[0]);
	else if (bin->n)
		kmem_cache_free_bulk(dwq_utask_cache, bin->n, bin->p);
	bin->n = 0;
}

/**
 * dwq_utask_put() - a task is no more: keep it as a spare, or free it
 * @c: the file, its mutex held
 * @ut: the task, in no heap or run, no id map and no event
 * @bin: where to put it to be freed later with others (dwq_bin_empty()),
 *	or NULL to free it now
 *
 * A spare is not poisoned for KASAN as io_uring's cached objects are: the
 * kernel does not export KASAN's mempool hooks to modules.
 *
 * Context: process context, @c->mutex held.
 */
static __always_inline void
dwq_utask_put(struct dwq_client *c, struct dwq_utask *ut, struct dwq_bin *bin)
{
	lockdep_assert_held(&c->mutex);
	if (c->nr_spare < DWQ_CLIENT_SPARES) {
		c->spare[c->nr_spare++] = ut;
	} else if (bin) {
		if (bin->n == DWQ_BIN_SIZE)
			dwq_bin_empty(bin);
		bin->p[bin->n++] = ut;
	} else {
		kmem_cache_free(dwq_utask_cache, ut);
	}
}

/*
 * Give @n tasks of dwq_utasks_get() back; the file's mutex held. They
 * have no id yet.
 */
static void dwq_utasks_put(struct dwq_client *c, struct dwq_utask **uts,
			   unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		dwq_utask_put(c, uts[i], NULL);
		uts[i] = NULL;
	}
}

/**
 * dwq_utasks_get() - new tasks for a schedule: the file's spares first
 * @c: the file, its mutex held
 * @uts: filled with @n tasks, zeroed, not yet the file's
 * @n: how many
 *
 * A new task is charged to the memory cgroup of the caller, the file's
 * user (its spares were when they were made).
 *
 * Context: process context, @c->mutex held; may sleep.
 * Return: 0; -ENOMEM, with none taken.
 */
static int dwq_utasks_get(struct dwq_client *c, struct dwq_utask **uts,
			  unsigned int n)
{
	struct dwq_utask *ut;
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < n; i++) {
		if (c->nr_spare) {
			ut = c->spare[--c->nr_spare];
		} else {
			ut = kmem_cache_alloc(dwq_utask_cache,
					      GFP_KERNEL_ACCOUNT);
			if (!ut) {
				dwq_utasks_put(c, uts, i);
				return -ENOMEM;
			}
		}
		dwq_utask_init(ut);
		uts[i] = ut;
	}
	return 0;
}

/**
 * dwq_utasks_add() - give new tasks their ids
 * @c: the file, its mutex held
 * @uts: @n tasks from dwq_utasks_get()
 * @n: how many
 *
 * Context: process context, @c->mutex held.
 * Return: 0; -ENOSPC, with no id given, if the file has fewer than @n
 * ids left.
 */
static int dwq_utasks_add(struct dwq_client *c, struct dwq_utask **uts,
			  unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	if (U64_MAX - c->next_id < n)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		uts[i]->id = ++c->next_id;
		dwq_ids_add(c, uts[i]);
	}
	dwq_ids_fit(c);
	return 0;
}

/**
 * dwq_utask_insert() - put a task in its clock's run or heap
 * @c: the file, its mutex held
 * @ut: the task, in no heap or run; its clock set
 * @deadline: on that clock
 *
 * At the end of the run if it comes after the run's last task, the ring
 * made room for first if need be (dwq_clk_run_room(), which may allocate),
 * else in the heap, where the caller made room with dwq_client_grow().
 * Equal deadlines leave in the order of the file's inserts and moves, over
 * both clocks.
 *
 * Context: process context, @c->mutex held; may sleep.
 */
static void dwq_utask_insert(struct dwq_client *c, struct dwq_utask *ut,
			     u64 deadline)
{
	struct dwq_client_clock *clk = &c->clk[ut->clock];
	u64 seq = c->seq++;

	lockdep_assert_held(&c->mutex);
	if (dwq_run_after_last(&clk->run, deadline, seq) &&
	    (clk->run.len < clk->run.cap || dwq_clk_run_room(&clk->run))) {
		ut->node.deadline = deadline;
		ut->node.seq = seq;
		dwq_run_append(&clk->run, &ut->node);
		clk->periodic += dwq_node_periodic(&ut->node);
		return;
	}
	clk->heap.next_seq = seq;
	WARN_ON_ONCE(dwq_heap_insert(&clk->heap, &ut->node, deadline));
}

/*
 * dwq_utask_destroy() but for the file's count of its tasks and the
 * task's charge to its user and to all files, which the caller returns,
 * for many tasks at once: true if that charge is to be returned (no event
 * it kept holds it).
 */
static __always_inline bool __dwq_utask_destroy(struct dwq_client *c,
						struct dwq_utask *ut,
						struct dwq_bin *bin)
{
	bool release = !ut->ev;

	lockdep_assert_held(&c->mutex);
	if (dwq_utask_queued(ut))
		dwq_clk_remove(&c->clk[ut->clock], &ut->node);
	dwq_ids_del(c, ut);
	/* A one-shot has no firing rate to return (dwq_limits_rate()). */
	if (ut->mode != DWQ_MODE_ONESHOT)
		dwq_limits_rate_release(c->user,
					dwq_limits_rate(ut->mode, ut->period));
	if (ut->ev) {
		/* Its id goes: the event it kept is its last. */
		ut->ev->ev.flags |= DWQ_EVENT_LAST;
		ut->ev->ut = NULL;
	}
	dwq_utask_put(c, ut, bin);
	return release;
}

/**
 * dwq_utask_destroy() - a task is done: drop it and its charges
 * @c: the file, its mutex held
 * @ut: its task
 * @bin: see dwq_utask_put()
 *
 * Out of its heap or run and the id map, its file's charge and firing rate
 * returned. An unread event it kept stays, as the id's last
 * (%DWQ_EVENT_LAST), and holds the task's charge to its user and to all
 * files until it is read; otherwise those go too.
 *
 * Context: process context, @c->mutex held.
 */
static void dwq_utask_destroy(struct dwq_client *c, struct dwq_utask *ut,
			      struct dwq_bin *bin)
{
	bool release = __dwq_utask_destroy(c, ut, bin);

	atomic_dec(&c->nr_tasks);
	if (release)
		dwq_limits_release(c->user, 1);
}

/**
 * dwq_utask_due() - has a task's deadline passed?
 * @ut: the task
 * @now: the time on its clock
 *
 * Context: @ut's file's mutex held.
 * Return: true if it is due: read() would fire it.
 */
static bool dwq_utask_due(const struct dwq_utask *ut, u64 now)
{
	return ut->node.deadline <= now;
}

/*
 * The moment of one ioctl on many tasks: each clock read once, when a
 * task of that clock first needs it.
 */
struct dwq_moment {
	u64 t[DWQ_NR_CLOCKS];
	unsigned int have;
};

static void dwq_moment_init(struct dwq_moment *at)
{
	at->have = 0;
}

/* A moment that starts with the clocks @now read (0: not read). */
static void dwq_moment_from(struct dwq_moment *at, const u64 *now)
{
	unsigned int i;

	at->have = 0;
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		if (now[i]) {
			at->t[i] = now[i];
			at->have |= BIT(i);
		}
	}
}

static u64 dwq_moment(struct dwq_moment *at, unsigned int clock)
{
	if (!(at->have & BIT(clock))) {
		at->t[clock] = dwq_clock_now(clock);
		at->have |= BIT(clock);
	}
	return at->t[clock];
}

/*
 * The times of one read (or ioctl) on both clocks: one instant, the
 * clock read once. CLOCK_BOOTTIME's is CLOCK_MONOTONIC's plus the
 * kernel's offset between them (the time spent suspended), not a second
 * read: a task preempted between two reads would see the clocks apart by
 * the time it was off the CPU, and order the events of both clocks by
 * that much wrong (dwq_now_key()).
 */
struct dwq_now {
	u64 t[DWQ_NR_CLOCKS];
};

/* The instant @mono of CLOCK_MONOTONIC on CLOCK_BOOTTIME. */
static u64 dwq_boottime_at(u64 mono)
{
	return ktime_to_ns(ktime_mono_to_any(ns_to_ktime(mono), TK_OFFS_BOOT));
}

static void dwq_now_get(struct dwq_now *now)
{
	now->t[DWQ_CLOCK_MONOTONIC] = ktime_get_ns();
	now->t[DWQ_CLOCK_BOOTTIME] =
		dwq_boottime_at(now->t[DWQ_CLOCK_MONOTONIC]);
}

/*
 * The moment of a read(): as dwq_now_get(), but CLOCK_BOOTTIME only if a
 * task of that clock may be due, one queued or with a kept event:
 * else nothing of that clock fires, and its alarm is armed exactly, with
 * no moment (dwq_client_arm()), so 0 stands in.
 */
static void dwq_read_now(const struct dwq_client *c, struct dwq_now *now)
{
	now->t[DWQ_CLOCK_MONOTONIC] = ktime_get_ns();
	now->t[DWQ_CLOCK_BOOTTIME] =
		dwq_clk_size(&c->clk[DWQ_CLOCK_BOOTTIME]) ||
				!list_empty(&c->ready) ?
			dwq_boottime_at(now->t[DWQ_CLOCK_MONOTONIC]) :
			0;
}

/*
 * A deadline of @clock as CLOCK_MONOTONIC time, for ordering the events
 * of both clocks; the offset between the clocks is @now's. A
 * CLOCK_BOOTTIME deadline earlier than the time suspended since boot is
 * before CLOCK_MONOTONIC's 0: keys are signed times, their sign bit
 * flipped so that they compare as u64 in the same order.
 */
static u64 dwq_now_key(const struct dwq_now *now, unsigned int clock, u64 d)
{
	if (clock == DWQ_CLOCK_BOOTTIME)
		d -= now->t[DWQ_CLOCK_BOOTTIME] - now->t[DWQ_CLOCK_MONOTONIC];
	return d ^ BIT_ULL(63);
}

/*
 * The firing of the due task @ut at @now (on its clock): its event in
 * @ev (folded into its kept event, if it has one), the periods it skipped
 * in @skipped, its next deadline in @next. Changes nothing.
 */
static __always_inline void dwq_utask_firing(const struct dwq_utask *ut,
					     u64 now, struct dwq_event *ev,
					     u64 *skipped, u64 *next)
{
	u64 d = ut->node.deadline, p = ut->period, k = 0;
	u32 flags = 0;

	if (ut->last) {
		/* Cancelled while due: its last firing, made then. */
		*ev = (struct dwq_event){
			.id = ut->id,
			.cookie = ut->cookie,
			.deadline_ns = d,
			.fired_ns = ut->fired_ns,
			.skipped = ut->skipped,
			.flags = DWQ_EVENT_LAST,
		};
		*skipped = 0;
		*next = 0;
		return;
	}
	switch (ut->mode) {
	case DWQ_MODE_ONESHOT:
		flags = DWQ_EVENT_LAST;
		*next = 0;
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
	*skipped = k;
	if (ut->ev) {
		*ev = ut->ev->ev;
		ev->deadline_ns = d;
		ev->fired_ns = now;
		ev->skipped += k;
		ev->folded++;
		ev->worker = 0;
		ev->flags |= DWQ_EVENT_COALESCED | flags;
		return;
	}
	/*
	 * Field by field, each stored once: a compound literal is zeroed
	 * first, with a string store ("rep stos") that the guests' emulated
	 * CPU steps through a word at a time, in every event of a burst.
	 * Every field, so that no byte of the event is left unset: it goes
	 * to user space.
	 */
	BUILD_BUG_ON(sizeof(*ev) != 7 * sizeof(u64) + 2 * sizeof(u32));
	ev->id = ut->id;
	ev->cookie = ut->cookie;
	ev->deadline_ns = d;
	ev->fired_ns = now;
	ev->overruns = 0;
	ev->skipped = k;
	ev->folded = 0;
	ev->worker = 0;
	ev->flags = flags;
}

static int dwq_uevent_cmp(void *priv, const struct list_head *a,
			  const struct list_head *b)
{
	const struct dwq_uevent *x = list_entry(a, struct dwq_uevent, link);
	const struct dwq_uevent *y = list_entry(b, struct dwq_uevent, link);

	return x->key > y->key || (x->key == y->key && x->seq > y->seq);
}

/*
 * Key @c->ready's events with @now's offset between the clocks: a
 * CLOCK_BOOTTIME event keyed before a suspend sorts as late as the time
 * suspended since. Kept events are few; only a suspend changes the offset.
 */
static void dwq_ready_rekey(struct dwq_client *c, const struct dwq_now *now)
{
	u64 off = now->t[DWQ_CLOCK_BOOTTIME] - now->t[DWQ_CLOCK_MONOTONIC];
	struct dwq_uevent *uev;

	lockdep_assert_held(&c->mutex);
	if (c->ready_off == off)
		return;
	c->ready_off = off;
	list_for_each_entry(uev, &c->ready, link)
		uev->key = dwq_now_key(now, uev->clock, uev->ev.deadline_ns);
	list_sort(NULL, &c->ready, dwq_uevent_cmp);
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
 * dwq_uevents_free() - free what dwq_uevents_alloc() made and was not used
 * @spares: the list
 *
 * Context: any context.
 */
static void dwq_uevents_free(struct list_head *spares)
{
	struct dwq_uevent *uev, *tmp;

	list_for_each_entry_safe(uev, tmp, spares, link)
		kfree(uev);
	INIT_LIST_HEAD(spares);
}

/**
 * dwq_uevents_alloc() - make room for events to keep
 * @spares: a list to add them to
 * @n: how many
 *
 * Context: process context; sleeps.
 * Return: 0, or -ENOMEM with none added.
 */
static int dwq_uevents_alloc(struct list_head *spares, unsigned int n)
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
 * dwq_utask_keep() - fire a due task for a cancel or reschedule of it
 * @c: the file, its mutex held
 * @ut: its task, due, periodic (a due one-shot's id is gone)
 * @now: the time on its clock
 * @spares: events from dwq_uevents_alloc(); one is taken unless @ut has
 *	a kept event already, which this firing folds into (then @spares
 *	may be NULL)
 * @flags: event flags added to the firing's, %DWQ_EVENT_LAST for a cancel
 *
 * The firing's event is kept on the file's ready list, unread, with the
 * periods it skipped until @now. The caller then removes or moves the
 * task: it stays queued at the deadline that fired until then.
 *
 * Context: process context, @c->mutex held.
 */
static void dwq_utask_keep(struct dwq_client *c, struct dwq_utask *ut, u64 now,
			   struct list_head *spares, u32 flags)
{
	struct dwq_uevent *uev = ut->ev;
	bool folded = !!uev;
	struct dwq_now at;
	u64 skipped, next;
	struct dwq_event ev;

	lockdep_assert_held(&c->mutex);
	dwq_utask_firing(ut, now, &ev, &skipped, &next);
	ev.flags |= flags;
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
	dwq_ready_rekey(c, &at);
	uev->key = dwq_now_key(&at, ut->clock, ut->node.deadline);
	uev->seq = ut->node.seq;
	uev->clock = ut->clock;
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
 * charge and firing rate given back, but queued at the deadline that
 * fired until read() returns the event. Nothing is allocated, so nothing
 * fails.
 *
 * Context: process context, @c->mutex held.
 */
static void dwq_utask_cancel_due(struct dwq_client *c, struct dwq_utask *ut,
				 u64 now)
{
	struct dwq_event ev;
	u64 skipped, next;

	lockdep_assert_held(&c->mutex);
	dwq_utask_firing(ut, now, &ev, &skipped, &next);
	ev.flags |= DWQ_EVENT_LAST;
	dwq_ids_del(c, ut);
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
		dwq_limits_release(c->user, 1);
	kfree(uev);
}

/**
 * dwq_events_free() - drop the kept events nobody will read
 * @c: the file, being released, its tasks freed (the events' @ut
 *	pointers dangle: only whether they are NULL counts)
 *
 * Context: process context, @c->mutex held.
 */
static void dwq_events_free(struct dwq_client *c)
{
	struct dwq_uevent *uev, *tmp;

	lockdep_assert_held(&c->mutex);
	list_for_each_entry_safe(uev, tmp, &c->ready, link) {
		/* Its task's charge went with the task, if it had one. */
		if (!uev->ut)
			dwq_limits_release(c->user, 1);
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
 * dwq_heap_pop() out of line: inlined into dwq_read_collect()'s loop, whose
 * many live values leave the sift fewer registers, a burst's drain took
 * about 1 % more instructions per event.
 */
static noinline struct dwq_heap_node *dwq_client_pop(struct dwq_heap *heap)
{
	return dwq_heap_pop(heap);
}

/* Take @node, the clock's earliest task (dwq_clk_peek()), out. */
static __always_inline void dwq_clk_take(struct dwq_client_clock *clk,
					 struct dwq_heap_node *node)
{
	if (dwq_run_node_queued(node)) {
		dwq_run_pop(&clk->run);
		clk->periodic -= dwq_node_periodic(node);
	} else {
		dwq_client_pop(&clk->heap);
	}
}

/*
 * Put back @node, which left the clock: at the front of the run if it
 * comes before the run's first and the run has room, else in the heap.
 * One taken from the run goes back to it: put back the last taken first,
 * it comes before what the run has left, and left a slot there. One taken
 * from the heap left a slot there.
 */
static void dwq_clk_restore(struct dwq_client_clock *clk,
			    struct dwq_heap_node *node)
{
	struct dwq_heap_node *first = dwq_run_first(&clk->run);

	if (clk->run.len < clk->run.cap &&
	    (!first || dwq_run_key_before(node->deadline, node->seq,
					  first->deadline, first->seq))) {
		dwq_run_push(&clk->run, node);
		clk->periodic += dwq_node_periodic(node);
		return;
	}
	WARN_ON_ONCE(dwq_heap_restore(&clk->heap, node));
}

/* Is (@key, @seq) before (@lkey, @lseq)? Seqs are unique in a file. */
static bool dwq_key_before(u64 key, u64 seq, u64 lkey, u64 lseq)
{
	return key < lkey || (key == lkey && seq < lseq);
}

/*
 * Take up to @max events, in deadline order, into @ev and @picks: the
 * due tasks leave their clocks (dwq_read_undo() puts them back), the kept
 * events stay on the list until dwq_read_commit().
 *
 * Each round picks the earliest of the due heads of both clocks and the
 * next kept event; if that is a clock's head, the tasks of that clock come
 * out after it one by one, while they are due and before the earliest of
 * the others, which no pop changes: a backlog of one clock is drained
 * with one comparison a task.
 */
static unsigned int dwq_read_collect(struct dwq_client *c,
				     const struct dwq_now *now,
				     struct dwq_pick *picks,
				     struct dwq_event *ev, unsigned int max)
{
	struct list_head *pos = c->ready.next;
	u64 key, best_key, best_seq, lkey, lseq;
	struct dwq_client_clock *clk;
	struct dwq_heap_node *head;
	struct dwq_uevent *uev;
	struct dwq_utask *ut;
	unsigned int n = 0, i;
	int best;

	while (n < max) {
		best = -1;
		best_key = U64_MAX;
		best_seq = U64_MAX;
		lkey = U64_MAX;
		lseq = U64_MAX;
		for (i = 0; i < DWQ_NR_CLOCKS; i++) {
			head = dwq_clk_peek(&c->clk[i]);
			if (!head || head->deadline > now->t[i])
				continue;
			key = dwq_now_key(now, i, head->deadline);
			if (best < 0 || dwq_key_before(key, head->seq, best_key,
						       best_seq)) {
				/* The head it beats is the next after it. */
				lkey = best_key;
				lseq = best_seq;
				best = i;
				best_key = key;
				best_seq = head->seq;
			} else if (dwq_key_before(key, head->seq, lkey, lseq)) {
				lkey = key;
				lseq = head->seq;
			}
		}
		uev = dwq_ready_next(c, pos, now);
		if (uev && (best < 0 || dwq_key_before(uev->key, uev->seq,
						       best_key, best_seq))) {
			picks[n] = (struct dwq_pick){ .uev = uev };
			ev[n++] = uev->ev;
			pos = uev->link.next;
			continue;
		}
		if (best < 0)
			break;
		if (uev && dwq_key_before(uev->key, uev->seq, lkey, lseq)) {
			lkey = uev->key;
			lseq = uev->seq;
		}
		clk = &c->clk[best];
		head = dwq_clk_peek(clk);
		do {
			dwq_clk_take(clk, head);
			ut = container_of(head, struct dwq_utask, node);
			picks[n] = (struct dwq_pick){ .ut = ut };
			dwq_utask_firing(ut, now->t[best], &ev[n],
					 &picks[n].skipped, &picks[n].next);
			n++;
			head = dwq_clk_peek(clk);
		} while (n < max && head && head->deadline <= now->t[best] &&
			 dwq_key_before(dwq_now_key(now, best, head->deadline),
					head->seq, lkey, lseq));
	}
	return n;
}

/*
 * The copy of @picks faulted: put their tasks back as they were, the last
 * taken first, so that each comes before those put back already.
 */
static void dwq_read_undo(struct dwq_client *c, const struct dwq_pick *picks,
			  unsigned int n)
{
	struct dwq_utask *ut;

	while (n--) {
		ut = picks[n].ut;
		/*
		 * Its deadline and seq are as they were: back before the
		 * tasks of its deadline that were never taken.
		 */
		if (ut)
			dwq_clk_restore(&c->clk[ut->clock], &ut->node);
	}
}

/*
 * The events of @picks were copied to the reader: they are read. The
 * one-shots done go to @bin, as dwq_utask_destroy() would put them (they
 * left their clock when they were collected), and their charges are
 * returned together at the end: one atomic operation on each count for
 * the chunk, not one per task. A one-shot has no firing rate to return.
 */
static void dwq_read_commit(struct dwq_client *c, const struct dwq_pick *picks,
			    const struct dwq_event *ev, unsigned int n,
			    struct dwq_bin *bin)
{
	unsigned int i, done = 0, released = 0;
	struct dwq_utask *ut;
	bool folded;

	for (i = 0; i < n; i++) {
		ut = picks[i].ut;
		if (!ut) {
			dwq_uevent_done(c, picks[i].uev);
			continue;
		}
		if (ut->last) {
			/* Counted and traced when it was cancelled. */
			released++;
			dwq_utask_put(c, ut, bin);
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
		if (ut->mode != DWQ_MODE_ONESHOT) {
			dwq_utask_insert(c, ut, picks[i].next);
			continue;
		}
		dwq_ids_del(c, ut);
		done++;
		/* Its charge: an event it folded into (done above) held none. */
		released++;
		dwq_utask_put(c, ut, bin);
	}
	if (done)
		atomic_sub(done, &c->nr_tasks);
	if (released)
		dwq_limits_release(c->user, released);
}

/*
 * After a read(): the done tasks freed, and the heaps, runs and id map
 * shrunk to what is left in them; the file's mutex held. While @draining
 * (a read() left tasks due: the reader is working through a backlog and
 * comes back for them), the heaps, runs and id map keep their size: the
 * read() that leaves nothing due shrinks them once, where shrinking
 * after every read() on the way down would copy the heap and rehash the
 * id map each time a quarter of them was left.
 */
static void dwq_client_tidy(struct dwq_client *c, bool draining)
{
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	if (!draining) {
		for (i = 0; i < DWQ_NR_CLOCKS; i++)
			dwq_client_shrink(c, i);
		dwq_ids_fit(c);
	}
	dwq_bin_empty(&c->bin);
}

/*
 * An alarm that could not re-arm itself (@lost): armed by the
 * dwq_client_arm() that follows, as one never armed. The file's mutex held.
 */
static void dwq_clk_find(struct dwq_client_clock *clk)
{
	if (READ_ONCE(clk->lost)) {
		WRITE_ONCE(clk->lost, false);
		clk->armed = U64_MAX;
	}
}

/*
 * After a read() (or the settling of its owed task): arm the alarms for
 * the heads, with @read the read's moment on each clock, and tidy. A
 * reader that @fired events with nobody else waiting may leave an alarm
 * unarmed (dwq_client_arm()): it comes back to arm it, with a read() that
 * fires nothing if it is to wait, and what is left to tidy waits for then
 * too, off the path from a deadline to the event.
 */
static void dwq_read_finish(struct dwq_client *c, const u64 *read, bool fired)
{
	bool defer = false, draining = false;
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		dwq_clk_find(&c->clk[i]);
		dwq_client_arm(c, i, read[i], fired);
		defer |= c->clk[i].unarmed;
		/* @next is the head's deadline now: due at the read's moment? */
		draining |= c->clk[i].next <= read[i];
		if (read[i] > READ_ONCE(c->clk[i].passed))
			WRITE_ONCE(c->clk[i].passed, read[i]);
	}
	if (!defer)
		dwq_client_tidy(c, draining);
}

/**
 * __dwq_client_settle() - take out the one-shot a read() left owed
 * @c: the file, its mutex just taken; @c->owed set
 *
 * Whoever takes the mutex calls this first, through dwq_client_settle()
 * (but release, which frees the owed task alone, and fdinfo, which only
 * looks): the one-shot whose event a read() returned alone leaves its
 * clock and the id map, then the alarms and the tidying are seen
 * to as after any read().
 *
 * Context: process context, @c->mutex held; may sleep.
 */
static noinline void __dwq_client_settle(struct dwq_client *c)
{
	struct dwq_utask *ut = c->owed;
	u64 read[DWQ_NR_CLOCKS] = {};

	lockdep_assert_held(&c->mutex);
	c->owed = NULL;
	read[ut->clock] = c->owed_read;
	/* Uncharged and traced when it was read (dwq_read_owe()). */
	dwq_clk_remove(&c->clk[ut->clock], &ut->node);
	if (!ut->last) {
		dwq_ids_del(c, ut);
		c->fired++;
	}
	dwq_utask_put(c, ut, &c->bin);
	dwq_read_finish(c, read, true);
}

/*
 * Is a task of the clock other than @first, its earliest, due at @now?
 * The next in @first's heap or run, or the other's first. True also for a
 * hole after the run's first, which may hide one.
 */
static bool dwq_clk_due_after(const struct dwq_client_clock *clk,
			      const struct dwq_heap_node *first, u64 now)
{
	const struct dwq_heap *heap = &clk->heap;
	const struct dwq_heap_node *next;
	unsigned int ch, end;

	if (dwq_run_node_queued(first)) {
		if (clk->run.len > 1) {
			next = dwq_run_at(&clk->run, 1);
			if (!next || next->deadline <= now)
				return true;
		}
		return heap->nr && heap->slots[0].deadline <= now;
	}
	end = min_t(unsigned int, DWQ_HEAP_ARITY + 1, heap->nr);
	for (ch = 1; ch < end; ch++)
		if (heap->slots[ch].deadline <= now)
			return true;
	next = dwq_run_first(&clk->run);
	return next && next->deadline <= now;
}

/*
 * The task a read() at @now would fire, if it is the only one and a
 * one-shot (or cancelled while due): the earliest of one clock, due, with
 * no other task of that clock due (dwq_clk_due_after()) and the other
 * clock's earliest not due, and no kept event. NULL otherwise. (A
 * periodic task moves on when it fires: its next period is queued when
 * read() returns.)
 */
static struct dwq_utask *dwq_read_single(const struct dwq_client *c,
					 const struct dwq_now *now)
{
	struct dwq_heap_node *root = NULL, *first;
	struct dwq_utask *ut;
	unsigned int i;

	if (c->nr_ready)
		return NULL;
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		first = dwq_clk_peek(&c->clk[i]);
		if (!first || first->deadline > now->t[i])
			continue;
		if (root || dwq_clk_due_after(&c->clk[i], first, now->t[i]))
			return NULL;
		root = first;
	}
	if (!root)
		return NULL;
	ut = container_of(root, struct dwq_utask, node);
	return ut->mode == DWQ_MODE_ONESHOT || ut->last ? ut : NULL;
}

/*
 * Copy @n events to @buf. Stored field by field in one user-access
 * window, as epoll_put_uevent() stores epoll's: copy_to_user() runs the
 * kernel's string copy, a loop of about 85 instructions for one 64-byte
 * event on a CPU without fast short "rep movsb", and on one with ERMS a
 * "rep movsb" that the emulated CPUs of the guests dwq is measured in
 * step a byte at a time; the stores are about 20 instructions an event.
 * A @buf not aligned for the stores takes copy_to_user(). Return the
 * events stored whole: @n, or, as after a partial copy_to_user(), those
 * before the fault (what was stored of the next stays).
 */
static __always_inline unsigned int
dwq_put_events(char __user *buf, const struct dwq_event *ev, unsigned int n)
{
	struct dwq_event __user *uev = (struct dwq_event __user *)buf;
	unsigned int i;
	size_t left;

	/* Every field is stored below. */
	BUILD_BUG_ON(sizeof(*ev) != 7 * sizeof(u64) + 2 * sizeof(u32));
	if (!IS_ALIGNED((unsigned long)buf, sizeof(u64))) {
		left = copy_to_user(buf, ev, n * sizeof(*ev));
		return n - DIV_ROUND_UP(left, sizeof(*ev));
	}
	if (!user_write_access_begin(uev, n * sizeof(*uev)))
		return 0;
	for (i = 0; i < n; i++, ev++, uev++) {
		unsafe_put_user(ev->id, &uev->id, efault);
		unsafe_put_user(ev->cookie, &uev->cookie, efault);
		unsafe_put_user(ev->deadline_ns, &uev->deadline_ns, efault);
		unsafe_put_user(ev->fired_ns, &uev->fired_ns, efault);
		unsafe_put_user(ev->overruns, &uev->overruns, efault);
		unsafe_put_user(ev->skipped, &uev->skipped, efault);
		unsafe_put_user(ev->folded, &uev->folded, efault);
		unsafe_put_user(ev->worker, &uev->worker, efault);
		unsafe_put_user(ev->flags, &uev->flags, efault);
	}
	user_write_access_end();
	return n;
efault:
	user_write_access_end();
	return i;
}

/*
 * Return the event of @ut, the only task due at @now, a one-shot, to @buf,
 * and leave @ut first on its clock, owed (dwq_client_settle()), with its
 * alarm unarmed: the reader pays for the pop and the alarm when it comes
 * back, not between the deadline and its event. With anybody else waiting
 * on the file, settled at once, as a read() that fired several events
 * arms the alarms at once. Return 0, or -EFAULT with nothing changed.
 */
static int dwq_read_owe(struct dwq_client *c, struct dwq_utask *ut,
			const struct dwq_now *now, char __user *buf)
{
	unsigned int i;

	dwq_utask_firing(ut, now->t[ut->clock], &c->owed_ev, &c->owed_skipped,
			 &c->owed_next);
	if (!dwq_put_events(buf, &c->owed_ev, 1))
		return -EFAULT;
	/*
	 * Done once read: traced and uncharged now (a task cancelled while
	 * due was traced and left its file then), so that nothing counts it
	 * while it waits to be settled.
	 */
	if (!ut->last) {
		trace_dwq_dev_event(c->tgid, &c->owed_ev, false);
		atomic_dec(&c->nr_tasks);
	}
	dwq_limits_release(c->user, 1);
	c->owed = ut;
	c->owed_read = now->t[ut->clock];
	for (i = 0; i < DWQ_NR_CLOCKS; i++)
		if (now->t[i] > READ_ONCE(c->clk[i].passed))
			WRITE_ONCE(c->clk[i].passed, now->t[i]);
	WRITE_ONCE(c->clk[ut->clock].unarmed, true);
	/* Pairs with set_current_state() in a waiter: see dwq_client_arm(). */
	if (wq_has_sleeper(&c->wqh))
		__dwq_client_settle(c);
	return 0;
}

/*
 * Fire what is due at @now and copy the events to @buf, @count bytes at
 * most, a chunk at a time; the file's mutex held. Return the bytes copied,
 * or -EFAULT if the first copy failed; 0 if nothing is due. Out of line:
 * its buffers are kept off the stack of a read() of one event.
 */
static noinline ssize_t dwq_read_chunks(struct dwq_client *c, char __user *buf,
					size_t count, const struct dwq_now *now)
{
	/*
	 * Not zeroed on entry (CONFIG_INIT_STACK_ALL_ZERO would, 768 bytes
	 * per read): only the entries dwq_read_collect() filled whole are
	 * used or copied out, and an event has no padding.
	 */
	struct dwq_event ev[DWQ_READ_CHUNK] __uninitialized;
	struct dwq_pick picks[DWQ_READ_CHUNK] __uninitialized;
	size_t done = 0;
	unsigned int n, good;
	ssize_t err = 0;

	while (count - done >= sizeof(*ev)) {
		n = dwq_read_collect(c, now, picks, ev,
				     min_t(size_t, DWQ_READ_CHUNK,
					   (count - done) / sizeof(*ev)));
		if (!n)
			break;
		good = dwq_put_events(buf + done, ev, n);
		if (good < n) {
			/* The events copied whole before the fault are read. */
			dwq_read_undo(c, picks + good, n - good);
			dwq_read_commit(c, picks, ev, good, &c->bin);
			done += good * sizeof(*ev);
			err = -EFAULT;
			break;
		}
		dwq_read_commit(c, picks, ev, n, &c->bin);
		done += n * sizeof(*ev);
	}
	dwq_read_finish(c, now->t, done);
	return done ? done : err;
}

/*
 * Fire what is due and copy the events to @buf, @count bytes at most;
 * the file's mutex held. Return the bytes copied, or -EFAULT if the first
 * copy failed; 0 if nothing is due.
 */
static ssize_t dwq_read_locked(struct dwq_client *c, char __user *buf,
			       size_t count)
{
	struct dwq_utask *ut;
	struct dwq_now now;

	lockdep_assert_held(&c->mutex);
	dwq_client_settle(c);
	/* One moment for the whole read: a task moved on is not due again. */
	dwq_read_now(c, &now);
	ut = dwq_read_single(c, &now);
	if (!ut) {
		if (!list_empty(&c->ready))
			dwq_ready_rekey(c, &now);
		return dwq_read_chunks(c, buf, count, &now);
	}
	if (!dwq_read_owe(c, ut, &now, buf))
		return sizeof(struct dwq_event);
	/* Nothing changed: arm, tidy and return. */
	dwq_read_finish(c, now.t, false);
	return -EFAULT;
}

/*
 * Is the earliest deadline of @clock due? Lockless; no clock read if empty,
 * or if it is no later than a moment known to be past.
 */
static bool dwq_client_clock_due(struct dwq_client *c, unsigned int clock)
{
	struct dwq_client_clock *clk = &c->clk[clock];
	u64 next = READ_ONCE(clk->next);

	return next != U64_MAX &&
	       (next <= READ_ONCE(clk->passed) || next <= dwq_clock_now(clock));
}

/*
 * Is anything to read, or an alarm to arm (@unarmed, @lost)? Lockless: the
 * alarms' wakeups pair with it.
 */
static bool dwq_client_due(struct dwq_client *c)
{
	return READ_ONCE(c->nr_ready) ||
	       READ_ONCE(c->clk[DWQ_CLOCK_MONOTONIC].unarmed) ||
	       READ_ONCE(c->clk[DWQ_CLOCK_BOOTTIME].unarmed) ||
	       READ_ONCE(c->clk[DWQ_CLOCK_MONOTONIC].lost) ||
	       READ_ONCE(c->clk[DWQ_CLOCK_BOOTTIME].lost) ||
	       dwq_client_clock_due(c, DWQ_CLOCK_MONOTONIC) ||
	       dwq_client_clock_due(c, DWQ_CLOCK_BOOTTIME);
}

/*
 * Sleep until something is due (or a signal: -ERESTARTSYS). As
 * __wait_event_interruptible(), but a reader woken checks at once, before
 * it puts itself back on the wait queue: the wakeup took it off
 * (autoremove_wake_function()), and the alarm that woke it left the head
 * due, so the check is all it does before it returns, where the macro
 * takes the wait queue's lock twice more, to add it and remove it again.
 * Only a wakeup that finds nothing due puts it back, and checks again
 * once it is there, as the macro does.
 */
static long dwq_dev_wait(struct dwq_client *c)
{
	DEFINE_WAIT(wait);
	long err;

	might_sleep();
	for (;;) {
		err = prepare_to_wait_event(&c->wqh, &wait, TASK_INTERRUPTIBLE);
		if (dwq_client_due(c)) {
			err = 0;
			break;
		}
		if (err)
			break;
		schedule();
		if (dwq_client_due(c))
			break;
	}
	finish_wait(&c->wqh, &wait);
	return err;
}

/*
 * Take @c's mutex for a read(): interruptibly, as a read() waits. But a
 * read() of a file opened O_NONBLOCK that io_uring issues runs where it
 * is submitted, in the submitter or the SQPOLL thread, and there the
 * notification io_uring's task_work leaves (TIF_NOTIFY_SIGNAL) is a
 * pending signal that nobody sent: it would end the wait at once, and the
 * read with -EINTR in its CQE. With no signal pending but that, the wait
 * goes on killably, as an io_uring command's does (dwq_dev_uring_cmd()).
 */
static int dwq_read_lock(struct dwq_client *c)
{
	if (!mutex_lock_interruptible(&c->mutex))
		return 0;
	if (task_sigpending(current))
		return -ERESTARTSYS;
	return mutex_lock_killable(&c->mutex) ? -ERESTARTSYS : 0;
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
	bool due;

	if (count < sizeof(struct dwq_event))
		return -EINVAL;
	/*
	 * Nothing due: nothing for the locked read to fire or to arm (every
	 * change of a clock's tasks armed its alarm, and one left unarmed, or that
	 * could not re-arm itself, is @unarmed or @lost, which are due). The
	 * locked read that fires nothing arms the alarms, and frees what the
	 * reads before it left. A read in a loop until -EAGAIN, as
	 * with epoll's EPOLLET, pays for its last call no more than the
	 * system call.
	 */
	due = dwq_client_due(c);
	for (;;) {
		if (due) {
			if (dwq_read_lock(c))
				return -ERESTARTSYS;
			ret = dwq_read_locked(c, buf, count);
			mutex_unlock(&c->mutex);
			if (ret)
				return ret;
		}
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		/*
		 * A clock whose alarm could not be armed reads as due, with
		 * nothing to fire: a reader for whom that lasts (the queue
		 * out of memory) goes round here, and must stay killable.
		 */
		if (signal_pending(current))
			return -ERESTARTSYS;
		/*
		 * Another reader may have taken what woke us: then wait
		 * again. A deadline passing wakes us by the alarm, armed at
		 * each heap's earliest deadline by whoever changed it; the
		 * condition is checked after we are on the wait queue, so
		 * an alarm that fired before is seen by the clock. Not
		 * wait_event_interruptible(), which checks it once more
		 * first: each check reads the clock, and it was just
		 * checked (or the read fired nothing). dwq_dev_wait()
		 * returns with the condition true, so nothing checks it
		 * again.
		 */
		if (dwq_dev_wait(c))
			return -ERESTARTSYS;
		due = true;
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
	unsigned int i;

	poll_wait(file, &c->wqh, wait);
	/*
	 * Pairs with wq_has_sleeper() in dwq_client_arm() and
	 * dwq_read_owe(): either the reader that leaves the alarm unarmed
	 * sees us on the wait queue, or we see @unarmed below.
	 */
	smp_mb();
	/*
	 * An alarm a read() left unarmed (with the task it owes and what it
	 * left to tidy), or one that could not be armed (@lost: the queue
	 * had no room), is armed now that we wait; if it still cannot be,
	 * the clock stays @lost. If the mutex is held, the file reads as
	 * readable (both are due): a read() arms it. Not waiting for the
	 * mutex, which a read() holds across its copy to user space.
	 */
	if ((READ_ONCE(c->clk[DWQ_CLOCK_MONOTONIC].unarmed) ||
	     READ_ONCE(c->clk[DWQ_CLOCK_BOOTTIME].unarmed) ||
	     READ_ONCE(c->clk[DWQ_CLOCK_MONOTONIC].lost) ||
	     READ_ONCE(c->clk[DWQ_CLOCK_BOOTTIME].lost)) &&
	    mutex_trylock(&c->mutex)) {
		dwq_client_settle(c);
		for (i = 0; i < DWQ_NR_CLOCKS; i++) {
			dwq_clk_find(&c->clk[i]);
			dwq_client_arm(c, i, 0, false);
		}
		dwq_client_tidy(c, false);
		mutex_unlock(&c->mutex);
	}
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

/*
 * As dwq_heap_walk(), for the clock's heap and run: the run's tasks due
 * at @now are its first ones, up to the first that is not.
 */
static u64 dwq_clk_walk(const struct dwq_client_clock *clk, u64 now,
			struct dwq_heap_node **later)
{
	u64 due = dwq_heap_walk(&clk->heap, now, later);
	struct dwq_heap_node *node;
	unsigned int pos;

	for (pos = 0; pos < clk->run.len; pos++) {
		node = dwq_run_at(&clk->run, pos);
		if (!node)
			continue;
		if (node->deadline > now) {
			if (later &&
			    (!*later || node->deadline < (*later)->deadline))
				*later = node;
			break;
		}
		if (!container_of(node, struct dwq_utask, node)->ev)
			due++;
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
static u64 dwq_events_count(struct dwq_client *c)
{
	u64 n = c->nr_ready;
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < DWQ_NR_CLOCKS; i++)
		n += dwq_clk_walk(&c->clk[i], dwq_clock_now(i), NULL);
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
static void dwq_events_next(struct dwq_client *c, struct dwq_utask **next,
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
		dwq_clk_walk(&c->clk[i], now, &node);
		if (!node)
			continue;
		left = node->deadline - now;
		if (!*next || left < *remaining) {
			*next = container_of(node, struct dwq_utask, node);
			*remaining = left;
		}
	}
}

/**
 * dwq_sched_abs() - make a schedule's time an absolute deadline
 * @ds: the timing, from dwq_limits_sched(); made absolute
 * @clock: its &enum dwq_clock
 * @period: the task's period, 0 for a one-shot
 * @now: the call's moment on each clock, a delay is counted from: 0 until
 *	read, read here when a delay first needs it, so that every delay of
 *	one call counts from one moment (and the clock is read once)
 *
 * Context: any context.
 * Return: 0; -EINVAL if the deadline is past KTIME_MAX, or the one a
 * @period later is (so that moving a periodic task on never wraps), as
 * for the engine's tasks.
 */
int dwq_sched_abs(struct dwq_sched *ds, unsigned int clock, u64 period,
		  u64 *now)
{
	u64 d = ds->time_ns;

	if (!(ds->flags & DWQ_SCHED_ABS)) {
		if (!now[clock])
			now[clock] = dwq_clock_now(clock);
		if (d > KTIME_MAX - now[clock])
			return -EINVAL;
		d += now[clock];
	}
	if (period > KTIME_MAX - d)
		return -EINVAL;
	ds->time_ns = d;
	ds->flags |= DWQ_SCHED_ABS;
	return 0;
}

/* Is a task of @r on @clock due by @t? */
static noinline bool dwq_sched_due_by(const struct dwq_sched_req *r,
				      unsigned int clock, u64 t)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (dwq_sched_clock(&r->ds[i]) == clock &&
		    r->ds[i].time_ns <= t)
			return true;
	return false;
}

/*
 * Schedule @r's tasks: charge them, take them (the file's spares
 * first), give them ids, queue them on their clocks, write the ids back
 * (the mutex held: no task can be read before its id is out), and arm
 * the alarms.
 */
static int dwq_schedule_locked(struct dwq_client *c,
			       const struct dwq_sched_req *r)
{
	unsigned int i, per[DWQ_NR_CLOCKS] = {}, due = 0, n = r->n;
	struct dwq_client_room room = {};
	struct dwq_moment at;
	struct dwq_utask *ut;
	int err;

	lockdep_assert_held(&c->mutex);
	err = dwq_limits_charge(c, n, r->rate);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		per[dwq_sched_clock(&r->ds[i])]++;
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		err = per[i] ? dwq_client_grow(c, i, per[i], &room) : 0;
		if (err)
			goto err_uncharge;
	}
	err = dwq_utasks_get(c, r->uts, n);
	if (err)
		goto err_uncharge;
	err = dwq_utasks_add(c, r->uts, n);
	if (err)
		goto err_put;
	/* The call's moment: due at once is due by it. */
	dwq_moment_from(&at, r->now);
	for (i = 0; i < n; i++) {
		ut = r->uts[i];
		ut->cookie = r->us[i].cookie;
		ut->mode = r->us[i].mode;
		ut->period = r->us[i].period_ns;
		ut->clock = dwq_sched_clock(&r->ds[i]);
		dwq_utask_insert(c, ut, r->ds[i].time_ns);
		if (dwq_utask_due(ut, dwq_moment(&at, ut->clock)))
			due |= BIT(ut->clock);
	}
	err = r->write_ids(r->arg, r->uts, n);
	if (err) {
		/* Never seen by anyone: undone whole (the ids stay used). */
		for (i = 0; i < n; i++) {
			dwq_utask_destroy(c, r->uts[i], NULL);
			r->uts[i] = NULL;
		}
		dwq_client_ungrow(c, &room);
		for (i = 0; i < DWQ_NR_CLOCKS; i++)
			dwq_client_shrink(c, i);
		dwq_ids_fit(c);
		return err;
	}
	for (i = 0; trace_dwq_dev_schedule_enabled() && i < n; i++)
		trace_dwq_dev_schedule(c->tgid, r->uts[i], r->us[i].time_ns,
				       r->us[i].period_ns, r->us[i].mode,
				       r->us[i].flags);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		/*
		 * A task due at once behind an earlier one waiting unread:
		 * the alarm fires only for a new earliest deadline, so wake
		 * the readers here (an edge for epoll's EPOLLET). And one
		 * that came due while the call waited for the mutex, after
		 * the moment it was tested against, at a deadline no later
		 * than the readers' last wake for a due head (which they may
		 * have read since, and slept): the alarm stays unarmed for a
		 * head due when they were woken, so wake them here too.
		 */
		if (per[i] && !dwq_client_arm(c, i, 0, false) &&
		    ((due & BIT(i)) ||
		     (c->clk[i].woke && dwq_sched_due_by(r, i, c->clk[i].woke))))
			wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
	}
	return 0;

err_put:
	dwq_utasks_put(c, r->uts, n);
err_uncharge:
	dwq_client_ungrow(c, &room);
	dwq_limits_uncharge(c, n, r->rate);
	return err;
}

/*
 * The results of cancelling @n tasks by id, in turn, at the moment @at,
 * the file's mutex held; nothing changes but each task's @picked. Each
 * entry's result: %DWQ_RESULT_REMOVED, %DWQ_RESULT_UNREAD when an event
 * of the task is left to read (one it kept, or the firing of a due
 * periodic task), or %DWQ_RESULT_NOENT for an id the file does not own
 * (any more: a due one-shot's, or one an earlier entry cancels). The task
 * an entry answers for in @found (NULL for NOENT).
 */
static void dwq_cancel_results(struct dwq_client *c, struct dwq_ioc_cancel *uc,
			       struct dwq_utask **found, unsigned int n,
			       struct dwq_moment *at)
{
	struct dwq_utask *ut;
	unsigned int i;
	u64 now;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < n; i++) {
		found[i] = NULL;
		ut = dwq_client_find(c, uc[i].id);
		if (!ut || ut->picked) {
			uc[i].result = DWQ_RESULT_NOENT;
			continue;
		}
		now = dwq_moment(at, ut->clock);
		if (ut->mode == DWQ_MODE_ONESHOT && dwq_utask_due(ut, now)) {
			uc[i].result = DWQ_RESULT_NOENT;
			continue;
		}
		uc[i].result = ut->ev || dwq_utask_due(ut, now) ?
				       DWQ_RESULT_UNREAD :
				       DWQ_RESULT_REMOVED;
		ut->picked = true;
		found[i] = ut;
	}
}

/* The results could not be written back: cancel none of them. */
static void dwq_cancel_unpick(struct dwq_client *c, struct dwq_utask **found,
			      unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < n; i++) {
		if (found[i])
			found[i]->picked = false;
	}
}

/*
 * Cancel the tasks dwq_cancel_results() picked, as it answered, at the
 * same moment @at; the file's mutex held. A due periodic task keeps its
 * event, unread: folded into the one it kept already, or the task itself
 * becomes it (dwq_utask_cancel_due()). Nothing it needs is allocated (the
 * heaps and the id map shrink only if memory for the smaller arrays is
 * there): it cannot fail.
 */
static void dwq_cancel_apply(struct dwq_client *c,
			     const struct dwq_ioc_cancel *uc,
			     struct dwq_utask **found, unsigned int n,
			     struct dwq_moment *at)
{
	unsigned int i, touched = 0, gone = 0, released = 0;
	struct dwq_utask *ut;
	u64 now;

	lockdep_assert_held(&c->mutex);
	for (i = 0; i < n; i++) {
		ut = found[i];
		if (!ut)
			continue;
		ut->picked = false;
		now = dwq_moment(at, ut->clock);
		c->cancelled++;
		trace_dwq_dev_cancel(c->tgid, ut, uc[i].result);
		touched |= BIT(ut->clock);
		if (!dwq_utask_due(ut, now)) {
			/* Its counts returned with the others' below. */
			released += __dwq_utask_destroy(c, ut, NULL);
			gone++;
		} else if (ut->ev) {
			/* Folds into the event it kept: no memory taken. */
			dwq_utask_keep(c, ut, now, NULL, DWQ_EVENT_LAST);
			dwq_utask_destroy(c, ut, NULL);
		} else {
			dwq_utask_cancel_due(c, ut, now);
		}
	}
	if (gone)
		atomic_sub(gone, &c->nr_tasks);
	if (released)
		dwq_limits_release(c->user, released);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		if (touched & BIT(i)) {
			dwq_client_arm(c, i, 0, false);
			dwq_client_shrink(c, i);
		}
	}
	dwq_ids_fit(c);
}

/*
 * With %DWQ_RESCHED_PERIOD, @ur's mode and period for @ut, out of its
 * clock (or in its heap): the run counts its periodic tasks.
 */
static void dwq_utask_set_mode(struct dwq_utask *ut,
			       const struct dwq_ioc_reschedule *ur)
{
	if (ur->flags & DWQ_RESCHED_PERIOD) {
		ut->mode = ur->mode;
		ut->period = ur->period_ns;
	}
}

/*
 * DWQ_IOC_RESCHEDULE, checked, on @ut, its mutex held, @now the call's
 * moment on @ut's clock (@ut is no due one-shot then). The task keeps its
 * clock unless @ur says %DWQ_SCHED_BOOTTIME or %DWQ_RESCHED_MONOTONIC. A
 * due periodic task keeps the event of that firing first (unread, with
 * the periods skipped until now); a later due moment before it is read
 * folds into it. A new period's firing rate is charged to the user first,
 * and what can fail does before anything changes.
 */
static int dwq_reschedule_locked(struct dwq_client *c, struct dwq_utask *ut,
				 const struct dwq_ioc_reschedule *ur, u64 now)
{
	u32 flags = ur->flags & (DWQ_SCHED_ABS | DWQ_RESCHED_PERIOD);
	/* Without DWQ_RESCHED_PERIOD, mode and period stay as they are. */
	u32 mode = ur->flags & DWQ_RESCHED_PERIOD ? ur->mode : DWQ_MODE_ONESHOT;
	unsigned int clock = ut->clock, old_clock = ut->clock;
	u64 at[DWQ_NR_CLOCKS] = {}, old_rate, rate, seq;
	struct dwq_client_room room = {};
	struct dwq_client_clock *clk;
	struct dwq_sched ds;
	LIST_HEAD(spares);
	bool due;
	int err;

	lockdep_assert_held(&c->mutex);
	if (ur->flags & DWQ_SCHED_BOOTTIME)
		clock = DWQ_CLOCK_BOOTTIME;
	else if (ur->flags & DWQ_RESCHED_MONOTONIC)
		clock = DWQ_CLOCK_MONOTONIC;
	if (clock == DWQ_CLOCK_BOOTTIME)
		flags |= DWQ_SCHED_BOOTTIME;
	at[old_clock] = now;
	err = dwq_limits_sched(&ds, ur->time_ns, ur->period_ns, mode, flags,
			       at);
	if (err)
		return err;
	err = dwq_sched_abs(&ds, clock,
			    ur->flags & DWQ_RESCHED_PERIOD ? ur->period_ns :
							     ut->period,
			    at);
	if (err)
		return err;
	old_rate = dwq_limits_rate(ut->mode, ut->period);
	rate = old_rate;
	if (ur->flags & DWQ_RESCHED_PERIOD) {
		rate = dwq_limits_rate(ur->mode, ur->period_ns);
		if (rate > old_rate) {
			err = dwq_limits_rate_charge(c->user, rate - old_rate);
			if (err)
				return err;
		}
	}
	/*
	 * Room in the heap it may go to: another clock's, or its own for a
	 * task of the run, which leaves it (the heap keeps none for a
	 * one-shot there).
	 */
	if (clock != old_clock || dwq_run_node_queued(&ut->node)) {
		err = dwq_client_grow(c, clock, 1, &room);
		if (err)
			goto err_rate;
	}
	due = dwq_utask_due(ut, now);
	if (due && !ut->ev) {
		err = dwq_uevents_alloc(&spares, 1);
		if (err)
			goto err_room;
	}

	/* Nothing fails from here on. */
	if (due)
		dwq_utask_keep(c, ut, now, &spares, 0);
	dwq_uevents_free(&spares);
	if (rate < old_rate)
		dwq_limits_rate_release(c->user, old_rate - rate);
	clk = &c->clk[clock];
	if (clock != old_clock) {
		/* Out in its old mode, which the run's count went by. */
		dwq_clk_remove(&c->clk[old_clock], &ut->node);
		dwq_utask_set_mode(ut, ur);
		ut->clock = clock;
		dwq_utask_insert(c, ut, ds.time_ns);
		dwq_client_arm(c, old_clock, 0, false);
		dwq_client_shrink(c, old_clock);
	} else if (dwq_run_node_queued(&ut->node) ||
		   dwq_run_fits(&clk->run, ds.time_ns, c->seq)) {
		/* To the run's end if it fits there, else to the heap. */
		dwq_clk_remove(clk, &ut->node);
		dwq_utask_set_mode(ut, ur);
		dwq_utask_insert(c, ut, ds.time_ns);
	} else {
		/* After the tasks already due then: a fresh seq. */
		dwq_utask_set_mode(ut, ur);
		seq = c->seq++;
		clk->heap.next_seq = seq;
		dwq_heap_update(&clk->heap, &ut->node, ds.time_ns);
	}
	/* As in dwq_schedule_locked(): due at once is an edge. */
	if (!dwq_client_arm(c, clock, 0, false) &&
	    dwq_utask_due(ut, dwq_clock_now(clock)))
		wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
	return 0;

err_room:
	dwq_client_ungrow(c, &room);
err_rate:
	if (rate > old_rate)
		dwq_limits_rate_release(c->user, rate - old_rate);
	return err;
}

/**
 * dwq_client_schedule() - schedule tasks on a file, all or none
 * @c: the file
 * @r: the tasks and how to write their ids back
 * @killable: wait for the file's mutex killably, not interruptibly (see
 *	dwq_client_lock())
 *
 * Context: process context; may sleep.
 * Return: 0; -ERESTARTSYS, a limit's -ENOSPC, -ENOMEM, or what
 * @r->write_ids returned. Nothing changed on failure.
 */
int dwq_client_schedule(struct dwq_client *c, const struct dwq_sched_req *r,
			bool killable)
{
	int err;

	err = dwq_client_lock(c, killable);
	if (err)
		return err;
	err = dwq_schedule_locked(c, r);
	mutex_unlock(&c->mutex);
	return err;
}

/**
 * dwq_client_cancel() - cancel tasks of a file by id
 * @c: the file
 * @uc: @n entries; each one's result is set
 * @found: room for @n task pointers: the task each entry answers for,
 *	between working the results out and acting on them
 * @n: how many
 * @write: writes the results back, called with the mutex held, before
 *	anything is cancelled: 0, or an errno, which this returns having
 *	cancelled nothing
 * @arg: for @write
 * @killable: wait for the file's mutex killably, not interruptibly (see
 *	dwq_client_lock())
 *
 * An id the file does not own (any more) is an entry's
 * %DWQ_RESULT_NOENT, not a failure. Nothing it needs is allocated. The
 * results are worked out first, written back, and only then acted on,
 * all under the file's mutex at one moment: a cancel whose results cannot
 * be written back (the memory unmapped or made read-only meanwhile, a
 * fault that fails) changes nothing.
 *
 * Context: process context; may sleep.
 * Return: 0, -ERESTARTSYS, or what @write returned.
 */
int dwq_client_cancel(struct dwq_client *c, struct dwq_ioc_cancel *uc,
		      struct dwq_utask **found, unsigned int n, bool killable,
		      int (*write)(void *arg, const struct dwq_ioc_cancel *uc,
				   unsigned int n),
		      void *arg)
{
	struct dwq_moment at;
	int err;

	err = dwq_client_lock(c, killable);
	if (err)
		return err;
	/* One moment for the whole batch: what is due stays so. */
	dwq_moment_init(&at);
	dwq_cancel_results(c, uc, found, n, &at);
	/* Nothing is cancelled unless the caller gets to know what was. */
	err = write(arg, uc, n);
	if (err)
		dwq_cancel_unpick(c, found, n);
	else
		dwq_cancel_apply(c, uc, found, n, &at);
	mutex_unlock(&c->mutex);
	return err;
}

/*
 * The task of @id as RESCHEDULE and QUERY see it, and the time on its clock
 * in @now: NULL for an id the file does not own, and for a due one-shot,
 * whose event is all that is left of it.
 */
static struct dwq_utask *dwq_client_find_live(struct dwq_client *c, u64 id,
					      u64 *now)
{
	struct dwq_utask *ut;

	lockdep_assert_held(&c->mutex);
	ut = dwq_client_find(c, id);
	if (!ut)
		return NULL;
	*now = dwq_clock_now(ut->clock);
	if (ut->mode == DWQ_MODE_ONESHOT && dwq_utask_due(ut, *now))
		return NULL;
	return ut;
}

/**
 * dwq_client_reschedule() - DWQ_IOC_RESCHEDULE on a file, checked
 * @c: the file
 * @ur: the request
 * @killable: wait for the file's mutex killably, not interruptibly (see
 *	dwq_client_lock())
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT for an id the file does not own (or a due
 * one-shot's), -ERESTARTSYS, -EINVAL, -ENOSPC, -ENOMEM.
 */
int dwq_client_reschedule(struct dwq_client *c,
			  const struct dwq_ioc_reschedule *ur, bool killable)
{
	struct dwq_utask *ut;
	u64 now = 0;
	int err;

	err = dwq_client_lock(c, killable);
	if (err)
		return err;
	/*
	 * One moment for the whole call: a one-shot not due (not gone) here
	 * is not due below either, so only a periodic task keeps an event.
	 */
	ut = dwq_client_find_live(c, ur->id, &now);
	if (!ut) {
		err = -ENOENT;
	} else {
		err = dwq_reschedule_locked(c, ut, ur, now);
		if (!err)
			trace_dwq_dev_reschedule(c->tgid, ut, ur->time_ns,
						 ur->period_ns, ur->mode,
						 ur->flags);
	}
	mutex_unlock(&c->mutex);
	return err;
}

/**
 * dwq_client_query() - DWQ_IOC_QUERY's answer
 * @c: the file
 * @uq: its @id read; the rest filled in
 * @killable: wait for the file's mutex killably, not interruptibly (see
 *	dwq_client_lock())
 *
 * Context: process context; may sleep.
 * Return: 0; -ENOENT for an id the file does not own (or a due
 * one-shot's), -ERESTARTSYS.
 */
int dwq_client_query(struct dwq_client *c, struct dwq_ioc_query *uq,
		     bool killable)
{
	struct dwq_utask *ut;
	u64 now = 0;
	int err;

	err = dwq_client_lock(c, killable);
	if (err)
		return err;
	ut = dwq_client_find_live(c, uq->id, &now);
	if (!ut) {
		mutex_unlock(&c->mutex);
		return -ENOENT;
	}
	/* Due and periodic: it waits for read(), which fires it. */
	if (dwq_utask_due(ut, now)) {
		uq->state = DWQ_STATE_PARKED;
		uq->remaining_ns = 0;
	} else {
		uq->state = DWQ_STATE_QUEUED;
		uq->remaining_ns = ut->node.deadline - now;
	}
	uq->deadline_ns = ut->node.deadline;
	uq->period_ns = ut->period;
	uq->cookie = ut->cookie;
	uq->runs = ut->runs;
	uq->overruns = 0;
	uq->skipped = ut->skipped;
	uq->folded = ut->folded;
	uq->mode = ut->mode;
	uq->flags = ut->clock == DWQ_CLOCK_BOOTTIME ? DWQ_SCHED_BOOTTIME : 0;
	mutex_unlock(&c->mutex);
	return 0;
}

/**
 * dwq_client_stats() - a file's part of DWQ_IOC_STATS
 * @c: the file
 * @st: its pending, fired, cancelled, coalesced, events and limit fields
 *	are filled in
 * @killable: wait for the file's mutex killably, not interruptibly (see
 *	dwq_client_lock())
 *
 * Context: process context; may sleep.
 * Return: 0 or -ERESTARTSYS.
 */
int dwq_client_stats(struct dwq_client *c, struct dwq_ioc_stats *st,
		     bool killable)
{
	int err;

	err = dwq_client_lock(c, killable);
	if (err)
		return err;
	st->pending = atomic_read(&c->nr_tasks);
	st->fired = c->fired;
	st->cancelled = c->cancelled;
	st->coalesced = c->coalesced;
	st->events = dwq_events_count(c);
	dwq_limits_stats(c->user, st);
	mutex_unlock(&c->mutex);
	return 0;
}

/**
 * dwq_client_new() - a new file's client
 * @q: the queue its alarms run on, or NULL (a test's device)
 * @cred: the opener's credentials: the user its tasks are charged to
 *
 * Context: process context; may sleep.
 * Return: the client, or an ERR_PTR(): -ENOMEM, or what dwq_user_get()
 * or dwq_queue_reserve() returned.
 */
struct dwq_client *dwq_client_new(struct dwq_queue *q, const struct cred *cred)
{
	struct dwq_client_clock *clk;
	struct dwq_client *c;
	unsigned int i;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->ids_bits = DWQ_IDS_MIN_BITS;
	c->ids = dwq_ids_alloc(c->ids_bits, GFP_KERNEL_ACCOUNT);
	if (!c->ids) {
		err = -ENOMEM;
		goto err_free;
	}
	c->user = dwq_user_get(cred);
	if (IS_ERR(c->user)) {
		err = PTR_ERR(c->user);
		goto err_ids;
	}
	/* The alarms' slots in the queue: arming them never fails. */
	if (q) {
		err = dwq_queue_reserve(q, DWQ_NR_CLOCKS);
		if (err)
			goto err_user;
		c->reserved = DWQ_NR_CLOCKS;
	}
	c->q = q;
	c->tgid = task_tgid_nr(current);
	c->pid = get_task_pid(current, PIDTYPE_TGID);
	mutex_init(&c->mutex);
	atomic_set(&c->nr_tasks, 0);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		clk = &c->clk[i];
		dwq_heap_init(&clk->heap, NULL, 0);
		dwq_run_init(&clk->run);
		dwq_task_init(&clk->alarm, dwq_client_alarm, NULL);
		/* It wakes a wait queue: microseconds, no worker needed. */
		dwq_task_set_quick(&clk->alarm, true);
		clk->client = c;
		clk->next = U64_MAX;
		clk->armed = U64_MAX;
		clk->woke = 0;
		clk->alarm_woke = 0;
		clk->lost = false;
		clk->clock = i;
	}
	init_waitqueue_head(&c->wqh);
	INIT_LIST_HEAD(&c->ready);
	return c;

err_user:
	dwq_user_put(c->user);
err_ids:
	kvfree(c->ids);
err_free:
	kfree(c);
	return ERR_PTR(err);
}

/* At release: free the task in @node, return its charges. */
static void dwq_utask_release(struct dwq_client *c, struct dwq_heap_node *node)
{
	struct dwq_utask *ut = container_of(node, struct dwq_utask, node);

	if (!ut->last) {
		atomic_dec(&c->nr_tasks);
		dwq_limits_rate_release(c->user,
					dwq_limits_rate(ut->mode, ut->period));
	}
	dwq_limits_release(c->user, 1);
	kmem_cache_free(dwq_utask_cache, ut);
}

/**
 * dwq_client_free() - a file's release: cancel its tasks, free the client
 * @c: the client, from dwq_client_new(); no other file operation runs
 *
 * Context: process context; sleeps (for a running alarm).
 */
void dwq_client_free(struct dwq_client *c)
{
	struct dwq_heap_node *node;
	struct dwq_client_clock *clk;
	struct dwq_utask *ut;
	unsigned int i, j;

	/*
	 * No other file operation runs any more, so nothing arms the alarms
	 * again; one may be running in the queue's timer, which cancel_sync
	 * waits for. After it, nothing touches the client.
	 */
	for (i = 0; c->q && i < DWQ_NR_CLOCKS; i++)
		WARN_ON_ONCE(dwq_cancel_sync(&c->clk[i].alarm) < 0);

	mutex_lock(&c->mutex);
	/* A task a read() owes was uncharged then: it goes alone. */
	ut = c->owed;
	if (ut) {
		dwq_clk_remove(&c->clk[ut->clock], &ut->node);
		kmem_cache_free(dwq_utask_cache, ut);
		c->owed = NULL;
	}
	/*
	 * Every task is in a heap or a run, a cancelled one kept as its
	 * event too. Up to max_tasks_per_file of them: a chance to
	 * reschedule every 4096, for a kernel that does not preempt.
	 */
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		clk = &c->clk[i];
		for (j = 0; j < clk->heap.nr; j++) {
			dwq_utask_release(c, clk->heap.slots[j].node);
			if (!((j + 1) % 4096))
				cond_resched();
		}
		for (j = 0; j < clk->run.len; j++) {
			node = dwq_run_at(&clk->run, j);
			if (node)
				dwq_utask_release(c, node);
			if (!((j + 1) % 4096))
				cond_resched();
		}
		kvfree(clk->heap.slots);
		dwq_heap_init(&clk->heap, NULL, 0);
		kvfree(clk->run.slots);
		dwq_run_init(&clk->run);
		clk->periodic = 0;
	}
	kvfree(c->ids);
	c->ids = NULL;
	c->nr_ids = 0;
	while (c->nr_spare)
		kmem_cache_free(dwq_utask_cache, c->spare[--c->nr_spare]);
	dwq_bin_empty(&c->bin);
	dwq_events_free(c);
	mutex_unlock(&c->mutex);

	WARN_ON(atomic_read(&c->nr_tasks));
	if (c->reserved)
		dwq_queue_unreserve(c->q, c->reserved);
	mutex_destroy(&c->mutex);
	put_pid(c->pid);
	dwq_user_put(c->user);
	kfree(c);
}

/*
 * The memory @p, an array of @size bytes from kvmalloc(), takes outside the
 * slab allocator's caches: a large kmalloc() block's pages (ksize()), or a
 * vmalloc() area's whole pages. 0 for an array small enough to be a
 * kmalloc() cache's object, which /proc/slabinfo counts.
 */
static size_t dwq_array_pages(const void *p, size_t size)
{
	if (!p)
		return 0;
	if (is_vmalloc_addr(p))
		return PAGE_ALIGN(size);
	return PageSlab(virt_to_page(p)) ? 0 : ksize(p);
}

/* dwq_array_pages() of @clk's heap and ring. */
static size_t dwq_clk_pages(const struct dwq_client_clock *clk)
{
	const struct dwq_heap *heap = &clk->heap;
	const struct dwq_run *run = &clk->run;

	return dwq_array_pages(heap->slots,
			       array_size(heap->cap, sizeof(*heap->slots))) +
	       dwq_array_pages(run->slots,
			       array_size(run->cap, sizeof(*run->slots)));
}

/**
 * dwq_client_show_fdinfo() - a file's fdinfo lines
 * @m: the seq_file
 * @c: the client
 *
 * The process that opened it, as the reader's pid namespace numbers it (0
 * if it cannot see it, or the process has exited); its counts, the sizes
 * of its arrays outside the slab (its heaps' slots, its runs' slots, its
 * id map's buckets), and its next task (the earliest not due yet): its id, the
 * deadline on the task's clock, that clock, and the time left. Nothing if
 * the reader is killed while it waits for the file.
 *
 * Context: process context; may sleep.
 */
void dwq_client_show_fdinfo(struct seq_file *m, struct dwq_client *c)
{
	unsigned int i, slots = 0, ring = 0;
	struct dwq_client_clock *clk;
	struct dwq_utask *next;
	u64 remaining, events;
	size_t pages;

	/*
	 * Not settled: another process may be looking. A task a read() owes
	 * was read: due and queued, not an event any more (nor pending).
	 * Killable: a read() holds the mutex while it copies its events out,
	 * for as long as a fault on the reader's buffer takes to come in.
	 */
	if (mutex_lock_killable(&c->mutex))
		return;
	pages = dwq_array_pages(c->ids, sizeof(*c->ids) << c->ids_bits);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		clk = &c->clk[i];
		slots += clk->heap.cap;
		ring += clk->run.cap;
		pages += dwq_clk_pages(clk);
	}
	dwq_events_next(c, &next, &remaining);
	events = dwq_events_count(c) - !!c->owed;
	/* 0 once it has exited: its number may be another process's. */
	seq_printf(m, "dwq-tgid: %d\n",
		   pid_has_task(c->pid, PIDTYPE_TGID) ?
			   pid_nr_ns(c->pid,
				     proc_pid_ns(file_inode(m->file)->i_sb)) :
			   0);
	seq_printf(m, "dwq-pending: %d\n", atomic_read(&c->nr_tasks));
	seq_printf(m, "dwq-events: %llu\n", events);
	seq_printf(m, "dwq-heap-slots: %u\n", slots);
	seq_printf(m, "dwq-run-slots: %u\n", ring);
	seq_printf(m, "dwq-id-buckets: %u\n", 1U << c->ids_bits);
	seq_printf(m, "dwq-array-pages-bytes: %zu\n", pages);
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
 * queued alarm's client is alive (dwq_client_free() cancels it before
 * freeing).
 */
static void dwq_client_describe(struct seq_file *m, const struct dwq_task *task)
{
	const struct dwq_client_clock *clk;

	if (task->ops->func != dwq_client_alarm)
		return;
	clk = container_of(task, struct dwq_client_clock, alarm);
	seq_printf(m, " pid=%d alarm=%s tasks=%d", clk->client->tgid,
		   dwq_clock_names[clk->clock],
		   atomic_read(&clk->client->nr_tasks));
}

/**
 * dwq_client_set_describe() - name the files' alarms in a queue's heap dump
 * @q: the queue of a device's files
 *
 * Context: process context.
 */
void dwq_client_set_describe(struct dwq_queue *q)
{
	dwq_queue_set_describe(q, dwq_client_describe);
}

#if IS_ENABLED(CONFIG_KUNIT)
/*
 * For KUnit: make @id the last id @file has given, to reach U64_MAX. An
 * id given after it must still be above every id the file holds.
 */
void dwq_dev_kunit_set_last_id(struct file *file, u64 id)
{
	struct dwq_client *c = file->private_data;

	mutex_lock(&c->mutex);
	dwq_client_settle(c);
	c->next_id = id;
	mutex_unlock(&c->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_set_last_id);

/* For KUnit: the spare tasks @file keeps, and its heap's slots. */
void dwq_dev_kunit_spares(struct file *file, unsigned int *spares,
			  unsigned int *slots)
{
	struct dwq_client *c = file->private_data;

	mutex_lock(&c->mutex);
	dwq_client_settle(c);
	*spares = c->nr_spare;
	*slots = c->clk[DWQ_CLOCK_MONOTONIC].heap.cap;
	mutex_unlock(&c->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_spares);

/* What @file's alarm on @clock is doing, as dwq_query() says. */
void dwq_dev_kunit_alarm(struct file *file, unsigned int clock,
			 struct dwq_task_info *info, u32 *runs)
{
	struct dwq_client *c = file->private_data;
	u32 before;

	/* The count and the state of one moment: no run began in between. */
	do {
		before = READ_ONCE(c->clk[clock].runs);
		dwq_query(&c->clk[clock].alarm, info);
		*runs = READ_ONCE(c->clk[clock].runs);
	} while (*runs != before);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_alarm);

/* The moment of one read() or ioctl, as dwq_now_get() takes it. */
void dwq_dev_kunit_now(u64 *mono, u64 *boot)
{
	struct dwq_now now;

	dwq_now_get(&now);
	*mono = now.t[DWQ_CLOCK_MONOTONIC];
	*boot = now.t[DWQ_CLOCK_BOOTTIME];
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_now);

/* The moment of @clock that @file's readers know to be past. */
u64 dwq_dev_kunit_passed(struct file *file, unsigned int clock)
{
	struct dwq_client *c = file->private_data;

	return READ_ONCE(c->clk[clock].passed);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_passed);

/* The done tasks @file holds to free later. */
unsigned int dwq_dev_kunit_bin(struct file *file)
{
	struct dwq_client *c = file->private_data;
	unsigned int n;

	mutex_lock(&c->mutex);
	dwq_client_settle(c);
	n = c->bin.n;
	mutex_unlock(&c->mutex);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_bin);

/* The id of the task @file's last read() left owed, or 0; not settled. */
u64 dwq_dev_kunit_owed(struct file *file)
{
	struct dwq_client *c = file->private_data;
	u64 id;

	mutex_lock(&c->mutex);
	id = c->owed ? c->owed->id : 0;
	mutex_unlock(&c->mutex);
	return id;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_owed);

void dwq_dev_kunit_ids(struct file *file, unsigned int *nr,
		       unsigned int *buckets)
{
	struct dwq_client *c = file->private_data;

	mutex_lock(&c->mutex);
	dwq_client_settle(c);
	*nr = c->nr_ids;
	*buckets = 1U << c->ids_bits;
	mutex_unlock(&c->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_ids);

/*
 * For KUnit: @file's tasks on CLOCK_MONOTONIC in its run and its heap,
 * and its run's ring.
 */
void dwq_dev_kunit_run(struct file *file, unsigned int *run, unsigned int *heap,
		       unsigned int *ring)
{
	struct dwq_client *c = file->private_data;

	mutex_lock(&c->mutex);
	dwq_client_settle(c);
	*run = c->clk[DWQ_CLOCK_MONOTONIC].run.nr;
	*heap = c->clk[DWQ_CLOCK_MONOTONIC].heap.nr;
	*ring = c->clk[DWQ_CLOCK_MONOTONIC].run.cap;
	mutex_unlock(&c->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_run);

/*
 * For KUnit: of @file's @clock, the run's periodic tasks as counted
 * (&dwq_client_clock.periodic) and as found in its ring, and the heap's
 * slots held (its tasks and those) and allocated.
 */
void dwq_dev_kunit_room(struct file *file, unsigned int clock,
			unsigned int *counted, unsigned int *periodic,
			unsigned int *held, unsigned int *cap)
{
	struct dwq_client *c = file->private_data;
	struct dwq_client_clock *clk = &c->clk[clock];
	struct dwq_heap_node *node;
	unsigned int i;

	mutex_lock(&c->mutex);
	dwq_client_settle(c);
	*counted = clk->periodic;
	*periodic = 0;
	for (i = 0; i < clk->run.len; i++) {
		node = dwq_run_at(&clk->run, i);
		if (node)
			*periodic += dwq_node_periodic(node);
	}
	*held = dwq_clk_held(clk);
	*cap = clk->heap.cap;
	mutex_unlock(&c->mutex);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_room);

static int dwq_kunit_take_id(void *arg, struct dwq_utask **uts, unsigned int n)
{
	*(u64 *)arg = uts[0]->id;
	return 0;
}

/*
 * For KUnit: schedule a one-shot on @file, due at @deadline on
 * CLOCK_MONOTONIC, as a DWQ_IOC_SCHEDULE whose checks read the clock at
 * @moment (and then waited for the file) would; its id in @id.
 */
int dwq_dev_kunit_schedule_at(struct file *file, u64 deadline, u64 moment,
			      u64 *id)
{
	struct dwq_ioc_schedule us = { .time_ns = deadline,
				       .flags = DWQ_SCHED_ABS };
	struct dwq_sched ds = { .time_ns = deadline, .flags = DWQ_SCHED_ABS };
	u64 now[DWQ_NR_CLOCKS] = { [DWQ_CLOCK_MONOTONIC] = moment };
	struct dwq_sched_req r = {
		.us = &us,
		.ds = &ds,
		.n = 1,
		.write_ids = dwq_kunit_take_id,
		.arg = id,
		.now = now,
	};
	struct dwq_utask *ut;

	r.uts = &ut;
	return dwq_client_schedule(file->private_data, &r, false);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_schedule_at);
#endif

/**
 * dwq_client_init() - set up what every client shares
 *
 * Context: module init.
 * Return: 0 or -ENOMEM.
 */
int dwq_client_init(void)
{
	/*
	 * A pending task costs this object, a 16-byte heap slot and its
	 * share of the id map (4 to 8 bytes with many tasks): 112 in all;
	 * one that came in deadline order its slot in the run (8 bytes)
	 * instead of the heap's. Its flags live in its node's aux, which the
	 * heap and the run never touch: 88 bytes, not 96.
	 */
	BUILD_BUG_ON(offsetof(struct dwq_utask, node_deadline) !=
		     offsetof(struct dwq_utask, node.deadline));
	BUILD_BUG_ON(offsetof(struct dwq_utask, node_seq) !=
		     offsetof(struct dwq_utask, node.seq));
	BUILD_BUG_ON(offsetof(struct dwq_utask, node_index) !=
		     offsetof(struct dwq_utask, node.index));
	BUILD_BUG_ON(offsetof(struct dwq_utask, mode) !=
		     offsetof(struct dwq_utask, node.aux));
	BUILD_BUG_ON(offsetofend(struct dwq_utask, picked) !=
		     offsetofend(struct dwq_utask, node.aux));
	BUILD_BUG_ON(sizeof(struct dwq_utask) > 88);
	dwq_utask_cache = KMEM_CACHE(dwq_utask, SLAB_ACCOUNT);
	return dwq_utask_cache ? 0 : -ENOMEM;
}

/**
 * dwq_client_exit() - undo dwq_client_init()
 *
 * Context: module exit, after every file is closed.
 */
void dwq_client_exit(void)
{
	kmem_cache_destroy(dwq_utask_cache);
}
