#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pool holds on where it pays (pool_sizing=auto, sizing.c): a
# compressible file of 1.25x RAM read twice in order fills the pool
# (more than half of what the file takes compressed), the target stays
# near max_pool_percent (the file's pages are data the pool can hold: they
# count as ghost hits, never as other refaults), and part of the second
# pass is served from the pool.  The file reads back as its model.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=400
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
P=/sys/module/ccache/parameters
dir=/mnt/d0/stream
mkdir -p "$dir"

mib=$(($(meminfo_kib MemTotal) * 5 / 4 / 1024))
check "create $mib MiB, 1.25x RAM" cc_create "${mib}M" $dir/big
sync
echo 3 > /proc/sys/vm/drop_caches
cc_start
check "pool_sizing is auto" [ "$(cat $P/pool_sizing)" = auto ]
limit=$(($(meminfo_kib MemTotal) * $(cat $P/max_pool_percent) * 1024 / 100))

run_check "the first pass reads back as its model" \
	"$CCFILE" verify -m read $dir/big
cc_snap second
run_check "the second pass reads back as its model" \
	"$CCFILE" verify -m read $dir/big
sleep 2
cc_show "after two passes"
# Half of what the file could fill, not of the ceiling: the default
# ceiling is more than the whole file takes compressed, and the pages
# that stay cached or are dropped while compression lags never reach the
# pool (Documentation/testing.rst has the runs).  A pool that let go
# would hold next to nothing.
fill=$((mib * 1048576 * $(cc_stat compression_ratio_permille) / 1000))
[ "$fill" -lt "$limit" ] || fill=$limit
check_gt "the pool holds more than half of what the file could fill" \
	"$(cc_stat mem_used_bytes)" $((fill / 2))
# Each near hit and other refault lowers the target by a page, and the
# stream's hits do not raise it back, so it may end a few hundred pages
# below the ceiling.  A pool that let go would lose far more than the
# 1/32 of the ceiling allowed here.
target=$(cc_stat pool_target_bytes)
echo "# target $target bytes of a ceiling of $limit"
check "the target stayed within 1/32 of max_pool_percent" \
	[ "$target" -ge $((limit - limit / 32)) ]
check_gt "the second pass was partly served from the pool" \
	"$(cc_delta second hits)" 1024
check "rmmod ccache" /sbin/rmmod ccache
tap_done
