#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in a dwq guest (tools/testing/vm-run --add this file): the stress
# and fuzz programs in sequence, each line "ok N - what" or "not ok N -
# what" (TAP 13), every program's own figures printed as it runs.
#
# usage: guest.sh [STRESS_SECONDS [FUZZ_CALLS [MODESWITCH_ITERATIONS]]]
#   (defaults 60, 200000, 100; `make soak` passes bigger ones)
# DWQ_SEED, if set, seeds the stress and the fuzzer.

secs=${1:-60} calls=${2:-200000} iters=${3:-100}
seed=${DWQ_SEED:+--seed $DWQ_SEED}
n=0 failed=0

tap() {	# tap WHAT CMD...: run CMD, one TAP line for its status
	what=$1; shift
	n=$((n + 1))
	start=$(date +%s)
	"$@"
	rc=$?
	t=$(($(date +%s) - start))
	if [ $rc = 0 ]; then
		echo "ok $n - $what (${t}s)"
	else
		echo "not ok $n - $what: exit $rc (${t}s)"
		failed=$((failed + 1))
	fi
}

echo "TAP version 13"
echo "1..3"
tap "modeswitch: reschedules and cancels racing read()'s firings, each id ends once" \
	dwq-modeswitch --iterations "$iters"
# shellcheck disable=SC2086 # $seed is empty or two words
tap "stress: ${secs}s, 8 threads, ledger exact" \
	dwq-stress --duration "$secs" --threads 8 $seed
# shellcheck disable=SC2086
tap "fuzz: $calls calls, then a normal round trip" \
	dwq-fuzz --calls "$calls" --threads 3 $seed
[ $failed = 0 ]
