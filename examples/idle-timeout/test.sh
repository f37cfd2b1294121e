#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# test.sh - the idle-timeout sample (dwq_idle_timeout.ko, idle_timeout.c)
# in a guest with dwq.ko loaded: make check runs it in the debug guest
# (KASAN, UBSAN, lockdep, kmemleak). TAP output; busybox sh.
#
#   tools/testing/vm-run --kernel debug --add examples/idle-timeout/test.sh \
#       -- sh $PWD/examples/idle-timeout/test.sh
#
# Loads the sample with 512 connections, waits (on a condition, bounded)
# until every closer has closed and every idle and quiet connection has
# timed out, and checks each connection's line of debugfs against its role
# (see idle_timeout.c); then unloads it and checks what teardown logged.
# A run in which the host stalled the guest so long that it left most
# connections unchecked is checked too, and followed by another.
# Loads it again with every timeout made to sleep (hold_ms) and unloads it
# while one does, so that teardown's dwq_cancel_sync() must wait for a
# running callback before it frees the connection (a callback that ran on
# after the free would be a KASAN report). Loads it a third time with a
# packet coming as each first idle run begins (rx_in_run), so that the
# callback's stale branch runs. Then checks the kernel log and kmemleak.

. /dwq/tap.sh
ko=/dwq/dwq_idle_timeout.ko
dbg=/sys/kernel/debug/dwq_idle_timeout
kmemleak=/sys/kernel/debug/kmemleak
conns=512 idle_ms=1000 run_ms=2000 seed=1
idle_ns=$((idle_ms * 1000000))
# Far above run_ms + idle_ms; only a lost timeout gets near it.
settle_s=120

# Never leave the module loaded: the jobs after this one reload dwq.ko.
trap 'rm -rf "$tmp"; grep -q "^dwq_idle_timeout " /proc/modules && rmmod dwq_idle_timeout' EXIT

tap_plan 20
echo "# kernel $(uname -r); conns=$conns idle_ms=$idle_ms run_ms=$run_ms seed=$seed"

# Bad parameters: refused, with a message, and nothing stays loaded.
for p in conns=0 idle_ms=5; do
	echo "dwq_idle_timeout test: $p" >/dev/kmsg
	if insmod $ko $p >"$tmp/bad" 2>&1; then
		rmmod dwq_idle_timeout
		r=1
	else
		dmesg | sed -n "/dwq_idle_timeout test: $p/,\$p" >>"$tmp/bad"
		grep -q 'dwq_idle_timeout: .*out of range' "$tmp/bad" &&
			! grep -q '^dwq_idle_timeout ' /proc/modules
		r=$?
	fi
	result $r "insmod $p is refused with a message, nothing loaded" "$tmp/bad"
done

[ -w $kmemleak ] && echo clear >$kmemleak
echo "dwq_idle_timeout test: start" >/dev/kmsg
start=$(date +%s)

# Only a guest stalled for idle_ms (by its host) starves a connection, and
# the checks below skip those it starved: a run that leaves most of the
# busy and closer connections unchecked is run again, with the next seed,
# up to $attempts runs. Every run is checked; the coverage is the last's.
attempts=3
# covered CONNS-FILE: at least half of its busy and closer connections had
# no gap of idle_ms; prints how many.
covered() {
	awk -v idle=$idle_ns '!/^#/ && ($2 == "busy" || $2 == "closer") { n++; if ($10 < idle) k++ }
		END { print "# " k + 0 " of " n + 0 " busy and closer connections had no gap of idle_ms";
		      exit !(n > 0 && k * 2 >= n) }' "$1"
}
# Columns: id role state packets moved requeued dropped fired stale
# max_gap_ns late_ns fin overdue; each condition is that of a bad line.
# One run timed each out; any other was stale, found the deadline moved by
# a packet that came while it was due. Only an overdue packet, one past the
# deadline (a stalled guest sends them), can do that, and only such a packet
# can find the task taken off the queue (requeued beyond the open's one).
bad_timeout='($2 == "idle" || $2 == "quiet") && ($3 != "timed_out" || $8 != $9 + 1 || $9 > $13 || $6 - 1 > $13 || $12 != "-")'
bad_idle='$2 == "idle" && ($4 != 1 || $6 != 1 || $5 != 0)'
bad_fired='($2 == "busy" || $2 == "closer") && $10 < idle && ($8 != 0 || $3 == "timed_out")'
bad_moved='($2 == "busy" || $2 == "closer") && $10 < idle && ($6 != 1 || $5 != $4 - 1 || ($2 == "busy" && $4 < 2))'
bad_fin='$2 == "closer" && $10 < idle && ($3 != "closed" || $12 != "removed")'
# wait_stats REGEX: wait, up to settle_s, for a line of the loaded
# sample's stats that matches REGEX.
wait_stats() {
	i=0
	while [ $i -lt $((settle_s * 2)) ]; do
		grep -q "$1" $dbg/stats 2>/dev/null && return
		sleep 0.5
		i=$((i + 1))
	done
}
# bad CONDITION FILE...: the lines of FILE... that break CONDITION.
bad() {
	c=$1
	shift
	awk -v idle=$idle_ns "!/^#/ && ($c)" "$@"
}

: >"$tmp/all-conns"
: >"$tmp/all-stats"
: >"$tmp/rmmod"
: >"$tmp/insmod"
rm_rc=0
a=1
while :; do
	echo "dwq_idle_timeout test: run $a" >/dev/kmsg
	echo "# run $a: seed=$seed" >>"$tmp/insmod"
	insmod $ko conns=$conns idle_ms=$idle_ms run_ms=$run_ms seed=$seed >>"$tmp/insmod" 2>&1
	ins_rc=$?
	[ $ins_rc = 0 ] || break
	# Settled: every closer closed, every idle and quiet connection timed out.
	wait_stats '^unsettled 0$'
	cat $dbg/stats >"$tmp/stats" 2>&1
	cat $dbg/conns >"$tmp/conns" 2>&1
	cat "$tmp/stats" >>"$tmp/all-stats"
	cat "$tmp/conns" >>"$tmp/all-conns"
	sed 's/^/# /' "$tmp/stats"
	covered "$tmp/conns" >"$tmp/cover"
	cover_rc=$?
	cat "$tmp/cover"
	# The last run, or one that covered enough, stays loaded for the
	# checks below; so does one that did not settle.
	[ $cover_rc = 0 ] || [ $a = $attempts ] && break
	grep -q '^unsettled 0$' "$tmp/stats" || break
	echo "# run $a: the guest stalled for idle_ms; again with seed $((seed + 1))"
	rmmod dwq_idle_timeout >>"$tmp/rmmod" 2>&1 || rm_rc=1
	dmesg | sed -n "/dwq_idle_timeout test: run $a\$/,\$p" |
		grep 'dwq_idle_timeout: closed and freed' >>"$tmp/rmmod"
	a=$((a + 1))
	seed=$((seed + 1))
done
echo "# $a run(s) of at most $attempts"
result $ins_rc "insmod conns=$conns idle_ms=$idle_ms run_ms=$run_ms" "$tmp/insmod"

[ "$(grep -c '^unsettled 0$' "$tmp/all-stats")" = $a ]
result $? "every closer closed and every idle and quiet connection timed out, within ${settle_s}s" "$tmp/stats"
[ "$(grep -c '^mod_errors 0$' "$tmp/all-stats")" = $a ]
result $? "dwq_mod() never failed (room reserved for every task)" "$tmp/all-stats"
[ "$(grep -vc '^#' "$tmp/conns")" = $conns ]
result $? "debugfs lists $conns connections" "$tmp/conns"

# Connection i plays role i % 4: the checks below look at every role.
awk -v q=$((conns / 4)) '!/^#/ { n[$2]++ }
	END { for (r in n) print "# " n[r] " " r; exit !(n["busy"] == q &&
		n["closer"] == q && n["idle"] == q && n["quiet"] == q) }' \
	"$tmp/conns" >"$tmp/roles"
result $? "each of the four roles has $((conns / 4)) connections" "$tmp/roles"
check() {	# check NAME CONDITION: every run's connections
	bad "$2" "$tmp/all-conns" >"$tmp/bad"
	[ ! -s "$tmp/bad" ]
	result $? "$1" "$tmp/bad"
}
check "idle and quiet connections timed out exactly once, none early" "$bad_timeout"
check "idle connections got no packet but the open" "$bad_idle"
check "busy and closer connections with packets under idle_ms apart never fired" "$bad_fired"
check "their every packet found the timeout queued and moved it (dwq_mod() 1)" "$bad_moved"
check "closers under idle_ms apart were closed by their FIN, which removed the queued timeout" "$bad_fin"
result $cover_rc "at least half of the busy and closer connections were covered" "$tmp/cover"
awk '!/^#/ && $2 == "quiet" { n++; if ($13) k++; s += $9 }
	END { print "# " k + 0 " of " n + 0 " quiet connections got an overdue packet, " s + 0 " runs were stale" }' "$tmp/conns"
awk '!/^#/ && $3 == "timed_out" && $11 > m { m = $11 } END { print "# latest timeout: " m / 1000 " us past its deadline" }' "$tmp/conns"
open=$(awk '!/^#/ && $3 == "open"' "$tmp/conns" | wc -l)

rmmod dwq_idle_timeout >>"$tmp/rmmod" 2>&1 || rm_rc=1
dmesg >"$tmp/dmesg"
sed -n "/dwq_idle_timeout test: run $a\$/,\$p" "$tmp/dmesg" |
	grep 'dwq_idle_timeout: closed and freed' >>"$tmp/rmmod"
sed 's/^/# /' "$tmp/rmmod"
[ $rm_rc = 0 ] && [ "$(grep -c "closed and freed $conns connections: [0-9]* open, [1-9][0-9]* of them cancelled while queued, 0 not queued before their deadline" "$tmp/rmmod")" = $a ]
result $? "rmmod: all $conns freed after dwq_cancel_sync(), the open ones' timeouts found queued (${open} open at the last look)" "$tmp/rmmod"

# Again, every timeout sleeping 5 s before it looks: rmmod once one does
# (seconds for the rmmod to come while it sleeps, on a slow guest too).
insmod $ko conns=16 idle_ms=100 run_ms=100 seed=2 hold_ms=5000 >"$tmp/insmod2" 2>&1
r=$?
[ $r = 0 ] && wait_stats '^holding [1-9]'
cat $dbg/stats >>"$tmp/insmod2" 2>&1
grep -q '^holding [1-9]' "$tmp/insmod2"
result $? "insmod hold_ms=5000: a timeout runs, asleep" "$tmp/insmod2"
echo "dwq_idle_timeout test: hold" >/dev/kmsg
rmmod dwq_idle_timeout >"$tmp/rmmod2" 2>&1
r=$?
dmesg | sed -n '/dwq_idle_timeout test: hold/,$p' | grep 'dwq_idle_timeout: closed and freed' >>"$tmp/rmmod2"
sed 's/^/# /' "$tmp/rmmod2"
[ $r = 0 ] && grep -q "closed and freed 16 connections: .*; [1-9][0-9]* waited for a running timeout" "$tmp/rmmod2"
result $? "rmmod then: dwq_cancel_sync() waited for the running timeout, then freed all 16" "$tmp/rmmod2"

# Again, with a packet as each connection's first idle run begins
# (rx_in_run), where otherwise only a stalled guest sends one: that run
# finds the deadline moved, is stale and arms the task again; the next
# run, idle_ms after that packet, times the connection out.
echo "dwq_idle_timeout test: stale" >/dev/kmsg
insmod $ko conns=64 idle_ms=100 run_ms=200 seed=3 rx_in_run=1 >"$tmp/insmod3" 2>&1
r=$?
[ $r = 0 ] && wait_stats '^unsettled 0$'
cat $dbg/stats >>"$tmp/insmod3" 2>&1
cat $dbg/conns >"$tmp/conns3" 2>&1
[ $r = 0 ] && grep -q '^unsettled 0$' "$tmp/insmod3"
result $? "insmod rx_in_run=1: every closer closed and every idle and quiet connection timed out" "$tmp/insmod3"
rmmod dwq_idle_timeout >"$tmp/rmmod3" 2>&1 || echo "rmmod failed" >>"$tmp/rmmod3"
dmesg | sed -n '/dwq_idle_timeout test: stale/,$p' | grep 'dwq_idle_timeout: closed and freed' >>"$tmp/rmmod3"
sed 's/^/# /' "$tmp/rmmod3"
# Each idle connection: the open and that packet (which found the task
# running and queued it again, overdue), two runs, the first stale.
bad_stale='($2 == "idle" || $2 == "quiet") && $9 < 1'
bad_stale_idle='$2 == "idle" && ($4 != 2 || $6 != 2 || $5 != 0 || $8 != 2 || $9 != 1 || $13 != 1)'
{
	bad "$bad_timeout" "$tmp/conns3"
	bad "$bad_stale" "$tmp/conns3"
	bad "$bad_stale_idle" "$tmp/conns3"
	grep -vc '^#' "$tmp/conns3" | grep -vx 64
	grep -q 'dwq_idle_timeout: closed and freed 64 connections' "$tmp/rmmod3" ||
		cat "$tmp/rmmod3"
} >"$tmp/bad"
[ ! -s "$tmp/bad" ]
result $? "a packet as the first run began made that run stale; the next timed out, once; rmmod freed all 64" "$tmp/bad"

dmesg >"$tmp/dmesg"
sed -n '/dwq_idle_timeout test: start/,$p' "$tmp/dmesg" >"$tmp/log"
grep -E 'WARNING:|BUG:|KASAN|UBSAN|lockdep|possible .*deadlock|circular locking|Call Trace' "$tmp/log" >"$tmp/splat"
[ ! -s "$tmp/splat" ]
result $? "kernel log since the first insmod: no warning, KASAN or lockdep report" "$tmp/splat"

if [ -w $kmemleak ]; then
	# kmemleak reports only objects older than 5 s, and only those it
	# finds unreferenced and unchanged in two scans (a first scan sees
	# every object as changed, from its initial checksum): scan twice.
	now=$(date +%s)
	[ $((now - start)) -lt 6 ] && sleep $((6 - (now - start)))
	echo scan >$kmemleak
	echo scan >$kmemleak
	cat $kmemleak >"$tmp/leaks"
	[ ! -s "$tmp/leaks" ]
	result $? "kmemleak after rmmod: no suspect" "$tmp/leaks"
else
	result 0 "kmemleak after rmmod # SKIP no kmemleak in this kernel"
fi
[ $failed = 0 ]
