#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The sysfs ABI is what Documentation/ABI/testing/sysfs-kernel-mm-ccache
# says: every file ccache creates under /sys/kernel/mm/ccache/ (offload
# backends included) and every knob in /sys/module/ccache/parameters/ has
# a "What:" entry there, and every entry exists ("<backend>" stands for
# each directory of offload/); the backends the offload/ entry lists are
# the directories of offload/.  Every file has the mode its entry's
# (RO), (RO, root only), (WO) or (RW) gives it; statistics are read-only
# in fact too and are decimal numbers, write-only files cannot be read,
# and no file shows a kernel pointer.
# tools/vm/boot.sh copies the ABI file into the guest.
# VM: mem=192 timeout=120
. ./lib/tap.sh
# shellcheck source=selftests/lib/abi.sh
. ./lib/abi.sh

ABI=/usr/share/doc/ccache/sysfs-kernel-mm-ccache
S=/sys/kernel/mm/ccache
P=/sys/module/ccache/parameters

if ! [ -r "$ABI" ]; then
	echo "# $ABI missing: tools/vm/boot.sh should copy it into the guest"
	tap_result 1 "the ABI file is in the guest"
	tap_done
fi
check "modprobe ccache" /sbin/modprobe ccache

# the documented paths, without a trailing slash
whats=$(abi_whats "$ABI")
# the files ccache shows, sorted
files=$(find "$S" "$P" -type f | sort)
check "ccache shows statistics and knobs" test -n "$files"
echo "# $(echo "$files" | wc -l) files, $(echo "$whats" | wc -l) What: entries"

# documented PATH: true when a What: entry names PATH; "<...>" in an
# entry stands for any one path component
# shellcheck disable=SC2317 # called through check
documented() {
	echo "$whats" | awk -v path="$1" '
		BEGIN { np = split(path, p, "/") }
		split($0, w, "/") == np {
			for (i = 1; i <= np; i++)
				if (w[i] != p[i] && w[i] !~ /^<[^>]*>$/)
					next
			found = 1
			exit
		}
		END { exit !found }'
}

for f in $files; do
	check "documented: $f" documented "$f"
done

# exists WHAT: true when the entry's file or directory exists; an entry
# with "<...>" must exist in every directory that component stands for
# (at least one)
exists() {
	case $1 in
	*'<'*'>'*'<'*) return 1 ;;	# one placeholder at most
	*'<'*)
		dir=${1%%<*}
		rest=${1#*>}
		n=0
		for d in "$dir"*/; do
			[ -d "$d" ] || return 1
			[ -e "${d%/}$rest" ] || { echo "missing ${d%/}$rest"; return 1; }
			n=$((n + 1))
		done
		[ "$n" -gt 0 ]
		;;
	*) [ -e "$1" ] ;;
	esac
}

for w in $whats; do
	out=$(exists "$w")
	tap_result $? "exists: $w"
	[ -z "$out" ] || echo "#   $out"
done
echo "# offload backends: $(cd "$S/offload" && echo *)"
check_eq "the offload/ entry lists the module's backends" \
	"$(abi_backends "$ABI" | LC_ALL=C sort | tr '\n' ' ')" \
	"$(find "$S/offload" -mindepth 1 -maxdepth 1 -type d -exec basename {} \; |
		LC_ALL=C sort | tr '\n' ' ')"

# "PATH TAG" for each What: line, TAG the (RO), (WO) or (RW) that opens
# its entry's description (entries without one, directories, print none)
tags=$(awk '
	/^What:/ { if (desc) { n = 0; desc = 0 } w[++n] = $2; next }
	/^Description:/ { desc = 1; next }
	desc && n && match($0, /\((RO|WO|RW)(, root only)?\)/) {
		t = substr($0, RSTART + 1, 2) (RLENGTH > 4 ? "-root" : "")
		for (i = 1; i <= n; i++) print w[i], t
		n = 0
	}' "$ABI")

# tag_of PATH: the tag of the entry that names PATH ("<...>" stands for
# any one path component), or nothing
tag_of() {
	echo "$tags" | awk -v path="$1" '
		BEGIN { np = split(path, p, "/") }
		split($1, w, "/") == np {
			for (i = 1; i <= np; i++)
				if (w[i] != p[i] && w[i] !~ /^<[^>]*>$/)
					next
			print $2
			exit
		}'
}

# every file's mode is its tag's: RO 444, "RO, root only" 400, WO 200
# (root only, and no reading), RW 644; stats and controls are the
# readable and WO files of $S
stats='' controls='' badmode=''
for f in $files; do
	tag=$(tag_of "$f")
	case $tag in
	RO) want=444 ;;
	RO-root) want=400 ;;
	WO) want=200 ;;
	RW) want=644 ;;
	*) want="(RO), (RO, root only), (WO) or (RW) in its entry" ;;
	esac
	[ "$(stat -c %a "$f")" = "$want" ] ||
		badmode="$badmode $f:$(stat -c %a "$f")/$want"
	case $f:$tag in
	"$S"/*:RO | "$S"/*:RO-root) stats="$stats $f" ;;
	"$S"/*:WO) controls="$controls $f" ;;
	esac
done
check_eq "every file has its entry's mode (RO 444, root-only RO 400, WO 200, RW 644)" \
	"$badmode" ""
echo "# write-only:$controls"
check "there is a write-only control file" test -n "$controls"

# root passes the mode check: writing must fail in sysfs itself
writes=
for f in $stats; do
	if (echo 0 > "$f") 2>/dev/null; then
		writes="$writes $f"
	fi
done
check_eq "writing to a statistic fails" "$writes" ""

# a write-only file cannot be read, by root either
reads=
for f in $controls; do
	if cat "$f" > /dev/null 2>&1; then
		reads="$reads $f"
	fi
done
check_eq "reading a write-only file fails" "$reads" ""

# every statistic is a decimal number; version is N.N.N
notnum=
for f in $stats; do
	v=$(cat "$f")
	case ${f##*/}:$v in
	version:[0-9]*.[0-9]*.[0-9]*) ;;
	version:*) notnum="$notnum $f='$v'" ;;
	*:'' | *:*[!0-9]*) notnum="$notnum $f='$v'" ;;
	esac
done
check_eq "every statistic is a decimal number" "$notnum" ""

# a kernel pointer: 16 hex digits from ffff, bare or after 0x
pointers=
for f in $files; do
	if grep -qiE '(^|[^0-9a-f])(0x)?ffff[0-9a-f]{12}([^0-9a-f]|$)' "$f" 2>/dev/null; then
		pointers="$pointers $f"
	fi
done
check_eq "no file shows a kernel pointer" "$pointers" ""

check "rmmod" /sbin/rmmod ccache
check_fails "the statistics are gone after unload" test -e "$S"
tap_done
