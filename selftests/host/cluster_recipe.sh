#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The admin guide's cluster recipe ("Clusters": HAProxy hashing URIs onto
# three servers), run by HAProxy itself on the loopback: the configuration
# as the guide prints it is valid (haproxy -c); with three small web
# servers on 127.0.0.1 in place of the guide's addresses, every URI
# reaches the same server each time and each server gets a share; when one
# stops, only its URIs move and the others stay where they were; when it
# comes back, so do they (lib/cluster.sh: the changes made to the
# guide's configuration).  Skips without haproxy (tools/setup.sh --for
# check installs it) or python3.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/lib/cluster.sh
. ./lib/cluster.sh
cluster_prepare cluster_recipe
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
uris=64

cluster_guide "$guide" > "$tmp/guide.cfg"
check "the guide has the recipe" grep -q '^backend static' "$tmp/guide.cfg"
run_check "haproxy -c accepts it as printed" haproxy -c -f "$tmp/guide.cfg"

# four free loopback ports: HAProxy's and three servers'
read -r port web1 web2 web3 < <(cluster_ports 4)
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

cluster_config "$guide" "$port" web1="$web1" web2="$web2" web3="$web3" \
	> "$tmp/test.cfg"
run_check "haproxy -c accepts it on the loopback" haproxy -c -f "$tmp/test.cfg"
haproxy -db -f "$tmp/test.cfg" > "$tmp/haproxy.log" 2>&1 &
pids+=("$!")

url=http://127.0.0.1:$port/f/
route() {
	cluster_route "$url" "$uris"
}
# shellcheck disable=SC2317 # called through check
up() {
	cluster_up 5 "$1" "$url" "$uris"
}

check "HAProxy routes to all three servers" up 3
route > "$tmp/r1"
route > "$tmp/r2"
check_eq "every URI reaches the same server twice" \
	"$(cluster_moved "$tmp/r1" "$tmp/r2" | wc -l)" 0
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
	"$(cluster_moved "$tmp/r1" "$tmp/r3" | awk '$2 != "web2"' | wc -l)" 0
echo "# web2's $(grep -c ' web2$' "$tmp/r1") of $uris URIs moved to:" \
	"$(cluster_moved "$tmp/r1" "$tmp/r3" | awk '{ print $3 }' | sort | uniq -c | tr -s ' \n' ' ')"

serve web2
check "with web2 back, HAProxy routes to three" up 3
route > "$tmp/r4"
check_eq "every URI is back on its first server" \
	"$(cluster_moved "$tmp/r1" "$tmp/r4" | wc -l)" 0
tap_done
