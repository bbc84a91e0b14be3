#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Knobs are validated: a bad value at load time refuses the load with a
# message naming the knob; a bad value at runtime is an error and leaves
# the knob unchanged; good values take effect.
# VM: mem=192 timeout=120
. ./lib/tap.sh

P=/sys/module/ccache/parameters

# load-time: each bad value refuses the load and says why
for bad in max_pool_percent=0 max_pool_percent=91 max_pool_percent=abc \
	max_pool_percent=-1 max_pool_percent=99999999999 \
	accept_threshold_percent=101 compressor=nosuchalg \
	'compressor=../lzo' filesystems=btrfs 'filesystems=ext4,' filesystems= \
	enabled=maybe enabled=1x; do
	name=${bad%%=*}
	dmesg -c >/dev/null
	check_fails "load refused with $bad" /sbin/modprobe ccache "$bad"
	check_fails "no module left after $bad" test -e /sys/module/ccache
	check "message names $name after $bad" \
		sh -c "dmesg | grep -q 'ccache: $name: rejected'"
done

# load-time: good values are taken
check "load with custom values" /sbin/modprobe ccache max_pool_percent=60 \
	accept_threshold_percent=50 compressor=lz4 filesystems=xfs enabled=0
check_eq "max_pool_percent from load" "$(cat $P/max_pool_percent)" 60
check_eq "accept_threshold_percent from load" "$(cat $P/accept_threshold_percent)" 50
check_eq "compressor from load" "$(cat $P/compressor)" lz4
check_eq "filesystems from load" "$(cat $P/filesystems)" xfs
check_eq "enabled from load" "$(cat $P/enabled)" N
check "rmmod" /sbin/rmmod ccache

# runtime: defaults, then bad writes change nothing, good writes do
check "load with defaults" /sbin/modprobe ccache
check_eq "default max_pool_percent" "$(cat $P/max_pool_percent)" 60
check_eq "default accept_threshold_percent" "$(cat $P/accept_threshold_percent)" 100
check_eq "default compressor" "$(cat $P/compressor)" lzo
check_eq "default filesystems" "$(cat $P/filesystems)" ext4,xfs,bdev
check_eq "default enabled" "$(cat $P/enabled)" Y

# as an operator writes: echo adds a newline (an empty printf never writes)
# shellcheck disable=SC2317 # called through check
write() {
	echo "$2" > "$P/$1"
}
for case in max_pool_percent:0 max_pool_percent:91 max_pool_percent:x \
	max_pool_percent: max_pool_percent:-5 accept_threshold_percent:200 \
	compressor:nosuchalg compressor: 'compressor:lz o' \
	filesystems:nfs filesystems:ext4,,xfs filesystems: 'filesystems: ' \
	enabled:2 enabled:yes; do
	knob=${case%%:*}
	value=${case#*:}
	before=$(cat "$P/$knob")
	check_fails "runtime write '$value' to $knob fails" write "$knob" "$value"
	check_eq "$knob unchanged after '$value'" "$(cat "$P/$knob")" "$before"
done

for case in max_pool_percent:90 max_pool_percent:1 accept_threshold_percent:0 \
	compressor:zstd compressor:lzo filesystems:none filesystems:ext4 \
	filesystems:xfs,ext4 enabled:0 enabled:on; do
	knob=${case%%:*}
	value=${case#*:}
	check "runtime write '$value' to $knob" write "$knob" "$value"
done
check_eq "max_pool_percent after writes" "$(cat $P/max_pool_percent)" 1
check_eq "accept_threshold_percent after writes" "$(cat $P/accept_threshold_percent)" 0
check_eq "compressor after writes" "$(cat $P/compressor)" lzo
check_eq "filesystems after writes" "$(cat $P/filesystems)" ext4,xfs
check "filesystems none" write filesystems none
check_eq "filesystems reads back none" "$(cat $P/filesystems)" none
check "filesystems bdev,ext4" write filesystems bdev,ext4
check_eq "filesystems reads back ext4,bdev" "$(cat $P/filesystems)" ext4,bdev
check "filesystems back to ext4,xfs" write filesystems ext4,xfs
check_eq "enabled after writes" "$(cat $P/enabled)" Y
check_fails "statistics are read-only" write version 1
check "rmmod" /sbin/rmmod ccache
tap_done
