// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-security - who may use /dev/dwq, and how much, in TAP 13: the
 * root-only default, an unprivileged user within the per-file and per-user
 * limits, isolation between users, no kernel addresses shown to a user,
 * debugfs root-only, and memory charged to the caller's memory cgroup.
 *
 * usage: dwq-security [MODULE.ko]     (default /dwq/dwq.ko)
 *
 * Runs as root in a throwaway guest with dwq.ko loaded with its defaults
 * (tools/testing/vm-run, no --modparam): it reloads the module with
 * mode=0666 and low limits itself, mounts cgroup2 and remounts debugfs.
 * Unprivileged users are uid/gid 1000 and 1001, set with setresuid(), so
 * no /etc/passwd is needed. Each case runs in a child process of its own.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/dwq.h>

#define t_attr(x) __attribute__(x)
#define __printf(a, b) t_attr((format(printf, a, b)))
#define __noreturn t_attr((noreturn))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define DEV "/dev/dwq"
#define PARAMS "/sys/module/dwq/parameters/"
#define DEBUGFS "/sys/kernel/debug"
#define CGROOT "/sys/fs/cgroup"
#define USER_A 1000
#define USER_B 1001
/* The limits the module is reloaded with for the quota cases. */
#define PER_FILE 64
#define PER_USER 100
/* Far enough ahead that nothing fires during a case. */
#define FAR_NS (3600ULL * 1000000000ULL)
/*
 * The tasks of the memory cgroup case, and the bytes each costs at least:
 * its 88-byte object and a slot of its file's run (8 bytes) or heap (16).
 */
#define MEMCG_TASKS 50000
#define MIN_TASK_BYTES 96
/* The longest an event or a released charge may take to come, ms. */
#define WAIT_MS 10000

static const char *module_path = "/dwq/dwq.ko";
static int n_cases, n_failed;

/* --- a minimal harness: each case a child; a failed check ends it ---- */

static void fail_at(const char *file, int line, const char *fmt, ...) __noreturn
	__printf(3, 4);
static void fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("#   %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	_exit(1);
}

#define fail(...) fail_at(__FILE__, __LINE__, __VA_ARGS__)
#define CHECK(cond, ...)                   \
	do {                               \
		if (!(cond))               \
			fail(__VA_ARGS__); \
	} while (0)
/* expr returns 0 or -errno; want is 0 or an errno value */
#define EXPECT_ERR(expr, want) \
	expect_err(__FILE__, __LINE__, #expr, (expr), (want))

static void __printf(1, 2) note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static const char *errname(long err)
{
	static char buf[32];

	switch (err) {
	case 0:
		return "success";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case ENOENT:
		return "ENOENT";
	case ENOSPC:
		return "ENOSPC";
	case ENOMEM:
		return "ENOMEM";
	case EINVAL:
		return "EINVAL";
	case EAGAIN:
		return "EAGAIN";
	case EMFILE:
		return "EMFILE";
	}
	snprintf(buf, sizeof(buf), "errno %ld", err);
	return buf;
}

static void expect_err(const char *file, int line, const char *expr, long got,
		       long want)
{
	if (got != -want)
		fail_at(file, line, "%s: %s, want %s", expr, errname(-got),
			errname(want));
}

static void run(const char *name, void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		fn();
		fflush(stdout);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	n_cases++;
	if (WIFEXITED(st) && !WEXITSTATUS(st)) {
		printf("ok %d - %s\n", n_cases, name);
		return;
	}
	n_failed++;
	if (WIFSIGNALED(st))
		printf("#   killed by signal %d\n", WTERMSIG(st));
	printf("not ok %d - %s\n", n_cases, name);
}

/* --- users, files, ioctls --------------------------------------------- */

/* Become @uid (and gid @uid, no supplementary groups) for good. */
static void become(uid_t uid)
{
	CHECK(!setgroups(0, NULL), "setgroups: %s", strerror(errno));
	CHECK(!setresgid(uid, uid, uid), "setresgid: %s", strerror(errno));
	CHECK(!setresuid(uid, uid, uid), "setresuid: %s", strerror(errno));
	CHECK(geteuid() == uid && getegid() == uid, "still euid %d", geteuid());
}

/* Run @fn as @uid in a child; fail unless it passed. */
static void as_user(uid_t uid, void (*fn)(void))
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		become(uid);
		fn();
		fflush(stdout);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st),
	      "the part run as uid %u failed", uid);
}

static int dev_open(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	CHECK(fd >= 0, "open %s as uid %d: %s", DEV, geteuid(), errname(errno));
	return fd;
}

static long xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static long sched(int fd, uint64_t time_ns, uint64_t period_ns, uint32_t mode,
		  uint64_t cookie, uint64_t *id)
{
	struct dwq_ioc_schedule s = {
		.time_ns = time_ns,
		.period_ns = period_ns,
		.cookie = cookie,
		.mode = mode,
	};
	long r = xioctl(fd, DWQ_IOC_SCHEDULE, &s);

	if (id)
		*id = s.id;
	return r;
}

static uint64_t sched_ok(int fd, uint64_t time_ns)
{
	uint64_t id;
	long r = sched(fd, time_ns, 0, DWQ_MODE_ONESHOT, 0, &id);

	CHECK(!r, "SCHEDULE as uid %d: %s", geteuid(), errname(-r));
	return id;
}

/* A batch of @n far-future one-shots; 0 or -errno. */
static long batch(int fd, uint32_t n)
{
	static struct dwq_ioc_schedule e[DWQ_SCHEDULE_BATCH_MAX];
	struct dwq_ioc_schedule_batch b = {
		.entries = (uintptr_t)e,
		.count = n,
	};
	uint32_t i;

	for (i = 0; i < n; i++)
		e[i] = (struct dwq_ioc_schedule){ .time_ns = FAR_NS,
						  .cookie = i };
	return xioctl(fd, DWQ_IOC_SCHEDULE_BATCH, &b);
}

static void fill(int fd, uint32_t n)
{
	long r;

	while (n) {
		uint32_t c =
			n > DWQ_SCHEDULE_BATCH_MAX ? DWQ_SCHEDULE_BATCH_MAX : n;

		r = batch(fd, c);
		CHECK(!r, "a batch of %u: %s", c, errname(-r));
		n -= c;
	}
}

static long cancel(int fd, uint64_t id)
{
	struct dwq_ioc_cancel c = { .id = id };

	return xioctl(fd, DWQ_IOC_CANCEL, &c);
}

static struct dwq_ioc_stats stats(int fd)
{
	struct dwq_ioc_stats st;

	memset(&st, 0, sizeof(st));
	CHECK(!xioctl(fd, DWQ_IOC_STATS, &st), "STATS: %s", errname(errno));
	return st;
}

/* Every refused call left the file's count as it was. */
static void expect_pending(int fd, uint64_t want)
{
	uint64_t got = stats(fd).pending;

	CHECK(got == want, "pending %llu, want %llu", (unsigned long long)got,
	      (unsigned long long)want);
}

static void wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	CHECK(poll(&p, 1, WAIT_MS) == 1, "no event within %d ms", WAIT_MS);
}

static void param_set(const char *name, unsigned long long val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	f = fopen(path, "w");
	CHECK(f, "%s: %s", path, strerror(errno));
	fprintf(f, "%llu\n", val);
	CHECK(!fclose(f), "write %s: %s", path, strerror(errno));
}

static int shell(const char *fmt, ...) __printf(1, 2);
static int shell(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	fflush(stdout);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Pass @fd over the unix socket @sock (SCM_RIGHTS), or receive one. */
static void send_fd(int sock, int fd)
{
	char byte = 'F', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	CHECK(sendmsg(sock, &msg, 0) == 1, "sendmsg: %s", strerror(errno));
}

static int recv_fd(int sock)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	CHECK(recvmsg(sock, &msg, 0) == 1, "recvmsg: %s", strerror(errno));
	cm = CMSG_FIRSTHDR(&msg);
	CHECK(cm && cm->cmsg_type == SCM_RIGHTS, "no file descriptor came");
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* One byte each way on a socket or pipe, to take turns. */
static void signal_peer(int fd)
{
	CHECK(write(fd, "x", 1) == 1, "write: %s", strerror(errno));
}

static void wait_peer(int fd)
{
	char c;

	CHECK(read(fd, &c, 1) == 1, "the other process ended early");
}

/* --- the default: root only ------------------------------------------- */

static void default_mode(void)
{
	char mode[32] = "";
	struct stat st;
	FILE *f;

	CHECK(!stat(DEV, &st), "stat %s: %s", DEV, strerror(errno));
	CHECK((st.st_mode & 07777) == 0600 && st.st_uid == 0 && st.st_gid == 0,
	      "%s is %04o %u:%u, want 0600 0:0", DEV, st.st_mode & 07777,
	      st.st_uid, st.st_gid);
	f = fopen(PARAMS "mode", "r");
	CHECK(f && fgets(mode, sizeof(mode), f),
	      "cannot read the mode parameter");
	fclose(f);
	CHECK(!strcmp(mode, "0600\n"), "parameter mode is '%s'", mode);
}

static void open_denied(void)
{
	static const int flags[] = { O_RDWR, O_RDONLY, O_WRONLY };
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(flags); i++) {
		fd = open(DEV, flags[i]);
		CHECK(fd < 0 && errno == EACCES,
		      "open %s (flags %#x) as uid %d: %s", DEV, flags[i],
		      geteuid(), fd < 0 ? errname(errno) : "opened");
	}
}

static void default_root_only(void)
{
	close(dev_open());
	as_user(USER_A, open_denied);
}

static const char *const debugfs_files[] = {
	DEBUGFS "/dwq/stats",
	DEBUGFS "/dwq/workers",
	DEBUGFS "/dwq/heap",
};

static void debugfs_denied(void)
{
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(debugfs_files); i++) {
		fd = open(debugfs_files[i], O_RDONLY);
		CHECK(fd < 0 && errno == EACCES, "open %s as uid %d: %s",
		      debugfs_files[i], geteuid(),
		      fd < 0 ? errname(errno) : "opened");
	}
}

/*
 * debugfs is root-only twice over: the mount is 0700, and dwq's files are
 * 0400 root even when an administrator opens the mount up.
 */
static void debugfs_root_only(void)
{
	struct stat st;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(debugfs_files); i++) {
		fd = open(debugfs_files[i], O_RDONLY);
		CHECK(fd >= 0, "root cannot open %s: %s", debugfs_files[i],
		      strerror(errno));
		close(fd);
	}
	as_user(USER_A, debugfs_denied);
	CHECK(!stat(DEBUGFS, &st), "stat " DEBUGFS ": %s", strerror(errno));
	note("debugfs mounted mode %04o; now remounted 0755 for the case",
	     st.st_mode & 07777);
	CHECK(!mount(NULL, DEBUGFS, NULL, MS_REMOUNT, "mode=0755"),
	      "remount debugfs mode=0755: %s", strerror(errno));
	as_user(USER_A, debugfs_denied);
	CHECK(!mount(NULL, DEBUGFS, NULL, MS_REMOUNT, "mode=0700"),
	      "remount debugfs mode=0700: %s", strerror(errno));
}

/* --- mode=0666: an unprivileged user, within limits -------------------- */

static void user_round_trip(void)
{
	struct dwq_ioc_reschedule rs = { .time_ns = FAR_NS / 2 };
	struct dwq_ioc_query q = { 0 };
	struct dwq_ioc_cancel c = { 0 };
	struct dwq_event ev;
	int fd = dev_open();
	uint64_t id, far;

	id = sched_ok(fd, 0);
	wait_readable(fd);
	CHECK(read(fd, &ev, sizeof(ev)) == sizeof(ev), "read: %s",
	      strerror(errno));
	CHECK(ev.id == id && (ev.flags & DWQ_EVENT_LAST),
	      "event id %llu flags %#x", (unsigned long long)ev.id, ev.flags);
	far = sched_ok(fd, FAR_NS);
	rs.id = far;
	CHECK(!xioctl(fd, DWQ_IOC_RESCHEDULE, &rs), "RESCHEDULE: %s",
	      errname(errno));
	q.id = far;
	CHECK(!xioctl(fd, DWQ_IOC_QUERY, &q), "QUERY: %s", errname(errno));
	CHECK(q.state == DWQ_STATE_QUEUED && q.remaining_ns <= FAR_NS / 2,
	      "QUERY state %u remaining %llu", q.state,
	      (unsigned long long)q.remaining_ns);
	c.id = far;
	CHECK(!xioctl(fd, DWQ_IOC_CANCEL, &c) && c.result == DWQ_RESULT_REMOVED,
	      "CANCEL: %s, result %u", errname(errno), c.result);
	expect_pending(fd, 0);
	close(fd);
}

static void user_mode_0666(void)
{
	struct stat st;

	CHECK(!stat(DEV, &st), "stat: %s", strerror(errno));
	CHECK((st.st_mode & 07777) == 0666, "%s is %04o", DEV,
	      st.st_mode & 07777);
	as_user(USER_A, user_round_trip);
}

static void user_per_file(void)
{
	int fd = dev_open(), other;

	fill(fd, PER_FILE);
	EXPECT_ERR(sched(fd, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	EXPECT_ERR(batch(fd, 1), ENOSPC);
	expect_pending(fd, PER_FILE);
	/* Another file of the same user has its own per-file count. */
	other = dev_open();
	sched_ok(other, FAR_NS);
	close(other);
	close(fd);
	/* A batch crossing the limit schedules nothing. */
	fd = dev_open();
	fill(fd, PER_FILE - 10);
	EXPECT_ERR(batch(fd, 11), ENOSPC);
	expect_pending(fd, PER_FILE - 10);
	fill(fd, 10);
	expect_pending(fd, PER_FILE);
	close(fd);
}

static void per_file_limit(void)
{
	as_user(USER_A, user_per_file);
}

/*
 * Fork a peer that runs @fn with its end of a socket pair, as @uid unless
 * that is 0 (root stays root); returns its pid and our end in @sock. Only
 * the peer holds its end: its death ends a wait_peer().
 */
static pid_t peer_start(uid_t uid, void (*fn)(int sock), int *sock)
{
	int sv[2];
	pid_t pid;

	CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair: %s",
	      strerror(errno));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(sv[0]);
		if (uid)
			become(uid);
		fn(sv[1]);
		fflush(stdout);
		_exit(0);
	}
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

/* Wait for peer_start()'s @pid; fail, saying @what, unless it passed. */
static void peer_end(pid_t pid, int sock, const char *what)
{
	int st;

	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "%s failed", what);
	close(sock);
}

/* Fill the caller's whole budget, over two files @a and @b. */
static void fill_user(int a, int b)
{
	fill(a, PER_FILE);
	fill(b, PER_USER - PER_FILE);
	EXPECT_ERR(sched(b, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
}

static int g_sock, g_passed_fd;

/*
 * uid 1000 fills its budget over two files (and a forked child's third
 * file), then hands one file to root over a socket and waits.
 */
static void user_a_fill(void)
{
	int a = dev_open(), b = dev_open(), c, st;
	pid_t pid;

	fill(a, PER_FILE);
	fill(b, PER_USER - PER_FILE - 3);
	/* A batch crossing the user's limit schedules nothing. */
	EXPECT_ERR(batch(b, 4), ENOSPC);
	expect_pending(b, PER_USER - PER_FILE - 3);
	fill(b, 3);
	EXPECT_ERR(sched(b, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	EXPECT_ERR(batch(b, 1), ENOSPC);
	c = dev_open();
	EXPECT_ERR(sched(c, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	expect_pending(c, 0);
	close(c);
	/* A child of the user, with a file of its own: the same budget. */
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		c = dev_open();
		EXPECT_ERR(sched(c, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL),
			   ENOSPC);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "the forked child's schedule was not ENOSPC");
	expect_pending(a, PER_FILE);
	expect_pending(b, PER_USER - PER_FILE);
	send_fd(g_sock, b);
	wait_peer(g_sock);
	close(a);
	close(b);
}

/* uid 1001: its own budget; a file uid 1000 opened still charges 1000. */
static void user_b_unaffected(void)
{
	int fd = dev_open();

	EXPECT_ERR(sched(g_passed_fd, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL),
		   ENOSPC);
	expect_pending(g_passed_fd, PER_USER - PER_FILE);
	fill(fd, PER_FILE);
	EXPECT_ERR(sched(fd, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	close(fd);
}

static void user_a_fill_peer(int sock)
{
	g_sock = sock;
	user_a_fill();
}

static void per_user_limit(void)
{
	int sock, fd;
	pid_t pid;

	pid = peer_start(USER_A, user_a_fill_peer, &sock);
	g_passed_fd = recv_fd(sock);
	as_user(USER_B, user_b_unaffected);
	/* root is a user of its own too */
	fd = dev_open();
	fill(fd, PER_FILE);
	close(fd);
	close(g_passed_fd);
	signal_peer(sock);
	peer_end(pid, sock, "uid 1000's part");
}

/*
 * Write @map into /proc/@pid/@file: root maps a user namespace's ids, as
 * newuidmap does for a user from its /etc/subuid range.
 */
static void write_map(pid_t pid, const char *file, const char *map)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	CHECK(write(fd, map, strlen(map)) == (ssize_t)strlen(map),
	      "write %s: %s", path, strerror(errno));
	close(fd);
}

/* Into a new user namespace, then wait for root's map_ns() of it. */
static void userns_enter(int sock)
{
	CHECK(!unshare(CLONE_NEWUSER), "unshare(CLONE_NEWUSER): %s",
	      strerror(errno));
	signal_peer(sock);
	wait_peer(sock);
}

/* Take uid and gid @id inside the user namespace this process is in. */
static void become_in_ns(uid_t id)
{
	CHECK(!setresgid(id, id, id), "setresgid(%u): %s", id, strerror(errno));
	CHECK(!setresuid(id, id, id), "setresuid(%u): %s", id, strerror(errno));
}

/*
 * uid 1000 in a user namespace of its own, where root mapped it ids 0 to
 * 9 as uids 200000 to 200009: as uid 0 there (200000) it fills uid
 * 1000's budget over two files, and then another of its ids, uid 1 there
 * (200001), finds none left; so does uid 1000 outside, until the files
 * are closed.
 */
static void userns_fill(int sock)
{
	int a, b, c, st;
	pid_t pid;

	userns_enter(sock);
	become_in_ns(0);
	a = dev_open();
	b = dev_open();
	fill_user(a, b);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		become_in_ns(1);
		c = dev_open();
		EXPECT_ERR(sched(c, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL),
			   ENOSPC);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "uid 1 of the namespace got a budget of its own");
	signal_peer(sock);
	wait_peer(sock);
	close(a);
	close(b);
	signal_peer(sock);
	wait_peer(sock);
}

static void user_a_refused(void)
{
	int fd = dev_open();

	EXPECT_ERR(sched(fd, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	close(fd);
}

static void user_a_whole_budget(void)
{
	fill_user(dev_open(), dev_open());
}

/* Map ids 0 to 9 of @pid's new user namespace as uids @first and on. */
static void map_ns(pid_t pid, int sock, unsigned int first)
{
	char map[32];

	wait_peer(sock);
	snprintf(map, sizeof(map), "0 %u 10\n", first);
	write_map(pid, "uid_map", map);
	write_map(pid, "gid_map", map);
	signal_peer(sock);
}

static void per_user_userns(void)
{
	int sock;
	pid_t pid;

	pid = peer_start(USER_A, userns_fill, &sock);
	map_ns(pid, sock, 200000);
	/* The namespace's uids hold uid 1000's whole budget. */
	wait_peer(sock);
	as_user(USER_A, user_a_refused);
	signal_peer(sock);
	/* Closed: all of it is back. */
	wait_peer(sock);
	as_user(USER_A, user_a_whole_budget);
	signal_peer(sock);
	peer_end(pid, sock, "the namespace's part");
}

/*
 * Root's own user namespace, ids 0 to 9 mapped as uids 300000 to 300009:
 * those are users of their own, as root gave them out. As uid 2 there
 * (300002) a child fills a budget; uid 1 there (300001) then fills
 * another, and root outside still schedules.
 */
static void root_userns(int sock)
{
	int a, b, c, st;
	pid_t pid;

	userns_enter(sock);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		become_in_ns(2);
		c = dev_open();
		fill(c, PER_FILE);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "uid 2 of the namespace could not schedule");
	become_in_ns(1);
	a = dev_open();
	b = dev_open();
	fill_user(a, b);
	signal_peer(sock);
	wait_peer(sock);
}

static void root_userns_apart(void)
{
	int sock, fd;
	pid_t pid;

	pid = peer_start(0, root_userns, &sock);
	map_ns(pid, sock, 300000);
	wait_peer(sock);
	fd = dev_open();
	fill(fd, PER_FILE);
	close(fd);
	signal_peer(sock);
	peer_end(pid, sock, "the namespace's part");
}

#define FILES 4

/*
 * uid 1000 holds FILES files; one more is EMFILE, in a child of its too;
 * a close makes room for one.
 */
static void user_files(void)
{
	int fd[FILES], i, st;
	pid_t pid;

	for (i = 0; i < FILES; i++)
		fd[i] = dev_open();
	CHECK(open(DEV, O_RDWR | O_CLOEXEC) < 0 && errno == EMFILE,
	      "file %d of uid %d: %s, want EMFILE", FILES + 1, geteuid(),
	      errname(errno));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		CHECK(open(DEV, O_RDWR | O_CLOEXEC) < 0 && errno == EMFILE,
		      "a child's file: %s, want EMFILE", errname(errno));
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
	      "the child's open was not EMFILE");
	/* The files it has still work. */
	sched_ok(fd[0], FAR_NS);
	close(fd[FILES - 1]);
	fd[FILES - 1] = dev_open();
	for (i = 0; i < FILES; i++)
		close(fd[i]);
}

static void user_b_files(void)
{
	int fd = dev_open();

	sched_ok(fd, FAR_NS);
	close(fd);
}

static void per_user_files(void)
{
	param_set("max_files_per_user", FILES);
	as_user(USER_A, user_files);
	as_user(USER_B, user_b_files);
	param_set("max_files_per_user", 1024);
}

/* Schedule on @fd until it works, for at most WAIT_MS. */
static void sched_soon(int fd)
{
	int i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (!sched(fd, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL))
			return;
		usleep(10000);
	}
	fail("the charge of a read event did not come back in %d ms", WAIT_MS);
}

static void user_release(void)
{
	int a = dev_open(), b = dev_open(), c;
	uint64_t first, extra, now_id;
	struct dwq_event ev;

	first = sched_ok(a, FAR_NS);
	fill(a, PER_FILE - 1);
	fill(b, PER_USER - PER_FILE);
	EXPECT_ERR(sched(b, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	/* A cancel in one file makes room in another, at once. */
	EXPECT_ERR(cancel(a, first), 0);
	extra = sched_ok(b, FAR_NS);
	EXPECT_ERR(sched(b, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	/* A close gives all of its file's tasks back: b holds 37 now. */
	close(a);
	c = dev_open();
	fill(c, PER_FILE - 1);
	EXPECT_ERR(sched(c, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	/*
	 * A one-shot that is due keeps its charge while its event is unread
	 * (its file holds it until read() fires it: in pending too), though
	 * its id is gone.
	 */
	EXPECT_ERR(cancel(b, extra), 0);
	now_id = sched_ok(b, 0);
	wait_readable(b);
	EXPECT_ERR(cancel(b, now_id), ENOENT);
	expect_pending(b, PER_USER - PER_FILE + 1);
	EXPECT_ERR(sched(b, FAR_NS, 0, DWQ_MODE_ONESHOT, 0, NULL), ENOSPC);
	CHECK(read(b, &ev, sizeof(ev)) == sizeof(ev) && ev.id == now_id,
	      "read: %s", strerror(errno));
	/* Read: the charge returns once the worker has let go of the task. */
	sched_soon(b);
	close(b);
	close(c);
	/* Everything closed: the whole budget is back. */
	fill_user(dev_open(), dev_open());
}

static void per_user_release(void)
{
	as_user(USER_A, user_release);
}

static uint64_t g_ids[3];

static void user_b_foreign_ids(void)
{
	struct dwq_ioc_reschedule rs = { .time_ns = 0 };
	struct dwq_ioc_query q = { 0 };
	int fd = dev_open();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(g_ids); i++) {
		EXPECT_ERR(cancel(fd, g_ids[i]), ENOENT);
		rs.id = g_ids[i];
		EXPECT_ERR(xioctl(fd, DWQ_IOC_RESCHEDULE, &rs), ENOENT);
		q.id = g_ids[i];
		EXPECT_ERR(xioctl(fd, DWQ_IOC_QUERY, &q), ENOENT);
	}
	expect_pending(fd, 0);
	CHECK(stats(fd).fired == 0, "uid %d's file saw a firing", USER_B);
}

/*
 * Another user's ids, tried in the other user's own file, are unknown;
 * the tasks are untouched (file.isolation in dwq-test-file covers two files of
 * one user the same way).
 */
/* uid 1000's part: three tasks, their ids to root, then still queued. */
static void user_a_ids(int sock)
{
	struct dwq_ioc_query q = { 0 };
	int fd = dev_open();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(g_ids); i++)
		g_ids[i] = sched_ok(fd, FAR_NS + i);
	CHECK(write(sock, g_ids, sizeof(g_ids)) == sizeof(g_ids), "write: %s",
	      strerror(errno));
	wait_peer(sock);
	for (i = 0; i < ARRAY_SIZE(g_ids); i++) {
		q.id = g_ids[i];
		CHECK((!xioctl(fd, DWQ_IOC_QUERY, &q) &&
		       q.state == DWQ_STATE_QUEUED),
		      "task %llu changed", (unsigned long long)g_ids[i]);
	}
	expect_pending(fd, ARRAY_SIZE(g_ids));
}

static void foreign_ids(void)
{
	int sock;
	pid_t pid;

	pid = peer_start(USER_A, user_a_ids, &sock);
	CHECK(read(sock, g_ids, sizeof(g_ids)) == sizeof(g_ids), "read ids");
	as_user(USER_B, user_b_foreign_ids);
	signal_peer(sock);
	peer_end(pid, sock, "uid 1000's part (its tasks changed?)");
}

/* --- no kernel addresses ------------------------------------------------ */

/* A value in the kernel half of x86-64's address space (not ~0). */
static bool kaddr(uint64_t v)
{
	return v >= 0xffff800000000000ULL && v != UINT64_MAX;
}

/*
 * Fail if @text has what looks like a raw kernel address: a hex number
 * ffff followed by 12 digits (as %px prints it; a hashed %p starts with
 * zeroes), or a decimal one that large.
 */
static void check_text(const char *what, const char *text)
{
	const char *p = text, *s;
	unsigned long long v;
	size_t len;

	while (*p) {
		if (!isxdigit((unsigned char)*p)) {
			p++;
			continue;
		}
		s = p;
		while (isxdigit((unsigned char)*p))
			p++;
		len = p - s;
		if (len == 16 && !strncasecmp(s, "ffff", 4))
			fail("%s: a kernel address: %.*s", what, (int)len, s);
		if (len >= 19 && strspn(s, "0123456789") >= len) {
			v = strtoull(s, NULL, 10);
			CHECK(!kaddr(v), "%s: a kernel address: %.*s", what,
			      (int)len, s);
		}
	}
}

static void check_words(const char *what, const void *buf, size_t size)
{
	const uint64_t *w = buf;
	size_t i;

	for (i = 0; i < size / 8; i++)
		CHECK(!kaddr(w[i]), "%s: word %zu is %#llx", what, i,
		      (unsigned long long)w[i]);
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	n = read(fd, buf, size - 1);
	CHECK(n >= 0, "read %s: %s", path, strerror(errno));
	buf[n] = '\0';
	close(fd);
}

static const char *const param_names[] = {
	"mode",
	"workers",
	"max_tasks_per_file",
	"max_tasks_per_user",
	"max_tasks",
	"max_rate_per_user",
	"max_files_per_user",
	"min_period_ns",
	"max_delay_ns",
};

static void user_no_addresses(void)
{
	struct dwq_event ev[4];
	struct dwq_ioc_query q = { 0 };
	struct dwq_ioc_stats st = { 0 };
	char path[128], buf[4096];
	int fd = dev_open(), n = 0;
	uint64_t ids[3];
	size_t i;
	ssize_t r;

	ids[0] = sched_ok(fd, FAR_NS);
	CHECK(!sched(fd, 0, 1000000, DWQ_MODE_FIXED_RATE, 1, &ids[1]),
	      "periodic: %s", errname(errno));
	ids[2] = sched_ok(fd, 0);
	while (n < 3) {
		wait_readable(fd);
		r = read(fd, ev, sizeof(ev));
		CHECK(r > 0, "read: %s", strerror(errno));
		check_words("an event", ev, r);
		n += r / sizeof(ev[0]);
	}
	for (i = 0; i < 2; i++) {
		q.id = ids[i];
		CHECK(!xioctl(fd, DWQ_IOC_QUERY, &q), "QUERY: %s",
		      errname(errno));
		check_words("QUERY", &q, sizeof(q));
	}
	st = stats(fd);
	check_words("STATS", &st, sizeof(st));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	read_file(path, buf, sizeof(buf));
	check_text("fdinfo", buf);
	for (i = 0; i < ARRAY_SIZE(param_names); i++) {
		snprintf(path, sizeof(path), PARAMS "%s", param_names[i]);
		read_file(path, buf, sizeof(buf));
		check_text(path, buf);
	}
	close(fd);
}

/* dwq's lines in the kernel log, as root reads them. */
static void dmesg_no_addresses(void)
{
	static char log[1 << 20];
	char *line, *save;
	int len, lines = 0, restrict_ = -1;
	FILE *f;

	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
	CHECK(len >= 0, "klogctl: %s", strerror(errno));
	log[len] = '\0';
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *msg = strchr(line, ']');

		if (!strstr(line, "dwq"))
			continue;
		lines++;
		check_text("kernel log", msg ? msg + 1 : line);
	}
	CHECK(lines >= 2, "only %d kernel log lines mention dwq", lines);
	f = fopen("/proc/sys/kernel/dmesg_restrict", "r");
	if (f && fscanf(f, "%d", &restrict_) != 1)
		restrict_ = -1;
	if (f)
		fclose(f);
	note("%d kernel log lines of dwq checked; dmesg_restrict=%d", lines,
	     restrict_);
}

static void no_kernel_addresses(void)
{
	as_user(USER_A, user_no_addresses);
	dmesg_no_addresses();
}

/* --- memory cgroups -------------------------------------------------- */

static unsigned long long cg_read(const char *cg, const char *file,
				  const char *key)
{
	char path[256], buf[8192], *p;
	size_t klen = key ? strlen(key) : 0;

	snprintf(path, sizeof(path), CGROOT "/%s/%s", cg, file);
	read_file(path, buf, sizeof(buf));
	if (!key)
		return strtoull(buf, NULL, 10);
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return strtoull(p + klen + 1, NULL, 10);
	fail("%s has no '%s'", path, key);
}

static void cg_write(const char *cg, const char *file, const char *val)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), CGROOT "/%s/%s", cg, file);
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	CHECK(write(fd, val, strlen(val)) == (ssize_t)strlen(val),
	      "write '%s' to %s: %s", val, path, strerror(errno));
	close(fd);
}

static void cg_setup(const char *cg)
{
	char path[256];
	struct stat st;

	if (stat(CGROOT "/cgroup.controllers", &st)) {
		mkdir(CGROOT, 0755);
		CHECK(!mount("cgroup2", CGROOT, "cgroup2", 0, NULL),
		      "mount cgroup2: %s", strerror(errno));
	}
	cg_write("", "cgroup.subtree_control", "+memory");
	snprintf(path, sizeof(path), CGROOT "/%s", cg);
	rmdir(path);
	CHECK(!mkdir(path, 0755), "mkdir %s: %s", path, strerror(errno));
}

/* Move the calling process into @cg. */
static void cg_enter(const char *cg)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d\n", getpid());
	cg_write(cg, "cgroup.procs", pid);
}

/* STATS from a file of its own, which holds no task. */
static struct dwq_ioc_stats fresh_stats(void)
{
	int fd = dev_open();
	struct dwq_ioc_stats st = stats(fd);

	close(fd);
	return st;
}

/*
 * Every task of the limited process is gone: the tasks charged to root
 * (who ran it) and to all users are back at @st0's, and so is the queue,
 * which held only its file's alarm. queue_size alone would not show leaked
 * tasks: a file's tasks wait in its own heap, not in the queue.
 */
static void expect_released(const struct dwq_ioc_stats *st0, const char *when)
{
	struct dwq_ioc_stats st = fresh_stats();
	bool back = st.all_tasks == st0->all_tasks &&
		    st.user_tasks == st0->user_tasks;

	CHECK(back, "%s: all_tasks %llu, user_tasks %llu; before it %llu, %llu",
	      when, (unsigned long long)st.all_tasks,
	      (unsigned long long)st.user_tasks,
	      (unsigned long long)st0->all_tasks,
	      (unsigned long long)st0->user_tasks);
	CHECK(st.queue_size == st0->queue_size, "%s: queue size %u, was %u",
	      when, st.queue_size, st0->queue_size);
}

static unsigned long long slab_object_size(void)
{
	char buf[64];
	int fd = open("/sys/kernel/slab/dwq_utask/slab_size", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoull(buf, NULL, 10);
}

/*
 * 50000 tasks scheduled from a process in a child memory cgroup are
 * charged there: its slab and memory.current grow by at least
 * MIN_TASK_BYTES a task; a close gives the slab back.
 */
static void memcg_charged(void)
{
	unsigned long long cur0, slab0, cur1, slab1, slab2, obj;
	const char *cg = "dwq-charge";
	int fd;

	/* The default limits again, for this and the next cases. */
	param_set("max_tasks_per_file", 65536);
	param_set("max_tasks_per_user", 262144);
	cg_setup(cg);
	cg_enter(cg);
	fd = dev_open();
	sched_ok(fd, FAR_NS);
	/* A baseline with the file, the heap and the caches warm. */
	cur0 = cg_read(cg, "memory.current", NULL);
	slab0 = cg_read(cg, "memory.stat", "slab");
	fill(fd, MEMCG_TASKS);
	cur1 = cg_read(cg, "memory.current", NULL);
	slab1 = cg_read(cg, "memory.stat", "slab");
	obj = slab_object_size();
	note("%d tasks: memory.current +%llu B (%llu B/task), slab +%llu B (%llu B/task)",
	     MEMCG_TASKS, cur1 - cur0, (cur1 - cur0) / MEMCG_TASKS,
	     slab1 - slab0, (slab1 - slab0) / MEMCG_TASKS);
	note("dwq_utask's slab_size: %llu B", obj);
	CHECK((slab1 > slab0 &&
	       slab1 - slab0 >= MEMCG_TASKS * (obj ? obj : MIN_TASK_BYTES)),
	      "slab grew by %llu B, want at least %d x %llu B", slab1 - slab0,
	      MEMCG_TASKS, obj ? obj : MIN_TASK_BYTES);
	CHECK(cur1 > cur0 && cur1 - cur0 >= MEMCG_TASKS * MIN_TASK_BYTES,
	      "memory.current grew by %llu B, want at least %d x %d B",
	      cur1 - cur0, MEMCG_TASKS, MIN_TASK_BYTES);
	close(fd);
	slab2 = cg_read(cg, "memory.stat", "slab");
	note("after close: slab %+lld B from the baseline",
	     (long long)(slab2 - slab0));
	CHECK(slab2 < slab0 + (slab1 - slab0) / 10,
	      "slab after close %llu B, baseline %llu B, peak %llu B", slab2,
	      slab0, slab1);
}

/* STATS as the limited process saw it while it held its tasks. */
struct held {
	uint64_t pending;
	uint64_t all_tasks;
	uint64_t user_tasks;
};

/* Shared with the child of the memory.max cases; set up before it runs. */
struct limited {
	long err;
	uint64_t made;
	uint64_t pending;
	long cancel_err;
	long after_err;
	/*
	 * The child may be killed at any instruction: it fills the slot
	 * nheld % 2, then counts it in nheld, so held[(nheld - 1) % 2] is
	 * always whole.
	 */
	struct held held[2];
	unsigned int nheld;
};

static struct limited *g_lim;

/*
 * In a cgroup whose memory.max leaves about 1 MiB: schedule batches until
 * one fails. The caller's memory is locked in first, so that nothing but
 * dwq's allocations needs the cgroup's memory.
 */
static void prefault_stack(void)
{
	char buf[256 << 10];

	memset(buf, 1, sizeof(buf));
	asm volatile("" : : "r"(buf) : "memory");
}

static void record_held(int fd)
{
	struct dwq_ioc_stats st = stats(fd);
	unsigned int n = g_lim->nheld;
	struct held *h = &g_lim->held[n % 2];

	h->pending = st.pending;
	h->all_tasks = st.all_tasks;
	h->user_tasks = st.user_tasks;
	__atomic_store_n(&g_lim->nheld, n + 1, __ATOMIC_RELEASE);
}

static void limited_child(const char *cg, bool unkillable)
{
	uint64_t first = 0;
	char max[32];
	int fd, adj;
	long r;

	prefault_stack();
	CHECK(!mlockall(MCL_CURRENT), "mlockall: %s", strerror(errno));
	if (unkillable) {
		adj = open("/proc/self/oom_score_adj", O_WRONLY);
		CHECK(adj >= 0 && write(adj, "-1000", 5) == 5,
		      "oom_score_adj: %s", strerror(errno));
		close(adj);
	}
	cg_enter(cg);
	fd = dev_open();
	first = sched_ok(fd, FAR_NS);
	record_held(fd);
	snprintf(max, sizeof(max), "%llu",
		 cg_read(cg, "memory.current", NULL) + (1 << 20));
	cg_write(cg, "memory.max", max);
	g_lim->made = 1;
	for (;;) {
		r = batch(fd, 256);
		if (r) {
			g_lim->err = -r;
			break;
		}
		g_lim->made += 256;
		record_held(fd);
		if (g_lim->made > 200000)
			break;
	}
	/* What the failed call left: every earlier task, nothing more. */
	g_lim->pending = stats(fd).pending;
	record_held(fd);
	g_lim->cancel_err = -cancel(fd, first);
	g_lim->after_err = -cancel(fd, first);
	close(fd);
}

static pid_t limited_run(const char *cg, bool unkillable)
{
	pid_t pid;

	cg_setup(cg);
	memset(g_lim, 0, sizeof(*g_lim));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		limited_child(cg, unkillable);
		_exit(0);
	}
	return pid;
}

/*
 * The limited process's tasks were counted while it held them: root's
 * (who ran it) and all users' tasks were @st0's plus its pending ones. So
 * expect_released() after it is not vacuous.
 */
static void expect_held(const struct dwq_ioc_stats *st0)
{
	unsigned int n = __atomic_load_n(&g_lim->nheld, __ATOMIC_ACQUIRE);
	const struct held *h = &g_lim->held[(n - 1) % 2];
	bool counted = h->pending &&
		       h->all_tasks == st0->all_tasks + h->pending &&
		       h->user_tasks == st0->user_tasks + h->pending;

	CHECK(n, "the limited process counted no tasks");
	CHECK(counted,
	      "holding %llu tasks: all_tasks %llu, user_tasks %llu; before it %llu, %llu",
	      (unsigned long long)h->pending, (unsigned long long)h->all_tasks,
	      (unsigned long long)h->user_tasks,
	      (unsigned long long)st0->all_tasks,
	      (unsigned long long)st0->user_tasks);
}

/*
 * memory.max reached and the OOM killer unable to help (the only process
 * in the cgroup is unkillable): the schedule fails with ENOMEM, all or
 * nothing, and the file works on; its close gives every task back.
 */
static void memcg_enomem(void)
{
	const char *cg = "dwq-enomem";
	struct dwq_ioc_stats st0 = fresh_stats();
	pid_t pid;
	int st;

	pid = limited_run(cg, true);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	note("%llu tasks fit under memory.max; then %s; oom events %llu, oom_kill %llu",
	     (unsigned long long)g_lim->made, errname(g_lim->err),
	     cg_read(cg, "memory.events", "oom"),
	     cg_read(cg, "memory.events", "oom_kill"));
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st),
	      "the limited process failed (status %#x)", st);
	CHECK(g_lim->err == ENOMEM, "the call past memory.max: %s, want ENOMEM",
	      errname(g_lim->err));
	CHECK(g_lim->pending == g_lim->made,
	      "pending %llu after ENOMEM, made %llu",
	      (unsigned long long)g_lim->pending,
	      (unsigned long long)g_lim->made);
	CHECK(g_lim->cancel_err == 0 && g_lim->after_err == ENOENT,
	      "cancel after ENOMEM: %s, then %s", errname(g_lim->cancel_err),
	      errname(g_lim->after_err));
	CHECK(cg_read(cg, "memory.events", "oom_kill") == 0,
	      "someone was killed");
	expect_held(&st0);
	expect_released(&st0, "after its close");
}

/*
 * The same with a killable process: the memory cgroup's OOM killer picks
 * it (it is all the cgroup has), which is what memory.max promises for
 * any charge the cgroup cannot reclaim. Its file is closed as it dies, so
 * its tasks are all cancelled: none is left counted in all_tasks or in
 * root's user_tasks.
 */
static void memcg_oom_kill(void)
{
	const char *cg = "dwq-oom";
	struct dwq_ioc_stats st0 = fresh_stats();
	pid_t pid;
	int st;

	pid = limited_run(cg, false);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	note("killed after %llu tasks; oom_kill %llu",
	     (unsigned long long)g_lim->made,
	     cg_read(cg, "memory.events", "oom_kill"));
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	      "the process was not OOM-killed (status %#x, its call: %s)", st,
	      errname(g_lim->err));
	CHECK(cg_read(cg, "memory.events", "oom_kill") >= 1,
	      "no oom_kill event");
	expect_held(&st0);
	expect_released(&st0, "after the kill");
	/* The module works on: a round trip as root. */
	user_round_trip();
}

int main(int argc, char **argv)
{
	int plan = 15;

	if (argc > 1)
		module_path = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	g_lim = mmap(NULL, sizeof(*g_lim), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g_lim == MAP_FAILED || geteuid() != 0) {
		fprintf(stderr, "dwq-security: run as root, in a guest\n");
		return 2;
	}
	memset(g_lim, 0, sizeof(*g_lim));
	printf("TAP version 13\n1..%d\n", plan);

	run("default: /dev/dwq is 0600 root:root, parameter mode 0600",
	    default_mode);
	run("default: uid 1000 gets EACCES opening /dev/dwq, root opens it",
	    default_root_only);
	run("debugfs: dwq's files are root-only, even with debugfs mounted 0755",
	    debugfs_root_only);

	/* A refused load prints a message; then mode=0666 and low limits. */
	if (shell("rmmod dwq") ||
	    !shell("insmod %s workers=0 2>/dev/null", module_path) ||
	    shell("insmod %s mode=0666 max_tasks_per_file=%d max_tasks_per_user=%d",
		  module_path, PER_FILE, PER_USER)) {
		printf("Bail out! cannot reload dwq.ko with mode=0666\n");
		return 1;
	}
	run("mode=0666: uid 1000 schedules, reads a firing, queries, reschedules, cancels",
	    user_mode_0666);
	run("per-file limit: task 65 of a file is ENOSPC, alone or in a batch; nothing changed",
	    per_file_limit);
	run("per-user limit: 100 over uid 1000's files (a child's too), uid 1001 and root apart",
	    per_user_limit);
	run("per-user limit: given back by cancel and close, by a firing once read",
	    per_user_release);
	run("per-user limit: the uids uid 1000 maps into a user namespace are uid 1000",
	    per_user_userns);
	run("per-user limit: the uids root maps into a user namespace are users of their own",
	    root_userns_apart);
	run("per-user files: file 5 of uid 1000 is EMFILE (max_files_per_user=4), uid 1001 apart",
	    per_user_files);
	run("ids of uid 1000's file are ENOENT in uid 1001's file for cancel, reschedule, query",
	    foreign_ids);
	run("no kernel address in events, QUERY, STATS, fdinfo, parameters, kernel log",
	    no_kernel_addresses);

	run("memcg: 50000 tasks charged to the caller's cgroup, given back on close",
	    memcg_charged);
	run("memcg: past memory.max, an unkillable caller gets ENOMEM, tasks intact",
	    memcg_enomem);
	run("memcg: past memory.max, a killable caller is OOM-killed, its tasks cancelled",
	    memcg_oom_kill);
	return n_failed ? 1 : 0;
}
