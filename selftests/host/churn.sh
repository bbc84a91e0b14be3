#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ccfile's churn (the compressible-data fsx that runs beside fsx in the
# guests) on the host's own filesystem, where no ccache is: every round
# matches its model and the file stays within the round's bound ("up to
# N bytes").  A churn that breaks its own rules makes guest tests fail
# with mismatches that are the test's, not ccache's: in the debug
# kernel's full run of 2026-11-24 a direct write took the file past the
# bound, a zeroing beyond it asked fallocate for a negative length, and
# ccfile died with its model unsaved.  The rounds of that run come first,
# replayed by seed and operation count, then rounds of fixed seeds.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/lib/ccfile_host.sh
. ./lib/ccfile_host.sh
f=$top/churn
"$ccfile" create "$f" 1M > /dev/null
"$ccfile" collapse "$f" 0 4096 > /dev/null 2>&1 ||
	tap_skip_all "$(df --output=fstype "$top" | tail -1) at $top has no FALLOC_FL_COLLAPSE_RANGE"
rm -f "$f"

# round DESC SEED OPS: one churn round of OPS operations from SEED
round() {
	local out st max size
	out=$("$ccfile" churn -s "$2" -n "$3" "$f" 2>&1)
	st=$?
	tap_result $st "$1: matched its model"
	[[ $st -eq 0 ]] || tap_excerpt "$out"
	max=$(sed -n 's/.*, up to \([0-9]*\) bytes$/\1/p' <<< "$out")
	size=$(stat -c %s "$f")
	[[ -n $max && $size -le $max ]]
	tap_result $? "$1: size $size within ${max:-?}"
}

"$ccfile" create "$f" 2M > /dev/null
for r in 7907:97 15815:88 23721:134 31629:180 39535:185 47443:86 55349:2000; do
	round "the debug run's seed ${r%:*}" "${r%:*}" "${r#*:}"
done
rm -f "$f"
"$ccfile" create "$f" 2M > /dev/null
for seed in $(seq 1 2 39); do
	round "seed $seed" "$seed" 500
done
tap_done
