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
# usage: guest.sh full|tiny [icount]
#   full  dwq_bench.ko scale=full; dwqctl bench --ops 10000 --reps 5;
#         dwq-ubench --scale full --reps 5
#   tiny  dwq_bench.ko scale=tiny reps=1; dwqctl bench --ops 50 --reps 1;
#         dwq-ubench --scale tiny --reps 1
#         (proves the pipeline works; the numbers mean nothing)
#   icount  the guest runs under icount: dwq-ubench --f9-cpus 1, F9 on
#         one CPU (its CPU figures read busy time, which icount inflates
#         with more than one vCPU: docs/bench.md, F9)
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
case ${2:-} in
icount) ubparams="$ubparams --f9-cpus 1" ;;
'') ;;
*) echo "guest.sh: icount or nothing after the scale, not '$2'" >&2; exit 2 ;;
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

# CFS bandwidth on from the start, and for the whole run: F9 caps its
# load's cgroup with cpu.max and lifts the cap again, and each time the
# first quota in the system comes or goes the kernel patches the
# scheduler's cfs_bandwidth_used() static key in place, which under TCG a
# vCPU running that code meanwhile can trip over (an "Oops: int3" in the
# scheduler). vm-run --cfs-pin turns the key on at boot, while only one
# vCPU is online, with a quota nobody reaches; F9's quotas then only count
# it up and down, and every figure runs with the same key. Without the pin this
# script does not make one: the patching would then happen here, with
# every vCPU running.
pin=0
q=
[ -r /sys/fs/cgroup/dwq-pin/cpu.max ] && read -r q _ </sys/fs/cgroup/dwq-pin/cpu.max
[ -n "$q" ] && [ "$q" != max ] && pin=1
echo "cfs_bandwidth_pinned=$pin" >>"$out/env.txt"
[ $pin = 1 ] || echo "bench: no CFS bandwidth pin (vm-run --cfs-pin): F9's first cap patches the scheduler"

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
# dwq_bench.ko with no figure serves idle_us, the CPUs' idle time to the
# microsecond, from which F9 reads busy time on one CPU (/proc/stat has
# 10 ms ticks); dwq-ubench says on stderr which it read.
idle=0
if [ -e $ko ]; then
	insmod $ko figures=none 2>>"$out/kernel.stderr" && idle=1
	echo "idle_us=$idle" >>"$out/status.txt"
fi
start=$(date +%s)
# shellcheck disable=SC2086
dwq-ubench $ubparams --json >"$out/ubench.jsonl" 2>"$out/ubench.stderr"
ubrc=$?
if [ $idle = 1 ]; then
	rmmod dwq_bench
	echo "idle_us_rmmod=$?" >>"$out/status.txt"
fi
echo "ubench_seconds=$(($(date +%s) - start))" >>"$out/env.txt"
echo "ubench=$ubrc" >>"$out/status.txt"
[ $ubrc = 0 ] || rc=1
echo "bench: dwq-ubench figures: exit $ubrc, $(wc -l <"$out/ubench.jsonl") lines"
cat "$out/ubench.stderr"

exit $rc
