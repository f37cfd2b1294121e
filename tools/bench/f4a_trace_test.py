#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""f4a_trace_test.py - f4a_trace.py against traces made up with known answers.

usage: f4a_trace_test.py

Writes small ftrace texts in the format f4a_trace.py reads, runs it on
each and checks what it prints: the percentiles of each variant, the
deadline-to-timer and timer-to-callback medians of the ordinary tasks,
the step medians of a wakeup from idle when the interrupt's events are
there (and none when they are not), and the refusal of a trace with the
wrong number of bursts. Prints one "ok"/"not ok" line per check and
exits 1 if any failed.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASE_NS = 5_000_000_000
N = 100


def line(comm, pid, cpu, ns, name, rest):
    return (f'{comm:>16}-{pid:<5} [{cpu:03d}] d..1. '
            f'{ns // 1000 // 1_000_000}.{ns // 1000 % 1_000_000:06d}: {name}: {rest}\n')


def fire(ns, deadline, lateness):
    return line('dwq-bench/0', 169, 0, ns, 'dwq_fire',
                f'queue=bench task=00000000deadbeef func=f4_task_fn [dwq_bench] '
                f'worker=0 deadline={deadline} lateness={lateness}')


def trace(bursts=3, irq=True):
    """Three bursts of N tasks, 200 us apart, late by 10, 20 and 38 us;
    the third (the ordinary tasks) woken by the wake timer 4 us after each
    deadline, with a clean wakeup from idle whose steps are 1, 7, 1, 15,
    2 and 5 us, and the callback 3 us after the switch; then the
    sleeper's wakeups, whose steps are 5, 1, 7, 2 and 4 us."""
    out = []
    t = BASE_NS
    for b in range(bursts):
        late = (10_000, 20_000, 38_000)[b]
        for i in range(N):
            dl = t + i * 200_000
            if b == 2:
                e = dl + 4_000
                idle = '<idle>', 0
                out.append(line(*idle, 0, e, 'hrtimer_expire_entry',
                                'hrtimer=00000000aa function=dwq_queue_wake_timer [dwq] '
                                f'now={e}'))
                out.append(line(*idle, 0, e + 1_000, 'dwq_wakeup',
                                'queue=bench worker=0 reason=leader-timer'))
                out.append(line(*idle, 0, e + 8_000, 'sched_wakeup',
                                'comm=dwq-bench/0 pid=169 prio=120 target_cpu=000'))
                if irq:
                    out.append(line(*idle, 0, e + 9_000, 'hrtimer_expire_exit',
                                    'hrtimer=00000000aa'))
                    out.append(line(*idle, 0, e + 24_000, 'local_timer_exit',
                                    'vector=236'))
                    out.append(line(*idle, 0, e + 26_000, 'cpu_idle',
                                    'state=4294967295 cpu_id=0'))
                out.append(line(*idle, 0, e + 31_000, 'sched_switch',
                                'prev_comm=swapper/0 prev_pid=0 prev_prio=120 '
                                'prev_state=R ==> next_comm=dwq-bench/0 '
                                'next_pid=169 next_prio=120'))
            out.append(fire(dl + late, dl, late))
        t += N * 200_000 + 200_000_000
    for i in range(N):
        e = t + i * 200_000
        idle = '<idle>', 0
        out.append(line(*idle, 1, e, 'hrtimer_expire_entry',
                        f'hrtimer=00000000bb function=hrtimer_wakeup now={e}'))
        out.append(line(*idle, 1, e + 5_000, 'sched_wakeup',
                        'comm=dwq_bench_hrt pid=170 prio=120 target_cpu=001'))
        if irq:
            out.append(line(*idle, 1, e + 6_000, 'hrtimer_expire_exit',
                            'hrtimer=00000000bb'))
            out.append(line(*idle, 1, e + 13_000, 'local_timer_exit', 'vector=236'))
            out.append(line(*idle, 1, e + 15_000, 'cpu_idle',
                            'state=4294967295 cpu_id=1'))
        out.append(line(*idle, 1, e + 19_000, 'sched_switch',
                        'prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R '
                        '==> next_comm=dwq_bench_hrt next_pid=170 next_prio=120'))
    return ''.join(out)


def run(text):
    with tempfile.NamedTemporaryFile('w', suffix='.txt', delete=False) as f:
        f.write('# tracer: nop\n' + text)
    try:
        p = subprocess.run([sys.executable, os.path.join(HERE, 'f4a_trace.py'), f.name],
                           capture_output=True, text=True, check=False)
    finally:
        os.unlink(f.name)
    return p.returncode, p.stdout + p.stderr


def main():
    failed = 0

    def check(ok, what, out=''):
        nonlocal failed
        print(f'{"ok" if ok else "not ok"} - {what}')
        if not ok:
            failed += 1
            for ln in out.splitlines()[-20:]:
                print(f'#   {ln}')

    rc, out = run(trace())
    check(rc == 0, f'a trace of three bursts is read: exit {rc}', out)
    for name, us in (('dwq-idle', 10), ('dwq-loaded', 20), ('dwq-idle-handoff', 38)):
        want = f'{name}: {N} tasks, p50 {us}.0 us, p99 {us}.0'
        check(want in out, f'{name}: its percentiles ("{want}")', out)
    want = 'all: deadline to the queue timer p50 4 us, p90 4; timer to callback p50 34 us'
    check(want in out, 'the ordinary tasks: deadline to timer, timer to callback', out)
    want = ('dwq-bench woken by dwq_queue_wake_timer from idle, nothing else between: '
            f'{N}; step medians (us): expiry -> dwq_wakeup 1, dwq_wakeup -> sched_wakeup 7, '
            'sched_wakeup -> hrtimer_expire_exit 1, hrtimer_expire_exit -> '
            'local_timer_exit 15, local_timer_exit -> cpu_idle 2, cpu_idle -> sched_switch 5')
    check(want in out, "the leader's wakeup from idle, step by step", out)
    want = ('dwq_bench_hrt woken by hrtimer_wakeup from idle, nothing else between: '
            f'{N}; step medians (us): expiry -> sched_wakeup 5, sched_wakeup -> '
            'hrtimer_expire_exit 1, hrtimer_expire_exit -> local_timer_exit 7, '
            'local_timer_exit -> cpu_idle 2, cpu_idle -> sched_switch 4')
    check(want in out, "the sleeper's wakeup from idle, step by step", out)

    rc, out = run(trace(irq=False))
    check(rc == 0 and 'woken by' not in out and 'dwq-idle-handoff: ' in out,
          'without the interrupt\'s events: no steps, the rest as before', out)

    rc, out = run(trace(bursts=2))
    check(rc != 0 and '2 bursts of dwq_fire, not 3' in out,
          f'two bursts, not three: refused (exit {rc})', out)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
