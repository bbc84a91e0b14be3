#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The web-serving and fio benchmark: ccache against the plain kernel on a
# disk-bound guest, every configuration in a fresh guest, one report.
#
#  1. Calibration: LZO throughput on the host (lzop over a sample of the
#     docset) and in a guest (ccache's compress_ns per page over the same
#     bytes); their ratio is how much slower the TCG guest is, and the data
#     disk models an AWS gp3 volume (125 MiB/s, 3000 IOPS) slowed by that
#     factor.  Cached per kernel release; --quick reuses it.
#  2. Content: the docset (build-docset.sh) of 2-4x the guest's RAM R in
#     pages, and fio's files from the same bytes: one file of 2R for 4 KiB
#     random reads (random_distribution=zipf:1.1), 16R files of 128 KiB
#     read whole (file_service_type=zipf:1.1).
#  3. Per configuration, one guest: nginx serves the docset from the
#     throttled ext4 disk to webload (Zipf popularity, keep-alive sessions,
#     every body's CRC32C checked), then webload -V verifies a sample of
#     the files (all of them with --verify-all); Apache (event MPM) does
#     the same in the ccache 60% configuration (and plain R, full run);
#     then the two fio jobs.  Each data set is first read once with the
#     throttle lifted (throttle.py, through QEMU's QMP socket), the docset
#     from its least to its most popular file, so that measured phases
#     start from the caches a long run leaves (paced so that ccache's
#     compressor keeps up, see web-bench.guest).
#  4. report.py: results.csv, plots and report.md in the output directory.
#
# usage: web-bench.sh [--quick] [-m RAM_MIB] [-z ZIPF] [-c CONNS] [-k REQS]
#                     [-s CONFIG,...] [-o DIR] [--recalibrate] [--verify-all]
#   --quick        plain kernel at R and 2R, ccache at 60% (lzo, cpu); R 256
#                  and short phases (under 10 minutes); else all nine
#                  configurations with R 512 (under an hour)
#   -m RAM_MIB     R, the guest's RAM (default 512, --quick 256)
#   -z ZIPF        webload's Zipf exponent, 0.4-1.0 (default 0.8)
#   -c CONNS       webload's connections (default 64)
#   -k REQS        requests per keep-alive session (default 100)
#   -s CONFIGS     only these configurations (names: -s help)
#   -o DIR         results directory (default: a new directory under
#                  ${CCACHE_DEV_CACHE:-~/.cache/ccache-dev}/bench/runs)
#   --recalibrate  measure the calibration even when one is cached
#   --verify-all   verify every file of the docset in every configuration
#                  (webload -V as the docset's first read; slower)
# Needs ccache.ko built for 6.1 (make KVER=6.1), and nginx, apache2, lzop,
# python3-matplotlib on the host (tools/setup.sh); make bench-web does both.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tools/lib/image.sh
. "$top/tools/lib/image.sh"
cache=${CCACHE_DEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
cmd="$0 $*"

# name | label | RAM in R | module | pool % | offload | compressor | Apache
# too (full: in the full run only)
all_configs="\
none-R|plain kernel, R|1|0|-|-|-|full
none-2R|plain kernel, 2R|2|0|-|-|-|0
cc20|ccache 20%|1|1|20|cpu|lzo|0
cc40|ccache 40%|1|1|40|cpu|lzo|0
cc60|ccache 60%|1|1|60|cpu|lzo|1
cc80|ccache 80%|1|1|80|cpu|lzo|0
cc60-inline|ccache 60% inline|1|1|60|inline|lzo|0
cc60-lz4|ccache 60% lz4|1|1|60|cpu|lz4|0
cc60-zstd|ccache 60% zstd|1|1|60|cpu|zstd|0"
quick_configs=none-R,none-2R,cc60

usage() {
	sed -n '27,43s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
quick=0 mem='' zipf=0.8 conns=64 session=100 only='' out='' recal=0 verify_all=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--quick) quick=1 ;;
	--recalibrate) recal=1 ;;
	--verify-all) verify_all=1 ;;
	-m | -z | -c | -k | -s | -o)
		[[ $# -ge 2 ]] || usage
		case $1 in
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
if [[ $only == help ]]; then
	cut -d'|' -f1,2 <<<"$all_configs" | tr '|' '\t'
	exit 0
fi
if [[ $quick == 1 ]]; then
	only=${only:-$quick_configs} mem=${mem:-256}
else
	only=${only:-$(cut -d'|' -f1 <<<"$all_configs" | paste -sd,)} mem=${mem:-512}
fi
[[ $mem =~ ^[0-9]+$ && $mem -ge 192 ]] || { echo "web-bench: -m wants at least 192 (MiB)" >&2; exit 2; }
awk -v z="$zipf" 'BEGIN { exit !(z >= 0.4 && z <= 1.0) }' ||
	{ echo "web-bench: -z wants 0.4 to 1.0" >&2; exit 2; }
[[ $conns =~ ^[1-9][0-9]*$ && $session =~ ^[0-9]+$ ]] || usage
configs=()
for name in ${only//,/ }; do
	line=$(grep "^$name|" <<<"$all_configs") ||
		{ echo "web-bench: no configuration '$name' (-s help lists them)" >&2; exit 2; }
	configs+=("$line")
done

# phase lengths in seconds (replay: the unthrottled Zipf load that ends
# the prefill, web-bench.guest); verified files after each load
if [[ $quick == 1 ]]; then
	replay_secs=20 web_warm=10 web_secs=20 fio_warm=5 fio_secs=10 verify_files=1000
else
	replay_secs=60 web_warm=15 web_secs=30 fio_warm=5 fio_secs=15 verify_files=3000
fi

for c in qemu-system-x86_64 mkfs.ext4 lzop nginx apache2 gcc make; do
	command -v "$c" > /dev/null || PATH=$PATH:/usr/sbin:/sbin command -v "$c" > /dev/null ||
		{ echo "web-bench: no $c: run tools/setup.sh" >&2; exit 1; }
done
nginx=$(PATH=$PATH:/usr/sbin command -v nginx)
apache=$(PATH=$PATH:/usr/sbin command -v apache2)
py=python3
[[ ! -x /usr/bin/python3 ]] || py=/usr/bin/python3	# Debian's, with matplotlib
release=${CCACHE_KVER:-$("$top/tools/kernels.sh" resolve 6.1)}

run_id=$(date +%Y%m%d-%H%M%S)
[[ $quick == 0 ]] || run_id+=-quick
out=${out:-$cache/bench/runs/$run_id}
mkdir -p "$out/logs" "$cache/bench"
work=$(mktemp -d "$cache/bench/work.XXXXXX")
helper=''
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[[ -z $helper ]] || kill "$helper" 2> /dev/null || true
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
# the docset: pages (what it takes in the page cache) about 2.2 R, within
# 2-4 R; a set's pages are about 1.28 times its bytes
docset_of() {
	local size=$1 dir=$cache/bench/docset-$1
	"$here/build-docset.sh" "$dir" "$size" > "$work/docset.out" 2> "$work/docset.err" ||
		{ cat "$work/docset.err" >&2; exit 1; }
	echo "$dir"
}
size=$(((mem * 2200 / 10 + 127) / 128))
docset=$(docset_of "$size")
pages=$(sed -n 's/^DOCSET .*pages=\([0-9]*\).*/\1/p' "$docset/summary")
if ((pages < mem * 256 * 2 || pages > mem * 256 * 4)); then
	size=$((size * mem * 256 * 22 / 10 / pages))
	docset=$(docset_of "$size")
	pages=$(sed -n 's/^DOCSET .*pages=\([0-9]*\).*/\1/p' "$docset/summary")
fi
cp "$docset/summary" "$out/docset.summary"
say "$(head -n 1 "$docset/summary")"

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
model_bps=$((125 << 20)) model_iops=3000
if [[ $recal == 1 || $quick == 0 || ! -s $cal ]]; then
	say "calibrating: LZO on the host and in a guest"
	mkdir -p "$work/cal"
	sample_mib=384
	# (cat dies of SIGPIPE when head has enough)
	(cd "$docset/www" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat) 2> /dev/null |
		head -c $((sample_mib << 20)) > "$work/cal/sample" || true
	sample=$(stat -c %s "$work/cal/sample")
	# host: lzop at its default level (LZO1X-1, the kernel's lzo), the
	# fastest of three runs, user CPU time
	host_s=''
	for _ in 1 2 3; do
		t=$({ TIMEFORMAT=%U; time lzop -c "$work/cal/sample" > /dev/null; } 2>&1)
		host_s=$(awk -v a="$t" -v b="${host_s:-$t}" 'BEGIN { print (a < b ? a : b) }')
	done
	CCACHE_TCG_THREAD=multi "$top/tools/vm/boot.sh" -k "$release" -m 256 -c 2 -t 600 \
		-d "ext4:$((sample_mib * 3 / 2 + 64))M:src=$work/cal" -a wb_mode=calibrate \
		-o "$out/logs/calibrate.log" "$here/web-bench.guest" > "$out/logs/calibrate.boot" 2>&1 ||
		{ cat "$out/logs/calibrate.boot" >&2; exit 1; }
	line=$(grep '^BENCH phase=calibrate' "$out/logs/calibrate.log")
	completed=$(sed -n 's/.* completed=\([0-9]*\).*/\1/p' <<<"$line")
	ns=$(sed -n 's/.* compress_ns=\([0-9]*\).*/\1/p' <<<"$line")
	((completed > 1000)) || { say "calibration: only $completed pages compressed"; exit 1; }
	awk -v bytes="$sample" -v s="$host_s" -v pages="$completed" -v ns="$ns" \
		-v mbps="$model_bps" -v miops="$model_iops" -v cpu="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" \
		-v rel="$release" -v date="$(date -u +%Y-%m-%dT%H:%MZ)" 'BEGIN {
		host = bytes / s / 1e6
		guest = 4096 * pages / ns * 1000
		f = host / guest
		printf "cal_date=\"%s\"\ncal_kernel=%s\ncal_host_cpu=\"%s\"\n", date, rel, cpu
		printf "cal_sample_bytes=%d\ncal_host_user_s=%s\ncal_host_mbps=%.1f\n", bytes, s, host
		printf "cal_guest_pages=%d\ncal_guest_ns=%d\ncal_guest_ns_per_page=%.0f\n", pages, ns, ns / pages
		printf "cal_guest_mbps=%.2f\ncal_factor=%.2f\n", guest, f
		printf "cal_model_bps=%d\ncal_model_iops=%d\n", mbps, miops
		printf "cal_bps=%d\ncal_iops=%d\n", mbps / f, (miops / f < 1 ? 1 : miops / f)
	}' > "$work/cal.env"
	mv "$work/cal.env" "$cal"
	rm -rf "$work/cal"
else
	say "reusing the calibration in $cal (--recalibrate measures it again)"
fi
cp "$cal" "$out/calibration.env"
# shellcheck source=/dev/null
. "$cal"
# shellcheck disable=SC2154 # set by the calibration file
bps=$cal_bps iops=$cal_iops factor=$cal_factor host_mbps=$cal_host_mbps guest_mbps=$cal_guest_mbps
say "calibration: LZO on the host $host_mbps MB/s, in the guest $guest_mbps MB/s: factor $factor;" \
	"the data disk: $((bps >> 10)) KiB/s, $iops IOPS"

# ---- the disks ----
# data: the docset and fio's files (hard links: mkfs.ext4 -d copies them)
mkdir -p "$work/data"
cp -al "$docset/www" "$work/data/www"
cp -al "$fio" "$work/data/fio"
rm -f "$work/data/fio/stamp"
data_mib=$(($(du -sk "$work/data" | cut -f1) * 11 / 10 / 1024 + 256))
# made once, each guest reads it through an overlay of its own (boot.sh
# img=): mkfs.ext4 -d took 60-90 s per configuration
fs_image ext4 "${data_mib}M" "$work/data.img" "$work/data"
# tools: nginx, apache2 with the modules it loads, their libraries and
# loader, webload, the manifests and the configurations
t=$work/tools
mkdir -p "$t/lib" "$t/lib64" "$t/usr/sbin" "$t/usr/lib/apache2/modules" "$t/bench" "$t/conf"
cp "$nginx" "$apache" "$t/usr/sbin/"
mods=()
for m in mpm_event authz_core mime; do
	mods+=("/usr/lib/apache2/modules/mod_$m.so")
done
cp "${mods[@]}" "$t/usr/lib/apache2/modules/"
for lib in $(ldd "$nginx" "$apache" "${mods[@]}" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' | sort -u); do
	case $lib in
	*/ld-linux*) cp -L "$lib" "$t/lib64/" ;;
	*) cp -L "$lib" "$t/lib/" ;;
	esac
done
cp "$here/webload" "$here/nginx.conf" "$here/apache.conf" "$docset/manifest" "$t/bench/"
files=$(wc -l < "$docset/manifest")
if [[ $verify_all == 1 ]] || ((verify_files >= files)); then
	cp "$docset/manifest" "$t/bench/vmanifest"
	verify_files=$files
else
	awk -v k=$((files / verify_files)) '(NR - 1) % k == 0' "$docset/manifest" > "$t/bench/vmanifest"
	verify_files=$(wc -l < "$t/bench/vmanifest")
fi
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
	echo "run_id=$run_id quick=$quick mem=$mem zipf=$zipf conns=$conns session=$session"
	echo "replay_secs=$replay_secs web_warm=$web_warm web_secs=$web_secs fio_warm=$fio_warm fio_secs=$fio_secs"
	echo "verify_all=$verify_all verify_files=$verify_files docset_files=$files"
	echo "big_mib=$big_mib small_n=$small_n small_kib=$small_kib data_mib=$data_mib"
	echo "release=$release"
	echo "host_cpu=\"$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)\""
	echo "host_cores=$(nproc) host_mem_kib=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)"
	echo "host_kernel=\"$(uname -sr)\""
	echo "qemu=\"$(qemu-system-x86_64 --version | head -n 1)\""
	echo "nginx=\"$("$nginx" -v 2>&1 | sed 's/^nginx version: //')\""
	echo "apache=\"$("$apache" -v | sed -n 's/^Server version: //p')\""
	printf 'configs="%s"\n' "${only//,/ }"
} > "$out/run.env"
failed=0
for c in "${configs[@]}"; do
	IFS='|' read -r name label _ module pool offload compressor apache_on <<<"$c"
	[[ $apache_on != full ]] || apache_on=$((1 - quick))
	cat > "$t/conf/$name" <<-EOF
		label="$label"
		module=$module pool=$pool offload=$offload compressor=$compressor apache=$apache_on
		zipf=$zipf conns=$conns session=$session replay_secs=$replay_secs
		web_warm=$web_warm web_secs=$web_secs
		fio_warm=$fio_warm fio_secs=$fio_secs big_mib=$big_mib small_n=$small_n small_kib=$small_kib
		prefill=$([[ $verify_all == 1 ]] && echo verify || echo prime)
	EOF
	cp "$t/conf/$name" "$out/logs/$name.conf"
done
for c in "${configs[@]}"; do
	IFS='|' read -r name label mult _ <<<"$c"
	log=$out/logs/$name.log
	rm -f "$log" "$work/qmp.sock"
	say "$name ($label): $((mem * mult)) MiB RAM"
	t0=$SECONDS
	# other work on the host slows the guest against its throttled disk:
	# throttle.py samples the load, "times" counts the CPU the guest took
	: > "$work/load"
	"$py" "$here/throttle.py" --load "$work/load" "$work/qmp.sock" "$log" "$bps" "$iops" \
		> "$out/logs/$name.throttle" 2>&1 &
	helper=$!
	times > "$work/times0"
	status=0
	PATH="$work/shim:$PATH" WB_QMP=$work/qmp.sock CCACHE_TCG_THREAD=multi \
		"$top/tools/vm/boot.sh" -k "$release" -m $((mem * mult)) -c 2 -t 3000 \
		-d "ext4:${data_mib}M:img=$work/data.img:bps=$bps:iops=$iops" \
		-d "ext4:${tools_mib}M:src=$t" -d raw:1M -a "wb_config=$name" \
		-o "$log" "$here/web-bench.guest" > "$out/logs/$name.boot" 2>&1 || status=$?
	kill "$helper" 2> /dev/null || true
	wait "$helper" || true
	helper=''
	times > "$work/times1"
	key=${name//-/_}
	echo "time_$key=$((SECONDS - t0)) status_$key=$status" \
		"cpu_$key=$(host_cpu "$work/times0" "$work/times1")" \
		"load_$key=$(awk '{ s += $1; n++ } END { if (n) printf "%.2f", s / n }' "$work/load")" \
		>> "$out/run.env"
	if [[ $status != 0 ]]; then
		failed=1
		say "$name FAILED (status $status):"
		tail -n 20 "$out/logs/$name.boot" >&2
	fi
	say "$name: $((SECONDS - t0)) s"
done
echo "total_secs=$((SECONDS - start))" >> "$out/run.env"

# ---- the report ----
"$py" "$here/report.py" "$out" || failed=1
say "report: $out/report.md ($(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s)"
exit $failed
