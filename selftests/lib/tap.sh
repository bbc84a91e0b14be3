# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# TAP output for guest tests, after kselftest.h: "ok N desc" or
# "not ok N desc" per check ("ok N desc # SKIP why" for one that could
# not run), a plan line at the end, exit 0 when every check passed or was
# skipped, 1 when one failed, 4 (kselftest's skip) when the test could not
# run here at all.  Source it, call the checks, finish with tap_done.

tap_n=0
tap_failed=0
tap_skipped=0
echo "TAP version 13"

# tap_result STATUS DESC: record one check (STATUS 0 = passed)
tap_result() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n $2"
	else
		echo "not ok $tap_n $2"
		tap_failed=$((tap_failed + 1))
	fi
}

# check DESC COMMAND...: passes when COMMAND succeeds
check() {
	desc=$1
	shift
	"$@" >/dev/null 2>&1
	tap_result $? "$desc"
}

# run_check DESC COMMAND...: like check, but what COMMAND printed becomes
# TAP comments when it fails: all of it up to 40 lines, else the first 20
# (where ccfile names the file, offset and bytes) and the last 20 (where
# dpkg and the compilers say what stopped them).  Returns COMMAND's status.
run_check() {
	desc=$1
	shift
	out=$("$@" 2>&1)
	st=$?
	tap_result $st "$desc"
	[ $st -eq 0 ] || tap_excerpt "$out"
	return $st
}

# tap_excerpt TEXT: TEXT as TAP comments, cut to 40 lines as run_check says
tap_excerpt() {
	lines=$(printf '%s\n' "$1" | wc -l)
	if [ "$lines" -le 40 ]; then
		printf '%s\n' "$1"
	else
		printf '%s\n' "$1" | head -n 20
		echo "[... $((lines - 40)) lines ...]"
		printf '%s\n' "$1" | tail -n 20
	fi | sed 's/^/#   /'
}

# check_fails DESC COMMAND...: passes when COMMAND fails
check_fails() {
	desc=$1
	shift
	! "$@" >/dev/null 2>&1
	tap_result $? "$desc"
}

# check_eq DESC ACTUAL EXPECTED
check_eq() {
	[ "$2" = "$3" ]
	tap_result $? "$1"
	[ "$2" = "$3" ] || echo "#   got '$2', expected '$3'"
}

# tap_skip DESC REASON: one check that cannot run here; not a pass
tap_skip() {
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n $1 # SKIP $2"
}

# tap_skip_all REASON: nothing can be checked here
tap_skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

tap_done() {
	echo "1..$tap_n"
	[ "$tap_skipped" -eq 0 ] || echo "# $tap_skipped of $tap_n checks skipped"
	[ "$tap_n" -gt 0 ] || { echo "# no check ran"; exit 1; }
	[ "$tap_failed" -eq 0 ] || { echo "# $tap_failed of $tap_n checks failed"; exit 1; }
	exit 0
}
