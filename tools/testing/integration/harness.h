/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP 13 harness for dwq-test.
 *
 * Every case runs in a child process of its own, in its own process group,
 * with a time limit: a crash, a hang or a leaked file of one case cannot
 * take the others down, and every file the case opened is closed when it
 * ends. A failed check records its message in memory shared with the
 * runner and ends the case's process at once (from any thread or forked
 * child of the case), so checks need no cleanup paths.
 */
#ifndef DWQT_HARNESS_H
#define DWQT_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's attribute macros, spelt so that checkpatch takes them. */
#define t_attr(x) __attribute__(x)
#define __printf(a, b) t_attr((format(printf, a, b)))
#define __noreturn t_attr((noreturn))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/**
 * struct t_case - one test case, one TAP line
 * @name: "area/what", unique
 * @fn: the body; returns normally on success
 * @timeout: seconds before the case is killed; 0 for the default
 */
struct t_case {
	const char *name;
	void (*fn)(void);
	unsigned int timeout;
};

/* An entry of a case table, with the default timeout or its own. */
#define T_CASE(n, f)                   \
	{                              \
		.name = (n), .fn = (f) \
	}
#define T_CASE_SLOW(n, f, t)                           \
	{                                              \
		.name = (n), .fn = (f), .timeout = (t) \
	}

/* The case tables, each ending with an empty entry. */
extern const struct t_case ioctl_cases[];
extern const struct t_case schedule_cases[];
extern const struct t_case task_cases[];
extern const struct t_case cancel_batch_cases[];
extern const struct t_case event_cases[];
extern const struct t_case file_cases[];
extern const struct t_case bounds_cases[];

/* -v: notes are printed for passing cases too. */
extern bool t_verbose;

int t_run(char **filters, int nfilters, bool list);

/*
 * Provided by the suite: a count of what the cases may leave behind, taken
 * before and after each case; it must not grow. Negative: no count.
 */
long t_leftovers(void);

/* The name of an errno value, "EINVAL"; "0" for 0. */
const char *t_errname(int err);

/* Record a diagnostic line; printed with the result if it failed, or -v. */
void t_note(const char *fmt, ...) __printf(1, 2);

/* End the case as failed, with file:line and the message. */
void __t_fail(const char *file, int line, const char *fmt, ...) __noreturn
	__printf(3, 4);

/* End the case as skipped; the reason is required. */
void t_skip(const char *fmt, ...) __noreturn __printf(1, 2);

#define t_fail(...) __t_fail(__FILE__, __LINE__, __VA_ARGS__)

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

#endif /* DWQT_HARNESS_H */
