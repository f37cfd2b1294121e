// SPDX-License-Identifier: GPL-2.0
/* Three timers on one file descriptor: two one-shots and a periodic one. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/dwq.h>

static void schedule(int fd, __u64 delay_ms, __u64 period_ms, __u64 cookie)
{
	struct dwq_ioc_schedule s = {
		.time_ns = delay_ms * 1000000,
		.period_ns = period_ms * 1000000,
		.mode = period_ms ? DWQ_MODE_FIXED_RATE : DWQ_MODE_ONESHOT,
		.cookie = cookie,
	};

	if (ioctl(fd, DWQ_IOC_SCHEDULE, &s))
		perror("DWQ_IOC_SCHEDULE");
}

int main(void)
{
	struct dwq_event ev[4];
	int fd = open("/dev/dwq", O_RDWR), n = 0;

	if (fd < 0)
		return perror("/dev/dwq"), 1;
	schedule(fd, 300, 0, 1); /* once, in 300 ms */
	schedule(fd, 100, 0, 2); /* once, in 100 ms */
	schedule(fd, 50, 100, 3); /* every 100 ms from 50 ms on */
	while (n < 6) {
		ssize_t len = read(fd, ev, sizeof(ev)); /* blocks */

		if (len < 0)
			return perror("read /dev/dwq"), 1;
		for (int i = 0; i < len / (ssize_t)sizeof(ev[0]); i++, n++)
			printf("cookie %llu late %llu us%s\n", ev[i].cookie,
			       (ev[i].fired_ns - ev[i].deadline_ns) / 1000,
			       ev[i].flags & DWQ_EVENT_LAST ? " (done)" : "");
	}
	close(fd); /* cancels the periodic timer */
	return 0;
}
