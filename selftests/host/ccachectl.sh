#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tools/ccachectl against a fake tree of statistics, knobs and /proc files
# (CCACHE_SYSFS, CCACHE_PARAMS, CCACHE_PROC, CCACHE_CPU_SYSFS): status
# shows the right numbers, --json is valid JSON, set refuses bad values
# without writing anything and writes good ones, watch computes rates,
# flush writes the module's flush file (through drop_caches with an older
# module that has none), and a missing module is reported.  The guest
# test selftests/ccachectl.sh runs it against the real module.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh

top=$(mktemp -d "${TMPDIR:-/tmp}/ccachectl-test.XXXXXX")
trap 'rm -rf "$top"' EXIT
chmod 755 "$top"	# readable by the unprivileged user below
cp tools/ccachectl "$top/ccachectl"
ctl=$top/ccachectl
S=$top/sys/kernel/mm/ccache
P=$top/sys/module/ccache/parameters
export CCACHE_SYSFS=$S CCACHE_PARAMS=$P CCACHE_PROC=$top/proc \
	CCACHE_CPU_SYSFS=$top/sys/devices/system/cpu

# put FILE VALUE: one value per file, as sysfs shows it
put() {
	mkdir -p "$(dirname "$1")"
	echo "$2" > "$1"
}

# a module with 3072 pages stored (12 MiB in 4 MiB), 900 hits and 100
# misses, 105 rejections, on a machine of 1 GiB
fake_tree() {
	rm -rf "$top/sys" "$top/proc"
	put "$S/version" 0.1.0
	while read -r name value; do
		put "$S/$name" "$value"
	done <<-EOF
		stored_pages 3072
		original_bytes 12582912
		compressed_bytes 4194304
		mem_used_bytes 5242880
		hits 900
		misses 100
		captures 5000
		capture_ns 123456
		reject_poor_compression 10
		reject_staging_full 20
		reject_offload 30
		reject_pool_limit 40
		reject_alloc_failure 5
		reject_policy 0
		invalidations 7
		lru_evictions 0
		shrinker_frees 0
		same_filled_pages 12
		decompress_errors 0
		compression_ratio_permille 333
		captures_per_sec 0
	EOF
	for b in inline cpu acomp-async; do
		for c in submitted completed failed dropped queued max_queue_depth \
			compress_ns decompress_ns; do
			put "$S/offload/$b/$c" 0
		done
	done
	put "$S/offload/cpu/submitted" 4000
	# write-only, as the module makes it
	put "$S/flush" ''
	chmod 200 "$S/flush"
	while read -r name value; do
		put "$P/$name" "$value"
	done <<-EOF
		enabled Y
		compressor lzo
		max_pool_percent 20
		accept_threshold_percent 90
		offload cpu
		offload_cpus all
		offload_batch 16
		offload_sched idle
		filesystems ext4,xfs
	EOF
	put "$top/proc/meminfo" "MemTotal:        1048576 kB"
	echo "MemFree:          524288 kB" >> "$top/proc/meminfo"
	for alg in lzo:scomp lz4:scomp zstd:scomp deflate:acomp aes:cipher \
		compress_null:compression; do
		printf 'name         : %s\ndriver       : %s-generic\ninternal     : no\ntype         : %s\n\n' \
			"${alg%:*}" "${alg%:*}" "${alg#*:}"
	done > "$top/proc/crypto"
	put "$top/proc/sys/vm/drop_caches" 0
	put "$top/sys/devices/system/cpu/possible" 0-3
	put "$top/sys/devices/system/cpu/online" 0-1
}

# state: every knob, to see that nothing changed
state() {
	grep -r . "$P" | sort
}

fake_tree

# ---- status ----
out=$("$ctl" status 2>&1)
status=$?
check_eq "status exits 0" "$status" 0
printf '%s\n' "$out" | sed 's/^/# /'
# col HEADER [TABLE]: the value under HEADER in the first table that has
# it, or in table TABLE (1, 2, 3: they are apart by empty lines)
col() {
	awk -v h="$1" -v t="${2:-0}" '
		/^$/ { n++; next }
		t && n + 1 != t { next }
		{ for (i = 1; i <= NF; i++) if ($i == h) { getline; print $i; exit } }' <<< "$out"
}
check_eq "status: compressor" "$(col COMPRESSOR)" lzo
check_eq "status: offload backend" "$(col OFFLOAD)" cpu
check_eq "status: enabled" "$(col ENABLED)" yes
check_eq "status: pool used" "$(col POOL-USED)" 5M
# 20% of 262144 pages, 52428 pages of 4 KiB
check_eq "status: pool limit" "$(col POOL-LIMIT)" 204.8M
check_eq "status: pool use" "$(col POOL-USE)" 2.4%
check_eq "status: stored pages" "$(col STORED)" 3072
check_eq "status: original size" "$(col ORIGINAL)" 12M
check_eq "status: compressed size" "$(col COMPRESSED)" 4M
check_eq "status: ratio" "$(col RATIO)" 3.00
check_eq "status: hit ratio" "$(col HIT-RATIO)" 90.0%
check_eq "status: captures" "$(col CAPTURES)" 5000
check_eq "status: rejections in total" "$(col REJECTED)" 105
check_eq "status: rejected for the pool limit" "$(col POOL-LIMIT 3)" 40
check_eq "status: rejected by the offload backend" "$(col OFFLOAD 3)" 30
check_eq "status: rejected for poor compression" "$(col POOR-COMPRESSION 3)" 10
check_eq "status: every reject_* file is shown" \
	"$(awk '/^REJECTED/ { print NF - 1 }' <<< "$out")" 6
check_fails "status: no trailing blanks" grep -q " $" <<< "$out"
check_eq "no command is status" "$("$ctl" 2>&1)" "$out"

# a new reject_* file is shown without a change to the tool
put "$S/reject_new_reason" 3
out=$("$ctl" status 2>&1)
check_eq "status: a new rejection reason is shown" "$(col NEW-REASON 3)" 3
check_eq "status: and counted" "$(col REJECTED)" 108
rm "$S/reject_new_reason"

# ---- status --json ----
json=$("$ctl" status --json 2>&1)
check_eq "status --json exits 0" $? 0
printf '%s\n' "$json" | sed 's/^/# /'
if command -v python3 > /dev/null; then
	check "status --json is valid JSON" python3 -m json.tool <<< "$json"
	jget() {
		python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = v[k]
print(json.dumps(v))' "$1" <<< "$json"
	}
	check_eq "json: stored_pages is the number 3072" "$(jget stored_pages)" 3072
	check_eq "json: hit_ratio" "$(jget hit_ratio)" 0.9
	check_eq "json: ratio" "$(jget ratio)" 3.0
	check_eq "json: pool_limit_bytes" "$(jget pool_limit_bytes)" 214745088
	check_eq "json: enabled is true" "$(jget enabled)" true
	check_eq "json: compressor is a string" "$(jget compressor)" '"lzo"'
	check_eq "json: rejections" "$(jget rejections)" 105
	check_eq "json: rejected.staging_full" "$(jget rejected.staging_full)" 20
	check_eq "json: offload backend counters" "$(jget offload_backends.cpu.submitted)" 4000
	check_eq "json: a knob" "$(jget parameters.max_pool_percent)" 20
else
	tap_skip "status --json is valid JSON" "no python3 on this host"
fi
check "json: numbers are numbers" grep -q '"stored_pages": 3072,' <<< "$json"
check_fails "json: the flush file is no statistic" grep -q flush <<< "$json"
check "json: --json alone works" cmp -s <("$ctl" --json) <(printf '%s\n' "$json")

# the guests run busybox sh and busybox awk: the same output there
bb=$(command -v busybox || true)
if [[ -n $bb ]]; then
	mkdir -p "$top/bb"
	for a in awk sh sort tr sed grep dd id date sleep cat uname; do
		ln -sf "$bb" "$top/bb/$a"
	done
	check_eq "busybox sh and awk: same status" \
		"$(PATH=$top/bb:$PATH "$bb" sh "$ctl" status 2>&1)" "$("$ctl" status 2>&1)"
	check_eq "busybox sh and awk: same JSON" \
		"$(PATH=$top/bb:$PATH "$bb" sh "$ctl" status --json 2>&1)" "$json"
else
	tap_skip "busybox sh and awk: same status" "no busybox on this host"
	tap_skip "busybox sh and awk: same JSON" "no busybox on this host"
fi

# ---- set: bad values are refused, with one line, and nothing is written ----
before=$(state)
for bad in max_pool_percent=-1 max_pool_percent=500 max_pool_percent=0 \
	max_pool_percent=91 max_pool_percent=99999999999 max_pool_percent=abc \
	max_pool_percent= max_pool_percent=1.5 'max_pool_percent=3 0' \
	accept_threshold_percent=101 accept_threshold_percent=-1 \
	enabled=maybe enabled= enabled=yes compressor=nosuchalg compressor= \
	compressor=LZO compressor=aes compressor=compress_null compressor=../lzo offload=gpu offload= \
	offload_batch=0 offload_batch=1025 offload_sched=fast offload_sched= \
	offload_cpus=7 offload_cpus=2-3 offload_cpus=1-0 offload_cpus=x \
	offload_cpus= filesystems= filesystems=btrfs filesystems=ext4,,xfs 'filesystems=ext4, xfs' \
	'filesystems=ext4,' nosuch=1 max_pool_percent 'max_pool_percent=30|offload_batch=0'; do
	IFS='|' read -ra args <<< "$bad"	# arguments apart
	err=$("$ctl" set "${args[@]}" 2>&1 >/dev/null)
	status=$?
	[[ $status -ne 0 ]]
	tap_result $? "set ${args[*]}: refused"
	[[ $status -ne 0 ]] || continue
	echo "#   $err"
	check_eq "set $bad: one line of explanation" "$(wc -l <<< "$err")" 1
	check_eq "set $bad: no knob changed" "$(state)" "$before"
done
err=$("$ctl" set max_pool_percent=500 2>&1)
check "set max_pool_percent=500: names the range" grep -q "from 1 to 90" <<< "$err"
err=$("$ctl" set offload=gpu 2>&1)
check "set offload=gpu: names the backends" \
	grep -q "inline" <<< "$err"
err=$("$ctl" set compressor=nosuchalg 2>&1)
check "set compressor=nosuchalg: names the compressors" \
	grep -Eq "available: (.* )?lz4 (.* )?lzo (.* )?zstd" <<< "$err"
err=$("$ctl" set nosuch=1 2>&1)
check "set nosuch=1: names the knobs" grep -q "max_pool_percent" <<< "$err"
check_fails "set without arguments fails" "$ctl" set

# inline compresses with lzo and lzo-rle only, in either order of setting
put "$P/offload" inline
before=$(state)
check_fails "offload=inline: set compressor=lz4 refused" "$ctl" set compressor=lz4
put "$P/offload" cpu
put "$P/compressor" lz4
check_fails "compressor=lz4: set offload=inline refused" "$ctl" set offload=inline
check "compressor=lz4: set compressor=lzo offload=inline taken" \
	"$ctl" set compressor=lzo offload=inline
check_eq "offload is inline" "$(cat "$P/offload")" inline
check "offload=inline: set offload=cpu compressor=zstd taken" \
	"$ctl" set offload=cpu compressor=zstd
check_eq "compressor is zstd" "$(cat "$P/compressor")" zstd

# ---- set: good values are written ----
for good in max_pool_percent=30 max_pool_percent=1 max_pool_percent=90 \
	max_pool_percent=030 accept_threshold_percent=0 accept_threshold_percent=100 \
	enabled=0 enabled=on enabled=Y compressor=lz4 compressor=deflate \
	offload=acomp-async offload=cpu offload_batch=1 offload_batch=1024 \
	offload_sched=nice offload_sched=idle offload_cpus=0-1 offload_cpus=1,3 \
	offload_cpus=0-3:1/2 offload_cpus=all filesystems=xfs filesystems=none \
	filesystems=xfs,ext4; do
	out=$("$ctl" set "$good" 2>&1)
	status=$?
	check_eq "set $good: taken" "$status" 0
	check_eq "set $good: written" "$(cat "$P/${good%%=*}")" "${good#*=}"
	[[ $status -eq 0 ]] || echo "#   $out"
done
check "set of three knobs at once" "$ctl" set max_pool_percent=40 \
	accept_threshold_percent=80 offload_batch=32
check_eq "three knobs written" \
	"$(cat "$P/max_pool_percent" "$P/accept_threshold_percent" "$P/offload_batch" | tr '\n' ' ')" \
	"40 80 32 "

# a knob the kernel refuses anyway: a directory cannot be written
rm "$P/offload_batch"
mkdir "$P/offload_batch"
err=$("$ctl" set offload_batch=8 2>&1)
status=$?
check_eq "a write the kernel refuses: exit 1" "$status" 1
echo "#   $err"
check "a write the kernel refuses: says so" grep -q "refused offload_batch=8" <<< "$err"
rmdir "$P/offload_batch"
put "$P/offload_batch" 16

# ---- watch ----
out=$("$ctl" watch -n 2 -i 0.1 2>&1)
check_eq "watch -n 2 -i 0.1 exits 0" $? 0
printf '%s\n' "$out" | sed 's/^/# /'
check_eq "watch -n 2: a header and two lines" "$(wc -l <<< "$out")" 3
check "watch: header names the rates" grep -q "HITS/s" <<< "$out"
check_eq "watch: rates of unchanged counters are 0" \
	"$(awk 'NR > 1 { print $2, $3, $4, $5, $6, $7, $8 }' <<< "$out" | sort -u)" \
	"0 0 0 +0 0 0B 3072"

# 1000 hits and 400 captures between samples a second apart: whichever
# interval takes them, the rates add up to about 1000 and 400 per second
"$ctl" watch -i 1 -n 2 > "$top/watch.out" 2>&1 &
watcher=$!
sleep 1.5
put "$S/hits" 1900
put "$S/captures" 5400
wait "$watcher"
check_eq "watch -i 1 -n 2 exits 0" $? 0
sed 's/^/# /' "$top/watch.out"
rates=$(awk 'NR > 1 { c += $2; h += $3 } END { print c, h }' "$top/watch.out")
check "watch: about 1000 hits per second (got ${rates#* })" \
	test "${rates#* }" -ge 800 -a "${rates#* }" -le 1100
check "watch: about 400 captures per second (got ${rates% *})" \
	test "${rates% *}" -ge 320 -a "${rates% *}" -le 440
check "watch: disk reads saved, about 3.9M/s" \
	grep -Eq ' 3\.[5-9]M ' "$top/watch.out"
check_fails "watch -i 0 refused" "$ctl" watch -i 0 -n 1
check_fails "watch -i abc refused" "$ctl" watch -i abc -n 1
check_fails "watch -n x refused" "$ctl" watch -n x
check_fails "watch -n 0 refused" "$ctl" watch -n 0
check_fails "watch -n without a count refused" "$ctl" watch -n

# ---- flush ----
# the module's flush file: written once, nothing else touched
put "$S/stored_pages" 3072
put "$P/enabled" Y
out=$("$ctl" flush 2>&1)
check_eq "flush exits 0" $? 0
echo "# $out"
check_eq "flush wrote 1 to the flush file" "$(cat "$S/flush")" 1
check_eq "flush left drop_caches alone" "$(cat "$top/proc/sys/vm/drop_caches")" 0
check_eq "flush left capturing alone" "$(cat "$P/enabled")" Y
check "flush reports the pages dropped" grep -q "flushed 3072 .*flush;" <<< "$out"
# a write that fails (root passes any mode: a directory refuses it)
rm "$S/flush"
mkdir "$S/flush"
err=$("$ctl" flush 2>&1)
check_eq "a refused flush: exit 1" $? 1
check "a refused flush: says so" grep -q "cannot write $S/flush" <<< "$err"
rmdir "$S/flush"

# an older module, without the flush file: drop_caches; the fake kernel
# empties the store once drop_caches is written
put "$S/stored_pages" 3072
(
	for _ in $(seq 100); do
		if [[ $(cat "$top/proc/sys/vm/drop_caches") == 1 ]]; then
			cat "$P/enabled" > "$top/enabled-at-drop"
			put "$S/stored_pages" 0
			exit
		fi
		sleep 0.05
	done
) &
fake=$!
put "$P/enabled" Y
out=$("$ctl" flush 2>&1)
check_eq "older module: flush exits 0" $? 0
echo "# $out"
wait "$fake"
check_eq "older module: flush wrote 1 to drop_caches" "$(cat "$top/proc/sys/vm/drop_caches")" 1
check_eq "older module: flush paused capturing meanwhile" "$(cat "$top/enabled-at-drop" 2>&1)" 0
check_eq "older module: flush turned capturing back on" "$(cat "$P/enabled")" 1
check "older module: flush reports the pages dropped" grep -q "flushed 3072 .*drop_caches" <<< "$out"

# ---- as an unprivileged user: read, but no write ----
if [[ $(id -u) == 0 ]] && command -v setpriv > /dev/null; then
	nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	}
	fake_tree
	check "as nobody: status" nobody "$ctl" status
	before=$(state)
	err=$(nobody "$ctl" set max_pool_percent=30 2>&1)
	check_eq "as nobody: set fails" $? 1
	echo "#   $err"
	check "as nobody: set says it needs root" grep -q "needs root" <<< "$err"
	check_eq "as nobody: no knob changed" "$(state)" "$before"
	err=$(nobody "$ctl" flush 2>&1)
	check_eq "as nobody: flush fails" $? 1
	check "as nobody: flush says it needs root" grep -q "needs root" <<< "$err"
	check "as nobody: set still explains bad values" \
		nobody sh -c "$ctl set max_pool_percent=500 2>&1 | grep -q 'from 1 to 90'"
else
	for t in status "set fails" "set says it needs root" "no knob changed" \
		"flush fails" "flush says it needs root" "set still explains bad values"; do
		tap_skip "as nobody: $t" "not root or no setpriv"
	done
fi

# ---- no module ----
for cmd in status "status --json" "watch -n 1" "set max_pool_percent=30" flush; do
	# shellcheck disable=SC2086 # a command and its arguments
	err=$(CCACHE_SYSFS=$top/none "$ctl" $cmd 2>&1)
	check_eq "not loaded: $cmd exits 1" $? 1
	check "not loaded: $cmd says so" grep -q "ccache is not loaded" <<< "$err"
done
check_eq "not loaded: --version" "$(CCACHE_SYSFS=$top/none "$ctl" --version)" \
	"ccachectl 0.1.0
ccache module not loaded"
check_eq "--version names the module's version" "$("$ctl" --version | tail -n 1)" \
	"ccache module 0.1.0"
check "--help" sh -c "$ctl --help | grep -q 'set KEY=VALUE'"
check "-h" sh -c "$ctl -h | grep -q 'flush'"
err=$("$ctl" frobnicate 2>&1)
check_eq "an unknown command: exit 2" $? 2
check "an unknown command: says so" grep -q "unknown command" <<< "$err"
tap_done
