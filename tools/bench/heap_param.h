/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The benchmark's own copy of dwq's heap algorithm, for the variants that
 * dwq.ko is not built as: a 2-ary heap, and slots that hold only the node
 * pointer (every compare then goes through it). dwq.ko's heap is 4-ary
 * with the keys inline in the slots because F1 measured these variants
 * against it; that variant itself is module/heap.c, compiled here under
 * another name (heap_4i.c), not this copy.
 *
 * The includer defines BENCH_HEAP_ARITY (2 or 4), BENCH_HEAP_INLINE_KEYS
 * (1: keys in the slots; 0: node pointers only) and BENCH_HEAP_PREFIX (say
 * h2p: struct h2p_heap, h2p_insert_inline(), ...), then includes this
 * file, which takes the four parameters away again at its end. The
 * operations on nodes are inline, as heap.h's are: F1's loops (f1_dwq.c,
 * which includes this once per variant) inline them, as dwq.ko's queue
 * inlines heap.h's. Unless the includer also defines
 * BENCH_HEAP_INLINE_ONLY, the file defines the out-of-line functions of
 * heap_variants.h as well (heap_2i.c, heap_2p.c, heap_4p.c).
 *
 * The algorithm is module/heap.c's, step for step (a hole moved rather
 * than entries swapped, the bottom-up removal, the same child tests), so
 * that F1 compares arities and slot layouts, not two ways of writing a
 * heap: a change to the sifting in heap.c belongs here too, and so do its
 * checks for misuse, which cost the same in every variant. Only what F1
 * and F3 use is here: the heaps are sized up front and never grow. The
 * functions are not exported.
 */
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <dwq.h>

#include "heap_variants.h"

static_assert(BENCH_HEAP_ARITY == 2 || BENCH_HEAP_ARITY == 4,
	      "BENCH_HEAP_ARITY must be 2 or 4");

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
#define BENCH_HEAP(name) BENCH_CAT(BENCH_HEAP_PREFIX, name)

#define bench_heap BENCH_HEAP(_heap)
#define bench_slot BENCH_HEAP(_slot)
#define bench_heap_less BENCH_HEAP(_less)
#define bench_heap_set BENCH_HEAP(_set)
#define bench_heap_hole_up BENCH_HEAP(_hole_up)
#define bench_heap_least_child BENCH_HEAP(_least_child)
#define bench_heap_remove_at BENCH_HEAP(_remove_at)
#define bench_heap_owns BENCH_HEAP(_owns)

/**
 * struct bench_slot - one array slot
 * @deadline: copy of @node->deadline (only with BENCH_HEAP_INLINE_KEYS);
 *	the seq stays in the node, as in heap.h's 16-byte slot
 * @node: the node in this slot
 */
struct bench_slot {
#if BENCH_HEAP_INLINE_KEYS
	u64 deadline;
#endif
	struct dwq_heap_node *node;
};

/**
 * struct bench_heap - an array min-heap of &struct dwq_heap_node
 * @slots: the array, root at slot 0
 * @nr: nodes in the heap
 * @cap: slots in @slots
 * @next_seq: the next tie-breaker to hand out
 */
struct bench_heap {
	struct bench_slot *slots;
	unsigned int nr;
	unsigned int cap;
	u64 next_seq;
};

/* The deadline of the entry in a slot: the inline copy, or the node's. */
#if BENCH_HEAP_INLINE_KEYS
#define BENCH_SLOT_DEADLINE(s) ((s)->deadline)
#else
#define BENCH_SLOT_DEADLINE(s) ((s)->node->deadline)
#endif

/*
 * Is @a's key (deadline, seq) before @b's? The seqs are read through the
 * nodes only on equal deadlines: heap.h's dwq_heap_less().
 */
static inline bool bench_heap_less(const struct bench_slot *a,
				   const struct bench_slot *b)
{
	if (BENCH_SLOT_DEADLINE(a) != BENCH_SLOT_DEADLINE(b))
		return BENCH_SLOT_DEADLINE(a) < BENCH_SLOT_DEADLINE(b);
	return a->node->seq < b->node->seq;
}

/* Write @s into slot @i of @slots and tell its node where it now lives. */
static inline void bench_heap_set(struct bench_slot *slots, unsigned int i,
				  const struct bench_slot *s)
{
	slots[i] = *s;
	s->node->index = i;
}

/*
 * The hole at slot @i moves towards the root while the entry @s goes before
 * the hole's parent; return where it stops: heap.h's dwq_heap_hole_up().
 * With @fresh, @s has a fresh seq and its deadline is @deadline: only an
 * earlier deadline is before it.
 */
static __always_inline unsigned int
bench_heap_hole_up(struct bench_slot *slots, unsigned int i,
		   const struct bench_slot *s, bool fresh, u64 deadline)
{
	unsigned int parent;

	while (i > 0) {
		parent = (i - 1) / BENCH_HEAP_ARITY;
		if (fresh ? BENCH_SLOT_DEADLINE(&slots[parent]) <= deadline :
			    !bench_heap_less(s, &slots[parent]))
			break;
		bench_heap_set(slots, i, &slots[parent]);
		i = parent;
	}
	return i;
}

/* The least child of slot @i among @nr slots: dwq_heap_least_child(). */
static __always_inline unsigned int
bench_heap_least_child(const struct bench_slot *slots, unsigned int i,
		       unsigned int nr)
{
	unsigned int first = BENCH_HEAP_ARITY * i + 1;
	unsigned int end = min(first + BENCH_HEAP_ARITY, nr), c, least = first;
	const struct bench_slot *best = &slots[first];

	for (c = first + 1; c < end; c++) {
		if (bench_heap_less(&slots[c], best)) {
			least = c;
			best = &slots[c];
		}
	}
	return least;
}

/* Take the entry at slot @i out: heap.h's dwq_heap_remove_at(). */
static __always_inline struct dwq_heap_node *
bench_heap_remove_at(struct bench_heap *heap, unsigned int i, bool deep)
{
	struct bench_slot *slots = heap->slots, *hole, *c, s;
	struct dwq_heap_node *node = slots[i].node;
	unsigned int last = --heap->nr, full, first, k, x, y;

	node->index = -1;
	if (i == last)
		return node;
	/* A pop's levels where slot i has every child: by index, no loop. */
	hole = &slots[i];
	full = (last - 1) / BENCH_HEAP_ARITY;
	while (deep && i < full) {
		first = BENCH_HEAP_ARITY * i + 1;
		c = &slots[first];
		if (BENCH_HEAP_ARITY == 4) {
			/* heap.h's tournament, dwq_heap_least4() */
			x = bench_heap_less(&c[1], &c[0]);
			y = 2 + bench_heap_less(&c[3], &c[2]);
			k = bench_heap_less(&c[y], &c[x]) ? y : x;
		} else {
			k = bench_heap_less(&c[1], &c[0]);
		}
		*hole = c[k];
		c[k].node->index = i;
		hole = &c[k];
		i = first + k;
	}
	while (last > 1 && i <= (last - 2) / BENCH_HEAP_ARITY) {
		first = bench_heap_least_child(slots, i, last);
		bench_heap_set(slots, i, &slots[first]);
		i = first;
	}
	/* The last entry, held here, goes up from the hole, written once. */
	s = slots[last];
	bench_heap_set(slots, bench_heap_hole_up(slots, i, &s, false, 0), &s);
	return node;
}

/* Is @node queued in @heap? heap.h's dwq_heap_owns(). */
static __always_inline bool bench_heap_owns(const struct bench_heap *heap,
					    const struct dwq_heap_node *node)
{
	unsigned int i = node->index;

	return !WARN_ON_ONCE(i >= heap->nr || heap->slots[i].node != node);
}

/*
 * heap.h's dwq_heap_insert(): queue @node with @deadline and a fresh seq,
 * the entry held in a local and written once where it stops.
 */
static __always_inline int
BENCH_HEAP(_insert_inline)(struct bench_heap *heap, struct dwq_heap_node *node,
			   u64 deadline)
{
	struct bench_slot s = { .node = node };

	if (WARN_ON_ONCE(node->index >= 0))
		return -EBUSY;
	if (heap->nr >= heap->cap)
		return -ENOSPC;
	node->deadline = deadline;
	node->seq = heap->next_seq++;
#if BENCH_HEAP_INLINE_KEYS
	s.deadline = deadline;
#endif
	bench_heap_set(heap->slots,
		       bench_heap_hole_up(heap->slots, heap->nr++, &s, true,
					  deadline),
		       &s);
	return 0;
}

/* heap.h's dwq_heap_pop(): the node with the earliest key, or NULL. */
static inline struct dwq_heap_node *
BENCH_HEAP(_pop_inline)(struct bench_heap *heap)
{
	if (!heap->nr)
		return NULL;
	return bench_heap_remove_at(heap, 0, true);
}

/* heap.h's dwq_heap_remove(): dequeue @node, queued in @heap. */
static __always_inline void
BENCH_HEAP(_remove_inline)(struct bench_heap *heap, struct dwq_heap_node *node)
{
	if (bench_heap_owns(heap, node))
		bench_heap_remove_at(heap, node->index, false);
}

#ifndef BENCH_HEAP_INLINE_ONLY
struct bench_heap *BENCH_HEAP(_create)(unsigned int cap)
{
	struct bench_heap *heap;

	heap = kzalloc(sizeof(*heap), GFP_KERNEL);
	if (!heap)
		return NULL;
	heap->slots = kvmalloc_array(cap, sizeof(*heap->slots), GFP_KERNEL);
	if (!heap->slots) {
		kfree(heap);
		return NULL;
	}
	heap->cap = cap;
	return heap;
}

void BENCH_HEAP(_destroy)(struct bench_heap *heap)
{
	kvfree(heap->slots);
	kfree(heap);
}

int BENCH_HEAP(_insert)(struct bench_heap *heap, struct dwq_heap_node *node,
			u64 deadline)
{
	return BENCH_HEAP(_insert_inline)(heap, node, deadline);
}

struct dwq_heap_node *BENCH_HEAP(_pop)(struct bench_heap *heap)
{
	return BENCH_HEAP(_pop_inline)(heap);
}

void BENCH_HEAP(_remove)(struct bench_heap *heap, struct dwq_heap_node *node)
{
	BENCH_HEAP(_remove_inline)(heap, node);
}

struct dwq_heap_node *BENCH_HEAP(_peek)(struct bench_heap *heap)
{
	return heap->nr ? heap->slots[0].node : NULL;
}
#endif /* BENCH_HEAP_INLINE_ONLY */

#undef bench_heap_owns
#undef bench_heap_remove_at
#undef bench_heap_least_child
#undef bench_heap_hole_up
#undef bench_heap_set
#undef bench_heap_less
#undef bench_slot
#undef bench_heap
#undef BENCH_SLOT_DEADLINE
#undef BENCH_HEAP
#undef BENCH_CAT
#undef BENCH_CAT2
#undef BENCH_HEAP_INLINE_ONLY
#undef BENCH_HEAP_PREFIX
#undef BENCH_HEAP_INLINE_KEYS
#undef BENCH_HEAP_ARITY
