#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The offload shim: its knobs' defaults and validation, the cpu backend's
# threads (count, priority), and every backend switch and reconfiguration
# done while files are evicted, served and changed: every byte read back
# matches the model, each backend really ran jobs, and none was lost
# (submitted = completed + queued).  The asynchronous acomp test driver
# (modules/ccache_test_acomp.ko) makes acomp-async complete for real.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=240
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

P=/sys/module/ccache/parameters
O=$CCSTATS/offload
dir=/mnt/d0/offload
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# knob NAME VALUE: write a knob (as echo does), true when it was accepted
knob() {
	printf '%s\n' "$2" > "$P/$1" 2>/dev/null
}

# thread_policies: the scheduling policy of each kspu_cpu thread (5: idle)
thread_policies() {
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		kspu_cpu/*) cut -d' ' -f41 "$p/stat" ;;
		esac
	done
}

check "load the asynchronous acomp test driver" \
	/sbin/insmod /selftests/modules/ccache_test_acomp.ko
# shellcheck disable=SC2119 # no module parameters
cc_start
check_eq "offload defaults to cpu" "$(cat $P/offload)" cpu
check_eq "offload_cpus defaults to all" "$(cat $P/offload_cpus)" all
check_eq "offload_batch defaults to 16" "$(cat $P/offload_batch)" 16
check_eq "offload_sched defaults to idle" "$(cat $P/offload_sched)" idle
check_eq "one cpu thread per CPU, at SCHED_IDLE" "$(thread_policies | tr '\n' ' ')" "5 5 "

for bad in offload:nosuch offload: offload:CPU offload_cpus:64 \
	offload_cpus:1-0 offload_cpus: offload_cpus:x offload_batch:0 \
	offload_batch:1025 offload_batch:-1 offload_sched:rt offload_sched:; do
	name=${bad%%:*}
	before=$(cat "$P/$name")
	check_fails "$name=${bad#*:} is refused" knob "$name" "${bad#*:}"
	check_eq "$name unchanged" "$(cat "$P/$name")" "$before"
done
check "compressor lz4" knob compressor lz4
check_fails "offload=inline refused with lz4" knob offload inline
check "compressor lzo again" knob compressor lzo
check "offload=inline with lzo" knob offload inline
check_fails "compressor zstd refused with offload=inline" knob compressor zstd
check "back to offload=cpu" knob offload cpu
check "offload_sched=nice" knob offload_sched nice
check_eq "the threads were restarted at nice 19 (SCHED_OTHER)" \
	"$(thread_policies | tr '\n' ' ')" "0 0 "
check "offload_cpus=1" knob offload_cpus 1
check_eq "one thread for one CPU" "$(thread_policies | wc -l)" 1
check "offload_cpus=all, offload_sched=idle" \
	sh -c "printf all > $P/offload_cpus && printf idle > $P/offload_sched"

# switch backends and settings every 0.3 s while files cycle through ccache
switcher() {
	while :; do
		for s in offload:inline offload:acomp-async offload_batch:1 \
			offload:cpu offload_cpus:0 offload_batch:64 \
			offload_sched:nice offload_cpus:all offload_sched:idle \
			offload_batch:16; do
			knob "${s%%:*}" "${s#*:}" || echo "switch $s failed"
			sleep 0.3
		done
	done
}
mkdir -p "$dir"
files="$dir/a $dir/b $dir/c"
for f in $files; do
	"$CCFILE" create "$f" 6M || echo "create $f failed"
done
switcher > /tmp/switcher.log 2>&1 &
sw=$!
rounds=0 bad=0
while [ $rounds -lt 4 ]; do
	# shellcheck disable=SC2086 # paths without spaces
	"$CCFILE" evict -q -t 20 $files > /dev/null 2>&1
	# shellcheck disable=SC2086
	"$CCFILE" verify -m all $files > /tmp/verify.out 2>&1 || bad=$((bad + 1))
	"$CCFILE" write "$dir/b" $((rounds * 64))K 64K || bad=$((bad + 1))
	"$CCFILE" truncate "$dir/c" $((6 - rounds))M || bad=$((bad + 1))
	rounds=$((rounds + 1))
done
kill $sw
wait $sw 2>/dev/null
check_eq "every read matched the model while backends switched" "$bad" 0
[ "$bad" = 0 ] || head -n 20 /tmp/verify.out | sed 's/^/#   /'
check_eq "every switch was accepted" "$(grep -c failed /tmp/switcher.log)" 0
# one more round on each backend alone: which backend the switches left
# in place while pages were evicted is timing (acomp-async got none once
# on 7.3)
for b in inline acomp-async cpu; do
	check "offload=$b" knob offload $b
	# shellcheck disable=SC2086 # paths without spaces
	run_check "$b: the files match, read back into the page cache" \
		"$CCFILE" verify -m read $files
	# shellcheck disable=SC2086 # paths without spaces
	cc_evict $files
done
check "the store settles" cc_settle
for b in inline cpu acomp-async; do
	check_gt "$b ran jobs" "$(cat $O/$b/completed)" 0
	check_eq "$b lost none: submitted = completed + queued" \
		"$(cat $O/$b/submitted)" \
		$(($(cat $O/$b/completed) + $(cat $O/$b/queued)))
done
check_gt "hits while switching" "$(cc_stat hits)" 0
check_gt "the test driver completed requests asynchronously" \
	"$(cat /sys/module/ccache_test_acomp/parameters/completed)" 0
check_gt "the cpu backend measured compression time" \
	"$(cat $O/cpu/compress_ns)" 0
check_gt "decompression time was measured" \
	"$(cat $O/inline/decompress_ns)" 0
check "capture_ns is counted" test "$(cc_stat capture_ns)" -gt 0
cc_show "at the end"
cc_check_no_oom
check "rmmod ccache" /sbin/rmmod ccache
check "rmmod the test driver" /sbin/rmmod ccache_test_acomp
tap_done
