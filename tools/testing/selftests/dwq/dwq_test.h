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
 * dwq_setup() opens /dev/dwq (self->f.fd), after counting the tasks in
 * the queue. The file is closed when the case's process ends: the
 * teardown runs in its parent (FIXTURE_TEARDOWN_PARENT), once that
 * process has ended, so that it can kill whatever the case left running
 * (a forked child, a grandchild), wait for it to end, and only then count
 * the queue again: a case after which tasks remain, with every file of
 * its processes closed, fails ("leftovers"). kselftest_harness.h has no
 * such check between cases; the old suite's runner did it.
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

/**
 * struct dwq_fixture - the data of every dwq fixture
 * @fd: /dev/dwq, opened for the case (O_RDWR | O_CLOEXEC)
 * @leftovers: tasks in the queue before the case; negative: no count
 */
struct dwq_fixture {
	int fd;
	long leftovers;
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
	f->leftovers = t_leftovers();
	f->fd = dwqt_open(0);
}

static inline void dwq_teardown(struct __test_metadata *_metadata,
				const struct dwq_fixture *f)
{
	int killed = dwq_reap_case();
	long after = t_leftovers();

	if (killed)
		TH_LOG("killed %d process%s the case left running", killed,
		       killed == 1 ? "" : "es");
	/*
	 * Exit rather than set exit_code: the harness would overwrite it
	 * with the exit status of the case's process, a skip for instance.
	 */
	if (f->leftovers >= 0 && after > f->leftovers) {
		TH_LOG("left %ld tasks behind after all its processes ended (%ld before)",
		       after, f->leftovers);
		_exit(KSFT_FAIL);
	}
}

#endif /* DWQ_TEST_H */
