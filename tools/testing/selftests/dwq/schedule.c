// SPDX-License-Identifier: GPL-2.0
/*
 * SCHEDULE and SCHEDULE_BATCH: what they accept, what they refuse, and the
 * per-file and global limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "dwq_test.h"

FIXTURE(schedule)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(schedule)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(schedule)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(batch)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(batch)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(batch)
{
	dwq_teardown(_metadata, &self->f);
}

FIXTURE(limits)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(limits)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(limits)
{
	dwq_teardown(_metadata, &self->f);
}

/* No task and no event came from the refused calls. */
static void expect_none(int fd)
{
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);

	T_EQ(st.pending, 0);
	T_EQ(st.fired, 0);
	T_EQ(st.events, 0);
}

static void expect_sched_err(int fd, struct dwq_ioc_schedule s, int err1,
			     int err2, const char *what)
{
	long r = dwqt_ioctl(fd, DWQ_IOC_SCHEDULE, &s);

	if (r == -err1 || r == -err2)
		return;
	t_fail("%s (time %llu period %llu mode %u flags %#x): got %s, expected %s%s%s",
	       what, (unsigned long long)s.time_ns,
	       (unsigned long long)s.period_ns, s.mode, s.flags,
	       r ? t_errname(-r) : "success", t_errname(err1),
	       err1 == err2 ? "" : " or ", err1 == err2 ? "" : t_errname(err2));
}

/* Ids are non-zero and distinct; each task has the cookie it was given. */
TEST_F(schedule, ids_nonzero_unique)
{
	static const uint32_t modes[] = {
		DWQ_MODE_ONESHOT,
		DWQ_MODE_FIXED_RATE,
		DWQ_MODE_FIXED_DELAY,
	};
	uint64_t ids[300];
	int fd = self->f.fd;
	struct dwq_ioc_stats st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		uint32_t m = modes[i % 3];

		ids[i] = dwqt_sched_ok(fd, DWQT_FAR_NS + i,
				       m ? NSEC_PER_SEC : 0, m, 0, 1000 + i);
	}
	dwqt_check_ids(ids, ARRAY_SIZE(ids));
	st = dwqt_stats_ok(fd);
	T_EQ(st.pending, ARRAY_SIZE(ids));
	for (i = 0; i < ARRAY_SIZE(ids); i += 7) {
		struct dwq_ioc_query q = dwqt_query_ok(fd, ids[i]);

		T_EQ(q.cookie, 1000 + i);
		T_EQ(q.mode, modes[i % 3]);
	}
}

/* An id is never given again, not after cancel nor after firing. */
TEST_F(schedule, ids_never_reused)
{
	uint64_t ids[120];
	int fd = self->f.fd;
	size_t n = 0;
	int i;

	for (i = 0; i < 100; i++) {
		ids[n] = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0,
				       i);
		T_OK(dwqt_cancel(fd, ids[n++], NULL));
	}
	for (i = 0; i < 10; i++) {
		struct dwq_event ev;

		ids[n] = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, i);
		ev = dwqt_read_one(fd);
		T_EQ(ev.id, ids[n++]);
	}
	for (i = 0; i < 10; i++)
		ids[n++] = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
					 0, i);
	dwqt_check_ids(ids, n);
}

/* Each reserved word, non-zero, is -EINVAL. */
TEST_F(schedule, reserved_einval)
{
	int fd = self->f.fd;
	size_t i;

	for (i = 0; i < 3; i++) {
		struct dwq_ioc_schedule s =
			dwqt_sched_arg(0, 0, DWQ_MODE_ONESHOT, 0, 0);

		s.reserved[i] = 1;
		expect_sched_err(fd, s, EINVAL, EINVAL, "reserved[i] = 1");
		s.reserved[i] = 1ULL << 63;
		expect_sched_err(fd, s, EINVAL, EINVAL,
				 "reserved[i] = 1 << 63");
	}
	expect_none(fd);
}

/* Flags other than ABS and BOOTTIME are -EINVAL, RESCHED_PERIOD too. */
TEST_F(schedule, unknown_flags_einval)
{
	static const uint32_t bad[] = {
		DWQ_RESCHED_PERIOD,	   1U << 3, 1U << 31, ~0U,
		DWQ_SCHED_ABS | (1U << 8),
	};
	int fd = self->f.fd;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		expect_sched_err(fd,
				 dwqt_sched_arg(0, 0, DWQ_MODE_ONESHOT, bad[i],
						0),
				 EINVAL, EINVAL, "unknown flag");
	expect_none(fd);
}

/* Modes other than the three are -EINVAL. */
TEST_F(schedule, unknown_mode_einval)
{
	static const uint32_t bad[] = { 3, 4, 1U << 31, ~0U };
	int fd = self->f.fd;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		expect_sched_err(fd, dwqt_sched_arg(0, 0, bad[i], 0, 0), EINVAL,
				 EINVAL, "unknown mode, period 0");
		expect_sched_err(fd,
				 dwqt_sched_arg(0, NSEC_PER_SEC, bad[i], 0, 0),
				 EINVAL, EINVAL, "unknown mode, period 1 s");
	}
	expect_none(fd);
}

/* A one-shot with a period, a periodic task without one: -EINVAL. */
TEST_F(schedule, period_mode_mismatch_einval)
{
	int fd = self->f.fd;

	expect_sched_err(fd,
			 dwqt_sched_arg(0, NSEC_PER_SEC, DWQ_MODE_ONESHOT, 0,
					0),
			 EINVAL, EINVAL, "one-shot with a period");
	expect_sched_err(fd, dwqt_sched_arg(0, 1, DWQ_MODE_ONESHOT, 0, 0),
			 EINVAL, EINVAL, "one-shot with a period");
	expect_sched_err(fd, dwqt_sched_arg(0, 0, DWQ_MODE_FIXED_RATE, 0, 0),
			 EINVAL, EINVAL, "fixed-rate with period 0");
	expect_sched_err(fd, dwqt_sched_arg(0, 0, DWQ_MODE_FIXED_DELAY, 0, 0),
			 EINVAL, EINVAL, "fixed-delay with period 0");
	expect_none(fd);
}

/* A period below min_period_ns is -EINVAL; min_period_ns itself is fine. */
TEST_F(schedule, min_period)
{
	unsigned long long min;
	int fd = self->f.fd;
	uint32_t m, result;
	uint64_t id;

	if (dwqt_param("min_period_ns", &min))
		t_skip("no /sys/module/dwq/parameters/min_period_ns");
	t_note("min_period_ns = %llu", min);
	T_EXPECT(min > 1, "min_period_ns is %llu", min);
	for (m = DWQ_MODE_FIXED_RATE; m <= DWQ_MODE_FIXED_DELAY; m++) {
		expect_sched_err(fd,
				 dwqt_sched_arg(DWQT_FAR_NS, min - 1, m, 0, 0),
				 EINVAL, EINVAL, "period min_period_ns - 1");
		expect_sched_err(fd, dwqt_sched_arg(DWQT_FAR_NS, 1, m, 0, 0),
				 EINVAL, EINVAL, "period 1 ns");
	}
	expect_none(fd);
	for (m = DWQ_MODE_FIXED_RATE; m <= DWQ_MODE_FIXED_DELAY; m++) {
		id = dwqt_sched_ok(fd, DWQT_FAR_NS, min, m, 0, 0);
		T_EQ(dwqt_query_ok(fd, id).period_ns, min);
		T_OK(dwqt_cancel(fd, id, &result));
		T_EQ(result, DWQ_RESULT_REMOVED);
	}
}

/* A delay beyond max_delay_ns is -EINVAL; max_delay_ns itself is fine. */
TEST_F(schedule, max_delay)
{
	unsigned long long max;
	int fd = self->f.fd;

	if (dwqt_param("max_delay_ns", &max))
		t_skip("no /sys/module/dwq/parameters/max_delay_ns");
	t_note("max_delay_ns = %llu", max);
	if (!max || max >= (unsigned long long)S64_MAX)
		t_skip("max_delay_ns is %llu: no limit to test", max);
	expect_sched_err(fd, dwqt_sched_arg(max + 1, 0, DWQ_MODE_ONESHOT, 0, 0),
			 EINVAL, EINVAL, "delay max_delay_ns + 1");
	expect_none(fd);
	if (max > (unsigned long long)S64_MAX - dwqt_now() - DWQT_FAR_NS)
		return;
	dwqt_sched_ok(fd, max, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_EQ(dwqt_stats_ok(fd).pending, 1);
}

static int overflow_fd;

/*
 * Deadlines that do not fit: -EINVAL, and no task, whatever refuses them
 * first: max_delay_ns as loaded, or, with max_delay_ns raised to U64_MAX,
 * the checks that a deadline and its next period fit in KTIME_MAX.
 */
static void overflow_rows(void)
{
	uint64_t now = dwqt_now(), boot = dwqt_now_boot();
	int fd = overflow_fd, other = dwqt_open(0);
	const struct {
		uint64_t time, period;
		uint32_t mode, flags;
		const char *what;
	} bad[] = {
		{ U64_MAX, 0, DWQ_MODE_ONESHOT, 0, "delay U64_MAX" },
		{ S64_MAX, 0, DWQ_MODE_ONESHOT, 0, "delay S64_MAX" },
		{ (uint64_t)S64_MAX + 1, 0, DWQ_MODE_ONESHOT, 0,
		  "delay S64_MAX + 1" },
		{ S64_MAX - now + 1000 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT, 0,
		  "delay ending 1000 s after S64_MAX" },
		{ U64_MAX - now + 1, 0, DWQ_MODE_ONESHOT, 0,
		  "delay wrapping to 0" },
		{ U64_MAX, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS,
		  "deadline U64_MAX" },
		{ (uint64_t)S64_MAX + 1, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS,
		  "deadline S64_MAX + 1" },
		{ U64_MAX, 0, DWQ_MODE_ONESHOT,
		  DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME,
		  "boottime deadline U64_MAX" },
		{ S64_MAX - boot + 1000 * NSEC_PER_SEC, 0, DWQ_MODE_ONESHOT,
		  DWQ_SCHED_BOOTTIME, "boottime delay past S64_MAX" },
		{ U64_MAX, NSEC_PER_SEC, DWQ_MODE_FIXED_RATE, 0,
		  "fixed-rate delay U64_MAX" },
		{ 0, U64_MAX, DWQ_MODE_FIXED_RATE, 0,
		  "fixed-rate period U64_MAX" },
		{ 0, (uint64_t)S64_MAX + 1, DWQ_MODE_FIXED_DELAY, 0,
		  "fixed-delay period S64_MAX + 1" },
		{ S64_MAX - now - 10, 100, DWQ_MODE_FIXED_RATE, 0,
		  "fixed-rate delay whose next period passes S64_MAX" },
	};
	unsigned int before = dwqt_stats_ok(other).all_tasks;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		expect_sched_err(fd,
				 dwqt_sched_arg(bad[i].time, bad[i].period,
						bad[i].mode, bad[i].flags, 0),
				 EINVAL, EINVAL, bad[i].what);
	expect_none(fd);
	T_EQ(dwqt_stats_ok(other).all_tasks, before);
	close(other);
}

TEST_F(schedule, overflow_no_task)
{
	int err;

	overflow_fd = self->f.fd;
	overflow_rows();
	/* Past the limit's check, to the overflow checks themselves. */
	err = dwqt_with_param("max_delay_ns", U64_MAX, overflow_rows);
	if (err == -EACCES || err == -EPERM)
		t_skip("max_delay_ns cannot be raised: %s", t_errname(-err));
	T_OK(err);
}

/* A relative delay: QUERY shows now + delay, counting down. */
TEST_F(schedule, relative_deadline)
{
	int fd = self->f.fd;
	uint64_t t0, t1, t2, id, delay = 100 * NSEC_PER_SEC;
	struct dwq_ioc_query q;

	t0 = dwqt_now();
	id = dwqt_sched_ok(fd, delay, 0, DWQ_MODE_ONESHOT, 0, 7);
	t1 = dwqt_now();
	q = dwqt_query_ok(fd, id);
	t2 = dwqt_now();
	T_EXPECT(q.deadline_ns >= t0 + delay && q.deadline_ns <= t1 + delay,
		 "deadline %llu outside [%llu, %llu]",
		 (unsigned long long)q.deadline_ns,
		 (unsigned long long)(t0 + delay),
		 (unsigned long long)(t1 + delay));
	T_EXPECT((q.remaining_ns <= q.deadline_ns - t0 &&
		  q.remaining_ns >= q.deadline_ns - t2),
		 "remaining %llu outside [%llu, %llu]",
		 (unsigned long long)q.remaining_ns,
		 (unsigned long long)(q.deadline_ns - t2),
		 (unsigned long long)(q.deadline_ns - t0));
	T_EQ(q.flags, 0);
}

/* A deadline in the past fires at once, with that deadline. */
TEST_F(schedule, past_deadline_fires)
{
	static const uint64_t ago[] = { 1, NSEC_PER_SEC, 0 };
	int fd = self->f.fd;
	struct dwq_event ev;
	uint64_t id, t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ago); i++) {
		uint64_t deadline = ago[i] ? dwqt_now() - ago[i] : 1;

		id = dwqt_sched_ok(fd, deadline, 0, DWQ_MODE_ONESHOT,
				   DWQ_SCHED_ABS, i);
		ev = dwqt_read_one(fd);
		t = dwqt_now();
		dwqt_check_event(&ev);
		T_EQ(ev.id, id);
		T_EQ(ev.cookie, i);
		T_EQ(ev.deadline_ns, deadline);
		T_EQ(ev.flags, DWQ_EVENT_LAST);
		T_EXPECT(ev.fired_ns <= t, "fired_ns %llu after now %llu",
			 (unsigned long long)ev.fired_ns,
			 (unsigned long long)t);
	}
}

/* CLOCK_BOOTTIME tasks: deadlines and events on that clock. */
TEST_F(schedule, boottime)
{
	int fd = self->f.fd;
	uint64_t deadline, id, mono, t;
	struct dwq_event ev;
	struct dwq_ioc_query q;

	mono = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_EQ(dwqt_query_ok(fd, mono).flags, 0);

	deadline = dwqt_now_boot() + 500 * NSEC_PER_MSEC;
	id = dwqt_sched_ok(fd, deadline, 0, DWQ_MODE_ONESHOT,
			   DWQ_SCHED_ABS | DWQ_SCHED_BOOTTIME, 1);
	q = dwqt_query_ok(fd, id);
	T_EQ(q.flags, DWQ_SCHED_BOOTTIME);
	T_EQ(q.deadline_ns, deadline);
	ev = dwqt_read_one(fd);
	t = dwqt_now_boot();
	dwqt_check_event(&ev);
	T_EQ(ev.id, id);
	T_EQ(ev.deadline_ns, deadline);
	T_EXPECT(t >= deadline, "read at %llu, before the deadline %llu",
		 (unsigned long long)t, (unsigned long long)deadline);
	T_EXPECT(ev.fired_ns <= t, "fired_ns %llu after boottime now %llu",
		 (unsigned long long)ev.fired_ns, (unsigned long long)t);

	t = dwqt_now_boot();
	id = dwqt_sched_ok(fd, 50 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT,
			   DWQ_SCHED_BOOTTIME, 2);
	ev = dwqt_read_one(fd);
	dwqt_check_event(&ev);
	T_EQ(ev.id, id);
	T_EXPECT(ev.deadline_ns >= t + 50 * NSEC_PER_MSEC,
		 "deadline %llu, scheduled at boottime %llu + 50 ms",
		 (unsigned long long)ev.deadline_ns, (unsigned long long)t);
}

/* A batch: every entry scheduled, ids written back, error_index = count. */
TEST_F(batch, ok)
{
	struct dwq_ioc_schedule e[16];
	uint64_t ids[ARRAY_SIZE(e) + 1];
	int fd = self->f.fd;
	uint32_t idx, i;

	for (i = 0; i < ARRAY_SIZE(e); i++) {
		uint32_t m = i % 3;

		e[i] = dwqt_sched_arg(DWQT_FAR_NS + i, m ? NSEC_PER_SEC : 0, m,
				      0, 100 + i);
		e[i].id = U64_MAX;
	}
	T_OK(dwqt_batch(fd, e, ARRAY_SIZE(e), &idx));
	T_EQ(idx, ARRAY_SIZE(e));
	for (i = 0; i < ARRAY_SIZE(e); i++) {
		struct dwq_ioc_query q;

		ids[i] = e[i].id;
		q = dwqt_query_ok(fd, ids[i]);
		T_EQ(q.cookie, 100 + i);
		T_EQ(q.mode, i % 3);
		T_EQ(q.period_ns, i % 3 ? NSEC_PER_SEC : 0);
	}
	ids[i] = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	dwqt_check_ids(ids, ARRAY_SIZE(ids));
	T_EQ(dwqt_stats_ok(fd).pending, ARRAY_SIZE(ids));
}

/* A batch of DWQ_SCHEDULE_BATCH_MAX entries. */
TEST_F(batch, max_entries)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	static uint64_t ids[DWQ_SCHEDULE_BATCH_MAX];
	int fd = self->f.fd, other = dwqt_open(0);
	unsigned int before;
	uint32_t idx, i;

	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	before = dwqt_stats_ok(other).all_tasks;
	T_OK(dwqt_batch(fd, e, DWQ_SCHEDULE_BATCH_MAX, &idx));
	T_EQ(idx, DWQ_SCHEDULE_BATCH_MAX);
	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++)
		ids[i] = e[i].id;
	dwqt_check_ids(ids, DWQ_SCHEDULE_BATCH_MAX);
	T_EQ(dwqt_stats_ok(fd).pending, DWQ_SCHEDULE_BATCH_MAX);
	T_EQ(dwqt_stats_ok(other).all_tasks, before + DWQ_SCHEDULE_BATCH_MAX);
}

/*
 * A batch's delays count from one moment of the call: the entries of one
 * clock with the same delay all get the same deadline, inside the call.
 */
TEST_F(batch, one_moment)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	uint64_t t0[2], t1[2], at[2] = { 0, 0 };
	int fd = self->f.fd;
	uint32_t idx, i, k;
	bool inside;

	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT,
				      i % 2 ? DWQ_SCHED_BOOTTIME : 0, i);
	t0[0] = dwqt_now();
	t0[1] = dwqt_now_boot();
	T_OK(dwqt_batch(fd, e, DWQ_SCHEDULE_BATCH_MAX, &idx));
	t1[0] = dwqt_now();
	t1[1] = dwqt_now_boot();
	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++) {
		struct dwq_ioc_query q = dwqt_query_ok(fd, e[i].id);

		k = i % 2;
		T_EQ(q.flags, k ? DWQ_SCHED_BOOTTIME : 0);
		if (i < 2) {
			at[k] = q.deadline_ns;
			inside = at[k] >= t0[k] + DWQT_FAR_NS &&
				 at[k] <= t1[k] + DWQT_FAR_NS;
			T_EXPECT(inside,
				 "clock %u: deadline %llu not %llu ns after the call",
				 k, (unsigned long long)at[k],
				 (unsigned long long)DWQT_FAR_NS);
		}
		T_EQ(q.deadline_ns, at[k]);
	}
}

/* count 0 and count > DWQ_SCHEDULE_BATCH_MAX are -EINVAL. */
TEST_F(batch, count_einval)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX + 1];
	static const uint32_t bad[] = {
		0,
		DWQ_SCHEDULE_BATCH_MAX + 1,
		1U << 31,
		~0U,
	};
	int fd = self->f.fd;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = dwqt_sched_arg(0, 0, DWQ_MODE_ONESHOT, 0, i);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		long r = dwqt_batch(fd, e, bad[i], NULL);

		T_EXPECT(r == -EINVAL, "count %u: got %s, expected EINVAL",
			 bad[i], r ? t_errname(-r) : "success");
	}
	expect_none(fd);
	dwqt_expect_no_event(fd, 200);
}

/* Non-zero flags or reserved of the batch itself are -EINVAL. */
TEST_F(batch, flags_reserved_einval)
{
	struct dwq_ioc_schedule e =
		dwqt_sched_arg(0, 0, DWQ_MODE_ONESHOT, 0, 0);
	struct dwq_ioc_schedule_batch b = {
		.entries = (uintptr_t)&e,
		.count = 1,
	};
	int fd = self->f.fd;

	b.flags = 1;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b), EINVAL);
	b.flags = 1U << 31;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b), EINVAL);
	b.flags = 0;
	b.reserved = 1;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b), EINVAL);
	expect_none(fd);
	dwqt_expect_no_event(fd, 200);
}

/* One bad entry: the whole batch fails, error_index names it. */
TEST_F(batch, all_or_nothing)
{
	static const uint32_t where[] = { 0, 3, 7 };
	struct dwq_ioc_schedule e[8];
	int fd = self->f.fd;
	size_t w, kind, i;
	uint32_t idx;

	for (w = 0; w < ARRAY_SIZE(where); w++) {
		for (kind = 0; kind < 6; kind++) {
			struct dwq_ioc_schedule *b = &e[where[w]];
			int err2 = EINVAL;
			long r;

			/* The good entries would fire at once. */
			for (i = 0; i < ARRAY_SIZE(e); i++)
				e[i] = dwqt_sched_arg(0, 0, DWQ_MODE_ONESHOT, 0,
						      i);
			switch (kind) {
			case 0:
				b->period_ns = NSEC_PER_SEC;
				break;
			case 1:
				b->reserved[1] = 1;
				break;
			case 2:
				b->mode = 3;
				break;
			case 3:
				b->flags = 1U << 5;
				break;
			case 4:
				b->mode = DWQ_MODE_FIXED_DELAY;
				break;
			case 5:
				b->time_ns = U64_MAX;
				err2 = ERANGE;
				break;
			}
			r = dwqt_batch(fd, e, ARRAY_SIZE(e), &idx);
			T_EXPECT(r == -EINVAL || r == -err2,
				 "bad entry %u (kind %zu): got %s, expected EINVAL%s",
				 where[w], kind, r ? t_errname(-r) : "success",
				 err2 == EINVAL ? "" : " or ERANGE");
			T_EXPECT(idx == where[w],
				 "bad entry %u (kind %zu): error_index %u",
				 where[w], kind, idx);
			expect_none(fd);
		}
	}
	dwqt_expect_no_event(fd, 300);
	expect_none(fd);
}

/* Bad entries pointers fault, and schedule nothing. */
TEST_F(batch, entries_efault)
{
	struct dwq_ioc_schedule e[4], *p;
	int fd = self->f.fd;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(e); i++)
		e[i] = dwqt_sched_arg(0, 0, DWQ_MODE_ONESHOT, 0, i);
	T_ERR(dwqt_batch(fd, NULL, 1, NULL), EFAULT);
	T_ERR(dwqt_batch(fd, dwqt_unmapped(), 1, NULL), EFAULT);
	T_ERR(dwqt_batch(fd, (void *)(uintptr_t)U64_MAX, 1, NULL), EFAULT);
	/* The first two entries readable, the other two not. */
	p = dwqt_at_end_of_mapping(2 * sizeof(e[0]));
	memcpy(p, e, 2 * sizeof(e[0]));
	T_ERR(dwqt_batch(fd, p, 4, NULL), EFAULT);
	/* Readable but not writable: the ids cannot be written back. */
	T_ERR(dwqt_batch(fd, dwqt_ro_copy(e, sizeof(e)), 4, NULL), EFAULT);
	expect_none(fd);
	dwqt_expect_no_event(fd, 300);
	expect_none(fd);
}

/*
 * @cmd on @arg from another thread, @page made read-only while the call
 * waits for the file, held by a read() stuck on its buffer (of a one-shot
 * due at once, scheduled for it): -EFAULT, the ids cannot be written back.
 * Returns the id of that one-shot: the ids the call took are above it.
 */
static uint64_t efault_while_waiting(int fd, unsigned long cmd, void *arg,
				     void *page)
{
	uint64_t id = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 0);
	long ret = dwqt_ioctl_then_readonly(fd, cmd, arg, page);

	if (ret == DWQT_NO_UFFD)
		t_skip("no userfaultfd in this kernel");
	T_ERR(ret, EFAULT);
	return id;
}

/*
 * After a call of @n tasks undone, which took ids above @before: the
 * file's counts, the user's and all files' charges as in @st0, no event;
 * and the next id above the @n the call took (used, never given again),
 * so that the call is seen to have got past its checks to the file's
 * mutex and undone what it made there, not failed on its first check of
 * the argument, which takes no id.
 */
static void expect_undone(int fd, const struct dwq_ioc_stats *st0,
			  uint64_t before, unsigned int n)
{
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);
	uint64_t next;

	T_EQ(st.pending, st0->pending);
	T_EQ(st.user_tasks, st0->user_tasks);
	T_EQ(st.all_tasks, st0->all_tasks);
	T_EQ(st.user_rate_mhz, st0->user_rate_mhz);
	T_EQ(st.cancelled, st0->cancelled);
	T_EQ(st.events, 0);
	next = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_EXPECT(next > before + n,
		 "next id %llu: the call of %u tasks took no id after %llu",
		 (unsigned long long)next, n, (unsigned long long)before);
	T_EQ(dwqt_read_one(fd).id, next);
}

/* One-shot and periodic tasks, on both clocks, due within 100 ms. */
static void mixed_entries(struct dwq_ioc_schedule *e, uint64_t base)
{
	e[0] = dwqt_sched_arg(base, 0, DWQ_MODE_ONESHOT, DWQ_SCHED_ABS, 0);
	e[1] = dwqt_sched_arg(base, 10 * NSEC_PER_MSEC, DWQ_MODE_FIXED_RATE,
			      DWQ_SCHED_ABS, 1);
	e[2] = dwqt_sched_arg(60 * NSEC_PER_MSEC, 20 * NSEC_PER_MSEC,
			      DWQ_MODE_FIXED_DELAY, 0, 2);
	e[3] = dwqt_sched_arg(70 * NSEC_PER_MSEC, 0, DWQ_MODE_ONESHOT,
			      DWQ_SCHED_BOOTTIME, 3);
}

/*
 * SCHEDULE and SCHEDULE_BATCH whose argument becomes read-only while the
 * call waits for the file (another thread's read() holds it): the ids
 * cannot be written back, so the call is -EFAULT and undone whole: the
 * counts and charges as they were (the firing rate of its periodic tasks
 * too), and no event, even once every deadline it asked for has passed.
 * The batch, of one-shot and periodic tasks, made read-only in its
 * entries (left as they were), then in its error_index (the ids written
 * back to the entries then name no task).
 */
TEST_F(schedule, made_readonly_while_waiting_undone)
{
	struct dwq_ioc_schedule *s = dwqt_page(), *e = dwqt_page(), copy[4];
	struct dwq_ioc_schedule_batch *b = dwqt_page();
	long page = sysconf(_SC_PAGESIZE);
	struct dwq_ioc_stats st0, st;
	int fd = self->f.fd, i;
	struct dwq_ioc_query q;
	struct dwq_event ev;
	uint64_t base, id;
	ssize_t n;

	st0 = dwqt_stats_ok(fd);
	base = dwqt_now() + 100 * NSEC_PER_MSEC;

	*s = dwqt_sched_arg(50 * NSEC_PER_MSEC, 10 * NSEC_PER_MSEC,
			    DWQ_MODE_FIXED_RATE, 0, 1);
	s->id = 0xdead;
	id = efault_while_waiting(fd, DWQ_IOC_SCHEDULE, s, s);
	T_EQ(s->id, 0xdead);
	expect_undone(fd, &st0, id, 1);

	mixed_entries(e, base);
	memcpy(copy, e, sizeof(copy));
	*b = (struct dwq_ioc_schedule_batch){
		.entries = (uintptr_t)e,
		.count = 4,
		.error_index = 0xdead,
	};
	id = efault_while_waiting(fd, DWQ_IOC_SCHEDULE_BATCH, b, e);
	T_EQ(b->error_index, 4);
	T_EXPECT(!memcmp(e, copy, sizeof(copy)),
		 "the read-only entries changed");
	expect_undone(fd, &st0, id, 4);

	munmap(e, page);
	e = dwqt_page();
	mixed_entries(e, base);
	munmap(b, page);
	b = dwqt_page();
	*b = (struct dwq_ioc_schedule_batch){
		.entries = (uintptr_t)e,
		.count = 4,
		.error_index = 0xdead,
	};
	id = efault_while_waiting(fd, DWQ_IOC_SCHEDULE_BATCH, b, b);
	for (i = 0; i < 4; i++)
		T_ERR(dwqt_query(fd, e[i].id, &q), ENOENT);
	expect_undone(fd, &st0, id, 4);

	/* Every deadline asked for was at most 100 ms after its call. */
	dwqt_sleep_ms(300);
	T_EXPECT(!fcntl(fd, F_SETFL, O_NONBLOCK), "fcntl: %s",
		 t_errname(errno));
	n = read(fd, &ev, sizeof(ev));
	if (n == sizeof(ev))
		t_fail("an event after the calls were undone: id %llu cookie %llu",
		       (unsigned long long)ev.id,
		       (unsigned long long)ev.cookie);
	T_EXPECT(n < 0 && errno == EAGAIN,
		 "read after every deadline passed: %zd (%s), expected EAGAIN",
		 n, t_errname(errno));
	/* The one-shots for the stuck read()s and the ids, and no other. */
	st = dwqt_stats_ok(fd);
	T_EQ(st.fired, st0.fired + 6);
	T_EQ(st.pending, st0.pending);
	munmap(s, page);
	munmap(e, page);
	munmap(b, page);
}

/*
 * Fill a file up to @max (max_tasks_per_file) with batches: a batch
 * crossing the limit schedules nothing, the next SCHEDULE is -ENOSPC,
 * another file is not limited, and a cancel makes room for one more.
 */
static void per_file_limit(unsigned long long max)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	int fd, other = dwqt_open(0);
	uint64_t n = 0, first = 0, t0;
	unsigned int base;
	uint32_t i, c;

	base = dwqt_stats_ok(other).all_tasks;
	fd = dwqt_open(0);
	t0 = dwqt_now();
	for (i = 0; i < DWQ_SCHEDULE_BATCH_MAX; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	/* Up to 10 short of the limit, then one batch crossing it. */
	while (n < max) {
		c = max - n > 10 ? max - n - 10 : max - n;
		if (c > DWQ_SCHEDULE_BATCH_MAX)
			c = DWQ_SCHEDULE_BATCH_MAX;
		if (c == max - n) {
			T_ERR(dwqt_batch(fd, e, c + 1, NULL), ENOSPC);
			T_EQ(dwqt_stats_ok(fd).pending, n);
		}
		T_OK(dwqt_batch(fd, e, c, NULL));
		if (!first)
			first = e[0].id;
		n += c;
	}
	t_note("%llu tasks in %llu ms", max,
	       (unsigned long long)((dwqt_now() - t0) / NSEC_PER_MSEC));
	T_EQ(dwqt_stats_ok(fd).pending, max);
	T_EQ(dwqt_stats_ok(other).all_tasks, base + max);
	T_ERR(dwqt_sched(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
	T_ERR(dwqt_batch(fd, e, 1, NULL), ENOSPC);
	T_EQ(dwqt_stats_ok(fd).pending, max);
	/* Another file is not limited by this one. */
	dwqt_sched_ok(other, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	/* Cancel one, and there is room for one. */
	T_OK(dwqt_cancel(fd, first, NULL));
	dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_ERR(dwqt_sched(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
	t0 = dwqt_now();
	close(fd);
	t_note("closed in %llu ms",
	       (unsigned long long)((dwqt_now() - t0) / NSEC_PER_MSEC));
	T_EQ(dwqt_stats_ok(other).all_tasks, base + 1);
}

#define LOWERED_LIMIT 4096

static void per_file_limit_lowered(void)
{
	per_file_limit(LOWERED_LIMIT);
}

/*
 * The per-file limit, at its value when that is quick to reach (65536 in
 * a stock kernel takes under a second). Where it is not (the debug
 * kernel: a minute or more), the limit is lowered to LOWERED_LIMIT for the
 * case, through the writable parameter, and restored after.
 */
TEST_F_TIMEOUT(limits, per_file_enospc, 400)
{
	unsigned long long max, global;
	int other = self->f.fd, err;
	unsigned int base;

	if (dwqt_param("max_tasks_per_file", &max))
		t_skip("no /sys/module/dwq/parameters/max_tasks_per_file");
	t_note("max_tasks_per_file = %llu", max);
	base = dwqt_stats_ok(other).all_tasks;
	if (!dwqt_param("max_tasks", &global) && global < base + max + 1)
		t_skip("max_tasks = %llu is below the per-file limit", global);
	if (max <= LOWERED_LIMIT || dwqt_cheap_enough(max, 15000)) {
		per_file_limit(max);
		return;
	}
	err = dwqt_with_param("max_tasks_per_file", LOWERED_LIMIT,
			      per_file_limit_lowered);
	if (err)
		t_skip("max_tasks_per_file = %llu is slow to reach here and cannot be lowered: %s",
		       max, t_errname(-err));
}

#define GLOBAL_ROOM 2500

/*
 * max_tasks over three files: the tasks of all count, and the next is
 * -ENOSPC in any file, a fresh one too.
 */
static void global_limit(void)
{
	static struct dwq_ioc_schedule e[GLOBAL_ROOM];
	unsigned long long global;
	int f[3], fresh, i;
	unsigned int base;
	uint32_t idx;

	f[0] = dwqt_open(0);
	if (dwqt_param("max_tasks", &global))
		t_fail("no max_tasks");
	base = dwqt_stats_ok(f[0]).all_tasks;
	T_EQ(global, base + GLOBAL_ROOM);
	for (i = 0; i < GLOBAL_ROOM; i++)
		e[i] = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, i);
	f[1] = dwqt_open(0);
	f[2] = dwqt_open(0);
	T_OK(dwqt_batch(f[0], e, 1000, NULL));
	T_OK(dwqt_batch(f[1], e, 1000, NULL));
	/* One more than the room left: nothing scheduled. */
	T_ERR(dwqt_batch(f[2], e, GLOBAL_ROOM - 2000 + 1, &idx), ENOSPC);
	/* The whole batch's failure, no one entry's: @count. */
	T_EQ(idx, GLOBAL_ROOM - 2000 + 1);
	T_EQ(dwqt_stats_ok(f[2]).pending, 0);
	T_OK(dwqt_batch(f[2], e, GLOBAL_ROOM - 2000, NULL));
	T_EQ(dwqt_stats_ok(f[2]).all_tasks, global);
	fresh = dwqt_open(0);
	for (i = 0; i < 3; i++)
		T_ERR(dwqt_sched(f[i], DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0,
				 NULL),
		      ENOSPC);
	T_ERR(dwqt_sched(fresh, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0, NULL),
	      ENOSPC);
	/* Room again once one file is closed. */
	close(f[1]);
	dwqt_sched_ok(fresh, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_EQ(dwqt_stats_ok(fresh).all_tasks, global - 1000 + 1);
}

/* The global limit, lowered for the case through its parameter. */
TEST_F_TIMEOUT(limits, global_enospc, 240)
{
	unsigned long long global;
	int err;

	if (dwqt_param("max_tasks", &global))
		t_skip("no /sys/module/dwq/parameters/max_tasks");
	t_note("max_tasks = %llu", global);
	err = dwqt_with_param("max_tasks",
			      dwqt_stats_ok(self->f.fd).all_tasks + GLOBAL_ROOM,
			      global_limit);
	if (err)
		t_skip("max_tasks cannot be lowered for the case: %s",
		       t_errname(-err));
}

/*
 * A schedule on a new file with the thread's 1st, 2nd, ... allocation
 * armed to fail (fail-nth): it fails with ENOMEM and leaves nothing, or
 * it succeeds (a kvmalloc() falls back to vmalloc() when its kmalloc()
 * fails, and the ring of the file's run is one it can do without: KUnit
 * dwq_dev_test_run_no_ring) and its task fires. Ends at the first nth the
 * schedule does not reach.
 */
static void schedule_failing_nth(void)
{
	int nth_fd, nth, fd, failed = 0;
	struct dwq_event ev;
	uint64_t id = 0;
	long err, left;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		t_fail("/proc/thread-self/fail-nth: %s", t_errname(errno));
	for (nth = 1;; nth++) {
		if (nth > 32)
			t_fail("a schedule still allocates at its %dth", nth);
		fd = dwqt_open(O_NONBLOCK);
		dwqt_nth_arm(nth_fd, nth);
		err = dwqt_sched(fd, dwqt_now(), 0, DWQ_MODE_ONESHOT,
				 DWQ_SCHED_ABS, nth, &id);
		left = dwqt_nth_disarm(nth_fd);
		if (err) {
			/* Failed whole: nothing pending, nothing to read. */
			T_ERR(err, ENOMEM);
			T_EQ(left, 0);
			T_EQ(dwqt_stats_ok(fd).pending, 0);
			dwqt_expect_no_event(fd, 20);
			failed++;
		} else {
			ev = dwqt_read_one(fd);
			T_EQ(ev.id, id);
			T_EQ(ev.cookie, nth);
		}
		close(fd);
		if (left)
			break;
	}
	close(nth_fd);
	t_note("%d allocations, %d of them fail the schedule", nth - 1, failed);
	/* At least the task's own (a kvmalloc() may fall back instead). */
	T_EXPECT(failed >= 1, "%d failed", failed);
}

/* Every allocation counted (dwqt_with_fail_nth()). */
TEST_F(schedule, fail_nth)
{
	dwqt_with_fail_nth(schedule_failing_nth);
}

#define GROW_BATCH 48

/*
 * A batch that needs the file's arrays grown (more tasks than a new file
 * has room for, in falling deadlines, so all but the first go to the
 * heap), with the thread's 1st, 2nd, ... allocation armed to fail: when
 * it fails, ENOMEM, the file's heap, run and id map are the size they
 * were, whichever allocation failed, the arrays' own or a task's after
 * them. Ends at the first nth the batch does not reach.
 */
static void batch_failing_nth(void)
{
	uint64_t heap0, run0, ids0;
	struct dwq_ioc_schedule e[GROW_BATCH];
	int nth_fd, nth, fd, failed = 0;
	uint64_t far = dwqt_now() + DWQT_FAR_NS;
	long err, left;
	unsigned int i;

	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		t_fail("/proc/thread-self/fail-nth: %s", t_errname(errno));
	for (nth = 1;; nth++) {
		if (nth > 4 * GROW_BATCH)
			t_fail("a batch still allocates at its %dth", nth);
		fd = dwqt_open(O_NONBLOCK);
		heap0 = dwqt_fdinfo_u64(fd, "dwq-heap-slots:");
		run0 = dwqt_fdinfo_u64(fd, "dwq-run-slots:");
		ids0 = dwqt_fdinfo_u64(fd, "dwq-id-buckets:");
		T_EXPECT(heap0 < GROW_BATCH, "a new file has %llu heap slots",
			 (unsigned long long)heap0);
		memset(e, 0, sizeof(e));
		for (i = 0; i < GROW_BATCH; i++) {
			e[i].time_ns = far - i;
			e[i].flags = DWQ_SCHED_ABS;
			e[i].mode = DWQ_MODE_ONESHOT;
		}
		dwqt_nth_arm(nth_fd, nth);
		err = dwqt_batch(fd, e, GROW_BATCH, NULL);
		left = dwqt_nth_disarm(nth_fd);
		if (err) {
			T_ERR(err, ENOMEM);
			T_EQ(left, 0);
			T_EQ(dwqt_stats_ok(fd).pending, 0);
			T_EQ(dwqt_fdinfo_u64(fd, "dwq-heap-slots:"), heap0);
			T_EQ(dwqt_fdinfo_u64(fd, "dwq-run-slots:"), run0);
			T_EQ(dwqt_fdinfo_u64(fd, "dwq-id-buckets:"), ids0);
			failed++;
		} else {
			T_EQ(dwqt_stats_ok(fd).pending, GROW_BATCH);
		}
		close(fd);
		if (left)
			break;
	}
	close(nth_fd);
	t_note("%d allocations, %d of them fail the batch", nth - 1, failed);
	/* A task's at least, which comes after the heap has grown. */
	T_EXPECT(failed >= GROW_BATCH / 2, "%d failed", failed);
}

/* A batch that fails gives back the room it grew (dwqt_with_fail_nth()). */
TEST_F_TIMEOUT(schedule, fail_nth_gives_room_back, 180)
{
	dwqt_with_fail_nth(batch_failing_nth);
}

TEST_HARNESS_MAIN
