#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Style is part of correctness here: every C file passes the kernel's
# checkpatch.pl --strict, every shell script passes shellcheck.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh

cache=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}
checkpatch=$cache/src/linux-source-6.1/scripts/checkpatch.pl
[[ -x $checkpatch ]] || { echo "# no $checkpatch: run tools/setup.sh"; tap_result 1 "checkpatch.pl available"; tap_done; }

# the tracked files; outside a git checkout (an exported tree), every file
# but build products
files() {
	git ls-files "$@" 2>/dev/null ||
		find . -path ./.git -prune -o -type f -print | sed 's|^\./||' |
		grep -vE '\.mod\.c$|/\.' | grep -E "$(printf '%s|' "$@" |
			sed 's/\./\\./g; s/\*/.*/g; s/|$//; s/^/^(/; s/$/)$/')"
}

while read -r f; do
	run_check "checkpatch --strict $f" "$checkpatch" --strict --no-tree -q --terse -f "$f"
done < <(files '*.c' '*.h')

while read -r f; do
	run_check "shellcheck $f" shellcheck "$f"
done < <(files '*' | while read -r f; do
	case $f in
	*.sh | .ci/run | tools/vm/init | tools/ccachectl | tools/*.guest | \
		packaging/postinst | packaging/prerm) echo "$f" ;;
	esac
done)
tap_done
