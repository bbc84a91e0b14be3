#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A page whose writeback failed stays in the page cache, clean and up to
# date, with data the disk never got; without ccache, once reclaimed, the
# file reads back what the disk holds.  ccache must not keep such a page
# (the mapping's wb_err, Documentation/design.rst "Capture"), or it would
# serve the lost write.  The disk: ext4 on a loop device whose backing file
# sits on a tmpfs, shrunk to what it holds once the filesystem is made and
# a control file written, so that the loop driver fails every write to a
# block not written before (ENOSPC) and ext4's writeback of a new file
# fails, while its metadata and journal, written by mke2fs, still take
# writes.  Blocks of a page each (-b 4096) and no large folios in the
# tmpfs (huge=never): from 6.12 the loop driver takes a short write for a
# whole one, so a write that began in a page allocated before lost the
# rest without an error (with 1 KiB blocks, after the control file's last
# page).
# VM: mem=192 cpus=2 timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

back=/mnt/backing mnt=/mnt/lo ok=/mnt/lo/ok bad=/mnt/lo/bad
/sbin/modprobe loop 2>/dev/null
[ -e /dev/loop0 ] || tap_skip_all "no loop device"

# md5 [DD-OPTION...]: the checksum of $bad read through dd
md5() {
	dd if=$bad bs=64k "$@" 2>/dev/null | md5sum | cut -d' ' -f1
}

mkdir -p $mnt
# inode tables and journal written now, so that later writes to them find
# their blocks in the tmpfs
cc_loop_ext4 $back 48
check "mount it" mount -t ext4 /dev/loop0 $mnt
cc_start
check "create the control file" "$CCFILE" create $ok 1M
check "write everything back" sync
used=$(df -k $back | awk 'NR == 2 { print $3 }')
echo "# the backing file holds $used KiB"
check "shrink the tmpfs to what it holds" \
	mount -o remount,size="${used}k" $back

out=$("$CCFILE" create $bad 1M 2>&1)
tap_excerpt "$out"
case $out in
*"fsync $bad: "*) st=0 ;;
*) st=1 ;;
esac
tap_result $st "a new file's fsync fails (its blocks have no room behind them)"
cached=$(md5)
disk=$(md5 iflag=direct)
check_fails "the page cache holds data the disk never got" \
	[ "$cached" = "$disk" ]

cc_snap evict
cc_evict $ok $bad
cc_show "after eviction"
check_gt "the control file was stored (captures)" "$(cc_delta evict captures)" 0
run_check "the control file reads back as its model" \
	"$CCFILE" verify -m read $ok
check_gt "and was served by ccache (hits)" "$(cc_delta evict hits)" 0
check_eq "the failed file reads back what the disk holds" "$(md5)" "$disk"
check "rmmod ccache" /sbin/rmmod ccache
check "unmount" umount $mnt
tap_done
