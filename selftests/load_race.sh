#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A change that began before ccache loaded is never seen by its hooks: a
# file whose i_rwsem is held when ccache first meets it (as a truncate,
# hole punch or direct write in flight holds it; here the test module
# ccache_test_lock holds it from before the load) is not captured, while
# another file is; once the lock is released, the file is captured and
# served, and both read back as their models.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=150
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
dir=/mnt/d0/load_race
busy=$dir/busy
free=$dir/free

mkdir -p $dir
check "create two 4 MiB files" cc_create 4M $busy $free
sync
check "hold the first file's i_rwsem (ccache_test_lock)" \
	/sbin/insmod /selftests/modules/ccache_test_lock.ko path=$busy
# files' data only: the check on stored_pages counts no metadata
cc_start filesystems=ext4,xfs
cc_snap held
run_check "read both into the page cache" "$CCFILE" verify -m read $busy $free
cc_evict $busy $free
stored=$(cc_stat stored_pages)
check_gt "the other file was captured" "$stored" 512
check_le "the held file was not (stored_pages)" "$stored" 1024
check_gt "its pages were refused by policy" "$(cc_delta held reject_policy)" 512

check "release the lock (rmmod ccache_test_lock)" /sbin/rmmod ccache_test_lock
run_check "read the held file again" "$CCFILE" verify -m read $busy
cc_evict $busy
check_gt "now it is captured too" "$(cc_stat stored_pages)" $((stored + 512))
cc_snap read
run_check "both read back as their models" "$CCFILE" verify -m read $busy $free
check_gt "served by ccache" "$(cc_delta read hits)" 1024
check "rmmod ccache" /sbin/rmmod ccache
tap_done
