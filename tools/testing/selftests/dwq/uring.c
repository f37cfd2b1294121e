// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring: every ioctl of /dev/dwq as an IORING_OP_URING_CMD (liburing),
 * alone, in batches, in one submission with the IORING_OP_READ and
 * IORING_OP_POLL_ADD that deliver the events, through io-wq and SQPOLL;
 * each giving what the ioctl gives for the same input, bad input too; and
 * what only the command has (its flags and reserved bytes, uring_cmd_flags,
 * 128-byte SQEs) refused with EINVAL, having done nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <liburing.h>

#include "dwq_test.h"

FIXTURE(uring)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(uring)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(uring)
{
	dwq_teardown(_metadata, &self->f);
}

/* The command area of a 128-byte SQE: 80 bytes from sqe->cmd. */
#define CMD_AREA_128 (2 * sizeof(struct io_uring_sqe) - 48)
#define ENTRIES_SIZE 8192

/* The ring of the case, set up by ring_init(). */
static struct io_uring ring;

static void ring_init_flags(struct io_uring *r, unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };
	int err = io_uring_queue_init_params(64, r, &p);

	/* Every kernel dwq is tested on has io_uring: no skip. */
	if (err)
		t_fail("io_uring_queue_init_params(flags %#x): %s", flags,
		       t_errname(-err));
}

static void ring_init(void)
{
	ring_init_flags(&ring, 0);
}

static struct io_uring_sqe *get_sqe(struct io_uring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	if (!sqe)
		t_fail("the submission queue is full");
	return sqe;
}

/* An SQE of @r that runs ioctl @cmd with @arg on @fd as a command. */
static struct io_uring_sqe *prep_cmd(struct io_uring *r, int fd, uint32_t cmd,
				     const void *arg, uint64_t user_data)
{
	struct dwq_uring_cmd c = { .arg = (uintptr_t)arg };
	struct io_uring_sqe *sqe = get_sqe(r);

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd;
	memset(sqe->cmd, 0,
	       r->flags & IORING_SETUP_SQE128 ? CMD_AREA_128 : sizeof(c));
	memcpy(sqe->cmd, &c, sizeof(c));
	io_uring_sqe_set_data64(sqe, user_data);
	return sqe;
}

/*
 * Submit @n SQEs. With SQPOLL, liburing counts those the kernel's thread
 * has not taken yet: it publishes how far it took only after issuing, so
 * an SQE whose completion was seen may still count.
 */
static void submit(struct io_uring *r, int n)
{
	int got = io_uring_submit(r);

	if (r->flags & IORING_SETUP_SQPOLL ? got < n : got != n)
		t_fail("io_uring_submit: %d (%s), expected %d", got,
		       got < 0 ? t_errname(-got) : "submitted", n);
}

/* The next completion of @r within DWQT_WAIT_MS: its res; its data. */
static int wait_cqe(struct io_uring *r, uint64_t *user_data)
{
	struct __kernel_timespec ts = {
		.tv_sec = DWQT_WAIT_MS / 1000,
		.tv_nsec = (DWQT_WAIT_MS % 1000) * 1000000LL,
	};
	struct io_uring_cqe *cqe;
	int err, res;

	err = io_uring_wait_cqe_timeout(r, &cqe, &ts);
	if (err)
		t_fail("no completion in %d ms: %s", DWQT_WAIT_MS,
		       t_errname(-err));
	res = cqe->res;
	*user_data = cqe->user_data;
	io_uring_cqe_seen(r, cqe);
	return res;
}

/* One command on @r, submitted alone: the CQE's res. */
static long ring_ioctl(struct io_uring *r, int fd, unsigned long cmd, void *arg)
{
	uint64_t ud;
	int res;

	prep_cmd(r, fd, cmd, arg, 0x5eed);
	submit(r, 1);
	res = wait_cqe(r, &ud);
	T_EQ(ud, 0x5eed);
	return res;
}

static long uring_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ring_ioctl(&ring, fd, cmd, arg);
}

/* Schedule a one-shot through the ring; its id. */
static uint64_t uring_sched_ok(int fd, uint64_t time_ns, uint64_t cookie)
{
	struct dwq_ioc_schedule s =
		dwqt_sched_arg(time_ns, 0, DWQ_MODE_ONESHOT, 0, cookie);

	T_OK(uring_ioctl(fd, DWQ_IOC_SCHEDULE, &s));
	T_EXPECT(s.id != 0, "no id written back");
	return s.id;
}

/*
 * A task scheduled and cancelled by commands: the id comes back as from
 * the ioctl, QUERY and STATS through the ring see it, the cancel REMOVES
 * it, and a second cancel and a query of its id are ENOENT.
 */
TEST_F(uring, schedule_cancel)
{
	int fd = self->f.fd;
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_ioc_stats st;
	struct dwq_ioc_query q = { 0 };
	uint64_t id;

	ring_init();
	id = uring_sched_ok(fd, DWQT_FAR_NS, 42);
	T_EQ(dwqt_query_ok(fd, id).state, DWQ_STATE_QUEUED);
	q.id = id;
	T_OK(uring_ioctl(fd, DWQ_IOC_QUERY, &q));
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.cookie, 42);
	T_OK(uring_ioctl(fd, DWQ_IOC_STATS, &st));
	T_EQ(st.pending, 1);

	c.id = id;
	T_OK(uring_ioctl(fd, DWQ_IOC_CANCEL, &c));
	T_EQ(c.result, DWQ_RESULT_REMOVED);
	T_ERR(uring_ioctl(fd, DWQ_IOC_CANCEL, &c), ENOENT);
	T_ERR(uring_ioctl(fd, DWQ_IOC_QUERY, &q), ENOENT);
	T_ERR(dwqt_query(fd, id, &q), ENOENT);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 0);
	T_EQ(st.cancelled, 1);
	dwqt_expect_no_event(fd, 100);
}

/*
 * SCHEDULE_BATCH and CANCEL_BATCH as commands: all the ids, distinct, then
 * every one REMOVED and one id unknown NOENT; and 64 single SCHEDULEs in
 * one submission, then their 64 CANCELs in another.
 */
TEST_F(uring, batches)
{
	static struct dwq_ioc_schedule s[DWQ_SCHEDULE_BATCH_MAX];
	static struct dwq_ioc_cancel c[DWQ_SCHEDULE_BATCH_MAX + 1];
	struct dwq_ioc_schedule one[64];
	struct dwq_ioc_cancel cone[64];
	struct dwq_ioc_schedule_batch sb = { 0 };
	struct dwq_ioc_cancel_batch cb = { 0 };
	uint64_t ids[DWQ_SCHEDULE_BATCH_MAX], ud, seen = 0;
	int fd = self->f.fd, i, res;
	struct dwq_ioc_stats st;
	unsigned int n = DWQ_SCHEDULE_BATCH_MAX;

	ring_init();
	for (i = 0; i < (int)n; i++)
		s[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	sb.entries = (uintptr_t)s;
	sb.count = n;
	T_OK(uring_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &sb));
	T_EQ(sb.error_index, n);
	for (i = 0; i < (int)n; i++)
		ids[i] = s[i].id;
	dwqt_check_ids(ids, n);
	T_EQ(dwqt_stats_ok(fd).pending, n);

	/* All but the last, and an id the file never had. */
	memset(c, 0, sizeof(c));
	for (i = 0; i < (int)n - 1; i++)
		c[i].id = ids[i];
	c[n - 1].id = ids[n - 1] + 1000;
	cb.entries = (uintptr_t)c;
	cb.count = n;
	T_OK(uring_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &cb));
	T_EQ(cb.error_index, n);
	for (i = 0; i < (int)n; i++)
		T_EQ(c[i].result,
		     i < (int)n - 1 ? DWQ_RESULT_REMOVED : DWQ_RESULT_NOENT);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
	memset(c, 0, sizeof(c[0]));
	c[0].id = ids[n - 1];
	T_OK(uring_ioctl(fd, DWQ_IOC_CANCEL, &c[0]));
	T_EQ(c[0].result, DWQ_RESULT_REMOVED);
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 0);
	T_EQ(st.cancelled, n);

	/* 64 commands in one submission. */
	for (i = 0; i < 64; i++) {
		one[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
		prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &one[i], i);
	}
	submit(&ring, 64);
	for (i = 0; i < 64; i++) {
		res = wait_cqe(&ring, &ud);
		T_EXPECT(res == 0 && ud < 64 && !(seen & 1ULL << ud),
			 "completion %d: res %d data %llu", i, res,
			 (unsigned long long)ud);
		seen |= 1ULL << ud;
	}
	for (i = 0; i < 64; i++) {
		ids[i] = one[i].id;
		memset(&cone[i], 0, sizeof(cone[i]));
		cone[i].id = one[i].id;
		prep_cmd(&ring, fd, DWQ_IOC_CANCEL, &cone[i], i);
	}
	dwqt_check_ids(ids, 64);
	T_EQ(dwqt_stats_ok(fd).pending, 64);
	submit(&ring, 64);
	for (i = 0; i < 64; i++)
		T_EQ(wait_cqe(&ring, &ud), 0);
	for (i = 0; i < 64; i++)
		T_EQ(cone[i].result, DWQ_RESULT_REMOVED);
	T_EQ(dwqt_stats_ok(fd).pending, 0);
}

enum { UD_READ = 1, UD_POLL, UD_NEAR, UD_FAR, UD_STATS, UD_CANCEL };

/*
 * One submission: a READ and a POLL_ADD of the file, a task due in 100 ms,
 * one far off and STATS. The commands complete first, then the poll and
 * the read, with the near task's event. A second submission cancels the
 * far task and reads the stats.
 */
TEST_F(uring, mixed_with_read)
{
	struct dwq_ioc_schedule near, far;
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_ioc_stats st, st2;
	struct io_uring_sqe *sqe;
	struct dwq_event ev[4];
	int fd = self->f.fd, i, res[UD_CANCEL + 1] = { 0 }, order[6], n = 0;
	uint64_t ud, t0;

	ring_init();
	memset(ev, 0xa5, sizeof(ev));
	near = dwqt_sched_arg(100 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 7);
	far = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 8);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, fd, ev, sizeof(ev), 0);
	io_uring_sqe_set_data64(sqe, UD_READ);
	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, UD_POLL);
	/* Linked: STATS after both (as inline issue would have them anyway). */
	io_uring_sqe_set_flags(prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &near,
					UD_NEAR),
			       IOSQE_IO_LINK);
	io_uring_sqe_set_flags(prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &far,
					UD_FAR),
			       IOSQE_IO_LINK);
	prep_cmd(&ring, fd, DWQ_IOC_STATS, &st, UD_STATS);
	t0 = dwqt_now();
	submit(&ring, 5);
	for (i = 0; i < 5; i++) {
		int r = wait_cqe(&ring, &ud);

		T_EXPECT(ud >= UD_READ && ud <= UD_STATS,
			 "completion with data %llu", (unsigned long long)ud);
		res[ud] = r;
		order[n++] = ud;
	}
	T_EQ(res[UD_NEAR], 0);
	T_EQ(res[UD_FAR], 0);
	T_EQ(res[UD_STATS], 0);
	T_EQ(st.pending, 2);
	T_EXPECT(res[UD_POLL] > 0 && (res[UD_POLL] & POLLIN),
		 "poll: res %d, expected POLLIN", res[UD_POLL]);
	T_EQ(res[UD_READ], sizeof(struct dwq_event));
	/* The commands ran at once; the read waited for the event. */
	for (i = 0; i < 3; i++)
		T_EXPECT(order[i] >= UD_NEAR, "completion %d was %d", i,
			 order[i]);
	T_EXPECT(dwqt_now() - t0 >= 100 * NSEC_PER_MSEC,
		 "the read completed before the task was due");
	dwqt_check_event(&ev[0]);
	T_EQ(ev[0].id, near.id);
	T_EQ(ev[0].cookie, 7);
	T_EQ(ev[0].flags & DWQ_EVENT_LAST, DWQ_EVENT_LAST);

	c.id = far.id;
	io_uring_sqe_set_flags(prep_cmd(&ring, fd, DWQ_IOC_CANCEL, &c,
					UD_CANCEL),
			       IOSQE_IO_LINK);
	prep_cmd(&ring, fd, DWQ_IOC_STATS, &st2, UD_STATS);
	submit(&ring, 2);
	for (i = 0; i < 2; i++) {
		int r = wait_cqe(&ring, &ud);

		T_EQ(r, 0);
	}
	T_EQ(c.result, DWQ_RESULT_REMOVED);
	T_EQ(st2.pending, 0);
	T_EQ(st2.fired, 1);
	T_EQ(st2.cancelled, 1);
	T_EQ(st2.events, 0);
	dwqt_expect_no_event(fd, 100);
}

/*
 * What only the command has, wrong: its flags or reserved bytes non-zero,
 * uring_cmd_flags set (a registered buffer, or one the ring does not have:
 * EFAULT from io_uring where it looks it up), on a 128-byte-SQE ring a
 * non-zero byte after the command: EINVAL, and nothing scheduled, no id
 * written back. An address that is no user memory's: EFAULT. On that ring
 * with the rest zero, and on a ring of 32-byte CQEs, it works.
 */
TEST_F(uring, bad_command)
{
	struct dwq_ioc_schedule s =
		dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	struct dwq_uring_cmd *c;
	struct io_uring_sqe *sqe;
	struct io_uring big;
	int fd = self->f.fd, i;
	char buf[64];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	uint64_t ud;

	ring_init();
	s.id = 0xdead;
	for (i = 0; i < 2; i++) {
		sqe = prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &s, 1);
		c = (struct dwq_uring_cmd *)sqe->cmd;
		if (i)
			c->reserved = 1;
		else
			c->flags = 1U << 31;
		submit(&ring, 1);
		T_ERR(wait_cqe(&ring, &ud), EINVAL);
	}

	/*
	 * A buffer the ring has not registered: io_uring's EFAULT where it
	 * looks the buffer up first, /dev/dwq's EINVAL where it does not.
	 */
	sqe = prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &s, 1);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 3;
	submit(&ring, 1);
	T_ERR2(wait_cqe(&ring, &ud), EFAULT, EINVAL);

	T_EQ(io_uring_register_buffers(&ring, &iov, 1), 0);
	sqe = prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &s, 1);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	submit(&ring, 1);
	T_ERR(wait_cqe(&ring, &ud), EINVAL);

	T_ERR(uring_ioctl(fd, DWQ_IOC_SCHEDULE, NULL), EFAULT);
	sqe = prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &s, 1);
	((struct dwq_uring_cmd *)sqe->cmd)->arg = 1ULL << 63;
	submit(&ring, 1);
	T_ERR(wait_cqe(&ring, &ud), EFAULT);

	ring_init_flags(&big, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	/* Bytes 16, 25, ... 79 of the area, the last one too. */
	for (i = sizeof(*c); i < (int)CMD_AREA_128; i += 9) {
		sqe = prep_cmd(&big, fd, DWQ_IOC_SCHEDULE, &s, i);
		sqe->cmd[i] = 1;
		submit(&big, 1);
		T_ERR(wait_cqe(&big, &ud), EINVAL);
		T_EQ(ud, i);
	}

	T_EQ(s.id, 0xdead);
	T_EQ(dwqt_stats_ok(fd).pending, 0);

	T_OK(ring_ioctl(&big, fd, DWQ_IOC_SCHEDULE, &s));
	T_EQ(dwqt_query_ok(fd, s.id).state, DWQ_STATE_QUEUED);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
	io_uring_queue_exit(&big);
}

/*
 * Through io-wq (IOSQE_ASYNC: the SQE copied, then issued in a worker
 * that may block) and through an SQPOLL thread: schedule and cancel as
 * inline.
 */
TEST_F(uring, async_and_sqpoll)
{
	struct dwq_ioc_schedule s;
	struct dwq_ioc_cancel c;
	struct io_uring sq;
	uint64_t ud;
	int fd = self->f.fd, pass;

	ring_init();
	for (pass = 0; pass < 2; pass++) {
		struct io_uring *r = &ring;

		if (pass) {
			ring_init_flags(&sq, IORING_SETUP_SQPOLL);
			r = &sq;
		}
		s = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, pass);
		io_uring_sqe_set_flags(prep_cmd(r, fd, DWQ_IOC_SCHEDULE, &s, 1),
				       pass ? 0 : IOSQE_ASYNC);
		submit(r, 1);
		T_OK(wait_cqe(r, &ud));
		T_EQ(dwqt_query_ok(fd, s.id).cookie, pass);
		memset(&c, 0, sizeof(c));
		c.id = s.id;
		io_uring_sqe_set_flags(prep_cmd(r, fd, DWQ_IOC_CANCEL, &c, 2),
				       pass ? 0 : IOSQE_ASYNC);
		submit(r, 1);
		T_OK(wait_cqe(r, &ud));
		T_EQ(c.result, DWQ_RESULT_REMOVED);
		T_EQ(dwqt_stats_ok(fd).pending, 0);
	}
	io_uring_queue_exit(&sq);
}

/*
 * The same input through ioctl() and through the ring, on two files in
 * the same state: the same return, the same bytes written back, the same
 * state after.
 */
struct same_case {
	const char *what;
	unsigned long cmd;
	/* Fill the argument (and @entries, a batch's array); what to pass. */
	void *(*make)(void *arg, void *entries);
	/* errno expected; -1: whatever ioctl() gives (it may change) */
	int want;
};

/* The submitting thread of held_file_runs_its_command, and its CQE. */
struct held_submit {
	struct io_uring *r;
	struct io_uring_sqe *sqe;
	pid_t tid;
	bool submitted;
	int got;
	int res;
	uint64_t ud;
};

/*
 * Submits, takes the SQE's slot back at once, then waits for the CQE
 * (the thread stays: io_uring cancels the work a thread left in io-wq
 * when it exits).
 */
static void *held_submit_fn(void *arg)
{
	struct held_submit *h = arg;

	__atomic_store_n(&h->tid, gettid(), __ATOMIC_SEQ_CST);
	h->got = io_uring_submit(h->r);
	__atomic_store_n(&h->submitted, true, __ATOMIC_SEQ_CST);
	memset(h->sqe->cmd, 0xff, sizeof(struct dwq_uring_cmd));
	if (h->got == 1)
		h->res = wait_cqe(h->r, &h->ud);
	return NULL;
}

/*
 * A command that finds the file's mutex held (a read() stuck in a page
 * fault holds it) runs, once the file is free, the command it was
 * submitted with, though the program takes its SQE's slot back as soon as
 * io_uring_submit() returns, filling its command area with bytes no
 * command accepts. The schedule is done, its id written back.
 */
TEST_F(uring, held_file_runs_its_command)
{
	struct dwq_ioc_schedule s =
		dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 7);
	struct held_submit h = { .r = &ring, .res = 1 };
	struct dwqt_stuck_read r;
	int fd = self->f.fd;
	pthread_t th;

	ring_init();
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 1);
	if (!dwqt_stuck_read_start(&r, fd))
		t_skip("no userfaultfd: %s", t_errname(errno));
	h.sqe = prep_cmd(&ring, fd, DWQ_IOC_SCHEDULE, &s, 0x5eed);
	/* The submission may wait for the file: from a thread of its own. */
	T_EQ(pthread_create(&th, NULL, held_submit_fn, &h), 0);
	while (!__atomic_load_n(&h.tid, __ATOMIC_SEQ_CST))
		dwqt_sleep_ms(1);
	/*
	 * The command waits for the file inside the submission's
	 * io_uring_enter(): the thread sleeps there, and had not returned
	 * from io_uring_submit() when it was seen so (the io_uring_enter()
	 * that waits for the CQE comes after), and no CQE has come.
	 */
	t_wait_blocked(getpid(), h.tid, __NR_io_uring_enter,
		       "the submitting thread");
	T_EXPECT(!__atomic_load_n(&h.submitted, __ATOMIC_SEQ_CST),
		 "io_uring_submit() returned while a read() held the file");
	T_EQ(io_uring_cq_ready(&ring), 0);
	T_EQ(dwqt_stuck_read_end(&r), sizeof(struct dwq_event));
	T_EQ(pthread_join(th, NULL), 0);
	T_EQ(h.got, 1);
	T_EQ(h.ud, 0x5eed);
	T_OK(h.res);
	T_EXPECT(s.id != 0, "no id written back");
	T_EQ(dwqt_query_ok(fd, s.id).cookie, 7);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
}

/*
 * The submitting thread of nonblock_read_waits_for_file: submits, then
 * takes the CQEs, each's res by its user_data (1 to 3). It stays until
 * then: io_uring cancels what a thread that exits left in io-wq.
 */
struct read_submit {
	struct io_uring *r;
	pid_t tid;
	bool submitted;
	int got;
	int res[4];
};

static void *read_submit_fn(void *arg)
{
	struct read_submit *h = arg;
	uint64_t ud;
	int i, res;

	__atomic_store_n(&h->tid, gettid(), __ATOMIC_SEQ_CST);
	h->got = io_uring_submit(h->r);
	__atomic_store_n(&h->submitted, true, __ATOMIC_SEQ_CST);
	for (i = 0; h->got == 3 && i < 3; i++) {
		res = wait_cqe(h->r, &ud);
		if (ud < 1 || ud > 3)
			t_fail("a CQE of no SQE: %llu", (unsigned long long)ud);
		h->res[ud] = res;
	}
	return NULL;
}

/*
 * An IORING_OP_READ of a file opened O_NONBLOCK, submitted while a read()
 * stuck in a page fault holds the file, with a write to a pipe whose poll
 * the same ring armed. Where io_uring issues the read as it is submitted
 * (kernels that try a pollable file's read at once, 6.12 and later), it
 * runs inside io_uring_enter() right after the write, whose poll
 * completion leaves io_uring's task_work notification pending, a pending
 * signal to the thread though none was sent. The read waits for the file
 * through it and takes the next event once the file is free: not -EINTR.
 * Elsewhere (6.1) io_uring hands the read to io-wq, where it waits the
 * same way. Either way the thread waits in io_uring_enter() until then.
 */
TEST_F(uring, nonblock_read_waits_for_file)
{
	struct read_submit h = { .r = &ring };
	struct io_uring_sqe *sqe;
	struct dwqt_stuck_read r;
	struct dwq_event ev = { 0 };
	int fd = self->f.fd, p[2];
	pthread_t th;

	ring_init();
	T_OK(pipe(p));
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 1);
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_OK(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	if (!dwqt_stuck_read_start(&r, fd))
		t_skip("no userfaultfd: %s", t_errname(errno));
	sqe = get_sqe(&ring);
	io_uring_prep_poll_add(sqe, p[0], POLLIN);
	io_uring_sqe_set_data64(sqe, 1);
	sqe = get_sqe(&ring);
	io_uring_prep_write(sqe, p[1], "x", 1, 0);
	io_uring_sqe_set_data64(sqe, 2);
	sqe = get_sqe(&ring);
	io_uring_prep_read(sqe, fd, &ev, sizeof(ev), 0);
	io_uring_sqe_set_data64(sqe, 3);
	T_EQ(pthread_create(&th, NULL, read_submit_fn, &h), 0);
	while (!__atomic_load_n(&h.tid, __ATOMIC_SEQ_CST))
		dwqt_sleep_ms(1);
	t_wait_blocked(getpid(), h.tid, __NR_io_uring_enter,
		       "the submitting thread");
	T_EQ(dwqt_stuck_read_end(&r), sizeof(struct dwq_event));
	T_EQ(pthread_join(th, NULL), 0);
	T_EQ(h.got, 3);
	T_EQ(h.res[1], POLLIN);
	T_EQ(h.res[2], 1);
	T_EQ(h.res[3], sizeof(ev));
	T_EQ(ev.cookie, 2);
	close(p[0]);
	close(p[1]);
}

/*
 * Far deadlines on CLOCK_MONOTONIC and CLOCK_BOOTTIME, taken once for the
 * case: every task of either file is made or moved with DWQ_SCHED_ABS to
 * one of them plus some milliseconds, so that the two files' deadlines
 * are the same to the nanosecond, and a command that moves a task to the
 * wrong deadline, or to none, shows.
 */
static uint64_t same_mono, same_boot;

/* Each file: task 1 a far one-shot (cookie 10), task 2 a periodic one. */
static void same_prepare(int fd)
{
	T_EQ(dwqt_sched_ok(fd, same_mono, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS,
			   10),
	     1);
	T_EQ(dwqt_sched_ok(fd, same_mono + NSEC_PER_MSEC, NSEC_PER_SEC,
			   DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 20),
	     2);
}

static void *mk_sched(void *arg, void *e)
{
	(void)e;
	*(struct dwq_ioc_schedule *)arg =
		dwqt_sched_arg(same_mono + 2 * NSEC_PER_MSEC, 0,
			       DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 7);
	return arg;
}

static void *mk_sched_reserved(void *arg, void *e)
{
	mk_sched(arg, e);
	((struct dwq_ioc_schedule *)arg)->reserved[2] = 1;
	return arg;
}

static void *mk_sched_flags(void *arg, void *e)
{
	mk_sched(arg, e);
	((struct dwq_ioc_schedule *)arg)->flags = 1U << 9;
	return arg;
}

static void *mk_sched_mode(void *arg, void *e)
{
	mk_sched(arg, e);
	((struct dwq_ioc_schedule *)arg)->mode = 3;
	return arg;
}

static void *mk_sched_period(void *arg, void *e)
{
	mk_sched(arg, e);
	((struct dwq_ioc_schedule *)arg)->period_ns = NSEC_PER_SEC;
	return arg;
}

static void *mk_unmapped(void *arg, void *e)
{
	(void)arg;
	(void)e;
	return dwqt_unmapped();
}

static void *mk_sched_ro(void *arg, void *e)
{
	mk_sched(arg, e);
	return dwqt_ro_copy(arg, sizeof(struct dwq_ioc_schedule));
}

static void *mk_batch(void *arg, void *entries)
{
	struct dwq_ioc_schedule_batch *b = arg;
	struct dwq_ioc_schedule *s = entries;
	int i;

	for (i = 0; i < 3; i++)
		s[i] = dwqt_sched_arg(same_mono + (3 + i) * NSEC_PER_MSEC, i, i,
				      DWQ_SCHED_ABS, 100 + i);
	s[1].period_ns = NSEC_PER_SEC;
	s[2].period_ns = NSEC_PER_SEC;
	/* The last on the other clock. */
	s[2].time_ns = same_boot + 5 * NSEC_PER_MSEC;
	s[2].flags |= DWQ_SCHED_BOOTTIME;
	memset(b, 0, sizeof(*b));
	b->entries = (uintptr_t)s;
	b->count = 3;
	b->error_index = 0xdead;
	return arg;
}

static void *mk_batch_zero(void *arg, void *e)
{
	mk_batch(arg, e);
	((struct dwq_ioc_schedule_batch *)arg)->count = 0;
	return arg;
}

static void *mk_batch_toomany(void *arg, void *e)
{
	mk_batch(arg, e);
	((struct dwq_ioc_schedule_batch *)arg)->count =
		DWQ_SCHEDULE_BATCH_MAX + 1;
	return arg;
}

static void *mk_batch_flags(void *arg, void *e)
{
	mk_batch(arg, e);
	((struct dwq_ioc_schedule_batch *)arg)->flags = 1;
	return arg;
}

static void *mk_batch_reserved(void *arg, void *e)
{
	mk_batch(arg, e);
	((struct dwq_ioc_schedule_batch *)arg)->reserved = 1;
	return arg;
}

static void *mk_batch_entry(void *arg, void *e)
{
	mk_batch(arg, e);
	((struct dwq_ioc_schedule *)e)[1].reserved[0] = 1;
	return arg;
}

static void *mk_batch_unmapped(void *arg, void *e)
{
	mk_batch(arg, e);
	((struct dwq_ioc_schedule_batch *)arg)->entries =
		(uintptr_t)dwqt_unmapped();
	return arg;
}

static void *mk_cancel(void *arg, void *e)
{
	(void)e;
	memset(arg, 0, sizeof(struct dwq_ioc_cancel));
	((struct dwq_ioc_cancel *)arg)->id = 1;
	((struct dwq_ioc_cancel *)arg)->result = 0xdead;
	return arg;
}

static void *mk_cancel_noent(void *arg, void *e)
{
	mk_cancel(arg, e);
	((struct dwq_ioc_cancel *)arg)->id = 99;
	return arg;
}

static void *mk_cancel_reserved(void *arg, void *e)
{
	mk_cancel(arg, e);
	((struct dwq_ioc_cancel *)arg)->reserved = 1;
	return arg;
}

static void *mk_cancel_ro(void *arg, void *e)
{
	mk_cancel(arg, e);
	return dwqt_ro_copy(arg, sizeof(struct dwq_ioc_cancel));
}

static void *mk_cbatch(void *arg, void *entries)
{
	struct dwq_ioc_cancel_batch *b = arg;
	struct dwq_ioc_cancel *c = entries;
	static const uint64_t ids[] = { 1, 99, 1, 2 };
	unsigned int i;

	memset(c, 0, ARRAY_SIZE(ids) * sizeof(*c));
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		c[i].id = ids[i];
		c[i].result = 0xdead;
	}
	memset(b, 0, sizeof(*b));
	b->entries = (uintptr_t)c;
	b->count = ARRAY_SIZE(ids);
	b->error_index = 0xdead;
	return arg;
}

static void *mk_cbatch_zero(void *arg, void *e)
{
	mk_cbatch(arg, e);
	((struct dwq_ioc_cancel_batch *)arg)->count = 0;
	return arg;
}

static void *mk_cbatch_entry(void *arg, void *e)
{
	mk_cbatch(arg, e);
	((struct dwq_ioc_cancel *)e)[2].reserved = 1;
	return arg;
}

static void *mk_cbatch_flags(void *arg, void *e)
{
	mk_cbatch(arg, e);
	((struct dwq_ioc_cancel_batch *)arg)->flags = 2;
	return arg;
}

static void *mk_cbatch_unmapped(void *arg, void *e)
{
	mk_cbatch(arg, e);
	((struct dwq_ioc_cancel_batch *)arg)->entries =
		(uintptr_t)dwqt_unmapped();
	return arg;
}

static void *mk_resched(void *arg, void *e)
{
	struct dwq_ioc_reschedule *r = arg;

	(void)e;
	memset(r, 0, sizeof(*r));
	r->id = 2;
	r->time_ns = same_mono + DWQT_FAR_NS;
	r->flags = DWQ_SCHED_ABS;
	return arg;
}

static void *mk_resched_period(void *arg, void *e)
{
	struct dwq_ioc_reschedule *r = mk_resched(arg, e);

	r->flags |= DWQ_RESCHED_PERIOD;
	r->mode = DWQ_MODE_ONESHOT;
	return arg;
}

static void *mk_resched_boot(void *arg, void *e)
{
	struct dwq_ioc_reschedule *r = mk_resched(arg, e);

	r->time_ns = same_boot + DWQT_FAR_NS;
	r->flags |= DWQ_SCHED_BOOTTIME;
	return arg;
}

static void *mk_resched_noent(void *arg, void *e)
{
	mk_resched(arg, e);
	((struct dwq_ioc_reschedule *)arg)->id = 99;
	return arg;
}

static void *mk_resched_reserved(void *arg, void *e)
{
	mk_resched(arg, e);
	((struct dwq_ioc_reschedule *)arg)->reserved[1] = 1;
	return arg;
}

static void *mk_resched_mode(void *arg, void *e)
{
	mk_resched(arg, e);
	((struct dwq_ioc_reschedule *)arg)->mode = DWQ_MODE_FIXED_DELAY;
	return arg;
}

static void *mk_query(void *arg, void *e)
{
	(void)e;
	memset(arg, 0, sizeof(struct dwq_ioc_query));
	((struct dwq_ioc_query *)arg)->id = 2;
	return arg;
}

static void *mk_query_noent(void *arg, void *e)
{
	mk_query(arg, e);
	((struct dwq_ioc_query *)arg)->id = 99;
	return arg;
}

static void *mk_query_reserved(void *arg, void *e)
{
	mk_query(arg, e);
	((struct dwq_ioc_query *)arg)->reserved = 1;
	return arg;
}

static void *mk_stats(void *arg, void *e)
{
	(void)e;
	memset(arg, 0xa5, sizeof(struct dwq_ioc_stats));
	return arg;
}

static void *mk_nothing(void *arg, void *e)
{
	(void)e;
	memset(arg, 0, sizeof(struct dwq_ioc_schedule));
	return arg;
}

static const struct same_case same_cases[] = {
	{ "SCHEDULE", DWQ_IOC_SCHEDULE, mk_sched, 0 },
	{ "SCHEDULE reserved", DWQ_IOC_SCHEDULE, mk_sched_reserved, EINVAL },
	{ "SCHEDULE flags", DWQ_IOC_SCHEDULE, mk_sched_flags, EINVAL },
	{ "SCHEDULE mode", DWQ_IOC_SCHEDULE, mk_sched_mode, EINVAL },
	{ "SCHEDULE one-shot period", DWQ_IOC_SCHEDULE, mk_sched_period,
	  EINVAL },
	{ "SCHEDULE unmapped", DWQ_IOC_SCHEDULE, mk_unmapped, EFAULT },
	{ "SCHEDULE read-only", DWQ_IOC_SCHEDULE, mk_sched_ro, -1 },
	{ "SCHEDULE_BATCH", DWQ_IOC_SCHEDULE_BATCH, mk_batch, 0 },
	{ "SCHEDULE_BATCH count 0", DWQ_IOC_SCHEDULE_BATCH, mk_batch_zero,
	  EINVAL },
	{ "SCHEDULE_BATCH count max+1", DWQ_IOC_SCHEDULE_BATCH,
	  mk_batch_toomany, EINVAL },
	{ "SCHEDULE_BATCH flags", DWQ_IOC_SCHEDULE_BATCH, mk_batch_flags,
	  EINVAL },
	{ "SCHEDULE_BATCH reserved", DWQ_IOC_SCHEDULE_BATCH, mk_batch_reserved,
	  EINVAL },
	{ "SCHEDULE_BATCH entry 1 reserved", DWQ_IOC_SCHEDULE_BATCH,
	  mk_batch_entry, EINVAL },
	{ "SCHEDULE_BATCH entries unmapped", DWQ_IOC_SCHEDULE_BATCH,
	  mk_batch_unmapped, EFAULT },
	{ "SCHEDULE_BATCH unmapped", DWQ_IOC_SCHEDULE_BATCH, mk_unmapped,
	  EFAULT },
	{ "CANCEL", DWQ_IOC_CANCEL, mk_cancel, 0 },
	{ "CANCEL unknown id", DWQ_IOC_CANCEL, mk_cancel_noent, ENOENT },
	{ "CANCEL reserved", DWQ_IOC_CANCEL, mk_cancel_reserved, EINVAL },
	{ "CANCEL unmapped", DWQ_IOC_CANCEL, mk_unmapped, EFAULT },
	{ "CANCEL read-only", DWQ_IOC_CANCEL, mk_cancel_ro, -1 },
	{ "CANCEL_BATCH", DWQ_IOC_CANCEL_BATCH, mk_cbatch, 0 },
	{ "CANCEL_BATCH count 0", DWQ_IOC_CANCEL_BATCH, mk_cbatch_zero,
	  EINVAL },
	{ "CANCEL_BATCH flags", DWQ_IOC_CANCEL_BATCH, mk_cbatch_flags, EINVAL },
	{ "CANCEL_BATCH entry 2 reserved", DWQ_IOC_CANCEL_BATCH,
	  mk_cbatch_entry, EINVAL },
	{ "CANCEL_BATCH entries unmapped", DWQ_IOC_CANCEL_BATCH,
	  mk_cbatch_unmapped, EFAULT },
	{ "RESCHEDULE", DWQ_IOC_RESCHEDULE, mk_resched, 0 },
	{ "RESCHEDULE to one-shot", DWQ_IOC_RESCHEDULE, mk_resched_period, 0 },
	{ "RESCHEDULE to CLOCK_BOOTTIME", DWQ_IOC_RESCHEDULE, mk_resched_boot,
	  0 },
	{ "RESCHEDULE unknown id", DWQ_IOC_RESCHEDULE, mk_resched_noent,
	  ENOENT },
	{ "RESCHEDULE reserved", DWQ_IOC_RESCHEDULE, mk_resched_reserved,
	  EINVAL },
	{ "RESCHEDULE mode without PERIOD", DWQ_IOC_RESCHEDULE, mk_resched_mode,
	  EINVAL },
	{ "RESCHEDULE unmapped", DWQ_IOC_RESCHEDULE, mk_unmapped, EFAULT },
	{ "QUERY", DWQ_IOC_QUERY, mk_query, 0 },
	{ "QUERY unknown id", DWQ_IOC_QUERY, mk_query_noent, ENOENT },
	{ "QUERY reserved", DWQ_IOC_QUERY, mk_query_reserved, EINVAL },
	{ "QUERY unmapped", DWQ_IOC_QUERY, mk_unmapped, EFAULT },
	{ "STATS", DWQ_IOC_STATS, mk_stats, 0 },
	{ "STATS unmapped", DWQ_IOC_STATS, mk_unmapped, EFAULT },
	{ "unknown command", _IOWR(DWQ_IOC_MAGIC, 99, struct dwq_ioc_schedule),
	  mk_nothing, ENOTTY },
	{ "SCHEDULE's number, wrong size", _IOWR(DWQ_IOC_MAGIC, 1, __u64),
	  mk_nothing, ENOTTY },
	{ "another driver's number", _IOWR('x', 1, struct dwq_ioc_schedule),
	  mk_nothing, ENOTTY },
};

/*
 * What may differ between the two calls: the time left until a deadline
 * (each call's own now), the address of each one's array.
 */
static void same_mask(unsigned long cmd, void *arg)
{
	struct dwq_ioc_schedule_batch *sb = arg;
	struct dwq_ioc_cancel_batch *cb = arg;
	struct dwq_ioc_query *q = arg;
	struct dwq_ioc_stats *st = arg;

	if (cmd == DWQ_IOC_SCHEDULE_BATCH) {
		sb->entries = 0;
	} else if (cmd == DWQ_IOC_CANCEL_BATCH) {
		cb->entries = 0;
	} else if (cmd == DWQ_IOC_QUERY) {
		q->remaining_ns = 0;
	} else if (cmd == DWQ_IOC_STATS) {
		/* The queue's: other files' and the workers' activity. */
		memset(&st->queue_size, 0,
		       sizeof(*st) -
			       offsetof(struct dwq_ioc_stats, queue_size));
	}
}

/* Ids 1 and 2 of same_prepare(), and up to 3 more a case makes. */
#define SAME_IDS 5

/*
 * The state of a file that can be compared with another's: its counts,
 * and QUERY of each id, all but remaining_ns (the time left from the
 * moment of each QUERY). QUERY's flags is the task's clock.
 */
struct same_state {
	uint64_t pending, fired, cancelled, events;
	long err[SAME_IDS];
	struct dwq_ioc_query q[SAME_IDS];
};

static struct same_state same_state(int fd)
{
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);
	struct same_state s;
	int i;

	memset(&s, 0, sizeof(s));
	s.pending = st.pending;
	s.fired = st.fired;
	s.cancelled = st.cancelled;
	s.events = st.events;
	for (i = 0; i < SAME_IDS; i++) {
		s.err[i] = dwqt_query(fd, i + 1, &s.q[i]);
		s.q[i].remaining_ns = 0;
	}
	return s;
}

/* A field of the file (@id 0) or of task @id after both calls. */
static void same_u64(const char *what, int id, const char *field,
		     uint64_t by_ioctl, uint64_t by_ring)
{
	char task[32] = "";

	if (id)
		snprintf(task, sizeof(task), "id %d's ", id);
	T_EXPECT(by_ioctl == by_ring,
		 "%s: %s%s %llu through the ring, %llu by ioctl", what, task,
		 field, (unsigned long long)by_ring,
		 (unsigned long long)by_ioctl);
}

/* @a the file the ioctl changed, @b the one the command did. */
static void same_compare(const char *what, const struct same_state *a,
			 const struct same_state *b)
{
	int i;

	same_u64(what, 0, "pending", a->pending, b->pending);
	same_u64(what, 0, "fired", a->fired, b->fired);
	same_u64(what, 0, "cancelled", a->cancelled, b->cancelled);
	same_u64(what, 0, "events", a->events, b->events);
	for (i = 0; i < SAME_IDS; i++) {
		const struct dwq_ioc_query *qa = &a->q[i], *qb = &b->q[i];

		T_EXPECT(a->err[i] == b->err[i],
			 "%s: QUERY of id %d %s through the ring, %s by ioctl",
			 what, i + 1, t_errname(-b->err[i]),
			 t_errname(-a->err[i]));
		same_u64(what, i + 1, "deadline_ns", qa->deadline_ns,
			 qb->deadline_ns);
		same_u64(what, i + 1, "flags", qa->flags, qb->flags);
		same_u64(what, i + 1, "state", qa->state, qb->state);
		same_u64(what, i + 1, "mode", qa->mode, qb->mode);
		same_u64(what, i + 1, "period_ns", qa->period_ns,
			 qb->period_ns);
		same_u64(what, i + 1, "cookie", qa->cookie, qb->cookie);
		same_u64(what, i + 1, "runs", qa->runs, qb->runs);
		/* And whatever else QUERY says. */
		T_EXPECT(!memcmp(qa, qb, sizeof(*qa)),
			 "%s: QUERY of id %d differs", what, i + 1);
	}
}

TEST_F(uring, same_as_ioctl)
{
	static char entries[2][ENTRIES_SIZE];
	struct same_state st[2];
	char arg[2][256];
	unsigned int i;
	long ret[2];
	int fd[2], k;

	ring_init();
	same_mono = dwqt_now() + DWQT_FAR_NS;
	same_boot = dwqt_now_boot() + DWQT_FAR_NS;
	for (i = 0; i < ARRAY_SIZE(same_cases); i++) {
		const struct same_case *sc = &same_cases[i];

		for (k = 0; k < 2; k++) {
			void *p;

			fd[k] = dwqt_open(0);
			same_prepare(fd[k]);
			memset(entries[k], 0, ENTRIES_SIZE);
			memset(arg[k], 0, sizeof(arg[k]));
			p = sc->make(arg[k], entries[k]);
			ret[k] = k ? uring_ioctl(fd[k], sc->cmd, p) :
				     dwqt_ioctl(fd[k], sc->cmd, p);
			same_mask(sc->cmd, arg[k]);
			st[k] = same_state(fd[k]);
		}
		T_EXPECT(sc->want < 0 || ret[0] == -sc->want,
			 "%s: ioctl gave %s, expected %s", sc->what,
			 t_errname(-ret[0]), t_errname(sc->want));
		T_EXPECT(ret[1] == ret[0], "%s: the command gave %s, ioctl %s",
			 sc->what, t_errname(-ret[1]), t_errname(-ret[0]));
		T_EXPECT(!memcmp(arg[0], arg[1], _IOC_SIZE(sc->cmd)),
			 "%s: the argument written back differs", sc->what);
		T_EXPECT(!memcmp(entries[0], entries[1], ENTRIES_SIZE),
			 "%s: the entries written back differ", sc->what);
		same_compare(sc->what, &st[0], &st[1]);
		close(fd[0]);
		close(fd[1]);
	}
}

/*
 * On a ring set up with IORING_SETUP_IOPOLL: the io_uring of 6.x refuses
 * the command (EOPNOTSUPP) having done nothing; the io_uring of 7.2 and
 * later runs it as on any other ring, and its cancel too. (Kernels in
 * between may do either: each is checked whole.)
 */
TEST_F(uring, iopoll_ring)
{
	struct dwq_ioc_schedule s =
		dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	struct dwq_ioc_cancel c = { 0 };
	unsigned int major = 0, minor = 0;
	int fd = self->f.fd;
	struct utsname u;
	struct io_uring r;
	long ret;

	T_EQ(uname(&u), 0);
	if (sscanf(u.release, "%u.%u", &major, &minor) != 2)
		t_fail("uname's release %s: no MAJOR.MINOR", u.release);
	ring_init_flags(&r, IORING_SETUP_IOPOLL);
	s.id = 0xdead;
	ret = ring_ioctl(&r, fd, DWQ_IOC_SCHEDULE, &s);
	if (major < 7)
		T_ERR(ret, EOPNOTSUPP);
	else if (major > 7 || minor >= 2)
		T_OK(ret);
	if (ret) {
		T_ERR(ret, EOPNOTSUPP);
		T_EQ(s.id, 0xdead);
		T_EQ(dwqt_stats_ok(fd).pending, 0);
	} else {
		T_EQ(dwqt_query_ok(fd, s.id).state, DWQ_STATE_QUEUED);
		c.id = s.id;
		T_OK(ring_ioctl(&r, fd, DWQ_IOC_CANCEL, &c));
		T_EQ(c.result, DWQ_RESULT_REMOVED);
		T_EQ(dwqt_stats_ok(fd).pending, 0);
	}
	io_uring_queue_exit(&r);
}

TEST_HARNESS_MAIN
