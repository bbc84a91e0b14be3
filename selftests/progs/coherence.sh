# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Body of the coherence_*.sh tests: each change of DESIGN.md section 7 is
# made to a file while its old pages sit compressed in ccache, then the
# file is read back against its model: right after the change, again
# after the pages were evicted (and the inode cache dropped), and once
# more after drop_caches emptied the store.  FS names the filesystem on
# /mnt/d0.

: "${FS:?set FS}"
dir=/mnt/d0/coherence
MB=1048576
events="truncate extend punch zero collapse insert odirect overwrite renameover"
# xfs shares blocks between files (reflink, on by default since xfsprogs
# 5.1); ext4 cannot
[ "$FS" != xfs ] || events="$events reflink"
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# the files as created: 4 MiB of compressible data each
setup_event() {
	f=$dir/$1
	case $1 in
	extend) "$CCFILE" create "$f" $((4 * MB - 1000)) ;;
	renameover) "$CCFILE" create "$f" 4M && "$CCFILE" create "$f.new" 4M ;;
	reflink) "$CCFILE" create "$f" 4M && "$CCFILE" create "$f.src" 4M ;;
	*) "$CCFILE" create "$f" 4M ;;
	esac
}

# the change, made while the file's pages are in ccache
mutate_event() {
	f=$dir/$1
	case $1 in
	truncate)
		# shrink into a page, then re-extend over the dropped range
		"$CCFILE" truncate "$f" 1500001 && "$CCFILE" truncate "$f" 4M ;;
	extend)
		# write across the old partial last page, extend, leave a gap
		"$CCFILE" write "$f" $((4 * MB - 1500)) 3000 &&
			"$CCFILE" truncate "$f" 6M &&
			"$CCFILE" write "$f" 7M 100000 ;;
	punch)
		"$CCFILE" punch "$f" 100000 300000 && "$CCFILE" punch "$f" 1M 1M &&
			"$CCFILE" punch "$f" $((3 * MB + 5)) 10 ;;
	zero)
		"$CCFILE" zero "$f" 50000 200000 && "$CCFILE" zero "$f" 2M 512K &&
			"$CCFILE" zero "$f" $((4 * MB - 100)) 8192 ;;
	collapse)
		"$CCFILE" collapse "$f" 1M 512K && "$CCFILE" collapse "$f" 64K 8K ;;
	insert)
		"$CCFILE" insert "$f" 1M 256K && "$CCFILE" insert "$f" 8K 4K ;;
	odirect)
		"$CCFILE" write -d "$f" 256K 256K && "$CCFILE" write -d "$f" 2M 64K &&
			"$CCFILE" write -d "$f" $((4 * MB - 4096)) 4K ;;
	overwrite)
		"$CCFILE" write "$f" 123 4000 && "$CCFILE" write "$f" 1M 1M &&
			"$CCFILE" write "$f" $((3 * MB + 100)) 200000 ;;
	renameover)
		# the old inode goes with its pages in ccache; the new one's
		# pages are in ccache too
		"$CCFILE" rename "$f.new" "$f" ;;
	reflink)
		# the file's blocks are swapped for the other file's, whose
		# pages are in ccache too
		"$CCFILE" clone "$f.src" "$f" ;;
	esac
}

all_files() {
	for e in $events; do
		echo "$dir/$e"
		[ "$e" != renameover ] || [ ! -e "$dir/$e.new" ] || echo "$dir/$e.new"
		[ "$e" != reflink ] || echo "$dir/$e.src"
	done
}

# evict_all WHEN: every file out through reclaim, with checks that ccache
# captured them and holds pages now.  The shrinker is off meanwhile (a
# test-only fault): it only ever drops entries, which is always safe, and
# under the eviction's pressure it once freed all of them (coherence_xfs
# with offload=acomp-async on the debug kernel: shrinker_frees=10824,
# stored_pages=0), leaving the checks below nothing that could be served
# stale.  "echo 2 > drop_caches" still goes through it; yield.sh tests it.
evict_all() {
	cc_snap evict
	# shellcheck disable=SC2046 # paths without spaces
	cc_with_fault shrinker cc_evict $(all_files)
	check_gt "$1: captures while evicting" "$(cc_delta evict captures)" 0
	check_gt "$1: ccache holds pages (stored_pages > 0)" \
		"$(cc_stat stored_pages)" 0
	cc_show "$1"
}

cc_start
mkdir -p "$dir"
ok=0
for e in $events; do
	setup_event "$e" || ok=1
done
check_eq "create the files" $ok 0

evict_all "before the changes"
for e in $events; do
	run_check "$FS $e: change the file while its pages sit in ccache" \
		mutate_event "$e"
done

cc_snap changed
for e in $events; do
	run_check "$FS $e: reads match the model right after the change" \
		"$CCFILE" verify -m read "$dir/$e"
done
check_gt "reads after the changes: unchanged pages came from ccache (hits)" \
	"$(cc_delta changed hits)" 0

evict_all "after the changes"
check "drop the inode and dentry caches (echo 2 > drop_caches)" \
	sh -c 'echo 2 > /proc/sys/vm/drop_caches'
cc_snap reread
set -- read readahead sendfile mmap
for e in $events; do
	run_check "$FS $e: matches after eviction and inode cache drop ($1)" \
		"$CCFILE" verify -m "$1" "$dir/$e"
	set -- "$2" "$3" "$4" "$1"
done
check_gt "re-reads were served by ccache (its keys outlive the inodes)" \
	"$(cc_delta reread hits)" 0

evict_all "before drop_caches"
check "echo 3 > drop_caches" sh -c 'echo 3 > /proc/sys/vm/drop_caches'
check_eq "drop_caches emptied the store" "$(cc_stat stored_pages)" 0
cc_snap dropped
for e in $events; do
	run_check "$FS $e: matches after drop_caches" \
		"$CCFILE" verify -m read "$dir/$e"
done
check_eq "nothing was served after drop_caches (hits unchanged)" \
	"$(cc_delta dropped hits)" 0

# A file written with O_DIRECT is never cached again while its inode
# lives: a read racing the write could capture the old data.  drop_caches
# empties the store but must not lift that.
f=$dir/odirect
run_check "$FS odirect: write it with O_DIRECT again" \
	"$CCFILE" write -d "$f" 1M 64K
check "echo 1 > drop_caches (the inode stays)" \
	sh -c 'echo 1 > /proc/sys/vm/drop_caches'
run_check "$FS odirect: matches, read into the page cache" \
	"$CCFILE" verify -m read "$f"
cc_snap poisoned
cc_evict "$f"
check_gt "$FS odirect: its evicted pages were refused (reject_policy)" \
	"$(cc_delta poisoned reject_policy)" 0
cc_snap poisoned
run_check "$FS odirect: matches after eviction" "$CCFILE" verify -m read "$f"
check_eq "$FS odirect: none of it was served (hits unchanged)" \
	"$(cc_delta poisoned hits)" 0
check "rmmod ccache" /sbin/rmmod ccache
tap_done
