// SPDX-License-Identifier: GPL-2.0
/*
 * dwq_kunit: KUnit suites for dwq. Each suite lives in its own file and
 * registers itself with kunit_test_suite(); loading this module runs them
 * all and leaves their KTAP under /sys/kernel/debug/kunit/<suite>/results.
 */
#include <linux/module.h>
#include <kunit/test.h>

#include "compat.h"

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for dwq");
DWQ_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
