// SPDX-License-Identifier: GPL-2.0
/*
 * dwqctl after and dwqctl every: a command run on a dwq timer, like
 * systemd-run --on-active, with the timer's precision reported.
 *
 *   dwqctl after 5s -- CMD           CMD once, 5 s from now
 *   dwqctl every 100ms -- CMD        CMD on a fixed-rate timer
 *
 * One task on one open file of /dev/dwq. When its event is read, CMD is
 * started with posix_spawnp(); each firing is reported with its lateness
 * twice, fired - deadline (when the read() that fired the task began)
 * and read - deadline (when that read() returned and CMD was started),
 * and the periods it skipped as overruns. Runs never overlap: a firing
 * that finds CMD still running is skipped and counted as an overrun.
 * SIGINT, SIGTERM and SIGCHLD come through a signalfd, so the loop is one
 * poll() with nothing missed; a SIGINT or SIGTERM ignored when dwqctl
 * started stays ignored.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "dwqctl.h"

#define EVENT_BATCH 16

/**
 * struct timer_cmd - one `after` or `every`
 * @name: "after" or "every"
 * @argv: CMD and its arguments, NULL-terminated
 * @s: the task, as scheduled
 * @count: every --count: stop after this many runs; 0 for none
 * @quiet: -q: no per-run report
 * @fd: the device file, -1 once the task is cancelled
 * @sfd: the signalfd of SIGINT, SIGTERM and SIGCHLD
 * @stop_fd: one of SIGINT and SIGTERM, for out_write() to poll
 * @pipe_ignored: SIGPIPE was ignored when dwqctl started
 * @sentinel: the sentinel's pid (see sentinel_start()), or 0
 * @sentinel_fd: the pipe the sentinel writes the stop signals it gets to
 * @pid: the running CMD, or 0
 * @runs: runs of CMD started
 * @firings: events read
 * @skipped: firings that found CMD running
 * @overruns: the events' overruns, summed
 * @failed: runs that did not exit 0
 * @status: the exit status so far, then dwqctl's
 * @run_start: when the running CMD started (the task's clock)
 * @stop_sig: the SIGINT or SIGTERM that stopped dwqctl, or 0
 * @stopped_run: the run in flight when it came: its end is not a failure
 * @stopped_due: it came with a firing read or ready to read and no CMD
 *	started for it: after the deadline, not before it
 * @err: the errno of the failure that stopped dwqctl, or 0
 * @reason: why it ended, for the summary: "done", "count", "signal" or
 *	"error"
 */
struct timer_cmd {
	const char *name;
	char **argv;
	struct dwq_ioc_schedule s;
	__u64 count;
	int quiet;
	int fd;
	int sfd;
	int stop_fd;
	int pipe_ignored;
	pid_t sentinel;
	int sentinel_fd;
	pid_t pid;
	__u64 runs;
	__u64 firings;
	__u64 skipped;
	__u64 overruns;
	__u64 failed;
	int status;
	__u64 run_start;
	int stop_sig;
	__u64 stopped_run;
	int stopped_due;
	int err;
	const char *reason;
};

static const char *sig_name(int sig, char *buf, size_t len)
{
#ifdef __GLIBC__
	const char *name = sigabbrev_np(sig);

	if (name) {
		snprintf(buf, len, "SIG%s", name);
		return buf;
	}
#endif
	snprintf(buf, len, "signal %d", sig);
	return buf;
}

/*
 * dwqctl failed (the device refused the timer, read() failed, CMD cannot
 * be run), said already: that is why it ends, whatever came before.
 */
static void timer_error(struct timer_cmd *t, int err)
{
	if (!t->err)
		t->err = err ? err : EIO;
	t->reason = "error";
}

/* Has the timer an event ready to read? */
static int timer_ready(const struct timer_cmd *t)
{
	struct pollfd p = { .fd = t->fd, .events = POLLIN };

	return t->fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Stop the timer: closing the file cancels its task. */
static void stop_timer(struct timer_cmd *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

static int spawn(struct timer_cmd *t)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int err;

	sigemptyset(&none);
	sigemptyset(&dfl);
	/* SIGPIPE as dwqctl had it: it ignores it itself (timer_cmd()). */
	if (!t->pipe_ignored)
		sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_SETSIGDEF);
	posix_spawn_file_actions_init(&fa);
	/* --json: stdout is for the records; CMD writes to stderr. */
	if (opt.json)
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO,
						 STDOUT_FILENO);
	err = posix_spawnp(&t->pid, t->argv[0], &fa, &attr, t->argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (err)
		t->pid = 0;
	return err;
}

/*
 * A firing: CMD started for it (run t->runs), skipped (@skipped: run
 * t->runs still running), or not started (@err: the errno of spawn()).
 */
static void report_firing(struct timer_cmd *t, const struct dwq_event *ev,
			  __u64 read_ns, int skipped, int err)
{
	__s64 late = (__s64)(ev->fired_ns - ev->deadline_ns);
	__s64 rlate = (__s64)(read_ns - ev->deadline_ns);
	char a[32], b[32], dl[32], en[32];

	if (opt.json) {
		json_begin("firing");
		json_str("command", t->name);
		json_u64("firing", t->firings);
		if (!skipped && !err)
			json_u64("run", t->runs);
		json_bool("skipped", skipped);
		if (err)
			json_str("errno", errno_name(err, en, sizeof(en)));
		else
			json_s64("pid", t->pid);
		json_id("id", ev->id);
		json_ns("deadline_ns", ev->deadline_ns);
		json_ns("fired_ns", ev->fired_ns);
		json_ns("read_ns", read_ns);
		json_sns("lateness_ns", late);
		json_sns("read_lateness_ns", rlate);
		json_u64("overruns", ev->overruns + ev->skipped);
		json_u64("worker", ev->worker);
		json_end();
		return;
	}
	if (t->quiet)
		return;
	fmt_duration(a, sizeof(a), late);
	fmt_duration(b, sizeof(b), rlate);
	fmt_clock(dl, sizeof(dl), ev->deadline_ns);
	if (err)
		fprintf(stderr,
			"dwqctl %s: firing %llu: CMD not started (%s); deadline %s fired %s%s read %s%s overruns %llu\n",
			t->name, t->firings, errno_name(err, en, sizeof(en)),
			dl, late >= 0 ? "+" : "", a, rlate >= 0 ? "+" : "", b,
			ev->overruns + ev->skipped);
	else if (skipped)
		fprintf(stderr,
			"dwqctl %s: firing %llu skipped: run %llu still running (an overrun); deadline %s fired %s%s read %s%s overruns %llu\n",
			t->name, t->firings, t->runs, dl, late >= 0 ? "+" : "",
			a, rlate >= 0 ? "+" : "", b,
			ev->overruns + ev->skipped);
	else
		fprintf(stderr,
			"dwqctl %s: run %llu: deadline %s fired %s%s read %s%s overruns %llu pid %d\n",
			t->name, t->runs, dl, late >= 0 ? "+" : "", a,
			rlate >= 0 ? "+" : "", b, ev->overruns + ev->skipped,
			(int)t->pid);
}

/* CMD ended with wait status @ws. */
static void report_exit(struct timer_cmd *t, int ws)
{
	__u64 took = clock_now(t->s.flags) - t->run_start;
	int status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	/* Ended by the signal that stopped dwqctl: killed, or exit 128 + it. */
	int stopped = t->stop_sig && t->stopped_run == t->runs &&
		      status == 128 + t->stop_sig;
	char d[32], sn[32];

	if (status && !stopped) {
		t->failed++;
		t->status = status;
	}
	if (t->argv && !strcmp(t->name, "after"))
		t->status = status; /* after: CMD's, whatever it is */
	if (opt.json) {
		json_begin("exit");
		json_str("command", t->name);
		json_u64("run", t->runs);
		json_s64("pid", t->pid);
		json_u64("exit_status", status);
		if (WIFSIGNALED(ws))
			json_str("signal",
				 sig_name(WTERMSIG(ws), sn, sizeof(sn)));
		json_ns("duration_ns", took);
		json_end();
	} else if (status && !t->quiet) {
		if (WIFSIGNALED(ws))
			fprintf(stderr,
				"dwqctl %s: run %llu (pid %d): killed by %s after %s\n",
				t->name, t->runs, (int)t->pid,
				sig_name(WTERMSIG(ws), sn, sizeof(sn)),
				fmt_duration(d, sizeof(d), took));
		else
			fprintf(stderr,
				"dwqctl %s: run %llu (pid %d): exit status %d after %s\n",
				t->name, t->runs, (int)t->pid, status,
				fmt_duration(d, sizeof(d), took));
	}
	t->pid = 0;
}

static void report_end(struct timer_cmd *t)
{
	char sn[32], en[32];

	if (opt.json) {
		json_begin("end");
		json_str("command", t->name);
		json_str("reason", t->reason);
		if (t->err)
			json_str("errno", errno_name(t->err, en, sizeof(en)));
		if (t->stop_sig)
			json_str("signal",
				 sig_name(t->stop_sig, sn, sizeof(sn)));
		json_u64("runs", t->runs);
		json_u64("failed", t->failed);
		json_u64("firings", t->firings);
		json_u64("skipped", t->skipped);
		json_u64("overruns", t->overruns);
		json_u64("total_overruns", t->overruns + t->skipped);
		json_u64("exit_status", t->status);
		json_end();
		return;
	}
	if (!strcmp(t->name, "after")) {
		if (t->err && !t->runs)
			fprintf(stderr,
				"dwqctl after: stopped by an error (%s): CMD did not run\n",
				errno_name(t->err, en, sizeof(en)));
		else if (t->stop_sig && !t->runs && t->stopped_due)
			fprintf(stderr,
				"dwqctl after: stopped by %s at the deadline, before CMD started: CMD did not run\n",
				sig_name(t->stop_sig, sn, sizeof(sn)));
		else if (t->stop_sig && !t->runs)
			fprintf(stderr,
				"dwqctl after: stopped by %s before the deadline: the timer is cancelled, CMD did not run\n",
				sig_name(t->stop_sig, sn, sizeof(sn)));
		return;
	}
	fprintf(stderr, "dwqctl every: ");
	if (t->err)
		fprintf(stderr, "stopped by an error (%s): ",
			errno_name(t->err, en, sizeof(en)));
	else if (t->stop_sig)
		fprintf(stderr, "stopped by %s: ",
			sig_name(t->stop_sig, sn, sizeof(sn)));
	fprintf(stderr,
		"%llu runs, %llu failed; %llu firings, %llu overruns (%llu skipped while CMD ran, %llu in events)\n",
		t->runs, t->failed, t->firings, t->overruns + t->skipped,
		t->skipped, t->overruns);
}

/*
 * The sentinel: a child of dwqctl's, in its process group as CMD is, that
 * does nothing but wait for SIGINT and SIGTERM (blocked, as in dwqctl)
 * and write each one's number into a pipe. A signal sent to the whole
 * group (the terminal's ^C, kill -TERM -PGID, timeout(1), systemd's
 * KillMode=control-group, kill(-1)) reaches it, as it reaches CMD; one
 * sent to dwqctl alone does not. It dies with dwqctl (PR_SET_PDEATHSIG).
 */
static void sentinel_start(struct timer_cmd *t, const sigset_t *stop)
{
	pid_t parent = getpid();
	unsigned char c;
	int p[2], sig;

	if (sigisemptyset(stop) || pipe2(p, O_CLOEXEC))
		return;
	t->sentinel = fork();
	if (t->sentinel < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (!t->sentinel) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		/* Nothing of dwqctl's held open: a reader of stdout sees EOF. */
		close(STDIN_FILENO);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		close(p[0]);
		close(t->sfd);
		close(t->stop_fd);
		for (;;) {
			sig = sigwaitinfo(stop, NULL);
			if (sig < 0 && errno != EINTR)
				_exit(0);
			c = sig;
			if (sig > 0 && write(p[1], &c, 1) != 1)
				_exit(0);
		}
	}
	close(p[1]);
	t->sentinel_fd = p[0];
}

static void sentinel_stop(struct timer_cmd *t)
{
	int ws;

	if (t->sentinel <= 0)
		return;
	kill(t->sentinel, SIGKILL);
	waitpid(t->sentinel, &ws, 0);
	close(t->sentinel_fd);
	t->sentinel = 0;
}

/*
 * Was stop signal @sig sent to the whole process group, and so to CMD as
 * well? The sentinel says, within 100 ms; without one, only the
 * terminal's are known to be (SI_KERNEL).
 */
static int group_signal(struct timer_cmd *t, int sig, int code)
{
	__u64 end = clock_now(0) + 100 * NSEC_PER_MSEC, now;
	struct pollfd p = { .fd = t->sentinel_fd, .events = POLLIN };
	unsigned char c;

	if (t->sentinel <= 0)
		return code == SI_KERNEL;
	/* CMD in a process group of its own gets none of this one's. */
	if (getpgid(t->pid) != getpgrp())
		return 0;
	for (;;) {
		now = clock_now(0);
		if (poll(&p, 1, now < end ? poll_ms(end - now) : 0) <= 0)
			return code == SI_KERNEL;
		if (read(t->sentinel_fd, &c, 1) != 1)
			return code == SI_KERNEL;
		if (c == sig)
			return 1;
	}
}

/*
 * A signal came: SIGCHLD reaps CMD, SIGINT and SIGTERM stop. A stop
 * signal is passed on to a running CMD, unless it was sent to the whole
 * process group, which CMD is in (group_signal()): then CMD got it already,
 * and a second one could end a CMD that stops gracefully on the first
 * before it is done. With @started, CMD was started since the signals
 * were last read: a stop signal may have come before it did, and have
 * missed it, so it is passed on to CMD in any case (twice at worst).
 */
static void on_signal(struct timer_cmd *t, int started)
{
	struct signalfd_siginfo si;
	int ws;

	while (read(t->sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			continue;
		if (!t->stop_sig) {
			out_stopping();
			t->stop_sig = si.ssi_signo;
			t->stopped_run = t->pid ? t->runs : 0;
			t->stopped_due = t->firings > t->runs + t->skipped ||
					 timer_ready(t);
			t->reason = "signal";
			stop_timer(t);
		}
		if (t->pid &&
		    (started || !group_signal(t, si.ssi_signo, si.ssi_code)))
			kill(t->pid, si.ssi_signo);
	}
	if (t->pid && waitpid(t->pid, &ws, WNOHANG) == t->pid)
		report_exit(t, ws);
}

/* Events are ready: start CMD for each, or count it as skipped. */
static int on_events(struct timer_cmd *t)
{
	struct dwq_event ev[EVENT_BATCH];
	__u64 read_ns;
	int n, i, err, ws;

	n = dev_read_events(t->fd, ev, ARRAY_SIZE(ev));
	if (n == -EAGAIN || n == -EINTR)
		return 0;
	if (n < 0) {
		errorf(-n, err_cause(OP_READ, -n), "%s: read", t->name);
		timer_error(t, -n);
		return -1;
	}
	read_ns = clock_now(t->s.flags);
	for (i = 0; i < n; i++) {
		t->firings++;
		/* Periods missed while late, and while the event was unread. */
		t->overruns += ev[i].overruns + ev[i].skipped;
		/* CMD may have ended since poll(): its SIGCHLD is not read yet. */
		if (t->pid && waitpid(t->pid, &ws, WNOHANG) == t->pid)
			report_exit(t, ws);
		if (t->pid) {
			t->skipped++;
			report_firing(t, &ev[i], read_ns, 1, 0);
			continue;
		}
		/* A stop signal since poll() starts nothing more. */
		on_signal(t, 0);
		if (t->stop_sig || out_error())
			return 0;
		t->run_start = clock_now(t->s.flags);
		err = spawn(t);
		if (err) {
			/* Not a run: there is no CMD to count or wait for. */
			report_firing(t, &ev[i], read_ns, 0, err);
			errorf(err, NULL, "%s: %s", t->name, t->argv[0]);
			t->status = err == ENOENT ? 127 : 126;
			timer_error(t, err);
			return -1;
		}
		t->runs++;
		report_firing(t, &ev[i], read_ns, 0, 0);
		/* One that came between that check and the spawn stops CMD. */
		on_signal(t, 1);
		if (t->stop_sig)
			return 0;
		if (t->count && t->runs >= t->count) {
			/* The last run: no more firings. */
			t->reason = "count";
			stop_timer(t);
			return 0;
		}
	}
	return 0;
}

static int timer_loop(struct timer_cmd *t)
{
	struct pollfd pfd[3];
	struct stat sb;
	char buf[256];
	sigset_t set;
	int err, fifo;

	/*
	 * SIGCHLD ignored on entry (inherited across exec) would have the
	 * kernel reap CMD with no signal, and waitpid() find no child: CMD
	 * would never be seen to end.
	 */
	signal(SIGCHLD, SIG_DFL);
	stop_signals(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL)) {
		err = errno;
		errorf(err, NULL, "%s: sigprocmask", t->name);
		timer_error(t, err);
		goto end;
	}
	t->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (t->sfd < 0) {
		err = errno;
		errorf(err, NULL, "%s: signalfd", t->name);
		timer_error(t, err);
		goto end;
	}
	/* A stop signal ends a write that stdout's reader holds up. */
	sigdelset(&set, SIGCHLD);
	t->stop_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	out_stop_fd(t->stop_fd);
	sentinel_start(t, &set);
	t->fd = dev_open(1);
	if (t->fd < 0) {
		timer_error(t, errno);
		goto end;
	}
	err = dev_schedule(t->fd, &t->s);
	if (err) {
		errorf(-err,
		       schedule_cause(t->fd, -err, &t->s, buf, sizeof(buf)),
		       "%s: schedule", t->name);
		timer_error(t, -err);
		goto end;
	}
	t->reason = "done";
	fifo = !fstat(STDOUT_FILENO, &sb) && S_ISFIFO(sb.st_mode);
	/* Until the timer is stopped and the last CMD has ended. */
	while (t->fd >= 0 || t->pid) {
		pfd[0].fd = t->sfd;
		pfd[0].events = POLLIN;
		pfd[1].fd = t->fd; /* -1 once stopped: poll() skips it */
		pfd[1].events = POLLIN;
		/* --json into a pipe: its reader going away stops it now. */
		pfd[2].fd = opt.json && fifo && !out_error() ? STDOUT_FILENO :
							       -1;
		pfd[2].events = 0;
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			errorf(err, NULL, "%s: poll", t->name);
			timer_error(t, err);
			break;
		}
		if (pfd[0].revents & POLLIN)
			on_signal(t, 0);
		if (pfd[2].revents & POLLERR)
			out_failed(EPIPE);
		if (t->fd >= 0 && (pfd[1].revents & (POLLERR | POLLHUP))) {
			errorf(EIO, "the device is gone", "%s: poll", t->name);
			timer_error(t, EIO);
			break;
		}
		if (t->fd >= 0 && (pfd[1].revents & POLLIN) && on_events(t))
			break;
		/* after: a one-shot has one firing. */
		if (!t->s.period_ns && t->runs)
			stop_timer(t);
		/* The reports cannot be written: an error, CMD waited for. */
		if (out_error() && !t->err) {
			report_write_error();
			timer_error(t, out_error());
			stop_timer(t);
		}
	}
end:
	stop_timer(t);
	if (t->pid) {
		int ws;

		/* An error: let the running CMD finish, as it would have. */
		if (waitpid(t->pid, &ws, 0) == t->pid)
			report_exit(t, ws);
	}
	if (!t->status && t->stop_sig && !t->runs && !t->s.period_ns)
		t->status = 128 + t->stop_sig; /* after: stopped before CMD */
	if (!t->status && t->err)
		t->status = 1;
	report_end(t);
	return t->status;
}

static int timer_args(struct timer_cmd *t, int argc, char **argv)
{
	const char *cmd = t->name, *first = NULL, *val;
	char err[256];
	__u64 v;
	int i, periodic = !strcmp(cmd, "every"), have = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			t->argv = argv + i + 1;
			break;
		}
		if (common_opt(cmd, argv, &i))
			continue;
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			t->quiet = 1;
		} else if (!strcmp(a, "--boottime")) {
			t->s.flags |= DWQ_SCHED_BOOTTIME;
		} else if (periodic && !strcmp(a, "--fixed-delay")) {
			t->s.mode = DWQ_MODE_FIXED_DELAY;
		} else if (periodic && opt_value(argv, &i, "--count", &val)) {
			if (val &&
			    parse_number(val, &t->count, err, sizeof(err)))
				return usage_error(cmd, "--count: %s", err);
			if (!val || !t->count)
				return usage_error(cmd,
						   "--count needs a number of runs, at least 1");
		} else if (periodic && opt_value(argv, &i, "--first", &first)) {
			/* --first -- CMD: the duration is missing, not CMD's --. */
			if (!first)
				return usage_error(cmd,
						   "--first needs a duration");
		} else if (is_option(a)) {
			return usage_error(cmd, "unknown option '%s'", a);
		} else if (!have) {
			if (parse_duration(a, &v, err, sizeof(err)))
				return usage_error(cmd, "%s", err);
			have = 1;
			t->s.time_ns = v;
			if (periodic)
				t->s.period_ns = v;
		} else {
			return usage_error(cmd,
					   "'%s': put -- before the command: dwqctl %s %s -- CMD",
					   a, cmd,
					   periodic ? "PERIOD" : "DELAY");
		}
	}
	if (!have)
		return usage_error(cmd, "%s? e.g. dwqctl %s",
				   periodic ? "how often" : "when",
				   periodic ? "every 100ms -- CMD" :
					      "after 5s -- CMD");
	if (periodic && !t->s.period_ns)
		return usage_error(cmd, "a period must be longer than 0");
	if (!t->argv || !t->argv[0])
		return usage_error(cmd, "which command? dwqctl %s %s -- CMD",
				   cmd, periodic ? "PERIOD" : "DELAY");
	if (first && parse_duration(first, &t->s.time_ns, err, sizeof(err)))
		return usage_error(cmd, "--first: %s", err);
	return 0;
}

static int timer_cmd(const char *name, int argc, char **argv)
{
	struct timer_cmd t = {
		.name = name,
		.fd = -1,
		.sfd = -1,
		.stop_fd = -1,
		.s.mode = strcmp(name, "every") ? DWQ_MODE_ONESHOT :
						  DWQ_MODE_FIXED_RATE,
	};
	struct sigaction old;
	int ret;

	ret = timer_args(&t, argc, argv);
	if (ret)
		return ret;
	/*
	 * A reader of stdout that is gone must not kill dwqctl with CMD
	 * running, orphaned: EPIPE is a write error, which stops it as an
	 * error does (out.c), CMD waited for.
	 */
	t.pipe_ignored = !sigaction(SIGPIPE, NULL, &old) &&
			 old.sa_handler == SIG_IGN;
	signal(SIGPIPE, SIG_IGN);
	ret = timer_loop(&t);
	sentinel_stop(&t);
	if (t.sfd >= 0)
		close(t.sfd);
	out_stop_fd(-1);
	if (t.stop_fd >= 0)
		close(t.stop_fd);
	return ret;
}

/**
 * cmd_after() - dwqctl after DELAY [-q] [--boottime] -- CMD...
 * @argc: arguments, argv[0] being "after"
 * @argv: the arguments
 *
 * Return: CMD's exit status, 128 + the signal that stopped dwqctl before
 * the deadline, 127 or 126 if CMD cannot be run, 1 or 2 for dwqctl's own
 * failures and usage errors.
 */
int cmd_after(int argc, char **argv)
{
	return timer_cmd("after", argc, argv);
}

/**
 * cmd_every() - dwqctl every PERIOD [--fixed-delay] [--first D]
 *	[--count N] [-q] [--boottime] -- CMD...
 * @argc: arguments, argv[0] being "every"
 * @argv: the arguments
 *
 * Return: 0 if every run of CMD exited 0, else the last failure's status.
 */
int cmd_every(int argc, char **argv)
{
	return timer_cmd("every", argc, argv);
}
