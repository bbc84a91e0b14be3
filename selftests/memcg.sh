#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A memory cgroup's share of the pool is bounded (ccache/memcg.c): at
# most max_pool_percent of its memory.max.  A cgroup "small" with
# memory.max=64M reads a compressible 256 MiB file twice: its pages are
# evicted by its own limit reclaim, which ccache captures, and without the
# bound they would fill the pool up to its host-wide limit.  256 MiB is
# four times memory.max and, compressed (to about a third), more than
# twice the bound of 60% of 64 MiB, which it must reach: a share left
# unbounded would hold all of it, well beyond the bound, and the host-wide
# limit (60% of 512 MiB) would not stop it first.  Another cgroup's
# entries, stored before, survive it and are served.
# VM: mem=512 cpus=2 disk=ext4:512M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
[ -f /sys/fs/cgroup/cgroup.subtree_control ] ||
	tap_skip_all "no cgroup v2 hierarchy at /sys/fs/cgroup"
P=/sys/module/ccache/parameters
G=/sys/fs/cgroup
dir=/mnt/d0/memcg
mkdir -p $dir

check "create 16 MiB of compressible data" cc_create 16M $dir/other
check "create 256 MiB of compressible data" cc_create 256M $dir/big
sync
echo 3 > /proc/sys/vm/drop_caches
cc_start
check "enable the memory controller for child cgroups" \
	sh -c "echo +memory > $G/cgroup.subtree_control"
check "create cgroups small and other" mkdir -p $G/small $G/other
check "limit small to 64 MiB" sh -c "echo 64M > $G/small/memory.max"

# other: no limit; its file's pages leave through its own reclaim
run_check "other reads its file" cc_in_group other \
	"$CCFILE" verify -m read $dir/other
cc_snap other
for _ in 1 2 3 4 5; do
	echo 64M > $G/other/memory.reclaim 2>/dev/null
done
cc_settle
other_pages=$(cc_delta other stored_pages)
other_bytes=$(($(cc_delta other compressed_bytes) + other_pages * 64))
echo "# other: $other_pages pages stored, $other_bytes bytes"
check_gt "other's file was stored" "$other_pages" 1024

cc_snap small
for pass in first second; do
	run_check "small reads 256 MiB, $pass pass, as its model" \
		cc_in_group small "$CCFILE" verify -m read $dir/big
done
cc_settle
cc_show "after small's reads"
bound=$((64 * 1024 * 1024 * $(cat $P/max_pool_percent) / 100))
share=$(($(cc_stat compressed_bytes) + $(cc_stat stored_pages) * 64 -
	other_bytes))
echo "# small's share at most $share bytes, bound $bound"
check_gt "small's pages were stored" "$(cc_delta small captures)" 1024
check_gt "small's share was full (reject_cgroup_limit)" \
	"$(cc_delta small reject_cgroup_limit)" 0
check_le "small's share within max_pool_percent of its memory.max" \
	"$share" "$bound"

cc_snap back
run_check "other reads its file back, as its model" cc_in_group other \
	"$CCFILE" verify -m read $dir/other
check_gt "other's entries survived: served" \
	"$(cc_delta back hits)" $((other_pages * 9 / 10))
check "rmmod ccache" /sbin/rmmod ccache
tap_done
