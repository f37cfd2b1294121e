// SPDX-License-Identifier: GPL-2.0
/*
 * F1 anchors from the kernel: timerqueue (an rbtree with a cached
 * leftmost node, what hrtimers use), min_heap (include/linux/min_heap.h,
 * 6.12's API, with a back-index kept in its swap callback so that cancel is
 * O(log n)) and hrtimers themselves. Each is called as its users call it:
 * timerqueue_add() and timerqueue_del() are the kernel's out-of-line
 * functions, min_heap's operations are inlined into the loops.
 *
 * hrtimer "pop" is expiry: @k armed timers are moved to one instant a
 * little ahead, so that a single hrtimer interrupt runs all of them, and the
 * time from the first callback to the last, scaled by k / (k - 1), is the
 * cost of @k pops: the rbtree removal of the leftmost timer, the lock dance
 * around the callback and the (empty) callback itself.
 */
#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timerqueue.h>

#include "bench.h"
#include "compat.h"
#include "f1.h"

/* --- timerqueue --- */

/* The state of the timerqueue variant: the tree and its @n + 1 nodes. */
struct f1_tq {
	struct timerqueue_head head;
	struct timerqueue_node *nodes;
};

static int f1_tq_setup(struct f1_run *r)
{
	struct f1_tq *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->nodes = kvmalloc_array(r->n + 1, sizeof(*s->nodes), GFP_KERNEL);
	if (!s->nodes) {
		kfree(s);
		return -ENOMEM;
	}
	timerqueue_init_head(&s->head);
	for (i = 0; i <= r->n; i++)
		timerqueue_init(&s->nodes[i]);
	for (i = 0; i < r->n; i++) {
		s->nodes[i].expires = r->fill[i];
		timerqueue_add(&s->head, &s->nodes[i]);
		if (!(i % 4096))
			cond_resched();
	}
	r->priv = s;
	return 0;
}

static void f1_tq_pairs(struct f1_run *r)
{
	struct f1_tq *s = r->priv;
	unsigned long flags;
	u32 spare = r->spare, v;
	unsigned int i;

	for (i = 0; i < r->pairs; i++) {
		spin_lock_irqsave(&r->lock, flags);
		s->nodes[spare].expires = r->keys[i];
		timerqueue_add(&s->head, &s->nodes[spare]);
		spin_unlock_irqrestore(&r->lock, flags);
		v = r->victims[i];
		spin_lock_irqsave(&r->lock, flags);
		timerqueue_del(&s->head, &s->nodes[v]);
		spin_unlock_irqrestore(&r->lock, flags);
		spare = v;
	}
	r->spare = spare;
}

static s64 f1_tq_pops(struct f1_run *r, unsigned int k)
{
	struct f1_tq *s = r->priv;
	struct timerqueue_node *node;
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (i = 0; i < k; i++) {
		spin_lock_irqsave(&r->lock, flags);
		node = timerqueue_getnext(&s->head);
		timerqueue_del(&s->head, node);
		spin_unlock_irqrestore(&r->lock, flags);
		r->popped[i] = node - s->nodes;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < k; i++) {
		node = &s->nodes[r->popped[i]];
		node->expires = r->refill[i];
		timerqueue_add(&s->head, node);
	}
	return t1 - t0;
}

static void f1_tq_teardown(struct f1_run *r)
{
	struct f1_tq *s = r->priv;

	kvfree(s->nodes);
	kfree(s);
	r->priv = NULL;
}

const struct f1_variant f1_timerqueue = {
	.name = "timerqueue",
	.setup = f1_tq_setup,
	.pairs = f1_tq_pairs,
	.pops = f1_tq_pops,
	.teardown = f1_tq_teardown,
};

/* --- min_heap --- */

#ifdef F1_HAVE_MIN_HEAP

/* An item: its key and, kept by the swap callback, its slot (-1: out). */
struct f1_mh_item {
	u64 key;
	int idx;
};

/*
 * A heap element: the key inline, so that compares need no dereference
 * (the layout that favours min_heap most), and the item it stands for.
 */
struct f1_mh_elem {
	u64 key;
	struct f1_mh_item *item;
};

DEFINE_MIN_HEAP(struct f1_mh_elem, f1_mh_heap);

/* The state of the min_heap variant: the heap and its @n + 1 items. */
struct f1_mh {
	struct f1_mh_heap heap;
	struct f1_mh_item *items;
};

static bool f1_mh_less(const void *lhs, const void *rhs, void *args)
{
	const struct f1_mh_elem *a = lhs, *b = rhs;

	return a->key < b->key;
}

/* Swap two elements and tell their items where they now are. */
static void f1_mh_swp(void *lhs, void *rhs, void *args)
{
	struct f1_mh_heap *heap = args;
	struct f1_mh_elem *a = lhs, *b = rhs, t = *a;

	*a = *b;
	*b = t;
	a->item->idx = a - heap->data;
	b->item->idx = b - heap->data;
}

static const struct min_heap_callbacks f1_mh_cb = {
	.less = f1_mh_less,
	.swp = f1_mh_swp,
};

/*
 * Push, delete and pop are forced inline, and min_heap.h's functions with
 * them: F1's loops then hold the whole operation, as a min_heap user's
 * code does and as they hold dwq's heap operations (f1_dwq.c).
 */
static __always_inline void f1_mh_push(struct f1_mh_heap *heap,
				       struct f1_mh_item *item, u64 key)
{
	struct f1_mh_elem e = { .key = key, .item = item };

	item->key = key;
	item->idx = heap->nr; /* where min_heap_push() puts it first */
	dwq_min_heap_push(heap, &e, &f1_mh_cb, heap);
}

static __always_inline void f1_mh_del(struct f1_mh_heap *heap,
				      struct f1_mh_item *item)
{
	dwq_min_heap_del(heap, item->idx, &f1_mh_cb, heap);
	item->idx = -1;
}

static __always_inline struct f1_mh_item *f1_mh_pop(struct f1_mh_heap *heap)
{
	struct f1_mh_item *item = heap->data[0].item;

	dwq_min_heap_pop(heap, &f1_mh_cb, heap);
	/* pop copies the last element to the root without the callback. */
	if (heap->nr)
		heap->data[0].item->idx = 0;
	item->idx = -1;
	return item;
}

static int f1_mh_setup(struct f1_run *r)
{
	struct f1_mh_elem *data;
	struct f1_mh *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->items = kvmalloc_array(r->n + 1, sizeof(*s->items), GFP_KERNEL);
	data = kvmalloc_array(r->n + 1, sizeof(*data), GFP_KERNEL);
	if (!s->items || !data) {
		kvfree(data);
		kvfree(s->items);
		kfree(s);
		return -ENOMEM;
	}
	dwq_min_heap_init(&s->heap, data, r->n + 1);
	for (i = 0; i < r->n; i++) {
		f1_mh_push(&s->heap, &s->items[i], r->fill[i]);
		if (!(i % 4096))
			cond_resched();
	}
	s->items[r->n].idx = -1;
	r->priv = s;
	return 0;
}

static void f1_mh_pairs(struct f1_run *r)
{
	struct f1_mh *s = r->priv;
	unsigned long flags;
	u32 spare = r->spare, v;
	unsigned int i;

	for (i = 0; i < r->pairs; i++) {
		spin_lock_irqsave(&r->lock, flags);
		f1_mh_push(&s->heap, &s->items[spare], r->keys[i]);
		spin_unlock_irqrestore(&r->lock, flags);
		v = r->victims[i];
		spin_lock_irqsave(&r->lock, flags);
		f1_mh_del(&s->heap, &s->items[v]);
		spin_unlock_irqrestore(&r->lock, flags);
		spare = v;
	}
	r->spare = spare;
}

static s64 f1_mh_pops(struct f1_run *r, unsigned int k)
{
	struct f1_mh *s = r->priv;
	struct f1_mh_item *item;
	unsigned long flags;
	unsigned int i;
	u64 t0, t1;

	t0 = ktime_get_ns();
	for (i = 0; i < k; i++) {
		spin_lock_irqsave(&r->lock, flags);
		item = f1_mh_pop(&s->heap);
		spin_unlock_irqrestore(&r->lock, flags);
		r->popped[i] = item - s->items;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < k; i++)
		f1_mh_push(&s->heap, &s->items[r->popped[i]], r->refill[i]);
	return t1 - t0;
}

static void f1_mh_teardown(struct f1_run *r)
{
	struct f1_mh *s = r->priv;

	kvfree(s->heap.data);
	kvfree(s->items);
	kfree(s);
	r->priv = NULL;
}

const struct f1_variant f1_min_heap = {
	.name = "min_heap",
	.setup = f1_mh_setup,
	.pairs = f1_mh_pairs,
	.pops = f1_mh_pops,
	.teardown = f1_mh_teardown,
};
#endif /* F1_HAVE_MIN_HEAP */

/* --- hrtimer --- */

/*
 * The state of the hrtimer variant: @n + 1 timers pinned to this CPU
 * (f1.c keeps the benchmark from migrating) and the current pops() round.
 * @want, @fired, @first and @last are written by the callbacks, in hard
 * interrupt context on that one CPU, and read after @done.
 */
struct f1_hrt {
	struct f1_hrt_timer *timers;
	unsigned int want;
	unsigned int fired;
	u64 first;
	u64 last;
	u64 lead;
	struct completion done;
};

/* A timer and the state it reports to. */
struct f1_hrt_timer {
	struct hrtimer timer;
	struct f1_hrt *s;
};

/* Only pops() rounds ever expire: every other key is 1000 s ahead. */
static enum hrtimer_restart f1_hrt_fn(struct hrtimer *timer)
{
	struct f1_hrt *s = container_of(timer, struct f1_hrt_timer, timer)->s;
	unsigned int fired = ++s->fired;

	if (fired == 1)
		s->first = ktime_get_ns();
	if (fired == s->want) {
		s->last = ktime_get_ns();
		complete(&s->done);
	}
	return HRTIMER_NORESTART;
}

static void f1_hrt_start(struct f1_hrt_timer *t, u64 key)
{
	hrtimer_start_range_ns(&t->timer, ns_to_ktime(key), 0,
			       HRTIMER_MODE_ABS_PINNED);
}

static void f1_hrt_free(struct f1_run *r, struct f1_hrt *s)
{
	unsigned int i;

	for (i = 0; i <= r->n; i++) {
		hrtimer_cancel(&s->timers[i].timer);
		if (!(i % 4096))
			cond_resched();
	}
	kvfree(s->timers);
	kfree(s);
}

static int f1_hrt_setup(struct f1_run *r)
{
	struct f1_hrt *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->timers = kvmalloc_array(r->n + 1, sizeof(*s->timers), GFP_KERNEL);
	if (!s->timers) {
		kfree(s);
		return -ENOMEM;
	}
	init_completion(&s->done);
	/* A first guess, doubled whenever arming a round outlasts it. */
	s->lead = 2 * NSEC_PER_MSEC;
	for (i = 0; i <= r->n; i++) {
		hrtimer_setup(&s->timers[i].timer, f1_hrt_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_PINNED);
		s->timers[i].s = s;
	}
	for (i = 0; i < r->n; i++) {
		f1_hrt_start(&s->timers[i], r->fill[i]);
		if (!(i % 4096))
			cond_resched();
	}
	r->priv = s;
	return 0;
}

/* hrtimer_start() and hrtimer_cancel() take the timer base's own lock. */
static void f1_hrt_pairs(struct f1_run *r)
{
	struct f1_hrt *s = r->priv;
	u32 spare = r->spare, v;
	unsigned int i;

	for (i = 0; i < r->pairs; i++) {
		f1_hrt_start(&s->timers[spare], r->keys[i]);
		v = r->victims[i];
		hrtimer_cancel(&s->timers[v].timer);
		spare = v;
	}
	r->spare = spare;
}

/*
 * Move @k armed timers (those after @spare) to one instant @lead ahead,
 * wait for the interrupt that runs them all, and put them back far ahead.
 * If arming them outlasted @lead, some may have run in an earlier interrupt:
 * try again with twice the lead.
 */
static s64 f1_hrt_pops(struct f1_run *r, unsigned int k)
{
	struct f1_hrt *s = r->priv;
	unsigned int i, tries;
	bool late;
	u64 at;

	if (k < 2)
		return -EINVAL;
	for (i = 0; i < k; i++)
		r->popped[i] = (r->spare + 1 + i) % (r->n + 1);
	for (tries = 0; tries < 8; tries++) {
		s->want = k;
		s->fired = 0;
		reinit_completion(&s->done);
		at = ktime_get_ns() + s->lead + k * 2 * NSEC_PER_USEC;
		for (i = 0; i < k; i++)
			f1_hrt_start(&s->timers[r->popped[i]], at);
		late = ktime_get_ns() >= at;
		if (!wait_for_completion_timeout(&s->done, 10 * HZ)) {
			pr_err("F1 hrtimer: %u timers did not expire within 10 s\n",
			       k);
			return -ETIMEDOUT;
		}
		if (!late)
			break;
		s->lead *= 2;
	}
	if (late)
		return -ETIME;
	for (i = 0; i < k; i++)
		f1_hrt_start(&s->timers[r->popped[i]], r->refill[i]);
	return div_u64((s->last - s->first) * k, k - 1);
}

static void f1_hrt_teardown(struct f1_run *r)
{
	f1_hrt_free(r, r->priv);
	r->priv = NULL;
}

const struct f1_variant f1_hrtimer = {
	.name = "hrtimer",
	.setup = f1_hrt_setup,
	.pairs = f1_hrt_pairs,
	.pops = f1_hrt_pops,
	.teardown = f1_hrt_teardown,
};
