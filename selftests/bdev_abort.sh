#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A block device's page changed in memory and never written ("bdev" in the
# filesystems knob, blockdev.c's rule 3): ext4 changes its inode tables in
# place, and when its journal aborts, jbd2 drops the changes of the
# running transaction unwritten and leaves their pages clean.  The kernel
# forgets such a page at eviction; ccache must not keep it.  Here the
# walk of a tree reads its metadata, a chmod of every file changes the
# inode tables, a shutdown aborts the journal before the change commits,
# and once jbd2 has dropped it, reclaim evicts the pages: then every block
# of the metadata read through the device's page cache must be what the
# disk holds, while the pages the chmod did not touch are still served,
# and mounted again, no file has the mode the chmod never wrote.
# VM: mem=192 cpus=2 disk=raw:256M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

BDEVIO=/selftests/progs/bdevio
disk=/dev/vda
tree=/mnt/m
# the blocks compared: the first 32 MiB, which hold every group's inode
# table (flex_bg) and the chmod's changes
nblk=8192
# jbd2's commit interval: the chmod's transaction must still be running
# when the shutdown comes, and ends (aborted) this long after it began
commit=20
[ -b $disk ] || tap_skip_all "no data disk"

cc_start filesystems=ext4,bdev fault_inject=shrinker
cc_groups_create g

# 4 KiB blocks: mke2fs gives a filesystem this small 1 KiB blocks, whose
# pages are never read whole
check "make an ext4 on the disk" /sbin/mke2fs -q -F -t ext4 \
	-b 4096 -E lazy_itable_init=0,lazy_journal_init=0 $disk
mkdir -p $tree
check "mount it" mount -t ext4 -o noatime $disk $tree
run_check "create 800 small files in 16 directories" cc_small_tree $tree
# in group g, so that the group's reclaim takes back the metadata read
# shellcheck disable=SC2317 # called through check
remount() {
	umount "$tree" &&
		cc_in_group g mount -t ext4 -o "noatime,commit=$commit" "$disk" "$tree"
}
check "unmount and mount again in group g, commit=$commit" remount
run_check "walk the tree in group g" \
	cc_in_group g sh -c "ls -lRn $tree > /dev/null"
# sync: the chmod starts a transaction of its own
check "sync" sync
check "chmod every file: their inode tables change in memory" \
	chmod 600 "$tree"/d*/f*
check "shut the filesystem down, its journal not flushed" \
	$BDEVIO shutdown $tree
echo "# waiting $((commit + 5)) s for jbd2 to end the aborted transaction"
sleep $((commit + 5))
cc_snap evict
cc_reclaim_all g
cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued"
cc_show_delta evict "the eviction of the metadata"
check_gt "some of its pages were captured" "$(cc_delta evict captures)" 0
check_gt "the changed ones were not (bdev_unmarked)" \
	"$(cc_delta evict bdev_unmarked)" 0
# still mounted (ccache keeps a device's pages only while a filesystem it
# caches holds the device); blocks still cached are the kernel's, skipped
cc_snap served
run_check "every block read through the page cache is the disk's" \
	$BDEVIO cmp $disk 0 $nblk
echo "# $(cc_delta served bdev_hits) pages served, $(cc_delta served bdev_misses) read"
check_gt "pages the chmod did not touch were served (bdev_hits)" \
	"$(cc_delta served bdev_hits)" 0
# the chmod never committed: mounted again, ext4 reads the inode tables
# the disk holds and every file is 0644
check "unmount" umount $tree
check "mount it again (the journal replayed)" mount -t ext4 $disk $tree
check_eq "files still 0644" "$(find $tree -type f -perm 644 | wc -l)" 800
check_eq "files 0600 (the chmod that never reached the disk)" \
	"$(find $tree -type f -perm 600 | wc -l)" 0
check "unmount" umount $tree
cc_show "at the end"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
