#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compression gets more CPU when its misses cost disk reads (sizing.c,
# ccache_sizing_offload()): pages dropped because no staging buffer was
# free (here forced with the test-only fault_inject=staging) and read
# again from the disk are slow ghost hits; each second with some raises
# the cpu backend's threads one level, from SCHED_IDLE to nice 19, 10
# and 0, within offload_boost_percent of one CPU (offload_boost_secs
# counts the seconds); once such hits stop they go back to SCHED_IDLE.
# With 0 (the default) they never leave SCHED_IDLE.  Every file reads
# back as its model.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
P=/sys/module/ccache/parameters
dir=/mnt/d0/boost
mkdir -p "$dir"

# policies: the scheduling policy (field 41 of /proc/PID/stat: 0 normal,
# 5 idle) and nice value (field 19) of each offload thread, sorted and
# made unique
policies() {
	for d in /proc/[0-9]*; do
		case $(cat "$d/comm" 2>/dev/null) in
		kspu_cpu/*) awk '{ print $41 ":" $19 }' "$d/stat" ;;
		esac
	done | sort -u | tr '\n' ' '
}

# shellcheck disable=SC2317 # called through cc_poll
raised() { policies | grep -Eq '^(0:-?[0-9]+ )+$'; }
# shellcheck disable=SC2317 # called through cc_poll
lowered() { [ "$(policies)" = "5:0 " ]; }

# slow_round FILE: evict FILE with every other staging buffer refused and
# read it back from the disk
slow_round() {
	echo 2 > $P/fault_every
	echo staging > $P/fault_inject
	cc_evict "$1"
	echo none > $P/fault_inject
	"$CCFILE" verify -m read "$1" > /dev/null || echo "# reading $1 failed"
}

cc_start
check_eq "offload_boost_percent is 0 (off) by default" \
	"$(cat $P/offload_boost_percent)" 0
check_fails "offload_boost_percent refuses 101" \
	sh -c "echo 101 > $P/offload_boost_percent"
# the test's compression may take a whole CPU: not over the budget
check "offload_boost_percent=100" sh -c "echo 100 > $P/offload_boost_percent"
check_eq "the offload threads start at SCHED_IDLE" "$(policies)" "5:0 "
check "create 32 MiB" cc_create 32M $dir/a
sync

cc_snap slow
slow_round $dir/a
cc_show "after the slow round"
check_gt "staging buffers were refused" \
	"$(cc_delta slow reject_staging_full)" 1024
check_gt "their pages read from the disk were slow ghost hits" \
	"$(cc_delta slow slow_ghost_hits)" 1024
check "the offload threads are raised (nice 19 or above)" cc_poll 50 raised
check_gt "offload_boost_secs counts" "$(cc_stat offload_boost_secs)" 0
# a round a second: slow ghost hits in each period raise them a level
for _ in 1 2 3 4 5 6; do
	[ "$(policies)" = "0:0 " ] && break
	slow_round $dir/a
	sleep 1
done
check_eq "slow ghost hits period after period raise them to nice 0" \
	"$(policies)" "0:0 "
check "without slow ghost hits they go back to SCHED_IDLE" cc_poll 200 lowered

check "offload_boost_percent=0" sh -c "echo 0 > $P/offload_boost_percent"
boosted=$(cc_stat offload_boost_secs)
cc_snap off
slow_round $dir/a
sleep 3
check_gt "slow ghost hits again" "$(cc_delta off slow_ghost_hits)" 1024
check_eq "with 0 the threads stay at SCHED_IDLE" "$(policies)" "5:0 "
check_eq "and offload_boost_secs does not grow" \
	"$(cc_stat offload_boost_secs)" "$boosted"

run_check "the file reads back as its model" "$CCFILE" verify -m read $dir/a
check "rmmod ccache" /sbin/rmmod ccache
tap_done
