// SPDX-License-Identifier: GPL-2.0
/*
 * F8's lateness: 10k one-shot objects (tiny: 200) due at random over 2 s
 * (tiny: 100 ms), 300 ms ahead (a run whose arming outlasts that is run
 * again with twice the lead, up to 4 times), for dwq and the kernel's own
 * facilities; lateness = ktime_get_ns() at the start of the callback - the
 * deadline, as p50, p99, max, min and the count of early ones; and the
 * guest's context switches over the run (the "ctxt" line of /proc/stat
 * before arming and after the last callback: every CPU, every thread),
 * also per fired object. The variants, their order rotated by the
 * repetition:
 *   idle                 nothing armed, the same span: the background
 *   dwq                  a fresh dwq queue, quick tasks, no slack
 *   dwq-slack            the same, each task's slack_ns the wheel's below
 *   delayed_work         on a WQ_UNBOUND workqueue, delay in jiffies
 *                        (usecs_to_jiffies(), rounded up)
 *   timer_list           the same delay; the callback runs in softirq
 *   hrtimer              CLOCK_MONOTONIC, absolute; callback in hard irq
 *   hrtimer-slack        hrtimer_start_range_ns() with the wheel's slack
 *   hrtimer-queue_work   the hrtimer's callback queues a work item on
 *                        system_wq (what schedule_work() does): lateness
 *                        at the work
 *   hrtimer-queue_work-slack  the same with the wheel's slack
 *   hrtimer-queue_work-unbound  the same without slack, the work queued
 *                        on delayed_work's WQ_UNBOUND workqueue
 *   kthread_delayed_work on a kthread_worker, delay as delayed_work's
 * The wheel's slack of a deadline: the ticks the timer wheel would add to
 * a timer_list armed for it at that moment (its bucket's expiry minus its
 * expiry, kernel/time/timer.c's calc_index()), in ns.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <dwq.h>

#include "bench.h"
#include "compat.h"
#include "f8.h"

#define F8L_LEAD_NS (300 * NSEC_PER_MSEC)
#define F8L_TRIES 4
#define F8L_STAT_MAX (256 * 1024)

enum {
	F8L_IDLE,
	F8L_DWQ,
	F8L_DWQ_SLACK,
	F8L_DW,
	F8L_TL,
	F8L_HR,
	F8L_HR_SLACK,
	F8L_HW,
	F8L_HW_SLACK,
	F8L_HW_UNBOUND,
	F8L_KD,
	F8L_NR
};

static const char *const f8l_names[F8L_NR] = {
	[F8L_IDLE] = "idle",
	[F8L_DWQ] = "dwq",
	[F8L_DWQ_SLACK] = "dwq-slack",
	[F8L_DW] = "delayed_work",
	[F8L_TL] = "timer_list",
	[F8L_HR] = "hrtimer",
	[F8L_HR_SLACK] = "hrtimer-slack",
	[F8L_HW] = "hrtimer-queue_work",
	[F8L_HW_SLACK] = "hrtimer-queue_work-slack",
	[F8L_HW_UNBOUND] = "hrtimer-queue_work-unbound",
	[F8L_KD] = "kthread_delayed_work",
};

struct f8l;

/**
 * struct f8l_obj - one object of the stream, in one facility's form
 * @task: dwq's
 * @dw: delayed_work's
 * @tl: timer_list's
 * @hr: the hrtimer of hrtimer and hrtimer + queue_work
 * @work: hrtimer + queue_work's work
 * @wq: the workqueue @work goes to
 * @kd: kthread_delayed_work's
 * @deadline: ns, CLOCK_MONOTONIC
 * @late: ns the callback started after @deadline (negative: early)
 * @f: the run
 */
struct f8l_obj {
	union {
		struct dwq_task task;
		struct delayed_work dw;
		struct timer_list tl;
		struct {
			struct hrtimer hr;
			struct work_struct work;
			struct workqueue_struct *wq;
		};
		struct kthread_delayed_work kd;
	};
	u64 deadline;
	s64 late;
	struct f8l *f;
};

/**
 * struct f8l - one repetition's stream
 * @c: the shared workqueue and kthread_worker
 * @n: objects
 * @window: ns the deadlines spread over
 * @lead: ns from arming to the stream's start
 * @offsets: @n deadlines after the start, ascending
 * @late: @n lateness values, to sort
 * @obj: @n objects
 * @q: the dwq queue of a dwq run
 * @left: callbacks still to run
 * @done: completed by the last one
 * @stat: a buffer for /proc/stat
 */
struct f8l {
	struct f8_ctx *c;
	unsigned int n;
	u64 window;
	u64 lead;
	u64 *offsets;
	s64 *late;
	struct f8l_obj *obj;
	struct dwq_queue *q;
	atomic_t left;
	struct completion done;
	char *stat;
};

static void f8l_ran(struct f8l_obj *o)
{
	o->late = ktime_get_ns() - o->deadline;
	if (atomic_dec_and_test(&o->f->left))
		complete(&o->f->done);
}

static void f8l_dwq_fn(struct dwq_task *task)
{
	f8l_ran(container_of(task, struct f8l_obj, task));
}

static void f8l_dw_fn(struct work_struct *work)
{
	f8l_ran(container_of(to_delayed_work(work), struct f8l_obj, dw));
}

static void f8l_tl_fn(struct timer_list *t)
{
	f8l_ran(container_of(t, struct f8l_obj, tl));
}

static enum hrtimer_restart f8l_hr_fn(struct hrtimer *t)
{
	f8l_ran(container_of(t, struct f8l_obj, hr));
	return HRTIMER_NORESTART;
}

static enum hrtimer_restart f8l_hw_fn(struct hrtimer *t)
{
	struct f8l_obj *o = container_of(t, struct f8l_obj, hr);

	queue_work(o->wq, &o->work);
	return HRTIMER_NORESTART;
}

static void f8l_work_fn(struct work_struct *work)
{
	f8l_ran(container_of(work, struct f8l_obj, work));
}

static void f8l_kd_fn(struct kthread_work *work)
{
	f8l_ran(container_of(work, struct f8l_obj, kd.work));
}

/* The guest's context switches so far: /proc/stat's ctxt line. */
static int f8l_ctxt(struct f8l *f, u64 *ctxt)
{
	struct file *file;
	loff_t pos = 0;
	size_t total = 0;
	ssize_t len;
	char *p;

	file = filp_open("/proc/stat", O_RDONLY, 0);
	if (IS_ERR(file)) {
		pr_err("F8: /proc/stat: %ld\n", PTR_ERR(file));
		return PTR_ERR(file);
	}
	while (total < F8L_STAT_MAX - 1) {
		len = kernel_read(file, f->stat + total,
				  F8L_STAT_MAX - 1 - total, &pos);
		if (len <= 0)
			break;
		total += len;
	}
	filp_close(file, NULL);
	f->stat[total] = '\0';
	p = strstr(f->stat, "\nctxt ");
	if (!p || sscanf(p + 6, "%llu", ctxt) != 1) {
		pr_err("F8: no ctxt line in /proc/stat\n");
		return -EIO;
	}
	return 0;
}

static void f8l_init(struct f8l *f, unsigned int v, struct f8l_obj *o)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	switch (v) {
	case F8L_DWQ:
	case F8L_DWQ_SLACK:
		dwq_task_init(&o->task, f8l_dwq_fn, NULL);
		dwq_task_set_quick(&o->task, true);
		break;
	case F8L_DW:
		INIT_DELAYED_WORK(&o->dw, f8l_dw_fn);
		break;
	case F8L_TL:
		timer_setup(&o->tl, f8l_tl_fn, 0);
		break;
	case F8L_HR:
	case F8L_HR_SLACK:
		hrtimer_setup(&o->hr, f8l_hr_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS);
		break;
	case F8L_HW:
	case F8L_HW_SLACK:
	case F8L_HW_UNBOUND:
		hrtimer_setup(&o->hr, f8l_hw_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS);
		INIT_WORK(&o->work, f8l_work_fn);
		o->wq = v == F8L_HW_UNBOUND ? f->c->wq : system_wq;
		break;
	case F8L_KD:
		kthread_init_delayed_work(&o->kd, f8l_kd_fn);
		break;
	}
}

/* Arms @o for its deadline. Return: 0 or an errno. */
static int f8l_arm(struct f8l *f, unsigned int v, struct f8l_obj *o)
{
	struct dwq_sched sc = {
		.time_ns = o->deadline,
		.mode = DWQ_MODE_ONESHOT,
		.flags = DWQ_SCHED_ABS,
	};
	u64 now = ktime_get_ns(), slack = 0;
	unsigned long delay, j;

	/* What a module would ask for: the delay in jiffies, rounded up. */
	delay = usecs_to_jiffies(DIV_ROUND_UP_ULL(o->deadline - now, 1000));
	if (v == F8L_DWQ_SLACK || v == F8L_HR_SLACK || v == F8L_HW_SLACK) {
		j = jiffies;
		slack = (u64)f8_wheel_slack(j + delay, j) * TICK_NSEC;
	}
	switch (v) {
	case F8L_DWQ:
	case F8L_DWQ_SLACK:
#ifdef F8_HAVE_DWQ_SLACK
		sc.slack_ns = slack;
#endif
		return dwq_schedule(f->q, &o->task, &sc);
	case F8L_DW:
		return queue_delayed_work(f->c->wq, &o->dw, delay) ? 0 : -EBUSY;
	case F8L_TL:
		return mod_timer(&o->tl, jiffies + delay) ? -EBUSY : 0;
	case F8L_HR:
	case F8L_HR_SLACK:
	case F8L_HW:
	case F8L_HW_SLACK:
	case F8L_HW_UNBOUND:
		hrtimer_start_range_ns(&o->hr, ns_to_ktime(o->deadline), slack,
				       HRTIMER_MODE_ABS);
		return 0;
	case F8L_KD:
		return kthread_queue_delayed_work(f->c->kw, &o->kd, delay) ?
			       0 :
			       -EBUSY;
	}
	return -EINVAL;
}

/* Makes every object idle, waiting for callbacks still running. */
static void f8l_disarm(struct f8l *f, unsigned int v)
{
	unsigned int i;

	if (f->q) {
		dwq_queue_destroy(f->q, DWQ_DESTROY_DROP);
		f->q = NULL;
	}
	for (i = 0; i < f->n; i++) {
		struct f8l_obj *o = &f->obj[i];

		switch (v) {
		case F8L_DWQ:
		case F8L_DWQ_SLACK:
			dwq_task_put(&o->task);
			break;
		case F8L_DW:
			cancel_delayed_work_sync(&o->dw);
			break;
		case F8L_TL:
			timer_delete_sync(&o->tl);
			break;
		case F8L_HR:
		case F8L_HR_SLACK:
			hrtimer_cancel(&o->hr);
			break;
		case F8L_HW:
		case F8L_HW_SLACK:
		case F8L_HW_UNBOUND:
			hrtimer_cancel(&o->hr);
			cancel_work_sync(&o->work);
			break;
		case F8L_KD:
			kthread_cancel_delayed_work_sync(&o->kd);
			break;
		}
	}
}

static int f8l_cmp(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static int f8l_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static s64 f8l_rank(const s64 *v, unsigned int n, unsigned int permille)
{
	unsigned int i = DIV_ROUND_UP(n * permille, 1000);

	return v[i ? i - 1 : 0];
}

static int f8l_rows(struct f8l *f, unsigned int v, unsigned int rep, u64 ctxt)
{
	const char *name = f8l_names[v];
	unsigned int i, early = 0;
	int err = 0;

	if (v != F8L_IDLE) {
		for (i = 0; i < f->n; i++) {
			f->late[i] = f->obj[i].late;
			early += f->late[i] < 0;
		}
		sort(f->late, f->n, sizeof(*f->late), f8l_cmp, NULL);
		err = bench_row_s64("F8", name, f->n, "p50", "ns", rep,
				    f8l_rank(f->late, f->n, 500));
		err = err   ?:
			      bench_row_s64("F8", name, f->n, "p99", "ns", rep,
					    f8l_rank(f->late, f->n, 990));
		err = err   ?:
			      bench_row_s64("F8", name, f->n, "max", "ns", rep,
					    f->late[f->n - 1]);
		err = err   ?:
			      bench_row_s64("F8", name, f->n, "min", "ns", rep,
					    f->late[0]);
		err = err   ?:
			      bench_row_u64("F8", name, f->n, "early", "count",
					    rep, early);
	}
	err = err   ?:
		      bench_row_u64("F8", name, f->n, "ctxt", "count", rep,
				    ctxt);
	err = err   ?:
		      bench_row_ratio("F8", name, f->n, "ctxt_per_task",
				      "ratio", rep, ctxt, f->n, 3);
	return err;
}

/*
 * One variant's run. Return: 0, -EAGAIN if arming outlasted @f->lead
 * (nothing measured), or another errno.
 */
static int f8l_run(struct f8l *f, unsigned int v, unsigned int rep)
{
	unsigned long timeout = nsecs_to_jiffies(f->lead + f->window) + 30 * HZ;
	unsigned int i, armed = 0;
	u64 start, c0 = 0, c1 = 0;
	int err = 0;

	atomic_set(&f->left, f->n);
	reinit_completion(&f->done);
	if (v == F8L_DWQ || v == F8L_DWQ_SLACK) {
		f->q = dwq_queue_create("bench", f->c->workers, 0);
		if (IS_ERR(f->q)) {
			err = PTR_ERR(f->q);
			f->q = NULL;
			pr_err("F8: dwq_queue_create: %d\n", err);
			return err;
		}
		err = dwq_queue_reserve(f->q, f->n);
		if (err) {
			pr_err("F8: dwq_queue_reserve: %d\n", err);
			dwq_queue_destroy(f->q, DWQ_DESTROY_DROP);
			f->q = NULL;
			return err;
		}
	}
	for (i = 0; i < f->n; i++)
		f8l_init(f, v, &f->obj[i]);
	msleep(20);
	err = f8l_ctxt(f, &c0);
	if (err)
		goto out;
	start = ktime_get_ns() + f->lead;
	if (v == F8L_IDLE) {
		msleep(div_u64(f->lead + f->window, NSEC_PER_MSEC));
	} else {
		/* In an order of their own: the deadlines are ascending. */
		for (armed = 0; armed < f->n && !err; armed++) {
			struct f8l_obj *o = &f->obj[(armed * 7919U) % f->n];

			o->deadline =
				start + f->offsets[(armed * 7919U) % f->n];
			err = f8l_arm(f, v, o);
		}
		if (err) {
			pr_err("F8: %s: arming failed: %d\n", f8l_names[v],
			       err);
			goto out;
		}
		if (ktime_get_ns() > start) {
			pr_info("F8: arming %u for %s outlasted its %llu ms lead\n",
				f->n, f8l_names[v],
				div_u64(f->lead, NSEC_PER_MSEC));
			err = -EAGAIN;
			goto out;
		}
		if (!wait_for_completion_timeout(&f->done, timeout)) {
			pr_err("F8: %s: %d of %u did not run in time\n",
			       f8l_names[v], atomic_read(&f->left), f->n);
			err = -ETIMEDOUT;
			goto out;
		}
	}
	err = f8l_ctxt(f, &c1);
out:
	f8l_disarm(f, v);
	return err ?: f8l_rows(f, v, rep, c1 - c0);
}

int f8_late_figure(struct f8_ctx *c)
{
	struct f8l f = {
		.c = c,
		.n = bench_cfg.full ? 10000 : 200,
		.window = bench_cfg.full ? 2 * NSEC_PER_SEC :
					   100 * NSEC_PER_MSEC,
		.lead = bench_cfg.full ? F8L_LEAD_NS : 100 * NSEC_PER_MSEC,
	};
	struct rnd_state rnd;
	unsigned int rep, i, v, tries;
	int err;

	init_completion(&f.done);
	f.offsets = kvmalloc_array(f.n, sizeof(*f.offsets), GFP_KERNEL);
	f.late = kvmalloc_array(f.n, sizeof(*f.late), GFP_KERNEL);
	f.obj = kvcalloc(f.n, sizeof(*f.obj), GFP_KERNEL);
	f.stat = kvmalloc(F8L_STAT_MAX, GFP_KERNEL);
	if (!f.offsets || !f.late || !f.obj || !f.stat) {
		err = -ENOMEM;
		goto out;
	}
	err = bench_row_u64("env", "f8", 0, "late_window", "ns", 0, f.window);
	err = err   ?:
		      bench_row_u64("env", "f8", 0, "late_tasks", "count", 0,
				    f.n);
	err = err   ?:
		      bench_row_u64("env", "f8", 0, "workers", "count", 0,
				    c->workers);
#ifdef F8_HAVE_DWQ_SLACK
	err = err   ?:
		      bench_row_str("env", "f8", 0, "dwq_slack", "name", 0,
				    "slack_ns");
#else
	err = err   ?:
		      bench_row_str("env", "f8", 0, "dwq_slack", "name", 0,
				    "absent");
#endif
	for (rep = 0; rep < bench_cfg.reps && !err; rep++) {
		bench_rnd_init(&rnd, 8, rep, 1);
		for (i = 0; i < f.n; i++)
			f.offsets[i] = bench_rnd_below(&rnd, f.window);
		sort(f.offsets, f.n, sizeof(*f.offsets), f8l_cmp_u64, NULL);
		for (i = 0; i < F8L_NR && !err; i++) {
			v = (i + rep) % F8L_NR;
#ifndef F8_HAVE_DWQ_SLACK
			/* struct dwq_sched has no slack_ns: not available. */
			if (v == F8L_DWQ_SLACK)
				continue;
#endif
			for (tries = 0; tries < F8L_TRIES; tries++) {
				err = f8l_run(&f, v, rep);
				if (err != -EAGAIN)
					break;
				f.lead *= 2;
			}
			if (err == -EAGAIN)
				pr_err("F8: arming %u outlasted even %llu ms\n",
				       f.n, div_u64(f.lead / 2, NSEC_PER_MSEC));
		}
		pr_info("F8: lateness: repetition %u of %u done\n", rep + 1,
			bench_cfg.reps);
	}
out:
	kvfree(f.stat);
	kvfree(f.obj);
	kvfree(f.late);
	kvfree(f.offsets);
	return err;
}
