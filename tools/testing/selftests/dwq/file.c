// SPDX-License-Identifier: GPL-2.0
/*
 * Files: close() cancels, files are isolated, dup() and fork() share,
 * fdinfo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/securebits.h>

#include "dwq_test.h"

FIXTURE(close)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(close)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(close)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(file)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(file)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(file)
{
	dwq_teardown(_metadata, &self->f);
}

/* close() of a file with 1000 tasks takes them all out of the queue. */
TEST_F(close, cancels_everything)
{
	static struct dwq_ioc_schedule e[1000];
	int a = self->f.fd, b = dwqt_open(0);
	unsigned int base = dwqt_stats_ok(a).all_tasks;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS + i * NSEC_PER_MSEC,
				      i % 2 ? NSEC_PER_SEC : 0, i % 2, 0, i);
	T_OK(dwqt_batch(b, e, ARRAY_SIZE(e), NULL));
	T_EQ(dwqt_stats_ok(b).pending, ARRAY_SIZE(e));
	T_EQ(dwqt_stats_ok(a).all_tasks, base + ARRAY_SIZE(e));
	T_EXPECT(!close(b), "close: %s", t_errname(errno));
	T_EQ(dwqt_stats_ok(a).all_tasks, base);
}

/* close() while periodic tasks fire and events wait unread. */
TEST_F(close, while_firing)
{
	int a = self->f.fd, b, round, i;
	unsigned int base = dwqt_stats_ok(a).all_tasks;

	for (round = 0; round < 4; round++) {
		b = dwqt_open(0);
		for (i = 0; i < 8; i++) {
			dwqt_sched_ok(b, 0, 2 * NSEC_PER_MSEC,
				      DWQ_MODE_FIXED_RATE, 0, i);
			dwqt_sched_ok(b, 0, 2 * NSEC_PER_MSEC,
				      DWQ_MODE_FIXED_DELAY, 0, i);
			dwqt_sched_ok(b, 0, 0, DWQ_MODE_ONESHOT, 0, i);
			dwqt_sched_ok(b, i * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT,
				      0, i);
		}
		/* Round 0 closes at once, the others after some firings. */
		dwqt_sleep_ms(round * 50);
		T_EXPECT(!close(b), "close: %s", t_errname(errno));
		T_EQ(dwqt_stats_ok(a).all_tasks, base);
	}
}

/* File B cannot see, cancel, reschedule or query file A's tasks. */
TEST_F(file, isolation)
{
	int a = self->f.fd, b = dwqt_open(0);
	uint64_t id, now_id, deadline, bid;
	struct dwq_ioc_query q;
	struct dwq_event ev;
	struct dwq_ioc_stats st;

	deadline = dwqt_now() + DWQT_FAR_NS;
	id = dwqt_sched_ok(a, deadline, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 1);
	now_id = dwqt_sched_ok(a, 0, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_ERR(dwqt_cancel(b, id, NULL), ENOENT);
	T_ERR(dwqt_resched(b, id, 0, 0, 0, 0), ENOENT);
	T_ERR(dwqt_query(b, id, &q), ENOENT);
	T_ERR(dwqt_cancel(b, now_id, NULL), ENOENT);
	st = dwqt_stats_ok(b);
	T_EQ(st.pending, 0);
	T_EQ(st.fired, 0);
	T_EQ(st.events, 0);
	/* A's event is A's only. */
	dwqt_expect_no_event(b, 300);
	ev = dwqt_read_one(a);
	T_EQ(ev.id, now_id);
	q = dwqt_query_ok(a, id);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.deadline_ns, deadline);
	/* B's own ids may have the same values: they are B's. */
	bid = dwqt_sched_ok(b, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 3);
	T_OK(dwqt_cancel(b, bid, NULL));
	bid = dwqt_sched_ok(b, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 4);
	T_OK(dwqt_resched(b, bid, 0, 0, 0, 0));
	T_EQ(dwqt_read_one(b).id, bid);
	q = dwqt_query_ok(a, id);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.deadline_ns, deadline);
	T_EQ(dwqt_stats_ok(a).pending, 1);
	T_EQ(dwqt_stats_ok(a).cancelled, 0);
}

/* dup() shares the file: its tasks, its events, until the last close. */
TEST_F(file, dup_shares)
{
	int fd = self->f.fd, fd2 = dup(fd), o = dwqt_open(0);
	unsigned int base = dwqt_stats_ok(o).all_tasks;
	uint64_t far, soon, kept;
	uint32_t result;
	struct dwq_ioc_query q;

	T_EXPECT(fd2 >= 0, "dup: %s", t_errname(errno));
	far = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	T_EQ(dwqt_query_ok(fd2, far).cookie, 1);
	soon = dwqt_sched_ok(fd2, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0,
			     2);
	T_EQ(dwqt_read_one(fd).id, soon);
	T_OK(dwqt_cancel(fd2, far, &result));
	T_EQ(result, DWQ_RESULT_REMOVED);
	T_ERR(dwqt_query(fd, far, &q), ENOENT);
	kept = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 3);
	soon = dwqt_sched_ok(fd, NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT, 0, 4);
	T_EXPECT(!close(fd), "close: %s", t_errname(errno));
	T_EQ(dwqt_stats_ok(o).all_tasks, base + 2);
	T_EQ(dwqt_query_ok(fd2, kept).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_read_one(fd2).id, soon);
	T_EQ(dwqt_stats_ok(fd2).pending, 1);
	T_EXPECT(!close(fd2), "close: %s", t_errname(errno));
	T_EQ(dwqt_stats_ok(o).all_tasks, base);
}

/*
 * fork() shares the file: the parent schedules and closes its copy, the
 * child still gets the event.
 */
TEST_F(file, fork_child_reads)
{
	int fd = self->f.fd, o = dwqt_open(0), p[2], status;
	unsigned int base = dwqt_stats_ok(o).all_tasks;
	struct pollfd pfd;
	struct dwq_event ev;
	uint64_t id;
	pid_t pid;

	if (pipe(p))
		t_fail("pipe: %s", t_errname(errno));
	id = dwqt_sched_ok(fd, NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT, 0, 55);
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", t_errname(errno));
	if (!pid) {
		ev = dwqt_read_one(fd);
		if (write(p[1], &ev, sizeof(ev)) != sizeof(ev))
			t_fail("child: write: %s", t_errname(errno));
		_exit(0);
	}
	close(p[1]);
	T_EXPECT(!close(fd), "close: %s", t_errname(errno));
	/* The child's reference keeps the task. */
	T_EQ(dwqt_stats_ok(o).all_tasks, base + 1);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	T_EQ(poll(&pfd, 1, DWQT_WAIT_MS + 1000), 1);
	T_EXPECT(read(p[0], &ev, sizeof(ev)) == sizeof(ev),
		 "the child sent no event");
	T_EQ(ev.id, id);
	T_EQ(ev.cookie, 55);
	T_EQ(ev.flags, DWQ_EVENT_LAST);
	T_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status), "child status %#x",
		 status);
	T_EQ(dwqt_stats_ok(o).all_tasks, base);
}

/* The tasks of a file shared with a child go when the child closes last. */
TEST_F(file, fork_last_close)
{
	static struct dwq_ioc_schedule e[100];
	int fd = self->f.fd, o = dwqt_open(0), p[2], status;
	unsigned int base = dwqt_stats_ok(o).all_tasks;
	pid_t pid;
	size_t i;
	char c;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	T_OK(dwqt_batch(fd, e, ARRAY_SIZE(e), NULL));
	if (pipe(p))
		t_fail("pipe: %s", t_errname(errno));
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", t_errname(errno));
	if (!pid) {
		close(p[1]);
		/* Wait for the parent, then exit: the last close. */
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		T_EQ(dwqt_stats_ok(fd).pending, ARRAY_SIZE(e));
		_exit(0);
	}
	close(p[0]);
	T_EXPECT(!close(fd), "close: %s", t_errname(errno));
	T_EQ(dwqt_stats_ok(o).all_tasks, base + ARRAY_SIZE(e));
	T_EQ(write(p[1], "x", 1), 1);
	T_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status), "child status %#x",
		 status);
	T_EQ(dwqt_stats_ok(o).all_tasks, base);
}

/* fdinfo shows the pending count and the next deadline. */
TEST_F(file, fdinfo)
{
	int fd = self->f.fd;
	uint64_t d, id[3];
	char val[128];

	T_EQ(dwqt_fdinfo_u64(fd, "dwq-pending:"), 0);
	T_EXPECT(dwqt_fdinfo(fd, "dwq-next-deadline-ns:", val, sizeof(val)),
		 "no 'dwq-next-deadline-ns:' line with no task");
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-next-deadline-ns:"), 0);
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-next-id:"), 0);
	d = dwqt_now() + DWQT_FAR_NS;
	id[1] = dwqt_sched_ok(fd, d + NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT,
			      DWQ_SCHED_ABS, 1);
	id[0] = dwqt_sched_ok(fd, d, NSEC_PER_SEC, DWQ_MODE_FIXED_RATE,
			      DWQ_SCHED_ABS, 0);
	id[2] = dwqt_sched_ok(fd, d + 2 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT,
			      DWQ_SCHED_ABS, 2);
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-pending:"), 3);
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-next-deadline-ns:"), d);
	T_OK(dwqt_cancel(fd, id[0], NULL));
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-pending:"), 2);
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-next-deadline-ns:"), d + NSEC_PER_SEC);
	T_OK(dwqt_resched(fd, id[2], d - NSEC_PER_SEC, 0, 0, DWQ_SCHED_ABS));
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-next-deadline-ns:"), d - NSEC_PER_SEC);
	T_OK(dwqt_cancel(fd, id[1], NULL));
	T_OK(dwqt_cancel(fd, id[2], NULL));
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-pending:"), 0);
}

#define PAGES_BATCHES 8

/*
 * dwq-array-pages-bytes: 0 while the file's arrays are small enough to be
 * kmalloc() objects (in /proc/slabinfo); with 8192 tasks in its heap, the
 * pages its arrays take, whole: at least the heap's slots, at most twice
 * all three arrays' slots and buckets, page-rounded.
 */
TEST_F(file, fdinfo_array_pages)
{
	static struct dwq_ioc_schedule e[1024];
	uint64_t far = dwqt_now() + DWQT_FAR_NS;
	unsigned long long bytes, used, heap, page;
	int fd = self->f.fd;
	unsigned int b, i;

	page = sysconf(_SC_PAGESIZE);
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-array-pages-bytes:"), 0);
	dwqt_sched_ok(fd, far, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 0);
	T_EQ(dwqt_fdinfo_u64(fd, "dwq-array-pages-bytes:"), 0);
	/* Falling deadlines: each batch's tasks go to the heap. */
	for (b = 0; b < PAGES_BATCHES; b++) {
		memset(e, 0, sizeof(e));
		for (i = 0; i < ARRAY_SIZE(e); i++) {
			e[i].time_ns = far - 1 - b * ARRAY_SIZE(e) - i;
			e[i].flags = DWQ_SCHED_ABS;
		}
		T_OK(dwqt_batch(fd, e, ARRAY_SIZE(e), NULL));
	}
	bytes = dwqt_fdinfo_u64(fd, "dwq-array-pages-bytes:");
	heap = dwqt_fdinfo_u64(fd, "dwq-heap-slots:") * 16;
	used = heap + dwqt_fdinfo_u64(fd, "dwq-run-slots:") * 8 +
	       dwqt_fdinfo_u64(fd, "dwq-id-buckets:") * 8;
	t_note("%llu bytes of pages for %llu of slots and buckets", bytes,
	       used);
	T_EXPECT(bytes >= heap, "%llu bytes, under the heap's %llu", bytes,
		 heap);
	T_EXPECT(bytes % page == 0, "%llu bytes: not whole pages", bytes);
	T_EXPECT(bytes <= 2 * used + 3 * page, "%llu bytes for %llu used",
		 bytes, used);
}

/*
 * In a process of another pid namespace: the number fdinfo gives is 1 for
 * a file it opened itself, 0 for one opened by a process it cannot see.
 */
static int fdinfo_tgid_child(int inherited)
{
	char val[128];
	int fd;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", 0, NULL))
		return 10;
	fd = open(dwqt_dev(), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 11;
	if (!dwqt_fdinfo(fd, "dwq-tgid:", val, sizeof(val)))
		return 12;
	if (strcmp(val, "1"))
		return 13;
	if (!dwqt_fdinfo(inherited, "dwq-tgid:", val, sizeof(val)))
		return 14;
	if (strcmp(val, "0"))
		return 15;
	return 0;
}

/*
 * dwq-tgid is the opener as the reader's pid namespace numbers it, as
 * /proc's own files are.
 */
TEST_F(file, fdinfo_tgid_in_readers_pid_namespace)
{
	int fd = self->f.fd, status;
	pid_t pid;

	T_EQ(dwqt_fdinfo_u64(fd, "dwq-tgid:"), getpid());
	pid = fork();
	T_EXPECT(pid >= 0, "fork: %s", t_errname(errno));
	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(errno == EINVAL ? 20 : 21);
		inner = fork();
		if (inner < 0)
			_exit(22);
		if (!inner)
			_exit(fdinfo_tgid_child(fd));
		if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(23);
		_exit(WEXITSTATUS(status));
	}
	T_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status), "child status %#x", status);
	if (WEXITSTATUS(status) == 20)
		t_skip("no pid namespaces in this kernel (CONFIG_PID_NS)");
	T_EXPECT(!WEXITSTATUS(status),
		 "in a new pid namespace: step %d failed (13: not 1 for its own file, 15: not 0 for the parent's)",
		 WEXITSTATUS(status));
}

/*
 * dwq-tgid is 0 once the opener has exited: its number may be another
 * process's by then. A child opens the file and forks a grandchild that
 * keeps it; the child exits and is reaped, then the grandchild reads
 * fdinfo.
 */
TEST_F(file, fdinfo_tgid_after_opener_exits)
{
	int go[2], back[2], status, fd;
	char val[128] = "";
	pid_t pid, keeper;
	ssize_t len;

	T_OK(pipe(go) ? -errno : 0);
	T_OK(pipe(back) ? -errno : 0);
	pid = fork();
	T_EXPECT(pid >= 0, "fork: %s", t_errname(errno));
	if (!pid) {
		fd = open(dwqt_dev(), O_RDWR | O_CLOEXEC);
		if (fd < 0)
			_exit(1);
		keeper = fork();
		if (keeper < 0)
			_exit(2);
		if (keeper)
			_exit(0);
		/* The grandchild: when its parent is reaped, look. */
		if (read(go[0], val, 1) != 1)
			_exit(3);
		if (!dwqt_fdinfo(fd, "dwq-tgid:", val, sizeof(val)))
			snprintf(val, sizeof(val), "none");
		len = write(back[1], val, strlen(val) + 1);
		_exit(len > 0 ? 0 : 4);
	}
	close(go[0]);
	close(back[1]);
	T_EQ(waitpid(pid, &status, 0), pid);
	T_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status), "child status %#x",
		 status);
	T_EQ(write(go[1], "x", 1), 1);
	len = read(back[0], val, sizeof(val) - 1);
	close(go[1]);
	close(back[0]);
	T_EXPECT(len > 0, "the grandchild said nothing");
	T_EXPECT(!strcmp(val, "0"),
		 "dwq-tgid '%s' for an opener that has exited, not 0", val);
}

/* Wait up to @ms for @pid to end; its status, or -1 if it did not. */
static int wait_ended(pid_t pid, int ms)
{
	int status, i;

	for (i = 0;; i += 10) {
		pid_t got = waitpid(pid, &status, WNOHANG);

		if (got == pid)
			return status;
		if (got < 0)
			t_fail("waitpid: %s", t_errname(errno));
		if (i >= ms)
			return -1;
		dwqt_sleep_ms(10);
	}
}

/*
 * A reader of fdinfo that waits for the file's mutex can still be killed:
 * here a read() holds it, stuck copying its event to a page that
 * userfaultfd never brings in until the test says so.
 */
TEST_F(file, fdinfo_killable_while_read_holds_the_file)
{
	struct dwqt_stuck_read r;
	int status, fd = self->f.fd;
	char path[64];
	pid_t pid;

	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 7);
	if (!dwqt_stuck_read_start(&r, fd))
		t_skip("no userfaultfd: %s", t_errname(errno));

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", getpid(), fd);
	pid = fork();
	T_EXPECT(pid >= 0, "fork: %s", t_errname(errno));
	if (!pid) {
		char buf[4096];
		int f = open(path, O_RDONLY);

		if (f < 0)
			_exit(1);
		/* Ends the child only if it got past the mutex. */
		_exit(read(f, buf, sizeof(buf)) > 0 ? 0 : 2);
	}
	/* Its read() of fdinfo waits for the file's mutex. */
	t_wait_blocked(pid, pid, __NR_read, "the fdinfo reader");
	T_EXPECT(wait_ended(pid, 0) < 0,
		 "fdinfo was read while a read() held the file");
	T_OK(kill(pid, SIGKILL) ? -errno : 0);
	status = wait_ended(pid, 5000);

	/* Let the read() go, whatever the outcome above. */
	T_EQ(dwqt_stuck_read_end(&r), sizeof(struct dwq_event));
	if (status < 0) {
		T_EQ(waitpid(pid, &status, 0), pid);
		t_fail("killed, fdinfo's reader ended only after read() (%#x)",
		       status);
	}
	T_EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the fdinfo reader ended with status %#x", status);
}

/*
 * open() of the device, its thread's @nth allocation armed to fail
 * through @nth_fd: the file, or -errno; *@left says whether the failure
 * armed was injected (0) or not reached.
 */
static int open_failing_nth(int nth_fd, int nth, long *left)
{
	int fd;

	dwqt_nth_arm(nth_fd, nth);
	fd = open(dwqt_dev(), O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fd = -errno;
	*left = dwqt_nth_disarm(nth_fd);
	return fd;
}

/*
 * The open()s of one user with the 1st, 2nd, ... allocation failing in
 * turn, until one needs fewer: each that fails is ENOMEM and leaves the
 * charges as they were: all files' (read through @global_fd), and the
 * user's, read through @anchor if the user has a file open already (else
 * the user has no entry: the open that works finds none, all zero).
 * Returns how many failed.
 */
static int open_fail_each(int nth_fd, int global_fd, int anchor)
{
	struct dwqt_charges g0, u0, now;
	struct dwq_ioc_stats st;
	int nth, fd, failed = 0;
	long left;

	T_EXPECT(dwqt_charges(global_fd, &g0), "STATS: %s", t_errname(errno));
	if (anchor >= 0)
		T_EXPECT(dwqt_charges(anchor, &u0), "STATS: %s",
			 t_errname(errno));
	for (nth = 1;; nth++) {
		if (nth > 64)
			t_fail("an open still allocates at its %dth", nth);
		fd = open_failing_nth(nth_fd, nth, &left);
		if (fd < 0) {
			T_ERR(fd, ENOMEM);
			T_EQ(left, 0);
			failed++;
			T_EXPECT(dwqt_charges(global_fd, &now), "STATS");
			T_EQ(now.all_tasks, g0.all_tasks);
			T_EQ(now.user_tasks, g0.user_tasks);
			T_EQ(now.user_rate_mhz, g0.user_rate_mhz);
			if (anchor < 0)
				continue;
			T_EXPECT(dwqt_charges(anchor, &now), "STATS");
			T_EQ(now.user_tasks, u0.user_tasks);
			T_EQ(now.user_rate_mhz, u0.user_rate_mhz);
			continue;
		}
		/* It works (a recovered failure, or none reached). */
		st = dwqt_stats_ok(fd);
		T_EQ(st.pending, 0);
		T_EQ(st.all_tasks, g0.all_tasks);
		T_EQ(st.user_tasks, anchor < 0 ? 0 : u0.user_tasks);
		T_EQ(st.user_rate_mhz, anchor < 0 ? 0 : u0.user_rate_mhz);
		/* The user's charge is shared with the anchor's. */
		dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, nth);
		if (anchor >= 0)
			T_EQ(dwqt_stats_ok(anchor).user_tasks,
			     u0.user_tasks + 1);
		close(fd);
		if (left)
			break;
	}
	t_note("%s entry: %d allocations, %d of them fail the open",
	       anchor < 0 ? "no" : "an", nth - 1, failed);
	return failed;
}

/*
 * The open()s that fail, in a child that took a uid of its own (its
 * effective uid, which a file is charged to; the capabilities kept, to
 * open the root-only device): first with no entry for the user, so that
 * each open must make it (dwq_user_get() allocating it, and the map's
 * node), then again with a file of the user's holding a periodic task, so
 * that each open takes a reference on that entry.
 */
static void open_failing_nth_fresh_user(void)
{
	uid_t uid = 40000 + getpid() % 20000;
	int nth_fd, anchor, fresh, shared;

	/* Before the uid changes: then the task's /proc files are root's. */
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		t_fail("/proc/thread-self/fail-nth: %s", t_errname(errno));
	if (prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP))
		t_skip("PR_SET_SECUREBITS: %s", t_errname(errno));
	T_OK(setresuid(-1, uid, -1) ? -errno : 0);
	fresh = open_fail_each(nth_fd, dwq_charges_fd, -1);

	anchor = dwqt_open(0);
	dwqt_sched_ok(anchor, DWQT_FAR_NS, NSEC_PER_SEC, DWQ_MODE_FIXED_RATE, 0,
		      1);
	shared = open_fail_each(nth_fd, dwq_charges_fd, anchor);
	/* The entry is whole: its file still charges and releases. */
	T_EQ(dwqt_stats_ok(anchor).user_tasks, 1);
	dwqt_sched_ok(anchor, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_EQ(dwqt_stats_ok(anchor).user_tasks, 2);
	close(anchor);
	close(nth_fd);
	/* At least the client's own, and the user's entry when it is new. */
	T_EXPECT(fresh >= 2 && shared >= 1, "%d and %d opens failed", fresh,
		 shared);
}

/*
 * An open() with its 1st, 2nd, ... allocation failing (fail-nth, every
 * allocation counted: dwqt_with_fail_nth()): ENOMEM, the charges
 * unchanged, the user's entry neither made nor lost.
 */
TEST_F(file, open_fail_nth)
{
	if (dwq_charges_fd < 0)
		t_skip("no file to read the charges through");
	dwqt_with_fail_nth(open_failing_nth_fresh_user);
}

TEST_HARNESS_MAIN
