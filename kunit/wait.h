/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bounded waits for dwq's KUnit suites. What a test waits for is signalled
 * where it can be (a completion); engine states that nothing signals (a
 * worker asleep, a counter reached) are polled until they hold or a bound
 * passes, which only a failing test reaches. No wait judges time.
 */
#ifndef _DWQ_KUNIT_WAIT_H
#define _DWQ_KUNIT_WAIT_H

#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/stdarg.h>
#include <linux/timekeeping.h>
#include <kunit/test.h>

#define MS NSEC_PER_MSEC
/* The bound of every wait of a test: reached only when the test fails. */
#define TIMEOUT_MS 10000
/*
 * How long a gated callback waits before it gives up on its own, so that a
 * failed test does not block a worker for ever. Longer than TIMEOUT_MS: a
 * gate that gives up can never make a test pass.
 */
#define GATE_MS (3 * TIMEOUT_MS)

/* Poll until @cond holds; true if it held within @ms milliseconds. */
#define dwq_kunit_poll_ms(cond, ms)                                \
	({                                                         \
		u64 __end = ktime_get_ns() + MS * (ms);            \
		bool __ok;                                         \
		while (!(__ok = (cond)) && ktime_get_ns() < __end) \
			usleep_range(100, 200);                    \
		__ok;                                              \
	})

/* Poll until @cond holds; true if it held within TIMEOUT_MS. */
#define dwq_kunit_poll(cond) dwq_kunit_poll_ms(cond, TIMEOUT_MS)

/* Wait until @cond holds, as dwq_kunit_poll(); fail the test if not. */
#define dwq_kunit_wait_until(test, cond)                                     \
	do {                                                                 \
		bool __held = dwq_kunit_poll(cond);                          \
		KUNIT_ASSERT_TRUE_MSG(test, __held, "timed out: %s", #cond); \
	} while (0)

/*
 * Skip the rest of a test, as kunit_skip(), unless it has failed already:
 * kunit_skip() would mark it skipped over that failure. A failed test is
 * stopped as failed. The only way dwq's KUnit cases skip (the static
 * check refuses kunit_skip() itself in kunit/).
 */
static inline __printf(2, 3) void dwq_kunit_skip(struct kunit *test,
						 const char *fmt, ...)
{
	char why[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (test->status == KUNIT_FAILURE)
		KUNIT_FAIL_AND_ABORT(test, "failed, then: %s", why);
	kunit_skip(test, "%s", why);
}

struct dwq_queue;
bool dwq_kunit_leading(struct dwq_queue *q);

#endif /* _DWQ_KUNIT_WAIT_H */
