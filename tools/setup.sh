#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing ccache needs on a Debian host, then
# fetch the guest kernels.  Every entry point runs it; it is idempotent and
# prints nothing when everything is already there.
#
# usage: setup.sh [--all]     --all: the 6.12 and 7.x kernels too
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
series=(6.1)
[[ ${1:-} == --all ]] && series=(6.1 6.12 7)

packages=(
	make gcc libc6-dev bc	# module builds
	qemu-system-x86 busybox-static cpio kmod	# guests
	e2fsprogs xfsprogs	# their filesystems
	xz-utils zstd debootstrap	# kernels.sh
	linux-source-6.1	# checkpatch.pl, kselftest.h, tools/debug-kernel.sh
	bison flex libelf-dev libssl-dev	# tools/debug-kernel.sh's build
	shellcheck python3
	patch	# tools/build-fsx.sh
	dkms	# selftests/host/dkms.sh (the package needs only dpkg-deb)
	linux-perf	# selftests/walkthrough.sh: bookworm's perf 6.1, /usr/bin/perf
	stress-ng	# selftests/stress_ng.sh (copied into that guest only)
	lzop nginx-light apache2 dmsetup python3-matplotlib	# tools/bench/web-bench.sh
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
	echo "setup: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

# fsx, the file-system exerciser (Rust port, crates.io, patched), for
# the fsx_* and lifecycle guest tests; tools/vm/guest-programs copies it
# into every guest
"$here/build-fsx.sh"

# a static fio for the fio_verify test (Debian's is too big for a guest)
"$here/build-fio.sh"

# checkpatch.pl and kselftest.h from Debian's kernel source package
src=$cache/src
if [[ ! -f $src/linux-source-6.1/scripts/checkpatch.pl ]]; then
	echo "setup: extracting checkpatch.pl and kselftest.h from linux-source-6.1" >&2
	mkdir -p "$src"
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$src" --wildcards \
		'linux-source-6.1/scripts/*' \
		'linux-source-6.1/tools/testing/selftests/kselftest.h'
fi

for s in "${series[@]}"; do
	"$here/kernels.sh" fetch "$s" >/dev/null
done

# dkms in the trixie root too, where selftests/host/dkms.sh builds for 7.x
root=$cache/roots/trixie
if [[ -x $root/usr/bin/apt-get && ! -x $root/usr/sbin/dkms ]]; then
	echo "setup: installing dkms in $root" >&2
	out=$(flock "$cache/.lock" chroot "$root" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
		sh -c 'apt-get -q update && apt-get -q -y install --no-install-recommends dkms' 2>&1) ||
		{ printf '%s\n' "$out" | tail -n 20 >&2; exit 1; }
fi
