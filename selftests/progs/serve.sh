# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Body of the serve_*.sh tests (HOW is the read path: read, readahead,
# sendfile, mmap).  A compressible file set is read from a cold cache,
# pushed out of the page cache by memory pressure, and read again: the
# second pass must return identical data, be served by ccache (hits) and
# read the disk much less.

: "${HOW:?set HOW}"
dir=/mnt/d0/serve
nfiles=4
file_mib=8
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# The shrinker is faulted off (test-only knob): the eviction's pressure
# pushes the page cache below the share at which the pool gives memory
# back, and on 7.x, whose kernel leaves a 192 MiB guest less room, it
# took most of what had been stored (yield.sh tests the shrinker).
cc_start fault_inject=shrinker
mkdir -p "$dir"
files=
i=1
while [ $i -le $nfiles ]; do
	files="$files $dir/f$i"
	i=$((i + 1))
done
pages=$((nfiles * file_mib * 256))
create_all() {
	for f in $files; do
		"$CCFILE" create "$f" ${file_mib}M || return 1
	done
}
# shellcheck disable=SC2086 # a list of paths without spaces
{
	run_check "create $nfiles x $file_mib MiB of compressible data" \
		create_all
	check "empty page cache and store before the cold pass" cc_empty_store

	cc_snap cold
	run_check "cold pass ($HOW) matches the model" "$CCFILE" verify -m "$HOW" $files
	cold_disk=$(cc_delta cold vda)
	echo "# cold pass read $((cold_disk / 2)) KiB from disk"

	cc_snap evict
	cc_evict $files
	captures=$(cc_delta evict captures)
	check_gt "captures during eviction: at least a quarter of the pages" \
		"$captures" $((pages / 4))
	check_gt "stored_pages > 0 after eviction" "$(cc_stat stored_pages)" 0
	cc_show "after eviction"

	cc_snap warm
	run_check "warm pass ($HOW) matches the model" "$CCFILE" verify -m "$HOW" $files
	warm_disk=$(cc_delta warm vda)
	hits=$(cc_delta warm hits)
	echo "# warm pass read $((warm_disk / 2)) KiB from disk, $hits hits of $pages pages"
	check_gt "hits: at least an eighth of the pages came from ccache" \
		"$hits" $((pages / 8))
	# a hit is a page (8 sectors) not read from the disk; allow for
	# readahead reading some of them anyway
	check_gt "disk reads fell by at least half of what the hits saved" \
		$((cold_disk - warm_disk)) $((hits * 4))
	served=$(cc_delta warm served_reads)
	partial=$(cc_delta warm partial_reads)
	echo "# of the reads ccache filled, $served whole, $partial in part"
	# whole or in part: 7.x reads a re-read in a few large windows,
	# each partly stored (4 to 10 partial reads, none whole, on 7.3.4)
	check_gt "the reads filled are counted (served_reads, partial_reads)" \
		$((served + partial)) 0
	check_le "each read filled holds a hit" $((served + partial)) "$hits"
	cc_show "after the warm pass"

	run_check "O_DIRECT read (the disk) matches the model" "$CCFILE" verify -m direct $files
}
check "rmmod ccache" /sbin/rmmod ccache
tap_done
