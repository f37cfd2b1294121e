// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl numbers and user pointers: what every command must refuse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "dwq_test.h"

FIXTURE(ioctl)
{
	struct dwq_fixture f;
};

FIXTURE_SETUP(ioctl)
{
	dwq_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN_PARENT(ioctl)
{
	dwq_teardown(_metadata, &self->f);
}

/* The seven commands, with their payload sizes. */
static const struct {
	const char *name;
	unsigned long cmd;
} cmds[] = {
	{ "SCHEDULE", DWQ_IOC_SCHEDULE },
	{ "SCHEDULE_BATCH", DWQ_IOC_SCHEDULE_BATCH },
	{ "CANCEL", DWQ_IOC_CANCEL },
	{ "RESCHEDULE", DWQ_IOC_RESCHEDULE },
	{ "QUERY", DWQ_IOC_QUERY },
	{ "STATS", DWQ_IOC_STATS },
	{ "CANCEL_BATCH", DWQ_IOC_CANCEL_BATCH },
};

/* A zeroed buffer larger than any payload, so a wrong size cannot fault. */
static char zeroes[4096];

/* Nothing was scheduled by the commands the device should have refused. */
static void expect_nothing_scheduled(int fd)
{
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);

	T_EQ(st.pending, 0);
	T_EQ(st.fired, 0);
	T_EQ(st.events, 0);
}

static void expect_enotty(int fd, const char *what, unsigned long cmd)
{
	long r;

	memset(zeroes, 0, sizeof(zeroes));
	r = dwqt_ioctl(fd, cmd, zeroes);
	T_EXPECT(r == -ENOTTY, "%s (cmd %#lx): got %s, expected ENOTTY", what,
		 cmd, r ? t_errname(-r) : "success");
}

/* Commands the device does not have are -ENOTTY. */
TEST_F(ioctl, unknown_command_enotty)
{
	int fd = self->f.fd;

	expect_enotty(fd, "_IO(DWQ, 0)", _IO(DWQ_IOC_MAGIC, 0));
	expect_enotty(fd, "_IOWR(DWQ, 7, dwq_schedule)",
		      _IOWR(DWQ_IOC_MAGIC, 7, struct dwq_ioc_schedule));
	expect_enotty(fd, "_IOWR(DWQ, 8, dwq_cancel_batch)",
		      _IOWR(DWQ_IOC_MAGIC, 8, struct dwq_ioc_cancel_batch));
	expect_enotty(fd, "_IOR(DWQ, 0xff, dwq_stats)",
		      _IOR(DWQ_IOC_MAGIC, 0xff, struct dwq_ioc_stats));
	expect_enotty(fd, "_IOWR('x', 1, dwq_schedule)",
		      _IOWR('x', 1, struct dwq_ioc_schedule));
	expect_enotty(fd, "_IOR(DWQ ^ 1, 6, dwq_stats)",
		      _IOR(DWQ_IOC_MAGIC ^ 1, 6, struct dwq_ioc_stats));
	expect_enotty(fd, "TCGETS", 0x5401);
	expect_enotty(fd, "FIONREAD", 0x541B);
	expect_nothing_scheduled(fd);
}

/* A dwq command number with the wrong payload size is -ENOTTY. */
TEST_F(ioctl, wrong_size_enotty)
{
	static const int deltas[] = { -8, -1, 1, 8 };
	int fd = self->f.fd;
	char what[96];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		unsigned long c = cmds[i].cmd;

		for (j = 0; j < ARRAY_SIZE(deltas); j++) {
			unsigned int size = _IOC_SIZE(c) + deltas[j];

			snprintf(what, sizeof(what), "%s with size %u",
				 cmds[i].name, size);
			expect_enotty(fd, what,
				      _IOC(_IOC_DIR(c), _IOC_TYPE(c),
					   _IOC_NR(c), size));
		}
		snprintf(what, sizeof(what), "%s with size 0", cmds[i].name);
		expect_enotty(fd, what,
			      _IOC(_IOC_DIR(c), _IOC_TYPE(c), _IOC_NR(c), 0));
	}
	expect_nothing_scheduled(fd);
}

/* A dwq command number with the wrong direction bits is -ENOTTY. */
TEST_F(ioctl, wrong_direction_enotty)
{
	static const unsigned int dirs[] = {
		_IOC_NONE,
		_IOC_READ,
		_IOC_WRITE,
		_IOC_READ | _IOC_WRITE,
	};
	int fd = self->f.fd;
	char what[96];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		unsigned long c = cmds[i].cmd;

		for (j = 0; j < ARRAY_SIZE(dirs); j++) {
			if (dirs[j] == _IOC_DIR(c))
				continue;
			snprintf(what, sizeof(what), "%s with direction %u",
				 cmds[i].name, dirs[j]);
			expect_enotty(fd, what,
				      _IOC(dirs[j], _IOC_TYPE(c), _IOC_NR(c),
					   _IOC_SIZE(c)));
		}
	}
	expect_nothing_scheduled(fd);
}

/*
 * A payload that is valid for every command: a far one-shot for SCHEDULE,
 * a batch of one such entry, @id for CANCEL, RESCHEDULE and QUERY, and a
 * batch of one entry for @id for CANCEL_BATCH.
 */
static void valid_payload(unsigned long cmd, void *buf, uint64_t id,
			  struct dwq_ioc_schedule *entry)
{
	static struct dwq_ioc_cancel cancel_entry;

	memset(buf, 0, _IOC_SIZE(cmd));
	*entry = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	switch (cmd) {
	case DWQ_IOC_SCHEDULE:
		*(struct dwq_ioc_schedule *)buf = *entry;
		break;
	case DWQ_IOC_SCHEDULE_BATCH:
		((struct dwq_ioc_schedule_batch *)buf)->entries =
			(uintptr_t)entry;
		((struct dwq_ioc_schedule_batch *)buf)->count = 1;
		break;
	case DWQ_IOC_CANCEL:
		((struct dwq_ioc_cancel *)buf)->id = id;
		break;
	case DWQ_IOC_RESCHEDULE:
		((struct dwq_ioc_reschedule *)buf)->id = id;
		((struct dwq_ioc_reschedule *)buf)->time_ns = DWQT_FAR_NS;
		break;
	case DWQ_IOC_QUERY:
		((struct dwq_ioc_query *)buf)->id = id;
		break;
	case DWQ_IOC_CANCEL_BATCH:
		cancel_entry = (struct dwq_ioc_cancel){ .id = id };
		((struct dwq_ioc_cancel_batch *)buf)->entries =
			(uintptr_t)&cancel_entry;
		((struct dwq_ioc_cancel_batch *)buf)->count = 1;
		break;
	}
}

static void expect_efault(int fd, const char *what, unsigned long cmd,
			  void *arg)
{
	long r = dwqt_ioctl(fd, cmd, arg);

	T_EXPECT(r == -EFAULT, "%s at %p: got %s, expected EFAULT", what, arg,
		 r ? t_errname(-r) : "success");
}

/*
 * The task @id is the only one (nothing was scheduled or cancelled) and
 * is as QUERY saw it at the start, @was: not moved, not changed.
 */
static void expect_only(int fd, uint64_t id, const struct dwq_ioc_query *was,
			const char *after)
{
	struct dwq_ioc_stats st = dwqt_stats_ok(fd);
	struct dwq_ioc_query q = dwqt_query_ok(fd, id);

	T_EXPECT(st.pending == 1, "after %s: pending %llu", after,
		 (unsigned long long)st.pending);
	T_EXPECT(q.state == DWQ_STATE_QUEUED, "after %s: state %u", after,
		 q.state);
	T_EXPECT(q.deadline_ns == was->deadline_ns,
		 "after %s: deadline_ns %llu, was %llu", after,
		 (unsigned long long)q.deadline_ns,
		 (unsigned long long)was->deadline_ns);
	T_EXPECT(q.flags == was->flags, "after %s: flags %#x, was %#x", after,
		 q.flags, was->flags);
	T_EXPECT(q.mode == was->mode, "after %s: mode %u, was %u", after,
		 q.mode, was->mode);
	T_EXPECT(q.period_ns == was->period_ns,
		 "after %s: period_ns %llu, was %llu", after,
		 (unsigned long long)q.period_ns,
		 (unsigned long long)was->period_ns);
	T_EXPECT(q.cookie == was->cookie, "after %s: cookie %llu, was %llu",
		 after, (unsigned long long)q.cookie,
		 (unsigned long long)was->cookie);
}

/* Every command with a NULL argument is -EFAULT. */
TEST_F(ioctl, null_pointer_efault)
{
	int fd = self->f.fd;
	struct dwq_ioc_query was;
	uint64_t id;
	size_t i;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	was = dwqt_query_ok(fd, id);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		expect_efault(fd, cmds[i].name, cmds[i].cmd, NULL);
		expect_only(fd, id, &was, cmds[i].name);
	}
}

/* Every command with an inaccessible argument is -EFAULT. */
TEST_F(ioctl, unmapped_pointer_efault)
{
	int fd = self->f.fd;
	void *bad = dwqt_unmapped();
	struct dwq_ioc_query was;
	uint64_t id;
	size_t i;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	was = dwqt_query_ok(fd, id);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		expect_efault(fd, cmds[i].name, cmds[i].cmd, bad);
		expect_only(fd, id, &was, cmds[i].name);
	}
}

/*
 * A payload whose last bytes are inaccessible is -EFAULT: its last 8, or
 * fewer at an address not 8-byte aligned.
 */
TEST_F(ioctl, straddling_pointer_efault)
{
	static const size_t cut[] = { 8, 5, 3 };
	int fd = self->f.fd;
	struct dwq_ioc_schedule entry;
	struct dwq_ioc_query was;
	uint64_t id;
	size_t i, k;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	was = dwqt_query_ok(fd, id);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		for (k = 0; k < ARRAY_SIZE(cut); k++) {
			unsigned long c = cmds[i].cmd;
			size_t len = _IOC_SIZE(c) - cut[k];
			char *p = dwqt_at_end_of_mapping(len);

			/* What the device can read is a valid payload. */
			valid_payload(c, zeroes, id, &entry);
			memcpy(p, zeroes, len);
			expect_efault(fd, cmds[i].name, c, p);
			expect_only(fd, id, &was, cmds[i].name);
		}
	}
}

/*
 * A payload at an address not 8-byte aligned is read and written back as
 * an aligned one: SCHEDULE's id, CANCEL's result, RESCHEDULE's move.
 */
TEST_F(ioctl, unaligned_payload)
{
	uint64_t words[(sizeof(struct dwq_ioc_schedule) + 16) / 8];
	struct dwq_ioc_reschedule ur;
	struct dwq_ioc_schedule us;
	struct dwq_ioc_cancel uc;
	char *buf = (char *)words;
	int fd = self->f.fd;
	struct dwq_ioc_query q;
	size_t off;

	for (off = 1; off < 8; off += 3) {
		us = dwqt_sched_arg(DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, off);
		memcpy(buf + off, &us, sizeof(us));
		T_OK(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE, buf + off));
		memcpy(&us, buf + off, sizeof(us));
		q = dwqt_query_ok(fd, us.id);
		T_EQ(q.cookie, off);
		ur = (struct dwq_ioc_reschedule){ .id = us.id,
						  .time_ns = 2 * DWQT_FAR_NS };
		memcpy(buf + off, &ur, sizeof(ur));
		T_OK(dwqt_ioctl(fd, DWQ_IOC_RESCHEDULE, buf + off));
		T_EXPECT(dwqt_query_ok(fd, us.id).deadline_ns > q.deadline_ns,
			 "rescheduled at +%zu: the deadline did not move", off);
		uc = (struct dwq_ioc_cancel){ .id = us.id, .result = 77 };
		memcpy(buf + off, &uc, sizeof(uc));
		T_OK(dwqt_ioctl(fd, DWQ_IOC_CANCEL, buf + off));
		memcpy(&uc, buf + off, sizeof(uc));
		T_EQ(uc.result, DWQ_RESULT_REMOVED);
		T_EQ(dwqt_stats_ok(fd).pending, 0);
	}
}

/*
 * The commands that write back fault on a read-only payload; SCHEDULE and
 * SCHEDULE_BATCH then leave no task behind, CANCEL cancels nothing, and
 * CANCEL_BATCH (whose entries are writable here, its error_index not)
 * cancels none.
 */
TEST_F(ioctl, readonly_pointer_efault)
{
	int fd = self->f.fd;
	struct dwq_ioc_schedule entry;
	struct dwq_ioc_query was;
	uint64_t id;
	size_t i;

	id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	was = dwqt_query_ok(fd, id);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		unsigned long c = cmds[i].cmd;
		struct dwq_ioc_stats st;

		if (!(_IOC_DIR(c) & _IOC_READ))
			continue;
		valid_payload(c, zeroes, id, &entry);
		expect_efault(fd, cmds[i].name, c,
			      dwqt_ro_copy(zeroes, _IOC_SIZE(c)));
		st = dwqt_stats_ok(fd);
		T_EXPECT(st.pending == 1,
			 "%s failed (EFAULT), but pending went from 1 to %llu",
			 cmds[i].name, (unsigned long long)st.pending);
		expect_only(fd, id, &was, cmds[i].name);
	}
}

/* RESCHEDULE writes nothing back: a read-only payload is fine. */
TEST_F(ioctl, readonly_reschedule_ok)
{
	int fd = self->f.fd;
	struct dwq_ioc_reschedule r = { 0 };
	struct dwq_ioc_query q;
	uint64_t deadline = dwqt_now() + DWQT_FAR_NS / 2;

	r.id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	r.time_ns = deadline;
	r.flags = DWQ_SCHED_ABS;
	T_OK(dwqt_ioctl(fd, DWQ_IOC_RESCHEDULE, dwqt_ro_copy(&r, sizeof(r))));
	q = dwqt_query_ok(fd, r.id);
	T_EQ(q.deadline_ns, deadline);
}

/* What a refused call must leave as it was: tasks, charges, the next id. */
struct snapshot {
	struct dwq_ioc_stats st;
	uint64_t next_id;
};

/*
 * The counts, and the id the next schedule gets (found by scheduling one
 * and cancelling it; ids only grow, so the id after it is next_id + 1).
 */
static struct snapshot snap(int fd)
{
	struct snapshot s;
	uint32_t result;

	s.next_id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 0);
	T_OK(dwqt_cancel(fd, s.next_id, &result));
	s.next_id++;
	s.st = dwqt_stats_ok(fd);
	return s;
}

static void expect_unchanged(int fd, const char *what, struct snapshot *s)
{
	struct snapshot now;

	/* snap() itself cancels one task: count that in. */
	s->st.cancelled++;
	now = snap(fd);
	T_EXPECT(now.next_id == s->next_id + 1,
		 "%s: refused, but it used ids: next id %llu, expected %llu",
		 what, (unsigned long long)now.next_id,
		 (unsigned long long)s->next_id + 1);
	T_EXPECT((now.st.pending == s->st.pending &&
		  now.st.user_tasks == s->st.user_tasks &&
		  now.st.user_rate_mhz == s->st.user_rate_mhz &&
		  now.st.cancelled == s->st.cancelled),
		 "%s: refused, but pending %llu -> %llu, user_tasks %llu -> %llu, user_rate_mhz %llu -> %llu, cancelled %llu -> %llu",
		 what, (unsigned long long)s->st.pending,
		 (unsigned long long)now.st.pending,
		 (unsigned long long)s->st.user_tasks,
		 (unsigned long long)now.st.user_tasks,
		 (unsigned long long)s->st.user_rate_mhz,
		 (unsigned long long)now.st.user_rate_mhz,
		 (unsigned long long)s->st.cancelled,
		 (unsigned long long)now.st.cancelled);
	/* The baseline of the next check. */
	*s = now;
}

/*
 * SCHEDULE whose argument is read-only: EFAULT before anything is made —
 * no task, no id used, no task or rate charge (a periodic task has one).
 */
TEST_F(ioctl, schedule_readonly_nothing_changed)
{
	struct dwq_ioc_schedule e;
	int fd = self->f.fd;
	struct snapshot s;

	e = dwqt_sched_arg(0, 100 * NSEC_PER_MSEC, DWQ_MODE_FIXED_RATE, 0, 1);
	s = snap(fd);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE, dwqt_ro_copy(&e, sizeof(e))),
	      EFAULT);
	expect_unchanged(fd, "SCHEDULE", &s);
	dwqt_expect_no_event(fd, 300);
}

/*
 * SCHEDULE_BATCH: a read-only array (ids not writable), or a read-only
 * argument (error_index not writable): EFAULT, nothing made.
 */
TEST_F(ioctl, schedule_batch_readonly_nothing_changed)
{
	struct dwq_ioc_schedule_batch b = { 0 };
	struct dwq_ioc_schedule e[4];
	int fd = self->f.fd, i;
	struct snapshot s;

	for (i = 0; i < 4; i++)
		e[i] = dwqt_sched_arg(0, 100 * NSEC_PER_MSEC,
				      DWQ_MODE_FIXED_RATE, 0, i);
	b.count = 4;
	s = snap(fd);
	b.entries = (uintptr_t)dwqt_ro_copy(e, sizeof(e));
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b), EFAULT);
	expect_unchanged(fd, "SCHEDULE_BATCH, read-only entries", &s);
	b.entries = (uintptr_t)e;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_SCHEDULE_BATCH,
			 dwqt_ro_copy(&b, sizeof(b))),
	      EFAULT);
	expect_unchanged(fd, "SCHEDULE_BATCH, read-only argument", &s);
	dwqt_expect_no_event(fd, 300);
}

/*
 * CANCEL_BATCH: read-only entries (results not writable), or a read-only
 * argument (error_index): EFAULT, nothing cancelled.
 */
TEST_F(ioctl, cancel_batch_readonly_nothing_changed)
{
	struct dwq_ioc_cancel_batch b = { 0 };
	struct dwq_ioc_cancel e[2] = { 0 };
	int fd = self->f.fd, i;
	struct snapshot s;

	for (i = 0; i < 2; i++)
		e[i].id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0,
					i);
	b.count = 2;
	s = snap(fd);
	b.entries = (uintptr_t)dwqt_ro_copy(e, sizeof(e));
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, &b), EFAULT);
	expect_unchanged(fd, "CANCEL_BATCH, read-only entries", &s);
	b.entries = (uintptr_t)e;
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_CANCEL_BATCH, dwqt_ro_copy(&b, sizeof(b))),
	      EFAULT);
	expect_unchanged(fd, "CANCEL_BATCH, read-only argument", &s);
	for (i = 0; i < 2; i++)
		T_EQ(dwqt_query_ok(fd, e[i].id).state, DWQ_STATE_QUEUED);
}

/* QUERY and STATS, read-only: EFAULT, and the task is as it was. */
TEST_F(ioctl, query_stats_readonly_nothing_changed)
{
	struct dwq_ioc_query q = { 0 };
	struct dwq_ioc_stats st = { 0 };
	int fd = self->f.fd;
	struct snapshot s;

	q.id = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 7);
	s = snap(fd);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, dwqt_ro_copy(&q, sizeof(q))),
	      EFAULT);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_STATS, dwqt_ro_copy(&st, sizeof(st))),
	      EFAULT);
	expect_unchanged(fd, "QUERY, STATS", &s);
	q = dwqt_query_ok(fd, q.id);
	T_EQ(q.state, DWQ_STATE_QUEUED);
	T_EQ(q.cookie, 7);
}

/*
 * A read-only QUERY is -EFAULT whatever its id, as a read-only CANCEL is:
 * an id the file never gave out, or a one-shot's that has fired and is
 * not read (no longer a task to query), is not -ENOENT first. The event
 * stays, unread.
 */
TEST_F(ioctl, query_readonly_unknown_id_efault)
{
	struct dwq_ioc_query q = { .id = 0x7fffffff };
	struct pollfd pfd = { .fd = self->f.fd, .events = POLLIN };
	int fd = self->f.fd;
	struct snapshot s;
	struct dwq_event ev;
	uint64_t fired;

	T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, &q), ENOENT);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, dwqt_ro_copy(&q, sizeof(q))),
	      EFAULT);
	fired = dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 3);
	T_EQ(poll(&pfd, 1, DWQT_WAIT_MS), 1);
	q.id = fired;
	s = snap(fd);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, &q), ENOENT);
	T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, dwqt_ro_copy(&q, sizeof(q))),
	      EFAULT);
	expect_unchanged(fd, "QUERY of a fired one-shot", &s);
	ev = dwqt_read_one(fd);
	T_EQ(ev.id, fired);
	T_EQ(ev.cookie, 3);
}

/*
 * Each command interrupted by a signal while it waits for the file (a
 * read() stuck on its buffer holds it): EINTR, and nothing done. The task
 * it names stays as it was, no id is used, no count moves.
 */
TEST_F(ioctl, interrupted_while_waiting_changes_nothing)
{
	struct dwq_ioc_schedule e[2] = {
		{ .time_ns = DWQT_FAR_NS, .mode = DWQ_MODE_ONESHOT },
		{ .time_ns = DWQT_FAR_NS,
		  .mode = DWQ_MODE_FIXED_RATE,
		  .period_ns = DWQT_FAR_NS },
	};
	struct dwq_ioc_schedule_batch sb = {
		.entries = (uintptr_t)e,
		.count = 2,
	};
	struct dwq_ioc_cancel_batch cb = { .count = 1 };
	struct dwq_ioc_reschedule r = { .time_ns = 2 * DWQT_FAR_NS };
	struct dwq_ioc_query q = { 0 }, was;
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_ioc_stats st;
	int fd = self->f.fd;
	struct snapshot s;
	unsigned int i;
	long ret;
	struct {
		const char *name;
		unsigned long cmd;
		void *arg;
	} calls[] = {
		{ "SCHEDULE", DWQ_IOC_SCHEDULE, &e[0] },
		{ "SCHEDULE_BATCH", DWQ_IOC_SCHEDULE_BATCH, &sb },
		{ "CANCEL", DWQ_IOC_CANCEL, &c },
		{ "RESCHEDULE", DWQ_IOC_RESCHEDULE, &r },
		{ "QUERY", DWQ_IOC_QUERY, &q },
		{ "STATS", DWQ_IOC_STATS, &st },
		{ "CANCEL_BATCH", DWQ_IOC_CANCEL_BATCH, &c },
	};

	was = dwqt_query_ok(fd, dwqt_sched_ok(fd, DWQT_FAR_NS, 0,
					      DWQ_MODE_ONESHOT, 0, 7));
	c.id = was.id;
	r.id = was.id;
	q.id = was.id;
	cb.entries = (uintptr_t)&c;
	calls[6].arg = &cb;
	for (i = 0; i < ARRAY_SIZE(calls); i++) {
		/* Due at once: the event the stuck read() takes. */
		dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 0);
		s = snap(fd);
		ret = dwqt_ioctl_interrupted(fd, calls[i].cmd, calls[i].arg);
		if (ret == DWQT_NO_UFFD)
			t_skip("no userfaultfd in this kernel");
		T_EXPECT(ret == -EINTR,
			 "%s interrupted: got %s, expected EINTR",
			 calls[i].name, ret ? t_errname(-ret) : "success");
		/* What the stuck read() took, the one-shot due at once. */
		s.st.pending--;
		s.st.user_tasks--;
		expect_unchanged(fd, calls[i].name, &s);
		expect_only(fd, was.id, &was, calls[i].name);
	}
}

/*
 * A QUERY whose argument turns read-only while it waits for the file (a
 * read() stuck on its buffer holds it): its first check of the argument
 * passed, the answer cannot be written back, -EFAULT; nothing of it is
 * written and the task is as it was.
 */
TEST_F(ioctl, query_readonly_while_waiting_efault)
{
	struct dwq_ioc_query *q = dwqt_page(), was;
	int fd = self->f.fd;
	long ret;

	was = dwqt_query_ok(fd, dwqt_sched_ok(fd, DWQT_FAR_NS, 0,
					      DWQ_MODE_ONESHOT, 0, 7));
	/* Due at once: the event the stuck read() takes. */
	dwqt_sched_ok(fd, 0, 0, DWQ_MODE_ONESHOT, 0, 0);
	*q = (struct dwq_ioc_query){ .id = was.id };
	ret = dwqt_ioctl_then_readonly(fd, DWQ_IOC_QUERY, q, q);
	if (ret == DWQT_NO_UFFD)
		t_skip("no userfaultfd in this kernel");
	T_ERR(ret, EFAULT);
	T_EQ(q->id, was.id);
	T_EQ(q->deadline_ns, 0);
	T_EQ(q->cookie, 0);
	expect_only(fd, was.id, &was, "QUERY made read-only while waiting");
	munmap(q, sysconf(_SC_PAGESIZE));
}

/*
 * A QUERY argument whose head lies on a read-only page and whose tail on a
 * writable one cannot be written back whole: -EFAULT whatever the id, for
 * every place the page boundary can fall.
 */
TEST_F(ioctl, query_partly_readonly_efault)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = self->f.fd;
	struct dwq_ioc_query *q, was;
	struct snapshot s;
	uint64_t ids[2];
	size_t ro, k;
	char *p;

	ids[0] = 0x7fffffff;
	ids[1] = dwqt_sched_ok(fd, DWQT_FAR_NS, 0, DWQ_MODE_ONESHOT, 0, 1);
	was = dwqt_query_ok(fd, ids[1]);
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		t_fail("mmap: %s", t_errname(errno));
	s = snap(fd);
	for (ro = 8; ro < sizeof(*q); ro += 8) {
		for (k = 0; k < ARRAY_SIZE(ids); k++) {
			q = (struct dwq_ioc_query *)(p + page - ro);
			T_OK(mprotect(p, page, PROT_READ | PROT_WRITE));
			memset(q, 0, sizeof(*q));
			q->id = ids[k];
			T_OK(mprotect(p, page, PROT_READ));
			T_ERR(dwqt_ioctl(fd, DWQ_IOC_QUERY, q), EFAULT);
		}
	}
	expect_unchanged(fd, "QUERY partly read-only", &s);
	expect_only(fd, ids[1], &was, "QUERY partly read-only");
	munmap(p, 2 * page);
}

TEST_HARNESS_MAIN
