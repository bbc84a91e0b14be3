#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /sys/kernel/mm/ccache/flush: writing 1 drops every stored page and frees
# their memory, and leaves the page cache alone; any other value drops
# nothing; files read back afterwards are identical and come from the
# disk; a file written with O_DIRECT stays uncached across a flush (its
# poison mark is kept); no free staging buffer keeps a captured page's
# bytes; flushes racing a served re-read return only correct data.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

F=/sys/kernel/mm/ccache/flush
dir=/mnt/d0/flush
files="$dir/f1 $dir/f2 $dir/f3"
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# flush_with FILE: write FILE's bytes to the flush file in one write(2)
# shellcheck disable=SC2317 # called through check
flush_with() {
	dd if="$1" of="$F" bs=64k count=1 status=none 2>/dev/null
}

# shellcheck disable=SC2119 # no module options
cc_start
check "the flush file exists" test -f $F
check_eq "its mode is 0200" "$(stat -c %a $F)" 200
check_fails "reading it fails" cat $F
mkdir -p "$dir"
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "create 3 x 8 MiB of compressible data" cc_create 8M $files
check "empty page cache and store" cc_empty_store
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "cold pass matches the model" "$CCFILE" verify $files
# shellcheck disable=SC2086
cc_evict $files
stored=$(cc_stat stored_pages)
check_gt "pages are stored" "$stored" 0
cc_show "before flush"

# ---- refused values drop nothing ----
V=/tmp/flushv
mkdir -p $V
printf 0 > $V/zero
printf 2 > $V/two
printf 11 > $V/eleven
printf 01 > $V/leading-zero
printf 1x > $V/trailing-junk
printf ' 1' > $V/leading-space
printf '1 ' > $V/trailing-space
printf '1\n\n' > $V/two-newlines
printf '1\000' > $V/nul
printf y > $V/y
printf '\n' > $V/newline
head -c 4096 /dev/zero | tr '\0' 1 > $V/page-of-ones
for v in "$V"/*; do
	check_fails "flush <- ${v##*/}: refused" flush_with "$v"
done
left=$(cc_stat stored_pages)
echo "# stored_pages $stored before the refused writes, $left after"
# the shrinker may take some under pressure, a flush would take all
check_gt "refused writes dropped nothing" "$left" $((stored / 2))

# ---- flush ----
mem_before=$(cc_stat mem_used_bytes)
run_check "read f1 back into the page cache" "$CCFILE" verify "$dir/f1"
check "echo 1 > flush" sh -c "echo 1 > $F"
check_eq "stored_pages is 0 at once" "$(cc_stat stored_pages)" 0
check_eq "compressed_bytes is 0" "$(cc_stat compressed_bytes)" 0
mem_after=$(cc_stat mem_used_bytes)
echo "# mem_used_bytes $mem_before before, $mem_after after"
check_gt "memory used dropped" "$mem_before" "$mem_after"
# ccfile resident: "FILE CACHED/TOTAL"
cached=$("$CCFILE" resident "$dir/f1" | awk 'NR == 1 { split($2, r, "/"); print r[1] }')
check_gt "the page cache was left alone (f1 still cached)" "${cached:-0}" 0
check "printf 1 (no newline) > flush" sh -c "printf 1 > $F"
# raw copies of the pages captured so far must not outlive their entries
# (the knob is in test builds only)
check_eq "no free staging buffer holds a page's bytes" \
	"$(cat /sys/module/ccache/parameters/staging_dirty)" 0

cc_snap flushed
# shellcheck disable=SC2086
run_check "re-read after flush matches the model" "$CCFILE" verify $dir/f2 $dir/f3
check_eq "nothing was served after the flush (hits unchanged)" \
	"$(cc_data_hits flushed)" 0
check_gt "the re-read came from the disk" "$(cc_delta flushed vda)" 0

# ---- a file written with O_DIRECT stays uncached across a flush ----
f=$dir/odirect
run_check "create a file" "$CCFILE" create "$f" 4M
run_check "write it with O_DIRECT" "$CCFILE" write -d "$f" 1M 64K
check "echo 1 > flush" sh -c "echo 1 > $F"
run_check "read it into the page cache: matches" "$CCFILE" verify "$f"
cc_snap poisoned
cc_evict "$f"
check_gt "its evicted pages were refused (reject_policy)" \
	"$(cc_delta poisoned reject_policy)" 0
run_check "it matches after eviction" "$CCFILE" verify "$f"
check_eq "none of it was served (hits unchanged)" "$(cc_data_hits poisoned)" 0

# ---- flushes racing a re-read that ccache serves ----
# shellcheck disable=SC2086
cc_evict $files
check_gt "pages are stored again" "$(cc_stat stored_pages)" 0
# shellcheck disable=SC2086
"$CCFILE" verify $files > /tmp/verify.out 2>&1 &
reader=$!
n=0
while [ $n -lt 20 ]; do
	echo 1 > $F || break
	n=$((n + 1))
	sleep 0.05
done
check_eq "20 flushes during the re-read" "$n" 20
wait $reader
st=$?
tap_result $st "the re-read during flushes matches the model"
[ $st -eq 0 ] || sed 's/^/#   /' /tmp/verify.out
cc_show "at the end"

cd / || exit 1
check "rmmod ccache" /sbin/rmmod ccache
check_fails "the flush file goes with the module" test -e $F
tap_done
