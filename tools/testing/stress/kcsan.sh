#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in a guest on the KCSAN kernel (`make soak`, after the debug run):
# guest.sh's programs, then KCSAN's own counters, so that a quiet log is
# seen to come from a detector that was on and setting watchpoints. The
# races themselves fail the run on the host: vm-run rejects any
# "BUG: KCSAN: ..." line in the kernel log.
#
# usage: kcsan.sh [STRESS_SECONDS [FUZZ_CALLS [MODESWITCH_ITERATIONS]]]
#   (vm-run --add this file and guest.sh, which must sit beside it)

info=/sys/kernel/debug/kcsan

sh "$(dirname "$0")/guest.sh" "$@"
rc=$?
if [ -r $info ]; then
	echo "# kcsan: $(grep -E '^[a-z_]+: [0-9-]+$' $info | tr '\n' ' ')"
fi
if ! grep -qx 'enabled: 1' $info 2>/dev/null; then
	echo "# kcsan: not enabled in this kernel: the run proves nothing"
	rc=1
fi
exit $rc
