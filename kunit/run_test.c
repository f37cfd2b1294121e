// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the dwq run (module/run.h), the ring of nodes in key
 * order beside each /dev/dwq clock's heap: appending only after the last
 * key, popping and pushing at the front, holes left by removals and
 * skipped at both ends, compaction, moving to a new ring, the capacities
 * asked for, and a randomized differential test against a plain array.
 *
 * Not tested, on purpose: the misuse run.h answers with WARN_ON_ONCE
 * (appending or pushing to a full ring, removing a node that is not in
 * it, adopting a ring that is too small). Guests run with panic_on_warn=1,
 * where reaching a WARN is a failure by design.
 */
#include <linux/mm.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/test.h>

#include "run.h"

/* "dwq-run": change it to explore, failures print the one in use. */
#define RUN_TEST_SEED 0x6477712d72756eULL

KUNIT_DEFINE_ACTION_WRAPPER(run_test_kvfree, kvfree, const void *);

static void *run_test_alloc(struct kunit *test, size_t n, size_t size)
{
	void *p = kvcalloc(n, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, run_test_kvfree, p), 0);
	return p;
}

/* An empty run with a ring of @cap slots. */
static void run_test_init(struct kunit *test, struct dwq_run *run,
			  unsigned int cap)
{
	dwq_run_init(run);
	KUNIT_ASSERT_NULL(test,
			  dwq_run_adopt(run,
					run_test_alloc(test, cap,
						       sizeof(*run->slots)),
					cap));
}

/* @n nodes with deadlines 10, 20, ... and seqs 0, 1, ... */
static struct dwq_heap_node *run_test_nodes(struct kunit *test, unsigned int n)
{
	struct dwq_heap_node *nodes = run_test_alloc(test, n, sizeof(*nodes));
	unsigned int i;

	for (i = 0; i < n; i++) {
		nodes[i].deadline = 10 * (i + 1);
		nodes[i].seq = i;
		nodes[i].index = -1;
	}
	return nodes;
}

/*
 * The invariants: @nr nodes from the first, keys increasing, each knowing
 * its slot; the ends are nodes; holes within the compaction bound.
 */
static void run_test_check(struct kunit *test, const struct dwq_run *run)
{
	const struct dwq_heap_node *node, *prev = NULL;
	unsigned int pos, nr = 0;

	KUNIT_ASSERT_LE(test, run->len, run->cap);
	for (pos = 0; pos < run->len; pos++) {
		node = dwq_run_at(run, pos);
		if (!node)
			continue;
		nr++;
		KUNIT_ASSERT_EQ(test, node->index,
				DWQ_RUN_INDEX(dwq_run_slot(run, pos)));
		if (prev)
			KUNIT_ASSERT_TRUE(test,
					  dwq_run_key_before(prev->deadline,
							     prev->seq,
							     node->deadline,
							     node->seq));
		prev = node;
	}
	KUNIT_ASSERT_EQ(test, nr, run->nr);
	if (!run->nr) {
		KUNIT_ASSERT_EQ(test, run->len, 0U);
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, dwq_run_at(run, 0));
	KUNIT_ASSERT_NOT_NULL(test, dwq_run_at(run, run->len - 1));
	KUNIT_ASSERT_LE(test, run->len - run->nr,
			max(run->nr, DWQ_RUN_HOLES_MIN));
}

/* Only a key after the last fits, and only with room; pops in order. */
static void dwq_run_test_append_pop(struct kunit *test)
{
	struct dwq_heap_node *nodes = run_test_nodes(test, 17);
	struct dwq_run run;
	unsigned int i;

	run_test_init(test, &run, 16);
	KUNIT_EXPECT_NULL(test, dwq_run_first(&run));
	KUNIT_EXPECT_NULL(test, dwq_run_pop(&run));
	KUNIT_EXPECT_TRUE(test, dwq_run_fits(&run, 0, 0));
	for (i = 0; i < 16; i++) {
		KUNIT_ASSERT_TRUE(test, dwq_run_fits(&run, nodes[i].deadline,
						     nodes[i].seq));
		dwq_run_append(&run, &nodes[i]);
		KUNIT_EXPECT_TRUE(test, dwq_run_node_queued(&nodes[i]));
		KUNIT_EXPECT_PTR_EQ(test, dwq_run_last(&run), &nodes[i]);
	}
	run_test_check(test, &run);
	/* Full: even the next key does not fit. */
	KUNIT_EXPECT_FALSE(test, dwq_run_fits(&run, nodes[16].deadline,
					      nodes[16].seq));
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_pop(&run), &nodes[0]);
	KUNIT_EXPECT_EQ(test, nodes[0].index, -1);
	KUNIT_EXPECT_FALSE(test, dwq_run_node_queued(&nodes[0]));
	/* Room again, but a key before the last, or equal to it, does not. */
	KUNIT_EXPECT_FALSE(test,
			   dwq_run_fits(&run, nodes[15].deadline - 1, 100));
	KUNIT_EXPECT_FALSE(test, dwq_run_fits(&run, nodes[15].deadline,
					      nodes[15].seq));
	KUNIT_EXPECT_TRUE(test, dwq_run_fits(&run, nodes[15].deadline,
					     nodes[15].seq + 1));
	/* The ring wraps: the 17th goes in the slot the first left. */
	dwq_run_append(&run, &nodes[16]);
	KUNIT_EXPECT_EQ(test, nodes[16].index, DWQ_RUN_INDEX(0));
	run_test_check(test, &run);
	for (i = 1; i < 17; i++)
		KUNIT_EXPECT_PTR_EQ(test, dwq_run_pop(&run), &nodes[i]);
	KUNIT_EXPECT_EQ(test, run.nr, 0U);
	KUNIT_EXPECT_EQ(test, run.len, 0U);
	KUNIT_EXPECT_NULL(test, dwq_run_last(&run));
}

/*
 * A removal from the middle leaves a hole that pops skip; removing an end
 * shortens the run past the holes next to it.
 */
static void dwq_run_test_remove_holes(struct kunit *test)
{
	struct dwq_heap_node *nodes = run_test_nodes(test, 8);
	struct dwq_run run;
	unsigned int i;

	run_test_init(test, &run, 16);
	for (i = 0; i < 8; i++)
		dwq_run_append(&run, &nodes[i]);
	dwq_run_remove(&run, &nodes[2]);
	dwq_run_remove(&run, &nodes[3]);
	KUNIT_EXPECT_EQ(test, nodes[2].index, -1);
	KUNIT_EXPECT_EQ(test, run.nr, 6U);
	KUNIT_EXPECT_EQ(test, run.len, 8U);
	run_test_check(test, &run);
	/* The last, then the one before it: the ends stay nodes. */
	dwq_run_remove(&run, &nodes[7]);
	KUNIT_EXPECT_EQ(test, run.len, 7U);
	dwq_run_remove(&run, &nodes[6]);
	dwq_run_remove(&run, &nodes[5]);
	KUNIT_EXPECT_EQ(test, run.len, 5U);
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_last(&run), &nodes[4]);
	/* A removed node's key no longer bars a later append. */
	KUNIT_EXPECT_TRUE(test, dwq_run_fits(&run, nodes[5].deadline, 0));
	run_test_check(test, &run);
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_pop(&run), &nodes[0]);
	/* The first, with holes behind the next: they go with it. */
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_pop(&run), &nodes[1]);
	KUNIT_EXPECT_EQ(test, run.len, 1U);
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_first(&run), &nodes[4]);
	dwq_run_remove(&run, &nodes[4]);
	KUNIT_EXPECT_EQ(test, run.len, 0U);
	KUNIT_EXPECT_NULL(test, dwq_run_first(&run));
	run_test_check(test, &run);
}

/* Holes beyond the nodes and the minimum are compacted away. */
static void dwq_run_test_compact(struct kunit *test)
{
	const unsigned int n = 4 * DWQ_RUN_HOLES_MIN;
	struct dwq_heap_node *nodes = run_test_nodes(test, n);
	struct dwq_run run;
	unsigned int i, removed = 0;

	run_test_init(test, &run, n);
	for (i = 0; i < n; i++)
		dwq_run_append(&run, &nodes[i]);
	/* Every node but the ends and every fourth, from the middle out. */
	for (i = 1; i < n - 1; i++) {
		if (!(i % 4))
			continue;
		dwq_run_remove(&run, &nodes[i]);
		removed++;
		run_test_check(test, &run);
	}
	KUNIT_EXPECT_EQ(test, run.nr, n - removed);
	/* Compacted at least once: fewer holes than were made. */
	KUNIT_EXPECT_LT(test, run.len - run.nr, removed);
	for (i = 0; i < n; i++) {
		if (i && i < n - 1 && i % 4)
			continue;
		KUNIT_EXPECT_PTR_EQ(test, dwq_run_pop(&run), &nodes[i]);
	}
	KUNIT_EXPECT_EQ(test, run.nr, 0U);
}

/* What pops put back at the front leaves again in the same order. */
static void dwq_run_test_push(struct kunit *test)
{
	struct dwq_heap_node *nodes = run_test_nodes(test, 6);
	struct dwq_run run;
	int i;

	run_test_init(test, &run, 16);
	for (i = 0; i < 6; i++)
		dwq_run_append(&run, &nodes[i]);
	for (i = 0; i < 4; i++)
		dwq_run_pop(&run);
	for (i = 3; i >= 0; i--)
		dwq_run_push(&run, &nodes[i]);
	run_test_check(test, &run);
	/* And into an empty run, which wraps back from slot 0. */
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_PTR_EQ(test, dwq_run_pop(&run), &nodes[i]);
	dwq_run_push(&run, &nodes[5]);
	dwq_run_push(&run, &nodes[4]);
	run_test_check(test, &run);
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_first(&run), &nodes[4]);
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_last(&run), &nodes[5]);
}

/* A new ring takes the nodes in order, without holes, from slot 0. */
static void dwq_run_test_adopt(struct kunit *test)
{
	struct dwq_heap_node *nodes = run_test_nodes(test, 16);
	struct dwq_heap_node **ring, **old;
	struct dwq_run run;
	unsigned int i;

	dwq_run_init(&run);
	KUNIT_EXPECT_EQ(test, dwq_run_grown_capacity(&run),
			DWQ_RUN_MIN_CAPACITY);
	KUNIT_EXPECT_FALSE(test, dwq_run_fits(&run, 0, 0));
	KUNIT_EXPECT_TRUE(test, dwq_run_after_last(&run, 0, 0));
	run_test_init(test, &run, 16);
	old = run.slots;
	for (i = 0; i < 16; i++)
		dwq_run_append(&run, &nodes[i]);
	for (i = 0; i < 5; i++)
		dwq_run_pop(&run);
	for (i = 0; i < 3; i++) {
		nodes[i].deadline = 1000 + i;
		dwq_run_append(&run, &nodes[i]);
	}
	dwq_run_remove(&run, &nodes[8]);
	KUNIT_EXPECT_EQ(test, run.nr, 13U);
	KUNIT_EXPECT_EQ(test, dwq_run_grown_capacity(&run), 32U);
	ring = run_test_alloc(test, 32, sizeof(*ring));
	KUNIT_EXPECT_PTR_EQ(test, dwq_run_adopt(&run, ring, 32), old);
	KUNIT_EXPECT_EQ(test, run.head, 0U);
	KUNIT_EXPECT_EQ(test, run.len, 13U);
	run_test_check(test, &run);
	KUNIT_EXPECT_PTR_EQ(test, ring[0], &nodes[5]);
	KUNIT_EXPECT_PTR_EQ(test, ring[3], &nodes[9]);
	KUNIT_EXPECT_PTR_EQ(test, ring[12], &nodes[2]);
	/* Shrinking: a quarter or less used, halved to the minimum. */
	KUNIT_EXPECT_EQ(test, dwq_run_shrunk_capacity(&run), 32U);
	for (i = 0; i < 6; i++)
		dwq_run_pop(&run);
	KUNIT_EXPECT_EQ(test, dwq_run_shrunk_capacity(&run), 16U);
	while (run.nr)
		dwq_run_pop(&run);
	KUNIT_EXPECT_EQ(test, dwq_run_shrunk_capacity(&run),
			DWQ_RUN_MIN_CAPACITY);
	/* The largest ring does not grow. */
	run.cap = DWQ_RUN_MAX_CAPACITY;
	KUNIT_EXPECT_EQ(test, dwq_run_grown_capacity(&run), 0U);
	run.cap = DWQ_RUN_MAX_CAPACITY / 2;
	KUNIT_EXPECT_EQ(test, dwq_run_grown_capacity(&run),
			(unsigned int)DWQ_RUN_MAX_CAPACITY);
	run.cap = DWQ_RUN_MIN_CAPACITY;
}

#define RUN_TEST_NODES 512
#define RUN_TEST_OPS 20000

/*
 * Random appends (of keys that fit), pops, removals anywhere and pushes
 * back, against an array of the nodes in the run kept in key order.
 */
static void dwq_run_test_random_ops(struct kunit *test)
{
	struct dwq_heap_node *nodes = run_test_nodes(test, RUN_TEST_NODES);
	struct dwq_heap_node **ref, **ring, *node;
	struct rnd_state rnd;
	unsigned int i, k, nref = 0, op, grows = 0, compactions = 0;
	u64 deadline = 0, seq = 0;
	struct dwq_run run;

	ref = run_test_alloc(test, RUN_TEST_NODES, sizeof(*ref));
	prandom_seed_state(&rnd, RUN_TEST_SEED);
	/* Not test-managed: the run frees its rings as it grows. */
	dwq_run_init(&run);
	for (i = 0; i < RUN_TEST_OPS; i++) {
		op = prandom_u32_state(&rnd) % 8;
		/* Every other phase fills the run: appends 5 in 8. */
		if ((i / 2048) & 1 && op < 5)
			op = 0;
		if (op < 3) {
			/* Append a node not in the run, with a later key. */
			node = &nodes[prandom_u32_state(&rnd) % RUN_TEST_NODES];
			if (node->index != -1)
				continue;
			deadline += prandom_u32_state(&rnd) % 3;
			if (run.len == run.cap) {
				KUNIT_ASSERT_FALSE(test,
						   dwq_run_fits(&run, deadline,
								seq));
				/* Holes away if half, else grown, as in client.c. */
				if (run.cap && run.nr <= run.cap / 2) {
					dwq_run_compact(&run);
					KUNIT_ASSERT_EQ(test, run.len, run.nr);
					compactions++;
					goto append;
				}
				if (run.cap == RUN_TEST_NODES)
					continue;
				k = dwq_run_grown_capacity(&run);
				KUNIT_ASSERT_EQ(test, k,
						max(2 * run.cap,
						    DWQ_RUN_MIN_CAPACITY));
				ring = kvcalloc(k, sizeof(*ring), GFP_KERNEL);
				if (!ring)
					kvfree(run.slots);
				KUNIT_ASSERT_NOT_NULL(test, ring);
				kvfree(dwq_run_adopt(&run, ring, k));
				grows++;
			}
append:
			KUNIT_ASSERT_TRUE(test,
					  dwq_run_fits(&run, deadline, seq));
			node->deadline = deadline;
			node->seq = seq++;
			dwq_run_append(&run, node);
			ref[nref++] = node;
		} else if (op < 5 && nref) {
			KUNIT_ASSERT_PTR_EQ(test, dwq_run_first(&run), ref[0]);
			KUNIT_ASSERT_PTR_EQ(test, dwq_run_pop(&run), ref[0]);
			memmove(ref, ref + 1, --nref * sizeof(*ref));
		} else if (op < 7 && nref) {
			k = prandom_u32_state(&rnd) % nref;
			dwq_run_remove(&run, ref[k]);
			KUNIT_ASSERT_EQ(test, ref[k]->index, -1);
			memmove(ref + k, ref + k + 1,
				(--nref - k) * sizeof(*ref));
		} else if (nref && run.len < run.cap) {
			/* Pop and push back: the run is as it was. */
			node = dwq_run_pop(&run);
			dwq_run_push(&run, node);
			KUNIT_ASSERT_PTR_EQ(test, dwq_run_first(&run), node);
		}
		KUNIT_ASSERT_EQ(test, run.nr, nref);
		if (nref) {
			KUNIT_ASSERT_PTR_EQ(test, dwq_run_first(&run), ref[0]);
			KUNIT_ASSERT_PTR_EQ(test, dwq_run_last(&run),
					    ref[nref - 1]);
		}
		if (!(i % 64))
			run_test_check(test, &run);
	}
	run_test_check(test, &run);
	kvfree(run.slots);
	kunit_info(test,
		   "seed %#llx: %u grows, %u compactions, %u left, ring %u\n",
		   RUN_TEST_SEED, grows, compactions, nref, run.cap);
}

static struct kunit_case dwq_run_test_cases[] = {
	KUNIT_CASE(dwq_run_test_append_pop),
	KUNIT_CASE(dwq_run_test_remove_holes),
	KUNIT_CASE(dwq_run_test_compact),
	KUNIT_CASE(dwq_run_test_push),
	KUNIT_CASE(dwq_run_test_adopt),
	KUNIT_CASE(dwq_run_test_random_ops),
	{}
};

static struct kunit_suite dwq_run_test_suite = {
	.name = "dwq_run",
	.test_cases = dwq_run_test_cases,
};

kunit_test_suite(dwq_run_test_suite);
