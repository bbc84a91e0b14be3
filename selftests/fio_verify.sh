#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fio writes files of half-compressible blocks with crc32c verify headers;
# the files are pushed out of the page cache by memory pressure and fio
# verifies every block as it reads them back, served by ccache; then a
# random-write job verifies its blocks under waves of pressure.  Zero
# mismatches allowed.  Skips where the guest has no fio (Debian's fio is
# too big for every guest: see tools/vm/guest-programs).
# VM: mem=256 cpus=1 disk=ext4:512M timeout=150
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

FIO=/usr/bin/fio
dir=/mnt/d0/fio
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
[ -x $FIO ] || tap_skip_all "no $FIO in the guest"

mkdir -p "$dir"
cat > /tmp/fio.job <<JOB
[global]
directory=$dir
ioengine=psync
bs=4k
nrfiles=3
size=24m
verify=crc32c
verify_fatal=1
buffer_compress_percentage=50
buffer_compress_chunk=512
refill_buffers=1
fsync_on_close=1

[seq]
rw=write

[rand]
rw=randwrite
JOB
cat > /tmp/fio-pressure.job <<JOB
[global]
directory=$dir
ioengine=psync
bs=4k
size=16m
verify=crc32c
verify_fatal=1
verify_backlog=512
buffer_compress_percentage=50
buffer_compress_chunk=512
refill_buffers=1

[randrw]
rw=randwrite
JOB

# fio_check DESC ARGS...: run fio; its summary's error lines go to comments
fio_check() {
	desc=$1
	shift
	$FIO --output=/tmp/fio.out "$@" > /dev/null 2> /tmp/fio.err
	st=$?
	tap_result $st "$desc"
	[ $st -eq 0 ] || cat /tmp/fio.err /tmp/fio.out |
		grep -iE 'err|verify|crc|bad|mismatch' | head -n 20 | sed 's/^/#   /'
}

# shellcheck disable=SC2119 # no module parameters
cc_start
fio_check "fio writes 2 x 24 MiB with crc32c headers" --do_verify=0 /tmp/fio.job
cc_snap evict
# shellcheck disable=SC2046 # fio's file names have no spaces
cc_evict $(ls "$dir"/*)
check_gt "captures while evicting" "$(cc_delta evict captures)" 0
cc_snap verify
fio_check "fio verifies every block, read back after eviction" \
	--verify_only /tmp/fio.job
check_gt "the blocks were served by ccache (hits)" "$(cc_delta verify hits)" 0
cc_show "after verify"

"$CCFILE" pressure -t 300 -f 8 > /dev/null 2>&1 &
pressure=$!
fio_check "fio random writes verified under waves of pressure" \
	/tmp/fio-pressure.job
kill $pressure 2>/dev/null
wait $pressure 2>/dev/null
cc_show "at the end"
cc_check_no_oom
check "rmmod ccache" /sbin/rmmod ccache
tap_done
