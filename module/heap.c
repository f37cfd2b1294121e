// SPDX-License-Identifier: GPL-2.0
/*
 * dwq indexed min-heap: what works on the whole slot array (init, the
 * capacity a heap wants, adopting a new array). See heap.h for the model
 * and for the operations on nodes, which are inline there.
 *
 * Nothing here locks, sleeps or allocates: the caller serialises all calls
 * and owns the slot arrays (see dwq_heap_want_capacity() and
 * dwq_heap_adopt()).
 */
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "heap.h"

/**
 * dwq_heap_init() - initialise an empty heap
 * @heap: the heap
 * @slots: the slot array, or NULL when @cap is 0
 * @cap: slots in @slots
 *
 * An empty heap needs no array: one initialised with (NULL, 0) asks for
 * DWQ_HEAP_MIN_CAPACITY slots on its first dwq_heap_want_capacity().
 *
 * Context: any context.
 */
void dwq_heap_init(struct dwq_heap *heap, struct dwq_heap_slot *slots,
		   unsigned int cap)
{
	heap->slots = slots;
	heap->nr = 0;
	heap->cap = min(cap, DWQ_HEAP_MAX_CAPACITY);
	heap->next_seq = 0;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_init);

/**
 * dwq_heap_want_capacity() - the capacity @heap should have
 * @heap: the heap
 * @extra: nodes about to be inserted (0 to ask whether to shrink)
 *
 * Growth is by half from at least DWQ_HEAP_MIN_CAPACITY (16, 24, 36, 54,
 * 81, ...) until nr + @extra fits. With hysteresis, the heap shrinks by
 * half, never below DWQ_HEAP_MIN_CAPACITY, only once nr + @extra has
 * fallen to a quarter of the capacity, so alternating inserts and removes
 * at a boundary cannot make it resize back and forth.
 *
 * The caller allocates an array of the answer's size (outside its lock)
 * and hands it over with dwq_heap_adopt(), after checking again, under its
 * lock, that the answer is still the same.
 *
 * Context: any context; the caller serialises access to @heap.
 * Return: the wanted capacity: @heap->cap when no change is needed, or 0
 * if nr + @extra nodes can never fit (more than DWQ_HEAP_MAX_CAPACITY).
 */
unsigned int dwq_heap_want_capacity(const struct dwq_heap *heap,
				    unsigned int extra)
{
	unsigned int need, cap;

	if (check_add_overflow(heap->nr, extra, &need) ||
	    need > DWQ_HEAP_MAX_CAPACITY)
		return 0;

	if (need > heap->cap) {
		cap = max(heap->cap, DWQ_HEAP_MIN_CAPACITY);
		/* cap <= INT_MAX, so cap + cap / 2 cannot wrap. */
		while (cap < need)
			cap = min(cap + cap / 2, DWQ_HEAP_MAX_CAPACITY);
		return cap;
	}
	if (heap->cap > DWQ_HEAP_MIN_CAPACITY && need <= heap->cap / 4)
		return max(heap->cap / 2, DWQ_HEAP_MIN_CAPACITY);
	return heap->cap;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_want_capacity);

/**
 * dwq_heap_shrunk_capacity() - the capacity @heap shrinks to in one step
 * @heap: the heap
 *
 * Where dwq_heap_want_capacity(@heap, 0) would come to if asked again
 * after each shrink it answers: halved while a quarter of it or less is
 * used, never below DWQ_HEAP_MIN_CAPACITY. For a caller that shrinks only
 * after many removals (a reader's drain of a backlog), which would
 * otherwise copy the heap into each size on the way down.
 *
 * Context: any context; the caller serialises access to @heap.
 * Return: the capacity; @heap->cap when no shrink is due.
 */
unsigned int dwq_heap_shrunk_capacity(const struct dwq_heap *heap)
{
	unsigned int cap = heap->cap;

	while (cap > DWQ_HEAP_MIN_CAPACITY && heap->nr <= cap / 4)
		cap = max(cap / 2, DWQ_HEAP_MIN_CAPACITY);
	return cap;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_shrunk_capacity);

/**
 * dwq_heap_adopt() - switch @heap to a new slot array
 * @heap: the heap
 * @slots: the new array (its contents are overwritten)
 * @cap: slots in @slots
 *
 * Copies the queued entries into @slots; node indexes do not change.
 * A @cap smaller than the number of queued nodes is refused (the heap is
 * left as it was), which is how a caller that raced with inserts finds out
 * that its new array is too small. Never allocates or frees.
 *
 * Context: any context; the caller serialises access to @heap.
 * Return: the array the caller must now free (outside its lock): the old
 * one, which may be NULL, or @slots itself if it was refused. NULL if
 * @slots is already the heap's array (only @cap is taken).
 */
struct dwq_heap_slot *dwq_heap_adopt(struct dwq_heap *heap,
				     struct dwq_heap_slot *slots,
				     unsigned int cap)
{
	struct dwq_heap_slot *old = heap->slots;

	if (cap < heap->nr)
		return slots;

	heap->cap = min(cap, DWQ_HEAP_MAX_CAPACITY);
	if (slots == old)
		return NULL;
	if (heap->nr)
		memcpy(slots, old, heap->nr * sizeof(*slots));
	heap->slots = slots;
	return old;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_adopt);
