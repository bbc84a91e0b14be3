#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest harness reports what really happened in the guest: a pass as a
# pass, a skip as a skip, and a failing test, a kernel oops, a panic, a hang,
# a kernel BUG/WARNING line and (on a kernel with kmemleak) a leak by a
# module of ours as failures with the reason.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh

boot=../tools/vm/boot.sh
# expect FIXTURE STATUS REASON: boot.sh exits STATUS saying REASON
expect() {
	local out status
	out=$("$boot" "harness/$1.guest" 2>&1)
	status=$?
	check_eq "$1: exit status" "$status" "$2"
	if [[ -n $3 ]]; then
		grep -q "$3" <<< "$out"
		tap_result $? "$1: reported as '$3'"
	fi
}
expect pass 0 ''
expect skip 4 ''
expect fail 1 'test exited with 3'
expect panic 1 'without the end marker'
expect hang 1 'timed out after'
expect oops 1 'without the end marker'
expect warn 1 'kernel reported a bug'
# a leak, where kmemleak can see it
guest=$(../tools/kernels.sh guest "${CCDEV_KVER:-$(../tools/kernels.sh resolve 6.1)}")
if grep -qs '^CONFIG_DEBUG_KMEMLEAK=y' "$guest"/boot/config-*; then
	expect leak 1 'kmemleak-check: 1 leaked'
else
	expect leak 4 ''
fi
tap_done
