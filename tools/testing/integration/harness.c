// SPDX-License-Identifier: GPL-2.0
/*
 * The TAP 13 runner of dwq-test: one child process per case.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "harness.h"

#define T_DEFAULT_TIMEOUT 60
#define T_DIAG_MAX (32 * 1024)

/* What a case reports to the runner; shared with every process of it. */
struct t_result {
	int failed;
	int skipped;
	unsigned int len;
	char reason[256];
	char diag[T_DIAG_MAX];
};

static struct t_result *result;
bool t_verbose;

static double t_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *t_errname(int err)
{
	static char buf[24];
	const char *name;

	if (!err)
		return "0";
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* Append one line to the shared diagnostics; safe across processes. */
static void t_vappend(const char *prefix, const char *fmt, va_list ap)
{
	char line[1024];
	unsigned int off;
	int n, p;

	p = snprintf(line, sizeof(line), "%s", prefix);
	n = vsnprintf(line + p, sizeof(line) - p - 1, fmt, ap);
	if (n < 0)
		return;
	n += p;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	off = __atomic_fetch_add(&result->len, n, __ATOMIC_SEQ_CST);
	if (off + n > sizeof(result->diag))
		return;
	memcpy(result->diag + off, line, n);
}

void t_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_vappend("", fmt, ap);
	va_end(ap);
}

void __t_fail(const char *file, int line, const char *fmt, ...)
{
	char prefix[128];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%s:%d: ", file, line);
	va_start(ap, fmt);
	t_vappend(prefix, fmt, ap);
	va_end(ap);
	__atomic_store_n(&result->failed, 1, __ATOMIC_SEQ_CST);
	_exit(1);
}

void t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(result->reason, sizeof(result->reason), fmt, ap);
	va_end(ap);
	__atomic_store_n(&result->skipped, 1, __ATOMIC_SEQ_CST);
	_exit(0);
}

void __t_expect(const char *file, int line, bool ok, const char *expr,
		const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (ok)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	__t_fail(file, line, "%s: %s", expr, msg);
}

void __t_expect_err(const char *file, int line, const char *expr, long got,
		    int want1, int want2)
{
	char want[64];

	if (want2 < 0)
		want2 = want1;
	if (got == -want1 || got == -want2)
		return;
	if (want1 == want2)
		snprintf(want, sizeof(want), "%s",
			 want1 ? t_errname(want1) : "success (0)");
	else
		snprintf(want, sizeof(want), "%s or %s", t_errname(want1),
			 t_errname(want2));
	if (got > 0)
		__t_fail(file, line, "%s: got %ld, expected %s", expr, got,
			 want);
	__t_fail(file, line, "%s: got %s, expected %s", expr,
		 got ? t_errname(-got) : "success (0)", want);
}

void __t_expect_eq(const char *file, int line, const char *a, const char *b,
		   unsigned long long got, unsigned long long want)
{
	if (got == want)
		return;
	__t_fail(file, line,
		 "%s == %s: got %llu (%#llx, %lld), expected %llu (%#llx)", a,
		 b, got, got, (long long)got, want, want);
}

/* Print the diagnostics, each line as a TAP comment. */
static void print_diag(void)
{
	unsigned int len = result->len;
	char *p, *end;

	if (len > sizeof(result->diag))
		len = sizeof(result->diag);
	p = result->diag;
	end = p + len;
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);

		if (!nl)
			nl = end;
		printf("# %.*s\n", (int)(nl - p), p);
		p = nl + 1;
	}
	if (result->len > sizeof(result->diag))
		printf("# (diagnostics truncated)\n");
}

/* Run one case in its own process; 0 passed or skipped, 1 failed. */
static int run_case(const struct t_case *c, unsigned int n)
{
	unsigned int timeout = c->timeout ? c->timeout : T_DEFAULT_TIMEOUT;
	int status = 0, failed;
	double start = t_seconds();
	long before, after;
	pid_t pid;

	memset(result, 0, sizeof(*result));
	before = t_leftovers();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		printf("not ok %u - %s\n# fork: %s\n", n, c->name,
		       t_errname(errno));
		return 1;
	}
	if (!pid) {
		setpgid(0, 0);
		alarm(timeout);
		c->fn();
		_exit(0);
	}
	setpgid(pid, pid);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Whatever the case left running dies now, and is reaped here. */
	kill(-pid, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;

	after = t_leftovers();
	failed = result->failed || !WIFEXITED(status) || WEXITSTATUS(status) ||
		 (before >= 0 && after > before);
	if (failed)
		printf("not ok %u - %s\n", n, c->name);
	else if (result->skipped)
		printf("ok %u - %s # SKIP %s\n", n, c->name, result->reason);
	else
		printf("ok %u - %s\n", n, c->name);
	if (failed || t_verbose)
		print_diag();
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		printf("# timed out after %u s\n", timeout);
	else if (WIFSIGNALED(status))
		printf("# killed by signal %s\n",
		       sigabbrev_np(WTERMSIG(status)) ?: "?");
	else if (WEXITSTATUS(status) && !result->failed)
		printf("# exit status %d without a failed check\n",
		       WEXITSTATUS(status));
	if (before >= 0 && after > before)
		printf("# left %ld behind after all its processes ended (%ld before)\n",
		       after, before);
	if (t_verbose)
		printf("# %.2f s\n", t_seconds() - start);
	fflush(stdout);
	return failed;
}

static bool selected(const struct t_case *c, char **filters, int nfilters)
{
	int i;

	if (!nfilters)
		return true;
	for (i = 0; i < nfilters; i++) {
		if (strpbrk(filters[i], "*?[")) {
			if (!fnmatch(filters[i], c->name, 0))
				return true;
		} else if (strstr(c->name, filters[i])) {
			return true;
		}
	}
	return false;
}

static const struct t_case *const tables[] = {
	ioctl_cases, schedule_cases, task_cases,   cancel_batch_cases,
	event_cases, file_cases,     bounds_cases,
};

/**
 * t_run() - run the selected cases and print TAP 13
 * @filters: names or globs; a case runs if it matches any (all if none)
 * @nfilters: entries in @filters
 * @list: only print the names of the selected cases
 *
 * Return: the exit status: 0 if no case failed, 1 otherwise.
 */
int t_run(char **filters, int nfilters, bool list)
{
	unsigned int plan = 0, n = 0, failed = 0;
	double start = t_seconds();
	const struct t_case *c;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		for (c = tables[i]; c->name; c++) {
			if (!selected(c, filters, nfilters))
				continue;
			plan++;
			if (list)
				printf("%s\n", c->name);
		}
	}
	if (list)
		return 0;

	result = mmap(NULL, sizeof(*result), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (result == MAP_FAILED) {
		perror("dwq-test: mmap");
		return 1;
	}
	/* Orphans of a case come back to us, to be killed and reaped. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);

	printf("TAP version 13\n1..%u\n", plan);
	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		for (c = tables[i]; c->name; c++) {
			if (selected(c, filters, nfilters))
				failed += run_case(c, ++n);
		}
	}
	printf("# %u passed, %u failed in %.1f s\n", plan - failed, failed,
	       t_seconds() - start);
	return failed ? 1 : 0;
}
