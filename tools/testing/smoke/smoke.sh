#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke.sh - the short integration smoke every supported kernel runs
# (make check runs it in the stock 6.1 guest): schedule, fire, cancel,
# close, through /dev/dwq with dwqctl. TAP output; busybox sh.
#
#   tools/testing/vm-run --kernel stock-6.1 --add tools/testing/smoke/smoke.sh \
#       -- sh $PWD/tools/testing/smoke/smoke.sh

. /dwq/tap.sh
tap_plan 8

echo "# kernel $(uname -r)"
test -c /dev/dwq
result $? "/dev/dwq is a character device" /dev/null

# Every parameter is readable under /sys/module/dwq/parameters.
ok=0
for p in mode workers max_tasks_per_file max_tasks min_period_ns max_delay_ns; do
	v=$(cat /sys/module/dwq/parameters/$p 2>&1) || ok=1
	echo "$p=$v"
done >"$tmp/params"
result $ok "the six parameters are readable under /sys/module/dwq/parameters" "$tmp/params"

# One open file: a one-shot that fires, one cancelled before its deadline,
# a periodic one left for close() to cancel.
cat >"$tmp/script" <<'SCRIPT'
schedule 50ms cookie 1
schedule 10s cookie 2
schedule 20ms every 20ms cookie 3
cancel $2
wait 3 events timeout 5s
query $3
SCRIPT
dwqctl run "$tmp/script" >"$tmp/run" 2>&1
result $? "dwqctl run: schedule, cancel, fire exits 0" "$tmp/run"
grep -q '^cancel 2: removed' "$tmp/run"
result $? "a queued task is removed by cancel" "$tmp/run"
[ "$(grep -c '^event id 1 ' "$tmp/run")" = 1 ] &&
	grep -q '^event id 1 cookie 1 .*flags last' "$tmp/run"
result $? "the one-shot fired once, its event marked last" "$tmp/run"
[ "$(grep -c '^event id 3 cookie 3 ' "$tmp/run")" -ge 1 ]
result $? "the periodic task fired" "$tmp/run"

# dwqctl has exited, so its file is closed: the periodic task must be gone.
# A file's tasks are in its own heap, not the queue (which held only the
# file's alarm), so the tasks counted over all files must be back at 0.
dwqctl --json stats >"$tmp/stats" 2>&1
grep -q '"all_tasks":0[,}]' "$tmp/stats" &&
	grep -q '"user_tasks":0[,}]' "$tmp/stats" &&
	grep -q '"queue_size":0[,}]' "$tmp/stats"
result $? "close() cancelled the periodic task: no task counted, the queue empty" "$tmp/stats"

# The tracepoints work on this kernel too: one traced firing.
tr=/sys/kernel/tracing
if [ -d $tr/events/dwq ]; then
	echo >$tr/trace
	echo 1 >$tr/events/dwq/dwq_fire/enable
	dwqctl schedule 20ms --wait >"$tmp/fire" 2>&1
	echo 0 >$tr/events/dwq/dwq_fire/enable
	cat $tr/trace >>"$tmp/fire"
	grep -q 'dwq_fire:.* worker=[0-9]* deadline=[0-9]* lateness=[0-9]*$' "$tmp/fire"
	result $? "tracefs: dwq:dwq_fire records a firing" "$tmp/fire"
else
	ls -R $tr >"$tmp/tr" 2>&1
	result 1 "tracefs: no $tr/events/dwq" "$tmp/tr"
fi

[ $failed = 0 ]
