#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tools/ccachectl (boot.sh puts it at /usr/sbin/ccachectl) against the real
# module, whose names it takes from sysfs: status and --json agree with
# the statistics after pages were evicted into ccache and show every
# statistic, knob and offload backend the module has; set writes good
# values, leaves every knob as it was when the module refuses one
# (putting back those it already wrote) and shows the kernel's reason
# and modinfo's description; watch prints rates while a re-read is
# served; flush empties the store through the module's flush file and
# leaves the page cache alone; an unprivileged user can read neither
# the statistics nor the offload counters (mode 0400), sees the knobs in
# status and cannot write; bad usage exits 2.
# VM: mem=192 cpus=2 disk=ext4:512M timeout=240
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
for cmd in status "status --json" "watch -n 1" "set max_pool_percent=30" flush; do
	# shellcheck disable=SC2086 # a command and its arguments
	out=$($CTL $cmd 2>&1)
	check_eq "not loaded: $cmd exits 1" $? 1
	check "not loaded: $cmd says so" has 'ccache is not loaded'
done
check "not loaded: --version says so" \
	sh -c "$CTL --version | grep -q 'module not loaded'"

# ---- bad usage: exit 2 ----
for cmd in frobnicate "status --frob" "watch -i 0 -n 1" "watch -i abc -n 1" \
	"watch -n x" "watch -n 0" "watch -n" set "set max_pool_percent"; do
	# shellcheck disable=SC2086 # a command and its arguments
	out=$($CTL $cmd 2>&1)
	check_eq "usage: $cmd exits 2" $? 2
	check "usage: $cmd points to --help" has 'see ccachectl --help'
done
out=$($CTL --help)
check "--help describes the knobs from modinfo" has '^  max_pool_percent: .*1-90'

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
check "status: a pool target" test -n "$(col POOL-TARGET)"
# REJECTED, then one column per reject_* file
check_eq "status: a column for every reject_* file" \
	"$(printf '%s\n' "$out" | awk '/^REJECTED/ { print NF - 1 }')" \
	"$(find /sys/kernel/mm/ccache -maxdepth 1 -name 'reject_*' | wc -l)"
check_fails "status: no trailing blanks" has ' $'

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
# the numbers masked: rates and the sizing target may move in between
check_eq "--json alone is status --json" "$($CTL --json | sed 's/[0-9][0-9]*/N/g')" \
	"$(printf '%s\n' "$json" | sed 's/[0-9][0-9]*/N/g')"

# json_keys OBJECT: the keys of the top-level OBJECT of $json, sorted,
# on one line
json_keys() {
	printf '%s\n' "$json" | awk -v o="\"$1\": {" '
		index($0, o) == 3 { on = 1; next }
		on && /^  \}/ { exit }
		on && /^    "/ { split($0, k, "\""); print k[2] }' |
		LC_ALL=C sort | tr '\n' ' '
}
# names DIR FIND-TEST...: the names of the entries of DIR that pass the
# find tests, sorted, on one line
names() {
	d=$1
	shift
	find "$d" -mindepth 1 -maxdepth 1 "$@" -exec basename {} \; |
		LC_ALL=C sort | tr '\n' ' '
}
S=/sys/kernel/mm/ccache
check_eq "json: statistics are the module's readable files but version" \
	"$(json_keys statistics)" "$(names $S -type f -perm -0400 ! -name version)"
check_eq "json: parameters are the module's knobs" \
	"$(json_keys parameters)" "$(names $P -type f)"
check_eq "json: offload_backends are the module's" \
	"$(json_keys offload_backends)" "$(names $S/offload -type d)"
check_fails "json: a write-only file is no statistic" has '"flush"'
check "json: a pool limit" has '^  "pool_limit_bytes": [0-9]+,$'
check "json: a pool target" has '^  "pool_target_bytes": [0-9]+,$'

# ---- set ----
show $CTL set max_pool_percent=30
check_eq "set max_pool_percent=30 exits 0" $? 0
check_eq "max_pool_percent is 30" "$(cat $P/max_pool_percent)" 30
show $CTL set max_pool_percent=500
check_eq "set max_pool_percent=500 exits 1" $? 1
check "set max_pool_percent=500: the kernel's reason" has 'from 1 to 90'
check "set max_pool_percent=500: modinfo's description" has '^  max_pool_percent: '
check_eq "max_pool_percent is still 30" "$(cat $P/max_pool_percent)" 30

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

# ---- set: what the module refuses changes nothing ----
# state: every knob, to see that nothing changed
state() {
	grep -r . $P | sort
}
# refused VALUE...: set VALUE... (one argument each, "|" between them)
# fails and changes no knob (three checks)
refused() {
	before=$(state)
	IFS='|'
	# shellcheck disable=SC2086 # arguments apart at "|"
	set -- $1
	unset IFS
	out=$($CTL set "$@" 2>&1)
	check_eq "set $*: refused" $? 1
	printf '%s\n' "$out" | sed 's/^/#   /'
	check "set $*: says why" has '(the kernel refused|unknown knob)'
	check_eq "set $*: no knob changed" "$(state)" "$before"
}
for bad in max_pool_percent=-1 max_pool_percent=0 max_pool_percent=91 \
	max_pool_percent=99999999999 max_pool_percent=abc max_pool_percent= \
	max_pool_percent=1.5 'max_pool_percent=3 0' accept_threshold_percent=101 \
	enabled=maybe enabled= compressor=nosuchalg compressor= compressor=LZO \
	compressor=../lzo offload=gpu offload= offload_batch=0 offload_batch=1025 \
	offload_sched=fast offload_cpus=7 offload_cpus=1-0 offload_cpus=x \
	filesystems=btrfs filesystems=ext4,,xfs nosuch=1 ../parameters/enabled=0 \
	'max_pool_percent=40|offload_batch=0' 'offload=inline|compressor=lz4'; do
	refused "$bad"
done
check "set nosuch=1: names the knobs" \
	sh -c "$CTL set nosuch=1 2>&1 | grep -q 'knobs: .*max_pool_percent'"
check "set max_pool_percent=40 offload_batch=0: names offload_batch" \
	sh -c "$CTL set max_pool_percent=40 offload_batch=0 2>&1 | grep -q 'refused offload_batch=0'"

# inline compresses with lzo and lzo-rle only: the order matters
check "set compressor=lz4 (a module nobody loaded yet)" $CTL set compressor=lz4
refused offload=inline
check "set compressor=lzo offload=inline" $CTL set compressor=lzo offload=inline
check_eq "offload is inline" "$(cat $P/offload)" inline
check "set offload=cpu compressor=lz4 accept_threshold_percent=80" \
	$CTL set offload=cpu compressor=lz4 accept_threshold_percent=80
check_eq "compressor is lz4" "$(cat $P/compressor)" lz4
check_eq "accept_threshold_percent is 80" "$(cat $P/accept_threshold_percent)" 80

for good in max_pool_percent=1 max_pool_percent=90 max_pool_percent=030 \
	accept_threshold_percent=0 accept_threshold_percent=100 enabled=0 \
	enabled=on enabled=Y offload=acomp-async offload=cpu offload_batch=1 \
	offload_batch=1024 offload_sched=nice offload_sched=idle offload_cpus=1 \
	offload_cpus=0-1 offload_cpus=all filesystems=xfs filesystems=none \
	filesystems=ext4,xfs compressor=lzo max_pool_percent=30 \
	accept_threshold_percent=90 offload_batch=16; do
	show $CTL set "$good"
	check_eq "set $good: taken" $? 0
done

# ---- as an unprivileged user ----
if [ ! -e /etc/passwd ]; then
	echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
	echo 'nogroup:x:65534:' > /etc/group
fi
# shellcheck disable=SC2016 # expanded by nobody's shell
if su -s /bin/sh nobody -c 'test "$(id -u)" = 65534' 2>/dev/null; then
	check_fails "as nobody: a statistic cannot be read" \
		su -s /bin/sh nobody -c "cat $S/compressed_bytes"
	check_fails "as nobody: an offload counter cannot be read" \
		su -s /bin/sh nobody -c "cat $S/offload/cpu/completed"
	check "as nobody: the version can" \
		su -s /bin/sh nobody -c "cat $S/version"
	show su -s /bin/sh nobody -c "$CTL status"
	check_eq "as nobody: status exits 0" $? 0
	check_eq "as nobody: status shows the compressor" \
		"$(col COMPRESSOR)" "$(cat $P/compressor)"
	check "as nobody: status shows the pool limit" test -n "$(col POOL-LIMIT)"
	check "as nobody: status says the statistics are root's" \
		has '^statistics: readable by root only'
	check_fails "as nobody: status shows no made-up figure" has '^STORED'
	show su -s /bin/sh nobody -c "$CTL status --json"
	check_eq "as nobody: status --json exits 0" $? 0
	check "as nobody: json: hits unknown (null)" has '^  "hits": null,$'
	check "as nobody: json: the knobs" has '^  "compressor": "'
	show su -s /bin/sh nobody -c "$CTL watch -n 1"
	check_eq "as nobody: watch exits 1" $? 1
	check "as nobody: watch says it needs root" has 'needs root'
	show su -s /bin/sh nobody -c "$CTL set max_pool_percent=40"
	check_eq "as nobody: set exits 1" $? 1
	check "as nobody: set says it needs root" has 'needs root'
	check_eq "as nobody: max_pool_percent unchanged" "$(cat $P/max_pool_percent)" 30
else
	for t in "a statistic cannot be read" "an offload counter cannot be read" \
		"the version can" "status exits 0" "status shows the compressor" \
		"status shows the pool limit" \
		"status says the statistics are root's" \
		"status shows no made-up figure" "status --json exits 0" \
		"json: hits unknown (null)" "json: the knobs" "watch exits 1" \
		"watch says it needs root" \
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
