// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/dwq limits: the module parameters that bound what user space may
 * ask for, and the charges they are checked against. Every task counts
 * against the user who opened its file (max_tasks_per_user, over all the
 * user's files) and all files together (max_tasks) from the moment it is
 * made until its event is read or its memory freed: a fired one-shot
 * whose event is unread still counts, and so does a cancelled task whose
 * kept event is unread (a parked periodic task's, or one a RESCHEDULE
 * made a one-shot after it fired). Against its file (max_tasks_per_file)
 * it counts while the file holds it: queued, parked, or a due one-shot
 * whose event is unread (what STATS reports as pending); a task whose id
 * is gone, its kept event unread, no longer does.
 *
 * The periodic tasks of a user also count against max_rate_per_user, a
 * budget of firings per second: each task its rate, 1/period, in mHz
 * rounded up, from the moment it is scheduled until its id goes (cancel,
 * close) or a reschedule changes its period.
 *
 * A user may hold max_files_per_user files open, as inotify bounds a
 * user's instances: each file keeps an alarm for each clock in the queue
 * that all files share, armed while it has tasks and, lazily, for a while
 * after (client.c), so the files' count bounds what one user adds to
 * that queue, its heap and its timer's work, tasks or none.
 */
#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/units.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <linux/xarray.h>

#include "dev.h"

/*
 * The limits below refuse 0 (and what is no number) at load and in sysfs
 * alike, with a message: no limit of 0 makes sense. A task limit of 0
 * would make /dev/dwq refuse every task; min_period_ns=0 would let a
 * period of 1 ns keep a worker busy for good; max_delay_ns=0 would refuse
 * every delay. dwq_limits_init() checks min_period_ns against
 * max_delay_ns once all are set at load; after that a write to sysfs that
 * would put one past the other is refused (sysfs writes of a module's
 * parameters are serialised by its parameter lock).
 */
static int dwq_param_uint_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;

	/* A value written to sysfs ends in a newline: not in the message. */
	if (kstrtouint(val, 0, &v) || !v) {
		pr_err("%s=%.*s: must be a number from 1 to %u\n", kp->name,
		       (int)strcspn(val, "\n"), val, UINT_MAX);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops dwq_param_uint_ops = {
	.set = dwq_param_uint_set,
	.get = param_get_uint,
};

static ulong min_period_ns, max_delay_ns;

/* Set once dwq_limits_init() has found the limits loaded consistent. */
static bool dwq_limits_loaded;

static int dwq_param_ulong_set(const char *val, const struct kernel_param *kp)
{
	int len = strcspn(val, "\n");
	unsigned long v;

	if (kstrtoul(val, 0, &v) || !v) {
		pr_err("%s=%.*s: must be a number of ns from 1 to %lu\n",
		       kp->name, len, val, ULONG_MAX);
		return -EINVAL;
	}
	if (READ_ONCE(dwq_limits_loaded) && kp->arg == &min_period_ns &&
	    v > READ_ONCE(max_delay_ns)) {
		pr_err("%s=%.*s: must be at most max_delay_ns=%lu\n", kp->name,
		       len, val, READ_ONCE(max_delay_ns));
		return -EINVAL;
	}
	if (READ_ONCE(dwq_limits_loaded) && kp->arg == &max_delay_ns &&
	    v < READ_ONCE(min_period_ns)) {
		pr_err("%s=%.*s: must be at least min_period_ns=%lu\n",
		       kp->name, len, val, READ_ONCE(min_period_ns));
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned long *)kp->arg, v);
	return 0;
}

static const struct kernel_param_ops dwq_param_ulong_ops = {
	.set = dwq_param_ulong_set,
	.get = param_get_ulong,
};

static unsigned int max_tasks_per_file = 65536;
module_param_cb(max_tasks_per_file, &dwq_param_uint_ops, &max_tasks_per_file,
		0644);
__MODULE_PARM_TYPE(max_tasks_per_file, "uint");
/*
 * Not clang-formatted (here and at each "clang-format off" below): it
 * would break right after "MODULE_PARM_DESC(", which checkpatch rejects
 * (OPEN_ENDED_LINE), and the description must stay one string that
 * grep finds (checkpatch: SPLIT_STRING).
 */
/* clang-format off */
MODULE_PARM_DESC(max_tasks_per_file,
		 "Tasks one open file of /dev/dwq may own (default 65536); more is -ENOSPC");
/* clang-format on */

static unsigned int max_tasks = 1U << 20;
module_param_cb(max_tasks, &dwq_param_uint_ops, &max_tasks, 0644);
__MODULE_PARM_TYPE(max_tasks, "uint");
/* clang-format off */
MODULE_PARM_DESC(max_tasks,
		 "Tasks all open files together may own (default 1048576); more is -ENOSPC");
/* clang-format on */

/*
 * A quarter of max_tasks: four files at max_tasks_per_file, yet no user
 * can take more than a quarter of the global budget, so at least four
 * users reach their own limit before the global one stops everyone.
 */
static unsigned int max_tasks_per_user = 1U << 18;
module_param_cb(max_tasks_per_user, &dwq_param_uint_ops, &max_tasks_per_user,
		0644);
__MODULE_PARM_TYPE(max_tasks_per_user, "uint");
/* clang-format off */
MODULE_PARM_DESC(max_tasks_per_user,
		 "Tasks the files one user (euid of the opener; in a user namespace a user created, that user) opened may hold together (default 262144); more is -ENOSPC");
/* clang-format on */

/*
 * A file adds at most two alarms to the shared queue, so a user at most
 * 2048 by default: a few milliseconds of the queue's timer if all come
 * due at once. Far more files than one program needs (one file holds
 * max_tasks_per_file timers), as inotify's max_user_instances is.
 */
static unsigned int max_files_per_user = 1024;
module_param_cb(max_files_per_user, &dwq_param_uint_ops, &max_files_per_user,
		0644);
__MODULE_PARM_TYPE(max_files_per_user, "uint");
/* clang-format off */
MODULE_PARM_DESC(max_files_per_user,
		 "Files /dev/dwq one user may hold open (default 1024); more is -EMFILE");
/* clang-format on */

static ulong min_period_ns = 100 * NSEC_PER_USEC;
module_param_cb(min_period_ns, &dwq_param_ulong_ops, &min_period_ns, 0644);
__MODULE_PARM_TYPE(min_period_ns, "ulong");
/* clang-format off */
MODULE_PARM_DESC(min_period_ns,
		 "Shortest period of a periodic task from user space, ns (default 100000); shorter is -EINVAL");
/* clang-format on */

static ulong max_delay_ns = 366ULL * 24 * 3600 * NSEC_PER_SEC;
module_param_cb(max_delay_ns, &dwq_param_ulong_ops, &max_delay_ns, 0644);
__MODULE_PARM_TYPE(max_delay_ns, "ulong");
/* clang-format off */
MODULE_PARM_DESC(max_delay_ns,
		 "Longest delay or period from user space, ns (default 366 days); longer is -EINVAL");
/* clang-format on */

/*
 * Firings per second all periodic tasks of one user may ask for together.
 * The default is what an honest user never meets: every task the user may
 * hold (max_tasks_per_user) at a period of 262.2 ms, or a hundred at the
 * shortest period (min_period_ns) — a million firings a second, about
 * what all of dwq's workers can deliver on one CPU. More is not a timer
 * load but polling, and would take the machine from everyone else.
 */
static unsigned int max_rate_per_user = 1000000;
module_param_cb(max_rate_per_user, &dwq_param_uint_ops, &max_rate_per_user,
		0644);
__MODULE_PARM_TYPE(max_rate_per_user, "uint");
/* clang-format off */
MODULE_PARM_DESC(max_rate_per_user,
		 "Firings per second the periodic tasks of one user may ask for together, the sum of 1/period (default 1000000); more is -ENOSPC");
/* clang-format on */

/* Tasks of all clients; checked against max_tasks. */
static atomic_t dwq_limits_nr_tasks = ATOMIC_INIT(0);

/**
 * struct dwq_user - what the files of one user hold together
 * @uid: the effective uid their openers had when they opened them
 * @ref: one per open file charged here; guarded by the xa_lock of
 *	@dwq_users, so that a lookup never finds an entry being freed
 * @nr_tasks: tasks of those files not released yet (queued, firing, or
 *	with an unread event: each holds memory); checked against
 *	max_tasks_per_user
 * @rate: the firing rate of those files' periodic tasks in mHz (firings
 *	per 1000 s), see dwq_limits_rate(); checked against
 *	max_rate_per_user * 1000
 */
struct dwq_user {
	kuid_t uid;
	unsigned int ref;
	atomic_t nr_tasks;
	atomic64_t rate;
};

/*
 * Every user with a dwq file open: kuid value -> &struct dwq_user. Its
 * xa_lock guards the map and every entry's @ref; taken with interrupts
 * off, so that a put is safe from any context (today a file's client is
 * freed, and its user put, only in release(), in process context).
 */
static DEFINE_XARRAY_FLAGS(dwq_users, XA_FLAGS_LOCK_IRQ);

/*
 * The uid that @cred's files are charged to: its effective uid; inside a
 * user namespace a user created, that user: the outermost creator other
 * than root. A user maps uids of its own into a namespace it creates (its
 * /etc/subuid range), and each would otherwise be a user with a whole
 * budget; inotify's counts go up to each namespace's creator too, and
 * with one limit for every namespace the outermost creator's count is the
 * one that fills first, so it alone is kept. The uids root maps into a
 * namespace (a container's) are users of their own, as root gave them
 * out, and are charged as any uid is.
 */
static kuid_t dwq_charged_uid(const struct cred *cred)
{
	const struct user_namespace *ns = cred->user_ns;
	kuid_t uid = cred->euid;

	for (; ns != &init_user_ns; ns = ns->parent)
		if (!uid_eq(ns->owner, GLOBAL_ROOT_UID))
			uid = ns->owner;
	return uid;
}

/**
 * dwq_user_get() - the user a file opened with @cred is charged to
 * @cred: the opener's credentials
 *
 * It is the opener's effective uid (as inotify charges its instances to),
 * or for an opener inside a user namespace a user created that user (see
 * dwq_charged_uid()), fixed at open: a file passed to another process or
 * inherited across fork() still charges the user who opened it. Each
 * reference is one file open: a user may hold max_files_per_user.
 *
 * Context: process context; may sleep.
 * Return: the user, with a reference; or an ERR_PTR(): -EMFILE if the
 * user holds max_files_per_user files already, -ENOMEM.
 */
struct dwq_user *dwq_user_get(const struct cred *cred)
{
	kuid_t uid = dwq_charged_uid(cred);
	unsigned long key = __kuid_val(uid);
	struct dwq_user *u, *new;

	xa_lock_irq(&dwq_users);
	u = xa_load(&dwq_users, key);
	if (u && u->ref >= READ_ONCE(max_files_per_user))
		u = ERR_PTR(-EMFILE);
	else if (u)
		u->ref++;
	xa_unlock_irq(&dwq_users);
	if (u)
		return u;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->uid = uid;
	new->ref = 1;
	atomic_set(&new->nr_tasks, 0);
	atomic64_set(&new->rate, 0);
	/*
	 * Another file of the user may have been opened meanwhile: then
	 * take that entry. __xa_cmpxchg() may drop the lock to allocate, but
	 * what it returns was in the map, so had a reference, when it retook
	 * the lock; and the last put erases the entry under that lock.
	 */
	xa_lock_irq(&dwq_users);
	u = __xa_cmpxchg(&dwq_users, key, NULL, new, GFP_KERNEL_ACCOUNT);
	if (xa_is_err(u))
		u = ERR_PTR(xa_err(u));
	else if (u && u->ref >= READ_ONCE(max_files_per_user))
		u = ERR_PTR(-EMFILE);
	else if (u)
		u->ref++;
	xa_unlock_irq(&dwq_users);
	if (!u)
		return new;
	kfree(new);
	return u;
}

/**
 * dwq_user_put() - drop a reference from dwq_user_get()
 * @u: the user
 *
 * Context: any context that may take a spinlock_t (on PREEMPT_RT, not
 *	hard interrupt context): softirq context too, the queue's timer.
 */
void dwq_user_put(struct dwq_user *u)
{
	unsigned long flags;

	xa_lock_irqsave(&dwq_users, flags);
	if (--u->ref) {
		xa_unlock_irqrestore(&dwq_users, flags);
		return;
	}
	__xa_erase(&dwq_users, __kuid_val(u->uid));
	xa_unlock_irqrestore(&dwq_users, flags);
	WARN_ON(atomic_read(&u->nr_tasks));
	WARN_ON(atomic64_read(&u->rate));
	kfree(u);
}

/*
 * Add @n to @count unless that takes it over @max: checked and added in
 * one step, so racing callers never exceed @max together, and none fails
 * for room in @count that another's failed attempt only seemed to take.
 */
static bool dwq_charge_add(atomic_t *count, unsigned int n, unsigned int max)
{
	int old = atomic_read(count);

	do {
		if ((unsigned int)old + n > max)
			return false;
	} while (!atomic_try_cmpxchg(count, &old, old + n));
	return true;
}

/**
 * dwq_limits_rate() - the firing rate a task counts against its user
 * @mode: its DWQ_MODE_* value
 * @period_ns: its period, at least 1 for a periodic mode
 *
 * Context: any context.
 * Return: DIV_ROUND_UP(10^12, @period_ns), its firings per 1000 s rounded
 * up (so every periodic task counts); 0 for a one-shot.
 */
u64 dwq_limits_rate(u32 mode, u64 period_ns)
{
	if (mode == DWQ_MODE_ONESHOT || !period_ns)
		return 0;
	return DIV64_U64_ROUND_UP(NSEC_PER_SEC * MILLI, period_ns);
}

/**
 * dwq_limits_rate_charge() - count a firing rate against a user's budget
 * @u: the user
 * @rate: mHz, from dwq_limits_rate()
 *
 * Checked and added in one step, as the task counts are.
 *
 * Context: any context.
 * Return: 0, or -ENOSPC if the user's rate would exceed max_rate_per_user.
 */
int dwq_limits_rate_charge(struct dwq_user *u, u64 rate)
{
	u64 max = (u64)READ_ONCE(max_rate_per_user) * MILLI;
	s64 old = atomic64_read(&u->rate);

	if (!rate)
		return 0;
	do {
		if (rate > max || (u64)old > max - rate)
			return -ENOSPC;
	} while (!atomic64_try_cmpxchg(&u->rate, &old, old + rate));
	return 0;
}

/**
 * dwq_limits_rate_release() - return a rate dwq_limits_rate_charge() took
 * @u: the user
 * @rate: mHz
 *
 * Context: any context.
 */
void dwq_limits_rate_release(struct dwq_user *u, u64 rate)
{
	atomic64_sub(rate, &u->rate);
}

/**
 * dwq_limits_charge() - count new tasks against the limits
 * @c: the file they will belong to
 * @n: how many
 * @rate: their firing rate together, mHz (0 for one-shots)
 *
 * Counts @rate against the user's rate budget and @n more tasks against
 * the limits of the file, of its user (over all the user's files) and of
 * all files; or against none.
 *
 * A charge that fails returns what it took, but another caller may see
 * it meanwhile. So the counts are taken from the narrowest to the
 * widest, all files' last: a charge that fails here is seen, for that
 * moment, only by the user's own files. A schedule can still fail after
 * its charge (memory, ids, its ids' write-back) and return it: for that
 * moment another user's schedule at the edge of max_tasks may be
 * refused.
 *
 * Context: any context.
 * Return: 0, or -ENOSPC.
 */
int dwq_limits_charge(struct dwq_client *c, unsigned int n, u64 rate)
{
	if (dwq_limits_rate_charge(c->user, rate))
		return -ENOSPC;
	if (!dwq_charge_add(&c->nr_tasks, n, READ_ONCE(max_tasks_per_file)))
		goto err_rate;
	if (!dwq_charge_add(&c->user->nr_tasks, n,
			    READ_ONCE(max_tasks_per_user)))
		goto err_file;
	if (!dwq_charge_add(&dwq_limits_nr_tasks, n, READ_ONCE(max_tasks)))
		goto err_user;
	return 0;

err_user:
	atomic_sub(n, &c->user->nr_tasks);
err_file:
	atomic_sub(n, &c->nr_tasks);
err_rate:
	dwq_limits_rate_release(c->user, rate);
	return -ENOSPC;
}

/**
 * dwq_limits_uncharge() - return the charge of tasks that were never made
 * @c: their file
 * @n: how many
 * @rate: their rate together, mHz
 *
 * Context: any context.
 */
void dwq_limits_uncharge(struct dwq_client *c, unsigned int n, u64 rate)
{
	atomic_sub(n, &c->nr_tasks);
	atomic_sub(n, &c->user->nr_tasks);
	atomic_sub(n, &dwq_limits_nr_tasks);
	dwq_limits_rate_release(c->user, rate);
}

/**
 * dwq_limits_stats() - the counts the limits are checked against
 * @u: the user of the file asking
 * @st: its user's and all tasks, its user's rate, and the limits, filled in
 *
 * Context: any context.
 */
void dwq_limits_stats(struct dwq_user *u, struct dwq_ioc_stats *st)
{
	st->user_tasks = atomic_read(&u->nr_tasks);
	st->all_tasks = atomic_read(&dwq_limits_nr_tasks);
	st->user_rate_mhz = atomic64_read(&u->rate);
	st->max_tasks_per_file = READ_ONCE(max_tasks_per_file);
	st->max_tasks_per_user = READ_ONCE(max_tasks_per_user);
	st->max_tasks = READ_ONCE(max_tasks);
	st->max_rate_per_user = READ_ONCE(max_rate_per_user);
}

/**
 * dwq_limits_release() - tasks' memory is freed: return their charge
 * @u: the user of the file that owned them
 * @n: how many tasks
 *
 * The file's own charge went when the file forgot the tasks' ids.
 *
 * Context: any context.
 */
void dwq_limits_release(struct dwq_user *u, unsigned int n)
{
	atomic_sub(n, &u->nr_tasks);
	atomic_sub(n, &dwq_limits_nr_tasks);
}

/* dwq_limits_timing(), with max_delay_ns as its caller loaded it. */
static int __dwq_limits_timing(u64 time_ns, u64 period_ns, u32 mode, u32 flags,
			       u64 max_delay)
{
	switch (mode) {
	case DWQ_MODE_ONESHOT:
		if (period_ns)
			return -EINVAL;
		break;
	case DWQ_MODE_FIXED_RATE:
	case DWQ_MODE_FIXED_DELAY:
		if (period_ns < READ_ONCE(min_period_ns) ||
		    period_ns > max_delay)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (time_ns > KTIME_MAX)
		return -EINVAL;
	if (!(flags & DWQ_SCHED_ABS) && time_ns > max_delay)
		return -EINVAL;
	return 0;
}

/**
 * dwq_limits_timing() - what of a request's timing needs no clock
 * @time_ns: the delay, or with %DWQ_SCHED_ABS the deadline
 * @period_ns: the period, 0 for a one-shot
 * @mode: a DWQ_MODE_* value
 * @flags: DWQ_SCHED_* and %DWQ_RESCHED_PERIOD, already checked for
 *	unknown bits
 *
 * The checks of dwq_limits_sched() that neither a clock nor a task
 * answers, so that a request can be refused as malformed before the task
 * it names is looked up.
 *
 * Context: any context.
 * Return: 0, or -EINVAL for a bad mode, a period out of [min_period_ns,
 * max_delay_ns] (or not 0 for a one-shot), a delay over max_delay_ns or
 * a time over KTIME_MAX.
 */
int dwq_limits_timing(u64 time_ns, u64 period_ns, u32 mode, u32 flags)
{
	/* Root may write it while schedules read it: one load a request. */
	return __dwq_limits_timing(time_ns, period_ns, mode, flags,
				   READ_ONCE(max_delay_ns));
}

/**
 * dwq_limits_sched() - user timing as the engine's, within the limits
 * @ds: filled in
 * @time_ns: the delay, or with %DWQ_SCHED_ABS the deadline
 * @period_ns: the period, 0 for a one-shot
 * @mode: a DWQ_MODE_* value
 * @flags: DWQ_SCHED_* and %DWQ_RESCHED_PERIOD, already checked for
 *	unknown bits
 * @now: the call's moment on each clock (&enum dwq_clock), 0 on a clock
 *	not read yet: a deadline is checked against it, the clock read here
 *	first if need be (as dwq_sched_abs() does for a delay)
 *
 * Context: any context.
 * Return: 0, or -EINVAL for what dwq_limits_timing() refuses, or a
 * deadline more than max_delay_ns ahead.
 */
int dwq_limits_sched(struct dwq_sched *ds, u64 time_ns, u64 period_ns, u32 mode,
		     u32 flags, u64 *now)
{
	/* One load for all the request's checks, as in dwq_limits_timing(). */
	u64 max_delay = READ_ONCE(max_delay_ns);
	unsigned int clock;
	int err;

	err = __dwq_limits_timing(time_ns, period_ns, mode, flags, max_delay);
	if (err)
		return err;
	if (flags & DWQ_SCHED_ABS) {
		clock = flags & DWQ_SCHED_BOOTTIME ? DWQ_CLOCK_BOOTTIME :
						     DWQ_CLOCK_MONOTONIC;
		if (!now[clock])
			now[clock] = dwq_clock_now(clock);
		if (time_ns > now[clock] && time_ns - now[clock] > max_delay)
			return -EINVAL;
	}

	/* The ABI's modes and flags are the kernel API's: no translation. */
	ds->time_ns = time_ns;
	ds->period_ns = period_ns;
	ds->mode = mode;
	ds->flags = flags;
	ds->slack_ns = 0;
	return 0;
}

/**
 * dwq_limits_init() - check the limits set at load time against each other
 *
 * Each limit was checked on its own when it was set; together, no
 * periodic task could be scheduled if the shortest period allowed were
 * longer than the longest. From then on, sysfs refuses a write of either
 * that would make it so. The parameters' sysfs files exist before the
 * module's init runs, so the check and the flag that turns on sysfs's
 * are made under the parameters' lock, which every write through sysfs
 * takes: a write during the load comes before both or after both.
 *
 * Context: module init; sleeps.
 * Return: 0, or -EINVAL.
 */
int dwq_limits_init(void)
{
	int err = 0;

	kernel_param_lock(THIS_MODULE);
	if (min_period_ns > max_delay_ns) {
		pr_err("min_period_ns=%lu is above max_delay_ns=%lu: no period could be scheduled\n",
		       min_period_ns, max_delay_ns);
		err = -EINVAL;
	} else {
		WRITE_ONCE(dwq_limits_loaded, true);
	}
	kernel_param_unlock(THIS_MODULE);
	return err;
}

/**
 * dwq_limits_exit() - check that every charge was returned
 *
 * Context: module exit, after every file was closed.
 */
void dwq_limits_exit(void)
{
	/* Every file is closed: a charge left is a leak (the test guests fail). */
	WARN_ON(atomic_read(&dwq_limits_nr_tasks));
	WARN_ON(!xa_empty(&dwq_users));
}

#if IS_ENABLED(CONFIG_KUNIT)
/* For KUnit: the tasks of all files, and of user @u, charged. */
void dwq_limits_charged(const struct dwq_user *u, int *all, int *user)
{
	*all = atomic_read(&dwq_limits_nr_tasks);
	*user = atomic_read(&u->nr_tasks);
}
#endif
