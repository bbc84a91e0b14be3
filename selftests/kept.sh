#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A page served from ccache keeps its entry while it is cached
# (keep_served=1; off by default), and when reclaim evicts it again the entry is
# compared with the page instead of the page being compressed again.  The
# comparison is what keeps it coherent: a page written while cached, with
# ext4's ordered data or with data=journal (where writes reach the disk
# through the journal), must come back with the new data.
# VM: mem=192 cpus=2 disk=raw:256M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

f=/mnt/d0/k
[ -b /dev/vda ] || tap_skip_all "no data disk"
check "make an ext4" /sbin/mke2fs -q -F -t ext4 /dev/vda
mkdir -p /mnt/d0
check "mount it" mount -t ext4 /dev/vda /mnt/d0
# file data only: with "bdev" the device's metadata is stored too
cc_start filesystems=ext4 keep_served=1
check "create a 4 MiB file" "$CCFILE" create $f 4M
cc_evict $f
check_gt "it was stored (stored_pages)" "$(cc_stat stored_pages)" 900

cc_snap served
run_check "it reads back as its model" "$CCFILE" verify -m read $f
check_gt "served by ccache (hits)" "$(cc_data_hits served)" 900
check_gt "and the served entries were kept (kept_pages)" \
	"$(cc_stat kept_pages)" 900
cc_snap again
cc_evict $f
check_gt "evicted again, they were stored without compressing (recaptures)" \
	"$(cc_delta again recaptures)" 900
check_le "few pages were compressed again (captures)" \
	"$(cc_delta again captures)" 100
check_eq "none had changed (recapture_changed)" \
	"$(cc_delta again recapture_changed)" 0
check_eq "none is kept now (kept_pages)" "$(cc_stat kept_pages)" 0
cc_snap third
run_check "it reads back as its model" "$CCFILE" verify -m mmap $f
check_gt "served by ccache again (hits)" "$(cc_data_hits third)" 900

# written while cached: the kept copies of the written pages must go
written() { # LABEL: write 64 KiB of the served file, evict, verify
	check "$1: write 64 KiB of the cached file" "$CCFILE" write $f 1M 64K
	check "$1: write it back" sync
	cc_snap "w$2"
	cc_evict $f
	check_gt "$1: the written pages were compressed again (recapture_changed)" \
		"$(cc_delta "w$2" recapture_changed)" 15
	run_check "$1: it reads back as its model" "$CCFILE" verify -m read $f
}
written "ordered data" 1
check "remount with data=journal" sh -c \
	"umount /mnt/d0 && mount -t ext4 -o data=journal /dev/vda /mnt/d0"
check "the store is emptied for the new mount" cc_empty_store
run_check "read from the disk" "$CCFILE" verify -m read $f
cc_evict $f
run_check "read once more, to be served" "$CCFILE" verify -m read $f
check_gt "kept (kept_pages)" "$(cc_stat kept_pages)" 900
written "data=journal" 2
run_check "and reads back as its model again (mmap)" \
	"$CCFILE" verify -m mmap $f

# keep_served=0: a served entry leaves the store, as before
check "keep_served=0" sh -c \
	"echo 0 > /sys/module/ccache/parameters/keep_served"
cc_evict $f
cc_snap off
run_check "it reads back as its model" "$CCFILE" verify -m read $f
check_gt "served (hits)" "$(cc_data_hits off)" 900
check_eq "nothing kept (kept_pages)" "$(cc_stat kept_pages)" 0
tap_done
