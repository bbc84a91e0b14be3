# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the tests of the admin guide's cluster recipe (HAProxy hashing
# URIs onto web servers): host/cluster_recipe.sh (servers on the loopback)
# and host/cluster_guests.sh (servers in guests).  Bash, python3.

# cluster_prepare NAME: skip the test without haproxy (tools/setup.sh
# --for check installs it) or python3; else set guide (the admin guide's
# path), cluster_py (the benchmark's host helper, whose route command
# cluster_route runs) and tmp (a new directory named after NAME)
cluster_prepare() {
	command -v haproxy > /dev/null || tap_skip_all "no haproxy on this host"
	command -v python3 > /dev/null || tap_skip_all "no python3 on this host"
	# shellcheck disable=SC2034 # the tests' variables
	guide=../Documentation/admin-guide/ccache.rst
	cluster_py=../tools/bench/cluster.py
	# shellcheck disable=SC2034
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
}

# cluster_ports N: N free TCP ports on 127.0.0.1
cluster_ports() {
	python3 -c '
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}

# cluster_guide GUIDE: the recipe as the admin guide GUIDE prints it (the
# literal block that starts with its comment), unindented
cluster_guide() {
	awk '/^\t# ccache cluster recipe/ { on = 1 } on && !/^(\t|$)/ { exit }
		on { sub(/^\t/, ""); print }' "$1"
}

# cluster_config [-k] GUIDE PORT NAME=PORT...: the guide's recipe on
# stdout, with HAProxy on 127.0.0.1:PORT and the servers NAME on 127.0.0.1
# (the guide's other servers removed) and the server's name in an X-Server
# header; unless -k (keep: the benchmark's loads run the recipe's own),
# checks every 100 ms, a server down after 2 failed ones, and no bound on
# loads (with one a request may go to the next server on the ring while
# the previous one's connection is still counted, which is what it is for
# but not what the tests check).  A check may take 2 s: without "timeout
# check" its interval is its timeout, and a guest on a busy host may
# answer later than 100 ms
cluster_config() {
	local tests=(-e '/^\thash-balance-factor /d'
		-e 's/^\tdefault-server check inter [^ ]* fall [0-9]* rise [0-9]*/\tdefault-server check inter 100ms fall 2 rise 1/'
		-e 's/^\tdefault-server check .*/&\n\ttimeout check 2s/')
	[[ $1 != -k ]] || { tests=(); shift; }
	local guide=$1 port=$2 subst=()
	shift 2
	for kv in "$@"; do
		subst+=(-e "s/^\tserver ${kv%%=*} [0-9.]*:80$/\tserver ${kv%%=*} 127.0.0.1:${kv#*=}/")
	done
	cluster_guide "$guide" |
		sed -e "s/^\tbind :80$/\tbind 127.0.0.1:$port/" "${tests[@]}" \
			-e 's/^\tbalance uri$/&\n\thttp-response set-header X-Server %s/' \
			"${subst[@]}" -e '/^\tserver [^ ]* [0-9.]*:80$/d'
}

# cluster_route URL N [DIR]: one request for each of URL0 .. URL(N-1),
# printing "I SERVER" each: the X-Server header's server, "none" when the
# request failed, "bad" when DIR is given and the body differs from file
# DIR/I (tools/bench/cluster.py route)
cluster_route() {
	local url=$1 n=$2
	shift 2
	python3 "$cluster_py" route "$url" <(seq 0 $((n - 1))) "$n" "$@"
}

# cluster_moved A B: the URIs whose server in cluster_route output A
# differs from B's ("I SERVER-IN-A SERVER-IN-B")
cluster_moved() {
	awk 'NR == FNR { a[$1] = $2; next } a[$1] != $2 { print $1, a[$1], $2 }' "$1" "$2"
}

# cluster_up SECS COUNT URL N: wait at most SECS seconds until requests for
# URL0 .. URL(N-1) reach COUNT servers
# shellcheck disable=SC2317 # called through check
cluster_up() {
	local end=$((SECONDS + $1)) n
	while ((SECONDS < end)); do
		n=$(cluster_route "$3" "$4" | awk '{ print $2 }' | grep -v none |
			sort -u | wc -l)
		[[ $n == "$2" ]] && return 0
		sleep 0.2
	done
	return 1
}
