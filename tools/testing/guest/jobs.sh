#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# jobs.sh JOBFILE - run several test programs in one guest boot.
#
# A guest boot costs 20-60 s under TCG, more than most of the tests that
# run in it, so make check (tools/testing/check) gathers the jobs of all
# its steps that need one kernel and runs them here, one after the other.
# vm-run starts us with --no-load; each job gets dwq.ko loaded with the
# parameters it asks for (reloaded only when they change), or unloaded.
#
# Each line of JOBFILE:  LABEL TIMEOUT PARAMS COMMAND...
#   PARAMS   dwq.ko parameters joined by commas, "-" for none, or
#            "unloaded" for a job that loads and unloads dwq.ko itself
#   COMMAND  run by sh -c, with stdin from /dev/null and $DWQ_OUT set to
#            /out/jobs/LABEL/, which also receives its output (output)
#            and exit status (rc: 137 if it was killed at TIMEOUT seconds)
#
# Every job starts with a "dwq-jobs: LABEL" line in the kernel log, so a
# splat there names the job it came in. Ends with dwq.ko unloaded; exits
# non-zero only if loading or unloading dwq.ko failed.

jobfile=$1
loaded=unloaded
rc=0

unload() {
	if grep -q '^dwq ' /proc/modules && ! rmmod dwq; then
		echo "jobs: rmmod dwq failed"
		return 1
	fi
	loaded=unloaded
}

load() {	# load PARAMS
	[ "$1" = "$loaded" ] && return 0
	unload || return 1
	[ "$1" = unloaded ] && return 0
	params=$(echo "$1" | tr ',' ' ')
	[ "$1" = - ] && params=
	# shellcheck disable=SC2086 # one word per parameter
	if ! insmod /dwq/dwq.ko $params; then
		echo "jobs: insmod dwq.ko $params failed"
		return 1
	fi
	loaded=$1
}

# "uptime busy": seconds since boot, and seconds the vCPUs spent not idle
# (/proc/stat's jiffies at USER_HZ 100). Under TCG a vCPU's busy time is
# the host CPU time it costs, so a job's share of a boot is visible.
busy() {
	read -r up _ </proc/uptime
	awk -v up="$up" '$1 == "cpu" {
		printf "%s %.2f\n", up, ($2 + $3 + $4 + $7 + $8 + $9) / 100; exit }' /proc/stat
}

while read -r label timeout params cmd; do
	[ -n "$label" ] || continue
	d=/out/jobs/$label
	mkdir -p "$d"
	echo "dwq-jobs: $label" >/dev/kmsg
	echo "### jobs: $label (dwq.ko: $params): $cmd"
	if ! load "$params"; then
		rc=1
		continue
	fi
	before=$(busy)
	{
		DWQ_OUT=$d timeout -s KILL "$timeout" sh -c "$cmd" </dev/null 2>&1
		echo $? >"$d/rc"
	} | tee "$d/output"
	echo "$before $(busy)" |
		awk '{ printf "%.1f s, %.1f s of vCPU time\n", $3 - $1, $4 - $2 }' >"$d/seconds"
	echo "### jobs: $label: exit $(cat "$d/rc") ($(cat "$d/seconds"))"
done <"$jobfile"
unload || rc=1
exit $rc
