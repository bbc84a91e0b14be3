#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unlink + inode reuse on ext4 and xfs: files whose pages sit in ccache are
# deleted (their entries must go), new files take the same inode numbers,
# and no read of a new file (holes included) ever returns the deleted
# data; nothing at all is served for a new file before its own pages were
# evicted.
# VM: mem=192 cpus=2 disk=ext4:512M disk=xfs:512M timeout=120
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

nfiles=8
[ -d /mnt/d1 ] || tap_skip_all "needs two data disks"

# inodes DIR: the inode numbers of DIR/f1..f$nfiles
inodes() {
	i=1
	while [ $i -le $nfiles ]; do
		stat -c %i "$1/f$i"
		i=$((i + 1))
	done
}

# each_file DIR COMMAND...: COMMAND DIR/fN for each file; fails if one did
each_file() {
	d=$1
	shift
	i=1
	while [ $i -le $nfiles ]; do
		"$@" "$d/f$i" || return 1
		i=$((i + 1))
	done
}

# new_file FILE: 256 KiB of data, a hole to 2 MiB, 64 KiB of data at 1 MiB
# shellcheck disable=SC2317 # called through each_file
new_file() {
	"$CCFILE" create "$1" 256K && "$CCFILE" truncate "$1" 2M &&
		"$CCFILE" write "$1" 1M 64K
}

# The shrinker is faulted off (test-only knob, ccache/fault.c): this test
# is about keys, and needs the deleted files' pages still stored when the
# new files come; under the eviction's pressure the shrinker may take them
# all back (seen once with offload=inline: 4096 captures, 4096 shrinker
# frees), which leaves nothing to test.  yield.sh tests the shrinker.
# Files' data only: the checks on stored_pages count no metadata.
cc_start fault_inject=shrinker filesystems=ext4,xfs
for mnt in /mnt/d0 /mnt/d1; do
	fs=$(awk -v m=$mnt '$2 == m { print $3 }' /proc/mounts)
	dir=$mnt/reuse
	mkdir -p "$dir"
	check "$fs: empty store" cc_empty_store
	run_check "$fs: create $nfiles files of 2 MiB" \
		each_file "$dir" sh -c "\"$CCFILE\" create \"\$0\" 2M"
	old=$(inodes "$dir" | sort -n | tr '\n' ' ')
	cc_snap old
	# shellcheck disable=SC2046 # paths without spaces
	cc_evict $(each_file "$dir" echo)
	check_gt "$fs: captures while evicting" "$(cc_delta old captures)" 0
	check_gt "$fs: ccache holds pages of the files" "$(cc_stat stored_pages)" 0

	run_check "$fs: unlink the files" each_file "$dir" "$CCFILE" unlink
	sync	# xfs frees inodes in the background: let it finish
	check "$fs: the deleted files' entries are gone (stored_pages 0)" \
		cc_wait_empty

	cc_snap new
	run_check "$fs: create $nfiles new sparse files" each_file "$dir" new_file
	new=$(inodes "$dir" | sort -n | tr '\n' ' ')
	reused=0
	for n in $new; do
		case " $old " in
		*" $n "*) reused=$((reused + 1)) ;;
		esac
	done
	echo "# $fs: old inodes $old; new inodes $new"
	check_gt "$fs: new files reuse the deleted files' inode numbers" $reused 0
	run_check "$fs: new files read back as their model (holes are zeros)" \
		each_file "$dir" "$CCFILE" verify -m read
	check_eq "$fs: nothing served for new files never evicted (hits)" \
		"$(cc_data_hits new)" 0

	cc_snap again
	# shellcheck disable=SC2046 # paths without spaces
	cc_evict $(each_file "$dir" echo)
	run_check "$fs: after eviction, new files still match (readahead)" \
		each_file "$dir" "$CCFILE" verify -m readahead
	check_gt "$fs: and were served by ccache (hits)" "$(cc_delta again hits)" 0
	cc_show "$fs"
	each_file "$dir" "$CCFILE" unlink
done
check "rmmod ccache" /sbin/rmmod ccache
tap_done
