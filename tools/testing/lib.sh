# SPDX-License-Identifier: GPL-2.0
# Shared helpers for dwq's test scripts. Source it; do not run it.
#
# Everything expensive (kernel trees, stock kernel packages) lives in
# $DWQ_CACHE, outside the repository, keyed by its inputs.

DWQ_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DWQ_CACHE=${DWQ_CACHE:-${HOME:-/root}/.cache/dwq}
DWQ_BUILD=${DWQ_BUILD:-$DWQ_ROOT/build}
# The Debian source package the debug kernel is built from.
DWQ_SRC_PKG=linux-source-6.12

msg()  { printf '%s\n' "$*" >&2; }
die()  { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Run as root, or through sudo when that is available.
as_root()
{
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root for: $*"
	fi
}

# The installed version of a Debian package, or nothing.
pkg_version()
{
	dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$1" 2>/dev/null |
		awk '$1 == "ii" { print $2 }'
}

# The kernel source tree extracted from $DWQ_SRC_PKG, extracting it on
# first use. Prints its path.
kernel_src()
{
	local ver dir tarball

	ver=$(pkg_version "$DWQ_SRC_PKG")
	[ -n "$ver" ] || die "$DWQ_SRC_PKG is not installed (run tools/testing/deps)"
	dir=$DWQ_CACHE/src/$DWQ_SRC_PKG-$ver
	if [ ! -e "$dir/.extracted" ]; then
		tarball=$(ls /usr/src/$DWQ_SRC_PKG.tar.* 2>/dev/null | head -n 1)
		[ -n "$tarball" ] || die "no /usr/src/$DWQ_SRC_PKG.tar.*"
		msg "extracting $tarball into $dir"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -C "$dir.tmp" --strip-components=1 -xf "$tarball"
		mv "$dir.tmp" "$dir"
		touch "$dir/.extracted"
	fi
	printf '%s\n' "$dir"
}

# The newest ABI name (e.g. 6.12.117+deb12-amd64) of a Debian stock
# kernel series (6.12, 6.12-rt: PREEMPT_RT, or 6.1) for which both an
# image and headers exist.
stock_abi()
{
	local series=$1 re abi names

	case $series in
	6.12) re='6\.12\.[0-9]+\+deb12-amd64' ;;
	6.12-rt) re='6\.12\.[0-9]+\+deb12-rt-amd64' ;;
	6.1)  re='6\.1\.0-[0-9]+-amd64' ;;
	*) die "unknown stock kernel series '$series' (6.12, 6.12-rt or 6.1)" ;;
	esac
	# One listing of the package names (each apt-cache run reads the
	# whole cache: seconds), the headers' ABIs with their image in it.
	names=$(apt-cache pkgnames linux- 2>/dev/null)
	abi=$(printf '%s\n' "$names" | grep -E "^linux-headers-$re\$" |
		sed 's/^linux-headers-//' |
		while read -r a; do
			printf '%s\n' "$names" | grep -qxF "linux-image-$a-unsigned" &&
				echo "$a"
		done | sort -V | tail -n 1)
	[ -n "$abi" ] || die "no linux-image/headers for $series in the apt lists (apt-get update?)"
	printf '%s\n' "$abi"
}
