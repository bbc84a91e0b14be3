#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool keeps its room when a folio it admitted cannot be stored
# (ccache/lru.c, ccache_pool_refund()): each page of an admitted large
# folio makes room for itself as it comes, evicting an old entry or using
# credit; when a later page's allocation fails, the folio's stored pages
# go with it, and the room they made is credit for the next pages.
# Before, that room stayed empty in a pool that stays full
# (accept_threshold_percent=0, or credit left), and the pool held ever
# fewer pages.  A fixed pool is filled with cold data; a new file, read
# in a cgroup into large folios (xfs) and evicted twice, is admitted the
# second time (the pool refused it once) while every fourth pool
# allocation fails (fault_inject=pool).  The pool must still hold most of
# what it held.  Every file reads back as its model.
# The larger the folios, the more room a failed one had made: the check
# tells most on 7.x, whose xfs reads this file into larger folios than
# 6.1's.
# VM: mem=256 cpus=2 disk=xfs:512M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
P=/sys/module/ccache/parameters
dir=/mnt/d0/refund

cc_fill_pool_folios "$dir" "$dir/w"
cc_groups_create reader
# once: refused, and remembered as refused
run_check "the new file, read in cgroup reader, matches its model" \
	cc_in_group reader "$CCFILE" verify -m read "$dir/w"
cc_reclaim_all reader
cc_settle
before=$(cc_stat stored_pages)
check_gt "the pool holds more than 1,000 pages" "$before" 1000
# twice: its pages take old entries' places, a folio at a time
run_check "read again in cgroup reader, it matches its model" \
	cc_in_group reader "$CCFILE" verify -m read "$dir/w"
cc_snap again
echo 4 > $P/fault_every
echo shrinker,pool > $P/fault_inject
cc_reclaim_all reader
cc_settle
echo shrinker > $P/fault_inject
echo 1 > $P/fault_every
cc_settle
cc_show "after evicting the new file again, every 4th allocation failing"
after=$(cc_stat stored_pages)
echo "# stored pages: $before before, $after after;" \
	"$(cc_delta again lru_evictions) entries evicted," \
	"$(cc_delta again reject_alloc_failure) pages of failed folios dropped"
# only admitted pages are allocated: their room came from evictions or
# from credit (the fill's evictions of whole folios leave some), so
# lru_evictions alone does not tell
check_gt "its folios were admitted, and allocations failed (reject_alloc_failure grew)" \
	"$(cc_delta again reject_alloc_failure)" 0
check_gt "the pool still holds more than 3/4 of its pages" \
	$((after * 4)) $((before * 3))
run_check "the new file reads back as its model" \
	"$CCFILE" verify -m read "$dir/w"
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "the cold files read back as their models" \
	"$CCFILE" verify -m read $cc_cold
check "rmmod ccache" /sbin/rmmod ccache
tap_done
