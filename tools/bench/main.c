// SPDX-License-Identifier: GPL-2.0
/*
 * dwq_bench: the in-kernel benchmarks of dwq (figures F1, F3, F4a and F8,
 * see docs/bench.md), run once, synchronously, when the module is loaded:
 *
 *   insmod dwq_bench.ko [scale=tiny|full] [figures=F1,F3,F4a,F8|none] [reps=5]
 *
 * Loading returns 0 once every figure asked for has run, or an errno
 * (logged) if one could not. The results stay readable as CSV in
 * /sys/kernel/debug/dwq_bench/results (root only) until rmmod. README has
 * the CSV's columns and what each figure measures.
 *
 * While loaded it also serves /sys/kernel/debug/dwq_bench/idle_us: the
 * time the online CPUs have spent idle, to the microsecond, for the
 * figures dwq-ubench takes from busy time (F9). /proc/stat gives the same
 * counters in USER_HZ ticks, 10 ms, as much as the CPU a 2 s window
 * attributes to one user differs from its cap by.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
/* get_cpu_idle_time_us(): <linux/tick.h> before 7.x, this after. */
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/utsname.h>

#include "bench.h"
#include "dwq_internal.h"
#include "heap_variants.h"

static char *scale = "full";
module_param(scale, charp, 0444);
/*
 * Not clang-formatted (here and at each "clang-format off" below): it
 * would break right after "MODULE_PARM_DESC(", which checkpatch rejects
 * (OPEN_ENDED_LINE), and the description must stay one string that
 * grep finds (checkpatch: SPLIT_STRING).
 */
/* clang-format off */
MODULE_PARM_DESC(scale, "tiny (a smoke run of seconds) or full (the figures; minutes)");
/* clang-format on */

static char *figures = "F1,F3,F4a,F8";
module_param(figures, charp, 0444);
/* clang-format off */
MODULE_PARM_DESC(figures, "comma-separated figures to run: F1, F3, F4a, F8; or none");
/* clang-format on */

static unsigned int reps = 5;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "repetitions of every measurement, 1..100");

static unsigned long long seed = 1;
module_param(seed, ullong, 0444);
/* clang-format off */
MODULE_PARM_DESC(seed, "seed of every pseudo-random sequence (keys, victims, deadlines)");
/* clang-format on */

struct bench_cfg bench_cfg;

/* The CSV; written by the figures, which run one at a time, in init. */
#define BENCH_RESULTS_MAX (1024 * 1024)
static char *bench_buf;
static struct debugfs_blob_wrapper bench_blob;
static struct dentry *bench_dir;

static __printf(7, 8) int bench_row(const char *figure, const char *variant,
				    u64 n, const char *metric, const char *unit,
				    unsigned int rep, const char *fmt, ...)
{
	size_t len = bench_blob.size, room = BENCH_RESULTS_MAX - len;
	va_list args;
	int w, v;

	w = snprintf(bench_buf + len, room, "%s,%s,%llu,%s,%s,%u,", figure,
		     variant, n, metric, unit, rep);
	if (w >= room)
		goto full;
	va_start(args, fmt);
	v = vsnprintf(bench_buf + len + w, room - w, fmt, args);
	va_end(args);
	if (v + 1 >= room - w)
		goto full;
	bench_buf[len + w + v] = '\n';
	bench_blob.size = len + w + v + 1;
	return 0;
full:
	bench_buf[len] = '\0';
	pr_err("the results outgrew %u bytes\n", BENCH_RESULTS_MAX);
	return -ENOSPC;
}

int bench_row_u64(const char *figure, const char *variant, u64 n,
		  const char *metric, const char *unit, unsigned int rep,
		  u64 value)
{
	return bench_row(figure, variant, n, metric, unit, rep, "%llu", value);
}

int bench_row_s64(const char *figure, const char *variant, u64 n,
		  const char *metric, const char *unit, unsigned int rep,
		  s64 value)
{
	return bench_row(figure, variant, n, metric, unit, rep, "%lld", value);
}

/* @num / @den with @decimals (at most 6) decimals, rounded to nearest. */
int bench_row_ratio(const char *figure, const char *variant, u64 n,
		    const char *metric, const char *unit, unsigned int rep,
		    u64 num, u64 den, unsigned int decimals)
{
	u64 scale = 1, q;
	unsigned int i;

	decimals = min(decimals, 6U);
	for (i = 0; i < decimals; i++)
		scale *= 10;
	if (!den)
		return bench_row(figure, variant, n, metric, unit, rep, "nan");
	q = div64_u64(num * scale + den / 2, den);
	if (!decimals)
		return bench_row(figure, variant, n, metric, unit, rep, "%llu",
				 q);
	return bench_row(figure, variant, n, metric, unit, rep, "%llu.%0*llu",
			 div64_u64(q, scale), decimals, q % scale);
}

int bench_row_str(const char *figure, const char *variant, u64 n,
		  const char *metric, const char *unit, unsigned int rep,
		  const char *value)
{
	return bench_row(figure, variant, n, metric, unit, rep, "%s", value);
}

void bench_rnd_init(struct rnd_state *rnd, u32 a, u32 b, u32 c)
{
	prandom_seed_state(rnd,
			   bench_cfg.seed ^ ((u64)a << 56 | (u64)b << 32 | c));
}

/* The current clocksource's name, read the way user space reads it. */
static void bench_clocksource(char *name, size_t size)
{
	static const char path[] =
		"/sys/devices/system/clocksource/clocksource0/current_clocksource";
	struct file *f;
	loff_t pos = 0;
	ssize_t len;

	strscpy(name, "unknown", size);
	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return;
	len = kernel_read(f, name, size - 1, &pos);
	filp_close(f, NULL);
	if (len <= 0) {
		strscpy(name, "unknown", size);
		return;
	}
	name[len] = '\0';
	strim(name);
}

static int bench_env(void)
{
	char cs[32];
	int err;

	bench_clocksource(cs, sizeof(cs));
	err = bench_row_u64("env", "kernel", 0, "hz", "count", 0, HZ);
	err = err   ?:
		      bench_row_str("env", "kernel", 0, "clocksource", "name",
				    0, cs);
	err = err   ?:
		      bench_row_u64("env", "kernel", 0, "online_cpus", "count",
				    0, num_online_cpus());
	err = err   ?:
		      bench_row_u64("env", "kernel", 0, "hrtimer_resolution",
				    "ns", 0, hrtimer_resolution);
	err = err   ?:
		      bench_row_str("env", "kernel", 0, "release", "name", 0,
				    init_utsname()->release);
	err = err   ?:
		      bench_row_u64("env", "dwq", 0, "slack", "ns", 0,
				    DWQ_SLACK_NS);
	err = err   ?:
		      bench_row_u64("env", "dwq", 0, "heap_arity", "count", 0,
				    DWQ_HEAP_ARITY);
	err = err   ?:
		      bench_row_str("env", "dwq", 0, "heap_default", "name", 0,
				    BENCH_HEAP_DWQ_VARIANT);
	err = err   ?:
		      bench_row_str("env", "bench", 0, "scale", "name", 0,
				    bench_cfg.full ? "full" : "tiny");
	err = err   ?:
		      bench_row_u64("env", "bench", 0, "reps", "count", 0,
				    bench_cfg.reps);
	err = err   ?:
		      bench_row_u64("env", "bench", 0, "seed", "count", 0,
				    bench_cfg.seed);
	return err;
}

/* Parse figures=: names separated by commas, any case. */
static int bench_parse_figures(const char *list, unsigned int *bits)
{
	char name[8];
	const char *p = list, *end;
	size_t len;

	*bits = 0;
	/* None: only idle_us, for dwq-ubench. */
	if (sysfs_streq(list, "none"))
		return 0;
	while (*p) {
		end = strchrnul(p, ',');
		len = end - p;
		if (len && len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			if (!strcasecmp(name, "F1"))
				*bits |= BENCH_F1;
			else if (!strcasecmp(name, "F3"))
				*bits |= BENCH_F3;
			else if (!strcasecmp(name, "F4a"))
				*bits |= BENCH_F4A;
			else if (!strcasecmp(name, "F8"))
				*bits |= BENCH_F8;
			else
				len = 0;
		} else {
			len = 0;
		}
		if (!len)
			goto bad;
		p = *end ? end + 1 : end;
	}
	if (*bits)
		return 0;
bad:
	pr_err("figures=%s: F1, F3, F4a or F8, separated by commas, or none\n",
	       list);
	return -EINVAL;
}

static int bench_parse(void)
{
	if (sysfs_streq(scale, "tiny")) {
		bench_cfg.full = false;
	} else if (sysfs_streq(scale, "full")) {
		bench_cfg.full = true;
	} else {
		pr_err("scale=%s: tiny or full\n", scale);
		return -EINVAL;
	}
	if (!reps || reps > 100) {
		pr_err("reps=%u: 1..100\n", reps);
		return -EINVAL;
	}
	bench_cfg.reps = reps;
	bench_cfg.seed = seed;
	return bench_parse_figures(figures, &bench_cfg.figures);
}

/*
 * idle_us: "IDLE CPUS", the microseconds the online CPUs have spent idle
 * and waiting for I/O, summed, and how many CPUs are online: what
 * /proc/stat's first line gives as idle and iowait, read from the same
 * counters (the nohz tick's) before they are cut to USER_HZ ticks. -ENODEV
 * if the kernel keeps no such counters (nohz off); then read /proc/stat.
 */
static int bench_idle_show(struct seq_file *m, void *v)
{
	u64 sum = 0, idle, iowait;
	unsigned int cpus = 0;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		idle = get_cpu_idle_time_us(cpu, NULL);
		iowait = get_cpu_iowait_time_us(cpu, NULL);
		if (idle == -1ULL || iowait == -1ULL) {
			cpus_read_unlock();
			return -ENODEV;
		}
		sum += idle + iowait;
		cpus++;
	}
	cpus_read_unlock();
	seq_printf(m, "%llu %u\n", sum, cpus);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_idle);

static int bench_run(void)
{
	static const struct {
		unsigned int bit;
		const char *name;
		int (*run)(void);
	} figs[] = {
		{ BENCH_F1, "F1", bench_f1 },
		{ BENCH_F3, "F3", bench_f3 },
		{ BENCH_F4A, "F4a", bench_f4a },
		{ BENCH_F8, "F8", bench_f8 },
	};
	unsigned int i;
	u64 t0;
	int err;

	err = bench_env();
	for (i = 0; i < ARRAY_SIZE(figs) && !err; i++) {
		if (!(bench_cfg.figures & figs[i].bit))
			continue;
		pr_info("%s: running (scale=%s, reps=%u)\n", figs[i].name,
			bench_cfg.full ? "full" : "tiny", bench_cfg.reps);
		t0 = ktime_get_ns();
		err = figs[i].run();
		if (err) {
			pr_err("%s failed: %d\n", figs[i].name, err);
			break;
		}
		pr_info("%s: done in %llu ms\n", figs[i].name,
			div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
	}
	return err;
}

static int __init bench_init(void)
{
	int err;

	err = bench_parse();
	if (err)
		return err;
	bench_buf = kvzalloc(BENCH_RESULTS_MAX, GFP_KERNEL);
	if (!bench_buf)
		return -ENOMEM;
	bench_blob.data = bench_buf;
	/* The header line: the interface make bench reads, keep it exact. */
	bench_blob.size = scnprintf(bench_buf, BENCH_RESULTS_MAX, "%s\n",
				    "figure,variant,n,metric,unit,rep,value");

	err = bench_run();
	if (err)
		goto err_free;

	bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_blob("results", 0400, bench_dir, &bench_blob);
	debugfs_create_file("idle_us", 0400, bench_dir, NULL, &bench_idle_fops);
	pr_info("results in /sys/kernel/debug/%s/results\n", KBUILD_MODNAME);
	return 0;

err_free:
	kvfree(bench_buf);
	return err;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	kvfree(bench_buf);
}

module_init(bench_init);
module_exit(bench_exit);

/* clang-format off */
MODULE_DESCRIPTION("dwq in-kernel benchmarks: heap variants, wakeups, lateness, kernel timers");
/* clang-format on */
MODULE_LICENSE("GPL");
