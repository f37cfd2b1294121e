# SPDX-License-Identifier: GPL-2.0
# What the kernel dwq is built against offers, found in its headers rather
# than from its version number, so that a backport counts too: one
# -DDWQ_HAVE_<FEATURE> per feature, for module/compat.h. Included by
# module/Kbuild and kunit/Kbuild. (The patterns are variables: make would
# count their parentheses in a call's arguments.)
dwq-have = $(shell grep -qsE '$(2)' $(srctree)/include/linux/$(1) && \
	echo -DDWQ_HAVE_$(3))

# hrtimer_setup(): Linux 6.13 and later.
dwq-re-hrtimer-setup := ^(extern )?void hrtimer_setup[(]
ccflags-y += $(call dwq-have,hrtimer.h,$(dwq-re-hrtimer-setup),HRTIMER_SETUP)

# MODULE_IMPORT_NS() taking a string literal: Linux 6.13 and later.
dwq-re-import-ns := define MODULE_IMPORT_NS[(]ns[)][[:space:]]+MODULE_INFO[(]import_ns, ns[)]
ccflags-y += $(call dwq-have,module.h,$(dwq-re-import-ns),IMPORT_NS_STRING)

# min_heap's functions out of line, their inline bodies *_inline(): after
# Linux 6.12.
dwq-re-min-heap-inline := define min_heap_push_inline[(]
ccflags-y += $(call dwq-have,min_heap.h,$(dwq-re-min-heap-inline),MIN_HEAP_INLINE)
