#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in a guest on the KCSAN kernel (`make soak`, after the debug run):
# guest.sh's programs, then KCSAN's own counters, so that a quiet log is
# seen to come from a detector that was on and setting watchpoints. The
# races themselves fail the run on the host: vm-run rejects any
# "BUG: KCSAN: ..." line in the kernel log. The run fails unless KCSAN
# is enabled, set up watchpoints while the programs ran (its counter
# setup_watchpoints, kernel/kcsan/debugfs.c, went up), and dwq.ko was
# built with its instrumentation (the module calls __tsan_* functions:
# without them KCSAN never watches dwq's own accesses).
#
# usage: kcsan.sh [STRESS_SECONDS [FUZZ_CALLS [MODESWITCH_ITERATIONS]]]
#   (vm-run --add this file and guest.sh, which must sit beside it)

info=/sys/kernel/debug/kcsan
ko=/dwq/dwq.ko

# One of KCSAN's counters by name; empty if there is no such line.
counter() { awk -v n="$1:" '$1 == n { print $2 }' $info 2>/dev/null; }

before=$(counter setup_watchpoints)
sh "$(dirname "$0")/guest.sh" "$@"
rc=$?
after=$(counter setup_watchpoints)
if [ -r $info ]; then
	echo "# kcsan: $(grep -E '^[a-z_]+: [0-9-]+$' $info | tr '\n' ' ')"
fi
if ! grep -qx 'enabled: 1' $info 2>/dev/null; then
	echo "# kcsan: not enabled in this kernel: the run proves nothing"
	rc=1
fi
if [ "${after:-0}" -le "${before:-0}" ]; then
	echo "# kcsan: no watchpoint set up while the programs ran" \
		"(setup_watchpoints ${before:-none} -> ${after:-none}): the run proves nothing"
	rc=1
fi
# The symbol names are NUL-terminated: one a line for grep.
tsan=$(tr '\000' '\n' <$ko | grep -c '__tsan_')
echo "# kcsan: $ko names $tsan __tsan_ symbols"
if [ "$tsan" = 0 ]; then
	echo "# kcsan: $ko is not instrumented: KCSAN did not watch dwq"
	rc=1
fi
exit $rc
