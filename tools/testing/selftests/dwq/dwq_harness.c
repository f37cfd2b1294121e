// SPDX-License-Identifier: GPL-2.0
/*
 * The checks of dwq's selftests, on kselftest_harness.h's state of the
 * case: see dwq_harness.h for why they are not its ASSERT_*().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "dwq_harness.h"

struct dwq_case dwq_case;

static double t_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

unsigned int dwq_case_time_left(void)
{
	double left;

	if (!dwq_case.timeout)
		return 0;
	left = dwq_case.start + dwq_case.timeout - t_seconds();
	return left > 1 ? (unsigned int)left : 1;
}

/* The process group and state of process @pid; false if it is gone. */
static bool proc_stat(pid_t pid, pid_t *pgrp, char *state)
{
	char path[64], buf[512], *p;
	FILE *f;
	int pg;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* "pid (comm) state ppid pgrp ...": comm may hold anything. */
	p = p ? strrchr(buf, ')') : NULL;
	if (!p || sscanf(p + 1, " %c %*d %d", state, &pg) != 2)
		return false;
	*pgrp = pg;
	return true;
}

int dwq_reap_case(void)
{
	pid_t self = getpid(), pgrp = getpgrp(), pid, pg;
	int killed = 0, alive;
	struct dirent *d;
	char state;
	DIR *dir;

	do {
		alive = 0;
		dir = opendir("/proc");
		if (!dir)
			return killed;
		while ((d = readdir(dir))) {
			pid = atoi(d->d_name);
			if (pid <= 0 || pid == self)
				continue;
			/*
			 * getpgid() first: reading /proc/PID/stat is what
			 * costs, some 25 ms a process under the debug kernel
			 * in a TCG guest, and nearly every PID is in another
			 * group.
			 */
			if (getpgid(pid) != pgrp)
				continue;
			if (!proc_stat(pid, &pg, &state) || pg != pgrp ||
			    state == 'Z' || state == 'X')
				continue;
			alive++;
			if (!kill(pid, SIGKILL))
				killed++;
		}
		closedir(dir);
		if (alive)
			usleep(10000);
	} while (alive);
	return killed;
}

/*
 * The first line of /proc/@pid/task/@tid/@name into @buf, newline
 * dropped; false if the thread is gone.
 */
static bool task_line(pid_t pid, pid_t tid, const char *name, char *buf,
		      size_t size)
{
	char path[96];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(buf, size, f);
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

void __t_wait_blocked(const char *file, int line, pid_t pid, pid_t tid, long nr,
		      const char *what)
{
	double end = t_seconds() + DWQ_BLOCKED_MS / 1000.0;
	char sc[256] = "", st[512] = "", state = '?', *p;
	long got;

	for (;;) {
		/*
		 * .../syscall first: it shows a number only for a thread
		 * that is not running, and the same sleep throughout its
		 * reading ("running" otherwise); the state then says which
		 * sleep (not stopped, not a zombie).
		 */
		if (!task_line(pid, tid, "syscall", sc, sizeof(sc)) ||
		    !task_line(pid, tid, "stat", st, sizeof(st)))
			__t_fail(file, line, "%s (thread %d of %d) is gone",
				 what, tid, pid);
		/* "tid (comm) state ...": comm may hold anything. */
		p = strrchr(st, ')');
		state = p && p[1] == ' ' ? p[2] : '?';
		if (state == 'Z' || state == 'X')
			__t_fail(file, line,
				 "%s (thread %d of %d) ended (state %c), not blocked in system call %ld",
				 what, tid, pid, state, nr);
		if ((state == 'S' || state == 'D') &&
		    sscanf(sc, "%ld", &got) == 1 && got == nr)
			return;
		if (t_seconds() > end)
			break;
		usleep(10000);
	}
	__t_fail(file, line,
		 "%s (thread %d of %d) not blocked in system call %ld within %d ms: state %c, syscall \"%s\"",
		 what, tid, pid, nr, DWQ_BLOCKED_MS, state, sc);
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

/* One "# ..." line, written at once so that processes do not mix lines. */
static void t_vlog(const char *prefix, const char *fmt, va_list ap)
{
	char line[1024];
	int n, p;

	p = snprintf(line, sizeof(line), "# %s", prefix);
	n = vsnprintf(line + p, sizeof(line) - p - 1, fmt, ap);
	if (n < 0)
		return;
	n += p;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

void t_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_vlog("", fmt, ap);
	va_end(ap);
}

void __t_fail(const char *file, int line, const char *fmt, ...)
{
	char prefix[256];
	va_list ap;

	/* TH_LOG()'s format: "# file:line:test:message". */
	snprintf(prefix, sizeof(prefix), "%s:%d:%s:", file, line,
		 dwq_case.name ?: "?");
	va_start(ap, fmt);
	t_vlog(prefix, fmt, ap);
	va_end(ap);
	if (dwq_case.exit_code)
		__atomic_store_n(dwq_case.exit_code, DWQ_KSFT_FAIL,
				 __ATOMIC_SEQ_CST);
	_exit(DWQ_KSFT_FAIL);
}

void t_skip(const char *fmt, ...)
{
	int pass = DWQ_KSFT_PASS;
	char reason[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	t_note("     SKIP      %s", reason);
	if (dwq_case.reason)
		snprintf(dwq_case.reason, dwq_case.reason_size, "%s", reason);
	/* A check that failed in another process of the case still counts. */
	if (dwq_case.exit_code &&
	    !__atomic_compare_exchange_n(dwq_case.exit_code, &pass,
					 DWQ_KSFT_SKIP, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		_exit(DWQ_KSFT_FAIL);
	_exit(DWQ_KSFT_SKIP);
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
