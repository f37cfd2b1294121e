#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""symbolize.py - the insn plugin's counts (tools/prof/insn.c) per operation,
by kernel function.

usage: symbolize.py [--top K] [--groups] COUNTS KALLSYMS N

COUNTS is the plugin's output ("vaddr instructions executions" lines,
vaddr 0 for all of user space), KALLSYMS the guest's /proc/kallsyms from
the same boot, N the number of operations between the markers.

The instructions of a translated block (TB) go to the function whose text
symbol is the last one at or below the TB's start address: a function's
self cost, its callees not included (__pfx_X, the padding before X, counts
as X). calls/op counts the executions of TBs that start exactly at the
function's address (or its __pfx_'s): entries into it, or jumps back to
its first instruction. A TB more than 64 KiB past the nearest symbol is
shown as ?ADDRESS.

Prints the K functions (default 40) that cost most, the rest in one line,
and the kernel, user and total instructions per operation. --groups adds
the kernel total per operation by category (GROUPS below; a function
counts in the first category it matches) and what matched none.
"""
import argparse
import bisect
import sys


def syscall_path(n):
    return (n.startswith(('entry_SYSCALL_64', 'syscall_', '__x86_indirect_thunk',
                          '__x86_return_thunk'))
            or n in ('do_syscall_64', 'x64_sys_call', 'fpregs_assert_state_consistent',
                     'arch_exit_to_user_mode_prepare.constprop.0',
                     'exit_to_user_mode_prepare'))


# (category, test on a function's name as printed, "[dwq]" suffix included)
GROUPS = [
    ('dwq module: functions of dwq.ko', lambda n: n.endswith('[dwq]')),
    ('LSM: security_* hooks, tomoyo, apparmor, landlock, bpf_lsm',
     lambda n: n.startswith(('security_', 'tomoyo_', 'apparmor_', 'aa_', 'hook_',
                             'landlock_', 'bpf_lsm_', 'selinux_'))),
    ('syscall entry/exit', syscall_path),
    ('VFS: ioctl and read from the fd to the driver',
     lambda n: n in ('__x64_sys_ioctl', 'do_vfs_ioctl', 'vfs_ioctl', 'fdget', 'fdget_pos',
                     '__fdget_pos', '__f_unlock_pos', 'fput', '__x64_sys_read', 'ksys_read',
                     'vfs_read', 'rw_verify_area')),
    ('user copies: copy_{from,to}_user, get/put_user',
     lambda n: n.startswith(('_copy_from_user', '_copy_to_user', 'rep_movs_alternative',
                             '__put_user', '__get_user', '__check_object_size',
                             'check_heap_object', '__virt_addr_valid'))),
    ('time: ktime_get*, read_tsc', lambda n: n.startswith('ktime_get') or n == 'read_tsc'),
    ('locks: spinlocks, mutexes, RCU read side, __cond_resched',
     lambda n: ('spin' in n or 'mutex' in n
                or n in ('__rcu_read_lock', '__rcu_read_unlock', '__cond_resched'))),
]


def load_kallsyms(path):
    """Sorted (address, name) of the text symbols; {address: name}."""
    syms = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) < 3 or w[1] not in 'tTwW':
                continue
            a = int(w[0], 16)
            if a == 0:
                continue
            name = w[2]
            if name.startswith('__pfx_'):
                name = name[len('__pfx_'):]
            if len(w) > 3:
                name += ' ' + w[3]
            syms.append((a, name))
    syms.sort()
    return syms, {a: name for a, name in syms}


def main():
    ap = argparse.ArgumentParser(description='instructions per operation by kernel function')
    ap.add_argument('--top', type=int, default=40, help='functions listed (default 40)')
    ap.add_argument('--groups', action='store_true', help='kernel totals by category too')
    ap.add_argument('counts')
    ap.add_argument('kallsyms')
    ap.add_argument('n', type=int, help='operations between the markers')
    args = ap.parse_args()
    if args.n <= 0:
        ap.error('N must be positive')

    syms, entry = load_kallsyms(args.kallsyms)
    addrs = [a for a, _ in syms]
    per, calls = {}, {}
    user = kern = 0
    markers = ''
    with open(args.counts) as f:
        for line in f:
            if line.startswith('#'):
                markers = line[1:].strip()
                continue
            v, c, x = line.split()
            v, c, x = int(v, 16), int(c), int(x)
            if v == 0:
                user += c
                continue
            kern += c
            i = bisect.bisect_right(addrs, v) - 1
            if i < 0 or v - syms[i][0] > 0x10000:
                name = '?%x' % v
            else:
                name = syms[i][1]
            per[name] = per.get(name, 0) + c
            if v in entry:
                calls[entry[v]] = calls.get(entry[v], 0) + x
    if not kern and not user:
        sys.exit(f'symbolize.py: nothing counted in {args.counts} ({markers or "no markers line"})')

    n = args.n

    def pct(c):
        return 100.0 * c / kern if kern else 0.0

    rows = sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))
    print(f'# {markers}; N={n} ops')
    print('%10s %6s %9s  %s' % ('insn/op', '%kern', 'calls/op', 'kernel function (self)'))
    for name, c in rows[:args.top]:
        print('%10.1f %5.1f%% %9.2f  %s' % (c / n, pct(c), calls.get(name, 0) / n, name))
    rest = sum(c for _, c in rows[args.top:])
    print('%10.1f %5.1f%% %9s  (%d other functions)'
          % (rest / n, pct(rest), '', max(0, len(rows) - args.top)))
    print('%10.1f %17s  kernel total per op' % (kern / n, ''))
    print('%10.1f %17s  user total per op' % (user / n, ''))
    print('%10.1f %17s  kernel+user per op' % ((kern + user) / n, ''))

    if not args.groups:
        return
    left = dict(per)
    print()
    print('%10s %6s %9s  %s' % ('insn/op', '%kern', 'functions', 'kernel category'))
    for title, match in GROUPS:
        names = [k for k in left if match(k)]
        c = sum(left.pop(k) for k in names)
        print('%10.1f %5.1f%% %9d  %s' % (c / n, pct(c), len(names), title))
    c = sum(left.values())
    big = sorted(((v, k) for k, v in left.items() if v / n >= 1), reverse=True)
    print('%10.1f %5.1f%% %9d  other: %s' % (c / n, pct(c), len(left),
                                             ', '.join('%s %.0f' % (k, v / n) for v, k in big[:12])
                                             or '-'))


if __name__ == '__main__':
    main()
