// SPDX-License-Identifier: GPL-2.0
/*
 * The lockdep annotations, proven the only way they can be: by a report.
 *
 * provoke_lockdep=1: a task's callback takes a mutex; then the test takes
 * that mutex and calls dwq_cancel_sync() on the task. That deadlocks
 * whenever the callback runs at that moment (cancel_sync waits for it, it
 * waits for the mutex), and lockdep must say so every time, as it does for
 * flush_work(): "possible circular locking dependency", naming the task's
 * lock class, "(dwq_task)dwq_lockdep_fn". The callback has returned by
 * then, so nothing hangs.
 *
 * provoke_lockdep=2: a task's release function, run on a worker when the
 * queue drops the last reference, takes a mutex; then the test takes that
 * mutex and destroys the queue. That deadlocks whenever a release function
 * runs at that moment (destroy waits for the workers), and lockdep must
 * name the queue's class, "(dwq_queue)kunit_release". The release has run
 * by then, so nothing hangs.
 *
 * A report turns lockdep off and fails every other run, so each case only
 * provokes it when dwq_kunit.ko is loaded with its provoke_lockdep, alone
 * in a boot of its own (kunit.filter_glob=dwq_lockdep): the kunit step of
 * tools/testing/check does that and checks the kernel log. Otherwise they
 * are skipped, and the rest of the suites, run with lockdep on, prove that
 * correct use reports nothing.
 */
#include <linux/completion.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <kunit/test.h>

#include "dwq_internal.h"
#include "wait.h"

static unsigned int provoke_lockdep;
module_param(provoke_lockdep, uint, 0444);
/* clang-format off */
MODULE_PARM_DESC(provoke_lockdep, "Provoke a lockdep report: 1 dwq_cancel_sync() under a lock the callback takes, 2 dwq_queue_destroy() under a lock a release function takes");
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

/* A queue of one worker named @name, destroyed when the case ends. */
static struct dwq_queue *dwq_lockdep_queue(struct kunit *test, const char *name)
{
	struct dwq_queue *q = dwq_queue_create(name, 1, 0);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, q);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, dwq_lockdep_destroy, q),
			0);
	return q;
}

static void dwq_lockdep_test_cancel_sync_under_lock(struct kunit *test)
{
	static DEFINE_MUTEX(lock);
	struct dwq_lockdep_probe *p;
	struct dwq_sched s = {};
	struct dwq_queue *q;
	unsigned long left;
	int ret;

	if (provoke_lockdep != 1)
		dwq_kunit_skip(test, "provoke_lockdep is not 1");
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	q = dwq_lockdep_queue(test, "kunit");
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

struct dwq_lockdep_release_probe {
	struct dwq_task task;
	struct mutex *lock; /* the release function takes it, nothing else */
	struct completion go; /* the callback returns once the test's put */
	struct completion released;
};

static void dwq_lockdep_wait_fn(struct dwq_task *task)
{
	struct dwq_lockdep_release_probe *p =
		container_of(task, struct dwq_lockdep_release_probe, task);

	wait_for_completion(&p->go);
}

static void dwq_lockdep_release(struct dwq_task *task)
{
	struct dwq_lockdep_release_probe *p =
		container_of(task, struct dwq_lockdep_release_probe, task);

	mutex_lock(p->lock);
	mutex_unlock(p->lock);
	complete(&p->released);
}

static void dwq_lockdep_test_destroy_under_release_lock(struct kunit *test)
{
	static DEFINE_MUTEX(lock);
	struct dwq_lockdep_release_probe *p;
	struct dwq_sched s = {};
	struct dwq_queue *q;
	unsigned long left;

	if (provoke_lockdep != 2)
		dwq_kunit_skip(test, "provoke_lockdep is not 2");
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	q = dwq_lockdep_queue(test, "kunit_release");
	dwq_task_init(&p->task, dwq_lockdep_wait_fn, dwq_lockdep_release);
	p->lock = &lock;
	init_completion(&p->go);
	init_completion(&p->released);

	/*
	 * Lockdep learns "queue, then lock" when the release function runs
	 * on the worker: the callback holds it there until the test has
	 * dropped its own reference, so that the queue's is the last...
	 */
	KUNIT_ASSERT_EQ(test, dwq_schedule(q, &p->task, &s), 0);
	dwq_task_put(&p->task);
	complete(&p->go);
	left = wait_for_completion_timeout(&p->released, 10 * HZ);
	KUNIT_ASSERT_GT(test, left, 0UL);
	/* ...and reports "lock, then wait for the workers" here. */
	mutex_lock(&lock);
	kunit_release_action(test, dwq_lockdep_destroy, q);
	mutex_unlock(&lock);
}

static struct kunit_case dwq_lockdep_test_cases[] = {
	KUNIT_CASE(dwq_lockdep_test_cancel_sync_under_lock),
	KUNIT_CASE(dwq_lockdep_test_destroy_under_release_lock),
	{}
};

static struct kunit_suite dwq_lockdep_test_suite = {
	.name = "dwq_lockdep",
	.test_cases = dwq_lockdep_test_cases,
};

kunit_test_suite(dwq_lockdep_test_suite);
