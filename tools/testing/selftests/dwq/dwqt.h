/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of dwq's selftests for /dev/dwq: thin ioctl wrappers that return
 * 0 or -errno, and "_ok" variants that fail the case on any error.
 */
#ifndef DWQT_DWQT_H
#define DWQT_DWQT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/dwq.h>

#include "dwq_harness.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define U64_MAX UINT64_MAX
#define S64_MAX INT64_MAX

/* How long an event may take to come, at most; TCG guests are slow. */
#define DWQT_WAIT_MS 10000
/* The latest an event may be read after its deadline. */
#define DWQT_LATE_NS (5 * NSEC_PER_SEC)
/* How long a case may repeat rounds to catch a race. */
#define DWQT_RACE_NS (5 * NSEC_PER_SEC)
/* Far enough ahead that a task does not fire during a case. */
#define DWQT_FAR_NS (3600 * NSEC_PER_SEC)

/* The device: $DWQ_DEV, /dev/dwq by default. */
const char *dwqt_dev(void);

/* Open the device O_RDWR | O_CLOEXEC | @flags; fail the case on error. */
int __dwqt_open(const char *file, int line, int flags);
#define dwqt_open(flags) __dwqt_open(__FILE__, __LINE__, (flags))
/* ioctl() that returns 0 or -errno (a positive value as is). */
long dwqt_ioctl(int fd, unsigned long cmd, void *arg);

/* A struct dwq_ioc_schedule with these fields, the others zero. */
struct dwq_ioc_schedule dwqt_sched_arg(uint64_t time_ns, uint64_t period_ns,
				       uint32_t mode, uint32_t flags,
				       uint64_t cookie);
long dwqt_sched(int fd, uint64_t time_ns, uint64_t period_ns, uint32_t mode,
		uint32_t flags, uint64_t cookie, uint64_t *id);
uint64_t __dwqt_sched_ok(const char *file, int line, int fd, uint64_t time_ns,
			 uint64_t period_ns, uint32_t mode, uint32_t flags,
			 uint64_t cookie);
#define dwqt_sched_ok(fd, t, p, m, f, c) \
	__dwqt_sched_ok(__FILE__, __LINE__, (fd), (t), (p), (m), (f), (c))
long dwqt_batch(int fd, struct dwq_ioc_schedule *e, uint32_t count,
		uint32_t *error_index);
long dwqt_cancel(int fd, uint64_t id, uint32_t *result);
/* CANCEL_BATCH of @e; *@error_index (if not NULL) gets what came back. */
long dwqt_cancel_batch(int fd, struct dwq_ioc_cancel *e, uint32_t count,
		       uint32_t *error_index);
long dwqt_resched(int fd, uint64_t id, uint64_t time_ns, uint64_t period_ns,
		  uint32_t mode, uint32_t flags);
long dwqt_query(int fd, uint64_t id, struct dwq_ioc_query *q);
struct dwq_ioc_query __dwqt_query_ok(const char *file, int line, int fd,
				     uint64_t id);
#define dwqt_query_ok(fd, id) __dwqt_query_ok(__FILE__, __LINE__, (fd), (id))
struct dwq_ioc_stats __dwqt_stats_ok(const char *file, int line, int fd);
#define dwqt_stats_ok(fd) __dwqt_stats_ok(__FILE__, __LINE__, (fd))

/* Monotonic and boottime clocks, ns. */
uint64_t dwqt_now(void);
uint64_t dwqt_now_boot(void);
void dwqt_sleep_ms(unsigned int ms);

/*
 * Wait up to @timeout_ms for events with poll(), then read() up to @max
 * of them. Return how many were read (0: none came).
 */
int __dwqt_read_events(const char *file, int line, int fd, struct dwq_event *ev,
		       int max, int timeout_ms);
#define dwqt_read_events(fd, ev, max, ms) \
	__dwqt_read_events(__FILE__, __LINE__, (fd), (ev), (max), (ms))
/* One event within DWQT_WAIT_MS, or fail. */
struct dwq_event __dwqt_read_one(const char *file, int line, int fd);
#define dwqt_read_one(fd) __dwqt_read_one(__FILE__, __LINE__, (fd))
/* Fail if an event becomes readable within @ms. */
void __dwqt_expect_no_event(const char *file, int line, int fd, int ms);
#define dwqt_expect_no_event(fd, ms) \
	__dwqt_expect_no_event(__FILE__, __LINE__, (fd), (ms))
/* Check the fields every event must have right. */
void __dwqt_check_event(const char *file, int line, const struct dwq_event *ev);
#define dwqt_check_event(ev) __dwqt_check_event(__FILE__, __LINE__, (ev))

/**
 * struct dwqt_charges - what the limits count, from STATS
 * @all_tasks: the tasks of all files (what max_tasks bounds)
 * @user_tasks: the tasks of the files the asking file's user opened
 * @user_rate_mhz: the firing rate of that user's periodic tasks
 */
struct dwqt_charges {
	uint64_t all_tasks;
	uint64_t user_tasks;
	uint64_t user_rate_mhz;
};

/*
 * The charges, through @fd, or through a file opened for it if @fd < 0;
 * false if there is no file to ask. For the leftovers check around each
 * case (dwq_test.h).
 */
bool dwqt_charges(int fd, struct dwqt_charges *ch);
/*
 * Whether the charges are back at @want, waiting up to 2 s for them to
 * come back; *@now gets the last reading. A file's last reference may go
 * after its process has ended (an io_uring ring drops its requests' in a
 * work item of its own), and its charges with it.
 */
bool dwqt_charges_back(int fd, const struct dwqt_charges *want,
		       struct dwqt_charges *now);

/*
 * Whether @n tasks can be scheduled and closed within @budget_ms, judged
 * from scheduling and closing 2048: a case whose size would take minutes
 * under the debug kernel runs a smaller one there.
 */
bool dwqt_cheap_enough(unsigned long long n, unsigned int budget_ms);
/* A module parameter from /sys/module/dwq/parameters; -errno if none. */
int dwqt_param(const char *name, unsigned long long *val);
/* Write a module parameter; 0 or -errno. */
int dwqt_param_set(const char *name, unsigned long long val);
/*
 * Run @fn in a child with the parameter @name set to @val, and restore it
 * afterwards whatever the child did. -errno if the parameter could not be
 * set (nothing was run); 0 once @fn ran (its failures are the case's).
 */
int dwqt_with_param(const char *name, unsigned long long val, void (*fn)(void));
/*
 * Run @fn in a child with each of the @n files @paths that exists (debugfs
 * knobs, say) holding @val, and restore what each held afterwards, whatever
 * the child did. -ENOENT if none exists, -errno if one could not be set
 * (nothing was run, what was set is restored); 0 once @fn ran.
 */
int dwqt_with_files(const char *const *paths, unsigned int n, const char *val,
		    void (*fn)(void));

/*
 * Run @fn in a child where /proc/thread-self/fail-nth counts every
 * allocation: fail-nth counts only those that reach failslab's and
 * fail_page_alloc's should_fail_ex(), and by default neither lets one
 * that may sleep (__GFP_DIRECT_RECLAIM: GFP_KERNEL's) get there: each has
 * its ignore-gfp-wait. So both are off, and failslab's cache-filter (which
 * would leave out every cache but a few): then a kmalloc(),
 * kmem_cache_alloc() or kvmalloc() counts, with any flags but
 * __GFP_NOFAIL (fail_page_alloc still leaves out order 0, its min-order).
 * Their reports of each failure are off too: a report in the kernel's log
 * fails the run. Skips the case without fault injection; restores every
 * knob afterwards.
 */
void dwqt_with_fail_nth(void (*fn)(void));

/* Arm the calling thread's @nth allocation to fail, through @nth_fd. */
void dwqt_nth_arm(int nth_fd, int nth);
/*
 * Disarm it, after the call under test: what was left of the count, 0 if
 * the failure armed was injected.
 */
long dwqt_nth_disarm(int nth_fd);

/* An address nothing may access: a PROT_NONE page. */
void *dwqt_unmapped(void);
/* A read-only copy of @len bytes (at most a page). */
void *dwqt_ro_copy(const void *src, size_t len);
/* @len bytes that end where the mapping ends: the next byte is unmapped. */
void *dwqt_at_end_of_mapping(size_t len);

/*
 * A read() of a file stuck in a page fault that userfaultfd holds: the
 * file's mutex held until dwqt_stuck_read_end(), which lets the fault be
 * served (a zero page) and returns what read() returned. The file must
 * have an event due. dwqt_stuck_read_start() returns false, having done
 * nothing, if the kernel has no userfaultfd; it fails the case on any
 * other error.
 */
struct dwqt_stuck_read {
	int fd;
	int uffd;
	void *buf;
	ssize_t ret;
	pthread_t th;
};

bool dwqt_stuck_read_start(struct dwqt_stuck_read *r, int fd);
ssize_t dwqt_stuck_read_end(struct dwqt_stuck_read *r);

/*
 * ioctl(@fd, @cmd, @arg) from another thread while a stuck read() holds
 * the file, and @page (a page of its own, where @arg or what it points to
 * lives) made read-only before the read() lets go: the ioctl can read its
 * argument but not write its results back. Its return (0 or -errno), or
 * DWQT_NO_UFFD, having done nothing, if the kernel has no userfaultfd.
 * @fd must have an event due, which the read() consumes.
 */
#define DWQT_NO_UFFD (-4095L - 1)
long dwqt_ioctl_then_readonly(int fd, unsigned long cmd, void *arg, void *page);
/*
 * ioctl(@fd, @cmd, @arg) from another thread while a stuck read() holds
 * the file, interrupted by a signal (a handler without SA_RESTART) while it
 * waits for the file. Its return (-EINTR expected), or DWQT_NO_UFFD, having
 * done nothing, if the kernel has no userfaultfd. @fd must have an event
 * due, which the read() consumes.
 */
long dwqt_ioctl_interrupted(int fd, unsigned long cmd, void *arg);
/* A page of its own, read and write; unmap with munmap(p, page size). */
void *dwqt_page(void);

/* The value of "key:" in /proc/self/fdinfo/@fd; false if absent. */
bool dwqt_fdinfo(int fd, const char *key, char *val, size_t size);

/* The number "key:" has in /proc/self/fdinfo/@fd; fails if it has none. */
uint64_t dwqt_fdinfo_u64(int fd, const char *key);

/* Fail unless the ids are non-zero and distinct. */
void dwqt_check_ids(const uint64_t *ids, size_t n);

#endif /* DWQT_DWQT_H */
