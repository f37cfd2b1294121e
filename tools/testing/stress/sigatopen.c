// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-sigatopen SIG TEXT COMMAND [ARG...]: run COMMAND and send it SIG
 * (INT or TERM) as soon as an openat() of a path that contains TEXT has
 * returned a file to it, the first time, so that the signal is pending
 * while that file is open. dwqctl's guest tests use it to interrupt the
 * demo exactly while a file of its tracefs instance is open: a signal
 * taken then would find the instance busy.
 *
 * COMMAND runs traced (ptrace, its system calls' exits stopped), one
 * thread; its signals are passed on to it. Prints on stderr the path it
 * signalled at, or that there was none. Exits as COMMAND did: its status,
 * or 128 + the signal that killed it.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/ptrace.h>

/* The path of @child's file @fd into @path (empty if gone). */
static void fd_path(pid_t child, long fd, char *path, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/fd/%ld", (int)child, fd);
	n = readlink(link, path, len - 1);
	path[n < 0 ? 0 : n] = 0;
}

int main(int argc, char **argv)
{
	struct ptrace_syscall_info si;
	char path[PATH_MAX], at[PATH_MAX] = "";
	int sig, status, pass, in_open = 0;
	pid_t child;

	if (argc < 4 || (strcmp(argv[1], "INT") && strcmp(argv[1], "TERM"))) {
		fprintf(stderr,
			"usage: dwq-sigatopen INT|TERM TEXT COMMAND [ARG...]\n");
		return 2;
	}
	sig = strcmp(argv[1], "INT") ? SIGTERM : SIGINT;
	child = fork();
	if (child < 0) {
		perror("dwq-sigatopen: fork");
		return 1;
	}
	if (!child) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) || raise(SIGSTOP))
			_exit(126);
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status) ||
	    ptrace(PTRACE_SETOPTIONS, child, NULL,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
			   PTRACE_O_EXITKILL)) {
		perror("dwq-sigatopen: ptrace");
		return 1;
	}
	pass = 0;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, child, NULL, (void *)(long)pass) ||
		    waitpid(child, &status, 0) != child)
			break;
		pass = 0;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		/* The exec's stop (PTRACE_EVENT_EXEC): nothing to pass on. */
		if (status >> 16)
			continue;
		if (WSTOPSIG(status) != (SIGTRAP | 0x80)) {
			/* A signal for COMMAND: deliver it. */
			pass = WSTOPSIG(status);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, child, (void *)sizeof(si),
			   &si) <= 0)
			continue;
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY) {
			in_open = si.entry.nr == __NR_openat;
		} else if (si.op == PTRACE_SYSCALL_INFO_EXIT && in_open &&
			   !at[0] && !si.exit.is_error) {
			fd_path(child, si.exit.rval, path, sizeof(path));
			if (strstr(path, argv[2])) {
				snprintf(at, sizeof(at), "%s", path);
				kill(child, sig);
			}
		}
	}
	if (at[0])
		fprintf(stderr, "dwq-sigatopen: SIG%s once %s was open\n",
			argv[1], at);
	else
		fprintf(stderr, "dwq-sigatopen: no open of a path with %s\n",
			argv[2]);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}
