/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq indexed min-heap: a pure data structure.
 *
 * The heap orders nodes by (deadline, seq): the earliest deadline first,
 * and nodes with equal deadlines in the order they were inserted (FIFO).
 * Every node records the slot it occupies (@index, -1 when not queued), so
 * removing or re-keying any node is O(log n) with no search: this is the
 * heapIndex of Java's ScheduledFutureTask.
 *
 * The heap is 4-ary: half the levels of a binary heap, so half the slots
 * written on a path, for as many comparisons in a sift down, made between
 * children that are adjacent in the array. Its slots hold the deadline
 * inline next to the node pointer, so sifting compares deadlines without
 * dereferencing nodes (one cache miss fewer per level); the seq is read
 * from the nodes only when two deadlines are equal. The F1 benchmark
 * (tools/bench) chose both, measuring this heap against 2-ary and
 * node-pointer-only variants of its own.
 *
 * A slot is 16 bytes, the deadline and the pointer, so the four children
 * of a slot fill 64 bytes, the size of a cache line (not one line: the
 * children of slot i start at byte 64 * i + 16 of the array). The seq
 * stays in the node, out of the slot, to save memory: the slot is part of
 * what every pending task costs.
 *
 * The operations on queued nodes (insert, pop, remove, update) are inline
 * here, as lib/min_heap.h's are: the queue calls them under its lock on
 * every schedule and cancel, and a call across translation units cost more
 * than the sift itself. heap.c has the rest.
 *
 * Nothing here locks, sleeps or allocates. The caller serialises all
 * access and owns the slot array: it allocates a bigger (or smaller) array
 * outside its lock when dwq_heap_want_capacity() asks for one, and hands it
 * over with dwq_heap_adopt(), which returns the old array for the caller to
 * free, again outside its lock.
 */
#ifndef _DWQ_HEAP_H
#define _DWQ_HEAP_H

#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

/* struct dwq_heap_node is embedded in every task, so dwq.h defines it. */
#include <dwq.h>

/* Children per slot (see above): slot i has 4 * i + 1 .. 4 * i + 4. */
#define DWQ_HEAP_ARITY 4

/* Capacity never goes below this; growth is by half (16, 24, 36, 54...). */
#define DWQ_HEAP_MIN_CAPACITY 16U

/* Nor above this: a slot number must fit in &dwq_heap_node.index. */
#define DWQ_HEAP_MAX_CAPACITY ((unsigned int)INT_MAX)

/**
 * struct dwq_heap_slot - one array slot: the deadline inline, then the node
 * @deadline: copy of @node->deadline
 * @node: the node in this slot; the key's seq is @node->seq
 */
struct dwq_heap_slot {
	u64 deadline;
	struct dwq_heap_node *node;
};

/**
 * struct dwq_heap - an array min-heap of &struct dwq_heap_node
 * @slots: the array, root at slot 0; owned by the caller's allocator
 * @nr: nodes in the heap
 * @cap: slots in @slots
 * @next_seq: the next tie-breaker to hand out
 */
struct dwq_heap {
	struct dwq_heap_slot *slots;
	unsigned int nr;
	unsigned int cap;
	u64 next_seq;
};

void dwq_heap_init(struct dwq_heap *heap, struct dwq_heap_slot *slots,
		   unsigned int cap);

static inline void dwq_heap_node_init(struct dwq_heap_node *node)
{
	node->deadline = 0;
	node->seq = 0;
	node->index = -1;
}

static inline bool dwq_heap_node_queued(const struct dwq_heap_node *node)
{
	return node->index >= 0;
}

static inline unsigned int dwq_heap_size(const struct dwq_heap *heap)
{
	return heap->nr;
}

static inline struct dwq_heap_node *dwq_heap_peek(const struct dwq_heap *heap)
{
	return heap->nr ? heap->slots[0].node : NULL;
}

/*
 * Sifting moves a hole rather than swapping: the moving entry is held in a
 * local, the entries it passes are shifted one level, and it is written
 * once where it stops. Every write of a slot also writes that node's
 * @index; deadlines are compared on the slot copies, and only a tie reads
 * the seqs through the node pointers.
 */

/* Copy the deadline of the node in slot @s into the slot. */
static inline void dwq_heap_slot_rekey(struct dwq_heap_slot *s)
{
	s->deadline = s->node->deadline;
}

/*
 * Is @a's key (deadline, seq) before @b's? The deadlines are in the slots;
 * only when they are equal are the seqs read from the nodes, a load
 * through each pointer that only ties pay.
 */
static inline bool dwq_heap_less(const struct dwq_heap_slot *a,
				 const struct dwq_heap_slot *b)
{
	if (a->deadline != b->deadline)
		return a->deadline < b->deadline;
	return a->node->seq < b->node->seq;
}

/* Write @s into slot @i of @slots and tell its node where it now lives. */
static inline void dwq_heap_set(struct dwq_heap_slot *slots, unsigned int i,
				const struct dwq_heap_slot *s)
{
	slots[i] = *s;
	s->node->index = i;
}

/*
 * The hole at slot @i moves towards the root while the entry @s goes
 * before the hole's parent; return where the hole stops, for @s. With
 * @fresh, @s has a fresh seq, above every other: only an earlier deadline
 * is before it, one compare a level.
 */
static __always_inline unsigned int
dwq_heap_hole_up(struct dwq_heap_slot *slots, unsigned int i,
		 const struct dwq_heap_slot *s, bool fresh)
{
	unsigned int parent;

	while (i > 0) {
		parent = (i - 1) / DWQ_HEAP_ARITY;
		if (fresh ? slots[parent].deadline <= s->deadline :
			    !dwq_heap_less(s, &slots[parent]))
			break;
		dwq_heap_set(slots, i, &slots[parent]);
		i = parent;
	}
	return i;
}

/* Move the entry at slot @i towards the root; return where it stops. */
static __always_inline unsigned int dwq_heap_sift_up(struct dwq_heap *heap,
						     unsigned int i)
{
	struct dwq_heap_slot *slots = heap->slots;
	struct dwq_heap_slot s = slots[i];
	unsigned int start = i;

	i = dwq_heap_hole_up(slots, i, &s, false);
	if (i != start)
		dwq_heap_set(slots, i, &s);
	return i;
}

/*
 * The least of the children of slot @i among the first @nr slots; the
 * caller has checked that there is one (ARITY * i + 1 < nr).
 */
static __always_inline unsigned int
dwq_heap_least_child(const struct dwq_heap_slot *slots, unsigned int i,
		     unsigned int nr)
{
	unsigned int first = DWQ_HEAP_ARITY * i + 1;
	unsigned int end = min(first + DWQ_HEAP_ARITY, nr), c, least = first;
	const struct dwq_heap_slot *best = &slots[first];

	/* The least so far is held by pointer: no index to scale per child. */
	for (c = first + 1; c < end; c++) {
		if (dwq_heap_less(&slots[c], best)) {
			least = c;
			best = &slots[c];
		}
	}
	return least;
}

/*
 * Which of the four children at @c, all four there, is the least, 0 to
 * 3: a tournament, the least of each pair and then of the two winners,
 * with no loop (no two keys are equal). An index, not an address: the
 * caller needs the child's index, which an address would give back only
 * divided by the slot's size.
 */
static __always_inline unsigned int
dwq_heap_least4(const struct dwq_heap_slot *c)
{
	unsigned int x = dwq_heap_less(&c[1], &c[0]);
	unsigned int y = 2 + dwq_heap_less(&c[3], &c[2]);

	BUILD_BUG_ON(DWQ_HEAP_ARITY != 4);
	return dwq_heap_less(&c[y], &c[x]) ? y : x;
}

/*
 * Move the entry at slot @i towards the leaves; return where it stops.
 * Each level costs 4 comparisons: 3 to find the least child and one to
 * compare it with the moving entry.
 */
static inline unsigned int dwq_heap_sift_down(struct dwq_heap *heap,
					      unsigned int i)
{
	struct dwq_heap_slot *slots = heap->slots;
	struct dwq_heap_slot s = slots[i];
	unsigned int nr = heap->nr, start = i, least;

	/*
	 * Slot i has a child iff ARITY * i + 1 < nr. Written as a division
	 * so that ARITY * i cannot overflow; nr <= DWQ_HEAP_MAX_CAPACITY
	 * then bounds first + ARITY as well.
	 */
	while (nr > 1 && i <= (nr - 2) / DWQ_HEAP_ARITY) {
		least = dwq_heap_least_child(slots, i, nr);
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
 * a leaf of another branch), sifting up takes it there, held in a local
 * and written once where it stops.
 *
 * With @deep (a constant: the root's pop), the hole has every level to go
 * down, and the full ones take dwq_heap_least4()'s tournament, the hole
 * followed by address. A node removed from anywhere is mostly near the
 * leaves (three in four are leaves), where the tournament's setup and
 * registers cost the cancel more than its one level gains.
 */
static __always_inline struct dwq_heap_node *
dwq_heap_remove_at(struct dwq_heap *heap, unsigned int i, bool deep)
{
	struct dwq_heap_slot *slots = heap->slots, *hole, *c, s;
	struct dwq_heap_node *node = slots[i].node;
	unsigned int last = --heap->nr, full, first, k;

	node->index = -1;
	if (i == last)
		return node;
	/*
	 * Slot i has all four children among 0 .. last - 1 iff
	 * ARITY * i + ARITY < last, that is iff i < (last - 1) / ARITY
	 * (last > i, so last >= 1: no wrap, and no ARITY * i to overflow).
	 * The hole moves down those levels by dwq_heap_least4().
	 */
	hole = &slots[i];
	full = (last - 1) / DWQ_HEAP_ARITY;
	while (deep && i < full) {
		first = DWQ_HEAP_ARITY * i + 1;
		c = &slots[first];
		k = dwq_heap_least4(c);
		*hole = c[k];
		c[k].node->index = i;
		hole = &c[k];
		i = first + k;
	}
	/*
	 * Slot i has a child among 0 .. last - 1 iff ARITY * i + 1 < last.
	 * After the full levels at most one level is left, with fewer than
	 * four children; a cancel takes every level here.
	 */
	while (last > 1 && i <= (last - 2) / DWQ_HEAP_ARITY) {
		first = dwq_heap_least_child(slots, i, last);
		dwq_heap_set(slots, i, &slots[first]);
		i = first;
	}
	/* The last entry, held here, goes up from the hole, written once. */
	s = slots[last];
	dwq_heap_set(slots, dwq_heap_hole_up(slots, i, &s, false), &s);
	return node;
}

/*
 * Put @node, whose key was just set to @deadline and a fresh seq, in the
 * hole at slot @i, moving it up as far as it goes. The entry is written
 * once, where it stops. The deadline comes in a register: read back from
 * the node it was just stored to, it would cost a load. The fresh seq is
 * never compared (see dwq_heap_hole_up()).
 */
static __always_inline void dwq_heap_sift_up_fresh(struct dwq_heap *heap,
						   unsigned int i,
						   struct dwq_heap_node *node,
						   u64 deadline)
{
	struct dwq_heap_slot s = { deadline, node };

	dwq_heap_set(heap->slots, dwq_heap_hole_up(heap->slots, i, &s, true),
		     &s);
}

/* Is @node queued in @heap? A caller bug (warned once) if not. */
static __always_inline bool dwq_heap_owns(const struct dwq_heap *heap,
					  const struct dwq_heap_node *node)
{
	unsigned int i = node->index;

	/* A negative index becomes a huge unsigned one: out of range too. */
	return !WARN_ON_ONCE(i >= heap->nr || heap->slots[i].node != node);
}

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
static __always_inline int
dwq_heap_insert(struct dwq_heap *heap, struct dwq_heap_node *node, u64 deadline)
{
	if (WARN_ON_ONCE(dwq_heap_node_queued(node)))
		return -EBUSY;
	if (heap->nr >= heap->cap)
		return -ENOSPC;

	node->deadline = deadline;
	node->seq = heap->next_seq++;
	dwq_heap_sift_up_fresh(heap, heap->nr++, node, deadline);
	return 0;
}

/**
 * dwq_heap_push() - dwq_heap_insert() for a caller that checked the room
 * @heap: the heap, with room for one more node
 * @node: a node that is not queued in any heap
 * @deadline: its key; equal deadlines leave in insertion order
 *
 * dwq_heap_insert() without its check that @node is not queued, for a
 * caller that made sure of it and of the room under the lock it serialises
 * @heap with (a task's state says it is not queued; the queue checks the
 * room for every schedule). A full heap still only warns. O(log n).
 *
 * Context: any context; the caller serialises access to @heap.
 */
static __always_inline void
dwq_heap_push(struct dwq_heap *heap, struct dwq_heap_node *node, u64 deadline)
{
	/* A caller bug: never write past the array. */
	if (WARN_ON_ONCE(heap->nr >= heap->cap))
		return;

	node->deadline = deadline;
	node->seq = heap->next_seq++;
	dwq_heap_sift_up_fresh(heap, heap->nr++, node, deadline);
}

/**
 * dwq_heap_restore() - queue a node again with the key it had
 * @heap: the heap
 * @node: a node that left @heap (popped or removed), not queued anywhere
 *	since, its deadline and seq as they were
 *
 * Undoes a pop or a removal: the node takes the place its key gives it
 * among the nodes queued now, before those with its deadline and a later
 * seq, as if it had never left. Unlike dwq_heap_insert() it takes no
 * fresh seq, so its sift compares whole keys. O(log n).
 *
 * Context: any context; the caller serialises access to @heap.
 * Return: 0 on success; -ENOSPC if the heap is full (nothing changed);
 * -EBUSY, with a warning, if @node is already queued (a caller bug).
 */
static inline int dwq_heap_restore(struct dwq_heap *heap,
				   struct dwq_heap_node *node)
{
	struct dwq_heap_slot s = { node->deadline, node };

	if (WARN_ON_ONCE(dwq_heap_node_queued(node)))
		return -EBUSY;
	if (heap->nr >= heap->cap)
		return -ENOSPC;
	dwq_heap_set(heap->slots,
		     dwq_heap_hole_up(heap->slots, heap->nr++, &s, false), &s);
	return 0;
}

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
static inline struct dwq_heap_node *dwq_heap_pop(struct dwq_heap *heap)
{
	if (!heap->nr)
		return NULL;
	return dwq_heap_remove_at(heap, 0, true);
}

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
static __always_inline void dwq_heap_remove(struct dwq_heap *heap,
					    struct dwq_heap_node *node)
{
	if (dwq_heap_owns(heap, node))
		dwq_heap_remove_at(heap, node->index, false);
}

/**
 * dwq_heap_lower() - move a queued node's deadline earlier, keeping its seq
 * @heap: the heap
 * @node: a node queued in @heap
 * @deadline: the new deadline, no later than the node's
 *
 * Unlike dwq_heap_update(), the node keeps its place among nodes with an
 * equal deadline (its seq): for a key corrected, not a node moved. Only
 * @node and nodes at lower indices move, so a walk up the slots may lower
 * each node it passes. O(log n).
 *
 * Context: any context; the caller serialises access to @heap.
 * If @node is not queued in @heap, or @deadline is later, this warns once
 * and does nothing.
 */
static inline void dwq_heap_lower(struct dwq_heap *heap,
				  struct dwq_heap_node *node, u64 deadline)
{
	if (!dwq_heap_owns(heap, node) ||
	    WARN_ON_ONCE(deadline > node->deadline))
		return;
	node->deadline = deadline;
	heap->slots[node->index].deadline = deadline;
	dwq_heap_sift_up(heap, node->index);
}

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
static __always_inline void
dwq_heap_update(struct dwq_heap *heap, struct dwq_heap_node *node, u64 deadline)
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
	if (earlier) {
		dwq_heap_sift_up_fresh(heap, i, node, deadline);
		return;
	}
	dwq_heap_slot_rekey(&heap->slots[i]);
	dwq_heap_sift_down(heap, i);
}

/*
 * Whether dwq_heap_want_capacity(@heap, 0) (or dwq_heap_shrunk_capacity())
 * may ask for a smaller array:
 * past the smallest size, with a quarter of it or less used. Lets a
 * caller skip the call in the common case.
 */
static inline bool dwq_heap_may_shrink(const struct dwq_heap *heap)
{
	return heap->cap > DWQ_HEAP_MIN_CAPACITY && heap->nr <= heap->cap / 4;
}

unsigned int dwq_heap_want_capacity(const struct dwq_heap *heap,
				    unsigned int extra);
unsigned int dwq_heap_shrunk_capacity(const struct dwq_heap *heap);
struct dwq_heap_slot *dwq_heap_adopt(struct dwq_heap *heap,
				     struct dwq_heap_slot *slots,
				     unsigned int cap);

#endif /* _DWQ_HEAP_H */
