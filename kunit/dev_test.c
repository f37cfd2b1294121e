// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the dwq character device: registration, naming,
 * permissions and teardown.
 */
/* The io_uring command's struct, for a command built here (compat.h). */
#define DWQ_COMPAT_IO_URING
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <uapi/linux/dwq.h>

#include "compat.h"
#include "dev.h"
#include "dwq_internal.h"
#include "heap.h"
#include "wait.h"

#define TEST_NAME "dwq-kunit"
#define TEST_PATH "/dev/" TEST_NAME

static struct file *open_node(const char *path)
{
	return filp_open(path, O_RDWR, 0);
}

/*
 * Close @f and run its release now, in this thread. A kthread's last
 * fput() is deferred to a work item a jiffy later, which would release
 * the file after the test has destroyed the device and the queue under
 * it; and flush_delayed_fput() returns at once if that work item has
 * taken the file already and is releasing it still.
 */
static void close_node(struct file *f)
{
	__fput_sync(f);
}

/*
 * Create the test device with @mode and no queue, and open it: the file,
 * or NULL with the test failed and the device gone.
 */
static struct file *dt_open_noq(struct kunit *test, umode_t mode,
				struct dwq_dev **dev)
{
	struct file *f;

	*dev = dwq_dev_create(TEST_NAME, mode, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, *dev);
	f = open_node(TEST_PATH);
	if (IS_ERR(f)) {
		dwq_dev_destroy(*dev);
		KUNIT_FAIL(test, "open %s: %ld", TEST_PATH, PTR_ERR(f));
		return NULL;
	}
	return f;
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
	close_node(f);

	dwq_dev_destroy(dev);
	f = open_node(TEST_PATH);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -ENOENT);
	if (!IS_ERR(f))
		close_node(f);
}

/* The mode asked for is the mode the node gets. */
static void dwq_dev_test_mode(struct kunit *test)
{
	struct dwq_dev *dev;
	struct file *f;

	f = dt_open_noq(test, 0640, &dev);
	if (!f)
		return;
	KUNIT_EXPECT_EQ(test, file_inode(f)->i_mode & 0777, 0640);
	close_node(f);
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
		close_node(f);
	}
	f = open_node(TEST_PATH);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(f), -ENOENT);
	if (!IS_ERR(f))
		close_node(f);
	dwq_dev_destroy(b);
}

/* An ioctl the device does not know is -ENOTTY, as for any file. */
static void dwq_dev_test_unknown_ioctl(struct kunit *test)
{
	struct dwq_dev *dev;
	struct file *f;

	f = dt_open_noq(test, 0600, &dev);
	if (!f)
		return;
	KUNIT_EXPECT_EQ(test, f->f_op->unlocked_ioctl(f, 0xdeadbeef, 0),
			(long)-ENOTTY);
	close_node(f);
	dwq_dev_destroy(dev);
}

static long ioc(struct file *f, unsigned int cmd, void __user *arg)
{
	return f->f_op->unlocked_ioctl(f, cmd, (unsigned long)arg);
}

static void dt_queue_destroy(void *q)
{
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
}

static void dt_dev_destroy(void *dev)
{
	dwq_dev_destroy(dev);
}

static void dt_file_close(void *f)
{
	close_node(f);
}

/*
 * A device of its own on a queue of its own, both undone when the test
 * ends: a hard irq queue, as /dev/dwq's (the files' alarms run there).
 */
static struct dwq_queue *dt_dev(struct kunit *test)
{
	struct dwq_queue *q;
	struct dwq_dev *dev;

	q = dwq_queue_create("kunit", 1, DWQ_QUEUE_HARDIRQ);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dt_queue_destroy, q),
			0);
	dev = dwq_dev_create(TEST_NAME, 0600, q);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dt_dev_destroy, dev),
			0);
	return q;
}

/*
 * A device's files keep their tasks on its queue by CLOCK_MONOTONIC
 * alarms, which must never fire before their deadlines: a CLOCK_BOOTTIME
 * queue would fire them early after a suspend, so it is refused.
 */
static void dwq_dev_test_boottime_queue(struct kunit *test)
{
	struct dwq_queue *q;
	struct dwq_dev *dev;

	q = dwq_queue_create("kunit", 1, DWQ_QUEUE_BOOTTIME);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dt_queue_destroy, q),
			0);
	dev = dwq_dev_create(TEST_NAME, 0600, q);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(dev), -EINVAL);
	if (!IS_ERR(dev))
		dwq_dev_destroy(dev);
}

/*
 * A file of a device of its own, on a queue of its own, and @size bytes
 * of user memory at *@addr for the ioctls' arguments; all undone when the
 * test ends.
 */
static struct file *dt_open(struct kunit *test, size_t size,
			    unsigned long *addr)
{
	struct file *f;

	*addr = kunit_vm_mmap(test, NULL, 0, size, PROT_READ | PROT_WRITE,
			      MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, *addr, 0UL, "no user memory");
	dt_dev(test);
	f = open_node(TEST_PATH);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dt_file_close, f),
			0);
	return f;
}

/*
 * A file reserves its alarms' slots in the queue at open and gives them
 * back at release; the queue may go only after that.
 */
static void dwq_dev_test_release_unreserves(struct kunit *test)
{
	struct dwq_queue *q = dt_dev(test);
	unsigned int room;
	struct file *f;

	room = READ_ONCE(q->room);
	KUNIT_EXPECT_EQ(test, room, 0U);
	f = open_node(TEST_PATH);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	room = READ_ONCE(q->room);
	KUNIT_EXPECT_EQ(test, room, (unsigned int)DWQ_NR_CLOCKS);
	close_node(f);
	room = READ_ONCE(q->room);
	KUNIT_EXPECT_EQ(test, room, 0U);
}

/*
 * A file's ids end at U64_MAX: that one is still given, then scheduling
 * fails with -ENOSPC, alone or in a batch (which gets no id at all if it
 * does not fit whole), and leaves no task, id or charge behind, the
 * periodic batch's firing rate included.
 */
static void dwq_dev_test_ids_run_out(struct kunit *test)
{
	struct dwq_ioc_schedule one = {
		.time_ns = 10ULL * NSEC_PER_SEC,
		.mode = DWQ_MODE_ONESHOT,
	};
	struct dwq_ioc_schedule_batch b = { .count = 2 };
	struct dwq_ioc_cancel cancel = {};
	struct dwq_ioc_schedule __user *u;
	struct dwq_ioc_schedule two[2];
	int all, user, all0, user0;
	struct dwq_ioc_stats st;
	unsigned long addr;
	u64 rate0;
	struct file *f;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (struct dwq_ioc_schedule __user *)addr;
	dwq_dev_kunit_charged(f, &all0, &user0);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_STATS, u), 0L);
	KUNIT_EXPECT_EQ(test, copy_from_user(&st, u, sizeof(st)), 0UL);
	rate0 = st.user_rate_mhz;

	/* The last id there is. */
	dwq_dev_kunit_set_last_id(f, U64_MAX - 1);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &one, sizeof(one)), 0UL);
	KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE, u), 0L);
	KUNIT_EXPECT_EQ(test, get_user(cancel.id, &u->id), 0);
	KUNIT_EXPECT_EQ(test, cancel.id, U64_MAX);
	KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE, u), (long)-ENOSPC);

	/* Two when one id is left: neither is made. */
	dwq_dev_kunit_set_last_id(f, U64_MAX - 1);
	two[0] = one;
	two[0].mode = DWQ_MODE_FIXED_RATE;
	two[0].period_ns = NSEC_PER_SEC;
	two[1] = two[0];
	b.entries = addr + 2 * sizeof(*u);
	KUNIT_ASSERT_EQ(test, copy_to_user(u + 2, two, sizeof(two)), 0UL);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &b, sizeof(b)), 0UL);
	KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE_BATCH, u), (long)-ENOSPC);

	/* Only the first task is left, with its charges; then none. */
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_STATS, u), 0L);
	KUNIT_EXPECT_EQ(test, copy_from_user(&st, u, sizeof(st)), 0UL);
	KUNIT_EXPECT_EQ(test, st.pending, 1ULL);
	KUNIT_EXPECT_EQ(test, st.queue_size, 1U);
	KUNIT_EXPECT_EQ(test, st.user_rate_mhz, rate0);
	dwq_dev_kunit_charged(f, &all, &user);
	KUNIT_EXPECT_EQ(test, all, all0 + 1);
	KUNIT_EXPECT_EQ(test, user, user0 + 1);
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &cancel, sizeof(cancel)), 0UL);
	KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_CANCEL, u), 0L);
	dwq_dev_kunit_charged(f, &all, &user);
	KUNIT_EXPECT_EQ(test, all, all0);
	KUNIT_EXPECT_EQ(test, user, user0);
}

/*
 * A task that is done stays with its file as a spare, up to
 * DWQ_CLIENT_SPARES of them, and the next schedule takes it back as new:
 * nothing of the task it was (its firings, cookie, period) shows. An
 * emptied heap keeps its smallest array. The spares are freed at close
 * (kmemleak, which the guest scans after the tests, would find one lost).
 */
static void dwq_dev_test_spares(struct kunit *test)
{
	const unsigned int n = DWQ_CLIENT_SPARES + 8;
	struct dwq_ioc_schedule s = {
		.time_ns = 0,
		.period_ns = 3600ULL * NSEC_PER_SEC,
		.cookie = 1,
		.mode = DWQ_MODE_FIXED_RATE,
	};
	struct dwq_ioc_schedule_batch sb = { .count = n };
	struct dwq_ioc_cancel_batch cb = { .count = n };
	struct dwq_ioc_schedule __user *us;
	struct dwq_ioc_cancel __user *uc;
	struct dwq_ioc_cancel c = {};
	unsigned int spares, slots, i;
	struct dwq_ioc_query qr;
	struct dwq_event ev;
	unsigned long addr;
	char __user *buf;
	struct file *f;
	loff_t pos = 0;
	u64 id;

	f = dt_open(test, 4 * PAGE_SIZE, &addr);
	buf = (char __user *)addr;
	/* Argument structs at the start; the batches' arrays past a page. */
	us = (struct dwq_ioc_schedule __user *)(addr + PAGE_SIZE);
	uc = (struct dwq_ioc_cancel __user *)(addr + PAGE_SIZE);

	/* A periodic task, due at once, fired by a read, then cancelled. */
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &s, sizeof(s)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE, buf), 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&s, buf, sizeof(s)), 0UL);
	KUNIT_ASSERT_EQ(test, f->f_op->read(f, buf, sizeof(ev), &pos),
			(ssize_t)sizeof(ev));
	KUNIT_ASSERT_EQ(test, copy_from_user(&ev, buf, sizeof(ev)), 0UL);
	KUNIT_EXPECT_EQ(test, ev.id, s.id);
	dwq_dev_kunit_spares(f, &spares, &slots);
	KUNIT_EXPECT_EQ(test, spares, 0U);
	c.id = s.id;
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &c, sizeof(c)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_CANCEL, buf), 0L);
	dwq_dev_kunit_spares(f, &spares, &slots);
	KUNIT_EXPECT_EQ(test, spares, 1U);
	KUNIT_EXPECT_EQ(test, slots, DWQ_HEAP_MIN_CAPACITY);

	/* The next task is that spare, and new in every way. */
	s = (struct dwq_ioc_schedule){ .time_ns = 10ULL * NSEC_PER_SEC,
				       .cookie = 2 };
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &s, sizeof(s)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE, buf), 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&s, buf, sizeof(s)), 0UL);
	id = s.id;
	KUNIT_EXPECT_GT(test, id, c.id);
	dwq_dev_kunit_spares(f, &spares, &slots);
	KUNIT_EXPECT_EQ(test, spares, 0U);
	qr = (struct dwq_ioc_query){ .id = id };
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &qr, sizeof(qr)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_QUERY, buf), 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&qr, buf, sizeof(qr)), 0UL);
	KUNIT_EXPECT_EQ(test, qr.cookie, 2ULL);
	KUNIT_EXPECT_EQ(test, qr.runs, 0ULL);
	KUNIT_EXPECT_EQ(test, qr.skipped, 0ULL);
	KUNIT_EXPECT_EQ(test, qr.folded, 0ULL);
	KUNIT_EXPECT_EQ(test, qr.period_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, qr.mode, (u32)DWQ_MODE_ONESHOT);
	KUNIT_EXPECT_EQ(test, qr.state, (u32)DWQ_STATE_QUEUED);

	/* Past DWQ_CLIENT_SPARES, the tasks done are freed. */
	s.id = 0;
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, copy_to_user(us + i, &s, sizeof(s)), 0UL);
	sb.entries = (u64)(uintptr_t)us;
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &sb, sizeof(sb)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE_BATCH, buf), 0L);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, get_user(id, &us[i].id), 0);
		c = (struct dwq_ioc_cancel){ .id = id };
		KUNIT_ASSERT_EQ(test, copy_to_user(uc + i, &c, sizeof(c)), 0UL);
	}
	cb.entries = (u64)(uintptr_t)uc;
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &cb, sizeof(cb)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_CANCEL_BATCH, buf), 0L);
	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, copy_from_user(&c, uc + i, sizeof(c)),
				0UL);
		KUNIT_EXPECT_EQ(test, c.result, (u32)DWQ_RESULT_REMOVED);
	}
	dwq_dev_kunit_spares(f, &spares, &slots);
	KUNIT_EXPECT_EQ(test, spares, DWQ_CLIENT_SPARES);
}

/* Ioctl @cmd on @f with @arg (@size bytes), through @u: 0, and @arg back. */
static void dt_ioc_ok(struct kunit *test, struct file *f, unsigned int cmd,
		      void __user *u, void *arg, size_t size)
{
	KUNIT_ASSERT_EQ(test, copy_to_user(u, arg, size), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, cmd, u), 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(arg, u, size), 0UL);
}

/*
 * A file's id map grows with its tasks and shrinks with them, and finds
 * each by its id at every size: 3000 tasks, each queried for its cookie;
 * then all but 3 cancelled, a batch at a time, the tasks left found after
 * each batch (the map shrinks on the way), and at the end the others and
 * an id never given not (-ENOENT).
 */
static void dwq_dev_test_id_map(struct kunit *test)
{
	const unsigned int per = 1000, rounds = 3, n = per * rounds;
	struct dwq_ioc_schedule s = { .time_ns = 3600ULL * NSEC_PER_SEC };
	struct dwq_ioc_schedule_batch sb = { .count = per };
	struct dwq_ioc_cancel_batch cb = { .count = per };
	struct dwq_ioc_schedule __user *us;
	struct dwq_ioc_cancel __user *uc;
	unsigned int i, r, nr, buckets;
	struct dwq_ioc_cancel c = {};
	struct dwq_ioc_query qr;
	unsigned long addr;
	char __user *buf;
	struct file *f;
	u64 *ids;

	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	f = dt_open(test, 24 * PAGE_SIZE, &addr);
	buf = (char __user *)addr;
	us = (struct dwq_ioc_schedule __user *)(addr + PAGE_SIZE);
	uc = (struct dwq_ioc_cancel __user *)(addr + 20 * PAGE_SIZE);
	dwq_dev_kunit_ids(f, &nr, &buckets);
	KUNIT_EXPECT_EQ(test, nr, 0U);
	KUNIT_EXPECT_EQ(test, buckets, 16U);

	sb.entries = (u64)(uintptr_t)us;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < per; i++) {
			s.cookie = r * per + i + 1;
			KUNIT_ASSERT_EQ(test,
					copy_to_user(us + i, &s, sizeof(s)),
					0UL);
		}
		KUNIT_ASSERT_EQ(test, copy_to_user(buf, &sb, sizeof(sb)), 0UL);
		KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE_BATCH, buf), 0L);
		for (i = 0; i < per; i++)
			KUNIT_ASSERT_EQ(test,
					get_user(ids[r * per + i], &us[i].id),
					0);
	}
	dwq_dev_kunit_ids(f, &nr, &buckets);
	KUNIT_EXPECT_EQ(test, nr, n);
	/* Between one and two tasks a bucket. */
	KUNIT_EXPECT_GE(test, 2 * buckets, n);
	KUNIT_EXPECT_LE(test, buckets, n);
	for (i = 0; i < n; i++) {
		qr = (struct dwq_ioc_query){ .id = ids[i] };
		KUNIT_ASSERT_EQ(test, copy_to_user(buf, &qr, sizeof(qr)), 0UL);
		KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_QUERY, buf), 0L);
		KUNIT_ASSERT_EQ(test, copy_from_user(&qr, buf, sizeof(qr)),
				0UL);
		KUNIT_ASSERT_EQ(test, qr.cookie, (u64)i + 1);
	}
	qr = (struct dwq_ioc_query){ .id = ids[n - 1] + 1 };
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &qr, sizeof(qr)), 0UL);
	KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_QUERY, buf), (long)-ENOENT);

	/* All but the last 3, a batch at a time, oldest first. */
	cb.entries = (u64)(uintptr_t)uc;
	for (r = 0; r < rounds; r++) {
		cb.count = r < rounds - 1 ? per : per - 3;
		for (i = 0; i < cb.count; i++) {
			c = (struct dwq_ioc_cancel){ .id = ids[r * per + i] };
			KUNIT_ASSERT_EQ(test,
					copy_to_user(uc + i, &c, sizeof(c)),
					0UL);
		}
		KUNIT_ASSERT_EQ(test, copy_to_user(buf, &cb, sizeof(cb)), 0UL);
		KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_CANCEL_BATCH, buf), 0L);
		for (i = 0; i < cb.count; i++) {
			KUNIT_ASSERT_EQ(test,
					copy_from_user(&c, uc + i, sizeof(c)),
					0UL);
			KUNIT_ASSERT_EQ(test, c.result,
					(u32)DWQ_RESULT_REMOVED);
		}
		/* Every id left is still found, whatever the map's size. */
		for (i = r * per + cb.count; i < n; i++) {
			qr = (struct dwq_ioc_query){ .id = ids[i] };
			dt_ioc_ok(test, f, DWQ_IOC_QUERY, buf, &qr, sizeof(qr));
			KUNIT_ASSERT_EQ(test, qr.cookie, (u64)i + 1);
		}
	}
	dwq_dev_kunit_ids(f, &nr, &buckets);
	KUNIT_EXPECT_EQ(test, nr, 3U);
	/* It keeps room for a batch of DWQ_CLIENT_SPARES, two a bucket. */
	KUNIT_EXPECT_EQ(test, buckets, DWQ_CLIENT_SPARES / 2U);
	for (i = n - 4; i < n; i++) {
		qr = (struct dwq_ioc_query){ .id = ids[i] };
		KUNIT_ASSERT_EQ(test, copy_to_user(buf, &qr, sizeof(qr)), 0UL);
		KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_QUERY, buf),
				i == n - 4 ? (long)-ENOENT : 0L);
	}
}

#define HOUR (3600ULL * NSEC_PER_SEC)

/* Schedule a one-shot due @ns from now on @f; its id. */
static u64 dt_schedule(struct kunit *test, struct file *f, void __user *u,
		       u64 ns)
{
	struct dwq_ioc_schedule s = { .time_ns = ns };

	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	return s.id;
}

static void dt_cancel(struct kunit *test, struct file *f, void __user *u,
		      u64 id)
{
	struct dwq_ioc_cancel c = { .id = id };

	dt_ioc_ok(test, f, DWQ_IOC_CANCEL, u, &c, sizeof(c));
	KUNIT_EXPECT_EQ(test, c.result, (u32)DWQ_RESULT_REMOVED);
}

/* Read one event from @f, which has one due, into @ev. */
static void dt_read_ev(struct kunit *test, struct file *f, void __user *u,
		       struct dwq_event *ev)
{
	loff_t pos = 0;

	KUNIT_ASSERT_EQ(test, f->f_op->read(f, u, sizeof(*ev), &pos),
			(ssize_t)sizeof(*ev));
	KUNIT_ASSERT_EQ(test, copy_from_user(ev, u, sizeof(*ev)), 0UL);
}

/* Read one event from @f through @u (it must come at once); its id. */
static u64 dt_read_id(struct kunit *test, struct file *f, void __user *u)
{
	struct dwq_event ev;

	dt_read_ev(test, f, u, &ev);
	return ev.id;
}

/* A snapshot of a file's monotonic alarm: its dwq_query(), its runs. */
struct dt_alarm_info {
	u32 state;
	u64 remaining_ns;
	u64 deadline_ns;
	u64 runs;
};

static struct dt_alarm_info dt_alarm(struct file *f)
{
	struct dwq_task_info info;
	u32 runs;

	dwq_dev_kunit_alarm(f, DWQ_CLOCK_MONOTONIC, &info, &runs);
	return (struct dt_alarm_info){ .state = info.state,
				       .remaining_ns = info.remaining_ns,
				       .deadline_ns = info.deadline_ns,
				       .runs = runs };
}

/* The alarm has run @runs times, and is not running. */
static bool dt_alarm_ran(struct file *f, u64 runs)
{
	struct dt_alarm_info info = dt_alarm(f);

	return info.runs == runs && info.state != DWQ_STATE_RUNNING;
}

/* The alarm has run @runs times, and is queued again. */
static bool dt_alarm_queued_after(struct file *f, u64 runs)
{
	struct dt_alarm_info info = dt_alarm(f);

	return info.runs == runs && info.state == DWQ_STATE_QUEUED;
}

/*
 * The file's alarm fires by its earliest deadline, early rather than
 * late: an earlier task brings it in; a later task, the earliest one
 * cancelled and the last one cancelled all leave it where it is, so that
 * a timeout armed and disarmed moves nothing on the shared queue.
 */
static void dwq_dev_test_alarm_lazy(struct kunit *test)
{
	struct dt_alarm_info info;
	unsigned long addr;
	struct file *f;
	void __user *u;
	u64 a, b, c;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);

	a = dt_schedule(test, f, u, 2 * HOUR);
	info = dt_alarm(f);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_LE(test, info.remaining_ns, 2 * HOUR);

	/* Later, then the earliest cancelled: left at two hours. */
	b = dt_schedule(test, f, u, 3 * HOUR);
	dt_cancel(test, f, u, a);
	info = dt_alarm(f);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_LE(test, info.remaining_ns, 2 * HOUR);

	/* Earlier: brought in to one hour. */
	c = dt_schedule(test, f, u, HOUR);
	info = dt_alarm(f);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR / 2);

	/* All cancelled: still there, to fire once for nothing. */
	dt_cancel(test, f, u, c);
	dt_cancel(test, f, u, b);
	info = dt_alarm(f);
	KUNIT_EXPECT_EQ(test, info.state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_EQ(test, info.runs, 0ULL);
}

struct dt_waker {
	struct wait_queue_entry wqe;
	wait_queue_head_t *wqh;
	atomic_t wakeups;
};

/* Counts the wakeups of a file's readers, and wakes no one. */
static int dt_waker_fn(struct wait_queue_entry *wqe, unsigned int mode,
		       int sync, void *key)
{
	struct dt_waker *w = container_of(wqe, struct dt_waker, wqe);

	atomic_inc(&w->wakeups);
	return 0;
}

static void dt_waker_remove(void *arg)
{
	struct dt_waker *w = arg;

	remove_wait_queue(w->wqh, &w->wqe);
}

/* A reader of @f that only counts its wakeups, gone when the test ends. */
static struct dt_waker *dt_waker_add(struct kunit *test, struct file *f)
{
	struct dt_waker *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	struct dwq_client *c = f->private_data;

	KUNIT_ASSERT_NOT_NULL(test, w);
	init_waitqueue_func_entry(&w->wqe, dt_waker_fn);
	w->wqh = &c->wqh;
	add_wait_queue(w->wqh, &w->wqe);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dt_waker_remove, w), 0);
	return w;
}

#define DT_BACKLOG 64
#define DT_PER_READ 8

/*
 * A file with a waiter and DT_BACKLOG one-shots scheduled in one batch,
 * task i at @time_ns + i * @step_ns (an absolute deadline if @abs): the
 * file; the buffer for its calls in @buf, the waiter in @w.
 */
static struct file *dt_backlog(struct kunit *test, u64 time_ns, u64 step_ns,
			       bool abs, char __user **buf, struct dt_waker **w)
{
	struct dwq_ioc_schedule_batch sb = { .count = DT_BACKLOG };
	struct dwq_ioc_schedule __user *us;
	struct dwq_ioc_schedule s;
	unsigned long addr;
	struct file *f;
	unsigned int i;

	f = dt_open(test, 4 * PAGE_SIZE, &addr);
	*buf = (char __user *)addr;
	us = (struct dwq_ioc_schedule __user *)(addr + PAGE_SIZE);
	*w = dt_waker_add(test, f);
	for (i = 0; i < DT_BACKLOG; i++) {
		s = (struct dwq_ioc_schedule){
			.time_ns = time_ns + i * step_ns,
			.flags = abs ? DWQ_SCHED_ABS : 0,
			.cookie = i,
		};
		KUNIT_ASSERT_EQ(test, copy_to_user(us + i, &s, sizeof(s)), 0UL);
	}
	sb.entries = (u64)(uintptr_t)us;
	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE_BATCH, *buf, &sb, sizeof(sb));
	return f;
}

/* @k read()s of @f, DT_PER_READ events each, into @buf. */
static void dt_read_chunks(struct kunit *test, struct file *f, char __user *buf,
			   unsigned int k)
{
	loff_t pos = 0;

	while (k--)
		KUNIT_ASSERT_EQ(test,
				f->f_op->read(f, buf,
					      DT_PER_READ *
						      sizeof(struct dwq_event),
					      &pos),
				(ssize_t)(DT_PER_READ *
					  sizeof(struct dwq_event)));
}

/*
 * A backlog of due tasks, each with its own deadline, drained 8 events a
 * read(): the readers are woken once, when it comes due, not again by
 * each read() that leaves a head due since then; a task that comes due
 * after that wake wakes them again (an edge for epoll's EPOLLET).
 */
static void dwq_dev_test_drain_wakes_once(struct kunit *test)
{
	struct dwq_ioc_schedule s;
	struct dt_waker *w;
	char __user *buf;
	struct file *f;
	loff_t pos = 0;

	f = dt_backlog(test, ktime_get_ns() - DT_BACKLOG * NSEC_PER_USEC,
		       NSEC_PER_USEC, true, &buf, &w);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 1);

	/* All but the last chunk: each leaves a head due before the wake. */
	atomic_set(&w->wakeups, 0);
	dt_read_chunks(test, f, buf, DT_BACKLOG / DT_PER_READ - 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 0);

	/* Due now, after the wake: the readers hear of it. */
	s = (struct dwq_ioc_schedule){ .time_ns = ktime_get_ns(),
				       .flags = DWQ_SCHED_ABS };
	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, buf, &s, sizeof(s));
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 1);
	KUNIT_EXPECT_EQ(test,
			f->f_op->read(f, buf,
				      (DT_PER_READ + 1) *
					      sizeof(struct dwq_event),
				      &pos),
			(ssize_t)((DT_PER_READ + 1) *
				  sizeof(struct dwq_event)));
}

/*
 * As dwq_dev_test_drain_wakes_once, the backlog come due through the
 * alarm: 64 tasks with one deadline; the alarm wakes the readers once
 * then, and the read()s that drain them, each leaving a head due by that
 * wake, wake no one again.
 */
static void dwq_dev_test_alarm_drain_wakes_once(struct kunit *test)
{
	struct dt_waker *w;
	char __user *buf;
	struct file *f;

	f = dt_backlog(test, 200 * MS, 0, false, &buf, &w);
	/* The alarm woke them, once. */
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 1));
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 1);

	atomic_set(&w->wakeups, 0);
	dt_read_chunks(test, f, buf, DT_BACKLOG / DT_PER_READ);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 0);
}

/* The alarm tests' short deadline, far enough for a slow guest. */
#define DT_EARLY_NS (2 * NSEC_PER_SEC)

/*
 * Skip the test if DT_EARLY_NS have passed since @t0, read before a task
 * was scheduled DT_EARLY_NS ahead: what the test saw since may be of that
 * task come due, which only a guest that slow makes so.
 */
static void dt_still_early(struct kunit *test, u64 t0)
{
	u64 took = ktime_get_ns() - t0;

	if (took >= DT_EARLY_NS)
		dwq_kunit_skip(test,
			       "the guest took %llu ms: the task came due",
			       took / MS);
}

/*
 * Cancel task @id, scheduled DT_EARLY_NS ahead by a call made after @t0,
 * before it is due; or skip the test if the guest was too slow for that.
 */
static void dt_cancel_early(struct kunit *test, struct file *f, void __user *u,
			    u64 id, u64 t0)
{
	struct dwq_ioc_cancel c = { .id = id };
	long ret;

	KUNIT_ASSERT_EQ(test, copy_to_user(u, &c, sizeof(c)), 0UL);
	ret = ioc(f, DWQ_IOC_CANCEL, u);
	dt_still_early(test, t0);
	KUNIT_ASSERT_EQ(test, ret, 0L);
	KUNIT_ASSERT_EQ(test, copy_from_user(&c, u, sizeof(c)), 0UL);
	KUNIT_EXPECT_EQ(test, c.result, (u32)DWQ_RESULT_REMOVED);
}

/*
 * An alarm left early by a cancel fires, finds nothing due, wakes no
 * reader and re-arms itself for the head; moved in, it wakes the readers
 * once that head is due, and read() returns it. Re-armed by itself, it
 * fires again for the head, and wakes the readers then. Left early with
 * nothing queued, it fires once, wakes no one and stays idle. The short
 * deadlines are DT_EARLY_NS away: one ioctl alone comes between a short
 * task's schedule and its cancel, and it must not be due yet at the
 * cancel; a guest so slow that it is skips the test.
 */
static void dwq_dev_test_alarm_early(struct kunit *test)
{
	struct dwq_ioc_reschedule r = {};
	struct dt_alarm_info info;
	struct dt_waker *w;
	unsigned long addr;
	struct file *f;
	void __user *u;
	u64 a, b, t0;
	u32 state;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	w = dt_waker_add(test, f);

	/* Fires at 2 s for nothing, and waits for the hour. */
	b = dt_schedule(test, f, u, HOUR);
	t0 = ktime_get_ns();
	a = dt_schedule(test, f, u, DT_EARLY_NS);
	dt_cancel_early(test, f, u, a, t0);
	dwq_kunit_wait_until(test, dt_alarm_queued_after(f, 1));
	info = dt_alarm(f);
	KUNIT_EXPECT_GT(test, info.remaining_ns, HOUR / 2);
	KUNIT_EXPECT_LE(test, info.remaining_ns, HOUR);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 0);
	KUNIT_EXPECT_FALSE(test, f->f_op->poll(f, NULL) & EPOLLIN);

	/* Moved in to 1 s: the alarm (its second run) wakes the readers. */
	r = (struct dwq_ioc_reschedule){ .id = b, .time_ns = NSEC_PER_SEC };
	dt_ioc_ok(test, f, DWQ_IOC_RESCHEDULE, u, &r, sizeof(r));
	dwq_kunit_wait_until(test, atomic_read(&w->wakeups) > 0);
	KUNIT_EXPECT_EQ(test, dt_alarm(f).runs, 2ULL);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), b);

	/*
	 * Fires at 2 s for nothing, re-arms itself for 4 s, and wakes the
	 * readers only then (its fourth run).
	 */
	atomic_set(&w->wakeups, 0);
	t0 = ktime_get_ns();
	b = dt_schedule(test, f, u, 2 * DT_EARLY_NS);
	a = dt_schedule(test, f, u, DT_EARLY_NS);
	/* In time for a: then before b's deadline too. */
	dt_cancel_early(test, f, u, a, t0);
	dwq_kunit_wait_until(test, atomic_read(&w->wakeups) > 0);
	KUNIT_EXPECT_EQ(test, dt_alarm(f).runs, 4ULL);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), b);
	/* Woken from inside its run: let the run end before the next. */
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 4));

	/* Nothing queued: it fires once, for nothing, and stays idle. */
	atomic_set(&w->wakeups, 0);
	t0 = ktime_get_ns();
	a = dt_schedule(test, f, u, DT_EARLY_NS);
	dt_cancel_early(test, f, u, a, t0);
	state = dt_alarm(f).state;
	dt_still_early(test, t0);
	KUNIT_EXPECT_EQ(test, state, (u32)DWQ_STATE_QUEUED);
	dwq_kunit_wait_until(test, dt_alarm(f).runs == 5);
	dwq_kunit_wait_until(test, dt_alarm(f).state != DWQ_STATE_RUNNING);
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_EQ(test, atomic_read(&w->wakeups), 0);
}

/*
 * A CLOCK_BOOTTIME task's alarm keyed before a suspend (made so here as a
 * suspend of 30 s would: no suspend happens in a test) is late on the
 * queue's CLOCK_MONOTONIC by the time suspended. The resume keys it anew
 * (dwq_queue_resumed(), which the module calls for every queue when the
 * system resumes), and it wakes the readers when the task is due (by
 * then: within the 10 s a slow guest may take), not 30 s after. The task
 * is due 2 s on: its alarm, armed in the schedule's ioctl, must be keyed
 * late before it fires, even in a slow guest.
 */
static void dwq_dev_test_boottime_alarm_after_suspend(struct kunit *test)
{
	const u64 slept = 30 * NSEC_PER_SEC;
	struct dwq_ioc_schedule s = { .time_ns = 2000 * MS,
				      .flags = DWQ_SCHED_BOOTTIME };
	struct dwq_client *c;
	struct dwq_task *alarm;
	struct dwq_event ev;
	struct dt_waker *w;
	unsigned long addr;
	struct file *f;
	void __user *u;
	bool woken;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	w = dt_waker_add(test, f);
	c = f->private_data;
	alarm = &c->clk[DWQ_CLOCK_BOOTTIME].alarm;
	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	raw_spin_lock_irq(&c->q->lock);
	KUNIT_ASSERT_TRUE(test, dwq_heap_node_queued(&alarm->node));
	alarm->clock_offset -= slept;
	dwq_queue_kunit_rekey(c->q, alarm, alarm->node.deadline + slept);
	raw_spin_unlock_irq(&c->q->lock);
	/* Late: the task is due, and nobody was woken. */
	msleep(2200);
	KUNIT_ASSERT_EQ(test, atomic_read(&w->wakeups), 0);

	dwq_queue_resumed(c->q);
	woken = dwq_kunit_poll(atomic_read(&w->wakeups) > 0);
	KUNIT_EXPECT_TRUE_MSG(test, woken, "no wakeup %d ms after the resume",
			      TIMEOUT_MS);
	dt_read_ev(test, f, u, &ev);
	KUNIT_EXPECT_EQ(test, ev.id, s.id);
	KUNIT_EXPECT_EQ(test, ev.flags, (u32)DWQ_EVENT_LAST);
}

/*
 * A head no later than a moment known to be past is due with no clock
 * read: the deadline the alarm woke the readers for, then the moment of
 * the read that took it; on each clock its own. Such a moment is never
 * ahead of the clock (a reader would find the head due, read nothing, and
 * spin), and a head later than it is not due by it. The deadlines are a
 * second away, so that the alarm, not the schedule, finds them due.
 */
static void dwq_dev_test_passed(struct kunit *test)
{
	struct dwq_ioc_schedule s = {};
	struct dwq_event ev;
	struct dt_waker *w;
	unsigned long addr;
	struct file *f;
	void __user *u;
	loff_t pos = 0;
	u64 p, pm, t0, t1;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	w = dt_waker_add(test, f);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_passed(f, DWQ_CLOCK_MONOTONIC), 0);

	dt_schedule(test, f, u, NSEC_PER_SEC);
	dt_schedule(test, f, u, HOUR);
	dwq_kunit_wait_until(test, atomic_read(&w->wakeups) > 0);
	KUNIT_EXPECT_EQ(test, dt_alarm(f).runs, 1ULL);
	p = dwq_dev_kunit_passed(f, DWQ_CLOCK_MONOTONIC);
	KUNIT_EXPECT_LE(test, p, ktime_get_ns());
	KUNIT_EXPECT_TRUE(test, f->f_op->poll(f, NULL) & EPOLLIN);

	/* The alarm fired for the deadline the event carries. */
	t0 = ktime_get_ns();
	dt_read_ev(test, f, u, &ev);
	t1 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, p, ev.deadline_ns);

	/* Then the read's moment: past, and the hour's task not due by it. */
	p = dwq_dev_kunit_passed(f, DWQ_CLOCK_MONOTONIC);
	KUNIT_EXPECT_GE(test, p, t0);
	KUNIT_EXPECT_LE(test, p, t1);
	KUNIT_EXPECT_FALSE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	f->f_flags |= O_NONBLOCK;
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, u, sizeof(ev), &pos),
			(ssize_t)-EAGAIN);
	/* No CLOCK_BOOTTIME task: that clock was not read. */
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_passed(f, DWQ_CLOCK_BOOTTIME), 0);

	/* The same on CLOCK_BOOTTIME, whose alarm's key is converted. */
	pm = dwq_dev_kunit_passed(f, DWQ_CLOCK_MONOTONIC);
	atomic_set(&w->wakeups, 0);
	s = (struct dwq_ioc_schedule){ .time_ns = NSEC_PER_SEC,
				       .flags = DWQ_SCHED_BOOTTIME };
	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	dwq_kunit_wait_until(test, atomic_read(&w->wakeups) > 0);
	p = dwq_dev_kunit_passed(f, DWQ_CLOCK_BOOTTIME);
	KUNIT_EXPECT_LE(test, p, ktime_get_boottime_ns());
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_passed(f, DWQ_CLOCK_MONOTONIC), pm);
	t0 = ktime_get_boottime_ns();
	dt_read_ev(test, f, u, &ev);
	t1 = ktime_get_boottime_ns();
	KUNIT_EXPECT_EQ(test, ev.id, s.id);
	KUNIT_EXPECT_EQ(test, p, ev.deadline_ns);
	p = dwq_dev_kunit_passed(f, DWQ_CLOCK_BOOTTIME);
	KUNIT_EXPECT_GE(test, p, t0);
	KUNIT_EXPECT_LE(test, p, t1);
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, u, sizeof(ev), &pos),
			(ssize_t)-EAGAIN);
}

/* The alarm is armed, for a deadline between @lo and @hi ns from now. */
static bool dt_alarm_armed(struct file *f, u64 lo, u64 hi)
{
	struct dt_alarm_info info = dt_alarm(f);

	return info.state == DWQ_STATE_QUEUED && info.remaining_ns > lo &&
	       info.remaining_ns <= hi;
}

/*
 * A read() that takes the head its alarm fired for, with nobody else
 * waiting on the file, leaves the alarm unarmed and the done tasks unfreed:
 * the reader comes back for them, off the path from a deadline to its
 * event. A read() that fires nothing (the reader about to wait, or told
 * -EAGAIN) arms the alarm and frees them; a poll() arms it; with another
 * waiter on the file, the read() arms it at once. Over 64 one-shots, so
 * that the file's spares are full and done tasks go to be freed.
 */
static void dwq_dev_test_read_defers(struct kunit *test)
{
	struct dwq_event ev[2];
	unsigned long addr;
	struct file *f;
	void __user *u;
	loff_t pos = 0;
	struct dwq_ioc_schedule s;
	unsigned int i;
	u64 at, later, id;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	/* All due at one moment, however slow the guest schedules them. */
	at = ktime_get_ns() + NSEC_PER_SEC;
	for (i = 0; i < DWQ_CLIENT_SPARES + 2; i++) {
		s = (struct dwq_ioc_schedule){ .time_ns = at,
					       .flags = DWQ_SCHED_ABS };
		dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	}
	later = dt_schedule(test, f, u, HOUR);
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 1));

	/* A head due is left behind: armed for (woken) at once, tidied. */
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, u, PAGE_SIZE, &pos),
			(ssize_t)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_bin(f), 0U);
	/* The last two: the next head an hour away, left unarmed. */
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, u, PAGE_SIZE, &pos),
			(ssize_t)(2 * sizeof(ev[0])));
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_bin(f), 2U);
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);

	/* A read() that fires nothing arms it, and frees them. */
	f->f_flags |= O_NONBLOCK;
	KUNIT_EXPECT_EQ(test, f->f_op->read(f, u, sizeof(ev), &pos),
			(ssize_t)-EAGAIN);
	KUNIT_EXPECT_TRUE(test, dt_alarm_armed(f, HOUR / 2, HOUR));
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_bin(f), 0U);
	KUNIT_EXPECT_FALSE(test, f->f_op->poll(f, NULL) & EPOLLIN);

	/* So does a poll(). */
	id = dt_schedule(test, f, u, NSEC_PER_SEC);
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 2));
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_FALSE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	KUNIT_EXPECT_TRUE(test, dt_alarm_armed(f, HOUR / 2, HOUR));

	/* Another waiter: armed by the read() itself, and tidied. */
	dt_waker_add(test, f);
	id = dt_schedule(test, f, u, NSEC_PER_SEC);
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 3));
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_TRUE(test, dt_alarm_armed(f, HOUR / 2, HOUR));

	/* Nothing was lost on the way: the hour's task is still there. */
	dt_cancel(test, f, u, later);
}

/*
 * A read() that returns one one-shot's event, with nobody else waiting on
 * the file, leaves the task at its heap's root, owed, uncharged at once
 * (to the user and all files): whoever takes the file's mutex next takes
 * it out first. A cancel then finds it done (-ENOENT); a periodic task is
 * never owed (its next period is queued when read() returns); a read()
 * whose copy faults owes nothing and loses nothing; with another waiter on
 * the file the read() settles at once; a poll() that finds the mutex held
 * reads as readable and leaves the task owed; a file closed owing a task
 * gives every charge back.
 */
static void dwq_dev_test_read_owes(struct kunit *test)
{
	int all0, user0, all, user;
	struct dwq_ioc_schedule s;
	struct dwq_client *c;
	struct dwq_ioc_cancel uc;
	struct dwq_ioc_query q;
	struct dwq_event ev;
	unsigned long addr;
	struct file *f, *g;
	void __user *u;
	loff_t pos = 0;
	u64 id;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	c = f->private_data;
	dt_schedule(test, f, u, HOUR);
	dwq_dev_kunit_charged(f, &all0, &user0);
	id = dt_schedule(test, f, u, NSEC_PER_SEC);
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 1));
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), id);
	dwq_dev_kunit_charged(f, &all, &user);
	KUNIT_EXPECT_EQ(test, all, all0);
	KUNIT_EXPECT_EQ(test, user, user0);
	/* A poll() that finds the mutex held settles nothing: readable. */
	mutex_lock(&c->mutex);
	KUNIT_EXPECT_TRUE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	mutex_unlock(&c->mutex);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), id);
	uc = (struct dwq_ioc_cancel){ .id = id };
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &uc, sizeof(uc)), 0UL);
	KUNIT_EXPECT_EQ(test, ioc(f, DWQ_IOC_CANCEL, u), (long)-ENOENT);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), 0ULL);
	dwq_dev_kunit_charged(f, &all, &user);
	KUNIT_EXPECT_EQ(test, all, all0);
	KUNIT_EXPECT_EQ(test, user, user0);

	/*
	 * A periodic task: moved on by the read() itself. Its period is an
	 * hour, so that its next firing is not due at the cancel below,
	 * whose result would then be its unread event.
	 */
	s = (struct dwq_ioc_schedule){ .time_ns = NSEC_PER_SEC,
				       .period_ns = HOUR,
				       .mode = DWQ_MODE_FIXED_RATE };
	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 2));
	dt_read_ev(test, f, u, &ev);
	KUNIT_EXPECT_EQ(test, ev.id, s.id);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), 0ULL);
	q = (struct dwq_ioc_query){ .id = s.id };
	dt_ioc_ok(test, f, DWQ_IOC_QUERY, u, &q, sizeof(q));
	KUNIT_EXPECT_EQ(test, q.runs, 1ULL);
	KUNIT_EXPECT_EQ(test, q.deadline_ns, ev.deadline_ns + HOUR);
	dt_cancel(test, f, u, s.id);

	/* A copy that faults: nothing owed, the event still there. */
	id = dt_schedule(test, f, u, NSEC_PER_SEC);
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 3));
	KUNIT_EXPECT_EQ(test,
			f->f_op->read(f, (char __user *)16, sizeof(ev), &pos),
			(ssize_t)-EFAULT);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), 0ULL);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), id);

	/* Closed owing one: every charge back (kmemleak sees the task). */
	g = open_node(TEST_PATH);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	id = dt_schedule(test, g, u, NSEC_PER_SEC);
	dwq_kunit_wait_until(test, dt_alarm_ran(g, 1));
	KUNIT_EXPECT_EQ(test, dt_read_id(test, g, u), id);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(g), id);
	close_node(g);
	dwq_dev_kunit_charged(f, &all, &user);
	KUNIT_EXPECT_EQ(test, all, all0);
	KUNIT_EXPECT_EQ(test, user, user0);

	/* Another waiter: settled by the read() itself. */
	dt_waker_add(test, f);
	id = dt_schedule(test, f, u, NSEC_PER_SEC);
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 4));
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), 0ULL);
}

/*
 * A device without a queue has no alarms: a read() that leaves a task owed
 * still leaves nothing to arm once settled, and the file does not read as
 * readable (a reader would spin).
 */
static void dwq_dev_test_read_no_queue(struct kunit *test)
{
	struct dwq_dev *dev;
	unsigned long addr;
	struct file *f;
	void __user *u;
	u64 id;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0UL, "no user memory");
	u = (void __user *)addr;
	dev = dwq_dev_create(TEST_NAME, 0600, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, dev);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dt_dev_destroy, dev),
			0);
	f = open_node(TEST_PATH);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, dt_file_close, f),
			0);
	dt_schedule(test, f, u, HOUR);
	id = dt_schedule(test, f, u, NSEC_PER_MSEC);
	msleep(20);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), id);
	KUNIT_EXPECT_FALSE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, dwq_dev_kunit_owed(f), 0ULL);
}

/* Make @q refuse every schedule, as a queue being destroyed does. */
static void dt_queue_refuse(struct dwq_queue *q, bool refuse)
{
	raw_spin_lock_irq(&q->lock);
	q->stopping = refuse;
	raw_spin_unlock_irq(&q->lock);
}

/*
 * @q's only worker sleeps as a follower, untimed: nothing wakes it while
 * nothing is queued, so it does not see a refusing queue as one stopping.
 */
static bool dt_worker_asleep(struct dwq_queue *q)
{
	struct task_struct *t = q->workers[0].thread;
	bool asleep;

	raw_spin_lock_irq(&q->lock);
	asleep = !list_empty(&q->followers) && !q->leader &&
		 !task_is_running(t);
	raw_spin_unlock_irq(&q->lock);
	return asleep;
}

/* How far off dt_open_unarmable() schedules where the alarm must run. */
#define DT_UNARMABLE_NS (500 * NSEC_PER_MSEC)

/*
 * A file of a queue that refuses every schedule (as one being destroyed
 * does), its only worker asleep with nothing to wake it, so that it does
 * not take the queue for one stopping: a one-shot due in @delay_ns
 * scheduled on it, whose alarm could not be armed. Its id in *@id, the
 * user memory for the ioctls' arguments in *@u; the queue in *@q, to let
 * it take schedules again.
 */

static struct file *dt_open_unarmable(struct kunit *test, void __user **u,
				      struct dwq_queue **q, u64 *id,
				      u64 delay_ns)
{
	struct dwq_client *c;
	unsigned long addr;
	struct file *f;

	f = dt_open(test, PAGE_SIZE, &addr);
	*u = (void __user *)addr;
	c = f->private_data;
	*q = c->q;
	dwq_kunit_wait_until(test, dt_worker_asleep(*q));
	dt_queue_refuse(*q, true);
	*id = dt_schedule(test, f, *u, delay_ns);
	return f;
}

/*
 * @ev is what a poll() of @f returned just after its alarm was to be armed
 * for the task dt_open_unarmable() scheduled: the alarm is queued, the file
 * not readable before the deadline, or it ran already. True then. On a
 * guest slow enough to reach the deadline first, none was armed: the task
 * was due, and the file readable; false then, as no alarm will run.
 */
static bool dt_expect_armed(struct kunit *test, struct file *f, __poll_t ev)
{
	struct dwq_client *c = f->private_data;
	struct dt_alarm_info info = dt_alarm(f);
	u64 next = READ_ONCE(c->clk[DWQ_CLOCK_MONOTONIC].next);

	if (info.state != DWQ_STATE_QUEUED && !info.runs) {
		KUNIT_EXPECT_TRUE(test, ev & EPOLLIN);
		KUNIT_EXPECT_GE_MSG(test, (u64)ktime_get_ns(), next,
				    "alarm state %u, not armed before the deadline",
				    info.state);
		return false;
	}
	if (info.state == DWQ_STATE_QUEUED && !info.runs &&
	    ktime_get_ns() < info.deadline_ns)
		KUNIT_EXPECT_FALSE(test, ev & EPOLLIN);
	return true;
}

/*
 * A read() of @f into @u returned @n where dt_open_unarmable() scheduled
 * task @id: true if that was @id's event, delivered once its deadline had
 * passed (a guest slow enough to reach the deadline first). An event that
 * came early, or another task's, fails the test.
 */
static bool dt_read_late(struct kunit *test, void __user *u, ssize_t n, u64 id)
{
	struct dwq_event ev;

	if (n != sizeof(ev))
		return false;
	KUNIT_ASSERT_EQ(test, copy_from_user(&ev, u, sizeof(ev)), 0UL);
	KUNIT_EXPECT_EQ(test, ev.id, id);
	KUNIT_EXPECT_GE(test, ev.fired_ns, ev.deadline_ns);
	KUNIT_EXPECT_GE(test, (u64)ktime_get_ns(), ev.deadline_ns);
	return true;
}

/*
 * A file whose alarm cannot be armed (its queue refuses, for the moment
 * of one schedule) reads as readable at once, so that a reader comes and
 * arms it; it does not wait for a deadline no alarm is armed for. A
 * poll() while the queue still refuses tries and leaves it so. Once the
 * queue takes schedules again, the read that finds nothing due arms it,
 * and the task's event comes.
 */
static void dwq_dev_test_arm_fails_readable(struct kunit *test)
{
	struct dwq_queue *q;
	struct file *f;
	void __user *u;
	loff_t pos = 0;
	ssize_t n;
	u64 id;

	f = dt_open_unarmable(test, &u, &q, &id, DT_UNARMABLE_NS);
	f->f_flags |= O_NONBLOCK;
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);
	KUNIT_EXPECT_TRUE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);
	dt_queue_refuse(q, false);

	n = f->f_op->read(f, u, sizeof(struct dwq_event), &pos);
	if (dt_read_late(test, u, n, id))
		dwq_kunit_skip(test,
			       "the guest took the 500 ms to the deadline to read");
	KUNIT_EXPECT_EQ(test, n, -EAGAIN);
	/* Armed by the read(). */
	if (!dt_expect_armed(test, f, f->f_op->poll(f, NULL)))
		dwq_kunit_skip(test,
			       "the guest took the 500 ms to the deadline to arm");
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 1));
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
}

/*
 * As dwq_dev_test_arm_fails_readable(), but nobody reads: a poll() once
 * the queue takes schedules again arms the alarm (the file is not
 * readable then, unless the 500 ms to the deadline have passed already),
 * and the alarm wakes the poller when the task comes due.
 */
static void dwq_dev_test_arm_fails_poll_arms(struct kunit *test)
{
	struct dwq_queue *q;
	struct file *f;
	void __user *u;
	u64 id;

	f = dt_open_unarmable(test, &u, &q, &id, DT_UNARMABLE_NS);
	f->f_flags |= O_NONBLOCK;
	dt_queue_refuse(q, false);
	KUNIT_EXPECT_NE(test, dt_alarm(f).state, (u32)DWQ_STATE_QUEUED);
	/* Armed by the poll(). */
	if (!dt_expect_armed(test, f, f->f_op->poll(f, NULL)))
		dwq_kunit_skip(test,
			       "the guest took the 500 ms to the deadline to arm");
	dwq_kunit_wait_until(test, dt_alarm_ran(f, 1));
	KUNIT_EXPECT_TRUE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
}

/*
 * While the alarm still cannot be armed (the queue refuses for as long as
 * this test wants), a blocking read() goes round finding the clock lost
 * and nothing due; a signal ends it (-ERESTARTSYS), as any wait for an
 * event ends.
 */
static void dwq_dev_test_arm_fails_killable(struct kunit *test)
{
	struct dwq_queue *q;
	struct file *f;
	void __user *u;
	loff_t pos = 0;
	ssize_t n;
	u64 id;

	/* Far off: the read must not find it due, however slow the guest. */
	f = dt_open_unarmable(test, &u, &q, &id, 3600 * NSEC_PER_SEC);
	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	n = f->f_op->read(f, u, sizeof(struct dwq_event), &pos);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	dt_queue_refuse(q, false);
	KUNIT_EXPECT_EQ(test, n, -ERESTARTSYS);
}

/*
 * Holds a file's mutex from another thread until told to let it go, or
 * for @hold_ms if that is not 0.
 */
struct dt_holder {
	struct mutex *mutex; /* the file's, held by dt_holder_fn() */
	unsigned int hold_ms;
	struct completion held;
	struct completion release;
	u64 let_go_ns; /* when it let go of the mutex; read after dt_unhold() */
};

static int dt_holder_fn(void *arg)
{
	struct dt_holder *h = arg;

	mutex_lock(h->mutex);
	complete(&h->held);
	if (h->hold_ms)
		msleep(h->hold_ms);
	else
		wait_for_completion(&h->release);
	h->let_go_ns = ktime_get_ns();
	mutex_unlock(h->mutex);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

/*
 * Another thread takes @f's mutex and holds it for @hold_ms, or until
 * dt_unhold() if 0; returned with the mutex held.
 */
static struct task_struct *dt_hold(struct kunit *test, struct file *f,
				   unsigned int hold_ms, struct dt_holder **hp)
{
	struct dwq_client *c = f->private_data;
	struct task_struct *thread;
	struct dt_holder *h;

	h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, h);
	h->mutex = &c->mutex;
	h->hold_ms = hold_ms;
	init_completion(&h->held);
	init_completion(&h->release);
	thread = kthread_run(dt_holder_fn, h, "dwq-kunit-hold");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, thread);
	wait_for_completion(&h->held);
	*hp = h;
	return thread;
}

/* Let dt_hold()'s thread go, once it has let go of the mutex. */
static void dt_unhold(struct task_struct *thread, struct dt_holder *h)
{
	complete(&h->release);
	kthread_stop(thread);
}

/*
 * An io_uring command on a file whose mutex another call holds, issued
 * with a signal pending for its thread: @fatal SIGKILL, else SIGUSR1 and
 * the notification io_uring's task_work leaves (TIF_NOTIFY_SIGNAL) while
 * the holder lets go after 200 ms. Returns the command's result, and in
 * *@waited whether it returned after the holder let go of the mutex.
 */
static int dt_uring_cmd_held(struct kunit *test, struct file *f,
			     struct io_uring_cmd *ioucmd, bool fatal,
			     bool *waited)
{
	struct task_struct *thread;
	struct dt_holder *h;
	u64 end;
	int ret;

	thread = dt_hold(test, f, fatal ? 0 : 200, &h);
	allow_signal(fatal ? SIGKILL : SIGUSR1);
	send_sig(fatal ? SIGKILL : SIGUSR1, current, 0);
	/* As set_notify_signal(), which wakes a task: this one runs. */
	if (!fatal)
		set_tsk_thread_flag(current, TIF_NOTIFY_SIGNAL);
	ret = dwq_dev_uring_cmd(ioucmd, IO_URING_F_NONBLOCK);
	end = ktime_get_ns();
	clear_notify_signal();
	flush_signals(current);
	disallow_signal(fatal ? SIGKILL : SIGUSR1);
	dt_unhold(thread, h);
	*waited = end >= h->let_go_ns;
	return ret;
}

/*
 * A read() of one event on @f, whose mutex another call holds, with the
 * notification io_uring's task_work leaves (TIF_NOTIFY_SIGNAL) pending
 * for its thread, and with @signal SIGUSR1 too; without it the holder
 * lets go after 200 ms. Returns the read's result, and in *@waited
 * whether it returned after the holder let go of the mutex.
 */
static ssize_t dt_read_held(struct kunit *test, struct file *f, void __user *u,
			    bool signal, bool *waited)
{
	struct task_struct *thread;
	struct dt_holder *h;
	loff_t pos = 0;
	ssize_t n;
	u64 end;

	thread = dt_hold(test, f, signal ? 0 : 200, &h);
	if (signal) {
		allow_signal(SIGUSR1);
		send_sig(SIGUSR1, current, 0);
	}
	set_tsk_thread_flag(current, TIF_NOTIFY_SIGNAL);
	n = f->f_op->read(f, u, sizeof(struct dwq_event), &pos);
	end = ktime_get_ns();
	clear_notify_signal();
	if (signal) {
		flush_signals(current);
		disallow_signal(SIGUSR1);
	}
	dt_unhold(thread, h);
	*waited = end >= h->let_go_ns;
	return n;
}

/*
 * io_uring reads a file opened O_NONBLOCK where the read is submitted, in
 * the submitter or the SQPOLL thread, whose pending task_work notification
 * (TIF_NOTIFY_SIGNAL) is a signal_pending() that nobody sent. A read()
 * waiting there for the file's mutex, another call holding it, waits on
 * through that notification and returns the event when the holder lets
 * go: it would otherwise end with -EINTR in the CQE, an error no signal
 * explains. A signal sent still ends the wait (-ERESTARTSYS) and leaves
 * the event for the next read.
 */
static void dwq_dev_test_read_notify_waits(struct kunit *test)
{
	struct dwq_event ev;
	unsigned long addr;
	struct file *f;
	void __user *u;
	bool waited;
	u64 id;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	f->f_flags |= O_NONBLOCK;
	id = dt_schedule(test, f, u, 0);

	KUNIT_EXPECT_EQ(test, dt_read_held(test, f, u, true, &waited),
			(ssize_t)-ERESTARTSYS);
	KUNIT_EXPECT_FALSE(test, waited);
	KUNIT_EXPECT_EQ(test, dt_read_held(test, f, u, false, &waited),
			(ssize_t)sizeof(ev));
	KUNIT_EXPECT_TRUE(test, waited);
	KUNIT_ASSERT_EQ(test, copy_from_user(&ev, u, sizeof(ev)), 0UL);
	KUNIT_EXPECT_EQ(test, ev.id, id);
}

/*
 * An io_uring command waiting for the file's mutex (another call holding
 * it) waits killably: a signal that is not fatal, or the notification
 * io_uring's own task_work leaves its thread, does not end the wait (it
 * would end an interruptible one at once), and the command schedules
 * when the holder lets go. A fatal signal ends it with -EINTR, having
 * done nothing: not -ERESTARTSYS, which only a system call can restart
 * and no program knows.
 */
static void dwq_dev_test_uring_interrupted(struct kunit *test)
{
	struct dwq_ioc_schedule s = { .time_ns = HOUR };
	struct io_uring_cmd ioucmd = { .cmd_op = DWQ_IOC_SCHEDULE };
	struct dwq_uring_cmd cmd = {};
	struct io_uring_sqe *sqe;
	struct dwq_client *c;
	unsigned long addr;
	struct file *f;
	void __user *u;
	bool waited;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	c = f->private_data;
	KUNIT_ASSERT_EQ(test, copy_to_user(u, &s, sizeof(s)), 0UL);
	sqe = kunit_kzalloc(test, 2 * sizeof(*sqe), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sqe);
	cmd.arg = (u64)(uintptr_t)u;
	memcpy(sqe->cmd, &cmd, sizeof(cmd));
	ioucmd.file = f;
#if defined(DWQ_HAVE_IO_URING_SQE_CMD) || \
	defined(DWQ_HAVE_IO_URING_SQE_CMD_TYPED)
	ioucmd.sqe = sqe;
#else
	ioucmd.cmd = sqe->cmd;
#endif

	KUNIT_EXPECT_EQ(test,
			dt_uring_cmd_held(test, f, &ioucmd, true, &waited),
			-EINTR);
	KUNIT_EXPECT_FALSE(test, waited);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->nr_tasks), 0);

	KUNIT_EXPECT_EQ(test,
			dt_uring_cmd_held(test, f, &ioucmd, false, &waited), 0);
	KUNIT_EXPECT_TRUE(test, waited);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->nr_tasks), 1);
}

/*
 * A reader draining a backlog: the reads that leave tasks due keep the
 * heap's room and the id map's buckets, and the read that leaves none
 * due gives both back at once, down to room for DWQ_CLIENT_SPARES
 * tasks. 600 one-shots due at once, read 64 at a time, each id once and
 * in the order scheduled.
 */
static void dwq_dev_test_drain_shrinks_once(struct kunit *test)
{
	const unsigned int n = 600, per_read = 64;
	struct dwq_ioc_schedule_batch sb = { .count = n };
	struct dwq_ioc_schedule s = { .cookie = 1 };
	unsigned int i, got = 0, slots, spares, nr, buckets, full_slots;
	unsigned int run, heap, ring;
	struct dwq_ioc_schedule __user *us;
	struct dwq_event __user *ue;
	unsigned int full_buckets;
	struct dwq_event ev;
	unsigned long addr;
	char __user *buf;
	struct file *f;
	loff_t pos = 0;
	ssize_t len;
	u64 *ids;

	ids = kunit_kcalloc(test, n, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	f = dt_open(test, 12 * PAGE_SIZE, &addr);
	buf = (char __user *)addr;
	ue = (struct dwq_event __user *)(addr + PAGE_SIZE);
	us = (struct dwq_ioc_schedule __user *)(addr + 2 * PAGE_SIZE);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, copy_to_user(us + i, &s, sizeof(s)), 0UL);
	sb.entries = (u64)(uintptr_t)us;
	KUNIT_ASSERT_EQ(test, copy_to_user(buf, &sb, sizeof(sb)), 0UL);
	KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE_BATCH, buf), 0L);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, get_user(ids[i], &us[i].id), 0);
	dwq_dev_kunit_spares(f, &spares, &full_slots);
	dwq_dev_kunit_ids(f, &nr, &full_buckets);
	KUNIT_ASSERT_EQ(test, nr, n);
	KUNIT_ASSERT_GE(test, full_slots, n);
	KUNIT_ASSERT_GE(test, 2 * full_buckets, n);

	while (got < n) {
		len = f->f_op->read(f, (char __user *)ue, per_read * sizeof(ev),
				    &pos);
		KUNIT_ASSERT_EQ(test, len,
				(ssize_t)(min(per_read, n - got) * sizeof(ev)));
		for (i = 0; i < len / sizeof(ev); i++) {
			KUNIT_ASSERT_EQ(test,
					copy_from_user(&ev, ue + i, sizeof(ev)),
					0UL);
			KUNIT_EXPECT_EQ(test, ev.id, ids[got + i]);
		}
		got += len / sizeof(ev);
		dwq_dev_kunit_spares(f, &spares, &slots);
		dwq_dev_kunit_ids(f, &nr, &buckets);
		KUNIT_EXPECT_EQ(test, nr, n - got);
		if (got < n) {
			KUNIT_EXPECT_EQ(test, slots, full_slots);
			KUNIT_EXPECT_EQ(test, buckets, full_buckets);
		}
	}
	/* Room for a batch of DWQ_CLIENT_SPARES left, in the run's ring too. */
	dwq_dev_kunit_run(f, &run, &heap, &ring);
	KUNIT_EXPECT_EQ(test, run + heap, 0U);
	KUNIT_EXPECT_EQ(test, ring, DWQ_CLIENT_SPARES);
	KUNIT_EXPECT_EQ(test, slots, DWQ_CLIENT_SPARES);
	KUNIT_EXPECT_EQ(test, buckets, DWQ_CLIENT_SPARES / 2U);
	KUNIT_EXPECT_EQ(test, spares, DWQ_CLIENT_SPARES);
	f->f_flags |= O_NONBLOCK;
	len = f->f_op->read(f, (char __user *)ue, sizeof(ev), &pos);
	KUNIT_EXPECT_EQ(test, len, (ssize_t)-EAGAIN);
}

/*
 * A moment of both clocks is one instant: CLOCK_BOOTTIME's time is
 * CLOCK_MONOTONIC's plus the kernel's offset between them, exactly, so
 * that the events of both clocks are ordered with nothing in between.
 * Two reads, one after the other, are apart by the time between them,
 * and by as long as the reader was preempted there.
 */
static void dwq_dev_test_now_one_instant(struct kunit *test)
{
	u64 mono, boot, offset;
	int i;

	for (i = 0; i < 100; i++) {
		dwq_dev_kunit_now(&mono, &boot);
		offset = ktime_to_ns(ktime_mono_to_any(0, TK_OFFS_BOOT));
		KUNIT_ASSERT_EQ(test, boot - mono, offset);
	}
}

/* Schedule a one-shot due at @at (CLOCK_MONOTONIC) on @f; its id. */
static u64 dt_schedule_at(struct kunit *test, struct file *f, void __user *u,
			  u64 at)
{
	struct dwq_ioc_schedule s = { .time_ns = at, .flags = DWQ_SCHED_ABS };

	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	return s.id;
}

static void dt_move_to(struct kunit *test, struct file *f, void __user *u,
		       u64 id, u64 at)
{
	struct dwq_ioc_reschedule r = {
		.id = id,
		.time_ns = at,
		.flags = DWQ_SCHED_ABS,
	};

	dt_ioc_ok(test, f, DWQ_IOC_RESCHEDULE, u, &r, sizeof(r));
}

/* read() all @n events at once from @f, due now: ids @want, in order. */
static void dt_read_ids(struct kunit *test, struct file *f, void __user *u,
			const u64 *want, unsigned int n)
{
	struct dwq_event ev[16];
	loff_t pos = 0;
	unsigned int i;

	KUNIT_ASSERT_LE(test, n, ARRAY_SIZE(ev));
	KUNIT_ASSERT_EQ(test, f->f_op->read(f, u, sizeof(ev), &pos),
			(ssize_t)(n * sizeof(*ev)));
	KUNIT_ASSERT_EQ(test, copy_from_user(ev, u, n * sizeof(*ev)), 0UL);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ev[i].id, want[i], "event %u", i);
}

static void dt_expect_run(struct kunit *test, struct file *f, unsigned int run,
			  unsigned int heap)
{
	unsigned int r, h, ring;

	dwq_dev_kunit_run(f, &r, &h, &ring);
	KUNIT_EXPECT_EQ(test, r, run);
	KUNIT_EXPECT_EQ(test, h, heap);
}

/*
 * A file's tasks go to its run while they come in deadline order, else to
 * its heap; a cancel leaves a hole in the run, a move goes to the run's
 * end if it fits there (from the heap too), else to the heap; a tie with
 * the run's last goes after it. read() returns them all in (deadline,
 * order of scheduling or moving). All due 2 s on: none is due while they
 * move (a cancel of one due would keep its event).
 */
static void dwq_dev_test_run_and_heap(struct kunit *test)
{
	u64 a[6], b, c, mono, boot, base, want[7];
	unsigned long addr;
	struct file *f;
	void __user *u;
	unsigned int i;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	dwq_dev_kunit_now(&mono, &boot);
	base = mono + 2 * NSEC_PER_SEC;
	for (i = 0; i < 6; i++)
		a[i] = dt_schedule_at(test, f, u, base + 10 * (i + 1));
	dt_expect_run(test, f, 6, 0);
	b = dt_schedule_at(test, f, u, base + 25);
	dt_expect_run(test, f, 6, 1);
	dt_cancel(test, f, u, a[2]);
	dt_expect_run(test, f, 5, 1);
	/* A run task to the end, one to before the last: the heap. */
	dt_move_to(test, f, u, a[1], base + 70);
	dt_expect_run(test, f, 5, 1);
	dt_move_to(test, f, u, a[4], base + 15);
	dt_expect_run(test, f, 4, 2);
	/* A heap task to the end; then a tie with it goes after it. */
	dt_move_to(test, f, u, b, base + 80);
	dt_expect_run(test, f, 5, 1);
	c = dt_schedule_at(test, f, u, base + 80);
	dt_expect_run(test, f, 6, 1);
	dwq_dev_kunit_now(&mono, &boot);
	if (mono >= base)
		dwq_kunit_skip(test, "the guest took over 2 s for 13 ioctls");
	dwq_kunit_wait_until(test, ktime_get_ns() > base + 100);

	want[0] = a[0];
	want[1] = a[4];
	want[2] = a[3];
	want[3] = a[5];
	want[4] = a[1];
	want[5] = b;
	want[6] = c;
	dt_read_ids(test, f, u, want, 7);
	dt_expect_run(test, f, 0, 0);
}

static struct dwq_heap_node **dt_no_ring(unsigned int n)
{
	return NULL;
}

/*
 * Without the memory for a run's ring (a KUnit static stub: failslab
 * spares allocations that may sleep unless told otherwise through
 * debugfs, which a test cannot write), tasks that come in order go to the
 * heap, nothing fails; once the ring can be had, the next ones go to the
 * run, and all leave in order.
 */
static void dwq_dev_test_run_no_ring(struct kunit *test)
{
	u64 ids[6], mono, boot, base;
	unsigned long addr;
	struct file *f;
	void __user *u;
	unsigned int i;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	dwq_dev_kunit_now(&mono, &boot);
	base = mono - NSEC_PER_SEC;
	kunit_activate_static_stub(test, dwq_ring_alloc, dt_no_ring);
	for (i = 0; i < 3; i++)
		ids[i] = dt_schedule_at(test, f, u, base + i);
	kunit_deactivate_static_stub(test, dwq_ring_alloc);
	dt_expect_run(test, f, 0, 3);
	for (; i < 6; i++)
		ids[i] = dt_schedule_at(test, f, u, base + i);
	dt_expect_run(test, f, 3, 3);
	dt_read_ids(test, f, u, ids, 6);
	dt_expect_run(test, f, 0, 0);
}

/* Schedule a task due at @at (CLOCK_MONOTONIC) in @mode, @period. */
static u64 dt_schedule_mode_at(struct kunit *test, struct file *f,
			       void __user *u, u64 at, u32 mode, u64 period)
{
	struct dwq_ioc_schedule s = {
		.time_ns = at,
		.flags = DWQ_SCHED_ABS,
		.mode = mode,
		.period_ns = period,
	};

	dt_ioc_ok(test, f, DWQ_IOC_SCHEDULE, u, &s, sizeof(s));
	return s.id;
}

/* Move task @id to @at in @mode, @period (DWQ_RESCHED_PERIOD). */
static void dt_remode(struct kunit *test, struct file *f, void __user *u,
		      u64 id, u64 at, u32 mode, u64 period)
{
	struct dwq_ioc_reschedule r = {
		.id = id,
		.time_ns = at,
		.flags = DWQ_SCHED_ABS | DWQ_RESCHED_PERIOD,
		.mode = mode,
		.period_ns = period,
	};

	dt_ioc_ok(test, f, DWQ_IOC_RESCHEDULE, u, &r, sizeof(r));
}

/*
 * The run's periodic tasks, counted as the heap's room goes by them, are
 * those in its ring, and the heap has room for them and its own tasks.
 * Return the heap's capacity.
 */
static unsigned int dt_expect_room(struct kunit *test, struct file *f,
				   unsigned int periodic, const char *after)
{
	unsigned int counted, found, held, cap;

	dwq_dev_kunit_room(f, DWQ_CLOCK_MONOTONIC, &counted, &found, &held,
			   &cap);
	KUNIT_EXPECT_EQ_MSG(test, found, periodic, "after %s", after);
	KUNIT_EXPECT_EQ_MSG(test, counted, found, "after %s", after);
	KUNIT_EXPECT_LE_MSG(test, held, cap, "after %s", after);
	return cap;
}

/*
 * The heap keeps room for the run's periodic tasks, not its one-shots:
 * timeouts armed in deadline order take a slot of the ring each and none
 * of the heap. The count of the run's periodic tasks follows every way in
 * and out of the run: a schedule, a move to the heap or the run's end
 * with a change of mode either way, a cancel, and read() firing them and
 * putting them back, at the run's end or in the heap.
 */
static void dwq_dev_test_run_heap_room(struct kunit *test)
{
	const u32 rate = DWQ_MODE_FIXED_RATE, one = DWQ_MODE_ONESHOT;
	u64 per[10], last[10], mono, boot, base, soon;
	unsigned int i, j, run, heap, ring;
	unsigned long addr;
	struct file *f;
	void __user *u;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	dwq_dev_kunit_now(&mono, &boot);
	base = mono + HOUR;
	for (i = 0; i < 200; i++)
		dt_schedule_at(test, f, u, base + i);
	dt_expect_run(test, f, 200, 0);
	KUNIT_EXPECT_LE(test, dt_expect_room(test, f, 0, "200 one-shots"),
			(unsigned int)DWQ_CLIENT_SPARES);
	for (i = 0; i < 10; i++)
		per[i] = dt_schedule_mode_at(test, f, u, base + 1000 + i, rate,
					     HOUR);
	dt_expect_run(test, f, 210, 0);
	KUNIT_EXPECT_GE(test, dt_expect_room(test, f, 10, "10 periodic"), 10U);
	/* A periodic task of the run to the heap. */
	dt_move_to(test, f, u, per[0], base + 500);
	dt_expect_run(test, f, 209, 1);
	dt_expect_room(test, f, 9, "a periodic task moved to the heap");
	/* A one-shot of the run made periodic, at its end; and back. */
	last[0] = dt_schedule_at(test, f, u, base + 2000);
	dt_remode(test, f, u, last[0], base + 3000, rate, HOUR);
	dt_expect_room(test, f, 10, "a one-shot made periodic");
	dt_remode(test, f, u, last[0], base + 4000, one, 0);
	dt_expect_room(test, f, 9, "a periodic task made a one-shot");
	/* A periodic task of the run made a one-shot in the heap. */
	dt_remode(test, f, u, per[1], base + 600, one, 0);
	dt_expect_run(test, f, 209, 2);
	dt_expect_room(test, f, 8, "a periodic one-shot to the heap");
	/* A one-shot of the heap made periodic at the run's end. */
	dt_remode(test, f, u, per[1], base + 5000, rate, HOUR);
	dt_expect_run(test, f, 210, 1);
	dt_expect_room(test, f, 9, "a one-shot of the heap made periodic");
	dt_cancel(test, f, u, per[2]);
	dt_expect_room(test, f, 8, "a periodic task cancelled");

	/*
	 * Fired by read(): periodic tasks in order, due in a moment, with a
	 * one-shot after them. Each comes back a period on, after that
	 * one-shot (at the run's end) on the first file, before it (in the
	 * heap) on the second.
	 */
	for (i = 0; i < 2; i++) {
		/* Another file of the device. */
		f = open_node(TEST_PATH);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test, dt_file_close,
							  f),
				0);
		dwq_dev_kunit_now(&mono, &boot);
		soon = mono + 20 * MS;
		for (j = 0; j < 10; j++)
			last[j] = dt_schedule_mode_at(test, f, u, soon + j,
						      rate, HOUR);
		dt_schedule_at(test, f, u, mono + (i ? 2 * HOUR : HOUR / 2));
		dt_expect_run(test, f, 11, 0);
		dt_expect_room(test, f, 10, "10 periodic tasks, due soon");
		dwq_kunit_wait_until(test, ktime_get_ns() > soon + 10);
		dt_read_ids(test, f, u, last, 10);
		dwq_dev_kunit_run(f, &run, &heap, &ring);
		KUNIT_EXPECT_EQ(test, run, i ? 1U : 11U);
		KUNIT_EXPECT_EQ(test, heap, i ? 10U : 0U);
		dt_expect_room(test, f, i ? 0 : 10, "read() fired them");
	}
}

/*
 * A batch of DWQ_CLIENT_SPARES timeouts armed and disarmed over and over
 * allocates nothing: once the first has grown the file's arrays, the
 * cancel that empties them leaves them as they are (so the next schedule
 * needs no more room), and the tasks come from the spares.
 */
static void dwq_dev_test_batch_keeps_room(struct kunit *test)
{
	const unsigned int n = DWQ_CLIENT_SPARES;
	struct dwq_ioc_schedule s = { .time_ns = HOUR };
	struct dwq_ioc_schedule_batch sb = { .count = n };
	struct dwq_ioc_cancel_batch cb = { .count = n };
	unsigned int i, r, spares, slots, nr, buckets, run, heap, ring;
	unsigned int full_slots = 0, full_buckets = 0, full_ring = 0;
	struct dwq_ioc_schedule __user *us;
	struct dwq_ioc_cancel __user *uc;
	struct dwq_ioc_cancel c = {};
	unsigned long addr;
	char __user *buf;
	struct file *f;
	u64 id;

	f = dt_open(test, 4 * PAGE_SIZE, &addr);
	buf = (char __user *)addr;
	us = (struct dwq_ioc_schedule __user *)(addr + PAGE_SIZE);
	uc = (struct dwq_ioc_cancel __user *)(addr + 3 * PAGE_SIZE);
	sb.entries = (u64)(uintptr_t)us;
	cb.entries = (u64)(uintptr_t)uc;
	for (r = 0; r < 4; r++) {
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test,
					copy_to_user(us + i, &s, sizeof(s)),
					0UL);
		KUNIT_ASSERT_EQ(test, copy_to_user(buf, &sb, sizeof(sb)), 0UL);
		KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_SCHEDULE_BATCH, buf), 0L);
		dwq_dev_kunit_spares(f, &spares, &slots);
		dwq_dev_kunit_ids(f, &nr, &buckets);
		dwq_dev_kunit_run(f, &run, &heap, &ring);
		/* One delay for all: they came in order, to the run. */
		KUNIT_EXPECT_EQ(test, run, n);
		KUNIT_EXPECT_EQ(test, spares, 0U);
		if (!r) {
			full_slots = slots;
			full_buckets = buckets;
			full_ring = ring;
		}
		for (i = 0; i < n; i++) {
			KUNIT_ASSERT_EQ(test, get_user(id, &us[i].id), 0);
			c = (struct dwq_ioc_cancel){ .id = id };
			KUNIT_ASSERT_EQ(test,
					copy_to_user(uc + i, &c, sizeof(c)),
					0UL);
		}
		KUNIT_ASSERT_EQ(test, copy_to_user(buf, &cb, sizeof(cb)), 0UL);
		KUNIT_ASSERT_EQ(test, ioc(f, DWQ_IOC_CANCEL_BATCH, buf), 0L);
		/* Emptied, and every array as the first batch left it. */
		dwq_dev_kunit_spares(f, &spares, &slots);
		dwq_dev_kunit_ids(f, &nr, &buckets);
		dwq_dev_kunit_run(f, &run, &heap, &ring);
		KUNIT_EXPECT_EQ(test, nr, 0U);
		KUNIT_EXPECT_EQ(test, run + heap, 0U);
		KUNIT_EXPECT_EQ(test, spares, n);
		KUNIT_EXPECT_EQ(test, slots, full_slots);
		KUNIT_EXPECT_EQ(test, buckets, full_buckets);
		KUNIT_EXPECT_EQ(test, ring, full_ring);
	}
	KUNIT_EXPECT_GE(test, full_slots, n);
	KUNIT_EXPECT_GE(test, 2 * full_buckets, n);
	KUNIT_EXPECT_GE(test, full_ring, n);
}

/*
 * A schedule tests whether its task is due at once against the moment its
 * checks read, before it waited for the file's mutex. A task that came due
 * meanwhile, and becomes the head at a deadline no later than the moment
 * the readers were last woken for a due head (after which they read
 * everything and slept), wakes them all the same: no alarm is armed for a
 * head already due.
 */
static void dwq_dev_test_schedule_stale_moment(struct kunit *test)
{
	u64 mono, boot, past, id, t;
	struct dt_waker *w;
	unsigned long addr;
	struct file *f;
	void __user *u;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	w = dt_waker_add(test, f);
	dwq_dev_kunit_now(&mono, &boot);
	past = mono - MS;
	/* Due at once: the readers are woken for it, then read it. */
	id = dt_schedule_at(test, f, u, past);
	KUNIT_EXPECT_GT(test, atomic_read(&w->wakeups), 0);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), id);
	KUNIT_EXPECT_FALSE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	atomic_set(&w->wakeups, 0);
	/* Its checks read the clock before @past; it is due by now. */
	KUNIT_ASSERT_EQ(test, dwq_dev_kunit_schedule_at(f, past, past - 1, &t),
			0);
	KUNIT_EXPECT_TRUE(test, f->f_op->poll(f, NULL) & EPOLLIN);
	KUNIT_EXPECT_GT(test, atomic_read(&w->wakeups), 0);
	KUNIT_EXPECT_EQ(test, dt_read_id(test, f, u), t);
}

/*
 * A run's full ring whose holes are half of it or more is compacted for
 * the next task that comes in order, not grown: 16 tasks fill the first
 * ring, 8 cancelled from its middle leave holes, and the 17th goes to the
 * run with the ring as it was; all leave in order.
 */
static void dwq_dev_test_run_compacts(struct kunit *test)
{
	unsigned int i, run, heap, ring, full;
	u64 ids[17], mono, boot, base, want[9];
	unsigned long addr;
	struct file *f;
	void __user *u;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	dwq_dev_kunit_now(&mono, &boot);
	base = mono + HOUR;
	for (i = 0; i < 16; i++)
		ids[i] = dt_schedule_at(test, f, u, base + i);
	dwq_dev_kunit_run(f, &run, &heap, &full);
	KUNIT_ASSERT_EQ(test, run, 16U);
	KUNIT_ASSERT_EQ(test, full, 16U);
	for (i = 4; i < 12; i++)
		dt_cancel(test, f, u, ids[i]);
	ids[16] = dt_schedule_at(test, f, u, base + 16);
	dwq_dev_kunit_run(f, &run, &heap, &ring);
	KUNIT_EXPECT_EQ(test, run, 9U);
	KUNIT_EXPECT_EQ(test, heap, 0U);
	KUNIT_EXPECT_EQ(test, ring, full);
	/* Due now, in order: the first 4, the last 4 and the 17th. */
	for (i = 0; i < 17; i++) {
		if (i < 4 || i >= 12)
			dt_move_to(test, f, u, ids[i], mono - MS + i);
	}
	for (i = 0; i < 4; i++)
		want[i] = ids[i];
	for (i = 12; i < 17; i++)
		want[i - 8] = ids[i];
	dt_read_ids(test, f, u, want, 9);
}

/*
 * A run's ring that cannot be had smaller stays as it is, its tasks
 * intact: 100 tasks in order grow it to 128 slots; cancelled with every
 * ring allocation failing, it keeps them; the next cancel that can have
 * the memory shrinks it to room for DWQ_CLIENT_SPARES.
 */
static void dwq_dev_test_run_shrink_fails(struct kunit *test)
{
	unsigned int i, run, heap, ring;
	u64 ids[100], mono, boot, id;
	unsigned long addr;
	struct file *f;
	void __user *u;

	f = dt_open(test, PAGE_SIZE, &addr);
	u = (void __user *)addr;
	dwq_dev_kunit_now(&mono, &boot);
	for (i = 0; i < ARRAY_SIZE(ids); i++)
		ids[i] = dt_schedule_at(test, f, u, mono + HOUR + i);
	dwq_dev_kunit_run(f, &run, &heap, &ring);
	KUNIT_ASSERT_EQ(test, run, 100U);
	KUNIT_ASSERT_EQ(test, ring, 128U);
	kunit_activate_static_stub(test, dwq_ring_alloc, dt_no_ring);
	for (i = 0; i < ARRAY_SIZE(ids) - 1; i++)
		dt_cancel(test, f, u, ids[i]);
	kunit_deactivate_static_stub(test, dwq_ring_alloc);
	dwq_dev_kunit_run(f, &run, &heap, &ring);
	KUNIT_EXPECT_EQ(test, run, 1U);
	KUNIT_EXPECT_EQ(test, ring, 128U);
	id = dt_schedule_at(test, f, u, mono + 2 * HOUR);
	dt_cancel(test, f, u, id);
	dwq_dev_kunit_run(f, &run, &heap, &ring);
	KUNIT_EXPECT_EQ(test, run, 1U);
	KUNIT_EXPECT_EQ(test, ring, DWQ_CLIENT_SPARES);
	dt_cancel(test, f, u, ids[ARRAY_SIZE(ids) - 1]);
}

static struct kunit_case dwq_dev_test_cases[] = {
	KUNIT_CASE(dwq_dev_test_register_unregister),
	KUNIT_CASE(dwq_dev_test_run_and_heap),
	KUNIT_CASE(dwq_dev_test_run_heap_room),
	KUNIT_CASE(dwq_dev_test_run_no_ring),
	KUNIT_CASE(dwq_dev_test_run_compacts),
	KUNIT_CASE(dwq_dev_test_run_shrink_fails),
	KUNIT_CASE(dwq_dev_test_batch_keeps_room),
	KUNIT_CASE(dwq_dev_test_schedule_stale_moment),
	KUNIT_CASE(dwq_dev_test_boottime_queue),
	KUNIT_CASE(dwq_dev_test_mode),
	KUNIT_CASE(dwq_dev_test_two_devices),
	KUNIT_CASE(dwq_dev_test_unknown_ioctl),
	KUNIT_CASE(dwq_dev_test_release_unreserves),
	KUNIT_CASE(dwq_dev_test_ids_run_out),
	KUNIT_CASE(dwq_dev_test_spares),
	KUNIT_CASE(dwq_dev_test_id_map),
	KUNIT_CASE(dwq_dev_test_alarm_lazy),
	KUNIT_CASE(dwq_dev_test_alarm_early),
	KUNIT_CASE(dwq_dev_test_drain_wakes_once),
	KUNIT_CASE(dwq_dev_test_alarm_drain_wakes_once),
	KUNIT_CASE_SLOW(dwq_dev_test_boottime_alarm_after_suspend),
	KUNIT_CASE(dwq_dev_test_passed),
	KUNIT_CASE(dwq_dev_test_read_defers),
	KUNIT_CASE(dwq_dev_test_read_owes),
	KUNIT_CASE(dwq_dev_test_read_no_queue),
	KUNIT_CASE(dwq_dev_test_arm_fails_readable),
	KUNIT_CASE(dwq_dev_test_arm_fails_poll_arms),
	KUNIT_CASE(dwq_dev_test_arm_fails_killable),
	KUNIT_CASE(dwq_dev_test_uring_interrupted),
	KUNIT_CASE(dwq_dev_test_read_notify_waits),
	KUNIT_CASE(dwq_dev_test_drain_shrinks_once),
	KUNIT_CASE(dwq_dev_test_now_one_instant),
	{}
};

static struct kunit_suite dwq_dev_test_suite = {
	.name = "dwq_dev",
	.test_cases = dwq_dev_test_cases,
};

kunit_test_suite(dwq_dev_test_suite);
