#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool that holds what the workload no longer reads gives way
# (pool_sizing=auto, ccache_sizing_replacing()): one pass over cold data
# fills a small pool; a file evicted into it is refused and read from the
# disk, ghost hits the pool served nothing against; from then on a second
# file, never refused before and never marked workingset, takes the place
# of cold entries on its first eviction and is served by ccache.  With
# pool_sizing=fixed the same second file is mostly refused (the
# one-in-eight turnover and the room hits leave let some in), and a switch
# to auto does not act on the ghost hits fixed saw.  Every file reads back
# as its model.
#
# The pool is 6% of RAM, not cc_start_small's 2%: a refused page's ghost
# hit counts towards replacing only within the horizon, as many evicted
# pages as the pool holds (ccache/sizing.c), and every page reclaim
# evicts after a file's first page (its own, and those of the raw disk
# that cc_evict streams to push its last pages out) adds to that page's
# distance.  At 2% the horizon barely exceeds the 1,024 pages of a file,
# and most of its ghost hits can fall beyond it (Documentation/testing.rst).
# VM: mem=256 cpus=2 disk=ext4:512M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
P=/sys/module/ccache/parameters
T=/sys/kernel/tracing
dir=/mnt/d0/replace
pages=1024

# round SIZING: a fresh pool full of cold data, file w1 evicted into it
# (refused) and read from the disk, then file w2 evicted (checks)
round() {
	cc_fill_pool "$dir" "$dir/w1" 6
	check "pool_sizing=$1" sh -c "echo $1 > $P/pool_sizing"
	echo 1 > $T/events/ccache/ccache_pool_target/enable
	echo > $T/trace
	cc_snap first
	cc_evict "$dir/w1"
	run_check "the first file reads back as its model (from disk)" \
		"$CCFILE" verify -m read "$dir/w1"
	sleep 2
	cc_show "after reading the first file"
	check_gt "its refused pages were ghost hits" \
		"$(cc_delta first ghost_hits)" $((pages / 2))
	check_gt "within the horizon (near_ghost_hits)" \
		"$(cc_delta first near_ghost_hits)" $((pages / 2))
	# created now: its first eviction comes after the ghost hits
	check "create a second 4 MiB file" cc_create 4M "$dir/w2"
	sync
	cc_snap second
	cc_evict "$dir/w2"
}

# reject_pool_limit, not lru_evictions, tells whether the second file got
# in: the first file, refused once, is admitted in place of old entries
# when the same pressure evicts it again (refused_again), in either mode
round auto
check "the sizing worker switched to replacing" grep -q ' replacing$' $T/trace
check_le "few of the second file's pages were refused (reject_pool_limit)" \
	"$(cc_delta second reject_pool_limit)" $((pages / 4))
cc_check_replaced second "$dir/w2" $pages $((pages / 2))

round fixed
cc_show "fixed, after evicting the second file"
check_gt "with fixed most of the second file was refused (reject_pool_limit)" \
	"$(cc_delta second reject_pool_limit)" $((pages / 2))
cc_snap read
run_check "it reads back as its model" "$CCFILE" verify -m read "$dir/w2"
check_le "and at most half of it was served by ccache" \
	"$(cc_delta read hits)" $((pages / 2))

# what fixed saw does not carry over: a third file refused and read back
# under fixed leaves ghost hits that would have made auto replace, yet
# the first periods after the switch do not
check "create a third 4 MiB file" cc_create 4M "$dir/w3"
sync
cc_snap third
cc_evict "$dir/w3"
run_check "it reads back as its model" "$CCFILE" verify -m read "$dir/w3"
check_gt "its refused pages were ghost hits" \
	"$(cc_delta third ghost_hits)" $((pages / 2))
echo > $T/trace
check "pool_sizing=auto" sh -c "echo auto > $P/pool_sizing"
sleep 3
check "the sizing worker did not start replacing" \
	sh -c "! grep -q ' replacing\$' $T/trace"
echo 0 > $T/events/ccache/ccache_pool_target/enable
check "rmmod ccache" /sbin/rmmod ccache
tap_done
