#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# drop_caches and unmount empty ccache from the calling task on its way
# back to user space, where the walk may reschedule, not in the hook
# (preemption off): the write or the umount returns with the store empty,
# the trace shows the drop in that task with reschedules, and the files
# read back from the disk as their models.  Without memory for the
# hand-over (fault site drop_later) the hook drops at once: the store is
# empty all the same.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=150
# shellcheck disable=SC2086 # $files: a list of paths without spaces
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
cc_tracefs
[ -e "$T/trace" ] || tap_skip_all "no tracefs at $T"
dir=/mnt/d0/drop
files="$dir/f1 $dir/f2 $dir/f3 $dir/f4"
# the data disk's device, as the trace prints it
dev=$(awk '$5 == "/mnt/d0" { print $3 }' /proc/self/mountinfo)

# fill WHAT: the files out through reclaim, and into ccache
fill() {
	cc_evict $files
	check_gt "$1: ccache holds more than 1,000 pages" \
		"$(cc_stat stored_pages)" 1000
	echo > "$T/trace"
}

# drops ARGS: the trace's ccache_drop lines of the data disk, "TASK ARGS"
# each, ARGS the event's, from "erased" on
drops() {
	sed -n "s/^ *\(.*\)-[0-9]* *\[.* ccache_drop: dev $dev \(.*\)/\1 \2/p" \
		"$T/trace"
}

# take_drops: drop_out, the drops since the trace was emptied, shown
take_drops() {
	drop_out=$(drops)
	printf '%s\n' "$drop_out" | sed 's/^/# drop: /'
}

# dropped PATTERN: a line of the last drops() ($drop_out) matches PATTERN
# shellcheck disable=SC2317 # called through check
dropped() {
	printf '%s\n' "$drop_out" | grep -q "$1"
}

# drop_caches: write 3 from a shell of its own (the task the trace names)
# shellcheck disable=SC2317 # called through check
drop_caches() {
	sh -c 'echo 3 > /proc/sys/vm/drop_caches'
}

# shellcheck disable=SC2119 # no module parameters
cc_start
check "tracefs has ccache:ccache_drop" test -d "$T/events/ccache/ccache_drop"
mkdir -p "$dir"
run_check "create 4 x 8 MiB of compressible data" cc_create 8M $files
echo 1 > "$T/events/ccache/ccache_drop/enable"

fill "first fill"
stored=$(cc_stat stored_pages)
check "drop_caches" drop_caches
check_eq "the store is empty when the write returns" "$(cc_stat stored_pages)" 0
take_drops
check_eq "one drop of the data disk" "$(printf '%s\n' "$drop_out" | grep -c .)" 1
check "it ran in the writing task (sh), rescheduling between batches" \
	dropped '^sh erased [0-9]* forget 0 resched 1$'
erased=$(printf '%s\n' "$drop_out" | awk '{ print $3 }')
check_gt "it erased the store's pages (of $stored)" "${erased:-0}" $((stored / 2))
cc_snap dropped
run_check "the files read back as their models" "$CCFILE" verify $files
check_eq "from the disk, not from ccache (hits)" "$(cc_data_hits dropped)" 0

fill "second fill"
check "drop_caches with drop_later faulted" cc_with_fault drop_later drop_caches
check_eq "the store is empty when the write returns" "$(cc_stat stored_pages)" 0
take_drops
check "the hook dropped at once, without reschedules" \
	dropped '^sh erased [0-9]* forget 0 resched 0$'
run_check "the files read back as their models" "$CCFILE" verify $files

# unmount [FAULT]: unmount the data disk (with the fault site FAULT
# failing), see it empty the store, mount it again and read the files
# back; $drop_out: the unmount's drops
unmount() {
	fill "$1"
	check "unmount the data disk while its pages sit in ccache${2:+ ($2 faulted)}" \
		cc_with_fault "${2:-none}" umount /mnt/d0
	check "the store is empty" cc_wait_empty
	take_drops
	check "mount it again" mount -t ext4 /dev/vda /mnt/d0
	cc_snap remounted
	run_check "the files read back as their models" "$CCFILE" verify $files
	check_eq "nothing was carried across the remount (hits)" \
		"$(cc_data_hits remounted)" 0
}

unmount "third fill"
check "the unmount erased in its task, rescheduling, and forgot the files" \
	dropped '^umount erased [1-9][0-9]* forget 1 resched 1$'
unmount "fourth fill" drop_later
check "with drop_later faulted it erased in its hook" \
	dropped '^umount erased [1-9][0-9]* forget 1 resched 0$'
echo 0 > "$T/events/ccache/ccache_drop/enable"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
