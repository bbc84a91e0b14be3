#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Random data is refused cheaply and counted: reject_poor_compression grows
# with the random pages evicted, the store holds about the compressible
# pages only, and every read stays right, for files of random data, of
# text, and of the two mixed page by page.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=120
# shellcheck disable=SC2086 # $files: a list of paths without spaces
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

dir=/mnt/d0/incompressible
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
MB=1048576

# mixed FILE: 8 MiB of text with every other 64 KiB rewritten as noise
mixed() {
	"$CCFILE" create "$1" 8M || return 1
	off=0
	while [ $off -lt $((8 * MB)) ]; do
		"$CCFILE" write -r "$1" $off 64K || return 1
		off=$((off + 131072))
	done
}

# the files' pages only: cc_evict reads the disk underneath, whose
# pages of zeros ("bdev", stored same-filled) were counted as captured and
# stored
cc_start filesystems=ext4
mkdir -p "$dir"
files="$dir/rand1 $dir/rand2 $dir/rand3 $dir/text $dir/mixed"
ok=0
for f in $dir/rand1 $dir/rand2 $dir/rand3; do
	"$CCFILE" create -r "$f" 8M || ok=1
done
"$CCFILE" create "$dir/text" 8M || ok=1
mixed "$dir/mixed" || ok=1
check_eq "create 3 random, 1 text and 1 mixed file of 8 MiB" $ok 0
# pages of random data and of text
rand_pages=$((3 * 2048 + 1024))
text_pages=$((2048 + 1024))

cc_snap evict
start=$(now_s)
cc_evict $files
echo "# eviction took $(echo "$(now_s) $start" | awk '{ print $1 - $2 }') s"
cc_show "after eviction"
rejects=$(cc_delta evict reject_poor_compression)
stored=$(cc_stat stored_pages)
# of the random pages, those compression got to: on a busy host the
# offload threads (SCHED_IDLE) see fewer, the rest are reject_staging_full;
# counted as at least a quarter of the random pages whatever the load
seen=$(($(cc_delta evict captures) - text_pages))
[ "$seen" -gt $((rand_pages / 4)) ] || seen=$((rand_pages / 4))
check_gt "random pages were refused: reject_poor_compression > half of those compressed" \
	"$rejects" $((seen / 2))
check_le "and not counted as stored: stored_pages <= text pages + 5% of random" \
	"$stored" $((text_pages + rand_pages / 20))
# of the text pages, those capture got to: the share of all pages it
# took (the staging area fills on a busy host)
text_seen=$((text_pages * $(cc_delta evict captures) / (rand_pages + text_pages)))
check_gt "the text pages were stored: stored_pages > a quarter of those captured" \
	"$stored" $((text_seen / 4))
check_le "compressed_bytes <= half the text pages' size" \
	"$(cc_stat compressed_bytes)" $((text_pages * 2048))

cc_snap read
run_check "every file reads back as its model (read)" \
	"$CCFILE" verify -m read $files
check_gt "text pages were served by ccache (hits)" "$(cc_delta read hits)" 0
check_le "no more hits than pages stored" "$(cc_delta read hits)" "$stored"
cc_evict $files
run_check "evicted again, every file reads back as its model (mmap)" \
	"$CCFILE" verify -m mmap $files
check "rmmod ccache" /sbin/rmmod ccache
tap_done
