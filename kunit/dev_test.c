// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the dwq character device: registration, naming,
 * permissions and teardown.
 */
#include <linux/err.h>
#include <linux/fs.h>
#include <kunit/test.h>

#include "dwq_internal.h"

#define TEST_NAME "dwq-kunit"
#define TEST_PATH "/dev/" TEST_NAME

static struct file *open_node(const char *path)
{
	return filp_open(path, O_RDWR, 0);
}

/* A registered device appears under /dev and disappears on destroy. */
static void dwq_dev_test_register_unregister(struct kunit *test)
{
	struct dwq_dev *dev;
	struct file *f;

	dev = dwq_dev_create(TEST_NAME, 0600, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_EXPECT_NE(test, dev->misc.minor, MISC_DYNAMIC_MINOR);

	f = open_node(TEST_PATH);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "open %s: %ld", TEST_PATH,
			       PTR_ERR(f));
	KUNIT_EXPECT_TRUE(test, S_ISCHR(file_inode(f)->i_mode));
	KUNIT_EXPECT_EQ(test, imajor(file_inode(f)), MISC_MAJOR);
	KUNIT_EXPECT_EQ(test, iminor(file_inode(f)), dev->misc.minor);
	filp_close(f, NULL);

	dwq_dev_destroy(dev);
	f = open_node(TEST_PATH);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -ENOENT);
	if (!IS_ERR(f))
		filp_close(f, NULL);
}

/* The mode asked for is the mode the node gets. */
static void dwq_dev_test_mode(struct kunit *test)
{
	struct dwq_dev *dev;
	struct file *f;

	dev = dwq_dev_create(TEST_NAME, 0640, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	f = open_node(TEST_PATH);
	if (IS_ERR(f)) {
		dwq_dev_destroy(dev);
		KUNIT_FAIL(test, "open %s: %ld", TEST_PATH, PTR_ERR(f));
		return;
	}
	KUNIT_EXPECT_EQ(test, file_inode(f)->i_mode & 0777, 0640);
	filp_close(f, NULL);
	dwq_dev_destroy(dev);
}

/* Two devices coexist, and destroying one leaves the other working. */
static void dwq_dev_test_two_devices(struct kunit *test)
{
	struct dwq_dev *a, *b;
	struct file *f;

	a = dwq_dev_create(TEST_NAME, 0600, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	b = dwq_dev_create(TEST_NAME "-b", 0600, NULL);
	if (IS_ERR(b)) {
		dwq_dev_destroy(a);
		KUNIT_FAIL(test, "second device: %ld", PTR_ERR(b));
		return;
	}
	KUNIT_EXPECT_NE(test, a->misc.minor, b->misc.minor);

	dwq_dev_destroy(a);
	f = open_node(TEST_PATH "-b");
	KUNIT_EXPECT_FALSE(test, IS_ERR(f));
	if (!IS_ERR(f)) {
		KUNIT_EXPECT_EQ(test, iminor(file_inode(f)), b->misc.minor);
		filp_close(f, NULL);
	}
	f = open_node(TEST_PATH);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -ENOENT);
	if (!IS_ERR(f))
		filp_close(f, NULL);
	dwq_dev_destroy(b);
}

/* An ioctl the device does not know is -ENOTTY, as for any file. */
static void dwq_dev_test_unknown_ioctl(struct kunit *test)
{
	struct dwq_dev *dev;
	struct file *f;

	dev = dwq_dev_create(TEST_NAME, 0600, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	f = open_node(TEST_PATH);
	if (IS_ERR(f)) {
		dwq_dev_destroy(dev);
		KUNIT_FAIL(test, "open %s: %ld", TEST_PATH, PTR_ERR(f));
		return;
	}
	KUNIT_EXPECT_EQ(test, f->f_op->unlocked_ioctl(f, 0xdeadbeef, 0),
			(long)-ENOTTY);
	filp_close(f, NULL);
	dwq_dev_destroy(dev);
}

static struct kunit_case dwq_dev_test_cases[] = {
	KUNIT_CASE(dwq_dev_test_register_unregister),
	KUNIT_CASE(dwq_dev_test_mode),
	KUNIT_CASE(dwq_dev_test_two_devices),
	KUNIT_CASE(dwq_dev_test_unknown_ioctl),
	{}
};

static struct kunit_suite dwq_dev_test_suite = {
	.name = "dwq_dev",
	.test_cases = dwq_dev_test_cases,
};

kunit_test_suite(dwq_dev_test_suite);
