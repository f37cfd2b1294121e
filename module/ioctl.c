// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq ioctls: copy the argument in, check all of it, then act under
 * the file's mutex. Every result is proven writable (written once with
 * what is there) before anything changes: a result that cannot be written
 * back fails the call with nothing done. The results are written back
 * with the mutex still held, so that a fault then (another thread
 * unmapping the argument during the call) can still undo a schedule;
 * only a cancel, which cannot be undone, can fail with -EFAULT after
 * acting.
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

/*
 * Make @ds's time the absolute deadline on @clock it asks for, now: -EINVAL
 * if it is past KTIME_MAX, or the one a @period later is (so that moving
 * a periodic task on never wraps), as for the engine's tasks.
 */
static int dwq_sched_abs(struct dwq_sched *ds, unsigned int clock, u64 period)
{
	u64 now, d = ds->time_ns;

	if (!(ds->flags & DWQ_SCHED_ABS)) {
		now = dwq_clock_now(clock);
		if (d > KTIME_MAX - now)
			return -EINVAL;
		d += now;
	}
	if (period > KTIME_MAX - d)
		return -EINVAL;
	ds->time_ns = d;
	ds->flags |= DWQ_SCHED_ABS;
	return 0;
}

static unsigned int dwq_sched_clock(const struct dwq_sched *ds)
{
	return ds->flags & DWQ_SCHED_BOOTTIME ? DWQ_CLOCK_BOOTTIME :
						DWQ_CLOCK_MONOTONIC;
}

/* Check a request, and make @ds its absolute deadline (as of now). */
static int dwq_dev_check_schedule(const struct dwq_ioc_schedule *us,
				  struct dwq_sched *ds)
{
	int err;

	if (us->reserved[0] || us->reserved[1] || us->reserved[2])
		return -EINVAL;
	if (us->flags & ~(DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME))
		return -EINVAL;
	err = dwq_limits_sched(ds, us->time_ns, us->period_ns, us->mode,
			       us->flags);
	if (err)
		return err;
	return dwq_sched_abs(ds, dwq_sched_clock(ds), us->period_ns);
}

/**
 * struct dwq_sched_req - tasks to schedule, all or none
 * @us: the requests, checked
 * @ds: their timing, absolute deadlines (dwq_dev_check_schedule())
 * @uts: as many tasks from dwq_utask_alloc(); the caller frees them on
 *	failure (those left: NULL entries were freed already)
 * @n: how many
 * @rate: their firing rate together, mHz
 * @write_ids: writes the ids back to user space: 0 or -EFAULT
 * @arg: for @write_ids
 */
struct dwq_sched_req {
	const struct dwq_ioc_schedule *us;
	const struct dwq_sched *ds;
	struct dwq_utask **uts;
	unsigned int n;
	u64 rate;
	int (*write_ids)(void *arg, struct dwq_utask **uts, unsigned int n);
	void *arg;
};

/*
 * Schedule @r's tasks: charge them, give them ids, put them in their
 * heaps, write the ids back (the mutex held: no task can be read before
 * its id is out), and arm the alarms.
 */
static int dwq_schedule_locked(struct dwq_client *c,
			       const struct dwq_sched_req *r)
{
	unsigned int i, per[DWQ_NR_CLOCKS] = {}, due = 0, n = r->n;
	struct dwq_utask *ut;
	int err;

	lockdep_assert_held(&c->mutex);
	err = dwq_limits_charge(c, n, r->rate);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		per[dwq_sched_clock(&r->ds[i])]++;
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		err = per[i] ? dwq_client_grow(c, i, per[i]) : 0;
		if (err)
			goto err_uncharge;
	}
	err = dwq_utasks_add(c, r->uts, n);
	if (err)
		goto err_uncharge;
	for (i = 0; i < n; i++) {
		ut = r->uts[i];
		ut->cookie = r->us[i].cookie;
		ut->mode = r->us[i].mode;
		ut->period = r->us[i].period_ns;
		ut->clock = dwq_sched_clock(&r->ds[i]);
		dwq_utask_insert(c, ut, r->ds[i].time_ns);
		if (dwq_utask_due(ut, dwq_clock_now(ut->clock)))
			due |= BIT(ut->clock);
	}
	err = r->write_ids(r->arg, r->uts, n);
	if (err) {
		/*
		 * Never seen by anyone: undone whole (the ids stay used).
		 * Freed here: the caller's pointers are cleared.
		 */
		for (i = 0; i < n; i++) {
			dwq_utask_destroy(c, r->uts[i]);
			r->uts[i] = NULL;
		}
		for (i = 0; i < DWQ_NR_CLOCKS; i++)
			dwq_client_shrink(c, i);
		return err;
	}
	for (i = 0; trace_dwq_dev_schedule_enabled() && i < n; i++)
		trace_dwq_dev_schedule(r->uts[i], r->us[i].time_ns,
				       r->us[i].period_ns, r->us[i].mode,
				       r->us[i].flags);
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		/*
		 * A task due at once behind an earlier one waiting unread:
		 * the alarm fires only for a new earliest deadline, so wake
		 * the readers here (an edge for epoll's EPOLLET).
		 */
		if (per[i] && !dwq_client_arm(c, i) && (due & BIT(i)))
			wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
	}
	return 0;

err_uncharge:
	dwq_limits_uncharge(c, n, r->rate);
	return err;
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
			       bool nonblock)
{
	struct dwq_one_out out = { .arg = arg };
	struct dwq_sched_req req;
	struct dwq_ioc_schedule us;
	struct dwq_utask *ut;
	struct dwq_sched ds;
	int err;

	if (copy_from_user(&us, arg, sizeof(us)))
		return -EFAULT;
	err = dwq_dev_check_schedule(&us, &ds);
	if (err)
		return err;
	/* The id can go out: prove it before an id or a charge is taken. */
	if (put_user(us.id, &arg->id))
		return -EFAULT;
	ut = dwq_utask_alloc();
	if (!ut)
		return -ENOMEM;
	err = dwq_client_lock(c, nonblock);
	if (err)
		goto out_free;
	req = (struct dwq_sched_req){
		.us = &us,
		.ds = &ds,
		.uts = &ut,
		.n = 1,
		.rate = dwq_limits_rate(us.mode, us.period_ns),
		.write_ids = dwq_write_id,
		.arg = &out,
	};
	err = dwq_schedule_locked(c, &req);
	mutex_unlock(&c->mutex);
	if (!err)
		return 0;
out_free:
	dwq_utask_free(ut);
	return err;
}

/* A batch's ids and error_index, written back under the mutex. */
struct dwq_batch_out {
	struct dwq_ioc_schedule_batch __user *arg;
	struct dwq_ioc_schedule *us;
	u64 entries;
	u32 count;
};

static int dwq_write_ids(void *arg, struct dwq_utask **uts, unsigned int n)
{
	struct dwq_batch_out *out = arg;
	unsigned int i;

	for (i = 0; i < n; i++)
		out->us[i].id = uts[i]->id;
	if (copy_to_user(u64_to_user_ptr(out->entries), out->us,
			 array_size(n, sizeof(*out->us))) ||
	    put_user(out->count, &out->arg->error_index))
		return -EFAULT;
	return 0;
}

static long dwq_ioctl_schedule_batch(struct dwq_client *c,
				     struct dwq_ioc_schedule_batch __user *arg,
				     bool nonblock)
{
	struct dwq_ioc_schedule_batch b;
	struct dwq_ioc_schedule *us = NULL;
	struct dwq_sched *ds = NULL;
	struct dwq_utask **uts = NULL;
	struct dwq_batch_out out;
	struct dwq_sched_req req;
	unsigned int i, made = 0;
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
	us = kvmalloc_array(b.count, sizeof(*us), GFP_KERNEL);
	ds = kvmalloc_array(b.count, sizeof(*ds), GFP_KERNEL);
	uts = kvcalloc(b.count, sizeof(*uts), GFP_KERNEL);
	if (!us || !ds || !uts) {
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
		rate += dwq_limits_rate(us[i].mode, us[i].period_ns);
	}
	/*
	 * Prove the ids and error_index writable before an id or a charge
	 * is taken: a batch that faults here has changed nothing.
	 */
	if (copy_to_user(u64_to_user_ptr(b.entries), us,
			 array_size(b.count, sizeof(*us))) ||
	    put_user(b.count, &arg->error_index)) {
		err = -EFAULT;
		goto out_free;
	}
	for (made = 0; made < b.count; made++) {
		uts[made] = dwq_utask_alloc();
		if (!uts[made]) {
			err = -ENOMEM;
			goto out_free;
		}
	}
	err = dwq_client_lock(c, nonblock);
	if (err)
		goto out_free;
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
	};
	err = dwq_schedule_locked(c, &req);
	mutex_unlock(&c->mutex);
	if (!err)
		made = 0; /* the file's now */

out_free:
	for (i = 0; i < made; i++)
		dwq_utask_free(uts[i]);
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
 * Cancel @n tasks by id, in turn, at one moment; the file's mutex held.
 * Each entry's result: %DWQ_RESULT_REMOVED, or %DWQ_RESULT_NOENT for an id
 * the file does not own (any more: a due one-shot's, or one an earlier
 * entry cancelled). A due periodic task keeps its event, unread: folded
 * into the one it kept already, or the task itself becomes it
 * (dwq_utask_cancel_due()). Nothing is allocated: it cannot fail.
 */
static void dwq_cancel_locked(struct dwq_client *c, struct dwq_ioc_cancel *uc,
			      unsigned int n)
{
	unsigned int i, touched = 0;
	u64 now[DWQ_NR_CLOCKS];
	struct dwq_utask *ut;

	lockdep_assert_held(&c->mutex);
	/* One moment for the whole batch: what is due stays so. */
	for (i = 0; i < DWQ_NR_CLOCKS; i++)
		now[i] = dwq_clock_now(i);
	for (i = 0; i < n; i++) {
		ut = dwq_client_find(c, uc[i].id);
		if (!ut || (ut->mode == DWQ_MODE_ONESHOT &&
			    dwq_utask_due(ut, now[ut->clock]))) {
			uc[i].result = DWQ_RESULT_NOENT;
			continue;
		}
		uc[i].result = DWQ_RESULT_REMOVED;
		c->cancelled++;
		trace_dwq_dev_cancel(ut, DWQ_RESULT_REMOVED);
		touched |= BIT(ut->clock);
		if (!dwq_utask_due(ut, now[ut->clock])) {
			dwq_utask_destroy(c, ut);
		} else if (ut->ev) {
			/* Folds into the event it kept: no memory taken. */
			dwq_utask_keep(c, ut, now[ut->clock], NULL);
			dwq_utask_destroy(c, ut);
		} else {
			dwq_utask_cancel_due(c, ut, now[ut->clock]);
		}
	}
	for (i = 0; i < DWQ_NR_CLOCKS; i++) {
		if (touched & BIT(i)) {
			dwq_client_arm(c, i);
			dwq_client_shrink(c, i);
		}
	}
}

static long dwq_ioctl_cancel(struct dwq_client *c,
			     struct dwq_ioc_cancel __user *arg, bool nonblock)
{
	struct dwq_ioc_cancel uc;
	int err;

	if (copy_from_user(&uc, arg, sizeof(uc)))
		return -EFAULT;
	if (uc.reserved)
		return -EINVAL;
	/*
	 * Prove the result writable before cancelling: a cancel whose result
	 * could not be written back would leave the caller not knowing
	 * whether it happened.
	 */
	if (put_user(uc.result, &arg->result))
		return -EFAULT;
	err = dwq_client_lock(c, nonblock);
	if (err)
		return err;
	/* A batch of one: the same path as DWQ_IOC_CANCEL_BATCH. */
	dwq_cancel_locked(c, &uc, 1);
	if (uc.result == DWQ_RESULT_NOENT)
		err = -ENOENT;
	/* Only fails if another thread unmapped the argument meanwhile. */
	if (!err && put_user(uc.result, &arg->result))
		err = -EFAULT;
	mutex_unlock(&c->mutex);
	return err;
}

static long dwq_ioctl_cancel_batch(struct dwq_client *c,
				   struct dwq_ioc_cancel_batch __user *arg,
				   bool nonblock)
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
	err = dwq_client_lock(c, nonblock);
	if (err)
		goto out_free;
	/* An id not the file's (any more) is an answer, not a failure. */
	dwq_cancel_locked(c, uc, b.count);
	/* Only fails if another thread unmapped the array meanwhile. */
	if (copy_to_user(entries, uc, size))
		err = -EFAULT;
	mutex_unlock(&c->mutex);
	kvfree(uc);
	return err;

out_free:
	kvfree(uc);
out_report:
	/* The call fails anyway: its error says more than a fault here. */
	(void)put_user(b.error_index, &arg->error_index);
	return err;
}

/*
 * DWQ_IOC_RESCHEDULE, checked, on @ut, its mutex held, @now the call's
 * moment on @ut's clock (@ut is no due one-shot then). The task keeps its
 * clock unless @ur says %DWQ_SCHED_BOOTTIME or %DWQ_RESCHED_MONOTONIC. A
 * due periodic task keeps the event of that firing first (unread, with
 * the periods skipped until now); a later due moment before it is read
 * folds into it. A new period's firing rate is charged to the user first,
 * and what can fail does before anything changes.
 */
static int dwq_reschedule_locked(struct dwq_client *c, struct dwq_utask *ut,
				 const struct dwq_ioc_reschedule *ur, u64 now)
{
	u32 flags = ur->flags & (DWQ_SCHED_ABS | DWQ_RESCHED_PERIOD);
	/* Without DWQ_RESCHED_PERIOD, mode and period stay as they are. */
	u32 mode = ur->flags & DWQ_RESCHED_PERIOD ? ur->mode : DWQ_MODE_ONESHOT;
	unsigned int clock = ut->clock, old_clock = ut->clock;
	u64 old_rate, rate;
	struct dwq_heap *heap;
	struct dwq_sched ds;
	LIST_HEAD(spares);
	bool due;
	int err;

	lockdep_assert_held(&c->mutex);
	if (ur->flags & DWQ_SCHED_BOOTTIME)
		clock = DWQ_CLOCK_BOOTTIME;
	else if (ur->flags & DWQ_RESCHED_MONOTONIC)
		clock = DWQ_CLOCK_MONOTONIC;
	if (clock == DWQ_CLOCK_BOOTTIME)
		flags |= DWQ_SCHED_BOOTTIME;
	err = dwq_limits_sched(&ds, ur->time_ns, ur->period_ns, mode, flags);
	if (err)
		return err;
	err = dwq_sched_abs(&ds, clock,
			    ur->flags & DWQ_RESCHED_PERIOD ? ur->period_ns :
							     ut->period);
	if (err)
		return err;
	old_rate = dwq_limits_rate(ut->mode, ut->period);
	rate = old_rate;
	if (ur->flags & DWQ_RESCHED_PERIOD) {
		rate = dwq_limits_rate(ur->mode, ur->period_ns);
		if (rate > old_rate) {
			err = dwq_limits_rate_charge(c->user, rate - old_rate);
			if (err)
				return err;
		}
	}
	if (clock != old_clock) {
		err = dwq_client_grow(c, clock, 1);
		if (err)
			goto err_rate;
	}
	due = dwq_utask_due(ut, now);
	if (due && !ut->ev) {
		err = dwq_uevents_alloc(&spares, 1);
		if (err)
			goto err_rate;
	}

	/* Nothing fails from here on. */
	if (due)
		dwq_utask_keep(c, ut, now, &spares);
	dwq_uevents_free(&spares);
	if (rate < old_rate)
		dwq_limits_rate_release(c->user, old_rate - rate);
	if (ur->flags & DWQ_RESCHED_PERIOD) {
		ut->mode = ur->mode;
		ut->period = ur->period_ns;
	}
	if (clock != old_clock) {
		dwq_heap_remove(&c->clk[old_clock].heap, &ut->node);
		ut->clock = clock;
		dwq_utask_insert(c, ut, ds.time_ns);
		dwq_client_arm(c, old_clock);
		dwq_client_shrink(c, old_clock);
	} else {
		/* After the tasks already due then: a fresh seq. */
		heap = &c->clk[clock].heap;
		heap->next_seq = c->seq++;
		dwq_heap_update(heap, &ut->node, ds.time_ns);
	}
	/* As in dwq_schedule_locked(): due at once is an edge. */
	if (!dwq_client_arm(c, clock) &&
	    dwq_utask_due(ut, dwq_clock_now(clock)))
		wake_up_poll(&c->wqh, EPOLLIN | EPOLLRDNORM);
	return 0;

err_rate:
	if (rate > old_rate)
		dwq_limits_rate_release(c->user, rate - old_rate);
	return err;
}

static long dwq_ioctl_reschedule(struct dwq_client *c,
				 struct dwq_ioc_reschedule __user *arg,
				 bool nonblock)
{
	struct dwq_ioc_reschedule ur;
	struct dwq_utask *ut;
	u64 now = 0;
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
	err = dwq_client_lock(c, nonblock);
	if (err)
		return err;
	ut = dwq_client_find(c, ur.id);
	/*
	 * One moment for the whole call: a one-shot not due (not gone) here
	 * is not due below either, so only a periodic task keeps an event.
	 */
	if (ut)
		now = dwq_clock_now(ut->clock);
	if (!ut || (ut->mode == DWQ_MODE_ONESHOT && dwq_utask_due(ut, now))) {
		err = -ENOENT;
	} else {
		err = dwq_reschedule_locked(c, ut, &ur, now);
		if (!err)
			trace_dwq_dev_reschedule(ut, ur.time_ns, ur.period_ns,
						 ur.mode, ur.flags);
	}
	mutex_unlock(&c->mutex);
	return err;
}

static long dwq_ioctl_query(struct dwq_client *c,
			    struct dwq_ioc_query __user *arg, bool nonblock)
{
	struct dwq_ioc_query uq;
	struct dwq_utask *ut;
	u64 now = 0;
	int err;

	/* No side effect: a result that cannot be written is just -EFAULT. */
	if (copy_from_user(&uq, arg, sizeof(uq)))
		return -EFAULT;
	if (uq.reserved)
		return -EINVAL;
	err = dwq_client_lock(c, nonblock);
	if (err)
		return err;
	ut = dwq_client_find(c, uq.id);
	if (ut) {
		now = dwq_clock_now(ut->clock);
		if (ut->mode == DWQ_MODE_ONESHOT && dwq_utask_due(ut, now))
			ut = NULL;
	}
	if (!ut) {
		mutex_unlock(&c->mutex);
		return -ENOENT;
	}
	/* Due and periodic: it waits for read(), which fires it. */
	if (dwq_utask_due(ut, now)) {
		uq.state = DWQ_STATE_PARKED;
		uq.remaining_ns = 0;
	} else {
		uq.state = DWQ_STATE_QUEUED;
		uq.remaining_ns = ut->node.deadline - now;
	}
	uq.deadline_ns = ut->node.deadline;
	uq.period_ns = ut->period;
	uq.cookie = ut->cookie;
	uq.runs = ut->runs;
	uq.overruns = 0;
	uq.skipped = ut->skipped;
	uq.folded = ut->folded;
	uq.mode = ut->mode;
	uq.flags = ut->clock == DWQ_CLOCK_BOOTTIME ? DWQ_SCHED_BOOTTIME : 0;
	mutex_unlock(&c->mutex);
	return copy_to_user(arg, &uq, sizeof(uq)) ? -EFAULT : 0;
}

static long dwq_ioctl_stats(struct dwq_client *c,
			    struct dwq_ioc_stats __user *arg, bool nonblock)
{
	struct dwq_queue_stats qs = { .leader = -1 };
	struct dwq_ioc_stats st = {};
	int err;

	/* No side effect: a result that cannot be written is just -EFAULT. */
	if (c->q)
		dwq_queue_get_stats(c->q, &qs);
	err = dwq_client_lock(c, nonblock);
	if (err)
		return err;
	st.pending = atomic_read(&c->nr_tasks);
	st.fired = c->fired;
	st.cancelled = c->cancelled;
	st.coalesced = c->coalesced;
	st.events = dwq_events_count(c);
	dwq_limits_stats(c->user, &st);
	mutex_unlock(&c->mutex);
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
 * dwq_dev_ioctl_flags() - an ioctl of /dev/dwq, from ioctl() or io_uring
 * @file: the file
 * @cmd: a DWQ_IOC_* command
 * @arg: its argument, a user pointer to the command's struct
 * @nonblock: -EAGAIN rather than wait for the file's mutex (io_uring's
 *	inline issue, which retries from its worker)
 *
 * Each command copies its argument in, checks it whole, acts under the
 * file's mutex, and copies its results out.
 *
 * Context: process context; may sleep.
 * Return: 0 or what the command says; -ENOTTY for an unknown command.
 */
long dwq_dev_ioctl_flags(struct file *file, unsigned int cmd, unsigned long arg,
			 bool nonblock)
{
	struct dwq_client *c = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case DWQ_IOC_SCHEDULE:
		return dwq_ioctl_schedule(c, uarg, nonblock);
	case DWQ_IOC_SCHEDULE_BATCH:
		return dwq_ioctl_schedule_batch(c, uarg, nonblock);
	case DWQ_IOC_CANCEL:
		return dwq_ioctl_cancel(c, uarg, nonblock);
	case DWQ_IOC_RESCHEDULE:
		return dwq_ioctl_reschedule(c, uarg, nonblock);
	case DWQ_IOC_QUERY:
		return dwq_ioctl_query(c, uarg, nonblock);
	case DWQ_IOC_STATS:
		return dwq_ioctl_stats(c, uarg, nonblock);
	case DWQ_IOC_CANCEL_BATCH:
		return dwq_ioctl_cancel_batch(c, uarg, nonblock);
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
 * Return: as dwq_dev_ioctl_flags().
 */
long dwq_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return dwq_dev_ioctl_flags(file, cmd, arg, false);
}
