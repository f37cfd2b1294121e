// SPDX-License-Identifier: GPL-2.0
/*
 * Standard output's failures. A write to stdout that fails (ENOSPC on a
 * full disk, EPIPE once the reader is gone with SIGPIPE ignored, EBADF
 * when dwqctl was started with stdout closed: see main.c) is remembered
 * here: run stops at it, after and every stop as at an error, and main()
 * says "dwqctl: write error: ERRNO: CAUSE" and makes the exit status a
 * failure.
 *
 * And a stop signal wins over a reader that stalls. A record (json.c) is
 * written whole with out_write(): to a pipe, one of PIPE_BUF bytes or
 * less (every record but help's) in one write(), which the kernel does
 * whole or not at all, so that a signal never cuts one. Where SIGINT and
 * SIGTERM are taken from a signalfd (after, every, watch), they are
 * blocked, and a write() blocked on a full pipe would never see them: there
 * out_write() polls stdout and the stop signals together, and gives the
 * output up, the rest of the record with it, when a stop signal is pending
 * and stdout takes nothing.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>

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

static int stop_fd = -1;
static int stopping;
static int gave_up;

/* See out_cutting(). */
static int cut;

/**
 * out_cutting() - could a signal cut the record being written?
 *
 * For main.c's signal handler: its end record then begins with a newline,
 * to start a line of its own.
 *
 * Return: 1 while a record is being written other than with one write()
 * of PIPE_BUF bytes or less to a pipe, else 0.
 */
int out_cutting(void)
{
	return cut;
}

/**
 * out_stop_fd() - give up a blocked write when a stop signal is pending
 * @fd: a signalfd of the stop signals, which out_write() only polls
 *	(reading the signals is the caller's); -1 for none
 */
void out_stop_fd(int fd)
{
	stop_fd = fd;
}

/**
 * out_stopping() - a stop signal was read: write only what stdout takes
 *
 * The signal is no longer pending for out_stop_fd()'s file to tell: from
 * now on a write that would block is given up at once.
 */
void out_stopping(void)
{
	stopping = 1;
}

/* Wait until stdout takes a write; -1 if a stop signal wins over it. */
static int wait_writable(void)
{
	struct pollfd p[2] = {
		{ .fd = STDOUT_FILENO, .events = POLLOUT },
		{ .fd = stop_fd, .events = POLLIN },
	};
	int n;

	for (;;) {
		n = poll(p, stopping ? 1 : 2, stopping ? 0 : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || p[0].revents)
			return 0; /* write(), and see */
		if (stopping || (p[1].revents & POLLIN))
			return -1;
	}
}

/**
 * out_write() - write @len bytes to stdout, all of them
 * @buf: the bytes: a record, or a screenful
 * @len: how many
 *
 * Whatever stdio holds for stdout goes first. With out_stop_fd(), a stop
 * signal pending while stdout takes nothing gives the output up: this
 * write and every later one write nothing more, and it is no write error.
 *
 * Return: 0, or -1 if not all was written.
 */
int out_write(const char *buf, size_t len)
{
	static int fifo = -1;
	size_t done = 0, n;
	struct stat sb;
	ssize_t w;

	if (out_flush() || gave_up)
		return -1;
	if (fifo < 0)
		fifo = !fstat(STDOUT_FILENO, &sb) && S_ISFIFO(sb.st_mode);
	cut = !fifo || len > PIPE_BUF;
	while (done < len) {
		n = len - done;
		if (stop_fd >= 0 || stopping) {
			if (wait_writable()) {
				gave_up = 1;
				break;
			}
			/* To a pipe with room, this much does not block. */
			if (n > PIPE_BUF)
				n = PIPE_BUF;
		}
		w = write(STDOUT_FILENO, buf + done, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			out_failed(w < 0 ? errno : EIO);
			break;
		}
		done += w;
	}
	cut = 0;
	return done == len ? 0 : -1;
}
