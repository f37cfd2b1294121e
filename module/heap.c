// SPDX-License-Identifier: GPL-2.0
/*
 * dwq indexed min-heap. See heap.h for the model; in short: an array of
 * {key, node} slots, root at slot 0, DWQ_HEAP_ARITY (4) children per slot
 * (slot i has children 4 * i + 1 .. 4 * i + 4), every node knowing its
 * slot so that remove and update need no search.
 *
 * Sifting moves a hole rather than swapping: the moving entry is held in a
 * local, the entries it passes are shifted one level, and it is written
 * once where it stops. Every write of a slot also writes that node's
 * @index; keys are compared only on the slot copies, never through the
 * node pointer.
 *
 * Nothing here locks, sleeps or allocates: the caller serialises all calls
 * and owns the slot arrays (see dwq_heap_want_capacity() and
 * dwq_heap_adopt()).
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "heap.h"

/* Copy the key of the node in slot @s into the slot. */
static inline void dwq_heap_slot_rekey(struct dwq_heap_slot *s)
{
	s->deadline = s->node->deadline;
	s->seq = s->node->seq;
}

/* Is @a's key (deadline, seq) before @b's? */
static inline bool dwq_heap_less(const struct dwq_heap_slot *a,
				 const struct dwq_heap_slot *b)
{
	if (a->deadline != b->deadline)
		return a->deadline < b->deadline;
	return a->seq < b->seq;
}

/* Write @s into slot @i of @slots and tell its node where it now lives. */
static inline void dwq_heap_set(struct dwq_heap_slot *slots, unsigned int i,
				const struct dwq_heap_slot *s)
{
	slots[i] = *s;
	s->node->index = i;
}

/* Move the entry at slot @i towards the root; return where it stops. */
static unsigned int dwq_heap_sift_up(struct dwq_heap *heap, unsigned int i)
{
	struct dwq_heap_slot *slots = heap->slots;
	struct dwq_heap_slot s = slots[i];
	unsigned int start = i, parent;

	while (i > 0) {
		parent = (i - 1) / DWQ_HEAP_ARITY;
		if (!dwq_heap_less(&s, &slots[parent]))
			break;
		dwq_heap_set(slots, i, &slots[parent]);
		i = parent;
	}
	if (i != start)
		dwq_heap_set(slots, i, &s);
	return i;
}

/*
 * Move the entry at slot @i towards the leaves; return where it stops.
 * Each level costs 4 comparisons: 3 to find the least child and one to
 * compare it with the moving entry.
 */
static unsigned int dwq_heap_sift_down(struct dwq_heap *heap, unsigned int i)
{
	struct dwq_heap_slot *slots = heap->slots;
	struct dwq_heap_slot s = slots[i];
	unsigned int nr = heap->nr, start = i;
	unsigned int first, end, c, least;

	/*
	 * Slot i has a child iff ARITY * i + 1 < nr. Written as a division
	 * so that ARITY * i cannot overflow; nr <= DWQ_HEAP_MAX_CAPACITY
	 * then bounds first + ARITY as well.
	 */
	while (nr > 1 && i <= (nr - 2) / DWQ_HEAP_ARITY) {
		first = DWQ_HEAP_ARITY * i + 1;
		end = min(first + DWQ_HEAP_ARITY, nr);
		least = first;
		for (c = first + 1; c < end; c++)
			if (dwq_heap_less(&slots[c], &slots[least]))
				least = c;
		if (!dwq_heap_less(&slots[least], &s))
			break;
		dwq_heap_set(slots, i, &slots[least]);
		i = least;
	}
	if (i != start)
		dwq_heap_set(slots, i, &s);
	return i;
}

/*
 * Take the entry at slot @i out of the heap and restore heap order.
 *
 * Entries other than the last stay; the last must find a new slot. The
 * hole at @i moves down to a leaf, the least child moving up into it at
 * each level (3 comparisons), then the last entry fills it and
 * sifts up. The last entry comes from the bottom level and nearly always
 * belongs near it, so this saves its own comparison at every level on the
 * way down (Floyd's bottom-up removal); when it belongs above @i (it was
 * a leaf of another branch), sifting up takes it there.
 */
static struct dwq_heap_node *dwq_heap_remove_at(struct dwq_heap *heap,
						unsigned int i)
{
	struct dwq_heap_slot *slots = heap->slots;
	struct dwq_heap_node *node = slots[i].node;
	unsigned int last = --heap->nr;
	unsigned int first, end, c, least;

	node->index = -1;
	if (i == last)
		return node;
	/* Slot i has a child among 0 .. last - 1 iff ARITY * i + 1 < last. */
	while (last > 1 && i <= (last - 2) / DWQ_HEAP_ARITY) {
		first = DWQ_HEAP_ARITY * i + 1;
		end = min(first + DWQ_HEAP_ARITY, last);
		least = first;
		for (c = first + 1; c < end; c++)
			if (dwq_heap_less(&slots[c], &slots[least]))
				least = c;
		dwq_heap_set(slots, i, &slots[least]);
		i = least;
	}
	dwq_heap_set(slots, i, &slots[last]);
	dwq_heap_sift_up(heap, i);
	return node;
}

/* Is @node queued in @heap? A caller bug (warned once) if not. */
static bool dwq_heap_owns(const struct dwq_heap *heap,
			  const struct dwq_heap_node *node)
{
	unsigned int i = node->index;

	/* A negative index becomes a huge unsigned one: out of range too. */
	return !WARN_ON_ONCE(i >= heap->nr || heap->slots[i].node != node);
}

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
 * dwq_heap_insert() - queue a node with a deadline
 * @heap: the heap
 * @node: a node that is not queued in any heap
 * @deadline: its key; equal deadlines leave in insertion order
 *
 * Sets @node's deadline, a fresh sequence number and its slot. O(log n).
 * The heap never grows by itself: when it is full, the caller allocates
 * the array dwq_heap_want_capacity() asks for, hands it over with
 * dwq_heap_adopt() and tries again.
 *
 * Context: any context; the caller serialises access to @heap.
 * Return: 0 on success; -ENOSPC if the heap is full (nothing changed);
 * -EBUSY, with a warning, if @node is already queued (a caller bug).
 */
int dwq_heap_insert(struct dwq_heap *heap, struct dwq_heap_node *node,
		    u64 deadline)
{
	unsigned int i;

	if (WARN_ON_ONCE(dwq_heap_node_queued(node)))
		return -EBUSY;
	if (heap->nr >= heap->cap)
		return -ENOSPC;

	node->deadline = deadline;
	node->seq = heap->next_seq++;
	i = heap->nr++;
	heap->slots[i].node = node;
	dwq_heap_slot_rekey(&heap->slots[i]);
	node->index = i;
	dwq_heap_sift_up(heap, i);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_insert);

/**
 * dwq_heap_pop() - dequeue the node with the earliest key
 * @heap: the heap
 *
 * The node leaves with index -1; its deadline and seq stay readable.
 * O(log n).
 *
 * Context: any context; the caller serialises access to @heap.
 * Return: the node that was at the root, or NULL if the heap is empty.
 */
struct dwq_heap_node *dwq_heap_pop(struct dwq_heap *heap)
{
	if (!heap->nr)
		return NULL;
	return dwq_heap_remove_at(heap, 0);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_pop);

/**
 * dwq_heap_remove() - dequeue any node
 * @heap: the heap
 * @node: a node queued in @heap
 *
 * The hole moves down to a leaf, then the last entry fills it and is
 * sifted up (see dwq_heap_remove_at()). The node leaves with index -1.
 * O(log n), no search.
 *
 * Context: any context; the caller serialises access to @heap.
 * If @node is not queued in @heap this warns once and does nothing.
 */
void dwq_heap_remove(struct dwq_heap *heap, struct dwq_heap_node *node)
{
	if (dwq_heap_owns(heap, node))
		dwq_heap_remove_at(heap, node->index);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_remove);

/**
 * dwq_heap_update() - change the deadline of a queued node
 * @heap: the heap
 * @node: a node queued in @heap
 * @deadline: its new deadline
 *
 * The node also gets a fresh sequence number, so it goes after the nodes
 * already queued with the same deadline, exactly as if it had been removed
 * and inserted again; it keeps its identity and needs no capacity. O(log n).
 *
 * Context: any context; the caller serialises access to @heap.
 * If @node is not queued in @heap this warns once and does nothing.
 */
void dwq_heap_update(struct dwq_heap *heap, struct dwq_heap_node *node,
		     u64 deadline)
{
	unsigned int i;
	bool earlier;

	if (!dwq_heap_owns(heap, node))
		return;

	/*
	 * The fresh seq is above every other, so the new key is before the
	 * old one iff the deadline is: only then can the node have to move
	 * up, and otherwise only down.
	 */
	earlier = deadline < node->deadline;
	i = node->index;
	node->deadline = deadline;
	node->seq = heap->next_seq++;
	dwq_heap_slot_rekey(&heap->slots[i]);
	if (earlier)
		dwq_heap_sift_up(heap, i);
	else
		dwq_heap_sift_down(heap, i);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_heap_update);

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
