# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the guest test scripts (busybox sh); source it as
# /dwq/tap.sh, where vm-run puts it. It sets up $n, $failed and a scratch
# directory $tmp removed on exit, and gives:
#
#   tap_plan N                   the TAP header for N tests
#   result STATUS NAME [FILE]    one test line: ok if STATUS is 0, else
#                                not ok, with FILE's last lines as comments
#                                and the report of a stalled program
#   limited SECONDS CMD...       CMD's status, or 137 when it ran out of
#                                SECONDS: then it is killed, and every
#                                thread of it reported (stalled())
#   stalled PID                  every thread of PID (state, wait channel,
#                                system call, kernel stack), its open files

n=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tap_plan() {
	echo "TAP version 13"
	echo "1..$1"
}

result() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		if [ -n "${3:-}" ] && [ -f "$3" ]; then
			sed 's/^/#   /' "$3" | tail -n 30
		fi
	fi
	if [ -s "$tmp/stalled" ]; then
		cat "$tmp/stalled"
		rm -f "$tmp/stalled"
	fi
}

stalled() {
	for t in /proc/"$1"/task/*; do
		echo "# stalled thread ${t##*/}: state $(cut -d' ' -f3 "$t"/stat)" \
			"wchan $(cat "$t"/wchan) syscall $(cat "$t"/syscall)"
		sed 's/^/#   /' "$t"/stack
	done
	for f in /proc/"$1"/fd/*; do
		echo "# fd ${f##*/} -> $(readlink "$f")"
	done
}

# A program past its time is reported, not waited for: a thread asleep in
# an interruptible wait (a read() nobody wakes) trips none of the kernel's
# hung-task checks. The report goes to $tmp/stalled, so that a caller that
# sends CMD's output to a file still has it printed whole by result().
limited() {
	lim_s=$1
	shift
	lim_start=$(date +%s)
	"$@" &
	lim_pid=$!
	while kill -0 "$lim_pid" 2>/dev/null &&
		[ $(($(date +%s) - lim_start)) -lt "$lim_s" ]; do
		sleep 1
	done
	if kill -0 "$lim_pid" 2>/dev/null; then
		{
			echo "# $1 still running after ${lim_s}s"
			stalled "$lim_pid"
		} >>"$tmp/stalled"
		kill -KILL "$lim_pid"
	fi
	wait "$lim_pid"
}
