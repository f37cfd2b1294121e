#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What F4a's slowest callbacks are made of, from a trace (tools/bench/f4a-trace).

usage: f4a_trace.py TRACE [--show K]

TRACE is the text of /sys/kernel/tracing/trace from a run of F4a alone
(dwq_bench.ko figures=F4a reps=1) on the mono trace clock, with the events
dwq_fire, dwq_wakeup, dwq_leader, sched_wakeup, sched_switch,
hrtimer_expire_entry, softirq_entry and softirq_exit. F4a runs its three
dwq variants one after the other (dwq-idle, dwq-loaded, dwq-idle-handoff
in its first repetition), each 10k dwq_fire events in a burst of its own;
their lateness is the event's own field.

For each variant: p50, p99 and p99.9 of the traced lateness, and how many
of its slowest 1% come after a stall: more than 300 us in which neither
vCPU logged any event while the task was overdue. For the ordinary tasks
(dwq-idle-handoff), also the time from the deadline to the next expiry of
the queue's timers (dwq_queue_wake_timer, the hard one the leader sleeps
on for an ordinary head, or dwq_queue_timer, the soft one for a quick
head) and from there to the callback, over
all tasks and over the slowest 1%, and the slowest 1% sorted into: stall;
behind (run by a worker already awake, no expiry of the queue's timer
between deadline and callback); timer late (more of the lateness before
that expiry than after); wakeup late (the rest); and how many had a
hand-off wakeup between deadline and callback. --show K prints the
events around the K slowest.

When the trace also has the local timer interrupt's exit and cpu_idle
(f4a-trace --irq), it also prints, for the wakeups of dwq's leader by
dwq_queue_wake_timer and of the hrtimer-sleep thread by its sleeper
timer that found their CPU idle and saw nothing else happen there, the
median of each step from the expiry to the switch to the thread: the
wakeup, the callback's return (hrtimer_expire_exit), the end of the
timer interrupt (local_timer_exit), the idle task's exit from idle and
the switch. The stall counts are then not comparable with a trace
without those events.
"""
import argparse
import bisect
import re
import sys

LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+):\s+(\w+):\s+(.*)$')
VARIANTS = ('dwq-idle', 'dwq-loaded', 'dwq-idle-handoff')
QUEUE_TIMER = re.compile(r'function=dwq_queue_(?:wake_)?timer\b')
STALL_NS = 300_000
BURST_GAP_NS = 100_000_000


def field(rest, key):
    m = re.search(r'\b' + key + r'=(\S+)', rest)
    return m.group(1) if m else None


def quantile(values, q):
    v = sorted(values)
    return v[min(int(len(v) * q), len(v) - 1)] if v else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('trace')
    ap.add_argument('--show', type=int, default=0)
    args = ap.parse_args()

    ev = []
    with open(args.trace, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if m:
                comm, pid, cpu, ts, name, rest = m.groups()
                ev.append((int(round(float(ts) * 1e9)), int(cpu), comm,
                           int(pid), name, rest))
    ev.sort(key=lambda e: e[0])
    ts = [e[0] for e in ev]

    def events(t0, t1):
        return ev[bisect.bisect_left(ts, t0):bisect.bisect_right(ts, t1)]

    def max_gap(t0, t1):
        pts = [t0] + [e[0] for e in events(t0, t1)] + [t1]
        return max(b - a for a, b in zip(pts, pts[1:]))

    bursts, cur = [], []
    for e in (e for e in ev if e[4] == 'dwq_fire'):
        if cur and e[0] - cur[-1][0] > BURST_GAP_NS:
            bursts.append(cur)
            cur = []
        cur.append(e)
    if cur:
        bursts.append(cur)
    if len(bursts) != len(VARIANTS):
        sys.exit(f'f4a_trace: {len(bursts)} bursts of dwq_fire, not '
                 f'{len(VARIANTS)}: a trace of F4a with reps=1?')

    timer = [e[0] for e in ev if e[4] == 'hrtimer_expire_entry' and
             QUEUE_TIMER.search(e[5])]
    for name, burst in zip(VARIANTS, bursts):
        rows = sorted((int(field(e[5], 'lateness')),
                       int(field(e[5], 'deadline')), e) for e in burst)
        lat = [r[0] for r in rows]
        p99 = quantile(lat, 0.99)
        slow = [r for r in rows if r[0] >= p99]
        stalls = sum(max_gap(dl, f[0]) > STALL_NS for _, dl, f in slow)
        print(f'{name}: {len(rows)} tasks, p50 {quantile(lat, .5) / 1e3:.1f} '
              f'us, p99 {p99 / 1e3:.1f}, p99.9 {quantile(lat, .999) / 1e3:.1f}; '
              f'{stalls} of the slowest {len(slow)} after a stall')
        if name != 'dwq-idle-handoff':
            continue

        def split(sel):
            before, after = [], []
            for _, dl, f in sel:
                k = bisect.bisect_left(timer, dl)
                if k < len(timer) and timer[k] <= f[0]:
                    before.append((timer[k] - dl) / 1e3)
                    after.append((f[0] - timer[k]) / 1e3)
            return before, after

        for label, sel in (('all', rows), ('slowest 1%', slow)):
            b, a = split(sel)
            print(f'  {label}: deadline to the queue timer p50 '
                  f'{quantile(b, .5):.0f} us, p90 {quantile(b, .9):.0f}; '
                  f'timer to callback p50 {quantile(a, .5):.0f} us, '
                  f'p90 {quantile(a, .9):.0f}')
        groups = {'stall': 0, 'behind': 0, 'timer late': 0, 'wakeup late': 0}
        handoff = 0
        for _, dl, f in slow:
            if any(e[4] == 'dwq_wakeup' and 'reason=handoff' in e[5]
                   for e in events(dl, f[0])):
                handoff += 1
            k = bisect.bisect_left(timer, dl)
            if max_gap(dl, f[0]) > STALL_NS:
                groups['stall'] += 1
            elif not (k < len(timer) and timer[k] <= f[0]):
                groups['behind'] += 1
            elif timer[k] - dl > f[0] - timer[k]:
                groups['timer late'] += 1
            else:
                groups['wakeup late'] += 1
        print('  slowest 1%: ' + ', '.join(f'{k} {v}' for k, v in groups.items()) +
              f'; a hand-off wakeup in {handoff}')
        for late, dl, f in sorted(slow, key=lambda r: -r[0])[:args.show]:
            print(f'--- {late / 1e3:.1f} us late, run on cpu{f[1]} by {f[2]}-{f[3]}')
            for e in events(dl - 50_000, f[0])[-30:]:
                print(f'  {(e[0] - dl) / 1e3:+9.1f} us cpu{e[1]} {e[4]:<20} {e[5][:120]}')

    if any(e[4] == 'local_timer_exit' for e in ev):
        wake_steps(ev)


# The steps of a clean wakeup from idle, in order, after the expiry.
STEPS = ('hrtimer_expire_exit', 'local_timer_exit', 'cpu_idle')


def wake_steps(ev):
    """Median steps from a timer's expiry to the switch to the woken thread."""
    cpus = {}
    for e in ev:
        cpus.setdefault(e[1], []).append(e)
    for fn, comm in (('dwq_queue_wake_timer', 'dwq-bench/'),
                     ('hrtimer_wakeup', 'dwq_bench_hrt')):
        gaps = {}
        for es in cpus.values():
            for i, e in enumerate(es):
                if (e[4] != 'hrtimer_expire_entry' or
                        f'function={fn} ' not in e[5] + ' ' or
                        not e[2].startswith('<idle>')):
                    continue
                seq = es[i + 1:i + 12]
                names = [x[4] for x in seq]
                if 'sched_switch' not in names:
                    continue
                seq = seq[:names.index('sched_switch') + 1]
                wake = [k for k, x in enumerate(seq) if x[4] == 'sched_wakeup']
                if (not wake or f'comm={comm}' not in seq[wake[0]][5] or
                        f'next_comm={comm}' not in seq[-1][5] or
                        tuple(x[4] for x in seq[wake[0] + 1:-1]) != STEPS):
                    continue
                pts = [('expiry', e[0])] + [(x[4], x[0]) for x in seq]
                for (a, ta), (b, tb) in zip(pts, pts[1:]):
                    gaps.setdefault(f'{a} -> {b}', []).append((tb - ta) / 1e3)
        n = max((len(v) for v in gaps.values()), default=0)
        print(f'{comm.rstrip("/")} woken by {fn} from idle, nothing else '
              f'between: {n}; step medians (us): ' +
              ', '.join(f'{k} {quantile(v, .5):.0f}' for k, v in gaps.items()))


if __name__ == '__main__':
    main()
