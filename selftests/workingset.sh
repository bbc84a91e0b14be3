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

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
hot=/mnt/d0/workingset/hot
hot_pages=1024

cc_fill_pool /mnt/d0/workingset "$hot"
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
cc_check_replaced hot "$hot" $hot_pages $((hot_pages / 4))
tap_done
