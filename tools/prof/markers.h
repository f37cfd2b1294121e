/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The markers of the insn plugin (tools/prof/insn.c): long nops (0f 1f 80
 * imm32, "nopl imm32(%rax)") whose imm32 the plugin knows. The CPU runs
 * them as nops, so a program may carry them in any run; only the plugin
 * sees them. It counts what every vCPU executes from the first start to
 * the first stop (or only inside windows, below). Inline, so that no call
 * and return around them count.
 * x86 encodings, as the guests that run these programs are.
 */
#ifndef _DWQ_PROF_MARKERS_H
#define _DWQ_PROF_MARKERS_H

static inline void prof_mark_start(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x0d3a0001" ::: "memory");
}

static inline void prof_mark_stop(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x0d3a0002" ::: "memory");
}

/*
 * Windows (profile --window): wait before blocking for an event, got when
 * it is in hand; what every vCPU executes from the next timer interrupt to
 * got counts, and nothing else.
 */
static inline void prof_mark_wait(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x0d3a0003" ::: "memory");
}

static inline void prof_mark_got(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x0d3a0004" ::: "memory");
}

#endif /* _DWQ_PROF_MARKERS_H */
