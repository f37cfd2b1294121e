#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# observe.sh - dwq's debugfs files and tracepoints, checked in a guest with
# dwq.ko loaded (busybox sh, as root). TAP output.
#
#   tools/testing/vm-run --kernel debug --add tools/testing/observe/observe.sh \
#       -- sh $PWD/tools/testing/observe/observe.sh

dbg=/sys/kernel/debug/dwq
tr=/sys/kernel/tracing
. /dwq/tap.sh
tap_plan 25

# --- debugfs ----------------------------------------------------------

ls -l $dbg >"$tmp/ls" 2>&1
# Each file on its own: one missing must fail, not vanish from a list.
ok=0
for f in stats workers heap; do
	[ -f $dbg/$f ] && [ "$(stat -c '%a %u' $dbg/$f)" = "400 0" ] || ok=1
done
result $ok "debugfs: stats, workers, heap exist, mode 0400, owned by root" "$tmp/ls"

# Two tasks pending, from a dwqctl in the background that waits until it
# is killed, closing its file. (An echo marks when they are scheduled.)
printf 'schedule 300s cookie 1\nschedule 200s rate 10s cookie 2\necho ready\nsleep 600s\n' >"$tmp/two"
dwqctl run "$tmp/two" >"$tmp/two.out" 2>&1 &
pid=$!
ready() { i=0; while ! grep -q '^ready' "$1" && [ $i -lt 100 ]; do sleep 0.2; i=$((i + 1)); done; }
ready "$tmp/two.out"
cat $dbg/stats >"$tmp/stats"
cat $dbg/workers >"$tmp/workers"
cat $dbg/heap >"$tmp/heap"
# The file's two tasks are its own; the queue holds its alarm.
grep -qx 'size 1' "$tmp/stats" && grep -qx 'queue dwq' "$tmp/stats" &&
	grep -q '^tasks_run ' "$tmp/stats"
result $? "stats: the queue's name, size 1 (the file's alarm) and its counters" "$tmp/stats"
# The open file reserved room for its two alarms, one per clock.
grep -Eqx 'room [2-9][0-9]*' "$tmp/stats"
result $? "stats: the room reserved, two slots for the open file's alarms" "$tmp/stats"
# /dev/dwq's tasks are quick: none is handed off, so the queue's hand-off
# grace is still its least, 50 us.
grep -qx 'handoff_grace_ns 50000' "$tmp/stats"
result $? "stats: the hand-off grace, at its least on /dev/dwq's queue" "$tmp/stats"
workers=$(cat /sys/module/dwq/parameters/workers)
[ "$(grep -c '^[0-9]' "$tmp/workers")" = "$workers" ] &&
	! grep -Ev '^(id |[0-9]+ (idle|leader|follower|running|stopped) [0-9 ]+$)' "$tmp/workers" | grep -q .
result $? "workers: one line per worker ($workers), each with a state and counters" "$tmp/workers"
# Nothing is due: one worker leads (sleeps until the head), the rest follow.
[ "$(grep -c '^[0-9]* leader ' "$tmp/workers")" = 1 ] &&
	[ "$(grep -c '^[0-9]* follower ' "$tmp/workers")" = $((workers - 1)) ]
result $? "workers: one leader, the others followers" "$tmp/workers"
leader=$(awk '$2 == "leader" { print $1 }' "$tmp/workers")
grep -qx "leader $leader" "$tmp/stats"
result $? "stats: the leader is the worker in state leader" "$tmp/stats"
# The alarm is more than a second away: the leader's timer is armed
# halfway there, and the leader sleeps until then (its range's two ends
# equal), the timer's expiry. Halfway to 300 s, the file's first head, or
# to 200 s if the leader armed it only once the second task moved the
# alarm in (a move to after the halfway point moves nothing): at most
# 150 s ahead either way.
awk '$1 == "now" { now = $2 }
     $1 == "leader_until" { until = $2; hard = $3; n = NF }
     $1 == "timer" { timer = $2; tn = NF }
     END { exit !(n == 3 && tn == 2 && until == hard && timer == until &&
		  until > now && until - now <= 150000000000) }' "$tmp/stats"
result $? "stats: the leader's timer, armed halfway to the file's first head, and the range it sleeps for" "$tmp/stats"
# The head, the queue's only task, in the front slot: the file's alarm, a
# one-shot at its earliest deadline (the 200 s rate task's), about 200 s
# after "now" of the first line; nothing in the heap's slots.
now=$(awk 'NR == 1 { print $NF }' "$tmp/heap")
awk -v now="$now" '$1 == "front" { ok = ($3 == 0 && $4 == "oneshot" &&
	$2 > now && $2 - now <= 200000000000) }
     $1 ~ /^[0-9]+$/ { extra = 1 }
     END { exit !(ok && !extra) }' "$tmp/heap" &&
	grep -q '^front [0-9]* 0 oneshot [a-z_]' "$tmp/heap"
result $? "heap: slot, deadline, period, mode, owner; the file's alarm, the head, in the front slot, at its earliest deadline" "$tmp/heap"
# A /dev/dwq alarm names its process, its clock and the file's tasks.
grep -q "^front [0-9]* 0 oneshot dwq_client_alarm .* pid=$pid alarm=monotonic tasks=2$" "$tmp/heap"
result $? "heap: the alarm's owner is its process, its clock, the file's tasks (pid=$pid)" "$tmp/heap"
# fdinfo: the next task, its clock and the time left (at most 200 s).
for f in /proc/$pid/fd/*; do
	[ "$(readlink "$f")" = /dev/dwq ] && cat /proc/$pid/fdinfo/"${f##*/}" >"$tmp/fdinfo"
done
left=$(awk '$1 == "dwq-next-remaining-ns:" { print $2 }' "$tmp/fdinfo")
grep -qx "dwq-tgid: $pid" "$tmp/fdinfo" && grep -qx 'dwq-pending: 2' "$tmp/fdinfo" &&
	grep -qx 'dwq-next-id: 2' "$tmp/fdinfo" &&
	grep -qx 'dwq-next-clock: monotonic' "$tmp/fdinfo" &&
	grep -qx 'dwq-heap-slots: 16' "$tmp/fdinfo" &&
	grep -qx 'dwq-run-slots: 16' "$tmp/fdinfo" &&
	grep -qx 'dwq-id-buckets: 16' "$tmp/fdinfo" &&
	grep -qx 'dwq-array-pages-bytes: 0' "$tmp/fdinfo" &&
	[ -n "$left" ] && [ "$left" -gt 0 ] && [ "$left" -le 200000000000 ]
result $? "fdinfo: the opener, its arrays' sizes, the next task's id, clock and time left" "$tmp/fdinfo"
kill $pid
wait
cat $dbg/heap >"$tmp/heap"
grep -q '^# 0 tasks' "$tmp/heap" && ! grep -Eq '^(front|[0-9]+) ' "$tmp/heap"
result $? "heap: empty once the file that owned the tasks is closed" "$tmp/heap"

# More tasks than the dump shows: it is capped. A file's tasks are one
# alarm in the queue, so 300 files, one task each, in 300 processes.
printf 'schedule 600s\necho ready\nsleep 600s\n' >"$tmp/one"
pids=
i=0
while [ $i -lt 300 ]; do
	dwqctl run "$tmp/one" >/dev/null 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
i=0
while ! grep -q '^# 300 tasks' $dbg/heap && [ $i -lt 300 ]; do
	sleep 0.2
	i=$((i + 1))
done
cat $dbg/heap >"$tmp/heap"
# shellcheck disable=SC2086 # one pid a word
kill $pids
wait
[ "$(grep -Ec '^(front|[0-9]+) ' "$tmp/heap")" = 256 ] &&
	grep -q '^# 300 tasks, capacity [0-9]*, showing 256' "$tmp/heap" &&
	grep -qx '# 44 more not shown' "$tmp/heap"
result $? "heap: 300 alarms queued, the dump stops at 256 and says so" "$tmp/heap"

# --- tracepoints -------------------------------------------------------

if [ -d $tr/events/dwq ]; then
	ls $tr/events/dwq >"$tmp/events"
	for e in dwq_schedule dwq_reschedule dwq_cancel dwq_fire dwq_leader \
		dwq_wakeup dwq_dev_schedule dwq_dev_reschedule dwq_dev_cancel \
		dwq_dev_event; do
		[ -d $tr/events/dwq/$e ] || echo "missing $e" >>"$tmp/events"
	done
	! grep -q missing "$tmp/events"
	result $? "tracefs: events/dwq/ has the engine's and /dev/dwq's events" "$tmp/events"

	# dwqctl run $1 with dwq's events traced alone: its output in $1.out,
	# the trace then that output in $1.trace; pid and rc are dwqctl's.
	traced_run() {
		echo 0 >$tr/tracing_on
		echo >$tr/trace
		echo 1 >$tr/events/dwq/enable
		echo 1 >$tr/tracing_on
		dwqctl run "$1" >"$1.out" 2>&1 &
		pid=$!
		wait $pid
		rc=$?
		echo 0 >$tr/tracing_on
		echo 0 >$tr/events/dwq/enable
		cat $tr/trace "$1.out" >"$1.trace"
	}

	cat >"$tmp/work" <<'SCRIPT'
schedule 2s cookie 1
schedule 10s cookie 2
reschedule $2 1s
schedule 5s cookie 3
cancel $3
wait 2 events timeout 10s
SCRIPT
	traced_run "$tmp/work"
	mv "$tmp/work.trace" "$tmp/trace"
	# Traced apart, so that the workload's trace holds its events only.
	echo >$tr/trace
	echo 1 >$tr/events/dwq/enable
	echo 1 >$tr/tracing_on
	# 32 files whose alarms are due at one instant (an absolute time on
	# CLOCK_MONOTONIC, which /proc/uptime gives in the guest): the timer
	# runs DWQ_TIMER_RUN_MAX (16) of them and wakes the leader for the
	# rest, so a wakeup is recorded whoever led before.
	up=$(cut -d' ' -f1 /proc/uptime)
	# (Two decimals; "1" in front so that "08" is not read as octal.)
	at=$(( (${up%.*} * 100 + 1${up#*.} - 100) * 10000000 + 10000000000 ))
	printf 'schedule %sns at\necho ready\nwait 1 events timeout 30s\n' "$at" >"$tmp/due"
	pids=
	i=0
	while [ $i -lt 32 ]; do
		dwqctl run "$tmp/due" >"$tmp/due.$i" 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	# Should they not all have fired 3 s after their deadline, the
	# queue's state while they are still queued, for the report below.
	(
		sleep 12
		for p in $pids; do
			kill -0 "$p" 2>/dev/null || continue
			{
				echo "# 3 s past the deadline, some not read yet:"
				cat $dbg/stats
				head -n 4 $dbg/heap
			} >"$tmp/burst.state"
			break
		done
	) &
	snap=$!
	burst=0
	# shellcheck disable=SC2086 # one pid a word
	for p in $pids; do
		wait "$p" && burst=$((burst + 1))
	done
	kill "$snap" 2>/dev/null
	wait "$snap" 2>/dev/null
	echo 0 >$tr/tracing_on
	echo 0 >$tr/events/dwq/enable
	cat $tr/trace >"$tmp/burst"
	[ $rc = 0 ]
	result $? "the traced workload ran" "$tmp/trace"
	# The engine's events of the workload, in the order they happened:
	# only the file's alarm is the queue's. It is scheduled for the first
	# task, moved for the reschedule of the second to before it, fires;
	# the read that fires task 2 arms it for task 1 (unless that one was
	# due by then and fired in the same read), and it fires again. The
	# last read may cancel it while its callback still runs.
	order=$(grep -oE 'dwq_(schedule|reschedule|cancel|fire):' "$tmp/trace" |
		tr -d : | tr '\n' ' ')
	echo "# order: $order"
	echo "$order" | grep -Eqx 'dwq_schedule dwq_reschedule dwq_fire (dwq_schedule dwq_fire )?(dwq_cancel )?'
	result $? "trace: the alarm: schedule, reschedule (a new earliest task), fire, then again for the next" "$tmp/trace"
	# The tasks' own schedule and cancel never reach the queue.
	[ "$(grep -c 'dwq_schedule:' "$tmp/trace")" -le 2 ] &&
		! grep -q 'dwq_cancel:.* result=removed' "$tmp/trace"
	result $? "trace: the file's schedules and its cancel stay in the file (no engine cancel)" "$tmp/trace"
	grep -q 'dwq_fire:.* worker=[0-9]* deadline=[0-9]* lateness=[0-9]*$' "$tmp/trace"
	result $? "trace: fire shows the worker and the lateness" "$tmp/trace"
	# A failure shows the trace's last 30 lines: the engine's view last.
	{
		echo "# burst: $burst of 32 due at $at read their event"
		cat "$tmp/burst"
		echo "# the burst's events: $(grep -oE ' dwq_[a-z_]+:' "$tmp/burst" |
			sort | uniq -c | tr -s ' \n' ' ')"
		grep -E 'dwq_(leader|wakeup):' "$tmp/burst" | tail -n 6
		[ ! -f "$tmp/burst.state" ] || grep -Ev '_waits|wakeups|tasks_run|leader_changes|^(clock|capacity|room|workers) ' "$tmp/burst.state"
	} >>"$tmp/trace"
	grep -q 'dwq_leader:.* worker=[0-9]* until=[0-9]*' "$tmp/trace" &&
		[ $burst = 32 ] &&
		[ "$(grep -c "dwq_fire:.* deadline=$at " "$tmp/burst")" = 32 ] &&
		[ "$(grep -c 'dwq_wakeup:.* worker=[0-9]* reason=leader-timer' "$tmp/burst")" = 1 ]
	result $? "trace: the leader's deadlines, and its one wakeup by the timer for 32 alarms due at once" "$tmp/trace"
	# The /dev/dwq events name the task as the program knows it.
	grep -q "dwq_dev_schedule: tgid=$pid id=1 cookie=1 time=2000000000 period=0 mode=oneshot$" "$tmp/trace" &&
		grep -q "dwq_dev_schedule: tgid=$pid id=3 cookie=3 time=5000000000 period=0 mode=oneshot$" "$tmp/trace" &&
		grep -q "dwq_dev_reschedule: tgid=$pid id=2 cookie=2 time=1000000000 period=0 " "$tmp/trace"
	result $? "trace: dwq_dev_schedule/reschedule carry tgid $pid, id, cookie, time" "$tmp/trace"
	grep -q "dwq_dev_cancel: tgid=$pid id=3 cookie=3 result=removed$" "$tmp/trace"
	result $? "trace: dwq_dev_cancel names the task it removed" "$tmp/trace"
	grep -q "dwq_dev_event: tgid=$pid id=1 cookie=1 deadline=[0-9]* lateness=[0-9]* overruns=0 last$" "$tmp/trace" &&
		grep -q "dwq_dev_event: tgid=$pid id=2 cookie=2 deadline=[0-9]* lateness=[0-9]* overruns=0 last$" "$tmp/trace"
	result $? "trace: dwq_dev_event for each firing, with its lateness" "$tmp/trace"

	# A due periodic task moved keeps its firing's event; due again and
	# cancelled, that firing folds into the kept event, which is the
	# id's last: the trace says so when it happens.
	cat >"$tmp/fold" <<'SCRIPT'
schedule 10ms every 10s cookie 7
sleep 100ms
reschedule $1 10ms
sleep 100ms
cancel $1
wait 1 events timeout 10s
SCRIPT
	traced_run "$tmp/fold"
	[ $rc = 0 ] &&
		grep -q 'unread' "$tmp/fold.out" &&
		grep -q "dwq_dev_event: tgid=$pid id=1 cookie=7 deadline=[0-9]* lateness=[0-9]* overruns=0$" "$tmp/fold.trace" &&
		grep -q "dwq_dev_event: tgid=$pid id=1 cookie=7 deadline=[0-9]* lateness=[0-9]* overruns=0 last coalesced$" "$tmp/fold.trace"
	result $? "trace: a cancel folded into a kept event traces it as the last" "$tmp/fold.trace"

	# As a user would: trace-cmd records the events and decodes them.
	if command -v trace-cmd >/dev/null; then
		(cd "$tmp" && trace-cmd record -q -e dwq -o "$tmp/trace.dat" \
			dwqctl run "$tmp/work" >"$tmp/tc.out" 2>&1)
		trace-cmd report -i "$tmp/trace.dat" >"$tmp/report" 2>&1
		cat "$tmp/tc.out" >>"$tmp/report"
		grep -q 'dwq_dev_schedule: *tgid=[0-9]* id=1 cookie=1 ' "$tmp/report" &&
			grep -q 'dwq_dev_event: *tgid=[0-9]* id=1 cookie=1 .* last' "$tmp/report" &&
			grep -q 'dwq_fire: ' "$tmp/report"
		result $? "trace-cmd record -e dwq, then trace-cmd report, decodes the events" "$tmp/report"
	else
		echo "trace-cmd is not in the guest" >"$tmp/report"
		result 1 "trace-cmd record -e dwq, then trace-cmd report, decodes the events" "$tmp/report"
	fi
	# vm-run's guests hold tracing's task-name probes in an instance of
	# their own (see vm-run): none of the tracing above, trace-cmd's
	# included, may have let go of it.
	pin=$tr/instances/dwq-pin/events/oom/mark_victim/enable
	cat $pin >"$tmp/pin" 2>&1
	grep -qx 1 "$tmp/pin"
	result $? "tracing left vm-run's dwq-pin instance enabled" "$tmp/pin"
else
	ls $tr >"$tmp/tr" 2>&1
	i=0
	while [ $i -lt 12 ]; do
		result 1 "tracefs: no $tr/events/dwq" "$tmp/tr"
		i=$((i + 1))
	done
fi

cp "$tmp"/* "${DWQ_OUT:-/tmp}/" 2>/dev/null
[ $failed = 0 ]
