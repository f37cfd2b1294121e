// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the dwq indexed min-heap (module/heap.c): order, FIFO for
 * equal deadlines, remove and update anywhere, capacity growth and shrink,
 * and how few nodes a remove moves, plus a randomized differential test
 * against a plain array scanned linearly.
 *
 * The production heap counts nothing, so the tests state its costs in what
 * they can see: which nodes changed slot. The invariant check and the
 * bound on moves are written on DWQ_HEAP_ARITY.
 *
 * Not tested, on purpose: the misuse heap.c answers with WARN_ON_ONCE
 * (inserting or restoring a node that is already queued: -EBUSY; removing
 * or updating a node that is not queued in the heap: no-op). Guests run
 * with panic_on_warn=1, where reaching a WARN is a failure by design.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include "heap.h"

/* "dwq-heap": change it to explore, failures print the one in use. */
#define HEAP_TEST_SEED 0x6477712d68656170ULL

KUNIT_DEFINE_ACTION_WRAPPER(heap_test_kvfree, kvfree, const void *);

/* A zeroed test-managed array that may be too big for kmalloc. */
static void *heap_test_alloc(struct kunit *test, size_t n, size_t size)
{
	void *p = kvcalloc(n, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, heap_test_kvfree, p),
			0);
	return p;
}

static struct dwq_heap_node *heap_test_nodes(struct kunit *test, unsigned int n)
{
	struct dwq_heap_node *nodes;
	unsigned int i;

	nodes = heap_test_alloc(test, n, sizeof(*nodes));
	for (i = 0; i < n; i++)
		dwq_heap_node_init(&nodes[i]);
	return nodes;
}

/* A heap with @cap slots of its own. */
static void heap_test_init(struct kunit *test, struct dwq_heap *heap,
			   unsigned int cap)
{
	dwq_heap_init(heap, heap_test_alloc(test, cap, sizeof(*heap->slots)),
		      cap);
}

/* What a caller does: allocate @cap slots, adopt them, free the old. */
static void heap_test_resize(struct kunit *test, struct dwq_heap *heap,
			     unsigned int cap)
{
	struct dwq_heap_slot *slots, *old;

	slots = kunit_kmalloc_array(test, cap, sizeof(*slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	old = dwq_heap_adopt(heap, slots, cap);
	KUNIT_ASSERT_PTR_NE(test, old, slots);
	KUNIT_ASSERT_PTR_EQ(test, heap->slots, slots);
	kunit_kfree(test, old);
}

static bool heap_test_key_less(u64 da, u64 sa, u64 db, u64 sb)
{
	return da < db || (da == db && sa < sb);
}

/*
 * The full invariant: nr fits, every slot's node sits at that slot, slot
 * deadlines equal node deadlines, and every entry is after its parent by
 * (deadline, node's seq). Reports the first violation.
 */
static bool heap_test_check(struct kunit *test, const struct dwq_heap *heap)
{
	const struct dwq_heap_slot *s = heap->slots, *p;
	unsigned int i;

	if (heap->nr > heap->cap) {
		KUNIT_FAIL(test, "nr %u > cap %u", heap->nr, heap->cap);
		return false;
	}
	for (i = 0; i < heap->nr; i++) {
		if (!s[i].node || s[i].node->index != i) {
			KUNIT_FAIL(test, "slot %u: node index %d", i,
				   s[i].node ? s[i].node->index : -2);
			return false;
		}
		if (s[i].deadline != s[i].node->deadline) {
			KUNIT_FAIL(test, "slot %u: deadline %llu, node %llu", i,
				   s[i].deadline, s[i].node->deadline);
			return false;
		}
		if (!i)
			continue;
		p = &s[(i - 1) / DWQ_HEAP_ARITY];
		if (!heap_test_key_less(p->deadline, p->node->seq,
					s[i].deadline, s[i].node->seq)) {
			KUNIT_FAIL(test,
				   "slot %u (%llu,%llu) not after its parent (%llu,%llu)",
				   i, s[i].deadline, s[i].node->seq,
				   p->deadline, p->node->seq);
			return false;
		}
	}
	return true;
}

/*
 * Pop everything; nodes of @nodes were inserted in array order, so the
 * right order is by (deadline, position in @nodes), whatever seq says.
 * Returns the number popped, or -1 after reporting a wrong order.
 */
static int heap_test_drain(struct kunit *test, struct dwq_heap *heap,
			   const struct dwq_heap_node *nodes)
{
	struct dwq_heap_node *node, *prev = NULL;
	int n = 0;

	while ((node = dwq_heap_pop(heap))) {
		if (node->index != -1) {
			KUNIT_FAIL(test, "popped node %td has index %d",
				   node - nodes, node->index);
			return -1;
		}
		if (prev && !heap_test_key_less(prev->deadline, prev - nodes,
						node->deadline, node - nodes)) {
			KUNIT_FAIL(test,
				   "pop %d: node %td (%llu) after node %td (%llu)",
				   n, node - nodes, node->deadline,
				   prev - nodes, prev->deadline);
			return -1;
		}
		prev = node;
		n++;
	}
	return n;
}

/* An empty heap without an array peeks and pops NULL and wants 16 slots. */
static void dwq_heap_test_empty(struct kunit *test)
{
	struct dwq_heap_node node;
	struct dwq_heap heap;

	dwq_heap_init(&heap, NULL, 0);
	dwq_heap_node_init(&node);
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), 0);
	KUNIT_EXPECT_NULL(test, dwq_heap_peek(&heap));
	KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 0), 0);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 1),
			DWQ_HEAP_MIN_CAPACITY);
	KUNIT_EXPECT_EQ(test, dwq_heap_insert(&heap, &node, 1), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, dwq_heap_node_queued(&node));
	KUNIT_EXPECT_EQ(test, heap.next_seq, 0);
}

/* Peek returns the earliest node and leaves it queued. */
static void dwq_heap_test_peek(struct kunit *test)
{
	struct dwq_heap_node *nodes = heap_test_nodes(test, 3);
	struct dwq_heap heap;

	heap_test_init(test, &heap, 16);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[0], 30), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[1], 10), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[2], 20), 0);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_peek(&heap), &nodes[1]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_peek(&heap), &nodes[1]);
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), 3);
	KUNIT_EXPECT_EQ(test, nodes[1].index, 0);
}

/* Pop order is sorted order, by deadline then by insertion. */
static void dwq_heap_test_pop_sorted(struct kunit *test)
{
	const unsigned int n = 1000;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct rnd_state rnd;
	struct dwq_heap heap;
	unsigned int i;

	prandom_seed_state(&rnd, HEAP_TEST_SEED);
	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i],
						prandom_u32_state(&rnd) % 256),
				0);
	KUNIT_ASSERT_TRUE(test, heap_test_check(test, &heap));
	KUNIT_EXPECT_EQ(test, heap_test_drain(test, &heap, nodes), n);
	KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
}

/*
 * A pop sends the hole down by a tournament where a slot has four
 * children and by a loop where it has fewer: at every size up to four
 * full levels and some, so that the last slot with children has each of
 * one to four at every depth, every pop keeps the heap whole and comes
 * out in order.
 */
static void dwq_heap_test_pop_every_size(struct kunit *test)
{
	const unsigned int max = 90;
	struct dwq_heap_node *nodes = heap_test_nodes(test, max);
	struct dwq_heap_node *node, *prev;
	struct rnd_state rnd;
	struct dwq_heap heap;
	unsigned int n, i;
	bool in_order;
	u64 key;

	prandom_seed_state(&rnd, HEAP_TEST_SEED);
	heap_test_init(test, &heap, max);
	for (n = 1; n <= max; n++) {
		for (i = 0; i < n; i++) {
			dwq_heap_node_init(&nodes[i]);
			key = prandom_u32_state(&rnd) % 64;
			KUNIT_ASSERT_EQ(test,
					dwq_heap_insert(&heap, &nodes[i], key),
					0);
		}
		for (prev = NULL, i = 0; i < n; prev = node, i++) {
			node = dwq_heap_pop(&heap);
			KUNIT_ASSERT_NOT_NULL(test, node);
			KUNIT_EXPECT_EQ(test, node->index, -1);
			in_order = !prev ||
				   heap_test_key_less(prev->deadline, prev->seq,
						      node->deadline,
						      node->seq);
			KUNIT_ASSERT_TRUE_MSG(test, in_order, "size %u, pop %u",
					      n, i);
			KUNIT_ASSERT_TRUE_MSG(test,
					      heap_test_check(test, &heap),
					      "size %u, pop %u", n, i);
		}
		KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
	}
}

/* Deadlines 0 and U64_MAX order like any others. */
static void dwq_heap_test_extreme_deadlines(struct kunit *test)
{
	static const u64 deadlines[] = {
		U64_MAX, 1, 0, U64_MAX - 1, U64_MAX, 0
	};
	struct dwq_heap_node *nodes =
		heap_test_nodes(test, ARRAY_SIZE(deadlines));
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, 16);
	for (i = 0; i < ARRAY_SIZE(deadlines); i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i], deadlines[i]),
				0);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[2]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[5]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[1]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[3]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[0]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[4]);
}

/* Nodes with equal deadlines leave in insertion order, others around. */
static void dwq_heap_test_fifo(struct kunit *test)
{
	const int n = 64;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap heap;
	int i;

	heap_test_init(test, &heap, n);
	/* Odd nodes share deadline 50, even ones are due 101 - i. */
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i],
						i % 2 ? 50 : 101 - i),
				0);
	for (i = n - 2; i >= 52; i -= 2) /* due 39..49 */
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	for (i = 1; i < n; i += 2) /* due 50, FIFO */
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	for (i = 50; i >= 0; i -= 2) /* due 51..101 */
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
}

/*
 * Updating another node keeps equal deadlines FIFO, and an updated node
 * goes after the nodes already waiting with its new deadline.
 */
static void dwq_heap_test_fifo_after_update(struct kunit *test)
{
	struct dwq_heap_node *nodes = heap_test_nodes(test, 7);
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, 16);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[5], 5), 0);
	for (i = 0; i < 4; i++)
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], 10), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[6], 30), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[4], 10), 0);

	dwq_heap_update(&heap, &nodes[5], 20); /* down through them */
	dwq_heap_update(&heap, &nodes[6], 10); /* up, behind them */
	dwq_heap_update(&heap, &nodes[1], 10); /* same deadline: to the back */
	KUNIT_ASSERT_TRUE(test, heap_test_check(test, &heap));

	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[0]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[2]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[3]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[4]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[6]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[1]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[5]);
	KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
}

/* An update to an earlier deadline moves the node up to the root. */
static void dwq_heap_test_update_up(struct kunit *test)
{
	const unsigned int n = 100;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i], 1000 + i), 0);
	KUNIT_ASSERT_EQ(test, nodes[n - 1].index, n - 1);
	dwq_heap_update(&heap, &nodes[n - 1], 999);
	KUNIT_EXPECT_EQ(test, nodes[n - 1].deadline, 999);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_peek(&heap), &nodes[n - 1]);
	KUNIT_EXPECT_EQ(test, nodes[n - 1].index, 0);
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), n);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
}

/* An update to a later deadline moves the node down, behind the rest. */
static void dwq_heap_test_update_down(struct kunit *test)
{
	const unsigned int n = 100;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i], 1000 + i), 0);
	dwq_heap_update(&heap, &nodes[0], 5000);
	KUNIT_EXPECT_EQ(test, nodes[0].deadline, 5000);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_peek(&heap), &nodes[1]);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[0]);
}

/* Removing the root leaves the next earliest at the root. */
static void dwq_heap_test_remove_root(struct kunit *test)
{
	const unsigned int n = 50;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i], (i * 7) % n),
				0);
	KUNIT_ASSERT_PTR_EQ(test, dwq_heap_peek(&heap), &nodes[0]);
	dwq_heap_remove(&heap, &nodes[0]);
	KUNIT_EXPECT_EQ(test, nodes[0].index, -1);
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), n - 1);
	/* (i * 7) % 50 == 1 for i == 43 */
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_peek(&heap), &nodes[43]);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
	KUNIT_EXPECT_EQ(test, heap_test_drain(test, &heap, nodes), n - 1);
}

/*
 * Removing the last slot moves nothing: every other node keeps its slot,
 * and the array keeps its order.
 */
static void dwq_heap_test_remove_last(struct kunit *test)
{
	const unsigned int n = 40;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap_slot *before;
	struct dwq_heap_node *last;
	struct dwq_heap heap;
	unsigned int i;
	int *index;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], n - i),
				0);
	before = kunit_kmalloc_array(test, n, sizeof(*before), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, heap.slots, n * sizeof(*before));
	index = kunit_kmalloc_array(test, n, sizeof(*index), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, index);
	for (i = 0; i < n; i++)
		index[i] = nodes[i].index;

	last = heap.slots[n - 1].node;
	dwq_heap_remove(&heap, last);
	KUNIT_EXPECT_EQ(test, last->index, -1);
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), n - 1);
	for (i = 0; i < n; i++)
		if (&nodes[i] != last)
			KUNIT_EXPECT_EQ_MSG(test, nodes[i].index, index[i],
					    "node %u moved", i);
	KUNIT_EXPECT_EQ(test,
			memcmp(before, heap.slots, (n - 1) * sizeof(*before)),
			0);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
}

/*
 * Every position of every heap of 1..64 nodes can be removed: the heap
 * stays valid and the rest pops in order.
 */
static void dwq_heap_test_remove_every_position(struct kunit *test)
{
	const unsigned int max = 64;
	struct dwq_heap_node *nodes = heap_test_nodes(test, max);
	struct dwq_heap_node *victim;
	struct rnd_state rnd;
	struct dwq_heap heap;
	unsigned int n, pos, i;
	u64 *deadlines;

	deadlines =
		kunit_kmalloc_array(test, max, sizeof(*deadlines), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, deadlines);
	heap_test_init(test, &heap, max);
	for (n = 1; n <= max; n++) {
		/* One heap per size, rebuilt identically for each position. */
		prandom_seed_state(&rnd, HEAP_TEST_SEED + n);
		for (i = 0; i < n; i++)
			deadlines[i] = prandom_u32_state(&rnd) % 16;
		for (pos = 0; pos < n; pos++) {
			dwq_heap_init(&heap, heap.slots, max);
			for (i = 0; i < n; i++) {
				dwq_heap_node_init(&nodes[i]);
				KUNIT_ASSERT_EQ(test,
						dwq_heap_insert(&heap,
								&nodes[i],
								deadlines[i]),
						0);
			}
			victim = heap.slots[pos].node;
			dwq_heap_remove(&heap, victim);
			KUNIT_ASSERT_EQ_MSG(test, victim->index, -1,
					    "n %u pos %u", n, pos);
			KUNIT_ASSERT_EQ_MSG(test, dwq_heap_size(&heap), n - 1,
					    "n %u pos %u", n, pos);
			KUNIT_ASSERT_TRUE_MSG(test,
					      heap_test_check(test, &heap),
					      "n %u pos %u", n, pos);
			KUNIT_ASSERT_EQ_MSG(test,
					    heap_test_drain(test, &heap, nodes),
					    n - 1, "n %u pos %u", n, pos);
		}
	}
}

/* A removed or popped node can be queued again. */
static void dwq_heap_test_reinsert(struct kunit *test)
{
	struct dwq_heap_node *nodes = heap_test_nodes(test, 3);
	struct dwq_heap heap;

	heap_test_init(test, &heap, 16);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[0], 1), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[1], 2), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[2], 3), 0);
	KUNIT_ASSERT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[0]);
	dwq_heap_remove(&heap, &nodes[2]);
	KUNIT_ASSERT_FALSE(test, dwq_heap_node_queued(&nodes[2]));
	KUNIT_EXPECT_EQ(test, dwq_heap_insert(&heap, &nodes[2], 2), 0);
	KUNIT_EXPECT_EQ(test, dwq_heap_insert(&heap, &nodes[0], 0), 0);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[0]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[1]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[2]);
}

/*
 * Nodes popped, or removed, and restored take back their places among the
 * nodes of their deadline that stayed: all due at one deadline, the first
 * eight popped and put back in any order (the last first, as a read()
 * that could not copy them does not), one removed from the middle, then
 * every node leaves in the order it was inserted. A full heap refuses a
 * restore with -ENOSPC and changes nothing. (A queued node's -EBUSY warns:
 * not tested, see above.)
 */
static void dwq_heap_test_restore(struct kunit *test)
{
	const int n = 40;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n + 1);
	struct dwq_heap_node *popped[8];
	struct dwq_heap heap;
	int i;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], 7), 0);
	for (i = 0; i < 8; i++)
		popped[i] = dwq_heap_pop(&heap);
	dwq_heap_remove(&heap, &nodes[20]);
	for (i = 7; i >= 0; i--)
		KUNIT_ASSERT_EQ(test, dwq_heap_restore(&heap, popped[i]), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_restore(&heap, &nodes[20]), 0);
	KUNIT_ASSERT_TRUE(test, heap_test_check(test, &heap));

	/* Full: nothing changes. */
	dwq_heap_node_init(&nodes[n]);
	nodes[n].deadline = 1;
	KUNIT_EXPECT_EQ(test, dwq_heap_restore(&heap, &nodes[n]), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, dwq_heap_node_queued(&nodes[n]));
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), n);
	KUNIT_ASSERT_TRUE(test, heap_test_check(test, &heap));

	for (i = 0; i < n; i++)
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
}

/*
 * Lowering keys in a walk up the slots, as a resume re-keys the tasks of
 * the other clock: every node passed is lowered once, the heap stays
 * ordered, and nodes lowered onto one deadline keep their order of seq
 * among themselves and behind a node already there.
 */
static void dwq_heap_test_lower(struct kunit *test)
{
	const int n = 64;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap_node *node, *first;
	struct dwq_heap heap;
	int i;

	heap_test_init(test, &heap, n);
	/* nodes[0] at 1000; the odd ones at 2000 + i, the even ones later. */
	KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[0], 1000), 0);
	for (i = 1; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i],
						(i & 1 ? 2000 : 5000) + i),
				0);
	/* Every odd node to 1000, in slot order. */
	for (i = 0; i < n; i++) {
		node = heap.slots[i].node;
		if ((node - nodes) & 1 && node->deadline > 1000)
			dwq_heap_lower(&heap, node, 1000);
		KUNIT_ASSERT_TRUE(test, heap_test_check(test, &heap));
	}
	first = dwq_heap_pop(&heap);
	KUNIT_EXPECT_PTR_EQ(test, first, &nodes[0]);
	for (i = 1; i < n; i += 2)
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	for (i = 2; i < n; i += 2)
		KUNIT_EXPECT_PTR_EQ(test, dwq_heap_pop(&heap), &nodes[i]);
	KUNIT_EXPECT_NULL(test, dwq_heap_pop(&heap));
}

/*
 * Adding nodes one at a time and adopting every capacity asked for grows
 * the array 16, 24, 36, 54, 81, 121, each time exactly when it is full.
 */
static void dwq_heap_test_growth_sequence(struct kunit *test)
{
	static const unsigned int expect[] = { 16, 24, 36, 54, 81, 121 };
	const unsigned int n = 121;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	unsigned int i, want, grown = 0;
	struct dwq_heap heap;

	dwq_heap_init(&heap, NULL, 0);
	for (i = 0; i < n; i++) {
		want = dwq_heap_want_capacity(&heap, 1);
		if (want != heap.cap) {
			KUNIT_ASSERT_LT(test, grown, ARRAY_SIZE(expect));
			KUNIT_EXPECT_EQ(test, want, expect[grown]);
			KUNIT_EXPECT_EQ(test, heap.nr, heap.cap);
			heap_test_resize(test, &heap, want);
			grown++;
		}
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], n - i),
				0);
	}
	KUNIT_EXPECT_EQ(test, grown, ARRAY_SIZE(expect));
	KUNIT_EXPECT_EQ(test, heap.cap, 121);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
	KUNIT_EXPECT_EQ(test, heap_test_drain(test, &heap, nodes), n);
}

/*
 * Draining shrinks the array by half each time occupancy falls to a
 * quarter, never below 16, and a shrunk heap does not grow straight back.
 */
static void dwq_heap_test_shrink_after_drain(struct kunit *test)
{
	static const unsigned int expect[] = { 203, 101, 50, 25, 16 };
	const unsigned int n = 406;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	unsigned int i, want, shrunk = 0;
	struct dwq_heap heap;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], i), 0);
	KUNIT_ASSERT_EQ(test, dwq_heap_want_capacity(&heap, 0), n);

	while (dwq_heap_pop(&heap)) {
		want = dwq_heap_want_capacity(&heap, 0);
		if (want == heap.cap)
			continue;
		KUNIT_ASSERT_LT(test, shrunk, ARRAY_SIZE(expect));
		KUNIT_EXPECT_EQ(test, want, expect[shrunk]);
		KUNIT_EXPECT_EQ(test, heap.nr, heap.cap / 4);
		heap_test_resize(test, &heap, want);
		shrunk++;
		/* Hysteresis: half full now, one more node fits. */
		KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 1), want);
		KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
	}
	KUNIT_EXPECT_EQ(test, shrunk, ARRAY_SIZE(expect));
	KUNIT_EXPECT_EQ(test, heap.cap, DWQ_HEAP_MIN_CAPACITY);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 0),
			DWQ_HEAP_MIN_CAPACITY);
}

/* A batch of @extra nodes gets its capacity in one step. */
static void dwq_heap_test_want_capacity_batch(struct kunit *test)
{
	struct dwq_heap heap;

	dwq_heap_init(&heap, NULL, 0);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 16), 16);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 17), 24);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 81), 81);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 82), 121);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 1000), 1369);

	/* Only nr and cap matter; no nodes needed to ask. */
	heap.nr = 10;
	heap.cap = 16;
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 6), 16);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 7), 24);
	heap.nr = 0;
	heap.cap = 121;
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 30), 60);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 31), 121);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 122), 181);
	/* A capacity off the sequence grows from itself. */
	heap.nr = 5;
	heap.cap = 5;
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 1), 16);
	heap.cap = 100;
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 96), 150);
}

/*
 * dwq_heap_shrunk_capacity() lands in one step where asking
 * dwq_heap_want_capacity(heap, 0) again after each shrink would, and
 * leaves a heap alone that it would not shrink.
 */
static void dwq_heap_test_shrunk_capacity(struct kunit *test)
{
	struct dwq_heap heap, step;
	unsigned int nr, want;

	dwq_heap_init(&heap, NULL, 0);
	heap.cap = 1369;
	heap.nr = 0;
	KUNIT_EXPECT_EQ(test, dwq_heap_shrunk_capacity(&heap),
			DWQ_HEAP_MIN_CAPACITY);
	heap.nr = 10;
	KUNIT_EXPECT_EQ(test, dwq_heap_shrunk_capacity(&heap), 21U);
	heap.nr = 342;
	KUNIT_EXPECT_EQ(test, dwq_heap_shrunk_capacity(&heap), 684U);
	heap.nr = 343;
	KUNIT_EXPECT_EQ(test, dwq_heap_shrunk_capacity(&heap), 1369U);
	/* At or below the smallest size: never shrunk, nor grown. */
	heap.cap = DWQ_HEAP_MIN_CAPACITY;
	heap.nr = 0;
	KUNIT_EXPECT_EQ(test, dwq_heap_shrunk_capacity(&heap),
			DWQ_HEAP_MIN_CAPACITY);
	heap.cap = 5;
	KUNIT_EXPECT_EQ(test, dwq_heap_shrunk_capacity(&heap), 5U);

	for (nr = 0; nr <= 1369; nr++) {
		step = (struct dwq_heap){ .nr = nr, .cap = 1369 };
		while ((want = dwq_heap_want_capacity(&step, 0)) < step.cap)
			step.cap = want;
		heap = (struct dwq_heap){ .nr = nr, .cap = 1369 };
		KUNIT_ASSERT_EQ_MSG(test, dwq_heap_shrunk_capacity(&heap),
				    step.cap, "nr %u", nr);
	}
}

/* A size no index can hold is refused with 0, not wrapped. */
static void dwq_heap_test_want_capacity_limits(struct kunit *test)
{
	struct dwq_heap heap;

	dwq_heap_init(&heap, NULL, 0);
	KUNIT_EXPECT_EQ(test,
			dwq_heap_want_capacity(&heap, DWQ_HEAP_MAX_CAPACITY),
			DWQ_HEAP_MAX_CAPACITY);
	KUNIT_EXPECT_EQ(test,
			dwq_heap_want_capacity(&heap,
					       DWQ_HEAP_MAX_CAPACITY + 1),
			0);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, UINT_MAX), 0);
	heap.nr = 10;
	heap.cap = 16;
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, UINT_MAX - 5), 0);
	heap.nr = DWQ_HEAP_MAX_CAPACITY;
	heap.cap = DWQ_HEAP_MAX_CAPACITY;
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 0),
			DWQ_HEAP_MAX_CAPACITY);
	KUNIT_EXPECT_EQ(test, dwq_heap_want_capacity(&heap, 1), 0);
}

/*
 * A growth the caller cannot allocate (so it never adopts) leaves the
 * heap as it was: insert says -ENOSPC and changes nothing.
 */
static void dwq_heap_test_failed_growth(struct kunit *test)
{
	const unsigned int n = DWQ_HEAP_MIN_CAPACITY;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n + 1);
	struct dwq_heap_slot *before;
	struct dwq_heap heap, copy;
	unsigned int i;

	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i], (i * 5) % 7),
				0);
	KUNIT_ASSERT_EQ(test, dwq_heap_want_capacity(&heap, 1), 24);
	before = kunit_kmalloc_array(test, n, sizeof(*before), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, heap.slots, n * sizeof(*before));
	copy = heap;

	KUNIT_EXPECT_EQ(test, dwq_heap_insert(&heap, &nodes[n], 0), -ENOSPC);
	KUNIT_EXPECT_FALSE(test, dwq_heap_node_queued(&nodes[n]));
	KUNIT_EXPECT_EQ(test, memcmp(&heap, &copy, sizeof(heap)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(before, heap.slots, n * sizeof(*before)),
			0);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));

	/* The allocation succeeds on a retry: then the insert does too. */
	heap_test_resize(test, &heap, dwq_heap_want_capacity(&heap, 1));
	KUNIT_EXPECT_EQ(test, dwq_heap_insert(&heap, &nodes[n], 0), 0);
	KUNIT_EXPECT_EQ(test, heap_test_drain(test, &heap, nodes), n + 1);
}

/* Adopt refuses an array too small for the nodes and hands it back. */
static void dwq_heap_test_adopt_too_small(struct kunit *test)
{
	const unsigned int n = 20;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	struct dwq_heap_slot *old, *small;
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, 24);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], i), 0);
	old = heap.slots;
	small = kunit_kmalloc_array(test, n - 1, sizeof(*small), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, small);

	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_adopt(&heap, small, n - 1), small);
	KUNIT_EXPECT_PTR_EQ(test, heap.slots, old);
	KUNIT_EXPECT_EQ(test, heap.cap, 24);
	KUNIT_EXPECT_EQ(test, dwq_heap_size(&heap), n);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
	KUNIT_EXPECT_EQ(test, heap_test_drain(test, &heap, nodes), n);
}

/*
 * Adopt moves the nodes to the new array at the same slots, returns the
 * old array, and an exact fit is full.
 */
static void dwq_heap_test_adopt_exact(struct kunit *test)
{
	const unsigned int n = 20;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n + 1);
	struct dwq_heap_slot *old, *exact;
	struct dwq_heap heap;
	unsigned int i;

	heap_test_init(test, &heap, 24);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, dwq_heap_insert(&heap, &nodes[i], i % 3),
				0);
	old = heap.slots;
	exact = kunit_kmalloc_array(test, n, sizeof(*exact), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, exact);

	KUNIT_EXPECT_PTR_EQ(test, dwq_heap_adopt(&heap, exact, n), old);
	KUNIT_EXPECT_PTR_EQ(test, heap.slots, exact);
	KUNIT_EXPECT_EQ(test, heap.cap, n);
	KUNIT_EXPECT_EQ(test, memcmp(old, exact, n * sizeof(*exact)), 0);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
	KUNIT_EXPECT_EQ(test, dwq_heap_insert(&heap, &nodes[n], 0), -ENOSPC);
	KUNIT_EXPECT_EQ(test, heap_test_drain(test, &heap, nodes), n);
}

#define HEAP_TEST_BIG 4096
#define HEAP_TEST_REMOVES 1024
#define HEAP_TEST_POPS 256

/* Depth of slot @i: the root is at depth 0. */
static unsigned int heap_test_depth(unsigned int i)
{
	unsigned int d = 0;

	for (; i; i = (i - 1) / DWQ_HEAP_ARITY)
		d++;
	return d;
}

/*
 * The slots of @heap whose node is not the one @before had there: how
 * many, or -1 after reporting one that is not on the path from the deepest
 * of them to the root (a descendant always has the higher slot number).
 */
static int heap_test_moved(struct kunit *test, const struct dwq_heap *heap,
			   const struct dwq_heap_slot *before)
{
	const struct dwq_heap_slot *s = heap->slots;
	unsigned int i, deepest = 0, moved = 0, on_path = 0;

	for (i = 0; i < heap->nr; i++) {
		if (s[i].node != before[i].node) {
			moved++;
			deepest = i;
		}
	}
	if (!moved)
		return 0;
	for (i = deepest;; i = (i - 1) / DWQ_HEAP_ARITY) {
		on_path += s[i].node != before[i].node;
		if (!i)
			break;
	}
	if (on_path != moved) {
		KUNIT_FAIL(test,
			   "%u slots changed, only %u of them on the path from slot %u to the root",
			   moved, on_path, deepest);
		return -1;
	}
	return moved;
}

/*
 * A remove, at a random slot or at the root, moves only nodes of one path
 * from the root to a leaf: at most D + 1 of them, where D is the depth of
 * the last slot (6 for d = 4 and n = 4096). The hole walks down from the
 * removed slot to a leaf, one child moving up per level, and the last entry
 * then fills it and sifts up that leaf's ancestors: every slot it writes is
 * on the root-to-leaf path, which is what keeps remove O(log n).
 *
 * Every node's slot is compared before and after each remove, so n is
 * kept small enough for the whole array to be checked every time.
 */
static void dwq_heap_test_remove_moves(struct kunit *test)
{
	const unsigned int n = HEAP_TEST_BIG;
	const unsigned int bound = heap_test_depth(n - 1) + 1;
	struct dwq_heap_node *nodes = heap_test_nodes(test, n);
	u64 sum = 0, worst = 0, root_sum = 0, root_worst = 0;
	struct dwq_heap_slot *before;
	struct dwq_heap_node *node;
	struct rnd_state rnd;
	struct dwq_heap heap;
	unsigned int i;
	int moved;

	before = heap_test_alloc(test, n, sizeof(*before));
	prandom_seed_state(&rnd, HEAP_TEST_SEED);
	heap_test_init(test, &heap, n);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, &nodes[i],
						prandom_u32_state(&rnd)),
				0);

	/* Remove at a random slot, then put it back: n stays 4096. */
	for (i = 0; i < HEAP_TEST_REMOVES; i++) {
		node = heap.slots[prandom_u32_state(&rnd) % n].node;
		memcpy(before, heap.slots, n * sizeof(*before));
		dwq_heap_remove(&heap, node);
		moved = heap_test_moved(test, &heap, before);
		KUNIT_ASSERT_GE(test, moved, 0);
		sum += moved;
		worst = max_t(u64, worst, moved);
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, node,
						prandom_u32_state(&rnd)),
				0);
	}
	for (i = 0; i < HEAP_TEST_POPS; i++) {
		memcpy(before, heap.slots, n * sizeof(*before));
		node = dwq_heap_pop(&heap);
		moved = heap_test_moved(test, &heap, before);
		KUNIT_ASSERT_GE(test, moved, 0);
		root_sum += moved;
		root_worst = max_t(u64, root_worst, moved);
		KUNIT_ASSERT_EQ(test,
				dwq_heap_insert(&heap, node,
						prandom_u32_state(&rnd)),
				0);
	}
	kunit_info(test,
		   "arity %d, n %u, bound %u: random slot avg %llu.%02llu max %llu; root avg %llu.%02llu max %llu\n",
		   DWQ_HEAP_ARITY, n, bound, sum / HEAP_TEST_REMOVES,
		   sum * 100 / HEAP_TEST_REMOVES % 100, worst,
		   root_sum / HEAP_TEST_POPS,
		   root_sum * 100 / HEAP_TEST_POPS % 100, root_worst);
	KUNIT_EXPECT_LE(test, worst, bound);
	KUNIT_EXPECT_LE(test, root_worst, bound);
	KUNIT_EXPECT_TRUE(test, heap_test_check(test, &heap));
}

/*
 * The differential test. The model is a plain array of the queued nodes
 * with their keys, in no order: the minimum is found by a linear scan, a
 * node is dropped by moving the last entry into its place. Its sequence
 * numbers are its own, so it checks the heap's FIFO rather than trusting
 * the heap's seq.
 */
#define HEAP_TEST_OPS 100000
#define HEAP_TEST_POOL 4096
#define HEAP_TEST_CHECK_ALL 128 /* full check after every op up to */
#define HEAP_TEST_CHECK_EVERY 512 /* above: every this many ops */

struct heap_test_ref {
	u64 deadline;
	u64 seq;
	struct dwq_heap_node *node;
};

struct heap_test_random {
	struct kunit *test;
	struct rnd_state rnd;
	struct dwq_heap heap;
	struct heap_test_ref *ref; /* the model: queued nodes */
	unsigned int nr;
	u64 next_seq;
	struct dwq_heap_node **free; /* nodes not queued */
	unsigned int nr_free;
	unsigned int target; /* size the op mix drifts towards */
	unsigned long ops[5], resizes, refused;
	unsigned int max_nr;
};

enum {
	HEAP_TEST_INSERT,
	HEAP_TEST_POP,
	HEAP_TEST_REMOVE,
	HEAP_TEST_UPDATE,
	HEAP_TEST_PEEK
};

static u32 heap_test_rand(struct heap_test_random *t, u32 range)
{
	return prandom_u32_state(&t->rnd) % range;
}

/* Mostly a few values (ties), sometimes a wide range or an extreme. */
static u64 heap_test_deadline(struct heap_test_random *t)
{
	u32 r = prandom_u32_state(&t->rnd);

	switch (r % 16) {
	case 0:
		return 0;
	case 1:
		return U64_MAX;
	case 2 ... 9:
		return 1000 + (r >> 4) % 8;
	default:
		return 1000 + (r >> 4) % 100000;
	}
}

static struct heap_test_ref *heap_test_model_min(struct heap_test_random *t)
{
	struct heap_test_ref *min = NULL, *r;

	for (r = t->ref; r < t->ref + t->nr; r++)
		if (!min || heap_test_key_less(r->deadline, r->seq,
					       min->deadline, min->seq))
			min = r;
	return min;
}

static void heap_test_model_drop(struct heap_test_random *t,
				 struct heap_test_ref *r)
{
	t->free[t->nr_free++] = r->node;
	*r = t->ref[--t->nr];
}

/* After a removal, shrink if asked to, as a caller would. */
static void heap_test_random_shrink(struct heap_test_random *t)
{
	unsigned int want = dwq_heap_want_capacity(&t->heap, 0);

	if (want != t->heap.cap) {
		heap_test_resize(t->test, &t->heap, want);
		t->resizes++;
	}
}

static const char *heap_test_random_insert(struct heap_test_random *t)
{
	unsigned int want = dwq_heap_want_capacity(&t->heap, 1);
	struct dwq_heap_node *node;
	unsigned int i;
	u64 deadline;
	int ret;

	i = heap_test_rand(t, t->nr_free);
	node = t->free[i];
	t->free[i] = t->free[--t->nr_free];
	deadline = heap_test_deadline(t);

	/* Sometimes the allocation "fails": the caller cannot adopt. */
	if (want != t->heap.cap && heap_test_rand(t, 32)) {
		heap_test_resize(t->test, &t->heap, want);
		t->resizes++;
	}
	ret = dwq_heap_insert(&t->heap, node, deadline);
	if (ret) {
		t->free[t->nr_free++] = node;
		if (ret != -ENOSPC || t->heap.nr != t->heap.cap)
			return "insert refused with room to spare";
		if (node->index != -1)
			return "refused insert queued the node";
		t->refused++;
		return NULL;
	}
	t->ref[t->nr].deadline = deadline;
	t->ref[t->nr].seq = t->next_seq++;
	t->ref[t->nr].node = node;
	t->nr++;
	if (node->deadline != deadline || node->index < 0)
		return "inserted node has the wrong key or no slot";
	return NULL;
}

static const char *heap_test_random_pop(struct heap_test_random *t)
{
	struct heap_test_ref *min = heap_test_model_min(t);
	struct dwq_heap_node *got = dwq_heap_pop(&t->heap);

	if (!min)
		return got ? "pop of an empty heap returned a node" : NULL;
	if (got != min->node)
		return "pop returned the wrong node";
	if (got->index != -1)
		return "popped node still has a slot";
	heap_test_model_drop(t, min);
	heap_test_random_shrink(t);
	return NULL;
}

static const char *heap_test_random_remove(struct heap_test_random *t)
{
	struct heap_test_ref *r;

	if (!t->nr)
		return NULL;
	r = &t->ref[heap_test_rand(t, t->nr)];
	dwq_heap_remove(&t->heap, r->node);
	if (r->node->index != -1)
		return "removed node still has a slot";
	heap_test_model_drop(t, r);
	heap_test_random_shrink(t);
	return NULL;
}

static const char *heap_test_random_update(struct heap_test_random *t)
{
	struct heap_test_ref *r;

	if (!t->nr)
		return NULL;
	r = &t->ref[heap_test_rand(t, t->nr)];
	r->deadline = heap_test_deadline(t);
	r->seq = t->next_seq++;
	dwq_heap_update(&t->heap, r->node, r->deadline);
	if (r->node->deadline != r->deadline || r->node->index < 0)
		return "updated node has the wrong key or no slot";
	return NULL;
}

static const char *heap_test_random_peek(struct heap_test_random *t)
{
	struct heap_test_ref *min = heap_test_model_min(t);
	struct dwq_heap_node *got = dwq_heap_peek(&t->heap);

	if (got != (min ? min->node : NULL))
		return "peek returned the wrong node";
	return NULL;
}

static const char *heap_test_random_op(struct heap_test_random *t)
{
	unsigned int r = heap_test_rand(t, 100);
	unsigned int grow = t->nr < t->target ? 55 : 25;
	unsigned int op;

	if (r < grow && t->nr_free)
		op = HEAP_TEST_INSERT;
	else
		op = HEAP_TEST_POP + heap_test_rand(t, 4);
	t->ops[op]++;
	switch (op) {
	case HEAP_TEST_INSERT:
		return heap_test_random_insert(t);
	case HEAP_TEST_POP:
		return heap_test_random_pop(t);
	case HEAP_TEST_REMOVE:
		return heap_test_random_remove(t);
	case HEAP_TEST_UPDATE:
		return heap_test_random_update(t);
	default:
		return heap_test_random_peek(t);
	}
}

/* Every model node is where the heap says, and the heap is valid. */
static bool heap_test_random_check(struct heap_test_random *t)
{
	const struct dwq_heap *heap = &t->heap;
	struct dwq_heap_node *node;
	unsigned int i;

	if (!heap_test_check(t->test, heap))
		return false;
	for (i = 0; i < t->nr; i++) {
		node = t->ref[i].node;
		if (node->index < 0 || node->index >= heap->nr ||
		    heap->slots[node->index].node != node ||
		    node->deadline != t->ref[i].deadline) {
			KUNIT_FAIL(t->test,
				   "model node %u is not at its slot %d", i,
				   node->index);
			return false;
		}
	}
	return true;
}

/* Sizes the op mix drifts towards, each for an equal share of the ops. */
static const unsigned int heap_test_targets[] = {
	1, 4, 16, 2, 64, 8, 100, 3, 32, 0, 50, 1024, 3000, 200,
};

/*
 * 100k random inserts, pops, removes, updates and peeks, with the growth
 * and shrink a caller does, agree with the model; the heap stays valid.
 */
static void dwq_heap_test_random_ops(struct kunit *test)
{
	const u64 seed = HEAP_TEST_SEED;
	struct dwq_heap_node *nodes;
	struct heap_test_random *t;
	const char *err;
	unsigned int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->test = test;
	prandom_seed_state(&t->rnd, seed);
	dwq_heap_init(&t->heap, NULL, 0);
	t->ref = heap_test_alloc(test, HEAP_TEST_POOL, sizeof(*t->ref));
	t->free = heap_test_alloc(test, HEAP_TEST_POOL, sizeof(*t->free));
	nodes = heap_test_alloc(test, HEAP_TEST_POOL, sizeof(*nodes));
	for (i = 0; i < HEAP_TEST_POOL; i++) {
		dwq_heap_node_init(&nodes[i]);
		t->free[t->nr_free++] = &nodes[i];
	}

	for (i = 0; i < HEAP_TEST_OPS; i++) {
		t->target =
			heap_test_targets[i * ARRAY_SIZE(heap_test_targets) /
					  HEAP_TEST_OPS];
		err = heap_test_random_op(t);
		if (!err && t->heap.nr != t->nr)
			err = "heap size differs from the model";
		if (err) {
			KUNIT_FAIL(test, "seed %#llx, op %u: %s", seed, i, err);
			return;
		}
		t->max_nr = max(t->max_nr, t->nr);
		if (t->nr > HEAP_TEST_CHECK_ALL && i % HEAP_TEST_CHECK_EVERY)
			continue;
		if (!heap_test_random_check(t)) {
			KUNIT_FAIL(test, "seed %#llx, op %u: invariant", seed,
				   i);
			return;
		}
	}
	KUNIT_EXPECT_TRUE_MSG(test, heap_test_random_check(t), "seed %#llx",
			      seed);
	kunit_info(test,
		   "seed %#llx: %lu inserts (%lu refused), %lu pops, %lu removes, %lu updates, %lu peeks, %lu resizes, max size %u\n",
		   seed, t->ops[HEAP_TEST_INSERT], t->refused,
		   t->ops[HEAP_TEST_POP], t->ops[HEAP_TEST_REMOVE],
		   t->ops[HEAP_TEST_UPDATE], t->ops[HEAP_TEST_PEEK], t->resizes,
		   t->max_nr);
}

static struct kunit_case dwq_heap_test_cases[] = {
	KUNIT_CASE(dwq_heap_test_empty),
	KUNIT_CASE(dwq_heap_test_peek),
	KUNIT_CASE(dwq_heap_test_pop_sorted),
	KUNIT_CASE(dwq_heap_test_pop_every_size),
	KUNIT_CASE(dwq_heap_test_extreme_deadlines),
	KUNIT_CASE(dwq_heap_test_fifo),
	KUNIT_CASE(dwq_heap_test_fifo_after_update),
	KUNIT_CASE(dwq_heap_test_update_up),
	KUNIT_CASE(dwq_heap_test_update_down),
	KUNIT_CASE(dwq_heap_test_remove_root),
	KUNIT_CASE(dwq_heap_test_remove_last),
	KUNIT_CASE(dwq_heap_test_remove_every_position),
	KUNIT_CASE(dwq_heap_test_reinsert),
	KUNIT_CASE(dwq_heap_test_restore),
	KUNIT_CASE(dwq_heap_test_lower),
	KUNIT_CASE(dwq_heap_test_growth_sequence),
	KUNIT_CASE(dwq_heap_test_shrink_after_drain),
	KUNIT_CASE(dwq_heap_test_want_capacity_batch),
	KUNIT_CASE(dwq_heap_test_shrunk_capacity),
	KUNIT_CASE(dwq_heap_test_want_capacity_limits),
	KUNIT_CASE(dwq_heap_test_failed_growth),
	KUNIT_CASE(dwq_heap_test_adopt_too_small),
	KUNIT_CASE(dwq_heap_test_adopt_exact),
	KUNIT_CASE(dwq_heap_test_remove_moves),
	KUNIT_CASE(dwq_heap_test_random_ops),
	{}
};

static struct kunit_suite dwq_heap_test_suite = {
	.name = "dwq_heap",
	.test_cases = dwq_heap_test_cases,
};

kunit_test_suite(dwq_heap_test_suite);
