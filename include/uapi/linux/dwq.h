/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dwq: the user-space interface of the delayed work queue, /dev/dwq.
 *
 * Each open file of /dev/dwq is one client that owns any number of timed
 * tasks. ioctl()s schedule, cancel, reschedule and query them by a 64-bit
 * id that is unique within the file and never reused while it is open.
 * When a task comes due, poll()/epoll report EPOLLIN, and read() fires
 * it: read() makes the event (&struct dwq_event) of every task due by
 * then and moves each task on (a one-shot is done, a periodic task gets
 * its next deadline). Nothing runs for a task before it is read: the
 * firing is read()'s, in the reading thread, charged to it as its CPU
 * time (as a timerfd counts its expirations when it is read). close() of
 * the last reference to the file cancels every task it still owns.
 *
 * Every struct here has a fixed size, explicit padding and reserved
 * fields that must be zero (-EINVAL otherwise), so it can grow compatibly.
 * A field that holds a user address is a __u64 on every architecture:
 * fill it with (__u64)(uintptr_t)pointer. (A 32-bit program's pointer
 * cast straight to __u64 may be sign-extended by the compiler, and such
 * an address is -EFAULT.)
 * Times are nanoseconds on CLOCK_MONOTONIC, or CLOCK_BOOTTIME with
 * %DWQ_SCHED_BOOTTIME, which counts time suspended, as a CLOCK_BOOTTIME
 * timerfd does: a task whose deadline passes during a suspend is due when
 * the system resumes, and wakes its readers then.
 *
 * Every ioctl that writes results back writes them before what it did
 * can be seen, or undoes it: an argument that can be read but not
 * written is -EFAULT with no task made, cancelled or moved, no id used
 * and no charge taken. A cancel writes its results before it cancels
 * anything. A schedule whose ids cannot be written back after all
 * (another thread unmapped the argument, or made it read-only, during
 * the call) is undone; only its ids are used (&struct dwq_ioc_schedule).
 *
 * The calls on one file run one at a time: an ioctl waits for a read(),
 * or another ioctl, on the same file to finish first. A signal during
 * that wait ends it: -EINTR (or a restart, with SA_RESTART), nothing
 * done.
 *
 * An unread periodic task costs nothing: a periodic task that is due and
 * not read is parked (%DWQ_STATE_PARKED): none of its periods runs. read()
 * fires it once, at its first deadline after that moment the task is
 * queued again, and the periods that passed meanwhile are counted then, in
 * the event read (&struct dwq_event.skipped). A task's firing is atomic
 * inside read() (or inside the cancel or reschedule of a due periodic
 * task, which keeps that firing's event for read()): no task is ever
 * seen firing, so %DWQ_STATE_RUNNING and %DWQ_RESULT_RUNNING are never
 * reported.
 *
 * Limits (module parameters, see modinfo dwq): tasks per file, per user
 * (the opener's effective uid, or inside a user namespace a user created,
 * that user) and in all; files per user, max_files_per_user, past which
 * open() is -EMFILE; and a per-user firing-rate budget,
 * max_rate_per_user, in firings per second, over the user's periodic
 * tasks. A periodic task of
 * period P ns counts DIV_ROUND_UP(10^12, P) millifirings per second
 * (&struct dwq_ioc_stats.user_rate_mhz); a one-shot counts none. What
 * would go past a limit is -ENOSPC, with nothing changed;
 * &struct dwq_ioc_stats has every count a limit is checked against.
 */
#ifndef _UAPI_LINUX_DWQ_H
#define _UAPI_LINUX_DWQ_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* ioctl magic; free in Documentation/userspace-api/ioctl/ioctl-number.rst */
#define DWQ_IOC_MAGIC 0xD7

/*
 * Task modes, &struct dwq_ioc_schedule.mode. The kernel API
 * (&struct dwq_sched.mode) uses the same values.
 */
#define DWQ_MODE_ONESHOT 0 /* fires once */
/*
 * Fires at deadline + k * period. Periods that pass without a firing are
 * not replayed, but counted. A kernel task taken to run after more than
 * one of its deadlines passed runs once, at once, for the latest of them
 * (the others are its run's overruns), and its next deadline is one period
 * after that. A /dev/dwq task fires when read() finds it due: the
 * deadlines that passed between the one that fired and that read() are
 * counted in its &struct dwq_event.skipped, and the next deadline is the
 * first after them. (&struct dwq_event.overruns, periods missed while
 * queued, is then always 0 for /dev/dwq tasks.)
 */
#define DWQ_MODE_FIXED_RATE 1
/*
 * Fires one period after the last firing ends. A /dev/dwq task fires when
 * read() finds it due, so its next deadline is one period after that
 * read(); it never counts overruns or skipped periods.
 */
#define DWQ_MODE_FIXED_DELAY 2

/*
 * &struct dwq_ioc_schedule.flags and &struct dwq_ioc_reschedule.flags.
 * The kernel API's &struct dwq_sched.flags take the same values but
 * %DWQ_RESCHED_MONOTONIC: there each call names the task's clock, and a
 * reschedule without %DWQ_SCHED_BOOTTIME puts it on CLOCK_MONOTONIC.
 */
#define DWQ_SCHED_ABS (1U << 0) /* time_ns is a deadline */
#define DWQ_SCHED_BOOTTIME (1U << 1) /* on CLOCK_BOOTTIME */
/* Rescheduling only: also set mode and period */
#define DWQ_RESCHED_PERIOD (1U << 2)
/*
 * Rescheduling only: move the task to CLOCK_MONOTONIC. A reschedule keeps
 * the task's clock (time_ns is on it) unless it says %DWQ_SCHED_BOOTTIME
 * (move to, or stay on, CLOCK_BOOTTIME) or this; both is -EINVAL.
 */
#define DWQ_RESCHED_MONOTONIC (1U << 3)

/**
 * struct dwq_ioc_schedule - DWQ_IOC_SCHEDULE: schedule a new task
 * @time_ns: the delay from now, at most the module's max_delay_ns, or
 *	with %DWQ_SCHED_ABS the absolute deadline, at most max_delay_ns
 *	ahead (a deadline in the past fires at once)
 * @period_ns: the period of a periodic task, from the module's
 *	min_period_ns to its max_delay_ns; must be 0 for %DWQ_MODE_ONESHOT
 * @cookie: any value; it comes back in every event of the task
 * @mode: %DWQ_MODE_ONESHOT, %DWQ_MODE_FIXED_RATE or %DWQ_MODE_FIXED_DELAY
 * @flags: %DWQ_SCHED_ABS, %DWQ_SCHED_BOOTTIME
 * @id: out: the task's id, never 0
 * @reserved: must be zero
 *
 * If the id cannot be written back after all (another thread unmapped
 * the argument, or made it read-only, during the call), the task is
 * undone: -EFAULT, nothing
 * scheduled and no charge kept; only its id is used, never given again.
 * A batch that fails so is undone the same way, whole.
 */
struct dwq_ioc_schedule {
	__u64 time_ns;
	__u64 period_ns;
	__u64 cookie;
	__u32 mode;
	__u32 flags;
	__u64 id;
	__u64 reserved[3];
};

/**
 * struct dwq_ioc_schedule_batch - DWQ_IOC_SCHEDULE_BATCH: many at once
 * @entries: user address of an array of @count &struct dwq_ioc_schedule; the
 *	ids are written back into it
 * @count: entries in the array, 1 to %DWQ_SCHEDULE_BATCH_MAX
 * @flags: must be zero
 * @error_index: out: when the call fails because of one entry, its index;
 *	@count otherwise
 * @reserved: must be zero
 *
 * All or nothing: either every entry is scheduled and has its id, or the
 * call fails and none is (the ids written back are then meaningless).
 * Every delay counts from one moment of the call (each clock is read
 * once): entries of one clock with the same delay get the same deadline,
 * and fire in array order.
 * The entries' @id fields and @error_index are proven writable before
 * anything is made (the ids are the only bytes of the array written
 * back): an array whose ids can be read but not written is -EFAULT with
 * no id used and no charge taken.
 */
struct dwq_ioc_schedule_batch {
	__u64 entries;
	__u32 count;
	__u32 flags;
	__u32 error_index;
	__u32 reserved;
};

#define DWQ_SCHEDULE_BATCH_MAX 1024

/**
 * struct dwq_ioc_cancel - DWQ_IOC_CANCEL: cancel a task by id
 * @id: the task
 * @result: out: %DWQ_RESULT_REMOVED or %DWQ_RESULT_UNREAD; in a
 *	&struct dwq_ioc_cancel_batch also %DWQ_RESULT_NOENT
 * @reserved: must be zero
 *
 * An id the file does not own, or owned by a one-shot task that is due
 * (its event waits to be read), is -ENOENT. A due periodic task (parked)
 * keeps its event: the cancel fires it first, so that its unread event
 * waits with the periods skipped until the cancel. A cancel needs no
 * memory (the task itself is kept as that event until it is read), so
 * it never fails with -ENOMEM; DWQ_IOC_CANCEL_BATCH can, before it
 * cancels anything, for its copy of the array. The result is written
 * back before the task is cancelled: if it cannot be, the call is
 * -EFAULT and the task stays as it was.
 */
struct dwq_ioc_cancel {
	__u64 id;
	__u32 result;
	__u32 reserved;
};

/*
 * The task was queued and is removed: it will not fire (again), and no
 * event of it is left to read. A cancelled task whose event is still to
 * come gets %DWQ_RESULT_UNREAD instead.
 */
#define DWQ_RESULT_REMOVED 1
/*
 * Kernel API only (a task whose callback is running). A /dev/dwq task
 * fires inside read(), atomically, so a cancel never sees it firing and
 * never returns this.
 */
#define DWQ_RESULT_RUNNING 2
/*
 * DWQ_IOC_CANCEL_BATCH only: no such task, the id DWQ_IOC_CANCEL answers
 * -ENOENT for (including an id cancelled by an earlier entry of the same
 * batch).
 */
#define DWQ_RESULT_NOENT 3
/*
 * /dev/dwq only: the task is removed and will not fire again, and one
 * event of it is still unread: read() returns it once, with
 * %DWQ_EVENT_LAST. It is the event of a periodic task cancelled while
 * parked (the cancel fired it, with @skipped counted up to the cancel),
 * or the one it kept when DWQ_IOC_RESCHEDULE moved it while parked, with
 * every firing since folded into it.
 */
#define DWQ_RESULT_UNREAD 4

/**
 * struct dwq_ioc_cancel_batch - DWQ_IOC_CANCEL_BATCH: cancel many tasks at once
 * @entries: user address of an array of @count &struct dwq_ioc_cancel; each
 *	entry's @result is written back
 * @count: entries in the array, 1 to %DWQ_CANCEL_BATCH_MAX
 * @flags: must be zero
 * @error_index: out: when the call fails because of one entry (its
 *	@reserved is not zero), its index; @count otherwise
 * @reserved: must be zero
 *
 * Each entry is cancelled as DWQ_IOC_CANCEL would, in array order, and
 * gets its result: %DWQ_RESULT_REMOVED, %DWQ_RESULT_UNREAD, or
 * %DWQ_RESULT_NOENT where DWQ_IOC_CANCEL would fail with -ENOENT; such an
 * entry does not fail the call. The call returns 0 then.
 *
 * The whole array is read and checked, and the results and @error_index
 * written back, before anything is cancelled: an invalid batch (-EINVAL)
 * or an array that cannot be read or written (-EFAULT) cancels nothing.
 * After -EFAULT the entries' @result are meaningless.
 */
struct dwq_ioc_cancel_batch {
	__u64 entries;
	__u32 count;
	__u32 flags;
	__u32 error_index;
	__u32 reserved;
};

#define DWQ_CANCEL_BATCH_MAX 1024

/**
 * struct dwq_ioc_reschedule - DWQ_IOC_RESCHEDULE: move a task, keeping its id
 * @id: the task
 * @time_ns: the new delay, or with %DWQ_SCHED_ABS the new deadline
 * @period_ns: with %DWQ_RESCHED_PERIOD, the new period (0 for one-shot);
 *	without it, must be zero
 * @mode: with %DWQ_RESCHED_PERIOD, the new mode; without it, must be zero
 * @flags: %DWQ_SCHED_ABS, %DWQ_SCHED_BOOTTIME, %DWQ_RESCHED_MONOTONIC,
 *	%DWQ_RESCHED_PERIOD
 * @reserved: must be zero
 *
 * The task keeps its id and cookie, and its clock unless @flags has
 * %DWQ_SCHED_BOOTTIME or %DWQ_RESCHED_MONOTONIC: @time_ns is on the
 * clock the task has after the call. A parked task (%DWQ_STATE_PARKED:
 * periodic and due) fires first, keeping that firing's event unread (the
 * periods skipped until now counted in it; this takes memory: -ENOMEM,
 * with nothing changed, if there is none); then it is queued at the new
 * deadline, and a firing before its event is read is folded into it
 * (&struct dwq_event.folded). A due one-shot's id is gone: -ENOENT. A
 * malformed request is -EINVAL whatever @id names; only a deadline more
 * than max_delay_ns ahead on the task's own clock is checked after @id
 * is found. Nothing is written back.
 */
struct dwq_ioc_reschedule {
	__u64 id;
	__u64 time_ns;
	__u64 period_ns;
	__u32 mode;
	__u32 flags;
	__u64 reserved[2];
};

/*
 * &struct dwq_ioc_query.state, and the kernel API's task states. A
 * cancelled /dev/dwq task loses its id at once, so QUERY never reports
 * %DWQ_STATE_CANCELLED; kernel users see it after a cancel.
 */
#define DWQ_STATE_IDLE 0 /* neither queued nor firing */
#define DWQ_STATE_QUEUED 1 /* waiting for its deadline */
/* firing now; kernel API only: a /dev/dwq task fires inside read() */
#define DWQ_STATE_RUNNING 2
#define DWQ_STATE_CANCELLED 3 /* cancelled, or its queue went away */
/*
 * /dev/dwq only: a periodic task that is due and not read yet: none of its
 * periods runs until read() fires it (see the top of this file).
 */
#define DWQ_STATE_PARKED 4

/**
 * struct dwq_ioc_query - DWQ_IOC_QUERY: the state of a task
 * @id: in: the task
 * @remaining_ns: ns until its next deadline (0 when due or not queued)
 * @deadline_ns: its next deadline, or the last one if it is not queued
 * @period_ns: its period (0 for one-shot)
 * @cookie: its cookie
 * @runs: times it fired: read() fired it, or a cancel or reschedule of it
 *	while parked (0 while its first firing is due and not read)
 * @overruns: the sum of its events' @overruns: always 0 for /dev/dwq
 * @skipped: periods that passed while it was parked, counted when it
 *	fired (in read(), or the cancel or reschedule of it parked): the sum
 *	of its events' @skipped
 * @folded: firings folded into an unread event, the sum of its events'
 *	@folded
 * @state: %DWQ_STATE_QUEUED or %DWQ_STATE_PARKED
 * @mode: its mode
 * @flags: %DWQ_SCHED_BOOTTIME if its clock is CLOCK_BOOTTIME
 * @reserved: must be zero
 *
 * A parked task's @deadline_ns is the deadline that is due (its next
 * event's), and its @remaining_ns 0. An id that is not one of the file's
 * tasks (a due one-shot's is gone) is -ENOENT; an argument that cannot be
 * written is -EFAULT, whatever the id.
 */
struct dwq_ioc_query {
	__u64 id;
	__u64 remaining_ns;
	__u64 deadline_ns;
	__u64 period_ns;
	__u64 cookie;
	__u64 runs;
	__u64 overruns;
	__u64 skipped;
	__u64 folded;
	__u32 state;
	__u32 mode;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct dwq_ioc_stats - DWQ_IOC_STATS: this file's counters and the queue's
 * @pending: tasks this file holds: queued, parked, and due one-shots whose
 *	event is not read yet (their id is gone, their memory not); what
 *	@max_tasks_per_file bounds. Only this file's calls change it.
 * @fired: firings of this file's tasks
 * @cancelled: tasks this file cancelled before they fired (again)
 * @coalesced: firings folded into an earlier unread event of their task
 * @events: events a read() would return now: the due tasks (one each)
 *	and the events kept by a cancel or reschedule of parked tasks
 * @queue_size: tasks in the queue all files share: their alarms.
 *	A file's tasks are not the queue's: each file has one task in the
 *	queue per clock it uses (its alarm, at or before its earliest
 *	deadline, and on CLOCK_MONOTONIC until it fires once after the
 *	clock's last task is gone; none while that task is due and unread,
 *	nor after a read() by a reader alone on the file until its next
 *	read() or poll())
 * @queue_capacity: slots in the queue's heap array
 * @workers: worker threads
 * @leader: the worker sleeping with a timeout, or -1. The timeout is the
 *	deadline the head had when it began to sleep: a cancel does not wake
 *	it, so it may stay leader of an emptied queue until then (as in
 *	Java's DelayedWorkQueue).
 * @timed_waits: the workers' sleeps as leader
 * @untimed_waits: the workers' sleeps as followers
 * @wakeups: the workers' wakeups (an alarm the queue's timer runs
 *	itself costs none)
 * @spurious_wakeups: wakeups that found nothing to do
 * @tasks_run: callbacks the workers ran, or their timer while they led:
 *	for /dev/dwq, the files' alarms (at most one per due head of a
 *	file's clock, however many of its tasks are due), not their tasks
 * @leader_changes: times a worker became leader
 * @user_tasks: tasks charged to the user who opened this file, over all
 *	the user's files: their @pending, and the cancelled tasks whose kept
 *	event is unread (a parked periodic task's, or one made a one-shot by
 *	a RESCHEDULE after it fired: not in @pending, their id is gone, their
 *	event's memory not); what @max_tasks_per_user bounds
 * @all_tasks: the same over all users: what @max_tasks bounds
 * @user_rate_mhz: the firing rate of the user's periodic tasks, in
 *	millifirings per second (each DIV_ROUND_UP(10^12, period_ns)); what
 *	@max_rate_per_user bounds
 * @max_tasks_per_file: the limits now (module parameters), so that a
 *	program can tell which -ENOSPC it will get: a new task fits if
 *	@pending < @max_tasks_per_file, @user_tasks < @max_tasks_per_user,
 *	@all_tasks < @max_tasks and, for a periodic one, @user_rate_mhz plus
 *	its rate is at most @max_rate_per_user * 1000
 * @max_tasks_per_user: see @max_tasks_per_file
 * @max_tasks: see @max_tasks_per_file
 * @max_rate_per_user: see @max_tasks_per_file; firings per second
 * @reserved: zero; room to grow
 *
 * The counts are each read at one instant, not together: another file of
 * the same user, or another thread, may change them meanwhile.
 */
struct dwq_ioc_stats {
	__u64 pending;
	__u64 fired;
	__u64 cancelled;
	__u64 coalesced;
	__u64 events;
	__u32 queue_size;
	__u32 queue_capacity;
	__u32 workers;
	__s32 leader;
	__u64 timed_waits;
	__u64 untimed_waits;
	__u64 wakeups;
	__u64 spurious_wakeups;
	__u64 tasks_run;
	__u64 leader_changes;
	__u64 user_tasks;
	__u64 all_tasks;
	__u64 user_rate_mhz;
	__u32 max_tasks_per_file;
	__u32 max_tasks_per_user;
	__u32 max_tasks;
	__u32 max_rate_per_user;
	__u64 reserved[3];
};

/* &struct dwq_event.flags */
/*
 * The id's last event: the task is done and its id is gone. A one-shot's
 * firing has it, and so does the event a periodic task cancelled with an
 * event unread leaves (the cancel's result is %DWQ_RESULT_UNREAD).
 */
#define DWQ_EVENT_LAST (1U << 0)
#define DWQ_EVENT_COALESCED (1U << 1) /* @folded is not zero */

/**
 * struct dwq_event - what read() returns, one per firing (or coalesced run)
 * @id: the task
 * @cookie: its cookie
 * @deadline_ns: the deadline of this firing; of a coalesced event, that
 *	of the latest firing folded into it
 * @fired_ns: when it fired, same clock: the moment the read() that
 *	returns it took the file (or the cancel or reschedule that kept it,
 *	see below); of a
 *	coalesced event, the latest firing's. Both times are on the clock
 *	the task had at that firing: a reschedule that moves a task with a
 *	kept event to the other clock leaves the event's times on the old
 *	one until a firing on the new clock folds into it
 * @overruns: always 0 for /dev/dwq: the periods a fixed-rate task misses
 *	are all in @skipped (kernel tasks count those missed while queued)
 * @skipped: fixed-rate periods that passed while the task was parked: the
 *	deadlines @deadline_ns + k * period, k = 1 .. @skipped, up to the
 *	moment it fired. The task's next deadline is the one after them. Of
 *	a coalesced event, the sum over its firings.
 * @folded: firings folded into this event while it was unread (only a
 *	task that kept its event, see DWQ_IOC_RESCHEDULE, fires then)
 * @worker: always 0: no worker fires a /dev/dwq task (read() does); the
 *	field stays for the layout
 * @flags: %DWQ_EVENT_LAST, %DWQ_EVENT_COALESCED
 *
 * read() returns whole events only; a buffer smaller than one is -EINVAL.
 * It blocks until at least one task is due, unless the file is
 * O_NONBLOCK (-EAGAIN); either may first wait for another thread's
 * read() or ioctl() on the same file to finish, as a pipe's read() waits
 * for another reader of the pipe (a signal ends that wait; io_uring's own
 * notifications to the thread an IORING_OP_READ runs in do not, so a read
 * of an O_NONBLOCK file issued where it is submitted holds up its
 * submitter or SQPOLL thread as long, as a command does). It fires the tasks due when it takes
 * the file, at most as many as fit in the buffer; the rest stay due for
 * the next read(). A
 * buffer that faults returns the events copied whole before the fault
 * (their byte count), or -EFAULT if none was; the others, and their
 * tasks, stay exactly as they were.
 * A task has at most one unread event, so the events waiting never
 * outnumber the tasks and none is ever dropped. Events come out in
 * deadline order (of both clocks, as CLOCK_MONOTONIC times: a
 * CLOCK_BOOTTIME deadline less the time suspended when the read() takes
 * the file, so one that passed d into a suspend of s sorts s - d before
 * the suspend began), equal deadlines in the order their tasks were
 * scheduled, rescheduled or, for a periodic task, last fired.
 *
 * The file's readers are woken when it becomes readable: when its
 * earliest task comes due, or a task is scheduled or moved due at once.
 * While tasks are due and unread, more coming due wake no one (an unread
 * file costs one wakeup, however many of its tasks are due): with
 * EPOLLET, read until -EAGAIN before waiting again, as epoll(7) advises.
 * poll() may also report EPOLLIN with nothing due, while another
 * thread's call holds the file: a read() then waits for it (or is
 * -EAGAIN with O_NONBLOCK); and while the queue has no room for the
 * file's alarm (out of memory), which each read() and poll() tries
 * again to arm.
 */
struct dwq_event {
	__u64 id;
	__u64 cookie;
	__u64 deadline_ns;
	__u64 fired_ns;
	__u64 overruns;
	__u64 skipped;
	__u64 folded;
	__u32 worker;
	__u32 flags;
};

/**
 * struct dwq_uring_cmd - the command of an IORING_OP_URING_CMD on /dev/dwq
 * @arg: user address of the command's argument: the struct its ioctl takes
 * @flags: must be zero
 * @reserved: must be zero
 *
 * Every ioctl of /dev/dwq can be submitted through io_uring: an SQE with
 * opcode IORING_OP_URING_CMD, the file's fd, cmd_op set to the ioctl's
 * number (DWQ_IOC_SCHEDULE, ...) and this struct in its command area (the
 * 16 bytes at &struct io_uring_sqe.cmd). The command is the ioctl, done
 * when it is issued: the same checks, effects and results written back
 * through @arg, and the CQE's res is what ioctl() would return, 0 or a
 * negative errno (-ENOTTY for an unknown cmd_op; -EINTR, with nothing
 * done, if a fatal signal ends its wait for the file, busy with another
 * call: the wait is killable, and io_uring cancelling the command does
 * not end it). -EINVAL, with nothing
 * done, for non-zero @flags or @reserved, for uring_cmd_flags other than
 * zero (no registered buffer is used), and, where the SQE is 128 bytes
 * (a ring with 128-byte SQEs, or IORING_OP_URING_CMD128 where io_uring
 * has it), for any non-zero byte of the command area after this struct;
 * these are checked before cmd_op is. The SQE's other fields, and the
 * uring_cmd_flags io_uring checks itself before the command reaches
 * /dev/dwq, are io_uring's, with its errors (-EFAULT for
 * IORING_URING_CMD_FIXED with a buffer index the ring has not
 * registered, for one, where io_uring looks the buffer up before the
 * command; where it leaves that to the command, as newer kernels do,
 * /dev/dwq refuses the flag with -EINVAL).
 *
 * A command that finds the file busy with another call waits for it,
 * in io_uring_enter() or wherever io_uring issues it. io_uring may issue
 * the command after io_uring_enter() has returned: from its worker thread
 * with IOSQE_ASYNC, in a link, after IOSQE_IO_DRAIN, or with SQPOLL. @arg
 * is read and written back only then, and so is a batch's array: keep
 * them valid and unchanged until the command's CQE has come. Where
 * io_uring does not copy an SQE as it prepares it (6.12's, without
 * IOSQE_ASYNC), a command issued later than io_uring_enter() (in a link,
 * after a drain) reads its command area from the ring only then: keep
 * that SQE's slot unchanged until its CQE as well, or set IOSQE_ASYNC,
 * with which io_uring copies the SQE when it takes it. On a ring set up
 * with IORING_SETUP_IOPOLL the command has nothing to poll for: the
 * io_uring of 6.1 and 6.12 refuses it (-EOPNOTSUPP, nothing done), a
 * newer one (7.2) runs it as on any other ring.
 */
struct dwq_uring_cmd {
	__u64 arg;
	__u32 flags;
	__u32 reserved;
};

#define DWQ_IOC_SCHEDULE _IOWR(DWQ_IOC_MAGIC, 1, struct dwq_ioc_schedule)
#define DWQ_IOC_SCHEDULE_BATCH \
	_IOWR(DWQ_IOC_MAGIC, 2, struct dwq_ioc_schedule_batch)
#define DWQ_IOC_CANCEL _IOWR(DWQ_IOC_MAGIC, 3, struct dwq_ioc_cancel)
#define DWQ_IOC_RESCHEDULE _IOW(DWQ_IOC_MAGIC, 4, struct dwq_ioc_reschedule)
#define DWQ_IOC_QUERY _IOWR(DWQ_IOC_MAGIC, 5, struct dwq_ioc_query)
#define DWQ_IOC_STATS _IOR(DWQ_IOC_MAGIC, 6, struct dwq_ioc_stats)
#define DWQ_IOC_CANCEL_BATCH \
	_IOWR(DWQ_IOC_MAGIC, 7, struct dwq_ioc_cancel_batch)

#endif /* _UAPI_LINUX_DWQ_H */
