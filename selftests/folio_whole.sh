#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The pages of a large folio are kept and let go as one (ccache/store.c,
# ccache_erase_folio()): the kernel reads a folio from the disk whole
# unless every page of it is stored, so a page stored without the rest of
# its folio is memory spent for nothing.  xfs reads files into large
# folios on every supported kernel.  Two files are read in a cgroup, then
# evicted by its reclaim once read (memory.reclaim: no allocation, so no
# compaction splits a folio first, as the waves of cc_evict do, and no
# page leaves before it was read: cc_reclaim_all) while every 20th pool
# allocation fails (test-only fault_inject=pool): the folios that lost a
# page must not keep the others, so the re-read, which reads the same
# folios, serves at least 99% of the pages still stored.  Every byte
# matches.
# VM: mem=256 cpus=2 disk=xfs:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
P=/sys/module/ccache/parameters

# shellcheck disable=SC2086 # a list of paths without spaces
{
	cc_cold_pair /mnt/d0/folio
	cc_start pool_sizing=fixed
	cc_groups_create reader
	check "every 20th pool allocation fails" \
		sh -c "echo 20 > $P/fault_every && echo pool > $P/fault_inject"
	cc_snap evict
	run_check "the first read, in cgroup reader, matches the model" \
		cc_in_group reader "$CCFILE" verify -m read $files
	cc_reclaim_all reader
	cc_settle
	echo none > $P/fault_inject
	cc_show "after eviction"
	stored=$(cc_stat stored_pages)
	check_gt "pool allocations failed (reject_alloc_failure)" \
		"$(cc_delta evict reject_alloc_failure)" 0
	check_gt "pages were stored" "$stored" $((pages / 32))

	cc_snap read
	run_check "the re-read matches the model" "$CCFILE" verify -m read $files
	hits=$(cc_delta read hits)
	echo "# $hits of $stored stored pages served"
	check_gt "at least 99% of the stored pages were served" \
		$((hits * 100)) $((stored * 99 - 1))
}
check "rmmod ccache" /sbin/rmmod ccache
tap_done
