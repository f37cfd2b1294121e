/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq private declarations, shared by the files of dwq.ko and by its KUnit
 * module. Nothing here is ABI.
 *
 * Locking: see the comment above each lock where it is declared.
 */
#ifndef _DWQ_INTERNAL_H
#define _DWQ_INTERNAL_H

#include <linux/miscdevice.h>
#include <linux/types.h>
#include <kunit/visibility.h>

/**
 * struct dwq_dev - one character device instance
 * @misc: the registered misc device; @misc.name is its /dev name
 *
 * dwq.ko registers one instance, /dev/dwq, at load time. Tests register
 * more under other names.
 */
struct dwq_dev {
	struct miscdevice misc;
};

struct dwq_dev *dwq_dev_create(const char *name, umode_t mode);
void dwq_dev_destroy(struct dwq_dev *dev);

#endif /* _DWQ_INTERNAL_H */
