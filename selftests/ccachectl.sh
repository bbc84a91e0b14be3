#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/ccachectl (boot.sh puts it at /usr/sbin/ccachectl) against the real
# module: status and --json agree with the statistics after pages were
# evicted into ccache, set writes a good value and refuses a bad one,
# watch prints rates while a re-read is served, flush empties the store
# through the module's flush file and leaves the page cache alone, and an
# unprivileged user can read but not write.  The host test
# host/ccachectl.sh checks the corner cases against a fake tree.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=180
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/progs/cctest.sh
. ./progs/cctest.sh

CTL=/usr/sbin/ccachectl
P=/sys/module/ccache/parameters
[ -x $CTL ] || tap_skip_all "no $CTL in this guest"
[ -d /mnt/d0 ] || tap_skip_all "no data disk at /mnt/d0"

# show COMMAND...: run it, its output as TAP comments; its exit status
show() {
	out=$("$@" 2>&1)
	st=$?
	printf '%s\n' "$out" | sed 's/^/# /'
	return $st
}

# has PATTERN: the output $out has a line matching PATTERN (grep -E)
# shellcheck disable=SC2317 # called through check
has() {
	printf '%s\n' "$out" | grep -Eq "$1"
}

# col HEADER: the value under HEADER in the status table $out (the first
# table that has HEADER)
col() {
	printf '%s\n' "$out" | awk -v h="$1" '
		{ for (i = 1; i <= NF; i++) if ($i == h) { getline; print $i; exit } }'
}

# ---- before the module is loaded ----
out=$($CTL status 2>&1)
check_eq "not loaded: status exits 1" $? 1
check "not loaded: status says so" has 'ccache is not loaded'
check "not loaded: --version says so" \
	sh -c "$CTL --version | grep -q 'module not loaded'"

# ---- pages in the store ----
# shellcheck disable=SC2119 # no module options
cc_start
dir=/mnt/d0/ctl
mkdir -p "$dir"
files="$dir/f1 $dir/f2 $dir/f3 $dir/f4"
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "create 4 x 8 MiB of compressible data" cc_create 8M $files
check "empty page cache and store" cc_empty_store
# shellcheck disable=SC2086 # a list of paths without spaces
run_check "cold pass matches the model" "$CCFILE" verify -m read $files
# shellcheck disable=SC2086
cc_evict $files
stored=$(cc_stat stored_pages)
check_gt "pages are stored" "$stored" 0

# ---- status ----
show $CTL status
check_eq "status exits 0" $? 0
check_eq "status: stored pages" "$(col STORED)" "$(cc_stat stored_pages)"
check_eq "status: captures" "$(col CAPTURES)" "$(cc_stat captures)"
check_eq "status: compressor" "$(col COMPRESSOR)" "$(cat $P/compressor)"
check_eq "status: offload backend" "$(col OFFLOAD)" "$(cat $P/offload)"
check_eq "status: enabled" "$(col ENABLED)" yes
ratio=$(col RATIO)
check "status: a compression ratio above 1 ($ratio)" \
	awk -v r="$ratio" 'BEGIN { exit !(r + 0 > 1) }'
check "status: a pool limit" test -n "$(col POOL-LIMIT)"

# ---- status --json (no python in the guest: a line-by-line check) ----
show $CTL status --json
check_eq "status --json exits 0" $? 0
json=$out
check "json: stored_pages is a number" has "^  \"stored_pages\": $(cc_stat stored_pages),\$"
check "json: enabled is true" has '^  "enabled": true,$'
# every line is a brace, or "key": a number, string, literal or opening brace
bad=$(printf '%s\n' "$json" | grep -Ecv '^ *(\{|\},?|"[a-z0-9_-]+": (-?[0-9]+(\.[0-9]+)?|"[^"]*"|true|false|null|\{),?)$')
check_eq "json: every line is well-formed" "$bad" 0
check_eq "json: braces balance" \
	"$(printf '%s\n' "$json" | tr -cd '{' | wc -c)" \
	"$(printf '%s\n' "$json" | tr -cd '}' | wc -c)"

# ---- set ----
show $CTL set max_pool_percent=30
check_eq "set max_pool_percent=30 exits 0" $? 0
check_eq "max_pool_percent is 30" "$(cat $P/max_pool_percent)" 30
show $CTL set max_pool_percent=500
check_eq "set max_pool_percent=500 exits 1" $? 1
check "set max_pool_percent=500 names the range" has 'from 1 to 90'
check_eq "max_pool_percent is still 30" "$(cat $P/max_pool_percent)" 30
show $CTL set compressor=nosuchalg
check_eq "set compressor=nosuchalg exits 1" $? 1
check_eq "compressor unchanged" "$(cat $P/compressor)" lzo
# lz4 is a module nobody loaded yet: ccachectl finds it in modules.alias
show $CTL set compressor=lz4 accept_threshold_percent=80
check_eq "set compressor=lz4 accept_threshold_percent=80 exits 0" $? 0
check_eq "compressor is lz4" "$(cat $P/compressor)" lz4
check_eq "accept_threshold_percent is 80" "$(cat $P/accept_threshold_percent)" 80
check "set compressor=lzo back" $CTL set compressor=lzo

# ---- watch while a re-read is served ----
cc_snap watch
# shellcheck disable=SC2086
"$CCFILE" verify -m read $files > /tmp/verify.out 2>&1 &
reader=$!
show $CTL watch -n 2 -i 1
check_eq "watch -n 2 -i 1 exits 0" $? 0
watch_out=$out
wait $reader
st=$?
tap_result $st "warm pass matches the model"
[ $st -eq 0 ] || sed 's/^/#   /' /tmp/verify.out
hits=$(cc_delta watch hits)
check_gt "the warm pass was served by ccache" "$hits" 0
check_eq "watch: a header and two lines" "$(printf '%s\n' "$watch_out" | wc -l)" 3
check_eq "watch: every rate is a number" \
	"$(printf '%s\n' "$watch_out" | awk 'NR > 1 && $2 $3 $4 $6 ~ /^[0-9]+$/ && $5 ~ /^[-+][0-9]+$/' | wc -l)" 2
rate=$(printf '%s\n' "$watch_out" | awk 'NR > 1 { n += $3 } END { print n + 0 }')
echo "# $hits hits during the watch, HITS/s adds up to $rate"
# each interval is at least a second; /proc/uptime counts in 10 ms steps
check_le "watch: no more hits per second than there were hits" \
	"$rate" $((hits * 21 / 20 + 1))

# ---- flush: through the module's flush file, the page cache kept ----
# shellcheck disable=SC2086
cc_evict $files
check_gt "pages are stored before flush" "$(cc_stat stored_pages)" 0
run_check "read f1 back into the page cache" "$CCFILE" verify "$dir/f1"
show $CTL flush
check_eq "flush exits 0" $? 0
check "flush wrote the module's flush file" has '/sys/kernel/mm/ccache/flush'
check_eq "stored_pages is 0 after flush" "$(cc_stat stored_pages)" 0
check_eq "capturing is on" "$(cat $P/enabled)" Y
# ccfile resident: "FILE CACHED/TOTAL"
cached=$("$CCFILE" resident "$dir/f1" | awk 'NR == 1 { split($2, r, "/"); print r[1] }')
check_gt "f1 is still in the page cache" "${cached:-0}" 0

# ---- as an unprivileged user ----
if [ ! -e /etc/passwd ]; then
	echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
	echo 'nogroup:x:65534:' > /etc/group
fi
# shellcheck disable=SC2016 # expanded by nobody's shell
if su -s /bin/sh nobody -c 'test "$(id -u)" = 65534' 2>/dev/null; then
	show su -s /bin/sh nobody -c "$CTL status"
	check_eq "as nobody: status exits 0" $? 0
	check "as nobody: status shows the store" test -n "$(col STORED)"
	check "as nobody: status --json" su -s /bin/sh nobody -c "$CTL status --json"
	show su -s /bin/sh nobody -c "$CTL set max_pool_percent=40"
	check_eq "as nobody: set exits 1" $? 1
	check "as nobody: set says it needs root" has 'needs root'
	check_eq "as nobody: max_pool_percent unchanged" "$(cat $P/max_pool_percent)" 30
else
	for t in "status exits 0" "status shows the store" "status --json" \
		"set exits 1" "set says it needs root" "max_pool_percent unchanged"; do
		tap_skip "as nobody: $t" "su cannot switch to nobody here"
	done
fi

# ---- version, unload ----
check_eq "--version names the module's version" "$($CTL --version | tail -n 1)" \
	"ccache module $(cat /sys/kernel/mm/ccache/version)"
cd / || exit 1
check "unmount" umount /mnt/d0
check "rmmod" /sbin/rmmod ccache
check_fails "after rmmod: status fails" $CTL status
tap_done
