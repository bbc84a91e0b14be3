#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Filesystems ccache never caches are none of its business: truncating,
# punching and extending a file on tmpfs, dropping caches and unmounting
# it take no lock and make no record (no ccache_invalidate event), while
# the same changes on ext4 do.  Both files read back as their models.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=150
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

T=/sys/kernel/tracing
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
[ -e $T/trace ] || tap_skip_all "no tracefs at $T"
tmp=/mnt/other_fs
ext=/mnt/d0/other_fs

# changes FILE: shrink FILE, punch a hole in it and extend it (tmpfs has
# no zero range), then read it back against its model (checks)
changes() {
	check "create $1" "$CCFILE" create "$1" 4M
	check "truncate it" "$CCFILE" truncate "$1" 3M
	check "punch a hole" "$CCFILE" punch "$1" 64K 128K
	check "extend it" "$CCFILE" truncate "$1" 5M
	run_check "it reads back as its model" "$CCFILE" verify -m read "$1"
}

# invalidations: the ccache_invalidate events in the trace
invalidations() {
	grep -c ' ccache_invalidate: ' $T/trace
}

cc_start ""
mkdir -p $tmp $ext
check "mount a tmpfs" mount -t tmpfs -o size=64M other_fs $tmp
echo 1 > $T/events/ccache/ccache_invalidate/enable
echo > $T/trace
changes $tmp/file
check "drop caches" sh -c "echo 3 > /proc/sys/vm/drop_caches"
check "unmount the tmpfs" umount $tmp
check_eq "tmpfs: no ccache_invalidate event" "$(invalidations)" 0

echo > $T/trace
changes $ext/file
check_gt "ext4: ccache_invalidate events" "$(invalidations)" 0
echo 0 > $T/events/ccache/ccache_invalidate/enable
check "rmmod ccache" /sbin/rmmod ccache
tap_done
