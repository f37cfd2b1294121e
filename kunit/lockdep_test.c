// SPDX-License-Identifier: GPL-2.0
/*
 * The lockdep annotations, proven the only way they can be: by a report.
 *
 * A task's callback takes a mutex; then the test takes that mutex and
 * calls dwq_cancel_sync() on the task. That deadlocks whenever the
 * callback runs at that moment (cancel_sync waits for it, it waits for
 * the mutex), and lockdep must say so every time, as it does for
 * flush_work(): "possible circular locking dependency", naming the task's
 * lock class, "(dwq_task)dwq_lockdep_fn". The callback has returned by
 * then, so nothing hangs.
 *
 * A report turns lockdep off and fails every other run, so this case only
 * provokes it when dwq_kunit.ko is loaded with provoke_lockdep=1, alone in
 * its own boot (kunit.filter_glob=dwq_lockdep): the kunit step of
 * tools/testing/check does that and checks the kernel log. Otherwise it is
 * skipped, and the rest of the suites, run with lockdep on, prove that
 * correct use reports nothing.
 */
#include <linux/completion.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <kunit/test.h>

#include "dwq_internal.h"

static bool provoke_lockdep;
module_param(provoke_lockdep, bool, 0444);
/* clang-format off */
MODULE_PARM_DESC(provoke_lockdep, "Provoke a lockdep report: dwq_cancel_sync() under a lock the callback takes");
/* clang-format on */

struct dwq_lockdep_probe {
	struct dwq_task task;
	struct mutex *lock; /* the callback takes it, nothing else */
	struct completion ran;
};

static void dwq_lockdep_fn(struct dwq_task *task)
{
	struct dwq_lockdep_probe *p =
		container_of(task, struct dwq_lockdep_probe, task);

	mutex_lock(p->lock);
	mutex_unlock(p->lock);
	complete(&p->ran);
}

static void dwq_lockdep_destroy(void *q)
{
	dwq_queue_destroy(q, DWQ_DESTROY_DROP);
}

static void dwq_lockdep_test_cancel_sync_under_lock(struct kunit *test)
{
	static DEFINE_MUTEX(lock);
	struct dwq_lockdep_probe *p;
	struct dwq_sched s = {};
	struct dwq_queue *q;
	unsigned long left;
	int ret;

	if (!provoke_lockdep)
		kunit_skip(test, "provoke_lockdep=0");
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	q = dwq_queue_create("kunit", 1, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dwq_lockdep_destroy, q),
			0);
	dwq_task_init(&p->task, dwq_lockdep_fn, NULL);
	p->lock = &lock;
	init_completion(&p->ran);

	/* Lockdep learns "callback, then lock" when it runs... */
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	left = wait_for_completion_timeout(&p->ran, 10 * HZ);
	KUNIT_ASSERT_GT(test, left, 0UL);
	/* ...and reports "lock, then wait for callback" here. */
	mutex_lock(&lock);
	ret = dwq_cancel_sync(&p->task);
	mutex_unlock(&lock);
	KUNIT_EXPECT_GE(test, ret, 0);
}

static struct kunit_case dwq_lockdep_test_cases[] = {
	KUNIT_CASE(dwq_lockdep_test_cancel_sync_under_lock),
	{}
};

static struct kunit_suite dwq_lockdep_test_suite = {
	.name = "dwq_lockdep",
	.test_cases = dwq_lockdep_test_cases,
};

kunit_test_suite(dwq_lockdep_test_suite);
