#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A file's generation is part of its identity in ccache, and ext4 lets its
# owner change it (FS_IOC_SETVERSION, on a filesystem without
# metadata_csum) without invalidating anything.  Pages stored under one
# generation must not come back after the generation changed, the file
# was rewritten, and the generation was set back: the record is the
# inode number's, and a lookup under another generation empties it.
# VM: mem=192 cpus=2 disk=raw:256M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

f=/mnt/d0/g
[ -b /dev/vda ] || tap_skip_all "no data disk"
check "make an ext4 without metadata_csum" \
	/sbin/mke2fs -q -F -t ext4 -O ^metadata_csum /dev/vda
mkdir -p /mnt/d0
check "mount it" mount -t ext4 /dev/vda /mnt/d0
# file data only: with "bdev" the device's metadata is stored too
cc_start filesystems=ext4
check "create a 1 MiB file" "$CCFILE" create $f 1M
gen=$("$CCFILE" generation $f 2>&1)
echo "# generation: $gen"
case $gen in
*[!0-9]* | '') tap_skip_all "FS_IOC_GETVERSION: $gen" ;;
esac
out=$("$CCFILE" generation $f $((gen + 1)) 2>&1) ||
	tap_skip_all "this kernel's ext4 cannot set a generation: $out"
check "set the generation back" "$CCFILE" generation $f "$gen"

cc_snap first
cc_evict $f
check_gt "the first data was stored (stored_pages)" "$(cc_stat stored_pages)" 0
check "set another generation" "$CCFILE" generation $f $((gen + 1))
check "rewrite the whole file" "$CCFILE" write $f 0 1M
check "write it back" sync
cc_evict $f
check_gt "the new data was stored too" "$(cc_delta first captures)" 256
check "set the first generation back" "$CCFILE" generation $f "$gen"
cc_snap back
run_check "the file reads back as its model" "$CCFILE" verify -m read $f
check_eq "nothing was served: neither generation's pages fit (hits)" \
	"$(cc_data_hits back)" 0
check "the old generations' entries were erased (stored_pages)" \
	cc_poll 50 cc_store_empty
cc_evict $f
cc_snap again
run_check "evicted once more, it reads back as its model (mmap)" \
	"$CCFILE" verify -m mmap $f
check_gt "and was served by ccache (hits)" "$(cc_delta again hits)" 0

# No record to spare (fault_inject=inode): the lookup empties the record
# itself.
cc_evict $f
check_gt "stored again" "$(cc_stat stored_pages)" 0
check "set another generation" "$CCFILE" generation $f $((gen + 1))
check "records cannot be allocated (fault_inject=inode)" \
	sh -c "echo inode > /sys/module/ccache/parameters/fault_inject"
cc_snap nospare
run_check "the file reads back as its model" "$CCFILE" verify -m read $f
echo none > /sys/module/ccache/parameters/fault_inject
check_eq "nothing was served (hits)" "$(cc_data_hits nospare)" 0
check "the lookup erased the entries (stored_pages)" cc_store_empty
check "rmmod ccache" /sbin/rmmod ccache
tap_done
