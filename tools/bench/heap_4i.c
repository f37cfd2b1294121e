// SPDX-License-Identifier: GPL-2.0
/*
 * dwq.ko's own heap in the benchmark: module/heap.c and the inline
 * operations of module/heap.h compiled once more, unchanged, with their
 * names turned into h4i_*() (struct dwq_heap into struct h4i_heap, and so
 * on), so that F1's "dwq-4ary-inline" and F3's wake-all queue measure the
 * very code dwq.ko runs. The other variants are the benchmark's own
 * (heap_param.h).
 *
 * A copy rather than a call into dwq.ko: dwq.ko exports its heap only to
 * KUnit (EXPORT_SYMBOL_IF_KUNIT), and the stock kernels the figures are
 * taken on have no KUnit. The copy is never exported, so no object is
 * linked into two modules. F1's loops (f1_dwq.c) inline the operations
 * from heap_4i.h, as dwq.ko's queue inlines them; the functions below are
 * what the rest calls out of line: F1's setup and teardown, and F3's
 * wake-all queue.
 */
#include <linux/mm.h>
#include <linux/slab.h>

/*
 * heap.c exports its functions to KUnit; this copy stays private: the
 * export becomes a check that the symbol exists.
 */
#include <kunit/visibility.h>
#undef EXPORT_SYMBOL_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(symbol) static_assert(sizeof(typeof(symbol) *))

#include "heap_4i.h"
#include "../../module/heap.c"
#include "heap_variants.h"

/* A heap with room for @cap nodes (it never grows), or NULL. */
struct h4i_heap *h4i_create(unsigned int cap)
{
	struct h4i_heap *heap;
	struct h4i_slot *slots;

	heap = kzalloc(sizeof(*heap), GFP_KERNEL);
	if (!heap)
		return NULL;
	slots = kvmalloc_array(cap, sizeof(*slots), GFP_KERNEL);
	if (!slots) {
		kfree(heap);
		return NULL;
	}
	h4i_init(heap, slots, cap);
	return heap;
}

void h4i_destroy(struct h4i_heap *heap)
{
	kvfree(heap->slots);
	kfree(heap);
}

struct dwq_heap_node *h4i_peek(struct h4i_heap *heap)
{
	return dwq_heap_peek(heap);
}

int h4i_insert(struct h4i_heap *heap, struct dwq_heap_node *node, u64 deadline)
{
	return h4i_insert_inline(heap, node, deadline);
}

struct dwq_heap_node *h4i_pop(struct h4i_heap *heap)
{
	return h4i_pop_inline(heap);
}

void h4i_remove(struct h4i_heap *heap, struct dwq_heap_node *node)
{
	h4i_remove_inline(heap, node);
}
