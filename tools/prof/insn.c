// SPDX-License-Identifier: GPL-2.0
/*
 * insn.c - a QEMU TCG plugin (QEMU 7.2, plugin API 1) for
 * tools/prof/profile: the instructions the guest executes, by the start
 * address of each translated block (TB), counted only between two markers
 * that the guest program executes.
 *
 * What it counts: when QEMU translates a TB, the plugin gives it an inline
 * "add n_insns" into the counter of the TB's start address, and an "add 1"
 * into that address's count of executions. Kernel TBs (start address at or
 * above 0xffffffff80000000) each have a counter of their own; every user
 * space TB counts into one bucket, written as address 0. A TB's
 * instructions thus count at its start address, in whichever function
 * that lies (symbolize.py: self cost per function).
 *
 * The markers: the guest program brackets its measured loop with two
 * 7-byte long nops of its own encoding, 0f 1f 80 imm32, which the CPU
 * executes as nops:
 *   imm32 0x0d3a0001  start: every counter back to zero
 *   imm32 0x0d3a0002  stop:  the counters copied aside; later counts and
 *                     markers are ignored
 * The plugin finds them in TBs as they are translated, user space's and
 * the kernel's (a module's loop, such as dwq_bench.ko's f8_prof=), and has
 * QEMU call it when one executes.
 *
 * Windows (with the open=ADDR argument, a kernel address where a TB
 * starts, such as the timer interrupt's entry): between start and stop,
 * only what executes inside windows counts. Two more markers:
 *   imm32 0x0d3a0003  wait:  the next execution of the TB at ADDR, on any
 *                     vCPU, opens a window
 *   imm32 0x0d3a0004  got:   the open window closes, and what executed
 *                     in it is added to the counts
 * So a program that marks wait before it blocks for an event and got when
 * the event reaches it gets the instructions of the path from the
 * interrupt to the event: under icount, the lateness of the event.
 *
 * Output, at QEMU's exit, into the file of its out=FILE argument (default
 * insn.out): a "# markers start=S stop=T" line (with windows, then a
 * "# windows W" line: how many closed), then one line per address
 * that counted, from the copy made at stop:
 *   <address, hex> <instructions> <executions of TBs starting there>
 * No stop marker: no lines.
 *
 * Build: gcc -shared -fPIC -O2 -Wall -Wextra -o libinsn.so insn.c (the
 * tools/prof Makefile). Load: qemu-system-x86_64 ... -plugin
 * libinsn.so,out=FILE. The counters are plain, not atomic: exact when the
 * vCPUs run in turn, as under -icount.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

#define KERNEL_START 0xffffffff80000000ULL
#define MARK_START 0x0d3a0001U
#define MARK_STOP 0x0d3a0002U
#define MARK_WAIT 0x0d3a0003U
#define MARK_GOT 0x0d3a0004U
/* Open addressing, far more slots than a kernel has TBs; 75% full aborts. */
#define NSLOT 0x100000U
#define SLOT_SHIFT 44 /* the top 20 bits of a 64-bit hash: 0..NSLOT-1 */

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct slot {
	__u64 vaddr; /* 0: empty; slot 0 is the user-space bucket */
	__u64 count; /* instructions */
	__u64 execs; /* executions of the TBs that start at vaddr */
};

static struct slot *tab, *snap;
/*
 * Windows: @base, the counts when the window opened; @acc, what windows
 * added up; @idx, the slots in use (@used of them), to go through only
 * those at each window.
 */
static struct slot *base, *acc;
static unsigned int *idx;
/* Guards the table's slots as TBs are translated, on any vCPU thread. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *outfile = "insn.out";
static unsigned int nstart, nstop, used = 1;
static __u64 open_at; /* 0: no windows */
static unsigned int nwin;
static int waiting, opened;

/* The slot of vaddr, taken if it has none yet; with lock held. */
static struct slot *slot_of(__u64 vaddr)
{
	__u64 h;

	if (vaddr < KERNEL_START)
		return &tab[0];
	/* Fibonacci hashing; slot 0 is never a kernel address's. */
	h = (vaddr * 0x9e3779b97f4a7c15ULL) >> SLOT_SHIFT;
	for (;; h++) {
		h &= NSLOT - 1;
		if (!h)
			continue;
		if (tab[h].vaddr == vaddr)
			return &tab[h];
		if (!tab[h].vaddr)
			break;
	}
	if (++used > NSLOT / 4 * 3) {
		qemu_plugin_outs("insn: table full\n");
		abort();
	}
	tab[h].vaddr = vaddr;
	idx[used - 1] = h;
	return &tab[h];
}

/* The TB at open_at executed: a window opens if one is waited for. */
static void window_open(unsigned int vcpu, void *udata)
{
	unsigned int i, h;

	(void)vcpu;
	(void)udata;
	if (!waiting || opened || !nstart || nstop)
		return;
	for (i = 0; i < used; i++) {
		h = idx[i];
		base[h].count = tab[h].count;
		base[h].execs = tab[h].execs;
	}
	opened = 1;
}

static void window_close(void)
{
	unsigned int i, h;

	waiting = 0;
	if (!opened)
		return;
	for (i = 0; i < used; i++) {
		h = idx[i];
		acc[h].count += tab[h].count - base[h].count;
		acc[h].execs += tab[h].execs - base[h].execs;
	}
	opened = 0;
	nwin++;
}

/* A marker executed: udata is its imm32. */
static void marker(unsigned int vcpu, void *udata)
{
	__u32 m = (__u32)(uintptr_t)udata;
	unsigned int i;

	(void)vcpu;
	if (nstop)
		return;
	if (m == MARK_START) {
		for (i = 0; i < NSLOT; i++) {
			tab[i].count = 0;
			tab[i].execs = 0;
		}
		nstart++;
	} else if (m == MARK_STOP && nstart) {
		memcpy(snap, tab, NSLOT * sizeof(*tab));
		if (open_at)
			for (i = 0; i < NSLOT; i++) {
				snap[i].count = acc[i].count;
				snap[i].execs = acc[i].execs;
			}
		nstop++;
	} else if (m == MARK_WAIT && open_at && nstart) {
		waiting = 1;
	} else if (m == MARK_GOT && open_at && nstart) {
		window_close();
	}
}

/* The marker an instruction is, or 0. */
static __u32 marker_of(struct qemu_plugin_insn *insn)
{
	const __u8 *b = qemu_plugin_insn_data(insn);
	__u32 imm;

	if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f || b[1] != 0x1f ||
	    b[2] != 0x80)
		return 0;
	memcpy(&imm, b + 3, sizeof(imm));
	return imm >= MARK_START && imm <= MARK_GOT ? imm : 0;
}

static void tb_trans(__u64 id, struct qemu_plugin_tb *tb)
{
	__u64 vaddr = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	struct slot *s;
	uintptr_t m;

	(void)id;
	pthread_mutex_lock(&lock);
	s = slot_of(vaddr);
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->count, n);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &s->execs, 1);
	if (open_at && vaddr == open_at) {
		struct qemu_plugin_insn *first = qemu_plugin_tb_get_insn(tb, 0);

		qemu_plugin_register_vcpu_insn_exec_cb(first, window_open,
						       QEMU_PLUGIN_CB_NO_REGS,
						       NULL);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		m = marker_of(insn);
		if (m)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)m);
	}
}

static void at_exit(__u64 id, void *udata)
{
	FILE *f = fopen(outfile, "w");
	char msg[256];
	unsigned int i;

	(void)id;
	(void)udata;
	if (!f) {
		qemu_plugin_outs("insn: cannot open the output file\n");
		return;
	}
	fprintf(f, "# markers start=%u stop=%u\n", nstart, nstop);
	if (open_at)
		fprintf(f, "# windows %u\n", nwin);
	for (i = 0; nstop && i < NSLOT; i++)
		if ((i == 0 || snap[i].vaddr) && snap[i].count)
			fprintf(f, "%llx %llu %llu\n",
				(unsigned long long)snap[i].vaddr,
				(unsigned long long)snap[i].count,
				(unsigned long long)snap[i].execs);
	if (fclose(f))
		qemu_plugin_outs("insn: cannot write the output file\n");
	snprintf(msg, sizeof(msg), "insn: start=%u stop=%u, %u slots, to %s\n",
		 nstart, nstop, used, outfile);
	qemu_plugin_outs(msg);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(__u64 id,
					   const struct qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			outfile = argv[i] + 4;
		else if (!strncmp(argv[i], "open=", 5))
			open_at = strtoull(argv[i] + 5, NULL, 16);
	tab = calloc(NSLOT, sizeof(*tab));
	snap = calloc(NSLOT, sizeof(*snap));
	base = calloc(NSLOT, sizeof(*base));
	acc = calloc(NSLOT, sizeof(*acc));
	idx = calloc(NSLOT, sizeof(*idx));
	if (!tab || !snap || !base || !acc || !idx)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
