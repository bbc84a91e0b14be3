# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Body of the fio_*.sh tests: fio writes files of half-compressible blocks
# with crc32c verify headers; memory pressure pushes them out of the page
# cache and fio verifies every block as it reads them back, served by
# ccache; then random writes, buffered and direct, verify their blocks
# under waves of pressure.  Zero mismatches allowed.  fio is the static
# build of tools/build-fio.sh.  FS names the filesystem on /mnt/d0.

: "${FS:?set FS}"
FIO=/usr/local/libexec/ccache-dev/fio
dir=/mnt/d0/fio
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
[ -x $FIO ] || tap_skip_all "no $FIO in the guest (tools/setup.sh builds it)"

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

[buffered]
rw=randwrite

[direct]
rw=randwrite
direct=1
size=8m
JOB

# fio_check DESC ARGS...: run fio; its summary's error lines go to comments
fio_check() {
	desc=$1
	shift
	$FIO --output=/tmp/fio.out "$@" > /dev/null 2> /tmp/fio.err
	st=$?
	[ $st -eq 0 ] || fio_bad=$((fio_bad + 1))
	# "issued rwts: total=READS,WRITES,TRIMS,SYNCS" per job
	fio_ops=$((fio_ops + $(sed -n 's/.*issued rwts: total=\([0-9]*\),\([0-9]*\),.*/\1 \2/p' \
		/tmp/fio.out | awk '{ n += $1 + $2 } END { print n + 0 }')))
	tap_result $st "$desc"
	[ $st -eq 0 ] || cat /tmp/fio.err /tmp/fio.out |
		grep -iE 'err|verify|crc|bad|mismatch' | head -n 20 | sed 's/^/#   /'
}

fio_ops=0 fio_bad=0
# shellcheck disable=SC2119 # no module parameters
cc_start
fio_check "$FS: fio writes 2 x 24 MiB with crc32c headers" --do_verify=0 /tmp/fio.job
cc_snap evict
# On 6.12 (multi-gen LRU) 2-4% of one file written at random often stays:
# pages in ZONE_DMA and, on xfs, large folios that neither pressure,
# MADV_PAGEOUT nor memory.reclaim take (ccfile evict prints their flags).
# The check below that fio's reads were served is what matters.
# shellcheck disable=SC2046 # fio's file names have no spaces
cc_evict -l 5 $(ls "$dir"/*)
check_gt "captures while evicting" "$(cc_delta evict captures)" 0
cc_snap verify
fio_check "$FS: fio verifies every block, read back after eviction" \
	--verify_only /tmp/fio.job
check_gt "the blocks were served by ccache (hits)" "$(cc_delta verify hits)" 0
cc_show "after verify"

"$CCFILE" pressure -t 300 -f 8 > /dev/null 2>&1 &
pressure=$!
fio_check "$FS: fio random writes verified under waves of pressure" \
	/tmp/fio-pressure.job
kill $pressure 2>/dev/null
wait $pressure 2>/dev/null
cc_show "at the end"
cc_check_no_oom
cc_summary ops=$fio_ops hits="$(cc_stat hits)" mismatches=$fio_bad
check "rmmod ccache" /sbin/rmmod ccache
tap_done
