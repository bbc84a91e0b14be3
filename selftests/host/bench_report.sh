#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/report.py, the web benchmark's report, on results directories
# that fakerun.py makes up with throughputs chosen for each verdict: the
# verdicts, medians and ranges, disk reads and the KiB split in report.md
# are the constructed ones, results.csv has every run and phase, and it
# exits 1, naming the run, for each way a run fails.  Without matplotlib,
# as a host without python3-matplotlib runs it, but for one run with it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
report=../tools/bench/report.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_report.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# run NAME FAKERUN-ARGS...: fakerun.py's results directory $tmp/NAME, then
# report.py on it with matplotlib hidden; $dir, $st (its status), $err
# (its stderr without the line saying there are no plots)
run() {
	dir=$tmp/$1
	shift
	python3 host/fakerun.py "$dir" "$@" || echo "# fakerun.py $* failed"
	python3 host/noplots.py "$report" "$dir" > "$dir.out" 2> "$dir.err"
	st=$?
	err=$(grep -v '^report: no matplotlib' "$dir.err")
}

# cell SECTION ROW COLUMN [SECOND]: in report.md's table under the heading
# SECTION, the cell of the row whose first cell is ROW (and second SECOND,
# if given) and the column headed COLUMN
cell() {
	awk -F ' *[|] *' -v sec="$1" -v row="$2" -v col="$3" -v second="${4-}" '
		/^#/ { sub(/^#+ /, ""); in_sec = ($0 == sec); c = 0; next }
		!in_sec || !/^[|]/ { next }
		!c { for (i = 2; i < NF; i++) if ($i == col) c = i; next }
		$2 == row && (second == "" || $3 == second) { print $c; exit }' "$dir/report.md"
}

# has DESC FILE TEXT: FILE has the line TEXT
has() {
	local st
	grep -qxF -- "$3" "$2"
	st=$?
	tap_result $st "$1"
	[[ $st -eq 0 ]] || echo "#   no line '$3' in $2"
}

plain='plain kernel, R' cc='ccache, default settings' dmz="dm-cache on zram, ccache's budget"
nginx='Docset, nginx' support='Support set, nginx' rand='fio, 4 KiB random reads'

# every throughput of plain R 100, 110, 120 (req/s, fio MiB/s), the others
# 100 unless given: ccache beats it in every repetition on nginx, dm-cache
# loses in every one; their ranges overlap on the support set, and touch
# (120 = 120) for dm-cache on fio-rand: not faster
run clean -t none-R=100,110,120 -t cc:nginx=150,121,130 -t dmz:nginx=90,60,99 \
	-t cc:support=95,105,140 -t dmz:fio-rand=120,130,140
check_eq "a clean run: exit status 0" "$st" 0
check_eq "a clean run: no problem on stderr" "$err" ''
check "report.md is written" test -s "$dir/report.md"
check "results.csv is written" test -s "$dir/results.csv"
check_eq "plain R is the reference" "$(cell "$nginx" "$plain" verdict)" reference
check_eq "ccache above plain R in every repetition: faster" \
	"$(cell "$nginx" "$cc" verdict)" faster
check_eq "dm-cache below plain R in every repetition: slower" \
	"$(cell "$nginx" "$dmz" verdict)" slower
check_eq "ranges that overlap: within noise" "$(cell "$support" "$cc" verdict)" 'within noise'
check_eq "ranges that touch: within noise" "$(cell "$rand" "$dmz" verdict)" 'within noise'
check_eq "median [min-max] of ccache's 150, 121, 130 req/s" \
	"$(cell "$nginx" "$cc" 'req/s median [min-max]')" '130 [121-150]'
check_eq "median [min-max] of dm-cache's 90, 60, 99 req/s" \
	"$(cell "$nginx" "$dmz" 'req/s median [min-max]')" '90.0 [60.0-99.0]'
check_eq "median [min-max] of dm-cache's 120, 130, 140 MiB/s" \
	"$(cell "$rand" "$dmz" 'MiB/s median [min-max]')" '130 [120-140]'
check_eq "change of the medians, 130 against 110" "$(cell "$nginx" "$cc" 'vs plain R')" '+18%'
check_eq "the verdicts table: verdict and change" \
	"$(cell Verdicts "$dmz" "$nginx")" '90.0 req/s: slower, -18%'
check_eq "disk reads per request: 1.5" "$(cell "$nginx" "$cc" 'disk reads/req')" 1.50
check_eq "disk KiB per request: 30" "$(cell "$nginx" "$cc" 'disk KiB/req')" 30.0
check_eq "disk busy 15,225 ms of a 20.3 s phase: 75.0%" \
	"$(cell 'CPU and the pool' "$nginx" 'disk busy %' "$cc")" 75.0
check_eq "disk use: 1.5 reads a request, 130 req/s for 20 of 20.3 s, 129 IOPS" \
	"$(cell 'CPU and the pool' "$nginx" 'disk use %' "$cc")" 148.9
check_eq "4 ms a read" "$(cell 'CPU and the pool' "$nginx" 'ms/read' "$cc")" 4.00
check_eq "KiB per request of ccache misses: 5 misses, 20 KiB" \
	"$(cell "$nginx" "$cc" 'KiB/req: ccache misses')" 20.0
check_eq "KiB per request not ccache's misses: 10" \
	"$(cell "$nginx" "$cc" 'KiB/req: other')" 10.0
check_eq "KiB per MiB of ccache misses (fio): 20" \
	"$(cell "$rand" "$cc" 'KiB/MiB: ccache misses')" 20.0
check_eq "no ccache split for the plain kernel" \
	"$(cell "$nginx" "$plain" 'KiB/req: ccache misses')" -
check_eq "ccache's budget from max_pool_percent 20 of MemTotal 210640 KiB: 41 MiB" \
	"$(cell Configurations "$cc" 'budget MiB')" 41
check_eq "results.csv: a row per run and phase, 87 for 9 runs" \
	"$(($(wc -l < "$dir/results.csv") - 1))" 87
check_eq "results.csv: cc.2's nginx req/s and disk reads per request" \
	"$(python3 -c 'import csv, sys
print(*[(r["rps"], r["disk_reads_per_unit"]) for r in csv.DictReader(open(sys.argv[1]))
	if r["run"] == "cc.2" and r["phase"] == "nginx"])' "$dir/results.csv")" "('121.0', '1.5')"
check_fails "no manifests: no section against the least any cache could read" \
	grep -q '^### Against the least' "$dir/report.md"

# least WORKLOAD CONFIG COLUMN: in that section, the cell of WORKLOAD's
# CONFIG
least() {
	cell 'Against the least any cache could read' "$1" "$3" "$2"
}
# one docset file of 100,000 pages, every request for it: a cache of N
# pages of it leaves 100,000 - N from the disk.  The fake guests' page
# cache ends at 80,000 KiB (20,000 pages), ccache's pool with 30,000.
printf '/one %d 0\n' $((100000 * 4096)) > "$dir/docset.manifest"
python3 host/noplots.py "$report" "$dir" > /dev/null 2>&1
check_eq "a manifest: the plain kernel held 20,000 pages, 78.1 MiB" \
	"$(least "$nginx" "$plain" 'data in memory MiB')" 78.1
check_eq "which leave 80,000 pages, 320,000 KiB, from the disk" \
	"$(least "$nginx" "$plain" 'least disk KiB/req')" 320000
check_eq "ccache's pool adds its stored pages: 50,000 leave 200,000 KiB" \
	"$(least "$nginx" "$cc" 'least disk KiB/req')" 200000
check_eq "dm-cache adds zram's 84,000 KiB: 41,000 pages leave 236,000 KiB" \
	"$(least "$nginx" "$dmz" 'least disk KiB/req')" 236000
check_eq "the measured disk KiB/req beside it" \
	"$(least "$nginx" "$cc" 'disk KiB/req')" 30.0
check_eq "no support manifest: no support row" "$(least "$support" "$cc" 'disk KiB/req')" ''
rm "$dir/docset.manifest"

check "without matplotlib: report.py says there are no plots" \
	grep -q '^report: no matplotlib' "$dir.err"
check_fails "without matplotlib: report.md links no plot" grep -q '\.png)' "$dir/report.md"

# the same with matplotlib (Debian's python3, as web-bench.sh runs it)
py=python3
[[ ! -x /usr/bin/python3 ]] || py=/usr/bin/python3
if "$py" -c 'import matplotlib' 2> /dev/null; then
	run_check "with matplotlib: exit status 0" "$py" "$report" "$dir"
	for png in throughput ts-nginx ts-support ts-fio-rand ts-fio-files; do
		check "with matplotlib: $png.png" test -s "$dir/$png.png"
	done
	has "with matplotlib: report.md shows throughput.png" "$dir/report.md" \
		'![Throughput per workload](throughput.png)'
else
	tap_skip "with matplotlib: the plots" "no python3-matplotlib"
fi

check_fails "no 2R configurations: no section against the same RAM" \
	grep -q 'with the same RAM' "$dir/report.md"

# ccache at 2R against plain 2R, not plain R: 205, 190, 215 against 200,
# 210, 220 overlap (median -2%); at fio-rand every one below (slower)
same='Against the plain kernel with the same RAM' cc2='ccache, default settings, 2R'
run twor --2r -t none-2R=200,210,220 -t cc-2R=205,190,215 \
	-t cc-2R:fio-rand=150,160,170
check_eq "with 2R: exit status 0" "$st" 0
check_eq "ccache at 2R is compared with plain 2R" \
	"$(cell "$same" "$cc2" against)" 'plain kernel, 2R'
check_eq "overlapping: within noise, change of the medians 205 against 210" \
	"$(cell "$same" "$cc2" "$nginx")" 'within noise, -2%'
check_eq "every one below: slower" "$(cell "$same" "$cc2" "$rand")" 'slower, -24%'
check_eq "plain 2R has no row of its own" "$(cell "$same" 'plain kernel, 2R' against)" ''
check_eq "the verdicts table still compares it with plain R" \
	"$(cell Verdicts "$cc2" "$nginx")" '205 req/s: faster, +105%'

# every phase's probe 300 ms but cc.2's nginx, 600: half the typical speed
run slow --probe cc.2:nginx=600 -t cc:nginx=150,121,130
check_eq "a slow guest: exit status 0" "$st" 0
check_eq "guest speed per repetition: cc.2's nginx at half" \
	"$(cell 'Guest speed' "$nginx" 'guest speed' "$cc")" '1.00 0.50 1.00'
check_eq "beside the throughput of each" \
	"$(cell 'Guest speed' "$nginx" 'throughput' "$cc")" '150 121 130'
check_eq "user time: 400 ticks over 3,000, 2,420 and 2,600 requests" \
	"$(cell 'Guest speed' "$nginx" 'user ms per request or MiB' "$cc")" '1.33 1.65 1.54'
check "the report names the slow guest" grep -qF \
	"cc.2 (its nginx phase at 0.50 of the run's typical guest speed)" "$dir/report.md"
check_fails "and no other" grep -qF "cc.1 (" "$dir/report.md"

# nginx's CPUs busy in every guest of plain R and ccache: user time 25,
# 26 and 27% of it against 24.5, 24 and 24.8%, every one below
equal='At equal guest speed'
run equal --busy none-R:nginx=1000,1040,1080 --busy cc:nginx=980,960,992
check_eq "busy CPUs: exit status 0" "$st" 0
check_eq "user share below in every repetition: slower, 24.5% against 26%" \
	"$(cell "$equal" "$cc" "$nginx")" 'slower, -6%'
check_eq "a phase whose CPUs idled: not compared" \
	"$(cell "$equal" "$cc" "$support")" 'not CPU-bound (25.0% busy)'
check_eq "nor where only the reference was busy" \
	"$(cell "$equal" "$dmz" "$nginx")" 'not CPU-bound (25.0% busy)'
run_check "no busy phase: no such section" sh -c \
	"! grep -q '^### $equal' '$tmp/clean/report.md'"

run one -r 1 -t cc:nginx=130
check_eq "one repetition: exit status 0" "$st" 0
check_eq "one repetition: no verdict" "$(cell "$nginx" "$cc" verdict)" 'one run: no verdict'
check_eq "one repetition: the value, no range" \
	"$(cell "$nginx" "$cc" 'req/s median [min-max]')" 130

run mismatch -r 2 --mismatch cc.2
check_eq "a mismatch in nginx-verify: exit status 1" "$st" 1
check_eq "it is the one problem on stderr" "$err" 'report: cc.2: nginx-verify: mismatches 1'
has "report.md lists it" "$dir/report.md" '- cc.2: nginx-verify: mismatches 1'
has "report.md counts it" "$dir/report.md" \
	'Sums over the repetitions.  Mismatches over the whole run, every phase: **1**.'

run drop -r 2 --drop dmz.1:support
check_eq "a run without a measured phase: exit status 1" "$st" 1
check_eq "it is the one problem on stderr" "$err" 'report: dmz.1: no support phase'

run status -r 2 --status none-R.2=3
check_eq "a guest's status 3: exit status 1" "$st" 1
check_eq "it is the one problem on stderr" "$err" \
	'report: none-R.2: the guest failed (boot.sh status 3)'

# ccache's budget, when its first guest died before saying its pool
run dead -r 2 --status cc.1=1 --empty cc.1
check_eq "a guest that died at boot: exit status 1" "$st" 1
check "stderr says it failed" grep -qxF 'report: cc.1: the guest failed (boot.sh status 1)' \
	"$dir.err"
check_eq "ccache's budget from its second run: 41 MiB" \
	"$(cell Configurations "$cc" 'budget MiB')" 41

run error -r 2 --error cc.1
check_eq "a BENCH error= line: exit status 1" "$st" 1
check_eq "it is the one problem on stderr" "$err" 'report: cc.1: error=nginx did not start'
tap_done
