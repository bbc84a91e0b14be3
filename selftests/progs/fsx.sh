# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Body of the fsx_*.sh tests: fsx (the classic file-system exerciser, Rust
# port from crates.io) checks its own model of a file through a random mix
# of reads, writes, mmap reads and writes, truncates, hole punches,
# fallocate, sendfile, copy_file_range and fadvise, while proactive
# reclaim of its cgroup keeps its pages leaving through reclaim (and
# ccache) and coming back.  Half the bytes fsx writes are random, so a
# page it wrote all over compresses too poorly to keep, and ccache refuses
# it; the pages it wrote in part, extended or punched (zeros) are stored
# and served.  A ccfile churn on a file of compressible data runs beside
# it, in a cgroup of its own reclaimed the same way; the churn file is
# read back once more after the run, evicted, and must then be served.
# FS names the filesystem on /mnt/d0.

: "${FS:?set FS}"
dir=/mnt/d0/fsx
# A long run (selftests/long/, long=1) runs 500000 operations per fsx
# process, 12000 on a debug kernel (cc_debug_kernel: 100000 had not ended
# after 75 minutes there, 20000 took 18; a million take 33 on a stock kernel), reclaims
# less often and pauses the churn between its rounds, for fsx's sake:
# every 0.2 s, 2 x 4000 operations took 74 s with 92,630 captures and
# 8,042 hits; every second 52 s, 23,873 and 2,895.  The churn costs fsx 40%
# of its speed (2 x 6000 operations in 36 s against 22 s without).
if [ -n "${long:-}" ]; then
	ops=500000 reclaim_s=1 churn_pause_s=60
	! cc_debug_kernel || ops=12000
else
	ops=2500 reclaim_s=0.2 churn_pause_s=0
fi
churn_s=30
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
[ -x "$FSX" ] || tap_skip_all "no $FSX in the guest (tools/build-fsx.sh builds it)"

cat > /tmp/fsx.toml <<'CONF'
# 4 MiB files, operations up to 128 KiB, every operation fsx has on Linux
flen = 4194304
[opsize]
max = 131072
[weights]
close_open = 2
read = 10
write = 10
mapread = 8
mapwrite = 4
truncate = 3
invalidate = 1
fsync = 2
fdatasync = 1
posix_fallocate = 1
punch_hole = 3
sendfile = 4
posix_fadvise = 1
copy_file_range = 2
CONF

cc_start
mkdir -p "$dir"
check "create the churn file" "$CCFILE" create "$dir/churn" 2M
cc_snap run
start=$(now_s)
cc_reclaim_start -i "$reclaim_s" fsx1 fsx2 churn
for i in 1 2; do
	cc_in_group "fsx$i" "$FSX" -N "$ops" -S $((i * 7919)) -f /tmp/fsx.toml \
		-P /tmp "$dir/fsx$i" > "/tmp/fsx$i.log" 2>&1 &
	eval "fsx$i=\$!"
done
# fsx_running: whether an fsx process is still at work
# shellcheck disable=SC2154 # set by the eval
fsx_running() {
	kill -0 "$fsx1" 2>/dev/null || kill -0 "$fsx2" 2>/dev/null
}
# churn rounds of $churn_s s, $churn_pause_s s apart, the last one starting
# before fsx ends
(n=0
while [ $n -eq 0 ] || fsx_running; do
	n=$((n + 1))
	cc_in_group churn "$CCFILE" churn -t $churn_s -s $((n * 7907)) \
		"$dir/churn" >> /tmp/churn.log 2>&1 || exit 1
	t=0
	while [ $t -lt "$churn_pause_s" ] && fsx_running; do
		sleep 1
		t=$((t + 1))
	done
done
echo "$n rounds" >> /tmp/churn.log) &
churn=$!

bad=0
# shellcheck disable=SC2154 # set by the eval
for i in 1 2; do
	eval "pid=\$fsx$i"
	wait "$pid"
	st=$?
	[ $st -eq 0 ] || bad=$((bad + 1))
	tap_result $st "$FS: fsx $i ($ops operations, seed $((i * 7919))) matched its model"
	[ $st -eq 0 ] || tail -n 30 "/tmp/fsx$i.log" | sed 's/^/#   /'
done
wait $churn
st=$?
[ $st -eq 0 ] || bad=$((bad + 1))
tap_result $st "$FS: ccfile churn (compressible data) matched its model"
sed 's/^/# /' /tmp/churn.log | tail -n 40
cc_reclaim_stop "reclaim ran to the end of the run"
echo "# the run took $(echo "$(now_s) $start" | awk '{ print $1 - $2 }') s"

cc_show "after the run"
for s in captures hits reject_poor_compression; do
	eval "run_$s=\$(cc_delta run $s)"
done
# What ccache saw of the run itself depends on timing: on idle cycles the
# busy guest rarely has (the default backend compresses on them), on how
# much the reclaim pushed out beside dirty pages, and, where the
# filesystem uses large folios, on every page of a folio being stored.
# So once the guest is quiet the files are read, evicted and the churn
# file read back: ccache must capture them, refuse fsx's random data and
# serve the churn file.  The churn writes with O_DIRECT too, which keeps a
# file out of ccache until its inode is evicted (Documentation/design.rst),
# so the page cache and the inodes are dropped first.
check "write back, drop the page cache and the inodes" \
	sh -c 'sync && echo 3 > /proc/sys/vm/drop_caches'
run_check "$FS: the churn file matches its model" \
	"$CCFILE" verify -m read "$dir/churn"
check "read fsx's files" sh -c "cat $dir/fsx1 $dir/fsx2 > /dev/null"
cc_snap reread
cc_evict "$dir/churn" "$dir/fsx1" "$dir/fsx2"
run_check "$FS: the churn file matches its model after eviction" \
	"$CCFILE" verify -m read "$dir/churn"
# shellcheck disable=SC2154 # set by the eval
echo "# during the run: $run_captures captures, $run_hits hits, $run_reject_poor_compression refused as incompressible"
echo "# afterwards: $(cc_delta reread captures) captures, $(cc_delta reread hits) hits re-reading the churn file"
check_gt "pages were captured" "$(cc_delta run captures)" 0
check_gt "reads were served by ccache (hits)" "$(cc_delta run hits)" 0
check_gt "fsx's random data was refused (reject_poor_compression)" \
	"$(cc_delta run reject_poor_compression)" 0
cc_check_no_oom
churn_ops=$(awk '/ operations, / { n += $3 } END { print n + 0 }' /tmp/churn.log)
cc_summary ops=$((2 * ops + churn_ops)) hits="$(cc_stat hits)" mismatches=$bad
check "rmmod ccache" /sbin/rmmod ccache
run_check "$FS: the churn file matches its model after rmmod" \
	"$CCFILE" verify -m all "$dir/churn"
tap_done
