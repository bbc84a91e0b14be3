#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Measure what capturing costs on the reclaim path, side by side in one
# guest: a reader streams a compressible file set twice the size of the
# guest's RAM (so reclaim evicts, and ccache captures, all the time) with
# no module, with offload=inline (compression inside the capture probe) and
# with offload=cpu (the probe only copies; threads on the idle core
# compress).  Prints per configuration the streaming rate and the time
# spent in the capture probe per captured page, against the cost of one
# 4 KiB memcpy measured in the same kernel.
#
# usage: offload-bench.sh [-m RAM_MIB] [-c CPUS] [-r ROUNDS] [-k RELEASE]
#   defaults: 256 MiB, 2 vCPUs (one idle core for offload=cpu), 3 rounds,
#   the 6.1 kernel.  Needs ccache.ko and the test modules built for it
#   (make KVER=6.1 all test-modules).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/lib/fileset.sh
. "$here/lib/fileset.sh"
mem=256 cpus=2 rounds=3 kernel=()
while getopts "m:c:r:k:" opt; do
	case $opt in
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	r) rounds=$OPTARG ;;
	k) kernel=(-k "$OPTARG") ;;
	*) sed -n '13,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
mib=$((mem * 2))
set=$(fileset "$mib")
log=$(mktemp "${TMPDIR:-/tmp}/ccache-bench.XXXXXX")
trap 'rm -f "$log"' EXIT
echo "offload-bench: one guest, $mem MiB RAM, $cpus vCPUs, $rounds rounds of each configuration" >&2
# one host thread per vCPU, so that the second vCPU is a real idle core
CCDEV_TCG_THREAD=multi "$here/vm/boot.sh" "${kernel[@]}" -m "$mem" -c "$cpus" -t 3000 \
	-d "ext4:$((mib * 3 / 2 + 64))M:src=$set" -a "bench_rounds=$rounds" \
	-o "$log" "$here/offload-bench.guest" >&2

# field KEY LINE: a BENCH line's value
field() { sed -n "s/.*\<$1=\([0-9.]*\).*/\1/p" <<<"$2"; }
memcpy=$(grep '^BENCH memcpy' "$log")
cold=$(field cold_ns "$memcpy") hot=$(field hot_ns "$memcpy")
printf '\nFile set %s MiB (twice the RAM), read once from a cold page cache per run;\n' "$mib"
printf 'guest: %s MiB RAM, %s vCPUs, TCG; one 4 KiB memcpy in this kernel: %s ns (cold), %s ns (hot)\n\n' \
	"$mem" "$cpus" "$cold" "$hot"
printf '%-8s %8s %15s %8s %14s %14s %14s\n' offload "MiB/s" "(min-max)" "vs none" \
	"captured/run" "probe ns/page" "x cold memcpy"
base=''
for mode in none inline cpu; do
	grep "^BENCH mode=$mode " "$log" | awk -v mode="$mode" -v cold="$cold" -v base="$base" '
		function f(k,   i, kv) {
			for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) return kv[2] }
		}
		{
			r = f("kib") / 1024 / f("s")
			if (!n || r < lo) lo = r
			if (!n || r > hi) hi = r
			kib += f("kib"); s += f("s"); cap += f("captures"); ns += f("capture_ns"); n++
		}
		END {
			rate = kib / 1024 / s
			per = cap ? ns / cap : 0
			printf "%-8s %8.1f %15s %8s %14d %14s %14s\n", mode, rate,
				sprintf("(%.0f-%.0f)", lo, hi),
				base ? sprintf("%d%%", rate * 100 / base) : "-", cap / n,
				cap ? sprintf("%d", per) : "-",
				cap ? sprintf("%.2f", per / cold) : "-"
			print rate > "/dev/stderr"
		}' 2>"$log.rate"
	[[ -n $base ]] || base=$(cat "$log.rate")
done
rm -f "$log.rate"
printf '\nMiB/s: the mean over the rounds (total read / total time), and the slowest\n'
printf 'and fastest round.  probe ns/page: capture_ns / captures, the time the\n'
printf 'eviction probe spends per captured page inside reclaim (compression\n'
printf 'included for inline).  x cold memcpy: that time over one 4 KiB copy between\n'
printf 'pages not in the CPU caches, measured in the same kernel.\n'
printf 'Reproduce: tools/offload-bench.sh -m %s -c %s -r %s\n' "$mem" "$cpus" "$rounds"
