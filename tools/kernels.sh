#!/usr/bin/env bash
# kernels.sh - the Debian kernels ccache is built and tested on.
#
#   kernels.sh resolve SERIES      newest release of SERIES (6.1, 6.12 or 7;
#                                  6.1-debug: tools/debug-kernel.sh's)
#   kernels.sh fetch SERIES        headers + guest kernel for it; prints release
#   kernels.sh kdir RELEASE        kernel build directory (for make -C)
#   kernels.sh kbuild RELEASE SRCDIR [make args...]   build SRCDIR's module
#   kernels.sh guest RELEASE       dir holding vmlinux and lib/modules/RELEASE
#   kernels.sh checkers RELEASE    exit 0 when RELEASE is a debug kernel
#   kernels.sh list                releases already fetched
#
# 6.1: bookworm; 6.12: bookworm(-backports); 7.x: trixie-backports or sid,
# built in a debootstrapped trixie root (its headers need gcc-14).  Guest
# kernels are unpacked, never installed.  Progress goes to stderr.  The
# debug kernel is built by tools/debug-kernel.sh into the same cache, with
# its build tree as its kdir.
set -euo pipefail

CACHE=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
ROOT=$CACHE/roots/trixie
LOG=$CACHE/apt.log
TMP='' MOUNTED=''
export DEBIAN_FRONTEND=noninteractive
unmount() { [[ -z $MOUNTED ]] || umount "$MOUNTED"; MOUNTED=''; }
trap 'unmount; [[ -z $TMP ]] || rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP

# shellcheck source=tools/lib/msg.sh
. "$(dirname "$0")/lib/msg.sh"
# shellcheck source=tools/lib/archive.sh
. "$(dirname "$0")/lib/archive.sh"
usage() { sed -n '4,10s/^#  //p' "$0" >&2; exit 2; }

# Run a command with its output in $LOG (this command's only); on failure
# show the log's tail.
quiet() { mkdir -p "$CACHE" && : >"$LOG" && logged "$LOG" "$@"; }

# apt-get on the host, waiting for other users' dpkg lock.
apt_get() { apt-get -q -o DPkg::Lock::Timeout=600 "$@"; }

# Run a command inside the trixie root with a clean environment and /proc
# mounted (objtool needs it); unmount afterwards, also on errors (trap).
in_root() {
	local rc=0
	((EUID == 0)) || die "building for $ROOT needs root (chroot)"
	if ! mountpoint -q "$ROOT/proc"; then
		mount -t proc proc "$ROOT/proc" && MOUNTED=$ROOT/proc
	fi
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@" || rc=$?
	unmount
	return "$rc"
}

# The extra apt suites each series comes from.
series_suites() { case $1 in 6.12) echo bookworm-backports ;; 7) echo trixie-backports sid ;; esac; }

# 7.x and later cannot be built with the host's compiler.
needs_root() { [[ $1 != 6.* ]]; }


# Add apt entries (pinned low) for the series' suites; update when needed.
ensure_suites() {
	local suite want stanza update=0
	stanza=$(archive_stanza)
	for suite in $(series_suites "$1"); do
		want=$(with_suites "$stanza" "$suite")
		if [[ $(cat "$APT_DIR/ccache-$suite.sources" 2>/dev/null) != "$want" ]]; then
			msg "adding apt suite $suite (pinned low)"
			echo "$want" >"$APT_DIR/ccache-$suite.sources"
			printf 'Package: *\nPin: release n=%s\nPin-Priority: 10\n' \
				"$suite" >"/etc/apt/preferences.d/ccache-$suite"
			update=1
		fi
		compgen -G "/var/lib/apt/lists/*_dists_${suite}_*Release" >/dev/null || update=1
	done
	((update == 0)) || { msg "apt-get update" && quiet apt_get update; }
}

# The archive suite (e.g. trixie-backports) offering package $1.
suite_of() { apt-cache madison "$1" | awk 'NR == 1 { s = $(NF - 2); sub("/.*", "", s); print s }'; }

resolve() { # SERIES
	local re=${1//./\\.}\\. names avail rel
	[[ $1 != 6.1-debug ]] || exec "$(dirname "$0")/debug-kernel.sh" --release
	[[ $1 =~ ^(6\.1|6\.12|7)$ ]] || die "unknown series '$1' (expected 6.1, 6.12 or 7)"
	ensure_suites "$1"
	# Plain amd64 flavour only (not rt/cloud); both headers and image needed.
	names=$(apt-cache pkgnames linux- | grep -E "^linux-(headers|image)-$re.*-amd64(-unsigned)?\$" |
		grep -Ev -- '-(rt|cloud)-amd64' || true)
	# shellcheck disable=SC2086 # one package name per word
	[[ -n $names ]] && avail=$(apt-cache madison $names | awk '{ print $1 }' | sort -u)
	while read -r rel; do
		grep -qxF -e "linux-image-$rel" -e "linux-image-$rel-unsigned" <<<"$avail" &&
			{ echo "$rel" && return; }
	done < <(sed -n 's/^linux-headers-//p' <<<"${avail:-}" | sort -rV)
	die "no $1.x kernel with headers found in $(series_suites "$1" | sed 's/ / or /;s/^$/bookworm/')"
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }

# Host tools this script needs (decompressors, ELF/modules tools).
ensure_tools() {
	local p missing
	missing=$(for p in xz:xz-utils zstd lz4 bzip2 readelf:binutils depmod:kmod debootstrap make; do
		command -v "${p%%:*}" >/dev/null || echo "${p#*:}"
	done)
	[[ -z $missing ]] && return
	msg "installing ${missing//$'\n'/ }"
	# shellcheck disable=SC2086 # one package name per word
	quiet apt_get -y install $missing
}

host_headers() { # RELEASE
	installed "linux-headers-$1" && return
	local suite
	suite=$(suite_of "linux-headers-$1")
	msg "installing linux-headers-$1 from $suite"
	# 6.12's headers depend on its image: skip making an initrd nobody boots.
	INITRD=No quiet apt_get -y --no-install-recommends install -t "$suite" "linux-headers-$1"
}

root_headers() { # RELEASE
	[[ -f $ROOT/.ccache-$1 ]] && return
	local stanza mirror suite keys inc=make,gcc,libc6-dev,kmod,debian-archive-keyring
	stanza=$(archive_stanza)
	mirror=$(awk '/^URIs:/ { print $2; exit }' <<<"$stanza")
	suite=$(suite_of "linux-headers-$1")
	if [[ ! -x $ROOT/usr/bin/apt-get ]]; then
		[[ $mirror == https:* ]] && inc+=,ca-certificates
		msg "debootstrapping trixie into $ROOT (a few minutes)"
		rm -rf "$ROOT.new"
		quiet debootstrap --variant=minbase --include="$inc" trixie "$ROOT.new" "$mirror"
		mv "$ROOT.new" "$ROOT"
	fi
	# Same mirror, keys and Acquire settings as the host; trixie + $suite.
	rm -f "$ROOT/etc/apt/sources.list"
	with_suites "$stanza" "trixie $suite" >"$ROOT/etc/apt/sources.list.d/debian.sources"
	keys=$(awk '/^Signed-By:/ { print $2; exit }' <<<"$stanza")
	[[ $keys != /* || -e $ROOT$keys ]] || install -Dm644 "$keys" "$ROOT$keys"
	apt-config dump | grep -E '^Acquire::Check-(Valid-Until|Date) ' >"$ROOT/etc/apt/apt.conf.d/99ccache-host" || true
	msg "installing linux-headers-$1 from $suite in the trixie root"
	quiet in_root apt-get -q update
	quiet in_root apt-get -q -y install -t "$suite" "linux-headers-$1"
	touch "$ROOT/.ccache-$1"
}

# extract-vmlinux: find a compressed stream in IMAGE whose output is an ELF.
extract_vmlinux() { # IMAGE OUT
	local magic off tool
	[[ -f $1 ]] || die "no kernel image $1"
	while read -r magic tool; do
		read -ra tool <<<"$tool"
		for off in $(LC_ALL=C grep -obUaP "$magic" "$1" | cut -d: -f1 | head -n 20); do
			tail -c +"$((off + 1))" "$1" | "${tool[@]}" >"$2.tmp" 2>/dev/null || true
			readelf -h "$2.tmp" >/dev/null 2>&1 && { mv "$2.tmp" "$2" && return; }
		done
	done <<-'EOF'
		\x28\xb5\x2f\xfd zstd -dcq
		\xfd\x37\x7a\x58\x5a\x00 xz -dc
		\x1f\x8b\x08 gzip -dc
		\x02\x21\x4c\x18 lz4 -dc
		\x42\x5a\x68 bzip2 -dc
		\x5d\x00\x00\x00 xz -dc --format=lzma
	EOF
	rm -f "$2.tmp"
	die "no compressed ELF kernel found in $1"
}

guest_kernel() { # RELEASE
	local rel=$1 dir=$CACHE/kernels/$1 pkgs deb mods f
	[[ -f $dir/.complete ]] && return
	# Prefer unsigned; 7.x splits the image into binary + modules + base.
	pkgs=$(apt-cache madison "linux-binary-unsigned-$rel" "linux-binary-$rel" \
		"linux-image-$rel-unsigned" "linux-image-$rel" | awk 'NR == 1 { print $1 }')
	[[ -n $pkgs ]] || die "no image package for $rel in the archive"
	[[ $pkgs == linux-binary-* ]] && pkgs+=" linux-modules-$rel linux-base-$rel"
	msg "unpacking $pkgs into $dir"
	TMP=$(mktemp -d)
	# shellcheck disable=SC2086 # package names are single words
	(cd "$TMP" && quiet apt_get download $pkgs)
	rm -rf "$dir" && mkdir -p "$dir"
	for deb in "$TMP"/*.deb; do dpkg -x "$deb" "$dir"; done
	rm -rf "$TMP" && TMP=''
	[[ -d $dir/lib/modules || ! -d $dir/usr/lib/modules ]] || # usrmerged package
		{ mkdir -p "$dir/lib" && mv "$dir/usr/lib/modules" "$dir/lib/"; }
	mods=$dir/lib/modules/$rel
	[[ -d $mods ]] || die "no lib/modules/$rel in $pkgs"
	# 7.x ships vmlinuz{,.unsigned}, config, System.map in lib/modules/REL:
	# move them to boot/NAME-REL like older releases.
	mkdir -p "$dir/boot"
	for f in vmlinuz.unsigned:vmlinuz vmlinuz config System.map; do
		[[ ! -f $mods/${f%:*} ]] || mv "$mods/${f%:*}" "$dir/boot/${f#*:}-$rel"
	done
	extract_vmlinux "$dir/boot/vmlinuz-$rel" "$dir/vmlinux"
	readelf -n "$dir/vmlinux" | grep -Eq 'PHYS32_ENTRY|type: \(0x0*12\)' ||
		msg "warning: $dir/vmlinux has no PVH entry note; microvm cannot boot it directly"
	# busybox insmod wants plain .ko files; depmod then lists those.
	find "$mods" -name '*.ko.xz' -print0 | xargs -0r -n 64 -P "$(nproc)" xz -dq
	find "$mods" -name '*.ko.zst' -print0 | xargs -0r -n 64 -P "$(nproc)" zstd -dq --rm
	find "$mods" -name '*.ko.gz' -print0 | xargs -0r -n 64 -P "$(nproc)" gzip -dq
	depmod -b "$dir" "$rel"
	touch "$dir/.complete"
}

fetch() { # SERIES
	local rel
	((EUID == 0)) || die "fetch needs root (apt-get, debootstrap)"
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock" && flock 9 # one fetch at a time
	ensure_tools
	rel=$(resolve "$1")
	if needs_root "$rel"; then root_headers "$rel"; else host_headers "$rel"; fi
	guest_kernel "$rel"
	echo "$rel"
}

kdir() { # RELEASE
	local d=/usr/src/linux-headers-$1 built=$CACHE/kernels/$1
	needs_root "$1" && d=$ROOT$d
	[[ ! -f $built/.complete || ! -f $built/build/Makefile ]] || d=$built/build
	[[ -f $d/Makefile ]] || die "no headers for $1 at $d: run 'kernels.sh fetch SERIES' (tools/debug-kernel.sh for 6.1-debug) first"
	echo "$d"
}

kbuild() { # RELEASE SRCDIR [make args...]
	local kd src dst knobs rc=0
	kd=$(kdir "$1")
	src=$(cd "$2" 2>/dev/null && pwd) || die "no source directory $2"
	dst=/build/${src##*/}
	needs_root "$1" || { shift 2 && exec make -C "$kd" M="$src" "$@"; }
	shift 2
	exec 9>"$ROOT/.kbuild.lock" && flock 9 # one 7.x build at a time: they share /proc
	rm -rf "${ROOT:?}$dst" && mkdir -p "$ROOT$dst"
	tar -C "$src" --exclude=.git --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
		--exclude=Module.symvers -cf - . | tar -C "$ROOT$dst" -xf -
	# Pass the build knobs a clean chroot environment would lose (not MAKEFLAGS:
	# the caller's jobserver does not exist in there).
	mapfile -t knobs < <(env | grep -E '^(CCDEV_[A-Z_]*|KBUILD_[A-Z_]*|KCFLAGS|KCPPFLAGS|V|W)=' || true)
	in_root "${knobs[@]}" make -C "${kd#"$ROOT"}" M="$dst" "$@" || rc=$?
	# Mirror the results: no stale .ko (maybe of another release) survives.
	find "$src" -path "$src/.git" -prune -o \( -name '*.ko' -o -name Module.symvers \) -exec rm -f {} +
	(cd "$ROOT$dst" && find . \( -name '*.ko' -o -name Module.symvers \) \
		-exec cp --parents -t "$src" {} +)
	exit "$rc"
}

guest() { # RELEASE
	local dir=$CACHE/kernels/$1
	[[ -f $dir/.complete ]] || die "guest kernel $1 not fetched: run 'kernels.sh fetch SERIES' (tools/debug-kernel.sh for 6.1-debug) first"
	echo "$dir"
}

# A debug kernel (tools/debug-kernel.sh) runs everything about ten times
# slower than a stock one; boot.sh and run.sh size their work by this.
checkers() { # RELEASE
	grep -qs '^CONFIG_KASAN=y' "$(guest "$1")"/boot/config-*
}

list() {
	local f
	for f in "$CACHE"/kernels/*/.complete; do [[ ! -e $f ]] || basename "${f%/.complete}"; done | sort -V
}

cmd=${1:-}
shift || true
case $cmd:$# in
resolve:1 | fetch:1 | kdir:1 | guest:1 | checkers:1) "$cmd" "$1" ;;
kbuild:[2-9] | kbuild:[1-9][0-9]) kbuild "$@" ;;
list:0) list ;;
*) usage ;;
esac
