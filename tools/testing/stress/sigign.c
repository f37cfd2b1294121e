// SPDX-License-Identifier: GPL-2.0
/*
 * dwq-sigign SIG COMMAND [ARG...]: run COMMAND with SIGCHLD (the only SIG
 * it knows, "CHLD") ignored, as a shell's trap '' CHLD leaves a program
 * it runs. busybox's ash, the guests' shell, resets SIGCHLD for the
 * programs it runs, so dwqctl's tests use this to start one the way a
 * parent that ignores SIGCHLD would.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3 || strcmp(argv[1], "CHLD")) {
		fprintf(stderr, "usage: dwq-sigign CHLD COMMAND [ARG...]\n");
		return 2;
	}
	if (signal(SIGCHLD, SIG_IGN) == SIG_ERR) {
		perror("dwq-sigign: signal");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
