// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq: the character device through which user space reaches dwq.
 * Each open file is one client.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "dwq_internal.h"

static int dwq_dev_open(struct inode *inode, struct file *file)
{
	/* misc_open() left our miscdevice in private_data. */
	return nonseekable_open(inode, file);
}

static int dwq_dev_release(struct inode *inode, struct file *file)
{
	return 0;
}

static long dwq_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations dwq_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= dwq_dev_open,
	.release	= dwq_dev_release,
	.unlocked_ioctl	= dwq_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

/**
 * dwq_dev_create() - register a dwq character device
 * @name: its name under /dev; copied
 * @mode: its permission bits, e.g. 0600
 *
 * Context: process context, may sleep.
 * Return: the device, or an ERR_PTR(): -ENOMEM, or what misc_register()
 * returned (-EBUSY for a name in use).
 */
struct dwq_dev *dwq_dev_create(const char *name, umode_t mode)
{
	struct dwq_dev *dev;
	int err;

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
	err = misc_register(&dev->misc);
	if (err)
		goto err_name;
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
 * Context: process context, may sleep.
 */
void dwq_dev_destroy(struct dwq_dev *dev)
{
	misc_deregister(&dev->misc);
	kfree(dev->misc.name);
	kfree(dev);
}
EXPORT_SYMBOL_IF_KUNIT(dwq_dev_destroy);
