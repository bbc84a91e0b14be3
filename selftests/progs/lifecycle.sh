# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Body of the load/unload-under-load tests: ccache is loaded (compressor
# lzo, lz4, zstd in turn; lzo and lzo-rle with offload=inline) while
# readers verify evicted files, writers change theirs and waves of memory
# pressure keep pages leaving, and unloaded again in the middle of it,
# $cycles times.  With $retune set, each cycle also switches the
# compressor and the pool size while loaded; with $with_fsx set, fsx runs
# beside it all along.  No reader or writer may see a wrong byte, the
# kernel must log no oops or warning (the harness checks), and MemFree
# and Slab must come back near where they started.
# shellcheck disable=SC2086 # lists of paths without spaces

: "${cycles:?set cycles}"
retune=${retune:-}
with_fsx=${with_fsx:-}

[ -d /mnt/d1 ] || tap_skip_all "needs two data disks"
stop=/tmp/stop
fails=/tmp/fails
readers="/mnt/d0/r1 /mnt/d1/r2"
writers="/mnt/d0/w1 /mnt/d1/w2"

if [ -n "$with_fsx" ]; then
	[ -x "$FSX" ] || tap_skip_all "no $FSX in the guest (tools/build-fsx.sh builds it)"
	# 4 MiB, operations up to 128 KiB, mmap, truncate and hole punching on
	cat > /tmp/fsx.toml <<'CONF'
flen = 4194304
[opsize]
max = 131072
[weights]
truncate = 3
punch_hole = 3
mapread = 4
mapwrite = 4
sendfile = 2
CONF
fi

# retune COMPRESSOR PERCENT: switch both knobs of the loaded module
# shellcheck disable=SC2317 # called when $retune is set
retune() {
	echo "$1" > /sys/module/ccache/parameters/compressor &&
		echo "$2" > /sys/module/ccache/parameters/max_pool_percent &&
		retuned=$((retuned + 1))
}

# shellcheck disable=SC2317 # run in the background
reader() {
	set -- read readahead sendfile mmap
	while [ ! -e $stop ]; do
		"$CCFILE" verify -m "$1" $readers > /tmp/reader.out 2>&1 ||
			{ cat /tmp/reader.out >> $fails; echo >> $fails.n; }
		set -- "$2" "$3" "$4" "$1"
	done
}

# shellcheck disable=SC2317 # run in the background
writer() {
	n=0
	while [ ! -e $stop ]; do
		n=$((n + 1))
		"$CCFILE" churn -t 3 -s $((n * 104729)) "$1" > "$1.out" 2>&1 ||
			{ cat "$1.out" >> $fails; echo >> $fails.n; }
	done
}

# shellcheck disable=SC2317 # run in the background
pressure() {
	while [ ! -e $stop ]; do
		"$CCFILE" pressure -t 3 -f 12 > /dev/null 2>&1
	done
}

ok=0
for f in $readers; do
	"$CCFILE" create "$f" 4M || ok=1
done
for f in $writers; do
	"$CCFILE" create "$f" 2M || ok=1
done
check_eq "create the readers' and writers' files" $ok 0

# the compressors to cycle through: offload=inline (a variant's option in
# /etc/modprobe.d) compresses with the LZO family only
/sbin/modprobe ccache
if [ "$(cat /sys/module/ccache/parameters/offload)" = inline ]; then
	compressors="lzo lzo-rle lzo"
else
	compressors="lzo lz4 zstd"
fi
/sbin/rmmod ccache
echo "# compressors: $compressors"

# load every compressor's module once, so they count in the baseline
for c in $compressors; do
	/sbin/modprobe ccache compressor=$c && /sbin/rmmod ccache
done
cc_mem_baseline

# the load runs niced, so loading and unloading keep their pace
rm -f $stop $fails $fails.n
renice -n 10 $$ > /dev/null
reader &
for f in $writers; do
	writer "$f" &
done
pressure &
if [ -n "$with_fsx" ]; then
	mkdir -p /mnt/d0/fsx
	"$FSX" -S 4099 -f /tmp/fsx.toml -P /tmp /mnt/d0/fsx/life > /tmp/fsx.log 2>&1 &
	fsx=$!
fi
renice -n 0 $$ > /dev/null

loaded=0 unloaded=0 captures=0 hits=0 slowest=0 retuned=0
start=$(now_s)
set -- $compressors
i=1
while [ $i -le $cycles ]; do
	t=$(now_s)
	if /sbin/modprobe ccache compressor="$1"; then
		loaded=$((loaded + 1))
		load_took=$(echo "$(now_s) $t" | awk '{ print $1 - $2 }')
		# stay loaded until pages flow through ccache (at most 5 s)
		n=0
		while [ "$(cc_stat captures)" -eq 0 ] && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		sleep 0.5
		[ -z "$retune" ] || retune "$2" $((10 + i % 5 * 15))
		captures=$((captures + $(cc_stat captures)))
		hits=$((hits + $(cc_stat hits)))
		t=$(now_s)
		n=0
		until /sbin/rmmod ccache 2>/dev/null || [ $n -ge 20 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		took=$(echo "$(now_s) $t" | awk '{ print $1 - $2 }')
		slowest=$(echo "$took $slowest" |
			awk '{ print ($1 > $2) ? $1 : $2 }')
		[ -e /sys/module/ccache ] || unloaded=$((unloaded + 1))
		echo "# cycle $i ($1): modprobe took $load_took s, rmmod $took s"
	fi
	set -- "$2" "$3" "$1"
	i=$((i + 1))
done
echo "# $cycles cycles in $(echo "$(now_s) $start" | awk '{ print $1 - $2 }') s, slowest rmmod $slowest s"
if [ -n "$with_fsx" ]; then
	check "fsx ran through every cycle (still running, no mismatch)" kill "$fsx"
	wait "$fsx" 2>/dev/null
	tail -n 5 /tmp/fsx.log | sed 's/^/# fsx: /'
fi
touch $stop
wait

check_eq "ccache loaded $cycles times" $loaded $cycles
check_eq "ccache unloaded $cycles times under load" $unloaded $cycles
echo "# captures $captures, hits $hits over all cycles"
check_gt "pages were captured while loaded" $captures 0
check_gt "reads were served while loaded (hits)" $hits 0
cc_check_no_oom
[ -z "$retune" ] || check_eq "compressor and pool size changed in every cycle" \
	$retuned $cycles
check "no reader or writer saw a wrong byte" test ! -s $fails
[ ! -s $fails ] || head -n 40 $fails | sed 's/^/#   /'
run_check "every file matches its model at the end (read)" \
	"$CCFILE" verify -m read $readers $writers
run_check "and on disk (O_DIRECT)" "$CCFILE" verify -m direct $readers $writers

cc_mem_back
cc_summary ops=$cycles hits=$hits mismatches="$(cat $fails.n 2>/dev/null | wc -l)"
tap_done
