#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool lets idle entries go (pool_sizing=auto, ccache_sizing_idle()):
# cold data fills a small pool and is never read again; a read of a
# second, raw disk, which ccache does not keep, then advances the eviction
# clock by more than a RAM; a new file evicted into the full pool takes
# the idle entries' place (idle_evictions) instead of being refused, and
# is served by ccache.  With pool_sizing=fixed no entry is idle and the
# same file is mostly refused.  Every file reads back as its model.
# VM: mem=256 cpus=2 disk=ext4:512M disk=raw:512M timeout=420
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
P=/sys/module/ccache/parameters
dir=/mnt/d0/idle
# Nothing reads it before: none of its pages comes back to the page cache
# after reclaim took it (a refault of the data disk's metadata, read
# again there, counts against the pool's target and empties the pool).
raw=/dev/vdb
[ -b "$raw" ] || tap_skip_all "no raw disk at $raw"
pages=1024

# round SIZING: a small pool full of cold data, aged by a read of the raw
# disk, then a new file evicted into it (checks).  The pool is filled with
# pool_sizing=fixed and SIZING set after the fill: under auto, a fill that
# makes the page cache refault and whose pages are never read back may
# rightly shrink the pool to nothing.
round() {
	# only the data disk's filesystem is cached (cc_start_small): the raw
	# disk's pages only advance the clock
	cc_fill_cold "$dir"
	cc_show "after the cold data"
	check "pool_sizing=$1 from now on" sh -c "echo $1 > $P/pool_sizing"
	# twice RAM: reclaim evicts most of it, which is what ages the pool
	check "read 512 MiB of the raw disk ($raw)" \
		dd if="$raw" of=/dev/null bs=1M count=512 status=none
	# created after the read, which would have evicted it
	check "create a 4 MiB file" cc_create 4M "$dir/w"
	sync
	cc_snap new
	cc_evict "$dir/w"
	cc_snap read
	run_check "the new file reads back as its model" \
		"$CCFILE" verify -m read "$dir/w"
	echo "# $1: $(cc_delta new idle_evictions) idle evictions," \
		"$(cc_delta new reject_pool_limit) refused, $(cc_delta read hits) hits"
}

round auto
check_gt "idle entries made room for the new file (idle_evictions)" \
	"$(cc_delta new idle_evictions)" $((pages / 2))
check_le "few of its pages were refused (reject_pool_limit)" \
	"$(cc_delta new reject_pool_limit)" $((pages / 4))
check_gt "more than half of it was served by ccache" \
	"$(cc_delta read hits)" $((pages / 2))
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "the cold files read back as their models" \
	"$CCFILE" verify -m read $cc_cold
check "rmmod ccache" /sbin/rmmod ccache
rm -rf "$dir"

round fixed
check_eq "with fixed no entry is idle" "$(cc_delta new idle_evictions)" 0
check_gt "and most of the new file was refused (reject_pool_limit)" \
	"$(cc_delta new reject_pool_limit)" $((pages / 2))
check "rmmod ccache" /sbin/rmmod ccache
tap_done
