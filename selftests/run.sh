#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the test suite: every selftests/*.sh in a fresh guest of its own, two
# guests at a time, and every selftests/host/*.sh on the host.  Prints one
# line per test as it finishes, the output of each failed test, and last
# "N passed, N failed, N skipped".  Exit status 1 when a test failed or
# when no test ran.
#
# usage: run.sh [-f] [-k RELEASE] [-j JOBS] [-p OPTIONS] [-l MODULE] [TEST...]
#   -f       the full run: every variant test (see below), the long
#            tests in long/ and host/debug_kernel.sh (CCDEV_FULL_RUN=1)
#   RELEASE  guest kernel (default: newest 6.1); the module ../ccache.ko and
#            the test modules in modules/ must be built for it
#   OPTIONS  ccache module options for every guest (e.g. offload=inline),
#            shown after each test's name
#   MODULE   test-only module each guest loads first (boot.sh -l)
#   TEST     paths of tests to run (default: all, then the variants)
#
# The variants file lists tests to run again with other module options, one
# line each: "OPTIONS; MODULE or -; TEST...; MORE TEST...", the MORE TESTs
# in the full run only, and not on a debug kernel (kernels.sh checkers):
# it runs the suite about ten times slower, and its full run must fit a
# working session; the first list already takes each backend through each
# path (serve, coherence, remount, inode reuse; see variants).
set -euo pipefail

cd "$(dirname "$0")"
release=${CCDEV_KVER:-} jobs=2 modopts='' preload='' full=''
while getopts "fk:j:p:l:" opt; do
	case $opt in
	f) full=1 ;;
	k) release=$OPTARG ;;
	j) jobs=$OPTARG ;;
	p) modopts=$OPTARG ;;
	l) preload=$OPTARG ;;
	*) sed -n '10,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ -n $release ]] || release=$(../tools/kernels.sh resolve 6.1)
export CCDEV_KVER=$release
# for the host tests that belong to the full run alone (host/debug_kernel.sh)
export CCDEV_FULL_RUN=$full
more_variants=$full note=''
if [[ -n $full ]] && ../tools/kernels.sh checkers "$release"; then
	more_variants='' note=" (a debug kernel: the first variant lists only)"
fi

# tests[i] runs with module options opts[i] and test module pre[i]
tests=() opts=() pre=()
add_test() { tests+=("$1"); opts+=("$2"); pre+=("$3"); }
if [[ $# -gt 0 ]]; then
	for t in "$@"; do add_test "$t" "$modopts" "$preload"; done
else
	for t in ./*.sh host/*.sh; do
		[[ $t == ./run.sh ]] || add_test "$t" "$modopts" "$preload"
	done
	if [[ -n $full ]]; then
		for t in ./long/*.sh; do add_test "$t" "$modopts" "$preload"; done
	fi
	while IFS=';' read -r o m list more; do
		[[ $o == \#* || -z $o ]] && continue
		[[ $m == *- ]] && m=''
		[[ -n $more_variants ]] || more=''
		# shellcheck disable=SC2086 # lists of test paths
		for t in $list $more; do add_test "$t" "$o" "${m// /}"; done
	done < variants
fi

# the guests need a test build: the tests inject faults through its
# test-only knobs (Kbuild, CCDEV_FAULT_INJECT)
for t in "${tests[@]}"; do
	[[ $t == host/* ]] && continue
	if ! modinfo -F parm ../ccache.ko 2>/dev/null | grep -q '^fault_inject:'; then
		echo "run.sh: ../ccache.ko is not a test build (no fault_inject knob):" \
			"build it with make KVER=$release CCDEV_FAULT_INJECT=y, as make check does" >&2
		exit 2
	fi
	# a test module of another kernel fails to load, and a test that
	# expects its effect (harness/oops.guest) would see none
	for m in modules/*.ko; do
		[[ -e $m ]] || continue
		if [[ $(modinfo -F vermagic "$m" | cut -d' ' -f1) != "$release" ]]; then
			echo "run.sh: $m is not built for $release:" \
				"make KVER=$release test-modules, as make check does" >&2
			exit 2
		fi
	done
	# nor can a guest load one that is not there (a 7.x build of
	# ../ccache.ko removes every .ko in the tree, tools/kernels.sh)
	needed=$(grep -ho 'modules/[a-z_]*\.ko' "${tests[@]}" || true)
	for m in "${pre[@]}"; do
		[[ -z $m ]] || needed+=" modules/$m.ko"
	done
	for m in $needed; do
		if [[ ! -e $m ]]; then
			echo "run.sh: $m is missing:" \
				"make KVER=$release test-modules, as make check does" >&2
			exit 2
		fi
	done
	break
done

results=$(mktemp -d "${TMPDIR:-/tmp}/ccache-results.XXXXXX")
trap 'rm -rf "$results"' EXIT

# run_one INDEX: run test INDEX, leave its output and status in $results
run_one() {
	local start=$SECONDS status=0 t=${tests[$1]} label=''
	[[ -z ${opts[$1]}${pre[$1]} ]] || label=" [${opts[$1]}${pre[$1]:+ +${pre[$1]}}]"
	case $t in
	host/*) "./$t" > "$results/$1.out" 2>&1 || status=$? ;;
	*) CCDEV_MODOPTS=${opts[$1]} CCDEV_PRELOAD=${pre[$1]} \
		../tools/vm/boot.sh -k "$release" -o "$results/$1.console" "$t" \
		> "$results/$1.out" 2>&1 || status=$? ;;
	esac
	echo "$label" > "$results/$1.label"
	echo "$status" > "$results/$1.status"
	case $status in
	0) word=passed ;;
	4) word=skipped ;;
	*) word=FAILED ;;
	esac
	printf '%-28s %-8s %4ss\n' "$t$label" "$word" $((SECONDS - start))
}

# longest first (by the timeout a test asks for: a guest test's "# VM:"
# line, a host test's "# HOST:" line), so the slowest does not start last
# and keep one slot busy alone at the end
timeout_of() {
	local t
	t=$(sed -n 's/^# \(VM\|HOST\):.*timeout=\([0-9]*\).*/\2/p' "$1" 2>/dev/null)
	echo "${t:-60}"
}
order=$(for i in "${!tests[@]}"; do
	echo "$(timeout_of "${tests[$i]}") $i"
done | sort -k1,1nr -k2,2n | cut -d' ' -f2)

echo "Running ${#tests[@]} tests on $release, $jobs at a time$note"
for i in $order; do
	while [[ $(jobs -rp | wc -l) -ge $jobs ]]; do
		wait -n || true
	done
	run_one "$i" &
done
wait

# summary_table: what the tests that print "SUMMARY key=value..." lines
# (cc_summary) ran, one row each and the totals: operations, ccache hits,
# data mismatches, kernel reports (BUG, oops, WARNING: boot.sh's verdict),
# leaks (kmemleak's count, on a kernel that has it); hostile input's
# writes tried and refused
summary_table() {
	local i
	for i in "${!tests[@]}"; do
		[[ -f $results/$i.console ]] || continue
		printf '%s\t%s\t%s\t' "${tests[$i]}$(cat "$results/$i.label")" \
			"$(grep -c 'kernel reported a bug' "$results/$i.out")" \
			"$(sed -n 's/.*kmemleak-check: \([0-9]*\).*/\1/p' "$results/$i.console" | tail -n 1)"
		tr -d '\r' < "$results/$i.console" | sed -n 's/^SUMMARY //p' | tr '\n' ' '
		echo
	done | awk -F'\t' '
		function val(k,   i, kv) {
			for (i = 1; i <= n; i++) {
				split(f[i], kv, "=")
				if (kv[1] == k)
					return kv[2]
			}
			return ""
		}
		{
			n = split($4, f, " ")
			if (val("hostile_writes") != "") {
				hw += val("hostile_writes"); hr += val("hostile_refused")
			}
			if (val("ops") == "")
				next
			if (!rows++)
				printf "%-56s %8s %8s %10s %6s %5s\n", "test", "ops",
					"hits", "mismatches", "oopses", "leaks"
			leaks = $3 == "" ? "-" : $3
			printf "%-56s %8d %8d %10d %6d %5s\n", $1, val("ops"),
				val("hits"), val("mismatches"), $2, leaks
			ops += val("ops"); hits += val("hits")
			bad += val("mismatches"); oops += $2
			if ($3 != "") { lk += $3; haveleaks = 1 }
		}
		END {
			if (rows)
				printf "%-56s %8d %8d %10d %6d %5s\n", "total", ops,
					hits, bad, oops, haveleaks ? lk : "-"
			if (hw)
				printf "hostile input: %d writes tried, %d refused\n", hw, hr
		}'
}

# keep_console INDEX: a failed guest's whole console outlives the run (the
# output above has only its tail; an oops starts further up)
keep_console() {
	local dir=${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev/failed name
	[[ -f $results/$1.console ]] || return 0
	name=$(date +%Y%m%d-%H%M%S)-$release-$(basename "${tests[$1]}" .sh)-$1.log
	mkdir -p "$dir" && cp "$results/$1.console" "$dir/$name" &&
		echo "  (whole console: $dir/$name)"
}

summary_table
passed=0 failed=0 skipped=0
for i in "${!tests[@]}"; do
	case $(cat "$results/$i.status") in
	0) passed=$((passed + 1)) ;;
	4) skipped=$((skipped + 1)) ;;
	*)
		failed=$((failed + 1))
		echo "---- ${tests[$i]}$(cat "$results/$i.label") failed:"
		sed 's/^/  /' "$results/$i.out"
		keep_console "$i"
		;;
	esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 && $passed -gt 0 ]]
