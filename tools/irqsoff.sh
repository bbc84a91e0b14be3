#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# irqsoff.sh - the longest section with interrupts off while ccache's
# store of at least MIB MiB (default 200) is flushed, and while it is
# dropped by drop_caches, on the debug kernel (tools/debug-kernel.sh, which
# has the irqsoff tracer), for the module of each git REF given (default
# HEAD): "irqsoff.sh fdfa2f4^ HEAD" compares the store before and after
# its bulk erases were batched.  Also a drop_caches with the store empty,
# the kernel's own sections.  Each REF's module runs in REPS fresh guests
# (default 3); prints a Markdown table of the medians, with min-max.
#
# A measurement, not a test: guests run under TCG on a KASAN and lockdep
# kernel, each many times slower than hardware, so the figures are upper
# bounds of what a production kernel on hardware would show.
#
# usage: irqsoff.sh [-n REPS] [-m MIB] [REF...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=tools/lib/msg.sh
. "$here/lib/msg.sh"
reps=3 mib=200
while getopts "n:m:" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	m) mib=$OPTARG ;;
	*) sed -n '17s/^# //p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -gt 0 ]] || set -- HEAD

release=$("$here/debug-kernel.sh")
work=$(mktemp -d "${TMPDIR:-/tmp}/ccache-irqsoff.XXXXXX")
cleanup() {
	git -C "$top" worktree remove --force "$work/tree" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
make -s -C "$top" test-progs

# median and range of the numbers on stdin: "MEDIAN (MIN-MAX)"
summary() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (!NR) { print "-"; exit }
		printf "%d (%d-%d)\n", v[int((NR + 1) / 2)], v[1], v[NR] }'
}

printf '| module | step | pages stored | longest section, us | where (last run) | sections > 1 ms | of them ccache'"'"'s | ccache'"'"'s longest, us |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for ref in "$@"; do
	rev=$(git -C "$top" rev-parse --short "$ref")
	git -C "$top" worktree add -f --detach "$work/tree" "$rev" >/dev/null 2>&1
	msg "building $rev for $release"
	make -s -C "$work/tree" KVER="$release" modules >"$work/build.log" 2>&1 ||
		die "cannot build $rev: $work/build.log"
	cp "$work/tree/ccache.ko" "$work/ccache-$rev.ko"
	git -C "$top" worktree remove --force "$work/tree"
	for i in $(seq "$reps"); do
		msg "$rev: guest $i of $reps"
		# one vCPU: with two, single-threaded TCG runs them in turns,
		# and a section would count the other vCPU's turn
		"$here/vm/boot.sh" -k "$release" -M "$work/ccache-$rev.ko" \
			-m 1024 -c 1 -t 1800 -d "ext4:$((mib * 2 + 256))M" \
			-a "irqsoff_mib=$mib" -o "$work/$rev-$i.log" \
			"$here/irqsoff.guest" >"$work/$rev-$i.out" 2>&1 ||
			{ cat "$work/$rev-$i.out" >&2; die "$rev: guest $i failed"; }
	done
	for step in flush drop_caches drop_caches_empty; do
		# field KEY: KEY's value in each run's line for $step
		field() {
			sed -n "s/.*IRQSOFF step=$step .*\<$1=\([^ ]*\).*/\1/p" \
				"$work/$rev"-*.log
		}
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$rev" "$step" \
			"$(field stored | summary)" "$(field max_us | summary)" \
			"$(field where | tail -n 1)" "$(field over_1ms | summary)" \
			"$(field ccache_over_1ms | summary)" \
			"$(field ccache_max_us | grep . | summary)"
	done
done
