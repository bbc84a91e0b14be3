#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The newcomer's walk-through of packaging/README.rst, step by step:
# install the DKMS package, load ccache with options of one's own from
# /etc/modprobe.d, watch it work with "ccachectl watch", trace it with
# "perf trace", flush it, unload it, remove the package.  The guest has
# no compiler: the host side (prep/walkthrough.sh) built the package with
# "make dkms-deb" and installed it with dpkg in a throwaway root, where
# DKMS built the module for this guest's kernel, then removed it there
# with "dpkg -r"; the guest has what was installed, at the same paths, and
# Debian's perf, and checks how the removal went.  A piece the host could
# not provide (/selftests/.prep/PIECE.skip) makes its checks skips with
# the reason, and the whole test a skip (exit 4) unless a check failed:
# never a pass.
# VM: mem=320 cpus=2 disk=ext4:512M timeout=400 prepare=prep/walkthrough.sh
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

N=/selftests/.prep
rel=$(uname -r)
CTL=/usr/sbin/ccachectl
PERF=/usr/bin/perf
P=/sys/module/ccache/parameters
conf=/etc/modprobe.d/ccache.conf
dir=/mnt/d0/walk
files="$dir/f1 $dir/f2 $dir/f3 $dir/f4"
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"
# run.sh -p / boot.sh -p would write /etc/modprobe.d/ccache.conf over the
# package's
! grep -Eq "^CCDEV_MODOPTS='.+'" /run.conf ||
	tap_skip_all "the walk-through sets its own module options (no -p)"

# skip_checks PIECE DESC...: the checks of a piece the host could not
# provide, each a skip with its reason
missing=''
skip_checks() {
	why=$(cat "$N/$1.skip")
	case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
	shift
	for d in "$@"; do
		tap_skip "$d" "$why"
	done
}

# has PATTERN: the output $out has a line matching PATTERN (grep -E)
# shellcheck disable=SC2317 # called through check
has() {
	printf '%s\n' "$out" | grep -Eq "$1"
}

# conf_has KNOB=VALUE: an options line of $conf sets it
# shellcheck disable=SC2317 # called through check
conf_has() {
	grep '^options ccache ' "$conf" | tr ' ' '\n' | grep -qx "$1"
}

# lines FILE: how many lines FILE has
lines() {
	wc -l < "$1" 2>/dev/null || echo 0
}

# ---- "Install it": what dpkg -i installed, DKMS's module for this kernel ----
if [ -f $N/package.skip ]; then
	skip_checks package "dkms status: installed for $rel" \
		"DKMS installed ccache.ko into updates/dkms" \
		"the package installed $conf" "the package installed $CTL"
	packaged=0
else
	sed -n '/^Setting up/,$p' $N/dpkg.log | sed 's/^/# dpkg: /'
	check "dkms status: installed for $rel" \
		grep -q "^ccache/.*, $rel, x86_64: installed" $N/dkms-status
	check "DKMS installed ccache.ko into updates/dkms" \
		sh -c "ls /lib/modules/$rel/updates/dkms/ccache.ko*"
	check "the package installed $conf" grep -qx "$conf" $N/files
	check "the package installed $CTL" grep -qx "$CTL" $N/files
	packaged=1
fi

# ---- "Load it": options in /etc/modprobe.d/ccache.conf, then modprobe ----
/sbin/depmod -a
ko=$(/sbin/modinfo -n ccache 2>&1)
echo "# modprobe ccache loads $ko"
if [ $packaged = 1 ]; then
	check "modprobe finds DKMS's module" \
		sh -c "echo '$ko' | grep -q '^/lib/modules/$rel/updates/dkms/ccache.ko'"
	# uncomment and edit the options line of those knobs, as the file says
	sed -i '/^#options ccache .*compressor=/{
		s/^#//
		s/compressor=[^ ]*/compressor=lz4/
		s/max_pool_percent=[^ ]*/max_pool_percent=40/
	}' $conf
else
	skip_checks package "modprobe finds DKMS's module"
	echo "options ccache compressor=lz4 max_pool_percent=40" > $conf
fi
grep -v '^#' $conf | sed 's/^/# /'
check "$conf sets compressor=lz4" conf_has compressor=lz4
check "$conf sets max_pool_percent=40" conf_has max_pool_percent=40
# at boot: /etc/modules-load.d, whose modules systemd-modules-load
# loads with modprobe
ex=/usr/share/doc/ccache-dkms/examples/modules-load.d/ccache.conf
mkdir -p /etc/modules-load.d
if [ -f $ex ]; then
	cp $ex /etc/modules-load.d/
	check_eq "modules-load.d/ccache.conf names ccache" \
		"$(grep -Ev '^(#|$)' /etc/modules-load.d/ccache.conf)" ccache
else
	skip_checks package "modules-load.d/ccache.conf names ccache"
	echo ccache > /etc/modules-load.d/ccache.conf
fi
dmesg -c > /dev/null
# shellcheck disable=SC2046 # one module name per word
check "modprobe ccache (as systemd-modules-load does)" \
	/sbin/modprobe -a $(grep -Ev '^(#|$)' /etc/modules-load.d/ccache.conf)
check_eq "compressor is lz4" "$(cat $P/compressor)" lz4
check_eq "max_pool_percent is 40" "$(cat $P/max_pool_percent)" 40
dmesg | grep 'ccache: version' | sed 's/^/# /'
check "the kernel log's load line names them" \
	sh -c "dmesg | grep -q 'ccache: version .* loaded: compressor lz4, .*max_pool_percent 40 '"
out=$($CTL status 2>&1)
check_eq "ccachectl status exits 0" $? 0
printf '%s\n' "$out" | sed 's/^/# /'
check "ccachectl status shows lz4" has '^lz4 +cpu '


# ---- a workload: a file set read, pushed out by memory pressure ----
check "the store is empty" cc_empty_store
mkdir -p $dir
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "create 4 x 8 MiB of compressible data" cc_create 8M $files
check "empty page cache and store" cc_empty_store
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "cold pass matches the model" "$CCFILE" verify $files
# shellcheck disable=SC2086
cc_evict $files
check_gt "pages are stored" "$(cc_stat stored_pages)" 0

# ---- "Watch it": ccachectl watch while the set is read again ----
# watch runs until killed; the re-read starts once it has printed its
# first interval and ends before its last, whatever the timing
$CTL watch -i 1 -n 600 > /tmp/watch.out 2>&1 &
watcher=$!
# shellcheck disable=SC2317 # called through cc_poll
has_lines() {
	[ "$(lines /tmp/watch.out)" -ge "$1" ]
}
check "ccachectl watch printed a first interval" cc_poll 600 has_lines 2
cc_snap warm
# shellcheck disable=SC2086
run_check "warm pass matches the model" "$CCFILE" verify $files
check "ccachectl watch printed the interval after the pass" \
	cc_poll 600 has_lines $(($(lines /tmp/watch.out) + 1))
kill $watcher
wait $watcher 2>/dev/null
sed 's/^/# /' /tmp/watch.out
hits=$(cc_delta warm hits)
check_gt "the warm pass was served by ccache (hits)" "$hits" 0
check "watch: a header, then rates" \
	sh -c "head -n 1 /tmp/watch.out | grep -q '^TIME .*HITS/s .*SAVED/s'"
check_eq "watch: every line's rates are numbers" \
	"$(awk 'NR > 1 && !($2 $3 $4 $6 ~ /^[0-9]+$/ && $5 ~ /^[-+][0-9]+$/)' /tmp/watch.out)" ""
best=$(awk 'NR > 1 && $3 > n { n = $3 } END { print n + 0 }' /tmp/watch.out)
echo "# $hits hits during the watch; the highest HITS/s: $best"
check_gt "watch: a nonzero hit rate" "$best" 0
check "watch: disk reads saved in that interval" \
	sh -c "awk 'NR > 1 && \$3 == $best { print \$7 }' /tmp/watch.out | grep -qv '^0B$'"

# ---- "Trace it": perf trace on ccache's tracepoints ----
# shellcheck disable=SC2086
inos=$(stat -c %i $files | tr '\n' ' ')
inos=${inos% }
if [ -f $N/perf.skip ]; then
	skip_checks perf "perf trace -e 'ccache:*' -- a re-read: ccache_load_hit events" \
		"perf trace -a -e 'ccache:*' during eviction: ccache_store events"
elif ! $PERF version > /dev/null 2>&1; then
	tap_result 1 "perf runs in the guest"
	$PERF version 2>&1 | sed 's/^/#   /'
else
	echo "# $($PERF version)"
	# shellcheck disable=SC2086
	cc_evict $files
	# one command's events: the hits happen in the reader
	$PERF trace -e 'ccache:*' -o /tmp/trace1 -- \
		sh -c "'$CCFILE' verify $files > /tmp/verify.out 2>&1; echo \$? > /tmp/verify.rc" \
		> /tmp/perf1.out 2>&1
	st=$?
	tap_result $st "perf trace -e 'ccache:*' -- a re-read: exits 0"
	[ $st -eq 0 ] || sed 's/^/#   /' /tmp/perf1.out
	check_eq "the re-read under perf trace matches the model" \
		"$(cat /tmp/verify.rc 2>/dev/null)" 0
	grep -m 3 'ccache:' /tmp/trace1 | sed 's/^/# /'
	echo "# $(grep -c 'ccache:ccache_load_hit' /tmp/trace1) ccache_load_hit events" \
		"of $(lines /tmp/trace1) lines"
	# "... ccache:ccache_load_hit(dev: D, ino: I, index: X, nr: N)"
	# shellcheck disable=SC2016 # an awk program
	check "perf trace showed ccache_load_hit events for the set (inodes $inos)" \
		awk -v inos=" $inos" '
			/ccache:ccache_load_hit\(/ && match($0, /ino: [0-9]+/) &&
			index(inos, " " substr($0, RSTART + 5, RLENGTH - 5) " ") { found = 1 }
			END { exit !found }' /tmp/trace1
	# system-wide: pages are stored by kernel threads, not the workload
	# shellcheck disable=SC2086
	$PERF trace -a -e 'ccache:*' -o /tmp/trace2 -- \
		"$CCFILE" evict $files > /tmp/perf2.out 2>&1
	st=$?
	tap_result $st "perf trace -a -e 'ccache:*' during eviction: exits 0"
	[ $st -eq 0 ] || sed 's/^/#   /' /tmp/perf2.out
	grep -o 'ccache:ccache_[a-z_]*' /tmp/trace2 | sort | uniq -c | sed 's/^/# /'
	check "perf trace -a showed ccache_store events" \
		grep -q 'ccache:ccache_store(' /tmp/trace2
fi

# ---- flush, then "Remove it" ----
out=$($CTL flush 2>&1)
check_eq "ccachectl flush exits 0" $? 0
echo "# $out"
check_eq "stored_pages is 0 after flush" "$(cc_stat stored_pages)" 0
# shellcheck disable=SC2086
run_check "the set matches after flush" "$CCFILE" verify $files
cd / || exit 1
check "modprobe -r ccache" /sbin/modprobe -r ccache
check_fails "ccache is unloaded" test -d /sys/module/ccache
if [ -f $N/package.skip ]; then
	skip_checks package "dpkg -r ccache-dkms (on the host) exits 0" \
		"dpkg -r left no module, no DKMS entry, no ccachectl"
else
	check_eq "dpkg -r ccache-dkms (on the host) exits 0" "$(cat $N/remove.status)" 0
	sed 's/^/# dpkg -r: /' $N/remove.log
	check_eq "dpkg -r left no module, no DKMS entry, no ccachectl" \
		"$(cat $N/remove.left)" ""
fi
if [ -n "$missing" ] && [ "$tap_failed" -eq 0 ]; then
	echo "1..$tap_n"
	echo "# SKIP: the walk-through is incomplete, the host could not provide:$missing"
	exit 4
fi
tap_done
