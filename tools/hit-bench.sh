#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Measure what a hit costs the task that reads: in a fresh guest per run, a
# compressible file set half the size of the guest's RAM is read, pushed
# into the pool by memory pressure (pool_sizing=fixed, max_pool_percent=60)
# and read again; the second pass's decompression time (decompress_ns, the
# reading task's clock around each page's decompression) over its hits is
# the cost of a hit.  With -A TREE, TREE/ccache.ko (a worktree of another
# commit, built for the same kernel) runs beside this tree's module, the
# runs in turns, so that a change to the read path is measured against its
# parent in one run.  With -b, a busy loop per vCPU runs through the second
# pass, so that the reader is preempted as on a loaded server: its clock
# should still count only the decompressions.  Every run compares the two
# passes' checksums.
#
# usage: hit-bench.sh [-m RAM_MIB] [-r ROUNDS] [-k RELEASE] [-A TREE] [-b]
#   defaults: 256 MiB, 3 rounds, the 6.1 kernel; needs ccache.ko built
#   for it (make KVER=...)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib/fileset.sh
. "$here/lib/fileset.sh"
mem=256 rounds=3 kernel=() alt='' busy=0
while getopts "m:r:k:A:b" opt; do
	case $opt in
	m) mem=$OPTARG ;;
	r) rounds=$OPTARG ;;
	k) kernel=(-k "$OPTARG") ;;
	A) alt=$OPTARG ;;
	b) busy=1 ;;
	*) sed -n '17,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
modules=("$here/../ccache.ko")
names=(this)
if [[ -n $alt ]]; then
	[[ -f $alt/ccache.ko ]] || { echo "hit-bench: no $alt/ccache.ko" >&2; exit 1; }
	modules+=("$alt/ccache.ko")
	names+=(alt)
fi
mib=$((mem / 2))
set=$(fileset "$mib")
out=$(mktemp -d "${TMPDIR:-/tmp}/hit-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "hit-bench: $rounds rounds of ${names[*]}, $mem MiB guests, a $mib MiB file set" >&2
for ((r = 1; r <= rounds; r++)); do
	for i in "${!modules[@]}"; do
		CCDEV_TCG_THREAD=multi "$here/vm/boot.sh" "${kernel[@]}" \
			-M "${modules[$i]}" -m "$mem" -c 2 -t 1200 -a "hit_busy=$busy" \
			-d "ext4:$((mib * 3 / 2 + 64))M:src=$set" \
			-o "$out/${names[$i]}.$r" "$here/hit-bench.guest" >&2 || {
			echo "hit-bench: ${names[$i]} round $r failed: $out/${names[$i]}.$r" >&2
			trap - EXIT
			exit 1
		}
		grep '^HIT' "$out/${names[$i]}.$r" | sed "s/^HIT/HIT ${names[$i]} round=$r/" |
			tee -a "$out/all" >&2
	done
done

printf '\nFile set %s MiB, read, pushed into the pool and read again; %s MiB guests,' "$mib" "$mem"
printf ' 2 vCPUs, TCG%s\n\n' "$( ((busy)) && echo ', a busy loop per vCPU during the second pass')"
printf '%-6s %7s %20s %12s %10s\n' module runs "ns/hit median [min-max]" "hits median" mismatches
for name in "${names[@]}"; do
	grep "^HIT $name " "$out/all" | awk -v name="$name" '
		function f(k,   i, kv) {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
		}
		function median(a, n,   i, j, t) {
			for (i = 2; i <= n; i++)
				for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{
			n++; h[n] = f("hits"); ns[n] = h[n] ? f("decompress_ns") / h[n] : 0
			bad += f("mismatches")
		}
		END {
			for (i = 1; i <= n; i++) c[i] = ns[i]
			m = median(c, n); lo = c[1]; hi = c[n]
			printf "%-6s %7d %20s %12d %10d\n", name, n,
				sprintf("%d [%d-%d]", m, lo, hi), median(h, n), bad
		}'
done
printf '\nns/hit: decompress_ns / hits over the second pass (zsmalloc copy excluded,\n'
printf 'the time of the decompressor call only).  Reproduce: tools/hit-bench.sh -m %s -r %s%s%s\n' \
	"$mem" "$rounds" "${alt:+ -A $alt}" "$( ((busy)) && echo ' -b')"
