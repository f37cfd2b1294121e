// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq ioctls: copy the argument in, check all of it, then act under
 * the file's mutex (client.c's functions, which take it). A result that
 * cannot be written back fails the call with nothing done: a schedule's
 * ids are proven writable (written once with what is there) before an id
 * or a charge is taken, and written back with the mutex still held, so
 * that a fault then (another thread unmapping the argument during the
 * call) can still undo the schedule; a cancel, which cannot be undone,
 * works its results out and writes them back under the mutex before it
 * cancels anything.
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "dev.h"
#include "dwq_internal.h"
#include "trace.h"

/*
 * Check a request, and make @ds its absolute deadline: a delay counts
 * from the call's moment @now (see dwq_sched_abs()).
 */
static int dwq_dev_check_schedule(const struct dwq_ioc_schedule *us,
				  struct dwq_sched *ds, u64 *now)
{
	int err;

	if (us->reserved[0] || us->reserved[1] || us->reserved[2])
		return -EINVAL;
	if (us->flags & ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME))
		return -EINVAL;
	err = dwq_limits_sched(ds, us->time_ns, us->period_ns, us->mode,
			       us->flags, now);
	if (err)
		return err;
	return dwq_sched_abs(ds, dwq_sched_clock(ds), us->period_ns, now);
}

/*
 * Where DWQ_IOC_SCHEDULE writes its id back: @write_ids is handed a
 * kernel pointer, this, not the user's.
 */
struct dwq_one_out {
	struct dwq_ioc_schedule __user *arg;
};

static int dwq_write_id(void *arg, struct dwq_utask **uts, unsigned int n)
{
	struct dwq_one_out *out = arg;

	return put_user(uts[0]->id, &out->arg->id) ? -EFAULT : 0;
}

static long dwq_ioctl_schedule(struct dwq_client *c,
			       struct dwq_ioc_schedule __user *arg,
			       bool killable)
{
	struct dwq_one_out out = { .arg = arg };
	u64 now[DWQ_NR_CLOCKS] = {};
	struct dwq_sched_req req;
	struct dwq_ioc_schedule us;
	struct dwq_utask *ut;
	struct dwq_sched ds;
	int err;

	if (copy_from_user(&us, arg, sizeof(us)))
		return -EFAULT;
	err = dwq_dev_check_schedule(&us, &ds, now);
	if (err)
		return err;
	/* The id can go out: prove it before an id or a charge is taken. */
	if (put_user(us.id, &arg->id))
		return -EFAULT;
	req = (struct dwq_sched_req){
		.us = &us,
		.ds = &ds,
		.uts = &ut,
		.n = 1,
		.rate = dwq_limits_rate(us.mode, us.period_ns),
		.write_ids = dwq_write_id,
		.arg = &out,
		.now = now,
	};
	return dwq_client_schedule(c, &req, killable);
}

/* A batch's ids and error_index, written back under the mutex. */
struct dwq_batch_out {
	struct dwq_ioc_schedule_batch __user *arg;
	struct dwq_ioc_schedule *us;
	u64 entries;
	u32 count;
};

/*
 * Copy the @n schedule entries at @src to @us, field by field in one
 * user-access window, as dwq_put_ids() stores the ids back:
 * copy_from_user() of a batch runs the kernel's string copy, a "rep movsb"
 * that the emulated CPUs of the guests dwq is measured in step a byte at a
 * time (about 64 instructions an entry, where the loads are about 12). A
 * @src not aligned for the loads takes copy_from_user(). 0 or -EFAULT.
 */
static int dwq_get_scheds(struct dwq_ioc_schedule *us, void __user *src,
			  unsigned int n)
{
	const struct dwq_ioc_schedule __user *u = src;
	unsigned int i;

	/* Every field is loaded below. */
	BUILD_BUG_ON(sizeof(*us) != 7 * sizeof(u64) + 2 * sizeof(u32));
	if (!IS_ALIGNED((unsigned long)src, sizeof(u64)))
		return copy_from_user(us, src, array_size(n, sizeof(*us))) ?
			       -EFAULT :
			       0;
	if (!user_read_access_begin(u, array_size(n, sizeof(*u))))
		return -EFAULT;
	for (i = 0; i < n; i++, us++, u++) {
		unsafe_get_user(us->time_ns, &u->time_ns, efault);
		unsafe_get_user(us->period_ns, &u->period_ns, efault);
		unsafe_get_user(us->cookie, &u->cookie, efault);
		unsafe_get_user(us->mode, &u->mode, efault);
		unsafe_get_user(us->flags, &u->flags, efault);
		unsafe_get_user(us->id, &u->id, efault);
		unsafe_get_user(us->reserved[0], &u->reserved[0], efault);
		unsafe_get_user(us->reserved[1], &u->reserved[1], efault);
		unsafe_get_user(us->reserved[2], &u->reserved[2], efault);
	}
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/* As dwq_get_scheds(), for cancel entries. */
static int dwq_get_cancels(struct dwq_ioc_cancel *uc, void __user *src,
			   unsigned int n)
{
	const struct dwq_ioc_cancel __user *u = src;
	unsigned int i;

	BUILD_BUG_ON(sizeof(*uc) != sizeof(u64) + 2 * sizeof(u32));
	if (!IS_ALIGNED((unsigned long)src, sizeof(u64)))
		return copy_from_user(uc, src, array_size(n, sizeof(*uc))) ?
			       -EFAULT :
			       0;
	if (!user_read_access_begin(u, array_size(n, sizeof(*u))))
		return -EFAULT;
	for (i = 0; i < n; i++, uc++, u++) {
		unsafe_get_user(uc->id, &u->id, efault);
		unsafe_get_user(uc->result, &u->result, efault);
		unsafe_get_user(uc->reserved, &u->reserved, efault);
	}
	user_read_access_end();
	return 0;
efault:
	user_read_access_end();
	return -EFAULT;
}

/*
 * Store @us[i].id into the id field of each of the @n entries at @entries,
 * and nothing else of them: 8 bytes an entry, where a copy of the whole
 * entries would move 64.
 */
static int dwq_put_ids(u64 entries, const struct dwq_ioc_schedule *us,
		       unsigned int n)
{
	struct dwq_ioc_schedule __user *u = u64_to_user_ptr(entries);
	unsigned int i;

	if (!user_write_access_begin(u, array_size(n, sizeof(*u))))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_put_user(us[i].id, &u[i].id, efault);
	user_write_access_end();
	return 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

static int dwq_write_ids(void *arg, struct dwq_utask **uts, unsigned int n)
{
	struct dwq_batch_out *out = arg;
	unsigned int i;

	for (i = 0; i < n; i++)
		out->us[i].id = uts[i]->id;
	if (dwq_put_ids(out->entries, out->us, n) ||
	    put_user(out->count, &out->arg->error_index))
		return -EFAULT;
	return 0;
}

static long dwq_ioctl_schedule_batch(struct dwq_client *c,
				     struct dwq_ioc_schedule_batch __user *arg,
				     bool killable)
{
	struct dwq_ioc_schedule_batch b;
	u64 now[DWQ_NR_CLOCKS] = {};
	struct dwq_ioc_schedule *us = NULL;
	struct dwq_sched *ds = NULL;
	struct dwq_utask **uts = NULL;
	struct dwq_batch_out out;
	struct dwq_sched_req req;
	unsigned int i;
	u64 rate = 0;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	b.error_index = b.count;
	if (b.flags || b.reserved || !b.count ||
	    b.count > DWQ_SCHEDULE_BATCH_MAX) {
		err = -EINVAL;
		goto out_report;
	}
	us = kvmalloc_array(b.count, sizeof(*us), GFP_KERNEL_ACCOUNT);
	ds = kvmalloc_array(b.count, sizeof(*ds), GFP_KERNEL_ACCOUNT);
	uts = kvmalloc_array(b.count, sizeof(*uts), GFP_KERNEL_ACCOUNT);
	if (!us || !ds || !uts) {
		err = -ENOMEM;
		goto out_free;
	}
	if (dwq_get_scheds(us, u64_to_user_ptr(b.entries), b.count)) {
		err = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < b.count; i++) {
		err = dwq_dev_check_schedule(&us[i], &ds[i], now);
		if (err) {
			b.error_index = i;
			goto out_free;
		}
		rate += dwq_limits_rate(us[i].mode, us[i].period_ns);
	}
	/*
	 * Prove the ids and error_index writable before an id or a charge
	 * is taken, writing back what they hold: a batch that faults here
	 * has changed nothing.
	 */
	if (dwq_put_ids(b.entries, us, b.count) ||
	    put_user(b.count, &arg->error_index)) {
		err = -EFAULT;
		goto out_free;
	}
	out = (struct dwq_batch_out){
		.arg = arg,
		.us = us,
		.entries = b.entries,
		.count = b.count,
	};
	req = (struct dwq_sched_req){
		.us = us,
		.ds = ds,
		.uts = uts,
		.n = b.count,
		.rate = rate,
		.write_ids = dwq_write_ids,
		.arg = &out,
		.now = now,
	};
	err = dwq_client_schedule(c, &req, killable);

out_free:
	kvfree(uts);
	kvfree(ds);
	kvfree(us);
	if (!err)
		return 0;
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

/*
 * Where a cancel writes its results back, with the file's mutex held: the
 * write-back is handed this kernel struct, not the user pointer.
 */
struct dwq_cancel_out {
	struct dwq_ioc_cancel __user *arg;
	u32 result_in;
	void __user *entries;
	__u32 __user *error_index;
};

/* DWQ_IOC_CANCEL's result: -ENOENT for an id not the file's. */
static int dwq_write_result(void *arg, const struct dwq_ioc_cancel *uc,
			    unsigned int n)
{
	struct dwq_cancel_out *out = arg;

	/*
	 * An id not the file's: the caller's own value written back, so that
	 * an argument that cannot be written is -EFAULT whatever the id.
	 */
	if (uc->result == DWQ_RESULT_NOENT) {
		if (put_user(out->result_in, &out->arg->result))
			return -EFAULT;
		return -ENOENT;
	}
	return put_user(uc->result, &out->arg->result) ? -EFAULT : 0;
}

/* DWQ_IOC_CANCEL_BATCH's results, an entry's NOENT among them. */
static int dwq_write_results(void *arg, const struct dwq_ioc_cancel *uc,
			     unsigned int n)
{
	struct dwq_cancel_out *out = arg;
	struct dwq_ioc_cancel __user *u = out->entries;
	unsigned int i;

	/* The results alone: an entry's id is the caller's, unchanged. */
	if (!user_write_access_begin(u, array_size(n, sizeof(*u))))
		return -EFAULT;
	for (i = 0; i < n; i++)
		unsafe_put_user(uc[i].result, &u[i].result, efault);
	user_write_access_end();
	return put_user(n, out->error_index) ? -EFAULT : 0;
efault:
	user_write_access_end();
	return -EFAULT;
}

static long dwq_ioctl_cancel(struct dwq_client *c,
			     struct dwq_ioc_cancel __user *arg, bool killable)
{
	struct dwq_cancel_out out = { .arg = arg };
	struct dwq_utask *found;
	struct dwq_ioc_cancel uc;

	if (copy_from_user(&uc, arg, sizeof(uc)))
		return -EFAULT;
	if (uc.reserved)
		return -EINVAL;
	out.result_in = uc.result;
	/*
	 * A batch of one: the same path as DWQ_IOC_CANCEL_BATCH. The result
	 * is written back before the task is cancelled: if it cannot be,
	 * nothing is (the caller could not tell what happened).
	 */
	return dwq_client_cancel(c, &uc, &found, 1, killable, dwq_write_result,
				 &out);
}

static long dwq_ioctl_cancel_batch(struct dwq_client *c,
				   struct dwq_ioc_cancel_batch __user *arg,
				   bool killable)
{
	struct dwq_ioc_cancel_batch b;
	struct dwq_ioc_cancel *uc = NULL;
	struct dwq_cancel_out out = {};
	struct dwq_utask **found;
	void __user *entries;
	unsigned int i;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	b.error_index = b.count;
	if (b.flags || b.reserved || !b.count ||
	    b.count > DWQ_CANCEL_BATCH_MAX) {
		err = -EINVAL;
		goto out_report;
	}
	/*
	 * The entries, then a task pointer for each (dwq_client_cancel()):
	 * at most DWQ_CANCEL_BATCH_MAX of both, 24 KiB (dwq_dev_init()).
	 */
	uc = kvmalloc_array(b.count, sizeof(*uc) + sizeof(*found),
			    GFP_KERNEL_ACCOUNT);
	if (!uc) {
		err = -ENOMEM;
		goto out_report;
	}
	entries = u64_to_user_ptr(b.entries);
	if (dwq_get_cancels(uc, entries, b.count)) {
		err = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < b.count; i++) {
		if (uc[i].reserved) {
			b.error_index = i;
			err = -EINVAL;
			goto out_free;
		}
	}
	/*
	 * An id not the file's (any more) is an answer, not a failure. The
	 * results and error_index are written back before anything is
	 * cancelled: a batch that faults there has changed nothing.
	 */
	out.entries = entries;
	out.error_index = &arg->error_index;
	found = (struct dwq_utask **)(uc + b.count);
	err = dwq_client_cancel(c, uc, found, b.count, killable,
				dwq_write_results, &out);
	if (err)
		goto out_free;
	kvfree(uc);
	return 0;

out_free:
	kvfree(uc);
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

static long dwq_ioctl_reschedule(struct dwq_client *c,
				 struct dwq_ioc_reschedule __user *arg,
				 bool killable)
{
	struct dwq_ioc_reschedule ur;
	u32 mode;
	int err;

	/* Nothing is written back: a read-only argument is fine. */
	if (copy_from_user(&ur, arg, sizeof(ur)))
		return -EFAULT;
	if (ur.reserved[0] || ur.reserved[1])
		return -EINVAL;
	if (ur.flags & ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME |
			 DWQ_RESCHED_MONOTONIC | DWQ_RESCHED_PERIOD))
		return -EINVAL;
	if ((ur.flags & DWQ_SCHED_BOOTTIME) &&
	    (ur.flags & DWQ_RESCHED_MONOTONIC))
		return -EINVAL;
	if (!(ur.flags & DWQ_RESCHED_PERIOD) && (ur.mode || ur.period_ns))
		return -EINVAL;
	/*
	 * A malformed request is refused as one, whatever its id. What a
	 * deadline's clock decides is checked once the task is found.
	 */
	mode = ur.flags & DWQ_RESCHED_PERIOD ? ur.mode : DWQ_MODE_ONESHOT;
	err = dwq_limits_timing(ur.time_ns, ur.period_ns, mode, ur.flags);
	if (err)
		return err;
	return dwq_client_reschedule(c, &ur, killable);
}

static long dwq_ioctl_query(struct dwq_client *c,
			    struct dwq_ioc_query __user *arg, bool killable)
{
	struct dwq_ioc_query uq;
	int err;

	/* No side effect: a result that cannot be written is just -EFAULT. */
	if (copy_from_user(&uq, arg, sizeof(uq)))
		return -EFAULT;
	if (uq.reserved)
		return -EINVAL;
	/*
	 * Whatever the id, an unknown one is -ENOENT only if the whole
	 * argument is writable: its first and last fields lie on the (at
	 * most two) pages it spans.
	 */
	BUILD_BUG_ON(offsetofend(struct dwq_ioc_query, reserved) != sizeof(uq));
	if (put_user(uq.id, &arg->id) || put_user(uq.reserved, &arg->reserved))
		return -EFAULT;
	err = dwq_client_query(c, &uq, killable);
	if (err)
		return err;
	return copy_to_user(arg, &uq, sizeof(uq)) ? -EFAULT : 0;
}

static long dwq_ioctl_stats(struct dwq_client *c,
			    struct dwq_ioc_stats __user *arg, bool killable)
{
	struct dwq_queue_stats qs = { .leader = -1 };
	struct dwq_ioc_stats st = {};
	int err;

	/* No side effect: a result that cannot be written is just -EFAULT. */
	if (c->q)
		dwq_queue_get_stats(c->q, &qs);
	err = dwq_client_stats(c, &st, killable);
	if (err)
		return err;
	st.queue_size = qs.size;
	st.queue_capacity = qs.capacity;
	st.workers = qs.workers;
	st.leader = qs.leader;
	st.timed_waits = qs.total.timed_waits;
	st.untimed_waits = qs.total.untimed_waits;
	st.wakeups = qs.total.wakeups;
	st.spurious_wakeups = qs.total.spurious_wakeups;
	st.tasks_run = qs.total.tasks_run;
	st.leader_changes = qs.total.leader_changes;
	return copy_to_user(arg, &st, sizeof(st)) ? -EFAULT : 0;
}

/**
 * dwq_dev_ioctl_wait() - an ioctl of /dev/dwq, from ioctl() or io_uring
 * @file: the file
 * @cmd: a DWQ_IOC_* command
 * @arg: its argument, a user pointer to the command's struct
 * @killable: wait for the file's mutex killably (io_uring's commands),
 *	else interruptibly (ioctl())
 *
 * Each command copies its argument in, checks it whole, acts under the
 * file's mutex, and copies its results out.
 *
 * Context: process context; may sleep.
 * Return: 0 or what the command says; -ENOTTY for an unknown command.
 */
long dwq_dev_ioctl_wait(struct file *file, unsigned int cmd, unsigned long arg,
			bool killable)
{
	struct dwq_client *c = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DWQ_IOC_SCHEDULE:
		return dwq_ioctl_schedule(c, uarg, killable);
	case DWQ_IOC_SCHEDULE_BATCH:
		return dwq_ioctl_schedule_batch(c, uarg, killable);
	case DWQ_IOC_CANCEL:
		return dwq_ioctl_cancel(c, uarg, killable);
	case DWQ_IOC_RESCHEDULE:
		return dwq_ioctl_reschedule(c, uarg, killable);
	case DWQ_IOC_QUERY:
		return dwq_ioctl_query(c, uarg, killable);
	case DWQ_IOC_STATS:
		return dwq_ioctl_stats(c, uarg, killable);
	case DWQ_IOC_CANCEL_BATCH:
		return dwq_ioctl_cancel_batch(c, uarg, killable);
	default:
		return -ENOTTY;
	}
}

/**
 * dwq_dev_ioctl() - ioctl() of /dev/dwq
 * @file: the file
 * @cmd: a DWQ_IOC_* command
 * @arg: its argument, a user pointer to the command's struct
 *
 * Context: process context; may sleep.
 * Return: as dwq_dev_ioctl_wait(); -ERESTARTSYS for a signal that ended
 * its wait for the file.
 */
long dwq_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return dwq_dev_ioctl_wait(file, cmd, arg, false);
}
