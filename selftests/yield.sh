#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pool gives its memory back to a workload that needs it: with the
# pool full of compressed file pages, a process takes what free memory and
# the page cache hold plus half of the pool.  It must get it, without the
# OOM killer, the pool must shrink (through the shrinker or, at the last
# resort, ccache's OOM notifier, tried alone with the test-only
# shrinker fault), and every file must read back right.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=240
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

dir=/mnt/d0/yield
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

cc_start max_pool_percent=60
mkdir -p "$dir"
files="$dir/f1 $dir/f2 $dir/f3 $dir/f4 $dir/f5"
# shellcheck disable=SC2086 # $files: paths without spaces
run_check "create 5 compressible files of 48 MiB" cc_create 48M $files

"$CCFILE" create "$dir/hot" 24M

# yield LABEL: read the files and fill the pool with them, then take what free memory and the page
# cache but a hot set can give, plus half the pool.  The hot set is read
# through mmap all along: file pages reclaim would rather keep, so the
# shrinker may decline while the file LRU stays long.
yield() {
	# into the page cache (from disk or pool), then out into the pool
	# shellcheck disable=SC2086 # $files: paths without spaces
	run_check "$1: every file reads back as its model (read)" \
		"$CCFILE" verify -m read $files
	# shellcheck disable=SC2086
	cc_evict $files
	pool=$(cc_stat mem_used_bytes)
	cc_show "$1: pool filled"
	check_gt "$1: the pool holds more than 32 MiB" "$pool" $((32 << 20))
	rm -f /tmp/hot.bad /tmp/hot.stop
	(while [ ! -e /tmp/hot.stop ]; do
		"$CCFILE" verify -m mmap "$dir/hot" > /dev/null || touch /tmp/hot.bad
	done) &
	hot=$!
	sleep 2
	avail=$(($(meminfo_kib MemFree Active\(file\) Inactive\(file\)) - 24 * 1024))
	want=$(((avail + pool / 2048) / 1024))
	echo "# free + file LRU - hot set $((avail / 1024)) MiB, pool $((pool >> 20)) MiB: taking $want MiB"
	out=$("$CCFILE" hog -t 3 "$want" 2>&1)
	check_eq "$1: a process got $want MiB and held it (exit status)" $? 0
	printf '%s\n' "$out" | sed 's/^/# /'
	touch /tmp/hot.stop
	wait $hot
	check_fails "$1: the hot set read back right all along" test -e /tmp/hot.bad
	cc_show "$1: after the hog"
	check_le "$1: the pool gave back at least a quarter of itself" \
		"$(cc_stat mem_used_bytes)" $((pool * 3 / 4))
	cc_check_no_oom
}

yield "shrinker"
# the last resort alone: a shrinker that gives nothing back (test-only
# fault), so only ccache's OOM notifier can return the pool
dropped() {
	dmesg | grep -c 'ccache: out of memory: dropped'
}
before=$(dropped)
cc_with_fault shrinker yield "OOM notifier"
dmesg | grep 'ccache: out of memory' | sed 's/^/# /'
check_gt "the OOM notifier dropped the pool" "$(dropped)" "$before"

# shellcheck disable=SC2086
run_check "every file reads back as its model (read)" \
	"$CCFILE" verify -m read $files "$dir/hot"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
