#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# DKMS builds ccache.ko the way the ccache-dkms package has it built: from
# the tree "make dkms-src" makes (the package's /usr/src/ccache-VERSION),
# with dkms.conf's plain kbuild line, for the 6.1, 6.12 and 7.x kernels
# that tools/kernels.sh resolves.  6.x builds with the host's dkms and
# headers; 7.x with dkms inside kernels.sh's trixie root, as its headers
# need that root's compiler.  Each module must carry its kernel's vermagic
# and no test-only knob (a build for users: Kbuild, CCDEV_FAULT_INJECT).
# Every DKMS tree is private (--dkmstree, --sourcetree, --installtree, and
# the signing key, in a temporary directory): nothing is installed into
# /lib/modules, nothing loaded.  A kernel without headers, or without dkms
# to build it, is a skip; the whole test skips when no kernel can be built.
set -uo pipefail
# a build for users, whatever the caller's environment asks of make
unset CCDEV_FAULT_INJECT
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh

kernels=tools/kernels.sh
series=(6.1 6.12 7)

# ---- which kernels can be built here: "REL KDIR" or "REL|why not" ----
builds=() skips=()
for s in "${series[@]}"; do
	if ! rel=$("$kernels" resolve "$s" 2>/dev/null); then
		skips+=("$s|tools/kernels.sh cannot resolve $s")
	elif ! kd=$("$kernels" kdir "$rel" 2>/dev/null); then
		skips+=("$rel|no headers for $rel (tools/setup.sh --all)")
	elif [[ $kd == /usr/src/* ]]; then
		if command -v dkms >/dev/null; then
			builds+=("$rel $kd")
		else
			skips+=("$rel|no dkms on the host (make dkms-deb or tools/setup.sh --for package installs it, make check does not)")
		fi
	elif ((EUID != 0)); then
		skips+=("$rel|building in ${kd%/usr/src/*} needs root (chroot)")
	elif [[ ! -x ${kd%/usr/src/*}/usr/sbin/dkms ]]; then
		skips+=("$rel|no dkms in ${kd%/usr/src/*} (tools/setup.sh --all --for package installs it)")
	else
		builds+=("$rel $kd")
	fi
done
if ((${#builds[@]} == 0)); then
	tap_skip_all "$(printf '%s; ' "${skips[@]/|/: }" | sed 's/; $//')"
fi

top=$(mktemp -d "${TMPDIR:-/tmp}/ccache-dkms.XXXXXX") || exit 1
root_tmp='' proc=''
trap '[[ -z $proc ]] || umount "$proc"; rm -rf "$top" ${root_tmp:+"$root_tmp"}' EXIT
trap 'exit 130' INT TERM HUP

# ---- the DKMS source tree ----
version=$(sed -n 's/^#define CCACHE_VERSION "\(.*\)"$/\1/p' ccache/ccache.h)
src=$top/ccache-$version
make -s --no-print-directory dkms-src DIST="$top" >/dev/null 2>&1
check "make dkms-src makes $(basename "$src")" test -f "$src/dkms.conf"
[[ -f $src/dkms.conf ]] || tap_done
check_eq "dkms.conf has CCACHE_VERSION ($version)" \
	"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$src/dkms.conf")" "$version"

# show_log TREE REL: the end of a failed build's make.log, as TAP comments
show_log() {
	local log
	log=$(find "$1" -name make.log -path "*$2*" 2>/dev/null | head -n 1)
	[[ -n $log ]] || log=$(find "$1" -name make.log 2>/dev/null | head -n 1)
	[[ -z $log ]] || tail -n 20 "$log" | sed 's/^/#   /'
}

# in_root ROOT COMMAND...: COMMAND in ROOT, with a clean environment
in_root() {
	local r=$1
	shift
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 "$@"
}

# dkms_state OUTPUT: the state in "dkms status" output (built, installed)
dkms_state() { sed -n 's/.*: //p' <<<"$1" | head -n 1; }

# check_built TREE REL [ROOT]: dkms left ccache.ko (maybe compressed) for
# REL in TREE, modinfo (ROOT's, if given) says it is REL's, and it is a
# build for users: without the test-only fault injection knobs
check_built() {
	local tree=$1 rel=$2 r=${3:-} ko vermagic parms
	ko=$(find "$tree/ccache/$version/$rel" -path '*/module/ccache.ko*' 2>/dev/null | head -n 1)
	check "$rel: dkms built module/$(basename "${ko:-ccache.ko}")" test -n "$ko"
	[[ -n $ko ]] || return
	if [[ -n $r ]]; then
		vermagic=$(in_root "$r" modinfo -F vermagic "${ko#"$r"}" 2>&1)
		parms=$(in_root "$r" modinfo -F parm "${ko#"$r"}" 2>&1)
	else
		vermagic=$(modinfo -F vermagic "$ko" 2>&1)
		parms=$(modinfo -F parm "$ko" 2>&1)
	fi
	check_eq "$rel: vermagic is $rel's" "${vermagic%% *}" "$rel"
	check "$rel: it has the knobs (max_pool_percent)" \
		grep -q '^max_pool_percent:' <<<"$parms"
	check_fails "$rel: no test-only knob (fault_inject, fault_every)" \
		grep -q '^fault_' <<<"$parms"
}

# build WHERE REL KDIR DKMS...: add (once per tree), build and check, with
# DKMS... the dkms command of that tree; WHERE names it in the output
declare -A added
build() {
	local where=$1 rel=$2 kd=$3 tree=$4 status
	shift 4
	if [[ -z ${added[$tree]:-} ]]; then
		added[$tree]=y
		mkdir -p "$tree"
		check "dkms add -m ccache -v $version ($where)" "$@" add -m ccache -v "$version"
	fi
	"$@" build -m ccache -v "$version" -k "$rel" --kernelsourcedir "$kd" >/dev/null 2>&1
	status=$?
	tap_result $status "$rel: dkms build ($where)"
	((status == 0)) || show_log "$tree" "$rel"
	check_eq "$rel: dkms status says built" \
		"$(dkms_state "$("$@" status -m ccache -v "$version" -k "$rel" 2>/dev/null)")" built
}

# ---- 6.x: the host's dkms, private trees under $top ----
# shellcheck disable=SC2317 # called through build
host_dkms() {
	env -u CCDEV_WERROR -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		mok_signing_key="$top/mok.key" mok_certificate="$top/mok.pub" \
		dkms "$@" --dkmstree "$top/tree" --sourcetree "$top" --installtree "$top/modules"
}
build_host() { # REL KDIR
	build host "$1" "$2" "$top/tree" host_dkms
	check_built "$top/tree" "$1"
}

# ---- 7.x: dkms in the trixie root (its headers need its gcc) ----
root='' t=''
# shellcheck disable=SC2317 # called through build
root_dkms() {
	in_root "$root" mok_signing_key="$t/mok.key" mok_certificate="$t/mok.pub" \
		dkms "$@" --dkmstree "$t/tree" --sourcetree "$t" --installtree "$t/modules"
}
build_root() { # REL KDIR
	root=${2%/usr/src/*}
	root_tmp=$(mktemp -d "$root/tmp/ccache-dkms.XXXXXX") || exit 1
	t=${root_tmp#"$root"}
	cp -R "$src" "$root_tmp/"
	# one build in the root at a time, as kernels.sh kbuild: they share /proc
	exec 9>"$root/.kbuild.lock" && flock 9
	if ! mountpoint -q "$root/proc"; then
		mount -t proc proc "$root/proc" && proc=$root/proc
	fi
	build "in the trixie root" "$1" "${2#"$root"}" "$root_tmp/tree" root_dkms
	[[ -z $proc ]] || { umount "$proc"; proc=''; }
	exec 9>&-
	check_built "$root_tmp/tree" "$1" "$root"
}

for b in "${builds[@]}"; do
	read -r rel kd <<<"$b"
	if [[ $kd == /usr/src/* ]]; then build_host "$rel" "$kd"; else build_root "$rel" "$kd"; fi
done
for s in "${skips[@]}"; do
	tap_skip "${s%%|*}: build with DKMS" "${s#*|}"
done
tap_done
