#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest harness reports what really happened in the guest: a pass as a
# pass, a skip as a skip, and a failing test, a kernel oops, a panic, a hang,
# a kernel BUG/WARNING line and (on a kernel with kmemleak) a leak by a
# module of ours as failures with the reason; a failed check is named with
# its figures wherever it stands in the console.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh

boot=../tools/vm/boot.sh
# expect FIXTURE STATUS [REASON...]: boot.sh exits STATUS saying each REASON
expect() {
	local out status fixture=$1 want=$2 reason
	out=$("$boot" "harness/$fixture.guest" 2>&1)
	status=$?
	check_eq "$fixture: exit status" "$status" "$want"
	shift 2
	for reason in "$@"; do
		grep -q -- "$reason" <<< "$out"
		tap_result $? "$fixture: reported as '$reason'"
	done
}
expect pass 0
expect skip 4
expect fail 1 'test exited with 3' 'not ok 1 a check that fails early' \
	'got 1, wanted more than 2'
expect panic 1 'without the end marker'
expect hang 1 'timed out after'
expect oops 1 'without the end marker'
expect warn 1 'kernel reported a bug'
# a leak, where kmemleak can see it
guest=$(../tools/kernels.sh guest "${CCDEV_KVER:-$(../tools/kernels.sh resolve 6.1)}")
if grep -qs '^CONFIG_DEBUG_KMEMLEAK=y' "$guest"/boot/config-*; then
	expect leak 1 'kmemleak-check: 1 leaked'
else
	expect leak 4
fi
tap_done
