#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool makes room for the working set: one pass over cold data
# fills a small pool, then a file read again and again (its pages become
# active, and the kernel marks them workingset when it deactivates them)
# is evicted.  Its pages take the place of cold ones instead of being
# refused, its next read is served by ccache, and every byte matches.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

dir=/mnt/d0/workingset
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
cold="$dir/cold1 $dir/cold2 $dir/cold3 $dir/cold4"
hot=$dir/hot
hot_pages=1024

# The shrinker is faulted off (test-only knob, ccache/fault.c): under the
# eviction's pressure it would free cold entries and let the hot pages in
# whatever the admission policy.  yield.sh tests the shrinker.
cc_start max_pool_percent=2 fault_inject=shrinker
mkdir -p "$dir"
# shellcheck disable=SC2086 # a list of paths without spaces
check "create 64 MiB of cold data" cc_create 16M $cold
sync

cc_snap cold
# shellcheck disable=SC2086
cc_evict $cold
check_gt "the cold data filled the pool (reject_pool_limit grew)" \
	"$(cc_delta cold reject_pool_limit)" 0

check "create a 4 MiB file" cc_create 4M "$hot"
sync
for n in 1 2 3; do
	run_check "read it ($n)" "$CCFILE" verify -m read "$hot"
done

# The kernel's own reclaim (memory.reclaim) ages the active list, which
# marks the pages it deactivates workingset; ccfile's eviction would
# reclaim them with MADV_PAGEOUT, which forgets that they were active.
cc_snap hot
i=0
while [ $i -lt 16 ]; do
	echo 16M > /sys/fs/cgroup/memory.reclaim 2> /dev/null
	i=$((i + 1))
done
cc_settle
echo "# memory.reclaim: $(cc_delta hot captures) pages captured"
cc_evict "$hot"
cc_show "after evicting the hot file"
check_gt "its pages took the place of old entries (lru_evictions grew)" \
	"$(cc_delta hot lru_evictions)" $((hot_pages / 4))

cc_snap read
run_check "it reads back as its model" "$CCFILE" verify -m read "$hot"
check_gt "more than half its pages were served by ccache" \
	"$(cc_delta read hits)" $((hot_pages / 2))
# shellcheck disable=SC2086
run_check "the cold files read back as their models" \
	"$CCFILE" verify -m read $cold
check "rmmod ccache" /sbin/rmmod ccache
tap_done
