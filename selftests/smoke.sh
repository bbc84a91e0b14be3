#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The whole path once, quickly: pages evicted by memory pressure are
# captured and compressed, re-reads are served from ccache, and every byte
# read back matches.  The thorough tests are serve_*.sh and coherence_*.sh.
# VM: mem=256 cpus=2 disk=ext4:1G timeout=240
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

S=/sys/kernel/mm/ccache
stat() {
	cat "$S/$1"
}
check "modprobe ccache" /sbin/modprobe ccache max_pool_percent=60
cd /mnt/d0 || exit 1
i=0
while [ $i -lt 16 ]; do
	yes "file $i line of text that compresses well, $i $i $i" | head -c 4194304 > f$i
	i=$((i + 1))
done
# pressure: zeros are cheap to write and to capture (same-filled pages)
dd if=/dev/zero of=big bs=1M count=300 2>/dev/null
sync
echo 3 > /proc/sys/vm/drop_caches
md5sum f* > /tmp/sums
cat big > /dev/null
# the default offload backend compresses on idle cycles: wait for them
cc_settle
check "pages were captured" test "$(stat captures)" -gt 0
check "pages are stored" test "$(stat stored_pages)" -gt 0
echo "# captures $(stat captures) stored $(stat stored_pages) ratio $(stat compression_ratio_permille)"
check "re-read matches" md5sum -c /tmp/sums
check "re-reads were served by ccache" test "$(stat hits)" -gt 0
check "zero pages were kept as same-filled" test "$(stat same_filled_pages)" -gt 0
# every statistic (flush is write-only: no value to show)
for f in "$S"/* "$S"/offload/*/*; do
	[ -f "$f" ] && v=$(cat "$f" 2> /dev/null) && echo "# ${f#"$S"/} $v"
done
cd /
check "unmount" umount /mnt/d0
check "rmmod" /sbin/rmmod ccache
tap_done
