#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in a dwq guest (tools/testing/vm-run --add this file) for
# tools/bench/run (`make bench`) and make check's bench step: records the
# environment, runs the in-kernel figures (dwq_bench.ko: F1, F3, F4a, F8)
# and the user-space ones (dwqctl bench: F2, F4b, F6, F7; dwq-ubench,
# /dev/dwq against timerfd, io_uring and a user-space heap: F2b, F4c, F5,
# F7b; and F9, one unprivileged user at dwq's limits in a cgroup of its
# own, for which dwq-ubench makes /dev/dwq 0666, mounts cgroup2 if it is
# not, and undoes both), and leaves everything in $DWQ_OUT/bench for
# tools/bench/report.
#
# usage: guest.sh full|tiny
#   full  dwq_bench.ko scale=full; dwqctl bench --ops 10000 --reps 5;
#         dwq-ubench --scale full --reps 5
#   tiny  dwq_bench.ko scale=tiny reps=1; dwqctl bench --ops 50 --reps 1;
#         dwq-ubench --scale tiny --reps 1
#         (proves the pipeline works; the numbers mean nothing)
#
# Files: env.txt (key=value), kernel.csv (the module's results, when it
# exists), kernel.log (what it logged), user.jsonl (dwqctl bench --json),
# ubench.jsonl (dwq-ubench --json), status.txt (key=exit status of each
# part), *.stderr. The exit status is non-zero if a part failed.

scale=${1:-full}
out=${DWQ_OUT:-/out}/bench
ko=/dwq/dwq_bench.ko
results=/sys/kernel/debug/dwq_bench/results
rc=0

case $scale in
full) kparams="scale=full" uparams="--ops 10000 --reps 5" ubparams="--scale full --reps 5" ;;
tiny) kparams="scale=tiny reps=1" uparams="--ops 50 --reps 1" ubparams="--scale tiny --reps 1" ;;
*) echo "guest.sh: full or tiny, not '$scale'" >&2; exit 2 ;;
esac
mkdir -p "$out"

first() { [ -r "$1" ] && head -n 1 "$1"; }

hz=
[ -r /proc/config.gz ] && hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
{
	echo "scale=$scale"
	echo "kernel=$(uname -r)"
	echo "kernel_version=$(uname -v)"
	echo "machine=$(uname -m)"
	echo "cpus=$(grep -c '^processor' /proc/cpuinfo)"
	echo "cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "clocksource=$(first /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "clocksources_available=$(first /sys/devices/system/clocksource/clocksource0/available_clocksource)"
	echo "timer_slack_ns=$(first /proc/self/timerslack_ns)"
	[ -n "$hz" ] && echo "hz=$hz"
	echo "mem_total=$(sed -n 's/^MemTotal:[[:space:]]*//p' /proc/meminfo)"
	echo "cmdline=$(cat /proc/cmdline)"
	for p in /sys/module/dwq/parameters/*; do
		[ -r "$p" ] && echo "dwq_${p##*/}=$(cat "$p")"
	done
	echo "dwqctl_params=$uparams"
	echo "ubench_params=$ubparams"
} >"$out/env.txt"

# CFS bandwidth on from the start, and for the whole run: a cgroup whose
# cpu.max quota nobody can reach. F9 caps its load's cgroup with cpu.max
# and lifts the cap again; each time the first quota in the system comes
# or goes, the kernel patches the scheduler's cfs_bandwidth_used() static
# key in place, and under TCG a vCPU has been seen to run a stale int3 of
# that patching (an "Oops: int3" in the scheduler). With a quota always
# set, F9's caps only count the key up and down, and nothing is patched
# while a figure runs.
# Every figure runs with the same key, so the comparisons stay fair.
# The guest may run other tests after this script (make check's stock
# guest does): the cgroup, and the mount if this made it, are undone at
# the end, when nothing is measured any more.
pin=
mounted=
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cg" ]; then
	cg=/sys/fs/cgroup
	mkdir -p $cg && mount -t cgroup2 none $cg && mounted=1
fi
if [ -n "$cg" ] && echo +cpu >"$cg/cgroup.subtree_control" 2>/dev/null &&
	mkdir -p "$cg/dwq-bench-pin" &&
	echo "10000000 100000" >"$cg/dwq-bench-pin/cpu.max"; then
	pin=$cg/dwq-bench-pin
fi
echo "cfs_bandwidth_pinned=$([ -n "$pin" ] && echo 1 || echo 0)" >>"$out/env.txt"

: >"$out/status.txt"
if [ -e $ko ]; then
	echo "kernel_params=$kparams" >>"$out/env.txt"
	# One load per figure: a figure that fails (the module then loads
	# no results at all) costs only its own rows.
	krc=0
	for fig in F1 F3 F4a F8; do
		echo "bench: insmod dwq_bench.ko $kparams figures=$fig"
		start=$(date +%s)
		# shellcheck disable=SC2086 # the parameters are words
		insmod $ko $kparams figures=$fig 2>>"$out/kernel.stderr"
		frc=$?
		echo "kernel_${fig}_seconds=$(($(date +%s) - start))" >>"$out/env.txt"
		if [ $frc = 0 ]; then
			# The header once; the env rows of every load are the same.
			if [ -s "$out/kernel.csv" ]; then
				tail -n +2 $results >>"$out/kernel.csv" || frc=$?
			else
				cat $results >"$out/kernel.csv" || frc=$?
			fi
			rmmod dwq_bench || frc=$?
		fi
		echo "kernel_$fig=$frc" >>"$out/status.txt"
		[ $frc = 0 ] || krc=$frc
		echo "bench: $fig: exit $frc"
	done
	# What it logged: busybox's insmod loads a module again with
	# init_module when finit_module fails, so a failed run can hide
	# behind a second, good one; the report shows these lines.
	dmesg | grep 'dwq_bench' >"$out/kernel.log"
	echo "kernel=$krc" >>"$out/status.txt"
	[ $krc = 0 ] || rc=1
	echo "bench: in-kernel figures: $(wc -l <"$out/kernel.csv" 2>/dev/null || echo 0) lines"
else
	echo "kernel=absent" >>"$out/status.txt"
	echo "bench: no $ko: the in-kernel figures (F1, F3, F4a, F8) are not measured"
fi

echo "bench: dwqctl bench $uparams --json"
start=$(date +%s)
# shellcheck disable=SC2086
dwqctl bench $uparams --json >"$out/user.jsonl" 2>"$out/user.stderr"
urc=$?
echo "user_seconds=$(($(date +%s) - start))" >>"$out/env.txt"
echo "user=$urc" >>"$out/status.txt"
[ $urc = 0 ] || rc=1
echo "bench: user-space figures: exit $urc, $(wc -l <"$out/user.jsonl") lines"
cat "$out/user.stderr"

echo "bench: dwq-ubench $ubparams --json"
start=$(date +%s)
# shellcheck disable=SC2086
dwq-ubench $ubparams --json >"$out/ubench.jsonl" 2>"$out/ubench.stderr"
ubrc=$?
echo "ubench_seconds=$(($(date +%s) - start))" >>"$out/env.txt"
echo "ubench=$ubrc" >>"$out/status.txt"
[ $ubrc = 0 ] || rc=1
echo "bench: dwq-ubench figures: exit $ubrc, $(wc -l <"$out/ubench.jsonl") lines"
cat "$out/ubench.stderr"

[ -n "$pin" ] && rmdir "$pin"
[ -n "$mounted" ] && umount "$cg"
exit $rc
