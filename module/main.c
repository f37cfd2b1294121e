// SPDX-License-Identifier: GPL-2.0
/*
 * dwq: a delayed work queue for the kernel and for user space.
 *
 * Module init and exit, and the module parameters.
 */
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "dwq_internal.h"

/* The tracepoints are defined here, and only here. */
#define CREATE_TRACE_POINTS
#include "trace.h"

/* Permission bits of /dev/dwq, shown and taken in octal. */
static unsigned int mode = 0600;

static int dwq_param_mode_set(const char *val, const struct kernel_param *kp)
{
	unsigned int m;
	int err;

	err = kstrtouint(val, 8, &m);
	if (err)
		return err;
	if (m & ~0777U)
		return -EINVAL;
	*(unsigned int *)kp->arg = m;
	return 0;
}

static int dwq_param_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%04o\n", *(unsigned int *)kp->arg);
}

static const struct kernel_param_ops dwq_param_mode_ops = {
	.set = dwq_param_mode_set,
	.get = dwq_param_mode_get,
};
module_param_cb(mode, &dwq_param_mode_ops, &mode, 0444);
__MODULE_PARM_TYPE(mode, "uint");
/*
 * Not clang-formatted (here and at each "clang-format off" below): it
 * would break right after "MODULE_PARM_DESC(", which checkpatch rejects
 * (OPEN_ENDED_LINE), and the description must stay one string that
 * grep finds (checkpatch: SPLIT_STRING).
 */
/* clang-format off */
MODULE_PARM_DESC(mode, "Permission bits of /dev/dwq, octal (default 0600: root only)");
/* clang-format on */

/* Worker threads of the default queue; 0 until set: one per online CPU. */
static unsigned int workers;

static int dwq_param_workers_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 0, &n) || n < 1 || n > DWQ_MAX_WORKERS) {
		pr_err("workers=%s: must be a number of threads from 1 to %u\n",
		       val, DWQ_MAX_WORKERS);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops dwq_param_workers_ops = {
	.set = dwq_param_workers_set,
	.get = param_get_uint,
};
module_param_cb(workers, &dwq_param_workers_ops, &workers, 0444);
__MODULE_PARM_TYPE(workers, "uint");
/* clang-format off */
MODULE_PARM_DESC(workers, "Worker threads of the default queue, 1..64 (default: online CPUs)");
/* clang-format on */

static struct dwq_dev *dwq_default_dev;

/* The queue behind /dev/dwq; lives from load to unload. */
struct dwq_queue *dwq_default_queue;

static int __init dwq_init(void)
{
	int err;

	/* Its sysfs file can be read already, under the parameters' lock. */
	kernel_param_lock(THIS_MODULE);
	if (!workers)
		workers = min(num_online_cpus(), DWQ_MAX_WORKERS);
	kernel_param_unlock(THIS_MODULE);
	err = dwq_queues_init();
	if (err)
		goto err;
	err = dwq_dev_init();
	if (err)
		goto err_queues;
	/*
	 * Its quick tasks are the files' alarms, which only wake a file's
	 * readers: in the timer's hard irq, as a timerfd's expiry does.
	 */
	dwq_default_queue = dwq_queue_create("dwq", workers, DWQ_QUEUE_HARDIRQ);
	if (IS_ERR(dwq_default_queue)) {
		err = PTR_ERR(dwq_default_queue);
		pr_err("cannot create the default queue: %d\n", err);
		goto err_dev;
	}

	dwq_default_dev = dwq_dev_create("dwq", mode, dwq_default_queue);
	if (IS_ERR(dwq_default_dev)) {
		err = PTR_ERR(dwq_default_dev);
		pr_err("cannot register /dev/dwq: %d\n", err);
		goto err_queue;
	}
	dwq_debugfs_init(dwq_default_queue);
	pr_info("loaded: /dev/dwq mode %#o, %u workers\n", mode, workers);
	return 0;

err_queue:
	dwq_queue_destroy(dwq_default_queue, DWQ_DESTROY_DROP);
err_dev:
	dwq_dev_exit();
err_queues:
	dwq_queues_exit();
err:
	return err;
}

static void __exit dwq_exit(void)
{
	dwq_debugfs_exit();
	dwq_dev_destroy(dwq_default_dev);
	dwq_queue_destroy(dwq_default_queue, DWQ_DESTROY_DROP);
	dwq_dev_exit();
	dwq_queues_exit();
	pr_info("unloaded\n");
}

module_init(dwq_init);
module_exit(dwq_exit);

MODULE_LICENSE("GPL");
/* clang-format off */
MODULE_DESCRIPTION("Delayed work queue: timed tasks on an indexed min-heap, for kernel and user space");
/* clang-format on */
MODULE_AUTHOR("The dwq developers");
/* Out of tree only: see module/Kbuild. */
#ifdef DWQ_VERSION
MODULE_VERSION(DWQ_VERSION);
#endif
