// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq: the character device through which user space reaches dwq.
 * This file has the device and its file operations; a file's tasks and
 * everything under its mutex are client.c's, and dev.h says which file
 * does the rest.
 */
#include <linux/compat.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <dwq.h>
#include <uapi/linux/dwq.h>

#include "dev.h"
#include "dwq_internal.h"

static int dwq_dev_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;
	struct dwq_dev *dev = container_of(misc, struct dwq_dev, misc);
	struct dwq_client *c;

	c = dwq_client_new(dev->q, file->f_cred);
	if (IS_ERR(c))
		return PTR_ERR(c);
	file->private_data = c;
	return stream_open(inode, file);
}

static int dwq_dev_release(struct inode *inode, struct file *file)
{
	dwq_client_free(file->private_data);
	return 0;
}

static void dwq_dev_show_fdinfo(struct seq_file *m, struct file *file)
{
	dwq_client_show_fdinfo(m, file->private_data);
}

#if IS_ENABLED(CONFIG_KUNIT)
/* For KUnit: the tasks of all files, and of @file's user, charged. */
void dwq_dev_kunit_charged(struct file *file, int *all, int *user)
{
	struct dwq_client *c = file->private_data;

	dwq_limits_charged(c->user, all, user);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_kunit_charged);
#endif

static const struct file_operations dwq_dev_fops = {
	.owner = THIS_MODULE,
	.open = dwq_dev_open,
	.release = dwq_dev_release,
	.read = dwq_dev_read,
	.poll = dwq_dev_poll,
	.unlocked_ioctl = dwq_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.uring_cmd = dwq_dev_uring_cmd,
	.llseek = noop_llseek,
	.show_fdinfo = dwq_dev_show_fdinfo,
};

/**
 * dwq_dev_create() - register a dwq character device
 * @name: its name under /dev; copied
 * @mode: its permission bits, e.g. 0600
 * @q: the queue the alarms of its files run on, a CLOCK_MONOTONIC one
 *
 * A file's alarms must never fire before their deadlines (a reader woken
 * by one finds its head due by that deadline, with no clock read). On a
 * CLOCK_BOOTTIME queue a CLOCK_MONOTONIC alarm would, after a suspend.
 *
 * Context: process context, may sleep.
 * Return: the device, or an ERR_PTR(): -EINVAL for a CLOCK_BOOTTIME
 * queue, -ENOMEM, or what misc_register() returned (-EEXIST for a name
 * in use).
 */
struct dwq_dev *dwq_dev_create(const char *name, umode_t mode,
			       struct dwq_queue *q)
{
	struct dwq_dev *dev;
	int err;

	if (q && q->clockid != CLOCK_MONOTONIC)
		return ERR_PTR(-EINVAL);
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return ERR_PTR(-ENOMEM);
	dev->misc.name = kstrdup(name, GFP_KERNEL);
	if (!dev->misc.name) {
		err = -ENOMEM;
		goto err_free;
	}
	dev->misc.minor = MISC_DYNAMIC_MINOR;
	dev->misc.fops = &dwq_dev_fops;
	dev->misc.mode = mode;
	dev->q = q;
	err = misc_register(&dev->misc);
	if (err)
		goto err_name;
	/* Tests register devices without a queue, to test the device alone. */
	if (q)
		dwq_client_set_describe(q);
	return dev;

err_name:
	kfree(dev->misc.name);
err_free:
	kfree(dev);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_create);

/**
 * dwq_dev_destroy() - unregister and free a device from dwq_dev_create()
 * @dev: the device
 *
 * Its files hold a reference to the module, so none is open here when
 * called at module exit; a test calling it must close its files first.
 *
 * Context: process context, may sleep.
 */
void dwq_dev_destroy(struct dwq_dev *dev)
{
	misc_deregister(&dev->misc);
	kfree(dev->misc.name);
	kfree(dev);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_destroy);

/**
 * dwq_dev_init() - set up what every dwq device shares
 *
 * Context: module init.
 * Return: 0, -EINVAL for inconsistent limits, or -ENOMEM.
 */
int dwq_dev_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct dwq_ioc_schedule) != 64);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_schedule_batch) != 24);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_cancel) != 16);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_reschedule) != 48);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_query) != 88);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_stats) != 168);
	BUILD_BUG_ON(sizeof(struct dwq_event) != 64);
	BUILD_BUG_ON(sizeof(struct dwq_ioc_cancel_batch) != 24);
	BUILD_BUG_ON(DWQ_SCHEDULE_BATCH_MAX > DWQ_BATCH_MAX);
	/*
	 * DWQ_IOC_CANCEL_BATCH's copy of the array, with a task pointer an
	 * entry, stays small.
	 */
	BUILD_BUG_ON(DWQ_CANCEL_BATCH_MAX *
			     (sizeof(struct dwq_ioc_cancel) + sizeof(void *)) >
		     24576);

	err = dwq_limits_init();
	if (err)
		return err;
	err = dwq_client_init();
	if (err)
		dwq_limits_exit();
	return err;
}

/**
 * dwq_dev_exit() - undo dwq_dev_init()
 *
 * Context: module exit, after every device is destroyed.
 */
void dwq_dev_exit(void)
{
	dwq_limits_exit();
	dwq_client_exit();
}
