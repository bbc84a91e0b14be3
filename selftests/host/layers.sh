#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The layers include downward only: the core (ccache/) may include the
# offload shim (spu-offload/) and the compression layer (crypto/), the
# shim may include crypto/, and every layer may include include/compat.h;
# never the other way.  Each #include of a C file is resolved as the
# compiler resolves it (a quoted name first in the file's own directory,
# then in Kbuild's -I directories) and what it names must belong to the
# file's layer or one below.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=selftests/lib/tap.sh
. selftests/lib/tap.sh
shopt -s nullglob

# the layers each layer may include besides itself
declare -A below=(
	[ccache]="spu-offload crypto include"
	[spu-offload]="crypto include"
	[crypto]="include"
	[include]=""
)

# resolve FILE NAME QUOTED INCDIRS...: the project file that FILE's
# #include NAME reads (relative to the current directory), or nothing
# when it is a kernel header
resolve() {
	local file=$1 name=$2 quoted=$3 dir p
	shift 3
	if [[ $quoted == y ]]; then
		set -- "$(dirname "$file")" "$@"
	fi
	for dir; do
		p=$(realpath -m --relative-to=. "$dir/$name")
		[[ -f $p ]] && { echo "$p"; return; }
	done
}

# upward TOP: one line "FILE includes HEADER" for each include in the
# tree at TOP that leaves its file's layer for one not below it
upward() {
	(
		cd "$1" || exit 1
		local layer f line name quoted p ok l
		local -a incdirs
		mapfile -t incdirs < <(sed -n 's/.*-I[^ ]*src)\/\([^ ]*\).*/\1/p' Kbuild)
		for layer in "${!below[@]}"; do
			for f in "$layer"/*.[ch]; do
				while read -r line; do
					name=${line#*[\"<]}
					name=${name%%[\">]*}
					quoted=n
					[[ $line == *\"* ]] && quoted=y
					p=$(resolve "$f" "$name" "$quoted" "${incdirs[@]}")
					[[ -n $p ]] || continue
					ok=n
					for l in "$layer" ${below[$layer]}; do
						[[ $p == "$l"/* ]] && ok=y
					done
					[[ $ok == y ]] || echo "$f includes $p"
				done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f")
			done
		done
	)
}

# the check itself catches both ways up: a relative path, and a bare name
# found through Kbuild's -I
fixture=$(mktemp -d)
trap 'rm -rf "$fixture"' EXIT
mkdir -p "$fixture"/{ccache,crypto,spu-offload,include}
echo "ccflags-y += -I\$(src)/ccache" >"$fixture/Kbuild"
touch "$fixture"/ccache/ccache.h "$fixture"/crypto/comp.h "$fixture"/include/compat.h
printf '#include <linux/types.h>\n#include "../ccache/ccache.h"\n' >"$fixture/crypto/a.c"
printf '#include "../crypto/comp.h"\n#include "ccache.h"\n' >"$fixture/spu-offload/b.c"
printf '#include "../include/compat.h"\n#include "comp.h"\n' >"$fixture/crypto/c.c"
printf '#include "../spu-offload/b.c"\n#include "../crypto/comp.h"\n' >"$fixture/ccache/d.c"
check_eq "upward includes are found in a made-up tree" \
	"$(upward "$fixture" | sort | paste -sd ';')" \
	"crypto/a.c includes ccache/ccache.h;spu-offload/b.c includes ccache/ccache.h"

for layer in spu-offload crypto include; do
	files=("$layer"/*.[ch])
	check "$layer/ has files to check" test "${#files[@]}" -gt 0
done
up=$(upward .)
[[ -z $up ]]
tap_result $? "no file includes a layer above its own"
[[ -z $up ]] || tap_excerpt "$up"
tap_done
