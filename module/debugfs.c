// SPDX-License-Identifier: GPL-2.0
/*
 * dwq debugfs: /sys/kernel/debug/dwq/, root only (0400), for the queue
 * behind /dev/dwq.
 *
 *   stats    the queue's size, capacity, leader and summed counters
 *   workers  one line per worker: its state and counters
 *   heap     the heap array in slot order (slot 0 is the head): deadline,
 *            period, mode and owner (the callback) of the first
 *            DWQ_DEBUGFS_HEAP_MAX tasks
 *
 * Every file is a snapshot taken under the queue's lock. Not ABI: tools
 * use the STATS ioctl (dwqctl stats).
 */
#include <linux/debugfs.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include "dwq_internal.h"

/* The heap dump shows at most this many tasks (a line each). */
#define DWQ_DEBUGFS_HEAP_MAX 256U

static struct dentry *dwq_debugfs_dir;

static const char *const dwq_worker_state_names[] = {
	[DWQ_WORKER_IDLE] = "idle",
	[DWQ_WORKER_LEADER] = "leader",
	[DWQ_WORKER_FOLLOWER] = "follower",
	[DWQ_WORKER_RUNNING] = "running",
};

static const char *const dwq_mode_names[] = {
	[DWQ_MODE_ONESHOT] = "oneshot",
	[DWQ_MODE_FIXED_RATE] = "rate",
	[DWQ_MODE_FIXED_DELAY] = "delay",
};

static const char *dwq_worker_state_name(const struct dwq_worker *w)
{
	if (!w->thread)
		return "stopped";
	if (w->state >= ARRAY_SIZE(dwq_worker_state_names))
		return "?";
	return dwq_worker_state_names[w->state];
}

static const char *dwq_mode_name(const struct dwq_task *task)
{
	if (task->mode >= ARRAY_SIZE(dwq_mode_names))
		return "?";
	return dwq_mode_names[task->mode];
}

static int dwq_debugfs_stats_show(struct seq_file *m, void *unused)
{
	struct dwq_queue *q = m->private;
	struct dwq_queue_stats st;
	unsigned int reserved, handoffs;

	dwq_queue_get_stats(q, &st);
	spin_lock_irq(&q->lock);
	reserved = q->reserved;
	handoffs = q->handoffs;
	spin_unlock_irq(&q->lock);

	seq_printf(m, "queue %s\n", q->name);
	seq_printf(m, "clock %s\n",
		   q->clockid == CLOCK_BOOTTIME ? "boottime" : "monotonic");
	seq_printf(m, "now %llu\n", dwq_queue_now(q));
	seq_printf(m, "size %u\n", st.size);
	seq_printf(m, "capacity %u\n", st.capacity);
	seq_printf(m, "reserved %u\n", reserved);
	seq_printf(m, "workers %u\n", st.workers);
	seq_printf(m, "leader %d\n", st.leader);
	seq_printf(m, "handoffs %u\n", handoffs);
	seq_printf(m, "timed_waits %llu\n", st.total.timed_waits);
	seq_printf(m, "untimed_waits %llu\n", st.total.untimed_waits);
	seq_printf(m, "wakeups %llu\n", st.total.wakeups);
	seq_printf(m, "spurious_wakeups %llu\n", st.total.spurious_wakeups);
	seq_printf(m, "tasks_run %llu\n", st.total.tasks_run);
	seq_printf(m, "leader_changes %llu\n", st.total.leader_changes);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dwq_debugfs_stats);

static int dwq_debugfs_workers_show(struct seq_file *m, void *unused)
{
	struct dwq_queue *q = m->private;
	struct dwq_worker *w;
	unsigned int i;

	seq_puts(m, "id state timed_waits untimed_waits wakeups ");
	seq_puts(m, "spurious_wakeups tasks_run leader_changes\n");
	/* seq_file's buffer is preallocated: printing under a spinlock is fine. */
	spin_lock_irq(&q->lock);
	for (i = 0; i < q->max_workers; i++) {
		w = &q->workers[i];
		seq_printf(m, "%u %s %llu %llu %llu %llu %llu %llu\n", w->id,
			   dwq_worker_state_name(w), w->stats.timed_waits,
			   w->stats.untimed_waits, w->stats.wakeups,
			   w->stats.spurious_wakeups, w->stats.tasks_run,
			   w->stats.leader_changes);
	}
	spin_unlock_irq(&q->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dwq_debugfs_workers);

static int dwq_debugfs_heap_show(struct seq_file *m, void *unused)
{
	struct dwq_queue *q = m->private;
	struct dwq_heap_slot *slot;
	struct dwq_task *task;
	unsigned int i, n, nr;

	spin_lock_irq(&q->lock);
	nr = dwq_heap_size(&q->heap);
	n = min(nr, DWQ_DEBUGFS_HEAP_MAX);
	seq_printf(m, "# %u tasks, capacity %u, showing %u; now %llu\n", nr,
		   q->heap.cap, n, dwq_queue_now(q));
	seq_puts(m, "slot deadline period mode owner\n");
	for (i = 0; i < n; i++) {
		slot = &q->heap.slots[i];
		task = container_of(slot->node, struct dwq_task, node);
		seq_printf(m, "%u %llu %llu %s %ps\n", i, slot->deadline,
			   task->period_ns, dwq_mode_name(task), task->func);
	}
	if (nr > n)
		seq_printf(m, "# %u more not shown\n", nr - n);
	spin_unlock_irq(&q->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dwq_debugfs_heap);

/**
 * dwq_debugfs_init() - create /sys/kernel/debug/dwq/ for a queue
 * @q: the queue; it must outlive dwq_debugfs_exit()
 *
 * Failures are not errors: debugfs is optional, and its functions accept
 * the error pointers of a failed creation.
 *
 * Context: process context.
 */
void dwq_debugfs_init(struct dwq_queue *q)
{
	dwq_debugfs_dir = debugfs_create_dir("dwq", NULL);
	debugfs_create_file("stats", 0400, dwq_debugfs_dir, q,
			    &dwq_debugfs_stats_fops);
	debugfs_create_file("workers", 0400, dwq_debugfs_dir, q,
			    &dwq_debugfs_workers_fops);
	debugfs_create_file("heap", 0400, dwq_debugfs_dir, q,
			    &dwq_debugfs_heap_fops);
}

/**
 * dwq_debugfs_exit() - remove /sys/kernel/debug/dwq/
 *
 * Returns when no file of it is being read any more.
 *
 * Context: process context.
 */
void dwq_debugfs_exit(void)
{
	debugfs_remove(dwq_debugfs_dir);
	dwq_debugfs_dir = NULL;
}
