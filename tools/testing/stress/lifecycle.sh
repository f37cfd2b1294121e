#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle and fault-injection tests of dwq.ko, in the debug guest, which
# must be started without dwq loaded:
#
#   vm-run --kernel debug --no-load --add lifecycle.sh -- sh lifecycle.sh \
#          [CYCLES [FAULT_SECONDS [HOLD_TASKS]]]      (defaults 50, 15, 100000)
#
# 1. bad module parameters are refused at load, with a message naming them,
#    and the writable limits in sysfs too;
# 2. a process holding HOLD_TASKS tasks (8 periodic): `rmmod dwq` is
#    refused while its file is open, and dwq keeps working; SIGKILL cancels
#    every task (STATS of a fresh file: all_tasks and the user's
#    user_tasks back to 0 from HOLD_TASKS) and slab usage comes back to
#    where it was after insmod; then rmmod works, and slab usage is back
#    to its baseline before insmod;
# 3. CYCLES rounds of insmod (workers 1, 2, 4, 8, 64) -> traffic -> close ->
#    rmmod leave no module, no /dev/dwq and no slab growth behind;
# 4. failslab and fail_page_alloc restricted to dwq.ko's text: every
#    allocation of batches that grow the heap failed in turn (fail-nth;
#    every task a file kept through them fires once before it is closed),
#    and of a batch cancel (nothing cancelled until it works), then dwq-stress with 10% of the allocations failing: only ENOMEM, the
#    ledger exact, and dwq still works once injection stops. Before that,
#    with the filter on all module text (dwq's address is not known before
#    it loads), every allocation of dwq's init failed in turn (fail-nth):
#    each failed load leaves no module, no /dev/dwq and no thread.
# vm-run scans kmemleak after the script (the module is unloaded by then).
#
# Slab figures are /proc/meminfo's Slab after every cache was shrunk (which
# also empties KASAN's quarantine); SLAB_TOL_KB is the tolerance for what
# the rest of the system allocates meanwhile.

. /dwq/tap.sh

cycles=${1:-50} fsecs=${2:-15} ntasks=${3:-100000}
ko=/dwq/dwq.ko
SLAB_TOL_KB=${SLAB_TOL_KB:-1024}
dbg=/sys/kernel/debug

# Bad parameters: each must fail insmod and leave a message naming it.
# '+' joins the parameters of one load. (dwq-lifecycle load, because
# busybox insmod loads the module twice when it fails.) The writable
# limits are also tried through sysfs, where the same setters refuse them.
bad_params="workers=0 workers=1000 max_tasks=-1 min_period_ns=0
min_period_ns=2000000000+max_delay_ns=1000000000 mode=0999 mode=01000"
bad_sysfs="max_tasks=0 max_tasks=-1 max_tasks_per_file=-1
max_tasks_per_file=0x min_period_ns=0 min_period_ns=-1 max_delay_ns=0
max_delay_ns=1e9 max_tasks_per_user=0 max_tasks_per_user=-1
min_period_ns=31622400000000001 max_delay_ns=99999"
nbad=$(echo $bad_params | wc -w)

tap_plan $((nbad + 14))

# Give every slab cache's free memory back, then print Slab in kB.
slab_kb() {
	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

loaded() { grep -q '^dwq ' /proc/modules; }

# STATS of a fresh file into $all (all_tasks: every user's tasks) and
# $user (user_tasks: this user's); both empty if dwqctl failed, which
# the output, in FILE, then says.
charges() {
	dwqctl --json stats >"$1" 2>&1
	all=$(sed -n 's/.*"all_tasks":\([0-9]*\).*/\1/p' "$1")
	user=$(sed -n 's/.*"user_tasks":\([0-9]*\).*/\1/p' "$1")
}

# The kernel log since the last mark (other jobs may share this boot:
# the log is never cleared).
marks=0
mark() {
	marks=$((marks + 1))
	echo "dwq-lifecycle: mark $marks" >/dev/kmsg
}
since_mark() { dmesg | sed -n "/dwq-lifecycle: mark $marks\$/,\$p"; }

t0=$(date +%s)
took() {	# took WHAT: print the seconds since the last call
	t=$(date +%s)
	echo "# $1 took $((t - t0)) s"
	t0=$t
}

# --- 1. bad parameters
for p in $bad_params; do
	mark
	dwq-lifecycle load $ko "$(echo "$p" | tr + ' ')" >"$tmp/insmod" 2>&1
	rc=$?
	since_mark >"$tmp/dmesg"
	cat "$tmp/dmesg" >>"$tmp/insmod"
	name=${p%%=*}
	st=0
	if [ $rc = 0 ] || loaded; then
		st=1
		rmmod dwq
	fi
	# The kernel's message, not ours, must name the parameter.
	msg=$(grep "dwq: .*$name" "$tmp/dmesg" | head -n 1)
	[ -n "$msg" ] || st=1
	result $st "insmod dwq.ko $(echo "$p" | tr + ' ') is refused: $msg" "$tmp/insmod"
done

took "bad parameters"

# --- 2. a big holder, rmmod while open, SIGKILL
base=$(slab_kb)
insmod $ko workers=2 max_tasks_per_file=$((ntasks + 1024))
result $? "insmod dwq.ko workers=2 max_tasks_per_file=$((ntasks + 1024))"
loaded_base=$(slab_kb)

st=0
: >"$tmp/sysfs"
for p in $bad_sysfs; do
	f=/sys/module/dwq/parameters/${p%%=*}
	old=$(cat "$f")
	mark
	if echo "${p#*=}" 2>>"$tmp/sysfs" >"$f"; then
		echo "$p: the write worked" >>"$tmp/sysfs"
		st=1
	fi
	[ "$(cat "$f")" = "$old" ] || st=1
	since_mark | grep -q "${p%%=*}=${p#*=}: must be" || st=1
	since_mark >>"$tmp/sysfs"
done
result $st "writing bad limits to sysfs is refused with a message: $(echo $bad_sysfs)" "$tmp/sysfs"

dwq-lifecycle hold "$ntasks" 8 >"$tmp/hold" 2>&1 &
holder=$!
# Bounded only against a hang: 100k tasks take minutes on a loaded host.
i=0
while ! grep -q '^holding' "$tmp/hold" && [ $i -lt 6000 ] &&
	kill -0 $holder 2>/dev/null; do
	sleep 0.2
	i=$((i + 1))
done
size=$(awk '$1 == "size" { print $2 }' $dbg/dwq/stats)
peak=$(slab_kb)
# The tasks are the file's (fdinfo's dwq-pending); the queue holds at most
# its alarm (none once the periodic ones are due, unread).
held=
for f in /proc/$holder/fd/*; do
	[ "$(readlink "$f")" = /dev/dwq ] &&
		held=$(awk '$1 == "dwq-pending:" { print $2 }' /proc/$holder/fdinfo/"${f##*/}")
done
# What the limits count, through a file of its own (the holder's user is
# this script's): every task of the holder, so that the same reading
# after the SIGKILL is seen to count what it must find gone.
charges "$tmp/charges"
hall=$all huser=$user
cat "$tmp/charges" >>"$tmp/hold"
[ "${held:-0}" = "$ntasks" ] && [ "${size:-9}" -le 1 ] &&
	[ "$hall" = "$ntasks" ] && [ "$huser" = "$ntasks" ]
result $? "a process holds $ntasks tasks (8 periodic): pending $held, queue size $size, all_tasks $hall, user_tasks $huser" "$tmp/hold"

rmmod dwq >"$tmp/rmmod" 2>&1
rc=$?
st=0
[ $rc != 0 ] && loaded || st=1
dwq-lifecycle traffic >>"$tmp/rmmod" 2>&1 || st=1
result $st "rmmod dwq while a file is open is refused (exit $rc); dwq still works" "$tmp/rmmod"

kill -9 $holder
wait $holder 2>/dev/null
# The queue's size says nothing here: a file's tasks are in its own heap.
# Its file closed, every task the holder had must be gone from the
# counts, and their memory with them while dwq is still loaded (rmmod
# below destroys dwq's caches, whatever they held).
charges "$tmp/charges"
killed=$(slab_kb)
echo "# slab: after insmod ${loaded_base} kB, holding ${peak} kB," \
	"after SIGKILL ${killed} kB (tolerance ${SLAB_TOL_KB} kB)"
[ "$all" = 0 ] && [ "$user" = 0 ] &&
	[ $((killed - loaded_base)) -le "$SLAB_TOL_KB" ]
result $? "SIGKILL of the holder cancels all its tasks: all_tasks $hall -> $all, user_tasks $huser -> $user, slab $loaded_base -> $peak -> $killed kB" "$tmp/charges"

rmmod dwq >"$tmp/rmmod" 2>&1
st=$?
[ -e /dev/dwq ] && st=1
loaded && st=1
result $st "after close rmmod dwq succeeds, /dev/dwq is gone" "$tmp/rmmod"

after=$(slab_kb)
echo "# slab: baseline ${base} kB, holding ${ntasks} tasks ${peak} kB," \
	"after SIGKILL and rmmod ${after} kB (tolerance ${SLAB_TOL_KB} kB)"
[ $((after - base)) -le "$SLAB_TOL_KB" ] && [ $((peak - base)) -gt $((ntasks / 10)) ]
result $? "slab back to its baseline: $base -> $peak -> $after kB"

took "holding $ntasks tasks, rmmod, SIGKILL"

# --- 3. load/unload cycles
base=$(slab_kb)
st=0
: >"$tmp/cycles"
i=0
while [ $i -lt "$cycles" ]; do
	set -- 1 2 4 8 64
	shift $((i % 5))
	w=$1
	i=$((i + 1))
	if ! insmod $ko workers=$w >>"$tmp/cycles" 2>&1; then
		echo "cycle $i: insmod workers=$w failed" >>"$tmp/cycles"
		st=1
		break
	fi
	if [ ! -c /dev/dwq ] || [ "$(cat /sys/module/dwq/parameters/workers)" != $w ]; then
		echo "cycle $i: no /dev/dwq or workers != $w" >>"$tmp/cycles"
		st=1
	fi
	dwq-lifecycle traffic >>"$tmp/cycles" 2>&1 || st=1
	rmmod dwq >>"$tmp/cycles" 2>&1 || st=1
	if loaded || [ -e /dev/dwq ] || [ -e /sys/module/dwq ]; then
		echo "cycle $i: something left after rmmod" >>"$tmp/cycles"
		st=1
	fi
	[ $st = 0 ] || break
done
after=$(slab_kb)
result $st "$i cycles of insmod (workers 1/2/4/8/64), traffic, close, rmmod" "$tmp/cycles"
echo "# slab: before the cycles ${base} kB, after ${after} kB"
[ $((after - base)) -le "$SLAB_TOL_KB" ]
result $? "slab after $i cycles: $base -> $after kB"

took "$i load/unload cycles"

# --- 4. fault injection
# inject PROBABILITY: stacks through [$start, $end) but none through
# [$rstart, $rend) (addresses in hex).
rstart=0 rend=0
inject() {
	for a in failslab fail_page_alloc; do
		d=$dbg/$a
		echo 0 >$d/verbose
		echo N >$d/ignore-gfp-wait
		echo 0x$start >$d/require-start
		echo 0x$end >$d/require-end
		echo 0x$rstart >$d/reject-start
		echo 0x$rend >$d/reject-end
		echo 32 >$d/stacktrace-depth
		echo N >$d/task-filter
		echo 1 >$d/interval
		echo -1 >$d/times
		echo 0 >$d/space
		echo "$1" >$d/probability
	done
	# Order 0 too (vmalloc's pages); user pages (highmem) never.
	echo 0 >$dbg/fail_page_alloc/min-order
	echo Y >$dbg/fail_page_alloc/ignore-gfp-highmem
}

# Loads with each allocation of dwq's init failed in turn. Before the
# load, dwq's text has no address: the filter takes every stack through
# module text, above the kernel image's last symbol (a stack while dwq
# loads reaches no other module's). Not those through the creation of a
# slab cache: __kmem_cache_create_args() dumps the stack when it fails,
# which the log check takes for a bug (the kernel's symbols are listed in
# address order: the next one ends it).
start=$(awk 'NF == 3 { print $1 }' /proc/kallsyms | sort | tail -n 1)
end=ffffffffffffffff
set -- $(awk '$3 == "__kmem_cache_create_args" { s = $1; next }
	s && $1 != s { print s, $1; exit }' /proc/kallsyms)
rstart=${1:-0} rend=${2:-0}
inject 0
limited 600 dwq-lifecycle loadfail $ko workers=2 >"$tmp/loadfail" 2>&1
st=$?
[ "$rend" != 0 ] || { echo "no __kmem_cache_create_args" >>"$tmp/loadfail"; st=1; }
result $st "every allocation of dwq's init failed in turn (fail-nth): each load ENOMEM, nothing left behind" "$tmp/loadfail"
grep '^dwq-lifecycle:' "$tmp/loadfail" | sed 's/^/# /'
rstart=0 rend=0
took "fail-nth loads"

insmod $ko workers=4
result $? "insmod dwq.ko workers=4 for fault injection"

# The stack filter: only allocations with dwq.ko's text on the stack fail.
syms=$(awk '$4 == "[dwq]" && ($2 == "t" || $2 == "T") { print $1 }' /proc/kallsyms | sort)
start=$(echo "$syms" | head -n 1)
end=$(printf '%x' $((0x$(echo "$syms" | tail -n 1) + 0x10000)))
echo "# fault injection: require-start 0x$start require-end 0x$end"

inject 0
# A limit far above the debug guest's few seconds: only a stall reaches it.
limited 600 dwq-lifecycle failnth >"$tmp/failnth" 2>&1
result $? "every allocation of heap-growing bursts and of a batch cancel failed in turn: ENOMEM, heap and ledger intact, every task kept fires once; a parked task's cancel allocates nothing, its event exact" "$tmp/failnth"
grep '^dwq-lifecycle:' "$tmp/failnth" | sed 's/^/# /'
took "fail-nth bursts"

inject 10
limited $((fsecs * 2 + 120)) dwq-stress --duration "$fsecs" --threads 8 --enomem-ok \
	>"$tmp/stress" 2>&1
rc=$?
inject 0
enomem=$(sed -n 's/.* enomem=\([0-9]*\).*/\1/p' "$tmp/stress")
grep -E '^(scheduled=|dwq-stress: (periodic|seed))' "$tmp/stress" | sed 's/^/# /'
[ $rc = 0 ] && [ "${enomem:-0}" -gt 0 ]
result $? "dwq-stress ${fsecs}s with 10% of dwq's allocations failing: ledger exact, enomem=$enomem" "$tmp/stress"

dwq-lifecycle traffic >"$tmp/after" 2>&1 && rmmod dwq >>"$tmp/after" 2>&1
result $? "without injection dwq works again, and unloads" "$tmp/after"
took "stress under fault injection"

[ $failed = 0 ]
