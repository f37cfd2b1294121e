// SPDX-License-Identifier: GPL-2.0
/*
 * F4a: lateness (the time a callback starts minus its deadline) at the
 * worker, p50 / p99 / p99.9, for a stream of one-shot tasks spread at
 * random over a window, on a dwq queue that is otherwise idle and on one
 * that also holds 100k tasks due an hour later (quick tasks, as /dev/dwq's
 * are, see dwq_task_set_quick()), and for ordinary tasks on an idle queue
 * (each covered by a hand-off timer), against a kthread's bare
 * hrtimer sleep (schedule_hrtimeout_range_clock(), with no slack, as dwq's
 * leader has none for these tasks) until the same deadlines, one after the
 * other. A deadline the bare sleeper finds already passed is measured at
 * once, as a timer that fires late would be. Early runs are counted: there
 * must be none.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <dwq.h>

#include "bench.h"
#include "dwq_internal.h"

/*
 * Ahead of the first deadline: time to schedule the stream. A run whose
 * scheduling outlasts it is run again with twice the lead, a few times.
 */
#define F4_LEAD_NS (300 * NSEC_PER_MSEC)
#define F4_TRIES 4
/* The background tasks of the loaded queue are due this much later. */
#define F4_FAR_NS (3600ULL * NSEC_PER_SEC)

/**
 * struct f4_task - a task of the stream, on dwq
 * @task: the task
 * @late: ns its callback started after its deadline (negative: early)
 * @left: tasks of the stream still to run
 * @done: completed by the last one
 */
struct f4_task {
	struct dwq_task task;
	s64 late;
	atomic_t *left;
	struct completion *done;
};

/**
 * struct f4 - one repetition's stream and what it needs
 * @n: tasks in the stream
 * @window: ns the deadlines spread over
 * @offsets: @n deadlines, ns after the stream's start, ascending
 * @late: @n lateness values of the variant just run
 * @tasks: @n tasks for dwq
 * @far: @nfar background tasks for the loaded queue
 * @nfar: background tasks
 * @workers: workers of the dwq queues
 * @lead: ns from scheduling to the stream's start, F4_LEAD_NS or more
 */
struct f4 {
	unsigned int n;
	u64 window;
	u64 *offsets;
	s64 *late;
	struct f4_task *tasks;
	struct dwq_task *far;
	unsigned int nfar;
	unsigned int workers;
	u64 lead;
};

/* How long a stream may take to run, in jiffies: far longer than it should. */
static unsigned long f4_timeout(const struct f4 *f)
{
	return nsecs_to_jiffies(f->lead + f->window) + 30 * HZ;
}

static void f4_task_fn(struct dwq_task *task)
{
	struct f4_task *t = container_of(task, struct f4_task, task);

	t->late = ktime_get_ns() - dwq_task_run_deadline(task);
	if (atomic_dec_and_test(t->left))
		complete(t->done);
}

static void f4_far_fn(struct dwq_task *task)
{
}

static int f4_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static int f4_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The value at @permille (nearest rank) of @n sorted values. */
static s64 f4_rank(const s64 *v, unsigned int n, unsigned int permille)
{
	unsigned int i = DIV_ROUND_UP(n * permille, 1000);

	return v[i ? i - 1 : 0];
}

static int f4_rows(struct f4 *f, const char *variant, unsigned int rep)
{
	unsigned int i, early = 0;
	int err;

	sort(f->late, f->n, sizeof(*f->late), f4_cmp, NULL);
	for (i = 0; i < f->n; i++)
		early += f->late[i] < 0;
	err = bench_row_s64("F4a", variant, f->n, "p50", "ns", rep,
			    f4_rank(f->late, f->n, 500));
	err = err   ?:
		      bench_row_s64("F4a", variant, f->n, "p99", "ns", rep,
				    f4_rank(f->late, f->n, 990));
	err = err   ?:
		      bench_row_s64("F4a", variant, f->n, "p999", "ns", rep,
				    f4_rank(f->late, f->n, 999));
	err = err   ?:
		      bench_row_s64("F4a", variant, f->n, "min", "ns", rep,
				    f->late[0]);
	err = err   ?:
		      bench_row_s64("F4a", variant, f->n, "max", "ns", rep,
				    f->late[f->n - 1]);
	err = err   ?:
		      bench_row_u64("F4a", variant, f->n, "early", "count", rep,
				    early);
	return err;
}

/*
 * The stream on a fresh dwq queue, after @nfar background tasks. Return:
 * 0, -EAGAIN if scheduling the stream outlasted @f->lead (nothing
 * measured), or another errno.
 */
static int f4_dwq(struct f4 *f, unsigned int nfar, bool quick, unsigned int rep)
{
	struct dwq_sched sched = { .mode = DWQ_MODE_ONESHOT };
	DECLARE_COMPLETION_ONSTACK(done);
	struct dwq_queue *q;
	unsigned int i;
	atomic_t left;
	u64 start;
	int err = 0;

	atomic_set(&left, f->n);
	for (i = 0; i < f->n; i++) {
		dwq_task_init(&f->tasks[i].task, f4_task_fn, NULL);
		dwq_task_set_quick(&f->tasks[i].task, quick);
		f->tasks[i].left = &left;
		f->tasks[i].done = &done;
	}
	for (i = 0; i < nfar; i++)
		dwq_task_init(&f->far[i], f4_far_fn, NULL);
	q = dwq_queue_create("bench", f->workers, 0);
	if (IS_ERR(q)) {
		err = PTR_ERR(q);
		pr_err("F4a: dwq_queue_create: %d\n", err);
		goto out;
	}
	/* Scheduling never allocates: room for all of them first. */
	err = dwq_queue_reserve(q, nfar + f->n);
	if (err)
		pr_err("F4a: dwq_queue_reserve: %d\n", err);
	sched.time_ns = F4_FAR_NS;
	for (i = 0; i < nfar && !err; i++) {
		err = dwq_schedule(q, &f->far[i], &sched);
		if (!(i % 1024))
			cond_resched();
	}
	msleep(20);
	/* The stream, in an order of its own: deadlines are ascending. */
	sched.flags = DWQ_SCHED_ABS;
	start = ktime_get_ns() + f->lead;
	for (i = 0; i < f->n && !err; i++) {
		unsigned int j = (i * 7919U) % f->n;

		sched.time_ns = start + f->offsets[j];
		err = dwq_schedule(q, &f->tasks[j].task, &sched);
	}
	if (err) {
		pr_err("F4a: dwq_schedule: %d\n", err);
	} else if (ktime_get_ns() > start) {
		pr_info("F4a: scheduling the stream outlasted its %llu ms lead\n",
			div_u64(f->lead, NSEC_PER_MSEC));
		err = -EAGAIN;
	} else if (!wait_for_completion_timeout(&done, f4_timeout(f))) {
		pr_err("F4a: %d of %u tasks did not run in time\n",
		       atomic_read(&left), f->n);
		err = -ETIMEDOUT;
	}
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
	for (i = 0; i < f->n; i++)
		f->late[i] = f->tasks[i].late;
	if (!err)
		err = f4_rows(f,
			      nfar  ? "dwq-loaded" :
			      quick ? "dwq-idle" :
				      "dwq-idle-handoff",
			      rep);
out:
	for (i = 0; i < nfar; i++)
		dwq_task_put(&f->far[i]);
	for (i = 0; i < f->n; i++)
		dwq_task_put(&f->tasks[i].task);
	return err;
}

/**
 * struct f4_bare - the bare sleeper's job
 * @f: the stream
 * @start: the stream's start
 * @done: completed when every deadline was measured
 */
struct f4_bare {
	struct f4 *f;
	u64 start;
	struct completion done;
};

static int f4_bare_fn(void *arg)
{
	struct f4_bare *b = arg;
	struct f4 *f = b->f;
	unsigned int i;
	ktime_t expires;
	u64 deadline;

	for (i = 0; i < f->n && !kthread_should_stop(); i++) {
		deadline = b->start + f->offsets[i];
		if (ktime_get_ns() < deadline) {
			expires = ns_to_ktime(deadline);
			set_current_state(TASK_INTERRUPTIBLE);
			schedule_hrtimeout_range_clock(&expires, 0,
						       HRTIMER_MODE_ABS,
						       CLOCK_MONOTONIC);
		}
		f->late[i] = ktime_get_ns() - deadline;
		/* A woken but early sleeper would be counted, not hidden. */
	}
	complete(&b->done);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

static int f4_hrtimer(struct f4 *f, unsigned int rep)
{
	struct task_struct *t;
	struct f4_bare b = { .f = f };
	int err = 0;

	init_completion(&b.done);
	b.start = ktime_get_ns() + f->lead;
	t = kthread_run(f4_bare_fn, &b, "dwq_bench_hrt");
	if (IS_ERR(t)) {
		pr_err("F4a: kthread_run: %ld\n", PTR_ERR(t));
		return PTR_ERR(t);
	}
	if (!wait_for_completion_timeout(&b.done, f4_timeout(f))) {
		pr_err("F4a: the bare sleeper did not finish in time\n");
		err = -ETIMEDOUT;
	}
	kthread_stop(t);
	return err ?: f4_rows(f, "hrtimer-sleep", rep);
}

int bench_f4a(void)
{
	struct f4 f = {
		.n = bench_cfg.full ? 10000 : 500,
		.window = bench_cfg.full ? 2 * NSEC_PER_SEC :
					   200 * NSEC_PER_MSEC,
		.nfar = bench_cfg.full ? 100000 : 1000,
		.workers = min(num_online_cpus(), DWQ_MAX_WORKERS),
		.lead = F4_LEAD_NS,
	};
	struct rnd_state rnd;
	unsigned int rep, i, v, tries;
	int err;

	f.offsets = kvmalloc_array(f.n, sizeof(*f.offsets), GFP_KERNEL);
	f.late = kvmalloc_array(f.n, sizeof(*f.late), GFP_KERNEL);
	f.tasks = kvcalloc(f.n, sizeof(*f.tasks), GFP_KERNEL);
	f.far = kvcalloc(f.nfar, sizeof(*f.far), GFP_KERNEL);
	if (!f.offsets || !f.late || !f.tasks || !f.far) {
		err = -ENOMEM;
		goto out;
	}
	err = bench_row_u64("env", "f4a", 0, "window", "ns", 0, f.window);
	err = err   ?:
		      bench_row_u64("env", "f4a", 0, "background", "count", 0,
				    f.nfar);
	err = err   ?:
		      bench_row_u64("env", "f4a", 0, "workers", "count", 0,
				    f.workers);
	for (rep = 0; rep < bench_cfg.reps && !err; rep++) {
		bench_rnd_init(&rnd, 4, rep, 0);
		for (i = 0; i < f.n; i++)
			f.offsets[i] = bench_rnd_below(&rnd, f.window);
		sort(f.offsets, f.n, sizeof(*f.offsets), f4_cmp_u64, NULL);
		for (i = 0; i < 4 && !err; i++) {
			v = (i + rep) % 4;
			for (tries = 0; tries < F4_TRIES; tries++) {
				if (v == 0)
					err = f4_dwq(&f, 0, true, rep);
				else if (v == 1)
					err = f4_dwq(&f, f.nfar, true, rep);
				else if (v == 2)
					err = f4_dwq(&f, 0, false, rep);
				else
					err = f4_hrtimer(&f, rep);
				if (err != -EAGAIN)
					break;
				f.lead *= 2;
			}
			if (err == -EAGAIN)
				pr_err("F4a: scheduling %u tasks outlasted even %llu ms\n",
				       f.n, div_u64(f.lead / 2, NSEC_PER_MSEC));
		}
		pr_info("F4a: repetition %u of %u done\n", rep + 1,
			bench_cfg.reps);
	}
out:
	kvfree(f.far);
	kvfree(f.tasks);
	kvfree(f.late);
	kvfree(f.offsets);
	return err;
}
