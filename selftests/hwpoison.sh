#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A large folio with a hardware-poisoned page is never captured, whichever
# of its pages is hit (capture.c, ccache_folio_poisoned()): copying it
# would take a machine check where the kernel alone frees the folio.  A
# guest cannot put a poisoned page in front of capture (memory_failure()
# splits or truncates a clean page-cache folio), so the test-only fault
# site "hwpoison" takes the last page of every large folio for poisoned.
# xfs reads files into large folios on every supported kernel: two files
# read in a cgroup, then pushed out by its reclaim (memory.reclaim), must
# have every large folio refused (reject_policy, the ccache_reject
# events), no page of one stored (ccache_store events; single-page folios,
# which 7.x reads too, are), and read back as their models.
# VM: mem=256 cpus=2 disk=xfs:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# shellcheck disable=SC2086 # a list of paths without spaces
{
	cc_cold_pair /mnt/d0/hwpoison
	cc_start fault_inject=hwpoison
	cc_trace_start
	cc_groups_create reader
	cc_snap evict
	run_check "the files, read in cgroup reader, match their models" \
		cc_in_group reader "$CCFILE" verify -m read $files
	cc_reclaim_all reader
	cc_settle
	cc_show "after eviction"
	echo 0 > $T/events/ccache/enable
	check_gt "most pages were refused as poisoned (reject_policy)" \
		"$(cc_delta evict reject_policy)" $((pages / 2))
	# "ino I index X nr N reason policy" marks X..X+N-1 of I refused;
	# "ino I index X len L" is a page stored
	bad=$(sed -n 's/.*ccache_\(reject\|store\): .* ino \([0-9]*\) index \([0-9]*\) \(nr\|len\) \([0-9]*\)\( reason policy\)\{0,1\}$/\1 \2 \3 \5 \6/p' \
		$T/trace | awk '
		$1 == "reject" && $5 == "reason" {
			for (i = 0; i < $4; i++) refused[$2 " " $3 + i] = 1
			r += $4
		}
		$1 == "store" { stored[$2 " " $3] = 1 }
		END { n = 0; for (k in stored) if (k in refused) n++; print n, r + 0 }')
	echo "# trace: ${bad#* } pages refused as poisoned, ${bad% *} of them stored"
	check_gt "the trace shows large folios refused" "${bad#* }" $((pages / 2))
	check_eq "no page of a refused folio was stored" "${bad% *}" 0
	run_check "the files read back as their models" \
		"$CCFILE" verify -m read $files
}
check "rmmod ccache" /sbin/rmmod ccache
tap_done
