#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module loads, creates its sysfs tree, and unloads cleanly, twice.
# VM: mem=192 timeout=90
. ./lib/tap.sh

for round in 1 2; do
	check "round $round: modprobe ccache" /sbin/modprobe ccache
	check "round $round: /sys/module/ccache exists" test -d /sys/module/ccache
	check "round $round: /sys/kernel/mm/ccache exists" test -d /sys/kernel/mm/ccache
	check_eq "round $round: version matches modinfo" \
		"$(cat /sys/kernel/mm/ccache/version 2>&1)" \
		"$(/sbin/modinfo -F version ccache 2>&1)"
	check "round $round: load is logged" sh -c 'dmesg | grep -q "ccache: version .* loaded"'
	check "round $round: rmmod ccache" /sbin/rmmod ccache
	check_fails "round $round: /sys/kernel/mm/ccache is gone" test -e /sys/kernel/mm/ccache
	check_fails "round $round: /sys/module/ccache is gone" test -e /sys/module/ccache
done
check "unload is logged" sh -c 'dmesg | grep -q "ccache: unloaded"'
tap_done
