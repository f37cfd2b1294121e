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
 * Every file is a snapshot taken under the queue's lock, by queue.c's
 * dwq_queue_show_*(). Not ABI: tools use the STATS ioctl (dwqctl stats).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "dwq_internal.h"

/* The heap dump shows at most this many tasks (a line each). */
#define DWQ_DEBUGFS_HEAP_MAX 256U

static struct dentry *dwq_debugfs_dir;

static int dwq_debugfs_stats_show(struct seq_file *m, void *unused)
{
	dwq_queue_show_stats(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dwq_debugfs_stats);

static int dwq_debugfs_workers_show(struct seq_file *m, void *unused)
{
	dwq_queue_show_workers(m->private, m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dwq_debugfs_workers);

static int dwq_debugfs_heap_show(struct seq_file *m, void *unused)
{
	dwq_queue_show_heap(m->private, m, DWQ_DEBUGFS_HEAP_MAX);
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
