#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A device a filesystem holds besides its own ("bdev" in the filesystems
# knob, blockdev.c): an ext4 with its journal on another partition holds
# that partition too (from 6.6 with the same holder as its own device),
# but its unmount erases only what ccache keeps of its own device, so the
# journal's pages must never be kept.  Both partitions are read through
# their page cache, each in a cgroup of its own, and reclaimed: the
# filesystem's own device is kept, the journal's is not.
# VM: mem=192 cpus=2 disk=raw:256M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

BDEVIO=/selftests/progs/bdevio
disk=/dev/vda
tree=/mnt/m
[ -b $disk ] || tap_skip_all "no data disk"

# shellcheck disable=SC2317 # called through check
part_ready() {
	cc_poll 50 test -b "$1" ||
		mknod "$1" b "$(tr : ' ' < "/sys/class/block/${1#/dev/}/dev")"
}

# read_kept DEV GROUP: read DEV's first 1024 pages through its page cache
# in GROUP (not compared with the disk: jbd2 writes the journal's), reclaim
# them, and print how many ccache captured
read_kept() {
	cc_snap kept
	cc_in_group "$2" dd if="$1" of=/dev/null bs=4096 count=1024 \
		2> /dev/null || return 1
	cc_reclaim_all "$2"
	cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued" >&2
	cc_delta kept captures
}

cc_start filesystems=ext4,bdev fault_inject=shrinker
cc_groups_create j f
# partition 1: 32 MiB at 32 MiB, the journal; 2: 128 MiB at 96 MiB
check "add partition 1" $BDEVIO addpart $disk 1 $((8192 * 8)) $((8192 * 8))
check "add partition 2" $BDEVIO addpart $disk 2 $((24576 * 8)) $((32768 * 8))
check "partition 1 appears" part_ready ${disk}1
check "partition 2 appears" part_ready ${disk}2
# 4 KiB blocks: mke2fs gives a filesystem this small 1 KiB blocks, whose
# pages are never read whole
check "make a journal device on partition 1" \
	/sbin/mke2fs -q -F -O journal_dev -b 4096 ${disk}1
check "make an ext4 on partition 2, its journal on partition 1" \
	/sbin/mke2fs -q -F -t ext4 -b 4096 -J device=${disk}1 \
	-E lazy_itable_init=0,lazy_journal_init=0 ${disk}2
mkdir -p $tree
check "mount it" mount -t ext4 -o noatime ${disk}2 $tree
kept=$(read_kept ${disk}2 f)
echo "# the filesystem's own device: $kept pages kept"
check_gt "its own device's pages are kept" "$kept" 0
kept=$(read_kept ${disk}1 j)
echo "# its journal's device: $kept pages kept"
check_le "its journal's pages are not" "$kept" 0
check "unmount it" umount $tree
cc_show "at the end"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
