#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/bench/bound.py, the fewest disk reads any cache could leave a
# webload run: its ranking is webload's own (webload.c's rnd() and
# shuffle() compiled here, over 1000 files), and on made-up manifests
# whose answer is known it fills the most popular files first, rounds a
# file up to whole pages, and counts a compressed page at RATIO of a page.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
command -v gcc > /dev/null || tap_skip_all "no gcc on this host"
bound=../tools/bench/bound.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_bound.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# webload's permutation, from webload.c itself
sed -n '/^static unsigned long long rnd(/,/^}/p; /^static void shuffle(/,/^}/p' \
	../tools/bench/webload.c > "$tmp/rnd.inc"
cat > "$tmp/rank.c" <<'EOF'
#include <stdio.h>
#include <stddef.h>
#include "rnd.inc"
int main(void)
{
	static size_t a[1000];
	unsigned long long state = 1;
	size_t i;

	for (i = 0; i < 1000; i++)
		a[i] = i;
	shuffle(a, 1000, &state);
	for (i = 0; i < 1000; i++)
		printf("%zu\n", a[i]);
	return 0;
}
EOF
gcc -O2 -o "$tmp/rank" "$tmp/rank.c"
tap_result $? "webload.c's rnd() and shuffle() build alone"
want=$("$tmp/rank" | md5sum)
got=$(python3 -c "import sys; sys.path.insert(0, '../tools/bench'); import bound
print('\n'.join(map(str, bound.ranking(1000, 1))))" | md5sum)
check_eq "bound.py ranks 1000 files as webload -s 1 does" "$got" "$want"

# field MIB RATIO COLUMN OUTPUT: COLUMN (1 = memory MiB) of the row
field() {
	printf '%s\n' "$4" | awk -v m="$1" -v r="$2" -v c="$3" \
		'$1 == m && $2 == r { print $c }'
}

# four files of one page each: with zipf 0 every file is asked alike
for i in 1 2 3 4; do echo "/f$i 4096 0"; done > "$tmp/flat"
out=$(python3 "$bound" -z 0 -r 1 -r 0.5 -a 8 "$tmp/flat" 0.0078125 2>&1)
tap_result $? "bound.py runs"
check_eq "2 pages of room hold half the requested bytes" \
	"$(field 0.0078125 1 4 "$out")" 0.500
check_eq "and leave 2 KiB a request" "$(field 0.0078125 1 5 "$out")" 2.0
check_eq "which is 0.25 of a measured 8" "$(field 0.0078125 1 6 "$out")" 0.25
check_eq "compressed to half, the same memory holds them all" \
	"$(field 0.0078125 0.5 4 "$out")" 1.000

# equal sizes, zipf 1: the most popular file's share is 1 / H(4) = 0.48,
# whichever file the ranking gives it
out=$(python3 "$bound" -z 1 -r 1 "$tmp/flat" 0.00390625 2>&1)
check_eq "one page of room holds the most popular file: 1 / H(4)" \
	"$(field 0.00390625 1 4 "$out")" 0.480

# a one-byte file takes a whole page
printf '/small 1 0\n/big 8192 0\n' > "$tmp/round"
out=$(python3 "$bound" -z 0 -r 1 "$tmp/round" 0 2>&1)
check "a request is 6 KiB: 1 byte rounds up to a page, 8 KiB two" \
	grep -q '6.0 KiB per request' <<< "$out"

check_fails "a ratio of 0 is refused" python3 "$bound" -r 0 "$tmp/flat" 1
printf 'not a manifest\n' > "$tmp/bad"
check_fails "a malformed manifest is refused" python3 "$bound" "$tmp/bad" 1
tap_done
