/* SPDX-License-Identifier: GPL-2.0 */
/*
 * F8: dwq against the kernel's own timer facilities (f8.c: arm + cancel,
 * re-arm, a new head, bytes; f8_late.c: lateness and context switches).
 */
#ifndef _DWQ_BENCH_F8_H
#define _DWQ_BENCH_F8_H

#include <linux/types.h>

struct workqueue_struct;
struct kthread_worker;

/**
 * struct f8_ctx - what every F8 variant shares
 * @wq: the WQ_UNBOUND workqueue of delayed_work and hrtimer + queue_work
 * @kw: the kthread_worker of kthread_delayed_work
 * @workers: workers of every dwq queue F8 creates
 */
struct f8_ctx {
	struct workqueue_struct *wq;
	struct kthread_worker *kw;
	unsigned int workers;
};

/*
 * The ticks the timer wheel adds to a timer due at @expires when it is
 * queued at @clk (its bucket's expiry minus @expires).
 */
unsigned long f8_wheel_slack(unsigned long expires, unsigned long clk);

int f8_arm_figure(struct f8_ctx *c);
int f8_late_figure(struct f8_ctx *c);

#endif /* _DWQ_BENCH_F8_H */
