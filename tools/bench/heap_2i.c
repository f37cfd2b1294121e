// SPDX-License-Identifier: GPL-2.0
/* The benchmark's heap, 2-ary, keys inline in the slots: see heap_param.h. */
#define BENCH_HEAP_ARITY 2
#define BENCH_HEAP_INLINE_KEYS 1
#define BENCH_HEAP_PREFIX h2i
#include "heap_param.h"
