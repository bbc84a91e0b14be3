#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The debug kernel's checkers (KASAN, lockdep, kmemleak, atomic sleep, list
# debugging: tools/debug-kernel.sh) over a few guest tests, when that
# kernel is cached, in the full run only (run.sh -f, make check-full): it
# is slow, and the default run's length must not depend on what an
# earlier session left cached (feb055f's message).  make check never
# builds it (about an hour); make check KERNEL=6.1-debug runs the whole
# suite on it.  The module is built
# for it from make dkms-src's tree in a temporary directory, so that the
# tree's own ccache.ko, which the run's other guests load, stays as it is.
# A guest test that fails fails this one, a checker's report included
# (boot.sh); a guest test that cannot run on it is a skip.
# HOST: timeout=1200 (for run.sh's order: a debug guest is slow)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh

# the whole path (capture, offload, serve, unload) and the invalidation
# hooks
tests=(smoke.sh coherence_ext4.sh)

[[ -n ${CCDEV_FULL_RUN:-} ]] ||
	tap_skip_all "the full run only (make check-full; make check-debug runs the suite on it)"
rel=$(tools/debug-kernel.sh --cached 2>/dev/null) ||
	tap_skip_all "no debug kernel cached (make check-debug builds it, about an hour)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ccache-debug.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

make -s --no-print-directory dkms-src DIST="$tmp" >/dev/null 2>&1
src=$(echo "$tmp"/ccache-*)
run_check "build ccache.ko for $rel" \
	env CCDEV_FAULT_INJECT=y tools/kernels.sh kbuild "$rel" "$src" modules
[[ -f $src/ccache.ko ]] || tap_done
for t in "${tests[@]}"; do
	out=$(tools/vm/boot.sh -k "$rel" -M "$src/ccache.ko" "selftests/$t" 2>&1)
	case $? in
	0) tap_result 0 "$t on $rel" ;;
	4) tap_skip "$t on $rel" "$(tail -n 1 <<<"$out")" ;;
	*) tap_result 1 "$t on $rel"; tap_excerpt "$out" ;;
	esac
done
tap_done
