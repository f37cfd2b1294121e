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

. /dwq/tap.sh

tap() {	# tap WHAT LIMIT CMD...: run CMD for LIMIT seconds at most, one TAP line
	what=$1 limit=$2
	shift 2
	start=$(date +%s)
	limited "$limit" "$@"
	rc=$?
	t=$(($(date +%s) - start))
	if [ $rc = 0 ]; then
		result 0 "$what (${t}s)"
	else
		result $rc "$what: exit $rc (${t}s)"
	fi
}

tap_plan 3
# Limits, far above the debug guest's pace (a tenth of a second a round
# of modeswitch, 6000 fuzz calls a second): two minutes more than ten
# times that, or than twice the stress's own duration.
tap "modeswitch: reschedules and cancels racing read()'s firings, each id ends once" \
	$((iters + 120)) dwq-modeswitch --iterations "$iters"
# shellcheck disable=SC2086 # $seed is empty or two words
tap "stress: ${secs}s, 8 threads, ledger exact" \
	$((secs * 2 + 120)) dwq-stress --duration "$secs" --threads 8 $seed
# shellcheck disable=SC2086
tap "fuzz: $calls calls, then a normal round trip" \
	$((calls / 600 + 120)) dwq-fuzz --calls "$calls" --threads 3 $seed
[ $failed = 0 ]
