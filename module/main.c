// SPDX-License-Identifier: GPL-2.0
/*
 * dwq: a delayed work queue for the kernel and for user space.
 *
 * Module init and exit, and the module parameters.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "dwq_internal.h"

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
MODULE_PARM_DESC(mode, "Permission bits of /dev/dwq, octal (default 0600: root only)");

static struct dwq_dev *dwq_default_dev;

static int __init dwq_init(void)
{
	int err;

	dwq_default_dev = dwq_dev_create("dwq", mode);
	if (IS_ERR(dwq_default_dev)) {
		err = PTR_ERR(dwq_default_dev);
		pr_err("cannot register /dev/dwq: %d\n", err);
		goto err;
	}
	pr_info("loaded: /dev/dwq mode %#o\n", mode);
	return 0;

err:
	return err;
}

static void __exit dwq_exit(void)
{
	dwq_dev_destroy(dwq_default_dev);
	pr_info("unloaded\n");
}

module_init(dwq_init);
module_exit(dwq_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Delayed work queue: timed tasks on an indexed min-heap, for kernel and user space");
MODULE_AUTHOR("The dwq developers");
