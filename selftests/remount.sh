#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Entries never outlive a mount.  Files whose pages sit in ccache: unmount
# drops them all; after a remount of the same device the files read back
# right and nothing stale is served; a new filesystem made on the same
# device (same inode numbers, other data) and another filesystem mounted
# afterwards read back as their own models.
# VM: mem=192 cpus=2 disk=ext4:512M disk=xfs:512M timeout=120
# shellcheck disable=SC2086 # $files: a list of paths without spaces
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d1 ] || tap_skip_all "needs two data disks"
# files in the root directory: a fresh ext4 gives them the same numbers
files="/mnt/d0/r1 /mnt/d0/r2 /mnt/d0/r3 /mnt/d0/r4"

inodes() {
	for f in $files; do
		stat -c %i "$f"
	done | tr '\n' ' '
}

# evict_files WHAT: every file out through reclaim, with the checks
evict_files() {
	cc_snap evict
	cc_evict $files
	check_gt "$1: captures while evicting" "$(cc_delta evict captures)" 0
	check_gt "$1: ccache holds pages" "$(cc_stat stored_pages)" 0
}

check "unmount the xfs disk for later" umount /mnt/d1
# shellcheck disable=SC2119 # no module parameters
cc_start
ok=0
for f in $files; do
	"$CCFILE" create "$f" 4M || ok=1
done
check_eq "create 4 files of 4 MiB on ext4" $ok 0
old=$(inodes)
evict_files "first mount"

check "unmount ext4 while its pages sit in ccache" umount /mnt/d0
check "unmount dropped every entry (stored_pages 0)" cc_wait_empty
check "mount the same device again" mount -t ext4 /dev/vda /mnt/d0
cc_snap remounted
run_check "after the remount the files match (read)" \
	"$CCFILE" verify -m read $files
check_eq "nothing was carried across the remount (hits)" \
	"$(cc_data_hits remounted)" 0
evict_files "second mount"
cc_snap served
run_check "evicted again, the files match (mmap)" "$CCFILE" verify -m mmap $files
check_gt "and were served by ccache (hits)" "$(cc_delta served hits)" 0

evict_files "before mkfs"
check "unmount again" umount /mnt/d0
check "make a new ext4 on the same device" /sbin/mke2fs -q -F -t ext4 /dev/vda
check "mount the new filesystem" mount -t ext4 /dev/vda /mnt/d0
cc_snap fresh
ok=0
for f in $files; do
	# other data, and mostly holes: reads that go to the cache
	"$CCFILE" create "$f" 64K && "$CCFILE" truncate "$f" 4M &&
		"$CCFILE" write "$f" 2M 64K || ok=1
done
check_eq "create the same file names on it" $ok 0
echo "# inodes before: $old; on the new filesystem: $(inodes)"
check_eq "the new files have the old inode numbers" "$(inodes)" "$old"
run_check "the new files match their own model (sendfile)" \
	"$CCFILE" verify -m sendfile $files
check_eq "nothing was served for them (hits)" "$(cc_data_hits fresh)" 0

evict_files "new filesystem"
check "unmount the new ext4 while its pages sit in ccache" umount /mnt/d0
check "unmount dropped every entry (stored_pages 0)" cc_wait_empty
check "mount the xfs disk" mount -t xfs /dev/vdb /mnt/d1
files="/mnt/d1/r1 /mnt/d1/r2 /mnt/d1/r3 /mnt/d1/r4"
ok=0
for f in $files; do
	"$CCFILE" create "$f" 4M || ok=1
done
check_eq "create 4 files on xfs" $ok 0
cc_snap xfs
run_check "xfs files match (read)" "$CCFILE" verify -m read $files
evict_files "xfs"
run_check "evicted, xfs files match (readahead)" \
	"$CCFILE" verify -m readahead $files
check_gt "and were served by ccache (hits)" "$(cc_delta xfs hits)" 0
check "rmmod ccache" /sbin/rmmod ccache
tap_done
