// SPDX-License-Identifier: GPL-2.0
/* dwq's heap, 4-ary, node-pointer slots: see heap_variant.h. */
#define DWQ_HEAP_ARITY 4
#define DWQ_HEAP_INLINE_KEYS 0
#define BENCH_HEAP_PREFIX h4p
#include "heap_variant.h"
