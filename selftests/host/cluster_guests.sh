#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The admin guide's cluster recipe with its web servers in guests: two
# guests, each with ccache loaded and busybox's httpd serving the same
# files from its own disk (cluster/web.guest), reached through QEMU's user
# networking on loopback ports only (boot.sh -n), behind HAProxy on the
# host configured as the guide prints it (lib/cluster.sh lists the changes
# for a test).  Every response matches the file asked for, each URI reaches
# the same server on every request while both are up, and each server
# gets a share.  Skips without haproxy (tools/setup.sh --for check installs
# it) or python3.
# HOST: timeout=300
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/lib/cluster.sh
. ./lib/cluster.sh
cluster_prepare cluster_guests
guests=() haproxy=''
# each guest runs in a session of its own: stopping the session stops its
# QEMU too (which timeout(1) runs in a process group of its own)
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	local g
	for g in "${guests[@]}"; do pkill -s "$g"; done
	[[ -z $haproxy ]] || kill "$haproxy" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
uris=64

# the files: sizes from 1 to 192 KiB, text-like (compressible) and each
# different, and the health check's
mkdir -p "$tmp/www"
echo ok > "$tmp/www/health"
python3 -c 'import random, sys
words = [b"ccache", b"page", b"cache", b"server", b"cluster", b"disk", b"\n"]
for i in range(int(sys.argv[2])):
    r = random.Random(i)
    size = r.randint(1, 192) << 10
    data = b" ".join(r.choice(words) for _ in range(size // 4))[:size]
    open(sys.argv[1] + "/" + str(i), "wb").write(data)' "$tmp/www" "$uris"

read -r port web1 web2 < <(cluster_ports 3)
declare -A addr=([web1]=$web1 [web2]=$web2)
for s in web1 web2; do
	setsid ../tools/vm/boot.sh -m 192 -c 1 -t 280 -n "${addr[$s]}" \
		-d "ext4:64M:src=$tmp/www" -a ccache_web_secs=240 \
		-o "$tmp/$s.log" cluster/web.guest > "$tmp/$s.out" 2>&1 &
	guests+=("$!")
done

cluster_config "$guide" "$port" web1="$web1" web2="$web2" > "$tmp/test.cfg"
run_check "haproxy -c accepts the recipe for the two guests" \
	haproxy -c -f "$tmp/test.cfg"
haproxy -db -f "$tmp/test.cfg" > "$tmp/haproxy.log" 2>&1 &
haproxy=$!

url=http://127.0.0.1:$port/
up=0
cluster_up 120 2 "$url" "$uris" > /dev/null 2>&1 || up=$?
tap_result $up "HAProxy routes to both guests (2 minutes at most)"
if [ $up -ne 0 ]; then
	for s in web1 web2; do
		tap_excerpt "$s: $(tail -n 20 "$tmp/$s.out" "$tmp/$s.log")"
	done
fi
cluster_route "$url" "$uris" "$tmp/www" > "$tmp/r1"
cluster_route "$url" "$uris" "$tmp/www" > "$tmp/r2"
check_eq "no request failed" "$(grep -c ' none$' "$tmp/r1" "$tmp/r2" |
	awk -F: '{ n += $2 } END { print n }')" 0
check_eq "every response matched its file" "$(grep -c ' bad$' "$tmp/r1" "$tmp/r2" |
	awk -F: '{ n += $2 } END { print n }')" 0
check_eq "every URI reached the same server twice" \
	"$(cluster_moved "$tmp/r1" "$tmp/r2" | wc -l)" 0
for s in web1 web2; do
	check "$s served a share" grep -q " $s\$" "$tmp/r1"
done
echo "# URIs per server: $(awk '{ print $2 }' "$tmp/r1" | sort | uniq -c | tr -s ' \n' ' ')"
tap_done
