/* SPDX-License-Identifier: GPL-2.0 */
/*
 * F1: the priority queues under test, each behind the same small
 * interface so that f1.c can interleave them.
 */
#ifndef _DWQ_BENCH_F1_H
#define _DWQ_BENCH_F1_H

#include <linux/min_heap.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/*
 * The min_heap API of 6.12 came with DEFINE_MIN_HEAP(), min_heap_del() and
 * callbacks that take an argument. 6.1's older API has none of them: there
 * F1 has no min_heap variant and writes no min_heap row.
 */
#ifdef DEFINE_MIN_HEAP
#define F1_HAVE_MIN_HEAP
#endif

/**
 * struct f1_run - one variant at one size, for one repetition
 * @n: items queued, held steady
 * @pairs: schedule + cancel pairs in one timing
 * @fill: @n + 1 keys; item i is queued with @fill[i] by setup()
 * @keys: @pairs keys, one per pair, for the item scheduled
 * @victims: @pairs items in [0, @n], one per pair, cancelled after it
 * @refill: keys for the items the last pops() took out, one each
 * @popped: filled by pops(): the items it took out
 * @spare: the one item of the @n + 1 that is not queued
 * @lock: what a queue's lock costs: every variant but hrtimer (which has
 *	its own) takes it around each operation. It protects the variant's
 *	structure, though nothing else could touch it.
 * @priv: the variant's own state, from setup()
 */
struct f1_run {
	unsigned int n;
	unsigned int pairs;
	const u64 *fill;
	const u64 *keys;
	const u32 *victims;
	const u64 *refill;
	u32 *popped;
	u32 spare;
	spinlock_t lock; /* the structure under test, see above */
	void *priv;
};

/**
 * struct f1_variant - a priority queue under test
 * @name: its CSV name
 * @setup: allocate @n + 1 items and queue items 0 .. @n - 1 with their
 *	@fill keys; @spare is @n. Not timed.
 * @pairs: @pairs times: schedule @spare with the next key, then cancel
 *	the next victim, which becomes @spare. Timed by the caller.
 * @pops: take the @k earliest items out, timed (return: ns for the @k, or
 *	an errno), then queue them again with @refill keys, not timed
 * @teardown: free everything
 */
struct f1_variant {
	const char *name;
	int (*setup)(struct f1_run *r);
	void (*pairs)(struct f1_run *r);
	s64 (*pops)(struct f1_run *r, unsigned int k);
	void (*teardown)(struct f1_run *r);
};

extern const struct f1_variant f1_h2i, f1_h2p, f1_h4i, f1_h4p, f1_floor;
extern const struct f1_variant f1_timerqueue, f1_hrtimer;
#ifdef F1_HAVE_MIN_HEAP
extern const struct f1_variant f1_min_heap;
#endif

#endif /* _DWQ_BENCH_F1_H */
