// SPDX-License-Identifier: GPL-2.0
/*
 * F1 for dwq's heap: the four variants (2- and 4-ary, keys inline or
 * through the node pointer; see heap_variants.h), each driven by the loops
 * of f1_dwq_tmpl.h. The loops inline each variant's insert, remove and pop
 * (heap_4i.h: dwq.ko's heap.h itself; heap_param.h: the benchmark's
 * copies), as dwq.ko's queue inlines heap.h's and F1's min_heap rows
 * inline include/linux/min_heap.h's: only creating and destroying a heap
 * is a call into another file (heap_*.c).
 */
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "f1.h"
#include "heap_4i.h"
#include "heap_variants.h"

/* The benchmark's copies, inline (heap_param.h); heap_4i.h has h4i's. */
#define BENCH_HEAP_INLINE_ONLY
#define BENCH_HEAP_ARITY 2
#define BENCH_HEAP_INLINE_KEYS 1
#define BENCH_HEAP_PREFIX h2i
#include "heap_param.h"

#define BENCH_HEAP_INLINE_ONLY
#define BENCH_HEAP_ARITY 2
#define BENCH_HEAP_INLINE_KEYS 0
#define BENCH_HEAP_PREFIX h2p
#include "heap_param.h"

#define BENCH_HEAP_INLINE_ONLY
#define BENCH_HEAP_ARITY 4
#define BENCH_HEAP_INLINE_KEYS 0
#define BENCH_HEAP_PREFIX h4p
#include "heap_param.h"

/* The state of one dwq heap variant: the heap and its @n + 1 nodes. */
struct f1_dwq {
	void *heap;
	struct dwq_heap_node *nodes;
};

static struct f1_dwq *f1_dwq_alloc(struct f1_run *r)
{
	struct f1_dwq *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->nodes = kvmalloc_array(r->n + 1, sizeof(*s->nodes), GFP_KERNEL);
	if (!s->nodes) {
		kfree(s);
		return NULL;
	}
	for (i = 0; i <= r->n; i++) {
		s->nodes[i].deadline = 0;
		s->nodes[i].seq = 0;
		s->nodes[i].index = -1;
	}
	return s;
}

static void f1_dwq_free(struct f1_dwq *s)
{
	kvfree(s->nodes);
	kfree(s);
}

/*
 * "floor": F1's loops (f1_dwq_tmpl.h) around a queue that only stores:
 * an insert writes the node's deadline and remembers the node, a remove
 * and a pop mark a node not queued, and a pop hands back the node last
 * inserted, the loops' own item. What every other variant's pair and pop
 * cost beyond it is its queue's work.
 */
struct floor_heap {
	struct dwq_heap_node *last;
};

static struct floor_heap *floor_create(unsigned int cap)
{
	return kzalloc(sizeof(struct floor_heap), GFP_KERNEL);
}

static void floor_destroy(struct floor_heap *heap)
{
	kfree(heap);
}

static __always_inline int floor_insert_inline(struct floor_heap *heap,
					       struct dwq_heap_node *node,
					       u64 deadline)
{
	WRITE_ONCE(node->deadline, deadline);
	heap->last = node;
	return 0;
}

static __always_inline void floor_remove_inline(struct floor_heap *heap,
						struct dwq_heap_node *node)
{
	WRITE_ONCE(node->index, -1);
}

static __always_inline struct dwq_heap_node *
floor_pop_inline(struct floor_heap *heap)
{
	struct dwq_heap_node *node = heap->last;

	WRITE_ONCE(node->index, -1);
	return node;
}

#define F1_PREFIX floor
#include "f1_dwq_tmpl.h"
#undef F1_PREFIX

#define F1_PREFIX h2i
#include "f1_dwq_tmpl.h"
#undef F1_PREFIX

#define F1_PREFIX h2p
#include "f1_dwq_tmpl.h"
#undef F1_PREFIX

#define F1_PREFIX h4i
#include "f1_dwq_tmpl.h"
#undef F1_PREFIX

#define F1_PREFIX h4p
#include "f1_dwq_tmpl.h"
#undef F1_PREFIX

const struct f1_variant f1_h2i = {
	.name = "dwq-2ary-inline",
	.setup = h2i_f1_setup,
	.pairs = h2i_f1_pairs,
	.pops = h2i_f1_pops,
	.teardown = h2i_f1_teardown,
};

const struct f1_variant f1_h2p = {
	.name = "dwq-2ary-ptr",
	.setup = h2p_f1_setup,
	.pairs = h2p_f1_pairs,
	.pops = h2p_f1_pops,
	.teardown = h2p_f1_teardown,
};

const struct f1_variant f1_h4i = {
	.name = BENCH_HEAP_DWQ_VARIANT,
	.setup = h4i_f1_setup,
	.pairs = h4i_f1_pairs,
	.pops = h4i_f1_pops,
	.teardown = h4i_f1_teardown,
};

const struct f1_variant f1_h4p = {
	.name = "dwq-4ary-ptr",
	.setup = h4p_f1_setup,
	.pairs = h4p_f1_pairs,
	.pops = h4p_f1_pops,
	.teardown = h4p_f1_teardown,
};

const struct f1_variant f1_floor = {
	.name = "floor",
	.setup = floor_f1_setup,
	.pairs = floor_f1_pairs,
	.pops = floor_f1_pops,
	.teardown = floor_f1_teardown,
};
