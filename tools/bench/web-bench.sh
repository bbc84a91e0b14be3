#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The web-serving and fio benchmark: ccache against the plain kernel and
# against dm-cache on zram on a disk-bound guest, every configuration
# repeated in fresh guests, one report with medians and verdicts.
#
#  1. Calibration: LZO throughput on the host (lzop over a sample of the
#     docset) and in three guests (ccache's compress_ns per page over the
#     same bytes, the median guest's); their ratio is how much slower the
#     TCG guest is, and the data disk models an AWS gp3 volume (125 MiB/s,
#     3000 IOPS) slowed by that factor.  Measured once per kernel release
#     and reused, so that runs on one machine are comparable
#     (--recalibrate measures it again).
#  2. Content, each about 2.2x the guest's RAM R in pages: the docset
#     profile (build-docset.sh: small web files, Zipf 0.8), the support
#     profile (build-docset.sh --profile support: downloads of 16 KiB to
#     4 MiB, Zipf 0.4, SPECweb2005 Support-like), and fio's files from the
#     docset's bytes: one file of 2R for 4 KiB random reads
#     (random_distribution=zipf:1.1), 16R files of 128 KiB read whole
#     (file_service_type=zipf:1.1).
#  3. Per configuration and repetition, one guest (web-bench.guest): nginx
#     and Apache (event MPM) serve the docset from the throttled ext4 disk
#     to webload (keep-alive sessions, every body's CRC32C checked), nginx
#     serves the support set, each followed by webload -V over a sample of
#     the files; then the two fio jobs.  Each data set is first read once
#     with the throttle raised to the rate a guest vCPU compresses at
#     (throttle.py, through QEMU's QMP socket), and paced so that ccache's
#     compressor keeps up.  Repetitions run
#     interleaved (A B C A B C ...) so that a slow spell of the host falls
#     on every configuration.
#  4. report.py: results.csv, plots and report.md in the output directory.
#
# With --cluster N, the docset is served by N guests behind HAProxy on the
# host instead (make bench-cluster, Documentation/admin-guide "Clusters"):
# each guest has its own throttled copy of the data disk, one vCPU and R
# of RAM (the disk throttled to the calibrated rate per vCPU of the
# single guest: one server has half its CPU, so half its disk, and keeps
# its balance of CPU and disk; --full-disk, the whole rate each, makes
# CPU-bound servers), and serves with nginx after the same prefill
# (web-bench.guest's wb_mode=serve) of the files its balancer sends it
# (with URI hashing its share, cl_shares below; with round-robin all),
# reached through QEMU's user networking on a loopback port; HAProxy runs the admin guide's recipe with round-robin or with
# consistent URI hashing, and webload, on the host, loads it (every body
# checked), then verifies a sample.  With URI hashing a last phase takes
# one server out of the backend and back in under load, and asks HAProxy
# which server each of a sample of URIs reaches before, while and after
# (cluster.py).  cluster-report.py writes the report.
#
# usage: web-bench.sh [--quick] [-r REPS] [-m RAM_MIB] [-z ZIPF] [-c CONNS]
#                     [-k REQS] [-s CONFIG,...] [-o DIR] [--recalibrate]
#                     [--verify-all] [--cluster N] [--full-disk] [-A TREE]
#                     [--profile]
#   --quick        plain kernel at R, ccache and dm-cache on zram at 40%
#                  of RAM, one repetition, short phases
#                  (about 10 minutes); else the full run (about 65)
#   -r REPS        repetitions of each configuration (default 3, --quick 1)
#   -m RAM_MIB     R, the guest's RAM (default 256)
#   -z ZIPF        the docset's Zipf exponent, 0.4-1.0 (default 0.8; the
#                  support profile's is 0.4)
#   -c CONNS       webload's connections (default 64)
#   -k REQS        requests per keep-alive session (default 100)
#   -s CONFIGS     only these configurations (names: -s help)
#   -o DIR         results directory (default: a new directory under
#                  ${CCDEV_CACHE:-~/.cache/ccache-dev}/bench/runs)
#   --recalibrate  measure the calibration even when one is cached
#   --verify-all   verify every file of the docset in every configuration
#                  (webload -V as the docset's first read; slower)
#   --cluster N    N web servers behind HAProxy (above), 1 to 8; its own
#                  configurations (-s help lists them)
#   --full-disk    with --cluster, give each server the whole calibrated
#                  disk throttle instead of its share per vCPU (below)
#   -A TREE        the module TREE/ccache.ko (a worktree of another commit,
#                  built for the same kernel) in the configuration cc-alt
#                  (with --cluster, uri-ccalt), ccache's default settings:
#                  a change measured against this tree's module in one run
#   --profile      with --cluster, perf's flat profile of each server's CPU
#                  (cpu-clock samples of the whole guest, kernel and
#                  module symbols) over the measured phase, and ccache's
#                  statistics then: PERF and PERF-STAT lines in
#                  logs/RUN.webI.log (needs perf on the host: the guest
#                  runs the host's, Debian's linux-perf)
# Needs ccache.ko built for the guests' kernel (CCDEV_KVER, by default the
# newest 6.1: make KVER=6.1), and nginx, apache2, lzop,
# dmsetup, python3-matplotlib (and haproxy for --cluster) on the host
# (tools/setup.sh --for bench); make bench-web and make bench-cluster do
# both.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tools/lib/image.sh
. "$top/tools/lib/image.sh"
# shellcheck source=tools/lib/program.sh
. "$top/tools/lib/program.sh"
# shellcheck source=tools/lib/calibrate.sh
. "$top/tools/lib/calibrate.sh"
cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
cmd="$0 $*"

# name | label | RAM in R | ccache module (2: -A's) | pool % (empty: its default) |
# offload | compressor | dm-cache on zram | more module options (KNOB=VALUE,
# space-separated)
all_configs="\
none-R|plain kernel, R|1|0||-|-|0
none-2R|plain kernel, 2R|2|0||-|-|0
cc|ccache, default settings|1|1||cpu|lzo|0
cc-2R|ccache, default settings, 2R|2|1||cpu|lzo|0
cc-alt|ccache, default settings, module of -A|1|2||cpu|lzo|0
cc-alt-2R|ccache, default settings, module of -A, 2R|2|2||cpu|lzo|0
cc-fixed|ccache, pool_sizing=fixed|1|1||cpu|lzo|0|pool_sizing=fixed
cc-boost|ccache, offload_boost_percent=25|1|1||cpu|lzo|0|offload_boost_percent=25
cc-boost-2R|ccache, offload_boost_percent=25, 2R|2|1||cpu|lzo|0|offload_boost_percent=25
cc-meta|ccache, metadata too (filesystems=ext4,bdev)|1|1||cpu|lzo|0|filesystems=ext4,bdev
cc40-meta|ccache 40%, metadata too|1|1|40|cpu|lzo|0|filesystems=ext4,bdev
cc60-meta|ccache 60%, metadata too|1|1|60|cpu|lzo|0|filesystems=ext4,bdev
cc60-meta-2R|ccache 60%, metadata too, 2R|2|1|60|cpu|lzo|0|filesystems=ext4,bdev
dmz|dm-cache on zram, 40% budget|1|0|40|-|-|1
dmz60|dm-cache on zram, 60% budget (ccache's ceiling)|1|0|60|-|-|1
cc20|ccache 20%|1|1|20|cpu|lzo|0
cc40|ccache 40%|1|1|40|cpu|lzo|0
cc60|ccache 60%|1|1|60|cpu|lzo|0
cc80|ccache 80%|1|1|80|cpu|lzo|0
cc60-inline|ccache 60% inline|1|1|60|inline|lzo|0
cc60-lz4|ccache 60% lz4|1|1|60|cpu|lz4|0
cc60-zstd|ccache 60% zstd|1|1|60|cpu|zstd|0"
full_configs=none-R,none-2R,cc,cc-2R,dmz
quick_configs=none-R,cc,dmz
# --cluster: the same fields, then HAProxy's balance algorithm
cluster_configs="\
rr-none|round-robin, plain kernel|1|0||-|-|0||roundrobin
rr-cc|round-robin, ccache|1|1||cpu|lzo|0||roundrobin
uri-none|URI hashing, plain kernel|1|0||-|-|0||uri
uri-cc|URI hashing, ccache|1|1||cpu|lzo|0||uri
uri-ccboost|URI hashing, ccache, offload_boost_percent=25|1|1||cpu|lzo|0|offload_boost_percent=25|uri
uri-ccalt|URI hashing, ccache, module of -A|1|2||cpu|lzo|0||uri
uri-cc20|URI hashing, ccache, 20% ceiling|1|1|20|cpu|lzo|0||uri
uri-cc40|URI hashing, ccache, 40% ceiling|1|1|40|cpu|lzo|0||uri
urinb-none|URI hashing without bound, plain kernel|1|0||-|-|0||uri-nobound
urinb-cc|URI hashing without bound, ccache|1|1||cpu|lzo|0||uri-nobound"
cluster_full=rr-none,rr-cc,uri-none,uri-cc
cluster_quick=rr-none,uri-cc
# the support profile's popularity: the thesis's SPECweb2005 Support alpha
support_zipf=0.4

usage() {
	sed -n '/^# usage:/,/^# does both/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
quick=0 reps='' mem=256 zipf=0.8 conns=64 session=100 only='' out='' recal=0 verify_all=0
cluster=0 alt='' full_disk=0 profile=0
# vCPUs of the single guest (make bench-web) and of each cluster server
bench_cpus=2 cl_cpus=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--quick) quick=1 ;;
	--recalibrate) recal=1 ;;
	--verify-all) verify_all=1 ;;
	--full-disk) full_disk=1 ;;
	--profile) profile=1 ;;
	-r | -m | -z | -c | -k | -s | -o | -A | --cluster)
		[[ $# -ge 2 ]] || usage
		case $1 in
		-A) alt=$(cd "$2" && pwd) ;;
		--cluster) cluster=$2 ;;
		-r) reps=$2 ;;
		-m) mem=$2 ;;
		-z) zipf=$2 ;;
		-c) conns=$2 ;;
		-k) session=$2 ;;
		-s) only=$2 ;;
		-o) out=$2 ;;
		esac
		shift
		;;
	*) usage ;;
	esac
	shift
done
[[ $cluster =~ ^[0-8]$ ]] || { echo "web-bench: --cluster wants 1 to 8" >&2; exit 2; }
if [[ $cluster != 0 ]]; then
	all_configs=$cluster_configs full_configs=$cluster_full quick_configs=$cluster_quick
fi
if [[ $only == help ]]; then
	cut -d'|' -f1,2 <<<"$all_configs" | tr '|' '\t'
	exit 0
fi
if [[ $quick == 1 ]]; then
	only=${only:-$quick_configs} reps=${reps:-1}
else
	only=${only:-$full_configs} reps=${reps:-3}
fi
[[ $reps =~ ^[1-9][0-9]?$ ]] || { echo "web-bench: -r wants 1 to 99" >&2; exit 2; }
[[ $mem =~ ^[0-9]+$ && $mem -ge 192 ]] || { echo "web-bench: -m wants at least 192 (MiB)" >&2; exit 2; }
awk -v z="$zipf" 'BEGIN { exit !(z >= 0.4 && z <= 1.0) }' ||
	{ echo "web-bench: -z wants 0.4 to 1.0" >&2; exit 2; }
[[ $conns =~ ^[1-9][0-9]*$ && $session =~ ^[0-9]+$ ]] || usage
configs=()
for name in ${only//,/ }; do
	line=$(grep "^$name|" <<<"$all_configs") ||
		{ echo "web-bench: no configuration '$name' (-s help lists them)" >&2; exit 2; }
	if [[ $(cut -d'|' -f4 <<<"$line") == 2 ]]; then
		[[ -f $alt/ccache.ko ]] ||
			{ echo "web-bench: $name wants -A TREE with a built ccache.ko" >&2; exit 2; }
		line=${line/module of -A/at $(git -C "$alt" describe --always --dirty)}
		all_configs=${all_configs/$(grep "^$name|" <<<"$all_configs")/$line}
	fi
	configs+=("$line")
done
# every guest boots with the module at hand, the plain kernel's too
# (boot.sh): without it every run would fail one after another
[[ -f $top/ccache.ko ]] ||
	{ echo "web-bench: no $top/ccache.ko (make modules, or make bench-web)" >&2; exit 2; }

# phase lengths in seconds (replay: the unthrottled Zipf load that ends
# each web set's prefill, web-bench.guest; apache_secs 0: no Apache
# phase); verified files after each load
if [[ $quick == 1 ]]; then
	replay_secs=15 web_warm=5 web_secs=20 apache_secs=0 support_secs=20
	fio_warm=5 fio_secs=10 verify_files=1000 support_verify=40
else
	replay_secs=20 web_warm=5 web_secs=75 apache_secs=30 support_secs=45
	fio_warm=5 fio_secs=20 verify_files=1500 support_verify=100
fi
# --cluster: HAProxy's load (warm-up, measured), the phase that takes a
# server out at a third of it and back in at two thirds, and the URIs
# whose server is asked before, while and after.  No replay in the
# guests' prefill: a guest's own Zipf load would put the hottest files of
# every server's share on its active list, where with URI hashing half of
# them would stay unread for minutes; the warm-up through HAProxy does
# its work instead.
cl_warm=$((web_warm * 12)) cl_secs=$web_secs leave_secs=$((web_secs / 2)) route_uris=300
[[ $cluster == 0 ]] || replay_secs=0

tools=(qemu-system-x86_64 mkfs.ext4 lzop nginx apache2 dmsetup gcc make)
[[ $cluster == 0 ]] || tools+=(haproxy python3)
for c in "${tools[@]}"; do
	command -v "$c" > /dev/null || PATH=$PATH:/usr/sbin:/sbin command -v "$c" > /dev/null ||
		{ echo "web-bench: no $c: run tools/setup.sh --for bench" >&2; exit 1; }
done
nginx=$(PATH=$PATH:/usr/sbin command -v nginx)
apache=$(PATH=$PATH:/usr/sbin command -v apache2)
dmsetup=$(PATH=$PATH:/usr/sbin:/sbin command -v dmsetup)
perf=()
if [[ $profile == 1 ]]; then
	[[ $cluster != 0 ]] || die "--profile needs --cluster"
	perf=("$(readlink -f "$(command -v perf)")") ||
		die "--profile needs perf (apt install linux-perf)"
fi
py=python3
[[ ! -x /usr/bin/python3 ]] || py=/usr/bin/python3	# Debian's, with matplotlib
release=${CCDEV_KVER:-$("$top/tools/kernels.sh" resolve 6.1)}

run_id=$(date +%Y%m%d-%H%M%S)
[[ $quick == 0 ]] || run_id+=-quick
out=${out:-$cache/bench/runs/$run_id}
mkdir -p "$out/logs" "$cache/bench"
work=$(mktemp -d "$cache/bench/work.XXXXXX")
# throttle.py and HAProxy (helpers), the cluster's guests' sessions
helpers=() cl_sids=()
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local p
	for p in "${helpers[@]}"; do kill "$p" 2> /dev/null || true; done
	for p in "${cl_sids[@]}"; do pkill -s "$p" 2> /dev/null || true; done
	rm -rf "$work"
}
# host_cpu BEFORE AFTER: CPU seconds this shell's waited-for descendants
# (boot.sh, QEMU) took between two outputs of "times" (run in this shell:
# a subshell's "times" does not count them)
host_cpu() {
	awk 'FNR == 2 {
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		t[++n] = u[1] * 60 + u[2] + s[1] * 60 + s[2]
	} END { printf "%.0f\n", t[2] - t[1] }' "$1" "$2"
}
trap cleanup EXIT
start=$SECONDS
say() { echo "web-bench: $*" >&2; }
say "R=$mem MiB, configurations ${only//,/ }; results in $out"

# ---- content ----
make -s -C "$here" webload
# set_of PROFILE MIB: build (or reuse) PROFILE's set of MIB MiB, print
# its directory
set_of() {
	local dir=$cache/bench/$1-$2
	"$here/build-docset.sh" --profile "$1" "$dir" "$2" > "$work/set.out" 2> "$work/set.err" ||
		{ cat "$work/set.err" >&2; exit 1; }
	echo "$dir"
}
# sized_set PROFILE MIB: PROFILE's set whose pages (what it takes in the
# page cache) are about 2.2 R, within 2-4 R, starting from a guess of MIB;
# prints its directory and size
sized_set() {
	local size=$2 dir pages
	dir=$(set_of "$1" "$size")
	pages=$(sed -n 's/^[A-Z]*SET .*pages=\([0-9]*\).*/\1/p' "$dir/summary")
	if ((pages < mem * 256 * 2 || pages > mem * 256 * 4)); then
		size=$((size * mem * 256 * 22 / 10 / pages))
		dir=$(set_of "$1" "$size")
	fi
	echo "$dir $size"
}
# a docset's pages are about 1.28 times its bytes, a support set's about
# the same as its bytes (its files are large)
read -r docset size < <(sized_set docset $(((mem * 2200 / 10 + 127) / 128)))
read -r support _ < <(sized_set support $((mem * 22 / 10)))
cp "$docset/summary" "$out/docset.summary"
cp "$support/summary" "$out/support.summary"
# for the report's bound on what any cache could do (bound.py)
cp "$docset/manifest" "$out/docset.manifest"
cp "$support/manifest" "$out/support.manifest"
say "$(head -n 1 "$docset/summary")"
say "$(head -n 1 "$support/summary")"

# fio's files, from the docset's bytes: big (2R) and small/f0..f(N-1)
big_mib=$((mem * 2)) small_kib=128 small_n=$((mem * 16))
fio=$cache/bench/fio-$mem
fio_stamp="docset=$size big=$big_mib small=${small_n}x$small_kib"
if [[ "$(cat "$fio/stamp" 2> /dev/null)" != "$fio_stamp" ]]; then
	say "writing fio's files ($big_mib MiB and $small_n x $small_kib KiB) to $fio"
	rm -rf "$fio" "$fio.tmp"
	mkdir -p "$fio.tmp/small"
	(cd "$docset/www" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat) > "$work/concat"
	# the big file from the start of the set, the small ones from its end
	while (($(stat -c %s "$fio.tmp/big" 2> /dev/null || echo 0) < big_mib << 20)); do
		cat "$work/concat" >> "$fio.tmp/big"
	done
	truncate -s "${big_mib}M" "$fio.tmp/big"
	(cd "$docset/www" && find . -type f -print0 | LC_ALL=C sort -rz | xargs -0 cat) > "$work/rev"
	while (($(stat -c %s "$work/small" 2> /dev/null || echo 0) < small_n * small_kib << 10)); do
		cat "$work/rev" >> "$work/small"
	done
	truncate -s $((small_n * small_kib))K "$work/small"
	(cd "$fio.tmp/small" && split -b "${small_kib}K" -d -a 6 "$work/small" x &&
		for f in x*; do mv "$f" "f$((10#${f#x}))"; done)
	rm -f "$work/concat" "$work/rev" "$work/small"
	echo "$fio_stamp" > "$fio.tmp/stamp"
	mv "$fio.tmp" "$fio"
fi

# ---- calibration ----
cal=$cache/bench/calibration-$release.env
if [[ $recal == 1 || ! -s $cal ]]; then
	say "calibrating: LZO on the host and in a guest"
	calibrate "$cal" "$release" "$docset/www" "$out/logs/calibrate.log" || exit 1
else
	say "reusing the calibration in $cal (--recalibrate measures it again)"
fi
cp "$cal" "$out/calibration.env"
# shellcheck source=/dev/null
. "$cal"
# shellcheck disable=SC2154 # set by the calibration file
bps=$cal_bps iops=$cal_iops factor=$cal_factor host_mbps=$cal_host_mbps guest_mbps=$cal_guest_mbps
# The prefills read at the rate one guest vCPU compresses (web-bench.guest,
# "the prefill's pace")
prefill_bps=$(awk -v m="$guest_mbps" 'BEGIN { printf "%d", m * 1e6 }')
# The calibration keeps a guest of bench_cpus vCPUs as busy per byte read
# as a real server is; a cluster server has cl_cpus, so its disk gets the
# same share (its balance, not a disk half as fast per CPU again)
each=''
if [[ $cluster != 0 ]]; then
	each=" per server"
	if [[ $full_disk == 0 ]]; then
		bps=$((bps * cl_cpus / bench_cpus)) iops=$((iops * cl_cpus / bench_cpus))
		((iops >= 1)) || iops=1
		each+=" ($cl_cpus/$bench_cpus of the calibrated rate: its vCPUs' share)"
	fi
fi
say "calibration: LZO on the host $host_mbps MB/s, in the guest $guest_mbps MB/s: factor $factor;" \
	"the data disk: $((bps >> 10)) KiB/s, $iops IOPS$each; $((prefill_bps >> 10)) KiB/s in the prefills"

# ---- the disks ----
# data: the docset, the support set and fio's files (hard links: mkfs.ext4
# -d copies them)
mkdir -p "$work/data"
cp -al "$docset/www" "$work/data/www"
cp -al "$support/www" "$work/data/support"
cp -al "$fio" "$work/data/fio"
rm -f "$work/data/fio/stamp"
data_mib=$(($(du -sk "$work/data" | cut -f1) * 11 / 10 / 1024 + 256))
# made once, each guest reads it through an overlay of its own (boot.sh
# img=): mkfs.ext4 -d took 60-90 s per configuration
fs_image ext4 "${data_mib}M" "$work/data.img" "$work/data"
# tools: nginx, apache2 with the modules it loads, dmsetup, their
# libraries and loader, the guest kernel's zram and dm-cache modules,
# webload, the manifests and the configurations
t=$work/tools
mkdir -p "$t/lib" "$t/lib64" "$t/usr/sbin" "$t/usr/lib/apache2/modules" "$t/bench" "$t/conf"
cp "$nginx" "$apache" "$dmsetup" "${perf[@]}" "$t/usr/sbin/"
copy_modules "$t" "$("$top/tools/kernels.sh" guest "$release")" "$release" zram dm-cache-smq
mods=()
for m in mpm_event authz_core mime; do
	mods+=("/usr/lib/apache2/modules/mod_$m.so")
done
cp "${mods[@]}" "$t/usr/lib/apache2/modules/"
for lib in $(ldd "$nginx" "$apache" "$dmsetup" "${perf[@]}" "${mods[@]}" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' | sort -u); do
	case $lib in
	*/ld-linux*) cp -L "$lib" "$t/lib64/" ;;
	*) cp -L "$lib" "$t/lib/" ;;
	esac
done
cp "$here/webload" "$here/nginx.conf" "$here/apache.conf" "$docset/manifest" "$t/bench/"
cp "$support/manifest" "$t/bench/support.manifest"
# sample MANIFEST N OUT: every k-th line of MANIFEST, about N of them (all
# when N is 0 or above its length) into OUT; prints how many
sample() {
	local n
	n=$(wc -l < "$1")
	awk -v k=$((($2 && $2 < n) ? n / $2 : 1)) '(NR - 1) % k == 0' "$1" > "$3"
	wc -l < "$3"
}
files=$(wc -l < "$docset/manifest")
support_files=$(wc -l < "$support/manifest")
((verify_all == 0)) || verify_files=0
verify_files=$(sample "$docset/manifest" "$verify_files" "$t/bench/vmanifest")
support_verify=$(sample "$support/manifest" "$support_verify" "$t/bench/support.vmanifest")
tools_mib=$(($(du -sk "$t" | cut -f1) / 1024 + 32))

# boot.sh's QEMU, with a QMP socket for throttle.py
mkdir -p "$work/shim"
cat > "$work/shim/qemu-system-x86_64" <<EOF
#!/bin/sh
PATH='$PATH'
exec qemu-system-x86_64 "\$@" -qmp "unix:\$WB_QMP,server=on,wait=off"
EOF
chmod +x "$work/shim/qemu-system-x86_64"

# ---- the configurations ----
{
	echo "cmd=\"$cmd\""
	echo "run_id=$run_id quick=$quick mem=$mem reps=$reps conns=$conns session=$session"
	echo "zipf=$zipf support_zipf=$support_zipf"
	echo "replay_secs=$replay_secs web_warm=$web_warm web_secs=$web_secs apache_secs=$apache_secs"
	echo "support_secs=$support_secs fio_warm=$fio_warm fio_secs=$fio_secs"
	echo "verify_all=$verify_all verify_files=$verify_files docset_files=$files"
	echo "support_verify=$support_verify support_files=$support_files"
	echo "big_mib=$big_mib small_n=$small_n small_kib=$small_kib data_mib=$data_mib"
	echo "release=$release prefill_bps=$prefill_bps disk_bps=$bps disk_iops=$iops"
	echo "commit=$(git -C "$top" rev-parse --short HEAD 2> /dev/null || echo unknown)" \
		"dirty=$(git -C "$top" status --porcelain 2> /dev/null | grep -q . && echo 1 || echo 0)"
	echo "host_cpu=\"$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)\""
	echo "host_cores=$(nproc) host_mem_kib=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
	echo "host_kernel=\"$(uname -sr)\""
	echo "qemu=\"$(qemu-system-x86_64 --version | head -n 1)\""
	echo "nginx=\"$("$nginx" -v 2>&1 | sed 's/^nginx version: //')\""
	echo "apache=\"$("$apache" -v | sed -n 's/^Server version: //p')\""
	printf 'configs="%s"\n' "${only//,/ }"
	echo "cluster=$cluster cl_cpus=$cl_cpus bench_cpus=$bench_cpus full_disk=$full_disk"
	echo "cl_warm=$cl_warm cl_secs=$cl_secs leave_secs=$leave_secs route_uris=$route_uris"
	[[ $cluster == 0 ]] || echo "haproxy=\"$(haproxy -v | head -n 1)\""
} > "$out/run.env"
runs=()
for c in "${configs[@]}"; do
	IFS='|' read -r name label mult module pool offload compressor dmz options balance <<<"$c"
	key=${name//-/_}
	echo "label_$key=\"$label\" mult_$key=$mult balance_$key=$balance" >> "$out/run.env"
	cat > "$t/conf/$name" <<-EOF
		label="$label"
		module=$((module > 0)) pool=$pool offload=$offload compressor=$compressor dmz=$dmz
		options="$options"
		zipf=$zipf support_zipf=$support_zipf conns=$conns session=$session
		replay_secs=$replay_secs web_warm=$web_warm web_secs=$web_secs
		apache_secs=$apache_secs support_secs=$support_secs
		fio_warm=$fio_warm fio_secs=$fio_secs big_mib=$big_mib small_n=$small_n small_kib=$small_kib
		prefill=$([[ $verify_all == 1 ]] && echo verify || echo prime)
	EOF
	cp "$t/conf/$name" "$out/logs/$name.conf"
done
# interleaved: every configuration once, then again, every other turn in
# reverse (A B C, C B A, A B C...), so that no configuration always runs
# right after another one (Documentation/design.rst, "Repetitions in fresh
# guests, interleaved")
nconf=${#configs[@]}
for ((rep = 1; rep <= reps; rep++)); do
	for ((i = 0; i < nconf; i++)); do
		c=${configs[rep % 2 ? i : nconf - 1 - i]}
		runs+=("${c%%|*}.$rep")
	done
done
echo "runs=\"${runs[*]}\"" >> "$out/run.env"
# throttle_start RUN QMP LOG: throttle.py for the guest whose QMP socket
# is QMP and console LOG, sampling the host's load into $work/load
throttle_start() {
	"$py" "$here/throttle.py" --load "$work/load" --prefill-bps "$prefill_bps" \
		"$2" "$3" "$bps" "$iops" \
		> "$out/logs/$1.throttle" 2>&1 &
	helpers+=("$!")
}
# throttle_stop: stop every throttle.py and the cluster's HAProxy
throttle_stop() {
	local h
	for h in "${helpers[@]}"; do
		kill "$h" 2> /dev/null || true
		wait "$h" 2> /dev/null || true
	done
	helpers=()
}
# guest LOG QMP MIB CPUS ARGS [BOOT-OPTION...]: boot.sh's guest running
# web-bench.guest, the data disk throttled, ARGS on its command line (a
# failure: its status); boot.sh is started by "${launch[@]}" (none, or
# "exec setsid": a session of its own, stopped with pkill -s)
launch=()
guest() {
	"${launch[@]}" env PATH="$work/shim:$PATH" WB_QMP="$2" CCDEV_TCG_THREAD=multi \
		"$top/tools/vm/boot.sh" -k "$release" -m "$3" -c "$4" -t 3000 \
		-d "ext4:${data_mib}M:img=$work/data.img:bps=$bps:iops=$iops" \
		-d "ext4:${tools_mib}M:src=$t" -d raw:1M -a "$5" "${@:6}" \
		-o "$1" "$here/web-bench.guest"
}

# cl_load RUN PHASE SECS [OPTION...]: webload through HAProxy (port
# $cl_port) for SECS, every body checked, each phase drawing requests of
# its own (as zipf_load in the guest); its output in logs/RUN.PHASE.out
cl_load() {
	"$here/webload" -H "127.0.0.1:$cl_port" -c "$conns" -k "$session" -z "$zipf" \
		-p "0x$(echo "$1.$2" | md5sum | cut -c1-8)" -d "$3" -C "${@:4}" \
		"$docset/manifest" > "$out/logs/$1.$2.out" 2>&1
}
# cl_mark RUN PHASE: each server's last counters (web-bench.guest's
# BENCH-CTR lines) and the responses HAProxy saw from each
cl_mark() {
	local i
	for ((i = 1; i <= cluster; i++)); do
		echo "CLUSTER-MARK phase=$2 server=web$i" \
			"$(grep '^BENCH-CTR ' "$out/logs/$1.web$i.log" | tail -n 1 | cut -d' ' -f2-)"
	done
	echo "CLUSTER-HAPROXY phase=$2 $("$py" "$here/cluster.py" counts "$cl_sock")"
}
# cl_result RUN PHASE: webload's line of the phase, as a CLUSTER line
cl_result() {
	echo "CLUSTER phase=$2 $(sed -n 's/^WEBLOAD //p' "$out/logs/$1.$2.out")"
}
# cl_state SERVER STATE UP: set SERVER's state, wait for UP servers up
cl_state() {
	"$py" "$here/cluster.py" state "$cl_sock" "$1" "$2" &&
		"$py" "$here/cluster.py" up "$cl_sock" "$3" 30
}
# cl_leave RUN: the last server leaves the backend a third into a load
# and comes back at two thirds (responses per server every second); then
# the server of each of a sample of URIs, with no load, before, while and
# after it is out; a failure: 1
cl_leave() {
	local s=0 pid series last=web$cluster third=$((leave_secs / 3)) st
	cl_load "$1" leave "$leave_secs" &
	pid=$!
	"$py" "$here/cluster.py" series "$cl_sock" "$leave_secs" "$res" &
	series=$!
	sleep "$third"
	"$py" "$here/cluster.py" state "$cl_sock" "$last" maint || s=1
	echo "CLUSTER-EVENT t=$third $last=maint"
	sleep "$third"
	"$py" "$here/cluster.py" state "$cl_sock" "$last" ready || s=1
	echo "CLUSTER-EVENT t=$((2 * third)) $last=ready"
	wait "$pid" || s=1
	wait "$series" || s=1
	cl_result "$1" leave
	for st in up maint ready; do
		case $st in
		up) "$py" "$here/cluster.py" up "$cl_sock" "$cluster" 60 || s=1 ;;
		maint) cl_state "$last" maint $((cluster - 1)) || s=1 ;;
		ready) cl_state "$last" ready "$cluster" || s=1 ;;
		esac
		"$py" "$here/cluster.py" route "http://127.0.0.1:$cl_port" \
			"$t/bench/vmanifest" "$route_uris" | sed "s/^/CLUSTER-ROUTE state=$st /"
	done
	return $s
}

# cl_recipe SOCK PORT NAME=PORT...: the admin guide's recipe with
# HAProxy on 127.0.0.1:PORT and the servers NAME on their loopback ports
# (lib/cluster.sh), and an admin socket SOCK for cluster.py
cl_recipe() {
	printf 'global\n\tstats socket %s level admin\n\n' "$1"
	cluster_config -k "$top/Documentation/admin-guide/ccache.rst" "${@:2}"
}

# cl_shares: the files URI hashing sends each server, which its prefill
# reads (web-bench.guest's wb_share), as a server that has run behind the
# balancer holds them; with round-robin every server is sent every file.
# The recipe's HAProxy routes every path of the docset once, with no load
# (so no bound on loads moves one), to stand-ins of the servers on
# loopback ports (a second HAProxy answering every request): the ring
# depends on the servers' names and weights, not their addresses.  Writes
# $t/bench/share-webI, the docset manifest's lines of each, once a run;
# their sizes go to run.env.
cl_shares() {
	local sock=$work/shares.sock port ports i s=0 servers=() pids=()
	[[ ! -s $t/bench/share-web1 ]] || return 0
	read -r port ports < <(cluster_ports $((cluster + 1)))
	read -ra ports <<<"$ports"
	{
		printf 'defaults\n\tmode http\n\ttimeout connect 5s\n'
		printf '\ttimeout client 30s\n\ttimeout server 30s\n'
		for ((i = 1; i <= cluster; i++)); do
			servers+=("web$i=${ports[i - 1]}")
			printf '\nfrontend web%d\n\tbind 127.0.0.1:%d\n' "$i" "${ports[i - 1]}"
			printf '\thttp-request return status 200 content-type text/plain string ok\n'
		done
	} > "$work/stubs.cfg"
	cl_recipe "$sock" "$port" "${servers[@]}" > "$work/shares.cfg"
	rm -f "$sock"
	haproxy -db -f "$work/stubs.cfg" > "$out/logs/shares.stubs.log" 2>&1 &
	pids+=("$!")
	haproxy -db -f "$work/shares.cfg" > "$out/logs/shares.haproxy.log" 2>&1 &
	pids+=("$!")
	"$py" "$here/cluster.py" up "$sock" "$cluster" 60 &&
		"$py" "$here/cluster.py" route "http://127.0.0.1:$port" "$docset/manifest" \
			"$(wc -l < "$docset/manifest")" > "$out/logs/shares" || s=1
	kill "${pids[@]}" 2> /dev/null || true
	wait "${pids[@]}" 2> /dev/null || true
	# every path reached a server
	if ((s != 0)) || grep -qv ' web[0-9]*$' "$out/logs/shares"; then
		echo "web-bench: could not route the docset's paths (logs/shares*)" >&2
		return 1
	fi
	awk -v dir="$t/bench" 'NR == FNR { srv[$1] = $2; next }
		{ print > (dir "/share-" srv[$1]) }' "$out/logs/shares" "$docset/manifest"
	for ((i = 1; i <= cluster; i++)); do
		echo "share_files_web$i=$(wc -l < "$t/bench/share-web$i")"
	done >> "$out/run.env"
}

# cluster RUN NAME BALANCE: one run of --cluster (see the top); its
# results in logs/RUN.cluster, the guests' consoles in logs/RUN.webI.log
cluster() {
	local run=$1 name=$2 balance=$3 ports i s=0 servers=() extra
	local cfg=$work/haproxy.cfg
	res=$out/logs/$run.cluster cl_sock=$work/haproxy.sock
	[[ $balance != uri* ]] || cl_shares || return 1
	read -r cl_port ports < <(cluster_ports $((cluster + 1)))
	read -ra ports <<<"$ports"
	for ((i = 1; i <= cluster; i++)); do
		servers+=("web$i=${ports[i - 1]}")
		extra=''
		[[ $balance != uri* ]] || extra=" wb_share=share-web$i"
		[[ $profile == 0 ]] || extra+=" wb_perf=$cl_warm:$cl_secs"
		rm -f "$work/qmp$i.sock"
		throttle_start "$run.web$i" "$work/qmp$i.sock" "$out/logs/$run.web$i.log"
		(
			launch=(exec setsid)
			guest "$out/logs/$run.web$i.log" "$work/qmp$i.sock" "$mem" "$cl_cpus" \
				"wb_config=$name wb_mode=serve$extra" "${ko[@]}" -n "${ports[i - 1]}"
		) > "$out/logs/$run.web$i.boot" 2>&1 &
		cl_sids+=("$!")
	done
	# the admin guide's recipe (lib/cluster.sh: the addresses changed),
	# the balance asked for, and an admin socket for cluster.py
	cl_recipe "$cl_sock" "$cl_port" "${servers[@]}" |
		case $balance in
		uri) cat ;;
		uri-nobound) sed '/^\thash-balance-factor /d' ;;
		*) sed -e "s/^\tbalance uri\$/\tbalance $balance/" -e '/^\thash-/d' ;;
		esac > "$cfg"
	cp "$cfg" "$out/logs/$run.haproxy.cfg"
	rm -f "$cl_sock"
	haproxy -db -f "$cfg" > "$out/logs/$run.haproxy.log" 2>&1 &
	helpers+=("$!")
	# every guest primed (BENCH-READY), then up behind HAProxy
	for ((i = 1; i <= cluster && s == 0; i++)); do
		until grep -q '^BENCH-READY' "$out/logs/$run.web$i.log" 2> /dev/null; do
			kill -0 "${cl_sids[i - 1]}" 2> /dev/null || { s=1; break; }
			sleep 2
		done
	done
	((s == 0)) && { "$py" "$here/cluster.py" up "$cl_sock" "$cluster" 120 || s=1; }
	if ((s == 0)); then
		say "$run: $cluster servers up"
		{
			cl_load "$run" warm "$cl_warm" || s=1
			cl_mark "$run" start
			cl_load "$run" measured "$cl_secs" -i 5 || s=1
			cl_mark "$run" end
			cl_result "$run" measured
			"$here/webload" -H "127.0.0.1:$cl_port" -c 16 -V "$t/bench/vmanifest" \
				> "$out/logs/$run.verify.out" 2>&1 || s=1
			cl_result "$run" verify
			[[ $balance != uri* ]] || cl_leave "$run" || s=1
		} >> "$res"
	fi
	for i in "${cl_sids[@]}"; do pkill -s "$i" 2> /dev/null || true; done
	wait "${cl_sids[@]}" 2> /dev/null || true
	cl_sids=()
	return $s
}

failed=0
# shellcheck source=selftests/lib/cluster.sh
[[ $cluster == 0 ]] || . "$top/selftests/lib/cluster.sh"
for run in "${runs[@]}"; do
	name=${run%.*}
	IFS='|' read -r _ label mult module _ _ _ _ _ balance <<<"$(grep "^$name|" <<<"$all_configs")"
	ko=()
	[[ $module != 2 ]] || ko=(-M "$alt/ccache.ko")
	log=$out/logs/$run.log
	rm -f "$log" "$work/qmp.sock"
	say "$run ($label): $((mem * mult)) MiB RAM${balance:+ in each of $cluster guests}"
	t0=$SECONDS
	# other work on the host slows the guest against its throttled disk:
	# throttle.py samples the load, "times" counts the CPU the guest took
	: > "$work/load"
	times > "$work/times0"
	status=0
	if [[ $cluster == 0 ]]; then
		# one more guest when this one died of multi-threaded TCG's stale
		# translation of patched kernel text ("Oops: int3", tools/vm/boot.sh;
		# Debian's 7.x about one boot in ten)
		for try in 1 2; do
			throttle_start "$run" "$work/qmp.sock" "$log"
			guest "$log" "$work/qmp.sock" $((mem * mult)) "$bench_cpus" "wb_config=$name" "${ko[@]}" \
				> "$out/logs/$run.boot" 2>&1 || status=$?
			if [[ $status == 0 || $try == 2 ]] || ! grep -q 'Oops: int3' "$log"; then
				break
			fi
			throttle_stop
			mv "$log" "$log.int3"
			rm -f "$work/qmp.sock"
			say "$run: the guest died of a stale translation (Oops: int3; $log.int3), booting another"
			status=0
		done
	else
		cluster "$run" "$name" "$balance" || status=$?
	fi
	throttle_stop
	times > "$work/times1"
	key=${run//[-.]/_}
	echo "time_$key=$((SECONDS - t0)) status_$key=$status" \
		"cpu_$key=$(host_cpu "$work/times0" "$work/times1")" \
		"load_$key=$(awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n }' "$work/load")" \
		>> "$out/run.env"
	if [[ $status != 0 ]]; then
		failed=1
		say "$run FAILED (status $status):"
		tail -n 20 "$out/logs/$run".*boot >&2
	fi
	say "$run: $((SECONDS - t0)) s"
done
echo "total_secs=$((SECONDS - start))" >> "$out/run.env"

# ---- the report ----
report=report.py
[[ $cluster == 0 ]] || report="cluster-report.py"
"$py" "$here/$report" "$out" || failed=1
say "report: $out/report.md ($(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s)"
exit $failed
