#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one fresh guest under TCG and run one test in it, or give a shell.
#
# usage: boot.sh [-k RELEASE] [-M MODULE] [-m MIB] [-c CPUS] [-t SECONDS]
#                [-d FS:SIZE[:bps=N][:iops=N][:src=DIR|:img=FILE]]... [-o LOG]
#                [-a ARGS] [-p OPTIONS] [-l MODULE] [-n PORT] [-I SHIFT] TEST
#        boot.sh -i [options]            interactive shell, module loaded
#
# TEST is a file in selftests/ (any file in the tree, for the harness's own
# tests).  Its "# VM:" comment line sets defaults, e.g.
#   # VM: mem=256 cpus=1 disk=ext4:512M timeout=120
# and options given here win.  "prepare=SCRIPT" there names a host-side
# step, a path under selftests/ run as "SCRIPT RELEASE STAGE" before the
# boot: it adds files to STAGE, the guest's per-run archive (a failure
# fails the run).  FS is ext4, xfs or raw; bps/iops throttle the
# disk in QEMU; src fills an ext4 disk with DIR's files at mkfs time; img
# uses FILE, an FS image made beforehand, instead of a new one (the guest's
# writes go to a temporary overlay: FILE never changes, and one image
# serves many boots).
# -a appends to the guest's kernel command line.  -p gives ccache module
# options (in the guest's /etc/modprobe.d, so every modprobe uses them;
# options on modprobe's command line win); -l loads a test-only module from
# selftests/modules/ before the test (e.g. ccache_test_acomp).  -n gives
# the guest a network card behind QEMU's user networking, with no way out
# (restrict=on), the guest 10.0.2.15, and the host's 127.0.0.1:PORT
# forwarded to the guest's port 80: loopback only.  -I runs the guest in
# QEMU's instruction-counting mode, 2^SHIFT ns of guest time per guest
# instruction, with the TSC at the rate that implies: time in the guest
# then measures its own work, not the host's (a vCPU thread the host did
# not run, or TCG translating code, takes no guest time).
#
# Exit status: 0 passed, 4 skipped, 1 failed.  A run fails when the guest
# never prints the end marker (panic, oops, hang until the timeout), when
# the test exits non-zero, or when the kernel logged a BUG, oops or WARNING
# (KASAN, lockdep and the other checkers of a debug kernel report so) or
# kmemleak found objects ccache leaked (tools/vm/init); the reason, the failed
# checks and the tail of the console go to stderr.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=tools/lib/image.sh
. "$top/tools/lib/image.sh"
release=${CCDEV_KVER:-} module=$top/ccache.ko mem='' cpus='' timeout=''
log='' interactive=0 append='' disks=() test_disks=() prepare='' port=''
icount=''
modopts=${CCDEV_MODOPTS:-} preload=${CCDEV_PRELOAD:-}

while getopts "k:M:m:c:t:d:o:a:p:l:n:I:i" opt; do
	case $opt in
	k) release=$OPTARG ;;
	M) module=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpus=$OPTARG ;;
	t) timeout=$OPTARG ;;
	d) disks+=("$OPTARG") ;;
	o) log=$OPTARG ;;
	a) append=$OPTARG ;;
	p) modopts=$OPTARG ;;
	l) preload=$OPTARG ;;
	n) port=$OPTARG ;;
	I) icount=$OPTARG ;;
	i) interactive=1 ;;
	*) sed -n '4,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
test=${1:-}
[[ $interactive == 1 || -f $test ]] || { echo "boot.sh: no test file '$test'" >&2; exit 2; }
[[ -n $release ]] || release=$("$top/tools/kernels.sh" resolve 6.1)
[[ -f $module ]] || { echo "boot.sh: no module $module (run make)" >&2; exit 2; }

# defaults from the test's "# VM:" line
if [[ -n $test ]]; then
	# shellcheck disable=SC2013 # one line of words
	for kv in $(sed -n 's/^# VM://p' "$test"); do
		case $kv in
		mem=*) mem=${mem:-${kv#mem=}} ;;
		cpus=*) cpus=${cpus:-${kv#cpus=}} ;;
		timeout=*) timeout=${timeout:-${kv#timeout=}} ;;
		disk=*) test_disks+=("${kv#disk=}") ;;
		prepare=*) prepare=${kv#prepare=} ;;
		*) echo "boot.sh: unknown '# VM:' setting $kv in $test" >&2; exit 2 ;;
		esac
	done
fi
mem=${mem:-256} cpus=${cpus:-1} timeout=${timeout:-120}
[[ ${#disks[@]} -gt 0 ]] || disks=("${test_disks[@]}")

guest=$("$top/tools/kernels.sh" guest "$release")
kernel=$guest/vmlinux
# A debug kernel (tools/debug-kernel.sh, kernels.sh checkers) runs
# everything several times slower: its guests get that many times longer
# (CCDEV_TIMEOUT_FACTOR), and the guest's tests see the factor as
# CCDEV_SLOWDOWN (the long runs do less there: cc_debug_kernel).
# It keeps about 140 MiB of a guest's RAM for itself (a larger image,
# KASAN's shadow, lockdep's tables): its guests get 160 MiB more, so tests
# keep the memory pressure they were written for.  Its vmlinux cannot boot
# through the PVH entry, whose code KASAN instruments and which runs before
# KASAN's shadow exists: it boots its compressed image through the
# firmware (about 10 s more).
slowdown=1
if "$top/tools/kernels.sh" checkers "$release"; then
	slowdown=${CCDEV_TIMEOUT_FACTOR:-5}
	timeout=$((timeout * slowdown))
	mem=$((mem + 160))
	kernel=$guest/boot/vmlinuz-$release
fi
built_for=$(modinfo -F vermagic "$module" | cut -d' ' -f1)
if [[ $built_for != "$release" ]]; then
	echo "boot.sh: $module is built for $built_for, not $release (make KVER=$release)" >&2
	exit 2
fi
base=$("$here/initramfs.sh" "$release")
run=$(mktemp -d "${TMPDIR:-/tmp}/ccache-vm.XXXXXX")
trap 'rm -rf "$run"' EXIT
log=${log:-$run/console.log}

# per-run archive: the module, ccachectl, the tests, the run's settings
stage=$run/stage
mkdir -p "$stage/lib/modules/$release/extra" "$stage/selftests" "$stage/usr/sbin"
cp "$module" "$stage/lib/modules/$release/extra/ccache.ko"
cp "$top/tools/ccachectl" "$stage/usr/sbin/ccachectl"
install -D -m 0644 "$top/Documentation/ABI/testing/sysfs-kernel-mm-ccache" "$stage/usr/share/doc/ccache/sysfs-kernel-mm-ccache"
cp -r "$top/selftests/." "$stage/selftests/"
# build intermediates stay behind: the initramfs lives in the guest's RAM
find "$stage/selftests" \( -name '*.o' -o -name '.*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name '*.symvers' -o -name '*.order' \) -delete
[[ -z $test ]] || cp "$test" "$stage/selftests/.test"
if [[ -n $prepare ]] && ! out=$("$top/selftests/$prepare" "$release" "$stage" 2>&1); then
	printf '%s\n' "$out" | tail -n 40 | sed 's/^/    /' >&2
	echo "boot.sh: the host-side step $prepare failed" >&2
	exit 1
fi

qemu_disks=() fslist=()
for i in "${!disks[@]}"; do
	IFS=: read -r fs size extra <<< "${disks[$i]}"
	src='' made='' throttle=''
	for kv in ${extra//:/ }; do
		case $kv in
		src=*) src=${kv#src=} ;;
		img=*) made=${kv#img=} ;;
		bps=* | iops=*) throttle+=",throttling.${kv%%=*}-total=${kv#*=}" ;;
		*) echo "boot.sh: unknown disk option '$kv'" >&2; exit 2 ;;
		esac
	done
	case $fs in
	ext4 | xfs | raw) ;;
	*) echo "boot.sh: unknown filesystem '$fs'" >&2; exit 2 ;;
	esac
	if [[ -n $made ]]; then
		file="$made,snapshot=on"
	else
		file=$run/disk$i.img
		fs_image "$fs" "$size" "$file" "$src"
	fi
	drive="if=none,id=d$i,file=$file,format=raw,cache=unsafe$throttle"
	qemu_disks+=(-drive "$drive" -device "virtio-blk-device,drive=d$i")
	fslist+=("$fs")
done

{
	echo "CCDEV_TEST=${test:+/selftests/.test}"
	echo "CCDEV_DISKS='${fslist[*]}'"
	echo "CCDEV_SHELL=$interactive"
	echo "CCDEV_MODOPTS='$modopts'"
	echo "CCDEV_PRELOAD='$preload'"
	echo "CCDEV_SLOWDOWN=$slowdown"
	echo "CCDEV_NET=${port:+1}"
} > "$stage/run.conf"
(cd "$stage" && find . | cpio -o -H newc --quiet) > "$run/run.cpio"
cat "$base" "$run/run.cpio" > "$run/initrd"

# Guests of more than one vCPU run single-threaded TCG (the vCPUs take
# turns on one host thread) unless CCDEV_TCG_THREAD says otherwise.  With
# one host thread per vCPU, a vCPU sometimes runs a stale translation of
# kernel text another vCPU has just patched through int3 (text_poke_bp):
# "Oops: int3" on a jump label in ktime_get() or sched_clock_cpu() during
# boot of Debian's 7.3 (1 boot in about 10, ccache not loaded), and at the
# ftrace and tracepoint sites ccache's unload patches on 6.12 and 7.3.
# Counting instructions needs single-threaded TCG.
tcg_thread=${CCDEV_TCG_THREAD:-$([[ $cpus -gt 1 || -n $icount ]] && echo single || echo multi)}
# Without the host's TSC rate a TCG guest sometimes hangs calibrating it.
khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
# Counting instructions, QEMU's TSC ticks once per ns of guest time.
[[ -z $icount ]] || khz=1000000
# shellcheck disable=SC2054 # commas inside QEMU options
qemu=(qemu-system-x86_64 -accel "tcg,thread=$tcg_thread" -M microvm -cpu max
	-nodefaults -no-reboot -display none -m "$mem" -smp "$cpus"
	-kernel "$kernel" -initrd "$run/initrd"
	-append "console=ttyS0 loglevel=5 tsc_early_khz=${khz:-2000000} tsc=reliable oops=panic panic=-1 reboot=t $append"
	"${qemu_disks[@]}")
# shellcheck disable=SC2054 # commas inside QEMU options
[[ -z $icount ]] || qemu+=(-icount "shift=$icount,sleep=on")
# shellcheck disable=SC2054 # commas inside QEMU options
[[ -z $port ]] || qemu+=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$port-:80"
	-device virtio-net-device,netdev=n0)

if [[ $interactive == 1 ]]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

status=0
timeout -k 5 "$timeout" "${qemu[@]}" -chardev "file,id=con,path=$log" \
	-serial chardev:con || status=$?

# fail WHY: say why the guest failed, which checks failed (with the
# comments after each: a check that failed early is far above the tail)
# and the console's last lines
fail() {
	printf '\nFAILED (%s)\n' "$1" >&2
	if grep -q '^not ok ' "$log"; then
		echo "failed checks:" >&2
		grep -A 3 '^not ok ' "$log" | head -n 40 | sed 's/^/    /' >&2
	fi
	echo "last lines of the console:" >&2
	tail -n 40 "$log" | sed 's/^/    /' >&2
	exit 1
}
rc=$(sed -n 's/^CCACHE-TEST-END rc=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [[ -z $rc ]]; then
	[[ $status == 124 || $status == 137 ]] && fail "guest timed out after ${timeout}s"
	fail "guest stopped without the end marker: crash or panic"
fi
# What the kernel reports: BUG: (KASAN's "BUG: KASAN:", "BUG: sleeping
# function called from invalid context"), WARNING: (lockdep's "possible
# circular locking dependency", "inconsistent lock state", DEBUG_LIST's
# corruption warnings), oopses, panics, and on a kernel with kmemleak
# /init's count of objects ccache leaked.
reports='BUG:|WARNING:|Oops|Kernel panic|general protection|list_[a-z_]+ corruption'
reports+='|kmemleak-check: ([1-9]|no scan)'
if grep -Eq "^\[ *[0-9.]+\] ($reports)" "$log"; then
	fail "kernel reported a bug"
fi
case $rc in
0) exit 0 ;;
4) exit 4 ;;
*) fail "test exited with $rc" ;;
esac
