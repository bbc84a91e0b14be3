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
	# the knobs as loaded (a variant may set offload in modprobe.d)
	P=/sys/module/ccache/parameters
	knobs="compressor $(cat $P/compressor), offload $(cat $P/offload), max_pool_percent $(cat $P/max_pool_percent) ([0-9]* MiB), filesystems $(cat $P/filesystems), enabled"
	# shellcheck disable=SC2016 # $1 is for the inner sh
	check "round $round: the load line names the compressor, backend, limit and hooks" \
		sh -c 'dmesg | grep "ccache: version .* loaded" | tail -n 1 |
			grep -q "$1; hooked .* read_pages(), submit_bio_noacct() and [0-9]* invalidation points"' \
		- "$knobs"
	check "round $round: rmmod ccache" /sbin/rmmod ccache
	check_fails "round $round: /sys/kernel/mm/ccache is gone" test -e /sys/kernel/mm/ccache
	check_fails "round $round: /sys/module/ccache is gone" test -e /sys/module/ccache
done
check "unload is logged, with what was freed" \
	sh -c 'dmesg | grep -q "ccache: unloaded in [0-9]* ms .*; freed [0-9]* stored pages and [0-9]* KiB of pool"'
dmesg | grep "ccache: " | tail -n 2 | sed 's/^/# /'
tap_done
