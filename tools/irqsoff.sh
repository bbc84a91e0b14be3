#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# irqsoff.sh - ccache's sections with interrupts off (its holds of
# ccache_lock) while its store of at least MIB MiB (default 200) is
# flushed, and while it is dropped by drop_caches, on the debug kernel
# (tools/debug-kernel.sh: lockdep's lock events, the irqsoff tracer), for
# the module of each git REF given (default HEAD): "irqsoff.sh fdfa2f4^
# HEAD" compares the store before and after its bulk erases were batched.
# Each step runs twice in a boot (the first pays for lockdep's first look
# at each lock chain).  For scale, the kernel's own longest section during
# a drop_caches of the page cache alone.  Each REF's module runs in REPS
# fresh one-vCPU guests (default 3); prints Markdown tables of the
# medians, with min-max, and the ordinals of the sections over 1 ms in
# each guest (tools/irqsoff.guest does the measuring).
#
# A measurement, not a test: guests run under TCG on a KASAN and lockdep
# kernel, each many times slower than hardware, and a hold includes
# lockdep's checks at the acquisition, so the figures are upper bounds of
# what a production kernel on hardware would show.  They also count the
# stretches in which the host did not run the guest, or TCG translated
# code for it: -i SHIFT runs the guests counting instructions, 2^SHIFT ns
# of guest time each (tools/vm/boot.sh -I), so that a section measures the
# guest's own work; -i 0 is a CPU of one instruction per ns, slower than
# hardware.
#
# usage: irqsoff.sh [-n REPS] [-m MIB] [-i SHIFT] [REF...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=tools/lib/msg.sh
. "$here/lib/msg.sh"
reps=3 mib=200 icount=()
while getopts "n:m:i:" opt; do
	case $opt in
	n) reps=$OPTARG ;;
	m) mib=$OPTARG ;;
	i) icount=(-I "$OPTARG") ;;
	*) sed -n 's/^# usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -gt 0 ]] || set -- HEAD
kernel=''

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

if [[ ${#icount[@]} -gt 0 ]]; then
	printf 'Guest time counts instructions, %s ns each (-i %s).\n\n' \
		$((1 << icount[1])) "${icount[1]}"
else
	printf 'Guest time is the host'"'"'s (TCG stalls included).\n\n'
fi
printf '| module | step | pages stored | sections | median, us | longest, us | over 1 ms | which, per guest |\n'
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
			"${icount[@]}" -m 1024 -c 1 -t 1800 -d "ext4:$((mib * 2 + 256))M" \
			-a "irqsoff_mib=$mib" -o "$work/$rev-$i.log" \
			"$here/irqsoff.guest" >"$work/$rev-$i.out" 2>&1 ||
			{ cat "$work/$rev-$i.out" >&2; die "$rev: guest $i failed"; }
	done
	# field STEP KEY: KEY's value in each run's line for STEP
	field() {
		# the console's lines end in CR
		sed -n "s/.*IRQSOFF step=$1 .*\<$2=\([^ ]*\).*/\1/p" "$work/$rev"-*.log |
			tr -d '\r'
	}
	for step in flush flush_again drop_caches drop_caches_again; do
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$rev" "$step" \
			"$(field $step stored | summary)" \
			"$(field $step sections | summary)" \
			"$(field $step median_us | summary)" \
			"$(field $step max_us | summary)" \
			"$(field $step over_1ms | summary)" \
			"$(field $step slow_at | paste -sd ';')"
	done
	kernel="$kernel| $rev | $(field kernel_drop_caches max_us | summary) | $(field kernel_drop_caches where | tail -n 1) |"$'\n'
done
printf '\nThe kernel'"'"'s own longest section during a drop_caches of the page cache alone:\n\n'
printf '| module loaded | longest, us | where (last run) |\n|---|---|---|\n%s' "$kernel"
