#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ccache's tracepoints (ccache/trace.h), read through tracefs as perf,
# trace-cmd and bpftrace read them: each event fires for what it names,
# with the file's inode number, and the reject reasons are spelled out.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=150
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

T=/sys/kernel/tracing
P=/sys/module/ccache/parameters
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
[ -e $T/trace ] || tap_skip_all "no tracefs at $T"
dir=/mnt/d0/trace
events="ccache_store ccache_load_hit ccache_load_miss ccache_reject ccache_invalidate ccache_evict"

# seen EVENT INO [PATTERN]: the trace holds EVENT for inode INO (matching
# PATTERN too)
# shellcheck disable=SC2317 # called through check
seen() {
	grep " $1: " "$T/trace" | grep " ino $2 " | grep -q -- "${3:-}"
}

cc_start ""
for ev in $events; do
	check "tracefs has ccache:$ev" test -d "$T/events/ccache/$ev"
done
check "the events have a format" grep -q "field:unsigned long ino" \
	$T/events/ccache/ccache_store/format

mkdir -p $dir
check "create a compressible file" "$CCFILE" create $dir/text 8M
check "create a random file" \
	dd if=/dev/urandom of=$dir/random bs=1M count=2 status=none
text=$(stat -c %i $dir/text)
random=$(stat -c %i $dir/random)
check "empty page cache and store" cc_empty_store
check "read the text file into the page cache" "$CCFILE" verify $dir/text

echo 1 > $T/events/ccache/enable
echo > $T/trace
cc_evict $dir/text
check "ccache_store fired for the text file" seen ccache_store "$text"

# the random file on its own: evicted together with the text file, its
# pages may find every staging buffer taken by the text file's and be
# refused for that (staging_full) before their compression is ever tried
check "read the random file into the page cache" \
	sh -c "cat $dir/random > /dev/null"
echo > $T/trace
cc_evict $dir/random
check "ccache_reject fired for the random file: poor_compression" \
	seen ccache_reject "$random" "reason poor_compression"
reasons=$(grep " ccache_reject: " $T/trace | grep " ino $random " |
	sed -n 's/.* nr \([0-9]*\) reason \([a-z_]*\).*/\2 \1/p' |
	awk '{ n[$1] += $2 } END { for (r in n) printf " %s %d", r, n[r] }')
echo "# its pages refused, by reason:${reasons:- none}"

echo > $T/trace
# the random file first: lookups are made only while something is stored
check "re-read the random file" sh -c "cat $dir/random > /dev/null"
check "ccache_load_miss fired for it" seen ccache_load_miss "$random"
run_check "re-read the text file: matches" "$CCFILE" verify $dir/text
check "ccache_load_hit fired for it" seen ccache_load_hit "$text"

echo > $T/trace
cc_evict $dir/text
run_check "truncate the text file while stored" \
	"$CCFILE" truncate $dir/text 1000000
check "ccache_invalidate fired for it, with entries erased" \
	seen ccache_invalidate "$text" "erased [1-9]"

# a pool limit lowered below what is stored evicts what is above it (the
# sizing worker, or the next store, whichever comes first).  The file that
# fills the pool is compressed in reclaim (offload=inline): the cpu
# backend drops many of its pages as staging_full under TCG, and the pool
# then held barely 1% of RAM, less once the text file's hits took theirs.
check "compress in reclaim from now on" sh -c "echo inline > $P/offload"
check "create a second compressible file" "$CCFILE" create $dir/more 16M
check "read it into the page cache" "$CCFILE" verify $dir/more
cc_evict $dir/more
one_percent=$(($(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo) * 10))
check_gt "the pool holds more than 1% of RAM" \
	"$(cc_stat mem_used_bytes)" $one_percent
check "read the text file into the page cache" "$CCFILE" verify $dir/text
check_gt "the pool still holds more than 1% of RAM" \
	"$(cc_stat mem_used_bytes)" $one_percent
echo > $T/trace
check "lower max_pool_percent to 1" sh -c "echo 1 > $P/max_pool_percent"
cc_evict $dir/text
check "ccache_evict fired for the pool limit" \
	grep -q "ccache_evict: .* for pool_limit" $T/trace
echo 0 > $T/events/ccache/enable
grep ccache_ $T/trace | head -n 5 | sed 's/^/# /'

check "rmmod ccache" /sbin/rmmod ccache
check "the events go with the module" test ! -d $T/events/ccache
tap_done
