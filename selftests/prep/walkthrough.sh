#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side of selftests/walkthrough.sh (its "# VM: prepare=" line; boot.sh
# runs it as "walkthrough.sh RELEASE STAGE" before the guest boots).  The
# guest has no compiler, so what packaging/README.rst has a newcomer do
# on their machine happens here, in a throwaway root:
#
#   make dkms-deb
#   dpkg -i dist/ccache-dkms_VERSION_all.deb    (DKMS builds the module)
#   dpkg -r ccache-dkms                         ("Remove it", at the end)
#
# The root is an overlay on the host's own root (or on the trixie root of
# tools/kernels.sh, whose compiler 7.x headers need): dpkg, dkms, the
# compiler and the headers are the real ones, and every change lands in
# a tmpfs that goes away afterwards.  Its /lib/modules holds only the
# guest's kernel, so DKMS's postinst builds for that one (the host's
# running kernel is not installed there: "belongs to a chroot's host").
# Everything runs in a mount namespace of its own: nothing stays mounted.
#
# What got installed goes into the guest's per-run archive STAGE at the
# same paths: /lib/modules/RELEASE/updates/dkms/ccache.ko,
# /etc/modprobe.d/ccache.conf, /usr/sbin/ccachectl, the docs' examples;
# the harness's own ccache.ko is taken out, so the guest has only the
# packaged one.  perf (Debian's linux-perf, tools/setup.sh) goes in with
# its shared libraries.  Notes for the guest go to STAGE/selftests/.prep/:
# dpkg's output, "dkms status", the package's file list, how "dpkg -r"
# went (remove.status, remove.log, remove.left), and PIECE.skip
# holding the reason a piece cannot be had on this host (package, perf):
# the guest test reports those as skips.  A piece that should work and
# fails (the package does not build or install) fails this script, and
# boot.sh fails the test.
set -euo pipefail

# in a mount namespace of its own, which takes every mount along when it
# ends, however it ends
if [[ -z ${CCDEV_PREP_NS:-} ]] && ((EUID == 0)); then
	CCDEV_PREP_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi

release=${1:?usage: walkthrough.sh RELEASE STAGE}
stage=${2:?usage: walkthrough.sh RELEASE STAGE}
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tools/lib/program.sh
. "$top/tools/lib/program.sh"
notes=$stage/selftests/.prep
mkdir -p "$notes"

skip() { # PIECE REASON
	echo "$2" > "$notes/$1.skip"
	echo "walkthrough: $1: skipped: $2" >&2
}

# ---- perf and its libraries, at the same paths ----
perf=$(command -v perf || true)
if [[ -z $perf ]]; then
	skip perf "no perf on the host (make walkthrough installs linux-perf, make check does not)"
else
	perf=$(readlink -f "$perf")
	copy_program "$stage" "$perf"
	[[ $perf == /usr/bin/perf ]] || ln -sf "$perf" "$stage/usr/bin/perf"
	"$perf" version > "$notes/perf-version"
fi

# ---- the package, installed with dpkg in a throwaway root ----
kd=$("$top/tools/kernels.sh" kdir "$release" 2>/dev/null) || kd=''
# the root the headers belong to: the host's, or the trixie root whose
# /usr/src holds them; a tree elsewhere (the debug kernel's build, in the
# cache) is seen through the host's root
base=/
if [[ $kd == ?*/usr/src/* ]]; then
	base=${kd%/usr/src/*}
fi
why=''
if ((EUID != 0)); then
	why="needs root (mounts and chroot)"
elif [[ -z $kd ]]; then
	why="no headers for $release (tools/setup.sh --all)"
elif ! command -v dpkg-deb > /dev/null; then
	why="no dpkg-deb: not a Debian host"
elif [[ ! -x $base/usr/sbin/dkms || ! -x $base/usr/bin/dpkg ]]; then
	why="no dkms or dpkg in $base (make walkthrough installs dkms, make check does not)"
elif ! grep -qw overlay /proc/filesystems; then
	why="overlay is not loaded on this host (the harness loads no host module)"
fi
if [[ -n $why ]]; then
	skip package "$why"
	exit 0
fi

# everything in a tmpfs; never rm -rf it: /dev is bound inside
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ccache-walkthrough.XXXXXX")
trap 'umount -R "$tmp" 2>/dev/null || umount -R -l "$tmp"; rmdir "$tmp"' EXIT
mount -t tmpfs tmpfs "$tmp"
version=$(sed -n 's/^#define CCACHE_VERSION "\(.*\)"$/\1/p' "$top/ccache/ccache.h")
deb=ccache-dkms_${version}_all.deb
make -s --no-print-directory -C "$top" dkms-deb DIST="$tmp/dist" SETUP=: > /dev/null

root=$tmp/root
mkdir -p "$tmp/upper" "$tmp/work" "$root"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$tmp/upper,workdir=$tmp/work" "$root"
# /lib/modules: the guest's kernel alone, its build link and module lists
mods=$root/lib/modules
mount -t tmpfs tmpfs "$mods"
mkdir -p "$mods/$release"
ln -s "${kd#"${base%/}"}" "$mods/$release/build"
guest=$("$top/tools/kernels.sh" guest "$release")
cp "$guest/lib/modules/$release"/modules.{order,builtin,builtin.modinfo} "$mods/$release/"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp "$tmp/dist/$deb" "$root/tmp/"

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
status=0
in_root dpkg -i "/tmp/$deb" > "$notes/dpkg.log" 2>&1 || status=$?
in_root dkms status -m ccache > "$notes/dkms-status" 2>&1 || :
in_root dpkg -L ccache-dkms > "$notes/files" 2>&1 || :
if ((status != 0)); then
	tail -n 30 "$notes/dpkg.log" >&2
	find "$root/var/lib/dkms" -name make.log -exec tail -n 30 {} + >&2 || :
	echo "walkthrough: dpkg -i $deb failed ($status)" >&2
	exit 1
fi

# what got installed, into the guest at the same paths
ko=$(find "$mods/$release/updates/dkms" -name 'ccache.ko*' 2>/dev/null | head -n 1)
if [[ -z $ko ]]; then
	cat "$notes/dpkg.log" >&2
	echo "walkthrough: DKMS installed no ccache.ko for $release" >&2
	exit 1
fi
rm -f "$stage/lib/modules/$release/extra/ccache.ko"
install -D -m 0644 "$ko" "$stage${ko#"$root"}"
while read -r f; do
	case $f in
	/etc/* | /usr/sbin/* | /usr/share/doc/*/examples/*)
		[[ -f $root$f ]] || continue
		mkdir -p "$stage$(dirname "$f")"
		cp -p "$root$f" "$stage$f"
		;;
	esac
done < "$notes/files"

# "Remove it": dpkg -r runs the prerm, which has DKMS remove the module;
# the guest test checks what it left
status=0
in_root dpkg -r ccache-dkms > "$notes/remove.log" 2>&1 || status=$?
echo "$status" > "$notes/remove.status"
{
	find "$mods" -name 'ccache.ko*'
	in_root dkms status -m ccache
	[[ ! -e $root/usr/sbin/ccachectl ]] || echo /usr/sbin/ccachectl
} > "$notes/remove.left" 2>&1
