#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool takes a page it refused once when that page comes back: one
# pass over cold data fills a small pool, then a file is evicted (refused:
# the pool is full), read from disk and evicted again.  The kernel never
# marked it workingset (ccfile's eviction forgets that pages were active),
# so only the pool's memory of what it refused lets its pages take the
# place of cold ones; its next read is served by ccache, every byte
# matching.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

dir=/mnt/d0/readmit
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
cold="$dir/cold1 $dir/cold2 $dir/cold3 $dir/cold4"
warm=$dir/warm
warm_pages=1024

# The shrinker is faulted off (test-only knob, ccache/fault.c), as in
# workingset.sh: it would make room for the warm pages by itself.
cc_start max_pool_percent=2 fault_inject=shrinker
mkdir -p "$dir"
# shellcheck disable=SC2086 # a list of paths without spaces
check "create 64 MiB of cold data" cc_create 16M $cold
check "create a 4 MiB file" cc_create 4M "$warm"
sync

cc_snap cold
# shellcheck disable=SC2086
cc_evict $cold
check_gt "the cold data filled the pool (reject_pool_limit grew)" \
	"$(cc_delta cold reject_pool_limit)" 0

cc_snap first
cc_evict "$warm"
cc_show "after evicting the file once"
check_gt "the full pool refused most of its pages" \
	"$(cc_delta first reject_pool_limit)" $((warm_pages / 2))
run_check "it reads back as its model (from disk)" \
	"$CCFILE" verify -m read "$warm"

cc_snap again
cc_evict "$warm"
cc_show "after evicting it again"
check_gt "its pages took the place of old entries (lru_evictions grew)" \
	"$(cc_delta again lru_evictions)" $((warm_pages / 2))

cc_snap read
run_check "it reads back as its model" "$CCFILE" verify -m read "$warm"
check_gt "more than half its pages were served by ccache" \
	"$(cc_delta read hits)" $((warm_pages / 2))
# shellcheck disable=SC2086
run_check "the cold files read back as their models" \
	"$CCFILE" verify -m read $cold
check "rmmod ccache" /sbin/rmmod ccache
tap_done
