// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq ioctls: copy the argument in, check all of it, act, copy the
 * results out. Nothing is locked while user memory is touched (the model
 * is fs/timerfd.c), and a result that cannot be written back fails the
 * call before anything has changed wherever that can be known in advance.
 */
#include <linux/bitops.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dev.h"
#include "dwq_internal.h"
#include "trace.h"

static int dwq_dev_check_schedule(const struct dwq_ioc_schedule *us,
				  struct dwq_sched *ds)
{
	if (us->reserved[0] || us->reserved[1] || us->reserved[2])
		return -EINVAL;
	if (us->flags & ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME))
		return -EINVAL;
	return dwq_limits_sched(ds, us->time_ns, us->period_ns, us->mode,
				us->flags);
}

/*
 * Schedule as the engine does, which never allocates: when the heap has no
 * room, make room for @n (this may sleep) and try again.
 */
static int dwq_ioctl_sched(struct dwq_queue *q, struct dwq_task **tasks,
			   const struct dwq_sched *ds, unsigned int n)
{
	int err = dwq_schedule_batch(q, tasks, ds, n);

	while (err == -ENOSPC) {
		err = dwq_queue_reserve(q, n);
		if (err)
			break;
		err = dwq_schedule_batch(q, tasks, ds, n);
		dwq_queue_unreserve(q, n);
	}
	return err;
}

static long dwq_ioctl_schedule(struct dwq_client *c,
			       struct dwq_ioc_schedule __user *arg)
{
	struct dwq_ioc_schedule us;
	struct dwq_task *task;
	struct dwq_utask *ut;
	struct dwq_sched ds;
	bool traced;
	int err;

	if (copy_from_user(&us, arg, sizeof(us)))
		return -EFAULT;
	err = dwq_dev_check_schedule(&us, &ds);
	if (err)
		return err;
	err = dwq_limits_charge(c, 1);
	if (err)
		return err;
	err = dwq_utasks_new(c, &us, &task, 1);
	if (err)
		return err;
	ut = container_of(task, struct dwq_utask, task);
	/* The id goes out before the task can fire and be read. */
	if (put_user(ut->id, &arg->id)) {
		err = -EFAULT;
		goto err_forget;
	}
	/*
	 * Once scheduled the task may fire, be read and freed before we
	 * trace it: a traced schedule holds a reference across.
	 */
	traced = trace_dwq_dev_schedule_enabled();
	if (traced)
		dwq_task_get(&ut->task);
	err = dwq_ioctl_sched(c->q, &task, &ds, 1);
	if (traced) {
		if (!err)
			trace_dwq_dev_schedule(ut, us.time_ns, us.period_ns,
					       us.mode, us.flags);
		dwq_task_put(&ut->task);
	}
	if (err)
		goto err_forget;
	return 0;

err_forget:
	dwq_client_forget(c, ut);
	return err;
}

static long dwq_ioctl_schedule_batch(struct dwq_client *c,
				     struct dwq_ioc_schedule_batch __user *arg)
{
	struct dwq_ioc_schedule_batch b;
	struct dwq_ioc_schedule *us = NULL;
	struct dwq_sched *ds = NULL;
	struct dwq_task **tasks = NULL;
	unsigned int i;
	bool traced;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	b.error_index = b.count;
	if (b.flags || b.reserved || !b.count ||
	    b.count > DWQ_SCHEDULE_BATCH_MAX) {
		err = -EINVAL;
		goto out_report;
	}
	us = kvmalloc_array(b.count, sizeof(*us), GFP_KERNEL);
	ds = kvmalloc_array(b.count, sizeof(*ds), GFP_KERNEL);
	tasks = kvmalloc_array(b.count, sizeof(*tasks), GFP_KERNEL);
	if (!us || !ds || !tasks) {
		err = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(us, u64_to_user_ptr(b.entries),
			   array_size(b.count, sizeof(*us)))) {
		err = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < b.count; i++) {
		err = dwq_dev_check_schedule(&us[i], &ds[i]);
		if (err) {
			b.error_index = i;
			goto out_free;
		}
	}
	err = dwq_limits_charge(c, b.count);
	if (err)
		goto out_free;
	err = dwq_utasks_new(c, us, tasks, b.count);
	if (err)
		goto out_free;
	for (i = 0; i < b.count; i++)
		us[i].id = container_of(tasks[i], struct dwq_utask, task)->id;
	/*
	 * All ids, and error_index for success, go out before any task can
	 * fire: once the batch is scheduled nothing may fail any more, or it
	 * would not be all or nothing.
	 */
	if (copy_to_user(u64_to_user_ptr(b.entries), us,
			 array_size(b.count, sizeof(*us))) ||
	    put_user(b.count, &arg->error_index)) {
		err = -EFAULT;
		goto out_forget;
	}
	/* As in dwq_ioctl_schedule(): a traced schedule holds references. */
	traced = trace_dwq_dev_schedule_enabled();
	for (i = 0; traced && i < b.count; i++)
		dwq_task_get(tasks[i]);
	err = dwq_ioctl_sched(c->q, tasks, ds, b.count);
	for (i = 0; traced && i < b.count; i++) {
		if (!err)
			trace_dwq_dev_schedule(container_of(tasks[i],
							    struct dwq_utask,
							    task),
					       us[i].time_ns, us[i].period_ns,
					       us[i].mode, us[i].flags);
		dwq_task_put(tasks[i]);
	}
	if (!err) {
		kvfree(tasks);
		kvfree(ds);
		kvfree(us);
		return 0;
	}

out_forget:
	for (i = 0; i < b.count; i++)
		dwq_client_forget(c, container_of(tasks[i], struct dwq_utask,
						  task));
out_free:
	kvfree(tasks);
	kvfree(ds);
	kvfree(us);
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

static long dwq_ioctl_cancel(struct dwq_client *c,
			     struct dwq_ioc_cancel __user *arg)
{
	struct dwq_ioc_cancel uc;
	struct dwq_task *task;
	int ret;

	if (copy_from_user(&uc, arg, sizeof(uc)))
		return -EFAULT;
	if (uc.reserved)
		return -EINVAL;
	/*
	 * Prove the result writable before cancelling: a cancel whose result
	 * could not be written back would leave the caller not knowing
	 * whether one more event comes.
	 */
	if (put_user(uc.result, &arg->result))
		return -EFAULT;
	/* A batch of one: the same path as DWQ_IOC_CANCEL_BATCH. */
	dwq_client_cancel_many(c, &uc, 1, &task, &ret);
	if (uc.result == DWQ_RESULT_NOENT)
		return -ENOENT;
	/* Only fails if another thread unmapped the argument meanwhile. */
	return put_user(uc.result, &arg->result) ? -EFAULT : 0;
}

/* Ids DWQ_IOC_CANCEL_BATCH cancels per hold of each lock. */
#define DWQ_CANCEL_CHUNK 32U

/*
 * One chunk of a batch. noinline_for_stack: its arrays stay out of the
 * frame of the ioctl dispatcher, which every ioctl goes through.
 */
static noinline_for_stack void dwq_ioctl_cancel_chunk(struct dwq_client *c,
						      struct dwq_ioc_cancel *uc,
						      unsigned int n)
{
	struct dwq_task *tasks[DWQ_CANCEL_CHUNK];
	int ret[DWQ_CANCEL_CHUNK];

	BUILD_BUG_ON(DWQ_CANCEL_CHUNK > BITS_PER_LONG);
	dwq_client_cancel_many(c, uc, min(n, DWQ_CANCEL_CHUNK), tasks, ret);
}

static long dwq_ioctl_cancel_batch(struct dwq_client *c,
				   struct dwq_ioc_cancel_batch __user *arg)
{
	struct dwq_ioc_cancel_batch b;
	struct dwq_ioc_cancel *uc = NULL;
	void __user *entries;
	unsigned int i;
	size_t size;
	int err;

	if (copy_from_user(&b, arg, sizeof(b)))
		return -EFAULT;
	b.error_index = b.count;
	if (b.flags || b.reserved || !b.count ||
	    b.count > DWQ_CANCEL_BATCH_MAX) {
		err = -EINVAL;
		goto out_report;
	}
	/* At most DWQ_CANCEL_BATCH_MAX entries: 16 KiB (dwq_dev_init()). */
	uc = kvmalloc_array(b.count, sizeof(*uc), GFP_KERNEL_ACCOUNT);
	if (!uc) {
		err = -ENOMEM;
		goto out_report;
	}
	entries = u64_to_user_ptr(b.entries);
	size = array_size(b.count, sizeof(*uc));
	if (copy_from_user(uc, entries, size)) {
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
	 * Prove the array and error_index writable before cancelling
	 * anything: a batch that faults here has changed nothing.
	 */
	if (copy_to_user(entries, uc, size) ||
	    put_user(b.count, &arg->error_index)) {
		err = -EFAULT;
		goto out_free;
	}
	/* An id not the file's (any more) is an answer, not a failure. */
	for (i = 0; i < b.count; i += DWQ_CANCEL_CHUNK) {
		dwq_ioctl_cancel_chunk(c, &uc[i],
				       min(b.count - i, DWQ_CANCEL_CHUNK));
		cond_resched();
	}
	/* Only fails if another thread unmapped the array meanwhile. */
	err = copy_to_user(entries, uc, size) ? -EFAULT : 0;
	kvfree(uc);
	return err;

out_free:
	kvfree(uc);
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

static long dwq_ioctl_reschedule(struct dwq_client *c,
				 struct dwq_ioc_reschedule __user *arg)
{
	struct dwq_ioc_reschedule ur;
	struct dwq_utask *ut;
	struct dwq_sched ds;
	u32 mode;
	int err;

	if (copy_from_user(&ur, arg, sizeof(ur)))
		return -EFAULT;
	if (ur.reserved[0] || ur.reserved[1])
		return -EINVAL;
	if (ur.flags &
	    ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME | DWQ_RESCHED_PERIOD))
		return -EINVAL;
	if (!(ur.flags & DWQ_RESCHED_PERIOD) && (ur.mode || ur.period_ns))
		return -EINVAL;
	/* Without DWQ_RESCHED_PERIOD, mode and period stay as they are. */
	mode = ur.flags & DWQ_RESCHED_PERIOD ? ur.mode : DWQ_MODE_ONESHOT;
	err = dwq_limits_sched(&ds, ur.time_ns, ur.period_ns, mode, ur.flags);
	if (err)
		return err;
	ut = dwq_client_get(c, ur.id);
	if (!ut)
		return -ENOENT;
	err = dwq_reschedule(&ut->task, &ds);
	if (!err)
		trace_dwq_dev_reschedule(ut, ur.time_ns, ur.period_ns, ur.mode,
					 ur.flags);
	dwq_task_put(&ut->task);
	return err;
}

static long dwq_ioctl_query(struct dwq_client *c,
			    struct dwq_ioc_query __user *arg)
{
	struct dwq_task_info info;
	struct dwq_ioc_query uq;
	struct dwq_utask *ut;

	if (copy_from_user(&uq, arg, sizeof(uq)))
		return -EFAULT;
	if (uq.reserved[0] || uq.reserved[1] || uq.reserved[2])
		return -EINVAL;
	ut = dwq_client_get(c, uq.id);
	if (!ut)
		return -ENOENT;
	dwq_query(&ut->task, &info);
	uq.cookie = ut->cookie;
	dwq_task_put(&ut->task);

	uq.remaining_ns = info.remaining_ns;
	uq.deadline_ns = info.deadline_ns;
	uq.period_ns = info.period_ns;
	uq.runs = info.runs;
	uq.overruns = info.overruns;
	/* Cancelled by another thread since the lookup: its id is going. */
	uq.state = info.state == DWQ_STATE_CANCELLED ? DWQ_STATE_IDLE :
						       info.state;
	uq.mode = info.mode;
	uq.flags = info.flags;
	return copy_to_user(arg, &uq, sizeof(uq)) ? -EFAULT : 0;
}

static long dwq_ioctl_stats(struct dwq_client *c,
			    struct dwq_ioc_stats __user *arg)
{
	struct dwq_queue_stats qs;
	struct dwq_ioc_stats st = {};

	dwq_queue_get_stats(c->q, &qs);
	st.pending = atomic_read(&c->nr_tasks);
	dwq_events_stats(c, &st);
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
 * dwq_dev_ioctl() - ioctl() of /dev/dwq
 * @file: the file
 * @cmd: a DWQ_IOC_* command
 * @arg: its argument, a user pointer to the command's struct
 *
 * Each command copies its argument in, checks it whole, acts, and copies
 * its results out.
 *
 * Context: process context; may sleep.
 * Return: 0 or what the command says; -ENOTTY for an unknown command.
 */
long dwq_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct dwq_client *c = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DWQ_IOC_SCHEDULE:
		return dwq_ioctl_schedule(c, uarg);
	case DWQ_IOC_SCHEDULE_BATCH:
		return dwq_ioctl_schedule_batch(c, uarg);
	case DWQ_IOC_CANCEL:
		return dwq_ioctl_cancel(c, uarg);
	case DWQ_IOC_RESCHEDULE:
		return dwq_ioctl_reschedule(c, uarg);
	case DWQ_IOC_QUERY:
		return dwq_ioctl_query(c, uarg);
	case DWQ_IOC_STATS:
		return dwq_ioctl_stats(c, uarg);
	case DWQ_IOC_CANCEL_BATCH:
		return dwq_ioctl_cancel_batch(c, uarg);
	default:
		return -ENOTTY;
	}
}
