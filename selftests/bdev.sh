#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Block devices' own pages ("bdev" in the filesystems knob, blockdev.c):
# served after eviction, and never served stale after a write that
# bypasses their page cache.  A partition is laid over the raw data disk
# (BLKPG) and an ext4 mounted on it (ccache keeps a device's pages only
# while a filesystem it caches holds the device); the free blocks at its
# end are read one page at a time through the partition's page cache,
# and written through the whole disk, whose writes the partition's page
# cache never sees: once with its pages stored, once with them still
# cached (the kernel's own copy is then stale until evicted, and ccache
# must not keep it).  Then an ext4 on a second partition: its metadata,
# read through buffer heads, is served after eviction, a walk of the tree
# and e2fsck see what the disk holds.
# VM: mem=192 cpus=2 disk=raw:256M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

BDEVIO=/selftests/progs/bdevio
disk=/dev/vda
[ -b $disk ] || tap_skip_all "no data disk"
# partition 1: 32 MiB at 32 MiB, blocks 8192.. of the disk; 2: 128 MiB at 96
p1_base=8192
# the blocks read and written: partition 1's last 2048, which its ext4
# leaves free
p1_first=6144
nblk=2048

# shellcheck disable=SC2317 # called through check
part_ready() {
	cc_poll 50 test -b "$1" ||
		mknod "$1" b "$(tr : ' ' < "/sys/class/block/${1#/dev/}/dev")"
}

# reclaim_g: push group g's pages out through reclaim, and wait for
# compression
reclaim_g() {
	cc_reclaim_all g
	cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued"
}

cc_start filesystems=ext4,bdev fault_inject=shrinker
cc_groups_create g h
check "add partition 1" $BDEVIO addpart $disk 1 $((p1_base * 8)) $((8192 * 8))
check "add partition 2" $BDEVIO addpart $disk 2 $((24576 * 8)) $((32768 * 8))
check "partition 1 appears" part_ready ${disk}1
check "partition 2 appears" part_ready ${disk}2
# 4 KiB blocks: a filesystem this small gets 1 KiB blocks otherwise, and
# its device's pages are then read a quarter at a time, never whole; no
# lazy init, whose writes in flight would keep the reads below unmarked
check "make an ext4 on partition 1" /sbin/mke2fs -q -F -t ext4 -b 4096 \
	-E lazy_itable_init=0,lazy_journal_init=0 ${disk}1
mkdir -p /mnt/p1
check "mount it: ccache may keep partition 1's pages" \
	mount -t ext4 -o noatime ${disk}1 /mnt/p1

check "write seed 1 through the whole disk (O_DIRECT)" \
	$BDEVIO write -d $disk $((p1_base + p1_first)) $nblk 1
cc_snap first
run_check "read seed 1 through partition 1" \
	cc_in_group g $BDEVIO check ${disk}1 $p1_first $nblk 1 $p1_base
reclaim_g
cc_show_delta first "the first read and its eviction"
check_gt "partition 1's pages were captured" "$(cc_delta first captures)" $((nblk / 2))

cc_snap served
run_check "read seed 1 again: what ccache serves matches" \
	cc_in_group g $BDEVIO check ${disk}1 $p1_first $nblk 1 $p1_base
hits=$(cc_delta served bdev_hits)
echo "# $hits of $nblk pages served, $(cc_delta served vda) sectors read"
check_gt "most of them were served (bdev_hits)" "$hits" $((nblk / 2))
reclaim_g

cc_snap stored
check "write seed 2 through the whole disk over stored pages" \
	$BDEVIO write -d $disk $((p1_base + p1_first)) $nblk 2
check_gt "the write erased them (invalidations)" \
	"$(cc_delta stored invalidations)" $((nblk / 2))
run_check "partition 1 reads seed 2" \
	cc_in_group g $BDEVIO check ${disk}1 $p1_first $nblk 2 $p1_base
check_le "none of it came from ccache" "$(cc_delta stored bdev_hits)" 0

# partition 1's pages are cached now, and the next write bypasses them
check "write seed 3 through the whole disk under cached pages" \
	$BDEVIO write -d $disk $((p1_base + p1_first)) $nblk 3
cc_snap cached
reclaim_g
cc_show_delta cached "the eviction of the stale pages"
check_gt "their marks kept them out (bdev_unmarked)" \
	"$(cc_delta cached bdev_unmarked)" $((nblk / 2))
run_check "partition 1 reads seed 3 once they are evicted" \
	cc_in_group g $BDEVIO check ${disk}1 $p1_first $nblk 3 $p1_base

# no filesystem holds partition 2 yet: its pages are not kept (group h,
# so that its reclaim takes nothing of partition 1's)
cc_snap raw
run_check "read partition 2, which no filesystem holds" \
	cc_in_group h $BDEVIO cmp ${disk}2 0 1024
cc_reclaim_all h
cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued"
check_le "none of its pages were kept" "$(cc_delta raw captures)" 0

# ext4 metadata through buffer heads
tree=/mnt/m
# 4 KiB blocks: a page read through buffer heads whole (mke2fs gives a
# filesystem this small 1 KiB blocks, whose pages are never read whole)
check "make an ext4 on partition 2" /sbin/mke2fs -q -F -t ext4 \
	-b 4096 -E lazy_itable_init=0,lazy_journal_init=0 ${disk}2
mkdir -p $tree
# noatime: an atime update journals the inode's block, and jbd2 pins it
# (no eviction) until a checkpoint writes it
check "mount it" mount -t ext4 -o noatime ${disk}2 $tree
# shellcheck disable=SC2317 # called through run_check
walk() {
	cc_in_group g sh -c "ls -lRn $tree && cat $tree/*/*" > "$1"
}
run_check "create 800 small files in 16 directories" cc_small_tree $tree
# in group g: mounting reads most of the metadata (the inode tables'
# readahead), and a group's reclaim takes back what the group read
# shellcheck disable=SC2317 # called through check
remount() {
	umount "$tree" && cc_in_group g mount -t ext4 -o noatime "${disk}2" "$tree"
}
check "unmount and mount again in group g: a cold cache" remount
run_check "walk the tree" walk /tmp/walk1
# the metadata's pages out through reclaim, then the inodes and dentries
# that would spare the walk reading them (drop_caches 2: no page cache)
evict_meta() {
	reclaim_g
	echo 2 > /proc/sys/vm/drop_caches
}
evict_meta
cc_snap meta
run_check "walk it again" walk /tmp/walk2
echo "# metadata: $(cc_delta meta bdev_hits) pages served, $(cc_delta meta bdev_misses) read"
# served at all, not how much: with another guest busy on the host the
# offload falls behind and refuses some of the pages as staging full
check_gt "its metadata was served (bdev_hits)" "$(cc_delta meta bdev_hits)" 0
run_check "the walks agree" cmp /tmp/walk1 /tmp/walk2

# shellcheck disable=SC2317 # called through run_check
change_tree() {
	rm -r "$tree/d3" && mv "$tree/d4" "$tree/d40" &&
		for f in 0 1 2 3 4 5 6 7 8 9; do
			echo new > "$tree/d5/new-$f" || return 1
		done && touch "$tree"/d6/* && sync
}
run_check "change the tree (delete, rename, create, touch)" change_tree
run_check "walk the changed tree" walk /tmp/walk3
evict_meta
run_check "walk it after eviction" walk /tmp/walk4
run_check "the walks of the changed tree agree" cmp /tmp/walk3 /tmp/walk4
check "unmount" umount $tree
check "unmount partition 1" umount /mnt/p1
run_check "e2fsck finds the filesystem clean" /sbin/e2fsck -fn ${disk}2
cc_show "at the end"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
