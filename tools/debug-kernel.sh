#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh - a 6.1 guest kernel with the kernel's own checkers on
# (KASAN, lockdep, kmemleak, atomic-sleep, list and timer-object
# debugging) and the irqsoff tracer, built from Debian's linux-source-6.1
# and cached as one more release in kernels.sh's cache, kernels/RELEASE:
# boot/vmlinuz and lib/modules/RELEASE for guests, build/ (the built
# tree) for module builds.
#
#   debug-kernel.sh            build it unless cached; print its release
#   debug-kernel.sh --release  print the release only (no build)
#   debug-kernel.sh --cached   the same, but exit 1 when it is not built
#
# The release, 6.1.N-ccache-debug-HASH, names the source package version
# and a hash of the package version and the config fragment below: a new
# source or fragment is a new release, and a cached one is used as is.
# The config is x86_64 defconfig, trimmed, plus the fragment; every line of
# the fragment is checked in the final .config.  The build runs at the
# lowest CPU and I/O priority, two jobs (JOBS=); up to an hour on 2 cores.
set -euo pipefail

CACHE=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
TARBALL=/usr/src/linux-source-6.1.tar.xz
# shellcheck source=tools/lib/msg.sh
. "$(dirname "$0")/lib/msg.sh"

FRAGMENT=$(cat <<'EOF'
# the checkers
CONFIG_KASAN=y
CONFIG_KASAN_GENERIC=y
CONFIG_KASAN_INLINE=y
CONFIG_KASAN_VMALLOC=y
CONFIG_PROVE_LOCKING=y
CONFIG_DEBUG_KMEMLEAK=y
# CONFIG_DEBUG_KMEMLEAK_DEFAULT_OFF is not set
# CONFIG_DEBUG_KMEMLEAK_AUTO_SCAN is not set
CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE=16000
CONFIG_DEBUG_ATOMIC_SLEEP=y
CONFIG_DEBUG_LIST=y
# timers set up again while pending, freed while armed (issue 28, item 7)
CONFIG_DEBUG_OBJECTS=y
CONFIG_DEBUG_OBJECTS_TIMERS=y
CONFIG_PRINTK_TIME=y
CONFIG_DEBUG_FS=y
# the longest section with interrupts off (selftests/irqsoff.sh)
CONFIG_IRQSOFF_TRACER=y
# what ccache uses: ftrace and kprobe hooks, tracepoints, zsmalloc and
# the compressors its tests load; mm as Debian has it
CONFIG_MODULES=y
CONFIG_MODULE_UNLOAD=y
CONFIG_KALLSYMS_ALL=y
CONFIG_KPROBES=y
CONFIG_KRETPROBES=y
CONFIG_KPROBES_ON_FTRACE=y
CONFIG_FUNCTION_TRACER=y
CONFIG_DYNAMIC_FTRACE=y
CONFIG_DYNAMIC_FTRACE_WITH_REGS=y
CONFIG_FTRACE_SYSCALLS=y
CONFIG_TRACEPOINTS=y
CONFIG_EVENT_TRACING=y
CONFIG_ZSWAP=y
CONFIG_ZSMALLOC=y
CONFIG_CRYPTO_LZO=y
CONFIG_CRYPTO_LZ4=y
CONFIG_CRYPTO_LZ4HC=y
CONFIG_CRYPTO_ZSTD=y
CONFIG_CRYPTO_DEFLATE=y
CONFIG_MEMCG=y
CONFIG_TRANSPARENT_HUGEPAGE=y
CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS=y
# CONFIG_X86_KERNEL_IBT is not set
# the guest: PVH boot on microvm, virtio-mmio disks, serial console
CONFIG_HYPERVISOR_GUEST=y
CONFIG_PARAVIRT=y
CONFIG_KVM_GUEST=y
CONFIG_PVH=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO_MMIO=y
CONFIG_VIRTIO_BLK=y
CONFIG_EXT4_FS=y
CONFIG_XFS_FS=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_DEVTMPFS=y
CONFIG_TMPFS=y
CONFIG_BLK_DEV_INITRD=y
# less to build: what guests have no use for
CONFIG_DEBUG_INFO_NONE=y
# CONFIG_WERROR is not set
# CONFIG_LOCALVERSION_AUTO is not set
# CONFIG_DRM is not set
# CONFIG_SOUND is not set
# CONFIG_CFG80211 is not set
# CONFIG_WLAN is not set
# CONFIG_USB_SUPPORT is not set
# CONFIG_NETFILTER is not set
# CONFIG_NETDEVICES is not set
# CONFIG_NFS_FS is not set
# CONFIG_NET_9P is not set
# CONFIG_PCCARD is not set
# CONFIG_AGP is not set
# CONFIG_ATA is not set
# CONFIG_MD is not set
# CONFIG_SECURITY_SELINUX is not set
# CONFIG_HIBERNATION is not set
EOF
)

pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	die "linux-source-6.1 is not installed: run tools/setup.sh --for debug"
hash=$(printf '%s\n%s\n' "$pkgver" "$FRAGMENT" | sha256sum | cut -c1-8)
release=${pkgver%%-*}-ccache-debug-$hash
dir=$CACHE/kernels/$release
tree=$dir/build
case ${1:-}:$# in
--release:1) echo "$release" && exit 0 ;;
--cached:1) echo "$release" && [[ -f $dir/.complete ]] && exit 0; exit 1 ;;
:0) [[ ! -f $dir/.complete ]] || { echo "$release" && exit 0; } ;;
*) sed -n '10,12s/^#  //p' "$0" >&2 && exit 2 ;;
esac
mkdir -p "$CACHE/kernels"
exec 9>"$CACHE/kernels/.$release.lock" && flock 9 # one build at a time
[[ ! -f $dir/.complete ]] || { echo "$release" && exit 0; }
[[ -f $TARBALL ]] || die "no $TARBALL: run tools/setup.sh --for debug"

# Lowest priority: other guests on this machine keep their timing.
slow() { nice -n 19 ionice -c3 "$@"; }
kmake() { slow make -C "$tree" -j"${JOBS:-2}" LOCALVERSION= "$@"; }

if [[ ! -f $tree/Makefile ]]; then
	msg "extracting $TARBALL ($pkgver)"
	rm -rf "$dir" && mkdir -p "$dir/build.new"
	slow tar -xJf "$TARBALL" -C "$dir/build.new" --strip-components=1
	mv "$dir/build.new" "$tree"
fi

# defconfig, trimmed and completed by the fragment, then checked
echo "$FRAGMENT" >"$dir/fragment.config"
if [[ ! -f $tree/.config || $(cat "$dir/.config-done" 2>/dev/null) != "$hash" ]]; then
	kmake -s defconfig
	(cd "$tree" && slow scripts/kconfig/merge_config.sh -m .config "$dir/fragment.config") >/dev/null
	"$tree/scripts/config" --file "$tree/.config" --set-str LOCALVERSION "-ccache-debug-$hash"
	kmake -s olddefconfig
	echo "$hash" >"$dir/.config-done"
fi
bad=$(grep -E '^(CONFIG_|# CONFIG_)' "$dir/fragment.config" | while read -r line; do
	if [[ $line == "# "* ]]; then
		opt=${line#"# "} opt=${opt%% *}
		! grep -q "^$opt=" "$tree/.config" || grep "^$opt=" "$tree/.config"
	else
		grep -qxF "$line" "$tree/.config" || echo "$line (have: $(grep "^${line%%=*}=" "$tree/.config" || echo unset))"
	fi
done)
[[ -z $bad ]] || die "the config lacks what the fragment asks for:"$'\n'"$bad"
kmake -s syncconfig
got=$(kmake -s kernelrelease)
[[ $got == "$release" ]] || die "the tree gives release $got, expected $release"

msg "building $release (nice 19, ${JOBS:-2} jobs; log: $dir/build.log)"
start=$SECONDS
: >"$dir/build.log"
logged "$dir/build.log" kmake all
rm -rf "${dir:?}/lib" "${dir:?}/boot"
logged "$dir/build.log" kmake -s INSTALL_MOD_PATH="$dir" INSTALL_MOD_STRIP=1 modules_install
mkdir -p "$dir/boot"
cp "$tree/arch/x86/boot/bzImage" "$dir/boot/vmlinuz-$release"
cp "$tree/.config" "$dir/boot/config-$release"
cp "$tree/System.map" "$dir/boot/System.map-$release"
# guests boot vmlinuz (boot.sh): KASAN breaks vmlinux's PVH entry
cp "$tree/vmlinux" "$dir/vmlinux"
touch "$dir/.complete"
msg "built $release in $(((SECONDS - start) / 60)) min"
echo "$release"
