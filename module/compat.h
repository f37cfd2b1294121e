/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq compat: the one place for what differs between the kernels dwq
 * builds against, Linux 6.1 to the newest. Each shim names the kernels
 * that need it, and goes when the oldest kernel dwq supports no longer
 * does. The code elsewhere is written for the newest API.
 */
#ifndef _DWQ_COMPAT_H
#define _DWQ_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/module.h>

/* The DWQ_HAVE_* come from compat.mk, which looks in the kernel's headers. */

#ifndef DWQ_HAVE_HRTIMER_SETUP
/*
 * Before 6.13: no hrtimer_setup(), which replaced hrtimer_init() and the
 * assignment of ->function (6.15 removed hrtimer_init()).
 */
static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *timer),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#ifdef DWQ_HAVE_IMPORT_NS_STRING
#define DWQ_IMPORT_NS(ns) MODULE_IMPORT_NS(__stringify(ns))
#else
/*
 * Before 6.13: MODULE_IMPORT_NS() takes the namespace as a bare word; it
 * takes a string literal since.
 */
#define DWQ_IMPORT_NS(ns) MODULE_IMPORT_NS(ns)
#endif

/*
 * After 6.12, min_heap's functions are out of line, in lib/min_heap.c
 * (only built with CONFIG_MIN_HEAP), and their inline bodies are named
 * *_inline(). The benchmark's min_heap anchor measures the inline ones on
 * every kernel, as a caller of the older header got.
 */
#ifdef DWQ_HAVE_MIN_HEAP_INLINE
#define dwq_min_heap_init min_heap_init_inline
#define dwq_min_heap_push min_heap_push_inline
#define dwq_min_heap_pop min_heap_pop_inline
#define dwq_min_heap_del min_heap_del_inline
#else
#define dwq_min_heap_init min_heap_init
#define dwq_min_heap_push min_heap_push
#define dwq_min_heap_pop min_heap_pop
#define dwq_min_heap_del min_heap_del
#endif

/*
 * The unbound system workqueue: system_dfl_wq where the kernel has it
 * (later kernels mark system_unbound_wq deprecated and warn on its use),
 * else system_unbound_wq, the same queue under its older name.
 */
#ifdef DWQ_HAVE_SYSTEM_DFL_WQ
#define dwq_unbound_wq system_dfl_wq
#else
#define dwq_unbound_wq system_unbound_wq
#endif

/*
 * io_uring commands, for uring.c, which defines DWQ_COMPAT_IO_URING first:
 * other files need not pull in io_uring's headers.
 */
#ifdef DWQ_COMPAT_IO_URING
#ifdef DWQ_HAVE_IO_URING_CMD_H
#include <linux/io_uring/cmd.h>
#else
/* Linux 6.1: struct io_uring_cmd and its flags are in <linux/io_uring.h>. */
#include <linux/io_uring.h>
#endif

/*
 * dwq_uring_cmd_bytes(ioucmd): the command area of the command's SQE
 * (&struct io_uring_sqe.cmd), as const u8 *, holding at least a
 * &struct dwq_uring_cmd.
 */
#if defined(DWQ_HAVE_IO_URING_SQE_CMD_TYPED)
/* After 6.12: io_uring_sqe_cmd() takes the type, and checks that it fits. */
#define dwq_uring_cmd_bytes(ioucmd) \
	((const u8 *)io_uring_sqe_cmd((ioucmd)->sqe, struct dwq_uring_cmd))
#elif defined(DWQ_HAVE_IO_URING_SQE_CMD)
/* Linux 6.12: io_uring_sqe_cmd() of the SQE that ->sqe points to. */
#define dwq_uring_cmd_bytes(ioucmd) \
	((const u8 *)io_uring_sqe_cmd((ioucmd)->sqe))
#else
/* Linux 6.1: no ->sqe; ->cmd points at the command area. */
#define dwq_uring_cmd_bytes(ioucmd) ((const u8 *)(ioucmd)->cmd)
#endif

#ifdef IORING_URING_CMD_MASK
#define DWQ_URING_CMD_USER_FLAGS IORING_URING_CMD_MASK
#else
/*
 * Linux 6.1: no IORING_URING_CMD_MASK; IORING_URING_CMD_FIXED is the one
 * flag a submitter can set in uring_cmd_flags.
 */
#define DWQ_URING_CMD_USER_FLAGS IORING_URING_CMD_FIXED
#endif
#endif /* DWQ_COMPAT_IO_URING */

#endif /* _DWQ_COMPAT_H */
