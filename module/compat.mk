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

# struct io_uring_cmd in <linux/io_uring/cmd.h>: Linux 6.12 and the newest
# (6.1 has it in <linux/io_uring.h>).
dwq-re-io-uring-cmd-h := ^struct io_uring_cmd [{]
ccflags-y += $(call dwq-have,io_uring/cmd.h,$(dwq-re-io-uring-cmd-h),IO_URING_CMD_H)

# io_uring_sqe_cmd(), the command bytes of the SQE that a uring_cmd reaches
# through ->sqe: Linux 6.12 and the newest (6.1's ->cmd points at the
# bytes). Looked for in both headers struct io_uring_cmd has been in.
dwq-re-io-uring-sqe-cmd := io_uring_sqe_cmd[(]
ccflags-y += $(call dwq-have,io_uring.h,$(dwq-re-io-uring-sqe-cmd),IO_URING_SQE_CMD)
ccflags-y += $(call dwq-have,io_uring/cmd.h,$(dwq-re-io-uring-sqe-cmd),IO_URING_SQE_CMD)

# io_uring_sqe_cmd(sqe, type), a macro that checks the type's size: after
# Linux 6.12 (6.12's is a function of the SQE alone).
dwq-re-io-uring-sqe-cmd-typed := define io_uring_sqe_cmd[(]sqe, type[)]
ccflags-y += $(call dwq-have,io_uring/cmd.h,$(dwq-re-io-uring-sqe-cmd-typed),IO_URING_SQE_CMD_TYPED)

# system_dfl_wq, the unbound system workqueue under its new name: Linux
# 6.17 and later, whose newest releases warn when work is queued on
# system_unbound_wq.
dwq-re-dfl-wq := ^extern struct workqueue_struct [*]system_dfl_wq;
ccflags-y += $(call dwq-have,workqueue.h,$(dwq-re-dfl-wq),SYSTEM_DFL_WQ)
