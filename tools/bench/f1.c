// SPDX-License-Identifier: GPL-2.0
/*
 * F1: ns per schedule + cancel pair and ns per pop at N = 1k, 100k and 1M
 * pending, for dwq's heap (2-ary and 4-ary, keys inline and through the
 * node pointer) and the kernel's timerqueue, min_heap and hrtimers, with
 * the loops' floor: the same loops and locks with no queue.
 *
 * For every repetition and every N, the keys come from one seeded
 * generator, so that every variant sees the same keys and cancels the same
 * items; the variants then run one after the other, in an order rotated by
 * the repetition. Each one is set up with N items queued (not timed), then
 * timed over @pairs pairs (insert the spare item, cancel a random item of
 * the N + 1, which becomes the spare: N stays N), then over at least
 * F1_POPS pops, taken in rounds of N / 10 (at most 10k) with the popped
 * items queued again, untimed, between rounds: the queue stays between
 * 0.9 N and N. The whole figure runs on one CPU (migrate_disable()): the
 * hrtimers are pinned to it.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "bench.h"
#include "f1.h"

static const struct f1_variant *const f1_variants[] = {
	&f1_floor,    &f1_h2i, &f1_h2p, &f1_h4i, &f1_h4p, &f1_timerqueue,
#ifdef F1_HAVE_MIN_HEAP
	&f1_min_heap,
#endif
	&f1_hrtimer,
};

static const unsigned int f1_sizes_full[] = { 1000, 100000, 1000000 };
static const unsigned int f1_sizes_tiny[] = { 1000 };

/* Pops per timing at most in one round, and in all (full scale). */
#define F1_ROUND_MAX 10000U
#define F1_POPS 10000U
#define F1_PAIRS 10000U

/* Keys are 1000 s ahead (hrtimers must not expire) and spread over 68 s. */
#define F1_KEY_AHEAD (1000ULL * NSEC_PER_SEC)
#define F1_KEY_SHIFT 4

/**
 * struct f1_keys - the pseudo-random input of one repetition at one N
 * @fill: N + 1 keys to set up with
 * @keys: a key per pair
 * @victims: an item per pair
 * @refill: a key per pop
 */
struct f1_keys {
	u64 *fill;
	u64 *keys;
	u32 *victims;
	u64 *refill;
};

static void f1_keys_free(struct f1_keys *k)
{
	kvfree(k->fill);
	kvfree(k->keys);
	kvfree(k->victims);
	kvfree(k->refill);
}

static int f1_keys_make(struct f1_keys *k, unsigned int rep, unsigned int n,
			unsigned int pairs, unsigned int pops)
{
	u64 base = ktime_get_ns() + F1_KEY_AHEAD;
	struct rnd_state rnd;
	unsigned int i;

	k->fill = kvmalloc_array(n + 1, sizeof(*k->fill), GFP_KERNEL);
	k->keys = kvmalloc_array(pairs, sizeof(*k->keys), GFP_KERNEL);
	k->victims = kvmalloc_array(pairs, sizeof(*k->victims), GFP_KERNEL);
	k->refill = kvmalloc_array(pops, sizeof(*k->refill), GFP_KERNEL);
	if (!k->fill || !k->keys || !k->victims || !k->refill) {
		f1_keys_free(k);
		return -ENOMEM;
	}
	bench_rnd_init(&rnd, 1, rep, n);
	for (i = 0; i <= n; i++)
		k->fill[i] =
			base + ((u64)prandom_u32_state(&rnd) << F1_KEY_SHIFT);
	for (i = 0; i < pairs; i++) {
		k->keys[i] =
			base + ((u64)prandom_u32_state(&rnd) << F1_KEY_SHIFT);
		k->victims[i] = bench_rnd_below(&rnd, n + 1);
	}
	for (i = 0; i < pops; i++)
		k->refill[i] =
			base + ((u64)prandom_u32_state(&rnd) << F1_KEY_SHIFT);
	return 0;
}

/* One variant at one N: set up, time the pairs and the pops, tear down. */
static int f1_one(const struct f1_variant *v, struct f1_run *r,
		  const struct f1_keys *k, unsigned int rep, unsigned int pops)
{
	unsigned int round = clamp(r->n / 10, 2U, F1_ROUND_MAX);
	u64 t0, pair_ns, pop_ns = 0;
	unsigned int done = 0;
	s64 ns;
	int err;

	r->fill = k->fill;
	r->keys = k->keys;
	r->victims = k->victims;
	r->spare = r->n;
	err = v->setup(r);
	if (err) {
		pr_err("F1 %s: setting up %u items failed: %d\n", v->name, r->n,
		       err);
		return err;
	}
	cond_resched();

	t0 = ktime_get_ns();
	v->pairs(r);
	pair_ns = ktime_get_ns() - t0;
	cond_resched();

	while (done < pops) {
		r->refill = k->refill + done;
		ns = v->pops(r, min(round, pops - done));
		if (ns < 0) {
			pr_err("F1 %s: pops at %u failed: %lld\n", v->name,
			       r->n, ns);
			err = ns;
			goto out;
		}
		pop_ns += ns;
		done += min(round, pops - done);
		cond_resched();
	}

	err = bench_row_ratio("F1", v->name, r->n, "pair", "ns", rep, pair_ns,
			      r->pairs, 1);
	if (!err)
		err = bench_row_ratio("F1", v->name, r->n, "pop", "ns", rep,
				      pop_ns, done, 1);
out:
	v->teardown(r);
	cond_resched();
	return err;
}

int bench_f1(void)
{
	const unsigned int *sizes = bench_cfg.full ? f1_sizes_full :
						     f1_sizes_tiny;
	unsigned int nsizes = bench_cfg.full ? ARRAY_SIZE(f1_sizes_full) :
					       ARRAY_SIZE(f1_sizes_tiny);
	unsigned int pairs = bench_cfg.full ? F1_PAIRS : F1_PAIRS / 5;
	unsigned int pops = bench_cfg.full ? F1_POPS : F1_POPS / 10;
	unsigned int nv = ARRAY_SIZE(f1_variants);
	unsigned int rep, s, i;
	struct f1_keys k;
	struct f1_run r;
	u32 *popped;
	int err = 0;

	popped = kvmalloc_array(F1_ROUND_MAX, sizeof(*popped), GFP_KERNEL);
	if (!popped)
		return -ENOMEM;
	memset(&r, 0, sizeof(r));
	spin_lock_init(&r.lock);
	r.pairs = pairs;
	r.popped = popped;

	migrate_disable();
	for (rep = 0; rep < bench_cfg.reps && !err; rep++) {
		for (s = 0; s < nsizes && !err; s++) {
			r.n = sizes[s];
			err = f1_keys_make(&k, rep, r.n, pairs, pops);
			if (err)
				break;
			for (i = 0; i < nv && !err; i++)
				err = f1_one(f1_variants[(i + rep) % nv], &r,
					     &k, rep, pops);
			f1_keys_free(&k);
		}
		pr_info("F1: repetition %u of %u done\n", rep + 1,
			bench_cfg.reps);
	}
	migrate_enable();
	kvfree(popped);
	return err;
}
