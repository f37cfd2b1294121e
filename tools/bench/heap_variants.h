/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heaps of the benchmark: h<arity><i|p>, i for keys inline in the
 * slots, p for slots of node pointers. h4i is dwq.ko's own module/heap.c
 * under other names (heap_4i.c); h2i, h2p and h4p are the benchmark's
 * copy of the same algorithm with the other arity or slot layout
 * (heap_param.h).
 */
#ifndef _DWQ_BENCH_HEAP_VARIANTS_H
#define _DWQ_BENCH_HEAP_VARIANTS_H

#include <linux/types.h>
#include <dwq.h>

/* The F1 variant that is dwq.ko's heap (h4i). */
#define BENCH_HEAP_DWQ_VARIANT "dwq-4ary-inline"

struct h2i_heap;
struct h2i_heap *h2i_create(unsigned int cap);
void h2i_destroy(struct h2i_heap *heap);
int h2i_insert(struct h2i_heap *heap, struct dwq_heap_node *node, u64 deadline);
struct dwq_heap_node *h2i_pop(struct h2i_heap *heap);
void h2i_remove(struct h2i_heap *heap, struct dwq_heap_node *node);
struct dwq_heap_node *h2i_peek(struct h2i_heap *heap);

struct h2p_heap;
struct h2p_heap *h2p_create(unsigned int cap);
void h2p_destroy(struct h2p_heap *heap);
int h2p_insert(struct h2p_heap *heap, struct dwq_heap_node *node, u64 deadline);
struct dwq_heap_node *h2p_pop(struct h2p_heap *heap);
void h2p_remove(struct h2p_heap *heap, struct dwq_heap_node *node);
struct dwq_heap_node *h2p_peek(struct h2p_heap *heap);

struct h4i_heap;
struct h4i_heap *h4i_create(unsigned int cap);
void h4i_destroy(struct h4i_heap *heap);
int h4i_insert(struct h4i_heap *heap, struct dwq_heap_node *node, u64 deadline);
struct dwq_heap_node *h4i_pop(struct h4i_heap *heap);
void h4i_remove(struct h4i_heap *heap, struct dwq_heap_node *node);
struct dwq_heap_node *h4i_peek(struct h4i_heap *heap);

struct h4p_heap;
struct h4p_heap *h4p_create(unsigned int cap);
void h4p_destroy(struct h4p_heap *heap);
int h4p_insert(struct h4p_heap *heap, struct dwq_heap_node *node, u64 deadline);
struct dwq_heap_node *h4p_pop(struct h4p_heap *heap);
void h4p_remove(struct h4p_heap *heap, struct dwq_heap_node *node);
struct dwq_heap_node *h4p_peek(struct h4p_heap *heap);

#endif /* _DWQ_BENCH_HEAP_VARIANTS_H */
