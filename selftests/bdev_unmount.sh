#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Block devices' pages after an unmount ("bdev" in the filesystems knob,
# blockdev.c): once no filesystem of ours holds a device, its content may
# change with no bio this kernel sees, as a loop device's does when its
# backing file is written another way.  Here an ext4 on /dev/loop0 has its
# metadata stored, is unmounted, and is changed through /dev/loop1 over
# the same backing file (a chmod of every file); mounted again through
# /dev/loop0, it must show the change, not the inode tables stored before.
# VM: mem=192 cpus=2 timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

back=/mnt/backing tree=/mnt/lo other=/mnt/lo1
/sbin/modprobe loop 2>/dev/null
[ -e /dev/loop1 ] || tap_skip_all "no loop devices"

mkdir -p $tree $other
cc_loop_ext4 $back 64
cc_start filesystems=ext4,bdev fault_inject=shrinker
cc_groups_create g
check "mount it" mount -t ext4 -o noatime /dev/loop0 $tree
run_check "create 800 small files in 16 directories" cc_small_tree $tree
check "unmount it" umount $tree
# in group g, so that the group's reclaim takes back the metadata read
check "mount it again in group g" \
	cc_in_group g mount -t ext4 -o noatime /dev/loop0 $tree
run_check "walk the tree in group g" \
	cc_in_group g sh -c "ls -lRn $tree > /dev/null"
cc_snap stored
cc_reclaim_all g
cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued"
cc_show_delta stored "the eviction of the metadata"
check_gt "its pages were stored" "$(cc_delta stored captures)" 0
cc_snap served
run_check "walk it again" cc_in_group g sh -c "ls -lRn $tree > /dev/null"
check_gt "the device's pages were served (bdev_hits)" \
	"$(cc_delta served bdev_hits)" 0
cc_reclaim_all g
cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued"
check_gt "and stored again" "$(cc_stat stored_pages)" 0
cc_snap unmount
check "unmount it" umount $tree
check_gt "the unmount erased them (invalidations)" \
	"$(cc_delta unmount invalidations)" 0
check_eq "the store is empty when umount returns (stored_pages)" \
	"$(cc_stat stored_pages)" 0

check "attach the same file to /dev/loop1" losetup /dev/loop1 $back/img
check "mount /dev/loop1" mount -t ext4 /dev/loop1 $other
check "chmod every file through /dev/loop1" chmod 600 "$other"/d*/*
check "unmount /dev/loop1" umount $other
check "detach /dev/loop1" losetup -d /dev/loop1

check "mount /dev/loop0 again" mount -t ext4 -o noatime /dev/loop0 $tree
check_eq "files 0600, as the change through /dev/loop1 left them" \
	"$(find $tree -type f -perm 600 | wc -l)" 800
check_eq "files 0644 (inode tables stored before the change)" \
	"$(find $tree -type f -perm 644 | wc -l)" 0
check "unmount it" umount $tree
check "detach /dev/loop0" losetup -d /dev/loop0
cc_show "at the end"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
