#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dwq_bench.ko's parameters, in a guest with dwq.ko loaded (make check's
# stock guest): each bad value is refused by insmod with EINVAL and the
# kernel log says which parameter and what it takes (in the lines logged
# after a mark of its own: other jobs share the boot, and the log is never
# cleared); a good f8_prof= runs its one loop and loads. TAP on stdout.
# The insmod is the guest's busybox, which says "Invalid argument".
#
# usage: params-test.sh [KO]   (default /dwq/dwq_bench.ko)

ko=${1:-/dwq/dwq_bench.ko}
# shellcheck source=../testing/guest/tap.sh source-path=SCRIPTDIR
. /dwq/tap.sh

if [ ! -e "$ko" ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP $ko is not built"
	exit 0
fi

# try ARGS: insmod with ARGS; $rc is its status, $err what it said, and
# $tmp/log the kernel log since, with both.
try() {
	echo "dwq-bench-params: mark $n" >/dev/kmsg
	# shellcheck disable=SC2086 # ARGS is split into parameters
	err=$(insmod "$ko" $1 2>&1)
	rc=$?
	dmesg | sed -n "/dwq-bench-params: mark $n\$/,\$p" >"$tmp/log"
	echo "insmod $1: exit $rc, '$err'" >>"$tmp/log"
}

# refused ARGS WANT: insmod fails with EINVAL and the log has WANT.
refused() {
	try "$1"
	st=1
	if [ $rc = 0 ]; then
		rmmod dwq_bench
	else
		case $err in
		*"Invalid argument"*) grep -qF "$2" "$tmp/log" && st=0 ;;
		esac
	fi
	result $st "refused with EINVAL and a reason: $1" "$tmp/log"
}

# loads ARGS WANT: insmod succeeds, the log has WANT, rmmod works.
loads() {
	try "$1"
	st=1
	if [ $rc = 0 ]; then
		grep -qF "$2" "$tmp/log" && st=0
		rmmod dwq_bench || st=1
	fi
	result $st "loads and runs: $1" "$tmp/log"
}

tap_plan 14
refused "scale=huge figures=none" "scale=huge: tiny or full"
refused "reps=0 figures=none" "reps=0: 1..100"
refused "reps=101 figures=none" "reps=101: 1..100"
refused "figures=F9" "figures=F9: F1, F3, F4a or F8"
refused "figures=F1,,F3" "figures=F1,,F3: F1, F3, F4a or F8"
refused "figures=" "figures=: F1, F3, F4a or F8"
p="f8_prof="
w="VARIANT:LOOP:N:OPS"
refused "scale=tiny figures=F8 ${p}nosuch:pair:100:10" "${p}nosuch:pair:100:10: $w"
refused "scale=tiny figures=F8 ${p}dwq:nosuch:100:10" "${p}dwq:nosuch:100:10: $w"
refused "scale=tiny figures=F8 ${p}dwq:pair:0:10" "${p}dwq:pair:0:10: $w"
refused "scale=tiny figures=F8 ${p}dwq:pair:100:10000001" "${p}dwq:pair:100:10000001: $w"
refused "scale=tiny figures=F8 ${p}dwq:pair:100:10x" "${p}dwq:pair:100:10x: $w"
refused "scale=tiny figures=F8 ${p}timer_list:mod:100:10" "${p}timer_list:mod:100:10: $w"
loads "scale=tiny reps=1 figures=F8 ${p}dwq:pair:100:10" \
	"F8: profiling dwq's pair loop, N=100, 10 operations"
loads "scale=tiny reps=1 figures=F8 ${p}delayed_work:rearm:100:10" \
	"F8: profiling delayed_work's rearm loop, N=100, 10 operations"
