#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A quota file in use is never served from ccache.  ext4 writes it through
# the block device's buffers (ext4_quota_write()), past the file's page
# cache and every hook ccache has, so pages of it captured before quota
# went on go stale when the kernel updates it; while quota is on
# (S_NOQUOTA) ccache neither keeps nor serves its pages (capture.c).  The
# quota file is captured while quota is off, quota goes on, a chown makes
# the kernel write new usage into it, and a read through the page cache
# must give what the disk holds; after quota off too.  The page cache is
# never dropped (drop_caches empties ccache's store of the filesystem):
# the file's pages left it at the eviction, and only the reads put them
# back.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
Q=/selftests/progs/quotactl
BDEVIO=/selftests/progs/bdevio
dev=$(awk '$2 == "/mnt/d0" { print $1 }' /proc/mounts)
qf=/mnt/d0/aquota.user

# disk_sum: a checksum of the quota file's first page as the disk holds it
disk_sum() {
	dd if="$qf" iflag=direct bs=4096 count=1 status=none | md5sum |
		cut -d' ' -f1
}

check "remount /mnt/d0 with usrquota" mount -o remount,usrquota /mnt/d0
# shellcheck disable=SC2119 # no module options
cc_start
check "write an empty quota file" "$Q" init "$qf"
check "read it" dd if="$qf" of=/dev/null bs=4096 status=none
cc_evict "$qf"
cc_snap off
check "read it back" dd if="$qf" of=/dev/null bs=4096 status=none
check_gt "ccache served both its pages while quota is off" \
	"$(cc_delta off hits)" 1
cc_evict "$qf"
before=$(disk_sum)
run_check "quota on" "$Q" on "$dev" "$qf"
check "create a file" "$CCFILE" create /mnt/d0/owned 1M
check "give it to another user (the kernel writes the quota file)" \
	chown 1234 /mnt/d0/owned
check "sync twice: the quota writes reach the disk" sh -c "sync; sync"
after=$(disk_sum)
check "the quota file's first page changed on the disk" \
	test "$after" != "$before"
# not drop_caches: ccache empties the filesystem's store with it
check_eq "no page of it is in the page cache" \
	"$("$CCFILE" resident "$qf" | cut -d' ' -f2)" "0/2"
cc_snap on
run_check "with quota on the file reads as the disk holds it" \
	"$BDEVIO" cmp "$qf" 0 2
check_eq "ccache served none of it" "$(cc_delta on hits)" 0
run_check "quota off" "$Q" off "$dev"
run_check "with quota off (which truncates its page cache) it reads as the disk holds it" \
	"$BDEVIO" cmp "$qf" 0 2
check "rmmod ccache" /sbin/rmmod ccache
tap_done
