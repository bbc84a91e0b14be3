#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The per-file records' table grows with the records (issue 28, item 3):
# a guest of 256 MiB starts with 4096 buckets and grows the table once the
# records outnumber them twice.  10,000 one-page files are read in a
# cgroup and pushed out through its reclaim, which ccache captures, one
# record each: the table must have grown (inode_buckets, and the
# ccache_inodes_grow tracepoint), every file must read back as written,
# served from the store, and stay right after a third of them change and
# are evicted again; a flush then leaves no record behind.
# VM: mem=256 cpus=1 disk=ext4:512M timeout=600
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

dir=/mnt/d0/records
n=10000
T=/sys/kernel/tracing
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# /tmp/files FROM TO VERSION: one line in each of files FROM..TO, by the
# shell's own echo (no process per file), 100 to a directory
cat > /tmp/files <<EOT
i=\$1
while [ "\$i" -le "\$2" ]; do
	echo "file \$i version \$3 \$i \$i \$i \$i" > "$dir/d\$((i / 100))/f\$i" ||
		exit 1
	i=\$((i + 1))
done
EOT

# read_back: every file read in the cgroup, then pushed out of it
read_back() {
	cc_in_group records sh -c "find $dir -type f | xargs cat > /dev/null"
	cc_reclaim_all records
	cc_settle
}

cc_start pool_sizing=fixed offload=inline
buckets=$(cc_stat inode_buckets)
echo "# inode_buckets $buckets at load"
check_eq "a 256 MiB guest starts with 4096 buckets" "$buckets" 4096
cc_tracefs
echo 1 > $T/events/ccache/ccache_inodes_grow/enable
cc_groups_create records

i=0
while [ $i -lt $((n / 100)) ]; do
	mkdir -p "$dir/d$i"
	i=$((i + 1))
done
check "write $n one-page files" sh /tmp/files 0 $((n - 1)) 1
sync
echo 3 > /proc/sys/vm/drop_caches
find $dir -type f | LC_ALL=C sort | xargs md5sum > /tmp/sums1
check_eq "md5sum read them all" "$(wc -l < /tmp/sums1)" $n
echo 3 > /proc/sys/vm/drop_caches

read_back
cc_show "after the eviction"
check_gt "most files have a record" "$(cc_stat inodes)" $((n / 2))
check_gt "the table grew" "$(cc_stat inode_buckets)" "$buckets"
grew=$(grep -c 'ccache_inodes_grow:' $T/trace)
grep 'ccache_inodes_grow:' $T/trace | sed 's/^ */# /'
check_gt "ccache_inodes_grow traced it" "$grew" 0

cc_snap served
run_check "every file reads back as written" md5sum -c -s /tmp/sums1
check_gt "from the store (hits)" "$(cc_data_hits served)" $((n / 2))

# a third of the files change while cached, in the cgroup (whose reclaim
# then pushes them out again), then all are evicted and read again
read_back
check "rewrite files 0 to 3332" cc_in_group records sh /tmp/files 0 3332 2
sync
cc_in_group records sh -c \
	"find $dir -type f | LC_ALL=C sort | xargs md5sum > /tmp/sums2"
check_eq "3333 files changed" \
	"$(cat /tmp/sums1 /tmp/sums2 | sort | uniq -u | wc -l)" $((3333 * 2))
read_back
cc_snap again
run_check "every file reads back as last written" md5sum -c -s /tmp/sums2
check_gt "from the store again (hits)" "$(cc_data_hits again)" 0

check "echo 1 > flush" sh -c "echo 1 > /sys/kernel/mm/ccache/flush"
check_eq "no record is left" "$(cc_stat inodes)" 0
echo 0 > $T/events/ccache/ccache_inodes_grow/enable
check "rmmod ccache" /sbin/rmmod ccache
tap_done
