/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq tracepoints, trace system "dwq": /sys/kernel/tracing/events/dwq/.
 * Every event is a static key: a disabled one costs a patched-out jump.
 * Times are ns on the queue's clock; a task is shown by its (hashed)
 * address, the same in every event while it lives.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM dwq

#if !defined(_DWQ_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _DWQ_TRACE_H

#include <linux/string.h>
#include <linux/tracepoint.h>

#include "dev.h"
#include "dwq_internal.h"

/*
 * Let user-space tools (trace-cmd, perf) decode the symbolic fields of this
 * enum; the modes and cancel results are the ABI's #defines, which the
 * format shows as numbers already.
 */
TRACE_DEFINE_ENUM(DWQ_TRACE_WAKE_VOID);
TRACE_DEFINE_ENUM(DWQ_TRACE_WAKE_HEAD);
TRACE_DEFINE_ENUM(DWQ_TRACE_WAKE_HANDOFF);
TRACE_DEFINE_ENUM(DWQ_TRACE_WAKE_LEAVE);
TRACE_DEFINE_ENUM(DWQ_TRACE_WAKE_TIMER);

/*
 * clang-format cannot lay out the TRACE_EVENT() macros readably; this is
 * the layout checkpatch accepts.
 */
/* clang-format off */
DECLARE_EVENT_CLASS(dwq_task_class,
		    TP_PROTO(const struct dwq_queue *q,
			     const struct dwq_task *task),
		    TP_ARGS(q, task),
		    TP_STRUCT__entry(__array(char, queue, DWQ_NAME_LEN)
				     __field(const void *, task)
				     __field(u64, deadline)
				     __field(u64, period)
				     __field(u8, mode)
				     __field(unsigned int, size)),
		    TP_fast_assign(memcpy(__entry->queue, q->name, DWQ_NAME_LEN);
				   __entry->task = task;
				   __entry->deadline = task->node.deadline;
				   __entry->period = task->period_ns;
				   __entry->mode = task->mode;
				   __entry->size = q->heap.nr + !!q->front;),
		    TP_printk("queue=%s task=%p deadline=%llu period=%llu mode=%s size=%u",
			      __entry->queue, __entry->task, __entry->deadline,
			      __entry->period,
			      __print_symbolic(__entry->mode,
					       { DWQ_MODE_ONESHOT, "oneshot" },
					       { DWQ_MODE_FIXED_RATE, "rate" },
					       { DWQ_MODE_FIXED_DELAY, "delay" }),
			      __entry->size));

/* A task entered the heap: dwq_schedule() or dwq_schedule_batch(). */
DEFINE_EVENT(dwq_task_class, dwq_schedule,
	     TP_PROTO(const struct dwq_queue *q, const struct dwq_task *task),
	     TP_ARGS(q, task));

/* A queued task moved: dwq_reschedule(); deadline is the new one. */
DEFINE_EVENT(dwq_task_class, dwq_reschedule,
	     TP_PROTO(const struct dwq_queue *q, const struct dwq_task *task),
	     TP_ARGS(q, task));

/* dwq_cancel() or dwq_cancel_sync() found a queued or running task. */
TRACE_EVENT(dwq_cancel,
	    TP_PROTO(const struct dwq_queue *q, const struct dwq_task *task,
		     int result),
	    TP_ARGS(q, task, result),
	    TP_STRUCT__entry(__array(char, queue, DWQ_NAME_LEN)
			     __field(const void *, task)
			     __field(int, result)),
	    TP_fast_assign(memcpy(__entry->queue, q->name, DWQ_NAME_LEN);
			   __entry->task = task;
			   __entry->result = result;),
	    TP_printk("queue=%s task=%p result=%s", __entry->queue,
		      __entry->task,
		      __print_symbolic(__entry->result,
				       { DWQ_RESULT_IDLE, "idle" },
				       { DWQ_RESULT_REMOVED, "removed" },
				       { DWQ_RESULT_RUNNING, "running" })));

/* A worker is about to run a task's callback, lateness ns after its due. */
TRACE_EVENT(dwq_fire,
	    TP_PROTO(const struct dwq_queue *q, const struct dwq_task *task,
		     unsigned int worker, u64 lateness),
	    TP_ARGS(q, task, worker, lateness),
	    TP_STRUCT__entry(__array(char, queue, DWQ_NAME_LEN)
			     __field(const void *, task)
			     __field(const void *, func)
			     __field(unsigned int, worker)
			     __field(u64, deadline)
			     __field(u64, lateness)),
	    TP_fast_assign(memcpy(__entry->queue, q->name, DWQ_NAME_LEN);
			   __entry->task = task;
			   __entry->func = task->ops->func;
			   __entry->worker = worker;
			   __entry->deadline = task->node.deadline;
			   __entry->lateness = lateness;),
	    TP_printk("queue=%s task=%p func=%ps worker=%u deadline=%llu lateness=%llu",
		      __entry->queue, __entry->task, __entry->func,
		      __entry->worker, __entry->deadline, __entry->lateness));

/*
 * A worker became the leader: it sleeps until the head's deadline; or the
 * leader's timer ran what was due and moved on to the next head.
 */
TRACE_EVENT(dwq_leader,
	    TP_PROTO(const struct dwq_queue *q, unsigned int worker,
		     u64 deadline),
	    TP_ARGS(q, worker, deadline),
	    TP_STRUCT__entry(__array(char, queue, DWQ_NAME_LEN)
			     __field(unsigned int, worker)
			     __field(u64, deadline)),
	    TP_fast_assign(memcpy(__entry->queue, q->name, DWQ_NAME_LEN);
			   __entry->worker = worker;
			   __entry->deadline = deadline;),
	    TP_printk("queue=%s worker=%u until=%llu", __entry->queue,
		      __entry->worker, __entry->deadline));

/*
 * One wakeup of a worker: the leader, voided or by its timer (worker is
 * its id), or the first follower on the wait queue (worker is -1: not
 * known yet).
 */
TRACE_EVENT(dwq_wakeup,
	    TP_PROTO(const struct dwq_queue *q, int worker, int reason),
	    TP_ARGS(q, worker, reason),
	    TP_STRUCT__entry(__array(char, queue, DWQ_NAME_LEN)
			     __field(int, worker)
			     __field(int, reason)),
	    TP_fast_assign(memcpy(__entry->queue, q->name, DWQ_NAME_LEN);
			   __entry->worker = worker;
			   __entry->reason = reason;),
	    TP_printk("queue=%s worker=%d reason=%s", __entry->queue,
		      __entry->worker,
		      __print_symbolic(__entry->reason,
				       { DWQ_TRACE_WAKE_VOID, "void-leader" },
				       { DWQ_TRACE_WAKE_HEAD, "new-head" },
				       { DWQ_TRACE_WAKE_HANDOFF, "handoff" },
				       { DWQ_TRACE_WAKE_LEAVE, "leave" },
				       { DWQ_TRACE_WAKE_TIMER, "leader-timer" })));

/*
 * The /dev/dwq events name a task as its program knows it: the tgid of
 * the process that opened the file, the id and the cookie.
 */
DECLARE_EVENT_CLASS(dwq_dev_task_class,
		    TP_PROTO(pid_t tgid, const struct dwq_utask *ut,
			     u64 time_ns, u64 period_ns, u32 mode, u32 flags),
		    TP_ARGS(tgid, ut, time_ns, period_ns, mode, flags),
		    TP_STRUCT__entry(__field(pid_t, tgid)
				     __field(u64, id)
				     __field(u64, cookie)
				     __field(u64, time)
				     __field(u64, period)
				     __field(u32, mode)
				     __field(u32, flags)),
		    TP_fast_assign(__entry->tgid = tgid;
				   __entry->id = ut->id;
				   __entry->cookie = ut->cookie;
				   __entry->time = time_ns;
				   __entry->period = period_ns;
				   __entry->mode = mode;
				   __entry->flags = flags;),
		    TP_printk("tgid=%d id=%llu cookie=%llu time=%llu%s%s period=%llu mode=%s",
			      __entry->tgid, __entry->id, __entry->cookie,
			      __entry->time,
			      __entry->flags & DWQ_SCHED_ABS ? " abs" : "",
			      __entry->flags & DWQ_SCHED_BOOTTIME ? " boottime" : "",
			      __entry->period,
			      __print_symbolic(__entry->mode,
					       { DWQ_MODE_ONESHOT, "oneshot" },
					       { DWQ_MODE_FIXED_RATE, "rate" },
					       { DWQ_MODE_FIXED_DELAY, "delay" })));

/* DWQ_IOC_SCHEDULE(_BATCH) scheduled a task; time as the program gave it. */
DEFINE_EVENT(dwq_dev_task_class, dwq_dev_schedule,
	     TP_PROTO(pid_t tgid, const struct dwq_utask *ut, u64 time_ns,
		      u64 period_ns, u32 mode, u32 flags),
	     TP_ARGS(tgid, ut, time_ns, period_ns, mode, flags));

/*
 * DWQ_IOC_RESCHEDULE moved a task; without DWQ_RESCHED_PERIOD in flags,
 * mode and period are the ones it keeps (shown as given: 0).
 */
DEFINE_EVENT(dwq_dev_task_class, dwq_dev_reschedule,
	     TP_PROTO(pid_t tgid, const struct dwq_utask *ut, u64 time_ns,
		      u64 period_ns, u32 mode, u32 flags),
	     TP_ARGS(tgid, ut, time_ns, period_ns, mode, flags));

/*
 * DWQ_IOC_CANCEL(_BATCH) cancelled a task. The result is
 * DWQ_RESULT_REMOVED, or DWQ_RESULT_UNREAD when an event of the task is
 * left to read; never DWQ_RESULT_RUNNING: a /dev/dwq task fires inside
 * read(), never while a cancel holds the file.
 */
TRACE_EVENT(dwq_dev_cancel,
	    TP_PROTO(pid_t tgid, const struct dwq_utask *ut, u32 result),
	    TP_ARGS(tgid, ut, result),
	    TP_STRUCT__entry(__field(pid_t, tgid)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(u32, result)),
	    TP_fast_assign(__entry->tgid = tgid;
			   __entry->id = ut->id;
			   __entry->cookie = ut->cookie;
			   __entry->result = result;),
	    TP_printk("tgid=%d id=%llu cookie=%llu result=%s", __entry->tgid,
		      __entry->id, __entry->cookie,
		      __print_symbolic(__entry->result,
				       { DWQ_RESULT_REMOVED, "removed" },
				       { DWQ_RESULT_UNREAD, "unread" })));

/*
 * A firing of a task made its event, or was folded into the unread one
 * (coalesced): in read(), or in the cancel or reschedule of a due
 * periodic task, which keeps its event. The fields are the event's as
 * read() returns it; lateness is the time from the deadline to the
 * firing.
 */
TRACE_EVENT(dwq_dev_event,
	    TP_PROTO(pid_t tgid, const struct dwq_event *ev, bool coalesced),
	    TP_ARGS(tgid, ev, coalesced),
	    TP_STRUCT__entry(__field(pid_t, tgid)
			     __field(u64, id)
			     __field(u64, cookie)
			     __field(u64, deadline)
			     __field(u64, fired)
			     __field(u64, overruns)
			     __field(u32, flags)
			     __field(bool, coalesced)),
	    TP_fast_assign(__entry->tgid = tgid;
			   __entry->id = ev->id;
			   __entry->cookie = ev->cookie;
			   __entry->deadline = ev->deadline_ns;
			   __entry->fired = ev->fired_ns;
			   __entry->overruns = ev->overruns;
			   __entry->flags = ev->flags;
			   __entry->coalesced = coalesced;),
	    TP_printk("tgid=%d id=%llu cookie=%llu deadline=%llu lateness=%llu overruns=%llu%s%s",
		      __entry->tgid, __entry->id, __entry->cookie,
		      __entry->deadline,
		      __entry->fired > __entry->deadline ?
			      __entry->fired - __entry->deadline : 0,
		      __entry->overruns,
		      __entry->flags & DWQ_EVENT_LAST ? " last" : "",
		      __entry->coalesced ? " coalesced" : ""));
/* clang-format on */

#endif /* _DWQ_TRACE_H */

/* Out of tree: tell define_trace.h where this file is. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
