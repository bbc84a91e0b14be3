#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The admin guide's cluster recipe ("Clusters": HAProxy hashing URIs onto
# three servers), run by HAProxy itself on the loopback: the configuration
# as the guide prints it is valid (haproxy -c); with three small web
# servers on 127.0.0.1 in place of the guide's addresses, every URI
# reaches the same server each time and each server gets a share; when one
# stops, only its URIs move and the others stay where they were; when it
# comes back, so do they.  Faster health checks than the guide's, and no
# bound on loads (hash-balance-factor), are the changes.  Skips without haproxy (tools/setup.sh --for check installs
# it) or python3.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
command -v haproxy > /dev/null || tap_skip_all "no haproxy on this host"
command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
guide=../Documentation/admin-guide/ccache.rst
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cluster_recipe.XXXXXX") || exit 1
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
uris=64

# the literal block that starts with the recipe's comment, unindented
awk '/^\t# ccache cluster recipe/ { on = 1 } on && !/^(\t|$)/ { exit }
	on { sub(/^\t/, ""); print }' "$guide" > "$tmp/guide.cfg"
check "the guide has the recipe" grep -q '^backend static' "$tmp/guide.cfg"
run_check "haproxy -c accepts it as printed" haproxy -c -f "$tmp/guide.cfg"

# four free loopback ports: HAProxy's and three servers'
read -r port web1 web2 web3 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(4)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
declare -A addr pid

# serve NAME: a web server on 127.0.0.1:${addr[NAME]} whose every file
# holds its own name, and a /health
serve() {
	mkdir -p "$tmp/$1/f"
	echo ok > "$tmp/$1/health"
	for i in $(seq 0 $((uris - 1))); do echo "$1" > "$tmp/$1/f/$i"; done
	python3 -m http.server -b 127.0.0.1 -d "$tmp/$1" "${addr[$1]}" \
		> "$tmp/$1.log" 2>&1 &
	pid[$1]=$!
	pids+=("$!")
}
addr=([web1]=$web1 [web2]=$web2 [web3]=$web3)
for s in web1 web2 web3; do serve $s; done

# the recipe with loopback addresses, checks every 100 ms, and no bound on
# loads: with it a request may go to the next server on the ring while
# the previous one's connection is still counted, which is what it is for
# but not what this test checks
sed -e "s/^\tbind :80$/\tbind 127.0.0.1:$port/" \
	-e '/^\thash-balance-factor /d' \
	-e 's/^\tdefault-server check .*/\tdefault-server check inter 100ms fall 1 rise 1/' \
	-e "s/^\tserver \(web[123]\) [0-9.]*:80$/\tserver \1 127.0.0.1:PORT_\1/" \
	"$tmp/guide.cfg" > "$tmp/test.cfg"
for s in web1 web2 web3; do sed -i "s/PORT_$s\$/${addr[$s]}/" "$tmp/test.cfg"; done
run_check "haproxy -c accepts it on the loopback" haproxy -c -f "$tmp/test.cfg"
haproxy -db -f "$tmp/test.cfg" > "$tmp/haproxy.log" 2>&1 &
pids+=("$!")

# route: "URI SERVER" for every URI, one request each ("none": failed)
route() {
	python3 -c 'import sys, urllib.request
for i in range(int(sys.argv[2])):
    try:
        r = urllib.request.urlopen(sys.argv[1] + str(i), timeout=5)
        print(i, r.read().decode().strip())
    except Exception:
        print(i, "none")' "http://127.0.0.1:$port/f/" "$uris"
}

# moved A B: the URIs whose server in route output A differs from B's
# (the server in A only, or none)
moved() {
	awk 'NR == FNR { a[$1] = $2; next } a[$1] != $2 { print $1, a[$1], $2 }' "$1" "$2"
}

# up N: wait (5 s at most) until HAProxy sees N servers up
# shellcheck disable=SC2317 # called through check
up() {
	local n
	for _ in $(seq 50); do
		n=$(route | awk '{ print $2 }' | grep -v none | sort -u | wc -l)
		[[ $n == "$1" ]] && return 0
		sleep 0.1
	done
	return 1
}

check "HAProxy routes to all three servers" up 3
route > "$tmp/r1"
route > "$tmp/r2"
check_eq "every URI reaches the same server twice" \
	"$(moved "$tmp/r1" "$tmp/r2" | wc -l)" 0
check_eq "no request failed" "$(grep -c ' none$' "$tmp/r1")" 0
for s in web1 web2 web3; do
	check "$s serves a share" grep -q " $s\$" "$tmp/r1"
done

kill "${pid[web2]}"
wait "${pid[web2]}" 2>/dev/null
check "with web2 stopped, HAProxy routes to two" up 2
route > "$tmp/r3"
check_eq "no request failed" "$(grep -c ' none$' "$tmp/r3")" 0
check_eq "the URIs of web1 and web3 stayed where they were" \
	"$(moved "$tmp/r1" "$tmp/r3" | awk '$2 != "web2"' | wc -l)" 0
echo "# web2's $(grep -c ' web2$' "$tmp/r1") of $uris URIs moved to:" \
	"$(moved "$tmp/r1" "$tmp/r3" | awk '{ print $3 }' | sort | uniq -c | tr -s ' \n' ' ')"

serve web2
check "with web2 back, HAProxy routes to three" up 3
route > "$tmp/r4"
check_eq "every URI is back on its first server" \
	"$(moved "$tmp/r1" "$tmp/r4" | wc -l)" 0
tap_done
