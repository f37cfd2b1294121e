/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq.ko's heap under the benchmark's names: module/heap.h, unchanged,
 * with struct dwq_heap turned into struct h4i_heap and its functions into
 * h4i_*(). The operations on nodes stay inline, as *_inline(): F1's loops
 * (f1_dwq.c) include this and inline them, as dwq.ko's queue inlines
 * heap.h's. heap_4i.c compiles module/heap.c under the same names, with
 * out-of-line wrappers for the other callers.
 */
#ifndef _DWQ_BENCH_HEAP_4I_H
#define _DWQ_BENCH_HEAP_4I_H

#define dwq_heap h4i_heap
#define dwq_heap_slot h4i_slot
#define dwq_heap_init h4i_init
#define dwq_heap_insert h4i_insert_inline
#define dwq_heap_pop h4i_pop_inline
#define dwq_heap_remove h4i_remove_inline
#define dwq_heap_update h4i_update_inline
#define dwq_heap_want_capacity h4i_want_capacity
#define dwq_heap_shrunk_capacity h4i_shrunk_capacity
#define dwq_heap_adopt h4i_adopt

#include "../../module/heap.h"

#endif /* _DWQ_BENCH_HEAP_4I_H */
