// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-fuzz: hostile input for /dev/dwq.
 *
 * usage: dwq-fuzz [--calls N] [--threads T] [--seed S] [--dev PATH]
 *
 * T threads (default 3) make N calls in all (default 200000) on a few
 * shared files: ioctl()s with random command numbers inside and outside
 * dwq's magic 0xD7, random sizes and directions; arguments filled with
 * extreme values (0, -1, S64_MAX, U64_MAX, small numbers) or nearly valid
 * ones; pointers that are unmapped, read-only, misaligned or straddle the
 * end of a mapping; batches with bad entries and extreme counts; read()s
 * of odd sizes; poll(); close, dup and fork meanwhile; and blocking
 * read()s interrupted by a signal. Checked on the way: a command dwq does
 * not define is -ENOTTY, never a success (the random numbers leave out
 * those the VFS answers itself); every error is one the ABI allows;
 * nothing the module returns (STATS, QUERY, events) looks like a kernel
 * address; and a refused call changes nothing. For that, one ioctl() or
 * read() in four is judged: its thread runs it alone (the others wait on
 * a lock that every call holds shared), between two readings of its
 * file's STATS (the file's tasks, firings, cancels and coalesced
 * firings, the user's and all users' tasks, the user's firing rate) and,
 * for a CANCEL or RESCHEDULE, a QUERY of its id (half of them given the
 * id of a task scheduled for it an hour away): when the call fails, the
 * two readings must agree, but for what time alone changes (a periodic
 * task parked meanwhile, a one-shot come due). Nothing else calls
 * meanwhile, and no task fires outside a read(), so any difference is
 * the refused call's.
 * Afterwards a normal schedule -> event round trip must still work.
 * Seeded (the seed is printed); with one thread a run is reproducible.
 *
 * Prints "calls=... ok=... enotty=... efault=... einval=... other=..."
 * and how many refused calls were judged, and exits 1 if any check
 * failed (or none was judged).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/dwq.h>

#define NFDS 4
#define PAGE 4096UL
#define KERNEL_ADDR 0xffff800000000000ULL
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static long calls = 200000;
static int nthreads = 3;
static __u64 seed;
static const char *dev = "/dev/dwq";

static int fds[NFDS];
static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
/* Each thread's own: 4 pages read-write, 1 read-only, 1 unmapped. */
static __thread char *rw, *ro, *hole;
static long done_calls;
static int failures;
static __u64 n_ok, n_enotty, n_efault, n_einval, n_other, n_eintr;
/* Refused calls whose file was seen unchanged by them (or not). */
static __u64 n_judged;
/*
 * Every call holds it shared; a judged call alone. Writers first: a
 * judged call waits for the calls under way, not for every later one.
 */
static pthread_rwlock_t judge_lock;

/* A file's state around a judged call: STATS, and QUERY of one id. */
struct state {
	int stats_err;
	int query_err;
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q;
};

static const unsigned int valid_cmds[] = {
	DWQ_IOC_SCHEDULE,     DWQ_IOC_SCHEDULE_BATCH, DWQ_IOC_CANCEL,
	DWQ_IOC_RESCHEDULE,   DWQ_IOC_QUERY,	      DWQ_IOC_STATS,
	DWQ_IOC_CANCEL_BATCH,
};

static void fail(const char *what, long a, long b)
{
	if (__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED) <= 20) {
		printf("dwq-fuzz: FAIL: %s (%ld, %ld)\n", what, a, b);
		fflush(stdout);
	}
}

static __u64 rnd(__u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static __u64 below(__u64 *s, __u64 n)
{
	return n ? rnd(s) % n : 0;
}

/* An extreme or plausible 64-bit value. */
static __u64 val64(__u64 *s)
{
	static const __u64 v[] = {
		0,
		1,
		2,
		3,
		-1ULL,
		INT64_MAX,
		(__u64)INT64_MAX + 1,
		UINT32_MAX,
		1000000,
		100000,
		99999,
		366ULL * 24 * 3600 * 1000000000ULL,
		366ULL * 24 * 3600 * 1000000000ULL + 1,
		1ULL << 62,
		1024,
		1025,
	};

	switch (below(s, 4)) {
	case 0:
		return rnd(s);
	case 1:
		return below(s, 100000000);
	default:
		return v[below(s, ARRAY_SIZE(v))];
	}
}

static __u32 val32(__u64 *s)
{
	switch (below(s, 4)) {
	case 0:
		return (__u32)rnd(s);
	case 1:
		return (__u32)below(s, 8);
	case 2:
		return 1U << below(s, 32);
	default:
		return (__u32)val64(s);
	}
}

/* Fill @len bytes at @p with random fields; mostly zero reserved words. */
static void fill(__u64 *s, void *p, size_t len)
{
	__u64 *w = p;
	size_t i;

	for (i = 0; i < len / 8; i++)
		w[i] = below(s, 3) ?
			       (below(s, 2) ?
					val64(s) :
					((__u64)val32(s) << 32 | val32(s))) :
			       0;
}

/* A pointer: good, misaligned, read-only, unmapped, straddling, NULL. */
static void *ptr(__u64 *s, size_t len, bool *writable)
{
	*writable = false;
	switch (below(s, 10)) {
	case 0:
		return NULL;
	case 1:
		return hole + below(s, PAGE);
	case 2:
		return ro + below(s, PAGE - 8);
	case 3: /* the last bytes of the read-write area, then the RO page */
		*writable = true;
		return ro - 1 - below(s, len ? len : 1);
	case 4:
		return (void *)(uintptr_t)(KERNEL_ADDR + below(s, 1 << 20));
	case 5:
		*writable = true;
		return rw + 1 + below(s, 7);
	default:
		*writable = true;
		return rw + 8 * below(s, 64);
	}
}

/* No field the kernel made may look like a kernel address. */
static void check_leak(const char *what, const __u64 *w, size_t n, size_t skip)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (i != skip && w[i] >= KERNEL_ADDR)
			fail(what, (long)i, (long)w[i]);
}

static int pick_fd(__u64 *s)
{
	int fd;

	pthread_mutex_lock(&fd_lock);
	fd = fds[below(s, NFDS)];
	pthread_mutex_unlock(&fd_lock);
	return fd;
}

/*
 * Whether @cmd, a dwq command, may fail with @err, as the uapi header
 * says: ENOENT only where an id is looked up, ENOSPC only where a limit is
 * charged; STATS, which changes nothing, only with EFAULT.
 */
static bool err_allowed(unsigned int cmd, int err)
{
	switch (err) {
	case EFAULT:
	case EBADF: /* another thread closed it */
		return true;
	case EINVAL:
		return cmd != DWQ_IOC_STATS;
	case ENOENT:
		return cmd == DWQ_IOC_CANCEL || cmd == DWQ_IOC_RESCHEDULE ||
		       cmd == DWQ_IOC_QUERY;
	case ENOSPC:
		return cmd == DWQ_IOC_SCHEDULE ||
		       cmd == DWQ_IOC_SCHEDULE_BATCH ||
		       cmd == DWQ_IOC_RESCHEDULE;
	}
	return false;
}

static void count(long ret, int err, bool valid, unsigned int cmd)
{
	if (!ret) {
		if (!valid)
			fail("an unknown command succeeded", cmd, 0);
		else
			__atomic_add_fetch(&n_ok, 1, __ATOMIC_RELAXED);
		return;
	}
	switch (err) {
	case ENOTTY:
		__atomic_add_fetch(&n_enotty, 1, __ATOMIC_RELAXED);
		if (valid)
			fail("a dwq command said ENOTTY", cmd, 0);
		return;
	case EFAULT:
		__atomic_add_fetch(&n_efault, 1, __ATOMIC_RELAXED);
		break;
	case EINVAL:
		__atomic_add_fetch(&n_einval, 1, __ATOMIC_RELAXED);
		break;
	case ENOENT:
	case ENOSPC:
	case EBADF: /* another thread closed it */
		__atomic_add_fetch(&n_other, 1, __ATOMIC_RELAXED);
		break;
	default:
		fail("an errno the ABI does not allow", cmd, err);
	}
	if (!valid && err != EBADF)
		fail("an unknown command was not ENOTTY", cmd, err);
	if (valid && !err_allowed(cmd, err))
		fail("an errno the ABI does not allow for this command", cmd,
		     err);
}

/*
 * The types of the commands the VFS answers itself, before dwq sees them
 * (do_vfs_ioctl(): FIOCLEX, FIONBIO, FIGETBSZ, FIFREEZE, FICLONE,
 * FS_IOC_GETFSUUID, ...); some succeed on any file.
 */
static bool vfs_type(unsigned int cmd)
{
	switch (_IOC_TYPE(cmd)) {
	case 0x00:
	case 0x15:
	case 'T':
	case 'X':
	case 'f':
	case 0x94:
		return true;
	}
	return false;
}

static struct state state_of(int fd, __u64 id)
{
	struct state x = { .query_err = ENOENT };

	x.stats_err = ioctl(fd, DWQ_IOC_STATS, &x.st) ? errno : 0;
	if (id) {
		x.q.id = id;
		x.query_err = ioctl(fd, DWQ_IOC_QUERY, &x.q) ? errno : 0;
	}
	return x;
}

static __u64 clock_ns(__u32 flags)
{
	struct timespec ts;

	clock_gettime(flags & DWQ_SCHED_BOOTTIME ? CLOCK_BOOTTIME :
						   CLOCK_MONOTONIC,
		      &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Two readings differ in what only a call could have changed. */
static bool stats_differ(const struct dwq_ioc_stats *b,
			 const struct dwq_ioc_stats *a)
{
	return a->pending != b->pending || a->fired != b->fired ||
	       a->cancelled != b->cancelled || a->coalesced != b->coalesced ||
	       a->user_tasks != b->user_tasks || a->all_tasks != b->all_tasks ||
	       a->user_rate_mhz != b->user_rate_mhz;
}

/* The task is as it was, but for what time alone changes. */
static bool task_differs(const struct dwq_ioc_query *b,
			 const struct dwq_ioc_query *a)
{
	return a->cookie != b->cookie || a->deadline_ns != b->deadline_ns ||
	       a->period_ns != b->period_ns || a->runs != b->runs ||
	       a->skipped != b->skipped || a->folded != b->folded ||
	       a->mode != b->mode || a->flags != b->flags ||
	       (a->state != b->state &&
		(b->state != DWQ_STATE_QUEUED || a->state != DWQ_STATE_PARKED));
}

/*
 * A judged call of @cmd (0: a read()) failed with @err: its file's state
 * @a after it must be @b's, before it.
 */
static void judge(unsigned int cmd, int err, const struct state *b,
		  const struct state *a)
{
	bool gone;

	__atomic_add_fetch(&n_judged, 1, __ATOMIC_RELAXED);
	if (b->stats_err || a->stats_err) {
		fail("STATS around a refused call failed", cmd,
		     b->stats_err ? b->stats_err : a->stats_err);
		return;
	}
	if (stats_differ(&b->st, &a->st)) {
		fail("a refused call changed STATS", cmd, err);
		if (__atomic_load_n(&failures, __ATOMIC_RELAXED) <= 20)
			printf("dwq-fuzz: pending %llu/%llu fired %llu/%llu cancelled %llu/%llu\n",
			       (unsigned long long)b->st.pending,
			       (unsigned long long)a->st.pending,
			       (unsigned long long)b->st.fired,
			       (unsigned long long)a->st.fired,
			       (unsigned long long)b->st.cancelled,
			       (unsigned long long)a->st.cancelled);
	}
	if (b->query_err)
		return;
	/* A one-shot's id goes when it comes due: time, not the call. */
	gone = a->query_err &&
	       !(a->query_err == ENOENT && b->q.mode == DWQ_MODE_ONESHOT &&
		 b->q.deadline_ns <= clock_ns(b->q.flags));
	if (gone || (!a->query_err && task_differs(&b->q, &a->q))) {
		fail("a refused call changed the task it named", cmd, err);
		if (__atomic_load_n(&failures, __ATOMIC_RELAXED) <= 20)
			printf("dwq-fuzz: id %llu: state %u/%u (%d) deadline %llu/%llu\n",
			       (unsigned long long)b->q.id, b->q.state,
			       a->q.state, a->query_err,
			       (unsigned long long)b->q.deadline_ns,
			       (unsigned long long)a->q.deadline_ns);
	}
}

/* A one-shot an hour away on @fd, for a judged call to name; 0 if none. */
static __u64 plant(int fd)
{
	struct dwq_ioc_schedule sc = { .time_ns = 3600ULL * 1000000000ULL };

	return ioctl(fd, DWQ_IOC_SCHEDULE, &sc) ? 0 : sc.id;
}

static void fuzz_ioctl(__u64 *s, bool judged)
{
	__u64 buf[64];
	struct dwq_ioc_schedule_batch *b;
	struct dwq_ioc_cancel_batch *cb;
	struct dwq_ioc_cancel *ce;
	unsigned int cmd, size;
	bool valid, writable, ew;
	size_t room = 0;
	int fd = pick_fd(s), err;
	struct state before, after;
	__u64 id = 0, planted = 0;
	void *arg;
	long ret;
	size_t i;

	switch (below(s, 6)) {
	case 0: /* any number at all, but the VFS's own */
		do
			cmd = (__u32)rnd(s);
		while (vfs_type(cmd));
		break;
	case 1: /* dwq's magic, any nr, size and direction */
		size = below(s, 2) ? below(s, 256) : (__u32)below(s, 1 << 14);
		cmd = _IOC(below(s, 4), DWQ_IOC_MAGIC, below(s, 12), size);
		break;
	case 2: /* a real command with its size off by a little */
		cmd = valid_cmds[below(s, ARRAY_SIZE(valid_cmds))];
		cmd = _IOC(_IOC_DIR(cmd), DWQ_IOC_MAGIC, _IOC_NR(cmd),
			   _IOC_SIZE(cmd) + (below(s, 2) ? 8 : -8));
		break;
	default:
		cmd = valid_cmds[below(s, ARRAY_SIZE(valid_cmds))];
		break;
	}
	valid = false;
	for (i = 0; i < ARRAY_SIZE(valid_cmds); i++)
		valid |= cmd == valid_cmds[i];

	arg = ptr(s, _IOC_SIZE(cmd), &writable);
	if (writable) {
		/* Up to the read-only page, which may cut the struct short. */
		room = ro - (char *)arg;
		if (room > sizeof(buf))
			room = sizeof(buf);
		fill(s, buf, sizeof(buf));
		memcpy(arg, buf, _IOC_SIZE(cmd) < room ? _IOC_SIZE(cmd) : room);
		if (cmd == DWQ_IOC_SCHEDULE_BATCH && (uintptr_t)arg % 8 == 0 &&
		    sizeof(*b) <= room) {
			/* A batch: entries somewhere, a count that is often sane. */
			b = arg;
			b->entries = (uintptr_t)ptr(s, 64, &ew);
			if (below(s, 2))
				b->count = 1 + below(s, 40);
			if (ew && (char *)(uintptr_t)b->entries +
						  64 * (__u64)b->count <=
					  ro)
				fill(s, (void *)(uintptr_t)b->entries,
				     64 * b->count);
			if (below(s, 2)) {
				b->flags = 0;
				b->reserved = 0;
			}
		}
		if (cmd == DWQ_IOC_CANCEL_BATCH && (uintptr_t)arg % 8 == 0 &&
		    sizeof(*cb) <= room) {
			/*
			 * Entries somewhere, a sane count, small ids that
			 * the file may own, reserved zero: often a real
			 * batch cancel.
			 */
			cb = arg;
			cb->entries = (uintptr_t)ptr(s, 16, &ew);
			if (below(s, 2))
				cb->count = 1 + below(s, 40);
			ce = (void *)(uintptr_t)cb->entries;
			if (ew && (char *)ce + 16 * (__u64)cb->count <= ro) {
				fill(s, ce, sizeof(*ce) * cb->count);
				for (i = 0; i < cb->count && below(s, 4); i++) {
					ce[i].id = below(s, 64);
					ce[i].reserved = 0;
				}
			}
			if (below(s, 2)) {
				cb->flags = 0;
				cb->reserved = 0;
			}
		}
	}
	/*
	 * The id a judged CANCEL or RESCHEDULE names (its first field), half
	 * of them a task of the file's, scheduled for it.
	 */
	if (judged && writable && room >= 8 &&
	    (cmd == DWQ_IOC_CANCEL || cmd == DWQ_IOC_RESCHEDULE)) {
		if (below(s, 2)) {
			planted = plant(fd);
			if (planted)
				memcpy(arg, &planted, 8);
		}
		memcpy(&id, arg, 8);
	}
	if (judged)
		before = state_of(fd, id);
	ret = ioctl(fd, cmd, arg);
	err = errno;
	count(ret, err, valid, cmd);
	if (judged && ret) {
		after = state_of(fd, id);
		judge(cmd, err, &before, &after);
	}
	if (planted) {
		struct dwq_ioc_cancel c = { .id = planted };

		ioctl(fd, DWQ_IOC_CANCEL, &c); /* gone already: ENOENT */
	}
	if (!ret && writable && (char *)arg + 168 <= ro) {
		/* Word 6 of STATS holds workers and leader, which may be -1. */
		if (cmd == DWQ_IOC_STATS)
			check_leak("STATS returned a kernel address", arg, 21,
				   6);
		else if (cmd == DWQ_IOC_QUERY)
			check_leak("QUERY returned a kernel address", arg, 10,
				   4);
	}
}

static void fuzz_read(__u64 *s, bool judged)
{
	static const size_t sizes[] = { 0,  1,	  47,	48,	 49,	  95,
					96, 4095, 4096, 1 << 20, SIZE_MAX };
	struct dwq_event *ev;
	bool writable;
	size_t len = sizes[below(s, ARRAY_SIZE(sizes))];
	void *p = ptr(s, len, &writable);
	struct state before, after;
	int i, fd = pick_fd(s), err;
	ssize_t n;

	if (judged)
		before = state_of(fd, 0);
	n = read(fd, p, len);
	err = errno;
	if (judged && n < 0) {
		after = state_of(fd, 0);
		judge(0, err, &before, &after);
	}
	errno = err;
	if (n < 0) {
		if (errno != EAGAIN && errno != EINVAL && errno != EFAULT &&
		    errno != EBADF)
			fail("read: an errno the ABI does not allow", (long)len,
			     errno);
		if (errno == EINVAL && len >= sizeof(*ev) && len != SIZE_MAX)
			fail("read of a whole event said EINVAL", (long)len, 0);
		return;
	}
	if (n % sizeof(*ev) || (size_t)n > len)
		fail("read returned a partial event", (long)len, (long)n);
	for (ev = p, i = 0; writable && i < n / (int)sizeof(*ev); i++)
		check_leak("an event has a kernel address", (__u64 *)&ev[i], 5,
			   1);
}

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * The blocking file's number: above any open() can return here, so no
 * thread that picked a number from fds[] just before it was closed (the
 * close-while-in-use case) can find this file under it. A stale number
 * reused by a blocking file would leave that thread's read() asleep for
 * good, with no timer to wake it and SIGALRM blocked.
 */
#define BLOCKING_FD 256

/*
 * A blocking read on a fresh file, interrupted by a signal. SIGALRM is
 * blocked everywhere else, so it comes to this thread; the timer repeats
 * in case it fires before the read sleeps; one such read at a time. The
 * file is opened non-blocking at a low number, moved to BLOCKING_FD and
 * only there made blocking.
 */
static void blocking_read(void)
{
	static pthread_mutex_t one = PTHREAD_MUTEX_INITIALIZER;
	struct itimerval it = {
		.it_value = { .tv_usec = 2000 }, .it_interval = { .tv_usec = 2000 },
	}, off = {};
	struct dwq_event ev;
	sigset_t alrm;
	ssize_t n;
	int fd, low, err;

	low = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (low < 0)
		return;
	pthread_mutex_lock(&one);
	fd = fcntl(low, F_DUPFD_CLOEXEC, BLOCKING_FD);
	err = fd < 0 ? errno : 0;
	if (fd == BLOCKING_FD && fcntl(fd, F_SETFL, 0))
		err = errno;
	/* err kept: close() may set errno too. */
	close(low);
	if (fd != BLOCKING_FD || err) {
		fail("moving the blocking file to its own number", fd, err);
		pthread_mutex_unlock(&one);
		if (fd >= 0)
			close(fd);
		return;
	}
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	n = read(fd, &ev, sizeof(ev));
	err = errno;
	pthread_sigmask(SIG_BLOCK, &alrm, NULL);
	setitimer(ITIMER_REAL, &off, NULL);
	close(fd);
	pthread_mutex_unlock(&one);
	if (n >= 0 || err != EINTR)
		fail("blocking read with nothing to read did not end in EINTR",
		     n, err);
	else
		__atomic_add_fetch(&n_eintr, 1, __ATOMIC_RELAXED);
}

static void fuzz_files(__u64 *s)
{
	int i = below(s, NFDS), fd, old;
	pid_t pid;

	switch (below(s, 8)) {
	case 0: /* close one while others may use it, and reopen */
		fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return;
		pthread_mutex_lock(&fd_lock);
		old = fds[i];
		fds[i] = fd;
		pthread_mutex_unlock(&fd_lock);
		close(old);
		break;
	case 1: /* a dup that outlives nothing: its close must not cancel */
		fd = dup(pick_fd(s));
		if (fd >= 0)
			close(fd);
		break;
	case 2: /* a child shares the files, uses and leaves them */
		pid = fork();
		if (pid == 0) {
			struct dwq_ioc_stats st;

			ioctl(fds[i], DWQ_IOC_STATS, &st);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		break;
	default: {
		struct pollfd p = { .fd = pick_fd(s), .events = POLLIN };

		poll(&p, 1, 0);
	}
	}
}

static void *thread(void *arg)
{
	__u64 s = (__u64)(uintptr_t)arg;
	bool judged;
	char *map;
	__u64 r;

	map = mmap(NULL, 6 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fail("mmap", errno, 0);
		return NULL;
	}
	rw = map;
	ro = map + 4 * PAGE;
	hole = map + 5 * PAGE;
	mprotect(ro, PAGE, PROT_READ);
	munmap(hole, PAGE);

	while (__atomic_add_fetch(&done_calls, 1, __ATOMIC_RELAXED) <= calls) {
		r = below(&s, 1000);
		judged = r < 990 && !below(&s, 4);
		if (judged)
			pthread_rwlock_wrlock(&judge_lock);
		else
			pthread_rwlock_rdlock(&judge_lock);
		if (r < 800)
			fuzz_ioctl(&s, judged);
		else if (r < 990)
			fuzz_read(&s, judged);
		else if (r < 999)
			fuzz_files(&s);
		else
			blocking_read();
		pthread_rwlock_unlock(&judge_lock);
	}
	return NULL;
}

/* After all that, the module still works: schedule, wait, read. */
static bool round_trip(void)
{
	struct dwq_ioc_schedule sc = { .time_ns = 1000000, .cookie = 42 };
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct dwq_event ev;

	if (fd < 0 || ioctl(fd, DWQ_IOC_SCHEDULE, &sc) ||
	    poll(&p, 1, 10000) != 1 ||
	    read(fd, &ev, sizeof(ev)) != sizeof(ev)) {
		printf("dwq-fuzz: FAIL: round trip: %s\n", strerror(errno));
		return false;
	}
	close(fd);
	if (ev.id != sc.id || ev.cookie != 42 || ev.flags != DWQ_EVENT_LAST) {
		printf("dwq-fuzz: FAIL: round trip: event id %llu cookie %llu flags %#x\n",
		       (unsigned long long)ev.id, (unsigned long long)ev.cookie,
		       ev.flags);
		return false;
	}
	printf("dwq-fuzz: round trip ok: id %llu fired %llu us late\n",
	       (unsigned long long)ev.id,
	       (unsigned long long)(ev.fired_ns - ev.deadline_ns) / 1000);
	return true;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "calls", 1, NULL, 'c' },
					    { "threads", 1, NULL, 't' },
					    { "seed", 1, NULL, 's' },
					    { "dev", 1, NULL, 'd' },
					    {} };
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	pthread_rwlockattr_t la;
	pthread_t th[16];
	sigset_t alrm;
	__u64 st;
	int c, i;

	seed = (__u64)time(NULL) ^ ((__u64)getpid() << 32);
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'c')
			calls = atol(optarg);
		else if (c == 't')
			nthreads = atoi(optarg);
		else if (c == 's')
			seed = strtoull(optarg, NULL, 0);
		else if (c == 'd')
			dev = optarg;
		else
			return 2;
	}
	if (nthreads < 1 || nthreads > 16)
		return 2;
	printf("dwq-fuzz: seed=%llu calls=%ld threads=%d\n",
	       (unsigned long long)seed, calls, nthreads);
	fflush(stdout);
	pthread_rwlockattr_init(&la);
	pthread_rwlockattr_setkind_np(&la,
				      PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&judge_lock, &la);
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL); /* inherited by threads */

	for (i = 0; i < NFDS; i++) {
		fds[i] = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fds[i] < 0) {
			perror(dev);
			return 2;
		}
	}

	st = seed ? seed : 1;
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, thread,
			       (void *)(uintptr_t)(rnd(&st) | 1));
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NFDS; i++)
		close(fds[i]);

	printf("calls=%ld ok=%llu enotty=%llu efault=%llu einval=%llu other=%llu eintr=%llu\n",
	       calls, (unsigned long long)n_ok, (unsigned long long)n_enotty,
	       (unsigned long long)n_efault, (unsigned long long)n_einval,
	       (unsigned long long)n_other, (unsigned long long)n_eintr);
	printf("dwq-fuzz: %llu refused calls judged: their file's STATS (and task) unchanged\n",
	       (unsigned long long)n_judged);
	if (!round_trip() || failures || !n_ok || !n_enotty || !n_efault ||
	    !n_judged) {
		printf("dwq-fuzz: FAIL: %d failed checks (seed %llu)\n",
		       failures, (unsigned long long)seed);
		return 1;
	}
	printf("dwq-fuzz: PASS\n");
	return 0;
}
