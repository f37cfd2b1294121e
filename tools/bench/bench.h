/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwq_bench: declarations shared by the benchmark's files. See README for
 * what it measures and the CSV it writes.
 */
#ifndef _DWQ_BENCH_H
#define _DWQ_BENCH_H

#include <linux/prandom.h>
#include <linux/types.h>

/* The figures, as bits of bench_cfg.figures. */
#define BENCH_F1 0x1U
#define BENCH_F3 0x2U
#define BENCH_F4A 0x4U
#define BENCH_F8 0x8U

/**
 * struct bench_cfg - what this load of the module was asked to do
 * @full: scale=full (the real figures), else scale=tiny (a smoke run)
 * @reps: repetitions of every measurement
 * @figures: BENCH_F* bits
 * @seed: seeds every pseudo-random sequence
 */
struct bench_cfg {
	bool full;
	unsigned int reps;
	unsigned int figures;
	u64 seed;
};

extern struct bench_cfg bench_cfg;

/* main.c: the results, one CSV row each (see README). */
int bench_row_u64(const char *figure, const char *variant, u64 n,
		  const char *metric, const char *unit, unsigned int rep,
		  u64 value);
int bench_row_s64(const char *figure, const char *variant, u64 n,
		  const char *metric, const char *unit, unsigned int rep,
		  s64 value);
int bench_row_ratio(const char *figure, const char *variant, u64 n,
		    const char *metric, const char *unit, unsigned int rep,
		    u64 num, u64 den, unsigned int decimals);
int bench_row_str(const char *figure, const char *variant, u64 n,
		  const char *metric, const char *unit, unsigned int rep,
		  const char *value);

/* A generator seeded from bench_cfg.seed and up to three numbers. */
void bench_rnd_init(struct rnd_state *rnd, u32 a, u32 b, u32 c);

/* A uniform number in [0, @range). */
static inline u32 bench_rnd_below(struct rnd_state *rnd, u32 range)
{
	return ((u64)prandom_u32_state(rnd) * range) >> 32;
}

/* The figures; each returns 0 or an errno, having logged why. */
int bench_f1(void);
int bench_f3(void);
int bench_f4a(void);
int bench_f8(void);

#endif /* _DWQ_BENCH_H */
