#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A full pool lets one page in CCACHE_FULL_TURNOVER in (ccache/lru.c,
# ccache_pool_admit()) whatever the size of the folios they come in: the
# first page of a large folio decides for the whole folio, the folio's
# pages count towards the turnover, and the room a large folio's eviction
# leaves goes only to pages that may take a place.  A fixed pool is
# filled with cold data; a new file, read in a cgroup into large folios
# (xfs does on every supported kernel) and evicted by the cgroup's
# reclaim, is then refused but for about one page in eight, as the same
# file in single pages would be.  Before, a page of a folio of n pages
# counted n towards the turnover, so from 8 pages on nearly every page
# got a turn, and any page took the room an eviction left: large folios
# went in one for one.  Every file reads back as its model.
# VM: mem=256 cpus=2 disk=xfs:512M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
dir=/mnt/d0/turnover
pages=2048

cc_fill_pool_folios "$dir" "$dir/w"
cc_groups_create reader
cc_snap new
run_check "the new file, read in cgroup reader, matches its model" \
	cc_in_group reader "$CCFILE" verify -m read "$dir/w"
cc_reclaim_all reader
cc_settle
cc_show "after evicting the new file"
captured=$(cc_delta new captures)
refused=$(cc_delta new reject_pool_limit)
echo "# $captured of its pages captured, $refused refused," \
	"$(cc_delta new lru_evictions) entries evicted"
check_gt "most of the new file was captured" "$captured" $((pages / 2))
# one page in eight gets in, less at the start (the count carries over)
check_gt "more than 3/4 of what was captured was refused (reject_pool_limit)" \
	$((refused * 4)) $((captured * 3))
cc_snap read
run_check "the new file reads back as its model" \
	"$CCFILE" verify -m read "$dir/w"
check_le "at most a quarter of it was served by ccache" \
	"$(cc_delta read hits)" $((pages / 4))
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "the cold files read back as their models" \
	"$CCFILE" verify -m read $cc_cold
check "rmmod ccache" /sbin/rmmod ccache
tap_done
