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
 * children that are adjacent in the array. Its slots hold the key inline next to the
 * node pointer, so sifting compares keys without dereferencing nodes (one
 * cache miss fewer per level). The F1 benchmark (tools/bench) chose both,
 * measuring this heap against 2-ary and node-pointer-only variants of its
 * own.
 *
 * Nothing here locks, sleeps or allocates. The caller serialises all
 * access and owns the slot array: it allocates a bigger (or smaller) array
 * outside its lock when dwq_heap_want_capacity() asks for one, and hands it
 * over with dwq_heap_adopt(), which returns the old array for the caller to
 * free, again outside its lock.
 */
#ifndef _DWQ_HEAP_H
#define _DWQ_HEAP_H

#include <linux/limits.h>
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
 * struct dwq_heap_slot - one array slot: the key inline, then the node
 * @deadline: copy of @node->deadline
 * @seq: copy of @node->seq
 * @node: the node in this slot
 */
struct dwq_heap_slot {
	u64 deadline;
	u64 seq;
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

int dwq_heap_insert(struct dwq_heap *heap, struct dwq_heap_node *node,
		    u64 deadline);
struct dwq_heap_node *dwq_heap_pop(struct dwq_heap *heap);
void dwq_heap_remove(struct dwq_heap *heap, struct dwq_heap_node *node);
void dwq_heap_update(struct dwq_heap *heap, struct dwq_heap_node *node,
		     u64 deadline);

unsigned int dwq_heap_want_capacity(const struct dwq_heap *heap,
				    unsigned int extra);
struct dwq_heap_slot *dwq_heap_adopt(struct dwq_heap *heap,
				     struct dwq_heap_slot *slots,
				     unsigned int cap);

#endif /* _DWQ_HEAP_H */
