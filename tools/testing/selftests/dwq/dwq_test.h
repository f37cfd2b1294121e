/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq_test.h - included by each test program of tools/testing/selftests/dwq
 * (one per area, each its own TEST_HARNESS_MAIN), once: the kernel's
 * harness, dwq's checks (dwq_harness.h, for why) and helpers (dwqt.h),
 * and the fixture every case runs in:
 *
 *	FIXTURE(area)
 *	{
 *		struct dwq_fixture f;
 *	};
 *	FIXTURE_SETUP(area)
 *	{
 *		dwq_setup(_metadata, &self->f);
 *	}
 *	FIXTURE_TEARDOWN_PARENT(area)
 *	{
 *		dwq_teardown(_metadata, &self->f);
 *	}
 *
 * dwq_setup() opens /dev/dwq (self->f.fd), after reading the charges the
 * limits count (STATS all_tasks, and user_tasks and user_rate_mhz of the
 * program's user). The file is closed when the case's process ends: the
 * teardown runs in its parent (FIXTURE_TEARDOWN_PARENT), once that
 * process has ended, so that it can kill whatever the case left running
 * (a forked child, a grandchild), wait for it to end, and only then read
 * the charges again: a case after which they are not what they were,
 * with every file of its processes closed, fails ("leftovers": a task,
 * or a charge without one). kselftest_harness.h has no such check
 * between cases.
 *
 * The charges are read through a file the program opens when it starts
 * and holds to its end (dwq_charges_fd), with no task: a user's counts
 * live as long as one of the user's files does, so without it the case's
 * last close would take them with it, and the teardown would find a new
 * user's, all zero, whatever the case left.
 */
#ifndef DWQ_TEST_H
#define DWQ_TEST_H

/* The harness's own code has unused parameters; -Wextra -Werror is ours. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "../kselftest_harness.h"
#pragma GCC diagnostic pop
/*
 * And its TEST_F() wrapper, expanded in each test, sets a local between
 * setjmp() and the longjmp() of a failed ASSERT_*() (-Wclobbered). dwq's
 * checks never longjmp() (dwq_harness.h: they _exit()), so nothing is
 * clobbered; the warning is off for the tests' files, which include us.
 */
#pragma GCC diagnostic ignored "-Wclobbered"

#include <fcntl.h>
#include <time.h>

#include "dwq_harness.h"
#include "dwqt.h"

#if DWQ_KSFT_PASS != KSFT_PASS || DWQ_KSFT_FAIL != KSFT_FAIL || \
	DWQ_KSFT_SKIP != KSFT_SKIP
#error "dwq_harness.h's exit codes must be kselftest.h's"
#endif

/*
 * The time limit of a case unless it says (TEST_F_TIMEOUT): the old
 * suite's 60 s rather than the harness's 30 s, since TCG guests running
 * the debug kernel are slow. TEST_F() expands it where it is used.
 */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 60

/*
 * The file the charges are read through, opened before main() (and so
 * before any case) and held to the end of the program; -1 if it could
 * not be opened (then each reading opens a file of its own).
 */
static int dwq_charges_fd = -1;

static void t_attr((constructor)) dwq_charges_open(void)
{
	dwq_charges_fd = open(dwqt_dev(), O_RDWR | O_CLOEXEC);
}

/**
 * struct dwq_fixture - the data of every dwq fixture
 * @fd: /dev/dwq, opened for the case (O_RDWR | O_CLOEXEC)
 * @counted: whether @before could be read
 * @before: the charges before the case
 */
struct dwq_fixture {
	int fd;
	bool counted;
	struct dwqt_charges before;
};

static inline void dwq_setup(struct __test_metadata *_metadata,
			     struct dwq_fixture *f)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	dwq_case = (struct dwq_case){
		.name = _metadata->name,
		.exit_code = &_metadata->exit_code,
		.reason = _metadata->results->reason,
		.reason_size = sizeof(_metadata->results->reason),
		.timeout = _metadata->timeout,
		.start = ts.tv_sec + ts.tv_nsec / 1e9,
	};
	f->counted = dwqt_charges(dwq_charges_fd, &f->before);
	f->fd = dwqt_open(0);
}

static inline void dwq_teardown(struct __test_metadata *_metadata,
				const struct dwq_fixture *f)
{
	int killed = dwq_reap_case();
	const struct dwqt_charges *b = &f->before;
	struct dwqt_charges a;

	if (killed)
		TH_LOG("killed %d process%s the case left running", killed,
		       killed == 1 ? "" : "es");
	if (!f->counted) {
		TH_LOG("its charges could not be read before it: not checked");
		return;
	}
	if (dwqt_charges_back(dwq_charges_fd, b, &a))
		return;
	/*
	 * Exit rather than set exit_code: the harness would overwrite it
	 * with the exit status of the case's process, a skip for instance.
	 */
	TH_LOG("left charges behind after all its processes ended:");
	TH_LOG("all_tasks %llu (%llu before), user_tasks %llu (%llu before)",
	       (unsigned long long)a.all_tasks,
	       (unsigned long long)b->all_tasks,
	       (unsigned long long)a.user_tasks,
	       (unsigned long long)b->user_tasks);
	TH_LOG("user_rate_mhz %llu (%llu before)",
	       (unsigned long long)a.user_rate_mhz,
	       (unsigned long long)b->user_rate_mhz);
	_exit(KSFT_FAIL);
}

#endif /* DWQ_TEST_H */
