#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install installs a build for users and refuses a test build, the
# one make check leaves behind (its fault_inject knob: Kbuild,
# CCDEV_FAULT_INJECT), and one for another kernel.  The modules are
# stand-ins: an empty object with the .modinfo section modinfo reads,
# installed into a throwaway root by the project's own Makefile.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=selftests/lib/tap.sh
. "$top/selftests/lib/tap.sh"
rel=6.1.0-99-amd64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fake_module DIR KVER [PARM]: DIR/ccache.ko built for KVER, with PARM
fake_module() {
	mkdir -p "$1" &&
	{
		printf 'vermagic=%s SMP preempt mod_unload modversions \0name=ccache\0' "$2"
		[[ -z ${3:-} ]] || printf 'parm=%s:test only\0' "$3"
	} > "$work/info" &&
	gcc -c -x c /dev/null -o "$work/empty.o" &&
	objcopy --add-section .modinfo="$work/info" "$work/empty.o" "$1/ccache.ko"
}

# install_in DIR: the project's make install run in DIR (a tree of
# links to the project's files and DIR's own ccache.ko), into DIR/root
install_in() {
	local f
	for f in Makefile ccache tools packaging; do
		ln -sfn "$top/$f" "$1/$f"
	done
	make -s -C "$1" install SETUP=: KVER=$rel MOD_ROOT="$1/root" \
		DESTDIR="$1/root"
}

if ! command -v objcopy >/dev/null || ! command -v modinfo >/dev/null; then
	tap_skip_all "needs objcopy and modinfo"
fi
ko=lib/modules/$rel/extra/ccache.ko

fake_module "$work/user" "$rel"
run_check "a build for users is installed" install_in "$work/user"
check "  as $ko" test -f "$work/user/root/$ko"

fake_module "$work/test" "$rel" fault_inject
out=$(install_in "$work/test" 2>&1)
tap_result $((!$?)) "a test build (fault_inject) is refused"
check_eq "  saying why" "$(printf '%s\n' "$out" | grep -c 'is a test build')" 1
check "  and nothing installed" test ! -e "$work/test/root/$ko"

fake_module "$work/other" 6.1.0-98-amd64
check_fails "a build for another kernel is refused" install_in "$work/other"
check "  and nothing installed" test ! -e "$work/other/root/$ko"
tap_done
