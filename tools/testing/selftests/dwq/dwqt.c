// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of dwq's selftests for /dev/dwq.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "dwqt.h"

const char *dwqt_dev(void)
{
	const char *dev = getenv("DWQ_DEV");

	return dev && *dev ? dev : "/dev/dwq";
}

int __dwqt_open(const char *file, int line, int flags)
{
	int fd = open(dwqt_dev(), O_RDWR | O_CLOEXEC | flags);

	if (fd < 0)
		__t_fail(file, line, "open %s: %s", dwqt_dev(),
			 t_errname(errno));
	return fd;
}

long dwqt_ioctl(int fd, unsigned long cmd, void *arg)
{
	long r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

struct dwq_ioc_schedule dwqt_sched_arg(uint64_t time_ns, uint64_t period_ns,
				       uint32_t mode, uint32_t flags,
				       uint64_t cookie)
{
	struct dwq_ioc_schedule s = {
		.time_ns = time_ns,
		.period_ns = period_ns,
		.cookie = cookie,
		.mode = mode,
		.flags = flags,
	};

	return s;
}

long dwqt_sched(int fd, uint64_t time_ns, uint64_t period_ns, uint32_t mode,
		uint32_t flags, uint64_t cookie, uint64_t *id)
{
	struct dwq_ioc_schedule s =
		dwqt_sched_arg(time_ns, period_ns, mode, flags, cookie);
	long r;

	r = dwqt_ioctl(fd, DWQ_IOC_SCHEDULE, &s);
	if (id)
		*id = s.id;
	return r;
}

uint64_t __dwqt_sched_ok(const char *file, int line, int fd, uint64_t time_ns,
			 uint64_t period_ns, uint32_t mode, uint32_t flags,
			 uint64_t cookie)
{
	uint64_t id;
	long r;

	r = dwqt_sched(fd, time_ns, period_ns, mode, flags, cookie, &id);
	if (r)
		__t_fail(file, line,
			 "SCHEDULE time %llu period %llu mode %u flags %#x: %s",
			 (unsigned long long)time_ns,
			 (unsigned long long)period_ns, mode, flags,
			 t_errname(-r));
	if (!id)
		__t_fail(file, line, "SCHEDULE succeeded with id 0");
	return id;
}

long dwqt_batch(int fd, struct dwq_ioc_schedule *e, uint32_t count,
		uint32_t *error_index)
{
	struct dwq_ioc_schedule_batch b = {
		.entries = (uintptr_t)e,
		.count = count,
		.error_index = 0xdeadbeef,
	};
	long r;

	r = dwqt_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b);
	if (error_index)
		*error_index = b.error_index;
	return r;
}

long dwqt_cancel(int fd, uint64_t id, uint32_t *result)
{
	struct dwq_ioc_cancel c = { .id = id };
	long r;

	r = dwqt_ioctl(fd, DWQ_IOC_CANCEL, &c);
	if (result)
		*result = c.result;
	return r;
}

long dwqt_cancel_batch(int fd, struct dwq_ioc_cancel *e, uint32_t count,
		       uint32_t *error_index)
{
	struct dwq_ioc_cancel_batch b = {
		.entries = (uintptr_t)e,
		.count = count,
		.error_index = 0xdeadbeef,
	};
	long r;

	r = dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b);
	if (error_index)
		*error_index = b.error_index;
	return r;
}

long dwqt_resched(int fd, uint64_t id, uint64_t time_ns, uint64_t period_ns,
		  uint32_t mode, uint32_t flags)
{
	struct dwq_ioc_reschedule r = {
		.id = id,
		.time_ns = time_ns,
		.period_ns = period_ns,
		.mode = mode,
		.flags = flags,
	};

	return dwqt_ioctl(fd, DWQ_IOC_RESCHEDULE, &r);
}

long dwqt_query(int fd, uint64_t id, struct dwq_ioc_query *q)
{
	memset(q, 0, sizeof(*q));
	q->id = id;
	return dwqt_ioctl(fd, DWQ_IOC_QUERY, q);
}

struct dwq_ioc_query __dwqt_query_ok(const char *file, int line, int fd,
				     uint64_t id)
{
	struct dwq_ioc_query q;
	long r;

	r = dwqt_query(fd, id, &q);
	if (r)
		__t_fail(file, line, "QUERY id %llu: %s",
			 (unsigned long long)id, t_errname(-r));
	return q;
}

struct dwq_ioc_stats __dwqt_stats_ok(const char *file, int line, int fd)
{
	struct dwq_ioc_stats st;
	long r;

	memset(&st, 0, sizeof(st));
	r = dwqt_ioctl(fd, DWQ_IOC_STATS, &st);
	if (r)
		__t_fail(file, line, "STATS: %s", t_errname(-r));
	return st;
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

uint64_t dwqt_now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t dwqt_now_boot(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

void dwqt_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (ms % 1000) * NSEC_PER_MSEC,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int __dwqt_read_events(const char *file, int line, int fd, struct dwq_event *ev,
		       int max, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int r;

	do {
		r = poll(&p, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		__t_fail(file, line, "poll: %s", t_errname(errno));
	if (!r)
		return 0;
	if (!(p.revents & POLLIN))
		__t_fail(file, line, "poll: revents %#x without POLLIN",
			 p.revents);
	n = read(fd, ev, max * sizeof(*ev));
	if (n < 0)
		__t_fail(file, line, "read %zu bytes after POLLIN: %s",
			 max * sizeof(*ev), t_errname(errno));
	if (!n || n % sizeof(*ev))
		__t_fail(file, line,
			 "read returned %zd bytes, not a multiple of %zu > 0",
			 n, sizeof(*ev));
	return n / sizeof(*ev);
}

struct dwq_event __dwqt_read_one(const char *file, int line, int fd)
{
	struct dwq_event ev;

	if (__dwqt_read_events(file, line, fd, &ev, 1, DWQT_WAIT_MS) != 1)
		__t_fail(file, line, "no event within %d ms", DWQT_WAIT_MS);
	return ev;
}

void __dwqt_expect_no_event(const char *file, int line, int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct dwq_event ev;
	int r;

	r = poll(&p, 1, ms);
	if (r < 0)
		__t_fail(file, line, "poll: %s", t_errname(errno));
	if (!r)
		return;
	if (!(p.revents & POLLIN))
		__t_fail(file, line, "poll: revents %#x", p.revents);
	if (read(fd, &ev, sizeof(ev)) == sizeof(ev))
		__t_fail(file, line,
			 "unexpected event: id %llu cookie %llu deadline %llu flags %#x",
			 (unsigned long long)ev.id,
			 (unsigned long long)ev.cookie,
			 (unsigned long long)ev.deadline_ns, ev.flags);
	__t_fail(file, line, "POLLIN without an event to read: %s",
		 t_errname(errno));
}

void __dwqt_check_event(const char *file, int line, const struct dwq_event *ev)
{
	if (!ev->id)
		__t_fail(file, line, "an event with id 0");
	if (ev->fired_ns < ev->deadline_ns)
		__t_fail(file, line,
			 "event of id %llu fired %llu ns before its deadline %llu",
			 (unsigned long long)ev->id,
			 (unsigned long long)(ev->deadline_ns - ev->fired_ns),
			 (unsigned long long)ev->deadline_ns);
	/* read() fires a /dev/dwq task, never a worker: always 0. */
	if (ev->worker)
		__t_fail(file, line, "event of id %llu: worker %u, not 0",
			 (unsigned long long)ev->id, ev->worker);
	/* A /dev/dwq task's missed periods are all in @skipped. */
	if (ev->overruns)
		__t_fail(file, line, "event of id %llu: overruns %llu, not 0",
			 (unsigned long long)ev->id,
			 (unsigned long long)ev->overruns);
	if (ev->flags & ~(DWQ_EVENT_LAST | DWQ_EVENT_COALESCED))
		__t_fail(file, line, "event of id %llu: unknown flags %#x",
			 (unsigned long long)ev->id, ev->flags);
	/* COALESCED says exactly that firings were folded in. */
	if (!(ev->flags & DWQ_EVENT_COALESCED) != !ev->folded)
		__t_fail(file, line,
			 "event of id %llu: flags %#x, but folded %llu",
			 (unsigned long long)ev->id, ev->flags,
			 (unsigned long long)ev->folded);
}

bool dwqt_charges(int fd, struct dwqt_charges *ch)
{
	struct dwq_ioc_stats st;
	int own = -1;
	bool ok;

	if (fd < 0) {
		own = open(dwqt_dev(), O_RDWR | O_CLOEXEC);
		if (own < 0)
			return false;
		fd = own;
	}
	memset(&st, 0, sizeof(st));
	ok = !ioctl(fd, DWQ_IOC_STATS, &st);
	if (own >= 0)
		close(own);
	*ch = (struct dwqt_charges){
		.all_tasks = st.all_tasks,
		.user_tasks = st.user_tasks,
		.user_rate_mhz = st.user_rate_mhz,
	};
	return ok;
}

bool dwqt_charges_back(int fd, const struct dwqt_charges *want,
		       struct dwqt_charges *now)
{
	uint64_t end = dwqt_now() + DWQT_WAIT_MS * NSEC_PER_MSEC;

	for (;;) {
		if (!dwqt_charges(fd, now)) {
			t_note("STATS for the charges: %s", t_errname(errno));
			return false;
		}
		if (now->all_tasks == want->all_tasks &&
		    now->user_tasks == want->user_tasks &&
		    now->user_rate_mhz == want->user_rate_mhz)
			return true;
		if (dwqt_now() >= end)
			return false;
		dwqt_sleep_ms(10);
	}
}

/* Whether @n tasks can be scheduled and closed within @budget_ms. */
bool dwqt_cheap_enough(unsigned long long n, unsigned int budget_ms)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	int fd = dwqt_open(0), i;
	uint64_t t0 = dwqt_now(), ms;

	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	for (i = 0; i < 2; i++)
		T_OK(dwqt_batch(fd, e, DWQ_SCHEDULE_BATCH_MAX, NULL));
	close(fd);
	ms = (dwqt_now() - t0) / NSEC_PER_MSEC;
	t_note("%d tasks scheduled and closed in %llu ms",
	       2 * DWQ_SCHEDULE_BATCH_MAX, (unsigned long long)ms);
	return ms * n / (2 * DWQ_SCHEDULE_BATCH_MAX) <= budget_ms;
}

int dwqt_param(const char *name, unsigned long long *val)
{
	char path[256], buf[64], *end;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/dwq/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	errno = 0;
	*val = strtoull(buf, &end, 0);
	if (errno || end == buf)
		t_fail("%s: cannot parse '%s'", path, buf);
	return 0;
}

int dwqt_param_set(const char *name, unsigned long long val)
{
	char path[256], buf[32];
	int fd, n, err = 0;

	snprintf(path, sizeof(path), "/sys/module/dwq/parameters/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%llu\n", val);
	if (write(fd, buf, n) != n)
		err = -errno;
	close(fd);
	return err;
}

/*
 * Run @fn in a child and wait for it. The harness kills the whole case at
 * its time limit: the child gets a limit of its own, 10 s earlier, so
 * that the caller lives to restore what it changed for @fn.
 */
static int dwqt_run_child(void (*fn)(void))
{
	unsigned int left = dwq_case_time_left();
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", t_errname(errno));
	if (!pid) {
		if (left)
			alarm(left > 10 ? left - 10 : 1);
		fn();
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* A child of dwqt_run_child() that did not end by itself fails the case. */
static void dwqt_child_ended(int status)
{
	if (WIFSIGNALED(status))
		t_fail("the case's child was killed by signal %d%s",
		       WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timed out)" : "");
}

int dwqt_with_param(const char *name, unsigned long long val, void (*fn)(void))
{
	unsigned long long old, now;
	int status, err;

	if (dwqt_param(name, &old))
		t_fail("no parameter %s", name);
	err = dwqt_param_set(name, val);
	if (err)
		return err;
	t_note("%s set to %llu (was %llu) for this case", name, val, old);
	status = dwqt_run_child(fn);
	err = dwqt_param_set(name, old);
	if (err || dwqt_param(name, &now) || now != old)
		t_fail("cannot restore %s to %llu: %s", name, old,
		       t_errname(-err));
	dwqt_child_ended(status);
	return 0;
}

/* The contents of @path, up to @size - 1 bytes, its newline cut off. */
static int dwqt_file_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return n;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int dwqt_file_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;
	size_t len = strlen(val);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

#define DWQT_FILES_MAX 8

int dwqt_with_files(const char *const *paths, unsigned int n, const char *val,
		    void (*fn)(void))
{
	char old[DWQT_FILES_MAX][64], now[64];
	bool set[DWQT_FILES_MAX] = {};
	unsigned int i, nr_set = 0;
	int status = 0, err = 0;

	if (n > DWQT_FILES_MAX)
		t_fail("%u files to set, at most %d", n, DWQT_FILES_MAX);
	for (i = 0; i < n; i++) {
		if (dwqt_file_read(paths[i], old[i], sizeof(old[i])))
			continue;
		err = dwqt_file_write(paths[i], val);
		if (err)
			break;
		set[i] = true;
		nr_set++;
		t_note("%s set to %s (was %s) for this case", paths[i], val,
		       old[i]);
	}
	if (!err && !nr_set)
		return -ENOENT;
	if (!err)
		status = dwqt_run_child(fn);
	for (i = 0; i < n; i++) {
		if (!set[i])
			continue;
		if (dwqt_file_write(paths[i], old[i]) ||
		    dwqt_file_read(paths[i], now, sizeof(now)) ||
		    strcmp(now, old[i]))
			t_fail("cannot restore %s to %s", paths[i], old[i]);
	}
	if (err)
		return err;
	dwqt_child_ended(status);
	return 0;
}

#define FAILSLAB "/sys/kernel/debug/failslab"
#define FAIL_PAGE_ALLOC "/sys/kernel/debug/fail_page_alloc"

static void (*dwqt_fail_nth_fn)(void);

/* dwqt_with_fail_nth()'s child: no report in the kernel's log either. */
static void dwqt_fail_nth_quietly(void)
{
	static const char *const verbose[] = {
		FAILSLAB "/verbose",
		FAIL_PAGE_ALLOC "/verbose",
	};
	int err;

	err = dwqt_with_files(verbose, ARRAY_SIZE(verbose), "0",
			      dwqt_fail_nth_fn);
	if (err)
		t_fail("cannot turn fault injection's reports off: %s",
		       t_errname(-err));
}

void dwqt_with_fail_nth(void (*fn)(void))
{
	static const char *const knobs[] = {
		FAILSLAB "/ignore-gfp-wait",
		FAILSLAB "/cache-filter",
		FAIL_PAGE_ALLOC "/ignore-gfp-wait",
	};
	int err;

	if (access("/proc/thread-self/fail-nth", W_OK))
		t_skip("no /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION)");
	if (access(FAILSLAB "/ignore-gfp-wait", W_OK))
		t_skip("no %s (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)",
		       FAILSLAB "/ignore-gfp-wait");
	dwqt_fail_nth_fn = fn;
	err = dwqt_with_files(knobs, ARRAY_SIZE(knobs), "N",
			      dwqt_fail_nth_quietly);
	if (err)
		t_fail("cannot turn failslab's ignore-gfp-wait off: %s",
		       t_errname(-err));
}

void dwqt_nth_arm(int nth_fd, int nth)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", nth);
	T_EQ(pwrite(nth_fd, buf, strlen(buf), 0), (ssize_t)strlen(buf));
}

long dwqt_nth_disarm(int nth_fd)
{
	char buf[16] = { 0 };

	T_EXPECT(pread(nth_fd, buf, sizeof(buf) - 1, 0) > 0, "read fail-nth");
	T_EQ(pwrite(nth_fd, "0", 1, 0), 1);
	return strtol(buf, NULL, 10);
}

void *dwqt_unmapped(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	/* Two pages, the second one inaccessible but kept, so not reused. */
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	if (mprotect((char *)p + page, page, PROT_NONE))
		t_fail("mprotect: %s", t_errname(errno));
	return (char *)p + page;
}

void *dwqt_ro_copy(const void *src, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	if (len > (size_t)page)
		t_fail("a read-only copy of %zu bytes", len);
	p = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	memcpy(p, src, len);
	if (mprotect(p, page, PROT_READ))
		t_fail("mprotect: %s", t_errname(errno));
	return p;
}

static void *dwqt_stuck_read_fn(void *arg)
{
	struct dwqt_stuck_read *r = arg;

	r->ret = read(r->fd, r->buf, sizeof(struct dwq_event));
	return NULL;
}

bool dwqt_stuck_read_start(struct dwqt_stuck_read *r, int fd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	long page = sysconf(_SC_PAGESIZE);
	struct pollfd pfd;
	struct uffd_msg msg;

	*r = (struct dwqt_stuck_read){ .fd = fd, .ret = -1 };
	r->uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	/* Not built in, or not for kernel faults. */
	if (r->uffd < 0)
		return false;
	if (ioctl(r->uffd, UFFDIO_API, &api))
		t_fail("UFFDIO_API: %s", t_errname(errno));
	r->buf = mmap(NULL, page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->buf == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	reg.range.start = (unsigned long)r->buf;
	reg.range.len = page;
	if (ioctl(r->uffd, UFFDIO_REGISTER, &reg))
		t_fail("UFFDIO_REGISTER: %s", t_errname(errno));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&pfd, 1, DWQT_WAIT_MS) != 1)
		t_fail("no event due on the file to read");
	if (pthread_create(&r->th, NULL, dwqt_stuck_read_fn, r))
		t_fail("pthread_create");
	/* The read() is in the fault, with the file's mutex held. */
	pfd = (struct pollfd){ .fd = r->uffd, .events = POLLIN };
	if (poll(&pfd, 1, DWQT_WAIT_MS) != 1 ||
	    read(r->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		t_fail("the read() did not fault on its buffer");
	return true;
}

ssize_t dwqt_stuck_read_end(struct dwqt_stuck_read *r)
{
	long page = sysconf(_SC_PAGESIZE);
	struct uffdio_zeropage zero = {
		.range = { .start = (unsigned long)r->buf, .len = page },
	};

	if (ioctl(r->uffd, UFFDIO_ZEROPAGE, &zero))
		t_fail("UFFDIO_ZEROPAGE: %s", t_errname(errno));
	if (pthread_join(r->th, NULL))
		t_fail("pthread_join");
	close(r->uffd);
	munmap(r->buf, page);
	return r->ret;
}

void *dwqt_page(void)
{
	void *p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	return p;
}

struct dwqt_late_ioctl {
	int fd;
	unsigned long cmd;
	void *arg;
	long ret;
	pid_t tid;
};

static void *dwqt_late_ioctl_fn(void *arg)
{
	struct dwqt_late_ioctl *l = arg;

	__atomic_store_n(&l->tid, gettid(), __ATOMIC_SEQ_CST);
	l->ret = dwqt_ioctl(l->fd, l->cmd, l->arg);
	return NULL;
}

long dwqt_ioctl_then_readonly(int fd, unsigned long cmd, void *arg, void *page)
{
	struct dwqt_late_ioctl l = { .fd = fd, .cmd = cmd, .arg = arg };
	struct dwqt_stuck_read r;
	pthread_t th;

	if (!dwqt_stuck_read_start(&r, fd))
		return DWQT_NO_UFFD;
	if (pthread_create(&th, NULL, dwqt_late_ioctl_fn, &l))
		t_fail("pthread_create");
	/*
	 * The ioctl reads its argument before it waits for the file: once
	 * it sleeps in ioctl(), only the write-back is left to fault.
	 */
	while (!__atomic_load_n(&l.tid, __ATOMIC_SEQ_CST))
		dwqt_sleep_ms(1);
	t_wait_blocked(getpid(), l.tid, __NR_ioctl, "the ioctl's thread");
	if (mprotect(page, sysconf(_SC_PAGESIZE), PROT_READ))
		t_fail("mprotect: %s", t_errname(errno));
	if (dwqt_stuck_read_end(&r) != sizeof(struct dwq_event))
		t_fail("the stuck read() returned %zd", r.ret);
	if (pthread_join(th, NULL))
		t_fail("pthread_join");
	return l.ret;
}

static void dwqt_no_op(int sig)
{
	(void)sig;
}

long dwqt_ioctl_interrupted(int fd, unsigned long cmd, void *arg)
{
	struct dwqt_late_ioctl l = { .fd = fd, .cmd = cmd, .arg = arg };
	struct sigaction sa = { .sa_handler = dwqt_no_op }, old;
	struct dwqt_stuck_read r;
	pthread_t th;

	if (!dwqt_stuck_read_start(&r, fd))
		return DWQT_NO_UFFD;
	/* No SA_RESTART: the interrupted call returns EINTR, not again. */
	if (sigaction(SIGUSR1, &sa, &old))
		t_fail("sigaction: %s", t_errname(errno));
	if (pthread_create(&th, NULL, dwqt_late_ioctl_fn, &l))
		t_fail("pthread_create");
	while (!__atomic_load_n(&l.tid, __ATOMIC_SEQ_CST))
		dwqt_sleep_ms(1);
	t_wait_blocked(getpid(), l.tid, __NR_ioctl, "the ioctl's thread");
	if (pthread_kill(th, SIGUSR1))
		t_fail("pthread_kill");
	if (pthread_join(th, NULL))
		t_fail("pthread_join");
	if (sigaction(SIGUSR1, &old, NULL))
		t_fail("sigaction: %s", t_errname(errno));
	if (dwqt_stuck_read_end(&r) != sizeof(struct dwq_event))
		t_fail("the stuck read() returned %zd", r.ret);
	return l.ret;
}

void *dwqt_at_end_of_mapping(size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t size = (len + 2 * page - 1) / page * page;
	char *p;

	p = mmap(NULL, size + page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	if (mprotect(p + size, page, PROT_NONE))
		t_fail("mprotect: %s", t_errname(errno));
	return p + size - len;
}

bool dwqt_fdinfo(int fd, const char *key, char *val, size_t size)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		t_fail("%s: %s", path, t_errname(errno));
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if (strncmp(line, key, klen))
			continue;
		v = line + klen;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(val, size, "%s", v);
		found = true;
		break;
	}
	fclose(f);
	return found;
}

uint64_t dwqt_fdinfo_u64(int fd, const char *key)
{
	char val[128], *end;
	uint64_t v;

	if (!dwqt_fdinfo(fd, key, val, sizeof(val)))
		t_fail("no '%s' line in /proc/self/fdinfo/%d", key, fd);
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || end == val || *end)
		t_fail("'%s' has the value '%s', not a number", key, val);
	return v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void dwqt_check_ids(const uint64_t *ids, size_t n)
{
	uint64_t *s = malloc(n * sizeof(*s));
	size_t i;

	if (!s)
		t_fail("out of memory");
	memcpy(s, ids, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u64);
	for (i = 0; i < n; i++) {
		T_EXPECT(s[i] != 0, "an id is 0");
		T_EXPECT(!i || s[i] != s[i - 1], "id %llu given twice",
			 (unsigned long long)s[i]);
	}
	free(s);
}
