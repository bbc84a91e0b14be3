#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/tiers.py, the model of a page cache and a pool under
# webload's load: on made-up manifests whose answer is known, a page cache
# alone serves what an LRU of its size serves, pages the tiers hold
# together are never read from the disk, a pool counts its memory at
# RATIO of a page per page, the model never beats bound.py's least, a
# warm-up too short to fill the tiers is reported, and the freq policy
# keeps a file asked for once out of a full pool where lru lets it in.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
tiers=../tools/bench/tiers.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_tiers.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# disk KiB per request (column 5) of the row whose first column is $1
disk() {
	printf '%s\n' "$2" | awk -v c="$1" '$1 == c { print $5 }'
}

# within LOW HIGH VALUE
# shellcheck disable=SC2317 # called through check
within() {
	awk -v l="$1" -v h="$2" -v v="$3" 'BEGIN { exit !(v >= l && v <= h) }'
}

page=0.00390625		# one 4 KiB page in MiB
for i in 1 2 3 4; do echo "/f$i 4096 0"; done > "$tmp/flat"

# zipf 0: four files asked alike; two pages of page cache hold half of them
out=$(python3 "$tiers" -z 0 -n 20000 "$tmp/flat" 0.0078125:0:1 2>&1)
tap_result $? "tiers.py runs"
got=$(disk 0.0078125 "$out")
check "2 pages of page cache for 4 asked alike: about 2 KiB a request ($got)" \
	within 1.9 2.1 "$got"

out=$(python3 "$tiers" -z 0 -n 20000 "$tmp/flat" "$page:0.01171875:1" 2>&1)
check_eq "a page of page cache and 3 of pool hold all four: nothing read" \
	"$(disk "$page" "$out")" 0.00

out=$(python3 "$tiers" -z 0 -n 20000 "$tmp/flat" "$page:0.005859375:0.5" 2>&1)
check_eq "1.5 pages of pool at ratio 0.5 hold 3 pages: nothing read" \
	"$(disk "$page" "$out")" 0.00

# zipf 1 over files of 1 to 4 pages: no policy beats the bound
for i in $(seq 1 200); do
	echo "/z$i $(((i % 4 + 1) * 4096)) 0"
done > "$tmp/zipf"
for policy in lru freq; do
	out=$(python3 "$tiers" -z 1 -n 40000 -p "$policy" "$tmp/zipf" \
		0.0390625:0.0390625:0.5 2>&1)
	over=$(printf '%s\n' "$out" | awk '$1 == "0.0390625" { print $8 }')
	check "policy $policy reads at least bound.py's least ($over times it)" \
		within 1 100 "$over"
done

out=$(python3 "$tiers" -z 1 -n 4 "$tmp/zipf" 0.390625:0:1 2>&1)
check "two requests of warm-up cannot fill 100 pages: it says so" \
	grep -q 'did not fill the tiers' <<< "$out"
out=$(python3 "$tiers" -z 0 -n 20000 "$tmp/flat" 0.0078125:0:1 2>&1)
check_fails "20,000 fill 2 of 4 pages: no such warning" \
	grep -q 'did not fill' <<< "$out"

# the admission: a file asked for once against one asked for five times
admit() {
	python3 -c "
import collections, sys
sys.path.insert(0, '../tools/bench')
import tiers
counts = collections.Counter(hot=5, cold=1)
pool = tiers.Pool(1, '$1', counts)
pool.offer('hot', 1)
pool.offer('cold', 1)
print(' '.join(pool.files))"
}
check_eq "lru: the newer file takes the full pool's only page" \
	"$(admit lru)" cold
check_eq "freq: a file asked for five times keeps out one asked for once" \
	"$(admit freq)" hot

check_fails "tiers that are not CACHE:POOL:RATIO are refused" \
	python3 "$tiers" "$tmp/flat" 1:2
check_fails "a ratio of 0 is refused" python3 "$tiers" "$tmp/flat" 1:1:0
tap_done
