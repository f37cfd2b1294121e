// SPDX-License-Identifier: GPL-2.0
/*
 * What an errno from the device means, from what the device says about
 * itself: no device access here, so the unit tests link it.
 */
#include <stdio.h>

#include "dwqctl.h"

/**
 * enospc_text() - which limit refused a schedule, from the file's counts
 * @st: DWQ_IOC_STATS of the file, read after the refusal
 * @s: the request refused
 * @buf: room for the text
 * @len: its size
 *
 * The limits are checked in this order: the file's, the user's, all
 * files', and a periodic task's firing rate. Another file may have freed
 * room between the refusal and @st, so none may look reached any more.
 *
 * Return: @buf, a short explanation for a person.
 */
const char *enospc_text(const struct dwq_ioc_stats *st,
			const struct dwq_ioc_schedule *s, char *buf, size_t len)
{
	__u64 rate = 0, room;

	if (s->mode != DWQ_MODE_ONESHOT && s->period_ns)
		rate = (1000000000000ULL + s->period_ns - 1) / s->period_ns;
	room = (__u64)st->max_rate_per_user * 1000;
	if (st->pending >= st->max_tasks_per_file)
		snprintf(buf, len,
			 "too many pending tasks: this file holds %llu, max_tasks_per_file=%u",
			 (unsigned long long)st->pending,
			 st->max_tasks_per_file);
	else if (st->user_tasks >= st->max_tasks_per_user)
		snprintf(buf, len,
			 "too many pending tasks: your files hold %llu (unread events included), max_tasks_per_user=%u",
			 (unsigned long long)st->user_tasks,
			 st->max_tasks_per_user);
	else if (st->all_tasks >= st->max_tasks)
		snprintf(buf, len,
			 "too many pending tasks: all files hold %llu, max_tasks=%u",
			 (unsigned long long)st->all_tasks, st->max_tasks);
	else if (rate && (rate > room || st->user_rate_mhz > room - rate))
		snprintf(buf, len,
			 "too many firings per second: your periodic tasks fire %llu.%03llu times a second, this one would add %llu.%03llu, max_rate_per_user=%u",
			 (unsigned long long)(st->user_rate_mhz / 1000),
			 (unsigned long long)(st->user_rate_mhz % 1000),
			 (unsigned long long)(rate / 1000),
			 (unsigned long long)(rate % 1000),
			 st->max_rate_per_user);
	else
		snprintf(buf, len,
			 "too many pending tasks: a limit was reached, and room was freed since (max_tasks_per_file=%u, max_tasks_per_user=%u, max_tasks=%u, max_rate_per_user=%u)",
			 st->max_tasks_per_file, st->max_tasks_per_user,
			 st->max_tasks, st->max_rate_per_user);
	return buf;
}
