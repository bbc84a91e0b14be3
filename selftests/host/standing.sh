#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/standing.py, the README's table of where ccache stands on
# each kernel: on results.csv files that report.py writes from fakerun.py's
# made-up runs, its cells give the medians, verdict and change chosen for
# them, a run without 2R gives no 2R cells, and a file without the plain
# kernel with R is refused.  Then the README's table is exactly what
# standing.py prints for the reports the README names, so that no figure
# in it is typed by hand.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
standing=../tools/bench/standing.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/standing.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# fake NAME FAKERUN-ARGS...: $tmp/NAME.csv, report.py's results.csv of
# fakerun.py's run (host/noplots.py: no plots needed)
fake() {
	local dir=$tmp/$1
	shift
	python3 host/fakerun.py "$dir" "$@" || echo "# fakerun.py $* failed"
	python3 host/noplots.py ../tools/bench/report.py "$dir" > /dev/null 2>&1 ||
		echo "# report.py on $dir failed"
	cp "$dir/results.csv" "$tmp/$(basename "$dir").csv"
}

# cell ROW-WORKLOAD ROW-CONFIGURATIONS COLUMN: the cell of standing.py's
# output ($out) in that row and the column whose heading starts COLUMN
cell() {
	awk -F ' *[|] *' -v w="$1" -v r="$2" -v col="$3" '
		!c { for (i = 2; i < NF; i++) if (index($i, col) == 1) c = i; next }
		$2 == w && $3 == r { print $c; exit }' <<<"$out"
}

both_r='ccache / plain kernel, both R'
both_2r='ccache / plain kernel, both 2R'
fake two --2r -t none-R=100,110,120 -t cc:nginx=150,121,130 -t cc:support=95,105,140 \
	-t none-2R=200,200,200 -t cc-2R:nginx=150,160,170
fake one -t none-R=100,100,100 -t cc:nginx=90,80,95
out=$(python3 "$standing" "$tmp/two.csv" "$tmp/one.csv")
check_eq "two runs: exit status 0" "$?" 0
check_eq "ccache above plain R in every repetition" \
	"$(cell 'Docset, nginx' "$both_r" '6.1.0-56-amd64 (two)')" \
	'130 / 110 req/s: faster, +18%'
check_eq "ranges that overlap: within noise" \
	"$(cell 'Support set, nginx' "$both_r" '6.1.0-56-amd64 (two)')" \
	'105 / 110 req/s: within noise, -5%'
check_eq "with 2R against the plain kernel with 2R" \
	"$(cell 'Docset, nginx' "$both_2r" '6.1.0-56-amd64 (two)')" \
	'160 / 200 req/s: slower, -20%'
check_eq "fio in MiB/s" \
	"$(cell 'fio, whole files' "$both_r" '6.1.0-56-amd64 (two)')" \
	'100 / 110 MiB/s: within noise, -9%'
check_eq "the second run, side by side" \
	"$(cell 'Docset, nginx' "$both_r" '6.1.0-56-amd64 (one)')" \
	'90.0 / 100 req/s: slower, -10%'
check_eq "a run without 2R: no 2R cell" \
	"$(cell 'Docset, nginx' "$both_2r" '6.1.0-56-amd64 (one)')" '-'

grep -v '^none-R' "$tmp/one.csv" | grep -v ',none-R,' > "$tmp/noref.csv"
check_fails "a run without the plain kernel with R is refused" \
	python3 "$standing" "$tmp/noref.csv"
check_fails "a missing file is refused" python3 "$standing" "$tmp/nothing.csv"

# The README: the table between "<!-- standing: CSV... -->" and
# "<!-- end standing -->", CSV names relative to the repository
readme=../README.md
csvs=$(sed -n 's/^<!-- standing: \(.*\) -->$/\1/p' "$readme")
check "the README names the reports of its table" test -n "$csvs"
want=$(cd .. && read -ra files <<<"$csvs" && python3 tools/bench/standing.py "${files[@]}")
check_eq "standing.py on them exits 0" "$?" 0
have=$(sed -n '/^<!-- standing: /,/^<!-- end standing -->$/p' "$readme" | sed '1d;$d')
if [[ -n $want ]]; then
	check_eq "the README's table is standing.py's output" "$have" "$want"
else
	tap_result 1 "the README's table is standing.py's output"
fi
tap_done
