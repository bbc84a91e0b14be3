# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# fileset MIB: print the path of a compressible file set of MIB MiB
# (tools/gen-fileset.py), writing it into the cache the first time.

fileset() {
	local tools set
	tools=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	set=${CCDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ccache-dev}/fileset-$1
	if [[ ! -d $set ]]; then
		echo "writing a $1 MiB file set to $set" >&2
		rm -rf "$set.tmp"
		python3 "$tools/gen-fileset.py" "$set.tmp" "$1" >&2
		mv "$set.tmp" "$set"
	fi
	echo "$set"
}
