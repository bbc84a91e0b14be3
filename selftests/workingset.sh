#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool makes room for the working set: one pass over cold data
# fills a small pool, then a file read again and again (the kernel marks
# its pages workingset, as far as its LRU does: see below) is evicted.
# Its pages take the place of cold ones instead of being refused, its
# next read is served by ccache, and every byte matches.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
hot=/mnt/d0/workingset/hot
hot_pages=1024

cc_fill_pool /mnt/d0/workingset "$hot"
# Read it often enough for the kernel to mark it workingset, which the
# multi-generation LRU (on by default in Debian's 6.12 and 7.x) does on
# its own terms: before 6.14 on the second read through a file
# descriptor, and it clears the mark again when it protects a page read
# more often (after five reads 6.12 left ccache no page marked); since
# 6.14 only once PG_referenced and the LRU_REFS_WIDTH counter are full
# (none after four reads on 7.3).  The classic LRU (6.1) marks the pages
# it deactivates after two reads or more.
reads=6
case $(uname -r) in
[1-5].* | 6.[0-9].* | 6.1[0-3].*) reads=3 ;;
esac
n=1
while [ $n -le $reads ]; do
	run_check "read it ($n)" "$CCFILE" verify -m read "$hot"
	n=$((n + 1))
done

# The kernel's own reclaim (memory.reclaim) ages the active list, which
# marks the pages it deactivates workingset (the multi-generation LRU
# keeps the marks the reads set); ccfile's eviction would
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
