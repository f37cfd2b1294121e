// SPDX-License-Identifier: GPL-2.0
/*
 * Events: read(), poll(), epoll, their order, and periodic tasks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "dwq_test.h"

FIXTURE(read)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(read)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(read)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(order)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(order)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(order)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(event)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(event)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(event)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(poll)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(poll)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(poll)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(epoll)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(epoll)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(epoll)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(periodic)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(periodic)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(periodic)
{
	dwq_teardown(_metadata, &self->f);
}

/* Wait until STATS says @n events are waiting; fail after DWQT_WAIT_MS. */
static void wait_events(int fd, uint64_t n)
{
	struct dwq_ioc_stats st;
	int i;

	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		st = dwqt_stats_ok(fd);
		if (st.events >= n)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(st.events, n);
}

/* A one-shot's event: its id, cookie, deadline, never early, LAST. */
TEST_F(read, oneshot_event)
{
	int fd = self->f.fd;
	uint64_t t0, t1, deadline, id;
	struct dwq_event ev;

	t0 = dwqt_now();
	deadline = t0 + 20 * NSEC_PER_MSEC;
	id = dwqt_sched_ok(fd, deadline, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS,
			   0xc0ffee);
	ev = dwqt_read_one(fd);
	t1 = dwqt_now();
	dwqt_check_event(&ev);
	T_EQ(ev.id, id);
	T_EQ(ev.cookie, 0xc0ffee);
	T_EQ(ev.deadline_ns, deadline);
	T_EQ(ev.flags, DWQ_EVENT_LAST);
	T_EQ(ev.overruns, 0);
	T_EXPECT(t1 >= deadline, "read %llu ns before the deadline",
		 (unsigned long long)(deadline - t1));
	T_EXPECT(ev.fired_ns <= t1, "fired_ns %llu after the read at %llu",
		 (unsigned long long)ev.fired_ns, (unsigned long long)t1);
	T_EXPECT(t1 - deadline <= DWQT_LATE_NS, "read %llu ms late",
		 (unsigned long long)((t1 - deadline) / NSEC_PER_MSEC));

	/* The same with a relative delay of 20 ms. */
	t0 = dwqt_now();
	id = dwqt_sched_ok(fd, 20 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 2);
	ev = dwqt_read_one(fd);
	t1 = dwqt_now();
	dwqt_check_event(&ev);
	T_EQ(ev.id, id);
	T_EXPECT(t1 - t0 >= 20 * NSEC_PER_MSEC, "read after %llu us",
		 (unsigned long long)((t1 - t0) / 1000));
	T_EXPECT(ev.deadline_ns >= t0 + 20 * NSEC_PER_MSEC,
		 "deadline %llu before schedule time + 20 ms %llu",
		 (unsigned long long)ev.deadline_ns,
		 (unsigned long long)(t0 + 20 * NSEC_PER_MSEC));
	T_EQ(dwqt_stats_ok(fd).pending, 0);
}

/*
 * Once a one-shot's LAST event is read, its id is gone: QUERY and CANCEL
 * are -ENOENT, and it is no longer pending. Many rounds: half of them
 * with the task due at once, read after poll() said so; the other half
 * with it due 2 ms later and the reader gone into a blocking read()
 * before that, asleep there when the task falls due: a device that drops
 * the id only after publishing the event fails some of them.
 */
TEST_F(read, last_event_id_gone)
{
	uint64_t id, pending, end = dwqt_now() + DWQT_RACE_NS;
	int fd = self->f.fd, i;
	struct dwq_event ev;
	struct dwq_ioc_query q;
	long r;

	for (i = 0; i < 500 && dwqt_now() < end; i++) {
		id = dwqt_sched_ok(fd, i % 2 ? 2 * NSEC_PER_MSEC : 0, 0,
				   DWQ_MODE_ONESHOT, 0, i);
		if (i % 2)
			T_EXPECT(read(fd, &ev, sizeof(ev)) == sizeof(ev),
				 "round %d: blocking read: %s", i,
				 t_errname(errno));
		else
			ev = dwqt_read_one(fd);
		T_EQ(ev.id, id);
		T_EQ(ev.flags, DWQ_EVENT_LAST);
		r = dwqt_query(fd, id, &q);
		pending = dwqt_stats_ok(fd).pending;
		T_EXPECT(r == -ENOENT,
			 "round %d: QUERY after the LAST event: %s (state %u, runs %llu), expected ENOENT",
			 i, r ? t_errname(-r) : "success", q.state,
			 (unsigned long long)q.runs);
		T_EXPECT(pending == 0,
			 "round %d: pending %llu after the LAST event", i,
			 (unsigned long long)pending);
		r = dwqt_cancel(fd, id, NULL);
		T_EXPECT(r == -ENOENT,
			 "round %d: CANCEL after the LAST event: %s, expected ENOENT",
			 i, r ? t_errname(-r) : "success");
	}
	t_note("%d rounds", i);
}

/* O_NONBLOCK: an empty file's read() is -EAGAIN, set at open or fcntl. */
TEST_F(read, nonblock_eagain)
{
	int fd = dwqt_open(O_NONBLOCK);
	struct dwq_event ev;
	uint64_t id;

	T_EXPECT(read(fd, &ev, sizeof(ev)) < 0 && errno == EAGAIN,
		 "read of an empty O_NONBLOCK file: %s, expected EAGAIN",
		 t_errname(errno));
	dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_EXPECT(read(fd, &ev, sizeof(ev)) < 0 && errno == EAGAIN,
		 "read with only a far task: %s, expected EAGAIN",
		 t_errname(errno));
	/* Blocking again: the read waits for the event. */
	T_EXPECT(!fcntl(fd, F_SETFL, 0), "fcntl: %s", t_errname(errno));
	id = dwqt_sched_ok(fd, 30 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 1);
	T_EXPECT(read(fd, &ev, sizeof(ev)) == sizeof(ev), "blocking read: %s",
		 t_errname(errno));
	T_EQ(ev.id, id);
	T_EXPECT(!fcntl(fd, F_SETFL, O_NONBLOCK), "fcntl: %s",
		 t_errname(errno));
	T_EXPECT(read(fd, &ev, sizeof(ev)) < 0 && errno == EAGAIN,
		 "read after fcntl(O_NONBLOCK): %s, expected EAGAIN",
		 t_errname(errno));
}

/* A buffer smaller than one event is -EINVAL, and loses nothing. */
TEST_F(read, small_buffer_einval)
{
	static const size_t sizes[] = { 1, 8, sizeof(struct dwq_event) - 1 };
	int fd = self->f.fd, status;
	struct dwq_event ev;
	uint64_t id;
	pid_t pid;
	size_t i;
	int k;

	/* With no event, a blocking read() must refuse, not wait. */
	pid = fork();
	if (pid < 0)
		t_fail("fork: %s", t_errname(errno));
	if (!pid)
		_exit(read(fd, &ev, 1) < 0 && errno == EINVAL ? 0 : 1);
	for (k = 0; k < DWQT_WAIT_MS / 10; k++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		dwqt_sleep_ms(10);
	}
	if (k == DWQT_WAIT_MS / 10) {
		kill(pid, SIGKILL);
		t_fail("a 1-byte read() of an empty file blocks");
	}
	T_EXPECT(WIFEXITED(status) && !WEXITSTATUS(status),
		 "a 1-byte read() of an empty file did not fail with EINVAL");

	id = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 1);
	wait_events(fd, 1);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		ssize_t n = read(fd, &ev, sizes[i]);

		T_EXPECT(n < 0 && errno == EINVAL,
			 "read of %zu bytes: %zd (%s), expected EINVAL",
			 sizes[i], n, n < 0 ? t_errname(errno) : "-");
	}
	T_EQ(dwqt_stats_ok(fd).events, 1);
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, id);
}

/* A buffer of 2.5 events returns 2 whole events, the third comes next. */
TEST_F(read, whole_events_only)
{
	struct dwq_event ev[4];
	int fd = dwqt_open(O_NONBLOCK), i;
	uint64_t ids[3];
	ssize_t n;

	for (i = 0; i < 3; i++)
		ids[i] = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, i);
	wait_events(fd, 3);
	n = read(fd, ev, 2 * sizeof(ev[0]) + sizeof(ev[0]) / 2);
	T_EXPECT(n == 2 * sizeof(ev[0]), "read of 2.5 events: %zd (%s)", n,
		 n < 0 ? t_errname(errno) : "bytes");
	n = read(fd, &ev[2], 2 * sizeof(ev[0]));
	T_EXPECT(n == sizeof(ev[0]), "read of the rest: %zd (%s)", n,
		 n < 0 ? t_errname(errno) : "bytes");
	for (i = 0; i < 3; i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT((ev[i].id == ids[0] || ev[i].id == ids[1] ||
			  ev[i].id == ids[2]),
			 "unknown id %llu", (unsigned long long)ev[i].id);
	}
	T_EXPECT((ev[0].id != ev[1].id && ev[1].id != ev[2].id &&
		  ev[0].id != ev[2].id),
		 "an event came twice");
	T_EXPECT(read(fd, ev, sizeof(ev)) < 0 && errno == EAGAIN,
		 "read after all events: %s, expected EAGAIN",
		 t_errname(errno));
}

/*
 * A bad buffer is -EFAULT: NULL, unmapped, read-only, or not user space.
 * The event stays: the next read() returns it, the only one.
 */
TEST_F(read, bad_buffer_efault)
{
	int fd = dwqt_open(O_NONBLOCK), i;
	struct dwq_event ev[2] = { 0 };
	void *bufs[4];
	uint64_t id;
	ssize_t n;

	bufs[0] = NULL;
	bufs[1] = dwqt_unmapped();
	bufs[2] = dwqt_ro_copy(&ev[0], sizeof(ev[0]));
	/* The top page: access_ok() refuses it before any store. */
	bufs[3] = (void *)(uintptr_t)-4096;
	for (i = 0; i < 4; i++) {
		id = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, i);
		wait_events(fd, 1);
		n = read(fd, bufs[i], sizeof(ev[0]));
		T_EXPECT(n < 0 && errno == EFAULT,
			 "read into %p: %zd (%s), expected EFAULT", bufs[i], n,
			 n < 0 ? t_errname(errno) : "bytes");
		T_EQ(dwqt_stats_ok(fd).events, 1);
		T_EQ(dwqt_stats_ok(fd).fired, i);
		memset(ev, 0, sizeof(ev));
		n = read(fd, ev, sizeof(ev));
		T_EXPECT(n == sizeof(ev[0]),
			 "read after the fault into %p: %zd (%s), expected 1 event",
			 bufs[i], n, n < 0 ? t_errname(errno) : "bytes");
		dwqt_check_event(&ev[0]);
		T_EQ(ev[0].id, id);
		T_EQ(ev[0].cookie, i);
		T_EQ(ev[0].flags, DWQ_EVENT_LAST);
		n = read(fd, ev, sizeof(ev));
		T_EXPECT(n < 0 && errno == EAGAIN,
			 "read after the event: %zd (%s), expected EAGAIN", n,
			 n < 0 ? t_errname(errno) : "bytes");
	}
}

/*
 * A buffer that turns bad part-way: read() returns the whole events that
 * fit before the fault, whether fewer than one chunk of its copying (5) or
 * several (30), and loses none: the rest come with the next read(). So
 * too with a buffer @off bytes short of aligned for the events' fields,
 * whose event after the last whole one faults @off bytes in. With @tied,
 * every task has one deadline: the tasks put back after the fault still
 * come in the order they were scheduled, before those never taken.
 */
#define NR_PARTIAL 40

static void read_partial_efault(int fit, size_t off, bool tied)
{
	static struct dwq_event rest[NR_PARTIAL];
	int fd = dwqt_open(O_NONBLOCK), got, i;
	char *bad = dwqt_unmapped();
	char *buf = bad - fit * sizeof(struct dwq_event) - off;
	uint64_t ids[NR_PARTIAL], seen[NR_PARTIAL];
	uint64_t at = dwqt_now() + 20 * NSEC_PER_MSEC;
	struct dwq_event ev;
	ssize_t n;

	for (i = 0; i < NR_PARTIAL; i++)
		ids[i] = dwqt_sched_ok(fd, tied ? at : 0, 0, DWQ_MODE_ONESHOT,
				       tied ? DWQ_SCHED_ABS : 0, i);
	wait_events(fd, NR_PARTIAL);
	n = read(fd, buf, NR_PARTIAL * sizeof(ev));
	/* Not one event whole: -EFAULT. */
	T_EXPECT(fit ? n == (ssize_t)(fit * sizeof(ev)) :
		       n < 0 && errno == EFAULT,
		 "read with room for %d events and %zu bytes before a bad page: %zd (%s)",
		 fit, off, n, n < 0 ? t_errname(errno) : "bytes");
	got = n > 0 ? n / sizeof(ev) : 0;
	for (i = 0; i < got; i++) {
		memcpy(&ev, buf + i * sizeof(ev), sizeof(ev));
		dwqt_check_event(&ev);
		seen[i] = ev.id;
	}
	n = read(fd, rest, sizeof(rest));
	T_EXPECT(n == (ssize_t)((NR_PARTIAL - got) * sizeof(ev)),
		 "read of the rest: %zd (%s), expected %d events", n,
		 n < 0 ? t_errname(errno) : "bytes", NR_PARTIAL - got);
	for (i = 0; n > 0 && i < NR_PARTIAL - got; i++)
		seen[got + i] = rest[i].id;
	/* Every id exactly once, in the order scheduled. */
	for (i = 0; n > 0 && i < NR_PARTIAL; i++)
		T_EXPECT(seen[i] == ids[i], "event %d: id %llu, expected %llu",
			 i, (unsigned long long)seen[i],
			 (unsigned long long)ids[i]);
	T_EXPECT(read(fd, rest, sizeof(rest)) < 0 && errno == EAGAIN,
		 "an event left after all %d: %s", NR_PARTIAL,
		 t_errname(errno));
	T_EQ(dwqt_stats_ok(fd).events, 0);
}

TEST_F(read, partial_efault_loses_nothing)
{
	read_partial_efault(5, 0, false);
	read_partial_efault(30, 0, false);
	read_partial_efault(5, 4, false);
	read_partial_efault(30, 1, false);
}

/* Tasks due at one deadline leave in the order scheduled, a fault or not. */
TEST_F(read, partial_efault_keeps_ties_in_order)
{
	read_partial_efault(0, 0, true);
	read_partial_efault(5, 0, true);
	read_partial_efault(30, 0, true);
	read_partial_efault(5, 4, true);
}

/*
 * A read() of one event stores it whole at any alignment of the buffer,
 * a one-shot's (which the read leaves owed) as a periodic task's; a
 * buffer that turns bad part-way through the event gets -EFAULT, aligned
 * (stored field by field) or not (copied), and the event comes with the
 * next read(), the same.
 */
TEST_F(read, one_event_any_alignment)
{
	static const uint32_t modes[] = { DWQ_MODE_ONESHOT,
					  DWQ_MODE_FIXED_RATE };
	static const size_t offs[] = { 0, 1, 4, 7 };
	uint64_t words[sizeof(struct dwq_event) / 8 + 1];
	char *buf = (char *)words;
	int fd = dwqt_open(O_NONBLOCK);
	char *bad = dwqt_unmapped();
	struct dwq_event ev;
	uint64_t id, cookie;
	unsigned int m, o;
	ssize_t n;

	for (m = 0; m < 2; m++) {
		for (o = 0; o < 4; o++) {
			cookie = 100 * m + o;
			id = dwqt_sched_ok(fd, 0, m ? 3600 * NSEC_PER_SEC : 0,
					   modes[m], 0, cookie);
			wait_events(fd, 1);
			n = read(fd, bad - sizeof(ev) / 2 + offs[o],
				 sizeof(ev));
			T_EXPECT(n < 0 && errno == EFAULT,
				 "read of an event half on a bad page at +%zu: %zd (%s)",
				 offs[o], n,
				 n < 0 ? t_errname(errno) : "bytes");
			T_EQ(dwqt_stats_ok(fd).events, 1);
			memset(buf, 0xa5, sizeof(words));
			n = read(fd, buf + offs[o], sizeof(ev));
			T_EQ(n, (ssize_t)sizeof(ev));
			memcpy(&ev, buf + offs[o], sizeof(ev));
			dwqt_check_event(&ev);
			T_EQ(ev.id, id);
			T_EQ(ev.cookie, cookie);
			T_EQ(ev.flags, m ? 0 : DWQ_EVENT_LAST);
			T_EQ(ev.overruns, 0);
			T_EQ(ev.skipped, 0);
			T_EQ(ev.folded, 0);
			/* Not a byte outside the event. */
			for (n = 0; n < (ssize_t)offs[o]; n++)
				T_EQ(buf[n], (char)0xa5);
			for (n = offs[o] + sizeof(ev);
			     n < (ssize_t)sizeof(words); n++)
				T_EQ(buf[n], (char)0xa5);
			if (m)
				T_OK(dwqt_cancel(fd, id, NULL));
			T_EQ(dwqt_stats_ok(fd).events, 0);
		}
	}
}

struct reader {
	int fd;
	ssize_t n;
	int err;
	uint64_t t;
	struct dwq_event ev;
	pid_t tid;
};

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	__atomic_store_n(&r->tid, gettid(), __ATOMIC_SEQ_CST);
	r->n = read(r->fd, &r->ev, sizeof(r->ev));
	r->err = errno;
	r->t = dwqt_now();
	return NULL;
}

static void start_reader(pthread_t *th, struct reader *r)
{
	int i;

	if (pthread_create(th, NULL, reader_fn, r))
		t_fail("pthread_create failed");
	for (i = 0; i < 500 && !__atomic_load_n(&r->tid, __ATOMIC_SEQ_CST); i++)
		dwqt_sleep_ms(10);
	t_wait_blocked(getpid(), r->tid, __NR_read, "the reader thread");
	/* Asleep in read() now; let it settle anyway. */
	dwqt_sleep_ms(100);
}

static void join_reader(pthread_t th)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += DWQT_WAIT_MS / 1000;
	if (pthread_timedjoin_np(th, NULL, &ts))
		t_fail("the blocked read() did not return within %d ms",
		       DWQT_WAIT_MS);
}

/* A read() that blocks before the timer fires gets its event. */
TEST_F(read, blocking)
{
	struct reader r = { .fd = self->f.fd };
	uint64_t id, t;
	pthread_t th;

	start_reader(&th, &r);
	t = dwqt_now();
	id = dwqt_sched_ok(r.fd, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0,
			   77);
	join_reader(th);
	T_EXPECT(r.n == sizeof(r.ev), "read: %zd (%s)", r.n, t_errname(r.err));
	T_EQ(r.ev.id, id);
	T_EQ(r.ev.cookie, 77);
	T_EXPECT(r.t >= t + 50 * NSEC_PER_MSEC,
		 "read returned %llu us after a 50 ms schedule",
		 (unsigned long long)((r.t - t) / 1000));
}

/*
 * Nothing changes in the queue's stats between two looks 50 ms apart,
 * with a worker leading: then it sleeps on its timer, and a later wakeup
 * is one of ours.
 */
static struct dwq_ioc_stats settled_stats(int fd)
{
	struct dwq_ioc_stats a, b;
	int i;

	b = dwqt_stats_ok(fd);
	for (i = 0; i < DWQT_WAIT_MS / 50; i++) {
		a = b;
		dwqt_sleep_ms(50);
		b = dwqt_stats_ok(fd);
		if (b.leader >= 0 && b.leader == a.leader &&
		    b.wakeups == a.wakeups && b.tasks_run == a.tasks_run)
			return b;
	}
	t_fail("the queue never settled with a leader: leader %d", b.leader);
	return b;
}

/*
 * A blocked reader is woken by the file's alarm, which the queue's timer
 * runs with no worker woken (timerfd's path): the leader sleeps on, the
 * alarm counted in tasks_run, not in wakeups; the reader fires the task
 * (its event's worker is 0: no worker fired it).
 */
TEST_F(read, blocking_from_timer)
{
	struct reader r = { .fd = self->f.fd };
	int other = dwqt_open(0);
	struct dwq_ioc_stats st0, st;
	uint64_t id;
	pthread_t th;

	/*
	 * The far task that makes a worker lead is another file's: then the
	 * reader's file has nothing left when its task is read, and its
	 * alarm is not armed again.
	 */
	dwqt_sched_ok(other, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	start_reader(&th, &r);
	st0 = settled_stats(r.fd);
	id = dwqt_sched_ok(r.fd, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 2);
	join_reader(th);
	T_EXPECT(r.n == sizeof(r.ev), "read: %zd (%s)", r.n, t_errname(r.err));
	dwqt_check_event(&r.ev);
	T_EQ(r.ev.id, id);
	T_EQ(r.ev.flags, DWQ_EVENT_LAST);
	T_EQ(r.ev.worker, 0);
	st = settled_stats(r.fd);
	T_EQ(st.leader, st0.leader);
	T_EQ(st.wakeups, st0.wakeups);
	T_EQ(st.tasks_run, st0.tasks_run + 1);
	T_EQ(st.fired, st0.fired + 1);
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* A blocked read() is interrupted by a signal: -EINTR. */
TEST_F(read, blocking_eintr)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct reader r = { .fd = self->f.fd };
	pthread_t th;

	sigaction(SIGUSR1, &sa, NULL);
	dwqt_sched_ok(r.fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	start_reader(&th, &r);
	pthread_kill(th, SIGUSR1);
	join_reader(th);
	T_EXPECT(r.n < 0 && r.err == EINTR, "read: %zd (%s), expected EINTR",
		 r.n, r.n < 0 ? t_errname(r.err) : "bytes");
}

/*
 * Events waiting together come out in deadline order, whatever the order
 * of scheduling: future deadlines, and past ones that all fire at once.
 */
static void deadline_order(uint64_t base, uint64_t step)
{
	static const uint32_t perm[] = { 5, 2, 7, 0, 3, 6, 1, 4 };
	struct dwq_ioc_schedule e[ARRAY_SIZE(perm)];
	struct dwq_event ev[ARRAY_SIZE(perm)];
	int fd = dwqt_open(0), n = 0;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(perm); i++)
		e[i] = dwqt_sched_arg(base + perm[i] * step, 0,
				      DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, perm[i]);
	T_OK(dwqt_batch(fd, e, ARRAY_SIZE(e), NULL));
	wait_events(fd, ARRAY_SIZE(perm));
	while (n < (int)ARRAY_SIZE(perm)) {
		int got = dwqt_read_events(fd, ev + n, ARRAY_SIZE(perm) - n,
					   DWQT_WAIT_MS);

		if (!got)
			t_fail("%d events of %zu", n, ARRAY_SIZE(perm));
		n += got;
	}
	for (i = 0; i < ARRAY_SIZE(perm); i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == i,
			 "event %zu has cookie %llu (deadline base + %llu ms)",
			 i, (unsigned long long)ev[i].cookie,
			 (unsigned long long)((ev[i].deadline_ns - base) /
					      NSEC_PER_MSEC));
		T_EQ(ev[i].deadline_ns, base + i * step);
		for (j = 0; perm[j] != i; j++)
			;
		T_EQ(ev[i].id, e[j].id);
	}
}

TEST_F(order, deadline)
{
	deadline_order(dwqt_now() + 300 * NSEC_PER_MSEC, 40 * NSEC_PER_MSEC);
}

TEST_F(order, deadline_past)
{
	deadline_order(dwqt_now() - 8 * NSEC_PER_MSEC, NSEC_PER_MSEC);
}

/*
 * Tasks of both clocks due together come out in deadline order, as
 * CLOCK_MONOTONIC times, in one read(): each clock's run of tasks ends
 * where the other clock's next deadline comes. 24 one-shots a millisecond
 * apart, all past, their clocks in runs of one to four, scheduled in a
 * scrambled order (7 and 24 have no common factor).
 *
 * Only clocks apart test the conversion: in a boot never suspended
 * CLOCK_BOOTTIME is CLOCK_MONOTONIC, and a CLOCK_BOOTTIME deadline not
 * converted at all (or converted the wrong way) sorts right. make check's
 * suspend job runs this case again right after a suspend of some 5 s, with
 * DWQ_TEST_SUSPENDED=1: then the clocks must be a second apart or more.
 */
#define NR_BOTH 24

/*
 * CLOCK_BOOTTIME minus CLOCK_MONOTONIC, to within 50 us: a CLOCK_BOOTTIME
 * read between two CLOCK_MONOTONIC reads no more than 100 us apart (a
 * test preempted between its reads would see the clocks apart by the
 * time it was off the CPU). Never suspended, the clocks are equal, and
 * the estimate may come out a few us below 0: compare it signed.
 */
static uint64_t boot_offset(void)
{
	uint64_t m1, b, m2;
	int i;

	for (i = 0; i < 1000; i++) {
		m1 = dwqt_now();
		b = dwqt_now_boot();
		m2 = dwqt_now();
		if (m2 - m1 <= 100000)
			return b - (m1 + (m2 - m1) / 2);
	}
	t_fail("no two clock reads 100 us apart or less in 1000 tries");
	return 0;
}

/*
 * boot_offset(), noted; with DWQ_TEST_SUSPENDED=1 (the suspend job, after
 * its suspend) the clocks must be a second apart or more.
 */
static uint64_t case_offset(void)
{
	uint64_t off = boot_offset();

	t_note("CLOCK_BOOTTIME is CLOCK_MONOTONIC + %lld ms",
	       (long long)off / (long long)NSEC_PER_MSEC);
	if (getenv("DWQ_TEST_SUSPENDED"))
		T_EXPECT((int64_t)off >= (int64_t)NSEC_PER_SEC,
			 "DWQ_TEST_SUSPENDED=1, but the clocks are %lld ns apart",
			 (long long)off);
	return off;
}

TEST_F(order, both_clocks)
{
	static const uint8_t boot[NR_BOTH] = { 0, 0, 0, 1, 1, 0, 1, 0,
					       0, 1, 1, 1, 1, 0, 1, 0,
					       0, 0, 0, 1, 0, 1, 1, 0 };
	struct dwq_ioc_schedule e[NR_BOTH];
	struct dwq_event ev[NR_BOTH];
	int fd = dwqt_open(O_NONBLOCK);
	uint64_t base, off;
	size_t i, k;
	ssize_t n;

	base = dwqt_now() - 40 * NSEC_PER_MSEC;
	/* Deadlines 1 ms apart: the offset is good to 50 us. */
	off = case_offset();
	for (i = 0; i < NR_BOTH; i++) {
		k = i * 7 % NR_BOTH;
		e[i] = dwqt_sched_arg(base + k * NSEC_PER_MSEC +
					      (boot[k] ? off : 0),
				      0, DWQ_MODE_ONESHOT,
				      DWQ_SCHED_ABS |
					      (boot[k] ? DWQ_SCHED_BOOTTIME :
							 0),
				      k);
	}
	T_OK(dwqt_batch(fd, e, NR_BOTH, NULL));
	wait_events(fd, NR_BOTH);
	n = read(fd, ev, sizeof(ev));
	T_EXPECT(n == (ssize_t)sizeof(ev),
		 "read %zd bytes (%s), expected %d events", n,
		 n < 0 ? t_errname(errno) : "bytes", NR_BOTH);
	for (i = 0; n > 0 && i < n / sizeof(ev[0]); i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == i,
			 "event %zu: cookie %llu, expected %zu (its clock %s)",
			 i, (unsigned long long)ev[i].cookie, i,
			 boot[i] ? "BOOTTIME" : "MONOTONIC");
	}
}

/*
 * A CLOCK_BOOTTIME deadline earlier than the time suspended since boot
 * is before 0 as a CLOCK_MONOTONIC time, and comes out before a
 * CLOCK_MONOTONIC deadline of 0, in deadline order with the others like
 * it, kept events too. Scheduled in this order:
 *
 *   cookie 3: a CLOCK_MONOTONIC one-shot due at 0;
 *   cookie 2: a CLOCK_BOOTTIME fixed-rate task due at 2 ns, rescheduled
 *	while due, which keeps its event;
 *   cookie 1: a CLOCK_BOOTTIME one-shot due at 1 ns;
 *   cookie 4: a CLOCK_MONOTONIC one-shot due 10 ms ago.
 *
 * With the clocks a second apart they come out in cookie order, at 1 ns
 * and 2 ns less the offset, 0, and 10 ms ago. With the clocks one (a boot
 * never suspended) the order is another, so the case is skipped then;
 * make check's suspend job runs it after its suspend, with
 * DWQ_TEST_SUSPENDED=1, which makes the clocks a second apart a
 * condition.
 */
TEST_F(order, boottime_before_monotonic_zero)
{
	struct dwq_ioc_schedule e[2];
	int fd = dwqt_open(O_NONBLOCK), i;
	uint64_t off, ids[4];
	struct dwq_event ev[5]; /* room for one too many */
	ssize_t n;

	off = case_offset();
	if ((int64_t)off < (int64_t)NSEC_PER_SEC)
		t_skip("the clocks are %lld ns apart: no suspend to test with",
		       (long long)off);
	ids[2] = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 3);
	ids[1] = dwqt_sched_ok(fd, 2, DWQT_FAR_NS, DWQ_MODE_FIXED_RATE,
			       DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, 2);
	e[0] = dwqt_sched_arg(1, 0, DWQ_MODE_ONESHOT,
			      DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, 1);
	e[1] = dwqt_sched_arg(dwqt_now() - 10 * NSEC_PER_MSEC, 0,
			      DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 4);
	T_OK(dwqt_batch(fd, e, 2, NULL));
	ids[0] = e[0].id;
	ids[3] = e[1].id;
	T_OK(dwqt_resched(fd, ids[1], DWQT_FAR_NS, 0, 0, 0));
	wait_events(fd, 4);
	n = read(fd, ev, sizeof(ev));
	T_EXPECT(n == (ssize_t)(4 * sizeof(ev[0])),
		 "read %zd bytes (%s), expected 4 events", n,
		 n < 0 ? t_errname(errno) : "bytes");
	for (i = 0; i < 4; i++)
		t_note("event %d: cookie %llu, deadline %llu ns", i,
		       (unsigned long long)ev[i].cookie,
		       (unsigned long long)ev[i].deadline_ns);
	for (i = 0; i < 4; i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == (uint64_t)i + 1,
			 "event %d: cookie %llu, expected %d", i,
			 (unsigned long long)ev[i].cookie, i + 1);
		T_EQ(ev[i].id, ids[i]);
	}
	close(fd);
}

/*
 * Ten one-shots due at @base + 0..9 ms, all past, and a fixed-rate task
 * due at @base + 4.5 ms (cookie 100), rescheduled while due (which keeps
 * its event) to @again, absolute, or DWQT_FAR_NS ahead if 0; all eleven
 * events waiting. Return the periodic task's id.
 */
static uint64_t kept_event_among(int fd, uint64_t base, uint64_t again)
{
	struct dwq_ioc_schedule e[10];
	uint64_t id;
	int i;

	for (i = 0; i < 10; i++)
		e[i] = dwqt_sched_arg(base + i * NSEC_PER_MSEC, 0,
				      DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, i);
	id = dwqt_sched_ok(fd, base + 4500 * 1000, DWQT_FAR_NS,
			   DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 100);
	T_OK(dwqt_batch(fd, e, 10, NULL));
	T_OK(dwqt_resched(fd, id, again ?: DWQT_FAR_NS, 0, 0,
			  again ? DWQ_SCHED_ABS : 0));
	wait_events(fd, 11);
	return id;
}

/*
 * A kept event comes out between the tasks due before and after its
 * deadline: a fixed-rate task due at base + 4.5 ms, rescheduled while due
 * (which keeps its event), among ten one-shots due at base + 0..9 ms, all
 * past, read at once. The read() returns the one-shots' charges: the
 * file, its user and all files count the periodic task alone after it.
 */
TEST_F(order, kept_event_in_a_run)
{
	int fd = dwqt_open(O_NONBLOCK), i;
	struct dwq_ioc_stats st0, st;
	struct dwq_event ev[11];
	ssize_t n;

	st0 = dwqt_stats_ok(fd);
	kept_event_among(fd, dwqt_now() - 20 * NSEC_PER_MSEC, 0);
	n = read(fd, ev, sizeof(ev));
	T_EXPECT(n == (ssize_t)sizeof(ev),
		 "read %zd bytes (%s), expected 11 events", n,
		 n < 0 ? t_errname(errno) : "bytes");
	for (i = 0; n > 0 && i < (int)(n / sizeof(ev[0])); i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == (uint64_t)(i < 5  ? i :
						    i == 5 ? 100 :
							     i - 1),
			 "event %d: cookie %llu", i,
			 (unsigned long long)ev[i].cookie);
	}
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, 1);
	T_EQ(st.events, 0);
	T_EQ(st.user_tasks, st0.user_tasks + 1);
	T_EQ(st.all_tasks, st0.all_tasks + 1);
	T_EQ(st.user_rate_mhz, st0.user_rate_mhz + 1);
}

/*
 * A read() whose buffer turns bad after @fit whole events, among ten
 * one-shots due at base + 0..9 ms and a fixed-rate task whose kept event
 * (its firing at base + 4.5 ms, kept by a RESCHEDULE while it was due)
 * folds the firing the RESCHEDULE queued it for at base + 7.5 ms: the
 * read returns the @fit events before the fault (-EFAULT if none fits)
 * and the next read the rest, every event once, in deadline order, the
 * folded one once with its latest deadline and one firing folded.
 */
static void kept_event_fault(int fit)
{
	int fd = dwqt_open(O_NONBLOCK), got = 0, i;
	char *buf = (char *)dwqt_unmapped() - fit * sizeof(struct dwq_event);
	uint64_t base = dwqt_now() - 20 * NSEC_PER_MSEC, id;
	struct dwq_event ev[11];
	ssize_t n;

	id = kept_event_among(fd, base, base + 7500 * 1000);
	n = read(fd, buf, sizeof(ev));
	T_EXPECT(fit ? n == (ssize_t)(fit * sizeof(ev[0])) :
		       n < 0 && errno == EFAULT,
		 "read with room for %d events before a bad page: %zd (%s)",
		 fit, n, n < 0 ? t_errname(errno) : "bytes");
	if (n > 0) {
		got = n / sizeof(ev[0]);
		memcpy(ev, buf, n);
	}
	n = read(fd, ev + got, sizeof(ev) - got * sizeof(ev[0]));
	T_EXPECT(n == (ssize_t)((11 - got) * sizeof(ev[0])),
		 "read of the rest: %zd (%s), expected %d events", n,
		 n < 0 ? t_errname(errno) : "bytes", 11 - got);
	for (i = 0; n > 0 && i < 11; i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == (uint64_t)(i < 8  ? i :
						    i == 8 ? 100 :
							     i - 1),
			 "fit %d, event %d: cookie %llu", fit, i,
			 (unsigned long long)ev[i].cookie);
		if (ev[i].cookie != 100)
			continue;
		T_EQ(ev[i].id, id);
		T_EQ(ev[i].deadline_ns, base + 7500 * 1000);
		T_EQ(ev[i].folded, 1);
		T_EQ(ev[i].flags, DWQ_EVENT_COALESCED);
	}
	T_EXPECT(read(fd, ev, sizeof(ev)) < 0 && errno == EAGAIN,
		 "fit %d: an event left after all 11: %s", fit,
		 t_errname(errno));
	T_EQ(dwqt_stats_ok(fd).events, 0);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
	close(fd);
}

TEST_F(order, kept_event_fault_loses_nothing)
{
	kept_event_fault(0);
	kept_event_fault(5);
	kept_event_fault(8);
	kept_event_fault(9);
	kept_event_fault(10);
}

/*
 * A coalesced event takes the deadline of its latest firing: it still
 * comes out in deadline order with the events waiting with it. (A task
 * fires with its event unread only when RESCHEDULE fires it parked,
 * keeping its event, and queues it again.)
 */
TEST_F(order, coalesced_event)
{
	int fd = dwqt_open(O_NONBLOCK), n, i;
	uint64_t base, periodic, oneshot;
	struct dwq_event ev[4];
	struct dwq_ioc_query q;

	base = dwqt_now() + 100 * NSEC_PER_MSEC;
	periodic = dwqt_sched_ok(fd, base, 20 * NSEC_PER_MSEC,
				 DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 1);
	oneshot = dwqt_sched_ok(fd, base + 60 * NSEC_PER_MSEC, 0,
				DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 2);
	/* Its event unread, the periodic task parks after one firing... */
	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		q = dwqt_query_ok(fd, periodic);
		if (q.state == DWQ_STATE_PARKED)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(q.state, DWQ_STATE_PARKED);
	/* ...and, fired and queued again after the one-shot, folds into it. */
	T_OK(dwqt_resched(fd, periodic, base + 120 * NSEC_PER_MSEC, 0, 0,
			  DWQ_SCHED_ABS));
	for (i = 0; i < DWQT_WAIT_MS / 10; i++) {
		q = dwqt_query_ok(fd, periodic);
		if (q.state == DWQ_STATE_PARKED && q.runs == 1)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(q.state, DWQ_STATE_PARKED);
	T_EQ(q.runs, 1);
	wait_events(fd, 2);
	n = read(fd, ev, sizeof(ev));
	T_EXPECT(n == 2 * sizeof(ev[0]),
		 "read %d bytes (%s), expected 2 events", n,
		 n < 0 ? t_errname(errno) : "bytes");
	for (i = 0; i < 2; i++) {
		dwqt_check_event(&ev[i]);
		t_note("event %d: id %llu, deadline base + %lld ms, folded %llu",
		       i, (unsigned long long)ev[i].id,
		       (long long)(ev[i].deadline_ns - base) / 1000000,
		       (unsigned long long)ev[i].folded);
	}
	T_EQ(ev[0].id, oneshot);
	T_EQ(ev[1].id, periodic);
	T_EQ(ev[1].deadline_ns, base + 120 * NSEC_PER_MSEC);
	T_EQ(ev[1].folded, 1);
	T_EQ(ev[1].flags, DWQ_EVENT_COALESCED);
}

/* Equal deadlines: first scheduled, first out, singles and batch alike. */
/*
 * A periodic task's next deadline is keyed when it fires: a one-shot
 * scheduled earlier for that same deadline goes first. P, fixed-rate, due
 * at T + 1 s and every second, scheduled before O, a one-shot at T + 2 s;
 * P fires (read at T + 1.5 s) and its next deadline, T + 2 s, is keyed
 * then, after O's: at T + 2.5 s, O's event comes before P's, both with
 * the deadline T + 2 s.
 */
TEST_F(order, periodic_keyed_when_it_fires)
{
	int fd = self->f.fd;
	uint64_t t = dwqt_now(), p, o;
	struct dwq_event ev[2];
	int n = 0;

	p = dwqt_sched_ok(fd, t + NSEC_PER_SEC, NSEC_PER_SEC,
			  DWQ_MODE_FIXED_RATE, DWQ_SCHED_ABS, 1);
	o = dwqt_sched_ok(fd, t + 2 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT,
			  DWQ_SCHED_ABS, 2);
	while (dwqt_now() < t + 1500 * NSEC_PER_MSEC)
		dwqt_sleep_ms(50);
	ev[0] = dwqt_read_one(fd);
	T_EQ(ev[0].id, p);
	/* Then it fired for T + 2 s, having missed T + 1 s: no order to see. */
	if (ev[0].fired_ns >= t + 2 * NSEC_PER_SEC)
		t_skip("P fired a period late: the guest stalled for over 1 s");
	T_EQ(ev[0].deadline_ns, t + NSEC_PER_SEC);
	while (dwqt_now() < t + 2500 * NSEC_PER_MSEC)
		dwqt_sleep_ms(50);
	while (n < 2) {
		int got = dwqt_read_events(fd, ev + n, 2 - n, DWQT_WAIT_MS);

		if (!got)
			t_fail("%d events of 2", n);
		n += got;
	}
	T_EQ(ev[0].id, o);
	T_EQ(ev[1].id, p);
	T_EQ(ev[0].deadline_ns, t + 2 * NSEC_PER_SEC);
	T_EQ(ev[1].deadline_ns, t + 2 * NSEC_PER_SEC);
}

TEST_F(order, fifo_ties)
{
	struct dwq_event ev[12];
	struct dwq_ioc_schedule e[6];
	int fd = self->f.fd, n = 0;
	uint64_t deadline, ids[12];
	int i;

	deadline = dwqt_now() + 300 * NSEC_PER_MSEC;
	for (i = 0; i < 6; i++)
		ids[i] = dwqt_sched_ok(fd, deadline, 0, DWQ_MODE_ONESHOT,
				       DWQ_SCHED_ABS, i);
	for (i = 0; i < 6; i++)
		e[i] = dwqt_sched_arg(deadline, 0, DWQ_MODE_ONESHOT,
				      DWQ_SCHED_ABS, 6 + i);
	T_OK(dwqt_batch(fd, e, 6, NULL));
	for (i = 0; i < 6; i++)
		ids[6 + i] = e[i].id;
	wait_events(fd, 12);
	while (n < 12) {
		int got = dwqt_read_events(fd, ev + n, 12 - n, DWQT_WAIT_MS);

		if (!got)
			t_fail("%d events of 12", n);
		n += got;
	}
	for (i = 0; i < 12; i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == (uint64_t)i && ev[i].id == ids[i],
			 "event %d: cookie %llu id %llu, expected cookie %d id %llu",
			 i, (unsigned long long)ev[i].cookie,
			 (unsigned long long)ev[i].id, i,
			 (unsigned long long)ids[i]);
		T_EQ(ev[i].deadline_ns, deadline);
	}
}

/*
 * Two batches of 128 one-shots fire with nobody reading: every event is
 * kept, and they come out in deadline order, ties in the order scheduled.
 */
#define NR_BATCH 128

TEST_F(event, none_dropped)
{
	static struct dwq_ioc_schedule e[2][NR_BATCH];
	static uint64_t ids[2 * NR_BATCH];
	static struct dwq_event ev[2 * NR_BATCH];
	const int total = 2 * NR_BATCH;
	int fd = self->f.fd, n = 0, b, i;
	uint64_t base;

	base = dwqt_now() + 200 * NSEC_PER_MSEC;
	for (b = 0; b < 2; b++) {
		for (i = 0; i < NR_BATCH; i++) {
			/* Four deadlines, each shared by half a batch. */
			e[b][i] = dwqt_sched_arg(base + (i % 4) * NSEC_PER_MSEC,
						 0, DWQ_MODE_ONESHOT,
						 DWQ_SCHED_ABS,
						 b * NR_BATCH + i);
		}
		T_OK(dwqt_batch(fd, e[b], NR_BATCH, NULL));
		for (i = 0; i < NR_BATCH; i++)
			ids[b * NR_BATCH + i] = e[b][i].id;
	}
	t_note("scheduled %d by base - %lld ms", total,
	       (long long)(base - dwqt_now()) / 1000000);
	wait_events(fd, total);
	t_note("all fired by base + %lld ms",
	       (long long)(dwqt_now() - base) / 1000000);
	while (n < total) {
		int got = dwqt_read_events(fd, ev + n, 50, DWQT_WAIT_MS);

		if (!got)
			t_fail("%d events of %d", n, total);
		n += got;
	}
	/* Expected: by deadline (cookie % 4), then by scheduling order. */
	for (i = 0; i < total; i++) {
		int d = i / (total / 4), k = i % (total / 4);
		uint64_t cookie = 4 * k + d;

		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].cookie == cookie && ev[i].id == ids[cookie],
			 "event %d: cookie %llu, id %llu; expected cookie %llu, id %llu",
			 i, (unsigned long long)ev[i].cookie,
			 (unsigned long long)ev[i].id,
			 (unsigned long long)cookie,
			 (unsigned long long)ids[cookie]);
		T_EQ(ev[i].deadline_ns, base + d * NSEC_PER_MSEC);
		T_EQ(ev[i].flags, DWQ_EVENT_LAST);
	}
	T_EQ(dwqt_stats_ok(fd).events, 0);
}

/*
 * Every event: fired at or after its exact deadline, and no later than
 * the read() that returned it (which fired it: worker 0, as
 * dwqt_check_event() checks with the rest of the fields).
 */
TEST_F(event, never_early)
{
	const uint64_t step = 3 * NSEC_PER_MSEC;
	struct dwq_ioc_schedule e[32];
	struct dwq_event ev[32];
	int fd = self->f.fd, n = 0, i;
	uint64_t base, read_end[32];
	uint32_t seen = 0;

	base = dwqt_now() + 50 * NSEC_PER_MSEC;
	for (i = 0; i < 32; i++)
		e[i] = dwqt_sched_arg(base + (31 - i) * step, 0,
				      DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 31 - i);
	T_OK(dwqt_batch(fd, e, 32, NULL));
	while (n < 32) {
		int got = dwqt_read_events(fd, ev + n, 32 - n, DWQT_WAIT_MS);
		uint64_t t = dwqt_now();

		if (!got)
			t_fail("%d events of 32", n);
		for (i = n; i < n + got; i++)
			read_end[i] = t;
		n += got;
	}
	for (i = 0; i < 32; i++) {
		dwqt_check_event(&ev[i]);
		T_EXPECT(ev[i].fired_ns <= read_end[i],
			 "event %d fired at %llu, after its read() returned at %llu",
			 i, (unsigned long long)ev[i].fired_ns,
			 (unsigned long long)read_end[i]);
		T_EXPECT(ev[i].cookie < 32, "cookie %llu",
			 (unsigned long long)ev[i].cookie);
		T_EXPECT(!(seen & (1U << ev[i].cookie)), "cookie %llu twice",
			 (unsigned long long)ev[i].cookie);
		seen |= 1U << ev[i].cookie;
		T_EQ(ev[i].id, e[31 - ev[i].cookie].id);
		T_EQ(ev[i].deadline_ns, base + ev[i].cookie * step);
		T_EQ(ev[i].flags, DWQ_EVENT_LAST);
		T_EQ(ev[i].overruns, 0);
	}
}

/* poll() reports POLLIN exactly while events wait. */
TEST_F(poll, pollin)
{
	struct pollfd p;
	int fd = self->f.fd;
	uint64_t t0, t1, deadline;
	struct dwq_event ev;
	int r;

	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	T_EQ(poll(&p, 1, 0), 0);
	dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_EQ(poll(&p, 1, 0), 0);
	t0 = dwqt_now();
	deadline = t0 + 100 * NSEC_PER_MSEC;
	dwqt_sched_ok(fd, deadline, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 1);
	r = poll(&p, 1, 0);
	T_EXPECT(r == 0 || dwqt_now() >= deadline,
		 "POLLIN (revents %#x) before the deadline", p.revents);
	r = poll(&p, 1, DWQT_WAIT_MS);
	t1 = dwqt_now();
	T_EQ(r, 1);
	T_EQ(p.revents, POLLIN);
	T_EXPECT(t1 >= deadline, "POLLIN %llu us before the deadline",
		 (unsigned long long)((deadline - t1) / 1000));
	T_EQ(dwqt_stats_ok(fd).events, 1);
	/* Still there until read. */
	T_EQ(poll(&p, 1, 0), 1);
	T_EQ(p.revents, POLLIN);
	T_EXPECT(read(fd, &ev, sizeof(ev)) == sizeof(ev), "read: %s",
		 t_errname(errno));
	T_EQ(ev.cookie, 1);
	T_EQ(poll(&p, 1, 0), 0);
	T_EQ(p.revents, 0);
}

static int epoll_one(int ep, int timeout_ms, uint32_t *events)
{
	struct epoll_event e;
	int r;

	do {
		r = epoll_wait(ep, &e, 1, timeout_ms);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		t_fail("epoll_wait: %s", t_errname(errno));
	*events = r ? e.events : 0;
	return r;
}

/* A new epoll instance watching @fd for EPOLLIN, with @flags (EPOLLET). */
static int epoll_watch(int fd, uint32_t flags)
{
	struct epoll_event e = { .events = EPOLLIN | flags };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
		t_fail("epoll: %s", t_errname(errno));
	return ep;
}

/* epoll, level-triggered: EPOLLIN while events wait. */
TEST_F(epoll, level_triggered)
{
	int fd = self->f.fd, ep = epoll_watch(fd, 0);
	struct dwq_event ev;
	uint32_t events;

	T_EQ(epoll_one(ep, 0, &events), 0);
	dwqt_sched_ok(fd, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 1);
	T_EQ(epoll_one(ep, DWQT_WAIT_MS, &events), 1);
	T_EQ(events, EPOLLIN);
	T_EQ(epoll_one(ep, 0, &events), 1);
	T_EQ(events, EPOLLIN);
	ev = dwqt_read_one(fd);
	T_EQ(ev.cookie, 1);
	T_EQ(epoll_one(ep, 0, &events), 0);
}

/* epoll, edge-triggered: each new event is an edge. */
TEST_F(epoll, edge_triggered)
{
	int fd = dwqt_open(O_NONBLOCK), ep = epoll_watch(fd, EPOLLET);
	struct dwq_event ev[2];
	uint32_t events;

	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 1);
	T_EQ(epoll_one(ep, DWQT_WAIT_MS, &events), 1);
	T_EQ(events, EPOLLIN);
	T_EQ(epoll_one(ep, 100, &events), 0);
	/* A second event, the first still unread: a new edge. */
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_EQ(epoll_one(ep, DWQT_WAIT_MS, &events), 1);
	T_EQ(events, EPOLLIN);
	T_EXPECT(read(fd, ev, sizeof(ev)) == sizeof(ev), "read: %s",
		 t_errname(errno));
	T_EQ(ev[0].cookie, 1);
	T_EQ(ev[1].cookie, 2);
	T_EQ(epoll_one(ep, 0, &events), 0);
}

/*
 * Edge-triggered, as the header says: while a task is due and unread, a
 * later one coming due brings no new edge (an unread file costs one
 * wakeup); read until -EAGAIN, and the next task that comes due brings
 * one.
 */
TEST_F(epoll, edge_triggered_drain)
{
	int fd = dwqt_open(O_NONBLOCK), ep = epoll_watch(fd, EPOLLET);
	struct dwq_event ev[3];
	uint32_t events;

	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 1);
	T_EQ(epoll_one(ep, DWQT_WAIT_MS, &events), 1);
	dwqt_sched_ok(fd, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 2);
	T_EQ(epoll_one(ep, 300, &events), 0);
	/* Both due: read until -EAGAIN. */
	T_EQ(read(fd, ev, sizeof(ev)), (ssize_t)(2 * sizeof(ev[0])));
	T_EQ(ev[0].cookie, 1);
	T_EQ(ev[1].cookie, 2);
	T_ERR(read(fd, ev, sizeof(ev)) < 0 ? -errno : 0, EAGAIN);
	dwqt_sched_ok(fd, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT, 0, 3);
	T_EQ(epoll_one(ep, DWQT_WAIT_MS, &events), 1);
	T_EQ(events, EPOLLIN);
	T_EQ(read(fd, ev, sizeof(ev)), (ssize_t)sizeof(ev[0]));
	T_EQ(ev[0].cookie, 3);
	close(ep);
	close(fd);
}

/*
 * Unread, a periodic task parks unfired: every firing is an event of its
 * own, made by read(), none folded, and the periods that passed are
 * counted when it is read (park.c checks the count exactly).
 */
static void parks_unread(uint32_t mode)
{
	int fd = dwqt_open(O_NONBLOCK);
	struct dwq_ioc_query q;
	struct dwq_ioc_stats st;
	struct dwq_event ev[4];
	uint64_t id;
	int n;

	id = dwqt_sched_ok(fd, 10 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC, mode, 0,
			   42);
	wait_events(fd, 1);
	dwqt_sleep_ms(300);
	q = dwqt_query_ok(fd, id);
	T_EQ(q.state, DWQ_STATE_PARKED);
	T_EQ(q.runs, 0);
	st = dwqt_stats_ok(fd);
	T_EQ(st.events, 1);
	T_EQ(st.fired, 0);
	T_EQ(st.coalesced, 0);
	/* One event: the only one waiting (events 1 above). */
	n = read(fd, ev, sizeof(ev[0]));
	T_EXPECT(n == sizeof(ev[0]), "read %d bytes (%s), expected 1 event", n,
		 n < 0 ? t_errname(errno) : "bytes");
	dwqt_check_event(&ev[0]);
	T_EQ(ev[0].id, id);
	T_EQ(ev[0].cookie, 42);
	T_EQ(ev[0].flags, 0);
	T_EQ(ev[0].folded, 0);
	if (mode == DWQ_MODE_FIXED_DELAY)
		T_EQ(ev[0].skipped, 0);
	else
		T_EXPECT(ev[0].skipped >= 20, "skipped %llu",
			 (unsigned long long)ev[0].skipped);
	T_EQ(dwqt_query_ok(fd, id).runs, 1);
	/* Read, it is due again; read again, it is due once more, parks. */
	ev[0] = dwqt_read_one(fd);
	T_EQ(ev[0].id, id);
	for (n = 0; n < DWQT_WAIT_MS / 10; n++) {
		q = dwqt_query_ok(fd, id);
		if (q.state == DWQ_STATE_PARKED)
			break;
		dwqt_sleep_ms(10);
	}
	T_EQ(q.runs, 2);
	T_EQ(q.state, DWQ_STATE_PARKED);
	T_EQ(dwqt_stats_ok(fd).fired, 2);
}

TEST_F(periodic, parks_unread_fixed_delay)
{
	parks_unread(DWQ_MODE_FIXED_DELAY);
}

TEST_F(periodic, parks_unread_fixed_rate)
{
	parks_unread(DWQ_MODE_FIXED_RATE);
}

/* Fixed-rate keeps its phase: every deadline is first + k * period. */
TEST_F(periodic, fixed_rate_phase)
{
	const uint64_t period = 40 * NSEC_PER_MSEC;
	int fd = self->f.fd, i;
	uint64_t first, id, last = 0;
	struct dwq_event ev;

	first = dwqt_now() + 50 * NSEC_PER_MSEC;
	id = dwqt_sched_ok(fd, first, period, DWQ_MODE_FIXED_RATE,
			   DWQ_SCHED_ABS, 5);
	for (i = 0; i < 6; i++) {
		ev = dwqt_read_one(fd);
		dwqt_check_event(&ev);
		T_EQ(ev.id, id);
		T_EXPECT(!(ev.flags & DWQ_EVENT_LAST), "flags %#x", ev.flags);
		T_EXPECT((ev.deadline_ns >= first &&
			  (ev.deadline_ns - first) % period == 0),
			 "deadline %llu is not first %llu + k * %llu",
			 (unsigned long long)ev.deadline_ns,
			 (unsigned long long)first, (unsigned long long)period);
		T_EXPECT(ev.deadline_ns > last || !i,
			 "deadline %llu after %llu",
			 (unsigned long long)ev.deadline_ns,
			 (unsigned long long)last);
		/* Skipped periods come after an event's deadline, not before. */
		if (!i)
			T_EQ(ev.deadline_ns, first);
		last = ev.deadline_ns;
	}
	T_EQ(dwqt_query_ok(fd, id).mode, DWQ_MODE_FIXED_RATE);
}

/* Fixed-delay: the next deadline is a period after the last firing, exactly. */
TEST_F(periodic, fixed_delay)
{
	const uint64_t period = 40 * NSEC_PER_MSEC;
	int fd = self->f.fd, i;
	struct dwq_event ev, prev = { 0 };
	uint64_t id;

	id = dwqt_sched_ok(fd, 0, period, DWQ_MODE_FIXED_DELAY, 0, 6);
	for (i = 0; i < 5; i++) {
		ev = dwqt_read_one(fd);
		dwqt_check_event(&ev);
		T_EQ(ev.id, id);
		T_EXPECT(!(ev.flags & DWQ_EVENT_LAST), "flags %#x", ev.flags);
		T_EXPECT(!i || ev.deadline_ns == prev.fired_ns + period,
			 "deadline %llu, but the previous firing was at %llu + period %llu",
			 (unsigned long long)ev.deadline_ns,
			 (unsigned long long)prev.fired_ns,
			 (unsigned long long)period);
		prev = ev;
	}
}

TEST_HARNESS_MAIN
