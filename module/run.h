/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq run: nodes that came in key order, in a ring. A pure data structure.
 *
 * Timeouts are mostly armed as "now plus a constant", so their deadlines
 * come in order. A node whose key is after every key in the run goes at
 * its end, and the run's first node leaves from its front, each in O(1),
 * where a heap sifts through log n levels. A node that does not fit goes
 * to a heap beside the run, and the earlier of the heap's root and the
 * run's first leaves first (client.c keeps the two for each clock of a
 * /dev/dwq file).
 *
 * Keys are (deadline, seq), as in heap.h. A node in a run has index
 * DWQ_RUN_INDEX(slot), below -1 (-1 is "not queued", and a heap's slots
 * are 0 and up), so it knows its slot: removing it from the middle leaves
 * a hole there, O(1). The ends skip holes, so the first and the last
 * entry are always nodes; the run is compacted once its holes outnumber
 * its nodes and a minimum, which keeps removal O(1) amortized and the
 * slots in use at most about twice its nodes.
 *
 * Nothing here locks, sleeps or allocates: the caller serialises all
 * access and owns the ring, a power of two of node pointers that it hands
 * over with dwq_run_adopt(), which returns the old one to free.
 */
#ifndef _DWQ_RUN_H
#define _DWQ_RUN_H

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include <dwq.h>

/* The index of a node in slot @slot of a run. */
#define DWQ_RUN_INDEX(slot) (-2 - (int)(slot))

/* The first ring's slots, and the most a ring has (a slot's index fits). */
#define DWQ_RUN_MIN_CAPACITY 16U
#define DWQ_RUN_MAX_CAPACITY BIT(30)

/* Holes are compacted away once they outnumber the nodes and this. */
#define DWQ_RUN_HOLES_MIN 32U

/**
 * struct dwq_run - nodes in key order, in a ring
 * @slots: the ring, @cap node pointers; a hole is NULL
 * @head: the slot of the first node (any value while @len is 0)
 * @len: slots in use from @head on, holes included; 0 when @nr is
 * @nr: nodes in the run
 * @cap: slots in @slots: a power of two, or 0 with no ring
 */
struct dwq_run {
	struct dwq_heap_node **slots;
	unsigned int head;
	unsigned int len;
	unsigned int nr;
	unsigned int cap;
};

static inline void dwq_run_init(struct dwq_run *run)
{
	run->slots = NULL;
	run->head = 0;
	run->len = 0;
	run->nr = 0;
	run->cap = 0;
}

/* Is @node in a run? (Which one is the caller's to know.) */
static inline bool dwq_run_node_queued(const struct dwq_heap_node *node)
{
	return node->index < -1;
}

/* The slot of position @pos, counted from @run's first. */
static inline unsigned int dwq_run_slot(const struct dwq_run *run,
					unsigned int pos)
{
	return (run->head + pos) & (run->cap - 1);
}

static inline struct dwq_heap_node *dwq_run_first(const struct dwq_run *run)
{
	return run->nr ? run->slots[run->head] : NULL;
}

static inline struct dwq_heap_node *dwq_run_last(const struct dwq_run *run)
{
	return run->nr ? run->slots[dwq_run_slot(run, run->len - 1)] : NULL;
}

/* The entry @pos after the first: a node, or NULL for a hole or the end. */
static inline struct dwq_heap_node *dwq_run_at(const struct dwq_run *run,
					       unsigned int pos)
{
	return pos < run->len ? run->slots[dwq_run_slot(run, pos)] : NULL;
}

/* Is (@d1, @s1) before (@d2, @s2)? */
static inline bool dwq_run_key_before(u64 d1, u64 s1, u64 d2, u64 s2)
{
	return d1 < d2 || (d1 == d2 && s1 < s2);
}

/* Is (@deadline, @seq) after the key of @run's last node (or none)? */
static inline bool dwq_run_after_last(const struct dwq_run *run, u64 deadline,
				      u64 seq)
{
	const struct dwq_heap_node *last = dwq_run_last(run);

	return !last ||
	       dwq_run_key_before(last->deadline, last->seq, deadline, seq);
}

/*
 * May a node with key (@deadline, @seq) go at the end of @run: is there
 * room, and is the key after the last node's?
 */
static inline bool dwq_run_fits(const struct dwq_run *run, u64 deadline,
				u64 seq)
{
	return run->len < run->cap && dwq_run_after_last(run, deadline, seq);
}

/**
 * dwq_run_append() - put a node at the end of a run
 * @run: the run; dwq_run_fits() said yes for @node's key
 * @node: a node in no run or heap, its deadline and seq set
 *
 * Context: any context; the caller serialises access to @run.
 */
static inline void dwq_run_append(struct dwq_run *run,
				  struct dwq_heap_node *node)
{
	unsigned int slot;

	if (WARN_ON_ONCE(run->len >= run->cap))
		return;
	slot = dwq_run_slot(run, run->len++);
	run->slots[slot] = node;
	node->index = DWQ_RUN_INDEX(slot);
	run->nr++;
}

/**
 * dwq_run_push() - put a node back at the front of a run
 * @run: the run, with room (@len < @cap)
 * @node: a node in no run or heap whose key is before the first node's
 *
 * Undoes dwq_run_pop(), and takes any node whose key comes first.
 *
 * Context: any context; the caller serialises access to @run.
 */
static inline void dwq_run_push(struct dwq_run *run, struct dwq_heap_node *node)
{
	if (WARN_ON_ONCE(run->len >= run->cap))
		return;
	run->head = (run->head - 1) & (run->cap - 1);
	run->len++;
	run->slots[run->head] = node;
	node->index = DWQ_RUN_INDEX(run->head);
	run->nr++;
}

/* Move every node to the front of the ring, in order, with no holes. */
static inline void dwq_run_compact(struct dwq_run *run)
{
	struct dwq_heap_node *node;
	unsigned int pos, to = 0, slot;

	for (pos = 0; pos < run->len; pos++) {
		node = run->slots[dwq_run_slot(run, pos)];
		if (!node)
			continue;
		slot = dwq_run_slot(run, to++);
		run->slots[slot] = node;
		node->index = DWQ_RUN_INDEX(slot);
	}
	run->len = to;
}

/* Drop the holes at both ends: the first and last entries are nodes. */
static inline void dwq_run_trim(struct dwq_run *run)
{
	if (!run->nr) {
		run->len = 0;
		return;
	}
	while (!run->slots[run->head]) {
		run->head = (run->head + 1) & (run->cap - 1);
		run->len--;
	}
	while (!run->slots[dwq_run_slot(run, run->len - 1)])
		run->len--;
}

/**
 * dwq_run_pop() - take the first node out of a run
 * @run: the run
 *
 * The node leaves with index -1; its deadline and seq stay readable.
 *
 * Context: any context; the caller serialises access to @run.
 * Return: the node, or NULL if @run is empty.
 */
static inline struct dwq_heap_node *dwq_run_pop(struct dwq_run *run)
{
	struct dwq_heap_node *node;

	if (!run->nr)
		return NULL;
	node = run->slots[run->head];
	node->index = -1;
	run->nr--;
	run->head = (run->head + 1) & (run->cap - 1);
	run->len--;
	/* Only a removal from the middle leaves a hole (all, once empty). */
	if (unlikely(run->len && !run->slots[run->head]))
		dwq_run_trim(run);
	return node;
}

/**
 * dwq_run_remove() - take any node out of a run
 * @run: the run
 * @node: a node in @run
 *
 * O(1) amortized: a hole, or an end shortened; a compaction, O(length),
 * once the holes outnumber the nodes and DWQ_RUN_HOLES_MIN.
 *
 * Context: any context; the caller serialises access to @run.
 * If @node is not in @run this warns once and does nothing.
 */
static inline void dwq_run_remove(struct dwq_run *run,
				  struct dwq_heap_node *node)
{
	unsigned int slot = -2 - node->index;

	/* Index -1, or a heap's slot, makes a @slot past the ring. */
	if (WARN_ON_ONCE(slot >= run->cap || run->slots[slot] != node))
		return;
	run->slots[slot] = NULL;
	node->index = -1;
	if (!--run->nr) {
		run->len = 0;
		return;
	}
	dwq_run_trim(run);
	if (unlikely(run->len - run->nr > max(run->nr, DWQ_RUN_HOLES_MIN)))
		dwq_run_compact(run);
}

/*
 * The ring a full @run grows to: twice its size (DWQ_RUN_MIN_CAPACITY
 * slots for the first), or 0 at DWQ_RUN_MAX_CAPACITY.
 */
static inline unsigned int dwq_run_grown_capacity(const struct dwq_run *run)
{
	if (!run->cap)
		return DWQ_RUN_MIN_CAPACITY;
	return run->cap < DWQ_RUN_MAX_CAPACITY ? 2 * run->cap : 0;
}

/*
 * The ring @run shrinks to: halved while a quarter of it or less holds
 * nodes, never below DWQ_RUN_MIN_CAPACITY; @run->cap when no shrink is
 * due.
 */
static inline unsigned int dwq_run_shrunk_capacity(const struct dwq_run *run)
{
	unsigned int cap = run->cap;

	while (cap > DWQ_RUN_MIN_CAPACITY && run->nr <= cap / 4)
		cap /= 2;
	return cap;
}

/**
 * dwq_run_adopt() - move a run into a new ring
 * @run: the run
 * @slots: the new ring (its contents are overwritten)
 * @cap: its slots, a power of two no smaller than @run->nr
 *
 * The nodes go to the front of @slots, in order, without the holes; each
 * learns its new slot. A @cap that is too small or not a power of two is
 * refused with a warning (the run stays as it was).
 *
 * Context: any context; the caller serialises access to @run.
 * Return: the ring for the caller to free: the old one (NULL if there was
 * none), or @slots itself if it was refused.
 */
static inline struct dwq_heap_node **dwq_run_adopt(struct dwq_run *run,
						   struct dwq_heap_node **slots,
						   unsigned int cap)
{
	struct dwq_heap_node **old = run->slots;
	struct dwq_heap_node *node;
	unsigned int pos, to = 0;

	if (WARN_ON_ONCE(cap < run->nr || !is_power_of_2(cap) ||
			 cap > DWQ_RUN_MAX_CAPACITY))
		return slots;
	for (pos = 0; pos < run->len; pos++) {
		node = run->slots[dwq_run_slot(run, pos)];
		if (!node)
			continue;
		slots[to] = node;
		node->index = DWQ_RUN_INDEX(to);
		to++;
	}
	run->slots = slots;
	run->cap = cap;
	run->head = 0;
	run->len = to;
	return old;
}

#endif /* _DWQ_RUN_H */
