#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ccfile keeps a file's model only while it describes the file, on the
# host's own filesystem, where no ccache is.  A command refused before it
# changes anything keeps the model; one that dies part way through a
# change removes it, so that later checks of the file fail with "no
# model" instead of mismatches that are ccfile's own (in the debug
# kernel's full run of 2026-11-24 a churn died, its model stayed as it
# was before the churn, and every later check reported wrong data); a
# churn that dies shows the operations that led there.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. ./lib/tap.sh
# shellcheck source=selftests/lib/ccfile_host.sh
. ./lib/ccfile_host.sh
f=$top/file

# fails DESC COMMAND...: COMMAND fails; what it printed is left in $out
fails() {
	local desc=$1
	shift
	! out=$("$@" 2>&1)
	tap_result $? "$desc"
}

# says DESC TEXT: the output of the last command run by fails has TEXT
says() {
	local st
	grep -q -- "$2" <<< "$out"
	st=$?
	tap_result $st "$1"
	[[ $st -eq 0 ]] || tap_excerpt "$out"
}

check "create a 1 MiB file" "$ccfile" create "$f" 1M
fails "an O_DIRECT write of part of a page fails" \
	"$ccfile" write -d "$f" 1 4096
says "it is refused before any change" "needs whole pages"
run_check "the refused write kept the model" "$ccfile" verify "$f"

fails "punching no bytes fails" "$ccfile" punch "$f" 0 0
says "it died in fallocate" "fallocate.*Invalid argument"
says "it says the model is removed" "changed part way: its model is removed"
fails "a later verify fails" "$ccfile" verify "$f"
says "it says there is no model" "no model for $f"

# a churn that meets the file size limit part way (EFBIG: SIGXFSZ ignored)
check "create the file again" "$ccfile" create "$f" 1M
fails "a churn limited to a 1 MiB file fails" \
	bash -c 'trap "" XFSZ; ulimit -f 1024; exec "$@"' - \
	"$ccfile" churn -s 1 -n 2000 "$f"
says "it died of the size limit" "$f.*: File too large"
says "it shows the operations that led there" "the last [0-9]* operations"
says "it says the model is removed" "changed part way: its model is removed"
fails "a later verify fails" "$ccfile" verify "$f"
says "it says there is no model" "no model for $f"
check "the model is gone" test ! -e "$CCFILE_MODELS/${f//\//%}"
tap_done
