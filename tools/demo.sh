#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Show ccache at work: two guests with the same RAM and the same throttled
# disk holding a compressible file set 1.25x the size of RAM each read the
# whole set twice from a cold cache, one with ccache loaded and one without.
# Prints the disk reads of each pass side by side, the disk reads ccache
# saved on the second pass, and ccache's statistics.
#
# usage: demo.sh [RAM_MIB]     (default 256; needs ccache.ko built: make)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${CCACHE_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
mem=${1:-256}
mib=$((mem * 5 / 4))
set=$cache/fileset-$mib
if [[ ! -d $set ]]; then
	echo "demo: writing a $mib MiB file set to $set" >&2
	rm -rf "$set.tmp"
	python3 "$here/gen-fileset.py" "$set.tmp" "$mib"
	mv "$set.tmp" "$set"
fi
# A disk of 16 MiB/s: under TCG the guest's CPU is several times slower
# than on hardware, so the disk is slowed to keep the same balance.
disk="ext4:$((mib * 3 / 2 + 64))M:src=$set:bps=$((16 << 20))"

logs=$(mktemp -d "${TMPDIR:-/tmp}/ccache-demo.XXXXXX")
trap 'rm -rf "$logs"' EXIT
echo "demo: booting two guests with $mem MiB RAM each, without and with ccache" >&2
for mode in off on; do
	"$here/vm/boot.sh" -m "$mem" -t 1200 -d "$disk" -a "ccache_demo=$mode" \
		-o "$logs/$mode.log" "$here/demo.guest" > "$logs/$mode.out" 2>&1 &
done
failed=0
for job in $(jobs -p); do
	wait "$job" || failed=1
done
if [[ $failed == 1 ]]; then
	cat "$logs"/*.out >&2
	exit 1
fi

# value KEY MODE: a DEMO line's value
value() {
	sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" "$logs/$2.log" | head -n 1
}
printf '\nFile set: %s MiB of text-like files on a disk throttled to 16 MiB/s; guest RAM %s MiB\n\n' "$mib" "$mem"
printf '%-16s %16s %16s %14s\n' "" "pass 1 read MiB" "pass 2 read MiB" "pass 2 time s"
for mode in off on; do
	printf '%-16s %16d %16d %14s\n' "ccache $mode" \
		$(($(value pass1_kib "$mode") / 1024)) \
		$(($(value pass2_kib "$mode") / 1024)) "$(value pass2_s "$mode")"
done
off=$(value pass2_kib off) on=$(value pass2_kib on)
printf '\nDisk reads saved by ccache on pass 2: %d MiB (%d%%)\n\n' \
	$(((off - on) / 1024)) $((off > 0 ? (off - on) * 100 / off : 0))
echo "ccache statistics (/sys/kernel/mm/ccache):"
sed -n 's/^DEMO stat /  /p' "$logs/on.log"
