#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/agreement.py, the chance that two benchmark runs agree, on
# made-up runs whose answer is known: a configuration twice as fast as the
# reference is judged faster in every draw; one identical to it is faster
# or slower in 1 of 20 draws each (3 repetitions against 3), so two runs
# agree with chance 0.9^2 + 2 * 0.05^2 = 0.815; a margin above the change
# leaves only "within noise"; one run alone is refused.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
agreement=../tools/bench/agreement.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_agreement.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# two runs, each with three repetitions per configuration of nginx
for run in 1 2; do
	{
		echo "phase,config,rep,throughput"
		rep=0
		for v in 100 102 98; do
			rep=$((rep + 1))
			echo "nginx,none-R,$rep,$v"
			echo "nginx,same,$rep,$v"
			echo "nginx,double,$rep,$((2 * v))"
		done
	} > "$tmp/run$run.csv"
done

# field CONFIG COLUMN OUTPUT: COLUMN (1 = the last) counted from the end of
# CONFIG's line
field() {
	printf '%s\n' "$3" | awk -v c="$1" -v k="$2" '$2 == c { print $(NF - k + 1) }'
}

# near VALUE WANT: VALUE within 0.015 of WANT
# shellcheck disable=SC2317 # called through check
near() {
	awk -v v="$1" -v w="$2" 'BEGIN { exit !(v != "" && v - w < 0.015 && w - v < 0.015) }'
}

out=$(python3 "$agreement" "$tmp/run1.csv" "$tmp/run2.csv" 2>&1)
tap_result $? "agreement.py runs on two runs"
check "twice as fast: faster in every draw" near "$(field double 4 "$out")" 1.00
check "twice as fast: two runs agree" near "$(field double 1 "$out")" 1.00
check "identical: faster in 1 draw of 20" near "$(field same 4 "$out")" 0.05
check "identical: slower in 1 draw of 20" near "$(field same 2 "$out")" 0.05
check "identical: two runs agree with chance 0.815" near "$(field same 1 "$out")" 0.815
check "every cell: the product, 0.815" near \
	"$(printf '%s\n' "$out" | sed -n 's/^two runs agree on every cell: //p')" 0.815

out=$(python3 "$agreement" -m 1.5 "$tmp/run1.csv" "$tmp/run2.csv" 2>&1)
check "margin 150%: twice as fast is within noise" near "$(field double 3 "$out")" 1.00

out=$(python3 "$agreement" -r 5 "$tmp/run1.csv" "$tmp/run2.csv" 2>&1)
check "5 repetitions: identical is faster in 1 draw of 252" near "$(field same 4 "$out")" 0.004

check_fails "one run alone is refused" python3 "$agreement" "$tmp/run1.csv"
tap_done
