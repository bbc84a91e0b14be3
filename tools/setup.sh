#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what one purpose needs on a Debian host: the packages, and for
# the purposes that boot guests Debian's kernels.  Every entry point of the
# Makefile runs it for its own purpose; it is idempotent, prints nothing
# when everything is already there, and otherwise the packages it
# installed.
#
# usage: setup.sh [--all] [--for PURPOSE]...
#   --all          the 6.12 and 7.x guest kernels too (and DKMS in the 7.x
#                  build root, for the purposes that use DKMS)
#   --for PURPOSE  one of these (default: check); repeat it for several:
#     check        build the module and run the test suite (make check):
#                  guests, checkpatch, shellcheck, docutils, stress-ng,
#                  fsx, fio and HAProxy (the cluster recipe's test); no
#                  web server, plotting, perf or DKMS
#     debug        build the debug kernel (tools/debug-kernel.sh)
#     guest        build the module and boot guests (make demo, with
#                  lzop for its calibration, bench-offload, shell)
#     bench        the web benchmarks (make bench-web, bench-cluster):
#                  guests, nginx, Apache, lzop, dmsetup, matplotlib, HAProxy
#     package      the DKMS package (make dkms-deb): DKMS, which installs
#                  it and which selftests/host/dkms.sh builds with
#     walkthrough  the newcomer's walk-through (make walkthrough): guests,
#                  DKMS and Debian's perf
# A test whose package its purpose does not install skips, saying which.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
series=(6.1) purposes=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--all) series=(6.1 6.12 7) ;;
	--for)
		[[ $# -ge 2 ]] || { echo "setup: --for needs a purpose" >&2; exit 2; }
		purposes+=("$2")
		shift
		;;
	*) sed -n '10,26s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift
done
[[ ${#purposes[@]} -gt 0 ]] || purposes=(check)

guest_packages=(
	make gcc libc6-dev bc	# module builds
	qemu-system-x86 busybox-static cpio kmod	# guests
	e2fsprogs xfsprogs	# their filesystems
	xz-utils zstd debootstrap	# kernels.sh
)

packages=() guests='' tests='' dkms_root=''
for p in "${purposes[@]}"; do
	case $p in
	check)
		packages+=("${guest_packages[@]}"
			linux-source-6.1	# checkpatch.pl (host/lint.sh)
			shellcheck python3 python3-docutils	# host tests
			patch	# tools/build-fsx.sh
			stress-ng	# selftests/stress_ng.sh (copied into that guest only)
			haproxy)	# selftests/host/cluster_recipe.sh
		guests=1 tests=1
		;;
	debug)
		packages+=(make gcc libc6-dev bc linux-source-6.1
			bison flex libelf-dev libssl-dev)	# tools/debug-kernel.sh's build
		;;
	guest) packages+=("${guest_packages[@]}" lzop) guests=1 ;;	# lzop: tools/lib/calibrate.sh
	bench)
		packages+=("${guest_packages[@]}"
			python3 lzop nginx-light apache2 dmsetup python3-matplotlib	# tools/bench/web-bench.sh
			haproxy)	# its --cluster (make bench-cluster)
		guests=1
		;;
	package) packages+=(dkms) dkms_root=1 ;;
	walkthrough)
		packages+=("${guest_packages[@]}"
			dkms	# selftests/prep/walkthrough.sh installs the package
			linux-perf)	# selftests/walkthrough.sh: bookworm's perf 6.1, /usr/bin/perf
		guests=1 dkms_root=1
		;;
	*) echo "setup: unknown purpose '$p' (check, debug, guest, bench, package, walkthrough)" >&2; exit 2 ;;
	esac
done

missing=()
for p in $(printf '%s\n' "${packages[@]}" | sort -u); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
	echo "setup: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
	echo "setup: installed for ${purposes[*]}: ${missing[*]}" >&2
fi

if [[ -n $tests ]]; then
	# fsx, the file-system exerciser (Rust port, crates.io, patched), for
	# the fsx_* and lifecycle guest tests; tools/vm/guest-programs copies
	# it into every guest
	"$here/build-fsx.sh"

	# a static fio for the fio_verify test (Debian's is too big for a guest)
	"$here/build-fio.sh"

	# checkpatch.pl from Debian's kernel source package
	src=$cache/src
	if [[ ! -f $src/linux-source-6.1/scripts/checkpatch.pl ]]; then
		echo "setup: extracting checkpatch.pl from linux-source-6.1" >&2
		mkdir -p "$src"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$src" --wildcards \
			'linux-source-6.1/scripts/*'
	fi
fi

if [[ -n $guests ]]; then
	for s in "${series[@]}"; do
		"$here/kernels.sh" fetch "$s" >/dev/null
	done
fi

# dkms in the trixie root too, where selftests/host/dkms.sh builds for 7.x
root=$cache/roots/trixie
if [[ -n $dkms_root && -x $root/usr/bin/apt-get && ! -x $root/usr/sbin/dkms ]]; then
	echo "setup: installing dkms in $root" >&2
	out=$(flock "$cache/.lock" chroot "$root" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c 'apt-get -q update && apt-get -q -y install --no-install-recommends dkms' 2>&1) ||
		{ printf '%s\n' "$out" | tail -n 20 >&2; exit 1; }
	echo "setup: installed for ${purposes[*]}: dkms in $root" >&2
fi
