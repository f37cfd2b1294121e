/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One more copy of dwq's heap (module/heap.c) in the benchmark module,
 * built with the arity and slot layout its includer chose, under names of
 * its own: BENCH_HEAP_PREFIX (say h4i) turns dwq_heap_insert() into
 * h4i_insert(), struct dwq_heap into struct h4i_heap, and so on. The copies
 * are never exported, and dwq.ko keeps its own heap: no object is linked
 * into two modules.
 *
 * The includer defines DWQ_HEAP_ARITY, DWQ_HEAP_INLINE_KEYS and
 * BENCH_HEAP_PREFIX, then includes this file once. The benchmark's loops
 * live in other files (f1_dwq.c), so they call the heap across a
 * translation unit, as dwq.ko's queue does, and nothing is inlined into
 * them that dwq.ko would not inline.
 */
#include <linux/mm.h>
#include <linux/slab.h>

/*
 * heap.c exports its functions to KUnit; these copies stay private: the
 * export becomes a check that the symbol exists.
 */
#include <kunit/visibility.h>
#undef EXPORT_SYMBOL_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol) static_assert(sizeof(typeof(symbol) *))

#define BENCH_CAT2(a, b) a##b
#define BENCH_CAT(a, b) BENCH_CAT2(a, b)
#define BENCH_HEAP(name) BENCH_CAT(BENCH_HEAP_PREFIX, name)

#define dwq_heap BENCH_HEAP(_heap)
#define dwq_heap_slot BENCH_HEAP(_slot)
#define dwq_heap_init BENCH_HEAP(_init)
#define dwq_heap_insert BENCH_HEAP(_insert)
#define dwq_heap_pop BENCH_HEAP(_pop)
#define dwq_heap_remove BENCH_HEAP(_remove)
#define dwq_heap_update BENCH_HEAP(_update)
#define dwq_heap_want_capacity BENCH_HEAP(_want_capacity)
#define dwq_heap_adopt BENCH_HEAP(_adopt)

#include "../../module/heap.c"
#include "heap_variants.h"

/* A heap with room for @cap nodes (it never grows), or NULL. */
struct dwq_heap *BENCH_HEAP(_create)(unsigned int cap)
{
	struct dwq_heap *heap;
	struct dwq_heap_slot *slots;

	heap = kzalloc(sizeof(*heap), GFP_KERNEL);
	if (!heap)
		return NULL;
	slots = kvmalloc_array(cap, sizeof(*slots), GFP_KERNEL);
	if (!slots) {
		kfree(heap);
		return NULL;
	}
	dwq_heap_init(heap, slots, cap);
	return heap;
}

void BENCH_HEAP(_destroy)(struct dwq_heap *heap)
{
	kvfree(heap->slots);
	kfree(heap);
}

struct dwq_heap_node *BENCH_HEAP(_peek)(struct dwq_heap *heap)
{
	return dwq_heap_peek(heap);
}

size_t BENCH_HEAP(_slot_size)(void)
{
	return sizeof(struct dwq_heap_slot);
}
