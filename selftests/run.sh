#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the test suite: every selftests/*.sh in a fresh guest of its own, two
# guests at a time, and every selftests/host/*.sh on the host.  Prints one
# line per test as it finishes, the output of each failed test, and last
# "N passed, N failed, N skipped".  Exit status 1 when a test failed or
# when no test ran.
#
# usage: run.sh [-k RELEASE] [-j JOBS] [TEST...]
#   RELEASE  guest kernel (default: newest 6.1); the module ../ccache.ko and
#            the test modules in modules/ must be built for it
#   TEST     paths of tests to run (default: all)
set -euo pipefail

cd "$(dirname "$0")"
release=${CCACHE_KVER:-} jobs=2
while getopts "k:j:" opt; do
	case $opt in
	k) release=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n '10,13s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ -n $release ]] || release=$(../tools/kernels.sh resolve 6.1)
export CCACHE_KVER=$release

if [[ $# -gt 0 ]]; then
	tests=("$@")
else
	tests=()
	for t in ./*.sh host/*.sh; do
		[[ $t == ./run.sh ]] || tests+=("$t")
	done
fi

results=$(mktemp -d "${TMPDIR:-/tmp}/ccache-results.XXXXXX")
trap 'rm -rf "$results"' EXIT

# run_one INDEX TEST: run it, leave its output and status in $results
run_one() {
	local start=$SECONDS status=0
	case $2 in
	host/*) "./$2" > "$results/$1.out" 2>&1 || status=$? ;;
	*) ../tools/vm/boot.sh -k "$release" "$2" > "$results/$1.out" 2>&1 || status=$? ;;
	esac
	echo "$status" > "$results/$1.status"
	case $status in
	0) word=passed ;;
	4) word=skipped ;;
	*) word=FAILED ;;
	esac
	printf '%-28s %-8s %4ss\n' "$2" "$word" $((SECONDS - start))
}

echo "Running ${#tests[@]} tests on $release, $jobs at a time"
for i in "${!tests[@]}"; do
	while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do
		wait -n || true
	done
	run_one "$i" "${tests[$i]}" &
done
wait

passed=0 failed=0 skipped=0
for i in "${!tests[@]}"; do
	case $(cat "$results/$i.status") in
	0) passed=$((passed + 1)) ;;
	4) skipped=$((skipped + 1)) ;;
	*)
		failed=$((failed + 1))
		echo "---- ${tests[$i]} failed:"
		sed 's/^/  /' "$results/$i.out"
		;;
	esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 && $passed -gt 0 ]]
