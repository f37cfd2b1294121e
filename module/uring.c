// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq through io_uring: IORING_OP_URING_CMD runs an ioctl of the file,
 * so that a program schedules and cancels its timers in the same
 * io_uring_enter() as the rest of its I/O. The command is the ioctl: its
 * number is the SQE's cmd_op, and the SQE's command area holds a
 * &struct dwq_uring_cmd, whose @arg is the address of the argument ioctl()
 * would take. dwq_dev_ioctl() does the rest, so the two paths cannot
 * differ. Events still come through read() (IORING_OP_READ) and poll().
 */
#define DWQ_COMPAT_IO_URING
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <kunit/visibility.h>

#include <uapi/linux/dwq.h>

#include "compat.h"
#include "dev.h"

/* The command area's bytes after the command on a ring of 128-byte SQEs. */
#define DWQ_URING_CMD_TAIL                 \
	(2 * sizeof(struct io_uring_sqe) - \
	 offsetof(struct io_uring_sqe, cmd) - sizeof(struct dwq_uring_cmd))

static_assert(sizeof(struct dwq_uring_cmd) == 16);
/* It fits a 64-byte SQE's command area. */
static_assert(offsetof(struct io_uring_sqe, cmd) +
		      sizeof(struct dwq_uring_cmd) ==
	      sizeof(struct io_uring_sqe));

/**
 * dwq_dev_uring_cmd() - &file_operations.uring_cmd of /dev/dwq
 * @ioucmd: the command: cmd_op a DWQ_IOC_* number, the SQE's command area
 *	a &struct dwq_uring_cmd
 * @issue_flags: io_uring's IO_URING_F_*
 *
 * Completes at once: the CQE's res is the return value. The command area
 * may still be the submitter's ring memory, which it can change under us:
 * it is copied once, then only the copy is used.
 *
 * With IO_URING_F_NONBLOCK (an inline issue) the ioctl runs all the same,
 * and waits for the file's mutex if another thread holds it (a read()
 * firing its tasks, another ioctl), for memory (the allocations of tasks,
 * of a batch's copy and of the heap's growth, GFP_KERNEL as when io_uring
 * prepares an SQE) and for page faults on its argument. It never returns
 * -EAGAIN, which would have io_uring copy the SQE and issue the command
 * again from an io-wq worker, a thread woken and switched to for each
 * one: the allocations and faults could not be left to that worker
 * without a second, non-blocking path through every ioctl, and the mutex
 * is held for one call's work, the length of one ioctl or read(). The
 * price: a read() whose buffer faults holds the mutex through the fault,
 * and a command that waits for it holds up its submitter (or the SQPOLL
 * thread) as long. The wait for the mutex is killable, not
 * interruptible: io_uring's own task_work notifications show as a pending
 * signal to the submitter and the SQPOLL thread, and would end an
 * interruptible wait at once. The ring's SQE128 and CQE32 are accepted
 * (the rest of a 128-byte SQE's command area must be zero);
 * IO_URING_F_COMPAT changes nothing, as @arg is a 64-bit user address,
 * like the batches' arrays.
 *
 * Context: process context (the submitter, an io-wq worker or the SQPOLL
 *	thread: all with the submitter's memory); may sleep.
 * Return: what dwq_dev_ioctl() returns for cmd_op (-EINTR where a fatal
 *	signal ends its wait for the file's mutex), -ENOTTY for an unknown
 *	one; -EINVAL, having done nothing, for non-zero flags or reserved
 *	bytes, or any uring_cmd_flags (no registered buffer is used).
 */
int dwq_dev_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	const u8 *area = dwq_uring_cmd_bytes(ioucmd);
	struct dwq_uring_cmd cmd;
	int ret;

	if (ioucmd->flags & DWQ_URING_CMD_USER_FLAGS)
		return -EINVAL;
	memcpy(&cmd, area, sizeof(cmd));
	if (cmd.flags || cmd.reserved)
		return -EINVAL;
	if ((issue_flags & IO_URING_F_SQE128) &&
	    memchr_inv(area + sizeof(cmd), 0, DWQ_URING_CMD_TAIL))
		return -EINVAL;
	ret = dwq_dev_ioctl_wait(ioucmd->file, ioucmd->cmd_op,
				 (unsigned long)cmd.arg, true);
	/*
	 * The CQE gets @ret as it is, with no system call to restart: a
	 * wait for the file's mutex that a fatal signal ended is -EINTR
	 * there, as ioctl() returns it to a program whose handler does not
	 * restart it.
	 */
	return ret == -ERESTARTSYS ? -EINTR : ret;
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_uring_cmd);
