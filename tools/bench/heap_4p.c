// SPDX-License-Identifier: GPL-2.0
/* The benchmark's heap, 4-ary, slots of node pointers: see heap_param.h. */
#define BENCH_HEAP_ARITY 4
#define BENCH_HEAP_INLINE_KEYS 0
#define BENCH_HEAP_PREFIX h4p
#include "heap_param.h"
