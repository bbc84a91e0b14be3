#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every failure ends in a dropped page or a disk read, never in wrong data,
# a leak or an oops.  With the test-only knobs fault_inject/fault_every,
# each place that can fail (allocations of entries, file records, staging
# buffers, pool memory and a read's working memory; compression;
# decompression) fails every third time while files change, are evicted
# and are read back through read and mmap against their models.  A
# compressed page stored with a byte flipped ("corrupt") is caught by the
# checksum and read from the disk; with the checksum off the same
# corruption reaches the reader, which shows that the check is what saves
# it.  A page whose first pool allocation fails is stored at a later try
# (pool_busy).  A pool of 1% of RAM shows pool exhaustion.  Memory returns
# to its level after the last unload.  Three files of 4 MiB: a fault every
# third pass still fails hundreds of times per cycle, and compressed they
# are still twice what the pool of 1% of RAM holds.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=300
# shellcheck disable=SC2086 # $files: paths without spaces
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

dir=/mnt/d0/faults
P=/sys/module/ccache/parameters
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# cycle LABEL: change the files, evict them, read them back both ways
cycle() {
	ok=0
	for f in $files; do
		"$CCFILE" write "$f" 1M 256K || ok=1
		"$CCFILE" punch "$f" 3M 64K || ok=1
	done
	check_eq "$1: files changed" $ok 0
	cc_evict $files
	run_check "$1: every file reads back as its model (read)" \
		"$CCFILE" verify -m read $files
	cc_evict $files
	run_check "$1: and through mmap" "$CCFILE" verify -m mmap $files
}

# site SITE STAT: a cycle with every third pass through SITE failing;
# STAT (a statistic, or -) must grow
site() {
	cc_snap "$1"
	echo 3 > $P/fault_every
	cc_with_fault "$1" cycle "$1"
	[ "$2" = - ] || check_gt "$1: the fault was hit ($2 grew)" \
		"$(cc_delta "$1" "$2")" 0
}

cc_mem_baseline

cc_start
check "a test-only knob takes a list of sites" sh -c "echo entry,pool > $P/fault_inject"
check_eq "and reads it back" "$(cat $P/fault_inject)" "entry,pool"
check_fails "an unknown site is refused" sh -c "echo entry,nosuch > $P/fault_inject"
check_eq "and the list stays" "$(cat $P/fault_inject)" "entry,pool"
echo none > $P/fault_inject
mkdir -p "$dir"
files="$dir/f1 $dir/f2 $dir/f3"
run_check "create 3 compressible files of 4 MiB" cc_create 4M $files
cycle "no fault"
check_gt "hits without faults" "$(cc_stat hits)" 0

site entry reject_alloc_failure
# records are made for files that have none: start from an empty store,
# so that every file needs one (with keep_served=1 the entries kept for
# the pages just served would keep their files' records)
check "flush, so that the files need records again" \
	sh -c "echo 1 > /sys/kernel/mm/ccache/flush"
site inode reject_alloc_failure
site staging reject_staging_full
site pool reject_alloc_failure
# a first try that finds no memory is not the end of the page: the next,
# a jiffy later, stores it (a real failure there is tried again too)
site pool_busy alloc_retries
check_gt "pool_busy: pages retried were stored (reject_alloc_failure grew by under a tenth of alloc_retries)" \
	$(($(cc_delta pool_busy alloc_retries) - \
	   10 * $(cc_delta pool_busy reject_alloc_failure))) 0
site compress reject_poor_compression
site decompress decompress_errors
site serve -

# a corrupted object: caught by the checksum
cc_snap corrupt
echo corrupt > $P/fault_inject
echo 1 > $P/fault_every
cycle "corrupt, checksum on"
check_gt "corrupt: checksum_errors grew" "$(cc_delta corrupt checksum_errors)" 0
check_gt "corrupt: pages fell back to the disk (decompress_errors grew)" \
	"$(cc_delta corrupt decompress_errors)" 0
# and the same without the checksum reaches the reader: the hook is real
echo N > $P/checksum
cc_snap nocrc
cc_evict $files
check_fails "corrupt, checksum off: wrong data reaches the reader" \
	"$CCFILE" verify -m read $files
echo "# hits $(cc_delta nocrc hits), decompress_errors $(cc_delta nocrc decompress_errors)"
echo none > $P/fault_inject
echo Y > $P/checksum
check "rmmod ccache" /sbin/rmmod ccache
# what the reader was given stays in the page cache: drop it
sync
echo 3 > /proc/sys/vm/drop_caches
run_check "the files on disk still match their models" \
	"$CCFILE" verify -m direct $files

# pool exhaustion: a pool of 1% of RAM
cc_start max_pool_percent=1
cc_snap tiny
cycle "pool of 1% of RAM"
check_gt "the pool limit was hit (reject_pool_limit or lru_evictions grew)" \
	$(($(cc_delta tiny reject_pool_limit) + $(cc_delta tiny lru_evictions))) 0

# everything together, a fault in every fifth pass
echo entry,inode,staging,pool,serve,compress,decompress,corrupt > $P/fault_inject
echo 5 > $P/fault_every
echo 20 > $P/max_pool_percent
cycle "every site, every fifth pass"
echo none > $P/fault_inject
cc_show "at the end"
check "rmmod ccache" /sbin/rmmod ccache

cc_mem_back
tap_done
