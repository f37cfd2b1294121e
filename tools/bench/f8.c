// SPDX-License-Identifier: GPL-2.0
/*
 * F8: dwq against the timer facilities a module author would otherwise
 * use, doing the same job: delayed_work on a WQ_UNBOUND workqueue,
 * timer_list, hrtimer, hrtimer + queue_work (the hrtimer's callback queues
 * a work item) and kthread_delayed_work on a kthread_worker.
 *
 * This file: at N = 1k, 100k and 1M pending objects (tiny: 1k), each one
 * allocated from a kmem_cache of its own of the facility's struct, armed
 * 60 s to 660 s ahead (so the timer wheel files them on its outer
 * levels), the ns per operation of
 *   - pair: a new object armed, then a pending one (at random, among the
 *     N + 1) cancelled: N stays N;
 *   - rearm: a pending object moved to a new deadline as the facility
 *     does it (mod_delayed_work, mod_timer, hrtimer_start on an armed
 *     one, kthread_mod_delayed_work, dwq_reschedule; dwq_mod as dwq-mod,
 *     on other objects and delays drawn for it, in a loop of its own);
 *   - head: an idle object armed 5 s to 15 s ahead, before every pending
 *     one and before the head before it (the new earliest deadline), then
 *     cancelled; a different object each time, from a pool of one per
 *     operation taken in random order, so that each head, like each
 *     pair's victim, is an object the loop has not touched yet;
 * and the bytes per pending object: the object's size in its kmem_cache,
 * plus for dwq the heap's array (ksize(), or the pages of a vmalloc'ed
 * one) over N. Every variant gets the same seeded delays and victims;
 * they run one after the other, their order rotated by the repetition.
 * Delays are relative, as each API takes them: ns for dwq (no
 * DWQ_SCHED_ABS) and hrtimers (HRTIMER_MODE_REL), jiffies for the others.
 * Cancels are the ones that do not wait for a running callback, except
 * kthread_delayed_work's, which has no other.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <dwq.h>

#include "bench.h"
#include "compat.h"
#include "dwq_internal.h"
#include "f8.h"
#include "markers.h"

static const unsigned int f8_sizes_full[] = { 1000, 100000, 1000000 };
static const unsigned int f8_sizes_tiny[] = { 1000 };

/* Timed operations per loop. */
#define F8_OPS_FULL 10000U
#define F8_OPS_TINY 500U

/*
 * Pending objects are due 60 s to 660 s ahead. The i-th of the @ops new
 * heads is due F8_HEAD_MS + @ops - i ms ahead: each one earlier than the
 * one before (more so than the time a head takes), so that whatever waits
 * for the earliest deadline (dwq's leader, the clock event device) has to
 * be moved for every one, not only for the first.
 */
#define F8_AHEAD_MS 60000U
#define F8_SPREAD_MS 600000U
#define F8_HEAD_MS 5000U

/* Callbacks that ran: none should (a deadline reached mid-figure). */
static atomic_t f8_fired;

static char *f8_prof;
module_param(f8_prof, charp, 0444);
/* clang-format off */
MODULE_PARM_DESC(f8_prof, "profile one F8 loop: VARIANT:LOOP:N:OPS (LOOP pair, rearm, mod or head), alone, between the markers of make profile");
/* clang-format on */

/**
 * struct f8_prof - the loop f8_prof= asks for (make profile MODE=f8:...)
 * @variant: its variant's name (f8_variants[])
 * @loop: F8_LOOP_*
 * @n: pending objects
 * @ops: the loop's operations, all of them counted
 */
struct f8_prof {
	char variant[32];
	unsigned int loop;
	unsigned int n;
	unsigned int ops;
};

/* The timed loops of f8_one(), in its order. */
enum { F8_LOOP_PAIR, F8_LOOP_REARM, F8_LOOP_MOD, F8_LOOP_HEAD, F8_LOOPS };

static const char *const f8_loop_names[F8_LOOPS] = {
	[F8_LOOP_PAIR] = "pair",
	[F8_LOOP_REARM] = "rearm",
	[F8_LOOP_MOD] = "mod",
	[F8_LOOP_HEAD] = "head",
};

/**
 * struct f8_key - one delay, in the units of every API
 * @ns: for dwq and hrtimers
 * @j: jiffies, for the others
 */
struct f8_key {
	u64 ns;
	unsigned long j;
};

/**
 * struct f8_keys - one repetition's input at one N
 * @fill: N delays to set up with
 * @pair: a delay per pair
 * @victim: per pair, the object to cancel, 0..N
 * @rearm: a new delay per re-arm
 * @moved: per re-arm, the pending object to move, 0..N - 1
 * @head: per new head, its delay: each one earlier than the one before
 * @head_obj: per new head, the idle object (of @ops) it arms and cancels:
 *	a permutation, so that each new head touches an object the loop has
 *	not touched yet, as each pair cancels one at random
 * @mod_rearm: a new delay per re-arm by dwq_mod(), drawn apart from
 *	@rearm so that its loop, which runs after dwq_reschedule()'s, moves
 *	other tasks by other amounts than the ones just moved
 * @mod_moved: per dwq_mod() re-arm, the pending object to move
 */
struct f8_keys {
	struct f8_key *fill;
	struct f8_key *pair;
	u32 *victim;
	struct f8_key *rearm;
	u32 *moved;
	struct f8_key *head;
	u32 *head_obj;
	struct f8_key *mod_rearm;
	u32 *mod_moved;
};

/**
 * struct f8_set - one variant set up at one N
 * @c: the shared workqueue and kthread_worker
 * @n: pending objects
 * @obj: @n + 1 objects; @obj[@n] is the spare (not armed)
 * @cache: where the objects come from
 * @q: dwq's queue (dwq variants)
 * @pool: idle objects for the new-head loop, one per operation
 * @npool: objects made in @pool
 * @bad: calls that did not return what a pending (or idle) object gives:
 *	the figure fails rather than report them
 */
struct f8_set {
	struct f8_ctx *c;
	unsigned int n;
	void **obj;
	struct kmem_cache *cache;
	struct dwq_queue *q;
	void **pool;
	unsigned int npool;
	unsigned int bad;
};

static struct f8_key f8_key_ms(u64 ms, u32 extra_ns)
{
	u64 ns = ms * NSEC_PER_MSEC + extra_ns;

	return (struct f8_key){ .ns = ns, .j = nsecs_to_jiffies(ns) };
}

static struct f8_key f8_key_rnd(struct rnd_state *rnd)
{
	return f8_key_ms(F8_AHEAD_MS + bench_rnd_below(rnd, F8_SPREAD_MS),
			 bench_rnd_below(rnd, NSEC_PER_MSEC));
}

static void f8_keys_free(struct f8_keys *k)
{
	kvfree(k->fill);
	kvfree(k->pair);
	kvfree(k->victim);
	kvfree(k->rearm);
	kvfree(k->moved);
	kvfree(k->head);
	kvfree(k->head_obj);
	kvfree(k->mod_rearm);
	kvfree(k->mod_moved);
}

static int f8_keys_make(struct f8_keys *k, unsigned int rep, unsigned int n,
			unsigned int ops)
{
	struct rnd_state rnd;
	unsigned int i;

	k->fill = kvmalloc_array(n, sizeof(*k->fill), GFP_KERNEL);
	k->pair = kvmalloc_array(ops, sizeof(*k->pair), GFP_KERNEL);
	k->victim = kvmalloc_array(ops, sizeof(*k->victim), GFP_KERNEL);
	k->rearm = kvmalloc_array(ops, sizeof(*k->rearm), GFP_KERNEL);
	k->moved = kvmalloc_array(ops, sizeof(*k->moved), GFP_KERNEL);
	k->head = kvmalloc_array(ops, sizeof(*k->head), GFP_KERNEL);
	k->head_obj = kvmalloc_array(ops, sizeof(*k->head_obj), GFP_KERNEL);
	k->mod_rearm = kvmalloc_array(ops, sizeof(*k->mod_rearm), GFP_KERNEL);
	k->mod_moved = kvmalloc_array(ops, sizeof(*k->mod_moved), GFP_KERNEL);
	if (!k->fill || !k->pair || !k->victim || !k->rearm || !k->moved ||
	    !k->head || !k->head_obj || !k->mod_rearm || !k->mod_moved) {
		f8_keys_free(k);
		pr_err("F8: no memory for the keys of N=%u\n", n);
		return -ENOMEM;
	}
	bench_rnd_init(&rnd, 8, rep, n);
	for (i = 0; i < n; i++)
		k->fill[i] = f8_key_rnd(&rnd);
	for (i = 0; i < ops; i++) {
		k->pair[i] = f8_key_rnd(&rnd);
		k->victim[i] = bench_rnd_below(&rnd, n + 1);
		k->rearm[i] = f8_key_rnd(&rnd);
		k->moved[i] = bench_rnd_below(&rnd, n);
		k->head[i] = f8_key_ms(F8_HEAD_MS + ops - i, 0);
	}
	/* Drawn after the others, which stay what they were. */
	for (i = 0; i < ops; i++) {
		k->mod_rearm[i] = f8_key_rnd(&rnd);
		k->mod_moved[i] = bench_rnd_below(&rnd, n);
		k->head_obj[i] = i;
	}
	for (i = ops - 1; i > 0; i--)
		swap(k->head_obj[i], k->head_obj[bench_rnd_below(&rnd, i + 1)]);
	return 0;
}

/* --- the facilities, one set of inline operations each ---------------- */

static void f8_dwq_fn(struct dwq_task *task)
{
	atomic_inc(&f8_fired);
}

static void f8_work_fn(struct work_struct *work)
{
	atomic_inc(&f8_fired);
}

static void f8_timer_fn(struct timer_list *t)
{
	atomic_inc(&f8_fired);
}

static enum hrtimer_restart f8_hrtimer_fn(struct hrtimer *t)
{
	atomic_inc(&f8_fired);
	return HRTIMER_NORESTART;
}

static void f8_kwork_fn(struct kthread_work *work)
{
	atomic_inc(&f8_fired);
}

/* dwq: a task (dwq_task_init's reference is the bench's). */
static inline void f8_dwq_arm(struct f8_set *s, void *o, const struct f8_key *k)
{
	struct dwq_sched sc = { .time_ns = k->ns, .mode = DWQ_MODE_ONESHOT };

	s->bad += dwq_schedule(s->q, o, &sc) != 0;
}

static inline void f8_dwq_cancel(struct f8_set *s, void *o)
{
	s->bad += dwq_cancel(o) != DWQ_RESULT_REMOVED;
}

static inline void f8_dwq_rearm(struct f8_set *s, void *o,
				const struct f8_key *k)
{
	struct dwq_sched sc = { .time_ns = k->ns, .mode = DWQ_MODE_ONESHOT };

	s->bad += dwq_reschedule(o, &sc) != 0;
}

#ifdef F8_HAVE_DWQ_MOD
static inline void f8_dwqmod_rearm(struct f8_set *s, void *o,
				   const struct f8_key *k)
{
	struct dwq_sched sc = { .time_ns = k->ns, .mode = DWQ_MODE_ONESHOT };

	s->bad += dwq_mod(s->q, o, &sc) < 0;
}
#endif

/* delayed_work on the WQ_UNBOUND workqueue. */
static inline void f8_dw_arm(struct f8_set *s, void *o, const struct f8_key *k)
{
	s->bad += !queue_delayed_work(s->c->wq, o, k->j);
}

static inline void f8_dw_cancel(struct f8_set *s, void *o)
{
	s->bad += !cancel_delayed_work(o);
}

static inline void f8_dw_rearm(struct f8_set *s, void *o,
			       const struct f8_key *k)
{
	s->bad += !mod_delayed_work(s->c->wq, o, k->j);
}

/* timer_list. */
static inline void f8_tl_arm(struct f8_set *s, void *o, const struct f8_key *k)
{
	s->bad += mod_timer(o, jiffies + k->j) != 0;
}

static inline void f8_tl_cancel(struct f8_set *s, void *o)
{
	s->bad += timer_delete(o) != 1;
}

static inline void f8_tl_rearm(struct f8_set *s, void *o,
			       const struct f8_key *k)
{
	s->bad += mod_timer(o, jiffies + k->j) != 1;
}

/* hrtimer, CLOCK_MONOTONIC, relative. */
static inline void f8_hr_arm(struct f8_set *s, void *o, const struct f8_key *k)
{
	hrtimer_start(o, ns_to_ktime(k->ns), HRTIMER_MODE_REL);
}

static inline void f8_hr_cancel(struct f8_set *s, void *o)
{
	s->bad += hrtimer_try_to_cancel(o) != 1;
}

/**
 * struct f8_hrwq - an hrtimer whose callback queues a work item
 * @t: the timer
 * @w: the work, queued on system_wq (as schedule_work() does)
 */
struct f8_hrwq {
	struct hrtimer t;
	struct work_struct w;
};

static enum hrtimer_restart f8_hrwq_fn(struct hrtimer *t)
{
	queue_work(system_wq, &container_of(t, struct f8_hrwq, t)->w);
	return HRTIMER_NORESTART;
}

static inline void f8_hw_arm(struct f8_set *s, void *o, const struct f8_key *k)
{
	hrtimer_start(&((struct f8_hrwq *)o)->t, ns_to_ktime(k->ns),
		      HRTIMER_MODE_REL);
}

/* The timer, and the work in case the timer had just queued it. */
static inline void f8_hw_cancel(struct f8_set *s, void *o)
{
	struct f8_hrwq *x = o;

	s->bad += hrtimer_try_to_cancel(&x->t) != 1;
	cancel_work(&x->w);
}

static inline void f8_hw_rearm(struct f8_set *s, void *o,
			       const struct f8_key *k)
{
	f8_hw_arm(s, o, k);
}

/* kthread_delayed_work on the shared kthread_worker. */
static inline void f8_kd_arm(struct f8_set *s, void *o, const struct f8_key *k)
{
	s->bad += !kthread_queue_delayed_work(s->c->kw, o, k->j);
}

static inline void f8_kd_cancel(struct f8_set *s, void *o)
{
	s->bad += !kthread_cancel_delayed_work_sync(o);
}

static inline void f8_kd_rearm(struct f8_set *s, void *o,
			       const struct f8_key *k)
{
	s->bad += !kthread_mod_delayed_work(s->c->kw, o, k->j);
}

/*
 * The timed loops of a variant, with its operations called directly (no
 * indirect call in the loop): @ops pairs, re-arms, or new heads.
 */
#define F8_LOOP_PAIR(v, ARM, CANCEL)                           \
	static u64 f8_##v##_loop_pair(struct f8_set *s,        \
				      const struct f8_keys *k, \
				      unsigned int ops)        \
	{                                                      \
		void **o = s->obj, *x;                         \
		unsigned int i, n = s->n;                      \
		u64 t0 = ktime_get_ns();                       \
		for (i = 0; i < ops; i++) {                    \
			ARM(s, o[n], &k->pair[i]);             \
			x = o[k->victim[i]];                   \
			CANCEL(s, x);                          \
			o[k->victim[i]] = o[n];                \
			o[n] = x;                              \
		}                                              \
		return ktime_get_ns() - t0;                    \
	}

#define F8_LOOP_REARM(v, REARM)                                      \
	static u64 f8_##v##_loop_rearm(struct f8_set *s,             \
				       const struct f8_keys *k,      \
				       unsigned int ops)             \
	{                                                            \
		unsigned int i;                                      \
		u64 t0 = ktime_get_ns();                             \
		for (i = 0; i < ops; i++)                            \
			REARM(s, s->obj[k->moved[i]], &k->rearm[i]); \
		return ktime_get_ns() - t0;                          \
	}

#define F8_LOOP_HEAD(v, ARM, CANCEL)                           \
	static u64 f8_##v##_loop_head(struct f8_set *s,        \
				      const struct f8_keys *k, \
				      unsigned int ops)        \
	{                                                      \
		unsigned int i;                                \
		u64 t0 = ktime_get_ns();                       \
		void *o;                                       \
		for (i = 0; i < ops; i++) {                    \
			o = s->pool[k->head_obj[i]];           \
			ARM(s, o, &k->head[i]);                \
			CANCEL(s, o);                          \
		}                                              \
		return ktime_get_ns() - t0;                    \
	}

F8_LOOP_PAIR(dwq, f8_dwq_arm, f8_dwq_cancel)
F8_LOOP_REARM(dwq, f8_dwq_rearm)
F8_LOOP_HEAD(dwq, f8_dwq_arm, f8_dwq_cancel)
F8_LOOP_PAIR(dw, f8_dw_arm, f8_dw_cancel)
F8_LOOP_REARM(dw, f8_dw_rearm)
F8_LOOP_HEAD(dw, f8_dw_arm, f8_dw_cancel)
F8_LOOP_PAIR(tl, f8_tl_arm, f8_tl_cancel)
F8_LOOP_REARM(tl, f8_tl_rearm)
F8_LOOP_HEAD(tl, f8_tl_arm, f8_tl_cancel)
F8_LOOP_PAIR(hr, f8_hr_arm, f8_hr_cancel)
F8_LOOP_REARM(hr, f8_hr_arm)
F8_LOOP_HEAD(hr, f8_hr_arm, f8_hr_cancel)
F8_LOOP_PAIR(hw, f8_hw_arm, f8_hw_cancel)
F8_LOOP_REARM(hw, f8_hw_rearm)
F8_LOOP_HEAD(hw, f8_hw_arm, f8_hw_cancel)
F8_LOOP_PAIR(kd, f8_kd_arm, f8_kd_cancel)
F8_LOOP_REARM(kd, f8_kd_rearm)
F8_LOOP_HEAD(kd, f8_kd_arm, f8_kd_cancel)

#ifdef F8_HAVE_DWQ_MOD
static u64 f8_dwqmod_rearm_loop(struct f8_set *s, const struct f8_keys *k,
				unsigned int ops)
{
	unsigned int i;
	u64 t0 = ktime_get_ns();

	for (i = 0; i < ops; i++)
		f8_dwqmod_rearm(s, s->obj[k->mod_moved[i]], &k->mod_rearm[i]);
	return ktime_get_ns() - t0;
}
#endif

/* Setting up, arming for the set-up and tearing down: not timed. */

static void f8_dwq_init(void *o)
{
	dwq_task_init(o, f8_dwq_fn, NULL);
	dwq_task_set_quick(o, true);
}

static void f8_dwq_fini(void *o)
{
	dwq_task_put(o);
}

static void f8_dw_init(void *o)
{
	INIT_DELAYED_WORK((struct delayed_work *)o, f8_work_fn);
}

static void f8_dw_fini(void *o)
{
	cancel_delayed_work_sync(o);
}

static void f8_tl_init(void *o)
{
	timer_setup((struct timer_list *)o, f8_timer_fn, 0);
}

static void f8_tl_fini(void *o)
{
	timer_delete_sync(o);
}

static void f8_hr_init(void *o)
{
	hrtimer_setup(o, f8_hrtimer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}

static void f8_hr_fini(void *o)
{
	hrtimer_cancel(o);
}

static void f8_hw_init(void *o)
{
	struct f8_hrwq *x = o;

	hrtimer_setup(&x->t, f8_hrwq_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	INIT_WORK(&x->w, f8_work_fn);
}

static void f8_hw_fini(void *o)
{
	struct f8_hrwq *x = o;

	hrtimer_cancel(&x->t);
	cancel_work_sync(&x->w);
}

static void f8_kd_init(void *o)
{
	kthread_init_delayed_work((struct kthread_delayed_work *)o,
				  f8_kwork_fn);
}

static void f8_kd_fini(void *o)
{
	kthread_cancel_delayed_work_sync(o);
}

/* Is @p, vmalloc()'ed, mapped with 2 MB pages? */
static bool f8_huge_mapped(const void *p)
{
#ifdef CONFIG_X86
	unsigned int level;

	return lookup_address((unsigned long)p, &level) && level == PG_LEVEL_2M;
#else
	return false;
#endif
}

/*
 * The heap's array in bytes: what it was allocated with. A vmalloc()'ed
 * array takes whole pages; one that kvmalloc() mapped with 2 MB pages
 * (from 2 MB up) takes whole 2 MB pages, which its first page's mapping
 * shows.
 */
static u64 f8_dwq_heap_bytes(struct dwq_queue *q)
{
	const struct dwq_heap_slot *slots;
	unsigned long flags;
	u64 bytes;

	raw_spin_lock_irqsave(&q->lock, flags);
	slots = q->heap.slots;
	bytes = (u64)q->heap.cap * sizeof(*slots);
	if (!is_vmalloc_addr(slots))
		bytes = ksize(slots);
	else if (f8_huge_mapped(slots))
		bytes = ALIGN(bytes, PMD_SIZE);
	else
		bytes = PAGE_ALIGN(bytes);
	raw_spin_unlock_irqrestore(&q->lock, flags);
	return bytes;
}

/**
 * struct f8_variant - one facility
 * @name: the variant's name in the CSV
 * @size: the object's struct
 * @dwq: it needs a dwq queue
 * @init: initialises an object
 * @arm: arms an object for the set-up
 * @fini: makes an object idle before it is freed (waits for a callback)
 * @pair: the timed pair loop
 * @rearm: the timed re-arm loop
 * @head: the timed new-head loop
 */
struct f8_variant {
	const char *name;
	size_t size;
	bool dwq;
	void (*init)(void *o);
	void (*arm)(struct f8_set *s, void *o, const struct f8_key *k);
	void (*fini)(void *o);
	u64 (*pair)(struct f8_set *s, const struct f8_keys *k,
		    unsigned int ops);
	u64 (*rearm)(struct f8_set *s, const struct f8_keys *k,
		     unsigned int ops);
	u64 (*head)(struct f8_set *s, const struct f8_keys *k,
		    unsigned int ops);
};

#define F8_VARIANT(nm, v, type, isdwq)                                   \
	{                                                                \
		.name = nm, .size = sizeof(type), .dwq = isdwq,          \
		.init = f8_##v##_init, .arm = f8_##v##_arm,              \
		.fini = f8_##v##_fini, .pair = f8_##v##_loop_pair,       \
		.rearm = f8_##v##_loop_rearm, .head = f8_##v##_loop_head \
	}

static const struct f8_variant f8_variants[] = {
	F8_VARIANT("dwq", dwq, struct dwq_task, true),
	F8_VARIANT("delayed_work", dw, struct delayed_work, false),
	F8_VARIANT("timer_list", tl, struct timer_list, false),
	F8_VARIANT("hrtimer", hr, struct hrtimer, false),
	F8_VARIANT("hrtimer-queue_work", hw, struct f8_hrwq, false),
	F8_VARIANT("kthread_delayed_work", kd, struct kthread_delayed_work,
		   false),
};

static void f8_set_free(struct f8_set *s, const struct f8_variant *v,
			unsigned int made)
{
	unsigned int i;

	for (i = 0; i < made; i++) {
		if (!v->dwq)
			v->fini(s->obj[i]);
		else
			dwq_cancel(s->obj[i]);
		if (!(i % 1024))
			cond_resched();
	}
	if (s->q)
		dwq_queue_destroy(s->q, DWQ_DESTROY_DROP);
	for (i = 0; i < made; i++) {
		if (v->dwq)
			v->fini(s->obj[i]);
		kmem_cache_free(s->cache, s->obj[i]);
	}
	/* The new-head loop's objects are idle: each was cancelled. */
	for (i = 0; i < s->npool; i++) {
		v->fini(s->pool[i]);
		kmem_cache_free(s->cache, s->pool[i]);
	}
	kmem_cache_destroy(s->cache);
	kvfree(s->obj);
	kvfree(s->pool);
}

/*
 * Run @loop; with @marked between the markers of the insn plugin, which
 * then counts this loop and nothing before or after it (make profile
 * MODE=f8:...). The loop times itself: the markers are outside its time.
 */
static u64 f8_loop(u64 (*loop)(struct f8_set *s, const struct f8_keys *k,
			       unsigned int ops),
		   struct f8_set *s, const struct f8_keys *k, unsigned int ops,
		   bool marked)
{
	u64 ns;

	if (marked)
		prof_mark_start();
	ns = loop(s, k, ops);
	if (marked)
		prof_mark_stop();
	return ns;
}

/*
 * One variant at one N: set up, the timed loops, the bytes, torn down.
 * @marked: the loop (F8_LOOP_*) to run between the profiler's markers, or
 * F8_LOOPS for none.
 */
static int f8_one(struct f8_ctx *c, const struct f8_variant *v,
		  const struct f8_keys *k, unsigned int n, unsigned int ops,
		  unsigned int rep, unsigned int marked)
{
	struct f8_set s = { .c = c, .n = n };
	u64 pair, rearm, head, heap = 0, mod = 0;
	unsigned int i, made = 0;
	int err = 0, fired;

	s.obj = kvcalloc(n + 1, sizeof(*s.obj), GFP_KERNEL);
	s.pool = kvcalloc(ops, sizeof(*s.pool), GFP_KERNEL);
	s.cache = kmem_cache_create("dwq_bench_f8", v->size, 0, 0, NULL);
	if (!s.obj || !s.pool || !s.cache) {
		err = -ENOMEM;
		goto out;
	}
	if (v->dwq) {
		s.q = dwq_queue_create("bench", c->workers, 0);
		if (IS_ERR(s.q)) {
			err = PTR_ERR(s.q);
			s.q = NULL;
			pr_err("F8: dwq_queue_create: %d\n", err);
			goto out;
		}
		/* Scheduling does not allocate: room made ahead, untimed. */
		err = dwq_queue_reserve(s.q, n + 1);
		if (err) {
			pr_err("F8: dwq_queue_reserve(%u): %d\n", n + 1, err);
			goto out;
		}
	}
	for (; made < n + 1; made++) {
		s.obj[made] = kmem_cache_alloc(s.cache, GFP_KERNEL);
		if (!s.obj[made]) {
			err = -ENOMEM;
			goto out;
		}
		v->init(s.obj[made]);
	}
	for (; s.npool < ops; s.npool++) {
		s.pool[s.npool] = kmem_cache_alloc(s.cache, GFP_KERNEL);
		if (!s.pool[s.npool]) {
			err = -ENOMEM;
			goto out;
		}
		v->init(s.pool[s.npool]);
	}
	atomic_set(&f8_fired, 0);
	for (i = 0; i < n; i++) {
		v->arm(&s, s.obj[i], &k->fill[i]);
		if (!(i % 1024))
			cond_resched();
	}
	if (s.bad) {
		pr_err("F8: %s: %u of %u failed to arm\n", v->name, s.bad, n);
		err = -EIO;
		goto out;
	}
	if (s.q)
		heap = f8_dwq_heap_bytes(s.q);
	/*
	 * The arrays the figures before this one freed (keys, object
	 * pointers, dwq's heap) are vmalloc'ed, and the kernel unmaps freed
	 * vmalloc areas lazily, in a work item that runs when enough have
	 * piled up: in whichever variant's timed loops happen to be running
	 * then. Purged here, untimed, for every variant alike.
	 */
	vm_unmap_aliases();
	cond_resched();
	migrate_disable();
	pair = f8_loop(v->pair, &s, k, ops, marked == F8_LOOP_PAIR);
	cond_resched();
	rearm = f8_loop(v->rearm, &s, k, ops, marked == F8_LOOP_REARM);
	cond_resched();
#ifdef F8_HAVE_DWQ_MOD
	if (v->dwq)
		mod = f8_loop(f8_dwqmod_rearm_loop, &s, k, ops,
			      marked == F8_LOOP_MOD);
	cond_resched();
#endif
	head = f8_loop(v->head, &s, k, ops, marked == F8_LOOP_HEAD);
	migrate_enable();
	fired = atomic_read(&f8_fired);
	if (s.bad || fired) {
		pr_err("F8: %s, N=%u: %u calls failed, %d callbacks ran\n",
		       v->name, n, s.bad, fired);
		err = -EIO;
		goto out;
	}
	err = bench_row_ratio("F8", v->name, n, "pair", "ns", rep, pair, ops,
			      1);
	err = err   ?:
		      bench_row_ratio("F8", v->name, n, "rearm", "ns", rep,
				      rearm, ops, 1);
	err = err   ?:
		      bench_row_ratio("F8", v->name, n, "head", "ns", rep, head,
				      ops, 1);
	if (mod)
		err = err   ?:
			      bench_row_ratio("F8", "dwq-mod", n, "rearm", "ns",
					      rep, mod, ops, 1);
	err = err   ?:
		      bench_row_u64("F8", v->name, n, "bytes_object", "bytes",
				    rep, kmem_cache_size(s.cache));
	if (s.q)
		err = err   ?:
			      bench_row_ratio("F8", v->name, n, "bytes_heap",
					      "bytes", rep, heap, n, 1);
	err = err   ?:
		      bench_row_ratio("F8", v->name, n, "bytes", "bytes", rep,
				      kmem_cache_size(s.cache) * (u64)n + heap,
				      n, 1);
out:
	f8_set_free(&s, v, made);
	return err;
}

/*
 * Parse f8_prof= into @p. Return: the index of its variant in f8_variants[],
 * or -EINVAL, said why, if it names no loop.
 */
static int f8_prof_parse(const char *arg, struct f8_prof *p)
{
	char loop[8], extra;
	unsigned int i;

	if (sscanf(arg, "%31[^:]:%7[^:]:%u:%u%c", p->variant, loop, &p->n,
		   &p->ops, &extra) != 4 ||
	    !p->n || p->n > 10000000 || !p->ops || p->ops > 10000000)
		goto bad;
	for (p->loop = 0; p->loop < F8_LOOPS; p->loop++)
		if (!strcmp(loop, f8_loop_names[p->loop]))
			break;
	for (i = 0; i < ARRAY_SIZE(f8_variants); i++)
		if (!strcmp(p->variant, f8_variants[i].name))
			break;
	if (p->loop == F8_LOOPS || i == ARRAY_SIZE(f8_variants))
		goto bad;
#ifdef F8_HAVE_DWQ_MOD
	if (p->loop == F8_LOOP_MOD && !f8_variants[i].dwq)
		goto bad;
#else
	if (p->loop == F8_LOOP_MOD)
		goto bad;
#endif
	return i;
bad:
	pr_err("f8_prof=%s: VARIANT:LOOP:N:OPS, a variant of F8, LOOP pair, rearm, mod (dwq only) or head, N and OPS 1..10000000\n",
	       arg);
	return -EINVAL;
}

/*
 * f8_prof=: one variant at one N, set up as F8 does, every loop run in
 * F8's order and the one asked for between the profiler's markers.
 */
static int f8_prof_run(struct f8_ctx *c)
{
	struct f8_prof p;
	struct f8_keys k;
	int v, err;

	v = f8_prof_parse(f8_prof, &p);
	if (v < 0)
		return v;
	err = f8_keys_make(&k, 0, p.n, p.ops);
	if (err)
		return err;
	pr_info("F8: profiling %s's %s loop, N=%u, %u operations\n", p.variant,
		f8_loop_names[p.loop], p.n, p.ops);
	err = f8_one(c, &f8_variants[v], &k, p.n, p.ops, 0, p.loop);
	f8_keys_free(&k);
	return err;
}

int f8_arm_figure(struct f8_ctx *c)
{
	const unsigned int *sizes = bench_cfg.full ? f8_sizes_full :
						     f8_sizes_tiny;
	unsigned int nsizes = bench_cfg.full ? ARRAY_SIZE(f8_sizes_full) :
					       ARRAY_SIZE(f8_sizes_tiny);
	unsigned int ops = bench_cfg.full ? F8_OPS_FULL : F8_OPS_TINY;
	unsigned int nv = ARRAY_SIZE(f8_variants);
	unsigned int rep, si, i;
	struct f8_keys k;
	int err = 0;

	if (f8_prof)
		return f8_prof_run(c);
	err = bench_row_u64("env", "f8", 0, "ahead", "ns", 0,
			    F8_AHEAD_MS * NSEC_PER_MSEC);
	err = err   ?:
		      bench_row_u64("env", "f8", 0, "spread", "ns", 0,
				    F8_SPREAD_MS * NSEC_PER_MSEC);
	err = err   ?:
		      bench_row_u64("env", "f8", 0, "head", "ns", 0,
				    F8_HEAD_MS * NSEC_PER_MSEC);
	err = err ?: bench_row_u64("env", "f8", 0, "ops", "count", 0, ops);
	for (rep = 0; rep < bench_cfg.reps && !err; rep++) {
		for (si = 0; si < nsizes && !err; si++) {
			err = f8_keys_make(&k, rep, sizes[si], ops);
			if (err)
				break;
			for (i = 0; i < nv && !err; i++)
				err = f8_one(c, &f8_variants[(i + rep) % nv],
					     &k, sizes[si], ops, rep, F8_LOOPS);
			f8_keys_free(&k);
		}
		pr_info("F8: arm/cancel: repetition %u of %u done\n", rep + 1,
			bench_cfg.reps);
	}
	return err;
}

/* Like kernel/time/timer.c's calc_wheel_index() and calc_index(). */
unsigned long f8_wheel_slack(unsigned long expires, unsigned long clk)
{
	const unsigned int clk_shift = 3, lvl_bits = 6;
	const unsigned int depth = HZ > 100 ? 9 : 8;
	unsigned long delta = expires - clk, bucket;
	unsigned int lvl;

	if ((long)delta < 0)
		return 0;
	for (lvl = 0; lvl < depth - 1; lvl++)
		if (delta < ((1UL << lvl_bits) - 1) << (lvl * clk_shift))
			break;
	bucket = ((expires >> (lvl * clk_shift)) + 1) << (lvl * clk_shift);
	return bucket - expires;
}

int bench_f8(void)
{
	struct f8_ctx c = {
		.workers = min(num_online_cpus(), DWQ_MAX_WORKERS),
	};
	int err;

	c.wq = alloc_workqueue("dwq_bench_f8", WQ_UNBOUND, 0);
	if (!c.wq) {
		pr_err("F8: alloc_workqueue failed\n");
		return -ENOMEM;
	}
	c.kw = kthread_create_worker(0, "dwq_bench_f8");
	if (IS_ERR(c.kw)) {
		err = PTR_ERR(c.kw);
		pr_err("F8: kthread_create_worker: %d\n", err);
		goto out_wq;
	}
	/* Since 6.13 kthread_create_worker() leaves it asleep. */
	wake_up_process(c.kw->task);
	err = f8_arm_figure(&c);
	/* A profile (f8_prof=) is of one loop of the arm figure's. */
	if (!f8_prof)
		err = err ?: f8_late_figure(&c);
	kthread_destroy_worker(c.kw);
out_wq:
	destroy_workqueue(c.wq);
	return err;
}
