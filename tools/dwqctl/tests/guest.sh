#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# guest.sh - dwqctl's own tests, run inside a guest with dwq.ko loaded
# (busybox sh). TAP output; the exit status is 1 if a test failed.
#
#   tools/testing/vm-run --kernel stock --modparam workers=4 \
#       --add tools/dwqctl/tests/guest.sh -- sh $PWD/tools/dwqctl/tests/guest.sh
#
# The demo's tests need workers=4 and are skipped otherwise. Outputs are
# kept in $DWQ_OUT/dwqctl/ (the host gets them back from vm-run).

PLAN=48
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

skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

has() { grep -q -- "$2" "$1"; }
count() { grep -c -- "$2" "$1"; }

# --- the demo ---------------------------------------------------------

workers=$(cat /sys/module/dwq/parameters/workers 2>/dev/null)
if [ "$workers" = 4 ]; then
	dwqctl demo >"$out/demo.txt" 2>&1
	rc=$?
	cp "$out/demo.txt" "$tmp/demo"
	result $rc "demo exits 0: every check held" "$tmp/demo"
	check "demo says all checks held" "$tmp/demo" \
		grep -q '^All [0-9]* checks held\.$' "$tmp/demo"
	check "demo shows no [FAILED] check" "$tmp/demo" \
		sh -c "! grep -q '^   \\[FAILED\\]' $tmp/demo"
	check "demo: idle workers have no leader" "$tmp/demo" \
		grep -q '^   leader  *none' "$tmp/demo"
	check "demo: the task ran on the leader" "$tmp/demo" \
		grep -q '\[ok\] the task ran on the leader, worker [0-3] (the event says worker [0-3])' "$tmp/demo"
	check "demo: the idle workers never woke" "$tmp/demo" \
		grep -q '\[ok\] the other 3 workers never woke' "$tmp/demo"
	check "demo: three tasks ran once each" "$tmp/demo" \
		grep -q '\[ok\] each ran exactly once: 3 events for 3 tasks' "$tmp/demo"
	awk '/tasks queued +capacity/ { t = 1; next } t && NF == 2 { print $2 } t && NF != 2 { t = 0 }' \
		"$tmp/demo" | tr '\n' ' ' >"$tmp/caps"
	check "demo: capacity 16 24 36 54 (got: $(cat "$tmp/caps"))" "$tmp/demo" \
		grep -qx '16 24 36 54 ' "$tmp/caps"
	check "demo: cancel removes at once, query says ENOENT" "$tmp/demo" \
		sh -c "grep -q 'query [0-9]*  *ENOENT' $tmp/demo && grep -q '\[ok\] the cancelled task left the heap at once' $tmp/demo"
	check "demo: close empties the queue" "$tmp/demo" \
		grep -q '\[ok\] the queue is back to 0 tasks' "$tmp/demo"

	dwqctl demo --json >"$out/demo.json" 2>&1
	rc=$?
	cp "$out/demo.json" "$tmp/demoj"
	result $rc "demo --json exits 0" "$tmp/demoj"
	check "demo --json: every check ok, a final ok object" "$tmp/demoj" \
		sh -c "! grep -q '\"ok\":false' $tmp/demoj && grep -q '^{\"type\":\"demo\",\"ok\":true,\"checks\":1[0-9],\"failed\":0}$' $tmp/demoj"
else
	i=0
	while [ $i -lt 12 ]; do
		skip "demo test $((i + 1))" "dwq.ko has workers=$workers, the demo needs 4"
		i=$((i + 1))
	done
fi

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
	grep -q '^query [0-9]*: state queued mode oneshot remaining .* cookie 4 runs 0 overruns 0 clock monotonic$' "$tmp/ra"
check "run: cancel says removed" "$tmp/ra" \
	grep -q '^cancel [0-9]*: removed: it will not fire$' "$tmp/ra"
check "run: stats before the wait: 3 pending, 1 cancelled" "$tmp/ra" \
	grep -q '^stats: pending 3 fired 0 cancelled 1 ' "$tmp/ra"
grep '^event ' "$tmp/ra" | awk '{ print $5 }' | tr '\n' ' ' >"$tmp/cookies"
check "run: events in deadline order, cookies 2 3 1 (got: $(cat "$tmp/cookies"))" "$tmp/ra" \
	grep -qx '2 3 1 ' "$tmp/cookies"
check "run: every event is a last one, not early, no overruns" "$tmp/ra" \
	test "$(count "$tmp/ra" '^event id [0-9]* cookie [0-9] deadline [0-9]*\.[0-9]\{9\} lateness +[0-9.]*[num]*s overruns 0 worker [0-3] flags last$')" = 3
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
check "run: cancel of the periodic task says removed" "$out/run-b.txt" \
	grep -q "^cancel $id: removed: it will not fire again$" "$tmp/rb"
check "run: cancel of an unknown id names ENOENT and the line" "$out/run-b.txt" \
	grep -q "^dwqctl: $tmp/b.dwq:7: cancel 999999: ENOENT: no such task in this file$" "$tmp/rb.err"
check "run: a period below the minimum names EINVAL and min_period_ns" "$out/run-b.txt" \
	grep -q "^dwqctl: $tmp/b.dwq:8: schedule 1s every 10us: EINVAL: the period 10us is below the module's minimum, min_period_ns=" "$tmp/rb.err"
check "run -k goes on after errors" "$out/run-b.txt" \
	sh -c "test \$(grep -c '^schedule: id' $tmp/rb) = 2 && grep -q '^still here$' $tmp/rb"

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
	grep -q '^{"type":"event","line":2,"id":"[1-9][0-9]*","cookie":"16","deadline_ns":"[0-9]*","fired_ns":"[0-9]*","lateness_ns":"[0-9]*","overruns":0,"worker":[0-9]*,"flags":\["last"\]}$' "$tmp/rj"

# --- one-off commands ---------------------------------------------------

dwqctl schedule 100ms cookie 5 --wait >"$tmp/s1" 2>&1
rc=$?
result $rc "schedule --wait exits 0" "$tmp/s1"
check "schedule --wait prints the id, then the one event" "$tmp/s1" \
	sh -c "sed -n 1p $tmp/s1 | grep -q '^schedule: id [1-9][0-9]*$' && sed -n 2p $tmp/s1 | grep -q '^event id [1-9][0-9]* cookie 5 .* flags last$' && sed -n 3p $tmp/s1 | grep -q '^wait: 1 event in '"
dwqctl schedule 20ms rate 50ms --count 3 --timeout 20s >"$tmp/s2" 2>&1
result $? "schedule rate --count 3 prints 3 events" "$tmp/s2"
dwqctl cancel 7 >"$tmp/c1" 2>&1
rc=$?
result "$([ $rc = 1 ] && grep -q '^dwqctl: cancel 7: ENOENT: no such task in this file$' "$tmp/c1" && echo 0 || echo 1)" \
	"cancel 7 in a new file: ENOENT, exit 1" "$tmp/c1"
# Several ids go in one CANCEL_BATCH, 1024 at most: one line per id, in
# order, as for one id, and the hint once.
dwqctl cancel 7 8 9 >"$tmp/c3" 2>&1
rc=$?
result "$([ $rc = 1 ] && [ "$(grep '^dwqctl: cancel' "$tmp/c3" | tr '\n' ' ')" = 'dwqctl: cancel 7: ENOENT: no such task in this file dwqctl: cancel 8: ENOENT: no such task in this file dwqctl: cancel 9: ENOENT: no such task in this file ' ] && [ "$(count "$tmp/c3" '^dwqctl: hint:')" = 1 ] && echo 0 || echo 1)" \
	"cancel 7 8 9 in a new file: three ENOENT lines in order, one hint, exit 1" "$tmp/c3"
dwqctl cancel --json 7 8 >"$tmp/c4" 2>/dev/null
rc=$?
result "$([ $rc = 1 ] && [ "$(count "$tmp/c4" '^{"type":"error","what":"cancel [78]","errno":"ENOENT",')" = 2 ] && echo 0 || echo 1)" \
	"cancel --json 7 8: two error objects, exit 1" "$tmp/c4"
dwqctl cancel 7 x 9 >"$tmp/c5" 2>&1
rc=$?
result "$([ $rc = 2 ] && has "$tmp/c5" "'x' is not a task" && ! has "$tmp/c5" ENOENT && echo 0 || echo 1)" \
	"cancel 7 x 9: a usage error before anything is cancelled, exit 2" "$tmp/c5"
dwqctl cancel $(seq 1 1100) >"$tmp/c6" 2>&1
rc=$?
result "$([ $rc = 1 ] && [ "$(count "$tmp/c6" '^dwqctl: cancel [0-9]*: ENOENT: ')" = 1100 ] && has "$tmp/c6" '^dwqctl: cancel 1100: ENOENT' && [ "$(count "$tmp/c6" '^dwqctl: hint:')" = 1 ] && echo 0 || echo 1)" \
	"cancel of 1100 ids (two batches): 1100 ENOENT lines, exit 1" "$tmp/c6"
dwqctl schedule 1.5parsecs >"$tmp/u1" 2>&1
rc=$?
result "$([ $rc = 2 ] && grep -q "unknown unit 'parsecs'" "$tmp/u1" && echo 0 || echo 1)" \
	"a bad duration is a usage error, exit 2" "$tmp/u1"

dwqctl stats >"$tmp/st" 2>&1
result $? "stats exits 0" "$tmp/st"
# A worker may still lead toward the deadline of a cancelled task: the
# leader is none or a worker.
check "stats shows the workers and the leader" "$tmp/st" \
	sh -c "grep -q '^  workers  *$workers$' $tmp/st && grep -Eq '^  leader  *(none|[0-9]+) ' $tmp/st"
dwqctl stats --json >"$tmp/sj" 2>&1
check "stats --json is one object, the leader -1 or a worker" "$tmp/sj" \
	sh -c "test \$(wc -l <$tmp/sj) = 1 && grep -Eq '^\{\"type\":\"stats\",.*\"workers\":$workers,\"leader\":(-1|[0-9]+),' $tmp/sj"
dwqctl watch 100ms --count 3 >"$tmp/w" 2>&1
rc=$?
result "$([ $rc = 0 ] && [ "$(count "$tmp/w" '^Every 100ms: dwq stats')" = 3 ] && echo 0 || echo 1)" \
	"watch --count 3 redraws 3 times and exits 0" "$tmp/w"

dwqctl bench --ops 100 --reps 1 --json >"$tmp/bj" 2>&1
rc=$?
cp "$tmp/bj" "$out/bench.json"
result "$([ $rc = 0 ] && for f in F2 F4b F5 F6 F7; do grep -q "\"figure\":\"$f\"" "$tmp/bj" || exit 1; done && echo 0 || echo 1)" \
	"bench runs every figure at a tiny size (exit $rc)" "$tmp/bj"

if [ $n != $PLAN ]; then
	echo "# planned $PLAN tests, ran $n"
	failed=$((failed + 1))
fi
echo "# $((n - failed)) passed, $failed failed"
[ $failed = 0 ]
