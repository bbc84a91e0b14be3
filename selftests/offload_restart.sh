#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A restart of the cpu backend (offload_sched or offload_cpus changed)
# while submitters are between queueing their jobs and arming the
# backend's timer (issue 28, item 7).  The test build's
# fault_submit_delay_ms holds each submitter there, interrupts off, for
# 100 ms: longer than single-threaded TCG runs one vCPU before it turns
# to the other, so the restart, on the other vCPU, runs inside the
# window.  A loop restarts the backend 40 times while reclaim pushes a
# file out and ccache captures it.  A restart that set the timer up again
# after a late submitter armed it corrupts the timer wheel and fails the
# run: a hung guest, or "ODEBUG: init active" from a debug kernel's timer
# object debugging (Documentation/testing.rst says where the race has
# been shown).  The file must read back as written and jobs must have
# gone through.
# VM: mem=256 cpus=2 disk=ext4:512M timeout=300
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

P=/sys/module/ccache/parameters
O=$CCSTATS/offload/cpu
f=/mnt/d0/restart/file
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

cc_start offload=cpu pool_sizing=fixed
check "fault_submit_delay_ms=100" sh -c "echo 100 > $P/fault_submit_delay_ms"
mkdir -p "${f%/*}"
run_check "create a 32 MiB file" "$CCFILE" create "$f" 32M
sync
echo 3 > /proc/sys/vm/drop_caches

# restarts COUNT: switch offload_sched COUNT times, 20 ms apart
# shellcheck disable=SC2317 # run in the background
restarts() {
	i=0
	while [ $i -lt "$1" ]; do
		if [ $((i % 2)) = 0 ]; then s="nice"; else s="idle"; fi
		echo $s > $P/offload_sched || echo "restart $i failed"
		sleep 0.02
		i=$((i + 1))
	done
	echo "all done"
}

submitted=$(cat $O/completed)
cc_reclaim_start -i 0.05 restart
restarts 40 > /tmp/restarts.log 2>&1 &
sw=$!
rounds=0
while kill -0 $sw 2>/dev/null && [ $rounds -lt 20 ]; do
	cc_in_group restart cat "$f" > /dev/null
	rounds=$((rounds + 1))
done
wait $sw
cc_reclaim_stop "reclaim ran through the restarts"
echo "# $rounds reads of the file during the restarts"
check_eq "40 restarts, all accepted" "$(cat /tmp/restarts.log)" "all done"
check "fault_submit_delay_ms=0" sh -c "echo 0 > $P/fault_submit_delay_ms"
cc_settle
cc_show "after the restarts"
check_gt "the cpu backend ran jobs meanwhile" \
	"$(($(cat $O/completed) - submitted))" 0
run_check "the file matches the model" "$CCFILE" verify "$f"
cc_evict "$f"
run_check "and again after one more eviction" "$CCFILE" verify "$f"
check "rmmod ccache" /sbin/rmmod ccache
tap_done
