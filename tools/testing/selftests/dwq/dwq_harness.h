/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq_harness.h - what dwq's selftests need beyond kselftest_harness.h.
 *
 * The cases run on the kernel's harness (../kselftest_harness.h): TEST_F,
 * FIXTURE, a process per case, timeouts and TAP are its own. Its checks,
 * ASSERT_*() and EXPECT_*(), work only in the test function's own thread
 * and process: they need the test's _metadata in scope, and ASSERT_*()
 * longjmp()s back into the harness. dwq's cases check from places they
 * cannot reach: from helpers (dwqt.c: every _ok() wrapper ends the case on
 * an error), from a forked child (a child that reads the event of a file
 * it shares; dwqt_with_param() runs part of a case in a child so that the
 * parent lives to restore a module parameter), and from any thread.
 *
 * So the checks here are the old suite's, kept thin, on the harness's own
 * state: a failed check logs its file:line and message the way TH_LOG()
 * does, marks the case failed in the harness's metadata for the case
 * (shared memory, MAP_SHARED, across every process of the case: the harness
 * maps it so for TEST_F), and _exit()s the calling process - the whole
 * process when called from a thread - so that checks need no cleanup paths.
 * t_skip() ends the case as skipped from anywhere, with its reason in the
 * TAP line; t_note() writes one diagnostic line.
 *
 * This file needs no kselftest types, so that dwqt.c and dwq_harness.c
 * can use it: the harness defines non-static functions and must be in
 * one object of a program only (the test's). dwq_test.h hands the state
 * of the case to dwq_harness.c when its fixture is set up.
 */
#ifndef DWQ_HARNESS_H
#define DWQ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The kernel's attribute macros, spelt so that checkpatch takes them. */
#define t_attr(x) __attribute__(x)
#ifndef __printf
#define __printf(a, b) t_attr((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn t_attr((noreturn))
#endif

/* kselftest.h's exit codes; dwq_test.h checks that they agree. */
#define DWQ_KSFT_PASS 0
#define DWQ_KSFT_FAIL 1
#define DWQ_KSFT_SKIP 4

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/**
 * struct dwq_case - the harness's state of the running case, for the checks
 * @name: the test's name, for the log lines
 * @exit_code: the harness's verdict (its metadata's exit_code, in shared
 *	memory); NULL outside a case
 * @reason: where the harness takes a skip's reason from (shared memory)
 * @reason_size: bytes at @reason
 * @timeout: seconds the harness gives the case
 * @start: when the case was set up, CLOCK_MONOTONIC seconds
 */
struct dwq_case {
	const char *name;
	int *exit_code;
	char *reason;
	size_t reason_size;
	unsigned int timeout;
	double start;
};

/* Set by the fixture's setup (dwq_test.h), in the case's process. */
extern struct dwq_case dwq_case;

/* Seconds left before the harness kills the case; 0 if none. */
unsigned int dwq_case_time_left(void);

/*
 * For the fixture's teardown, in the parent of the case's process: kill
 * what the case left running (its process group, but the caller) and
 * wait until each of those processes has ended (zombie or gone), so that
 * every file they held is closed. Returns how many were killed.
 */
int dwq_reap_case(void);

/* The name of an errno value, "EINVAL"; "0" for 0. */
const char *t_errname(int err);

/* A diagnostic line, "# ...", on stderr (the harness's TH_LOG stream). */
void t_note(const char *fmt, ...) __printf(1, 2);

/* End the case as failed, with file:line and the message. */
void __t_fail(const char *file, int line, const char *fmt, ...) __noreturn
	__printf(3, 4);

/* End the case as skipped; the reason is required. */
void t_skip(const char *fmt, ...) __noreturn __printf(1, 2);

#define t_fail(...) __t_fail(__FILE__, __LINE__, __VA_ARGS__)

/* How long t_wait_blocked() waits for a thread to block. */
#define DWQ_BLOCKED_MS 10000

void __t_wait_blocked(const char *file, int line, pid_t pid, pid_t tid, long nr,
		      const char *what);

/*
 * Wait until thread @tid of process @pid sleeps (state S or D) inside
 * system call @nr (__NR_ioctl, say), as /proc/PID/task/TID/stat and
 * .../syscall show it; fail the case if it has not within DWQ_BLOCKED_MS,
 * or at once if the thread ends. For a case that acts "while the other
 * thread waits": a sleep guesses that it does, on a guest that may be too
 * slow for any guess. The number in .../syscall is what the calling
 * program's own __NR_* says (a 32-bit program's for its compat calls).
 * @what names the thread in the message.
 */
#define t_wait_blocked(pid, tid, nr, what) \
	__t_wait_blocked(__FILE__, __LINE__, (pid), (tid), (nr), (what))

void __t_expect(const char *file, int line, bool ok, const char *expr,
		const char *fmt, ...) __printf(5, 6);
void __t_expect_err(const char *file, int line, const char *expr, long got,
		    int want1, int want2);
void __t_expect_eq(const char *file, int line, const char *a, const char *b,
		   unsigned long long got, unsigned long long want);

/* The condition holds; otherwise fail with the message. */
#define T_EXPECT(cond, ...) \
	__t_expect(__FILE__, __LINE__, (cond), #cond, __VA_ARGS__)

/* expr (0 or -errno) is 0. */
#define T_OK(expr) __t_expect_err(__FILE__, __LINE__, #expr, (expr), 0, -1)

/* expr (0 or -errno) is -err. */
#define T_ERR(expr, err) \
	__t_expect_err(__FILE__, __LINE__, #expr, (expr), (err), -1)

/* expr (0 or -errno) is -err1 or -err2 (-1: only -err1). */
#define T_ERR2(expr, err1, err2) \
	__t_expect_err(__FILE__, __LINE__, #expr, (expr), (err1), (err2))

/* Two integers are equal (compared as unsigned 64-bit). */
#define T_EQ(got, want) \
	__t_expect_eq(__FILE__, __LINE__, #got, #want, (got), (want))

#endif /* DWQ_HARNESS_H */
