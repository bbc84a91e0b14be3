# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# calibrate ENV RELEASE SRC LOG: the balance of CPU and disk a guest must
# keep to behave as a real server does.  A guest under TCG runs several
# times slower than the host, while QEMU's disk throttle runs in real
# time; so the disk is slowed by the same factor as the CPU.  Measures LZO
# over a sample, the first 384 MiB of the files under SRC in name order
# (more than the guest's 256 MiB), on the host (lzop at its default level,
# LZO1X-1 as the kernel's lzo: user CPU time, the fastest of three runs)
# and in CAL_GUEST_RUNS guests of kernel RELEASE (default 3; ccache
# compressing it page by page: web-bench.guest's calibrate mode, the
# consoles in LOG.1...), the run of median ns per page kept, as one
# guest's figure varies too much (design.rst, "Known gaps"), and each
# run's MB/s written beside it.  Writes to ENV
# the factor host/guest and the model volume, AWS gp3's baseline of 125
# MiB/s and 3000 IOPS, divided by it: cal_bps and cal_iops, the guest
# disk's throttle.

calibrate() {
	local env=$1 release=$2 src=$3 log=$4 top dir sample host_s t line completed ns
	local runs=${CAL_GUEST_RUNS:-3} i all=''
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	dir=$(mktemp -d "$env.XXXXXX")
	# (cat dies of SIGPIPE when head has enough)
	(cd "$src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 cat) 2> /dev/null |
		head -c $((384 << 20)) > "$dir/sample" || true
	sample=$(stat -c %s "$dir/sample")
	host_s=''
	for _ in 1 2 3; do
		t=$({ TIMEFORMAT=%U; time lzop -c "$dir/sample" > /dev/null; } 2>&1)
		host_s=$(awk -v a="$t" -v b="${host_s:-$t}" 'BEGIN { print (a < b ? a : b) }')
	done
	for ((i = 1; i <= runs; i++)); do
		CCDEV_TCG_THREAD=multi "$top/tools/vm/boot.sh" -k "$release" -m 256 -c 2 -t 600 \
			-d "ext4:$((sample * 3 / 2 / 1048576 + 64))M:src=$dir" -a wb_mode=calibrate \
			-o "$log.$i" "$top/tools/bench/web-bench.guest" > "$log.$i.boot" 2>&1 ||
			{ cat "$log.$i.boot" >&2; rm -rf "$dir"; return 1; }
		line=$(grep '^BENCH phase=calibrate' "$log.$i")
		completed=$(sed -n 's/.* completed=\([0-9]*\).*/\1/p' <<<"$line")
		ns=$(sed -n 's/.* compress_ns=\([0-9]*\).*/\1/p' <<<"$line")
		((completed > 1000)) ||
			{ echo "calibration: only $completed pages compressed" >&2; rm -rf "$dir"; return 1; }
		all+="$((ns / completed)) $completed $ns"$'\n'
	done
	rm -rf "$dir"
	# the median run by ns per page; every run's MB/s in guest order
	read -r _ completed ns < <(sort -n <<<"${all%$'\n'}" | sed -n "$(((runs + 1) / 2))p")
	all=$(awk '{ printf "%s%.2f", (NR > 1 ? " " : ""), 4096 / $1 * 1000 }' <<<"${all%$'\n'}")
	awk -v bytes="$sample" -v s="$host_s" -v pages="$completed" -v ns="$ns" -v all="$all" \
		-v mbps=$((125 << 20)) -v miops=3000 \
		-v cpu="$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)" \
		-v rel="$release" -v date="$(date -u +%Y-%m-%dT%H:%MZ)" 'BEGIN {
		host = bytes / s / 1e6
		guest = 4096 * pages / ns * 1000
		f = host / guest
		printf "cal_date=\"%s\"\ncal_kernel=%s\ncal_host_cpu=\"%s\"\n", date, rel, cpu
		printf "cal_sample_bytes=%d\ncal_host_user_s=%s\ncal_host_mbps=%.1f\n", bytes, s, host
		printf "cal_guest_pages=%d\ncal_guest_ns=%d\ncal_guest_ns_per_page=%.0f\n", pages, ns, ns / pages
		printf "cal_guest_mbps=%.2f\ncal_guest_runs_mbps=\"%s\"\n", guest, all
		printf "cal_factor=%.2f\n", f
		printf "cal_model_bps=%d\ncal_model_iops=%d\n", mbps, miops
		printf "cal_bps=%d\ncal_iops=%d\n", mbps / f, (miops / f < 1 ? 1 : miops / f)
	}' > "$env.tmp"
	mv "$env.tmp" "$env"
}
