#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the base initramfs for guests of one kernel release: busybox, kmod,
# the kernel modules guests need (with their dependencies), the guest /init
# and the programs tests run.  Prints the path of the cpio archive, which is
# cached and rebuilt only when one of its inputs changes.  The module under
# test and the tests themselves travel in a second, per-run archive (see
# boot.sh): the kernel unpacks concatenated archives in order.
#
# usage: initramfs.sh RELEASE
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib/program.sh
. "$here/../lib/program.sh"
release=${1:?usage: initramfs.sh RELEASE}
guest=$("$here/../kernels.sh" guest "$release")
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}/initramfs

# Kernel modules every guest may need; those built into a kernel are skipped.
modules="virtio_mmio virtio_blk loop ext4 xfs quota_v2 zsmalloc crc32c_generic libcrc32c
	lzo lzo-rle lz4 lz4hc zstd deflate 842 virtio_net"
# Host programs copied in with their libraries, at the same paths (busybox
# sh prefers its own applets: tests call these by full path).  Programs the
# tests need are listed in guest-programs; those not installed are skipped.
programs=(/usr/bin/kmod /sbin/mke2fs /sbin/mkfs.xfs)
while read -r p _; do
	[[ -z $p || $p == \#* || ! -x $p ]] || programs+=("$p")
done < "$here/guest-programs"

# one builder at a time per release: tests start two guests at once
mkdir -p "$cache"
exec 9> "$cache/$release.lock"
flock 9

# One archive per set of inputs, so that checkouts whose guest /init differ
# can run guests side by side; archives unused for a week are removed.
stamp=$(cat "$here/init" "$0" "$here/../lib/program.sh" "$here/guest-programs" "$guest/vmlinux" "${programs[@]}" |
	md5sum | cut -c1-16)
out=$cache/$release-$stamp.cpio
if [[ -s $out ]]; then
	touch "$out"
	echo "$out"
	exit 0
fi
find "$cache" -maxdepth 1 -name "$release-*.cpio" -mtime +7 -delete

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,mnt,lib64}
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$here/init" "$root/init"

# the programs, each with its shared libraries (tools/lib/program.sh)
for p in "${programs[@]}"; do
	copy_program "$root" "$p"
done
for tool in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -s /usr/bin/kmod "$root/sbin/$tool"
done

# the modules and what they depend on, with a modules.dep for that subset
# shellcheck disable=SC2086 # one word per module
copy_modules "$root" "$guest" "$release" $modules

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
