// SPDX-License-Identifier: GPL-2.0
/*
 * Standard output's failures. A write to stdout that fails (ENOSPC on a
 * full disk, EPIPE once the reader is gone with SIGPIPE ignored, EBADF
 * when dwqctl was started with stdout closed: see main.c) is remembered
 * here: run stops at it, after and every stop as at an error, and main()
 * says "dwqctl: write error: ERRNO: CAUSE" and makes the exit status a
 * failure.
 */
#include <errno.h>
#include <stdio.h>

#include "dwqctl.h"

static int out_err;

/**
 * out_failed() - remember that a write to stdout failed
 * @err: its errno; 0 if not known (EIO then)
 */
void out_failed(int err)
{
	if (!out_err)
		out_err = err ? err : EIO;
}

/**
 * out_error() - has a write to stdout failed?
 *
 * Return: the errno of the first write that failed, or 0.
 */
int out_error(void)
{
	return out_err;
}

/**
 * out_flush() - flush stdout, and remember a failure
 *
 * Return: 0, or -1 if this or an earlier write to stdout failed.
 */
int out_flush(void)
{
	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		out_failed(errno);
	return out_err ? -1 : 0;
}
