# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers for the guest test scripts (busybox sh); source it as
# /dwq/tap.sh, where vm-run puts it. It sets up $n, $failed and a scratch
# directory $tmp removed on exit, and gives:
#
#   tap_plan N                   the TAP header for N tests
#   result STATUS NAME [FILE]    one test line: ok if STATUS is 0, else
#                                not ok, with FILE's last lines as comments

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
}
