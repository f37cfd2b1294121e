#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - dwqctl's own tests, run inside a guest with dwq.ko loaded
# (busybox sh). TAP output; the exit status is 1 if a test failed.
#
#   tools/testing/vm-run --kernel stock --modparam workers=4 \
#       --add tools/dwqctl/tests/guest.sh -- sh $PWD/tools/dwqctl/tests/guest.sh
#
#   guest.sh          every test
#   guest.sh timers   demo, stats, watch, after, every only: what depends
#                     on the number of workers (make check runs it again
#                     with workers=2 and workers=8)
#
# Outputs are kept in $DWQ_OUT/dwqctl/ (the host gets them back from
# vm-run).

mode=${1:-all}
case $mode in
all) PLAN=129 ;;
timers) PLAN=69 ;;
*) echo "usage: guest.sh [all|timers]"; exit 2 ;;
esac
out=${DWQ_OUT:-/tmp}/dwqctl
mkdir -p "$out"
. /dwq/tap.sh
tap_plan $PLAN

# check NAME FILE COMMAND...: the test passes if COMMAND succeeds.
check() {
	name=$1 file=$2
	shift 2
	"$@" >/dev/null 2>&1
	result $? "$name" "$file"
}

# holds COMMAND...: print 0 if COMMAND succeeds, else 1: a status for result.
holds() { if "$@"; then echo 0; else echo 1; fi; }

has() { grep -q -- "$2" "$1"; }
count() { grep -c -- "$2" "$1"; }
# The queue's size, from a new file: 0 once every dwqctl has closed its own.
queue_size() { dwqctl --json stats | sed -n 's/.*"queue_size":\([0-9]*\),.*/\1/p'; }

# until COMMAND...: run COMMAND every 0.1 s until it succeeds, for 20 s at
# most. The waits below end as soon as what they wait for holds: a slow or
# stalled guest makes them longer, never wrong.
until_ok() {
	_tries=0
	while [ $_tries -lt 200 ]; do
		"$@" && return 0
		sleep 0.1
		_tries=$((_tries + 1))
	done
	return 1
}
# takes PID BIT: dwqctl, PID, blocks the signal of mask BIT (for its
# signalfd) or has a handler for it.
takes() {
	[ "$(cat /proc/"$1"/comm 2>/dev/null)" = dwqctl ] || return 1
	blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/"$1"/status)
	cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/"$1"/status)
	[ -n "$blk" ] && [ -n "$cgt" ] && [ $(((0x$blk | 0x$cgt) & $2)) != 0 ]
}
# caught PID SIG: wait until dwqctl, PID, takes SIG (INT or TERM): sent
# before, the signal would end it before it could say how it ended.
caught() {
	case $2 in
	INT) until_ok takes "$1" 2 ;;
	TERM) until_ok takes "$1" 16384 ;;
	*) return 1 ;;
	esac
}
# child_now PID NAME: print the pid of PID's child named NAME, if any
# (the parent's pid follows the name, which has no spaces here).
child_now() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		awk -v p="$1" -v n="($2)" '$2 == n && $4 == p { print $1; f = 1; exit }
			END { exit !f }'
}
# child PID NAME: wait until PID has a child process named NAME (the CMD
# dwqctl runs: every and after have a child of their own too, a dwqctl);
# print its pid.
child() { until_ok child_now "$@"; }
# has_lines FILE PATTERN N: FILE has N lines that match PATTERN.
has_lines() { [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ]; }

# fg_signal SIG AFTER OUT ERR COMMAND...: run COMMAND in the foreground
# (a command started with & has SIGINT ignored) and send it SIG AFTER
# seconds after it takes SIG (caught), or with AFTER child:NAME once its
# child NAME runs. Sets $rc.
fg_signal() {
	sig=$1 after=$2 o=$3 e=$4
	shift 4
	rm -f "$tmp/fg.pid"
	(
		until_ok test -s "$tmp/fg.pid"
		caught "$(cat "$tmp/fg.pid")" "$sig"
		case $after in
		child:*) child "$(cat "$tmp/fg.pid")" "${after#child:}" >/dev/null ;;
		*) sleep "$after" ;;
		esac
		kill -"$sig" "$(cat "$tmp/fg.pid")"
	) &
	killer=$!
	sh -c 'echo $$ >"$0/fg.pid"; exec "$@"' "$tmp" "$@" >"$o" 2>"$e"
	rc=$?
	wait $killer
}

workers=$(cat /sys/module/dwq/parameters/workers 2>/dev/null)
echo "# dwq.ko has workers=$workers; tests: $mode"

# --- the demo, with any number of workers from 2 ----------------------

dwqctl demo >"$out/demo-$workers.txt" 2>&1
rc=$?
cp "$out/demo-$workers.txt" "$tmp/demo"
result $rc "demo with workers=$workers exits 0: every check held" "$tmp/demo"
check "demo says all checks held" "$tmp/demo" \
	grep -q '^All [0-9]* checks held\.$' "$tmp/demo"
check "demo shows no [FAILED] check" "$tmp/demo" \
	sh -c "! grep -q '^   \\[FAILED\\]' $tmp/demo"
check "demo: nothing skipped (root, debugfs and tracefs are here)" "$tmp/demo" \
	sh -c "! grep -q '\\[skipped\\]' $tmp/demo"
check "demo: $workers idle workers, none woke" "$tmp/demo" \
	sh -c "grep -q '^1\\. $workers idle workers, none awake$' $tmp/demo && grep -q '\\[ok\\] $workers workers wait for work, and none woke in 200 ms' $tmp/demo"
check "demo: a lone alarm runs in the timer and wakes no worker" "$tmp/demo" \
	grep -Eq '\[ok\] a lone alarm ran in the timer and woke no worker \([01], then 0 wakeups\), and the leader stays' "$tmp/demo"
check "demo: 40 tasks in the file's own heap, one alarm in the shared queue" "$tmp/demo" \
	grep -q "\[ok\] 40 tasks in the file's heap, and one alarm for them in the shared queue" "$tmp/demo"
check "demo: fdinfo shows the file's tasks and its next" "$tmp/demo" \
	grep -q "\[ok\] the file's fdinfo shows its 40 tasks, the next being id 1$" "$tmp/demo"
check "demo: debugfs shows the alarm, owned by the demo" "$tmp/demo" \
	sh -c "grep -q '\\[ok\\] debugfs shows the alarm in the shared queue, owned by this process, for its 40 tasks' $tmp/demo && grep -q ' dwq_client_alarm .*pid=[0-9]* alarm=monotonic tasks=40' $tmp/demo"
check "demo: one alarm per clock" "$tmp/demo" \
	grep -q '\[ok\] one alarm per clock: 2 with a task on each, 1 again after its cancel' "$tmp/demo"
check "demo: a due task unread has not fired" "$tmp/demo" \
	grep -q '\[ok\] due and unread, the task has not fired' "$tmp/demo"
check "demo: read() fired it, inside the call" "$tmp/demo" \
	grep -q '\[ok\] read() fired it: fired_ns falls inside the read() call' "$tmp/demo"
check "demo: the trace shows the firing in the demo's process" "$tmp/demo" \
	grep -q '\[ok\] the trace shows the firing in this process (pid [0-9]*), not in a dwq thread' "$tmp/demo"
if uname -v | grep -q PREEMPT_RT; then
	check "demo: PREEMPT_RT: the alarm ran in the timer softirq's thread" "$tmp/demo" \
		grep -Eq '\[ok\] PREEMPT_RT: the alarm ran in (ktimers|ksoftirqd)/[0-9]+, the timer softirq' "$tmp/demo"
else
	check "demo: the alarm ran in the timer's hard irq" "$tmp/demo" \
		grep -Eq "\[ok\] the alarm ran in the timer's hard irq \(trace flags ..[hH]" "$tmp/demo"
fi
check "demo: 1000 tasks due at once fired once each" "$tmp/demo" \
	grep -q '\[ok\] each fired exactly once: 1000 events for 1000 tasks' "$tmp/demo"
check "demo: 1000 events woke no worker each" "$tmp/demo" \
	grep -Eq '\[ok\] 1000 events cost the engine [0-2] callback runs and [0-4] worker wakeups' "$tmp/demo"
check "demo: the trace shows one or two alarm runs for 1000 firings" "$tmp/demo" \
	grep -Eq '\[ok\] the trace shows [12] run of the alarm for 1000 firings, all made by this process' "$tmp/demo"
check "demo: cancel removes a queued task at once, query says ENOENT" "$tmp/demo" \
	sh -c "grep -q 'query [0-9]*  *ENOENT' $tmp/demo && grep -q '\\[ok\\] a queued task is removed at once' $tmp/demo"
check "demo: a due periodic task unread is parked" "$tmp/demo" \
	grep -q '\[ok\] a periodic task due and unread is parked and has not run (runs 0)' "$tmp/demo"
check "demo: cancel of a parked task keeps its one event" "$tmp/demo" \
	grep -q '\[ok\] cancelling a parked task fires it once' "$tmp/demo"
check "demo: a due one-shot's cancel is ENOENT, its event comes" "$tmp/demo" \
	grep -q '\[ok\] a due one-shot cannot be cancelled (ENOENT): its event is read' "$tmp/demo"
check "demo: close empties the queue" "$tmp/demo" \
	grep -q '\[ok\] the queue is back to 0 tasks' "$tmp/demo"
check "demo: close wakes no worker" "$tmp/demo" \
	grep -q '\[ok\] closing woke no worker' "$tmp/demo"

dwqctl demo --json >"$out/demo-$workers.json" 2>&1
rc=$?
cp "$out/demo-$workers.json" "$tmp/demoj"
result $rc "demo --json exits 0" "$tmp/demoj"
check "demo --json: every check ok, a final ok object" "$tmp/demoj" \
	sh -c "! grep -q '\"ok\":false' $tmp/demoj && grep -Eq '^\\{\"type\":\"demo\",\"ok\":true,\"checks\":21,\"failed\":0,\"skipped\":0\\}$' $tmp/demoj"

# Ended by SIGINT, the demo takes its tracefs instance with it.
fg_signal INT 0.3 "$tmp/di" "$tmp/di.err" dwqctl demo
left=$(ls -d /sys/kernel/tracing/instances/dwqctl-demo-* \
	/sys/kernel/debug/tracing/instances/dwqctl-demo-* 2>/dev/null)
result "$([ $rc = 130 ] && [ -z "$left" ] && echo 0 || echo 1)" \
	"demo ended by SIGINT: exit 130, its tracefs instance gone (rc $rc${left:+, left: $left})" "$tmp/di"
# The same, SIGINT sent while a file of the instance is open: tracefs
# will not remove an instance in use, so the demo must take the signal
# only once the file is closed. dwq-sigatopen sends it as soon as the
# open of such a file has returned: the first setting, the last, and the
# trace itself.
for f in /buffer_size_kb /events/dwq/dwq_dev_event/enable /trace; do
	dwq-sigatopen INT "$f" dwqctl demo >"$tmp/dio" 2>&1
	rc=$?
	left=$(ls -d /sys/kernel/tracing/instances/dwqctl-demo-* \
		/sys/kernel/debug/tracing/instances/dwqctl-demo-* 2>/dev/null)
	for d in $left; do rmdir "$d"; done
	result "$([ $rc = 130 ] && [ -z "$left" ] && has "$tmp/dio" "^dwq-sigatopen: SIGINT once .*/instances/dwqctl-demo-[0-9]*$f was open" && echo 0 || echo 1)" \
		"demo, SIGINT while its instance's $f is open: exit 130, the instance gone (rc $rc${left:+, left: $left})" "$tmp/dio"
done

# --- stats and watch ----------------------------------------------------

dwqctl stats >"$tmp/st" 2>&1
result $? "stats exits 0" "$tmp/st"
# A worker may still lead toward the deadline of a cancelled task: the
# leader is none or a worker.
check "stats shows the $workers workers and the leader" "$tmp/st" \
	sh -c "grep -q '^  workers  *$workers$' $tmp/st && grep -Eq '^  leader  *(none|[0-9]+) ' $tmp/st"
check "stats shows the limits ENOSPC checks, as the parameters have them" "$tmp/st" \
	sh -c "grep -Eq '^  tasks of all files +[0-9]+ +$(cat /sys/module/dwq/parameters/max_tasks)\$' $tmp/st && grep -Eq '^  firings per second +[0-9]+\.[0-9]{3} +$(cat /sys/module/dwq/parameters/max_rate_per_user)  ' $tmp/st"
dwqctl stats --json >"$tmp/sj" 2>&1
check "stats --json is one object, the leader -1 or a worker" "$tmp/sj" \
	sh -c "test \$(wc -l <$tmp/sj) = 1 && grep -Eq '^\{\"type\":\"stats\",.*\"workers\":$workers,\"leader\":(-1|[0-9]+),' $tmp/sj && grep -q '\"max_tasks_per_file\":$(cat /sys/module/dwq/parameters/max_tasks_per_file),' $tmp/sj"
dwqctl watch 100ms --count 3 >"$tmp/w" 2>&1
rc=$?
result "$([ $rc = 0 ] && [ "$(count "$tmp/w" '^Every 100ms: dwq stats')" = 3 ] && echo 0 || echo 1)" \
	"watch --count 3 redraws 3 times and exits 0" "$tmp/w"
dwqctl --json watch 100ms --count 3 >"$tmp/wj" 2>&1
rc=$?
result "$([ $rc = 0 ] && [ "$(count "$tmp/wj" '^{"type":"stats","refresh":[1-3],"time_ns":"[0-9]*",')" = 3 ] &&
	tail -n 1 "$tmp/wj" | grep -qx '{"type":"end","command":"watch","reason":"count","refreshes":3,"exit_status":0}' && echo 0 || echo 1)" \
	"watch --json --count 3: 3 stats objects, then an end object (reason count)" "$tmp/wj"
dwqctl --json watch 100ms >"$tmp/wt" 2>&1 &
pid=$!
caught $pid TERM
until_ok has_lines "$tmp/wt" '^{"type":"stats",' 2
kill -TERM $pid
wait $pid
rc=$?
result "$([ $rc = 0 ] && [ "$(count "$tmp/wt" '^{"type":"stats",')" -ge 2 ] &&
	tail -n 1 "$tmp/wt" | grep -Eqx '\{"type":"end","command":"watch","reason":"signal","signal":"SIGTERM","refreshes":[0-9]+,"exit_status":0\}' && echo 0 || echo 1)" \
	"watch --json ended by SIGTERM: exit 0, a final end record (rc $rc)" "$tmp/wt"
fg_signal INT 0.5 "$tmp/wi" "$tmp/wi.err" dwqctl --json watch 100ms
result "$([ $rc = 0 ] && tail -n 1 "$tmp/wi" | grep -q '^{"type":"end","command":"watch","reason":"signal","signal":"SIGINT",' && echo 0 || echo 1)" \
	"watch --json ended by SIGINT: exit 0, a final end record (rc $rc)" "$tmp/wi"

# --- after DELAY -- CMD ----------------------------------------------------

dwqctl after 200ms -- sh -c 'echo ran; exit 3' >"$tmp/a1" 2>"$tmp/a1.err"
rc=$?
cat "$tmp/a1" "$tmp/a1.err" >"$out/after-$workers.txt"
result "$(holds [ $rc = 3 ])" "after 200ms -- CMD: the exit status is CMD's, 3 (got $rc)" "$out/after-$workers.txt"
check "after: CMD ran once, its output on stdout" "$out/after-$workers.txt" \
	grep -qx ran "$tmp/a1"
check "after: a report with fired and read lateness, overruns and pid" "$out/after-$workers.txt" \
	grep -Eq '^dwqctl after: run 1: deadline [0-9]+\.[0-9]{9} fired \+[0-9.]+[num]?s read \+[0-9.]+[num]?s overruns 0 pid [0-9]+$' "$tmp/a1.err"
check "after: a failing CMD is reported with its status" "$out/after-$workers.txt" \
	grep -Eq '^dwqctl after: run 1 \(pid [0-9]+\): exit status 3 after ' "$tmp/a1.err"

dwqctl --json after 300ms -- echo hello >"$tmp/a2" 2>"$tmp/a2.err"
rc=$?
cat "$tmp/a2" "$tmp/a2.err" >"$out/after-json-$workers.txt"
result "$(holds [ $rc = 0 ])" "after --json -- echo: exit 0" "$out/after-json-$workers.txt"
check "after --json: stdout holds JSON only, CMD's output went to stderr" "$out/after-json-$workers.txt" \
	sh -c "test \$(grep -c '^{\"type\":\"[a-z]*\",.*}$' $tmp/a2) = \$(wc -l <$tmp/a2) && grep -qx hello $tmp/a2.err"
# lateness = fired - deadline, read_lateness = read - deadline: neither is
# early, the read is not before the firing, and the delay is the one asked.
awk -F'"' '/"type":"firing"/ {
	for (i = 2; i < NF; i += 2) v[$i] = $(i + 2)
	ok = v["lateness_ns"] >= 0 && v["read_lateness_ns"] >= v["lateness_ns"] &&
	     v["fired_ns"] - v["deadline_ns"] == v["lateness_ns"] &&
	     v["read_ns"] - v["deadline_ns"] == v["read_lateness_ns"]
	n++
}
END { exit !(n == 1 && ok) }' "$tmp/a2"
result $? "after --json: one firing record, fired and read not early, lateness = fired - deadline" "$out/after-json-$workers.txt"
check "after --json: ids and *_ns are strings" "$out/after-json-$workers.txt" \
	grep -Eq '^\{"type":"firing","command":"after","firing":1,"run":1,"skipped":false,"pid":[0-9]+,"id":"[0-9]+","deadline_ns":"[0-9]+","fired_ns":"[0-9]+","read_ns":"[0-9]+","lateness_ns":"[0-9]+","read_lateness_ns":"[0-9]+","overruns":0,"worker":[0-9]+\}$' "$tmp/a2"
check "after --json: an exit record, then the end" "$out/after-json-$workers.txt" \
	sh -c "sed -n 2p $tmp/a2 | grep -Eq '^\{\"type\":\"exit\",\"command\":\"after\",\"run\":1,\"pid\":[0-9]+,\"exit_status\":0,\"duration_ns\":\"[0-9]+\"\}$' && sed -n 3p $tmp/a2 | grep -qx '{\"type\":\"end\",\"command\":\"after\",\"reason\":\"done\",\"runs\":1,\"failed\":0,\"firings\":1,\"skipped\":0,\"overruns\":0,\"total_overruns\":0,\"exit_status\":0}'"

dwqctl after 10ms -- /nonexistent/cmd >"$tmp/a3" 2>&1
rc=$?
result "$([ $rc = 127 ] && has "$tmp/a3" 'after: /nonexistent/cmd: ENOENT' && echo 0 || echo 1)" \
	"after -- a command that does not exist: exit 127, ENOENT (got $rc)" "$tmp/a3"

# SIGTERM before the deadline: the timer is cancelled, CMD never runs.
rm -f "$tmp/touched"
dwqctl --json after 60s -- touch "$tmp/touched" >"$tmp/a4" 2>&1 &
pid=$!
caught $pid TERM
kill -TERM $pid
wait $pid
rc=$?
sleep 0.2
result "$([ $rc = 143 ] && [ ! -e "$tmp/touched" ] &&
	tail -n 1 "$tmp/a4" | grep -qx '{"type":"end","command":"after","reason":"signal","signal":"SIGTERM","runs":0,"failed":0,"firings":0,"skipped":0,"overruns":0,"total_overruns":0,"exit_status":143}' &&
	[ "$(queue_size)" = 0 ] && echo 0 || echo 1)" \
	"after 60s, SIGTERM: exit 143, CMD never ran, an end record, the timer gone (rc $rc)" "$tmp/a4"

# SIGTERM while CMD runs: passed on to it; dwqctl waits and returns its status.
dwqctl after 10ms -- sleep 30 >"$tmp/a5" 2>&1 &
pid=$!
caught $pid TERM
child $pid sleep >/dev/null
kill -TERM $pid
wait $pid
rc=$?
result "$([ $rc = 143 ] && has "$tmp/a5" 'killed by SIGTERM' && echo 0 || echo 1)" \
	"after: SIGTERM during CMD is passed on; exit 143, CMD killed by SIGTERM (rc $rc)" "$tmp/a5"

fg_signal INT 0.5 "$tmp/a6" "$tmp/a6.err" dwqctl after 60s -- true
result "$([ $rc = 130 ] && has "$tmp/a6.err" 'stopped by SIGINT before the deadline' && echo 0 || echo 1)" \
	"after 60s, SIGINT: exit 130, says it was stopped before the deadline (rc $rc)" "$tmp/a6.err"

# The device refuses the timer, a delay 1ns past max_delay_ns (EINVAL):
# the error, then an end that says so, not "done"; exit 1, CMD never ran.
past="$(cat /sys/module/dwq/parameters/max_delay_ns)ns 1ns"
rm -f "$tmp/touched"
dwqctl --json after "$past" -- touch "$tmp/touched" >"$tmp/a7" 2>"$tmp/a7.err"
rc=$?
result "$([ $rc = 1 ] && [ ! -e "$tmp/touched" ] &&
	grep -q '^{"type":"error","what":"after: schedule","errno":"EINVAL",' "$tmp/a7" &&
	tail -n 1 "$tmp/a7" | grep -qx '{"type":"end","command":"after","reason":"error","errno":"EINVAL","runs":0,"failed":0,"firings":0,"skipped":0,"overruns":0,"total_overruns":0,"exit_status":1}' && echo 0 || echo 1)" \
	"after --json, a delay past max_delay_ns: EINVAL, an end record with reason error, exit 1 (rc $rc)" "$tmp/a7"
dwqctl after "$past" -- true >"$tmp/a8" 2>&1
rc=$?
result "$([ $rc = 1 ] && has "$tmp/a8" "^dwqctl: after: schedule: EINVAL: the delay .* is beyond the module's maximum" &&
	tail -n 1 "$tmp/a8" | grep -qx 'dwqctl after: stopped by an error (EINVAL): CMD did not run' && echo 0 || echo 1)" \
	"after, a delay past max_delay_ns: EINVAL, the last line says CMD did not run, exit 1 (rc $rc)" "$tmp/a8"

# --- every PERIOD -- CMD ---------------------------------------------------

dwqctl every 100ms --count 3 -- true >"$tmp/e1" 2>&1
rc=$?
cp "$tmp/e1" "$out/every-$workers.txt"
result "$(holds [ $rc = 0 ])" "every 100ms --count 3 -- true: exit 0 (got $rc)" "$tmp/e1"
check "every: runs 1, 2, 3 reported, then a summary" "$tmp/e1" \
	sh -c "test \"\$(sed -n 's/^dwqctl every: run \([0-9]*\): deadline .* overruns [0-9]* pid [0-9]*$/\1/p' $tmp/e1 | tr '\n' ' ')\" = '1 2 3 ' && tail -n 1 $tmp/e1 | grep -q '^dwqctl every: 3 runs, 0 failed; [0-9]* firings, [0-9]* overruns'"

dwqctl --json every 100ms --count 4 -- true >"$tmp/e2" 2>&1
rc=$?
cp "$tmp/e2" "$out/every-json-$workers.txt"
result "$(holds [ $rc = 0 ])" "every --json --count 4: exit 0" "$tmp/e2"
# Fixed rate: every deadline is the first plus a whole number of periods.
awk -F'"' '/"type":"firing"/ {
	for (i = 2; i < NF; i += 2) v[$i] = $(i + 2)
	if (n && (v["deadline_ns"] - d0) % 100000000) bad++
	if (!n) d0 = v["deadline_ns"]
	if (v["lateness_ns"] < 0) bad++
	n++
}
END { exit !(n >= 4 && !bad) }' "$tmp/e2"
result $? "every (fixed rate): deadlines on a 100ms grid, none early" "$tmp/e2"
check "every --json: 4 exit records of status 0, an end record with reason count" "$tmp/e2" \
	sh -c "test \$(grep -c '^{\"type\":\"exit\",\"command\":\"every\",\"run\":[1-4],.*\"exit_status\":0,' $tmp/e2) = 4 && tail -n 1 $tmp/e2 | grep -Eqx '\{\"type\":\"end\",\"command\":\"every\",\"reason\":\"count\",\"runs\":4,\"failed\":0,\"firings\":[0-9]+,\"skipped\":[0-9]+,\"overruns\":[0-9]+,\"total_overruns\":[0-9]+,\"exit_status\":0\}'"

# (n >= 4: a slow guest can make a run outlast the period, and skip one.)
dwqctl --json every 50ms --fixed-delay --count 4 -- true >"$tmp/e3" 2>&1
rc=$?
cp "$tmp/e3" "$out/every-delay-$workers.txt"
awk -F'"' '/"type":"firing"/ {
	for (i = 2; i < NF; i += 2) v[$i] = $(i + 2)
	if (n && v["deadline_ns"] - f < 50000000) bad++
	if (n && (v["deadline_ns"] - d0) % 50000000) offgrid++
	if (!n) d0 = v["deadline_ns"]
	f = v["fired_ns"]
	n++
}
END { exit !(n >= 4 && !bad && offgrid) }' "$tmp/e3"
result "$([ $? = 0 ] && [ $rc = 0 ] && echo 0 || echo 1)" \
	"every --fixed-delay: each deadline at least 50ms after the previous firing, off the grid" "$tmp/e3"

# CMD longer than the period: no overlap, the firings meanwhile skipped.
dwqctl --json every 100ms --count 2 -- sleep 0.45 >"$tmp/e4" 2>"$tmp/e4.err"
rc=$?
cat "$tmp/e4" "$tmp/e4.err" >"$out/every-overlap-$workers.txt"
result "$(holds [ $rc = 0 ])" "every 100ms -- sleep 0.45: exit 0 (got $rc)" "$out/every-overlap-$workers.txt"
awk '/"type":"firing"/ && /"skipped":false/ { if (running) overlap++; running = 1; runs++ }
/"type":"firing"/ && /"skipped":true/ { if (!running) bad++; skipped++ }
/"type":"exit"/ { running = 0 }
END { exit !(runs == 2 && !overlap && !bad && skipped >= 2) }' "$tmp/e4"
result $? "every: runs never overlap; firings while CMD runs are skipped (got $(grep -c '"skipped":true' "$tmp/e4") skipped)" "$out/every-overlap-$workers.txt"
field() { tail -n 1 "$1" | sed -n "s/.*\"$2\":\([0-9]*\)[,}].*/\1/p"; }
sk=$(field "$tmp/e4" skipped) ov=$(field "$tmp/e4" overruns) tot=$(field "$tmp/e4" total_overruns)
result "$([ "${sk:-0}" -ge 2 ] && [ "$tot" = $((sk + ov)) ] && echo 0 || echo 1)" \
	"every: skipped firings count as overruns: total $tot = $sk skipped + $ov in events" "$out/every-overlap-$workers.txt"
dwqctl every 100ms --count 2 -- sleep 0.45 >/dev/null 2>"$tmp/e5"
check "every: a skipped firing says so on stderr" "$tmp/e5" \
	grep -Eq '^dwqctl every: firing [0-9]+ skipped: run 1 still running \(an overrun\); ' "$tmp/e5"

dwqctl every 50ms --count 3 -- sh -c 'exit 4' >"$tmp/e6" 2>&1
rc=$?
result "$([ $rc = 4 ] && [ "$(count "$tmp/e6" 'exit status 4 after')" = 3 ] && has "$tmp/e6" '3 runs, 3 failed' && echo 0 || echo 1)" \
	"every -- a failing CMD: each failure reported, exit 4 (got $rc)" "$tmp/e6"
dwqctl every 50ms -- /nonexistent/cmd >"$tmp/e7" 2>&1
rc=$?
result "$(holds [ $rc = 127 ])" "every -- a command that does not exist: exit 127 at once (got $rc)" "$tmp/e7"

dwqctl --json every 100ms -- true >"$tmp/e8" 2>&1 &
pid=$!
caught $pid TERM
until_ok has_lines "$tmp/e8" '^{"type":"exit",' 3
kill -TERM $pid
wait $pid
rc=$?
result "$([ $rc = 0 ] && tail -n 1 "$tmp/e8" | grep -Eq '^\{"type":"end","command":"every","reason":"signal","signal":"SIGTERM","runs":([3-9]|[1-9][0-9]+),"failed":0,' && [ "$(queue_size)" = 0 ] && echo 0 || echo 1)" \
	"every ended by SIGTERM: exit 0, a final end record, the timer gone (rc $rc)" "$tmp/e8"
fg_signal INT 0.8 "$tmp/e9" "$tmp/e9.err" dwqctl every 100ms -- true
result "$([ $rc = 0 ] && tail -n 1 "$tmp/e9.err" | grep -q '^dwqctl every: stopped by SIGINT: [0-9]* runs, 0 failed' && echo 0 || echo 1)" \
	"every ended by SIGINT: exit 0, a summary (rc $rc)" "$tmp/e9.err"
fg_signal INT child:sleep "$tmp/e10" "$tmp/e10.err" dwqctl every 100ms --first 0 -- sleep 30
result "$([ $rc = 0 ] && has "$tmp/e10.err" 'stopped by SIGINT: 1 runs, 0 failed' && echo 0 || echo 1)" \
	"every: SIGINT during CMD stops both; a run ended by it is not a failure (rc $rc)" "$tmp/e10.err"
# A run that catches the stopping signal and exits with a status of its
# own failed: that status is dwqctl's.
dwqctl every 100ms --first 0 -- sh -c 'trap "kill \$!; exit 3" TERM; sleep 30 & wait' >"$tmp/e11" 2>&1 &
pid=$!
caught $pid TERM
# The run's shell has set its trap once its own child, sleep, is there.
run=$(child $pid sh) && child "$run" sleep >/dev/null
kill -TERM $pid
wait $pid
rc=$?
result "$([ $rc = 3 ] && has "$tmp/e11" 'stopped by SIGTERM: 1 runs, 1 failed' && echo 0 || echo 1)" \
	"every: a run that catches the stopping SIGTERM and exits 3 is a failure: exit 3 (rc $rc)" "$tmp/e11"

# $bad: the first case whose exit status or output is wrong; empty if none.
bad=
for u in "every 1s" "every 1s true" "every 0 -- true" "after -- true" "every 1s --count 0 -- true" "after 5x -- true"; do
	# shellcheck disable=SC2086 # one word per argument
	dwqctl --json $u >"$tmp/u" 2>"$tmp/u.err"
	rc=$?
	[ $rc = 2 ] && grep -q '^{"type":"error","command":"[a-z]*","usage":true,"what":".*","exit_status":2}$' "$tmp/u" || { bad=$u; break; }
done
result "$(holds [ -z "$bad" ])" "after/every usage errors exit 2 with an error object (failed: ${bad:-none}, exit $rc)" "$tmp/u"

if [ "$mode" = all ]; then

# --- dwqctl run: one-shots in deadline order ---------------------------

cat >"$tmp/a.dwq" <<'EOF'
# Three one-shots out of order, one far task cancelled.
schedule 300ms cookie 1
schedule 100ms cookie 2
schedule 200ms cookie 3
schedule 60s cookie 4   # cancelled before it fires
query $4
cancel $4
stats
wait 3 events timeout 20s
stats
EOF
dwqctl run "$tmp/a.dwq" >"$out/run-a.txt" 2>&1
rc=$?
cp "$out/run-a.txt" "$tmp/ra"
result $rc "run: a script of one-shots exits 0" "$tmp/ra"
check "run: four schedules print their ids" "$tmp/ra" \
	test "$(count "$tmp/ra" '^schedule: id [1-9][0-9]*$')" = 4
check "run: query shows a queued one-shot with cookie 4" "$tmp/ra" \
	grep -q '^query [0-9]*: state queued mode oneshot remaining .* cookie 4 runs 0 skipped 0 folded 0 clock monotonic$' "$tmp/ra"
check "run: cancel says removed" "$tmp/ra" \
	grep -q '^cancel [0-9]*: removed: it will not fire$' "$tmp/ra"
check "run: stats before the wait: 3 pending, 1 cancelled" "$tmp/ra" \
	grep -q '^stats: pending 3 fired 0 cancelled 1 ' "$tmp/ra"
grep '^event ' "$tmp/ra" | awk '{ print $5 }' | tr '\n' ' ' >"$tmp/cookies"
check "run: events in deadline order, cookies 2 3 1 (got: $(cat "$tmp/cookies"))" "$tmp/ra" \
	grep -qx '2 3 1 ' "$tmp/cookies"
check "run: every event is a last one, not early, nothing skipped or folded" "$tmp/ra" \
	test "$(count "$tmp/ra" '^event id [0-9]* cookie [0-9] deadline [0-9]*\.[0-9]\{9\} lateness +[0-9.]*[num]*s skipped 0 folded 0 worker [0-9]* flags last$')" = 3
check "run: wait reports 3 events" "$tmp/ra" \
	grep -q '^wait: 3 events in ' "$tmp/ra"
check "run: stats after the wait: nothing pending, 3 fired" "$tmp/ra" \
	grep -q '^stats: pending 0 fired 3 cancelled 1 coalesced 0 events 0 ' "$tmp/ra"

# --- dwqctl run: periodic, reschedule, errors --------------------------

cat >"$tmp/b.dwq" <<'EOF'
schedule 50ms rate 100ms cookie 7
wait 3 events timeout 20s
query $1
reschedule $1 60s
query $last
cancel $1
cancel 999999
schedule 1s every 10us
schedule 1s
echo still here
EOF
dwqctl run -k "$tmp/b.dwq" >"$tmp/rb" 2>"$tmp/rb.err"
rc=$?
cat "$tmp/rb" "$tmp/rb.err" >"$out/run-b.txt"
# Ids are the device's to choose: take the first one from the output.
id=$(sed -n 's/^schedule: id \([0-9]*\)$/\1/p' "$tmp/rb" | head -n 1)
result "$([ $rc = 1 ] && echo 0 || echo 1)" "run -k: failing commands make the exit status 1, not more (got $rc)" "$out/run-b.txt"
check "run: a fixed-rate task fires 3 times, flags -" "$out/run-b.txt" \
	test "$(count "$tmp/rb" "^event id $id cookie 7 .* flags -$")" = 3
check "run: query shows the fixed-rate task with its runs" "$out/run-b.txt" \
	grep -q "^query $id: state [a-z]* mode fixed-rate .* period 100ms cookie 7 runs [3-9]" "$tmp/rb"
check "run: reschedule moves it 60s ahead, same id" "$out/run-b.txt" \
	sh -c "grep -q '^reschedule $id: moved: due in 60s$' $tmp/rb && grep -q '^query $id: state queued mode fixed-rate remaining [56][0-9]\.*[0-9]*s' $tmp/rb"
# Due again when it was moved, it kept that firing's event: unread then.
check "run: cancel of the periodic task says removed, or unread" "$out/run-b.txt" \
	grep -Eq "^cancel $id: (removed: it will not fire again|unread: it will not fire again; its last event is still to read)$" "$tmp/rb"
check "run: cancel of an unknown id names ENOENT and the line" "$out/run-b.txt" \
	grep -q "^dwqctl: $tmp/b.dwq:7: cancel 999999: ENOENT: no such task in this file$" "$tmp/rb.err"
check "run: a period below the minimum names EINVAL and min_period_ns" "$out/run-b.txt" \
	grep -q "^dwqctl: $tmp/b.dwq:8: schedule 1s every 10us: EINVAL: the period 10us is below the module's minimum, min_period_ns=" "$tmp/rb.err"
check "run -k goes on after errors" "$out/run-b.txt" \
	sh -c "test \$(grep -c '^schedule: id' $tmp/rb) = 2 && grep -q '^still here$' $tmp/rb"

# The cancel of a one-shot of this run that came due says so, not that
# the file has no such task.
printf 'schedule 10ms\nsleep 100ms\ncancel $1\n' >"$tmp/d.dwq"
dwqctl run "$tmp/d.dwq" >"$tmp/rd" 2>"$tmp/rd.err"
rc=$?
cat "$tmp/rd" "$tmp/rd.err" >"$out/run-due.txt"
result "$([ $rc = 1 ] && grep -qx "dwqctl: $tmp/d.dwq:3: cancel [0-9]*: ENOENT: this run's one-shot has come due: its event is read()'s, not cancel's" "$tmp/rd.err" && echo 0 || echo 1)" \
	"run: cancel of its own one-shot come due: ENOENT, says it is due, exit 1 (rc $rc)" "$out/run-due.txt"

# run -k: a schedule that failed still counts; $N or $last naming it is an
# error, not another task's id: cookie 1's task is not cancelled.
printf 'schedule 60s cookie 1\nschedule 1s every 10us\ncancel $last\nquery $2\nquery $1\nschedule 60s cookie 3\ncancel $3\n' >"$tmp/f.dwq"
dwqctl run -k "$tmp/f.dwq" >"$tmp/rf" 2>"$tmp/rf.err"
rc=$?
cat "$tmp/rf" "$tmp/rf.err" >"$out/run-failed.txt"
result "$([ $rc = 1 ] && [ "$(count "$tmp/rf.err" '^dwqctl: ')" = 3 ] &&
	grep -qxF "dwqctl: $tmp/f.dwq:3: cancel \$last: schedule 2 of this run failed: no task" "$tmp/rf.err" &&
	grep -qxF "dwqctl: $tmp/f.dwq:4: query \$2: schedule 2 of this run failed: no task" "$tmp/rf.err" && echo 0 || echo 1)" \
	"run -k: \$last and \$2 after a failed schedule 2 are errors that say so, exit 1 (rc $rc)" "$out/run-failed.txt"
id3=$(sed -n 's/^schedule: id \([0-9]*\)$/\1/p' "$tmp/rf" | sed -n 2p)
result "$(grep -q '^query [0-9]*: state queued mode oneshot remaining .* cookie 1 runs 0 ' "$tmp/rf" &&
	[ "$(count "$tmp/rf" '^cancel ')" = 1 ] && grep -qx "cancel $id3: removed: it will not fire" "$tmp/rf" && echo 0 || echo 1)" \
	"run -k: after a failed schedule 2, \$1 is still cookie 1's task (queued), \$3 the third schedule's ($id3)" "$out/run-failed.txt"

# A reschedule keeps the task's clock and reads that clock for now+D;
# boottime and monotonic move it (DWQ_SCHED_BOOTTIME, DWQ_RESCHED_MONOTONIC)
# and now+D is then on the new one. The remaining times below hold on
# either clock; the unit tests show which clock is read; here, the clock
# each line leaves.
cat >"$tmp/clk.dwq" <<'EOF'
schedule 60s boottime
reschedule $1 now+30s
query $1
reschedule $1 now+20s monotonic
query $1
reschedule $1 now+10s boottime
query $1
reschedule 999999 now+1s
EOF
dwqctl run -k "$tmp/clk.dwq" >"$tmp/rclk" 2>"$tmp/rclk.err"
rc=$?
cat "$tmp/rclk" "$tmp/rclk.err" >"$out/run-clock.txt"
# Each query: its whole seconds remaining and its clock.
clk=$(sed -n 's/^query [0-9]*: state queued mode oneshot remaining \([0-9]*\)[.0-9]*s .* clock \([a-z]*\)$/\1 \2/p' "$tmp/rclk" | tr '\n' ' ')
result "$(echo "$clk" | awk '{ exit !(NF == 6 && $1 >= 25 && $1 <= 30 && $2 == "boottime" &&
	$3 >= 15 && $3 <= 20 && $4 == "monotonic" && $5 >= 5 && $5 <= 10 && $6 == "boottime") }' && echo 0 || echo 1)" \
	"run: reschedule now+D keeps a CLOCK_BOOTTIME task's clock; monotonic and boottime move it (got: $clk)" "$out/run-clock.txt"
result "$([ $rc = 1 ] && grep -qx "dwqctl: $tmp/clk.dwq:8: reschedule 999999: ENOENT: no such task in this file" "$tmp/rclk.err" &&
	[ "$(grep -c '^reschedule [0-9]*: moved: deadline ' "$tmp/rclk")" = 3 ] && echo 0 || echo 1)" \
	"run: reschedule of an unknown id now+1s: ENOENT, named with its line, exit 1 (rc $rc)" "$out/run-clock.txt"

# A fixed-rate task read late: its event counts the periods skipped
# (10ms, then every 50ms; read after 400ms: about 7 skipped).
printf 'schedule 10ms rate 50ms cookie 9\nsleep 400ms\nwait 1 events timeout 20s\nquery $1\n' >"$tmp/k.dwq"
dwqctl run "$tmp/k.dwq" >"$tmp/rk" 2>&1
cp "$tmp/rk" "$out/run-k.txt"
check "run: a fixed-rate task read late counts its skipped periods, in the event and the query" "$out/run-k.txt" \
	sh -c "grep -q '^event id [0-9]* cookie 9 .* skipped [1-9][0-9]* folded 0 worker [0-9]* flags -$' $tmp/rk && grep -q '^query [0-9]*: .* runs 1 skipped [1-9][0-9]* folded 0 clock monotonic$' $tmp/rk"

# ENOSPC names the limit that refused, from the file's STATS: the file's
# (two tasks allowed, a third refused) and the user's firing rate (one a
# second allowed, ten refused). The limits are put back after.
p=/sys/module/dwq/parameters
old_file=$(cat $p/max_tasks_per_file) old_rate=$(cat $p/max_rate_per_user)
echo 2 >$p/max_tasks_per_file
printf 'schedule 60s\nschedule 60s\nschedule 60s\n' >"$tmp/s.dwq"
dwqctl run "$tmp/s.dwq" >"$tmp/rs" 2>&1
echo "$old_file" >$p/max_tasks_per_file
cp "$tmp/rs" "$out/run-enospc.txt"
check "run: ENOSPC names the file's limit and its count" "$out/run-enospc.txt" \
	grep -q "^dwqctl: $tmp/s.dwq:3: schedule 60s: ENOSPC: too many pending tasks: this file holds 2, max_tasks_per_file=2$" "$tmp/rs"
echo 1 >$p/max_rate_per_user
dwqctl every 100ms -- true >"$tmp/re" 2>&1
rc=$?
dwqctl --json every 100ms -- true >"$tmp/rej" 2>/dev/null
rcj=$?
echo "$old_rate" >$p/max_rate_per_user
cp "$tmp/re" "$out/every-enospc.txt"
cp "$tmp/rej" "$out/every-enospc.json"
result "$([ $rc = 1 ] && grep -q 'ENOSPC: too many firings per second: your periodic tasks fire 0.000 times a second, this one would add 10.000, max_rate_per_user=1$' "$tmp/re" && echo 0 || echo 1)" \
	"every: ENOSPC names the rate limit (got $rc)" "$out/every-enospc.txt"
check "every: ENOSPC: the summary says an error stopped it" "$out/every-enospc.txt" \
	sh -c "tail -n 1 $tmp/re | grep -qx 'dwqctl every: stopped by an error (ENOSPC): 0 runs, 0 failed; 0 firings, 0 overruns (0 skipped while CMD ran, 0 in events)'"
result "$([ $rcj = 1 ] && grep -q '^{"type":"error","what":"every: schedule","errno":"ENOSPC",' "$tmp/rej" &&
	tail -n 1 "$tmp/rej" | grep -qx '{"type":"end","command":"every","reason":"error","errno":"ENOSPC","runs":0,"failed":0,"firings":0,"skipped":0,"overruns":0,"total_overruns":0,"exit_status":1}' && echo 0 || echo 1)" \
	"every --json: ENOSPC: an end record with reason error, exit 1 (got $rcj)" "$out/every-enospc.json"

# A timeout near 2^64 ns waits (it does not wrap to no time at all); a
# script that cannot be read is an error, not an empty script; a bad line
# is a usage error object with its line under --json.
printf 'schedule 100ms\nwait 1 events timeout 18446744073709551615ns\n' |
	dwqctl run - >"$tmp/rw" 2>&1
result "$([ $? = 0 ] && grep -q '^event id ' "$tmp/rw" && echo 0 || echo 1)" \
	"run: wait with a timeout of 2^64-1 ns waits for the event" "$tmp/rw"
dwqctl run /tmp >"$tmp/rdir" 2>&1
result "$([ $? = 1 ] && grep -qx 'dwqctl: run: /tmp: EISDIR: Is a directory' "$tmp/rdir" && echo 0 || echo 1)" \
	"run: a directory as the script is EISDIR, exit 1" "$tmp/rdir"
printf 'echo ok\nbogus\n' | dwqctl --json run - >"$tmp/rj2" 2>/dev/null
result "$([ $? = 2 ] && grep -q '^{"type":"error","line":2,"command":"run","usage":true,"what":"<stdin>:2: unknown command .bogus.' "$tmp/rj2" && echo 0 || echo 1)" \
	"run --json: a bad line is a usage error object with its line" "$tmp/rj2"
# CMD's end is seen with SIGCHLD ignored on entry (inherited across exec).
timeout -s KILL 20 dwq-sigign CHLD dwqctl after 10ms -- true >"$tmp/chld" 2>&1
result "$([ $? = 0 ] && echo 0 || echo 1)" \
	"after: CMD's end is seen with SIGCHLD ignored on entry" "$tmp/chld"

# Without -k the first failure stops the run; a bad line stops it before
# anything runs (exit 2).
printf 'cancel 5\necho not reached\n' >"$tmp/c.dwq"
dwqctl run "$tmp/c.dwq" >"$tmp/rc" 2>&1
rc=$?
result "$([ $rc = 1 ] && ! grep -q 'not reached' "$tmp/rc" && echo 0 || echo 1)" \
	"run stops at the first failure, exit 1 (got $rc)" "$tmp/rc"
printf 'echo first\nschedule 300\n' >"$tmp/d.dwq"
dwqctl run "$tmp/d.dwq" >"$tmp/rd" 2>&1
rc=$?
result "$([ $rc = 2 ] && ! grep -q '^first' "$tmp/rd" && grep -q "d.dwq:2: schedule: '300' has no unit" "$tmp/rd" && echo 0 || echo 1)" \
	"run: a bad line is a usage error before anything runs (got $rc)" "$tmp/rd"

# --- run from stdin, --json --------------------------------------------

printf 'schedule 10ms cookie 0x10\nwait 1 event timeout 20s\nstats\n' |
	dwqctl run --json - >"$tmp/rj" 2>&1
rc=$?
cp "$tmp/rj" "$out/run-json.txt"
result $rc "run --json from stdin exits 0" "$tmp/rj"
check "run --json: one object per line, each with a type and a line" "$tmp/rj" \
	sh -c "test \$(grep -c '^{\"type\":\"[a-z]*\",\"line\":[1-3],.*}$' $tmp/rj) = \$(wc -l <$tmp/rj)"
check "run --json: the event has cookie \"16\", string ids and times, flags [\"last\"]" "$tmp/rj" \
	grep -q '^{"type":"event","line":2,"id":"[1-9][0-9]*","cookie":"16","deadline_ns":"[0-9]*","fired_ns":"[0-9]*","lateness_ns":"[0-9]*","overruns":0,"skipped":0,"folded":0,"worker":[0-9]*,"flags":\["last"\]}$' "$tmp/rj"

# --- schedule, cancel ID..., removed commands, errors ---------------------

dwqctl schedule 100ms cookie 5 >"$tmp/s1" 2>&1
rc=$?
result $rc "schedule (no --wait needed) exits 0" "$tmp/s1"
check "schedule prints the id, then the one event" "$tmp/s1" \
	sh -c "sed -n 1p $tmp/s1 | grep -q '^schedule: id [1-9][0-9]*$' && sed -n 2p $tmp/s1 | grep -q '^event id [1-9][0-9]* cookie 5 .* flags last$' && sed -n 3p $tmp/s1 | grep -q '^wait: 1 event in '"
dwqctl schedule 20ms rate 50ms --count 3 --timeout 20s --wait >"$tmp/s2" 2>&1
result "$([ $? = 0 ] && [ "$(count "$tmp/s2" '^event id')" = 3 ] && echo 0 || echo 1)" \
	"schedule rate --count 3 (--wait still accepted) prints 3 events" "$tmp/s2"
dwqctl schedule 1s cookie 010 >"$tmp/s3" 2>&1
result "$([ $? = 2 ] && has "$tmp/s3" "leading 0 is ambiguous" && echo 0 || echo 1)" \
	"cookie 010 is refused, not read as octal 8" "$tmp/s3"
dwqctl --json schedule 10ms every 1h30m --count 1 >"$tmp/s4" 2>&1
result "$([ $? = 0 ] && has "$tmp/s4" '"type":"event"' && echo 0 || echo 1)" \
	"schedule every 1h30m: a systemd-style duration is taken" "$tmp/s4"
dwqctl schedule 10ms --count 2 >"$tmp/s5" 2>&1
result "$([ $? = 2 ] && has "$tmp/s5" "a one-shot has one event" && echo 0 || echo 1)" \
	"schedule of a one-shot with --count 2 is refused, not a wait for ever" "$tmp/s5"

bad=
for c in cancel query; do
	dwqctl $c 7 >"$tmp/g" 2>&1
	rc=$?
	[ $rc = 2 ] && has "$tmp/g" "'$c' is gone: a task belongs to the file that scheduled it" || { bad=$c; break; }
done
result "$(holds [ -z "$bad" ])" "cancel and query alone are gone: exit 2, they say why and point to run (failed: ${bad:-none}, exit $rc)" "$tmp/g"

# cancel ID... in a run: one CANCEL_BATCH, one line per id, in order.
printf 'schedule 60s\nschedule 60s\ncancel 7777 $1 8888 $2\n' >"$tmp/cb.dwq"
dwqctl run -k "$tmp/cb.dwq" >"$tmp/cb" 2>&1
rc=$?
grep -E '^(dwqctl: .*)?cancel' "$tmp/cb" | sed 's/^dwqctl: [^ ]*:3: //' | cut -d: -f1,2 | tr '\n' '|' >"$tmp/cbs"
result "$([ $rc = 1 ] && [ "$(cat "$tmp/cbs")" = 'cancel 7777: ENOENT|cancel 1: removed|cancel 8888: ENOENT|cancel 2: removed|' ] && echo 0 || echo 1)" \
	"run: cancel 7777 \$1 8888 \$2: four results in order, the unknown ids ENOENT, exit 1 ($(cat "$tmp/cbs"))" "$tmp/cb"
printf 'cancel 7 8\n' | dwqctl --json run - >"$tmp/cj" 2>/dev/null
rc=$?
result "$([ $rc = 1 ] && [ "$(count "$tmp/cj" '^{"type":"error","line":1,"what":"<stdin>:1: cancel [78]","errno":"ENOENT",')" = 2 ] && echo 0 || echo 1)" \
	"run --json: cancel 7 8: two error objects, exit 1" "$tmp/cj"
printf 'cancel 7 x 9\n' | dwqctl run - >"$tmp/c5" 2>&1
rc=$?
result "$([ $rc = 2 ] && has "$tmp/c5" "'x' is not a task" && ! has "$tmp/c5" ENOENT && echo 0 || echo 1)" \
	"run: cancel 7 x 9: a usage error before anything is cancelled, exit 2" "$tmp/c5"
dwqctl schedule 1.5parsecs >"$tmp/u1" 2>&1
rc=$?
result "$([ $rc = 2 ] && grep -q "unknown unit 'parsecs'" "$tmp/u1" && echo 0 || echo 1)" \
	"a bad duration is a usage error, exit 2" "$tmp/u1"
dwqctl --json schedule 1.5parsecs >"$tmp/u2" 2>/dev/null
rc=$?
result "$([ $rc = 2 ] && grep -qx '{"type":"error","command":"schedule","usage":true,"what":".*unknown unit .parsecs.*","exit_status":2}' "$tmp/u2" && [ "$(wc -l <"$tmp/u2")" = 1 ] && echo 0 || echo 1)" \
	"--json: a usage error is one error object on stdout, exit 2" "$tmp/u2"
dwqctl --json frobnicate >"$tmp/u3" 2>/dev/null
result "$([ $? = 2 ] && grep -qx '{"type":"error","command":"","usage":true,"what":"unknown command .frobnicate.","exit_status":2}' "$tmp/u3" && echo 0 || echo 1)" \
	"--json: an unknown command is an error object, exit 2" "$tmp/u3"
dwqctl --json run "$(printf '/tmp/no\377such')" >"$tmp/u4" 2>/dev/null
result "$([ $? = 1 ] && grep -q '"what":"run: /tmp/no\\ufffdsuch"' "$tmp/u4" && echo 0 || echo 1)" \
	"--json: invalid UTF-8 in a file name is written as \\ufffd" "$tmp/u4"
dwqctl --device >"$tmp/u5" 2>&1
result "$([ $? = 2 ] && grep -qx "dwqctl: --device needs a path" "$tmp/u5" && grep -qx "Try 'dwqctl --help'." "$tmp/u5" && echo 0 || echo 1)" \
	"--device without a path before the command is dwqctl's own usage error, exit 2" "$tmp/u5"
dwqctl --version >"$tmp/v" 2>&1
result "$([ $? = 0 ] && grep -Eqx 'dwqctl [0-9]+\.[0-9]+\.[0-9]+' "$tmp/v" && echo 0 || echo 1)" \
	"--version: dwqctl X.Y.Z ($(cat "$tmp/v"))" "$tmp/v"
dwqctl stats --version >"$tmp/v2" 2>&1
result "$([ $? = 0 ] && cmp -s "$tmp/v" "$tmp/v2" && echo 0 || echo 1)" \
	"--version after a command, as its help lists it: the same line" "$tmp/v2"
dwqctl --device /nonexistent run / >"$tmp/rd" 2>&1
result "$([ $? = 1 ] && grep -qx 'dwqctl: run: /: EISDIR: Is a directory' "$tmp/rd" && echo 0 || echo 1)" \
	"run of a directory: EISDIR, said before the device is opened, exit 1" "$tmp/rd"

# SIGINT during a run: with --json, a last "end" record, then death by it.
printf 'schedule 60s\nwait\n' >"$tmp/w.dwq"
fg_signal INT 0.5 "$tmp/ri" "$tmp/ri.err" dwqctl --json run "$tmp/w.dwq"
result "$([ $rc = 130 ] && tail -n 1 "$tmp/ri" | grep -qx '{"type":"end","command":"run","reason":"signal","signal":"SIGINT","exit_status":130}' && echo 0 || echo 1)" \
	"run --json interrupted by SIGINT: a final end record, exit 130 (rc $rc)" "$tmp/ri"
printf 'schedule 60s\nsleep 60s\n' >"$tmp/s.dwq"
dwqctl --json run "$tmp/s.dwq" >"$tmp/rt" 2>&1 &
pid=$!
caught $pid TERM
kill -TERM $pid
wait $pid
rc=$?
result "$([ $rc = 143 ] && tail -n 1 "$tmp/rt" | grep -q '^{"type":"end","command":"run","reason":"signal","signal":"SIGTERM",' && [ "$(queue_size)" = 0 ] && echo 0 || echo 1)" \
	"run --json ended by SIGTERM: a final end record, exit 143, its tasks gone (rc $rc)" "$tmp/rt"

# --- EACCES: a user who may not open the device -------------------------

# busybox su needs the user in /etc/passwd; the guest has none of its own.
for f in passwd group; do [ -e /etc/$f ] && cp /etc/$f "$tmp/$f.saved"; done
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
echo 'nogroup:x:65534:' >>/etc/group
su -s /bin/sh nobody -c "dwqctl stats" >"$tmp/p1" 2>&1
rc=$?
cp "$tmp/p1" "$out/eacces.txt"
result "$([ $rc = 1 ] && has "$tmp/p1" '^dwqctl: /dev/dwq: EACCES: permission denied: /dev/dwq is mode 0600, uid 0, gid 0; members of group "dwq" may use it once the udev rule 60-dwq.rules is installed' && has "$tmp/p1" 'mode=0666' && echo 0 || echo 1)" \
	"EACCES as a user: the hint names the mode, group dwq, the udev rule and mode= (rc $rc)" "$tmp/p1"
echo 'dwq:x:4242:' >>/etc/group
chgrp 4242 /dev/dwq && chmod 0660 /dev/dwq
su -s /bin/sh nobody -c "dwqctl --json stats" >"$tmp/p2" 2>/dev/null
rc=$?
chgrp 0 /dev/dwq && chmod 0600 /dev/dwq
result "$([ $rc = 1 ] && grep -q '^{"type":"error","what":"/dev/dwq","errno":"EACCES","errno_value":13,"cause":"permission denied: /dev/dwq is mode 0660, uid 0, gid 4242 (group dwq); its users are the members of group \\"dwq\\": sudo usermod -aG dwq \$USER' "$tmp/p2" && echo 0 || echo 1)" \
	"EACCES, device of group dwq: the --json cause says to join group dwq (rc $rc)" "$tmp/p2"
for f in passwd group; do
	if [ -e "$tmp/$f.saved" ]; then cp "$tmp/$f.saved" /etc/$f; else rm -f /etc/$f; fi
done

# --- EMFILE: a user's files past max_files_per_user ---------------------

# The shell holds one file; with max_files_per_user=1 dwqctl's is refused.
old_files=$(cat $p/max_files_per_user)
echo 1 >$p/max_files_per_user
exec 9<>/dev/dwq
dwqctl stats >"$tmp/mf" 2>&1
rc=$?
exec 9<&-
echo "$old_files" >$p/max_files_per_user
cp "$tmp/mf" "$out/emfile.txt"
result "$([ $rc = 1 ] && has "$tmp/mf" '^dwqctl: /dev/dwq: EMFILE: too many files open: ' && has "$tmp/mf" 'max_files_per_user' && echo 0 || echo 1)" \
	"EMFILE past max_files_per_user: the cause names the limit (rc $rc)" "$tmp/mf"

dwqctl bench --ops 100 --reps 1 --json >"$tmp/bj" 2>&1
rc=$?
cp "$tmp/bj" "$out/bench.json"
result "$([ $rc = 0 ] && for f in F2 F4b F6 F7; do grep -q "\"figure\":\"$f\"" "$tmp/bj" || exit 1; done && echo 0 || echo 1)" \
	"bench runs every figure at a tiny size (exit $rc)" "$tmp/bj"

fi

if [ $n != $PLAN ]; then
	echo "# planned $PLAN tests, ran $n"
	failed=$((failed + 1))
fi
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
