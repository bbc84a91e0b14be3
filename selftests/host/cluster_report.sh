#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/cluster-report.py, the report of make bench-cluster, on a
# results directory made up here with the lines web-bench.sh --cluster
# writes: throughputs chosen for each verdict (answers without an error
# only), each server's responses and disk reads per request from the
# marks around the measured phase, the leave phase's moves from the route
# probes, the servers' disk throttle (their vCPUs' share of the
# calibrated rate, or the whole rate), their prefill (the whole docset,
# or with URI hashing their shares), and exit status 1, naming the run,
# for a mismatched body but not for an error status.  Without matplotlib.
# HOST: timeout=60
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
report=../tools/bench/cluster-report.py
dir=$(mktemp -d "${TMPDIR:-/tmp}/cluster_report.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/logs"

# fake RUN RPS ERRORS MISMATCHES: RUN's results: RPS * 10 s answered
# (ERRORS more with an error status); web1 and web2 each answer half,
# web1 reading its disk 0.5 times per response and web2 0.25 times, with
# 30 hits and 10 misses each, and web1 dropping 40 pages for a full
# staging area; web1's CPU idle or in iowait 150 of 1,000 ticks, web2's
# 200 ticks in the 10 s between its marks (a run before cpu_busy); web1
# compressing for 0.6 s and decompressing for 0.3 s
fake() {
	local ok=$(($2 * 10)) f=$dir/logs/$1.cluster s
	{
		for s in web1 web2; do
			echo "CLUSTER-MARK phase=start server=$s t=1 disk_ios=100 disk_kib=1000 hits=5 misses=5 captures=0 reject_staging_full=2 reject_pool_limit=0 shrinker_frees=0 stored_pages=0 mem_used=0 cached_kib=1024 cpu_idle=0 cpu_iowait=0 cpu_busy=0 compress_ns=0 decompress_ns=0"
		done
		echo "CLUSTER-HAPROXY phase=start web1=7 web2=9"
		echo "CLUSTER-MARK phase=end server=web1 t=11 disk_ios=$((100 + ok / 4)) disk_kib=$((1000 + ok * 2)) hits=35 misses=15 captures=9 reject_staging_full=42 reject_pool_limit=0 shrinker_frees=0 stored_pages=256 mem_used=1048576 cached_kib=2048 cpu_idle=100 cpu_iowait=50 cpu_busy=850 compress_ns=600000000 decompress_ns=300000000"
		echo "CLUSTER-MARK phase=end server=web2 t=11 disk_ios=$((100 + ok / 8)) disk_kib=$((1000 + ok)) hits=35 misses=15 captures=9 stored_pages=256 mem_used=1048576 cached_kib=2048 cpu_idle=200 cpu_iowait=0"
		echo "CLUSTER-HAPROXY phase=end web1=$((7 + ok / 2)) web2=$((9 + ok / 2))"
		echo "CLUSTER phase=measured requests=$((ok + $3)) bytes=1 errors=$3 mismatches=$4 seconds=10.000 rps=0 p99_ms=50.0"
		echo "CLUSTER phase=verify requests=100 bytes=1 errors=0 mismatches=0 seconds=1.0"
	} > "$f"
}
# routes RUN: the probes of a leave phase: /a and /b on web1, /c and /d
# on web2; web2 out: all on web1; back: /d stays on web1
routes() {
	printf 'CLUSTER-ROUTE state=%s\n' "up /a web1" "up /b web1" "up /c web2" \
		"up /d web2" "maint /a web1" "maint /b web1" "maint /c web1" \
		"maint /d web1" "ready /a web1" "ready /b web1" "ready /c web2" \
		"ready /d web1" >> "$dir/logs/$1.cluster"
}
runs=()
for r in 1 2 3; do
	runs+=("rr.$r" "uri.$r")
done
cat > "$dir/run.env" <<EOF
run_id=test cluster=2 reps=3 cl_warm=1 cl_secs=10 leave_secs=3 route_uris=4
cl_cpus=1 bench_cpus=2 full_disk=0 disk_bps=4096000 disk_iops=45
configs="rr uri"
label_rr="round-robin" label_uri="hashing"
runs="${runs[*]}"
EOF
for r in "${runs[@]}"; do
	echo "status_${r/./_}=0" >> "$dir/run.env"
done
# hashing above round-robin in every repetition, with errors in one
fake rr.1 100 0 0
fake rr.2 110 0 0
fake rr.3 120 0 0
fake uri.1 150 0 0
fake uri.2 121 5 0
fake uri.3 130 0 0
routes uri.1

# cell SECTION ROW COLUMN [ROW2]: in report.md's table under the heading
# SECTION, the cell of the row whose first cell is ROW (and second ROW2)
cell() {
	awk -F ' *[|] *' -v sec="$1" -v row="$2" -v col="$3" -v row2="${4:-}" '
		/^#/ { sub(/^#+ /, ""); in_sec = ($0 == sec); c = 0; next }
		!in_sec || !/^[|]/ { next }
		!c { for (i = 2; i < NF; i++) if ($i == col) c = i; next }
		$2 == row && (row2 == "" || $3 == row2) { print $c; exit }' "$dir/report.md"
}

python3 host/noplots.py "$report" "$dir" > "$dir/out" 2>&1
check_eq "errors only: exit status 0" "$?" 0
check_eq "round-robin is the reference" "$(cell Throughput round-robin \
	'verdict against round-robin')" reference
check_eq "hashing above in every repetition: faster" \
	"$(cell Throughput hashing 'verdict against round-robin')" faster
check_eq "answers without an error per second: 130 [121-150]" \
	"$(cell Throughput hashing 'req/s median [min-max]')" '130 [121-150]'
check_eq "the errors are counted" "$(cell Throughput hashing errors)" 5
check_eq "web1's disk reads per response: 0.5" \
	"$(cell 'Each server' hashing 'disk reads/req' web1)" 0.50
check_eq "web2's disk reads per response: 0.25" \
	"$(cell 'Each server' hashing 'disk reads/req' web2)" 0.25
check_eq "hit ratio from the marks: 30 of 40" \
	"$(cell 'Each server' hashing 'ccache hit ratio' web1)" 0.75
check_eq "web1's pages dropped for a full staging area: 40" \
	"$(cell 'Each server' hashing 'staging full' web1)" 40
check_eq "web2 recorded none: -" \
	"$(cell 'Each server' hashing 'staging full' web2)" -
check_eq "web1's CPU idle or in iowait: 150 of 1000 ticks" \
	"$(cell 'Each server' hashing 'CPU idle or iowait' web1)" 0.15
check_eq "web2's, without busy ticks: 200 of 10 s at 100 a second" \
	"$(cell 'Each server' hashing 'CPU idle or iowait' web2)" 0.20
# hashing's web1 answers 750, 605 and 650 (uri.1, uri.2, uri.3)
check_eq "web1's busy CPU per response: 8.5 s over 650, the median" \
	"$(cell 'Each server' hashing 'CPU ms/req' web1)" 13.1
check_eq "of which ccache's (de)compression: 0.9 s over 650" \
	"$(cell 'Each server' hashing 'ccache (de)compression ms/req' web1)" 1.38
check_eq "web2 recorded neither: -" \
	"$(cell 'Each server' hashing 'CPU ms/req' web2):$(cell 'Each server' \
	hashing 'ccache (de)compression ms/req' web2)" -:-
check_eq "the leaving server's URIs moved, and only they" \
	"$(cell 'A server leaves and comes back' uri.1 'moved while web2 out'):$(cell \
	'A server leaves and comes back' uri.1 'of them from another server')" 2:0
check_eq "3 of 4 came back" "$(cell 'A server leaves and comes back' uri.1 \
	'back on their server after')" 3
check_eq "results.csv: a row per run and server" \
	"$(($(wc -l < "$dir/results.csv") - 1))" 12
check "each server's disk: its vCPUs' share of the calibrated rate" \
	grep -q '1 vCPU and .*throttled to 4000 KiB/s and 45 IOPS, 1/2 of the calibrated rate' \
	"$dir/report.md"
check "the servers primed with the whole docset" \
	grep -q 'does, with the whole docset, then' "$dir/report.md"
sed -i 's/full_disk=0/full_disk=1/' "$dir/run.env"
printf 'share_files_web1=3\nshare_files_web2=5\n' >> "$dir/run.env"
python3 host/noplots.py "$report" "$dir" > "$dir/out" 2>&1
check "or, with --full-disk, the whole rate" \
	grep -q 'throttled to 4000 KiB/s and 45 IOPS, the whole calibrated rate' \
	"$dir/report.md"
check "with URI hashing, each its share" \
	grep -q 'with URI hashing with the files the hash sends it (.*: 3, 5 files), then' \
	"$dir/report.md"

fake uri.3 130 0 1
python3 host/noplots.py "$report" "$dir" > "$dir/out" 2>&1
check_eq "a mismatched body: exit status 1" "$?" 1
check "and the run is named" grep -q 'mismatched runs: uri.3' "$dir/out"
tap_done
