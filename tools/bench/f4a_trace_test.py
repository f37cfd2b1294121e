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
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the tree
from tapcheck import Checks  # noqa: E402
BASE_NS = 5_000_000_000
N = 120


def line(comm, pid, cpu, ns, name, rest):
    return (f'{comm:>16}-{pid:<5} [{cpu:03d}] d..1. '
            f'{ns // 1000 // 1_000_000}.{ns // 1000 % 1_000_000:06d}: {name}: {rest}\n')


# One wakeup in DIRTY is not clean (see trace()); KINDS, the kinds of it.
DIRTY = 4
KINDS = ('busy', 'other', 'extra')


def wakeup(cpu, e, fn, comm, pid, steps, i, with_wakeup_tp):
    """The events of a wakeup by fn's expiry at e, the steps in us."""
    kind = KINDS[i // DIRTY % len(KINDS)] if i % DIRTY == DIRTY - 1 else 'clean'
    if kind != 'clean':
        steps = [2 * x for x in steps]
    elif i % 3 == 0:
        steps = [x + 10 for x in steps]
    who = ('dwq-bench/1', 171) if kind == 'busy' else ('<idle>', 0)
    if kind == 'other':
        comm, pid = 'kworker/0:1', 99
    names = (['dwq_wakeup'] if with_wakeup_tp else []) + ['sched_wakeup']
    names += ['hrtimer_expire_exit', 'local_timer_exit', 'cpu_idle']
    rests = {
        'dwq_wakeup': 'queue=bench worker=0 reason=leader-timer',
        'sched_wakeup': f'comm={comm} pid={pid} prio=120 target_cpu={cpu:03d}',
        'hrtimer_expire_exit': 'hrtimer=00000000aa',
        'local_timer_exit': 'vector=236',
        'cpu_idle': f'state=4294967295 cpu_id={cpu}',
    }
    out = [line(*who, cpu, e, 'hrtimer_expire_entry',
                f'hrtimer=00000000aa function={fn} now={e}')]
    t = e
    for name, step in zip(names, steps):
        t += step * 1000
        out.append(line(*who, cpu, t, name, rests[name]))
        if name == 'sched_wakeup' and kind == 'extra':
            out.append(line(*who, cpu, t + 500, 'hrtimer_start',
                            'hrtimer=00000000cc function=tick_nohz_handler'))
    t += steps[len(names)] * 1000
    out.append(line(*who, cpu, t, 'sched_switch',
                    f'prev_comm=swapper/{cpu} prev_pid=0 prev_prio=120 '
                    f'prev_state=R ==> next_comm={comm} next_pid={pid} '
                    'next_prio=120'))
    return out


def fire(ns, deadline, lateness):
    return line('dwq-bench/0', 169, 0, ns, 'dwq_fire',
                f'queue=bench task=00000000deadbeef func=f4_task_fn [dwq_bench] '
                f'worker=0 deadline={deadline} lateness={lateness}')


def trace(bursts=3, irq=True):
    """Three bursts of N tasks, 200 us apart, late by 10, 20 and 150 us;
    the third (the ordinary tasks) woken by the wake timer 4 us after each
    deadline, with a clean wakeup from idle whose steps are 1, 7, 1, 15,
    2 and 5 us (one clean wakeup in three 10 us longer at each step, so
    that the medians are these and the 90th percentiles not), its
    callback after the switch; then the sleeper's wakeups, whose steps are
    5, 1, 7, 2 and 4 us, the same way. Of each kind of wakeup, one in
    DIRTY is not clean, in turn: the timer interrupted a thread, not the
    idle task; another thread was woken and switched to; an hrtimer_start
    came between the wakeup and the switch. Those take twice as long, and
    must not count."""
    out = []
    t = BASE_NS
    for b in range(bursts):
        late = (10_000, 20_000, 150_000)[b]
        for i in range(N):
            dl = t + i * 200_000
            if b == 2:
                evs = wakeup(0, dl + 4_000, 'dwq_queue_wake_timer [dwq]',
                             'dwq-bench/0', 169, [1, 7, 1, 15, 2, 5], i, True)
                if irq is False:
                    evs = [x for x in evs if ': hrtimer_expire_exit: ' not in x and
                           ': local_timer_exit: ' not in x and ': cpu_idle: ' not in x]
                out += evs
            out.append(fire(dl + late, dl, late))
        t += N * 200_000 + 200_000_000
    for i in range(N):
        evs = wakeup(1, t + i * 200_000, 'hrtimer_wakeup', 'dwq_bench_hrt', 170,
                     [5, 1, 7, 2, 4], i, False)
        if irq is False:
            evs = [x for x in evs if ': hrtimer_expire_exit: ' not in x and
                   ': local_timer_exit: ' not in x and ': cpu_idle: ' not in x]
        out += evs
    return ''.join(out)


# The clean wakeups of N, of each kind (see trace()).
CLEAN = N - N // 4


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
    check = Checks()

    rc, out = run(trace())
    check(rc == 0, f'a trace of three bursts is read: exit {rc}', out)
    for name, us in (('dwq-idle', 10), ('dwq-loaded', 20), ('dwq-idle-handoff', 150)):
        want = f'{name}: {N} tasks, p50 {us}.0 us, p99 {us}.0'
        check(want in out, f'{name}: its percentiles ("{want}")', out)
    want = 'all: deadline to the queue timer p50 4 us, p90 4; timer to callback p50 146 us'
    check(want in out, 'the ordinary tasks: deadline to timer, timer to callback', out)
    want = ('dwq-bench woken by dwq_queue_wake_timer from idle, nothing else between: '
            f'{CLEAN}; step medians (us): expiry -> dwq_wakeup 1, dwq_wakeup -> sched_wakeup 7, '
            'sched_wakeup -> hrtimer_expire_exit 1, hrtimer_expire_exit -> '
            'local_timer_exit 15, local_timer_exit -> cpu_idle 2, cpu_idle -> sched_switch 5')
    check(want in out, "the leader's wakeup from idle, step by step", out)
    want = ('dwq_bench_hrt woken by hrtimer_wakeup from idle, nothing else between: '
            f'{CLEAN}; step medians (us): expiry -> sched_wakeup 5, sched_wakeup -> '
            'hrtimer_expire_exit 1, hrtimer_expire_exit -> local_timer_exit 7, '
            'local_timer_exit -> cpu_idle 2, cpu_idle -> sched_switch 4')
    check(want in out, "the sleeper's wakeup from idle, step by step", out)

    rc, out = run(trace(irq=False))
    check(rc == 0 and 'woken by' not in out and 'dwq-idle-handoff: ' in out,
          'without the interrupt\'s events: no steps, the rest as before', out)

    rc, out = run(trace(bursts=2))
    check(rc != 0 and '2 bursts of dwq_fire, not 3' in out,
          f'two bursts, not three: refused (exit {rc})', out)
    return check.status()


if __name__ == '__main__':
    sys.exit(main())
