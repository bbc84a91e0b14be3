# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for ccache's data-integrity guest tests, sourced after lib/tap.sh:
# loading the module from an empty store, reading its statistics before
# and after a step, the disk's read counter, and checks that show what
# ccfile said when they fail.

CCFILE=/selftests/progs/ccfile
# fsx with tools/patches applied (tools/build-fsx.sh, tools/vm/guest-programs)
# shellcheck disable=SC2034 # used by progs/fsx.sh and progs/lifecycle.sh
FSX=/usr/local/libexec/ccache-dev/fsx
CCSTATS=/sys/kernel/mm/ccache
export CCFILE_MODELS=/tmp/ccmodel

# cc_stat_read NAME: set cc_v to statistic NAME (one line), "missing"
# when there is no such file, by the shell's own read: cc_snap, cc_show
# and cc_delta read every statistic, and a process per statistic costs a
# TCG guest seconds per eviction
cc_stat_read() {
	{ read -r cc_v < "$CCSTATS/$1"; } 2>/dev/null || cc_v=missing
}

# cc_stat NAME: print statistic NAME (cc_stat_read)
cc_stat() {
	cc_stat_read "$1"
	echo "$cc_v"
}

# cc_stat_names: the module's statistics, the files of $CCSTATS whose
# mode lets their owner read them (not the write-only controls), without
# version; none when ccache is not loaded
cc_stat_names() {
	find "$CCSTATS" -maxdepth 1 -type f -perm -0400 ! -name version \
		2>/dev/null | sed 's|.*/||' | LC_ALL=C sort
}

# cc_show [LABEL]: every statistic on one TAP comment line
cc_show() {
	line="# ccache${1:+ $1}:"
	for s in $(cc_stat_names); do
		cc_stat_read "$s"
		line="$line $s=$cc_v"
	done
	echo "$line"
}

# disk_reads [DEV]: sectors read from DEV (default vda) so far
disk_reads() {
	awk -v dev="${1:-vda}" '$3 == dev { print $6 }' /proc/diskstats
}

# cc_snap NAME: remember every statistic and the disk read counters
cc_snap() {
	for s in $(cc_stat_names); do
		cc_stat_read "$s"
		eval "snap_${1}_$s=\$cc_v"
	done
	for d in vda vdb; do
		eval "snap_${1}_$d=\$(disk_reads $d)"
	done
}

# cc_delta NAME STAT: how much STAT (a statistic, vda or vdb) grew since
# cc_snap NAME; a statistic missing then or now counts as 0
cc_delta() {
	case $2 in
	vd?) now=$(disk_reads "$2") ;;
	*) cc_stat_read "$2"; now=$cc_v ;;
	esac
	eval "was=\${snap_${1}_$2:-missing}"
	# shellcheck disable=SC2154 # set by the eval
	case "$now$was" in
	*[!0-9]*) echo 0 ;;
	*) echo $((now - was)) ;;
	esac
}

# cc_data_hits NAME: hits of files' data since cc_snap NAME (hits less
# bdev_hits: the filesystems' metadata the bdev filesystem keeps)
cc_data_hits() {
	echo $(($(cc_delta "$1" hits) - $(cc_delta "$1" bdev_hits)))
}

# cc_empty_store: write back, drop the page cache and (through the same
# drop_caches) every ccache entry; true when the store is then empty
cc_empty_store() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	[ "$(cc_stat stored_pages)" = 0 ]
}

# cc_poll TENTHS COMMAND...: run COMMAND every 0.1 s until it succeeds, at
# most TENTHS more times; its last status
cc_poll() {
	_cc_poll_n=$1
	shift
	until "$@"; do
		[ "$_cc_poll_n" -gt 0 ] || return 1
		sleep 0.1
		_cc_poll_n=$((_cc_poll_n - 1))
	done
}

# cc_store_empty: true when no page is stored
# shellcheck disable=SC2317 # called through cc_poll
cc_store_empty() {
	[ "$(cc_stat stored_pages)" = 0 ]
}

# cc_wait_empty: true once stored_pages is 0, waiting up to 2 s for
# compression still in flight
# shellcheck disable=SC2317 # called through check
cc_wait_empty() {
	cc_poll 20 cc_store_empty
}

# cc_offload_sum STAT: the offload backends' STAT (offload/*/STAT), all
# backends together
cc_offload_sum() {
	cat "$CCSTATS"/offload/*/"$1" 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'
}

# cc_offload_queued: jobs the offload backends hold, all backends together
cc_offload_queued() {
	cc_offload_sum queued
}

# cc_settle: wait (up to 60 s) until the offload backends hold no job, so
# what was captured is stored before a test reads it back.  The default
# backend compresses on idle cycles only, and a busy guest has none until
# the test pauses; true once settled.
cc_settle() {
	cc_poll 600 cc_offload_idle || return 1
	sleep 0.2	# the publish worker runs right after the last job
}

# cc_offload_idle: true when the offload backends hold no job
# shellcheck disable=SC2317 # called through cc_poll
cc_offload_idle() {
	[ "$(cc_offload_queued)" = 0 ]
}

# cc_start [PARAMETER...]: load ccache, then start from an empty store
# (two checks)
cc_start() {
	check "modprobe ccache $*" /sbin/modprobe ccache "$@"
	check "the store is empty at the start" cc_empty_store
}

# check_gt DESC VALUE MIN: passes when VALUE > MIN
check_gt() {
	[ "$2" -gt "$3" ] 2>/dev/null
	tap_result $? "$1"
	[ "$2" -gt "$3" ] 2>/dev/null || echo "#   got $2, wanted more than $3"
}

# check_le DESC VALUE MAX: passes when VALUE <= MAX
check_le() {
	[ "$2" -le "$3" ] 2>/dev/null
	tap_result $? "$1"
	[ "$2" -le "$3" ] 2>/dev/null || echo "#   got $2, wanted at most $3"
}

# meminfo_kib KEY...: the sum of /proc/meminfo's KEY lines, in KiB
meminfo_kib() {
	awk -v keys=" $* " 'index(keys, " " substr($1, 1, length($1) - 1) " ") {
		n += $2 } END { print n + 0 }' /proc/meminfo
}

# cc_mem_settle: write back, drop the caches, let freed memory come home
cc_mem_settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
}

# cc_mem_baseline: remember MemFree and Slab once settled, for cc_mem_back
cc_mem_baseline() {
	cc_mem_settle
	cc_free0=$(meminfo_kib MemFree)
	cc_slab0=$(meminfo_kib Slab)
	echo "# baseline: MemFree $cc_free0 kB, Slab $cc_slab0 kB"
}

# cc_mem_back: two checks, once settled: Slab within 4 MiB and MemFree
# within 8 MiB of what cc_mem_baseline saw (nothing leaked)
cc_mem_back() {
	cc_mem_settle
	_cc_free=$(meminfo_kib MemFree)
	_cc_slab=$(meminfo_kib Slab)
	echo "# at the end: MemFree $_cc_free kB, Slab $_cc_slab kB"
	check_le "Slab within 4 MiB of its starting level" "$_cc_slab" \
		$((cc_slab0 + 4096))
	check_gt "MemFree within 8 MiB of its starting level" "$_cc_free" \
		$((cc_free0 - 8192))
}

# cc_create SIZE FILE...: each FILE with SIZE bytes of fresh compressible
# data (a model each); false at the first that fails
cc_create() {
	_cc_size=$1
	shift
	for _cc_f in "$@"; do
		"$CCFILE" create "$_cc_f" "$_cc_size" || return 1
	done
}

# cc_small_tree DIR: 16 directories of 50 small files each in DIR, their
# names long enough to fill directory blocks; false at the first failure
cc_small_tree() {
	_cc_d=0
	while [ "$_cc_d" -lt 16 ]; do
		mkdir -p "$1/d$_cc_d" || return 1
		_cc_f=0
		while [ "$_cc_f" -lt 50 ]; do
			echo "d$_cc_d f$_cc_f" > \
				"$1/d$_cc_d/file-with-a-long-name-$_cc_f" || return 1
			_cc_f=$((_cc_f + 1))
		done
		_cc_d=$((_cc_d + 1))
	done
}

# cc_loop_ext4 DIR MIB: a tmpfs on DIR (no large folios) holding a sparse
# file DIR/img of MIB MiB, attached to /dev/loop0, with an ext4 of 4 KiB
# blocks on it (a filesystem this small gets 1 KiB blocks otherwise, whose
# pages are never read whole) and its inode tables and journal written
# now (no lazy init, no discard); a check per step
cc_loop_ext4() {
	mkdir -p "$1"
	check "mount a tmpfs for the backing file" \
		mount -t tmpfs -o size=$(($2 * 2))m,huge=never tmpfs "$1"
	check "make a sparse $2 MiB backing file" truncate -s "$2M" "$1/img"
	check "attach it to /dev/loop0" losetup /dev/loop0 "$1/img"
	check "make an ext4 on it" /sbin/mke2fs -q -F -t ext4 -b 4096 \
		-E lazy_itable_init=0,lazy_journal_init=0,nodiscard /dev/loop0
}

# cc_data_fs: the type of the data disk's filesystem (/mnt/d0)
cc_data_fs() {
	awk '$2 == "/mnt/d0" { print $3 }' /proc/mounts
}

# cc_pool_stays_full DIR: after cold data filled the pool, keep it full:
# accept_threshold_percent=0, then a fifth cold file of 8 MiB (DIR/cold5,
# added to $cc_cold) must find no room (checks).  Not during the fill:
# whatever left the full pool during the fill would then never be
# replaced.  And the top-up: compaction, hits and the turnover may have
# left the pool below its limit at the end of the fill, and it is "full"
# (refusing) only once a page found no room after the threshold went to
# 0; else the next file's first pages go into the room left, whatever the
# policy under test would have said.  The fifth file, not the fill, shows
# the pool full: how many of the fill's pages the full staging queue
# drops varies, and with a pool of 6% the fill may end just short of the
# limit (Documentation/testing.rst).
cc_pool_stays_full() {
	check "the pool stays full from now on (accept_threshold_percent=0)" \
		sh -c "echo 0 > /sys/module/ccache/parameters/accept_threshold_percent"
	check "create a fifth cold file of 8 MiB" cc_create 8M "$1/cold5"
	sync
	cc_snap top
	cc_evict "$1/cold5"
	cc_cold="$cc_cold $1/cold5"
	check_gt "a fifth cold file found the pool full (reject_pool_limit grew)" \
		"$(cc_delta top reject_pool_limit)" 0
}

# cc_start_small [PERCENT]: load ccache with a pool of 2% of RAM (or
# PERCENT) for the tests of its admission policy.  The shrinker is
# faulted off (test-only knob, ccache/fault.c): under the eviction's
# pressure it would make room by itself, whatever the policy that
# workingset.sh and readmit.sh test; yield.sh tests it.  And pool_sizing
# is fixed: with auto, pages the eviction itself reads back (ghost hits
# against no hits) may switch the pool to replacing its oldest entries,
# which takes every new page in (sizing_replace.sh tests that, switching
# to auto after the fill).  And only the data disk's filesystem is
# cached: cc_evict streams the raw disk underneath, whose zero pages the
# default "bdev" stores, and their captures advance the eviction clock
# past the horizon of the ghosts the tests look at.
cc_start_small() {
	cc_start max_pool_percent="${1:-2}" fault_inject=shrinker \
		pool_sizing=fixed filesystems="$(cc_data_fs)"
}

# cc_fill_cold DIR [PERCENT]: cc_start_small PERCENT, fill the pool with
# 64 MiB of cold data under DIR (the files listed in $cc_cold) and keep it
# full (cc_pool_stays_full; checks).  DIR is under /mnt/d0.
cc_fill_cold() {
	cc_start_small "${2:-}"
	mkdir -p "$1"
	cc_cold="$1/cold1 $1/cold2 $1/cold3 $1/cold4"
	# shellcheck disable=SC2086 # a list of paths without spaces
	check "create 64 MiB of cold data" cc_create 16M $cc_cold
	sync
	# shellcheck disable=SC2086
	cc_evict $cc_cold
	cc_pool_stays_full "$1"
}

# cc_fill_pool DIR FILE [PERCENT]: cc_fill_cold DIR PERCENT, check that
# the pool holds more than 1,000 pages, then create FILE of 4 MiB and
# start tracing entries (cc_trace_start; checks)
cc_fill_pool() {
	cc_fill_cold "$1" "${3:-}"
	cc_stored=$(cc_stat stored_pages)
	check_gt "the pool holds more than 1,000 pages of it" "$cc_stored" 1000
	# what emptied it, if anything did (design.rst, Sizing: a fixed
	# target that moved)
	[ "$cc_stored" -gt 1000 ] 2>/dev/null || cc_show "after the cold data"
	check "create a 4 MiB file" cc_create 4M "$2"
	sync
	cc_trace_start
}

# cc_fill_pool_folios DIR FILE: like cc_fill_cold, for files read into
# large folios: create 64 MiB of cold data (the files listed in $cc_cold)
# and FILE of 8 MiB before ccache loads, and drop them from the page
# cache, so that reads put them there in the folios readahead chooses (a
# direct write would poison FILE's record, whose pages are then never
# captured); cc_start_small, and fill the pool with the cold data, read
# and evicted; the pool then stays full (cc_pool_stays_full; checks)
cc_fill_pool_folios() {
	mkdir -p "$1"
	cc_cold="$1/cold1 $1/cold2 $1/cold3 $1/cold4"
	# shellcheck disable=SC2086 # a list of paths without spaces
	check "create 64 MiB of cold data" cc_create 16M $cc_cold
	check "create an 8 MiB file" cc_create 8M "$2"
	sync
	echo 3 > /proc/sys/vm/drop_caches
	cc_start_small
	# shellcheck disable=SC2086
	check "read the cold data" cat $cc_cold
	# shellcheck disable=SC2086
	cc_evict $cc_cold
	cc_pool_stays_full "$1"
}

# cc_tracefs: set T to the tracing directory, mounting tracefs there if
# it is not yet
cc_tracefs() {
	T=/sys/kernel/tracing
	[ -f $T/trace ] || mount -t tracefs nodev $T
}

# cc_trace_start: trace the entries that come and go (the tracepoints
# cc_trace_stored replays), from an empty trace
cc_trace_start() {
	cc_tracefs
	echo 4096 > $T/buffer_size_kb
	echo > $T/trace
	for ev in store evict reject load_hit invalidate; do
		echo 1 > "$T/events/ccache/ccache_$ev/enable"
	done
}

# cc_trace_stored FILE: how many of FILE's pages the store holds, from the
# trace since cc_trace_start (or since the trace was last emptied, before
# FILE's first capture): a store adds a page, an eviction, a refusal, a
# hit or an invalidation takes it out
cc_trace_stored() {
	awk -v ino="$(stat -c %i "$1")" '
	{ for (i = 1; i < NF && $i != "ino"; i++) ; }
	$(i + 1) != ino { next }
	/ ccache_store: / { s[$(i + 3)] = 1 }
	/ ccache_evict: / { delete s[$(i + 3)] }
	/ ccache_(reject|load_hit): / {
		for (j = 0; j < $(i + 5); j++) delete s[$(i + 3) + j]
	}
	/ ccache_invalidate: / {
		for (k in s) if (k + 0 >= $(i + 3) && k + 0 <= $(i + 5)) delete s[k]
	}
	END { n = 0; for (k in s) n++; print n }' /sys/kernel/tracing/trace
}

# cc_check_replaced SNAP FILE PAGES MIN: FILE of PAGES pages, evicted
# into the pool that cc_fill_pool filled since cc_snap SNAP, took the
# place of more than MIN old entries, more than half of it comes back from
# ccache, and 95% of what the store held of it (cc_trace_stored), and all
# files read back as their models; then unload (checks)
cc_check_replaced() {
	cc_show "after evicting $2"
	check_gt "its pages took the place of old entries (lru_evictions grew)" \
		"$(cc_delta "$1" lru_evictions)" "$4"
	cc_snap read
	stored=$(cc_trace_stored "$2")
	run_check "it reads back as its model" "$CCFILE" verify -m read "$2"
	hits=$(cc_delta read hits)
	echo "# $hits of its $stored stored pages served"
	check_gt "more than half its pages were served by ccache" \
		"$hits" $(($3 / 2))
	# a large folio is read from the disk unless all of it is stored;
	# 95%, not all: cc_evict's allocations may split a folio before
	# reclaim, and its pages then come back in another shape
	# (Documentation/design.rst, Known gaps)
	check_gt "at least 95% of its stored pages were served" \
		$((hits * 100)) $((stored * 95 - 1))
	# shellcheck disable=SC2086 # cc_fill_pool's list of paths
	run_check "the cold files read back as their models" \
		"$CCFILE" verify -m read $cc_cold
	check "rmmod ccache" /sbin/rmmod ccache
}

# cc_summary KEY=VALUE...: one line for the full run's summary table
# (run.sh): ops (operations the test ran), hits (ccache hits during them),
# mismatches (data checks that failed), or the test's own keys
cc_summary() {
	echo "SUMMARY $*"
}

# cc_evict [-l PCT] FILE...: push the files out of the page cache through
# memory reclaim, all but PCT% of their pages (default 1); a check, with
# ccfile's summary and what ccache made of the eviction as comments
cc_evict() {
	leave=1
	[ "$1" != -l ] || { leave=$2; shift 2; }
	cc_snap ccev
	# 60 s: a guest on a loaded host runs several times slower (fio's
	# files needed more than 30 s on 6.12 beside other guests)
	out=$("$CCFILE" evict -t 60 -l "$leave" "$@" 2>&1)
	st=$?
	tap_result $st "evicted $# files by memory pressure"
	printf '%s\n' "$out" | sed 's/^/# /'
	cc_settle || echo "# offload still busy: $(cc_offload_queued) jobs queued"
	cc_show_delta ccev "the eviction"
	return $st
}

# cc_show_delta SNAP LABEL: how captures, stored pages and each reason for
# refusing a page moved since cc_snap SNAP, on one TAP comment line (what
# a failed check on an eviction needs to tell a refusal from a capture
# that never happened)
cc_show_delta() {
	line="# ccache, $2:"
	for s in $(cc_stat_names); do
		case $s in
		captures | stored_pages | reject_*) ;;
		*) continue ;;
		esac
		d=$(cc_delta "$1" "$s")
		[ "$d" = 0 ] || line="$line $s=$d"
	done
	echo "$line"
}

# cc_with_fault SITE CMD...: CMD with the test-only fault site SITE
# failing (fault_inject; every pass unless fault_every says otherwise),
# then no site again; CMD's status
cc_with_fault() {
	echo "$1" > /sys/module/ccache/parameters/fault_inject
	shift
	"$@"
	cc_fault_st=$?
	echo none > /sys/module/ccache/parameters/fault_inject
	return $cc_fault_st
}

# cc_pressure_start FLOOR_MIB: ccfile's waves of memory pressure in the
# background, leaving FLOOR_MIB above the watermarks (see pressure.c),
# until cc_pressure_stop
cc_pressure_start() {
	"$CCFILE" pressure -t 86400 -f "$1" > /tmp/pressure.log 2>&1 &
	cc_pressure=$!
}

# cc_pressure_stop DESC: a check that the pressure ran until now, then
# stop it and show its summary as a comment
cc_pressure_stop() {
	check "$1" kill "$cc_pressure"
	wait "$cc_pressure" 2>/dev/null
	sed 's/^/# pressure: /' /tmp/pressure.log
}

# cc_cold_pair DIR: DIR/a and DIR/b, 16 MiB of compressible data each,
# created (a check) and out of the page cache; sets files (their paths)
# and pages (their pages)
cc_cold_pair() {
	mkdir -p "$1"
	files="$1/a $1/b"
	# shellcheck disable=SC2034 # the tests' variable
	pages=$((2 * 4096))
	# shellcheck disable=SC2086 # a list of paths without spaces
	check "create 2 x 16 MiB of compressible data" cc_create 16M $files
	sync
	echo 3 > /proc/sys/vm/drop_caches
}

# cc_groups_create GROUP...: checks that create a memory cgroup of each
# name (cc_in_group runs a program in one)
cc_groups_create() {
	check "enable the memory controller for child cgroups" \
		sh -c 'echo +memory > /sys/fs/cgroup/cgroup.subtree_control'
	for g in "$@"; do
		check "create cgroup $g" mkdir -p "/sys/fs/cgroup/$g"
	done
}

# cc_reclaim_all GROUP: push GROUP's file pages out through the kernel's
# reclaim (memory.reclaim, 16 MiB at a time, 6 times).  Once the
# reads are done, unlike cc_reclaim_start: a page pushed out before it was
# read comes back in a folio of its own, so the next read's folios would
# not be the ones captured.
cc_reclaim_all() {
	for _ in 1 2 3 4 5 6; do
		echo 16M > "/sys/fs/cgroup/$1/memory.reclaim" 2>/dev/null
	done
}

# cc_reclaim_start [-i SECS] GROUP...: a cgroup of each name (cc_in_group
# runs a program in one) and, in the background until cc_reclaim_stop,
# proactive reclaim of 1 MiB from each every SECS seconds (default 0.2;
# cgroup v2 memory.reclaim, 5.19 and later).  The file pages of the
# programs in them leave through the kernel's own reclaim path, which
# ccache captures, soon after their last use, and nothing else in the
# guest is pushed out: per evicted page a fraction of what the waves of
# cc_pressure_start cost a TCG guest (the shrinker is theirs to test).  A
# group whose pages are all in use just refuses (EAGAIN).
cc_reclaim_start() {
	every=0.2
	[ "$1" != -i ] || { every=$2; shift 2; }
	cc_groups_create "$@"
	(while :; do
		for g in "$@"; do
			echo 1M > "/sys/fs/cgroup/$g/memory.reclaim"
		done 2>/dev/null
		sleep "$every"
	done) &
	cc_reclaim=$!
	cc_groups=$*
}

# cc_reclaim_stop DESC: a check that the reclaim ran until now, then stop
# it and show each group's pages reclaimed (pgsteal) and read back
# (workingset_refault_file) as a comment
cc_reclaim_stop() {
	check "$1" kill "$cc_reclaim"
	wait "$cc_reclaim" 2>/dev/null
	for g in $cc_groups; do
		echo "# cgroup $g: $(grep -E '^(pgsteal|workingset_refault_file) ' \
			"/sys/fs/cgroup/$g/memory.stat" | tr '\n' ' ')"
	done
}

# cc_in_group GROUP PROGRAM [ARG...]: run PROGRAM in cgroup GROUP
cc_in_group() {
	sh -c 'echo $$ > "/sys/fs/cgroup/$0/cgroup.procs" && exec "$@"' "$@"
}

# cc_check_no_oom: a check that the OOM killer never ran (the harness does
# not look for it; the pressure helpers volunteer as its victims, so a
# test could lose its pressure without noticing)
cc_check_no_oom() {
	check_fails "the OOM killer never ran" \
		sh -c "dmesg | grep -q 'Out of memory'"
}

# now_s: seconds since boot, for timing steps
now_s() {
	cut -d' ' -f1 /proc/uptime
}

# cc_debug_kernel: true on a debug kernel (tools/debug-kernel.sh; boot.sh
# gives it CCDEV_SLOWDOWN > 1), which runs the suite about ten times
# slower than a stock kernel.  The long runs do less there, so that its
# make check-full fits a working session: its checkers need the code
# paths, not the count.
cc_debug_kernel() {
	[ "${CCDEV_SLOWDOWN:-1}" -gt 1 ]
}
