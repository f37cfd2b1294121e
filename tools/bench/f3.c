// SPDX-License-Identifier: GPL-2.0
/*
 * F3: wakeups per executed task, and the share of them that found nothing
 * to do, with 1, 4, 8 and 16 workers, for dwq's leader/follower take()
 * (a real queue from the in-kernel API, counted by its own worker stats)
 * and for a wake-all queue built only here: the same heap and the same
 * leader, but every worker, the leader too, waits on one wait queue that
 * is woken with wake_up_all() for every new head and every hand-off (a
 * condition variable's broadcast).
 *
 * Each run schedules a stream of one-shot tasks on a fresh queue whose
 * workers are all asleep, waits until every task ran, and reads the
 * counters. The deadlines are one per slot of an even grid over a short
 * window, each at a random point of the first half of its slot, so that no
 * two are closer than half a slot: far enough apart that every task costs
 * its own wakeups (a worker that finds several tasks due at once runs them
 * all for one wakeup, which would hide the protocol's cost).
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <dwq.h>

#include "bench.h"
#include "dwq_internal.h"
#include "heap_variants.h"

/* The wake-all queue uses dwq.ko's own heap.c, renamed (heap_4i.c). */
#define F3_PREFIX h4i
#define F3_CAT2(a, b) a##b
#define F3_CAT(a, b) F3_CAT2(a, b)
#define f3_heap F3_CAT(F3_PREFIX, _heap)
#define f3_heap_create F3_CAT(F3_PREFIX, _create)
#define f3_heap_destroy F3_CAT(F3_PREFIX, _destroy)
#define f3_heap_insert F3_CAT(F3_PREFIX, _insert)
#define f3_heap_pop F3_CAT(F3_PREFIX, _pop)
#define f3_heap_peek F3_CAT(F3_PREFIX, _peek)

static const unsigned int f3_workers[] = { 1, 4, 8, 16 };

/* Ahead of the first deadline: time to schedule the stream. */
#define F3_LEAD_NS (bench_cfg.full ? 100 * NSEC_PER_MSEC : 30 * NSEC_PER_MSEC)

/**
 * struct f3_run - one stream on one queue
 * @left: tasks still to run
 * @done: completed when @left reaches 0
 */
struct f3_run {
	atomic_t left;
	struct completion done;
};

/**
 * struct f3_task - a task of the stream
 * @task: on dwq's queue
 * @node: on the wake-all queue
 * @run: its stream
 */
struct f3_task {
	struct dwq_task task;
	struct dwq_heap_node node;
	struct f3_run *run;
};

static void f3_task_done(struct f3_task *t)
{
	if (atomic_dec_and_test(&t->run->left))
		complete(&t->run->done);
}

/* --- the wake-all queue --- */

struct f3_wa;

/**
 * struct f3_wa_worker - a worker of the wake-all queue
 * @q: its queue
 * @thread: its kthread
 * @wait: its entry on @q->waitq while it sleeps
 * @wakeups: returns from a sleep; under @q->lock
 * @spurious: wakeups that found nothing to do; under @q->lock
 * @tasks_run: tasks it took; under @q->lock
 */
struct f3_wa_worker {
	struct f3_wa *q;
	struct task_struct *thread;
	struct wait_queue_entry wait;
	u64 wakeups;
	u64 spurious;
	u64 tasks_run;
};

/**
 * struct f3_wa - the wake-all queue
 * @lock: protects @heap, @leader, @stopping and the workers' counters;
 *	every wakeup of @waitq is made under it, so none is lost
 * @heap: the tasks, by deadline
 * @leader: the worker sleeping until the head's deadline, or NULL
 * @stopping: the workers must exit
 * @waitq: every sleeping worker, the leader too; woken only with
 *	wake_up_all()
 * @nr: workers started
 * @workers: the pool
 */
struct f3_wa {
	spinlock_t lock; /* heap, leader, counters: see above */
	struct f3_heap *heap;
	struct f3_wa_worker *leader;
	bool stopping;
	wait_queue_head_t waitq;
	unsigned int nr;
	struct f3_wa_worker *workers;
};

/*
 * take(): the branches of dwq_take(), the same counting of wakeups and
 * spurious wakeups, but woken by broadcast, without hand-off timers.
 */
static struct f3_task *f3_wa_take(struct f3_wa_worker *w)
{
	struct f3_wa *q = w->q;
	struct dwq_heap_node *head;
	struct f3_task *t = NULL;
	bool woke = false;
	ktime_t expires;

	spin_lock_irq(&q->lock);
	while (!q->stopping) {
		head = f3_heap_peek(q->heap);
		if (head && head->deadline <= ktime_get_ns()) {
			f3_heap_pop(q->heap);
			t = container_of(head, struct f3_task, node);
			w->tasks_run++;
			break;
		}
		prepare_to_wait(&q->waitq, &w->wait, TASK_INTERRUPTIBLE);
		if (!head || q->leader) {
			if (woke)
				w->spurious++;
			spin_unlock_irq(&q->lock);
			schedule();
		} else {
			q->leader = w;
			expires = ns_to_ktime(head->deadline);
			spin_unlock_irq(&q->lock);
			schedule_hrtimeout_range_clock(&expires, 0,
						       HRTIMER_MODE_ABS,
						       CLOCK_MONOTONIC);
		}
		finish_wait(&q->waitq, &w->wait);
		spin_lock_irq(&q->lock);
		w->wakeups++;
		woke = true;
		if (q->leader == w)
			q->leader = NULL;
	}
	/* Leaving with nobody leading: everyone wakes for the new head. */
	if (!q->stopping && !q->leader && f3_heap_peek(q->heap))
		wake_up_all(&q->waitq);
	spin_unlock_irq(&q->lock);
	return t;
}

static int f3_wa_fn(void *arg)
{
	struct f3_wa_worker *w = arg;
	struct f3_task *t;

	init_wait_entry(&w->wait, 0); /* wakes current: this kthread */
	while ((t = f3_wa_take(w)))
		f3_task_done(t);
	/* Stopping: wait for our kthread_stop(). */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static void f3_wa_destroy(struct f3_wa *q)
{
	unsigned int i;

	spin_lock_irq(&q->lock);
	q->stopping = true;
	wake_up_all(&q->waitq);
	spin_unlock_irq(&q->lock);
	for (i = 0; i < q->nr; i++)
		kthread_stop(q->workers[i].thread);
	if (q->heap)
		f3_heap_destroy(q->heap);
	kfree(q->workers);
	kfree(q);
}

static struct f3_wa *f3_wa_create(unsigned int workers, unsigned int cap)
{
	struct f3_wa_worker *w;
	struct task_struct *t;
	struct f3_wa *q;
	int err = -ENOMEM;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&q->lock);
	init_waitqueue_head(&q->waitq);
	q->heap = f3_heap_create(cap);
	q->workers = kcalloc(workers, sizeof(*q->workers), GFP_KERNEL);
	if (!q->heap || !q->workers)
		goto err;
	for (q->nr = 0; q->nr < workers; q->nr++) {
		w = &q->workers[q->nr];
		w->q = q;
		t = kthread_run(f3_wa_fn, w, "dwq_bench_wa/%u", q->nr);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			goto err;
		}
		w->thread = t;
	}
	return q;
err:
	f3_wa_destroy(q);
	return ERR_PTR(err);
}

static void f3_wa_schedule(struct f3_wa *q, struct f3_task *t, u64 deadline)
{
	spin_lock_irq(&q->lock);
	f3_heap_insert(q->heap, &t->node, deadline);
	if (f3_heap_peek(q->heap) == &t->node) {
		q->leader = NULL;
		wake_up_all(&q->waitq);
	}
	spin_unlock_irq(&q->lock);
}

static void f3_wa_stats(struct f3_wa *q, struct dwq_worker_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	spin_lock_irq(&q->lock);
	for (i = 0; i < q->nr; i++) {
		st->wakeups += q->workers[i].wakeups;
		st->spurious_wakeups += q->workers[i].spurious;
		st->tasks_run += q->workers[i].tasks_run;
	}
	spin_unlock_irq(&q->lock);
}

/* --- the runs --- */

static void f3_dwq_fn(struct dwq_task *task)
{
	f3_task_done(container_of(task, struct f3_task, task));
}

/**
 * struct f3_stream - the tasks of one stream and their deadlines
 * @tasks: @n tasks
 * @offsets: ns after the stream's start, one per task
 * @n: tasks
 * @window: ns the deadlines are spread over
 */
struct f3_stream {
	struct f3_task *tasks;
	u64 *offsets;
	unsigned int n;
	u64 window;
};

/* Wait for a stream to finish, then for the workers to go back to sleep. */
static int f3_wait(struct f3_stream *s, struct f3_run *run)
{
	unsigned long timeout =
		nsecs_to_jiffies(s->window + F3_LEAD_NS) + 30 * HZ;

	if (!wait_for_completion_timeout(&run->done, timeout)) {
		pr_err("F3: %d of %u tasks did not run in time\n",
		       atomic_read(&run->left), s->n);
		return -ETIMEDOUT;
	}
	msleep(20);
	return 0;
}

static int f3_rows(const char *variant, unsigned int workers, unsigned int rep,
		   const struct dwq_worker_stats *a,
		   const struct dwq_worker_stats *b)
{
	u64 wakeups = b->wakeups - a->wakeups;
	u64 spurious = b->spurious_wakeups - a->spurious_wakeups;
	u64 tasks = b->tasks_run - a->tasks_run;
	int err;

	err = bench_row_ratio("F3", variant, workers, "wakeups_per_task",
			      "ratio", rep, wakeups, tasks, 3);
	err = err   ?:
		      bench_row_ratio("F3", variant, workers, "spurious_share",
				      "ratio", rep, spurious, wakeups, 3);
	err = err   ?:
		      bench_row_u64("F3", variant, workers, "tasks", "count",
				    rep, tasks);
	err = err   ?:
		      bench_row_u64("F3", variant, workers, "wakeups", "count",
				    rep, wakeups);
	err = err   ?:
		      bench_row_u64("F3", variant, workers, "spurious_wakeups",
				    "count", rep, spurious);
	return err;
}

static int f3_leader_follower(struct f3_stream *s, unsigned int workers,
			      unsigned int rep)
{
	struct dwq_sched sched = { .mode = DWQ_MODE_ONESHOT,
				   .flags = DWQ_SCHED_ABS };
	struct dwq_queue_stats a, b;
	struct dwq_queue *q;
	struct f3_run run;
	unsigned int i;
	u64 start;
	int err = 0;

	atomic_set(&run.left, s->n);
	init_completion(&run.done);
	for (i = 0; i < s->n; i++) {
		dwq_task_init(&s->tasks[i].task, f3_dwq_fn, NULL);
		s->tasks[i].run = &run;
	}
	q = dwq_queue_create("bench", workers, 0);
	if (IS_ERR(q)) {
		err = PTR_ERR(q);
		pr_err("F3: dwq_queue_create(%u workers): %d\n", workers, err);
		goto out;
	}
	/* Scheduling never allocates: room for all of them first. */
	err = dwq_queue_reserve(q, s->n);
	if (err)
		pr_err("F3: dwq_queue_reserve: %d\n", err);
	msleep(20); /* every worker asleep as a follower */
	dwq_queue_get_stats(q, &a);
	start = ktime_get_ns() + F3_LEAD_NS;
	for (i = 0; i < s->n && !err; i++) {
		sched.time_ns = start + s->offsets[i];
		err = dwq_schedule(q, &s->tasks[i].task, &sched);
	}
	if (err)
		pr_err("F3: dwq_schedule: %d\n", err);
	else
		err = f3_wait(s, &run);
	dwq_queue_get_stats(q, &b);
	if (err)
		pr_err("F3: %u workers: size %u, leader %d, %llu timed and %llu untimed waits, %llu wakeups, %llu run\n",
		       workers, b.size, b.leader, b.total.timed_waits,
		       b.total.untimed_waits, b.total.wakeups,
		       b.total.tasks_run);
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
	if (!err)
		err = f3_rows("leader-follower", workers, rep, &a.total,
			      &b.total);
out:
	for (i = 0; i < s->n; i++)
		dwq_task_put(&s->tasks[i].task);
	return err;
}

static int f3_wake_all(struct f3_stream *s, unsigned int workers,
		       unsigned int rep)
{
	struct dwq_worker_stats a, b;
	struct f3_run run;
	struct f3_wa *q;
	unsigned int i;
	u64 start;
	int err;

	atomic_set(&run.left, s->n);
	init_completion(&run.done);
	for (i = 0; i < s->n; i++) {
		s->tasks[i].node.index = -1;
		s->tasks[i].run = &run;
	}
	q = f3_wa_create(workers, s->n);
	if (IS_ERR(q)) {
		pr_err("F3: the wake-all queue (%u workers): %ld\n", workers,
		       PTR_ERR(q));
		return PTR_ERR(q);
	}
	msleep(20);
	f3_wa_stats(q, &a);
	start = ktime_get_ns() + F3_LEAD_NS;
	for (i = 0; i < s->n; i++)
		f3_wa_schedule(q, &s->tasks[i], start + s->offsets[i]);
	err = f3_wait(s, &run);
	f3_wa_stats(q, &b);
	f3_wa_destroy(q);
	if (!err)
		err = f3_rows("wake-all", workers, rep, &a, &b);
	return err;
}

int bench_f3(void)
{
	struct f3_stream s = {
		.n = bench_cfg.full ? 400 : 20,
		.window = bench_cfg.full ? 2 * NSEC_PER_SEC :
					   50 * NSEC_PER_MSEC,
	};
	unsigned int rep, i, v;
	struct rnd_state rnd;
	u32 slot;
	int err = 0;

	slot = div_u64(s.window, s.n);
	s.tasks = kvcalloc(s.n, sizeof(*s.tasks), GFP_KERNEL);
	s.offsets = kvmalloc_array(s.n, sizeof(*s.offsets), GFP_KERNEL);
	if (!s.tasks || !s.offsets) {
		err = -ENOMEM;
		goto out;
	}
	err = bench_row_u64("env", "f3", 0, "window", "ns", 0, s.window);
	for (rep = 0; rep < bench_cfg.reps && !err; rep++) {
		bench_rnd_init(&rnd, 3, rep, 0);
		for (i = 0; i < s.n; i++)
			s.offsets[i] =
				i * slot + bench_rnd_below(&rnd, slot / 2);
		for (i = 0; i < ARRAY_SIZE(f3_workers) && !err; i++) {
			for (v = 0; v < 2 && !err; v++) {
				if ((v + rep) % 2)
					err = f3_wake_all(&s, f3_workers[i],
							  rep);
				else
					err = f3_leader_follower(&s,
								 f3_workers[i],
								 rep);
			}
		}
		pr_info("F3: repetition %u of %u done\n", rep + 1,
			bench_cfg.reps);
	}
out:
	kvfree(s.offsets);
	kvfree(s.tasks);
	return err;
}
