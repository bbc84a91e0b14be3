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
dir=/mnt/d0/hwpoison
mkdir -p $dir
files="$dir/a $dir/b"
pages=$((2 * 4096))

# shellcheck disable=SC2086 # a list of paths without spaces
{
	check "create 2 x 16 MiB of compressible data" cc_create 16M $files
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cc_start fault_inject=hwpoison
	T=/sys/kernel/tracing
	[ -f $T/trace ] || mount -t tracefs nodev $T
	echo 4096 > $T/buffer_size_kb
	echo 1 > $T/events/ccache/ccache_store/enable
	echo 1 > $T/events/ccache/ccache_reject/enable
	check "enable the memory controller for child cgroups" \
		sh -c 'echo +memory > /sys/fs/cgroup/cgroup.subtree_control'
	check "create cgroup reader" mkdir -p /sys/fs/cgroup/reader
	cc_snap evict
	run_check "the files, read in cgroup reader, match their models" \
		cc_in_group reader "$CCFILE" verify -m read $files
	# only once the reads are done: a page pushed out before it was
	# read would come back in a folio of its own
	for _ in 1 2 3 4 5 6; do
		echo 16M > /sys/fs/cgroup/reader/memory.reclaim 2>/dev/null
	done
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
