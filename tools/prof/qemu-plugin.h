/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of QEMU's TCG plugin API (include/qemu/qemu-plugin.h, API
 * version 1, as QEMU 7.2 has it) that insn.c calls. Debian 12's
 * qemu-system-x86 runs plugins but ships no qemu-plugin.h, so these are
 * written out here, with QEMU's names. QEMU's typedefs are spelled out:
 * qemu_plugin_id_t is a __u64, its callback types are the function
 * pointer types below.
 */
#ifndef DWQ_PROF_QEMU_PLUGIN_H
#define DWQ_PROF_QEMU_PLUGIN_H

#include <stddef.h>
#include <linux/types.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1

/* What QEMU tells the plugin about itself; insn.c reads none of it. */
struct qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

enum qemu_plugin_op {
	QEMU_PLUGIN_INLINE_ADD_U64,
};

/*
 * Not clang-formatted: it would break right after the "(", which checkpatch
 * rejects (OPEN_ENDED_LINE).
 */
/* clang-format off */
void qemu_plugin_register_vcpu_tb_trans_cb(__u64 id,
					   void (*cb)(__u64 id,
						      struct qemu_plugin_tb *tb));
/* clang-format on */
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op, void *ptr,
					      __u64 imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    void (*cb)(unsigned int vcpu_index,
						       void *userdata),
					    enum qemu_plugin_cb_flags flags,
					    void *userdata);
void qemu_plugin_register_atexit_cb(__u64 id,
				    void (*cb)(__u64 id, void *userdata),
				    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
__u64 qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *
qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_outs(const char *string);

#endif /* DWQ_PROF_QEMU_PLUGIN_H */
